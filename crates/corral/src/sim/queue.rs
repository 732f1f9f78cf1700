//! The event queue, ordered on (time, insertion sequence).
//!
//! Ties in time are broken by the order in which events were scheduled, so a run is fully
//! determined by the scenario and seed. Popping asserts that simulated time never runs
//! backwards.
//!
//! Most events move packets, and come a fixed delay after the moment they are scheduled: a
//! packet arrives one serialization and one propagation delay after it starts, a port frees
//! one serialization after it starts. Events scheduled with one fixed delay come out in the
//! order they went in, so [`EventQueue::schedule_lane`] keeps them in a FIFO lane per delay
//! (up to [`LANES`] lanes; a lane left empty takes the next new delay). Everything else
//! (timers, flow starts, samples) goes through a binary min-heap. A pop takes the earliest of
//! the heap's root and the lanes' first events. Keys are unique, so the order of events is
//! exactly that of one heap holding them all; a packet's hop costs a queue push and a scan of
//! a few lane heads instead of a sift through every pending event.
//!
//! A pop from the heap leaves the popped entry at the root until the queue is next touched:
//! when the next event scheduled goes to the heap, it takes the root's place with a single
//! sift down, instead of a pop's sift and a push's sift.

use crate::units::Time;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// The most FIFO lanes a queue keeps; events of further delays go to the heap.
pub const LANES: usize = 16;

