//! DCTCP congestion control (RFC 8257).
//!
//! The receiver echoes every CE mark (RFC 8257 section 3.2, see
//! [`super::CcConfig::accurate_ecn`]); the sender keeps `alpha`, an EWMA of the fraction of
//! acked bytes that carried ECN-Echo, updated once per window of data (section 3.3):
//!
//! ```text
//! F = bytes_marked / bytes_acked        over one observation window
//! alpha = (1 - g) * alpha + g * F
//! ```
//!
//! and on ECN-Echo (at most once per window; the sender gates this) cuts the window in
//! proportion to the extent of congestion: `cwnd = cwnd * (1 - alpha / 2)`, `ssthresh =
//! cwnd`. Window growth (section 3.4) and the reaction to loss and timeout (section 3.5) are
//! Reno's, i.e. the trait defaults. The gain `g` and the initial `alpha` are settings
//! ([`DctcpConfig`]).

use super::{CcState, CongestionControl, Declared};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// DCTCP settings (scenario key `transport.cc`, `kind = "dctcp"`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpConfig {
    /// Estimation gain `g` of the `alpha` EWMA, in (0, 1] (RFC 8257 section 3.3).
    /// Default 1/16.
    pub g: f64,
    /// `alpha` before the first window is measured, in [0, 1] (RFC 8257 section 3.3).
    /// Default 1.0, the conservative choice: the first mark halves the window like Reno.
    pub initial_alpha: f64,
}

impl Default for DctcpConfig {
    fn default() -> DctcpConfig {
        DctcpConfig { g: 1.0 / 16.0, initial_alpha: 1.0 }
    }
}

impl DctcpConfig {
    /// Checks the ranges in which the RFC 8257 formulas make sense.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(format!("dctcp: g must be in (0, 1], got {}", self.g));
        }
        if !(0.0..=1.0).contains(&self.initial_alpha) {
            return Err(format!(
                "dctcp: initial_alpha must be in [0, 1], got {}",
                self.initial_alpha
            ));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    cfg: DctcpConfig,
    /// Estimated fraction of marked bytes (RFC 8257 `DCTCP.Alpha`).
    alpha: f64,
    /// Bytes acked in the current observation window (`DCTCP.BytesAcked`).
    bytes_acked: u64,
    /// Bytes acked with ECN-Echo in the current window (`DCTCP.BytesMarked`).
    bytes_marked: u64,
    /// End of the current observation window (`DCTCP.WindowEnd`); `None` until the first ACK.
    window_end: Option<u64>,
}

impl Dctcp {
    /// Current estimate of the fraction of marked bytes, in [0, 1].
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    /// RFC 8257 section 3.3, steps 1-8.
    fn on_feedback(&mut self, acked: u64, ece: bool, snd_una: u64, snd_nxt: u64) {
        self.bytes_acked += acked;
        if ece {
            self.bytes_marked += acked;
        }
        match self.window_end {
            None => self.window_end = Some(snd_nxt),
            Some(end) if snd_una > end => {
                let f = if self.bytes_acked == 0 {
                    0.0
                } else {
                    self.bytes_marked as f64 / self.bytes_acked as f64
                };
                self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g * f;
                self.bytes_acked = 0;
                self.bytes_marked = 0;
                self.window_end = Some(snd_nxt);
            }
            Some(_) => {}
        }
    }

    /// RFC 8257 section 3.3, step 9.
    fn on_ecn(&mut self, st: &mut CcState, _flight: u64, _now: Time) {
        st.cut_by_penalty(self.alpha);
    }
}

