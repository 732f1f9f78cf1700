//! `ideal`: the omniscient centralized max-min controller that R2C2 (SIGCOMM 2015, section
//! 5.2, the rates of rho = 0) and HCC (section IV, the centralized allocator) measure
//! themselves against. On every start and end of one of its flows it recomputes the
//! weighted max-min rates of all its active flows with [`crate::alloc`] (incrementally; flow
//! weights, priorities and a headroom kept free on every link) and sets every flow whose rate
//! changed, `delay` after the event (0: at once). It counts the rate changes it sends. A
//! flow leaves the allocation once it has sent its last new byte (it keeps its rate for any
//! retransmission): a controller that knows every flow's size gives the capacity of a flow
//! waiting for its last ACKs to the others at once.
//!
//! Rates are wire rates (headers included), on link capacity: the token bucket of each flow
//! counts wire bytes, so a flow's goodput is its rate times `mss / (mss + header)`. A flow's
//! usage is its data path (fraction 1 per link, or its routing's split). ACKs are not part
//! of it: a flow whose ACKs cross a saturated link would freeze there at the rate of the
//! flows filling it (max-min gives every flow on a bottleneck the same rate, whatever its
//! share of the link), so the headroom carries them, as in R2C2 (40 B per 1500 B packet is
//! 2.7 % of the reverse link). Before its first allocation arrives (with `delay > 0`) a flow
//! sends as `first_rate` says: at its access-link rate by default, as R2C2's senders do.
//!
//! Two control-plane modes stand for HCC's centralized baseline: `periodic` ([`periodic`]:
//! every host reports all its flows every period) and `updates` ([`updates`]: hosts report
//! only the changes of their flows' demands, the information HCC's leaves give their agents).

use super::app_demand::{self, DemandModel};
use super::{Ctx, FirstRate, Scheme, SchemeTransport};
use crate::alloc::{Allocator, Problem, ProblemFlow};
use crate::config::typed;
use crate::error::{ensure, Result};
use crate::ids::FlowId;
use crate::units::Time;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

pub mod periodic;
pub mod updates;

/// How the controller learns of flows and tells them their rates.
#[derive(Clone, Copy, Debug, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// It knows every start and end at once, and its rates take effect at once (or `delay`
    /// later).
    Instant,
    /// Hosts report to a controller switch every `period` and it sends rates back, as real
    /// control messages ([`periodic`]).
    Periodic,
    /// Hosts report each flow's arrival, departure and demand changes every `host_period`,
    /// and the controller sends each flow its rate when it changes ([`updates`]).
    Updates,
}

/// `[scheme]` with `kind = "ideal"`.
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct IdealConfig {
    /// "instant" (default), "periodic" or "updates".
    pub mode: Mode,
    /// Periodic: the reporting and computing period; updates: the computing period (default
    /// "100us").
    pub period: Time,
    /// Periodic and updates: the controller's switch (default: the first switch with the
    /// most ports).
    pub controller: Option<String>,
    /// Updates: how often a host reports its flows' changes (default "8us": HCC-2's host
    /// agents' Cycle_parent, 8 delays of a 1 us host link).
    pub host_period: Time,
    /// Updates: a demand or rate change of at most this fraction of the last value sent is
    /// not sent (default 0.01, HCC's `prune`).
    pub prune: f64,
    /// Updates: a flow's demand, "backlog" (default), "line" or "onoff", as HCC's leaves
    /// (schemes/app_demand.rs), with the on-off model's mean periods (defaults "1ms").
    pub demand: DemandModel,
    pub on_period: Time,
    pub off_period: Time,
    /// Periodic and updates: bytes of a host's report, a header and one entry per flow
    /// (defaults 16, 8), and of one flow's rate message (default 16).
    pub report_header: u32,
    pub report_entry: u32,
    pub rate_bytes: u32,
    /// Time from a flow event to the new rates (default "0s": at once).
    pub delay: Time,
    /// Fraction of every link kept unallocated, in [0, 1) (default 0.05, R2C2's choice).
    pub headroom: f64,
    /// A flow's first packet at its first rate waits a uniform random delay of up to one
    /// packet time at that rate (default true), HCC's burst fix: flows that start together
    /// would otherwise send in lockstep and meet at switches in bursts.
    pub jitter: bool,
    /// What a flow sends before its first rate: "line" (its access-link rate), "window" (TCP
    /// with `transport.initial_window` until the rate arrives) or "wait". Default: "line" in
    /// instant mode (R2C2's senders), "window" in periodic and updates modes (HCC's flows,
    /// whose centralized baseline these modes are, start so).
    pub first_rate: Option<FirstRate>,
}

