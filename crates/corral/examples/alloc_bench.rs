//! Max-min allocation speed on an 8x8x8 3D torus (512 hosts; 3072 directed torus links plus
//! 1024 directed host links) with packet spraying over minimal paths, for 1k, 10k and 100k
//! random flows: `cargo run --release --example alloc_bench [-- FLOWS... [ecmp]]`. Prints one
//! JSON line per size: usage build time, full solve (median of repetitions), and the
//! incremental update after one arrival and one departure (median over 50 arrivals /
//! departures, each departure undoing its arrival), and how many of the N flows change rate
//! (beyond 1e-9 relative) on an arrival: a lower bound on the flows any exact update must
//! recompute, and how many of the 100 timed updates the level-ordered refill resolved and
//! gave up on (`Allocator::ordered_refills`). `ecmp` routes each flow on one hashed shortest
//! path instead of spraying, for comparison: far fewer links per flow, far less coupling.

use corral::alloc::{solve, Allocator, Problem, ProblemFlow};
use corral::net::queue::QueueDisc;
use corral::net::topo::torus::TorusConfig;
use corral::net::topo::TopologyKind as _;
use corral::net::Network;
use corral::route::usage::UsageBuilder;
use corral::route::RouteTable;
use corral::route::Routing;
use corral::sim::rng::Rng;
use corral::units::{BufferSize, Rate, Time};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let routing = if std::env::args().any(|a| a == "ecmp") { Routing::Ecmp } else { Routing::Rps };
    let sizes: Vec<usize> = {
        let a: Vec<usize> = std::env::args().skip(1).filter_map(|s| s.parse().ok()).collect();
        if a.is_empty() {
            vec![1_000, 10_000, 100_000]
        } else {
            a
        }
    };
    let topo = TorusConfig {
        dims: vec![8, 8, 8],
        link_rate: Rate(10_000_000_000),
        link_delay: Time::from_us(1),
        ..TorusConfig::default()
    }
    .build();
    let net = Network::build(&topo, |_| QueueDisc::taildrop(BufferSize::Packets(10)));
    let rt = RouteTable::build(&net, true);
    let mut ub = UsageBuilder::new(&net, &rt, 1);
    let hosts = net.hosts.len() as u64;
    let mut rng = Rng::stream(1, 99, 0);
    let mut pair = move || loop {
        let (s, d) = (rng.below(hosts) as u32, rng.below(hosts) as u32);
        if s != d {
            return (s, d);
        }
    };
    let capacity: Vec<f64> = net.ports.iter().map(|p| p.rate().bps() as f64).collect();
    for n in sizes {
        let t0 = Instant::now();
        let flows: Vec<ProblemFlow> = (0..n)
            .map(|i| {
                let (s, d) = pair();
                ProblemFlow::new(ub.usage(routing, i as u32, s, d))
            })
            .collect();
        let usage_s = t0.elapsed().as_secs_f64();
        let p = Problem { capacity: capacity.clone(), headroom: 0.0, flows };
        let nnz = p.nnz();
        let reps = if n >= 100_000 { 3 } else { 11 };
        let full: Vec<f64> = (0..reps)
            .map(|_| {
                let t = Instant::now();
                let a = solve(&p).unwrap();
                std::hint::black_box(&a);
                t.elapsed().as_secs_f64()
            })
            .collect();
        let mut al = Allocator::new(p.clone()).unwrap();
        let extra: Vec<ProblemFlow> = (0..50)
            .map(|i| {
                let (s, d) = pair();
                ProblemFlow::new(ub.usage(routing, (n + i) as u32, s, d))
            })
            .collect();
        let (mut add, mut rem, mut changed) = (Vec::new(), Vec::new(), Vec::new());
        for f in &extra {
            let t = Instant::now();
            let id = al.add_flow(f.clone()).unwrap();
            add.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            al.remove_flow(id).unwrap();
            rem.push(t.elapsed().as_secs_f64());
        }
        let (resolved, gave_up) = al.ordered_refills();
        // Flows whose exact rate each arrival changes (beyond 1e-9 relative): any exact update
        // has to recompute at least these. Counted apart, so the timing runs undisturbed.
        for f in extra {
            let before = al.allocation().rate;
            let id = al.add_flow(f).unwrap();
            let after = al.allocation().rate;
            changed.push(
                (0..n)
                    .filter(|&g| (after[g] - before[g]).abs() > 1e-9 * before[g].abs().max(1.0))
                    .count() as f64,
            );
            al.remove_flow(id).unwrap();
        }
        println!(
            "{{\"routing\": \"{routing:?}\", \"flows\": {n}, \"links\": {}, \"nnz\": {nnz}, \"usage_build_ms\": {:.2}, \"full_ms\": {:.3}, \"arrival_ms\": {:.3}, \"departure_ms\": {:.3}, \"arrival_changed_flows\": {{\"median\": {}, \"min\": {}, \"max\": {}}}, \"timed_updates_ordered\": {resolved}, \"timed_updates_ordered_gave_up\": {gave_up}}}",
            capacity.len(), usage_s * 1e3, median(full) * 1e3, median(add) * 1e3, median(rem) * 1e3,
            median(changed.clone()), changed.iter().copied().fold(f64::INFINITY, f64::min), changed.iter().copied().fold(0.0, f64::max)
        );
    }
}
