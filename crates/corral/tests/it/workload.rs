//! `[[traffic]]` workloads: offered load against the target (generated flow lists, no
//! packets), pattern structure, flow-list files, and full runs with the FCT metrics.

use crate::common;

use corral::metrics::Column;
use corral::net::queue::QueueDisc;
use corral::net::{Network, NodeKind};
use corral::route::RouteTable;
use corral::units::{BufferSize, Time};
use corral::workload::flow::FlowDef;
use corral::workload::generate::{generate, racks};

const FAT_TREE: &str = r#"
name = "workload"
duration = "DURATION"
[topology]
kind = "fat_tree"
k = 4
link_rate = "10Gbps"
link_delay = "1us"
[switch]
buffer = "300pkt"
queue = "ecn"
ecn_threshold = "65pkt"
[transport]
cc = "dctcp"
ecn = true
min_rto = "1ms"
"#;

fn scenario(duration: &str, traffic: &str) -> String {
    format!("{}\n{traffic}", FAT_TREE.replace("DURATION", duration))
}

/// Flows generated for a scenario, with the network they were generated on.
fn flows_of(text: &str) -> (Vec<FlowDef>, Network) {
    let sc = corral::scenario::load(text, &[], "test").unwrap_or_else(|e| panic!("{e}"));
    let net =
        Network::build(&sc.topology.build(), |_| QueueDisc::taildrop(BufferSize::Packets(100)));
    let routes = RouteTable::build(&net, false);
    (
        generate(
            &sc.traffic,
            sc.seed,
            sc.duration,
            &net,
            &routes,
            sc.base_dir.as_deref(),
            u64::MAX,
        )
        .unwrap_or_else(|e| panic!("{e}")),
        net,
    )
}

fn offered_load(flows: &[FlowDef], capacity_bps: f64, secs: f64) -> f64 {
    flows.iter().map(|f| f.size.unwrap() as f64 * 8.0).sum::<f64>() / (capacity_bps * secs)
}

// Tolerance 5 %: over 20 simulated seconds the web-search workload at load 0.5 on 16 x 10
// Gbps has ~117k flows; the size CV is ~1.9, so the offered load's standard error is ~0.6 %.
#[test]
fn all_to_all_offers_the_target_load() {
    let (flows, _) = flows_of(&scenario(
        "20s",
        "[[traffic]]\npattern = \"all_to_all\"\nsize = { cdf = \"websearch\" }\nload = 0.5\n",
    ));
    let load = offered_load(&flows, 16.0 * 10e9, 20.0);
    eprintln!("all_to_all websearch: {} flows, offered load {load:.4} (target 0.5)", flows.len());
    assert!((load / 0.5 - 1.0).abs() < 0.05, "offered load {load} with {} flows", flows.len());
    assert!(flows.len() > 100_000);
    assert!(flows.windows(2).all(|w| w[0].start <= w[1].start));
    assert!(flows.iter().all(|f| f.src != f.dst && f.start < Time::from_ms(20_000)));
}

// Exponential sizes over a 4-host subset (the subset's links set the capacity): ~30k flows
// in 20 s, standard error ~0.8 %; many-to-one: 200k fixed-size flows.
#[test]
fn subsets_and_many_to_one_use_their_own_capacity() {
    let text = scenario(
        "20s",
        "[[traffic]]\npattern = \"all_to_all\"\nhosts = [\"h0\", \"h5\", \"h9\", \"h14\"]\nsize = { kind = \"exponential\", mean = \"1MB\" }\nload = 0.3\n",
    );
    let (flows, _) = flows_of(&text);
    assert!(flows.iter().all(|f| [0, 5, 9, 14].contains(&f.src) && [0, 5, 9, 14].contains(&f.dst)));
    let load = offered_load(&flows, 4.0 * 10e9, 20.0);
    eprintln!("subset exponential: {} flows, offered load {load:.4} (target 0.3)", flows.len());
    assert!((load / 0.3 - 1.0).abs() < 0.05, "{load}");
    // Many-to-one: the one receiver's link is the shared capacity.
    let (flows, _) = flows_of(&scenario(
        "20s",
        "[[traffic]]\npattern = \"many_to_one\"\ndst = \"h3\"\nsize = \"100KB\"\nload = 0.8\n",
    ));
    assert!(flows.iter().all(|f| f.dst == 3 && f.src != 3));
    let load = offered_load(&flows, 10e9, 20.0);
    eprintln!(
        "many_to_one: {} flows, offered load {load:.4} of the receiver link (target 0.8)",
        flows.len()
    );
    assert!((load / 0.8 - 1.0).abs() < 0.05, "{load}");
}

