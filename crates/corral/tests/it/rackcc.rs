//! RackCC's JumboFlows in packet simulation: the destination rate D_target on a 4-to-1
//! incast, marking turned off at the last hop, Fast Start's registrations and Fast End's
//! unregistrations, the one-path loss and what isolates it, the control loop's trace, and bad
//! settings.

use crate::common;

/// The text of `scenarios/rackcc/<name>.toml`.
fn scenario(name: &str) -> String {
    let path = format!("{}/../../scenarios/rackcc/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A k = 4 fat-tree of 10 Gbps links (4.5 us each) with 100-packet buffers marking above 50,
/// NICs fair-queueing, and four unbounded RackCC senders into h0 from four racks' worth of
/// servers (h2 shares h0's pod, h4, h8 and h12 are in the other pods).
fn incast(duration: &str, scheme: &str) -> String {
    format!(
        r#"
seed = 1
duration = "{duration}"
[topology]
kind = "fat_tree"
k = 4
link_rate = "10Gbps"
link_delay = "4.5us"
[switch]
buffer = "100pkt"
queue = "ecn"
ecn_threshold = "50pkt"
[host]
scheduler = "fair"
[routing]
kind = "ecmp"
[transport]
min_rto = "200us"
[scheme]
kind = "rackcc"
{scheme}
[[flows]]
src = ["h4", "h8", "h12", "h2"]
dst = "h0"
[metrics]
interval = "100us"
queue_ports = ["tor0:0"]
queue_interval = "100us"
"#
    )
}

fn destination_rate(sim: &corral::Simulation, host: &str) -> f64 {
    sim.summary()["scheme"]["state"]["destination_rate_bps"][host]
        .as_f64()
        .expect("a receiving server's D")
}

// Acceptance 7: four long senders into one receiver. D (interval d = 100 us) is within 10 %
// of C/4 after 50 intervals and still at 10 ms; from 5 ms on, the median sampled queue at the
// ToR's port to h0 is under 10 % of the buffer and h0 receives at least 90 % of C in
// payload. That port never marks (the last hop), though its queue passes K at the start.
#[test]
fn destination_rate_settles_at_a_quarter_of_the_link() {
    let c = 10e9;
    let early = common::run(&incast("5ms", ""), &[]);
    let d = destination_rate(&early, "0");
    assert!((d / (c / 4.0) - 1.0).abs() < 0.1, "D after 50 intervals: {d:.4e}");
    let sim = common::run(&incast("10ms", ""), &[]);
    let d = destination_rate(&sim, "0");
    assert!((d / (c / 4.0) - 1.0).abs() < 0.1, "D at 10 ms: {d:.4e}");
    let q = &sim.metrics.queues;
    let mut late: Vec<u64> = (0..q.time.len())
        .filter(|&i| q.time[i].as_secs_f64() > 0.005)
        .map(|i| q.packets[i])
        .collect();
    late.sort_unstable();
    assert!(late[late.len() / 2] < 10, "median queue {} packets", late[late.len() / 2]);
    let tp = &sim.metrics.throughput;
    let bytes: u64 = (0..tp.time.len())
        .filter(|&k| tp.time[k].as_secs_f64() > 0.005 + 1e-9)
        .map(|k| tp.bytes[k])
        .sum();
    let goodput = bytes as f64 * 8.0 / 0.005;
    assert!(goodput >= 0.9 * c, "goodput {goodput:.4e}");
    let last_hop = common::port_stats(&sim, "tor0:0");
    assert_eq!(last_hop.ecn_marks, 0, "the last hop marks nothing");
    assert!(
        last_hop.max_queue_bytes > 50 * 1500,
        "its queue passed K (the test exercises the switch-off)"
    );
}

// Fast Start and Fast End: 25 subflows of one rack pair register (N reaches 25), each
// finished subflow unregisters (N back to 0), and the run's only JumboFlow saw marks.
// Without Fast Start the same subflows register too, and finish.
#[test]
fn subflows_register_and_unregister() {
    let text = scenario("fig3");
    for fast_start in ["true", "false"] {
        let sim =
            common::run(&text, &[&format!("scheme.fast_start={fast_start}"), "duration=20ms"]);
        let state = &sim.summary()["scheme"]["state"];
        assert_eq!(state["jumboflows"], 1);
        assert_eq!(state["max_registered"], 25, "fast_start = {fast_start}");
        assert_eq!(
            state["registered"][0], 0,
            "fast_start = {fast_start}: every subflow unregistered"
        );
        assert!(sim.flows.iter().all(|f| f.sender.finished()), "fast_start = {fast_start}");
    }
}

// Several JumboFlows per rack pair (`jumboflows = 5`): Fig. 3's 25 subflows, all starting
// with every JumboFlow at the same α, spread five to each (the least congested choice breaks
// ties by the fewest subflows), and all finish.
#[test]
fn subflows_spread_over_the_pairs_jumboflows() {
    let text = scenario("fig3");
    let sim = common::run(&text, &["scheme.jumboflows=5", "duration=20ms"]);
    let state = &sim.summary()["scheme"]["state"];
    assert_eq!(state["jumboflows"], 5);
    assert_eq!(state["max_registered"], 5, "five subflows in each");
    assert!(sim.flows.iter().all(|f| f.sender.finished()));
}

// Lost control messages: web-search flows on a k = 4 fat-tree (scenarios/fct, 50 ms, with
// 100-packet buffers marking above 50) without D_target drop some registrations and ToR
// messages at full queues.
// Each is sent again at the next aggregation period (at once it met the same full queue and
// recursed until the stack overflowed), and flows finish.
#[test]
fn lost_messages_are_sent_again_at_the_next_period() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/fct/websearch_fattree.toml"
    ))
    .expect("the web-search scenario");
    let sim = common::run(
        &text,
        &[
            "duration=50ms",
            "scheme.kind=rackcc",
            "scheme.destination=false",
            "host.scheduler=fair",
            "switch.buffer=100pkt",
            "switch.ecn_threshold=50pkt",
        ],
    );
    assert!(
        sim.scheme_counters.get("resent_messages").copied().unwrap_or(0) > 0,
        "{:?}",
        sim.scheme_counters
    );
    assert!(sim.flows.iter().filter(|f| f.finish.is_some()).count() > 200);
}

