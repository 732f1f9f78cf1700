//! R2C2 (Costa et al., SIGCOMM 2015): congestion control for rack-scale computers by
//! broadcast. Every rack node (a torus switch and its host) learns each flow's start, finish,
//! demand and routing changes from 16-byte broadcasts ([`event`]) down per-source BFS trees
//! ([`crate::ctrl::tree`]), keeps its own view of the rack's traffic matrix ([`view`]), and
//! every `interval` (rho) computes weighted max-min rates on that view with a headroom kept
//! free on every link ([`crate::alloc`], section 3.3), then sets the token-bucket rate of
//! its own flows. Each flow's weight on a link is its weight times the share of its packets
//! its routing protocol puts there ([`weights`]).
//!
//! Choices the paper leaves open (settings; docs/schemes/r2c2.md):
//! - What a new flow sends before the first recomputation after its start (`first_rate`).
//!   The paper's final design recomputes rates only periodically (section 3.3.2, "Periodic
//!   rate computation"): "while a flow startup event is broadcasted to all other nodes, the
//!   sender starts transmitting packets immediately" ("New flows"), and batching "naturally
//!   filters out very short-lived flows, which would be pointless to rate-limit". So a new
//!   flow is not rate-limited until the next epoch; the headroom absorbs it. The paper's
//!   nodes inject straight onto their torus links (it gives no host link), so an unlimited
//!   flow leaves as fast as the links its routing protocol spreads it over carry it. The
//!   default, "spread", sends a new flow at that rate: the largest rate at which no link of
//!   its routing's paths (and its access link) would carry more than its capacity, the
//!   flow's max-min rate on an empty rack. It is not an allocation: demand estimation treats
//!   it as the rate sent, and the first epoch sets the flow's allocation. Other readings, as
//!   settings: "line" sends at the access-link rate (the host link, our choice of rate);
//!   "local" computes the flow's fair share on its source's view at once (the strawman's
//!   "life of a flow", section 3.1, which recomputes at every flow event); "size" is "line"
//!   for a flow that would end within one interval at that rate and "local" for the others.
//! - Epochs are aligned: every node recomputes at multiples of `interval`. Nodes with equal
//!   views share one computation (the result is the same).
//! - A flow's events all travel on tree `seq mod trees` of its source, so that they arrive in
//!   order; a dropped broadcast is re-sent with the flow's current state `resend_after` later
//!   (at once would meet the same full queue).
//! - Demand (section 3.3.2): every interval, d = r + q/T with T = `interval`, q the sender's
//!   unsent bytes (wire bytes), smoothed by an EWMA of weight `demand_ewma`; it is announced
//!   when it is below the flow's allocation and moved by more than `demand_change` since the
//!   last announcement (or rose that much above it).
//! - Routing search (section 3.4, `routing_search = true`): every `search_every` the node of
//!   host 0 runs the genetic algorithm of [`ga`] over the long flows of its view (RPS or VLB
//!   each; fitness: the aggregate max-min throughput; the first population also holds
//!   all-RPS and all-VLB) and, if the best assignment's predicted throughput beats the
//!   current one's by `search_gain` (the paper's "significant improvement"), broadcasts the
//!   changes, 5 bytes per flow (up to 300 in one message); each source then switches its
//!   flows' routing.
//! - `control = "centralized"`, the paper's comparison in Fig. 19: events go by unicast to
//!   one controller node, which recomputes the whole rack's rates on every event it hears
//!   (`central_batch = false`, default: the paper's controller answers each event) or every
//!   interval. Its rates go out as the paper's Fig. 19 describes ("sends to each rack node
//!   sourcing a flow a different rate message with all the new rates for its own flows"):
//!   after every computation, one message to every node with active flows, `rate_header` +
//!   `rate_entry` bytes per flow (`rate_messages = "per_node"`, default); or one message per
//!   changed rate, `rate_bytes` each (`"changed"`).

pub mod event;
pub mod ga;
pub mod view;
pub mod weights;

use super::{Ctx, Scheme, SchemeTransport};
use crate::alloc::{solve_validated, Problem, ProblemFlow};
use crate::config::typed;
use crate::ctrl::Message;
use crate::error::{config_err, ensure, Result};
use crate::ids::{FlowId, NodeId};
use crate::net::topo::TopologyConfig;
use crate::net::Network;
use crate::route::Routing;
use crate::units::Time;
use event::{Event, Kind};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use view::{FlowInfo, View};
use weights::{Usage, Weights};

/// How events reach the nodes that compute rates.
#[derive(Clone, Copy, Debug, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ControlKind {
    /// R2C2: every node hears every event and computes its own flows' rates.
    Broadcast,
    /// The baseline of Fig. 19: one controller hears every event and sends rates.
    Centralized,
}

/// How the centralized controller sends rates.
#[derive(Clone, Copy, Debug, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RateMessages {
    /// After every computation, each node with active flows gets all its flows' rates.
    PerNode,
    /// Each changed rate alone.
    Changed,
}

/// The rate of a new flow before the next epoch.
#[derive(Clone, Copy, Debug, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FirstRate {
    /// The rate its routing protocol's paths carry on an empty rack (the default).
    Spread,
    /// Its access-link rate if it would finish within one interval at it, else `local`.
    Size,
    /// Its access-link rate.
    Line,
    /// Its fair share on the source's view, computed at once.
    Local,
}

