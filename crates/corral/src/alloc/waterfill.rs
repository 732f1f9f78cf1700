//! Exact weighted progressive filling (water-filling) for one priority level, R2C2 (SIGCOMM
//! 2015) section 3.3.1: every unfrozen flow `f` runs at `w_f * t` while the common fill level
//! `t` rises; link `l` carries `sum a_fl * r_f` and saturates when that reaches its remaining
//! capacity; its unfrozen flows then freeze with that link as bottleneck. A flow whose demand
//! `d_f` is reached first (at `t = d_f / w_f`) freezes at its demand.
//!
//! Each link's saturation level is `rem_l / W_l` (remaining capacity over the weighted usage
//! `W_l` of its unfrozen flows, kept up to date in O(1) per freeze). Freezing a flow never
//! lowers a link's level, so the next event is the minimum of a lazy min-heap of link levels
//! (an entry found stale when it reaches the top takes the link's current level in place
//! and sifts down), or the next demand level from a sorted list. One pass over the set's
//! usage builds the per-link sums and the link-major view (per-link lists, reused across
//! fills). Cost: O(nnz + P log L) for nnz usage entries and P heap operations (events plus
//! stale entries).
//!
//! Priorities (section 3.3.2) and headroom are layered on top in [`super::incremental`]:
//! levels are filled in turn on the capacity higher levels left.

use super::problem::{Allocation, Bottleneck, Problem, ProblemFlow};
use crate::sim::prefetch::prefetch;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// How many flows ahead a fill's first pass prefetches a flow's spec and usage entries.
const AHEAD: usize = 8;

/// A fill notes its links as it meets them when its set has fewer than one flow per this
/// many links, and otherwise scans all links for them.
const NOTE_BELOW: usize = 4;

/// Reusable per-link and per-flow work arrays, reset after every fill.
#[derive(Default)]
pub(crate) struct Scratch {
    /// Per-link state during a fill (zero and empty outside): a link's sums and its flow list
    /// side by side, so the first pass touches one place per entry.
    ls: Vec<LinkState>,
    /// Links touched by the last fill (in the order met, or ascending after a scan).
    pub touched: Vec<u32>,
    /// One place per link and a spare: where a small fill's first pass writes the links it
    /// meets (a link met again is written one past the last, and not counted).
    met: Vec<u32>,
    frozen: Vec<bool>,
    /// Link levels: [`entry`]s, whose integer order is (level, link).
    heap: BinaryHeap<Reverse<u128>>,
    demands: Vec<(f64, u32)>,
    /// (link, flow) entries the first passes of all fills so far read.
    pub entries_read: usize,
}

#[derive(Clone, Default)]
struct LinkState {
    /// Remaining capacity (copied in from and back to the caller's array).
    rem: f64,
    /// Weighted usage `sum a w` of the unfrozen flows.
    wsum: f64,
    /// Number of unfrozen flows.
    active: u32,
    /// The set's flows using the link (positions into `set`): the link-major view, beside
    /// the sums a first pass writes with it.
    on: Vec<u32>,
}

impl Scratch {
    pub fn ensure(&mut self, links: usize) {
        if self.ls.len() < links {
            self.ls.resize_with(links, LinkState::default);
            self.met.resize(links + 1, 0);
        }
    }
}

/// Where a fill reads each flow's (link, fraction) entries: the flow's own usage, or a
/// subset of its links (the incremental allocator fills on its candidate links only).
pub(crate) trait Uses {
    fn uses(&self, f: usize) -> &[(u32, f64)];
}

impl Uses for [ProblemFlow] {
    #[inline]
    fn uses(&self, f: usize) -> &[(u32, f64)] {
        &self[f].usage
    }
}

/// Per-flow usage lists kept apart from the specs.
pub(crate) struct Lists<'a>(pub &'a [Vec<(u32, f64)>]);

impl Uses for Lists<'_> {
    #[inline]
    fn uses(&self, f: usize) -> &[(u32, f64)] {
        &self.0[f]
    }
}

/// Output arrays indexed by flow id.
pub(crate) struct Out<'a> {
    pub rate: &'a mut [f64],
    /// Fill level at which the flow froze (`rate / weight`).
    pub level: &'a mut [f64],
    pub bottleneck: &'a mut [Bottleneck],
}

/// Saturation level of a link with remaining capacity `rem` and unfrozen weighted usage `w`
/// at current level `t`.
#[inline]
fn key(rem: f64, w: f64, t: f64) -> f64 {
    if rem <= 0.0 {
        t
    } else {
        (rem / w).max(t)
    }
}

