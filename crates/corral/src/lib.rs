//! corral: a deterministic discrete-event datacenter network simulator.
//!
//! Layers, bottom up: [`units`] and [`ids`]; the event machinery in [`sim`]; the network in
//! [`net`] (topologies, ports, queue disciplines); [`route`]; the TCP [`transport`] with its
//! congestion controllers; [`metrics`]; [`scenario`] files; and [`world`], the simulation
//! that ties them together. [`Simulation`] is the entry point:
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
pub mod config;
pub mod error;
pub mod fluid;
pub mod ids;
pub mod metrics;
pub mod net;
pub mod route;
pub mod scenario;
pub mod sim;
pub mod transport;
pub mod units;
pub mod workload;
pub mod world;

pub use error::{Error, Result};
pub use world::Simulation;

/// The crate version, reported in every summary.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
