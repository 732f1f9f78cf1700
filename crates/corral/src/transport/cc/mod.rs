//! Congestion controllers behind one trait.
//!
//! The TCP sender ([`crate::transport::sender`]) owns the loss-recovery mechanics (dupack
//! counting, NewReno fast recovery, RTO, once-per-window ECN reaction) and asks the
//! controller only how the window moves. Each controller is one file; every hook has a
//! default that does what RFC 5681 Reno would do, so a controller overrides only what it
//! changes. The per-packet path dispatches through the closed enum [`AnyCc`], never a
//! `Box<dyn>` per flow.
//!
//! A controller that models the path instead of reacting to loss (BBR) takes delivery rate
//! samples ([`CongestionControl::on_rate_sample`], every ACK, recovery included), sets the
//! window itself ([`CongestionControl::owns_window`]: the sender then leaves cwnd alone in
//! recovery) and paces at its own rate ([`CongestionControl::pacing_rate`]).

pub mod bbr;
pub mod cubic;
pub mod d2tcp;
pub mod dctcp;
pub mod l2dct;
pub mod newreno;
pub mod pfabric;

use super::delivery_rate::RateSample;
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// What one ACK tells a controller that takes rate samples.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    pub now: Time,
    /// Bytes in flight after the ACK (the pipe).
    pub in_flight: u64,
    /// The sender is in loss recovery.
    pub in_recovery: bool,
    /// Loss was detected (the sender is in recovery).
    pub lost: bool,
    pub srtt: Option<Time>,
    /// The ACK's delivery rate sample (None when it delivered nothing).
    pub rate: Option<RateSample>,
}

/// The window state shared by the sender and its controller, in bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct CcState {
    /// Congestion window (bytes).
    pub cwnd: u64,
    /// Slow-start threshold (bytes).
    pub ssthresh: u64,
    /// Sender maximum segment size (bytes).
    pub mss: u64,
    /// Bytes acked since the last congestion-avoidance increase (RFC 5681 byte counting).
    pub ca_acked: u64,
}

impl CcState {
    pub fn new(mss: u64, initial_window_segments: u64) -> CcState {
        CcState { cwnd: mss * initial_window_segments, ssthresh: u64::MAX, mss, ca_acked: 0 }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// RFC 5681 section 3.1: slow start grows by at most one MSS per ACK, congestion
    /// avoidance by one MSS per window of bytes acked.
    pub fn reno_increase(&mut self, acked: u64) {
        if self.in_slow_start() {
            self.cwnd += acked.min(self.mss);
        } else {
            self.ca_acked += acked;
            if self.ca_acked >= self.cwnd {
                self.ca_acked -= self.cwnd;
                self.cwnd += self.mss;
            }
        }
    }

    /// DCTCP's cut and its variants' (RFC 8257 section 3.3 step 9): cwnd ← cwnd (1 − p/2), at
    /// least one MSS, ssthresh = cwnd. DCTCP's p is α; D2TCP's α^d; L2DCT's α^w.
    pub fn cut_by_penalty(&mut self, p: f64) {
        self.cwnd = ((self.cwnd as f64 * (1.0 - p / 2.0)).round() as u64).max(self.mss);
        self.ssthresh = self.cwnd;
        self.ca_acked = 0;
    }

    /// RFC 5681 equation (4): ssthresh = max(FlightSize / 2, 2 * SMSS).
    pub fn half_flight(&self, flight: u64) -> u64 {
        (flight / 2).max(2 * self.mss)
    }
}

/// One congestion controller. Hooks are called by the TCP sender:
/// - `on_flow` once, before anything is sent, with the flow's size and absolute deadline;
/// - `on_ack` for every ACK that advances `snd_una` outside fast recovery (window growth);
/// - `on_feedback` for every ACK, with the bytes it acked and its ECN-Echo flag;
/// - `on_loss` when fast retransmit starts (sets ssthresh; the sender then inflates cwnd);
/// - `on_ecn` at most once per window of data when ECN-Echo arrives;
/// - `on_timeout` on a retransmission timeout;
/// - `on_recovery_exit` when a full ACK ends fast recovery.
pub trait CongestionControl {
    fn on_flow(&mut self, _size: Option<u64>, _deadline: Option<Time>) {}

    fn on_ack(&mut self, st: &mut CcState, acked: u64, _now: Time, _srtt: Time) {
        st.reno_increase(acked);
    }