// A bad setting names its key.
#[test]
fn bad_settings_name_their_key() {
    for (setting, key) in [
        ("g = 0", "scheme.g"),
        ("period = \"0us\"", "scheme.period"),
        ("k = -1", "scheme.k"),
        ("d_floor = 1.5", "scheme.d_floor"),
        ("initial_alpha = 2", "scheme.initial_alpha"),
        ("fast_start = 1", "scheme.fast_start"),
        ("jumboflows = 0", "scheme.jumboflows"),
        ("sending = \"both\"", "scheme.sending"),
        ("signal = \"tor\"", "scheme.signal"),
        ("trace = \"0us\"", "scheme.trace"),
    ] {
        let err = corral::scenario::load(&incast("1ms", setting), &[], "t")
            .and_then(corral::Simulation::new)
            .err()
            .unwrap()
            .to_string();
        assert!(err.starts_with(key), "{setting}: {err}");
    }
}

/// The coexistence scenario (`scenarios/rackcc/coexist.toml`: a JumboFlow of 4 unbounded
/// subflows and 4 unbounded DCTCP flows on one 10 Gbps bottleneck) with `seed`: each group's
/// share of the bottleneck's bytes after 10 ms, and each group's retransmissions over the run.
fn coexist(seed: u64) -> ([f64; 2], [u64; 2]) {
    coexist_with(seed, &[])
}

/// The same with `overrides`.
fn coexist_with(seed: u64, overrides: &[&str]) -> ([f64; 2], [u64; 2]) {
    let text = scenario("coexist");
    let seed = format!("seed={seed}");
    let sim = common::run(&text, &[&[seed.as_str()], overrides].concat());
    let group = |f: usize| usize::from(sim.flows[f].def.tag == "dctcp");
    let (mut bytes, mut retransmits) = ([0u64; 2], [0u64; 2]);
    let tp = &sim.metrics.throughput;
    for k in (0..tp.time.len()).filter(|&k| tp.time[k].as_secs_f64() > 0.01 + 1e-9) {
        bytes[group(tp.flow[k] as usize)] += tp.bytes[k];
    }
    for (f, flow) in sim.flows.iter().enumerate() {
        retransmits[group(f)] += flow.sender.stats.retransmits;
    }
    let total = (bytes[0] + bytes[1]) as f64;
    ([bytes[0] as f64 / total, bytes[1] as f64 / total], retransmits)
}

