//! RACK-TLP loss detection (RFC 8985), on by default with SACK (`transport.rack`), as Linux
//! runs it (`net.ipv4.tcp_recovery = 1`).
//!
//! **RACK** (section 6) keeps, for every segment sent and not yet cumulatively acknowledged,
//! when it was last sent and whether it is SACKed, marked lost, or has a retransmission in
//! flight. From every segment an ACK newly delivers (cumulatively or by SACK) it learns
//! `RACK.xmit_ts` / `RACK.end_seq` (the most recently sent delivered segment) and `RACK.rtt`;
//! a retransmitted segment gives no sample when the ACK may be for an earlier copy (its
//! timestamp echo is older than the retransmission, or it came back within `min_RTT`). A
//! segment sent before `RACK.xmit_ts` is lost once `xmit_ts + RACK.rtt + reo_wnd` has passed;
//! before that, the reordering timer is armed for the earliest such deadline. The reordering
//! window `reo_wnd` is `min(min_RTT / 4, SRTT)`, and 0 while no reordering was seen and the
//! sender is in recovery or has at least `dupthresh` segments SACKed (section 6.2 step 4).
//! Reordering is seen when a never-retransmitted segment is delivered below the highest
//! SACKed sequence (`RACK.fack`). There is no D-SACK, so the window's multiplier stays 1.
//! A retransmission can be marked lost again, and is then resent: lost retransmissions are
//! repaired in the same recovery instead of by a timeout.
//!
//! With RACK the sender starts recovery when a segment is marked lost (as Linux), and its
//! pipe and `NextSeg` (RFC 6675 section 4, over these marks instead of `IsLost`) are
//! [`RackTlp::pipe`] and [`RackTlp::next_seg`]: lost segments first, then new data, then
//! unSACKed segments below the highest SACKed one, then one rescue retransmission.
//!
//! **TLP** (section 7): while the connection is open (not in recovery, no SACKed data, no
//! probe outstanding) the sender arms a probe timeout `PTO = 2 SRTT + transport.tlp_slack`
//! (2 ms, as Linux's `TCP_TIMEOUT_MIN`; RFC 8985's is 0, which at data-centre RTTs of
//! microseconds fires at every queueing spike), or `2 SRTT` plus the minimum RTO when one
//! segment is in flight (its ACK may be delayed; Linux adds its minimum RTO too), and no
//! later than the RTO. When it fires it
//! sends one new segment if it may (the window is not checked, as in Linux), else resends the
//! highest segment sent, and re-arms the RTO. The probe's ACK brings SACK information that
//! lets RACK start a fast recovery where an RTO would otherwise have fired. An episode whose
//! probe was a retransmission and whose ACK passes the probe's end was a repaired loss: the
//! sender reduces its window once (section 7.4; without D-SACK it cannot tell otherwise).

use super::sack::{covered, NextSeg};
use crate::units::Time;
use std::collections::VecDeque;

/// One segment sent and not yet cumulatively acknowledged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sent {
    seq: u64,
    end: u64,
    /// When its latest copy was sent.
    xmit: Time,
    /// Sent more than once.
    retransmitted: bool,
    sacked: bool,
    /// Marked lost by RACK (or by an RTO) and not delivered since.
    lost: bool,
    /// A retransmission of it is in flight (not marked lost again).
    retx_in_flight: bool,
}

impl Sent {
    fn len(&self) -> u64 {
        self.end - self.seq
    }
}