    fn on_feedback(&mut self, _acked: u64, _ece: bool, _snd_una: u64, _snd_nxt: u64) {}

    fn on_loss(&mut self, st: &mut CcState, flight: u64, _now: Time) {
        st.ssthresh = st.half_flight(flight);
    }

    fn on_ecn(&mut self, st: &mut CcState, flight: u64, now: Time) {
        self.on_loss(st, flight, now);
        st.cwnd = st.ssthresh.max(st.mss);
        st.ca_acked = 0;
    }

    fn on_timeout(&mut self, st: &mut CcState, flight: u64, now: Time) {
        self.on_loss(st, flight, now);
        st.cwnd = st.mss;
        st.ca_acked = 0;
    }

    fn on_recovery_exit(&mut self, _st: &mut CcState, _now: Time) {}

    /// A number that differs between flows (for controllers that randomize, BBR's phase).
    fn seed(&mut self, _seed: u64) {}

    /// The controller sets cwnd itself, in recovery too (BBR).
    fn owns_window(&self) -> bool {
        false
    }

    /// The rate to pace at, bytes per second (None: the sender's own pacing rule).
    fn pacing_rate(&self) -> Option<f64> {
        None
    }

    /// Every ACK's delivery rate sample (controllers with [`CcConfig::uses_rate_samples`]).
    fn on_rate_sample(&mut self, _st: &mut CcState, _ack: &AckInfo) {}
}

/// Which controller a flow uses, with its settings (scenario key `transport.cc`).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CcConfig {
    /// TCP NewReno (RFC 5681 window growth, RFC 6582 recovery).
    Newreno,
    /// CUBIC (RFC 9438).
    Cubic(cubic::CubicConfig),
    /// DCTCP (RFC 8257).
    Dctcp(dctcp::DctcpConfig),
    /// D2TCP, deadline-aware DCTCP.
    D2tcp(d2tcp::D2tcpConfig),
    /// L2DCT, size-aware DCTCP.
    L2dct(l2dct::L2dctConfig),
    /// pFabric's host: a fixed BDP window, packets prioritized by remaining size.
    Pfabric,
    /// BBR v1: paced at the model's bandwidth, window at twice its BDP.
    Bbr(bbr::BbrConfig),
}

/// `cc = "cubic"` or `cc = { kind = "cubic", beta = 0.8 }`.
impl<'de> Deserialize<'de> for CcConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::config::{by_kind, typed};
        use serde::de::Error;
        let v = match toml::Value::deserialize(d)? {
            toml::Value::String(name) => toml::Value::Table(toml::Table::from_iter([("kind".to_string(), toml::Value::String(name))])),
            other => other,
        };
        by_kind(v, &["newreno", "cubic", "dctcp", "d2tcp", "l2dct", "pfabric", "bbr"], |kind, v| {
            Ok(match kind {
                "newreno" => {
                    typed::<NoKeys>(v, "")?;
                    CcConfig::Newreno
                }
                "pfabric" => {
                    typed::<NoKeys>(v, "")?;
                    CcConfig::Pfabric
                }
                "cubic" => CcConfig::Cubic(typed(v, "")?),
                "d2tcp" => CcConfig::D2tcp(typed(v, "")?),
                "l2dct" => CcConfig::L2dct(typed(v, "")?),
                "bbr" => CcConfig::Bbr(typed(v, "")?),
                _ => CcConfig::Dctcp(typed(v, "")?),
            })
        })
        .map_err(|e: toml::de::Error| D::Error::custom(e.message()))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoKeys {}

