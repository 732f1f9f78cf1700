//! Determinism: a scenario and its seed fix every output; another seed changes the outcome
//! exactly where randomness enters (start jitter, permutation, spraying, ECMP hashing).

use crate::common;

use corral::units::Time;
use corral::Simulation;

/// Random in every place a seed reaches: a permutation pattern with start jitter, per-packet
/// spraying, host send jitter and port clock offsets, on a k=4 fat-tree with small buffers
/// (so there are drops to compare).
const RANDOM: &str = r#"
name = "determinism"
seed = 5
duration = "10ms"
[topology]
kind = "fat_tree"
k = 4
link_rate = "10Gbps"
[switch]
buffer = "30pkt"
[host]
send_jitter = "200ns"
[network]
clock_ppm = 100
[routing]
kind = "spray"
[transport]
cc = "newreno"
min_rto = "1ms"
[[flows]]
pattern = "permutation"
jitter = "100us"
[[flows]]
src = ["h4", "h8", "h12"]
dst = "h0"
size = "300KB"
jitter = "100us"
[metrics]
interval = "1ms"
queue_ports = ["tor0:0", "core0:0"]
queue_interval = "20us"
"#;

/// Everything a run reports, for comparison with `==`.
#[derive(Debug, PartialEq)]
struct Outputs {
    flows: corral::metrics::Table,
    drops: corral::metrics::Table,
    throughput: corral::metrics::Table,
    queues: corral::metrics::Table,
    ports: corral::metrics::Table,
    drop_runs: corral::metrics::Table,
    summary: serde_json::Value,
}

fn outputs(sim: &Simulation) -> Outputs {
    Outputs {
        flows: sim.flows_table(),
        drops: sim.drops_table(),
        throughput: sim.throughput_table(),
        queues: sim.queues_table(),
        ports: sim.ports_table(),
        drop_runs: sim.drop_runs_table(),
        summary: sim.summary(),
    }
}

fn run(text: &str, overrides: &[&str]) -> Outputs {
    outputs(&common::run(text, overrides))
}

// Tolerance: exact equality of every table and of the summary JSON (events, packet counts).
// The run must have drops and finished flows so that the comparison covers non-empty tables.
#[test]
fn same_seed_gives_identical_results() {
    let a = run(RANDOM, &[]);
    let b = run(RANDOM, &[]);
    assert!(a.drops.rows() > 0, "the scenario should drop packets");
    assert!(a.summary["packets_dropped"].as_u64().unwrap() > 0);
    assert_eq!(a.flows, b.flows, "flows_table");
    assert_eq!(a.drops, b.drops, "drops_table");
    assert_eq!(a.summary, b.summary, "summary");
    assert_eq!(a, b, "all outputs");
}

// Running in slices with run_until (as the Python layer does for progress reporting) must
// give the same results as one run() call. Tolerance: exact equality.
#[test]
fn running_in_slices_matches_one_run() {
    let whole = run(RANDOM, &[]);
    let mut sim = common::build(RANDOM, &[]);
    let mut t = Time::ZERO;
    while !sim.is_finished() {
        t = t + Time::from_us(337);
        sim.run_until(t);
    }
    common::assert_conserved(&sim);
    assert_eq!(whole, outputs(&sim));
}

fn flows_and_events(o: &Outputs) -> (&corral::metrics::Table, &serde_json::Value) {
    (&o.flows, &o.summary["events"])
}

// Another seed changes the flows table and the event count. Tolerance: the outputs must
// differ (any difference); conservation holds in both.
#[test]
fn different_seed_changes_a_random_scenario() {
    let a = run(RANDOM, &[]);
    let b = run(RANDOM, &["seed=6"]);
    assert_ne!(flows_and_events(&a), flows_and_events(&b));
    assert_ne!(a.drops, b.drops);
}

/// Explicit flows between pods, all starting at 0, no host jitter or clock offsets: the only
/// randomness left is in the routing policy.
fn fixed_flows(routing: &str, jitter: &str) -> String {
    format!(
        r#"
duration = "5ms"
[topology]
kind = "fat_tree"
k = 4
link_rate = "10Gbps"
[switch]
buffer = "30pkt"
[routing]
kind = "{routing}"
[transport]
min_rto = "1ms"
[[flows]]
src = ["h4", "h5", "h8", "h9", "h12", "h13"]
dst = ["h0", "h1", "h2", "h3", "h6", "h7"]
jitter = "{jitter}"
"#
    )
}

// Seeds reach exactly the random parts. Tolerance: exact (in)equality of the flows table and
// drops table:
// - static routing without jitter has no randomness: seeds 1 and 2 give identical tables;
// - spraying picks a random path per packet: the tables differ;
// - start jitter alone (static routing) makes the tables differ.
#[test]
fn seeds_reach_spray_and_jitter_only() {
    let tables = |routing: &str, jitter: &str, seed: &str| {
        let sim = common::run(&fixed_flows(routing, jitter), &[seed]);
        (sim.flows_table(), sim.drops_table())
    };
    assert_eq!(
        tables("static", "0s", "seed=1"),
        tables("static", "0s", "seed=2"),
        "static routing, no jitter"
    );
    assert_ne!(tables("spray", "0s", "seed=1"), tables("spray", "0s", "seed=2"), "spray");
    assert_ne!(
        tables("static", "50us", "seed=1"),
        tables("static", "50us", "seed=2"),
        "start jitter"
    );
}

// Equal-length routing and pacing keep runs deterministic. Tolerance: exact (in)equality:
// the random scenario with equal_length (random core) and pacing repeats exactly; with fixed
// flows and no jitter, seeds change the tables under core = "random" (a seeded choice per
// packet) and do not under core = "dest_bits" (no randomness left), paced or not.
#[test]
fn equal_length_and_pacing_are_deterministic_and_seeded() {
    let ov = ["routing.kind=equal_length", "transport.pacing=true"];
    assert_eq!(run(RANDOM, &ov), run(RANDOM, &ov), "equal_length + pacing, same seed");
    let tables = |core: &str, seed: &str| {
        let core = format!("routing.core={core}");
        let sim = common::run(
            &fixed_flows("equal_length", "0s"),
            &[seed, &core, "transport.pacing=true"],
        );
        (sim.flows_table(), sim.drops_table())
    };
    assert_eq!(tables("dest_bits", "seed=1"), tables("dest_bits", "seed=2"), "dest_bits");
    assert_ne!(tables("random", "seed=1"), tables("random", "seed=2"), "random core");
}
