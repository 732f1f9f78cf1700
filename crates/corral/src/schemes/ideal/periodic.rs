//! `ideal` with `mode = "periodic"`: the centralized max-min controller HCC compares its
//! overhead with (section IV: "one entity periodically collects every flow's demand,
//! computes max-min, and sends each flow its rate"), with its messages on the control plane.
//!
//! Every `period`, each host with active flows sends the controller one report (a header of
//! `report_header` bytes and `report_entry` bytes per flow; a backlogged flow's demand is its
//! line rate, so the report names the flows), and a host whose flows have all ended sends an
//! empty one. At the same ticks the controller computes the weighted max-min rates of the
//! flows its latest reports name (headroom kept free, as in `mode = "instant"`) and sends each
//! flow its rate, `rate_bytes` per flow, to the flow's host. Lost messages are not re-sent:
//! the next period repeats them. At each computation it reads every link's current capacity,
//! as HCC's agents read their ports' at each cycle, so `[[events]]` that change a link's rate
//! reach its allocation within a period. Before its first rate a flow starts as HCC's do,
//! TCP with its initial window (`first_rate`, default "window"). The scheme counts the bytes
//! and messages the controller receives and sends (`root_received_bytes`, `root_sent_bytes`,
//! `..._msgs`), the hosts' (`l1_...`), and the flows' arrivals and departures, as HCC's does.

use super::IdealConfig;
use crate::alloc::{Allocator, Problem, ProblemFlow};
use crate::ctrl::Message;
use crate::error::{config_err, Result};
use crate::ids::{FlowId, NodeId};
use crate::net::{Network, NodeKind};
use crate::schemes::{Ctx, Scheme, SchemeTransport};
use std::collections::{BTreeMap, BTreeSet};

/// Timer tag of the period.
const TICK: u32 = 0;

/// A host's report: the flows it has active.
#[derive(Clone, Debug)]
struct Report {
    host: u32,
    flows: Vec<u32>,
}

/// A flow's rate from the controller.
#[derive(Clone, Copy, Debug)]
struct RateMsg {
    flow: u32,
    bps: f64,
}

pub struct Periodic {
    cfg: IdealConfig,
    controller: Option<NodeId>,
    alloc: Option<Allocator>,
    /// Active flows at each host (what its next report says).
    active: BTreeMap<u32, BTreeSet<u32>>,
    /// Hosts whose flows all ended since their last report (they send one empty report).
    emptied: BTreeSet<u32>,
    /// The controller's knowledge: flows of each host's latest report, and their allocator
    /// ids.
    known: BTreeMap<u32, BTreeSet<u32>>,
    slot: BTreeMap<u32, u32>,
}

impl Periodic {
    pub fn new(cfg: IdealConfig) -> Periodic {
        Periodic {
            cfg,
            controller: None,
            alloc: None,
            active: BTreeMap::new(),
            emptied: BTreeSet::new(),
            known: BTreeMap::new(),
            slot: BTreeMap::new(),
        }
    }

    fn tick(&mut self, ctx: &mut dyn Ctx) {
        let c = self.controller.expect("init ran");
        self.compute_and_send(ctx, c);
        for (&h, flows) in &self.active {
            let bytes = self.cfg.report_header + self.cfg.report_entry * flows.len() as u32;
            ctx.count("l1_sent_bytes", u64::from(bytes));
            ctx.count("l1_sent_msgs", 1);
            ctx.send(
                ctx.net().hosts[h as usize],
                c,
                Message::new(
                    "ideal_report",
                    bytes,
                    Report { host: h, flows: flows.iter().copied().collect() },
                ),
            );
        }
        for h in std::mem::take(&mut self.emptied) {
            ctx.count("l1_sent_bytes", u64::from(self.cfg.report_header));
            ctx.count("l1_sent_msgs", 1);
            ctx.send(
                ctx.net().hosts[h as usize],
                c,
                Message::new(
                    "ideal_report",
                    self.cfg.report_header,
                    Report { host: h, flows: Vec::new() },
                ),
            );
        }
        let next = ctx.now() + self.cfg.period;
        ctx.schedule(next, 0, TICK);
    }

    /// The controller applies a report: flows it no longer names leave, new ones join.
    fn receive_report(&mut self, ctx: &mut dyn Ctx, r: &Report) {
        let now: BTreeSet<u32> = r.flows.iter().copied().collect();
        let before = self.known.insert(r.host, now.clone()).unwrap_or_default();
        let alloc = self.alloc.get_or_insert_with(|| {
            let capacity = crate::schemes::link_capacities(ctx.net());
            Allocator::new(Problem { capacity, headroom: self.cfg.headroom, flows: Vec::new() })
                .expect("link rates are valid capacities")
        });
        for f in before.difference(&now) {
            if let Some(id) = self.slot.remove(f) {
                alloc.remove_flow(id).expect("live flow");
            }
        }
        for &f in now.difference(&before) {
            let def = ctx.flow(FlowId(f));
            let (weight, priority) = (def.weight, def.priority);
            let spec = ProblemFlow {
                weight,
                priority,
                demand: f64::INFINITY,
                usage: ctx.usage(FlowId(f)),
            };
            // A flow failed links cut off from its destination uses no link: left out.
            if !spec.usage.is_empty() {
                let id = alloc.add_flow(spec).expect("usage from the topology");
                self.slot.insert(f, id);
            }
        }
    }

