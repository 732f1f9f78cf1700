//! Unit tests of the TCP sender: NewReno and SACK recovery, PRR, RACK-TLP, pacing, ECN,
//! explicit rates and host credit; RFC 5681 section 3.2 step by step in [`rfc5681`].

use super::*;

const MSS: u64 = 1000;

fn cfg() -> TcpConfig {
    TcpConfig {
        mss: MSS as u32,
        initial_window: 10,
        min_rto: Time::from_ms(2),
        ..TcpConfig::classic()
    }
}

fn t(us: u64) -> Time {
    Time::from_us(us)
}

/// A sender with 10 segments in flight and one RTT sample of 100us.
fn primed() -> (TcpSender, Vec<Segment>) {
    let mut s = TcpSender::new(&cfg(), None);
    let mut out = Vec::new();
    s.start(t(0), &mut out);
    assert_eq!(out.len(), 10);
    out.clear();
    (s, out)
}

/// An unbounded NewReno sender limited by `limit`.
fn rate_limited(limit: RateLimit) -> TcpSender {
    let c = cfg();
    TcpSender::build(&c, &SenderSetup { rate: Some(limit), ..SenderSetup::tcp(&c, None) })
}

// Window::UntilRate: TCP's initial window limits the flow until the scheme sets its
// first rate; from then on the rate alone does (a deep bucket lets the backlog out).
#[test]
fn window_limits_only_until_the_first_rate() {
    let limit = RateLimit { bps: 1e12, depth: 100 * (MSS + 40), window: Window::UntilRate };
    let mut s = rate_limited(limit);
    let mut out = Vec::new();
    s.start(t(0), &mut out);
    assert_eq!(out.len(), 10, "the initial window");
    out.clear();
    s.resume(t(1), &mut out);
    assert!(out.is_empty(), "the window is full");
    s.set_rate(t(1), 1e12, None);
    s.resume(t(1), &mut out);
    assert!(out.len() > 50, "rate only after the first rate: {} segments", out.len());
}

// A scheme's window cap on a rate-only flow: bytes in flight stay under it (at least one
// segment), an ACK opens room again, and removing the cap leaves the rate alone.
#[test]
fn a_scheme_window_caps_a_rate_only_flow() {
    let limit = RateLimit { bps: 1e12, depth: 100 * (MSS + 40), window: Window::Off };
    let mut s = rate_limited(limit);
    s.set_window_cap(Some(4 * MSS));
    let mut out = Vec::new();
    s.start(t(0), &mut out);
    assert_eq!(out.len(), 4, "four segments fit the cap");
    out.clear();
    s.on_ack(t(100), MSS, false, t(0), &[], &mut out);
    assert_eq!(out.len(), 1, "one acked, one more sent");
    out.clear();
    s.set_window_cap(Some(10));
    s.on_ack(t(101), 4 * MSS, false, t(0), &[], &mut out);
    assert!(out.is_empty(), "one segment in flight fills a cap below one segment");
    s.on_ack(t(102), 5 * MSS, false, t(0), &[], &mut out);
    assert_eq!(out.len(), 1, "with none in flight it still lets one go");
    out.clear();
    s.set_window_cap(None);
    s.resume(t(103), &mut out);
    assert!(out.len() > 50, "without the cap the rate alone limits: {} segments", out.len());
}

#[test]
fn fast_retransmit_on_third_duplicate_ack() {
    let (mut s, mut out) = primed();
    s.on_ack(t(100), MSS, false, t(0), &[], &mut out); // segment 0 acked; slow start sends 2
    assert_eq!(out.len(), 2);
    out.clear();
    for i in 0..2 {
        s.on_ack(t(101 + i), MSS, false, t(0), &[], &mut out);
        assert!(!s.in_recovery());
    }
    assert!(out.is_empty());
    s.on_ack(t(103), MSS, false, t(0), &[], &mut out);
    assert!(s.in_recovery());
    assert_eq!(out[0], Segment { seq: MSS, len: MSS as u32, retransmit: true, cwr: false });
    // flight was 11 segments -> ssthresh 5.5 segments, cwnd = ssthresh + 3 MSS.
    assert_eq!(s.cc().ssthresh(), 5500);
    assert_eq!(s.cc().window(), 8500);
    assert_eq!(s.stats.fast_recoveries, 1);
}

