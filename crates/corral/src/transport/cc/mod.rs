//! Congestion controllers behind one trait, each owning its window.
//!
//! The seam, as quinn-proto draws it (its `Controller::window`): a flow's controller and the
//! window it owns are one value, [`Cc`]; the TCP sender ([`crate::transport::sender`]) reads
//! the window ([`Cc::window`]) and, where the controller sets one, the pacing rate
//! ([`Cc::pacing_rate`]), and tells the controller what happened through the hooks of
//! [`CongestionControl`]. It never writes the window: its loss-recovery mechanics (dupack
//! counting, NewReno fast recovery, RFC 6675 and PRR, RTO, once-per-window ECN reaction)
//! only ask for one ([`CongestionControl::on_recovery_window`]), which the controller takes
//! or, if it keeps its window through recovery (BBR), ignores.
//!
//! Each controller is one file holding its own state; every hook has a default that does
//! what RFC 5681 Reno would do, so a controller overrides only what it changes. Each is
//! built one way, from its settings ([`Declared::new`], through [`CcConfig::build`]). The
//! behaviour is [`CongestionControl`] (quinn's and smoltcp's `Controller`); [`Declared`] is
//! how a controller is registered and configured, named as queue disciplines name it. The
//! per-packet path dispatches through the closed enum [`AnyCc`], never a `Box<dyn>` per
//! flow.
//!
//! A controller that models the path instead of reacting to loss (BBR) takes delivery rate
//! samples ([`CongestionControl::on_rate_sample`], every ACK, recovery included), sets the
//! window itself, ignoring what recovery asks, and paces at its own rate
//! ([`CongestionControl::pacing_rate`]).
//!
//! A controller that reads the path on every ACK (HPCC) learns the flow's path once when the
//! flow is built ([`CongestionControl::on_path`]: base RTT, NIC rate) and takes every ACK's
//! signal ([`CongestionControl::on_ack_signal`]: its RTT sample and the in-network telemetry
//! it echoes, [`crate::net::telemetry`]) before the sender reacts to the ACK; it sets the
//! window there and paces at its own rate.

use super::delivery_rate::RateSample;
use crate::net::telemetry::Telemetry;
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
    /// The bytes it marked lost (RACK; the first segment when it started a recovery
    /// without RACK's marks): Linux's and ns-3's `rs->losses` / `m_bytesLoss`.
    pub lost_bytes: u64,
    pub srtt: Option<Time>,
    /// The ACK's delivery rate sample (None when it delivered nothing).
    pub rate: Option<RateSample>,
}

/// What one ACK tells a controller that reads ACK signals ([`Declared::ACK_SIGNALS`]),
/// before the sender reacts to it.
#[derive(Clone, Copy, Debug)]
pub struct AckSignal<'a> {
    pub now: Time,
    /// The cumulative ACK.
    pub ack: u64,
    /// `snd_una` before it: the ACK is new when `ack > snd_una`.
    pub snd_una: u64,
    /// `snd_nxt` as it arrived (HPCC's `lastUpdateSeq` is set to it).
    pub snd_nxt: u64,
    /// The RTT it measures: now minus the echoed send time.
    pub rtt: Time,
    /// The in-network telemetry the receiver echoed (flows with [`Declared::TELEMETRY`]).
    pub telemetry: Option<&'a Telemetry>,
}

/// The path a flow's packets take, as a controller that reads ACK signals learns it once
/// ([`CongestionControl::on_path`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathInfo {
    /// The unloaded round trip: a full segment there and its ACK back, serialization and
    /// propagation at every hop, no queueing.
    pub base_rtt: Time,
    /// Links on the forward path.
    pub hops: u32,
    /// The sender's NIC rate, bits per second.
    pub nic_bps: u64,
}

