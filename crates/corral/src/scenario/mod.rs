//! Scenario files: the typed TOML schema ([`Scenario`]), loading with `--set` overrides and
//! key-path errors ([`load()`]), cross-checks against the built network ([`validate`]), and the
//! expansion of `[[flows]]` entries into concrete flows ([`flows`]).
//!
//! Parsing and validation are separate steps: serde checks types, units and unknown keys;
//! `validate()` checks values and references (hosts, ports, routes).

pub mod budget;
pub mod control;
pub mod events;
pub mod flows;
pub mod load;
pub mod overrides;
pub mod validate;

use crate::net::topo::TopologyConfig;
use crate::route::RoutingConfig;
use crate::transport::config::FlowTransport;
use crate::transport::TcpConfig;
use crate::units::{BufferSize, Time};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use crate::workload::flow::Hosts;
pub use load::load;

/// A whole scenario file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Scenario name, reported in summary.json (default "scenario").
    #[serde(default = "default_name")]
    pub name: String,
    /// The one seed every random stream derives from (default 1).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time to run.
    pub duration: Time,
    /// "packet" (default) or "fluid": flows at their max-min rates (see `crate::fluid`).
    #[serde(default)]
    pub mode: Mode,
    pub topology: TopologyConfig,
    #[serde(default)]
    pub switch: SwitchConfig,
    #[serde(default)]
    pub host: HostConfig,
    #[serde(default)]
    pub network: NetworkConfig,
    #[serde(default)]
    pub routing: RoutingConfig,
    #[serde(default)]
    pub transport: TcpConfig,
    /// The cooperative scheme (`[scheme] kind = "..."` and its settings), typed by
    /// `crate::schemes` when the run is built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<toml::Value>,
    /// How the scheme's control messages travel.
    #[serde(default)]
    pub control: control::ControlConfig,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Open-loop workloads (`[[traffic]]` blocks, [`crate::workload`]).
    #[serde(default)]
    pub traffic: Vec<crate::workload::TrafficSpec>,
    /// Closed-loop request/response sessions (`[[rpc]]` blocks, [`crate::workload::rpc`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rpc: Vec<crate::workload::rpc::RpcSpec>,
    #[serde(default)]
    pub metrics: MetricsConfig,
    /// Scheduled changes of link rates (`[[events]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<events::LinkEvent>,
    /// Directory of the scenario file, for relative paths (CDF files, flow lists).
    #[serde(skip)]
    pub base_dir: Option<std::path::PathBuf>,
    /// The memory the run may need, in bytes (`--max-memory`; `None`: half of this machine's),
    /// see [`budget`].
    #[serde(skip)]
    pub memory_limit: Option<u64>,
}

fn default_name() -> String {
    "scenario".into()
}
fn default_seed() -> u64 {
    1
}

/// How the scenario is simulated.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Packet-level discrete-event simulation.
    #[default]
    Packet,
    /// Flow-level: max-min rates recomputed at every arrival and departure.
    Fluid,
}

pub use crate::net::queue::{QueueKind, QueueSettings};

/// How a switch's ports share buffer memory.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BufferModel {
    /// Each output port has its own `buffer`.
    PerPort,
    /// Ports share `shared_buffer` under a dynamic threshold (Choudhury and Hahne).
    Shared,
}

/// `[switch]`: every switch output port. Its discipline (`queue`, `ecn_threshold` and the
/// discipline's `[switch.<kind>]` table) is [`QueueSettings`], declared with the disciplines
/// themselves ([`crate::net::queue`]); the rest is below.
#[derive(Clone, Debug)]
pub struct SwitchConfig {
    /// Buffer per output port, bytes ("16KB") or packets ("32pkt") (default "100pkt").
    pub buffer: BufferSize,
    /// The discipline and its settings (default "taildrop").
    pub queue: QueueSettings,
    /// "per_port" (default) or "shared".
    pub buffer_model: BufferModel,
    /// Buffer memory of each switch, shared by its output ports (buffer_model = "shared").
    pub shared_buffer: Option<crate::units::Bytes>,
    /// Dynamic-threshold factor (buffer_model = "shared"; default 1.0).
    pub alpha: Option<f64>,
    /// Hop-by-hop per-flow back-pressure (R2C2's PFQ): a port sends a packet of a flow to a
    /// switch only while that switch holds fewer than this many packets of the flow (default
    /// 0: off). Needs per-flow queues (queue = "drr", key "flow").
    pub backpressure: u32,
}

/// The keys of `[switch]` besides the discipline's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct SwitchRest {
    buffer: BufferSize,
    buffer_model: BufferModel,
    shared_buffer: Option<crate::units::Bytes>,
    alpha: Option<f64>,
    backpressure: u32,
}

impl Default for SwitchRest {
    fn default() -> Self {
        let d = SwitchConfig::default();
        SwitchRest {
            buffer: d.buffer,
            buffer_model: d.buffer_model,
            shared_buffer: d.shared_buffer,
            alpha: d.alpha,
            backpressure: d.backpressure,
        }
    }
}

