//! Random packet spraying over minimal paths (R2C2, SIGCOMM 2015, sections 2.2.1 and 3.5): a
//! packet takes a uniformly random shortest path. Choosing, at every hop, a next hop with
//! probability proportional to the number of shortest paths behind it
//! ([`super::RouteTable::candidate_paths`]) gives exactly that distribution without listing
//! paths, hop by hop at switches or all at once at a source-routing sender. It differs from
//! `spray` (uniform per hop) where the shortest-path graph is unbalanced, as on a torus.

use crate::ids::NodeId;
use crate::sim::rng::{stream, Streams};

pub struct Rps(Streams);

impl Rps {
    pub fn new(seed: u64, nodes: usize) -> Rps {
        Rps(Streams::new(seed, stream::RPS, nodes))
    }

    /// One of `n` candidates at `node`, uniformly (equal path counts).
    #[inline]
    pub fn uniform(&mut self, node: NodeId, n: usize) -> usize {
        self.0.of(node.idx()).below(n as u64) as usize
    }

    /// An index drawn with probability proportional to `paths` (the shortest paths behind
    /// each candidate at `node`).
    #[inline]
    pub fn pick(&mut self, node: NodeId, paths: &[f64]) -> usize {
        let rng = self.0.of(node.idx());
        let total: f64 = paths.iter().sum();
        let mut x = rng.unit() * total;
        for (i, &w) in paths.iter().enumerate() {
            if x < w {
                return i;
            }
            x -= w;
        }
        paths.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_follow_the_path_counts() {
        let mut r = Rps::new(1, 1);
        let mut counts = [0u32; 3];
        for _ in 0..30_000 {
            counts[r.pick(NodeId(0), &[1.0, 2.0, 3.0])] += 1;
        }
        for (i, &c) in counts.iter().enumerate() {
            let want = 30_000.0 * (i + 1) as f64 / 6.0;
            assert!((c as f64 - want).abs() < 0.03 * want, "{counts:?}");
        }
    }
}
