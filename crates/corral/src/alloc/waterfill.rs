//! Exact weighted progressive filling (water-filling) for one priority level, R2C2 (SIGCOMM
//! 2015) section 3.3.1: every unfrozen flow `f` runs at `w_f * t` while the common fill level
//! `t` rises; link `l` carries `sum a_fl * r_f` and saturates when that reaches its remaining
//! capacity; its unfrozen flows then freeze with that link as bottleneck. A flow whose demand
//! `d_f` is reached first (at `t = d_f / w_f`) freezes at its demand.
//!
//! Each link's saturation level is `rem_l / W_l` (remaining capacity over the weighted usage
//! of its unfrozen flows). Freezing a flow never lowers another link's level below the
//! current `t`, so the next event is the minimum over links, kept in a tournament tree
//! (updated once per touched link per event), or the next demand level from a sorted list.
//! Cost: O(nnz + E * D log L) for nnz usage entries, E events touching D links each.
//!
//! Priorities (section 3.3.2) and headroom are layered on top in [`super::incremental`]:
//! levels are filled in turn on the capacity higher levels left.

use super::problem::{Allocation, Bottleneck, FlowSpec, Problem};

/// Reusable per-link and per-flow work arrays, reset after every fill.
#[derive(Default)]
pub(crate) struct Scratch {
    wsum: Vec<f64>,
    active: Vec<u32>,
    dirty: Vec<bool>,
    touched_flag: Vec<bool>,
    /// Links touched by the last fill.
    pub touched: Vec<u32>,
    off: Vec<u32>,
    fill_pos: Vec<u32>,
    entries: Vec<u32>,
    frozen: Vec<bool>,
    tree: MinTree,
    demands: Vec<(f64, u32)>,
    dirty_list: Vec<u32>,
}

impl Scratch {
    pub fn ensure(&mut self, links: usize, flows: usize) {
        if self.wsum.len() < links {
            self.wsum.resize(links, 0.0);
            self.active.resize(links, 0);
            self.dirty.resize(links, false);
            self.touched_flag.resize(links, false);
            self.off.resize(links, 0);
            self.fill_pos.resize(links, 0);
        }
        if self.frozen.len() < flows {
            self.frozen.resize(flows, false);
        }
        self.tree.ensure(links);
    }
}

/// Tournament tree over links: the link with the lowest saturation level (ties: lowest
/// index) in O(1), a key update in O(log L). No stale entries, unlike a binary heap.
#[derive(Default)]
struct MinTree {
    size: usize,
    key: Vec<f64>,
    /// Internal node -> winning leaf; node 1 is the root, leaves are `size..2 size`.
    win: Vec<u32>,
}

impl MinTree {
    fn ensure(&mut self, n: usize) {
        let size = n.max(1).next_power_of_two();
        if self.size != size {
            self.size = size;
            self.key = vec![f64::INFINITY; size];
            self.win = (0..size as u32).chain(0..size as u32).collect();
            for i in (1..size).rev() {
                self.win[i] = self.win[2 * i];
            }
        }
    }

    #[inline]
    fn better(&self, a: u32, b: u32) -> u32 {
        let (ka, kb) = (self.key[a as usize], self.key[b as usize]);
        if kb < ka || (kb == ka && b < a) {
            b
        } else {
            a
        }
    }

    #[inline]
    fn set(&mut self, l: usize, k: f64) {
        self.key[l] = k;
        let mut i = (l + self.size) / 2;
        while i >= 1 {
            let w = self.better(self.win[2 * i], self.win[2 * i + 1]);
            self.win[i] = w;
            i /= 2;
        }
    }

    fn rebuild(&mut self) {
        for i in (1..self.size).rev() {
            self.win[i] = self.better(self.win[2 * i], self.win[2 * i + 1]);
        }
    }

    #[inline]
    fn min(&self) -> (f64, usize) {
        let w = self.win[1] as usize;
        (self.key[w], w)
    }
}

/// Output arrays indexed by flow id.
pub(crate) struct Out<'a> {
    pub rate: &'a mut [f64],
    /// Fill level at which the flow froze (`rate / weight`).
    pub level: &'a mut [f64],
    pub bottleneck: &'a mut [Bottleneck],
}

#[inline]
fn key(rem: f64, w: f64, t: f64) -> f64 {
    if rem <= 0.0 {
        t
    } else {
        (rem / w).max(t)
    }
}

