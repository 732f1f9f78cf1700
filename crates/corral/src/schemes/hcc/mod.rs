//! HCC, hierarchical congestion control (Ketabi and Ganjali, "Hierarchical Congestion Control
//! (HCC): Fairness and Fast Convergence for Data Centers"): a hierarchy of
//! rate-allocation agents computes max-min fair rates with aggregated, quantized and pruned
//! messages.
//!
//! - **Hierarchy** (section III-B). Flows sharing a path prefix merge into super-flows level
//!   by level: the agents of a flow sit at the first `levels` output ports of its path (its
//!   host's NIC, then each switch port toward the core), and the agent at port k+1 is the
//!   parent of the agent at port k. The top agents are roots; their capacity is their
//!   port's rate (read every cycle, so scheduled link-rate changes reach them). An agent
//!   whose flows continue on different ports has several parents and takes the smallest
//!   share, returning the excess to the others.
//! - **Agents** (Algorithm 3, [`agent`]). Two loops on timers: every `Cycle_child` an agent
//!   divides its share among its children by Algorithm 1 over their demand maps and sends
//!   each changed share down; every `Cycle_parent` it takes its parents' shares and sends each
//!   parent the change of its demand map. A host's agent rates its flows (the leaves)
//!   directly, with no message.
//! - **Leaves.** A flow demands what it could send (`demand = "backlog"`, the default): its
//!   bytes not yet sent over its host agent's Cycle_parent, capped at its access-link rate
//!   (the paper's leaves "receive the application layer demands as input"), refreshed every
//!   cycle of its host agent; `demand = "line"` demands the access-link rate until the last
//!   byte is sent. Its sender is TCP paced at its share by a token bucket, the window not
//!   limiting and no backoff on loss (TCP keeps reliability). Before its first share it is plain TCP with
//!   the initial window (`first_rate = "window"`, the default: the paper sets "initial
//!   congestion window 10" and lets TCP do all but the rate) or sends nothing
//!   (`first_rate = "wait"`). After each new rate a packet that would leave at once waits up
//!   to one packet time at that rate (the paper's burst fix); a flow already waiting for its
//!   next slot keeps it ([`crate::transport::rate::TokenBucket::hold_until`]). Where in the
//!   packet time (`phase`): by default the widest gap between the next packets of the host's
//!   other flows ([`crate::transport::rate::spread_phases`]), so one host's flows interleave
//!   and a shared link sees one near-periodic stream per host rather than an N*D/D/1 queue
//!   of independent flows; or an independent uniform draw (`"uniform"`).
//! - **Messages** (Fig. 3), only on change, as control packets with real delay: up,
//!   `up_header` bytes (child and parent ids) plus `up_entry` per entry of the delta map
//!   (quantized demand, signed count); down, `down_bytes` (child id and share); an excess
//!   return, `down_bytes` too. A lost message is sent again at the next cycle.
//! - **Quantization and pruning** (section III-C, [`quantize`], [`demand`]): each agent
//!   quantizes the demands it reports with Lloyd-Max levels (`bins`, refitted every
//!   `refit`); a share or demand change of at most `prune` (relative) is not sent.
//!
//! Cycles are multiples of link delays ("values are relative to the link latencies of the
//! associated level of agents"): `Cycle_child` is `child_cycle` times the delay of the link
//! from the agent's children (a host's own link for its leaves) and `Cycle_parent`
//! `parent_cycle` times the delay of the link to its parent, never below `min_cycle`. Loops
//! keep a common phase (ticks at multiples of their cycle). A loop whose next run would
//! repeat its last stops until an input changes and resumes at its next tick, so an idle
//! agent costs no events; a non-root agent notices a change of its own port's rate at its
//! next parent cycle.

pub mod agent;
pub mod demand;
pub mod maxmin;
pub mod quantize;

use super::{Ctx, Scheme, SchemeTransport};
use crate::config::typed;
use crate::ctrl::Message;
use crate::error::{ensure, Result};
use crate::ids::{FlowId, NodeId, PortId};
use crate::transport::rate::spread_phases;
use crate::units::Time;
use agent::{delta, Agent, Up};
use demand::{delta_worth_sending, worth_sending, DemandMap};
use serde::Deserialize;
use std::collections::BTreeMap;

/// What a flow sends before its first share (`"window"`, the default; `"wait"`; `"line"`).
pub use super::FirstRate;

