//! Local refill of the incremental allocator: after a change, refill only the flows whose
//! rates must move, found by checking the max-min optimality condition around them.
//!
//! A feasible allocation is max-min fair exactly when every flow is at its demand or has a
//! bottleneck: a saturated link on which no flow has a higher fill level (rate over weight)
//! than it has. This is the condition HCC's incremental algorithm (section III-A) keeps
//! through its bottleneck-flow graph, and the allocation it describes is unique. So the
//! refill can start from the changed flow alone (none for a departure or a capacity change)
//! and grow: the set S is filled from level 0 on the capacity the other flows leave, at their
//! current rates, and the links S crosses (plus those of a departed flow or whose capacity
//! changed) are checked:
//!
//! - a flow outside S whose bottleneck is such a link needs it still saturated, and no flow
//!   of S above its level there;
//! - a flow of S frozen on a link needs no flow outside S above its level there;
//! - a link over its capacity (a capacity cut) needs all its flows refilled.
//!
//! Every flow that fails joins S and the fill is redone. When nothing fails, each flow has a
//! bottleneck and the loads fit: the allocation is the max-min one, with only S's rates
//! moved. Flows whose bottleneck links S does not cross keep a valid bottleneck, since
//! neither the load nor the levels there changed.
//!
//! On the fluid bench's k=8 fat-tree an update changes about 15 flows' rates while the refill
//! from the divergence level ([`super`]) redoes about 126. Where a change spreads far (flows
//! sprayed over a torus change half of all rates on an arrival), S outgrows a budget; the
//! update then falls back to that refill from the unchanged state, and the local refill
//! backs off for a while. Single priority level only.

use super::Allocator;
use crate::alloc::candidates::SATURATED;
use crate::alloc::problem::Bottleneck;
use crate::alloc::waterfill::{fill, Out};

/// Relative margin by which one level must exceed another, or a load fall short of (or pass)
/// capacity, to fail the check. Tighter than the 1e-9 of the exactness tests: a failure
/// found wrongly only makes S larger.
const EPS: f64 = 1e-12;

/// First and longest pause (in updates) of the local refill after it gave up.
const MIN_BACKOFF: u32 = 4;
const MAX_BACKOFF: u32 = 256;

/// Work budget of a local refill beyond the live (link, flow) entries and the links.
const BUDGET_FLOOR: usize = 512;

/// A round whose bound on entries read is this many times the budget left is not started.
const OVERRUN: usize = 2;

/// Work arrays and the back-off state of the local refill.
#[derive(Default)]
pub(super) struct Local {
    /// Flow id -> in S.
    in_s: Vec<bool>,
    /// Link -> the pass that last saw it, to visit each link once per pass.
    seen: Vec<u32>,
    /// Link -> the update whose fills last set its remaining capacity: a fill leaves the
    /// next one's remaining capacity on the links it touched, so only new links are summed.
    rem_set: Vec<u32>,
    round: u32,
    /// (link, flow) entries of the live flows, which with the links set the work budget.
    pub entries: usize,
    /// A fixed work budget in place of the one from `entries` (tests).
    pub budget: Option<usize>,
    /// Updates the local refill still sits out, and the length of the last pause: doubled
    /// (from [`MIN_BACKOFF`] up to [`MAX_BACKOFF`]) when it gives up, back to 0 when it
    /// resolves an update.
    skip: u32,
    backoff: u32,
    /// Updates it resolved and gave up on (for tests and benchmarks).
    pub resolved: u64,
    pub gave_up: u64,
}

impl Local {
    /// Whether this update tries the local refill (false during a pause after giving up).
    pub fn try_now(&mut self) -> bool {
        if self.skip > 0 {
            self.skip -= 1;
            return false;
        }
        true
    }

