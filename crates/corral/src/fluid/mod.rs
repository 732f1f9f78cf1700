//! Fluid (flow-level) simulation, `mode = "fluid"`: every active flow runs at its max-min
//! fair rate (R2C2, SIGCOMM 2015, section 3.3, computed by [`crate::alloc`]), recomputed
//! incrementally at every arrival and departure. Same topology, routing, flow expansion and
//! output tables as packet mode. Ignored: queues, loss, ECN, slow start and congestion
//! control dynamics, ACK traffic, propagation and serialization delay. Rates are payload
//! rates: a link of rate R carries `R * mss / (mss + header)` of payload, the share of a
//! full data packet's bits.
//!
//! Each flow's routing (its entry's, or `[routing]`) maps to usage fractions by the rules
//! packets follow ([`crate::route::usage`]): `ecmp` -> the flow's hashed single path (same
//! hash, same path), `static` -> the destination-bits path, `spray` and `flowcell` -> the per-hop uniform
//! split, `rps` -> uniform over minimal paths, `vlb`/`wlb` -> through intermediates. The
//! network and flows come from the same builder as packet mode ([`crate::build`]); a
//! `[scheme]` is ignored (every flow moves at its max-min rate).
//!
//! Event loop: the next event is the earliest of the next arrival, the next completion at the
//! current rates, the next `[[events]]` link-rate change, and the next throughput sample;
//! bytes advance linearly in between. Nothing is done per active flow at every event: a flow's
//! bytes are kept as of the last change of its rate (and computed on demand), its completion
//! waits in a heap, and after an update only the flows the allocator refilled are looked at
//! ([`Allocator::take_refilled`]). A flow has one live heap entry, at or before its
//! completion: a rate change that brings the completion forward queues a new entry (the old
//! one goes stale), one that puts it off leaves the entry, which is moved to the new time
//! when it reaches the top. Stale entries are cleared once they outnumber the active flows a
//! few times over.

use crate::alloc::{Allocator, Problem, ProblemFlow};
use crate::error::Result;
use crate::metrics::classes::{ClassSeries, ALL};
use crate::metrics::outcome::{self, FlowResult, Mode, PacketTotals, RunSummary};
use crate::metrics::{Column, Table};
use crate::net::Network;
use crate::route::usage::UsageBuilder;
use crate::route::Routing;
use crate::scenario::Scenario;
use crate::units::Time;
use crate::workload::flow::FlowDef;
use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;

/// The completion heap is cleared of stale entries once it holds more than `STALE_FACTOR`
/// entries per active flow plus `STALE_FLOOR`: amortized over the pushes in between, a
/// clearing costs a few operations per push.
const STALE_FACTOR: usize = 4;
/// See [`STALE_FACTOR`]; keeps runs with few active flows from clearing at every push.
const STALE_FLOOR: usize = 1024;

