//! The one entry point for a run, packet-level or fluid by the scenario's `mode`: build it,
//! advance it, and collect every output table ([`crate::metrics::schema::TABLES`], in their
//! order) and the summary. The Python layer and the examples go through here.

use crate::error::Result;
use crate::fluid::FluidSim;
use crate::metrics::outcome::RunSummary;
use crate::metrics::schema;
use crate::metrics::Table;
use crate::scenario::{Mode, Scenario};
use crate::units::Time;
use crate::world::Simulation;

/// Every list of kinds a scenario may name, each from its one declaration: queue
/// disciplines, congestion controllers, schemes, topologies and routings, by name.
pub fn kinds() -> std::collections::BTreeMap<&'static str, Vec<&'static str>> {
    std::collections::BTreeMap::from([
        ("queues", crate::net::queue::KINDS.to_vec()),
        ("controllers", crate::transport::cc::KINDS.to_vec()),
        ("schemes", crate::schemes::kinds()),
        ("topologies", crate::net::topo::KINDS.to_vec()),
        ("routings", crate::route::ROUTING_NAMES.to_vec()),
    ])
}

pub enum Run {
    Packet(Box<Simulation>),
    Fluid(Box<FluidSim>),
}

impl Run {
    /// Builds the run of a validated scenario.
    pub fn new(scenario: Scenario) -> Result<Run> {
        Ok(match scenario.mode {
            Mode::Packet => Run::Packet(Box::new(Simulation::new(scenario)?)),
            Mode::Fluid => Run::Fluid(Box::new(FluidSim::new(scenario)?)),
        })
    }

    /// Loads `text` (with `--set` overrides) and builds its run.
    pub fn load(text: &str, overrides: &[String], source: &str) -> Result<Run> {
        Run::new(crate::scenario::load(text, overrides, source)?)
    }

    pub fn scenario(&self) -> &Scenario {
        match self {
            Run::Packet(s) => &s.scenario,
            Run::Fluid(s) => &s.scenario,
        }
    }

    pub fn reached(&self) -> Time {
        match self {
            Run::Packet(s) => s.reached(),
            Run::Fluid(s) => s.reached(),
        }
    }

    pub fn is_finished(&self) -> bool {
        match self {
            Run::Packet(s) => s.is_finished(),
            Run::Fluid(s) => s.is_finished(),
        }
    }

    /// What the run was estimated to cost when built (memory, events).
    pub fn work(&self) -> &crate::build::work::Work {
        match self {
            Run::Packet(s) => &s.work,
            Run::Fluid(s) => &s.work,
        }
    }

    pub fn events_processed(&self) -> u64 {
        match self {
            Run::Packet(s) => s.events_processed(),
            Run::Fluid(s) => s.events_processed(),
        }
    }

    /// Advances to simulated time `t` (capped at the duration).
    pub fn run_until(&mut self, t: Time) {
        match self {
            Run::Packet(s) => s.run_until(t),
            Run::Fluid(s) => s.run_until(t),
        }
    }

    pub fn run(&mut self) {
        let d = self.scenario().duration;
        self.run_until(d);
    }

    /// Every output table, in schema order. Fluid mode has no packets: its queue, drop,
    /// port, latency and control tables are empty (with their columns).
    pub fn tables(&self) -> Vec<(&'static str, Table)> {
        schema::TABLES
            .iter()
            .map(|&(name, _)| {
                let t = match (self, name) {
                    (Run::Packet(s), "flows") => s.flows_table(),
                    (Run::Packet(s), "throughput") => s.throughput_table(),
                    (Run::Packet(s), "queues") => s.queues_table(),
                    (Run::Packet(s), "drops") => s.drops_table(),
                    (Run::Packet(s), "drop_runs") => s.drop_runs_table(),
                    (Run::Packet(s), "ports") => s.ports_table(),
                    (Run::Packet(s), "throughput_class") => s.throughput_class_table(),
                    (Run::Packet(s), "latency") => s.latency_table(),
                    (Run::Packet(s), "control") => s.control_table(),
                    (Run::Fluid(f), "flows") => f.flows_table(),
                    (Run::Fluid(f), "throughput") => f.throughput_table(),
                    (Run::Fluid(f), "throughput_class") => f.throughput_class_table(),
                    (_, other) => schema::empty(other),
                };
                (name, t)
            })
            .collect()
    }

    /// The run's summary (summary.json), deterministic.
    pub fn summary(&self) -> RunSummary {
        match self {
            Run::Packet(s) => s.run_summary(),
            Run::Fluid(f) => f.run_summary(),
        }
    }

    /// The run's wall-clock measurements besides the caller's wall time (timing.json).
    pub fn timing(&self) -> serde_json::Value {
        match self {
            Run::Packet(s) => s.timing(),
            Run::Fluid(_) => serde_json::json!({ "scheme": null }),
        }
    }
}
