//! Deficit round robin over a set of packet queues ("slots"), shared by SFQ and per-flow DRR
//! (Shreedhar and Varghese, "Efficient Fair Queueing Using Deficit Round Robin", SIGCOMM 1995,
//! section 3), in the form Linux sch_sfq uses: the slot at the head of the active list sends
//! while its deficit is positive, each packet costing its size; at zero or below it gets one
//! more quantum and goes to the back. A slot that becomes backlogged joins the back with a
//! full quantum; an emptied slot leaves the list. Over any interval in which two slots stay
//! backlogged, the bytes they are served differ from their quanta's ratio by at most one
//! quantum plus one packet.

use super::Admit;
use crate::ids::PktId;
use crate::units::BufferSize;
use std::collections::VecDeque;

#[derive(Default)]
pub struct Slot {
    /// Queued packets: (packet, size, flow).
    pub q: VecDeque<(PktId, u32, u32)>,
    pub bytes: u64,
    deficit: i64,
    /// Bytes added to the deficit per round.
    pub quantum: i64,
    /// Weight for choosing a drop victim (bytes / weight); 1 for SFQ buckets.
    pub weight: f64,
    active: bool,
}

#[derive(Default)]
pub struct Rounds {
    pub slots: Vec<Slot>,
    active: VecDeque<u32>,
    bytes: u64,
    packets: u64,
    /// Queued packets dropped by the last enqueue to make room (see `Admit::Displace`).
    pub victims: Vec<(PktId, u32)>,
}

impl Rounds {
    /// `n` slots with quantum `quantum` and weight 1.
    pub fn new(n: usize, quantum: i64) -> Rounds {
        let slots = (0..n).map(|_| Slot { quantum, weight: 1.0, ..Slot::default() }).collect();
        Rounds { slots, ..Rounds::default() }
    }

    /// Whether the queued packets exceed `limit`.
    pub fn over(&self, limit: BufferSize) -> bool {
        match limit {
            BufferSize::Bytes(b) => self.bytes > b,
            BufferSize::Packets(p) => self.packets > p,
        }
    }