/// A fluid run.
pub struct FluidSim {
    pub scenario: Scenario,
    /// Payload share of a link's rate: mss / (mss + header).
    payload: f64,
    /// `[[events]]` link-rate changes in time order, and the next to apply.
    link_events: crate::build::LinkEvents,
    next_link_event: usize,
    pub net: Network,
    pub defs: Vec<FlowDef>,
    routing: Vec<Routing>,
    hops: Vec<u32>,
    /// Ideal FCT per sized flow (serialization at the access rate plus unloaded path delay),
    /// the same lower bound packet-level runs report.
    ideal: Vec<Option<Time>>,
    usage: Vec<Vec<(u32, f64)>>,
    /// Flows in order of start time.
    order: Vec<usize>,
    next_arrival: usize,
    alloc: Allocator,
    /// Per flow, its progress ([`Progress`]); and the flow of each allocator id.
    progress: Vec<Progress>,
    flow_of_slot: Vec<usize>,
    finish: Vec<Option<Time>>,
    /// Completions: (time in ps, flow), each active sized flow's live entry at or before
    /// its completion at the current rate, and stale entries (at most `STALE_FACTOR` times
    /// the active flows, plus `STALE_FLOOR`).
    completions: BinaryHeap<Reverse<(u64, u32)>>,
    /// Entries queued so far (for tests).
    pushes: u64,
    active: Vec<usize>,
    /// Position of each active flow in `active`.
    active_pos: Vec<usize>,
    now: Time,
    next_sample: Time,
    last_sample: Time,
    last_delivered: Vec<u64>,
    events: u64,
    tp_time: Vec<Time>,
    tp_flow: Vec<u32>,
    tp_bytes: Vec<u64>,
    tp_width: Vec<Time>,
    /// `[[traffic]]` class names (a flow's index into them is in its [`Progress`]).
    classes: Vec<String>,
    /// Payload bytes delivered per class (fractional; floored into `class_series`) by
    /// `class_anchor`, and the class's rate since.
    class_bytes: Vec<f64>,
    class_anchor: Vec<Time>,
    class_rate: Vec<f64>,
    class_series: ClassSeries,
    /// What the run was estimated to cost when built (memory, events).
    pub work: crate::build::work::Work,
}

/// What a rate change, a completion check and a sample read of a flow, in one cache line:
/// flows are many (90k on the k=16 fat-tree in 200 ms) and the moved ones scattered, so
/// arrays of their own would each cost a miss.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Progress {
    /// Bytes delivered (fractional) by `anchor`, since when the flow's rate has held.
    delivered: f64,
    anchor: Time,
    rate_bps: f64,
    /// The time of its live completion entry (`u64::MAX` for none): an entry at another time
    /// is stale.
    queued: u64,
    /// Its size (a copy of its definition's).
    size: Option<u64>,
    /// Its allocator id while active.
    slot: Option<u32>,
    /// Its class index (`None` for `[[flows]]` flows, which get per-flow throughput rows
    /// instead, as in packet mode).
    class: Option<u32>,
}

/// Bytes a flow with `d` bytes at `anchor`, rate `r` since and size `size` has delivered by `t`.
fn delivered_by(d: f64, r: f64, anchor: Time, size: Option<u64>, t: Time) -> f64 {
    let d = d + r * (t - anchor).as_secs_f64() / 8.0;
    size.map_or(d, |s| d.min(s as f64))
}

/// When a flow of `size` bytes with `d` delivered at `anchor`, at rate `r` since, finishes,
/// in ps (rounded up); never at rate 0 or without a size.
fn completion_at(size: Option<u64>, d: f64, r: f64, anchor: Time) -> Option<u64> {
    let size = size? as f64;
    if r <= 0.0 {
        return None;
    }
    let left = (size - d).max(0.0);
    // Rounded up without `f64::ceil`, a library call on the baseline x86-64 target: the same
    // value for every non-negative float (saturating past u64, 0 for NaN, as `ceil` then `as`).
    Some(anchor.0.saturating_add(ceil_ps(left * 8.0 / r * 1e12)))
}

/// `ps.ceil() as u64` for `ps >= 0`.
fn ceil_ps(ps: f64) -> u64 {
    let whole = ps as u64;
    whole.saturating_add(((whole as f64) < ps) as u64)
}