/// RFC 8985 `RACK_sent_after(t1, seq1, t2, seq2)`: (t1, seq1) was sent after (t2, seq2).
fn sent_after(t1: Time, seq1: u64, t2: Time, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

/// The RACK-TLP state of one sender.
#[derive(Clone, Debug, Default)]
pub struct RackTlp {
    /// Outstanding segments in sequence order, `[snd_una, snd_max)`.
    segs: VecDeque<Sent>,
    /// Bytes SACKed, marked lost (and not SACKed), and retransmitted in flight.
    sacked_bytes: u64,
    lost_bytes: u64,
    retx_bytes: u64,
    sacked_segs: u32,
    /// `RACK.xmit_ts` and `RACK.end_seq`: the most recently sent segment delivered.
    xmit_ts: Time,
    end_seq: u64,
    /// `RACK.rtt` (None until a delivered segment gave a sample).
    rtt: Option<Time>,
    min_rtt: Option<Time>,
    /// `RACK.fack`: the highest end of a delivered segment.
    fack: u64,
    reordering_seen: bool,
    /// `TLP.end_seq` of the outstanding probe, and whether the probe was a retransmission.
    tlp_end: Option<u64>,
    tlp_retransmitted: bool,
}

/// What an ACK did to the TLP episode (section 7.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlpOutcome {
    /// No probe outstanding, or the episode goes on.
    None,
    /// The episode ended without evidence of a loss.
    Ended,
    /// The probe retransmission repaired a loss: reduce the window once.
    Repaired,
}

impl RackTlp {
    /// Notes a segment `[seq, seq + len)` sent at `now`: new data is appended; a retransmission
    /// restamps every outstanding segment it covers.
    pub fn on_sent(&mut self, seq: u64, len: u64, now: Time) {
        let end = seq + len;
        if self.segs.back().is_none_or(|s| s.end <= seq) {
            self.segs.push_back(Sent {
                seq,
                end,
                xmit: now,
                retransmitted: false,
                sacked: false,
                lost: false,
                retx_in_flight: false,
            });
            return;
        }
        let first = self.segs.partition_point(|s| s.end <= seq);
        for i in first..self.segs.len() {
            let s = &mut self.segs[i];
            if s.seq >= end {
                break;
            }
            s.xmit = now;
            s.retransmitted = true;
            if !s.sacked && !s.retx_in_flight {
                s.retx_in_flight = true;
                self.retx_bytes += s.len();
            }
        }
    }

    /// Takes in an ACK at `now` that moved the cumulative ACK to `snd_una` and reported the
    /// SACK blocks `sack`, with timestamp echo `ts_echo`: marks what it delivered and updates
    /// RACK's RTT, most recent delivered segment and reordering state (section 6.2 steps 1-2).
    pub fn on_ack(&mut self, snd_una: u64, sack: &[(u64, u64)], now: Time, ts_echo: Time) {
        while let Some(front) = self.segs.front() {
            if front.end > snd_una {
                break;
            }
            let s = self.segs.pop_front().expect("front exists");
            self.forget(&s);
            if !s.sacked {
                self.delivered(&s, now, ts_echo);
            }
        }
        for &(from, to) in sack {
            for i in covered(self.segs.len(), |i| (self.segs[i].seq, self.segs[i].end), from, to) {
                let s = self.segs[i];
                if s.sacked {
                    continue;
                }
                self.forget(&s);
                self.segs[i].sacked = true;
                self.segs[i].lost = false;
                self.segs[i].retx_in_flight = false;
                self.sacked_bytes += s.len();
                self.sacked_segs += 1;
                self.delivered(&s, now, ts_echo);
            }
        }
    }

    /// Removes a segment's bytes from the counters (it is acknowledged or about to change).
    fn forget(&mut self, s: &Sent) {
        if s.sacked {
            self.sacked_bytes -= s.len();
            self.sacked_segs -= 1;
        } else {
            if s.lost {
                self.lost_bytes -= s.len();
            }
            if s.retx_in_flight {
                self.retx_bytes -= s.len();
            }
        }
    }