#[test]
fn a_higher_duplicate_ack_threshold_waits_for_that_many() {
    let c = cfg();
    let mut s = TcpSender::build(&c, &SenderSetup { dupthresh: 5, ..SenderSetup::tcp(&c, None) });
    let mut out = Vec::new();
    s.start(t(0), &mut out);
    out.clear();
    for i in 0..4 {
        s.on_ack(t(100 + i), 0, false, t(0), &[], &mut out);
        assert!(!s.in_recovery(), "after {} duplicates", i + 1);
    }
    s.on_ack(t(104), 0, false, t(0), &[], &mut out);
    assert!(s.in_recovery());
    assert_eq!(out.last().map(|x| x.retransmit), Some(true));
}

#[test]
fn dupacks_inflate_and_full_ack_exits_recovery() {
    let (mut s, mut out) = primed();
    for i in 0..3 {
        s.on_ack(t(100 + i), 0, false, t(0), &[], &mut out);
    }
    assert!(s.in_recovery());
    let cwnd = s.cc().window();
    s.on_ack(t(104), 0, false, t(0), &[], &mut out);
    assert_eq!(s.cc().window(), cwnd + MSS);
    out.clear();
    // Partial ACK: the next hole is resent at once.
    s.on_ack(t(200), 2 * MSS, false, t(100), &[], &mut out);
    assert!(s.in_recovery());
    assert_eq!(out[0].seq, 2 * MSS);
    assert!(out[0].retransmit);
    // Full ACK covering everything sent before recovery started.
    let recover = 10 * MSS;
    s.on_ack(t(300), recover, false, t(200), &[], &mut out);
    assert!(!s.in_recovery());
    assert!(s.cc().window() <= s.cc().ssthresh());
}

#[test]
fn rto_backs_off_then_resets_on_new_ack() {
    let (mut s, mut out) = primed();
    s.on_ack(t(100), MSS, false, t(0), &[], &mut out);
    out.clear();
    let rto = s.rto();
    assert_eq!(rto, Time::from_ms(2)); // min_rto dominates a 100us RTT
    let d = s.rto_deadline().unwrap();
    s.on_rto(d, &mut out);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(s.cc().window(), MSS);
    assert_eq!(out, vec![Segment { seq: MSS, len: MSS as u32, retransmit: true, cwr: false }]);
    assert_eq!(s.rto(), Time::from_ms(4));
    assert_eq!(s.rto_deadline(), Some(d + Time::from_ms(4)));
    let d2 = s.rto_deadline().unwrap();
    out.clear();
    s.on_rto(d2, &mut out);
    assert_eq!(s.rto(), Time::from_ms(8));
    // A new ACK with an RTT sample resets the backoff.
    s.on_ack(d2 + t(100), 2 * MSS, false, d2, &[], &mut out);
    assert_eq!(s.rto(), Time::from_ms(2));
}

#[test]
fn ecn_echo_cuts_once_per_window_and_sets_cwr() {
    let mut c = cfg();
    c.ecn = true;
    c.ecn_response = EcnResponse::Instant;
    let mut s = TcpSender::new(&c, None);
    let mut out = Vec::new();
    s.start(t(0), &mut out);
    out.clear();
    s.on_ack(t(100), MSS, true, t(0), &[], &mut out);
    assert_eq!(s.stats.ecn_cuts, 1);
    assert_eq!(s.cc().window(), 4500); // NewReno halves the 9 segments still in flight
    assert!(out.is_empty(), "flight exceeds the reduced window");
    s.on_ack(t(101), 2 * MSS, true, t(0), &[], &mut out);
    assert_eq!(s.stats.ecn_cuts, 1, "second ECE in the same window is ignored");
    s.on_ack(t(102), 6 * MSS, false, t(0), &[], &mut out);
    assert_eq!(out[0].seq, 10 * MSS);
    assert!(out[0].cwr, "first new segment after the cut carries CWR");
    assert!(out[1..].iter().all(|seg| !seg.cwr));
}

