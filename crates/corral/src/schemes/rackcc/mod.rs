//! RackCC ("RackCC: Rack-level Congestion Control", HotNets 2016): all subflows
//! between two racks share one congestion signal, and new subflows start at their share.
//!
//! - **JumboFlow** ([`jumbo`], section 3.1): one per ordered (source ToR, destination ToR)
//!   pair; its id is stamped on its subflows' packets. The source ToR taps its ports: echoed
//!   ACKs on its way down to its servers give α (an EWMA of the marked fraction, gain `g`,
//!   one round per base RTT), data on its way up gives T (the last round's throughput). Every
//!   aggregation period (`period`) it sends each of its servers, as one control message, the
//!   state of the JumboFlows it has subflows in: α, whether the last round had marks, and the
//!   period's Fast Start decision.
//! - **Marking**: switches mark above K as the scenario's queues say, except the destination
//!   ToR's ports to its servers, which the scheme turns off (the paper's "every switch
//!   except the last hop").
//! - **Per-subflow law** ([`law::per_rtt`]): once per RTT (the sender's smoothed RTT,
//!   queueing included, as DCTCP's window moves once per RTT) the source server moves each
//!   subflow's f by the latest state it has: f + MSS/RTT without marks when unconstrained, f
//!   when constrained, f (1 − α/2) with marks (at most once per ToR round, and only for a
//!   round that ended an RTT after the subflow's last cut, so that one congestion event
//!   cuts once). A subflow is constrained when D < f or its NIC's fair share (max-min over
//!   its subflows' caps) is below f (section 3.2, "if the final, observed rate of the
//!   subflow is f_target..."). A subflow whose sender detected a loss since the last step
//!   halves f instead (`loss_halves`), as the DCTCP flow it stands for would, unless D
//!   limits it (s = D < f: the destination's link, which D answers).
//! - **Destination rate** ([`law::DestinationLaw`], section 3.2): every `interval` a
//!   receiving server updates D from the bytes it received and the persistent queue at its
//!   ToR port (the least of the queue samples its ToR sent it that interval), and sends D
//!   to every connected source; it answers a new subflow's first packet with D at once.
//! - **Source rate**: s = min(f, D), the subflow's token-bucket rate; the NIC fair-queues
//!   the subflows (`host.scheduler = "fair"`).
//! - **Fast Start / Fast End** (section 3.3): a new subflow registers with its source ToR
//!   and sends nothing until the ToR's next period answers; then the M new subflows start at
//!   T / (N + M) and the N registered ones back off to f N / (N + M). Cold start (N = 0): the
//!   new ones share `cold_start_bps` (default: the source ToR's uplink capacity). A finished
//!   subflow unregisters.
//! - **Shared-α only** (`fast_start = false`, `destination = false`): the common signal
//!   alone. A subflow starts at TCP's initial window per RTT and doubles each RTT until its
//!   JumboFlow has a marked round (slow start), then follows the per-subflow law.
//! - **Each subflow's own signal** (`signal = "subflow"`, not the paper's design): the same
//!   per-subflow law with the subflow's own α from its own echoed ACKs at its sender (once
//!   per RTT) and a cut at its first marked ACK, at most once per RTT; no ToR in the loop. The
//!   plain rate-based DCTCP a JumboFlow is measured against (the one-path loss analysis).
//! - **Trace** (`trace`, off by default; [`trace`]): the loop sampled every interval (α, the
//!   ToR's marks, each subflow's f, s and bytes in flight) and every cut and ToR message, in
//!   the summary.
//!
//! Subflows between two servers of one rack form a rack-local JumboFlow (source ToR =
//! destination ToR): on a minimal route their only switch hop is the unmarked last hop, so
//! only their NIC and D limit them; a non-minimal routing (VLB) that takes them out of the
//! rack brings them marks like any other. Reliability is TCP's (duplicate ACKs, RTO);
//! sending is rate-based (section 5), or with `sending = "window"` by a window of s x RTT
//! (section 3.1 says the law sets "a subflow's congestion window").

pub mod jumbo;
pub mod law;
pub mod trace;

use super::{Ctx, Scheme, SchemeTransport, Window};
use crate::alloc::reference::single_bottleneck_level;
use crate::config::typed;
use crate::ctrl::Message;
use crate::error::{ensure, Result};
use crate::ids::{FlowId, NodeId, PortId};
use crate::net::{Packet, PacketKind};
use crate::units::Time;
use jumbo::{Jumbo, JumboState};
use law::{per_rtt, update_alpha, DestinationLaw};
use serde::Deserialize;
use std::collections::BTreeMap;

