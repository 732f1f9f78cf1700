//! Transport glue: flow starts, delivery of packets to the TCP receiver or sender at the
//! destination host, turning their segments and ACKs into packets on the host NIC, and the
//! retransmission, pacing and delayed-ACK timers (one live event per flow; a timer that moved
//! later is re-armed when its stale event fires).

use super::{Event, Simulation};
use crate::ids::{FlowId, NodeId, PktId};
use crate::net::{Packet, PacketKind};
use crate::transport::{AckOut, Segment, TcpSender};
use crate::units::Time;

impl Simulation {
    pub(super) fn on_flow_start(&mut self, flow: FlowId) {
        if flow.idx() >= self.explicit {
            if let Some(next) = self.flows.get(flow.idx() + 1) {
                self.events.schedule(next.def.start, Event::FlowStart { flow: FlowId(flow.0 + 1) });
            }
            self.metrics.classes.active[self.flows[flow.idx()].class_idx as usize] += 1;
        } else {
            self.metrics.note_started(flow.0);
        }
        self.drive_sender(flow, |s, now, out| s.start(now, out));
    }

    /// Runs one sender step with the NIC room as its credit, sends what it emits, re-arms
    /// its timer and queues it for NIC room if it was held back.
    pub(super) fn drive_sender(&mut self, flow: FlowId, step: impl FnOnce(&mut TcpSender, Time, &mut Vec<Segment>)) {
        let now = self.events.now();
        let room = self.nic_room(self.flows[flow.idx()].def.src);
        let mut segs = std::mem::take(&mut self.seg_buf);
        let s = &mut self.flows[flow.idx()].sender;
        s.set_credit(room);
        step(s, now, &mut segs);
        self.send_segments(flow, &mut segs);
        self.seg_buf = segs;
        self.sync_rto(flow);
        self.sync_pacing(flow);
        self.block_if_limited(flow);
    }

    fn send_segments(&mut self, flow: FlowId, segs: &mut Vec<Segment>) {
        let now = self.events.now();
        let (src, dst, prio) = {
            let d = &self.flows[flow.idx()].def;
            (d.src, d.dst, d.priority)
        };
        for s in segs.drain(..) {
            let size = s.len + self.header;
            let pkt = self.arena.alloc(Packet {
                flow,
                kind: PacketKind::Data,
                seq: s.seq,
                payload: s.len,
                size,
                dst_host: dst,
                ect: self.ect,
                ce: false,
                ece: false,
                cwr: s.cwr,
                prio,
                turned: false,
                in_slot: 0,
                ts: now,
            });
            self.counts.sent += 1;
            self.counts.sent_bytes += size as u64;
            self.emit(src, pkt);
        }
    }

    fn send_ack(&mut self, flow: FlowId, a: AckOut) {
        let (src, dst, prio) = {
            let d = &self.flows[flow.idx()].def;
            (d.src, d.dst, d.priority)
        };
        let pkt = self.arena.alloc(Packet {
            flow,
            kind: PacketKind::Ack,
            seq: a.ack,
            payload: 0,
            size: self.header,
            dst_host: src,
            ect: false,
            ce: false,
            ece: a.ece,
            cwr: false,
            prio,
            turned: false,
            in_slot: 0,
            ts: a.ts_echo,
        });
        self.counts.sent += 1;
        self.counts.sent_bytes += self.header as u64;
        self.emit(dst, pkt);
    }

    /// A packet reached a host: it must be the packet's destination.
    pub(super) fn deliver(&mut self, node: NodeId, pkt: PktId) {
        let now = self.events.now();
        let p = self.arena.get(pkt).clone();
        self.arena.free(pkt);
        debug_assert_eq!(self.net.host_index[node.idx()], Some(p.dst_host));
        self.counts.delivered += 1;
        self.counts.delivered_bytes += p.size as u64;
        let flow = p.flow;
        match p.kind {
            PacketKind::Data => {
                self.counts.data_delivered += 1;
                let mut acks = std::mem::take(&mut self.ack_buf);
                let f = &mut self.flows[flow.idx()];
                let before = f.receiver.delivered();
                let arm = f.receiver.on_data(p.seq, p.payload, p.ce, p.cwr, p.ts, &mut acks);
                let traffic = flow.idx() >= self.explicit;
                if traffic {
                    self.metrics.classes.delivered[f.class_idx as usize] += f.receiver.delivered() - before;
                }
                if f.finish.is_none() && f.def.size.is_some_and(|s| f.receiver.delivered() >= s) {
                    f.finish = Some(now);
                    if traffic {
                        self.metrics.classes.active[f.class_idx as usize] -= 1;
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
            }
            PacketKind::Ack => self.drive_sender(flow, |s, now, out| s.on_ack(now, p.seq, p.ece, p.ts, out)),
        }
    }

    /// Makes sure an event is scheduled no later than the sender's timer deadline.
    fn sync_rto(&mut self, flow: FlowId) {
        let f = &mut self.flows[flow.idx()];
        if let Some(deadline) = f.sender.rto_deadline() {
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
        match f.sender.rto_deadline() {
            None => {}
            Some(d) if d > now => {
                f.rto_event_at = Some(d);
                self.events.schedule(d, Event::Rto { flow });
            }
            Some(_) => self.drive_sender(flow, |s, now, out| s.on_rto(now, out)),
        }
    }

    /// Makes sure an event is scheduled no later than the sender's next pacing slot.
    fn sync_pacing(&mut self, flow: FlowId) {
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
