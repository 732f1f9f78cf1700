//! Who talks to whom: the traffic patterns of datacenter transport evaluations. Each picks a
//! (source, destination) pair of host indices per flow from a host subset:
//!
//! * `all_to_all`: a uniformly random source and a uniformly random other destination
//!   (the pFabric/HPCC "random pairs" workload);
//! * `inter_rack`: as all-to-all, but the destination is always under another ToR (the
//!   rack of a host is the switch its NIC connects to);
//! * `many_to_one`: random sources, one fixed destination;
//! * `permutation`: a fixed random derangement (each host sends only to its partner, no
//!   host receives from two), flows from random sources;
//! * `incast` (partition/aggregate, DCTCP paper section 2.3.2): per request, N distinct
//!   senders answer one receiver at the same time ([`PairPicker::incast_senders`]);
//! * `half_to_half` (HCC's evaluation): the lower half of the hosts by index sends, each
//!   flow to a uniformly random host of the upper half.

use crate::sim::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TrafficPattern {
    AllToAll,
    InterRack,
    ManyToOne,
    Permutation,
    Incast,
    /// The first half of the hosts (by index) sends to the second half.
    HalfToHalf,
    /// An explicit flow list file ([`super::trace`]).
    Trace,
}

/// Chooses pairs for one traffic block.
#[derive(Clone, Debug)]
pub struct PairPicker {
    kind: TrafficPattern,
    /// The subset, sorted by (rack, host) so that each rack is one contiguous range.
    hosts: Vec<u32>,
    /// Per position in `hosts`: the range of positions of its rack.
    rack_range: Vec<(u32, u32)>,
    /// Fixed destination (many_to_one, incast).
    dst: Option<u32>,
    /// Permutation partner, by position in `hosts`.
    partner: Vec<u32>,
    /// half_to_half: the senders and the receivers, each in index order.
    halves: (Vec<u32>, Vec<u32>),
}

impl PairPicker {
    /// `rack[h]` is the rack of host `h`. `hosts` must hold at least 2 distinct hosts, and
    /// `dst` (when given) must be one of them or any other host.
    pub fn new(
        kind: TrafficPattern,
        hosts: &[u32],
        rack: &[u32],
        dst: Option<u32>,
        rng: &mut Rng,
    ) -> PairPicker {
        let mut hosts: Vec<u32> = hosts.to_vec();
        hosts.sort_by_key(|&h| (rack[h as usize], h));
        hosts.dedup();
        let mut rack_range = vec![(0, 0); hosts.len()];
        let mut lo = 0;
        while lo < hosts.len() {
            let r = rack[hosts[lo] as usize];
            let hi = lo + hosts[lo..].iter().take_while(|&&h| rack[h as usize] == r).count();
            for x in &mut rack_range[lo..hi] {
                *x = (lo as u32, hi as u32);
            }
            lo = hi;
        }
        let mut partner = Vec::new();
        if kind == TrafficPattern::Permutation {
            let n = hosts.len();
            let mut order: Vec<u32> = (0..n as u32).collect();
            rng.shuffle(&mut order);
            partner = vec![0; n];
            // A random cycle through all hosts: every host has one partner, never itself.
            for k in 0..n {
                partner[order[k] as usize] = order[(k + 1) % n];
            }
        }
        let mut halves = (Vec::new(), Vec::new());
        if kind == TrafficPattern::HalfToHalf {
            let mut by_index = hosts.clone();
            by_index.sort_unstable();
            let right = by_index.split_off(by_index.len() / 2);
            halves = (by_index, right);
        }
        PairPicker { kind, hosts, rack_range, dst, partner, halves }
    }

    pub fn hosts(&self) -> &[u32] {
        &self.hosts
    }

    /// The hosts that send: half_to_half's lower half, else all of them.
    pub fn senders(&self) -> &[u32] {
        if self.kind == TrafficPattern::HalfToHalf {
            &self.halves.0
        } else {
            &self.hosts
        }
    }

    /// Does every host have a destination in another rack?
    pub fn has_inter_rack_pairs(&self) -> bool {
        self.rack_range
            .first()
            .is_some_and(|&(lo, hi)| !(lo == 0 && hi as usize == self.hosts.len()))
    }

    /// Hosts other than `dst` in the subset, as sources towards `dst`.
    fn other_than(&self, dst: u32, rng: &mut Rng) -> u32 {
        let n = self.hosts.len() as u64;
        match self.hosts.iter().position(|&h| h == dst) {
            Some(pos) => {
                let k = rng.below(n - 1) as usize;
                self.hosts[if k >= pos { k + 1 } else { k }]
            }
            None => self.hosts[rng.below(n) as usize],
        }
    }

    /// One (src, dst) pair.
    pub fn pick(&self, rng: &mut Rng) -> (u32, u32) {
        let n = self.hosts.len() as u64;
        match self.kind {
            TrafficPattern::ManyToOne | TrafficPattern::Incast => {
                let dst = self.dst.expect("validated: many_to_one has a dst");
                (self.other_than(dst, rng), dst)
            }
            TrafficPattern::Permutation => {
                let s = rng.below(n) as usize;
                (self.hosts[s], self.hosts[self.partner[s] as usize])
            }
            TrafficPattern::InterRack => {
                let s = rng.below(n) as usize;
                let (lo, hi) = self.rack_range[s];
                let k = rng.below(n - (hi - lo) as u64) as u32;
                let d = if k < lo { k } else { k + (hi - lo) };
                (self.hosts[s], self.hosts[d as usize])
            }
            TrafficPattern::HalfToHalf => {
                let (left, right) = &self.halves;
                (
                    left[rng.below(left.len() as u64) as usize],
                    right[rng.below(right.len() as u64) as usize],
                )
            }
            TrafficPattern::AllToAll | TrafficPattern::Trace => {
                let s = rng.below(n) as usize;
                let k = rng.below(n - 1) as usize;
                (self.hosts[s], self.hosts[if k >= s { k + 1 } else { k }])
            }
        }
    }

