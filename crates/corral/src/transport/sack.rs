//! The sender's SACK scoreboard and RFC 6675's conservative loss recovery rules over it:
//! `IsLost` (section 4), `SetPipe` (the pipe estimate) and `NextSeg` (section 4, rules 1-4,
//! the rescue retransmission included).
//!
//! The scoreboard holds the byte ranges the receiver reported (RFC 2018 blocks) above the
//! cumulative ACK, sorted and merged. Between two SACKed blocks, or below the first, lies a
//! hole. Every octet of one hole has the same SACKed octets above it, so `IsLost` is
//! constant over a hole, and the pipe is a sum over holes: bytes not thought lost count
//! once, bytes retransmitted in this recovery once more.

/// What [`Scoreboard::next_seg`] says to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// Retransmit `len` bytes at `seq` (rules 1 and 3).
    Retransmit { seq: u64, len: u64 },
    /// New data (rule 2), if the window and the application allow.
    New,
    /// The rescue retransmission (rule 4): `len` bytes at `seq`, ending at the highest
    /// outstanding octet.
    Rescue { seq: u64, len: u64 },
}

/// SACKed ranges above the cumulative ACK.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scoreboard {
    /// Sorted, disjoint, non-adjacent `[start, end)` ranges.
    blocks: Vec<(u64, u64)>,
}

