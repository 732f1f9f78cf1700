//! Loading a scenario: TOML text -> tree -> `--set` overrides -> typed [`Scenario`] ->
//! `validate()`. Type errors carry the key path (`topology.link_rate: expected a rate like
//! "10Gbps" ..., got "1Gbs"`); unknown keys name the nearest valid key.

use super::{overrides, Scenario};
use crate::config::typed;
use crate::error::{Error, Result};

pub fn load(text: &str, overrides: &[String], source: &str) -> Result<Scenario> {
    let mut root: toml::Value = toml::from_str(text).map_err(|e| Error::Syntax {
        source_name: source.to_string(),
        msg: syntax_message(text, &e),
    })?;
    for o in overrides {
        overrides::apply(&mut root, o)?;
    }
    let mut sc: Scenario = typed(root, "")?;
    sc.base_dir = std::path::Path::new(source)
        .parent()
        .filter(|_| std::path::Path::new(source).is_file())
        .map(|p| p.to_path_buf());
    sc.validate()?;
    Ok(sc)
}

/// Types a scenario without checking its values against each other: the errors of keys and
/// types only (an unknown key, a value of the wrong type or unit), its `[scheme]` table
/// included. `corral.Scenario.set` asks this of the keys it sets, so that a misspelt key is
/// refused when it is set, with the loader's "did you mean"; a partial scenario (no
/// `duration` yet) fails here too, so callers look only for errors at the key they set.
pub fn type_check(text: &str) -> Result<()> {
    let root: toml::Value = toml::from_str(text).map_err(|e| Error::Syntax {
        source_name: "<scenario>".to_string(),
        msg: syntax_message(text, &e),
    })?;
    let scheme = root.get("scheme").cloned();
    if let Some(s) = scheme.filter(|s| s.get("kind").is_some()) {
        crate::schemes::build(&s)?;
    }
    typed::<Scenario>(root, "").map(|_| ())
}

/// The longest excerpt of the offending line an error shows, in characters.
const EXCERPT: usize = 80;

/// "line L, column C: <what>, at `<excerpt>`": one line, whatever the input's line lengths.
fn syntax_message(text: &str, e: &toml::de::Error) -> String {
    let what = e.message().trim().replace('\n', " ");
    let Some(span) = e.span() else { return what };
    let at = span.start.min(text.len());
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line_no = text[..line_start].matches('\n').count() + 1;
    let line: Vec<char> = text[line_start..line_end].trim_end_matches('\r').chars().collect();
    let col = text[line_start..at].chars().count();
    // A window of the line around the column, marked where it was cut.
    let from = col.saturating_sub(EXCERPT / 2).min(line.len().saturating_sub(EXCERPT));
    let to = (from + EXCERPT).min(line.len());
    let excerpt: String = line[from..to].iter().collect();
    let (pre, post) = (if from > 0 { "..." } else { "" }, if to < line.len() { "..." } else { "" });
    format!("line {line_no}, column {}: {what}, at `{pre}{excerpt}{post}`", col + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_are_one_short_line_naming_line_and_column() {
        let deep = format!("duration = \"1s\"\n[{}]\n", vec!["a"; 20_000].join("."));
        let e = load(&deep, &[], "s.toml").unwrap_err().to_string();
        assert!(
            e.starts_with("s.toml: invalid TOML: line 2, column ")
                && e.len() < 300
                && !e.contains('\n'),
            "{e}"
        );
        let nested = format!("x = {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
        let e = load(&nested, &[], "s.toml").unwrap_err().to_string();
        assert!(e.contains("line 1, column") && e.len() < 300, "{e}");
        let e = load("a = 1\nb = = 2\n", &[], "s.toml").unwrap_err().to_string();
        assert!(e.contains("line 2, column 5") && e.contains("`b = = 2`"), "{e}");
    }

    const OK: &str = r#"
duration = "10ms"
[topology]
kind = "dumbbell"
senders = 2
receivers = 1
link_rate = "1Gbps"
[[flows]]
src = ["h0", "h1"]
dst = "h2"
"#;

    fn err(text: &str) -> String {
        load(text, &[], "test").unwrap_err().to_string()
    }

    #[test]
    fn a_valid_scenario_loads() {
        let sc = load(OK, &[], "t").unwrap();
        assert_eq!(sc.flows.len(), 1);
    }

    #[test]
    fn nested_unit_errors_name_the_key() {
        let e = err(&OK.replace("\"1Gbps\"", "\"1Gbs\""));
        assert!(e.starts_with("topology.link_rate:"), "{e}");
    }

    #[test]
    fn unknown_keys_suggest_the_nearest() {
        let e = err(&OK.replace("senders", "sendrs"));
        assert!(
            e.starts_with("topology.sendrs: unknown key; did you mean `senders`? (valid keys"),
            "{e}"
        );
        let e = err(&format!("{OK}\n[switch]\nbufer = \"1KB\"\n"));
        assert!(e.ends_with("(valid keys: buffer, queue, ecn_threshold, red, sfq, priority, drr, toy, buffer_model, shared_buffer, alpha, backpressure)"), "{e}"); // toy: the test-only discipline
        let e = err(&format!("duraton = \"1s\"\n{OK}"));
        assert!(e.contains("duraton") && e.contains("did you mean `duration`"), "{e}");
    }

    #[test]
    fn missing_and_unknown_kind() {
        let e = err(&OK.replace("duration = \"10ms\"", ""));
        assert!(e.starts_with("duration: required key is missing"), "{e}");
        let e = err(&OK.replace("dumbbell", "dumbell"));
        assert!(e.starts_with("topology.kind:") && e.contains("did you mean \"dumbbell\""), "{e}");
    }

    #[test]
    fn overrides_apply_before_typing() {
        let sc = load(OK, &["topology.senders=3".into()], "t").unwrap();
        match sc.topology {
            crate::net::topo::TopologyConfig::Dumbbell(d) => assert_eq!(d.senders, 3),
            _ => panic!(),
        }
        let e = load(OK, &["topology.senders=x".into()], "t").unwrap_err().to_string();
        assert!(e.starts_with("topology.senders:"), "{e}");
    }
}