/// The window a controller owns, in bytes: its hooks move it, the sender reads it
/// ([`Cc::window`]).
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

    /// DCTCP's reduction and its variants' (RFC 8257 section 3.3 step 9): the window the
    /// reduction ends at, ssthresh = cwnd (1 − p/2), at least `min_segments` segments (Linux's
    /// `dctcp_ssthresh`: two). DCTCP's p is α; D2TCP's α^d; L2DCT's α^w.
    pub fn ssthresh_by_penalty(&mut self, p: f64, min_segments: u64) {
        let floor = min_segments.max(1) * self.mss;
        self.ssthresh = ((self.cwnd as f64 * (1.0 - p / 2.0)).round() as u64).max(floor);
        self.ca_acked = 0;
    }

    /// RFC 5681 equation (4): ssthresh = max(FlightSize / 2, 2 * SMSS).
    pub fn half_flight(&self, flight: u64) -> u64 {
        (flight / 2).max(2 * self.mss)
    }
}

/// One congestion controller: the hooks the TCP sender calls, each given the window the
/// controller owns (`st`) to move. The defaults are RFC 5681's Reno. In the order a flow
/// meets them:
/// - [`seed`](Self::seed) and [`on_flow`](Self::on_flow) once, when the flow is built;
/// - [`on_open`](Self::on_open) when the connection opens, with its handshake's RTT;
/// - [`on_feedback`](Self::on_feedback) for every ACK, with the bytes it delivered and its
///   ECN-Echo flag;
/// - [`on_ack`](Self::on_ack) for every ACK that advances `snd_una` outside fast recovery
///   (window growth);
/// - [`on_ecn`](Self::on_ecn) at most once per window of data when ECN-Echo arrives (it
///   sets ssthresh; the sender's reduction then asks for windows through
///   [`on_recovery_window`](Self::on_recovery_window));
/// - [`on_loss`](Self::on_loss) when fast retransmit starts (ssthresh), then
///   [`on_recovery_window`](Self::on_recovery_window) at each step of the recovery and
///   [`on_recovery_exit`](Self::on_recovery_exit) when a full ACK ends it;
/// - [`on_probe_repaired`](Self::on_probe_repaired) when a tail loss probe repaired a loss;
/// - [`on_timeout`](Self::on_timeout) on a retransmission timeout,
///   [`on_timeout_again`](Self::on_timeout_again) when the timer fires again;
/// - [`on_rate_sample`](Self::on_rate_sample) for every ACK, with its delivery rate sample
///   (controllers that read them only);
/// - [`on_path`](Self::on_path) once, when the flow is built, and
///   [`on_ack_signal`](Self::on_ack_signal) for every ACK before the sender reacts to it
///   (controllers with [`Declared::ACK_SIGNALS`] only).
///
/// The sender reads the window after every hook, and [`pacing_rate`](Self::pacing_rate)
/// whenever it paces a segment.
pub trait CongestionControl {
    /// The flow's size (`None`: unbounded) and absolute deadline, once, before anything is
    /// sent (D2TCP reads both).
    fn on_flow(&mut self, _size: Option<u64>, _deadline: Option<Time>) {}

    /// An ACK advanced `snd_una` by `acked` bytes outside fast recovery and without an ECN
    /// cut: the window grows (RFC 5681 section 3.1: slow start, congestion avoidance).
    /// `srtt` is the smoothed RTT (zero before the first sample).
    fn on_ack(&mut self, st: &mut CcState, acked: u64, _now: Time, _srtt: Time) {
        st.reno_increase(acked);
    }

    /// Every ACK, before anything else reacts to it: the bytes it newly acked (0 for a
    /// duplicate), whether it carried ECN-Echo, and `snd_una` / `snd_nxt` after it (DCTCP's
    /// α is measured here, RFC 8257 section 3.3).
    fn on_feedback(&mut self, _acked: u64, _ece: bool, _snd_una: u64, _snd_nxt: u64) {}

    /// Fast retransmit starts a loss recovery with `flight` bytes (`transport.ssthresh`)
    /// outstanding: set ssthresh (RFC 5681 equation (4)). The window is then loss recovery's
    /// ([`Self::on_recovery_window`]). Not called when an ECN cut already reduced this
    /// window of data (RFC 3168 section 6.1.2).
    fn on_loss(&mut self, st: &mut CcState, flight: u64, _now: Time) {
        st.ssthresh = st.half_flight(flight);
    }

