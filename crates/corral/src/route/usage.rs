//! Per-link usage fractions of a flow under a routing (R2C2, SIGCOMM 2015, section 3.3.1:
//! "we use information about a flow's routing protocol to determine the relative rate of the
//! flow across the paths it is using and, hence, along each network link"): the share of the
//! flow's packets that cross each link, for the same [`Routing`] names and rules packets use.
//! Links are directed: link `i` is global port `i` of the built [`Network`] (the port that
//! transmits on it), so host access links are included: a flow always uses its source's
//! uplink and its destination's downlink with fraction 1.
//!
//! * `static`, `ecmp`, `dest_tag`: the one path the packet router takes (the same hash, the
//!   same destination bits, the same dimension order), fraction 1 on each of its links.
//! * `spray`: a uniform choice among equal-cost next hops at every hop; `flowcell` too (over
//!   many cells, each choice point rotates its flow over all its next hops).
//! * `rps`: uniform over all minimal paths; the fraction on a link is the share of minimal
//!   paths through it, counted by dynamic programming on the shortest-path DAG (paths through
//!   u->v = paths s->u times paths v->d), not enumerated. It differs from `spray` where the
//!   DAG is unbalanced (tori), not on fat-trees.
//! * `vlb`: `rps` to a uniformly random intermediate (every host's switch), then `rps` on to
//!   the destination; the usage is the average over intermediates.
//! * `wlb { direct }`: a `direct` share as `rps`, the rest as `vlb` (R2C2's 1:2 split gives
//!   direct = 1/3).
//! * `equal_length`: up through uplinks to the top tier, then down, each step uniform
//!   (`core = "random"`) or by destination bits.

use super::{Hop, RouteTable, Router, Routing};
use crate::ids::{FlowId, NodeId, PortId};
use crate::net::Network;
use std::collections::HashMap;

/// Computes usage vectors; caches VLB leg sums per source and destination.
pub struct UsageBuilder<'a> {
    net: &'a Network,
    routes: &'a RouteTable,
    router: Router,
    ns: Vec<f64>,
    nd: Vec<f64>,
    seen: Vec<bool>,
    order: Vec<NodeId>,
    dense: Vec<f64>,
    /// The packet router's path of a single-path flow (kept between calls).
    path: Vec<PortId>,
    vlb_out: HashMap<u32, Vec<(u32, f64)>>,
    vlb_in: HashMap<u32, Vec<(u32, f64)>>,
}

