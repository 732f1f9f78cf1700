//! Incremental max-min allocation, after HCC's incremental algorithm (section III-A,
//! "Incremental max-min fairness algorithm"): when a flow arrives or leaves, or a demand or a
//! capacity changes, only the part of the allocation the change can reach is recomputed.
//!
//! Progressive filling is a sequence of freeze events at rising fill levels `t`. A change
//! touches a set S of links (the flow's links, or the link whose capacity changed). Below the
//! first level at which the new problem would saturate a link of S, or the old one did, the
//! two runs make the same events; so every flow frozen strictly below that level keeps its
//! rate, and only the others are refilled, starting from that level with the capacity the
//! kept flows leave (base minus used, with the refilled flows' old rates given back inside
//! the fill's first pass). The level is found per link of S from the piecewise-linear load
//! `sum_f a_fl * min(r_f, w_f * t)`. Lower priority levels are then redone the same way on
//! the links whose leftover capacity changed. The result equals a from-scratch solve up to
//! floating-point rounding (tests check 1e-9 relative).
//!
//! With a single priority level, an update first tries the level-ordered refill
//! (`incremental/ordered.rs`), which follows the new filling in level order and moves only the flows whose
//! old course stops holding, and gives up past a work budget; the refill above then reads
//! the flows' entries on candidate links only (`alloc/candidates.rs`: the saturated links and
//! those near saturation) and then checks the other links. With several levels it reads
//! every link.
//!
//! How local this is depends on the coupling: with flows sprayed over all minimal paths of a
//! torus (~86 links each), one arrival changes the exact rate of a large share of the flows
//! above its level (`examples/alloc_bench.rs` counts them: median 47 % of 10k flows); the
//! candidate links make refilling them cheap.

mod ordered;

use super::candidates::{Candidates, REBUILD_EVERY, SATURATED};
use super::problem::{Allocation, Bottleneck, Problem, ProblemFlow};
use super::waterfill::{fill, Lists, Out, Scratch};
use crate::error::{config_err, Result};
use std::collections::BTreeMap;

/// Per priority level: the capacity left to it by higher levels, and what it uses.
struct Level {
    /// Live flows of this priority, ascending.
    flows: Vec<u32>,
    base: Vec<f64>,
    used: Vec<f64>,
}

/// A max-min allocation kept up to date under changes.
pub struct Allocator {
    capacity: Vec<f64>,
    headroom: f64,
    specs: Vec<ProblemFlow>,
    alive: Vec<bool>,
    free: Vec<u32>,
    /// Link -> (flow, fraction) of live flows.
    link_flows: Vec<Vec<(u32, f64)>>,
    levels: BTreeMap<u8, Level>,
    rate: Vec<f64>,
    level: Vec<f64>,
    bottleneck: Vec<Bottleneck>,
    scratch: Scratch,
    rem: Vec<f64>,
    cand: Candidates,
    /// Flows whose rate the updates since [`Allocator::take_refilled`] may have changed,
    /// kept once a caller asks for them; `refilled_all`: any flow, after a solve from scratch.
    tracking: bool,
    refilled: Vec<u32>,
    refilled_all: bool,
    /// The level-ordered refill's work arrays and back-off ([`ordered`]).
    ordered: ordered::Ordered,
}

/// Default [`Allocator::set_candidate_slack`].
pub const CANDIDATE_SLACK: f64 = 0.01;

/// A removed flow: priority, usage, old rate and level.
type Removed = (u8, Vec<(u32, f64)>, f64, f64);

/// What changed, for [`Allocator::reflow`].
struct Change {
    /// Links whose capacity changed.
    links: Vec<u32>,
    /// Flow added or whose demand changed (live now), with its previous level if it had one.
    flow: Option<(u32, Option<f64>)>,
    /// Removed flow.
    removed: Option<Removed>,
    priority: u8,
}

impl Allocator {
    /// Solves `p` from scratch and keeps the state for updates.
    pub fn new(p: Problem) -> Result<Allocator> {
        p.validate()?;
        let nl = p.capacity.len();
        let nf = p.flows.len();
        let mut deg = vec![0usize; nl];
        for spec in &p.flows {
            for &(l, _) in &spec.usage {
                deg[l as usize] += 1;
            }
        }
        let mut link_flows: Vec<Vec<(u32, f64)>> =
            deg.iter().map(|&d| Vec::with_capacity(d)).collect();
        let mut levels: BTreeMap<u8, Level> = BTreeMap::new();
        for (f, spec) in p.flows.iter().enumerate() {
            for &(l, a) in &spec.usage {
                link_flows[l as usize].push((f as u32, a));
            }
            levels
                .entry(spec.priority)
                .or_insert_with(|| Level { flows: Vec::new(), base: Vec::new(), used: Vec::new() })
                .flows
                .push(f as u32);
        }
        let mut al = Allocator {
            capacity: p.capacity,
            headroom: p.headroom,
            specs: p.flows,
            alive: vec![true; nf],
            free: Vec::new(),
            link_flows,
            levels,
            rate: vec![0.0; nf],
            level: vec![0.0; nf],
            bottleneck: vec![Bottleneck::Demand; nf],
            scratch: Scratch::default(),
            rem: vec![0.0; nl],
            cand: Candidates::new(nl, CANDIDATE_SLACK),
            tracking: false,
            refilled: Vec::new(),
            refilled_all: true,
            ordered: ordered::Ordered::default(),
        };
        al.ordered.entries = al.link_flows.iter().map(Vec::len).sum();
        al.solve_all();
        Ok(al)
    }

    /// Sets the fraction of capacity within which an unsaturated link is a candidate of the
    /// refill (default [`CANDIDATE_SLACK`]), and rebuilds the candidates. 0 takes only the
    /// saturated links, so more updates need a second pass; infinity takes every link (the
    /// plain refill). Results do not depend on it.
    pub fn set_candidate_slack(&mut self, slack: f64) -> Result<()> {
        if slack.is_nan() || slack < 0.0 {
            return Err(config_err("candidate_slack", format!("must be >= 0, got {slack}")));
        }
        self.cand.slack = slack;
        self.rebuild_candidates();
        Ok(())
    }

