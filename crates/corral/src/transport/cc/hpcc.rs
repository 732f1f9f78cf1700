//! HPCC, High Precision Congestion Control (Li et al., SIGCOMM 2019, section 3 and
//! Algorithm 1): a window controller driven by the in-network telemetry every ACK echoes
//! ([`crate::net::telemetry`]).
//!
//! For each link of the path the sender compares the ACK's record with the one it kept from
//! the previous ACK (`L`): the link's transmit rate over the interval and the smaller of the
//! two queue lengths give its normalized in-flight bytes
//! `u' = min(qLen, L.qLen) / (B T) + txRate / B`; the most loaded link sets `u` and the
//! interval `tau`, and `U` is an EWMA of `u` weighted by `tau / T` (`MeasureInflight`). The
//! window then follows `U` against the target utilization `eta`
//! (`ComputeWind`): with `U >= eta`, or after `maxStage` rounds of additive increase,
//! `W = Wc / (U / eta) + W_AI` (multiplicative); else `W = Wc + W_AI`. The reference window
//! `Wc` moves only once per RTT, on the first ACK past the `snd_nxt` of the previous update
//! (`lastUpdateSeq`), so per-ACK reactions all start from the same `Wc` and do not compound;
//! every ACK still sets `W`. The sender paces at `R = W / T` (`NewAck`).
//!
//! Settings (`transport.cc = { kind = "hpcc", ... }`): `eta` 0.95 and `max_stage` 5 are the
//! paper's (section 5.1, as in the authors' ns-3 code and htsim's `sim/hpcc.cpp`); `w_ai`,
//! the additive step, trades convergence to fairness against the queue `N` flows' steps
//! build (section 3.3: `W_AI` no larger than `W_init (1 - eta) / N`): the default is one
//! segment, htsim's (`_Wai = _mss`). `T` is the flow's unloaded round trip (the paper's base
//! RTT; htsim and ns-3 take one network-wide value, a modelling difference that only matters
//! when paths differ in length), and the initial window is `W_init = B_nic T`, line rate from
//! the first packet (section 3.2). `W` stays at most `W_init` (the NIC's rate, as ns-3's
//! `m_maxRate`) and the window at least one segment; pacing carries rates below it.
//!
//! HPCC ignores ECN and keeps its window through loss recovery and timeouts (the sender's
//! retransmissions still run): the paper's RDMA NICs recover by go-back-N without a window
//! cut (section 4).

use super::{AckSignal, CcState, CongestionControl, Declared, PathInfo};
use crate::net::telemetry::{HopRecord, Telemetry};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// Settings of `transport.cc = { kind = "hpcc", ... }` (defaults are the paper's).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HpccConfig {
    /// Target utilization `eta` (default 0.95).
    pub eta: f64,
    /// Rounds of additive increase before a multiplicative update (`maxStage`, default 5).
    pub max_stage: u32,
    /// The additive step `W_AI` in bytes (default: one segment).
    pub w_ai: Option<u64>,
}

impl Default for HpccConfig {
    fn default() -> Self {
        HpccConfig { eta: 0.95, max_stage: 5, w_ai: None }
    }
}

/// One flow's HPCC state.
#[derive(Clone, Debug)]
pub struct Hpcc {
    cfg: HpccConfig,
    /// The base RTT `T`, seconds (0 until [`CongestionControl::on_path`]).
    t: f64,
    /// `W_init = B_nic T`, bytes: the largest window.
    w_init: f64,
    /// The reference window `Wc` and the current window `W`, bytes.
    wc: f64,
    w: f64,
    /// The normalized in-flight estimate `U`.
    u: f64,
    inc_stage: u32,
    last_update_seq: u64,
    /// The records of the previous ACK (`L`), once one arrived.
    links: Option<Telemetry>,
}

impl Hpcc {
    /// The current window `W`, bytes.
    pub fn window(&self) -> f64 {
        self.w
    }

    /// The reference window `Wc`, bytes.
    pub fn reference_window(&self) -> f64 {
        self.wc
    }

    /// The normalized in-flight estimate `U`.
    pub fn utilization(&self) -> f64 {
        self.u
    }

