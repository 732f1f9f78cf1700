//! Typed configuration tables with key-path errors, shared by every module that defines a
//! part of the scenario schema (topologies, routing, controllers, workloads, schemes): a
//! TOML value becomes a serde struct, and any failure becomes a [`crate::Error::Config`]
//! whose path names the offending key (`topology.link_rate: expected a rate like "10Gbps"
//! ...`), with the nearest valid key suggested for a misspelt one. Tables tagged by `kind`
//! go through [`by_kind`], which keeps the key paths of errors raised inside them.

use super::suggest;
use crate::error::{config_err, Error, Result};
use serde::de::DeserializeOwned;
use serde::Deserializer;

/// Marks an error raised inside a nested typed table, carrying its own key path:
/// `MARK path MARK message`.
const MARK: char = '\u{1}';

/// Deserializes `value` as `T`, turning failures into config errors whose path is
/// `prefix` followed by the path inside `value`. A value of the wrong type is described in
/// TOML's words from the value itself (`expected a whole number from 0 to 255, got 300`); for
/// a key that takes a name, a second pass with a name that cannot exist makes serde list the
/// valid ones.
pub fn typed<T: DeserializeOwned>(value: toml::Value, prefix: &str) -> Result<T> {
    let original = value.clone();
    serde_path_to_error::deserialize(value).map_err(|e| {
        let inner = e.path().to_string();
        let path = join(prefix, if inner == "." { "" } else { &inner });
        let msg = e.inner().to_string();
        let at = |v: &toml::Value| value_at(v, e.path()).cloned();
        let mut hint = Hint { given: at(&original), names: None };
        if is_type_error(&msg) {
            hint.names = names_at::<T>(&original, e.path());
        }
        describe(&path, &msg, &hint)
    })
}

/// What [`describe`] knows beyond serde's message: the value the file gave at the failing
/// key, and the names the key takes when it takes a name.
#[derive(Default)]
struct Hint {
    given: Option<toml::Value>,
    names: Option<Vec<String>>,
}

fn is_type_error(msg: &str) -> bool {
    msg.starts_with("invalid type") || msg.contains("unit variant") || msg.contains("string only")
}

/// The value at serde's `path` inside `root`, if the path leads to one.
fn value_at<'a>(
    root: &'a toml::Value,
    path: &serde_path_to_error::Path,
) -> Option<&'a toml::Value> {
    use serde_path_to_error::Segment;
    let mut cur = root;
    for seg in path.iter() {
        cur = match seg {
            Segment::Seq { index } => cur.as_array()?.get(*index)?,
            Segment::Map { key } => cur.as_table()?.get(key)?,
            Segment::Enum { .. } | Segment::Unknown => return None,
        };
    }
    Some(cur)
}

/// The names the key at `path` takes, if it takes a name: `root` again with a name there
/// that no key takes, whose "unknown variant" error lists the valid ones.
fn names_at<T: DeserializeOwned>(
    root: &toml::Value,
    path: &serde_path_to_error::Path,
) -> Option<Vec<String>> {
    use serde_path_to_error::Segment;
    let mut probe = root.clone();
    let mut cur = &mut probe;
    for seg in path.iter() {
        cur = match seg {
            Segment::Seq { index } => cur.as_array_mut()?.get_mut(*index)?,
            Segment::Map { key } => cur.as_table_mut()?.get_mut(key)?,
            Segment::Enum { .. } | Segment::Unknown => return None,
        };
    }
    *cur = toml::Value::String(PROBE.to_string());
    let e = serde_path_to_error::deserialize::<_, T>(probe).err()?;
    let msg = e.inner().to_string();
    let msg = msg.lines().next().unwrap_or_default();
    if e.path().to_string() != path.to_string() || !msg.starts_with("unknown variant") {
        return None;
    }
    Some(quoted(msg).into_iter().skip(1).map(str::to_string).collect())
}

/// A name no key takes.
const PROBE: &str = "\u{2}";

/// A number for a message: plain, or in exponent form when it is huge or tiny (`1e300`).
pub fn number(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-6..1e15).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

/// `"a", "b", "c"`: names as a file writes them.
pub fn one_of<S: AsRef<str>>(names: &[S]) -> String {
    names.iter().map(|n| format!("\"{}\"", n.as_ref())).collect::<Vec<_>>().join(", ")
}

