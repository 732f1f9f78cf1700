//! HCC's hierarchy of agents on the paper's three-tier tree: its rates against `ideal`'s
//! (the same max-min, computed centrally), its messages, and its losses.

use crate::common;

/// A three-tier tree of 16 hosts (2 pods of 2 edges of 4 hosts; one core), 10 Gbps hosts and
/// edges, an 18 Gbps core link per pod, the paper's delays (1, 10, 100 us), and 5 unbounded
/// flows from the left pod to the right: h0 sends two and h1 one (edge0's uplink carries
/// 3), h4 and h5 one each (edge1). Max-min with 2 % headroom: edge0's flows share 9.8 Gbps
/// (3.27 each); edge1's get the rest of the core's 17.64, 3.92 each.
fn tree(duration: &str, scheme: &str) -> String {
    format!(
        r#"
seed = 3
duration = "{duration}"
[topology]
kind = "three_tier"
cores = 1
aggs = 2
aggs_per_pod = 1
edges = 4
hosts_per_edge = 4
host_rate = "10Gbps"
edge_rate = "10Gbps"
core_rate = "18Gbps"
host_delay = "1us"
edge_delay = "10us"
core_delay = "100us"
[transport]
min_rto = "2ms"
[switch]
buffer = 1000
[scheme]
{scheme}
[[flows]]
src = ["h0", "h0", "h1", "h4", "h5"]
dst = ["h8", "h9", "h10", "h12", "h13"]
"#
    )
}

// Static flows, no quantization or pruning: every flow's rate equals the instant `ideal`
// controller's within 1 % after 3 cycles of the slowest loop (the edges' Cycle_parent, 8 x
// 10 us) and a round trip to the root and back (the rates held at 300 us), and the core
// queue stays under 10 packets over 20 ms.
#[test]
fn hierarchy_rates_equal_the_central_max_min() {
    let exact = "kind = \"hcc\"\nbins = 0\nprune = 0.0\nheadroom = 0.02";
    let ideal = common::run(&tree("1ms", "kind = \"ideal\"\nheadroom = 0.02"), &[]);
    let early = common::run(&tree("300us", exact), &[]);
    for (i, (a, b)) in early.flows.iter().zip(&ideal.flows).enumerate() {
        let (ra, rb) = (a.sender.rate_bps().unwrap() as f64, b.sender.rate_bps().unwrap() as f64);
        assert!((ra / rb - 1.0).abs() < 0.01, "flow {i} at 300 us: hcc {ra:.4e} vs ideal {rb:.4e}");
    }
    let hcc = common::run(&tree("20ms", exact), &[]);
    for (i, (a, b)) in hcc.flows.iter().zip(&ideal.flows).enumerate() {
        let (ra, rb) = (a.sender.rate_bps().unwrap() as f64, b.sender.rate_bps().unwrap() as f64);
        assert!((ra / rb - 1.0).abs() < 0.01, "flow {i}: hcc {ra:.4e} vs ideal {rb:.4e}");
    }
    assert!((hcc.flows[3].sender.rate_bps().unwrap() as f64 - 3.92e9).abs() < 0.04e9);
    let core = common::port_stats(&hcc, "agg0:2");
    assert!(core.max_queue_bytes < 10 * 1500, "core queue {}", core.max_queue_bytes);
    let c = &hcc.scheme_counters;
    assert!(c["root_received_bytes"] > 0 && c["root_sent_bytes"] > 0, "{c:?}");
}

// The first packets of one host's flows after their first rates (`first_rate = "wait"`):
// four flows of h0 starting together get their rates in one cycle of h0's agent and take
// the quarters of their packet time (`phase = "spread"`, the default), and keep them through
// the later rate changes (HCC re-rates a host's flows together, and a change rescales the
// time each owes): 2 ms later their next packets are still a quarter of a packet time
// apart. With `phase = "uniform"` (independent draws, seed 3) two are within a tenth.
#[test]
fn a_hosts_flows_interleave_their_packets() {
    let spread_flows = |phase: &str| -> Vec<f64> {
        let text =
            tree("2ms", &format!("kind = \"hcc\"\nfirst_rate = \"wait\"\nphase = \"{phase}\""))
                .replace(
                    "src = [\"h0\", \"h0\", \"h1\", \"h4\", \"h5\"]",
                    "src = [\"h0\", \"h0\", \"h0\", \"h0\", \"h5\"]",
                );
        let sim = common::run(&text, &[]);
        let mut phases: Vec<f64> =
            sim.flows[..4].iter().map(|f| f.sender.rate_phase(sim.now()).unwrap()).collect();
        phases.sort_by(f64::total_cmp);
        let next = phases.iter().skip(1).copied().chain([phases[0] + 1.0]);
        phases.iter().zip(next).map(|(a, b)| b - a).collect()
    };
    let spread = spread_flows("spread");
    assert!(spread.iter().all(|g| (g - 0.25).abs() < 0.02), "gaps between h0's flows {spread:?}");
    let uniform = spread_flows("uniform");
    assert!(uniform.iter().any(|&g| g < 0.1), "gaps between h0's flows {uniform:?}");
}

