//! Flowcell routing (`routing.kind = "flowcell"`, after Presto) end to end from a scenario
//! file: every data packet of one flowcell leaves the sender's switch on one uplink, the
//! flow's successive cells take successive uplinks, and the uplinks carry the flow evenly;
//! on a fat-tree the (aggregation, core) paths are used evenly too.

use crate::common;

use corral::ids::PortId;
use corral::net::{Packet, PacketKind};
use corral::schemes::{Ctx, Scheme};
use corral::Simulation;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Records (port, first payload byte) of every data packet offered to a switch port.
struct Trace(Arc<Mutex<Vec<(PortId, u64)>>>);

impl Scheme for Trace {
    fn init(&mut self, ctx: &mut dyn Ctx) {
        for p in 0..ctx.net().ports.len() {
            ctx.tap_port(PortId(p as u32));
        }
    }

    fn on_port_packet(&mut self, _ctx: &mut dyn Ctx, port: PortId, pkt: &mut Packet) {
        if pkt.kind == PacketKind::Data {
            self.0.lock().unwrap().push((port, pkt.seq));
        }
    }
}

/// Runs `text` with every port traced; the simulation and its trace.
fn traced(text: &str) -> (Simulation, Vec<(PortId, u64)>) {
    let sc = corral::scenario::load(text, &[], "test").unwrap_or_else(|e| panic!("{e}"));
    let trace = Arc::new(Mutex::new(Vec::new()));
    let mut sim = Simulation::with_scheme(sc, Box::new(Trace(trace.clone())), "trace").unwrap();
    sim.run();
    common::assert_conserved(&sim);
    let t = trace.lock().unwrap().clone();
    (sim, t)
}

/// For the packets that left `node` on one of its uplinks (ports toward `level` + 1): the
/// uplink (index among the node's ports) each flowcell of `cell` bytes took; panics if one
/// cell took two.
fn cells_on_uplinks(
    sim: &Simulation,
    trace: &[(PortId, u64)],
    node: corral::ids::NodeId,
    cell: u64,
) -> BTreeMap<u64, usize> {
    let level = sim.net.nodes[node.idx()].level;
    let mut path_of = BTreeMap::new();
    for &(port, seq) in trace {
        let p = &sim.net.ports[port.idx()];
        if p.node != node || sim.net.nodes[p.peer.idx()].level <= level {
            continue;
        }
        let slot = sim.net.ends[port.idx()].local as usize;
        let k = seq / cell;
        let was = *path_of.entry(k).or_insert(slot);
        assert_eq!(was, slot, "flowcell {k} (byte {seq}) left on uplinks {was} and {slot}");
    }
    path_of
}

const LEAF_SPINE: &str = r#"
duration = "40ms"
[topology]
kind = "leaf_spine"
leaves = 2
spines = 4
hosts_per_leaf = 2
host_rate = "10Gbps"
fabric_rate = "10Gbps"
[switch]
buffer = "1000pkt"
[routing]
kind = "flowcell"
CELL
[[flows]]
src = "h0"
dst = "h2"
size = "4MB"
transport = "tcp"
"#;

// Exact: a 4 MB flow in 64 KiB cells is 62 cells (the last partial); each cell's packets all
// leave h0's leaf on one uplink, cell k+1 on the uplink after cell k's, so the 4 spines carry
// 15 or 16 cells each (no spread beyond one cell).
#[test]
fn each_flowcell_takes_one_spine_and_cells_rotate_over_all() {
    let (sim, trace) = traced(&LEAF_SPINE.replace("CELL", ""));
    assert!(sim.flows[0].receiver.delivered() >= 4_000_000, "the flow finished");
    let leaf = sim.net.attach[0];
    let cells = cells_on_uplinks(&sim, &trace, leaf, 65_536);
    assert_eq!(cells.len(), 62, "4 MB in 64 KiB cells");
    let uplinks: Vec<usize> = cells.values().copied().collect();
    let first = uplinks[0];
    let ups: Vec<usize> = {
        let mut u = uplinks.clone();
        u.sort_unstable();
        u.dedup();
        u
    };
    assert_eq!(ups.len(), 4, "all four spines: {ups:?}");
    for (k, &u) in uplinks.iter().enumerate() {
        let pos = ups.iter().position(|&x| x == u).unwrap();
        let pos0 = ups.iter().position(|&x| x == first).unwrap();
        assert_eq!(pos, (pos0 + k) % 4, "cell {k} is the rotation's next uplink");
    }
    let mut count: BTreeMap<usize, usize> = BTreeMap::new();
    for u in uplinks {
        *count.entry(u).or_default() += 1;
    }
    let (lo, hi) = (count.values().min().unwrap(), count.values().max().unwrap());
    assert!(hi - lo <= 1, "cells per spine {count:?}");
}

// `flowcell_bytes` from the file: 16 KB cells cut the same flow into 250 cells, each on one
// uplink, spread within one cell over the spines.
#[test]
fn the_cell_size_comes_from_the_scenario() {
    let (sim, trace) = traced(&LEAF_SPINE.replace("CELL", "flowcell_bytes = \"16KB\""));
    let cells = cells_on_uplinks(&sim, &trace, sim.net.attach[0], 16_000);
    assert_eq!(cells.len(), 250);
    let mut count: BTreeMap<usize, usize> = BTreeMap::new();
    for u in cells.values() {
        *count.entry(*u).or_default() += 1;
    }
    assert_eq!(count.len(), 4);
    assert!(count.values().all(|&c| c == 62 || c == 63), "{count:?}");
}

#[test]
fn a_bad_cell_size_names_its_key() {
    for bad in ["flowcell_bytes = \"0B\"", "flowcell_bytes = \"lots\"", "flowcell_byte = \"8KB\""] {
        let e = corral::scenario::load(&LEAF_SPINE.replace("CELL", bad), &[], "test")
            .err()
            .unwrap_or_else(|| panic!("{bad} accepted"))
            .to_string();
        assert!(e.contains("routing.flowcell_byte"), "{bad}: {e}");
    }
}

// A k=4 fat-tree: h0 (pod 0) to h15 (pod 3) has 4 paths (2 aggregation switches x 2 cores
// each). 32 cells: every (aggregation uplink, core uplink) pair carries exactly 8.
#[test]
fn on_a_fat_tree_every_path_carries_its_share_of_cells() {
    let text = r#"
duration = "40ms"
[topology]
kind = "fat_tree"
k = 4
link_rate = "10Gbps"
[switch]
buffer = "1000pkt"
[routing]
kind = "flowcell"
[[flows]]
src = "h0"
dst = "h15"
size = "2097152B"
transport = "tcp"
"#;
    let (sim, trace) = traced(text);
    let edge = sim.net.attach[0];
    let at_edge = cells_on_uplinks(&sim, &trace, edge, 65_536);
    assert_eq!(at_edge.len(), 32);
    let mut paths: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for node in sim.net.nodes.iter().enumerate().filter(|(_, n)| n.level == 2) {
        let id = corral::ids::NodeId(node.0 as u32);
        for (k, core_up) in cells_on_uplinks(&sim, &trace, id, 65_536) {
            *paths.entry((at_edge[&k], core_up + 100 * node.0)).or_default() += 1;
        }
    }
    assert_eq!(paths.len(), 4, "{paths:?}");
    assert!(paths.values().all(|&c| c == 8), "cells per path {paths:?}");
}