/// `[scheme]` with `kind = "rackcc"`.
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RackccConfig {
    /// α's EWMA gain (default 1/16, DCTCP's) and its value before the first round (default
    /// 1, DCTCP's `initial_alpha`: the first marked round halves the rates).
    pub g: f64,
    pub initial_alpha: f64,
    /// JumboFlows per ordered (source ToR, destination ToR) pair (default 1: Fig. 3's "all
    /// the flows are within a single JumboFlow"; Fig. 1 shows several, without a count). A
    /// new subflow joins the least congested one (lowest α, then fewest subflows), as the
    /// paper's section 5 suggests (CONGA-like). corral does not pin a JumboFlow to one path:
    /// under ECMP each subflow is hashed by its own id.
    pub jumboflows: u32,
    /// The ToR's aggregation period (default "10us", the paper's).
    pub period: Time,
    /// Fast Start (default true).
    pub fast_start: bool,
    /// The destination rate D_target (default true).
    pub destination: bool,
    /// D's gains k and k' (defaults 0.4 and 0.2; the paper gives none).
    pub k: f64,
    pub k_q: f64,
    /// D's control interval d (default "100us"; the paper gives none).
    pub interval: Time,
    /// D's lowest value as a fraction of C (default 0.01), so that D can grow again.
    pub d_floor: f64,
    /// The rate an idle JumboFlow's new subflows share (default: the source ToR's uplink
    /// capacity).
    pub cold_start_bps: Option<f64>,
    /// A fixed RTT for the ToR's rounds and the per-subflow law (default: the ToR's round is
    /// the JumboFlow's base RTT, and each subflow's law runs once per its smoothed RTT,
    /// queueing included, with r = MSS / that RTT, as DCTCP's window moves once per RTT).
    pub rtt: Option<Time>,
    /// How a subflow's f limits it (default "rate"). "rate": a token bucket at s = min(f, D),
    /// as the paper's section 5 says ("flow control is rate based, rather than window
    /// based"); "window": a congestion window of s x RTT, sent at the NIC's rate and clocked
    /// by ACKs, as its section 3.1 says ("servers set a subflow's congestion window using
    /// the following equation").
    pub sending: Sending,
    /// Whether a server applies a marked round's cut when the ToR's message brings it
    /// (default false: at the subflow's next RTT tick, as the paper says); either way at most once
    /// per round, and increases come once per RTT.
    pub cut_on_message: bool,
    /// Whether a subflow whose sender detected a loss (a loss recovery or a timeout) since its
    /// last law step halves f then, instead of that step's cut or increase (default true: the
    /// response of the DCTCP flow it stands for, RFC 8257 section 3.3 and RFC 5681; the paper's
    /// laws name ECN only, and it keeps loss detection at the servers).
    pub loss_halves: bool,
    /// Where a subflow's congestion signal comes from (default "jumboflow": the source ToR's
    /// α, shared by the JumboFlow's subflows, section 3.1). "subflow": each subflow keeps
    /// its own α from its own echoed ACKs at its sender (updated once per RTT) and cuts
    /// f (1 − α/2) at the first marked ACK, at most once per RTT, as a DCTCP flow does; no
    /// ToR in the loop. Not the paper's design: the plain rate-based DCTCP a JumboFlow is
    /// measured against.
    pub signal: Signal,
    /// What the law takes as a subflow's current rate f_cur (default "target": its previous
    /// f_target, which a paced subflow sends at; a subflow is constrained when D or its NIC's
    /// share is below f). "observed": the rate its sender saw acknowledged since its last law
    /// step (section 3.2: "if the final, observed rate of the subflow is f_target, it is
    /// bottlenecked by its JumboFlow. Otherwise, it is not and the source should not
    /// increase f_target"); a
    /// subflow whose observed rate falls short of f by more than one packet per step is
    /// constrained and steps from that rate (held there without marks, cut from it with
    /// them). Not the default: the reading corral's reproduction tests as a sensitivity.
    pub current: Current,
    /// Duplicate ACKs that trigger fast retransmit (default 3, TCP's; more tolerates the
    /// reordering of per-packet spraying).
    pub dupthresh: u32,
    /// Message sizes in bytes: the ToR's period message (header, per JumboFlow, per joined
    /// subflow), a registration, and a D advertisement or queue sample.
    pub tor_header: u32,
    pub tor_entry: u32,
    pub join_entry: u32,
    pub register_bytes: u32,
    pub rate_bytes: u32,
    /// Trace the control loop every this long into the summary (`scheme.state.trace`,
    /// [`trace`]: α, marks, messages, each subflow's f, s and bytes in flight, every cut;
    /// default off).
    pub trace: Option<Time>,
}

impl Default for RackccConfig {
    fn default() -> Self {
        RackccConfig {
            g: 1.0 / 16.0,
            initial_alpha: 1.0,
            jumboflows: 1,
            period: Time::from_us(10),
            fast_start: true,
            destination: true,
            k: 0.4,
            k_q: 0.2,
            interval: Time::from_us(100),
            d_floor: 0.01,
            cold_start_bps: None,
            rtt: None,
            sending: Sending::Rate,
            cut_on_message: false,
            loss_halves: true,
            signal: Signal::Jumboflow,
            current: Current::Target,
            dupthresh: 3,
            tor_header: 16,
            tor_entry: 16,
            join_entry: 4,
            register_bytes: 16,
            rate_bytes: 16,
            trace: None,
        }
    }
}

/// How a subflow's f limits its sending (`scheme.sending`): the paper says both (see
/// [`RackccConfig::sending`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Sending {
    Rate,
    Window,
}

/// Where a subflow's congestion signal comes from (`scheme.signal`, see
/// [`RackccConfig::signal`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Signal {
    Jumboflow,
    Subflow,
}

/// What the law takes as a subflow's current rate (`scheme.current`, see
/// [`RackccConfig::current`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Current {
    Target,
    Observed,
}

