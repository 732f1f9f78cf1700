//! Sampled queue occupancy of chosen output ports.

use crate::ids::PortId;
use crate::units::Time;

#[derive(Default)]
pub struct QueueSamples {
    pub time: Vec<Time>,
    pub port: Vec<PortId>,
    pub bytes: Vec<u64>,
    pub packets: Vec<u64>,
}

impl QueueSamples {
    pub fn push(&mut self, t: Time, port: PortId, bytes: u64, packets: u64) {
        self.time.push(t);
        self.port.push(port);
        self.bytes.push(bytes);
        self.packets.push(packets);
    }
}
