//! Per-packet spraying: every packet picks a uniformly random equal-cost next hop from the
//! switch's own random stream (random packet spraying, as Dixit et al.).

use crate::ids::NodeId;
use crate::sim::rng::{stream, Streams};

pub struct Spray(Streams);

impl Spray {
    pub fn new(seed: u64, nodes: usize) -> Spray {
        Spray(Streams::new(seed, stream::SPRAY, nodes))
    }

    #[inline]
    pub fn pick(&mut self, node: NodeId, n: usize) -> usize {
        self.0.of(node.idx()).below(n as u64) as usize
    }
}