/// `[scheme]` with `kind = "r2c2"`.
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct R2c2Config {
    /// Recomputation interval rho (default "500us", the paper's).
    pub interval: Time,
    /// Fraction of every link left out of the allocation (default 0.05, the paper's).
    pub headroom: f64,
    /// Broadcast trees per source (default 6, one per torus direction).
    pub trees: u32,
    /// Weight of a new demand sample in its EWMA (default 0.5).
    pub demand_ewma: f64,
    /// Relative change of a flow's demand that is announced again (default 0.1).
    pub demand_change: f64,
    /// WLB's share of minimal paths (default 1/3, the paper's 1:2 split).
    pub wlb_direct: f64,
    /// "broadcast" (R2C2, default) or "centralized".
    pub control: ControlKind,
    /// The controller's switch for control = "centralized" (default: the switch of the
    /// middle host).
    pub controller: Option<String>,
    /// How the controller sends rates: "per_node" (default) or "changed".
    pub rate_messages: RateMessages,
    /// Per-node rate messages: header bytes (default 6: type, node, count, checksum) and
    /// bytes per flow (default 6: the flow's 2-byte number at its source and its rate in
    /// Kbps, as in the 16-byte event).
    pub rate_header: u32,
    pub rate_entry: u32,
    /// Bytes of one message per changed rate (default 16).
    pub rate_bytes: u32,
    /// Centralized: recompute every interval instead of at every event (default false).
    pub central_batch: bool,
    /// Run the genetic routing search (default false: every flow keeps its routing).
    pub routing_search: bool,
    /// Time between searches (default "2ms"; the paper's "every few seconds" scaled to runs
    /// of milliseconds).
    pub search_every: Time,
    /// Flows of at least this size (or unbounded) are searched over (default "1MB").
    pub search_long: crate::units::Bytes,
    /// The predicted gain over the current assignment that a search's result must bring
    /// to be applied (default 0.01: the paper changes routing "if a significant improvement
    /// is possible", section 3.1, without a number; each switch reorders packets in flight).
    pub search_gain: f64,
    /// GA population, mutation probability, generations at most, and generations without
    /// improvement that end the search (defaults 100, 0.01, 50, 10).
    pub ga_population: u32,
    /// GA mutation probability (default 0.01).
    pub ga_mutation: f64,
    /// GA generations at most (default 50).
    pub ga_generations: u32,
    /// GA generations without improvement that end the search (default 10).
    pub ga_patience: u32,
    /// What a new flow sends before the next epoch: "spread" (default), "line", "local" or
    /// "size".
    pub first_rate: FirstRate,
    /// Delay before a dropped control message is sent again (default "20us").
    pub resend_after: Time,
    /// Duplicate ACKs that trigger fast retransmit (default 32): RPS and VLB reorder
    /// packets, and the paper's receivers hold a reorder buffer (p95 30 packets, section
    /// 5.1) rather than treating reordering as loss.
    pub dupthresh: u32,
    /// Measure the assigned-rate error against rho = 0 (Figs. 15-16; default false): half
    /// an interval after each epoch, the max-min rates of every active flow from a complete,
    /// current view against the rates their sources hold. One extra computation per epoch.
    pub rate_error: bool,
}

impl Default for R2c2Config {
    fn default() -> Self {
        R2c2Config {
            interval: Time::from_us(500),
            headroom: 0.05,
            trees: 6,
            demand_ewma: 0.5,
            demand_change: 0.1,
            wlb_direct: 1.0 / 3.0,
            control: ControlKind::Broadcast,
            controller: None,
            rate_messages: RateMessages::PerNode,
            rate_header: 6,
            rate_entry: 6,
            rate_bytes: 16,
            central_batch: false,
            routing_search: false,
            search_every: Time::from_ms(2),
            search_long: crate::units::Bytes(1_000_000),
            search_gain: 0.01,
            ga_population: 100,
            ga_mutation: 0.01,
            ga_generations: 50,
            ga_patience: 10,
            first_rate: FirstRate::Spread,
            resend_after: Time::from_us(20),
            dupthresh: 32,
            rate_error: false,
        }
    }
}

pub fn build(table: toml::Value) -> Result<Box<dyn Scheme>> {
    let cfg: R2c2Config = typed(table, "scheme")?;
    ensure(cfg.interval > Time::ZERO, "scheme.interval", || "must be positive".into())?;
    super::check_fraction("headroom", cfg.headroom)?;
    ensure((1..=255).contains(&cfg.trees), "scheme.trees", || {
        format!("must be in 1..255 (one byte on the wire), got {}", cfg.trees)
    })?;
    ensure(cfg.demand_ewma > 0.0 && cfg.demand_ewma <= 1.0, "scheme.demand_ewma", || {
        format!("must be in (0, 1], got {}", cfg.demand_ewma)
    })?;
    super::check_range("demand_change", cfg.demand_change, 0.0, 1e6)?;
    ensure(
        cfg.wlb_direct.is_finite() && (0.0..=1.0).contains(&cfg.wlb_direct),
        "scheme.wlb_direct",
        || format!("must be in [0, 1], got {}", cfg.wlb_direct),
    )?;
    ensure(cfg.rate_bytes >= 1, "scheme.rate_bytes", || "must be at least 1".into())?;
    ensure(cfg.rate_header.saturating_add(cfg.rate_entry) >= 1, "scheme.rate_header", || {
        "rate_header + rate_entry must be at least 1 byte".into()
    })?;
    ensure(cfg.dupthresh >= 1, "scheme.dupthresh", || "must be at least 1".into())?;
    ensure(cfg.resend_after > Time::ZERO, "scheme.resend_after", || "must be positive".into())?;
    ensure(
        cfg.control == ControlKind::Centralized || cfg.controller.is_none(),
        "scheme.controller",
        || "only used with control = \"centralized\"".into(),
    )?;
    ensure(
        cfg.control == ControlKind::Centralized || !cfg.central_batch,
        "scheme.central_batch",
        || "only used with control = \"centralized\"".into(),
    )?;
    ensure(cfg.search_every > Time::ZERO, "scheme.search_every", || "must be positive".into())?;
    ensure(cfg.ga_population >= 2, "scheme.ga_population", || "must be at least 2".into())?;
    super::check_range("search_gain", cfg.search_gain, 0.0, 1e6)?;
    ensure(cfg.ga_population <= 100_000, "scheme.ga_population", || {
        format!("must be at most 100000, got {}", cfg.ga_population)
    })?;
    ensure(cfg.ga_generations <= 100_000, "scheme.ga_generations", || {
        format!("must be at most 100000, got {}", cfg.ga_generations)
    })?;
    super::check_message_bytes(&[
        ("rate_header", cfg.rate_header),
        ("rate_entry", cfg.rate_entry),
        ("rate_bytes", cfg.rate_bytes),
    ])?;
    ensure((0.0..=1.0).contains(&cfg.ga_mutation), "scheme.ga_mutation", || {
        format!("must be in [0, 1], got {}", cfg.ga_mutation)
    })?;
    ensure(cfg.ga_generations >= 1 && cfg.ga_patience >= 1, "scheme.ga_generations", || {
        "ga_generations and ga_patience must be at least 1".into()
    })?;
    ensure(
        cfg.control == ControlKind::Broadcast || !cfg.routing_search,
        "scheme.routing_search",
        || "runs with control = \"broadcast\"".into(),
    )?;
    Ok(Box::new(R2c2 { cfg, ..R2c2::default() }))
}

