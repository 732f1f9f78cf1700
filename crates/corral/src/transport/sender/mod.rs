//! TCP sender: byte sequence numbers, the congestion window from a [`cc`](super::cc)
//! controller, fast retransmit and fast recovery, retransmission
//! timeouts with go-back-N (RFC 6298 section 5, RFC 5681 section 3.1), and ECN reaction at
//! most once per window of data with CWR on the next new segment (RFC 3168 section 6.1.2).
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

use super::cc::{AckInfo, Cc, CcConfig};
use super::config::{EcnResponse, Recovery, SsthreshRule};
use super::delivery_rate::{DeliveryRate, RateSample};
use super::prr::Prr;
use super::rack::{RackTlp, TlpOutcome};
use super::rate::{RateLimit, TokenBucket, Window};
use super::rtt::RttEstimator;
use super::sack::NextSeg;
use super::TcpConfig;
use crate::sim::rng::Rng;
use crate::units::Time;
use limit::SendLimit;
use loss::{LossDetection, Outstanding, SackState};
use pacer::Pacer;
use timers::Timers;

mod limit;
mod loss;
mod pacer;
mod timers;

/// A segment the sender asks to put on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    pub retransmit: bool,
    /// Congestion Window Reduced: the sender has reacted to ECN-Echo.
    pub cwr: bool,
}

/// What an ACK reported (phase 1 of [`TcpSender::on_ack`]), for the phases after it.
#[derive(Clone, Copy, Debug)]
struct AckSeen {
    /// RFC 6937 DeliveredData: the change in `snd_una` plus the change in SACKed bytes.
    delivered: u64,
    /// It advanced `snd_una`.
    advanced: bool,
    /// Its delivery rate sample (a controller that reads them only).
    rate: Option<RateSample>,
    /// What it means for an outstanding tail loss probe.
    tlp: TlpOutcome,
    /// The pipe before it (a controller that reads rate samples only, else 0).
    prior_in_flight: u64,
    /// The sender was in recovery before it.
    was_in_recovery: bool,
}

/// A step of loss recovery that sets the window ([`TcpSender::recovery_window`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Recovery starts (RFC 6675 with SACK, else NewReno's).
    Enter { sack: bool },
    /// A duplicate ACK in NewReno's recovery.
    DupAck,
    /// A partial ACK in NewReno's recovery acked `acked` bytes.
    PartialAck { acked: u64 },
    /// PRR's window for an ACK of a SACK recovery: the pipe and what PRR lets go.
    Prr { pipe: u64, sndcnt: u64 },
    /// A full ACK ends recovery (`prr`: a PRR recovery).
    Exit { prr: bool },
    /// An ECN reduction brings cwnd to ssthresh: at once (`transport.ecn_response =
    /// "instant"`) or at the end of the CWR round trip.
    EcnReduced,
}

/// Why a segment leaves, which decides the bookkeeping of [`TcpSender::emit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Why {
    /// The next segment in sequence at `snd_nxt`: new data (in a SACK recovery too) or
    /// go-back-N's resending after a timeout. It moves `snd_nxt` and takes a host credit.
    Next,
    /// A loss repair below `snd_max`: a fast retransmission, a partial ACK's, a SACK hole's
    /// or the rescue retransmission. Outside the host's credit.
    Repair,
    /// A tail loss probe (RFC 8985 section 7.3), new data or the last segment again: outside
    /// the host's credit and the pacing clock.
    Probe,
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

impl TcpSender {
    pub fn new(cfg: &TcpConfig, size: Option<u64>) -> TcpSender {
        Self::with(cfg, &cfg.cc, cfg.ecn, None, size)
    }

