//! DCTCP congestion control (RFC 8257), as Linux's `tcp_dctcp.c` runs it.
//!
//! The receiver echoes every CE mark (RFC 8257 section 3.2, see
//! [`super::CcConfig::accurate_ecn`]); the sender keeps `alpha`, an EWMA of the fraction of
//! delivered bytes that carried ECN-Echo, updated once per window of data (section 3.3):
//!
//! ```text
//! F = bytes_marked / bytes_delivered     over one observation window
//! alpha = (1 - g) * alpha + g * F
//! ```
//!
//! A window ends on the ACK that brings `snd_una` to (or past) the `snd_nxt` it started at
//! (Linux's `!before(snd_una, next_seq)`, ns-3's `>=`), and the first one is open from the
//! connection's start (Linux's `dctcp_init` sets `next_seq` to `snd_nxt` before anything is
//! sent): the first ACK ends it. Delivered bytes are what each ACK newly acknowledged,
//! cumulatively or by SACK (Linux counts `delivered` and `delivered_ce`).
//!
//! On ECN-Echo (at most once per window; the sender gates this) the window is to shrink in
//! proportion to the extent of congestion: ssthresh = `cwnd * (1 - alpha / 2)`, at least
//! `min_window` segments (two, Linux's `dctcp_ssthresh`; ns-3 has no floor); the sender brings cwnd down to it, over the next round
//! trip by default (`transport.ecn_response`, Linux's CWR state). Window growth (section 3.4)
//! and the reaction to loss and timeout (section 3.5) are Reno's, i.e. the trait defaults.
//! The gain `g` and the initial `alpha` are settings ([`DctcpConfig`]). Linux keeps alpha in
//! units of 1/1024 and snaps it to zero once below 16/1024 without marks; corral keeps it
//! exact, as ns-3 does.

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
    /// The smallest ssthresh an ECN reduction sets, in segments (default 2, Linux's
    /// `dctcp_ssthresh`; ns-3's `TcpDctcp` has none: 1, the sender's one-segment window).
    pub min_window: u64,
}

impl Default for DctcpConfig {
    fn default() -> DctcpConfig {
        DctcpConfig { g: 1.0 / 16.0, initial_alpha: 1.0, min_window: 2 }
    }
}

impl DctcpConfig {
    /// Checks the ranges in which the RFC 8257 formulas make sense.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(format!("dctcp: g must be in (0, 1], got {}", self.g));
        }
        if self.min_window < 1 {
            return Err(format!(
                "dctcp: min_window must be at least 1 segment, got {}",
                self.min_window
            ));
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
    /// Bytes delivered in the current observation window (`DCTCP.BytesAcked`).
    bytes_acked: u64,
    /// Bytes delivered with ECN-Echo in the current window (`DCTCP.BytesMarked`).
    bytes_marked: u64,
    /// End of the current observation window (`DCTCP.WindowEnd`): `snd_nxt` when it began.
    window_end: u64,
    /// Observation windows ended, bytes delivered and bytes delivered with ECN-Echo, since
    /// the start (for traces).
    windows: u64,
    delivered_total: u64,
    marked_total: u64,
}

impl Dctcp {
    /// Current estimate of the fraction of marked bytes, in [0, 1].
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    #[cfg(test)]
    pub(super) fn set_alpha(&mut self, alpha: f64) {
        self.alpha = alpha;
    }

    /// Since the start: observation windows ended (alpha updates), bytes delivered, and
    /// bytes delivered with ECN-Echo.
    pub fn observed(&self) -> (u64, u64, u64) {
        (self.windows, self.delivered_total, self.marked_total)
    }
}

