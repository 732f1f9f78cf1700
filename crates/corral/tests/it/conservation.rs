//! Packet conservation on every topology kind, routing policy and congestion controller, and a
//! property test over random small networks: every packet sent is delivered, dropped, or
//! still queued / on a wire / in a host's send path at the end, and no queue ever holds more
//! than its buffer.

use crate::common;

use corral::net::queue::Discipline;
use corral::Simulation;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// Bookkeeping checks beyond `common::assert_conserved`, exact (tolerance: none):
/// - the per-port drop counters add up to the global drop count;
/// - with no host send jitter, every packet a host sent (all packets but the control messages
///   switches originated) was transmitted, dropped, or is still queued at its NIC (nothing
///   waits between the transport and the NIC);
/// - the packets delivered to hosts are at most those switches transmitted toward hosts;
/// - every flow's in-order bytes delivered fit within the payload bytes delivered.
fn assert_books_balance(sim: &Simulation) {
    common::assert_conserved(sim);
    let c = &sim.counts;
    let port_drops: u64 = sim.net.ports.iter().map(|p| p.stats.drops).sum();
    assert_eq!(port_drops, c.dropped, "per-port drops vs global drop count");
    let is_host = |n: corral::ids::NodeId| sim.net.host_index[n.idx()].is_some();
    if sim.scenario.host.send_jitter == corral::units::Time::ZERO {
        let nic: u64 = (0..sim.net.hosts.len() as u32)
            .map(|h| {
                let p = &sim.net.ports[sim.net.host_port(h).idx()];
                p.stats.tx_packets + p.stats.drops + p.queue.packets()
            })
            .sum();
        assert_eq!(nic, c.sent - c.switch_sent, "host NIC accounting vs packets hosts sent");
    }
    let to_hosts: u64 = sim
        .net
        .ports
        .iter()
        .filter(|p| !is_host(p.node) && is_host(p.peer))
        .map(|p| p.stats.tx_packets)
        .sum();
    let to_host_delivered = c.delivered - c.switch_delivered;
    assert!(
        to_host_delivered <= to_hosts,
        "delivered to hosts {to_host_delivered} > transmitted toward hosts {to_hosts}"
    );
    for (i, node) in sim.net.nodes.iter().enumerate() {
        let id = corral::ids::NodeId(i as u32);
        if let Some(used) = sim.shared_buffer_used(id) {
            let queued: u64 =
                sim.net.ports.iter().filter(|p| p.node == id).map(|p| p.queue.bytes()).sum();
            assert_eq!(
                used, queued,
                "shared buffer of {} counts {used} bytes, its queues hold {queued}",
                node.name
            );
        }
    }
    let goodput_bytes: u64 = sim.flows.iter().map(|f| f.receiver.delivered()).sum();
    assert!(
        goodput_bytes <= c.delivered_bytes,
        "in-order payload {goodput_bytes} > bytes delivered {}",
        c.delivered_bytes
    );
}

const TOPOLOGIES: [(&str, &str); 4] = [
    ("dumbbell", "kind = \"dumbbell\"\nsenders = 4\nreceivers = 4\nlink_rate = \"10Gbps\"\nbottleneck_rate = \"10Gbps\""),
    ("fat_tree", "kind = \"fat_tree\"\nk = 4\nlink_rate = \"10Gbps\""),
    (
        "leaf_spine",
        "kind = \"leaf_spine\"\nleaves = 4\nspines = 2\nhosts_per_leaf = 4\nhost_rate = \"10Gbps\"\nfabric_rate = \"10Gbps\"",
    ),
    (
        "three_tier",
        "kind = \"three_tier\"\ncores = 2\naggs = 4\nedges = 4\nhosts_per_edge = 4\nhost_rate = \"10Gbps\"\nedge_rate = \"10Gbps\"\ncore_rate = \"10Gbps\"",
    ),
];

