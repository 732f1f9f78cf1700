//! Metric collectors filled during a run: goodput series, queue samples, the drop log, and
//! fairness. Per-port counters and drop-run histograms live on the ports themselves.

pub mod classes;
pub mod drops;
pub mod fairness;
pub mod fct;
pub mod latency;
pub mod outcome;
pub mod queues;
pub mod schema;
pub mod table;
pub mod throughput;

pub use table::{Column, Table};

pub struct Metrics {
    pub throughput: throughput::ThroughputSeries,
    pub queues: queues::QueueSamples,
    pub drops: drops::DropLog,
    /// In-order bytes delivered per flow at the previous goodput sample.
    pub last_delivered: Vec<u64>,
    /// Distinct bytes arrived per flow (in any order) at the previous goodput sample.
    pub last_arrived: Vec<u64>,
    /// Time of the previous goodput sample.
    pub last_sample: crate::units::Time,
    pub record_drops: bool,
    /// Aggregate and per-class goodput of `[[traffic]]` flows.
    pub classes: classes::ClassSeries,
    pub latency: latency::LatencySamples,
    /// `[[flows]]` flows started and still reported in the per-flow series, by id.
    pub active: Vec<u32>,
}

impl Metrics {
    /// `flows`: the `[[flows]]` flows (per-flow series); `classes`: classes of traffic flows.
    pub fn new(flows: usize, classes: usize, record_drops: bool, latency_every: u64) -> Metrics {
        Metrics {
            throughput: Default::default(),
            queues: Default::default(),
            drops: Default::default(),
            last_delivered: vec![0; flows],
            last_arrived: vec![0; flows],
            last_sample: crate::units::Time::ZERO,
            record_drops,
            classes: classes::ClassSeries::new(classes),
            latency: latency::LatencySamples::new(latency_every),
            active: Vec::new(),
        }
    }

    /// A `[[flows]]` flow started: it joins the per-flow series (kept in id order).
    pub fn note_started(&mut self, flow: u32) {
        let at = self.active.partition_point(|&f| f < flow);
        self.active.insert(at, flow);
    }
}
