//! Units as newtypes: simulated [`Time`] in integer picoseconds, link [`Rate`] in bit/s,
//! sizes in [`Bytes`], and switch buffer limits ([`BufferSize`]) in bytes or packets.
//!
//! Every quantity a scenario file gives is a string with a unit (`"10Gbps"`, `"5us"`,
//! `"16KB"`, `"32pkt"`); parsing lives here so that every module gets the same rules:
//! decimal prefixes (K = 1000, M = 10^6, G = 10^9) for rates and bytes, binary ones spelled
//! `KiB`/`MiB`/`GiB`. Simulated time never touches floating point on the event path.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Simulated time, in picoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);
    pub const PS_PER_SEC: u64 = 1_000_000_000_000;

    pub const fn from_ps(ps: u64) -> Time {
        Time(ps)
    }
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns * 1_000)
    }
    pub const fn from_us(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }
    pub fn ps(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / Self::PS_PER_SEC as f64
    }
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
}

impl std::ops::Add for Time {
    type Output = Time;
    fn add(self, o: Time) -> Time {
        Time(self.0 + o.0)
    }
}

impl std::ops::Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", self.as_secs_f64())
    }
}

/// A link or sending rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub fn bps(self) -> u64 {
        self.0
    }
    /// Time to serialize `bytes` onto a link of this rate, rounded up to a whole picosecond.
    #[inline]
    pub fn tx_time(self, bytes: u64) -> Time {
        // Up to 2.3 MB the numerator fits in 64 bits, and a 64-bit division is several times
        // cheaper than a 128-bit one (a call into the runtime); the result is the same.
        if let Some(num) = bytes.checked_mul(8 * Time::PS_PER_SEC) {
            return Time(num.div_ceil(self.0));
        }
        let num = bytes as u128 * 8 * Time::PS_PER_SEC as u128;
        Time(num.div_ceil(self.0 as u128) as u64)
    }
}

/// A size in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

/// A per-port buffer limit: either bytes or whole packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferSize {
    Bytes(u64),
    Packets(u64),
}

impl fmt::Display for BufferSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BufferSize::Bytes(n) => write!(f, "{n}B"),
            BufferSize::Packets(n) => write!(f, "{n}pkt"),
        }
    }
}

impl BufferSize {
    pub fn is_zero(self) -> bool {
        matches!(self, BufferSize::Bytes(0) | BufferSize::Packets(0))
    }
}

/// Splits `"12.5Gbps"` into (12.5, "Gbps"). The number must be non-negative and finite.
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .find(|c: char| {
            !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')
        })
        .unwrap_or(s.len());
    // 'e' may start a unit, not an exponent; back off until the number parses.
    let mut cut = end;
    while cut > 0 {
        if let Ok(v) = s[..cut].parse::<f64>() {
            return Some((v, s[cut..].trim()));
        }
        cut -= 1;
    }
    None
}

fn checked_scale(v: f64, scale: f64, what: &str, s: &str) -> Result<u64, String> {
    if !v.is_finite() || v < 0.0 {
        return Err(format!("expected a non-negative {what}, got \"{s}\""));
    }
    // Past u64's range the value saturates: the caller's bound (`at_most`) refuses it.
    Ok((v * scale).round().min(u64::MAX as f64) as u64)
}

/// The longest duration a scenario may give: one day. Longer is a typo (a unit off by 10^6)
/// or a run no one could wait for, and sums of such times would overflow picoseconds.
pub const MAX_TIME: Time = Time(86_400 * Time::PS_PER_SEC);
/// The fastest rate: 100 Tbps, well above any link (and the rates that flows are set to).
pub const MAX_RATE: Rate = Rate(100_000_000_000_000);
/// The largest size: 1000 TB (10^15 bytes).
pub const MAX_BYTES: u64 = 1_000_000_000_000_000;
/// The most packets a buffer may hold: 10^9.
pub const MAX_PACKETS: u64 = 1_000_000_000;

