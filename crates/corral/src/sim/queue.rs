//! The event queue: a binary min-heap keyed on (time, insertion sequence).
//!
//! Ties in time are broken by the order in which events were scheduled, so a run is fully
//! determined by the scenario and seed. Popping asserts that simulated time never runs
//! backwards.
//!
//! A pop leaves the popped entry at the root until the queue is next touched: most events
//! schedule another (a packet's next hop), and that one then takes the root's place with a
//! single sift down, instead of a pop's sift and a push's sift. The order of events is the
//! same as with a plain pop and push.

use crate::units::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    /// (time in ps << 64) | sequence: one integer comparison orders the heap.
    key: u128,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, o: &Self) -> Ordering {
        // BinaryHeap is a max-heap; reverse for earliest-first.
        o.key.cmp(&self.key)
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Time,
    popped: u64,
    /// The root is an event already popped, to be replaced or removed.
    spent_root: bool,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1 << 12), seq: 0, now: Time::ZERO, popped: 0, spent_root: false }
    }

    /// Removes the popped event still at the root, if any.
    #[inline]
    fn drop_spent_root(&mut self) {
        if self.spent_root {
            self.spent_root = false;
            self.heap.pop();
        }
    }

    /// Current simulated time: the time of the last popped event.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of events popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len() - self.spent_root as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Schedules `event` at absolute time `at`, which must not be in the past.
    pub fn schedule(&mut self, at: Time, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let key = ((at.0 as u128) << 64) | self.seq as u128;
        self.seq += 1;
        if self.spent_root {
            self.spent_root = false;
            // The new entry takes the spent root's place (PeekMut sifts it down when dropped).
            *self.heap.peek_mut().expect("a spent root") = Entry { key, event };
        } else {
            self.heap.push(Entry { key, event });
        }
    }

    /// Time of the next event, if any.
    pub fn peek_time(&mut self) -> Option<Time> {
        self.drop_spent_root();
        self.heap.peek().map(|e| Time((e.key >> 64) as u64))
    }

    /// Pops the earliest event and advances the clock to it.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.drop_spent_root();
        let e = self.heap.peek()?;
        let (key, event) = (e.key, e.event);
        self.spent_root = true;
        let e = Entry { key, event };
        let t = Time((e.key >> 64) as u64);
        assert!(t >= self.now, "simulated time ran backwards");
        self.now = t;
        self.popped += 1;
        Some((t, e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::new();
        q.schedule(Time(5), 'a');
        q.schedule(Time(3), 'b');
        q.schedule(Time(5), 'c');
        q.schedule(Time(3), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.now(), Time(5));
        assert_eq!(q.events_processed(), 4);
    }

    #[test]
    fn matches_a_sorted_reference_under_interleaved_pushes_and_pops() {
        // Reference: a plain list sorted by (time, sequence).
        let mut rng = Rng::stream(9, 0, 0);
        let mut q = EventQueue::new();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let mut seq = 0;
        for _ in 0..20_000 {
            if rng.below(3) > 0 || reference.is_empty() {
                let span = 1u64 << (rng.below(40) + 1);
                let at = q.now().0 + rng.below(span);
                q.schedule(Time(at), seq);
                reference.push((at, seq));
                seq += 1;
            } else {
                reference.sort();
                let want = reference.remove(0);
                assert_eq!(q.peek_time(), Some(Time(want.0)));
                assert_eq!(q.pop(), Some((Time(want.0), want.1)));
            }
        }
        reference.sort();
        for want in reference {
            assert_eq!(q.pop(), Some((Time(want.0), want.1)));
        }
        assert!(q.pop().is_none() && q.is_empty());
    }
}
