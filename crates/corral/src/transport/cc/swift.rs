//! Swift (Kumar et al., "Swift: Delay is Simple and Effective for Congestion Control in the
//! Datacenter", SIGCOMM 2020, section 3 and Algorithm 1): a window held against a target
//! round-trip delay.
//!
//! On every ACK the RTT sample is compared with the target: below it the window grows
//! additively (`ai / cwnd` packets per packet acknowledged, `ai` per packet while the window
//! is below one packet); above it, at most once per RTT, it shrinks multiplicatively in
//! proportion to the excess, `cwnd (1 - beta (delay - target) / delay)`, by no more than
//! `max_mdf`. A fast recovery cuts by `max_mdf` (once per RTT); a timeout too, and after
//! `retx_reset_threshold` timeouts in a row the window drops to `min_cwnd`. The window may
//! fall below one packet (down to `min_cwnd`): the sender then paces one packet every
//! `rtt / cwnd` (section 3.4); at a window of a packet or more it is not paced.
//!
//! The target (section 3.2) is the base target plus topology scaling, `hop_scale` per hop of
//! the flow's path, plus flow-count scaling, `fs_alpha / sqrt(cwnd) + fs_beta` clamped to
//! `[0, fs_range]`, which gives flows with small windows (many flows sharing a bottleneck) a
//! larger target so that the queue scales with the number of flows without unfairness;
//! `fs_alpha` and `fs_beta` make the term `fs_range` at `fs_min_cwnd` packets and 0 at
//! `fs_max_cwnd`.
//!
//! Swift keeps two windows, the fabric's (the path's delay) and the endpoint's (the remote
//! host's processing delay against a host target), and uses the smaller. corral's hosts take
//! no time to process a packet, so the endpoint window would only grow: only the fabric
//! window is modelled (a modelling choice), with the whole RTT as its delay.
//!
//! Settings (`transport.cc = { kind = "swift", ... }`): the paper gives the algorithm and the
//! ranges but not production values; the defaults are htsim's `sim/swift.cpp` ones (`ai` 1,
//! `beta` 0.8, `max_mdf` 0.5, base target 20 us, `hop_scale` base / 6.55, `fs_range` 5 x base,
//! `fs_min_cwnd` 0.1 and `fs_max_cwnd` 100 packets, `retx_reset_threshold` 5), with
//! `min_cwnd` 0.001 packets (the paper's section 3.4: "as low as 0.001") and `max_cwnd` 1000
//! packets.

use super::{AckSignal, CcState, CongestionControl, Declared, PathInfo};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// Settings of `transport.cc = { kind = "swift", ... }`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SwiftConfig {
    /// Additive increase, packets per RTT (default 1).
    pub ai: f64,
    /// Multiplicative decrease per unit of relative excess delay (default 0.8).
    pub beta: f64,
    /// The largest decrease at once, a fraction of the window (default 0.5).
    pub max_mdf: f64,
    /// The base target delay (default "20us").
    pub base_target: Time,
    /// Target added per hop of the path (default: base_target / 6.55).
    pub hop_scale: Option<Time>,
    /// The largest flow-count scaling of the target (default: 5 x base_target).
    pub fs_range: Option<Time>,
    /// The window, packets, at which flow scaling adds `fs_range` (default 0.1).
    pub fs_min_cwnd: f64,
    /// The window, packets, at which flow scaling adds nothing (default 100).
    pub fs_max_cwnd: f64,
    /// The smallest window, packets (default 0.001).
    pub min_cwnd: f64,
    /// The largest window, packets (default 1000).
    pub max_cwnd: f64,
    /// Timeouts in a row after which the window drops to `min_cwnd` (default 5).
    pub retx_reset_threshold: u32,
}

impl Default for SwiftConfig {
    fn default() -> Self {
        SwiftConfig {
            ai: 1.0,
            beta: 0.8,
            max_mdf: 0.5,
            base_target: Time::from_us(20),
            hop_scale: None,
            fs_range: None,
            fs_min_cwnd: 0.1,
            fs_max_cwnd: 100.0,
            min_cwnd: 0.001,
            max_cwnd: 1000.0,
            retx_reset_threshold: 5,
        }
    }
}

