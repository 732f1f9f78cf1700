//! SCC, stacked congestion control (Tian et al., "Multi-Tenant Multi-Objective Bandwidth
//! Allocation in Datacenters Using Stacked Congestion Control"): tenant-objective tunnels whose
//! rates an underlay controller sets by weight, and a private controller per tunnel that
//! serves its objective.
//!
//! - **Divisions and tunnels** (section III-A). A division is a (tenant, objective) pair,
//!   the objective from the flow's `class` (`LS`, `DS` or `CS`, any case), with weight W_d
//!   (`weights`, default 1). A tunnel is one per (source host, destination host, division);
//!   its id is stamped on its flows' packets.
//! - **Underlay** ([`underlay`], section III-B). Every packet is ECN-capable. The receiving
//!   host counts each tunnel's packets and CE marks, clears the marks (the flows' own
//!   transports never see them), and every `feedback` period sends the counts to the source,
//!   which moves the tunnel's rate R_t by `ucc` (`paper`, the default, also named
//!   `weighted_dctcp`; `literal`). The receiver also reports the mean one-way delay of the
//!   tunnel's packets in the period, from which the source knows the tunnel's RTT now.
//! - **Tracker** (eqs. 3-4). The first source host of a division is its tracker. Every
//!   `slot` each source host reports its tunnels' reference weights W'_t; the tracker scales
//!   the latest reports to sum to W_d and sends each host its tunnels' W_t.
//! - **Private control** ([`private`], section IV). Every slot a tunnel computes W'_t from
//!   its flows (DS Σ M/δ, CS Σ 1/M, LS Σ max(x, floor)); whenever R_t or its flows change it
//!   divides R_t among its flows by its objective's in-tunnel algorithm (`in_tunnel = true`).
//!   A flow is TCP with its class's controller (`cc`; the paper's DCTCP, D2TCP and L2DCT by
//!   default), window on, capped at its share by a token bucket.
//! - **FIFO tunnels** (`in_tunnel = false`, the paper's testbed, which "has not implemented
//!   in-tunnel algorithms"). With `fifo = "queue"` (the default) the tunnel is the paper's
//!   "rate limited per-tunnel queue": its flows send as their windows allow (at line rate)
//!   into one first-in first-out queue at the source host, which releases packets at R_t
//!   (`world::tunnels`); its W'_t counts every unfinished flow, those whose last bytes wait
//!   in the queue included. `fifo = "equal_shares"` is the former approximation: each flow an
//!   equal share of R_t on its own token bucket, no shared queue.
//! - **Re-marking** (section III, "Congestion Signal": "SCC remarks the ECN bit based on
//!   concurrent queue length and properties of flows inside the tunnel"). The bytes a flow's
//!   window lets it send that wait for its rate are its queue in the tunnel. The receiving
//!   shim, after it clears the underlay's mark, marks CE again when that queue is above
//!   `remark_threshold` packets: the flow's own sub-queue with in-tunnel scheduling, the
//!   whole tunnel's with a FIFO tunnel (its queue's bytes, or with equal shares the sum of
//!   its flows' waiting bytes). The flow's transport then holds its window near its
//!   rate times its RTT. The queue is read when the packet arrives rather than when it left
//!   (a one-way delay later). Every flow in a tunnel is ECN-capable (the shim sets ECT), so a
//!   loss-based controller inside reacts to the marks as RFC 3168 says (halving) instead of
//!   to drops at a tunnel queue limit.

pub mod private;
pub mod underlay;

use super::{Ctx, Scheme, SchemeTransport, Window};
use crate::config::typed;
use crate::ctrl::Message;
use crate::error::{ensure, Result};
use crate::ids::{FlowId, NodeId};
use crate::net::{Packet, PacketKind};
use crate::transport::cc::CcConfig;
use crate::units::Time;
use private::{DsFlow, LsParams};
use serde::Deserialize;
use std::collections::BTreeMap;
use underlay::{scale, UccMode, UccParams, Underlay};