/// Timer tags: the periodic recomputation, re-sending a flow's lost messages, the routing
/// search, and re-sending lost routing decisions.
const EPOCH: u32 = 0;
const RESEND: u32 = 1;
const SEARCH: u32 = 2;
const RESEND_ROUTES: u32 = 3;
const RATE_ERROR: u32 = 4;

/// Bytes per flow of a routing decision (a 4-byte flow id and a protocol byte, section 3.4),
/// and flows per message (one 1,500-byte packet).
const ROUTE_ENTRY_BYTES: u32 = 5;
/// Estimates (`Scheme::estimate`): peak bytes of one flow in one node's view (a B-tree entry
/// with its share of the tree), and of a flow's own state at its source (usage, numbers).
const VIEW_ENTRY_BYTES: f64 = 80.0;
const FLOW_STATE_BYTES: u64 = 400;
const ROUTES_PER_MESSAGE: usize = 300;

/// A broadcast of routing decisions: flow id and whether it now uses VLB (else RPS).
#[derive(Clone, Debug)]
struct RouteMsg(Vec<(u32, bool)>);

/// A flow's state at its source.
#[derive(Clone, Debug)]
struct Source {
    seq: u16,
    /// The allocation last set, wire bit/s (`None` before the first).
    rate: Option<f64>,
    /// The rate it was sent at before its first allocation (`first_rate = "spread"`).
    unallocated: Option<f64>,
    /// Smoothed demand estimate, wire bit/s.
    demand: Option<f64>,
    /// The demand last announced (infinite: none).
    announced: f64,
    routing: Routing,
    /// Sent its last byte: finish announced.
    done: bool,
}

/// A rate message of the centralized baseline.
#[derive(Clone, Copy, Debug)]
struct RateMsg {
    flow: u32,
    bps: f64,
}

/// The centralized controller's message to one node: the rates of all its active flows.
#[derive(Clone, Debug)]
struct NodeRates(Vec<RateMsg>);

#[derive(Default)]
pub struct R2c2 {
    cfg: R2c2Config,
    weights: Option<Weights>,
    /// Link capacities (wire bit/s per port).
    capacity: Vec<f64>,
    /// Per rack node (host index): its view. In centralized mode only the controller's
    /// (index 0) is used.
    views: Vec<View>,
    /// Rack node of each switch node id (`u32::MAX` for hosts).
    rack_of: Vec<u32>,
    switch_of: Vec<NodeId>,
    controller: Option<NodeId>,
    /// Active flows of each rack node, at their source.
    own: Vec<BTreeMap<u32, Source>>,
    by_seq: HashMap<(u32, u16), u32>,
    /// Each flow's number at its source (kept with `by_seq`).
    seq_of: HashMap<u32, u16>,
    next_seq: Vec<u16>,
    /// Each flow's usage under the routing it was computed for.
    usage: HashMap<u32, (Routing, Usage)>,
    /// Centralized: the rate last sent per flow.
    sent_rate: HashMap<u32, f64>,
    /// Lost messages to send again, per flow: event kinds, and whether a rate message.
    lost: BTreeMap<u32, (Vec<Kind>, bool)>,
    /// Lost routing decisions to broadcast again.
    lost_routes: Vec<(u32, bool)>,
    stats: Stats,
}

#[derive(Default)]
struct Stats {
    events: BTreeMap<&'static str, u64>,
    resent: u64,
    epochs: u64,
    solves: u64,
    rate_changes: u64,
    searches: u64,
    routes_changed: u64,
    /// Link failures and recoveries the nodes found out about.
    topology_changes: u64,
    /// Wall time of each node's recomputation / interval (every node of a group counts the
    /// group's one computation: it would have run it itself).
    compute_share: Vec<f64>,
    /// |assigned - rho = 0| / rho = 0 of each rate-limited flow at each sample.
    rate_errors: Vec<f32>,
    /// Per routing search: the searched flows' predicted aggregate (the rate computation's
    /// sum of rates, wire bit/s) under the assignment it started from and the one it chose.
    search_fitness: Vec<(f64, f64)>,
}

fn message_kind(k: Kind) -> &'static str {
    match k {
        Kind::Start => "r2c2_start",
        Kind::Finish => "r2c2_finish",
        Kind::Demand => "r2c2_demand",
        Kind::Route => "r2c2_route",
        Kind::Refresh => "r2c2_refresh",
    }
}

impl R2c2 {
    fn wire_factor(ctx: &dyn Ctx) -> f64 {
        let t = ctx.transport();
        (t.mss + t.header) as f64 / t.mss as f64
    }

    fn usage_of(&mut self, ctx: &dyn Ctx, flow: u32, info: &FlowInfo) -> Usage {
        if let Some((r, u)) = self.usage.get(&flow) {
            if *r == info.routing {
                return u.clone();
            }
        }
        let w = self.weights.as_mut().expect("init ran");
        let u =
            w.usage(ctx.net(), ctx.routes(), ctx.seed(), info.routing, flow, info.src, info.dst);
        self.usage.insert(flow, (info.routing, u.clone()));
        u
    }