/// Routing tables of the matrix: (label, body of `[routing]`).
const ROUTINGS: [(&str, &str); 10] = [
    ("static", "kind = \"static\""),
    ("ecmp", "kind = \"ecmp\""),
    ("spray", "kind = \"spray\""),
    ("rps", "kind = \"rps\""),
    ("dest_tag", "kind = \"dest_tag\""),
    ("vlb", "kind = \"vlb\""),
    ("wlb", "kind = \"wlb\"\ndirect = 0.5"),
    ("rps/source_routes", "kind = \"rps\"\nsource_routes = true"),
    ("equal_length/random", "kind = \"equal_length\"\ncore = \"random\""),
    ("equal_length/dest_bits", "kind = \"equal_length\"\ncore = \"dest_bits\""),
];

fn matrix_scenario(topology: &str, routing: &str, cc: &str) -> String {
    let (queue, transport) = match cc {
        "dctcp" => ("queue = \"ecn\"\necn_threshold = \"20pkt\"", "cc = \"dctcp\"\necn = true"),
        other => (
            "queue = \"taildrop\"",
            if other == "cubic" { "cc = \"cubic\"" } else { "cc = \"newreno\"" },
        ),
    };
    format!(
        r#"
name = "conservation"
seed = 11
duration = "10ms"
[topology]
{topology}
[switch]
buffer = "50pkt"
{queue}
[routing]
{routing}
[transport]
{transport}
min_rto = "1ms"
[[flows]]
pattern = "permutation"
jitter = "50us"
[[flows]]
src = "h1"
dst = "h0"
size = "200KB"
start = "1ms"
[metrics]
interval = "1ms"
"#
    )
}

// Every topology kind x routing (static, ecmp, spray, rps, dest_tag, vlb, wlb, rps with source
// routes, equal_length with random and dest_bits core choice) x cc (newreno, cubic, dctcp with
// an ECN queue): 120 runs of 10 ms, a random permutation of unbounded flows plus one 200 KB flow that
// overlaps h0's incoming permutation flow. Small (50-packet) buffers so that drops happen.
// Tolerance: exact packet conservation and bookkeeping (assert_books_balance); every flow
// delivered data; a finished 200 KB flow delivered exactly 200 KB (and at least one run
// finished it); the whole matrix saw drops, and every dctcp run saw ECN marks (except with
// per-packet random equal-length routing, see below).
#[test]
fn conservation_on_every_topology_routing_and_cc() {
    let (mut total_drops, mut finished) = (0, 0);
    for (name, topology) in TOPOLOGIES {
        for (routing_name, routing) in ROUTINGS {
            for cc in ["newreno", "cubic", "dctcp"] {
                let sim = common::run(&matrix_scenario(topology, routing, cc), &[]);
                let what = format!("{name}/{routing_name}/{cc}");
                assert_books_balance(&sim);
                assert!(sim.flows.len() >= 9, "{what}: {} flows", sim.flows.len());
                for (i, f) in sim.flows.iter().enumerate() {
                    assert!(f.receiver.delivered() > 0, "{what}: flow {i} delivered nothing");
                }
                // The 200 KB flow competes with h0's permutation flow and need not finish in
                // 9 ms; when it has finished, every byte arrived.
                let last = sim.flows.last().unwrap();
                if last.finish.is_some() {
                    assert_eq!(
                        last.receiver.delivered(),
                        200_000,
                        "{what}: the finished 200 KB flow"
                    );
                    finished += 1;
                }
                // Per-packet random equal-length routing reorders every flow (about 30 spurious
                // fast recoveries per flow in 10 ms on the fat-tree), which keeps windows below
                // the marking threshold: no marks there is expected, not a bookkeeping error.
                // VLB and WLB paths reorder packets the same way, and so does per-packet
                // spraying (spray, rps, rps with source routes) on the fat-tree for RACK-TLP
                // (on by default), whose reordering window is a quarter of the minimum RTT:
                // spurious recoveries (about 50 per flow in 10 ms) keep windows small there too.
                if cc == "dctcp"
                    && !["equal_length/random", "vlb", "wlb"].contains(&routing_name)
                    && !(["spray", "rps", "rps/source_routes"].contains(&routing_name)
                        && name == "fat_tree")
                {
                    let marks: u64 = sim.net.ports.iter().map(|p| p.stats.ecn_marks).sum();
                    assert!(marks > 0, "{what}: no ECN marks");
                }
                total_drops += sim.counts.dropped;
                eprintln!(
                    "{what}: sent {} delivered {} dropped {} in flight {}",
                    sim.counts.sent,
                    sim.counts.delivered,
                    sim.counts.dropped,
                    sim.packets_in_flight()
                );
            }
        }
    }
    assert!(total_drops > 0, "no drops anywhere: the matrix does not exercise drop accounting");
    assert!(finished > 0, "no 200 KB flow finished anywhere");
    eprintln!("200 KB flow finished in {finished} of 60 runs; {total_drops} drops in all");
}

