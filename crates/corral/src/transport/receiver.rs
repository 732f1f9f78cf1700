//! TCP receiver: reassembly with cumulative ACKs, delayed ACKs (RFC 5681 section 4.2: ACK at
//! least every `delayed_ack` full segments or after a timeout, at once for out-of-order data or
//! data that fills a hole) and ECN echo. Classic ECN (RFC 3168 section 6.1.3) latches ECE
//! from a CE mark until a segment with CWR arrives; DCTCP's accurate echo (RFC 8257 section
//! 3.2) reports each CE mark: when the CE state changes, the ACKs held back go out at once
//! with the old state, and the segment that changed it is acknowledged at once with the new
//! one (Linux's `dctcp_ece_ack_update`: the held-back ACK at `prior_rcv_nxt`, then
//! `ICSK_ACK_NOW`).
//!
//! With SACK (RFC 2018) every ACK also carries up to [`SACK_BLOCKS`] blocks of the data held
//! above a gap: the first block holds the segment that triggered the ACK, the others are the
//! most recently changed blocks after it (section 4), so a block stays reported in several
//! ACKs. No D-SACK (RFC 2883).

use crate::net::packet::{SackBlocks, SACK_BLOCKS};
use crate::units::Time;

/// An ACK the receiver asks to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckOut {
    pub ack: u64,
    pub ece: bool,
    pub ts_echo: Time,
    /// SACK blocks (empty when SACK is off or nothing is held out of order).
    pub sack: SackBlocks,
}

#[derive(Clone, Debug)]
pub struct TcpReceiver {
    rcv_nxt: u64,
    /// Disjoint, sorted byte ranges [start, end) received above `rcv_nxt`, each with the
    /// arrival count at its last change (the SACK blocks' recency).
    ooo: Vec<(u64, u64, u64)>,
    /// Bytes held in `ooo`.
    held: u64,
    /// Segments stored out of order so far (the recency clock).
    arrivals: u64,
    /// Report SACK blocks (RFC 2018).
    sack: bool,
    ack_every: u32,
    /// In-order segments received but not yet acknowledged.
    pending: u32,
    /// Timestamp of the earliest unacknowledged segment (RFC 7323 section 4.3).
    pending_ts: Time,
    accurate_ecn: bool,
    ce_state: bool,
    ece_latched: bool,
    /// The most bytes held out of order at once (the reorder buffer's peak).
    max_reorder: u64,
}

impl TcpReceiver {
    pub fn new(ack_every: u32, accurate_ecn: bool) -> TcpReceiver {
        TcpReceiver {
            rcv_nxt: 0,
            ooo: Vec::new(),
            held: 0,
            arrivals: 0,
            sack: false,
            ack_every: ack_every.max(1),
            pending: 0,
            pending_ts: Time::ZERO,
            accurate_ecn,
            ce_state: false,
            ece_latched: false,
            max_reorder: 0,
        }
    }

    /// Turns SACK reporting on (RFC 2018).
    pub fn with_sack(mut self, on: bool) -> TcpReceiver {
        self.sack = on;
        self
    }

    /// The SACK blocks to report now: the held ranges, most recently changed first.
    fn sack_blocks(&self) -> SackBlocks {
        let mut out = SackBlocks::default();
        if !self.sack {
            return out;
        }
        let mut order: Vec<&(u64, u64, u64)> = self.ooo.iter().collect();
        order.sort_unstable_by_key(|x| std::cmp::Reverse(x.2));
        for &&(s, e, _) in order.iter().take(SACK_BLOCKS) {
            out.blocks[out.len as usize] = (s, e);
            out.len += 1;
        }
        out
    }

    /// Bytes delivered in order to the application.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }

    /// Distinct payload bytes that have arrived, in order or above a gap: `delivered` plus
    /// the bytes held out of order. It grows when a byte first arrives, not when a hole
    /// below it fills, and never for a duplicate: the rate at which the network delivers
    /// new data, whatever the order.
    pub fn received(&self) -> u64 {
        self.rcv_nxt + self.held
    }

    /// The most bytes the receiver has held above a gap at once (its reorder buffer's peak,
    /// R2C2 Fig. 14).
    pub fn max_reorder_bytes(&self) -> u64 {
        self.max_reorder
    }

    fn ece(&self) -> bool {
        if self.accurate_ecn {
            self.ce_state
        } else {
            self.ece_latched
        }
    }

    fn ack(&mut self, ts_echo: Time) -> AckOut {
        self.pending = 0;
        AckOut { ack: self.rcv_nxt, ece: self.ece(), ts_echo, sack: self.sack_blocks() }
    }

