//! One HCC rate-allocation agent (Algorithm 3) and what its two loops compute, without the
//! control plane: the scheme ([`super::Hcc`]) runs the loops on timers and carries their
//! messages.
//!
//! An agent manages one output port (a host's NIC, a switch's port toward the root). It
//! keeps `Parents`, `Children`, `Share` and `Demand` (quantized demand -> flows, per child).
//! - The child loop ([`Agent::divide`], every `Cycle_child`) aggregates the children's
//!   demand maps and divides `Share` (capped by its own port, less headroom) among them by
//!   Algorithm 1; a host agent's children are its flows (the leaves), which it rates
//!   directly.
//! - The parent loop ([`Agent::take_share`], [`Agent::report`], every `Cycle_parent`) takes
//!   the smallest of its parents' shares (the excess goes back to the others) and reports its
//!   demand upward: its flows' demands capped at its own port's max-min level (a flow cannot
//!   use more above than its own bottleneck lets through), quantized, as a delta against
//!   what each parent already holds.
//!
//! A switch agent keeps its `Demand` (the children's maps summed) up to date at every child
//! message ([`Agent::apply_child_delta`]: the paper's incremental update, section III-A,
//! "computing fair rates once and adjusting them when changes in demands or flows happen").
//! A message costs O(entries in its delta) map updates, and a loop's Algorithm 1 one pass over
//! the map, already in demand order: O(N) per event in the flows below, where merging every
//! child's map again at every cycle cost O(N log N).

use super::demand::{level, DemandMap};
use super::maxmin::{divide, water_level};
use super::quantize::Quantizer;
use crate::ids::{NodeId, PortId};
use crate::units::Time;
use std::collections::BTreeMap;

/// What an agent holds about one parent.
#[derive(Clone, Debug, Default)]
pub struct Up {
    pub parent: usize,
    /// The demand map the parent holds for this agent (what was sent and not lost).
    pub sent: DemandMap,
    /// The parent's latest share for this agent, `None` before the first.
    pub share: Option<f64>,
    /// The excess last returned to this parent.
    pub excess_sent: Option<f64>,
}

#[derive(Clone, Debug)]
pub struct Agent {
    pub port: PortId,
    pub node: NodeId,
    /// Levels from the bottom: 0 for a host's agent.
    pub level: usize,
    pub up: Vec<Up>,
    pub children: Vec<usize>,
    /// Each child's demand map, as its messages built it.
    pub child_demand: BTreeMap<usize, DemandMap>,
    /// The sum of `child_demand`, kept at every child message (the paper's `Demand`).
    pub demand: DemandMap,
    /// Children limited by another parent: the allocation they take.
    pub child_cap: BTreeMap<usize, f64>,
    /// The share last sent to each child.
    pub child_sent: BTreeMap<usize, f64>,
    /// A host agent's leaves: flow -> demand (bit/s), and the rate last set.
    pub flows: BTreeMap<u32, f64>,
    pub flow_rate: BTreeMap<u32, f64>,
    pub quantizer: Option<Quantizer>,
    pub next_refit: Time,
    pub cycle_child: Time,
    pub cycle_parent: Time,
    /// The loops are scheduled. A loop that would repeat itself stops until something
    /// wakes it (see [`Agent::child_idle`], [`Agent::parent_idle`]).
    pub child_awake: bool,
    pub parent_awake: bool,
    /// The port capacity the parent loop saw last (a change wakes the child loop).
    pub last_capacity: f64,
}

impl Agent {
    pub fn new(
        port: PortId,
        node: NodeId,
        level: usize,
        cycle_child: Time,
        cycle_parent: Time,
    ) -> Agent {
        Agent {
            port,
            node,
            level,
            up: Vec::new(),
            children: Vec::new(),
            child_demand: BTreeMap::new(),
            demand: DemandMap::default(),
            child_cap: BTreeMap::new(),
            child_sent: BTreeMap::new(),
            flows: BTreeMap::new(),
            flow_rate: BTreeMap::new(),
            quantizer: None,
            next_refit: Time::ZERO,
            cycle_child,
            cycle_parent,
            child_awake: false,
            parent_awake: false,
            last_capacity: f64::NAN,
        }
    }

    pub fn is_root(&self) -> bool {
        self.up.is_empty()
    }

    /// Nothing for the child loop to do until a flow, a demand or a share arrives: no demand
    /// below and every share sent down is 0. (A loop that stops and restarts on the same
    /// phase acts exactly as one that ran through: its idle cycles change nothing.)
    pub fn child_idle(&self) -> bool {
        self.flows.is_empty()
            && self.child_demand.values().all(DemandMap::is_empty)
            && self.child_sent.values().all(|&s| s == 0.0)
    }

    /// Nothing for the parent loop to do: no demand below, every parent holds an empty map,
    /// and no excess is owed to a parent.
    pub fn parent_idle(&self) -> bool {
        self.flows.is_empty()
            && self.child_demand.values().all(DemandMap::is_empty)
            && self.up.iter().all(|u| u.sent.is_empty())
            && self.up.len() <= 1
    }

