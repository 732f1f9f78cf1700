//! RFC 5681 section 3.2 (fast retransmit and fast recovery, with RFC 3042 limited transmit
//! and RFC 6582's full ACK), one test per step, on a sender without SACK (so NewReno's
//! recovery): a 10-segment window whose first segment is lost.

use super::*;

const MSS: u64 = 1000;

fn cfg(limited_transmit: bool) -> TcpConfig {
    TcpConfig {
        mss: MSS as u32,
        initial_window: 10,
        min_rto: Time::from_ms(2),
        limited_transmit,
        ..TcpConfig::classic()
    }
}

fn t(us: u64) -> Time {
    Time::from_us(us)
}

/// A sender that has sent segments 0-9 (cwnd 10) and an empty output.
fn window_of_ten(limited_transmit: bool) -> (TcpSender, Vec<Segment>) {
    let mut s = TcpSender::new(&cfg(limited_transmit), None);
    let mut out = Vec::new();
    s.start(t(0), &mut out);
    assert_eq!(out.len(), 10);
    out.clear();
    (s, out)
}

/// `n` duplicate ACKs of byte 0 (segment 0 is lost).
fn dupacks(s: &mut TcpSender, n: u64, out: &mut Vec<Segment>) {
    for i in 0..n {
        s.on_ack(t(100 + i), 0, false, t(0), &[], out);
    }
}

#[test]
fn step_1_the_first_two_duplicates_each_send_one_new_segment_and_leave_cwnd() {
    let (mut s, mut out) = window_of_ten(true);
    dupacks(&mut s, 2, &mut out);
    assert_eq!(
        out.iter().map(|x| (x.seq / MSS, x.retransmit)).collect::<Vec<_>>(),
        vec![(10, false), (11, false)]
    );
    assert_eq!(s.cc().window(), 10 * MSS);
    assert!(!s.in_recovery());
}

#[test]
fn step_2_ssthresh_is_half_the_flight_without_the_limited_transmit_segments() {
    // 12 segments are out at the third duplicate, 2 of them sent by limited transmit:
    // FlightSize is 10 segments, ssthresh 5 (not 6).
    let (mut s, mut out) = window_of_ten(true);
    dupacks(&mut s, 3, &mut out);
    assert!(s.in_recovery());
    assert_eq!(s.progress().0, 12 * MSS);
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
    // Without limited transmit the flight is the same 10 segments.
    let (mut s, mut out) = window_of_ten(false);
    dupacks(&mut s, 3, &mut out);
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
    // And never below 2 SMSS (equation 4).
    let small_cfg = TcpConfig { initial_window: 3, dupthresh: 2, ..cfg(false) };
    let mut small = TcpSender::new(&small_cfg, None);
    small.start(t(0), &mut out);
    dupacks(&mut small, 2, &mut out);
    assert_eq!(small.cc().ssthresh(), 2 * MSS);
}

#[test]
fn step_2_with_sack_too_the_limited_transmit_segments_are_left_out() {
    let c = TcpConfig { sack: true, recovery: Recovery::Prr, ..cfg(true) };
    let mut s = TcpSender::new(&c, None);
    let mut out = Vec::new();
    s.start(t(0), &mut out);
    for k in 1..4u64 {
        s.on_ack(t(100 + k), 0, false, t(0), &[(MSS, (k + 1) * MSS)], &mut out);
    }
    assert!(s.in_recovery());
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
}

#[test]
fn step_3_the_lost_segment_is_resent_and_cwnd_is_ssthresh_plus_three_segments() {
    let (mut s, mut out) = window_of_ten(true);
    dupacks(&mut s, 3, &mut out);
    assert_eq!(
        out.last(),
        Some(&Segment { seq: 0, len: MSS as u32, retransmit: true, cwr: false })
    );
    assert_eq!(s.cc().window(), 5 * MSS + 3 * MSS);
    assert_eq!(s.stats.fast_recoveries, 1);
}

#[test]
fn step_4_each_further_duplicate_inflates_cwnd_by_one_segment() {
    let (mut s, mut out) = window_of_ten(false);
    dupacks(&mut s, 3, &mut out);
    for k in 1..=4 {
        dupacks(&mut s, 1, &mut out);
        assert_eq!(s.cc().window(), 8 * MSS + k * MSS);
    }
}

#[test]
fn step_5_new_data_goes_when_the_inflated_window_allows_it() {
    // cwnd 8 with 10 outstanding: the 3rd further duplicate makes it 11 and sends segment 10.
    let (mut s, mut out) = window_of_ten(false);
    dupacks(&mut s, 3, &mut out);
    out.clear();
    dupacks(&mut s, 2, &mut out);
    assert!(out.is_empty());
    dupacks(&mut s, 1, &mut out);
    assert_eq!(
        out.iter().map(|x| (x.seq / MSS, x.retransmit)).collect::<Vec<_>>(),
        vec![(10, false)]
    );
}

#[test]
fn step_6_the_full_ack_deflates_cwnd_to_ssthresh() {
    let (mut s, mut out) = window_of_ten(false);
    dupacks(&mut s, 9, &mut out);
    assert!(s.cc().window() > 10 * MSS);
    let sent = s.progress().0;
    // The ACK of everything sent before recovery: cwnd = min(ssthresh, FlightSize + SMSS).
    s.on_ack(t(300), 10 * MSS, false, t(200), &[], &mut out);
    assert!(!s.in_recovery());
    assert_eq!(s.cc().window(), (5 * MSS).min(sent - 10 * MSS + MSS));
}