/// `[scheme]` with `kind = "scc"`.
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SccConfig {
    /// The underlay law (default "paper", eqs. 1-2 as read in [`underlay`], also named
    /// "weighted_dctcp"; "literal", eqs. 1-2 as printed).
    pub ucc: UccMode,
    /// Weighted DCTCP's α gain (default 1/16).
    pub g: f64,
    /// The receiver's ECN feedback period (default "100us"; the paper: "periodically").
    pub feedback: Time,
    /// The decision slot τ of the tracker and the private controllers (default "1ms").
    pub slot: Time,
    /// W_d by division, keyed "tenant/class" (class LS, DS or CS); default 1.
    pub weights: BTreeMap<String, f64>,
    /// The least time between two cuts of a tunnel's rate, in its base RTTs (default 1: once
    /// per RTT, as DCTCP reacts once per window).
    pub cut_every: f64,
    /// In-tunnel scheduling (default true); false: a FIFO tunnel (see `fifo`).
    pub in_tunnel: bool,
    /// What a FIFO tunnel is (`in_tunnel = false`) (default "queue"): "queue", one first-in
    /// first-out packet queue per tunnel at the source host released at the tunnel's rate;
    /// "equal_shares", each flow an equal share of the tunnel's rate (no shared queue).
    pub fifo: FifoModel,
    /// LS: the target queue Q* in packets (default 10) and ε (default 0.5; the paper leaves it
    /// undefined).
    pub q_star: f64,
    pub epsilon: f64,
    /// Message sizes in bytes: a host's report (header, per tunnel), the tracker's answer
    /// (header, per tunnel) and a feedback.
    pub report_header: u32,
    pub report_entry: u32,
    pub feedback_bytes: u32,
    /// The controller inside each objective's tunnels, keyed by class (LS, DS, CS); default
    /// the paper's: DCTCP, D2TCP, L2DCT.
    pub cc: BTreeMap<String, CcConfig>,
    /// Re-mark ECN by the queue in the tunnel (default true), above this many packets
    /// (default 20, the fabric's marking threshold in the paper's Fig. 1).
    pub remark: bool,
    /// The re-marking threshold in packets (default 20).
    pub remark_threshold: f64,
    /// Rate validation of the underlay (default false: our addition, see [`underlay`]).
    pub validate: bool,
    /// The least a tunnel's window grows per RTT, in segments (default 0: eqs. 1, 3-4 as
    /// written, a tunnel grows by its weight W_t). The tracker gives a tunnel of large CS
    /// flows or late DS flows a weight near 0, so after a cut it does not grow back onto a
    /// link left idle; 1 makes every tunnel grow at least as DCTCP does (work-conserving), at
    /// the cost of the shortest-first order the weights give between tunnels. Our option,
    /// see [`underlay`].
    pub min_increase: f64,
}

impl Default for SccConfig {
    fn default() -> Self {
        SccConfig {
            ucc: UccMode::Paper,
            g: 1.0 / 16.0,
            feedback: Time::from_us(100),
            slot: Time::from_ms(1),
            weights: BTreeMap::new(),
            cut_every: 1.0,
            in_tunnel: true,
            fifo: FifoModel::Queue,
            q_star: 10.0,
            epsilon: 0.5,
            report_header: 16,
            report_entry: 8,
            feedback_bytes: 16,
            cc: BTreeMap::new(),
            remark: true,
            remark_threshold: 20.0,
            validate: false,
            min_increase: 0.0,
        }
    }
}

/// The largest weight, queue target or count of RTTs, packets or segments a setting takes:
/// larger ones are typos (and overflow the tracker's arithmetic).
const MAX_SETTING: f64 = 1e6;

pub fn build(table: toml::Value) -> Result<Box<dyn Scheme>> {
    let cfg: SccConfig = typed(table, "scheme")?;
    ensure(cfg.g > 0.0 && cfg.g <= 1.0, "scheme.g", || {
        format!("must be in (0, 1], got {}", cfg.g)
    })?;
    for (key, t) in [("feedback", cfg.feedback), ("slot", cfg.slot)] {
        ensure(t > Time::ZERO, &format!("scheme.{key}"), || "must be positive".into())?;
    }
    for (name, w) in &cfg.weights {
        let key = format!("scheme.weights.{name}");
        ensure(*w > 0.0 && *w <= MAX_SETTING, &key, || {
            format!("must be a positive weight, at most {MAX_SETTING}, got {w}")
        })?;
        let class = name.rsplit_once('/').map(|(_, c)| c);
        ensure(class.and_then(Objective::parse).is_some(), &key, || {
            "expected \"tenant/class\" with class LS, DS or CS".into()
        })?;
    }
    ensure((0.0..=MAX_SETTING).contains(&cfg.cut_every), "scheme.cut_every", || {
        format!("must be a number of RTTs from 0 to {MAX_SETTING}, got {}", cfg.cut_every)
    })?;
    ensure(cfg.q_star > 0.0 && cfg.q_star <= MAX_SETTING, "scheme.q_star", || {
        format!("must be a positive number of packets, at most {MAX_SETTING}, got {}", cfg.q_star)
    })?;
    super::check_fraction("epsilon", cfg.epsilon)?;
    for (name, cc) in &cfg.cc {
        let key = format!("scheme.cc.{name}");
        ensure(Objective::parse(name).is_some(), &key, || "expected a class: LS, DS or CS".into())?;
        cc.validate().map_err(|m| crate::transport::config::cc_error(&key, &m))?;
    }
    ensure((0.0..=MAX_SETTING).contains(&cfg.remark_threshold), "scheme.remark_threshold", || {
        format!("must be a number of packets from 0 to {MAX_SETTING}, got {}", cfg.remark_threshold)
    })?;
    ensure((0.0..=MAX_SETTING).contains(&cfg.min_increase), "scheme.min_increase", || {
        format!(
            "must be a number of segments per RTT from 0 to {MAX_SETTING}, got {}",
            cfg.min_increase
        )
    })?;
    ensure(cfg.report_header >= 1 && cfg.feedback_bytes >= 1, "scheme.report_header", || {
        "report_header and feedback_bytes must be at least 1 byte".into()
    })?;
    super::check_message_bytes(&[
        ("report_header", cfg.report_header),
        ("report_entry", cfg.report_entry),
        ("feedback_bytes", cfg.feedback_bytes),
    ])?;
    Ok(Box::new(Scc { cfg, ..Scc::default() }))
}