    /// A new pass over links; after 2^32 passes the marks start again from zero.
    fn next_round(&mut self) -> u32 {
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.seen.iter_mut().for_each(|x| *x = 0);
            self.rem_set.iter_mut().for_each(|x| *x = 0);
            self.round = 1;
        }
        self.round
    }

    fn outcome(&mut self, resolved: bool) {
        if resolved {
            self.resolved += 1;
            self.backoff = 0;
        } else {
            self.gave_up += 1;
            self.backoff = (self.backoff * 2).clamp(MIN_BACKOFF, MAX_BACKOFF);
            self.skip = self.backoff;
        }
    }
}

impl Allocator {
    /// Tries the local refill of the single priority level `p` after a change: `first` is
    /// the flow added or whose demand changed, `links` those whose load or capacity changed
    /// without a flow of S on them (a departed flow's, a capacity change's). Returns false,
    /// with every rate as it was, once its fills and checks have read more than a budget of
    /// (link, flow) entries.
    pub(super) fn local_refill(&mut self, p: u8, first: Option<u32>, links: &[u32]) -> bool {
        let nf = self.specs.len();
        self.local.in_s.resize(nf, false);
        self.local.seen.resize(self.capacity.len(), 0);
        self.local.rem_set.resize(self.capacity.len(), 0);
        let update = self.local.next_round();
        // Work, in (link, flow) entries read: as many as there are plus one per link (the
        // refill it falls back to makes passes over all links), plus a floor.
        let mut budget = self.local.budget.unwrap_or(self.local.entries + self.capacity.len() + BUDGET_FLOOR);
        // A round reads S's entries and, on each link, its flows' entries: at most S's entries
        // times one plus the mean flows per link (less where S's links overlap).
        let per_entry = 1.0 + self.local.entries as f64 / self.capacity.len().max(1) as f64;
        let mut s: Vec<u32> = Vec::new();
        let mut s_entries = 0;
        // Old (rate, level, bottleneck) of S's flows, to restore on giving up.
        let mut saved: Vec<(f64, f64, Bottleneck)> = Vec::new();
        // Puts g in S; returns its entries if it was not there.
        let mut join = |al: &mut Allocator, s: &mut Vec<u32>, g: u32| {
            let gi = g as usize;
            if al.local.in_s[gi] {
                return 0;
            }
            al.local.in_s[gi] = true;
            s.push(g);
            saved.push((al.rate[gi], al.level[gi], al.bottleneck[gi]));
            al.specs[gi].usage.len()
        };
        if let Some(f) = first {
            s_entries += join(self, &mut s, f);
        }
        let mut failed: Vec<u32> = Vec::new();
        let mut check: Vec<u32> = Vec::new();
        let resolved = loop {
            // Give up before a round that would far overrun the budget (on a sprayed torus S
            // takes hundreds of flows of ~86 links each in its first round).
            if s_entries as f64 * per_entry > (OVERRUN * budget) as f64 {
                break false;
            }
            check.clear();
            let mut work = 0;
            if !s.is_empty() {
                work += self.fill_local(p, &s, update);
                check.extend_from_slice(&self.scratch.touched);
            }
            check.extend_from_slice(links);
            failed.clear();
            work += self.check_links(p, &check, update, &mut failed);
            if failed.is_empty() {
                break true;
            }
            if work >= budget {
                break false;
            }
            budget -= work;
            for &g in &failed {
                s_entries += join(self, &mut s, g);
            }
        };
        for (&g, &old) in s.iter().zip(&saved) {
            let gi = g as usize;
            self.local.in_s[gi] = false;
            if !resolved {
                (self.rate[gi], self.level[gi], self.bottleneck[gi]) = old;
            }
        }
        self.local.outcome(resolved);
        if !resolved {
            return false;
        }
        // Loads where they changed, exact. As after the refill from the divergence level, no
        // link outside the candidates is left saturated: a link a flow of S froze on, or one
        // that S filled up, becomes a candidate; so does one too near capacity for the lag
        // of the candidates' check.
        let lv = self.levels.get_mut(&p).unwrap();
        let mut full: Vec<u32> = Vec::new();
        for &l in &check {
            let li = l as usize;
            lv.used[li] = load_at(&self.link_flows[li], &self.rate);
            if lv.used[li] + self.cand.lag_load(li) >= lv.base[li] * (1.0 - SATURATED) {
                full.push(l);
            }
        }
        if !self.cand.all {
            // Every link of S's flows now counts them at their rates.
            for &g in &s {
                self.cand.accounted[g as usize] = self.rate[g as usize];
            }
        }
        full.extend(s.iter().filter_map(|&g| match self.bottleneck[g as usize] {
            Bottleneck::Link(l) => Some(l),
            Bottleneck::Demand => None,
        }));
        for l in full {
            self.promote(l, p, 0.0);
        }
        if self.tracking && !self.refilled_all {
            self.refilled.extend_from_slice(&s);
        }
        true
    }

