//! Shared configuration helpers for every part of the scenario schema: typed tables with
//! key-path errors ([`typed`], [`by_kind`]), "did you mean" suggestions ([`suggest`]) and the
//! exact serialization of buffer sizes. Lower modules (net, route, transport, workload) use
//! these instead of reaching up into the scenario module.

pub mod input_file;
pub mod suggest;
mod typed;

pub use typed::{by_kind, nested, number, one_of, typed, unknown_key};

use crate::units::BufferSize;
use serde::{Deserialize, Serialize, Serializer};

/// The settings of a kind that has none (a controller, a queue discipline): any key given is
/// an error naming the valid ones (none).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NoSettings {}

/// Serializes a buffer limit as `"<n>B"` or `"<n>pkt"`, a form the parser reads back.
pub fn ser_buffer<S: Serializer>(b: &BufferSize, s: S) -> Result<S::Ok, S::Error> {
    match b {
        BufferSize::Bytes(n) => s.serialize_str(&format!("{n}B")),
        BufferSize::Packets(n) => s.serialize_str(&format!("{n}pkt")),
    }
}

/// [`ser_buffer`] for an optional limit.
pub fn ser_opt_buffer<S: Serializer>(b: &Option<BufferSize>, s: S) -> Result<S::Ok, S::Error> {
    match b {
        Some(b) => ser_buffer(b, s),
        None => s.serialize_none(),
    }
}
