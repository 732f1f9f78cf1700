//! k-ary fat-tree (Al-Fares, Loukissas and Vahdat, SIGCOMM 2008, section 3.3): k pods, each
//! with k/2 ToR (edge) and k/2 aggregation switches; (k/2)^2 core switches; k^3/4 hosts.
//! k = 4 gives 16 hosts, 8 ToR, 8 aggregation and 4 core switches.
//!
//! Names: hosts `h0..`, ToRs `tor0..` (ToR `t` is in pod `t / (k/2)`), aggregation switches
//! `agg0..` (same numbering), cores `core0..`. Host `hN` hangs off `tor{N / (k/2)}`.
//! Ports: a host has port 0. ToR ports `0..k/2-1` face its hosts, `k/2..k-1` go up to the
//! pod's aggregation switches in order. An aggregation switch's ports `0..k/2-1` face the
//! pod's ToRs, `k/2..k-1` go up to cores `a*(k/2) .. a*(k/2)+k/2-1` where `a` is its index in
//! the pod. Core port `p` faces pod `p`.

use crate::error::{ensure, Result};
use crate::net::Topology;
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FatTreeConfig {
    /// Switch radix; even, at least 2.
    pub k: u32,
    /// Rate of every link.
    pub link_rate: Rate,
    /// Propagation delay of every link (default 1us).
    #[serde(default = "super::default_delay")]
    pub link_delay: Time,
}

impl super::TopologyKind for FatTreeConfig {
    fn validate(&self) -> Result<()> {
        ensure(self.k >= 2 && self.k.is_multiple_of(2) && self.k <= 128, "topology.k", || {
            format!("must be even and between 2 and 128, got {}", self.k)
        })
    }

    fn build(&self) -> Topology {
        let k = self.k;
        let half = k / 2;
        let (rate, delay) = (self.link_rate, self.link_delay);
        let mut t = Topology::default();
        let hosts: Vec<_> = (0..k * half * half).map(|_| t.add_host()).collect();
        let tors: Vec<_> = (0..k * half).map(|i| t.add_switch(format!("tor{i}"), 1, 1)).collect();
        let aggs: Vec<_> =
            (0..k * half).map(|i| t.add_switch(format!("agg{i}"), half, 2)).collect();
        let cores: Vec<_> =
            (0..half * half).map(|i| t.add_switch(format!("core{i}"), 1, 3)).collect();
        for (i, &h) in hosts.iter().enumerate() {
            t.link(h, tors[i / half as usize], rate, delay);
        }
        for pod in 0..k {
            for e in 0..half {
                for a in 0..half {
                    t.link(
                        tors[(pod * half + e) as usize],
                        aggs[(pod * half + a) as usize],
                        rate,
                        delay,
                    );
                }
            }
        }
        for pod in 0..k {
            for a in 0..half {
                for j in 0..half {
                    t.link(
                        aggs[(pod * half + a) as usize],
                        cores[(a * half + j) as usize],
                        rate,
                        delay,
                    );
                }
            }
        }
        t
    }

    fn size(&self) -> super::Size {
        let k = self.k as u64;
        super::Size {
            nodes: k * k * k / 4 + 5 * k * k / 4,
            ports: 2 * (3 * k * k * k / 4),
            hosts: k * k * k / 4,
            key: "topology.k",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::topo::TopologyKind as _;
    use crate::net::NodeKind;

    #[test]
    fn k4_has_the_al_fares_counts() {
        let cfg =
            FatTreeConfig { k: 4, link_rate: Rate(1_000_000_000), link_delay: Time::from_us(1) };
        let t = cfg.build();
        let count = |p: &str| {
            t.nodes.iter().filter(|n| n.name.starts_with(p) && n.kind == NodeKind::Switch).count()
        };
        assert_eq!(t.hosts.len(), 16);
        assert_eq!((count("tor"), count("agg"), count("core")), (8, 8, 4));
        // k^3/4 host links + k*(k/2)^2 edge-agg + k*(k/2)^2 agg-core.
        assert_eq!(t.links.len(), 16 + 16 + 16);
    }

    #[test]
    fn odd_k_is_rejected() {
        let cfg = FatTreeConfig { k: 3, link_rate: Rate(1), link_delay: Time::ZERO };
        assert!(cfg.validate().unwrap_err().to_string().starts_with("topology.k:"));
    }
}
