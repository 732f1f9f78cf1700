//! Flow deadlines, as in deadline-aware transports (D3, Wilson et al. SIGCOMM 2011, section
//! 6.1.2: deadlines drawn from an exponential distribution; D2TCP, Vamanan et al. SIGCOMM
//! 2012). A flow's absolute deadline is its start time plus a drawn value: fixed,
//! exponential with a given mean, or uniform in a range (SCC's Fig. 1: 5-25 ms).
//!
//! `deadline = "2ms"`, `deadline = { kind = "exponential", mean = "2ms" }` or
//! `deadline = { kind = "uniform", min = "5ms", max = "25ms" }`.

use crate::error::{config_err, Result};
use crate::sim::rng::Rng;
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DeadlineSpec {
    Fixed { value: Time },
    Exponential { mean: Time },
    Uniform { min: Time, max: Time },
}

/// `{ kind = "fixed", value }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FixedKeys {
    pub value: Time,
}
/// `{ kind = "exponential", mean }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ExpKeys {
    /// Mean of the exponential deadline.
    pub mean: Time,
}

/// `{ kind = "uniform", min, max }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct UniformKeys {
    /// Shortest deadline, uniform in [min, max].
    pub min: Time,
    /// Longest deadline.
    pub max: Time,
}

/// A random time setting as written: `"2ms"` (a fixed time, `Ok`) or a `{ kind = ... }`
/// table (`Err`, for the caller's `by_kind`); a bad time names `table_example` as the other
/// form.
pub(super) fn time_or_table<'de, D: serde::Deserializer<'de>>(
    d: D,
    table_example: &str,
) -> std::result::Result<std::result::Result<Time, toml::Value>, D::Error> {
    use serde::de::Error;
    match toml::Value::deserialize(d)? {
        toml::Value::String(s) => crate::units::parse_time(&s)
            .map(Ok)
            .map_err(|e| D::Error::custom(format!("{e}, or {table_example}"))),
        other => Ok(Err(other)),
    }
}

/// An exponential draw of mean `mean`, in picoseconds (inverse transform).
pub(super) fn exponential_ps(mean: Time, rng: &mut Rng) -> f64 {
    -(1.0 - rng.unit()).ln() * mean.0 as f64
}

impl<'de> Deserialize<'de> for DeadlineSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use crate::config::{by_kind, typed};
        use serde::de::Error;
        let v = match time_or_table(d, "{ kind = \"exponential\", mean = \"2ms\" }")? {
            Ok(value) => return Ok(DeadlineSpec::Fixed { value }),
            Err(table) => table,
        };
        by_kind(v, &["fixed", "exponential", "uniform"], |kind, v| {
            Ok(match kind {
                "fixed" => DeadlineSpec::Fixed { value: typed::<FixedKeys>(v, "")?.value },
                "uniform" => {
                    let UniformKeys { min, max } = typed(v, "")?;
                    DeadlineSpec::Uniform { min, max }
                }
                _ => DeadlineSpec::Exponential { mean: typed::<ExpKeys>(v, "")?.mean },
            })
        })
        .map_err(|e: toml::de::Error| D::Error::custom(e.message()))
    }
}

impl DeadlineSpec {
    pub fn validate(&self, path: &str) -> Result<()> {
        match self {
            DeadlineSpec::Fixed { value } if *value == Time::ZERO => {
                Err(config_err(path, "must be positive"))
            }
            DeadlineSpec::Exponential { mean } if *mean == Time::ZERO => {
                Err(config_err(format!("{path}.mean"), "must be positive"))
            }
            DeadlineSpec::Uniform { min, max } if *min == Time::ZERO || max < min => {
                Err(config_err(format!("{path}.min"), "must be positive and at most max"))
            }
            _ => Ok(()),
        }
    }

    /// The time allowed after the flow's start (at least 1 ps).
    pub fn draw(&self, rng: &mut Rng) -> Time {
        match *self {
            DeadlineSpec::Fixed { value } => value,
            DeadlineSpec::Exponential { mean } => {
                Time((exponential_ps(mean, rng).round() as u64).max(1))
            }
            DeadlineSpec::Uniform { min, max } => {
                Time(min.0 + (rng.unit() * (max.0 - min.0) as f64) as u64)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_and_exponential_draws() {
        let mut r = Rng::stream(1, 3, 3);
        assert_eq!(DeadlineSpec::Fixed { value: Time::from_ms(2) }.draw(&mut r), Time::from_ms(2));
        let e = DeadlineSpec::Exponential { mean: Time::from_ms(2) };
        let n = 100_000;
        let m = (0..n).map(|_| e.draw(&mut r).as_secs_f64()).sum::<f64>() / n as f64;
        assert!((m / 0.002 - 1.0).abs() < 0.02, "{m}");
        let u = DeadlineSpec::Uniform { min: Time::from_ms(5), max: Time::from_ms(25) };
        let draws: Vec<f64> = (0..n).map(|_| u.draw(&mut r).as_secs_f64()).collect();
        assert!(draws.iter().all(|&d| (0.005..=0.025).contains(&d)));
        let mean = draws.iter().sum::<f64>() / n as f64;
        assert!((mean / 0.015 - 1.0).abs() < 0.01, "{mean}");
    }

    #[test]
    fn parses_both_forms() {
        #[derive(Deserialize)]
        struct W {
            deadline: DeadlineSpec,
        }
        let p = |s: &str| {
            crate::config::typed::<W>(toml::from_str(s).unwrap(), "t").map(|w| w.deadline)
        };
        assert_eq!(
            p("deadline = \"3ms\"").unwrap(),
            DeadlineSpec::Fixed { value: Time::from_ms(3) }
        );
        assert_eq!(
            p("deadline = { kind = \"exponential\", mean = \"1ms\" }").unwrap(),
            DeadlineSpec::Exponential { mean: Time::from_ms(1) }
        );
        assert_eq!(
            p("deadline = { kind = \"uniform\", min = \"5ms\", max = \"25ms\" }").unwrap(),
            DeadlineSpec::Uniform { min: Time::from_ms(5), max: Time::from_ms(25) }
        );
        let e = p("deadline = { kind = \"exponential\", mean = \"1 parsec\" }")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t.deadline.mean:"), "{e}");
    }
}
