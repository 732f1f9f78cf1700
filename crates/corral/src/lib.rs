//! corral: a deterministic discrete-event datacenter network simulator.
//!
//! Layers, bottom up (a module imports only modules listed before it):
//! [`units`], [`ids`], [`text`] and [`error`]; shared configuration helpers in [`config`]; the event
//! machinery in [`sim`]; the network in [`net`] (topologies, ports, queue disciplines);
//! [`route`], the one place paths are chosen; the [`transport`] (TCP, its congestion
//! controllers, explicit-rate sending); [`workload`]s; [`metrics`]; max-min rate
//! [`alloc`]ation; [`scenario`] files; [`build`], which turns a scenario into a network and
//! flows for both modes; the control plane [`ctrl`]; the cooperative [`schemes`]; [`world`],
//! the packet-level simulation; [`fluid`], the flow-level one; and [`run`], the one entry
//! point for either. [`Simulation`] is the packet-level engine:
//!
//! ```
//! let text = r#"
//! duration = "5ms"
//! [topology]
//! kind = "dumbbell"
//! senders = 1
//! receivers = 1
//! link_rate = "1Gbps"
//! [[flows]]
//! src = "h0"
//! dst = "h1"
//! "#;
//! let scenario = corral::scenario::load(text, &[], "example").unwrap();
//! let mut sim = corral::Simulation::new(scenario).unwrap();
//! sim.run();
//! assert!(sim.flows[0].receiver.delivered() > 0);
//! ```

pub mod alloc;
pub mod build;
pub mod config;
pub mod ctrl;
pub mod error;
pub mod fluid;
pub mod ids;
pub mod metrics;
pub mod net;
pub mod route;
pub mod run;
pub mod scenario;
pub mod schemes;
pub mod sim;
pub mod text;
pub mod transport;
pub mod units;
pub mod workload;
pub mod world;

pub use error::{Error, Result};
pub use world::Simulation;

/// The crate version, reported in every summary.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[cfg(test)]
mod tests;
