//! The packet-level simulation: a network, its routes, every flow's transport endpoints, the
//! scheme with its control plane, and the metric collectors, driven by one event queue.
//! Split by concern, one private file each: packet forwarding through ports (`forward.rs`),
//! transport endpoints and their timers (`endpoints.rs`), the host send path (`hosts.rs`) and
//! its rate-limited tunnel queues (`tunnels.rs`), the scheme's context and control messages
//! (`scheme.rs`), periodic sampling (`sampling.rs`) and the final tables (`results.rs`).

mod backpressure;
mod endpoints;
mod export;
mod failures;
mod forward;
mod hosts;
mod make_flow;
mod path_cache;
pub mod results;
mod sampling;
mod scheme;
mod sessions;
mod tunnels;

use crate::build;
use crate::ctrl::ControlPlane;
use crate::error::Result;
use crate::ids::{FlowId, NodeId, PktId, PortId};
use crate::metrics::Metrics;
use crate::net::shared_buffer::SharedBuffer;
use crate::net::{Leg, Network, PacketArena};
use crate::route::source::SourceRoutes;
use crate::route::{RouteTable, Router, Routing};
use crate::scenario::Scenario;
use crate::schemes::Scheme;
use crate::sim::rng::{stream, Rng};
use crate::sim::EventQueue;
use crate::transport::{AckOut, Segment, TcpReceiver, TcpSender};
use crate::units::Time;
use crate::workload::flow::FlowDef;
use make_flow::make_flow;
use std::collections::BTreeMap;

/// Everything that can happen.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A packet has fully arrived (store-and-forward) at the node owning `port`, through it.
    Arrive {
        port: PortId,
        pkt: PktId,
    },
    /// `port` finished serializing; it starts on the next queued packet.
    Dequeue {
        port: PortId,
    },
    FlowStart {
        flow: FlowId,
    },
    /// A flow's retransmission timer may have expired.
    Rto {
        flow: FlowId,
    },
    /// A flow's pacing clock or token bucket lets its next segment leave.
    Pace {
        flow: FlowId,
    },
    /// A flow's delayed-ACK timer expired.
    DelAck {
        flow: FlowId,
    },
    /// A host's packet reaches its NIC queue after the host's processing jitter.
    NicEnqueue {
        port: PortId,
        pkt: PktId,
    },
    SampleThroughput,
    SampleQueues,
    /// A scheme's timer.
    Timer {
        agent: u32,
        tag: u32,
    },
    /// An out-of-band control message (slot) reaches `node`.
    CtrlDeliver {
        slot: u32,
        node: NodeId,
    },
    /// `[[events]]` change `index` (in time order): link rates, a link's state, or its
    /// discovery.
    LinkChange {
        index: u32,
    },
    /// An `[[rpc]]` session's next request is due.
    RpcRequest {
        session: u32,
    },
    /// A tunnel queue's next packet may leave (`tunnels.rs`).
    TunnelRelease {
        agg: u32,
    },
}

/// One connection: its definition, both endpoints and timer bookkeeping.
pub struct Flow {
    /// The flow's definition (boxed: the per-packet path reads [`FlowHot`] instead).
    pub def: Box<FlowDef>,
    pub hops: u32,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    /// Time of the live retransmission-timer event, if one is scheduled.
    rto_event_at: Option<Time>,
    /// Time of the live pacing-timer event, if one is scheduled.
    pace_event_at: Option<Time>,
    delack_armed: bool,
    /// Waiting for room in its host's NIC queue.
    blocked: bool,
    pub finish: Option<Time>,
    /// Index into `Simulation::classes` (traffic flows; 0 for `[[flows]]` flows).
    pub class_idx: u32,
    /// Shortest possible completion time on the empty network (sized flows).
    pub ideal: Option<Time>,
    /// Controller name, or "rate" for a rate-only sender.
    pub cc_name: &'static str,
    /// The scheme heard that it sent its last new byte, and of its end.
    sent_all: bool,
    ended: bool,
}