// The same topologies and routings with every flow under HCC's agents (explicit rates paced
// by token buckets, control messages sharing the data queues): exact conservation and
// bookkeeping, and every flow delivered data (a flow sends nothing before its first share,
// so this also checks that shares reach every leaf, on multipath routings too).
#[test]
fn conservation_with_hcc_on_every_topology_and_routing() {
    for (name, topology) in TOPOLOGIES {
        for (routing_name, routing) in ROUTINGS {
            let text = matrix_scenario(topology, routing, "newreno") + "[scheme]\nkind = \"hcc\"\n";
            let sim = common::run(&text, &[]);
            let what = format!("hcc {name}/{routing_name}");
            assert_books_balance(&sim);
            for (i, f) in sim.flows.iter().enumerate() {
                assert!(f.receiver.delivered() > 0, "{what}: flow {i} delivered nothing");
            }
            assert!(sim.scheme_counters["rate_changes"] > 0, "{what}");
        }
    }
}

// The same with RackCC: every flow a rate-based subflow of its rack pair's JumboFlow (the
// switches mark ECN above 20 packets, the destination ToRs' ports to servers do not), NICs
// fair-queueing; exact books, every flow delivered data, and every subflow unregistered.
#[test]
fn conservation_with_rackcc_on_every_topology_and_routing() {
    for (name, topology) in TOPOLOGIES {
        for (routing_name, routing) in ROUTINGS {
            let text = matrix_scenario(topology, routing, "dctcp")
                + "[host]\nscheduler = \"fair\"\n[scheme]\nkind = \"rackcc\"\n";
            let sim = common::run(&text, &[]);
            let what = format!("rackcc {name}/{routing_name}");
            assert_books_balance(&sim);
            for (i, f) in sim.flows.iter().enumerate() {
                assert!(f.receiver.delivered() > 0, "{what}: flow {i} delivered nothing");
            }
            assert!(sim.scheme_counters["rate_changes"] > 0, "{what}");
        }
    }
}

// The same with SCC: every flow in its host pair's tunnel (no class: completion-sensitive),
// TCP capped at the tunnel's share, the receiving shim clearing the underlay's marks; exact
// books and every flow delivered data.
#[test]
fn conservation_with_scc_on_every_topology_and_routing() {
    for (name, topology) in TOPOLOGIES {
        for (routing_name, routing) in ROUTINGS {
            let text = matrix_scenario(topology, routing, "dctcp") + "[scheme]\nkind = \"scc\"\n";
            let sim = common::run(&text, &[]);
            let what = format!("scc {name}/{routing_name}");
            assert_books_balance(&sim);
            for (i, f) in sim.flows.iter().enumerate() {
                assert!(f.receiver.delivered() > 0, "{what}: flow {i} delivered nothing");
            }
        }
    }
}