/// Linux's CWR state (`transport.ecn_response = "cwr"`): on ECN-Echo ssthresh is
/// set at once, cwnd comes down to it by PRR over the next round trip (RecoverFS the window
/// before the echo), nothing grows until the ACK that passes `snd_max` as it was at the echo,
/// which sets cwnd = ssthresh.
#[test]
fn ecn_echo_reduces_the_window_over_the_next_round_trip() {
    let mut c = cfg();
    c.ecn = true;
    c.ecn_response = EcnResponse::Cwr;
    let (mut s, mut out) = started(&c, None);
    // The echo on the ACK of segment 0: NewReno's ssthresh is half the 9 segments in flight.
    // PRR lets ceil(1 x 4.5 / 10) of a segment go, at least one as nothing went yet: cwnd =
    // pipe + 1 segment, and segment 10 leaves with CWR.
    s.on_ack(t(100), MSS, true, t(0), &[], &mut out);
    assert_eq!(s.stats.ecn_cuts, 1);
    assert_eq!((s.cc().window(), s.cc().ssthresh()), (10 * MSS, 4500));
    assert_eq!(out.iter().map(|g| (g.seq / MSS, g.cwr)).collect::<Vec<_>>(), [(10, true)]);
    // The ACKs of segments 1 to 9, CE or not: about one segment sent for every two
    // delivered (4.5 of 10), no growth, no second reduction.
    out.clear();
    for k in 2..=10u64 {
        s.on_ack(t(100 + k), k * MSS, k % 2 == 0, t(0), &[], &mut out);
        assert!(s.cc().window() <= 10 * MSS, "no growth in CWR");
    }
    assert_eq!(s.stats.ecn_cuts, 1);
    // PRR's count: ceil(10 x 4500 / 10000) = 5 segments in all over 10 delivered.
    assert_eq!(out.len(), 4, "segments 11-14");
    // The ACK of segment 10 passes snd_max at the echo: cwnd = ssthresh, and the window grows
    // again from this ACK on (congestion avoidance counts it, as Linux's tcp_cong_control
    // does once the CWR state has ended).
    out.clear();
    s.on_ack(t(200), 11 * MSS, false, t(100), &[], &mut out);
    assert_eq!((s.cc().window(), s.cc().state().ca_acked), (4500, MSS));
    s.on_ack(t(201), 12 * MSS, false, t(100), &[], &mut out);
    assert_eq!(s.cc().state().ca_acked, 2 * MSS, "growing again");
}

/// An echo on the ACK that ends a reduction starts the next one at once (Linux re-enters CWR
/// from `tcp_try_to_open` on the same ACK).
#[test]
fn an_echo_on_the_ack_that_ends_a_reduction_starts_the_next() {
    let mut c = cfg();
    c.ecn = true;
    c.ecn_response = EcnResponse::Cwr;
    let (mut s, mut out) = started(&c, None);
    s.on_ack(t(100), MSS, true, t(0), &[], &mut out);
    for k in 2..=10u64 {
        s.on_ack(t(100 + k), k * MSS, false, t(0), &[], &mut out);
    }
    s.on_ack(t(200), 11 * MSS, true, t(100), &[], &mut out);
    assert_eq!(s.stats.ecn_cuts, 2);
    // The first reduction ended at 4500; in flight then, segments 11-14: ssthresh 2 segments.
    // The new reduction's first step lets one segment go: cwnd = the pipe (4) + 1.
    assert_eq!(s.cc().ssthresh(), 2 * MSS);
    assert_eq!(s.cc().window(), 5 * MSS);
}

/// DCTCP under the CWR state on a 10-segment window with alpha = 1 (the initial value): the
/// window ends at ssthresh = 5 segments after one round trip, not at once as by default.
#[test]
fn dctcp_reduces_to_its_ssthresh_by_the_end_of_the_round_trip() {
    let c = TcpConfig {
        ecn: true,
        ecn_response: EcnResponse::Cwr,
        cc: CcConfig::Dctcp(Default::default()),
        ..cfg()
    };
    let (mut s, mut out) = started(&c, None);
    s.on_ack(t(100), MSS, true, t(0), &[], &mut out);
    assert_eq!((s.cc().window(), s.cc().ssthresh()), (10 * MSS, 5 * MSS));
    for k in 2..=11u64 {
        s.on_ack(t(100 + k), k * MSS, false, t(0), &[], &mut out);
    }
    assert_eq!(s.cc().window(), 5 * MSS);
    // With the instant response the window is 5 segments from the echo on.
    let c = TcpConfig { ecn_response: EcnResponse::Instant, ..c };
    let (mut s, mut out) = started(&c, None);
    s.on_ack(t(100), MSS, true, t(0), &[], &mut out);
    assert_eq!(s.cc().window(), 5 * MSS);
}

