//! Every drop: when, at which output port, from which input port of that switch (None for a
//! host's own traffic), and which flow and sequence number.

use crate::ids::{FlowId, PortId};
use crate::units::Time;

#[derive(Default)]
pub struct DropLog {
    pub time: Vec<Time>,
    pub port: Vec<PortId>,
    pub in_port: Vec<Option<u16>>,
    pub flow: Vec<FlowId>,
    /// Data sequence number, u64::MAX for an ACK.
    pub seq: Vec<u64>,
}

impl DropLog {
    pub fn push(&mut self, t: Time, port: PortId, in_port: Option<u16>, flow: FlowId, seq: u64) {
        self.time.push(t);
        self.port.push(port);
        self.in_port.push(in_port);
        self.flow.push(flow);
        self.seq.push(seq);
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}
