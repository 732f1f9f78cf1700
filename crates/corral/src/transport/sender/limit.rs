//! What bounds how much a sender may have out, apart from its controller: the flow's size,
//! the receive window, the host's credit (NIC backpressure, `world/hosts.rs`), and for an
//! explicit-rate flow ([`crate::transport::rate`]) whether the congestion window applies at
//! all and the window cap a scheme may set instead.

#[derive(Clone, Debug)]
pub(super) struct SendLimit {
    /// Bytes to send; `None` = unbounded.
    pub(super) size: Option<u64>,
    /// The receive window (bytes; `u64::MAX` when unlimited).
    pub(super) rwnd: u64,
    /// New segments the sender may still hand to its host now (host NIC backpressure);
    /// `u64::MAX` when unlimited. Retransmissions in fast recovery are not counted.
    pub(super) credit: u64,
    /// The congestion window limits sending (false for rate-only flows).
    pub(super) window: bool,
    /// The window stops limiting at the first explicit rate.
    pub(super) window_until_rate: bool,
    /// A window a scheme sets for a rate-only flow (`set_window_cap`): bytes in flight are
    /// kept under it, as under a congestion window, with the rate still applied.
    pub(super) window_cap: Option<u64>,
}

impl SendLimit {
    /// The end of the data: the flow's size, or `u64::MAX` for an unbounded flow.
    #[inline]
    pub(super) fn end(&self) -> u64 {
        self.size.unwrap_or(u64::MAX)
    }

    /// The window that limits sending: `cwnd` (capped by the receive window), or for a
    /// rate-only flow the receive window and the scheme's cap if it set one; at least `mss`.
    #[inline]
    pub(super) fn wnd(&self, cwnd: u64, mss: u64) -> u64 {
        if self.window {
            cwnd.min(self.rwnd).max(mss)
        } else {
            self.window_cap.map_or(self.rwnd, |cap| cap.max(mss).min(self.rwnd))
        }
    }

    /// The first explicit rate arrived: a window kept only until then stops limiting.
    pub(super) fn on_rate(&mut self) {
        if self.window_until_rate {
            self.window_until_rate = false;
            self.window = false;
        }
    }
}