    /// RFC 8985 `RACK_update` and `RACK_detect_reordering` for a segment newly delivered.
    fn delivered(&mut self, s: &Sent, now: Time, ts_echo: Time) {
        let rtt = now.saturating_sub(s.xmit);
        let ambiguous =
            s.retransmitted && (ts_echo < s.xmit || self.min_rtt.is_some_and(|m| rtt < m));
        if !ambiguous {
            self.rtt = Some(rtt);
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
            if sent_after(s.xmit, s.end, self.xmit_ts, self.end_seq) {
                self.xmit_ts = s.xmit;
                self.end_seq = s.end;
            }
        }
        if s.end > self.fack {
            self.fack = s.end;
        } else if s.end < self.fack && !s.retransmitted {
            self.reordering_seen = true;
        }
    }

    /// The reordering window (section 6.2 step 4, without D-SACK).
    fn reo_wnd(&self, srtt: Time, in_recovery: bool, dupthresh: u32) -> Time {
        if !self.reordering_seen && (in_recovery || self.sacked_segs >= dupthresh) {
            return Time::ZERO;
        }
        let quarter = self.min_rtt.map_or(Time::ZERO, |m| Time(m.0 / 4));
        quarter.min(srtt)
    }

    /// RFC 8985 `RACK_detect_loss`: marks lost every outstanding segment sent before the most
    /// recently delivered one whose `xmit_ts + RACK.rtt + reo_wnd` has passed. Returns the
    /// bytes it marked lost (a lost retransmission counts again, though [`Self::lost_bytes`]
    /// already held it), and when the earliest other candidate would be due (the reordering
    /// timer).
    pub fn detect_loss(
        &mut self,
        now: Time,
        srtt: Time,
        in_recovery: bool,
        dupthresh: u32,
    ) -> (u64, Option<Time>) {
        let Some(rtt) = self.rtt else { return (0, None) };
        let reo = self.reo_wnd(srtt, in_recovery, dupthresh);
        let (mut marked, mut due) = (0, None::<Time>);
        for i in 0..self.segs.len() {
            let s = self.segs[i];
            if s.sacked || (s.lost && !s.retx_in_flight) {
                continue;
            }
            if !sent_after(self.xmit_ts, self.end_seq, s.xmit, s.end) {
                // Segments are sent in sequence order, so a never-retransmitted one sent after
                // RACK.xmit_ts means every later segment was sent after it too.
                if !s.retransmitted {
                    break;
                }
                continue;
            }
            let deadline = s.xmit + rtt + reo;
            if deadline <= now {
                self.forget(&s);
                let seg = &mut self.segs[i];
                seg.lost = true;
                seg.retx_in_flight = false;
                self.lost_bytes += seg.len();
                marked += seg.len();
            } else {
                due = Some(due.map_or(deadline, |d: Time| d.min(deadline)));
            }
        }
        (marked, due)
    }

    /// After a retransmission timeout: every outstanding segment not SACKed is lost and none
    /// is in flight (the sender resends them from `snd_una`, go-back-N).
    pub fn on_rto(&mut self) {
        for s in self.segs.iter_mut() {
            if !s.sacked {
                s.lost = true;
                s.retx_in_flight = false;
            }
        }
        self.lost_bytes = self.segs.iter().filter(|s| !s.sacked).map(Sent::len).sum();
        self.retx_bytes = 0;
        self.tlp_end = None;
    }

    /// Bytes marked lost and not delivered since.
    pub fn lost_bytes(&self) -> u64 {
        self.lost_bytes
    }

    /// Whether any outstanding segment is SACKed.
    pub fn any_sacked(&self) -> bool {
        self.sacked_segs > 0
    }

    /// The pipe (RFC 6675 `SetPipe` over RACK's marks): outstanding bytes neither SACKed nor
    /// lost, plus retransmissions in flight.
    pub fn pipe(&self, snd_una: u64, snd_max: u64) -> u64 {
        (snd_max - snd_una + self.retx_bytes).saturating_sub(self.sacked_bytes + self.lost_bytes)
    }