// Every switch discipline, with per-port and with shared buffers: a fat-tree (k=4, 10 Gbps)
// with a permutation plus a 4-to-1 incast to h0 of flows with different priorities and
// weights, 10 ms, 30-packet buffers so that every discipline drops. Tolerance: exact
// conservation and bookkeeping (assert_books_balance); every run drops; mark mode marks.
#[test]
fn conservation_with_every_queue_discipline_and_buffer_model() {
    let disciplines = [
        ("taildrop", ""),
        ("ecn", "ecn_threshold = \"10pkt\""),
        ("red", "[switch.red]\nmin_th = \"5pkt\"\nmax_th = \"15pkt\"\nw_q = 0.01"),
        ("red", "[switch.red]\nmode = \"mark\"\ngentle = true\nw_q = 0.01"),
        ("sfq", "[switch.sfq]\nbuckets = 4\nperturb = \"1ms\""),
        ("priority", "[switch.priority]\nclasses = 2\nclass = \"red\"\n[switch.red]\nw_q = 0.01"),
        ("drr", "[switch.drr]\nquantum = \"1500B\""),
        ("pfabric", ""),
    ];
    for (queue, table) in disciplines {
        for model in ["", "buffer_model = \"shared\"\nshared_buffer = \"150KB\"\nalpha = 0.5"] {
            let (keys, sub) = match table.find('[') {
                Some(i) => (&table[..i], &table[i..]),
                None => (table, ""),
            };
            let text = format!(
                "seed = 5\nduration = \"10ms\"\n[topology]\nkind = \"fat_tree\"\nk = 4\nlink_rate = \"10Gbps\"\n[switch]\nbuffer = \"30pkt\"\nqueue = \"{queue}\"\n{keys}\n{model}\n{sub}\n\
                 [transport]\necn = true\nmin_rto = \"1ms\"\n[[flows]]\npattern = \"permutation\"\njitter = \"50us\"\npriority = 1\n\
                 [[flows]]\nsrc = [\"h4\", \"h8\", \"h12\", \"h1\"]\ndst = \"h0\"\njitter = \"50us\"\nweight = 3\n"
            );
            let sim = common::run(&text, &[]);
            assert_books_balance(&sim);
            let what = format!("{queue} {table:?} {model:?}");
            assert!(sim.counts.dropped > 0, "{what}: no drops");
            if table.contains("mark") {
                assert!(
                    sim.net.ports.iter().map(|p| p.stats.ecn_marks).sum::<u64>() > 0,
                    "{what}: no marks"
                );
            }
            eprintln!(
                "{what}: sent {} delivered {} dropped {}",
                sim.counts.sent, sim.counts.delivered, sim.counts.dropped
            );
        }
    }
}

/// One random small scenario for the property test.
#[derive(Debug, Clone)]
struct Case {
    topology: String,
    switch_buffer: String,
    host_buffer: String,
    ecn: Option<u32>,
    /// Switch discipline: taildrop (or ecn when `ecn` is set), red, red_mark, sfq, priority, drr.
    qdisc: &'static str,
    /// Shared switch buffer (bytes) under a dynamic threshold, or per-port buffers.
    shared: Option<u32>,
    cc: &'static str,
    routing: &'static str,
    pacing: bool,
    /// `transport.sack` and `transport.limited_transmit`.
    sack: bool,
    limited_transmit: bool,
    flows: Vec<(u32, u32, Option<u32>)>,
    permutation: bool,
    send_jitter_ns: u32,
    clock_ppm: u32,
    seed: u64,
    duration_us: u32,
}

