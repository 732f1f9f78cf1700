//! Level-ordered refill of the incremental allocator: after a change, one progressive
//! filling that moves only the flows whose part of the old filling stops holding.
//!
//! Progressive filling (R2C2 section 3.3.1) raises a common level `t`; every flow runs at
//! `w t` until a link on its path saturates or its demand is reached. The old allocation is
//! a record of that filling: flow `g` rose to its level `t_g`, then froze at rate `r_g`,
//! stopped by its bottleneck. After a change the new filling is followed in level order,
//! taking every flow outside the set A of moved flows to repeat its old course, and a flow
//! joins A at the level where that assumption fails on one of its links:
//!
//! - a link saturates at level `t` while a flow outside A on it had risen past `t`: the flow
//!   joins A and freezes there;
//! - a flow outside A froze on link `l` at `t_g`, but `l` is not saturated at `t_g` now: the
//!   flow joins A still rising.
//!
//! Only links that carry a flow of A (or whose load or capacity the change itself moved)
//! can behave differently from the old filling: on any other link every flow repeats its
//! course, so the link saturates when it did. On those links the load from level `t` on is
//! piecewise linear, `sum a * min(r, w t)` over the flows outside A (their old course), plus
//! the frozen flows of A, plus `a * min(d, w t)` for the rising ones (`d` the demand); the
//! first level where it reaches capacity, or where a flow outside A froze on it, is the
//! link's next event. Events come from a heap in level order. A flow that starts rising can
//! bring its links' events forward, so they are recomputed at once; a flow that freezes only
//! lowers its links' loads from then on, so their entries stay (early) in the heap and are
//! recomputed when they reach the top (unless none of the link's flows froze since its
//! entry was read from them: then it fires at once). Most links are far from full (three in
//! four of those an update watches on the fluid bench's fat-tree): on such a roomy link no
//! flow froze, and its old load bounds what the flows outside A add, so its entry is first a
//! lower bound of its event kept from two sums without reading its flows ([`Mark::bound`]); its
//! flows are read only once that bound reaches the top. Such a bound is held out of the heap
//! while it is above the heap's top (most never get there), and once no flow rises the
//! bounds and entries only rising flows could bring about go in one pass. A flow joins A at
//! most once and freezes at most once, so the filling ends; when it does, every flow of A
//! has its new rate and every other flow's old course still holds, so the result is the
//! max-min allocation (a fill from scratch gives the same rates up to rounding; the tests
//! check 1e-9). Moving a flow that would not have moved only costs work, so ties are
//! resolved towards moving.
//!
//! This is HCC's incremental algorithm (section III-A) as a partial water-fill: its work
//! goes with the moved flows' links, not with all the flows above the first level the change
//! reaches. On the fluid bench's k=8 fat-tree an update moves ~15 flows and reads a link's
//! flows ~19 times. Where a change moves a large share of all rates (flows sprayed over a
//! torus move about half of them on an arrival), the work passes a budget (the live
//! entries, or half what that fallback has cost on average if less); the update then falls
//! back to the refill from the divergence level ([`super`]) from the unchanged state, and
//! after several such updates in a row this refill pauses for a growing number of updates.
//! Single priority level only.

use super::Allocator;
use crate::alloc::candidates::{Candidates, SATURATED};
use crate::alloc::problem::Bottleneck;
use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;

/// Relative margin within which two levels count as one (a tie that rounding split): a link
/// that fills within it of the current level is full, and a flow whose level passes a full
/// link's by no more is not frozen there anew.
const EPS: f64 = 1e-12;

/// A link whose old load (an upper bound of it) is more than this fraction of its capacity
/// below it is roomy: no flow froze on it, and its next event is first bounded from below
/// without reading its flows ([`Mark::bound`]). Every flow's bottleneck is saturated to
/// within rounding, far inside this margin.
const ROOMY: f64 = 1e-6;

/// Work budget (entries read) of an update beyond the live (link, flow) entries and the links.
const BUDGET_FLOOR: usize = 512;

/// The budget is at most this many times what the refill from the divergence level has cost
/// on average (in entries read), once measured: where a change spreads far, giving up early
/// costs less.
const FALLBACK_FACTOR: f64 = 0.5;

/// Weight of a new sample in the running mean of the fallback's cost.
const MEAN_WEIGHT: f64 = 1.0 / 16.0;

/// Longest pause (in updates) after giving up on several updates in a row.
const MAX_BACKOFF: u32 = 256;

/// A flow outside A (following its old course).
const OLD: u8 = 0;
/// A flow of A still rising.
const RISING: u8 = 1;
/// A flow of A at its new rate.
const SETTLED: u8 = 2;

/// The id of link `l`'s event is `LINK | l`, above every flow's (a flow's demand event has
/// the flow's id), so that at one level a flow reaches its demand before a link stops it, as
/// in [`crate::alloc::waterfill`].
const LINK: u32 = 1 << 31;

/// A heap entry; the integer order is (level, id, version). Levels are >= 0, and their bits
/// order as the numbers do.
fn event(level: f64, id: u32, version: u32) -> u128 {
    ((level.to_bits() as u128) << 64) | ((id as u128) << 32) | version as u128
}

