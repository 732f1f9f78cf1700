//! Hop-by-hop per-flow back-pressure (`switch.backpressure`, R2C2's PFQ baseline): no switch
//! holds more than the limit of any flow (plus what a link has in flight), so the backlog
//! waits at the sources' NICs instead of at the bottleneck; the links still run full; the
//! switches' counts always equal the packets they queue.

use crate::common;

/// Six TCP flows on a 4x4 torus of 10 Gbps links (hosts at 40 Gbps), RPS, per-flow DRR
/// queues with buffers nothing fills, and `extra` lines.
fn torus(extra: &str) -> String {
    let pairs = [(0, 5), (1, 5), (2, 10), (3, 10), (4, 9), (8, 13)];
    let flows: String =
        pairs.iter().map(|(s, d)| format!("[[flows]]\nsrc = \"h{s}\"\ndst = \"h{d}\"\n")).collect();
    format!(
        "duration = \"5ms\"\n[topology]\nkind = \"torus\"\ndims = [4, 4]\nlink_rate = \"10Gbps\"\nlink_delay = \"100ns\"\nhost_rate = \"40Gbps\"\n\
         [switch]\nqueue = \"drr\"\nbuffer = \"100000pkt\"\n{extra}\n[host]\nbuffer = \"100000pkt\"\nsmall_queue = 0\n\
         [routing]\nkind = \"rps\"\n[transport]\ndupthresh = 1000\n{flows}"
    )
}

fn largest_switch_queue(sim: &corral::Simulation) -> u64 {
    let switch = |p: &corral::net::port::Port| {
        sim.net.nodes[p.node.idx()].kind == corral::net::NodeKind::Switch
    };
    sim.net.ports.iter().filter(|p| switch(p)).map(|p| p.stats.max_queue_bytes).max().unwrap()
}

// Tolerance: with a limit of 4 packets per flow and switch, a switch port queues at most
// 6 flows x (4 + 1 in flight) x 1,500 B = 45 KB; without back-pressure the same run queues
// over 10x that at its busiest port. Delivered bytes stay within 5 % (the links run full).
#[test]
fn switches_hold_at_most_the_limit_per_flow_and_the_links_still_run_full() {
    let free = common::run(&torus(""), &[]);
    let held = common::run(&torus("backpressure = 4"), &[]);
    let (q_free, q_held) = (largest_switch_queue(&free), largest_switch_queue(&held));
    assert!(q_held <= 6 * 5 * 1500, "largest switch queue {q_held} B with back-pressure");
    assert!(q_free > 10 * q_held, "without back-pressure {q_free} B, with {q_held} B");
    let total = |sim: &corral::Simulation| common::delivered(sim).iter().sum::<f64>();
    let ratio = total(&held) / total(&free);
    assert!((0.95..=1.05).contains(&ratio), "delivered with / without back-pressure: {ratio:.3}");
    assert_eq!(held.backpressure_held(), Some(switch_queued(&held)));
    assert_eq!(free.backpressure_held(), None);
}

fn switch_queued(sim: &corral::Simulation) -> u64 {
    use corral::net::queue::Discipline;
    sim.net
        .ports
        .iter()
        .filter(|p| sim.net.nodes[p.node.idx()].kind == corral::net::NodeKind::Switch)
        .map(|p| p.queue.packets())
        .sum()
}

// The counts match the queues at every step of a run (sampled every 100 us), not only at
// the end.
#[test]
fn the_switches_counts_equal_their_queued_packets_throughout() {
    let mut sim = common::build(&torus("backpressure = 2"), &[]);
    for step in 1..=50 {
        sim.run_until(corral::units::Time::from_us(100 * step));
        assert_eq!(sim.backpressure_held(), Some(switch_queued(&sim)), "at {} us", 100 * step);
    }
}

#[test]
fn back_pressure_needs_per_flow_queues_and_no_small_queue() {
    let err = |text: String| {
        corral::scenario::load(&text, &[], "t")
            .and_then(corral::Simulation::new)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert!(err(torus("backpressure = 4").replace("queue = \"drr\"", "queue = \"taildrop\""))
        .starts_with("switch.backpressure: hop-by-hop back-pressure holds back single flows"));
    assert!(err(torus("backpressure = 4\n[switch.drr]\nkey = \"class\""))
        .starts_with("switch.backpressure:"));
    assert!(err(torus("backpressure = 4").replace("small_queue = 0", "small_queue = 2"))
        .starts_with("host.small_queue: must be 0 with switch.backpressure"));
}
