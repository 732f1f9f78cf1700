//! `[transport]` settings of a scenario, with the defaults used when a key is absent.

use super::cc::CcConfig;
use crate::error::{ensure, Result};
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Congestion controller: `"newreno"`, `"cubic"`, `"dctcp"`, `"d2tcp"`, `"l2dct"`, or a table with `kind` and
    /// the controller's settings (default newreno).
    pub cc: CcConfig,
    /// Maximum segment size, payload bytes (default 1460).
    pub mss: u32,
    /// IP + TCP header bytes added to every segment and ACK (default 40).
    pub header: u32,
    /// Initial congestion window in segments (default 10, RFC 6928).
    pub initial_window: u32,
    /// Minimum retransmission timeout (default 200ms; RFC 6298 says 1s, Linux uses 200ms).
    pub min_rto: Time,
    /// Maximum retransmission timeout (default 60s, RFC 6298 2.5).
    pub max_rto: Time,
    /// RTO before the first RTT sample (default 1s, RFC 6298 2.1).
    pub initial_rto: Time,
    /// Send an ACK every this many full segments (default 1: ACK every segment; 2 is RFC
    /// 5681's delayed ACK).
    pub delayed_ack: u32,
    /// Longest an ACK is held back (default 40us; applies only when delayed_ack > 1).
    pub delayed_ack_timeout: Time,
    /// Negotiate ECN: data is sent ECN-capable and the receiver echoes CE (default false;
    /// DCTCP needs it).
    pub ecn: bool,
    /// How the window comes down on ECN-Echo (default `instant`, RFC 3168's and RFC 8257's
    /// text; `cwr` is Linux's and ns-3's CWR state): see [`EcnResponse`].
    pub ecn_response: EcnResponse,
    /// Receiver window limit in bytes (default: unlimited). Note that a long SACK-less NewReno
    /// recovery inflates cwnd by one MSS per duplicate ACK, so with no limit a flow can send
    /// far beyond the pipe while one hole per RTT is repaired.
    pub receive_window: Option<u64>,
    /// Flows start as established connections whose RTT estimator already holds the sample
    /// their handshake would give (default `loaded`): see [`HandshakeRtt`].
    pub handshake_rtt: HandshakeRtt,
    /// Pace data segments at `pacing_gain * cwnd / srtt` (default false), see
    /// [`super::sender`].
    pub pacing: bool,
    /// Multiplier of the pacing rate (default 1.0; Linux uses 2 in slow start, 1.2 after).
    pub pacing_gain: f64,
    /// Duplicate ACKs that trigger fast retransmit (default 3, RFC 5681; Linux's
    /// net.ipv4.tcp_reordering). Raise it where packets are sprayed and reordered.
    pub dupthresh: u32,
    /// SACK (RFC 2018) with SACK-based loss recovery (RFC 6675) instead of NewReno's (default
    /// true, as Linux and ns-3 3.44 run TCP).
    pub sack: bool,
    /// Limited transmit (RFC 3042): the first `dupthresh - 1` duplicate ACKs each release one
    /// new segment (default true, as Linux and ns-3).
    pub limited_transmit: bool,
    /// How much a SACK recovery sends per ACK (default `prr`, as Linux and ns-3 3.44): see
    /// [`Recovery`]. Without SACK the sender runs NewReno's recovery (RFC 6582) either way.
    pub recovery: Recovery,
    /// RACK-TLP loss detection (RFC 8985; default true, as Linux's `net.ipv4.tcp_recovery`):
    /// with SACK, a segment is lost once one sent a reordering window after it is delivered,
    /// and a tail loss probe repairs most tail losses before the RTO. Without SACK it is off.
    /// See [`super::rack`].
    pub rack: bool,
    /// Added to 2 SRTT in the tail loss probe's timeout (default 2ms, Linux's
    /// `TCP_TIMEOUT_MIN`; RFC 8985 adds nothing). See [`super::rack`].
    pub tlp_slack: Time,
    /// What a controller halves when a loss recovery starts (default `flight`, the RFCs'):
    /// see [`SsthreshRule`].
    pub ssthresh: SsthreshRule,
}

