//! R2C2 (SIGCOMM 2015) end to end: broadcast events reach every node and cost (n - 1) x 16 B;
//! every node's view agrees once the broadcasts have landed, so the rates each sets are the
//! weighted max-min rates of the whole rack (with 5 % headroom); senders hold them; lost
//! broadcasts are re-sent; the centralized baseline reaches the same rates.

use crate::common;

use corral::alloc::{solve_validated, Problem, ProblemFlow};
use corral::route::usage::UsageBuilder;
use corral::route::RouteTable;
use corral::Simulation;

/// A 4x4 torus of 10 Gbps links (hosts at 40 Gbps), RPS source-routed, six unbounded flows
/// that share links (the last three start at `late`), and R2C2 with `scheme` extra settings.
fn torus_flows(scheme: &str, late: &str) -> String {
    let pairs = [(0, 5), (1, 5), (2, 10), (3, 10), (4, 9), (8, 13)];
    let flows: String = pairs
        .iter()
        .enumerate()
        .map(|(i, (s, d))| {
            format!(
                "[[flows]]\nsrc = \"h{s}\"\ndst = \"h{d}\"\nstart = \"{}\"\n",
                if i < 3 { "0s" } else { late }
            )
        })
        .collect();
    format!(
        r#"
name = "r2c2-4x4"
duration = "6ms"
[topology]
kind = "torus"
dims = [4, 4]
link_rate = "10Gbps"
link_delay = "100ns"
host_rate = "40Gbps"
[switch]
buffer = "200pkt"
[transport]
min_rto = "1ms"
[routing]
kind = "rps"
source_routes = true
[scheme]
kind = "r2c2"
{scheme}
[metrics]
interval = "1ms"
{flows}"#
    )
}

/// The max-min wire rates of all the run's flows, computed from the whole traffic matrix.
fn global_rates(sim: &Simulation, headroom: f64) -> Vec<f64> {
    let routes = RouteTable::build(&sim.net, true);
    let mut ub = UsageBuilder::new(&sim.net, &routes, sim.scenario.seed);
    let flows = sim
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| ProblemFlow {
            weight: 1.0,
            priority: 0,
            demand: f64::INFINITY,
            usage: ub.usage(corral::route::Routing::Rps, i as u32, f.def.src, f.def.dst),
        })
        .collect();
    let capacity = sim.net.ports.iter().map(|p| p.rate().bps() as f64).collect();
    solve_validated(&Problem { capacity, headroom, flows }).rate
}

fn goodput_after(sim: &Simulation, flow: usize, after_s: f64) -> f64 {
    let tp = &sim.metrics.throughput;
    let (mut bytes, mut t0, mut t1) = (0u64, f64::MAX, 0f64);
    for k in 0..tp.time.len() {
        let t = tp.time[k].as_secs_f64();
        if tp.flow[k] == flow as u32 && t > after_s + 1e-9 {
            bytes += tp.bytes[k];
            t0 = t0.min(t - 1e-3);
            t1 = t1.max(t);
        }
    }
    bytes as f64 * 8.0 / (t1 - t0)
}

// Tolerance: every flow's rate equals the global max-min allocation to 1e-6 (all views agree
// after the first epochs: nothing starts or ends), and its goodput over 8-12 ms is within 3 %
// of that rate in payload terms (1460 of every 1500 wire bytes). The six flows start
// together, each source computing its first rate before it hears of the others: the
// overshoot drops packets that take the first few milliseconds to recover.
#[test]
fn every_node_sets_the_rack_wide_max_min_rates_and_senders_hold_them() {
    let sim = common::run(
        &torus_flows("", "0s").replace("duration = \"6ms\"", "duration = \"12ms\""),
        &[],
    );
    let want = global_rates(&sim, 0.05);
    for (i, f) in sim.flows.iter().enumerate() {
        let rate = f.sender.rate_bps().expect("rate-limited after the first epoch") as f64;
        assert!(
            (rate / want[i] - 1.0).abs() < 1e-6,
            "flow {i}: rate {rate:.4e}, max-min {:.4e}",
            want[i]
        );
        let g = goodput_after(&sim, i, 0.008);
        assert!(
            (g / (rate * 1460.0 / 1500.0) - 1.0).abs() < 0.03,
            "flow {i}: goodput {g:.4e} at rate {rate:.4e}"
        );
    }
    let s = sim.summary();
    let state = &s["scheme"]["state"];
    assert_eq!(state["events"]["r2c2_start"], 6);
    assert_eq!(state["epochs"], 24, "epochs at 0.5, 1, ..., 12 ms");
    // One computation per epoch serves all six sources once their views agree (plus one per
    // start, the first rate, and a few while the views differ).
    assert!(state["rate_computations"].as_u64().unwrap() <= 24 + 6 + 6, "{state}");
}

