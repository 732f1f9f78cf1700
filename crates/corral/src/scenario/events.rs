//! `[[events]]`: scheduled changes of the network at a given time: a link's rate (HCC's
//! capacity steps: the core link at 10, then 50, then 5 Gbps), or a link failing and coming
//! back (`state = "down"` / `"up"`; R2C2 3.2's failures). `link = "node:port"` changes both
//! directions of the link through that port; `port = "node:port"` only that output (rates
//! only: a link fails as a whole).
//!
//! A rate change applies from the next packet on (one in transmission finishes at the old
//! rate); fluid mode changes the allocator's capacity and recomputes. A failed link loses
//! what it queues and carries; routing tables, broadcast trees and schemes learn of the
//! change `detect` later (the topology discovery of the routing protocol), and until then
//! packets routed onto the link are lost. Link failures run in packet mode.

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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// The link fails ("down") or comes back ("up").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<LinkState>,
    /// With `state`: how long until routing and schemes learn of it (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detect: Option<Time>,
}

/// A link's state after a `state` event.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LinkState {
    Up,
    Down,
}

impl LinkEvent {
    pub fn validate(&self, i: usize, duration: Time) -> Result<()> {
        let at = |k: &str| format!("events[{i}].{k}");
        ensure(self.at < duration, &at("at"), || {
            format!("must be before the end of the run ({duration})")
        })?;
        match (self.rate, self.state) {
            (Some(_), Some(_)) => {
                return Err(config_err(
                    at("state"),
                    "give either rate (a new link rate) or state (\"down\" or \"up\"), not both",
                ))
            }
            (None, None) => {
                return Err(config_err(
                    at("rate"),
                    "required key is missing: the new rate, or state = \"down\" or \"up\"",
                ))
            }
            (None, Some(_)) => ensure(self.link.is_some(), &at("link"), || {
                "state changes a whole link: give link = \"node:port\" (both directions), not port"
                    .into()
            })?,
            (Some(_), None) => ensure(self.detect.is_none(), &at("detect"), || {
                "only used with state (the delay until routing learns of a failure or recovery)"
                    .into()
            })?,
        }
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
