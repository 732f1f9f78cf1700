//! The state and messages of HCC's agents (section III-C, Fig. 3): an agent keeps `Demand`,
//! a map from quantized demand to the number of descendant flows with it, and one `Share`.
//! Upward messages carry a delta map (`{D1: -1, D2: +1}` when one flow moves from D1 to D2;
//! K equal changes collapse into one entry), downward messages one share. Updates whose
//! change is below an agent's threshold are pruned. A node with several parents takes the
//! minimum of their allocations and reports the excess back to each.

use std::collections::BTreeMap;

/// A quantized demand as a map key (its bits: demands are finite and >= 0, or infinite).
pub type Level = u64;

pub fn level(demand: f64) -> Level {
    demand.max(0.0).to_bits()
}

pub fn demand(level: Level) -> f64 {
    f64::from_bits(level)
}

/// Quantized demand -> count: an agent's `Demand`, or a delta of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DemandMap(BTreeMap<Level, i64>);

impl DemandMap {
    /// Adds `n` flows at `level` (negative removes); entries that reach 0 go.
    pub fn add(&mut self, level: Level, n: i64) {
        let e = self.0.entry(level).or_insert(0);
        *e += n;
        if *e == 0 {
            self.0.remove(&level);
        }
    }

    /// One flow moves from `old` to `new` (`None`: arrives or leaves).
    pub fn moved(&mut self, old: Option<Level>, new: Option<Level>) {
        if old == new {
            return;
        }
        if let Some(o) = old {
            self.add(o, -1);
        }
        if let Some(n) = new {
            self.add(n, 1);
        }
    }

    /// Applies a delta map (a child's update) to this one.
    pub fn apply(&mut self, delta: &DemandMap) {
        for (&l, &n) in &delta.0 {
            self.add(l, n);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Entries, one per distinct level.
    pub fn entries(&self) -> usize {
        self.0.len()
    }

    /// Number of flows (a delta's net change of it).
    pub fn flows(&self) -> i64 {
        self.0.values().sum()
    }

    /// Sum of the demands (a delta's net change of it); infinite if an infinite demand is
    /// counted.
    pub fn total(&self) -> f64 {
        self.0.iter().map(|(&l, &n)| if n == 0 { 0.0 } else { demand(l) * n as f64 }).sum()
    }

    /// (demand, count) pairs in increasing demand.
    pub fn iter(&self) -> impl Iterator<Item = (f64, i64)> + '_ {
        self.0.iter().map(|(&l, &n)| (demand(l), n))
    }

    /// Bytes of a message carrying this map: `header` plus `entry` per level.
    pub fn message_bytes(&self, header: u32, entry: u32) -> u32 {
        header + entry * self.0.len() as u32
    }
}

/// Whether an update is worth sending: a change of at least `threshold` of the last value
/// sent (relative; 0 sends every change). The first update is always sent.
pub fn worth_sending(last_sent: Option<f64>, new: f64, threshold: f64) -> bool {
    match last_sent {
        None => true,
        Some(old) if old.is_infinite() || new.is_infinite() => old != new,
        Some(old) => (new - old).abs() > threshold * old.abs(),
    }
}

/// Whether a delta map is worth sending: it changes the number of flows, or the total demand
/// by more than `threshold` of `current_total` (the sender's total before it).
pub fn delta_worth_sending(delta: &DemandMap, current_total: f64, threshold: f64) -> bool {
    if delta.is_empty() {
        return false;
    }
    let change = delta.total();
    delta.flows() != 0 || !change.is_finite() || change.abs() > threshold * current_total.abs()
}

/// A node with several parents: it takes the smallest allocation, and each parent gets its
/// excess back (its allocation minus the one taken).
pub fn min_of_parents(shares: &[f64]) -> (f64, Vec<f64>) {
    let taken = shares.iter().copied().fold(f64::INFINITY, f64::min);
    let taken = if shares.is_empty() { 0.0 } else { taken };
    (taken, shares.iter().map(|s| s - taken).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_collapse_equal_changes_and_apply_to_the_parent_map() {
        let (d1, d2) = (level(1e9), level(2e9));
        let mut delta = DemandMap::default();
        for _ in 0..5 {
            delta.moved(Some(d1), Some(d2));
        }
        assert_eq!(delta.entries(), 2, "K equal changes are one entry per level");
        assert_eq!((delta.flows(), delta.total()), (0, 5e9));
        let mut parent = DemandMap::default();
        parent.add(d1, 7);
        parent.apply(&delta);
        assert_eq!(parent.iter().collect::<Vec<_>>(), vec![(1e9, 2), (2e9, 5)]);
        delta.moved(Some(d2), None);
        delta.moved(None, Some(d1));
        assert_eq!(delta.iter().collect::<Vec<_>>(), vec![(1e9, -4), (2e9, 4)]);
        assert_eq!(delta.message_bytes(8, 12), 32);
        let mut undo = DemandMap::default();
        undo.moved(Some(d1), Some(d2));
        undo.moved(Some(d2), Some(d1));
        assert!(undo.is_empty(), "a change and its reverse cancel");
    }

    #[test]
    fn pruning_drops_small_changes_only() {
        assert!(worth_sending(None, 5.0, 0.5));
        assert!(!worth_sending(Some(100.0), 104.0, 0.05));
        assert!(worth_sending(Some(100.0), 106.0, 0.05));
        assert!(worth_sending(Some(100.0), 100.1, 0.0));
        assert!(worth_sending(Some(f64::INFINITY), 3.0, 0.9));
        let mut small = DemandMap::default();
        small.moved(Some(level(100.0)), Some(level(101.0)));
        assert!(!delta_worth_sending(&small, 1000.0, 0.01));
        assert!(delta_worth_sending(&small, 1000.0, 0.0001));
        small.moved(None, Some(level(1.0)));
        assert!(delta_worth_sending(&small, 1000.0, 0.5), "a new flow is always reported");
        assert!(!delta_worth_sending(&DemandMap::default(), 1.0, 0.0));
    }

    #[test]
    fn several_parents_give_the_minimum_and_get_their_excess_back() {
        assert_eq!(min_of_parents(&[5.0, 3.0, 4.0]), (3.0, vec![2.0, 0.0, 1.0]));
        assert_eq!(min_of_parents(&[2.5]), (2.5, vec![0.0]));
        assert_eq!(min_of_parents(&[]), (0.0, vec![]));
    }
}
