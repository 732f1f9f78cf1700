//! Random Early Detection (Floyd and Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1993, section 4 and Fig. 2), with the "gentle"
//! variant (Floyd, 2000) and ECN marking instead of early drops (RFC 3168 section 7;
//! RFC 7567).
//!
//! On every arrival the average queue `avg` moves toward the instantaneous queue `q` with
//! weight `w_q`; an arrival that finds the port idle instead decays `avg` as if `m` typical
//! packets had been sent during the idle time: `avg = (1 - w_q)^m avg`. Between `min_th` and
//! `max_th` a packet is dropped (or marked) with `p_a = p_b / (1 - count p_b)`, where
//! `p_b = max_p (avg - min_th) / (max_th - min_th)` and `count` is the number of packets
//! since the last drop, which spaces drops out evenly. Above `max_th` every packet is dropped,
//! except in gentle mode where `p_b` rises linearly from `max_p` to 1 up to `2 max_th`. With
//! thresholds in bytes, `q` and `avg` are in bytes and `p_b` is scaled by the packet's size
//! over the typical packet size (the paper's byte mode). Packets that do not fit in the
//! buffer are always dropped. The TCP Outcast paper (NSDI 2012, section 5, Table 2) uses
//! min 5, max 15 packets, w_q 0.002.

use super::{fits, Admit, Arrival, Discipline, Fifo};
use crate::error::{ensure, Result};
use crate::ids::PktId;
use crate::sim::rng::Rng;
use crate::units::{BufferSize, Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

/// What an early congestion signal does.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RedMode {
    /// Drop the packet.
    Drop,
    /// Set CE on ECN-capable packets; drop the others.
    Mark,
}

/// `[switch.red]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RedConfig {
    /// Lower threshold on the average queue, bytes or packets (default "5pkt").
    #[serde(serialize_with = "crate::config::ser_buffer")]
    pub min_th: BufferSize,
    /// Upper threshold, same unit as `min_th` (default "15pkt").
    #[serde(serialize_with = "crate::config::ser_buffer")]
    pub max_th: BufferSize,
    /// EWMA weight of the average queue (default 0.002).
    pub w_q: f64,
    /// Drop probability at `max_th` (default 0.1).
    pub max_p: f64,
    /// Gentle RED: between max_th and 2 max_th the probability rises from max_p to 1 (default false).
    pub gentle: bool,
    /// "drop" or "mark" (default "drop").
    pub mode: RedMode,
    /// Typical packet size: sets the idle-time decay (m = idle time / its transmission time)
    /// and the byte-mode scaling (default "1500B").
    pub mean_packet: Bytes,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            min_th: BufferSize::Packets(5),
            max_th: BufferSize::Packets(15),
            w_q: 0.002,
            max_p: 0.1,
            gentle: false,
            mode: RedMode::Drop,
            mean_packet: Bytes(1500),
        }
    }
}

impl RedConfig {
    /// Checks values; `path` is the table's key path (e.g. "switch.red").
    pub fn validate(&self, path: &str) -> Result<()> {
        let at = |k: &str| format!("{path}.{k}");
        let (lo, hi, same_unit) = match (self.min_th, self.max_th) {
            (BufferSize::Bytes(a), BufferSize::Bytes(b))
            | (BufferSize::Packets(a), BufferSize::Packets(b)) => (a, b, true),
            (BufferSize::Bytes(a), BufferSize::Packets(b))
            | (BufferSize::Packets(a), BufferSize::Bytes(b)) => (a, b, false),
        };
        ensure(same_unit, &at("max_th"), || {
            "must use the same unit as min_th (both bytes or both packets)".into()
        })?;
        ensure(lo < hi, &at("max_th"), || {
            format!("must be greater than min_th ({lo} < {hi} expected)")
        })?;
        ensure(self.w_q > 0.0 && self.w_q <= 1.0, &at("w_q"), || {
            format!("must be in (0, 1], got {}", self.w_q)
        })?;
        ensure(self.max_p > 0.0 && self.max_p <= 1.0, &at("max_p"), || {
            format!("must be in (0, 1], got {}", self.max_p)
        })?;
        ensure(self.mean_packet.0 > 0, &at("mean_packet"), || "must be positive".into())?;
        Ok(())
    }
}

fn amount(b: BufferSize) -> f64 {
    match b {
        BufferSize::Bytes(n) | BufferSize::Packets(n) => n as f64,
    }
}

