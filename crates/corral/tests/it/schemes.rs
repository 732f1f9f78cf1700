//! The scheme seams: the `ideal` max-min controller's rates against the allocator, explicit
//! rates through token buckets, the host's fair queue, mixed transports in one run, and the
//! control plane (bytes on the links they cross, out-of-band delay, broadcast coverage).

use crate::common;

use corral::ctrl::Message;
use corral::ids::{FlowId, NodeId};
use corral::net::NodeKind;
use corral::schemes::{Ctx, Scheme};
use corral::Simulation;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// k = 4 fat-tree at 10 Gbps, 16 unbounded flows: hosts h0..h12 send to h(i+5) mod 16 (a
/// partial permutation) and h13, h14, h15 send to h0 (with h11's flow, a 4-to-1 hot spot).
fn fat_tree_16_flows(extra: &str) -> String {
    let mut flows = String::new();
    for i in 0..13 {
        flows +=
            &format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h{}\"\ntag = \"perm\"\n", (i + 5) % 16);
    }
    flows += "[[flows]]\nsrc = [\"h13\", \"h14\", \"h15\"]\ndst = \"h0\"\ntag = \"hot\"\n";
    let ports: Vec<String> = ["tor", "agg", "core"]
        .iter()
        .flat_map(|s| (0..8).flat_map(move |n| (0..4).map(move |p| format!("\"{s}{n}:{p}\""))))
        .filter(|p| {
            !p.starts_with("\"core4")
                && !p.starts_with("\"core5")
                && !p.starts_with("\"core6")
                && !p.starts_with("\"core7")
        })
        .collect();
    format!(
        r#"
name = "ideal-k4"
duration = "150ms"
[topology]
kind = "fat_tree"
k = 4
link_rate = "10Gbps"
[switch]
buffer = "100pkt"
[routing]
kind = "ecmp"
[scheme]
kind = "ideal"
headroom = 0.05
{extra}
[metrics]
interval = "10ms"
queue_interval = "100us"
queue_ports = [{}]
{flows}"#,
        ports.join(", ")
    )
}

// ideal on the k = 4 fat-tree: every flow's goodput over 50-150 ms is within 2 % of the rate
// the allocator gave it, counted in payload bytes (the allocator's rates are wire rates; a
// 1500 B packet carries 1460 B of payload). No drops; every sampled switch queue below 10
// packets. The rates are max-min: with 5 % headroom the four flows into h0 get 9.5/4 Gbps.
#[test]
fn ideal_rates_match_the_allocator_without_drops_or_queues() {
    let sim = common::run(&fat_tree_16_flows(""), &[]);
    let payload = 1460.0 / 1500.0;
    let tp = &sim.metrics.throughput;
    for (i, f) in sim.flows.iter().enumerate() {
        let rate = f.sender.rate_bps().expect("rate-limited") as f64;
        let bytes: u64 = (0..tp.time.len())
            .filter(|&k| tp.flow[k] == i as u32 && tp.time[k].as_secs_f64() > 0.05 + 1e-9)
            .map(|k| tp.bytes[k])
            .sum();
        let goodput = bytes as f64 * 8.0 / 0.1;
        assert!(
            (goodput / (rate * payload) - 1.0).abs() < 0.02,
            "flow {i} ({}): goodput {goodput:.4e} vs allocated {:.4e}",
            f.def.tag,
            rate * payload
        );
        if f.def.dst == 0 {
            assert!((rate - 9.5e9 / 4.0).abs() / rate < 0.03, "hot-spot flow {i} at {rate:.4e}");
        }
    }
    assert_eq!(sim.counts.dropped, 0);
    let max_q = sim.metrics.queues.packets.iter().copied().max().unwrap();
    assert!(max_q < 10, "largest sampled queue {max_q} packets");
    assert!(sim.scheme_counters["rate_changes"] >= 16);
    assert_eq!(
        sim.flows_table().column("transport").and_then(|c| c.texts()),
        Some(vec!["ideal"; 16])
    );
}

