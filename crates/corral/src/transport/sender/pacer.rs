//! What holds a sender's segments back in time: the pacing clock (as Linux's fq / TCP
//! internal pacing and ns-3 `TcpSocketBase`: one segment every `len / rate`) and an explicit
//! rate's token bucket ([`TokenBucket`], for the flows a scheme sets a rate for). The rate
//! the clock runs at is the sender's ([`super::TcpSender::pacing_interval`]): it reads the
//! controller's window or pacing rate.

use crate::transport::rate::TokenBucket;
use crate::units::Time;

#[derive(Clone, Debug)]
pub(super) struct Pacer {
    /// Pacing gain (`None` = pacing off).
    pub(super) gain: Option<f64>,
    /// Earliest time the next paced segment may leave.
    next_send: Time,
    /// Explicit rate: the token bucket every segment passes (boxed: most senders have none).
    pub(super) limiter: Option<Box<TokenBucket>>,
    /// Header bytes per segment, which the token bucket counts.
    pub(super) header: u64,
}

impl Pacer {
    pub(super) fn new(gain: Option<f64>, limiter: Option<TokenBucket>, header: u64) -> Pacer {
        Pacer { gain, next_send: Time::ZERO, limiter: limiter.map(Box::new), header }
    }

    /// The earliest time at or after `now` the pacing clock and the token bucket let a
    /// segment go (`None`: the bucket is paused).
    pub(super) fn release_at(&self, now: Time) -> Option<Time> {
        let paced = if self.gain.is_some() { now.max(self.next_send) } else { now };
        match &self.limiter {
            Some(b) => b.earliest(now).map(|t| t.max(paced)),
            None => Some(paced),
        }
    }

    /// Whether the pacing clock or the token bucket holds segments back at `now`.
    #[inline]
    pub(super) fn paced_out(&self, now: Time) -> bool {
        if self.gain.is_none() && self.limiter.is_none() {
            return false;
        }
        self.release_at(now) != Some(now)
    }

    /// Advances the pacing clock by `gap` (when pacing) and the token bucket after a segment
    /// of `len` bytes left at `now`.
    #[inline]
    pub(super) fn pace(&mut self, now: Time, len: u64, gap: Option<Time>) {
        if let Some(gap) = gap {
            self.next_send = self.next_send.max(now) + gap;
        }
        if let Some(b) = &mut self.limiter {
            b.consume(now, len + self.header);
        }
    }
}
