//! Routing: shortest-path candidate tables, and the policies that pick one candidate per
//! packet, one file each: `static` destination bits (the TCP Outcast paper's fat-tree
//! routing), per-flow `ecmp` hashing, and per-packet `spray`.

pub mod ecmp;
pub mod spray;
pub mod static_bits;
pub mod table;

use crate::ids::{FlowId, NodeId, PortId};
use serde::{Deserialize, Serialize};
pub use table::RouteTable;

/// `[routing]` table of a scenario.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RoutingConfig {
    /// Destination-address bits choose the uplink (Outcast paper, section 2.1).
    Static,
    /// Per-flow hash over equal-cost next hops.
    Ecmp,
    /// Per-packet uniform random choice over equal-cost next hops.
    Spray,
}

/// A routing table takes no keys besides `kind`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoKeys {}

impl<'de> Deserialize<'de> for RoutingConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::scenario::load::{by_kind, typed};
        by_kind(d, &["static", "ecmp", "spray"], |kind, v| {
            typed::<NoKeys>(v, "")?;
            Ok(match kind {
                "static" => RoutingConfig::Static,
                "ecmp" => RoutingConfig::Ecmp,
                _ => RoutingConfig::Spray,
            })
        })
    }
}

impl RoutingConfig {
    pub fn name(&self) -> &'static str {
        match self {
            RoutingConfig::Static => "static",
            RoutingConfig::Ecmp => "ecmp",
            RoutingConfig::Spray => "spray",
        }
    }
}

/// A routing policy with its state, dispatched statically.
pub enum Router {
    Static(static_bits::StaticBits),
    Ecmp(ecmp::Ecmp),
    Spray(spray::Spray),
}

impl Router {
    pub fn new(cfg: &RoutingConfig, seed: u64, nodes: usize) -> Router {
        match cfg {
            RoutingConfig::Static => Router::Static(static_bits::StaticBits),
            RoutingConfig::Ecmp => Router::Ecmp(ecmp::Ecmp::new(seed)),
            RoutingConfig::Spray => Router::Spray(spray::Spray::new(seed, nodes)),
        }
    }

    /// Picks the output port at `node` for a packet of `flow` to host `dst`, among the
    /// non-empty equal-cost `candidates`.
    #[inline]
    pub fn choose(&mut self, node: NodeId, static_div: u32, candidates: &[PortId], flow: FlowId, dst: u32) -> PortId {
        if candidates.len() == 1 {
            return candidates[0];
        }
        let i = match self {
            Router::Static(r) => r.pick(static_div, candidates.len(), dst),
            Router::Ecmp(r) => r.pick(node, candidates.len(), flow),
            Router::Spray(r) => r.pick(node, candidates.len()),
        };
        candidates[i]
    }
}