/// Every key `[switch]` takes, in the order of its reference (and of an unknown key's error).
fn switch_keys() -> &'static [&'static str] {
    static KEYS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        let tables =
            crate::net::queue::QueueKind::ALL.iter().filter(|k| k.has_table()).map(|k| k.name());
        ["buffer", "queue", "ecn_threshold"]
            .into_iter()
            .chain(tables)
            .chain(["buffer_model", "shared_buffer", "alpha", "backpressure"])
            .collect()
    })
}

impl<'de> Deserialize<'de> for SwitchConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut t = toml::Table::deserialize(d)?;
        if let Some(k) = t.keys().find(|k| !switch_keys().contains(&k.as_str())) {
            return Err(crate::config::unknown_key(k, switch_keys()));
        }
        let queue = QueueSettings::take(&mut t)?;
        let rest: SwitchRest = crate::config::nested(toml::Value::Table(t), "")?;
        Ok(SwitchConfig {
            buffer: rest.buffer,
            queue,
            buffer_model: rest.buffer_model,
            shared_buffer: rest.shared_buffer,
            alpha: rest.alpha,
            backpressure: rest.backpressure,
        })
    }
}

/// In the order of `switch_keys`; unset optional keys and a zero back-pressure are left out.
impl Serialize for SwitchConfig {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("buffer", &crate::net::queue::BufferText(self.buffer))?;
        self.queue.serialize_into(&mut m)?;
        m.serialize_entry("buffer_model", &self.buffer_model)?;
        if let Some(b) = &self.shared_buffer {
            m.serialize_entry("shared_buffer", b)?;
        }
        if let Some(a) = &self.alpha {
            m.serialize_entry("alpha", a)?;
        }
        if self.backpressure != 0 {
            m.serialize_entry("backpressure", &self.backpressure)?;
        }
        m.end()
    }
}

impl Default for SwitchConfig {
    fn default() -> Self {
        SwitchConfig {
            buffer: BufferSize::Packets(100),
            queue: QueueSettings::default(),
            buffer_model: BufferModel::PerPort,
            shared_buffer: None,
            alpha: None,
            backpressure: 0,
        }
    }
}

/// `[network]`: properties of every link.
#[derive(Clone, Debug, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkConfig {
    /// Clock tolerance of transmitters in parts per million (default 0). Each output port
    /// serializes at its nominal rate times (1 + e), e drawn uniformly from [-ppm, +ppm] from
    /// the seed: real ports are clocked separately (IEEE 802.3 allows +-100 ppm), so the
    /// phases of back-to-back packet trains on two input ports drift past each other, as the
    /// TCP Outcast paper describes for port blackout (section 4.1, Fig. 9).
    pub clock_ppm: f64,
}

/// `[host]`: host NIC queues and send-side processing.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// NIC queue limit (default "1000pkt"; ns-3 devices default to 100 packets, Linux txqueuelen to 1000).
    #[serde(serialize_with = "crate::config::ser_buffer")]
    pub buffer: BufferSize,
    /// Host processing jitter: every packet a host's transport emits (data or ACK) reaches the
    /// NIC a uniform random delay in [0, send_jitter) later, in order (default "0s": off).
    /// Real hosts have such jitter; without it, identical links and packet sizes lock arrivals
    /// into fixed phases (Floyd and Jacobson, "On Traffic Phase Effects in Packet-Switched
    /// Gateways", 1992, who add random processing time for the same reason).
    pub send_jitter: Time,
    /// Host backpressure like Linux TCP Small Queues: a flow hands new data segments to the
    /// NIC only while fewer than `small_queue` packets wait there (plus the one on the wire);
    /// the rest of its window waits in the socket and goes out as the NIC drains, so a sender
    /// never overflows its own NIC (default 2; 0 turns backpressure off and lets the window
    /// fill the NIC queue up to `buffer`).
    pub small_queue: u32,
    /// Which waiting flow gets NIC room next: "round_robin" (default: each in turn) or
    /// "fair" (deficit round robin by bytes, weighted by the flows' `weight`). Either way a
    /// rate-limited flow takes no more than its rate, so flows capped at 2, 6 and 10 Gbps on
    /// a 10 Gbps NIC get 2, 4 and 4 (RackCC section 3.2).
    pub scheduler: HostScheduler,
}

/// How a host's NIC serves the flows waiting for room (`host.scheduler`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HostScheduler {
    #[default]
    RoundRobin,
    Fair,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            buffer: BufferSize::Packets(1000),
            send_jitter: Time::ZERO,
            small_queue: 2,
            scheduler: HostScheduler::RoundRobin,
        }
    }
}

