//! Cooperative congestion-control schemes, one folder each, behind one trait
//! (docs/internals/architecture.md, "How a cooperative scheme fits"). A scheme works at
//! control rate: it hears of its flows' starts and ends, of control messages delivered to a
//! node, of its timers, and of packets at the ports and hosts it tapped; it acts through a
//! narrow [`Ctx`]: the time, timers, control messages ([`crate::ctrl`]), its flows' rates,
//! routing and aggregate id, their progress, and the queues. Dynamic dispatch is fine at this
//! rate; the per-packet path never calls a scheme except at tapped ports.
//!
//! A scenario selects one with `[scheme] kind = "..."` and the scheme's own typed settings;
//! flows with `transport = "scheme"` (the default when a scheme is present) are its flows.
//! Adding a scheme is one folder and one line in [`REGISTRY`].

pub mod hcc;
pub mod ideal;
pub mod r2c2;
pub mod rackcc;
pub mod scc;

use crate::ctrl::Message;
use crate::error::{config_err, Result};
use crate::ids::{FlowId, NodeId, PortId};
use crate::net::{Network, Packet};
use crate::route::{RouteTable, Routing};
use crate::sim::Rng;
use crate::transport::cc::CcConfig;
pub use crate::transport::rate::Window;
use crate::transport::TcpConfig;
use crate::units::{Rate, Time};
use crate::workload::flow::FlowDef;

/// How a scheme's flow sends.
#[derive(Clone, Debug, PartialEq)]
pub enum SchemeTransport {
    /// Explicit rate through a token bucket the scheme sets; TCP reliability. `initial_bps`
    /// is the rate before the scheme's first decision (`None`: the sender's access-link
    /// rate); `window` says whether the congestion window of `transport.cc` limits it too.
    /// `dupthresh` duplicate ACKs trigger fast retransmit (TCP's 3; more tolerates the
    /// reordering of packet spraying). `ecn`: the flow is ECN-capable and its receiver echoes
    /// every CE mark (DCTCP's accurate echo) whatever `transport.ecn` says, for a scheme that
    /// counts marks (RackCC); otherwise `transport.ecn` decides. `cc` is the controller of the
    /// window (`None`: `transport.cc`), for a scheme that stacks its rate on a flow's own
    /// transport (SCC).
    Rate {
        initial_bps: Option<f64>,
        window: Window,
        dupthresh: u32,
        ecn: bool,
        cc: Option<CcConfig>,
    },
    /// TCP with this controller; the scheme acts around it (tunnels, ECN rewriting).
    Tcp(CcConfig),
}

/// What a flow sends before its scheme's first rate reaches it (`first_rate` of HCC and of
/// `ideal`): the schemes whose rates arrive some time after a flow starts.
#[derive(Clone, Copy, Debug, serde::Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FirstRate {
    /// TCP with `transport.initial_window`, at its access-link rate, until the first rate
    /// (HCC's: the paper's "initial congestion window is set to 10").
    Window,
    /// Nothing.
    Wait,
    /// Its access-link rate, no window (R2C2's senders).
    Line,
}

impl FirstRate {
    /// How a flow with this start sends (TCP reliability, 3 duplicate ACKs).
    pub fn transport(self) -> SchemeTransport {
        let (initial_bps, window) = match self {
            FirstRate::Window => (None, Window::UntilRate),
            FirstRate::Wait => (Some(0.0), Window::Off),
            FirstRate::Line => (None, Window::Off),
        };
        SchemeTransport::Rate { initial_bps, window, dupthresh: 3, ecn: false, cc: None }
    }
}

/// What a scheme may know about a flow's progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowProgress {
    /// Bytes to send, `None` for an unbounded flow.
    pub size: Option<u64>,
    /// Payload bytes sent at least once.
    pub sent: u64,
    /// Payload bytes acknowledged.
    pub acked: u64,
    /// Payload bytes the receiver holds in order.
    pub delivered: u64,
    /// The first byte not sent yet (below `sent` after a timeout: go-back-N).
    pub next: u64,
    /// The flow's current explicit rate in bit/s, if it is rate-limited.
    pub rate_bps: Option<u64>,
    /// The sender's smoothed RTT, once measured (queueing included).
    pub srtt: Option<Time>,
    /// The congestion window that limits it now, `None` when only a rate does.
    pub window: Option<u64>,
    /// Losses the sender has detected so far: loss recoveries entered plus timeouts.
    pub losses: u64,
    pub started: bool,
    /// All bytes acknowledged.
    pub finished: bool,
}

impl FlowProgress {
    /// Bytes the application has queued but not yet sent (the sender's backlog; R2C2's
    /// demand estimator reads it), `u64::MAX` for an unbounded flow.
    pub fn backlog(&self) -> u64 {
        self.size.map_or(u64::MAX, |s| s.saturating_sub(self.next))
    }

