//! SCC's underlay congestion control (section III-B): a tunnel's rate R_t from the ECN
//! feedback of its receiver, and the tracker that scales tunnel weights to their division's.
//!
//! - **The paper's law** (`paper`, the default; `weighted_dctcp` is another name for it).
//!   Eq. 1, R ← (1 + W_t) R without congestion, and eq. 2, R ← (1 − α W_t) R with it,
//!   "similar to Seawall, \[mimicking\] the DCTCP behaviour". **Our reading**, the one under
//!   which weights give proportional shares: eq. 1 is DCTCP's increase of one segment per
//!   RTT, weighted: per RTT the window w grows by the factor (1 + W_t / w), i.e. by W_t
//!   segments (spread over the feedback periods); eq. 2 is DCTCP's cut, w ← (1 − α/2) w, α
//!   DCTCP's EWMA (gain g) of the marked fraction, at most once per RTT. A weight in both
//!   steps cannot be read literally: a tunnel settles where its increase balances its cut,
//!   and a W_t that scales both cancels there (every tunnel gets the same rate whatever its
//!   weight); with multiplicative steps the second-order terms then favour the lighter
//!   tunnel (the literal law splits a 2:1 link about 0.4:1). Seawall, the paper's model,
//!   weights the increase only. As DCTCP's, the law moves a window, and the tunnel's rate
//!   (its "rate-limiting queue") is that window over the tunnel's RTT now: its base RTT plus
//!   the queueing its own packets met in the last feedback period, as a window's ACK clock
//!   would see it. **Our choice**: the same law on a pure rate (base RTT) overshoots by the
//!   feedback loop's delay; on a 2:1 dumbbell α rose to 0.8 and the rates swung 240-1000
//!   Mbps, and inner windows, not the tunnels, set the shares (1.33:1).
//! - **Literal** (`literal`): eqs. 1-2 as printed, with weights normalised (W_t / W_max, so
//!   at most 1) and R kept in [floor, line rate]: kept to show the inversion.
//!
//! In every mode a tunnel cuts at most once per RTT, as DCTCP reacts once per window: marks
//! within an RTT of the last cut (caused by the rate before it) only move α.
//! - **Rate validation** (`validate`, off by default; RFC 7661's idea for windows, **our
//!   addition**, the paper has none). A tunnel whose flows send less than half its rate grows
//!   no further, and a cut starts from the rate it used, not the rate it was allowed.
//! - **Least increase** (`min_increase`, default 0; **our option**, the paper has none).
//!   The paper calls the underlay "work-conserving", but with eqs. 3-4 a tunnel whose
//!   reference weight is near 0 (large CS flows: Σ 1/M; late DS flows: 0) grows by almost
//!   nothing per RTT, so after a cut it stays near its floor even when its path falls idle.
//!   With `min_increase = m` the window grows by max(W_t, m) segments per RTT.
//! - **Tracker** (eqs. 3-4): λ_d = W_d / Σ W'_t and W_t = λ_d W'_t, so a division's tunnel
//!   weights sum to W_d.

/// How a tunnel's rate follows its feedback (`scheme.ucc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UccMode {
    #[serde(alias = "weighted_dctcp")]
    Paper,
    Literal,
}

/// One tunnel's underlay state.
#[derive(Clone, Debug, PartialEq)]
pub struct Underlay {
    /// Rate in bit/s.
    pub rate: f64,
    /// Weighted DCTCP's α and window (bits).
    pub alpha: f64,
    pub window: f64,
}

/// The law's constants for one feedback: the EWMA gain, one MSS (bits), the feedback period,
/// the RTT now and the largest the tunnel has seen (s), the rate's bounds (bit/s), and the largest weight of the run (the
/// literal mode's normaliser).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UccParams {
    pub mode: UccMode,
    pub validate: bool,
    /// The least weight the increase uses (segments per RTT).
    pub min_increase: f64,
    pub g: f64,
    pub mss_bits: f64,
    pub period_s: f64,
    pub rtt_s: f64,
    pub max_rtt_s: f64,
    pub floor: f64,
    pub line: f64,
    pub w_max: f64,
}

impl Underlay {
    /// A tunnel starting at `rate` with an RTT of `rtt_s`.
    pub fn new(rate: f64, rtt_s: f64) -> Underlay {
        Underlay { rate, alpha: 0.0, window: rate * rtt_s }
    }
}

