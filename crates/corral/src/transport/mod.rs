//! Reliable transport: TCP with byte sequence numbers, cumulative ACKs, NewReno recovery
//! (RFC 6582) or SACK-based recovery (RFC 2018, RFC 6675, [`sack`]), limited transmit
//! (RFC 3042), RFC 6298 retransmission timers, delayed ACKs and ECN (RFC 3168),
//! with pluggable congestion controllers in [`cc`], and explicit-rate sending for schemes
//! ([`rate`]). Sender and receiver are pure state machines: they return segments and ACKs
//! to send, and the simulation moves them.

pub mod cc;
pub mod config;
pub mod delivery_rate;
pub mod prr;
pub mod rack;
pub mod rate;
pub mod receiver;
pub mod rtt;
pub mod sack;
pub mod sender;

pub use config::{EcnResponse, HandshakeRtt, Recovery, SsthreshRule, TcpConfig};
pub use receiver::{AckOut, TcpReceiver};
pub use sender::{Segment, TcpSender};
