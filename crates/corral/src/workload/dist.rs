//! Flow-size distributions of a `[[traffic]]` block: a fixed size, uniform, exponential,
//! Pareto (heavy-tailed, as in the pFabric and Homa evaluations), or an empirical CDF
//! ([`super::cdf`]). The scenario form ([`SizeSpec`]) names a CDF; [`SizeDist`] is the
//! resolved distribution that samples by inverse transform from one uniform draw.
//!
//! `size = "10KB"`, `size = { cdf = "websearch" }` (or a path), `size = { kind = "uniform",
//! min = "1KB", max = "10KB" }`, `size = { kind = "exponential", mean = "100KB" }`,
//! `size = { kind = "pareto", shape = 1.2, mean = "100KB" }`.

use super::cdf::EmpiricalCdf;
use crate::error::{config_err, Result};
use crate::sim::rng::Rng;
use crate::units::Bytes;
use serde::{Deserialize, Serialize, Serializer};

/// A size distribution as written in the scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeSpec {
    Fixed(u64),
    Uniform {
        min: u64,
        max: u64,
    },
    Exponential {
        mean: u64,
    },
    /// Pareto with shape alpha > 1 and the given mean (scale = mean (alpha - 1) / alpha).
    Pareto {
        shape: f64,
        mean: u64,
    },
    /// A built-in distribution name or a path to a CDF file.
    Cdf(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FixedKeys {
    /// Every flow's size.
    size: Bytes,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UniformKeys {
    /// Smallest size, uniform in [min, max].
    min: Bytes,
    /// Largest size.
    max: Bytes,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MeanKeys {
    /// Mean size of the exponential distribution.
    mean: Bytes,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ParetoKeys {
    /// Shape (tail index) of the Pareto distribution; above 1, so that the mean exists.
    shape: f64,
    /// Mean size; sets the scale with `shape`.
    mean: Bytes,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CdfKeys {
    /// A built-in flow-size CDF by name ("websearch", "datamining", ...) or a CDF file
    /// (a path relative to the scenario file).
    cdf: String,
}

impl<'de> Deserialize<'de> for SizeSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use crate::config::{by_kind, typed};
        use serde::de::Error;
        let v = match toml::Value::deserialize(d)? {
            toml::Value::String(s) => {
                let b = crate::units::parse_bytes(&s).map_err(|e| D::Error::custom(format!("{e}, or a table like {{ cdf = \"websearch\" }}")))?;
                return Ok(SizeSpec::Fixed(b.0));
            }
            toml::Value::Integer(i) if i > 0 => return Ok(SizeSpec::Fixed(i as u64)),
            toml::Value::Table(mut t) => {
                if t.contains_key("cdf") && !t.contains_key("kind") {
                    t.insert("kind".into(), toml::Value::String("cdf".into()));
                }
                toml::Value::Table(t)
            }
            other => return Err(D::Error::custom(format!("expected a size like \"10KB\" or a table like {{ cdf = \"websearch\" }}, got {other}"))),
        };
        by_kind(v, &["fixed", "uniform", "exponential", "pareto", "cdf"], |kind, mut v| {
            Ok(match kind {
                "fixed" => SizeSpec::Fixed(typed::<FixedKeys>(v, "")?.size.0),
                "uniform" => {
                    let k = typed::<UniformKeys>(v, "")?;
                    SizeSpec::Uniform { min: k.min.0, max: k.max.0 }
                }
                "exponential" => SizeSpec::Exponential { mean: typed::<MeanKeys>(v, "")?.mean.0 },
                "pareto" => {
                    let k = typed::<ParetoKeys>(v, "")?;
                    SizeSpec::Pareto { shape: k.shape, mean: k.mean.0 }
                }
                _ => {
                    if let toml::Value::Table(t) = &mut v {
                        t.remove("kind");
                    }
                    SizeSpec::Cdf(typed::<CdfKeys>(v, "")?.cdf)
                }
            })
        })
        .map_err(|e: toml::de::Error| D::Error::custom(e.message()))
    }
}

impl Serialize for SizeSpec {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        match self {
            SizeSpec::Fixed(b) => {
                m.serialize_entry("kind", "fixed")?;
                m.serialize_entry("size", &format!("{b}B"))?;
            }
            SizeSpec::Uniform { min, max } => {
                m.serialize_entry("kind", "uniform")?;
                m.serialize_entry("min", &format!("{min}B"))?;
                m.serialize_entry("max", &format!("{max}B"))?;
            }
            SizeSpec::Exponential { mean } => {
                m.serialize_entry("kind", "exponential")?;
                m.serialize_entry("mean", &format!("{mean}B"))?;
            }
            SizeSpec::Pareto { shape, mean } => {
                m.serialize_entry("kind", "pareto")?;
                m.serialize_entry("shape", shape)?;
                m.serialize_entry("mean", &format!("{mean}B"))?;
            }
            SizeSpec::Cdf(c) => m.serialize_entry("cdf", c)?,
        }
        m.end()
    }
}

impl SizeSpec {
    /// Value checks that need no files; `path` is the key (`traffic[0].size`).
    pub fn validate(&self, path: &str) -> Result<()> {
        match *self {
            SizeSpec::Fixed(0) => Err(config_err(path, "must be a positive size")),
            SizeSpec::Uniform { min, max } if min == 0 || max < min => Err(config_err(
                path,
                format!("uniform sizes need 0 < min <= max, got min = {min}B, max = {max}B"),
            )),
            SizeSpec::Exponential { mean: 0 } => {
                Err(config_err(format!("{path}.mean"), "must be a positive size"))
            }
            SizeSpec::Pareto { shape, mean } => {
                if !(shape.is_finite() && shape > 1.0) {
                    return Err(config_err(
                        format!("{path}.shape"),
                        format!("must be greater than 1 (a finite mean), got {shape}"),
                    ));
                }
                if mean == 0 {
                    return Err(config_err(format!("{path}.mean"), "must be a positive size"));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Resolves a CDF name or file (relative to `base`).
    pub fn resolve(&self, base: Option<&std::path::Path>, path: &str) -> Result<SizeDist> {
        self.validate(path)?;
        Ok(match *self {
            SizeSpec::Fixed(b) => SizeDist::Fixed(b),
            SizeSpec::Uniform { min, max } => SizeDist::Uniform { min, max },
            SizeSpec::Exponential { mean } => SizeDist::Exponential { mean: mean as f64 },
            SizeSpec::Pareto { shape, mean } => {
                SizeDist::Pareto { shape, scale: mean as f64 * (shape - 1.0) / shape }
            }
            SizeSpec::Cdf(ref name) => {
                SizeDist::Cdf(Box::new(EmpiricalCdf::resolve(name, base, &format!("{path}.cdf"))?))
            }
        })
    }
}

/// A resolved size distribution.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    Fixed(u64),
    Uniform { min: u64, max: u64 },
    Exponential { mean: f64 },
    Pareto { shape: f64, scale: f64 },
    Cdf(Box<EmpiricalCdf>),
}

impl SizeDist {
    /// One size in bytes (at least 1).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        match self {
            SizeDist::Fixed(b) => *b,
            SizeDist::Uniform { min, max } => min + rng.below(max - min + 1),
            SizeDist::Exponential { mean } => {
                ((-mean * (1.0 - rng.unit()).ln()).round() as u64).max(1)
            }
            // Inverse transform: x = scale / U^(1/shape), U in (0, 1].
            SizeDist::Pareto { shape, scale } => {
                let u = 1.0 - rng.unit();
                let x = scale / u.powf(1.0 / shape);
                (x.min(u64::MAX as f64 / 4.0).round() as u64).max(1)
            }
            SizeDist::Cdf(c) => c.quantile(rng.unit()),
        }
    }

    /// E[min(S, cap)] in bytes: the mean size with every flow counted at most `cap` bytes.
    pub fn mean_below(&self, cap: f64) -> f64 {
        let cap = cap.max(0.0);
        match self {
            SizeDist::Fixed(b) => (*b as f64).min(cap),
            SizeDist::Uniform { min, max } => {
                let (lo, hi) = (*min as f64, *max as f64);
                if cap >= hi {
                    (lo + hi) / 2.0
                } else if cap <= lo {
                    cap
                } else {
                    // Below lo every flow is larger; above it 1 - F falls linearly to 0 at hi.
                    let tail = (cap - lo) * (1.0 + (hi - cap) / (hi - lo)) / 2.0;
                    lo + tail
                }
            }
            SizeDist::Exponential { mean } => mean * (1.0 - (-cap / mean).exp()),
            SizeDist::Pareto { shape, scale } => {
                if cap <= *scale {
                    cap
                } else {
                    scale
                        + scale.powf(*shape) * (cap.powf(1.0 - shape) - scale.powf(1.0 - shape))
                            / (1.0 - shape)
                }
            }
            SizeDist::Cdf(c) => c.mean_below(cap),
        }
    }

    /// Mean size in bytes, from the distribution's parameters.
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Fixed(b) => *b as f64,
            SizeDist::Uniform { min, max } => (*min + *max) as f64 / 2.0,
            SizeDist::Exponential { mean } => *mean,
            SizeDist::Pareto { shape, scale } => shape * scale / (shape - 1.0),
            SizeDist::Cdf(c) => c.mean(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_mean(d: &SizeDist, n: usize) -> f64 {
        let mut r = Rng::stream(3, 77, 0);
        (0..n).map(|_| d.sample(&mut r) as f64).sum::<f64>() / n as f64
    }

    // E[min(S, cap)] against a sample's, for each kind (a cap near the middle of each).
    #[test]
    fn capped_means_match_samples() {
        let cases = [
            (SizeDist::Fixed(1000), 600.0),
            (SizeDist::Uniform { min: 1000, max: 3000 }, 2000.0),
            (SizeDist::Exponential { mean: 5000.0 }, 4000.0),
            (SizeDist::Pareto { shape: 1.5, scale: 1000.0 }, 5000.0),
        ];
        for (d, cap) in cases {
            let mut r = Rng::stream(3, 78, 0);
            let n = 400_000;
            let m = (0..n).map(|_| (d.sample(&mut r) as f64).min(cap)).sum::<f64>() / n as f64;
            assert!(
                (m / d.mean_below(cap) - 1.0).abs() < 0.01,
                "{d:?}: {m} vs {}",
                d.mean_below(cap)
            );
            assert!(d.mean_below(cap) <= d.mean() + 1e-9);
        }
    }

    #[test]
    fn sample_means_match_parameters() {
        for d in [
            SizeDist::Fixed(1000),
            SizeDist::Uniform { min: 100, max: 1900 },
            SizeDist::Exponential { mean: 50_000.0 },
        ] {
            let m = sample_mean(&d, 200_000);
            assert!((m / d.mean() - 1.0).abs() < 0.01, "{d:?}: {m} vs {}", d.mean());
        }
        // Heavy tail: shape 2.5 keeps the variance finite so the sample mean converges.
        let p = SizeSpec::Pareto { shape: 2.5, mean: 10_000 }.resolve(None, "s").unwrap();
        assert!((p.mean() - 10_000.0).abs() < 1e-6);
        let m = sample_mean(&p, 400_000);
        assert!((m / 10_000.0 - 1.0).abs() < 0.02, "{m}");
        // Pareto never goes below its scale.
        let mut r = Rng::stream(1, 1, 1);
        assert!((0..10_000).all(|_| p.sample(&mut r) as f64 >= 6000.0 - 0.5));
    }

    #[test]
    fn parses_every_form() {
        #[derive(Deserialize)]
        struct W {
            size: SizeSpec,
        }
        let p =
            |s: &str| crate::config::typed::<W>(toml::from_str(s).unwrap(), "t").map(|w| w.size);
        assert_eq!(p("size = \"10KB\"").unwrap(), SizeSpec::Fixed(10_000));
        assert_eq!(p("size = { cdf = \"websearch\" }").unwrap(), SizeSpec::Cdf("websearch".into()));
        assert_eq!(
            p("size = { kind = \"uniform\", min = \"1KB\", max = \"2KB\" }").unwrap(),
            SizeSpec::Uniform { min: 1000, max: 2000 }
        );
        assert_eq!(
            p("size = { kind = \"pareto\", shape = 1.5, mean = \"1MB\" }").unwrap(),
            SizeSpec::Pareto { shape: 1.5, mean: 1_000_000 }
        );
        let e = p("size = { kind = \"exponential\", mea = \"1KB\" }").unwrap_err().to_string();
        assert!(e.starts_with("t.size.mea: unknown key"), "{e}");
        let e = p("size = { kind = \"lognormal\" }").unwrap_err().to_string();
        assert!(e.starts_with("t.size.kind: unknown kind"), "{e}");
        let e = SizeSpec::Pareto { shape: 1.0, mean: 5 }.validate("s").unwrap_err().to_string();
        assert!(e.starts_with("s.shape:"), "{e}");
    }
}
