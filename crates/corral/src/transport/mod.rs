//! Reliable transport: TCP with byte sequence numbers, cumulative ACKs, SACK-less NewReno
//! recovery (RFC 6582), RFC 6298 retransmission timers, delayed ACKs and ECN (RFC 3168),
//! with pluggable congestion controllers in [`cc`], and explicit-rate sending for schemes
//! ([`rate`]). Sender and receiver are pure state machines: they return segments and ACKs
//! to send, and the simulation moves them.

pub mod cc;
pub mod config;
pub mod rate;
pub mod receiver;
pub mod rtt;
pub mod sender;

pub use config::TcpConfig;
pub use receiver::{AckOut, TcpReceiver};
pub use sender::{Segment, TcpSender};