    /// [`Self::pipe`] with the first outstanding segment counted lost if it is neither SACKed
    /// nor marked lost (ns-3 marks it so when recovery starts; `transport.ssthresh = "pipe"`).
    pub fn pipe_head_lost(&self, snd_una: u64, snd_max: u64) -> u64 {
        let head = self.segs.front().filter(|s| !s.sacked && !s.lost).map_or(0, Sent::len);
        self.pipe(snd_una, snd_max).saturating_sub(head)
    }

    /// RFC 6675 `NextSeg` over RACK's marks (`new_data`: rule 2 may send new data; the rescue
    /// retransmission of rule 4 only while `rescue_allowed`).
    pub fn next_seg(&self, new_data: bool, rescue_allowed: bool) -> Option<NextSeg> {
        let retransmit = |s: &Sent| NextSeg::Retransmit { seq: s.seq, len: s.len() };
        if self.lost_bytes > 0 {
            if let Some(s) = self.segs.iter().find(|s| s.lost && !s.retx_in_flight && !s.sacked) {
                return Some(retransmit(s));
            }
        }
        if new_data {
            return Some(NextSeg::New);
        }
        if let Some(s) = self
            .segs
            .iter()
            .find(|s| !s.sacked && !s.lost && !s.retx_in_flight && s.end <= self.fack)
        {
            return Some(retransmit(s));
        }
        let last = self.segs.iter().rev().find(|s| !s.sacked && !s.retx_in_flight)?;
        rescue_allowed.then(|| NextSeg::Rescue { seq: last.seq, len: last.len() })
    }

    /// TLP (section 7.2): whether a probe may be scheduled now, given that the sender is in
    /// no recovery.
    pub fn may_probe(&self) -> bool {
        self.tlp_end.is_none() && self.sacked_segs == 0 && !self.segs.is_empty()
    }

    /// The probe timeout for `srtt` (None before an RTT estimate: then 1 s): `2 SRTT` plus
    /// `slack`, or plus `single` when one segment is outstanding (its ACK may be delayed).
    pub fn pto(&self, srtt: Option<Time>, slack: Time, single: Time) -> Time {
        match srtt {
            Some(r) => Time(2 * r.0) + if self.segs.len() == 1 { single } else { slack },
            None => Time::from_ms(1000),
        }
    }

    /// The highest segment sent (a probe with no new data to send resends it).
    pub fn last_segment(&self) -> Option<(u64, u64)> {
        self.segs.back().map(|s| (s.seq, s.len()))
    }

    /// A probe left: the episode lasts until the cumulative ACK passes `end`.
    pub fn on_probe(&mut self, end: u64, retransmitted: bool) {
        self.tlp_end = Some(end);
        self.tlp_retransmitted = retransmitted;
    }