impl<'a> UsageBuilder<'a> {
    /// `seed` is the scenario seed (for the ECMP hash, as in packet mode).
    pub fn new(net: &'a Network, routes: &'a RouteTable, seed: u64) -> UsageBuilder<'a> {
        let n = net.nodes.len();
        UsageBuilder {
            net,
            routes,
            router: Router::new(seed, n, net.hosts.len()),
            ns: vec![0.0; n],
            nd: vec![0.0; n],
            seen: vec![false; n],
            order: Vec::new(),
            dense: vec![0.0; net.ports.len()],
            path: Vec::new(),
            vlb_out: HashMap::new(),
            vlb_in: HashMap::new(),
        }
    }

    /// Number of directed links (ports).
    pub fn links(&self) -> usize {
        self.net.ports.len()
    }

    /// Usage of flow `flow` (its id, for the ECMP hash) from host `src` to host `dst` under
    /// `routing`, sorted by link. Empty if `src == dst`.
    pub fn usage(&mut self, routing: Routing, flow: u32, src: u32, dst: u32) -> Vec<(u32, f64)> {
        if src == dst {
            return Vec::new();
        }
        let s = self.net.hosts[src as usize];
        match routing {
            Routing::Static | Routing::Ecmp | Routing::DestTag => {
                let hop = Hop::toward(FlowId(flow), dst, routing.leg());
                if !self.router.path(self.routes, self.net, s, hop, &mut self.path) {
                    return Vec::new();
                }
                let mut out: Vec<(u32, f64)> = self.path.iter().map(|p| (p.0, 1.0)).collect();
                out.sort_unstable_by_key(|e| e.0);
                out
            }
            // Flowcells: over many cells, each choice point's digit is uniform over its next
            // hops, as per-hop spraying.
            Routing::Spray | Routing::Flowcell { .. } => self.spray(s, dst, true),
            Routing::Rps => self.spray(s, dst, false),
            Routing::Vlb => self.vlb(src, dst),
            Routing::Wlb { direct } => {
                let mut d = self.spray(s, dst, false);
                let v = self.vlb(src, dst);
                for e in &mut d {
                    e.1 *= direct;
                }
                merge(d, v.into_iter().map(|(l, a)| (l, a * (1.0 - direct))).collect())
            }
            Routing::EqualLength { core } => self.equal_length(s, dst, core),
        }
    }

    /// Equal-length routing: mass climbs uplinks level by level (split evenly, or by
    /// destination bits), turns where a node has no uplink, then descends splitting evenly
    /// per hop (or by destination bits).
    fn equal_length(
        &mut self,
        s: NodeId,
        dst: u32,
        core: super::equal_length::CoreChoice,
    ) -> Vec<(u32, f64)> {
        let bits = core == super::equal_length::CoreChoice::DestBits;
        let mut out = Vec::new();
        let mut level: Vec<(NodeId, f64)> = vec![(s, 1.0)];
        let mut top: Vec<(NodeId, f64)> = Vec::new();
        let mut climbing = true;
        while !level.is_empty() {
            let mut next: Vec<(NodeId, f64)> = Vec::new();
            for (node, mass) in level {
                let ways = if climbing {
                    self.routes.uplinks(node)
                } else {
                    self.routes.candidates(node, dst)
                };
                if ways.is_empty() {
                    if climbing {
                        top.push((node, mass));
                    }
                    continue;
                }
                let chosen: Vec<PortId> = if bits {
                    vec![
                        ways[super::static_bits::StaticBits.pick(
                            self.net.nodes[node.idx()].static_div,
                            ways.len(),
                            dst,
                        )],
                    ]
                } else {
                    ways.to_vec()
                };
                let share = mass / chosen.len() as f64;
                for p in chosen {
                    out.push((p.0, share));
                    add(&mut next, self.net.ports[p.idx()].peer, share);
                }
            }
            level = next;
            if level.is_empty() && climbing {
                climbing = false;
                level = std::mem::take(&mut top);
            }
        }
        self.densify(out)
    }

    /// Nodes of the shortest-path DAG from `s` to host `dst`, farthest from `dst` first.
    fn dag(&mut self, s: NodeId, dst: u32) {
        self.order.clear();
        self.order.push(s);
        self.seen[s.idx()] = true;
        let mut i = 0;
        while i < self.order.len() {
            let u = self.order[i];
            for &p in self.routes.candidates(u, dst) {
                let v = self.net.ports[p.idx()].peer;
                if !self.seen[v.idx()] {
                    self.seen[v.idx()] = true;
                    self.order.push(v);
                }
            }
            i += 1;
        }
        // BFS from s along candidate edges visits nodes in non-increasing distance to dst.
        for &u in &self.order {
            self.seen[u.idx()] = false;
        }
    }

    fn spray(&mut self, s: NodeId, dst: u32, per_hop: bool) -> Vec<(u32, f64)> {
        self.dag(s, dst);
        let order = std::mem::take(&mut self.order);
        let mut out = Vec::new();
        if per_hop {
            for &u in &order {
                self.ns[u.idx()] = 0.0;
            }
            self.ns[s.idx()] = 1.0;
            for &u in &order {
                let c = self.routes.candidates(u, dst);
                if c.is_empty() {
                    continue;
                }
                let share = self.ns[u.idx()] / c.len() as f64;
                for &p in c {
                    out.push((p.0, share));
                    self.ns[self.net.ports[p.idx()].peer.idx()] += share;
                }
            }
        } else {
            // Paths to dst, nearest first; paths from s, farthest first.
            for &u in order.iter().rev() {
                let c = self.routes.candidates(u, dst);
                self.nd[u.idx()] = if c.is_empty() {
                    1.0
                } else {
                    c.iter().map(|p| self.nd[self.net.ports[p.idx()].peer.idx()]).sum()
                };
                self.ns[u.idx()] = 0.0;
            }
            self.ns[s.idx()] = 1.0;
            let total = self.nd[s.idx()];
            for &u in &order {
                let nsu = self.ns[u.idx()];
                for &p in self.routes.candidates(u, dst) {
                    let v = self.net.ports[p.idx()].peer.idx();
                    out.push((p.0, nsu * self.nd[v] / total));
                    self.ns[v] += nsu;
                }
            }
        }
        self.order = order;
        out.sort_unstable_by_key(|e| e.0);
        out
    }

    /// Sum over intermediates m of the spray usage from host `src` to m's switch.
    fn vlb_out(&mut self, src: u32) -> Vec<(u32, f64)> {
        if let Some(v) = self.vlb_out.get(&src) {
            return v.clone();
        }
        let s = self.net.hosts[src as usize];
        let mut acc = Vec::new();
        for m in 0..self.net.hosts.len() as u32 {
            let down = self.net.ports[self.net.host_port(m).idx()].peer_port.0;
            if m == src {
                acc.push((self.net.host_port(src).0, 1.0));
                continue;
            }
            // Paths to host m minus its downlink are the paths to m's switch.
            acc.extend(self.spray(s, m, false).into_iter().filter(|e| e.0 != down));
        }
        let v = self.densify(acc);
        self.vlb_out.insert(src, v.clone());
        v
    }

    /// Sum over intermediates m of the spray usage from m's switch to host `dst`.
    fn vlb_in(&mut self, dst: u32) -> Vec<(u32, f64)> {
        if let Some(v) = self.vlb_in.get(&dst) {
            return v.clone();
        }
        let mut acc = Vec::new();
        for m in 0..self.net.hosts.len() as u32 {
            let up = self.net.host_port(m).0;
            if m == dst {
                acc.push((self.net.ports[up as usize].peer_port.0, 1.0));
                continue;
            }
            let hm = self.net.hosts[m as usize];
            acc.extend(self.spray(hm, dst, false).into_iter().filter(|e| e.0 != up));
        }
        let v = self.densify(acc);
        self.vlb_in.insert(dst, v.clone());
        v
    }

    fn vlb(&mut self, src: u32, dst: u32) -> Vec<(u32, f64)> {
        let m = self.net.hosts.len() as f64;
        let a = self.vlb_out(src);
        let b = self.vlb_in(dst);
        merge(a, b).into_iter().map(|(l, x)| (l, x / m)).collect()
    }

    fn densify(&mut self, acc: Vec<(u32, f64)>) -> Vec<(u32, f64)> {
        let mut keys = Vec::new();
        for (l, a) in acc {
            if self.dense[l as usize] == 0.0 {
                keys.push(l);
            }
            self.dense[l as usize] += a;
        }
        keys.sort_unstable();
        keys.into_iter().map(|l| (l, std::mem::replace(&mut self.dense[l as usize], 0.0))).collect()
    }
}

