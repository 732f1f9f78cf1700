//! Output-queue disciplines, one file each, dispatched through the closed enum [`QueueDisc`].
//!
//! A discipline owns the packets waiting at one output port (the packet being serialized is
//! on the wire and no longer counts, as in ns-2/ns-3 devices) and decides on arrival whether to
//! accept, mark (ECN CE) or drop. Every arrival goes through the discipline, also one that
//! finds the port idle (it is dequeued at once), so averaging disciplines such as RED see
//! every packet; a FIFO gives its verdict there without queueing the packet
//! ([`Discipline::pass_idle`]), which leaves it as queueing and dequeueing would.
//! Disciplines that make room by dropping an already queued packet (SFQ, DRR) answer
//! [`Admit::Displace`] and hand the victims out through [`Discipline::pop_victim`].
//!
//! Every discipline implements [`Discipline`]; [`QueueDisc`] is the closed enum the
//! per-packet path dispatches through, and it never reaches into a discipline's fields.

/// The accessors of a discipline that keeps its packets in one [`Fifo`] named `fifo`: its
/// bytes and packets, and (unless it passes `bytes_and_packets_only`) its dequeue. With
/// `by_verdict`, also its enqueue and [`Discipline::pass_idle`], from its own
/// `verdict(&self, &Arrival) -> Admit` on the queue as it stands.
macro_rules! fifo_accessors {
    (by_verdict) => {
        #[inline]
        fn enqueue(&mut self, a: Arrival) -> Admit {
            let admit = self.verdict(&a);
            if admit != Admit::Drop {
                self.fifo.push(a.pkt, a.size);
            }
            admit
        }

        #[inline]
        fn pass_idle(&self, a: &Arrival) -> Option<Admit> {
            Some(self.verdict(a))
        }

        fifo_accessors!();
    };
    (bytes_and_packets_only) => {
        #[inline]
        fn bytes(&self) -> u64 {
            self.fifo.bytes()
        }

        #[inline]
        fn packets(&self) -> u64 {
            self.fifo.len() as u64
        }
    };
    () => {
        #[inline]
        fn dequeue(&mut self, _now: Time) -> Option<(PktId, u32)> {
            self.fifo.pop()
        }

        fifo_accessors!(bytes_and_packets_only);
    };
}

/// The accessors of a discipline that keeps its packets in [`rounds::Rounds`] named
/// `rounds`: the victims of its last enqueue, its bytes and packets.
macro_rules! rounds_accessors {
    () => {
        fn pop_victim(&mut self) -> Option<(PktId, u32)> {
            self.rounds.victims.pop()
        }

        fn bytes(&self) -> u64 {
            self.rounds.bytes()
        }

        fn packets(&self) -> u64 {
            self.rounds.packets()
        }
    };
}

pub mod drr;
pub mod ecn_threshold;
pub mod fifo;
pub mod pfabric;
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
    /// queued; the caller takes them with [`Discipline::pop_victim`] and accounts their drops.
    Displace { mark: bool },
    /// The arriving packet is dropped. (A discipline may also have dropped queued packets
    /// first; [`Discipline::pop_victim`] returns them.)
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
    /// The flow's tenant, numbered in order of appearance in the run (DRR by tenant).
    pub tenant: u16,
    /// The aggregate or tunnel id a scheme stamped on the packet (`u32::MAX`: none).
    pub agg: u32,
    /// Arrival time, for disciplines with time-based state (RED's idle decay, SFQ perturbation).
    pub now: Time,
}

impl Arrival {
    /// An arrival at time zero of flow 0, priority 0, weight 1 (for unit tests).
    #[cfg(test)]
    pub fn test(pkt: u32, size: u32) -> Arrival {
        Arrival { pkt: PktId(pkt), size, ect: true, flow: FlowId(0), prio: 0, weight: 1.0, tenant: 0, agg: u32::MAX, now: Time::ZERO }
    }
}

/// One output-queue discipline. The per-packet path calls these through the closed enum
/// [`QueueDisc`]; each discipline keeps its packets and state private.
pub trait Discipline {
    /// Decides the fate of an arriving packet (and queues it unless dropped).
    fn enqueue(&mut self, a: Arrival) -> Admit;
    /// The next packet to transmit; `now` is when it starts on the wire.
    fn dequeue(&mut self, now: Time) -> Option<(PktId, u32)>;
    /// The next packet to transmit among those `may_send` allows (hop-by-hop back-pressure,
    /// `switch.backpressure`); disciplines without per-flow queues ignore it.
    fn dequeue_where(&mut self, now: Time, _may_send: &dyn Fn(PktId) -> bool) -> Option<(PktId, u32)> {
        self.dequeue(now)
    }
    /// The verdict on a packet that finds the queue empty and the port idle, so that it goes
    /// straight onto the wire: `Some` from a discipline whose state that leaves as it was (a
    /// FIFO's), so the caller need not queue and dequeue it; `None` (the default) asks for
    /// [`Self::enqueue`] and [`Self::dequeue`], for disciplines that see every arrival (RED's
    /// average, SFQ's and DRR's rounds).
    fn pass_idle(&self, _a: &Arrival) -> Option<Admit> {
        None
    }
    /// A queued packet the last enqueue dropped to make room, with its size.
    fn pop_victim(&mut self) -> Option<(PktId, u32)> {
        None
    }
    /// Bytes queued (the packet on the wire excluded).
    fn bytes(&self) -> u64;
    /// Packets queued.
    fn packets(&self) -> u64;
}

