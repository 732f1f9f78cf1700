//! The `[[traffic]]` block: one open-loop workload (pattern, sizes, arrival process, host
//! subset, time window and per-flow attributes). Parsing only; [`TrafficSpec::validate`]
//! checks values that need no network, [`super::generate`] the rest.

use super::deadline::DeadlineSpec;
use super::dist::SizeSpec;
use super::flow::Hosts;
use super::patterns::TrafficPattern;
use crate::error::{config_err, ensure, Result};
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficSpec {
    /// all_to_all | inter_rack | many_to_one | permutation | incast | trace.
    pub pattern: TrafficPattern,
    /// The block's random streams (arrivals, pairs, sizes, deadlines) by this index instead
    /// of its position among the blocks (default), so that a block draws the same flows
    /// whichever other blocks a scenario keeps; no two blocks may share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<u32>,
    /// Hosts taking part (default: every host).
    pub hosts: Option<Hosts>,
    /// The receiver of many_to_one (required) and incast (default: a random host per request).
    pub dst: Option<String>,
    /// Flow sizes (incast: the response size of each sender). Not used by `trace`.
    pub size: Option<SizeSpec>,
    /// Target load, a fraction in (0, 1] of the capacity the flows share (see the README).
    pub load: Option<f64>,
    /// Links whose capacity `load` refers to: "node:port", `*` matches any characters.
    pub load_links: Option<Vec<String>>,
    /// What a flow adds to `load` (default "size"): "size", its whole size; "run", what its
    /// sender's access link could carry from its start to the end of the run, if less. With
    /// a heavy-tailed size distribution whose largest flows outlast the run, "size" offers
    /// the run less than `load`; "run" sets the arrival rate so that what the flows can send
    /// within the run is `load` (more arrivals, the same size distribution).
    #[serde(default, skip_serializing_if = "LoadBasis::is_size")]
    pub load_basis: LoadBasis,
    /// Arrivals per second (flows; incast: requests), instead of `load`.
    pub rate: Option<f64>,
    /// Incast: one request every `interval`, instead of Poisson requests.
    pub interval: Option<Time>,
    /// Incast: senders answering each request.
    pub senders: Option<u32>,
    /// Trace: a CSV flow list (a path relative to the scenario file).
    pub file: Option<String>,
    /// First arrival not before `start` (trace: offset added to every row) (default 0s).
    #[serde(default)]
    pub start: Time,
    /// No arrival at or after `stop` (default: the run's duration).
    pub stop: Option<Time>,
    /// Objective class of the flows, reported in flows.parquet (default "").
    #[serde(default)]
    pub class: String,
    /// Tenant of the flows (default "").
    #[serde(default)]
    pub tenant: String,
    /// Label in flows.parquet (default "").
    #[serde(default)]
    pub tag: String,
    /// Priority class of the packets, 0 = highest (default 0).
    #[serde(default)]
    pub priority: u8,
    /// Weight for weighted sharing (default 1.0).
    #[serde(default = "one")]
    pub weight: f64,
    /// Deadline after each flow's start: "2ms" or { kind = "exponential", mean = "2ms" }.
    pub deadline: Option<DeadlineSpec>,
    /// Routing of the block's flows (default: `[routing]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routing: Option<crate::route::Routing>,
    /// "scheme", "tcp", a controller name or table (default: the scheme if the scenario has
    /// one, else TCP with `transport.cc`).
    #[serde(default, skip_serializing_if = "crate::transport::config::FlowTransport::is_default")]
    pub transport: crate::transport::config::FlowTransport,
    /// Refuse to generate more flows than this (default 2000000): a guard against a typo in
    /// `rate` or `duration` exhausting memory.
    #[serde(default = "default_max_flows")]
    pub max_flows: u64,
    /// `trace` from a Parquet file: its header and typed cells, read by the Python layer
    /// (not part of the scenario file).
    #[serde(skip)]
    pub cells: Option<std::sync::Arc<TraceCells>>,
}

/// What a flow adds to a traffic block's `load` ([`TrafficSpec::load_basis`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadBasis {
    /// Its whole size.
    #[default]
    Size,
    /// What its sender's access link could carry before the run ends, if less.
    Run,
}

impl LoadBasis {
    pub fn is_size(&self) -> bool {
        *self == LoadBasis::Size
    }
}

/// A flow list's header and rows of cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceCells {
    pub names: Vec<String>,
    pub rows: Vec<Vec<super::trace::Cell>>,
}

fn one() -> f64 {
    1.0
}
fn default_max_flows() -> u64 {
    2_000_000
}