    /// ECN-Echo, at most once per window of data and never in recovery (RFC 3168 section
    /// 6.1.2), with `flight` bytes outstanding: set ssthresh, the window the reduction ends
    /// at (Linux's `ssthresh` hook, which `tcp_enter_cwr` calls; Reno's: as for a loss), and
    /// return whether the window is to be reduced to it. The sender then brings cwnd down to
    /// ssthresh, at once or over the next round trip (`transport.ecn_response`), through
    /// [`Self::on_recovery_window`]; a controller that ignores ECN returns false.
    fn on_ecn(&mut self, st: &mut CcState, flight: u64, now: Time) -> bool {
        self.on_loss(st, flight, now);
        st.ca_acked = 0;
        true
    }

    /// A retransmission timeout with `flight` bytes outstanding, the first for this segment
    /// outside a SACK recovery: ssthresh as for a loss, cwnd one segment (RFC 5681 section
    /// 3.1).
    fn on_timeout(&mut self, st: &mut CcState, flight: u64, now: Time) {
        self.on_loss(st, flight, now);
        st.cwnd = st.mss;
        st.ca_acked = 0;
    }

    /// The same segment timed out again, or a SACK recovery timed out: ssthresh is held
    /// (RFC 5681 section 3.1; the recovery already cut it, as Linux's `tcp_enter_loss`), cwnd
    /// one segment.
    fn on_timeout_again(&mut self, st: &mut CcState) {
        st.cwnd = st.mss;
        st.ca_acked = 0;
    }

    /// Loss recovery asks for the window `cwnd`: NewReno's `ssthresh + 3 MSS` and its
    /// inflation and deflation (RFC 6582 section 3.2), RFC 6675's `cwnd = ssthresh`, PRR's
    /// `pipe + sndcnt` (RFC 6937), and the window recovery ends with. A controller that keeps
    /// its window through recovery (BBR) ignores it.
    fn on_recovery_window(&mut self, st: &mut CcState, cwnd: u64) {
        st.cwnd = cwnd;
    }

    /// A full ACK ended fast recovery (after [`Self::on_recovery_window`] set the window it
    /// ends with).
    fn on_recovery_exit(&mut self, _st: &mut CcState, _now: Time) {}

    /// A retransmitted tail loss probe repaired a loss outside recovery, with `flight` bytes
    /// outstanding (RFC 8985 section 7.4): reduce once, as a fast recovery would have
    /// (`cwnd = ssthresh`). Returns whether it reduced: the sender then counts this window of
    /// data reduced. Not called when it already was.
    fn on_probe_repaired(&mut self, st: &mut CcState, flight: u64, now: Time) -> bool {
        self.on_loss(st, flight, now);
        st.cwnd = st.ssthresh.max(st.mss);
        st.ca_acked = 0;
        true
    }

    /// The connection opens at `now`, before anything is sent; `handshake_rtt` is the RTT its
    /// handshake measured (`transport.handshake_rtt`), if any.
    fn on_open(&mut self, _st: &CcState, _now: Time, _handshake_rtt: Option<Time>) {}

    /// The flow's own random stream, drawn from the scenario's seed (for controllers that
    /// randomize: BBR's ProbeBW phase).
    fn seed(&mut self, _rng: Rng) {}

    /// The rate to pace at, bytes per second (None: the sender's own pacing rule, `gain *
    /// cwnd / srtt`, when `transport.pacing` is on).
    fn pacing_rate(&self) -> Option<f64> {
        None
    }

    /// Every ACK's delivery rate sample, after the sender's own reaction to it
    /// (controllers with [`Declared::RATE_SAMPLES`]).
    fn on_rate_sample(&mut self, _st: &mut CcState, _ack: &AckInfo) {}

