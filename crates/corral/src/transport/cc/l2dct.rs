//! L2DCT, least-attained-service DCTCP (Munir et al., INFOCOM 2013).
//!
//! A flow's weight w_c falls as the bytes it has sent grow, and both its reaction to ECN and
//! its window growth scale with it: a window with ECN-Echo is cut to W (1 − α^{w_c} / 2)
//! (α from DCTCP, RFC 8257, kept by an inner [`Dctcp`]), and congestion avoidance adds w_c
//! MSS per RTT (slow start as DCTCP). Short flows (large w_c) back off less and grow faster
//! than long ones, approximating least attained service without switch support.
//!
//! **Weight schedule, our choice** (the paper bounds it between 2.5 and 0.125): w_c is
//! `w_max` while the flow has sent at most `short` bytes, `w_min` from `long` bytes on,
//! and falls linearly in between (defaults 2.5, 0.125, 200 KB and 1 MB: a web-search flow of
//! the paper's "short" class keeps the largest weight).

use super::dctcp::{Dctcp, DctcpConfig};
use super::{CcState, CongestionControl, Declared};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// L2DCT settings (`transport.cc`, `kind = "l2dct"`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct L2dctConfig {
    /// DCTCP's gain and initial α (defaults 1/16 and 1).
    pub g: f64,
    pub initial_alpha: f64,
    /// The weight's range (defaults 2.5 and 0.125, the paper's).
    pub w_max: f64,
    pub w_min: f64,
    /// Bytes sent below which the weight is `w_max` and above which it is `w_min`.
    pub short: u64,
    pub long: u64,
}

impl Default for L2dctConfig {
    fn default() -> L2dctConfig {
        let dctcp = DctcpConfig::default();
        L2dctConfig {
            g: dctcp.g,
            initial_alpha: dctcp.initial_alpha,
            w_max: 2.5,
            w_min: 0.125,
            short: 200_000,
            long: 1_000_000,
        }
    }
}

impl L2dctConfig {
    pub fn validate(&self) -> Result<(), String> {
        DctcpConfig { g: self.g, initial_alpha: self.initial_alpha, ..DctcpConfig::default() }
            .validate()
            .map_err(|e| e.replace("dctcp", "l2dct"))?;
        if !(self.w_min > 0.0 && self.w_min <= self.w_max && self.w_max.is_finite()) {
            return Err(format!(
                "l2dct: need 0 < w_min <= w_max, got w_min {} and w_max {}",
                self.w_min, self.w_max
            ));
        }
        if self.short >= self.long {
            return Err(format!(
                "l2dct: short ({}) must be below long ({})",
                self.short, self.long
            ));
        }
        Ok(())
    }

    /// The weight after `sent` bytes.
    pub fn weight(&self, sent: u64) -> f64 {
        if sent <= self.short {
            self.w_max
        } else if sent >= self.long {
            self.w_min
        } else {
            let x = (sent - self.short) as f64 / (self.long - self.short) as f64;
            self.w_max + x * (self.w_min - self.w_max)
        }
    }
}

#[derive(Clone, Debug)]
pub struct L2dct {
    cfg: L2dctConfig,
    dctcp: Dctcp,
    /// Bytes sent so far (the highest sequence number sent).
    sent: u64,
    /// Congestion-avoidance growth owed below one byte.
    carry: f64,
}

impl L2dct {
    pub fn weight(&self) -> f64 {
        self.cfg.weight(self.sent)
    }
}

impl CongestionControl for L2dct {
    fn on_ack(&mut self, st: &mut CcState, acked: u64, _now: Time, _srtt: Time) {
        if st.in_slow_start() {
            st.reno_increase(acked);
            return;
        }
        // w_c MSS per window of bytes acked.
        st.ca_acked += acked;
        if st.ca_acked >= st.cwnd {
            st.ca_acked -= st.cwnd;
            let grow = self.weight() * st.mss as f64 + self.carry;
            st.cwnd += grow.floor() as u64;
            self.carry = grow.fract();
        }
    }

    fn on_feedback(&mut self, acked: u64, ece: bool, snd_una: u64, snd_nxt: u64) {
        self.sent = self.sent.max(snd_nxt);
        self.dctcp.on_feedback(acked, ece, snd_una, snd_nxt);
    }

    fn on_ecn(&mut self, st: &mut CcState, _flight: u64, _now: Time) -> bool {
        st.ssthresh_by_penalty(self.dctcp.alpha().powf(self.weight()), 2);
        true
    }
}

impl Declared for L2dct {
    type Config = L2dctConfig;
    const ACCURATE_ECN: bool = true;
    fn new(cfg: &L2dctConfig) -> L2dct {
        let dctcp = Dctcp::new(&DctcpConfig {
            g: cfg.g,
            initial_alpha: cfg.initial_alpha,
            ..DctcpConfig::default()
        });
        L2dct { cfg: cfg.clone(), dctcp, sent: 0, carry: 0.0 }
    }
    fn validate(cfg: &L2dctConfig) -> Result<(), String> {
        cfg.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    #[test]
    fn the_weight_falls_from_w_max_to_w_min() {
        let c = L2dctConfig::default();
        assert_eq!(
            (c.weight(0), c.weight(200_000), c.weight(1_000_000), c.weight(50_000_000)),
            (2.5, 2.5, 0.125, 0.125)
        );
        assert!((c.weight(600_000) - (2.5 + 0.125) / 2.0).abs() < 1e-12, "halfway: the mean");
    }

    fn with_sent(sent: u64, alpha: f64) -> L2dct {
        let mut cc = L2dct::new(&L2dctConfig { initial_alpha: alpha, ..L2dctConfig::default() });
        cc.on_feedback(0, false, 0, sent);
        // That first ACK ended DCTCP's opening window; the tests set alpha themselves.
        cc.dctcp.set_alpha(alpha);
        cc
    }

    // The reduction to W (1 - alpha^w / 2) with alpha = 0.25: a short flow (w 2.5) keeps
    // 98.4 % of its window, a long one (w 0.125, alpha^w = 2^-0.25) 58.0 % (ssthresh).
    #[test]
    fn short_flows_back_off_less() {
        for (sent, expect) in [(0, 98_438), (5_000_000, 57_955)] {
            let mut cc = with_sent(sent, 0.25);
            let mut st = CcState::new(MSS, 100);
            assert!(cc.on_ecn(&mut st, 0, Time::ZERO));
            assert_eq!((st.cwnd, st.ssthresh), (100 * MSS, expect), "sent {sent}");
        }
    }

    // Congestion avoidance adds w MSS per window acked: 2.5 MSS for a short flow, 0.125 for a
    // long one (carried over windows: 8 windows add one MSS); slow start is Reno's.
    #[test]
    fn growth_scales_with_the_weight() {
        for (sent, windows, expect) in
            [(0u64, 1, 2_500u64), (5_000_000, 1, 125), (5_000_000, 8, 1_000)]
        {
            let mut cc = with_sent(sent, 0.0);
            let mut st = CcState::new(MSS, 10);
            st.ssthresh = st.cwnd;
            for _ in 0..windows {
                let w = st.cwnd;
                cc.on_ack(&mut st, w, Time::ZERO, Time::ZERO);
            }
            assert_eq!(st.cwnd - 10 * MSS, expect, "sent {sent}, {windows} windows");
        }
        let mut cc = with_sent(0, 0.0);
        let mut st = CcState::new(MSS, 10);
        cc.on_ack(&mut st, MSS, Time::ZERO, Time::ZERO);
        assert_eq!(st.cwnd, 11 * MSS, "slow start: one MSS per ACK");
    }
}
