//! Classic three-tier tree (access/edge, aggregation, core). Edges are grouped into pods of
//! `aggs_per_pod` aggregation switches; each edge connects to every aggregation switch of its
//! pod and every aggregation switch to every core. Each tier has its own rate and delay.
//!
//! Names: hosts `h0..` (host `hN` on `edge{N / hosts_per_edge}`), `edge0..`, `agg0..`,
//! `core0..`. Ports: an edge numbers its hosts first, then its pod's aggregation switches; an
//! aggregation switch numbers its pod's edges first, then the cores; core port `a` faces
//! `agg{a}`.

use crate::error::{ensure, Result};
use crate::net::Topology;
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ThreeTierConfig {
    /// Core switches; every aggregation switch connects to every core.
    pub cores: u32,
    /// Total aggregation switches; a multiple of aggs_per_pod.
    pub aggs: u32,
    /// Total edge (ToR) switches; a multiple of the number of pods.
    pub edges: u32,
    /// Hosts under each edge switch.
    pub hosts_per_edge: u32,
    /// Aggregation switches per pod (default 2).
    #[serde(default = "default_aggs_per_pod")]
    pub aggs_per_pod: u32,
    /// Host-to-edge link rate.
    pub host_rate: Rate,
    /// Edge-to-aggregation link rate.
    pub edge_rate: Rate,
    /// Aggregation-to-core link rate.
    pub core_rate: Rate,
    /// Host-to-edge propagation delay (default 1us).
    #[serde(default = "super::default_delay")]
    pub host_delay: Time,
    /// Edge-to-aggregation propagation delay (default 1us).
    #[serde(default = "super::default_delay")]
    pub edge_delay: Time,
    /// Aggregation-to-core propagation delay (default 1us).
    #[serde(default = "super::default_delay")]
    pub core_delay: Time,
}

fn default_aggs_per_pod() -> u32 {
    2
}

impl ThreeTierConfig {
    fn pods(&self) -> u32 {
        self.aggs / self.aggs_per_pod
    }
}

impl super::TopologyKind for ThreeTierConfig {
    fn validate(&self) -> Result<()> {
        for (key, v) in [
            ("cores", self.cores),
            ("aggs", self.aggs),
            ("edges", self.edges),
            ("hosts_per_edge", self.hosts_per_edge),
            ("aggs_per_pod", self.aggs_per_pod),
        ] {
            ensure(v >= 1, &format!("topology.{key}"), || format!("must be at least 1, got {v}"))?;
        }
        ensure(self.aggs.is_multiple_of(self.aggs_per_pod), "topology.aggs", || {
            format!("must be a multiple of aggs_per_pod ({}), got {}", self.aggs_per_pod, self.aggs)
        })?;
        ensure(self.edges.is_multiple_of(self.pods()), "topology.edges", || {
            format!(
                "must be a multiple of the number of pods ({}), got {}",
                self.pods(),
                self.edges
            )
        })
    }

    fn build(&self) -> Topology {
        let mut t = Topology::default();
        let hosts: Vec<_> = (0..self.edges * self.hosts_per_edge).map(|_| t.add_host()).collect();
        let edges: Vec<_> =
            (0..self.edges).map(|i| t.add_switch(format!("edge{i}"), 1, 1)).collect();
        let aggs: Vec<_> =
            (0..self.aggs).map(|i| t.add_switch(format!("agg{i}"), self.aggs_per_pod, 2)).collect();
        let cores: Vec<_> =
            (0..self.cores).map(|i| t.add_switch(format!("core{i}"), 1, 3)).collect();
        for (i, &h) in hosts.iter().enumerate() {
            t.link(h, edges[i / self.hosts_per_edge as usize], self.host_rate, self.host_delay);
        }
        let edges_per_pod = (self.edges / self.pods()) as usize;
        let app = self.aggs_per_pod as usize;
        for (e, &edge) in edges.iter().enumerate() {
            let pod = e / edges_per_pod;
            for &agg in &aggs[pod * app..(pod + 1) * app] {
                t.link(edge, agg, self.edge_rate, self.edge_delay);
            }
        }
        for &agg in &aggs {
            for &core in &cores {
                t.link(agg, core, self.core_rate, self.core_delay);
            }
        }
        t
    }

    fn size(&self) -> super::Size {
        let h = self.edges as u64 * self.hosts_per_edge as u64;
        let links = h
            .saturating_add(self.edges as u64 * self.aggs_per_pod as u64)
            .saturating_add(self.aggs as u64 * self.cores as u64);
        let key = if self.hosts_per_edge >= self.edges {
            "topology.hosts_per_edge"
        } else {
            "topology.edges"
        };
        super::Size {
            nodes: h.saturating_add(self.edges as u64 + self.aggs as u64 + self.cores as u64),
            ports: links.saturating_mul(2),
            hosts: h,
            key,
        }
    }
}