// mode = "periodic" (HCC's centralized baseline): hosts report to core0 every 100 us and
// core0 sends every flow its rate. The rates are the instant mode's (the same max-min), the
// messages cross the network: 16 flows on 16 hosts, so each period core0 receives 16 reports
// of 16 + 8 B and sends 16 rates of 16 B. The test reads the rates the senders hold at the
// end.
#[test]
fn periodic_ideal_reaches_the_same_rates_through_counted_messages() {
    let text = fat_tree_16_flows("mode = \"periodic\"\ncontroller = \"core0\"\nperiod = \"100us\"")
        .replace("[switch]", "[transport]\nmin_rto = \"1ms\"\n[switch]");
    let instant = common::run(&fat_tree_16_flows(""), &[]);
    let sim = common::run(&text, &[]);
    for (i, (a, b)) in sim.flows.iter().zip(&instant.flows).enumerate() {
        let (ra, rb) = (a.sender.rate_bps().unwrap() as f64, b.sender.rate_bps().unwrap() as f64);
        assert!((ra / rb - 1.0).abs() < 1e-6, "flow {i}: {ra:.4e} vs instant {rb:.4e}");
    }
    let c = &sim.scheme_counters;
    let periods = c["root_received_bytes"] / (16 * (16 + 8));
    assert!((1400..=1500).contains(&periods), "{c:?}");
    assert!(c["root_sent_bytes"] >= 16 * 16 * (periods - 2), "{c:?}");
    let kinds = &sim.ctrl.kinds;
    assert!(kinds.contains(&"ideal_report") && kinds.contains(&"ideal_rate"));
    let err = corral::scenario::load(&fat_tree_16_flows("period = \"1ms\""), &[], "t")
        .and_then(corral::Simulation::new)
        .err()
        .unwrap()
        .to_string();
    assert!(err.starts_with("scheme.period: only used with mode = \"periodic\""), "{err}");
}

// Periodic mode starts a flow as HCC starts its flows: TCP with its initial window until the
// first rate arrives (`first_rate = "window"`, the default there), not at its access-link
// rate (`first_rate = "line"`). The first rates arrive 100-200 us in; until then the 4-to-1
// hot spot into h0 (a 100-packet ToR queue) takes slow start's doubling windows, which
// overflow it less than a quarter as much as four flows at 10 Gbps do (543 against 2,416 drops
// in 5 ms with the TCP defaults: SACK, PRR and RACK-TLP recover the line-rate burst's losses
// with fewer retransmissions than the 736 against 4,669 of classic recovery).
#[test]
fn periodic_flows_start_with_the_initial_window_as_hccs_do() {
    let periodic = "mode = \"periodic\"\ncontroller = \"core0\"\nperiod = \"100us\"";
    let window = common::run(&fat_tree_16_flows(periodic), &["duration=5ms"]);
    let line = common::run(
        &fat_tree_16_flows(&format!("{periodic}\nfirst_rate = \"line\"")),
        &["duration=5ms"],
    );
    assert!(
        window.counts.dropped * 4 < line.counts.dropped,
        "drops: window {}, line {}",
        window.counts.dropped,
        line.counts.dropped
    );
    let bad = corral::scenario::load(&fat_tree_16_flows("first_rate = \"fast\""), &[], "t")
        .and_then(corral::Simulation::new)
        .err()
        .unwrap()
        .to_string();
    assert!(bad.contains("first_rate") || bad.contains("fast"), "{bad}");
}