    /// Incast: the receiver (the fixed `dst`, or a random host of the subset) and `n`
    /// distinct senders among the other hosts (partial Fisher-Yates).
    pub fn incast_senders(&self, n: usize, rng: &mut Rng, out: &mut Vec<u32>) -> u32 {
        let dst =
            self.dst.unwrap_or_else(|| self.hosts[rng.below(self.hosts.len() as u64) as usize]);
        let mut pool: Vec<u32> = self.hosts.iter().copied().filter(|&h| h != dst).collect();
        out.clear();
        for i in 0..n.min(pool.len()) {
            let j = i + rng.below((pool.len() - i) as u64) as usize;
            pool.swap(i, j);
            out.push(pool[i]);
        }
        dst
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 16 hosts, 2 per rack (a k = 4 fat-tree).
    fn racks() -> Vec<u32> {
        (0..16).map(|h| h / 2).collect()
    }

    fn all() -> Vec<u32> {
        (0..16).collect()
    }

    #[test]
    fn all_to_all_never_self_and_covers_all_pairs() {
        let mut r = Rng::stream(1, 3, 0);
        let p = PairPicker::new(TrafficPattern::AllToAll, &all(), &racks(), None, &mut r);
        let mut seen = vec![0u32; 256];
        for _ in 0..50_000 {
            let (s, d) = p.pick(&mut r);
            assert_ne!(s, d);
            seen[(s * 16 + d) as usize] += 1;
        }
        let pairs = seen.iter().filter(|&&c| c > 0).count();
        assert_eq!(pairs, 240);
        assert!(seen.iter().filter(|&&c| c > 0).all(|&c| c > 120), "uneven");
    }

    #[test]
    fn inter_rack_never_same_rack() {
        let rack = racks();
        let mut r = Rng::stream(1, 3, 1);
        let p = PairPicker::new(TrafficPattern::InterRack, &all(), &rack, None, &mut r);
        let mut dsts = std::collections::BTreeSet::new();
        for _ in 0..20_000 {
            let (s, d) = p.pick(&mut r);
            assert_ne!(rack[s as usize], rack[d as usize], "h{s} -> h{d}");
            dsts.insert(d);
        }
        assert_eq!(dsts.len(), 16);
        // A subset within one rack has no inter-rack pair.
        let one = PairPicker::new(TrafficPattern::InterRack, &[2, 3], &rack, None, &mut r);
        assert!(!one.has_inter_rack_pairs());
        assert!(p.has_inter_rack_pairs());
    }

    #[test]
    fn many_to_one_has_a_single_destination() {
        let mut r = Rng::stream(1, 3, 2);
        let p = PairPicker::new(TrafficPattern::ManyToOne, &all(), &racks(), Some(5), &mut r);
        let mut srcs = std::collections::BTreeSet::new();
        for _ in 0..5000 {
            let (s, d) = p.pick(&mut r);
            assert_eq!(d, 5);
            assert_ne!(s, 5);
            srcs.insert(s);
        }
        assert_eq!(srcs.len(), 15);
    }

    #[test]
    fn permutation_is_a_derangement() {
        for seed in 0..20 {
            let mut r = Rng::stream(seed, 3, 3);
            let p = PairPicker::new(TrafficPattern::Permutation, &all(), &racks(), None, &mut r);
            let mut partner = [u32::MAX; 16];
            for _ in 0..2000 {
                let (s, d) = p.pick(&mut r);
                assert_ne!(s, d);
                assert!(
                    partner[s as usize] == u32::MAX || partner[s as usize] == d,
                    "h{s} has two partners"
                );
                partner[s as usize] = d;
            }
            let mut ds: Vec<u32> = partner.to_vec();
            ds.sort_unstable();
            assert_eq!(ds, all(), "every host receives exactly once");
        }
    }

    #[test]
    fn half_to_half_sends_from_the_lower_half_to_the_upper_half() {
        let mut r = Rng::stream(1, 3, 5);
        let p = PairPicker::new(TrafficPattern::HalfToHalf, &all(), &racks(), None, &mut r);
        let (mut srcs, mut dsts) =
            (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
        for _ in 0..5000 {
            let (s, d) = p.pick(&mut r);
            assert!(s < 8 && d >= 8, "h{s} -> h{d}");
            srcs.insert(s);
            dsts.insert(d);
        }
        assert_eq!((srcs.len(), dsts.len()), (8, 8));
        assert_eq!(p.senders(), &(0..8).collect::<Vec<u32>>()[..]);
    }

    #[test]
    fn incast_senders_are_distinct_and_exclude_the_receiver() {
        let mut r = Rng::stream(1, 3, 4);
        let p = PairPicker::new(TrafficPattern::Incast, &all(), &racks(), Some(0), &mut r);
        let mut out = Vec::new();
        for _ in 0..200 {
            let d = p.incast_senders(8, &mut r, &mut out);
            assert_eq!(d, 0);
            let mut s = out.clone();
            s.sort_unstable();
            s.dedup();
            assert_eq!(s.len(), 8);
            assert!(!s.contains(&0));
        }
    }
}