// Issue 46: a JumboFlow is no more aggressive than the DCTCP flows it stands for. Four
// subflows against four DCTCP flows on one bottleneck, seeds 1-3: the JumboFlow's share is
// within 10 % of even (45-55 %) on every seed. Its per-subflow law ran once per base RTT before
// (r = MSS / base RTT): with a queue it grew (RTT / base RTT)^2 faster than DCTCP, took 57 %
// and retransmitted 7x as much (1,139 against 157 on seed 1).
//
// Its retransmissions over the three runs were within issue 46's 2x of DCTCP's (185 against
// 95) until DCTCP's alpha window took Linux's rules (issue 56: the first ACK ends the first
// window, a window ends when snd_una reaches its end, SACKed bytes count): now 216 against 92,
// 2.35x, a miss the reproduction reports (RackCC's coexistence rows). The ratio is pinned to
// [2.0, 2.7] so that it cannot move either way unseen: below 2.0 the 2x bound is met again and
// belongs back here; above 2.7 something made RackCC lossier.
#[test]
fn a_jumboflow_shares_a_bottleneck_evenly_with_as_many_dctcp_flows() {
    let mut retransmits = [0u64; 2];
    for seed in 1..=3 {
        let (share, rtx) = coexist(seed);
        assert!((0.45..=0.55).contains(&share[0]), "seed {seed}: RackCC's share {:.3}", share[0]);
        retransmits[0] += rtx[0];
        retransmits[1] += rtx[1];
    }
    assert!(retransmits[1] > 0, "the runs see losses: the ratio is not vacuous");
    let ratio = retransmits[0] as f64 / retransmits[1] as f64;
    assert!((2.0..=2.7).contains(&ratio), "retransmits RackCC / DCTCP {ratio:.2}: {retransmits:?}");
}

// Issue 46, the shortfall below even and what isolates it (seed 1; the reproduction runs
// seeds 1-5). One subflow against one DCTCP flow takes 37 % as the paper builds it (rate-based
// sending): a paced sender's packets arrive while the queue is above K where an ACK-clocked
// window's stop after a cut, so the JumboFlow's alpha sees more marks (24 % of its bytes
// against DCTCP's 19 %, with as many cuts). Sent by window it takes 47 %. Four against four by
// window take 40 %: fate sharing cuts every subflow for any mark, where four DCTCP flows cut
// only those marked; with a JumboFlow per subflow (no fate sharing) they take 48 %. A test that
// fails if any of these moves out of its band.
#[test]
fn the_coexistence_shortfall_is_rate_sending_and_fate_sharing() {
    let share = |n: usize, extra: &[&str]| {
        let hosts = |first: usize| {
            let h: Vec<String> = (first..first + n).map(|i| format!("\"h{i}\"")).collect();
            h.join(", ")
        };
        let (src0, src1) =
            (format!("flows.0.src=[{}]", hosts(0)), format!("flows.1.src=[{}]", hosts(4)));
        coexist_with(1, &[&[src0.as_str(), src1.as_str()], extra].concat()).0[0]
    };
    let window = "scheme.sending=window";
    let one_rate = share(1, &[]);
    let one_window = share(1, &[window]);
    let four_window = share(4, &[window]);
    let four_window_apart = share(4, &[window, "scheme.jumboflows=4"]);
    assert!((0.33..=0.41).contains(&one_rate), "1 v 1, rate: {one_rate:.3}");
    assert!((0.45..=0.55).contains(&one_window), "1 v 1, window: {one_window:.3}");
    assert!((0.36..=0.44).contains(&four_window), "4 v 4, window: {four_window:.3}");
    assert!(
        (0.45..=0.55).contains(&four_window_apart),
        "4 v 4, window, apart: {four_window_apart:.3}"
    );
}

/// The one-path loss case (`scenarios/rackcc/onepath.toml`: 25 subflows of 1 MB from five
/// servers to five over one 10 Gbps ToR-to-ToR path, 50-packet buffers marking above 25) with
/// `overrides`: the packets dropped.
fn one_path_drops(overrides: &[&str]) -> u64 {
    let text = scenario("onepath");
    let sim = common::run(&text, overrides);
    assert!(sim.flows.iter().all(|f| f.sender.finished()), "{overrides:?}: every subflow finishes");
    sim.counts.dropped
}