    /// The load of priority `p` on link `l`, summed from its flows' current rates.
    fn exact_use(&self, l: usize, p: u8) -> f64 {
        self.link_flows[l]
            .iter()
            .filter(|&&(g, _)| self.specs[g as usize].priority == p)
            .map(|&(g, a)| a * self.rate[g as usize])
            .sum()
    }

    /// Recomputes the candidates from exact loads: only with a single priority level.
    fn rebuild_candidates(&mut self) {
        if self.levels.len() > 1 {
            self.cand.make_all();
            return;
        }
        let nl = self.capacity.len();
        let Some((&p, _)) = self.levels.iter().next() else {
            self.cand.rebuild(&vec![0.0; nl], &vec![0.0; nl], |_| None, &[]);
            return;
        };
        let used: Vec<f64> = (0..nl).map(|l| self.exact_use(l, p)).collect();
        let lv = self.levels.get_mut(&p).unwrap();
        lv.used.clone_from(&used);
        let (specs, alive) = (&self.specs, &self.alive);
        self.cand.rebuild(&lv.base, &used, |f| alive[f].then_some(&specs[f].usage[..]), &self.rate);
    }

    /// Leaves candidate mode: every link a candidate, with exact loads.
    fn all_candidates(&mut self) {
        if self.cand.all {
            return;
        }
        let nl = self.capacity.len();
        let keys: Vec<u8> = self.levels.keys().copied().collect();
        for p in keys {
            let used: Vec<f64> = (0..nl).map(|l| self.exact_use(l, p)).collect();
            self.levels.get_mut(&p).unwrap().used = used;
        }
        self.cand.make_all();
    }

    /// Makes `l` a candidate with its exact load (of the single level `p`), plus `extra`.
    fn promote(&mut self, l: u32, p: u8, extra: f64) {
        if self.cand.is[l as usize] || !self.levels.contains_key(&p) {
            return;
        }
        let u = self.exact_use(l as usize, p) + extra;
        self.levels.get_mut(&p).unwrap().used[l as usize] = u;
        self.cand.promote(l, &self.link_flows[l as usize]);
    }

    /// In candidate mode, a flow `f` without a demand must have a candidate link to stop at:
    /// if it has none, the one of its links with the least slack becomes one.
    fn give_candidate(&mut self, f: u32) {
        let fi = f as usize;
        let spec = &self.specs[fi];
        if self.cand.all
            || spec.demand.is_finite()
            || spec.usage.is_empty()
            || !self.cand.usage[fi].is_empty()
        {
            return;
        }
        let p = spec.priority;
        let base = &self.levels[&p].base;
        let l = spec
            .usage
            .iter()
            .map(|&(l, _)| (base[l as usize] - self.exact_use(l as usize, p), l))
            .min_by(|x, y| x.0.total_cmp(&y.0))
            .unwrap()
            .1;
        self.promote(l, p, 0.0);
    }

    fn effective(&self, l: usize) -> f64 {
        self.capacity[l] * (1.0 - self.headroom)
    }

    /// The flows whose rate the updates since the last call may have changed, a superset of
    /// those that did (`None`: any flow may have, after a solve from scratch). Lets a caller
    /// that keeps per-flow state touch only those.
    pub fn take_refilled(&mut self) -> Option<Vec<u32>> {
        self.tracking = true;
        let set = std::mem::take(&mut self.refilled);
        (!std::mem::take(&mut self.refilled_all)).then_some(set)
    }

    /// Recomputes everything from scratch.
    pub fn solve_all(&mut self) {
        self.refilled_all = true;
        self.refilled.clear();
        let nl = self.capacity.len();
        let mut base: Vec<f64> = (0..nl).map(|l| self.effective(l)).collect();
        let keys: Vec<u8> = self.levels.keys().copied().collect();
        for p in keys {
            let lv = self.levels.get_mut(&p).unwrap();
            self.rem.copy_from_slice(&base);
            let mut out = Out {
                rate: &mut self.rate,
                level: &mut self.level,
                bottleneck: &mut self.bottleneck,
            };
            fill(
                &self.specs,
                &self.specs[..],
                &lv.flows,
                &mut self.rem,
                0.0,
                false,
                &mut self.scratch,
                &mut out,
            );
            lv.used = vec![0.0; nl];
            for &l in &self.scratch.touched {
                lv.used[l as usize] = base[l as usize] - self.rem[l as usize];
            }
            lv.base = base.clone();
            for (b, u) in base.iter_mut().zip(&lv.used) {
                *b -= u;
            }
        }
        self.cand.since_rebuild = 0;
        self.rebuild_candidates();
    }

    pub fn allocation(&self) -> Allocation {
        let ids = self.flow_ids();
        Allocation {
            rate: ids.iter().map(|&f| self.rate[f as usize]).collect(),
            bottleneck: ids.iter().map(|&f| self.bottleneck[f as usize]).collect(),
        }
    }

    /// Live flow ids, ascending.
    pub fn flow_ids(&self) -> Vec<u32> {
        (0..self.specs.len() as u32).filter(|&f| self.alive[f as usize]).collect()
    }

    /// The problem the allocator holds now, live flows in id order (for checking against a
    /// from-scratch solve).
    pub fn problem(&self) -> Problem {
        Problem {
            capacity: self.capacity.clone(),
            headroom: self.headroom,
            flows: self.flow_ids().iter().map(|&f| self.specs[f as usize].clone()).collect(),
        }
    }

    /// Every link's capacity, by link id.
    pub fn capacities(&self) -> &[f64] {
        &self.capacity
    }

    pub fn rate(&self, f: u32) -> Option<f64> {
        self.alive.get(f as usize).copied().unwrap_or(false).then(|| self.rate[f as usize])
    }

