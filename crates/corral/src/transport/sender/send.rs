//! How segments leave: [`TcpSender::emit`], the one place every segment goes through, and the
//! paths that call it: the window's sending (new data, go-back-N after a timeout, limited
//! transmit), RFC 6675's `NextSeg` loop in a SACK recovery, and the retransmission of the
//! first unacknowledged segment (fast retransmit, NewReno's partial ACK).

use super::loss::SackState;
use super::{Segment, TcpSender};
use crate::transport::sack::NextSeg;
use crate::units::Time;

/// Why a segment leaves, which decides the bookkeeping of [`TcpSender::emit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Why {
    /// The next segment in sequence at `snd_nxt`: new data (in a SACK recovery too) or
    /// go-back-N's resending after a timeout. It moves `snd_nxt` and takes a host credit.
    Next,
    /// A loss repair below `snd_max`: a fast retransmission, a partial ACK's, a SACK hole's
    /// or the rescue retransmission. Outside the host's credit.
    Repair,
    /// A tail loss probe (RFC 8985 section 7.3), new data or the last segment again: outside
    /// the host's credit and the pacing clock.
    Probe,
}

impl TcpSender {
    /// Puts one segment on the wire: every segment the sender sends leaves through here. It
    /// is a retransmission when it starts below `snd_max`, and carries CWR if it is new data
    /// after an ECN reaction. RACK and the delivery rate estimator learn when it left, PRR
    /// counts it (in a SACK recovery), and `why` says the rest: the next segment in sequence
    /// moves `snd_nxt` and takes a host credit, a loss probe leaves outside the pacing clock.
    #[inline]
    pub(super) fn emit(&mut self, now: Time, seq: u64, len: u64, why: Why, out: &mut Vec<Segment>) {
        let retransmit = seq < self.snd_max;
        let cwr = !retransmit && std::mem::take(&mut self.send_cwr);
        out.push(Segment { seq, len: len as u32, retransmit, cwr });
        if let Some(r) = self.loss.rack_mut() {
            r.on_sent(seq, len, now);
        }
        if let Some(d) = &mut self.rate_samples {
            d.on_sent(seq, len, now);
        }
        if let Some(p) = self.prr.as_mut().or(self.cwr.as_mut()) {
            p.on_sent(len);
        }
        self.stats.segments_sent += 1;
        self.stats.retransmits += retransmit as u64;
        if !retransmit || why == Why::Next {
            self.snd_nxt = seq + len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
        }
        if why == Why::Next {
            self.limit.credit = self.limit.credit.saturating_sub(1);
        }
        if why != Why::Probe {
            self.pace(now, len);
        }
    }

    /// Sends new (or, after a timeout, resent) segments while the window allows.
    pub(super) fn send_available(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.sack_recovery() {
            // NextSeg's rule 1 resends a paced-out fast retransmission.
            self.retx_pending = false;
            self.send_sack_recovery(now, out);
            return;
        }
        if self.retx_pending && !self.paced_out(now) {
            self.retx_pending = false;
            if self.in_recovery && self.snd_una < self.snd_max {
                self.retransmit_una(now, out);
            }
        }
        let cwnd_end = self.snd_una.saturating_add(self.wnd());
        let wnd = self.wnd() + self.limited_transmit_room();
        let limit = self.limit.end();
        while self.snd_nxt < limit && self.limit.credit > 0 && !self.paced_out(now) {
            if self.snd_nxt < self.snd_max {
                // Go-back-N after a timeout: the receiver holds what it SACKed.
                if let Some((_, end)) = self.loss.sacked_block_at(self.snd_nxt) {
                    self.snd_nxt = end;
                    continue;
                }
            }
            let len = self.mss.min(limit - self.snd_nxt);
            if self.snd_nxt + len > self.snd_una.saturating_add(wnd) {
                break;
            }
            if self.snd_nxt >= self.snd_max && self.snd_nxt + len > cwnd_end {
                self.limited_bytes += len;
            }
            self.emit(now, self.snd_nxt, len, Why::Next, out);
            if self.timers.rto.is_none() {
                self.arm_timer(now);
            }
        }
        if self.rate_samples.is_some() && self.snd_max >= limit && self.flight() < self.wnd() {
            // Nothing more to send with room in the window: samples are application-limited.
            self.rate_samples.as_deref_mut().expect("checked").note_app_limited();
        }
    }

    /// RFC 6675 section 5 step (C): while `cwnd - pipe >= MSS`, sends what `NextSeg` picks.
    /// New data uses the host's credit; retransmissions do not (as in NewReno recovery).
    pub(super) fn send_sack_recovery(&mut self, now: Time, out: &mut Vec<Segment>) {
        while !self.paced_out(now) {
            let (seq, len, why) = match self.next_sack_segment() {
                None => break,
                Some(NextSeg::New) => {
                    if self.limit.credit == 0 {
                        break;
                    }
                    (self.snd_max, self.mss.min(self.limit.end() - self.snd_max), Why::Next)
                }
                Some(NextSeg::Retransmit { seq, len }) => {
                    self.sack_state().high_rxt = seq + len;
                    if seq == self.snd_una {
                        self.arm_timer(now);
                    }
                    (seq, len, Why::Repair)
                }
                Some(NextSeg::Rescue { seq, len }) => {
                    self.sack_state().rescue_allowed = false;
                    (seq, len, Why::Repair)
                }
            };
            self.emit(now, seq, len, why, out);
        }
    }

    /// RFC 6675 `NextSeg`, when `cwnd - pipe` leaves room for a segment.
    pub(super) fn next_sack_segment(&self) -> Option<NextSeg> {
        self.loss.next_seg(self.outstanding(), self.cc.window(), || self.new_data_fits())
    }

    /// The SACK state (SACK recovery only).
    pub(super) fn sack_state(&mut self) -> &mut SackState {
        self.loss.sack_mut().expect("SACK is on")
    }

    /// Resends the first unacknowledged segment (fast retransmit, partial ACK), at once or,
    /// when paced, at the next pacing slot (the latest request wins: it names the current
    /// first hole).
    pub(super) fn retransmit_una(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.paced_out(now) {
            self.retx_pending = true;
            return;
        }
        let len = self.mss.min(self.limit.end() - self.snd_una);
        self.emit(now, self.snd_una, len, Why::Repair, out);
    }
}
