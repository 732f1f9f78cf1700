//! Empirical flow-size distributions: a piecewise-linear cumulative distribution read from a
//! text file (`size_bytes cumulative_probability` a line, `#` comments), sampled by inverse
//! transform with linear interpolation between points, as datacenter transport studies use
//! the web-search (DCTCP, Alizadeh et al. SIGCOMM 2010, Fig. 4) and data-mining (VL2,
//! Greenberg et al. SIGCOMM 2009) size distributions.
//!
//! The four distributions in `crates/corral/workloads/` are compiled in and available by
//! name; any other file is read from disk. The mean (needed to turn a target load into an
//! arrival rate) is computed from the points, never assumed.

use crate::error::{config_err, Result};

/// Built-in distributions: name -> file text.
pub const BUILTIN: &[(&str, &str)] = &[
    ("websearch", include_str!("../../workloads/websearch.cdf")),
    ("datamining", include_str!("../../workloads/datamining.cdf")),
    ("fb_hadoop", include_str!("../../workloads/fb_hadoop.cdf")),
    ("alistorage", include_str!("../../workloads/alistorage.cdf")),
];

/// A validated piecewise-linear CDF: sizes non-decreasing, probabilities non-decreasing from
/// the first point's value to exactly 1 at the last. Probability mass below the first point's
/// probability sits on the first size.
#[derive(Clone, Debug, PartialEq)]
pub struct EmpiricalCdf {
    /// Where it came from (a built-in name or a path), for messages.
    pub source: String,
    /// (size in bytes, cumulative probability).
    points: Vec<(f64, f64)>,
}

