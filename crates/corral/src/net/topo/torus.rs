//! 2D or 3D torus, the direct-connect rack topology of R2C2 (SIGCOMM 2015, section 2 and
//! Fig. 1): nodes on a grid with wrap-around links to their neighbours in every dimension,
//! or a mesh without them (`wrap = false`). Each grid node is a switch with one host
//! attached, so packet-level runs work unchanged and a host stands for the R2C2 server's
//! network stack; the host link has its own rate (`host_rate`: R2C2's nodes inject at well
//! over the torus link rate) and delay. Torus links carry their dimension (dimension-order
//! routing, [`crate::route::dest_tag`]).
//!
//! Names: switch `sw{i}` and its host `h{i}`, where `i = x + dims[0] * (y + dims[1] * z)`.
//! Ports: a switch's port 0 faces its host; the torus links follow in creation order, which
//! goes node by node and, for each node, dimension by dimension to its `+1` neighbour (so a
//! node's `-1` links come from its neighbours' turns). A dimension of size 2 has one link
//! between the two nodes, not two; a mesh has no link from the last node of a dimension back
//! to the first. 8x8x8 gives 512 hosts and 1536 torus links (3072 directed), an 8x8x8 mesh
//! 1344.

use crate::error::{ensure, Result};
use crate::net::Topology;
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TorusConfig {
    /// Nodes per dimension: 2 or 3 entries, each at least 2.
    pub dims: Vec<u32>,
    /// Rate of every torus link (and of host links unless `host_rate` is given).
    pub link_rate: Rate,
    /// Propagation delay of every torus link (default 1us).
    #[serde(default = "super::default_delay")]
    pub link_delay: Time,
    /// Rate of each node's host link (default: link_rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_rate: Option<Rate>,
    /// Propagation delay of each host link (default: link_delay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_delay: Option<Time>,
    /// Wrap-around links (default true); false gives a mesh.
    #[serde(default = "yes")]
    pub wrap: bool,
}

fn yes() -> bool {
    true
}

impl Default for TorusConfig {
    fn default() -> Self {
        TorusConfig {
            dims: vec![8, 8, 8],
            link_rate: Rate(10_000_000_000),
            link_delay: Time::from_us(1),
            host_rate: None,
            host_delay: None,
            wrap: true,
        }
    }
}

impl TorusConfig {
    pub fn nodes(&self) -> usize {
        self.dims.iter().map(|&d| d as usize).product()
    }
}

impl super::TopologyKind for TorusConfig {
    fn validate(&self) -> Result<()> {
        ensure((2..=3).contains(&self.dims.len()), "topology.dims", || {
            format!("must list 2 or 3 sizes, got {}", self.dims.len())
        })?;
        for (i, &d) in self.dims.iter().enumerate() {
            ensure((2..=64).contains(&d), &format!("topology.dims[{i}]"), || {
                format!("must be between 2 and 64, got {d}")
            })?;
        }
        let n: u64 = self.dims.iter().map(|&d| d as u64).product();
        ensure(n <= 65536, "topology.dims", || format!("at most 65536 nodes, got {n}"))
    }

    fn build(&self) -> Topology {
        let n = self.nodes();
        let (rate, delay) = (self.link_rate, self.link_delay);
        let mut t = Topology::default();
        let hosts: Vec<_> = (0..n).map(|_| t.add_host()).collect();
        let sws: Vec<_> = (0..n).map(|i| t.add_switch(format!("sw{i}"), 1, 1)).collect();
        let (host_rate, host_delay) =
            (self.host_rate.unwrap_or(rate), self.host_delay.unwrap_or(delay));
        for i in 0..n {
            t.link(hosts[i], sws[i], host_rate, host_delay);
        }
        for i in 0..n {
            let mut stride = 1usize;
            for (dim, &d) in self.dims.iter().enumerate() {
                let d = d as usize;
                let coord = (i / stride) % d;
                let j = i - coord * stride + ((coord + 1) % d) * stride;
                // Size 2: the +1 and -1 neighbours coincide; link them once. A mesh does not
                // wrap from the last node back to the first.
                let wraps = coord + 1 == d;
                if (d > 2 || coord == 0) && (self.wrap || !wraps) {
                    t.link_along(sws[i], sws[j], rate, delay, dim as u8);
                }
                stride *= d;
            }
        }
        t
    }

    fn size(&self) -> super::Size {
        let n = self.nodes() as u64;
        super::Size {
            nodes: 2 * n,
            ports: 2 * (n + n * self.dims.len() as u64),
            hosts: n,
            key: "topology.dims",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::topo::TopologyKind as _;

    fn cfg(dims: &[u32]) -> TorusConfig {
        TorusConfig {
            dims: dims.to_vec(),
            link_rate: Rate(1_000_000_000),
            link_delay: Time::from_us(1),
            ..TorusConfig::default()
        }
    }

    #[test]
    fn eight_cube_has_3072_directed_torus_links() {
        let t = cfg(&[8, 8, 8]).build();
        assert_eq!(t.hosts.len(), 512);
        assert_eq!(t.links.len(), 512 + 1536);
        // Every switch: 1 host port + 6 torus ports.
        let mut deg = vec![0; t.nodes.len()];
        for l in &t.links {
            deg[l.a.idx()] += 1;
            deg[l.b.idx()] += 1;
        }
        assert!(deg[512..].iter().all(|&d| d == 7));
    }

    #[test]
    fn size_two_dimension_links_once() {
        let t = cfg(&[2, 3]).build();
        // 6 nodes: dim 0 (size 2) 3 links, dim 1 (size 3) 6 links.
        assert_eq!(t.links.len(), 6 + 3 + 6);
    }

    #[test]
    fn bad_dims_name_the_key() {
        assert!(cfg(&[8]).validate().unwrap_err().to_string().starts_with("topology.dims:"));
        assert!(cfg(&[8, 1]).validate().unwrap_err().to_string().starts_with("topology.dims[1]:"));
    }

    #[test]
    fn mesh_drops_the_wrap_around_links_and_host_links_have_their_own_rate() {
        let mesh =
            TorusConfig { wrap: false, host_rate: Some(Rate(40_000_000_000)), ..cfg(&[8, 8, 8]) }
                .build();
        // 3 dimensions x 8 x 8 rows of 7 links.
        assert_eq!(mesh.links.len(), 512 + 3 * 64 * 7);
        assert!(mesh.links[..512].iter().all(|l| l.rate == Rate(40_000_000_000)));
        assert!(mesh.links[512..].iter().all(|l| l.rate == Rate(1_000_000_000)));
        let dims: Vec<u8> = mesh.links[512..].iter().map(|l| l.dim).collect();
        assert_eq!(
            (0..3).map(|d| dims.iter().filter(|&&x| x == d).count()).collect::<Vec<_>>(),
            vec![448; 3]
        );
    }
}
