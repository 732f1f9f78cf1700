//! Periodic samples: per-flow goodput (in-order bytes delivered per interval) and the queue
//! length of the chosen ports.

use super::{Event, Simulation};

impl Simulation {
    pub(super) fn sample_throughput(&mut self) {
        let now = self.events.now();
        let interval = self.scenario.metrics.interval;
        let width = now - self.metrics.last_sample;
        self.metrics.last_sample = now;
        for (i, f) in self.flows.iter().enumerate() {
            if f.def.start >= now {
                continue;
            }
            let delivered = f.receiver.delivered();
            let last = &mut self.metrics.last_delivered[i];
            let finished_earlier = f.finish.is_some_and(|t| t + interval < now) && delivered == *last;
            if !finished_earlier {
                self.metrics.throughput.push(now, i as u32, delivered - *last, width);
            }
            *last = delivered;
        }
        // Every interval, and once more at the end of the run if it falls between.
        let next = (now + interval).min(self.scenario.duration);
        if next > now {
            self.events.schedule(next, Event::SampleThroughput);
        }
    }

    pub(super) fn sample_queues(&mut self) {
        let now = self.events.now();
        for &p in &self.queue_ports {
            let q = &self.net.ports[p.idx()].queue;
            self.metrics.queues.push(now, p, q.bytes(), q.packets());
        }
        let next = now + self.scenario.metrics.queue_interval;
        if next <= self.scenario.duration {
            self.events.schedule(next, Event::SampleQueues);
        }
    }
}