impl CongestionControl for Dctcp {
    /// RFC 8257 section 3.3, steps 1-8.
    fn on_feedback(&mut self, delivered: u64, ece: bool, snd_una: u64, snd_nxt: u64) {
        self.bytes_acked += delivered;
        self.delivered_total += delivered;
        if ece {
            self.bytes_marked += delivered;
            self.marked_total += delivered;
        }
        if snd_una >= self.window_end {
            let f = if self.bytes_acked == 0 {
                0.0
            } else {
                self.bytes_marked as f64 / self.bytes_acked as f64
            };
            self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g * f;
            self.bytes_acked = 0;
            self.bytes_marked = 0;
            self.window_end = snd_nxt;
            self.windows += 1;
        }
    }

    /// RFC 8257 section 3.3, step 9, at least `min_window` segments.
    fn on_ecn(&mut self, st: &mut CcState, _flight: u64, _now: Time) -> bool {
        st.ssthresh_by_penalty(self.alpha, self.cfg.min_window);
        true
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
            window_end: 0,
            windows: 0,
            delivered_total: 0,
            marked_total: 0,
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
        Dctcp::new(&DctcpConfig { g, initial_alpha, ..DctcpConfig::default() })
    }

    /// One single-segment ACK advancing `*una`, with `flight` segments outstanding after it.
    fn ack(cc: &mut Dctcp, una: &mut u64, ece: bool, flight: u64) {
        *una += MSS;
        cc.on_feedback(MSS, ece, *una, *una + flight * MSS);
    }

    /// The EWMA step.
    fn ewma(alpha: f64, g: f64, f: f64) -> f64 {
        (1.0 - g) * alpha + g * f
    }

    /// The first ACK, marked or not, with `segs` segments in flight after it: it ends the
    /// window open since the connection started. Returns snd_una.
    fn start(cc: &mut Dctcp, segs: u64, ece: bool) -> u64 {
        let mut una = 0;
        ack(cc, &mut una, ece, segs);
        assert_eq!(cc.windows, 1);
        una
    }

    /// One full observation window of `segs` single-segment ACKs, the first `marked` with
    /// ECN-Echo, `segs` segments in flight after each: the last one brings snd_una to the
    /// window's end.
    fn window(cc: &mut Dctcp, una: &mut u64, segs: u64, marked: u64) {
        let windows = cc.windows;
        for i in 0..segs {
            assert_eq!(cc.windows, windows, "the window ends with its last ACK");
            ack(cc, una, i < marked, segs);
        }
        assert_eq!(cc.windows, windows + 1);
    }

    #[test]
    fn one_fully_marked_window_from_zero_gives_g() {
        let g = 1.0 / 16.0;
        let mut cc = dctcp(g, 0.0);
        let mut una = start(&mut cc, 10, false);
        assert_eq!(cc.alpha(), 0.0);
        window(&mut cc, &mut una, 10, 10);
        assert_eq!(cc.alpha(), g);
    }

    #[test]
    fn half_marked_window() {
        let g = 1.0 / 16.0;
        for initial in [0.0, 1.0, 0.5] {
            let mut cc = dctcp(g, initial);
            let mut una = start(&mut cc, 10, false);
            window(&mut cc, &mut una, 10, 5);
            let expect = ewma(ewma(initial, g, 0.0), g, 0.5);
            assert!((cc.alpha() - expect).abs() < 1e-15, "{initial}: {}", cc.alpha());
        }
    }

