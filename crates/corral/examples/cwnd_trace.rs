//! Traces one flow's congestion window and one port's queue over time, as CSV on stdout (the
//! same columns as `bench/ns3_dumbbell.py`'s `cwnd_trace`, for a side-by-side look):
//! `cargo run --release --example cwnd_trace -- FILE FLOW PORT EVERY_US [key=value ...]`,
//! e.g. `... bench/dumbbell_newreno.toml 0 sw0:8 10 duration=1s`. Rows: `kind,time_s,value`
//! with `cwnd` (bytes, whenever it changed since the last step; `ssthresh` likewise) and
//! `queue` (packets, every step).

use corral::net::queue::Discipline;
use corral::run::Run;
use corral::units::Time;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: cwnd_trace FILE FLOW PORT EVERY_US [key=value ...]");
        std::process::exit(2);
    }
    let fail = |msg: String| -> ! {
        eprintln!("error: {msg}");
        std::process::exit(2)
    };
    let text =
        std::fs::read_to_string(&args[0]).unwrap_or_else(|e| fail(format!("{}: {e}", args[0])));
    let flow: usize =
        args[1].parse().unwrap_or_else(|_| fail(format!("FLOW: not a number: {}", args[1])));
    let every = Time::from_us(
        args[3].parse().unwrap_or_else(|_| fail(format!("EVERY_US: not a number: {}", args[3]))),
    );
    let run = Run::load(&text, &args[4..], &args[0]).unwrap_or_else(|e| fail(e.to_string()));
    let Run::Packet(mut sim) = run else { fail("a packet-mode scenario is needed".into()) };
    let port = sim
        .net
        .port_by_name(&args[2])
        .unwrap_or_else(|| fail(format!("PORT: no port {}", args[2])));
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
