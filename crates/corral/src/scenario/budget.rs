//! Refusing runaway work before it starts: an estimate of the peak memory of a `corral run`
//! process (the interpreter and its libraries, the network and its route table, the
//! `[[flows]]` flows, the sampled series as the engine holds them and again while they become
//! result tables), made from the scenario alone before anything is built, and checked against
//! a limit: by default half of this machine's memory (`/proc/meminfo`), or what
//! `--max-memory` / `max_memory` gives. Above it the run is refused with an error that names
//! the key driving the estimate (`flows[0].count`, `topology.senders`,
//! `metrics.queue_interval`, ...), or `--max-memory` when the limit is below what any run
//! needs. `[[traffic]]` blocks are checked where their arrival rate is known
//! ([`crate::workload::generate`]), against what this estimate leaves ([`flow_budget`]).
//! Once a run is built, [`crate::build::work`] refines the estimate with the flows it really
//! has. The per-item costs below are peak resident bytes measured on whole `corral run`
//! processes (`bench/memory_estimate.py` compares the estimate with measured peaks).

use super::Scenario;
use crate::error::{config_err, Result};
use crate::units::Time;

/// Bytes one flow costs, all structures counted (endpoints, definition, per-flow state).
pub const BYTES_PER_FLOW: u64 = 1200;
/// Bytes one flow's row costs at the peak of collecting results (the engine's table, the
/// buffers handed to Python, the polars frame, the Parquet writer): 28 columns.
pub const BYTES_PER_FLOW_ROW: u64 = 800;
/// Peak bytes of one row of `throughput.parquet` (4 columns) or `throughput_class.parquet`
/// (6), counted the same way.
pub const BYTES_PER_SAMPLE: u64 = 90;
/// Peak bytes of one row of `queues.parquet` (6 columns, the engine's sample too).
pub const BYTES_PER_QUEUE_SAMPLE: u64 = 230;
/// The `corral run` process before any scenario: the interpreter, polars and the core
/// (76 MB measured for a 20 ms two-flow dumbbell without plots, Python 3.11, polars 1.x).
pub const PROCESS_BYTES: u64 = 80_000_000;
/// Sampling events a run may schedule (each interval is an event even with no row).
const MAX_SAMPLE_EVENTS: u64 = 2_000_000_000;

/// One part of the estimate: the key that drives it, what it is, its bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub key: String,
    pub what: String,
    pub bytes: u64,
}

/// The parts of a scenario's memory estimate, largest first.
pub fn estimate(sc: &Scenario) -> Vec<Part> {
    let crate::net::topo::Size { nodes, ports, hosts, key: topo_key } = sc.topology.size();
    let mut parts = vec![
        Part {
            key: "--max-memory".into(),
            what: "the corral process itself (Python, polars, the core)".into(),
            bytes: PROCESS_BYTES,
        },
        // Per node ~200 B, per port ~300 B (with its drop-run table), the route table 12 B per
        // (node, host) plus its candidates, twice with path counts.
        Part {
            key: topo_key.into(),
            what: format!("a network of {nodes} nodes and {hosts} hosts with its route table"),
            bytes: nodes
                .saturating_mul(200)
                .saturating_add(ports.saturating_mul(300))
                .saturating_add(nodes.saturating_mul(hosts).saturating_mul(24)),
        },
    ];
    let duration = sc.duration.ps().max(1);
    let intervals = |every: Time| duration / every.ps().max(1) + 1;
    // A `[[flows]]` flow also has a goodput sample every metrics.interval; with more than a
    // million of them per flow, the interval is what drives the estimate.
    let per_flow = intervals(sc.metrics.interval);
    let samples = per_flow.saturating_mul(BYTES_PER_SAMPLE);
    for (i, f) in sc.flows.iter().enumerate() {
        let pairs = if f.pattern.is_some() {
            hosts
        } else {
            f.src
                .as_ref()
                .map_or(1, |s| s.names().len())
                .max(f.dst.as_ref().map_or(1, |d| d.names().len())) as u64
        };
        let n = pairs.saturating_mul(f.count as u64);
        let key = if per_flow > 1_000_000 {
            "metrics.interval".to_string()
        } else if f.count > 1 {
            format!("flows[{i}].count")
        } else if f.pattern.is_some() {
            format!("flows[{i}].pattern")
        } else {
            format!("flows[{i}].src")
        };
        parts.push(Part {
            key,
            what: format!("{n} flows with a goodput sample every {}", sc.metrics.interval),
            bytes: n.saturating_mul(BYTES_PER_FLOW + BYTES_PER_FLOW_ROW + samples),
        });
    }
    let qp = sc.metrics.queue_ports.len() as u64;
    parts.push(Part {
        key: "metrics.queue_interval".into(),
        what: format!("queue samples of {qp} ports every {}", sc.metrics.queue_interval),
        bytes: qp
            .saturating_mul(intervals(sc.metrics.queue_interval))
            .saturating_mul(BYTES_PER_QUEUE_SAMPLE),
    });
    parts.sort_by_key(|p| std::cmp::Reverse(p.bytes));
    parts
}

/// This machine's memory in bytes (`MemTotal` of /proc/meminfo; 8 GiB where unreadable).
pub fn machine_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(8 << 30, |kb| kb * 1024)
}

/// The memory limit: `limit`, or half of this machine's memory.
pub fn limit_or_default(limit: Option<u64>) -> u64 {
    limit.unwrap_or_else(|| machine_memory() / 2)
}

fn gb(bytes: u64) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}

