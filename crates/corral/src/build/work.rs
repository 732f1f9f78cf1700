//! What a built run will cost, told before it runs: its peak memory (the parts of
//! [`crate::scenario::budget`], now with the flows the run really has, `[[traffic]]` flows
//! and their per-class series included) and the events it will process, from which the
//! command line tells a user up front that a run will take long.
//!
//! The event estimate follows the bytes the run can move: each flow offers its size, or its
//! host link's rate over the rest of the run if unbounded; what arrives at (leaves) a host is
//! capped by that host's link rate over the run. Each MSS-sized segment of it costs
//! `EVENTS_PER_PACKET_HOP` events on every link of its path and its ACKs the same again.
//! Fluid mode processes two events per flow (arrival and departure) and its rate updates.
//! The constants are fitted to measured runs (`bench/memory_estimate.py` prints estimate
//! against measured); the estimate is meant to be within a factor of a few, enough to warn.

use super::Built;
use crate::scenario::budget::{self, Part};
use crate::scenario::{Mode, Scenario};

/// Events per data segment per link it crosses, its ACK's share included (departure at each
/// port, arrival at each node, the sender's and receiver's work).
pub const EVENTS_PER_PACKET_HOP: f64 = 3.0;

/// The estimates of a built run.
#[derive(Clone, Debug, PartialEq)]
pub struct Work {
    /// Peak memory of the `corral run` process, by part, largest first.
    pub parts: Vec<Part>,
    /// Events the run is expected to process.
    pub events: u64,
}

impl Work {
    pub fn memory(&self) -> u64 {
        self.parts.iter().map(|p| p.bytes).fold(0, u64::saturating_add)
    }
}

/// A cooperative scheme's share of a run's estimates: extra peak bytes and extra events (its
/// per-node state and control messages). The caller asks the scheme for it
/// (`crate::schemes::Scheme::estimate`, with [`active_flows`]) and hands it in as data:
/// `build` sits below `schemes` and does not call them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchemeShare {
    pub bytes: u64,
    pub events: u64,
}

/// The estimates of the run `b` built from `sc`, with the share of its scheme if it has one.
pub fn work(sc: &Scenario, b: &Built, scheme: Option<SchemeShare>) -> Work {
    let mut parts = budget::estimate(sc);
    let cycles: Vec<f64> = b.rpc.iter().map(|r| rpc_cycles(sc, b, r)).collect();
    let mut events = events(sc, b, &cycles);
    if let Some(share) = scheme {
        events = events.saturating_add(share.events);
        parts.push(Part {
            key: "scheme".into(),
            what: "the scheme's per-node state and control messages".into(),
            bytes: share.bytes,
        });
    }
    let rpc_flows: u64 = cycles.iter().map(|c| (2.0 * c) as u64).sum();
    let traffic = (b.flows.len() - b.explicit) as u64 + rpc_flows;
    if traffic > 0 {
        let intervals = sc.duration.ps() / sc.metrics.interval.ps().max(1) + 1;
        // one series per class and one for all classes together
        let series = (b.classes.len() as u64 + 1).saturating_mul(intervals);
        parts.push(Part {
            key: "traffic".into(),
            what: format!(
                "{traffic} [[traffic]] and [[rpc]] flows and {} class series",
                b.classes.len()
            ),
            bytes: traffic
                .saturating_mul(budget::BYTES_PER_FLOW + budget::BYTES_PER_FLOW_ROW)
                .saturating_add(series.saturating_mul(budget::BYTES_PER_SAMPLE)),
        });
    }
    parts.sort_by_key(|p| std::cmp::Reverse(p.bytes));
    Work { parts, events }
}

/// How many flows are live at once on average: each flow's life taken as three times its
/// ideal completion time (the rest of the run if unbounded), cut at the run's end.
pub fn active_flows(sc: &Scenario, b: &Built) -> f64 {
    let end = sc.duration.ps() as f64;
    let lives: f64 = b
        .flows
        .iter()
        .map(|f| {
            let left = (end - f.def.start.ps() as f64).max(0.0);
            f.ideal.map_or(left, |t| (3.0 * t.ps() as f64).min(left))
        })
        .sum();
    lives / end.max(1.0)
}

