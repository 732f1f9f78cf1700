//! Loss recovery of one TCP connection over a lossless path with chosen drops: SACK (RFC
//! 6675) against NewReno (RFC 6582), and limited transmit (RFC 3042). The path sends one
//! data segment per `gap` (a bottleneck with a queue that never overflows) and adds a fixed
//! one-way delay each way, so every difference comes from the sender's rules. The last test
//! is a whole scenario: TCP Outcast Case I with and without SACK.

use corral::transport::{AckOut, Segment, TcpConfig, TcpReceiver, TcpSender};
use corral::units::Time;
use std::collections::{BTreeMap, HashSet};

const MSS: u64 = 1000;

enum Ev {
    Data(Segment),
    Ack(AckOut),
}

/// How the connection ended.
#[derive(Debug)]
struct Outcome {
    timeouts: u64,
    fast_recoveries: u64,
    finish: Time,
}

/// Sends `segments` segments, one per `gap`, with one-way delay `owd`; the first
/// transmission of each segment index in `drop` is lost.
fn run(cfg: &TcpConfig, segments: u64, owd: Time, drop: &[u64]) -> Outcome {
    let gap = Time::from_us(100);
    let mut link_free = Time::ZERO;
    let mut s = TcpSender::new(cfg, Some(segments * MSS));
    s.seed_rtt(owd + owd);
    let mut r = TcpReceiver::new(1, false).with_sack(cfg.sack);
    let mut dropped: HashSet<u64> = HashSet::new();
    let mut events: BTreeMap<(Time, u64), Ev> = BTreeMap::new();
    let mut seq_no = 0u64;
    let mut now = Time::ZERO;
    let mut out = Vec::new();
    let mut push = |events: &mut BTreeMap<(Time, u64), Ev>, at: Time, e: Ev| {
        seq_no += 1;
        events.insert((at, seq_no), e);
    };
    s.start(now, &mut out);
    loop {
        for seg in out.drain(..) {
            let idx = seg.seq / MSS;
            link_free = link_free.max(now) + gap;
            if drop.contains(&idx) && dropped.insert(idx) {
                continue;
            }
            push(&mut events, link_free + owd, Ev::Data(seg));
        }
        if s.finished() {
            break;
        }
        let next = events.first_key_value().map(|(k, _)| k.0);
        match (next, s.rto_deadline()) {
            (Some(t), Some(d)) if d < t => {
                now = d;
                s.on_rto(now, &mut out);
            }
            (Some(_), _) => {
                let ((t, _), ev) = events.pop_first().unwrap();
                now = t;
                match ev {
                    Ev::Data(seg) => {
                        let mut acks = Vec::new();
                        r.on_data(seg.seq, seg.len, false, false, now, &mut acks);
                        for a in acks {
                            push(&mut events, now + owd, Ev::Ack(a));
                        }
                    }
                    Ev::Ack(a) => s.on_ack_sack(now, a.ack, false, a.ts_echo, a.sack.as_slice(), &mut out),
                }
            }
            (None, Some(d)) => {
                now = d;
                s.on_rto(now, &mut out);
            }
            (None, None) => panic!("stalled at {now:?}"),
        }
        assert!(now < Time::from_ms(100_000), "no progress");
    }
    Outcome { timeouts: s.stats.timeouts, fast_recoveries: s.stats.fast_recoveries, finish: now }
}

fn cfg(sack: bool, limited_transmit: bool) -> TcpConfig {
    TcpConfig { mss: MSS as u32, sack, limited_transmit, ..TcpConfig::default() }
}

/// Three losses in one window, on a path whose round trip R (150 ms) is above half the RTO
/// (Linux's 200 ms minimum, which the RTO settles at). NewReno repairs one hole per round
/// trip and its "Impatient" timer, restarted only by the first partial ACK, expires before
/// the third repair (2R > RTO): a timeout. SACK resends the three holes in the first round
/// trip, whose ACKs come R after the last ACK that restarted the timer.
#[test]
fn three_losses_in_one_window_need_a_timeout_without_sack_and_none_with_it() {
    let owd = Time::from_ms(75);
    let newreno = run(&cfg(false, false), 40, owd, &[10, 11, 12]);
    let sack = run(&cfg(true, false), 40, owd, &[10, 11, 12]);
    assert_eq!((newreno.fast_recoveries, newreno.timeouts), (1, 1), "{newreno:?}");
    assert_eq!((sack.fast_recoveries, sack.timeouts), (1, 0), "{sack:?}");
    assert!(sack.finish < newreno.finish);
}

/// The same burst on a data-centre path (100 us round trip, RTO 200 ms): NewReno has the time
/// to repair hole after hole.
#[test]
fn on_a_short_path_both_recover_without_a_timeout() {
    let owd = Time::from_us(50);
    let newreno = run(&cfg(false, false), 40, owd, &[10, 11, 12]);
    let sack = run(&cfg(true, false), 40, owd, &[10, 11, 12]);
    assert_eq!((newreno.fast_recoveries, newreno.timeouts), (1, 0));
    assert_eq!((sack.fast_recoveries, sack.timeouts), (1, 0));
}

/// A window of 3 segments (the initial window) with its first segment lost: two duplicate
/// ACKs only. Without limited transmit the sender waits for the timeout; with it, each
/// duplicate releases a new segment, whose duplicate ACK is the third: fast retransmit.
/// (In a window of 4 with one loss three duplicates come anyway; 3 is where it matters.)
#[test]
fn limited_transmit_turns_a_timeout_into_a_fast_retransmit() {
    let mut off = cfg(false, false);
    off.initial_window = 3;
    let mut on = off.clone();
    on.limited_transmit = true;
    let owd = Time::from_us(50);
    let without = run(&off, 20, owd, &[0]);
    let with = run(&on, 20, owd, &[0]);
    assert_eq!((without.fast_recoveries, without.timeouts), (0, 1), "{without:?}");
    assert_eq!((with.fast_recoveries, with.timeouts), (1, 0), "{with:?}");
}

/// TCP Outcast Case I (the shipped case1_12.toml: one 2-hop and twelve 6-hop flows into
/// h0, 16 KB drop-tail queues), seeds 1-5, 0.5 s: the median over seeds of 2-hop goodput
/// over the 6-hop mean, with SACK and limited transmit (as the paper's Linux testbed) and
/// without. Pinned: with them the 2-hop flow is shut out further, close to the paper's
/// 1/7; without, corral's median is 0.42 (README, "TCP Outcast").
#[test]
fn outcast_case1_with_sack_moves_towards_the_papers_one_seventh() {
    let median_ratio = |sack: bool| {
        let mut ratios: Vec<f64> = (1..=5)
            .map(|seed| {
                let text = crate::common::outcast_case1(seed, "0.5s", "queue = \"taildrop\"");
                let ov = [format!("transport.sack={sack}"), format!("transport.limited_transmit={sack}")];
                let ov: Vec<&str> = ov.iter().map(String::as_str).collect();
                let sim = crate::common::run(&text, &ov);
                let two = sim.flows[0].receiver.delivered() as f64;
                let six: f64 = sim.flows[1..].iter().map(|f| f.receiver.delivered() as f64).sum::<f64>() / 12.0;
                two / six
            })
            .collect();
        ratios.sort_by(f64::total_cmp);
        ratios[2]
    };
    let (without, with) = (median_ratio(false), median_ratio(true));
    eprintln!("Case I median ratio: {without:.3} without SACK, {with:.3} with SACK and limited transmit");
    assert!((0.35..0.5).contains(&without), "{without}");
    assert!(with < 0.2 && with < without / 2.0, "{with} vs {without}");
}