/// A dumbbell of 4 senders into one receiver through sw0 -> sw1 (10 Gbps, 200-packet
/// buffer), 4 unbounded flows under `ideal` in periodic mode at sw0 (every 100 us, 5 %
/// headroom); the bottleneck steps to 2 Gbps at 10 ms and to 8 Gbps at 20 ms, as HCC's core
/// link does in its Fig. 4.
const CAPACITY_STEPS: &str = r#"
duration = "30ms"
[topology]
kind = "dumbbell"
senders = 4
receivers = 1
link_rate = "10Gbps"
link_delay = "5us"
[switch]
buffer = "200pkt"
[transport]
min_rto = "1ms"
[scheme]
kind = "ideal"
mode = "periodic"
controller = "sw0"
period = "100us"
headroom = 0.05
[[flows]]
src = ["h0", "h1", "h2", "h3"]
dst = "h4"
[[events]]
at = "10ms"
link = "sw0:4"
rate = "2Gbps"
[[events]]
at = "20ms"
link = "sw0:4"
rate = "8Gbps"
[metrics]
interval = "1ms"
"#;

// The centralized controller learns a capacity step as HCC's agents do (it reads the links'
// rates at each computation): after each step the flows' rates sum to the new capacity less
// the headroom within a period, so the 200-packet queue absorbs the one period of excess and
// nothing is dropped; the goodput after each step is the new allocation (within 2 %). Reading
// the capacities once, at its first report, it kept 9.5 Gbps on the 2 Gbps link and dropped
// for the whole step.
#[test]
fn periodic_controller_tracks_a_capacity_step() {
    let sim = common::run(CAPACITY_STEPS, &[]);
    assert_eq!(sim.counts.dropped, 0, "the rates followed the steps");
    let payload = 1460.0 / 1500.0;
    let tp = &sim.metrics.throughput;
    let window = |from: f64, to: f64| {
        let bytes: u64 = (0..tp.time.len())
            .filter(|&k| {
                tp.time[k].as_secs_f64() > from + 1e-9 && tp.time[k].as_secs_f64() <= to + 1e-9
            })
            .map(|k| tp.bytes[k])
            .sum();
        bytes as f64 * 8.0 / (to - from)
    };
    for (from, to, capacity) in [(0.003, 0.010, 10e9), (0.011, 0.020, 2e9), (0.021, 0.030, 8e9)] {
        let share = window(from, to) / (0.95 * capacity * payload);
        assert!(
            (0.98..=1.02).contains(&share),
            "{from}-{to} s at {capacity:e}: {share:.3} of the allocation"
        );
    }
    for f in &sim.flows {
        let rate = f.sender.rate_bps().expect("rate-limited") as f64;
        assert!((rate / (0.95 * 8e9 / 4.0) - 1.0).abs() < 1e-3, "final rate {rate:e}");
    }
}

// With a control delay the flows start at their access-link rate before their first rates
// arrive: the 4-to-1 hot spot overflows h0's 20-packet ToR queue, and the rate-limited
// senders recover every loss by retransmission (each 200 KB flow delivers all its bytes;
// min RTO 1 ms for the losses at a flow's tail).
#[test]
fn rate_limited_flows_recover_from_losses() {
    let text = fat_tree_16_flows("delay = \"200us\"")
        .replace("buffer = \"100pkt\"", "buffer = \"20pkt\"")
        .replace("tag = \"hot\"", "tag = \"hot\"\nsize = \"200KB\"");
    let sim = common::run(&text, &["duration=20ms", "transport.min_rto=1ms"]);
    let hot: Vec<_> = sim.flows.iter().filter(|f| f.def.tag == "hot").collect();
    assert!(sim.counts.dropped > 0, "the burst before the first rates must overflow");
    assert!(hot.iter().map(|f| f.sender.stats.retransmits).sum::<u64>() > 0);
    for f in hot {
        assert!(f.finish.is_some(), "a hot-spot flow did not finish");
        assert_eq!(f.receiver.delivered(), 200_000);
    }
}

/// A test scheme that gives every flow a fixed rate, from a map by tag, at its start.
struct FixedRates(BTreeMap<String, f64>);

impl Scheme for FixedRates {
    fn on_flow_start(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        let rate = self.0[&ctx.flow(flow).tag];
        ctx.set_rate(flow, rate);
    }
}

