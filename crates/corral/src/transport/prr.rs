//! Proportional Rate Reduction (RFC 6937, as RFC 9937 revises it), the sending rule of SACK
//! loss recovery in Linux (`tcp_cwnd_reduction`) and ns-3 3.44 (`TcpPrrRecovery`)
//! (`transport.recovery = "prr"`).
//!
//! When recovery starts, ssthresh is set by the controller and PRR notes `RecoverFS`, the
//! data outstanding (`snd_nxt - snd_una`). On every ACK of the recovery, `DeliveredData` (the
//! bytes the ACK newly acknowledged, cumulatively or by SACK) adds to `prr_delivered`, and
//! the sender may send `sndcnt` bytes more:
//! - while the pipe is above ssthresh, in proportion to what was delivered:
//!   `sndcnt = ceil(prr_delivered * ssthresh / RecoverFS) - prr_out`, so that by the time
//!   the whole RecoverFS is delivered, about ssthresh was sent;
//! - once the pipe is at or below ssthresh, the conservative reduction bound (PRR-CRB)
//!   `sndcnt = min(ssthresh - pipe, max(prr_delivered - prr_out, DeliveredData))`, plus one
//!   MSS inside the `min` (the slow-start reduction bound, PRR-SSRB) on a *safe* ACK, one
//!   that advanced `snd_una` and indicated no further loss (RFC 9937 section 4; Linux: an ACK
//!   with `FLAG_SND_UNA_ADVANCED` that marked nothing lost; ns-3 approximates it by "a
//!   retransmission was cumulatively acknowledged"): the window grows back towards ssthresh
//!   one segment faster than the ACKs deliver only while recovery makes progress.
//!
//! An ACK that delivers nothing changes nothing (RFC 9937 section 6.2; Linux returns before
//! touching cwnd). Every byte sent in recovery, retransmitted or new, counts in `prr_out`.
//! The fast retransmission always goes (`sndcnt` of at least one MSS while `prr_out` is 0).
//! The sender turns `sndcnt` into its window, `cwnd = pipe + sndcnt` rounded up to whole
//! segments, and sets cwnd to ssthresh when recovery ends.

/// The PRR state of one recovery episode, in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prr {
    ssthresh: u64,
    /// RFC 6937 `RecoverFS`: the data outstanding when recovery started.
    recover_fs: u64,
    /// Bytes delivered to the receiver during this recovery.
    delivered: u64,
    /// Bytes sent during this recovery.
    out: u64,
    mss: u64,
}

impl Prr {
    /// A recovery starts with `ssthresh` already set and `recover_fs` bytes outstanding.
    pub fn start(ssthresh: u64, recover_fs: u64, mss: u64) -> Prr {
        Prr { ssthresh, recover_fs: recover_fs.max(1), delivered: 0, out: 0, mss }
    }

