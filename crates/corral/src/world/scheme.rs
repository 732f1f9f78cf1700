//! The scheme's side of the simulation: its [`Ctx`], how its hooks are called, and its
//! control messages as packets.
//!
//! A hook runs with the scheme taken out of the simulation; what it asks for that sends
//! packets (new rates that let a flow send, control messages) is queued as an [`Action`]
//! and done once the hook has returned and the scheme is back, so that packets the actions
//! send can pass the scheme's tapped ports too.
//!
//! Control messages (`crate::ctrl`): in band, a unicast message is one packet forwarded
//! along the shortest path to its node; a broadcast is a packet per child port of the
//! sender in its tree, and at every switch it reaches the scheme hears of it and a copy
//! goes to each child. Out of band, each receiver gets it after the configured delay.

use super::{Event, Simulation};
use crate::ctrl::{ControlMode, Dest, Message};
use crate::ids::{FlowId, NodeId, PktId, PortId};
use crate::net::queue::Discipline;
use crate::net::{Ecn, Network, Packet, PacketKind, NO_AGG};
use crate::route::{RouteTable, Routing, NO_WAYPOINT};
use crate::schemes::{Ctx, FlowProgress, Scheme};
use crate::sim::Rng;
use crate::transport::TcpConfig;
use crate::units::{Rate, Time};
use crate::workload::flow::FlowDef;

/// Work a scheme's hook asked for.
pub enum Action {
    /// A flow's rate changed: let it send what the new rate allows.
    Resume(FlowId),
    /// A tunnel queue's rate changed: release what it allows.
    ServeTunnel(u32),
    Send {
        from: NodeId,
        dest: Dest,
        msg: Message,
    },
}

impl Simulation {
    /// Runs `hook` on the scheme (if any), then the actions it queued.
    pub(super) fn call_scheme(&mut self, hook: impl FnOnce(&mut dyn Scheme, &mut dyn Ctx)) {
        let Some(mut scheme) = self.scheme.take() else { return };
        hook(scheme.as_mut(), &mut SchemeCtx { sim: self });
        self.scheme = Some(scheme);
        self.run_pending();
    }

    /// Does the actions the scheme's hooks queued (which may queue more).
    fn run_pending(&mut self) {
        while !self.pending.is_empty() {
            for action in std::mem::take(&mut self.pending) {
                match action {
                    Action::Resume(f) => {
                        if self.flows[f.idx()].def.start <= self.events.now()
                            && !self.flows[f.idx()].blocked
                        {
                            self.drive_sender(f, |s, now, out| s.resume(now, out));
                        }
                    }
                    Action::ServeTunnel(agg) => self.serve_tunnel(agg),
                    Action::Send { from, dest, msg } => self.send_control(from, dest, msg),
                }
            }
        }
    }

    /// The scheme sees a packet offered to tapped port `out`.
    pub(super) fn tap_port(&mut self, out: PortId, pkt: PktId) {
        let mut p = self.arena.get(pkt).clone();
        self.call_scheme(|s, ctx| s.on_port_packet(ctx, out, &mut p));
        *self.arena.get_mut(pkt) = p;
    }

    /// The scheme sees a packet of one of its flows reaching tapped host `host`.
    /// Its `ts` is when it left its source host: a wait in a tunnel queue is added for the
    /// hook and taken off again.
    pub(super) fn tap_host(&mut self, host: u32, pkt: PktId) {
        let mut p = self.arena.get(pkt).clone();
        let ts = p.ts;
        if p.kind == PacketKind::Data && self.in_tunnel(p.agg) {
            p.ts = ts + self.arena.held(pkt);
        }
        self.call_scheme(|s, ctx| s.on_host_packet(ctx, host, &mut p));
        p.ts = ts;
        *self.arena.get_mut(pkt) = p;
    }