    /// Fills the flows `s` of level `p` from level 0 on their whole usage, on the capacity the
    /// other flows leave at their current rates. Returns the entries it read.
    ///
    /// `self.rem` must hold base minus the load at current rates; that is what the fills of
    /// this `update` left on the links they touched, and it is summed on the others.
    fn fill_local(&mut self, p: u8, s: &[u32], update: u32) -> usize {
        let base = &self.levels[&p].base;
        let mut work = 0;
        for &g in s {
            let usage = &self.specs[g as usize].usage;
            work += usage.len();
            for &(l, _) in usage {
                let li = l as usize;
                if self.local.rem_set[li] != update {
                    self.local.rem_set[li] = update;
                    work += self.link_flows[li].len();
                    self.rem[li] = base[li] - load_at(&self.link_flows[li], &self.rate);
                }
            }
        }
        let mut out = Out { rate: &mut self.rate, level: &mut self.level, bottleneck: &mut self.bottleneck };
        fill(&self.specs, &self.specs[..], s, &mut self.rem, 0.0, true, &mut self.scratch, &mut out);
        work
    }

    /// Checks the optimality condition on `links` (repeats allowed) and puts the flows that
    /// fail it, and are not in S, in `failed`. Returns the entries it read. The load of a
    /// link a fill of this `update` touched is base minus its remaining capacity.
    fn check_links(&mut self, p: u8, links: &[u32], update: u32, failed: &mut Vec<u32>) -> usize {
        let round = self.local.next_round();
        let base = &self.levels[&p].base;
        let in_s = &self.local.in_s;
        let mut work = 0;
        for &l in links {
            let li = l as usize;
            if self.local.seen[li] == round {
                continue;
            }
            self.local.seen[li] = round;
            let on = &self.link_flows[li];
            work += on.len();
            let cap = base[li];
            let load = if self.local.rem_set[li] == update { cap - self.rem[li] } else { load_at(on, &self.rate) };
            if load > cap * (1.0 + EPS) + f64::MIN_POSITIVE {
                failed.extend(on.iter().map(|e| e.0).filter(|&g| !in_s[g as usize]));
                continue;
            }
            let saturated = load >= cap * (1.0 - EPS);
            // Highest level of S on the link, and lowest level of an S flow frozen on it.
            let (mut top_s, mut low_frozen) = (f64::NEG_INFINITY, f64::INFINITY);
            for &(g, _) in on {
                let gi = g as usize;
                if in_s[gi] {
                    top_s = top_s.max(self.level[gi]);
                    if self.bottleneck[gi] == Bottleneck::Link(l) {
                        low_frozen = low_frozen.min(self.level[gi]);
                    }
                }
            }
            for &(g, _) in on {
                let gi = g as usize;
                if in_s[gi] {
                    continue;
                }
                let t = self.level[gi];
                let frozen_here = self.bottleneck[gi] == Bottleneck::Link(l);
                if (frozen_here && (!saturated || top_s > t * (1.0 + EPS))) || t > low_frozen * (1.0 + EPS) {
                    failed.push(g);
                }
            }
        }
        work
    }
}

