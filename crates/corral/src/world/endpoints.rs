//! Transport glue: flow starts (the scheme hears of its flows first), delivery of packets to
//! the receiver or sender at the destination host (through the scheme at hosts it tapped),
//! turning segments and ACKs into packets on the host NIC (routing rule, waypoint, source
//! route and aggregate id stamped at creation), the end of a managed flow, and the
//! retransmission, pacing and delayed-ACK timers (one live event per flow; a timer that
//! moved later is re-armed when its stale event fires).

use super::make_flow::handshake_rtt;
use super::{Event, Simulation};
use crate::ids::{FlowId, NodeId, PktId};
use crate::net::packet::{pfabric_priority, SackBlocks};
use crate::net::{telemetry, Ecn, Packet, PacketKind};
use crate::route::{Hop, NO_WAYPOINT};
use crate::transport::{AckOut, HandshakeRtt, Segment, TcpSender};
use crate::units::Time;

impl Simulation {
    pub(super) fn on_flow_start(&mut self, flow: FlowId) {
        if flow.idx() >= self.explicit {
            if flow.idx() + 1 < self.open_loop_end {
                let next = &self.flows[flow.idx() + 1];
                self.events.schedule(next.def.start, Event::FlowStart { flow: FlowId(flow.0 + 1) });
            }
            self.metrics.classes.active[self.flows[flow.idx()].class_idx as usize] += 1;
            self.metrics.classes.started(flow.0);
        } else {
            self.metrics.note_started(flow.0);
        }
        if self.hot[flow.idx()].managed {
            self.call_scheme(|s, ctx| s.on_flow_start(ctx, flow));
        }
        let tcp = &self.scenario.transport;
        if tcp.handshake_rtt == HandshakeRtt::Loaded {
            let (h, def) = (&self.hot[flow.idx()], &self.flows[flow.idx()].def);
            let now = self.events.now();
            let via_top = h.routing.via_top();
            let rtt = handshake_rtt(
                &self.net,
                &self.routes,
                def.src,
                def.dst,
                tcp.header,
                via_top,
                Some(now),
            );
            self.flows[flow.idx()].sender.seed_rtt(rtt);
        }
        self.drive_sender(flow, |s, now, out| s.start(now, out));
    }

    /// Runs one sender step with the NIC room as its credit (no limit for a flow whose
    /// packets enter a tunnel queue), sends what it emits, re-arms its timer and queues it
    /// for NIC room if it was held back.
    pub(super) fn drive_sender(
        &mut self,
        flow: FlowId,
        step: impl FnOnce(&mut TcpSender, Time, &mut Vec<Segment>),
    ) {
        let h = &self.hot[flow.idx()];
        let room = if self.in_tunnel(h.agg) { u64::MAX } else { self.nic_room(h.src) };
        self.drive_sender_with_credit(flow, room, step);
    }

    /// [`Self::drive_sender`] with at most `room` new segments.
    pub(super) fn drive_sender_with_credit(
        &mut self,
        flow: FlowId,
        room: u64,
        step: impl FnOnce(&mut TcpSender, Time, &mut Vec<Segment>),
    ) {
        let now = self.events.now();
        let mut segs = std::mem::take(&mut self.seg_buf);
        let s = &mut self.flows[flow.idx()].sender;
        s.set_credit(room);
        step(s, now, &mut segs);
        self.send_segments(flow, &mut segs);
        self.seg_buf = segs;
        self.sync_rto(flow);
        self.sync_pacing(flow);
        self.block_if_limited(flow);
        if self.hot[flow.idx()].managed {
            self.note_sent_all(flow);
        }
    }

    /// Tells the scheme once a managed sized flow has sent each byte.
    fn note_sent_all(&mut self, flow: FlowId) {
        let f = &mut self.flows[flow.idx()];
        if !f.sent_all && f.def.size.is_some_and(|s| f.sender.progress().0 >= s) {
            f.sent_all = true;
            self.call_scheme(|s, ctx| s.on_flow_sent(ctx, flow));
        }
    }

