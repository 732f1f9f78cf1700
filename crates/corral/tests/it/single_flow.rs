//! One long NewReno flow fills a dumbbell bottleneck.
//!
//! Setup: one sender, one receiver, host links faster than the bottleneck (so the queue builds
//! at `sw0:1`, the switch port toward the receivers), a switch buffer larger than one
//! bandwidth-delay product, so that after a loss the halved window still covers the pipe.
//!
//! The slow-start overshoot loses a large part of one window; NewReno (no SACK) repairs one
//! hole per RTT and leaves the bottleneck partly idle meanwhile (about 10 ms at 10 Gbps).
//! Both the whole-run utilization and the steady-state utilization after a warm-up are
//! checked.

use crate::common;

use corral::units::Time;

struct Outcome {
    /// tx bytes of sw0:1 over the whole run / (rate * duration).
    util: f64,
    /// The same from `warmup` to the end.
    steady_util: f64,
    /// In-order payload delivered over the whole run / (rate * duration).
    goodput: f64,
}

fn one_flow(
    host_rate: &str,
    bottleneck: &str,
    buffer: &str,
    duration_ms: u64,
    warmup_ms: u64,
) -> Outcome {
    let text = format!(
        r#"
name = "single-flow"
seed = 1
duration = "{duration_ms}ms"
[topology]
kind = "dumbbell"
senders = 1
receivers = 1
link_rate = "{host_rate}"
bottleneck_rate = "{bottleneck}"
link_delay = "10us"
bottleneck_delay = "50us"
[switch]
buffer = "{buffer}"
queue = "taildrop"
[transport]
cc = "newreno"
[[flows]]
src = "h0"
dst = "h1"
"#
    );
    let mut sim = common::build(&text, &[]);
    sim.run_until(Time::from_ms(warmup_ms));
    let tx_warm = common::port_stats(&sim, "sw0:1").tx_bytes;
    sim.run();
    common::assert_conserved(&sim);
    let port = &sim.net.ports[sim.net.port_by_name("sw0:1").unwrap().idx()];
    let bps = port.rate().bps() as f64;
    let dur = sim.duration().as_secs_f64();
    let steady_s = dur - warmup_ms as f64 / 1e3;
    let f = &sim.flows[0];
    let out = Outcome {
        util: common::utilization(&sim, "sw0:1"),
        steady_util: (port.stats.tx_bytes - tx_warm) as f64 * 8.0 / (bps * steady_s),
        goodput: f.receiver.delivered() as f64 * 8.0 / (bps * dur),
    };
    eprintln!(
        "{bottleneck}: utilization {:.4} (after {warmup_ms} ms: {:.4}), goodput/rate {:.4}, drops {}, fast recoveries {}, timeouts {}, max queue {} B",
        out.util, out.steady_util, out.goodput, port.stats.drops, f.sender.stats.fast_recoveries, f.sender.stats.timeouts, port.stats.max_queue_bytes,
    );
    out
}

// Propagation RTT = 2 * (10 + 50 + 10) us = 140 us. BDP at 1 Gbps = 17.5 KB (12 packets); the
// buffer is 100 packets, about 8 BDP. Hosts at 10 Gbps.
// Tolerance: bottleneck utilization >= 95% over the whole 200 ms run and >= 99% after a 50 ms
// warm-up (the queue never drains in the sawtooth); goodput >= 90% of the line rate (payload
// is 1460/1500 = 97.3% of the wire bytes).
#[test]
fn newreno_fills_1gbps_bottleneck() {
    let o = one_flow("10Gbps", "1Gbps", "100pkt", 200, 50);
    assert!(o.util >= 0.95, "utilization {}", o.util);
    assert!(o.steady_util >= 0.99, "steady-state utilization {}", o.steady_util);
    assert!(o.goodput >= 0.90, "goodput fraction {}", o.goodput);
}

// BDP at 10 Gbps = 175 KB (117 packets); the buffer is 200 packets (300 KB, 1.7 BDP); hosts
// at 40 Gbps. The run is 300 ms because the slow-start loss recovery takes ~70 ms.
// Tolerance: as above: >= 95% over the run, >= 99% after a 100 ms warm-up, goodput >= 90%.
#[test]
fn newreno_fills_10gbps_bottleneck() {
    let o = one_flow("40Gbps", "10Gbps", "200pkt", 300, 100);
    assert!(o.util >= 0.95, "utilization {}", o.util);
    assert!(o.steady_util >= 0.99, "steady-state utilization {}", o.steady_util);
    assert!(o.goodput >= 0.90, "goodput fraction {}", o.goodput);
}