impl Case {
    fn text(&self) -> String {
        let mut s = format!(
            "seed = {}\nduration = \"{}us\"\n[topology]\n{}\n[switch]\nbuffer = \"{}\"\n",
            self.seed, self.duration_us, self.topology, self.switch_buffer
        );
        // The threshold must be below the buffer (a scenario rule): clamp it.
        let ecn = self
            .ecn
            .map(|k| (k as u64).min((limit_bytes(&self.switch_buffer) - 1) / MAX_PACKET) as u32);
        s += &match (self.qdisc, ecn) {
            ("taildrop", Some(k)) => format!("queue = \"ecn\"\necn_threshold = \"{k}pkt\"\n"),
            ("taildrop", None) => "queue = \"taildrop\"\n".to_string(),
            ("priority", Some(k)) => format!("queue = \"priority\"\necn_threshold = \"{k}pkt\"\n"),
            ("red_mark", _) => "queue = \"red\"\n".to_string(),
            ("drr_backpressure", _) => "queue = \"drr\"\nbackpressure = 2\n".to_string(),
            (q, _) => format!("queue = \"{q}\"\n"),
        };
        if let Some(b) = self.shared {
            s += &format!("buffer_model = \"shared\"\nshared_buffer = \"{b}B\"\nalpha = 2.0\n");
        }
        s += &match (self.qdisc, self.ecn) {
            ("red", _) => "[switch.red]\nmin_th = \"3pkt\"\nmax_th = \"9pkt\"\nw_q = 0.02\ngentle = true\n".to_string(),
            ("red_mark", _) => "[switch.red]\nmin_th = \"3000B\"\nmax_th = \"12000B\"\nw_q = 0.02\nmode = \"mark\"\n".to_string(),
            ("sfq", _) => "[switch.sfq]\nbuckets = 4\nperturb = \"200us\"\n".to_string(),
            ("priority", Some(_)) => "[switch.priority]\nclasses = 2\nclass = \"ecn\"\n".to_string(),
            ("priority", None) => "[switch.priority]\nclasses = 3\n".to_string(),
            ("drr", _) => "[switch.drr]\nquantum = \"1000B\"\n".to_string(),
            _ => String::new(),
        };
        s += &format!(
            "[host]\nbuffer = \"{}\"\nsend_jitter = \"{}ns\"\n",
            self.host_buffer, self.send_jitter_ns
        );
        if self.qdisc == "drr_backpressure" {
            s += "small_queue = 0\n";
        }
        s += &format!("[network]\nclock_ppm = {}\n", self.clock_ppm);
        s += &format!("[routing]\nkind = \"{}\"\n", self.routing);
        let ecn = self.ecn.is_some() || self.cc == "dctcp" || self.qdisc == "red_mark";
        s += &format!(
            "[transport]\ncc = \"{}\"\necn = {ecn}\nmin_rto = \"1ms\"\npacing = {}\n",
            self.cc, self.pacing
        );
        s += &format!("sack = {}\nlimited_transmit = {}\n", self.sack, self.limited_transmit);
        if self.permutation {
            s += "[[flows]]\npattern = \"permutation\"\njitter = \"20us\"\n";
        }
        for &(src, dst, size) in &self.flows {
            let size = size.map_or("\"unbounded\"".to_string(), |b| format!("\"{b}B\""));
            let (prio, weight) = (src % 4, 1 + dst % 3);
            s += &format!("[[flows]]\nsrc = \"h{src}\"\ndst = \"h{dst}\"\nsize = {size}\njitter = \"50us\"\npriority = {prio}\nweight = {weight}\n");
        }
        s
    }
}

fn buffer_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        (2u32..120).prop_map(|p| format!("{p}pkt")),
        (1600u32..150_000).prop_map(|b| format!("{b}B"))
    ]
}