    /// The flow's path, once, when the flow is built, before anything is sent (controllers
    /// with [`Declared::ACK_SIGNALS`]).
    fn on_path(&mut self, _st: &mut CcState, _path: &PathInfo) {}

    /// Every ACK, new or duplicate, before the sender's reaction to it (controllers with
    /// [`Declared::ACK_SIGNALS`]): its RTT sample and the echoed telemetry.
    fn on_ack_signal(&mut self, _st: &mut CcState, _sig: &AckSignal) {}
}

/// A flow's congestion controller and the window it owns: what the sender holds. The
/// sender reads the window ([`Cc::window`]) and the pacing rate ([`Cc::pacing_rate`]), and
/// calls the hooks (each method below forwards to the [`CongestionControl`] hook of the same
/// name, handing it the window); only the controller writes the window. Built only by
/// [`CcConfig::build`], from the controller's settings.
#[derive(Clone, Debug)]
pub struct Cc {
    st: CcState,
    kind: AnyCc,
}

impl Cc {
    /// The congestion window (bytes): what the sender may have in flight, as the controller
    /// last set it. The sender reads it before every send and never writes it.
    #[inline]
    pub fn window(&self) -> u64 {
        self.st.cwnd
    }

    /// The slow-start threshold (bytes), as the controller last set it (the sender reads it
    /// for RFC 6675's and PRR's recovery windows).
    #[inline]
    pub fn ssthresh(&self) -> u64 {
        self.st.ssthresh
    }

    /// The whole window state.
    pub fn state(&self) -> &CcState {
        &self.st
    }

    /// Which controller it is, with its own state.
    pub fn kind(&self) -> &AnyCc {
        &self.kind
    }

    /// [`CongestionControl::pacing_rate`].
    #[inline]
    pub fn pacing_rate(&self) -> Option<f64> {
        self.kind.pacing_rate()
    }

    /// [`CongestionControl::on_flow`].
    pub fn on_flow(&mut self, size: Option<u64>, deadline: Option<Time>) {
        self.kind.on_flow(size, deadline);
    }

    /// [`CongestionControl::seed`].
    pub fn seed(&mut self, rng: Rng) {
        self.kind.seed(rng);
    }

    /// [`CongestionControl::on_open`].
    pub fn on_open(&mut self, now: Time, handshake_rtt: Option<Time>) {
        self.kind.on_open(&self.st, now, handshake_rtt);
    }

    /// [`CongestionControl::on_ack`].
    #[inline]
    pub fn on_ack(&mut self, acked: u64, now: Time, srtt: Time) {
        self.kind.on_ack(&mut self.st, acked, now, srtt);
    }

    /// [`CongestionControl::on_feedback`].
    #[inline]
    pub fn on_feedback(&mut self, acked: u64, ece: bool, snd_una: u64, snd_nxt: u64) {
        self.kind.on_feedback(acked, ece, snd_una, snd_nxt);
    }

    /// [`CongestionControl::on_loss`].
    pub fn on_loss(&mut self, flight: u64, now: Time) {
        self.kind.on_loss(&mut self.st, flight, now);
    }

    /// [`CongestionControl::on_ecn`].
    pub fn on_ecn(&mut self, flight: u64, now: Time) -> bool {
        self.kind.on_ecn(&mut self.st, flight, now)
    }

    /// [`CongestionControl::on_timeout`].
    pub fn on_timeout(&mut self, flight: u64, now: Time) {
        self.kind.on_timeout(&mut self.st, flight, now);
    }

    /// [`CongestionControl::on_timeout_again`].
    pub fn on_timeout_again(&mut self) {
        self.kind.on_timeout_again(&mut self.st);
    }

    /// [`CongestionControl::on_recovery_window`].
    pub fn on_recovery_window(&mut self, cwnd: u64) {
        self.kind.on_recovery_window(&mut self.st, cwnd);
    }

    /// [`CongestionControl::on_recovery_exit`].
    pub fn on_recovery_exit(&mut self, now: Time) {
        self.kind.on_recovery_exit(&mut self.st, now);
    }

