//! The simulation: a network, its routes, the flows' TCP endpoints and the metric
//! collectors, driven by one event queue. Split by concern: packet forwarding through ports
//! ([`forward`]), transport endpoints and their timers ([`endpoints`]), periodic sampling
//! ([`sampling`]) and the final tables ([`results`]).

mod endpoints;
mod forward;
mod hosts;
mod queues;
pub mod results;
mod sampling;

use crate::error::{config_err, Result};
use crate::ids::{FlowId, PktId, PortId};
use crate::metrics::Metrics;
use crate::net::queue::QueueDisc;
use crate::net::{Network, PacketArena};
use crate::route::{RouteTable, Router};
use crate::scenario::flows::expand;
use crate::workload::flow::FlowDef;
use crate::net::shared_buffer::SharedBuffer;
use crate::scenario::Scenario;
use crate::sim::rng::{stream, Rng};
use crate::sim::EventQueue;
use crate::transport::{AckOut, Segment, TcpReceiver, TcpSender};
use crate::units::Time;

/// Everything that can happen.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A packet has fully arrived (store-and-forward) at the node owning `port`, through it.
    Arrive { port: PortId, pkt: PktId },
    /// `port` finished serializing; it starts on the next queued packet.
    Dequeue { port: PortId },
    FlowStart { flow: FlowId },
    /// A flow's retransmission timer may have expired.
    Rto { flow: FlowId },
    /// A flow's pacing clock lets its next segment leave.
    Pace { flow: FlowId },
    /// A flow's delayed-ACK timer expired.
    DelAck { flow: FlowId },
    /// A host's packet reaches its NIC queue after the host's processing jitter.
    NicEnqueue { port: PortId, pkt: PktId },
    SampleThroughput,
    SampleQueues,
}

/// One TCP connection: its definition, both endpoints and timer bookkeeping.
pub struct Flow {
    pub def: FlowDef,
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
}

pub struct Simulation {
    pub scenario: Scenario,
    pub net: Network,
    routes: RouteTable,
    router: Router,
    pub flows: Vec<Flow>,
    events: EventQueue<Event>,
    arena: PacketArena,
    pub metrics: Metrics,
    pub counts: PacketCounts,
    /// Per node: the switch's shared buffer, when buffer_model = "shared".
    shared_buffers: Vec<Option<SharedBuffer>>,
    /// Ports whose queues are sampled.
    queue_ports: Vec<PortId>,
    header: u32,
    ect: bool,
    /// Host send paths: jitter and backpressure state.
    hosts: Vec<hosts::HostState>,
    /// Scratch buffers reused by the transport glue (no per-event allocation).
    seg_buf: Vec<Segment>,
    ack_buf: Vec<AckOut>,
    finalized: bool,
    /// Simulated time the run has been advanced to (all events up to it are done).
    reached: Time,
    /// Flows `0..explicit` come from `[[flows]]` (per-flow goodput series); the rest from
    /// `[[traffic]]` blocks, in start order (per-class series).
    pub explicit: usize,
    /// Classes of traffic flows, in order of first appearance.
    pub classes: Vec<String>,
}

impl Simulation {
    /// Builds the network and flows of a validated scenario; reference errors (unknown hosts,
    /// ports, unroutable pairs) are reported here, before any event runs.
    pub fn new(scenario: Scenario) -> Result<Simulation> {
        if scenario.mode == crate::scenario::Mode::Fluid {
            return Err(config_err("mode", "\"fluid\" scenarios run in crate::fluid::FluidSim; Simulation is the packet-level engine"));
        }
        let topo = scenario.topology.build();
        let host_buf = scenario.host.buffer;
        // Switch ports get their discipline in `queues::install`, once rates are final.
        let mut net = Network::build(&topo, |_| QueueDisc::taildrop(host_buf));
        if scenario.network.clock_ppm > 0.0 {
            let ppb = (scenario.network.clock_ppm * 1000.0) as u64;
            for (i, p) in net.ports.iter_mut().enumerate() {
                let offset = Rng::stream(scenario.seed, stream::LINK_CLOCK, i as u64).below(2 * ppb + 1) as i128 - ppb as i128;
                p.rate = crate::units::Rate((p.rate.0 as i128 + p.rate.0 as i128 * offset / 1_000_000_000) as u64);
            }
        }
        let shared_buffers = queues::install(&mut net, &scenario.switch, scenario.seed);
        let routes = RouteTable::build(&net);
        let router = Router::new(&scenario.routing, scenario.seed, net.nodes.len());
        let mut defs = expand(&scenario, &net, &routes)?;
        let explicit = defs.len();
        defs.extend(crate::workload::generate::generate(&scenario.traffic, scenario.seed, scenario.duration, &net, &routes, scenario.base_dir.as_deref())?);
        let mut classes: Vec<String> = Vec::new();
        let queue_ports = scenario
            .metrics
            .queue_ports
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                net.port_by_name(spec).ok_or_else(|| {
                    config_err(format!("metrics.queue_ports[{i}]"), format!("unknown port \"{spec}\"; expected \"node:port\" with a node name of this topology and a port number it has"))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let tcp = &scenario.transport;
        let via_top = scenario.routing.via_top();
        // Hops and unloaded one-way delay (ACK-sized packets) of the path the router takes.
        let path = |src: u32, dst: u32| routes.path(&net, net.hosts[src as usize], dst, tcp.header as u64, via_top).expect("expand checked routes");
        let flows = defs
            .into_iter()
            .map(|def| Flow {
                class_idx: match def.block {
                    None => 0,
                    Some(_) => match classes.iter().position(|c| *c == def.class) {
                        Some(i) => i as u32,
                        None => {
                            classes.push(def.class.clone());
                            classes.len() as u32 - 1
                        }
                    },
                },
                ideal: def.size.map(|size| crate::metrics::fct::ideal_fct(&net, &routes, via_top, def.src, def.dst, size, tcp.mss as u64, tcp.header as u64)),
                hops: path(def.src, def.dst).0,
                sender: {
                    let mut s = TcpSender::new(tcp, def.size);
                    if tcp.handshake_rtt {
                        s.seed_rtt(path(def.src, def.dst).1 + path(def.dst, def.src).1);
                    }
                    s
                },
                receiver: TcpReceiver::new(tcp.delayed_ack, tcp.cc.accurate_ecn()),
                rto_event_at: None,
                pace_event_at: None,
                delack_armed: false,
                blocked: false,
                finish: None,
                def,
            })
            .collect::<Vec<_>>();
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
        let metrics = Metrics::new(explicit, classes.len(), scenario.metrics.record_drops, scenario.metrics.latency_sample_every);
        let hosts = (0..net.hosts.len() as u64).map(|h| hosts::HostState::new(scenario.seed, h)).collect();
        Ok(Simulation {
            header: tcp.header,
            ect: tcp.ecn,
            net,
            routes,
            router,
            flows,
            events,
            arena: PacketArena::default(),
            metrics,
            counts: PacketCounts::default(),
            queue_ports,
            shared_buffers,
            hosts,
            seg_buf: Vec::with_capacity(64),
            ack_buf: Vec::with_capacity(4),
            finalized: false,
            reached: Time::ZERO,
            explicit,
            classes,
            scenario,
        })
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
    pub fn shared_buffer_used(&self, node: crate::ids::NodeId) -> Option<u64> {
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
        while let Some(t) = self.events.peek_time() {
            if t > until {
                break;
            }
            let (_, ev) = self.events.pop().expect("peeked");
            self.dispatch(ev);
        }
        if until >= self.scenario.duration {
            self.finalize();
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