impl Scoreboard {
    pub fn blocks(&self) -> &[(u64, u64)] {
        &self.blocks
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Takes in an ACK: forgets what lies below `snd_una` and adds the reported blocks
    /// (clipped to `[snd_una, snd_max)`). Returns whether anything new was SACKed.
    pub fn update(&mut self, snd_una: u64, snd_max: u64, reported: &[(u64, u64)]) -> bool {
        self.blocks.retain_mut(|b| {
            b.0 = b.0.max(snd_una);
            b.1 > b.0
        });
        let before = self.sacked_bytes();
        for &(s, e) in reported {
            let (s, e) = (s.max(snd_una), e.min(snd_max));
            if s < e {
                self.insert(s, e);
            }
        }
        self.sacked_bytes() > before
    }

    fn insert(&mut self, s: u64, e: u64) {
        let i = self.blocks.partition_point(|b| b.1 < s);
        let mut j = i;
        let (mut ns, mut ne) = (s, e);
        while j < self.blocks.len() && self.blocks[j].0 <= ne {
            ns = ns.min(self.blocks[j].0);
            ne = ne.max(self.blocks[j].1);
            j += 1;
        }
        self.blocks.splice(i..j, [(ns, ne)]);
    }

    /// Forgets every block (the connection starts over from scratch).
    pub fn clear(&mut self) {
        self.blocks.clear();
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.blocks.iter().map(|b| b.1 - b.0).sum()
    }

    /// The end of the highest SACKed block (`None`: nothing SACKed).
    pub fn highest(&self) -> Option<u64> {
        self.blocks.last().map(|b| b.1)
    }

    /// The SACKed block holding `seq`, if any.
    pub fn block_at(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.blocks.partition_point(|b| b.1 <= seq);
        self.blocks.get(i).copied().filter(|b| b.0 <= seq)
    }

    /// RFC 6675 `IsLost(seq)`: `dupthresh` discontiguous SACKed ranges lie above `seq`, or
    /// more than `(dupthresh - 1) * mss` SACKed bytes do.
    pub fn is_lost(&self, seq: u64, dupthresh: u32, mss: u64) -> bool {
        let (mut bytes, mut ranges) = (0u64, 0u32);
        for &(s, e) in self.blocks.iter().rev() {
            if e <= seq + 1 {
                break;
            }
            bytes += e - s.max(seq + 1);
            ranges += 1;
        }
        ranges >= dupthresh || bytes > (dupthresh as u64 - 1) * mss
    }

    /// The holes `[start, end)` between `high_ack` and `high_data`, ascending, each with
    /// whether it counts as lost. Every octet of a hole has the same SACKed blocks above it
    /// (those from the next one on), so one backward pass over the blocks decides `IsLost`
    /// for all holes.
    pub fn holes(
        &self,
        high_ack: u64,
        high_data: u64,
        dupthresh: u32,
        mss: u64,
    ) -> Vec<(u64, u64, bool)> {
        // (start, end, index of the first block above it).
        let mut found = Vec::with_capacity(self.blocks.len() + 1);
        let mut at = high_ack;
        for (i, &(s, e)) in self.blocks.iter().enumerate() {
            if s > at {
                found.push((at, s, i));
            }
            at = at.max(e);
        }
        if high_data > at {
            found.push((at, high_data, self.blocks.len()));
        }
        let (mut bytes, mut ranges) = (0u64, 0u32);
        let mut next = self.blocks.len();
        let mut out = vec![(0, 0, false); found.len()];
        for (k, &(s, e, above)) in found.iter().enumerate().rev() {
            while next > above {
                next -= 1;
                bytes += self.blocks[next].1 - self.blocks[next].0;
                ranges += 1;
            }
            out[k] = (s, e, ranges >= dupthresh || bytes > (dupthresh as u64 - 1) * mss);
        }
        out
    }

    /// RFC 6675 `SetPipe`: the bytes thought to be in the network. Every unSACKed byte in
    /// `[high_ack, high_data)` counts once unless it is lost, and once more if it was
    /// retransmitted in this recovery (below `high_rxt`; the rescue retransmission does not
    /// move `high_rxt` and is not counted).
    pub fn pipe(
        &self,
        high_ack: u64,
        high_data: u64,
        high_rxt: u64,
        dupthresh: u32,
        mss: u64,
    ) -> u64 {
        pipe_over(&self.holes(high_ack, high_data, dupthresh, mss), high_rxt)
    }

    /// RFC 6675 `NextSeg`: what to send next, given the highest byte retransmitted in this
    /// recovery (`high_rxt`, exclusive), whether new data could go (rule 2), and whether the
    /// rescue retransmission is still allowed (rule 4).
    #[allow(clippy::too_many_arguments)]
    pub fn next_seg(
        &self,
        high_ack: u64,
        high_data: u64,
        high_rxt: u64,
        new_data: bool,
        rescue_allowed: bool,
        dupthresh: u32,
        mss: u64,
    ) -> Option<NextSeg> {
        let top = self.highest().unwrap_or(high_ack);
        next_seg_over(
            &self.holes(high_ack, high_data, dupthresh, mss),
            top,
            high_rxt,
            new_data,
            rescue_allowed,
            mss,
        )
    }
}

/// The indices of the segments that lie wholly inside the SACK block `[from, to)`, among `len`
/// sorted, disjoint segments whose `[seq, end)` is `bounds(i)` (the per-segment records of
/// [`super::rack`] and [`super::delivery_rate`]).
pub fn covered(
    len: usize,
    bounds: impl Fn(usize) -> (u64, u64),
    from: u64,
    to: u64,
) -> std::ops::Range<usize> {
    // The first index whose segment ends after `x`.
    let ending_after = |x: u64| {
        let (mut lo, mut hi) = (0, len);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if bounds(mid).1 <= x {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    };
    let mut first = ending_after(from);
    if first < len && bounds(first).0 < from {
        first += 1;
    }
    first..ending_after(to).max(first)
}

/// [`Scoreboard::pipe`] over holes already found.
pub fn pipe_over(holes: &[(u64, u64, bool)], high_rxt: u64) -> u64 {
    holes
        .iter()
        .map(|&(s, e, lost)| if lost { 0 } else { e - s } + e.min(high_rxt).saturating_sub(s))
        .sum()
}

/// [`Scoreboard::next_seg`] over holes already found; `top` is the end of the highest
/// SACKed block (`high_ack` without one).
pub fn next_seg_over(
    holes: &[(u64, u64, bool)],
    top: u64,
    high_rxt: u64,
    new_data: bool,
    rescue_allowed: bool,
    mss: u64,
) -> Option<NextSeg> {
    // Rule 1: the first lost, not yet retransmitted bytes below the highest SACKed byte.
    // Rule 3 (when no new data can go): the first such bytes even if not lost.
    let mut rule3 = None;
    for &(s, e, lost) in holes {
        let from = s.max(high_rxt);
        let until = e.min(top);
        if from >= until {
            continue;
        }
        let seg = NextSeg::Retransmit { seq: from, len: mss.min(until - from) };
        if lost {
            return Some(seg);
        }
        rule3 = rule3.or(Some(seg));
    }
    if new_data {
        return Some(NextSeg::New);
    }
    if rule3.is_some() {
        return rule3;
    }
    // Rule 4: one segment holding the highest outstanding unSACKed byte.
    let last = holes.last()?;
    rescue_allowed.then(|| {
        let seq = last.0.max(last.1.saturating_sub(mss));
        NextSeg::Rescue { seq, len: last.1 - seq }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 100;

    /// Segments 0..10 of 100 bytes sent; the receiver holds 3, 5 and 6 (0-2 and 4 missing).
    fn board() -> Scoreboard {
        let mut sb = Scoreboard::default();
        assert!(sb.update(0, 1000, &[(300, 400)]));
        assert!(sb.update(0, 1000, &[(500, 600), (300, 400)]));
        assert!(sb.update(0, 1000, &[(600, 700), (300, 400)]));
        assert!(!sb.update(0, 1000, &[(500, 700)]), "nothing new");
        sb
    }

    #[test]
    fn covered_finds_the_segments_wholly_inside_a_block() {
        let segs = [(0, 100), (100, 200), (200, 300), (300, 350)];
        let c = |from, to| covered(segs.len(), |i| segs[i], from, to);
        assert_eq!(c(100, 300), 1..3);
        assert_eq!(c(50, 320), 1..3, "partly covered ends are left out");
        assert_eq!(c(120, 180), 2..2);
        assert_eq!(c(300, 1000), 3..4);
        assert_eq!(c(1000, 2000), 4..4);
    }

    #[test]
    fn blocks_merge_and_the_cumulative_ack_trims_them() {
        let mut sb = board();
        assert_eq!(sb.blocks(), &[(300, 400), (500, 700)]);
        sb.update(0, 1000, &[(400, 500)]);
        assert_eq!(sb.blocks(), &[(300, 700)]);
        sb.update(350, 1000, &[(900, 2000)]);
        assert_eq!(sb.blocks(), &[(350, 700), (900, 1000)], "clipped to snd_una and snd_max");
        sb.update(800, 1000, &[]);
        assert_eq!(sb.blocks(), &[(900, 1000)]);
        assert_eq!(sb.block_at(950), Some((900, 1000)));
        assert_eq!(sb.block_at(1000), None);
    }

    #[test]
    fn is_lost_counts_sacked_bytes_and_ranges_above() {
        let sb = board();
        // Above byte 0: 300 SACKed bytes > 2 * 100, two ranges.
        assert!(sb.is_lost(0, 3, MSS));
        // Above byte 400: 200 bytes, not more than 200, one range: not lost.
        assert!(!sb.is_lost(400, 3, MSS));
        // With dupthresh 2 a single range of more than 100 bytes is enough.
        assert!(sb.is_lost(400, 2, MSS));
        // Three discontiguous ranges, whatever their size.
        let mut small = Scoreboard::default();
        small.update(0, 1000, &[(100, 110), (200, 210), (300, 310)]);
        assert!(small.is_lost(0, 3, MSS) && !small.is_lost(150, 3, MSS));
    }

    #[test]
    fn each_hole_is_lost_exactly_when_is_lost_says_so_at_its_start() {
        let mut sb = Scoreboard::default();
        sb.update(0, 5000, &[(300, 400), (500, 520), (700, 1000), (1200, 1210), (2000, 2100)]);
        for dupthresh in 1..5 {
            for h in sb.holes(100, 5000, dupthresh, MSS) {
                assert_eq!(
                    h.2,
                    sb.is_lost(h.0, dupthresh, MSS),
                    "hole {h:?}, dupthresh {dupthresh}"
                );
            }
        }
    }

    #[test]
    fn pipe_counts_unsacked_bytes_not_lost_plus_retransmissions() {
        let sb = board();
        // Holes: 0-300 (lost), 400-500 (not lost), 700-1000 (not lost: nothing above).
        assert_eq!(sb.pipe(0, 1000, 0, 3, MSS), 100 + 300);
        // Segment 0 retransmitted: it counts again.
        assert_eq!(sb.pipe(0, 1000, 100, 3, MSS), 500);
        // Everything up to 500 retransmitted: the lost hole counts once, 400-500 twice.
        assert_eq!(sb.pipe(0, 1000, 500, 3, MSS), 300 + 200 + 300);
    }

    #[test]
    fn next_seg_prefers_lost_holes_then_new_data_then_unlost_holes_then_the_rescue() {
        let sb = board();
        assert_eq!(
            sb.next_seg(0, 1000, 0, true, true, 3, MSS),
            Some(NextSeg::Retransmit { seq: 0, len: 100 })
        );
        assert_eq!(
            sb.next_seg(0, 1000, 250, true, true, 3, MSS),
            Some(NextSeg::Retransmit { seq: 250, len: 50 })
        );
        // The lost hole is done: new data goes before the hole at 400, which is not lost.
        assert_eq!(sb.next_seg(0, 1000, 300, true, true, 3, MSS), Some(NextSeg::New));
        assert_eq!(
            sb.next_seg(0, 1000, 300, false, true, 3, MSS),
            Some(NextSeg::Retransmit { seq: 400, len: 100 })
        );
        // Nothing below the highest SACKed byte is left: the rescue resends the last segment,
        // once.
        assert_eq!(
            sb.next_seg(0, 1000, 700, false, true, 3, MSS),
            Some(NextSeg::Rescue { seq: 900, len: 100 })
        );
        assert_eq!(sb.next_seg(0, 1000, 700, false, false, 3, MSS), None);
        // The rescue holds the highest unSACKed byte: here below a SACKed tail.
        let mut tail = Scoreboard::default();
        tail.update(0, 1000, &[(950, 1000)]);
        assert_eq!(
            tail.next_seg(0, 1000, 950, false, true, 3, MSS),
            Some(NextSeg::Rescue { seq: 850, len: 100 })
        );
    }
}