pub struct Red {
    fifo: Fifo,
    limit: BufferSize,
    cfg: RedConfig,
    /// Transmission time of a typical packet at the port's rate.
    typical_tx: Time,
    rate: Rate,
    bytes_mode: bool,
    /// Average queue, in packets or bytes (the thresholds' unit).
    avg: f64,
    /// Packets since the last early drop or mark; -1 while avg is below min_th.
    count: i64,
    /// When the port went idle (queue empty and wire free), if it is idle.
    idle_since: Option<Time>,
    rng: Rng,
}

impl Red {
    /// A RED queue for a port of `rate` with buffer `limit`, drawing from `rng`.
    pub fn new(limit: BufferSize, cfg: RedConfig, rate: Rate, rng: Rng) -> Red {
        Red {
            fifo: Fifo::default(),
            limit,
            typical_tx: rate.tx_time(cfg.mean_packet.0).max(Time::from_ps(1)),
            rate,
            bytes_mode: matches!(cfg.min_th, BufferSize::Bytes(_)),
            cfg,
            avg: 0.0,
            count: -1,
            idle_since: Some(Time::ZERO),
            rng,
        }
    }

    /// The average queue (packets or bytes).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    fn occupancy(&self) -> f64 {
        if self.bytes_mode {
            self.fifo.bytes() as f64
        } else {
            self.fifo.len() as f64
        }
    }

    /// Updates the average for an arrival at `now` (the first step of Fig. 2).
    fn update_avg(&mut self, now: Time) {
        let w = self.cfg.w_q;
        match self.idle_since {
            Some(t) if self.fifo.is_empty() && now >= t => {
                let m = (now - t).ps() as f64 / self.typical_tx.ps() as f64;
                self.avg *= (1.0 - w).powf(m);
                // The decay up to `now` is applied; if this packet is not queued the port
                // stays idle from here.
                self.idle_since = Some(now);
            }
            _ => self.avg = (1.0 - w) * self.avg + w * self.occupancy(),
        }
    }

    /// Before spacing: the base probability p_b for a packet of `size` bytes at the current
    /// average, or None below min_th. Updates nothing.
    fn base_probability(&self, size: u32) -> Option<f64> {
        let (lo, hi) = (amount(self.cfg.min_th), amount(self.cfg.max_th));
        let avg = self.avg;
        let p = if avg < lo {
            return None;
        } else if avg < hi {
            self.cfg.max_p * (avg - lo) / (hi - lo)
        } else if self.cfg.gentle && avg < 2.0 * hi {
            self.cfg.max_p + (1.0 - self.cfg.max_p) * (avg - hi) / hi
        } else {
            return Some(1.0);
        };
        Some(if self.bytes_mode {
            (p * size as f64 / self.cfg.mean_packet.0 as f64).min(1.0)
        } else {
            p
        })
    }

    /// p_a from p_b and the packets since the last drop (uniform spacing of drops).
    fn spaced(p_b: f64, count: i64) -> f64 {
        let d = 1.0 - count as f64 * p_b;
        if p_b >= 1.0 || d <= p_b {
            1.0
        } else {
            p_b / d
        }
    }

    /// Whether this arrival gets an early congestion signal (steps 2-3 of Fig. 2).
    fn early_signal(&mut self, size: u32) -> bool {
        match self.base_probability(size) {
            None => {
                self.count = -1;
                false
            }
            Some(p_b) if p_b >= 1.0 => {
                self.count = 0;
                true
            }
            Some(p_b) => {
                self.count += 1;
                if self.rng.unit() < Self::spaced(p_b, self.count) {
                    self.count = 0;
                    true
                } else {
                    false
                }
            }
        }
    }
}

impl Discipline for Red {
    #[inline]
    fn enqueue(&mut self, a: Arrival) -> Admit {
        self.update_avg(a.now);
        let signal = self.early_signal(a.size);
        let room = fits(self.limit, self.fifo.bytes(), self.fifo.len() as u64, a.size);
        if !room {
            self.count = 0;
            return Admit::Drop;
        }
        let mark = match (signal, self.cfg.mode, a.ect) {
            (false, _, _) => false,
            (true, RedMode::Mark, true) => true,
            (true, _, _) => return Admit::Drop,
        };
        self.fifo.push(a.pkt, a.size);
        Admit::Accept { mark }
    }

    /// Takes the next packet, which starts on the wire at `now`; the port goes idle when it
    /// has been sent if nothing else is queued.
    fn dequeue(&mut self, now: Time) -> Option<(PktId, u32)> {
        let (p, s) = self.fifo.pop()?;
        if self.fifo.is_empty() {
            self.idle_since = Some(now + self.rate.tx_time(s as u64));
        }
        Some((p, s))
    }

