//! Fluid mode (`mode = "fluid"`) against packet level: 10 MB flows of a DCTCP permutation on a
//! k=4 fat-tree (10 Gbps, ECN K = 65 packets, ECMP, seed 1). Checked within 10 %: the FCT of
//! every flow whose path collides with no other (DCTCP holds the queue short, so the flow runs
//! near line rate, as fluid mode assumes), and the time the last flow finishes (the bytes on
//! the most loaded link decide it in both). Not checked, because they diverge: flows sharing
//! several bottlenecks. DCTCP is not max-min: a flow marked at two congested links is beaten
//! down (here to ~12 % of a link while its one-bottleneck competitors get ~85 %), so packet-level
//! FCTs spread out and their mean is 15 % below the fluid one in this run.

use corral::fluid::FluidSim;
use corral::scenario::load;

const PERM: &str = r#"
name = "fluid_vs_packet"
duration = "40ms"
[topology]
kind = "fat_tree"
k = 4
link_rate = "10Gbps"
[switch]
buffer = "200pkt"
queue = "ecn"
ecn_threshold = "65pkt"
[routing]
kind = "ecmp"
[transport]
cc = "dctcp"
ecn = true
min_rto = "5ms"
[[flows]]
pattern = "permutation"
size = "10MB"
"#;

fn fcts_fluid(text: &str) -> Vec<Option<f64>> {
    let mut f = FluidSim::new(load(text, &[], "t").unwrap()).unwrap();
    f.run();
    fct_col(&f.flows_table())
}

fn fct_col(t: &corral::metrics::Table) -> Vec<Option<f64>> {
    match t.column("fct_s").unwrap() {
        corral::metrics::Column::OptFloat(v) => v.clone(),
        _ => unreachable!(),
    }
}

#[test]
fn fluid_matches_packet_level_dctcp_long_flow_fct_within_10_percent() {
    let fluid = fcts_fluid(PERM);
    let mut sim = corral::Simulation::new(load(PERM, &[], "t").unwrap()).unwrap();
    sim.run();
    let packet = fct_col(&sim.flows_table());
    assert_eq!(fluid.len(), 16);
    // Alone on its path: 10 MB at the payload rate of 10 Gbps.
    let alone = 10e6 * 8.0 / (10e9 * 1460.0 / 1500.0);
    let (mut max_f, mut max_p, mut checked) = (0.0f64, 0.0f64, 0);
    for (i, (f, p)) in fluid.iter().zip(&packet).enumerate() {
        let (f, p) = (f.expect("fluid flow finished"), p.unwrap_or_else(|| panic!("packet flow {i} did not finish")));
        eprintln!("flow {i}: fluid {:.3} ms, packet {:.3} ms", f * 1e3, p * 1e3);
        max_f = max_f.max(f);
        max_p = max_p.max(p);
        if (f - alone).abs() < 1e-9 {
            checked += 1;
            assert!((p - f).abs() / f < 0.10, "uncontended flow {i}: packet {p} s vs fluid {f} s");
        }
    }
    assert!(checked >= 3, "only {checked} uncontended flows");
    assert!((max_p - max_f).abs() / max_f < 0.10, "last finish: packet {max_p} s vs fluid {max_f} s");
}

#[test]
fn two_flows_share_then_the_survivor_speeds_up() {
    // 1 Gbps dumbbell, payload rate 1e9 * 1460/1500. Flow 0: 1 MB from 0; flow 1: 0.5 MB
    // from 0. Both at half rate until flow 1 ends (1 MB of joint payload), then flow 0 alone.
    let text = r#"
duration = "1s"
[topology]
kind = "dumbbell"
senders = 2
receivers = 1
link_rate = "1Gbps"
[[flows]]
src = ["h0", "h1"]
dst = "h2"
size = "1MB"
[[flows]]
src = "h1"
dst = "h2"
size = "500KB"
"#;
    let mut f = FluidSim::new(load(text, &[], "t").unwrap()).unwrap();
    f.run();
    let fct = fct_col(&f.flows_table());
    let c = 1e9 * 1460.0 / 1500.0 / 8.0; // payload bytes/s
    // Three flows on the bottleneck: 0.5 MB flow ends at 3 * 0.5e6 / c; the two 1 MB flows
    // then share it and end at (3 * 0.5e6 + 2 * 0.5e6) / c.
    let t1 = 1.5e6 / c;
    let t2 = 2.5e6 / c;
    assert!((fct[2].unwrap() - t1).abs() < 1e-9, "{fct:?}");
    assert!((fct[0].unwrap() - t2).abs() < 1e-9 && (fct[1].unwrap() - t2).abs() < 1e-9, "{fct:?}");
    assert!(f.is_finished());
}