    /// Sends a control message in band or out of band.
    fn send_control(&mut self, from: NodeId, dest: Dest, msg: Message) {
        let now = self.events.now();
        if self.ctrl.cfg.mode == ControlMode::OutOfBand {
            let receivers = match dest {
                Dest::Node(n) => vec![n],
                Dest::Broadcast { tree } => self.ctrl.tree_nodes(&self.net, from, tree),
            };
            let bytes = msg.bytes;
            if receivers.is_empty() {
                return;
            }
            let slot = self.ctrl.open(msg, from, dest, receivers.len() as u32);
            // Offered: the bytes the message would put on the links of its path or tree in
            // band, so that the two modes count the same traffic.
            let links = match dest {
                Dest::Node(to) => self.ctrl.hops(&self.net, from, to).unwrap_or(0),
                Dest::Broadcast { tree } => self.ctrl.tree_edges(&self.net, from, tree),
            };
            self.ctrl.note_offered(slot, links);
            let at = now + self.ctrl.cfg.delay;
            for node in receivers {
                self.ctrl.note_sent(slot, None, bytes);
                self.events.schedule(at, Event::CtrlDeliver { slot, node });
            }
            return;
        }
        match dest {
            Dest::Node(to) if to == from => {
                let slot = self.ctrl.open(msg, from, dest, 1);
                self.events.schedule(now, Event::CtrlDeliver { slot, node: to });
            }
            Dest::Node(to) => {
                let slot = self.ctrl.open(msg, from, dest, 1);
                let hops = self.ctrl.hops(&self.net, from, to).unwrap_or(0);
                self.ctrl.note_offered(slot, hops);
                match self.ctrl.next_port(&self.net, from, to) {
                    Some(out) => self.control_packet(slot, to.0, out),
                    // Cut off by failed links: reported to the sender as a loss.
                    None => self.control_dropped(slot),
                }
            }
            Dest::Broadcast { tree } => {
                let children = self.ctrl.tree_children(&self.net, from, tree, from).to_vec();
                if children.is_empty() {
                    return;
                }
                let slot = self.ctrl.open(msg, from, dest, children.len() as u32);
                let edges = self.ctrl.tree_edges(&self.net, from, tree);
                self.ctrl.note_offered(slot, edges);
                for out in children {
                    self.control_packet(slot, u32::MAX, out);
                }
            }
        }
    }

    /// Puts one control packet of message `slot` on output port `out`.
    fn control_packet(&mut self, slot: u32, dst: u32, out: PortId) {
        let size = self.ctrl.message(slot).bytes;
        let prio = self.ctrl.cfg.priority;
        let pkt = self.arena.alloc(Packet {
            flow: FlowId(slot),
            kind: PacketKind::Control,
            seq: 0,
            payload: 0,
            size,
            dst,
            waypoint: NO_WAYPOINT,
            agg: NO_AGG,
            leg: Default::default(),
            ridx: 0,
            rlen: 0,
            ecn: Ecn::default(),
            prio,
            in_slot: 0,
            ts: self.events.now(),
        });
        self.counts.sent += 1;
        self.counts.sent_bytes += size as u64;
        if self.net.host_index[self.net.ports[out.idx()].node.idx()].is_none() {
            self.counts.switch_sent += 1;
        }
        let local = self.net.ports[out.idx()].local_slot();
        self.enqueue(out, pkt, local);
    }

    /// A control packet arrived at `node` through input slot `in_slot`.
    pub(super) fn on_control_arrive(&mut self, node: NodeId, in_slot: u16, pkt: PktId) {
        let (slot, size, dst) = {
            let p = self.arena.get(pkt);
            (p.flow.0, p.size, p.dst)
        };
        match self.ctrl.dest(slot) {
            Dest::Node(to) if to != node => {
                match self.ctrl.next_port(&self.net, node, to) {
                    Some(out) => self.enqueue(out, pkt, in_slot),
                    // Cut off by failed links.
                    None => self.lose_without_route(node, pkt, in_slot),
                }
                return;
            }
            Dest::Node(_) => {}
            Dest::Broadcast { tree } => {
                let src = self.ctrl.source(slot);
                let children = self.ctrl.tree_children(&self.net, src, tree, node).to_vec();
                self.ctrl.add_copies(slot, children.len() as u32);
                for out in children {
                    self.control_packet(slot, dst, out);
                }
            }
        }
        self.arena.free(pkt);
        self.counts.delivered += 1;
        self.counts.delivered_bytes += size as u64;
        if self.net.host_index[node.idx()].is_none() {
            self.counts.switch_delivered += 1;
        }
        self.deliver_control(node, slot);
    }

    /// Message `slot` reached `node`: the scheme hears of it.
    pub(super) fn deliver_control(&mut self, node: NodeId, slot: u32) {
        self.ctrl.note_delivered(slot);
        let msg = self.ctrl.message(slot).clone();
        self.ctrl.close_copy(slot);
        self.call_scheme(|s, ctx| s.on_message(ctx, node, &msg));
    }

    /// A queue dropped a packet of control message `slot`.
    pub(super) fn control_dropped(&mut self, slot: u32) {
        self.ctrl.note_dropped(slot);
        let (src, msg) = (self.ctrl.source(slot), self.ctrl.message(slot).clone());
        self.ctrl.close_copy(slot);
        self.call_scheme(|s, ctx| s.on_message_dropped(ctx, src, &msg));
    }
}

/// The simulation as a scheme sees it.
struct SchemeCtx<'a> {
    sim: &'a mut Simulation,
}