/// How a FIFO tunnel (`in_tunnel = false`) is built (`scheme.fifo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FifoModel {
    /// One packet queue per tunnel at its source host, served in arrival order at R_t.
    Queue,
    /// Each of the tunnel's flows an equal share of R_t (no shared queue).
    EqualShares,
}

/// A division's objective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Objective {
    Ls,
    Ds,
    Cs,
}

impl Objective {
    fn parse(class: &str) -> Option<Objective> {
        match class.to_ascii_lowercase().as_str() {
            "ls" => Some(Objective::Ls),
            "ds" => Some(Objective::Ds),
            "cs" => Some(Objective::Cs),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Objective::Ls => "LS",
            Objective::Ds => "DS",
            Objective::Cs => "CS",
        }
    }

    /// The transport the paper runs for the objective (section VI): DCTCP, D2TCP, L2DCT.
    fn paper_cc(self) -> CcConfig {
        match self {
            Objective::Ls => CcConfig::Dctcp(Default::default()),
            Objective::Ds => CcConfig::D2tcp(Default::default()),
            Objective::Cs => CcConfig::L2dct(Default::default()),
        }
    }
}

/// Timer tags: a source host's slot, a receiving host's feedback, a division's tracker.
const SLOT: u32 = 0;
const FEEDBACK: u32 = 1;
const TRACKER: u32 = 2;

/// A source host's reference weights for one division's tracker.
struct ReportMsg {
    division: usize,
    refs: Vec<(usize, f64)>,
}

/// The tracker's weights for one host's tunnels.
struct WeightMsg {
    weights: Vec<(usize, f64)>,
}

/// A receiving host's counts for one tunnel.
struct FeedbackMsg {
    tunnel: usize,
    marked: u64,
    total: u64,
    /// Wire bytes received in the period.
    bytes: u64,
    /// The mean one-way delay of those packets.
    delay: Time,
}

#[derive(Clone, Debug)]
struct Division {
    w_d: f64,
    tracker: u32,
    /// The latest reference weight of each tunnel, as reported.
    refs: BTreeMap<usize, f64>,
    /// The largest |Σ W_t − W_d| of the tracker's answers.
    max_error: f64,
    awake: bool,
}

#[derive(Clone, Debug)]
struct Tunnel {
    src: u32,
    dst: u32,
    division: usize,
    objective: Objective,
    flows: Vec<u32>,
    under: Underlay,
    /// W_t (from the tracker; W_d before its first answer).
    weight: f64,
    rtt: Time,
    /// The unloaded one-way delay of a full packet from source to destination.
    base_delay: Time,
    /// The queueing the tunnel's packets met on the way, from the last feedback, and the
    /// largest RTT (base + queueing) it has seen.
    queueing: Time,
    max_rtt: Time,
    /// Receiver-side counts since the last feedback, and the sum of the one-way delays.
    rx_total: u64,
    rx_marked: u64,
    rx_bytes: u64,
    rx_delay: u128,
    /// When the underlay last cut the rate.
    last_cut: Option<Time>,
}

#[derive(Default)]
pub struct Scc {
    cfg: SccConfig,
    divisions: Vec<Division>,
    division_of: BTreeMap<(String, Objective), usize>,
    tunnels: Vec<Tunnel>,
    tunnel_of: BTreeMap<(u32, u32, usize), usize>,
    /// The tunnel of each active flow.
    flow_tunnel: BTreeMap<u32, usize>,
    /// Active tunnels by source host and by receiving host, and whether their loops run.
    by_src: BTreeMap<u32, (Vec<usize>, bool)>,
    by_dst: BTreeMap<u32, (Vec<usize>, bool)>,
    unclassified: u64,
}

