//! Link weights of R2C2's rate computation (SIGCOMM 2015, section 3.3.1): flow f's weight on
//! link l is w_f · a_{f,l}, where a_{f,l} is the fraction of f's packets that cross l under
//! its routing protocol. The fractions come from [`crate::route::usage`], which follows the
//! packet router's own rules (the integration test `routing.rs` checks RPS's sampled shares
//! against them).
//!
//! On a torus with wrap-around links (all up) the fractions of RPS, VLB and WLB depend only
//! on the protocol and the destination's offset from the source, so they are computed once
//! per (protocol, offset), from node 0, and translated to each source. Elsewhere (a mesh, or
//! dest-tag, whose ties between the two ways round an even ring go to the lower port, and
//! ECMP's hash) they are computed once per (protocol, source, destination).

use crate::ids::NodeId;
use crate::net::topo::TopologyConfig;
use crate::net::Network;
use crate::route::usage::UsageBuilder;
use crate::route::{RouteTable, Routing};
use std::collections::HashMap;
use std::sync::Arc;

/// A flow's usage: (link = global port id, fraction of its packets on it).
pub type Usage = Arc<[(u32, f64)]>;

/// The cache key of a routing protocol (WLB's `direct` share by its bits).
type RouteKey = (&'static str, u64);

fn route_key(r: Routing) -> RouteKey {
    match r {
        Routing::Wlb { direct } => ("wlb", direct.to_bits()),
        other => (other.name(), 0),
    }
}

/// What a cached usage is for besides its protocol.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Ends {
    /// From host 0 to the host at this torus offset.
    Offset(u32),
    /// From one host to another.
    Pair(u32, u32),
    /// One flow (its routing hashes the flow id).
    Flow(u32),
}

/// Usage fractions per protocol and endpoints, cached.
pub struct Weights {
    torus: Option<Torus>,
    cache: HashMap<(RouteKey, Ends), Usage>,
    /// Entries computed (cache misses), for the summary.
    pub computed: u64,
}

/// A wrap-around torus: host and switch `i` sit at grid position `i`.
struct Torus {
    dims: Vec<u32>,
    /// Per node: (is a host, grid index).
    pos: Vec<(bool, u32)>,
    host_node: Vec<NodeId>,
    switch_node: Vec<NodeId>,
    /// (from node, to node) -> the port that transmits on that link.
    link: HashMap<(u32, u32), u32>,
}

impl Torus {
    fn new(net: &Network, dims: &[u32]) -> Torus {
        let mut pos = vec![(false, u32::MAX); net.nodes.len()];
        let mut switch_node = vec![NodeId(0); net.hosts.len()];
        for (i, &h) in net.hosts.iter().enumerate() {
            pos[h.idx()] = (true, i as u32);
            let sw = net.ports[net.host_port(i as u32).idx()].peer;
            pos[sw.idx()] = (false, i as u32);
            switch_node[i] = sw;
        }
        let link =
            net.ports.iter().enumerate().map(|(i, p)| ((p.node.0, p.peer.0), i as u32)).collect();
        Torus { dims: dims.to_vec(), pos, host_node: net.hosts.clone(), switch_node, link }
    }

    fn coords(&self, mut i: u32) -> [u32; 3] {
        let mut c = [0; 3];
        for (k, &d) in self.dims.iter().enumerate() {
            c[k] = i % d;
            i /= d;
        }
        c
    }

    fn index(&self, c: [u32; 3]) -> u32 {
        self.dims.iter().enumerate().rev().fold(0, |acc, (k, &d)| acc * d + c[k])
    }

    /// Grid index of `a - b`, coordinate-wise modulo the dimensions.
    fn offset(&self, from: u32, to: u32) -> u32 {
        let (a, b) = (self.coords(to), self.coords(from));
        let mut c = [0; 3];
        for (k, &d) in self.dims.iter().enumerate() {
            c[k] = (a[k] + d - b[k]) % d;
        }
        self.index(c)
    }

    fn shift(&self, i: u32, by: u32) -> u32 {
        let (a, b) = (self.coords(i), self.coords(by));
        let mut c = [0; 3];
        for (k, &d) in self.dims.iter().enumerate() {
            c[k] = (a[k] + b[k]) % d;
        }
        self.index(c)
    }

    fn shift_node(&self, n: u32, by: u32) -> u32 {
        let (host, i) = self.pos[n as usize];
        let j = self.shift(i, by) as usize;
        if host {
            self.host_node[j].0
        } else {
            self.switch_node[j].0
        }
    }

