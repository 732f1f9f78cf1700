//! Workloads: open-loop traffic generated from `[[traffic]]` blocks, and closed-loop
//! request/response sessions from `[[rpc]]` blocks ([`rpc`]). Flow sizes come from
//! empirical CDFs ([`cdf`]) or parametric distributions ([`dist`]), arrivals are Poisson at
//! a rate derived from a target load ([`arrivals`]), pairs follow a pattern ([`patterns`])
//! or an explicit flow list ([`trace`]), and flows may carry deadlines ([`deadline`]).
//! [`generate`] expands the blocks into flows before the run.

pub mod arrivals;
pub mod cdf;
pub mod deadline;
pub mod dist;
pub mod flow;
pub mod generate;
pub mod patterns;
pub mod rpc;
pub mod spec;
pub mod trace;

pub use spec::TrafficSpec;