    pub fn bottleneck(&self, f: u32) -> Option<Bottleneck> {
        self.alive.get(f as usize).copied().unwrap_or(false).then(|| self.bottleneck[f as usize])
    }

    /// How many updates the level-ordered refill (`incremental/ordered.rs`) resolved and how many it gave
    /// up on (each then done by the refill from the divergence level), since the start.
    pub fn ordered_refills(&self) -> (u64, u64) {
        (self.ordered.resolved, self.ordered.gave_up)
    }

    pub fn links(&self) -> usize {
        self.capacity.len()
    }

    fn check_flow(&self, f: u32, key: &str) -> Result<()> {
        if self.alive.get(f as usize).copied().unwrap_or(false) {
            Ok(())
        } else {
            Err(config_err(key, format!("no live flow with id {f}")))
        }
    }

    /// Adds a flow and returns its id (the most recently freed id is reused first). A link
    /// given twice uses the sum of its fractions and zero fractions are dropped
    /// ([`ProblemFlow::merge_usage`]).
    pub fn add_flow(&mut self, mut spec: ProblemFlow) -> Result<u32> {
        spec.merge_usage(0, self.capacity.len())
            .and_then(|_| spec.validate_merged(0, self.capacity.len()))
            .map_err(|e| match e {
                crate::Error::Config { path, msg } => {
                    config_err(path.replacen("flows[0]", "flow", 1), msg)
                }
                e => e,
            })?;
        let f = match self.free.pop() {
            Some(f) => {
                self.specs[f as usize] = spec;
                self.alive[f as usize] = true;
                f
            }
            None => {
                self.specs.push(spec);
                self.alive.push(true);
                self.rate.push(0.0);
                self.level.push(0.0);
                self.bottleneck.push(Bottleneck::Demand);
                self.specs.len() as u32 - 1
            }
        };
        let spec = &self.specs[f as usize];
        for &(l, a) in &spec.usage {
            self.link_flows[l as usize].push((f, a));
        }
        self.ordered.entries += spec.usage.len();
        let p = spec.priority;
        let nl = self.capacity.len();
        let new_level = !self.levels.contains_key(&p);
        if new_level && !self.levels.is_empty() {
            // Several priority levels: every link a candidate.
            self.all_candidates();
        }
        self.cand.set_flow(f as usize, &self.specs[f as usize].usage);
        if new_level {
            // The new level's base is what the level above leaves.
            let mut base: Vec<f64> = (0..nl).map(|l| self.effective(l)).collect();
            for (_, lv) in self.levels.range(..p) {
                for (l, b) in base.iter_mut().enumerate() {
                    *b = lv.base[l] - lv.used[l];
                }
            }
            self.levels.insert(p, Level { flows: Vec::new(), base, used: vec![0.0; nl] });
        }
        let lv = self.levels.get_mut(&p).unwrap();
        let pos = lv.flows.binary_search(&f).unwrap_err();
        lv.flows.insert(pos, f);
        self.give_candidate(f);
        self.reflow(Change {
            links: Vec::new(),
            flow: Some((f, None)),
            removed: None,
            priority: p,
        });
        Ok(f)
    }

    /// Removes flow `f`.
    pub fn remove_flow(&mut self, f: u32) -> Result<()> {
        self.check_flow(f, "flow")?;
        let fi = f as usize;
        self.alive[fi] = false;
        self.free.push(f);
        let usage = std::mem::take(&mut self.specs[fi].usage);
        self.ordered.entries -= usage.len();
        let accounted = self.cand.clear_flow(fi);
        for &(l, _) in &usage {
            let v = &mut self.link_flows[l as usize];
            let i = v.iter().position(|e| e.0 == f).unwrap();
            v.swap_remove(i);
        }
        let p = self.specs[fi].priority;
        let lv = self.levels.get_mut(&p).unwrap();
        let pos = lv.flows.binary_search(&f).unwrap();
        lv.flows.remove(pos);
        if !self.cand.all {
            // The loads (upper bounds) of its non-candidate links count it at its accounted rate.
            for &(l, a) in &usage {
                if !self.cand.is[l as usize] {
                    lv.used[l as usize] = (lv.used[l as usize] - a * accounted).max(0.0);
                }
            }
        }
        let (r, t) = (self.rate[fi], self.level[fi]);
        self.rate[fi] = 0.0;
        self.reflow(Change {
            links: Vec::new(),
            flow: None,
            removed: Some((p, usage, r, t)),
            priority: p,
        });
        Ok(())
    }

    /// Sets flow `f`'s demand (`f64::INFINITY` for none).
    pub fn set_demand(&mut self, f: u32, demand: f64) -> Result<()> {
        self.check_flow(f, "flow")?;
        if demand.is_nan() || demand < 0.0 {
            return Err(config_err(
                "demand",
                format!("must be >= 0 (or infinite for none), got {demand}"),
            ));
        }
        let fi = f as usize;
        if self.specs[fi].usage.is_empty() && demand.is_infinite() {
            return Err(config_err("demand", "the flow uses no link: its demand must be finite"));
        }
        self.specs[fi].demand = demand;
        let p = self.specs[fi].priority;
        self.give_candidate(f);
        self.reflow(Change {
            links: Vec::new(),
            flow: Some((f, Some(self.level[fi]))),
            removed: None,
            priority: p,
        });
        Ok(())
    }

    /// Sets link `l`'s capacity.
    pub fn set_capacity(&mut self, l: u32, capacity: f64) -> Result<()> {
        if l as usize >= self.capacity.len() {
            return Err(config_err(
                "link",
                format!("link {l} out of range: there are {} links", self.capacity.len()),
            ));
        }
        if !(capacity >= 0.0 && capacity.is_finite()) {
            return Err(config_err("capacity", format!("must be finite and >= 0, got {capacity}")));
        }
        self.capacity[l as usize] = capacity;
        let first = self.levels.keys().next().copied().unwrap_or(0);
        self.reflow(Change { links: vec![l], flow: None, removed: None, priority: first });
        Ok(())
    }