impl FluidSim {
    pub fn new(scenario: Scenario) -> Result<FluidSim> {
        let b = crate::build::build(&scenario, false, scenario.scheme.is_some())?;
        let work = crate::build::work::work(&scenario, &b, None);
        crate::scenario::budget::check_parts(&work.parts, scenario.memory_limit)?;
        let (net, routes) = (b.net, b.routes);
        let link_events = b.link_events;
        let routing: Vec<Routing> = b.flows.iter().map(|p| p.routing).collect();
        let hops = b.flows.iter().map(|p| p.hops).collect();
        let ideal = b.flows.iter().map(|p| p.ideal).collect();
        let progress: Vec<Progress> = b
            .flows
            .iter()
            .map(|p| Progress {
                delivered: 0.0,
                anchor: Time::ZERO,
                rate_bps: 0.0,
                queued: u64::MAX,
                size: p.def.size,
                slot: None,
                class: p.class,
            })
            .collect();
        let classes = b.classes;
        let defs: Vec<FlowDef> = b.flows.into_iter().map(|p| p.def).collect();
        let mut ub = UsageBuilder::new(&net, &routes, scenario.seed);
        let usage: Vec<Vec<(u32, f64)>> = defs
            .iter()
            .enumerate()
            .map(|(i, d)| ub.usage(routing[i], i as u32, d.src, d.dst))
            .collect();
        let tcp = &scenario.transport;
        let payload = tcp.mss as f64 / (tcp.mss + tcp.header) as f64;
        let capacity: Vec<f64> =
            net.ports.iter().map(|p| p.rate().bps() as f64 * payload).collect();
        let alloc = Allocator::new(Problem { capacity, headroom: 0.0, flows: Vec::new() })?;
        let mut order: Vec<usize> = (0..defs.len()).collect();
        order.sort_by_key(|&i| (defs[i].start, i));
        let n = defs.len();
        let first_sample = scenario.metrics.interval.min(scenario.duration);
        Ok(FluidSim {
            net,
            routing,
            hops,
            ideal,
            usage,
            order,
            next_arrival: 0,
            alloc,
            progress,
            flow_of_slot: Vec::new(),
            finish: vec![None; n],
            completions: BinaryHeap::new(),
            pushes: 0,
            active: Vec::new(),
            active_pos: vec![usize::MAX; n],
            now: Time::ZERO,
            next_sample: first_sample,
            last_sample: Time::ZERO,
            last_delivered: vec![0; n],
            events: 0,
            tp_time: Vec::new(),
            tp_flow: Vec::new(),
            tp_bytes: Vec::new(),
            tp_width: Vec::new(),
            class_bytes: vec![0.0; classes.len()],
            class_anchor: vec![Time::ZERO; classes.len()],
            class_rate: vec![0.0; classes.len()],
            class_series: ClassSeries::new(classes.len()),
            classes,
            work,
            defs,
            payload,
            link_events,
            next_link_event: 0,
            scenario,
        })
    }

    /// The usage fractions of flow `i` (directed link = port id).
    pub fn debug_usage(&self, i: usize) -> &[(u32, f64)] {
        &self.usage[i]
    }

    pub fn duration(&self) -> Time {
        self.scenario.duration
    }

    pub fn reached(&self) -> Time {
        self.now
    }

    pub fn events_processed(&self) -> u64 {
        self.events
    }

    pub fn is_finished(&self) -> bool {
        self.now >= self.scenario.duration
    }

    /// After allocator updates: the flows it refilled (all active flows after a solve from
    /// scratch) take their new rates.
    fn refresh_rates(&mut self) {
        let ids: Vec<usize> = match self.alloc.take_refilled() {
            Some(ids) => ids.into_iter().map(|id| self.flow_of_slot[id as usize]).collect(),
            None => self.active.clone(),
        };
        for i in ids {
            let Some(id) = self.progress[i].slot else { continue };
            let r = self.alloc.rate(id).unwrap_or(0.0);
            if r != self.progress[i].rate_bps {
                self.set_rate(i, r);
            }
        }
    }

    /// Bytes flow `i` has delivered by `t`.
    fn delivered_at(&self, i: usize, t: Time) -> f64 {
        let p = &self.progress[i];
        delivered_by(p.delivered, p.rate_bps, p.anchor, p.size, t)
    }

    /// Brings class `c`'s bytes up to now.
    fn settle_class(&mut self, c: usize) {
        self.class_bytes[c] +=
            self.class_rate[c] * (self.now - self.class_anchor[c]).as_secs_f64() / 8.0;
        self.class_anchor[c] = self.now;
    }