/// One flow's Swift state.
#[derive(Clone, Debug)]
pub struct Swift {
    cfg: SwiftConfig,
    /// The window, packets.
    cwnd: f64,
    /// The target without flow scaling (base plus hops), seconds.
    path_target: f64,
    fs_alpha: f64,
    fs_beta: f64,
    fs_range: f64,
    /// The last RTT sample, seconds (0 before the first).
    rtt: f64,
    last_decrease: Option<Time>,
    retransmit_cnt: u32,
    /// The segment size, bytes (for the pacing rate).
    mss: u64,
}

impl Swift {
    /// The window, packets.
    pub fn cwnd_packets(&self) -> f64 {
        self.cwnd
    }

    /// The target delay at the current window, seconds.
    pub fn target(&self) -> f64 {
        let fs = (self.fs_alpha / self.cwnd.sqrt() + self.fs_beta).clamp(0.0, self.fs_range);
        self.path_target + fs
    }

    /// At most one decrease per RTT.
    fn can_decrease(&self, now: Time) -> bool {
        self.last_decrease.is_none_or(|t| now.saturating_sub(t).as_secs_f64() >= self.rtt)
    }

    fn decrease(&mut self, now: Time, factor: f64) {
        self.cwnd *= factor;
        self.last_decrease = Some(now);
    }

    fn set_window(&mut self, st: &mut CcState) {
        self.cwnd = self.cwnd.clamp(self.cfg.min_cwnd, self.cfg.max_cwnd);
        st.cwnd = ((self.cwnd * st.mss as f64).round() as u64).max(st.mss);
    }
}

impl CongestionControl for Swift {
    fn on_path(&mut self, st: &mut CcState, path: &PathInfo) {
        let base = self.cfg.base_target.as_secs_f64();
        let h = self.cfg.hop_scale.map_or(base / 6.55, |t| t.as_secs_f64());
        self.path_target = base + h * path.hops as f64;
        self.mss = st.mss;
        self.cwnd = st.cwnd as f64 / st.mss as f64;
        self.set_window(st);
    }

    fn on_ack_signal(&mut self, st: &mut CcState, sig: &AckSignal) {
        self.rtt = sig.rtt.as_secs_f64();
        if sig.ack <= sig.snd_una {
            return;
        }
        self.retransmit_cnt = 0;
        let acked = (sig.ack - sig.snd_una) as f64 / st.mss as f64;
        let (delay, target) = (self.rtt, self.target());
        if delay < target {
            if self.cwnd >= 1.0 {
                self.cwnd += self.cfg.ai / self.cwnd * acked;
            } else {
                self.cwnd += self.cfg.ai * acked;
            }
        } else if self.can_decrease(sig.now) {
            let f = (1.0 - self.cfg.beta * (delay - target) / delay).max(1.0 - self.cfg.max_mdf);
            self.decrease(sig.now, f);
        }
        self.set_window(st);
    }

    /// The window is set from delay only: no Reno growth.
    fn on_ack(&mut self, _st: &mut CcState, _acked: u64, _now: Time, _srtt: Time) {}

    /// Fast recovery: a cut of `max_mdf`, once per RTT.
    fn on_loss(&mut self, st: &mut CcState, _flight: u64, now: Time) {
        self.retransmit_cnt = 0;
        if self.can_decrease(now) {
            self.decrease(now, 1.0 - self.cfg.max_mdf);
        }
        self.set_window(st);
        st.ssthresh = st.cwnd;
    }

    /// Swift does not react to ECN.
    fn on_ecn(&mut self, _st: &mut CcState, _flight: u64, _now: Time) -> bool {
        false
    }

    fn on_timeout(&mut self, st: &mut CcState, _flight: u64, now: Time) {
        self.retransmit_cnt += 1;
        if self.retransmit_cnt >= self.cfg.retx_reset_threshold {
            self.cwnd = self.cfg.min_cwnd;
            self.last_decrease = Some(now);
        } else if self.can_decrease(now) {
            self.decrease(now, 1.0 - self.cfg.max_mdf);
        }
        self.set_window(st);
    }

    fn on_timeout_again(&mut self, st: &mut CcState) {
        self.set_window(st);
    }

    /// Loss recovery's windows are ignored: Swift keeps its own.
    fn on_recovery_window(&mut self, st: &mut CcState, _cwnd: u64) {
        self.set_window(st);
    }