impl Underlay {
    /// One feedback: `marked` of `total` packets carried CE since the last, and the tunnel
    /// delivered `used` bit/s over the period; weight `w`; `may_cut` false within an RTT of
    /// the last cut. Returns whether it cut.
    pub fn feedback(
        &mut self,
        p: &UccParams,
        w: f64,
        marked: u64,
        total: u64,
        used: f64,
        may_cut: bool,
    ) -> bool {
        let f = if total == 0 { 0.0 } else { marked as f64 / total as f64 };
        if p.mode != UccMode::Literal {
            self.alpha = (1.0 - p.g) * self.alpha + p.g * f;
        }
        let cut = marked > 0 && may_cut;
        if p.mode == UccMode::Literal && marked > 0 && !may_cut {
            return false;
        }
        let idle = p.validate && used < self.rate / 2.0;
        match p.mode {
            UccMode::Literal => {
                let w = (w / p.w_max).min(1.0);
                let next =
                    if marked == 0 { (1.0 + w) * self.rate } else { (1.0 - f * w) * self.rate };
                self.rate = next.clamp(p.floor, p.line);
            }
            UccMode::Paper => {
                // The window grows to at most line rate x the largest RTT the tunnel has seen
                // (beyond it the window could not be used), and a fall of the RTT does not
                // shrink it: a window sized for a queue is not cut when the queue drains, the
                // rate is capped at line rate instead (with a cap at line rate x the RTT now,
                // the RTT's low points stopped a 2:1 tunnel's growth: 1.6:1).
                // As DCTCP's window, it grows in every period, marked or not (a period with a
                // mark but no cut still grows: skipping it would hold back the tunnel that
                // sends more packets, which sees a mark in more periods).
                let next = if !cut {
                    if idle {
                        self.window
                    } else {
                        let w = w.max(p.min_increase);
                        (self.window + w * p.mss_bits * p.period_s / p.rtt_s)
                            .min(self.window.max(p.line * p.max_rtt_s))
                    }
                } else {
                    let from =
                        if p.validate { self.window.min(used * p.rtt_s) } else { self.window };
                    from * (1.0 - self.alpha / 2.0)
                };
                self.window = next.max(p.floor * p.rtt_s);
                self.rate = (self.window / p.rtt_s).clamp(p.floor, p.line);
            }
        }
        cut
    }
}

