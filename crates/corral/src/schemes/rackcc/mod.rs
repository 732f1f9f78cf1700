//! RackCC (rack-to-rack JumboFlows, `../shared/seeds/000`, HotNets 2016): the building
//! blocks of its congestion control. Not a registered scheme yet: the ToR counters, the
//! control messages and the scenarios come with the rest of its issue.
//!
//! - [`law`]: the shared α, the per-subflow law applied once per RTT, the destination rate
//!   D_target, and Fast Start / Fast End bookkeeping of a JumboFlow.

pub mod law;