/// Fills the flows `set` (ids into `specs`, ascending) from level `t0`, on links whose
/// remaining capacity is `rem` (indexed by link; read and updated only on links the set
/// uses). Saturated links are left at exactly 0. Touched links end up in `s.touched`.
pub(crate) fn fill(specs: &[FlowSpec], set: &[u32], rem: &mut [f64], t0: f64, s: &mut Scratch, out: &mut Out) {
    s.ensure(rem.len(), specs.len());
    s.touched.clear();
    s.demands.clear();
    // Weighted usage and count of unfrozen flows per link.
    for &f in set {
        let spec = &specs[f as usize];
        for &(l, a) in &spec.usage {
            let li = l as usize;
            if !s.touched_flag[li] {
                s.touched_flag[li] = true;
                s.touched.push(l);
                s.wsum[li] = 0.0;
                s.active[li] = 0;
            }
            s.wsum[li] += a * spec.weight;
            s.active[li] += 1;
        }
        if spec.demand.is_finite() {
            s.demands.push(((spec.demand / spec.weight).max(t0), f));
        }
    }
    // Demand levels never change: one sorted list.
    s.demands.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    // Link-major copy of the set's usage (CSC), over touched links only.
    let mut total = 0u32;
    for &l in &s.touched {
        s.off[l as usize] = total;
        s.fill_pos[l as usize] = total;
        total += s.active[l as usize];
    }
    s.entries.clear();
    s.entries.resize(total as usize, 0);
    for &f in set {
        for &(l, _) in &specs[f as usize].usage {
            let p = &mut s.fill_pos[l as usize];
            s.entries[*p as usize] = f;
            *p += 1;
        }
    }
    let mut t = t0;
    // Keys of untouched links are infinite (reset at the end of every fill); one O(L)
    // rebuild beats a walk per touched link.
    for i in 0..s.touched.len() {
        let l = s.touched[i] as usize;
        s.tree.key[l] = key(rem[l], s.wsum[l], t);
    }
    s.tree.rebuild();
    let mut left = set.len();
    let mut next_demand = 0;
    while left > 0 {
        let (lk, l) = s.tree.min();
        let dk = s.demands.get(next_demand).map_or(f64::INFINITY, |d| d.0);
        if dk <= lk && next_demand < s.demands.len() {
            let f = s.demands[next_demand].1;
            next_demand += 1;
            if s.frozen[f as usize] {
                continue;
            }
            t = t.max(dk);
            let d = specs[f as usize].demand;
            freeze(specs, f, d, t, Bottleneck::Demand, rem, s, out);
            left -= 1;
        } else {
            if lk == f64::INFINITY {
                break;
            }
            t = t.max(lk);
            let (a, b) = (s.off[l] as usize, s.fill_pos[l] as usize);
            for e in a..b {
                let f = s.entries[e];
                if !s.frozen[f as usize] {
                    let r = specs[f as usize].weight * t;
                    freeze(specs, f, r, t, Bottleneck::Link(l as u32), rem, s, out);
                    left -= 1;
                }
            }
            rem[l] = 0.0;
        }
        // Many changed keys: rebuilding the whole tree is cheaper than one walk each.
        let rebuild = s.dirty_list.len() * 4 > s.tree.size;
        for i in 0..s.dirty_list.len() {
            let l = s.dirty_list[i] as usize;
            s.dirty[l] = false;
            let k = if s.active[l] > 0 { key(rem[l], s.wsum[l], t) } else { f64::INFINITY };
            if rebuild {
                s.tree.key[l] = k;
            } else {
                s.tree.set(l, k);
            }
        }
        if rebuild {
            s.tree.rebuild();
        }
        s.dirty_list.clear();
    }
    debug_assert_eq!(left, 0);
    for &f in set {
        s.frozen[f as usize] = false;
    }
    for &l in &s.touched {
        s.touched_flag[l as usize] = false;
        s.tree.key[l as usize] = f64::INFINITY;
    }
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn freeze(specs: &[FlowSpec], f: u32, r: f64, t: f64, b: Bottleneck, rem: &mut [f64], s: &mut Scratch, out: &mut Out) {
    let fi = f as usize;
    s.frozen[fi] = true;
    out.rate[fi] = r;
    out.level[fi] = t;
    out.bottleneck[fi] = b;
    let w = specs[fi].weight;
    for &(l, a) in &specs[fi].usage {
        let li = l as usize;
        rem[li] -= a * r;
        s.wsum[li] -= a * w;
        s.active[li] -= 1;
        if !s.dirty[li] {
            s.dirty[li] = true;
            s.dirty_list.push(l);
        }
    }
}

/// Solves a whole problem from scratch: priorities in turn, headroom, demands.
pub fn solve(p: &Problem) -> crate::Result<Allocation> {
    p.validate()?;
    let n = p.flows.len();
    let mut rate = vec![0.0; n];
    let mut level = vec![0.0; n];
    let mut bottleneck = vec![Bottleneck::Demand; n];
    let mut by_prio: Vec<(u8, u32)> = p.flows.iter().enumerate().map(|(f, s)| (s.priority, f as u32)).collect();
    by_prio.sort_unstable();
    let mut rem: Vec<f64> = p.capacity.iter().map(|c| c * (1.0 - p.headroom)).collect();
    let mut s = Scratch::default();
    let mut out = Out { rate: &mut rate, level: &mut level, bottleneck: &mut bottleneck };
    let mut i = 0;
    while i < by_prio.len() {
        let j = i + by_prio[i..].iter().take_while(|e| e.0 == by_prio[i].0).count();
        let set: Vec<u32> = by_prio[i..j].iter().map(|e| e.1).collect();
        // Each level fills on what the previous ones left in `rem`.
        fill(&p.flows, &set, &mut rem, 0.0, &mut s, &mut out);
        i = j;
    }
    Ok(Allocation { rate, bottleneck })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(usage: &[(u32, f64)]) -> FlowSpec {
        FlowSpec::new(usage.to_vec())
    }

    fn run(cap: &[f64], flows: Vec<FlowSpec>) -> Allocation {
        solve(&Problem { capacity: cap.to_vec(), headroom: 0.0, flows }).unwrap()
    }

    #[test]
    fn single_link_equal_shares() {
        let a = run(&[9.0], vec![flow(&[(0, 1.0)]), flow(&[(0, 1.0)]), flow(&[(0, 1.0)])]);
        assert_eq!(a.rate, vec![3.0, 3.0, 3.0]);
        assert!(a.bottleneck.iter().all(|&b| b == Bottleneck::Link(0)));
    }

    #[test]
    fn classic_parking_lot() {
        // Flow 0 crosses links 0 and 1; flow 1 only link 0 (cap 10); flow 2 only link 1 (cap 4).
        let a = run(&[10.0, 4.0], vec![flow(&[(0, 1.0), (1, 1.0)]), flow(&[(0, 1.0)]), flow(&[(1, 1.0)])]);
        assert_eq!(a.rate, vec![2.0, 8.0, 2.0]);
        assert_eq!(a.bottleneck, vec![Bottleneck::Link(1), Bottleneck::Link(0), Bottleneck::Link(1)]);
    }

    #[test]
    fn weights_split_proportionally() {
        let mut f = vec![flow(&[(0, 1.0)]), flow(&[(0, 1.0)])];
        f[1].weight = 3.0;
        let a = run(&[8.0], f);
        assert_eq!(a.rate, vec![2.0, 6.0]);
    }

    #[test]
    fn demand_freezes_and_frees_capacity() {
        let mut f = vec![flow(&[(0, 1.0)]), flow(&[(0, 1.0)])];
        f[0].demand = 1.0;
        let a = run(&[10.0], f);
        assert_eq!(a.rate, vec![1.0, 9.0]);
        assert_eq!(a.bottleneck, vec![Bottleneck::Demand, Bottleneck::Link(0)]);
    }

    #[test]
    fn fractions_follow_r2c2_figure_4() {
        // Flow 1 splits 1/2 on links 0 and 1; flow 2 uses link 1 fully. Both links cap 1.
        // Link 1 carries r1/2 + r2: saturates at t = 1/1.5, both get 2/3 (R2C2 Fig. 4c).
        let a = run(&[1.0, 1.0], vec![flow(&[(0, 0.5), (1, 0.5)]), flow(&[(1, 1.0)])]);
        assert!((a.rate[0] - 2.0 / 3.0).abs() < 1e-12 && (a.rate[1] - 2.0 / 3.0).abs() < 1e-12, "{:?}", a.rate);
    }

    #[test]
    fn priority_levels_take_what_is_left() {
        let mut f = vec![flow(&[(0, 1.0)]), flow(&[(0, 1.0), (1, 1.0)]), flow(&[(1, 1.0)])];
        f[0].demand = 4.0;
        f[1].priority = 1;
        f[2].priority = 1;
        let a = run(&[10.0, 20.0], f);
        // Level 0 takes 4 on link 0; level 1's flow 1 is held to the 6 left there, flow 2
        // takes the rest of link 1.
        assert_eq!(a.rate, vec![4.0, 6.0, 14.0]);
        assert_eq!(a.bottleneck, vec![Bottleneck::Demand, Bottleneck::Link(0), Bottleneck::Link(1)]);
    }

    #[test]
    fn saturated_link_leaves_nothing_to_lower_priority() {
        let mut f = vec![flow(&[(0, 1.0)]), flow(&[(0, 1.0)])];
        f[1].priority = 2;
        let a = run(&[3.0], f);
        assert_eq!(a.rate, vec![3.0, 0.0]);
    }

    #[test]
    fn headroom_is_subtracted() {
        let a = solve(&Problem { capacity: vec![10.0], headroom: 0.1, flows: vec![flow(&[(0, 1.0)])] }).unwrap();
        assert!((a.rate[0] - 9.0).abs() < 1e-12);
    }

    #[test]
    fn demand_only_flow_without_links() {
        let mut f = vec![flow(&[])];
        f[0].demand = 2.5;
        let a = run(&[1.0], f);
        assert_eq!((a.rate[0], a.bottleneck[0]), (2.5, Bottleneck::Demand));
    }
}
