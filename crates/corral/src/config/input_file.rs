//! Files a scenario names (a flow-size CDF, a CSV flow list): read only when they are
//! regular files within a size cap, so that no input can hang a run or fill the machine's
//! memory.
//!
//! A path naming a FIFO would block the read forever, a device such as `/dev/zero` would be
//! read without end, and a file of many gigabytes would be held whole in memory before it is
//! parsed. Each is refused with the scenario key that names it, before anything is read: a
//! FIFO, a device, a socket or a folder by its type, a regular file by its size. The cap is
//! [`DEFAULT_MAX_INPUT_BYTES`] (256 MiB, some hundred times the largest flow list the
//! reproductions use) unless the environment variable `CORRAL_MAX_INPUT_BYTES` sets another
//! number of bytes; the same cap holds on the Python side (`corral.inputs`). A file that grows
//! past the cap while it is read is refused too.

use crate::error::{config_err, Result};
use std::io::Read;
use std::path::Path;

/// The most bytes corral reads from one input file unless `CORRAL_MAX_INPUT_BYTES` says otherwise.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 256 << 20;

/// The environment variable that raises (or lowers) the cap, in bytes.
pub const MAX_INPUT_ENV: &str = "CORRAL_MAX_INPUT_BYTES";

/// The cap in force: `CORRAL_MAX_INPUT_BYTES` when it is a whole number, else the default.
pub fn max_input_bytes() -> u64 {
    std::env::var(MAX_INPUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(DEFAULT_MAX_INPUT_BYTES)
}

/// Why `file` cannot be read as `what` (for the scenario key `key`), checked without opening
/// it; `Ok(())` for a regular file within the cap.
pub fn check(file: &Path, key: &str, what: &str) -> Result<()> {
    let meta = std::fs::metadata(file)
        .map_err(|e| config_err(key, format!("cannot read {what} {}: {e}", file.display())))?;
    let ft = meta.file_type();
    if ft.is_dir() {
        return Err(config_err(key, format!("{} is a folder; expected {what}", file.display())));
    }
    if !ft.is_file() {
        return Err(config_err(
            key,
            format!("{} is {}, not a file; expected {what}", file.display(), special(&ft)),
        ));
    }
    let cap = max_input_bytes();
    if meta.len() > cap {
        return Err(too_large(file, key, meta.len(), cap));
    }
    Ok(())
}

/// The bytes of `file` after [`check`]; a file that grows past the cap while read is refused.
pub fn read(file: &Path, key: &str, what: &str) -> Result<Vec<u8>> {
    check(file, key, what)?;
    let cap = max_input_bytes();
    let f = std::fs::File::open(file)
        .map_err(|e| config_err(key, format!("cannot read {what} {}: {e}", file.display())))?;
    let mut bytes = Vec::new();
    f.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| config_err(key, format!("cannot read {what} {}: {e}", file.display())))?;
    if bytes.len() as u64 > cap {
        return Err(too_large(file, key, bytes.len() as u64, cap));
    }
    Ok(bytes)
}

fn too_large(file: &Path, key: &str, size: u64, cap: u64) -> crate::error::Error {
    config_err(
        key,
        format!(
            "{} holds {} or more, more than the {} corral reads from an input file \
             (set {MAX_INPUT_ENV} to a number of bytes to allow more)",
            file.display(),
            human(size),
            human(cap)
        ),
    )
}

#[cfg(unix)]
fn special(ft: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_char_device() || ft.is_block_device() {
        "a device"
    } else if ft.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn special(_: &std::fs::FileType) -> &'static str {
    "not a regular file"
}

fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_within_the_cap_is_read() {
        let dir = std::env::temp_dir().join(format!("corral-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.cdf");
        std::fs::write(&f, b"1 0\n2 1\n").unwrap();
        assert_eq!(read(&f, "traffic[0].cdf", "a CDF file").unwrap(), b"1 0\n2 1\n");
        let e = read(&dir, "traffic[0].cdf", "a CDF file").unwrap_err().to_string();
        assert!(e.contains("traffic[0].cdf") && e.contains("is a folder"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_refused_by_its_type_without_reading_it() {
        let e =
            read(Path::new("/dev/zero"), "traffic[0].file", "a flow list").unwrap_err().to_string();
        assert!(e.contains("traffic[0].file") && e.contains("a device"), "{e}");
    }

    #[test]
    fn sizes_read_in_words() {
        assert_eq!(human(10_000_000_000), "10.0 GB");
        assert_eq!(human(268_435_456), "268.4 MB");
        assert_eq!(human(12), "12 bytes");
    }
}
