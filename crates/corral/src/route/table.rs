//! Equal-cost shortest-path next hops from every node to every host, found by
//! breadth-first searches. Paths never transit a host, nor a link that is down (the table is
//! built again when a link fails or comes back). Also each node's uplinks (ports to a node
//! of a higher tier), which equal-length routing climbs first, and, when asked for, the
//! number of shortest paths behind every next hop (uniform path sampling, [`super::rps`]).
//!
//! A host with a single live link, to a switch (a rack's hosts on their top-of-rack switch),
//! is reached only through that switch: from any other node its shortest paths are the
//! switch's, one hop longer, through the same next hops. So the table keeps one column per
//! such switch, shared by the hosts under it, and one per other host; a lookup for the host
//! at its switch (the link down to it) or at itself (no next hop) is answered from the host's
//! entry. A k=16 fat-tree then needs 128 searches and columns instead of 1,024 (its hop
//! counts and next hops take 3.0 MB instead of 23.6 MB), with the same answers.

use crate::ids::{NodeId, PortId};
use crate::net::queue::Discipline;
use crate::net::{Network, NodeKind, Port};
use std::collections::VecDeque;

/// Destinations whose searches run together (16 distances of 4 bytes: a cache line).
const BLOCK: usize = 16;

/// How a destination host is looked up.
#[derive(Clone, Copy)]
struct Dest {
    /// Its column of the table: shortest paths to `target` (below).
    column: u32,
    /// The host's node, and the switch it hangs from with the port down to it (`u32::MAX`
    /// and an unused port when its column is its own).
    host: u32,
    switch: u32,
    down: PortId,
}

pub struct RouteTable {
    /// Columns: one per switch with single-link hosts under it, one per other host.
    columns: usize,
    /// Host -> its column and attachment.
    dests: Vec<Dest>,
    /// (node * columns + column) -> range in `ports`.
    offsets: Vec<u32>,
    ports: Vec<PortId>,
    /// (node * columns + column) -> hop count to the column's target node (the switch, or
    /// the host itself), u32::MAX if unreachable.
    dist: Vec<u32>,
    /// node -> range in `up_ports`: its ports toward a higher tier.
    up_offsets: Vec<u32>,
    up_ports: Vec<PortId>,
    /// Parallel to `ports`: shortest paths to the destination through that next hop (empty
    /// unless built with path counts).
    paths: Vec<f64>,
    /// Built with path counts.
    counted: bool,
}