    /// Flow `i`'s rate becomes `r` now: its bytes (and its class's) are brought up to now,
    /// and a sized flow's completion at the new rate is queued if it is earlier than its
    /// live entry (which then goes stale).
    fn set_rate(&mut self, i: usize, r: f64) {
        let delivered = self.delivered_at(i, self.now);
        let p = &mut self.progress[i];
        (p.delivered, p.anchor) = (delivered, self.now);
        let (class, old) = (p.class, p.rate_bps);
        p.rate_bps = r;
        if let Some(c) = class {
            self.settle_class(c as usize);
            self.class_rate[c as usize] += r - old;
        }
        if let Some(at) = self.completion(i) {
            if at < self.progress[i].queued {
                self.progress[i].queued = at;
                self.pushes += 1;
                self.completions.push(Reverse((at, i as u32)));
                if self.completions.len() > STALE_FACTOR * self.active.len() + STALE_FLOOR {
                    self.drop_stale_completions();
                }
            }
        }
    }

    /// Drops the completion entries that later rate changes or the flow's end made stale.
    /// Without this the heap grows with every rate change (45k entries for 300 active flows
    /// on the bench's fluid case) and each push and pop walks a heap that no longer fits in
    /// cache. The live entries keep their order.
    fn drop_stale_completions(&mut self) {
        let progress = &self.progress;
        self.completions.retain(|&Reverse((at, i))| {
            at == progress[i as usize].queued && progress[i as usize].slot.is_some()
        });
    }

    /// When flow `i` finishes at its current rate, in ps: its anchor plus the time its bytes
    /// left take (rounded up).
    fn completion(&self, i: usize) -> Option<u64> {
        let p = &self.progress[i];
        completion_at(p.size, p.delivered, p.rate_bps, p.anchor)
    }

    /// The next completion at the current rates, and its flow: stale entries are dropped,
    /// and a live entry found early moves to its flow's completion.
    fn next_completion(&mut self) -> Option<(Time, usize)> {
        while let Some(mut top) = self.completions.peek_mut() {
            let Reverse((at, i)) = *top;
            let fi = i as usize;
            if at != self.progress[fi].queued || self.progress[fi].slot.is_none() {
                PeekMut::pop(top);
                continue;
            }
            let p = &self.progress[fi];
            match completion_at(p.size, p.delivered, p.rate_bps, p.anchor) {
                Some(c) if c == at => return Some((Time(at), fi)),
                Some(c) => {
                    // Put off since it was queued: one sift down, in place.
                    self.progress[fi].queued = c;
                    *top = Reverse((c, i));
                }
                None => {
                    self.progress[fi].queued = u64::MAX;
                    PeekMut::pop(top);
                }
            }
        }
        None
    }

    /// Every active flow's and class's bytes brought up to now (for the result tables).
    fn settle_all(&mut self) {
        for k in 0..self.active.len() {
            let i = self.active[k];
            self.progress[i].delivered = self.delivered_at(i, self.now);
            self.progress[i].anchor = self.now;
        }
        for c in 0..self.class_bytes.len() {
            self.settle_class(c);
        }
    }

