//! The flows an incremental refill must redo, found by reachability in the bottleneck-flow
//! graph (HCC, section III-A: a change propagates only along links that can saturate).
//!
//! Above the divergence level `t` of a change (see [`super::incremental`]), progressive
//! filling of one priority level splits into independent parts: two flows frozen at or above
//! `t` interact only through a link they share that can saturate. In candidate mode those are
//! the candidate links (a non-candidate link the refill overloads is checked afterwards, made
//! a candidate, and its flows are reached from it). So the flows to refill are those at or
//! above `t` that candidate links connect to the links the change touches, and the changed
//! flow itself. Flows frozen below `t` keep their rates and pass nothing on: their loads are
//! fixed. Every other flow at or above `t` sits in a part the change does not touch, whose
//! filling, old and new, makes the same events: its rates stay exactly as they are.
//!
//! When flows are spread over many links (spraying on a torus) the part is usually most of
//! the level; the search then stops early, past a budget, and the caller refills every flow at
//! or above `t` as before.

/// Marks of one search, kept between the search and its extensions, cleared by [`Reach::clear`].
#[derive(Default)]
pub(crate) struct Reach {
    in_set: Vec<bool>,
    seen: Vec<bool>,
    seen_links: Vec<u32>,
    stack: Vec<u32>,
    members: Vec<u32>,
}

impl Reach {
    /// Adds to `set` the flows reached from `from` (links; non-candidate ones are skipped)
    /// through candidate links, passing only through flows whose level is at least `t`. The
    /// flows already in `set` are marked as members; `from` must hold their candidate links.
    /// `link_flows[l]`: (flow, fraction) on link `l`; `cand_usage[f]`: flow `f`'s candidate
    /// links; `is_cand[l]`. False if `set` grew past `budget` flows (the search stopped
    /// part-way; `set` is then incomplete).
    #[allow(clippy::too_many_arguments)]
    pub fn grow(&mut self, from: &[u32], t: f64, level: &[f64], link_flows: &[Vec<(u32, f64)>], cand_usage: &[Vec<(u32, f64)>], is_cand: &[bool], set: &mut Vec<u32>, budget: usize) -> bool {
        if self.in_set.len() < level.len() {
            self.in_set.resize(level.len(), false);
        }
        if self.seen.len() < is_cand.len() {
            self.seen.resize(is_cand.len(), false);
        }
        for &f in set.iter() {
            if !self.in_set[f as usize] {
                self.in_set[f as usize] = true;
                self.members.push(f);
            }
        }
        self.stack.clear();
        self.stack.extend(from.iter().copied().filter(|&l| is_cand[l as usize]));
        while let Some(l) = self.stack.pop() {
            let li = l as usize;
            if self.seen[li] {
                continue;
            }
            self.seen[li] = true;
            self.seen_links.push(l);
            for &(g, _) in &link_flows[li] {
                let gi = g as usize;
                if self.in_set[gi] || level[gi] < t {
                    continue;
                }
                self.in_set[gi] = true;
                self.members.push(g);
                set.push(g);
                if set.len() > budget {
                    return false;
                }
                self.stack.extend(cand_usage[gi].iter().map(|e| e.0).filter(|&m| !self.seen[m as usize]));
            }
        }
        true
    }

    /// Forgets every mark.
    pub fn clear(&mut self) {
        for &f in &self.members {
            self.in_set[f as usize] = false;
        }
        for &l in &self.seen_links {
            self.seen[l as usize] = false;
        }
        self.members.clear();
        self.seen_links.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_follows_candidate_links_through_flows_above_the_level() {
        // Links 0-3, all candidates but 2. Flow 0 on 0,1; flow 1 on 1 (level 0.5, below t);
        // flow 2 on 1,2 ; flow 3 on 2 only (reached only through non-candidate 2); flow 4 on 3.
        let link_flows = vec![vec![(0, 1.0)], vec![(0, 1.0), (1, 1.0), (2, 1.0)], vec![(2, 1.0), (3, 1.0)], vec![(4, 1.0)]];
        let is_cand = vec![true, true, false, true];
        let cand_usage = vec![vec![(0, 1.0), (1, 1.0)], vec![(1, 1.0)], vec![(1, 1.0)], vec![], vec![(3, 1.0)]];
        let level = vec![2.0, 0.5, 2.0, 2.0, 2.0];
        let mut r = Reach::default();
        let mut set = Vec::new();
        assert!(r.grow(&[0], 1.0, &level, &link_flows, &cand_usage, &is_cand, &mut set, 10));
        set.sort_unstable();
        assert_eq!(set, vec![0, 2]);
        // Link 2 made a candidate: growing from it reaches flow 3, not 4.
        let is_cand = vec![true; 4];
        let mut cand_usage = cand_usage;
        cand_usage[2].push((2, 1.0));
        cand_usage[3].push((2, 1.0));
        assert!(r.grow(&[2], 1.0, &level, &link_flows, &cand_usage, &is_cand, &mut set, 10));
        set.sort_unstable();
        assert_eq!(set, vec![0, 2, 3]);
        r.clear();
        let mut again = Vec::new();
        assert!(!r.grow(&[1], 0.0, &level, &link_flows, &cand_usage, &is_cand, &mut again, 2), "past the budget");
        r.clear();
        assert!(r.in_set.iter().all(|&x| !x) && r.seen.iter().all(|&x| !x));
    }
}
