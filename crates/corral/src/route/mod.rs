//! Routing: shortest-path candidate tables, and the policies that pick one candidate per
//! packet, one file each: `static` destination bits (the TCP Outcast paper's fat-tree
//! routing), per-flow `ecmp` hashing, per-packet `spray`, and `equal_length` routing through
//! the top tier.

pub mod ecmp;
pub mod equal_length;
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
    /// Every packet goes up to the top tier and back down (Outcast paper, section 5.4).
    EqualLength { core: equal_length::CoreChoice },
}

/// A routing table takes no keys besides `kind`...
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoKeys {}

/// ...except equal-length routing, which takes `core`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EqualLengthKeys {
    #[serde(default)]
    core: equal_length::CoreChoice,
}

impl<'de> Deserialize<'de> for RoutingConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::config::{by_kind, typed};
        by_kind(d, &["static", "ecmp", "spray", "equal_length"], |kind, v| {
            if kind == "equal_length" {
                let k: EqualLengthKeys = typed(v, "")?;
                return Ok(RoutingConfig::EqualLength { core: k.core });
            }
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
            RoutingConfig::EqualLength { .. } => "equal_length",
        }
    }

    /// Packets climb to the top tier before heading down (equal-length routing).
    pub fn via_top(&self) -> bool {
        matches!(self, RoutingConfig::EqualLength { .. })
    }
}

/// A routing policy with its state, dispatched statically.
pub enum Router {
    Static(static_bits::StaticBits),
    Ecmp(ecmp::Ecmp),
    Spray(spray::Spray),
    EqualLength(equal_length::EqualLength),
}

impl Router {
    pub fn new(cfg: &RoutingConfig, seed: u64, nodes: usize) -> Router {
        match cfg {
            RoutingConfig::Static => Router::Static(static_bits::StaticBits),
            RoutingConfig::Ecmp => Router::Ecmp(ecmp::Ecmp::new(seed)),
            RoutingConfig::Spray => Router::Spray(spray::Spray::new(seed, nodes)),
            RoutingConfig::EqualLength { core } => Router::EqualLength(equal_length::EqualLength::new(*core, seed, nodes)),
        }
    }

    /// Packets climb to the top tier first: the caller offers uplinks until the packet turns.
    #[inline]
    pub fn via_top(&self) -> bool {
        matches!(self, Router::EqualLength(_))
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
            Router::EqualLength(r) => r.pick(node, static_div, candidates.len(), dst),
        };
        candidates[i]
    }
}
