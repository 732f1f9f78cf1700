//! Topology builders seen from a running simulation: host counts, path lengths, end-to-end
//! flows across the fabric, and which links the routing policies use.

use crate::common;

use corral::net::NodeKind;
use corral::Simulation;

fn switches(sim: &Simulation, prefix: &str) -> Vec<String> {
    sim.net
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Switch && n.name.starts_with(prefix))
        .map(|n| n.name.clone())
        .collect()
}

/// Builds `topology` with one sized flow per (src, dst) pair and runs it to the end.
fn run_pairs(topology: &str, pairs: &[(u32, u32)], size: &str) -> Simulation {
    let mut text =
        format!("duration = \"20ms\"\n[topology]\n{topology}\n[transport]\nmin_rto = \"1ms\"\n");
    for (s, d) in pairs {
        text += &format!("[[flows]]\nsrc = \"h{s}\"\ndst = \"h{d}\"\nsize = \"{size}\"\n");
    }
    common::run(&text, &[])
}

/// Every flow finished and delivered exactly `bytes`.
fn assert_all_finished(sim: &Simulation, bytes: u64) {
    for (i, f) in sim.flows.iter().enumerate() {
        assert_eq!(f.receiver.delivered(), bytes, "flow {i} delivered");
        assert!(f.finish.is_some(), "flow {i} did not finish");
    }
}

const LEAF_SPINE: &str = r#"kind = "leaf_spine"
leaves = 4
spines = 3
hosts_per_leaf = 5
host_rate = "10Gbps"
fabric_rate = "40Gbps""#;

// 4 leaves x 5 hosts = 20 hosts; 3 spines. A leaf has 5 host ports + 3 spine ports, a spine
// one port per leaf. Path lengths in links: same leaf 2 (host-leaf-host), different leaves 4
// (host-leaf-spine-leaf-host). Tolerance: exact counts; the 1 MB flows across leaves (and the
// one within a leaf) deliver every byte within 20 ms.
#[test]
fn leaf_spine_counts_hops_and_cross_leaf_flows() {
    // h0, h4 on leaf0; h5 on leaf1; h19 on leaf3.
    let sim = run_pairs(LEAF_SPINE, &[(0, 4), (0, 5), (19, 0), (7, 12)], "1MB");
    assert_eq!(sim.net.hosts.len(), 20);
    assert_eq!(switches(&sim, "leaf").len(), 4);
    assert_eq!(switches(&sim, "spine").len(), 3);
    let ports = |name: &str| sim.net.nodes[sim.net.node_by_name(name).unwrap().idx()].ports.len();
    assert_eq!((ports("leaf0"), ports("spine2")), (8, 4));
    let hops: Vec<u32> = sim.flows.iter().map(|f| f.hops).collect();
    assert_eq!(hops, vec![2, 4, 4, 4]);
    assert_all_finished(&sim, 1_000_000);
    // The cross-leaf flows went through spines; the same-leaf flow (alone on leaf0's port 4
    // toward h4) did not.
    let spine_tx: u64 = ["spine0", "spine1", "spine2"]
        .iter()
        .flat_map(|s| (0..4).map(move |p| format!("{s}:{p}")))
        .map(|p| common::port_stats(&sim, &p).tx_bytes)
        .sum();
    assert!(spine_tx >= 3 * 1_000_000, "spines carried {spine_tx} B");
}

const THREE_TIER: &str = r#"kind = "three_tier"
cores = 2
aggs = 4
aggs_per_pod = 2
edges = 6
hosts_per_edge = 3
host_rate = "10Gbps"
edge_rate = "10Gbps"
core_rate = "40Gbps""#;