/// Work arrays (reset between updates) and the give-up state of the level-ordered refill.
#[derive(Default)]
pub(super) struct Ordered {
    /// Flow -> [`OLD`], [`RISING`] or [`SETTLED`].
    state: Vec<u8>,
    /// Link -> what the updates keep of it ([`Mark`]).
    mark: Vec<Mark>,
    update: u32,
    event: u32,
    /// Events: link events and demand events ([`event`]).
    heap: BinaryHeap<Reverse<u128>>,
    /// Flows of A still rising, and whether the last of them froze since the heap was last
    /// cleared of what only rising flows can bring about ([`Ordered::drop_idle`]), and how
    /// many entries that left.
    rising: u32,
    all_froze: bool,
    kept: usize,
    /// Roomy links' bounds above the level they were made at, held out of the heap while
    /// they are above its top ([`Ordered::release`]); `deferred_min`, the least of them
    /// (meaningless when there are none). Most never reach the top before every rising flow
    /// froze, and then they go without having been sifted through the heap.
    deferred: Vec<u128>,
    deferred_min: u128,
    /// Links to recompute after the current event, and the links watched in this update.
    dirty: Vec<u32>,
    links: Vec<u32>,
    /// Flows of A, with their old (rate, level, bottleneck) to restore on giving up.
    moved: Vec<u32>,
    saved: Vec<(f64, f64, Bottleneck)>,
    /// Points (level, a r, a w) of a link's load, for [`super::crossing`].
    pts: Vec<(f64, f64, f64)>,
    /// The level's base and used (the old loads, exact or upper bounds) during an update.
    base: Vec<f64>,
    used: Vec<f64>,
    /// Links to make candidates after an update (a buffer kept between updates).
    full: Vec<u32>,
    /// (link, flow) entries of the live flows, which with the links set the work budget.
    pub entries: usize,
    /// A fixed work budget in place of the one from `entries` (tests).
    pub budget: Option<usize>,
    /// Updates this refill still sits out, and how many updates in a row it gave up on: a
    /// streak of n pauses it 2^(n-1) - 1 updates (0, 1, 3, 7, ... up to [`MAX_BACKOFF`]);
    /// resolving an update ends the streak.
    skip: u32,
    streak: u32,
    /// Updates it resolved and gave up on (for tests and benchmarks).
    pub resolved: u64,
    pub gave_up: u64,
    /// Running mean of what the refill from the divergence level read (`None` before one).
    fallback_cost: Option<f64>,
}

impl Ordered {
    /// Whether this update tries the level-ordered refill (false during a pause).
    pub fn try_now(&mut self) -> bool {
        if self.skip > 0 {
            self.skip -= 1;
            return false;
        }
        true
    }

    /// Notes the work (entries read) of a refill from the divergence level.
    pub fn fallback_done(&mut self, work: usize) {
        let w = work as f64;
        self.fallback_cost = Some(self.fallback_cost.map_or(w, |m| m + MEAN_WEIGHT * (w - m)));
    }

    /// The work budget of an update: the live entries plus the links plus a floor, or less
    /// where the fallback has cost less.
    fn budget(&self, links: usize) -> usize {
        let whole = self.entries + links + BUDGET_FLOOR;
        let cut =
            self.fallback_cost.map_or(whole, |c| (FALLBACK_FACTOR * c) as usize + BUDGET_FLOOR);
        self.budget.unwrap_or(whole.min(cut))
    }

    fn outcome(&mut self, resolved: bool) {
        if resolved {
            self.resolved += 1;
            self.streak = 0;
        } else {
            self.gave_up += 1;
            self.streak += 1;
            self.skip = ((1u64 << (self.streak - 1).min(31)) - 1).min(MAX_BACKOFF as u64) as u32;
        }
    }

    /// A new update over `links` links; after 2^32 updates the marks start again from zero.
    fn start(&mut self, flows: usize, links: usize) {
        self.state.resize(flows, OLD);
        self.mark.resize(links, Mark::default());
        self.update = self.update.wrapping_add(1);
        if self.update == 0 {
            self.mark.iter_mut().for_each(|m| (m.watched, m.sat_current) = (0, 0));
            self.update = 1;
        }
        self.next_event();
    }

    /// A new event; after 2^32 events the marks start again from zero.
    fn next_event(&mut self) {
        self.event = self.event.wrapping_add(1);
        if self.event == 0 {
            self.mark.iter_mut().for_each(|m| m.marked = 0);
            self.event = 1;
        }
    }

    /// Watches link `l` from now on in this update; true if it was not watched yet. `cand`
    /// tells what unaccounted rises may add to its load ([`Candidates::lag_load`]).
    fn watch(&mut self, l: u32, cand: &Candidates) -> bool {
        let li = l as usize;
        let m = &mut self.mark[li];
        let first = m.watched != self.update;
        if first {
            m.watched = self.update;
            self.links.push(l);
            let room = self.base[li] - self.used[li] - cand.lag_load(li);
            m.roomy = room > ROOMY * self.base[li];
            // Taken a little short, so that the bound's rounding cannot pass the real level.
            m.room = room - SATURATED * self.base[li];
            m.rising_w = 0.0;
        }
        first
    }

