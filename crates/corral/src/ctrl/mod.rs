//! The control plane of cooperative schemes (docs/internals/architecture.md, "How a cooperative
//! scheme fits"):
//! control messages are real packets of a given size and priority class, routed hop by hop
//! along shortest paths to any node (switch or host), queued and dropped like data, or, for
//! ablations, delivered out of band after a fixed delay (`[control] mode`). Broadcasts
//! travel down per-source shortest-path spanning trees over the switches ([`tree`], R2C2
//! section 3.2). Every control byte is counted per link and per message type
//! (`control.parquet`), since control overhead is a result the papers report.
//!
//! The world owns a [`ControlPlane`]: it parks each message in a slot while its packets are
//! in flight, answers where a control packet goes next, and keeps the counts.

pub mod tree;

use crate::ids::{NodeId, PortId};
use crate::net::{Network, NodeKind};
pub use crate::scenario::control::{ControlConfig, ControlMode};
use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// A control message: its type (for the byte counts), its size on the wire, and the scheme's
/// own content, shared by the copies of a broadcast.
#[derive(Clone)]
pub struct Message {
    /// Message type, e.g. "flow_start"; counted separately in `control.parquet`.
    pub kind: &'static str,
    /// Bytes on the wire (the whole packet).
    pub bytes: u32,
    pub body: Arc<dyn Any + Send + Sync>,
}

impl Message {
    pub fn new<T: Any + Send + Sync>(kind: &'static str, bytes: u32, body: T) -> Message {
        Message { kind, bytes: bytes.max(1), body: Arc::new(body) }
    }

    /// The content, if it is a `T`.
    pub fn body<T: Any>(&self) -> Option<&T> {
        self.body.downcast_ref()
    }
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Message({}, {} B)", self.kind, self.bytes)
    }
}

/// Where a message goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dest {
    Node(NodeId),
    /// Every switch, down broadcast tree `tree` of the sender.
    Broadcast {
        tree: u32,
    },
}

/// A message in flight.
struct InFlight {
    msg: Message,
    src: NodeId,
    dest: Dest,
    /// Copies still in the network (a broadcast fans out).
    copies: u32,
    /// Index of `msg.kind` in the type list.
    kind: u16,
}

/// Counts of one message type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KindCounts {
    /// Messages sent (a broadcast counts once).
    pub sent: u64,
    /// Deliveries to a node (a broadcast delivers once per switch).
    pub delivered: u64,
    /// Control packets dropped by a queue.
    pub dropped: u64,
    /// Link crossings and their bytes (out of band: deliveries and their bytes).
    pub packets: u64,
    pub bytes: u64,
    /// Bytes the messages sent would put on the links of their whole paths or trees in band,
    /// lost copies included (out of band too: the same paths, though no link carries them):
    /// the control traffic the design generates, whatever queues then drop.
    pub offered: u64,
}

pub struct ControlPlane {
    pub cfg: ControlConfig,
    slots: Vec<Option<InFlight>>,
    free: Vec<u32>,
    /// Message types in order of first use.
    pub kinds: Vec<&'static str>,
    pub totals: Vec<KindCounts>,
    /// (port, kind) -> (packets, bytes) transmitted.
    pub per_link: HashMap<(u32, u16), (u64, u64)>,
    trees: tree::BroadcastTrees,
    /// Per destination node: each node's next port toward it (shortest path, no host transit).
    next_hop: HashMap<NodeId, Vec<Option<PortId>>>,
}

impl ControlPlane {
    pub fn new(cfg: ControlConfig) -> ControlPlane {
        ControlPlane {
            cfg,
            slots: Vec::new(),
            free: Vec::new(),
            kinds: Vec::new(),
            totals: Vec::new(),
            per_link: HashMap::new(),
            trees: Default::default(),
            next_hop: HashMap::new(),
        }
    }

    fn kind_index(&mut self, kind: &'static str) -> u16 {
        match self.kinds.iter().position(|&k| k == kind) {
            Some(i) => i as u16,
            None => {
                self.kinds.push(kind);
                self.totals.push(KindCounts::default());
                self.kinds.len() as u16 - 1
            }
        }
    }

