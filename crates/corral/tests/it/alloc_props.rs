//! Property tests of the max-min allocator (`corral::alloc`) on random instances:
//! feasibility, the max-min bottleneck condition per priority level, demands respected,
//! agreement with HCC's plain Algorithm 2 (the reference), and incremental updates equal to
//! a from-scratch solve. Tolerance: 1e-9 relative to the largest capacity.

use corral::alloc::{reference, solve, Allocation, Allocator, Bottleneck, Problem, ProblemFlow};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

const TOL: f64 = 1e-9;

fn flow_strategy(links: usize) -> impl Strategy<Value = ProblemFlow> {
    (
        proptest::collection::btree_map(
            0..links as u32,
            prop_oneof![Just(1.0), Just(0.5), Just(0.25), 0.05f64..1.0],
            1..=links.min(4),
        ),
        prop_oneof![Just(1.0), Just(2.0), Just(0.5), 0.1f64..4.0],
        prop_oneof![3 => Just(0u8), 1 => 1u8..3],
        prop_oneof![3 => Just(f64::INFINITY), 1 => 0.0f64..6.0],
    )
        .prop_map(|(u, weight, priority, demand)| ProblemFlow {
            weight,
            priority,
            demand,
            usage: u.into_iter().collect(),
        })
}

fn problem_strategy() -> impl Strategy<Value = Problem> {
    (1usize..7).prop_flat_map(|links| {
        (
            proptest::collection::vec(
                prop_oneof![1 => Just(0.0), 6 => 0.5f64..12.0, 2 => Just(10.0)],
                links,
            ),
            prop_oneof![Just(0.0), Just(0.05)],
            proptest::collection::vec(flow_strategy(links), 1..14),
        )
            .prop_map(|(capacity, headroom, flows)| Problem { capacity, headroom, flows })
    })
}

fn scale(p: &Problem) -> f64 {
    p.capacity.iter().copied().fold(1.0, f64::max)
}

/// Feasibility and the max-min condition, checked from the rates alone.
fn check_maxmin(p: &Problem, a: &Allocation) -> Result<(), String> {
    let eps = TOL * scale(p) * 10.0;
    let eff: Vec<f64> = p.capacity.iter().map(|c| c * (1.0 - p.headroom)).collect();
    let load = a.link_load(p);
    for (l, (&ld, &c)) in load.iter().zip(&eff).enumerate() {
        if ld > c + eps {
            return Err(format!("link {l}: load {ld} > capacity {c}"));
        }
    }
    for (f, s) in p.flows.iter().enumerate() {
        let r = a.rate[f];
        if r < -eps || r > s.demand + eps {
            return Err(format!("flow {f}: rate {r} outside [0, demand {}]", s.demand));
        }
        if (r - s.demand).abs() <= eps {
            continue;
        }
        // A link saturated by this level and the ones above, on which f has the largest
        // weighted rate among its level's flows.
        let ok = s.usage.iter().any(|&(l, _)| {
            let li = l as usize;
            let mut upto = 0.0;
            let mut max_lev: f64 = 0.0;
            for (g, t) in p.flows.iter().enumerate() {
                if let Some(&(_, b)) = t.usage.iter().find(|e| e.0 == l) {
                    if t.priority <= s.priority {
                        upto += b * a.rate[g];
                    }
                    if t.priority == s.priority {
                        max_lev = max_lev.max(a.rate[g] / t.weight);
                    }
                }
            }
            upto >= eff[li] - eps && r / s.weight >= max_lev - eps / s.weight
        });
        if !ok {
            return Err(format!(
                "flow {f} (rate {r}) is below its demand but has no bottleneck link"
            ));
        }
    }
    // The reported bottleneck is consistent.
    for (f, b) in a.bottleneck.iter().enumerate() {
        match *b {
            Bottleneck::Demand => {
                if (a.rate[f] - p.flows[f].demand).abs() > eps {
                    return Err(format!(
                        "flow {f} reports its demand as bottleneck at rate {}",
                        a.rate[f]
                    ));
                }
            }
            Bottleneck::Link(l) => {
                if !p.flows[f].usage.iter().any(|e| e.0 == l) {
                    return Err(format!("flow {f} reports link {l} it does not use"));
                }
            }
        }
    }
    Ok(())
}

