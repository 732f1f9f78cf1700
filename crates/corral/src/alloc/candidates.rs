//! Candidate links of the incremental allocator: the links an update's refill looks at.
//!
//! HCC (section III-A) runs its incremental algorithm on the bottleneck-flow graph, which
//! joins each flow to its bottleneck links only, not to every link it crosses. The refill
//! here does the same and stays exact. It runs on the candidate links: every saturated link,
//! plus the links within a slack fraction of saturation at the last rebuild. Afterwards the other links it could
//! have overloaded are checked: the links of flows whose rate went up. If the refilled
//! allocation leaves every non-candidate link below capacity, progressive filling on all links
//! would have made the same freeze events, because a link's load only grows with the fill
//! level. So the allocation is the exact one. Otherwise the overloaded links become candidates
//! and the refill is redone.
//!
//! With flows sprayed over all minimal paths of a torus, a flow crosses ~86 links but ~8
//! saturated ones, so the refill touches an order of magnitude fewer entries.
//!
//! Link loads stay exact on candidate links. On the others they are upper bounds: increases
//! are added, and a link is recomputed exactly from its flows when its bound nears capacity.
//! Candidates only grow between rebuilds; a rebuild (after a from-scratch solve the
//! allocator makes every [`REBUILD_EVERY`] updates) starts again from the exact loads.
//!
//! Adding every rise to every link of the flow would read ~80 entries per raised flow (a
//! quarter of a torus arrival). Most rises are tiny: on an update among 10k sprayed flows
//! ~2,800 flows rise, the median by about 1e-4 of the mean rate and nine in ten by under 1 %
//! of it. So the loads count each flow at a rate of its own (`accounted`, never above its
//! rate), and a flow's rise beyond it is added to its links only once it exceeds a lag `q`
//! (then ~175 flows per update). Every flow runs at most `q` above its accounted rate, so a
//! link's load is at most its bound plus `q` times the sum `A` of its flows' fractions. The
//! rebuild picks `q` so that every non-candidate link has twice that much room. A link whose
//! bound plus `A q` later reaches capacity is checked exactly and, if it is still below,
//! becomes a candidate (it is near saturation; ~7 per 100 updates there), so no other link
//! needs looking at.

use crate::sim::prefetch::prefetch;

/// Updates between two from-scratch solves of the allocator (and rebuilds of the candidates).
pub(crate) const REBUILD_EVERY: usize = 1000;

/// Relative margin under capacity at which a link counts as saturated.
pub(crate) const SATURATED: f64 = 1e-9;

/// The candidate set and each flow's usage restricted to it.
pub(crate) struct Candidates {
    /// Every link is a candidate: the refill reads each flow's whole usage and nothing is
    /// checked afterwards (allocations with several priority levels, or `slack` infinite).
    pub all: bool,
    pub is: Vec<bool>,
    /// Flow id -> its (link, fraction) entries on candidate links (empty when `all`).
    pub usage: Vec<Vec<(u32, f64)>>,
    /// Flow id -> its entries on the other links, fractions rounded up to f32: only used
    /// for the upper bounds of the check, half the bytes to stream.
    pub other: Vec<Vec<(u32, f32)>>,
    /// A link within this fraction of its capacity is a candidate at a rebuild.
    pub slack: f64,
    /// Updates since the last from-scratch solve.
    pub since_rebuild: usize,
    /// Flow id -> the rate at which the loads of its non-candidate links count it: at most
    /// its rate, and at least its rate minus `lag`.
    pub accounted: Vec<f64>,
    /// Link -> the sum `A` of the live flows' (rounded-up) fractions on it, while it is not
    /// a candidate; never below the exact sum.
    pub frac_sum: Vec<f64>,
    /// How far a flow's rate may run ahead of its accounted rate (`q` above).
    pub lag: f64,
    /// Verification work arrays: per-link load increase, whether a link is noted, and the
    /// noted links (the first `inc_count`; one place per link and a spare, see
    /// [`Self::add_increases`]).
    inc: Vec<f64>,
    noted: Vec<bool>,
    inc_links: Vec<u32>,
    inc_count: usize,
}

/// The share of the least room (capacity minus load, over `A`) on a non-candidate link at a
/// rebuild that the lag takes: the rest is left for the loads to grow into.
pub(crate) const LAG_SHARE: f64 = 0.5;

/// How many flows ahead [`Candidates::add_increases`] prefetches a flow's entries.
const AHEAD: usize = 8;