    /// Parks a message sent by `src` toward `dest` with `copies` packets about to leave;
    /// returns its slot.
    pub fn open(&mut self, msg: Message, src: NodeId, dest: Dest, copies: u32) -> u32 {
        let kind = self.kind_index(msg.kind);
        self.totals[kind as usize].sent += 1;
        let m = InFlight { msg, src, dest, copies, kind };
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(m);
                i
            }
            None => {
                self.slots.push(Some(m));
                self.slots.len() as u32 - 1
            }
        }
    }

    fn slot(&self, slot: u32) -> &InFlight {
        self.slots[slot as usize].as_ref().expect("live control message")
    }

    pub fn message(&self, slot: u32) -> &Message {
        &self.slot(slot).msg
    }

    pub fn source(&self, slot: u32) -> NodeId {
        self.slot(slot).src
    }

    pub fn dest(&self, slot: u32) -> Dest {
        self.slot(slot).dest
    }

    /// `n` more copies of the message are in flight (a broadcast forwarded to children).
    pub fn add_copies(&mut self, slot: u32, n: u32) {
        self.slots[slot as usize].as_mut().expect("live control message").copies += n;
    }

    /// One copy of the message ended (delivered at its last node, or dropped); frees the slot
    /// with the last copy.
    pub fn close_copy(&mut self, slot: u32) {
        let m = self.slots[slot as usize].as_mut().expect("live control message");
        m.copies -= 1;
        if m.copies == 0 {
            self.slots[slot as usize] = None;
            self.free.push(slot);
        }
    }

    /// Message `slot` was sent to cross `links` links (its path, or its tree's edges).
    pub fn note_offered(&mut self, slot: u32, links: u32) {
        let m = self.slot(slot);
        let (k, bytes) = (m.kind as usize, m.msg.bytes as u64);
        self.totals[k].offered += bytes * links as u64;
    }

    /// Links of tree `t` of `src` (one per switch it reaches).
    pub fn tree_edges(&mut self, net: &Network, src: NodeId, t: u32) -> u32 {
        self.trees.tree(net, src, t).edges() as u32
    }

    pub fn note_delivered(&mut self, slot: u32) {
        let k = self.slot(slot).kind as usize;
        self.totals[k].delivered += 1;
    }

    pub fn note_dropped(&mut self, slot: u32) {
        let k = self.slot(slot).kind as usize;
        self.totals[k].dropped += 1;
    }

    /// A control packet of message `slot` left on `port` (in band), or was delivered out of
    /// band (`port` None).
    pub fn note_sent(&mut self, slot: u32, port: Option<PortId>, bytes: u32) {
        let k = self.slot(slot).kind;
        let t = &mut self.totals[k as usize];
        t.packets += 1;
        t.bytes += bytes as u64;
        if let Some(p) = port {
            let e = self.per_link.entry((p.0, k)).or_insert((0, 0));
            e.0 += 1;
            e.1 += bytes as u64;
        }
    }

    /// A link went down or came back: trees and next hops are found again on first use.
    pub fn topology_changed(&mut self) {
        self.trees = Default::default();
        self.next_hop.clear();
    }

    /// The children ports of `node` in tree `t` of `src`.
    pub fn tree_children(&mut self, net: &Network, src: NodeId, t: u32, node: NodeId) -> &[PortId] {
        self.trees.tree(net, src, t).children(node)
    }

    /// The switches a broadcast from `src` reaches, besides `src` itself.
    pub fn tree_nodes(&mut self, net: &Network, src: NodeId, t: u32) -> Vec<NodeId> {
        let tree = self.trees.tree(net, src, t);
        (0..net.nodes.len())
            .filter(|&i| tree.depth[i] != u32::MAX && tree.depth[i] > 0)
            .map(|i| NodeId(i as u32))
            .collect()
    }

    /// The next port from `node` toward node `dst` along a shortest path that transits no
    /// host (`None` at `dst` or if unreachable).
    pub fn next_port(&mut self, net: &Network, node: NodeId, dst: NodeId) -> Option<PortId> {
        self.next_hop.entry(dst).or_insert_with(|| toward(net, dst))[node.idx()]
    }

    /// The shortest-path hop count from `src` to `dst`, if reachable.
    pub fn hops(&mut self, net: &Network, mut src: NodeId, dst: NodeId) -> Option<u32> {
        let mut hops = 0;
        while src != dst {
            src = net.ports[self.next_port(net, src, dst)?.idx()].peer;
            hops += 1;
        }
        Some(hops)
    }
}

