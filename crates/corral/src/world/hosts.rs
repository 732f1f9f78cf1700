//! Host-side send path between a flow's transport and its NIC: processing jitter (packets
//! reach the NIC a random delay later, in order) and small-queue backpressure (a flow hands
//! new segments to the NIC only while few packets wait there, like Linux TCP Small Queues).
//! Flows held back wait in a list that the NIC serves as it drains (`host.scheduler`):
//! round robin, or deficit round robin by bytes weighted by the flows' weights (fair
//! queueing across flows, Shreedhar and Varghese 1995). A rate-limited flow is never held
//! for more than its rate, so the NIC shares what the others leave max-min fairly.

use super::{Event, Simulation};
use crate::ids::{FlowId, PktId};
use crate::net::queue::Discipline;
use crate::scenario::HostScheduler;
use crate::sim::rng::{stream, Rng};
use crate::units::Time;
use std::collections::VecDeque;

pub struct HostState {
    jitter_rng: Rng,
    /// When the last packet reaches the NIC: jittered packets keep their order.
    last_ready: Time,
    /// Packets emitted but still in the jitter delay, not yet in the NIC queue.
    pending: u32,
    /// Flows waiting for NIC room, in service order, with their deficit (bytes) for the fair
    /// scheduler.
    blocked: VecDeque<(FlowId, i64)>,
    /// Tunnel queues (by aggregate) waiting for NIC room ([`super::tunnels`]).
    pub(super) tunnels_waiting: Vec<u32>,
}

impl HostState {
    pub fn new(seed: u64, host: u64) -> HostState {
        HostState {
            jitter_rng: Rng::stream(seed, stream::HOST_JITTER, host),
            last_ready: Time::ZERO,
            pending: 0,
            blocked: VecDeque::new(),
            tunnels_waiting: Vec::new(),
        }
    }
}

impl Simulation {
    /// New segments host `host` may hand to its NIC now.
    pub(super) fn nic_room(&self, host: u32) -> u64 {
        let limit = self.scenario.host.small_queue as u64;
        if limit == 0 {
            return u64::MAX;
        }
        let nic = self.net.host_port(host);
        let waiting =
            self.net.ports[nic.idx()].queue.packets() + self.hosts[host as usize].pending as u64;
        limit.saturating_sub(waiting)
    }

    /// After a sender call: a flow whose window still allows sending was stopped by the NIC
    /// and waits for room.
    pub(super) fn block_if_limited(&mut self, flow: FlowId) {
        let now = self.events.now();
        let tunnel = self.in_tunnel(self.hot[flow.idx()].agg);
        let f = &mut self.flows[flow.idx()];
        // A flow held back by its pacing clock waits for its pacing timer, not for NIC room;
        // a flow in a tunnel queue never waits for the NIC (its queue does).
        if self.scenario.host.small_queue > 0 && !f.blocked && f.sender.can_send_at(now) && !tunnel
        {
            f.blocked = true;
            self.hosts[f.def.src as usize].blocked.push_back((flow, 0));
        }
    }

    /// Host `host`'s NIC started sending a queued packet: waiting tunnel queues, then
    /// waiting flows, get the room.
    pub(super) fn on_nic_drain(&mut self, host: u32) {
        self.serve_waiting_tunnels(host);
        match self.scenario.host.scheduler {
            HostScheduler::RoundRobin => self.serve_round_robin(host),
            HostScheduler::Fair => self.serve_fair(host),
        }
    }

    fn serve_round_robin(&mut self, host: u32) {
        let mut turns = self.hosts[host as usize].blocked.len();
        while turns > 0 {
            turns -= 1;
            if self.nic_room(host) == 0 {
                break;
            }
            let Some((flow, _)) = self.hosts[host as usize].blocked.pop_front() else { break };
            self.flows[flow.idx()].blocked = false;
            self.drive_sender(flow, |s, now, out| s.resume(now, out));
        }
    }

    /// Deficit round robin: the flow at the head sends one segment while its deficit covers
    /// a full packet, gains `weight` packets of deficit per visit, and goes to the back once
    /// spent; a flow that stops waiting leaves the list with its deficit.
    fn serve_fair(&mut self, host: u32) {
        let packet = (self.scenario.transport.mss + self.header) as i64;
        // Every waiting flow is visited at most a bounded number of times per call.
        let mut visits = 4 * self.hosts[host as usize].blocked.len() + 4;
        while visits > 0 && self.nic_room(host) > 0 {
            visits -= 1;
            let h = &mut self.hosts[host as usize];
            let Some(&(flow, deficit)) = h.blocked.front() else { break };
            if deficit < packet {
                let quantum = (packet as f64 * self.hot[flow.idx()].weight).round().max(1.0) as i64;
                h.blocked.pop_front();
                h.blocked.push_back((flow, deficit + quantum));
                continue;
            }
            h.blocked.pop_front();
            self.flows[flow.idx()].blocked = false;
            let before = self.flows[flow.idx()].sender.stats.segments_sent;
            self.drive_sender_with_credit(flow, 1, |s, now, out| s.resume(now, out));
            let sent = (self.flows[flow.idx()].sender.stats.segments_sent - before) as i64;
            let f = &mut self.flows[flow.idx()];
            if f.blocked {
                // Still waiting: keep its place at the head with the rest of its deficit.
                let h = &mut self.hosts[host as usize];
                if let Some(pos) = h.blocked.iter().rposition(|e| e.0 == flow) {
                    h.blocked.remove(pos);
                }
                h.blocked.push_front((flow, deficit - sent * packet));
            }
        }
    }

    /// Hands a packet from host `host`'s transport to its NIC, after the host's processing
    /// jitter when one is configured.
    pub(super) fn emit(&mut self, host: u32, pkt: PktId) {
        let nic = self.net.host_port(host);
        let jitter = self.scenario.host.send_jitter;
        if jitter == Time::ZERO {
            let slot = self.net.ports[nic.idx()].local_slot();
            self.enqueue(nic, pkt, slot);
            return;
        }
        let now = self.events.now();
        let h = &mut self.hosts[host as usize];
        let at = (now + Time(h.jitter_rng.below(jitter.0))).max(h.last_ready);
        h.last_ready = at;
        h.pending += 1;
        self.events.schedule(at, Event::NicEnqueue { port: nic, pkt });
    }

    /// A jittered packet reaches its host's NIC queue.
    pub(super) fn on_nic_enqueue(&mut self, nic: crate::ids::PortId, pkt: PktId) {
        let port = &self.net.ports[nic.idx()];
        let (slot, node) = (port.local_slot(), port.node);
        self.enqueue(nic, pkt, slot);
        if let Some(h) = self.net.host_index[node.idx()] {
            self.hosts[h as usize].pending -= 1;
            // Room may have opened (the packet went straight to an idle wire).
            self.on_nic_drain(h);
        }
    }
}
