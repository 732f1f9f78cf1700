//! Traces one flow's congestion window and one port's queue over time, as CSV on stdout (the
//! same columns as `bench/ns3_dumbbell.py`'s `cwnd_trace`, for a side-by-side look):
//! `cargo run --release --example cwnd_trace -- FILE FLOW PORT EVERY_US [key=value ...]`,
//! e.g. `... bench/dumbbell_newreno.toml 0 sw0:8 10 duration=1s`. Rows: `kind,time_s,value`
//! with `cwnd` (bytes, whenever it changed since the last step; `ssthresh` likewise) and
//! `queue` (packets, every step).

mod trace_args;

use corral::net::queue::Discipline;
use corral::units::Time;
use trace_args::fail;

fn main() {
    let (mut sim, pos, every) =
        trace_args::load("cwnd_trace FILE FLOW PORT EVERY_US [key=value ...]", 3);
    let flow: usize =
        pos[0].parse().unwrap_or_else(|_| fail(format!("FLOW: not a number: {}", pos[0])));
    let port =
        sim.net.port_by_name(&pos[1]).unwrap_or_else(|| fail(format!("PORT: no port {}", pos[1])));
    if flow >= sim.flows.len() {
        fail(format!("FLOW: the run has {} flows", sim.flows.len()));
    }
    let duration = sim.scenario.duration;
    println!("kind,time_s,value");
    let (mut cwnd, mut ssthresh) = (0, 0);
    let mut t = Time::ZERO;
    while t <= duration {
        sim.run_until(t);
        let st = sim.flows[flow].sender.cc().state();
        let secs = t.0 as f64 / 1e12;
        if st.cwnd != cwnd {
            cwnd = st.cwnd;
            println!("cwnd,{secs},{cwnd}");
        }
        if st.ssthresh != ssthresh {
            ssthresh = st.ssthresh;
            println!("ssthresh,{secs},{}", ssthresh.min(u32::MAX as u64));
        }
        println!("queue,{secs},{}", sim.net.ports[port.idx()].queue.packets());
        t = t + every;
    }
}