/// A loss recovery that starts during the reduction takes the window over (its own PRR), and
/// a timeout ends the reduction too.
#[test]
fn a_recovery_or_a_timeout_ends_the_ecn_reduction() {
    let c = TcpConfig { ecn: true, ecn_response: EcnResponse::Cwr, ..prr_cfg(10) };
    let (mut s, mut out) = started(&c, None);
    s.on_ack(t(100), MSS, true, t(0), &[], &mut out);
    assert!(s.cwr.is_some());
    // Segment 1 is lost: three SACKed segments above it start a recovery.
    for k in 2..5u64 {
        s.on_ack(t(100 + k), MSS, false, t(0), &[(2 * MSS, (k + 1) * MSS)], &mut out);
    }
    assert!(s.in_recovery() && s.cwr.is_none());
    assert_eq!(s.cc().ssthresh(), 4500, "the ECN reduction's ssthresh stands for this window");
    let (mut s, mut out) =
        started(&TcpConfig { ecn: true, ecn_response: EcnResponse::Cwr, ..cfg() }, None);
    s.on_ack(t(100), MSS, true, t(0), &[], &mut out);
    let rto = s.rto_deadline().unwrap();
    s.on_rto(rto, &mut out);
    assert!(s.cwr.is_none());
}

#[test]
fn credit_limits_new_segments_until_resumed() {
    let mut s = TcpSender::new(&cfg(), None);
    let mut out = Vec::new();
    s.set_credit(2);
    s.start(t(0), &mut out);
    assert_eq!(out.len(), 2, "only two segments may go to the NIC");
    assert!(s.can_send(), "the window still has room");
    s.set_credit(3);
    s.resume(t(1), &mut out);
    assert_eq!(out.len(), 5);
    assert_eq!(out[4].seq, 4 * MSS);
}

#[test]
fn sized_flow_finishes_and_stops_timer() {
    let mut s = TcpSender::new(&cfg(), Some(2500));
    let mut out = Vec::new();
    s.start(t(0), &mut out);
    assert_eq!(out.iter().map(|x| x.len).collect::<Vec<_>>(), vec![1000, 1000, 500]);
    s.on_ack(t(100), 2500, false, t(0), &[], &mut out);
    assert!(s.finished());
    assert_eq!(s.rto_deadline(), None);
}

/// A paced sender with a 100us handshake RTT sample: cwnd 10 x 1000 B per 100 us is one
/// segment every 10 us at gain 1.
fn paced(gain: f64) -> TcpSender {
    let mut c = cfg();
    c.pacing = true;
    c.pacing_gain = gain;
    let mut s = TcpSender::new(&c, None);
    s.seed_rtt(t(100));
    s
}

#[test]
fn pacing_releases_one_segment_per_interval() {
    let mut s = paced(1.0);
    let mut out = Vec::new();
    s.start(t(0), &mut out);
    assert_eq!(out.len(), 1, "the initial window is paced, not burst");
    assert_eq!(s.pacing_interval(MSS), Some(t(10)));
    assert_eq!(s.pacing_deadline(t(0)), Some(t(10)));
    assert!(!s.can_send_at(t(9)) && s.can_send_at(t(10)));
    s.resume(t(9), &mut out);
    assert_eq!(out.len(), 1, "too early: held back");
    for k in 1..10 {
        s.resume(t(10 * k), &mut out);
        assert_eq!(out.len(), k as usize + 1, "slot {k}");
        assert_eq!(out[k as usize].seq, k * MSS);
    }
    // The window is now full: no pacing timer is needed until an ACK opens it.
    assert_eq!(s.pacing_deadline(t(90)), None);
    assert!(!s.can_send());
}

#[test]
fn pacing_gain_and_cwnd_set_the_rate() {
    let s = paced(2.0);
    assert_eq!(s.pacing_interval(MSS), Some(t(5)));
    assert_eq!(s.pacing_interval(500), Some(Time::from_ns(2500)));
    // Twice the window, twice the rate.
    let c = TcpConfig { pacing: true, initial_window: 20, ..cfg() };
    let mut s = TcpSender::new(&c, None);
    s.seed_rtt(t(100));
    assert_eq!(s.cc().window(), 20 * MSS);
    assert_eq!(s.pacing_interval(MSS), Some(t(5)));
    // Pacing off: no interval at all.
    assert_eq!(TcpSender::new(&cfg(), None).pacing_interval(MSS), None);
}