/// `[scheme]` with `kind = "hcc"`.
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct HccConfig {
    /// Ports of a flow's path that carry agents, from its host (default 3: host, edge,
    /// aggregation, the paper's hierarchy on a three-tier tree).
    pub levels: usize,
    /// Cycle_child in delays of the link from the agent's children (default 2, HCC-2).
    pub child_cycle: f64,
    /// Cycle_parent in delays of the link to the agent's parent (default 8, HCC-2).
    pub parent_cycle: f64,
    /// Shortest cycle (default "1us").
    pub min_cycle: Time,
    /// Fraction of every managed port left unallocated (default 0.02).
    pub headroom: f64,
    /// Lloyd-Max levels per agent (default 16; 0 turns quantization off).
    pub bins: usize,
    /// Time between refits of an agent's quantizer (default "1ms").
    pub refit: Time,
    /// Relative change below which an update is pruned (default 0.01; 0 sends every change).
    pub prune: f64,
    /// Message sizes in bytes (defaults 16, 8 and 16: the centralized `ideal` periodic
    /// mode's report header, per-flow entry and rate message).
    pub up_header: u32,
    pub up_entry: u32,
    pub down_bytes: u32,
    /// Delay of a flow's first packet after a new rate, up to one packet time at that rate
    /// (default true).
    pub jitter: bool,
    /// Where that first packet goes: "spread" (default, ours: the centre of the widest gap
    /// between the next packets of its host's other flows, flows starting together dividing
    /// the gaps evenly; a uniform draw for a host's first flow) or "uniform" (an independent
    /// uniform draw for every flow).
    pub phase: Phase,
    /// Before the first share: "window" (default) or "wait".
    pub first_rate: FirstRate,
    /// A leaf's demand: "backlog" (default: what it could send, its remaining bytes over its
    /// host agent's Cycle_parent, capped at its access-link rate) or "line" (its access-link
    /// rate until its last byte is sent).
    pub demand: Demand,
}

/// Where a flow's first packet after a new rate goes within its packet time (`[scheme]
/// phase`).
#[derive(Clone, Copy, Debug, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Spread,
    Uniform,
}

/// How a leaf's demand is set (`[scheme] demand`).
#[derive(Clone, Copy, Debug, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Demand {
    Backlog,
    Line,
}

impl Default for HccConfig {
    fn default() -> Self {
        HccConfig {
            levels: 3,
            child_cycle: 2.0,
            parent_cycle: 8.0,
            min_cycle: Time::from_us(1),
            headroom: 0.02,
            bins: 16,
            refit: Time::from_ms(1),
            prune: 0.01,
            up_header: 16,
            up_entry: 8,
            down_bytes: 16,
            jitter: true,
            phase: Phase::Spread,
            first_rate: FirstRate::Window,
            demand: Demand::Backlog,
        }
    }
}

pub fn build(table: toml::Value) -> Result<Box<dyn Scheme>> {
    let cfg: HccConfig = typed(table, "scheme")?;
    ensure((1..=4).contains(&cfg.levels), "scheme.levels", || {
        format!("must be 1 to 4, got {}", cfg.levels)
    })?;
    for (key, v) in [("child_cycle", cfg.child_cycle), ("parent_cycle", cfg.parent_cycle)] {
        // A million link delays is seconds on any fabric: larger is a typo.
        ensure(v > 0.0 && v <= 1e6, &format!("scheme.{key}"), || {
            format!(
                "must be a positive multiple of a link delay, at most 1000000, got {}",
                crate::config::number(v)
            )
        })?;
    }
    ensure(cfg.min_cycle > Time::ZERO, "scheme.min_cycle", || "must be positive".into())?;
    ensure(cfg.refit > Time::ZERO, "scheme.refit", || "must be positive".into())?;
    super::check_fraction("headroom", cfg.headroom)?;
    super::check_fraction("prune", cfg.prune)?;
    ensure(cfg.bins <= 1024, "scheme.bins", || format!("must be at most 1024, got {}", cfg.bins))?;
    ensure(cfg.up_header >= 1 && cfg.down_bytes >= 1, "scheme.up_header", || {
        "up_header and down_bytes must be at least 1 byte".into()
    })?;
    super::check_message_bytes(&[
        ("up_header", cfg.up_header),
        ("up_entry", cfg.up_entry),
        ("down_bytes", cfg.down_bytes),
    ])?;
    Ok(Box::new(Hcc {
        cfg,
        agents: Vec::new(),
        by_port: BTreeMap::new(),
        host_agent: BTreeMap::new(),
    }))
}

