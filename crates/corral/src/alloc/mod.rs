//! Max-min fair rate allocation (`corral::alloc`), usable on its own by a rate controller and
//! the engine of the fluid simulation mode: given links and flows (weights, priorities,
//! demands, per-link usage fractions), the weighted max-min fair rates and each flow's
//! bottleneck, per R2C2 (SIGCOMM 2015) section 3.3 and HCC's Algorithms 1 and 2.
//!
//! [`problem`] holds the input in CSR form, [`waterfill`] the exact fast solver,
//! [`incremental`] the allocator that updates under arrivals, departures, demand and capacity
//! changes, and [`reference`](mod@reference) is the plain HCC algorithm used as a test oracle. Usage
//! fractions of a flow under a routing come from [`crate::route::usage`], the one place paths
//! are chosen.

pub(crate) mod candidates;
pub mod incremental;
pub mod problem;
pub mod reference;
pub mod waterfill;

pub use incremental::Allocator;
pub use problem::{Allocation, Bottleneck, Problem, ProblemFlow};
pub use waterfill::{solve, solve_validated};
