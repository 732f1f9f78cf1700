//! Per-flow ECMP: a hash of (flow, switch, seed) picks one of the equal-cost next hops, so a
//! flow keeps its path and different flows spread out (RFC 2992 hash-threshold in spirit).

use crate::ids::{FlowId, NodeId};
use crate::sim::rng::{mix64, stream};

pub struct Ecmp {
    salt: u64,
}

impl Ecmp {
    pub fn new(seed: u64) -> Ecmp {
        Ecmp { salt: mix64(seed ^ stream::ECMP) }
    }

    #[inline]
    pub fn pick(&self, node: NodeId, n: usize, flow: FlowId) -> usize {
        let h = mix64(self.salt ^ ((flow.0 as u64) << 32 | node.0 as u64));
        ((h as u128 * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_flow_same_choice_and_flows_spread() {
        let e = Ecmp::new(1);
        assert_eq!(e.pick(NodeId(3), 4, FlowId(7)), e.pick(NodeId(3), 4, FlowId(7)));
        let mut counts = [0; 4];
        for f in 0..400 {
            counts[e.pick(NodeId(3), 4, FlowId(f))] += 1;
        }
        assert!(counts.iter().all(|&c| c > 60), "{counts:?}");
    }
}