impl Declared for Dctcp {
    type Config = DctcpConfig;
    const ACCURATE_ECN: bool = true;
    fn new(cfg: &DctcpConfig) -> Dctcp {
        Dctcp {
            alpha: cfg.initial_alpha,
            cfg: cfg.clone(),
            bytes_acked: 0,
            bytes_marked: 0,
            window_end: None,
        }
    }
    fn validate(cfg: &DctcpConfig) -> Result<(), String> {
        cfg.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn dctcp(g: f64, initial_alpha: f64) -> Dctcp {
        Dctcp::new(&DctcpConfig { g, initial_alpha })
    }

    /// One single-segment ACK advancing `*una`, with `flight` segments outstanding after it.
    fn ack(cc: &mut Dctcp, una: &mut u64, ece: bool, flight: u64) {
        *una += MSS;
        cc.on_feedback(MSS, ece, *una, *una + flight * MSS);
    }

    /// Opens the first window with `segs - 1` segments beyond snd_una; alpha is untouched.
    fn start(cc: &mut Dctcp, segs: u64) -> u64 {
        let before = cc.alpha();
        cc.on_feedback(0, false, 0, (segs - 1) * MSS);
        assert_eq!(cc.alpha(), before);
        0
    }

    /// One full observation window of `segs` ACKs, the first `marked` with ECN-Echo. With
    /// `segs - 1` segments in flight, window_end is passed exactly by the last ACK.
    fn window(cc: &mut Dctcp, una: &mut u64, segs: u64, marked: u64) {
        for i in 0..segs {
            ack(cc, una, i < marked, segs - 1);
        }
    }

    #[test]
    fn one_fully_marked_window_from_zero_gives_g() {
        let g = 1.0 / 16.0;
        let mut cc = dctcp(g, 0.0);
        let mut una = start(&mut cc, 10);
        window(&mut cc, &mut una, 10, 10);
        assert_eq!(cc.alpha(), g);
    }

    #[test]
    fn half_marked_window() {
        let g = 1.0 / 16.0;
        for (initial, expect) in [(0.0, g / 2.0), (1.0, 1.0 - g / 2.0), (0.5, 0.5)] {
            let mut cc = dctcp(g, initial);
            let mut una = start(&mut cc, 10);
            window(&mut cc, &mut una, 10, 5);
            assert!((cc.alpha() - expect).abs() < 1e-15, "{initial}: {}", cc.alpha());
        }
    }

    #[test]
    fn alpha_converges_to_marked_fraction() {
        for (initial, marked) in [(1.0, 3), (0.0, 3), (0.0, 10), (1.0, 0)] {
            let mut cc = dctcp(1.0 / 16.0, initial);
            let mut una = start(&mut cc, 10);
            let f = marked as f64 / 10.0;
            window(&mut cc, &mut una, 10, marked);
            let mut gap = (cc.alpha() - f).abs();
            for _ in 0..400 {
                window(&mut cc, &mut una, 10, marked);
                let next = (cc.alpha() - f).abs();
                assert!(next <= gap, "EWMA moves toward F every window");
                gap = next;
            }
            assert!(gap < 1e-9, "alpha {} vs F {f}", cc.alpha());
        }
    }

    #[test]
    fn no_update_before_window_end_is_passed() {
        let mut cc = dctcp(0.5, 1.0);
        // window_end = 10 segments; ACKs up to and including it leave alpha alone.
        let mut una = start(&mut cc, 11);
        for _ in 0..10 {
            ack(&mut cc, &mut una, false, 10);
            assert_eq!(cc.alpha(), 1.0);
        }
        assert_eq!((una, cc.bytes_acked, cc.bytes_marked), (10 * MSS, 10 * MSS, 0));
        // A duplicate ACK (nothing newly acked) does not pass it either.
        cc.on_feedback(0, true, una, una + 10 * MSS);
        assert_eq!(cc.alpha(), 1.0);
        // The first ACK beyond window_end closes the window: F = 0, alpha = 0.5.
        ack(&mut cc, &mut una, false, 10);
        assert_eq!(cc.alpha(), 0.5);
        assert_eq!((cc.bytes_acked, cc.bytes_marked, cc.window_end), (0, 0, Some(21 * MSS)));
    }

    /// The very first ACK opens the window and is counted in it.
    #[test]
    fn first_ack_is_counted() {
        let mut cc = dctcp(1.0, 0.0);
        cc.on_feedback(MSS, true, MSS, 4 * MSS);
        assert_eq!((cc.bytes_acked, cc.bytes_marked, cc.window_end), (MSS, MSS, Some(4 * MSS)));
        cc.on_feedback(4 * MSS, false, 5 * MSS, 8 * MSS);
        assert_eq!(cc.alpha(), 0.2);
    }

    #[test]
    fn ecn_cut_scales_with_alpha() {
        let mut st = CcState::new(MSS, 10);
        let mut cc = dctcp(1.0 / 16.0, 1.0);
        cc.on_ecn(&mut st, 10 * MSS, Time::ZERO);
        assert_eq!((st.cwnd, st.ssthresh), (5000, 5000));

        let mut st = CcState::new(MSS, 10);
        cc.alpha = 0.5;
        cc.on_ecn(&mut st, 10 * MSS, Time::ZERO);
        assert_eq!((st.cwnd, st.ssthresh), (7500, 7500));

        let mut st = CcState::new(MSS, 10);
        cc.alpha = 0.0;
        cc.on_ecn(&mut st, 10 * MSS, Time::ZERO);
        assert_eq!((st.cwnd, st.ssthresh), (10_000, 10_000));

        // Never below one segment.
        let mut st = CcState::new(MSS, 1);
        cc.alpha = 1.0;
        cc.on_ecn(&mut st, MSS, Time::ZERO);
        assert_eq!((st.cwnd, st.ssthresh), (MSS, MSS));
    }

    #[test]
    fn loss_and_growth_are_reno() {
        let mut st = CcState::new(MSS, 10);
        let mut cc = dctcp(1.0 / 16.0, 0.0);
        cc.on_ack(&mut st, MSS, Time::ZERO, Time::ZERO);
        assert_eq!(st.cwnd, 11 * MSS);
        cc.on_loss(&mut st, 10 * MSS, Time::ZERO);
        assert_eq!(st.ssthresh, 5 * MSS);
        cc.on_timeout(&mut st, 8 * MSS, Time::ZERO);
        assert_eq!((st.cwnd, st.ssthresh), (MSS, 4 * MSS));
    }

    #[test]
    fn config_defaults_and_unknown_fields() {
        let cfg: DctcpConfig = serde_json::from_str(r#"{"g": 0.125}"#).unwrap();
        assert_eq!(cfg, DctcpConfig { g: 0.125, initial_alpha: 1.0 });
        assert!(serde_json::from_str::<DctcpConfig>(r#"{"k": 1}"#).is_err());
        assert!(DctcpConfig::default().validate().is_ok());
        assert!(DctcpConfig { g: 0.0, ..DctcpConfig::default() }.validate().is_err());
        assert!(DctcpConfig { initial_alpha: 1.5, ..DctcpConfig::default() }.validate().is_err());
    }
}
