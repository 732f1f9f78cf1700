//! SCC's tunnels in packet simulation: weighted sharing by the underlay, and the tracker's
//! scaling of a division's tunnel weights.

use crate::common;
use corral::metrics::Column;

/// A 1 Gbps dumbbell of `senders` senders into one receiver (25 us links), 250-packet
/// buffers marking at 20, run for `duration`; `rest` follows.
fn dumbbell(senders: u32, duration: &str, rest: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[topology]
kind = "dumbbell"
senders = {senders}
receivers = 1
link_rate = "1Gbps"
link_delay = "25us"
[switch]
buffer = "250pkt"
queue = "ecn"
ecn_threshold = "20pkt"
{rest}"#
    )
}

/// Two senders into h2 on [`dumbbell`]; each sender one unbounded CS flow of its own tenant,
/// the tenants' divisions weighted 2 and 1, DCTCP inside the tunnels unless `extra` says
/// otherwise.
fn two_tunnels(extra: &str) -> String {
    let rest = format!(
        r#"[transport]
min_rto = "10ms"
[scheme]
kind = "scc"
weights = {{ "a/CS" = 2.0, "b/CS" = 1.0 }}
{extra}
[[flows]]
src = "h0"
dst = "h2"
tenant = "a"
class = "CS"
[[flows]]
src = "h1"
dst = "h2"
tenant = "b"
class = "CS"
[metrics]
interval = "10ms"
"#
    );
    dumbbell(2, "200ms", &rest)
}

fn goodputs(sim: &corral::Simulation, from_s: f64) -> Vec<f64> {
    let tp = &sim.metrics.throughput;
    (0..sim.flows.len())
        .map(|f| {
            let bytes: u64 = (0..tp.time.len())
                .filter(|&k| tp.flow[k] == f as u32 && tp.time[k].as_secs_f64() > from_s + 1e-9)
                .map(|k| tp.bytes[k])
                .sum();
            bytes as f64 * 8.0 / (sim.duration().as_secs_f64() - from_s)
        })
        .collect()
}

// Acceptance 2: the paper's underlay (the default) shares the 1 Gbps bottleneck by weight,
// 2:1 and 3:1 within 10 % over 50-200 ms, with the link at least 95 % used (in wire bytes:
// goodput x 1500 / 1460), with and without rate validation.
#[test]
fn tunnels_share_a_bottleneck_by_weight() {
    for (wa, validate) in [(2.0, false), (3.0, false), (2.0, true)] {
        let text = two_tunnels(&format!("cc = {{ CS = \"dctcp\" }}\nvalidate = {validate}"))
            .replace("\"a/CS\" = 2.0", &format!("\"a/CS\" = {wa:.1}"));
        let sim = common::run(&text, &[]);
        let g = goodputs(&sim, 0.05);
        assert!(
            (g[0] / g[1] / wa - 1.0).abs() <= 0.1,
            "{wa}:1, validate {validate}: ratio {:.2} ({:.3e} / {:.3e})",
            g[0] / g[1],
            g[0],
            g[1]
        );
        let wire = (g[0] + g[1]) * 1500.0 / 1460.0;
        assert!(wire >= 0.95e9, "{wa}:1, validate {validate}: utilization {:.3}", wire / 1e9);
        assert_eq!(sim.counts.dropped, 0);
    }
}

