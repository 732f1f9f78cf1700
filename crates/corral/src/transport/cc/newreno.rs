//! TCP NewReno window management: RFC 5681 slow start and congestion avoidance, halving
//! on loss. The fast-recovery mechanics of RFC 6582 live in the sender; NewReno needs no
//! hook beyond the trait defaults.

use super::CongestionControl;

#[derive(Clone, Debug, Default)]
pub struct NewReno;

impl CongestionControl for NewReno {}

impl super::Declared for NewReno {
    type Config = super::NoSettings;
    fn new(_cfg: &super::NoSettings) -> NewReno {
        NewReno
    }
}

#[cfg(test)]
mod tests {
    use super::super::CcState;
    use super::*;
    use crate::units::Time;

    #[test]
    fn slow_start_then_linear_growth() {
        let mut st = CcState::new(1000, 2);
        let mut cc = NewReno;
        cc.on_ack(&mut st, 1000, Time::ZERO, Time::ZERO);
        assert_eq!(st.cwnd, 3000);
        st.ssthresh = 3000;
        // One full window of bytes acked adds one MSS.
        cc.on_ack(&mut st, 1000, Time::ZERO, Time::ZERO);
        cc.on_ack(&mut st, 1000, Time::ZERO, Time::ZERO);
        assert_eq!(st.cwnd, 3000);
        cc.on_ack(&mut st, 1000, Time::ZERO, Time::ZERO);
        assert_eq!(st.cwnd, 4000);
    }

    #[test]
    fn loss_halves_flight_with_floor_of_two_segments() {
        let mut st = CcState::new(1000, 10);
        let mut cc = NewReno;
        cc.on_loss(&mut st, 10_000, Time::ZERO);
        assert_eq!(st.ssthresh, 5000);
        cc.on_loss(&mut st, 1000, Time::ZERO);
        assert_eq!(st.ssthresh, 2000);
        cc.on_timeout(&mut st, 8000, Time::ZERO);
        assert_eq!((st.cwnd, st.ssthresh), (1000, 4000));
    }
}