// load_links: the offered bytes crossing the named core-facing links, with ECMP's equal
// split, equal the target fraction of their capacity.
#[test]
fn load_on_named_links() {
    let (flows, net) = flows_of(&scenario(
        "5s",
        "[[traffic]]\npattern = \"inter_rack\"\nsize = \"200KB\"\nload = 0.4\nload_links = [\"agg*:2\", \"agg*:3\"]\n",
    ));
    let rack = racks(&net);
    assert!(flows.iter().all(|f| rack[f.src as usize] != rack[f.dst as usize]));
    // Inter-rack in a k = 4 fat-tree: 1/3 of destinations are in the same pod (no core
    // link), 2/3 in another pod (one aggregation uplink each): 2/3 crossings per flow.
    let uplinks = 8.0 * 2.0 * 10e9;
    let crossing_bytes: f64 = flows
        .iter()
        .map(|f| f.size.unwrap() as f64 * if f.src / 4 != f.dst / 4 { 1.0 } else { 0.0 })
        .sum();
    let load = crossing_bytes * 8.0 / (uplinks * 5.0);
    eprintln!(
        "load_links: {} flows, offered load {load:.4} of the agg uplinks (target 0.4)",
        flows.len()
    );
    assert!((load / 0.4 - 1.0).abs() < 0.05, "{load}");
}

#[test]
fn incast_senders_start_together_at_the_interval() {
    let (flows, _) = flows_of(&scenario(
        "10ms",
        "[[traffic]]\npattern = \"incast\"\ndst = \"h0\"\nsenders = 8\nsize = \"20KB\"\ninterval = \"1ms\"\nstart = \"0.5ms\"\nclass = \"query\"\n",
    ));
    assert_eq!(flows.len(), 10 * 8);
    for (k, group) in flows.chunks(8).enumerate() {
        assert!(group.iter().all(|f| f.start == Time::from_us(500 + 1000 * k as u64)
            && f.dst == 0
            && f.size == Some(20_000)));
        let mut s: Vec<u32> = group.iter().map(|f| f.src).collect();
        s.sort_unstable();
        s.dedup();
        assert_eq!(s.len(), 8, "distinct senders");
        assert!(!s.contains(&0));
    }
    assert!(flows.iter().all(|f| f.class == "query" && f.block == Some(0)));
}

