//! Host small-queue backpressure (`host.small_queue`): a flow whose own NIC is its bottleneck
//! must not overflow that NIC; with backpressure off, the window grows until the NIC queue
//! drops packets.

use crate::common;

fn nic_drops(small_queue: u32) -> (u64, f64) {
    // Host links and bottleneck at the same rate: the sender's NIC is the first bottleneck.
    let text = common::dumbbell(1, "1Gbps", 1, "");
    let sim =
        common::run(&text, &["host.buffer=50pkt", &format!("host.small_queue={small_queue}")]);
    let nic = common::port_stats(&sim, "h0:0");
    (nic.drops, common::utilization(&sim, "sw0:1"))
}

// Tolerance: with backpressure, zero NIC drops and >= 95% utilization; without, the same
// flow overflows its 50-packet NIC queue at least once in 100 ms.
#[test]
fn small_queues_keep_the_sender_from_overflowing_its_nic() {
    let (drops, util) = nic_drops(2);
    assert_eq!(drops, 0);
    assert!(util >= 0.95, "utilization {util}");
    let (drops_off, _) = nic_drops(0);
    assert!(drops_off > 0, "without backpressure the NIC queue overflows");
}

// A flow blocked on NIC room must wake when a jittered packet of another flow goes straight
// onto an idle wire (regression: it used to stay blocked forever, sending nothing).
#[test]
fn blocked_flow_wakes_when_jittered_packets_reach_an_idle_nic() {
    let text = r#"
duration = "50ms"
[topology]
kind = "dumbbell"
senders = 1
receivers = 1
link_rate = "10Gbps"
[host]
send_jitter = "200us"
small_queue = 2
[[flows]]
src = "h0"
dst = "h1"
size = "2920B"
[[flows]]
src = "h0"
dst = "h1"
start = "1us"
"#;
    let sim = common::run(text, &[]);
    assert!(
        sim.flows[1].receiver.delivered() > 1_000_000,
        "delivered {}",
        sim.flows[1].receiver.delivered()
    );
}
