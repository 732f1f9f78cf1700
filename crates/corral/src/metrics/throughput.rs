//! Per-flow goodput time series: in-order bytes delivered to the receiver in each sampling
//! interval, one row per (interval end, flow).

use crate::units::Time;

#[derive(Default)]
pub struct ThroughputSeries {
    pub time: Vec<Time>,
    pub flow: Vec<u32>,
    pub bytes: Vec<u64>,
}

impl ThroughputSeries {
    pub fn push(&mut self, t: Time, flow: u32, bytes: u64) {
        self.time.push(t);
        self.flow.push(flow);
        self.bytes.push(bytes);
    }
}