impl Scc {
    fn wake_tracker(&mut self, ctx: &mut dyn Ctx, d: usize) {
        if !self.divisions[d].awake {
            self.divisions[d].awake = true;
            ctx.schedule(next_tick(ctx.now(), self.cfg.slot), d as u32, TRACKER);
        }
    }

    fn division(&mut self, tenant: &str, objective: Objective, src: u32) -> usize {
        if let Some(&d) = self.division_of.get(&(tenant.to_string(), objective)) {
            return d;
        }
        let w_d = self
            .cfg
            .weights
            .iter()
            .find(|(k, _)| {
                k.rsplit_once('/')
                    .is_some_and(|(t, c)| t == tenant && Objective::parse(c) == Some(objective))
            })
            .map_or(1.0, |(_, w)| *w);
        let d = self.divisions.len();
        self.divisions.push(Division {
            w_d,
            tracker: src,
            refs: BTreeMap::new(),
            max_error: 0.0,
            awake: false,
        });
        self.division_of.insert((tenant.to_string(), objective), d);
        d
    }

    fn tunnel(
        &mut self,
        ctx: &mut dyn Ctx,
        f: FlowId,
        division: usize,
        objective: Objective,
    ) -> usize {
        let (src, dst) = (ctx.flow(f).src, ctx.flow(f).dst);
        if let Some(&t) = self.tunnel_of.get(&(src, dst, division)) {
            return t;
        }
        let via_top = ctx.routing(f).via_top();
        let tcp = ctx.transport();
        let one_way = |s: u32, d: u32, size: u64| {
            ctx.routes()
                .path(ctx.net(), ctx.net().hosts[s as usize], d, size, via_top)
                .map_or(Time::ZERO, |p| p.1)
        };
        let base_delay = one_way(src, dst, (tcp.mss + tcp.header) as u64);
        let rtt = (base_delay + one_way(dst, src, tcp.header as u64)).max(Time::from_ns(1));
        let t = self.tunnels.len();
        let rate = ctx.access_rate(src).bps() as f64;
        let weight = self.divisions[division].w_d;
        self.tunnels.push(Tunnel {
            src,
            dst,
            division,
            objective,
            flows: Vec::new(),
            under: Underlay::new(rate, rtt.as_secs_f64()),
            weight,
            rtt,
            base_delay,
            queueing: Time::ZERO,
            max_rtt: rtt,
            rx_total: 0,
            rx_marked: 0,
            rx_bytes: 0,
            rx_delay: 0,
            last_cut: None,
        });
        self.tunnel_of.insert((src, dst, division), t);
        ctx.tap_host(dst);
        t
    }

    /// The tunnel's RTT now: its base RTT plus the queueing its own packets met in the last
    /// feedback period (what a window's ACK clock would see now). The flows' smoothed RTTs
    /// are no measure of it: a flow the tunnel holds back keeps the estimate of its last
    /// packets, long out of date, and the largest of them kept the rate low after a queue
    /// had drained, which left the link idle under Poisson traffic.
    fn rtt_now(&self, t: usize) -> Time {
        self.tunnels[t].rtt + self.tunnels[t].queueing
    }

    /// The underlay's constants for tunnel `t` now (its RTT measured now; the floor one MSS
    /// per RTT).
    fn params(&self, ctx: &dyn Ctx, t: usize) -> UccParams {
        let tcp = ctx.transport();
        let tunnel = &self.tunnels[t];
        let rtt = self.rtt_now(t).as_secs_f64();
        let mss_bits = (tcp.mss + tcp.header) as f64 * 8.0;
        let w_max = self.divisions.iter().map(|d| d.w_d).fold(1.0, f64::max);
        let line = ctx.access_rate(tunnel.src).bps() as f64;
        UccParams {
            mode: self.cfg.ucc,
            validate: self.cfg.validate,
            min_increase: self.cfg.min_increase,
            g: self.cfg.g,
            mss_bits,
            period_s: self.cfg.feedback.as_secs_f64(),
            rtt_s: rtt,
            max_rtt_s: tunnel.max_rtt.as_secs_f64(),
            floor: mss_bits / rtt,
            line,
            w_max,
        }
    }