#[test]
fn pacing_waits_for_an_rtt_estimate() {
    let mut c = cfg();
    c.pacing = true;
    let mut s = TcpSender::new(&c, None);
    let mut out = Vec::new();
    s.start(t(0), &mut out);
    assert_eq!(out.len(), 10, "no srtt yet: the initial window goes unpaced");
    assert_eq!(s.pacing_deadline(t(0)), None);
    // The first ACK gives srtt = 100us: from now on one segment per srtt / cwnd.
    out.clear();
    s.on_ack(t(100), MSS, false, t(0), &[], &mut out);
    assert_eq!(out.len(), 1, "slow start would send 2; pacing lets one go");
    assert!(s.pacing_deadline(t(100)).is_some_and(|d| d > t(100)));
}

#[test]
fn paced_fast_retransmit_waits_for_its_slot_and_rto_cancels_it() {
    let mut s = paced(1.0);
    let mut out = Vec::new();
    s.start(t(0), &mut out);
    for k in 1..10 {
        s.resume(t(10 * k), &mut out);
    }
    out.clear();
    // Segment 0 is lost: three duplicate ACKs right after the last paced send at 90us.
    for i in 0..3 {
        s.on_ack(t(95 + i), 0, false, t(0), &[], &mut out);
    }
    assert!(s.in_recovery());
    assert!(out.is_empty(), "the retransmission waits for the pacing slot");
    let d = s.pacing_deadline(t(97)).expect("a pending retransmission needs the timer");
    assert_eq!(d, t(100));
    s.resume(d, &mut out);
    assert_eq!(out[0], Segment { seq: 0, len: MSS as u32, retransmit: true, cwr: false });
    assert_eq!(out.len(), 1, "one segment per slot");
    // A partial ACK asks for the next hole while the clock holds: then the RTO fires and
    // go-back-N resends from snd_una; the stale fast-recovery request is dropped.
    out.clear();
    s.on_ack(d + t(1), 2 * MSS, false, t(0), &[], &mut out);
    assert!(out.is_empty());
    assert!(s.pacing_deadline(d + t(1)).is_some());
    let rto = s.rto_deadline().unwrap();
    s.on_rto(rto, &mut out);
    assert_eq!(out, vec![Segment { seq: 2 * MSS, len: MSS as u32, retransmit: true, cwr: false }]);
    assert!(!s.retx_pending);
    assert_eq!(s.stats.retransmits, 2);
}

/// SACK with RFC 6675's conservative recovery (`recovery = "classic"`).
fn sack_cfg(initial_window: u32) -> TcpConfig {
    TcpConfig { sack: true, initial_window, ..cfg() }
}

/// SACK with PRR (the default recovery) and limited transmit off.
fn prr_cfg(initial_window: u32) -> TcpConfig {
    TcpConfig { sack: true, recovery: Recovery::Prr, initial_window, ..cfg() }
}

#[test]
fn prr_spreads_the_reduction_over_the_acks_and_ends_at_ssthresh() {
    // Segment 0 of 0..19 is lost; every later segment is SACKed by its duplicate ACK.
    // RecoverFS 20, ssthresh 10: PRR sends one segment for every two delivered; RFC
    // 6675's rule (cwnd = 10 at once) sends nothing new until the pipe falls below 10.
    let new_after = |c: &TcpConfig, acks: u64| {
        let (mut s, mut out) = started(c, None);
        for k in 1..=acks {
            dup(&mut s, 100 + k, 0, MSS, (k + 1) * MSS, &mut out);
        }
        let new: Vec<u64> = out.iter().filter(|x| !x.retransmit).map(|x| x.seq / MSS).collect();
        (s, new)
    };
    let (s, prr) = new_after(&prr_cfg(20), 3);
    assert!(s.in_recovery(), "IsLost(0) after three SACKed segments");
    assert_eq!(s.cc().ssthresh(), 10 * MSS);
    assert_eq!(s.stats.retransmits, 1, "the fast retransmission goes at once");
    assert!(prr.is_empty());
    // PRR counts what is delivered from the ACK that started recovery on. After the 7th
    // ACK, 5 delivered: ceil(5 * 10 / 20) = 3 segments, the retransmission and 20, 21.
    let (mut s, prr) = new_after(&prr_cfg(20), 7);
    assert_eq!(prr, vec![20, 21]);
    assert_eq!(new_after(&sack_cfg(20), 7).1, Vec::<u64>::new(), "the pipe is still 13");
    // The ACK of everything sent before recovery ends it with cwnd = ssthresh.
    let mut out = Vec::new();
    s.on_ack(t(300), 20 * MSS, false, t(200), &[], &mut out);
    assert!(!s.in_recovery());
    assert_eq!(s.cc().window(), 10 * MSS);
}

