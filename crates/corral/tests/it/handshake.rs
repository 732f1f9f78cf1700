//! `transport.handshake_rtt`: the RTT sample a flow's connection handshake gives its sender.
//!
//! Setup: a 100 Mbps dumbbell (10 us links, 100-packet buffers); flows 0 and 1 from h0 and
//! h1 (unbounded, NewReno) from time 0 keep a queue at the bottleneck sw0:3; flow 2 from h2
//! starts at 30 ms. Its first RTT sample, read right after its start, is compared with the unloaded round trip
//! of 40-byte packets over its path (3 links each way: 3 x 3.2 us serialization and 10 us
//! propagation, 39.6 us a way) and with the wait behind the packets queued at that moment.

use crate::common;
use corral::units::Time;

const UNLOADED_RTT: Time = Time::from_ns(79_200);

/// Flow 2's RTT estimate just after its start with `transport.handshake_rtt = rule`, and the
/// wait a packet entering the bottleneck just before that start had ahead of it.
fn handshake(rule: &str) -> (Option<Time>, Time) {
    let text = r#"
name = "handshake"
duration = "40ms"
[topology]
kind = "dumbbell"
senders = 3
receivers = 1
link_rate = "100Mbps"
link_delay = "10us"
[switch]
buffer = "100pkt"
[transport]
mss = 1460
header = 40
[[flows]]
src = ["h0", "h1"]
dst = "h3"
[[flows]]
src = "h2"
dst = "h3"
start = "30ms"
"#;
    let ov = [format!("transport.handshake_rtt={rule}")];
    let sc = corral::scenario::load(text, &ov, "test").unwrap_or_else(|e| panic!("{e}"));
    let mut sim = corral::Simulation::new(sc).unwrap_or_else(|e| panic!("{e}"));
    let start = Time::from_ms(30);
    sim.run_until(start - Time::from_ns(1));
    let p = sim.net.port_by_name("sw0:3").expect("the bottleneck");
    let port = &sim.net.ports[p.idx()];
    let wait = port.busy_until.saturating_sub(start)
        + port.rate().tx_time(corral::net::queue::Discipline::bytes(&port.queue));
    sim.run_until(start + Time::from_ns(1));
    (sim.flows[2].sender.srtt(), wait)
}

#[test]
fn a_flow_that_starts_behind_a_queue_measures_it_in_its_handshake() {
    let (loaded, wait) = handshake("\"loaded\"");
    // Flows 0 and 1 keep tens of packets of 120 us each queued at sw0:3.
    assert!(wait > Time::from_ms(2), "a queue at the bottleneck: {wait:?}");
    // The handshake's sample is the unloaded round trip plus that wait, plus at most the rest
    // of a data packet on the wire at sw1's port to h3 (120 us) and the few ACKs queued on the
    // way back (3.2 us each).
    let loaded = loaded.expect("a handshake sample");
    let extra = loaded - UNLOADED_RTT;
    assert!(
        extra >= wait && extra <= wait + Time::from_us(150),
        "{loaded:?} = {UNLOADED_RTT:?} + {wait:?}?"
    );
    // `true` is `loaded`.
    assert_eq!(handshake("true").0, Some(loaded));
}

#[test]
fn the_unloaded_rule_ignores_the_queue_and_off_gives_no_sample() {
    assert_eq!(handshake("\"unloaded\"").0, Some(UNLOADED_RTT));
    assert_eq!(handshake("false").0, None);
    assert_eq!(handshake("\"off\"").0, None);
}

#[test]
fn a_bad_value_names_the_key() {
    let err = corral::scenario::load(
        "name = \"x\"\n[topology]\nkind = \"dumbbell\"\nsenders = 1\nreceivers = 1\nlink_rate = \"1Gbps\"\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n",
        &["transport.handshake_rtt=\"sometimes\"".to_string()],
        "test",
    )
    .map(|_| ())
    .expect_err("refused")
    .to_string();
    assert!(err.contains("handshake_rtt") && err.contains("\"loaded\""), "{err}");
    let _ = common::CLASSIC_TCP;
}
