//! The ideal max-min controller on a workload (`scenarios/ideal/websearch.toml`: web-search
//! sizes at load 0.6 on a k = 4 fat-tree, 5 % headroom) against DCTCP and against fluid mode.
//! The full study (seeds 1-5, 0.3 s) is ignored by default; run it with
//! `cargo test --release -p corral --test ideal_workload -- --ignored --nocapture`.

use corral::metrics::Column;
use corral::run::Run;
use std::collections::BTreeMap;

const SCENARIO: &str = include_str!("../../../../python/corral/scenarios/ideal/websearch.toml");

/// (flow id, size, fct) of every sized flow that finished.
fn finished(overrides: &[String]) -> Vec<(i64, i64, f64)> {
    let mut run =
        Run::load(SCENARIO, overrides, "websearch.toml").unwrap_or_else(|e| panic!("{e}"));
    run.run();
    let flows = run.tables().into_iter().find(|(n, _)| *n == "flows").unwrap().1;
    let (Some(Column::Int(id)), Some(Column::OptInt(size)), Some(Column::OptFloat(fct))) =
        (flows.column("flow_id"), flows.column("size_bytes"), flows.column("fct_s"))
    else {
        panic!()
    };
    (0..id.len()).filter_map(|i| Some((id[i], size[i]?, fct[i]?))).collect()
}

/// Mean FCT of flows of at least 1 MB that finished in both runs: (packet, fluid).
fn big_means(packet: &[(i64, i64, f64)], fluid: &[(i64, i64, f64)]) -> (f64, f64) {
    let f: BTreeMap<i64, f64> = fluid.iter().map(|&(i, _, t)| (i, t)).collect();
    let pairs: Vec<(f64, f64)> = packet
        .iter()
        .filter(|&&(i, s, _)| s >= 1_000_000 && f.contains_key(&i))
        .map(|&(i, _, t)| (t, f[&i]))
        .collect();
    assert!(pairs.len() > 50, "too few large flows: {}", pairs.len());
    let n = pairs.len() as f64;
    (pairs.iter().map(|p| p.0).sum::<f64>() / n, pairs.iter().map(|p| p.1).sum::<f64>() / n)
}

/// Mean FCT per size bucket (< 100 KB, 100 KB - 1 MB, >= 1 MB).
fn buckets(flows: &[(i64, i64, f64)]) -> [f64; 3] {
    let mut sum = [0.0; 3];
    let mut n = [0.0; 3];
    for &(_, s, t) in flows {
        let b = if s < 100_000 {
            0
        } else if s < 1_000_000 {
            1
        } else {
            2
        };
        sum[b] += t;
        n[b] += 1.0;
    }
    [sum[0] / n[0], sum[1] / n[1], sum[2] / n[2]]
}

fn ratio(seed: u64, duration: &str) -> f64 {
    let ov = |extra: &str| {
        vec![format!("seed={seed}"), format!("duration={duration}"), extra.to_string()]
    };
    let (p, f) = big_means(&finished(&ov("scheme.headroom=0.05")), &finished(&ov("mode=fluid")));
    p / f
}

// Tolerance: the mean FCT of flows of 1 MB and more is within 15 % of fluid mode's on the
// same flows (one seed, 0.15 s here; the ignored study below runs seeds 1-5 for 0.3 s).
#[test]
fn ideal_long_flows_finish_within_15_percent_of_fluid() {
    let r = ratio(1, "0.15s");
    assert!(r > 0.95 && r < 1.15, "ideal / fluid mean FCT of flows >= 1 MB: {r:.3}");
}

#[test]
#[ignore = "a study: seeds 1-5, 0.3 s, about a minute in release"]
fn ideal_against_dctcp_and_fluid_seeds_1_to_5() {
    println!("seed | ideal <100KB, 100KB-1MB, >=1MB (ms) | dctcp (ms) | ideal/fluid >= 1 MB");
    for seed in 1..=5 {
        let ov = |extra: &str| vec![format!("seed={seed}"), extra.to_string()];
        let ideal = finished(&ov("scheme.headroom=0.05"));
        let dctcp = finished(&ov("traffic.0.transport=dctcp"));
        let fluid = finished(&ov("mode=fluid"));
        let (p, f) = big_means(&ideal, &fluid);
        let ms = |b: [f64; 3]| b.map(|x| format!("{:.3}", x * 1e3)).join(", ");
        println!("{seed} | {} | {} | {:.3}", ms(buckets(&ideal)), ms(buckets(&dctcp)), p / f);
        assert!(p / f < 1.15, "seed {seed}: {:.3}", p / f);
    }
}
