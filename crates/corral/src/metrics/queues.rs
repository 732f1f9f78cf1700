//! Sampled queue occupancy of chosen output ports, with the bytes each has sent so far (so
//! that a port's utilization between two samples can be read, e.g. the bottleneck's after a
//! capacity step).

use crate::ids::PortId;
use crate::units::Time;

#[derive(Default)]
pub struct QueueSamples {
    pub time: Vec<Time>,
    pub port: Vec<PortId>,
    pub bytes: Vec<u64>,
    pub packets: Vec<u64>,
    /// Bytes the port has transmitted since the start, at the sample.
    pub tx_bytes: Vec<u64>,
}

impl QueueSamples {
    pub fn push(&mut self, t: Time, port: PortId, bytes: u64, packets: u64, tx_bytes: u64) {
        self.tx_bytes.push(tx_bytes);
        self.time.push(t);
        self.port.push(port);
        self.bytes.push(bytes);
        self.packets.push(packets);
    }
}