fn run_with(text: &str, scheme: Box<dyn Scheme>) -> Simulation {
    let sc = corral::scenario::load(text, &[], "test").unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::with_scheme(sc, scheme, "test").unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    common::assert_conserved(&sim);
    sim
}

fn goodput_bps(sim: &Simulation, i: usize) -> f64 {
    sim.flows[i].receiver.delivered() as f64 * 8.0 / sim.duration().as_secs_f64()
}

// Token buckets at 1, 10 and 100 Gbps on faster links: the flow's wire rate over 10 ms is
// within 0.5 % of the rate set (goodput x 1500/1460 = wire bytes).
#[test]
fn token_bucket_rates_hold_within_half_a_percent() {
    for gbps in [1.0, 10.0, 100.0] {
        let text = common::dumbbell(1, "400Gbps", 1, "tag = \"f\"")
            .replace("duration = \"100ms\"", "duration = \"10ms\"");
        let sim =
            run_with(&text, Box::new(FixedRates(BTreeMap::from([("f".to_string(), gbps * 1e9)]))));
        // The first packet needs a path delay before its bytes count; allow one base RTT.
        let wire = goodput_bps(&sim, 0) * 1500.0 / 1460.0;
        assert!((wire / (gbps * 1e9) - 1.0).abs() < 0.005, "{gbps} Gbps: {wire:.6e}");
    }
}

// RackCC's example (section 3.2): caps of 2, 6 and 10 Gbps on one 10 GbE NIC share it 2/4/4
// under the fair host scheduler (and under round robin, whose turns are equal), within 2 %.
#[test]
fn host_fair_queue_gives_two_four_four() {
    for scheduler in ["fair", "round_robin"] {
        let text = format!(
            r#"
duration = "20ms"
[topology]
kind = "dumbbell"
senders = 1
receivers = 3
link_rate = "10Gbps"
bottleneck_rate = "100Gbps"
[host]
scheduler = "{scheduler}"
[[flows]]
src = "h0"
dst = "h1"
tag = "2G"
[[flows]]
src = "h0"
dst = "h2"
tag = "6G"
[[flows]]
src = "h0"
dst = "h3"
tag = "10G"
"#
        );
        let caps = BTreeMap::from([
            ("2G".to_string(), 2e9),
            ("6G".to_string(), 6e9),
            ("10G".to_string(), 10e9),
        ]);
        let sim = run_with(&text, Box::new(FixedRates(caps)));
        let wire: Vec<f64> = (0..3).map(|i| goodput_bps(&sim, i) * 1500.0 / 1460.0 / 1e9).collect();
        for (got, want) in wire.iter().zip([2.0, 4.0, 4.0]) {
            assert!((got / want - 1.0).abs() < 0.02, "{scheduler}: {wire:?}");
        }
    }
}

// One run mixes DCTCP flows and ideal flows on a k = 4 fat-tree: each flow's transport is in
// flows.parquet, packets and bytes are conserved (common::run), and both kinds deliver.
#[test]
fn dctcp_and_ideal_flows_share_one_run() {
    let text = r#"
duration = "20ms"
[topology]
kind = "fat_tree"
k = 4
link_rate = "10Gbps"
[switch]
queue = "ecn"
ecn_threshold = "20pkt"
[transport]
cc = "dctcp"
ecn = true
[scheme]
kind = "ideal"
[[flows]]
pattern = "permutation"
transport = "scheme"
tag = "ideal"
[[flows]]
src = ["h0", "h1", "h2", "h3"]
dst = ["h15", "h14", "h13", "h12"]
transport = "dctcp"
tag = "dctcp"
size = "1MB"
"#;
    let sim = common::run(text, &[]);
    let t = sim.flows_table();
    let (Some(transport), Some(cc)) =
        (t.column("transport").and_then(|c| c.texts()), t.column("cc").and_then(|c| c.texts()))
    else {
        panic!()
    };
    for (i, f) in sim.flows.iter().enumerate() {
        let want = if f.def.tag == "ideal" { ("ideal", "rate") } else { ("tcp", "dctcp") };
        assert_eq!((transport[i], cc[i]), want, "flow {i}");
        assert!(f.receiver.delivered() > 0);
    }
    assert_eq!(sim.hot.iter().filter(|h| h.managed).count(), 16);
}

