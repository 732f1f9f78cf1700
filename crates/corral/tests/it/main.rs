//! corral's scenario and property tests, one binary: a module per topic (`cargo test -p
//! corral --test it <name>` runs a topic or a test). Shared helpers live in `common`.

mod alloc_props;
mod backpressure;
mod common;
mod conservation;
mod dctcp;
mod deadline_cc;
mod determinism;
mod equal_length;
mod events;
mod failures;
mod fairness;
mod flowcell;
mod fluid;
mod handshake;
mod hcc;
mod host_backpressure;
mod hpcc;
mod ideal_workload;
mod metrics;
mod pacing;
mod pfabric;
mod qdisc;
mod r2c2;
mod rackcc;
mod routing;
mod rpc;
mod scc;
mod schemes;
mod single_flow;
mod swift;
mod tcp_recovery;
mod topologies;
mod tunnels;
mod workload;