    /// Bytes the window lets the flow send now that wait for its rate: its share of a
    /// rate-limited tunnel's queue (0 without a window).
    pub fn queued(&self) -> u64 {
        self.window.map_or(0, |w| {
            w.saturating_sub(self.next.saturating_sub(self.acked)).min(self.backlog())
        })
    }
}

/// The scheme's window on the simulation. Every action takes effect at once.
pub trait Ctx {
    fn now(&self) -> Time;
    fn net(&self) -> &Network;
    fn routes(&self) -> &RouteTable;
    /// The topology the network was built from (a scheme may use its structure, e.g. a
    /// torus's dimensions).
    fn topology(&self) -> &crate::net::topo::TopologyConfig;
    /// The run's `[transport]` settings (segment and header sizes, ACK policy).
    fn transport(&self) -> &TcpConfig;
    /// The run's seed (the ECMP hash and the usage fractions derive from it).
    fn seed(&self) -> u64;
    /// The scheme's own random stream (derived from the run's seed).
    fn rng(&mut self) -> &mut Rng;
    /// Number of flows in the run (ids `0..flows`).
    fn flows(&self) -> usize;
    fn flow(&self, f: FlowId) -> &FlowDef;
    /// Whether the scheme manages flow `f` (its `transport` is the scheme).
    fn managed(&self, f: FlowId) -> bool;
    fn progress(&self, f: FlowId) -> FlowProgress;
    fn routing(&self, f: FlowId) -> Routing;
    /// Per-link (port id) fractions of flow `f`'s traffic under its current routing
    /// ([`crate::route::usage`]).
    fn usage(&mut self, f: FlowId) -> Vec<(u32, f64)>;
    /// The rate of the access link of host `h`.
    fn access_rate(&self, h: u32) -> Rate;
    /// The queue at `port`: (bytes, packets).
    fn queue(&self, port: PortId) -> (u64, u64);
    /// Sets the explicit rate (wire bit/s) of a rate-limited flow.
    fn set_rate(&mut self, f: FlowId, bps: f64);
    /// Sets the rate and holds the flow's next packet until `now + delay`.
    fn set_rate_after(&mut self, f: FlowId, bps: f64, delay: Time);
    /// Caps rate-limited flow `f`'s bytes in flight at `bytes` (payload; `None`: no cap),
    /// as a congestion window would, with its rate still applied.
    fn set_window(&mut self, f: FlowId, bytes: Option<u64>);
    /// Where rate-limited flow `f`'s next packet falls within its packet interval, as a
    /// fraction in [0, 1) ([`crate::transport::rate::TokenBucket::phase`]); `None` while it
    /// is paused or not rate-limited.
    fn rate_phase(&self, f: FlowId) -> Option<f64>;
    fn set_routing(&mut self, f: FlowId, r: Routing);
    /// Stamps `agg` on the flow's packets from now on (an aggregate or tunnel id).
    fn set_agg(&mut self, f: FlowId, agg: u32);
    /// Sends the data packets of aggregate `agg`'s flows through one FIFO queue at `host`
    /// released at `bps` (wire bit/s; the queue is made on first use, at `host`, the
    /// aggregate's source), and sets its rate; the flows' own limits still apply before it
    /// (`world::tunnels`).
    fn set_tunnel_rate(&mut self, agg: u32, host: u32, bps: f64);
    /// Aggregate `agg`'s tunnel queue: (bytes, packets) waiting ((0, 0) without one).
    fn tunnel_queue(&self, agg: u32) -> (u64, u64);
    /// Calls [`Scheme::on_timer`] with `(agent, tag)` at `at`.
    fn schedule(&mut self, at: Time, agent: u32, tag: u32);
    /// Sends a control message from node `from` to node `to`.
    fn send(&mut self, from: NodeId, to: NodeId, msg: Message);
    /// Broadcasts a control message from switch `from` to every switch, down tree `tree`.
    fn broadcast(&mut self, from: NodeId, tree: u32, msg: Message);
    /// From now on, packets offered to output `port` go through [`Scheme::on_port_packet`].
    fn tap_port(&mut self, port: PortId);
    /// Turns ECN marking at output `port` on or off (on by default wherever the queue
    /// marks; off, packets the queue would mark go through unmarked).
    fn set_port_ecn(&mut self, port: PortId, on: bool);
    /// From now on, packets of managed flows delivered to host `h` go through
    /// [`Scheme::on_host_packet`] before its transport sees them.
    fn tap_host(&mut self, h: u32);
    /// Adds `n` to the scheme's counter `name` (reported in summary.json).
    fn count(&mut self, name: &'static str, n: u64);
}

/// One cooperative scheme. Every hook has a default that does nothing.
pub trait Scheme: Send + Sync {
    /// Checks the scheme's settings against the topology, before the run is built further
    /// (errors name keys, as scenario errors do).
    fn check(&self, _topology: &crate::net::topo::TopologyConfig, _net: &Network) -> Result<()> {
        Ok(())
    }
    /// Checks the scheme's settings against the run's tenants (every flow's `tenant`, in
    /// order of first appearance): a setting for a tenant no flow has is a mistake.
    fn check_tenants(&self, _tenants: &[String]) -> Result<()> {
        Ok(())
    }
    /// Called once before the first event: tap ports, start periodic timers.
    fn init(&mut self, _ctx: &mut dyn Ctx) {}
    /// How the scheme's flow `def` sends (fixed for the run).
    fn transport(&self, _def: &FlowDef) -> SchemeTransport {
        SchemeTransport::Rate {
            initial_bps: None,
            window: Window::Off,
            dupthresh: 3,
            ecn: false,
            cc: None,
        }
    }
    /// A managed flow starts; called before its sender sends anything.
    fn on_flow_start(&mut self, _ctx: &mut dyn Ctx, _flow: FlowId) {}
    /// A managed sized flow has sent each of its bytes once: from now on it only
    /// retransmits what is lost, so its rate is no longer needed for new data.
    fn on_flow_sent(&mut self, _ctx: &mut dyn Ctx, _flow: FlowId) {}
    /// All bytes of a managed flow are acknowledged.
    fn on_flow_end(&mut self, _ctx: &mut dyn Ctx, _flow: FlowId) {}
    /// A control message reached node `at`.
    fn on_message(&mut self, _ctx: &mut dyn Ctx, _at: NodeId, _msg: &Message) {}
    /// A queue dropped a control message that node `src` sent.
    fn on_message_dropped(&mut self, _ctx: &mut dyn Ctx, _src: NodeId, _msg: &Message) {}
    fn on_timer(&mut self, _ctx: &mut dyn Ctx, _agent: u32, _tag: u32) {}
    /// Links failed or came back, and the nodes have found out (`[[events]]` with `state`,
    /// `detect` after the change): `ctx.routes()` and the broadcast trees now avoid the
    /// links that are down (`ctx.net().ports[p].down`).
    fn on_topology_change(&mut self, _ctx: &mut dyn Ctx) {}
    /// A packet is offered to a tapped output port (before its queue decides); the scheme
    /// may read and annotate it.
    fn on_port_packet(&mut self, _ctx: &mut dyn Ctx, _port: PortId, _pkt: &mut Packet) {}
    /// A data or ACK packet of a managed flow reaches tapped host `host`. Its `ts` here is
    /// when it left its source host (later than its transport's timestamp if it waited in a
    /// tunnel queue: [`Ctx::set_tunnel_rate`]); a change to `ts` is not kept.
    fn on_host_packet(&mut self, _ctx: &mut dyn Ctx, _host: u32, _pkt: &mut Packet) {}
    /// The scheme's own numbers for summary.json (deterministic: they depend on the scenario
    /// and seed only).
    fn summary(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
    /// The scheme's wall-clock measurements (its compute time) for timing.json, which is not
    /// deterministic. Default: none.
    fn timing(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
    /// The scheme's share of a run's estimates ([`crate::build::work`]): extra peak bytes and
    /// extra events (its per-node state and control messages) for `flows` flows of which
    /// about `active` are live at once, on `net`. Default: none.
    fn estimate(&self, _net: &Network, _flows: u64, _active: f64) -> (u64, u64) {
        (0, 0)
    }
}

/// A scheme constructor: the `[scheme]` table without `kind`; errors name keys under
/// `scheme.`.
pub type Build = fn(toml::Value) -> Result<Box<dyn Scheme>>;

/// Every scheme, by its `kind`.
pub const REGISTRY: &[(&str, Build)] = &[
    ("hcc", hcc::build),
    ("ideal", ideal::build),
    ("r2c2", r2c2::build),
    ("rackcc", rackcc::build),
    ("scc", scc::build),
];

/// Each port's capacity for the rate computations, wire bit/s: its rate, 0 while its link is
/// down.
pub fn link_capacities(net: &Network) -> Vec<f64> {
    net.ports.iter().map(|p| if p.down { 0.0 } else { p.rate().bps() as f64 }).collect()
}

/// Checks that setting `scheme.<key>` is a fraction in [0, 1) (a headroom, a threshold).
pub fn check_fraction(key: &str, value: f64) -> Result<()> {
    crate::error::ensure(
        value.is_finite() && (0.0..1.0).contains(&value),
        &format!("scheme.{key}"),
        || format!("must be in [0, 1), got {}", crate::config::number(value)),
    )
}

/// The largest size of one field of a control message, in bytes: an IP packet's limit.
pub const MAX_MESSAGE_BYTES: u32 = 65_535;

/// Checks that each `(key, bytes)` message size setting is at most [`MAX_MESSAGE_BYTES`].
pub fn check_message_bytes(sizes: &[(&str, u32)]) -> Result<()> {
    for &(key, bytes) in sizes {
        crate::error::ensure(bytes <= MAX_MESSAGE_BYTES, &format!("scheme.{key}"), || {
            format!("must be at most {MAX_MESSAGE_BYTES} bytes (one IP packet), got {bytes}")
        })?;
    }
    Ok(())
}

/// Checks that setting `scheme.<key>` is a number in `[min, max]` (not NaN).
pub fn check_range(key: &str, value: f64, min: f64, max: f64) -> Result<()> {
    crate::error::ensure((min..=max).contains(&value), &format!("scheme.{key}"), || {
        format!("must be from {min} to {max}, got {}", crate::config::number(value))
    })
}

/// Every scheme's settings at their defaults, as a `[scheme]` table holds them (durations in
/// picoseconds, `"<n>ps"`): the reference pages show each key's own default from here.
pub fn defaults() -> Vec<(&'static str, serde_json::Value)> {
    fn json<T: serde::Serialize>(t: T) -> serde_json::Value {
        serde_json::to_value(t).unwrap_or_default()
    }
    vec![
        ("hcc", json(hcc::HccConfig::default())),
        ("ideal", json(ideal::IdealConfig::default())),
        ("r2c2", json(r2c2::R2c2Config::default())),
        ("rackcc", json(rackcc::RackccConfig::default())),
        ("scc", json(scc::SccConfig::default())),
    ]
}

/// The names of the registered schemes.
pub fn kinds() -> Vec<&'static str> {
    REGISTRY.iter().map(|(k, _)| *k).collect()
}

/// Builds the scheme a `[scheme]` table selects.
pub fn build(table: &toml::Value) -> Result<Box<dyn Scheme>> {
    let mut t = table
        .as_table()
        .cloned()
        .ok_or_else(|| config_err("scheme", "expected a table with kind = the scheme's name"))?;
    let names = kinds();
    let kind = match t.remove("kind") {
        Some(toml::Value::String(k)) => k,
        Some(other) => {
            return Err(config_err(
                "scheme.kind",
                format!("expected one of {}, got {other}", crate::config::one_of(&names)),
            ))
        }
        None => {
            return Err(config_err(
                "scheme.kind",
                format!(
                    "required key is missing; expected one of {}",
                    crate::config::one_of(&names)
                ),
            ))
        }
    };
    match REGISTRY.iter().find(|(k, _)| *k == kind) {
        Some((_, make)) => make(toml::Value::Table(t)),
        None => {
            let hint = crate::config::suggest::nearest(&kind, names.iter().copied())
                .map(|s| format!("did you mean \"{s}\"? "))
                .unwrap_or_default();
            Err(config_err(
                "scheme.kind",
                format!(
                    "unknown scheme \"{kind}\"; {hint}expected one of {}",
                    crate::config::one_of(&names)
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// JSON as TOML, dropping nulls (an unset optional setting).
    fn toml_of(v: &serde_json::Value) -> Option<toml::Value> {
        use serde_json::Value as J;
        Some(match v {
            J::Null => return None,
            J::Bool(b) => toml::Value::Boolean(*b),
            J::Number(n) => match n.as_i64() {
                Some(i) => toml::Value::Integer(i),
                None => toml::Value::Float(n.as_f64()?),
            },
            J::String(s) => toml::Value::String(s.clone()),
            J::Array(a) => toml::Value::Array(a.iter().filter_map(toml_of).collect()),
            J::Object(o) => toml::Value::Table(
                o.iter().filter_map(|(k, v)| Some((k.clone(), toml_of(v)?))).collect(),
            ),
        })
    }

    #[test]
    fn every_scheme_has_its_defaults_and_they_read_back() {
        let kinds: Vec<&str> = defaults().iter().map(|(k, _)| *k).collect();
        assert_eq!(kinds, super::kinds());
        for (kind, table) in defaults() {
            let Some(toml::Value::Table(mut t)) = toml_of(&table) else { panic!("{kind}") };
            assert!(!t.is_empty(), "{kind}");
            t.insert("kind".into(), kind.into());
            if let Err(e) = build(&toml::Value::Table(t)) {
                panic!("{kind}'s defaults do not read back: {e}");
            }
        }
    }
}
