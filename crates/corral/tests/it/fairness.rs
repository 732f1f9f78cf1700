//! Eight NewReno flows with equal RTTs share a dumbbell bottleneck fairly.

use crate::common;

use corral::metrics::fairness::jain_index;

// 8 senders (one flow each) at 10 Gbps into a 1 Gbps bottleneck (sw0:8), 1 receiver; every
// flow has the same path and so the same propagation RTT (2 * (10 + 50 + 10) us = 140 us).
// Buffer 100 packets (~8 BDP). Flows start within 1 ms of each other (jitter, fixed seed).
// Tolerance: Jain's index over the bytes each flow delivered in 1 s >= 0.8; the bottleneck
// utilization >= 95% (so fairness is not bought with idle capacity).
#[test]
fn eight_newreno_flows_share_fairly() {
    let text = r#"
name = "fairness"
seed = 7
duration = "1s"
[topology]
kind = "dumbbell"
senders = 8
receivers = 1
link_rate = "10Gbps"
bottleneck_rate = "1Gbps"
link_delay = "10us"
bottleneck_delay = "50us"
[switch]
buffer = "100pkt"
[transport]
cc = "newreno"
[[flows]]
src = ["h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7"]
dst = "h8"
jitter = "1ms"
[metrics]
interval = "10ms"
"#;
    let sim = common::run(text, &[]);
    let bytes = common::delivered(&sim);
    let jain = jain_index(&bytes);
    let jain_goodput = jain_index(&sim.flow_goodputs());
    let util = common::utilization(&sim, "sw0:8");
    let mbps: Vec<String> = bytes.iter().map(|b| format!("{:.0}", b * 8.0 / 1e6)).collect();
    let timeouts: u64 = sim.flows.iter().map(|f| f.sender.stats.timeouts).sum();
    eprintln!("per-flow Mbit delivered {mbps:?}; Jain(bytes) {jain:.4}, Jain(goodput) {jain_goodput:.4}, utilization {util:.4}, timeouts {timeouts}");
    assert!(jain >= 0.8, "Jain index over bytes delivered {jain}");
    assert!(util >= 0.95, "utilization {util}");
}
