//! A rack node's local view of the rack's traffic matrix (R2C2, SIGCOMM 2015, section 3.1):
//! every flow it has heard of by broadcast, with the weight, priority, demand and routing
//! protocol its events carried. Two nodes that heard the same events hold equal views; an
//! order-independent hash of the entries tells them apart cheaply, so that one rate
//! computation serves every node with the same view.

use super::event::{Event, Kind};
use crate::route::Routing;
use std::collections::BTreeMap;

/// What a view knows of one flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowInfo {
    pub src: u32,
    pub dst: u32,
    pub weight: f64,
    pub priority: u8,
    /// Wire bit/s; infinite when the flow has announced none.
    pub demand_bps: f64,
    pub routing: Routing,
}

impl FlowInfo {
    pub fn of(e: &Event) -> FlowInfo {
        FlowInfo {
            src: e.src,
            dst: e.dst,
            weight: e.weight,
            priority: e.priority,
            demand_bps: e.demand_bps,
            routing: e.routing,
        }
    }

    fn hash(&self, flow: u32) -> u64 {
        let routing = match self.routing {
            Routing::Wlb { direct } => direct.to_bits() ^ 0x5bd1,
            other => other.name().len() as u64 * 0x9e37,
        };
        let mut h = (flow as u64) << 32 ^ (self.priority as u64) << 24 ^ routing;
        for x in [
            self.weight.to_bits(),
            self.demand_bps.to_bits(),
            (self.src as u64) << 20 | self.dst as u64,
        ] {
            h = mix(h ^ x);
        }
        h
    }
}

/// SplitMix64's finalizer: a well-spread 64-bit hash.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The flows a node knows, by flow id, and a hash of the whole set.
#[derive(Clone, Debug, Default)]
pub struct View {
    flows: BTreeMap<u32, FlowInfo>,
    hash: u64,
}

impl View {
    /// Applies an event about `flow`; returns whether the view changed. A finish or an
    /// update for a flow the view does not hold is ignored (its start was lost: the
    /// re-sent start brings the current state).
    pub fn apply(&mut self, flow: u32, e: &Event) -> bool {
        match e.kind {
            Kind::Start | Kind::Refresh => self.put(flow, FlowInfo::of(e)),
            Kind::Finish => match self.flows.remove(&flow) {
                Some(old) => {
                    self.hash ^= old.hash(flow);
                    true
                }
                None => false,
            },
            Kind::Demand | Kind::Route => match self.flows.get(&flow).copied() {
                Some(old) => {
                    self.put(flow, FlowInfo { demand_bps: e.demand_bps, routing: e.routing, ..old })
                }
                None => false,
            },
        }
    }

    /// Sets the entry of `flow`; returns whether it changed.
    pub fn put(&mut self, flow: u32, info: FlowInfo) -> bool {
        match self.flows.insert(flow, info) {
            Some(old) if old == info => false,
            old => {
                if let Some(o) = old {
                    self.hash ^= o.hash(flow);
                }
                self.hash ^= info.hash(flow);
                true
            }
        }
    }

    pub fn get(&self, flow: u32) -> Option<&FlowInfo> {
        self.flows.get(&flow)
    }

    /// The flows in id order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&u32, &FlowInfo)> {
        self.flows.iter()
    }

    pub fn len(&self) -> usize {
        self.flows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }

    /// Equal for views that hold the same entries, whatever order they arrived in.
    pub fn hash(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: Kind, demand: f64) -> Event {
        Event {
            kind,
            src: 1,
            dst: 2,
            seq: 0,
            priority: 0,
            weight: 1.0,
            demand_bps: demand,
            tree: 0,
            routing: Routing::Rps,
        }
    }

    #[test]
    fn same_events_in_any_order_give_the_same_hash_and_finish_removes() {
        let (mut a, mut b) = (View::default(), View::default());
        assert!(a.apply(7, &ev(Kind::Start, f64::INFINITY)));
        assert!(a.apply(9, &ev(Kind::Start, f64::INFINITY)));
        assert!(a.apply(7, &ev(Kind::Demand, 5e9)));
        b.apply(9, &ev(Kind::Start, f64::INFINITY));
        b.apply(7, &ev(Kind::Start, 5e9));
        assert_eq!(a.hash(), b.hash());
        assert!(!a.apply(7, &ev(Kind::Demand, 5e9)), "no change, same hash");
        assert!(a.apply(7, &ev(Kind::Finish, 0.0)) && a.apply(9, &ev(Kind::Finish, 0.0)));
        assert_eq!((a.hash(), a.len()), (0, 0));
        assert!(!a.apply(7, &ev(Kind::Demand, 1e9)), "an update of an unknown flow is ignored");
        assert!(!a.apply(3, &ev(Kind::Finish, 0.0)));
    }
}