pub fn build(table: toml::Value) -> Result<Box<dyn Scheme>> {
    let cfg: RackccConfig = typed(table, "scheme")?;
    ensure(cfg.g > 0.0 && cfg.g <= 1.0, "scheme.g", || {
        format!("must be in (0, 1], got {}", cfg.g)
    })?;
    ensure((0.0..=1.0).contains(&cfg.initial_alpha), "scheme.initial_alpha", || {
        format!("must be in [0, 1], got {}", cfg.initial_alpha)
    })?;
    for (key, t) in [("period", cfg.period), ("interval", cfg.interval)] {
        ensure(t > Time::ZERO, &format!("scheme.{key}"), || "must be positive".into())?;
    }
    ensure(cfg.jumboflows >= 1, "scheme.jumboflows", || "must be at least 1".into())?;
    ensure(cfg.dupthresh >= 1, "scheme.dupthresh", || "must be at least 1".into())?;
    ensure(cfg.rtt.is_none_or(|t| t > Time::ZERO), "scheme.rtt", || "must be positive".into())?;
    ensure(cfg.trace.is_none_or(|t| t > Time::ZERO), "scheme.trace", || "must be positive".into())?;
    for (key, v) in [("k", cfg.k), ("k_q", cfg.k_q)] {
        ensure(v.is_finite() && v > 0.0 && v <= 2.0, &format!("scheme.{key}"), || {
            format!("must be in (0, 2], got {v}")
        })?;
    }
    ensure(cfg.d_floor > 0.0 && cfg.d_floor < 1.0, "scheme.d_floor", || {
        format!("must be in (0, 1), got {}", cfg.d_floor)
    })?;
    let max_bps = crate::units::MAX_RATE.bps() as f64;
    ensure(
        cfg.cold_start_bps.is_none_or(|b| b > 0.0 && b <= max_bps),
        "scheme.cold_start_bps",
        || format!("must be a positive rate in bit/s, at most {max_bps:e} (100 Tbps)"),
    )?;
    ensure(cfg.jumboflows <= 1024, "scheme.jumboflows", || {
        format!("must be at most 1024, got {}", cfg.jumboflows)
    })?;
    super::check_message_bytes(&[
        ("tor_header", cfg.tor_header),
        ("tor_entry", cfg.tor_entry),
        ("join_entry", cfg.join_entry),
        ("register_bytes", cfg.register_bytes),
        ("rate_bytes", cfg.rate_bytes),
    ])?;
    ensure(
        cfg.tor_header >= 1 && cfg.register_bytes >= 1 && cfg.rate_bytes >= 1,
        "scheme.tor_header",
        || "tor_header, register_bytes and rate_bytes must be at least 1 byte".into(),
    )?;
    let law = DestinationLaw {
        k: cfg.k,
        k_q: cfg.k_q,
        interval_s: cfg.interval.as_secs_f64(),
        floor: 0.0,
    };
    let trace = cfg.trace.map(trace::Trace::new);
    Ok(Box::new(Rackcc { cfg, law, trace, ..Rackcc::default() }))
}

/// Timer tags (the agent is a ToR node, a flow or a receiving host).
const TOR_PERIOD: u32 = 0;
const FLOW_RTT: u32 = 1;
const DEST_INTERVAL: u32 = 2;
const RETRY: u32 = 3;
const TRACE: u32 = 4;

/// A subflow's registration, server to source ToR; also its unregistration.
struct RegisterMsg {
    jumbo: usize,
    flow: u32,
    join: bool,
}

/// The source ToR's period message to one server.
struct TorMsg {
    host: u32,
    states: Vec<JumboState>,
    /// The message's records in the trace, one per state (empty without a trace).
    traced: Vec<usize>,
}

/// A ToR's queue sample at its port to a receiving server.
struct QueueMsg {
    host: u32,
    bytes: u64,
}

/// A receiving server's D, to a source server.
struct RateMsg {
    src: u32,
    dst: u32,
    d: f64,
}

/// A subflow as its source server keeps it.
#[derive(Clone, Debug)]
struct Sub {
    src: u32,
    dst: u32,
    jumbo: usize,
    f: f64,
    /// The destination's latest D (unbounded until heard).
    d: f64,
    /// f is known (Fast Start answered, or the subflow needs none).
    has_f: bool,
    /// Shared-α only: doubling until its JumboFlow has a marked round.
    slow_start: bool,
    /// The ToR round whose marks it last cut for, and when it cut.
    cut_round: u64,
    cut_at: Time,
    /// The base RTT of its path (its law's RTT until the sender has measured one).
    rtt: Time,
    /// The sender's loss count at the last law step.
    losses: u64,
    /// The rate last given to the sender.
    rate: f64,
    seen_at_dst: bool,
    /// `signal = "subflow"`: its own α, and its echoed ACKs and marked ones since the last
    /// RTT tick.
    own_alpha: f64,
    own_acks: u64,
    own_marks: u64,
    /// `current = "observed"`: its acknowledged bytes at its last law step, and when
    /// (`None` before the first step).
    step_acked: u64,
    step_at: Option<Time>,
}

/// What a server knows of one JumboFlow from the ToR's last message.
#[derive(Clone, Copy, Debug, Default)]
struct View {
    alpha: f64,
    marked: bool,
    round: u64,
    round_end: Time,
}

#[derive(Clone, Debug, Default)]
struct Tor {
    jumbos: Vec<usize>,
    /// Receiving servers below this ToR (host ids).
    dests: Vec<u32>,
    uplink_bps: f64,
    awake: bool,
}

#[derive(Clone, Debug)]
struct Dest {
    /// The ToR's port to the server, its capacity C (bit/s) and the ToR.
    port: PortId,
    c: f64,
    tor: NodeId,
    d: f64,
    bytes: u64,
    queue_min: Option<u64>,
    /// Active subflows into the server.
    flows: Vec<u32>,
    awake: bool,
}

#[derive(Default)]
pub struct Rackcc {
    cfg: RackccConfig,
    law: DestinationLaw,
    subs: BTreeMap<u32, Sub>,
    jumbos: Vec<Jumbo>,
    /// Each JumboFlow's sending servers, with their active subflow counts.
    members: Vec<BTreeMap<u32, u32>>,
    /// Each ordered ToR pair's JumboFlows.
    by_pair: BTreeMap<(u32, u32), Vec<usize>>,
    tors: BTreeMap<u32, Tor>,
    dests: BTreeMap<u32, Dest>,
    /// Active subflows of each sending server, and its view of each JumboFlow.
    host_flows: BTreeMap<u32, Vec<u32>>,
    views: BTreeMap<(u32, usize), View>,
    max_registered: u32,
    /// Lost messages to send again at the next aggregation period: (from, to, message).
    retry: Vec<(NodeId, NodeId, Message)>,
    /// The control loop's trace (`scheme.trace`), and whether its sampling timer runs.
    trace: Option<trace::Trace>,
    tracing: bool,
}

