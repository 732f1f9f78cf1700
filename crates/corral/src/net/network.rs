//! The assembled network: nodes with their ports, built from a [`Topology`] and the switch
//! and host queue settings. Port ids are global; each link contributes two ports.

use super::port::Port;
use super::queue::QueueDisc;
use super::topo::{NodeKind, Topology};
use crate::ids::{NodeId, PortId};

pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// Local port index -> global port.
    pub ports: Vec<PortId>,
    pub static_div: u32,
    /// Tier in the tree (host 0, ToR 1, ...), see [`super::topo::NodeSpec::level`].
    pub level: u8,
}

/// Where a packet that arrives through a port is, in 8 bytes: the few facts an arrival reads,
/// kept apart from the larger [`Port`] so the whole table stays in the nearest cache.
#[derive(Clone, Copy, Debug)]
pub struct PortEnd {
    pub node: NodeId,
    /// The port's index within its node (the packet's input slot there).
    pub local: u16,
    /// The node is a host.
    pub host: bool,
}

pub struct Network {
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    /// Per port, the facts an arriving packet reads ([`PortEnd`]).
    pub ends: Vec<PortEnd>,
    /// Host index -> node.
    pub hosts: Vec<NodeId>,
    /// Host index -> its NIC port (the first port of its node; hosts have one).
    nics: Vec<PortId>,
    /// Node -> host index, for hosts.
    pub host_index: Vec<Option<u32>>,
    /// Host index -> the switch its NIC connects to (its rack).
    pub attach: Vec<NodeId>,
}

impl Network {
    /// Builds ports for every link end. `queue_for(kind)` makes the discipline of an output
    /// port on a node of that kind.
    pub fn build(topo: &Topology, mut queue_for: impl FnMut(NodeKind) -> QueueDisc) -> Network {
        let mut degree = vec![0usize; topo.nodes.len()];
        for l in &topo.links {
            degree[l.a.idx()] += 1;
            degree[l.b.idx()] += 1;
        }
        let mut nodes: Vec<Node> = topo
            .nodes
            .iter()
            .map(|n| Node {
                name: n.name.clone(),
                kind: n.kind,
                ports: Vec::new(),
                static_div: n.static_div,
                level: n.level,
            })
            .collect();
        let mut ports = Vec::with_capacity(topo.links.len() * 2);
        for l in &topo.links {
            let pa = PortId(ports.len() as u32);
            let pb = PortId(pa.0 + 1);
            for (me, peer, peer_port) in [(l.a, l.b, pb), (l.b, l.a, pa)] {
                let local = nodes[me.idx()].ports.len() as u16;
                let q = queue_for(nodes[me.idx()].kind);
                let mut port =
                    Port::new(me, local, peer, peer_port, l.rate, l.delay, q, degree[me.idx()]);
                port.dim = l.dim;
                ports.push(port);
                nodes[me.idx()].ports.push(PortId(ports.len() as u32 - 1));
            }
        }
        let mut host_index = vec![None; nodes.len()];
        for (i, h) in topo.hosts.iter().enumerate() {
            host_index[h.idx()] = Some(i as u32);
        }
        let ends = ports
            .iter()
            .map(|p| PortEnd {
                node: p.node,
                local: p.local,
                host: nodes[p.node.idx()].kind == NodeKind::Host,
            })
            .collect();
        let attach = topo
            .hosts
            .iter()
            .map(|h| nodes[h.idx()].ports.first().map_or(*h, |p| ports[p.idx()].peer))
            .collect();
        let nics = topo
            .hosts
            .iter()
            .map(|h| nodes[h.idx()].ports.first().copied().unwrap_or(PortId(u32::MAX)))
            .collect();
        Network { nodes, ports, ends, hosts: topo.hosts.clone(), nics, host_index, attach }
    }

    pub fn port(&self, node: NodeId, local: usize) -> Option<PortId> {
        self.nodes.get(node.idx())?.ports.get(local).copied()
    }

    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.nodes.iter().position(|n| n.name == name).map(|i| NodeId(i as u32))
    }

    /// `"tor0:2"` -> global port id.
    pub fn port_by_name(&self, spec: &str) -> Option<PortId> {
        let (node, port) = spec.rsplit_once(':')?;
        self.port(self.node_by_name(node)?, port.parse().ok()?)
    }

    /// The ports of `node` whose link is up.
    pub fn live_ports(&self, node: NodeId) -> impl Iterator<Item = PortId> + '_ {
        self.nodes[node.idx()].ports.iter().copied().filter(|p| !self.ports[p.idx()].down)
    }

    /// Whether any link is down.
    pub fn any_down(&self) -> bool {
        self.ports.iter().any(|p| p.down)
    }

    /// Host `i`'s NIC port (hosts have a single port).
    pub fn host_port(&self, host: u32) -> PortId {
        let nic = self.nics[host as usize];
        assert!(nic.0 != u32::MAX, "host {host} has no link");
        nic
    }
}
