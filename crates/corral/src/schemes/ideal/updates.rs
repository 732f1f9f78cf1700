//! `ideal` with `mode = "updates"`: a centralized max-min controller fed the same per-flow
//! information HCC's leaves produce (HCC paper, section IV-A, "Overhead": HCC against "a
//! centralized entity that periodically collects flow demands, calculates max-min fair
//! allocations, and distributes the allocations"), so that the two differ only in their
//! architecture: one entity hears every flow, where HCC's agents aggregate, quantize and prune
//! on the way up.
//!
//! - **Hosts.** Every `host_period` (HCC's host agents report every Cycle_parent) a host
//!   reads its flows' demands by the same model as HCC's leaves (`demand`,
//!   [`crate::schemes::app_demand`], with `host_period` as the backlog's horizon) and sends the
//!   controller one message with an entry per flow that arrived, left, or whose demand moved by
//!   more than `prune` (relative) of what it last reported: `report_header` bytes plus
//!   `report_entry` per entry, unaggregated and unquantized. A host with nothing to report
//!   sends nothing.
//! - **Controller** (at `controller`). It keeps every flow's latest demand and, every
//!   `period` while it has flows, reads the links' capacities, computes the weighted max-min
//!   rates of the flows it knows (their demands as caps, `headroom` kept free) and sends each
//!   flow whose rate moved by more than `prune` (or its first) a message of `rate_bytes` to its
//!   host. A lost message is not sent again (the next change is).
//! - **Flows** start as HCC's do (`first_rate`, default "window") and take each rate as it
//!   arrives; a flow's first rate waits up to one packet time at that rate (`jitter`).
//!
//! It counts the bytes and messages the controller receives and sends (`root_...`), the
//! hosts' (`l1_...`), and the flow events (`flow_arrivals`, `flow_departures`,
//! `demand_switches`), as HCC's scheme does.

use super::IdealConfig;
use crate::alloc::{Allocator, Problem, ProblemFlow};
use crate::ctrl::Message;
use crate::ids::{FlowId, NodeId};
use crate::net::Network;
use crate::schemes::app_demand::AppDemand;
use crate::schemes::hcc::demand::worth_sending;
use crate::schemes::hcc::next_tick;
use crate::schemes::{Ctx, Scheme, SchemeTransport};
use crate::units::Time;
use std::collections::{BTreeMap, BTreeSet};

/// Timer tags: the controller's period, and a host's (its index as the agent).
const CONTROLLER_TICK: u32 = 0;
const HOST_TICK: u32 = 1;

/// A host's report: per flow its new demand, `None` when the flow left.
#[derive(Clone, Debug)]
struct Report {
    entries: Vec<(u32, Option<f64>)>,
}

/// A flow's rate from the controller.
#[derive(Clone, Copy, Debug)]
struct RateMsg {
    flow: u32,
    bps: f64,
}

/// What a host knows of its flows.
#[derive(Default)]
struct Host {
    /// Active flows and the demand last reported (`None`: not reported yet).
    flows: BTreeMap<u32, Option<f64>>,
    /// Flows that left after being reported (the next report says so).
    left: Vec<u32>,
    /// Its tick is scheduled.
    awake: bool,
}

pub struct Updates {
    cfg: IdealConfig,
    app: AppDemand,
    controller: Option<NodeId>,
    alloc: Option<Allocator>,
    hosts: BTreeMap<u32, Host>,
    /// The controller's knowledge: allocator id per flow, and the rate last sent.
    slot: BTreeMap<u32, u32>,
    sent: BTreeMap<u32, f64>,
    /// Flows that have a rate (their first rate was set).
    rated: BTreeSet<u32>,
    controller_awake: bool,
}

impl Updates {
    pub fn new(cfg: IdealConfig) -> Updates {
        Updates {
            app: AppDemand::new(cfg.demand, cfg.on_period, cfg.off_period),
            cfg,
            controller: None,
            alloc: None,
            hosts: BTreeMap::new(),
            slot: BTreeMap::new(),
            sent: BTreeMap::new(),
            rated: BTreeSet::new(),
            controller_awake: false,
        }
    }

