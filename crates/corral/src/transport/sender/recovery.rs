//! Loss recovery: when one may start, what ssthresh halves (`transport.ssthresh`), fast
//! retransmit and fast recovery (RFC 6582 section 3.2 without SACK, RFC 6675 section 5 with
//! it), the window each step asks of the controller (NewReno's inflation and deflation,
//! RFC 6675's `cwnd = ssthresh`, PRR's `pipe + sndcnt`, RFC 6937), the reduction after a
//! repaired loss probe (RFC 8985 section 7.4), and the retransmission timeout (RFC 6298
//! section 5, RFC 5681 section 3.1) with go-back-N.

use super::{Segment, TcpSender};
use crate::transport::config::SsthreshRule;
use crate::transport::prr::Prr;
use crate::units::Time;

/// A step of loss recovery that sets the window ([`TcpSender::recovery_window`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Recovery starts (RFC 6675 with SACK, else NewReno's).
    Enter { sack: bool },
    /// A duplicate ACK in NewReno's recovery.
    DupAck,
    /// A partial ACK in NewReno's recovery acked `acked` bytes.
    PartialAck { acked: u64 },
    /// PRR's window for an ACK of a SACK recovery: the pipe and what PRR lets go.
    Prr { pipe: u64, sndcnt: u64 },
    /// A full ACK ends recovery (`prr`: a PRR recovery).
    Exit { prr: bool },
    /// An ECN reduction brings cwnd to ssthresh: at once (`transport.ecn_response =
    /// "instant"`) or at the end of the CWR round trip.
    EcnReduced,
}

impl TcpSender {
    /// Whether a new recovery may start: not before the cumulative ACK passes the data sent
    /// before the last one (or the last timeout). SACK recovery starts again once `snd_una`
    /// reaches `RecoveryPoint` (RFC 6675 section 5); NewReno keeps corral's earlier rule,
    /// strictly above it (one segment stricter than RFC 6582's "covers more than recover",
    /// whose `recover` is the last byte sent, not the next).
    pub(super) fn may_enter_recovery(&self) -> bool {
        match self.recover {
            None => true,
            Some(r) if self.loss.sack().is_some() => self.snd_una >= r,
            Some(r) => self.snd_una > r,
        }
    }

    /// The FlightSize that sets ssthresh when recovery starts: the data outstanding, less what
    /// limited transmit sent beyond cwnd (RFC 5681 section 3.2 step 2, RFC 3042 section 2).
    pub(super) fn flight_for_ssthresh(&self) -> u64 {
        self.flight().saturating_sub(self.limited_bytes)
    }

    /// The pipe when recovery starts, the first unacknowledged segment counted lost (ns-3's
    /// `EnterRecovery` marks it before it measures `BytesInFlight`); the FlightSize without
    /// SACK.
    pub(super) fn pipe_for_ssthresh(&self) -> u64 {
        self.loss.pipe_head_lost(self.outstanding()).unwrap_or_else(|| self.flight_for_ssthresh())
    }

    /// RFC 6582 3.2 step 2: fast retransmit and enter fast recovery, on an ACK that delivered
    /// `delivered` bytes (by SACK).
    pub(super) fn enter_fast_recovery(
        &mut self,
        now: Time,
        delivered: u64,
        out: &mut Vec<Segment>,
    ) {
        let flight = match self.ssthresh_rule {
            SsthreshRule::Flight => self.flight_for_ssthresh(),
            SsthreshRule::Pipe => self.pipe_for_ssthresh(),
        };
        self.limited_bytes = 0;
        // The recovery's own window rules take over from an ECN reduction in progress.
        self.cwr = None;
        // One reduction per window (RFC 3168 6.1.2): an ECN cut in this window already set
        // ssthresh for this congestion event.
        if self.ecn_recover.is_none_or(|r| self.snd_una > r) {
            self.cc.on_loss(flight, now);
        }
        self.send_cwr = self.ecn;
        self.recover = Some(self.snd_max);
        self.ecn_recover = Some(self.snd_max);
        self.in_recovery = true;
        self.partial_ack_seen = false;
        self.stats.fast_recoveries += 1;
        if self.loss.sack().is_some() {
            // RFC 6675 section 5 step (4): cwnd = ssthresh (or PRR's window for this ACK),
            // retransmit the first segment, then send as the pipe allows.
            self.sack_state().high_rxt = self.snd_una;
            self.timers.probe = None;
            if self.use_prr {
                // RFC 6937 RecoverFS: the FlightSize, or under the pipe rule the pipe (ns-3).
                let recover_fs = if self.ssthresh_rule == SsthreshRule::Pipe {
                    flight
                } else {
                    self.snd_max - self.snd_una
                };
                self.prr = Some(Prr::start(self.cc.ssthresh(), recover_fs, self.mss));
                self.prr_window(delivered, false, false);
            } else {
                self.recovery_window(Step::Enter { sack: true });
            }
            self.sack_state().rescue_allowed = true;
            if self.loss.rack().is_some() {
                // RACK's marks say what to resend: the caller sends it by NextSeg.
                return;
            }
            self.retransmit_una(now, out);
            if !self.retx_pending {
                self.sack_state().high_rxt =
                    self.snd_una + self.mss.min(self.limit.end() - self.snd_una);
                self.arm_timer(now);
            }
            return;
        }
        self.retransmit_una(now, out);
        self.recovery_window(Step::Enter { sack: false });
    }