/// The events the run is expected to process (module doc); `cycles` are the request-response
/// cycles of each `[[rpc]]` block.
fn events(sc: &Scenario, b: &Built, cycles: &[f64]) -> u64 {
    let every = |t: crate::units::Time| sc.duration.ps() / t.ps().max(1);
    let samples = every(sc.metrics.interval)
        + if sc.metrics.queue_ports.is_empty() { 0 } else { every(sc.metrics.queue_interval) };
    if sc.mode == Mode::Fluid {
        return 2 * b.flows.len() as u64 + samples;
    }
    let end = sc.duration.ps() as f64 / 1e12;
    let hosts = b.net.hosts.len();
    let host_rate = |h: u32| b.net.ports[b.net.host_port(h).idx()].rate().bps() as f64 / 8.0;
    let (mut sent, mut received) = (vec![0.0f64; hosts], vec![0.0f64; hosts]);
    let mut hop_bytes = 0.0;
    for f in &b.flows {
        let left = (end - f.def.start.ps() as f64 / 1e12).max(0.0);
        let can = host_rate(f.def.src) * left;
        let bytes = f.def.size.map_or(can, |s| (s as f64).min(can));
        sent[f.def.src as usize] += bytes;
        received[f.def.dst as usize] += bytes;
        hop_bytes += bytes * f.hops.max(1) as f64;
    }
    // Closed-loop sessions: each pair requests and answers once per think time (at most).
    for (r, &c) in b.rpc.iter().zip(cycles) {
        let bytes = c * (r.request.mean() + r.response.mean());
        for (&c, &s) in r.clients.iter().zip(r.servers.iter().cycle()) {
            let share = bytes / r.clients.len().max(1) as f64;
            sent[c as usize] += share / 2.0;
            received[s as usize] += share / 2.0;
            sent[s as usize] += share / 2.0;
            received[c as usize] += share / 2.0;
        }
        hop_bytes += bytes * RPC_HOPS;
    }
    let offered: f64 = sent.iter().sum();
    if offered <= 0.0 {
        return samples;
    }
    let cap = |v: &[f64]| {
        v.iter().enumerate().map(|(h, &x)| x.min(host_rate(h as u32) * end)).sum::<f64>()
    };
    let moved = cap(&sent).min(cap(&received));
    let segments_hops = hop_bytes * (moved / offered) / sc.transport.mss.max(1) as f64;
    (segments_hops * EVENTS_PER_PACKET_HOP) as u64 + samples
}

/// Request-response cycles of closed-loop block `r`: each session asks once per think time
/// (at most), and its answers (server to client) get the max-min fair share of the network
/// that such a demand can have (the allocator of [`crate::alloc`] over the sessions' paths),
/// within the block's flow limit.
fn rpc_cycles(sc: &Scenario, b: &Built, r: &crate::workload::rpc::RpcBlock) -> f64 {
    let span = (r.stop.ps() as f64 - r.spec.start.ps() as f64).max(0.0) / 1e12;
    let think = (r.spec.think.mean().ps() as f64 / 1e12).max(1e-6);
    let answer = r.response.mean().max(1.0);
    if r.servers.is_empty() || r.clients.is_empty() || span <= 0.0 {
        return 0.0;
    }
    let routing = r.spec.routing.unwrap_or(sc.routing.routing);
    let mut usage = crate::route::usage::UsageBuilder::new(&b.net, &b.routes, sc.seed);
    let flows = (0..r.spec.pairs as usize)
        .map(|k| {
            let (server, client) = (r.servers[k % r.servers.len()], r.clients[k % r.clients.len()]);
            let mut f =
                crate::alloc::ProblemFlow::new(usage.usage(routing, k as u32, server, client));
            f.demand = answer / think;
            f
        })
        .filter(|f| !f.usage.is_empty())
        .collect();
    let capacity = b.net.ports.iter().map(|p| p.rate().bps() as f64 / 8.0).collect();
    let problem = crate::alloc::Problem { capacity, headroom: 0.0, flows };
    let carried: f64 =
        crate::alloc::waterfill::solve(&problem).map_or(0.0, |a| a.rate.iter().sum());
    (carried * span / answer).min(r.spec.max_flows as f64 / 2.0)
}

/// Links on the path of a closed-loop session's flow, taken as a typical host-to-host path
/// (their flows are made while the run goes, so their paths are not known when it is built).
const RPC_HOPS: f64 = 4.0;