/// The closed set of disciplines, dispatched statically on the per-packet path. The FIFOs
/// sit inline in their port; the larger disciplines are boxed, which keeps every port small.
pub enum QueueDisc {
    TailDrop(taildrop::TailDrop),
    EcnThreshold(ecn_threshold::EcnThreshold),
    Red(Box<red::Red>),
    Sfq(Box<sfq::Sfq>),
    Priority(Box<priority::Priority>),
    Drr(Box<drr::Drr>),
    Pfabric(Box<pfabric::Pfabric>),
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            QueueDisc::TailDrop($q) => $e,
            QueueDisc::EcnThreshold($q) => $e,
            QueueDisc::Red($q) => $e,
            QueueDisc::Sfq($q) => $e,
            QueueDisc::Priority($q) => $e,
            QueueDisc::Drr($q) => $e,
            QueueDisc::Pfabric($q) => $e,
        }
    };
}

impl QueueDisc {
    pub fn taildrop(limit: BufferSize) -> QueueDisc {
        QueueDisc::TailDrop(taildrop::TailDrop::new(limit))
    }

    pub fn ecn_threshold(limit: BufferSize, threshold: BufferSize) -> QueueDisc {
        QueueDisc::EcnThreshold(ecn_threshold::EcnThreshold::new(limit, threshold))
    }

    pub fn is_empty(&self) -> bool {
        self.packets() == 0
    }
}

impl Discipline for QueueDisc {
    #[inline(always)]
    fn enqueue(&mut self, a: Arrival) -> Admit {
        dispatch!(self, q => q.enqueue(a))
    }

    #[inline(always)]
    fn dequeue(&mut self, now: Time) -> Option<(PktId, u32)> {
        dispatch!(self, q => q.dequeue(now))
    }

    fn dequeue_where(&mut self, now: Time, may_send: &dyn Fn(PktId) -> bool) -> Option<(PktId, u32)> {
        dispatch!(self, q => q.dequeue_where(now, may_send))
    }

    #[inline(always)]
    fn pass_idle(&self, a: &Arrival) -> Option<Admit> {
        dispatch!(self, q => q.pass_idle(a))
    }

    #[inline]
    fn pop_victim(&mut self) -> Option<(PktId, u32)> {
        dispatch!(self, q => q.pop_victim())
    }

    #[inline]
    fn bytes(&self) -> u64 {
        dispatch!(self, q => q.bytes())
    }

    #[inline]
    fn packets(&self) -> u64 {
        dispatch!(self, q => q.packets())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_passes_an_idle_port_s_packet_as_queueing_and_dequeueing_would() {
        let cases = [
            QueueDisc::taildrop(BufferSize::Packets(2)),
            QueueDisc::taildrop(BufferSize::Bytes(1000)),
            QueueDisc::ecn_threshold(BufferSize::Packets(2), BufferSize::Packets(0)),
            QueueDisc::ecn_threshold(BufferSize::Packets(0), BufferSize::Packets(0)),
        ];
        for mut q in cases {
            for (size, ect) in [(1500, true), (40, false), (900, true)] {
                let a = Arrival { ect, ..Arrival::test(7, size) };
                let passed = q.pass_idle(&a).expect("a FIFO passes idle packets");
                assert!(q.is_empty(), "nothing is queued by a pass");
                let admit = q.enqueue(a);
                assert_eq!(passed, admit, "size {size}, ect {ect}");
                if admit != Admit::Drop {
                    assert_eq!(q.dequeue(Time::ZERO), Some((PktId(7), size)));
                }
                assert!(q.is_empty() && q.bytes() == 0);
            }
        }
        // RED averages every arrival: its idle packets go through the queue.
        let red = red::Red::new(BufferSize::Packets(10), red::RedConfig::default(), crate::units::Rate(1_000_000_000), crate::sim::Rng::stream(1, 0, 0));
        assert_eq!(QueueDisc::Red(Box::new(red)).pass_idle(&Arrival::test(0, 1500)), None);
    }
}