    /// Once no flow of A rises, a roomy link with room left cannot fill (what the flows
    /// outside A add stays within its old load) and no flow reaches a demand: their entries
    /// go, in one pass instead of a pop each. A flow that starts rising later marks its links
    /// again.
    fn drop_idle(&mut self) {
        let mark = &self.mark;
        self.heap.retain(|&Reverse(e)| {
            let id = (e >> 32) as u32;
            let l = (id & !LINK) as usize;
            id & LINK != 0 && !mark[l].idle()
        });
        self.all_froze = false;
        self.kept = self.heap.len();
    }

    /// Holds event `e`, a roomy link's bound above the current level, out of the heap.
    fn defer(&mut self, e: u128) {
        self.deferred_min = if self.deferred.is_empty() { e } else { self.deferred_min.min(e) };
        self.deferred.push(e);
    }

    /// Whether a held-out bound may come before the heap's top: then they go into the heap.
    fn deferred_due(&self) -> bool {
        !self.deferred.is_empty()
            && self.deferred_min <= self.heap.peek().map_or(u128::MAX, |e| e.0)
    }

    /// Puts the held-out bounds into the heap, but not the stale ones (a later entry of the
    /// same link replaced them) and, when `idle` (no flow of A rises), not those that
    /// [`Ordered::drop_idle`] drops. The heap's top is then the first event of all: while
    /// every held-out bound is above it, popping it is what the heap holding them all would
    /// do; and a stale or idle entry at the top is passed over without effect.
    fn release(&mut self, idle: bool) {
        for &e in &self.deferred {
            let l = ((e >> 32) as u32 & !LINK) as usize;
            let stale = e as u32 != self.mark[l].version;
            let dropped = idle && self.mark[l].idle();
            if !(stale || dropped) {
                self.heap.push(Reverse(e));
            }
        }
        self.deferred.clear();
    }

    /// Has link `l`'s next event recomputed after the current event (and watches it).
    fn mark(&mut self, l: u32, cand: &Candidates) {
        self.watch(l, cand);
        let li = l as usize;
        if self.mark[li].marked != self.event {
            self.mark[li].marked = self.event;
            self.dirty.push(l);
        }
    }
}

/// What an update keeps of a link, in one record: a link's first watch in an update reads
/// one or two cache lines, not one per field (the fluid bench's k=16 fat-tree has ~6,000
/// links, so the update's links are rarely in the first-level cache).
#[derive(Clone, Copy, Default)]
struct Mark {
    /// Its saturation level as last read from its flows, and the update in which that still
    /// holds (no flow of it froze since, and its live entry was made from it).
    sat: f64,
    sat_current: u32,
    /// The version of its live heap entry; entries of older versions are stale.
    version: u32,
    /// The update that watches it, and the event that last marked it for a recompute.
    watched: u32,
    marked: u32,
    /// Whether it is roomy ([`ROOMY`]) and, if so, its room: capacity minus its old load's
    /// bound minus what the flows of A added to it (a rising flow counted at no rate), and
    /// the sum of `a w` over its rising flows. Set when the link is first watched in an
    /// update.
    roomy: bool,
    room: f64,
    rising_w: f64,
}

impl Mark {
    /// A lower bound of a roomy link's saturation level from level `t` on (at most `t`: it
    /// may fill now). The old load bounds what the flows outside A add, and a rising flow
    /// adds at most `a w` per level over its old rate.
    fn bound(&self, t: f64) -> f64 {
        let (room, w) = (self.room, self.rising_w);
        if room <= 0.0 {
            t
        } else if w > 0.0 {
            (room / w).max(t)
        } else {
            f64::INFINITY
        }
    }

    /// A roomy link with room left: once no flow of A rises it cannot fill, and its entries
    /// go ([`Ordered::drop_idle`], [`Ordered::release`]).
    fn idle(&self) -> bool {
        self.roomy && self.room > 0.0
    }

    /// A flow's entry on the link adds `more` to its load and `aw` to its rising weight.
    fn add(&mut self, more: f64, aw: f64) {
        self.room -= more;
        self.rising_w += aw;
    }
}

