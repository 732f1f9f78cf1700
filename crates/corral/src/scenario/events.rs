//! `[[events]]`: scheduled changes of the network, here a link's rate at a given time (HCC's
//! capacity steps: the core link at 10, then 50, then 5 Gbps). `link = "node:port"` changes
//! both directions of the link through that port; `port = "node:port"` only that output.
//! Packet mode changes the serialization rate from the next packet on (one in transmission
//! finishes at the old rate); fluid mode changes the allocator's capacity and recomputes.

use crate::error::{config_err, ensure, Result};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

/// One `[[events]]` entry.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkEvent {
    /// When the change happens.
    pub at: Time,
    /// Both directions of the link through this port ("node:port").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// Only this output port ("node:port").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// The new rate.
    pub rate: Rate,
}

impl LinkEvent {
    pub fn validate(&self, i: usize, duration: Time) -> Result<()> {
        let at = |k: &str| format!("events[{i}].{k}");
        ensure(self.at < duration, &at("at"), || format!("must be before the end of the run ({duration})"))?;
        match (&self.link, &self.port) {
            (Some(_), None) | (None, Some(_)) => Ok(()),
            (Some(_), Some(_)) => Err(config_err(at("port"), "give either link (both directions) or port (one), not both")),
            (None, None) => Err(config_err(at("link"), "required key is missing: the link (\"node:port\", both directions) or port (one direction) to change")),
        }
    }

    /// The "node:port" the entry names, and whether both directions change.
    pub fn target(&self) -> (&str, bool) {
        match (&self.link, &self.port) {
            (Some(l), _) => (l, true),
            (None, Some(p)) => (p, false),
            (None, None) => ("", false),
        }
    }
}
