//! Broadcast trees (R2C2, SIGCOMM 2015, section 3.2): per source, shortest-path spanning
//! trees over the switches, found by breadth-first search, so that a broadcast reaches every
//! node in the fewest hops. Several trees per source spread the broadcast load: tree `t`
//! visits each node's links starting from the `t`-th (rotated order), which gives different
//! trees of the same depth. A node's forwarding entry for (source, tree) is the list of child
//! ports, R2C2's broadcast FIB.

use crate::ids::{NodeId, PortId};
use crate::net::{Network, NodeKind};
use std::collections::{HashMap, VecDeque};

/// Peak bytes one tree costs per node of the network (its child list's header and heap
/// block, its depth), for run estimates ([`crate::schemes::Scheme::estimate`]).
pub const TREE_BYTES_PER_NODE: u64 = 40;

/// One spanning tree: each node's child ports (empty for leaves and nodes off the tree).
#[derive(Clone, Debug)]
pub struct Tree {
    /// Per node, its child ports (read through [`Tree::children`]: `links` counts them).
    children: Vec<Vec<PortId>>,
    /// Hops from the root, `u32::MAX` for nodes the tree does not reach (hosts).
    pub depth: Vec<u32>,
    /// Links the tree uses (counted once, at build: every broadcast's byte count reads it).
    links: usize,
}

impl Tree {
    /// The child ports of `node`.
    pub fn children(&self, node: NodeId) -> &[PortId] {
        &self.children[node.idx()]
    }

    /// Links the tree uses: one per reached node besides the root.
    pub fn edges(&self) -> usize {
        self.links
    }

    /// Hops from the root to its farthest node.
    pub fn height(&self) -> u32 {
        self.depth.iter().copied().filter(|&d| d != u32::MAX).max().unwrap_or(0)
    }
}

/// The trees built so far, by (source switch, tree index); built on first use, over the
/// links that are up (forgotten when a link goes down or comes back).
#[derive(Default)]
pub struct BroadcastTrees {
    trees: HashMap<(NodeId, u32), Tree>,
}

impl BroadcastTrees {
    /// The tree `t` rooted at switch `src` (built now if needed).
    pub fn tree(&mut self, net: &Network, src: NodeId, t: u32) -> &Tree {
        self.trees.entry((src, t)).or_insert_with(|| build(net, src, t))
    }
}

/// A breadth-first spanning tree of the switches from `src`, visiting each node's ports from
/// index `t mod degree` on.
pub fn build(net: &Network, src: NodeId, t: u32) -> Tree {
    let n = net.nodes.len();
    let mut children = vec![Vec::new(); n];
    let mut depth = vec![u32::MAX; n];
    depth[src.idx()] = 0;
    let mut q = VecDeque::from([src]);
    while let Some(u) = q.pop_front() {
        let ports: Vec<PortId> = net.live_ports(u).collect();
        let k = ports.len();
        for i in 0..k {
            let p = ports[(i + t as usize) % k];
            let v = net.ports[p.idx()].peer;
            if net.nodes[v.idx()].kind == NodeKind::Switch && depth[v.idx()] == u32::MAX {
                depth[v.idx()] = depth[u.idx()] + 1;
                children[u.idx()].push(p);
                q.push_back(v);
            }
        }
    }
    let links = children.iter().map(Vec::len).sum();
    Tree { children, depth, links }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::QueueDisc;
    use crate::net::topo::torus::TorusConfig;
    use crate::net::topo::TopologyKind as _;
    use crate::units::BufferSize;

    #[test]
    fn every_8x8x8_tree_spans_511_links_within_12_hops() {
        let net = Network::build(&TorusConfig::default().build(), |_| {
            QueueDisc::taildrop(BufferSize::Packets(1))
        });
        let src = net.node_by_name("sw0").unwrap();
        let mut trees = BroadcastTrees::default();
        let mut distinct = std::collections::BTreeSet::new();
        for t in 0..6 {
            let tree = trees.tree(&net, src, t).clone();
            assert_eq!(tree.edges(), 511);
            assert_eq!(tree.height(), 12, "BFS trees are shortest-path trees: the torus diameter");
            let reached = net
                .nodes
                .iter()
                .enumerate()
                .filter(|(i, n)| n.kind == NodeKind::Switch && tree.depth[*i] != u32::MAX)
                .count();
            assert_eq!(reached, 512);
            distinct.insert(format!("{:?}", tree.children));
        }
        assert!(distinct.len() > 1, "rotated port orders give different trees");
    }

    #[test]
    fn trees_go_around_a_down_link() {
        let mut net = Network::build(
            &TorusConfig { dims: vec![4, 4], ..TorusConfig::default() }.build(),
            |_| QueueDisc::taildrop(BufferSize::Packets(1)),
        );
        let (sw0, sw1) = (net.node_by_name("sw0").unwrap(), net.node_by_name("sw1").unwrap());
        let p =
            *net.nodes[sw0.idx()].ports.iter().find(|p| net.ports[p.idx()].peer == sw1).unwrap();
        let q = net.ports[p.idx()].peer_port;
        net.ports[p.idx()].down = true;
        net.ports[q.idx()].down = true;
        for t in 0..4 {
            let tree = build(&net, sw0, t);
            assert_eq!(tree.edges(), 15, "every other switch is still reached");
            assert!(tree.children.iter().flatten().all(|c| *c != p && *c != q));
            assert_eq!(tree.depth[sw1.idx()], 3, "sw1 is now three hops away");
        }
    }
}
