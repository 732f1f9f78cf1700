//! Flowcell load balancing (Presto, He et al., SIGCOMM 2015, section 3; the load balancing
//! the SCC paper assumes in its Clos fabric, section III): a flow's payload is cut into
//! consecutive units of `flowcell_bytes` (Presto's 64 KiB, its TSO segment limit; the SCC
//! paper gives no size), every packet of one flowcell takes one path, and the flow's
//! successive flowcells take successive paths in a round-robin over the equal-cost paths.
//!
//! A packet's flowcell is its sequence number divided by the cell size (an ACK's, its
//! cumulative ACK number), so a retransmitted packet takes its cell's path again (our
//! choice: Presto counts bytes as the vSwitch sends them). The rotation is written per hop,
//! without state: the cell number, read in base n (n the equal-cost next hops), gives its
//! digit `depth` to the switch `depth` hops from the sender's first switch, offset by a hash
//! of (flow, switch) so different flows start on different paths. With one choice point (a
//! leaf-spine fabric: the leaf's uplinks) cell k of a flow takes uplink (offset + k) mod n;
//! with two of equal fan-out (a fat-tree's edge and aggregation uplinks) n^2 consecutive cells
//! take each of the n^2 paths once.

use crate::ids::{FlowId, NodeId};
use crate::sim::rng::{mix64, stream};
use crate::units::Bytes;

/// `[routing]` with `kind = "flowcell"`: `flowcell_bytes` (default 64 KiB, Presto's).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowcellSettings {
    /// Payload bytes per flowcell, > 0 (default 64 KiB: Presto's flowcell, its TSO limit).
    #[serde(default = "presto_cell")]
    pub flowcell_bytes: Bytes,
}

/// Presto's flowcell: 64 KiB.
pub const PRESTO_FLOWCELL: Bytes = Bytes(65_536);

fn presto_cell() -> Bytes {
    PRESTO_FLOWCELL
}

impl FlowcellSettings {
    /// `flowcell_bytes` must be positive.
    pub fn validate(&self) -> crate::Result<()> {
        crate::error::ensure(self.flowcell_bytes.0 > 0, "flowcell_bytes", || {
            "must be a positive size (Presto's is \"64KiB\"), got 0".to_string()
        })
    }
}

/// The flowcell a packet whose first byte (or ACK number) is `seq` belongs to.
#[inline]
pub fn cell_of(seq: u64, flowcell_bytes: Bytes) -> u64 {
    seq / flowcell_bytes.0.max(1)
}

pub struct Flowcell {
    salt: u64,
}

impl Flowcell {
    pub fn new(seed: u64) -> Flowcell {
        Flowcell { salt: mix64(seed ^ stream::FLOWCELL) }
    }

    /// One of `n` next hops at `node`, `depth` switches after the sender's first, for
    /// flowcell `cell` of `flow`.
    #[inline]
    pub fn pick(&self, node: NodeId, n: usize, flow: FlowId, cell: u64, depth: u8) -> usize {
        let n64 = n as u64;
        let mut digit = cell;
        for _ in 0..depth {
            digit /= n64;
        }
        let offset = mix64(self.salt ^ ((flow.0 as u64) << 32 | node.0 as u64)) % n64;
        ((offset + digit % n64) % n64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_boundaries_fall_every_flowcell_bytes() {
        let c = Bytes(65_536);
        assert_eq!(cell_of(0, c), 0);
        assert_eq!(cell_of(65_535, c), 0);
        assert_eq!(cell_of(65_536, c), 1);
        assert_eq!(cell_of(3 * 65_536 + 1_460, c), 3);
        // 1,460-byte segments: the 45th (bytes 64,240..65,700) starts in cell 0.
        assert_eq!(cell_of(44 * 1_460, c), 0);
        assert_eq!(cell_of(45 * 1_460, c), 1);
    }

    #[test]
    fn every_packet_of_a_cell_takes_one_path_and_cells_rotate() {
        let f = Flowcell::new(7);
        let c = Bytes(65_536);
        let (node, n, flow) = (NodeId(5), 3, FlowId(11));
        let mut path_of_cell = std::collections::HashMap::new();
        for seq in (0..40 * 65_536u64).step_by(1_460) {
            let cell = cell_of(seq, c);
            let p = f.pick(node, n, flow, cell, 0);
            assert_eq!(*path_of_cell.entry(cell).or_insert(p), p, "cell {cell} split");
        }
        // Successive cells take successive uplinks, round-robin.
        for k in 0..39u64 {
            assert_eq!((path_of_cell[&k] + 1) % n, path_of_cell[&(k + 1)]);
        }
        let mut uses = [0; 3];
        for k in 0..39u64 {
            uses[path_of_cell[&k]] += 1;
        }
        assert_eq!(uses, [13, 13, 13]);
    }

    #[test]
    fn two_choice_points_use_every_path_once_per_round() {
        // A fat-tree's edge (depth 0) and aggregation (depth 1) switches, 4 uplinks each:
        // 16 consecutive cells take the 16 (edge uplink, core uplink) paths once each.
        let f = Flowcell::new(3);
        let flow = FlowId(2);
        let mut seen = std::collections::HashSet::new();
        for cell in 16..32 {
            let up = f.pick(NodeId(1), 4, flow, cell, 0);
            let agg = NodeId(10 + up as u32);
            seen.insert((up, f.pick(agg, 4, flow, cell, 1)));
        }
        assert_eq!(seen.len(), 16);
    }

    #[test]
    fn flows_start_on_different_paths() {
        let f = Flowcell::new(1);
        let mut first = [0; 4];
        for flow in 0..400 {
            first[f.pick(NodeId(3), 4, FlowId(flow), 0, 0)] += 1;
        }
        assert!(first.iter().all(|&c| c > 60), "{first:?}");
    }

    #[test]
    fn a_zero_cell_is_refused() {
        let s = FlowcellSettings { flowcell_bytes: Bytes(0) };
        assert!(s.validate().unwrap_err().to_string().contains("flowcell_bytes"));
    }
}
