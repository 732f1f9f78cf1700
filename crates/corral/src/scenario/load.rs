//! Loading a scenario: TOML text -> tree -> `--set` overrides -> typed [`Scenario`] ->
//! `validate()`. Type errors carry the key path (`topology.link_rate: expected a rate like
//! "10Gbps" ..., got "1Gbs"`); unknown keys name the nearest valid key.

use super::{overrides, Scenario};
use crate::config::typed;
use crate::error::{Error, Result};

pub fn load(text: &str, overrides: &[String], source: &str) -> Result<Scenario> {
    let mut root: toml::Value = toml::from_str(text).map_err(|e| Error::Syntax { source_name: source.to_string(), msg: e.to_string().trim().replace('\n', " ") })?;
    for o in overrides {
        overrides::apply(&mut root, o)?;
    }
    let mut sc: Scenario = typed(root, "")?;
    sc.base_dir = std::path::Path::new(source).parent().filter(|_| std::path::Path::new(source).is_file()).map(|p| p.to_path_buf());
    sc.validate()?;
    Ok(sc)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(e.starts_with("topology.sendrs: unknown key; did you mean `senders`?"), "{e}");
        let e = err(&format!("{OK}\n[switch]\nbufer = \"1KB\"\n"));
        assert!(e.ends_with("(valid keys: buffer, queue, ecn_threshold, red, sfq, priority, drr, buffer_model, shared_buffer, alpha)"), "{e}");
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