impl Allocator {
    /// Redoes the single priority level `p` after a change by the level-ordered refill:
    /// `first` is the flow added or whose demand changed, `links` those whose capacity
    /// changed, `removed` the departed flow's usage and rate (its links' loads changed
    /// without that flow on them). Returns false, with every rate as it was, once it has
    /// read more (link, flow) entries than its budget.
    pub(super) fn ordered_refill(
        &mut self,
        p: u8,
        first: Option<u32>,
        links: &[u32],
        removed: Option<(&[(u32, f64)], f64)>,
    ) -> bool {
        let nl = self.capacity.len();
        let mut o = std::mem::take(&mut self.ordered);
        o.start(self.specs.len(), nl);
        let lv = self.levels.get_mut(&p).expect("the level");
        (o.base, o.used) = (std::mem::take(&mut lv.base), std::mem::take(&mut lv.used));
        let mut budget = o.budget(nl);
        if let Some(f) = first {
            self.join(&mut o, f);
            self.rise(&mut o, f, 0.0);
        }
        for l in
            links.iter().copied().chain(removed.iter().flat_map(|(u, _)| u.iter().map(|e| e.0)))
        {
            // A capacity changed here, or a flow left: flows frozen on it may rise.
            o.mark(l, &self.cand);
            o.mark[l as usize].roomy = false;
        }
        let mut t: f64 = 0.0;
        let resolved = loop {
            // Recompute the links the last event may have brought forward.
            for k in 0..o.dirty.len() {
                let l = o.dirty[k];
                let li = l as usize;
                let m = &mut o.mark[li];
                m.version = m.version.wrapping_add(1);
                if m.roomy {
                    // Charged as a reading of its entries: the budget keeps its meaning.
                    budget = budget.saturating_sub(self.link_flows[li].len());
                    m.sat_current = 0;
                    let e = m.bound(t);
                    if e.is_finite() {
                        let entry = event(e, LINK | l, m.version);
                        if e > t {
                            o.defer(entry);
                        } else {
                            o.heap.push(Reverse(entry));
                        }
                    }
                } else {
                    let (sat, e) =
                        self.link_event(&o.state, &mut o.pts, &o.base, l, t, &mut budget);
                    let m = &mut o.mark[li];
                    (m.sat, m.sat_current) = (sat, o.update);
                    if e.is_finite() {
                        o.heap.push(Reverse(event(e, LINK | l, m.version)));
                    }
                }
            }
            o.dirty.clear();
            if budget == 0 {
                break false;
            }
            if o.rising == 0 && !o.deferred.is_empty() {
                o.release(true);
            } else if o.deferred_due() {
                o.release(false);
            }
            // At least half the heap new since the last such pass, so that the passes cost
            // no more than twice the entries pushed.
            if o.all_froze && o.rising == 0 && o.heap.len() >= 2 * o.kept {
                o.drop_idle();
            }
            let Some(mut top_entry) = o.heap.peek_mut() else { break true };
            let top = top_entry.0;
            t = t.max(f64::from_bits((top >> 64) as u64));
            let id = (top >> 32) as u32;
            let l = id & !LINK;
            let version = top as u32;
            if id & LINK != 0 && version == o.mark[l as usize].version {
                let li = l as usize;
                if o.mark[li].sat_current == o.update {
                    // Read from its flows, and nothing on it changed since: it is due.
                    PeekMut::pop(top_entry);
                    o.next_event();
                    let saturated = o.mark[li].sat <= t * (1.0 + EPS);
                    self.link_fires(&mut o, l, t, saturated);
                    continue;
                }
                // The event may have moved later since the entry was made. On a roomy link
                // its bound is looked at first.
                let m = &mut o.mark[li];
                let b = if m.roomy { m.bound(t) } else { t };
                let (sat, e) = if b > t {
                    m.sat_current = 0;
                    (b, b)
                } else {
                    let (sat, e) =
                        self.link_event(&o.state, &mut o.pts, &o.base, l, t, &mut budget);
                    (m.sat, m.sat_current) = (sat, o.update);
                    (sat, e)
                };
                if e > t {
                    if e.is_finite() {
                        // In place of the top: one sift down.
                        top_entry.0 = event(e, id, version);
                    } else {
                        PeekMut::pop(top_entry);
                    }
                    continue;
                }
                PeekMut::pop(top_entry);
                o.next_event();
                self.link_fires(&mut o, l, t, sat <= t * (1.0 + EPS));
                continue;
            }
            PeekMut::pop(top_entry);
            if id & LINK == 0 {
                // A rising flow reaches its demand (its load `a min(d, w t)` stays the same).
                if o.state[id as usize] == RISING {
                    o.next_event();
                    let d = self.specs[id as usize].demand;
                    self.settle(&mut o, id, d, t, Bottleneck::Demand);
                }
            }
        };
        for (&g, &old) in o.moved.iter().zip(&o.saved) {
            let gi = g as usize;
            o.state[gi] = OLD;
            if !resolved {
                (self.rate[gi], self.level[gi], self.bottleneck[gi]) = old;
            }
        }
        o.heap.clear();
        o.deferred.clear();
        (o.rising, o.all_froze, o.kept) = (0, false, 0);
        o.outcome(resolved);
        let lv = self.levels.get_mut(&p).expect("the level");
        (lv.base, lv.used) = (std::mem::take(&mut o.base), std::mem::take(&mut o.used));
        if resolved {
            self.settle_loads(p, &o.moved, &o.saved, &o.links, removed, &mut o.full);
        }
        o.saved.clear();
        o.moved.clear();
        o.links.clear();
        self.ordered = o;
        resolved
    }

    /// Puts flow `g` in A, keeping its old course to restore on giving up.
    fn join(&mut self, o: &mut Ordered, g: u32) {
        let gi = g as usize;
        o.moved.push(g);
        o.saved.push((self.rate[gi], self.level[gi], self.bottleneck[gi]));
    }

    /// Flow `g` of A rises from level `t`: its demand is an event, its links are recomputed.
    fn rise(&mut self, o: &mut Ordered, g: u32, t: f64) {
        let gi = g as usize;
        o.state[gi] = RISING;
        o.rising += 1;
        let sp = &self.specs[gi];
        if sp.demand.is_finite() {
            let d = (sp.demand / sp.weight).max(t);
            o.heap.push(Reverse(event(d, g, 0)));
        }
        let r = self.rate[gi];
        for &(l, a) in &sp.usage {
            let li = l as usize;
            o.mark(l, &self.cand);
            // Its old rate goes back to the room; from here it adds `a w` per level.
            o.mark[li].add(-a * r, a * sp.weight);
        }
    }