    /// Redoes the levels from `ch.priority` down, each from the first level its changes reach.
    fn reflow(&mut self, ch: Change) {
        self.reflow_levels(ch);
        // Now and then, a solve from scratch: candidates start again from exact loads, and
        // rounding that updates accumulate is cleared.
        self.cand.since_rebuild += 1;
        if self.cand.since_rebuild >= REBUILD_EVERY {
            self.solve_all();
        }
    }

    fn reflow_levels(&mut self, ch: Change) {
        if self.levels.len() == 1 && self.ordered.try_now() {
            // A single level: first the level-ordered refill, from the changed flow outwards.
            let p = ch.priority;
            for &l in &ch.links {
                self.levels.get_mut(&p).unwrap().base[l as usize] = self.effective(l as usize);
            }
            let removed = ch.removed.as_ref().map(|(_, u, r, _)| (&u[..], *r));
            if self.ordered_refill(p, ch.flow.map(|x| x.0), &ch.links, removed) {
                return;
            }
        }
        if !self.cand.all {
            // A link whose capacity changed is refilled as a candidate (its load exact).
            for &l in &ch.links {
                self.promote(l, ch.priority, 0.0);
            }
        }
        // Links whose base (capacity left by higher levels) changed, with their new base.
        let mut base_changed: Vec<u32> = ch.links.clone();
        // The work of this refill, for the level-ordered refill's budget: a pass over the
        // links and one over the level's flows, and each fill's two passes over its entries.
        let single = self.levels.len() == 1;
        let read_before = self.scratch.entries_read;
        let keys: Vec<u8> = self.levels.range(ch.priority..).map(|(k, _)| *k).collect();
        let mut prev: Option<u8> = self.levels.range(..ch.priority).next_back().map(|(k, _)| *k);
        for p in keys {
            // New base on changed links.
            for &l in &base_changed {
                let li = l as usize;
                let b = match prev {
                    None => self.effective(li),
                    Some(q) => {
                        let lq = &self.levels[&q];
                        lq.base[li] - lq.used[li]
                    }
                };
                self.levels.get_mut(&p).unwrap().base[li] = b;
            }
            prev = Some(p);
            let mine = ch.priority == p;
            let flow = if mine { ch.flow } else { None };
            let removed = if mine { ch.removed.as_ref() } else { None };
            let mut s_links = base_changed.clone();
            if let Some((f, _)) = flow {
                s_links.extend(self.specs[f as usize].usage.iter().map(|e| e.0));
            }
            if let Some((_, u, _, _)) = removed {
                s_links.extend(u.iter().map(|e| e.0));
            }
            s_links.sort_unstable();
            s_links.dedup();
            if s_links.is_empty() && flow.is_none() {
                continue;
            }
            let t_div = self.divergence(p, &s_links, flow, removed);
            // Flows to refill: every flow at or above the divergence level, and the changed one.
            let lv = &self.levels[&p];
            // About half of them pass, unpredictably.
            let changed = flow.map_or(u32::MAX, |x| x.0);
            let mut set = Vec::new();
            select_into(&mut set, &lv.flows, |g| {
                (self.level[g as usize] >= t_div) | (g == changed)
            });
            if self.tracking && !self.refilled_all {
                self.refilled.extend_from_slice(&set);
            }
            // Capacity the kept flows leave: base minus used, plus the removed flow's old use
            // and (given back inside `fill`) the refilled flows' old use.
            let lv = self.levels.get_mut(&p).unwrap();
            for (r, (b, u)) in self.rem.iter_mut().zip(lv.base.iter().zip(&lv.used)) {
                *r = b - u;
            }
            if let Some((_, u, r, _)) = removed {
                for &(l, a) in u {
                    self.rem[l as usize] += a * r;
                }
            }
            let t0 = if t_div.is_finite() { t_div } else { 0.0 };
            // Links whose use changed: the refilled flows' and the removed flow's. Lower levels
            // redo these and those whose base changed.
            let mut changed = self.refill(p, &set, t0, removed, flow.map(|x| x.0));
            changed.append(&mut base_changed);
            changed.sort_unstable();
            changed.dedup();
            base_changed = changed;
        }
        if single {
            let flows = self.levels.values().next().map_or(0, |lv| lv.flows.len());
            self.ordered.fallback_done(
                self.capacity.len() + flows + 2 * (self.scratch.entries_read - read_before),
            );
        }
    }