/// `x` (of a value written `s`) if it is at most `max`, else the error stating the bound.
fn at_most(x: u64, max: u64, what: &str, s: &str, max_text: &str) -> Result<u64, String> {
    if x > max {
        return Err(format!("{what} {s} is above the largest corral takes, {max_text}"));
    }
    Ok(x)
}

fn time_at_most(t: u64, s: &str) -> Result<Time, String> {
    at_most(t, MAX_TIME.0, "duration", s, "one day (\"86400s\")").map(Time)
}

fn bytes_at_most(b: u64, s: &str) -> Result<u64, String> {
    at_most(b, MAX_BYTES, "size", s, "\"1000TB\"")
}

fn packets_at_most(n: u64, s: &str) -> Result<u64, String> {
    at_most(n, MAX_PACKETS, "packet count", s, "\"1000000000pkt\"")
}

/// Parses a duration such as `"5us"`, `"0.5s"`, `"2ms"`, `"100ns"`, `"250ps"`. Only these
/// units are taken; a spelling that means one of them (`"sec"`, `"msecs"`) is refused with
/// the unit to write instead, so that every file spells a unit one way.
pub fn parse_time(s: &str) -> Result<Time, String> {
    let expected = "expected a duration like \"5us\" (units: ps, ns, us, ms, s)";
    let (v, unit) = split_number(s).ok_or_else(|| format!("{expected}, got \"{s}\""))?;
    let scale = match unit {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" | "µs" => 1e6,
        "ms" => 1e9,
        "s" => 1e12,
        _ => return Err(unit_error(expected, s, v, time_unit_meant(unit))),
    };
    time_at_most(checked_scale(v, scale, "duration", s)?, &format!("\"{s}\""))
}

/// The time unit a non-canonical spelling means (`"secs"` -> `"s"`), if any.
fn time_unit_meant(unit: &str) -> Option<&'static str> {
    let u = unit.to_ascii_lowercase();
    let (prefix, rest) = match u.chars().next() {
        Some(c @ ('p' | 'n' | 'u' | 'm')) if u.len() > 1 && !u.starts_with("min") => {
            (Some(c), &u[1..])
        }
        _ => (None, u.as_str()),
    };
    let rest = rest
        .strip_prefix("illi")
        .or_else(|| rest.strip_prefix("icro"))
        .or_else(|| rest.strip_prefix("ano"))
        .or_else(|| rest.strip_prefix("ico"))
        .unwrap_or(rest);
    if !matches!(rest, "s" | "sec" | "secs" | "second" | "seconds") {
        return None;
    }
    Some(match prefix {
        None => "s",
        Some('p') => "ps",
        Some('n') => "ns",
        Some('u') => "us",
        _ => "ms",
    })
}

/// The error for a number with a unit that is not taken: the canonical spelling when the
/// unit means one, else what is expected.
fn unit_error(expected: &str, s: &str, v: f64, meant: Option<&str>) -> String {
    match meant {
        Some(u) => format!("\"{s}\": write the unit as \"{u}\" (\"{v}{u}\"); {expected}"),
        None => format!("{expected}, got \"{s}\""),
    }
}

