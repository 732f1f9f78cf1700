//! Round-trip estimation and the retransmission timeout of RFC 6298: SRTT and RTTVAR with
//! alpha = 1/8 and beta = 1/4 (section 2), RTO = SRTT + max(G, 4 RTTVAR) bounded by the
//! configured minimum and maximum (2.4, 2.5), doubled on every timeout (5.5) and recomputed
//! from the next sample (5.7). Samples come from the timestamp echo, so retransmitted
//! segments give valid samples too (RFC 7323 section 4).

use crate::units::Time;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    base_rto: Time,
    backoff: u32,
    min_rto: Time,
    max_rto: Time,
    /// Clock granularity G (1 us).
    granularity: Time,
}

impl RttEstimator {
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time) -> RttEstimator {
        RttEstimator {
            srtt: None,
            rttvar: Time::ZERO,
            base_rto: initial_rto,
            backoff: 0,
            min_rto,
            max_rto,
            granularity: Time::from_us(1),
        }
    }

    pub fn sample(&mut self, r: Time) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Time(r.0 / 2);
            }
            Some(s) => {
                let err = s.0.abs_diff(r.0);
                self.rttvar = Time((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Time((7 * s.0 + r.0) / 8));
            }
        }
        let s = self.srtt.unwrap_or(r);
        let rto = s.0 + self.granularity.0.max(4 * self.rttvar.0);
        self.base_rto = Time(rto.clamp(self.min_rto.0, self.max_rto.0));
        self.backoff = 0;
    }

    /// The current timeout, including exponential backoff.
    pub fn rto(&self) -> Time {
        let shifted = self.base_rto.0.checked_shl(self.backoff).unwrap_or(u64::MAX);
        Time(if shifted >> self.backoff != self.base_rto.0 {
            self.max_rto.0
        } else {
            shifted.min(self.max_rto.0)
        })
    }

    /// Doubles the timeout after it expired (RFC 6298 5.5).
    pub fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sample_then_smoothing() {
        let mut e = RttEstimator::new(Time::from_ms(1000), Time::from_us(1), Time::from_ms(60_000));
        e.sample(Time::from_us(100));
        assert_eq!(e.srtt(), Some(Time::from_us(100)));
        assert_eq!(e.rto(), Time::from_us(300)); // 100 + 4 * 50
        e.sample(Time::from_us(200));
        // rttvar = (3*50 + 100)/4 = 62.5us, srtt = (7*100 + 200)/8 = 112.5us.
        assert_eq!(e.srtt(), Some(Time(112_500_000)));
        assert_eq!(e.rto(), Time(112_500_000 + 250_000_000));
    }

    #[test]
    fn rto_backoff_doubles_and_sample_resets_it() {
        let mut e = RttEstimator::new(Time::from_ms(1000), Time::from_ms(2), Time::from_ms(60_000));
        e.sample(Time::from_us(100));
        assert_eq!(e.rto(), Time::from_ms(2)); // clamped to min_rto
        e.back_off();
        assert_eq!(e.rto(), Time::from_ms(4));
        e.back_off();
        assert_eq!(e.rto(), Time::from_ms(8));
        e.sample(Time::from_us(100));
        assert_eq!(e.backoff(), 0);
        assert_eq!(e.rto(), Time::from_ms(2));
    }

    #[test]
    fn backoff_is_capped_at_max_rto() {
        let mut e = RttEstimator::new(Time::from_ms(1000), Time::from_ms(200), Time::from_ms(3000));
        for _ in 0..100 {
            e.back_off();
        }
        assert_eq!(e.rto(), Time::from_ms(3000));
    }
}