    /// The queue re-marking reads for a packet of `flow` (bytes): the flow's own with
    /// in-tunnel scheduling, the tunnel's with a FIFO tunnel.
    fn queue_in_tunnel(&self, ctx: &dyn Ctx, t: usize, flow: FlowId) -> u64 {
        if self.cfg.in_tunnel {
            ctx.progress(flow).queued()
        } else if self.fifo_queue() {
            ctx.tunnel_queue(t as u32).0
        } else {
            self.tunnels[t].flows.iter().map(|&f| ctx.progress(FlowId(f)).queued()).sum()
        }
    }

    /// The tunnel's flows that still have bytes to send for the first time (a flow that has
    /// sent everything keeps its rate for retransmissions and leaves the division).
    fn sending(&self, ctx: &dyn Ctx, t: usize) -> Vec<u32> {
        self.tunnels[t]
            .flows
            .iter()
            .copied()
            .filter(|&f| ctx.progress(FlowId(f)).backlog() > 0)
            .collect()
    }

    /// Whether tunnels are FIFO packet queues.
    fn fifo_queue(&self) -> bool {
        !self.cfg.in_tunnel && self.cfg.fifo == FifoModel::Queue
    }

    /// Divides the tunnel's rate among its sending flows and gives each its share; a FIFO
    /// queue gets the whole rate (its flows keep line rate and their windows).
    fn rerate(&mut self, ctx: &mut dyn Ctx, t: usize) {
        if self.fifo_queue() {
            let tunnel = &self.tunnels[t];
            ctx.set_tunnel_rate(t as u32, tunnel.src, tunnel.under.rate);
            return;
        }
        let flows = self.sending(ctx, t);
        if flows.is_empty() {
            return;
        }
        let granted = self.tunnels[t].under.rate;
        let (mut rates, order) = if !self.cfg.in_tunnel {
            (vec![granted / flows.len() as f64; flows.len()], (0..flows.len()).collect())
        } else {
            match self.tunnels[t].objective {
                Objective::Cs => {
                    let left = cs_left(ctx, &flows);
                    (private::cs_rates(&left, granted), order_by(&left, |a, b| a.total_cmp(b)))
                }
                Objective::Ds => {
                    let ds = ds_flows(ctx, &flows);
                    (
                        private::ds_rates(&ds, granted),
                        order_by(&ds, |a, b| {
                            (a.to_deadline_s <= 0.0)
                                .cmp(&(b.to_deadline_s <= 0.0))
                                .then(a.to_deadline_s.total_cmp(&b.to_deadline_s))
                        }),
                    )
                }
                Objective::Ls => {
                    let q = ls_queues(ctx, &flows);
                    (
                        private::ls_rates(&self.ls_params(ctx, t), &q, granted),
                        order_by(&q, |a, b| b.total_cmp(a)),
                    )
                }
            }
        };
        private::spill(&mut rates, &self.usable(ctx, t, &flows), &order);
        for (&f, r) in flows.iter().zip(rates) {
            ctx.set_rate(FlowId(f), r);
        }
        ctx.count("rate_changes", 1);
    }

    /// What each flow's window lets it send (wire bit/s): its window over its smoothed RTT
    /// (the tunnel's base RTT before one is measured).
    fn usable(&self, ctx: &dyn Ctx, t: usize, flows: &[u32]) -> Vec<f64> {
        let tcp = ctx.transport();
        let wire = (tcp.mss + tcp.header) as f64 / tcp.mss as f64;
        flows
            .iter()
            .map(|&f| {
                let p = ctx.progress(FlowId(f));
                let rtt =
                    p.srtt.unwrap_or(self.tunnels[t].rtt).max(self.tunnels[t].rtt).as_secs_f64();
                p.window.map_or(f64::INFINITY, |w| w as f64 * 8.0 * wire / rtt)
            })
            .collect()
    }

    fn ls_params(&self, ctx: &dyn Ctx, t: usize) -> LsParams {
        let tcp = ctx.transport();
        let packet_bits = (tcp.mss + tcp.header) as f64 * 8.0;
        LsParams {
            q_star_bits: self.cfg.q_star * packet_bits,
            epsilon: self.cfg.epsilon,
            slot_s: self.cfg.slot.as_secs_f64(),
            floor: 10.0 * packet_bits / self.tunnels[t].rtt.as_secs_f64(),
        }
    }

    /// The flows the tunnel's reference weight counts, its active ones: those with bytes to
    /// send, and in a FIFO queue every unfinished flow (its sent bytes may still wait in the
    /// queue, so a flow that has handed over its last byte is still active).
    fn weighed(&self, ctx: &dyn Ctx, t: usize) -> Vec<u32> {
        if self.fifo_queue() {
            self.tunnels[t].flows.clone()
        } else {
            self.sending(ctx, t)
        }
    }

