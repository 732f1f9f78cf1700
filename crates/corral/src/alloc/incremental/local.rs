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
//! update then falls back to that refill from the unchanged state.
//!
//! How far a change spreads shows early: the flows that fail the first round's check (its
//! fan-out) predict the rounds to come. On the fluid bench, updates whose first round failed
//! 0-3 flows read ~210 entries in all when resolved, 4-7 flows ~1,200 and 12-15 flows ~2,500,
//! and 0.5 %, 15 % and 79 % of them ran past their budget. So the local refill keeps running
//! means, in entries read, of what the refill from the divergence level costs and, per
//! fan-out, of what going on past the first round cost (plus that refill where it gave up
//! later), and stops after the first round where going on has cost more (one such update in
//! [`EXPLORE_EVERY`] goes on, to keep measuring). Both paths give the max-min rates, so this
//! choice moves only rounding. After giving up on several updates in a row (on a sprayed
//! torus it always does), it pauses for a growing number of updates. Single priority level
//! only.

use super::Allocator;
use crate::alloc::candidates::SATURATED;
use crate::alloc::problem::Bottleneck;
use crate::alloc::waterfill::{fill, Out};

/// Relative margin by which one level must exceed another, or a load fall short of (or pass)
/// capacity, to fail the check. Tighter than the 1e-9 of the exactness tests: a failure
/// found wrongly only makes S larger.
const EPS: f64 = 1e-12;

/// Longest pause (in updates) of the local refill after giving up on several updates in a
/// row.
const MAX_BACKOFF: u32 = 256;

/// First-round fan-outs told apart by the early give-up (the fan-out: the flows that failed
/// the first round's check, a flow counted once per link it failed on); larger ones share
/// the last class.
const FAN_OUT_CLASSES: usize = 32;

/// Weight of a new sample in the running means of the early give-up.
const MEAN_WEIGHT: f64 = 1.0 / 16.0;

/// One update in this many of a fan-out class the early give-up would stop goes on anyway,
/// so that class's mean keeps up with the network's state.
const EXPLORE_EVERY: u32 = 8;

/// Work budget of a local refill beyond the live (link, flow) entries and the links.
const BUDGET_FLOOR: usize = 512;

/// A round whose bound on entries read is this many times the budget left is not started.
const OVERRUN: usize = 2;

/// Running mean with weight [`MEAN_WEIGHT`] for the new sample `x`; the first sample alone.
fn running_mean(mean: Option<f64>, x: f64) -> f64 {
    mean.map_or(x, |m| m + MEAN_WEIGHT * (x - m))
}

/// Work arrays and the give-up state of the local refill.
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
    /// Updates the local refill still sits out, and how many updates in a row it gave up on
    /// past its budget: a streak of n pauses it 2^(n-1) - 1 updates (0, 1, 3, 7, ... up to
    /// [`MAX_BACKOFF`]); resolving an update ends the streak, an early stop leaves it.
    skip: u32,
    streak: u32,
    /// The early give-up's running means, in entries read: what the refill from the
    /// divergence level costs, and per first-round fan-out class what going on past the
    /// first round cost (for an update given up on later, its wasted work plus that refill).
    /// `None` until measured.
    fallback_cost: Option<f64>,
    go_on_cost: [Option<f64>; FAN_OUT_CLASSES],
    /// Per class, updates the early give-up stopped (for [`EXPLORE_EVERY`]).
    stopped: [u32; FAN_OUT_CLASSES],
    /// Updates it resolved and gave up on, and of the latter those it stopped after the
    /// first round (for tests and benchmarks).
    pub resolved: u64,
    pub gave_up: u64,
    pub stopped_early: u64,
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

    fn outcome(&mut self, resolved: bool, stopped_early: bool) {
        if resolved {
            self.resolved += 1;
            self.streak = 0;
        } else if stopped_early {
            // Cheap by design: no pause.
            self.gave_up += 1;
            self.stopped_early += 1;
        } else {
            self.gave_up += 1;
            self.streak += 1;
            self.skip = ((1u64 << (self.streak - 1).min(31)) - 1).min(MAX_BACKOFF as u64) as u32;
        }
    }

    /// Notes the work (entries read) of a refill from the divergence level.
    pub fn fallback_done(&mut self, work: usize) {
        self.fallback_cost = Some(running_mean(self.fallback_cost, work as f64));
    }

    /// Whether to give up after a first round that failed `fan_out` flows: when going on
    /// from such a round has cost more, on average, than the refill from the divergence
    /// level (except every [`EXPLORE_EVERY`]th time, to keep measuring).
    fn stop_early(&mut self, fan_out: usize) -> bool {
        let c = fan_out.min(FAN_OUT_CLASSES - 1);
        let (Some(go_on), Some(fallback)) = (self.go_on_cost[c], self.fallback_cost) else { return false };
        if go_on <= fallback {
            return false;
        }
        self.stopped[c] = self.stopped[c].wrapping_add(1);
        !self.stopped[c].is_multiple_of(EXPLORE_EVERY)
    }

    /// Notes what an update whose first round failed `fan_out` flows cost past that round.
    fn went_on(&mut self, fan_out: usize, work: usize, resolved: bool) {
        let c = fan_out.min(FAN_OUT_CLASSES - 1);
        let fallback = if resolved { 0.0 } else { self.fallback_cost.unwrap_or(0.0) };
        self.go_on_cost[c] = Some(running_mean(self.go_on_cost[c], work as f64 + fallback));
    }
}