    pub fn run_until(&mut self, until: Time) {
        let until = until.min(self.scenario.duration);
        while self.now < until {
            let arrival = self.order.get(self.next_arrival).map(|&i| self.defs[i].start);
            let completion = self.next_completion();
            let mut t = until.min(self.next_sample);
            if let Some(a) = arrival {
                t = t.min(a);
            }
            if let Some(e) = self.link_events.get(self.next_link_event) {
                t = t.min(e.0);
            }
            if let Some((c, _)) = completion {
                t = t.min(c);
            }
            self.now = t;
            let mut changed = false;
            // Completions at t.
            while let Some((at, i)) = self.next_completion() {
                if at > t {
                    break;
                }
                self.completions.pop();
                self.set_rate(i, 0.0);
                self.progress[i].delivered =
                    self.progress[i].size.expect("only sized flows complete") as f64;
                self.finish[i] = Some(t);
                let id = self.progress[i].slot.take().expect("active");
                self.alloc.remove_flow(id).expect("live flow");
                let pos = self.active_pos[i];
                self.active.swap_remove(pos);
                if let Some(&moved) = self.active.get(pos) {
                    self.active_pos[moved] = pos;
                }
                if let Some(c) = self.progress[i].class {
                    self.class_series.active[c as usize] -= 1;
                    self.class_series.finished(i as u32);
                }
                self.events += 1;
                changed = true;
            }
            while let Some((at, change)) = self.link_events.get(self.next_link_event) {
                if *at > t {
                    break;
                }
                // The build refuses state changes in fluid mode.
                if let crate::build::LinkChange::Rate(ports) = change {
                    for &(p, rate) in ports {
                        self.alloc
                            .set_capacity(p.0, rate.bps() as f64 * self.payload)
                            .expect("a port of the network");
                    }
                }
                self.next_link_event += 1;
                self.events += 1;
                changed = true;
            }
            while let Some(&i) = self.order.get(self.next_arrival) {
                if self.defs[i].start > t {
                    break;
                }
                self.next_arrival += 1;
                let d = &self.defs[i];
                let spec = ProblemFlow {
                    weight: d.weight,
                    priority: d.priority,
                    demand: f64::INFINITY,
                    usage: self.usage[i].clone(),
                };
                let id = self.alloc.add_flow(spec).expect("usage from the topology");
                self.progress[i].slot = Some(id);
                if self.flow_of_slot.len() <= id as usize {
                    self.flow_of_slot.resize(id as usize + 1, usize::MAX);
                }
                self.flow_of_slot[id as usize] = i;
                self.progress[i].anchor = t;
                self.active_pos[i] = self.active.len();
                self.active.push(i);
                if let Some(c) = self.progress[i].class {
                    self.class_series.active[c as usize] += 1;
                    self.class_series.started(i as u32);
                }
                self.events += 1;
                changed = true;
            }
            if changed {
                self.refresh_rates();
            }
            if t >= self.next_sample {
                self.sample();
            }
        }
        self.settle_all();
    }

    pub fn run(&mut self) {
        self.run_until(self.scenario.duration);
    }

    fn sample(&mut self) {
        let now = self.now;
        let interval = self.scenario.metrics.interval;
        let width = now - self.last_sample;
        self.last_sample = now;
        // `[[flows]]` flows get a row each (they come first in `defs`); `[[traffic]]` flows
        // are summed per class.
        for i in 0..self.defs.len() {
            if self.progress[i].class.is_some() {
                break;
            }
            if self.defs[i].start >= now {
                continue;
            }
            let delivered = self.delivered_at(i, now) as u64;
            let last = self.last_delivered[i];
            let finished_earlier =
                self.finish[i].is_some_and(|t| t + interval < now) && delivered == last;
            if !finished_earlier {
                self.tp_time.push(now);
                self.tp_flow.push(i as u32);
                self.tp_bytes.push(delivered - last);
                self.tp_width.push(width);
            }
            self.last_delivered[i] = delivered;
        }
        for c in 0..self.class_bytes.len() {
            self.settle_class(c);
            self.class_series.delivered[c] = self.class_bytes[c].floor() as u64;
        }
        let progress = &self.progress;
        self.class_series.sample(now, width, |f| {
            let p = &progress[f as usize];
            delivered_by(p.delivered, p.rate_bps, p.anchor, p.size, now) as u64
        });
        self.next_sample = (now + interval).min(self.scenario.duration);
        if self.next_sample <= now {
            self.next_sample = Time::MAX;
        }
    }

