//! Moving packets: switches look up equal-cost candidates (or, for equal-length routing on
//! the way up, their uplinks) and let the router pick one; an
//! output port transmits at once when idle or hands the packet to its queue discipline, which
//! accepts, marks or drops it. Serialization takes size/rate; the packet arrives at the peer
//! one propagation delay after its last bit left.

use super::{Event, Simulation};
use crate::ids::{PktId, PortId};
use crate::net::queue::{Admit, Arrival, Discipline};
use crate::net::{NodeKind, PacketKind};

impl Simulation {
    pub(super) fn on_arrive(&mut self, ingress: PortId, pkt: PktId) {
        let port = &self.net.ports[ingress.idx()];
        let (node, in_slot) = (port.node, port.local);
        if self.net.nodes[node.idx()].kind == NodeKind::Host {
            self.deliver(node, pkt);
            return;
        }
        let (dst, flow, turned) = {
            let p = self.arena.get(pkt);
            (p.dst_host, p.flow, p.turned)
        };
        // Equal-length routing: climb while there is a way up; turn at the top tier.
        let mut climb = false;
        if self.router.via_top() && !turned {
            climb = !self.routes.uplinks(node).is_empty();
            self.arena.get_mut(pkt).turned = !climb;
        }
        let out = {
            let cands = if climb { self.routes.uplinks(node) } else { self.routes.candidates(node, dst) };
            let div = self.net.nodes[node.idx()].static_div;
            self.router.choose(node, div, cands, flow, dst)
        };
        self.enqueue(out, pkt, in_slot);
    }

    /// Offers `pkt`, which came in through input slot `in_slot` of the port's node, to the
    /// output port `out`: the switch's shared buffer (if any) and then the port's discipline
    /// decide. A packet accepted at an idle port starts on the wire at once. Packets the
    /// discipline drops from its queue to make room are accounted as drops here too.
    pub(super) fn enqueue(&mut self, out: PortId, pkt: PktId, in_slot: u16) {
        let now = self.events.now();
        let (size, ect, flow, prio) = {
            let p = self.arena.get_mut(pkt);
            p.in_slot = in_slot;
            (p.size, p.ect, p.flow, p.prio)
        };
        let weight = self.flows[flow.idx()].def.weight;
        let port = &mut self.net.ports[out.idx()];
        let shared = &mut self.shared_buffers[port.node.idx()];
        let was_empty = port.queue.is_empty();
        let idle = was_empty && port.busy_until <= now;
        let before = port.queue.bytes();
        let admit = match shared {
            Some(sb) if !sb.admits(before, size) => Admit::Drop,
            _ => port.queue.enqueue(Arrival { pkt, size, ect, flow, prio, weight, tenant: 0, agg: u32::MAX, now }),
        };
        if let Some(sb) = shared {
            sb.update(before, port.queue.bytes());
        }
        match admit {
            Admit::Accept { mark } | Admit::Displace { mark } => {
                port.note_arrival(in_slot, false);
                if mark {
                    port.stats.ecn_marks += 1;
                    self.arena.get_mut(pkt).ce = true;
                }
                if idle {
                    let (first, first_size) = port.queue.dequeue(now).expect("just queued");
                    if let Some(sb) = shared {
                        sb.update(first_size as u64, 0);
                    }
                    self.transmit(out, first, first_size);
                } else {
                    port.stats.max_queue_bytes = port.stats.max_queue_bytes.max(port.queue.bytes());
                    if was_empty {
                        let at = port.busy_until;
                        self.events.schedule(at, Event::Dequeue { port: out });
                    }
                }
            }
            Admit::Drop => self.drop_packet(out, pkt, in_slot),
        }
        while let Some((victim, _)) = self.net.ports[out.idx()].queue.pop_victim() {
            let slot = self.arena.get(victim).in_slot;
            self.drop_packet(out, victim, slot);
        }
    }

    /// Accounts and frees a packet dropped at output port `out` that entered through `in_slot`.
    fn drop_packet(&mut self, out: PortId, pkt: PktId, in_slot: u16) {
        let now = self.events.now();
        let port = &mut self.net.ports[out.idx()];
        port.note_arrival(in_slot, true);
        port.stats.drops += 1;
        let p = self.arena.get(pkt);
        self.counts.dropped += 1;
        self.counts.dropped_bytes += p.size as u64;
        if self.metrics.record_drops {
            let in_port = if in_slot == port.local_slot() { None } else { Some(in_slot) };
            let seq = if p.kind == PacketKind::Data { p.seq } else { u64::MAX };
            self.metrics.drops.push(now, out, in_port, p.flow, seq);
        }
        self.arena.free(pkt);
    }

    fn transmit(&mut self, out: PortId, pkt: PktId, size: u32) {
        let now = self.events.now();
        let port = &mut self.net.ports[out.idx()];
        let done = now + port.rate.tx_time(size as u64);
        port.busy_until = done;
        port.stats.tx_packets += 1;
        port.stats.tx_bytes += size as u64;
        let arrive = done + port.delay;
        let ingress = port.peer_port;
        self.events.schedule(arrive, Event::Arrive { port: ingress, pkt });
    }

    pub(super) fn on_dequeue(&mut self, out: PortId) {
        let now = self.events.now();
        let port = &mut self.net.ports[out.idx()];
        let Some((pkt, size)) = port.queue.dequeue(now) else { return };
        if let Some(sb) = &mut self.shared_buffers[port.node.idx()] {
            sb.update(size as u64, 0);
        }
        self.transmit(out, pkt, size);
        let port = &self.net.ports[out.idx()];
        if !port.queue.is_empty() {
            let at = port.busy_until;
            self.events.schedule(at, Event::Dequeue { port: out });
        }
        if let Some(host) = self.net.host_index[port.node.idx()] {
            self.on_nic_drain(host);
        }
    }
}