    /// [`CongestionControl::on_probe_repaired`].
    pub fn on_probe_repaired(&mut self, flight: u64, now: Time) -> bool {
        self.kind.on_probe_repaired(&mut self.st, flight, now)
    }

    /// [`CongestionControl::on_rate_sample`].
    pub fn on_rate_sample(&mut self, ack: &AckInfo) {
        self.kind.on_rate_sample(&mut self.st, ack);
    }

    /// [`CongestionControl::on_path`].
    pub fn on_path(&mut self, path: &PathInfo) {
        self.kind.on_path(&mut self.st, path);
    }

    /// [`CongestionControl::on_ack_signal`].
    pub fn on_ack_signal(&mut self, sig: &AckSignal) {
        self.kind.on_ack_signal(&mut self.st, sig);
    }
}

/// One congestion controller as a scenario declares it (the role [`crate::net::queue::Declared`]
/// plays for queue disciplines): `transport.cc = "<name>"`, or a table
/// `{ kind = "<name>", ... }` of its [`Declared::Config`]. Each controller file implements it,
/// and the `controllers!` list below is the one place the set of controllers is written: a
/// new controller is its file and one line there.
pub trait Declared: CongestionControl + Clone + std::fmt::Debug {
    /// Its settings; [`NoSettings`] for a controller without any.
    type Config: serde::de::DeserializeOwned + Serialize + Clone + std::fmt::Debug + PartialEq;
    /// It reacts to ECN marks and needs the receiver to echo every CE mark (RFC 8257 section
    /// 3.2: DCTCP's family); the others use RFC 3168 classic echo, latched until CWR.
    const ACCURATE_ECN: bool = false;
    /// Its packets carry their flow's remaining size as priority (pFabric).
    const SIZE_PRIORITY: bool = false;
    /// It reads delivery rate samples, so the sender keeps them (BBR).
    const RATE_SAMPLES: bool = false;
    /// It reads every ACK's signal and the flow's path ([`CongestionControl::on_ack_signal`],
    /// [`CongestionControl::on_path`]: HPCC).
    const ACK_SIGNALS: bool = false;
    /// Its data packets collect in-network telemetry, which the receiver echoes
    /// ([`crate::net::telemetry`]: HPCC).
    const TELEMETRY: bool = false;
    /// It sets its own pacing rate ([`CongestionControl::pacing_rate`]), so the sender paces
    /// whatever `transport.pacing` says (HPCC).
    const PACES: bool = false;
    /// The controller with these settings: the one way it is built.
    fn new(cfg: &Self::Config) -> Self;
    /// Checks the settings (a message for the key `transport.cc`).
    fn validate(_cfg: &Self::Config) -> Result<(), String> {
        Ok(())
    }
}

pub use crate::config::NoSettings;

pub mod bbr;
pub mod cubic;
pub mod d2tcp;
pub mod dctcp;
pub mod hpcc;
pub mod l2dct;
pub mod newreno;
pub mod pfabric;
pub mod swift;

