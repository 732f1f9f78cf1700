//! Per-link usage fractions from a topology and a routing protocol (R2C2, SIGCOMM 2015,
//! section 3.3.1: "we use information about a flow's routing protocol to determine the
//! relative rate of the flow across the paths it is using and, hence, along each network
//! link"). Links are directed: link `i` is global port `i` of the built [`Network`] (the
//! port that transmits on it), so host access links are included: a flow always uses its
//! source's uplink and its destination's downlink with fraction 1.
//!
//! * `SinglePath`: the first equal-cost candidate at every hop (deterministic).
//! * `Ecmp`: the packet simulator's per-flow hash at every hop, so the flow's one path is the
//!   path its packets take in packet mode.
//! * `Static`: the packet simulator's destination-bits choice.
//! * `Spray`: uniform over all minimal paths (R2C2's random packet spraying); the fraction on a
//!   link is the share of minimal paths through it, counted by dynamic programming on the
//!   shortest-path DAG (paths through u->v = paths s->u times paths v->d), not enumerated.
//! * `SprayPerHop`: a uniform choice among equal-cost next hops at every hop, which is what
//!   the packet simulator's `spray` does; it differs from `Spray` where the DAG is unbalanced
//!   (tori), not on fat-trees.
//! * `Vlb`: Valiant load balancing, minimal-path spraying to a uniformly random intermediate
//!   switch (every host's attachment switch), then on to the destination; the usage is the
//!   average over intermediates.
//! * `Wlb { direct }`: weighted load balancing, a `direct` share on the minimal paths and the
//!   rest through VLB (R2C2's WLB example, 1:2 split gives direct = 1/3).

use crate::ids::{FlowId, NodeId};
use crate::net::Network;
use crate::route::{Router, RoutingConfig, RouteTable};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Routing {
    SinglePath,
    Ecmp,
    Static,
    Spray,
    SprayPerHop,
    Vlb,
    Wlb { direct: f64 },
}

impl Routing {
    /// Parses a routing name as the Python API spells it: "single", "ecmp", "static",
    /// "spray", "spray_per_hop", "vlb", "wlb" (with `direct`).
    pub fn parse(name: &str, direct: f64) -> crate::Result<Routing> {
        Ok(match name {
            "single" => Routing::SinglePath,
            "ecmp" => Routing::Ecmp,
            "static" => Routing::Static,
            "spray" => Routing::Spray,
            "spray_per_hop" => Routing::SprayPerHop,
            "vlb" => Routing::Vlb,
            "wlb" => {
                if !(0.0..=1.0).contains(&direct) {
                    return Err(crate::error::config_err("direct", format!("must be in [0, 1], got {direct}")));
                }
                Routing::Wlb { direct }
            }
            _ => return Err(crate::error::config_err("routing", format!("unknown routing \"{name}\"; expected single, ecmp, static, spray, spray_per_hop, vlb or wlb"))),
        })
    }
}

