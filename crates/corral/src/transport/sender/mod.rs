//! TCP sender: byte sequence numbers, the congestion window from a [`cc`](super::cc)
//! controller, fast retransmit and fast recovery, retransmission
//! timeouts with go-back-N (RFC 6298 section 5, RFC 5681 section 3.1), and ECN reaction at
//! most once per window of data with CWR on the next new segment (RFC 3168 section 6.1.2).
//! A sans-I/O state machine: it takes time and ACKs and returns the segments to send.
//!
//! The window is the controller's ([`super::cc::Cc`]): the sender reads it, and loss
//! recovery asks for the window it wants in one place (`recovery.rs`,
//! [`super::cc::CongestionControl::on_recovery_window`]). Its parts, one file each: `loss.rs`
//! (how loss is detected, chosen once when the sender is built), `send.rs` (`emit`, the one
//! place a segment leaves, and the paths that call it), `ack.rs` (an ACK in named phases),
//! `recovery.rs` (fast recovery, the windows it asks for, the RTO), `tlp.rs` (RACK-TLP's
//! timers and loss probe), `pacer.rs` (the pacing clock and an explicit rate's token
//! bucket), `timers.rs` and `limit.rs` (size, receive window, host credit).
//!
//! On ECN-Echo the controller sets ssthresh and the window comes down to it as
//! `transport.ecn_response` says: at once by default (`instant`, RFC 3168's text), or with
//! `cwr` over the next round trip, as Linux's CWR state (`tcp_enter_cwr`,
//! `tcp_cwnd_reduction`) and ns-3's `EnterCwr` do it: Proportional Rate
//! Reduction with the window before the echo as RecoverFS (Linux's `prior_cwnd`), on every
//! ACK that delivers data, no window growth until the ACK that passes `snd_max` as it was at
//! the echo, which sets cwnd = ssthresh (and may start the next reduction if it echoes CE
//! again); a loss recovery or a timeout in between takes over.
//!
//! Loss recovery is one of two:
//! - without SACK, NewReno (RFC 6582 section 3.2, "Impatient" timer variant: only the first
//!   partial ACK restarts the timer): cwnd inflates by one MSS per duplicate ACK and one hole
//!   is repaired per round trip;
//! - with SACK (`transport.sack`), RFC 6675's recovery: while `cwnd - pipe >= MSS` the
//!   sender sends what `NextSeg` picks from the [`super::sack`] scoreboard (lost holes, new
//!   data, other holes, one rescue retransmission). How cwnd moves is `transport.recovery`:
//!   Proportional Rate Reduction ([`super::prr`], RFC 6937: on every ACK cwnd = pipe + the
//!   bytes PRR allows, and ssthresh when recovery ends) or RFC 6675's conservative rule
//!   (cwnd = ssthresh from the start). Recovery also starts when `IsLost(snd_una)` holds
//!   before the third duplicate ACK. Every ACK that advances `snd_una` restarts the timer (RFC 6298 5.3), and
//!   so does the retransmission of the first unacknowledged segment, as in Linux
//!   (`tcp_xmit_retransmit_queue`): the repair of a window gets a whole RTO.
//!   After a timeout, go-back-N skips the bytes the receiver has SACKed (it never reneges).
//!
//! With SACK and `transport.rack`, loss is detected by RACK-TLP ([`super::rack`], RFC 8985)
//! instead of by duplicate ACKs and `IsLost`: recovery starts when RACK marks a segment lost,
//! its pipe and `NextSeg` use RACK's marks (so a lost retransmission is resent in the same
//! recovery), and a tail loss probe fires before the RTO while the connection is open. The
//! sender's timer is then the earliest of the RTO, the probe timeout and RACK's reordering
//! timer ([`TcpSender::timer_deadline`], [`TcpSender::on_timer`]).
//!
//! Limited transmit (RFC 3042, `transport.limited_transmit`): each of the first
//! `dupthresh - 1` duplicate ACKs lets one new segment go beyond cwnd, cwnd unchanged.
//!
//! Optional pacing (as Linux's fq / TCP internal pacing and ns-3 `TcpSocketBase`): data
//! segments, retransmissions included, leave no faster than `gain * cwnd / srtt`, one segment
//! every `len / rate`; before the first RTT estimate they are not paced. Pure ACKs are the
//! receiver's and never paced. The caller learns from [`TcpSender::pacing_deadline`] when the
//! next segment may leave and calls [`TcpSender::resume`] then.
//!
//! Explicit-rate flows ([`super::rate`]) send through a token bucket on their wire bytes
//! instead of (or, with `window = true`, as well as) the congestion window; the scheme that
//! manages them sets the rate. Loss recovery is the same.