    /// The fill level below which the old and the new progressive filling of level `p` make
    /// the same freeze events (or a lower one), from the links `s_links` the change touches.
    fn divergence(
        &mut self,
        p: u8,
        s_links: &[u32],
        flow: Option<(u32, Option<f64>)>,
        removed: Option<&Removed>,
    ) -> f64 {
        let mut t_div = f64::INFINITY;
        if let Some((f, old)) = flow {
            let sp = &self.specs[f as usize];
            t_div = t_div.min(sp.demand / sp.weight);
            if let Some(t) = old {
                t_div = t_div.min(t);
            }
        }
        if let Some((_, _, _, t)) = removed {
            t_div = t_div.min(*t);
        }
        let mut pts: Vec<(f64, f64, f64)> = Vec::new();
        let mut others: Vec<u32> = Vec::new();
        for &l in s_links {
            let li = l as usize;
            if !self.cand.is[li] {
                others.push(l);
                continue;
            }
            pts.clear();
            let mut sat = f64::INFINITY;
            for &(g, a) in &self.link_flows[li] {
                let sp = &self.specs[g as usize];
                if sp.priority != p {
                    continue;
                }
                if flow.map(|x| x.0) == Some(g) {
                    pts.push((sp.demand / sp.weight, a * sp.demand, a * sp.weight));
                } else {
                    let gi = g as usize;
                    if self.bottleneck[gi] == Bottleneck::Link(l) {
                        sat = sat.min(self.level[gi]);
                    }
                    pts.push((self.level[gi], a * self.rate[gi], a * sp.weight));
                }
            }
            t_div = t_div.min(sat);
            let cap = self.levels[&p].base[li];
            // The load only grows with the level: if it is clearly below capacity at the
            // lowest level found so far, this link saturates later, and its points need no
            // sorting.
            if t_div.is_finite()
                && pts.iter().map(|&(_, ar, aw)| ar.min(aw * t_div)).sum::<f64>()
                    <= cap * (1.0 - CROSSING_MARGIN)
            {
                continue;
            }
            t_div = t_div.min(crossing(&mut pts, cap));
        }
        // Links not saturated before the change, nor within the candidate slack. A removal
        // cannot saturate one; the changed flow's share `a w t` can, no earlier than at the
        // link's slack over `a w` (the other flows add at most their current load). The load
        // is summed only where the link's bound plus the lag's share (above the load) would
        // put that level below the others: elsewhere it cannot be the lowest.
        let Some((f, _)) = flow else { return t_div };
        let sp = &self.specs[f as usize];
        for l in others {
            let li = l as usize;
            let Some(&(_, a)) = sp.usage.iter().find(|e| e.0 == l) else { continue };
            let lv = &self.levels[&p];
            if (lv.base[li] - lv.used[li] - self.cand.lag_load(li)) / (a * sp.weight) >= t_div {
                continue;
            }
            // Candidate mode has a single level: the link's load is all its flows'.
            let used = ordered::load_at(&self.link_flows[li], &self.rate);
            self.levels.get_mut(&p).unwrap().used[li] = used;
            t_div = t_div.min(((self.levels[&p].base[li] - used) / (a * sp.weight)).max(0.0));
        }
        t_div
    }

    /// Refills the flows `set` of level `p` from level `t0` on the capacity in `self.rem`,
    /// and returns the links whose load changed (the refilled and the removed flows'). In
    /// candidate mode the fill runs on candidate links; if it overloads another link, that
    /// link becomes a candidate and the fill is redone from the same start. `changed`: the
    /// flow that arrived or whose demand changed.
    fn refill(
        &mut self,
        p: u8,
        set: &[u32],
        t0: f64,
        removed: Option<&Removed>,
        changed: Option<u32>,
    ) -> Vec<u32> {
        if self.cand.all {
            let mut out = Out {
                rate: &mut self.rate,
                level: &mut self.level,
                bottleneck: &mut self.bottleneck,
            };
            fill(
                &self.specs,
                &self.specs[..],
                set,
                &mut self.rem,
                t0,
                true,
                &mut self.scratch,
                &mut out,
            );
            let mut changed = self.scratch.touched.clone();
            changed.extend(removed.iter().flat_map(|(_, u, _, _)| u.iter().map(|e| e.0)));
            let lv = self.levels.get_mut(&p).unwrap();
            for &l in &changed {
                lv.used[l as usize] = lv.base[l as usize] - self.rem[l as usize];
            }
            return changed;
        }
        let old: Vec<(f64, f64, Bottleneck)> = set
            .iter()
            .map(|&g| (self.rate[g as usize], self.level[g as usize], self.bottleneck[g as usize]))
            .collect();
        let mut rem = self.rem.clone();
        loop {
            let mut out = Out {
                rate: &mut self.rate,
                level: &mut self.level,
                bottleneck: &mut self.bottleneck,
            };
            fill(
                &self.specs,
                &Lists(&self.cand.usage),
                set,
                &mut self.rem,
                t0,
                true,
                &mut self.scratch,
                &mut out,
            );
            // Non-candidate links the refill may have overloaded: those of flows that rose more
            // than the lag above their accounted rate (and the changed flow's). On any other
            // link the load stays below its bound plus `lag_load`, below capacity.
            let rises = self.cand.rises(set, &self.rate, changed);
            self.cand.add_increases(&rises);
            let (mut loads, mut over, mut tight) = (Vec::new(), Vec::new(), Vec::new());
            let lv = &self.levels[&p];
            for (l, inc, frac_sum) in self.cand.take_increases() {
                let li = l as usize;
                let limit = lv.base[li] * (1.0 - SATURATED);
                let lag_load = frac_sum * self.cand.lag;
                let mut load = lv.used[li] + inc;
                if load + lag_load >= limit {
                    load = self.exact_use(li, p);
                    if load >= limit {
                        over.push(l);
                    } else if load + lag_load >= limit {
                        // Below capacity, but too near for the lag: a candidate from now on.
                        tight.push(l);
                    }
                }
                loads.push((li, load));
            }
            if over.is_empty() {
                self.cand.account(set, &self.rate, &rises);
                let lv = self.levels.get_mut(&p).unwrap();
                let removed_cand = removed
                    .iter()
                    .flat_map(|(_, u, _, _)| u.iter().map(|e| e.0))
                    .filter(|&l| self.cand.is[l as usize]);
                for l in self.scratch.touched.iter().copied().chain(removed_cand) {
                    lv.used[l as usize] = lv.base[l as usize] - self.rem[l as usize];
                }
                for (li, load) in loads {
                    lv.used[li] = load;
                }
                for l in tight {
                    self.promote(l, p, 0.0);
                }
                // Candidate mode has a single level: no lower level needs the changed links
                // beyond the candidates.
                return self.scratch.touched.clone();
            }
            // Back to the old rates; the overloaded links join the candidates, their loads
            // exact (plus the removed flow's old use, which `rem` gives back), and again.
            for (k, &g) in set.iter().enumerate() {
                let gi = g as usize;
                (self.rate[gi], self.level[gi], self.bottleneck[gi]) = old[k];
            }
            self.rem.copy_from_slice(&rem);
            for l in over {
                let back = removed
                    .and_then(|(_, u, r, _)| u.iter().find(|e| e.0 == l).map(|e| e.1 * r))
                    .unwrap_or(0.0);
                self.promote(l, p, back);
                let lv = &self.levels[&p];
                self.rem[l as usize] = lv.base[l as usize] - lv.used[l as usize] + back;
                // A further round starts again from `rem`: it must keep this exact value.
                rem[l as usize] = self.rem[l as usize];
            }
        }
    }
}

