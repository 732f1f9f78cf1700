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
    /// Verification work arrays: per-link load increase, and the links that have one (the
    /// first `inc_count`; one place per link and a spare, see [`Self::add_increases`]).
    inc: Vec<f64>,
    inc_links: Vec<u32>,
    inc_count: usize,
}

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
            inc: vec![0.0; links],
            inc_links: vec![0; links + 1],
            inc_count: 0,
        }
    }

    /// Every link a candidate.
    pub fn make_all(&mut self) {
        self.all = true;
        self.is.iter_mut().for_each(|c| *c = true);
        self.usage = Vec::new();
        self.other = Vec::new();
    }

    /// Candidates from exact link loads: links with `used >= base * (1 - slack)`.
    /// `usage_of(f)` is flow f's usage, `None` for a dead id.
    pub fn rebuild(&mut self, base: &[f64], used: &[f64], usage_of: impl Fn(usize) -> Option<Vec<(u32, f64)>>, flows: usize) {
        if self.slack.is_infinite() {
            self.make_all();
            return;
        }
        self.all = false;
        for (l, c) in self.is.iter_mut().enumerate() {
            *c = used[l] >= base[l] * (1.0 - self.slack.max(SATURATED));
        }
        self.usage = Vec::with_capacity(flows);
        self.other = Vec::with_capacity(flows);
        for f in 0..flows {
            self.usage.push(Vec::new());
            self.other.push(Vec::new());
            if let Some(u) = usage_of(f) {
                self.set_flow(f, &u);
            }
        }
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
        }
        let (mut mine, mut rest) = (std::mem::take(&mut self.usage[f]), std::mem::take(&mut self.other[f]));
        mine.clear();
        rest.clear();
        for &(l, a) in usage {
            if self.is[l as usize] {
                mine.push((l, a));
            } else {
                rest.push((l, round_up(a)));
            }
        }
        (self.usage[f], self.other[f]) = (mine, rest);
    }

    /// Forgets flow `f` (removed).
    pub fn clear_flow(&mut self, f: usize) {
        if !self.all {
            self.usage[f].clear();
            self.other[f].clear();
        }
    }

    /// Makes `l` a candidate; `flows` are its (flow, fraction) entries.
    pub fn promote(&mut self, l: u32, flows: &[(u32, f64)]) {
        let li = l as usize;
        if self.is[li] {
            return;
        }
        self.is[li] = true;
        for &(g, a) in flows {
            self.usage[g as usize].push((l, a));
            let other = &mut self.other[g as usize];
            if let Some(k) = other.iter().position(|e| e.0 == l) {
                other.swap_remove(k);
            }
        }
    }

    /// For each (flow `f`, rate increase `dr > 0`) in `ups`, adds `a * dr` to the load
    /// increase of every non-candidate link of `f`. The entries stream from memory (on the
    /// sprayed torus about 80 per flow, a quarter of an arrival's time), so the lists of
    /// flows a few places ahead are prefetched, and a link met for the first time is noted
    /// without a branch: it is written at the next free place, which moves on only when the
    /// link's increase was still zero.
    pub fn add_increases(&mut self, ups: &[(u32, f64)]) {
        let (inc, links, other) = (&mut self.inc[..], &mut self.inc_links[..], &self.other[..]);
        let mut n = self.inc_count;
        for (i, &(f, dr)) in ups.iter().enumerate() {
            debug_assert!(dr > 0.0);
            if let Some(e) = ups.get(i + AHEAD).and_then(|&(g, _)| other[g as usize].first()) {
                prefetch(e);
            }
            for &(l, a) in &other[f as usize] {
                let li = l as usize;
                let before = inc[li];
                links[n] = l;
                n += (before == 0.0) as usize;
                inc[li] = before + a as f64 * dr;
            }
        }
        self.inc_count = n;
    }

    /// Takes the links with an increase and their increases, and resets them.
    pub fn take_increases(&mut self) -> Vec<(u32, f64)> {
        let links = &self.inc_links[..self.inc_count];
        let out = links.iter().map(|&l| (l, self.inc[l as usize])).collect();
        for &l in links {
            self.inc[l as usize] = 0.0;
        }
        self.inc_count = 0;
        out
    }
}

/// The smallest f32 at least `a` (for positive finite `a`), so sums of rounded fractions
/// bound the exact ones from above.
fn round_up(a: f64) -> f32 {
    let x = a as f32;
    if (x as f64) < a { x.next_up() } else { x }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebuild_picks_links_near_saturation_and_restricts_usage() {
        let mut c = Candidates::new(3, 0.1);
        let usage = [vec![(0, 1.0), (1, 0.5), (2, 0.5)], vec![(2, 1.0)]];
        c.rebuild(&[10.0, 10.0, 10.0], &[10.0, 8.0, 9.5], |f| Some(usage[f].clone()), 2);
        assert_eq!(c.is, vec![true, false, true]);
        assert_eq!(c.usage, vec![vec![(0, 1.0), (2, 0.5)], vec![(2, 1.0)]]);
        assert_eq!(c.other, vec![vec![(1, 0.5f32)], vec![]]);
        c.promote(1, &[(0, 0.5)]);
        assert_eq!(c.usage[0], vec![(0, 1.0), (2, 0.5), (1, 0.5)]);
        assert!(c.other[0].is_empty());
        c.clear_flow(1);
        assert!(c.usage[1].is_empty());
        c.slack = f64::INFINITY;
        c.rebuild(&[10.0; 3], &[0.0; 3], |f| Some(usage[f].clone()), 2);
        assert!(c.all && c.is.iter().all(|&x| x));
    }

    #[test]
    fn increases_add_up_on_non_candidate_links_only() {
        let mut c = Candidates::new(3, 0.0);
        let usage = [vec![(0, 1.0), (1, 0.5)], vec![(1, 1.0), (2, 0.25)]];
        c.rebuild(&[1.0; 3], &[1.0, 0.0, 0.0], |f| Some(usage[f].clone()), 2);
        c.add_increases(&[(0, 2.0), (1, 1.0)]);
        let mut inc = c.take_increases();
        inc.sort_by_key(|e| e.0);
        assert_eq!(inc, vec![(1, 2.0), (2, 0.25)]);
        assert!(c.take_increases().is_empty());
    }

    #[test]
    fn fractions_round_up() {
        for a in [0.1, 1.0 / 3.0, 0.7, 1.0, 1e-7] {
            assert!(round_up(a) as f64 >= a && (round_up(a) as f64 - a) < 1e-7 * a, "{a}");
        }
    }
}