// Lost messages: 1-packet switch buffers and four NewReno flows on edge0's uplink, and the
// HCC flows starting one by one from 1 ms, so the edge's demand reports to agg0 cross a
// full queue and some are dropped. A sender forgets what it believed delivered and sends it
// again: at the end every agent holds what its peers last sent (the summary's
// `consistent`), and the HCC flows' rates equal `ideal`'s on the same run within 1 % (both
// leave the TCP flows out of the allocation).
#[test]
fn lost_messages_are_sent_again() {
    let (src, dst) = (["h0", "h0", "h1", "h4", "h5"], ["h8", "h9", "h10", "h12", "h13"]);
    let staggered: String = (0..5)
        .map(|i| {
            format!(
                "[[flows]]\nsrc = \"{}\"\ndst = \"{}\"\nstart = \"{}ms\"\n",
                src[i],
                dst[i],
                i + 1
            )
        })
        .collect();
    let tcp = "[[flows]]\nsrc = [\"h2\", \"h3\", \"h2\", \"h3\"]\ndst = [\"h14\", \"h15\", \"h15\", \"h14\"]\ntransport = \"newreno\"\n";
    let text = |scheme: &str| {
        let base = tree("20ms", scheme)
            .replace("buffer = 1000", "buffer = 1")
            .replace("seed = 3", "seed = 2");
        let cut = base.find("[[flows]]").unwrap();
        format!("{}{staggered}{tcp}", &base[..cut])
    };
    // The classic TCP flows of the test's design: with the defaults (SACK, PRR, RACK-TLP)
    // they keep edge0's uplink queue below full and no control message is lost. Since the
    // paced HCC flows keep their phases across rate changes (they no longer bunch after
    // each), losses are rarer: four TCP flows, and a seed (2) in which some report is lost;
    // the assertion below guards that the run still exercises recovery.
    let hcc = common::run(
        &text("kind = \"hcc\"\nbins = 0\nprune = 0.0\nheadroom = 0.02"),
        &common::CLASSIC_TCP,
    );
    let ideal = common::run(&text("kind = \"ideal\"\nheadroom = 0.02"), &common::CLASSIC_TCP);
    let lost: u64 = hcc
        .ctrl
        .kinds
        .iter()
        .zip(&hcc.ctrl.totals)
        .filter(|(k, _)| k.starts_with("hcc_"))
        .map(|(_, t)| t.dropped)
        .sum();
    assert!(lost > 0, "no control message was lost: the test does not exercise recovery");
    assert_eq!(hcc.summary()["scheme"]["state"]["consistent"], true);
    for (i, (a, b)) in hcc.flows.iter().zip(&ideal.flows).take(5).enumerate() {
        let (ra, rb) = (a.sender.rate_bps().unwrap() as f64, b.sender.rate_bps().unwrap() as f64);
        assert!((ra / rb - 1.0).abs() < 0.01, "flow {i}: hcc {ra:.4e} vs ideal {rb:.4e}");
    }
}

// A bad setting names its key.
#[test]
fn bad_settings_name_their_key() {
    for (setting, key) in [
        ("levels = 9", "scheme.levels"),
        ("child_cycle = 0", "scheme.child_cycle"),
        ("prune = 1.5", "scheme.prune"),
        ("first_rate = \"soon\"", "scheme.first_rate"),
    ] {
        let err =
            corral::scenario::load(&tree("1ms", &format!("kind = \"hcc\"\n{setting}")), &[], "t")
                .and_then(corral::Simulation::new)
                .err()
                .unwrap()
                .to_string();
        assert!(err.starts_with(key), "{setting}: {err}");
    }
}

