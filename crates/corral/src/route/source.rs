//! Source routes (R2C2, SIGCOMM 2015, section 4.2 and Fig. 6): the sender writes the whole
//! path into the packet header as one local output-port number per hop, and every node
//! forwards on `route[ridx++]`. With 3 bits per hop (nodes of at most 8 ports, as a torus
//! node with its host) the 128-bit field holds 42 hops; the bits per hop here follow the
//! topology's largest port count, so a k = 16 fat-tree (16 ports) uses 4 bits and 32 hops.

use crate::error::{config_err, Result};
use crate::ids::{NodeId, PortId};
use crate::net::Network;

/// The header encoding of one network.
#[derive(Clone, Copy, Debug)]
pub struct SourceRoutes {
    /// Bits per hop.
    pub bits: u32,
    /// Hops that fit in 128 bits.
    pub max_hops: usize,
}

impl SourceRoutes {
    /// The encoding for `net`: enough bits per hop for its largest node.
    pub fn new(net: &Network) -> SourceRoutes {
        let degree = net.nodes.iter().map(|n| n.ports.len()).max().unwrap_or(1).max(2);
        let bits = usize::BITS - (degree - 1).leading_zeros();
        SourceRoutes { bits, max_hops: (128 / bits) as usize }
    }

    /// Encodes a path of output ports (each port's index within its node).
    pub fn encode(&self, net: &Network, path: &[PortId]) -> Result<u128> {
        if path.len() > self.max_hops {
            return Err(config_err("routing.source_routes", format!("a path of {} hops does not fit the 128-bit route header ({} bits per hop: at most {} hops)", path.len(), self.bits, self.max_hops)));
        }
        Ok(path.iter().enumerate().fold(0u128, |acc, (i, p)| {
            acc | (net.ports[p.idx()].local as u128) << (i as u32 * self.bits)
        }))
    }

    /// The output port at `node` for hop `ridx` of `route`.
    #[inline]
    pub fn hop(&self, net: &Network, node: NodeId, route: u128, ridx: u8) -> PortId {
        let local = (route >> (ridx as u32 * self.bits)) as usize & ((1usize << self.bits) - 1);
        net.nodes[node.idx()].ports[local]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::QueueDisc;
    use crate::net::topo::TopologyKind as _;
    use crate::net::topo::{fat_tree::FatTreeConfig, torus::TorusConfig};
    use crate::route::{Hop, Leg, RouteTable, Router, NO_WAYPOINT};
    use crate::units::BufferSize;

    fn build(t: crate::net::Topology) -> Network {
        Network::build(&t, |_| QueueDisc::taildrop(BufferSize::Packets(10)))
    }

    #[test]
    fn a_torus_node_takes_three_bits_and_42_hops() {
        let sr = SourceRoutes::new(&build(TorusConfig::default().build()));
        assert_eq!((sr.bits, sr.max_hops), (3, 42));
        let sr = SourceRoutes::new(&build(
            FatTreeConfig {
                k: 16,
                link_rate: crate::units::Rate(1),
                link_delay: crate::units::Time::ZERO,
            }
            .build(),
        ));
        assert_eq!((sr.bits, sr.max_hops), (4, 32));
    }

    #[test]
    fn following_the_encoded_route_retraces_the_path() {
        let net = build(TorusConfig { dims: vec![4, 4, 4], ..TorusConfig::default() }.build());
        let rt = RouteTable::build(&net, true);
        let sr = SourceRoutes::new(&net);
        let mut router = Router::new(5, net.nodes.len(), net.hosts.len());
        let mut path = Vec::new();
        for (s, d) in [(0u32, 63u32), (5, 6), (17, 40)] {
            assert!(router.path(
                &rt,
                &net,
                net.hosts[s as usize],
                Hop { waypoint: 33, ..Hop::toward(crate::ids::FlowId(0), d, Leg::Rps) },
                &mut path
            ));
            let route = sr.encode(&net, &path).unwrap();
            let mut node = net.hosts[s as usize];
            for (i, &p) in path.iter().enumerate() {
                assert_eq!(sr.hop(&net, node, route, i as u8), p);
                node = net.ports[p.idx()].peer;
            }
            assert_eq!(node, net.hosts[d as usize]);
        }
        let long: Vec<PortId> = std::iter::repeat_n(net.nodes[0].ports[0], 43).collect();
        assert!(sr
            .encode(&net, &long)
            .unwrap_err()
            .to_string()
            .starts_with("routing.source_routes:"));
        let _ = NO_WAYPOINT;
    }
}