    /// The tunnel's reference weight W'_t now.
    fn reference(&self, ctx: &dyn Ctx, t: usize) -> f64 {
        let flows = self.weighed(ctx, t);
        match self.tunnels[t].objective {
            Objective::Cs => private::cs_reference(&cs_left(ctx, &flows)),
            Objective::Ds => private::ds_reference(&ds_flows(ctx, &flows)),
            Objective::Ls => {
                private::ls_reference(&self.ls_params(ctx, t), &ls_queues(ctx, &flows))
            }
        }
    }

    /// A source host's slot: each division it has tunnels in gets one report.
    fn slot(&mut self, ctx: &mut dyn Ctx, host: u32) {
        let tunnels = self.by_src.get(&host).map(|e| e.0.clone()).unwrap_or_default();
        let mut per_division: BTreeMap<usize, Vec<(usize, f64)>> = BTreeMap::new();
        for t in tunnels {
            per_division
                .entry(self.tunnels[t].division)
                .or_default()
                .push((t, self.reference(ctx, t)));
        }
        let from = ctx.net().hosts[host as usize];
        for (division, refs) in per_division {
            let bytes = self.cfg.report_header + self.cfg.report_entry * refs.len() as u32;
            let to = ctx.net().hosts[self.divisions[division].tracker as usize];
            ctx.send(from, to, Message::new("scc_report", bytes, ReportMsg { division, refs }));
        }
        let entry = self.by_src.get_mut(&host).expect("a source host");
        if entry.0.is_empty() {
            entry.1 = false;
        } else {
            ctx.schedule(ctx.now() + self.cfg.slot, host, SLOT);
        }
    }

    /// A division's tracker: the latest references of its active tunnels scaled to W_d. It
    /// sleeps while the division has no active tunnel.
    fn tracker(&mut self, ctx: &mut dyn Ctx, d: usize) {
        if !self.tunnels.iter().any(|t| t.division == d && !t.flows.is_empty()) {
            self.divisions[d].awake = false;
            return;
        }
        ctx.schedule(ctx.now() + self.cfg.slot, d as u32, TRACKER);
        let active: Vec<(usize, f64)> = self.divisions[d]
            .refs
            .iter()
            .filter(|(t, _)| !self.tunnels[**t].flows.is_empty())
            .map(|(t, r)| (*t, *r))
            .collect();
        if active.is_empty() {
            return;
        }
        let weights = scale(self.divisions[d].w_d, &active.iter().map(|a| a.1).collect::<Vec<_>>());
        let error = (weights.iter().sum::<f64>() - self.divisions[d].w_d).abs();
        self.divisions[d].max_error = self.divisions[d].max_error.max(error);
        let mut per_host: BTreeMap<u32, Vec<(usize, f64)>> = BTreeMap::new();
        for ((t, _), w) in active.iter().zip(weights) {
            per_host.entry(self.tunnels[*t].src).or_default().push((*t, w));
        }
        let from = ctx.net().hosts[self.divisions[d].tracker as usize];
        for (host, weights) in per_host {
            let bytes = self.cfg.report_header + self.cfg.report_entry * weights.len() as u32;
            ctx.send(
                from,
                ctx.net().hosts[host as usize],
                Message::new("scc_weights", bytes, WeightMsg { weights }),
            );
        }
    }

    /// A receiving host's feedback period: each tunnel into it that carried packets reports.
    fn feedback(&mut self, ctx: &mut dyn Ctx, host: u32) {
        let tunnels = self.by_dst.get(&host).map(|e| e.0.clone()).unwrap_or_default();
        for t in tunnels {
            let tunnel = &mut self.tunnels[t];
            if tunnel.rx_total == 0 {
                continue;
            }
            let (marked, total, bytes) = (
                std::mem::take(&mut tunnel.rx_marked),
                std::mem::take(&mut tunnel.rx_total),
                std::mem::take(&mut tunnel.rx_bytes),
            );
            let delay = Time((std::mem::take(&mut tunnel.rx_delay) / total as u128) as u64);
            let (from, to) = (ctx.net().hosts[host as usize], ctx.net().hosts[tunnel.src as usize]);
            ctx.send(
                from,
                to,
                Message::new(
                    "scc_feedback",
                    self.cfg.feedback_bytes,
                    FeedbackMsg { tunnel: t, marked, total, bytes, delay },
                ),
            );
        }
        let entry = self.by_dst.get_mut(&host).expect("a receiving host");
        if entry.0.is_empty() {
            entry.1 = false;
        } else {
            ctx.schedule(ctx.now() + self.cfg.feedback, host, FEEDBACK);
        }
    }