    /// Stores `[seq, seq+len)`; returns whether it advanced `rcv_nxt` and whether it was
    /// out of order (a gap remains below it) or a duplicate.
    fn store(&mut self, seq: u64, len: u64) -> (bool, bool) {
        let end = seq + len;
        if end <= self.rcv_nxt {
            return (false, true);
        }
        if seq > self.rcv_nxt {
            self.arrivals += 1;
            let i = self.ooo.partition_point(|&(s, _, _)| s < seq);
            self.ooo.insert(i, (seq, end, self.arrivals));
            // Merge overlapping or adjacent neighbours; a merged block is as recent as its
            // newest part.
            let mut merged: Vec<(u64, u64, u64)> = Vec::with_capacity(self.ooo.len());
            for &(s, e, t) in &self.ooo {
                match merged.last_mut() {
                    Some(last) if s <= last.1 => {
                        last.1 = last.1.max(e);
                        last.2 = last.2.max(t);
                    }
                    _ => merged.push((s, e, t)),
                }
            }
            self.ooo = merged;
            self.held = self.ooo.iter().map(|&(s, e, _)| e - s).sum();
            self.max_reorder = self.max_reorder.max(self.held);
            return (false, true);
        }
        self.rcv_nxt = end;
        let mut drained = 0;
        for &(s, e, _) in &self.ooo {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            drained += 1;
        }
        let filled_hole = drained > 0 || !self.ooo.is_empty();
        self.ooo.drain(..drained);
        if filled_hole {
            self.held = self.ooo.iter().map(|&(s, e, _)| e - s).sum();
        }
        (true, filled_hole)
    }

    /// A data segment arrived. ACKs to send now are pushed onto `out`; the return value says
    /// whether the delayed-ACK timer should be armed.
    pub fn on_data(
        &mut self,
        seq: u64,
        len: u32,
        ce: bool,
        cwr: bool,
        ts: Time,
        out: &mut Vec<AckOut>,
    ) -> bool {
        let mut ack_now = false;
        if self.accurate_ecn {
            if ce != self.ce_state {
                if self.pending > 0 {
                    let ts = self.pending_ts;
                    out.push(self.ack(ts));
                }
                ack_now = true;
            }
            self.ce_state = ce;
        } else {
            if cwr {
                self.ece_latched = false;
            }
            if ce {
                self.ece_latched = true;
            }
        }
        let (advanced, irregular) = self.store(seq, len as u64);
        if !advanced || irregular || ack_now {
            let ts = if self.pending > 0 { self.pending_ts } else { ts };
            out.push(self.ack(ts));
            return false;
        }
        if self.pending == 0 {
            self.pending_ts = ts;
        }
        self.pending += 1;
        if self.pending >= self.ack_every {
            let ts = self.pending_ts;
            out.push(self.ack(ts));
            return false;
        }
        true
    }

