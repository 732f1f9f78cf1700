//! Discrete-event machinery: the event queue ordered by (time, insertion sequence) and the
//! seeded random streams every component draws from. Nothing here knows about networks.

pub mod queue;
pub mod rng;

pub use queue::EventQueue;
pub use rng::Rng;
