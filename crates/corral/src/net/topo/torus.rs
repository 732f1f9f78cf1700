//! 2D or 3D torus, the direct-connect rack topology of R2C2 (SIGCOMM 2015, section 2 and
//! Fig. 1): nodes on a grid with wrap-around links to their neighbours in every dimension.
//! Each grid node is a switch with one host attached, so packet-level runs work unchanged and
//! a host stands for the R2C2 server's network stack.
//!
//! Names: switch `sw{i}` and its host `h{i}`, where `i = x + dims[0] * (y + dims[1] * z)`.
//! Ports: a switch's port 0 faces its host; the torus links follow in creation order, which
//! goes node by node and, for each node, dimension by dimension to its `+1` neighbour (so a
//! node's `-1` links come from its neighbours' turns). A dimension of size 2 has one link
//! between the two nodes, not two. 8x8x8 gives 512 hosts and 1536 torus links (3072 directed).

use crate::error::{ensure, Result};
use crate::net::Topology;
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TorusConfig {
    /// Nodes per dimension: 2 or 3 entries, each at least 2.
    pub dims: Vec<u32>,
    /// Rate of every link (torus and host links).
    pub link_rate: Rate,
    /// Propagation delay of every link (default 1us).
    #[serde(default = "super::default_delay")]
    pub link_delay: Time,
}

impl TorusConfig {
    pub fn validate(&self) -> Result<()> {
        ensure((2..=3).contains(&self.dims.len()), "topology.dims", || format!("must list 2 or 3 sizes, got {}", self.dims.len()))?;
        for (i, &d) in self.dims.iter().enumerate() {
            ensure((2..=64).contains(&d), &format!("topology.dims[{i}]"), || format!("must be between 2 and 64, got {d}"))?;
        }
        let n: u64 = self.dims.iter().map(|&d| d as u64).product();
        ensure(n <= 65536, "topology.dims", || format!("at most 65536 nodes, got {n}"))
    }

    pub fn nodes(&self) -> usize {
        self.dims.iter().map(|&d| d as usize).product()
    }

    pub fn build(&self) -> Topology {
        let n = self.nodes();
        let (rate, delay) = (self.link_rate, self.link_delay);
        let mut t = Topology::default();
        let hosts: Vec<_> = (0..n).map(|_| t.add_host()).collect();
        let sws: Vec<_> = (0..n).map(|i| t.add_switch(format!("sw{i}"), 1, 1)).collect();
        for i in 0..n {
            t.link(hosts[i], sws[i], rate, delay);
        }
        for i in 0..n {
            let mut stride = 1usize;
            for &d in &self.dims {
                let d = d as usize;
                let coord = (i / stride) % d;
                let j = i - coord * stride + ((coord + 1) % d) * stride;
                // Size 2: the +1 and -1 neighbours coincide; link them once.
                if d > 2 || coord == 0 {
                    t.link(sws[i], sws[j], rate, delay);
                }
                stride *= d;
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(dims: &[u32]) -> TorusConfig {
        TorusConfig { dims: dims.to_vec(), link_rate: Rate(1_000_000_000), link_delay: Time::from_us(1) }
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
}
