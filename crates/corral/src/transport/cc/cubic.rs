//! CUBIC congestion control (RFC 9438).
//!
//! In congestion avoidance the window follows the cubic function of the time `t` since the
//! current epoch began (section 4.2):
//!
//! ```text
//! W_cubic(t) = C * (t - K)^3 + W_max,   K = cbrt((W_max - cwnd_epoch) / C)
//! ```
//!
//! with windows in segments and `t` in seconds. It is concave up to the window `W_max` held
//! before the last congestion event, flat around it, then convex while probing beyond it.
//! On each ACK the window moves `(target - cwnd) / cwnd` segments per acked segment toward
//! `target = W_cubic(t + RTT)`, clamped to `[cwnd, 1.5 * cwnd]`. In the Reno-friendly
//! region (section 4.3) an AIMD estimate `W_est` that grows like Reno with
//! `alpha_cubic = 3 (1 - beta) / (1 + beta)` takes over when it is larger than `W_cubic(t)`.
//!
//! A congestion event (loss, ECN-Echo) sets `ssthresh = max(beta * cwnd, 2 MSS)` (section
//! 4.6), records `W_max`, lowered by fast convergence (section 4.7) when the window never
//! got back to the previous `W_max`, and ends the epoch; the next one starts at the first
//! congestion-avoidance ACK. A timeout (section 4.8) also drops cwnd to one MSS, and the
//! first epoch after it starts on the plateau: `K = 0`, `W_max = cwnd_epoch`. The same
//! rule applies to the first epoch of a flow, which has no congestion event to refer to.
//! Slow start is Reno's (HyStart++, section 4.10, is not modelled), and so is the
//! fast-recovery mechanics, which the sender owns.
//!
//! `CcState::cwnd` (bytes) stays the source of truth, since the sender moves it during
//! recovery. Window arithmetic is done in segments as `f64`; the fraction of a byte that
//! does not fit in the integer window is carried over to the next ACK so slow growth is not
//! lost to truncation. The cube root is computed here with basic IEEE operations only
//! ([`cbrt`]) so results do not depend on the platform's libm. Every constant is a
//! setting ([`CubicConfig`]).

use super::{CcState, CongestionControl, Declared};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// CUBIC settings (scenario key `transport.cc`, `kind = "cubic"`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// Aggressiveness `C` of the cubic function, in segments / s^3 (RFC 9438 section 4.2).
    /// Default 0.4 (RFC 9438 section 5.1).
    pub c: f64,
    /// Multiplicative decrease factor `beta_cubic` (RFC 9438 section 4.6). Default 0.7.
    pub beta: f64,
    /// Lower `W_max` to `cwnd * (1 + beta) / 2` when a congestion event comes before the
    /// window regained the previous `W_max` (RFC 9438 section 4.7). Default true.
    pub fast_convergence: bool,
    /// Use the Reno-friendly AIMD estimate `W_est` when it beats the cubic window
    /// (RFC 9438 section 4.3). Default true.
    pub reno_friendly: bool,
}

impl Default for CubicConfig {
    fn default() -> CubicConfig {
        CubicConfig { c: 0.4, beta: 0.7, fast_convergence: true, reno_friendly: true }
    }
}

impl CubicConfig {
    /// Checks the ranges in which the RFC 9438 formulas make sense.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.c.is_finite() && self.c > 0.0) {
            return Err(format!("cubic: c must be positive, got {}", self.c));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(format!("cubic: beta must be in (0, 1), got {}", self.beta));
        }
        Ok(())
    }
}

/// One congestion-avoidance epoch (RFC 9438 section 4.2).
#[derive(Clone, Debug)]
struct Epoch {
    /// When the epoch started (first congestion-avoidance ACK after a congestion event).
    start: Time,
    /// Seconds from `start` until `W_cubic` reaches `W_max`.
    k: f64,
    /// Reno-friendly window estimate (segments, section 4.3).
    w_est: f64,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    cfg: CubicConfig,
    /// `W_max` (segments): the window before the last reduction, after fast convergence.
    w_max: f64,
    /// `cwnd_prior` (segments): the window when ssthresh was last set (section 4.6).
    cwnd_prior: f64,
    /// The current congestion-avoidance epoch; `None` until the first CA ACK after an event.
    epoch: Option<Epoch>,
    /// The next epoch starts on the plateau (`K = 0`, `W_max = cwnd_epoch`): true for a new
    /// flow and after a timeout (section 4.8).
    plateau_start: bool,
    /// Fraction of a byte, in [0, 1), by which the window exceeds `CcState::cwnd`.
    cwnd_frac: f64,
}

