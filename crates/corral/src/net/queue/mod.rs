//! Output-queue disciplines, one file each, dispatched through the closed enum [`QueueDisc`].
//!
//! A discipline owns the packets waiting at one output port (the packet being serialized is
//! on the wire and no longer counts, as in ns-2/ns-3 devices) and decides on arrival whether to
//! accept, mark (ECN CE) or drop. Every arrival goes through the discipline, also one that
//! finds the port idle (it is dequeued at once), so averaging disciplines such as RED see
//! every packet. Disciplines that make room by dropping an already queued packet (SFQ, DRR)
//! answer [`Admit::Displace`] and hand the victims out through [`QueueDisc::pop_victim`].

pub mod drr;
pub mod ecn_threshold;
pub mod fifo;
pub mod priority;
pub mod red;
pub mod rounds;
pub mod sfq;
pub mod taildrop;

use crate::ids::{FlowId, PktId};
use crate::units::{BufferSize, Time};
pub use fifo::Fifo;

/// The fate of an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Queued; `mark` asks the caller to set CE on the packet.
    Accept { mark: bool },
    /// Queued, but to make room the discipline dropped one or more packets that were already
    /// queued; the caller takes them with [`QueueDisc::pop_victim`] and accounts their drops.
    Displace { mark: bool },
    /// The arriving packet is dropped. (A discipline may also have dropped queued packets
    /// first; [`QueueDisc::pop_victim`] returns them.)
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
    /// The flow's weight, for weighted fair queueing.
    pub weight: f64,
    /// Arrival time, for disciplines with time-based state (RED's idle decay, SFQ perturbation).
    pub now: Time,
}

impl Arrival {
    /// An arrival at time zero of flow 0, priority 0, weight 1 (for unit tests).
    #[cfg(test)]
    pub fn test(pkt: u32, size: u32) -> Arrival {
        Arrival { pkt: PktId(pkt), size, ect: true, flow: FlowId(0), prio: 0, weight: 1.0, now: Time::ZERO }
    }
}

pub enum QueueDisc {
    TailDrop(taildrop::TailDrop),
    EcnThreshold(ecn_threshold::EcnThreshold),
    Red(red::Red),
    Sfq(sfq::Sfq),
    Priority(priority::Priority),
    Drr(drr::Drr),
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
            QueueDisc::Red(q) => q.enqueue(a),
            QueueDisc::Sfq(q) => q.enqueue(a),
            QueueDisc::Priority(q) => q.enqueue(a),
            QueueDisc::Drr(q) => q.enqueue(a),
        }
    }

    /// The next packet to transmit; `now` is when it starts on the wire.
    #[inline]
    pub fn dequeue(&mut self, now: Time) -> Option<(PktId, u32)> {
        match self {
            QueueDisc::TailDrop(q) => q.fifo.pop(),
            QueueDisc::EcnThreshold(q) => q.fifo.pop(),
            QueueDisc::Red(q) => q.dequeue(now),
            QueueDisc::Sfq(q) => q.dequeue(),
            QueueDisc::Priority(q) => q.dequeue(now),
            QueueDisc::Drr(q) => q.dequeue(),
        }
    }

    /// A queued packet the last enqueue dropped to make room, with its size.
    #[inline]
    pub fn pop_victim(&mut self) -> Option<(PktId, u32)> {
        match self {
            QueueDisc::Sfq(q) => q.rounds.victims.pop(),
            QueueDisc::Drr(q) => q.rounds.victims.pop(),
            _ => None,
        }
    }

    pub fn bytes(&self) -> u64 {
        match self {
            QueueDisc::TailDrop(q) => q.fifo.bytes(),
            QueueDisc::EcnThreshold(q) => q.fifo.bytes(),
            QueueDisc::Red(q) => q.fifo.bytes(),
            QueueDisc::Sfq(q) => q.rounds.bytes(),
            QueueDisc::Priority(q) => q.bytes(),
            QueueDisc::Drr(q) => q.rounds.bytes(),
        }
    }

    pub fn packets(&self) -> u64 {
        match self {
            QueueDisc::TailDrop(q) => q.fifo.len() as u64,
            QueueDisc::EcnThreshold(q) => q.fifo.len() as u64,
            QueueDisc::Red(q) => q.fifo.len() as u64,
            QueueDisc::Sfq(q) => q.rounds.packets(),
            QueueDisc::Priority(q) => q.packets(),
            QueueDisc::Drr(q) => q.rounds.packets(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.packets() == 0
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
