//! BBR version 1 (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 2016;
//! the IETF draft draft-cardwell-iccrg-bbr-congestion-control-00; and the behaviour Linux's
//! `tcp_bbr.c` and ns-3's `TcpBbr` document), `transport.cc = "bbr"`.
//!
//! BBR models the path by two numbers: the bottleneck bandwidth `BtlBw`, the largest delivery
//! rate sample ([`crate::transport::delivery_rate`]) of the last `bw_rounds` round trips (10),
//! and the round-trip propagation time `RTprop`, the smallest RTT sample of the last
//! `min_rtt_window` (10 s). `RTprop` starts at the RTT the connection's handshake measured
//! (`transport.handshake_rtt`): Linux's `bbr_init` takes `tcp_min_rtt`, which holds the SYN's
//! sample, and the draft's `BBRInit` sets `RTprop = SRTT`; the pacing rate starts at
//! `high_gain * cwnd / RTT`, 1 % below as every BBR rate (`bbr_init_pacing_rate_from_rtt`, the draft's
//! `BBRInitPacingRate`). It paces at `pacing_gain * BtlBw` (1 % below, as Linux) and caps
//! the data in flight at `cwnd_gain * BtlBw * RTprop`, rounded up to whole segments (Linux's
//! `bbr_bdp` counts whole packets), plus what ACK aggregation seems to need and a
//! quantization budget for the sender's bursts (below). Four states set the gains:
//! - **Startup**: both gains 2/ln 2 (2.885), doubling the sending rate every round, until the
//!   bandwidth estimate grew by less than 25 % for three rounds in a row (the pipe is full);
//! - **Drain**: pacing gain 1/2.885 until the data in flight falls to one BDP;
//! - **ProbeBW**: cwnd gain 2 and the pacing gain cycling through 5/4, 3/4, 1, 1, 1, 1, 1, 1,
//!   one phase per `RTprop` (5/4 until `5/4` BDP was in flight when an ACK arrived, or the ACK
//!   revealed a loss; 3/4 until no more than one BDP was: the in-flight before the ACK, as
//!   the draft's `prior_inflight` and Linux's `bbr_is_next_cycle_phase`). Each entry draws
//!   its starting phase, uniformly among the seven that are not the 3/4 one, from the flow's
//!   own random stream (Linux's `bbr_reset_probe_bw_mode` draws it from the kernel's
//!   generator), so that flows do not probe in lock step;
//! - **ProbeRTT**: when `RTprop` was not refreshed for 10 s, cwnd drops to 4 segments for
//!   200 ms and one round, then BBR returns to ProbeBW (or Startup if the pipe never filled).
//!
//! The window's target, as Linux's `bbr_set_cwnd` and ns-3's `SetCwnd`: `ceil(cwnd_gain *
//! BDP)` segments, plus the ACK aggregation estimate once the pipe is full
//! (`bbr_update_ack_aggregation`: the most data acknowledged beyond `BtlBw` times the time
//! since an ACK epoch began, over the last 5 to 10 rounds, at most the window and 100 ms at
//! `BtlBw`; `extra_acked_gain`), plus the quantization budget (`quantum`): by default three
//! segments, ns-3's (its send quantum is one segment, and corral's sender, like ns-3's, sends
//! one segment at a time); `quantum = "tso"` is Linux's `bbr_quantization_budget`, 3 TSO
//! bursts (`bbr_tso_segs_goal`: 1 ms at the pacing rate, at least 2 segments, 1 below 1.2
//! Mbit/s), the window rounded up to an even number of segments. Either way 2 segments more
//! in the probing phase of ProbeBW. The window grows toward the target by what each ACK
//! delivered, and only once the pipe is full is it held at it. (With `"tso"` and no bursts
//! to absorb, 8 flows at 1 Gbps keep 30 segments each beyond their BDP in a 100-packet
//! buffer: the side by side's 1 Gbps case then fills the buffer and one flow takes the link.)
//!
//! Losses do not cut the window by a factor: each ACK that delivered data takes the bytes it
//! marked lost off the window (at least one segment remains), as Linux's
//! `bbr_set_cwnd_to_recover_or_restore` does on every ACK (ns-3's `TcpBbr` only in recovery).
//! When recovery starts, BBR keeps `cwnd = in_flight + acked` for one round (packet
//! conservation), then grows back; when recovery ends it restores the window it had before.
//! A timeout leaves one segment and BBR grows from there. ECN is ignored. Samples taken
//! while the sender was application-limited raise `BtlBw` only.
//!
//! Not modelled: Linux's long-term bandwidth sampling (`lt_bw`, which detects token-bucket
//! policers from loss rates of 20 % and more) and the TSO bursts themselves (segments leave
//! one at a time at the pacing rate; `quantum = "tso"` keeps the window's budget for them),
//! ns-3's ACK aggregation epoch, which starts over every 4 KB acknowledged and measures its
//! length in whole seconds (`AckEpochAckedResetThresh`, `epochProp`), and ns-3's RTT samples
//! in whole milliseconds (its TCP timestamps' clock), which set its flows' RTprop apart.
//! `extra_acked_gain = 0` is corral's BBR before issue 56 but for the loss deduction.

use super::{AckInfo, CcState, CongestionControl, Declared};
use crate::sim::rng::{stream, Rng};
use crate::units::Time;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Settings of `transport.cc = { kind = "bbr", ... }` (defaults are Linux's).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct BbrConfig {
    /// Startup's pacing and cwnd gain (default 2/ln 2 = 2.885).
    pub high_gain: f64,
    /// ProbeBW's cwnd gain (default 2).
    pub cwnd_gain: f64,
    /// Round trips the bandwidth filter spans (default 10).
    pub bw_rounds: u64,
    /// How long an RTprop sample stays valid (default "10s").
    pub min_rtt_window: Time,
    /// How long ProbeRTT holds the window at 4 segments (default "200ms").
    pub probe_rtt_time: Time,
    /// The window's budget beyond `cwnd_gain` BDPs for the sender's bursts: "segment" (default,
    /// ns-3's: three segments, as corral sends one segment at a time) or "tso" (Linux's: three
    /// TSO bursts of 1 ms at the pacing rate, at least 2 segments each, the window even); 2
    /// segments more while probing either way.
    pub quantum: Quantum,
    /// How much of the ACK aggregation estimate the window's target takes (default 1, as
    /// Linux's `bbr_extra_acked_gain`; 0: none).
    pub extra_acked_gain: f64,
}