impl Cubic {
    /// `W_cubic(t)` in segments, `t` in seconds since the epoch start (section 4.2).
    fn w_cubic(&self, k: f64, t: f64) -> f64 {
        let d = t - k;
        self.cfg.c * d * d * d + self.w_max
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, st: &mut CcState, acked: u64, now: Time, srtt: Time) {
        if st.in_slow_start() {
            st.reno_increase(acked);
            return;
        }
        let mss = st.mss as f64;
        let cwnd = (st.cwnd as f64 + self.cwnd_frac) / mss;
        let segs = acked as f64 / mss;
        let (start, k) = match &self.epoch {
            Some(ep) => (ep.start, ep.k),
            None => {
                let k = if self.plateau_start {
                    self.w_max = cwnd;
                    self.plateau_start = false;
                    0.0
                } else {
                    cbrt((self.w_max - cwnd) / self.cfg.c)
                };
                self.epoch = Some(Epoch { start: now, k, w_est: cwnd });
                (now, k)
            }
        };
        let t = now.saturating_sub(start).as_secs_f64();
        let div = cwnd.max(1.0);

        // Section 4.2: move toward W_cubic one RTT ahead, never shrinking, at most 1.5x.
        let target = self.w_cubic(k, t + srtt.as_secs_f64()).clamp(cwnd, 1.5 * cwnd);
        let mut next = cwnd + (target - cwnd) / div * segs;

        // Section 4.3: Reno-friendly estimate; alpha_cubic becomes 1 once W_est is back at
        // the window held when ssthresh was last set.
        if self.cfg.reno_friendly {
            let w_cubic_now = self.w_cubic(k, t);
            let alpha_cubic = 3.0 * (1.0 - self.cfg.beta) / (1.0 + self.cfg.beta);
            let cwnd_prior = self.cwnd_prior;
            let ep = self.epoch.as_mut().expect("epoch started above");
            let alpha = if ep.w_est >= cwnd_prior { 1.0 } else { alpha_cubic };
            ep.w_est += alpha * segs / div;
            if w_cubic_now < ep.w_est {
                next = next.max(ep.w_est);
            }
        }

        // next >= cwnd, so the integer window never shrinks on an ACK.
        let bytes = st.cwnd as f64 + self.cwnd_frac + (next - cwnd) * mss;
        let whole = bytes.floor();
        st.cwnd = whole as u64;
        self.cwnd_frac = bytes - whole;
    }

    fn on_loss(&mut self, st: &mut CcState, _flight: u64, _now: Time) {
        let cwnd = (st.cwnd as f64 + self.cwnd_frac) / st.mss as f64;
        // Section 4.7: fast convergence releases bandwidth to newer flows.
        self.w_max = if self.cfg.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.cfg.beta) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        // Section 4.6.
        st.ssthresh = ((st.cwnd as f64 * self.cfg.beta).round() as u64).max(2 * st.mss);
        self.epoch = None;
        self.plateau_start = false;
        self.cwnd_frac = 0.0;
    }

    fn on_timeout(&mut self, st: &mut CcState, flight: u64, now: Time) {
        // Section 4.8: ssthresh as for loss, cwnd as Reno, next epoch on the plateau.
        self.on_loss(st, flight, now);
        st.cwnd = st.mss;
        st.ca_acked = 0;
        self.plateau_start = true;
    }
}

/// Cube root by Newton's method using only IEEE-754 basic operations, which are correctly
/// rounded everywhere, so the result is the same on every platform (unlike `f64::cbrt`,
/// which calls the system libm). Exact for 0, keeps the sign, passes NaN and infinities.
pub fn cbrt(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    if x < 0.0 {
        return -cbrt(-x);
    }
    // Subnormals: scale by 2^54 so the exponent split below sees a normal number.
    let (x, q_bias) = if x < f64::MIN_POSITIVE { (x * (1u64 << 54) as f64, -18) } else { (x, 0) };
    // x = m * 2^e with m in [1, 2); e = 3q + r; cbrt(x) = cbrt(m * 2^r) * 2^q.
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    let (q, r) = (e.div_euclid(3), e.rem_euclid(3));
    let a = m * (1u64 << r) as f64;
    // a is in [1, 8). (a + 1 + 1) / 3 >= cbrt(a) by AM-GM, and Newton's iterates for
    // y^3 = a decrease monotonically from above: iterate until they stop decreasing.
    let mut y = (a + 2.0) / 3.0;
    for _ in 0..16 {
        let next = (2.0 * y + a / (y * y)) / 3.0;
        if next >= y {
            break;
        }
        y = next;
    }
    y * f64::from_bits(((q + q_bias + 1023) as u64) << 52)
}

