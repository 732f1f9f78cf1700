//! Packets and the arena that owns them. Events carry a [`PktId`]; no packet is heap
//! allocated on its own, and freed slots are reused.

use crate::ids::{FlowId, PktId};
use crate::units::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    Data,
    Ack,
}

#[derive(Clone, Debug)]
pub struct Packet {
    pub flow: FlowId,
    pub kind: PacketKind,
    /// Data: sequence number of the first payload byte. Ack: cumulative ACK number.
    pub seq: u64,
    /// Payload bytes (0 for a pure ACK).
    pub payload: u32,
    /// Bytes on the wire, headers included.
    pub size: u32,
    /// Destination host index (routing key).
    pub dst_host: u32,
    /// ECN-capable transport (ECT) codepoint set.
    pub ect: bool,
    /// Congestion Experienced, set by a marking queue.
    pub ce: bool,
    /// ECN-Echo on an ACK.
    pub ece: bool,
    /// Congestion Window Reduced on a data segment.
    pub cwr: bool,
    /// Priority class copied from the flow (0 = highest), read by priority queues.
    pub prio: u8,
    /// Equal-length routing: the packet has reached a top-tier node and now heads down along
    /// shortest paths (false until then, and unused by other routings).
    pub turned: bool,
    /// Data: time sent (timestamp option). Ack: echo of the data segment's timestamp.
    pub ts: Time,
}

#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketArena {
    pub fn alloc(&mut self, p: Packet) -> PktId {
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = p;
            PktId(i)
        } else {
            self.slots.push(p);
            PktId(self.slots.len() as u32 - 1)
        }
    }

    pub fn free(&mut self, id: PktId) {
        self.free.push(id.0);
    }

    /// Packets allocated and not yet freed: the ones queued or on a wire.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id.idx()]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id.idx()]
    }
}