/// Timer tags.
const CHILD_LOOP: u32 = 0;
const PARENT_LOOP: u32 = 1;

/// Counters of bytes received and sent by agents, by level from the bottom (L1: hosts).
const RECEIVED: [&str; 4] =
    ["l1_received_bytes", "l2_received_bytes", "l3_received_bytes", "l4_received_bytes"];
const SENT: [&str; 4] = ["l1_sent_bytes", "l2_sent_bytes", "l3_sent_bytes", "l4_sent_bytes"];

/// Up: a child's demand delta for one parent.
struct DemandMsg {
    child: usize,
    parent: usize,
    delta: DemandMap,
}

/// Down: a child's share.
struct ShareMsg {
    child: usize,
    parent: usize,
    share: f64,
}

/// Up: what a child with several parents takes from this one (its share minus the excess).
struct ExcessMsg {
    child: usize,
    parent: usize,
    taken: f64,
    excess: f64,
}

pub struct Hcc {
    cfg: HccConfig,
    agents: Vec<Agent>,
    by_port: BTreeMap<PortId, usize>,
    /// The agent of each flow's host (its leaf's parent).
    host_agent: BTreeMap<u32, usize>,
}

impl Hcc {
    fn capacity(&self, ctx: &dyn Ctx, a: usize) -> f64 {
        ctx.net().ports[self.agents[a].port.idx()].rate().bps() as f64 * (1.0 - self.cfg.headroom)
    }

    fn cycle(&self, delay: Time, multiple: f64) -> Time {
        Time((delay.0 as f64 * multiple).round() as u64).max(self.cfg.min_cycle)
    }

    /// Flow `f`'s demand at its host agent `host`: its access-link rate, or with `demand =
    /// "backlog"` what it could send, its bytes not yet sent over the host agent's
    /// Cycle_parent (the horizon of the demand it reports), capped at that rate.
    fn leaf_demand(&self, ctx: &mut dyn Ctx, f: FlowId, host: usize) -> f64 {
        let line = ctx.access_rate(ctx.flow(f).src).bps() as f64;
        let p = ctx.progress(f);
        match (self.cfg.demand, p.size) {
            (Demand::Backlog, Some(size)) => {
                let left = size.saturating_sub(p.sent) as f64 * 8.0;
                line.min(left / (self.agents[host].cycle_parent.0 as f64 * 1e-12))
            }
            _ => line,
        }
    }

    /// Refreshes host agent `a`'s leaf demands; whether one changed.
    fn refresh_demands(&mut self, ctx: &mut dyn Ctx, a: usize) -> bool {
        let flows: Vec<u32> = self.agents[a].flows.keys().copied().collect();
        let mut changed = false;
        for f in flows {
            let d = self.leaf_demand(ctx, FlowId(f), a);
            if self.agents[a].flows.insert(f, d) != Some(d) {
                changed = true;
            }
        }
        changed
    }

    /// The first `levels` ports of flow `f`'s path from its host, following at each node
    /// the port that carries most of its packets.
    fn path(&self, ctx: &mut dyn Ctx, f: FlowId) -> Vec<PortId> {
        let usage = ctx.usage(f);
        let mut node = ctx.net().hosts[ctx.flow(f).src as usize];
        let mut path = Vec::new();
        while path.len() < self.cfg.levels {
            let next = usage
                .iter()
                .filter(|(p, _)| ctx.net().ports[*p as usize].node == node)
                .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
            let Some(&(p, _)) = next else { break };
            path.push(PortId(p));
            node = ctx.net().ports[p as usize].peer;
        }
        path
    }

    /// The agent at `port`, created (with its loops started) if new.
    fn agent_at(&mut self, ctx: &mut dyn Ctx, port: PortId, level: usize, below: Time) -> usize {
        if let Some(&a) = self.by_port.get(&port) {
            return a;
        }
        let p = &ctx.net().ports[port.idx()];
        let a = self.agents.len();
        let agent = Agent::new(
            port,
            p.node,
            level,
            self.cycle(below, self.cfg.child_cycle),
            self.cycle(p.delay, self.cfg.parent_cycle),
        );
        self.agents.push(agent);
        self.by_port.insert(port, a);
        a
    }

