//! Shared-memory switch buffer with dynamic thresholds (Choudhury and Hahne, "Dynamic Queue
//! Length Thresholds for Shared-Memory Packet Switches", IEEE/ACM ToN 1998, section 3): all
//! output queues of a switch draw on one memory of `capacity` bytes, and a packet may join an
//! output queue only while that queue is shorter than `alpha` times the memory still free,
//! `T(t) = alpha (B - Q(t))`. A congested port therefore settles at a fraction
//! `alpha / (1 + alpha S)` of the memory (S congested ports) and always leaves room for the
//! others. It is consulted before the port's own discipline, which still applies its limit.

pub struct SharedBuffer {
    capacity: u64,
    alpha: f64,
    /// Bytes queued at all output ports of the switch.
    used: u64,
}

impl SharedBuffer {
    pub fn new(capacity: u64, alpha: f64) -> SharedBuffer {
        SharedBuffer { capacity, alpha, used: 0 }
    }

    /// Whether a packet of `size` bytes may join an output queue holding `queue_bytes`.
    #[inline]
    pub fn admits(&self, queue_bytes: u64, size: u32) -> bool {
        let free = self.capacity - self.used;
        (queue_bytes as f64) < self.alpha * free as f64 && size as u64 <= free
    }

    /// Accounts a change of one queue from `before` to `after` bytes.
    #[inline]
    pub fn update(&mut self, before: u64, after: u64) {
        self.used = self.used + after - before;
        debug_assert!(
            self.used <= self.capacity,
            "shared buffer over capacity: {} > {}",
            self.used,
            self.capacity
        );
    }

    pub fn used(&self) -> u64 {
        self.used
    }

    /// The current threshold alpha (B - Q) in bytes.
    pub fn threshold(&self) -> f64 {
        self.alpha * (self.capacity - self.used) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_is_alpha_times_free_memory() {
        let mut b = SharedBuffer::new(10_000, 1.0);
        assert!(b.admits(0, 1500));
        b.update(0, 4000); // one queue holds 4000: threshold 6000
        assert_eq!(b.threshold(), 6000.0);
        assert!(b.admits(4000, 1500));
        b.update(4000, 5000); // 5000 queued, threshold 5000: that queue may not grow
        assert!(!b.admits(5000, 100));
        assert!(b.admits(0, 1500), "another port still gets in");
        let half = SharedBuffer { used: 2000, ..SharedBuffer::new(10_000, 0.5) };
        assert!(half.admits(3999, 1500));
        assert!(!half.admits(4000, 1500));
    }

    #[test]
    fn one_congested_queue_settles_at_alpha_over_one_plus_alpha() {
        // Keep offering packets to a single queue that never drains: it stops at the point
        // where Q = alpha (B - Q), i.e. Q = alpha B / (1 + alpha).
        for (alpha, expect) in [(1.0, 50_000u64), (2.0, 66_000), (0.5, 33_000)] {
            let mut b = SharedBuffer::new(100_000, alpha);
            let mut q = 0;
            while b.admits(q, 1000) {
                b.update(q, q + 1000);
                q += 1000;
            }
            assert!(
                q.abs_diff(expect) <= 1000,
                "alpha {alpha}: queue {q}, expected about {expect}"
            );
        }
    }

    #[test]
    fn the_total_must_fit() {
        let mut b = SharedBuffer::new(3000, 100.0);
        b.update(0, 2000);
        assert!(!b.admits(0, 1500), "threshold is huge but only 1000 B are free");
        assert!(b.admits(0, 1000));
    }
}