/// Parses a rate such as `"1Gbps"`, `"100Mbps"`, `"40Gbps"`, `"9600bps"`. The prefix may be
/// either case (`"1gbps"`); `bps` must be lower case, because a capital `B` means bytes:
/// `"1GBps"` (gigabytes per second) and `"10GBPS"` (bits or bytes?) are refused with the
/// spelling to write, and so are `"Gb/s"` and `"Gbit/s"`.
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let expected = "expected a rate like \"10Gbps\" (units: bps, Kbps, Mbps, Gbps, Tbps)";
    let (v, unit) = split_number(s).ok_or_else(|| format!("{expected}, got \"{s}\""))?;
    let (prefix, rest) = match unit.chars().next() {
        Some('k' | 'K' | 'm' | 'M' | 'g' | 'G' | 't' | 'T') => unit.split_at(1),
        _ => ("", unit),
    };
    let scale = match prefix.to_ascii_lowercase().as_str() {
        "" => 1.0,
        "k" => 1e3,
        "m" => 1e6,
        "g" => 1e9,
        _ => 1e12,
    };
    let canonical = format!("{}bps", prefix.to_ascii_uppercase());
    match rest {
        "bps" => {}
        "Bps" | "B/s" | "Byte/s" | "Bytes/s" => {
            return Err(format!("\"{s}\" is in bytes per second; rates are in bits per second: write \"{}{canonical}\"", v * 8.0))
        }
        "BPS" | "bPS" | "BpS" | "bPs" | "BPs" | "bpS" => {
            return Err(format!("\"{s}\" is ambiguous (bits or bytes per second?): write \"{v}{canonical}\" for bits per second"))
        }
        "b/s" | "bit/s" | "bits/s" | "bit" | "bits" => return Err(unit_error(expected, s, v, Some(&canonical))),
        _ => return Err(format!("{expected}, got \"{s}\"")),
    }
    let r = checked_scale(v, scale, "rate", s)?;
    if r == 0 {
        return Err(format!("expected a positive rate, got \"{s}\""));
    }
    at_most(r, MAX_RATE.0, "rate", &format!("\"{s}\""), "\"100Tbps\"").map(Rate)
}

fn byte_scale(unit: &str) -> Option<f64> {
    Some(match unit {
        "B" | "" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    })
}

/// Parses a size such as `"16KB"`, `"1.5MB"`, `"64KiB"`, `"1460B"`. A lower-case `b`
/// (`"16kb"`, bits to many readers) is refused with the byte spelling to write.
pub fn parse_bytes(s: &str) -> Result<Bytes, String> {
    let expected = "expected a size like \"16KB\" (units: B, KB, MB, GB, KiB, MiB, GiB)";
    let (v, unit) = split_number(s).ok_or_else(|| format!("{expected}, got \"{s}\""))?;
    let scale = byte_scale(unit).ok_or_else(|| size_unit_error(expected, s, v, unit))?;
    Ok(Bytes(bytes_at_most(checked_scale(v, scale, "size", s)?, &format!("\"{s}\""))?))
}

/// The error for a size whose unit is not taken, naming the byte unit a near spelling means.
fn size_unit_error(expected: &str, s: &str, v: f64, unit: &str) -> String {
    let upper = unit.to_ascii_uppercase().replace("IB", "iB");
    let meant = match unit.to_ascii_lowercase().as_str() {
        "b" | "byte" | "bytes" => Some("B".to_string()),
        "kb" | "mb" | "gb" | "tb" | "kib" | "mib" | "gib" if byte_scale(&upper).is_some() => {
            Some(upper)
        }
        "kbyte" | "kbytes" => Some("KB".into()),
        "mbyte" | "mbytes" => Some("MB".into()),
        "gbyte" | "gbytes" => Some("GB".into()),
        _ => None,
    };
    match meant {
        Some(u) if unit.ends_with('b') && u != "B" => {
            format!("\"{s}\": a lower-case b reads as bits; sizes are in bytes: write \"{v}{u}\"")
        }
        Some(u) => unit_error(expected, s, v, Some(&u)),
        None => format!("{expected}, got \"{s}\""),
    }
}

