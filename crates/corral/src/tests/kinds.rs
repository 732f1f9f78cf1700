//! Tests that the toy discipline (`tests/toy_discipline.rs`) and controller
//! (`tests/toy_controller.rs`), each its file and one line in its list, are reachable from a
//! scenario file with their settings checked by key path. They load scenarios and run them,
//! so they live here, above the modules they test.

use crate::net::queue::{self, QueueKind};
use crate::transport::cc::{self, CcConfig};

const TOY: &str = "duration = \"20ms\"\n[topology]\nkind = \"dumbbell\"\nsenders = 1\nreceivers = 1\nlink_rate = \"1Gbps\"\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n[transport]\nsack = false\n";

#[test]
fn one_file_and_one_line_make_a_discipline_scenarios_can_name() {
    assert!(queue::KINDS.contains(&"toy") && QueueKind::ALL.contains(&QueueKind::Toy));
    // its settings table, validated with key paths
    let e = crate::scenario::load(
        &format!("{TOY}[switch]\nqueue = \"toy\"\n[switch.toy]\nevery = 0\n"),
        &[],
        "t",
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("switch.toy.every: must be at least 1"), "{e}");
    let e = crate::scenario::load(
        &format!("{TOY}[switch]\nqueue = \"toy\"\n[switch.toy]\nevry = 3\n"),
        &[],
        "t",
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("switch.toy.evry: unknown key; did you mean `every`?"), "{e}");
    // and it runs: every 5th packet arriving at the switches is dropped
    let sc = crate::scenario::load(
        &format!("{TOY}[switch]\nqueue = \"toy\"\nbuffer = \"1000pkt\"\n[switch.toy]\nevery = 5\n"),
        &[],
        "t",
    )
    .unwrap();
    let mut sim = crate::Simulation::new(sc).unwrap();
    sim.run();
    let (sent, dropped) = (sim.counts.sent, sim.counts.dropped);
    assert!(dropped > 0 && sim.flows[0].receiver.delivered() > 0, "{sent} sent, {dropped} dropped");
}

#[test]
fn one_file_and_one_line_make_a_controller_scenarios_can_name() {
    assert!(cc::KINDS.contains(&"toy"));
    let base = "duration = \"10ms\"\n[topology]\nkind = \"dumbbell\"\nsenders = 1\nreceivers = 1\nlink_rate = \"1Gbps\"\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n";
    let e = crate::scenario::load(
        &format!("{base}[transport]\ncc = {{ kind = \"toy\", segmnts = 2 }}\n"),
        &[],
        "t",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("segmnts") && e.contains("did you mean `segments`"), "{e}");
    let sc = crate::scenario::load(
        &format!("{base}[transport]\ncc = {{ kind = \"toy\", segments = 2 }}\n"),
        &[],
        "t",
    )
    .unwrap();
    assert_eq!(sc.transport.cc, CcConfig::Toy(super::toy_controller::ToyConfig { segments: 2 }));
    let mut sim = crate::Simulation::new(sc).unwrap();
    sim.run();
    assert!(sim.flows[0].receiver.delivered() > 0);
    // the window the sender used is the one the toy set: 2 segments
    let cc = sim.flows[0].sender.cc();
    assert_eq!(cc.window(), 2 * cc.state().mss);
}
