//! TCP pacing (`transport.pacing`): a paced flow's packets leave its host spaced by at least
//! size / rate, so they never pile up in the NIC queue even when the NIC is 10x faster than
//! the bottleneck, and a single paced flow still fills the bottleneck with every controller.

use crate::common;

/// One flow h0 -> h1 over a 10 Gbps host link into a 1 Gbps bottleneck (sw0:1), 100 ms, no
/// host backpressure (so only pacing can keep the NIC queue short). Returns the NIC's largest
/// queue (bytes), the bottleneck utilization and the sender's timeouts.
fn one_flow(cc: &str, pacing: bool, extra: &[&str]) -> (u64, f64, u64) {
    let text = r#"
duration = "100ms"
[topology]
kind = "dumbbell"
senders = 1
receivers = 1
link_rate = "10Gbps"
link_delay = "5us"
bottleneck_rate = "1Gbps"
[switch]
buffer = "100pkt"
[host]
small_queue = 0
[[flows]]
src = "h0"
dst = "h1"
"#;
    let transport = match cc {
        "dctcp" => vec![
            "transport.cc=dctcp".to_string(),
            "transport.ecn=true".into(),
            "switch.queue=ecn".into(),
            "switch.ecn_threshold=20pkt".into(),
        ],
        other => vec![format!("transport.cc={other}")],
    };
    let mut ov: Vec<String> = transport;
    ov.push(format!("transport.pacing={pacing}"));
    ov.push("transport.min_rto=2ms".into());
    let mut ov: Vec<&str> = ov.iter().map(|s| s.as_str()).collect();
    ov.extend_from_slice(extra);
    let sim = common::run(text, &ov);
    let nic = common::port_stats(&sim, "h0:0");
    eprintln!(
        "{cc} pacing={pacing}: {:?}, bottleneck drops {}",
        sim.flows[0].sender.stats,
        common::port_stats(&sim, "sw0:1").drops
    );
    (nic.max_queue_bytes, common::utilization(&sim, "sw0:1"), sim.flows[0].sender.stats.timeouts)
}

// A 30-packet bottleneck buffer and a 100-segment receive window: the window saw-tooths
// through fast recoveries (newreno, cubic) or ECN cuts (dctcp). Tolerance: with pacing at most
// two packets (3000 B) ever wait in the sender's NIC queue behind the one on the wire (two
// only when a recovery-inflated window paces above the 10 Gbps NIC rate); without pacing the
// initial window and slow-start bursts queue at least 4. The paced flow fills the 1 Gbps
// bottleneck to > 95 % over 100 ms with newreno, cubic and dctcp.
#[test]
fn paced_flow_is_spaced_at_the_nic_and_fills_the_bottleneck() {
    for cc in ["newreno", "cubic", "dctcp"] {
        let (q_paced, util, rtos) =
            one_flow(cc, true, &["switch.buffer=30pkt", "transport.receive_window=146000"]);
        let (q_burst, util_unpaced, _) =
            one_flow(cc, false, &["switch.buffer=30pkt", "transport.receive_window=146000"]);
        eprintln!("{cc}: NIC max queue paced {q_paced} B, unpaced {q_burst} B; utilization paced {util:.4} unpaced {util_unpaced:.4}; paced RTOs {rtos}");
        assert!(q_paced <= 3000, "{cc}: paced flow queued {q_paced} B at its NIC");
        assert!(
            q_burst >= 4 * 1500,
            "{cc}: unpaced flow queued only {q_burst} B: the comparison is void"
        );
        assert!(util > 0.95, "{cc}: paced utilization {util}");
    }
}

// Tolerance: exact error text prefix.
#[test]
fn pacing_gain_must_be_positive() {
    let text = common::dumbbell(1, "1Gbps", 1, "");
    for bad in ["0", "-1", "1000"] {
        let ov = vec![format!("transport.pacing_gain={bad}")];
        let err = corral::scenario::load(&text, &ov, "test").unwrap_err().to_string();
        assert!(err.starts_with("transport.pacing_gain: must be a number above 0"), "{err}");
    }
}
