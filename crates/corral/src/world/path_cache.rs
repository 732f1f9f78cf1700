//! Each flow's path, learned once. Under a per-hop rule that is a function of (node,
//! destination, flow) alone (`static`, `ecmp`, `dest_tag`; no random draw), every packet of a
//! flow takes the ports the first took. The first packet asks the route table and the rule at
//! each switch; the ports are kept per flow and direction (data, ACKs), and later packets
//! read them by hop number instead of an entry of the route table (megabytes at k = 16, so a
//! cache miss per hop) and a hash. Results are the same port for port.
//!
//! A packet's hop number is its `ridx`, which only source-routed packets use otherwise. A
//! change of the flow's rule (a scheme's `set_routing`) starts the cache over; packets sent
//! under the old rule, still in flight, find it does not match theirs and ask the table.

use crate::ids::PortId;
use crate::net::packet::Leg;

/// Whether every packet of a flow under `leg` takes the same path.
pub fn cacheable(leg: Leg) -> bool {
    matches!(leg, Leg::Static | Leg::Ecmp | Leg::DestTag)
}

/// The hops a flow's path keeps per direction; later hops of longer paths ask the table.
const KEPT_HOPS: usize = 14;

/// The ports of one direction of a path, by hop, inline (one cache line).
#[derive(Clone, Copy, Debug, Default)]
struct Hops {
    ports: [PortId; KEPT_HOPS],
    len: u8,
}

impl Hops {
    #[inline]
    fn get(&self, hop: u8) -> Option<PortId> {
        (hop < self.len).then(|| self.ports[hop as usize])
    }

    fn learn(&mut self, hop: u8, port: PortId) {
        if hop == self.len && (hop as usize) < KEPT_HOPS {
            self.ports[hop as usize] = port;
            self.len += 1;
        }
    }
}

/// One flow's ports by hop: toward its destination (data) and back (ACKs).
#[derive(Clone, Debug, Default)]
pub struct FlowPath {
    leg: Option<Leg>,
    data: Hops,
    acks: Hops,
}

impl FlowPath {
    /// The port of hop `hop` of packets under `leg` in the given direction, if learned.
    #[inline]
    pub fn get(&self, leg: Leg, data: bool, hop: u8) -> Option<PortId> {
        if self.leg != Some(leg) {
            return None;
        }
        if data { &self.data } else { &self.acks }.get(hop)
    }

    /// Learns that hop `hop` of packets under `leg` in the given direction leaves by `port`:
    /// kept when it is the next hop not yet known. The first hop under a new rule starts over.
    pub fn learn(&mut self, leg: Leg, data: bool, hop: u8, port: PortId) {
        if self.leg != Some(leg) {
            if hop != 0 {
                return;
            }
            *self = FlowPath { leg: Some(leg), ..FlowPath::default() };
        }
        if data { &mut self.data } else { &mut self.acks }.learn(hop, port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_hops_in_order_per_direction_and_starts_over_on_a_new_rule() {
        let mut p = FlowPath::default();
        assert_eq!(p.get(Leg::Ecmp, true, 0), None);
        p.learn(Leg::Ecmp, true, 0, PortId(4));
        p.learn(Leg::Ecmp, true, 2, PortId(9)); // hop 1 not known yet: not kept
        p.learn(Leg::Ecmp, true, 1, PortId(7));
        p.learn(Leg::Ecmp, false, 0, PortId(3));
        assert_eq!(
            (p.get(Leg::Ecmp, true, 0), p.get(Leg::Ecmp, true, 1), p.get(Leg::Ecmp, true, 2)),
            (Some(PortId(4)), Some(PortId(7)), None)
        );
        assert_eq!(p.get(Leg::Ecmp, false, 0), Some(PortId(3)));
        assert_eq!(p.get(Leg::Static, true, 0), None, "another rule's packets ask the table");
        p.learn(Leg::Static, true, 1, PortId(1));
        assert_eq!(
            p.get(Leg::Ecmp, true, 0),
            Some(PortId(4)),
            "a mid-path packet of a new rule does not reset"
        );
        p.learn(Leg::Static, true, 0, PortId(2));
        assert_eq!(
            (p.get(Leg::Static, true, 0), p.get(Leg::Ecmp, true, 0), p.get(Leg::Static, false, 0)),
            (Some(PortId(2)), None, None)
        );
        let mut long = FlowPath::default();
        for hop in 0..KEPT_HOPS as u8 + 2 {
            long.learn(Leg::Static, true, hop, PortId(hop as u32));
        }
        assert_eq!(
            long.get(Leg::Static, true, KEPT_HOPS as u8 - 1),
            Some(PortId(KEPT_HOPS as u32 - 1))
        );
        assert_eq!(
            long.get(Leg::Static, true, KEPT_HOPS as u8),
            None,
            "hops past the kept ones ask the table"
        );
        assert!(cacheable(Leg::Ecmp) && cacheable(Leg::Static) && cacheable(Leg::DestTag));
        assert!(!cacheable(Leg::Spray) && !cacheable(Leg::Rps) && !cacheable(Leg::EqualRandom));
        assert!(!cacheable(Leg::Flowcell), "a flowcell flow changes path every cell");
    }
}
