//! Topologies: the data every builder produces ([`Topology`], in `spec.rs`: nodes and links)
//! and the builders, one file each, declared in one list ([`TopologyKind`]).
//! [`TopologyConfig`] is the `[topology]` table of a scenario, tagged by `kind`.

pub mod dumbbell;
pub mod fat_tree;
pub mod leaf_spine;
pub mod spec;
pub mod three_tier;
pub mod torus;

use crate::error::Result;
use serde::{Deserialize, Serialize};
pub use spec::{LinkSpec, NodeKind, NodeSpec, Topology};

/// One topology as a scenario declares it: `[topology]` with `kind = "<name>"` and the
/// keys of its config. Each topology file implements it on its config, and the
/// `topologies!` list is the one place the set of topologies is written: a new topology is
/// its file and one line there.
pub trait TopologyKind {
    /// Checks the parameters; errors name the key under `topology.`.
    fn validate(&self) -> Result<()>;
    fn build(&self) -> Topology;
    /// What it will build, from its parameters alone (for the memory estimate, before
    /// anything is built).
    fn size(&self) -> Size;
}

/// The size of a topology: nodes, ports (two per link), hosts, and the key that sizes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    pub nodes: u64,
    pub ports: u64,
    pub hosts: u64,
    pub key: &'static str,
}

/// Declares the topologies: for each, its name, its variant in [`TopologyConfig`] and its
/// config type. Generates the enum, its parser (tagged by `kind`), the list of names, and
/// the dispatch of [`TopologyKind`].
macro_rules! topologies {
    ($($name:literal => $variant:ident($ty:ty)),* $(,)?) => {
        /// `[topology]`, tagged by `kind`.
        #[derive(Clone, Debug, Serialize)]
        #[serde(tag = "kind")]
        pub enum TopologyConfig {
            $(#[serde(rename = $name)] $variant($ty),)*
        }

        /// The topologies' names, in declaration order.
        pub const KINDS: &[&str] = &[$($name),*];

        impl<'de> Deserialize<'de> for TopologyConfig {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                crate::config::by_kind(d, KINDS, |kind, v| {
                    Ok(match kind {
                        $($name => TopologyConfig::$variant(crate::config::typed(v, "")?),)*
                        other => unreachable!("by_kind checked {other}"),
                    })
                })
            }
        }

        impl TopologyConfig {
            pub fn name(&self) -> &'static str {
                match self { $(TopologyConfig::$variant(_) => $name,)* }
            }

            /// [`TopologyKind::validate`] of the chosen topology.
            pub fn validate(&self) -> Result<()> {
                match self { $(TopologyConfig::$variant(c) => TopologyKind::validate(c),)* }
            }

            /// [`TopologyKind::build`] of the chosen topology.
            pub fn build(&self) -> Topology {
                match self { $(TopologyConfig::$variant(c) => TopologyKind::build(c),)* }
            }

            /// [`TopologyKind::size`] of the chosen topology.
            pub fn size(&self) -> Size {
                match self { $(TopologyConfig::$variant(c) => TopologyKind::size(c),)* }
            }
        }
    };
}

topologies! {
    "dumbbell" => Dumbbell(dumbbell::DumbbellConfig),
    "fat_tree" => FatTree(fat_tree::FatTreeConfig),
    "leaf_spine" => LeafSpine(leaf_spine::LeafSpineConfig),
    "three_tier" => ThreeTier(three_tier::ThreeTierConfig),
    "torus" => Torus(torus::TorusConfig),
}

pub(crate) fn default_delay() -> crate::units::Time {
    crate::units::Time::from_us(1)
}