    /// An ACK of the recovery delivered `delivered` bytes and the pipe (RFC 6675) is now
    /// `pipe`; `safe` when it advanced `snd_una` and indicated no further loss. Returns the
    /// bytes the sender may send now (`sndcnt`), or `None` when the ACK delivered nothing and
    /// the window stays as it is.
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, safe: bool) -> Option<u64> {
        if delivered == 0 {
            return None;
        }
        self.delivered += delivered;
        let sndcnt = if pipe > self.ssthresh {
            let target =
                (self.delivered as u128 * self.ssthresh as u128).div_ceil(self.recover_fs as u128);
            (target as u64).saturating_sub(self.out)
        } else {
            let conservative = self.delivered.saturating_sub(self.out).max(delivered);
            let limit = if safe { conservative + self.mss } else { conservative };
            (self.ssthresh - pipe).min(limit)
        };
        Some(if self.out == 0 { sndcnt.max(self.mss) } else { sndcnt })
    }

    /// `bytes` left during this recovery (a retransmission or new data).
    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// RecoverFS: what was in flight when the recovery started.
    pub fn recover_fs(&self) -> u64 {
        self.recover_fs
    }

    /// The bytes delivered and sent so far in this recovery.
    pub fn progress(&self) -> (u64, u64) {
        (self.delivered, self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    #[test]
    fn the_first_ack_of_a_recovery_always_lets_the_fast_retransmission_go() {
        // ssthresh 5 of RecoverFS 20: one segment delivered earns a quarter segment, but
        // nothing was sent yet, so one whole segment may go.
        let mut p = Prr::start(5 * MSS, 20 * MSS, MSS);
        assert_eq!(p.on_ack(MSS, 18 * MSS, false), Some(MSS));
        p.on_sent(MSS);
        assert_eq!(
            p.on_ack(MSS, 18 * MSS, false),
            Some(0),
            "ceil(2 * 5 / 20) = 1 segment, already sent"
        );
    }

    #[test]
    fn above_ssthresh_the_sender_sends_in_proportion_to_what_is_delivered() {
        // ssthresh 5, RecoverFS 10, one segment delivered per ACK, whole segments sent while
        // sndcnt is positive: one segment out for every two delivered, safe ACK or not.
        for safe in [false, true] {
            let mut p = Prr::start(5 * MSS, 10 * MSS, MSS);
            let mut sent = 0;
            for k in 1..=10u64 {
                let pipe = 10 * MSS - k * MSS + sent;
                let segments = p.on_ack(MSS, pipe.max(5 * MSS + 1), safe).unwrap().div_ceil(MSS);
                p.on_sent(segments * MSS);
                sent += segments * MSS;
                assert_eq!(sent / MSS, (k * 5).div_ceil(10), "after {k} delivered");
            }
            assert_eq!(
                p.progress(),
                (10 * MSS, 5 * MSS),
                "a whole RecoverFS delivered: ssthresh sent"
            );
        }
    }

    #[test]
    fn at_or_below_ssthresh_only_a_safe_ack_sends_one_segment_more_than_delivered() {
        // Heavy losses: the pipe (1) is below ssthresh (5). An ACK delivering 2 that advanced
        // snd_una with no new loss (safe) may send min(5 - 1, max(2 - 0, 2) + 1) = 3 ...
        let mut p = Prr::start(5 * MSS, 10 * MSS, MSS);
        assert_eq!(p.on_ack(2 * MSS, MSS, true), Some(3 * MSS), "PRR-SSRB");
        // ... the same ACK without it (a SACK only, or a new loss seen) only what was
        // delivered: min(5 - 1, max(2 - 0, 2)) = 2 (PRR-CRB).
        let mut p = Prr::start(5 * MSS, 10 * MSS, MSS);
        assert_eq!(p.on_ack(2 * MSS, MSS, false), Some(2 * MSS), "PRR-CRB");
        p.on_sent(MSS);
        // prr_delivered - prr_out = 2, this ACK delivered 1: the CRB catches up to 2 ...
        assert_eq!(p.on_ack(MSS, 3 * MSS, false), Some(2 * MSS));
        // ... and never beyond ssthresh - pipe, even on a safe ACK.
        assert_eq!(p.on_ack(MSS, 4 * MSS, true), Some(MSS), "ssthresh - pipe = 1");
    }

    #[test]
    fn an_ack_that_delivers_nothing_leaves_the_window_alone() {
        let mut p = Prr::start(5 * MSS, 10 * MSS, MSS);
        p.on_sent(MSS);
        assert_eq!(p.on_ack(0, MSS, true), None);
        assert_eq!(p.progress(), (0, MSS));
    }

    #[test]
    fn pipe_at_ssthresh_sends_nothing_more() {
        let mut p = Prr::start(5 * MSS, 10 * MSS, MSS);
        p.on_sent(MSS);
        assert_eq!(p.on_ack(MSS, 5 * MSS, true), Some(0), "ssthresh - pipe = 0");
    }
}