/// `transport.ssthresh`: the bytes in flight a loss-based controller (NewReno, DCTCP on
/// loss) halves into ssthresh when fast recovery starts. CUBIC multiplies cwnd and BBR keeps
/// its window, whatever this says.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshRule {
    /// The FlightSize, `snd_nxt - snd_una` less what limited transmit sent (RFC 5681
    /// section 3.2 equation (4) and step 2; RFC 6675 section 5 step (4.2) says the same with
    /// SACK). Linux's Reno halves cwnd, which a window-limited flow fills to the FlightSize.
    #[default]
    Flight,
    /// The pipe (RFC 6675 section 2 `SetPipe`; RACK's with `transport.rack`): the FlightSize
    /// less what the receiver has SACKed and what is marked lost, the first unacknowledged
    /// segment counted lost; PRR's RecoverFS is this pipe too. This is ns-3's rule:
    /// `TcpSocketBase::EnterRecovery` marks the head lost and calls
    /// `TcpNewReno::GetSsThresh(BytesInFlight())`, and `TcpPrrRecovery` takes the same
    /// `BytesInFlight` as RecoverFS. Without SACK there is no pipe and the FlightSize is used.
    Pipe,
}

/// `transport.ecn_response`: how the window comes down to the ssthresh the controller sets
/// on ECN-Echo (at most once per window of data, RFC 3168 section 6.1.2).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EcnResponse {
    /// Over the next round trip, as Linux's CWR state (`tcp_enter_cwr`,
    /// `tcp_cwnd_reduction`) and ns-3's (`TcpSocketBase::EnterCwr` with `TcpPrrRecovery`):
    /// Proportional Rate Reduction with the window before the echo as RecoverFS, no growth
    /// until the ACK that passes the data sent before it, then cwnd = ssthresh. An echo in
    /// that ACK starts the next reduction.
    Cwr,
    /// At once, cwnd = ssthresh, growth going on from the next ACK (RFC 3168 section 6.1.2's
    /// and RFC 8257 section 3.3's text). The default: under `cwr` the DCTCP flows of the
    /// RackCC coexistence study (issue 46) give RackCC 58 % of the link where the study
    /// measures 37 %, which is left for the study to re-examine.
    #[default]
    Instant,
}

/// `transport.handshake_rtt`: the RTT sample a flow's connection handshake gives its sender
/// before the first segment (the RTO's first estimate; BBR's first RTprop, as Linux's
/// `bbr_init` takes `tcp_min_rtt` and ns-3's `TcpBbr` the SRTT when the connection opens).
/// `true` means `loaded`, `false` `off`.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HandshakeRtt {
    /// What a SYN / SYN-ACK exchange at the flow's start measures: the unloaded round trip
    /// of the path for header-only packets plus, at every port of the path both ways, the
    /// wait behind the packets queued there (and the one on the wire) at that moment. A flow
    /// that starts while others keep a queue sees it, as a real handshake does.
    #[default]
    Loaded,
    /// The unloaded round trip of the path for header-only packets, whatever is queued
    /// (corral's rule before `loaded`).
    Unloaded,
    /// No sample: the first RTO is `initial_rto` until the first ACK arrives.
    Off,
}

impl<'de> Deserialize<'de> for HandshakeRtt {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error;
        match toml::Value::deserialize(d)? {
            toml::Value::Boolean(true) => Ok(HandshakeRtt::Loaded),
            toml::Value::Boolean(false) => Ok(HandshakeRtt::Off),
            toml::Value::String(s) if s == "loaded" => Ok(HandshakeRtt::Loaded),
            toml::Value::String(s) if s == "unloaded" => Ok(HandshakeRtt::Unloaded),
            toml::Value::String(s) if s == "off" => Ok(HandshakeRtt::Off),
            toml::Value::String(s) => Err(D::Error::custom(format!(
                "unknown value \"{s}\"; expected one of \"loaded\", \"unloaded\", \"off\" or a boolean"
            ))),
            other => Err(D::Error::custom(format!(
                "expected one of \"loaded\", \"unloaded\", \"off\" or a boolean, got {other}"
            ))),
        }
    }
}