    /// `MeasureInflight`: folds the ACK's records into `U`. The first ACK, or one whose path
    /// has a different number of hops, only becomes `L` (as htsim's `measureInFlight`); a
    /// link whose record did not move in time (the same data packet echoed twice) is skipped.
    fn measure_inflight(&mut self, ack: &Telemetry) -> bool {
        let Some(prev) = self.links.as_ref().filter(|l| l.hops().len() == ack.hops().len()) else {
            return false;
        };
        let (mut u, mut tau) = (0.0f64, None);
        for (now, before) in ack.hops().iter().zip(prev.hops()) {
            let Some(up) = link_inflight(now, before, self.t) else { continue };
            if tau.is_none() || up > u {
                u = up;
                tau = Some((now.ts.0 - before.ts.0) as f64 * 1e-12);
            }
        }
        let Some(tau) = tau else { return false };
        let tau = tau.min(self.t);
        self.u = (1.0 - tau / self.t) * self.u + tau / self.t * u;
        true
    }

    /// `ComputeWind`: the window from `U`; the reference window moves only with `update_wc`.
    fn compute_wind(&mut self, update_wc: bool, w_ai: f64) -> f64 {
        let eta = self.cfg.eta;
        let w = if self.u >= eta || self.inc_stage >= self.cfg.max_stage {
            let w = self.wc / (self.u / eta) + w_ai;
            if update_wc {
                self.inc_stage = 0;
            }
            w
        } else {
            if update_wc {
                self.inc_stage += 1;
            }
            self.wc + w_ai
        };
        let w = w.min(self.w_init);
        if update_wc {
            self.wc = w;
        }
        w
    }

    fn set_window(&self, st: &mut CcState) {
        st.cwnd = (self.w.round() as u64).max(st.mss);
    }
}

/// A link's normalized in-flight bytes between two of its records: the smaller queue over
/// `B T` plus the transmit rate over `B` (`None` when no time passed between them).
fn link_inflight(now: &HopRecord, before: &HopRecord, t: f64) -> Option<f64> {
    let dt = now.ts.0.checked_sub(before.ts.0).filter(|d| *d > 0)? as f64 * 1e-12;
    let b = now.rate.bps() as f64 / 8.0;
    let tx_rate = now.tx_bytes.saturating_sub(before.tx_bytes) as f64 / dt;
    Some(now.qlen.min(before.qlen) as f64 / (b * t) + tx_rate / b)
}

impl CongestionControl for Hpcc {
    fn on_path(&mut self, st: &mut CcState, path: &PathInfo) {
        self.t = path.base_rtt.as_secs_f64().max(1e-9);
        self.w_init = path.nic_bps as f64 / 8.0 * self.t;
        self.wc = self.w_init;
        self.w = self.w_init;
        self.set_window(st);
        st.ssthresh = st.cwnd;
    }

    fn on_ack_signal(&mut self, st: &mut CcState, sig: &AckSignal) {
        let Some(int) = sig.telemetry else { return };
        if self.t == 0.0 {
            return;
        }
        let w_ai = self.cfg.w_ai.unwrap_or(st.mss) as f64;
        if self.measure_inflight(int) {
            if sig.ack > self.last_update_seq {
                self.w = self.compute_wind(true, w_ai);
                self.last_update_seq = sig.snd_nxt;
            } else {
                self.w = self.compute_wind(false, w_ai);
            }
            self.set_window(st);
        }
        self.links = Some(*int);
    }

    /// The window is set from telemetry only: no Reno growth.
    fn on_ack(&mut self, _st: &mut CcState, _acked: u64, _now: Time, _srtt: Time) {}

    fn on_loss(&mut self, st: &mut CcState, _flight: u64, _now: Time) {
        st.ssthresh = st.cwnd;
    }

    /// HPCC does not react to ECN.
    fn on_ecn(&mut self, _st: &mut CcState, _flight: u64, _now: Time) -> bool {
        false
    }

    fn on_timeout(&mut self, st: &mut CcState, _flight: u64, _now: Time) {
        self.set_window(st);
    }

    fn on_timeout_again(&mut self, st: &mut CcState) {
        self.set_window(st);
    }

    /// Loss recovery's windows are ignored: HPCC keeps its own.
    fn on_recovery_window(&mut self, st: &mut CcState, _cwnd: u64) {
        self.set_window(st);
    }

