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

use super::delivery_rate::RateSample;
use crate::sim::rng::Rng;
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// What one ACK tells a controller that takes rate samples.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    pub now: Time,
    /// Bytes in flight after the ACK (the pipe).
    pub in_flight: u64,
    /// Bytes in flight before the ACK (Linux's and ns-3's `prior_in_flight`).
    pub prior_in_flight: u64,
    /// The sender is in loss recovery.
    pub in_recovery: bool,
    /// This ACK revealed a loss: it marked a segment lost (RACK) or started a recovery.
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
/// - `on_recovery_exit` when a full ACK ends fast recovery;
/// - `on_open` when the connection opens, with its handshake's RTT.
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

    /// The connection opens at `now`, before anything is sent; `handshake_rtt` is the RTT its
    /// handshake measured (`transport.handshake_rtt`), if any.
    fn on_open(&mut self, _st: &CcState, _now: Time, _handshake_rtt: Option<Time>) {}

    /// The flow's own random stream, drawn from the scenario's seed (for controllers that
    /// randomize: BBR's ProbeBW phase).
    fn seed(&mut self, _rng: Rng) {}

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

/// One congestion controller as a scenario names it: `transport.cc = "<name>"`, or a table
/// `{ kind = "<name>", ... }` of its [`Controller::Config`]. Each controller file implements it,
/// and the [`controllers!`] list below is the one place the set of controllers is written: a
/// new controller is its file and one line there.
pub trait Controller: CongestionControl + Clone + std::fmt::Debug {
    /// Its settings; [`NoSettings`] for a controller without any.
    type Config: serde::de::DeserializeOwned + Serialize + Clone + std::fmt::Debug + PartialEq;
    /// It reacts to ECN marks and needs the receiver to echo every CE mark (RFC 8257 section
    /// 3.2: DCTCP's family); the others use RFC 3168 classic echo, latched until CWR.
    const ACCURATE_ECN: bool = false;
    /// Its packets carry their flow's remaining size as priority (pFabric).
    const SIZE_PRIORITY: bool = false;
    /// It reads delivery rate samples, so the sender keeps them (BBR).
    const RATE_SAMPLES: bool = false;
    fn new(cfg: &Self::Config) -> Self;
    /// Checks the settings (a message for the key `transport.cc`).
    fn validate(_cfg: &Self::Config) -> Result<(), String> {
        Ok(())
    }
}

pub use crate::config::NoSettings;