fn case_strategy() -> impl Strategy<Value = Case> {
    let rate = prop::sample::select(vec!["1Gbps", "10Gbps", "40Gbps"]);
    let dumbbell = (1u32..6, 1u32..4, rate.clone(), rate.clone()).prop_map(|(s, r, a, b)| {
        (format!("kind = \"dumbbell\"\nsenders = {s}\nreceivers = {r}\nlink_rate = \"{a}\"\nbottleneck_rate = \"{b}\""), s + r)
    });
    let fat_tree = (prop::sample::select(vec![2u32, 4]), rate).prop_map(|(k, a)| {
        (format!("kind = \"fat_tree\"\nk = {k}\nlink_rate = \"{a}\""), k * k * k / 4)
    });
    let topo = prop_oneof![dumbbell, fat_tree];
    (
        topo,
        buffer_strategy(),
        buffer_strategy(),
        prop::option::of(1u32..40),
        prop::sample::select(vec!["newreno", "cubic", "dctcp"]),
        (
            prop::sample::select(vec![
                "static",
                "ecmp",
                "spray",
                "equal_length",
                "rps",
                "dest_tag",
                "vlb",
                "wlb",
            ]),
            any::<bool>(),
            any::<(bool, bool)>(),
        ),
        prop::collection::vec(
            (any::<u32>(), any::<u32>(), prop::option::of(1000u32..300_000)),
            1..8,
        ),
        any::<bool>(),
        prop::sample::select(vec![0u32, 500, 3000]),
        prop::sample::select(vec![0u32, 100]),
        0u64..(1 << 40),
        (
            1000u32..4000,
            prop::sample::select(vec![
                "taildrop",
                "taildrop",
                "red",
                "red_mark",
                "sfq",
                "priority",
                "drr",
                "drr_backpressure",
                "pfabric",
            ]),
            prop::option::of(3000u32..200_000),
        ),
    )
        .prop_map(
            |(
                (topology, hosts),
                switch_buffer,
                host_buffer,
                ecn,
                cc,
                (routing, pacing, (sack, limited_transmit)),
                raw_flows,
                permutation,
                send_jitter_ns,
                clock_ppm,
                seed,
                (duration_us, qdisc, shared),
            )| {
                // DCTCP needs ECN marking queues to make sense; give it one when none was drawn.
                let ecn = if cc == "dctcp" { Some(ecn.unwrap_or(10)) } else { ecn };
                let flows = raw_flows
                    .into_iter()
                    .map(|(a, b, size)| {
                        let src = a % hosts;
                        let dst = (src + 1 + b % (hosts - 1)) % hosts;
                        (src, dst, size)
                    })
                    .collect();
                Case {
                    topology,
                    switch_buffer,
                    host_buffer,
                    ecn,
                    qdisc,
                    shared,
                    cc,
                    routing,
                    pacing,
                    sack,
                    limited_transmit,
                    flows,
                    permutation,
                    send_jitter_ns,
                    clock_ppm,
                    seed,
                    duration_us,
                }
            },
        )
}

/// Largest packet the scenario can put on the wire: mss (default 1460) + header (40).
const MAX_PACKET: u64 = 1500;

fn limit_bytes(spec: &str) -> u64 {
    match corral::units::parse_buffer(spec).unwrap() {
        corral::units::BufferSize::Bytes(b) => b,
        corral::units::BufferSize::Packets(p) => p * MAX_PACKET,
    }
}

proptest! {
    #![proptest_config(Config { cases: 24, rng_seed: RngSeed::Fixed(0x0c0441), failure_persistence: None, ..Config::default() })]

    // Tolerance: exact. Conservation and bookkeeping as in assert_books_balance, and no
    // port's queue ever exceeded its limit: max_queue_bytes <= the byte limit (when the
    // buffer is in packets, <= packets * 1500, the largest packet; a priority queue has that
    // limit per class; a shared buffer also caps every switch queue at its size). Every
    // discipline (taildrop, ecn, red in drop and mark mode, sfq, priority, drr) and both
    // buffer models are drawn, and DRR with hop-by-hop back-pressure (whose per-switch counts
    // must equal the switches' queued packets at the end).
    #[test]
    fn random_small_networks_conserve_packets_and_respect_buffers(case in case_strategy()) {
        let sim = common::run(&case.text(), &[]);
        assert_books_balance(&sim);
        if case.qdisc == "drr_backpressure" {
            let queued = sim.net.ports.iter().filter(|p| sim.net.host_index[p.node.idx()].is_none()).map(|p| corral::net::queue::Discipline::packets(&p.queue)).sum::<u64>();
            prop_assert_eq!(sim.backpressure_held(), Some(queued), "the switches' counts are their queued packets");
        }
        let classes = match (case.qdisc, case.ecn) { ("priority", Some(_)) => 2, ("priority", None) => 3, _ => 1 };
        let switch_limit = (limit_bytes(&case.switch_buffer) * classes).min(case.shared.map_or(u64::MAX, u64::from));
        let host_limit = limit_bytes(&case.host_buffer);
        for p in &sim.net.ports {
            let host = sim.net.host_index[p.node.idx()].is_some();
            let limit = if host { host_limit } else { switch_limit };
            prop_assert!(
                p.stats.max_queue_bytes <= limit,
                "{}:{} queued {} B, limit {} B ({})",
                sim.net.nodes[p.node.idx()].name, p.local, p.stats.max_queue_bytes, limit,
                if host { &case.host_buffer } else { &case.switch_buffer }
            );
        }
        prop_assert!(sim.counts.sent > 0);
    }
}
