//! Per-packet spraying: every packet picks a uniformly random equal-cost next hop from the
//! switch's own random stream (random packet spraying, as R2C2's RPS and Dixit et al.).

use crate::ids::NodeId;
use crate::sim::rng::{stream, Rng};

pub struct Spray {
    rngs: Vec<Rng>,
}

impl Spray {
    pub fn new(seed: u64, nodes: usize) -> Spray {
        Spray { rngs: (0..nodes).map(|i| Rng::stream(seed, stream::SPRAY, i as u64)).collect() }
    }

    #[inline]
    pub fn pick(&mut self, node: NodeId, n: usize) -> usize {
        self.rngs[node.idx()].below(n as u64) as usize
    }
}
