//! A concrete flow to simulate ([`FlowDef`]), whichever entry produced it (`[[flows]]`
//! entries, `[[traffic]]` blocks), and the name lookups both use: host lists
//! ([`Hosts`]) and host names ([`resolve_host`]).

use crate::error::{config_err, Result};
use crate::net::{Network, NodeKind};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// One or several host names.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Hosts {
    One(String),
    Many(Vec<String>),
}

impl Hosts {
    pub fn names(&self) -> Vec<&str> {
        match self {
            Hosts::One(s) => vec![s.as_str()],
            Hosts::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

/// A flow to simulate.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowDef {
    pub src: u32,
    pub dst: u32,
    /// `None` = unbounded.
    pub size: Option<u64>,
    pub start: Time,
    pub tag: String,
    /// Priority class of the flow's packets (0 = highest).
    pub priority: u8,
    /// Weight for weighted fair queueing and rate allocation.
    pub weight: f64,
    pub tenant: String,
    /// Objective class.
    pub class: String,
    /// Absolute deadline.
    pub deadline: Option<Time>,
    /// The `[[traffic]]` block that generated the flow; `None` for `[[flows]]` entries.
    pub block: Option<u32>,
    /// The entry's routing, `None` for the run's `[routing]`.
    pub routing: Option<crate::route::Routing>,
    /// Who controls the flow's sending.
    pub transport: crate::transport::config::FlowTransport,
}

/// The host index of host `name`; errors at `path` name the nearest host or say it is a switch.
pub fn resolve_host(net: &Network, name: &str, path: &str) -> Result<u32> {
    let node = net.node_by_name(name).ok_or_else(|| {
        let hint = crate::config::suggest::nearest(
            name,
            net.nodes.iter().filter(|n| n.kind == NodeKind::Host).map(|n| n.name.as_str()),
        )
        .map(|s| format!("did you mean \"{s}\"? "))
        .unwrap_or_default();
        config_err(
            path,
            format!(
                "unknown host \"{name}\"; {hint}this topology has hosts h0..h{}",
                net.hosts.len().saturating_sub(1)
            ),
        )
    })?;
    net.host_index[node.idx()]
        .ok_or_else(|| config_err(path, format!("\"{name}\" is a switch; flows run between hosts")))
}