    /// The delayed-ACK timer fired.
    pub fn on_delack_timer(&mut self) -> Option<AckOut> {
        (self.pending > 0).then(|| {
            let ts = self.pending_ts;
            self.ack(ts)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(r: &mut TcpReceiver, seq: u64, ce: bool) -> (Vec<AckOut>, bool) {
        let mut out = Vec::new();
        let arm = r.on_data(seq, 100, ce, false, Time(seq), &mut out);
        (out, arm)
    }

    #[test]
    fn reassembles_out_of_order_and_acks_at_once() {
        let mut r = TcpReceiver::new(2, false);
        let (out, arm) = data(&mut r, 0, false);
        assert!(out.is_empty() && arm, "first segment waits for a second one");
        let (out, _) = data(&mut r, 200, false); // gap at 100
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].ack, 100);
        let (out, _) = data(&mut r, 100, false); // fills the hole
        assert_eq!(out[0].ack, 300);
        assert_eq!(r.delivered(), 300);
        let (out, _) = data(&mut r, 0, false); // duplicate
        assert_eq!(out[0].ack, 300);
        assert_eq!(r.max_reorder_bytes(), 100, "one segment waited above the gap");
        data(&mut r, 500, false);
        data(&mut r, 400, false);
        assert_eq!(r.max_reorder_bytes(), 200, "two segments above the gap at 300");
        data(&mut r, 300, false);
        assert_eq!((r.delivered(), r.max_reorder_bytes()), (600, 200), "the peak stays");
    }

    #[test]
    fn received_counts_each_byte_once_when_it_arrives() {
        let mut r = TcpReceiver::new(1, false);
        data(&mut r, 0, false);
        data(&mut r, 200, false); // above a gap at 100
        data(&mut r, 300, false);
        assert_eq!((r.delivered(), r.received()), (100, 300), "held bytes arrived");
        data(&mut r, 300, false); // a duplicate of held data
        assert_eq!(r.received(), 300);
        // The retransmission fills the hole: 300 bytes are released in order, but only its
        // own 100 are new arrivals.
        data(&mut r, 100, false);
        assert_eq!((r.delivered(), r.received()), (400, 400));
        data(&mut r, 0, false); // a spurious retransmission of delivered data
        assert_eq!(r.received(), 400);
        // A segment overlapping held data counts only its new part.
        data(&mut r, 600, false);
        let mut out = Vec::new();
        r.on_data(550, 100, false, false, Time(0), &mut out);
        assert_eq!((r.delivered(), r.received()), (400, 550));
        r.on_data(350, 250, false, false, Time(0), &mut out);
        assert_eq!((r.delivered(), r.received()), (700, 700));
    }

    #[test]
    fn sack_blocks_report_the_newest_block_first_and_at_most_three() {
        let mut r = TcpReceiver::new(1, false).with_sack(true);
        data(&mut r, 0, false);
        let (out, _) = data(&mut r, 200, false);
        assert_eq!((out[0].ack, out[0].sack.as_slice()), (100, &[(200, 300)][..]));
        let (out, _) = data(&mut r, 500, false);
        assert_eq!(out[0].sack.as_slice(), &[(500, 600), (200, 300)]);
        // 300 joins the first block: the merged block is now the newest.
        let (out, _) = data(&mut r, 300, false);
        assert_eq!(out[0].sack.as_slice(), &[(200, 400), (500, 600)]);
        data(&mut r, 800, false);
        let (out, _) = data(&mut r, 1000, false);
        assert_eq!(
            out[0].sack.as_slice(),
            &[(1000, 1100), (800, 900), (200, 400)],
            "the oldest block is left out"
        );
        assert_eq!(out[0].sack.option_bytes(), 28);
        // The hole at 100 fills: the blocks above the new cumulative ACK remain.
        let (out, _) = data(&mut r, 100, false);
        assert_eq!(
            (out[0].ack, out[0].sack.as_slice()),
            (400, &[(1000, 1100), (800, 900), (500, 600)][..])
        );
        // Without SACK no block is reported.
        let mut plain = TcpReceiver::new(1, false);
        let (out, _) = data(&mut plain, 200, false);
        assert_eq!((out[0].sack.len, out[0].sack.option_bytes()), (0, 0));
    }

    #[test]
    fn delayed_ack_every_second_segment_or_timer() {
        let mut r = TcpReceiver::new(2, false);
        assert!(data(&mut r, 0, false).0.is_empty());
        let (out, arm) = data(&mut r, 100, false);
        assert_eq!((out[0].ack, arm), (200, false));
        data(&mut r, 200, false);
        assert_eq!(r.on_delack_timer().map(|a| a.ack), Some(300));
        assert_eq!(r.on_delack_timer(), None);
    }

    #[test]
    fn classic_ecn_latches_until_cwr() {
        let mut r = TcpReceiver::new(1, false);
        assert!(data(&mut r, 0, true).0[0].ece);
        assert!(data(&mut r, 100, false).0[0].ece, "ECE stays latched");
        let mut out = Vec::new();
        r.on_data(200, 100, false, true, Time(0), &mut out);
        assert!(!out[0].ece, "CWR clears the latch");
    }

    #[test]
    fn accurate_ecn_acks_immediately_on_ce_change() {
        let mut r = TcpReceiver::new(2, true);
        assert!(data(&mut r, 0, false).0.is_empty());
        let (out, arm) = data(&mut r, 100, true);
        // The held-back ACK for segment 0 goes out with ECE = 0 first, then the CE segment's
        // own ACK with ECE = 1, at once (Linux's ICSK_ACK_NOW).
        assert_eq!(
            out,
            vec![
                AckOut { ack: 100, ece: false, ts_echo: Time(0), sack: SackBlocks::default() },
                AckOut { ack: 200, ece: true, ts_echo: Time(100), sack: SackBlocks::default() },
            ]
        );
        assert!(!arm, "nothing held back");
        // In the same state, ACKs go every second segment again, ECE on.
        assert!(data(&mut r, 200, true).0.is_empty());
        let (out, _) = data(&mut r, 300, true);
        assert_eq!((out[0].ack, out[0].ece), (400, true));
        // Back to no CE with nothing held back: one immediate ACK, ECE off.
        let (out, _) = data(&mut r, 400, false);
        assert_eq!(out.iter().map(|a| (a.ack, a.ece)).collect::<Vec<_>>(), [(500, false)]);
    }
}
