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
/// `prefix` followed by the path inside `value`.
pub fn typed<T: DeserializeOwned>(value: toml::Value, prefix: &str) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let inner = e.path().to_string();
        describe(&join(prefix, if inner == "." { "" } else { &inner }), &e.inner().to_string())
    })
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
    let mut table = toml::Table::deserialize(d).map_err(|_| {
        D::Error::custom(format!("expected a table with kind = one of {}", kinds.join(", ")))
    })?;
    let kind = match table.remove("kind") {
        Some(toml::Value::String(k)) => k,
        Some(other) => {
            return Err(nested_err(
                "kind",
                &format!("expected a string, one of {}, got {other}", kinds.join(", ")),
            ))
        }
        None => {
            return Err(nested_err(
                "kind",
                &format!("required key is missing; expected one of {}", kinds.join(", ")),
            ))
        }
    };
    if !kinds.contains(&kind.as_str()) {
        let hint = suggest::nearest(&kind, kinds.iter().copied())
            .map(|s| format!("did you mean \"{s}\"? "))
            .unwrap_or_default();
        return Err(nested_err(
            "kind",
            &format!("unknown kind \"{kind}\"; {hint}expected one of {}", kinds.join(", ")),
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

/// Rewrites a serde message into the key path and a plain explanation.
fn describe(path: &str, msg: &str) -> Error {
    // The TOML deserializer appends "in `table`" lines; the path already says where.
    let msg = msg.trim().lines().next().unwrap_or_default();
    if let Some(rest) = msg.strip_prefix(MARK) {
        if let Some((inner_path, inner_msg)) = rest.split_once(MARK) {
            return describe(&join(path, inner_path), inner_msg);
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
    if msg.starts_with("unknown variant") && !names.is_empty() {
        let (given, valid) = (names[0], &names[1..]);
        let hint = suggest::nearest(given, valid.iter().copied())
            .map(|s| format!("did you mean \"{s}\"? "))
            .unwrap_or_default();
        return config_err(
            path,
            format!("unknown value \"{given}\"; {hint}expected one of {}", valid.join(", ")),
        );
    }
    let path = if path.is_empty() { "scenario" } else { path };
    config_err(path, msg.replace("invalid type: ", "wrong type: "))
}
