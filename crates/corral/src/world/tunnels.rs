//! Rate-limited FIFO send queues at hosts, one per aggregate a scheme shapes this way: SCC's
//! FIFO tunnel (Tian et al., section III-A: "each tunnel has a rate-limiting queue at its
//! ingress port in the endhost"; section V: each packet "is then forwarded to a rate limited
//! per-tunnel queue").
//!
//! A flow whose aggregate has a queue hands its data packets (first transmissions and
//! retransmissions alike) to the queue as its transport emits them, with no other limit than
//! its own window: what a flow has in the queue is in flight for its transport, so its
//! window bounds it. The queue releases packets first in, first out, to its host's NIC at the
//! rate the scheme sets (a token bucket one byte deep: no burst above the rate), and holds
//! while the NIC has no room (small-queue backpressure; the NIC's drain serves it again).
//! ACKs never enter it. A released packet keeps its transport's timestamp (its RTT includes
//! the wait, as a Linux qdisc's does); the time it waited is kept beside it in the packet
//! arena for the scheme's receiving shim, which sees `ts` as the time the packet left the
//! host.

use super::{Event, Simulation};
use crate::ids::PktId;
use crate::transport::rate::TokenBucket;
use crate::units::Time;
use std::collections::VecDeque;

/// One aggregate's queue at its source host.
#[derive(Clone, Debug)]
pub struct TunnelQueue {
    pub host: u32,
    bucket: TokenBucket,
    /// Packets waiting, oldest first, with their wire bytes and when they entered.
    fifo: VecDeque<(PktId, u32, Time)>,
    bytes: u64,
    /// Time of the live release event, if one is scheduled.
    event_at: Option<Time>,
    /// Waiting for room in the host's NIC.
    waiting_room: bool,
    /// Packets that entered and that left (conservation: entered = left + queued).
    pub entered: u64,
    pub left: u64,
}

impl TunnelQueue {
    /// An empty queue at `host` releasing at `bps` (0 holds every packet).
    pub fn new(host: u32, bps: f64) -> TunnelQueue {
        TunnelQueue {
            host,
            bucket: TokenBucket::new(bps, 1),
            fifo: VecDeque::new(),
            bytes: 0,
            event_at: None,
            waiting_room: false,
            entered: 0,
            left: 0,
        }
    }

    /// Bytes and packets waiting.
    pub fn len(&self) -> (u64, u64) {
        (self.bytes, self.fifo.len() as u64)
    }

    /// A packet of `bytes` on the wire enters at `now`, behind every packet already waiting.
    pub fn push(&mut self, pkt: PktId, bytes: u32, now: Time) {
        self.fifo.push_back((pkt, bytes, now));
        self.bytes += bytes as u64;
        self.entered += 1;
    }

    /// Changes the release rate at `now` (time owed for the last packet is rescaled to it).
    pub fn set_rate(&mut self, now: Time, bps: f64) {
        self.bucket.set_rate(now, bps);
    }

    /// When the head may leave, at `now` or later; `None` when empty or paused.
    pub fn next_release(&self, now: Time) -> Option<Time> {
        if self.fifo.is_empty() {
            return None;
        }
        self.bucket.earliest(now)
    }

    /// The head leaves at `now` if the rate lets it: the packet and how long it waited.
    pub fn pop_due(&mut self, now: Time) -> Option<(PktId, Time)> {
        if self.next_release(now)? > now {
            return None;
        }
        let (pkt, bytes, entered) = self.fifo.pop_front()?;
        self.bucket.consume(now, bytes as u64);
        self.bytes -= bytes as u64;
        self.left += 1;
        Some((pkt, now - entered))
    }
}

impl Simulation {
    /// The queue of aggregate `agg`, if the scheme gave it one.
    pub(super) fn tunnel_mut(&mut self, agg: u32) -> Option<&mut TunnelQueue> {
        self.tunnels.get_mut(agg as usize).and_then(Option::as_mut)
    }

    /// The queue of aggregate `agg`, if the scheme gave it one.
    pub(super) fn tunnel(&self, agg: u32) -> Option<&TunnelQueue> {
        self.tunnels.get(agg as usize).and_then(Option::as_ref)
    }

    /// Whether the flow's data packets go through a tunnel queue.
    pub(super) fn in_tunnel(&self, agg: u32) -> bool {
        self.tunnel(agg).is_some()
    }

    /// Sets aggregate `agg`'s release rate, creating its queue at `host` on first use.
    pub(super) fn set_tunnel_rate(&mut self, agg: u32, host: u32, bps: f64) {
        let now = self.events.now();
        if self.tunnels.len() <= agg as usize {
            self.tunnels.resize(agg as usize + 1, None);
        }
        match &mut self.tunnels[agg as usize] {
            Some(q) => q.set_rate(now, bps),
            slot @ None => *slot = Some(TunnelQueue::new(host, bps)),
        }
    }

    /// A data packet of aggregate `agg` enters its queue.
    pub(super) fn tunnel_push(&mut self, agg: u32, pkt: PktId) {
        let now = self.events.now();
        let size = self.arena.get(pkt).size;
        if let Some(q) = self.tunnel_mut(agg) {
            q.push(pkt, size, now);
        }
    }

