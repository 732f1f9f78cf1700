//! Moving packets: at a switch, a source-routed packet takes the next port of its route;
//! any other packet asks the router ([`crate::route::Router`]) for one of the equal-cost
//! candidates by its per-hop rule and waypoint. Control packets go their own way
//! ([`super::scheme`]). An output port transmits at once when idle or hands the packet to
//! its queue discipline, which accepts, marks or drops it; a port a scheme tapped shows the
//! packet to the scheme first. Serialization takes size/rate; the packet arrives at the peer
//! one propagation delay after its last bit left.

use super::{path_cache, Event, Simulation};
use crate::ids::{PktId, PortId};
use crate::net::queue::{Admit, Arrival, Discipline};
use crate::net::telemetry;
use crate::net::PacketKind;
use crate::route::{Hop, Leg, NO_WAYPOINT};

impl Simulation {
    pub(super) fn on_arrive(&mut self, ingress: PortId, pkt: PktId) {
        let end = self.net.ends[ingress.idx()];
        let (node, in_slot) = (end.node, end.local);
        if self.links_failed && self.net.ports[ingress.idx()].down {
            // On the wire when the link failed.
            let (out, slot) =
                (self.net.ports[ingress.idx()].peer_port, self.arena.get(pkt).in_slot);
            self.lose_on_down_link(out, pkt, slot);
            return;
        }
        let p = self.arena.get(pkt);
        if p.kind == PacketKind::Control {
            self.on_control_arrive(node, in_slot, pkt);
            return;
        }
        if end.host {
            self.deliver(node, pkt);
            return;
        }
        if self.backpressure.is_some() {
            self.hold(node, pkt);
        }
        let p = self.arena.get(pkt);
        let out = if p.rlen > 0 {
            let sr = self.source_routes.as_ref().expect("source-routed packets need the encoding");
            let out = sr.hop(&self.net, node, self.arena.route(pkt), p.ridx);
            self.arena.get_mut(pkt).ridx += 1;
            out
        } else if p.waypoint == NO_WAYPOINT {
            // The common case: straight to the destination, one rule-based pick, or the
            // flow's learned path when the rule always picks the same.
            let (flow, dst, leg, hop, seq) = (p.flow, p.dst, p.leg, p.ridx, p.seq);
            let cached = path_cache::cacheable(leg);
            let data = cached && dst == self.hot[flow.idx()].dst;
            let learned = if cached {
                self.paths.get(flow.idx()).and_then(|path| path.get(leg, data, hop))
            } else {
                None
            };
            if let Some(out) = learned {
                self.arena.get_mut(pkt).ridx += 1;
                out
            } else {
                let cands = self.routes.candidates(node, dst);
                let out = if cands.len() == 1 {
                    cands[0]
                } else if cands.is_empty() {
                    self.lose_without_route(node, pkt, in_slot);
                    return;
                } else {
                    let mut h = Hop::toward(flow, dst, leg);
                    if leg == Leg::Flowcell {
                        h.cell = self.hot[flow.idx()].routing.cell(seq);
                        h.depth = hop;
                    }
                    self.router.pick_toward(&self.routes, &self.net, node, cands, &h)
                };
                if leg == Leg::Flowcell {
                    // Flowcells count the switches a packet has left (its rotation's digit).
                    let p = self.arena.get_mut(pkt);
                    p.ridx = p.ridx.saturating_add(1);
                }
                if cached {
                    if self.paths.len() <= flow.idx() {
                        self.paths
                            .resize_with(self.hot.len().max(flow.idx() + 1), Default::default);
                    }
                    self.paths[flow.idx()].learn(leg, data, hop, out);
                    self.arena.get_mut(pkt).ridx += 1;
                }
                out
            }
        } else {
            let mut hop = Hop { waypoint: p.waypoint, ..Hop::toward(p.flow, p.dst, p.leg) };
            let Some(out) = self.router.next_port(&self.routes, &self.net, node, &mut hop) else {
                self.lose_without_route(node, pkt, in_slot);
                return;
            };
            self.arena.get_mut(pkt).waypoint = hop.waypoint;
            out
        };
        self.enqueue(out, pkt, in_slot);
    }

