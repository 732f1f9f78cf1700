//! How a sender learns what is lost, chosen once when it is built: by duplicate ACKs alone
//! (no SACK: NewReno's recovery, RFC 6582), by RFC 6675's rules over the SACK scoreboard
//! (`IsLost`, `SetPipe`, `NextSeg`; [`crate::transport::sack`]), or by RACK-TLP's timing
//! (RFC 8985, [`crate::transport::rack`]) over SACK. The pipe, the segment to send next in a
//! SACK recovery and the pipe that sets ssthresh are each one `match` here.

use crate::transport::rack::RackTlp;
use crate::transport::sack::{self, NextSeg, Scoreboard};

/// The data outstanding and the duplicate-ACK rule that judges it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Outstanding {
    /// The first unacknowledged byte (`snd_una`).
    pub(super) una: u64,
    /// The first byte never sent (`snd_max`).
    pub(super) max: u64,
    /// Duplicate ACKs (or SACKed segments above a hole) that mean a loss.
    pub(super) dupthresh: u32,
    pub(super) mss: u64,
}

/// What a SACK sender keeps besides its loss detection: the scoreboard and RFC 6675's
/// per-recovery state.
#[derive(Clone, Debug, Default)]
pub(super) struct SackState {
    /// What the receiver has SACKed.
    pub(super) scoreboard: Scoreboard,
    /// RFC 6675 HighRxt: the end of the highest range retransmitted in this recovery.
    pub(super) high_rxt: u64,
    /// The rescue retransmission of this recovery has not been sent yet (rule 4).
    pub(super) rescue_allowed: bool,
}

/// How loss is detected (`transport.sack`, `transport.rack` and the duplicate-ACK threshold).
#[derive(Clone, Debug)]
pub(super) enum LossDetection {
    /// Duplicate ACKs only: fast retransmit on the `dupthresh`-th, then NewReno's recovery.
    DupAck,
    /// SACK with RFC 6675's `IsLost` over the scoreboard (and the `dupthresh`-th duplicate).
    Sack(SackState),
    /// SACK with RACK-TLP's marks (boxed: most senders of a large run are idle or short).
    Rack(SackState, Box<RackTlp>),
}

impl LossDetection {
    /// `sack` and `rack` as `[transport]` says (RACK needs SACK).
    pub(super) fn new(sack: bool, rack: bool) -> LossDetection {
        match (sack, rack) {
            (false, _) => LossDetection::DupAck,
            (true, false) => LossDetection::Sack(SackState::default()),
            (true, true) => LossDetection::Rack(SackState::default(), Box::default()),
        }
    }

    /// The SACK state (`None` without SACK).
    #[inline]
    pub(super) fn sack(&self) -> Option<&SackState> {
        match self {
            LossDetection::DupAck => None,
            LossDetection::Sack(s) | LossDetection::Rack(s, _) => Some(s),
        }
    }

    #[inline]
    pub(super) fn sack_mut(&mut self) -> Option<&mut SackState> {
        match self {
            LossDetection::DupAck => None,
            LossDetection::Sack(s) | LossDetection::Rack(s, _) => Some(s),
        }
    }

    /// RACK-TLP's state (`None` unless it detects loss).
    #[inline]
    pub(super) fn rack(&self) -> Option<&RackTlp> {
        match self {
            LossDetection::Rack(_, r) => Some(r),
            _ => None,
        }
    }

    #[inline]
    pub(super) fn rack_mut(&mut self) -> Option<&mut RackTlp> {
        match self {
            LossDetection::Rack(_, r) => Some(r),
            _ => None,
        }
    }

    /// Bytes the receiver holds above the cumulative ACK (0 without SACK).
    #[inline]
    pub(super) fn sacked_bytes(&self) -> u64 {
        self.sack().map_or(0, |s| s.scoreboard.sacked_bytes())
    }

    /// The SACKed block holding `seq`, if any (go-back-N skips it).
    #[inline]
    pub(super) fn sacked_block_at(&self, seq: u64) -> Option<(u64, u64)> {
        self.sack()?.scoreboard.block_at(seq)
    }

    /// The pipe (RFC 6675 `SetPipe`, over RACK's marks with RACK); `None` without SACK.
    pub(super) fn pipe(&self, o: Outstanding) -> Option<u64> {
        match self {
            LossDetection::DupAck => None,
            LossDetection::Sack(s) => {
                Some(s.scoreboard.pipe(o.una, o.max, s.high_rxt, o.dupthresh, o.mss))
            }
            LossDetection::Rack(_, r) => Some(r.pipe(o.una, o.max)),
        }
    }

    /// The pipe when recovery starts, the first unacknowledged segment counted lost (ns-3's
    /// `EnterRecovery` marks it before it measures `BytesInFlight`); `None` without SACK.
    pub(super) fn pipe_head_lost(&self, o: Outstanding) -> Option<u64> {
        let head = o.mss.min(o.max - o.una);
        match self {
            LossDetection::DupAck => None,
            LossDetection::Sack(s) => {
                let pipe = s.scoreboard.pipe(o.una, o.max, s.high_rxt, o.dupthresh, o.mss);
                let head_counted =
                    !s.scoreboard.is_lost(o.una, o.dupthresh, o.mss) && s.high_rxt <= o.una;
                Some(pipe.saturating_sub(if head_counted { head } else { 0 }))
            }
            LossDetection::Rack(_, r) => Some(r.pipe_head_lost(o.una, o.max)),
        }
    }

    /// RFC 6675 `NextSeg` (over RACK's marks with RACK), when `cwnd - pipe` leaves room for a
    /// segment (both from one pass over the scoreboard's holes); `new_data` says whether a
    /// new segment is left that the receive window allows. `None` without SACK.
    pub(super) fn next_seg(
        &self,
        o: Outstanding,
        cwnd: u64,
        new_data: impl FnOnce() -> bool,
    ) -> Option<NextSeg> {
        match self {
            LossDetection::DupAck => None,
            LossDetection::Rack(s, r) => {
                if cwnd < r.pipe(o.una, o.max) + o.mss {
                    return None;
                }
                r.next_seg(new_data(), s.rescue_allowed)
            }
            LossDetection::Sack(s) => {
                let holes = s.scoreboard.holes(o.una, o.max, o.dupthresh, o.mss);
                if cwnd < sack::pipe_over(&holes, s.high_rxt) + o.mss {
                    return None;
                }
                let top = s.scoreboard.highest().unwrap_or(o.una);
                sack::next_seg_over(&holes, top, s.high_rxt, new_data(), s.rescue_allowed, o.mss)
            }
        }
    }

    /// RFC 6675 `IsLost(snd_una)`: a SACK recovery may start before the `dupthresh`-th
    /// duplicate ACK (never without SACK, nor with RACK, whose marks decide).
    pub(super) fn head_is_lost(&self, o: Outstanding) -> bool {
        match self {
            LossDetection::Sack(s) => s.scoreboard.is_lost(o.una, o.dupthresh, o.mss),
            _ => false,
        }
    }
}