    fn compute_and_send(&mut self, ctx: &mut dyn Ctx, c: NodeId) {
        let Some(alloc) = &mut self.alloc else { return };
        refresh_capacities(alloc, ctx.net());
        for (&f, &id) in &self.slot {
            let bps = alloc.rate(id).unwrap_or(0.0);
            let host = ctx.flow(FlowId(f)).src;
            ctx.send(
                c,
                ctx.net().hosts[host as usize],
                Message::new("ideal_rate", self.cfg.rate_bytes, RateMsg { flow: f, bps }),
            );
            ctx.count("root_sent_bytes", self.cfg.rate_bytes as u64);
            ctx.count("root_sent_msgs", 1);
        }
    }

    fn forget(&mut self, ctx: &mut dyn Ctx, flow: FlowId, host: u32) {
        if let Some(set) = self.active.get_mut(&host) {
            if set.remove(&flow.0) {
                ctx.count("flow_departures", 1);
                if set.is_empty() {
                    self.active.remove(&host);
                    self.emptied.insert(host);
                }
            }
        }
    }
}

/// Sets every link whose capacity moved (a rate `[[events]]` entry, a failure) to its
/// current one.
pub(super) fn refresh_capacities(alloc: &mut Allocator, net: &Network) {
    let moved: Vec<(u32, f64)> = crate::schemes::link_capacities(net)
        .into_iter()
        .zip(alloc.capacities())
        .enumerate()
        .filter(|(_, (now, before))| now != *before)
        .map(|(l, (now, _))| (l as u32, now))
        .collect();
    for (l, now) in moved {
        alloc.set_capacity(l, now).expect("link rates are valid capacities");
    }
}

/// The controller's switch: `name`, or the first switch with the most ports.
pub fn controller(net: &Network, name: Option<&str>) -> Result<NodeId> {
    match name {
        Some(n) => net
            .node_by_name(n)
            .filter(|id| net.nodes[id.idx()].kind == NodeKind::Switch)
            .ok_or_else(|| config_err("scheme.controller", format!("unknown switch \"{n}\""))),
        None => {
            let best = net
                .nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| n.kind == NodeKind::Switch)
                .max_by_key(|(i, n)| (n.ports.len(), std::cmp::Reverse(*i)));
            best.map(|(i, _)| NodeId(i as u32)).ok_or_else(|| {
                config_err("scheme.mode", "\"periodic\" needs a switch for its controller")
            })
        }
    }
}

impl Scheme for Periodic {
    fn transport(&self, _def: &crate::workload::flow::FlowDef) -> SchemeTransport {
        self.cfg.start().transport()
    }

    fn check(&self, _topology: &crate::net::topo::TopologyConfig, net: &Network) -> Result<()> {
        controller(net, self.cfg.controller.as_deref()).map(|_| ())
    }

    fn init(&mut self, ctx: &mut dyn Ctx) {
        self.controller = controller(ctx.net(), self.cfg.controller.as_deref()).ok();
        ctx.schedule(self.cfg.period, 0, TICK);
    }

    fn on_flow_start(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        let host = ctx.flow(flow).src;
        ctx.count("flow_arrivals", 1);
        self.active.entry(host).or_default().insert(flow.0);
        self.emptied.remove(&host);
    }

    fn on_flow_sent(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        let host = ctx.flow(flow).src;
        self.forget(ctx, flow, host);
    }

    fn on_flow_end(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        let host = ctx.flow(flow).src;
        self.forget(ctx, flow, host);
    }

    fn on_message(&mut self, ctx: &mut dyn Ctx, at: NodeId, msg: &Message) {
        if let Some(r) = msg.body::<Report>() {
            if Some(at) == self.controller {
                ctx.count("root_received_bytes", msg.bytes as u64);
                ctx.count("root_received_msgs", 1);
                self.receive_report(ctx, r);
            }
        } else if let Some(r) = msg.body::<RateMsg>() {
            ctx.count("l1_received_bytes", msg.bytes as u64);
            ctx.count("l1_received_msgs", 1);
            let p = ctx.progress(FlowId(r.flow));
            if !p.finished && p.size.is_none_or(|s| p.sent < s) {
                ctx.set_rate(FlowId(r.flow), r.bps);
                ctx.count("rate_changes", 1);
            }
        }
    }

    fn on_timer(&mut self, ctx: &mut dyn Ctx, _agent: u32, tag: u32) {
        if tag == TICK {
            self.tick(ctx);
        }
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({ "controller_flows": self.slot.len() })
    }
}