impl Declared for Cubic {
    type Config = CubicConfig;
    fn new(cfg: &CubicConfig) -> Cubic {
        Cubic {
            cfg: cfg.clone(),
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            plateau_start: true,
            cwnd_frac: 0.0,
        }
    }
    fn validate(cfg: &CubicConfig) -> Result<(), String> {
        cfg.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// A flow in congestion avoidance that just lost a packet at `w_max` segments, with the
    /// sender having deflated cwnd to ssthresh (end of fast recovery).
    fn after_loss(cfg: CubicConfig, w_max: u64) -> (Cubic, CcState) {
        let mut cc = Cubic::new(&cfg);
        let mut st = CcState::new(MSS, w_max);
        st.ssthresh = st.cwnd;
        cc.on_loss(&mut st, w_max * MSS, Time::ZERO);
        st.cwnd = st.ssthresh;
        (cc, st)
    }

    /// Delivers one window of single-segment ACKs per RTT, spread evenly over the RTT,
    /// for `rounds` RTTs from `start`; returns cwnd in segments at the end of each round.
    fn run_rounds(
        cc: &mut Cubic,
        st: &mut CcState,
        start: Time,
        rtt: Time,
        rounds: u64,
    ) -> Vec<f64> {
        let mut out = Vec::new();
        for i in 0..rounds {
            let t0 = start.ps() + i * rtt.ps();
            let n = st.cwnd / MSS;
            for j in 0..n {
                cc.on_ack(st, MSS, Time::from_ps(t0 + j * rtt.ps() / n), rtt);
            }
            out.push(st.cwnd as f64 / MSS as f64);
        }
        out
    }

    #[test]
    fn loss_reduces_window_by_beta() {
        let (cc, st) = after_loss(CubicConfig::default(), 100);
        assert_eq!(st.ssthresh, 70 * MSS);
        assert_eq!(cc.w_max, 100.0);
        assert_eq!(cc.cwnd_prior, 100.0);
        // ECN-Echo takes the same reduction: ssthresh, which the sender's reduction brings
        // cwnd down to.
        let mut cc = Cubic::new(&CubicConfig::default());
        let mut st = CcState::new(MSS, 100);
        assert!(cc.on_ecn(&mut st, 100 * MSS, Time::ZERO));
        assert_eq!((st.cwnd, st.ssthresh), (100 * MSS, 70 * MSS));
        // ssthresh never goes below two segments.
        let mut st = CcState::new(MSS, 2);
        cc.on_loss(&mut st, 2 * MSS, Time::ZERO);
        assert_eq!(st.ssthresh, 2 * MSS);
    }

    /// Section 4.2: during each RTT the window moves to the target W_cubic(t + RTT) set at
    /// its start t, so it follows RFC 9438 Figure 1 one RTT ahead, reaches W_max near t = K
    /// and grows convexly beyond it. The curve only depends on C * RTT^3: a datacenter RTT
    /// with C scaled by 10^9 must give the same trajectory as the RFC constant at 100 ms.
    #[test]
    fn growth_follows_cubic_function() {
        for (rtt, c) in [(Time::from_ms(100), 0.4), (Time::from_us(100), 0.4e9)] {
            let cfg = CubicConfig { c, reno_friendly: false, ..CubicConfig::default() };
            let (mut cc, mut st) = after_loss(cfg, 100);
            let k = cbrt(30.0 / c);
            let rtt_s = rtt.as_secs_f64();
            assert!((k / rtt_s - 42.17).abs() < 0.01, "K = {} RTTs", k / rtt_s);
            let w = run_rounds(&mut cc, &mut st, Time::ZERO, rtt, 60);
            for (i, &cwnd) in w.iter().enumerate() {
                // Round i starts at t = i RTT and aims at W_cubic(t + RTT).
                let t = i as f64 * rtt_s;
                let expect = c * (t + rtt_s - k).powi(3) + 100.0;
                let err = (cwnd - expect).abs() / expect;
                assert!(err < 0.005, "round {i}: cwnd {cwnd} vs W_cubic(t+RTT) {expect}");
            }
            // Concave approach: fast at first, then a plateau just below W_max.
            assert!(w[0] > 71.0 && w[0] < 73.0, "{}", w[0]);
            assert!(w[20] > 96.0 && w[20] < 97.0, "{}", w[20]);
            assert!(w[39] > 99.0 && w[39] < 100.0, "{}", w[39]);
            // At t = K (round 42) the window is W_max; past it, convex growth.
            assert!((w[41] - 100.0).abs() < 0.5, "{}", w[41]);
            assert!(w[59] > 102.0, "{}", w[59]);
            assert!(w[59] - w[58] > w[50] - w[49]);
        }
    }

    /// Section 4.2: far below a huge W_max the target is capped at 1.5 cwnd, so the window
    /// grows at most 1.5x per RTT.
    #[test]
    fn target_is_clamped_to_one_and_a_half_cwnd() {
        let rtt = Time::from_us(100);
        let cfg = CubicConfig { c: 1e15, reno_friendly: false, ..CubicConfig::default() };
        let (mut cc, mut st) = after_loss(cfg, 1000);
        st.cwnd = 10 * MSS;
        st.ssthresh = st.cwnd;
        let w = run_rounds(&mut cc, &mut st, Time::ZERO, rtt, 6);
        assert!(w[0] > 14.5 && w[0] <= 15.0, "{}", w[0]);
        for pair in w.windows(2) {
            let ratio = pair[1] / pair[0];
            assert!(ratio > 1.45 && ratio <= 1.5, "{pair:?}");
        }
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        for (fc, expect) in [(true, 80.0 * 1.7 / 2.0), (false, 80.0)] {
            let cfg = CubicConfig { fast_convergence: fc, ..CubicConfig::default() };
            let (mut cc, mut st) = after_loss(cfg, 100);
            st.cwnd = 80 * MSS;
            cc.on_loss(&mut st, 80 * MSS, Time::ZERO);
            assert!((cc.w_max - expect).abs() < 1e-9, "fc={fc}: W_max {}", cc.w_max);
            assert_eq!(st.ssthresh, 56 * MSS);
            // Back above the previous W_max, W_max is just the window again.
            st.cwnd = 120 * MSS;
            cc.on_loss(&mut st, 120 * MSS, Time::ZERO);
            assert_eq!(cc.w_max, 120.0);
        }
        // The next epoch aims at the lowered W_max: K = cbrt((68 - 56) / C).
        let (mut cc, mut st) = after_loss(CubicConfig::default(), 100);
        st.cwnd = 80 * MSS;
        cc.on_loss(&mut st, 80 * MSS, Time::ZERO);
        st.cwnd = st.ssthresh;
        cc.on_ack(&mut st, MSS, Time::ZERO, Time::ZERO);
        let k = cc.epoch.as_ref().unwrap().k;
        assert!((k - cbrt(12.0 / 0.4)).abs() < 1e-9, "K = {k}");
    }

    /// At a 100 us RTT W_cubic hardly moves in a few ms, so the window follows W_est:
    /// alpha_cubic segments per RTT until W_est reaches cwnd_prior, then 1 per RTT.
    #[test]
    fn reno_friendly_region_follows_w_est() {
        let rtt = Time::from_us(100);
        let (mut cc, mut st) = after_loss(CubicConfig::default(), 100);
        let w = run_rounds(&mut cc, &mut st, Time::ZERO, rtt, 100);
        let alpha = 3.0 * 0.3 / 1.7;
        // Per round W_est gains alpha * n / cwnd segments, slightly less than alpha since
        // cwnd grows within the round.
        let per_round = (w[20] - w[10]) / 10.0;
        assert!(per_round > 0.97 * alpha && per_round <= alpha, "{per_round} vs {alpha}");
        assert!((w[9] - (70.0 + 10.0 * alpha)).abs() < 1.0, "{}", w[9]);
        // W_est reaches cwnd_prior = 100 after about 30 / alpha = 57 rounds.
        let crossing = w.iter().position(|&x| x >= 100.0).unwrap();
        assert!((56..=59).contains(&crossing), "{crossing}");
        let per_round = (w[99] - w[79]) / 20.0;
        assert!(per_round > 0.97 && per_round <= 1.0, "{per_round}");
        let ep = cc.epoch.as_ref().unwrap();
        assert!((w[99] - ep.w_est).abs() < 1.0);

        // Without the Reno-friendly region the window creeps along the cubic curve, about
        // 0.2 segments in 10 ms; that growth must not be lost to byte truncation.
        let cfg = CubicConfig { reno_friendly: false, ..CubicConfig::default() };
        let (mut cc, mut st) = after_loss(cfg, 100);
        let w = run_rounds(&mut cc, &mut st, Time::ZERO, rtt, 100);
        let (t, k) = (101.0 * rtt.as_secs_f64(), cbrt(30.0 / 0.4));
        let expect = 0.4 * (t - k).powi(3) + 100.0;
        assert!((w[99] - expect).abs() < 0.01, "{} vs {expect}", w[99]);
        assert!(w[99] > 70.15, "{}", w[99]);
    }

    #[test]
    fn timeout_restarts_on_plateau() {
        let (mut cc, mut st) = after_loss(CubicConfig::default(), 100);
        st.cwnd = 90 * MSS;
        cc.on_timeout(&mut st, 90 * MSS, Time::ZERO);
        assert_eq!((st.cwnd, st.ssthresh), (MSS, 63 * MSS));
        // Slow start is Reno's.
        cc.on_ack(&mut st, MSS, Time::ZERO, Time::ZERO);
        assert_eq!(st.cwnd, 2 * MSS);
        assert!(cc.epoch.is_none());
        // First CA epoch after the timeout: K = 0 and W_max = cwnd_epoch.
        st.cwnd = st.ssthresh;
        cc.on_ack(&mut st, MSS, Time::from_ms(5), Time::ZERO);
        let ep = cc.epoch.as_ref().unwrap();
        assert_eq!((ep.start, ep.k), (Time::from_ms(5), 0.0));
        assert_eq!(cc.w_max, 63.0);
        assert!(!cc.plateau_start);
    }

    #[test]
    fn zero_srtt_and_window_never_shrinks_on_ack() {
        let (mut cc, mut st) = after_loss(CubicConfig::default(), 100);
        let mut last = st.cwnd;
        for i in 0..1000 {
            cc.on_ack(&mut st, MSS, Time::from_us(i), Time::ZERO);
            assert!(st.cwnd >= last);
            last = st.cwnd;
            assert!(cc.cwnd_frac >= 0.0 && cc.cwnd_frac < 1.0);
        }
        assert!(st.cwnd > 70 * MSS);
    }

    #[test]
    fn cbrt_is_accurate() {
        assert_eq!(cbrt(0.0), 0.0);
        assert!(cbrt(-0.0).is_sign_negative());
        assert_eq!(cbrt(1.0), 1.0);
        assert_eq!(cbrt(8.0), 2.0);
        assert_eq!(cbrt(27.0), 3.0);
        assert_eq!(cbrt(-64.0), -4.0);
        assert!(cbrt(f64::NAN).is_nan());
        assert_eq!(cbrt(f64::INFINITY), f64::INFINITY);
        assert_eq!(cbrt(f64::NEG_INFINITY), f64::NEG_INFINITY);
        for x in [75.0, 0.3, 2.0, 7.5e-8, 1e-300, 5e-324, 1e300, f64::MAX, -123.456, 1.0 / 3.0] {
            let y = cbrt(x);
            let rel = (y - x.cbrt()).abs() / x.cbrt().abs();
            assert!(rel < 4.0 * f64::EPSILON, "cbrt({x}) = {y}, libm {}", x.cbrt());
        }
        for i in 1..2000 {
            let x = i as f64 * 0.37;
            let y = cbrt(x);
            assert!(((y * y * y) - x).abs() / x < 8.0 * f64::EPSILON, "cbrt({x}) = {y}");
        }
    }

    #[test]
    fn config_defaults_and_unknown_fields() {
        let cfg: CubicConfig = serde_json::from_str(r#"{"beta": 0.5}"#).unwrap();
        assert_eq!(cfg, CubicConfig { beta: 0.5, ..CubicConfig::default() });
        assert!(serde_json::from_str::<CubicConfig>(r#"{"gamma": 1}"#).is_err());
        assert!(CubicConfig::default().validate().is_ok());
        assert!(CubicConfig { beta: 1.0, ..CubicConfig::default() }.validate().is_err());
        assert!(CubicConfig { c: 0.0, ..CubicConfig::default() }.validate().is_err());
    }
}
