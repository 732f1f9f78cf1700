//! Aggregate goodput of `[[traffic]]` workloads, per class and in total, per sampling
//! interval. Open-loop workloads have tens of thousands of short flows: a per-flow series
//! would grow with flows x intervals, so these flows are counted into per-class byte
//! counters at delivery (O(1) per packet) and the series grows only with classes x intervals.
//! The aggregate rows also carry Jain's fairness index over the traffic flows that were
//! active through the whole interval (HCC Fig. 4e: "calculated every 1 millisecond"); a flow
//! that starts or finishes within an interval is left out of that interval, since its
//! share of it is partial by construction.

use super::fairness::jain_index;
use crate::units::Time;
use std::collections::BTreeMap;

#[derive(Default)]
pub struct ClassSeries {
    /// In-order payload bytes delivered so far, per class.
    pub delivered: Vec<u64>,
    /// The same at the previous sample.
    last: Vec<u64>,
    /// Flows started and not finished, per class.
    pub active: Vec<u32>,
    /// Rows: interval end, class index (`u32::MAX` = all classes), bytes, width, active flows.
    pub time: Vec<Time>,
    pub class: Vec<u32>,
    pub bytes: Vec<u64>,
    pub width: Vec<Time>,
    pub active_flows: Vec<u32>,
    /// Jain's index of the aggregate rows (`None` on class rows and with no whole flow).
    pub jain: Vec<Option<f64>>,
    /// Traffic flows started and not finished: bytes delivered at the last sample, and
    /// whether they were active since it.
    tracked: BTreeMap<u32, (u64, bool)>,
}

/// Class index of the aggregate rows.
pub const ALL: u32 = u32::MAX;

impl ClassSeries {
    pub fn new(classes: usize) -> ClassSeries {
        ClassSeries {
            delivered: vec![0; classes],
            last: vec![0; classes],
            active: vec![0; classes],
            ..Default::default()
        }
    }

    /// A traffic flow started.
    pub fn started(&mut self, flow: u32) {
        self.tracked.insert(flow, (0, false));
    }

    /// A traffic flow finished.
    pub fn finished(&mut self, flow: u32) {
        self.tracked.remove(&flow);
    }

    /// One row per class and one for all classes (when there are traffic flows at all);
    /// `delivered(flow)` gives a tracked flow's in-order bytes so far.
    pub fn sample(&mut self, now: Time, width: Time, delivered: impl Fn(u32) -> u64) {
        if self.delivered.is_empty() {
            return;
        }
        let mut whole = Vec::new();
        for (&f, (last, through)) in self.tracked.iter_mut() {
            let d = delivered(f);
            if *through {
                whole.push((d - *last) as f64);
            }
            *last = d;
            *through = true;
        }
        let (mut bytes, mut active) = (0, 0);
        for c in 0..self.delivered.len() {
            let b = self.delivered[c] - self.last[c];
            self.last[c] = self.delivered[c];
            bytes += b;
            active += self.active[c];
            self.push(now, c as u32, b, width, self.active[c], None);
        }
        self.push(now, ALL, bytes, width, active, (!whole.is_empty()).then(|| jain_index(&whole)));
    }

    fn push(
        &mut self,
        now: Time,
        class: u32,
        bytes: u64,
        width: Time,
        active: u32,
        jain: Option<f64>,
    ) {
        self.jain.push(jain);
        self.time.push(now);
        self.class.push(class);
        self.bytes.push(bytes);
        self.width.push(width);
        self.active_flows.push(active);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_carry_the_bytes_of_each_interval() {
        let mut s = ClassSeries::new(2);
        s.delivered[0] += 100;
        s.delivered[1] += 50;
        s.active[1] = 3;
        s.sample(Time(10), Time(10), |_| 0);
        s.delivered[1] += 5;
        s.sample(Time(20), Time(10), |_| 0);
        assert_eq!(s.class, vec![0, 1, ALL, 0, 1, ALL]);
        assert_eq!(s.bytes, vec![100, 50, 150, 0, 5, 5]);
        assert_eq!(s.active_flows, vec![0, 3, 3, 0, 3, 3]);
        let mut none = ClassSeries::new(0);
        none.sample(Time(1), Time(1), |_| 0);
        assert!(none.time.is_empty());
    }

    // Jain's index counts the flows active through the whole interval only: flow 2 starts
    // within the first, flow 1 finishes within the third.
    #[test]
    fn jain_index_counts_flows_active_through_the_interval() {
        let mut s = ClassSeries::new(1);
        let delivered = std::cell::RefCell::new(BTreeMap::from([(1u32, 0u64), (2, 0)]));
        let get = |f: u32| delivered.borrow()[&f];
        s.started(1);
        s.sample(Time(10), Time(10), get);
        s.started(2);
        delivered.borrow_mut().insert(1, 300);
        delivered.borrow_mut().insert(2, 100);
        s.sample(Time(20), Time(10), get);
        delivered.borrow_mut().insert(1, 400);
        delivered.borrow_mut().insert(2, 400);
        s.sample(Time(30), Time(10), get);
        s.finished(1);
        s.sample(Time(40), Time(10), get);
        let jain: Vec<Option<f64>> =
            s.jain.iter().zip(&s.class).filter(|(_, &c)| c == ALL).map(|(j, _)| *j).collect();
        assert_eq!(jain[0], None, "no flow was active through the first interval");
        assert_eq!(jain[1], Some(1.0), "only flow 1 was");
        assert!((jain[2].unwrap() - jain_index(&[100.0, 300.0])).abs() < 1e-12);
        assert_eq!(jain[3], Some(1.0), "flow 1 finished: flow 2 alone");
    }
}
