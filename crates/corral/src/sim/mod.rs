//! Discrete-event machinery: the event queue ordered by (time, insertion sequence), the
//! seeded random streams every component draws from, and a cache prefetch hint. Nothing here
//! knows about networks.

pub mod prefetch;
pub mod queue;
pub mod rng;

pub use prefetch::prefetch;
pub use queue::EventQueue;
pub use rng::Rng;