impl Rackcc {
    /// The base RTT of flow `f`'s path: a full data packet there, an ACK back.
    fn base_rtt(&self, ctx: &dyn Ctx, f: FlowId) -> Time {
        if let Some(t) = self.cfg.rtt {
            return t;
        }
        let (def, t) = (ctx.flow(f), ctx.transport());
        let via_top = ctx.routing(f).via_top();
        let one_way = |s: u32, d: u32, size: u64| {
            ctx.routes()
                .path(ctx.net(), ctx.net().hosts[s as usize], d, size, via_top)
                .map_or(Time::ZERO, |p| p.1)
        };
        (one_way(def.src, def.dst, (t.mss + t.header) as u64)
            + one_way(def.dst, def.src, t.header as u64))
        .max(Time::from_ns(1))
    }

    /// The RTT of subflow `f`'s law: the sender's smoothed RTT (queueing included), at least
    /// the base RTT; the fixed `rtt` setting if given. DCTCP moves its window once per RTT
    /// and adds one MSS per RTT, a rate step of MSS / RTT each RTT: a law clocked by the base
    /// RTT instead grows (RTT / base RTT)^2 times faster than the DCTCP flows it should
    /// emulate once a queue builds, and takes more than its share next to them.
    fn law_rtt(&self, ctx: &dyn Ctx, f: u32) -> Time {
        let base = self.subs[&f].rtt;
        if self.cfg.rtt.is_some() {
            return base;
        }
        ctx.progress(FlowId(f)).srtt.map_or(base, |s| s.max(base))
    }

    /// The ToR at `node`, its ports tapped and its uplink capacity summed on first use.
    fn tor(&mut self, ctx: &mut dyn Ctx, node: NodeId) -> &mut Tor {
        if let std::collections::btree_map::Entry::Vacant(slot) = self.tors.entry(node.0) {
            let mut uplink_bps = 0.0;
            for &p in &ctx.net().nodes[node.idx()].ports.clone() {
                ctx.tap_port(p);
                let peer = ctx.net().ports[p.idx()].peer;
                if ctx.net().host_index[peer.idx()].is_none() {
                    uplink_bps += ctx.net().ports[p.idx()].rate().bps() as f64;
                }
            }
            slot.insert(Tor { uplink_bps, ..Tor::default() });
        }
        self.tors.get_mut(&node.0).expect("just made")
    }

    fn wake_tor(&mut self, ctx: &mut dyn Ctx, node: u32) {
        let tor = self.tors.get_mut(&node).expect("a known ToR");
        if !tor.awake {
            tor.awake = true;
            ctx.schedule(next_tick(ctx.now(), self.cfg.period), node, TOR_PERIOD);
        }
    }

    /// The JumboFlow from `src_tor` to `dst_tor` a new subflow joins: the least congested of
    /// the pair's `jumboflows`, made on first use.
    fn jumbo(&mut self, ctx: &mut dyn Ctx, src_tor: NodeId, dst_tor: NodeId, rtt: Time) -> usize {
        if !self.by_pair.contains_key(&(src_tor.0, dst_tor.0)) {
            let first = self.jumbos.len();
            let made: Vec<usize> = (first..first + self.cfg.jumboflows as usize).collect();
            for &j in &made {
                self.jumbos.push(Jumbo::new(src_tor.0, dst_tor.0, rtt, self.cfg.initial_alpha));
                self.members.push(BTreeMap::new());
                self.tor(ctx, src_tor).jumbos.push(j);
            }
            self.by_pair.insert((src_tor.0, dst_tor.0), made);
        }
        let candidates: Vec<(usize, f64, usize)> = self.by_pair[&(src_tor.0, dst_tor.0)]
            .iter()
            .map(|&j| (j, self.jumbos[j].alpha, self.members[j].values().sum::<u32>() as usize))
            .collect();
        jumbo::least_congested(&candidates)
    }

    /// The receiving server `host`'s agent: its ToR port's marking turned off, its packets
    /// tapped, its interval loop running.
    fn dest(&mut self, ctx: &mut dyn Ctx, host: u32) -> &mut Dest {
        if !self.dests.contains_key(&host) {
            let tor = ctx.net().attach[host as usize];
            let node = ctx.net().hosts[host as usize];
            let port = *ctx.net().nodes[tor.idx()]
                .ports
                .iter()
                .find(|&&p| ctx.net().ports[p.idx()].peer == node)
                .expect("a ToR port reaches each of its hosts");
            let c = ctx.net().ports[port.idx()].rate().bps() as f64;
            ctx.set_port_ecn(port, false);
            ctx.tap_host(host);
            self.tor(ctx, tor).dests.push(host);
            self.dests.insert(
                host,
                Dest {
                    port,
                    c,
                    tor,
                    d: c,
                    bytes: 0,
                    queue_min: None,
                    flows: Vec::new(),
                    awake: false,
                },
            );
        }
        self.dests.get_mut(&host).expect("just made")
    }

    /// Gives flow `f` its s = min(f, D) if it changed: as its token bucket's rate, or
    /// (`sending = "window"`) as a window of s over the law's RTT, the flow unpaced (at its
    /// NIC's rate) while it has one.
    fn apply(&mut self, ctx: &mut dyn Ctx, f: u32) {
        let window = self.cfg.sending == Sending::Window;
        let rtt = if window { self.law_rtt(ctx, f) } else { Time::ZERO };
        let Some(sub) = self.subs.get_mut(&f) else { return };
        let s = if sub.has_f { sub.f.min(sub.d) } else { 0.0 };
        if window && s > 0.0 {
            let t = ctx.transport();
            let payload = t.mss as f64 / (t.mss + t.header) as f64;
            let bytes = (s / 8.0 * rtt.as_secs_f64() * payload) as u64;
            ctx.set_window(FlowId(f), Some(bytes));
        }
        if s != sub.rate {
            sub.rate = s;
            let bucket = if window && s > 0.0 { ctx.access_rate(sub.src).bps() as f64 } else { s };
            ctx.set_rate(FlowId(f), bucket);
            ctx.count("rate_changes", 1);
        }
    }