/// Computes usage vectors; caches VLB leg sums per source and destination.
pub struct UsageBuilder<'a> {
    net: &'a Network,
    routes: &'a RouteTable,
    ecmp: Router,
    stat: Router,
    ns: Vec<f64>,
    nd: Vec<f64>,
    seen: Vec<bool>,
    order: Vec<NodeId>,
    dense: Vec<f64>,
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
            ecmp: Router::new(&RoutingConfig::Ecmp, seed, n),
            stat: Router::new(&RoutingConfig::Static, seed, n),
            ns: vec![0.0; n],
            nd: vec![0.0; n],
            seen: vec![false; n],
            order: Vec::new(),
            dense: vec![0.0; net.ports.len()],
            vlb_out: HashMap::new(),
            vlb_in: HashMap::new(),
        }
    }

    /// Number of directed links (ports).
    pub fn links(&self) -> usize {
        self.net.ports.len()
    }

    /// Usage of flow `flow` (its id, for the ECMP hash) from host `src` to host `dst`, sorted
    /// by link. Empty if `src == dst`.
    pub fn usage(&mut self, routing: Routing, flow: u32, src: u32, dst: u32) -> Vec<(u32, f64)> {
        if src == dst {
            return Vec::new();
        }
        let s = self.net.hosts[src as usize];
        match routing {
            Routing::SinglePath => self.walk(s, dst, |_, _, _| 0),
            Routing::Ecmp => {
                let fid = FlowId(flow);
                let mut r = std::mem::replace(&mut self.ecmp, Router::Static(crate::route::static_bits::StaticBits));
                let out = self.walk(s, dst, |node, div, c| pick(&mut r, node, div, c, fid, dst));
                self.ecmp = r;
                out
            }
            Routing::Static => {
                let mut r = std::mem::replace(&mut self.stat, Router::Static(crate::route::static_bits::StaticBits));
                let out = self.walk(s, dst, |node, div, c| pick(&mut r, node, div, c, FlowId(flow), dst));
                self.stat = r;
                out
            }
            Routing::Spray => self.spray(s, dst, false),
            Routing::SprayPerHop => self.spray(s, dst, true),
            Routing::Vlb => self.vlb(src, dst),
            Routing::Wlb { direct } => {
                let mut d = self.spray(s, dst, false);
                let v = self.vlb(src, dst);
                for e in &mut d {
                    e.1 *= direct;
                }
                merge(d, v.into_iter().map(|(l, a)| (l, a * (1.0 - direct))).collect())
            }
        }
    }

    fn walk(&mut self, mut node: NodeId, dst: u32, mut choose: impl FnMut(NodeId, u32, &[crate::ids::PortId]) -> usize) -> Vec<(u32, f64)> {
        let mut out = Vec::new();
        loop {
            let c = self.routes.candidates(node, dst);
            if c.is_empty() {
                break;
            }
            let p = c[choose(node, self.net.nodes[node.idx()].static_div, c)];
            out.push((p.0, 1.0));
            node = self.net.ports[p.idx()].peer;
        }
        out.sort_unstable_by_key(|e| e.0);
        out
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
                self.nd[u.idx()] = if c.is_empty() { 1.0 } else { c.iter().map(|p| self.nd[self.net.ports[p.idx()].peer.idx()]).sum() };
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

fn pick(r: &mut Router, node: NodeId, div: u32, c: &[crate::ids::PortId], flow: FlowId, dst: u32) -> usize {
    let p = r.choose(node, div, c, flow, dst);
    c.iter().position(|&q| q == p).unwrap()
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
        let net = build(TorusConfig { dims: vec![5, 5], link_rate: Rate(1), link_delay: Time::ZERO }.build());
        let rt = RouteTable::build(&net);
        let mut b = UsageBuilder::new(&net, &rt, 1);
        let u = b.usage(Routing::Spray, 0, 0, 6);
        let fr: Vec<f64> = u.iter().map(|e| e.1).collect();
        assert_eq!(fr.iter().filter(|&&a| a == 1.0).count(), 2, "{u:?}"); // host links
        assert_eq!(fr.iter().filter(|&&a| a == 0.5).count(), 4, "{u:?}");
        // (0,0) -> (2,1) = h7: 3 minimal paths of 3 torus hops; the first hop is x with 2/3.
        let u = b.usage(Routing::Spray, 0, 0, 7);
        let sw0 = net.node_by_name("sw0").unwrap();
        let first: Vec<f64> = u.iter().filter(|e| net.ports[e.0 as usize].node == sw0).map(|e| e.1).collect();
        let mut first = first;
        first.sort_by(f64::total_cmp);
        assert!((first[0] - 1.0 / 3.0).abs() < 1e-12 && (first[1] - 2.0 / 3.0).abs() < 1e-12, "{first:?}");
        // Per-hop spray splits 1/2 at the first hop instead.
        let u = b.usage(Routing::SprayPerHop, 0, 0, 7);
        let first: Vec<f64> = u.iter().filter(|e| net.ports[e.0 as usize].node == sw0).map(|e| e.1).collect();
        assert_eq!(first, vec![0.5, 0.5]);
    }

    #[test]
    fn flow_is_conserved_at_every_node() {
        let net = build(TorusConfig { dims: vec![4, 3, 2], link_rate: Rate(1), link_delay: Time::ZERO }.build());
        let rt = RouteTable::build(&net);
        let mut b = UsageBuilder::new(&net, &rt, 1);
        for r in [Routing::Spray, Routing::SprayPerHop, Routing::Ecmp, Routing::SinglePath, Routing::Vlb, Routing::Wlb { direct: 1.0 / 3.0 }] {
            for (s, d) in [(0u32, 23u32), (5, 7), (11, 2)] {
                let u = b.usage(r, 3, s, d);
                // Out of the source host 1, into the destination 1, balanced in between.
                assert!((net_out(&net, &u, net.hosts[s as usize]) - 1.0).abs() < 1e-12, "{r:?}");
                let into = |node: NodeId| -> f64 { u.iter().filter(|e| net.ports[net.ports[e.0 as usize].peer_port.idx()].node == node).map(|e| e.1).sum() };
                assert!((into(net.hosts[d as usize]) - 1.0).abs() < 1e-12, "{r:?}");
                for n in 0..net.nodes.len() {
                    let node = NodeId(n as u32);
                    if node != net.hosts[s as usize] && node != net.hosts[d as usize] {
                        assert!((into(node) - net_out(&net, &u, node)).abs() < 1e-9, "{r:?} node {n}");
                    }
                }
            }
        }
    }

    #[test]
    fn ecmp_matches_the_packet_router_and_spray_is_even_on_fat_tree() {
        let net = build(FatTreeConfig { k: 4, link_rate: Rate(1), link_delay: Time::ZERO }.build());
        let rt = RouteTable::build(&net);
        let mut b = UsageBuilder::new(&net, &rt, 7);
        let u = b.usage(Routing::Ecmp, 9, 0, 15);
        assert_eq!(u.len(), 6);
        assert!(u.iter().all(|e| e.1 == 1.0));
        let mut r = Router::new(&RoutingConfig::Ecmp, 7, net.nodes.len());
        let mut node = net.hosts[0];
        let mut ports = Vec::new();
        while !rt.candidates(node, 15).is_empty() {
            let p = r.choose(node, net.nodes[node.idx()].static_div, rt.candidates(node, 15), FlowId(9), 15);
            ports.push(p.0);
            node = net.ports[p.idx()].peer;
        }
        ports.sort_unstable();
        assert_eq!(u.iter().map(|e| e.0).collect::<Vec<_>>(), ports);
        // Spray to another pod: 4 core paths, every core link 1/4.
        let u = b.usage(Routing::Spray, 0, 0, 15);
        assert_eq!(u.iter().filter(|e| e.1 == 0.25).count(), 8);
        assert_eq!(u, b.usage(Routing::SprayPerHop, 0, 0, 15));
    }
}
