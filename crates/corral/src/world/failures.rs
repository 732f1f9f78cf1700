//! Scheduled link changes (`[[events]]`): rates, and links that fail and come back (R2C2,
//! SIGCOMM 2015, section 3.2, "Failures"). A failed link loses what its two ports queue and
//! what is on its wire (packets arriving through a port that is down are lost), and packets
//! routed onto it are lost until the nodes find out. Discovery (`detect` after the change:
//! the topology discovery the routing protocols need anyway) builds the route table again
//! over the links that are up, forgets learned paths and broadcast trees, and tells the
//! scheme. A packet whose destination no longer has a route is lost where it stands.

use super::Simulation;
use crate::build::LinkChange;
use crate::ids::{PktId, PortId};
use crate::net::queue::Discipline;
use crate::net::PacketKind;
use crate::route::RouteTable;

impl Simulation {
    /// `[[events]]` change `index` (in time order) happens.
    pub(super) fn on_link_change(&mut self, index: u32) {
        match self.link_events[index as usize].1.clone() {
            LinkChange::Rate(ports) => {
                // A packet being serialized finishes at the old rate; the next at the new.
                for (port, rate) in ports {
                    self.net.ports[port.idx()].set_rate(rate);
                }
            }
            LinkChange::State { ports, down } => {
                self.links_failed |= down;
                for port in ports {
                    self.net.ports[port.idx()].down = down;
                    if down {
                        self.flush(port);
                    }
                }
            }
            LinkChange::Discover => {
                self.routes = RouteTable::build(&self.net, self.routes.has_path_counts());
                self.paths.clear();
                self.ctrl.topology_changed();
                self.call_scheme(|s, ctx| s.on_topology_change(ctx));
            }
        }
    }

    /// Loses every packet queued at `port`, whose link just failed; a host whose NIC it is
    /// lets its waiting flows try again (and lose their packets too, until they back off).
    fn flush(&mut self, port: PortId) {
        let now = self.events.now();
        while let Some((pkt, size)) = self.net.ports[port.idx()].queue.dequeue(now) {
            let node = self.net.ports[port.idx()].node;
            if let Some(Some(sb)) = self.shared_buffers.get_mut(node.idx()) {
                sb.update(size as u64, 0);
            }
            let p = self.arena.get(pkt);
            if p.kind == PacketKind::Control {
                self.net.ports[port.idx()].ctrl_queued -= 1;
            }
            let slot = p.in_slot;
            self.release(node, pkt);
            self.lose_on_down_link(port, pkt, slot);
        }
        if let Some(host) = self.net.host_index[self.net.ports[port.idx()].node.idx()] {
            self.on_nic_drain(host);
        }
    }

    /// `pkt` is lost at (or on the wire of) output port `out`, whose link is down.
    pub(super) fn lose_on_down_link(&mut self, out: PortId, pkt: PktId, in_slot: u16) {
        self.counts.lost_link_down += 1;
        self.discard(Some(out), pkt, in_slot);
    }

    /// No route leads from `node`, where `pkt` is, to its destination (links are down).
    pub(super) fn lose_without_route(
        &mut self,
        node: crate::ids::NodeId,
        pkt: PktId,
        in_slot: u16,
    ) {
        self.release(node, pkt);
        self.counts.lost_no_route += 1;
        self.discard(None, pkt, in_slot);
    }
}