use super::cc::{Cc, CcConfig};
use super::config::{EcnResponse, Recovery, SsthreshRule};
use super::delivery_rate::DeliveryRate;
use super::prr::Prr;
use super::rate::{RateLimit, TokenBucket, Window};
use super::rtt::RttEstimator;
use super::TcpConfig;
use crate::sim::rng::Rng;
use crate::units::Time;
use limit::SendLimit;
use loss::{LossDetection, Outstanding};
use pacer::Pacer;
use send::Why;
use timers::Timers;

mod ack;
mod limit;
mod loss;
mod pacer;
mod recovery;
mod send;
mod timers;
mod tlp;

/// A segment the sender asks to put on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    pub retransmit: bool,
    /// Congestion Window Reduced: the sender has reacted to ECN-Echo.
    pub cwr: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_cuts: u64,
    /// Tail loss probes sent (RACK-TLP).
    pub loss_probes: u64,
}

#[derive(Clone, Debug)]
pub struct TcpSender {
    mss: u64,
    snd_una: u64,
    snd_nxt: u64,
    /// Highest sequence number sent so far (plus one).
    snd_max: u64,
    /// The congestion controller and the window it owns.
    cc: Cc,
    dupacks: u32,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681: 3).
    dupthresh: u32,
    in_recovery: bool,
    /// RFC 6582 `recover`: snd_max when the last loss recovery started.
    recover: Option<u64>,
    partial_ack_seen: bool,
    ecn: bool,
    /// snd_max at the last ECN reaction; the next reaction waits until it is acked.
    ecn_recover: Option<u64>,
    send_cwr: bool,
    /// How the window comes down on ECN-Echo (`transport.ecn_response`).
    ecn_response: EcnResponse,
    /// The running ECN reduction (Linux's CWR state): PRR over the window before the echo,
    /// until `snd_una` passes `ecn_recover`.
    cwr: Option<Prr>,
    rtt: RttEstimator,
    /// The retransmission, probe and reordering timers.
    timers: Timers,
    /// The flow's size, the receive window, the host's credit, the explicit rate's window.
    limit: SendLimit,
    /// The pacing clock and the explicit rate's token bucket.
    pacer: Pacer,
    /// A fast-recovery retransmission waiting for its pacing slot.
    retx_pending: bool,
    /// How losses are found: duplicate ACKs, RFC 6675 over SACK, or RACK-TLP.
    loss: LossDetection,
    /// Limited transmit (RFC 3042).
    limited_transmit: bool,
    /// SACK recovery paces its sending by PRR (RFC 6937) rather than RFC 6675's rule.
    use_prr: bool,
    /// What the controller halves when recovery starts (`transport.ssthresh`).
    ssthresh_rule: SsthreshRule,
    /// The running PRR episode (SACK recovery with `use_prr` only).
    prr: Option<Prr>,
    /// A retransmission timeout's repair is running (until `snd_una` reaches `recover`).
    rto_recovery: bool,
    /// Delivery rate samples, for a controller that reads them (BBR).
    rate_samples: Option<Box<DeliveryRate>>,
    /// Bytes limited transmit sent beyond cwnd since the last ACK that advanced `snd_una`:
    /// RFC 5681 section 3.2 step 2 leaves them out of the FlightSize that sets ssthresh.
    limited_bytes: u64,
    pub stats: SenderStats,
}