// A 16-node torus: each start broadcast crosses 15 links of 16 B; a 10 KB flow finishes
// within its first interval, so it is never rate-limited, and its finish costs 15 x 16 B too.
// On an 8x8x8 torus one broadcast costs 511 x 16 B = 8,176 B (the paper's figure).
#[test]
fn a_broadcast_costs_n_minus_one_times_16_bytes() {
    for (dims, n) in [("[4, 4]", 16u64), ("[8, 8, 8]", 512)] {
        let text = format!(
            "duration = \"2ms\"\n[topology]\nkind = \"torus\"\ndims = {dims}\nlink_rate = \"10Gbps\"\nlink_delay = \"100ns\"\n[routing]\nkind = \"rps\"\n[scheme]\nkind = \"r2c2\"\n[[flows]]\nsrc = \"h0\"\ndst = \"h3\"\nsize = \"10KB\"\n"
        );
        let sim = common::run(&text, &[]);
        let kinds = &sim.ctrl.kinds;
        let bytes = |k: &str| sim.ctrl.totals[kinds.iter().position(|x| *x == k).unwrap()].bytes;
        assert_eq!(
            (bytes("r2c2_start"), bytes("r2c2_finish")),
            ((n - 1) * 16, (n - 1) * 16),
            "{dims}"
        );
        assert!(
            sim.flows[0].sender.rate_bps().is_none()
                || sim.summary()["scheme"]["state"]["rate_changes"] == 0,
            "{dims}: never limited"
        );
        assert!(sim.flows[0].sender.finished());
    }
}

// Broadcasts share the data FIFOs: with 6-packet buffers, the starts of three flows meet
// queues full of the first three flows' packets (and of their own, at 40 Gbps), so some event
// copies are dropped; each loss is reported and re-sent, and the views agree again: the final
// rates are the global max-min ones. Whether a copy meets a full queue depends on where the
// TCP saw-tooth of the first flows is when the three start, so three start times are run
// (0.5, 1 and 2 ms): every run must end at the max-min rates, and the runs together must
// have lost and re-sent broadcasts.
#[test]
fn lost_broadcasts_are_resent_and_the_views_still_agree() {
    let mut resent = 0;
    for late in ["0.5ms", "1ms", "2ms"] {
        let text = torus_flows("", late)
            .replace("buffer = \"200pkt\"", "buffer = \"6pkt\"")
            .replace("duration = \"6ms\"", "duration = \"10ms\"");
        let sim = common::run(&text, &[]);
        let s = sim.summary();
        resent += s["scheme"]["state"]["events_resent"].as_u64().unwrap();
        let want = global_rates(&sim, 0.05);
        for (i, f) in sim.flows.iter().enumerate() {
            let rate = f.sender.rate_bps().unwrap() as f64;
            assert!(
                (rate / want[i] - 1.0).abs() < 1e-6,
                "start {late}, flow {i}: rate {rate:.4e}, max-min {:.4e}",
                want[i]
            );
        }
    }
    assert!(resent > 0, "no broadcast was lost: make the buffers smaller");
}