    #[test]
    fn alpha_converges_to_marked_fraction() {
        for (initial, marked) in [(1.0, 3), (0.0, 3), (0.0, 10), (1.0, 0)] {
            let mut cc = dctcp(1.0 / 16.0, initial);
            let f = marked as f64 / 10.0;
            let mut una = start(&mut cc, 10, marked > 0);
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

    /// The window ends on the ACK that brings snd_una to its end, not one past it (Linux's
    /// `!before(snd_una, next_seq)`).
    #[test]
    fn the_window_ends_when_snd_una_reaches_its_end() {
        let mut cc = dctcp(0.5, 1.0);
        // The first ACK ends the opening window (F = 0): alpha 0.5, the next window ends at
        // snd_nxt = 11 segments.
        let mut una = start(&mut cc, 10, false);
        assert_eq!((cc.alpha(), cc.window_end), (0.5, 11 * MSS));
        for _ in 0..9 {
            ack(&mut cc, &mut una, true, 10);
            assert_eq!(cc.alpha(), 0.5);
        }
        assert_eq!((una, cc.bytes_acked, cc.bytes_marked), (10 * MSS, 9 * MSS, 9 * MSS));
        // A duplicate ACK (nothing newly delivered) does not end it.
        cc.on_feedback(0, true, una, una + 10 * MSS);
        assert_eq!(cc.alpha(), 0.5);
        // snd_una reaches 11 segments: F = 1, alpha = 0.75.
        ack(&mut cc, &mut una, true, 10);
        assert_eq!(cc.alpha(), 0.75);
        assert_eq!((cc.bytes_acked, cc.bytes_marked, cc.window_end), (0, 0, 21 * MSS));
    }

    /// Linux's `dctcp_init` sets `next_seq = snd_nxt` before any data is sent: the very first
    /// ACK ends the first window, and alpha takes its F at once.
    #[test]
    fn the_first_ack_ends_the_first_window() {
        let mut cc = dctcp(1.0, 0.0);
        cc.on_feedback(MSS, true, MSS, 4 * MSS);
        assert_eq!((cc.alpha(), cc.window_end, cc.observed()), (1.0, 4 * MSS, (1, MSS, MSS)));
        cc.on_feedback(3 * MSS, false, 4 * MSS, 8 * MSS);
        assert_eq!(cc.alpha(), 0.0);
    }

    /// Bytes SACKed by a duplicate ACK are delivered: they count in F with its echo.
    #[test]
    fn sacked_bytes_count_as_delivered() {
        let mut cc = dctcp(1.0, 0.0);
        let una = start(&mut cc, 10, false);
        cc.on_feedback(2 * MSS, true, una, una + 10 * MSS);
        assert_eq!((cc.bytes_acked, cc.bytes_marked), (2 * MSS, 2 * MSS));
    }

    #[test]
    fn ecn_sets_ssthresh_by_alpha_at_least_two_segments() {
        let mut cc = dctcp(1.0 / 16.0, 1.0);
        for (alpha, segs, expect) in
            [(1.0, 10, 5000), (0.5, 10, 7500), (0.0, 10, 10_000), (1.0, 3, 2000), (1.0, 1, 2000)]
        {
            let mut st = CcState::new(MSS, segs);
            cc.alpha = alpha;
            assert!(cc.on_ecn(&mut st, segs * MSS, Time::ZERO));
            // The window itself is the sender's reduction's to move.
            assert_eq!(
                (st.cwnd, st.ssthresh),
                (segs * MSS, expect),
                "alpha {alpha}, {segs} segments"
            );
        }
        // ns-3's rule: no floor but the one segment a window needs.
        let mut cc = Dctcp::new(&DctcpConfig { min_window: 1, ..DctcpConfig::default() });
        let mut st = CcState::new(MSS, 3);
        assert!(cc.on_ecn(&mut st, 3 * MSS, Time::ZERO));
        assert_eq!(st.ssthresh, 1500);
        let mut st = CcState::new(MSS, 1);
        cc.on_ecn(&mut st, MSS, Time::ZERO);
        assert_eq!(st.ssthresh, MSS);
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
        assert_eq!(cfg, DctcpConfig { g: 0.125, initial_alpha: 1.0, min_window: 2 });
        assert!(serde_json::from_str::<DctcpConfig>(r#"{"k": 1}"#).is_err());
        assert!(DctcpConfig::default().validate().is_ok());
        assert!(DctcpConfig { g: 0.0, ..DctcpConfig::default() }.validate().is_err());
        assert!(DctcpConfig { initial_alpha: 1.5, ..DctcpConfig::default() }.validate().is_err());
        assert!(DctcpConfig { min_window: 0, ..DctcpConfig::default() }.validate().is_err());
    }
}
