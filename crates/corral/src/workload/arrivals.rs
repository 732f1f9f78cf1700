//! Flow (or request) arrival processes: Poisson arrivals, the open-loop model of datacenter
//! transport evaluations (pFabric, Alizadeh et al. SIGCOMM 2013, section 5; HPCC, Li et al.
//! SIGCOMM 2019, section 5.1), with the rate derived from a target load, or a fixed period.
//!
//! For a target load L of a capacity C bit/s and a mean of B bytes per arrival, the rate is
//! lambda = L * C / (8 * B) arrivals per second: the offered bytes per second then equal the
//! fraction L of the capacity. The mean comes from the size distribution, never a constant.

use crate::sim::rng::Rng;
use crate::units::Time;

/// Arrivals per second that offer `load` of `capacity_bps` when each arrival brings
/// `mean_bytes` on average.
pub fn rate_for_load(load: f64, capacity_bps: f64, mean_bytes: f64) -> f64 {
    load * capacity_bps / (8.0 * mean_bytes)
}

/// How arrivals are spaced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arrivals {
    /// Exponential gaps with this many arrivals per second on average.
    Poisson { per_s: f64 },
    /// One arrival every `interval`.
    Periodic { interval: Time },
}

impl Arrivals {
    /// The gap to the next arrival (at least 1 ps, so time always advances).
    pub fn gap(&self, rng: &mut Rng) -> Time {
        match *self {
            Arrivals::Poisson { per_s } => {
                let secs = -(1.0 - rng.unit()).ln() / per_s;
                Time(((secs * Time::PS_PER_SEC as f64).round() as u64).max(1))
            }
            Arrivals::Periodic { interval } => interval,
        }
    }

    /// Arrival times in [start, stop): the first one a gap after `start` for Poisson (a
    /// memoryless process has no preferred phase), exactly at `start` for a period. At most
    /// `limit` times; `None` if there would be more.
    pub fn times(&self, start: Time, stop: Time, limit: usize, rng: &mut Rng) -> Option<Vec<Time>> {
        let mut out = Vec::new();
        let mut t = match self {
            Arrivals::Poisson { .. } => start + self.gap(rng),
            Arrivals::Periodic { .. } => start,
        };
        while t < stop {
            if out.len() >= limit {
                return None;
            }
            out.push(t);
            t = t + self.gap(rng);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_count_and_gaps_match_the_rate() {
        let a = Arrivals::Poisson { per_s: 100_000.0 };
        let mut r = Rng::stream(1, 5, 5);
        let ts = a.times(Time::ZERO, Time::from_ms(1000), usize::MAX, &mut r).unwrap();
        // 100k expected; Poisson sd = 316.
        assert!((ts.len() as f64 - 100_000.0).abs() < 1500.0, "{}", ts.len());
        assert!(ts.windows(2).all(|w| w[1] > w[0]));
        // Exponential gaps: the fraction of gaps above the mean is e^-1.
        let mean = Time::from_us(10);
        let above =
            ts.windows(2).filter(|w| w[1] - w[0] > mean).count() as f64 / (ts.len() - 1) as f64;
        assert!((above - (-1.0f64).exp()).abs() < 0.01, "{above}");
    }

    #[test]
    fn periodic_starts_at_start_and_limit_is_enforced() {
        let a = Arrivals::Periodic { interval: Time::from_us(10) };
        let mut r = Rng::stream(1, 5, 5);
        let ts = a.times(Time::from_us(5), Time::from_us(40), 100, &mut r).unwrap();
        assert_eq!(
            ts,
            vec![Time::from_us(5), Time::from_us(15), Time::from_us(25), Time::from_us(35)]
        );
        assert!(a.times(Time::ZERO, Time::from_ms(1), 10, &mut r).is_none());
    }

    #[test]
    fn rate_from_load() {
        // 10 Gbps at load 0.5 with 1 MB flows: 625 flows per second.
        assert!((rate_for_load(0.5, 10e9, 1e6) - 625.0).abs() < 1e-9);
    }
}