    /// Gives flow `g` of A its new rate `r` at level `t`, stopped by `b`. Its links' loads
    /// from `t` on only fall, which can only delay their events: a watched link's entry stays
    /// in the heap. On a link met for the first time every other flow is outside A, so with
    /// less load the link fills no earlier than it did; its only event is where flows outside
    /// A froze on it, if that is still to come.
    fn settle(&mut self, o: &mut Ordered, g: u32, r: f64, t: f64, b: Bottleneck) {
        let gi = g as usize;
        let rising = o.state[gi] == RISING;
        if rising {
            o.rising -= 1;
            o.all_froze = o.rising == 0;
        }
        // What the flow adds to its links' loads over what the room counts it at.
        let (w, more) = if rising { (self.specs[gi].weight, r) } else { (0.0, r - self.rate[gi]) };
        o.state[gi] = SETTLED;
        (self.rate[gi], self.level[gi], self.bottleneck[gi]) = (r, t, b);
        for &(l, a) in &self.specs[gi].usage {
            let li = l as usize;
            o.mark[li].sat_current = 0;
            // A rising flow's links are watched since it rose.
            let first = !rising && o.watch(l, &self.cand);
            o.mark[li].add(a * more, -a * w);
            // No flow froze on a roomy link.
            if first && !o.mark[li].roomy {
                // The least level from `t` on at which a flow outside A froze on it; without a
                // branch per flow, as which flows did is as good as random.
                let mut verify = f64::INFINITY;
                for &(h, _) in &self.link_flows[li] {
                    let v = self.level[h as usize];
                    verify = pick(
                        self.froze_outside_a(o.state[h as usize], h as usize, l) & (v >= t),
                        verify.min(v),
                        verify,
                    );
                }
                if verify.is_finite() {
                    o.heap.push(Reverse(event(verify, LINK | l, o.mark[li].version)));
                }
            }
        }
    }

    /// Link `l`'s saturation level from level `t` on, under its flows' current courses (at
    /// most `t` if it is full already, infinity if it never fills), and its next event: that
    /// level, or the lowest level from `t` on at which a flow outside A froze on it if lower,
    /// and no lower than `t`. The entries read come off `budget`.
    fn link_event(
        &self,
        state: &[u8],
        pts: &mut Vec<(f64, f64, f64)>,
        base: &[f64],
        l: u32,
        t: f64,
        budget: &mut usize,
    ) -> (f64, f64) {
        let li = l as usize;
        let mut left = base[li];
        let mut verify = f64::INFINITY;
        let on = &self.link_flows[li];
        // What a flow adds (to the load left below `t`, to the points past it, to the least
        // level a flow outside A froze at) is chosen without a branch: a flow's state, and
        // whether its load still rises past `t`, are as good as random along the link's
        // entries. A flow left out subtracts 0, which leaves `left` as it was. (The top of a
        // rising flow still branches: the compiler divides only where it is needed.) `pts`
        // only grows: its first `n` hold the points.
        if pts.len() < on.len() {
            pts.resize(on.len(), (0.0, 0.0, 0.0));
        }
        let mut n = 0;
        for &(g, a) in on {
            let gi = g as usize;
            let state = state[gi];
            let sp = &self.specs[gi];
            // Where the flow's load stops rising, and at what rate; a settled flow's load
            // is its rate's.
            let rising = state == RISING;
            let top = pick(
                state == SETTLED,
                f64::NEG_INFINITY,
                pick(rising, sp.demand / sp.weight, self.level[gi]),
            );
            let ar = a * pick(rising, sp.demand, self.rate[gi]);
            let below = top <= t;
            left -= pick(below, ar, 0.0);
            pts[n] = (top, ar, a * sp.weight);
            n += !below as usize;
            verify = pick(self.froze_outside_a(state, gi, l) & (top >= t), verify.min(top), verify);
        }
        let sat = if n > 0 {
            super::crossing(&mut pts[..n], left)
        } else if left <= 0.0 {
            t
        } else {
            f64::INFINITY
        };
        *budget = budget.saturating_sub(on.len());
        (sat, sat.min(verify).max(t))
    }

    /// Whether flow `g`, in `state`, is outside A and froze on link `l` in the old filling;
    /// written with `&` so that the scans over a link's flows do not branch on it.
    #[inline(always)]
    fn froze_outside_a(&self, state: u8, g: usize, l: u32) -> bool {
        (state == OLD) & (self.bottleneck[g] == Bottleneck::Link(l))
    }

    /// Link `l`'s event at level `t`. If it is `saturated`, its rising flows freeze on it,
    /// and so do the flows outside A that had risen past `t` (they join A). Otherwise the
    /// flows outside A that froze on it at `t` join A, rising.
    fn link_fires(&mut self, o: &mut Ordered, l: u32, t: f64, saturated: bool) {
        let li = l as usize;
        for k in 0..self.link_flows[li].len() {
            let g = self.link_flows[li][k].0;
            let gi = g as usize;
            let w = self.specs[gi].weight;
            match o.state[gi] {
                RISING if saturated => self.settle(o, g, w * t, t, Bottleneck::Link(l)),
                OLD if saturated && self.level[gi] > t * (1.0 + EPS) => {
                    self.join(o, g);
                    self.settle(o, g, w * t, t, Bottleneck::Link(l));
                }
                OLD if !saturated
                    && self.bottleneck[gi] == Bottleneck::Link(l)
                    && self.level[gi] <= t * (1.0 + EPS) =>
                {
                    self.join(o, g);
                    self.rise(o, g, t);
                }
                _ => {}
            }
        }
    }