// A busy core: with no headroom the leaves' rates sum to the core's 18 Gbps (edge1's two
// flows take what edge0's three leave), and the core link carries that much: at least 95 %
// of its capacity over 20 ms, the first round trip before the shares arrive included. The
// many-flows case (flows re-rated together, which the random start delay once slowed) is
// `transport::rate`'s `flows_rerated_together_keep_independent_phases`.
#[test]
fn rates_summing_to_the_core_keep_it_busy() {
    let sim = common::run(&tree("20ms", "kind = \"hcc\"\nheadroom = 0.0"), &[]);
    let carried = common::port_stats(&sim, "agg0:2").tx_bytes as f64 * 8.0 / 0.020;
    assert!(carried >= 0.95 * 18e9, "core carried {:.3e} bit/s of 18e9", carried);
}

// The centralized controller fed the same updates as HCC's leaves (`ideal`, mode "updates",
// at agg0): each host reports its flows' arrivals once (h0 two flows, h1, h4 and h5 one: four
// reports of 16 B + 8 B a flow, 104 B), the demands of unbounded flows never change, and the
// controller sends each flow its rate (16 B) when it first computes it or it moves by more
// than 1 %. The rates are the instant controller's within 1 %. HCC's counters per level add
// up: what the root receives is what the edges sent it, and each flow arrived once.
#[test]
fn a_controller_fed_the_leaves_updates_gets_their_rates_from_few_messages() {
    let updates = "kind = \"ideal\"\nmode = \"updates\"\ncontroller = \"agg0\"\nperiod = \"20us\"\nhost_period = \"8us\"\nheadroom = 0.02";
    let ideal = common::run(&tree("1ms", "kind = \"ideal\"\nheadroom = 0.02"), &[]);
    let sim = common::run(&tree("5ms", updates), &[]);
    for (i, (a, b)) in sim.flows.iter().zip(&ideal.flows).enumerate() {
        let (ra, rb) = (a.sender.rate_bps().unwrap() as f64, b.sender.rate_bps().unwrap() as f64);
        assert!((ra / rb - 1.0).abs() < 0.01, "flow {i}: updates {ra:.4e} vs ideal {rb:.4e}");
    }
    let c = &sim.scheme_counters;
    assert_eq!((c["root_received_msgs"], c["root_received_bytes"]), (4, 4 * 16 + 5 * 8), "{c:?}");
    assert_eq!(c["l1_sent_bytes"], c["root_received_bytes"]);
    assert!((5..=10).contains(&c["root_sent_msgs"]), "{c:?}");
    assert_eq!(c["root_sent_bytes"], 16 * c["root_sent_msgs"]);
    assert_eq!(c["flow_arrivals"], 5);
    let hcc = common::run(&tree("5ms", "kind = \"hcc\""), &[]);
    let h = &hcc.scheme_counters;
    assert_eq!(h["root_received_msgs"], h["l3_received_msgs"]);
    assert_eq!(
        h["root_received_bytes"],
        h["l2_sent_bytes"] - (h["l2_sent_msgs"] - h["root_received_msgs"]) * 16,
        "{h:?}"
    );
    assert_eq!(h["flow_arrivals"], 5);
    let err =
        corral::scenario::load(&tree("1ms", "kind = \"ideal\"\nhost_period = \"4us\""), &[], "t")
            .and_then(corral::Simulation::new)
            .err()
            .unwrap()
            .to_string();
    assert!(err.starts_with("scheme.host_period: only used with mode = \"updates\""), "{err}");
}

// On-off applications (`demand = "onoff"`, exponential on and off periods of mean 1 ms):
// HCC's leaves and the updates controller's hosts read the same switching times (each flow's
// own random stream), so both count the same switches up to the last reading (within a few
// at the run's end), and with half the time off the flows deliver about half what they do
// when always on.
#[test]
fn on_off_demands_switch_alike_under_both_controllers() {
    let onoff = "demand = \"onoff\"";
    let updates = format!(
        "kind = \"ideal\"\nmode = \"updates\"\ncontroller = \"agg0\"\nperiod = \"20us\"\n{onoff}"
    );
    let a = common::run(&tree("40ms", &format!("kind = \"hcc\"\n{onoff}")), &[]);
    let b = common::run(&tree("40ms", &updates), &[]);
    let (sa, sb) = (a.scheme_counters["demand_switches"], b.scheme_counters["demand_switches"]);
    assert!(sa > 100 && sa.abs_diff(sb) <= 5, "switches: hcc {sa}, updates {sb}");
    let always = common::run(&tree("40ms", "kind = \"hcc\""), &[]);
    let total = |s: &corral::Simulation| common::delivered(s).iter().sum::<f64>();
    let share = total(&a) / total(&always);
    assert!((0.3..0.7).contains(&share), "on-off delivers {share:.2} of always-on");
    assert!(b.scheme_counters["root_received_msgs"] > sb / 2, "{:?}", b.scheme_counters);
}