    /// The NIC's fair share of `host`'s subflow `f`: max-min over the caps of its subflows
    /// that still have new data.
    fn nic_share(&self, ctx: &dyn Ctx, host: u32, f: u32) -> f64 {
        let mut caps: Vec<(f64, f64)> = self
            .host_flows
            .get(&host)
            .into_iter()
            .flatten()
            .filter(|&&g| ctx.progress(FlowId(g)).backlog() > 0)
            .map(|g| (1.0, self.subs[g].rate))
            .collect();
        let level = single_bottleneck_level(ctx.access_rate(host).bps() as f64, &mut caps);
        self.subs[&f].rate.min(level)
    }

    /// The per-subflow law (or slow start) for subflow `f` with its server's latest view of
    /// its JumboFlow. On its RTT timer (`tick`) it cuts for a fresh marked round or, unless
    /// it cut in the last RTT, grows or holds; on a ToR message (`cut_on_message`) it only
    /// cuts, for a fresh marked round. A round is fresh once per round, and only if it ended
    /// an RTT or more after the subflow's last cut (it holds ACKs of data sent after the
    /// cut, so its marks are news). A loss since the last step halves f instead, unless D
    /// limits the subflow (then the loss is D's to answer).
    fn law(&mut self, ctx: &mut dyn Ctx, f: u32, tick: bool) {
        let Some(sub) = self.subs.get(&f) else { return };
        if !sub.has_f {
            return;
        }
        let (src, now) = (sub.src, ctx.now());
        let rtt = self.law_rtt(ctx, f);
        let mut view = self.views.get(&(src, sub.jumbo)).copied().unwrap_or_default();
        let observed = if tick { self.observe(ctx, f) } else { None };
        let own = self.cfg.signal == Signal::Subflow;
        // Its own signal: α from the last RTT's ACKs, the cut already made at its first mark.
        let mut quiet = true;
        if own && tick {
            let sub = self.subs.get_mut(&f).expect("present");
            sub.own_alpha = update_alpha(sub.own_alpha, self.cfg.g, sub.own_marks, sub.own_acks);
            quiet = sub.own_marks == 0;
            (sub.own_acks, sub.own_marks) = (0, 0);
        }
        let sub = &self.subs[&f];
        if own {
            view = View { alpha: sub.own_alpha, ..View::default() };
        }
        let fresh_marks = view.marked
            && view.round > sub.cut_round
            && (sub.cut_round == 0 || view.round_end >= sub.cut_at + rtt);
        let t = ctx.transport();
        let r = (t.mss + t.header) as f64 * 8.0 / rtt.as_secs_f64();
        let losses = ctx.progress(FlowId(f)).losses;
        if tick && losses > sub.losses && (!self.cfg.loss_halves || sub.d < sub.f) {
            // D limits the subflow: the loss is the destination link's, which D answers
            // (halving f there lets D wind up toward C while f limits, then overshoot).
            self.subs.get_mut(&f).expect("present").losses = losses;
        } else if tick && losses > sub.losses {
            // One cut per loss event as for marks: the marked round it overlaps counts as cut.
            let sub = self.subs.get_mut(&f).expect("present");
            (sub.losses, sub.cut_at, sub.slow_start) = (losses, now, false);
            sub.cut_round = sub.cut_round.max(view.round);
            let before = sub.f;
            sub.f = (sub.f / 2.0).max(r);
            if let Some(trace) = self.trace.as_mut() {
                trace.cut(now, f, "loss", view.round, view.alpha, before, sub.f);
            }
            ctx.count("loss_cuts", 1);
            self.apply(ctx, f);
            return;
        }
        let sub = &self.subs[&f];
        let cut_lately = sub.cut_round > 0 && now < sub.cut_at + rtt;
        if !fresh_marks && (!tick || cut_lately || !quiet) {
            return;
        }
        // The observed reading: short of f by more than a packet, the subflow is held by
        // something other than its JumboFlow's signal, and its current rate is what it got.
        let short = observed.filter(|&(rate, slack)| rate + slack < sub.f).map(|(rate, _)| rate);
        let limited = sub.d < sub.f || self.nic_share(ctx, src, f) < sub.f || short.is_some();
        let access = ctx.access_rate(src).bps() as f64;
        let sub = self.subs.get_mut(&f).expect("present");
        if fresh_marks {
            (sub.cut_round, sub.cut_at, sub.slow_start) = (view.round, now, false);
        }
        let before = sub.f;
        let current = short.unwrap_or(sub.f);
        sub.f = if sub.slow_start && !limited {
            sub.f * 2.0
        } else {
            per_rtt(current, view.alpha, fresh_marks, limited, r)
        };
        sub.f = sub.f.clamp(r, access);
        if fresh_marks {
            if let Some(trace) = self.trace.as_mut() {
                trace.cut(now, f, "mark", view.round, view.alpha, before, sub.f);
            }
        }
        self.apply(ctx, f);
    }

    /// `current = "observed"`, at a law step of subflow `f`: the rate (bit/s on the wire) its
    /// sender saw acknowledged since its previous step, and one packet over that time (the
    /// count's resolution); `None` until a step after its first acknowledged byte, and with
    /// the default reading.
    fn observe(&mut self, ctx: &dyn Ctx, f: u32) -> Option<(f64, f64)> {
        if self.cfg.current != Current::Observed {
            return None;
        }
        let (acked, now, t) = (ctx.progress(FlowId(f)).acked, ctx.now(), ctx.transport());
        let sub = self.subs.get_mut(&f)?;
        if acked == 0 {
            return None; // the first window starts at its first acknowledged byte
        }
        let since = sub.step_at.replace(now);
        let bytes = acked.saturating_sub(std::mem::replace(&mut sub.step_acked, acked));
        let span = now.saturating_sub(since?).as_secs_f64();
        if span <= 0.0 {
            return None;
        }
        let wire = (t.mss + t.header) as f64 / t.mss as f64;
        Some((bytes as f64 * 8.0 * wire / span, (t.mss + t.header) as f64 * 8.0 / span))
    }

