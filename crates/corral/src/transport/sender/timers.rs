//! A sender's three timers: the retransmission timeout (RFC 6298), RACK-TLP's probe timeout
//! and its reordering timer (RFC 8985 sections 6.3 and 7.2). The caller wakes the sender at
//! the earliest ([`Timers::earliest`], [`super::TcpSender::timer_deadline`]).

use crate::units::Time;

#[derive(Clone, Debug)]
pub(super) struct Timers {
    /// When the retransmission timer expires, if it is running.
    pub(super) rto: Option<Time>,
    /// When the tail loss probe fires (RACK-TLP, while the connection is open).
    pub(super) probe: Option<Time>,
    /// When RACK's reordering timer fires.
    pub(super) reorder: Option<Time>,
    /// Added to 2 SRTT in the probe timeout (`transport.tlp_slack`).
    pub(super) tlp_slack: Time,
    /// Added to 2 SRTT instead when one segment is out: the minimum RTO, or the receiver's
    /// delayed-ACK timeout if longer.
    pub(super) tlp_single: Time,
}

impl Timers {
    pub(super) fn new(tlp_slack: Time, tlp_single: Time) -> Timers {
        Timers { rto: None, probe: None, reorder: None, tlp_slack, tlp_single }
    }

    /// The earliest of the three.
    pub(super) fn earliest(&self) -> Option<Time> {
        [self.rto, self.probe, self.reorder].into_iter().flatten().min()
    }

    /// Stops RACK-TLP's two timers.
    pub(super) fn stop_rack(&mut self) {
        self.probe = None;
        self.reorder = None;
    }
}