#[test]
fn flow_list_file_round_trips_with_attributes() {
    let dir = std::env::temp_dir().join(format!("corral-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = "src,dst,size,start,tenant,class,priority,weight,deadline\nh1,h6,15000,0.0001,t1,web,1,2.0,0.002\nh7,h2,3KB,50us,,,,,\nh3,h4,10,1s,,,,,\n";
    std::fs::write(dir.join("flows.csv"), csv).unwrap();
    let text = scenario("10ms", "[[traffic]]\npattern = \"trace\"\nfile = \"flows.csv\"\nclass = \"bulk\"\ndeadline = \"5ms\"\n");
    let path = dir.join("s.toml");
    std::fs::write(&path, &text).unwrap();
    let sc = corral::scenario::load(&text, &[], path.to_str().unwrap()).unwrap();
    let sim = corral::Simulation::new(sc).unwrap();
    let f: Vec<&FlowDef> = sim.flows.iter().map(|f| &*f.def).collect();
    assert_eq!(f.len(), 2, "the row starting after the run is skipped");
    // Sorted by start: the 50 us row first.
    assert_eq!((f[0].src, f[0].dst, f[0].size, f[0].start), (7, 2, Some(3000), Time::from_us(50)));
    assert_eq!((f[0].class.as_str(), f[0].deadline), ("bulk", Some(Time::from_us(5050))));
    assert_eq!(
        (f[1].src, f[1].dst, f[1].size, f[1].start),
        (1, 6, Some(15_000), Time::from_us(100))
    );
    assert_eq!(
        (f[1].tenant.as_str(), f[1].class.as_str(), f[1].priority, f[1].weight),
        ("t1", "web", 1, 2.0)
    );
    assert_eq!(f[1].deadline, Some(Time::from_us(2100)));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_traffic_blocks_name_the_key() {
    let err = |t: &str| match corral::scenario::load(&scenario("10ms", t), &[], "test")
        .and_then(corral::Simulation::new)
    {
        Ok(_) => panic!("accepted: {t}"),
        Err(e) => e.to_string(),
    };
    let e =
        err("[[traffic]]\npattern = \"all_to_all\"\nsize = { cdf = \"websearh\" }\nload = 0.5\n");
    assert!(e.starts_with("traffic[0].size.cdf: unknown workload \"websearh\""), "{e}");
    let e = err("[[traffic]]\npattern = \"all_to_all\"\nsize = \"1KB\"\nload = 1.5\n");
    assert!(e.starts_with("traffic[0].load: must be a fraction"), "{e}");
    let e = err("[[traffic]]\npattern = \"all_to_all\"\nsize = \"1KB\"\nload = 0\n");
    assert!(e.starts_with("traffic[0].load:"), "{e}");
    let e = err("[[traffic]]\npattern = \"many_to_one\"\nsize = \"1KB\"\nload = 0.5\n");
    assert!(e.starts_with("traffic[0].dst: required"), "{e}");
    let e = err("[[traffic]]\npattern = \"all_to_al\"\nsize = \"1KB\"\nload = 0.5\n");
    assert!(e.starts_with("traffic[0].pattern: unknown value") && e.contains("all_to_all"), "{e}");
    let e = err("[[traffic]]\npattern = \"all_to_all\"\nhosts = [\"h1\", \"h99\"]\nsize = \"1KB\"\nload = 0.5\n");
    assert!(e.starts_with("traffic[0].hosts[1]: unknown host \"h99\""), "{e}");
    let e = err("[[traffic]]\npattern = \"all_to_all\"\nsize = \"1KB\"\nload = 0.5\nload_links = [\"spine*:0\"]\n");
    assert!(e.starts_with("traffic[0].load_links[0]:") && e.contains("matches no port"), "{e}");
    let e = err("[[traffic]]\npattern = \"incast\"\nsize = \"1KB\"\nsenders = 16\ndst = \"h0\"\ninterval = \"1ms\"\n");
    assert!(e.starts_with("traffic[0].senders: 16 senders"), "{e}");
    let e = err("[[traffic]]\npattern = \"trace\"\nfile = \"/nonexistent/flows.csv\"\n");
    assert!(e.starts_with("traffic[0].file: cannot read"), "{e}");
    let e = err(
        "[[traffic]]\npattern = \"all_to_all\"\nsize = \"1KB\"\nrate = 1e8\nmax_flows = 1000\n",
    );
    assert!(e.starts_with("traffic[0].max_flows:"), "{e}");
    let e = err("[metrics]\nsize_buckets = [\"1MB\", \"100KB\"]\n");
    assert!(e.starts_with("metrics.size_buckets:"), "{e}");
}

fn col<'a>(t: &'a corral::metrics::Table, name: &str) -> &'a Column {
    t.column(name).unwrap_or_else(|| panic!("no column {name}"))
}

// A short web-search run: every finished flow's slowdown is at least 1 (the ideal FCT is a
// true lower bound), class series and latency samples are recorded, runs are repeatable.
#[test]
fn websearch_run_reports_fct_metrics() {
    let text = scenario(
        "20ms",
        r#"
[[traffic]]
pattern = "all_to_all"
size = { cdf = "websearch" }
load = 0.4
class = "web"
deadline = { kind = "exponential", mean = "5ms" }
[[traffic]]
pattern = "incast"
dst = "h0"
senders = 6
size = "10KB"
interval = "2ms"
class = "query"
tenant = "search"
[metrics]
latency_sample_every = 50
"#,
    );
    let sim = common::run(&text, &[]);
    let n = sim.flows.len();
    assert!(n > 80, "{n} flows");
    let t = sim.flows_table();
    let (Column::OptFloat(slow), Column::OptFloat(fct), Column::OptFloat(ideal)) =
        (col(&t, "slowdown"), col(&t, "fct_s"), col(&t, "ideal_fct_s"))
    else {
        panic!()
    };
    let finished = fct.iter().filter(|x| x.is_some()).count();
    assert!(finished > n / 2, "{finished} of {n} finished");
    for i in 0..n {
        assert!(ideal[i].is_some());
        if let Some(s) = slow[i] {
            assert!(s >= 1.0 - 1e-9, "flow {i}: slowdown {s}");
            assert!((s - fct[i].unwrap() / ideal[i].unwrap()).abs() < 1e-9);
        }
    }
    let Some(class) = col(&t, "class").texts() else { panic!() };
    assert!(class.contains(&"query") && class.contains(&"web"));
    let (Column::OptBool(met), Column::OptFloat(deadline)) =
        (col(&t, "deadline_met"), col(&t, "deadline_s"))
    else {
        panic!()
    };
    for i in 0..n {
        assert_eq!(deadline[i].is_some(), class[i] == "web", "only web flows have deadlines");
        assert!(!(met[i].is_some() && class[i] == "query"));
        if let (Some(d), Some(f)) = (deadline[i], fct[i]) {
            let Column::Float(start) = col(&t, "start_s") else { panic!() };
            assert_eq!(met[i], Some(start[i] + f <= d + 1e-12));
        }
    }
    // Per-class series: (2 classes + total) rows per 1 ms sample, none per flow.
    let c = sim.throughput_class_table();
    assert_eq!(c.rows(), 3 * 20);
    assert_eq!(sim.throughput_table().rows(), 0);
    let Column::Int(bytes) = col(&c, "bytes") else { panic!() };
    let Column::Str(cc) = col(&c, "class") else { panic!() };
    let total: i64 = bytes.iter().zip(cc).filter(|(_, c)| *c == "*").map(|(b, _)| b).sum();
    let delivered: u64 = sim.flows.iter().map(|f| f.receiver.delivered()).sum();
    assert_eq!(total as u64, delivered);
    let l = sim.latency_table();
    assert_eq!(l.rows() as u64, sim.counts.data_delivered / 50);
    let Column::Float(lat) = col(&l, "latency_s") else { panic!() };
    // At least the propagation delay of the shortest (same-rack, 2-link) path.
    assert!(lat.iter().all(|&x| x >= 2e-6), "{lat:?}");
    let s = sim.summary();
    assert_eq!(s["fct_by_size"].as_array().unwrap().len(), 3);
    assert!(s["fct_by_class"]["web"]["slowdown"]["p99"].as_f64().unwrap() >= 1.0);
    assert!(s["deadline_miss_ratio"].as_f64().is_some());
    // Repeatable.
    let again = common::run(&text, &[]);
    assert_eq!(again.flows_table(), t);
}

// 100k one-packet flows build and run with O(1) work per flow (counted in events, not wall
// time, which a loaded machine stretches) and bounded series.
#[test]
fn hundred_thousand_flows_run_with_constant_work_per_flow() {
    let text = scenario("12ms", "[[traffic]]\npattern = \"all_to_all\"\nsize = \"1KB\"\nload = 0.5\n[metrics]\ninterval = \"100us\"\n");
    let sim = common::run(&text, &[]);
    let n = sim.flows.len();
    assert!(n > 90_000, "{n}");
    let done = sim.flows.iter().filter(|f| f.finish.is_some()).count();
    assert!(done as f64 > 0.99 * n as f64, "{done} of {n}");
    assert_eq!(sim.throughput_class_table().rows(), 2 * 120);
    let per_flow = sim.events_processed() as f64 / n as f64;
    eprintln!("{n} one-packet flows: {per_flow:.1} events per flow");
    assert!(per_flow < EVENTS_PER_ONE_PACKET_FLOW, "{per_flow} events per flow");
    let _ = NodeKind::Host;
}

/// A one-packet flow crosses at most 6 links of a k=4 fat-tree, its ACK as many back: a
/// departure and an arrival per link each, and the flow's start and end.
const EVENTS_PER_ONE_PACKET_FLOW: f64 = 30.0;

/// What `flows` could send before `end`: each flow's size, or what `bps` carries from its
/// start to `end` if less.
fn offered_within(flows: &[FlowDef], bps: f64, end: f64) -> f64 {
    flows
        .iter()
        .map(|f| (f.size.unwrap() as f64 * 8.0).min(bps * (end - f.start.as_secs_f64()).max(0.0)))
        .sum()
}

// load_basis = "run": flows of 1-2 GB (0.8-1.6 s at 10 Gbps) on a k = 16 fat-tree (1,024
// hosts) over 2 s at load 0.5. Counting whole sizes, what the flows can send within the run
// is well below the load; counting what each can send before the run ends, it is the load
// within 5 % (some 1,200 flows: a standard error near 1.5 %); the sizes keep their
// distribution (mean within 5 %).
#[test]
fn load_basis_run_offers_the_load_within_the_run() {
    let traffic = "[[traffic]]\npattern = \"all_to_all\"\nsize = { kind = \"uniform\", min = \"1GB\", max = \"2GB\" }\nload = 0.5\n";
    let k8 = |t: &str| scenario("2s", t).replace("k = 4", "k = 16");
    let (by_size, _) = flows_of(&k8(traffic));
    let (by_run, _) = flows_of(&k8(&format!("{traffic}load_basis = \"run\"\n")));
    let capacity = 1024.0 * 10e9 * 2.0;
    let (size_load, run_load) = (
        offered_within(&by_size, 10e9, 2.0) / capacity,
        offered_within(&by_run, 10e9, 2.0) / capacity,
    );
    eprintln!(
        "{} / {} flows; within the run {size_load:.3} / {run_load:.3}",
        by_size.len(),
        by_run.len()
    );
    assert!(size_load < 0.4, "size basis {size_load}");
    assert!((run_load / 0.5 - 1.0).abs() < 0.05, "run basis {run_load}");
    let mean =
        |f: &[FlowDef]| f.iter().map(|f| f.size.unwrap() as f64).sum::<f64>() / f.len() as f64;
    assert!((mean(&by_run) / mean(&by_size) - 1.0).abs() < 0.05);
    let bad = corral::scenario::load(
        &scenario("2s", "[[traffic]]\npattern = \"all_to_all\"\nsize = \"1MB\"\nrate = 100.0\nload_basis = \"run\"\n"),
        &[],
        "t",
    );
    assert!(bad.err().unwrap().to_string().starts_with("traffic[0].load_basis"));
}

// A block's `stream` keeps its flows whatever other blocks the scenario keeps: block "c"
// drawn third (position 2) and alone with `stream = 2` gives the same arrivals, pairs and
// sizes; without it, alone it draws another sample. Two blocks on one stream are refused.
#[test]
fn a_block_keeps_its_flows_by_its_stream() {
    let block = |stream: &str, tag: &str| {
        format!("[[traffic]]\npattern = \"all_to_all\"\nsize = {{ cdf = \"websearch\" }}\nload = 0.2\ntag = \"{tag}\"\n{stream}\n")
    };
    let sample = |text: String, tag: &str| -> Vec<(u32, u32, Option<u64>, Time)> {
        let (flows, _) = flows_of(&scenario("50ms", &text));
        flows.iter().filter(|f| f.tag == tag).map(|f| (f.src, f.dst, f.size, f.start)).collect()
    };
    let three = format!(
        "{}{}{}",
        block("stream = 0", "a"),
        block("stream = 1", "b"),
        block("stream = 2", "c")
    );
    let kept = sample(three, "c");
    assert!(kept.len() > 100, "{} flows", kept.len());
    assert_eq!(
        sample(block("stream = 2", "c"), "c"),
        kept,
        "alone with its stream: the same flows"
    );
    assert_ne!(sample(block("", "c"), "c"), kept, "alone at position 0: another sample");
    let e = corral::scenario::load(
        &scenario("10ms", &format!("{}{}", block("stream = 1", "a"), block("", "b"))),
        &[],
        "test",
    )
    .and_then(corral::Simulation::new)
    .err()
    .expect("two blocks on stream 1")
    .to_string();
    assert!(e.starts_with("traffic[1].stream: block 0 already draws from stream 1"), "{e}");
}