/// The tracker's scaling (eqs. 3-4): each tunnel's W_t from the reference weights W'_t so
/// that they sum to `w_d` and keep their proportions; with no reference weight at all the
/// division's weight is split equally.
pub fn scale(w_d: f64, refs: &[f64]) -> Vec<f64> {
    let sum: f64 = refs.iter().sum();
    if refs.is_empty() {
        return Vec::new();
    }
    if sum <= 0.0 || !sum.is_finite() {
        return vec![w_d / refs.len() as f64; refs.len()];
    }
    let lambda = w_d / sum;
    refs.iter().map(|r| lambda * r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A feedback every RTT of 100 us; one MSS of 100 bits (+ 1 Mbps per RTT).
    fn params(mode: UccMode) -> UccParams {
        UccParams {
            mode,
            validate: false,
            min_increase: 0.0,
            g: 1.0 / 16.0,
            mss_bits: 100.0,
            period_s: 1e-4,
            rtt_s: 1e-4,
            max_rtt_s: 1e-4,
            floor: 1e6,
            line: 1e9,
            w_max: 2.0,
        }
    }

    #[test]
    fn the_papers_law_adds_w_segments_per_rtt_and_cuts_by_half_alpha() {
        let p = params(UccMode::Paper);
        let mut u = Underlay::new(100e6, 1e-4);
        u.feedback(&p, 2.0, 0, 10, 1e12, true);
        assert!((u.rate - 102e6).abs() < 1e-3, "no marks: + W MSS per RTT");
        assert!(u.feedback(&p, 2.0, 10, 10, 1e12, true));
        assert!((u.alpha - 1.0 / 16.0).abs() < 1e-15);
        assert!((u.rate - 102e6 * (1.0 - 1.0 / 32.0)).abs() < 1e-3, "marks: R (1 - alpha/2)");
        let doubled = UccParams { rtt_s: 2e-4, ..p };
        u.feedback(&doubled, 2.0, 0, 10, 1e12, true);
        assert!(
            (u.rate - u.window / 2e-4).abs() < 1e-6 && u.rate < 60e6,
            "a queue that doubles the RTT halves the rate at once"
        );
        let (window, alpha) = (u.window, u.alpha);
        assert!(!u.feedback(&p, 2.0, 10, 10, 1e12, false), "within an RTT of a cut: no cut");
        assert!(
            (u.window - window - 200.0).abs() < 1e-6,
            "it grows as DCTCP's window does, marked or not"
        );
        assert!(u.alpha > alpha, "and alpha moves");
        u = Underlay::new(1.5e6, 1e-4);
        for _ in 0..100 {
            u.feedback(&p, 1.0, 10, 10, 1e12, true);
        }
        assert_eq!(u.rate, 1e6, "never below the floor");
    }

    // Validation: a tunnel that uses 100 of its 500 Mbps does not grow; marks cut it from
    // what it used (100 Mbps), not from 500.
    #[test]
    fn an_underused_rate_does_not_grow_and_a_cut_starts_from_use() {
        let p = UccParams { validate: true, ..params(UccMode::Paper) };
        let mut u = Underlay::new(500e6, 1e-4);
        u.feedback(&p, 1.0, 0, 10, 100e6, true);
        assert_eq!(u.rate, 500e6, "no growth while it uses less than half");
        u.feedback(&p, 1.0, 0, 10, 400e6, true);
        assert!((u.rate - 501e6).abs() < 1e-3, "growth while it uses its rate");
        u.alpha = 0.5;
        u.feedback(&p, 1.0, 10, 10, 100e6, true);
        let expect = 100e6 * (1.0 - (0.5 * 15.0 / 16.0 + 1.0 / 16.0) / 2.0);
        assert!((u.rate - expect).abs() < 1e-3, "{} against {expect}", u.rate);
    }

    // A tunnel of weight near 0 hardly grows after a cut; with `min_increase` 1 it grows one
    // segment per RTT (as DCTCP), and a weight above the least still counts in full.
    #[test]
    fn the_least_increase_lifts_a_weight_near_zero_only() {
        let mut u = Underlay::new(100e6, 1e-4);
        u.feedback(&params(UccMode::Paper), 1e-4, 0, 10, 1e12, true);
        assert!((u.rate - 100e6).abs() < 1e3, "grows 1e-4 segments: {}", u.rate);
        let p = UccParams { min_increase: 1.0, ..params(UccMode::Paper) };
        u.feedback(&p, 1e-4, 0, 10, 1e12, true);
        assert!((u.rate - 101e6).abs() < 2e3, "at least one segment per RTT: {}", u.rate);
        u.feedback(&p, 3.0, 0, 10, 1e12, true);
        assert!((u.rate - 104e6).abs() < 2e3, "a weight of 3 adds 3: {}", u.rate);
    }

    /// Two tunnels weighted `wa` and `wb` behind a 1 Gbps link, marked while their sum
    /// exceeds it; their mean rates over the second half.
    fn fluid_shares(mode: UccMode, wa: f64, wb: f64) -> (f64, f64) {
        let p = UccParams { line: 10e9, mss_bits: 12e3 * 0.1, ..params(mode) };
        let (mut a, mut b) = (Underlay::new(5e8, 1e-4), Underlay::new(5e8, 1e-4));
        let (mut sa, mut sb) = (0.0, 0.0);
        for i in 0..200_000 {
            let m = if a.rate + b.rate > 1e9 { 10 } else { 0 };
            a.feedback(&p, wa, m, 10, 1e12, true);
            b.feedback(&p, wb, m, 10, 1e12, true);
            if i >= 100_000 {
                (sa, sb) = (sa + a.rate, sb + b.rate);
            }
        }
        (sa / 1e5, sb / 1e5)
    }

    // The paper's law shares by weight (2:1 and 3:1) and fills the link; read literally, with
    // the weight in the cut too, the heavier tunnel ends with less.
    #[test]
    fn the_papers_law_shares_in_proportion_to_weight_and_the_literal_one_does_not() {
        for (wa, wb) in [(2.0, 1.0), (3.0, 1.0)] {
            let (a, b) = fluid_shares(UccMode::Paper, wa, wb);
            assert!((a / b / (wa / wb) - 1.0).abs() < 0.1, "{wa}:{wb}: ratio {}", a / b);
            assert!(a + b > 0.95e9, "sum {}", a + b);
        }
        let (a, b) = fluid_shares(UccMode::Literal, 2.0, 1.0);
        assert!(a / b < 1.0, "literal 2:1 gives {}", a / b);
    }

    #[test]
    fn the_literal_law_is_multiplicative_with_normalised_weights() {
        let p = params(UccMode::Literal);
        let mut u = Underlay::new(100e6, 1e-4);
        u.feedback(&p, 1.0, 0, 10, 1e12, true);
        assert_eq!(u.rate, 150e6, "(1 + W/W_max) R");
        u.feedback(&p, 4.0, 5, 10, 1e12, true);
        assert_eq!(u.rate, 75e6, "(1 - alpha W) R with W capped at 1: alpha 0.5");
        u.feedback(&p, 2.0, 10, 10, 1e12, true);
        assert_eq!(u.rate, 1e6, "a full cut stops at the floor, never negative");
    }

    #[test]
    fn the_tracker_keeps_proportions_and_the_division_weight() {
        let w = scale(3.0, &[1.0, 2.0, 3.0]);
        assert!((w.iter().sum::<f64>() - 3.0).abs() < 1e-9);
        assert!((w[1] / w[0] - 2.0).abs() < 1e-12 && (w[2] / w[0] - 3.0).abs() < 1e-12);
        assert_eq!(scale(2.0, &[0.0, 0.0]), vec![1.0, 1.0], "no reference: equal split");
        assert!(scale(1.0, &[]).is_empty());
    }
}