    /// Adds tunnel `t` to `host`'s active set in `map`, starting its loop if stopped.
    fn activate(
        ctx: &mut dyn Ctx,
        map: &mut BTreeMap<u32, (Vec<usize>, bool)>,
        host: u32,
        t: usize,
        period: Time,
        tag: u32,
    ) {
        let entry = map.entry(host).or_default();
        if !entry.0.contains(&t) {
            entry.0.push(t);
        }
        if !entry.1 {
            entry.1 = true;
            ctx.schedule(next_tick(ctx.now(), period), host, tag);
        }
    }
}

/// The indices of `items` in the order `cmp` gives (ties by index).
fn order_by<T>(items: &[T], cmp: impl Fn(&T, &T) -> std::cmp::Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| cmp(&items[a], &items[b]).then(a.cmp(&b)));
    order
}

/// CS: each flow's bytes not acknowledged yet (at least 1).
fn cs_left(ctx: &dyn Ctx, flows: &[u32]) -> Vec<f64> {
    flows
        .iter()
        .map(|&f| {
            let p = ctx.progress(FlowId(f));
            p.size.map_or(f64::MAX / 4.0, |s| s.saturating_sub(p.acked).max(1) as f64)
        })
        .collect()
}

/// DS: each flow's bits not acknowledged yet and time to its deadline (none: unbounded).
fn ds_flows(ctx: &dyn Ctx, flows: &[u32]) -> Vec<DsFlow> {
    let now = ctx.now();
    flows
        .iter()
        .map(|&f| {
            let p = ctx.progress(FlowId(f));
            let left_bits =
                p.size.map_or(f64::MAX / 4.0, |s| s.saturating_sub(p.acked) as f64 * 8.0);
            let to_deadline_s = ctx.flow(FlowId(f)).deadline.map_or(f64::INFINITY, |d| {
                if d > now {
                    (d - now).as_secs_f64()
                } else {
                    0.0
                }
            });
            DsFlow { left_bits, to_deadline_s }
        })
        .collect()
}

/// LS: each flow's queue in the tunnel, its bytes not sent yet (bits).
fn ls_queues(ctx: &dyn Ctx, flows: &[u32]) -> Vec<f64> {
    flows
        .iter()
        .map(|&f| ctx.progress(FlowId(f)).backlog().min(u64::MAX / 16) as f64 * 8.0)
        .collect()
}

/// The first multiple of `cycle` after `now` (loops keep a common phase).
fn next_tick(now: Time, cycle: Time) -> Time {
    Time((now.0 / cycle.0 + 1) * cycle.0)
}

impl Scheme for Scc {
    /// A weight for a tenant no flow has would be silently unused: refused.
    fn check_tenants(&self, tenants: &[String]) -> Result<()> {
        for name in self.cfg.weights.keys() {
            let tenant = name.rsplit_once('/').map_or(name.as_str(), |(t, _)| t);
            if tenants.iter().any(|t| t == tenant) {
                continue;
            }
            let known: Vec<&str> = tenants.iter().map(String::as_str).collect();
            let hint = crate::config::suggest::nearest(tenant, known.iter().copied())
                .map(|s| format!("did you mean \"{s}\"? "))
                .unwrap_or_default();
            return Err(crate::error::config_err(
                format!("scheme.weights.{name}"),
                format!(
                    "no flow has tenant \"{tenant}\"; {hint}the run's tenants are {}",
                    crate::config::one_of(&known)
                ),
            ));
        }
        Ok(())
    }

    /// TCP with its class's controller, its window on, capped at the tunnel's share;
    /// ECN-capable (the underlay's marks, which the receiving shim clears, and its re-marks).
    fn transport(&self, def: &crate::workload::flow::FlowDef) -> SchemeTransport {
        let objective = Objective::parse(&def.class).unwrap_or(Objective::Cs);
        let cc = self
            .cfg
            .cc
            .iter()
            .find(|(k, _)| Objective::parse(k) == Some(objective))
            .map_or_else(|| objective.paper_cc(), |(_, c)| c.clone());
        SchemeTransport::Rate {
            initial_bps: None,
            window: Window::On,
            dupthresh: 3,
            ecn: true,
            cc: Some(cc),
        }
    }

    fn on_flow_start(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        let def = ctx.flow(flow);
        let (tenant, src, dst) = (def.tenant.clone(), def.src, def.dst);
        let objective = Objective::parse(&def.class).unwrap_or_else(|| {
            self.unclassified += 1;
            Objective::Cs
        });
        let d = self.division(&tenant, objective, src);
        let t = self.tunnel(ctx, flow, d, objective);
        ctx.set_agg(flow, t as u32);
        self.tunnels[t].flows.push(flow.0);
        self.flow_tunnel.insert(flow.0, t);
        Self::activate(ctx, &mut self.by_src, src, t, self.cfg.slot, SLOT);
        Self::activate(ctx, &mut self.by_dst, dst, t, self.cfg.feedback, FEEDBACK);
        self.wake_tracker(ctx, d);
        self.rerate(ctx, t);
    }