impl Allocator {
    /// Tries the local refill of the single priority level `p` after a change: `first` is
    /// the flow added or whose demand changed, `links` those whose load or capacity changed
    /// without a flow of S on them (a departed flow's, a capacity change's). Returns false,
    /// with every rate as it was, once its fills and checks have read more than a budget of
    /// (link, flow) entries, or after a first round whose fan-out predicts more work than
    /// the refill from the divergence level.
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
        // The first round's fan-out once past it, and the work of the rounds after it.
        let mut fan_out: Option<usize> = None;
        let mut later_work = 0;
        let mut stopped_early = false;
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
            if fan_out.is_some() {
                later_work += work;
            }
            if failed.is_empty() {
                break true;
            }
            if work >= budget {
                break false;
            }
            if fan_out.is_none() {
                if self.local.stop_early(failed.len()) {
                    stopped_early = true;
                    break false;
                }
                fan_out = Some(failed.len());
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
        if let Some(f) = fan_out {
            self.local.went_on(f, later_work, resolved);
        }
        self.local.outcome(resolved, stopped_early);
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
        // A first give-up costs no pause: the next update tries, and gives up again.
        al.remove_flow(f).unwrap();
        assert_eq!(al.allocation().rate, before);
        assert_eq!(al.local.gave_up, 2);
        // The second in a row pauses 1 update, the third 3.
        let mut tried = Vec::new();
        for l in 3..10 {
            let g = al.local.gave_up;
            al.add_flow(FlowSpec::new(vec![(l, 1.0)])).unwrap();
            tried.push(al.local.gave_up > g);
        }
        assert_eq!(tried, [false, true, false, false, false, true, false]);
        assert_exact(&al);
        // Resolving an update ends the streak.
        al.local.budget = None;
        al.local.skip = 0;
        al.add_flow(FlowSpec::new(vec![(11, 1.0)])).unwrap();
        assert_eq!(al.local.resolved, 1);
        assert_eq!(al.local.streak, 0);
    }

    #[test]
    fn it_stops_after_the_first_round_where_going_on_cost_more_than_the_fallback() {
        let mut local = super::Local::default();
        // Nothing measured yet: it goes on.
        assert!(!local.stop_early(5));
        local.fallback_done(100);
        assert!(!local.stop_early(5));
        // Going on from a fan-out of 5 resolved for 40 entries, then gave up after 150 (so
        // 150 plus the fallback's 100): the mean passes 100.
        local.went_on(5, 40, true);
        assert!(!local.stop_early(5));
        local.went_on(5, 150, false);
        assert_eq!(local.go_on_cost[5], Some(40.0 + (250.0 - 40.0) / 16.0));
        for _ in 0..20 {
            local.went_on(5, 150, false);
        }
        // Other fan-outs are apart, and fan-outs past the last class share it.
        assert!(!local.stop_early(4));
        local.went_on(100, 500, true);
        assert_eq!(local.go_on_cost[super::FAN_OUT_CLASSES - 1], Some(500.0));
        // Stopped, but every 8th such update goes on to keep measuring.
        let stops: Vec<bool> = (0..16).map(|_| local.stop_early(5)).collect();
        assert_eq!(stops.iter().filter(|&&s| !s).count(), 2);
        assert!(!stops[7] && !stops[15]);
        // A costlier fallback makes going on worth it again.
        local.fallback_done(10_000);
        assert!(!local.stop_early(5));
    }

    #[test]
    fn an_update_stopped_early_is_done_exactly_without_a_pause() {
        // A chain where an arrival's first round fails several flows; teach the local refill
        // that going on from that fan-out costs more than the fallback.
        let mut al = chain(12);
        al.local.fallback_done(1);
        for c in 0..super::FAN_OUT_CLASSES {
            al.local.went_on(c, 1_000, true);
        }
        // (Not an update that goes on to keep measuring.)
        al.local.stopped = [1; super::FAN_OUT_CLASSES];
        let f = al.add_flow(FlowSpec::new(vec![(2, 1.0), (3, 1.0)])).unwrap();
        assert_eq!((al.local.resolved, al.local.gave_up, al.local.stopped_early), (0, 1, 1));
        assert_exact(&al);
        assert_eq!(al.local.skip, 0);
        al.remove_flow(f).unwrap();
        assert_exact(&al);
    }
}