impl EmpiricalCdf {
    /// Parses CDF text. Errors name `path` (the scenario key), the source and the line.
    pub fn parse(text: &str, source: &str, path: &str) -> Result<EmpiricalCdf> {
        let mut points: Vec<(f64, f64)> = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |msg: String| config_err(path, format!("{source}, line {}: {msg}", n + 1));
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() != 2 {
                return Err(bad(format!(
                    "expected \"size_bytes cumulative_probability\", got \"{line}\""
                )));
            }
            let size: f64 = fields[0]
                .parse()
                .map_err(|_| bad(format!("size \"{}\" is not a number", fields[0])))?;
            let p: f64 = fields[1]
                .parse()
                .map_err(|_| bad(format!("probability \"{}\" is not a number", fields[1])))?;
            if !size.is_finite() || size < 0.0 {
                return Err(bad(format!(
                    "size must be a non-negative number of bytes, got {size}"
                )));
            }
            if !(0.0..=1.0).contains(&p) {
                return Err(bad(format!("probability must be between 0 and 1, got {p}")));
            }
            if let Some(&(ps, pp)) = points.last() {
                if size < ps {
                    return Err(bad(format!("sizes must not decrease: {size} after {ps}")));
                }
                if p < pp {
                    return Err(bad(format!("probabilities must not decrease: {p} after {pp}")));
                }
            }
            points.push((size, p));
        }
        let Some(&(_, last)) = points.last() else {
            return Err(config_err(
                path,
                format!(
                    "{source}: no points; expected lines \"size_bytes cumulative_probability\""
                ),
            ));
        };
        if (last - 1.0).abs() > 1e-9 {
            return Err(config_err(
                path,
                format!("{source}: the last probability must be 1, got {last}"),
            ));
        }
        if points.iter().all(|&(s, _)| s < 1.0) {
            return Err(config_err(path, format!("{source}: every size is below 1 byte")));
        }
        Ok(EmpiricalCdf { source: source.to_string(), points })
    }

    /// A built-in distribution by name.
    pub fn builtin(name: &str, path: &str) -> Option<Result<EmpiricalCdf>> {
        BUILTIN.iter().find(|(n, _)| *n == name).map(|(n, text)| EmpiricalCdf::parse(text, n, path))
    }

    /// A built-in name, or else a file path (relative paths against `base`).
    pub fn resolve(spec: &str, base: Option<&std::path::Path>, path: &str) -> Result<EmpiricalCdf> {
        if let Some(c) = Self::builtin(spec, path) {
            return c;
        }
        let looks_like_path = spec.contains('/') || spec.contains('.');
        let file = match base {
            Some(b) if std::path::Path::new(spec).is_relative() => b.join(spec),
            _ => std::path::PathBuf::from(spec),
        };
        if file.exists() || looks_like_path {
            let bytes = crate::config::input_file::read(&file, path, "a CDF file")?;
            let text = String::from_utf8(bytes).map_err(|_| {
                config_err(
                    path,
                    format!("{}: not a UTF-8 text file; expected a CDF file", file.display()),
                )
            })?;
            return EmpiricalCdf::parse(&text, &file.display().to_string(), path);
        }
        let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
        let hint = crate::config::suggest::nearest(spec, names.iter().copied())
            .map(|s| format!("did you mean \"{s}\"? "))
            .unwrap_or_default();
        Err(config_err(
            path,
            format!(
                "unknown workload \"{spec}\"; {hint}expected one of {} or a path to a .cdf file",
                crate::config::one_of(&names)
            ),
        ))
    }

    /// Inverse transform: the size at cumulative probability `u` in [0, 1), interpolating
    /// linearly between points, rounded to whole bytes (at least 1).
    pub fn quantile(&self, u: f64) -> u64 {
        let pts = &self.points;
        // First point whose probability exceeds u.
        let i = pts.partition_point(|&(_, p)| p <= u);
        let x = if i == 0 {
            pts[0].0
        } else if i >= pts.len() {
            pts[pts.len() - 1].0
        } else {
            let (s0, p0) = pts[i - 1];
            let (s1, p1) = pts[i];
            s0 + (s1 - s0) * (u - p0) / (p1 - p0)
        };
        (x.round() as u64).max(1)
    }

    /// Mean size in bytes of the piecewise-linear distribution (uniform within each segment,
    /// an atom at the first point).
    pub fn mean(&self) -> f64 {
        let pts = &self.points;
        let mut m = pts[0].0.max(1.0) * pts[0].1;
        for w in pts.windows(2) {
            let ((s0, p0), (s1, p1)) = (w[0], w[1]);
            m += (p1 - p0) * ((s0 + s1) / 2.0).max(1.0);
        }
        m
    }

    /// E[min(S, cap)] in bytes: the mean size with every flow counted at most `cap` bytes,
    /// the integral of 1 - F from 0 to `cap` (exact for the piecewise-linear F, the atom at
    /// the first point included).
    pub fn mean_below(&self, cap: f64) -> f64 {
        let pts = &self.points;
        let cap = cap.max(0.0);
        // Below the first point every flow is larger.
        let mut m = pts[0].0.min(cap);
        for w in pts.windows(2) {
            let ((s0, p0), (s1, p1)) = (w[0], w[1]);
            if cap <= s0 {
                break;
            }
            let x1 = s1.min(cap);
            let f1 = if s1 > s0 { p0 + (p1 - p0) * (x1 - s0) / (s1 - s0) } else { p1 };
            m += (x1 - s0) * ((1.0 - p0) + (1.0 - f1)) / 2.0;
        }
        m
    }

    /// The CDF at `x` bytes (for goodness-of-fit tests).
    pub fn cdf(&self, x: f64) -> f64 {
        let pts = &self.points;
        if x < pts[0].0 {
            return 0.0;
        }
        let i = pts.partition_point(|&(s, _)| s <= x);
        if i >= pts.len() {
            return 1.0;
        }
        let (s0, p0) = pts[i - 1];
        let (s1, p1) = pts[i];
        p0 + (p1 - p0) * (x - s0) / (s1 - s0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::Rng;

    #[test]
    fn builtins_parse_and_have_sensible_means() {
        for (name, _) in BUILTIN {
            let c = EmpiricalCdf::builtin(name, "t").unwrap().unwrap();
            assert!(c.mean() > 100.0, "{name}: {}", c.mean());
        }
        // Web search: trapezoids over the points give 1.711 MB.
        let ws = EmpiricalCdf::builtin("websearch", "t").unwrap().unwrap();
        assert!((ws.mean() - 1_711_250.0).abs() < 1.0, "{}", ws.mean());
    }

    // 100 B with probability 0.5, else uniform in 100-150 B: uncapped, the mean (112.5 B);
    // capped at 125 B, 100 B below the first point plus 25 B at 1 - F falling from 0.5 to
    // 0.25 (109.375 B).
    #[test]
    fn mean_below_a_cap_integrates_the_tail() {
        let c = EmpiricalCdf::parse("100 0.5\n150 1\n", "x", "k").unwrap();
        assert!((c.mean_below(f64::INFINITY) - c.mean()).abs() < 1e-9);
        assert!((c.mean_below(125.0) - (100.0 + 25.0 * (0.5 + 0.25) / 2.0)).abs() < 1e-9);
        assert_eq!(c.mean_below(50.0), 50.0, "every flow is larger than 50 B");
        let dm = EmpiricalCdf::builtin("datamining", "t").unwrap().unwrap();
        assert!((dm.mean_below(1e12) / dm.mean() - 1.0).abs() < 1e-9);
        assert!(dm.mean_below(1e8) < 0.3 * dm.mean(), "over 70 % of the bytes are beyond 100 MB");
    }

    #[test]
    fn quantile_interpolates_linearly() {
        let c = EmpiricalCdf::parse("# c\n100 0.5\n200 1\n", "x", "k").unwrap();
        assert_eq!(c.quantile(0.0), 100); // atom at the first point
        assert_eq!(c.quantile(0.49), 100);
        assert_eq!(c.quantile(0.75), 150);
        assert_eq!(c.quantile(0.999999), 200);
        assert!((c.mean() - (0.5 * 100.0 + 0.5 * 150.0)).abs() < 1e-9);
    }

    #[test]
    fn samples_match_the_cdf_ks_below_002() {
        for (name, _) in BUILTIN {
            let c = EmpiricalCdf::builtin(name, "t").unwrap().unwrap();
            let mut r = Rng::stream(1, 99, 0);
            let n = 100_000;
            let mut xs: Vec<u64> = (0..n).map(|_| c.quantile(r.unit())).collect();
            xs.sort_unstable();
            let mut d: f64 = 0.0;
            let mut i = 0;
            while i < n {
                let mut j = i;
                while j < n && xs[j] == xs[i] {
                    j += 1;
                }
                // Empirical CDF just below and at xs[i] against the model (rounded sizes: compare at x +- 0.5).
                let f_hi = c.cdf(xs[i] as f64 + 0.5);
                let f_lo = c.cdf(xs[i] as f64 - 0.5);
                d = d
                    .max((j as f64 / n as f64 - f_hi).abs())
                    .max((i as f64 / n as f64 - f_lo).abs());
                i = j;
            }
            assert!(d < 0.02, "{name}: KS distance {d}");
            let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
            assert!(
                (mean / c.mean() - 1.0).abs() < 0.05,
                "{name}: sample mean {mean} vs {}",
                c.mean()
            );
        }
    }

    #[test]
    fn malformed_files_name_the_line() {
        let e = EmpiricalCdf::parse("0 0\n10 0.5\nabc 1\n", "my.cdf", "traffic[0].size.cdf")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("traffic[0].size.cdf: my.cdf, line 3:"), "{e}");
        let e = EmpiricalCdf::parse("0 0\n10 0.5\n5 1\n", "f", "k").unwrap_err().to_string();
        assert!(e.contains("line 3") && e.contains("sizes must not decrease"), "{e}");
        let e = EmpiricalCdf::parse("0 0\n10 0.6\n20 0.5\n", "f", "k").unwrap_err().to_string();
        assert!(e.contains("probabilities must not decrease"), "{e}");
        let e = EmpiricalCdf::parse("0 0\n10 0.9\n", "f", "k").unwrap_err().to_string();
        assert!(e.contains("last probability must be 1"), "{e}");
        let e = EmpiricalCdf::parse("0 0\n10 1.5\n", "f", "k").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("between 0 and 1"), "{e}");
        let e = EmpiricalCdf::resolve("websearh", None, "k").unwrap_err().to_string();
        assert!(
            e.contains("unknown workload \"websearh\"") && e.contains("did you mean \"websearch\""),
            "{e}"
        );
    }
}