/// `quantum`: the budget BBR's window keeps beyond `cwnd_gain` BDPs for the bursts the
/// sender's hosts make (Linux's `bbr_quantization_budget`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Quantum {
    /// Three segments, 2 more in the probing phase (default): ns-3's `TcpBbr`, whose send
    /// quantum is one segment, as corral's sender, which sends one segment at a time.
    #[default]
    Segment,
    /// Linux's: three TSO bursts of `bbr_tso_segs_goal` segments (the bytes of 1 ms at the
    /// pacing rate, `sk_pacing_shift` 10, at least 2 segments, 1 below 1.2 Mbit/s, at most
    /// 127 and 64 KB), the window rounded up to an even number of segments, 2 segments more
    /// in ProbeBW's probing phase. corral does not send the bursts this budget is for.
    Tso,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            high_gain: 2.885,
            cwnd_gain: 2.0,
            bw_rounds: 10,
            min_rtt_window: Time::from_ms(10_000),
            probe_rtt_time: Time::from_ms(200),
            quantum: Quantum::Segment,
            extra_acked_gain: 1.0,
        }
    }
}

impl BbrConfig {
    pub fn validate(&self) -> Result<(), String> {
        if !(self.high_gain.is_finite() && self.high_gain > 1.0 && self.high_gain <= 10.0) {
            return Err(format!(
                "high_gain: must be above 1 and at most 10, got {}",
                self.high_gain
            ));
        }
        if !(self.cwnd_gain.is_finite() && self.cwnd_gain >= 1.0 && self.cwnd_gain <= 10.0) {
            return Err(format!("cwnd_gain: must be between 1 and 10, got {}", self.cwnd_gain));
        }
        if self.bw_rounds < 1 {
            return Err("bw_rounds: must be at least 1".into());
        }
        if self.min_rtt_window == Time::ZERO {
            return Err("min_rtt_window: must be positive".into());
        }
        if !(self.extra_acked_gain.is_finite() && (0.0..=10.0).contains(&self.extra_acked_gain)) {
            return Err(format!(
                "extra_acked_gain: must be between 0 and 10, got {}",
                self.extra_acked_gain
            ));
        }
        Ok(())
    }
}

/// ProbeBW's pacing gains, one phase per RTprop.
const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// The smallest window, and ProbeRTT's, in segments.
const MIN_CWND_SEGMENTS: u64 = 4;
/// Startup ends after this many rounds without 25 % bandwidth growth.
const FULL_BW_ROUNDS: u32 = 3;
const FULL_BW_GROWTH: f64 = 1.25;
/// Linux paces 1 % below the estimate.
const PACING_MARGIN: f64 = 0.99;
/// The window at start when no RTprop is known yet, in segments.
const INITIAL_BDP_SEGMENTS: u64 = 10;
/// ACK aggregation: the rounds each of the two maxima spans, and the longest epoch's worth
/// of bandwidth it may add (Linux's `bbr_extra_acked_win_rtts`, `bbr_extra_acked_max_us`).
const EXTRA_ACKED_ROUNDS: u32 = 5;
const EXTRA_ACKED_MAX: Time = Time::from_ms(100);
/// An epoch that acknowledged this many segments starts over (`bbr_ack_epoch_acked_reset_thresh`).
const ACK_EPOCH_RESET_SEGMENTS: u64 = 1 << 20;
/// Below this pacing rate (bytes/s) a TSO burst is one segment, else at least two
/// (`bbr_min_tso_rate`, 1.2 Mbit/s).
const MIN_TSO_RATE: f64 = 150_000.0;
/// The largest TSO burst in bytes (Linux's GSO limit less the headers) and segments.
const MAX_TSO_BYTES: f64 = 65_536.0 - 1.0 - 320.0;
const MAX_TSO_SEGMENTS: u64 = 127;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    cfg: BbrConfig,
    mode: Mode,
    /// Max filter over rounds: (round, bytes/s), decreasing in bandwidth.
    bw_samples: VecDeque<(u64, f64)>,
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    round: u64,
    next_round_delivered: u64,
    round_start: bool,
    pacing_gain: f64,
    cwnd_gain: f64,
    cycle_index: usize,
    cycle_stamp: Time,
    full_bw: f64,
    full_bw_rounds: u32,
    filled_pipe: bool,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    /// The window before recovery or ProbeRTT, restored after.
    prior_cwnd: u64,
    packet_conservation: bool,
    was_in_recovery: bool,
    /// Bytes per second; None until the first RTT estimate.
    pacing_rate: Option<f64>,
    /// The flow's random stream: where ProbeBW's cycle starts.
    rng: Rng,
    /// ProbeRTT just ended: restore the window saved when it began.
    restore: bool,
    /// ACK aggregation: when the current epoch began, the bytes acknowledged in it, the two
    /// windowed maxima of the excess and the rounds the current one has spanned.
    ack_epoch_start: Time,
    ack_epoch_acked: u64,
    extra_acked: [u64; 2],
    extra_acked_idx: usize,
    extra_acked_rounds: u32,
}