// The centralized baseline: events by unicast to one controller, rates back by unicast. Same
// rates; its control bytes are per-hop unicast bytes, counted per message type.
#[test]
fn centralized_control_reaches_the_same_rates() {
    let sim =
        common::run(&torus_flows("control = \"centralized\"\ncontroller = \"sw6\"", "0s"), &[]);
    let want = global_rates(&sim, 0.05);
    for (i, f) in sim.flows.iter().enumerate() {
        let rate = f.sender.rate_bps().unwrap() as f64;
        assert!((rate / want[i] - 1.0).abs() < 1e-6, "flow {i}");
    }
    let kinds = &sim.ctrl.kinds;
    assert!(kinds.contains(&"r2c2_rate") && kinds.contains(&"r2c2_start"));
    assert!(!kinds.contains(&"r2c2_finish"));
    // The paper's Fig. 19 messages: after each of the six starts the controller sends every
    // node with active flows (the six sources, here one flow each, sw6 not among them) a
    // message of 6 + 6 B: 1 + 2 + ... + 6 = 21 messages of 12 B. Sending only changed rates
    // sends fewer messages, 16 B each.
    let totals = |sim: &Simulation| {
        sim.ctrl.totals[sim.ctrl.kinds.iter().position(|k| *k == "r2c2_rate").unwrap()].clone()
    };
    let per_node = totals(&sim);
    assert_eq!((per_node.sent, per_node.bytes / per_node.packets.max(1)), (21, 12), "{per_node:?}");
    let changed = common::run(
        &torus_flows(
            "control = \"centralized\"\ncontroller = \"sw6\"\nrate_messages = \"changed\"",
            "0s",
        ),
        &[],
    );
    let only_changed = totals(&changed);
    assert!(only_changed.sent < 21, "{only_changed:?}");
}