/// Declares the controllers: for each, its name in scenarios, its variant in [`CcConfig`] and
/// [`AnyCc`], and its type (`, boxed` keeps a large controller off the sender's inline
/// state). Generates the config enum, its parser and queries, the list of names, and the
/// closed dispatch enum of the per-packet path: a new controller is its file (declared
/// above as a plain module, which `cargo fmt` sees) and one line in the list.
macro_rules! controllers {
    ($($(#[$attr:meta])* $name:literal => $variant:ident($kind:ty $(, $boxed:ident)?)),* $(,)?) => {

        /// Which controller a flow uses, with its settings (scenario key `transport.cc`).
        #[derive(Clone, Debug, Serialize, PartialEq)]
        #[serde(tag = "kind")]
        pub enum CcConfig {
            $($(#[$attr])* #[serde(rename = $name)] $variant(<$kind as Declared>::Config),)*
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
                match self { $($(#[$attr])* CcConfig::$variant(c) => <$kind as Declared>::validate(c),)* }
            }

            /// [`Declared::ACCURATE_ECN`] of the chosen controller.
            pub fn accurate_ecn(&self) -> bool {
                match self { $($(#[$attr])* CcConfig::$variant(_) => <$kind as Declared>::ACCURATE_ECN,)* }
            }

            /// [`Declared::SIZE_PRIORITY`] of the chosen controller.
            pub fn size_priority(&self) -> bool {
                match self { $($(#[$attr])* CcConfig::$variant(_) => <$kind as Declared>::SIZE_PRIORITY,)* }
            }

            /// [`Declared::RATE_SAMPLES`] of the chosen controller.
            pub fn uses_rate_samples(&self) -> bool {
                match self { $($(#[$attr])* CcConfig::$variant(_) => <$kind as Declared>::RATE_SAMPLES,)* }
            }

            /// [`Declared::ACK_SIGNALS`] of the chosen controller.
            pub fn ack_signals(&self) -> bool {
                match self { $($(#[$attr])* CcConfig::$variant(_) => <$kind as Declared>::ACK_SIGNALS,)* }
            }

            /// [`Declared::TELEMETRY`] of the chosen controller.
            pub fn telemetry(&self) -> bool {
                match self { $($(#[$attr])* CcConfig::$variant(_) => <$kind as Declared>::TELEMETRY,)* }
            }

            /// The chosen controller sets its own pacing rate: [`Declared::PACES`], or it
            /// derives one from rate samples ([`Declared::RATE_SAMPLES`]).
            pub fn paces(&self) -> bool {
                match self { $($(#[$attr])* CcConfig::$variant(_) => <$kind as Declared>::PACES || <$kind as Declared>::RATE_SAMPLES,)* }
            }

            /// The controller, with its initial window of `initial_window` segments of `mss`
            /// bytes.
            pub fn build(&self, mss: u64, initial_window: u64) -> Cc {
                let kind = match self { $($(#[$attr])* CcConfig::$variant(c) => AnyCc::$variant(controllers!(@held $($boxed)? <$kind as Declared>::new(c))),)* };
                Cc { st: CcState::new(mss, initial_window), kind }
            }
        }

        /// Closed set of controllers for static dispatch on the per-packet path.
        #[derive(Clone, Debug)]
        pub enum AnyCc {
            $($(#[$attr])* $variant(controllers!(@type $kind $(, $boxed)?)),)*
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
            fn on_ecn(&mut self, st: &mut CcState, flight: u64, now: Time) -> bool {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_ecn(st, flight, now),)* }
            }
            fn on_timeout(&mut self, st: &mut CcState, flight: u64, now: Time) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_timeout(st, flight, now),)* }
            }
            fn on_timeout_again(&mut self, st: &mut CcState) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_timeout_again(st),)* }
            }
            fn on_recovery_window(&mut self, st: &mut CcState, cwnd: u64) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_recovery_window(st, cwnd),)* }
            }
            fn on_probe_repaired(&mut self, st: &mut CcState, flight: u64, now: Time) -> bool {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_probe_repaired(st, flight, now),)* }
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
            fn pacing_rate(&self) -> Option<f64> {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.pacing_rate(),)* }
            }
            fn on_rate_sample(&mut self, st: &mut CcState, ack: &AckInfo) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_rate_sample(st, ack),)* }
            }
            fn on_path(&mut self, st: &mut CcState, path: &PathInfo) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_path(st, path),)* }
            }
            fn on_ack_signal(&mut self, st: &mut CcState, sig: &AckSignal) {
                match self { $($(#[$attr])* AnyCc::$variant(c) => c.on_ack_signal(st, sig),)* }
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
    "hpcc" => Hpcc(hpcc::Hpcc, boxed),
    "swift" => Swift(swift::Swift, boxed),
    #[cfg(test)]
    "toy" => Toy(crate::tests::toy_controller::Toy),
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
