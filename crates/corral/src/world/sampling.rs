//! Periodic samples: goodput (in-order bytes delivered per interval) of each `[[flows]]`
//! flow, with the distinct bytes that arrived in any order, and of each `[[traffic]]` class,
//! and the queue length of the chosen ports. The work per sample is proportional to the
//! active `[[flows]]` flows and the classes, never to the traffic flows.

use super::{Event, Simulation};
use crate::net::queue::Discipline;

impl Simulation {
    pub(super) fn sample_throughput(&mut self) {
        let now = self.events.now();
        let interval = self.scenario.metrics.interval;
        let width = now - self.metrics.last_sample;
        self.metrics.last_sample = now;
        // `[[flows]]` flows: one row each while started, until a finished flow's last
        // bytes are reported; finished flows then leave the active list.
        let m = &mut self.metrics;
        let flows = &self.flows;
        m.active.retain(|&i| {
            let f = &flows[i as usize];
            if f.def.start >= now {
                return true;
            }
            let delivered = f.receiver.delivered();
            let arrived = f.receiver.received();
            let last = &mut m.last_delivered[i as usize];
            let last_arrived = &mut m.last_arrived[i as usize];
            let finished_earlier =
                f.finish.is_some_and(|t| t + interval < now) && delivered == *last;
            if !finished_earlier {
                m.throughput.push(now, i, delivered - *last, arrived - *last_arrived, width);
            }
            *last = delivered;
            *last_arrived = arrived;
            !finished_earlier
        });
        // `[[traffic]]` flows: per class and in total, independent of the number of flows.
        m.classes.sample(now, width, |f| flows[f as usize].receiver.delivered());
        // Every interval, and once more at the end of the run if it falls between.
        let next = (now + interval).min(self.scenario.duration);
        if next > now {
            self.events.schedule(next, Event::SampleThroughput);
        }
    }

    pub(super) fn sample_queues(&mut self) {
        let now = self.events.now();
        for &p in &self.queue_ports {
            let port = &self.net.ports[p.idx()];
            self.metrics.queues.push(
                now,
                p,
                port.queue.bytes(),
                port.queue.packets(),
                port.stats.tx_bytes,
            );
        }
        let next = now + self.scenario.metrics.queue_interval;
        if next <= self.scenario.duration {
            self.events.schedule(next, Event::SampleQueues);
        }
    }
}