/// Every node's next port toward `dst` (breadth-first search from `dst` over reversed links;
/// only `dst` itself may be a host on the way). Ties go to the node's lowest port.
fn toward(net: &Network, dst: NodeId) -> Vec<Option<PortId>> {
    let n = net.nodes.len();
    let mut next = vec![None; n];
    let mut seen = vec![false; n];
    seen[dst.idx()] = true;
    let mut q = VecDeque::from([dst]);
    while let Some(v) = q.pop_front() {
        if v != dst && net.nodes[v.idx()].kind == NodeKind::Host {
            continue;
        }
        // Every u with a port to v is one hop farther; links are symmetric, so v's ports
        // name its neighbours and their peer ports lead back to v.
        for p in net.live_ports(v) {
            let u = net.ports[p.idx()].peer;
            if !seen[u.idx()] {
                seen[u.idx()] = true;
                next[u.idx()] = Some(net.ports[p.idx()].peer_port);
                q.push_back(u);
            }
        }
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::QueueDisc;
    use crate::net::topo::fat_tree::FatTreeConfig;
    use crate::net::topo::TopologyKind as _;
    use crate::units::{BufferSize, Rate, Time};

    #[test]
    fn unicast_paths_reach_switches_and_hosts_without_transiting_hosts() {
        let net = Network::build(
            &FatTreeConfig { k: 4, link_rate: Rate(1), link_delay: Time::ZERO }.build(),
            |_| QueueDisc::taildrop(BufferSize::Packets(1)),
        );
        let mut cp = ControlPlane::new(ControlConfig::default());
        let node = |s: &str| net.node_by_name(s).unwrap();
        assert_eq!(cp.hops(&net, net.hosts[0], node("agg0")), Some(2));
        assert_eq!(cp.hops(&net, node("agg0"), node("tor1")), Some(1));
        assert_eq!(cp.hops(&net, net.hosts[0], net.hosts[15]), Some(6));
        assert_eq!(cp.hops(&net, node("core0"), node("core3")), Some(4));
        assert_eq!(cp.next_port(&net, node("tor0"), node("tor0")), None);
    }

    #[test]
    fn slots_free_with_their_last_copy_and_kinds_count_separately() {
        let mut cp = ControlPlane::new(ControlConfig::default());
        let a = cp.open(Message::new("start", 16, 7u32), NodeId(0), Dest::Broadcast { tree: 0 }, 1);
        cp.add_copies(a, 2);
        assert_eq!(cp.message(a).body::<u32>(), Some(&7));
        let b = cp.open(Message::new("rate", 64, ()), NodeId(1), Dest::Node(NodeId(2)), 1);
        cp.note_sent(a, Some(PortId(3)), 16);
        cp.note_sent(a, Some(PortId(3)), 16);
        cp.note_sent(b, None, 64);
        for _ in 0..3 {
            cp.close_copy(a);
        }
        let c = cp.open(Message::new("start", 16, ()), NodeId(0), Dest::Node(NodeId(1)), 1);
        assert_eq!(c, a, "slot reused");
        assert_eq!(cp.kinds, vec!["start", "rate"]);
        assert_eq!((cp.totals[0].sent, cp.totals[0].bytes, cp.totals[1].bytes), (2, 32, 64));
        assert_eq!(cp.per_link.get(&(3, 0)), Some(&(2, 32)));
    }
}