    fifo_accessors!(bytes_and_packets_only);
}

impl super::Declared for Red {
    type Config = RedConfig;
    fn validate(cfg: &RedConfig, path: &str) -> Result<()> {
        cfg.validate(path)
    }
    /// Each port, and each priority class of it, has its own random stream.
    fn build(cfg: &RedConfig, _settings: &super::QueueSettings, port: &super::PortQueue) -> Red {
        let rng = crate::sim::rng::Rng::stream(
            port.seed,
            crate::sim::rng::stream::RED,
            (port.port * 8 + port.class) as u64,
        );
        Red::new(port.buffer, cfg.clone(), port.rate, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Rate;

    const GBPS: Rate = Rate(1_000_000_000);

    fn red(cfg: RedConfig, limit: BufferSize) -> Red {
        Red::new(limit, cfg, GBPS, Rng::stream(1, 7, 0))
    }

    #[test]
    fn average_follows_the_ewma_of_the_queue_seen_on_arrival() {
        let cfg = RedConfig {
            w_q: 0.5,
            min_th: BufferSize::Packets(50),
            max_th: BufferSize::Packets(60),
            ..RedConfig::default()
        };
        let mut q = red(cfg, BufferSize::Packets(100));
        // Queue before each arrival: 0 (idle at t=0: no decay, avg 0), 1, 2, 3.
        let mut avgs = Vec::new();
        for i in 0..4 {
            assert_eq!(
                q.enqueue(Arrival { now: Time::from_us(1), ..Arrival::test(i, 1500) }),
                Admit::Accept { mark: false }
            );
            avgs.push(q.avg());
        }
        assert_eq!(avgs, vec![0.0, 0.5, 1.25, 2.125]);
    }

    #[test]
    fn base_and_spaced_probabilities_match_the_paper_formulas() {
        let mut q = red(RedConfig::default(), BufferSize::Packets(100)); // min 5, max 15, max_p 0.1
        q.avg = 4.99;
        assert_eq!(q.base_probability(1500), None);
        q.avg = 10.0;
        assert!((q.base_probability(1500).unwrap() - 0.05).abs() < 1e-12);
        q.avg = 15.0;
        assert_eq!(q.base_probability(1500), Some(1.0));
        // p_a = p_b / (1 - count p_b): 0.05 at count 0, 0.05/0.5 = 0.1 at count 10, 1 at 19+.
        assert!((Red::spaced(0.05, 0) - 0.05).abs() < 1e-12);
        assert!((Red::spaced(0.05, 10) - 0.1).abs() < 1e-12);
        assert_eq!(Red::spaced(0.05, 19), 1.0);
        assert_eq!(Red::spaced(0.05, 25), 1.0);
    }

    #[test]
    fn count_spacing_makes_gaps_between_drops_uniform_not_geometric() {
        // Hold avg at 10 packets (p_b = 0.05). Fig. 2 increments count before computing
        // p_a = p_b/(1 - count p_b), so the n-th arrival after a drop survives with
        // (1 - (n+1) p_b)/(1 - n p_b): P(gap > n) = (1 - (n+1) p_b)/(1 - p_b), and the gap is
        // uniform on 1..=19 (mean 10); a geometric gap would exceed 19 about 38% of the time.
        let mut q = red(RedConfig::default(), BufferSize::Packets(1_000_000));
        q.cfg.w_q = 0.0; // freeze the average for the test
        q.avg = 10.0;
        q.idle_since = None;
        let (mut gaps, mut since) = (Vec::new(), 0u32);
        for i in 0..40_000 {
            since += 1;
            if q.enqueue(Arrival { now: Time::from_us(1), ..Arrival::test(i, 1500) }) == Admit::Drop
            {
                gaps.push(since);
                since = 0;
            }
        }
        assert!(gaps.len() > 3000, "{} drops", gaps.len());
        assert!(
            gaps.iter().all(|&g| (1..=19).contains(&g)),
            "gap out of 1..=19: {:?}",
            gaps.iter().max()
        );
        let mean = gaps.iter().sum::<u32>() as f64 / gaps.len() as f64;
        assert!((mean - 10.0).abs() < 0.3, "mean gap {mean}");
        let ones = gaps.iter().filter(|&&g| g == 1).count() as f64 / gaps.len() as f64;
        assert!((ones - 1.0 / 19.0).abs() < 0.015, "share of gap 1: {ones}");
    }

    #[test]
    fn gentle_mode_ramps_from_max_p_to_one_between_max_th_and_twice_max_th() {
        let mut q =
            red(RedConfig { gentle: true, ..RedConfig::default() }, BufferSize::Packets(100));
        q.avg = 15.0;
        assert!((q.base_probability(1500).unwrap() - 0.1).abs() < 1e-12);
        q.avg = 22.5; // halfway from 15 to 30: 0.1 + 0.9 * 0.5
        assert!((q.base_probability(1500).unwrap() - 0.55).abs() < 1e-12);
        q.avg = 30.0;
        assert_eq!(q.base_probability(1500), Some(1.0));
        let mut hard = red(RedConfig::default(), BufferSize::Packets(100));
        hard.avg = 22.5;
        assert_eq!(hard.base_probability(1500), Some(1.0));
    }

    #[test]
    fn byte_mode_scales_probability_by_packet_size() {
        let cfg = RedConfig {
            min_th: BufferSize::Bytes(5000),
            max_th: BufferSize::Bytes(15000),
            ..RedConfig::default()
        };
        let mut q = red(cfg, BufferSize::Bytes(100_000));
        q.avg = 10_000.0;
        assert!((q.base_probability(1500).unwrap() - 0.05).abs() < 1e-12);
        assert!((q.base_probability(300).unwrap() - 0.01).abs() < 1e-12);
    }

    #[test]
    fn idle_time_decays_the_average_by_one_minus_w_q_to_the_m() {
        let cfg = RedConfig { w_q: 0.1, ..RedConfig::default() };
        let mut q = red(cfg, BufferSize::Packets(100));
        q.avg = 8.0;
        q.idle_since = None;
        q.fifo.push(PktId(0), 1500);
        // The last packet leaves at t = 0 and takes 12 us at 1 Gbps: idle from 12 us.
        assert_eq!(q.dequeue(Time::ZERO), Some((PktId(0), 1500)));
        assert_eq!(q.idle_since, Some(Time::from_us(12)));
        // Arrival 10 typical packet times (120 us) after going idle: avg = 0.9^10 * 8.
        q.enqueue(Arrival { now: Time::from_us(132), ..Arrival::test(1, 1500) });
        assert!((q.avg() - 8.0 * 0.9f64.powi(10)).abs() < 1e-9, "{}", q.avg());
        // An arrival while the queue is empty but the wire still busy uses the EWMA with q = 0.
        let mut b = red(RedConfig { w_q: 0.1, ..RedConfig::default() }, BufferSize::Packets(100));
        b.avg = 8.0;
        b.fifo.push(PktId(0), 1500);
        b.dequeue(Time::ZERO);
        b.enqueue(Arrival { now: Time::from_us(5), ..Arrival::test(1, 1500) });
        assert!((b.avg() - 7.2).abs() < 1e-12);
    }

    #[test]
    fn mark_mode_marks_ect_drops_non_ect_and_always_drops_when_full() {
        let cfg = RedConfig { mode: RedMode::Mark, ..RedConfig::default() };
        let mut q = red(cfg, BufferSize::Packets(3));
        q.cfg.w_q = 0.0;
        q.avg = 20.0; // above max_th: every arrival is signalled
        q.idle_since = None;
        assert_eq!(q.enqueue(Arrival::test(0, 1500)), Admit::Accept { mark: true });
        assert_eq!(q.enqueue(Arrival { ect: false, ..Arrival::test(1, 1500) }), Admit::Drop);
        assert_eq!(q.enqueue(Arrival::test(2, 1500)), Admit::Accept { mark: true });
        assert_eq!(q.enqueue(Arrival::test(3, 1500)), Admit::Accept { mark: true });
        assert_eq!(q.enqueue(Arrival::test(4, 1500)), Admit::Drop); // buffer of 3 is full
        let mut d = red(RedConfig::default(), BufferSize::Packets(3));
        d.cfg.w_q = 0.0;
        d.avg = 20.0;
        assert_eq!(d.enqueue(Arrival::test(0, 1500)), Admit::Drop); // drop mode drops ECT too
    }

    #[test]
    fn below_min_th_never_drops_and_resets_count() {
        let mut q = red(RedConfig::default(), BufferSize::Packets(4));
        for i in 0..4 {
            assert_eq!(q.enqueue(Arrival::test(i, 1500)), Admit::Accept { mark: false });
        }
        assert_eq!(q.count, -1);
        assert_eq!(q.enqueue(Arrival::test(9, 1500)), Admit::Drop); // only the hard limit
    }
}