    fn on_probe_repaired(&mut self, _st: &mut CcState, _flight: u64, _now: Time) -> bool {
        false
    }

    /// `R = W / T`, bytes per second.
    fn pacing_rate(&self) -> Option<f64> {
        (self.t > 0.0).then(|| self.w / self.t)
    }
}

impl Declared for Hpcc {
    type Config = HpccConfig;
    const ACK_SIGNALS: bool = true;
    const TELEMETRY: bool = true;
    const PACES: bool = true;

    fn new(cfg: &HpccConfig) -> Hpcc {
        Hpcc {
            cfg: cfg.clone(),
            t: 0.0,
            w_init: 0.0,
            wc: 0.0,
            w: 0.0,
            u: cfg.eta,
            inc_stage: 0,
            last_update_seq: 0,
            links: None,
        }
    }

    fn validate(cfg: &HpccConfig) -> Result<(), String> {
        if !(cfg.eta > 0.0 && cfg.eta <= 1.0) {
            return Err(format!("hpcc: eta must be in (0, 1], got {}", cfg.eta));
        }
        if cfg.w_ai == Some(0) {
            return Err("hpcc: w_ai must be at least 1 byte, got 0".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Rate;

    const MSS: u64 = 1000;
    const GBPS: u64 = 100_000_000_000;

    /// A flow on a 100 Gbit/s path with a 10 us base RTT: `W_init` = 125 000 bytes.
    fn flow() -> (Hpcc, CcState) {
        let mut cc = Hpcc::new(&HpccConfig::default());
        let mut st = CcState::new(MSS, 10);
        let path = PathInfo { base_rtt: Time::from_us(10), hops: 2, nic_bps: GBPS };
        cc.on_path(&mut st, &path);
        (cc, st)
    }

    /// One link's record at `ts_ns` with `tx` bytes sent and `q` queued.
    fn int(ts_ns: u64, tx: u64, q: u64) -> Telemetry {
        let mut t = Telemetry::default();
        t.push(HopRecord { ts: Time::from_ns(ts_ns), tx_bytes: tx, qlen: q, rate: Rate(GBPS) });
        t
    }

    fn ack(cc: &mut Hpcc, st: &mut CcState, ack: u64, snd_nxt: u64, t: &Telemetry) {
        let sig = AckSignal {
            now: Time::ZERO,
            ack,
            snd_una: 0,
            snd_nxt,
            rtt: Time::from_us(10),
            telemetry: Some(t),
        };
        cc.on_ack_signal(st, &sig);
    }

    #[test]
    fn the_path_sets_line_rate_from_the_first_packet() {
        let (cc, st) = flow();
        assert!((cc.window() - 125_000.0).abs() < 1e-6);
        assert_eq!(st.cwnd, 125_000);
        // R = W / T = 12.5 GB/s, the line rate.
        assert!((cc.pacing_rate().unwrap() - 12.5e9).abs() < 1.0);
        assert_eq!(cc.utilization(), 0.95);
    }

    #[test]
    fn the_first_ack_only_records_the_links() {
        let (mut cc, mut st) = flow();
        ack(&mut cc, &mut st, 1000, 5000, &int(0, 0, 0));
        assert_eq!(st.cwnd, 125_000);
        assert_eq!(cc.utilization(), 0.95);
    }

    #[test]
    fn an_idle_link_grows_the_window_additively_then_multiplicatively() {
        let (mut cc, mut st) = flow();
        // Half the link's rate, no queue: u = 0.5 over a whole T, so U = 0.5.
        ack(&mut cc, &mut st, 1000, 2000, &int(0, 0, 0));
        cc.wc = 50_000.0;
        let mut seq = 2000;
        for round in 1..=5u64 {
            let ts = round * 10_000;
            ack(&mut cc, &mut st, seq + 1, seq + 1000, &int(ts, round * 62_500, 0));
            seq += 1000;
            assert!((cc.utilization() - 0.5).abs() < 1e-9);
            // Below eta: W = Wc + W_AI, one stage per RTT.
            assert!((cc.reference_window() - (50_000.0 + (round * MSS) as f64)).abs() < 1e-6);
            assert_eq!(cc.inc_stage, round as u32);
        }
        // maxStage reached: W = Wc / (U / eta) + W_AI.
        ack(&mut cc, &mut st, seq + 1, seq + 1000, &int(60_000, 6 * 62_500, 0));
        let want = 55_000.0 / (0.5 / 0.95) + MSS as f64;
        assert!((cc.window() - want).abs() < 1e-6, "{} vs {want}", cc.window());
        assert_eq!(cc.inc_stage, 0);
        assert_eq!(st.cwnd, want.round() as u64);
    }

    #[test]
    fn a_queue_shrinks_the_window_and_wc_moves_once_per_rtt() {
        let (mut cc, mut st) = flow();
        ack(&mut cc, &mut st, 1000, 200_000, &int(0, 0, 50_000));
        // Line rate and a queue of 50 KB held over a whole T: u = 1 + 50 000 / 125 000.
        ack(&mut cc, &mut st, 1001, 200_000, &int(10_000, 125_000, 50_000));
        assert!((cc.utilization() - 1.4).abs() < 1e-9);
        let w1 = 125_000.0 / (1.4 / 0.95) + MSS as f64;
        assert!((cc.window() - w1).abs() < 1e-6);
        assert!((cc.reference_window() - w1).abs() < 1e-6);
        // Same RTT (ack below lastUpdateSeq): W from the same Wc, Wc unchanged.
        ack(&mut cc, &mut st, 2001, 250_000, &int(20_000, 250_000, 50_000));
        let w2 = w1 / (1.4 / 0.95) + MSS as f64;
        assert!((cc.window() - w2).abs() < 1e-6);
        assert!((cc.reference_window() - w1).abs() < 1e-6);
        // The pacing rate follows W.
        assert!((cc.pacing_rate().unwrap() - w2 / 10e-6).abs() < 1e-3);
        // Past lastUpdateSeq: Wc moves.
        ack(&mut cc, &mut st, 200_001, 300_000, &int(30_000, 375_000, 50_000));
        assert!((cc.reference_window() - cc.window()).abs() < 1e-6);
        assert!(cc.window() < w1);
    }

    #[test]
    fn a_short_interval_weighs_in_by_tau_over_t_and_a_repeated_record_is_skipped() {
        let (mut cc, mut st) = flow();
        ack(&mut cc, &mut st, 1000, 2000, &int(0, 0, 0));
        // 1 us at line rate, no queue: u = 1, U = 0.9 * 0.95 + 0.1 * 1.
        ack(&mut cc, &mut st, 1001, 2000, &int(1000, 12_500, 0));
        assert!((cc.utilization() - (0.9 * 0.95 + 0.1)).abs() < 1e-9);
        let u = cc.utilization();
        // The same record again (a duplicate echo): nothing measured.
        ack(&mut cc, &mut st, 1001, 2000, &int(1000, 12_500, 0));
        assert_eq!(cc.utilization(), u);
        // A path of another length resets L.
        let mut two = int(2000, 25_000, 0);
        two.push(HopRecord { ts: Time::from_ns(2000), tx_bytes: 0, qlen: 0, rate: Rate(GBPS) });
        ack(&mut cc, &mut st, 1001, 2000, &two);
        assert_eq!(cc.utilization(), u);
    }

    #[test]
    fn loss_recovery_and_ecn_leave_the_window_alone() {
        let (mut cc, mut st) = flow();
        cc.on_loss(&mut st, 50_000, Time::ZERO);
        cc.on_recovery_window(&mut st, 3000);
        assert_eq!(st.cwnd, 125_000);
        assert!(!cc.on_ecn(&mut st, 50_000, Time::ZERO));
        cc.on_timeout(&mut st, 50_000, Time::ZERO);
        assert_eq!(st.cwnd, 125_000);
        cc.on_ack(&mut st, 1000, Time::ZERO, Time::ZERO);
        assert_eq!(st.cwnd, 125_000);
    }

    #[test]
    fn settings_are_checked() {
        let bad = HpccConfig { eta: 1.5, ..HpccConfig::default() };
        assert!(Hpcc::validate(&bad).unwrap_err().contains("eta"));
        let bad = HpccConfig { w_ai: Some(0), ..HpccConfig::default() };
        assert!(Hpcc::validate(&bad).unwrap_err().contains("w_ai"));
        assert!(Hpcc::validate(&HpccConfig::default()).is_ok());
    }
}