/// The `[[traffic]]` blocks whose flow list is a Parquet file, with the file's path
/// (resolved against the scenario's folder): the Python layer reads them and hands the
/// cells back ([`crate::workload::spec::TraceCells`]).
pub fn parquet_traces(sc: &Scenario) -> Vec<(usize, std::path::PathBuf)> {
    sc.traffic
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let f = std::path::Path::new(t.file.as_deref()?);
            if !f.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet")) {
                return None;
            }
            Some((
                i,
                match &sc.base_dir {
                    Some(b) if f.is_relative() => b.join(f),
                    _ => f.to_path_buf(),
                },
            ))
        })
        .collect()
}

/// How much a flow sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowSize {
    Unbounded,
    Bytes(u64),
}

impl<'de> Deserialize<'de> for FlowSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Str(String),
            Int(i64),
        }
        use serde::de::Error;
        let raw = Raw::deserialize(d)
            .map_err(|_| D::Error::custom("expected \"unbounded\" or a size like \"10MB\""))?;
        match raw {
            Raw::Str(s) if s == "unbounded" => Ok(FlowSize::Unbounded),
            Raw::Str(s) => {
                let b = crate::units::parse_bytes(&s)
                    .map_err(|e| D::Error::custom(format!("{e}, or \"unbounded\"")))?;
                if b.0 == 0 {
                    return Err(D::Error::custom("expected a positive size, got 0"));
                }
                Ok(FlowSize::Bytes(b.0))
            }
            Raw::Int(i) if i > 0 => Ok(FlowSize::Bytes(i as u64)),
            Raw::Int(i) => Err(D::Error::custom(format!("expected a positive size, got {i}"))),
        }
    }
}

impl Serialize for FlowSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            FlowSize::Unbounded => s.serialize_str("unbounded"),
            FlowSize::Bytes(b) => s.serialize_str(&format!("{b}B")),
        }
    }
}

/// Traffic patterns that generate many flows from one entry.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// Every host sends one flow to a distinct other host (a random derangement).
    Permutation,
}

/// One `[[flows]]` entry: explicit `src`/`dst`, or a `pattern`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Sending host, or a list of them (one flow each).
    pub src: Option<Hosts>,
    /// Receiving host, or a list (paired with `src`, or all-to-one when `src` has one more... see docs).
    pub dst: Option<Hosts>,
    /// A traffic pattern instead of src/dst.
    pub pattern: Option<Pattern>,
    /// Bytes to send, or "unbounded" (default "unbounded").
    #[serde(default = "default_size")]
    pub size: FlowSize,
    /// Start time (default "0s").
    #[serde(default)]
    pub start: Time,
    /// Each flow starts a uniform random delay in [0, jitter) later (default "0s").
    #[serde(default)]
    pub jitter: Time,
    /// Flows per (src, dst) pair (default 1).
    #[serde(default = "default_count")]
    pub count: u32,
    /// Label carried into flows.parquet (default "").
    #[serde(default)]
    pub tag: String,
    /// Priority class carried in every packet of the flow, for priority queues: 0 is the
    /// highest (default 0).
    #[serde(default)]
    pub priority: u8,
    /// Weight for weighted fair queueing and weighted rate allocation (default 1.0).
    #[serde(default = "default_weight")]
    pub weight: f64,
    /// Objective class, reported in flows.parquet (default "").
    #[serde(default)]
    pub class: String,
    /// Tenant, reported in flows.parquet (default "").
    #[serde(default)]
    pub tenant: String,
    /// Deadline after each flow's start (default none): reported in flows.parquet and read
    /// by deadline-aware controllers (D2TCP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<Time>,
    /// Routing of these flows (default: `[routing]`), a name or a table like `[routing]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routing: Option<crate::route::Routing>,
    /// "scheme", "tcp", a controller name or table (default: the scheme if the scenario has
    /// one, else TCP with `transport.cc`).
    #[serde(default, skip_serializing_if = "FlowTransport::is_default")]
    pub transport: FlowTransport,
}

fn default_weight() -> f64 {
    1.0
}

fn default_size() -> FlowSize {
    FlowSize::Unbounded
}
fn default_count() -> u32 {
    1
}

/// `[metrics]`: what to record.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// Goodput sampling interval (default "1ms").
    pub interval: Time,
    /// Ports whose queue length is sampled, as "node:port" (default none).
    pub queue_ports: Vec<String>,
    /// Queue sampling interval (default "10us").
    pub queue_interval: Time,
    /// Record every drop in drops.parquet (default true).
    pub record_drops: bool,
    /// Record the one-way delay of every Nth delivered data packet in latency.parquet
    /// (default 0: off).
    pub latency_sample_every: u64,
    /// Upper bounds of the flow-size buckets of the FCT summary (default ["100KB", "1MB"]:
    /// below 100 KB, 100 KB to 1 MB, above 1 MB).
    pub size_buckets: Vec<crate::units::Bytes>,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            interval: Time::from_ms(1),
            queue_ports: Vec::new(),
            queue_interval: Time::from_us(10),
            record_drops: true,
            latency_sample_every: 0,
            size_buckets: vec![crate::units::Bytes(100_000), crate::units::Bytes(1_000_000)],
        }
    }
}