#[test]
fn prr_with_heavy_losses_sends_what_is_delivered_and_one_more_on_a_partial_ack() {
    // Segments 0-5 of 0..9 are lost: 6-9 SACKed. The pipe falls below ssthresh and the
    // reduction bound rules: a SACK delivers one segment and lets one go (PRR-CRB).
    let (mut s, mut out) = started(&prr_cfg(10), None);
    for k in 6..10u64 {
        dup(&mut s, 100 + k, 0, 6 * MSS, (k + 1) * MSS, &mut out);
    }
    assert!(s.in_recovery());
    let (delivered, sent) = s.prr.as_ref().unwrap().progress();
    // Recovery started with the third SACKed segment: two delivered since, two sent.
    assert_eq!((delivered, sent), (2 * MSS, 2 * MSS));
    // The retransmission of 0 is acknowledged: snd_una advances, no new loss, so the ACK
    // may send what it delivered and one segment more (PRR-SSRB).
    let before = s.stats.segments_sent;
    s.on_ack(t(200), MSS, false, t(100), &[(6 * MSS, 10 * MSS)], &mut out);
    assert_eq!(s.stats.segments_sent - before, 2);
    assert!(s.pipe() <= s.cc().ssthresh());
}

#[test]
fn a_recovery_the_reordering_timer_starts_counts_one_segment_delivered() {
    // Segment 1 of 0..9 is SACKed at 100 us: RACK waits RTT + reo_wnd (25 us) for 0. When
    // the timer marks it lost, PRR counts one segment delivered (Linux's
    // tcp_rack_reo_timeout): pipe 8 > ssthresh 5, sndcnt = ceil(1 x 5 / 10) = 1, cwnd 9,
    // and only the retransmission goes (without it the window would stay at 10).
    let c = TcpConfig { rack: true, ..prr_cfg(10) };
    let (mut s, mut out) = started(&c, None);
    dup(&mut s, 100, 0, MSS, 2 * MSS, &mut out);
    assert!(!s.in_recovery() && out.is_empty());
    let due = s.timer_deadline().unwrap();
    assert_eq!(due, t(125));
    s.on_timer(due, &mut out);
    assert!(s.in_recovery());
    assert_eq!(s.prr.as_ref().unwrap().progress(), (MSS, MSS));
    assert_eq!(s.cc().window(), 9 * MSS);
    assert_eq!(out.iter().map(|g| (g.seq, g.retransmit)).collect::<Vec<_>>(), [(0, true)]);
}

/// Segment 0 of 0..9 is lost and the duplicate ACKs SACK 1, 2, 3 (limited transmit sends
/// 10 and 11 on the first two): the sender's ssthresh and PRR's RecoverFS once recovery
/// starts at the third.
fn ssthresh_at_recovery(rule: SsthreshRule, rack: bool) -> (u64, u64) {
    let c = TcpConfig {
        sack: true,
        limited_transmit: true,
        recovery: Recovery::Prr,
        rack,
        ssthresh: rule,
        ..cfg()
    };
    let (mut s, mut out) = started(&c, None);
    for k in 1..4u64 {
        dup(&mut s, 100 + k, 0, MSS, (k + 1) * MSS, &mut out);
    }
    assert!(s.in_recovery(), "{rule:?}, rack {rack}");
    assert_eq!(s.progress().0, 12 * MSS);
    (s.cc().ssthresh(), s.prr.as_ref().unwrap().recover_fs())
}

#[test]
fn the_flight_rule_halves_the_flight_size_without_the_limited_transmit_segments() {
    // RFC 5681 / RFC 6675: 12 segments out, 2 of them limited transmit's: FlightSize 10.
    for rack in [false, true] {
        assert_eq!(ssthresh_at_recovery(SsthreshRule::Flight, rack), (5 * MSS, 12 * MSS));
    }
}

