//! Delivery rate samples (the estimator BBR reads, as in draft-cheng-iccrg-delivery-rate-
//! estimation and Linux's `tcp_rate.c` description): every ACK yields the rate at which the
//! data it newly delivered was delivered.
//!
//! When a segment is sent the sender notes with it the connection's `delivered` count, when
//! that count last grew (`delivered_time`), and when the first segment of the current flight
//! was sent (`first_sent_time`). When an ACK delivers segments (cumulatively or by SACK), the
//! most recently sent of them, P, gives the sample: `delivered - P.delivered` bytes over
//! `max(P.sent - P.first_sent, now - P.delivered_time)` (the send interval and the ACK
//! interval: the longer one bounds a rate that ACK compression or a send burst would inflate).
//! A sample whose interval is shorter than the minimum RTT is discarded. A sample is
//! application-limited when P was sent while the sender had nothing more to send (BBR does not
//! let such a sample lower its estimate).

use super::sack::covered;
use crate::units::Time;
use std::collections::VecDeque;

/// One segment sent and not yet delivered.
#[derive(Clone, Copy, Debug)]
struct Sent {
    seq: u64,
    end: u64,
    sent: Time,
    /// The connection's `delivered`, `delivered_time` and `first_sent_time` when it was sent.
    delivered: u64,
    delivered_time: Time,
    first_sent: Time,
    app_limited: bool,
    sacked: bool,
}

/// A delivery rate sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    /// Bytes per second (0 when the ACK gave no valid sample).
    pub rate: f64,
    /// The sample's interval.
    pub interval: Time,
    /// Bytes the sample covers.
    pub delivered: u64,
    /// The connection's `delivered` when the sample's segment was sent (BBR's round counting).
    pub prior_delivered: u64,
    /// The connection's `delivered` now.
    pub delivered_total: u64,
    /// The sample's segment was sent while the sender was application-limited.
    pub app_limited: bool,
    /// Bytes this ACK newly delivered.
    pub newly_delivered: u64,
    /// The round-trip time of the sample's segment (None when it was retransmitted).
    pub rtt: Option<Time>,
}

/// The delivery rate estimator of one sender.
#[derive(Clone, Debug, Default)]
pub struct DeliveryRate {
    segs: VecDeque<Sent>,
    /// Bytes delivered so far (cumulatively or by SACK).
    delivered: u64,
    delivered_time: Time,
    first_sent: Time,
    /// The sender is application-limited until `delivered` passes this (0: it is not).
    app_limited_until: u64,
    /// Bytes outstanding and not SACKed.
    in_flight: u64,
    min_rtt: Option<Time>,
}

impl DeliveryRate {
    /// Bytes delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// A segment `[seq, seq + len)` left at `now` (new or retransmitted).
    pub fn on_sent(&mut self, seq: u64, len: u64, now: Time) {
        if self.in_flight == 0 {
            self.first_sent = now;
            self.delivered_time = now;
        }
        let rec = |seq, end| Sent {
            seq,
            end,
            sent: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent: self.first_sent,
            app_limited: self.app_limited_until > 0,
            sacked: false,
        };
        let end = seq + len;
        if self.segs.back().is_none_or(|s| s.end <= seq) {
            self.segs.push_back(rec(seq, end));
            self.in_flight += len;
            return;
        }
        let first = self.segs.partition_point(|s| s.end <= seq);
        for i in first..self.segs.len() {
            if self.segs[i].seq >= end {
                break;
            }
            let sacked = self.segs[i].sacked;
            let (s, e) = (self.segs[i].seq, self.segs[i].end);
            self.segs[i] = Sent { sacked, ..rec(s, e) };
        }
    }

    /// The sender has nothing more to send with `in_flight` bytes out: samples taken until
    /// that data is delivered are application-limited.
    pub fn note_app_limited(&mut self) {
        self.app_limited_until = (self.delivered + self.in_flight).max(1);
    }

