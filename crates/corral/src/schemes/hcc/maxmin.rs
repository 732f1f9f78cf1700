//! HCC's max-min algorithms on the bottleneck-flow graph (section III-A).
//!
//! - Algorithm 1, one bottleneck: sort the demands, and give each flow in turn the smaller
//!   of its demand and the capacity left divided by the flows left.
//! - Algorithm 2, many bottlenecks: repeatedly run Algorithm 1 on every bottleneck with
//!   capacity left, over its unallocated flows; the smallest tentative allocation of any
//!   flow on any bottleneck is final for that flow, and every bottleneck it crosses keeps
//!   the rest. The extracted pseudocode is garbled; this is the progressive filling it
//!   describes, and a test checks it against [`crate::alloc`].

/// Algorithm 1: max-min shares of `capacity` among flows with `demands` (infinite: none),
/// in the order of `demands`.
pub fn single_bottleneck(capacity: f64, demands: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..demands.len()).collect();
    order.sort_by(|&a, &b| demands[a].total_cmp(&demands[b]).then(a.cmp(&b)));
    let mut left = capacity.max(0.0);
    let mut share = vec![0.0; demands.len()];
    for (k, &i) in order.iter().enumerate() {
        let fair = left / (order.len() - k) as f64;
        let w = demands[i].min(fair);
        share[i] = w;
        left -= w;
    }
    share
}

/// Algorithm 2: max-min rates of flows `(demand, bottlenecks crossed)` over bottlenecks of
/// `capacity`. A flow crossing no bottleneck gets its demand.
pub fn multi_bottleneck(capacity: &[f64], flows: &[(f64, Vec<usize>)]) -> Vec<f64> {
    let mut left: Vec<f64> = capacity.iter().map(|c| c.max(0.0)).collect();
    let mut rate = vec![f64::NAN; flows.len()];
    let mut on: Vec<Vec<usize>> = vec![Vec::new(); capacity.len()];
    for (f, (_, links)) in flows.iter().enumerate() {
        if links.is_empty() {
            rate[f] = flows[f].0;
        }
        for &b in links {
            on[b].push(f);
        }
    }
    loop {
        // The smallest tentative allocation of an unallocated flow, over all bottlenecks.
        let mut best: Option<(f64, usize)> = None;
        for (b, members) in on.iter().enumerate() {
            let open: Vec<usize> = members.iter().copied().filter(|&f| rate[f].is_nan()).collect();
            if open.is_empty() {
                continue;
            }
            let demands: Vec<f64> = open.iter().map(|&f| flows[f].0).collect();
            for (k, w) in single_bottleneck(left[b], &demands).into_iter().enumerate() {
                if best.is_none_or(|(bw, bf)| w < bw || (w == bw && open[k] < bf)) {
                    best = Some((w, open[k]));
                }
            }
        }
        let Some((w, f)) = best else { break };
        rate[f] = w;
        for &b in &flows[f].1 {
            left[b] = (left[b] - w).max(0.0);
        }
    }
    rate
}

/// Algorithm 1 on a demand map: the level λ at which flows in `groups` of (demand, count)
/// fill `capacity` when each gets min(demand, λ); infinite when every demand fits.
pub fn water_level(capacity: f64, groups: &[(f64, i64)]) -> f64 {
    let mut sorted: Vec<(f64, i64)> = groups.iter().copied().filter(|&(_, n)| n > 0).collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut left = capacity.max(0.0);
    let mut flows: i64 = sorted.iter().map(|g| g.1).sum();
    for (d, n) in sorted {
        if d * flows as f64 > left {
            return left / flows as f64;
        }
        left -= d * n as f64;
        flows -= n;
    }
    f64::INFINITY
}