/// What one flow's sender is built from besides `[transport]` (`world/make_flow.rs` fills it
/// from the flow's transport or the scheme that manages it).
#[derive(Clone, Debug)]
pub struct SenderSetup<'a> {
    /// Its congestion controller.
    pub cc: &'a CcConfig,
    /// It negotiates ECN.
    pub ecn: bool,
    /// The explicit rate that limits it, if a scheme sets one.
    pub rate: Option<RateLimit>,
    /// Bytes to send (`None`: unbounded).
    pub size: Option<u64>,
    /// The duplicate-ACK threshold of fast retransmit (at least 1). A transport that sprays
    /// packets over paths of different queues raises it above `transport.dupthresh` to
    /// tolerate reordering; such a sender detects loss by SACK and duplicate ACKs, not by
    /// RACK: RACK's reordering window (a quarter of the minimum RTT, without D-SACK to widen
    /// it) is shorter than spraying's reordering.
    pub dupthresh: u32,
    /// The flow's absolute deadline, for its controller (D2TCP).
    pub deadline: Option<Time>,
    /// The flow's own random stream for its controller (BBR draws its ProbeBW phase from it).
    pub rng: Option<Rng>,
}

impl<'a> SenderSetup<'a> {
    /// A plain TCP flow of `size` bytes as `[transport]` sets it up.
    pub fn tcp(cfg: &'a TcpConfig, size: Option<u64>) -> SenderSetup<'a> {
        SenderSetup {
            cc: &cfg.cc,
            ecn: cfg.ecn,
            rate: None,
            size,
            dupthresh: cfg.dupthresh,
            deadline: None,
            rng: None,
        }
    }
}

impl TcpSender {
    /// A plain TCP sender of `size` bytes ([`SenderSetup::tcp`]).
    pub fn new(cfg: &TcpConfig, size: Option<u64>) -> TcpSender {
        Self::build(cfg, &SenderSetup::tcp(cfg, size))
    }

    /// The sender of one flow: everything it will do is chosen here, its controller (told
    /// the flow's size and deadline, and given its random stream) and its loss detection
    /// among them.
    pub fn build(cfg: &TcpConfig, flow: &SenderSetup) -> TcpSender {
        let mss = cfg.mss as u64;
        let (cc, rate, size) = (flow.cc, flow.rate, flow.size);
        let spraying = flow.dupthresh > cfg.dupthresh.max(1);
        let mut built = cc.build(mss, cfg.initial_window as u64);
        built.on_flow(size, flow.deadline);
        if let Some(rng) = flow.rng.clone() {
            built.seed(rng);
        }
        TcpSender {
            mss,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cc: built,
            dupacks: 0,
            dupthresh: flow.dupthresh.max(1),
            in_recovery: false,
            recover: None,
            partial_ack_seen: false,
            ecn: flow.ecn,
            ecn_recover: None,
            send_cwr: false,
            ecn_response: cfg.ecn_response,
            cwr: None,
            rtt: RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto),
            timers: Timers::new(
                cfg.tlp_slack,
                if cfg.delayed_ack > 1 {
                    cfg.delayed_ack_timeout.max(cfg.min_rto)
                } else {
                    cfg.min_rto
                },
            ),
            limit: SendLimit {
                size,
                rwnd: cfg.receive_window.unwrap_or(u64::MAX),
                credit: u64::MAX,
                window: rate.is_none_or(|r| r.window != Window::Off),
                window_until_rate: rate.is_some_and(|r| r.window == Window::UntilRate),
                window_cap: None,
            },
            // A controller with its own pacing rate (BBR, HPCC) paces whatever
            // transport.pacing says.
            pacer: Pacer::new(
                (cfg.pacing || cc.paces()).then_some(cfg.pacing_gain),
                rate.map(|r| TokenBucket::new(r.bps, r.depth)),
                cfg.header as u64,
            ),
            retx_pending: false,
            loss: LossDetection::new(cfg.sack, cfg.rack && !spraying),
            limited_transmit: cfg.limited_transmit,
            use_prr: cfg.recovery == Recovery::Prr,
            ssthresh_rule: cfg.ssthresh,
            prr: None,
            rto_recovery: false,
            rate_samples: cc.uses_rate_samples().then(Box::default),
            limited_bytes: 0,
            stats: SenderStats::default(),
        }
    }

    /// The smoothed RTT (RFC 6298), once measured.
    pub fn srtt(&self) -> Option<Time> {
        self.rtt.srtt()
    }

    /// The congestion window that limits sending now (capped by the receive window), `None`
    /// when no window limits it (a rate-only flow).
    pub fn window(&self) -> Option<u64> {
        self.limit.window.then(|| self.wnd())
    }

