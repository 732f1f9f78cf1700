//! RackCC's control laws (section 3), as pure functions of their inputs.
//!
//! - **α** (section 3.1): an EWMA of the fraction of marked packets of a JumboFlow, kept at
//!   the source ToR from the echoed ACKs that pass it: α ← (1 − g) α + g F, as DCTCP does
//!   per flow (RFC 8257; g = 1/16).
//! - **Per-subflow law**, once per RTT with the latest α: f + r when α = 0 (read: no marks
//!   in the last round, see [`per_rtt`]) and the subflow
//!   is not limited by an access link (r = MSS/RTT, "fair to standard DCTCP"); f unchanged
//!   when α = 0 and it is; f (1 − α/2) when α > 0. Summed over the N' unconstrained
//!   subflows, the JumboFlow follows F + N' r or F (1 − α/2).
//! - **Destination rate** (section 3.2, RCP/EyeQ-like), every interval d at the receiver:
//!   D ← D (1 + (k (C − y) − k' Q/d) / C), with C the ToR-to-server link's capacity, y the
//!   throughput of the last interval and Q the persistent queue at that ToR port. D is kept
//!   in (0, C].
//! - **Fast Start / Fast End** (section 3.3): when M subflows join a JumboFlow of N, the N
//!   back off to f N / (N + M), each new one starts at T / (N + M) (T: the JumboFlow's
//!   average total throughput) and N ← N + M; a finished subflow unregisters (N − 1) and the
//!   others regain its share through their own increase.

/// One α update from a round of `marked` of `total` packets (no packets: α unchanged).
pub fn update_alpha(alpha: f64, g: f64, marked: u64, total: u64) -> f64 {
    if total == 0 {
        return alpha;
    }
    (1.0 - g) * alpha + g * (marked as f64 / total as f64)
}

/// The per-subflow law: the next f (bit/s) from the current one, α, whether the last round
/// had marks, whether an access link limits the subflow, and r = MSS / RTT (bit/s).
///
/// The paper's "α = 0" is read as "no marks in the last round": α is an EWMA and returns to
/// exactly 0 only after hundreds of quiet rounds, so read literally one mark would cut every
/// subflow for ever after. DCTCP, which the JumboFlow emulates, likewise cuts by α/2 in a
/// window with marks and grows in one without.
pub fn per_rtt(f: f64, alpha: f64, marked: bool, access_limited: bool, r: f64) -> f64 {
    if marked {
        f * (1.0 - alpha / 2.0)
    } else if access_limited {
        f
    } else {
        f + r
    }
}

/// The destination rate's settings: gains k and k', the interval d and the lowest D (> 0,
/// so that D can grow again).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DestinationLaw {
    pub k: f64,
    pub k_q: f64,
    pub interval_s: f64,
    pub floor: f64,
}

impl DestinationLaw {
    /// D after one interval: capacity `c`, throughput `y` (bit/s), persistent queue
    /// `q_bits`. Never above `c`, never below the floor.
    pub fn next(&self, d: f64, c: f64, y: f64, q_bits: f64) -> f64 {
        let next = d * (1.0 + (self.k * (c - y) - self.k_q * q_bits / self.interval_s) / c);
        next.clamp(self.floor, c)
    }
}

/// A JumboFlow's registered subflows as its source ToR counts them (Table 1).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Registry {
    /// N: registered subflows.
    pub n: u32,
}

impl Registry {
    /// Fast Start: `m` subflows join; returns the factor the existing subflows' f is
    /// multiplied by (N / (N + M)) and the f each new one starts at (T / (N + M)); N grows.
    /// With N = 0 (a cold start) the new subflows share `t_cold`, the rate the caller gives
    /// for an idle JumboFlow.
    pub fn join(&mut self, m: u32, t: f64, t_cold: f64) -> (f64, f64) {
        let (n, total) = (self.n as f64, (self.n + m) as f64);
        self.n += m;
        if n == 0.0 {
            return (1.0, t_cold / total);
        }
        (n / total, t / total)
    }

