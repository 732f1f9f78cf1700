//! What an ACK does to the sender, in phases: what it reports (the scoreboard, the delivery
//! rate sample, RACK), the reaction to a new or a duplicate ACK (RTT sample, the controller's
//! feedback and ECN reaction, recovery's steps or the window's growth, fast retransmit), the
//! losses found after it (a repaired loss probe, RACK's marks, PRR's window) and the rate
//! sample for a controller that reads them.

use super::recovery::Step;
use super::{Segment, TcpSender};
use crate::transport::cc::AckInfo;
use crate::transport::config::EcnResponse;
use crate::transport::delivery_rate::RateSample;
use crate::transport::prr::Prr;
use crate::transport::rack::TlpOutcome;
use crate::units::Time;

/// What an ACK reported (phase 1 of [`TcpSender::on_ack`]), for the phases after it.
#[derive(Clone, Copy, Debug)]
pub(super) struct AckSeen {
    /// RFC 6937 DeliveredData: the change in `snd_una` plus the change in SACKed bytes.
    delivered: u64,
    /// It advanced `snd_una`.
    advanced: bool,
    /// Its delivery rate sample (a controller that reads them only).
    rate: Option<RateSample>,
    /// What it means for an outstanding tail loss probe.
    tlp: TlpOutcome,
    /// The pipe before it (a controller that reads rate samples only, else 0).
    prior_in_flight: u64,
    /// The sender was in recovery before it.
    was_in_recovery: bool,
}

impl TcpSender {
    /// Processes a cumulative ACK of `ack` carrying ECN-Echo `ece`, the echoed send timestamp
    /// `ts_echo` and the SACK blocks `sack` (ignored without SACK); pushes any segments to
    /// send onto `out`. In four phases: what the ACK reports (`take_in_ack`), the reaction to
    /// a new or a duplicate ACK (`on_new_ack`, `on_duplicate_ack`), the losses found after it
    /// (`losses_after_ack`), and the rate sample for a controller that reads them; then the
    /// sender sends what the window allows.
    pub fn on_ack(
        &mut self,
        now: Time,
        ack: u64,
        ece: bool,
        ts_echo: Time,
        sack: &[(u64, u64)],
        out: &mut Vec<Segment>,
    ) {
        let ece = ece && self.ecn;
        let ack = ack.min(self.snd_max);
        let seen = self.take_in_ack(now, ack, ts_echo, sack);
        let prr_due = if seen.advanced {
            self.on_new_ack(now, ack, ece, ts_echo, seen.delivered, out)
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.on_duplicate_ack(now, ece, seen.delivered, out)
        } else {
            false
        };
        let lost_bytes = self.losses_after_ack(now, &seen, prr_due, out);
        let newly_lost = lost_bytes > 0;
        if self.cwr.is_some() && !self.in_recovery {
            // The ECN reduction's step for this ACK (Linux's `tcp_cwnd_reduction`).
            self.prr_window(seen.delivered, seen.advanced && !newly_lost, true);
        }
        if self.rate_samples.is_some() {
            let entered = self.in_recovery && !seen.was_in_recovery;
            let lost = newly_lost || entered;
            // Without RACK's marks, a recovery that starts counts its first segment lost.
            let head =
                if entered && !newly_lost { self.mss.min(self.snd_max - self.snd_una) } else { 0 };
            let info = AckInfo {
                now,
                in_flight: self.in_flight(),
                prior_in_flight: seen.prior_in_flight,
                in_recovery: self.in_recovery,
                lost,
                lost_bytes: lost_bytes + head,
                srtt: self.rtt.srtt(),
                rate: seen.rate,
            };
            self.cc.on_rate_sample(&info);
        }
        self.send_available(now, out);
        self.update_probe_timer(now, seen.advanced);
    }