impl IdealConfig {
    /// `first_rate`, or its default for the mode.
    pub fn start(&self) -> FirstRate {
        self.first_rate.unwrap_or(if self.mode != Mode::Instant {
            FirstRate::Window
        } else {
            FirstRate::Line
        })
    }
}

impl Default for IdealConfig {
    fn default() -> Self {
        IdealConfig {
            mode: Mode::Instant,
            period: Time::from_us(100),
            controller: None,
            host_period: Time::from_us(8),
            prune: 0.01,
            demand: DemandModel::Backlog,
            on_period: app_demand::DEFAULT_PERIOD,
            off_period: app_demand::DEFAULT_PERIOD,
            report_header: 16,
            report_entry: 8,
            rate_bytes: 16,
            delay: Time::ZERO,
            headroom: 0.05,
            jitter: true,
            first_rate: None,
        }
    }
}

pub fn build(table: toml::Value) -> Result<Box<dyn Scheme>> {
    let cfg: IdealConfig = typed(table, "scheme")?;
    super::check_fraction("headroom", cfg.headroom)?;
    super::check_message_bytes(&[
        ("report_header", cfg.report_header),
        ("report_entry", cfg.report_entry),
        ("rate_bytes", cfg.rate_bytes),
    ])?;
    let periodic = cfg.mode == Mode::Periodic;
    let updates = cfg.mode == Mode::Updates;
    let unused = |key: &str, used: bool, modes: &str| {
        ensure(used, &format!("scheme.{key}"), || format!("only used with mode = {modes}"))
    };
    let d = IdealConfig::default();
    let both = "\"periodic\" or \"updates\"";
    unused("controller", periodic || updates || cfg.controller.is_none(), both)?;
    unused("period", periodic || updates || cfg.period == d.period, both)?;
    unused("delay", !(periodic || updates) || cfg.delay == d.delay, "\"instant\"")?;
    let only_updates = "\"updates\"";
    unused("host_period", updates || cfg.host_period == d.host_period, only_updates)?;
    unused("prune", updates || cfg.prune == d.prune, only_updates)?;
    unused("demand", updates || cfg.demand == d.demand, only_updates)?;
    app_demand::check(cfg.demand, cfg.on_period, cfg.off_period)?;
    if updates {
        ensure(cfg.period > Time::ZERO, "scheme.period", || "must be positive".into())?;
        ensure(cfg.host_period > Time::ZERO, "scheme.host_period", || "must be positive".into())?;
        super::check_fraction("prune", cfg.prune)?;
        ensure(cfg.report_header >= 1 && cfg.rate_bytes >= 1, "scheme.report_header", || {
            "report_header and rate_bytes must be at least 1 byte".into()
        })?;
        return Ok(Box::new(updates::Updates::new(cfg)));
    }
    if periodic {
        ensure(cfg.period > Time::ZERO, "scheme.period", || "must be positive".into())?;
        ensure(cfg.report_header >= 1 && cfg.rate_bytes >= 1, "scheme.report_header", || {
            "report_header and rate_bytes must be at least 1 byte".into()
        })?;
        return Ok(Box::new(periodic::Periodic::new(cfg)));
    }
    Ok(Box::new(Ideal {
        cfg,
        alloc: None,
        slot: BTreeMap::new(),
        rate: BTreeMap::new(),
        cut_off: BTreeSet::new(),
    }))
}

/// Timer tags: which event a delayed recomputation answers.
const START: u32 = 0;
const END: u32 = 1;

pub struct Ideal {
    cfg: IdealConfig,
    alloc: Option<Allocator>,
    /// Allocator id of each active flow.
    slot: BTreeMap<u32, u32>,
    /// The rate last set, per active flow.
    rate: BTreeMap<u32, f64>,
    /// Active flows without a route to their destination (failed links).
    cut_off: BTreeSet<u32>,
}

impl Ideal {
    fn alloc(&mut self, ctx: &mut dyn Ctx) -> &mut Allocator {
        self.alloc.get_or_insert_with(|| {
            let capacity = super::link_capacities(ctx.net());
            Allocator::new(Problem { capacity, headroom: self.cfg.headroom, flows: Vec::new() })
                .expect("link rates are valid capacities")
        })
    }

    /// The flow's data path (its routing's split over links), weight and priority.
    fn spec(ctx: &mut dyn Ctx, f: FlowId) -> ProblemFlow {
        let def = ctx.flow(f);
        let (weight, priority) = (def.weight, def.priority);
        ProblemFlow { weight, priority, demand: f64::INFINITY, usage: ctx.usage(f) }
    }

