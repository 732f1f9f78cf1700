//! Equal-cost shortest-path next hops from every node to every host, found by one
//! breadth-first search per destination host. Paths never transit a host. Also each node's
//! uplinks (ports to a node of a higher tier), which equal-length routing climbs first.

use crate::ids::{NodeId, PortId};
use crate::net::{Network, NodeKind};
use std::collections::VecDeque;

pub struct RouteTable {
    hosts: usize,
    /// (node * hosts + dst) -> range in `ports`.
    offsets: Vec<u32>,
    ports: Vec<PortId>,
    /// (node * hosts + dst) -> hop count, u32::MAX if unreachable.
    dist: Vec<u32>,
    /// node -> range in `up_ports`: its ports toward a higher tier.
    up_offsets: Vec<u32>,
    up_ports: Vec<PortId>,
}

impl RouteTable {
    pub fn build(net: &Network) -> RouteTable {
        let n = net.nodes.len();
        let h = net.hosts.len();
        let mut dist = vec![u32::MAX; n * h];
        for (d, &dst) in net.hosts.iter().enumerate() {
            let mut q = VecDeque::from([dst]);
            dist[dst.idx() * h + d] = 0;
            while let Some(u) = q.pop_front() {
                // Only the destination itself may be a host on a path.
                if u != dst && net.nodes[u.idx()].kind == NodeKind::Host {
                    continue;
                }
                let du = dist[u.idx() * h + d];
                for &p in &net.nodes[u.idx()].ports {
                    let v = net.ports[p.idx()].peer;
                    if dist[v.idx() * h + d] == u32::MAX {
                        dist[v.idx() * h + d] = du + 1;
                        q.push_back(v);
                    }
                }
            }
        }
        let mut offsets = Vec::with_capacity(n * h + 1);
        let mut ports = Vec::new();
        for u in 0..n {
            for d in 0..h {
                offsets.push(ports.len() as u32);
                let du = dist[u * h + d];
                if du == 0 || du == u32::MAX {
                    continue;
                }
                for &p in &net.nodes[u].ports {
                    let v = net.ports[p.idx()].peer;
                    let via_ok = net.nodes[v.idx()].kind == NodeKind::Switch || v == net.hosts[d];
                    if via_ok && dist[v.idx() * h + d] == du - 1 {
                        ports.push(p);
                    }
                }
            }
        }
        offsets.push(ports.len() as u32);
        let mut up_offsets = Vec::with_capacity(n + 1);
        let mut up_ports = Vec::new();
        for node in &net.nodes {
            up_offsets.push(up_ports.len() as u32);
            up_ports.extend(node.ports.iter().filter(|p| net.nodes[net.ports[p.idx()].peer.idx()].level > node.level));
        }
        up_offsets.push(up_ports.len() as u32);
        RouteTable { hosts: h, offsets, ports, dist, up_offsets, up_ports }
    }

    /// Output ports at `node` leading to a node of a higher tier; empty at the top tier.
    #[inline]
    pub fn uplinks(&self, node: NodeId) -> &[PortId] {
        &self.up_ports[self.up_offsets[node.idx()] as usize..self.up_offsets[node.idx() + 1] as usize]
    }

    /// Hop count and unloaded one-way delay (for packets of `size` bytes) from `node` to host
    /// `dst` along the first candidate path; with `via_top`, the equal-length path: first
    /// uplinks up to a top-tier node, then the shortest path down from there.
    pub fn path(&self, net: &Network, mut node: NodeId, dst: u32, size: u64, via_top: bool) -> Option<(u32, crate::units::Time)> {
        let (mut hops, mut delay) = (0, crate::units::Time::ZERO);
        if via_top {
            while let Some(&p) = self.uplinks(node).first() {
                let port = &net.ports[p.idx()];
                hops += 1;
                delay = delay + port.rate.tx_time(size) + port.delay;
                node = port.peer;
            }
        }
        Some((hops + self.hops(node, dst)?, delay + self.base_delay(net, node, dst, size)))
    }

    /// Equal-cost output ports at `node` toward host `dst`.
    #[inline]
    pub fn candidates(&self, node: NodeId, dst: u32) -> &[PortId] {
        let i = node.idx() * self.hosts + dst as usize;
        &self.ports[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Unloaded one-way delay from `node` to host `dst` for a packet of `size` bytes along
    /// the first equal-cost path: serialization plus propagation at every hop.
    pub fn base_delay(&self, net: &Network, mut node: NodeId, dst: u32, size: u64) -> crate::units::Time {
        let mut total = crate::units::Time::ZERO;
        while let Some(&p) = self.candidates(node, dst).first() {
            let port = &net.ports[p.idx()];
            total = total + port.rate.tx_time(size) + port.delay;
            node = port.peer;
        }
        total
    }

    /// Hop count (links) from `node` to host `dst`, if reachable.
    pub fn hops(&self, node: NodeId, dst: u32) -> Option<u32> {
        let d = self.dist[node.idx() * self.hosts + dst as usize];
        (d != u32::MAX).then_some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::QueueDisc;
    use crate::net::topo::fat_tree::FatTreeConfig;
    use crate::units::{BufferSize, Rate, Time};

    fn k4() -> Network {
        let topo = FatTreeConfig { k: 4, link_rate: Rate(1_000_000_000), link_delay: Time::from_us(1) }.build();
        Network::build(&topo, |_| QueueDisc::taildrop(BufferSize::Packets(10)))
    }

    #[test]
    fn fat_tree_hop_counts_and_multipath() {
        let net = k4();
        let rt = RouteTable::build(&net);
        let h = |i: usize| net.hosts[i];
        assert_eq!(rt.hops(h(1), 0), Some(2)); // same ToR
        assert_eq!(rt.hops(h(2), 0), Some(4)); // same pod
        assert_eq!(rt.hops(h(4), 0), Some(6)); // other pod
        let tor1 = net.node_by_name("tor2").unwrap(); // pod 1
        assert_eq!(rt.candidates(tor1, 0).len(), 2); // two uplinks
        let tor0 = net.node_by_name("tor0").unwrap();
        assert_eq!(rt.candidates(tor0, 0), &[net.port(tor0, 0).unwrap()]);
    }

    #[test]
    fn uplinks_follow_tiers_and_equal_length_paths_climb_to_the_core() {
        let net = k4();
        let rt = RouteTable::build(&net);
        let node = |s: &str| net.node_by_name(s).unwrap();
        let ports = |s: &str, r: std::ops::Range<usize>| r.map(|i| net.port(node(s), i).unwrap()).collect::<Vec<_>>();
        assert_eq!(rt.uplinks(net.hosts[5]), &[net.port(net.hosts[5], 0).unwrap()]);
        assert_eq!(rt.uplinks(node("tor3")), ports("tor3", 2..4).as_slice());
        assert_eq!(rt.uplinks(node("agg5")), ports("agg5", 2..4).as_slice());
        assert!(rt.uplinks(node("core2")).is_empty());
        let h = |i: usize| net.hosts[i];
        let hop = Time::from_ns(1000 + 12_320); // 1 us propagation + 1540 B at 1 Gbps
        for src in [1, 2, 4, 15] {
            let (hops, delay) = rt.path(&net, h(src), 0, 1540, true).unwrap();
            assert_eq!((hops, delay), (6, Time(hop.0 * 6)), "h{src} -> h0");
        }
        assert_eq!(rt.path(&net, h(1), 0, 1540, false), Some((2, Time(hop.0 * 2))));
    }
}