    /// Starts agent `a`'s child loop (if stopped) at its next cycle boundary.
    fn wake_child(&mut self, ctx: &mut dyn Ctx, a: usize) {
        if !self.agents[a].child_awake {
            self.agents[a].child_awake = true;
            ctx.schedule(next_tick(ctx.now(), self.agents[a].cycle_child), a as u32, CHILD_LOOP);
        }
    }

    /// Starts agent `a`'s parent loop (if it has a parent and the loop is stopped).
    fn wake_parent(&mut self, ctx: &mut dyn Ctx, a: usize) {
        if !self.agents[a].parent_awake && !self.agents[a].up.is_empty() {
            self.agents[a].parent_awake = true;
            ctx.schedule(next_tick(ctx.now(), self.agents[a].cycle_parent), a as u32, PARENT_LOOP);
        }
    }

    /// Links `child` under `parent`; the child's parent loop starts with its first parent.
    fn link(&mut self, ctx: &mut dyn Ctx, child: usize, parent: usize) {
        if self.agents[child].up.iter().any(|u| u.parent == parent) {
            return;
        }
        self.agents[child].up.push(Up { parent, ..Up::default() });
        self.agents[parent].children.push(child);
        self.wake_parent(ctx, child);
    }

    fn send(&mut self, ctx: &mut dyn Ctx, from: usize, to: usize, msg: Message) {
        let (a, b) = (&self.agents[from], &self.agents[to]);
        ctx.count(SENT[a.level], msg.bytes as u64);
        if a.is_root() {
            ctx.count("root_sent_bytes", msg.bytes as u64);
        }
        ctx.send(a.node, b.node, msg);
    }

    fn child_loop(&mut self, ctx: &mut dyn Ctx, a: usize) {
        let usable = self.agents[a].usable(self.capacity(ctx, a));
        if !self.agents[a].flows.is_empty() {
            self.refresh_demands(ctx, a);
            let updates: Vec<(u32, f64)> = self.agents[a]
                .leaf_rates(usable)
                .into_iter()
                .filter(|&(f, rate)| {
                    worth_sending(self.agents[a].flow_rate.get(&f).copied(), rate, self.cfg.prune)
                })
                .collect();
            let places = self.places(ctx, a, &updates);
            for (f, rate) in updates {
                self.agents[a].flow_rate.insert(f, rate);
                self.set_leaf_rate(ctx, FlowId(f), rate, places.get(&f).copied());
            }
        }
        for (c, share) in self.agents[a].divide(usable) {
            if worth_sending(self.agents[a].child_sent.get(&c).copied(), share, self.cfg.prune) {
                self.agents[a].child_sent.insert(c, share);
                let msg = Message::new(
                    "hcc_share",
                    self.cfg.down_bytes,
                    ShareMsg { child: c, parent: a, share },
                );
                self.send(ctx, a, c, msg);
            }
        }
        // The child loop's output depends only on its inputs (flows, children's demands and
        // caps, parents' shares, the port's capacity), and every change of one wakes it: a
        // loop with unchanged inputs would repeat itself, so it stops until then (at its
        // next cycle boundary, as a loop that ran through). A root reads its capacity each
        // cycle, so it runs while it has demand below it.
        if self.agents[a].child_idle() || !self.agents[a].is_root() {
            self.agents[a].child_awake = false;
        } else {
            let next = ctx.now() + self.agents[a].cycle_child;
            ctx.schedule(next, a as u32, CHILD_LOOP);
        }
    }

    /// With `jitter` and `phase = "spread"`: where in its packet time at its new rate the
    /// first packet of each flow in `updates` (host agent `a`'s new leaf rates) goes that
    /// would leave at once (a new or resuming flow: no phase, or phase 0), by
    /// [`spread_phases`] among the phases of the host's other flows; a flow waiting for its
    /// slot keeps it and is not listed.
    fn places(&self, ctx: &mut dyn Ctx, a: usize, updates: &[(u32, f64)]) -> BTreeMap<u32, f64> {
        if !self.cfg.jitter || self.cfg.phase != Phase::Spread {
            return BTreeMap::new();
        }
        let phases: BTreeMap<u32, Option<f64>> =
            self.agents[a].flows.keys().map(|&f| (f, ctx.rate_phase(FlowId(f)))).collect();
        let starting: Vec<u32> = updates
            .iter()
            .filter(|&&(f, rate)| rate > 0.0 && phases[&f].is_none_or(|ph| ph == 0.0))
            .map(|&(f, _)| f)
            .collect();
        if starting.is_empty() {
            return BTreeMap::new();
        }
        let others: Vec<f64> = phases
            .iter()
            .filter(|(f, _)| !starting.contains(f))
            .filter_map(|(_, &ph)| ph)
            .collect();
        let origin = if others.is_empty() { ctx.rng().unit() } else { 0.0 };
        let at = spread_phases(&others, starting.len(), origin);
        starting.into_iter().zip(at).collect()
    }