/// The checks every workload block shares: its window within the run, and a positive
/// weight; `at` names a key of the block.
pub(super) fn check_window_and_weight(
    at: &dyn Fn(&str) -> String,
    start: Time,
    stop: Option<Time>,
    weight: f64,
    duration: Time,
) -> Result<()> {
    ensure(start < duration, &at("start"), || {
        format!("must be before the end of the run ({duration})")
    })?;
    if let Some(s) = stop {
        ensure(s > start, &at("stop"), || format!("must be after start ({start})"))?;
    }
    ensure(weight.is_finite() && weight > 0.0, &at("weight"), || {
        format!("must be a positive number, got {weight}")
    })
}

impl TrafficSpec {
    /// The end of the arrival window.
    pub fn stop_or(&self, duration: Time) -> Time {
        self.stop.unwrap_or(duration).min(duration)
    }

    pub fn validate(&self, i: usize, duration: Time) -> Result<()> {
        let at = |k: &str| format!("traffic[{i}].{k}");
        let p = self.pattern;
        let is = |x: TrafficPattern| p == x;
        let only = |present: bool, key: &str, which: &str| {
            ensure(!present, &at(key), || format!("only used with {which}; remove it"))
        };
        if is(TrafficPattern::Trace) {
            ensure(self.file.is_some(), &at("file"), || {
                "required with pattern = \"trace\" (a CSV flow list)".into()
            })?;
            for (present, key) in [
                (self.size.is_some(), "size"),
                (self.load.is_some(), "load"),
                (self.rate.is_some(), "rate"),
                (self.load_links.is_some(), "load_links"),
                (self.hosts.is_some(), "hosts"),
            ] {
                ensure(!present, &at(key), || {
                    "not used with pattern = \"trace\": the flow list gives every flow".into()
                })?;
            }
        } else {
            only(self.file.is_some(), "file", "pattern = \"trace\"")?;
            let size = self.size.as_ref().ok_or_else(|| {
                config_err(
                    at("size"),
                    "required key is missing (e.g. size = { cdf = \"websearch\" } or \"10KB\")",
                )
            })?;
            size.validate(&at("size"))?;
            let given = [self.load.is_some(), self.rate.is_some(), self.interval.is_some()]
                .iter()
                .filter(|&&b| b)
                .count();
            let choices =
                if is(TrafficPattern::Incast) { "load, rate or interval" } else { "load or rate" };
            ensure(given == 1, &at("load"), || format!("give exactly one of {choices}"))?;
        }
        if let Some(l) = self.load {
            ensure(l.is_finite() && l > 0.0 && l <= 1.0, &at("load"), || {
                format!("must be a fraction of capacity in (0, 1], got {l}")
            })?;
        }
        if let Some(r) = self.rate {
            ensure(r.is_finite() && r > 0.0, &at("rate"), || {
                format!("must be a positive number of arrivals per second, got {r}")
            })?;
        }
        if !self.load_basis.is_size() {
            ensure(self.load.is_some(), &at("load_basis"), || "only used with load".into())?;
        }
        if self.load_links.is_some() {
            ensure(self.load.is_some(), &at("load_links"), || "only used with load".into())?;
            ensure(
                self.load_links.as_ref().is_some_and(|l| !l.is_empty()),
                &at("load_links"),
                || "must name at least one \"node:port\"".into(),
            )?;
        }
        only(
            self.interval.is_some() && !is(TrafficPattern::Incast),
            "interval",
            "pattern = \"incast\"",
        )?;
        if let Some(iv) = self.interval {
            ensure(iv > Time::ZERO, &at("interval"), || "must be positive".into())?;
        }
        if is(TrafficPattern::Incast) {
            let n = self.senders.ok_or_else(|| {
                config_err(
                    at("senders"),
                    "required with pattern = \"incast\" (senders per request)",
                )
            })?;
            ensure(n >= 1, &at("senders"), || "must be at least 1".into())?;
        } else {
            only(self.senders.is_some(), "senders", "pattern = \"incast\"")?;
        }
        if is(TrafficPattern::ManyToOne) {
            ensure(self.dst.is_some(), &at("dst"), || {
                "required with pattern = \"many_to_one\"".into()
            })?;
        } else if !is(TrafficPattern::Incast) {
            only(self.dst.is_some(), "dst", "pattern = \"many_to_one\" or \"incast\"")?;
        }
        check_window_and_weight(&at, self.start, self.stop, self.weight, duration)?;
        if let Some(d) = &self.deadline {
            d.validate(&at("deadline"))?;
        }
        ensure(self.max_flows >= 1, &at("max_flows"), || "must be at least 1".into())?;
        self.transport.validate(&at("transport"))?;
        Ok(())
    }
}