    /// A child's update: its map held here and the agent's `Demand` both take `delta`.
    pub fn apply_child_delta(&mut self, child: usize, delta: &DemandMap) {
        self.child_demand.entry(child).or_default().apply(delta);
        self.demand.apply(delta);
    }

    /// The agent's demand: its leaves' demands, or its children's maps summed (`Demand`), as
    /// (demand, flows) groups.
    pub fn demand_groups(&self) -> Vec<(f64, i64)> {
        if !self.flows.is_empty() || self.children.is_empty() {
            return self.flows.values().map(|&d| (d, 1)).collect();
        }
        self.demand.iter().collect()
    }

    /// The share the agent divides: the parents' smallest (0 before the first; a root's is
    /// its own port), capped by its own port less headroom.
    pub fn usable(&self, port_capacity: f64) -> f64 {
        if self.is_root() {
            return port_capacity;
        }
        self.up
            .iter()
            .map(|u| u.share.unwrap_or(0.0))
            .fold(f64::INFINITY, f64::min)
            .min(port_capacity)
            .max(0.0)
    }

    /// The child loop of a host agent: each leaf's rate, `min(demand, λ)`.
    pub fn leaf_rates(&self, usable: f64) -> Vec<(u32, f64)> {
        let lambda = water_level(usable, &self.demand_groups());
        self.flows.iter().map(|(&f, &d)| (f, d.min(lambda))).collect()
    }

    /// The child loop of a switch agent: each child's share. A child that takes less from
    /// another parent (its cap) is still told what it could take here, so that it can rise
    /// when that parent rises; what it leaves goes to the other children.
    pub fn divide(&self, usable: f64) -> Vec<(usize, f64)> {
        let demand = |c: &usize| -> Vec<(f64, i64)> {
            self.child_demand.get(c).map(|m| m.iter().collect()).unwrap_or_default()
        };
        let uncapped = divide(
            usable,
            &self.children.iter().map(|c| (demand(c), f64::INFINITY)).collect::<Vec<_>>(),
        );
        if self.child_cap.is_empty() {
            return self.children.iter().copied().zip(uncapped).collect();
        }
        let capped = divide(
            usable,
            &self
                .children
                .iter()
                .map(|c| (demand(c), self.child_cap.get(c).copied().unwrap_or(f64::INFINITY)))
                .collect::<Vec<_>>(),
        );
        self.children
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                (c, if self.child_cap.contains_key(&c) { uncapped[i] } else { capped[i] })
            })
            .collect()
    }

    /// The parent loop's first step: with several parents the agent takes the smallest
    /// share, and each parent's excess (its share minus that) goes back to it.
    pub fn take_share(&self) -> (f64, Vec<f64>) {
        let shares: Vec<f64> = self.up.iter().map(|u| u.share.unwrap_or(0.0).max(0.0)).collect();
        super::demand::min_of_parents(&shares)
    }

    /// The parent loop's report: the demand map the parents should hold, each flow's demand
    /// capped at the max-min level of the agent's own port and quantized.
    pub fn report(&self, port_capacity: f64) -> DemandMap {
        let groups = self.demand_groups();
        let lambda = water_level(port_capacity, &groups);
        let mut map = DemandMap::default();
        for (d, n) in groups {
            let capped = d.min(lambda);
            let q = self.quantizer.as_ref().map_or(capped, |qz| qz.quantize(capped));
            map.add(level(q), n);
        }
        map
    }

    /// Fits the quantizer to the capped demands of the current report (before quantizing).
    pub fn refit(&mut self, port_capacity: f64, bins: usize) {
        let groups = self.demand_groups();
        let lambda = water_level(port_capacity, &groups);
        let mut values = Vec::new();
        for (d, n) in groups {
            values.extend(std::iter::repeat_n(d.min(lambda), n.clamp(0, 4096) as usize));
        }
        if !values.is_empty() {
            self.quantizer = Some(Quantizer::fit(&values, bins, 50));
        }
    }
}