    /// A sender with its own controller `cc` and ECN setting, optionally rate-limited.
    pub fn with(
        cfg: &TcpConfig,
        cc: &CcConfig,
        ecn: bool,
        rate: Option<RateLimit>,
        size: Option<u64>,
    ) -> TcpSender {
        let mss = cfg.mss as u64;
        TcpSender {
            mss,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cc: cc.build(mss, cfg.initial_window as u64),
            dupacks: 0,
            dupthresh: cfg.dupthresh.max(1),
            in_recovery: false,
            recover: None,
            partial_ack_seen: false,
            ecn,
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
            // A controller with its own pacing rate (BBR) paces whatever transport.pacing says.
            pacer: Pacer::new(
                (cfg.pacing || cc.uses_rate_samples()).then_some(cfg.pacing_gain),
                rate.map(|r| TokenBucket::new(r.bps, r.depth)),
                cfg.header as u64,
            ),
            retx_pending: false,
            loss: LossDetection::new(cfg.sack, cfg.rack),
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

    /// Sets the duplicate-ACK threshold of fast retransmit (at least 1); a transport that
    /// sprays packets over paths of different queues raises it to tolerate reordering. Such a
    /// sender detects loss by duplicate ACKs, not by RACK: RACK's reordering window (a quarter
    /// of the minimum RTT, without D-SACK to widen it) is shorter than spraying's reordering.
    pub fn set_dupthresh(&mut self, n: u32) {
        if n > self.dupthresh {
            if let LossDetection::Rack(s, _) = &mut self.loss {
                self.loss = LossDetection::Sack(std::mem::take(s));
            }
            self.timers.stop_rack();
        }
        self.dupthresh = n.max(1);
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

    /// RFC 6675 `NextSeg`, when `cwnd - pipe` leaves room for a segment.
    fn next_sack_segment(&self) -> Option<NextSeg> {
        self.loss.next_seg(self.outstanding(), self.cc.window(), || self.new_data_fits())
    }

    /// The SACK state (SACK recovery only).
    fn sack_state(&mut self) -> &mut SackState {
        self.loss.sack_mut().expect("SACK is on")
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

    /// The timer of [`Self::timer_deadline`] fired at `now`: RACK's reordering timer looks
    /// for losses again, the probe timeout sends a loss probe, the RTO times out.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.timers.reorder.is_some_and(|d| d <= now) {
            self.timers.reorder = None;
            // A recovery the timer starts counts one segment delivered, as Linux's
            // `tcp_rack_reo_timeout` does, so that PRR lets the retransmission go.
            self.rack_detect_loss(now, self.mss, out);
            self.send_available(now, out);
            self.update_probe_timer(now, false);
        } else if self.timers.probe.is_some_and(|d| d <= now) {
            self.timers.probe = None;
            self.send_loss_probe(now, out);
        } else if self.timers.rto.is_some_and(|d| d <= now) {
            self.on_rto(now, out);
        }
    }

    /// RACK (RFC 8985 section 6.2 steps 4-5): marks what is lost and arms the reordering
    /// timer; a loss found outside recovery starts one (on an ACK that delivered `delivered`).
    /// Returns whether it marked a segment lost.
    fn rack_detect_loss(&mut self, now: Time, delivered: u64, out: &mut Vec<Segment>) -> u64 {
        let Some(r) = self.loss.rack_mut() else { return 0 };
        let srtt = self.rtt.srtt().unwrap_or(Time::MAX);
        let before = r.lost_bytes();
        let (_, due) = r.detect_loss(now, srtt, self.in_recovery, self.dupthresh);
        let marked = r.lost_bytes() - before;
        self.timers.reorder = due;
        if !self.in_recovery && r.lost_bytes() > 0 && self.may_enter_recovery() {
            self.enter_fast_recovery(now, delivered, out);
        }
        marked
    }

    /// TLP (RFC 8985 section 7.2): arms the probe timeout while the connection is open (not
    /// in recovery, no SACKed data, no probe outstanding, data in flight), restarting it when
    /// `restart` (an ACK advanced snd_una); cancels it otherwise. It fires no later than the
    /// RTO.
    fn update_probe_timer(&mut self, now: Time, restart: bool) {
        let Some(r) = self.loss.rack() else { return };
        if self.in_recovery || self.rto_recovery || !r.may_probe() || !self.limit.window {
            self.timers.probe = None;
            return;
        }
        if restart || self.timers.probe.is_none() {
            let at = now + r.pto(self.rtt.srtt(), self.timers.tlp_slack, self.timers.tlp_single);
            self.timers.probe = Some(self.timers.rto.map_or(at, |rto| at.min(rto)));
        }
    }

    /// RFC 8985 section 7.3: the probe timeout fired. Sends one new segment if there is one
    /// the receive window allows (cwnd is not checked), else resends the highest segment
    /// sent; then re-arms the RTO.
    fn send_loss_probe(&mut self, now: Time, out: &mut Vec<Segment>) {
        let (seq, len) = if self.snd_nxt == self.snd_max && self.new_data_fits() {
            (self.snd_max, self.mss.min(self.limit.end() - self.snd_max))
        } else if let Some(last) = self.loss.rack().and_then(|r| r.last_segment()) {
            last
        } else {
            return;
        };
        let retransmitted = seq < self.snd_max;
        self.emit(now, seq, len, Why::Probe, out);
        let end = self.snd_max;
        self.rack_mut().on_probe(end, retransmitted);
        self.stats.loss_probes += 1;
        self.arm_timer(now);
    }

    fn rack_mut(&mut self) -> &mut RackTlp {
        self.loss.rack_mut().expect("RACK-TLP is on")
    }

    /// Puts one segment on the wire: every segment the sender sends leaves through here. It
    /// is a retransmission when it starts below `snd_max`, and carries CWR if it is new data
    /// after an ECN reaction. RACK and the delivery rate estimator learn when it left, PRR
    /// counts it (in a SACK recovery), and `why` says the rest: the next segment in sequence
    /// moves `snd_nxt` and takes a host credit, a loss probe leaves outside the pacing clock.
    #[inline]
    fn emit(&mut self, now: Time, seq: u64, len: u64, why: Why, out: &mut Vec<Segment>) {
        let retransmit = seq < self.snd_max;
        let cwr = !retransmit && std::mem::take(&mut self.send_cwr);
        out.push(Segment { seq, len: len as u32, retransmit, cwr });
        if let Some(r) = self.loss.rack_mut() {
            r.on_sent(seq, len, now);
        }
        if let Some(d) = &mut self.rate_samples {
            d.on_sent(seq, len, now);
        }
        if let Some(p) = self.prr.as_mut().or(self.cwr.as_mut()) {
            p.on_sent(len);
        }
        self.stats.segments_sent += 1;
        self.stats.retransmits += retransmit as u64;
        if !retransmit || why == Why::Next {
            self.snd_nxt = seq + len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
        }
        if why == Why::Next {
            self.limit.credit = self.limit.credit.saturating_sub(1);
        }
        if why != Why::Probe {
            self.pace(now, len);
        }
    }

    /// Gives this flow's random stream to its controller (BBR draws its ProbeBW phase from it).
    pub fn seed_cc(&mut self, rng: Rng) {
        self.cc.seed(rng);
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

    /// Sends new (or, after a timeout, resent) segments while the window allows.
    fn send_available(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.sack_recovery() {
            // NextSeg's rule 1 resends a paced-out fast retransmission.
            self.retx_pending = false;
            self.send_sack_recovery(now, out);
            return;
        }
        if self.retx_pending && !self.paced_out(now) {
            self.retx_pending = false;
            if self.in_recovery && self.snd_una < self.snd_max {
                self.retransmit_una(now, out);
            }
        }
        let cwnd_end = self.snd_una.saturating_add(self.wnd());
        let wnd = self.wnd() + self.limited_transmit_room();
        let limit = self.limit.end();
        while self.snd_nxt < limit && self.limit.credit > 0 && !self.paced_out(now) {
            if self.snd_nxt < self.snd_max {
                // Go-back-N after a timeout: the receiver holds what it SACKed.
                if let Some((_, end)) = self.loss.sacked_block_at(self.snd_nxt) {
                    self.snd_nxt = end;
                    continue;
                }
            }
            let len = self.mss.min(limit - self.snd_nxt);
            if self.snd_nxt + len > self.snd_una.saturating_add(wnd) {
                break;
            }
            if self.snd_nxt >= self.snd_max && self.snd_nxt + len > cwnd_end {
                self.limited_bytes += len;
            }
            self.emit(now, self.snd_nxt, len, Why::Next, out);
            if self.timers.rto.is_none() {
                self.arm_timer(now);
            }
        }
        if self.rate_samples.is_some() && self.snd_max >= limit && self.flight() < self.wnd() {
            // Nothing more to send with room in the window: samples are application-limited.
            self.rate_samples.as_deref_mut().expect("checked").note_app_limited();
        }
    }

    /// RFC 6675 section 5 step (C): while `cwnd - pipe >= MSS`, sends what `NextSeg` picks.
    /// New data uses the host's credit; retransmissions do not (as in NewReno recovery).
    fn send_sack_recovery(&mut self, now: Time, out: &mut Vec<Segment>) {
        while !self.paced_out(now) {
            let (seq, len, why) = match self.next_sack_segment() {
                None => break,
                Some(NextSeg::New) => {
                    if self.limit.credit == 0 {
                        break;
                    }
                    (self.snd_max, self.mss.min(self.limit.end() - self.snd_max), Why::Next)
                }
                Some(NextSeg::Retransmit { seq, len }) => {
                    self.sack_state().high_rxt = seq + len;
                    if seq == self.snd_una {
                        self.arm_timer(now);
                    }
                    (seq, len, Why::Repair)
                }
                Some(NextSeg::Rescue { seq, len }) => {
                    self.sack_state().rescue_allowed = false;
                    (seq, len, Why::Repair)
                }
            };
            self.emit(now, seq, len, why, out);
        }
    }

    /// PRR's window for this ACK of a SACK recovery (or, with `cwr`, of an ECN reduction)
    /// that delivered `delivered` bytes (`safe`: it advanced `snd_una` and indicated no new
    /// loss): `cwnd = pipe + sndcnt`, `sndcnt` rounded up to whole segments (RFC 6937 section
    /// 3); unchanged when it delivered nothing.
    fn prr_window(&mut self, delivered: u64, safe: bool, cwr: bool) {
        let pipe = self.in_flight();
        let episode = if cwr { &mut self.cwr } else { &mut self.prr };
        if let Some(sndcnt) = episode.as_mut().and_then(|p| p.on_ack(delivered, pipe, safe)) {
            self.recovery_window(Step::Prr { pipe, sndcnt });
        }
    }

    /// Resends the first unacknowledged segment (fast retransmit, partial ACK), at once or,
    /// when paced, at the next pacing slot (the latest request wins: it names the current
    /// first hole).
    fn retransmit_una(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.paced_out(now) {
            self.retx_pending = true;
            return;
        }
        let len = self.mss.min(self.limit.end() - self.snd_una);
        self.emit(now, self.snd_una, len, Why::Repair, out);
    }

    /// Tells the controller the flow's absolute deadline (and its size), before anything is
    /// sent (D2TCP reads both).
    pub fn set_deadline(&mut self, deadline: Option<Time>) {
        self.cc.on_flow(self.limit.size, deadline);
    }

    /// Reacts to ECN-Echo at most once per window (RFC 3168 6.1.2): the controller sets
    /// ssthresh, and the window comes down to it at once or over the next round trip
    /// (`transport.ecn_response`). Returns whether it reacted.
    fn react_to_ecn(&mut self, now: Time) -> bool {
        if !self.limit.window
            || self.in_recovery
            || self.ecn_recover.is_some_and(|r| self.snd_una <= r)
        {
            return false;
        }
        let (flight, prior_cwnd) = (self.flight(), self.cc.window());
        if self.cc.on_ecn(flight, now) {
            match self.ecn_response {
                EcnResponse::Instant => self.recovery_window(Step::EcnReduced),
                EcnResponse::Cwr => {
                    self.cwr = Some(Prr::start(self.cc.ssthresh(), prior_cwnd, self.mss));
                }
            }
        }
        self.ecn_recover = Some(self.snd_max);
        self.send_cwr = true;
        self.stats.ecn_cuts += 1;
        true
    }

    /// Linux's CWR state ends on the ACK that passes the data sent before the echo
    /// (`tcp_fastretrans_alert`: `snd_una` beyond `high_seq`): cwnd = ssthresh.
    fn end_cwr_if_passed(&mut self) {
        if self.cwr.is_some() && self.ecn_recover.is_some_and(|r| self.snd_una > r) {
            self.cwr = None;
            self.recovery_window(Step::EcnReduced);
        }
    }

    /// Processes a cumulative ACK of `ack` carrying ECN-Echo `ece`, the echoed send timestamp
    /// `ts_echo` and the SACK blocks `sack` (ignored without SACK); pushes any segments to
    /// send onto `out`. In four phases: what the ACK reports ([`Self::take_in_ack`]), the
    /// reaction to a new or a duplicate ACK ([`Self::on_new_ack`],
    /// [`Self::on_duplicate_ack`]), the losses found after it ([`Self::losses_after_ack`]),
    /// and the rate sample for a controller that reads them; then the sender sends what the
    /// window allows.
    pub fn on_ack(
        &mut self,
        now: Time,
        ack: u64,
        ece: bool,
        ts_echo: Time,
        sack: &[(u64, u64)],
        out: &mut Vec<Segment>,
    ) {
        let ece = ece && self.ecn;
        let ack = ack.min(self.snd_max);
        let seen = self.take_in_ack(now, ack, ts_echo, sack);
        let prr_due = if seen.advanced {
            self.on_new_ack(now, ack, ece, ts_echo, seen.delivered, out)
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.on_duplicate_ack(now, ece, seen.delivered, out)
        } else {
            false
        };
        let lost_bytes = self.losses_after_ack(now, &seen, prr_due, out);
        let newly_lost = lost_bytes > 0;
        if self.cwr.is_some() && !self.in_recovery {
            // The ECN reduction's step for this ACK (Linux's `tcp_cwnd_reduction`).
            self.prr_window(seen.delivered, seen.advanced && !newly_lost, true);
        }
        if self.rate_samples.is_some() {
            let entered = self.in_recovery && !seen.was_in_recovery;
            let lost = newly_lost || entered;
            // Without RACK's marks, a recovery that starts counts its first segment lost.
            let head =
                if entered && !newly_lost { self.mss.min(self.snd_max - self.snd_una) } else { 0 };
            let info = AckInfo {
                now,
                in_flight: self.in_flight(),
                prior_in_flight: seen.prior_in_flight,
                in_recovery: self.in_recovery,
                lost,
                lost_bytes: lost_bytes + head,
                srtt: self.rtt.srtt(),
                rate: seen.rate,
            };
            self.cc.on_rate_sample(&info);
        }
        self.send_available(now, out);
        self.update_probe_timer(now, seen.advanced);
    }

    /// Phase 1 of an ACK: the scoreboard, the delivery rate sample and RACK take in what it
    /// reports, before `snd_una` moves.
    fn take_in_ack(&mut self, now: Time, ack: u64, ts_echo: Time, sack: &[(u64, u64)]) -> AckSeen {
        // What a controller that reads rate samples gets (BBR): the pipe before this ACK and
        // whether it started a recovery.
        let prior_in_flight = if self.rate_samples.is_some() { self.in_flight() } else { 0 };
        let was_in_recovery = self.in_recovery;
        // RFC 6937 DeliveredData: the change in snd_una plus the change in SACKed bytes.
        let sacked_before = self.loss.sacked_bytes();
        let snd_max = self.snd_max;
        if let Some(s) = self.loss.sack_mut() {
            s.scoreboard.update(ack.max(self.snd_una), snd_max, sack);
        }
        let delivered = (ack.saturating_sub(self.snd_una) + self.loss.sacked_bytes())
            .saturating_sub(sacked_before);
        let rate =
            self.rate_samples.as_mut().and_then(|d| d.on_ack(ack.max(self.snd_una), sack, now));
        let mut tlp = TlpOutcome::None;
        if let Some(r) = self.loss.rack_mut() {
            r.on_ack(ack.max(self.snd_una), sack, now, ts_echo);
            tlp = r.tlp_on_ack(ack, delivered == 0);
        }
        let advanced = ack > self.snd_una;
        AckSeen { delivered, advanced, rate, tlp, prior_in_flight, was_in_recovery }
    }

    /// Phase 2 of an ACK that advances `snd_una`: RTT sample, the controller's feedback and
    /// ECN reaction, then recovery's step or the window's growth, and the timer (restarted by
    /// every such ACK, RFC 6298 5.3, but NewReno's "Impatient" variant). Returns whether PRR
    /// sets the window for this ACK.
    fn on_new_ack(
        &mut self,
        now: Time,
        ack: u64,
        ece: bool,
        ts_echo: Time,
        delivered: u64,
        out: &mut Vec<Segment>,
    ) -> bool {
        let acked = ack - self.snd_una;
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.rtt.sample(now.saturating_sub(ts_echo));
        self.cc.on_feedback(delivered, ece, self.snd_una, self.snd_nxt);
        self.end_cwr_if_passed();
        let cut = ece && self.react_to_ecn(now);
        let (prr_due, restart_timer) = if self.in_recovery {
            self.recovery_ack(now, ack, acked, out)
        } else {
            self.dupacks = 0;
            self.limited_bytes = 0;
            if self.rto_recovery && self.recover.is_some_and(|r| ack >= r) {
                self.rto_recovery = false;
            }
            if !cut && self.cwr.is_none() {
                let srtt = self.rtt.srtt().unwrap_or(Time::ZERO);
                self.cc.on_ack(acked, now, srtt);
            }
            (false, true)
        };
        if self.snd_una >= self.snd_max {
            self.timers.rto = None;
        } else if restart_timer {
            self.arm_timer(now);
        }
        prr_due
    }

    /// An ACK of `acked` new bytes in fast recovery: a full ACK ends it; in a SACK recovery
    /// the pipe paces what follows (PRR's window is due); NewReno resends the next hole on a
    /// partial ACK (RFC 6582 section 3.2 step 4). Returns whether PRR's window is due and
    /// whether the ACK restarts the timer.
    fn recovery_ack(
        &mut self,
        now: Time,
        ack: u64,
        acked: u64,
        out: &mut Vec<Segment>,
    ) -> (bool, bool) {
        if self.recover.is_some_and(|r| ack >= r) {
            let prr = self.prr.take().is_some();
            self.recovery_window(Step::Exit { prr });
            self.in_recovery = false;
            self.retx_pending = false;
            self.dupacks = 0;
            self.cc.on_recovery_exit(now);
            (false, true)
        } else if self.loss.sack().is_some() {
            // RFC 6675: the pipe, not an inflated window, paces recovery; every ACK that
            // advances snd_una restarts the timer.
            (true, true)
        } else {
            // Partial ACK (step 4): resend the next hole, deflate by the amount acked; only
            // the first partial ACK restarts the timer.
            self.retransmit_una(now, out);
            self.recovery_window(Step::PartialAck { acked });
            (false, !std::mem::replace(&mut self.partial_ack_seen, true))
        }
    }

    /// Phase 2 of a duplicate ACK (with data outstanding): the controller's feedback and ECN
    /// reaction; in recovery NewReno's inflation or PRR's window; outside, fast retransmit on
    /// the `dupthresh`-th duplicate or when RFC 6675's `IsLost(snd_una)` holds (RACK's marks
    /// decide instead when it is on). Returns whether PRR sets the window for this ACK.
    fn on_duplicate_ack(
        &mut self,
        now: Time,
        ece: bool,
        delivered: u64,
        out: &mut Vec<Segment>,
    ) -> bool {
        self.cc.on_feedback(delivered, ece, self.snd_una, self.snd_nxt);
        if ece {
            self.react_to_ecn(now);
        }
        self.dupacks += 1;
        if self.in_recovery {
            if self.loss.sack().is_some() {
                return true;
            }
            self.recovery_window(Step::DupAck);
        } else if self.loss.rack().is_none()
            && self.may_enter_recovery()
            && (self.dupacks == self.dupthresh || self.loss.head_is_lost(self.outstanding()))
        {
            self.enter_fast_recovery(now, delivered, out);
        }
        false
    }

    /// Phase 3 of an ACK: the reduction after a loss probe repaired a loss (RFC 8985 section
    /// 7.4), RACK's loss detection (which may start a recovery, its entry setting PRR's window
    /// for this ACK itself), then PRR's window if due. Returns the bytes RACK marked lost.
    fn losses_after_ack(
        &mut self,
        now: Time,
        seen: &AckSeen,
        prr_due: bool,
        out: &mut Vec<Segment>,
    ) -> u64 {
        if seen.tlp == TlpOutcome::Repaired && !self.in_recovery {
            self.reduce_after_repaired_probe(now);
        }
        let lost_bytes = self.rack_detect_loss(now, seen.delivered, out);
        let newly_lost = lost_bytes > 0;
        // RFC 9937's SafeACK: snd_una advanced and no further loss was indicated (a loss RACK
        // marked on this ACK; without RACK, RFC 6675's scoreboard infers losses on the fly
        // and every ACK that advances snd_una counts as safe).
        if prr_due && self.in_recovery {
            self.prr_window(seen.delivered, seen.advanced && !newly_lost, false);
        }
        lost_bytes
    }

    /// RFC 8985 section 7.4: a retransmitted probe repaired a loss; the window is reduced
    /// once, as a fast recovery would have (cwnd = ssthresh), unless this window of data was
    /// already reduced.
    fn reduce_after_repaired_probe(&mut self, now: Time) {
        if self.ecn_recover.is_some_and(|r| self.snd_una <= r) {
            return;
        }
        let flight = self.flight();
        if self.cc.on_probe_repaired(flight, now) {
            self.ecn_recover = Some(self.snd_max);
        }
    }

    /// Whether a new recovery may start: not before the cumulative ACK passes the data sent
    /// before the last one (or the last timeout). SACK recovery starts again once `snd_una`
    /// reaches `RecoveryPoint` (RFC 6675 section 5); NewReno keeps corral's earlier rule,
    /// strictly above it (one segment stricter than RFC 6582's "covers more than recover",
    /// whose `recover` is the last byte sent, not the next).
    fn may_enter_recovery(&self) -> bool {
        match self.recover {
            None => true,
            Some(r) if self.loss.sack().is_some() => self.snd_una >= r,
            Some(r) => self.snd_una > r,
        }
    }

    /// The FlightSize that sets ssthresh when recovery starts: the data outstanding, less what
    /// limited transmit sent beyond cwnd (RFC 5681 section 3.2 step 2, RFC 3042 section 2).
    fn flight_for_ssthresh(&self) -> u64 {
        self.flight().saturating_sub(self.limited_bytes)
    }

    /// The pipe when recovery starts, the first unacknowledged segment counted lost (ns-3's
    /// `EnterRecovery` marks it before it measures `BytesInFlight`); the FlightSize without
    /// SACK.
    fn pipe_for_ssthresh(&self) -> u64 {
        self.loss.pipe_head_lost(self.outstanding()).unwrap_or_else(|| self.flight_for_ssthresh())
    }

    /// RFC 6582 3.2 step 2: fast retransmit and enter fast recovery, on an ACK that delivered
    /// `delivered` bytes (by SACK).
    fn enter_fast_recovery(&mut self, now: Time, delivered: u64, out: &mut Vec<Segment>) {
        let flight = match self.ssthresh_rule {
            SsthreshRule::Flight => self.flight_for_ssthresh(),
            SsthreshRule::Pipe => self.pipe_for_ssthresh(),
        };
        self.limited_bytes = 0;
        // The recovery's own window rules take over from an ECN reduction in progress.
        self.cwr = None;
        // One reduction per window (RFC 3168 6.1.2): an ECN cut in this window already set
        // ssthresh for this congestion event.
        if self.ecn_recover.is_none_or(|r| self.snd_una > r) {
            self.cc.on_loss(flight, now);
        }
        self.send_cwr = self.ecn;
        self.recover = Some(self.snd_max);
        self.ecn_recover = Some(self.snd_max);
        self.in_recovery = true;
        self.partial_ack_seen = false;
        self.stats.fast_recoveries += 1;
        if self.loss.sack().is_some() {
            // RFC 6675 section 5 step (4): cwnd = ssthresh (or PRR's window for this ACK),
            // retransmit the first segment, then send as the pipe allows.
            self.sack_state().high_rxt = self.snd_una;
            self.timers.probe = None;
            if self.use_prr {
                // RFC 6937 RecoverFS: the FlightSize, or under the pipe rule the pipe (ns-3).
                let recover_fs = if self.ssthresh_rule == SsthreshRule::Pipe {
                    flight
                } else {
                    self.snd_max - self.snd_una
                };
                self.prr = Some(Prr::start(self.cc.ssthresh(), recover_fs, self.mss));
                self.prr_window(delivered, false, false);
            } else {
                self.recovery_window(Step::Enter { sack: true });
            }
            self.sack_state().rescue_allowed = true;
            if self.loss.rack().is_some() {
                // RACK's marks say what to resend: the caller sends it by NextSeg.
                return;
            }
            self.retransmit_una(now, out);
            if !self.retx_pending {
                self.sack_state().high_rxt =
                    self.snd_una + self.mss.min(self.limit.end() - self.snd_una);
                self.arm_timer(now);
            }
            return;
        }
        self.retransmit_una(now, out);
        self.recovery_window(Step::Enter { sack: false });
    }

    /// The window loss recovery asks of the controller at `step`: the one place the sender
    /// sets a window, which the controller takes or, if it keeps its own through recovery
    /// (BBR), ignores ([`crate::transport::cc::CongestionControl::on_recovery_window`]).
    fn recovery_window(&mut self, step: Step) {
        let (cwnd, ssthresh, mss) = (self.cc.window(), self.cc.ssthresh(), self.mss);
        let next = match step {
            // RFC 6675 section 5 step (4.2); RFC 6582 section 3.2 step 2.
            Step::Enter { sack: true } => ssthresh.max(mss),
            Step::Enter { sack: false } => ssthresh.saturating_add(3 * mss),
            // RFC 6582 section 3.2 step 3: one MSS per duplicate ACK.
            Step::DupAck => cwnd.saturating_add(mss),
            // Step 4: deflate by the amount acked, add back one MSS if it was at least one.
            Step::PartialAck { acked } => {
                (cwnd.saturating_sub(acked) + if acked >= mss { mss } else { 0 }).max(mss)
            }
            // RFC 6937 section 3: `pipe + sndcnt`, sndcnt rounded up to whole segments.
            Step::Prr { pipe, sndcnt } => pipe + sndcnt.div_ceil(mss) * mss,
            // PRR ends at ssthresh (RFC 6937); NewReno and RFC 6675 deflate to
            // min(ssthresh, FlightSize + MSS) (RFC 6582 3.2 step 3).
            Step::Exit { prr: true } | Step::EcnReduced => ssthresh.max(mss),
            Step::Exit { prr: false } => {
                ssthresh.min(self.snd_nxt.saturating_sub(self.snd_una).max(mss) + mss)
            }
        };
        self.cc.on_recovery_window(next);
    }

    /// The retransmission timer fired at `now` (the caller checks `now >= rto_deadline`).
    pub fn on_rto(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.snd_una >= self.snd_max {
            self.timers.rto = None;
            return;
        }
        self.stats.timeouts += 1;
        let flight = self.snd_max - self.snd_una;
        if self.rtt.backoff() == 0 && !self.sack_recovery() {
            self.cc.on_timeout(flight, now);
        } else {
            // The same segment timed out again: ssthresh is held (RFC 5681 section 3.1). So it
            // is when SACK recovery times out (Linux's tcp_enter_loss): the recovery already
            // cut it, and the flight, SACKed bytes included, may have grown far beyond the
            // window while a lost retransmission held snd_una.
            self.cc.on_timeout_again();
        }
        self.send_cwr = self.ecn;
        self.recover = Some(self.snd_max);
        self.ecn_recover = Some(self.snd_max);
        self.in_recovery = false;
        self.prr = None;
        self.cwr = None;
        self.rto_recovery = true;
        self.timers.stop_rack();
        if let Some(r) = self.loss.rack_mut() {
            r.on_rto();
        }
        self.retx_pending = false;
        if let Some(s) = self.loss.sack_mut() {
            s.rescue_allowed = false;
        }
        self.dupacks = 0;
        self.limited_bytes = 0;
        self.snd_nxt = self.snd_una;
        self.rtt.back_off();
        self.arm_timer(now);
        self.send_available(now, out);
    }
}

#[cfg(test)]
mod tests;
