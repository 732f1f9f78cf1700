//! Swift's headline (Kumar et al., SIGCOMM 2020, sections 3 and 5): the senders hold the
//! round-trip delay near the target they compute (base target, per-hop and flow-count
//! scaling) at full utilization, however many flows share the bottleneck.
//!
//! Setup: a 25 Gbps dumbbell (1 us links, base RTT about 9 us), 1000-byte packets, a
//! 2000-packet buffer, an ACK per segment; N long flows into one receiver. The queue of the
//! bottleneck (sw0's port to the receiver) is sampled every 2 us after a 2 ms warm-up, and
//! its mean, as queuing delay, plus the unloaded RTT is compared with the flows' targets.

use crate::common;

use corral::transport::cc::AnyCc;

fn scenario(flows: u32) -> String {
    let srcs: Vec<String> = (0..flows).map(|i| format!("\"h{i}\"")).collect();
    format!(
        r#"
name = "swift"
seed = 5
duration = "8ms"
[topology]
kind = "dumbbell"
senders = {flows}
receivers = 1
link_rate = "25Gbps"
link_delay = "1us"
[switch]
buffer = "2000pkt"
[transport]
cc = "swift"
mss = 960
header = 40
min_rto = "1ms"
[[flows]]
src = [{srcs}]
dst = "h{flows}"
[metrics]
interval = "100us"
queue_ports = ["sw0:{flows}"]
queue_interval = "2us"
"#,
        srcs = srcs.join(", ")
    )
}

#[test]
fn swift_holds_the_rtt_near_its_target_at_full_utilization() {
    for flows in [2u32, 8] {
        let sim = common::run(&scenario(flows), &[]);
        let port = format!("sw0:{flows}");
        let util = common::utilization(&sim, &port);
        let (_, q_bytes) = common::mean_queue(&sim, &port, 0.002);
        let targets: Vec<f64> = sim
            .flows
            .iter()
            .map(|f| match f.sender.cc().kind() {
                AnyCc::Swift(s) => s.target(),
                _ => panic!("not swift"),
            })
            .collect();
        let target = targets.iter().sum::<f64>() / targets.len() as f64;
        // The unloaded RTT: three 1 us links each way, a 1000-byte packet's serialization
        // at each of three hops one way and a 40-byte ACK's the other.
        let base = 6e-6 + 3.0 * (1000.0 + 40.0) * 8.0 / 25e9;
        let rtt = base + q_bytes * 8.0 / 25e9;
        let st = common::port_stats(&sim, &port);
        eprintln!(
            "{flows} flows: util {util:.3}, mean queue {q_bytes:.0} B, RTT {:.1} us vs target {:.1} us, drops {}",
            rtt * 1e6,
            target * 1e6,
            st.drops
        );
        assert!(util > 0.95, "utilization {util}");
        assert!((rtt / target - 1.0).abs() < 0.2, "RTT {rtt} against the target {target}");
        assert_eq!(st.drops, 0);
    }
}
