//! Two-tier leaf-spine (Clos) fabric: every leaf connects to every spine. Host and fabric
//! links have separate rates, so oversubscription = hosts_per_leaf * host_rate /
//! (spines * fabric_rate).
//!
//! Names: hosts `h0..` (host `hN` on `leaf{N / hosts_per_leaf}`), `leaf0..`, `spine0..`.
//! Ports: a leaf numbers its hosts `0..hosts_per_leaf-1`, then spines in order; spine port `l`
//! faces `leaf{l}`.

use crate::error::{ensure, Result};
use crate::net::Topology;
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LeafSpineConfig {
    /// Number of leaf (ToR) switches.
    pub leaves: u32,
    /// Number of spine switches; every leaf connects to every spine.
    pub spines: u32,
    /// Hosts under each leaf.
    pub hosts_per_leaf: u32,
    /// Host-to-leaf link rate.
    pub host_rate: Rate,
    /// Leaf-to-spine link rate.
    pub fabric_rate: Rate,
    /// Host-to-leaf propagation delay (default 1us).
    #[serde(default = "super::default_delay")]
    pub host_delay: Time,
    /// Leaf-to-spine propagation delay (default 1us).
    #[serde(default = "super::default_delay")]
    pub fabric_delay: Time,
}

impl super::TopologyKind for LeafSpineConfig {
    fn validate(&self) -> Result<()> {
        ensure(self.leaves >= 1, "topology.leaves", || {
            format!("must be at least 1, got {}", self.leaves)
        })?;
        ensure(self.spines >= 1, "topology.spines", || {
            format!("must be at least 1, got {}", self.spines)
        })?;
        ensure(self.hosts_per_leaf >= 1, "topology.hosts_per_leaf", || {
            format!("must be at least 1, got {}", self.hosts_per_leaf)
        })
    }

    fn build(&self) -> Topology {
        let mut t = Topology::default();
        let hosts: Vec<_> = (0..self.leaves * self.hosts_per_leaf).map(|_| t.add_host()).collect();
        let leaves: Vec<_> =
            (0..self.leaves).map(|i| t.add_switch(format!("leaf{i}"), 1, 1)).collect();
        let spines: Vec<_> =
            (0..self.spines).map(|i| t.add_switch(format!("spine{i}"), 1, 2)).collect();
        for (i, &h) in hosts.iter().enumerate() {
            t.link(h, leaves[i / self.hosts_per_leaf as usize], self.host_rate, self.host_delay);
        }
        for &l in &leaves {
            for &s in &spines {
                t.link(l, s, self.fabric_rate, self.fabric_delay);
            }
        }
        t
    }

    fn size(&self) -> super::Size {
        let h = self.leaves as u64 * self.hosts_per_leaf as u64; // below 2^64: both are u32
        let key = if self.hosts_per_leaf >= self.leaves {
            "topology.hosts_per_leaf"
        } else {
            "topology.leaves"
        };
        super::Size {
            nodes: h.saturating_add(self.leaves as u64 + self.spines as u64),
            ports: h.saturating_add(self.leaves as u64 * self.spines as u64).saturating_mul(2),
            hosts: h,
            key,
        }
    }
}