    /// The explicit rate in bit/s (`None` for window-only TCP).
    pub fn rate_bps(&self) -> Option<u64> {
        self.pacer.limiter.as_deref().map(TokenBucket::bps)
    }

    /// Where the next segment falls within its packet interval at the explicit rate
    /// ([`TokenBucket::phase`]); `None` for window-only TCP or while paused.
    pub fn rate_phase(&self, now: Time) -> Option<f64> {
        self.pacer.limiter.as_deref()?.phase(now, self.mss + self.pacer.header)
    }

    /// Sets the explicit rate at `now` (a rate-limited sender only); `hold` delays the next
    /// segment until then if the bucket would let it go at once ([`TokenBucket::hold_until`]).
    pub fn set_rate(&mut self, now: Time, bps: f64, hold: Option<Time>) {
        if let Some(b) = &mut self.pacer.limiter {
            self.limit.on_rate();
            b.set_rate(now, bps);
            if let Some(at) = hold {
                b.hold_until(now, at);
            }
        }
    }

    /// Caps the bytes in flight of a rate-only flow at `bytes` (at least one segment; `None`
    /// removes the cap). A window-limited flow's congestion window is its controller's.
    pub fn set_window_cap(&mut self, bytes: Option<u64>) {
        self.limit.window_cap = bytes;
    }

    /// Bytes sent at least once, acknowledged, and the first byte not yet sent.
    pub fn progress(&self) -> (u64, u64, u64) {
        (self.snd_max, self.snd_una, self.snd_nxt)
    }

    /// The window that limits sending: cwnd (capped by the receive window), or for a
    /// rate-only flow the receive window and the scheme's cap if it set one.
    #[inline]
    fn wnd(&self) -> u64 {
        self.limit.wnd(self.cc.window(), self.mss)
    }

    /// Bytes limited transmit lets go beyond the window now: one segment for each of the
    /// first `dupthresh - 1` duplicate ACKs (RFC 3042), outside recovery.
    #[inline]
    fn limited_transmit_room(&self) -> u64 {
        if self.limited_transmit && !self.in_recovery && self.limit.window {
            self.dupacks.min(self.dupthresh - 1) as u64 * self.mss
        } else {
            0
        }
    }

    /// Whether SACK recovery (RFC 6675) is running.
    #[inline]
    fn sack_recovery(&self) -> bool {
        self.in_recovery && self.loss.sack().is_some()
    }

    /// The data outstanding, for the loss detection's rules.
    #[inline]
    fn outstanding(&self) -> Outstanding {
        Outstanding {
            una: self.snd_una,
            max: self.snd_max,
            dupthresh: self.dupthresh,
            mss: self.mss,
        }
    }

    /// RFC 6675 `SetPipe` over the scoreboard (for tests; sending uses `next_sack_segment`).
    #[cfg(test)]
    fn pipe(&self) -> u64 {
        self.loss.pipe(self.outstanding()).expect("SACK is on")
    }

    /// Whether a new segment is left to send and fits in the receive window.
    fn new_data_fits(&self) -> bool {
        let len = self.mss.min(self.limit.end().saturating_sub(self.snd_max));
        len > 0 && self.snd_max + len <= self.snd_una.saturating_add(self.limit.rwnd)
    }

    /// Time between two paced segments of `len` bytes: `len / (gain * wnd / srtt)` with `wnd`
    /// the window in use (cwnd, capped by the receive window), or `None` when pacing is off or
    /// no RTT estimate exists yet.
    pub fn pacing_interval(&self, len: u64) -> Option<Time> {
        let gain = self.pacer.gain?;
        if let Some(rate) = self.cc.pacing_rate().filter(|r| *r > 0.0) {
            return Some(Time((len as f64 * 1e12 / rate).round() as u64));
        }
        let srtt = self.rtt.srtt()?;
        let cwnd = self.cc.window().min(self.limit.rwnd).max(self.mss) as f64;
        Some(Time((len as f64 * srtt.0 as f64 / (gain * cwnd)).round() as u64))
    }

    /// Whether the pacing clock or the token bucket holds segments back at `now`.
    #[inline]
    fn paced_out(&self, now: Time) -> bool {
        self.pacer.paced_out(now)
    }