/// A test scheme that exercises the control plane: at start, node `from` sends `count`
/// messages of `bytes` to node `to` (or broadcasts them), and every delivery is recorded.
struct Chatter {
    from: &'static str,
    to: Option<&'static str>,
    bytes: u32,
    count: u32,
    seen: Arc<Mutex<Vec<(u64, NodeId)>>>,
}

impl Scheme for Chatter {
    fn init(&mut self, ctx: &mut dyn Ctx) {
        let from = ctx.net().node_by_name(self.from).unwrap();
        for i in 0..self.count {
            let msg = Message::new("chat", self.bytes, i);
            match self.to {
                Some(to) => {
                    let to = ctx.net().node_by_name(to).unwrap();
                    ctx.send(from, to, msg)
                }
                None => ctx.broadcast(from, i, msg),
            }
        }
    }

    fn on_message(&mut self, ctx: &mut dyn Ctx, at: NodeId, msg: &Message) {
        assert_eq!(msg.kind, "chat");
        self.seen.lock().unwrap().push((ctx.now().ps(), at));
    }
}

fn chatter(
    text: &str,
    from: &'static str,
    to: Option<&'static str>,
    bytes: u32,
    count: u32,
) -> (Simulation, Vec<(u64, NodeId)>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sim = run_with(text, Box::new(Chatter { from, to, bytes, count, seen: seen.clone() }));
    let seen = seen.lock().unwrap().clone();
    (sim, seen)
}

// In band, 2000 control messages of 1500 B from sw0 to sw1 cross the bottleneck with a TCP
// flow: control.parquet counts them on exactly that link (sw0:1), and the flow's goodput
// falls by their share of the link: 2000 x 1500 B in 10 ms is 2.4 of 10 Gbps.
#[test]
fn control_bytes_cross_the_links_and_take_capacity_from_data() {
    let base = common::dumbbell(1, "10Gbps", 1, "transport = \"tcp\"")
        .replace("duration = \"100ms\"", "duration = \"10ms\"")
        .replace("link_delay = \"5us\"", "link_delay = \"1us\"\n[switch]\nbuffer = \"3000pkt\"");
    let (alone, _) = chatter(&base, "sw0", Some("sw1"), 1500, 0);
    let (shared, seen) = chatter(&base, "sw0", Some("sw1"), 1500, 2000);
    assert_eq!(seen.len(), 2000);
    assert!(seen.iter().all(|&(_, n)| shared.net.nodes[n.idx()].name == "sw1"));
    let t = shared.control_table();
    let Some(corral::metrics::Column::Int(bytes)) = t.column("bytes") else { panic!() };
    let Some(corral::metrics::Column::Str(node)) = t.column("node") else { panic!() };
    assert_eq!(
        (node.as_slice(), bytes.as_slice()),
        (&["sw0".to_string()][..], &[3_000_000i64][..]),
        "one row: the sw0 -> sw1 link"
    );
    let lost = goodput_bps(&alone, 0) - goodput_bps(&shared, 0);
    assert!((lost / 2.4e9 - 1.0).abs() < 0.05, "data lost {lost:.3e} bps to control traffic");
}

