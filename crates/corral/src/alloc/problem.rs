//! A max-min allocation problem: links with capacities, flows with a weight, a priority, an
//! optional demand cap, and their per-link usage fractions (R2C2, SIGCOMM 2015, section
//! 3.3.1: a flow sprayed over two paths uses each of their links with fraction 1/2).
//!
//! Usage is stored flow-major in compressed sparse row (CSR) form: flow `f` uses link
//! `link[k]` with fraction `frac[k]` for `k` in `indptr[f]..indptr[f + 1]`.

use crate::error::{config_err, Result};

/// Where a flow's rate stopped growing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bottleneck {
    /// Frozen on this saturated link (index into the capacity array).
    Link(u32),
    /// Frozen at its demand.
    Demand,
}

impl Bottleneck {
    /// The link index, or -1 for a demand-limited flow (the Python encoding).
    pub fn code(self) -> i64 {
        match self {
            Bottleneck::Link(l) => l as i64,
            Bottleneck::Demand => -1,
        }
    }
}

/// One flow of a problem.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    /// Weight (> 0): rates on a shared bottleneck are proportional to weights.
    pub weight: f64,
    /// Priority level, 0 first; a level gets what all lower numbers left.
    pub priority: u8,
    /// Demand cap (>= 0), `f64::INFINITY` for none.
    pub demand: f64,
    /// (link, fraction) pairs, fraction in (0, 1] typically; a link appears at most once.
    pub usage: Vec<(u32, f64)>,
}

impl FlowSpec {
    pub fn new(usage: Vec<(u32, f64)>) -> FlowSpec {
        FlowSpec { weight: 1.0, priority: 0, demand: f64::INFINITY, usage }
    }

    /// Checks the flow against `links` links; errors name `flows[i].key`.
    pub fn validate(&self, i: usize, links: usize) -> Result<()> {
        let mut stamp = Vec::new();
        self.validate_with(i, links, &mut stamp)
    }

    /// [`FlowSpec::validate`] with a reusable per-link stamp array (flow index + 1 where
    /// flow `i` was seen), for duplicate detection in O(entries).
    pub(crate) fn validate_with(&self, i: usize, links: usize, stamp: &mut Vec<usize>) -> Result<()> {
        if stamp.len() < links {
            stamp.resize(links, 0);
        }
        let p = |k: &str| format!("flows[{i}].{k}");
        if !(self.weight > 0.0 && self.weight.is_finite()) {
            return Err(config_err(p("weight"), format!("must be a positive finite number, got {}", self.weight)));
        }
        if self.demand.is_nan() || self.demand < 0.0 {
            return Err(config_err(p("demand"), format!("must be >= 0 (or infinite for none), got {}", self.demand)));
        }
        // Fast check first; the detailed loop below only runs to name a bad entry.
        let tag = i + 1;
        let mut ok = true;
        let st_links = &mut stamp[..links];
        for &(l, a) in &self.usage {
            match st_links.get_mut(l as usize) {
                Some(st) => {
                    ok &= *st != tag && a > 0.0 && a < f64::INFINITY;
                    *st = tag;
                }
                None => ok = false,
            }
        }
        if !ok {
            let mut seen = std::collections::HashSet::new();
            for (j, &(l, a)) in self.usage.iter().enumerate() {
                if l as usize >= links {
                    return Err(config_err(format!("flows[{i}].usage[{j}]"), format!("link {l} out of range: there are {links} links")));
                }
                if !(a > 0.0 && a.is_finite()) {
                    return Err(config_err(format!("flows[{i}].usage[{j}]"), format!("fraction must be positive and finite, got {a}")));
                }
                if !seen.insert(l) {
                    return Err(config_err(p("usage"), format!("link {l} appears twice")));
                }
            }
        }
        if self.usage.is_empty() && self.demand.is_infinite() {
            return Err(config_err(p("usage"), "the flow uses no link and has no demand: its rate would be unbounded"));
        }
        Ok(())
    }
}

/// A whole problem.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Problem {
    /// Capacity of each link (>= 0), in any unit; rates come out in the same unit.
    pub capacity: Vec<f64>,
    /// Fraction of every link's capacity kept free, in [0, 1) (R2C2 section 3.3.2).
    pub headroom: f64,
    pub flows: Vec<FlowSpec>,
}

