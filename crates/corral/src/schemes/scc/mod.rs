//! SCC (stacked congestion control, `../shared/seeds/003`): the building blocks of its
//! tenant-objective tunnels. Not a registered scheme yet: tunnels, the tracker's messages and
//! the shim's ECN handling come with the rest of its issue.
//!
//! - [`underlay`]: a tunnel's rate from ECN feedback (the paper's law and weighted DCTCP) and
//!   the tracker's weight scaling.
//! - [`private`]: the DS, CS and LS tunnels' reference weights and in-tunnel rates
//!   (Algorithms 1-3).

pub mod private;
pub mod underlay;