    /// An ACK at `now` moved the cumulative ACK to `snd_una` and reported SACK blocks `sack`:
    /// the sample of what it delivered (None when it delivered nothing).
    pub fn on_ack(&mut self, snd_una: u64, sack: &[(u64, u64)], now: Time) -> Option<RateSample> {
        let before = self.delivered;
        let mut newest: Option<Sent> = None;
        let mut take = |s: Sent, this: &mut Self| {
            this.delivered += s.end - s.seq;
            this.delivered_time = now;
            if newest.is_none_or(|n| {
                s.delivered > n.delivered || (s.delivered == n.delivered && s.sent > n.sent)
            }) {
                newest = Some(s);
            }
        };
        while let Some(&front) = self.segs.front() {
            if front.end > snd_una {
                break;
            }
            self.segs.pop_front();
            if !front.sacked {
                self.in_flight -= front.end - front.seq;
                take(front, self);
            }
        }
        for &(from, to) in sack {
            for i in covered(self.segs.len(), |i| (self.segs[i].seq, self.segs[i].end), from, to) {
                let s = self.segs[i];
                if s.sacked {
                    continue;
                }
                self.segs[i].sacked = true;
                self.in_flight -= s.end - s.seq;
                take(s, self);
            }
        }
        let p = newest?;
        if self.app_limited_until > 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        self.first_sent = p.sent;
        let rtt = now.saturating_sub(p.sent);
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        let interval =
            p.sent.saturating_sub(p.first_sent).max(now.saturating_sub(p.delivered_time));
        let delivered = self.delivered - p.delivered;
        let valid = interval > Time::ZERO && self.min_rtt.is_none_or(|m| interval >= m);
        Some(RateSample {
            rate: if valid { delivered as f64 * 1e12 / interval.0 as f64 } else { 0.0 },
            interval,
            delivered,
            prior_delivered: p.delivered,
            delivered_total: self.delivered,
            app_limited: p.app_limited,
            newly_delivered: self.delivered - before,
            rtt: Some(rtt),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> Time {
        Time::from_us(x)
    }

    #[test]
    fn a_steady_flight_samples_the_rate_it_is_delivered_at() {
        // One 1000-byte segment every 10 us, each acknowledged 100 us after it left.
        let mut d = DeliveryRate::default();
        let mut last = None;
        for k in 0..50u64 {
            d.on_sent(k * 1000, 1000, us(10 * k));
            if k >= 10 {
                last = d.on_ack((k - 9) * 1000, &[], us(10 * k));
            }
        }
        let s = last.unwrap();
        assert!((s.rate - 1e8).abs() < 1e6, "100 MB/s: {}", s.rate);
        assert_eq!(s.newly_delivered, 1000);
        assert!(!s.app_limited);
    }

    #[test]
    fn an_ack_burst_does_not_inflate_the_rate() {
        // Ten segments sent over 100 us, all acknowledged at once at 200 us: the send interval
        // (90 us) is shorter than the ACK interval of the first (200 us)... the newest segment's
        // sample spans max(send, ack) intervals.
        let mut d = DeliveryRate::default();
        for k in 0..10u64 {
            d.on_sent(k * 1000, 1000, us(10 * k));
        }
        let s = d.on_ack(10_000, &[], us(200)).unwrap();
        assert_eq!(s.delivered, 10_000);
        assert_eq!(s.interval, us(200), "now - delivered_time of the first flight (0)");
        assert!((s.rate - 5e7).abs() < 1.0);
    }

    #[test]
    fn sacked_segments_count_as_delivered_and_app_limited_marks_samples() {
        let mut d = DeliveryRate::default();
        for k in 0..4u64 {
            d.on_sent(k * 1000, 1000, us(k));
        }
        d.note_app_limited();
        d.on_sent(4000, 1000, us(4));
        let s = d.on_ack(0, &[(1000, 3000)], us(200)).unwrap();
        assert_eq!((s.newly_delivered, d.delivered()), (2000, 2000));
        let s = d.on_ack(5000, &[], us(300)).unwrap();
        assert!(s.app_limited, "segment 4 left while the sender had nothing more to send");
        assert_eq!(d.delivered(), 5000);
    }
}