/// Parses a buffer limit: a size (`"16KB"`) or a packet count (`"32pkt"`, `"32packets"`).
pub fn parse_buffer(s: &str) -> Result<BufferSize, String> {
    let expected = "expected a buffer size like \"16KB\" or a packet count like \"32pkt\"";
    let (v, unit) = split_number(s).ok_or_else(|| format!("{expected}, got \"{s}\""))?;
    if matches!(unit, "pkt" | "pkts" | "packet" | "packets") {
        if v.fract() != 0.0 {
            return Err(format!("{expected}: packet counts are whole numbers, got \"{s}\""));
        }
        let n = checked_scale(v, 1.0, "packet count", s)?;
        return Ok(BufferSize::Packets(packets_at_most(n, &format!("\"{s}\""))?));
    }
    let scale = byte_scale(unit).ok_or_else(|| size_unit_error(expected, s, v, unit))?;
    let b = checked_scale(v, scale, "buffer size", s)?;
    Ok(BufferSize::Bytes(bytes_at_most(b, &format!("\"{s}\""))?))
}

/// A TOML value that is either a string with a unit or a bare non-negative integer.
#[derive(Deserialize)]
#[serde(untagged)]
enum StrOrInt {
    Str(String),
    Int(i64),
}

fn de_with<'de, D, T>(
    d: D,
    parse: fn(&str) -> Result<T, String>,
    int: Option<fn(u64) -> Result<T, String>>,
    what: &str,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    use serde::de::Error;
    let raw = StrOrInt::deserialize(d).map_err(|e| {
        let msg = e.to_string();
        // Keep serde's own "missing field" report; replace type errors with what is expected.
        D::Error::custom(if msg.starts_with("missing field") {
            msg
        } else {
            format!("expected {what} as a string with a unit")
        })
    })?;
    match raw {
        StrOrInt::Str(s) => parse(&s).map_err(D::Error::custom),
        StrOrInt::Int(i) => match int {
            Some(f) if i >= 0 => f(i as u64).map_err(D::Error::custom),
            Some(_) => Err(D::Error::custom(format!("expected a non-negative {what}, got {i}"))),
            None => {
                let like = if what == "a rate" { "\"10Gbps\"" } else { "\"5us\"" };
                Err(D::Error::custom(format!(
                    "expected {what} as a string with a unit (like {like}), got the bare number {i}"
                )))
            }
        },
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de_with(d, parse_time, None, "a duration")
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de_with(d, parse_rate, None, "a rate")
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de_with(d, parse_bytes, Some(|n| Ok(Bytes(bytes_at_most(n, &n.to_string())?))), "a size")
    }
}

impl<'de> Deserialize<'de> for BufferSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de_with(
            d,
            parse_buffer,
            Some(|n| Ok(BufferSize::Packets(packets_at_most(n, &n.to_string())?))),
            "a buffer size",
        )
    }
}

// Serialized exactly, in a form the parsers read back.
impl Serialize for Time {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}ps", self.0))
    }
}