    /// A ToR's aggregation period: rounds closed, Fast Start decided, each server told;
    /// queue samples to its receiving servers.
    fn tor_period(&mut self, ctx: &mut dyn Ctx, node: u32) {
        let now = ctx.now();
        let tor = self.tors[&node].clone();
        let cold = self.cfg.cold_start_bps.unwrap_or(tor.uplink_bps);
        let mut per_host: BTreeMap<u32, TorMsg> = BTreeMap::new();
        let mut busy = false;
        for &j in &tor.jumbos {
            self.jumbos[j].close_round(now, self.cfg.g);
            let state = self.jumbos[j].period(j, self.cfg.fast_start, cold);
            self.max_registered = self.max_registered.max(self.jumbos[j].registry.n);
            busy |= self.jumbos[j].registry.n > 0;
            for &h in self.members[j].keys() {
                per_host
                    .entry(h)
                    .or_insert_with(|| TorMsg { host: h, states: Vec::new(), traced: Vec::new() })
                    .states
                    .push(state.clone());
            }
        }
        let tor_node = NodeId(node);
        for (h, mut msg) in per_host {
            if let Some(trace) = self.trace.as_mut() {
                msg.traced = msg
                    .states
                    .iter()
                    .map(|s| trace.message(now, h, s.round, s.alpha, s.marked))
                    .collect();
            }
            let joined: usize = msg.states.iter().map(|s| s.joined.len()).sum();
            let bytes = self.cfg.tor_header
                + self.cfg.tor_entry * msg.states.len() as u32
                + self.cfg.join_entry * joined as u32;
            ctx.send(tor_node, ctx.net().hosts[h as usize], Message::new("rackcc_tor", bytes, msg));
        }
        for &h in &tor.dests {
            let dest = &self.dests[&h];
            if dest.flows.is_empty() {
                continue;
            }
            busy = true;
            let bytes = ctx.queue(dest.port).0;
            ctx.send(
                tor_node,
                ctx.net().hosts[h as usize],
                Message::new("rackcc_queue", self.cfg.rate_bytes, QueueMsg { host: h, bytes }),
            );
        }
        let tor = self.tors.get_mut(&node).expect("known");
        if busy {
            ctx.schedule(now + self.cfg.period, node, TOR_PERIOD);
        } else {
            tor.awake = false;
        }
    }

    /// A receiving server's interval: D from the bytes received and the persistent queue,
    /// sent to every connected source.
    fn dest_interval(&mut self, ctx: &mut dyn Ctx, host: u32) {
        let interval = self.cfg.interval;
        let dest = self.dests.get_mut(&host).expect("known");
        let y = dest.bytes as f64 * 8.0 / interval.as_secs_f64();
        let q_bits = dest.queue_min.unwrap_or(0) as f64 * 8.0;
        dest.d = DestinationLaw { floor: self.cfg.d_floor * dest.c, ..self.law }
            .next(dest.d, dest.c, y, q_bits);
        (dest.bytes, dest.queue_min) = (0, None);
        let (d, flows) = (dest.d, dest.flows.clone());
        let sources: std::collections::BTreeSet<u32> =
            flows.iter().map(|f| self.subs[f].src).collect();
        for src in sources {
            self.send_rate(ctx, host, src, d);
        }
        let dest = self.dests.get_mut(&host).expect("known");
        if dest.flows.is_empty() {
            dest.awake = false;
        } else {
            ctx.schedule(ctx.now() + interval, host, DEST_INTERVAL);
        }
    }

    fn send_rate(&mut self, ctx: &mut dyn Ctx, dst: u32, src: u32, d: f64) {
        let (from, to) = (ctx.net().hosts[dst as usize], ctx.net().hosts[src as usize]);
        ctx.send(
            from,
            to,
            Message::new("rackcc_rate", self.cfg.rate_bytes, RateMsg { src, dst, d }),
        );
    }

    /// `signal = "subflow"`: an echoed ACK of subflow `f` reached its sender `host`. A marked
    /// one cuts f (1 − α/2) with the subflow's own α at once, unless it cut in the last RTT
    /// (DCTCP's once per window of data).
    fn own_ack(&mut self, ctx: &mut dyn Ctx, host: u32, f: u32, ece: bool) {
        if self.subs.get(&f).is_none_or(|s| s.src != host) {
            return; // an ACK after the subflow ended
        }
        let rtt = self.law_rtt(ctx, f);
        let now = ctx.now();
        let t = ctx.transport();
        let r = (t.mss + t.header) as f64 * 8.0 / rtt.as_secs_f64();
        let Some(sub) = self.subs.get_mut(&f).filter(|s| s.src == host) else { return };
        sub.own_acks += 1;
        sub.own_marks += ece as u64;
        if !ece || !sub.has_f || (sub.cut_round > 0 && now < sub.cut_at + rtt) {
            return;
        }
        let before = sub.f;
        sub.f = (sub.f * (1.0 - sub.own_alpha / 2.0)).max(r);
        (sub.cut_round, sub.cut_at, sub.slow_start) = (sub.cut_round + 1, now, false);
        let (alpha, round, after) = (sub.own_alpha, sub.cut_round, sub.f);
        if let Some(trace) = self.trace.as_mut() {
            trace.cut(now, f, "mark", round, alpha, before, after);
        }
        self.apply(ctx, f);
    }