    /// `first_rate = "spread"`: the largest rate at which flow `f` alone puts no more than
    /// capacity on any link its routing uses (link capacity / the flow's share of packets
    /// on it), at most its access-link rate `line`. Wire bit/s.
    fn spread_rate(&mut self, ctx: &dyn Ctx, f: u32, routing: Routing, line: f64) -> f64 {
        let def = ctx.flow(FlowId(f));
        let info = FlowInfo {
            src: def.src,
            dst: def.dst,
            weight: def.weight,
            priority: def.priority,
            demand_bps: f64::INFINITY,
            routing,
        };
        let usage = self.usage_of(ctx, f, &info);
        usage
            .iter()
            .filter(|(_, share)| *share > 0.0)
            .map(|&(link, share)| self.capacity[link as usize] / share)
            .fold(line, f64::min)
    }

    /// The event describing flow `f`'s current state at its source.
    fn event(&self, ctx: &dyn Ctx, f: u32, kind: Kind) -> Option<Event> {
        let def = ctx.flow(FlowId(f));
        let s = self.own[def.src as usize].get(&f)?;
        Some(Event {
            kind,
            src: def.src,
            dst: def.dst,
            seq: s.seq,
            priority: def.priority,
            weight: def.weight,
            demand_bps: s.announced,
            tree: (s.seq as u32 % self.cfg.trees) as u8,
            routing: s.routing,
        })
    }

    /// Tells the rack about `e`: the source's own view at once, the others by broadcast (or
    /// the controller by unicast).
    fn announce(&mut self, ctx: &mut dyn Ctx, flow: u32, e: Event) {
        let wire = e.encode();
        let decoded = Event::decode(&wire, self.cfg.wlb_direct).expect("own encoding");
        let from = self.switch_of[e.src as usize];
        let msg = Message::new(message_kind(e.kind), event::BYTES, wire);
        *self.stats.events.entry(message_kind(e.kind)).or_default() += 1;
        match self.controller {
            None => {
                self.views[e.src as usize].apply(flow, &decoded);
                ctx.broadcast(from, e.tree as u32, msg);
            }
            Some(c) if c == from => {
                if self.views[0].apply(flow, &decoded) && !self.cfg.central_batch {
                    self.recompute_central(ctx);
                }
            }
            Some(c) => ctx.send(from, c, msg),
        }
    }

    fn receive_event(&mut self, ctx: &mut dyn Ctx, at: NodeId, wire: &[u8; 16]) {
        let Some(e) = Event::decode(wire, self.cfg.wlb_direct) else {
            ctx.count("r2c2_bad_checksum", 1);
            return;
        };
        let Some(&flow) = self.by_seq.get(&(e.src, e.seq)) else { return };
        let node = if self.controller.is_some() { 0 } else { self.rack_of[at.idx()] };
        if node != u32::MAX
            && self.views[node as usize].apply(flow, &e)
            && self.controller.is_some()
            && !self.cfg.central_batch
        {
            self.recompute_central(ctx);
        }
    }

    /// Every interval: estimate demands, then recompute and set rates.
    fn epoch(&mut self, ctx: &mut dyn Ctx) {
        self.stats.epochs += 1;
        self.estimate_demands(ctx);
        match self.controller {
            None => self.recompute_broadcast(ctx),
            Some(_) if self.cfg.central_batch => self.recompute_central(ctx),
            Some(_) => {}
        }
        let next = ctx.now() + self.cfg.interval;
        ctx.schedule(next, 0, EPOCH);
        if self.cfg.rate_error {
            let mid = ctx.now() + Time(self.cfg.interval.0 / 2);
            ctx.schedule(mid, 0, RATE_ERROR);
        }
    }

    /// Figs. 15-16: what rho = 0 would assign now (every node recomputing at every event,
    /// so every view complete and current: each active flow as its own node knows it),
    /// against the rate each rate-limited flow's source holds.
    fn sample_rate_error(&mut self, ctx: &dyn Ctx) {
        let mut entries: Vec<(u32, FlowInfo, f64)> = Vec::new();
        let mut unlimited: Vec<(u32, FlowInfo)> = Vec::new();
        for (node, flows) in self.own.iter().enumerate() {
            for (&f, s) in flows.iter().filter(|(_, s)| !s.done) {
                let Some(&info) = self.views[node].get(f) else { continue };
                match s.rate {
                    Some(r) => entries.push((f, info, r)),
                    None => unlimited.push((f, info)),
                }
            }
        }
        // The rate-limited flows first (their assigned rates in `assigned`), then the others.
        let mut assigned = Vec::with_capacity(entries.len());
        let mut flows = Vec::with_capacity(entries.len() + unlimited.len());
        for (f, info, r) in entries {
            if let Some(spec) = self.spec_of(ctx, f, &info) {
                assigned.push(r);
                flows.push(spec);
            }
        }
        if assigned.is_empty() {
            return;
        }
        for (f, info) in unlimited {
            flows.extend(self.spec_of(ctx, f, &info));
        }
        let ideal = solve_validated(&Problem {
            capacity: self.capacity.clone(),
            headroom: self.cfg.headroom,
            flows,
        })
        .rate;
        for (&assigned, &r0) in assigned.iter().zip(&ideal) {
            if r0 > 0.0 {
                self.stats.rate_errors.push(((assigned - r0).abs() / r0) as f32);
            }
        }
    }

