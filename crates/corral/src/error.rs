//! Errors the core reports. Every scenario problem names the key path and what was expected
//! (`topology.k: must be even and >= 2, got 3`); the Python layer maps these to exceptions.

#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum Error {
    /// The scenario is not valid TOML.
    #[error("{source_name}: invalid TOML: {msg}")]
    Syntax { source_name: String, msg: String },
    /// A key holds a bad value, is missing, or is unknown.
    #[error("{path}: {msg}")]
    Config { path: String, msg: String },
    /// A `--set key=value` override that cannot be applied.
    #[error("--set {spec}: {msg}")]
    Override { spec: String, msg: String },
}

pub type Result<T> = std::result::Result<T, Error>;

/// Shorthand for a [`Error::Config`] at `path`.
pub fn config_err(path: impl Into<String>, msg: impl Into<String>) -> Error {
    Error::Config { path: path.into(), msg: msg.into() }
}

/// Fails with a config error at `path` unless `ok`.
pub fn ensure(ok: bool, path: &str, msg: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(config_err(path, msg()))
    }
}