/// Deserializes a table tagged by `kind` with the typed config `build` picks, keeping key
/// paths of errors inside it. Used for `topology`, `routing`, `transport.cc`, `scheme` and the workload distributions.
pub fn by_kind<'de, D, T>(
    d: D,
    kinds: &[&str],
    build: impl FnOnce(&str, toml::Value) -> Result<T>,
) -> std::result::Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    use serde::de::Error as _;
    use serde::Deserialize;
    let value = toml::Value::deserialize(d)?;
    let toml::Value::Table(mut table) = value else {
        let example = match &value {
            toml::Value::String(s) if kinds.contains(&s.as_str()) => s.as_str(),
            _ => kinds[0],
        };
        return Err(D::Error::custom(format!(
            "expected a table like {{ kind = \"{example}\", ... }} (kind one of {}), got {}",
            one_of(kinds),
            given_text(&value)
        )));
    };
    let kind = match table.remove("kind") {
        Some(toml::Value::String(k)) => k,
        Some(other) => {
            return Err(nested_err(
                "kind",
                &format!("expected one of {}, got {}", one_of(kinds), given_text(&other)),
            ))
        }
        None => {
            // `knd = "ecmp"`: the misspelt key, not a missing one.
            if let Some(near) = table.keys().find(|k| suggest::nearest(k, ["kind"]).is_some()) {
                return Err(nested_err(near, "unknown key; did you mean `kind`?"));
            }
            return Err(nested_err(
                "kind",
                &format!("required key is missing; expected one of {}", one_of(kinds)),
            ));
        }
    };
    if !kinds.contains(&kind.as_str()) {
        let hint = suggest::nearest(&kind, kinds.iter().copied())
            .map(|s| format!("did you mean \"{s}\"? "))
            .unwrap_or_default();
        return Err(nested_err(
            "kind",
            &format!("unknown kind \"{kind}\"; {hint}expected one of {}", one_of(kinds)),
        ));
    }
    build(&kind, toml::Value::Table(table)).map_err(|e| match e {
        Error::Config { path, msg } => nested_err(&path, &msg),
        other => D::Error::custom(other.to_string()),
    })
}

/// Deserializes `value` as `T` inside another type's `Deserialize`: a failure becomes that
/// deserializer's error, carrying the key path `path` plus the path inside `value`, so the
/// outer [`typed`] reports `<outer path>.<path>.<key>`.
pub fn nested<T: DeserializeOwned, E: serde::de::Error>(
    value: toml::Value,
    path: &str,
) -> std::result::Result<T, E> {
    typed(value, path).map_err(|e| match e {
        Error::Config { path, msg } => nested_err(&path, &msg),
        other => E::custom(other.to_string()),
    })
}

/// The error of an unknown key `key` inside another type's `Deserialize`, in serde's words
/// (which [`typed`] turns into "unknown key; did you mean ... (valid keys: ...)").
pub fn unknown_key<E: serde::de::Error>(key: &str, valid: &'static [&'static str]) -> E {
    E::unknown_field(key, valid)
}

fn nested_err<E: serde::de::Error>(path: &str, msg: &str) -> E {
    E::custom(format!("{MARK}{path}{MARK}{msg}"))
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}.{b}"),
    }
}

/// Backquoted names in a serde message: "unknown field `kk`, expected one of `k`, `x`".
fn quoted(msg: &str) -> Vec<&str> {
    msg.split('`').skip(1).step_by(2).collect()
}

/// Rewrites a serde message into the key path and a plain explanation in TOML's words.
fn describe(path: &str, msg: &str, hint: &Hint) -> Error {
    // The TOML deserializer appends "in `table`" lines; the path already says where.
    let msg = msg.trim().lines().next().unwrap_or_default();
    if let Some(rest) = msg.strip_prefix(MARK) {
        if let Some((inner_path, inner_msg)) = rest.split_once(MARK) {
            return describe(&join(path, inner_path), inner_msg, &Hint::default());
        }
    }
    let names = quoted(msg);
    if msg.starts_with("unknown field") && !names.is_empty() {
        let (field, valid) = (names[0], &names[1..]);
        let path = if path.rsplit('.').next() == Some(field) {
            path.to_string()
        } else {
            join(path, field)
        };
        let hint = suggest::nearest(field, valid.iter().copied())
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
        let valid_list = if valid.is_empty() {
            "this table takes no keys".to_string()
        } else {
            format!("valid keys: {}", valid.join(", "))
        };
        return config_err(path, format!("unknown key{hint} ({valid_list})"));
    }
    if msg.starts_with("missing field") && !names.is_empty() {
        return config_err(join(path, names[0]), "required key is missing");
    }
    let path = if path.is_empty() { "scenario" } else { path };
    if msg.starts_with("unknown variant") && !names.is_empty() {
        let (given, valid) = (names[0], &names[1..]);
        // `recovery = { x = 1 }`: TOML reads a table as a variant named by its key.
        if let Some(v @ toml::Value::Table(_)) = &hint.given {
            return config_err(
                path,
                format!("expected one of {}, got {}", one_of(valid), given_text(v)),
            );
        }
        let hint = suggest::nearest(given, valid.iter().copied())
            .map(|s| format!("did you mean \"{s}\"? "))
            .unwrap_or_default();
        return config_err(
            path,
            format!("unknown value \"{given}\"; {hint}expected one of {}", one_of(valid)),
        );
    }
    if let Some(text) = type_error(path, msg, hint) {
        return config_err(path, text);
    }
    config_err(path, msg.replace("invalid type: ", "wrong type: "))
}