/// A parent's division of `capacity` among children, each a demand map and an optional cap
/// (the allocation a child with several parents takes from another): the max-min shares,
/// `sum over the child's flows of min(demand, λ)`, capped, for the largest λ that fits.
pub fn divide(capacity: f64, children: &[(Vec<(f64, i64)>, f64)]) -> Vec<f64> {
    let at = |lambda: f64| -> Vec<f64> {
        children
            .iter()
            .map(|(groups, cap)| {
                groups
                    .iter()
                    .map(|&(d, n)| d.min(lambda) * n.max(0) as f64)
                    .sum::<f64>()
                    .min(*cap)
                    .max(0.0)
            })
            .collect()
    };
    let capacity = capacity.max(0.0);
    if children.iter().all(|c| c.1.is_infinite()) {
        let all: Vec<(f64, i64)> = children.iter().flat_map(|c| c.0.iter().copied()).collect();
        return at(water_level(capacity, &all));
    }
    let full = at(f64::INFINITY);
    if full.iter().sum::<f64>() <= capacity {
        return full;
    }
    // Capped children make the fill non-linear in λ: bisect on it (the sum is monotone).
    let (mut lo, mut hi) = (0.0, capacity);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if at(mid).iter().sum::<f64>() <= capacity {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    at(lo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::{solve_validated, Problem, ProblemFlow};
    use crate::sim::Rng;

    #[test]
    fn algorithm_1_fills_small_demands_first() {
        assert_eq!(
            single_bottleneck(10.0, &[1.0, f64::INFINITY, 2.0, f64::INFINITY]),
            vec![1.0, 3.5, 2.0, 3.5]
        );
        assert_eq!(single_bottleneck(9.0, &[f64::INFINITY; 3]), vec![3.0; 3]);
        assert_eq!(single_bottleneck(9.0, &[1.0, 2.0]), vec![1.0, 2.0]);
    }

    // Random instances (up to 8 links and 12 flows, each on 1-3 links, half of them with a
    // demand): Algorithm 2 matches the allocator to 1e-9.
    #[test]
    fn algorithm_2_matches_the_allocator_on_random_instances() {
        let mut rng = Rng::stream(42, 0, 0);
        for case in 0..300 {
            let links = 1 + rng.below(8) as usize;
            let capacity: Vec<f64> = (0..links).map(|_| 1.0 + rng.below(100) as f64).collect();
            let flows: Vec<(f64, Vec<usize>)> = (0..1 + rng.below(12))
                .map(|_| {
                    let mut l: Vec<usize> =
                        (0..1 + rng.below(3)).map(|_| rng.below(links as u64) as usize).collect();
                    l.sort_unstable();
                    l.dedup();
                    let demand =
                        if rng.below(2) == 0 { f64::INFINITY } else { rng.below(60) as f64 };
                    (demand, l)
                })
                .collect();
            let got = multi_bottleneck(&capacity, &flows);
            let p = Problem {
                capacity: capacity.clone(),
                headroom: 0.0,
                flows: flows
                    .iter()
                    .map(|(d, l)| ProblemFlow {
                        weight: 1.0,
                        priority: 0,
                        demand: *d,
                        usage: l.iter().map(|&b| (b as u32, 1.0)).collect(),
                    })
                    .collect(),
            };
            let want = solve_validated(&p).rate;
            for (f, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-9 * w.max(1.0),
                    "case {case}, flow {f}: {g} vs {w}; {capacity:?} {flows:?}"
                );
            }
        }
    }

    // The grouped form of Algorithm 1 gives each flow what the per-flow form gives it.
    #[test]
    fn water_level_matches_algorithm_1() {
        let mut rng = Rng::stream(7, 0, 0);
        for _ in 0..200 {
            let groups: Vec<(f64, i64)> = (0..1 + rng.below(5))
                .map(|_| {
                    (
                        if rng.below(3) == 0 { f64::INFINITY } else { rng.below(50) as f64 },
                        1 + rng.below(4) as i64,
                    )
                })
                .collect();
            let capacity = rng.below(200) as f64;
            let flat: Vec<f64> =
                groups.iter().flat_map(|&(d, n)| std::iter::repeat_n(d, n as usize)).collect();
            let lambda = water_level(capacity, &groups);
            for (d, want) in flat.iter().zip(single_bottleneck(capacity, &flat)) {
                assert!((d.min(lambda) - want).abs() < 1e-9, "{groups:?} at {capacity}");
            }
        }
        assert_eq!(water_level(10.0, &[(1.0, 2)]), f64::INFINITY);
    }

    // Children's shares: max-min over their flows; a capped child keeps its cap and the
    // others get what it leaves.
    #[test]
    fn divide_gives_capped_children_their_cap_and_the_rest_to_others() {
        let inf = f64::INFINITY;
        let two = vec![(inf, 2)];
        let one = vec![(inf, 1)];
        assert_eq!(divide(9.0, &[(two.clone(), inf), (one.clone(), inf)]), vec![6.0, 3.0]);
        let capped = divide(9.0, &[(two.clone(), 1.0), (one.clone(), inf)]);
        assert!((capped[0] - 1.0).abs() < 1e-9 && (capped[1] - 8.0).abs() < 1e-6, "{capped:?}");
        assert_eq!(divide(9.0, &[(vec![(2.0, 1)], 5.0), (vec![(3.0, 1)], inf)]), vec![2.0, 3.0]);
        assert_eq!(divide(9.0, &[]), Vec::<f64>::new());
    }
}