/// Adds `mass` at `node` to a short list of (node, mass).
fn add(level: &mut Vec<(NodeId, f64)>, node: NodeId, mass: f64) {
    match level.iter_mut().find(|(n, _)| *n == node) {
        Some(e) => e.1 += mass,
        None => level.push((node, mass)),
    }
}

/// Sum of two link-sorted sparse vectors.
fn merge(a: Vec<(u32, f64)>, b: Vec<(u32, f64)>) -> Vec<(u32, f64)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if j == b.len() || (i < a.len() && a[i].0 < b[j].0) {
            out.push(a[i]);
            i += 1;
        } else if i == a.len() || b[j].0 < a[i].0 {
            out.push(b[j]);
            j += 1;
        } else {
            out.push((a[i].0, a[i].1 + b[j].1));
            i += 1;
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::QueueDisc;
    use crate::net::topo::TopologyKind as _;
    use crate::net::topo::{fat_tree::FatTreeConfig, torus::TorusConfig};
    use crate::units::{BufferSize, Rate, Time};

    fn build(t: crate::net::Topology) -> Network {
        Network::build(&t, |_| QueueDisc::taildrop(BufferSize::Packets(10)))
    }

    fn net_out(net: &Network, u: &[(u32, f64)], node: NodeId) -> f64 {
        u.iter().filter(|e| net.ports[e.0 as usize].node == node).map(|e| e.1).sum()
    }

    #[test]
    fn spray_on_a_2d_torus_counts_paths() {
        // 5x5 torus, h0 at (0,0) to h6 at (1,1): two minimal paths, each link 1/2.
        let net = build(
            TorusConfig {
                dims: vec![5, 5],
                link_rate: Rate(1),
                link_delay: Time::ZERO,
                ..TorusConfig::default()
            }
            .build(),
        );
        let rt = RouteTable::build(&net, true);
        let mut b = UsageBuilder::new(&net, &rt, 1);
        let u = b.usage(Routing::Rps, 0, 0, 6);
        let fr: Vec<f64> = u.iter().map(|e| e.1).collect();
        assert_eq!(fr.iter().filter(|&&a| a == 1.0).count(), 2, "{u:?}"); // host links
        assert_eq!(fr.iter().filter(|&&a| a == 0.5).count(), 4, "{u:?}");
        // (0,0) -> (2,1) = h7: 3 minimal paths of 3 torus hops; the first hop is x with 2/3.
        let u = b.usage(Routing::Rps, 0, 0, 7);
        let sw0 = net.node_by_name("sw0").unwrap();
        let first: Vec<f64> =
            u.iter().filter(|e| net.ports[e.0 as usize].node == sw0).map(|e| e.1).collect();
        let mut first = first;
        first.sort_by(f64::total_cmp);
        assert!(
            (first[0] - 1.0 / 3.0).abs() < 1e-12 && (first[1] - 2.0 / 3.0).abs() < 1e-12,
            "{first:?}"
        );
        // Per-hop spray splits 1/2 at the first hop instead.
        let u = b.usage(Routing::Spray, 0, 0, 7);
        let first: Vec<f64> =
            u.iter().filter(|e| net.ports[e.0 as usize].node == sw0).map(|e| e.1).collect();
        assert_eq!(first, vec![0.5, 0.5]);
    }

    #[test]
    fn flow_is_conserved_at_every_node() {
        let net = build(
            TorusConfig {
                dims: vec![4, 3, 2],
                link_rate: Rate(1),
                link_delay: Time::ZERO,
                ..TorusConfig::default()
            }
            .build(),
        );
        let rt = RouteTable::build(&net, true);
        let mut b = UsageBuilder::new(&net, &rt, 1);
        for r in [
            Routing::Spray,
            Routing::Rps,
            Routing::Ecmp,
            Routing::DestTag,
            Routing::Static,
            Routing::Vlb,
            Routing::Wlb { direct: 1.0 / 3.0 },
        ] {
            for (s, d) in [(0u32, 23u32), (5, 7), (11, 2)] {
                let u = b.usage(r, 3, s, d);
                // Out of the source host 1, into the destination 1, balanced in between.
                assert!((net_out(&net, &u, net.hosts[s as usize]) - 1.0).abs() < 1e-12, "{r:?}");
                let into = |node: NodeId| -> f64 {
                    u.iter()
                        .filter(|e| net.ports[net.ports[e.0 as usize].peer_port.idx()].node == node)
                        .map(|e| e.1)
                        .sum()
                };
                assert!((into(net.hosts[d as usize]) - 1.0).abs() < 1e-12, "{r:?}");
                for n in 0..net.nodes.len() {
                    let node = NodeId(n as u32);
                    if node != net.hosts[s as usize] && node != net.hosts[d as usize] {
                        assert!(
                            (into(node) - net_out(&net, &u, node)).abs() < 1e-9,
                            "{r:?} node {n}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn ecmp_matches_the_packet_router_and_spray_is_even_on_fat_tree() {
        let net = build(FatTreeConfig { k: 4, link_rate: Rate(1), link_delay: Time::ZERO }.build());
        let rt = RouteTable::build(&net, true);
        let mut b = UsageBuilder::new(&net, &rt, 7);
        let u = b.usage(Routing::Ecmp, 9, 0, 15);
        assert_eq!(u.len(), 6);
        assert!(u.iter().all(|e| e.1 == 1.0));
        let mut r = Router::new(7, net.nodes.len(), net.hosts.len());
        let mut node = net.hosts[0];
        let mut ports = Vec::new();
        let mut hop = Hop::toward(FlowId(9), 15, Routing::Ecmp.leg());
        while node != net.hosts[15] {
            let p = r.next_port(&rt, &net, node, &mut hop).expect("reachable");
            ports.push(p.0);
            node = net.ports[p.idx()].peer;
        }
        ports.sort_unstable();
        assert_eq!(u.iter().map(|e| e.0).collect::<Vec<_>>(), ports);
        // Spray to another pod: 4 core paths, every core link 1/4.
        let u = b.usage(Routing::Rps, 0, 0, 15);
        assert_eq!(u.iter().filter(|e| e.1 == 0.25).count(), 8);
        assert_eq!(u, b.usage(Routing::Spray, 0, 0, 15));
        // Equal length: every flow climbs to a core, the 2-hop pair h0 -> h1 too (6 hops).
        let u = b.usage(
            Routing::EqualLength { core: super::super::equal_length::CoreChoice::Random },
            0,
            0,
            1,
        );
        let at_cores: f64 = u
            .iter()
            .filter(|e| net.nodes[net.ports[e.0 as usize].node.idx()].name.starts_with("core"))
            .map(|e| e.1)
            .sum();
        assert!((at_cores - 1.0).abs() < 1e-12, "{u:?}");
        assert!((u.iter().map(|e| e.1).sum::<f64>() - 6.0).abs() < 1e-12, "six hops: {u:?}");
    }
}
