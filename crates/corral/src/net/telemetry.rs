//! In-network telemetry (INT) as HPCC reads it (Li et al., "HPCC: High Precision Congestion
//! Control", SIGCOMM 2019, section 3.1, Fig. 4 and Fig. 5): every switch egress port that a
//! data packet of a flow asking for telemetry leaves through appends one record of that
//! port's state, and the receiver echoes the records of the last data packet it got in the
//! ACK (`world/endpoints.rs`).
//!
//! A record ([`HopRecord`]) holds what HPCC's Algorithm 1 reads of a link: the egress queue
//! length `qLen` (bytes still queued after the packet left), the port's transmitted bytes
//! `txBytes` (before this packet), the timestamp `ts` when the packet started on the wire,
//! and the link rate `B`. That is where the authors' ns-3 code takes them (the switch's
//! dequeue notification pushes the byte counter before adding the packet and the queue's
//! bytes after the dequeue, at the dequeue time), and where htsim's `sim/hpcc.cpp` sink reads
//! them from its `_int_info`.
//!
//! On the wire a record is [`HOP_BYTES`] (8: the paper's Fig. 5 packs a hop into 64 bits) and
//! the INT header, the hop count, [`HEADER_BYTES`] (2). A data packet of a telemetry flow is
//! created [`HEADER_BYTES`] larger and grows by [`HOP_BYTES`] at every switch it leaves,
//! before it is serialized there; its ACK carries the header and every record. corral keeps
//! the values unquantized (a modelling choice: the 64-bit record's field widths, units and
//! wrap-around are not reproduced), and at most [`MAX_HOPS`] records: a packet detoured past
//! that keeps its first [`MAX_HOPS`].
//!
//! The mechanism is independent of queue disciplines: it reads only the port's queued bytes,
//! byte counter and rate. Runs without a telemetry flow pay one test of a run-wide flag per
//! transmission (`world/forward.rs`); records live in a side table of the packet arena
//! ([`super::PacketArena::telemetry`]) that only telemetry packets touch.

use super::port::Port;
use super::queue::Discipline;
use crate::units::{Rate, Time};

/// Bytes of the INT header a data packet of a telemetry flow carries from its source (the hop
/// count).
pub const HEADER_BYTES: u32 = 2;

/// Bytes one hop's record adds to the packet on the wire (the paper's 64-bit hop record).
pub const HOP_BYTES: u32 = 8;

/// The most records a packet holds (a fat tree's longest path crosses five switches).
pub const MAX_HOPS: usize = 8;

/// One switch egress port's state as a packet left it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HopRecord {
    /// When the packet started on the wire (`ts`).
    pub ts: Time,
    /// Bytes the port had transmitted before this packet (`txBytes`).
    pub tx_bytes: u64,
    /// Bytes still queued at the port after the packet left it (`qLen`).
    pub qlen: u64,
    /// The link rate (`B`).
    pub rate: Rate,
}

impl Default for HopRecord {
    fn default() -> Self {
        HopRecord { ts: Time::ZERO, tx_bytes: 0, qlen: 0, rate: Rate(0) }
    }
}

/// The records one packet collected, first switch first, or that an ACK echoes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Telemetry {
    hops: [HopRecord; MAX_HOPS],
    len: u8,
}

impl Telemetry {
    /// The records, first switch first.
    #[inline]
    pub fn hops(&self) -> &[HopRecord] {
        &self.hops[..self.len as usize]
    }

    /// Appends one switch's record; false when the packet already holds [`MAX_HOPS`].
    pub fn push(&mut self, r: HopRecord) -> bool {
        if (self.len as usize) < MAX_HOPS {
            self.hops[self.len as usize] = r;
            self.len += 1;
            true
        } else {
            false
        }
    }

    /// Forgets every record (a new packet).
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Bytes the INT header and the records take on the wire.
    pub fn wire_bytes(&self) -> u32 {
        HEADER_BYTES + HOP_BYTES * self.len as u32
    }
}

/// Appends egress port `port`'s record to `t` as a packet starts on its wire at `now`, after
/// the packet left the port's queue and before the port counts it as sent; returns the bytes
/// the packet grew by (0 when it already holds [`MAX_HOPS`]).
#[inline]
pub fn stamp(t: &mut Telemetry, port: &Port, now: Time) -> u32 {
    let r = HopRecord {
        ts: now,
        tx_bytes: port.stats.tx_bytes,
        qlen: port.queue.bytes(),
        rate: port.rate(),
    };
    if t.push(r) {
        HOP_BYTES
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId, PktId, PortId};
    use crate::net::queue::{Arrival, QueueDisc};
    use crate::units::BufferSize;

    fn port(bps: u64) -> Port {
        let q = QueueDisc::taildrop(BufferSize::Packets(100));
        Port::new(NodeId(0), 0, NodeId(1), PortId(1), Rate(bps), Time::ZERO, q, 1)
    }

    #[test]
    fn a_record_is_the_port_s_state_as_the_packet_leaves() {
        let mut p = port(10_000_000_000);
        p.stats.tx_bytes = 12_345;
        for i in 0..3 {
            let a = Arrival {
                pkt: PktId(i),
                size: 1000,
                ect: false,
                flow: FlowId(0),
                prio: 0,
                weight: 1.0,
                tenant: 0,
                agg: crate::net::NO_AGG,
                now: Time::ZERO,
            };
            p.queue.enqueue(a);
        }
        p.queue.dequeue(Time::ZERO);
        let mut t = Telemetry::default();
        assert_eq!(stamp(&mut t, &p, Time::from_us(7)), HOP_BYTES);
        let want = HopRecord {
            ts: Time::from_us(7),
            tx_bytes: 12_345,
            qlen: 2000,
            rate: Rate(10_000_000_000),
        };
        assert_eq!(t.hops(), &[want]);
        assert_eq!(t.wire_bytes(), HEADER_BYTES + HOP_BYTES);
    }

    #[test]
    fn records_stop_at_max_hops_and_clear_resets() {
        let p = port(1_000_000_000);
        let mut t = Telemetry::default();
        assert_eq!(t.wire_bytes(), HEADER_BYTES);
        for i in 0..MAX_HOPS {
            assert_eq!(stamp(&mut t, &p, Time::from_us(i as u64)), HOP_BYTES);
        }
        assert_eq!(stamp(&mut t, &p, Time::from_us(99)), 0);
        assert_eq!(t.hops().len(), MAX_HOPS);
        assert_eq!(t.hops()[MAX_HOPS - 1].ts, Time::from_us(MAX_HOPS as u64 - 1));
        t.clear();
        assert!(t.hops().is_empty());
    }
}