    fn on_flow_sent(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        if let Some(&t) = self.flow_tunnel.get(&flow.0) {
            self.rerate(ctx, t);
        }
    }

    fn on_flow_end(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        let Some(t) = self.flow_tunnel.remove(&flow.0) else { return };
        self.tunnels[t].flows.retain(|&f| f != flow.0);
        if self.tunnels[t].flows.is_empty() {
            let (src, dst) = (self.tunnels[t].src, self.tunnels[t].dst);
            for (map, host) in [(&mut self.by_src, src), (&mut self.by_dst, dst)] {
                if let Some(e) = map.get_mut(&host) {
                    e.0.retain(|&x| x != t);
                }
            }
        }
        self.rerate(ctx, t);
    }

    fn on_message(&mut self, ctx: &mut dyn Ctx, _at: NodeId, msg: &Message) {
        if let Some(m) = msg.body::<ReportMsg>() {
            self.divisions[m.division].refs.extend(m.refs.iter().copied());
        } else if let Some(m) = msg.body::<WeightMsg>() {
            for &(t, w) in &m.weights {
                self.tunnels[t].weight = w;
            }
        } else if let Some(m) = msg.body::<FeedbackMsg>() {
            let tunnel = &mut self.tunnels[m.tunnel];
            tunnel.queueing = m.delay.saturating_sub(tunnel.base_delay);
            tunnel.max_rtt = tunnel.max_rtt.max(tunnel.rtt + tunnel.queueing);
            let p = self.params(ctx, m.tunnel);
            let rtt = self.rtt_now(m.tunnel);
            let now = ctx.now();
            let tunnel = &mut self.tunnels[m.tunnel];
            let hold = Time((rtt.0 as f64 * self.cfg.cut_every) as u64);
            let may_cut = tunnel.last_cut.is_none_or(|at| now >= at + hold);
            let used = m.bytes as f64 * 8.0 / self.cfg.feedback.as_secs_f64();
            if tunnel.under.feedback(&p, tunnel.weight, m.marked, m.total, used, may_cut) {
                tunnel.last_cut = Some(now);
            }
            self.rerate(ctx, m.tunnel);
        }
    }

    fn on_timer(&mut self, ctx: &mut dyn Ctx, agent: u32, tag: u32) {
        match tag {
            SLOT => self.slot(ctx, agent),
            FEEDBACK => self.feedback(ctx, agent),
            TRACKER => self.tracker(ctx, agent as usize),
            _ => {}
        }
    }

    /// The receiving shim: counts the tunnel's packets and marks, clears the mark, and
    /// re-marks by the queue in the tunnel.
    fn on_host_packet(&mut self, ctx: &mut dyn Ctx, _host: u32, pkt: &mut Packet) {
        if pkt.kind != PacketKind::Data {
            return;
        }
        let Some(tunnel) = self.tunnels.get_mut(pkt.agg as usize) else { return };
        tunnel.rx_total += 1;
        tunnel.rx_bytes += pkt.size as u64;
        tunnel.rx_delay += ctx.now().saturating_sub(pkt.ts).0 as u128;
        if pkt.ecn.ce() {
            tunnel.rx_marked += 1;
            pkt.ecn.set_ce(false);
        }
        if self.cfg.remark
            && self.queue_in_tunnel(ctx, pkt.agg as usize, pkt.flow) as f64
                > self.cfg.remark_threshold * (ctx.transport().mss + ctx.transport().header) as f64
        {
            pkt.ecn.set_ce(true);
            ctx.count("scc_remarks", 1);
        }
    }

    fn summary(&self) -> serde_json::Value {
        let divisions: Vec<serde_json::Value> = self
            .division_of
            .iter()
            .map(|((tenant, o), &d)| serde_json::json!({ "id": d, "tenant": tenant, "objective": o.name(), "weight": self.divisions[d].w_d, "max_weight_sum_error": self.divisions[d].max_error }))
            .collect();
        // Divisions are listed by name; a tunnel's `division` is a division's `id`.
        let tunnels: Vec<serde_json::Value> = self.tunnels.iter().map(|t| serde_json::json!({ "src": t.src, "dst": t.dst, "division": t.division, "weight": t.weight, "rate_bps": t.under.rate })).collect();
        serde_json::json!({ "divisions": divisions, "tunnels": tunnels, "unclassified_flows": self.unclassified })
    }
}
