//! Topology builders, one file each. [`TopologyConfig`] is the `[topology]` table of a
//! scenario, tagged by `kind`.

pub mod dumbbell;
pub mod fat_tree;
pub mod leaf_spine;
pub mod three_tier;
pub mod torus;

use super::Topology;
use crate::error::Result;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TopologyConfig {
    Dumbbell(dumbbell::DumbbellConfig),
    FatTree(fat_tree::FatTreeConfig),
    LeafSpine(leaf_spine::LeafSpineConfig),
    ThreeTier(three_tier::ThreeTierConfig),
    Torus(torus::TorusConfig),
}

impl<'de> Deserialize<'de> for TopologyConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use crate::config::{by_kind, typed};
        by_kind(d, &["dumbbell", "fat_tree", "leaf_spine", "three_tier", "torus"], |kind, v| {
            Ok(match kind {
                "dumbbell" => TopologyConfig::Dumbbell(typed(v, "")?),
                "fat_tree" => TopologyConfig::FatTree(typed(v, "")?),
                "leaf_spine" => TopologyConfig::LeafSpine(typed(v, "")?),
                "torus" => TopologyConfig::Torus(typed(v, "")?),
                _ => TopologyConfig::ThreeTier(typed(v, "")?),
            })
        })
    }
}

impl TopologyConfig {
    /// Checks the parameters; errors name the key under `topology.`.
    pub fn validate(&self) -> Result<()> {
        match self {
            TopologyConfig::Dumbbell(c) => c.validate(),
            TopologyConfig::FatTree(c) => c.validate(),
            TopologyConfig::LeafSpine(c) => c.validate(),
            TopologyConfig::ThreeTier(c) => c.validate(),
            TopologyConfig::Torus(c) => c.validate(),
        }
    }

    pub fn build(&self) -> Topology {
        match self {
            TopologyConfig::Dumbbell(c) => c.build(),
            TopologyConfig::FatTree(c) => c.build(),
            TopologyConfig::LeafSpine(c) => c.build(),
            TopologyConfig::ThreeTier(c) => c.build(),
            TopologyConfig::Torus(c) => c.build(),
        }
    }
}

pub(crate) fn default_delay() -> crate::units::Time {
    crate::units::Time::from_us(1)
}