    fn estimate_demands(&mut self, ctx: &mut dyn Ctx) {
        let t = self.cfg.interval.as_secs_f64();
        let wf = Self::wire_factor(ctx);
        let mut announce = Vec::new();
        for (node, flows) in self.own.iter_mut().enumerate() {
            for (&f, s) in flows.iter_mut() {
                if s.done {
                    continue;
                }
                let p = ctx.progress(FlowId(f));
                let r = s
                    .rate
                    .or(s.unallocated)
                    .unwrap_or_else(|| ctx.access_rate(node as u32).bps() as f64);
                let backlog = p.backlog();
                let sample = if backlog == u64::MAX {
                    f64::INFINITY
                } else {
                    r + backlog as f64 * 8.0 * wf / t
                };
                let a = self.cfg.demand_ewma;
                let d = match s.demand {
                    Some(prev) if prev.is_finite() && sample.is_finite() => {
                        a * sample + (1.0 - a) * prev
                    }
                    _ => sample,
                };
                s.demand = Some(d);
                let Some(alloc) = s.rate else { continue };
                let moved = |from: f64| (d - from).abs() > self.cfg.demand_change * from;
                let new = if d < alloc && (s.announced.is_infinite() || moved(s.announced)) {
                    Some(d)
                } else if s.announced.is_finite()
                    && d > s.announced * (1.0 + self.cfg.demand_change)
                {
                    Some(if d >= alloc { f64::INFINITY } else { d })
                } else {
                    None
                };
                if let Some(v) = new {
                    s.announced = v;
                    announce.push(f);
                }
            }
        }
        for f in announce {
            if let Some(e) = self.event(ctx, f, Kind::Demand) {
                self.announce(ctx, f, e);
            }
        }
    }

    /// The rates of `view`'s flows, in its id order, and the wall time of the water-filling
    /// itself (the link weights are looked up first: they are precomputed per protocol and
    /// offset, as a rack node would hold them).
    fn solve(&mut self, ctx: &dyn Ctx, view_of: usize) -> (Vec<u32>, Vec<f64>, f64) {
        let (entries, flows) = self.specs(ctx, view_of);
        let problem =
            Problem { capacity: self.capacity.clone(), headroom: self.cfg.headroom, flows };
        self.stats.solves += 1;
        let started = std::time::Instant::now();
        let rates =
            if problem.flows.is_empty() { Vec::new() } else { solve_validated(&problem).rate };
        let secs = started.elapsed().as_secs_f64();
        (entries.into_iter().map(|(f, _)| f).collect(), rates, secs)
    }

    /// Flow `f` as the rate computation takes it; `None` when failed links cut it off from its
    /// destination (it uses no link, and keeps the rate it had).
    fn spec_of(&mut self, ctx: &dyn Ctx, f: u32, info: &FlowInfo) -> Option<ProblemFlow> {
        let usage = self.usage_of(ctx, f, info);
        (!usage.is_empty()).then(|| ProblemFlow {
            weight: info.weight,
            priority: info.priority,
            demand: info.demand_bps,
            usage: usage.to_vec(),
        })
    }

    /// The flows of `view_of`'s view that the rate computation takes ([`Self::spec_of`]), in
    /// its id order, with their specs.
    fn specs(&mut self, ctx: &dyn Ctx, view_of: usize) -> (Vec<(u32, FlowInfo)>, Vec<ProblemFlow>) {
        let mut entries: Vec<(u32, FlowInfo)> =
            self.views[view_of].iter().map(|(&f, &i)| (f, i)).collect();
        let mut flows = Vec::with_capacity(entries.len());
        entries.retain(|(f, info)| match self.spec_of(ctx, *f, info) {
            Some(spec) => {
                flows.push(spec);
                true
            }
            None => false,
        });
        (entries, flows)
    }

    fn recompute_broadcast(&mut self, ctx: &mut dyn Ctx) {
        // Nodes with own flows, grouped by view.
        let mut groups: BTreeMap<(u64, usize), Vec<usize>> = BTreeMap::new();
        for (node, flows) in self.own.iter().enumerate() {
            if flows.values().any(|s| !s.done) {
                let v = &self.views[node];
                groups.entry((v.hash(), v.len())).or_default().push(node);
            }
        }
        let interval = self.cfg.interval.as_secs_f64();
        for nodes in groups.values() {
            let (ids, rates, secs) = self.solve(ctx, nodes[0]);
            let share = secs / interval;
            self.stats.compute_share.extend(std::iter::repeat_n(share, nodes.len()));
            for &node in nodes {
                let mine: Vec<(u32, f64)> = self.own[node]
                    .iter()
                    .filter(|(_, s)| !s.done)
                    .map(|(&f, _)| f)
                    .filter_map(|f| ids.binary_search(&f).ok().map(|i| (f, rates[i])))
                    .collect();
                for (f, r) in mine {
                    self.set(ctx, node, f, r);
                }
            }
        }
    }

    fn set(&mut self, ctx: &mut dyn Ctx, node: usize, f: u32, r: f64) {
        let Some(s) = self.own[node].get_mut(&f) else { return };
        if s.done || s.rate.is_some_and(|old| (old - r).abs() <= 1e-9 * r.max(1.0)) {
            return;
        }
        s.rate = Some(r);
        self.stats.rate_changes += 1;
        ctx.set_rate(FlowId(f), r);
    }

    fn recompute_central(&mut self, ctx: &mut dyn Ctx) {
        let (ids, rates, secs) = self.solve(ctx, 0);
        self.stats.compute_share.push(secs / self.cfg.interval.as_secs_f64());
        let c = self.controller.expect("centralized");
        let mut per_node: BTreeMap<usize, Vec<RateMsg>> = BTreeMap::new();
        for (f, r) in ids.into_iter().zip(rates) {
            let unchanged =
                self.sent_rate.get(&f).is_some_and(|&old| (old - r).abs() <= 1e-9 * r.max(1.0));
            if unchanged && self.cfg.rate_messages == RateMessages::Changed {
                continue;
            }
            self.sent_rate.insert(f, r);
            let src = ctx.flow(FlowId(f)).src as usize;
            if self.switch_of[src] == c {
                self.set(ctx, src, f, r);
            } else if self.cfg.rate_messages == RateMessages::Changed {
                ctx.send(
                    c,
                    self.switch_of[src],
                    Message::new("r2c2_rate", self.cfg.rate_bytes, RateMsg { flow: f, bps: r }),
                );
            } else {
                per_node.entry(src).or_default().push(RateMsg { flow: f, bps: r });
            }
        }
        for (src, rates) in per_node {
            let bytes = self
                .cfg
                .rate_header
                .saturating_add(self.cfg.rate_entry.saturating_mul(rates.len() as u32));
            ctx.send(c, self.switch_of[src], Message::new("r2c2_rate", bytes, NodeRates(rates)));
        }
    }
}

