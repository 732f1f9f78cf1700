//! Queue disciplines and the shared buffer in whole scenarios: the TCP Outcast Case I setup
//! (Prakash et al., NSDI 2012, section 3.2.1 and section 5, Table 2) with SFQ and with RED,
//! and a shared-buffer switch where one congested port cannot take all the memory
//! (Choudhury and Hahne 1998).

use crate::common;

use corral::Simulation;

/// Outcast Case I (the shipped case1_12.toml), 0.3 s, with `switch` as the queue settings.
fn outcast(seed: u64, switch: &str) -> String {
    common::outcast_case1(seed, "0.3s", switch)
}

/// 2-hop goodput over the mean 6-hop goodput.
fn ratio(sim: &Simulation) -> f64 {
    let two = sim.flows[0].receiver.delivered() as f64;
    let six: Vec<f64> = sim.flows[1..].iter().map(|f| f.receiver.delivered() as f64).collect();
    assert_eq!(six.len(), 12);
    two / (six.iter().sum::<f64>() / six.len() as f64)
}

/// Drop-run histogram at tor0:0 over all input ports: run length -> episodes.
fn runs(sim: &Simulation) -> std::collections::BTreeMap<u32, u64> {
    let p = sim.net.port_by_name("tor0:0").unwrap();
    let mut h = std::collections::BTreeMap::new();
    for (&(_, len), &n) in &sim.net.ports[p.idx()].run_histogram {
        *h.entry(len).or_insert(0) += n;
    }
    h
}

/// At tor0:0 (SFQ): the 2-hop flow's bucket and the number of flows hashed to each bucket.
fn bucket_load(sim: &Simulation) -> (u32, Vec<u32>) {
    let p = sim.net.port_by_name("tor0:0").unwrap();
    let corral::net::queue::QueueDisc::Sfq(q) = &sim.net.ports[p.idx()].queue else {
        panic!("not sfq")
    };
    let mut load = vec![0; 4];
    for f in 0..sim.flows.len() as u32 {
        load[q.bucket(f) as usize] += 1;
    }
    (q.bucket(0), load)
}

const SEEDS: [u64; 5] = [1, 2, 3, 4, 5];