    /// After a resolved update that moved the flows `moved` (from the old courses `saved`),
    /// watched the links `links` and removed the flow `removed` (usage, rate): the loads and
    /// the candidates. Each moved flow's change goes to its links' loads, which stay exact on
    /// candidate links (to rounding; a solve from scratch every [`REBUILD_EVERY`] updates
    /// clears it) and upper bounds elsewhere: a non-candidate link counts a flow at its
    /// accounted rate, which becomes its new rate. As after the refill from the divergence
    /// level, no link outside the candidates is left saturated: a link a moved flow froze
    /// on, or one the change filled up, becomes a candidate; so does one too near capacity
    /// for the lag of the candidates' check.
    ///
    /// [`REBUILD_EVERY`]: crate::alloc::candidates::REBUILD_EVERY
    fn settle_loads(
        &mut self,
        p: u8,
        moved: &[u32],
        saved: &[(f64, f64, Bottleneck)],
        links: &[u32],
        removed: Option<(&[(u32, f64)], f64)>,
        full: &mut Vec<u32>,
    ) {
        let lv = self.levels.get_mut(&p).expect("the level");
        let cand = &mut self.cand;
        for (&g, &(old, _, _)) in moved.iter().zip(saved) {
            let gi = g as usize;
            let r = self.rate[gi];
            let counted =
                if cand.all { old } else { std::mem::replace(&mut cand.accounted[gi], r) };
            for &(l, a) in &self.specs[gi].usage {
                let li = l as usize;
                lv.used[li] += a * (r - pick(cand.is[li], old, counted));
            }
        }
        if let Some((usage, r)) = removed {
            // Its non-candidate links no longer count it since `remove_flow`.
            for &(l, a) in usage {
                if cand.is[l as usize] {
                    lv.used[l as usize] -= a * r;
                }
            }
        }
        // Which links are near capacity is as good as random.
        super::select_into(full, links, |l| {
            lv.used[l as usize] + cand.lag_load(l as usize)
                >= lv.base[l as usize] * (1.0 - SATURATED)
        });
        full.extend(moved.iter().filter_map(|&g| match self.bottleneck[g as usize] {
            Bottleneck::Link(l) => Some(l),
            Bottleneck::Demand => None,
        }));
        for &l in full.iter() {
            self.promote(l, p, 0.0);
        }
        if self.tracking && !self.refilled_all {
            self.refilled.extend_from_slice(moved);
        }
    }
}

/// `if c { yes } else { no }` as a select on the bits, which the compiler keeps as a
/// conditional move, for conditions as good as random (a link being a candidate along a
/// flow's path, say), where a branch is mispredicted about half the time. Written as an
/// `if`, the baseline x86-64 build branches (an AVX-512 build gets a masked move). With a
/// division as an operand the compiler still branches, to divide only when needed.
#[inline(always)]
fn pick(c: bool, yes: f64, no: f64) -> f64 {
    let keep_yes = (c as u64).wrapping_neg();
    f64::from_bits((yes.to_bits() & keep_yes) | (no.to_bits() & !keep_yes))
}

/// The load of a link's `(flow, fraction)` entries at the flows' `rate`s.
pub(super) fn load_at(on: &[(u32, f64)], rate: &[f64]) -> f64 {
    on.iter().map(|&(g, a)| a * rate[g as usize]).sum()
}

#[cfg(test)]
mod tests {
    use crate::alloc::{Allocator, Bottleneck, Problem, ProblemFlow};

    /// A chain of links 0..n of capacity 10, flow i on links i and i+1, and a flow alone on
    /// each link.
    fn chain(n: u32) -> Allocator {
        let mut flows: Vec<ProblemFlow> =
            (0..n - 1).map(|i| ProblemFlow::new(vec![(i, 1.0), (i + 1, 1.0)])).collect();
        flows.extend((0..n).map(|l| ProblemFlow::new(vec![(l, 1.0)])));
        Allocator::new(Problem { capacity: vec![10.0; n as usize], headroom: 0.0, flows }).unwrap()
    }

    fn assert_exact(al: &Allocator) {
        super::super::tests::assert_matches_a_solve_from_scratch(al, "after the update");
    }

    #[test]
    fn an_arrival_on_an_idle_link_moves_only_itself() {
        // Two links; flows 0 and 1 share link 0, link 1 is idle. A flow on link 1 alone
        // changes no other rate: A is that flow.
        let mut al = Allocator::new(Problem {
            capacity: vec![10.0, 10.0],
            headroom: 0.0,
            flows: vec![ProblemFlow::new(vec![(0, 1.0)]); 2],
        })
        .unwrap();
        al.take_refilled();
        let f = al.add_flow(ProblemFlow::new(vec![(1, 1.0)])).unwrap();
        assert_eq!((al.ordered.resolved, al.ordered.gave_up), (1, 0));
        assert_eq!(al.take_refilled(), Some(vec![f]));
        assert_eq!((al.rate(f), al.bottleneck(f)), (Some(10.0), Some(Bottleneck::Link(1))));
        assert_eq!(al.rate(0), Some(5.0));
    }