/// Declares the controllers: for each, its name in scenarios, its variant in [`CcConfig`] and
/// [`AnyCc`], and its file and type (`, boxed` keeps a large controller off the sender's
/// inline state). Declares each file's module and generates the config enum, its parser and
/// queries, the list of names, and the closed dispatch enum of the per-packet path: a new
/// controller is its file and one line in the list.
macro_rules! controllers {
    ($($(#[$attr:meta])* $name:literal => $variant:ident($module:ident :: $kind:ident $(, $boxed:ident)?)),* $(,)?) => {
        $($(#[$attr])* pub mod $module;)*

        /// Which controller a flow uses, with its settings (scenario key `transport.cc`).
        #[derive(Clone, Debug, Serialize, PartialEq)]
        #[serde(tag = "kind")]
        pub enum CcConfig {
            $($(#[$attr])* #[serde(rename = $name)] $variant(<$module::$kind as Controller>::Config),)*
        }

        /// The controllers' names, in declaration order.
        pub const KINDS: &[&str] = &[$($(#[$attr])* $name),*];

        impl CcConfig {
            fn parse(kind: &str, v: toml::Value) -> crate::Result<CcConfig> {
                Ok(match kind {
                    $($(#[$attr])* $name => CcConfig::$variant(crate::config::typed(v, "")?),)*
                    other => unreachable!("by_kind checked {other}"),
                })
            }

            pub fn name(&self) -> &'static str {
                match self { $($(#[$attr])* CcConfig::$variant(_) => $name,)* }
            }

            /// Checks the controller's settings.
            pub fn validate(&self) -> Result<(), String> {
                match self { $($(#[$attr])* CcConfig::$variant(c) => <$module::$kind as Controller>::validate(c),)* }
            }

            /// [`Controller::ACCURATE_ECN`] of the chosen controller.
            pub fn accurate_ecn(&self) -> bool {
                match self { $($(#[$attr])* CcConfig::$variant(_) => <$module::$kind as Controller>::ACCURATE_ECN,)* }
            }

            /// [`Controller::SIZE_PRIORITY`] of the chosen controller.
            pub fn size_priority(&self) -> bool {
                match self { $($(#[$attr])* CcConfig::$variant(_) => <$module::$kind as Controller>::SIZE_PRIORITY,)* }
            }

            /// [`Controller::RATE_SAMPLES`] of the chosen controller.
            pub fn uses_rate_samples(&self) -> bool {
                match self { $($(#[$attr])* CcConfig::$variant(_) => <$module::$kind as Controller>::RATE_SAMPLES,)* }
            }

            pub fn build(&self) -> AnyCc {
                match self { $($(#[$attr])* CcConfig::$variant(c) => AnyCc::$variant(controllers!(@held $($boxed)? <$module::$kind as Controller>::new(c))),)* }
            }
        }

        /// Closed set of controllers for static dispatch on the per-packet path.
        #[derive(Clone, Debug)]
        pub enum AnyCc {
            $($(#[$attr])* $variant(controllers!(@type $module::$kind $(, $boxed)?)),)*
        }

        impl CongestionControl for AnyCc {
            fn on_flow(&mut self, size: Option<u64>, deadline: Option<Time>) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_flow(size, deadline),)* }
            }
            fn on_ack(&mut self, st: &mut CcState, acked: u64, now: Time, srtt: Time) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_ack(st, acked, now, srtt),)* }
            }
            fn on_feedback(&mut self, acked: u64, ece: bool, snd_una: u64, snd_nxt: u64) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_feedback(acked, ece, snd_una, snd_nxt),)* }
            }
            fn on_loss(&mut self, st: &mut CcState, flight: u64, now: Time) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_loss(st, flight, now),)* }
            }
            fn on_ecn(&mut self, st: &mut CcState, flight: u64, now: Time) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_ecn(st, flight, now),)* }
            }
            fn on_timeout(&mut self, st: &mut CcState, flight: u64, now: Time) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_timeout(st, flight, now),)* }
            }
            fn on_recovery_exit(&mut self, st: &mut CcState, now: Time) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_recovery_exit(st, now),)* }
            }
            fn on_open(&mut self, st: &CcState, now: Time, handshake_rtt: Option<Time>) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_open(st, now, handshake_rtt),)* }
            }
            fn seed(&mut self, rng: Rng) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.seed(rng),)* }
            }
            fn owns_window(&self) -> bool {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.owns_window(),)* }
            }
            fn pacing_rate(&self) -> Option<f64> {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.pacing_rate(),)* }
            }
            fn on_rate_sample(&mut self, st: &mut CcState, ack: &AckInfo) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_rate_sample(st, ack),)* }
            }
        }
    };
    (@type $ty:ty, boxed) => { Box<$ty> };
    (@type $ty:ty) => { $ty };
    (@held boxed $e:expr) => { Box::new($e) };
    (@held $e:expr) => { $e };
}

controllers! {
    "newreno" => Newreno(newreno::NewReno),
    "cubic" => Cubic(cubic::Cubic),
    "dctcp" => Dctcp(dctcp::Dctcp),
    "d2tcp" => D2tcp(d2tcp::D2tcp),
    "l2dct" => L2dct(l2dct::L2dct),
    "pfabric" => Pfabric(pfabric::Pfabric),
    "bbr" => Bbr(bbr::Bbr, boxed),
    #[cfg(test)]
    "toy" => Toy(toy::Toy),
}

/// `cc = "cubic"` or `cc = { kind = "cubic", beta = 0.8 }`.
impl<'de> Deserialize<'de> for CcConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = match toml::Value::deserialize(d)? {
            toml::Value::String(name) => toml::Value::Table(toml::Table::from_iter([(
                "kind".to_string(),
                toml::Value::String(name),
            )])),
            other => other,
        };
        crate::config::by_kind(v, KINDS, CcConfig::parse)
            .map_err(|e: toml::de::Error| D::Error::custom(e.message()))
    }
}

impl CcConfig {
    /// The controller reacts to ECN marks and needs ECN-capable packets.
    pub fn needs_ecn(&self) -> bool {
        self.accurate_ecn()
    }
}
