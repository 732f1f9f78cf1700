//! RACK-TLP's timers on the sender (RFC 8985): the reordering timer that looks for losses
//! again, the tail loss probe's timeout and the probe itself, beside the RTO
//! ([`TcpSender::on_timer`] runs whichever is due).

use super::{Segment, TcpSender, Why};
use crate::transport::rack::RackTlp;
use crate::units::Time;

impl TcpSender {
    /// The timer of [`Self::timer_deadline`] fired at `now`: RACK's reordering timer looks
    /// for losses again, the probe timeout sends a loss probe, the RTO times out.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.timers.reorder.is_some_and(|d| d <= now) {
            self.timers.reorder = None;
            // A recovery the timer starts counts one segment delivered, as Linux's
            // `tcp_rack_reo_timeout` does, so that PRR lets the retransmission go.
            self.rack_detect_loss(now, self.mss, out);
            self.send_available(now, out);
            self.update_probe_timer(now, false);
        } else if self.timers.probe.is_some_and(|d| d <= now) {
            self.timers.probe = None;
            self.send_loss_probe(now, out);
        } else if self.timers.rto.is_some_and(|d| d <= now) {
            self.on_rto(now, out);
        }
    }

    /// RACK (RFC 8985 section 6.2 steps 4-5): marks what is lost and arms the reordering
    /// timer; a loss found outside recovery starts one (on an ACK that delivered `delivered`).
    /// Returns the bytes it marked lost.
    pub(super) fn rack_detect_loss(
        &mut self,
        now: Time,
        delivered: u64,
        out: &mut Vec<Segment>,
    ) -> u64 {
        let Some(r) = self.loss.rack_mut() else { return 0 };
        let srtt = self.rtt.srtt().unwrap_or(Time::MAX);
        let (marked, due) = r.detect_loss(now, srtt, self.in_recovery, self.dupthresh);
        self.timers.reorder = due;
        if !self.in_recovery && r.lost_bytes() > 0 && self.may_enter_recovery() {
            self.enter_fast_recovery(now, delivered, out);
        }
        marked
    }

    /// TLP (RFC 8985 section 7.2): arms the probe timeout while the connection is open (not
    /// in recovery, no SACKed data, no probe outstanding, data in flight), restarting it when
    /// `restart` (an ACK advanced snd_una); cancels it otherwise. It fires no later than the
    /// RTO.
    pub(super) fn update_probe_timer(&mut self, now: Time, restart: bool) {
        let Some(r) = self.loss.rack() else { return };
        if self.in_recovery || self.rto_recovery || !r.may_probe() || !self.limit.window {
            self.timers.probe = None;
            return;
        }
        if restart || self.timers.probe.is_none() {
            let at = now + r.pto(self.rtt.srtt(), self.timers.tlp_slack, self.timers.tlp_single);
            self.timers.probe = Some(self.timers.rto.map_or(at, |rto| at.min(rto)));
        }
    }

    /// RFC 8985 section 7.3: the probe timeout fired. Sends one new segment if there is one
    /// the receive window allows (cwnd is not checked), else resends the highest segment
    /// sent; then re-arms the RTO.
    pub(super) fn send_loss_probe(&mut self, now: Time, out: &mut Vec<Segment>) {
        let (seq, len) = if self.snd_nxt == self.snd_max && self.new_data_fits() {
            (self.snd_max, self.mss.min(self.limit.end() - self.snd_max))
        } else if let Some(last) = self.loss.rack().and_then(|r| r.last_segment()) {
            last
        } else {
            return;
        };
        let retransmitted = seq < self.snd_max;
        self.emit(now, seq, len, Why::Probe, out);
        let end = self.snd_max;
        self.rack_mut().on_probe(end, retransmitted);
        self.stats.loss_probes += 1;
        self.arm_timer(now);
    }

    pub(super) fn rack_mut(&mut self) -> &mut RackTlp {
        self.loss.rack_mut().expect("RACK-TLP is on")
    }
}
