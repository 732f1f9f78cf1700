//! HPCC's headline (Li et al., SIGCOMM 2019, sections 2.3 and 5): with in-network telemetry
//! the senders hold the bottleneck near full utilization with a near-empty queue, and when a
//! flow joins they drain the queue it causes and settle within a few RTTs, where a
//! loss-driven TCP fills the buffer.
//!
//! Setup: a 25 Gbps dumbbell (1 us links, base RTT about 9 us), 1000-byte packets, a
//! 1000-packet buffer, an ACK per segment; the bottleneck is sw0's port to the receiver,
//! sampled every 2 us.

use crate::common;

use corral::transport::cc::AnyCc;

/// Four long flows start together (`join` = 0) or one starts at 0 and three at `join` us.
fn scenario(cc: &str, join_us: u64) -> String {
    format!(
        r#"
name = "hpcc"
seed = 5
duration = "6ms"
[topology]
kind = "dumbbell"
senders = 4
receivers = 1
link_rate = "25Gbps"
link_delay = "1us"
[switch]
buffer = "1000pkt"
[transport]
cc = "{cc}"
mss = 960
header = 40
min_rto = "1ms"
[[flows]]
src = "h0"
dst = "h4"
[[flows]]
src = ["h1", "h2", "h3"]
dst = "h4"
start = "{join_us}us"
[metrics]
interval = "100us"
queue_ports = ["sw0:4"]
queue_interval = "2us"
"#
    )
}

/// The largest sampled queue (bytes) of `sw0:4` in `[from_s, to_s)`.
fn max_queue(sim: &corral::Simulation, from_s: f64, to_s: f64) -> u64 {
    let p = sim.net.port_by_name("sw0:4").expect("port");
    let q = &sim.metrics.queues;
    (0..q.time.len())
        .filter(|&i| q.port[i] == p && (from_s..to_s).contains(&q.time[i].as_secs_f64()))
        .map(|i| q.bytes[i])
        .max()
        .expect("samples")
}

#[test]
fn hpcc_keeps_the_queue_near_zero_at_full_utilization() {
    let sim = common::run(&scenario("hpcc", 0), &[]);
    let util = common::utilization(&sim, "sw0:4");
    let (q_pkts, _) = common::mean_queue(&sim, "sw0:4", 0.001);
    let st = common::port_stats(&sim, "sw0:4");
    let reno = common::run(&scenario("newreno", 0), &[]);
    let (reno_q, _) = common::mean_queue(&reno, "sw0:4", 0.001);
    eprintln!("hpcc util {util:.3} mean queue {q_pkts:.2} pkts drops {}; newreno mean queue {reno_q:.1} pkts", st.drops);
    // eta = 0.95 of the link's capacity is HPCC's target; headers and the telemetry count.
    assert!(util > 0.9, "utilization {util}");
    assert!(q_pkts < 5.0, "HPCC's mean queue {q_pkts} packets");
    assert!(reno_q > 20.0 * q_pkts.max(1.0), "NewReno's mean queue {reno_q} packets");
    assert_eq!(st.drops, 0);
    // Every data packet carried two hop records (sw0 and sw1) and its ACK echoed them.
    for f in &sim.flows {
        let AnyCc::Hpcc(h) = f.sender.cc().kind() else { panic!("not hpcc") };
        assert!(h.utilization() > 0.5 && h.utilization() < 1.5, "U {}", h.utilization());
    }
}

#[test]
fn hpcc_drains_a_joining_flows_queue_within_a_few_rtts_and_shares_the_link() {
    let join = 2000;
    let sim = common::run(&scenario("hpcc", join), &[]);
    let j = join as f64 * 1e-6;
    // Three flows join at line rate (W_init): a queue builds for about one RTT...
    let burst = max_queue(&sim, j, j + 20e-6);
    // ...and is gone within a few RTTs (10 us each) after it.
    let after = max_queue(&sim, j + 100e-6, 0.006);
    let util = common::utilization(&sim, "sw0:4");
    let windows: Vec<f64> = sim
        .flows
        .iter()
        .map(|f| match f.sender.cc().kind() {
            AnyCc::Hpcc(h) => h.window(),
            _ => panic!("not hpcc"),
        })
        .collect();
    eprintln!("burst {burst} B, queue after {after} B, util {util:.3}, windows {windows:?}");
    assert!(burst > 20_000, "the join's burst queue {burst} bytes");
    assert!(after < burst / 4, "queue {after} bytes ten RTTs after the join (burst {burst})");
    let (lo, hi) = windows.iter().fold((f64::MAX, 0.0f64), |(l, h), w| (l.min(*w), h.max(*w)));
    assert!(lo > 0.5 * hi, "windows {windows:?} after 4 ms together");
    assert!(util > 0.85, "utilization {util}");
}