/// `transport.recovery`: the sending rule of SACK loss recovery.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// Proportional Rate Reduction (RFC 6937, the slow-start reduction bound as in Linux and
    /// ns-3): the sender sends in proportion to what is delivered until the pipe falls to
    /// ssthresh, then catches up by at most one segment more than delivered; cwnd ends at
    /// ssthresh. See [`super::prr`].
    #[default]
    Prr,
    /// RFC 6675's conservative recovery: cwnd drops to ssthresh at once and the sender sends
    /// while `cwnd - pipe >= MSS` (the recovery of corral's earlier releases).
    Classic,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            cc: CcConfig::Newreno(Default::default()),
            mss: 1460,
            header: 40,
            initial_window: 10,
            min_rto: Time::from_ms(200),
            max_rto: Time::from_ms(60_000),
            initial_rto: Time::from_ms(1000),
            delayed_ack: 1,
            delayed_ack_timeout: Time::from_us(40),
            ecn: false,
            ecn_response: EcnResponse::Instant,
            receive_window: None,
            handshake_rtt: HandshakeRtt::Loaded,
            pacing: false,
            pacing_gain: 1.0,
            dupthresh: 3,
            sack: true,
            limited_transmit: true,
            recovery: Recovery::Prr,
            rack: true,
            tlp_slack: Time::from_ms(2),
            ssthresh: SsthreshRule::Flight,
        }
    }
}

impl TcpConfig {
    /// The TCP of corral's releases before PRR and RACK-TLP (these defaults otherwise): no
    /// SACK, no limited transmit, NewReno recovery, no RACK-TLP (`transport.sack = false`,
    /// `limited_transmit = false`, `recovery = "classic"`, `rack = false`).
    pub fn classic() -> TcpConfig {
        TcpConfig {
            sack: false,
            limited_transmit: false,
            recovery: Recovery::Classic,
            rack: false,
            ..TcpConfig::default()
        }
    }

    pub fn validate(&self) -> Result<()> {
        ensure(self.mss >= 64 && self.mss <= 65_000, "transport.mss", || {
            format!("must be between 64 and 65000 bytes, got {}", self.mss)
        })?;
        ensure(self.header <= 1024, "transport.header", || {
            format!("must be at most 1024 bytes, got {}", self.header)
        })?;
        if let Some(w) = self.receive_window {
            // A window below one segment lets nothing through: the sender would stall.
            ensure(w >= self.mss as u64, "transport.receive_window", || {
                format!(
                    "must be at least one segment (transport.mss = {} bytes), got {w}; leave it out for no limit",
                    self.mss
                )
            })?;
        }
        ensure(self.initial_window >= 1, "transport.initial_window", || {
            format!("must be at least 1 segment, got {}", self.initial_window)
        })?;
        ensure(self.delayed_ack >= 1, "transport.delayed_ack", || {
            format!("must be at least 1 (1 = ACK every segment), got {}", self.delayed_ack)
        })?;
        ensure(self.min_rto > Time::ZERO, "transport.min_rto", || "must be positive".into())?;
        ensure(self.max_rto >= self.min_rto, "transport.max_rto", || {
            "must be at least transport.min_rto".into()
        })?;
        ensure(self.initial_rto > Time::ZERO, "transport.initial_rto", || {
            "must be positive".into()
        })?;
        ensure(self.dupthresh >= 1, "transport.dupthresh", || "must be at least 1".into())?;
        ensure(
            self.pacing_gain.is_finite() && self.pacing_gain > 0.0 && self.pacing_gain <= 100.0,
            "transport.pacing_gain",
            || format!("must be a number above 0 and at most 100, got {}", self.pacing_gain),
        )?;
        if self.cc.needs_ecn() {
            ensure(self.ecn, "transport.ecn", || {
                format!(
                    "must be true when transport.cc is {} ({} needs ECN)",
                    self.cc.name(),
                    self.cc.name()
                )
            })?;
        }
        self.cc.validate().map_err(|m| cc_error("transport.cc", &m))
    }

