//! Traces every BBR flow's model over time, as CSV on stdout, to see how flows share a
//! bottleneck: `cargo run --release --example bbr_trace -- FILE EVERY_US [key=value ...]`,
//! e.g. `... scenarios/emulate/dumbbell_100m.toml 1000 transport.cc=bbr topology.senders=4
//! 'flows.0.src=["h0","h1","h2","h3"]' flows.0.dst=\"h4\"`. One row per flow per step:
//! `time_s,flow,mode,pacing_gain,btl_bw_bps,pacing_bps,min_rtt_us,cwnd,extra_acked,acked,retransmits`
//! (`btl_bw_bps` and `pacing_bps` in bit/s; `cwnd`, `extra_acked`, the ACK aggregation
//! allowance in the window's target, and `acked`, the bytes cumulatively acknowledged so
//! far, in bytes).

use corral::run::Run;
use corral::transport::cc::AnyCc;
use corral::units::Time;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: bbr_trace FILE EVERY_US [key=value ...]");
        std::process::exit(2);
    }
    let fail = |msg: String| -> ! {
        eprintln!("error: {msg}");
        std::process::exit(2)
    };
    let text =
        std::fs::read_to_string(&args[0]).unwrap_or_else(|e| fail(format!("{}: {e}", args[0])));
    let every = Time::from_us(
        args[1].parse().unwrap_or_else(|_| fail(format!("EVERY_US: not a number: {}", args[1]))),
    );
    let run = Run::load(&text, &args[2..], &args[0]).unwrap_or_else(|e| fail(e.to_string()));
    let Run::Packet(mut sim) = run else { fail("a packet-mode scenario is needed".into()) };
    let duration = sim.scenario.duration;
    println!(
        "time_s,flow,mode,pacing_gain,btl_bw_bps,pacing_bps,min_rtt_us,cwnd,extra_acked,acked,retransmits"
    );
    let mut t = Time::ZERO;
    while t <= duration {
        sim.run_until(t);
        let secs = t.0 as f64 / 1e12;
        for (i, f) in sim.flows.iter().enumerate() {
            let AnyCc::Bbr(b) = f.sender.cc().kind() else { continue };
            let rtt = b.min_rtt().map_or(f64::NAN, |r| r.0 as f64 / 1e6);
            let acked = f.sender.progress().1;
            let pacing = f.sender.cc().pacing_rate().map_or(f64::NAN, |r| r * 8.0);
            println!(
                "{secs},{i},{:?},{},{},{pacing},{rtt},{},{},{acked},{}",
                b.mode(),
                b.pacing_gain(),
                b.btl_bw() * 8.0,
                f.sender.cc().window(),
                b.extra_acked(),
                f.sender.stats.retransmits
            );
        }
        t = t + every;
    }
}