    fn wake_host(&mut self, ctx: &mut dyn Ctx, h: u32) {
        let host = self.hosts.entry(h).or_default();
        if !host.awake {
            host.awake = true;
            ctx.schedule(next_tick(ctx.now(), self.cfg.host_period), h, HOST_TICK);
        }
    }

    fn wake_controller(&mut self, ctx: &mut dyn Ctx) {
        if !self.controller_awake {
            self.controller_awake = true;
            ctx.schedule(next_tick(ctx.now(), self.cfg.period), 0, CONTROLLER_TICK);
        }
    }

    /// A host's period: one report of what changed, then sleep if it has no flows.
    fn host_tick(&mut self, ctx: &mut dyn Ctx, h: u32) {
        let flows: Vec<(u32, Option<f64>)> =
            self.hosts[&h].flows.iter().map(|(&f, &d)| (f, d)).collect();
        let mut entries: Vec<(u32, Option<f64>)> =
            std::mem::take(&mut self.hosts.get_mut(&h).expect("woken host").left)
                .into_iter()
                .map(|f| (f, None))
                .collect();
        for (f, last) in flows {
            let before = self.app.switched;
            let d = self.app.demand(ctx, FlowId(f), self.cfg.host_period);
            if self.app.switched > before {
                ctx.count("demand_switches", self.app.switched - before);
            }
            if worth_sending(last, d, self.cfg.prune) {
                entries.push((f, Some(d)));
                self.hosts.get_mut(&h).expect("woken host").flows.insert(f, Some(d));
            }
        }
        if !entries.is_empty() {
            let bytes = self.cfg.report_header + self.cfg.report_entry * entries.len() as u32;
            let c = self.controller.expect("init ran");
            ctx.count("l1_sent_bytes", u64::from(bytes));
            ctx.count("l1_sent_msgs", 1);
            ctx.send(
                ctx.net().hosts[h as usize],
                c,
                Message::new("ideal_update", bytes, Report { entries }),
            );
        }
        let host = self.hosts.get_mut(&h).expect("woken host");
        if host.flows.is_empty() && host.left.is_empty() {
            host.awake = false;
        } else {
            let next = ctx.now() + self.cfg.host_period;
            ctx.schedule(next, h, HOST_TICK);
        }
    }

    fn alloc(&mut self, ctx: &mut dyn Ctx) -> &mut Allocator {
        self.alloc.get_or_insert_with(|| {
            let capacity = crate::schemes::link_capacities(ctx.net());
            Allocator::new(Problem { capacity, headroom: self.cfg.headroom, flows: Vec::new() })
                .expect("link rates are valid capacities")
        })
    }

    /// The controller applies a host's report.
    fn receive(&mut self, ctx: &mut dyn Ctx, r: &Report) {
        for &(f, demand) in &r.entries {
            match (demand, self.slot.get(&f).copied()) {
                (None, Some(id)) => {
                    self.slot.remove(&f);
                    self.sent.remove(&f);
                    self.alloc(ctx).remove_flow(id).expect("live flow");
                }
                (Some(d), Some(id)) => self.alloc(ctx).set_demand(id, d).expect("live flow"),
                (Some(d), None) => {
                    let def = ctx.flow(FlowId(f));
                    let (weight, priority) = (def.weight, def.priority);
                    let usage = ctx.usage(FlowId(f));
                    // A flow failed links cut off from its destination uses no link: left out.
                    if !usage.is_empty() {
                        let spec = ProblemFlow { weight, priority, demand: d, usage };
                        let id = self.alloc(ctx).add_flow(spec).expect("usage from the topology");
                        self.slot.insert(f, id);
                    }
                }
                (None, None) => {}
            }
        }
        self.wake_controller(ctx);
    }

