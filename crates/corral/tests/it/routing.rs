//! Routing in one place: packets and flow-level usage fractions follow the same rules. For
//! every routing, the share of a flow's data packets that crossed each link at packet level
//! matches the fraction `route::usage` (used by `corral.alloc` and fluid mode) gives it; and
//! dimension-order, VLB and source routes choose the paths they should.

use crate::common;

use corral::ids::PortId;
use corral::net::{Packet, PacketKind};
use corral::route::usage::UsageBuilder;
use corral::schemes::{Ctx, Scheme};
use corral::Simulation;
use std::sync::{Arc, Mutex};

/// Taps every port and counts the data packets offered to each.
struct CountData(Arc<Mutex<Vec<u64>>>);

impl Scheme for CountData {
    fn init(&mut self, ctx: &mut dyn Ctx) {
        for p in 0..ctx.net().ports.len() {
            ctx.tap_port(PortId(p as u32));
        }
        *self.0.lock().unwrap() = vec![0; ctx.net().ports.len()];
    }

    fn on_port_packet(&mut self, _ctx: &mut dyn Ctx, port: PortId, pkt: &mut Packet) {
        if pkt.kind == PacketKind::Data {
            self.0.lock().unwrap()[port.idx()] += 1;
        }
    }
}

const TORUS: &str = r#"
duration = "8ms"
[topology]
kind = "torus"
dims = [4, 4, 4]
link_rate = "10Gbps"
link_delay = "100ns"
[switch]
buffer = "1000pkt"
[routing]
ROUTING
[[flows]]
src = "h0"
dst = "h42"
transport = "tcp"
[transport]
initial_window = 64
receive_window = 2000000
"#;

/// Packet-level share of the flow's data packets on each link, and the usage fractions.
fn shares(routing: &str, dst: u32) -> (Vec<f64>, Vec<(u32, f64)>, Simulation) {
    let text =
        TORUS.replace("ROUTING", routing).replace("dst = \"h42\"", &format!("dst = \"h{dst}\""));
    let sc = corral::scenario::load(&text, &[], "test").unwrap_or_else(|e| panic!("{e}"));
    let counts = Arc::new(Mutex::new(Vec::new()));
    // A scheme with no flows of its own: the TCP flow is outside it, the taps see everything.
    let mut sim =
        Simulation::with_scheme(sc, Box::new(CountData(counts.clone())), "count").unwrap();
    sim.run();
    common::assert_conserved(&sim);
    let counts = counts.lock().unwrap().clone();
    let sent = sim.flows[0].sender.stats.segments_sent as f64;
    let measured: Vec<f64> = counts.iter().map(|&c| c as f64 / sent).collect();
    let r = sim.hot[0].routing;
    let usage = UsageBuilder::new(
        &sim.net,
        &corral::route::RouteTable::build(&sim.net, true),
        sim.scenario.seed,
    )
    .usage(r, 0, 0, dst);
    (measured, usage, sim)
}

// Tolerance: every link's packet share within 0.02 of its usage fraction (about 6,000 data
// packets: the sampling error of a share is below 0.007), and no packet on a link the usage
// does not list.
#[test]
fn packets_follow_the_usage_fractions_of_every_routing() {
    for routing in [
        "kind = \"ecmp\"",
        "kind = \"spray\"",
        "kind = \"rps\"",
        "kind = \"dest_tag\"",
        "kind = \"vlb\"",
        "kind = \"wlb\"\ndirect = 0.5",
        "kind = \"rps\"\nsource_routes = true",
        "kind = \"vlb\"\nsource_routes = true",
    ] {
        let (measured, usage, sim) = shares(routing, 42);
        assert!(sim.flows[0].sender.stats.segments_sent > 4000, "{routing}: too few packets");
        let mut expected = vec![0.0; measured.len()];
        for &(l, a) in &usage {
            expected[l as usize] = a;
        }
        for (l, (&m, &e)) in measured.iter().zip(&expected).enumerate() {
            let p = &sim.net.ports[l];
            assert!(
                (m - e).abs() < 0.02,
                "{routing}: {}:{} carried {m:.4} of the packets, usage {e:.4}",
                sim.net.nodes[p.node.idx()].name,
                p.local
            );
            if e == 0.0 {
                assert_eq!(m, 0.0, "{routing}: packets on a link outside the usage");
            }
        }
    }
}

// Dimension order on a torus: h0 (0,0,0) to h42 (2,2,2) corrects x first, then y, then z:
// the path visits sw1, sw2, sw6, sw10, sw26, sw42.
#[test]
fn dest_tag_corrects_the_lowest_dimension_first() {
    let (_, usage, sim) = shares("kind = \"dest_tag\"", 42);
    let nodes: Vec<&str> = usage
        .iter()
        .map(|&(l, _)| sim.net.nodes[sim.net.ports[l as usize].peer.idx()].name.as_str())
        .collect();
    for n in ["sw0", "sw1", "sw2", "sw6", "sw10", "sw26", "sw42", "h42"] {
        assert!(nodes.contains(&n), "{n} not on the path {nodes:?}");
    }
    assert_eq!(usage.len(), 8);
}

// To a neighbour (h0 -> h1: 1 torus hop + 2 host links) VLB's mean path is 6 torus hops: an
// intermediate in a 4-ring adds 2 hops on average in each of the two other dimensions and 1
// in the first. WLB with direct = 1/3 lies between, by the mix. (Between antipodes, h0 -> h42,
// every VLB path is minimal.)
#[test]
fn vlb_paths_are_longer_and_wlb_lies_between() {
    let hops = |r: &str| -> f64 { shares(r, 1).1.iter().map(|e| e.1).sum() };
    let (minimal, vlb, wlb) =
        (hops("kind = \"rps\""), hops("kind = \"vlb\""), hops("kind = \"wlb\""));
    assert!((minimal - 3.0).abs() < 1e-9);
    assert!((vlb - 8.0).abs() < 1e-9, "vlb {vlb}");
    assert!(wlb > minimal && wlb < vlb, "wlb {wlb}");
    assert!((wlb - (minimal / 3.0 + 2.0 * vlb / 3.0)).abs() < 1e-9);
}
