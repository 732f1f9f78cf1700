mod common;

#[test]
fn one_flow_smoke() {
    let sim = common::run(&common::dumbbell(1, "1Gbps", 1, ""), &["switch.buffer=100pkt"]);
    let u = common::utilization(&sim, "sw0:1");
    let f = &sim.flows[0];
    eprintln!("util {u} delivered {} rto {} fr {} events {}", f.receiver.delivered(), f.sender.stats.timeouts, f.sender.stats.fast_recoveries, sim.events_processed());
    eprintln!("{}", sim.summary());
}