/// What the per-packet path reads of a flow, kept apart from the endpoints in one compact
/// array (`Simulation::hot`), so a packet's hop touches one small record.
#[derive(Clone, Copy, Debug)]
pub struct FlowHot {
    pub src: u32,
    pub dst: u32,
    pub weight: f64,
    pub routing: Routing,
    /// The per-hop rule of `routing`.
    pub leg: Leg,
    pub priority: u8,
    /// ECN-capable data packets.
    pub ect: bool,
    /// The scheme manages the flow.
    pub managed: bool,
    /// Index into `Simulation::tenants`.
    pub tenant: u16,
    /// Aggregate id stamped on its packets.
    pub agg: u32,
    /// Its packets carry its remaining size as priority (pFabric), not `priority`.
    pub size_priority: bool,
    /// Its data packets collect in-network telemetry, which its ACKs echo (HPCC).
    pub telemetry: bool,
    /// Its controller reads every ACK's signal (HPCC).
    pub ack_signals: bool,
}

/// Packet counters for the conservation check: sent = delivered + dropped + in flight.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PacketCounts {
    pub sent: u64,
    pub delivered: u64,
    pub data_delivered: u64,
    pub dropped: u64,
    pub sent_bytes: u64,
    pub delivered_bytes: u64,
    pub dropped_bytes: u64,
    /// Packets switches originated (control messages of agents at switches; counted in
    /// `sent`, never in a host's NIC).
    pub switch_sent: u64,
    /// Packets delivered to switches (control messages to agents at switches; counted in
    /// `delivered`).
    pub switch_delivered: u64,
    /// Of `dropped`: lost on a failed link (queued, on the wire, or routed onto it before
    /// the nodes found out), and where no route led on.
    pub lost_link_down: u64,
    pub lost_no_route: u64,
}

pub struct Simulation {
    pub scenario: Scenario,
    pub net: Network,
    routes: RouteTable,
    router: Router,
    source_routes: Option<SourceRoutes>,
    pub flows: Vec<Flow>,
    /// Per flow, what the per-packet path reads.
    pub hot: Vec<FlowHot>,
    /// Per flow (grown on demand), its learned path ([`path_cache`]).
    paths: Vec<path_cache::FlowPath>,
    events: EventQueue<Event>,
    arena: PacketArena,
    pub metrics: Metrics,
    pub counts: PacketCounts,
    /// Per node: the switch's shared buffer, when buffer_model = "shared" (empty when no
    /// node has one, so the per-packet path does not look).
    shared_buffers: Vec<Option<SharedBuffer>>,
    /// Ports whose queues are sampled.
    queue_ports: Vec<PortId>,
    header: u32,
    /// Host send paths: jitter and backpressure state.
    hosts: Vec<hosts::HostState>,
    /// Scratch buffers reused by the transport glue (no per-event allocation).
    seg_buf: Vec<Segment>,
    ack_buf: Vec<AckOut>,
    path_buf: Vec<PortId>,
    finalized: bool,
    /// Simulated time the run has been advanced to (all events up to it are done).
    reached: Time,
    /// Flows `0..explicit` come from `[[flows]]` (per-flow goodput series); the rest from
    /// `[[traffic]]` blocks, in start order (per-class series), up to `open_loop_end`; the
    /// flows after it are made by `[[rpc]]` sessions while the run goes.
    pub explicit: usize,
    pub open_loop_end: usize,
    /// The `[[rpc]]` sessions.
    pub rpc: sessions::RpcSessions,
    /// Classes of traffic flows, in order of first appearance.
    pub classes: Vec<String>,
    /// Tenants of all flows, in order of first appearance.
    pub tenants: Vec<String>,
    /// What the run was estimated to cost when built (memory, events).
    pub work: build::work::Work,
    /// The cooperative scheme (taken out while one of its hooks runs).
    scheme: Option<Box<dyn Scheme>>,
    /// The `[scheme]` kind, "" without one.
    pub scheme_name: String,
    pub ctrl: ControlPlane,
    scheme_rng: Rng,
    /// The scheme's counters (`Ctx::count`).
    pub scheme_counters: BTreeMap<&'static str, u64>,
    /// Hosts whose arriving packets of managed flows go through the scheme, and whether
    /// there are any.
    tapped_hosts: Vec<bool>,
    hosts_tapped: bool,
    /// `[[events]]`: scheduled link changes, in time order.
    link_events: build::LinkEvents,
    /// A link has failed during the run: arrivals check whether theirs is down.
    links_failed: bool,
    /// The ports outgrow the nearest caches, so the event loop prefetches for upcoming
    /// arrivals ([`Self::prefetch_upcoming`]); on smaller networks that costs more than it saves.
    prefetch: bool,
    /// Some flow collects in-network telemetry ([`crate::net::telemetry`]): switches stamp
    /// its data packets. Off, the per-packet path tests only this flag.
    telemetry: bool,
    /// Per flow (grown on demand, telemetry flows only): the records of the last data packet
    /// its receiver got, which its ACKs echo.
    int_echo: Vec<crate::net::telemetry::Telemetry>,
    /// Work a scheme asked for, done once its hook has returned.
    pending: Vec<scheme::Action>,
    /// `switch.backpressure`: per-flow counts at the switches (None when off).
    backpressure: Option<backpressure::Backpressure>,
    /// Rate-limited FIFO send queues by aggregate id ([`tunnels`]; empty when no scheme asked
    /// for one).
    tunnels: Vec<Option<tunnels::TunnelQueue>>,
}