/// `map - base`: the delta that turns what a parent holds into the new map.
pub fn delta(new: &DemandMap, base: &DemandMap) -> DemandMap {
    let mut d = new.clone();
    for (v, n) in base.iter() {
        d.add(level(v), -n);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replaces child `c`'s map in `a` by `m`, as the child's delta message would.
    fn set_child(a: &mut Agent, c: usize, m: DemandMap) {
        let held = a.child_demand.get(&c).cloned().unwrap_or_default();
        a.apply_child_delta(c, &delta(&m, &held));
    }

    fn agent() -> Agent {
        Agent::new(PortId(0), NodeId(0), 1, Time::from_us(2), Time::from_us(8))
    }

    fn map(entries: &[(f64, i64)]) -> DemandMap {
        let mut m = DemandMap::default();
        for &(d, n) in entries {
            m.add(level(d), n);
        }
        m
    }

    // The child loop: two children with 3 and 1 unbounded flows share 8 as 6 and 2; a child
    // whose flows demand less keeps only that, and the rest goes to the other.
    #[test]
    fn child_loop_divides_share_by_flows() {
        let mut a = agent();
        a.children = vec![4, 5];
        set_child(&mut a, 4, map(&[(f64::INFINITY, 3)]));
        set_child(&mut a, 5, map(&[(f64::INFINITY, 1)]));
        assert_eq!(a.divide(8.0), vec![(4, 6.0), (5, 2.0)]);
        set_child(&mut a, 5, map(&[(0.5, 1)]));
        assert_eq!(a.divide(8.0), vec![(4, 7.5), (5, 0.5)]);
        set_child(&mut a, 5, map(&[(f64::INFINITY, 1)]));
        a.child_cap.insert(4, 3.0);
        let d = a.divide(8.0);
        assert_eq!(d[0], (4, 6.0), "a child limited elsewhere is told what it could take here");
        assert!((d[1].1 - 5.0).abs() < 1e-6, "and the others get what it leaves: {d:?}");
    }

    // A host agent's leaves: equal shares of the usable share, a small demand kept.
    #[test]
    fn leaves_get_max_min_rates_of_the_host_share() {
        let mut a = agent();
        a.flows.insert(1, 10.0);
        a.flows.insert(2, 10.0);
        a.flows.insert(3, 1.0);
        assert_eq!(a.leaf_rates(7.0), vec![(1, 3.0), (2, 3.0), (3, 1.0)]);
        a.up.push(Up { parent: 9, ..Up::default() });
        assert_eq!(a.usable(7.0), 0.0, "nothing before the parent's first share");
        a.up[0].share = Some(5.0);
        assert_eq!(a.usable(7.0), 5.0);
        assert_eq!(a.usable(4.0), 4.0, "capped by its own port");
    }

    // The parent loop's report: demands capped at the agent's own max-min level (10 over
    // three unbounded flows and one of 1: 3 each), then quantized; the delta against what
    // the parent holds moves only the flows that changed.
    #[test]
    fn parent_loop_reports_capped_quantized_deltas() {
        let mut a = agent();
        a.flows.insert(1, f64::INFINITY);
        a.flows.insert(2, f64::INFINITY);
        a.flows.insert(3, f64::INFINITY);
        a.flows.insert(4, 1.0);
        let r = a.report(10.0);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(1.0, 1), (3.0, 3)]);
        a.quantizer = Some(Quantizer::fit(&[1.0, 3.0, 3.0, 3.0], 1, 20));
        assert_eq!(a.report(10.0).iter().collect::<Vec<_>>(), vec![(2.5, 4)], "one bin: the mean");
        a.quantizer = None;
        a.flows.remove(&4);
        let d = delta(&a.report(10.0), &r);
        assert_eq!(d.iter().collect::<Vec<_>>(), vec![(1.0, -1), (3.0, -3), (10.0 / 3.0, 3)]);
        assert!(delta(&r, &r).is_empty(), "no change, no message");
    }

    // Several parents: the agent takes the smallest share and returns each parent's excess.
    #[test]
    fn parent_loop_takes_the_smallest_share() {
        let mut a = agent();
        a.up = vec![
            Up { parent: 1, share: Some(4.0), ..Up::default() },
            Up { parent: 2, share: Some(6.0), ..Up::default() },
        ];
        assert_eq!(a.take_share(), (4.0, vec![0.0, 2.0]));
        assert_eq!(a.usable(100.0), 4.0);
    }

    // The incremental `Demand`: after any sequence of child messages it equals the children's
    // maps summed from scratch, and the water level read from it gives every flow below what
    // Algorithm 1 over the flows one by one gives.
    proptest::proptest! {
        #[test]
        fn incremental_demand_equals_the_merge_and_algorithm_1(
            updates in proptest::collection::vec((0usize..4, proptest::collection::vec((0u8..6, 0i64..4), 0..5)), 1..40),
            capacity in 0.0f64..50.0,
        ) {
            let mut a = agent();
            a.children = vec![0, 1, 2, 3];
            for (child, entries) in &updates {
                let m = map(&entries.iter().map(|&(d, n)| (if d == 5 { f64::INFINITY } else { f64::from(d) }, n)).collect::<Vec<_>>());
                set_child(&mut a, *child, m);
            }
            let mut merged = DemandMap::default();
            for m in a.child_demand.values() {
                merged.apply(m);
            }
            proptest::prop_assert_eq!(&a.demand, &merged);
            let flows: Vec<f64> = merged.iter().flat_map(|(d, n)| std::iter::repeat_n(d, n.max(0) as usize)).collect();
            let lambda = water_level(capacity, &a.demand_groups());
            let by_algorithm_1 = super::super::maxmin::single_bottleneck(capacity, &flows);
            for (d, want) in flows.iter().zip(by_algorithm_1) {
                let got = d.min(lambda);
                proptest::prop_assert!((got - want).abs() <= 1e-9 * capacity.max(1.0), "demand {d}: {got} against {want}");
            }
        }
    }
}