impl R2c2 {
    /// The routing search at the node of host 0: GA over its view's long flows, then the
    /// changes broadcast.
    fn search(&mut self, ctx: &mut dyn Ctx) {
        let next = ctx.now() + self.cfg.search_every;
        ctx.schedule(next, 0, SEARCH);
        self.stats.searches += 1;
        let node = 0usize;
        let (entries, base) = self.specs(ctx, node);
        let long = self.cfg.search_long.0;
        let is_long = |f: u32| ctx.flow(FlowId(f)).size.is_none_or(|b| b >= long);
        let candidates: Vec<usize> = (0..entries.len())
            .filter(|&i| {
                is_long(entries[i].0) && matches!(entries[i].1.routing, Routing::Rps | Routing::Vlb)
            })
            .collect();
        if candidates.is_empty() {
            return;
        }
        // Each flow's usage under its own routing, and each candidate's under RPS and VLB.
        let w = self.weights.as_mut().expect("init ran");
        let options: Vec<[Vec<(u32, f64)>; 2]> = candidates
            .iter()
            .map(|&i| {
                let (f, info) = entries[i];
                [Routing::Rps, Routing::Vlb].map(|r| {
                    w.usage(ctx.net(), ctx.routes(), ctx.seed(), r, f, info.src, info.dst).to_vec()
                })
            })
            .collect();
        let current: Vec<bool> =
            candidates.iter().map(|&i| entries[i].1.routing == Routing::Vlb).collect();
        let (capacity, headroom) = (self.capacity.clone(), self.cfg.headroom);
        let settings = ga::GaSettings {
            population: self.cfg.ga_population as usize,
            mutation: self.cfg.ga_mutation,
            generations: self.cfg.ga_generations as usize,
            patience: self.cfg.ga_patience as usize,
        };
        let mut problem = Problem { capacity, headroom, flows: base };
        let mut fitness = |genes: &[bool]| -> f64 {
            for (k, &i) in candidates.iter().enumerate() {
                problem.flows[i].usage.clone_from(&options[k][genes[k] as usize]);
            }
            solve_validated(&problem).rate.iter().sum()
        };
        let start = fitness(&current);
        // Every fixed assignment joins the first population: the result is never predicted
        // below all-RPS or all-VLB.
        let fixed = [vec![false; current.len()], vec![true; current.len()]];
        let found = ga::search(&current, &fixed, settings, ctx.rng(), &mut fitness);
        self.stats.search_fitness.push((start, found.fitness));
        // Section 3.1: routing changes "if a significant improvement is possible".
        if found.fitness < start * (1.0 + self.cfg.search_gain) {
            return;
        }
        let changes: Vec<(u32, bool)> = candidates
            .iter()
            .zip(&found.genes)
            .zip(&current)
            .filter(|((_, a), b)| a != b)
            .map(|((&i, &vlb), _)| (entries[i].0, vlb))
            .collect();
        if changes.is_empty() {
            return;
        }
        self.apply_routes(ctx, node, &changes);
        self.broadcast_routes(ctx, &changes);
    }

    /// Broadcasts routing decisions from the searching node, 300 flows per message.
    fn broadcast_routes(&mut self, ctx: &mut dyn Ctx, routes: &[(u32, bool)]) {
        let from = self.switch_of[0];
        for chunk in routes.chunks(ROUTES_PER_MESSAGE) {
            let msg = Message::new(
                "r2c2_route",
                ROUTE_ENTRY_BYTES * chunk.len() as u32,
                RouteMsg(chunk.to_vec()),
            );
            ctx.broadcast(from, 0, msg);
        }
    }

    /// Routing decisions reached rack node `node`: its view takes them, and its own flows
    /// switch.
    fn apply_routes(&mut self, ctx: &mut dyn Ctx, node: usize, routes: &[(u32, bool)]) {
        for &(f, vlb) in routes {
            let routing = if vlb { Routing::Vlb } else { Routing::Rps };
            if let Some(info) = self.views[node].get(f).copied() {
                self.views[node].put(f, FlowInfo { routing, ..info });
            }
            if let Some(s) = self.own[node].get_mut(&f) {
                if s.routing != routing {
                    s.routing = routing;
                    self.stats.routes_changed += 1;
                    ctx.set_routing(FlowId(f), routing);
                }
            }
        }
    }

    /// Sends a flow's lost messages again, as the flow is now: a lost start or update goes
    /// out with its current state (not if the flow has finished since); a lost finish as
    /// it was; a lost rate as the controller's latest.
    fn resend(&mut self, ctx: &mut dyn Ctx, flow: u32) {
        let Some((kinds, rate)) = self.lost.remove(&flow) else { return };
        let src = ctx.flow(FlowId(flow)).src;
        let done = self.own[src as usize].get(&flow).is_none_or(|s| s.done);
        for k in kinds {
            let e = match k {
                Kind::Finish => self.finished_event(ctx, flow),
                _ if done => None,
                k => self.event(ctx, flow, k),
            };
            let Some(e) = e else { continue };
            self.stats.resent += 1;
            let from = self.switch_of[src as usize];
            let msg = Message::new(message_kind(e.kind), event::BYTES, e.encode());
            match self.controller {
                None => ctx.broadcast(from, e.tree as u32, msg),
                Some(c) => ctx.send(from, c, msg),
            }
        }
        if let (true, Some(&bps), Some(c)) = (rate, self.sent_rate.get(&flow), self.controller) {
            self.stats.resent += 1;
            let to = self.switch_of[src as usize];
            ctx.send(c, to, Message::new("r2c2_rate", self.cfg.rate_bytes, RateMsg { flow, bps }));
        }
    }