    /// Offers `pkt`, which came in through input slot `in_slot` of the port's node, to the
    /// output port `out`: the scheme (if it tapped the port), the switch's shared buffer (if
    /// any) and then the port's discipline decide. A packet accepted at an idle port starts
    /// on the wire at once. Packets the discipline drops from its queue to make room are
    /// accounted as drops here too.
    pub(super) fn enqueue(&mut self, out: PortId, pkt: PktId, in_slot: u16) {
        let port = &self.net.ports[out.idx()];
        if port.down {
            self.release(port.node, pkt);
            self.lose_on_down_link(out, pkt, in_slot);
            return;
        }
        if port.tapped {
            self.tap_port(out, pkt);
        }
        let now = self.events.now();
        let (size, ect, flow, prio, agg, control) = {
            let p = self.arena.get_mut(pkt);
            p.in_slot = in_slot;
            (p.size, p.ecn.ect(), p.flow, p.prio, p.agg, p.kind == PacketKind::Control)
        };
        let (weight, tenant) = if control {
            (1.0, 0)
        } else {
            (self.hot[flow.idx()].weight, self.hot[flow.idx()].tenant)
        };
        let port = &mut self.net.ports[out.idx()];
        let mut shared = self.shared_buffers.get_mut(port.node.idx()).and_then(Option::as_mut);
        let was_empty = port.queue.is_empty();
        // A port stalled by back-pressure is idle with packets queued.
        let stalled = self.backpressure.as_ref().is_some_and(|bp| bp.stalled(out));
        let idle = (was_empty || stalled) && port.busy_until <= now;
        let arrival = Arrival { pkt, size, ect, flow, prio, weight, tenant, agg, now };
        // At an idle port with an empty FIFO and its own buffer, the packet goes straight
        // onto the wire without passing through the queue.
        let passed = if idle && was_empty && shared.is_none() && !stalled {
            port.queue.pass_idle(&arrival)
        } else {
            None
        };
        let admit = match (passed, &mut shared) {
            (Some(admit), _) => admit,
            (None, Some(sb)) => {
                let before = port.queue.bytes();
                let admit =
                    if sb.admits(before, size) { port.queue.enqueue(arrival) } else { Admit::Drop };
                sb.update(before, port.queue.bytes());
                admit
            }
            (None, None) => port.queue.enqueue(arrival),
        };
        match admit {
            Admit::Accept { mark } | Admit::Displace { mark } => {
                port.note_arrival(in_slot, false);
                if control {
                    port.ctrl_queued += 1;
                }
                if mark && !port.ecn_off {
                    port.stats.ecn_marks += 1;
                    self.arena.get_mut(pkt).ecn.set_ce(true);
                }
                if idle && self.backpressure.is_some() {
                    // Packets held back stay queued: the port goes on when it is free.
                    let sent = self.send_next(out);
                    let port = &mut self.net.ports[out.idx()];
                    port.stats.max_queue_bytes = port.stats.max_queue_bytes.max(port.queue.bytes());
                    if sent && !port.queue.is_empty() {
                        let at = port.busy_until;
                        self.events.schedule_lane(at, Event::Dequeue { port: out });
                    }
                } else if idle {
                    let (first, first_size) = match passed {
                        Some(_) => (pkt, size),
                        None => port.queue.dequeue(now).expect("just queued"),
                    };
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
        // Only a displacing or dropping verdict can come with victims.
        if matches!(admit, Admit::Accept { .. }) {
            return;
        }
        while let Some((victim, _)) = self.net.ports[out.idx()].queue.pop_victim() {
            let slot = self.arena.get(victim).in_slot;
            if self.arena.get(victim).kind == PacketKind::Control {
                self.net.ports[out.idx()].ctrl_queued -= 1;
            }
            self.drop_packet(out, victim, slot);
        }
    }

    /// Accounts and frees a packet dropped at output port `out` that entered through `in_slot`.
    fn drop_packet(&mut self, out: PortId, pkt: PktId, in_slot: u16) {
        self.net.ports[out.idx()].note_arrival(in_slot, true);
        self.release(self.net.ports[out.idx()].node, pkt);
        self.discard(Some(out), pkt, in_slot);
    }

    /// Accounts and frees a lost packet: at output port `out` (its drop counter and the drop
    /// log), or, with `None`, where no route leads on. A lost control packet is reported to
    /// its sender.
    pub(super) fn discard(&mut self, out: Option<PortId>, pkt: PktId, in_slot: u16) {
        let now = self.events.now();
        let p = self.arena.get(pkt);
        self.counts.dropped += 1;
        self.counts.dropped_bytes += p.size as u64;
        if let Some(out) = out {
            let port = &mut self.net.ports[out.idx()];
            port.stats.drops += 1;
            if self.metrics.record_drops {
                let in_port = if in_slot == port.local_slot() { None } else { Some(in_slot) };
                let seq = if p.kind == PacketKind::Data { p.seq } else { u64::MAX };
                self.metrics.drops.push(now, out, in_port, p.flow, seq);
            }
        }
        let control = (p.kind == PacketKind::Control).then_some(p.flow.0);
        self.arena.free(pkt);
        if let Some(slot) = control {
            self.control_dropped(slot);
        }
    }

    /// Puts `pkt` on the wire of idle port `out`: its arrival at the far end joins the event
    /// queue's lane of that delay. Forced inline, with `send_next` (`bench/README.md`).
    #[inline(always)]
    fn transmit(&mut self, out: PortId, pkt: PktId, size: u32) {
        let size = if self.telemetry { self.stamp_telemetry(out, pkt, size) } else { size };
        let now = self.events.now();
        if self.backpressure.is_some() {
            self.release(self.net.ports[out.idx()].node, pkt);
        }
        let port = &mut self.net.ports[out.idx()];
        if port.ctrl_queued > 0 {
            let p = self.arena.get(pkt);
            if p.kind == PacketKind::Control {
                port.ctrl_queued -= 1;
                self.ctrl.note_sent(p.flow.0, Some(out), size);
            }
        }
        let done = now + port.tx_time(size as u64);
        port.busy_until = done;
        port.stats.tx_packets += 1;
        port.stats.tx_bytes += size as u64;
        let arrive = done + port.delay;
        let ingress = port.peer_port;
        self.events.schedule_lane(arrive, Event::Arrive { port: ingress, pkt });
    }

    /// A switch's egress port `out` appends its record to a data packet of a telemetry flow
    /// as the packet starts on the wire ([`crate::net::telemetry`]); returns the packet's size
    /// on the wire, grown by the record.
    #[cold]
    #[inline(never)]
    fn stamp_telemetry(&mut self, out: PortId, pkt: PktId, size: u32) -> u32 {
        let port = &self.net.ports[out.idx()];
        let p = self.arena.get(pkt);
        if p.kind != PacketKind::Data
            || !self.hot[p.flow.idx()].telemetry
            || self.net.host_index[port.node.idx()].is_some()
        {
            return size;
        }
        let now = self.events.now();
        let grown = telemetry::stamp(self.arena.telemetry(pkt), port, now);
        self.arena.get_mut(pkt).size += grown;
        self.counts.sent_bytes += grown as u64;
        size + grown
    }

    pub(super) fn on_dequeue(&mut self, out: PortId) {
        if !self.send_next(out) {
            return;
        }
        let port = &self.net.ports[out.idx()];
        if !port.queue.is_empty() {
            let at = port.busy_until;
            self.events.schedule_lane(at, Event::Dequeue { port: out });
        }
        if let Some(host) = self.net.host_index[port.node.idx()] {
            self.on_nic_drain(host);
        }
    }

    /// Idle port `out` starts on its next packet, if it has one it may send; whether it did.
    #[inline(always)]
    fn send_next(&mut self, out: PortId) -> bool {
        let now = self.events.now();
        let Some((pkt, size)) = self.next_to_send(out, now) else { return false };
        if let Some(Some(sb)) = self.shared_buffers.get_mut(self.net.ports[out.idx()].node.idx()) {
            sb.update(size as u64, 0);
        }
        self.transmit(out, pkt, size);
        true
    }
}
