//! Helpers shared by the scenario tests.
#![allow(dead_code)]

use corral::Simulation;

/// Loads a scenario from TOML text (with overrides), runs it to the end, checks packet and
/// byte conservation, and returns the finished simulation.
/// Overrides for the TCP of corral's releases before PRR and RACK-TLP became the defaults
/// (`TcpConfig::classic()`: no SACK, no limited transmit, NewReno recovery, no RACK-TLP), for
/// tests whose subject is not TCP's loss recovery and whose claims were measured with it.
pub const CLASSIC_TCP: [&str; 4] = [
    "transport.sack=false",
    "transport.limited_transmit=false",
    "transport.recovery=\"classic\"",
    "transport.rack=false",
];

pub fn run(text: &str, overrides: &[&str]) -> Simulation {
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let sc = corral::scenario::load(text, &ov, "test").unwrap_or_else(|e| panic!("scenario: {e}"));
    let mut sim = Simulation::new(sc).unwrap_or_else(|e| panic!("build: {e}"));
    sim.run();
    assert_conserved(&sim);
    sim
}

/// Every packet sent is delivered, dropped, or still queued / on a wire.
pub fn assert_conserved(sim: &Simulation) {
    let c = &sim.counts;
    assert_eq!(
        c.sent,
        c.delivered + c.dropped + sim.packets_in_flight(),
        "packet conservation: {c:?}"
    );
    assert!(c.sent_bytes >= c.delivered_bytes + c.dropped_bytes, "byte conservation: {c:?}");
}

/// Utilization of output port `node:port` over the run.
pub fn utilization(sim: &Simulation, spec: &str) -> f64 {
    let p = sim.net.port_by_name(spec).unwrap_or_else(|| panic!("no port {spec}"));
    let port = &sim.net.ports[p.idx()];
    port.stats.tx_bytes as f64 * 8.0 / (port.rate().bps() as f64 * sim.duration().as_secs_f64())
}

pub fn dumbbell(senders: u32, rate: &str, flows: usize, extra: &str) -> String {
    let srcs: Vec<String> = (0..flows).map(|i| format!("\"h{}\"", i % senders as usize)).collect();
    format!(
        r#"
name = "dumbbell"
duration = "100ms"
[topology]
kind = "dumbbell"
senders = {senders}
receivers = 1
link_rate = "{rate}"
link_delay = "5us"
[[flows]]
src = [{}]
dst = "h{senders}"
{extra}
"#,
        srcs.join(", ")
    )
}

/// Loads and builds a scenario without running it.
pub fn build(text: &str, overrides: &[&str]) -> Simulation {
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let sc = corral::scenario::load(text, &ov, "test").unwrap_or_else(|e| panic!("scenario: {e}"));
    Simulation::new(sc).unwrap_or_else(|e| panic!("build: {e}"))
}

/// The port statistics of `node:port`.
pub fn port_stats<'a>(sim: &'a Simulation, spec: &str) -> &'a corral::net::port::PortStats {
    let p = sim.net.port_by_name(spec).unwrap_or_else(|| panic!("no port {spec}"));
    &sim.net.ports[p.idx()].stats
}

/// Mean of the sampled queue length (packets, bytes) of `node:port`, over samples taken at or
/// after `from_s` seconds.
pub fn mean_queue(sim: &Simulation, spec: &str, from_s: f64) -> (f64, f64) {
    let p = sim.net.port_by_name(spec).unwrap_or_else(|| panic!("no port {spec}"));
    let q = &sim.metrics.queues;
    let (mut n, mut pk, mut by) = (0u64, 0u64, 0u64);
    for i in 0..q.time.len() {
        if q.port[i] == p && q.time[i].as_secs_f64() >= from_s {
            n += 1;
            pk += q.packets[i];
            by += q.bytes[i];
        }
    }
    assert!(n > 0, "no queue samples for {spec} after {from_s}s");
    (pk as f64 / n as f64, by as f64 / n as f64)
}

/// In-order bytes delivered to each flow's receiver.
pub fn delivered(sim: &Simulation) -> Vec<f64> {
    sim.flows.iter().map(|f| f.receiver.delivered() as f64).collect()
}

/// The shipped TCP Outcast Case I scenario (`python/corral/scenarios/outcast/case1_12.toml`:
/// one 2-hop and twelve 6-hop flows to h0 on a k = 4 fat-tree, 16 KB taildrop buffers), with
/// `seed`, a run of `duration`, and the `[switch]` line `queue = "taildrop"` replaced by
/// `switch` (TOML lines of the `[switch]` table, sub-tables allowed).
#[allow(dead_code)]
pub fn outcast_case1(seed: u64, duration: &str, switch: &str) -> String {
    const SHIPPED: &str =
        include_str!("../../../../../python/corral/scenarios/outcast/case1_12.toml");
    let text = SHIPPED
        .replacen("seed = 1\n", &format!("seed = {seed}\n"), 1)
        .replacen("duration = \"0.5s\"", &format!("duration = \"{duration}\""), 1)
        .replacen("queue = \"taildrop\"", switch, 1);
    assert!(
        text.contains(&format!("seed = {seed}\n")) && text.contains(duration),
        "case1_12.toml changed shape"
    );
    text
}

/// Web-search flows (Poisson) from 8 senders into h8 at `load` of its link, on a dumbbell of
/// 10 Gbps links of 10 us, seed 3, 400 ms; `switch` and `transport` are the bodies of those
/// tables and `traffic` more keys of the `[[traffic]]` block.
#[allow(dead_code)]
pub fn websearch_into_h8(load: f64, switch: &str, transport: &str, traffic: &str) -> String {
    format!(
        r#"
seed = 3
duration = "400ms"
[topology]
kind = "dumbbell"
senders = 8
receivers = 1
link_rate = "10Gbps"
link_delay = "10us"
[switch]
{switch}
[transport]
{transport}
[[traffic]]
pattern = "many_to_one"
dst = "h8"
size = {{ cdf = "websearch" }}
load = {load}
{traffic}
"#
    )
}