/// A key no event has: an empty lane's head.
const NO_KEY: u128 = u128::MAX;

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
    /// Each lane's events, in time order, and the delay after scheduling they all have.
    lanes: Vec<VecDeque<Entry<E>>>,
    delays: Vec<u64>,
    /// The key of each lane's first event (`NO_KEY` when it is empty): what a pop scans.
    heads: Vec<u128>,
    /// The lane of the last popped event (`usize::MAX`: it came from the heap).
    last_lane: usize,
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
        EventQueue {
            heap: BinaryHeap::with_capacity(1 << 12),
            lanes: Vec::new(),
            delays: Vec::new(),
            heads: Vec::new(),
            last_lane: usize::MAX,
            seq: 0,
            now: Time::ZERO,
            popped: 0,
            spent_root: false,
        }
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
            + self.lanes.iter().map(VecDeque::len).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The next key, for an event at `at`.
    #[inline]
    fn key(&mut self, at: Time) -> u128 {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let key = ((at.0 as u128) << 64) | self.seq as u128;
        self.seq += 1;
        key
    }

    /// Schedules `event` at absolute time `at`, which must not be in the past.
    pub fn schedule(&mut self, at: Time, event: E) {
        let key = self.key(at);
        self.push_heap(key, event);
    }

    fn push_heap(&mut self, key: u128, event: E) {
        if self.spent_root {
            self.spent_root = false;
            // The new entry takes the spent root's place (PeekMut sifts it down when dropped).
            *self.heap.peek_mut().expect("a spent root") = Entry { key, event };
        } else {
            self.heap.push(Entry { key, event });
        }
    }

    /// Schedules `event` at `at` like [`Self::schedule`], for an event whose delay from now
    /// (`at - now`) recurs, such as a packet's arrival over a link: it joins the lane of
    /// that delay (opening one if a lane is free), or the heap when every lane is taken.
    /// Forced inline, like the engine's `transmit` and `send_next` that call it: about 4 %
    /// faster per event (`bench/README.md`).
    #[inline(always)]
    pub fn schedule_lane(&mut self, at: Time, event: E) {
        let key = self.key(at);
        let delay = at.0 - self.now.0;
        match self.delays.iter().position(|&d| d == delay) {
            Some(i) => self.push_lane(i, key, event),
            None => self.open_lane(delay, key, event),
        }
    }

    /// No lane has `delay`: an empty lane takes it, or a new one while there are fewer than
    /// [`LANES`]; otherwise the event goes to the heap.
    #[cold]
    fn open_lane(&mut self, delay: u64, key: u128, event: E) {
        let i = match self.lanes.iter().position(|l| l.is_empty()) {
            Some(i) => i,
            None if self.lanes.len() < LANES => {
                self.lanes.push(VecDeque::new());
                self.delays.push(0);
                self.heads.push(NO_KEY);
                self.lanes.len() - 1
            }
            None => return self.push_heap(key, event),
        };
        self.delays[i] = delay;
        self.push_lane(i, key, event);
    }

    #[inline]
    fn push_lane(&mut self, i: usize, key: u128, event: E) {
        let lane = &mut self.lanes[i];
        if lane.is_empty() {
            self.heads[i] = key;
        }
        lane.push_back(Entry { key, event });
    }

    /// The lane whose first event is earliest, with that event's key (`NO_KEY` if none).
    #[inline]
    fn first_lane(&self) -> (usize, u128) {
        let mut best = (0, NO_KEY);
        for (i, &key) in self.heads.iter().enumerate() {
            if key < best.1 {
                best = (i, key);
            }
        }
        best
    }

    /// Time of the next event, if any.
    pub fn peek_time(&mut self) -> Option<Time> {
        self.drop_spent_root();
        let key = self.first_lane().1.min(self.heap.peek().map_or(NO_KEY, |e| e.key));
        (key != NO_KEY).then_some(Time((key >> 64) as u64))
    }

    /// The event `n` places behind the last popped one in its lane (`n = 0`: the one now
    /// first there), if it came from a lane: one of the next events to run, to prefetch
    /// what it touches.
    #[inline]
    pub fn lane_ahead(&self, n: usize) -> Option<&E> {
        self.lanes.get(self.last_lane)?.get(n).map(|e| &e.event)
    }

    /// Pops the earliest event and advances the clock to it.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time(u64::MAX))
    }

    /// Pops the earliest event if it is due by `until`, and advances the clock to it.
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        self.drop_spent_root();
        let (lane, lane_key) = self.first_lane();
        let heap_key = self.heap.peek().map_or(NO_KEY, |e| e.key);
        let key = lane_key.min(heap_key);
        if key == NO_KEY || (key >> 64) as u64 > until.0 {
            return None;
        }
        let event = if lane_key < heap_key {
            let queue = &mut self.lanes[lane];
            let e = queue.pop_front().expect("a lane with a head");
            self.heads[lane] = queue.front().map_or(NO_KEY, |next| next.key);
            self.last_lane = lane;
            e.event
        } else {
            self.last_lane = usize::MAX;
            self.spent_root = true;
            self.heap.peek().expect("a root").event
        };
        let t = Time((key >> 64) as u64);
        assert!(t >= self.now, "simulated time ran backwards");
        self.now = t;
        self.popped += 1;
        Some((t, event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    /// Takes the earliest (time, sequence) out of an unsorted reference list.
    fn take_earliest(reference: &mut Vec<(u64, u64)>) -> (u64, u64) {
        reference.sort();
        reference.remove(0)
    }

    /// Pops every event left in `q`, which must come out as `reference` sorted, then nothing.
    fn drain_in_order(q: &mut EventQueue<u64>, mut reference: Vec<(u64, u64)>) {
        reference.sort();
        for want in reference {
            assert_eq!(q.pop(), Some((Time(want.0), want.1)));
        }
        assert!(q.pop().is_none() && q.is_empty());
    }

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
                let want = take_earliest(&mut reference);
                assert_eq!(q.peek_time(), Some(Time(want.0)));
                assert_eq!(q.pop(), Some((Time(want.0), want.1)));
            }
        }
        drain_in_order(&mut q, reference);
    }

    #[test]
    fn lanes_and_heap_pop_in_one_order() {
        // Recurring delays (more than there are lanes, so lanes are reused and some events
        // fall back to the heap) mixed with arbitrary ones, against a sorted reference.
        let mut rng = Rng::stream(11, 0, 0);
        let mut q = EventQueue::new();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let mut seq = 0;
        for _ in 0..50_000 {
            if rng.below(5) > 1 || reference.is_empty() {
                let now = q.now().0;
                if rng.below(4) > 0 {
                    let delay = 100 * (rng.below(LANES as u64 + 8) + 1);
                    q.schedule_lane(Time(now + delay), seq);
                    reference.push((now + delay, seq));
                } else {
                    let at = now + rng.below(3000);
                    q.schedule(Time(at), seq);
                    reference.push((at, seq));
                }
                seq += 1;
                assert_eq!(q.len(), reference.len());
            } else {
                let want = take_earliest(&mut reference);
                assert_eq!(q.peek_time(), Some(Time(want.0)));
                if want.0 > 0 {
                    assert_eq!(q.pop_until(Time(want.0 - 1)), None);
                }
                assert_eq!(q.pop_until(Time(want.0)), Some((Time(want.0), want.1)));
                // The successor is the next event of the popped one's delay, if a lane has it.
                if let Some(&next) = q.lane_ahead(0) {
                    assert!(reference.iter().any(|&(_, s)| s == next));
                }
            }
        }
        assert_eq!(q.lanes.len(), LANES);
        drain_in_order(&mut q, reference);
    }
}
