//! pFabric (Alizadeh et al., SIGCOMM 2013): remaining-size priorities at the switches and
//! hosts sending a bandwidth-delay product at once complete short flows near their ideal.

use crate::common;

/// Web-search flows from 8 senders into h8 at 60 % of its 10 Gbps link (10 us links: base
/// RTT about 65 us, one BDP about 50 packets). pFabric: 100-packet (2 BDP) buffers serving
/// and dropping by priority, initial window 50 packets, RTO 200 us (about 3 RTTs).
fn pfabric_scenario() -> String {
    common::websearch_into_h8(
        0.6,
        "buffer = \"100pkt\"\nqueue = \"pfabric\"",
        "cc = \"pfabric\"\ninitial_window = 50\nmin_rto = \"200us\"",
        "",
    )
}

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
    let pfabric = common::run(&pfabric_scenario(), &[]);
    let (mean, p99) = short_slowdown(&pfabric);
    assert!(mean <= 1.2 && p99 <= 2.0, "pFabric: mean {mean:.2}, p99 {p99:.2}");
    let dctcp = common::run(
        &pfabric_scenario(),
        &[
            "switch.queue=ecn",
            "switch.ecn_threshold=65pkt",
            "switch.buffer=200pkt",
            "transport.cc=dctcp",
            "transport.ecn=true",
            "transport.initial_window=10",
            "transport.min_rto=1ms",
        ],
    );
    let (dmean, _) = short_slowdown(&dctcp);
    assert!(dmean >= 2.0 * mean, "DCTCP {dmean:.2} vs pFabric {mean:.2}");
}