    /// The fate of an arrival that was queued and not itself dropped: displacing the
    /// `victims` if any.
    pub fn verdict(&self) -> Admit {
        if self.victims.is_empty() {
            Admit::Accept { mark: false }
        } else {
            Admit::Displace { mark: false }
        }
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Appends a packet of `flow` to `slot`'s queue; an idle slot joins the round with a fresh
    /// quantum.
    pub fn push(&mut self, slot: u32, pkt: PktId, size: u32, flow: u32) {
        let s = &mut self.slots[slot as usize];
        s.q.push_back((pkt, size, flow));
        s.bytes += size as u64;
        if !s.active {
            s.active = true;
            s.deficit = s.quantum;
            self.active.push_back(slot);
        }
        self.bytes += size as u64;
        self.packets += 1;
    }

    /// The next packet in DRR order, with the slot it came from.
    pub fn pop(&mut self) -> Option<(PktId, u32, u32)> {
        loop {
            let id = *self.active.front()?;
            let s = &mut self.slots[id as usize];
            if s.deficit <= 0 {
                s.deficit += s.quantum;
                self.active.rotate_left(1);
                continue;
            }
            let (pkt, size, _) = s.q.pop_front().expect("active slots are backlogged");
            s.deficit -= size as i64;
            s.bytes -= size as u64;
            if s.q.is_empty() {
                s.active = false;
                self.active.pop_front();
            }
            self.bytes -= size as u64;
            self.packets -= 1;
            return Some((pkt, size, id));
        }
    }

    /// The next packet in DRR order among the slots whose head packet `may_send` allows
    /// (hop-by-hop back-pressure); a slot passed over keeps its deficit and goes to the back
    /// of the round. `None` if no slot may send.
    pub fn pop_where(&mut self, may_send: &dyn Fn(PktId) -> bool) -> Option<(PktId, u32, u32)> {
        let head_ok = |s: &Slot| s.q.front().is_some_and(|&(pkt, _, _)| may_send(pkt));
        if !self.active.iter().any(|&id| head_ok(&self.slots[id as usize])) {
            return None;
        }
        // Ends: a slot that may send gains a quantum each time round.
        loop {
            let id = *self.active.front()?;
            let s = &mut self.slots[id as usize];
            if head_ok(s) && s.deficit > 0 {
                return self.pop();
            }
            if head_ok(s) {
                s.deficit += s.quantum;
            }
            self.active.rotate_left(1);
        }
    }

    /// Removes the last packet of `slot` (a drop); an emptied slot leaves the round.
    pub fn drop_tail(&mut self, slot: u32) -> Option<(PktId, u32)> {
        self.drop_from(slot, false)
    }

    /// Removes the oldest packet of `slot` (a drop); an emptied slot leaves the round.
    pub fn drop_head(&mut self, slot: u32) -> Option<(PktId, u32)> {
        self.drop_from(slot, true)
    }

    fn drop_from(&mut self, slot: u32, head: bool) -> Option<(PktId, u32)> {
        let s = &mut self.slots[slot as usize];
        let (pkt, size, _) = if head { s.q.pop_front()? } else { s.q.pop_back()? };
        s.bytes -= size as u64;
        if s.q.is_empty() {
            s.active = false;
            self.active.retain(|&x| x != slot);
        }
        self.bytes -= size as u64;
        self.packets -= 1;
        Some((pkt, size))
    }

    /// Takes every queued packet out, slot by slot in index order (each slot's packets in
    /// queue order), leaving all slots idle: Linux sch_sfq's rehash on perturbation.
    pub fn drain(&mut self) -> Vec<(PktId, u32, u32)> {
        let mut out = Vec::with_capacity(self.packets as usize);
        for s in &mut self.slots {
            out.extend(s.q.drain(..));
            s.bytes = 0;
            s.active = false;
        }
        self.active.clear();
        self.bytes = 0;
        self.packets = 0;
        out
    }

    /// The backlogged slot with the largest `measure` (first in round order on ties).
    pub fn longest(&self, measure: impl Fn(&Slot) -> f64) -> Option<u32> {
        let mut best: Option<(u32, f64)> = None;
        for &id in &self.active {
            let m = measure(&self.slots[id as usize]);
            if best.is_none_or(|(_, b)| m > b) {
                best = Some((id, m));
            }
        }
        best.map(|(id, _)| id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_by_quantum_and_slots_leave_when_empty() {
        let mut r = Rounds::new(2, 1000);
        for i in 0..3 {
            r.push(0, PktId(i), 600, 0);
            r.push(1, PktId(10 + i), 600, 1);
        }
        // Slot 0 sends 600, 600 (deficit 1000 -> 400 -> -200), then slot 1 likewise, then
        // slot 0 (deficit 800) its last packet, then slot 1.
        let order: Vec<u32> = std::iter::from_fn(|| r.pop().map(|(p, _, _)| p.0)).collect();
        assert_eq!(order, vec![0, 1, 10, 11, 2, 12]);
        assert_eq!((r.bytes(), r.packets()), (0, 0));
        assert!(r.pop().is_none());
    }

    #[test]
    fn pop_where_passes_over_slots_that_may_not_send() {
        let mut r = Rounds::new(3, 1500);
        for i in 0..2 {
            r.push(0, PktId(i), 1500, 7);
            r.push(1, PktId(10 + i), 1500, 8);
            r.push(2, PktId(20 + i), 1500, 9);
        }
        // Flow 8 (packets 10 and 11) is held back: 7 and 9 alternate.
        let not8 = |p: PktId| !(10..12).contains(&p.0);
        let order: Vec<u32> = (0..4).map(|_| r.pop_where(&not8).unwrap().0 .0).collect();
        assert_eq!(order, vec![0, 20, 1, 21]);
        assert!(r.pop_where(&not8).is_none(), "only flow 8 is left");
        assert_eq!(r.packets(), 2);
        // Released, it sends both (its deficit was kept).
        assert_eq!((r.pop_where(&|_| true).unwrap().0, r.pop().unwrap().0), (PktId(10), PktId(11)));
        assert!(r.pop_where(&|_| true).is_none());
    }

    #[test]
    fn drop_tail_takes_the_newest_packet_and_deactivates_empty_slots() {
        let mut r = Rounds::new(2, 1500);
        r.push(0, PktId(0), 100, 0);
        r.push(0, PktId(1), 200, 0);
        r.push(1, PktId(2), 400, 1);
        assert_eq!(r.longest(|s| s.bytes as f64), Some(1));
        assert_eq!(r.drop_tail(1), Some((PktId(2), 400)));
        assert_eq!(r.longest(|s| s.bytes as f64), Some(0));
        assert_eq!(r.drop_tail(0), Some((PktId(1), 200)));
        assert_eq!(r.pop().map(|x| x.0), Some(PktId(0)));
        assert!(r.pop().is_none());
    }
}