/// The ids of `from` for which `keep` holds, into `out` (cleared first), without a branch
/// per id: for filters that pass about as many as they stop, in no predictable order, where
/// a branch is mispredicted about half the time.
fn select_into(out: &mut Vec<u32>, from: &[u32], keep: impl Fn(u32) -> bool) {
    out.clear();
    out.resize(from.len(), 0);
    let mut n = 0;
    for &x in from {
        out[n] = x;
        n += keep(x) as usize;
    }
    out.truncate(n);
}

/// How far below capacity (relative) a link's load at the divergence level found so far
/// must be for [`crossing`] to be skipped there: far above the rounding of either sum, so the
/// level found is the same.
const CROSSING_MARGIN: f64 = 1e-9;

/// First level `t` at which `sum a * min(r, w t)` over the points (level, a r, a w) reaches
/// `cap`; infinity if it never does. Past the last point every term has stopped rising, so
/// the load stays below `cap` for good: what is left of the slope there is rounding (the
/// sum of the `a w` less each of them), and dividing by it would give an arbitrary level.
fn crossing(pts: &mut [(f64, f64, f64)], cap: f64) -> f64 {
    pts.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut consumed = 0.0;
    let mut slope: f64 = pts.iter().map(|p| p.2).sum();
    for &(lv, ar, aw) in pts.iter() {
        if consumed + slope * lv >= cap {
            return if slope > 0.0 { ((cap - consumed) / slope).max(0.0) } else { 0.0 };
        }
        consumed += ar;
        slope -= aw;
    }
    f64::INFINITY
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crossing_past_the_last_point_is_infinite_not_rounding_over_rounding() {
        // Five flows stop rising at one level; their loads sum (in this order) one ulp short
        // of the capacity. The slope left after the last point is 4.4e-16 of rounding, and
        // (capacity - load) / slope gave the level 1.0, below the flows' own level: a link
        // taken to fill there froze them early (found by the candidate-links property test).
        let lv = 1.017071065223747;
        let points = |cap: f64| {
            crossing(
                &mut [0.5, 1.0, 0.5, 0.3333333333333333, 0.8210844119634493]
                    .map(|a| (lv, a * lv, a)),
                cap,
            )
        };
        assert_eq!(points(3.2082670163696894), f64::INFINITY);
        assert!((points(3.208267016369689) - lv).abs() < 1e-15);
        // A point that never stops rising (no demand) is met before the end.
        assert_eq!(crossing(&mut [(f64::INFINITY, f64::INFINITY, 2.0)], 3.0), 1.5);
    }

    #[test]
    fn take_refilled_names_every_flow_whose_rate_moved() {
        let mut al =
            Allocator::new(Problem { capacity: vec![10.0; 6], headroom: 0.0, flows: Vec::new() })
                .unwrap();
        assert_eq!(al.take_refilled(), None, "after the first solve: every flow");
        assert_eq!(al.take_refilled(), Some(Vec::new()), "nothing since");
        let mut rng = crate::sim::Rng::stream(7, 0, 0);
        let mut live: Vec<u32> = Vec::new();
        for step in 0..400 {
            let before: Vec<(u32, f64)> = live.iter().map(|&f| (f, al.rate(f).unwrap())).collect();
            if live.len() < 3 || rng.below(3) > 0 {
                let first = rng.below(5) as u32;
                let usage = (first..first + 1 + rng.below(2) as u32).map(|l| (l, 1.0)).collect();
                live.push(al.add_flow(ProblemFlow::new(usage)).unwrap());
            } else {
                let f = live.swap_remove(rng.below(live.len() as u64) as usize);
                al.remove_flow(f).unwrap();
            }
            let Some(named) = al.take_refilled() else { continue };
            for (f, old) in before {
                if let Some(r) = al.rate(f).filter(|_| live.contains(&f)) {
                    assert!(
                        r == old || named.contains(&f),
                        "step {step}: flow {f} moved {old} -> {r} unnamed"
                    );
                }
            }
        }
        al.solve_all();
        assert_eq!(al.take_refilled(), None);
    }

    #[test]
    fn add_flow_merges_repeated_links_and_names_bad_entries() {
        let mut al = Allocator::new(Problem {
            capacity: vec![10.0, 10.0],
            headroom: 0.0,
            flows: Vec::new(),
        })
        .unwrap();
        // A link given twice counts once with the summed fraction; a zero is no use.
        let f = al.add_flow(ProblemFlow::new(vec![(0, 0.5), (1, 0.0), (0, 0.5)])).unwrap();
        assert_eq!(al.problem().flows[0].usage, vec![(0, 1.0)]);
        assert!((al.rate(f).unwrap() - 10.0).abs() < 1e-12);
        let mut err = |usage: Vec<(u32, f64)>| al_err(&mut al, ProblemFlow::new(usage));
        assert!(err(vec![(2, 1.0)]).starts_with("flow.usage[0]: link 2 out of range"));
        assert!(err(vec![(1, -1.0)]).starts_with("flow.usage[0]: fraction must be positive"));
        // Two finite fractions whose sum is not.
        assert!(err(vec![(1, f64::MAX), (1, f64::MAX)])
            .starts_with("flow.usage[0]: fraction must be positive and finite, got inf"));
        assert!(err(vec![]).starts_with("flow.usage: the flow uses no link and has no demand"));
        let mut bad = ProblemFlow::new(vec![(0, 1.0)]);
        bad.weight = 0.0;
        assert!(al_err(&mut al, bad).starts_with("flow.weight:"));
        // Nothing was added by the refused flows.
        assert_eq!(al.flow_ids(), vec![f]);
    }

    fn al_err(al: &mut Allocator, spec: ProblemFlow) -> String {
        al.add_flow(spec).unwrap_err().to_string()
    }

    #[test]
    fn an_empty_allocator_takes_capacity_changes_then_flows() {
        let mut al = Allocator::new(Problem {
            capacity: vec![10.0, 10.0],
            headroom: 0.0,
            flows: Vec::new(),
        })
        .unwrap();
        al.set_capacity(0, 4.0).unwrap();
        let a = al.add_flow(ProblemFlow::new(vec![(0, 1.0), (1, 1.0)])).unwrap();
        let b = al.add_flow(ProblemFlow::new(vec![(1, 1.0)])).unwrap();
        assert_eq!((al.rate(a), al.rate(b)), (Some(4.0), Some(6.0)));
        al.set_capacity(0, 0.0).unwrap();
        assert_eq!((al.rate(a), al.rate(b)), (Some(0.0), Some(10.0)));
        assert_eq!(al.bottleneck(a), Some(Bottleneck::Link(0)));
    }

    #[test]
    fn a_link_left_out_of_the_candidates_is_added_when_the_refill_overloads_it() {
        // Flow 0 crosses links 0 (capacity 4) and 1 (capacity 5); flow 1 uses link 0, flow 2
        // link 1 with demand 2. Link 0 gives flows 0 and 1 two each, so link 1 carries 4 of
        // its 5 and, with a candidate slack of 0, is no candidate. When flow 1 leaves, the
        // refill on link 0 alone would raise flow 0 to 4, overloading link 1 (6): link 1
        // becomes a candidate and the refill stops flow 0 at 3.
        let mut flows = vec![
            ProblemFlow::new(vec![(0, 1.0), (1, 1.0)]),
            ProblemFlow::new(vec![(0, 1.0)]),
            ProblemFlow::new(vec![(1, 1.0)]),
        ];
        flows[2].demand = 2.0;
        let mut al =
            Allocator::new(Problem { capacity: vec![4.0, 5.0], headroom: 0.0, flows }).unwrap();
        al.set_candidate_slack(0.0).unwrap();
        assert!(!al.cand.is[1]);
        al.remove_flow(1).unwrap();
        assert!(al.cand.is[1]);
        assert_eq!(al.allocation(), super::super::solve(&al.problem()).unwrap());
        assert_eq!((al.rate(0), al.bottleneck(0)), (Some(3.0), Some(Bottleneck::Link(1))));
    }

    /// `draws` random links out of `links` (repeats dropped), each with a fraction of 1,
    /// 0.5, 0.25 or 0.3.
    fn random_usage(rng: &mut crate::sim::Rng, links: usize, draws: u64) -> Vec<(u32, f64)> {
        let mut usage: Vec<(u32, f64)> = Vec::new();
        for _ in 0..draws {
            let l = rng.below(links as u64) as u32;
            if !usage.iter().any(|e| e.0 == l) {
                usage.push((l, [1.0, 0.5, 0.25, 0.3][rng.below(4) as usize]));
            }
        }
        usage
    }

    /// The allocator's rates equal a from-scratch solve of its problem (1e-9 relative).
    pub(super) fn assert_matches_a_solve_from_scratch(al: &Allocator, context: &str) {
        let full = super::super::solve(&al.problem()).unwrap();
        for (a, b) in al.allocation().rate.iter().zip(&full.rate) {
            assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{context}: {a} vs {b}");
        }
    }

    /// The candidates' check holds: in candidate mode every live flow runs at most the lag
    /// above its accounted rate (never below it), every non-candidate link's bound covers its
    /// flows at their accounted rates, its fraction sum covers theirs, and its bound plus the
    /// lag's share stays under capacity; so its exact load does. Returns how many flows run
    /// ahead of their accounted rate.
    pub(super) fn assert_bounds_hold(al: &Allocator, context: &str) -> usize {
        if al.cand.all {
            return 0;
        }
        let (c, (&p, lv)) = (&al.cand, al.levels.iter().next().unwrap());
        let mut ahead = 0;
        let (mut acc_load, mut fracs) = (vec![0.0; al.links()], vec![0.0; al.links()]);
        for f in al.flow_ids() {
            let (r, acc) = (al.rate[f as usize], c.accounted[f as usize]);
            assert!(
                acc <= r && r - acc <= c.lag,
                "{context}: flow {f} at {r}, accounted at {acc}, lag {}",
                c.lag
            );
            ahead += (acc < r) as usize;
            for &(l, a) in al.specs[f as usize].usage.iter().filter(|e| !c.is[e.0 as usize]) {
                acc_load[l as usize] += a * acc;
                fracs[l as usize] += a;
            }
        }
        for l in (0..al.links()).filter(|&l| !c.is[l]) {
            let (used, limit, tol) =
                (lv.used[l], lv.base[l] * (1.0 - SATURATED), 1e-12 * lv.base[l].max(1.0));
            assert!(
                acc_load[l] <= used + tol,
                "{context}: link {l} bound {used} below its accounted load {}",
                acc_load[l]
            );
            assert!(
                fracs[l] <= c.frac_sum[l] * (1.0 + 1e-12),
                "{context}: link {l} fraction sum {} below {}",
                c.frac_sum[l],
                fracs[l]
            );
            assert!(
                used + c.lag_load(l) < limit,
                "{context}: link {l} bound {used} + lag {} reaches {limit}",
                c.lag_load(l)
            );
            assert!(
                al.exact_use(l, p) < limit,
                "{context}: link {l} saturated outside the candidates"
            );
        }
        ahead
    }

    #[test]
    fn a_refill_that_promotes_links_in_several_rounds_stays_exact() {
        // With a candidate slack of 0, a refill can overload a non-candidate link, promote
        // it, redo, and overload another. Each round starts again from the capacities kept
        // before the first; a link promoted in an earlier round must keep its exact capacity
        // there, not its old upper-bound load (seeds 338 and 392 of this generator found
        // rates below the max-min ones when it did not).
        for seed in [338, 392] {
            let mut rng = crate::sim::Rng::stream(seed, 3, 0);
            let links = 6 + rng.below(14) as usize;
            let capacity: Vec<f64> =
                (0..links).map(|_| 1.0 + rng.below(1000) as f64 / 50.0).collect();
            let flow = |rng: &mut crate::sim::Rng| {
                let draws = 2 + rng.below(4);
                ProblemFlow::new(random_usage(rng, links, draws))
            };
            let flows: Vec<ProblemFlow> = (0..30 + rng.below(30)).map(|_| flow(&mut rng)).collect();
            let mut al = Allocator::new(Problem { capacity, headroom: 0.0, flows }).unwrap();
            al.set_candidate_slack(0.0).unwrap();
            for step in 0..20 {
                let ids = al.flow_ids();
                if rng.below(2) == 0 || ids.len() < 5 {
                    al.add_flow(flow(&mut rng)).unwrap();
                } else {
                    al.remove_flow(ids[rng.below(ids.len() as u64) as usize]).unwrap();
                }
                assert_matches_a_solve_from_scratch(&al, &format!("seed {seed}, step {step}"));
                assert_bounds_hold(&al, &format!("seed {seed}, step {step}"));
            }
        }
    }

    #[test]
    fn mixed_updates_on_many_seeds_stay_exact() {
        // 300 random instances (4-19 links, up to three priority levels, demands, weights,
        // candidate slack 0 / 0.01 / 0.2), 100 random updates each: arrivals, departures,
        // demand and capacity changes. After every update the rates equal a solve from
        // scratch, and the candidates' bounds hold (`assert_bounds_hold`). (A run over 3,000
        // seeds of this generator passed when it was written.)
        // On the single-level instances most updates go through the level-ordered refill; on
        // every third instance its budget is cut to 40 entries, so that some of them give up
        // and the refill from the divergence level does them on candidate links.
        let (mut resolved, mut gave_up, mut ahead) = (0, 0, 0);
        for seed in 0..300 {
            let mut rng = crate::sim::Rng::stream(seed, 5, 0);
            let links = 4 + rng.below(16) as usize;
            let capacity: Vec<f64> =
                (0..links).map(|_| 1.0 + rng.below(1000) as f64 / 50.0).collect();
            let levels = 1 + rng.below(3);
            let flow = |rng: &mut crate::sim::Rng| {
                let draws = 1 + rng.below(5);
                let mut spec = ProblemFlow::new(random_usage(rng, links, draws));
                spec.priority = rng.below(levels) as u8;
                if rng.below(4) == 0 {
                    spec.demand = rng.below(500) as f64 / 100.0;
                }
                if rng.below(4) == 0 {
                    spec.weight = 0.5 + rng.below(4) as f64;
                }
                spec
            };
            let flows: Vec<ProblemFlow> = (0..10 + rng.below(40)).map(|_| flow(&mut rng)).collect();
            let mut al = Allocator::new(Problem { capacity, headroom: 0.0, flows }).unwrap();
            al.set_candidate_slack([0.0, 0.01, 0.2][rng.below(3) as usize]).unwrap();
            if seed % 3 == 0 {
                al.ordered.budget = Some(40);
            }
            for step in 0..100 {
                let ids = al.flow_ids();
                let pick = |rng: &mut crate::sim::Rng| ids[rng.below(ids.len() as u64) as usize];
                match rng.below(6) {
                    2 | 3 if ids.len() > 3 => al.remove_flow(pick(&mut rng)).unwrap(),
                    4 if !ids.is_empty() => {
                        let f = pick(&mut rng);
                        let d = if rng.below(3) == 0 {
                            f64::INFINITY
                        } else {
                            rng.below(500) as f64 / 100.0
                        };
                        al.set_demand(f, d).unwrap();
                    }
                    5 => {
                        let c = if rng.below(5) == 0 {
                            0.0
                        } else {
                            1.0 + rng.below(1000) as f64 / 50.0
                        };
                        al.set_capacity(rng.below(links as u64) as u32, c).unwrap();
                    }
                    _ => {
                        al.add_flow(flow(&mut rng)).unwrap();
                    }
                }
                assert_matches_a_solve_from_scratch(&al, &format!("seed {seed}, step {step}"));
                ahead += assert_bounds_hold(&al, &format!("seed {seed}, step {step}"));
            }
            let (r, g) = al.ordered_refills();
            (resolved, gave_up) = (resolved + r, gave_up + g);
        }
        // (6,879 resolved and 473 given up when written.)
        assert!(
            resolved > 5_000 && gave_up > 300,
            "level-ordered refill: resolved {resolved}, gave up {gave_up}"
        );
        // The lag is used: flows ran ahead of their accounted rates in 36,580 (flow, step)
        // pairs when written.
        assert!(ahead > 10_000, "flows ahead of their accounted rates: {ahead}");
    }

    #[test]
    fn long_runs_of_updates_pass_the_periodic_resolve_and_stay_exact() {
        // 2500 arrivals and departures (two from-scratch solves on the way) on 6 links.
        let mut x: u64 = 7;
        let mut next = move |m: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut al = Allocator::new(Problem {
            capacity: vec![10.0, 8.0, 6.0, 12.0, 9.0, 7.0],
            headroom: 0.0,
            flows: Vec::new(),
        })
        .unwrap();
        let mut live = Vec::new();
        for _ in 0..2500 {
            if live.len() < 20 || next(2) == 0 {
                let (a, b) = (next(6) as u32, next(6) as u32);
                let usage = if a == b { vec![(a, 1.0)] } else { vec![(a, 0.5), (b, 0.5)] };
                live.push(al.add_flow(ProblemFlow::new(usage)).unwrap());
            } else {
                let f = live.swap_remove(next(live.len() as u64) as usize);
                al.remove_flow(f).unwrap();
            }
        }
        assert!(al.cand.since_rebuild < REBUILD_EVERY);
        let full = super::super::solve(&al.problem()).unwrap();
        for (a, b) in al.allocation().rate.iter().zip(&full.rate) {
            assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        }
    }
}