impl Bbr {
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// `BtlBw` in bytes per second (0 before the first sample).
    pub fn btl_bw(&self) -> f64 {
        self.bw_samples.front().map_or(0.0, |s| s.1)
    }

    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }

    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    /// What the ACK aggregation estimate adds to the window's target, in bytes (0 before the
    /// pipe is full or with `extra_acked_gain = 0`).
    pub fn extra_acked(&self) -> u64 {
        self.aggregation_cwnd()
    }

    /// `gain` BDPs in whole segments, rounded up as Linux's `bbr_bdp` (so that a window or an
    /// in-flight goal is one the sender, which sends whole segments, can fill).
    fn bdp_segments(&self, gain: f64, mss: u64) -> u64 {
        let Some(rtt) = self.min_rtt else { return INITIAL_BDP_SEGMENTS };
        let bdp = self.btl_bw() * rtt.0 as f64 / 1e12;
        ((gain * bdp) / mss as f64).ceil() as u64
    }

    /// Linux's `bbr_tso_segs_goal`: the segments of 1 ms at the pacing rate (`sk_pacing_rate
    /// >> sk_pacing_shift`, shift 10), at least 2 (1 below 1.2 Mbit/s), at most 127 and 64 KB.
    fn tso_segments(&self, mss: u64) -> u64 {
        let rate = self.pacing_rate.unwrap_or(0.0);
        let least = if rate < MIN_TSO_RATE { 1 } else { 2 };
        (((rate / 1024.0).min(MAX_TSO_BYTES) as u64 / mss).max(least)).min(MAX_TSO_SEGMENTS)
    }

    /// `segments` with the quantization budget (`quantum`), in bytes: Linux's
    /// `bbr_quantization_budget` (three TSO bursts, rounded up to an even number of segments)
    /// or ns-3's three segments; two segments more in ProbeBW's probing phase either way.
    fn budget(&self, segments: u64, mss: u64) -> u64 {
        let probing = if self.mode == Mode::ProbeBw && self.cycle_index == 0 { 2 } else { 0 };
        let segs = match self.cfg.quantum {
            Quantum::Tso => (segments + 3 * self.tso_segments(mss) + 1) & !1,
            Quantum::Segment => segments + 3,
        };
        (segs + probing) * mss
    }

    /// `gain` BDPs with the quantization budget, in bytes (Linux's `bbr_inflight`): the
    /// in-flight goals of Drain and ProbeBW's phases.
    fn inflight(&self, gain: f64, mss: u64) -> u64 {
        self.budget(self.bdp_segments(gain, mss), mss)
    }

    /// The window's target (Linux's `bbr_set_cwnd`): `gain` BDPs and the ACK aggregation
    /// estimate, with the quantization budget, in bytes.
    fn target_cwnd(&self, gain: f64, mss: u64) -> u64 {
        self.budget(self.bdp_segments(gain, mss) + self.aggregation_cwnd().div_ceil(mss), mss)
    }

    /// Linux's `bbr_ack_aggregation_cwnd`: once the pipe is full, `extra_acked_gain` times the
    /// larger of the two windowed maxima, at most 100 ms at `BtlBw`.
    fn aggregation_cwnd(&self) -> u64 {
        if self.cfg.extra_acked_gain <= 0.0 || !self.filled_pipe {
            return 0;
        }
        let max = self.btl_bw() * EXTRA_ACKED_MAX.0 as f64 / 1e12;
        let extra = self.extra_acked[0].max(self.extra_acked[1]) as f64;
        (self.cfg.extra_acked_gain * extra).min(max) as u64
    }

    /// Linux's `bbr_update_ack_aggregation`: the data acknowledged beyond what `BtlBw` would
    /// deliver since the epoch began (an ACK at or below that rate starts a new epoch), at
    /// most the window, kept as the larger of two maxima of 5 rounds each.
    fn update_ack_aggregation(&mut self, st: &CcState, ack: &AckInfo) {
        let acked = ack.rate.map_or(0, |r| r.newly_delivered);
        if self.cfg.extra_acked_gain <= 0.0 || acked == 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_rounds = (self.extra_acked_rounds + 1).min(31);
            if self.extra_acked_rounds >= EXTRA_ACKED_ROUNDS {
                self.extra_acked_rounds = 0;
                self.extra_acked_idx ^= 1;
                self.extra_acked[self.extra_acked_idx] = 0;
            }
        }
        let epoch = ack.now.saturating_sub(self.ack_epoch_start);
        let mut expected = (self.btl_bw() * epoch.0 as f64 / 1e12) as u64;
        let reset = ACK_EPOCH_RESET_SEGMENTS * st.mss;
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + acked >= reset {
            self.ack_epoch_acked = 0;
            self.ack_epoch_start = ack.now;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + acked).min(reset);
        let extra = (self.ack_epoch_acked - expected).min(st.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_idx];
        *slot = (*slot).max(extra);
    }

    fn update_round(&mut self, ack: &AckInfo) {
        self.round_start = false;
        if let Some(rs) = &ack.rate {
            if rs.prior_delivered >= self.next_round_delivered {
                self.next_round_delivered = rs.delivered_total;
                self.round += 1;
                self.round_start = true;
                self.packet_conservation = false;
            }
        }
    }

    fn update_bw(&mut self, ack: &AckInfo) {
        let Some(rs) = &ack.rate else { return };
        if rs.rate <= 0.0 || (rs.app_limited && rs.rate < self.btl_bw()) {
            return;
        }
        while self.bw_samples.back().is_some_and(|s| s.1 <= rs.rate) {
            self.bw_samples.pop_back();
        }
        self.bw_samples.push_back((self.round, rs.rate));
        self.expire_bw();
    }

    fn expire_bw(&mut self) {
        while self.bw_samples.len() > 1
            && self.bw_samples.front().is_some_and(|s| s.0 + self.cfg.bw_rounds <= self.round)
        {
            self.bw_samples.pop_front();
        }
    }

    fn check_full_pipe(&mut self, ack: &AckInfo) {
        if self.filled_pipe || !self.round_start || ack.rate.is_some_and(|r| r.app_limited) {
            return;
        }
        let bw = self.btl_bw();
        if bw >= self.full_bw * FULL_BW_GROWTH {
            self.full_bw = bw;
            self.full_bw_rounds = 0;
            return;
        }
        self.full_bw_rounds += 1;
        self.filled_pipe = self.full_bw_rounds >= FULL_BW_ROUNDS;
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        self.cwnd_gain = self.cfg.cwnd_gain;
        // Any phase but the draining one (index 1), uniformly, as Linux: it sets the index to
        // `CYCLE_LEN - 1 - random(7)` and advances it once.
        let start = (CYCLE.len() - self.rng.below(7) as usize) % CYCLE.len();
        self.cycle_index = start;
        self.pacing_gain = CYCLE[start];
        self.cycle_stamp = now;
    }

    fn check_drain(&mut self, ack: &AckInfo, mss: u64) {
        if self.mode == Mode::Startup && self.filled_pipe {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / self.cfg.high_gain;
            self.cwnd_gain = self.cfg.high_gain;
        }
        if self.mode == Mode::Drain && ack.in_flight <= self.inflight(1.0, mss) {
            self.enter_probe_bw(ack.now);
        }
    }

    fn advance_cycle(&mut self, ack: &AckInfo, mss: u64) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let full_length =
            self.min_rtt.is_some_and(|r| ack.now.saturating_sub(self.cycle_stamp) > r);
        let gain = self.pacing_gain;
        let next = if gain > 1.0 {
            full_length && (ack.lost || ack.prior_in_flight >= self.inflight(gain, mss))
        } else if gain < 1.0 {
            full_length || ack.prior_in_flight <= self.inflight(1.0, mss)
        } else {
            full_length
        };
        if next {
            self.cycle_index = (self.cycle_index + 1) % CYCLE.len();
            self.pacing_gain = CYCLE[self.cycle_index];
            self.cycle_stamp = ack.now;
        }
    }

    fn update_min_rtt(&mut self, st: &CcState, ack: &AckInfo) {
        let expired = ack.now > self.min_rtt_stamp + self.cfg.min_rtt_window;
        if let Some(rtt) = ack.rate.and_then(|r| r.rtt) {
            if self.min_rtt.is_none_or(|m| rtt <= m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = ack.now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt && self.min_rtt.is_some() {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd(st);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            match self.probe_rtt_done {
                None if ack.in_flight <= MIN_CWND_SEGMENTS * st.mss => {
                    self.probe_rtt_done = Some(ack.now + self.cfg.probe_rtt_time);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = ack.rate.map_or(0, |r| r.delivered_total);
                }
                Some(done) => {
                    self.probe_rtt_round_done |= self.round_start;
                    if self.probe_rtt_round_done && ack.now >= done {
                        self.min_rtt_stamp = ack.now;
                        if self.filled_pipe {
                            self.enter_probe_bw(ack.now);
                        } else {
                            self.mode = Mode::Startup;
                            self.pacing_gain = self.cfg.high_gain;
                            self.cwnd_gain = self.cfg.high_gain;
                        }
                        self.restore = true;
                    }
                }
                None => {}
            }
        }
    }

    fn save_cwnd(&mut self, st: &CcState) {
        self.prior_cwnd = if self.was_in_recovery || self.mode == Mode::ProbeRtt {
            self.prior_cwnd.max(st.cwnd)
        } else {
            st.cwnd
        };
    }

    /// The pacing rate before the first bandwidth sample: `high_gain * cwnd / rtt`, 1 % below
    /// as every BBR rate (Linux's `bbr_init_pacing_rate_from_rtt` goes through
    /// `bbr_rate_bytes_per_sec`, which takes the margin off).
    fn initial_pacing_rate(&self, st: &CcState, rtt: Time) -> f64 {
        self.cfg.high_gain * st.cwnd as f64 * 1e12 / rtt.0 as f64 * PACING_MARGIN
    }

    fn set_pacing_rate(&mut self, st: &CcState, ack: &AckInfo) {
        let bw = self.btl_bw();
        if bw <= 0.0 || self.min_rtt.is_none() {
            // Before the first bandwidth sample: high_gain x cwnd / RTT.
            if let Some(rtt) = ack.srtt.filter(|r| *r > Time::ZERO) {
                self.pacing_rate = Some(self.initial_pacing_rate(st, rtt));
            }
            return;
        }
        let rate = self.pacing_gain * bw * PACING_MARGIN;
        // In Startup the rate never falls (a low early sample must not slow it).
        if self.filled_pipe || self.pacing_rate.is_none_or(|r| rate > r) {
            self.pacing_rate = Some(rate);
        }
    }

    /// Linux's `bbr_set_cwnd` with `bbr_set_cwnd_to_recover_or_restore`: on an ACK that
    /// delivered data, the bytes it marked lost come off the window (one segment remains);
    /// recovery's first round conserves packets and its end restores the window saved
    /// before; otherwise the window grows toward its target by what was delivered, held at
    /// the target once the pipe is full, at least 4 segments. ProbeRTT caps it at 4.
    fn set_cwnd(&mut self, st: &mut CcState, ack: &AckInfo) {
        let mss = st.mss;
        let acked = ack.rate.map_or(0, |r| r.newly_delivered);
        if std::mem::take(&mut self.restore) {
            st.cwnd = st.cwnd.max(self.prior_cwnd);
        }
        if acked > 0 {
            let mut cwnd = st.cwnd;
            if ack.lost_bytes > 0 {
                cwnd = cwnd.saturating_sub(ack.lost_bytes).max(mss);
            }
            if ack.in_recovery && !self.was_in_recovery {
                self.packet_conservation = true;
                self.next_round_delivered =
                    ack.rate.map_or(self.next_round_delivered, |r| r.delivered_total);
                cwnd = ack.in_flight + acked;
            } else if !ack.in_recovery && self.was_in_recovery {
                cwnd = cwnd.max(self.prior_cwnd);
                self.packet_conservation = false;
            }
            self.was_in_recovery = ack.in_recovery;
            if self.packet_conservation {
                cwnd = cwnd.max(ack.in_flight + acked);
            } else {
                let target = self.target_cwnd(self.cwnd_gain, mss);
                if self.filled_pipe {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target
                    || ack.rate.is_some_and(|r| r.delivered_total < INITIAL_BDP_SEGMENTS * mss)
                {
                    cwnd += acked;
                }
                cwnd = cwnd.max(MIN_CWND_SEGMENTS * mss);
            }
            st.cwnd = cwnd;
        }
        if self.mode == Mode::ProbeRtt {
            st.cwnd = st.cwnd.min(MIN_CWND_SEGMENTS * mss);
        }
    }
}

impl CongestionControl for Bbr {
    fn seed(&mut self, rng: Rng) {
        self.rng = rng;
    }

    /// RTprop starts at the handshake's RTT, and the pacing rate at `high_gain * cwnd / RTT`.
    fn on_open(&mut self, st: &CcState, now: Time, handshake_rtt: Option<Time>) {
        self.min_rtt_stamp = now;
        self.ack_epoch_start = now;
        if let Some(rtt) = handshake_rtt.filter(|r| *r > Time::ZERO) {
            self.min_rtt = Some(rtt);
            self.pacing_rate = Some(self.initial_pacing_rate(st, rtt));
        }
    }

    fn pacing_rate(&self) -> Option<f64> {
        self.pacing_rate
    }

    /// Window growth happens per rate sample ([`Self::on_rate_sample`]).
    fn on_ack(&mut self, _st: &mut CcState, _acked: u64, _now: Time, _srtt: Time) {}

    /// BBR does not cut on loss; it keeps the window to restore after recovery.
    fn on_loss(&mut self, st: &mut CcState, _flight: u64, _now: Time) {
        self.save_cwnd(st);
    }

    fn on_ecn(&mut self, _st: &mut CcState, _flight: u64, _now: Time) -> bool {
        false
    }

    /// BBR keeps its window through recovery (packet conservation, then its own target):
    /// what NewReno, RFC 6675 or PRR would set is not its window.
    fn on_recovery_window(&mut self, _st: &mut CcState, _cwnd: u64) {}

    /// A repaired loss probe does not reduce BBR's window either.
    fn on_probe_repaired(&mut self, _st: &mut CcState, _flight: u64, _now: Time) -> bool {
        false
    }

    fn on_timeout(&mut self, st: &mut CcState, _flight: u64, _now: Time) {
        self.save_cwnd(st);
        st.cwnd = st.mss;
    }

    fn on_rate_sample(&mut self, st: &mut CcState, ack: &AckInfo) {
        let mss = st.mss;
        self.update_round(ack);
        self.update_bw(ack);
        self.expire_bw();
        self.update_ack_aggregation(st, ack);
        self.advance_cycle(ack, mss);
        self.check_full_pipe(ack);
        self.check_drain(ack, mss);
        self.update_min_rtt(st, ack);
        self.set_pacing_rate(st, ack);
        self.set_cwnd(st, ack);
    }
}

impl Declared for Bbr {
    type Config = BbrConfig;
    const RATE_SAMPLES: bool = true;
    fn new(cfg: &BbrConfig) -> Bbr {
        let g = cfg.high_gain;
        Bbr {
            cfg: cfg.clone(),
            mode: Mode::Startup,
            bw_samples: VecDeque::new(),
            min_rtt: None,
            min_rtt_stamp: Time::ZERO,
            round: 0,
            next_round_delivered: 0,
            round_start: false,
            pacing_gain: g,
            cwnd_gain: g,
            cycle_index: 0,
            cycle_stamp: Time::ZERO,
            full_bw: 0.0,
            full_bw_rounds: 0,
            filled_pipe: false,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            packet_conservation: false,
            was_in_recovery: false,
            pacing_rate: None,
            rng: Rng::stream(0, stream::CONTROLLER, 0),
            restore: false,
            ack_epoch_start: Time::ZERO,
            ack_epoch_acked: 0,
            extra_acked: [0; 2],
            extra_acked_idx: 0,
            extra_acked_rounds: 0,
        }
    }
    fn validate(cfg: &BbrConfig) -> Result<(), String> {
        cfg.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::delivery_rate::RateSample;

    const MSS: u64 = 1000;
    /// RTprop of the tests' path.
    const RTT_US: u64 = 100;

    fn us(x: u64) -> Time {
        Time::from_us(x)
    }

    /// Drives a BBR through whole rounds: every round, one ACK whose sample covers the previous
    /// round (so it starts a new one) at `bw` bytes/s with `in_flight` bytes out.
    struct Path {
        bbr: Bbr,
        st: CcState,
        now: Time,
        delivered: u64,
    }

    impl Path {
        fn new() -> Path {
            Path::seeded(0)
        }

        /// A path whose BBR draws from stream `k` (a flow's). The state machine's tests keep
        /// the window's budget at three segments and no ACK aggregation (`quantum =
        /// "segment"`, `extra_acked_gain = 0`), so that their windows are a few segments;
        /// Linux's budget and the aggregation estimate have tests of their own.
        fn seeded(k: u64) -> Path {
            Path::with(
                k,
                BbrConfig {
                    quantum: Quantum::Segment,
                    extra_acked_gain: 0.0,
                    ..BbrConfig::default()
                },
            )
        }

        fn with(k: u64, cfg: BbrConfig) -> Path {
            let mut bbr = Bbr::new(&cfg);
            bbr.seed(Rng::stream(1, stream::CONTROLLER, k));
            Path { bbr, st: CcState::new(MSS, 10), now: Time::ZERO, delivered: 0 }
        }

        fn round(&mut self, bw: f64, in_flight: u64) {
            self.ack(bw, in_flight, false, true);
        }

        /// One ACK, a little more than RTprop after the last (a phase lasts more than RTprop),
        /// with `in_flight` bytes out before and after it.
        fn ack(&mut self, bw: f64, in_flight: u64, in_recovery: bool, new_round: bool) {
            self.ack_after(bw, in_flight, in_flight, in_recovery, new_round);
        }

        /// [`Self::ack`] with `prior_in_flight` bytes out before the ACK and `in_flight` after.
        fn ack_after(
            &mut self,
            bw: f64,
            prior_in_flight: u64,
            in_flight: u64,
            in_recovery: bool,
            new_round: bool,
        ) {
            self.now = self.now + us(RTT_US + 1);
            let prior = if new_round { self.delivered } else { self.delivered.saturating_sub(1) };
            let newly = (bw * RTT_US as f64 / 1e6) as u64;
            self.delivered += newly;
            let rate = RateSample {
                rate: bw,
                interval: us(RTT_US),
                delivered: newly,
                prior_delivered: prior,
                delivered_total: self.delivered,
                app_limited: false,
                newly_delivered: newly,
                rtt: Some(us(RTT_US)),
            };
            let info = AckInfo {
                now: self.now,
                in_flight,
                prior_in_flight,
                in_recovery,
                lost: in_recovery,
                lost_bytes: 0,
                srtt: Some(us(RTT_US)),
                rate: Some(rate),
            };
            self.bbr.on_rate_sample(&mut self.st, &info);
        }

        /// One BDP at `bw` bytes/s.
        fn bdp(bw: f64) -> u64 {
            (bw * RTT_US as f64 / 1e6) as u64
        }
    }

    #[test]
    fn startup_grows_until_the_bandwidth_stalls_for_three_rounds_then_drains() {
        let mut p = Path::new();
        let mut bw = 1e7;
        for k in 0..5 {
            if k > 0 {
                bw *= 2.0;
            }
            p.round(bw, Path::bdp(bw));
            assert_eq!(p.bbr.mode(), Mode::Startup);
            assert_eq!(p.bbr.pacing_gain(), 2.885);
        }
        // The bandwidth stops growing: three rounds below +25 % fill the pipe.
        for k in 0..3 {
            assert_eq!(p.bbr.mode(), Mode::Startup, "round {k} of the plateau");
            p.round(bw, 3 * Path::bdp(bw));
        }
        assert_eq!(p.bbr.mode(), Mode::Drain);
        assert!((p.bbr.pacing_gain() - 1.0 / 2.885).abs() < 1e-12);
    }

    #[test]
    fn drain_ends_once_one_bdp_is_in_flight_and_probe_bw_never_starts_at_three_quarters() {
        for seed in 0..7 {
            let mut p = Path::seeded(seed);
            for _ in 0..4 {
                p.round(1e8, 3 * Path::bdp(1e8));
            }
            assert_eq!(p.bbr.mode(), Mode::Drain);
            p.round(1e8, 2 * Path::bdp(1e8));
            assert_eq!(p.bbr.mode(), Mode::Drain, "two BDPs still out");
            p.round(1e8, Path::bdp(1e8));
            assert_eq!(p.bbr.mode(), Mode::ProbeBw);
            assert_ne!(p.bbr.pacing_gain(), 0.75, "seed {seed}");
        }
    }

    /// A BBR in ProbeBW at 100 MB/s (BDP 10 KB) in the phase of gain 1.25.
    fn probing() -> Path {
        let mut p = Path::new();
        for _ in 0..4 {
            p.round(1e8, 3 * Path::bdp(1e8));
        }
        p.round(1e8, Path::bdp(1e8));
        assert_eq!(p.bbr.mode(), Mode::ProbeBw);
        while p.bbr.pacing_gain() != 1.25 {
            p.round(1e8, Path::bdp(1e8));
        }
        p
    }

    #[test]
    fn probe_bw_cycles_its_gain_one_phase_per_rtprop() {
        let mut p = probing();
        let bdp = Path::bdp(1e8);
        // 5/4 lasts until 1.25 BDP is in flight (after a whole RTprop).
        p.round(1e8, bdp);
        assert_eq!(p.bbr.pacing_gain(), 1.25, "not yet 1.25 BDP in flight");
        p.round(1e8, bdp * 5 / 4 + 6 * MSS);
        assert_eq!(p.bbr.pacing_gain(), 0.75);
        // 3/4 ends as soon as no more than one BDP is in flight.
        p.round(1e8, bdp + 3 * MSS);
        assert_eq!(p.bbr.pacing_gain(), 1.0);
        // Then six phases of 1, one RTprop each, and 5/4 again.
        for _ in 0..6 {
            p.round(1e8, bdp);
        }
        assert_eq!(p.bbr.pacing_gain(), 1.25);
        // Pacing at gain x BtlBw, 1 % below; cwnd 2 BDP + 3 segments (+2 while probing).
        assert!((p.bbr.pacing_rate().unwrap() - 1.25 * 1e8 * 0.99).abs() < 1.0);
        for _ in 0..20 {
            p.round(1e8, bdp);
        }
        let target = 2 * bdp + 3 * MSS + if p.bbr.pacing_gain() == 1.25 { 2 * MSS } else { 0 };
        assert_eq!(p.st.cwnd, target);
    }

    #[test]
    fn the_bandwidth_filter_forgets_a_peak_after_ten_rounds() {
        let mut p = probing();
        p.round(2e8, Path::bdp(1e8));
        assert_eq!(p.bbr.btl_bw(), 2e8);
        for k in 0..9 {
            p.round(1e8, Path::bdp(1e8));
            assert_eq!(p.bbr.btl_bw(), 2e8, "round {k}");
        }
        p.round(1e8, Path::bdp(1e8));
        assert_eq!(p.bbr.btl_bw(), 1e8);
    }

    #[test]
    fn probe_rtt_holds_four_segments_for_200ms_and_a_round_then_restores_the_window() {
        let mut p = probing();
        let before = p.st.cwnd;
        // 10 s without a smaller RTT: ProbeRTT.
        p.now = p.now + Time::from_ms(10_000);
        p.round(1e8, Path::bdp(1e8));
        assert_eq!(p.bbr.mode(), Mode::ProbeRtt);
        assert_eq!(p.st.cwnd, 4 * MSS);
        // The 200 ms start once no more than 4 segments are in flight.
        p.round(1e8, 4 * MSS);
        let start = p.now;
        while p.bbr.mode() == Mode::ProbeRtt {
            assert_eq!(p.st.cwnd, 4 * MSS);
            p.round(1e8, 4 * MSS);
        }
        let held = p.now - start;
        assert!(
            held >= Time::from_ms(200) && held < Time::from_ms(200) + us(3 * RTT_US),
            "{held:?}"
        );
        assert_eq!(p.bbr.mode(), Mode::ProbeBw);
        // The window before ProbeRTT comes back, capped by the target of the phase ProbeBW
        // starts in (as Linux: restored, then `min(cwnd + acked, target)`).
        let target =
            2 * Path::bdp(1e8) + 3 * MSS + if p.bbr.pacing_gain() == 1.25 { 2 * MSS } else { 0 };
        assert_eq!(p.st.cwnd, before.min(target));
    }

    /// A BBR that has just drained into ProbeBW at 100 MB/s.
    fn drained(p: &mut Path) {
        for _ in 0..4 {
            p.round(1e8, 3 * Path::bdp(1e8));
        }
        p.round(1e8, Path::bdp(1e8));
        assert_eq!(p.bbr.mode(), Mode::ProbeBw);
    }

    #[test]
    fn each_entry_into_probe_bw_draws_its_phase_from_the_flows_stream() {
        // Linux: uniformly one of the seven phases that are not 3/4, drawn at every entry.
        let mut seen = [0u32; 8];
        let mut p = Path::seeded(3);
        let mut first = Vec::new();
        for _ in 0..700 {
            drained(&mut p);
            seen[p.bbr.cycle_index] += 1;
            first.push(p.bbr.cycle_index);
            p.bbr.mode = Mode::Startup;
            p.bbr.filled_pipe = false;
            p.bbr.full_bw = 0.0;
            p.bbr.full_bw_rounds = 0;
        }
        assert_eq!(seen[1], 0, "never the 3/4 phase");
        assert!(
            seen.iter().enumerate().all(|(i, &n)| i == 1 || (60..=140).contains(&n)),
            "{seen:?}"
        );
        // The same stream gives the same phases; another flow's stream others.
        let phases = |k: u64| {
            let mut p = Path::seeded(k);
            (0..8)
                .map(|_| {
                    drained(&mut p);
                    let i = p.bbr.cycle_index;
                    p.bbr.mode = Mode::Startup;
                    p.bbr.filled_pipe = false;
                    p.bbr.full_bw = 0.0;
                    p.bbr.full_bw_rounds = 0;
                    i
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(phases(3), first[..8]);
        assert_ne!(phases(3), phases(4));
    }

    #[test]
    fn the_probing_phase_ends_on_what_was_in_flight_before_the_ack() {
        // 1.25 BDP + 5 segments was out when the ACK came; the ACK itself took one BDP out.
        // The draft's prior_inflight (Linux, ns-3) ends the phase; the in-flight after would not.
        let mut p = probing();
        let bdp = Path::bdp(1e8);
        let goal = (bdp * 5 / 4).div_ceil(MSS) * MSS + 5 * MSS;
        p.ack_after(1e8, goal, goal - bdp, false, true);
        assert_eq!(p.bbr.pacing_gain(), 0.75);
        // And 3/4 ends (before a whole RTprop) once no more than one BDP was out before the ACK.
        let mut p = probing();
        p.ack_after(1e8, goal, goal, false, true);
        assert_eq!(p.bbr.pacing_gain(), 0.75);
        p.now = p.now - us(RTT_US);
        p.ack_after(1e8, bdp + 4 * MSS, bdp, false, true);
        assert_eq!(p.bbr.pacing_gain(), 0.75, "one BDP + 4 segments was out");
        p.now = p.now - us(RTT_US);
        p.ack_after(1e8, bdp + 3 * MSS, 0, false, true);
        assert_eq!(p.bbr.pacing_gain(), 1.0);
    }

    #[test]
    fn below_one_segment_of_bdp_the_window_can_fill_the_probing_goal() {
        // 3 MB/s over 100 us: a BDP of 300 bytes. Rounded up to a whole segment (Linux counts
        // packets), the window in the probing phase is 1 + 3 + 2 segments, and so is the
        // phase's goal: a full window ends the phase. In bytes (750 + 5000 against a window of
        // 600 + 5000) the sender, which sends whole segments, could never reach it.
        let bw = 3e6;
        let mut p = Path::new();
        for _ in 0..4 {
            p.round(bw, 3 * MSS);
        }
        p.round(bw, MSS);
        assert_eq!(p.bbr.mode(), Mode::ProbeBw);
        while p.bbr.pacing_gain() != 1.25 {
            p.round(bw, 4 * MSS);
        }
        // The window grows by what each round delivers up to its target.
        for _ in 0..10 {
            p.round(bw, 4 * MSS);
            assert_eq!(p.bbr.pacing_gain(), 1.25, "4 segments out: not yet");
        }
        assert_eq!(p.st.cwnd, 6 * MSS);
        p.round(bw, p.st.cwnd);
        assert_eq!(p.bbr.pacing_gain(), 0.75);
        assert_eq!(p.st.cwnd, 4 * MSS, "1 + 3 segments outside the probing phase");
    }

    #[test]
    fn rtprop_and_the_pacing_rate_start_from_the_handshake() {
        // Linux's bbr_init takes the SYN's RTT as min_rtt; the pacing rate starts at
        // high_gain x cwnd / RTT, 1 % below. Data samples larger than it do not replace it for 10 s.
        let mut p = Path::new();
        p.bbr.on_open(&p.st, us(5), Some(us(40)));
        assert_eq!(p.bbr.min_rtt(), Some(us(40)));
        let rate = p.bbr.pacing_rate().unwrap();
        assert!((rate - 2.885 * 10_000.0 / 40e-6 * 0.99).abs() < 1.0, "{rate}");
        p.round(1e7, Path::bdp(1e7));
        assert_eq!(p.bbr.min_rtt(), Some(us(40)), "a 100 us sample does not replace it");
        // Without a handshake sample, the first RTT sample is RTprop.
        let mut p = Path::new();
        p.bbr.on_open(&p.st, us(5), None);
        assert_eq!(p.bbr.min_rtt(), None);
        p.round(1e7, Path::bdp(1e7));
        assert_eq!(p.bbr.min_rtt(), Some(us(RTT_US)));
    }

    #[test]
    fn recovery_conserves_packets_for_a_round_and_restores_the_window_after() {
        let mut p = probing();
        for _ in 0..20 {
            p.round(1e8, Path::bdp(1e8));
        }
        let before = p.st.cwnd;
        p.bbr.on_loss(&mut p.st, before, p.now);
        assert_eq!(p.st.cwnd, before, "no cut on loss");
        // Recovery: cwnd = in flight + acked (here 4 KB + 10 KB).
        p.ack(1e8, 4 * MSS, true, false);
        assert_eq!(p.st.cwnd, (4 * MSS + Path::bdp(1e8)).max(4 * MSS));
        // The next round ends the conservation; leaving recovery restores the window, which
        // the target of the current phase then caps (as Linux).
        p.ack(1e8, 2 * MSS, true, true);
        p.ack(1e8, Path::bdp(1e8), false, true);
        let target =
            2 * Path::bdp(1e8) + 3 * MSS + if p.bbr.pacing_gain() == 1.25 { 2 * MSS } else { 0 };
        assert_eq!(p.st.cwnd, before.min(target), "the window before recovery comes back");
        // A timeout leaves one segment.
        p.bbr.on_timeout(&mut p.st, before, p.now);
        assert_eq!(p.st.cwnd, MSS);
    }

    /// Linux's quantization budget: 3 TSO bursts of 1 ms at the pacing rate (at least 2
    /// segments), the window rounded up to an even number of segments, 2 more in the probing
    /// phase.
    #[test]
    fn linux_budgets_three_tso_bursts_rounded_to_even() {
        let mut p = Path::with(
            0,
            BbrConfig { quantum: Quantum::Tso, extra_acked_gain: 0.0, ..BbrConfig::default() },
        );
        p.bbr.mode = Mode::ProbeBw;
        p.bbr.cycle_index = 2;
        p.bbr.min_rtt = Some(us(RTT_US));
        // 1 MB/s: 1 ms is 977 bytes, less than a segment: bursts of 2 (the floor).
        p.bbr.pacing_rate = Some(1e6);
        assert_eq!(p.bbr.tso_segments(MSS), 2);
        // 1 BDP = 0 bytes here (no bandwidth yet): 0 + 6 segments, even.
        assert_eq!(p.bbr.budget(0, MSS), 6 * MSS);
        assert_eq!(p.bbr.budget(1, MSS), 8 * MSS, "7 rounded up to even");
        // 125 Mbit/s: 15,258 bytes a ms, 15 segments a burst: 45 + 1 = 46.
        p.bbr.pacing_rate = Some(125e6 / 8.0);
        assert_eq!(p.bbr.tso_segments(MSS), 15);
        assert_eq!(p.bbr.budget(1, MSS), 46 * MSS);
        // Below 1.2 Mbit/s a burst is one segment; never more than Linux's GSO limit less
        // the headers (65,536 - 1 - 320 bytes: 65 segments of 1000 bytes), nor 127 segments.
        p.bbr.pacing_rate = Some(100_000.0);
        assert_eq!(p.bbr.tso_segments(MSS), 1);
        p.bbr.pacing_rate = Some(1e10);
        assert_eq!(p.bbr.tso_segments(MSS), 65);
        assert_eq!(p.bbr.tso_segments(100), 127);
        // The probing phase adds 2 segments after the rounding.
        p.bbr.pacing_rate = Some(1e6);
        p.bbr.cycle_index = 0;
        assert_eq!(p.bbr.budget(1, MSS), 10 * MSS);
        // ns-3's: three segments.
        let mut q = Path::seeded(0);
        q.bbr.mode = Mode::ProbeBw;
        q.bbr.cycle_index = 2;
        assert_eq!(q.bbr.budget(1, MSS), 4 * MSS);
    }

    /// Linux's ACK aggregation estimate: data acknowledged beyond BtlBw times the epoch's
    /// length, kept as a maximum, added to the window's target once the pipe is full.
    #[test]
    fn acks_that_arrive_in_bursts_raise_the_window_target() {
        let cfg = BbrConfig { quantum: Quantum::Segment, ..BbrConfig::default() };
        let mut p = Path::with(0, cfg);
        for _ in 0..4 {
            p.round(1e8, 3 * Path::bdp(1e8));
        }
        p.round(1e8, Path::bdp(1e8));
        assert!(p.bbr.filled_pipe);
        // Steady ACKs, one BDP (10 segments) a round at BtlBw: the epoch's data matches its
        // time, no excess beyond the epoch's first ACK.
        let steady = p.bbr.extra_acked[0].max(p.bbr.extra_acked[1]);
        assert!(steady <= Path::bdp(1e8), "{steady}");
        // Four ACKs of 10 segments at once, 1 us apart: 40 segments against 4 us at 100 MB/s.
        p.bbr.ack_epoch_acked = 0;
        p.bbr.ack_epoch_start = p.now;
        let (now, mut delivered) = (p.now, p.delivered);
        for k in 1..=4u64 {
            delivered += 10 * MSS;
            let rate = RateSample {
                rate: 1e8,
                interval: us(RTT_US),
                delivered: 10 * MSS,
                prior_delivered: delivered - 1,
                delivered_total: delivered,
                app_limited: false,
                newly_delivered: 10 * MSS,
                rtt: Some(us(RTT_US)),
            };
            let info = AckInfo {
                now: now + us(k),
                in_flight: Path::bdp(1e8),
                prior_in_flight: Path::bdp(1e8),
                in_recovery: false,
                lost: false,
                lost_bytes: 0,
                srtt: Some(us(RTT_US)),
                rate: Some(rate),
            };
            p.bbr.on_rate_sample(&mut p.st, &info);
        }
        // The first ACK starts the epoch (nothing acked in it yet); 40 KB acked against the
        // 3 us since at 100 MB/s (300 bytes expected), at most the window.
        let extra = p.bbr.extra_acked[0].max(p.bbr.extra_acked[1]);
        assert_eq!(extra, (40 * MSS - 300).min(p.st.cwnd));
        assert!(extra > 30 * MSS, "{extra}");
        assert_eq!(p.bbr.aggregation_cwnd(), extra);
        let without = p.bbr.budget(p.bbr.bdp_segments(2.0, MSS), MSS);
        assert_eq!(p.bbr.target_cwnd(2.0, MSS), without + extra.div_ceil(MSS) * MSS);
        // A gain of 0 turns it off.
        p.bbr.cfg.extra_acked_gain = 0.0;
        assert_eq!(p.bbr.aggregation_cwnd(), 0);
    }

    /// Linux's `bbr_set_cwnd_to_recover_or_restore`: the bytes an ACK marks lost come off the
    /// window before anything else, one segment at least remaining.
    #[test]
    fn losses_come_off_the_window() {
        let mut p = probing();
        for _ in 0..20 {
            p.round(1e8, Path::bdp(1e8));
        }
        let before = p.st.cwnd;
        let rate = RateSample {
            rate: 1e8,
            interval: us(RTT_US),
            delivered: MSS,
            prior_delivered: p.delivered - 1,
            delivered_total: p.delivered + MSS,
            app_limited: false,
            newly_delivered: MSS,
            rtt: Some(us(RTT_US)),
        };
        let info = AckInfo {
            now: p.now + us(1),
            in_flight: before,
            prior_in_flight: before,
            in_recovery: false,
            lost: true,
            lost_bytes: 3 * MSS,
            srtt: Some(us(RTT_US)),
            rate: Some(rate),
        };
        p.bbr.on_rate_sample(&mut p.st, &info);
        assert_eq!(p.st.cwnd, before - 3 * MSS + MSS, "3 lost off, the 1 delivered back on");
        let info = AckInfo { lost_bytes: 100 * MSS, ..info };
        p.bbr.on_rate_sample(&mut p.st, &info);
        assert_eq!(p.st.cwnd, 4 * MSS, "one segment left, then the 4-segment floor");
    }
}
