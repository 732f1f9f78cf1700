//! Destination-tag (dimension-order) routing (Dally and Towles, "Principles and Practices of
//! Interconnection Networks", section 14.2; R2C2, SIGCOMM 2015, section 2.2.1): a packet
//! corrects its lowest differing dimension first, so every pair has one fixed minimal path.
//! Links carry the dimension they move along (set by the torus builder; 0 elsewhere), so on
//! other topologies the rule takes the first equal-cost candidate.

use crate::ids::PortId;
use crate::net::Network;

/// The candidate moving along the lowest dimension (the first on ties).
#[inline]
pub fn pick(net: &Network, cands: &[PortId]) -> usize {
    (0..cands.len()).min_by_key(|&i| net.ports[cands[i].idx()].dim).unwrap_or(0)
}