impl Serialize for Rate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}bps", self.0))
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}B", self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_times() {
        assert_eq!(parse_time("5us").unwrap(), Time::from_us(5));
        assert_eq!(parse_time("0.5s").unwrap(), Time::from_ms(500));
        assert_eq!(parse_time("2ms").unwrap(), Time::from_ms(2));
        assert_eq!(parse_time("100 ns").unwrap(), Time::from_ns(100));
        assert!(parse_time("5").is_err());
        assert!(parse_time("5 parsecs").is_err());
        assert!(parse_time("-1us").is_err());
        // one spelling per unit; near spellings name the one to write
        for (bad, unit) in [
            ("1sec", "\"1s\""),
            ("1secs", "\"1s\""),
            ("2 msec", "\"2ms\""),
            ("3usecs", "\"3us\""),
            ("1 second", "\"1s\""),
            ("4nanoseconds", "\"4ns\""),
        ] {
            let e = parse_time(bad).unwrap_err();
            assert!(e.contains(unit), "{bad}: {e}");
        }
        assert!(parse_time("1min").unwrap_err().starts_with("expected a duration"));
    }

    #[test]
    fn parses_rates_and_sizes() {
        assert_eq!(parse_rate("1Gbps").unwrap(), Rate(1_000_000_000));
        assert_eq!(parse_rate("2.5Gbps").unwrap(), Rate(2_500_000_000));
        assert!(parse_rate("-1Gbps").is_err());
        assert!(parse_rate("0Gbps").is_err());
        assert_eq!(parse_rate("1gbps").unwrap(), Rate(1_000_000_000));
        let e = parse_rate("1GBps").unwrap_err();
        assert!(e.contains("bytes per second") && e.contains("\"8Gbps\""), "{e}");
        assert!(parse_rate("2.5MBps").unwrap_err().contains("\"20Mbps\""));
        assert!(parse_rate("1GB").is_err());
        assert_eq!(parse_rate("10Kbps").unwrap(), parse_rate("10kbps").unwrap());
        // a capital B is bytes, or ambiguous: refused with the spelling to write
        let e = parse_rate("10GBPS").unwrap_err();
        assert!(e.contains("ambiguous") && e.contains("\"10Gbps\""), "{e}");
        assert!(parse_rate("1Gbit/s").unwrap_err().contains("\"1Gbps\""));
        assert!(parse_rate("1Gb/s").unwrap_err().contains("\"1Gbps\""));
        assert!(parse_rate("1 furlong").unwrap_err().starts_with("expected a rate"));
        let e = parse_bytes("16kb").unwrap_err();
        assert!(e.contains("bits") && e.contains("\"16KB\""), "{e}");
        assert!(parse_bytes("16 bytes").unwrap_err().contains("\"16B\""));
        assert!(parse_buffer("2mib").unwrap_err().contains("\"2MiB\""));
        assert_eq!(parse_bytes("16KB").unwrap(), Bytes(16_000));
        assert_eq!(parse_bytes("64KiB").unwrap(), Bytes(65_536));
        assert_eq!(parse_buffer("32pkt").unwrap(), BufferSize::Packets(32));
        assert_eq!(parse_buffer("16KB").unwrap(), BufferSize::Bytes(16_000));
        assert!(parse_buffer("1.5pkt").is_err());
    }

    #[test]
    fn absurd_quantities_are_refused_with_the_bound() {
        assert_eq!(parse_time("86400s").unwrap(), MAX_TIME);
        let e = parse_time("1000000s").unwrap_err();
        assert!(e.contains("one day") && e.contains("\"1000000s\""), "{e}");
        assert!(parse_rate("101Tbps").unwrap_err().contains("\"100Tbps\""));
        assert!(parse_bytes("2000TB").unwrap_err().contains("\"1000TB\""));
        assert!(parse_buffer("2000000000pkt").unwrap_err().contains("1000000000pkt"));
        assert!(parse_time("1e300s").unwrap_err().contains("one day"));
        assert!(parse_rate("1e300Gbps").unwrap_err().contains("\"100Tbps\""));
    }

    #[test]
    fn tx_time_rounds_up() {
        // 1500 B at 1 Gbps = 12 us exactly.
        assert_eq!(Rate(1_000_000_000).tx_time(1500), Time::from_us(12));
        // 1 B at 3 bps = 8/3 s, rounded up to the picosecond.
        assert_eq!(Rate(3).tx_time(1).0, 2_666_666_666_667);
    }

    // The 64-bit fast path and the 128-bit one agree on both sides of where the numerator
    // stops fitting in 64 bits (about 2.3 MB).
    #[test]
    fn tx_time_is_the_same_on_either_path() {
        let wide =
            |r: u64, b: u64| (b as u128 * 8 * Time::PS_PER_SEC as u128).div_ceil(r as u128) as u64;
        let edge = u64::MAX / (8 * Time::PS_PER_SEC);
        for r in [1, 3, 999_999_937, 10_000_000_000, 400_000_000_000] {
            for b in [0, 1, 40, 1500, 9000, edge - 1, edge, edge + 1, 10 * edge] {
                assert_eq!(Rate(r).tx_time(b).0, wide(r, b), "rate {r}, {b} B");
            }
        }
    }
}