    /// The usage from host 0 moved to start at host `by`.
    fn translate(&self, net: &Network, from_zero: &[(u32, f64)], by: u32) -> Usage {
        from_zero
            .iter()
            .map(|&(l, a)| {
                let p = &net.ports[l as usize];
                let key = (self.shift_node(p.node.0, by), self.shift_node(p.peer.0, by));
                (*self.link.get(&key).expect("a torus is invariant under translation"), a)
            })
            .collect()
    }
}

/// Routings whose fractions a translation of the torus carries along (no per-flow hash).
fn translates(r: Routing) -> bool {
    matches!(r, Routing::Rps | Routing::Vlb | Routing::Wlb { .. } | Routing::Spray)
}

impl Weights {
    /// The weights of `net` as its links are now (built again when links fail or return).
    pub fn new(net: &Network, topology: &TopologyConfig) -> Weights {
        let torus = match topology {
            // A failed link breaks the symmetry.
            TopologyConfig::Torus(t) if t.wrap && !net.any_down() => Some(Torus::new(net, &t.dims)),
            _ => None,
        };
        Weights { torus, cache: HashMap::new(), computed: 0 }
    }

    /// Links failed or came back: every usage is computed again on the new routes (the
    /// count of computations goes on).
    pub fn rebuild(&mut self, net: &Network, topology: &TopologyConfig) {
        *self = Weights { computed: self.computed, ..Weights::new(net, topology) };
    }

    /// The usage of a flow from host `src` to host `dst` under `routing` (`flow` feeds the
    /// ECMP hash only).
    #[allow(clippy::too_many_arguments)]
    pub fn usage(
        &mut self,
        net: &Network,
        routes: &RouteTable,
        seed: u64,
        routing: Routing,
        flow: u32,
        src: u32,
        dst: u32,
    ) -> Usage {
        let ends = match &self.torus {
            Some(t) if translates(routing) => Ends::Offset(t.offset(src, dst)),
            _ if hashes(routing) => Ends::Flow(flow),
            _ => Ends::Pair(src, dst),
        };
        let key = (route_key(routing), ends);
        let u = match self.cache.get(&key) {
            Some(u) => u.clone(),
            None => {
                self.computed += 1;
                let (s, d) = if let Ends::Offset(o) = ends { (0, o) } else { (src, dst) };
                let u: Usage =
                    UsageBuilder::new(net, routes, seed).usage(routing, flow, s, d).into();
                self.cache.insert(key, u.clone());
                u
            }
        };
        match (&self.torus, ends) {
            (Some(t), Ends::Offset(_)) if src != 0 => t.translate(net, &u, src),
            _ => u,
        }
    }

    /// Forgets a flow's own entry (routings that hash the flow id); call when it ends.
    pub fn forget_flow(&mut self, routing: Routing, flow: u32) {
        if hashes(routing) {
            self.cache.remove(&(route_key(routing), Ends::Flow(flow)));
        }
    }
}

/// Routings whose path depends on a hash of the flow id.
fn hashes(r: Routing) -> bool {
    matches!(r, Routing::Ecmp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::QueueDisc;
    use crate::net::topo::torus::TorusConfig;
    use crate::net::topo::TopologyKind as _;
    use crate::units::BufferSize;

    #[test]
    fn translated_fractions_equal_the_direct_computation() {
        for dims in [vec![4, 4, 4], vec![3, 5], vec![2, 4]] {
            let cfg = TorusConfig { dims: dims.clone(), ..TorusConfig::default() };
            let net = Network::build(&cfg.build(), |_| QueueDisc::taildrop(BufferSize::Packets(1)));
            let routes = RouteTable::build(&net, true);
            let mut w = Weights::new(&net, &TopologyConfig::Torus(cfg));
            let n = net.hosts.len() as u32;
            for routing in
                [Routing::Rps, Routing::DestTag, Routing::Vlb, Routing::Wlb { direct: 1.0 / 3.0 }]
            {
                for (src, dst) in [(0, n - 1), (5 % n, 2), (n - 1, 1), (3, 3 + n / 2)] {
                    let (src, dst) = (src % n, dst % n);
                    let mut got = w.usage(&net, &routes, 1, routing, 0, src, dst).to_vec();
                    let mut want = UsageBuilder::new(&net, &routes, 1).usage(routing, 0, src, dst);
                    got.sort_by_key(|e| e.0);
                    want.sort_by_key(|e| e.0);
                    assert_eq!(got.len(), want.len(), "{dims:?} {routing:?} {src}->{dst}");
                    for (g, e) in got.iter().zip(&want) {
                        assert!(
                            g.0 == e.0 && (g.1 - e.1).abs() < 1e-12,
                            "{dims:?} {routing:?} {src}->{dst}: {g:?} vs {e:?}"
                        );
                    }
                }
            }
        }
    }
}