    /// RFC 8985 `TLP_process_ack` (section 7.4, without D-SACK): `ack` is the cumulative ACK,
    /// `duplicate` says it acknowledged nothing new (no data, no SACK).
    pub fn tlp_on_ack(&mut self, ack: u64, duplicate: bool) -> TlpOutcome {
        let Some(end) = self.tlp_end else { return TlpOutcome::None };
        if ack < end {
            return TlpOutcome::None;
        }
        if !self.tlp_retransmitted || (ack == end && duplicate) {
            self.tlp_end = None;
            return TlpOutcome::Ended;
        }
        if ack > end {
            self.tlp_end = None;
            return TlpOutcome::Repaired;
        }
        TlpOutcome::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 100;

    fn us(x: u64) -> Time {
        Time::from_us(x)
    }

    /// Segments 0..n of 100 bytes, segment k sent at k us.
    fn sent(n: u64) -> RackTlp {
        let mut r = RackTlp::default();
        for k in 0..n {
            r.on_sent(k * MSS, MSS, us(k));
        }
        r
    }

    #[test]
    fn a_segment_sent_before_a_delivered_one_is_lost_once_rtt_and_reo_wnd_pass() {
        // 0..10 sent; at 100 us segment 2 is SACKed (RTT 98 us, min RTT 98 us, reo_wnd 24.5 us).
        let mut r = sent(10);
        r.on_ack(0, &[(200, 300)], us(100), us(2));
        assert_eq!(r.rtt, Some(us(98)));
        // Segments 0 and 1 were sent before 2: due at xmit + 98 + 24.5 us.
        let (marked, due) = r.detect_loss(us(100), us(100), false, 3);
        assert_eq!(marked, 0);
        assert_eq!(
            due,
            Some(us(98) + Time(24_500_000)),
            "segment 0's deadline: the reordering timer"
        );
        let (marked, _) = r.detect_loss(us(123), us(100), false, 3);
        assert_eq!(marked, MSS, "0 is due at 122.5 us");
        assert_eq!(r.lost_bytes(), MSS, "1 is due at 123.5 us");
        let (_, due) = r.detect_loss(us(123), us(100), false, 3);
        assert_eq!(due, Some(us(99) + Time(24_500_000)));
        // Segments 3.. were sent after 2: never lost by its delivery.
        r.detect_loss(us(1000), us(100), false, 3);
        assert_eq!(r.lost_bytes(), 2 * MSS);
    }

    #[test]
    fn with_dupthresh_segments_sacked_and_no_reordering_the_window_is_zero() {
        let mut r = sent(10);
        r.on_ack(0, &[(100, 400)], us(100), us(3));
        let (marked, due) = r.detect_loss(us(100), us(100), false, 3);
        assert!(marked == MSS && due.is_none(), "three SACKed: reo_wnd 0, segment 0 lost at once");
        assert_eq!(r.lost_bytes(), MSS);
        // In recovery the window is 0 too.
        let mut r = sent(10);
        r.on_ack(0, &[(200, 300)], us(100), us(2));
        assert!(r.detect_loss(us(100), us(100), true, 3).0 > 0);
    }

    #[test]
    fn reordering_seen_keeps_the_window_open() {
        // 5 is SACKed, then 3 (never retransmitted, below fack): reordering.
        let mut r = sent(10);
        r.on_ack(0, &[(500, 600)], us(100), us(5));
        r.on_ack(0, &[(300, 400), (500, 600)], us(101), us(3));
        assert!(r.reordering_seen);
        r.on_ack(0, &[(300, 400), (500, 800)], us(102), us(7));
        // Four SACKed segments, but reordering was seen: reo_wnd = min_RTT / 4 = 23.75 us.
        let (marked, due) = r.detect_loss(us(102), us(100), false, 3);
        assert!(marked == 0 && due.is_some());
    }

    #[test]
    fn a_lost_retransmission_is_marked_lost_again_and_resent() {
        let mut r = sent(10);
        r.on_ack(0, &[(100, 400)], us(100), us(3));
        r.detect_loss(us(100), us(100), true, 3);
        assert_eq!(r.next_seg(true, true), Some(NextSeg::Retransmit { seq: 0, len: MSS }));
        r.on_sent(0, MSS, us(100));
        assert_eq!(r.pipe(0, 1000), 6 * MSS + MSS, "4-9 and the retransmission of 0");
        assert_eq!(r.next_seg(true, true), Some(NextSeg::New), "nothing else is lost");
        // New data sent after the retransmission is delivered: the retransmission is lost.
        r.on_sent(1000, MSS, us(110));
        r.on_ack(0, &[(100, 400), (1000, 1100)], us(210), us(110));
        let (marked, _) = r.detect_loss(us(210), us(100), true, 3);
        // 4-9 and the retransmission of 0: its bytes count, though lost_bytes held them already.
        assert_eq!(marked, 7 * MSS);
        assert_eq!(r.next_seg(true, true), Some(NextSeg::Retransmit { seq: 0, len: MSS }));
    }

    #[test]
    fn an_ambiguous_ack_of_a_retransmission_gives_no_rtt_sample() {
        let mut r = sent(3);
        r.on_ack(0, &[(100, 200)], us(100), us(1));
        r.on_sent(0, MSS, us(150));
        // The cumulative ACK of 0 echoes the first copy's timestamp: no sample from it.
        r.on_ack(MSS, &[(100, 200)], us(160), us(0));
        assert_eq!(r.rtt, Some(us(99)));
        assert_eq!(r.xmit_ts, us(1));
    }

    #[test]
    fn next_seg_resends_lost_then_sends_new_then_unsacked_below_fack_then_one_rescue() {
        let mut r = sent(10);
        r.on_ack(0, &[(300, 600)], us(100), us(5));
        r.detect_loss(us(100), us(100), false, 3);
        assert_eq!(r.lost_bytes(), 3 * MSS, "0-2 are lost");
        for seq in [0, 100, 200] {
            assert_eq!(r.next_seg(true, true), Some(NextSeg::Retransmit { seq, len: MSS }));
            r.on_sent(seq, MSS, us(101));
        }
        assert_eq!(r.next_seg(true, true), Some(NextSeg::New));
        // No new data: nothing unSACKed is left below fack (600), so the rescue: segment 9.
        assert_eq!(r.next_seg(false, true), Some(NextSeg::Rescue { seq: 900, len: MSS }));
        assert_eq!(r.next_seg(false, false), None);
    }

    #[test]
    fn tlp_probe_timeout_and_episode_outcomes() {
        let r = sent(10);
        assert_eq!(r.pto(Some(us(100)), Time::ZERO, us(40)), us(200), "RFC 8985: 2 SRTT");
        assert_eq!(r.pto(Some(us(100)), Time::from_ms(2), us(40)), us(2200), "Linux adds 2 ms");
        assert_eq!(
            sent(1).pto(Some(us(100)), Time::ZERO, us(40)),
            us(240),
            "one segment out: plus the ACK delay"
        );
        assert_eq!(r.pto(None, Time::ZERO, us(40)), Time::from_ms(1000));
        assert!(r.may_probe());
        // A probe of new data, acknowledged: the episode ends without a reduction.
        let mut r = sent(10);
        r.on_probe(1100, false);
        assert!(!r.may_probe());
        assert_eq!(r.tlp_on_ack(1000, false), TlpOutcome::None);
        assert_eq!(r.tlp_on_ack(1100, false), TlpOutcome::Ended);
        // A retransmitted probe: an ACK beyond it means a loss was repaired.
        r.on_probe(1000, true);
        assert_eq!(r.tlp_on_ack(1100, false), TlpOutcome::Repaired);
        // A duplicate ACK at its end: the original and the probe both arrived.
        r.on_probe(1000, true);
        assert_eq!(r.tlp_on_ack(1000, true), TlpOutcome::Ended);
    }

    #[test]
    fn counters_follow_every_change() {
        let mut r = sent(10);
        r.on_ack(200, &[(400, 700)], us(100), us(6));
        r.detect_loss(us(200), us(100), false, 3);
        r.on_sent(200, MSS, us(201));
        r.on_ack(300, &[(400, 800)], us(300), us(201));
        let recount = |r: &RackTlp| {
            let s: u64 = r.segs.iter().filter(|s| s.sacked).map(Sent::len).sum();
            let l: u64 = r.segs.iter().filter(|s| !s.sacked && s.lost).map(Sent::len).sum();
            let x: u64 =
                r.segs.iter().filter(|s| !s.sacked && s.retx_in_flight).map(Sent::len).sum();
            (s, l, x)
        };
        assert_eq!(recount(&r), (r.sacked_bytes, r.lost_bytes, r.retx_bytes));
        r.on_rto();
        assert_eq!(recount(&r), (r.sacked_bytes, r.lost_bytes, r.retx_bytes));
    }
}
