//! Sampled one-way packet latency: the delay from a data segment leaving its transport
//! (host processing and NIC queueing included) to its arrival at the receiving host, for
//! every Nth delivered data packet (`metrics.latency_sample_every`; 0 = off). Sampling by
//! count keeps the table's size proportional to traffic / N.

use crate::ids::FlowId;
use crate::units::Time;

#[derive(Default)]
pub struct LatencySamples {
    /// Sample every `every`th data packet (0 = off).
    pub every: u64,
    seen: u64,
    pub time: Vec<Time>,
    pub flow: Vec<FlowId>,
    pub delay: Vec<Time>,
}

impl LatencySamples {
    pub fn new(every: u64) -> LatencySamples {
        LatencySamples { every, ..Default::default() }
    }

    /// A data packet was delivered at `now` after `delay` in the network.
    #[inline]
    pub fn on_data(&mut self, now: Time, flow: FlowId, delay: Time) {
        if self.every == 0 {
            return;
        }
        self.seen += 1;
        if self.seen.is_multiple_of(self.every) {
            self.time.push(now);
            self.flow.push(flow);
            self.delay.push(delay);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_every_nth_and_nothing_when_off() {
        let mut l = LatencySamples::new(3);
        for i in 0..10 {
            l.on_data(Time(i), FlowId(0), Time(100 + i));
        }
        assert_eq!(l.delay, vec![Time(102), Time(105), Time(108)]);
        let mut off = LatencySamples::new(0);
        off.on_data(Time(1), FlowId(0), Time(1));
        assert!(off.time.is_empty());
    }
}
