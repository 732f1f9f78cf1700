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
pub struct ProblemFlow {
    /// Weight (> 0): rates on a shared bottleneck are proportional to weights.
    pub weight: f64,
    /// Priority level, 0 first; a level gets what all lower numbers left.
    pub priority: u8,
    /// Demand cap (>= 0), `f64::INFINITY` for none.
    pub demand: f64,
    /// (link, fraction) pairs, fraction in (0, 1] typically; a link appears at most once.
    pub usage: Vec<(u32, f64)>,
}

impl ProblemFlow {
    pub fn new(usage: Vec<(u32, f64)>) -> ProblemFlow {
        ProblemFlow { weight: 1.0, priority: 0, demand: f64::INFINITY, usage }
    }

    /// Checks the flow against `links` links; errors name `flows[i].key`.
    pub fn validate(&self, i: usize, links: usize) -> Result<()> {
        let mut stamp = Vec::new();
        self.validate_with(i, links, &mut stamp)
    }

    /// [`ProblemFlow::validate`] with a reusable per-link stamp array (flow index + 1 where
    /// flow `i` was seen), for duplicate detection in O(entries).
    pub(crate) fn validate_with(
        &self,
        i: usize,
        links: usize,
        stamp: &mut Vec<usize>,
    ) -> Result<()> {
        if stamp.len() < links {
            stamp.resize(links, 0);
        }
        self.validate_scalars(i)?;
        // Fast check first; `usage_error` only runs to name a bad entry.
        let tag = i + 1;
        let mut ok = true;
        let st_links = &mut stamp[..links];
        for &(l, a) in &self.usage {
            ok &= stamp_entry(st_links, tag, l as u64, a);
        }
        if let Some(e) = (!ok).then(|| self.usage_error(i, links)).flatten() {
            return Err(e);
        }
        self.validate_bounded(i)
    }

    /// [`ProblemFlow::validate`] for a flow [`ProblemFlow::merge_usage`] has just merged: its links
    /// are in range and unique and its fractions positive already, so only the merged sums
    /// (which can overflow to infinity), the weight, the demand and the bound are left. Saves
    /// the duplicate check's per-link array on every [`super::Allocator::add_flow`].
    pub(crate) fn validate_merged(&self, i: usize, links: usize) -> Result<()> {
        self.validate_scalars(i)?;
        if let Some((j, &(l, a))) = self.usage.iter().enumerate().find(|(_, e)| !e.1.is_finite()) {
            return Err(entry_error(i, j, l, a, links).expect("a fraction that is not finite"));
        }
        self.validate_bounded(i)
    }

    /// Checks the weight and the demand.
    fn validate_scalars(&self, i: usize) -> Result<()> {
        let p = |k: &str| format!("flows[{i}].{k}");
        if !(self.weight > 0.0 && self.weight.is_finite()) {
            return Err(config_err(
                p("weight"),
                format!("must be a positive finite number, got {}", self.weight),
            ));
        }
        if self.demand.is_nan() || self.demand < 0.0 {
            return Err(config_err(
                p("demand"),
                format!("must be >= 0 (or infinite for none), got {}", self.demand),
            ));
        }
        Ok(())
    }

    /// Checks that the rate is bounded: by a link or by a demand.
    fn validate_bounded(&self, i: usize) -> Result<()> {
        if self.usage.is_empty() && self.demand.is_infinite() {
            return Err(config_err(
                format!("flows[{i}].usage"),
                "the flow uses no link and has no demand: its rate would be unbounded",
            ));
        }
        Ok(())
    }

    /// The error naming the first bad usage entry (out of range, a fraction not positive and
    /// finite, or a link twice), for a flow whose entries failed the fast check.
    fn usage_error(&self, i: usize, links: usize) -> Option<crate::Error> {
        let mut seen = std::collections::HashSet::new();
        for (j, &(l, a)) in self.usage.iter().enumerate() {
            if let Some(e) = entry_error(i, j, l, a, links) {
                return Some(e);
            }
            if a <= 0.0 {
                return Some(config_err(
                    format!("flows[{i}].usage[{j}]"),
                    format!("fraction must be positive and finite, got {a}"),
                ));
            }
            if !seen.insert(l) {
                return Some(config_err(
                    format!("flows[{i}].usage"),
                    format!("link {l} appears twice"),
                ));
            }
        }
        None
    }