// 6 edges x 3 hosts = 18 hosts; 4 aggregation switches in 2 pods of 2, so 3 edges per pod
// (edge0-2 in pod 0, edge3-5 in pod 1); 2 cores. Path lengths: same edge 2, same pod 4
// (host-edge-agg-edge-host), different pods 6 (via a core). Tolerance: exact counts; every
// 1 MB flow delivers every byte within 20 ms.
#[test]
fn three_tier_counts_hops_and_cross_pod_flows() {
    // h0, h1 on edge0; h3 on edge1 (pod 0); h9 on edge3, h17 on edge5 (pod 1).
    let sim = run_pairs(THREE_TIER, &[(0, 1), (0, 3), (0, 9), (17, 1)], "1MB");
    assert_eq!(sim.net.hosts.len(), 18);
    assert_eq!(
        (switches(&sim, "edge").len(), switches(&sim, "agg").len(), switches(&sim, "core").len()),
        (6, 4, 2)
    );
    let ports = |name: &str| sim.net.nodes[sim.net.node_by_name(name).unwrap().idx()].ports.len();
    // edge: 3 hosts + 2 aggs; agg: 3 edges + 2 cores; core: 4 aggs.
    assert_eq!((ports("edge0"), ports("agg0"), ports("core1")), (5, 5, 4));
    let hops: Vec<u32> = sim.flows.iter().map(|f| f.hops).collect();
    assert_eq!(hops, vec![2, 4, 6, 6]);
    assert_all_finished(&sim, 1_000_000);
    let core_tx: u64 = ["core0", "core1"]
        .iter()
        .flat_map(|s| (0..4).map(move |p| format!("{s}:{p}")))
        .map(|p| common::port_stats(&sim, &p).tx_bytes)
        .sum();
    assert!(core_tx >= 2 * 1_000_000, "cores carried {core_tx} B");
}

/// The 12 six-hop flows of the TCP Outcast setup: every host of pods 1-3 (h4..h15) sends to
/// h0 on a k=4 fat-tree. Returns the bytes each core sent toward pod 0 (core port 0).
fn outcast_core_bytes(routing: &str) -> Vec<u64> {
    let text = format!(
        r#"
duration = "5ms"
[topology]
kind = "fat_tree"
k = 4
link_rate = "1Gbps"
[switch]
buffer = "100pkt"
[routing]
kind = "{routing}"
[[flows]]
src = ["h4", "h5", "h6", "h7", "h8", "h9", "h10", "h11", "h12", "h13", "h14", "h15"]
dst = "h0"
"#
    );
    let sim = common::run(&text, &[]);
    assert!(sim.flows.iter().all(|f| f.hops == 6), "all flows are 6-hop");
    assert!(sim.flows.iter().all(|f| f.receiver.delivered() > 0), "every flow delivered data");
    (0..4).map(|c| common::port_stats(&sim, &format!("core{c}:0")).tx_bytes).collect()
}

// Static destination-bit routing sends everything for h0 up uplink 0 at every ToR (h0's last
// bit) and to core 0 at every aggregation switch (second-last bit): exactly one core, core0,
// carries data toward pod 0. ECMP hashes the 12 flows over the 4 cores. Tolerance: exact for
// static (one core > 0 bytes, the others 0); for ECMP at least 3 of 4 cores carry traffic
// and none carries more than 3/4 of it (fixed seed 1).
#[test]
fn fat_tree_static_uses_one_core_ecmp_spreads() {
    let st = outcast_core_bytes("static");
    eprintln!("static: bytes per core toward pod 0 {st:?}");
    assert!(st[0] > 0, "core0 carries the traffic: {st:?}");
    assert_eq!(st.iter().filter(|&&b| b > 0).count(), 1, "static routing: one core: {st:?}");

    let ecmp = outcast_core_bytes("ecmp");
    eprintln!("ecmp: bytes per core toward pod 0 {ecmp:?}");
    let total: u64 = ecmp.iter().sum();
    assert!(ecmp.iter().filter(|&&b| b > 0).count() >= 3, "ecmp spreads: {ecmp:?}");
    assert!(
        ecmp.iter().all(|&b| (b as f64) <= 0.75 * total as f64),
        "ecmp: no core carries > 3/4: {ecmp:?}"
    );

    // Spraying uses every core.
    let spray = outcast_core_bytes("spray");
    eprintln!("spray: bytes per core toward pod 0 {spray:?}");
    assert!(spray.iter().all(|&b| b > 0), "spray uses all cores: {spray:?}");
}