/// The load of a link's `(flow, fraction)` entries at the flows' `rate`s.
pub(super) fn load_at(on: &[(u32, f64)], rate: &[f64]) -> f64 {
    on.iter().map(|&(g, a)| a * rate[g as usize]).sum()
}

#[cfg(test)]
mod tests {
    use crate::alloc::{Allocator, Bottleneck, FlowSpec, Problem};

    /// A chain of links 0..n of capacity 10, flow i on links i and i+1, and a flow alone on
    /// each link.
    fn chain(n: u32) -> Allocator {
        let mut flows: Vec<FlowSpec> = (0..n - 1).map(|i| FlowSpec::new(vec![(i, 1.0), (i + 1, 1.0)])).collect();
        flows.extend((0..n).map(|l| FlowSpec::new(vec![(l, 1.0)])));
        Allocator::new(Problem { capacity: vec![10.0; n as usize], headroom: 0.0, flows }).unwrap()
    }

    fn assert_exact(al: &Allocator) {
        super::super::tests::assert_matches_a_solve_from_scratch(al, "after the update");
    }

    #[test]
    fn an_arrival_on_an_idle_link_refills_only_itself() {
        // Two links; flows 0 and 1 share link 0, link 1 is idle. A flow on link 1 alone
        // changes no other rate: S is that flow, and nothing else is refilled.
        let mut al = Allocator::new(Problem { capacity: vec![10.0, 10.0], headroom: 0.0, flows: vec![FlowSpec::new(vec![(0, 1.0)]); 2] }).unwrap();
        al.take_refilled();
        let f = al.add_flow(FlowSpec::new(vec![(1, 1.0)])).unwrap();
        assert_eq!((al.local.resolved, al.local.gave_up), (1, 0));
        assert_eq!(al.take_refilled(), Some(vec![f]));
        assert_eq!((al.rate(f), al.bottleneck(f)), (Some(10.0), Some(Bottleneck::Link(1))));
        assert_eq!(al.rate(0), Some(5.0));
    }

    #[test]
    fn a_change_reaches_along_bottlenecks_and_stops_where_rates_do_not_move() {
        // On link 2 of a chain, a new flow takes a share from the flows bottlenecked there,
        // which frees capacity next door, and so on: S grows over several rounds, stays
        // exact, and leaves out the flows the change does not reach.
        let mut al = chain(12);
        al.take_refilled();
        let f = al.add_flow(FlowSpec::new(vec![(2, 1.0)])).unwrap();
        assert_eq!((al.local.resolved, al.local.gave_up), (1, 0));
        assert_exact(&al);
        let refilled = al.take_refilled().unwrap();
        assert!(refilled.contains(&f) && refilled.len() < al.flow_ids().len(), "{refilled:?}");
        // The departure undoes it, locally too.
        al.remove_flow(f).unwrap();
        assert_eq!(al.local.resolved, 2);
        assert_exact(&al);
    }

    #[test]
    fn past_its_budget_it_gives_up_restores_the_rates_and_pauses() {
        let mut al = chain(12);
        al.local.budget = Some(0);
        let before = al.allocation().rate;
        let f = al.add_flow(FlowSpec::new(vec![(2, 1.0)])).unwrap();
        // Given up after its first round; the refill from the divergence level did the update.
        assert_eq!((al.local.resolved, al.local.gave_up), (0, 1));
        assert_exact(&al);
        // The next 4 updates sit out, the one after tries again and gives up.
        al.remove_flow(f).unwrap();
        assert_eq!(al.allocation().rate, before);
        for l in [5, 6, 7] {
            al.add_flow(FlowSpec::new(vec![(l, 1.0)])).unwrap();
        }
        assert_eq!(al.local.gave_up, 1);
        al.add_flow(FlowSpec::new(vec![(8, 1.0)])).unwrap();
        assert_eq!(al.local.gave_up, 2);
        assert_exact(&al);
    }
}
