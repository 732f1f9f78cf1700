//! Per-flow goodput time series: in-order bytes delivered to the receiver in each sampling
//! interval, and the distinct payload bytes that first reached it in the interval in any
//! order (the network's delivery rate: no bytes released from behind a filled hole, no
//! duplicates), one row per (interval end, flow). The last interval ends at the run's end and
//! may be shorter than the others; `width` holds each row's interval length.

use crate::units::Time;

#[derive(Default)]
pub struct ThroughputSeries {
    pub time: Vec<Time>,
    pub flow: Vec<u32>,
    pub bytes: Vec<u64>,
    pub arrived: Vec<u64>,
    pub width: Vec<Time>,
}

impl ThroughputSeries {
    pub fn push(&mut self, t: Time, flow: u32, bytes: u64, arrived: u64, width: Time) {
        self.time.push(t);
        self.flow.push(flow);
        self.bytes.push(bytes);
        self.arrived.push(arrived);
        self.width.push(width);
    }
}
