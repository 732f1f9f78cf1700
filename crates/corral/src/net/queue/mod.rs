//! Output-queue disciplines, one file each, dispatched through the closed enum [`QueueDisc`].
//!
//! A discipline owns the packets waiting at one output port (the packet being serialized is
//! on the wire and no longer counts, as in ns-2/ns-3 devices) and decides on arrival whether to
//! accept, mark (ECN CE) or drop.

pub mod ecn_threshold;
pub mod fifo;
pub mod taildrop;

use crate::ids::{FlowId, PktId};
use crate::units::BufferSize;
pub use fifo::Fifo;

/// The fate of an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Queued; `mark` asks the caller to set CE on the packet.
    Accept { mark: bool },
    Drop,
}

/// What a discipline needs to know about an arriving packet.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    pub pkt: PktId,
    pub size: u32,
    /// ECN-capable transport.
    pub ect: bool,
    /// The packet's flow, for per-flow and hashed disciplines.
    pub flow: FlowId,
    /// The packet's priority class (0 = highest).
    pub prio: u8,
}

pub enum QueueDisc {
    TailDrop(taildrop::TailDrop),
    EcnThreshold(ecn_threshold::EcnThreshold),
}

impl QueueDisc {
    pub fn taildrop(limit: BufferSize) -> QueueDisc {
        QueueDisc::TailDrop(taildrop::TailDrop::new(limit))
    }

    pub fn ecn_threshold(limit: BufferSize, threshold: BufferSize) -> QueueDisc {
        QueueDisc::EcnThreshold(ecn_threshold::EcnThreshold::new(limit, threshold))
    }

    #[inline]
    pub fn enqueue(&mut self, a: Arrival) -> Admit {
        match self {
            QueueDisc::TailDrop(q) => q.enqueue(a),
            QueueDisc::EcnThreshold(q) => q.enqueue(a),
        }
    }

    #[inline]
    pub fn dequeue(&mut self) -> Option<(PktId, u32)> {
        self.fifo_mut().pop()
    }

    fn fifo(&self) -> &Fifo {
        match self {
            QueueDisc::TailDrop(q) => &q.fifo,
            QueueDisc::EcnThreshold(q) => &q.fifo,
        }
    }

    fn fifo_mut(&mut self) -> &mut Fifo {
        match self {
            QueueDisc::TailDrop(q) => &mut q.fifo,
            QueueDisc::EcnThreshold(q) => &mut q.fifo,
        }
    }

    pub fn bytes(&self) -> u64 {
        self.fifo().bytes()
    }

    pub fn packets(&self) -> u64 {
        self.fifo().len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.fifo().len() == 0
    }
}

/// Whether a queue holding `bytes`/`packets` has room for one more packet of `size` bytes.
pub fn fits(limit: BufferSize, bytes: u64, packets: u64, size: u32) -> bool {
    match limit {
        BufferSize::Bytes(b) => bytes + size as u64 <= b,
        BufferSize::Packets(p) => packets < p,
    }
}

/// Whether the occupancy exceeds a threshold given in bytes or packets.
pub fn exceeds(threshold: BufferSize, bytes: u64, packets: u64) -> bool {
    match threshold {
        BufferSize::Bytes(b) => bytes > b,
        BufferSize::Packets(p) => packets > p,
    }
}
