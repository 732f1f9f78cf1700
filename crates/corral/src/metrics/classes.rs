//! Aggregate goodput of `[[traffic]]` workloads, per class and in total, per sampling
//! interval. Open-loop workloads have tens of thousands of short flows: a per-flow series
//! would grow with flows x intervals, so these flows are counted into per-class byte
//! counters at delivery (O(1) per packet) and the series grows only with classes x intervals.

use crate::units::Time;

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
}

/// Class index of the aggregate rows.
pub const ALL: u32 = u32::MAX;

impl ClassSeries {
    pub fn new(classes: usize) -> ClassSeries {
        ClassSeries { delivered: vec![0; classes], last: vec![0; classes], active: vec![0; classes], ..Default::default() }
    }

    /// One row per class and one for all classes (when there are traffic flows at all).
    pub fn sample(&mut self, now: Time, width: Time) {
        if self.delivered.is_empty() {
            return;
        }
        let (mut bytes, mut active) = (0, 0);
        for c in 0..self.delivered.len() {
            let b = self.delivered[c] - self.last[c];
            self.last[c] = self.delivered[c];
            bytes += b;
            active += self.active[c];
            self.push(now, c as u32, b, width, self.active[c]);
        }
        self.push(now, ALL, bytes, width, active);
    }

    fn push(&mut self, now: Time, class: u32, bytes: u64, width: Time, active: u32) {
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
        s.sample(Time(10), Time(10));
        s.delivered[1] += 5;
        s.sample(Time(20), Time(10));
        assert_eq!(s.class, vec![0, 1, ALL, 0, 1, ALL]);
        assert_eq!(s.bytes, vec![100, 50, 150, 0, 5, 5]);
        assert_eq!(s.active_flows, vec![0, 3, 3, 0, 3, 3]);
        let mut none = ClassSeries::new(0);
        none.sample(Time(1), Time(1));
        assert!(none.time.is_empty());
    }
}
