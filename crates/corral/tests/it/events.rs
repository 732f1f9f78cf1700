//! `[[events]]`: scheduled link-rate changes (HCC's capacity steps), in packet and fluid mode.

use crate::common;

use corral::fluid::FluidSim;

/// One unbounded flow over a dumbbell whose 1 Gbps bottleneck (sw0 -> sw1, both
/// directions) drops to 100 Mbps at 10 ms and rises to 500 Mbps at 20 ms. The buffer is deep
/// enough that nothing is dropped: the bottleneck's queue never empties once slow start has
/// filled it, so the flow's goodput is the link's rate.
const STEPS: &str = r#"
duration = "30ms"
[topology]
kind = "dumbbell"
senders = 1
receivers = 1
link_rate = "1Gbps"
link_delay = "5us"
[switch]
buffer = "5000pkt"
[[flows]]
src = "h0"
dst = "h1"
[[events]]
at = "10ms"
link = "sw0:1"
rate = "100Mbps"
[[events]]
at = "20ms"
link = "sw0:1"
rate = "500Mbps"
[metrics]
interval = "1ms"
"#;

fn window_bps(bytes: &[(f64, u64)], from: f64, to: f64) -> f64 {
    let sum: u64 =
        bytes.iter().filter(|(t, _)| *t > from + 1e-9 && *t <= to + 1e-9).map(|b| b.1).sum();
    sum as f64 * 8.0 / (to - from)
}

// Tolerance: fluid mode is exact (payload rate = link rate x 1460/1500); at packet level
// the goodput in each window after a step is the new rate within 2 % (one packet per window).
#[test]
fn link_rates_step_at_their_times_in_packet_and_fluid_mode() {
    let payload = 1460.0 / 1500.0;
    let sim = common::run(STEPS, &[]);
    assert_eq!(sim.counts.dropped, 0);
    let tp = &sim.metrics.throughput;
    let series: Vec<(f64, u64)> =
        (0..tp.time.len()).map(|k| (tp.time[k].as_secs_f64(), tp.bytes[k])).collect();
    for (from, to, rate) in [(0.004, 0.010, 1e9), (0.013, 0.020, 1e8), (0.023, 0.030, 5e8)] {
        let g = window_bps(&series, from, to) / (rate * payload);
        assert!(
            (0.98..=1.02).contains(&g),
            "packet: {from}-{to} s at {rate:e}: {g:.3} of the link"
        );
    }
    let sc =
        corral::scenario::load(&STEPS.replace("duration", "mode = \"fluid\"\nduration"), &[], "t")
            .unwrap();
    let mut fluid = FluidSim::new(sc).unwrap();
    fluid.run();
    let t = fluid.throughput_table();
    let (Some(corral::metrics::Column::Float(time)), Some(corral::metrics::Column::Int(bytes))) =
        (t.column("time_s"), t.column("bytes"))
    else {
        panic!()
    };
    let series: Vec<(f64, u64)> = time.iter().zip(bytes).map(|(&t, &b)| (t, b as u64)).collect();
    for (from, to, rate) in [(0.0, 0.010, 1e9), (0.010, 0.020, 1e8), (0.020, 0.030, 5e8)] {
        let g = window_bps(&series, from, to) / (rate * payload);
        assert!((g - 1.0).abs() < 1e-3, "fluid: {from}-{to} s: {g:.4} of the link");
    }
}

#[test]
fn bad_events_name_their_key() {
    let err = |text: String| {
        corral::scenario::load(&text, &[], "t")
            .and_then(corral::Simulation::new)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert!(err(STEPS
        .replace("link = \"sw0:1\"\nrate = \"100Mbps\"", "link = \"sw9:1\"\nrate = \"100Mbps\""))
    .starts_with("events[0].link: unknown port \"sw9:1\""));
    assert!(err(STEPS.replace("at = \"20ms\"", "at = \"40ms\""))
        .starts_with("events[1].at: must be before the end"));
    assert!(err(STEPS.replace("link = \"sw0:1\"\nrate = \"500Mbps\"", "rate = \"500Mbps\""))
        .starts_with("events[1].link: required key"));
    assert!(err(STEPS.replace(
        "link = \"sw0:1\"\nrate = \"500Mbps\"",
        "link = \"sw0:1\"\nport = \"sw0:1\"\nrate = \"500Mbps\""
    ))
    .starts_with("events[1].port: give either"));
    assert!(err(STEPS.replace("rate = \"100Mbps\"", "rate = \"100MBps\""))
        .starts_with("events[0].rate:"));
}