/// Heap key: for non-negative floats (and +inf) the bit pattern orders like the value.
#[inline]
fn bits(k: f64) -> u64 {
    debug_assert!(k >= 0.0);
    k.to_bits()
}

/// A heap entry: level bits above the link, so one integer comparison orders by level, then
/// link.
#[inline]
fn entry(k: f64, l: u32) -> u128 {
    ((bits(k) as u128) << 32) | l as u128
}

/// Fills the flows `set` (ids into `specs`, ascending) from level `t0`, each on the links
/// `uses` gives it (its whole usage, or a subset), on links whose
/// remaining capacity is `rem` (indexed by link; read and updated only on links the set
/// uses). Saturated links are left at exactly 0. Touched links end up in `s.touched`. With
/// `release`, each flow's current rate in `out.rate` is first given back to its links (an
/// incremental refill: `rem` then holds the capacity left before those rates are removed).
///
/// Freezing a flow at level `t` never lowers a link's saturation level: if `k = rem / W` is
/// at least `t`, then `(rem - a w t) / (W - a w) >= k`. So link levels sit in a min-heap with lazy
/// increase: a popped entry whose link's current level is higher is pushed back with it,
/// and no per-freeze heap update (or division) is needed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn fill<U: Uses + ?Sized>(
    specs: &[ProblemFlow],
    uses: &U,
    set: &[u32],
    rem: &mut [f64],
    t0: f64,
    release: bool,
    s: &mut Scratch,
    out: &mut Out,
) {
    s.ensure(rem.len());
    s.demands.clear();
    // A small set notes the links as its first pass meets them: each is written at the next
    // free place, which moves on only for a link not met before (no branch to mispredict). A
    // large one finds them by a scan of all links afterwards, cheaper than a write per entry.
    let note = set.len() * NOTE_BELOW < rem.len();
    let mut met = 0;
    // Weighted usage, count of unfrozen flows, released rates and flows (positions in `set`)
    // per link, in one pass; all are zero / empty outside a fill.
    for (i, &f) in set.iter().enumerate() {
        if let Some(&g) = set.get(i + AHEAD) {
            if let Some(e) = uses.uses(g as usize).first() {
                prefetch(e);
            }
            prefetch(&specs[g as usize]);
        }
        let spec = &specs[f as usize];
        let w = spec.weight;
        let r = if release { out.rate[f as usize] } else { 0.0 };
        s.entries_read += uses.uses(f as usize).len();
        for &(l, a) in uses.uses(f as usize) {
            let li = l as usize;
            let st = &mut s.ls[li];
            if note {
                s.met[met] = l;
                met += (st.active == 0) as usize;
            }
            st.rem += a * r;
            st.wsum += a * w;
            st.active += 1;
            st.on.push(i as u32);
        }
        if spec.demand.is_finite() {
            s.demands.push(((spec.demand / w).max(t0), i as u32));
        }
    }
    s.touched.clear();
    if note {
        s.touched.extend_from_slice(&s.met[..met]);
    } else {
        s.touched.extend((0..rem.len() as u32).filter(|&l| s.ls[l as usize].active > 0));
    }
    for &l in &s.touched {
        s.ls[l as usize].rem += rem[l as usize];
    }
    // Demand levels never change: one sorted list.
    s.demands.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    s.frozen.clear();
    s.frozen.resize(set.len(), false);
    let mut t = t0;
    // The heap is rebuilt in its own allocation from last time.
    let mut items = std::mem::take(&mut s.heap).into_vec();
    items.clear();
    items.extend(s.touched.iter().map(|&l| {
        let st = &s.ls[l as usize];
        Reverse(entry(key(st.rem, st.wsum, t), l))
    }));
    s.heap = BinaryHeap::from(items);
    let mut left = set.len();
    let mut next_demand = 0;
    while left > 0 {
        // The lowest link level, after stale entries at the root took their current level.
        let (lk, l) = loop {
            match s.heap.peek() {
                None => break (f64::INFINITY, usize::MAX),
                Some(&Reverse(e)) => {
                    let l = e as u32;
                    let li = l as usize;
                    let st = &s.ls[li];
                    if st.active == 0 {
                        s.heap.pop();
                        continue;
                    }
                    let k = key(st.rem, st.wsum, t);
                    if entry(k, l) > e {
                        // The root is stale: it takes its current level in place (one sift
                        // down instead of a pop and a push; the heap holds the same entries).
                        *s.heap.peek_mut().expect("a root") = Reverse(entry(k, l));
                        continue;
                    }
                    break (k, li);
                }
            }
        };
        let dk = s.demands.get(next_demand).map_or(f64::INFINITY, |d| d.0);
        if dk <= lk && next_demand < s.demands.len() {
            let i = s.demands[next_demand].1 as usize;
            next_demand += 1;
            if s.frozen[i] {
                continue;
            }
            t = t.max(dk);
            let d = specs[set[i] as usize].demand;
            freeze(specs, uses, set, i, d, t, Bottleneck::Demand, s, out);
            left -= 1;
        } else {
            if lk == f64::INFINITY {
                break;
            }
            s.heap.pop();
            t = t.max(lk);
            for e in 0..s.ls[l].on.len() {
                let i = s.ls[l].on[e] as usize;
                if !s.frozen[i] {
                    let r = specs[set[i] as usize].weight * t;
                    freeze(specs, uses, set, i, r, t, Bottleneck::Link(l as u32), s, out);
                    left -= 1;
                }
            }
            s.ls[l].rem = 0.0;
        }
    }
    debug_assert_eq!(left, 0);
    for &l in &s.touched {
        let li = l as usize;
        rem[li] = s.ls[li].rem;
        let st = &mut s.ls[li];
        (st.rem, st.wsum, st.active) = (0.0, 0.0, 0);
        st.on.clear();
    }
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn freeze<U: Uses + ?Sized>(
    specs: &[ProblemFlow],
    uses: &U,
    set: &[u32],
    i: usize,
    r: f64,
    t: f64,
    b: Bottleneck,
    s: &mut Scratch,
    out: &mut Out,
) {
    let fi = set[i] as usize;
    s.frozen[i] = true;
    out.rate[fi] = r;
    out.level[fi] = t;
    out.bottleneck[fi] = b;
    let w = specs[fi].weight;
    for &(l, a) in uses.uses(fi) {
        let st = &mut s.ls[l as usize];
        st.rem -= a * r;
        st.wsum -= a * w;
        st.active -= 1;
    }
}

/// Solves a whole problem from scratch: priorities in turn, headroom, demands.
pub fn solve(p: &Problem) -> crate::Result<Allocation> {
    p.validate()?;
    Ok(solve_validated(p))
}

/// [`solve`] without checking the problem again: for one that [`Problem::validate`] (or
/// [`Problem::from_csr`]) accepted. An invalid problem may panic or give meaningless rates.
pub fn solve_validated(p: &Problem) -> Allocation {
    let n = p.flows.len();
    let mut rate = vec![0.0; n];
    let mut level = vec![0.0; n];
    let mut bottleneck = vec![Bottleneck::Demand; n];
    let mut by_prio: Vec<(u8, u32)> =
        p.flows.iter().enumerate().map(|(f, s)| (s.priority, f as u32)).collect();
    by_prio.sort_unstable();
    let mut rem: Vec<f64> = p.capacity.iter().map(|c| c * (1.0 - p.headroom)).collect();
    // Work arrays are kept per thread: repeated solves reuse their pages. They are taken out
    // for the solve and put back after it, so a panic in between leaves no half-reset state.
    thread_local! {
        static SCRATCH: std::cell::Cell<Scratch> = std::cell::Cell::new(Scratch::default());
    }
    let mut s = SCRATCH.with(|c| c.take());
    solve_with(p, &mut s, &mut rate, &mut level, &mut bottleneck, &mut rem, &by_prio);
    SCRATCH.with(|c| c.set(s));
    Allocation { rate, bottleneck }
}

fn solve_with(
    p: &Problem,
    s: &mut Scratch,
    rate: &mut [f64],
    level: &mut [f64],
    bottleneck: &mut [Bottleneck],
    rem: &mut [f64],
    by_prio: &[(u8, u32)],
) {
    let mut out = Out { rate, level, bottleneck };
    let mut i = 0;
    while i < by_prio.len() {
        let j = i + by_prio[i..].iter().take_while(|e| e.0 == by_prio[i].0).count();
        let set: Vec<u32> = by_prio[i..j].iter().map(|e| e.1).collect();
        // Each level fills on what the previous ones left in `rem`.
        fill(&p.flows, &p.flows[..], &set, rem, 0.0, false, s, &mut out);
        i = j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(usage: &[(u32, f64)]) -> ProblemFlow {
        ProblemFlow::new(usage.to_vec())
    }

    fn run(cap: &[f64], flows: Vec<ProblemFlow>) -> Allocation {
        solve(&Problem { capacity: cap.to_vec(), headroom: 0.0, flows }).unwrap()
    }

    #[test]
    fn single_link_equal_shares() {
        let a = run(&[9.0], vec![flow(&[(0, 1.0)]), flow(&[(0, 1.0)]), flow(&[(0, 1.0)])]);
        assert_eq!(a.rate, vec![3.0, 3.0, 3.0]);
        assert!(a.bottleneck.iter().all(|&b| b == Bottleneck::Link(0)));
    }

    #[test]
    fn classic_parking_lot() {
        // Flow 0 crosses links 0 and 1; flow 1 only link 0 (cap 10); flow 2 only link 1 (cap 4).
        let a = run(
            &[10.0, 4.0],
            vec![flow(&[(0, 1.0), (1, 1.0)]), flow(&[(0, 1.0)]), flow(&[(1, 1.0)])],
        );
        assert_eq!(a.rate, vec![2.0, 8.0, 2.0]);
        assert_eq!(
            a.bottleneck,
            vec![Bottleneck::Link(1), Bottleneck::Link(0), Bottleneck::Link(1)]
        );
    }

    #[test]
    fn weights_split_proportionally() {
        let mut f = vec![flow(&[(0, 1.0)]), flow(&[(0, 1.0)])];
        f[1].weight = 3.0;
        let a = run(&[8.0], f);
        assert_eq!(a.rate, vec![2.0, 6.0]);
    }

    #[test]
    fn demand_freezes_and_frees_capacity() {
        let mut f = vec![flow(&[(0, 1.0)]), flow(&[(0, 1.0)])];
        f[0].demand = 1.0;
        let a = run(&[10.0], f);
        assert_eq!(a.rate, vec![1.0, 9.0]);
        assert_eq!(a.bottleneck, vec![Bottleneck::Demand, Bottleneck::Link(0)]);
    }

    #[test]
    fn fractions_follow_r2c2_figure_4() {
        // Flow 1 splits 1/2 on links 0 and 1; flow 2 uses link 1 fully. Both links cap 1.
        // Link 1 carries r1/2 + r2: saturates at t = 1/1.5, both get 2/3 (R2C2 Fig. 4c).
        let a = run(&[1.0, 1.0], vec![flow(&[(0, 0.5), (1, 0.5)]), flow(&[(1, 1.0)])]);
        assert!(
            (a.rate[0] - 2.0 / 3.0).abs() < 1e-12 && (a.rate[1] - 2.0 / 3.0).abs() < 1e-12,
            "{:?}",
            a.rate
        );
    }

    #[test]
    fn priority_levels_take_what_is_left() {
        let mut f = vec![flow(&[(0, 1.0)]), flow(&[(0, 1.0), (1, 1.0)]), flow(&[(1, 1.0)])];
        f[0].demand = 4.0;
        f[1].priority = 1;
        f[2].priority = 1;
        let a = run(&[10.0, 20.0], f);
        // Level 0 takes 4 on link 0; level 1's flow 1 is held to the 6 left there, flow 2
        // takes the rest of link 1.
        assert_eq!(a.rate, vec![4.0, 6.0, 14.0]);
        assert_eq!(
            a.bottleneck,
            vec![Bottleneck::Demand, Bottleneck::Link(0), Bottleneck::Link(1)]
        );
    }

    #[test]
    fn saturated_link_leaves_nothing_to_lower_priority() {
        let mut f = vec![flow(&[(0, 1.0)]), flow(&[(0, 1.0)])];
        f[1].priority = 2;
        let a = run(&[3.0], f);
        assert_eq!(a.rate, vec![3.0, 0.0]);
    }

    #[test]
    fn headroom_is_subtracted() {
        let a =
            solve(&Problem { capacity: vec![10.0], headroom: 0.1, flows: vec![flow(&[(0, 1.0)])] })
                .unwrap();
        assert!((a.rate[0] - 9.0).abs() < 1e-12);
    }

    #[test]
    fn demand_only_flow_without_links() {
        let mut f = vec![flow(&[])];
        f[0].demand = 2.5;
        let a = run(&[1.0], f);
        assert_eq!((a.rate[0], a.bottleneck[0]), (2.5, Bottleneck::Demand));
    }
}