    /// Sets leaf `f`'s rate. With `jitter`, a packet that would leave at once waits a
    /// fraction of a packet time at the new rate: `place` (`phase = "spread"`; `None` for a
    /// flow that keeps its slot) or a uniform draw (`"uniform"`).
    fn set_leaf_rate(&mut self, ctx: &mut dyn Ctx, f: FlowId, rate: f64, place: Option<f64>) {
        let p = ctx.progress(f);
        if p.finished {
            return;
        }
        let fraction = match self.cfg.phase {
            _ if !self.cfg.jitter || rate <= 0.0 => None,
            Phase::Uniform => Some(ctx.rng().unit()),
            Phase::Spread => place,
        };
        if let Some(fraction) = fraction {
            let t = ctx.transport();
            let packet_time = (t.mss + t.header) as f64 * 8.0 / rate;
            ctx.set_rate_after(f, rate, Time((fraction * packet_time * 1e12) as u64));
        } else {
            ctx.set_rate(f, rate);
        }
        ctx.count("rate_changes", 1);
    }

    fn parent_loop(&mut self, ctx: &mut dyn Ctx, a: usize) {
        let now = ctx.now();
        let capacity = self.capacity(ctx, a);
        if !self.agents[a].flows.is_empty() && self.refresh_demands(ctx, a) {
            self.wake_child(ctx, a);
        }
        if capacity != self.agents[a].last_capacity {
            self.agents[a].last_capacity = capacity;
            self.wake_child(ctx, a);
        }
        if self.cfg.bins > 0 && now >= self.agents[a].next_refit {
            self.agents[a].refit(capacity, self.cfg.bins);
            self.agents[a].next_refit = now + self.cfg.refit;
        }
        // Several parents: each gets back what the agent does not take.
        if self.agents[a].up.len() > 1 {
            let (taken, excess) = self.agents[a].take_share();
            for (i, e) in excess.into_iter().enumerate() {
                if self.agents[a].up[i].share.is_some()
                    && worth_sending(self.agents[a].up[i].excess_sent, e, self.cfg.prune)
                {
                    self.agents[a].up[i].excess_sent = Some(e);
                    let parent = self.agents[a].up[i].parent;
                    let msg = Message::new(
                        "hcc_excess",
                        self.cfg.down_bytes,
                        ExcessMsg { child: a, parent, taken, excess: e },
                    );
                    self.send(ctx, a, parent, msg);
                }
            }
        }
        let report = self.agents[a].report(capacity);
        for i in 0..self.agents[a].up.len() {
            let d = delta(&report, &self.agents[a].up[i].sent);
            if delta_worth_sending(&d, self.agents[a].up[i].sent.total(), self.cfg.prune) {
                self.agents[a].up[i].sent = report.clone();
                let parent = self.agents[a].up[i].parent;
                let bytes = d.message_bytes(self.cfg.up_header, self.cfg.up_entry);
                self.send(
                    ctx,
                    a,
                    parent,
                    Message::new("hcc_demand", bytes, DemandMsg { child: a, parent, delta: d }),
                );
            }
        }
        if self.agents[a].parent_idle() {
            self.agents[a].parent_awake = false;
        } else {
            let next = now + self.agents[a].cycle_parent;
            ctx.schedule(next, a as u32, PARENT_LOOP);
        }
    }

    fn received(&self, ctx: &mut dyn Ctx, at: usize, bytes: u32) {
        ctx.count(RECEIVED[self.agents[at].level], bytes as u64);
        if self.agents[at].is_root() {
            ctx.count("root_received_bytes", bytes as u64);
        }
    }

    /// Whether every parent holds the demand map its child last sent it and every child the
    /// share its parent last sent it (true once no message is in flight or lost for good).
    fn consistent(&self) -> bool {
        self.agents.iter().enumerate().all(|(c, child)| {
            child.up.iter().all(|u| {
                let parent = &self.agents[u.parent];
                let held = parent.child_demand.get(&c).cloned().unwrap_or_default();
                held == u.sent && u.share == parent.child_sent.get(&c).copied()
            })
        })
    }