    /// Releases what aggregate `agg`'s queue may send now to its host's NIC, and arranges
    /// to be called again when its next packet is due or the NIC has room.
    pub(super) fn serve_tunnel(&mut self, agg: u32) {
        let now = self.events.now();
        loop {
            let Some(q) = self.tunnel_mut(agg) else { return };
            let host = q.host;
            match q.next_release(now) {
                None => return,
                Some(at) if at > now => {
                    if q.event_at.is_none_or(|t| at < t) {
                        q.event_at = Some(at);
                        self.events.schedule(at, Event::TunnelRelease { agg });
                    }
                    return;
                }
                Some(_) => {}
            }
            if self.nic_room(host) == 0 {
                let q = self.tunnel_mut(agg).expect("a tunnel queue");
                if !q.waiting_room {
                    q.waiting_room = true;
                    self.hosts[host as usize].tunnels_waiting.push(agg);
                }
                return;
            }
            let q = self.tunnel_mut(agg).expect("a tunnel queue");
            let (pkt, held) = q.pop_due(now).expect("the head is due");
            self.arena.set_held(pkt, held);
            self.emit(host, pkt);
        }
    }

    /// A tunnel's release event.
    pub(super) fn on_tunnel_release(&mut self, agg: u32) {
        let now = self.events.now();
        let Some(q) = self.tunnel_mut(agg) else { return };
        if q.event_at != Some(now) {
            return; // superseded
        }
        q.event_at = None;
        self.serve_tunnel(agg);
    }

    /// Host `host`'s NIC has room: the tunnel queues that waited for it are served, oldest
    /// wait first.
    pub(super) fn serve_waiting_tunnels(&mut self, host: u32) {
        if self.hosts[host as usize].tunnels_waiting.is_empty() {
            return;
        }
        for agg in std::mem::take(&mut self.hosts[host as usize].tunnels_waiting) {
            if let Some(q) = self.tunnel_mut(agg) {
                q.waiting_room = false;
            }
            self.serve_tunnel(agg);
        }
    }

    /// The tunnel queues' totals: packets that entered, left, and wait now.
    pub fn tunnel_counts(&self) -> (u64, u64, u64) {
        self.tunnels
            .iter()
            .flatten()
            .fold((0, 0, 0), |(e, l, w), q| (e + q.entered, l + q.left, w + q.len().1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GBPS: f64 = 1e9;
    /// The bucket's one byte of depth at 1 Gbps: a packet may leave 8 ns before its time.
    const BYTE: Time = Time::from_ns(8);

    #[test]
    fn packets_leave_in_the_order_they_entered() {
        let mut q = TunnelQueue::new(0, GBPS);
        for i in 0..5 {
            q.push(PktId(10 - i), 1500, Time::ZERO);
        }
        let mut out = Vec::new();
        let mut now = Time::ZERO;
        while let Some(at) = q.next_release(now) {
            now = at;
            out.push(q.pop_due(now).expect("due").0 .0);
        }
        assert_eq!(out, vec![10, 9, 8, 7, 6]);
        assert_eq!((q.entered, q.left, q.len()), (5, 5, (0, 0)));
    }

    // 1500 B at 1 Gbps: 12 us apart; the first leaves at once.
    #[test]
    fn the_head_leaves_at_the_rate_and_not_before() {
        let mut q = TunnelQueue::new(0, GBPS);
        q.push(PktId(0), 1500, Time::ZERO);
        q.push(PktId(1), 1500, Time::ZERO);
        assert_eq!(q.pop_due(Time::ZERO).map(|p| p.0), Some(PktId(0)));
        assert_eq!(q.next_release(Time::ZERO), Some(Time::from_us(12) - BYTE));
        assert_eq!(q.pop_due(Time::from_us(11)), None, "not before its time");
        assert_eq!(q.len(), (1500, 1));
        let (pkt, held) = q.pop_due(Time::from_us(12)).expect("due at 12 us");
        assert_eq!((pkt, held), (PktId(1), Time::from_us(12)), "it waited 12 us");
        assert_eq!(q.next_release(Time::from_us(12)), None, "empty");
    }

    #[test]
    fn a_rate_change_rescales_the_wait_and_zero_holds() {
        let mut q = TunnelQueue::new(0, GBPS);
        q.push(PktId(0), 1500, Time::ZERO);
        q.push(PktId(1), 1500, Time::ZERO);
        q.pop_due(Time::ZERO);
        q.set_rate(Time::ZERO, 2.0 * GBPS);
        assert_eq!(
            q.next_release(Time::ZERO),
            Some(Time::from_us(6) - Time::from_ns(4)),
            "twice the rate: 6 us"
        );
        q.set_rate(Time::ZERO, 0.0);
        assert_eq!(q.next_release(Time::ZERO), None, "rate 0 holds the queue");
        q.set_rate(Time::from_us(100), GBPS);
        assert!(q.pop_due(Time::from_us(100)).is_some(), "resumes at the new rate");
    }

    // Over 10 ms of backlog the bytes released match the rate within one packet.
    #[test]
    fn a_backlogged_queue_releases_its_rate() {
        let mut q = TunnelQueue::new(0, 300e6);
        for i in 0..1000 {
            q.push(PktId(i), 1500, Time::ZERO);
        }
        let (mut now, mut bytes) = (Time::ZERO, 0u64);
        while let Some(at) = q.next_release(now) {
            if at > Time::from_ms(10) {
                break;
            }
            now = at;
            q.pop_due(now);
            bytes += 1500;
        }
        let expect = 300e6 * 0.01 / 8.0;
        assert!((bytes as f64 - expect).abs() <= 1500.0, "{bytes} B against {expect}");
        assert_eq!(q.entered, q.left + q.len().1, "none lost, none duplicated");
    }
}