impl RouteTable {
    /// The table of `net`; `path_counts` also counts the shortest paths behind every next
    /// hop (needed by `rps`, `vlb` and `wlb`).
    pub fn build(net: &Network, path_counts: bool) -> RouteTable {
        let n = net.nodes.len();
        let h = net.hosts.len();
        // Each node's live ports and their peers, and which nodes are switches, read once
        // into compact arrays (the network's nodes and ports are large structs).
        let is_switch: Vec<bool> = net.nodes.iter().map(|x| x.kind == NodeKind::Switch).collect();
        let mut adj_start = Vec::with_capacity(n + 1);
        let mut adj: Vec<(PortId, u32)> = Vec::new();
        for u in 0..n {
            adj_start.push(adj.len());
            adj.extend(net.live_ports(NodeId(u as u32)).map(|p| (p, net.ports[p.idx()].peer.0)));
        }
        adj_start.push(adj.len());
        let links_of = |u: usize| &adj[adj_start[u]..adj_start[u + 1]];
        // The switch a host hangs from, and the port down to it: the host's one live link
        // leads to a switch whose one live port toward the host is that link's other end.
        let hung_from = |host: NodeId| -> Option<(u32, PortId)> {
            let &[(p, s)] = links_of(host.idx()) else { return None };
            let down = net.ports[p.idx()].peer_port;
            let mut back = links_of(s as usize).iter().filter(|e| e.1 == host.0);
            let one_back = back.next().is_some_and(|e| e.0 == down) && back.next().is_none();
            (is_switch[s as usize] && one_back).then_some((s, down))
        };
        // Columns ([`Dest`]) and the node each one's searches start from.
        let mut targets: Vec<NodeId> = Vec::new();
        let mut column_of_switch = vec![u32::MAX; n];
        let mut dests = Vec::with_capacity(h);
        for &host in &net.hosts {
            dests.push(match hung_from(host) {
                Some((s, down)) => {
                    let si = s as usize;
                    if column_of_switch[si] == u32::MAX {
                        column_of_switch[si] = targets.len() as u32;
                        targets.push(NodeId(s));
                    }
                    Dest { column: column_of_switch[si], host: host.0, switch: s, down }
                }
                None => {
                    targets.push(host);
                    Dest {
                        column: targets.len() as u32 - 1,
                        host: host.0,
                        switch: u32::MAX,
                        down: PortId(u32::MAX),
                    }
                }
            });
        }
        let h = targets.len();
        // The searches of `BLOCK` columns keep their distances in a block of their own (a
        // node's in one place), which then goes into the table a node at a time: the table's
        // entries of one column lie `h` apart, and reading them during the search missed the
        // cache at every step.
        let mut dist = vec![u32::MAX; n * h];
        let mut block = vec![u32::MAX; BLOCK * n];
        let mut q = VecDeque::new();
        for d0 in (0..h).step_by(BLOCK) {
            let width = BLOCK.min(h - d0);
            for (j, mine) in block.chunks_exact_mut(n).take(width).enumerate() {
                let dst = targets[d0 + j];
                mine.fill(u32::MAX);
                mine[dst.idx()] = 0;
                q.push_back(dst.idx());
                while let Some(u) = q.pop_front() {
                    // Only the destination itself may be a host on a path.
                    if u != dst.idx() && !is_switch[u] {
                        continue;
                    }
                    let du = mine[u];
                    for &(_, v) in links_of(u) {
                        let v = v as usize;
                        if mine[v] == u32::MAX {
                            mine[v] = du + 1;
                            q.push_back(v);
                        }
                    }
                }
            }
            for (u, row) in dist.chunks_exact_mut(h).enumerate() {
                for (j, e) in row[d0..d0 + width].iter_mut().enumerate() {
                    *e = block[j * n + u];
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
                let dst = targets[d].0;
                for &(p, v) in links_of(u) {
                    let via_ok = is_switch[v as usize] || v == dst;
                    if via_ok && dist[v as usize * h + d] == du - 1 {
                        ports.push(p);
                    }
                }
            }
        }
        offsets.push(ports.len() as u32);
        let mut up_offsets = Vec::with_capacity(n + 1);
        let mut up_ports = Vec::new();
        for (u, node) in net.nodes.iter().enumerate() {
            up_offsets.push(up_ports.len() as u32);
            up_ports.extend(
                net.live_ports(NodeId(u as u32))
                    .filter(|p| net.nodes[net.ports[p.idx()].peer.idx()].level > node.level),
            );
        }
        up_offsets.push(up_ports.len() as u32);
        let mut rt = RouteTable {
            columns: h,
            dests,
            offsets,
            ports,
            dist,
            up_offsets,
            up_ports,
            paths: Vec::new(),
            counted: false,
        };
        if path_counts {
            rt.count_paths(net);
        }
        rt
    }

    /// Fills `paths`: per column, nodes in order of increasing distance, each node's
    /// count is the sum over its next hops of the counts behind them (1 at the column's target).
    fn count_paths(&mut self, net: &Network) {
        let (n, h) = (net.nodes.len(), self.columns);
        let mut behind = vec![0.0f64; self.ports.len()];
        let mut count = vec![0.0f64; n];
        let mut order: Vec<usize> = Vec::with_capacity(n);
        for d in 0..h {
            order.clear();
            order.extend((0..n).filter(|&u| self.dist[u * h + d] != u32::MAX));
            order.sort_by_key(|&u| self.dist[u * h + d]);
            for &u in &order {
                let (a, b) =
                    (self.offsets[u * h + d] as usize, self.offsets[u * h + d + 1] as usize);
                if self.dist[u * h + d] == 0 {
                    count[u] = 1.0;
                    continue;
                }
                let mut total = 0.0;
                for (slot, port) in behind[a..b].iter_mut().zip(&self.ports[a..b]) {
                    let v = net.ports[port.idx()].peer.idx();
                    *slot = count[v];
                    total += count[v];
                }
                count[u] = total;
            }
        }
        self.paths = behind;
        self.counted = true;
    }

    /// Whether the table counts shortest paths (built with `path_counts`).
    pub fn has_path_counts(&self) -> bool {
        self.counted
    }

    /// Shortest paths to host `dst` behind each of [`Self::candidates`]`(node, dst)`; empty
    /// if the table was built without path counts.
    #[inline]
    pub fn candidate_paths(&self, node: NodeId, dst: u32) -> &[f64] {
        let d = &self.dests[dst as usize];
        if self.paths.is_empty() || node.0 == d.host {
            return &[];
        }
        if node.0 == d.switch {
            return &[1.0];
        }
        let i = node.idx() * self.columns + d.column as usize;
        &self.paths[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Number of shortest paths from `node` to host `dst` (requires path counts).
    pub fn path_count(&self, node: NodeId, dst: u32) -> f64 {
        let d = self.candidate_paths(node, dst);
        if self.hops(node, dst) == Some(0) {
            1.0
        } else {
            d.iter().sum()
        }
    }

    /// Output ports at `node` leading to a node of a higher tier; empty at the top tier.
    #[inline]
    pub fn uplinks(&self, node: NodeId) -> &[PortId] {
        &self.up_ports
            [self.up_offsets[node.idx()] as usize..self.up_offsets[node.idx() + 1] as usize]
    }

    /// Hop count and unloaded one-way delay (for packets of `size` bytes) from `node` to host
    /// `dst` along the first candidate path; with `via_top`, the equal-length path: first
    /// uplinks up to a top-tier node, then the shortest path down from there.
    pub fn path(
        &self,
        net: &Network,
        mut node: NodeId,
        dst: u32,
        size: u64,
        via_top: bool,
    ) -> Option<(u32, crate::units::Time)> {
        let (mut hops, mut delay) = (0, crate::units::Time::ZERO);
        if via_top {
            for port in self.climb(net, node) {
                hops += 1;
                delay = delay + port.tx_time(size) + port.delay;
                node = port.peer;
            }
        }
        Some((hops + self.hops(node, dst)?, delay + self.base_delay(net, node, dst, size)))
    }

    /// The hop count of [`RouteTable::path`], without walking down the path for its delay.
    pub fn path_hops(
        &self,
        net: &Network,
        mut node: NodeId,
        dst: u32,
        via_top: bool,
    ) -> Option<u32> {
        let mut up = 0;
        if via_top {
            for port in self.climb(net, node) {
                up += 1;
                node = port.peer;
            }
        }
        Some(up + self.hops(node, dst)?)
    }

    /// The ports equal-length routing climbs from `node` to the top tier: the first uplink
    /// at each tier.
    fn climb<'a>(
        &'a self,
        net: &'a Network,
        mut node: NodeId,
    ) -> impl Iterator<Item = &'a Port> + 'a {
        std::iter::from_fn(move || {
            let &p = self.uplinks(node).first()?;
            let port = &net.ports[p.idx()];
            node = port.peer;
            Some(port)
        })
    }

    /// Equal-cost output ports at `node` toward host `dst`.
    #[inline]
    pub fn candidates(&self, node: NodeId, dst: u32) -> &[PortId] {
        let d = &self.dests[dst as usize];
        if node.0 == d.switch {
            return std::slice::from_ref(&d.down);
        }
        if node.0 == d.host {
            return &[];
        }
        let i = node.idx() * self.columns + d.column as usize;
        &self.ports[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Unloaded one-way delay from `node` to host `dst` for a packet of `size` bytes along
    /// the first equal-cost path: serialization plus propagation at every hop.
    pub fn base_delay(
        &self,
        net: &Network,
        node: NodeId,
        dst: u32,
        size: u64,
    ) -> crate::units::Time {
        self.path_ports(net, node, dst, false)
            .fold(crate::units::Time::ZERO, |t, port| t + port.tx_time(size) + port.delay)
    }

    /// The time a packet that enters [`RouteTable::path`]'s path from `node` to host `dst`
    /// at `now` waits behind what is queued at each of its ports, and the packet on the wire,
    /// as they stand at `now` (a connection handshake's queueing, `transport.handshake_rtt`).
    pub fn queueing_delay(
        &self,
        net: &Network,
        node: NodeId,
        dst: u32,
        via_top: bool,
        now: crate::units::Time,
    ) -> crate::units::Time {
        self.path_ports(net, node, dst, via_top).fold(crate::units::Time::ZERO, |t, port| {
            t + port.busy_until.saturating_sub(now) + port.tx_time(port.queue.bytes())
        })
    }

    /// The ports of [`RouteTable::path`]'s path from `node` to host `dst`, in order.
    fn path_ports<'a>(
        &'a self,
        net: &'a Network,
        mut node: NodeId,
        dst: u32,
        via_top: bool,
    ) -> impl Iterator<Item = &'a Port> + 'a {
        let mut climbing = via_top;
        std::iter::from_fn(move || {
            let up = if climbing { self.uplinks(node).first() } else { None };
            climbing = up.is_some();
            let &p = up.or_else(|| self.candidates(node, dst).first())?;
            let port = &net.ports[p.idx()];
            node = port.peer;
            Some(port)
        })
    }

    /// Hop count (links) from `node` to host `dst`, if reachable.
    pub fn hops(&self, node: NodeId, dst: u32) -> Option<u32> {
        let d = &self.dests[dst as usize];
        if node.0 == d.host {
            return Some(0);
        }
        let hops = self.dist[node.idx() * self.columns + d.column as usize];
        // Past the switch, the link down to the host.
        (hops != u32::MAX).then(|| hops + (d.switch != u32::MAX) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::QueueDisc;
    use crate::net::topo::fat_tree::FatTreeConfig;
    use crate::net::topo::TopologyKind as _;
    use crate::units::{BufferSize, Rate, Time};

    fn k4() -> Network {
        let topo =
            FatTreeConfig { k: 4, link_rate: Rate(1_000_000_000), link_delay: Time::from_us(1) }
                .build();
        Network::build(&topo, |_| QueueDisc::taildrop(BufferSize::Packets(10)))
    }

    #[test]
    fn fat_tree_hop_counts_and_multipath() {
        let net = k4();
        let rt = RouteTable::build(&net, false);
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
        let rt = RouteTable::build(&net, false);
        let node = |s: &str| net.node_by_name(s).unwrap();
        let ports = |s: &str, r: std::ops::Range<usize>| {
            r.map(|i| net.port(node(s), i).unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(rt.uplinks(net.hosts[5]), &[net.port(net.hosts[5], 0).unwrap()]);
        assert_eq!(rt.uplinks(node("tor3")), ports("tor3", 2..4).as_slice());
        assert_eq!(rt.uplinks(node("agg5")), ports("agg5", 2..4).as_slice());
        assert!(rt.uplinks(node("core2")).is_empty());
        let h = |i: usize| net.hosts[i];
        let hop = Time::from_ns(1000 + 12_320); // 1 us propagation + 1540 B at 1 Gbps
        for src in [1, 2, 4, 15] {
            let (hops, delay) = rt.path(&net, h(src), 0, 1540, true).unwrap();
            assert_eq!(rt.path_hops(&net, h(src), 0, true), Some(hops));
            assert_eq!((hops, delay), (6, Time(hop.0 * 6)), "h{src} -> h0");
        }
        assert_eq!(rt.path(&net, h(1), 0, 1540, false), Some((2, Time(hop.0 * 2))));
        assert_eq!(rt.path_hops(&net, h(1), 0, false), Some(2));
    }

    #[test]
    fn path_counts_on_a_torus() {
        use crate::net::topo::torus::TorusConfig;
        let topo = TorusConfig {
            dims: vec![5, 5],
            link_rate: Rate(1),
            link_delay: Time::ZERO,
            ..TorusConfig::default()
        }
        .build();
        let net = Network::build(&topo, |_| QueueDisc::taildrop(BufferSize::Packets(10)));
        let rt = RouteTable::build(&net, true);
        let node = |s: &str| net.node_by_name(s).unwrap();
        // (0,0) -> (2,1) = h7: 3 minimal torus paths (xxy, xyx, yxx); from h0 the same 3.
        assert_eq!(rt.path_count(node("sw0"), 7), 3.0);
        assert_eq!(rt.path_count(net.hosts[0], 7), 3.0);
        let mut behind = rt.candidate_paths(node("sw0"), 7).to_vec();
        behind.sort_by(f64::total_cmp);
        assert_eq!(behind, vec![1.0, 2.0]);
        // (0,0) -> (2,2): C(4,2) = 6 paths.
        assert_eq!(rt.path_count(node("sw0"), 12), 6.0);
        assert!(RouteTable::build(&net, false).candidate_paths(node("sw0"), 7).is_empty());
    }

    /// Every node's hop count, next hops and paths behind them toward every host, from a
    /// plain breadth-first search per destination, on a fat-tree with 54 hosts (blocks of
    /// 16 and a partial one) and three links down (one a host's: that host has a column of
    /// its own), and on a 5x5 torus.
    #[test]
    fn the_blocked_searches_give_what_one_search_per_destination_gives() {
        use crate::net::topo::torus::TorusConfig;
        let fat =
            FatTreeConfig { k: 6, link_rate: Rate(1_000_000_000), link_delay: Time::from_us(1) }
                .build();
        let mut fat = Network::build(&fat, |_| QueueDisc::taildrop(BufferSize::Packets(10)));
        // An uplink of a rack switch, one of an aggregation switch, and a host's link.
        for (node, port) in [("tor0", 3), ("agg4", 4), ("tor5", 1)] {
            let p = fat.port(fat.node_by_name(node).unwrap(), port).unwrap();
            let peer = fat.ports[p.idx()].peer_port;
            (fat.ports[p.idx()].down, fat.ports[peer.idx()].down) = (true, true);
        }
        let torus = TorusConfig {
            dims: vec![5, 5],
            link_rate: Rate(1),
            link_delay: Time::ZERO,
            ..TorusConfig::default()
        }
        .build();
        let torus = Network::build(&torus, |_| QueueDisc::taildrop(BufferSize::Packets(10)));
        for net in [fat, torus] {
            let rt = RouteTable::build(&net, true);
            for (d, &dst) in net.hosts.iter().enumerate() {
                let mut dist = vec![u32::MAX; net.nodes.len()];
                dist[dst.idx()] = 0;
                let mut q = VecDeque::from([dst]);
                while let Some(u) = q.pop_front() {
                    if u != dst && net.nodes[u.idx()].kind == NodeKind::Host {
                        continue;
                    }
                    for p in net.live_ports(u) {
                        let v = net.ports[p.idx()].peer;
                        if dist[v.idx()] == u32::MAX {
                            dist[v.idx()] = dist[u.idx()] + 1;
                            q.push_back(v);
                        }
                    }
                }
                // A path may pass switches and end at the destination.
                let via = |v: NodeId| net.nodes[v.idx()].kind == NodeKind::Switch || v == dst;
                // Shortest paths from each node, nearest first.
                let mut order: Vec<usize> =
                    (0..net.nodes.len()).filter(|&u| dist[u] != u32::MAX).collect();
                order.sort_by_key(|&u| dist[u]);
                let mut count = vec![0.0; net.nodes.len()];
                for u in order {
                    let next = |p: &PortId| net.ports[p.idx()].peer;
                    count[u] = if dist[u] == 0 {
                        1.0
                    } else {
                        net.live_ports(NodeId(u as u32))
                            .map(|p| next(&p))
                            .filter(|&v| via(v) && dist[v.idx()] == dist[u] - 1)
                            .map(|v| count[v.idx()])
                            .sum()
                    };
                }
                for u in 0..net.nodes.len() {
                    let node = NodeId(u as u32);
                    assert_eq!(
                        rt.hops(node, d as u32),
                        (dist[u] != u32::MAX).then_some(dist[u]),
                        "node {u}, host {d}"
                    );
                    let behind: Vec<f64> = rt
                        .candidates(node, d as u32)
                        .iter()
                        .map(|p| count[net.ports[p.idx()].peer.idx()])
                        .collect();
                    assert_eq!(
                        rt.candidate_paths(node, d as u32),
                        &behind[..],
                        "node {u}, host {d}"
                    );
                    let next: Vec<PortId> = if dist[u] == 0 || dist[u] == u32::MAX {
                        Vec::new()
                    } else {
                        net.live_ports(node)
                            .filter(|p| {
                                via(net.ports[p.idx()].peer)
                                    && dist[net.ports[p.idx()].peer.idx()] == dist[u] - 1
                            })
                            .collect()
                    };
                    assert_eq!(rt.candidates(node, d as u32), &next[..], "node {u}, host {d}");
                }
            }
        }
    }

    #[test]
    fn a_down_link_is_left_out_of_every_path() {
        let mut net = k4();
        let tor0 = net.node_by_name("tor0").unwrap();
        // tor0's first uplink (port 2) and its peer fail: from h0's rack, one uplink is left.
        let up = net.port(tor0, 2).unwrap();
        let peer = net.ports[up.idx()].peer_port;
        net.ports[up.idx()].down = true;
        net.ports[peer.idx()].down = true;
        let rt = RouteTable::build(&net, true);
        assert_eq!(rt.candidates(tor0, 15), &[net.port(tor0, 3).unwrap()]);
        assert_eq!(rt.uplinks(tor0), &[net.port(tor0, 3).unwrap()]);
        assert_eq!(rt.hops(net.hosts[15], 0), Some(6), "still reachable the long way");
        assert!(rt.has_path_counts());
        // h0's own link down: nothing reaches it, and it reaches nothing.
        let nic = net.host_port(0);
        let sw = net.ports[nic.idx()].peer_port;
        net.ports[nic.idx()].down = true;
        net.ports[sw.idx()].down = true;
        let rt = RouteTable::build(&net, false);
        assert_eq!(rt.hops(net.hosts[5], 0), None);
        assert!(rt.candidates(tor0, 0).is_empty() && rt.candidates(net.hosts[0], 5).is_empty());
        assert!(!rt.has_path_counts());
    }
}