    /// Phase 1 of an ACK: the scoreboard, the delivery rate sample and RACK take in what it
    /// reports, before `snd_una` moves.
    pub(super) fn take_in_ack(
        &mut self,
        now: Time,
        ack: u64,
        ts_echo: Time,
        sack: &[(u64, u64)],
    ) -> AckSeen {
        // What a controller that reads rate samples gets (BBR): the pipe before this ACK and
        // whether it started a recovery.
        let prior_in_flight = if self.rate_samples.is_some() { self.in_flight() } else { 0 };
        let was_in_recovery = self.in_recovery;
        // RFC 6937 DeliveredData: the change in snd_una plus the change in SACKed bytes.
        let sacked_before = self.loss.sacked_bytes();
        let snd_max = self.snd_max;
        if let Some(s) = self.loss.sack_mut() {
            s.scoreboard.update(ack.max(self.snd_una), snd_max, sack);
        }
        let delivered = (ack.saturating_sub(self.snd_una) + self.loss.sacked_bytes())
            .saturating_sub(sacked_before);
        let rate =
            self.rate_samples.as_mut().and_then(|d| d.on_ack(ack.max(self.snd_una), sack, now));
        let mut tlp = TlpOutcome::None;
        if let Some(r) = self.loss.rack_mut() {
            r.on_ack(ack.max(self.snd_una), sack, now, ts_echo);
            tlp = r.tlp_on_ack(ack, delivered == 0);
        }
        let advanced = ack > self.snd_una;
        AckSeen { delivered, advanced, rate, tlp, prior_in_flight, was_in_recovery }
    }

    /// Phase 2 of an ACK that advances `snd_una`: RTT sample, the controller's feedback and
    /// ECN reaction, then recovery's step or the window's growth, and the timer (restarted by
    /// every such ACK, RFC 6298 5.3, but NewReno's "Impatient" variant). Returns whether PRR
    /// sets the window for this ACK.
    pub(super) fn on_new_ack(
        &mut self,
        now: Time,
        ack: u64,
        ece: bool,
        ts_echo: Time,
        delivered: u64,
        out: &mut Vec<Segment>,
    ) -> bool {
        let acked = ack - self.snd_una;
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.rtt.sample(now.saturating_sub(ts_echo));
        self.cc.on_feedback(delivered, ece, self.snd_una, self.snd_nxt);
        self.end_cwr_if_passed();
        let cut = ece && self.react_to_ecn(now);
        let (prr_due, restart_timer) = if self.in_recovery {
            self.recovery_ack(now, ack, acked, out)
        } else {
            self.dupacks = 0;
            self.limited_bytes = 0;
            if self.rto_recovery && self.recover.is_some_and(|r| ack >= r) {
                self.rto_recovery = false;
            }
            if !cut && self.cwr.is_none() {
                let srtt = self.rtt.srtt().unwrap_or(Time::ZERO);
                self.cc.on_ack(acked, now, srtt);
            }
            (false, true)
        };
        if self.snd_una >= self.snd_max {
            self.timers.rto = None;
        } else if restart_timer {
            self.arm_timer(now);
        }
        prr_due
    }

    /// An ACK of `acked` new bytes in fast recovery: a full ACK ends it; in a SACK recovery
    /// the pipe paces what follows (PRR's window is due); NewReno resends the next hole on a
    /// partial ACK (RFC 6582 section 3.2 step 4). Returns whether PRR's window is due and
    /// whether the ACK restarts the timer.
    pub(super) fn recovery_ack(
        &mut self,
        now: Time,
        ack: u64,
        acked: u64,
        out: &mut Vec<Segment>,
    ) -> (bool, bool) {
        if self.recover.is_some_and(|r| ack >= r) {
            let prr = self.prr.take().is_some();
            self.recovery_window(Step::Exit { prr });
            self.in_recovery = false;
            self.retx_pending = false;
            self.dupacks = 0;
            self.cc.on_recovery_exit(now);
            (false, true)
        } else if self.loss.sack().is_some() {
            // RFC 6675: the pipe, not an inflated window, paces recovery; every ACK that
            // advances snd_una restarts the timer.
            (true, true)
        } else {
            // Partial ACK (step 4): resend the next hole, deflate by the amount acked; only
            // the first partial ACK restarts the timer.
            self.retransmit_una(now, out);
            self.recovery_window(Step::PartialAck { acked });
            (false, !std::mem::replace(&mut self.partial_ack_seen, true))
        }
    }