// Out of band, messages arrive exactly `delay` after they were sent (at time 0), crossing no
// link, and count as offered the bytes their paths would carry in band; a broadcast over an
// 8x8x8 torus reaches every other switch exactly once, and in band it costs 511 link
// crossings of 16 B = 8,176 B.
#[test]
fn out_of_band_delay_and_broadcast_coverage() {
    let dumbbell = common::dumbbell(1, "1Gbps", 1, "transport = \"tcp\"").replace(
        "duration = \"100ms\"",
        "duration = \"1ms\"\n[control]\nmode = \"out_of_band\"\ndelay = \"37us\"",
    );
    let (sim, seen) = chatter(&dumbbell, "h0", Some("h1"), 64, 3);
    assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), vec![37_000_000; 3]);
    assert!(sim.ctrl.per_link.is_empty());
    // Offered: what the path h0 -> sw0 -> sw1 -> h1 would carry in band, 3 links x 64 B.
    assert_eq!(sim.ctrl.totals.iter().map(|t| t.offered).sum::<u64>(), 3 * 3 * 64);
    let torus = "duration = \"1ms\"\n[topology]\nkind = \"torus\"\ndims = [8, 8, 8]\nlink_rate = \"10Gbps\"\nlink_delay = \"100ns\"\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\nsize = \"1KB\"\ntransport = \"tcp\"\n";
    for mode in ["inband", "out_of_band"] {
        let text = format!("{torus}[control]\nmode = \"{mode}\"\n");
        let (sim, seen) = chatter(&text, "sw0", None, 16, 4);
        let mut per_node: BTreeMap<u32, u32> = BTreeMap::new();
        for (_, n) in &seen {
            *per_node.entry(n.0).or_insert(0) += 1;
        }
        let switches = sim.net.nodes.iter().filter(|n| n.kind == NodeKind::Switch).count();
        assert_eq!(per_node.len(), switches - 1, "{mode}: every other switch");
        assert!(
            per_node.values().all(|&c| c == 4),
            "{mode}: each of the 4 broadcasts once per switch"
        );
        if mode == "inband" {
            let bytes: u64 = sim.ctrl.per_link.values().map(|v| v.1).sum();
            assert_eq!(bytes, 4 * 8176, "{mode}: 511 x 16 B per broadcast");
        }
        let offered: u64 = sim.ctrl.totals.iter().map(|t| t.offered).sum();
        assert_eq!(offered, 4 * 8176, "{mode}: offered, the tree's 511 links x 16 B per broadcast");
    }
}

/// A test scheme that turns ECN marking off at one output port and manages no flow.
struct EcnOff(&'static str);

impl Scheme for EcnOff {
    fn init(&mut self, ctx: &mut dyn Ctx) {
        let p = ctx.net().port_by_name(self.0).expect("a port of the dumbbell");
        ctx.set_port_ecn(p, false);
    }
}

// Per-port ECN: 4 DCTCP flows into a 1 Gbps bottleneck marking above 20 packets. With the
// bottleneck's marks on, DCTCP keeps its queue near K; a scheme that turns them off there
// leaves that port unmarked (no mark anywhere: no other port queues), and DCTCP falls back
// to loss-driven behaviour (drops appear).
#[test]
fn a_scheme_turns_ecn_marking_off_at_one_port() {
    let text = common::dumbbell(4, "1Gbps", 4, "transport = \"dctcp\"\n[switch]\nqueue = \"ecn\"\necn_threshold = \"20pkt\"\nbuffer = \"100pkt\"").replace("duration = \"100ms\"", "duration = \"50ms\"");
    let on = common::run(&text, &[]);
    let off = run_with(&text, Box::new(EcnOff("sw0:4")));
    let marks = |s: &Simulation| s.net.ports.iter().map(|p| p.stats.ecn_marks).sum::<u64>();
    assert!(common::port_stats(&on, "sw0:4").ecn_marks > 100, "marks with ECN on: {}", marks(&on));
    assert_eq!(marks(&off), 0, "no port marks once the bottleneck's marking is off");
    assert!(
        off.counts.dropped > on.counts.dropped,
        "drops {} vs {}",
        off.counts.dropped,
        on.counts.dropped
    );
}
