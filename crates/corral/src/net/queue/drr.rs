//! Weighted fair queueing per flow by deficit round robin (Shreedhar and Varghese, SIGCOMM
//! 1995, section 3; see [`super::rounds`]): every flow with packets at the port has its own
//! queue, created when its first packet arrives and released when it empties, with quantum
//! `quantum x weight`, so backlogged flows share the link in proportion to their weights.
//! Queues share the port's buffer; on overflow the arrival is queued and the last packet of
//! the queue longest relative to its weight (bytes / weight) is dropped, which may be the
//! arrival itself. Queue slots are reused, so steady state allocates nothing per packet.

use super::rounds::Rounds;
use super::{Admit, Arrival};
use crate::error::{ensure, Result};
use crate::ids::{FlowId, PktId};
use crate::units::{BufferSize, Bytes};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// `[switch.drr]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DrrConfig {
    /// Bytes per round for a flow of weight 1 (default "1500B").
    pub quantum: Bytes,
}

impl Default for DrrConfig {
    fn default() -> Self {
        DrrConfig { quantum: Bytes(1500) }
    }
}

impl DrrConfig {
    pub fn validate(&self, path: &str) -> Result<()> {
        ensure(self.quantum.0 > 0, &format!("{path}.quantum"), || "must be positive".into())
    }
}


pub struct Drr {
    pub(super) rounds: Rounds,
    limit: BufferSize,
    quantum: f64,
    /// Flow index -> its slot, for flows with packets here: a map, not a vector indexed by
    /// flow id, so a port's memory follows its own backlog, not the number of flows in the
    /// run. Only looked up, never iterated, so its order cannot leak into results.
    slot_of: HashMap<u32, u32>,
    /// Slot -> the flow using it.
    flow_of: Vec<FlowId>,
    free: Vec<u32>,
}

impl Drr {
    pub fn new(limit: BufferSize, cfg: &DrrConfig) -> Drr {
        Drr { rounds: Rounds::new(0, 0), limit, quantum: cfg.quantum.0 as f64, slot_of: HashMap::new(), flow_of: Vec::new(), free: Vec::new() }
    }

    /// Queues currently held (flows with packets here).
    pub fn flows(&self) -> usize {
        self.flow_of.len() - self.free.len()
    }

    fn slot_for(&mut self, flow: FlowId, weight: f64) -> u32 {
        if let Some(&slot) = self.slot_of.get(&flow.0) {
            return slot;
        }
        let id = match self.free.pop() {
            Some(id) => {
                self.flow_of[id as usize] = flow;
                id
            }
            None => {
                self.rounds.slots.push(Default::default());
                self.flow_of.push(flow);
                self.flow_of.len() as u32 - 1
            }
        };
        let s = &mut self.rounds.slots[id as usize];
        s.quantum = ((self.quantum * weight).round() as i64).max(1);
        s.weight = weight;
        self.slot_of.insert(flow.0, id);
        id
    }

    fn release_if_empty(&mut self, slot: u32) {
        if self.rounds.slots[slot as usize].q.is_empty() {
            let flow = self.flow_of[slot as usize];
            self.slot_of.remove(&flow.0);
            self.free.push(slot);
        }
    }

    pub fn enqueue(&mut self, a: Arrival) -> Admit {
        debug_assert!(self.rounds.victims.is_empty(), "victims of the previous enqueue were not collected");
        let slot = self.slot_for(a.flow, a.weight);
        self.rounds.push(slot, a.pkt, a.size, a.flow.0);
        while self.rounds.over(self.limit) {
            let v = self.rounds.longest(|s| s.bytes as f64 / s.weight).expect("over the limit means backlogged");
            let (pkt, size) = self.rounds.drop_tail(v).expect("longest is backlogged");
            self.release_if_empty(v);
            if pkt == a.pkt {
                return Admit::Drop;
            }
            self.rounds.victims.push((pkt, size));
        }
        self.rounds.verdict()
    }

    pub fn dequeue(&mut self) -> Option<(PktId, u32)> {
        let (p, s, slot) = self.rounds.pop()?;
        self.release_if_empty(slot);
        Some((p, s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(i: u32, flow: u32, weight: f64) -> Arrival {
        Arrival { flow: FlowId(flow), weight, ..Arrival::test(i, 1500) }
    }

    #[test]
    fn weights_one_two_three_get_bytes_one_two_three_within_a_quantum() {
        let mut q = Drr::new(BufferSize::Packets(100_000), &DrrConfig::default());
        for id in 0..300 {
            for (f, w) in [(0, 1.0), (1, 2.0), (2, 3.0)] {
                q.enqueue(arr(id * 3 + f, f, w));
            }
        }
        let mut served = [0i64; 3];
        for n in 1..=600 {
            let (p, s) = q.dequeue().unwrap();
            served[(p.0 % 3) as usize] += s as i64;
            if n % 6 == 0 {
                // After every whole round (6 packets of 1500 B), served = k * (1, 2, 3) quanta.
                let k = served[0];
                for (f, w) in [(1usize, 2), (2, 3)] {
                    assert!((served[f] - w * k).abs() <= 1500, "after {n}: {served:?}");
                }
            }
            // At any point, within one quantum of the weights' ratio.
            let unit = served[0] as f64;
            assert!((served[1] as f64 - 2.0 * unit).abs() <= 2.0 * 1500.0 + 1500.0, "{served:?}");
            assert!((served[2] as f64 - 3.0 * unit).abs() <= 3.0 * 1500.0 + 1500.0, "{served:?}");
        }
        assert_eq!(served[0] * 2, served[1]);
        assert_eq!(served[0] * 3, served[2]);
    }

    #[test]
    fn queues_are_created_lazily_and_released_when_empty() {
        let mut q = Drr::new(BufferSize::Packets(100), &DrrConfig::default());
        q.enqueue(arr(0, 7, 1.0));
        q.enqueue(arr(1, 3, 1.0));
        assert_eq!(q.flows(), 2);
        q.dequeue();
        q.dequeue();
        assert_eq!(q.flows(), 0);
        q.enqueue(arr(2, 5, 1.0));
        assert_eq!(q.flows(), 1);
        assert_eq!(q.rounds.slots.len(), 2, "slots are reused");
    }

    #[test]
    fn overflow_drops_from_the_queue_longest_relative_to_its_weight() {
        let mut q = Drr::new(BufferSize::Packets(5), &DrrConfig::default());
        // Flow 0 (weight 1) holds 2 packets = 3000 B/weight; flow 1 (weight 4) holds 3 = 1125.
        q.enqueue(arr(0, 0, 1.0));
        q.enqueue(arr(1, 0, 1.0));
        for i in 2..5 {
            q.enqueue(arr(i, 1, 4.0));
        }
        assert_eq!(q.enqueue(arr(5, 1, 4.0)), Admit::Displace { mark: false });
        assert_eq!(q.rounds.victims.pop(), Some((PktId(1), 1500)));
        assert_eq!(q.enqueue(arr(6, 0, 1.0)), Admit::Drop, "flow 0 is again the longest by weight; its arrival goes");
    }
}