    /// Phase 2 of a duplicate ACK (with data outstanding): the controller's feedback and ECN
    /// reaction; in recovery NewReno's inflation or PRR's window; outside, fast retransmit on
    /// the `dupthresh`-th duplicate or when RFC 6675's `IsLost(snd_una)` holds (RACK's marks
    /// decide instead when it is on). Returns whether PRR sets the window for this ACK.
    pub(super) fn on_duplicate_ack(
        &mut self,
        now: Time,
        ece: bool,
        delivered: u64,
        out: &mut Vec<Segment>,
    ) -> bool {
        self.cc.on_feedback(delivered, ece, self.snd_una, self.snd_nxt);
        if ece {
            self.react_to_ecn(now);
        }
        self.dupacks += 1;
        if self.in_recovery {
            if self.loss.sack().is_some() {
                return true;
            }
            self.recovery_window(Step::DupAck);
        } else if self.loss.rack().is_none()
            && self.may_enter_recovery()
            && (self.dupacks == self.dupthresh || self.loss.head_is_lost(self.outstanding()))
        {
            self.enter_fast_recovery(now, delivered, out);
        }
        false
    }

    /// Phase 3 of an ACK: the reduction after a loss probe repaired a loss (RFC 8985 section
    /// 7.4), RACK's loss detection (which may start a recovery, its entry setting PRR's window
    /// for this ACK itself), then PRR's window if due. Returns the bytes RACK marked lost.
    pub(super) fn losses_after_ack(
        &mut self,
        now: Time,
        seen: &AckSeen,
        prr_due: bool,
        out: &mut Vec<Segment>,
    ) -> u64 {
        if seen.tlp == TlpOutcome::Repaired && !self.in_recovery {
            self.reduce_after_repaired_probe(now);
        }
        let lost_bytes = self.rack_detect_loss(now, seen.delivered, out);
        let newly_lost = lost_bytes > 0;
        // RFC 9937's SafeACK: snd_una advanced and no further loss was indicated (a loss RACK
        // marked on this ACK; without RACK, RFC 6675's scoreboard infers losses on the fly
        // and every ACK that advances snd_una counts as safe).
        if prr_due && self.in_recovery {
            self.prr_window(seen.delivered, seen.advanced && !newly_lost, false);
        }
        lost_bytes
    }

    /// Reacts to ECN-Echo at most once per window (RFC 3168 6.1.2): the controller sets
    /// ssthresh, and the window comes down to it at once or over the next round trip
    /// (`transport.ecn_response`). Returns whether it reacted.
    pub(super) fn react_to_ecn(&mut self, now: Time) -> bool {
        if !self.limit.window
            || self.in_recovery
            || self.ecn_recover.is_some_and(|r| self.snd_una <= r)
        {
            return false;
        }
        let (flight, prior_cwnd) = (self.flight(), self.cc.window());
        if self.cc.on_ecn(flight, now) {
            match self.ecn_response {
                EcnResponse::Instant => self.recovery_window(Step::EcnReduced),
                EcnResponse::Cwr => {
                    self.cwr = Some(Prr::start(self.cc.ssthresh(), prior_cwnd, self.mss));
                }
            }
        }
        self.ecn_recover = Some(self.snd_max);
        self.send_cwr = true;
        self.stats.ecn_cuts += 1;
        true
    }

    /// Linux's CWR state ends on the ACK that passes the data sent before the echo
    /// (`tcp_fastretrans_alert`: `snd_una` beyond `high_seq`): cwnd = ssthresh.
    pub(super) fn end_cwr_if_passed(&mut self) {
        if self.cwr.is_some() && self.ecn_recover.is_some_and(|r| self.snd_una > r) {
            self.cwr = None;
            self.recovery_window(Step::EcnReduced);
        }
    }
}