    fn on_probe_repaired(&mut self, _st: &mut CcState, _flight: u64, _now: Time) -> bool {
        false
    }

    /// Below one packet, one packet every `rtt / cwnd` (in bytes per second, of a segment
    /// of `mss`); at a packet or more, no pacing (an unbounded rate).
    fn pacing_rate(&self) -> Option<f64> {
        if self.cwnd >= 1.0 || self.rtt <= 0.0 {
            Some(f64::INFINITY)
        } else {
            Some(self.cwnd * self.mss as f64 / self.rtt)
        }
    }
}

impl Declared for Swift {
    type Config = SwiftConfig;
    const ACK_SIGNALS: bool = true;
    const PACES: bool = true;

    fn new(cfg: &SwiftConfig) -> Swift {
        let base = cfg.base_target.as_secs_f64();
        let fs_range = cfg.fs_range.map_or(5.0 * base, |t| t.as_secs_f64());
        let fs_alpha = fs_range / (1.0 / cfg.fs_min_cwnd.sqrt() - 1.0 / cfg.fs_max_cwnd.sqrt());
        Swift {
            cfg: cfg.clone(),
            cwnd: 1.0,
            path_target: base,
            fs_alpha,
            fs_beta: -fs_alpha / cfg.fs_max_cwnd.sqrt(),
            fs_range,
            rtt: 0.0,
            last_decrease: None,
            retransmit_cnt: 0,
            mss: 0,
        }
    }

