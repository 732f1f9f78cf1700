//! Metric collectors filled during a run: goodput series, queue samples, the drop log, and
//! fairness. Per-port counters and drop-run histograms live on the ports themselves.

pub mod drops;
pub mod fairness;
pub mod queues;
pub mod table;
pub mod throughput;

pub use table::{Column, Table};

pub struct Metrics {
    pub throughput: throughput::ThroughputSeries,
    pub queues: queues::QueueSamples,
    pub drops: drops::DropLog,
    /// In-order bytes delivered per flow at the previous goodput sample.
    pub last_delivered: Vec<u64>,
    /// Time of the previous goodput sample.
    pub last_sample: crate::units::Time,
    pub record_drops: bool,
}

impl Metrics {
    pub fn new(flows: usize, record_drops: bool) -> Metrics {
        Metrics {
            throughput: Default::default(),
            queues: Default::default(),
            drops: Default::default(),
            last_delivered: vec![0; flows],
            last_sample: crate::units::Time::ZERO,
            record_drops,
        }
    }
}
