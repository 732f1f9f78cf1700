//! An output port: one end of a full-duplex link. It holds the queue discipline, serializes
//! one packet at a time at the link rate (store-and-forward), and keeps the counters the
//! metrics report, including the consecutive-drop runs per input port that the TCP Outcast
//! paper (section 4, Fig. 11) uses to show port blackout.

use super::queue::QueueDisc;
use crate::ids::{NodeId, PortId};
use crate::units::{Rate, Time};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
pub struct PortStats {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub drops: u64,
    pub ecn_marks: u64,
    pub max_queue_bytes: u64,
}

/// Laid out in declaration order (`repr(C)`): the fields a packet's hop reads come first, so
/// they share the struct's first cache lines; statistics and drop runs follow.
#[repr(C)]
pub struct Port {
    pub node: NodeId,
    /// Index of this port within its node.
    pub local: u16,
    /// The link has failed (`[[events]]` with `state = "down"`): nothing is sent or received
    /// through this port, and routing and broadcast trees leave it out.
    pub down: bool,
    /// A scheme sees every packet offered to this port.
    pub tapped: bool,
    /// The queue's ECN marks are suppressed here (a scheme's choice, e.g. RackCC's last hop,
    /// the destination ToR's port to the server): what it would mark is accepted unmarked.
    pub ecn_off: bool,
    /// The dimension the link moves along (torus; 0 elsewhere), for dimension-order routing.
    pub dim: u8,
    /// The peer's port on the same link: where packets sent here arrive.
    pub peer_port: PortId,
    /// Control packets among the queued ones (their bytes are counted when they go out).
    pub ctrl_queued: u32,
    /// Inputs whose run of drops is open (nonzero in `drop_run`): an accepted packet with
    /// none open has no run to close.
    open_runs: u32,
    /// The wire is busy serializing until this time.
    pub busy_until: Time,
    /// Picoseconds per byte at `rate` when that is a whole number (0 otherwise): the common
    /// rates (1, 10, 40, 100 Gbps) serialize with a multiplication instead of a division.
    ps_per_byte: u64,
    pub delay: Time,
    pub queue: QueueDisc,
    pub stats: PortStats,
    /// The node at the other end of the link.
    pub peer: NodeId,
    rate: Rate,
    /// Current run of consecutive drops per input port of this node (index = local input
    /// port; the last slot is the node's own traffic, e.g. a host's transport).
    drop_run: Vec<u32>,
    /// Histogram of finished runs: (input slot, run length) -> episodes.
    pub run_histogram: BTreeMap<(u16, u32), u64>,
}

impl Port {
    /// A port of `node` (its `local` index of `node_ports`) to `peer`'s `peer_port`: one
    /// argument per fixed property of the link, hence more than clippy's seven.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        node: NodeId,
        local: u16,
        peer: NodeId,
        peer_port: PortId,
        rate: Rate,
        delay: Time,
        queue: QueueDisc,
        node_ports: usize,
    ) -> Port {
        Port {
            node,
            local,
            peer,
            peer_port,
            rate,
            ps_per_byte: ps_per_byte(rate),
            delay,
            dim: 0,
            queue,
            busy_until: Time::ZERO,
            tapped: false,
            ecn_off: false,
            ctrl_queued: 0,
            down: false,
            open_runs: 0,
            stats: PortStats::default(),
            drop_run: vec![0; node_ports + 1],
            run_histogram: BTreeMap::new(),
        }
    }

    /// The link rate.
    #[inline]
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Changes the link rate (clock offsets, scheduled capacity changes).
    pub fn set_rate(&mut self, rate: Rate) {
        self.rate = rate;
        self.ps_per_byte = ps_per_byte(rate);
    }

    /// Time to serialize `bytes` at the link rate, exactly as [`Rate::tx_time`].
    #[inline]
    pub fn tx_time(&self, bytes: u64) -> Time {
        if self.ps_per_byte > 0 {
            Time(bytes * self.ps_per_byte)
        } else {
            self.rate.tx_time(bytes)
        }
    }

    /// Slot of the node's own traffic in the per-input-port tables.
    pub fn local_slot(&self) -> u16 {
        (self.drop_run.len() - 1) as u16
    }

    /// Records the fate of a packet that arrived from input slot `input`.
    #[inline]
    pub fn note_arrival(&mut self, input: u16, dropped: bool) {
        if !dropped && self.open_runs == 0 {
            return;
        }
        let run = &mut self.drop_run[input as usize];
        if dropped {
            self.open_runs += (*run == 0) as u32;
            *run += 1;
        } else if *run > 0 {
            self.open_runs -= 1;
            let len = std::mem::take(run);
            *self.run_histogram.entry((input, len)).or_insert(0) += 1;
        }
    }

    /// Closes the runs still open at the end of the run, so every drop is in the histogram.
    pub fn flush_runs(&mut self) {
        self.open_runs = 0;
        for input in 0..self.drop_run.len() {
            let len = std::mem::take(&mut self.drop_run[input]);
            if len > 0 {
                *self.run_histogram.entry((input as u16, len)).or_insert(0) += 1;
            }
        }
    }
}

/// 8e12 / rate when it divides evenly, else 0.
fn ps_per_byte(rate: Rate) -> u64 {
    let ps = 8 * Time::PS_PER_SEC;
    if rate.bps() > 0 && ps.is_multiple_of(rate.bps()) {
        ps / rate.bps()
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::BufferSize;

    #[test]
    fn serialization_time_is_the_rate_s_either_way() {
        for bps in [1_000_000_000u64, 10_000_000_000, 3, 7_000_000_123, 100_000_000_000] {
            let mut p = Port::new(
                NodeId(0),
                0,
                NodeId(1),
                PortId(1),
                Rate(1),
                Time::ZERO,
                QueueDisc::taildrop(BufferSize::Packets(1)),
                1,
            );
            p.set_rate(Rate(bps));
            for bytes in [1, 40, 1500, 9000] {
                assert_eq!(p.tx_time(bytes), Rate(bps).tx_time(bytes), "{bps} bps, {bytes} B");
            }
        }
    }

    #[test]
    fn drop_runs_are_per_input_port() {
        let q = QueueDisc::taildrop(BufferSize::Packets(1));
        let mut p = Port::new(NodeId(0), 0, NodeId(1), PortId(1), Rate(1), Time::ZERO, q, 2);
        // Input 0: drop, drop, accept -> one run of 2. Input 1: drop (interleaved) -> run of 1 at flush.
        p.note_arrival(0, true);
        p.note_arrival(1, true);
        p.note_arrival(0, true);
        p.note_arrival(0, false);
        p.flush_runs();
        assert_eq!(p.run_histogram.get(&(0, 2)), Some(&1));
        assert_eq!(p.run_histogram.get(&(1, 1)), Some(&1));
        assert_eq!(p.run_histogram.len(), 2);
    }
}