    /// The controller's period: the rates that moved go out; it sleeps without flows.
    fn controller_tick(&mut self, ctx: &mut dyn Ctx) {
        let c = self.controller.expect("init ran");
        if let Some(alloc) = &mut self.alloc {
            super::periodic::refresh_capacities(alloc, ctx.net());
            let rates: Vec<(u32, f64)> =
                self.slot.iter().map(|(&f, &id)| (f, alloc.rate(id).unwrap_or(0.0))).collect();
            for (f, bps) in rates {
                if worth_sending(self.sent.get(&f).copied(), bps, self.cfg.prune) {
                    self.sent.insert(f, bps);
                    let host = ctx.flow(FlowId(f)).src;
                    ctx.count("root_sent_bytes", u64::from(self.cfg.rate_bytes));
                    ctx.count("root_sent_msgs", 1);
                    ctx.send(
                        c,
                        ctx.net().hosts[host as usize],
                        Message::new("ideal_rate", self.cfg.rate_bytes, RateMsg { flow: f, bps }),
                    );
                }
            }
        }
        if self.slot.is_empty() {
            self.controller_awake = false;
        } else {
            let next = ctx.now() + self.cfg.period;
            ctx.schedule(next, 0, CONTROLLER_TICK);
        }
    }

    fn leave(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        let h = ctx.flow(flow).src;
        let Some(host) = self.hosts.get_mut(&h) else { return };
        if let Some(reported) = host.flows.remove(&flow.0) {
            ctx.count("flow_departures", 1);
            self.app.forget(flow);
            self.rated.remove(&flow.0);
            if reported.is_some() {
                host.left.push(flow.0);
            }
            self.wake_host(ctx, h);
        }
    }
}

impl Scheme for Updates {
    fn transport(&self, _def: &crate::workload::flow::FlowDef) -> SchemeTransport {
        self.cfg.start().transport()
    }

    fn check(
        &self,
        _topology: &crate::net::topo::TopologyConfig,
        net: &Network,
    ) -> crate::error::Result<()> {
        super::periodic::controller(net, self.cfg.controller.as_deref()).map(|_| ())
    }

    fn init(&mut self, ctx: &mut dyn Ctx) {
        self.controller =
            super::periodic::controller(ctx.net(), self.cfg.controller.as_deref()).ok();
    }

    fn on_flow_start(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        let h = ctx.flow(flow).src;
        ctx.count("flow_arrivals", 1);
        self.hosts.entry(h).or_default().flows.insert(flow.0, None);
        self.wake_host(ctx, h);
    }

    fn on_flow_sent(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        self.leave(ctx, flow);
    }

    fn on_flow_end(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        self.leave(ctx, flow);
    }

    fn on_message(&mut self, ctx: &mut dyn Ctx, at: NodeId, msg: &Message) {
        if let Some(r) = msg.body::<Report>() {
            if Some(at) == self.controller {
                ctx.count("root_received_bytes", u64::from(msg.bytes));
                ctx.count("root_received_msgs", 1);
                self.receive(ctx, r);
            }
        } else if let Some(r) = msg.body::<RateMsg>() {
            ctx.count("l1_received_bytes", u64::from(msg.bytes));
            ctx.count("l1_received_msgs", 1);
            let f = FlowId(r.flow);
            let p = ctx.progress(f);
            let h = ctx.flow(f).src;
            let active = self.hosts.get(&h).is_some_and(|host| host.flows.contains_key(&r.flow));
            if !active || p.finished || p.size.is_some_and(|s| p.sent >= s) {
                return;
            }
            if self.cfg.jitter && self.rated.insert(r.flow) && r.bps > 0.0 {
                let t = ctx.transport();
                let packet_time = (t.mss + t.header) as f64 * 8.0 / r.bps;
                let delay = Time((ctx.rng().unit() * packet_time * 1e12) as u64);
                ctx.set_rate_after(f, r.bps, delay);
            } else {
                ctx.set_rate(f, r.bps);
            }
            ctx.count("rate_changes", 1);
        }
    }

    fn on_timer(&mut self, ctx: &mut dyn Ctx, agent: u32, tag: u32) {
        match tag {
            CONTROLLER_TICK => self.controller_tick(ctx),
            HOST_TICK => self.host_tick(ctx, agent),
            _ => {}
        }
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({ "controller_flows": self.slot.len() })
    }
}