// Settings are checked with their key; r2c2 needs a torus.
#[test]
fn bad_settings_name_their_key() {
    let err = |text: String| {
        corral::scenario::load(&text, &[], "t")
            .and_then(Simulation::new)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert!(err(torus_flows("interval = \"0s\"", "0s")).starts_with("scheme.interval:"));
    assert!(err(torus_flows("trees = 0", "0s")).starts_with("scheme.trees:"));
    assert!(err(torus_flows("controller = \"sw1\"", "0s")).starts_with("scheme.controller:"));
    assert!(err(torus_flows("control = \"centralized\"\ncontroller = \"h1\"", "0s"))
        .starts_with("scheme.controller:"));
    assert!(err(torus_flows("intervall = \"1ms\"", "0s")).contains("did you mean"));
    let fat = common::dumbbell(2, "1Gbps", 2, "")
        .replace("[[flows]]", "[scheme]\nkind = \"r2c2\"\n[[flows]]");
    assert!(err(fat).starts_with("scheme.kind: r2c2 runs on a rack"), "");
}

// The routing search (section 3.4): four long flows on an otherwise idle 4x4x4 rack, all
// starting on RPS. Minimal paths leave most links idle, so VLB's spreading raises the
// aggregate max-min throughput; the search at 1 ms moves flows to VLB, the decisions are
// broadcast, and every source switches the routing of its flows.
#[test]
fn the_routing_search_moves_long_flows_to_vlb_when_the_rack_is_idle() {
    let flows: String = [(0, 21), (5, 42), (17, 60), (33, 2)]
        .iter()
        .map(|(s, d)| format!("[[flows]]\nsrc = \"h{s}\"\ndst = \"h{d}\"\n"))
        .collect();
    let text = format!(
        "duration = \"2ms\"\n[topology]\nkind = \"torus\"\ndims = [4, 4, 4]\nlink_rate = \"10Gbps\"\nlink_delay = \"100ns\"\nhost_rate = \"40Gbps\"\n[switch]\nbuffer = \"1MB\"\n[transport]\nmin_rto = \"1ms\"\n[routing]\nkind = \"rps\"\nsource_routes = true\n[scheme]\nkind = \"r2c2\"\nrouting_search = true\nsearch_every = \"1ms\"\n{flows}"
    );
    let sim = common::run(&text, &[]);
    let state = &sim.summary()["scheme"]["state"];
    let changed = state["routing_changes"].as_u64().unwrap();
    assert!(changed >= 1, "{state}");
    let on_vlb = (0..sim.flows.len())
        .filter(|&i| matches!(sim.hot[i].routing, corral::route::Routing::Vlb))
        .count() as u64;
    assert_eq!(on_vlb, changed, "every decision reached its source");
    let kinds = &sim.ctrl.kinds;
    let route = &sim.ctrl.totals[kinds.iter().position(|k| *k == "r2c2_route").unwrap()];
    assert_eq!(
        route.bytes,
        63 * 5 * changed,
        "5 B per changed flow, to each of the 63 other switches"
    );
}

// Figs. 15-16's metric (`rate_error`): with three flows from the start and three more at
// 2.2 ms, between two epochs, the samples before the late starts find every assigned rate
// equal to rho = 0's (the views agree and nothing changes), and the sample at 2.25 ms finds
// the late flows at the fair shares their sources computed at once (`first_rate = "local"`),
// each from a view without the other late flows. (By default a new flow is not rate-limited
// before its first epoch, and the metric covers rate-limited flows only.)
#[test]
fn the_rate_error_is_zero_while_nothing_changes_and_positive_right_after_new_flows() {
    let quiet = common::run(
        &torus_flows("rate_error = true", "0s").replace("duration = \"6ms\"", "duration = \"3ms\""),
        &[],
    );
    let e = &quiet.summary()["scheme"]["state"]["assigned_rate_error"];
    assert!(e["samples"].as_u64().unwrap() >= 6 * 4, "{e}");
    assert!(e["p95"].as_f64().unwrap() < 1e-6, "{e}");
    let late = common::run(
        &torus_flows("rate_error = true\nfirst_rate = \"local\"", "2.2ms")
            .replace("duration = \"6ms\"", "duration = \"3ms\""),
        &[],
    );
    let e = &late.summary()["scheme"]["state"]["assigned_rate_error"];
    assert!(e["p95"].as_f64().unwrap() > 0.05, "{e}");
    // Off by default: no samples (and no timers: runs without it are unchanged).
    let off = common::run(
        &torus_flows("", "2.2ms").replace("duration = \"6ms\"", "duration = \"3ms\""),
        &[],
    );
    assert_eq!(off.summary()["scheme"]["state"]["assigned_rate_error"]["samples"], 0);
}

// `first_rate` (section 3.3.2: a new flow is sent "immediately" and rate-limited from the
// next periodic recomputation on). On a 4x4 torus of 10 Gbps links with 40 Gbps hosts, one
// flow h0 -> h1 (one hop: RPS has one minimal path) and one h2 -> h7 (offset (1, 1): RPS
// splits it over two first hops, half each). Before the first epoch (at 500 us), "spread"
// (the default) sends each at the rate its paths carry: 10 and 20 Gbps; "line" at the 40
// Gbps of the host link; "local" sets their fair shares on the source's view at
// once (5 % headroom). After the first epoch every reading holds the allocation.
#[test]
fn a_new_flow_sends_at_the_rate_its_routing_spreads_over_until_the_first_epoch() {
    let text = |first: &str, duration: &str| {
        format!(
            "duration = \"{duration}\"\n[topology]\nkind = \"torus\"\ndims = [4, 4]\nlink_rate = \"10Gbps\"\nlink_delay = \"100ns\"\nhost_rate = \"40Gbps\"\n[routing]\nkind = \"rps\"\nsource_routes = true\n[scheme]\nkind = \"r2c2\"\n{first}\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n[[flows]]\nsrc = \"h2\"\ndst = \"h7\"\n"
        )
    };
    let rates = |first: &str, duration: &str| -> Vec<Option<f64>> {
        let sim = common::run(&text(first, duration), &[]);
        sim.flows.iter().map(|f| f.sender.rate_bps().map(|r| r as f64)).collect()
    };
    let close = |got: Option<f64>, want: f64| got.is_some_and(|r| (r / want - 1.0).abs() < 1e-6);
    for first in ["", "first_rate = \"spread\""] {
        let r = rates(first, "100us");
        assert!(close(r[0], 10e9) && close(r[1], 20e9), "{first:?}: {r:?}");
    }
    assert_eq!(rates("first_rate = \"line\"", "100us"), vec![Some(40e9), Some(40e9)]);
    let r = rates("first_rate = \"local\"", "100us");
    assert!(close(r[0], 9.5e9) && close(r[1], 19e9), "local: {r:?}");
    for first in ["", "first_rate = \"line\"", "first_rate = \"local\""] {
        let r = rates(first, "1ms");
        assert!(close(r[0], 9.5e9) && close(r[1], 19e9), "{first:?} after the first epoch: {r:?}");
    }
}