    /// Whether a TCP flow with controller `cc` sends ECN-capable packets: its controller
    /// needs ECN, or the run's `transport.ecn` is on.
    pub fn ecn_for(&self, cc: &CcConfig) -> bool {
        self.ecn || cc.needs_ecn()
    }
}

/// The `transport` of a `[[flows]]` entry or `[[traffic]]` block: who controls the flows'
/// sending. Strings: `"scheme"`, `"tcp"` or a controller name; a table: a controller with its
/// settings (`{ kind = "dctcp", g = 0.0625 }`).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum FlowTransport {
    /// The scenario's scheme when it has a `[scheme]`, else TCP with `transport.cc` (default).
    #[default]
    Default,
    /// Managed by the scenario's `[scheme]`, which chooses how the flows send.
    Scheme,
    /// TCP with this controller (`None`: `transport.cc`), outside any scheme.
    Tcp(Option<CcConfig>),
}

impl<'de> Deserialize<'de> for FlowTransport {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error;
        let v = toml::Value::deserialize(d)?;
        match &v {
            toml::Value::String(s) if s == "scheme" => Ok(FlowTransport::Scheme),
            toml::Value::String(s) if s == "tcp" => Ok(FlowTransport::Tcp(None)),
            toml::Value::String(_) | toml::Value::Table(_) => CcConfig::deserialize(v).map(|c| FlowTransport::Tcp(Some(c))).map_err(|e| {
                let msg = e.message().to_string();
                D::Error::custom(if msg.contains("unknown kind") { msg.replace("expected one of ", "expected \"scheme\", \"tcp\" or one of ") } else { msg })
            }),
            other => Err(D::Error::custom(format!("expected \"scheme\", \"tcp\", a controller name or a controller table, got {other}"))),
        }
    }
}

impl Serialize for FlowTransport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            FlowTransport::Default => s.serialize_str("default"),
            FlowTransport::Scheme => s.serialize_str("scheme"),
            FlowTransport::Tcp(None) => s.serialize_str("tcp"),
            FlowTransport::Tcp(Some(cc)) => cc.serialize(s),
        }
    }
}

impl FlowTransport {
    pub fn is_default(&self) -> bool {
        *self == FlowTransport::Default
    }

    /// Checks a controller given here (DCTCP's settings); `path` names the key.
    pub fn validate(&self, path: &str) -> Result<()> {
        if let FlowTransport::Tcp(Some(cc)) = self {
            cc.validate().map_err(|m| cc_error(path, &m))?;
        }
        Ok(())
    }
}

/// A controller's settings error (`"cubic: beta must be in (0, 1), got 1.5"`, `"bw_rounds:
/// must be at least 1"`) at the key it names under `path` (`transport.cc.beta`).
pub fn cc_error(path: &str, msg: &str) -> crate::error::Error {
    let word = |s: &str| {
        !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    let rest = match msg.split_once(": ") {
        Some((kind, rest)) if super::cc::KINDS.contains(&kind) => rest,
        _ => msg,
    };
    if let Some((key, m)) = rest.split_once(": ") {
        if word(key) {
            return crate::error::config_err(format!("{path}.{key}"), m);
        }
    }
    if let Some((key, m)) = rest.split_once(" must ") {
        if word(key) {
            return crate::error::config_err(format!("{path}.{key}"), format!("must {m}"));
        }
    }
    crate::error::config_err(path, rest)
}