    /// A trace sample (`scheme.trace`): every JumboFlow and active subflow; the timer stops
    /// when no subflow is active and restarts with the next.
    fn trace_sample(&mut self, ctx: &mut dyn Ctx) {
        let Some(every) = self.trace.as_ref().map(|t| t.every) else { return };
        let since = self.trace.as_ref().map(|t| t.since.clone()).unwrap_or_default();
        let jumbos = (0..self.jumbos.len())
            .map(|j| {
                let mine = self.subs.values().filter(|s| s.jumbo == j && s.has_f);
                let (sum_f, sum_s) = mine.fold((0.0, 0.0), |(f, s), sub| (f + sub.f, s + sub.rate));
                trace::JumboSample {
                    jumbo: j,
                    alpha: self.jumbos[j].alpha,
                    rounds: self.jumbos[j].rounds,
                    since: since.get(j).copied().unwrap_or_default(),
                    sum_f,
                    sum_s,
                }
            })
            .collect();
        let subs = self
            .subs
            .iter()
            .map(|(&flow, sub)| {
                let p = ctx.progress(FlowId(flow));
                trace::SubSample {
                    flow,
                    f: sub.f,
                    d: sub.d,
                    s: sub.rate,
                    inflight: p.next.saturating_sub(p.acked),
                }
            })
            .collect();
        let now = ctx.now();
        self.trace.as_mut().expect("tracing").sample(now, jumbos, subs);
        if self.subs.is_empty() {
            self.tracing = false;
        } else {
            ctx.schedule(now + every, 0, TRACE);
        }
    }

    fn register(&mut self, ctx: &mut dyn Ctx, f: u32, j: usize, join: bool) {
        let host = ctx.net().hosts[ctx.flow(FlowId(f)).src as usize];
        let tor = NodeId(self.jumbos[j].src_tor);
        ctx.send(
            host,
            tor,
            Message::new(
                if join { "rackcc_register" } else { "rackcc_unregister" },
                self.cfg.register_bytes,
                RegisterMsg { jumbo: j, flow: f, join },
            ),
        );
    }
}

/// The first multiple of `cycle` after `now` (ToR periods keep a common phase).
fn next_tick(now: Time, cycle: Time) -> Time {
    Time((now.0 / cycle.0 + 1) * cycle.0)
}

impl Scheme for Rackcc {
    /// Rate-based with TCP's reliability; ECN-capable with accurate echo (the source ToR
    /// counts marks from the echoed ACKs). Paused until on_flow_start gives the first rate.
    fn transport(&self, _def: &crate::workload::flow::FlowDef) -> SchemeTransport {
        SchemeTransport::Rate {
            initial_bps: Some(0.0),
            window: Window::Off,
            dupthresh: self.cfg.dupthresh,
            ecn: true,
            cc: None,
        }
    }

    fn on_flow_start(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        let (src, dst) = (ctx.flow(flow).src, ctx.flow(flow).dst);
        let (src_tor, dst_tor) = (ctx.net().attach[src as usize], ctx.net().attach[dst as usize]);
        let rtt = self.base_rtt(ctx, flow);
        let access = ctx.access_rate(src).bps() as f64;
        let t = ctx.transport();
        let initial_window =
            t.initial_window as f64 * (t.mss + t.header) as f64 * 8.0 / rtt.as_secs_f64();
        let j = self.jumbo(ctx, src_tor, dst_tor, rtt);
        ctx.set_agg(flow, j as u32);
        let (f, has_f) =
            if self.cfg.fast_start { (0.0, false) } else { (initial_window.min(access), true) };
        let sub = Sub {
            src,
            dst,
            jumbo: j,
            f,
            d: f64::INFINITY,
            has_f,
            slow_start: !self.cfg.fast_start,
            cut_round: 0,
            cut_at: Time::ZERO,
            rtt,
            losses: 0,
            rate: 0.0,
            seen_at_dst: false,
            own_alpha: self.cfg.initial_alpha,
            own_acks: 0,
            own_marks: 0,
            step_acked: 0,
            step_at: None,
        };
        self.register(ctx, flow.0, j, true);
        if self.cfg.signal == Signal::Subflow {
            ctx.tap_host(src);
        }
        ctx.schedule(ctx.now() + rtt, flow.0, FLOW_RTT);
        self.subs.insert(flow.0, sub);
        *self.members[j].entry(src).or_default() += 1;
        self.host_flows.entry(src).or_default().push(flow.0);
        if self.cfg.destination {
            let dest = self.dest(ctx, dst);
            dest.flows.push(flow.0);
            if !dest.awake {
                dest.awake = true;
                ctx.schedule(ctx.now() + self.cfg.interval, dst, DEST_INTERVAL);
            }
            let tor = self.dests[&dst].tor.0;
            self.wake_tor(ctx, tor);
        }
        self.apply(ctx, flow.0);
        if let Some(every) = self.trace.as_ref().map(|t| t.every).filter(|_| !self.tracing) {
            self.tracing = true;
            ctx.schedule(next_tick(ctx.now(), every), 0, TRACE);
        }
    }

    fn on_flow_end(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        let Some(sub) = self.subs.remove(&flow.0) else { return };
        if let Some(flows) = self.host_flows.get_mut(&sub.src) {
            flows.retain(|&g| g != flow.0);
        }
        let members = &mut self.members[sub.jumbo];
        if let Some(n) = members.get_mut(&sub.src) {
            *n -= 1;
            if *n == 0 {
                members.remove(&sub.src);
            }
        }
        if let Some(dest) = self.dests.get_mut(&sub.dst) {
            dest.flows.retain(|&g| g != flow.0);
        }
        self.register(ctx, flow.0, sub.jumbo, false);
    }