fn close(p: &Problem, x: &[f64], y: &[f64]) -> Result<(), String> {
    let eps = TOL * scale(p);
    for (f, (a, b)) in x.iter().zip(y).enumerate() {
        if (a - b).abs() > eps * 10.0 {
            return Err(format!("flow {f}: {a} vs {b}"));
        }
    }
    Ok(())
}

#[derive(Clone, Debug)]
enum Op {
    Add(ProblemFlow),
    Remove(usize),
    Demand(usize, f64),
    Capacity(usize, f64),
}

fn ops_strategy(links: usize) -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(
        prop_oneof![
            flow_strategy(links).prop_map(Op::Add),
            any::<usize>().prop_map(Op::Remove),
            (any::<usize>(), prop_oneof![Just(f64::INFINITY), 0.0f64..8.0])
                .prop_map(|(i, d)| Op::Demand(i, d)),
            (any::<usize>(), prop_oneof![Just(0.0), 0.5f64..12.0])
                .prop_map(|(i, c)| Op::Capacity(i, c)),
        ],
        1..10,
    )
}

/// Applies `ops` to an incremental allocator one by one; after each, its allocation must equal
/// a from-scratch solve and be max-min. `slack` sets the allocator's candidate slack.
fn apply_and_compare(p: Problem, ops: Vec<Op>, slack: Option<f64>) -> Result<(), String> {
    let mut al = Allocator::new(p).unwrap();
    if let Some(s) = slack {
        al.set_candidate_slack(s).unwrap();
    }
    for op in ops {
        let ids = al.flow_ids();
        match op {
            Op::Add(s) => {
                al.add_flow(s).unwrap();
            }
            Op::Remove(i) if !ids.is_empty() => al.remove_flow(ids[i % ids.len()]).unwrap(),
            Op::Demand(i, d) if !ids.is_empty() => {
                let _ = al.set_demand(ids[i % ids.len()], d);
            }
            Op::Capacity(i, c) => al.set_capacity((i % al.links()) as u32, c).unwrap(),
            _ => {}
        }
        let prob = al.problem();
        let inc = al.allocation();
        let full = solve(&prob).unwrap();
        close(&prob, &inc.rate, &full.rate).map_err(|e| format!("incremental vs scratch: {e}"))?;
        check_maxmin(&prob, &inc).map_err(|e| format!("incremental: {e}"))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 400, rng_seed: RngSeed::Fixed(0xa11c), failure_persistence: None, ..Config::default() })]

    #[test]
    fn allocation_is_feasible_max_min_and_matches_hcc_reference(p in problem_strategy()) {
        let a = solve(&p).unwrap();
        if let Err(e) = check_maxmin(&p, &a) { prop_assert!(false, "{}", e); }
        let r = reference::maxmin(&p);
        if let Err(e) = check_maxmin(&p, &r) { prop_assert!(false, "reference: {}", e); }
        if let Err(e) = close(&p, &a.rate, &r.rate) { prop_assert!(false, "vs reference: {}", e); }
    }

    #[test]
    fn incremental_updates_equal_from_scratch(
        (p, ops) in problem_strategy().prop_flat_map(|p| { let l = p.capacity.len(); (Just(p), ops_strategy(l)) })
    ) {
        if let Err(e) = apply_and_compare(p, ops, None) { prop_assert!(false, "{}", e); }
    }
}

