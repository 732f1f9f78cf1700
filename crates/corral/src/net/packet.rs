//! Packets and the arena that owns them. Events carry a [`PktId`]; no packet is heap
//! allocated on its own, and freed slots are reused. Source routes live beside the packets
//! (one 128-bit header field per slot, touched only by source-routed packets), and so do the
//! SACK options of ACKs (touched only in runs with SACK on) and the in-network telemetry
//! records of the packets of flows that collect them ([`super::telemetry`]).

use crate::ids::{FlowId, PktId};
use crate::units::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    Data,
    Ack,
    /// A scheme's control message (`crate::ctrl`): `flow` holds the message's slot.
    Control,
}

/// The per-hop routing rule a packet carries (one byte); `crate::route` interprets it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Leg {
    /// Destination bits (`route::static_bits`).
    #[default]
    Static,
    Ecmp,
    Spray,
    /// Uniform over minimal paths: each next hop weighted by the shortest paths behind it.
    Rps,
    /// The next hop in the lowest dimension (the first candidate when links have none).
    DestTag,
    /// Uniform per hop, from the equal-length routing's own streams.
    EqualRandom,
    /// The packet's flowcell rotates its flow over the equal-cost next hops (`route::flowcell`).
    Flowcell,
}

/// `Packet::agg` when no scheme stamped an aggregate.
pub const NO_AGG: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct Packet {
    /// Data and ACK: the packet's flow. Control: the message slot.
    pub flow: FlowId,
    pub kind: PacketKind,
    /// Data: sequence number of the first payload byte. Ack: cumulative ACK number.
    pub seq: u64,
    /// Payload bytes (0 for a pure ACK).
    pub payload: u32,
    /// Bytes on the wire, headers included.
    pub size: u32,
    /// Data and ACK: destination host index (routing key). Control: destination node.
    pub dst: u32,
    /// Intermediate host to head for first, or `route::CLIMB` / `route::NO_WAYPOINT`.
    pub waypoint: u32,
    /// Aggregate or tunnel id a scheme stamps on its flows' packets ([`NO_AGG`]: none).
    pub agg: u32,
    /// The per-hop routing rule.
    pub leg: Leg,
    /// Source-routed packets: the next hop's index in the route, and the route's length
    /// (`rlen == 0`: the switches choose every hop).
    pub ridx: u8,
    pub rlen: u8,
    /// The ECN bits ([`Ecn`]), one byte.
    pub ecn: Ecn,
    /// Priority class copied from the flow (0 = highest), read by priority queues.
    pub prio: u8,
    /// Input slot through which the packet entered the node now holding it (drop-run
    /// accounting when a queue later drops it to make room).
    pub in_slot: u16,
    /// Data: time sent (timestamp option). Ack: echo of the data segment's timestamp.
    pub ts: Time,
}

/// pFabric's packet priority (lower is more urgent): the flow's remaining bytes on a log
/// scale, four steps per doubling (19 % apart; a byte of priority keeps packets at 48
/// bytes), in 0..=127 for flows with a deadline and 128..=255 for the others, so deadline
/// flows go first ("DS before CS"). ACKs use 0.
pub fn pfabric_priority(remaining: u64, deadline: bool) -> u8 {
    let level = (4.0 * (remaining.max(1) as f64).log2()).ceil().min(127.0) as u8;
    if deadline {
        level
    } else {
        128 + level
    }
}

/// A packet's ECN bits: ECN-capable transport (ECT), Congestion Experienced (set by a
/// marking queue), ECN-Echo (on an ACK) and Congestion Window Reduced (on a data segment),
/// packed in one byte to keep packets at 48 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ecn(u8);

impl Ecn {
    const ECT: u8 = 1;
    const CE: u8 = 2;
    const ECE: u8 = 4;
    const CWR: u8 = 8;

    /// The bits of a new packet.
    pub fn new(ect: bool, ece: bool, cwr: bool) -> Ecn {
        Ecn(((ect as u8) * Self::ECT) | ((ece as u8) * Self::ECE) | ((cwr as u8) * Self::CWR))
    }

    #[inline]
    pub fn ect(self) -> bool {
        self.0 & Self::ECT != 0
    }

    #[inline]
    pub fn ce(self) -> bool {
        self.0 & Self::CE != 0
    }

    #[inline]
    pub fn ece(self) -> bool {
        self.0 & Self::ECE != 0
    }

    #[inline]
    pub fn cwr(self) -> bool {
        self.0 & Self::CWR != 0
    }

    #[inline]
    pub fn set_ce(&mut self, on: bool) {
        self.0 = if on { self.0 | Self::CE } else { self.0 & !Self::CE };
    }

