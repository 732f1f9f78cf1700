//! A topology as data: named nodes and full-duplex links. The builders beside this file
//! ([`super`]) turn a few parameters into one; [`crate::net::Network`] turns it into ports
//! and queues.
//!
//! Port numbering is the order in which a node's links were added, which each builder
//! documents (for example a fat-tree ToR numbers its host ports first, then its uplinks).

use crate::ids::NodeId;
use crate::units::{Rate, Time};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

#[derive(Clone, Debug)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
    /// Divisor for static (destination-bits) routing at this switch: the uplink chosen is
    /// `(destination host index / static_div) mod (number of candidates)`. A fat-tree ToR uses
    /// 1 (the last bit for k = 4), an aggregation switch k/2 (the second-last bit).
    pub static_div: u32,
    /// Tier in the tree, counted up from the hosts: host 0, ToR / leaf / edge 1, aggregation /
    /// spine 2, core 3. A link to a node of a higher level is an uplink (equal-length routing).
    pub level: u8,
}

#[derive(Clone, Debug)]
pub struct LinkSpec {
    pub a: NodeId,
    pub b: NodeId,
    pub rate: Rate,
    pub delay: Time,
    /// The dimension the link moves along (torus; 0 elsewhere).
    pub dim: u8,
}

#[derive(Clone, Debug, Default)]
pub struct Topology {
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    /// Host index -> node. Host `hN` has index N.
    pub hosts: Vec<NodeId>,
}

impl Topology {
    pub fn add_host(&mut self) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(NodeSpec {
            name: format!("h{}", self.hosts.len()),
            kind: NodeKind::Host,
            static_div: 1,
            level: 0,
        });
        self.hosts.push(id);
        id
    }

    /// Adds a switch at tier `level` (1 = ToR; see [`NodeSpec::level`]).
    pub fn add_switch(&mut self, name: String, static_div: u32, level: u8) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(NodeSpec { name, kind: NodeKind::Switch, static_div, level });
        id
    }

    pub fn link(&mut self, a: NodeId, b: NodeId, rate: Rate, delay: Time) {
        self.link_along(a, b, rate, delay, 0);
    }

    /// A link that moves along dimension `dim` of a grid.
    pub fn link_along(&mut self, a: NodeId, b: NodeId, rate: Rate, delay: Time, dim: u8) {
        self.links.push(LinkSpec { a, b, rate, delay, dim });
    }
}