    fn validate(cfg: &SwiftConfig) -> Result<(), String> {
        if !(cfg.ai.is_finite() && cfg.ai > 0.0) {
            return Err(format!("swift: ai must be positive, got {}", cfg.ai));
        }
        if !(cfg.beta.is_finite() && cfg.beta > 0.0) {
            return Err(format!("swift: beta must be positive, got {}", cfg.beta));
        }
        if !(cfg.max_mdf > 0.0 && cfg.max_mdf < 1.0) {
            return Err(format!("swift: max_mdf must be in (0, 1), got {}", cfg.max_mdf));
        }
        if !(cfg.fs_min_cwnd > 0.0 && cfg.fs_min_cwnd < cfg.fs_max_cwnd) {
            return Err(format!(
                "swift: fs_min_cwnd must be positive and below fs_max_cwnd, got {} and {}",
                cfg.fs_min_cwnd, cfg.fs_max_cwnd
            ));
        }
        if !(cfg.min_cwnd > 0.0 && cfg.min_cwnd <= cfg.max_cwnd) {
            return Err(format!(
                "swift: min_cwnd must be positive and at most max_cwnd, got {} and {}",
                cfg.min_cwnd, cfg.max_cwnd
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// A flow of 10 packets on a 4-hop path with flow scaling off (`fs_range` 0): target
    /// 20 us + 4 x 20/6.55 us.
    fn flow(fs: bool) -> (Swift, CcState) {
        let cfg = SwiftConfig {
            fs_range: if fs { None } else { Some(Time::ZERO) },
            ..SwiftConfig::default()
        };
        let mut cc = Swift::new(&cfg);
        let mut st = CcState::new(MSS, 10);
        cc.on_path(
            &mut st,
            &PathInfo { base_rtt: Time::from_us(10), hops: 4, nic_bps: 10_000_000_000 },
        );
        (cc, st)
    }

    fn ack(cc: &mut Swift, st: &mut CcState, now_us: u64, rtt_us: u64, acked: u64) {
        let sig = AckSignal {
            now: Time::from_us(now_us),
            ack: 1000 + acked,
            snd_una: 1000,
            snd_nxt: 100_000,
            rtt: Time::from_us(rtt_us),
            telemetry: None,
        };
        cc.on_ack_signal(st, &sig);
    }

    #[test]
    fn the_target_scales_with_hops_and_with_small_windows() {
        let (cc, _) = flow(false);
        assert!((cc.target() - (20e-6 + 4.0 * 20e-6 / 6.55)).abs() < 1e-12);
        let (mut cc, _) = flow(true);
        // fs_range at fs_min_cwnd, 0 at fs_max_cwnd and above, in between on 1/sqrt(cwnd).
        cc.cwnd = 0.1;
        assert!((cc.target() - cc.path_target - 100e-6).abs() < 1e-12);
        cc.cwnd = 100.0;
        assert!((cc.target() - cc.path_target).abs() < 1e-12);
        cc.cwnd = 1.0;
        let mid = cc.target() - cc.path_target;
        assert!(mid > 0.0 && mid < 100e-6, "{mid}");
    }

    #[test]
    fn below_target_the_window_grows_by_ai_per_rtt() {
        let (mut cc, mut st) = flow(false);
        // Ten packets acked at a window of ten: one packet more.
        for i in 0..10 {
            ack(&mut cc, &mut st, 10 + i, 10, MSS);
        }
        let mut want = 10.0f64;
        for _ in 0..10 {
            want += 1.0 / want;
        }
        assert!((cc.cwnd_packets() - want).abs() < 1e-9, "{} vs {want}", cc.cwnd_packets());
        assert!(want > 10.9 && want < 11.0);
        assert_eq!(st.cwnd, (want * 1000.0).round() as u64);
        // Below one packet: ai per packet acked.
        cc.cwnd = 0.2;
        ack(&mut cc, &mut st, 100, 10, MSS);
        assert!((cc.cwnd_packets() - 1.2).abs() < 1e-9);
        // A duplicate ACK changes nothing.
        let w = cc.cwnd_packets();
        ack(&mut cc, &mut st, 101, 10, 0);
        assert_eq!(cc.cwnd_packets(), w);
    }

    #[test]
    fn above_target_it_cuts_in_proportion_once_per_rtt_and_at_most_max_mdf() {
        let (mut cc, mut st) = flow(false);
        let target = cc.target();
        // 40 us against a target of about 32 us: cut by beta x excess / delay.
        ack(&mut cc, &mut st, 100, 40, MSS);
        let want = 10.0 * (1.0 - 0.8 * (40e-6 - target) / 40e-6);
        assert!((cc.cwnd_packets() - want).abs() < 1e-9, "{} vs {want}", cc.cwnd_packets());
        // Within the same RTT: no second cut.
        ack(&mut cc, &mut st, 120, 400, MSS);
        assert!((cc.cwnd_packets() - want).abs() < 1e-9);
        // An RTT later, a huge delay: at most max_mdf.
        ack(&mut cc, &mut st, 600, 400, MSS);
        assert!((cc.cwnd_packets() - want * 0.5).abs() < 1e-9);
    }

    #[test]
    fn losses_cut_by_max_mdf_and_repeated_timeouts_reset_the_window() {
        let (mut cc, mut st) = flow(false);
        cc.on_loss(&mut st, 10_000, Time::from_us(100));
        assert!((cc.cwnd_packets() - 5.0).abs() < 1e-9);
        // Recovery's windows are ignored, and ECN.
        cc.on_recovery_window(&mut st, 1000);
        assert_eq!(st.cwnd, 5000);
        assert!(!cc.on_ecn(&mut st, 5000, Time::from_us(100)));
        for i in 1..5u64 {
            cc.on_timeout(&mut st, 5000, Time::from_ms(i));
        }
        assert!((cc.cwnd_packets() - 5.0 * 0.5f64.powi(4)).abs() < 1e-9);
        cc.on_timeout(&mut st, 5000, Time::from_ms(5));
        assert_eq!(cc.cwnd_packets(), 0.001);
        // The sender still has a segment's window; the pacing rate carries the rest.
        assert_eq!(st.cwnd, MSS);
    }

    #[test]
    fn below_one_packet_it_paces_one_packet_every_rtt_over_cwnd() {
        let (mut cc, mut st) = flow(false);
        ack(&mut cc, &mut st, 10, 10, MSS);
        assert_eq!(cc.pacing_rate(), Some(f64::INFINITY));
        cc.cwnd = 0.25;
        // One 1000-byte packet every 40 us.
        assert!((cc.pacing_rate().unwrap() - 1000.0 / 40e-6).abs() < 1e-3);
    }

    #[test]
    fn settings_are_checked() {
        assert!(Swift::validate(&SwiftConfig::default()).is_ok());
        let bad = SwiftConfig { max_mdf: 1.0, ..SwiftConfig::default() };
        assert!(Swift::validate(&bad).unwrap_err().contains("max_mdf"));
        let bad = SwiftConfig { fs_min_cwnd: 200.0, ..SwiftConfig::default() };
        assert!(Swift::validate(&bad).unwrap_err().contains("fs_min_cwnd"));
    }
}
