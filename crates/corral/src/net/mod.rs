//! The network model: topologies (as data and their builders, `topo/`), packets, output ports with their
//! queue disciplines, in-network telemetry ([`telemetry`]), and the assembled [`Network`] the simulation forwards packets through.

pub mod network;
pub mod packet;
pub mod port;
pub mod queue;
pub mod shared_buffer;
pub mod telemetry;
pub mod topo;

pub use network::Network;
pub use packet::{Ecn, Leg, Packet, PacketArena, PacketKind, NO_AGG};
pub use port::Port;
pub use topo::{NodeKind, Topology};