fn sfq_ratios(table: &str) -> Vec<f64> {
    SEEDS
        .iter()
        .map(|&seed| {
            // The classic TCP these results were measured with: with the defaults (SACK, PRR,
            // RACK-TLP) SFQ with head drop gives the 2-hop flow about 2.8x the 6-hop mean.
            let sim = common::run(&outcast(seed, &format!("queue = \"sfq\"\n[switch.sfq]\nbuckets = 4\n{table}")), &common::CLASSIC_TCP);
            let (bucket, load) = bucket_load(&sim);
            let r = ratio(&sim);
            eprintln!("sfq {table:?} seed {seed}: 2-hop/6-hop-mean = {r:.3}, drops {}, runs at tor0:0 {:?}, flows per tor0:0 bucket {load:?} (2-hop in {bucket})", sim.counts.dropped, runs(&sim));
            r
        })
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

// SFQ with 4 buckets, dropping the oldest packet of the longest bucket on overflow (Linux
// `headdrop`) and re-salting the hash every 10 ms, gives the 2-hop flow about the mean 6-hop
// share: the issue's band for the ratio is 0.75..1.33 (the paper, section 5.2 and Fig. 15(b),
// reports near-equal shares). Tolerance: the mean over 5 seeds must lie in the band.
#[test]
fn sfq_with_head_drop_removes_the_outcast_effect() {
    let r = sfq_ratios("drop = \"head\"\nperturb = \"10ms\"");
    eprintln!("sfq head drop, perturb 10ms: mean ratio {:.3}: {r:.3?}", mean(&r));
    assert!(
        (0.75..=1.33).contains(&mean(&r)),
        "sfq (head drop) mean ratio {:.3} outside 0.75..1.33: {r:?}",
        mean(&r)
    );
}

// SFQ with tail drop (Linux's default) does not reach the band in this setup; the Outcast
// report tracks it as a known miss (tests/test_outcast_studies.py, README "TCP Outcast").

// RED (paper setting: min 5, max 15 packets, w_q 0.002, max_p 0.1): measured and printed,
// with the drop-run histogram at tor0:0. Asserted only loosely: early drops exist and most
// drop runs are single drops.
#[test]
fn red_in_the_outcast_setup() {
    let mut ratios = Vec::new();
    let (mut single, mut all) = (0u64, 0u64);
    for seed in SEEDS {
        let sim = common::run(
            &outcast(
                seed,
                "queue = \"red\"\n[switch.red]\nmin_th = \"5pkt\"\nmax_th = \"15pkt\"\nw_q = 0.002",
            ),
            &[],
        );
        let r = ratio(&sim);
        let h = runs(&sim);
        single += h.get(&1).copied().unwrap_or(0);
        all += h.values().sum::<u64>();
        eprintln!(
            "red seed {seed}: 2-hop/6-hop-mean = {r:.3}, drops {}, runs at tor0:0 {h:?}",
            sim.counts.dropped
        );
        ratios.push(r);
    }
    let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
    eprintln!("red: mean ratio {mean:.3} over seeds {SEEDS:?}: {ratios:.3?}; single-drop runs {single} of {all}");
    assert!(all > 0, "RED dropped nothing at tor0:0");
    assert!(single * 2 > all, "most drop runs should be single drops: {single} of {all}");
}

fn shared_scenario(model: &str) -> String {
    format!(
        r#"
name = "shared-buffer"
seed = 3
duration = "20ms"
[topology]
kind = "dumbbell"
senders = 4
receivers = 1
link_rate = "10Gbps"
bottleneck_rate = "1Gbps"
link_delay = "2us"
[switch]
buffer = "200KB"
{model}
[transport]
cc = "newreno"
receive_window = 1000000
[[flows]]
src = ["h0", "h1", "h2"]
dst = "h4"
[[flows]]
src = "h3"
dst = "h1"
size = "2MB"
start = "5ms"
[metrics]
interval = "1ms"
"#
    )
}

// A dumbbell whose left switch has a 1 Gbps bottleneck port (sw0:4) congested by three
// senders. Per-port 200 KB buffers: the bottleneck queue grows to nearly 200 KB. A shared
// 100 KB memory with alpha = 1: the congested queue stays below alpha/(1+alpha) = half of
// it (Q < alpha (B - Q), checked before the arrival is added, so at most one packet more),
// and a 2 MB flow through another port of the same switch still finishes. Tolerance: the
// threshold bound plus one 1500 B packet (51.5 KB); the per-port run must exceed 100 KB, so
// the test can tell the models apart.
#[test]
fn one_congested_port_cannot_take_the_whole_shared_buffer() {
    let per_port = common::run(&shared_scenario("buffer_model = \"per_port\""), &[]);
    let shared = common::run(
        &shared_scenario("buffer_model = \"shared\"\nshared_buffer = \"100KB\"\nalpha = 1.0"),
        &[],
    );
    let q_per_port = common::port_stats(&per_port, "sw0:4").max_queue_bytes;
    let q_shared = common::port_stats(&shared, "sw0:4").max_queue_bytes;
    eprintln!("bottleneck max queue: per-port {q_per_port} B, shared {q_shared} B; drops per-port {} shared {}", per_port.counts.dropped, shared.counts.dropped);
    assert!(q_per_port > 100_000, "per-port bottleneck queue only reached {q_per_port} B");
    assert!(
        q_shared <= 51_500,
        "shared: congested queue reached {q_shared} B > alpha/(1+alpha) of 100 KB"
    );
    assert!(q_shared > 20_000, "shared: congested queue stayed at {q_shared} B");
    let late = &shared.flows[3];
    assert!(
        late.finish.is_some(),
        "the flow through the other port did not finish: {} B",
        late.receiver.delivered()
    );
}

// Same seed, same numbers: RED's early-drop draws and SFQ's salts come from seeded per-port
// streams. Tolerance: exact equality of counts and per-flow bytes.
#[test]
fn red_and_sfq_runs_are_deterministic() {
    for switch in ["queue = \"red\"", "queue = \"sfq\"\n[switch.sfq]\nperturb = \"5ms\""] {
        let a = common::run(&outcast(7, switch), &["duration=\"50ms\""]);
        let b = common::run(&outcast(7, switch), &["duration=\"50ms\""]);
        assert_eq!(a.counts, b.counts, "{switch}");
        let bytes =
            |s: &Simulation| s.flows.iter().map(|f| f.receiver.delivered()).collect::<Vec<_>>();
        assert_eq!(bytes(&a), bytes(&b), "{switch}");
        let c = common::run(&outcast(8, switch), &["duration=\"50ms\""]);
        assert_ne!(bytes(&a), bytes(&c), "{switch}: another seed should change something");
    }
}
