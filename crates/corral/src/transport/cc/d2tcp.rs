//! D2TCP, deadline-aware DCTCP (Vamanan et al., SIGCOMM 2012, section 3.1).
//!
//! DCTCP's α (RFC 8257, kept by an inner [`Dctcp`]) is raised to a deadline imminence factor
//! d to give the penalty p = α^d, and a window with ECN-Echo is cut to W (1 − p/2); a
//! window without grows by one MSS per RTT (Reno's congestion avoidance, slow start as
//! DCTCP). d = T_c / D, clipped to [`d_min`, `d_max`] (0.5 and 2 in the paper): T_c is the
//! time the flow needs at its current rate, B / (3W/4) RTTs for B bytes left (a window
//! sawtooth averages 3W/4), and D the time left to its deadline, in RTTs. A flow near its
//! deadline (d > 1) backs off less than DCTCP, a far one (d < 1) more. A flow without a
//! deadline, or before an RTT sample, uses d = 1, which is DCTCP; a flow past its deadline
//! uses `d_max`.

use super::dctcp::{Dctcp, DctcpConfig};
use super::{CcState, CongestionControl, Declared};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// D2TCP settings (`transport.cc`, `kind = "d2tcp"`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct D2tcpConfig {
    /// DCTCP's gain and initial α (defaults 1/16 and 1).
    pub g: f64,
    pub initial_alpha: f64,
    /// The clip of d (defaults 0.5 and 2, the paper's).
    pub d_min: f64,
    pub d_max: f64,
}

impl Default for D2tcpConfig {
    fn default() -> D2tcpConfig {
        let dctcp = DctcpConfig::default();
        D2tcpConfig { g: dctcp.g, initial_alpha: dctcp.initial_alpha, d_min: 0.5, d_max: 2.0 }
    }
}