    /// A packet of `flow` from host `from` to host `to`: the flow's routing rule, a waypoint,
    /// and the whole route when senders route at the source.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn flow_packet(
        &mut self,
        flow: FlowId,
        kind: PacketKind,
        from: u32,
        to: u32,
        seq: u64,
        payload: u32,
        size: u32,
        ts: Time,
        ece: bool,
        cwr: bool,
    ) -> PktId {
        let h = &self.hot[flow.idx()];
        let (routing, leg, mut prio, agg) = (h.routing, h.leg, h.priority, h.agg);
        if h.size_priority {
            let def = &self.flows[flow.idx()].def;
            prio = if kind == PacketKind::Data {
                pfabric_priority(
                    def.size.map_or(u64::MAX, |s| s.saturating_sub(seq)),
                    def.deadline.is_some(),
                )
            } else {
                0
            };
        }
        let ect = kind == PacketKind::Data && h.ect;
        let waypoint = self.router.waypoint(routing, from, self.net.hosts.len());
        let pkt = self.arena.alloc(Packet {
            flow,
            kind,
            seq,
            payload,
            size,
            dst: to,
            waypoint,
            agg,
            leg,
            ridx: 0,
            rlen: 0,
            ecn: Ecn::new(ect, ece, cwr),
            prio,
            in_slot: 0,
            ts,
        });
        if let Some(sr) = self.source_routes {
            let hop = Hop { waypoint, cell: routing.cell(seq), ..Hop::toward(flow, to, leg) };
            let mut path = std::mem::take(&mut self.path_buf);
            let whole = self.router.path(
                &self.routes,
                &self.net,
                self.net.hosts[from as usize],
                hop,
                &mut path,
            );
            // Path lengths were checked when the run was built; a detour around a failed link
            // may not fit, and an unreachable destination has no path: such packets are
            // routed hop by hop instead.
            if let (true, Ok(route)) = (whole, sr.encode(&self.net, &path)) {
                // The host's own NIC is the first hop; switches follow the rest.
                self.arena.set_route(pkt, route, path.len() as u8);
                self.arena.get_mut(pkt).ridx = 1;
                self.arena.get_mut(pkt).waypoint = NO_WAYPOINT;
            }
            self.path_buf = path;
        }
        self.counts.sent += 1;
        self.counts.sent_bytes += size as u64;
        pkt
    }

    /// Puts the sender's segments on its host's NIC, or in its tunnel queue if its aggregate
    /// has one ([`super::tunnels`]).
    fn send_segments(&mut self, flow: FlowId, segs: &mut Vec<Segment>) {
        let now = self.events.now();
        let (src, dst) = (self.hot[flow.idx()].src, self.hot[flow.idx()].dst);
        let agg = self.hot[flow.idx()].agg;
        let tunnel = !segs.is_empty() && self.in_tunnel(agg);
        let int = self.hot[flow.idx()].telemetry;
        let int_header = if int { telemetry::HEADER_BYTES } else { 0 };
        for s in segs.drain(..) {
            let pkt = self.flow_packet(
                flow,
                PacketKind::Data,
                src,
                dst,
                s.seq,
                s.len,
                s.len + self.header + int_header,
                now,
                false,
                s.cwr,
            );
            if int {
                self.arena.telemetry(pkt).clear();
            }
            if tunnel {
                self.tunnel_push(agg, pkt);
            } else {
                self.emit(src, pkt);
            }
        }
        if tunnel {
            self.serve_tunnel(agg);
        }
    }

    fn send_ack(&mut self, flow: FlowId, a: AckOut) {
        let (src, dst) = (self.hot[flow.idx()].src, self.hot[flow.idx()].dst);
        let int = self.hot[flow.idx()].telemetry;
        let echo = if int {
            self.int_echo.get(flow.idx()).copied().unwrap_or_default()
        } else {
            Default::default()
        };
        let int_bytes = if int { echo.wire_bytes() } else { 0 };
        let size = self.header + a.sack.option_bytes() + int_bytes;
        let pkt = self.flow_packet(
            flow,
            PacketKind::Ack,
            dst,
            src,
            a.ack,
            0,
            size,
            a.ts_echo,
            a.ece,
            false,
        );
        if self.scenario.transport.sack {
            self.arena.set_sack(pkt, a.sack);
        }
        if int {
            *self.arena.telemetry(pkt) = echo;
        }
        self.emit(dst, pkt);
    }

    /// A data or ACK packet reached a host: it must be the packet's destination.
    pub(super) fn deliver(&mut self, node: NodeId, pkt: PktId) {
        let now = self.events.now();
        debug_assert_eq!(self.net.host_index[node.idx()], Some(self.arena.get(pkt).dst));
        if self.hosts_tapped {
            let host = self.arena.get(pkt).dst;
            if self.tapped_hosts[host as usize] && self.hot[self.arena.get(pkt).flow.idx()].managed
            {
                self.tap_host(host, pkt);
            }
        }
        let p = self.arena.get(pkt).clone();
        let sack = if p.kind == PacketKind::Ack && self.scenario.transport.sack {
            self.arena.sack(pkt)
        } else {
            SackBlocks::default()
        };
        let h = &self.hot[p.flow.idx()];
        // The telemetry an ACK echoes, or a data packet brought for the receiver to echo.
        let int = (h.telemetry || h.ack_signals).then(|| {
            if h.telemetry {
                Some(*self.arena.telemetry(pkt))
            } else {
                None
            }
        });
        self.arena.free(pkt);
        self.counts.delivered += 1;
        self.counts.delivered_bytes += p.size as u64;
        let flow = p.flow;
        match p.kind {
            PacketKind::Data => {
                self.counts.data_delivered += 1;
                if let Some(Some(t)) = int {
                    if self.int_echo.len() <= flow.idx() {
                        self.int_echo.resize(self.flows.len().max(flow.idx() + 1), t);
                    }
                    self.int_echo[flow.idx()] = t;
                }
                let mut acks = std::mem::take(&mut self.ack_buf);
                let f = &mut self.flows[flow.idx()];
                let before = f.receiver.delivered();
                let arm =
                    f.receiver.on_data(p.seq, p.payload, p.ecn.ce(), p.ecn.cwr(), p.ts, &mut acks);
                let traffic = flow.idx() >= self.explicit;
                if traffic {
                    self.metrics.classes.delivered[f.class_idx as usize] +=
                        f.receiver.delivered() - before;
                }
                let mut arrived = false;
                if f.finish.is_none() && f.def.size.is_some_and(|s| f.receiver.delivered() >= s) {
                    f.finish = Some(now);
                    arrived = true;
                    if traffic {
                        self.metrics.classes.active[f.class_idx as usize] -= 1;
                        self.metrics.classes.finished(flow.0);
                    }
                }
                self.metrics.latency.on_data(now, flow, now - p.ts);
                if arm && !f.delack_armed {
                    f.delack_armed = true;
                    let at = now + self.scenario.transport.delayed_ack_timeout;
                    self.events.schedule(at, Event::DelAck { flow });
                }
                for a in acks.drain(..) {
                    self.send_ack(flow, a);
                }
                self.ack_buf = acks;
                if arrived && flow.idx() >= self.open_loop_end {
                    self.on_rpc_arrived(flow);
                }
            }
            PacketKind::Ack => {
                if let Some(t) = int {
                    let s = &mut self.flows[flow.idx()].sender;
                    s.on_ack_signal(now, p.seq, p.ts, t.as_ref());
                }
                self.drive_sender(flow, |s, now, out| {
                    s.on_ack(now, p.seq, p.ecn.ece(), p.ts, sack.as_slice(), out)
                });
                let f = &mut self.flows[flow.idx()];
                if self.hot[flow.idx()].managed && !f.ended && f.sender.finished() {
                    f.ended = true;
                    self.call_scheme(|s, ctx| s.on_flow_end(ctx, flow));
                }
            }
            PacketKind::Control => {
                unreachable!("control packets are delivered by the control plane")
            }
        }
    }

    /// Makes sure an event is scheduled no later than the sender's timer deadline.
    fn sync_rto(&mut self, flow: FlowId) {
        let f = &mut self.flows[flow.idx()];
        if let Some(deadline) = f.sender.timer_deadline() {
            if f.rto_event_at.is_none_or(|t| deadline < t) {
                f.rto_event_at = Some(deadline);
                self.events.schedule(deadline, Event::Rto { flow });
            }
        }
    }

    pub(super) fn on_rto_event(&mut self, flow: FlowId) {
        let now = self.events.now();
        let f = &mut self.flows[flow.idx()];
        if f.rto_event_at != Some(now) {
            return; // superseded by an earlier event
        }
        f.rto_event_at = None;
        match f.sender.timer_deadline() {
            None => {}
            Some(d) if d > now => {
                f.rto_event_at = Some(d);
                self.events.schedule(d, Event::Rto { flow });
            }
            Some(_) => self.drive_sender(flow, |s, now, out| s.on_timer(now, out)),
        }
    }

    /// Makes sure an event is scheduled no later than the sender's next pacing slot.
    pub(super) fn sync_pacing(&mut self, flow: FlowId) {
        let now = self.events.now();
        let f = &mut self.flows[flow.idx()];
        if let Some(at) = f.sender.pacing_deadline(now) {
            if f.pace_event_at.is_none_or(|t| at < t) {
                f.pace_event_at = Some(at);
                self.events.schedule(at, Event::Pace { flow });
            }
        }
    }

    pub(super) fn on_pace_event(&mut self, flow: FlowId) {
        let now = self.events.now();
        let f = &mut self.flows[flow.idx()];
        if f.pace_event_at != Some(now) {
            return; // superseded by an earlier event
        }
        f.pace_event_at = None;
        self.drive_sender(flow, |s, now, out| s.resume(now, out));
    }

    pub(super) fn on_delack(&mut self, flow: FlowId) {
        let f = &mut self.flows[flow.idx()];
        f.delack_armed = false;
        if let Some(a) = f.receiver.on_delack_timer() {
            self.send_ack(flow, a);
        }
    }
}