    /// Advances the pacing clock and the token bucket after a segment of `len` bytes left at `now`.
    #[inline]
    fn pace(&mut self, now: Time, len: u64) {
        let gap = self.pacing_interval(len);
        self.pacer.pace(now, len, gap);
    }

    /// When the pacing clock or the token bucket next lets a segment go that is waiting for
    /// it: `Some` only if they hold back a segment the window (or fast recovery) would send
    /// now and the bucket is not paused.
    pub fn pacing_deadline(&self, now: Time) -> Option<Time> {
        if !(self.paced_out(now) && (self.retx_pending || self.can_send())) {
            return None;
        }
        self.pacer.release_at(now)
    }

    /// All bytes of a sized flow are acknowledged.
    pub fn finished(&self) -> bool {
        self.limit.size.is_some_and(|s| self.snd_una >= s)
    }

    /// When the retransmission timer expires, if it is running.
    pub fn rto_deadline(&self) -> Option<Time> {
        self.timers.rto
    }

    /// The earliest of the sender's timers: the RTO, the tail loss probe and RACK's
    /// reordering timer.
    pub fn timer_deadline(&self) -> Option<Time> {
        self.timers.earliest()
    }

    /// Bytes in flight: the pipe (RACK's, or RFC 6675's with SACK), else snd_nxt - snd_una.
    fn in_flight(&self) -> u64 {
        self.loss.pipe(self.outstanding()).unwrap_or_else(|| self.flight())
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// Records an RTT sample taken before data flows (the connection handshake).
    pub fn seed_rtt(&mut self, rtt: Time) {
        self.rtt.sample(rtt);
    }

    pub fn rto(&self) -> Time {
        self.rtt.rto()
    }

    /// The congestion controller and its window.
    pub fn cc(&self) -> &Cc {
        &self.cc
    }

    /// Tells a controller that reads ACK signals the flow's path, before anything is sent
    /// ([`super::cc::CongestionControl::on_path`]).
    pub fn on_path(&mut self, path: &super::cc::PathInfo) {
        self.cc.on_path(path);
    }

    /// An ACK's signal for a controller that reads them, before [`Self::on_ack`] takes the
    /// same ACK ([`super::cc::CongestionControl::on_ack_signal`]): the cumulative ACK `ack`,
    /// the echoed send time `ts_echo` and the in-network telemetry it echoes.
    pub fn on_ack_signal(
        &mut self,
        now: Time,
        ack: u64,
        ts_echo: Time,
        telemetry: Option<&crate::net::telemetry::Telemetry>,
    ) {
        let sig = super::cc::AckSignal {
            now,
            ack: ack.min(self.snd_max),
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            rtt: now.saturating_sub(ts_echo),
            telemetry,
        };
        self.cc.on_ack_signal(&sig);
    }

    fn flight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    fn arm_timer(&mut self, now: Time) {
        self.timers.rto = Some(now + self.rtt.rto());
    }

    /// Opens the connection (the controller learns the handshake's RTT, if one was
    /// recorded) and sends the initial window.
    pub fn start(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.cc.on_open(now, self.rtt.srtt());
        self.send_available(now, out);
        self.update_probe_timer(now, false);
    }

    /// Limits how many segments the next call may emit (`u64::MAX` = no limit).
    pub fn set_credit(&mut self, segments: u64) {
        self.limit.credit = segments;
    }

    /// Whether the window and the pacing clock would let another segment go out at `now`.
    pub fn can_send_at(&self, now: Time) -> bool {
        !self.paced_out(now) && self.can_send()
    }

    /// Whether the window (or, in SACK recovery, the pipe) would let another segment go out
    /// now.
    pub fn can_send(&self) -> bool {
        if self.sack_recovery() {
            return self.next_sack_segment().is_some();
        }
        let wnd = self.wnd() + self.limited_transmit_room();
        let len = self.mss.min(self.limit.end().saturating_sub(self.snd_nxt));
        len > 0 && self.snd_nxt + len <= self.snd_una.saturating_add(wnd)
    }

    /// Sends what the window allows: called when host backpressure lifts.
    pub fn resume(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.send_available(now, out);
        self.update_probe_timer(now, false);
    }
}

#[cfg(test)]
mod tests;