// Issue 59: RackCC as the paper writes it drops about 15 % of what it sends on one path
// (2,925 packets on seed 1) where DCTCP drops 45, nearly all in its first millisecond. The
// paper's rate law is the cause, not the ToR's aggregation: a plain rate-based DCTCP (the same
// per-subflow law with each subflow's own alpha, cutting at its first marked ACK, no ToR, no
// Fast Start, no D) drops as much (3,328), and the same sent by window far less (255). With
// rate sending the aggregate grows by N' MSS / RTT per RTT (25 x 0.2 Gbps) while no mark can
// come back: the queue fills quadratically before the first cut (docs/reproductions/rackcc.md).
// Seed 1; the reproduction runs seeds 1-10.
#[test]
fn the_one_path_loss_is_the_rate_law_not_the_tor_aggregation() {
    let paper = one_path_drops(&[]);
    let dctcp = one_path_drops(&["flows.0.transport=dctcp"]);
    let own = ["scheme.signal=subflow", "scheme.fast_start=false", "scheme.destination=false"];
    let rate_dctcp = one_path_drops(&own);
    let window_dctcp = one_path_drops(&[&own[..], &["scheme.sending=window"]].concat());
    assert!(paper > 20 * dctcp, "RackCC {paper} against DCTCP {dctcp}: the loss is there");
    assert!(
        2 * paper >= rate_dctcp && paper <= 2 * rate_dctcp,
        "RackCC {paper} within 2x of the plain rate-based DCTCP's {rate_dctcp}"
    );
    assert!(5 * window_dctcp < rate_dctcp, "by window {window_dctcp}, by rate {rate_dctcp}");
}

// The untested reading of the law (issue 59's review): f_cur taken as the subflow's observed
// rate (`scheme.current = "observed"`, section 3.2's "final, observed rate"), a subflow short
// of its target held there instead of growing. A paced aggregate above the link is then held
// as soon as the queue slows its ACKs, and the one-path loss mostly goes: seed 1 drops 135
// packets where the default reading (f_cur = the previous target) drops 2,925 and DCTCP 45.
#[test]
fn the_observed_rate_reading_holds_the_one_path_overshoot() {
    let paper = one_path_drops(&[]);
    let observed = one_path_drops(&["scheme.current=observed"]);
    let dctcp = one_path_drops(&["flows.0.transport=dctcp"]);
    assert!(10 * observed < paper, "observed {observed} against the default reading's {paper}");
    assert!(observed < 5 * dctcp, "observed {observed} against DCTCP's {dctcp}");
}

// The control loop's trace (`scheme.trace`) on the one-path case's first 3 ms: a sample every
// 10 us with one row per active subflow, the ToR's marked ACKs no more than its ACKs, every cut
// a decrease, the first cut for marks after the ToR's first marked ACK, and every ToR message
// (one per period to each of the five sending servers) delivered after it was sent (but those
// still on their way when the run ends).
#[test]
fn the_trace_records_the_control_loop() {
    let text = scenario("onepath");
    let sim = common::run(&text, &["scheme.trace=10us", "duration=3ms"]);
    let trace = &sim.summary()["scheme"]["state"]["trace"];
    let rows = |table: &str| trace[table]["rows"].as_array().expect("rows").clone();
    let jumbo = rows("jumbo");
    assert!(jumbo.len() >= 290, "{} samples in 3 ms", jumbo.len());
    let times: Vec<f64> = jumbo.iter().map(|r| r[0].as_f64().unwrap()).collect();
    assert!(times.windows(2).all(|w| (w[1] - w[0] - 10.0).abs() < 1e-6), "every 10 us");
    assert!(jumbo.iter().all(|r| r[5].as_u64() <= r[4].as_u64()), "marks <= ACKs");
    let first_mark =
        jumbo.iter().find(|r| r[5].as_u64() > Some(0)).expect("marked ACKs")[0].as_f64().unwrap();
    let subflows = rows("subflow");
    assert_eq!(subflows.iter().filter(|r| r[0].as_f64() == Some(times[10])).count(), 25);
    let cuts = rows("cuts");
    assert!(cuts.iter().all(|c| c[6].as_f64() < c[5].as_f64()), "cuts decrease f");
    let first_cut =
        cuts.iter().find(|c| c[2] == "mark").expect("cuts for marks")[0].as_f64().unwrap();
    assert!(first_cut > first_mark - 10.0, "cut at {first_cut} us, first mark by {first_mark} us");
    let messages = rows("messages");
    assert!(messages.len() >= 5 * 290, "{} messages", messages.len());
    let early = messages.iter().filter(|m| m[0].as_f64() < Some(2_900.0));
    assert!(
        early.clone().all(|m| m[1].as_f64().is_some_and(|done| done >= m[0].as_f64().unwrap())),
        "a message sent 100 us before the end is delivered, after it was sent"
    );
}
