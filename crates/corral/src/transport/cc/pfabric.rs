//! pFabric's host (Alizadeh et al., SIGCOMM 2013, section 4.2): a flow starts at line rate,
//! with an initial window of one bandwidth-delay product (`transport.initial_window`), and
//! keeps it; a loss found by duplicate ACKs is only repaired, not answered by a cut (the
//! fabric drops the least urgent packets on purpose); a timeout drops the window to one MSS
//! and slow start climbs back; the window never exceeds the initial one. The paper's small
//! RTO (about 3 RTTs) is `transport.min_rto`. Packets carry their flow's remaining size as
//! priority ([`crate::net::packet::pfabric_priority`]) for the `pfabric` switch queue.

use super::{CcState, CongestionControl};
use crate::units::Time;

#[derive(Clone, Debug, Default)]
pub struct Pfabric {
    /// The initial window (bytes), taken at the first hook, before anything changed it.
    cap: Option<u64>,
}

impl Pfabric {
    fn cap(&mut self, st: &CcState) -> u64 {
        *self.cap.get_or_insert(st.cwnd)
    }
}

impl CongestionControl for Pfabric {
    fn on_ack(&mut self, st: &mut CcState, acked: u64, _now: Time, _srtt: Time) {
        let cap = self.cap(st);
        st.reno_increase(acked);
        st.cwnd = st.cwnd.min(cap);
    }

    fn on_loss(&mut self, st: &mut CcState, _flight: u64, _now: Time) {
        st.ssthresh = self.cap(st);
    }

    /// pFabric does not reduce on ECN-Echo (its window stays at the cap).
    fn on_ecn(&mut self, st: &mut CcState, _flight: u64, _now: Time) -> bool {
        self.cap(st);
        false
    }

    fn on_timeout(&mut self, st: &mut CcState, _flight: u64, _now: Time) {
        st.ssthresh = self.cap(st);
        st.cwnd = st.mss;
        st.ca_acked = 0;
    }
}

impl super::Declared for Pfabric {
    type Config = super::NoSettings;
    const SIZE_PRIORITY: bool = true;
    fn new(_cfg: &super::NoSettings) -> Pfabric {
        Pfabric::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    #[test]
    fn keeps_its_initial_window_through_losses_and_climbs_back_after_a_timeout() {
        let mut cc = Pfabric::default();
        let mut st = CcState::new(MSS, 20);
        cc.on_ack(&mut st, MSS, Time::ZERO, Time::ZERO);
        assert_eq!(st.cwnd, 20 * MSS, "never above the initial window");
        cc.on_loss(&mut st, 20 * MSS, Time::ZERO);
        assert_eq!(st.ssthresh, 20 * MSS, "a fast retransmit does not cut");
        assert!(!cc.on_ecn(&mut st, 20 * MSS, Time::ZERO), "ECN means nothing to it");
        assert_eq!(st.cwnd, 20 * MSS);
        cc.on_timeout(&mut st, 20 * MSS, Time::ZERO);
        assert_eq!((st.cwnd, st.ssthresh), (MSS, 20 * MSS));
        for _ in 0..40 {
            cc.on_ack(&mut st, MSS, Time::ZERO, Time::ZERO);
        }
        assert_eq!(st.cwnd, 20 * MSS, "slow start back to the initial window, no further");
    }
}
