//! HCC (hierarchical congestion control, `../shared/seeds/002`): the building blocks of its
//! rate-allocation agents. Not a registered scheme yet: the agents, the hierarchy and the
//! messages on the control plane come with the rest of its issue.
//!
//! - [`maxmin`]: Algorithms 1 and 2 on the bottleneck-flow graph;
//! - [`quantize`]: Lloyd-Max quantization of demands;
//! - [`demand`]: the agents' demand maps, their delta messages, pruning, and the
//!   multi-parent minimum rule.

pub mod demand;
pub mod maxmin;
pub mod quantize;