impl Simulation {
    /// Builds the network and flows of a validated scenario; reference errors (unknown hosts,
    /// ports, unroutable pairs, scheme settings) are reported here, before any event runs.
    pub fn new(scenario: Scenario) -> Result<Simulation> {
        let scheme = scenario.scheme.as_ref().map(crate::schemes::build).transpose()?;
        let name = scenario
            .scheme
            .as_ref()
            .and_then(|s| s.get("kind"))
            .and_then(|k| k.as_str())
            .unwrap_or("")
            .to_string();
        Self::assemble(scenario, scheme.map(|s| (s, name)))
    }

    /// A run under a scheme that is not in the registry (a user's own, or a test's): flows
    /// whose `transport` is left at its default belong to it, as with a `[scheme]` section.
    pub fn with_scheme(
        scenario: Scenario,
        scheme: Box<dyn Scheme>,
        name: &str,
    ) -> Result<Simulation> {
        Self::assemble(scenario, Some((scheme, name.to_string())))
    }

    fn assemble(
        scenario: Scenario,
        scheme: Option<(Box<dyn Scheme>, String)>,
    ) -> Result<Simulation> {
        if scenario.mode == crate::scenario::Mode::Fluid {
            return Err(crate::error::config_err("mode", "\"fluid\" scenarios run in crate::fluid::FluidSim; Simulation is the packet-level engine"));
        }
        let (scheme, scheme_name) = match scheme {
            Some((s, n)) => (Some(s), n),
            None => (None, String::new()),
        };
        let b = build::build(&scenario, true, scheme.is_some())?;
        let share = scheme.as_deref().map(|s| {
            let active = build::work::active_flows(&scenario, &b);
            let (bytes, events) = s.estimate(&b.net, b.flows.len() as u64, active);
            build::work::SchemeShare { bytes, events }
        });
        let work = build::work::work(&scenario, &b, share);
        crate::scenario::budget::check_parts(&work.parts, scenario.memory_limit)?;
        if let Some(s) = &scheme {
            s.check(&scenario.topology, &b.net)?;
            s.check_tenants(&b.tenants)?;
        }
        let queue_ports = scenario
            .metrics
            .queue_ports
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                b.net.port_by_name(spec).ok_or_else(|| {
                    crate::error::config_err(format!("metrics.queue_ports[{i}]"), format!("unknown port \"{spec}\"; expected \"node:port\" with a node name of this topology and a port number it has"))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let source_routes = scenario.routing.source_routes.then(|| SourceRoutes::new(&b.net));
        if let Some(sr) = &source_routes {
            // The longest path a packet can take: to a waypoint and on (VLB), or up and down.
            let worst = b
                .flows
                .iter()
                .map(|f| {
                    if matches!(f.routing, Routing::Vlb | Routing::Wlb { .. }) {
                        2 * diameter(&b.routes, &b.net)
                    } else {
                        f.hops
                    }
                })
                .max()
                .unwrap_or(0);
            crate::error::ensure(worst as usize <= sr.max_hops, "routing.source_routes", || {
                format!("paths of up to {worst} hops do not fit the 128-bit route header ({} bits per hop: at most {} hops)", sr.bits, sr.max_hops)
            })?;
        }
        let mut hot = Vec::with_capacity(b.flows.len());
        let mut flows = Vec::with_capacity(b.flows.len());
        for (i, resolved) in b.flows.into_iter().enumerate() {
            let cc_rng = Rng::stream(scenario.seed, stream::CONTROLLER, i as u64);
            let (flow, h) = make_flow(
                resolved,
                &b.net,
                &b.routes,
                &scenario.transport,
                scheme.as_deref(),
                cc_rng,
            );
            flows.push(flow);
            hot.push(h);
        }
        let explicit = b.explicit;
        let mut events = EventQueue::new();
        // `[[flows]]` flows start by their own events; traffic flows (sorted by start) chain:
        // each start schedules the next, so the queue holds one pending traffic start.
        for (i, f) in flows.iter().enumerate().take(explicit) {
            events.schedule(f.def.start, Event::FlowStart { flow: FlowId(i as u32) });
        }
        if let Some(f) = flows.get(explicit) {
            events.schedule(f.def.start, Event::FlowStart { flow: FlowId(explicit as u32) });
        }
        events.schedule(scenario.metrics.interval.min(scenario.duration), Event::SampleThroughput);
        if !queue_ports.is_empty() {
            events.schedule(Time::ZERO, Event::SampleQueues);
        }
        for (i, e) in b.link_events.iter().enumerate() {
            events.schedule(e.0, Event::LinkChange { index: i as u32 });
        }
        let open_loop_end = flows.len();
        let rpc = sessions::RpcSessions::new(b.rpc, scenario.seed, &mut |at, session| {
            events.schedule(at, Event::RpcRequest { session })
        });
        let metrics = Metrics::new(
            explicit,
            b.classes.len(),
            scenario.metrics.record_drops,
            scenario.metrics.latency_sample_every,
        );
        let hosts = (0..b.net.hosts.len() as u64)
            .map(|h| hosts::HostState::new(scenario.seed, h))
            .collect();
        let n_hosts = b.net.hosts.len();
        let n_ports = b.net.ports.len();
        let telemetry = hot.iter().any(|h: &FlowHot| h.telemetry);
        let mut sim = Simulation {
            header: scenario.transport.header,
            router: Router::new(scenario.seed, b.net.nodes.len(), n_hosts),
            source_routes,
            net: b.net,
            routes: b.routes,
            flows,
            hot,
            paths: Vec::new(),
            events,
            arena: PacketArena::default(),
            metrics,
            counts: PacketCounts::default(),
            queue_ports,
            shared_buffers: if b.shared_buffers.iter().all(Option::is_none) {
                Vec::new()
            } else {
                b.shared_buffers
            },
            link_events: b.link_events,
            links_failed: false,
            prefetch: n_ports * std::mem::size_of::<crate::net::Port>() > PREFETCH_ABOVE_BYTES,
            hosts,
            seg_buf: Vec::with_capacity(64),
            ack_buf: Vec::with_capacity(4),
            path_buf: Vec::new(),
            finalized: false,
            reached: Time::ZERO,
            explicit,
            open_loop_end,
            rpc,
            classes: b.classes,
            tenants: b.tenants,
            work,
            scheme,
            scheme_name,
            ctrl: ControlPlane::new(scenario.control.clone()),
            scheme_rng: Rng::stream(scenario.seed, stream::SCHEME, 0),
            scheme_counters: BTreeMap::new(),
            tapped_hosts: vec![false; n_hosts],
            hosts_tapped: false,
            telemetry,
            int_echo: Vec::new(),
            pending: Vec::new(),
            backpressure: (scenario.switch.backpressure > 0)
                .then(|| backpressure::Backpressure::new(scenario.switch.backpressure, n_ports)),
            tunnels: Vec::new(),
            scenario,
        };
        sim.call_scheme(|s, ctx| s.init(ctx));
        Ok(sim)
    }

    /// Time of the last event processed.
    pub fn now(&self) -> Time {
        self.events.now()
    }

    /// Simulated time the run has been advanced to: results cover [0, reached].
    pub fn reached(&self) -> Time {
        self.reached
    }

    pub fn duration(&self) -> Time {
        self.scenario.duration
    }

    pub fn events_processed(&self) -> u64 {
        self.events.events_processed()
    }

    /// Bytes a switch's shared buffer counts as used (`None` with per-port buffers).
    pub fn shared_buffer_used(&self, node: NodeId) -> Option<u64> {
        self.shared_buffers.get(node.idx())?.as_ref().map(|b| b.used())
    }

    /// Packets queued or on a wire right now.
    pub fn packets_in_flight(&self) -> u64 {
        self.arena.live() as u64
    }

    /// Runs every event up to and including time `until` (capped at the scenario duration);
    /// finalizes the metrics once the duration is reached.
    pub fn run_until(&mut self, until: Time) {
        let until = until.min(self.scenario.duration);
        self.reached = self.reached.max(until);
        while let Some((_, ev)) = self.events.pop_until(until) {
            if self.prefetch {
                self.prefetch_upcoming();
            }
            self.dispatch(ev);
        }
        if until >= self.scenario.duration {
            self.finalize();
        }
    }

    /// Prefetches what the next arrivals of the popped event's lane will touch: the packet
    /// of the second, and the output port of the first (whose packet the previous pop
    /// prefetched). Hints only: results do not depend on them.
    #[inline]
    fn prefetch_upcoming(&self) {
        if let Some(&Event::Arrive { pkt, .. }) = self.events.lane_ahead(1) {
            self.arena.prefetch(pkt);
        }
        if let Some(&Event::Arrive { pkt, .. }) = self.events.lane_ahead(0) {
            let p = self.arena.get(pkt);
            if p.rlen == 0 && path_cache::cacheable(p.leg) {
                let out = self.paths.get(p.flow.idx()).and_then(|path| {
                    path.get(p.leg, p.kind == crate::net::PacketKind::Data, p.ridx)
                });
                if let Some(out) = out {
                    crate::sim::prefetch(&self.net.ports[out.idx()]);
                }
            }
        }
    }

    pub fn run(&mut self) {
        self.run_until(self.scenario.duration);
    }

    pub fn is_finished(&self) -> bool {
        self.finalized
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Arrive { port, pkt } => self.on_arrive(port, pkt),
            Event::Dequeue { port } => self.on_dequeue(port),
            Event::FlowStart { flow } => self.on_flow_start(flow),
            Event::Rto { flow } => self.on_rto_event(flow),
            Event::Pace { flow } => self.on_pace_event(flow),
            Event::DelAck { flow } => self.on_delack(flow),
            Event::NicEnqueue { port, pkt } => self.on_nic_enqueue(port, pkt),
            Event::SampleThroughput => self.sample_throughput(),
            Event::SampleQueues => self.sample_queues(),
            Event::Timer { agent, tag } => self.call_scheme(|s, ctx| s.on_timer(ctx, agent, tag)),
            Event::CtrlDeliver { slot, node } => self.deliver_control(node, slot),
            Event::RpcRequest { session } => self.on_rpc_request(session),
            Event::LinkChange { index } => self.on_link_change(index),
            Event::TunnelRelease { agg } => self.on_tunnel_release(agg),
        }
    }

    fn finalize(&mut self) {
        if self.finalized {
            return;
        }
        self.finalized = true;
        for p in &mut self.net.ports {
            p.flush_runs();
        }
    }
}

/// Port memory above which the event loop prefetches (about a core's L2 cache share):
/// k=16 fat-trees (6,144 ports) ran up to a quarter faster with it, small networks 8 %
/// slower (`bench/README.md`).
const PREFETCH_ABOVE_BYTES: usize = 512 * 1024;

/// The largest hop count between a node and a host (the longest minimal path).
fn diameter(rt: &RouteTable, net: &Network) -> u32 {
    (0..net.hosts.len() as u32)
        .flat_map(|d| net.hosts.iter().filter_map(move |&h| rt.hops(h, d)))
        .max()
        .unwrap_or(0)
}