    /// The finish event of a flow whose source may have forgotten it.
    fn finished_event(&self, ctx: &dyn Ctx, flow: u32) -> Option<Event> {
        let def = ctx.flow(FlowId(flow));
        let seq = *self.seq_of.get(&flow)?;
        Some(Event {
            kind: Kind::Finish,
            src: def.src,
            dst: def.dst,
            seq,
            priority: def.priority,
            weight: def.weight,
            demand_bps: f64::INFINITY,
            tree: (seq as u32 % self.cfg.trees) as u8,
            routing: ctx.routing(FlowId(flow)),
        })
    }
}

impl Scheme for R2c2 {
    /// Every rack node (or the controller alone) holds a view entry per live flow; each flow's
    /// start and finish reach every node by broadcast (or the controller and back), down
    /// `trees` broadcast trees per source, each as large as the network.
    fn estimate(&self, net: &Network, flows: u64, active: f64) -> (u64, u64) {
        let central = self.cfg.control == ControlKind::Centralized;
        let hosts = net.hosts.len() as u64;
        let views = if central { 1 } else { hosts };
        let reached = if central { 2 } else { hosts };
        let trees = if central {
            0
        } else {
            hosts
                * self.cfg.trees as u64
                * net.nodes.len() as u64
                * crate::ctrl::tree::TREE_BYTES_PER_NODE
        };
        let bytes = (views as f64 * active * VIEW_ENTRY_BYTES) as u64
            + flows.saturating_mul(FLOW_STATE_BYTES)
            + trees;
        (bytes, flows.saturating_mul(2 * reached))
    }

    fn init(&mut self, ctx: &mut dyn Ctx) {
        let net: &Network = ctx.net();
        self.capacity = super::link_capacities(net);
        let n = net.hosts.len();
        self.switch_of = (0..n as u32).map(|h| net.ports[net.host_port(h).idx()].peer).collect();
        self.rack_of = vec![u32::MAX; net.nodes.len()];
        for (i, s) in self.switch_of.iter().enumerate() {
            self.rack_of[s.idx()] = i as u32;
        }
        self.controller = match (&self.cfg.control, &self.cfg.controller) {
            (ControlKind::Broadcast, _) => None,
            (ControlKind::Centralized, Some(name)) => net.node_by_name(name),
            (ControlKind::Centralized, None) => Some(self.switch_of[n / 2]),
        };
        self.views = vec![View::default(); if self.controller.is_some() { 1 } else { n }];
        self.own = vec![BTreeMap::new(); n];
        self.next_seq = vec![0; n];
        self.weights = Some(Weights::new(net, ctx.topology()));
        let first = self.cfg.interval;
        ctx.schedule(first, 0, EPOCH);
        if self.cfg.routing_search {
            ctx.schedule(self.cfg.search_every, 0, SEARCH);
        }
    }

    fn check(&self, topology: &TopologyConfig, net: &Network) -> Result<()> {
        ensure(matches!(topology, TopologyConfig::Torus(_)), "scheme.kind", || {
            "r2c2 runs on a rack: topology.kind = \"torus\" (a torus, or a mesh with wrap = false)"
                .into()
        })?;
        ensure(net.hosts.len() <= u16::MAX as usize, "topology.dims", || {
            "r2c2's events carry 16-bit node ids: at most 65535 nodes".into()
        })?;
        if let Some(name) = &self.cfg.controller {
            if net
                .node_by_name(name)
                .is_none_or(|n| net.nodes[n.idx()].kind != crate::net::NodeKind::Switch)
            {
                return Err(config_err(
                    "scheme.controller",
                    format!("unknown switch \"{name}\"; expected a torus switch like \"sw0\""),
                ));
            }
        }
        Ok(())
    }

    fn transport(&self, _def: &crate::workload::flow::FlowDef) -> SchemeTransport {
        SchemeTransport::Rate {
            initial_bps: None,
            window: super::Window::Off,
            dupthresh: self.cfg.dupthresh,
            ecn: false,
            cc: None,
        }
    }

    fn on_flow_start(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        let def = ctx.flow(flow).clone();
        let src = def.src as usize;
        let seq = self.next_seq[src];
        self.next_seq[src] = seq.wrapping_add(1);
        if let Some(old) = self.by_seq.insert((def.src, seq), flow.0) {
            self.seq_of.remove(&old);
        }
        self.seq_of.insert(flow.0, seq);
        let routing = ctx.routing(flow);
        self.own[src].insert(
            flow.0,
            Source {
                seq,
                rate: None,
                unallocated: None,
                demand: None,
                announced: f64::INFINITY,
                routing,
                done: false,
            },
        );
        if let Some(e) = self.event(ctx, flow.0, Kind::Start) {
            self.announce(ctx, flow.0, e);
        }
        let line = ctx.access_rate(def.src).bps() as f64;
        let short = def.size.is_some_and(|b| {
            b as f64 * 8.0 * Self::wire_factor(ctx) <= line * self.cfg.interval.as_secs_f64()
        });
        let local = match self.cfg.first_rate {
            FirstRate::Spread => {
                let r = self.spread_rate(ctx, flow.0, routing, line);
                if let Some(s) = self.own[src].get_mut(&flow.0) {
                    s.unallocated = Some(r);
                }
                ctx.set_rate(flow, r);
                false
            }
            FirstRate::Line => false,
            FirstRate::Local => true,
            FirstRate::Size => !short,
        };
        // The source's view holds the flow (centralized: the controller's does, once told).
        if local && self.controller.is_none() {
            let (ids, rates, _) = self.solve(ctx, src);
            if let Ok(i) = ids.binary_search(&flow.0) {
                self.set(ctx, src, flow.0, rates[i]);
            }
        }
    }

    fn on_flow_sent(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        let src = ctx.flow(flow).src as usize;
        let Some(e) = self.event(ctx, flow.0, Kind::Finish) else { return };
        if let Some(s) = self.own[src].get_mut(&flow.0) {
            if s.done {
                return;
            }
            s.done = true;
        }
        self.announce(ctx, flow.0, e);
    }