#[test]
fn the_pipe_rule_halves_the_pipe_with_the_first_segment_counted_lost() {
    // ns-3: 12 out, 3 SACKed, segment 0 lost: pipe 8, ssthresh 4, RecoverFS the pipe.
    for rack in [false, true] {
        assert_eq!(ssthresh_at_recovery(SsthreshRule::Pipe, rack), (4 * MSS, 8 * MSS));
    }
    // Without SACK there is no pipe: the FlightSize is halved.
    let c = TcpConfig { limited_transmit: true, ssthresh: SsthreshRule::Pipe, ..cfg() };
    let (mut s, mut out) = started(&c, None);
    for k in 0..3 {
        s.on_ack(t(100 + k), 0, false, t(0), &[], &mut out);
    }
    assert!(s.in_recovery());
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
}

/// A sender of `c` (`size` bytes) that has sent its initial window, and an empty output.
fn started(c: &TcpConfig, size: Option<u64>) -> (TcpSender, Vec<Segment>) {
    let mut s = TcpSender::new(c, size);
    let mut out = Vec::new();
    s.start(t(0), &mut out);
    out.clear();
    (s, out)
}

/// A duplicate ACK of `ack` whose SACK block is `[from, to)`.
fn dup(s: &mut TcpSender, now: u64, ack: u64, from: u64, to: u64, out: &mut Vec<Segment>) {
    s.on_ack(t(now), ack, false, t(0), &[(from, to)], out);
}