impl Candidates {
    pub fn new(links: usize, slack: f64) -> Candidates {
        Candidates {
            all: true,
            is: vec![true; links],
            usage: Vec::new(),
            other: Vec::new(),
            slack,
            since_rebuild: 0,
            accounted: Vec::new(),
            frac_sum: vec![0.0; links],
            lag: 0.0,
            inc: vec![0.0; links],
            noted: vec![false; links],
            inc_links: vec![0; links + 1],
            inc_count: 0,
        }
    }

    /// Every link a candidate.
    pub fn make_all(&mut self) {
        self.all = true;
        self.lag = 0.0; // nothing runs ahead: `lag_load` is 0 everywhere
        self.is.iter_mut().for_each(|c| *c = true);
        self.usage = Vec::new();
        self.other = Vec::new();
    }

    /// Candidates from exact link loads `used` at the flows' `rate`s: links with
    /// `used >= base * (1 - slack)`. `usage_of(f)` is flow f's usage, `None` for a dead id.
    /// Every flow is accounted at its rate, and the lag is set.
    pub fn rebuild<'u>(
        &mut self,
        base: &[f64],
        used: &[f64],
        usage_of: impl Fn(usize) -> Option<&'u [(u32, f64)]>,
        rate: &[f64],
    ) {
        if self.slack.is_infinite() {
            self.make_all();
            return;
        }
        self.all = false;
        for (l, c) in self.is.iter_mut().enumerate() {
            *c = used[l] >= base[l] * (1.0 - self.slack.max(SATURATED));
        }
        // Each flow's lists are cleared, not made anew: their buffers serve again.
        let flows = rate.len();
        self.usage.resize_with(flows, Vec::new);
        self.other.resize_with(flows, Vec::new);
        self.accounted.resize(flows, 0.0);
        self.frac_sum.iter_mut().for_each(|x| *x = 0.0);
        for (f, &r) in rate.iter().enumerate() {
            self.usage[f].clear();
            self.other[f].clear();
            self.accounted[f] = 0.0;
            if let Some(u) = usage_of(f) {
                self.set_flow(f, u);
                self.accounted[f] = r;
            }
        }
        // The least room per unit of fraction on a non-candidate link.
        let room = (0..self.is.len())
            .filter(|&l| !self.is[l] && self.frac_sum[l] > 0.0)
            .map(|l| (base[l] * (1.0 - SATURATED) - used[l]) / self.frac_sum[l])
            .fold(f64::INFINITY, f64::min);
        self.lag = if room.is_finite() { (LAG_SHARE * room).max(0.0) } else { 0.0 };
    }

    /// Enters new flow `f` with `usage`, split into candidate and other entries (nothing to
    /// keep when every link is a candidate).
    pub fn set_flow(&mut self, f: usize, usage: &[(u32, f64)]) {
        if self.all {
            return;
        }
        if self.usage.len() <= f {
            self.usage.resize_with(f + 1, Vec::new);
            self.other.resize_with(f + 1, Vec::new);
            self.accounted.resize(f + 1, 0.0);
        }
        let (mut mine, mut rest) =
            (std::mem::take(&mut self.usage[f]), std::mem::take(&mut self.other[f]));
        mine.clear();
        rest.clear();
        for &(l, a) in usage {
            if self.is[l as usize] {
                mine.push((l, a));
            } else {
                let a = round_up(a);
                rest.push((l, a));
                self.frac_sum[l as usize] = add_up(self.frac_sum[l as usize], a as f64);
            }
        }
        (self.usage[f], self.other[f]) = (mine, rest);
        self.accounted[f] = 0.0;
    }

    /// Forgets flow `f` (removed); returns the rate its non-candidate links account it at.
    pub fn clear_flow(&mut self, f: usize) -> f64 {
        if self.all {
            return 0.0;
        }
        self.usage[f].clear();
        for &(l, a) in &self.other[f] {
            let sum = &mut self.frac_sum[l as usize];
            *sum = add_up(*sum, -(a as f64)).max(0.0);
        }
        self.other[f].clear();
        std::mem::take(&mut self.accounted[f])
    }

    /// Makes `l` a candidate; `flows` are its (flow, fraction) entries.
    pub fn promote(&mut self, l: u32, flows: &[(u32, f64)]) {
        let li = l as usize;
        if self.is[li] {
            return;
        }
        self.is[li] = true;
        self.frac_sum[li] = 0.0;
        for &(g, a) in flows {
            self.usage[g as usize].push((l, a));
            let other = &mut self.other[g as usize];
            if let Some(k) = other.iter().position(|e| e.0 == l) {
                other.swap_remove(k);
            }
        }
    }

    /// The flows whose rise must be added to their links now, with the rise: those of `set`
    /// more than the lag above their accounted rate, and `changed` (an arrival's links must
    /// be checked against their new fraction sums even if it did not rise).
    pub fn rises(&self, set: &[u32], rate: &[f64], changed: Option<u32>) -> Vec<(u32, f64)> {
        set.iter()
            .filter_map(|&g| {
                let up = rate[g as usize] - self.accounted[g as usize];
                (up > self.lag || changed == Some(g)).then_some((g, up.max(0.0)))
            })
            .collect()
    }

    /// Once a refill is kept: every flow of `set` is accounted at no more than its rate, and
    /// those of `risen` (whose rise went to their links) at their rate.
    pub fn account(&mut self, set: &[u32], rate: &[f64], risen: &[(u32, f64)]) {
        for &g in set {
            let acc = &mut self.accounted[g as usize];
            *acc = acc.min(rate[g as usize]);
        }
        for &(g, _) in risen {
            self.accounted[g as usize] = rate[g as usize];
        }
    }

    /// For each (flow `f`, rise `dr >= 0`) in `ups`, adds `a * dr` to the load increase of
    /// every non-candidate link of `f`, and notes the link. The entries stream from memory
    /// (about 80 per flow on the sprayed torus), so the lists of flows a few places ahead are
    /// prefetched, and a link is noted without a branch: it is written at the next free
    /// place, which moves on only for a link not noted before.
    pub fn add_increases(&mut self, ups: &[(u32, f64)]) {
        let (inc, noted, links, other) =
            (&mut self.inc[..], &mut self.noted[..], &mut self.inc_links[..], &self.other[..]);
        let mut n = self.inc_count;
        for (i, &(f, dr)) in ups.iter().enumerate() {
            debug_assert!(dr >= 0.0);
            if let Some(e) = ups.get(i + AHEAD).and_then(|&(g, _)| other[g as usize].first()) {
                prefetch(e);
            }
            for &(l, a) in &other[f as usize] {
                let li = l as usize;
                links[n] = l;
                n += !noted[li] as usize;
                noted[li] = true;
                inc[li] += a as f64 * dr;
            }
        }
        self.inc_count = n;
    }

    /// Takes the noted links with their increases and fraction sums, and resets them.
    pub fn take_increases(&mut self) -> Vec<(u32, f64, f64)> {
        let links = &self.inc_links[..self.inc_count];
        let out =
            links.iter().map(|&l| (l, self.inc[l as usize], self.frac_sum[l as usize])).collect();
        for &l in links {
            self.inc[l as usize] = 0.0;
            self.noted[l as usize] = false;
        }
        self.inc_count = 0;
        out
    }

    /// What the unaccounted rises may add to non-candidate link `l` on top of its bound (0
    /// when every link is a candidate).
    pub fn lag_load(&self, l: usize) -> f64 {
        self.frac_sum[l] * self.lag
    }
}