    fn on_message(&mut self, ctx: &mut dyn Ctx, _at: NodeId, msg: &Message) {
        if let Some(m) = msg.body::<RegisterMsg>() {
            let jumbo = &mut self.jumbos[m.jumbo];
            if m.join {
                jumbo.pending.push(m.flow);
                let tor = jumbo.src_tor;
                self.wake_tor(ctx, tor);
            } else if let Some(i) = jumbo.pending.iter().position(|&f| f == m.flow) {
                jumbo.pending.remove(i);
            } else {
                jumbo.registry.leave();
            }
        } else if let Some(m) = msg.body::<TorMsg>() {
            if let Some(trace) = self.trace.as_mut() {
                m.traced.iter().for_each(|&i| trace.delivered(i, ctx.now(), false));
            }
            let flows = self.host_flows.get(&m.host).cloned().unwrap_or_default();
            for state in &m.states {
                self.views.insert(
                    (m.host, state.jumbo),
                    View {
                        alpha: state.alpha,
                        marked: state.marked,
                        round: state.round,
                        round_end: state.round_end,
                    },
                );
                for &f in &flows {
                    let sub = self.subs.get_mut(&f).expect("an active subflow");
                    if sub.jumbo != state.jumbo {
                        continue;
                    }
                    if state.joined.contains(&f) {
                        if self.cfg.fast_start {
                            (sub.f, sub.has_f) = (state.first_f, true);
                        }
                    } else if sub.has_f {
                        sub.f *= state.back_off;
                    }
                    if self.cfg.cut_on_message {
                        self.law(ctx, f, false);
                    }
                    self.apply(ctx, f);
                }
            }
        } else if let Some(m) = msg.body::<QueueMsg>() {
            if let Some(dest) = self.dests.get_mut(&m.host) {
                dest.queue_min = Some(dest.queue_min.map_or(m.bytes, |q| q.min(m.bytes)));
            }
        } else if let Some(m) = msg.body::<RateMsg>() {
            let flows = self.host_flows.get(&m.src).cloned().unwrap_or_default();
            for f in flows {
                let sub = self.subs.get_mut(&f).expect("an active subflow");
                if sub.dst == m.dst {
                    sub.d = m.d;
                    self.apply(ctx, f);
                }
            }
        }
    }

    /// A lost registration, or a lost ToR message with a Fast Start decision, is sent again
    /// at the next aggregation period (at once it could meet the same full queue). Periodic
    /// state is not: the next period or interval brings it fresh.
    fn on_message_dropped(&mut self, ctx: &mut dyn Ctx, src: NodeId, msg: &Message) {
        if let (Some(trace), Some(m)) = (self.trace.as_mut(), msg.body::<TorMsg>()) {
            m.traced.iter().for_each(|&i| trace.delivered(i, ctx.now(), true));
        }
        let to = if let Some(m) = msg.body::<RegisterMsg>() {
            NodeId(self.jumbos[m.jumbo].src_tor)
        } else if let Some(m) = msg
            .body::<TorMsg>()
            .filter(|m| m.states.iter().any(|s| !s.joined.is_empty() || s.back_off != 1.0))
        {
            ctx.net().hosts[m.host as usize]
        } else {
            return;
        };
        ctx.count("resent_messages", 1);
        if self.retry.is_empty() {
            ctx.schedule(next_tick(ctx.now(), self.cfg.period), 0, RETRY);
        }
        self.retry.push((src, to, msg.clone()));
    }

    fn on_timer(&mut self, ctx: &mut dyn Ctx, agent: u32, tag: u32) {
        match tag {
            TOR_PERIOD => self.tor_period(ctx, agent),
            FLOW_RTT if self.subs.contains_key(&agent) => {
                self.law(ctx, agent, true);
                let rtt = self.law_rtt(ctx, agent);
                ctx.schedule(ctx.now() + rtt, agent, FLOW_RTT);
            }
            DEST_INTERVAL => self.dest_interval(ctx, agent),
            TRACE => self.trace_sample(ctx),
            RETRY => {
                for (from, to, msg) in std::mem::take(&mut self.retry) {
                    ctx.send(from, to, msg);
                }
            }
            _ => {}
        }
    }

    fn on_port_packet(&mut self, ctx: &mut dyn Ctx, port: PortId, pkt: &mut Packet) {
        if pkt.kind == PacketKind::Control || !ctx.managed(pkt.flow) {
            return;
        }
        let Some(j) = self.subs.get(&pkt.flow.0).map(|s| s.jumbo) else { return };
        let p = &ctx.net().ports[port.idx()];
        if p.node.0 != self.jumbos[j].src_tor {
            return;
        }
        let to_host = ctx.net().host_index[p.peer.idx()].is_some();
        match pkt.kind {
            PacketKind::Ack if to_host => self.jumbos[j].on_ack(pkt.ecn.ece()),
            PacketKind::Data if !to_host => self.jumbos[j].on_data(pkt.size),
            _ => return,
        }
        if let Some(trace) = self.trace.as_mut() {
            let c = trace.counters(j);
            match pkt.kind {
                PacketKind::Ack => (c.acks, c.marks) = (c.acks + 1, c.marks + pkt.ecn.ece() as u64),
                _ => c.bytes_up += pkt.size as u64,
            }
        }
    }

    fn on_host_packet(&mut self, ctx: &mut dyn Ctx, host: u32, pkt: &mut Packet) {
        if pkt.kind == PacketKind::Ack {
            if self.cfg.signal == Signal::Subflow {
                self.own_ack(ctx, host, pkt.flow.0, pkt.ecn.ece());
            }
            return;
        }
        if pkt.kind != PacketKind::Data {
            return;
        }
        let Some(dest) = self.dests.get_mut(&host) else { return };
        dest.bytes += pkt.size as u64;
        let d = dest.d;
        let Some(sub) = self.subs.get_mut(&pkt.flow.0) else { return };
        if !sub.seen_at_dst {
            sub.seen_at_dst = true;
            let src = sub.src;
            self.send_rate(ctx, host, src, d);
        }
    }

    fn summary(&self) -> serde_json::Value {
        let alpha: Vec<f64> = self.jumbos.iter().map(|j| j.alpha).collect();
        let registered: Vec<u32> = self.jumbos.iter().map(|j| j.registry.n).collect();
        let d: BTreeMap<u32, f64> = self.dests.iter().map(|(h, d)| (*h, d.d)).collect();
        let mut state = serde_json::json!({ "jumboflows": self.jumbos.len(), "max_registered": self.max_registered, "registered": registered, "alpha": alpha, "destination_rate_bps": d });
        if let Some(trace) = &self.trace {
            state["trace"] = trace.to_json();
        }
        state
    }
}