    /// The window loss recovery asks of the controller at `step`: the one place the sender
    /// sets a window, which the controller takes or, if it keeps its own through recovery
    /// (BBR), ignores ([`crate::transport::cc::CongestionControl::on_recovery_window`]).
    pub(super) fn recovery_window(&mut self, step: Step) {
        let (cwnd, ssthresh, mss) = (self.cc.window(), self.cc.ssthresh(), self.mss);
        let next = match step {
            // RFC 6675 section 5 step (4.2); RFC 6582 section 3.2 step 2.
            Step::Enter { sack: true } => ssthresh.max(mss),
            Step::Enter { sack: false } => ssthresh.saturating_add(3 * mss),
            // RFC 6582 section 3.2 step 3: one MSS per duplicate ACK.
            Step::DupAck => cwnd.saturating_add(mss),
            // Step 4: deflate by the amount acked, add back one MSS if it was at least one.
            Step::PartialAck { acked } => {
                (cwnd.saturating_sub(acked) + if acked >= mss { mss } else { 0 }).max(mss)
            }
            // RFC 6937 section 3: `pipe + sndcnt`, sndcnt rounded up to whole segments.
            Step::Prr { pipe, sndcnt } => pipe + sndcnt.div_ceil(mss) * mss,
            // PRR ends at ssthresh (RFC 6937); NewReno and RFC 6675 deflate to
            // min(ssthresh, FlightSize + MSS) (RFC 6582 3.2 step 3).
            Step::Exit { prr: true } | Step::EcnReduced => ssthresh.max(mss),
            Step::Exit { prr: false } => {
                ssthresh.min(self.snd_nxt.saturating_sub(self.snd_una).max(mss) + mss)
            }
        };
        self.cc.on_recovery_window(next);
    }

    /// PRR's window for this ACK of a SACK recovery (or, with `cwr`, of an ECN reduction)
    /// that delivered `delivered` bytes (`safe`: it advanced `snd_una` and indicated no new
    /// loss): `cwnd = pipe + sndcnt`, `sndcnt` rounded up to whole segments (RFC 6937 section
    /// 3); unchanged when it delivered nothing.
    pub(super) fn prr_window(&mut self, delivered: u64, safe: bool, cwr: bool) {
        let pipe = self.in_flight();
        let episode = if cwr { &mut self.cwr } else { &mut self.prr };
        if let Some(sndcnt) = episode.as_mut().and_then(|p| p.on_ack(delivered, pipe, safe)) {
            self.recovery_window(Step::Prr { pipe, sndcnt });
        }
    }

    /// RFC 8985 section 7.4: a retransmitted probe repaired a loss; the window is reduced
    /// once, as a fast recovery would have (cwnd = ssthresh), unless this window of data was
    /// already reduced.
    pub(super) fn reduce_after_repaired_probe(&mut self, now: Time) {
        if self.ecn_recover.is_some_and(|r| self.snd_una <= r) {
            return;
        }
        let flight = self.flight();
        if self.cc.on_probe_repaired(flight, now) {
            self.ecn_recover = Some(self.snd_max);
        }
    }

    /// The retransmission timer fired at `now` (the caller checks `now >= rto_deadline`).
    pub fn on_rto(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.snd_una >= self.snd_max {
            self.timers.rto = None;
            return;
        }
        self.stats.timeouts += 1;
        let flight = self.snd_max - self.snd_una;
        if self.rtt.backoff() == 0 && !self.sack_recovery() {
            self.cc.on_timeout(flight, now);
        } else {
            // The same segment timed out again: ssthresh is held (RFC 5681 section 3.1). So it
            // is when SACK recovery times out (Linux's tcp_enter_loss): the recovery already
            // cut it, and the flight, SACKed bytes included, may have grown far beyond the
            // window while a lost retransmission held snd_una.
            self.cc.on_timeout_again();
        }
        self.send_cwr = self.ecn;
        self.recover = Some(self.snd_max);
        self.ecn_recover = Some(self.snd_max);
        self.in_recovery = false;
        self.prr = None;
        self.cwr = None;
        self.rto_recovery = true;
        self.timers.stop_rack();
        if let Some(r) = self.loss.rack_mut() {
            r.on_rto();
        }
        self.retx_pending = false;
        if let Some(s) = self.loss.sack_mut() {
            s.rescue_allowed = false;
        }
        self.dupacks = 0;
        self.limited_bytes = 0;
        self.snd_nxt = self.snd_una;
        self.rtt.back_off();
        self.arm_timer(now);
        self.send_available(now, out);
    }
}