    fn add(&mut self, ctx: &mut dyn Ctx, f: FlowId) {
        let p = ctx.progress(f);
        if self.slot.contains_key(&f.0) || p.finished || p.size.is_some_and(|s| p.sent >= s) {
            return;
        }
        let spec = Self::spec(ctx, f);
        if spec.usage.is_empty() {
            // Failed links cut it off from its destination: it waits for a route.
            self.cut_off.insert(f.0);
            return;
        }
        let id = self.alloc(ctx).add_flow(spec).expect("usage from the topology");
        self.slot.insert(f.0, id);
    }

    fn remove(&mut self, ctx: &mut dyn Ctx, f: FlowId) {
        self.cut_off.remove(&f.0);
        if let Some(id) = self.slot.remove(&f.0) {
            self.rate.remove(&f.0);
            self.alloc(ctx).remove_flow(id).expect("live flow");
        }
    }

    /// Sets every active flow whose allocated rate moved.
    fn push_rates(&mut self, ctx: &mut dyn Ctx) {
        let Some(alloc) = &self.alloc else { return };
        for (&f, &id) in &self.slot {
            let r = alloc.rate(id).unwrap_or(0.0);
            let last = self.rate.get(&f).copied();
            if last.is_none_or(|l| (l - r).abs() > 1e-9 * r.max(1.0)) {
                if self.cfg.jitter && last.is_none() && r > 0.0 {
                    let t = ctx.transport();
                    let packet_time = (t.mss + t.header) as f64 * 8.0 / r;
                    let delay = Time((ctx.rng().unit() * packet_time * 1e12) as u64);
                    ctx.set_rate_after(FlowId(f), r, delay);
                } else {
                    ctx.set_rate(FlowId(f), r);
                }
                ctx.count("rate_changes", 1);
                self.rate.insert(f, r);
            }
        }
    }

    fn on_event(&mut self, ctx: &mut dyn Ctx, f: FlowId, tag: u32) {
        if tag == START {
            self.add(ctx, f);
        } else {
            self.remove(ctx, f);
        }
        self.push_rates(ctx);
    }

    fn event(&mut self, ctx: &mut dyn Ctx, f: FlowId, tag: u32) {
        if self.cfg.delay == Time::ZERO {
            self.on_event(ctx, f, tag);
        } else {
            let at = ctx.now() + self.cfg.delay;
            ctx.schedule(at, f.0, tag);
        }
    }
}

impl Scheme for Ideal {
    fn transport(&self, _def: &crate::workload::flow::FlowDef) -> SchemeTransport {
        self.cfg.start().transport()
    }

    fn on_flow_start(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        self.event(ctx, flow, START);
    }

    fn on_flow_sent(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        self.event(ctx, flow, END);
    }

    fn on_flow_end(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        self.event(ctx, flow, END);
    }

    fn on_timer(&mut self, ctx: &mut dyn Ctx, agent: u32, tag: u32) {
        self.on_event(ctx, FlowId(agent), tag);
    }

    /// Links failed or came back: every active flow again, on the routes that avoid the
    /// links that are down (whose capacity is 0).
    fn on_topology_change(&mut self, ctx: &mut dyn Ctx) {
        let active: BTreeSet<u32> =
            self.slot.keys().copied().chain(std::mem::take(&mut self.cut_off)).collect();
        self.alloc = None;
        self.slot.clear();
        for f in active {
            self.add(ctx, FlowId(f));
        }
        self.push_rates(ctx);
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({ "active_flows": self.slot.len() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_rate_defaults_follow_the_mode() {
        let instant = IdealConfig::default();
        assert_eq!(instant.start(), FirstRate::Line);
        let periodic = IdealConfig { mode: Mode::Periodic, ..IdealConfig::default() };
        assert_eq!(periodic.start(), FirstRate::Window);
        assert_eq!(
            IdealConfig { first_rate: Some(FirstRate::Wait), ..periodic }.start(),
            FirstRate::Wait
        );
        let SchemeTransport::Rate { initial_bps, window, .. } = FirstRate::Window.transport()
        else {
            panic!()
        };
        assert_eq!((initial_bps, window), (None, super::super::Window::UntilRate));
        let SchemeTransport::Rate { initial_bps, window, .. } = FirstRate::Line.transport() else {
            panic!()
        };
        assert_eq!((initial_bps, window), (None, super::super::Window::Off));
    }
}