    #[test]
    fn pick_gives_the_chosen_value_bit_for_bit() {
        use super::pick;
        for (yes, no) in
            [(1.5, -2.0), (-0.0, 0.0), (f64::INFINITY, f64::NEG_INFINITY), (f64::NAN, 5e-324)]
        {
            assert_eq!(pick(true, yes, no).to_bits(), yes.to_bits());
            assert_eq!(pick(false, yes, no).to_bits(), no.to_bits());
        }
    }

    #[test]
    fn a_flow_above_a_new_saturation_freezes_there_and_frees_capacity_downstream() {
        // Link 0 (capacity 10) carries flow 0 alone, which also crosses link 1 (capacity 12)
        // with flow 1: 0 and 1 get 6 each on link 1. A flow on link 0 halves flow 0's share
        // there (5, frozen anew on link 0), and flow 1 rises to the 7 that leaves on link 1.
        let flows =
            vec![ProblemFlow::new(vec![(0, 1.0), (1, 1.0)]), ProblemFlow::new(vec![(1, 1.0)])];
        let mut al =
            Allocator::new(Problem { capacity: vec![10.0, 12.0], headroom: 0.0, flows }).unwrap();
        assert_eq!(al.allocation().rate, vec![6.0, 6.0]);
        al.take_refilled();
        let f = al.add_flow(ProblemFlow::new(vec![(0, 1.0)])).unwrap();
        assert_eq!(al.ordered.resolved, 1);
        assert_eq!((al.rate(0), al.bottleneck(0)), (Some(5.0), Some(Bottleneck::Link(0))));
        assert_eq!((al.rate(1), al.bottleneck(1)), (Some(7.0), Some(Bottleneck::Link(1))));
        assert_eq!(al.rate(f), Some(5.0));
        let mut moved = al.take_refilled().unwrap();
        moved.sort_unstable();
        assert_eq!(moved, vec![0, 1, f]);
    }

    #[test]
    fn a_flow_frozen_on_a_link_that_no_longer_fills_rises_to_its_next_bottleneck() {
        // Flows 0 and 1 share link 0 (capacity 10); flow 1 also crosses link 1 (capacity
        // 8). When flow 0 leaves, link 0 no longer fills at level 5: flow 1 rises until
        // link 1 stops it at 8.
        let flows =
            vec![ProblemFlow::new(vec![(0, 1.0)]), ProblemFlow::new(vec![(0, 1.0), (1, 1.0)])];
        let mut al =
            Allocator::new(Problem { capacity: vec![10.0, 8.0], headroom: 0.0, flows }).unwrap();
        assert_eq!(al.bottleneck(1), Some(Bottleneck::Link(0)));
        al.remove_flow(0).unwrap();
        assert_eq!(al.ordered.resolved, 1);
        assert_eq!((al.rate(1), al.bottleneck(1)), (Some(8.0), Some(Bottleneck::Link(1))));
        // With a demand of 3 it stops at its demand instead.
        al.set_demand(1, 3.0).unwrap();
        assert_eq!((al.rate(1), al.bottleneck(1)), (Some(3.0), Some(Bottleneck::Demand)));
        assert_eq!(al.ordered.resolved, 2);
    }

    #[test]
    fn a_change_reaches_along_bottlenecks_and_stops_where_rates_do_not_move() {
        // On link 2 of a chain, a new flow takes a share from the flows frozen there, which
        // frees capacity next door, and so on: A grows along the chain, stays exact, and
        // leaves out the flows the change does not reach.
        let mut al = chain(12);
        al.take_refilled();
        let f = al.add_flow(ProblemFlow::new(vec![(2, 1.0)])).unwrap();
        assert_eq!((al.ordered.resolved, al.ordered.gave_up), (1, 0));
        assert_exact(&al);
        let refilled = al.take_refilled().unwrap();
        assert!(refilled.contains(&f) && refilled.len() < al.flow_ids().len(), "{refilled:?}");
        // The departure undoes it, in the same way.
        al.remove_flow(f).unwrap();
        assert_eq!(al.ordered.resolved, 2);
        assert_exact(&al);
        // A capacity cut, and back.
        al.set_capacity(5, 2.0).unwrap();
        assert_exact(&al);
        al.set_capacity(5, 10.0).unwrap();
        assert_exact(&al);
        assert_eq!(al.ordered.resolved, 4);
    }

    #[test]
    fn a_roomy_links_bound_is_its_room_over_the_rising_weight() {
        let roomy = |room| super::Mark { roomy: true, room, ..Default::default() };
        let (mut r, full) = (roomy(3.0), roomy(0.0));
        // No flow rising: it never fills.
        assert_eq!(r.bound(1.0), f64::INFINITY);
        // Two flows start rising (a w = 1 and 0.5), from old loads a r of 1 each: those go
        // back to the room, which then lasts (3 + 1 + 1) / 1.5 levels.
        r.add(-1.0, 1.0);
        r.add(-1.0, 0.5);
        assert_eq!(r.bound(1.0), 5.0 / 1.5);
        // Never below the current level; no room left: it may fill now.
        assert_eq!(r.bound(4.0), 4.0);
        assert_eq!(full.bound(2.0), 2.0);
        // The first flow (a = 1) settles at rate 3: it takes 3 of the room and stops rising.
        r.add(3.0, -1.0);
        assert_eq!(r.bound(1.0), 2.0 / 0.5);
    }