impl D2tcpConfig {
    pub fn validate(&self) -> Result<(), String> {
        DctcpConfig { g: self.g, initial_alpha: self.initial_alpha, ..DctcpConfig::default() }
            .validate()
            .map_err(|e| e.replace("dctcp", "d2tcp"))?;
        if !(self.d_min > 0.0 && self.d_min <= 1.0 && self.d_max >= 1.0 && self.d_max.is_finite()) {
            return Err(format!(
                "d2tcp: need 0 < d_min <= 1 <= d_max, got d_min {} and d_max {}",
                self.d_min, self.d_max
            ));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct D2tcp {
    cfg: D2tcpConfig,
    dctcp: Dctcp,
    size: Option<u64>,
    deadline: Option<Time>,
    snd_una: u64,
    srtt: Time,
}

impl D2tcp {
    /// The deadline imminence factor d at `now` for window `cwnd` (bytes).
    pub fn imminence(&self, now: Time, cwnd: u64) -> f64 {
        let (Some(size), Some(deadline)) = (self.size, self.deadline) else { return 1.0 };
        if self.srtt == Time::ZERO || cwnd == 0 {
            return 1.0;
        }
        if deadline <= now {
            return self.cfg.d_max;
        }
        let left = size.saturating_sub(self.snd_una) as f64;
        let needed_rtts = left / (0.75 * cwnd as f64);
        let remaining_rtts = (deadline - now).0 as f64 / self.srtt.0 as f64;
        (needed_rtts / remaining_rtts).clamp(self.cfg.d_min, self.cfg.d_max)
    }

    pub fn alpha(&self) -> f64 {
        self.dctcp.alpha()
    }
}

impl CongestionControl for D2tcp {
    fn on_flow(&mut self, size: Option<u64>, deadline: Option<Time>) {
        (self.size, self.deadline) = (size, deadline);
    }

    fn on_ack(&mut self, st: &mut CcState, acked: u64, _now: Time, srtt: Time) {
        self.srtt = srtt;
        st.reno_increase(acked);
    }

    fn on_feedback(&mut self, acked: u64, ece: bool, snd_una: u64, snd_nxt: u64) {
        self.snd_una = snd_una;
        self.dctcp.on_feedback(acked, ece, snd_una, snd_nxt);
    }

    fn on_ecn(&mut self, st: &mut CcState, _flight: u64, now: Time) -> bool {
        st.ssthresh_by_penalty(self.alpha().powf(self.imminence(now, st.cwnd)), 2);
        true
    }
}

impl Declared for D2tcp {
    type Config = D2tcpConfig;
    const ACCURATE_ECN: bool = true;
    fn new(cfg: &D2tcpConfig) -> D2tcp {
        let dctcp = Dctcp::new(&DctcpConfig {
            g: cfg.g,
            initial_alpha: cfg.initial_alpha,
            ..DctcpConfig::default()
        });
        D2tcp { cfg: cfg.clone(), dctcp, size: None, deadline: None, snd_una: 0, srtt: Time::ZERO }
    }
    fn validate(cfg: &D2tcpConfig) -> Result<(), String> {
        cfg.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// A D2TCP flow of `size` bytes due at `deadline_us`, with srtt 100 us, `acked` bytes
    /// acknowledged and α = `alpha` (a fully marked first window at g = 1 sets it).
    fn flow(size: u64, deadline_us: Option<u64>, acked: u64, alpha: f64) -> D2tcp {
        let mut cc =
            D2tcp::new(&D2tcpConfig { g: 1.0, initial_alpha: alpha, ..D2tcpConfig::default() });
        cc.on_flow(Some(size), deadline_us.map(Time::from_us));
        let mut st = CcState::new(MSS, 10);
        cc.on_ack(&mut st, 0, Time::ZERO, Time::from_us(100));
        cc.snd_una = acked;
        cc
    }

    #[test]
    fn imminence_is_needed_over_remaining_time_clipped() {
        // 30 kB left at 3/4 of a 10 kB window: 4 RTTs; deadline 800 us away: 8 RTTs; d = 0.5.
        assert_eq!(flow(30_000, Some(800), 0, 0.5).imminence(Time::ZERO, 10 * MSS), 0.5);
        // Deadline 400 us away: d = 1; 200 us: 2; 100 us: 4, clipped to 2.
        assert_eq!(flow(30_000, Some(400), 0, 0.5).imminence(Time::ZERO, 10 * MSS), 1.0);
        assert_eq!(flow(30_000, Some(200), 0, 0.5).imminence(Time::ZERO, 10 * MSS), 2.0);
        assert_eq!(flow(30_000, Some(100), 0, 0.5).imminence(Time::ZERO, 10 * MSS), 2.0);
        // 1 MB left, far deadline: the lower clip.
        assert_eq!(flow(1_000_000, Some(1_000_000), 0, 0.5).imminence(Time::ZERO, 10 * MSS), 0.5);
        // Past its deadline: d_max; no deadline: 1 (DCTCP).
        assert_eq!(flow(30_000, Some(100), 0, 0.5).imminence(Time::from_us(200), 10 * MSS), 2.0);
        assert_eq!(flow(30_000, None, 0, 0.5).imminence(Time::ZERO, 10 * MSS), 1.0);
        // Bytes acked shorten the need: 15 kB left, 400 us: d = 0.5.
        assert_eq!(flow(30_000, Some(400), 15_000, 0.5).imminence(Time::ZERO, 10 * MSS), 0.5);
    }

    // 300 kB at 3/4 of a 100 kB window need 4 RTTs. The reduction to W (1 - alpha^d / 2):
    // alpha = 0.25 gives p = 0.5 (d = 0.5), 0.25 (d = 1), 0.0625 (d = 2); a window of 100
    // segments is to go to 75, 87.5 and 96.875 (rounded) segments (ssthresh).
    #[test]
    fn the_cut_is_alpha_to_the_d() {
        for (deadline_us, expect) in [(800, 75_000), (400, 87_500), (200, 96_875)] {
            let mut cc = flow(300_000, Some(deadline_us), 0, 0.25);
            let mut st = CcState::new(MSS, 100);
            assert!(cc.on_ecn(&mut st, 100 * MSS, Time::ZERO));
            assert_eq!((st.cwnd, st.ssthresh), (100 * MSS, expect), "deadline {deadline_us} us");
        }
    }

    // Without a deadline the cut and growth are DCTCP's.
    #[test]
    fn without_a_deadline_it_is_dctcp() {
        let mut d2 = D2tcp::new(&D2tcpConfig { initial_alpha: 0.4, ..D2tcpConfig::default() });
        let mut dc = Dctcp::new(&DctcpConfig { initial_alpha: 0.4, ..DctcpConfig::default() });
        let (mut a, mut b) = (CcState::new(MSS, 50), CcState::new(MSS, 50));
        d2.on_ecn(&mut a, 0, Time::ZERO);
        dc.on_ecn(&mut b, 0, Time::ZERO);
        assert_eq!(a, b);
        d2.on_ack(&mut a, MSS, Time::ZERO, Time::from_us(100));
        dc.on_ack(&mut b, MSS, Time::ZERO, Time::from_us(100));
        assert_eq!(a, b);
    }
}