    /// The rule of the sparse-matrix inputs (`from_csr_arrays`, [`super::Allocator::add_flow`]),
    /// as scipy has it: a link given twice uses the sum of its fractions, and a stored zero is
    /// no use at all. Other bad entries (out of range, negative, not finite) are errors.
    pub fn merge_usage(&mut self, i: usize, links: usize) -> Result<()> {
        // A short list without a repeated link or a zero (a path's usage) stays as it is.
        let u = &self.usage;
        if u.len() <= SHORT_USAGE
            && u.iter().enumerate().all(|(j, &(l, a))| {
                entry_error(i, j, l, a, links).is_none()
                    && a != 0.0
                    && u[..j].iter().all(|e| e.0 != l)
            })
        {
            return Ok(());
        }
        let mut at: std::collections::HashMap<u32, usize> =
            std::collections::HashMap::with_capacity(self.usage.len());
        let mut merged: Vec<(u32, f64)> = Vec::with_capacity(self.usage.len());
        for (j, &(l, a)) in self.usage.iter().enumerate() {
            if let Some(e) = entry_error(i, j, l, a, links) {
                return Err(e);
            }
            match at.entry(l) {
                std::collections::hash_map::Entry::Occupied(e) => merged[*e.get()].1 += a,
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(merged.len());
                    merged.push((l, a));
                }
            }
        }
        merged.retain(|&(_, a)| a != 0.0);
        self.usage = merged;
        Ok(())
    }
}

/// Usage lists up to this long are checked for repeated links pairwise in
/// [`ProblemFlow::merge_usage`], without a hash map.
const SHORT_USAGE: usize = 16;

/// Entry `j` of flow `i`: a link out of range, or a negative or non-finite fraction.
fn entry_error(i: usize, j: usize, l: u32, a: f64, links: usize) -> Option<crate::Error> {
    if l as usize >= links {
        return Some(config_err(
            format!("flows[{i}].usage[{j}]"),
            format!("link {l} out of range: there are {links} links"),
        ));
    }
    if !(a >= 0.0 && a.is_finite()) {
        return Some(config_err(
            format!("flows[{i}].usage[{j}]"),
            format!("fraction must be positive and finite, got {a}"),
        ));
    }
    None
}

/// The fast usage check of one entry (link `l`, fraction `a`) of the flow stamped `tag`: true
/// when `l` is a link of `stamp`, not seen before in this flow, and `a` is positive and finite.
#[inline]
fn stamp_entry(stamp: &mut [usize], tag: usize, l: u64, a: f64) -> bool {
    match stamp.get_mut(l as usize) {
        Some(st) if l <= u32::MAX as u64 => {
            let fresh = *st != tag;
            *st = tag;
            fresh && a > 0.0 && a < f64::INFINITY
        }
        _ => false,
    }
}

/// A whole problem.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Problem {
    /// Capacity of each link (>= 0), in any unit; rates come out in the same unit.
    pub capacity: Vec<f64>,
    /// Fraction of every link's capacity kept free, in [0, 1) (R2C2 section 3.3.2).
    pub headroom: f64,
    pub flows: Vec<ProblemFlow>,
}

/// One CSR input array read where the caller keeps it (a slice, or a binding's byte buffer),
/// so [`Problem::from_csr_arrays`] needs no converted copy of it first.
pub trait CsrArray<T> {
    fn len(&self) -> usize;
    /// Entry `i < len()`.
    fn get(&self, i: usize) -> T;
    /// Entries `a..b` in order (`b <= len()`); storage may walk them faster than `get`.
    fn range(&self, a: usize, b: usize) -> impl Iterator<Item = T> + '_
    where
        Self: Sized,
    {
        (a..b).map(move |i| self.get(i))
    }
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: Copy> CsrArray<T> for &[T] {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
    #[inline]
    fn get(&self, i: usize) -> T {
        self[i]
    }
    fn range(&self, a: usize, b: usize) -> impl Iterator<Item = T> + '_ {
        self[a..b].iter().copied()
    }
}

