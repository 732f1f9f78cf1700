//! pFabric (Alizadeh et al., SIGCOMM 2013): remaining-size priorities at the switches and
//! hosts sending a bandwidth-delay product at once complete short flows near their ideal.

use crate::common;

/// Web-search flows from 8 senders into h8 at 60 % of its 10 Gbps link (10 us links: base
/// RTT about 65 us, one BDP about 50 packets). pFabric: 100-packet (2 BDP) buffers serving
/// and dropping by priority, initial window 50 packets, RTO 200 us (about 3 RTTs).
const PFABRIC: &str = r#"
seed = 3
duration = "400ms"
[topology]
kind = "dumbbell"
senders = 8
receivers = 1
link_rate = "10Gbps"
link_delay = "10us"
[switch]
buffer = "100pkt"
queue = "pfabric"
[transport]
cc = "pfabric"
initial_window = 50
min_rto = "200us"
[[traffic]]
pattern = "many_to_one"
dst = "h8"
size = { cdf = "websearch" }
load = 0.6
"#;

fn short_slowdown(sim: &corral::Simulation) -> (f64, f64) {
    let s = &sim.summary()["fct_by_size"][0];
    assert_eq!(s["bucket"], "<100KB");
    assert_eq!(s["finished"], s["flows"], "every short flow finished");
    (s["slowdown"]["mean"].as_f64().unwrap(), s["slowdown"]["p99"].as_f64().unwrap())
}

// Flows below 100 KB: mean slowdown (FCT / ideal FCT) at most 1.2 and p99 at most 2 under
// pFabric; DCTCP on the same arrivals (ECN at 65 of 200 packets) is at least twice as slow
// on average.
#[test]
fn short_flows_finish_near_their_ideal() {
    let pfabric = common::run(PFABRIC, &[]);
    let (mean, p99) = short_slowdown(&pfabric);
    assert!(mean <= 1.2 && p99 <= 2.0, "pFabric: mean {mean:.2}, p99 {p99:.2}");
    let dctcp = common::run(PFABRIC, &["switch.queue=ecn", "switch.ecn_threshold=65pkt", "switch.buffer=200pkt", "transport.cc=dctcp", "transport.ecn=true", "transport.initial_window=10", "transport.min_rto=1ms"]);
    let (dmean, _) = short_slowdown(&dctcp);
    assert!(dmean >= 2.0 * mean, "DCTCP {dmean:.2} vs pFabric {mean:.2}");
}
