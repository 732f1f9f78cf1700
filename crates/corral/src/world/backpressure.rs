//! Hop-by-hop per-flow back-pressure (`switch.backpressure`): the PFQ baseline of R2C2
//! (SIGCOMM 2015, section 5: "per-flow queues with hop-by-hop back-pressure", an idealised
//! upper bound). Every switch counts the packets of each flow it holds (arrived, not yet sent
//! on or dropped), data and ACKs apart: they travel opposite ways, and one count would let
//! data waiting at one switch and ACKs waiting at its neighbour block each other for good. A
//! port may send a packet to a switch only while that switch holds fewer than
//! `backpressure` of its flow and direction, and its per-flow queues pass over the flows held back
//! (hosts' NICs included, so back-pressure reaches the sources). Credits return at once: the
//! moment a switch sends a packet on, the ports feeding it may send that flow again. Packets
//! on the wire toward a switch are not yet counted, so a flow may exceed the count there by
//! what a link holds in flight (under one packet on R2C2's 100 ns links).

use super::{Event, Simulation};
use crate::ids::{NodeId, PktId, PortId};
use crate::net::queue::Discipline;
use crate::net::{NodeKind, PacketKind};
use crate::units::Time;
use std::collections::HashMap;

pub struct Backpressure {
    limit: u32,
    /// (switch, flow and direction: flow id x 2, + 1 for ACKs) -> packets the switch holds
    /// (absent: none).
    held: HashMap<(u32, u64), u32>,
    /// Per port: it has packets but none it may send now; woken when a count drops.
    stalled: Vec<bool>,
}

impl Backpressure {
    pub fn new(limit: u32, ports: usize) -> Backpressure {
        Backpressure { limit, held: HashMap::new(), stalled: vec![false; ports] }
    }

    fn may_send(&self, to: NodeId, key: u64) -> bool {
        self.held.get(&(to.0, key)).is_none_or(|&h| h < self.limit)
    }

    /// Whether port `port` is waiting for a count to drop.
    pub fn stalled(&self, port: PortId) -> bool {
        self.stalled[port.idx()]
    }
}

/// What a packet is counted under: its flow and direction.
fn key(p: &crate::net::packet::Packet) -> u64 {
    ((p.flow.0 as u64) << 1) | (p.kind == PacketKind::Ack) as u64
}

impl Simulation {
    /// Under back-pressure, the packets the switches count as held (each switch's data
    /// packets and ACKs queued at its ports): `None` when off.
    pub fn backpressure_held(&self) -> Option<u64> {
        Some(self.backpressure.as_ref()?.held.values().map(|&h| h as u64).sum())
    }

    /// The next packet output port `out` sends now: under back-pressure, only of a flow the
    /// next switch has room for (the port stalls if it has none).
    pub(super) fn next_to_send(&mut self, out: PortId, now: Time) -> Option<(PktId, u32)> {
        let port = &mut self.net.ports[out.idx()];
        let Some(bp) = &mut self.backpressure else { return port.queue.dequeue(now) };
        let to = port.peer;
        let got = if self.net.nodes[to.idx()].kind == NodeKind::Switch {
            let (bp, arena): (&Backpressure, _) = (bp, &self.arena);
            port.queue.dequeue_where(now, &|pkt| {
                arena.get(pkt).kind == PacketKind::Control || bp.may_send(to, key(arena.get(pkt)))
            })
        } else {
            port.queue.dequeue(now)
        };
        bp.stalled[out.idx()] = got.is_none() && !port.queue.is_empty();
        got
    }

    /// A data packet or ACK has arrived at `node`: counted if it is a switch.
    pub(super) fn hold(&mut self, node: NodeId, pkt: PktId) {
        let Some(bp) = &mut self.backpressure else { return };
        let p = self.arena.get(pkt);
        if p.kind != PacketKind::Control && self.net.nodes[node.idx()].kind == NodeKind::Switch {
            *bp.held.entry((node.0, key(p))).or_default() += 1;
        }
    }

    /// `pkt` leaves `node` (sent on, or lost there): its count drops, and when the flow may
    /// be sent to `node` again, the stalled ports feeding `node` try again.
    pub(super) fn release(&mut self, node: NodeId, pkt: PktId) {
        let Some(bp) = &mut self.backpressure else { return };
        let p = self.arena.get(pkt);
        if p.kind == PacketKind::Control || self.net.nodes[node.idx()].kind != NodeKind::Switch {
            return;
        }
        let k = (node.0, key(p));
        let Some(h) = bp.held.get_mut(&k) else { return };
        *h -= 1;
        let reopened = *h + 1 == bp.limit;
        if *h == 0 {
            bp.held.remove(&k);
        }
        if !reopened {
            return;
        }
        let now = self.events.now();
        for &q in &self.net.nodes[node.idx()].ports {
            let feeder = self.net.ports[q.idx()].peer_port;
            if bp.stalled[feeder.idx()] && self.net.ports[feeder.idx()].busy_until <= now {
                bp.stalled[feeder.idx()] = false;
                self.events.schedule(now, Event::Dequeue { port: feeder });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flow_may_be_sent_while_the_switch_holds_fewer_than_the_limit() {
        let mut bp = Backpressure::new(2, 4);
        let sw = NodeId(3);
        assert!(bp.may_send(sw, 7));
        bp.held.insert((3, 7), 2);
        assert!(!bp.may_send(sw, 7) && bp.may_send(sw, 6) && bp.may_send(NodeId(4), 7));
        bp.held.insert((3, 7), 1);
        assert!(bp.may_send(sw, 7));
        assert!(!bp.stalled(PortId(1)));
    }
}