/// An integer type that CSR `indptr` and `indices` may come in (scipy uses int32).
pub trait CsrIndex: Copy {
    fn to_i64(self) -> i64;
}

macro_rules! csr_index {
    ($($t:ty),*) => {$(
        impl CsrIndex for $t {
            #[inline]
            fn to_i64(self) -> i64 {
                // usize and u64 beyond i64::MAX saturate: still out of every valid range.
                i64::try_from(self).unwrap_or(i64::MAX)
            }
        }
    )*};
}
csr_index!(i32, i64, u32, u64, usize);

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
        Problem::from_csr_arrays(
            capacity,
            &indptr,
            &indices,
            &data,
            weight.as_ref().map(|w| w as &dyn CsrArray<f64>),
            priority.as_ref().map(|p| p as &dyn CsrArray<u8>),
            demand.as_ref().map(|d| d as &dyn CsrArray<f64>),
            headroom,
        )
    }

    /// [`Problem::from_csr`] on arrays of any [`CsrArray`] storage and index type, validated
    /// while copied (the result needs no [`Problem::validate`]). Errors name the key as
    /// `from_csr` and `validate` do; a negative entry of `indices` is `usage.indices[k]`, of
    /// `indptr` is `usage.indptr`.
    #[allow(clippy::too_many_arguments)]
    pub fn from_csr_arrays<P: CsrIndex, I: CsrIndex>(
        capacity: Vec<f64>,
        indptr: &impl CsrArray<P>,
        indices: &impl CsrArray<I>,
        data: &impl CsrArray<f64>,
        weight: Option<&dyn CsrArray<f64>>,
        priority: Option<&dyn CsrArray<u8>>,
        demand: Option<&dyn CsrArray<f64>>,
        headroom: f64,
    ) -> Result<Problem> {
        if indptr.is_empty() {
            return Err(config_err(
                "usage.indptr",
                "must have at least one entry (number of flows + 1)",
            ));
        }
        let n = indptr.len() - 1;
        let nnz = indices.len();
        if nnz != data.len() {
            return Err(config_err(
                "usage.indices",
                format!("has {nnz} entries but usage.data has {}", data.len()),
            ));
        }
        let mut ip = Vec::with_capacity(n + 1);
        for i in 0..=n {
            let x = indptr.get(i).to_i64();
            let x = usize::try_from(x).map_err(|_| {
                config_err("usage.indptr", format!("entries must be >= 0, got {x}"))
            })?;
            ip.push(x);
        }
        if ip[0] != 0 || ip[n] != nnz || ip.windows(2).any(|w| w[0] > w[1]) {
            return Err(config_err(
                "usage.indptr",
                format!(
                    "must start at 0, be non-decreasing and end at {nnz} (the number of entries)"
                ),
            ));
        }
        for (key, len) in [
            ("weight", weight.map(|w| w.len())),
            ("priority", priority.map(|w| w.len())),
            ("demand", demand.map(|w| w.len())),
        ] {
            if let Some(len) = len {
                if len != n {
                    return Err(config_err(
                        key,
                        format!("has {len} entries but there are {n} flows"),
                    ));
                }
            }
        }
        let mut p = Problem { capacity, headroom, flows: Vec::with_capacity(n) };
        p.validate_links()?;
        let links = p.capacity.len();
        let mut stamp = vec![0usize; links];
        for f in 0..n {
            let (a, b) = (ip[f], ip[f + 1]);
            let mut spec = ProblemFlow {
                weight: weight.map_or(1.0, |w| w.get(f)),
                priority: priority.map_or(0, |p| p.get(f)),
                demand: demand.map_or(f64::INFINITY, |d| d.get(f)),
                usage: Vec::with_capacity(b - a),
            };
            spec.validate_scalars(f)?;
            // Copy and check the entries in one pass (validate_with's fast check).
            let (tag, mut ok) = (f + 1, true);
            spec.usage.extend(indices.range(a, b).zip(data.range(a, b)).map(|(l, x)| {
                let l = l.to_i64();
                ok &= stamp_entry(&mut stamp, tag, l as u64, x);
                (l as u32, x)
            }));
            if !ok {
                // Name the bad entry; an index that is no link id at all (negative, or beyond
                // u32) first, by the value given.
                for k in a..b {
                    let l = indices.get(k).to_i64();
                    if l < 0 {
                        return Err(config_err(
                            format!("usage.indices[{k}]"),
                            format!("link index must be >= 0, got {l}"),
                        ));
                    }
                    if l > u32::MAX as i64 {
                        return Err(config_err(
                            format!("flows[{f}].usage[{}]", k - a),
                            format!("link {l} out of range: there are {links} links"),
                        ));
                    }
                }
                spec.merge_usage(f, links)?;
            }
            spec.validate_bounded(f)?;
            p.flows.push(spec);
        }
        Ok(p)
    }

    pub fn validate(&self) -> Result<()> {
        self.validate_links()?;
        let mut stamp = vec![0usize; self.capacity.len()];
        for (i, f) in self.flows.iter().enumerate() {
            f.validate_with(i, self.capacity.len(), &mut stamp)?;
        }
        Ok(())
    }

    /// Checks the headroom and the capacities.
    fn validate_links(&self) -> Result<()> {
        if !(0.0..1.0).contains(&self.headroom) {
            return Err(config_err(
                "headroom",
                format!("must be in [0, 1), got {}", self.headroom),
            ));
        }
        for (l, &c) in self.capacity.iter().enumerate() {
            if !(c >= 0.0 && c.is_finite()) {
                return Err(config_err(
                    format!("capacity[{l}]"),
                    format!("must be finite and >= 0, got {c}"),
                ));
            }
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
        let p = Problem::from_csr(
            vec![1.0, 2.0],
            &[0, 2, 3],
            &[0, 1, 1],
            &[0.5, 0.5, 1.0],
            None,
            None,
            None,
            0.0,
        )
        .unwrap();
        assert_eq!(p.flows[0].usage, vec![(0, 0.5), (1, 0.5)]);
        assert_eq!(p.nnz(), 3);
        let e =
            Problem::from_csr(vec![1.0], &[0, 1], &[3], &[1.0], None, None, None, 0.0).unwrap_err();
        assert!(e.to_string().starts_with("flows[0].usage[0]: link 3 out of range"), "{e}");
        let e = Problem::from_csr(vec![-1.0], &[0, 1], &[0], &[1.0], None, None, None, 0.0)
            .unwrap_err();
        assert!(e.to_string().starts_with("capacity[0]:"), "{e}");
        let e = Problem::from_csr(vec![1.0], &[0, 1], &[0], &[1.0], Some(&[0.0]), None, None, 0.0)
            .unwrap_err();
        assert!(e.to_string().starts_with("flows[0].weight:"), "{e}");
        let e = Problem::from_csr(vec![1.0], &[0, 0], &[], &[], None, None, None, 0.0).unwrap_err();
        assert!(e.to_string().contains("unbounded"), "{e}");
        // The sparse-matrix rule: duplicates are summed, stored zeros dropped (as scipy does).
        let p = Problem::from_csr(
            vec![1.0, 1.0],
            &[0, 4],
            &[0, 1, 0, 1],
            &[0.25, 0.0, 0.5, 0.0],
            None,
            None,
            None,
            0.0,
        )
        .unwrap();
        assert_eq!(p.flows[0].usage, vec![(0, 0.75)]);
        let e =
            Problem::from_csr(vec![1.0], &[0, 1], &[0], &[0.0], None, None, None, 0.0).unwrap_err();
        assert!(e.to_string().contains("unbounded"), "{e}");
        let e = Problem::from_csr(vec![1.0], &[0, 2], &[0, 0], &[0.5, -0.5], None, None, None, 0.0)
            .unwrap_err();
        assert!(e.to_string().starts_with("flows[0].usage[1]: fraction must be positive"), "{e}");
        // Problems built by hand keep the strict check.
        let p = Problem {
            capacity: vec![1.0],
            headroom: 0.0,
            flows: vec![ProblemFlow::new(vec![(0, 1.0), (0, 1.0)])],
        };
        assert_eq!(p.validate().unwrap_err().to_string(), "flows[0].usage: link 0 appears twice");
        let e =
            Problem::from_csr(vec![1.0], &[0, 1], &[0], &[1.0], None, None, None, 1.0).unwrap_err();
        assert!(e.to_string().starts_with("headroom:"), "{e}");
    }

    /// `from_csr` and a by-hand `Problem` + `merge_usage` + `validate` agree: same problem or
    /// same error.
    fn same_as_validate(
        cap: &[f64],
        ip: &[usize],
        ix: &[u32],
        d: &[f64],
        w: Option<&[f64]>,
        dm: Option<&[f64]>,
    ) {
        let mut by_hand = Problem {
            capacity: cap.to_vec(),
            headroom: 0.0,
            flows: (0..ip.len() - 1)
                .map(|f| ProblemFlow {
                    weight: w.map_or(1.0, |w| w[f]),
                    priority: 0,
                    demand: dm.map_or(f64::INFINITY, |d| d[f]),
                    usage: (ip[f]..ip[f + 1]).map(|k| (ix[k], d[k])).collect(),
                })
                .collect(),
        };
        let csr =
            Problem::from_csr(cap.to_vec(), ip, ix, d, w, None, dm, 0.0).map_err(|e| e.to_string());
        let links = cap.len();
        let mut stamp = vec![0usize; links];
        let checked = by_hand.validate_links().and_then(|_| {
            by_hand.flows.iter_mut().enumerate().try_for_each(|(i, f)| {
                f.validate_scalars(i)?;
                f.merge_usage(i, links)?;
                f.validate_with(i, links, &mut stamp)
            })
        });
        match checked {
            Ok(()) => assert_eq!(csr, Ok(by_hand)),
            Err(e) => assert_eq!(csr, Err(e.to_string())),
        }
    }

    #[test]
    fn csr_checks_while_copying_as_validate_does() {
        // Random small problems, a few of them broken in one place each.
        let mut rng = crate::sim::rng::Rng::stream(7, 0, 0);
        let mut bad = 0;
        for _ in 0..2000 {
            let links = 1 + rng.below(6) as usize;
            let n = 1 + rng.below(5) as usize;
            let cap: Vec<f64> = (0..links).map(|_| rng.below(4) as f64).collect();
            let (mut ip, mut ix, mut d) = (vec![0], Vec::new(), Vec::new());
            for _ in 0..n {
                for l in 0..links as u32 {
                    if rng.below(2) == 0 {
                        ix.push(l);
                        d.push(0.25 + rng.unit());
                    }
                }
                ip.push(ix.len());
            }
            let mut w: Vec<f64> = (0..n).map(|_| 0.5 + rng.unit()).collect();
            let mut dm: Vec<f64> = (0..n)
                .map(|_| if rng.below(2) == 0 { f64::INFINITY } else { rng.unit() })
                .collect();
            let k = rng.below(ix.len().max(1) as u64) as usize;
            match rng.below(8) {
                0 if !ix.is_empty() => ix[k] = links as u32 + rng.below(3) as u32,
                1 if !d.is_empty() => {
                    d[k] = [0.0, -1.0, f64::NAN, f64::INFINITY][rng.below(4) as usize]
                }
                2 if k > 0 => ix[k] = ix[k - 1],
                3 => {
                    w[rng.below(n as u64) as usize] =
                        [0.0, f64::NAN, f64::INFINITY][rng.below(3) as usize]
                }
                4 => dm[rng.below(n as u64) as usize] = [-1.0, f64::NAN][rng.below(2) as usize],
                _ => {}
            }
            same_as_validate(&cap, &ip, &ix, &d, Some(&w), Some(&dm));
            bad += Problem::from_csr(cap.clone(), &ip, &ix, &d, Some(&w), None, Some(&dm), 0.0)
                .is_err() as usize;
        }
        assert!((300..1700).contains(&bad), "{bad} of 2000 invalid");
    }

    #[test]
    fn csr_arrays_take_int32_and_int64_and_name_bad_indices() {
        let want = Problem::from_csr(
            vec![1.0, 2.0],
            &[0, 2, 3],
            &[0, 1, 1],
            &[0.5, 0.5, 1.0],
            None,
            None,
            None,
            0.0,
        )
        .unwrap();
        let i32s = Problem::from_csr_arrays(
            vec![1.0, 2.0],
            &&[0i32, 2, 3][..],
            &&[0i32, 1, 1][..],
            &&[0.5, 0.5, 1.0][..],
            None,
            None,
            None,
            0.0,
        );
        assert_eq!(i32s.unwrap(), want);
        let mixed = Problem::from_csr_arrays(
            vec![1.0, 2.0],
            &&[0i64, 2, 3][..],
            &&[0i32, 1, 1][..],
            &&[0.5, 0.5, 1.0][..],
            None,
            None,
            None,
            0.0,
        );
        assert_eq!(mixed.unwrap(), want);
        let err = |ip: &[i64], ix: &[i64]| {
            let d = vec![1.0; ix.len()];
            Problem::from_csr_arrays(vec![1.0, 1.0], &ip, &ix, &&d[..], None, None, None, 0.0)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(err(&[0, 1, 2], &[0, -1]), "usage.indices[1]: link index must be >= 0, got -1");
        assert_eq!(
            err(&[0, 1, 2], &[0, 1 << 32]),
            "flows[1].usage[0]: link 4294967296 out of range: there are 2 links"
        );
        assert_eq!(
            err(&[0, 2], &[5, 1]),
            "flows[0].usage[0]: link 5 out of range: there are 2 links"
        );
        assert!(err(&[0, -1, 2], &[0, 1]).starts_with("usage.indptr: entries must be >= 0, got -1"));
        assert!(err(&[0, 2, 1], &[0, 1])
            .starts_with("usage.indptr: must start at 0, be non-decreasing"));
        assert!(err(&[], &[]).starts_with("usage.indptr: must have at least one entry"));
        let e = Problem::from_csr_arrays(
            vec![1.0],
            &&[0i64, 1][..],
            &&[0i64][..],
            &&[1.0, 1.0][..],
            None,
            None,
            None,
            0.0,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "usage.indices: has 1 entries but usage.data has 2");
        // The weight is named before a bad entry of the same flow, as validate does.
        let e = Problem::from_csr(vec![1.0], &[0, 1], &[3], &[1.0], Some(&[0.0]), None, None, 0.0)
            .unwrap_err();
        assert!(e.to_string().starts_with("flows[0].weight:"), "{e}");
    }

    #[test]
    fn validate_with_a_longer_stamp_still_checks_the_range() {
        // A stamp array sized for more links must not let an out-of-range link through.
        let mut stamp = vec![0usize; 8];
        let f = ProblemFlow::new(vec![(0, 1.0), (5, 1.0)]);
        let e = f.validate_with(0, 4, &mut stamp).unwrap_err();
        assert!(e.to_string().starts_with("flows[0].usage[1]: link 5 out of range"), "{e}");
        let f = ProblemFlow::new(vec![(1, 0.5), (2, f64::NAN)]);
        let e = f.validate_with(1, 4, &mut stamp).unwrap_err();
        assert!(e.to_string().starts_with("flows[1].usage[1]: fraction must be positive"), "{e}");
        // Stamps from an earlier flow are no duplicates.
        ProblemFlow::new(vec![(1, 0.5), (2, 0.5)]).validate_with(2, 4, &mut stamp).unwrap();
    }
}