    /// Fast End: a subflow unregisters.
    pub fn leave(&mut self) {
        self.n = self.n.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_is_an_ewma_of_the_marked_fraction() {
        let g = 1.0 / 16.0;
        assert_eq!(update_alpha(0.0, g, 0, 100), 0.0);
        assert!((update_alpha(0.0, g, 50, 100) - 0.5 / 16.0).abs() < 1e-12);
        assert!((update_alpha(1.0, g, 0, 10) - 15.0 / 16.0).abs() < 1e-12);
        assert_eq!(update_alpha(0.3, g, 0, 0), 0.3, "a round without packets leaves alpha");
        let mut a = 0.0;
        for _ in 0..400 {
            a = update_alpha(a, g, 1, 4);
        }
        assert!((a - 0.25).abs() < 1e-6, "converges to the marked fraction: {a}");
    }

    // The three branches of the per-RTT rule.
    #[test]
    fn per_rtt_rule_has_three_branches() {
        let r = 1460.0 * 8.0 / 60e-6;
        assert_eq!(
            per_rtt(1e9, 0.0, false, false, r),
            1e9 + r,
            "no marks, unconstrained: additive increase"
        );
        assert_eq!(per_rtt(1e9, 0.0, false, true, r), 1e9, "no marks, access-limited: unchanged");
        assert_eq!(per_rtt(1e9, 0.5, true, false, r), 0.75e9, "marks: f (1 - alpha / 2)");
        assert_eq!(
            per_rtt(1e9, 0.5, true, true, r),
            0.75e9,
            "marks cut an access-limited subflow too"
        );
        assert_eq!(
            per_rtt(1e9, 0.01, false, false, r),
            1e9 + r,
            "a decayed alpha without new marks grows"
        );
    }

    // D's fixed point: with no queue and y = C it stays; spare capacity raises it, a
    // persistent queue lowers it. Four senders each at D into one receiver (y = min(4D, C),
    // the excess queueing) settle at C/4 within 50 intervals, the queue drained.
    #[test]
    fn destination_rate_settles_at_the_fair_share() {
        let c = 10e9;
        let law = DestinationLaw { k: 0.5, k_q: 0.25, interval_s: 1e-4, floor: 1e6 };
        assert_eq!(law.next(2e9, c, c, 0.0), 2e9);
        assert!(law.next(2e9, c, 5e9, 0.0) > 2e9);
        assert!(law.next(2e9, c, c, 1e5) < 2e9);
        assert_eq!(law.next(9e9, c, 0.0, 0.0), c, "never above C");
        let (mut d, mut q) = (c, 0.0f64);
        for _ in 0..50 {
            let offered = 4.0 * d;
            q = (q + (offered - c) * law.interval_s).max(0.0);
            d = law.next(d, c, offered.min(c), q);
        }
        assert!((d / (c / 4.0) - 1.0).abs() < 0.1, "D = {d:.3e}");
        assert!(q < 0.1 * 1e5 * 8.0, "queue {q} bits");
    }

    // Fast Start with N = 5 at 2 Gbps and M = 5 joining at T = 10 Gbps: every subflow at
    // 1 Gbps, N = 10, and the sum of rates conserved; Fast End unregisters one.
    #[test]
    fn fast_start_and_fast_end_bookkeeping() {
        let mut reg = Registry { n: 5 };
        let (back_off, first) = reg.join(5, 10e9, 0.0);
        let existing: Vec<f64> = vec![2e9 * back_off; 5];
        assert!(existing.iter().all(|&f| (f - 1e9).abs() < 1.0) && (first - 1e9).abs() < 1.0);
        assert_eq!(reg.n, 10);
        assert!(
            (existing.iter().sum::<f64>() + 5.0 * first - 10e9).abs() < 1.0,
            "the sum is conserved"
        );
        reg.leave();
        assert_eq!(reg.n, 9);
        let mut cold = Registry::default();
        assert_eq!(cold.join(2, 0.0, 8e9), (1.0, 4e9), "a cold start shares the given rate");
    }
}
