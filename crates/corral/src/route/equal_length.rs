//! Equal-length routing (Prakash et al., "The TCP Outcast Problem", NSDI 2012, section 5.4):
//! every packet first climbs to a top-tier (core) switch, even when source and destination
//! share a ToR, and then takes the shortest path down, so all host pairs have paths of the
//! same length and flows to one destination mix at the core. The uplink at each step, and the
//! next hop among equal-cost ones on the way down, is chosen per packet at random (`random`,
//! the VL2-style scheme) or by destination address bits (`dest_bits`, the paper's testbed:
//! last bit at the ToR, second-last at the aggregation switch, as [`super::static_bits`]).
//!
//! Which packets still climb is a flag in the packet ([`crate::net::Packet::turned`]), set
//! where a packet reaches a node without uplinks.

use super::static_bits::StaticBits;
use crate::ids::NodeId;
use crate::sim::rng::{stream, Rng};
use serde::{Deserialize, Serialize};

/// `routing.core`: how equal-length routing picks the way up (and among equal-cost ways down).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CoreChoice {
    /// Uniformly at random per packet, from each switch's own seeded stream (default).
    #[default]
    Random,
    /// Destination host index bits, as the `static` router: a pure function of the destination.
    DestBits,
}

pub enum EqualLength {
    Random(Vec<Rng>),
    DestBits,
}

impl EqualLength {
    pub fn new(core: CoreChoice, seed: u64, nodes: usize) -> EqualLength {
        match core {
            CoreChoice::Random => EqualLength::Random((0..nodes).map(|i| Rng::stream(seed, stream::EQUAL_LENGTH, i as u64)).collect()),
            CoreChoice::DestBits => EqualLength::DestBits,
        }
    }

    /// Picks one of `n` candidates at `node` for a packet to host `dst`.
    #[inline]
    pub fn pick(&mut self, node: NodeId, static_div: u32, n: usize, dst: u32) -> usize {
        match self {
            EqualLength::Random(rngs) => rngs[node.idx()].below(n as u64) as usize,
            EqualLength::DestBits => StaticBits.pick(static_div, n, dst),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dest_bits_is_a_function_of_the_destination_and_random_covers_all() {
        let mut d = EqualLength::new(CoreChoice::DestBits, 1, 4);
        for dst in 0..8 {
            let first = d.pick(NodeId(2), 2, 2, dst);
            assert_eq!(first, (dst as usize / 2) % 2);
            assert!((0..10).all(|_| d.pick(NodeId(2), 2, 2, dst) == first));
        }
        let mut r = EqualLength::new(CoreChoice::Random, 1, 4);
        let mut counts = [0; 2];
        for _ in 0..200 {
            counts[r.pick(NodeId(3), 1, 2, 0)] += 1;
        }
        assert!(counts.iter().all(|&c| c > 60), "{counts:?}");
        // Seeded: the same seed repeats the same choices.
        let (mut a, mut b) = (EqualLength::new(CoreChoice::Random, 9, 4), EqualLength::new(CoreChoice::Random, 9, 4));
        assert!((0..50).all(|_| a.pick(NodeId(1), 1, 4, 0) == b.pick(NodeId(1), 1, 4, 0)));
    }
}
