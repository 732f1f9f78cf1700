//! Traces every flow's sender state over time, as CSV on stdout, to compare how flows share a
//! bottleneck with `bench/ns3_dumbbell.py`'s `flow_trace` (the same quantities where both
//! sides have them): `cargo run --release --example flow_trace -- FILE EVERY_US [key=value ...]`,
//! e.g. `... bench/dumbbell_newreno.toml 1000 transport.cc=dctcp transport.ecn=true
//! 'switch.queue="ecn"' 'switch.ecn_threshold="20pkt"'`. One row per flow per step:
//! `time_s,flow,cwnd,ssthresh,in_flight,in_recovery,acked,alpha,alpha_updates,bytes_delivered,
//! bytes_marked,ecn_cuts,fast_recoveries,timeouts,retransmits,pacing_bps,pacing_gain,
//! min_rtt_us,btl_bw_bps,mode,extra_acked,srtt_us`: bytes for the window and the data (`in_flight` is
//! `snd_nxt - snd_una`, `acked` the bytes cumulatively acknowledged), counters since the
//! start, DCTCP's estimate with its updates and the bytes it counted delivered and marked
//! (empty for other controllers), and BBR's model (empty for other controllers; rates in
//! bit/s; `extra_acked` the ACK aggregation allowance in the window's target, bytes).

mod trace_args;

use corral::transport::cc::AnyCc;
use corral::units::Time;

fn main() {
    let (mut sim, _, every) = trace_args::load("flow_trace FILE EVERY_US [key=value ...]", 1);
    let duration = sim.scenario.duration;
    println!(
        "time_s,flow,cwnd,ssthresh,in_flight,in_recovery,acked,alpha,alpha_updates,bytes_delivered,\
         bytes_marked,ecn_cuts,fast_recoveries,timeouts,retransmits,pacing_bps,pacing_gain,\
         min_rtt_us,btl_bw_bps,mode,extra_acked,srtt_us"
    );
    let mut t = Time::ZERO;
    while t <= duration {
        sim.run_until(t);
        let secs = t.0 as f64 / 1e12;
        for (i, f) in sim.flows.iter().enumerate() {
            let s = &f.sender;
            let (_, una, nxt) = s.progress();
            let dctcp = match s.cc().kind() {
                AnyCc::Dctcp(d) => {
                    let (windows, delivered, marked) = d.observed();
                    format!("{},{windows},{delivered},{marked}", d.alpha())
                }
                _ => ",,,".into(),
            };
            let bbr = match s.cc().kind() {
                AnyCc::Bbr(b) => format!(
                    "{},{},{},{:?},{}",
                    b.pacing_gain(),
                    b.min_rtt().map_or(f64::NAN, |r| r.0 as f64 / 1e6),
                    b.btl_bw() * 8.0,
                    b.mode(),
                    b.extra_acked()
                ),
                _ => ",,,,".into(),
            };
            let pacing = s.cc().pacing_rate().map_or(String::new(), |r| (r * 8.0).to_string());
            let srtt = s.srtt().map_or(f64::NAN, |r| r.0 as f64 / 1e6);
            let st = &s.stats;
            let (bbr_gain, bbr_rest) = bbr.split_once(',').expect("five fields");
            println!(
                "{secs},{i},{},{},{},{},{una},{dctcp},{},{},{},{},{pacing},{bbr_gain},{bbr_rest},{srtt}",
                s.cc().window(),
                s.cc().ssthresh(),
                nxt - una,
                s.in_recovery() as u8,
                st.ecn_cuts,
                st.fast_recoveries,
                st.timeouts,
                st.retransmits
            );
        }
        t = t + every;
    }
}