    fn on_flow_end(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        self.on_flow_sent(ctx, flow);
        let src = ctx.flow(flow).src as usize;
        // `by_seq` keeps the flow (its finish may still be on the way); a later flow of the
        // source that wraps around to the same number takes the entry over.
        if let Some(s) = self.own[src].remove(&flow.0) {
            if let Some(w) = self.weights.as_mut() {
                w.forget_flow(s.routing, flow.0);
            }
        }
        self.usage.remove(&flow.0);
        self.sent_rate.remove(&flow.0);
    }

    /// Section 3.2, failures: links are left out of the computation while down (capacity 0,
    /// and usages computed again on the routes that avoid them), and every node broadcasts
    /// the state of all its ongoing flows down the trees built again around the failure.
    fn on_topology_change(&mut self, ctx: &mut dyn Ctx) {
        let net = ctx.net();
        self.capacity = super::link_capacities(net);
        if let Some(w) = self.weights.as_mut() {
            w.rebuild(net, ctx.topology());
        }
        self.usage.clear();
        self.stats.topology_changes += 1;
        let ongoing: Vec<u32> = self
            .own
            .iter()
            .flat_map(|flows| flows.iter().filter(|(_, s)| !s.done).map(|(&f, _)| f))
            .collect();
        for f in ongoing {
            if let Some(e) = self.event(ctx, f, Kind::Refresh) {
                self.announce(ctx, f, e);
            }
        }
    }

    fn on_message(&mut self, ctx: &mut dyn Ctx, at: NodeId, msg: &Message) {
        if let Some(wire) = msg.body::<[u8; 16]>() {
            self.receive_event(ctx, at, wire);
        } else if let Some(r) = msg.body::<RateMsg>() {
            let src = ctx.flow(FlowId(r.flow)).src as usize;
            self.set(ctx, src, r.flow, r.bps);
        } else if let Some(NodeRates(rates)) = msg.body::<NodeRates>() {
            for r in rates {
                let src = ctx.flow(FlowId(r.flow)).src as usize;
                self.set(ctx, src, r.flow, r.bps);
            }
        } else if let Some(RouteMsg(routes)) = msg.body::<RouteMsg>() {
            let node = self.rack_of[at.idx()];
            if node != u32::MAX {
                self.apply_routes(ctx, node as usize, routes);
            }
        }
    }

    fn on_message_dropped(&mut self, ctx: &mut dyn Ctx, _src: NodeId, msg: &Message) {
        // What was lost: a flow's event, or its rate (kind None; a node's rates are re-sent
        // one by one).
        let lost: Vec<(u32, Option<Kind>)> = if let Some(wire) = msg.body::<[u8; 16]>() {
            let Some(e) = Event::decode(wire, self.cfg.wlb_direct) else { return };
            let Some(&flow) = self.by_seq.get(&(e.src, e.seq)) else { return };
            vec![(flow, Some(e.kind))]
        } else if let Some(r) = msg.body::<RateMsg>() {
            vec![(r.flow, None)]
        } else if let Some(NodeRates(rates)) = msg.body::<NodeRates>() {
            rates.iter().map(|r| (r.flow, None)).collect()
        } else if let Some(RouteMsg(routes)) = msg.body::<RouteMsg>() {
            if self.lost_routes.is_empty() {
                let at = ctx.now() + self.cfg.resend_after;
                ctx.schedule(at, 0, RESEND_ROUTES);
            }
            self.lost_routes.extend_from_slice(routes);
            return;
        } else {
            return;
        };
        for (flow, kind) in lost {
            let entry = self.lost.entry(flow).or_default();
            let first = entry.0.is_empty() && !entry.1;
            match kind {
                Some(k) if !entry.0.contains(&k) => entry.0.push(k),
                Some(_) => {}
                None => entry.1 = true,
            }
            if first {
                let at = ctx.now() + self.cfg.resend_after;
                ctx.schedule(at, flow, RESEND);
            }
        }
    }

    fn on_timer(&mut self, ctx: &mut dyn Ctx, agent: u32, tag: u32) {
        match tag {
            EPOCH => self.epoch(ctx),
            RESEND => self.resend(ctx, agent),
            SEARCH => self.search(ctx),
            RATE_ERROR => self.sample_rate_error(ctx),
            RESEND_ROUTES => {
                // Every node applies decisions idempotently: the whole lost set goes again.
                let routes = std::mem::take(&mut self.lost_routes);
                self.stats.resent += 1;
                self.broadcast_routes(ctx, &routes);
            }
            _ => {}
        }
    }

    /// The share of wall-clock time the rate computations took (varies from run to run and
    /// machine to machine).
    fn timing(&self) -> serde_json::Value {
        let mut share = self.stats.compute_share.clone();
        share.sort_by(f64::total_cmp);
        let q = |p: f64| share.get(((share.len() as f64 - 1.0) * p).round() as usize).copied();
        serde_json::json!({ "compute_time_share": { "median": q(0.5), "p99": q(0.99), "samples": share.len() } })
    }

    fn summary(&self) -> serde_json::Value {
        let mut err = self.stats.rate_errors.clone();
        err.sort_by(f32::total_cmp);
        let qe =
            |p: f64| err.get(((err.len() as f64 - 1.0) * p).round() as usize).map(|&x| x as f64);
        serde_json::json!({
            "events": self.stats.events,
            "events_resent": self.stats.resent,
            "epochs": self.stats.epochs,
            "rate_computations": self.stats.solves,
            "rate_changes": self.stats.rate_changes,
            "routing_searches": self.stats.searches,
            "routing_changes": self.stats.routes_changed,
            "topology_changes": self.stats.topology_changes,
            "usage_vectors_computed": self.weights.as_ref().map_or(0, |w| w.computed),
            "assigned_rate_error": { "median": qe(0.5), "p95": qe(0.95), "samples": err.len() },
            "search_fitness_bps": self.stats.search_fitness,
            "allocated_bps": self
                .own
                .iter()
                .flat_map(|flows| flows.values().filter(|s| !s.done).filter_map(|s| s.rate))
                .sum::<f64>(),
        })
    }
}