    fn leave(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        if let Some(&a) = self.host_agent.get(&flow.0) {
            self.agents[a].flows.remove(&flow.0);
            self.agents[a].flow_rate.remove(&flow.0);
            self.wake_child(ctx, a);
            self.wake_parent(ctx, a);
        }
    }
}

/// The first multiple of `cycle` after `now` (agents' loops keep a common phase).
fn next_tick(now: Time, cycle: Time) -> Time {
    Time((now.0 / cycle.0 + 1) * cycle.0)
}

impl Scheme for Hcc {
    fn transport(&self, _def: &crate::workload::flow::FlowDef) -> SchemeTransport {
        self.cfg.first_rate.transport()
    }

    fn on_flow_start(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        let path = self.path(ctx, flow);
        if path.is_empty() {
            return;
        }
        let mut below = ctx.net().ports[path[0].idx()].delay;
        let mut chain = Vec::with_capacity(path.len());
        for (level, &port) in path.iter().enumerate() {
            chain.push(self.agent_at(ctx, port, level, below));
            below = ctx.net().ports[port.idx()].delay;
        }
        for w in chain.windows(2) {
            self.link(ctx, w[0], w[1]);
        }
        let host = chain[0];
        let demand = self.leaf_demand(ctx, flow, host);
        self.agents[host].flows.insert(flow.0, demand);
        self.host_agent.insert(flow.0, host);
        self.wake_child(ctx, host);
        self.wake_parent(ctx, host);
    }

    fn on_flow_sent(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        self.leave(ctx, flow);
    }

    fn on_flow_end(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        self.leave(ctx, flow);
    }

    fn on_message(&mut self, ctx: &mut dyn Ctx, _at: NodeId, msg: &Message) {
        if let Some(m) = msg.body::<DemandMsg>() {
            self.received(ctx, m.parent, msg.bytes);
            self.agents[m.parent].apply_child_delta(m.child, &m.delta);
            self.wake_child(ctx, m.parent);
            self.wake_parent(ctx, m.parent);
        } else if let Some(m) = msg.body::<ShareMsg>() {
            self.received(ctx, m.child, msg.bytes);
            if let Some(u) = self.agents[m.child].up.iter_mut().find(|u| u.parent == m.parent) {
                u.share = Some(m.share);
            }
            self.wake_child(ctx, m.child);
            self.wake_parent(ctx, m.child);
        } else if let Some(m) = msg.body::<ExcessMsg>() {
            self.received(ctx, m.parent, msg.bytes);
            let caps = &mut self.agents[m.parent].child_cap;
            if m.excess > 0.0 {
                caps.insert(m.child, m.taken);
            } else {
                caps.remove(&m.child);
            }
            self.wake_child(ctx, m.parent);
        }
    }

    fn on_message_dropped(&mut self, ctx: &mut dyn Ctx, _src: NodeId, msg: &Message) {
        // The sender forgets what it believed delivered, so its next cycle sends it again.
        if let Some(m) = msg.body::<DemandMsg>() {
            if let Some(u) = self.agents[m.child].up.iter_mut().find(|u| u.parent == m.parent) {
                let undo: DemandMap = delta(&DemandMap::default(), &m.delta);
                u.sent.apply(&undo);
            }
            self.wake_parent(ctx, m.child);
        } else if let Some(m) = msg.body::<ShareMsg>() {
            self.agents[m.parent].child_sent.remove(&m.child);
            self.wake_child(ctx, m.parent);
        } else if let Some(m) = msg.body::<ExcessMsg>() {
            if let Some(u) = self.agents[m.child].up.iter_mut().find(|u| u.parent == m.parent) {
                u.excess_sent = None;
            }
            self.wake_parent(ctx, m.child);
        }
    }

    fn on_timer(&mut self, ctx: &mut dyn Ctx, agent: u32, tag: u32) {
        match tag {
            CHILD_LOOP => self.child_loop(ctx, agent as usize),
            PARENT_LOOP => self.parent_loop(ctx, agent as usize),
            _ => {}
        }
    }

    fn summary(&self) -> serde_json::Value {
        let per_level: Vec<usize> = (0..self.cfg.levels)
            .map(|l| self.agents.iter().filter(|a| a.level == l).count())
            .collect();
        serde_json::json!({ "agents": self.agents.len(), "agents_per_level": per_level, "roots": self.agents.iter().filter(|a| a.is_root()).count(), "consistent": self.consistent() })
    }
}