/// serde's "invalid type: string \"4\", expected u32" (or "invalid value: ...") as
/// "expected a whole number from 0 to 4294967295, got \"4\"".
fn type_error(path: &str, msg: &str, hint: &Hint) -> Option<String> {
    let rest =
        msg.strip_prefix("invalid type: ").or_else(|| msg.strip_prefix("invalid value: "))?;
    let (got, expected) = rest.rsplit_once(", expected ")?;
    let expected = match &hint.names {
        Some(names) if !names.is_empty() => format!("one of {}", one_of(names)),
        // `flows = { ... }`: a list of tables is written as `[[flows]]` blocks.
        _ if expected == "a sequence" && matches!(hint.given, Some(toml::Value::Table(_))) => {
            format!("a list of tables, one [[{path}]] block each")
        }
        _ => expected_text(expected),
    };
    let got = match &hint.given {
        Some(v) => given_text(v),
        None => got_text(got),
    };
    Some(format!("expected {expected}, got {got}"))
}

/// What a Rust type name in serde's "expected ..." means in a TOML file.
fn expected_text(rust: &str) -> String {
    let rust = rust.trim();
    let whole = |max: u64| format!("a whole number from 0 to {max}");
    match rust {
        "u8" => whole(u8::MAX as u64),
        "u16" => whole(u16::MAX as u64),
        "u32" => whole(u32::MAX as u64),
        "u64" | "usize" | "u128" => "a whole number (0 or more)".into(),
        "i8" | "i16" | "i32" | "i64" | "isize" | "i128" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a boolean" => "true or false".into(),
        "a string" | "a borrowed string" | "a character" | "string only" => {
            "a string (in quotes)".into()
        }
        "a sequence" => "a list like [...]".into(),
        "a map" | "a table" => "a table".into(),
        _ if rust.starts_with("struct ") || rust.starts_with("map") => "a table".into(),
        _ if rust.starts_with("tuple") || rust.starts_with("a tuple") => "a list like [...]".into(),
        _ if rust.starts_with("enum ") || rust.contains("variant") => "a name (a string)".into(),
        _ => rust.to_string(),
    }
}

/// serde's description of what it got ("integer `-1`", "floating point `1.5`", "map"), as a
/// TOML file writes it.
fn got_text(serde: &str) -> String {
    if let Some(v) = serde.split('`').nth(1) {
        return v.to_string();
    }
    match serde {
        "map" => "a table".into(),
        "sequence" => "a list".into(),
        other => other.strip_prefix("string ").unwrap_or(other).to_string(),
    }
}

/// A value as the file wrote it; a table or a list by its kind, a long string cut short.
fn given_text(v: &toml::Value) -> String {
    match v {
        toml::Value::Table(_) => "a table".into(),
        toml::Value::Array(_) => "a list".into(),
        toml::Value::String(s) if s.chars().count() > 60 => {
            format!("\"{}...\"", s.chars().take(60).collect::<String>())
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Colour {
        Red,
        DarkBlue,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Doc {
        small: Option<u8>,
        count: Option<u32>,
        big: Option<u64>,
        x: Option<f64>,
        on: Option<bool>,
        colour: Option<Colour>,
        list: Option<Vec<u32>>,
    }

    fn err(text: &str) -> String {
        typed::<Doc>(toml::from_str(text).unwrap(), "t").unwrap_err().to_string()
    }

    #[test]
    fn type_errors_speak_toml() {
        assert_eq!(err("small = 300"), "t.small: expected a whole number from 0 to 255, got 300");
        assert_eq!(
            err("count = -1"),
            "t.count: expected a whole number from 0 to 4294967295, got -1"
        );
        assert_eq!(
            err("count = \"4\""),
            "t.count: expected a whole number from 0 to 4294967295, got \"4\""
        );
        assert_eq!(err("big = 1.5"), "t.big: expected a whole number (0 or more), got 1.5");
        assert_eq!(err("x = \"fast\""), "t.x: expected a number, got \"fast\"");
        assert_eq!(err("on = \"yes\""), "t.on: expected true or false, got \"yes\"");
        assert_eq!(err("list = 3"), "t.list: expected a list like [...], got 3");
        assert_eq!(
            err("list = [1, -2]"),
            "t.list[1]: expected a whole number from 0 to 4294967295, got -2"
        );
    }

    #[test]
    fn a_name_of_the_wrong_type_or_unknown_lists_the_valid_names() {
        assert_eq!(err("colour = 1"), "t.colour: expected one of \"red\", \"dark_blue\", got 1");
        assert_eq!(
            err("colour = { a = 1 }"),
            "t.colour: expected one of \"red\", \"dark_blue\", got a table"
        );
        assert_eq!(
            err("colour = \"dark_bleu\""),
            "t.colour: unknown value \"dark_bleu\"; did you mean \"dark_blue\"? expected one of \"red\", \"dark_blue\""
        );
    }
}