    /// Each flow's outcome ([`FlowResult`]), in flow order: no packet counters.
    fn flow_results(&self) -> Vec<FlowResult<'_>> {
        (0..self.defs.len())
            .map(|i| FlowResult {
                def: &self.defs[i],
                transport: "fluid",
                cc: "fluid",
                routing: self.routing[i].name(),
                hops: self.hops[i],
                finish: self.finish[i],
                delivered: self.progress[i].delivered as u64,
                ideal: self.ideal[i],
                counters: None,
            })
            .collect()
    }

    /// flows.parquet, with packet counters 0.
    pub fn flows_table(&self) -> Table {
        let hosts: Vec<String> =
            self.net.hosts.iter().map(|h| self.net.nodes[h.idx()].name.clone()).collect();
        outcome::flows_table(&self.flow_results(), &hosts, self.now)
    }

    pub fn throughput_table(&self) -> Table {
        Table::default()
            .with("time_s", Column::Float(self.tp_time.iter().map(|t| t.as_secs_f64()).collect()))
            .with("flow_id", Column::Int(self.tp_flow.iter().map(|&f| f as i64).collect()))
            .with("bytes", Column::Int(self.tp_bytes.iter().map(|&b| b as i64).collect()))
            .with("goodput_bps", Column::goodput_bps(&self.tp_bytes, &self.tp_width))
            // A fluid flow neither loses nor reorders: every byte arrives in order.
            .with("arrived_bytes", Column::Int(self.tp_bytes.iter().map(|&b| b as i64).collect()))
            .check("throughput")
    }

    /// Aggregate (`class` = "*") and per-class goodput of `[[traffic]]` flows, the columns of
    /// packet mode's table.
    pub fn throughput_class_table(&self) -> Table {
        let s = &self.class_series;
        let name =
            |c: u32| if c == ALL { "*".to_string() } else { self.classes[c as usize].clone() };
        Table::default()
            .with("time_s", Column::Float(s.time.iter().map(|t| t.as_secs_f64()).collect()))
            .with("class", Column::Str(s.class.iter().map(|&c| name(c)).collect()))
            .with("bytes", Column::Int(s.bytes.iter().map(|&b| b as i64).collect()))
            .with("goodput_bps", Column::goodput_bps(&s.bytes, &s.width))
            .with("active_flows", Column::Int(s.active_flows.iter().map(|&a| a as i64).collect()))
            .with("jain", Column::OptFloat(s.jain.clone()))
            .check("throughput_class")
    }

    /// summary.json as JSON ([`Self::run_summary`] serialized).
    pub fn summary(&self) -> serde_json::Value {
        self.run_summary().to_json()
    }

    /// summary.json (see [`RunSummary`]): no packets; the bytes sent are those delivered.
    pub fn run_summary(&self) -> RunSummary {
        let flows = self.flow_results();
        let bytes: u64 = flows.iter().map(|f| f.delivered).sum();
        let bounds: Vec<u64> = self.scenario.metrics.size_buckets.iter().map(|b| b.0).collect();
        RunSummary {
            scenario: self.scenario.name.clone(),
            seed: self.scenario.seed,
            corral_version: crate::VERSION,
            mode: Mode::Fluid,
            sim_time_s: self.now.as_secs_f64(),
            events: self.events,
            flows: flows.len(),
            totals: PacketTotals {
                bytes_sent: bytes,
                bytes_delivered: bytes,
                ..PacketTotals::default()
            },
            jain_index: outcome::jain(&flows, self.now),
            jain_index_windows: None,
            fct: outcome::fct_sections(&flows, &bounds, self.now),
            scheme: None,
            scheme_ignored: self
                .scenario
                .scheme
                .as_ref()
                .and_then(|s| s.get("kind"))
                .and_then(|k| k.as_str())
                .map(str::to_string),
            control: None,
            packets_lost_link_down: None,
            packets_lost_no_route: None,
            rpc: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// k=4 fat-tree, web-search sizes at load 0.6: flows overlap, so rates change often.
    const BUSY: &str = r#"
name = "busy"
seed = 3
duration = "300ms"
mode = "fluid"
[topology]
kind = "fat_tree"
k = 4
link_rate = "10Gbps"
[routing]
kind = "ecmp"
[[traffic]]
pattern = "all_to_all"
size = { cdf = "websearch" }
load = 0.6
"#;

    /// Runs `BUSY` in 1 ms steps, clearing stale completions after every step when
    /// `clear_each_step`; returns the run and the most entries the heap held after a step.
    fn stepped(clear_each_step: bool) -> (FluidSim, usize) {
        let mut f = FluidSim::new(crate::scenario::load(BUSY, &[], "t").unwrap()).unwrap();
        let mut most = 0;
        let mut t = Time::ZERO;
        while t < f.duration() {
            t = t + Time::from_ms(1);
            f.run_until(t);
            assert!(
                f.completions.len() <= STALE_FACTOR * f.active.len() + STALE_FLOOR,
                "{} entries for {} active flows",
                f.completions.len(),
                f.active.len()
            );
            most = most.max(f.completions.len());
            if clear_each_step {
                f.drop_stale_completions();
            }
        }
        (f, most)
    }

    #[test]
    fn a_later_completion_queues_nothing_and_the_early_entry_moves_when_it_surfaces() {
        // 1 Gbps dumbbell (payload c bytes/s): flow 0, 10 MB from 0; flow 1, 1 MB from 1 ms.
        // Flow 1 halves flow 0's rate until it ends, after 2 MB / c; then flow 0 runs alone
        // again and ends at 11 MB / c. The cut queues nothing: flow 0's entry (10 MB / c)
        // stays until it is the earliest left, once flow 1 has ended, and then moves to the
        // completion at half rate; the speed-up then queues an earlier one. Three entries, where
        // queueing at every change would make four.
        let text = r#"
duration = "1s"
mode = "fluid"
[topology]
kind = "dumbbell"
senders = 2
receivers = 1
link_rate = "1Gbps"
[[flows]]
src = "h0"
dst = "h2"
size = "10MB"
[[flows]]
src = "h1"
dst = "h2"
size = "1MB"
start = "1ms"
"#;
        let mut f = FluidSim::new(crate::scenario::load(text, &[], "t").unwrap()).unwrap();
        f.run();
        let c = 1e9 * 1460.0 / 1500.0 / 8.0;
        let fct = |i: usize| (f.finish[i].unwrap() - f.defs[i].start).as_secs_f64();
        assert!((fct(1) - 2e6 / c).abs() < 1e-9, "{}", fct(1));
        assert!((fct(0) - 11e6 / c).abs() < 1e-9, "{}", fct(0));
        assert_eq!(f.pushes, 3);
    }

    #[test]
    fn completions_round_up_as_ceil_does() {
        for ps in [
            0.0,
            0.25,
            1.0,
            1.5,
            2f64.powi(52) + 0.5,
            2f64.powi(53),
            2f64.powi(63) * 1.5,
            1e30,
            f64::INFINITY,
            f64::NAN,
        ] {
            assert_eq!(super::ceil_ps(ps), ps.ceil() as u64, "{ps}");
        }
    }

    #[test]
    fn stale_completions_are_cleared_without_changing_the_run() {
        let (f, most) = stepped(false);
        // Without the clearing, the heap would have held several times the most it did.
        let finished = f.finish.iter().flatten().count();
        assert!(finished > 100, "{finished} flows finished");
        assert!(f.pushes > 3 * most as u64, "{} pushes, at most {most} entries", f.pushes);
        // Clearing at other moments pops the same completions in the same order.
        let (g, _) = stepped(true);
        assert_eq!(f.finish, g.finish);
        let delivered = |x: &FluidSim| x.progress.iter().map(|p| p.delivered).collect::<Vec<_>>();
        assert_eq!(delivered(&f), delivered(&g));
    }
}