/// Larger instances where an update usually refills only part of the flows (those at or
/// above the divergence level), so the partial path, not a full refill, is what is checked.
fn wide_flow(links: usize) -> impl Strategy<Value = ProblemFlow> {
    (
        proptest::collection::btree_map(
            0..links as u32,
            prop_oneof![Just(1.0), Just(0.5), Just(1.0 / 3.0), 0.05f64..1.0],
            1..=6,
        ),
        prop_oneof![4 => Just(1.0), 1 => 0.25f64..4.0],
        prop_oneof![6 => Just(0u8), 1 => Just(1u8)],
        prop_oneof![5 => Just(f64::INFINITY), 1 => 0.0f64..3.0],
    )
        .prop_map(|(u, weight, priority, demand)| ProblemFlow {
            weight,
            priority,
            demand,
            usage: u.into_iter().collect(),
        })
}

fn wide_ops(links: usize) -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(
        prop_oneof![
            4 => wide_flow(links).prop_map(Op::Add),
            3 => any::<usize>().prop_map(Op::Remove),
            1 => (any::<usize>(), prop_oneof![Just(f64::INFINITY), 0.0f64..4.0]).prop_map(|(i, d)| Op::Demand(i, d)),
            1 => (any::<usize>(), 1.0f64..20.0).prop_map(|(i, c)| Op::Capacity(i, c)),
        ],
        10..40,
    )
}

proptest! {
    #![proptest_config(Config { cases: 60, rng_seed: RngSeed::Fixed(0xa11d), failure_persistence: None, ..Config::default() })]

    #[test]
    fn incremental_updates_on_wide_instances_equal_from_scratch(
        (p, ops) in (8usize..24).prop_flat_map(|links| (
            proptest::collection::vec(1.0f64..20.0, links),
            proptest::collection::vec(wide_flow(links), 20..80),
            wide_ops(links),
        )).prop_map(|(capacity, flows, ops)| (Problem { capacity, headroom: 0.0, flows }, ops))
    ) {
        if let Err(e) = apply_and_compare(p, ops, None) { prop_assert!(false, "{}", e); }
    }
}

/// One priority level: the allocator refills on candidate links only and checks the others.
/// A slack of 0 takes only saturated links as candidates, so updates often overload another
/// link and redo the refill; infinity is the plain refill on every link.
fn single_level_flow(links: usize) -> impl Strategy<Value = ProblemFlow> {
    wide_flow(links).prop_map(|mut f| {
        f.priority = 0;
        f
    })
}

// 1000 cases (under a second): 150 of this seed passed a rounding bug of the level-ordered
// refill that 3,000 of another seed found (a link's crossing level taken from the rounding
// left of its slope); 3,000 cases of each of six seeds pass since its fix.
proptest! {
    #![proptest_config(Config { cases: 1000, rng_seed: RngSeed::Fixed(0xa11e), failure_persistence: None, ..Config::default() })]

    #[test]
    fn single_level_updates_on_candidate_links_equal_from_scratch(
        (p, ops, slack) in (8usize..24).prop_flat_map(|links| (
            proptest::collection::vec(1.0f64..20.0, links),
            proptest::collection::vec(single_level_flow(links), 20..80),
            proptest::collection::vec(
                prop_oneof![
                    4 => single_level_flow(links).prop_map(Op::Add),
                    3 => any::<usize>().prop_map(Op::Remove),
                    1 => (any::<usize>(), prop_oneof![Just(f64::INFINITY), 0.0f64..4.0]).prop_map(|(i, d)| Op::Demand(i, d)),
                    1 => (any::<usize>(), prop_oneof![Just(0.0), 1.0f64..20.0]).prop_map(|(i, c)| Op::Capacity(i, c)),
                ],
                10..40,
            ),
            prop_oneof![Just(0.0), Just(0.01), Just(0.2), Just(f64::INFINITY)],
        )).prop_map(|(capacity, flows, ops, slack)| (Problem { capacity, headroom: 0.0, flows }, ops, slack))
    ) {
        if let Err(e) = apply_and_compare(p, ops, Some(slack)) { prop_assert!(false, "{}", e); }
    }
}