// Acceptance 1: three DS flows of one division from three hosts needing 400, 200 and 400
// Mbps (50 MB in 1 s, 25 MB in 1 s, 25 MB in 0.5 s), so their tunnels' reference weights
// are 2:1:2; every answer of the tracker sums to W_d = 3 within 1e-9, and each tunnel's
// last weight is within 5 % of its share of 3 (1.2, 0.6, 1.2; the needs drift as bytes are
// acked, and hosts hold answers of slightly different slots).
#[test]
fn the_tracker_scales_a_divisions_weights_to_its_own() {
    let rest = r#"[scheme]
kind = "scc"
weights = { "t/DS" = 3.0 }
[[flows]]
src = "h0"
dst = "h3"
tenant = "t"
class = "DS"
size = "50MB"
deadline = "1s"
[[flows]]
src = "h1"
dst = "h3"
tenant = "t"
class = "DS"
size = "25MB"
deadline = "1s"
[[flows]]
src = "h2"
dst = "h3"
tenant = "t"
class = "DS"
size = "25MB"
deadline = "500ms"
"#;
    let text = dumbbell(3, "20ms", rest);
    let sim = common::run(&text, &[]);
    let state = &sim.summary()["scheme"]["state"];
    let division = &state["divisions"][0];
    assert_eq!(division["weight"], 3.0);
    assert!(division["max_weight_sum_error"].as_f64().unwrap() <= 1e-9, "{division}");
    let weights: Vec<f64> = state["tunnels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["weight"].as_f64().unwrap())
        .collect();
    for (w, share) in weights.iter().zip([1.2, 0.6, 1.2]) {
        assert!((w / share - 1.0).abs() < 0.05, "{weights:?}");
    }
    assert!(sim.ctrl.kinds.contains(&"scc_weights"), "the tracker answered");
}

// A bad setting names its key.
#[test]
fn bad_settings_name_their_key() {
    for (setting, key) in [
        ("ucc = \"fast\"", "scheme.ucc"),
        ("slot = \"0s\"", "scheme.slot"),
        ("epsilon = 2.0", "scheme.epsilon"),
        ("weights = { \"a/XS\" = 1.0 }", "scheme.weights.a/XS"),
        ("cc = { XS = \"dctcp\" }", "scheme.cc.XS"),
        ("remark_threshold = -1.0", "scheme.remark_threshold"),
        ("in_tunnel = false\nfifo = \"lifo\"", "scheme.fifo"),
        ("min_increase = -1.0", "scheme.min_increase"),
    ] {
        let text =
            two_tunnels(setting).replace("weights = { \"a/CS\" = 2.0, \"b/CS\" = 1.0 }\n", "");
        let err = corral::scenario::load(&text, &[], "t")
            .and_then(corral::Simulation::new)
            .err()
            .unwrap()
            .to_string();
        assert!(err.starts_with(key), "{setting}: {err}");
    }
}

// A work-conserving underlay: two tunnels, each a tenant's Poisson CS flows (2-198 KB,
// L2DCT inside) offering 60 % of the 1 Gbps bottleneck, 120 % together, keep the link at
// least 97 % busy over the middle 80 % of the run (wire bytes: goodput x 1500 / 1460), as
// L2DCT without SCC does. Taking the tunnel's RTT from its flows' smoothed RTTs (stale for
// flows it held back) left it 94.7 % busy.
#[test]
fn competing_tunnels_keep_the_link_busy_under_poisson_traffic() {
    let traffic = |tenant: &str, src: &str, dst: &str| {
        format!(
            "[[traffic]]\npattern = \"many_to_one\"\nhosts = [\"{src}\", \"{dst}\"]\ndst = \"{dst}\"\nsize = {{ kind = \"uniform\", min = \"2KB\", max = \"198KB\" }}\nrate = 750.0\nclass = \"CS\"\ntenant = \"{tenant}\"\n"
        )
    };
    let text = format!(
        r#"duration = "300ms"
[topology]
kind = "dumbbell"
senders = 2
receivers = 2
link_rate = "1Gbps"
link_delay = "50us"
[switch]
buffer = "250pkt"
queue = "ecn"
ecn_threshold = "20pkt"
[transport]
min_rto = "10ms"
[metrics]
interval = "10ms"
[scheme]
kind = "scc"
{}{}"#,
        traffic("a", "h0", "h2"),
        traffic("b", "h1", "h3")
    );
    let sim = common::run(&text, &[]);
    let t = sim.throughput_class_table();
    let column = |name: &str| t.column(name).expect(name);
    let (Column::Float(time), Column::Str(class), Column::Int(b)) =
        (column("time_s"), column("class"), column("bytes"))
    else {
        panic!("columns")
    };
    let (from, to) = (0.03, 0.27);
    let bytes: i64 = (0..t.rows())
        .filter(|&k| class[k] == "*" && time[k] > from + 1e-9 && time[k] <= to + 1e-9)
        .map(|k| b[k])
        .sum();
    let busy = bytes as f64 * 8.0 * 1500.0 / 1460.0 / (to - from) / 1e9;
    assert!(busy >= 0.97, "link {:.1} % busy", 100.0 * busy);
}

/// The largest congestion window (packets) of any flow at the end of a run.
fn max_cwnd_packets(sim: &corral::Simulation) -> f64 {
    sim.flows.iter().map(|f| f.sender.cc().window() as f64 / 1460.0).fold(0.0, f64::max)
}

// Re-marking: the receiving shim marks a packet when its flow's queue in the tunnel (what
// the window allows beyond what is in flight) is above 20 packets, so DCTCP inside holds its
// window near its rate times the RTT (at most about 0.67 Gbps x 150 us = 8.6 packets, plus
// 20 queued) instead of growing without end; the weights still hold.
#[test]
fn remarking_holds_the_window_of_the_transport_inside_near_its_rate() {
    let on = common::run(&two_tunnels("cc = { CS = \"dctcp\" }"), &[]);
    let off = common::run(&two_tunnels("cc = { CS = \"dctcp\" }\nremark = false"), &[]);
    let (w_on, w_off) = (max_cwnd_packets(&on), max_cwnd_packets(&off));
    assert!(w_on <= 40.0, "re-marked window {w_on:.1} packets");
    assert!(
        w_off >= 4.0 * w_on,
        "without re-marking the window grows: {w_off:.1} against {w_on:.1}"
    );
    assert!(on.scheme_counters.get("scc_remarks").copied().unwrap_or(0) > 0);
    assert!(on.flows.iter().all(|f| f.sender.stats.ecn_cuts > 0), "every flow saw re-marks");
    let g = goodputs(&on, 0.05);
    assert!((g[0] / g[1] - 2.0).abs() <= 0.3, "ratio {:.2}", g[0] / g[1]);
}

// Each class runs its own transport inside its tunnels: by default the paper's (CS: L2DCT),
// or the one `cc` names.
#[test]
fn each_class_runs_its_transport_inside_its_tunnels() {
    let sim = common::run(&two_tunnels(""), &[]);
    assert!(
        sim.flows.iter().all(|f| f.cc_name == "l2dct"),
        "{:?}",
        sim.flows.iter().map(|f| f.cc_name).collect::<Vec<_>>()
    );
    let sim = common::run(&two_tunnels("cc = { cs = \"newreno\" }"), &[]);
    assert!(sim.flows.iter().all(|f| f.cc_name == "newreno"));
}

// FIFO tunnels (`in_tunnel = false`, `fifo = "queue"`, the default FIFO): each tunnel is one
// packet queue at its source host released at R_t. Two flows per tenant, tenants weighted
// 2:1: the shares hold (within 10 %) with the link at least 95 % used, every packet that
// entered a tunnel queue left it or still waits there, and re-marking by the tunnel queue
// holds each flow's window (at most 40 packets).
#[test]
fn fifo_tunnels_share_by_weight_through_their_queues() {
    let text = two_tunnels("cc = { CS = \"dctcp\" }\nin_tunnel = false").replace(
        "[metrics]",
        "[[flows]]\nsrc = \"h0\"\ndst = \"h2\"\ntenant = \"a\"\nclass = \"CS\"\n[[flows]]\nsrc = \"h1\"\ndst = \"h2\"\ntenant = \"b\"\nclass = \"CS\"\n[metrics]",
    );
    let sim = common::run(&text, &[]);
    let g = goodputs(&sim, 0.05);
    let (a, b) = (g[0] + g[2], g[1] + g[3]);
    assert!((a / b / 2.0 - 1.0).abs() <= 0.1, "ratio {:.2} ({g:?})", a / b);
    let wire = (a + b) * 1500.0 / 1460.0;
    assert!(wire >= 0.95e9, "utilization {:.3}", wire / 1e9);
    let (entered, left, waiting) = sim.tunnel_counts();
    assert!(entered > 10_000, "{entered} packets through the tunnel queues");
    assert_eq!(entered, left + waiting);
    assert!(max_cwnd_packets(&sim) <= 40.0, "window {:.1} packets", max_cwnd_packets(&sim));
    let old = common::run(
        &text.replace("in_tunnel = false", "in_tunnel = false\nfifo = \"equal_shares\""),
        &[],
    );
    assert_eq!(old.tunnel_counts().0, 0, "equal shares: no tunnel queue");
}

// The least increase (`scheme.min_increase`, our option): one CS division with a 100 MB flow
// h0 -> h2 and a stream of 10 KB flows h1 -> h3, so the tracker gives the large flow's tunnel
// about 1e-4 of the division's weight (Σ 1/M); a 2 MB flow of another tenant shares h2's link
// for the first tens of ms and cuts it to its floor. After that flow ends the link to h2 is
// the large flow's alone: as written (eqs. 1, 3-4) its tunnel grows by its weight, about
// nothing, and leaves the link mostly idle; growing at least one segment per RTT it fills it.
#[test]
fn a_least_increase_lets_a_tunnel_of_weight_near_zero_fill_an_idle_link() {
    let share = |min_increase: f64| {
        let text = format!(
            r#"duration = "150ms"
[topology]
kind = "leaf_spine"
leaves = 1
spines = 1
hosts_per_leaf = 5
host_rate = "1Gbps"
fabric_rate = "1Gbps"
host_delay = "25us"
[switch]
buffer = "250pkt"
queue = "ecn"
ecn_threshold = "20pkt"
[transport]
min_rto = "10ms"
[scheme]
kind = "scc"
cc = {{ CS = "dctcp" }}
min_increase = {min_increase:.1}
[[flows]]
src = "h0"
dst = "h2"
size = "100MB"
tenant = "t"
class = "CS"
[[flows]]
src = "h4"
dst = "h2"
size = "2MB"
tenant = "x"
class = "CS"
[[traffic]]
pattern = "many_to_one"
hosts = ["h1", "h3"]
dst = "h3"
size = "10KB"
rate = 20000.0
tenant = "t"
class = "CS"
[metrics]
interval = "10ms"
"#
        );
        let sim = common::run(&text, &[]);
        let tp = &sim.metrics.throughput;
        let (from, to) = (0.09, 0.15);
        let bytes: u64 = (0..tp.time.len())
            .filter(|&k| tp.flow[k] == 0)
            .filter(|&k| tp.time[k].as_secs_f64() > from + 1e-9)
            .map(|k| tp.bytes[k])
            .sum();
        bytes as f64 * 8.0 / (to - from) / 1e9
    };
    let (as_written, least) = (share(0.0), share(1.0));
    assert!(
        as_written < 0.5,
        "as written: the large flow takes {:.2} of the idle link",
        as_written
    );
    assert!(least > 0.9, "growing a segment per RTT: {:.2}", least);
}

// A FIFO tunnel whose flows have handed all their bytes to its queue still weighs them: the
// paper's reference weight counts the tunnel's active flows (CS: Σ 1/M over the bytes not yet
// delivered), and a flow whose last bytes wait in the queue is active. One division (t/CS,
// weight 2) with two FIFO tunnels into h2: h1 sends one 100 MB flow from 0; h0 sends a 2 MB
// flow from 0 (so its tunnel has shared the link and been cut) and at 30 ms a burst of 100
// flows of 10 KB, each within its initial window, so all of them are in the queue at once.
// The burst is 1 MB, 8 ms at line rate; its flows' reference weight (Σ 1/M over 10 KB flows)
// is far above the long flow's, so its tunnel takes most of the link and the burst ends
// within 20 ms (14 ms). Counting only flows with bytes not yet handed to the queue gave the
// burst's tunnel weight 0 (the long flow's tunnel all of W_d): it never grew while marks cut
// it, and the burst took 27 ms.
#[test]
fn a_fifo_tunnel_weighs_the_flows_waiting_in_its_queue() {
    let mut flows = String::from(
        "[[flows]]\nsrc = \"h1\"\ndst = \"h2\"\ntenant = \"t\"\nclass = \"CS\"\nsize = \"100MB\"\n\
         [[flows]]\nsrc = \"h0\"\ndst = \"h2\"\ntenant = \"t\"\nclass = \"CS\"\nsize = \"2MB\"\n",
    );
    for _ in 0..100 {
        flows += "[[flows]]\nsrc = \"h0\"\ndst = \"h2\"\ntenant = \"t\"\nclass = \"CS\"\nsize = \"10KB\"\nstart = \"30ms\"\n";
    }
    let rest = format!(
        "[transport]\nmin_rto = \"10ms\"\n[scheme]\nkind = \"scc\"\nweights = {{ \"t/CS\" = 2.0 }}\n\
         cc = {{ CS = \"dctcp\" }}\nin_tunnel = false\n{flows}"
    );
    let sim = common::run(&dumbbell(2, "120ms", &rest), &[]);
    let burst_end = sim.flows[2..]
        .iter()
        .map(|f| f.finish.expect("every burst flow finishes").as_secs_f64())
        .fold(0.0, f64::max);
    assert!(burst_end - 0.030 <= 0.020, "the burst took {:.1} ms", 1e3 * (burst_end - 0.030));
}
