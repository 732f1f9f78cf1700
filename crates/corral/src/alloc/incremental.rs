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
//! How local this is depends on the coupling: with flows sprayed over all minimal paths of a
//! torus (~86 links each), one arrival changes the exact rate of a large share of the flows
//! above its level (`examples/alloc_bench.rs` counts them: median 47 % of 10k flows), so the
//! refilled set is within a small factor of the set any exact update must recompute.

use super::problem::{Allocation, Bottleneck, FlowSpec, Problem};
use super::waterfill::{fill, Out, Scratch};
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
    specs: Vec<FlowSpec>,
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
}

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
        let mut link_flows: Vec<Vec<(u32, f64)>> = deg.iter().map(|&d| Vec::with_capacity(d)).collect();
        let mut levels: BTreeMap<u8, Level> = BTreeMap::new();
        for (f, spec) in p.flows.iter().enumerate() {
            for &(l, a) in &spec.usage {
                link_flows[l as usize].push((f as u32, a));
            }
            levels.entry(spec.priority).or_insert_with(|| Level { flows: Vec::new(), base: Vec::new(), used: Vec::new() }).flows.push(f as u32);
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
        };
        al.solve_all();
        Ok(al)
    }

    fn effective(&self, l: usize) -> f64 {
        self.capacity[l] * (1.0 - self.headroom)
    }

    /// Recomputes everything from scratch.
    pub fn solve_all(&mut self) {
        let nl = self.capacity.len();
        let mut base: Vec<f64> = (0..nl).map(|l| self.effective(l)).collect();
        let keys: Vec<u8> = self.levels.keys().copied().collect();
        for p in keys {
            let lv = self.levels.get_mut(&p).unwrap();
            self.rem.copy_from_slice(&base);
            let mut out = Out { rate: &mut self.rate, level: &mut self.level, bottleneck: &mut self.bottleneck };
            fill(&self.specs, &lv.flows, &mut self.rem, 0.0, false, &mut self.scratch, &mut out);
            lv.used = vec![0.0; nl];
            for &l in &self.scratch.touched {
                lv.used[l as usize] = base[l as usize] - self.rem[l as usize];
            }
            lv.base = base.clone();
            for (b, u) in base.iter_mut().zip(&lv.used) {
                *b -= u;
            }
        }
    }

    pub fn allocation(&self) -> Allocation {
        let ids = self.flow_ids();
        Allocation { rate: ids.iter().map(|&f| self.rate[f as usize]).collect(), bottleneck: ids.iter().map(|&f| self.bottleneck[f as usize]).collect() }
    }

    /// Live flow ids, ascending.
    pub fn flow_ids(&self) -> Vec<u32> {
        (0..self.specs.len() as u32).filter(|&f| self.alive[f as usize]).collect()
    }

    /// The problem the allocator holds now, live flows in id order (for checking against a
    /// from-scratch solve).
    pub fn problem(&self) -> Problem {
        Problem { capacity: self.capacity.clone(), headroom: self.headroom, flows: self.flow_ids().iter().map(|&f| self.specs[f as usize].clone()).collect() }
    }

    pub fn rate(&self, f: u32) -> Option<f64> {
        self.alive.get(f as usize).copied().unwrap_or(false).then(|| self.rate[f as usize])
    }

    pub fn bottleneck(&self, f: u32) -> Option<Bottleneck> {
        self.alive.get(f as usize).copied().unwrap_or(false).then(|| self.bottleneck[f as usize])
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

    /// Adds a flow and returns its id (the most recently freed id is reused first).
    pub fn add_flow(&mut self, spec: FlowSpec) -> Result<u32> {
        spec.validate(0, self.capacity.len()).map_err(|e| match e {
            crate::Error::Config { path, msg } => config_err(path.replacen("flows[0]", "flow", 1), msg),
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
        let p = spec.priority;
        let nl = self.capacity.len();
        let new_level = !self.levels.contains_key(&p);
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
        self.reflow(Change { links: Vec::new(), flow: Some((f, None)), removed: None, priority: p });
        Ok(f)
    }

    /// Removes flow `f`.
    pub fn remove_flow(&mut self, f: u32) -> Result<()> {
        self.check_flow(f, "flow")?;
        let fi = f as usize;
        self.alive[fi] = false;
        self.free.push(f);
        let usage = std::mem::take(&mut self.specs[fi].usage);
        for &(l, _) in &usage {
            let v = &mut self.link_flows[l as usize];
            let i = v.iter().position(|e| e.0 == f).unwrap();
            v.swap_remove(i);
        }
        let p = self.specs[fi].priority;
        let lv = self.levels.get_mut(&p).unwrap();
        let pos = lv.flows.binary_search(&f).unwrap();
        lv.flows.remove(pos);
        let (r, t) = (self.rate[fi], self.level[fi]);
        self.rate[fi] = 0.0;
        self.reflow(Change { links: Vec::new(), flow: None, removed: Some((p, usage, r, t)), priority: p });
        Ok(())
    }

    /// Sets flow `f`'s demand (`f64::INFINITY` for none).
    pub fn set_demand(&mut self, f: u32, demand: f64) -> Result<()> {
        self.check_flow(f, "flow")?;
        if demand.is_nan() || demand < 0.0 {
            return Err(config_err("demand", format!("must be >= 0 (or infinite for none), got {demand}")));
        }
        let fi = f as usize;
        if self.specs[fi].usage.is_empty() && demand.is_infinite() {
            return Err(config_err("demand", "the flow uses no link: its demand must be finite"));
        }
        self.specs[fi].demand = demand;
        let p = self.specs[fi].priority;
        self.reflow(Change { links: Vec::new(), flow: Some((f, Some(self.level[fi]))), removed: None, priority: p });
        Ok(())
    }

    /// Sets link `l`'s capacity.
    pub fn set_capacity(&mut self, l: u32, capacity: f64) -> Result<()> {
        if l as usize >= self.capacity.len() {
            return Err(config_err("link", format!("link {l} out of range: there are {} links", self.capacity.len())));
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
        // Links whose base (capacity left by higher levels) changed, with their new base.
        let mut base_changed: Vec<u32> = ch.links.clone();
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
            // Divergence level.
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
            for &l in &s_links {
                let li = l as usize;
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
                t_div = t_div.min(sat).min(crossing(&mut pts, self.levels[&p].base[li]));
            }
            // Flows to refill: every flow at or above the divergence level, and the changed one.
            let lv = &self.levels[&p];
            let set: Vec<u32> = lv.flows.iter().copied().filter(|&g| self.level[g as usize] >= t_div || flow.map(|x| x.0) == Some(g)).collect();
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
            let mut out = Out { rate: &mut self.rate, level: &mut self.level, bottleneck: &mut self.bottleneck };
            fill(&self.specs, &set, &mut self.rem, t0, true, &mut self.scratch, &mut out);
            // Links whose use changed: the refilled flows' and the removed flow's. Lower levels
            // redo these and those whose base changed.
            let mut changed: Vec<u32> = self.scratch.touched.clone();
            if let Some((_, u, _, _)) = removed {
                changed.extend(u.iter().map(|e| e.0));
            }
            for &l in &changed {
                let li = l as usize;
                lv.used[li] = lv.base[li] - self.rem[li];
            }
            changed.append(&mut base_changed);
            changed.sort_unstable();
            changed.dedup();
            base_changed = changed;
        }
    }
}

/// First level `t` at which `sum a * min(r, w t)` over the points (level, a r, a w) reaches
/// `cap`; infinity if it never does.
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
    if slope > 1e-300 {
        ((cap - consumed) / slope).max(0.0)
    } else {
        f64::INFINITY
    }
}