fn limit_text(limit: Option<u64>) -> String {
    match limit {
        Some(l) => format!("the limit is {} (--max-memory)", gb(l)),
        None => format!(
            "the limit is {}, half of this machine's memory; --max-memory raises it",
            gb(limit_or_default(None))
        ),
    }
}

/// Refuses a scenario whose estimate exceeds the limit, or that samples so often that the
/// sampling alone is runaway work; the error names the key driving it.
pub fn check(sc: &Scenario, limit: Option<u64>) -> Result<()> {
    for (key, every, on) in [
        ("metrics.interval", sc.metrics.interval, true),
        ("metrics.queue_interval", sc.metrics.queue_interval, !sc.metrics.queue_ports.is_empty()),
    ] {
        let events = sc.duration.ps() / every.ps().max(1);
        if on && events > MAX_SAMPLE_EVENTS {
            return Err(config_err(key, format!("{every} over a run of {} is {events} samples, more than {MAX_SAMPLE_EVENTS}; sample less often", sc.duration)));
        }
    }
    check_parts(&estimate(sc), limit)
}

/// Refuses an estimate (its parts) above the limit, naming the key of its largest part, or
/// `--max-memory` when the limit is below what the process alone needs.
pub fn check_parts(parts: &[Part], limit: Option<u64>) -> Result<()> {
    let total: u64 = parts.iter().map(|p| p.bytes).fold(0, u64::saturating_add);
    let max = limit_or_default(limit);
    if let Some(l) = limit.filter(|&l| l < PROCESS_BYTES) {
        return Err(config_err(
            "--max-memory",
            format!(
                "{} is less than any run needs: the corral process alone takes about {}",
                size_text(l),
                size_text(PROCESS_BYTES)
            ),
        ));
    }
    if total > max {
        let top = parts.iter().max_by_key(|p| p.bytes).expect("parts are never empty");
        return Err(config_err(
            &top.key,
            format!(
                "the run would need about {} of memory, most of it ({}) for {}; {}",
                gb(total),
                gb(top.bytes),
                top.what,
                limit_text(limit)
            ),
        ));
    }
    Ok(())
}

fn size_text(bytes: u64) -> String {
    if bytes >= 1_000_000_000 {
        gb(bytes)
    } else if bytes >= 1_000_000 {
        format!("{:.0} MB", bytes as f64 / 1e6)
    } else {
        format!("{bytes} bytes")
    }
}

/// How many `[[traffic]]` flows still fit in the limit once the rest is counted.
pub fn flow_budget(sc: &Scenario, limit: Option<u64>) -> u64 {
    let used: u64 = estimate(sc).iter().map(|p| p.bytes).fold(0, u64::saturating_add);
    limit_or_default(limit).saturating_sub(used) / (BYTES_PER_FLOW + BYTES_PER_FLOW_ROW)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sc(text: &str) -> Scenario {
        super::super::load(text, &[], "t").unwrap()
    }

    const BASE: &str = "duration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nsenders = 2\nreceivers = 1\nlink_rate = \"1Gbps\"\n";

    #[test]
    fn a_small_scenario_passes_and_huge_ones_name_their_key() {
        assert!(check(&sc(BASE), Some(1 << 30)).is_ok());
        let e = check(&sc(&BASE.replace("senders = 2", "senders = 4000000000")), Some(1 << 34))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("topology.senders: the run would need about"), "{e}");
        let e = check(
            &sc(&format!("{BASE}[[flows]]\nsrc = \"h0\"\ndst = \"h2\"\ncount = 100000000\n")),
            Some(1 << 34),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("flows[0].count:") && e.contains("100000000 flows"), "{e}");
        let e = check(
            &sc(&format!("{BASE}[metrics]\nqueue_ports = [\"sw0:2\"]\nqueue_interval = \"1ps\"\n")),
            Some(1 << 34),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("metrics.queue_interval:"), "{e}");
        let e = check(
            &sc(&format!(
                "{BASE}[[flows]]\nsrc = \"h0\"\ndst = \"h2\"\n[metrics]\ninterval = \"1ns\"\n"
            )),
            Some(1 << 34),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("metrics.interval:"), "{e}");
        // a limit below what the process alone needs is the limit's fault, not a key's
        let e = check(&sc(BASE), Some(1000)).unwrap_err().to_string();
        assert!(e.starts_with("--max-memory: 1000 bytes is less than any run needs"), "{e}");
    }

    #[test]
    fn topology_sizes_match_the_builders() {
        for text in [
            "kind = \"fat_tree\"\nk = 8\nlink_rate = \"1Gbps\"",
            "kind = \"leaf_spine\"\nleaves = 3\nspines = 2\nhosts_per_leaf = 5\nhost_rate = \"1Gbps\"\nfabric_rate = \"1Gbps\"",
            "kind = \"three_tier\"\ncores = 2\naggs = 4\nedges = 4\nhosts_per_edge = 3\nhost_rate = \"1Gbps\"\nedge_rate = \"1Gbps\"\ncore_rate = \"1Gbps\"",
            "kind = \"dumbbell\"\nsenders = 3\nreceivers = 2\nlink_rate = \"1Gbps\"",
        ] {
            let t: crate::net::topo::TopologyConfig = crate::config::typed(toml::from_str(text).unwrap(), "topology").unwrap();
            let built = t.build();
            let size = t.size();
            assert_eq!((size.nodes, size.ports, size.hosts), (built.nodes.len() as u64, 2 * built.links.len() as u64, built.hosts.len() as u64), "{text}");
        }
    }
}
