//! The straightforward max-min algorithm of HCC (Algorithms 1 and 2, section III-A), used as
//! a test oracle for the fast solvers. Generalized to weights and usage fractions the way
//! R2C2 section 3.3.1 does, and to priority levels and headroom (R2C2 section 3.3.2).
//!
//! Algorithm 1 (single bottleneck): visit the flows of a link in increasing order of
//! weighted demand; each takes its demand if that is below the equal weighted share of what
//! is left, else the share. Algorithm 2 (multiple bottlenecks): run Algorithm 1 on every link
//! with capacity left, pick the flow with the lowest allocation over all links, fix it, return
//! the unused part of its allocations to its links, repeat. O(F^2 * nnz): tests only.

use super::problem::{Allocation, Bottleneck, Problem};

/// Algorithm 1 on one link: the fill level (rate per unit weight, per unit fraction) the link
/// can give flows that are not held back by their demand. `flows` are (weight * fraction,
/// demand level d / w).
pub fn single_bottleneck_level(capacity: f64, flows: &mut [(f64, f64)]) -> f64 {
    flows.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut cap = capacity.max(0.0);
    let mut wsum: f64 = flows.iter().map(|f| f.0).sum();
    for &(aw, dlev) in flows.iter() {
        let share = cap / wsum;
        if dlev < share {
            cap -= aw * dlev;
            wsum -= aw;
        } else {
            return share;
        }
    }
    f64::INFINITY
}

/// Algorithm 2 with priorities: levels in turn, each on what the previous ones left.
pub fn maxmin(p: &Problem) -> Allocation {
    let n = p.flows.len();
    let mut rate = vec![0.0; n];
    let mut bn = vec![Bottleneck::Demand; n];
    let mut rem: Vec<f64> = p.capacity.iter().map(|c| c * (1.0 - p.headroom)).collect();
    let mut prios: Vec<u8> = p.flows.iter().map(|f| f.priority).collect();
    prios.sort_unstable();
    prios.dedup();
    for prio in prios {
        let mut open: Vec<usize> = (0..n).filter(|&f| p.flows[f].priority == prio).collect();
        while !open.is_empty() {
            // Algorithm 1 on every link used by an open flow.
            let mut level = vec![f64::INFINITY; rem.len()];
            for (l, lev) in level.iter_mut().enumerate() {
                let mut fl: Vec<(f64, f64)> = Vec::new();
                for &f in &open {
                    let s = &p.flows[f];
                    if let Some(&(_, a)) = s.usage.iter().find(|e| e.0 as usize == l) {
                        fl.push((a * s.weight, s.demand / s.weight));
                    }
                }
                if !fl.is_empty() {
                    *lev = single_bottleneck_level(rem[l], &mut fl);
                }
            }
            // The open flow with the lowest allocation (per unit weight).
            let mut best = (f64::INFINITY, usize::MAX, Bottleneck::Demand);
            for &f in &open {
                let s = &p.flows[f];
                let mut cand = (s.demand / s.weight, Bottleneck::Demand);
                for &(l, _) in &s.usage {
                    if level[l as usize] < cand.0 {
                        cand = (level[l as usize], Bottleneck::Link(l));
                    }
                }
                if cand.0 < best.0 || best.1 == usize::MAX {
                    best = (cand.0, f, cand.1);
                }
            }
            let (lev, f, b) = best;
            let s = &p.flows[f];
            rate[f] = (lev * s.weight).max(0.0);
            bn[f] = b;
            for &(l, a) in &s.usage {
                rem[l as usize] -= a * rate[f];
            }
            open.retain(|&g| g != f);
        }
    }
    Allocation { rate, bottleneck: bn }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::problem::ProblemFlow;

    #[test]
    fn algorithm_1_gives_small_demands_first() {
        // Capacity 10, three unit-weight flows with demand levels 1, 5, inf: 1, then 4.5 each.
        let mut f = vec![(1.0, 5.0), (1.0, 1.0), (1.0, f64::INFINITY)];
        assert_eq!(single_bottleneck_level(10.0, &mut f), 4.5);
        let mut f = vec![(1.0, 1.0), (1.0, 2.0)];
        assert_eq!(single_bottleneck_level(10.0, &mut f), f64::INFINITY);
    }

    #[test]
    fn algorithm_2_parking_lot() {
        let fl = |u: &[(u32, f64)]| ProblemFlow::new(u.to_vec());
        let p = Problem {
            capacity: vec![10.0, 4.0],
            headroom: 0.0,
            flows: vec![fl(&[(0, 1.0), (1, 1.0)]), fl(&[(0, 1.0)]), fl(&[(1, 1.0)])],
        };
        let a = maxmin(&p);
        assert_eq!(a.rate, vec![2.0, 8.0, 2.0]);
    }
}