    #[inline]
    pub fn set_ece(&mut self, on: bool) {
        self.0 = if on { self.0 | Self::ECE } else { self.0 & !Self::ECE };
    }

    #[inline]
    pub fn set_ect(&mut self, on: bool) {
        self.0 = if on { self.0 | Self::ECT } else { self.0 & !Self::ECT };
    }
}

/// SACK blocks an ACK carries at most: three fit in the 40 option bytes beside the
/// timestamp option (RFC 2018 section 3).
pub const SACK_BLOCKS: usize = 3;

/// The SACK option of an ACK: up to [`SACK_BLOCKS`] byte ranges `[start, end)` held above
/// the cumulative ACK, most recent first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    pub blocks: [(u64, u64); SACK_BLOCKS],
    pub len: u8,
}

impl SackBlocks {
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.blocks[..self.len as usize]
    }

    /// Bytes the option adds to the TCP header: kind and length (2) plus 8 per block,
    /// padded to 4 bytes (none without blocks).
    pub fn option_bytes(&self) -> u32 {
        if self.len == 0 {
            0
        } else {
            (2 + 8 * self.len as u32).next_multiple_of(4)
        }
    }
}

#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    /// Source route of each slot (meaningful while its packet has `rlen > 0`).
    routes: Vec<u128>,
    /// SACK option of each slot (meaningful while it holds an ACK of a run with SACK on).
    sacks: Vec<SackBlocks>,
    /// How long each slot's packet waited in its host's tunnel queue (meaningful while it
    /// holds a data packet that passed one: `world::tunnels`).
    held: Vec<Time>,
    /// In-network telemetry of each slot (meaningful while it holds a packet of a flow that
    /// collects it: [`super::telemetry`]).
    telemetry: Vec<super::telemetry::Telemetry>,
    free: Vec<u32>,
}

impl PacketArena {
    pub fn alloc(&mut self, p: Packet) -> PktId {
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = p;
            PktId(i)
        } else {
            self.slots.push(p);
            PktId(self.slots.len() as u32 - 1)
        }
    }

    pub fn free(&mut self, id: PktId) {
        self.free.push(id.0);
    }

    /// Packets allocated and not yet freed: the ones queued or on a wire.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Starts loading a packet an upcoming event will read ([`crate::sim::prefetch()`]).
    #[inline]
    pub fn prefetch(&self, id: PktId) {
        if let Some(p) = self.slots.get(id.idx()) {
            crate::sim::prefetch(p);
        }
    }

    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id.idx()]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id.idx()]
    }

    /// Writes a source route of `len` hops into the packet's header.
    pub fn set_route(&mut self, id: PktId, route: u128, len: u8) {
        if self.routes.len() <= id.idx() {
            self.routes.resize(self.slots.len().max(id.idx() + 1), 0);
        }
        self.routes[id.idx()] = route;
        let p = &mut self.slots[id.idx()];
        p.rlen = len;
        p.ridx = 0;
    }

    /// Writes an ACK's SACK option.
    pub fn set_sack(&mut self, id: PktId, sack: SackBlocks) {
        if self.sacks.len() <= id.idx() {
            self.sacks.resize(self.slots.len().max(id.idx() + 1), SackBlocks::default());
        }
        self.sacks[id.idx()] = sack;
    }

    /// The SACK option [`Self::set_sack`] wrote into the slot.
    pub fn sack(&self, id: PktId) -> SackBlocks {
        self.sacks[id.idx()]
    }

    /// Records how long the packet waited in its host's tunnel queue.
    pub fn set_held(&mut self, id: PktId, held: Time) {
        if self.held.len() <= id.idx() {
            self.held.resize(self.slots.len().max(id.idx() + 1), Time::ZERO);
        }
        self.held[id.idx()] = held;
    }

    /// The wait [`Self::set_held`] recorded for the slot's packet.
    pub fn held(&self, id: PktId) -> Time {
        self.held.get(id.idx()).copied().unwrap_or(Time::ZERO)
    }

    /// The slot's in-network telemetry records, to fill or read ([`super::telemetry`]).
    pub fn telemetry(&mut self, id: PktId) -> &mut super::telemetry::Telemetry {
        if self.telemetry.len() <= id.idx() {
            self.telemetry.resize(self.slots.len().max(id.idx() + 1), Default::default());
        }
        &mut self.telemetry[id.idx()]
    }

    /// The source route of a source-routed packet.
    #[inline]
    pub fn route(&self, id: PktId) -> u128 {
        self.routes[id.idx()]
    }
}