impl Ctx for SchemeCtx<'_> {
    fn now(&self) -> Time {
        self.sim.events.now()
    }

    fn net(&self) -> &Network {
        &self.sim.net
    }

    fn routes(&self) -> &RouteTable {
        &self.sim.routes
    }

    fn transport(&self) -> &TcpConfig {
        &self.sim.scenario.transport
    }

    fn seed(&self) -> u64 {
        self.sim.scenario.seed
    }

    fn topology(&self) -> &crate::net::topo::TopologyConfig {
        &self.sim.scenario.topology
    }

    fn rng(&mut self) -> &mut Rng {
        &mut self.sim.scheme_rng
    }

    fn flows(&self) -> usize {
        self.sim.flows.len()
    }

    fn flow(&self, f: FlowId) -> &FlowDef {
        &self.sim.flows[f.idx()].def
    }

    fn managed(&self, f: FlowId) -> bool {
        self.sim.hot[f.idx()].managed
    }

    fn progress(&self, f: FlowId) -> FlowProgress {
        let flow = &self.sim.flows[f.idx()];
        let (sent, acked, next) = flow.sender.progress();
        FlowProgress {
            size: flow.def.size,
            sent,
            acked,
            delivered: flow.receiver.delivered(),
            next,
            rate_bps: flow.sender.rate_bps(),
            srtt: flow.sender.srtt(),
            window: flow.sender.window(),
            losses: flow.sender.stats.fast_recoveries + flow.sender.stats.timeouts,
            started: flow.def.start <= self.sim.events.now(),
            finished: flow.sender.finished(),
        }
    }

    fn routing(&self, f: FlowId) -> Routing {
        self.sim.hot[f.idx()].routing
    }

    fn usage(&mut self, f: FlowId) -> Vec<(u32, f64)> {
        let h = &self.sim.hot[f.idx()];
        let mut ub = crate::route::usage::UsageBuilder::new(
            &self.sim.net,
            &self.sim.routes,
            self.sim.scenario.seed,
        );
        ub.usage(h.routing, f.0, h.src, h.dst)
    }

    fn set_port_ecn(&mut self, port: PortId, on: bool) {
        self.sim.net.ports[port.idx()].ecn_off = !on;
    }

    fn access_rate(&self, h: u32) -> Rate {
        self.sim.net.ports[self.sim.net.host_port(h).idx()].rate()
    }

    fn queue(&self, port: PortId) -> (u64, u64) {
        let q = &self.sim.net.ports[port.idx()].queue;
        (q.bytes(), q.packets())
    }

    fn set_rate(&mut self, f: FlowId, bps: f64) {
        let now = self.now();
        self.sim.flows[f.idx()].sender.set_rate(now, bps, None);
        self.sim.pending.push(Action::Resume(f));
    }

    fn set_rate_after(&mut self, f: FlowId, bps: f64, delay: Time) {
        let now = self.now();
        self.sim.flows[f.idx()].sender.set_rate(now, bps, Some(now + delay));
        self.sim.pending.push(Action::Resume(f));
    }

    fn set_window(&mut self, f: FlowId, bytes: Option<u64>) {
        self.sim.flows[f.idx()].sender.set_window_cap(bytes);
        self.sim.pending.push(Action::Resume(f));
    }

    fn rate_phase(&self, f: FlowId) -> Option<f64> {
        self.sim.flows[f.idx()].sender.rate_phase(self.now())
    }

    fn set_routing(&mut self, f: FlowId, r: Routing) {
        let h = &mut self.sim.hot[f.idx()];
        h.routing = r;
        h.leg = r.leg();
    }

    fn set_agg(&mut self, f: FlowId, agg: u32) {
        self.sim.hot[f.idx()].agg = agg;
    }

    fn set_tunnel_rate(&mut self, agg: u32, host: u32, bps: f64) {
        self.sim.set_tunnel_rate(agg, host, bps);
        self.sim.pending.push(Action::ServeTunnel(agg));
    }

    fn tunnel_queue(&self, agg: u32) -> (u64, u64) {
        self.sim.tunnel(agg).map_or((0, 0), |q| q.len())
    }

    fn schedule(&mut self, at: Time, agent: u32, tag: u32) {
        let at = at.max(self.now());
        self.sim.events.schedule(at, Event::Timer { agent, tag });
    }

    fn send(&mut self, from: NodeId, to: NodeId, msg: Message) {
        self.sim.pending.push(Action::Send { from, dest: Dest::Node(to), msg });
    }

    fn broadcast(&mut self, from: NodeId, tree: u32, msg: Message) {
        self.sim.pending.push(Action::Send { from, dest: Dest::Broadcast { tree }, msg });
    }

    fn tap_port(&mut self, port: PortId) {
        self.sim.net.ports[port.idx()].tapped = true;
    }

    fn tap_host(&mut self, h: u32) {
        self.sim.tapped_hosts[h as usize] = true;
        self.sim.hosts_tapped = true;
    }

    fn count(&mut self, name: &'static str, n: u64) {
        *self.sim.scheme_counters.entry(name).or_insert(0) += n;
    }
}