#[test]
fn sack_recovery_resends_all_three_holes_in_one_round_and_then_new_data() {
    // Segments 1-3 of 0..9 are lost. The ACK of 0 opens slow start (10, 11 go out).
    let (mut s, mut out) = started(&sack_cfg(10), None);
    s.on_ack(t(100), MSS, false, t(0), &[], &mut out);
    assert_eq!(out.len(), 2);
    out.clear();
    for k in 4..12u64 {
        dup(&mut s, 100 + k, MSS, 4 * MSS, (k + 1) * MSS, &mut out);
        if k == 6 {
            // Three SACKed segments above the hole: IsLost, recovery, cwnd = ssthresh.
            assert!(s.in_recovery());
            assert_eq!(s.cc().window(), 5500, "half of the 11 segments in flight");
            assert_eq!(s.cc().ssthresh(), 5500);
        }
    }
    let resent: Vec<u64> = out.iter().filter(|x| x.retransmit).map(|x| x.seq / MSS).collect();
    let new: Vec<u64> = out.iter().filter(|x| !x.retransmit).map(|x| x.seq / MSS).collect();
    assert_eq!(resent, vec![1, 2, 3], "every hole within the first round");
    assert_eq!(new, vec![12, 13], "then new data as the pipe drains");
    assert_eq!(s.pipe(), 5 * MSS, "3 retransmissions and 2 new segments");
    // The ACK that covers everything sent before recovery ends it.
    out.clear();
    s.on_ack(t(300), 12 * MSS, false, t(200), &[], &mut out);
    assert!(!s.in_recovery());
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn newreno_resends_one_hole_per_round_trip() {
    let (mut s, mut out) = primed();
    s.on_ack(t(100), MSS, false, t(0), &[], &mut out);
    out.clear();
    for k in 4..12u64 {
        s.on_ack(t(100 + k), MSS, false, t(0), &[], &mut out);
    }
    let resent: Vec<u64> = out.iter().filter(|x| x.retransmit).map(|x| x.seq / MSS).collect();
    assert_eq!(resent, vec![1], "the next hole waits for the partial ACK");
}

#[test]
fn is_lost_starts_sack_recovery_before_the_third_duplicate_ack() {
    let (mut s, mut out) = started(&sack_cfg(10), None);
    // One duplicate ACK (a stretch ACK) reports segments 1-3: more than 2 MSS above 0.
    dup(&mut s, 100, 0, MSS, 4 * MSS, &mut out);
    assert!(s.in_recovery());
    assert_eq!(out[0], Segment { seq: 0, len: MSS as u32, retransmit: true, cwr: false });
    // Without SACK the same ACK is one duplicate among three needed.
    let (mut plain, mut out) = primed();
    plain.on_ack(t(100), 0, false, t(0), &[(MSS, 4 * MSS)], &mut out);
    assert!(!plain.in_recovery());
}

#[test]
fn the_rescue_retransmission_repairs_a_lost_tail_once() {
    // A 12-segment flow sent at once; segments 2 and 11 (the last) are lost.
    let (mut s, mut out) = started(&sack_cfg(12), Some(12 * MSS));
    assert_eq!(s.progress().0, 12 * MSS);
    s.on_ack(t(100), MSS, false, t(0), &[], &mut out);
    s.on_ack(t(101), 2 * MSS, false, t(0), &[], &mut out);
    for k in 3..11u64 {
        dup(&mut s, 100 + k, 2 * MSS, 3 * MSS, (k + 1) * MSS, &mut out);
    }
    let resent: Vec<u64> = out.iter().filter(|x| x.retransmit).map(|x| x.seq / MSS).collect();
    // Segment 11 is not lost by IsLost (nothing above it), no new data is left: rule 4.
    assert_eq!(resent, vec![2, 11]);
    assert!(!s.loss.sack().unwrap().rescue_allowed, "one rescue per recovery");
    out.clear();
    s.on_ack(t(200), 11 * MSS, false, t(100), &[], &mut out);
    assert!(out.is_empty(), "no second rescue");
    s.on_ack(t(201), 12 * MSS, false, t(100), &[], &mut out);
    assert!(s.finished() && s.stats.timeouts == 0);
}

#[test]
fn after_a_timeout_go_back_n_skips_sacked_bytes() {
    let (mut s, mut out) = started(&sack_cfg(4), None);
    // Segments 0 and 2 lost; 1 and 3 SACKed by two duplicate ACKs (no recovery).
    dup(&mut s, 100, 0, MSS, 2 * MSS, &mut out);
    dup(&mut s, 101, 0, 3 * MSS, 4 * MSS, &mut out);
    assert!(!s.in_recovery() && out.is_empty());
    let d = s.rto_deadline().unwrap();
    s.on_rto(d, &mut out);
    assert_eq!(out.iter().map(|x| x.seq / MSS).collect::<Vec<_>>(), vec![0]);
    out.clear();
    // The ACK of 0 (cwnd 2): go-back-N resends 2, not the SACKed 1; the window ends
    // before 3.
    s.on_ack(d + t(100), MSS, false, d, &[(MSS, 2 * MSS), (3 * MSS, 4 * MSS)], &mut out);
    assert_eq!(
        out.iter().map(|x| (x.seq / MSS, x.retransmit)).collect::<Vec<_>>(),
        vec![(2, true)]
    );
    // The ACK of 1 (SACKed before, now cumulative): go-back-N passes over the SACKed 3;
    // the window (2 MSS after the timeout) holds 4 back.
    out.clear();
    s.on_ack(d + t(200), 2 * MSS, false, d, &[(3 * MSS, 4 * MSS)], &mut out);
    assert!(out.is_empty());
    assert_eq!(s.progress(), (4 * MSS, 2 * MSS, 4 * MSS));
}

#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_duplicates() {
    let mut c = cfg();
    c.initial_window = 3;
    c.limited_transmit = true;
    let (mut s, mut out) = started(&c, None);
    // Segment 0 is lost: the duplicates of 1 and 2 each release one new segment.
    s.on_ack(t(100), 0, false, t(0), &[], &mut out);
    assert_eq!(out, vec![Segment { seq: 3 * MSS, len: MSS as u32, retransmit: false, cwr: false }]);
    s.on_ack(t(101), 0, false, t(0), &[], &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(s.cc().window(), 3 * MSS, "cwnd is not changed");
    // Their duplicate ACK is the third: fast retransmit.
    s.on_ack(t(102), 0, false, t(0), &[], &mut out);
    assert!(s.in_recovery());
    assert_eq!(out[2], Segment { seq: 0, len: MSS as u32, retransmit: true, cwr: false });
    // Off: two duplicates send nothing.
    c.limited_transmit = false;
    let (mut s, mut out) = started(&c, None);
    s.on_ack(t(100), 0, false, t(0), &[], &mut out);
    s.on_ack(t(101), 0, false, t(0), &[], &mut out);
    assert!(out.is_empty());
}

mod rfc5681;