impl Problem {
    /// Builds a problem from CSR arrays; `weight`, `priority`, `demand` default to 1, 0, none.
    #[allow(clippy::too_many_arguments)]
    pub fn from_csr(
        capacity: Vec<f64>,
        indptr: &[usize],
        indices: &[u32],
        data: &[f64],
        weight: Option<&[f64]>,
        priority: Option<&[u8]>,
        demand: Option<&[f64]>,
        headroom: f64,
    ) -> Result<Problem> {
        if indptr.is_empty() {
            return Err(config_err("usage.indptr", "must have at least one entry (number of flows + 1)"));
        }
        let n = indptr.len() - 1;
        if indices.len() != data.len() {
            return Err(config_err("usage.indices", format!("has {} entries but usage.data has {}", indices.len(), data.len())));
        }
        if indptr[0] != 0 || indptr[n] != indices.len() || indptr.windows(2).any(|w| w[0] > w[1]) {
            return Err(config_err("usage.indptr", format!("must start at 0, be non-decreasing and end at {} (the number of entries)", indices.len())));
        }
        for (key, len) in [("weight", weight.map(|w| w.len())), ("priority", priority.map(|w| w.len())), ("demand", demand.map(|w| w.len()))] {
            if let Some(len) = len {
                if len != n {
                    return Err(config_err(key, format!("has {len} entries but there are {n} flows")));
                }
            }
        }
        let flows = (0..n)
            .map(|f| FlowSpec {
                weight: weight.map_or(1.0, |w| w[f]),
                priority: priority.map_or(0, |p| p[f]),
                demand: demand.map_or(f64::INFINITY, |d| d[f]),
                usage: (indptr[f]..indptr[f + 1]).map(|k| (indices[k], data[k])).collect(),
            })
            .collect();
        let p = Problem { capacity, headroom, flows };
        p.validate()?;
        Ok(p)
    }

    pub fn validate(&self) -> Result<()> {
        if !(0.0..1.0).contains(&self.headroom) {
            return Err(config_err("headroom", format!("must be in [0, 1), got {}", self.headroom)));
        }
        for (l, &c) in self.capacity.iter().enumerate() {
            if !(c >= 0.0 && c.is_finite()) {
                return Err(config_err(format!("capacity[{l}]"), format!("must be finite and >= 0, got {c}")));
            }
        }
        let mut stamp = vec![0usize; self.capacity.len()];
        for (i, f) in self.flows.iter().enumerate() {
            f.validate_with(i, self.capacity.len(), &mut stamp)?;
        }
        Ok(())
    }

    /// Number of (flow, link) usage entries.
    pub fn nnz(&self) -> usize {
        self.flows.iter().map(|f| f.usage.len()).sum()
    }
}

/// A solved allocation.
#[derive(Clone, Debug, PartialEq)]
pub struct Allocation {
    pub rate: Vec<f64>,
    pub bottleneck: Vec<Bottleneck>,
}

impl Allocation {
    /// Load on each link: sum of fraction times rate.
    pub fn link_load(&self, p: &Problem) -> Vec<f64> {
        let mut load = vec![0.0; p.capacity.len()];
        for (f, spec) in p.flows.iter().enumerate() {
            for &(l, a) in &spec.usage {
                load[l as usize] += a * self.rate[f];
            }
        }
        load
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csr_round_trip_and_errors_name_the_key() {
        let p = Problem::from_csr(vec![1.0, 2.0], &[0, 2, 3], &[0, 1, 1], &[0.5, 0.5, 1.0], None, None, None, 0.0).unwrap();
        assert_eq!(p.flows[0].usage, vec![(0, 0.5), (1, 0.5)]);
        assert_eq!(p.nnz(), 3);
        let e = Problem::from_csr(vec![1.0], &[0, 1], &[3], &[1.0], None, None, None, 0.0).unwrap_err();
        assert!(e.to_string().starts_with("flows[0].usage[0]: link 3 out of range"), "{e}");
        let e = Problem::from_csr(vec![-1.0], &[0, 1], &[0], &[1.0], None, None, None, 0.0).unwrap_err();
        assert!(e.to_string().starts_with("capacity[0]:"), "{e}");
        let e = Problem::from_csr(vec![1.0], &[0, 1], &[0], &[1.0], Some(&[0.0]), None, None, 0.0).unwrap_err();
        assert!(e.to_string().starts_with("flows[0].weight:"), "{e}");
        let e = Problem::from_csr(vec![1.0], &[0, 0], &[], &[], None, None, None, 0.0).unwrap_err();
        assert!(e.to_string().contains("unbounded"), "{e}");
        let e = Problem::from_csr(vec![1.0], &[0, 2], &[0, 0], &[1.0, 1.0], None, None, None, 0.0).unwrap_err();
        assert_eq!(e.to_string(), "flows[0].usage: link 0 appears twice");
        let e = Problem::from_csr(vec![1.0], &[0, 1], &[0], &[1.0], None, None, None, 1.0).unwrap_err();
        assert!(e.to_string().starts_with("headroom:"), "{e}");
    }

    #[test]
    fn validate_with_a_longer_stamp_still_checks_the_range() {
        // A stamp array sized for more links must not let an out-of-range link through.
        let mut stamp = vec![0usize; 8];
        let f = FlowSpec::new(vec![(0, 1.0), (5, 1.0)]);
        let e = f.validate_with(0, 4, &mut stamp).unwrap_err();
        assert!(e.to_string().starts_with("flows[0].usage[1]: link 5 out of range"), "{e}");
        let f = FlowSpec::new(vec![(1, 0.5), (2, f64::NAN)]);
        let e = f.validate_with(1, 4, &mut stamp).unwrap_err();
        assert!(e.to_string().starts_with("flows[1].usage[1]: fraction must be positive"), "{e}");
        // Stamps from an earlier flow are no duplicates.
        FlowSpec::new(vec![(1, 0.5), (2, 0.5)]).validate_with(2, 4, &mut stamp).unwrap();
    }
}