impl CcConfig {
    /// Checks the controller's settings.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            CcConfig::Newreno | CcConfig::Pfabric => Ok(()),
            CcConfig::Cubic(c) => c.validate(),
            CcConfig::Dctcp(c) => c.validate(),
            CcConfig::D2tcp(c) => c.validate(),
            CcConfig::L2dct(c) => c.validate(),
            CcConfig::Bbr(c) => c.validate(),
        }
    }

    /// The controller reads delivery rate samples (the sender then keeps them).
    pub fn uses_rate_samples(&self) -> bool {
        matches!(self, CcConfig::Bbr(_))
    }

    /// The controller reacts to ECN marks and needs ECN-capable packets.
    pub fn needs_ecn(&self) -> bool {
        self.accurate_ecn()
    }

    pub fn name(&self) -> &'static str {
        match self {
            CcConfig::Newreno => "newreno",
            CcConfig::Cubic(_) => "cubic",
            CcConfig::Dctcp(_) => "dctcp",
            CcConfig::D2tcp(_) => "d2tcp",
            CcConfig::L2dct(_) => "l2dct",
            CcConfig::Pfabric => "pfabric",
            CcConfig::Bbr(_) => "bbr",
        }
    }

    /// DCTCP and its variants need the receiver to echo every CE mark (RFC 8257 section 3.2);
    /// the others use RFC 3168 classic echo, latched until CWR.
    pub fn accurate_ecn(&self) -> bool {
        matches!(self, CcConfig::Dctcp(_) | CcConfig::D2tcp(_) | CcConfig::L2dct(_))
    }

    /// Its packets carry their flow's remaining size as priority (pFabric).
    pub fn size_priority(&self) -> bool {
        matches!(self, CcConfig::Pfabric)
    }

    pub fn build(&self) -> AnyCc {
        match self {
            CcConfig::Newreno => AnyCc::NewReno(newreno::NewReno),
            CcConfig::Cubic(c) => AnyCc::Cubic(cubic::Cubic::new(c.clone())),
            CcConfig::Dctcp(c) => AnyCc::Dctcp(dctcp::Dctcp::new(c.clone())),
            CcConfig::D2tcp(c) => AnyCc::D2tcp(d2tcp::D2tcp::new(c.clone())),
            CcConfig::L2dct(c) => AnyCc::L2dct(l2dct::L2dct::new(c.clone())),
            CcConfig::Pfabric => AnyCc::Pfabric(pfabric::Pfabric::default()),
            CcConfig::Bbr(c) => AnyCc::Bbr(Box::new(bbr::Bbr::new(c.clone()))),
        }
    }
}

/// Closed set of controllers for static dispatch on the per-packet path.
#[derive(Clone, Debug)]
pub enum AnyCc {
    NewReno(newreno::NewReno),
    Cubic(cubic::Cubic),
    Dctcp(dctcp::Dctcp),
    D2tcp(d2tcp::D2tcp),
    L2dct(l2dct::L2dct),
    Pfabric(pfabric::Pfabric),
    Bbr(Box<bbr::Bbr>),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            AnyCc::NewReno($c) => $e,
            AnyCc::Cubic($c) => $e,
            AnyCc::Dctcp($c) => $e,
            AnyCc::D2tcp($c) => $e,
            AnyCc::L2dct($c) => $e,
            AnyCc::Pfabric($c) => $e,
            AnyCc::Bbr($c) => $e,
        }
    };
}

impl CongestionControl for AnyCc {
    fn on_flow(&mut self, size: Option<u64>, deadline: Option<Time>) {
        dispatch!(self, c => c.on_flow(size, deadline))
    }
    fn on_ack(&mut self, st: &mut CcState, acked: u64, now: Time, srtt: Time) {
        dispatch!(self, c => c.on_ack(st, acked, now, srtt))
    }
    fn on_feedback(&mut self, acked: u64, ece: bool, snd_una: u64, snd_nxt: u64) {
        dispatch!(self, c => c.on_feedback(acked, ece, snd_una, snd_nxt))
    }
    fn on_loss(&mut self, st: &mut CcState, flight: u64, now: Time) {
        dispatch!(self, c => c.on_loss(st, flight, now))
    }
    fn on_ecn(&mut self, st: &mut CcState, flight: u64, now: Time) {
        dispatch!(self, c => c.on_ecn(st, flight, now))
    }
    fn on_timeout(&mut self, st: &mut CcState, flight: u64, now: Time) {
        dispatch!(self, c => c.on_timeout(st, flight, now))
    }
    fn on_recovery_exit(&mut self, st: &mut CcState, now: Time) {
        dispatch!(self, c => c.on_recovery_exit(st, now))
    }
    fn seed(&mut self, seed: u64) {
        dispatch!(self, c => c.seed(seed))
    }
    fn owns_window(&self) -> bool {
        dispatch!(self, c => c.owns_window())
    }
    fn pacing_rate(&self) -> Option<f64> {
        dispatch!(self, c => c.pacing_rate())
    }
    fn on_rate_sample(&mut self, st: &mut CcState, ack: &AckInfo) {
        dispatch!(self, c => c.on_rate_sample(st, ack))
    }
}