    #[test]
    fn once_no_flow_rises_roomy_links_with_room_and_demands_leave_the_heap() {
        use super::{event, Mark, Ordered, LINK};
        use std::cmp::Reverse;
        // Links 0 and 1 roomy (1 with no room left), link 2 not; a demand event of flow 7.
        let mark = [(true, 2.0), (true, -1e-9), (false, 0.0)].map(|(roomy, room)| Mark {
            roomy,
            room,
            ..Default::default()
        });
        let mut o = Ordered { mark: mark.to_vec(), ..Default::default() };
        for e in [
            event(1.0, LINK, 0),
            event(2.0, LINK | 1, 0),
            event(3.0, LINK | 2, 0),
            event(4.0, 7, 0),
        ] {
            o.heap.push(Reverse(e));
        }
        o.all_froze = true;
        o.drop_idle();
        let mut left: Vec<u32> =
            o.heap.into_sorted_vec().iter().map(|e| ((e.0 >> 32) as u32) & !LINK).collect();
        left.sort_unstable();
        // Link 1 may still fill (its bound says so): it is read when it reaches the top.
        assert_eq!(left, vec![1, 2]);
        assert!(!o.all_froze);
        assert_eq!(o.kept, 2, "the next pass waits for as many new entries");
    }

    #[test]
    fn held_out_bounds_enter_the_heap_when_one_may_come_first_and_idle_ones_never() {
        use super::{event, Mark, Ordered, LINK};
        use std::cmp::Reverse;
        // Links 0-2 roomy (2 with no room left); link 1's bound at 3 was replaced by one at 5.
        let mark = [(2.0, 0), (1.0, 1), (-1e-9, 0)].map(|(room, version)| Mark {
            roomy: true,
            room,
            rising_w: 1.0,
            version,
            ..Default::default()
        });
        let mut o = Ordered { mark: mark.to_vec(), ..Default::default() };
        o.heap.push(Reverse(event(1.0, LINK | 7, 0)));
        for e in [
            event(4.0, LINK, 0),
            event(3.0, LINK | 1, 0),
            event(5.0, LINK | 1, 1),
            event(6.0, LINK | 2, 0),
        ] {
            o.defer(e);
        }
        assert_eq!(o.heap.len(), 1);
        // The heap's top (level 1) comes before every held-out bound.
        assert!(!o.deferred_due());
        o.heap.pop();
        // With the heap empty, the least (the stale one, at 3) may come first: all but it go in.
        assert!(o.deferred_due());
        o.release(false);
        let levels: Vec<f64> = o
            .heap
            .clone()
            .into_sorted_vec()
            .iter()
            .rev()
            .map(|e| f64::from_bits((e.0 >> 64) as u64))
            .collect();
        assert_eq!(levels, vec![4.0, 5.0, 6.0]);
        assert!(o.deferred.is_empty() && !o.deferred_due());
        // Once no flow rises, only link 2's (no room left) goes in.
        o.heap.clear();
        for e in [event(4.0, LINK, 0), event(5.0, LINK | 1, 1), event(6.0, LINK | 2, 0)] {
            o.defer(e);
        }
        o.release(true);
        assert_eq!(o.heap.into_sorted_vec(), vec![Reverse(event(6.0, LINK | 2, 0))]);
    }

    #[test]
    fn the_budget_is_cut_to_half_what_the_fallback_has_cost() {
        let mut o = super::Ordered { entries: 10_000, ..Default::default() };
        assert_eq!(o.budget(100), 10_000 + 100 + 512);
        o.fallback_done(1_000);
        assert_eq!(o.budget(100), 1_000 / 2 + 512);
        // A running mean (weight 1/16): 1,000 + 99,000 / 16 = 7,187.5, half of which (plus
        // 512) is still under the live entries plus the links.
        o.fallback_done(100_000);
        assert_eq!(o.budget(100), 3_593 + 512);
        o.fallback_done(1_000_000);
        assert_eq!(o.budget(100), 10_000 + 100 + 512);
    }

    #[test]
    fn past_its_budget_it_gives_up_restores_the_rates_and_pauses() {
        let mut al = chain(12);
        al.ordered.budget = Some(1);
        let before = al.allocation().rate;
        let f = al.add_flow(ProblemFlow::new(vec![(2, 1.0)])).unwrap();
        // Given up; the refill from the divergence level did the update.
        assert_eq!((al.ordered.resolved, al.ordered.gave_up), (0, 1));
        assert_exact(&al);
        // A first give-up costs no pause: the next update tries, and gives up again.
        al.remove_flow(f).unwrap();
        assert_eq!(al.allocation().rate, before);
        assert_eq!(al.ordered.gave_up, 2);
        // The second in a row pauses 1 update, the third 3.
        let mut tried = Vec::new();
        for l in 3..10 {
            let g = al.ordered.gave_up;
            al.add_flow(ProblemFlow::new(vec![(l, 1.0)])).unwrap();
            tried.push(al.ordered.gave_up > g);
        }
        assert_eq!(tried, [false, true, false, false, false, true, false]);
        assert_exact(&al);
        // Resolving an update ends the streak.
        al.ordered.budget = None;
        al.ordered.skip = 0;
        al.add_flow(ProblemFlow::new(vec![(11, 1.0)])).unwrap();
        assert_eq!(al.ordered.resolved, 1);
        assert_eq!(al.ordered.streak, 0);
    }
}
