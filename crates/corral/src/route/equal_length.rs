//! Equal-length routing (Prakash et al., "The TCP Outcast Problem", NSDI 2012, section 5.4):
//! every packet first climbs to a top-tier (core) switch, even when source and destination
//! share a ToR, and then takes the shortest path down, so all host pairs have paths of the
//! same length and flows to one destination mix at the core. The uplink at each step, and the
//! next hop among equal-cost ones on the way down, is chosen per packet at random (`random`,
//! the VL2-style scheme) or by destination address bits (`dest_bits`, the paper's testbed:
//! last bit at the ToR, second-last at the aggregation switch, as [`super::static_bits`]).
//!
//! A packet climbs while its waypoint is [`super::CLIMB`]; the router clears it where the
//! packet reaches a node without uplinks.

use crate::ids::NodeId;
use crate::sim::rng::{stream, Streams};
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

/// `[routing]` with `kind = "equal_length"`: `core` (default "random").
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EqualLengthSettings {
    /// How a packet picks its core switch: "random" (default, per packet) or "dest_bits"
    /// (from the destination host's index, as `static` routing).
    #[serde(default)]
    pub core: CoreChoice,
}

impl EqualLengthSettings {
    pub fn validate(&self) -> crate::Result<()> {
        Ok(())
    }
}

/// The random choices of `core = "random"`: one stream per node.
pub struct EqualRandom(Streams);

impl EqualRandom {
    pub fn new(seed: u64, nodes: usize) -> EqualRandom {
        EqualRandom(Streams::new(seed, stream::EQUAL_LENGTH, nodes))
    }

    /// One of `n` candidates at `node`, uniformly.
    #[inline]
    pub fn pick(&mut self, node: NodeId, n: usize) -> usize {
        self.0.of(node.idx()).below(n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_choices_cover_all_and_repeat_per_seed() {
        let mut r = EqualRandom::new(1, 4);
        let mut counts = [0; 2];
        for _ in 0..200 {
            counts[r.pick(NodeId(3), 2)] += 1;
        }
        assert!(counts.iter().all(|&c| c > 60), "{counts:?}");
        let (mut a, mut b) = (EqualRandom::new(9, 4), EqualRandom::new(9, 4));
        assert!((0..50).all(|_| a.pick(NodeId(1), 4) == b.pick(NodeId(1), 4)));
    }
}
