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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::{solve_validated, FlowSpec, Problem};
    use crate::sim::Rng;

    #[test]
    fn algorithm_1_fills_small_demands_first() {
        assert_eq!(single_bottleneck(10.0, &[1.0, f64::INFINITY, 2.0, f64::INFINITY]), vec![1.0, 3.5, 2.0, 3.5]);
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
                    let mut l: Vec<usize> = (0..1 + rng.below(3)).map(|_| rng.below(links as u64) as usize).collect();
                    l.sort_unstable();
                    l.dedup();
                    let demand = if rng.below(2) == 0 { f64::INFINITY } else { rng.below(60) as f64 };
                    (demand, l)
                })
                .collect();
            let got = multi_bottleneck(&capacity, &flows);
            let p = Problem {
                capacity: capacity.clone(),
                headroom: 0.0,
                flows: flows.iter().map(|(d, l)| FlowSpec { weight: 1.0, priority: 0, demand: *d, usage: l.iter().map(|&b| (b as u32, 1.0)).collect() }).collect(),
            };
            let want = solve_validated(&p).rate;
            for (f, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!((g - w).abs() <= 1e-9 * w.max(1.0), "case {case}, flow {f}: {g} vs {w}; {capacity:?} {flows:?}");
            }
        }
    }
}