/// `x + y` rounded up to the next f64 when not exact, so that a sum kept by adding and
/// subtracting never falls below the exact one (error of the rounded sum by TwoSum).
fn add_up(x: f64, y: f64) -> f64 {
    let s = x + y;
    let yy = s - x;
    let err = (x - (s - yy)) + (y - yy);
    if err > 0.0 {
        s.next_up()
    } else {
        s
    }
}

/// The smallest f32 at least `a` (for positive finite `a`), so sums of rounded fractions
/// bound the exact ones from above.
fn round_up(a: f64) -> f32 {
    let x = a as f32;
    if (x as f64) < a {
        x.next_up()
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebuild_picks_links_near_saturation_and_restricts_usage() {
        let mut c = Candidates::new(3, 0.1);
        let usage = [vec![(0, 1.0), (1, 0.5), (2, 0.5)], vec![(2, 1.0)]];
        c.rebuild(&[10.0, 10.0, 10.0], &[10.0, 8.0, 9.5], |f| Some(&usage[f][..]), &[1.0, 1.0]);
        assert_eq!(c.is, vec![true, false, true]);
        assert_eq!(c.usage, vec![vec![(0, 1.0), (2, 0.5)], vec![(2, 1.0)]]);
        assert_eq!(c.other, vec![vec![(1, 0.5f32)], vec![]]);
        c.promote(1, &[(0, 0.5)]);
        assert_eq!(c.usage[0], vec![(0, 1.0), (2, 0.5), (1, 0.5)]);
        assert!(c.other[0].is_empty());
        c.clear_flow(1);
        assert!(c.usage[1].is_empty());
        c.slack = f64::INFINITY;
        c.rebuild(&[10.0; 3], &[0.0; 3], |f| Some(&usage[f][..]), &[0.0, 0.0]);
        assert!(c.all && c.is.iter().all(|&x| x));
    }

    #[test]
    fn increases_add_up_on_non_candidate_links_only() {
        let mut c = Candidates::new(3, 0.0);
        let usage = [vec![(0, 1.0), (1, 0.5)], vec![(1, 1.0), (2, 0.25)]];
        c.rebuild(&[1.0; 3], &[1.0, 0.0, 0.0], |f| Some(&usage[f][..]), &[0.0, 0.0]);
        c.add_increases(&[(0, 2.0), (1, 1.0)]);
        let mut inc = c.take_increases();
        inc.sort_by_key(|e| e.0);
        assert_eq!(inc, vec![(1, 2.0, 1.5), (2, 0.25, 0.25)]);
        assert!(c.take_increases().is_empty());
        // A zero rise still notes the flow's links (an arrival at rate 0 adds to their sums).
        c.add_increases(&[(1, 0.0)]);
        assert_eq!(c.take_increases().len(), 2);
    }

    #[test]
    fn fraction_sums_never_fall_below_the_exact_sum() {
        // Exact sums stay exact; inexact ones round up, also when subtracting.
        assert_eq!(add_up(0.5, 0.25), 0.75);
        assert_eq!(add_up(1.0, 2f64.powi(-60)), 1f64.next_up());
        assert_eq!(add_up(1.0, -(2f64.powi(-60))), 1.0);
        assert_eq!(add_up(2f64.powi(-60), 1.0), 1f64.next_up());
        // Flows in and out: a link's sum covers its live flows' fractions.
        let mut c = Candidates::new(2, 0.0);
        let usage = |a: f64| vec![(1, a)];
        c.rebuild(&[1.0, 1.0], &[1.0, 0.0], |_| None, &[0.0; 3]);
        for (f, a) in [(0, 0.1), (1, 1.0 / 3.0), (2, 0.7)] {
            c.set_flow(f, &usage(a));
        }
        c.clear_flow(1);
        assert!(c.frac_sum[1] >= 0.1 + 0.7 && c.frac_sum[1] < 0.8 + 1e-6, "{}", c.frac_sum[1]);
        c.clear_flow(0);
        c.clear_flow(2);
        assert!(c.frac_sum[1] >= 0.0 && c.frac_sum[1] < 1e-6);
    }

    #[test]
    fn the_lag_takes_half_the_least_room_and_picks_the_rises_past_it() {
        // Link 1 (not a candidate) carries 0.5 of 1 with fractions 0.5 + 0.25: room 0.5 over a
        // fraction sum of 0.75, so the lag is 1/3.
        let mut c = Candidates::new(2, 0.0);
        let usage = [vec![(0, 1.0), (1, 0.5)], vec![(1, 0.25)]];
        c.rebuild(&[1.0, 1.0], &[1.0, 0.5], |f| Some(&usage[f][..]), &[0.5, 1.0]);
        assert!((c.lag - 0.5 * (1.0 - SATURATED - 0.5) / 0.75).abs() < 1e-12, "{}", c.lag);
        assert_eq!(c.accounted, vec![0.5, 1.0]);
        // Flow 0 rises by 0.3 (within the lag), flow 1 by 0.4 (past it); the changed flow is
        // listed whatever its rise.
        let rate = [0.8, 1.4];
        assert_eq!(c.rises(&[0, 1], &rate, None).len(), 1);
        assert_eq!(c.rises(&[0, 1], &rate, Some(0)).len(), 2);
        c.account(&[0, 1], &rate, &c.rises(&[0, 1], &rate, None));
        assert_eq!(c.accounted, vec![0.5, 1.4]);
    }

    #[test]
    fn fractions_round_up() {
        for a in [0.1, 1.0 / 3.0, 0.7, 1.0, 1e-7] {
            assert!(round_up(a) as f64 >= a && (round_up(a) as f64 - a) < 1e-7 * a, "{a}");
        }
    }
}
