//! `--set key=value` overrides, applied to the parsed TOML tree before it is typed, so any
//! key can be overridden: `topology.k=8`, `switch.buffer=32pkt`, `flows.0.size=1MB`. The
//! value is read as a TOML value when it parses as one (`8`, `true`, `"x"`, `[1, 2]`) and as a
//! plain string otherwise (`32pkt`, `ecmp`).

use crate::error::{Error, Result};
use toml::Value;

pub fn apply(root: &mut Value, spec: &str) -> Result<()> {
    let err = |msg: String| Error::Override { spec: spec.to_string(), msg };
    let (path, raw) =
        spec.split_once('=').ok_or_else(|| err("expected key=value, e.g. topology.k=8".into()))?;
    let path = path.trim();
    if path.is_empty() || path.split('.').any(str::is_empty) {
        return Err(err("the key must be a dotted path like topology.k".into()));
    }
    let value = parse_value(raw.trim());
    let parts: Vec<&str> = path.split('.').collect();
    let mut cur = root;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        cur = match cur {
            Value::Table(t) => {
                if last {
                    t.insert(part.to_string(), value);
                    return Ok(());
                }
                t.entry(part.to_string()).or_insert_with(|| Value::Table(Default::default()))
            }
            Value::Array(a) => {
                let idx: usize = part.parse().map_err(|_| {
                    err(format!(
                        "`{}` is a list; expected an index, got `{part}`",
                        parts[..i].join(".")
                    ))
                })?;
                let len = a.len();
                let slot = a.get_mut(idx).ok_or_else(|| {
                    err(format!("`{}` has {len} entries, no index {idx}", parts[..i].join(".")))
                })?;
                if last {
                    *slot = value;
                    return Ok(());
                }
                slot
            }
            Value::String(name) => {
                // `transport.cc.beta=0.5` where `cc = "cubic"`: the table form holds settings.
                let here = parts[..i].join(".");
                let rest = parts[i..].join(".");
                return Err(err(format!(
                    "`{here}` is the name \"{name}\", not a table; a setting needs the table form: --set '{here}={{ kind = \"{name}\", {rest} = {} }}'",
                    raw.trim()
                )));
            }
            _ => return Err(err(format!("`{}` is not a table", parts[..i].join(".")))),
        };
    }
    unreachable!("loop returns on the last part")
}

fn parse_value(raw: &str) -> Value {
    let doc = format!("v = {raw}");
    match doc.parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").unwrap_or_else(|| Value::String(raw.to_string())),
        Err(_) => Value::String(raw.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_nested_keys_and_list_entries() {
        let mut v: Value =
            toml::from_str("[topology]\nk = 4\n[[flows]]\nsize = \"1MB\"\n").unwrap();
        apply(&mut v, "topology.k=8").unwrap();
        apply(&mut v, "switch.buffer=32pkt").unwrap();
        apply(&mut v, "flows.0.size=2MB").unwrap();
        assert_eq!(v["topology"]["k"].as_integer(), Some(8));
        assert_eq!(v["switch"]["buffer"].as_str(), Some("32pkt"));
        assert_eq!(v["flows"][0]["size"].as_str(), Some("2MB"));
    }

    #[test]
    fn rejects_malformed_specs() {
        let mut v: Value = toml::from_str("[[flows]]\n").unwrap();
        assert!(apply(&mut v, "topology.k").is_err());
        assert!(apply(&mut v, "flows.3.size=1").is_err());
        assert!(apply(&mut v, ".k=1").is_err());
    }

    #[test]
    fn a_setting_of_a_name_suggests_the_table_form() {
        let mut v: Value = toml::from_str("[transport]\ncc = \"cubic\"\n").unwrap();
        let e = apply(&mut v, "transport.cc.beta=0.5").unwrap_err().to_string();
        assert!(e.ends_with("--set 'transport.cc={ kind = \"cubic\", beta = 0.5 }'"), "{e}");
    }
}
