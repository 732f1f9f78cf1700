//! Stochastic Fairness Queueing (McKenney, "Stochastic Fairness Queueing", INFOCOM 1990;
//! Linux sch_sfq): flows are hashed with a salt into `buckets` queues that share the port's
//! buffer and are served byte-fairly by deficit round robin with `quantum` (see [`super::rounds`]).
//! Every `perturb` interval the salt changes, so flows that collided move apart; the queued
//! packets move to their flows' new buckets in order (Linux `sfq_rehash`), so a flow is never
//! split over two buckets and its packets never leave out of order. When the buffer overflows, the arrival is
//! queued and the last packet of the longest bucket (bytes for a byte limit, packets for a
//! packet limit) is dropped, which may be the arrival itself; with `drop = "head"` (Linux's
//! `headdrop`) the bucket's oldest packet is dropped instead. The TCP Outcast paper (NSDI 2012,
//! section 5, Table 2) uses 4 buckets to show that fair queueing removes the outcast effect.

use super::rounds::Rounds;
use super::{Admit, Arrival, Discipline};
use crate::error::{ensure, Result};
use crate::ids::PktId;
use crate::sim::rng::{mix64, Rng};
use crate::units::{BufferSize, Bytes, Time};
use serde::{Deserialize, Serialize};

/// Which packet of the longest bucket an overflow drops.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SfqDrop {
    /// The newest (Linux sch_sfq's default).
    Tail,
    /// The oldest (Linux `headdrop`): the loss is signalled a queue's worth of time sooner.
    Head,
}

/// `[switch.sfq]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SfqConfig {
    /// Number of hash buckets (default 4, as in the TCP Outcast paper; Linux uses 1024).
    pub buckets: u32,
    /// Bytes a bucket may send per round (default "1500B", one MTU).
    pub quantum: Bytes,
    /// Re-salt the hash this often (default "0s": never).
    pub perturb: Time,
    /// "tail" (default) or "head": which end of the longest bucket loses a packet on overflow.
    pub drop: SfqDrop,
}

impl Default for SfqConfig {
    fn default() -> Self {
        SfqConfig { buckets: 4, quantum: Bytes(1500), perturb: Time::ZERO, drop: SfqDrop::Tail }
    }
}

impl SfqConfig {
    pub fn validate(&self, path: &str) -> Result<()> {
        ensure((1..=65536).contains(&self.buckets), &format!("{path}.buckets"), || {
            format!("must be between 1 and 65536, got {}", self.buckets)
        })?;
        ensure(self.quantum.0 > 0, &format!("{path}.quantum"), || "must be positive".into())?;
        Ok(())
    }
}

pub struct Sfq {
    rounds: Rounds,
    limit: BufferSize,
    perturb: Time,
    head_drop: bool,
    salt: u64,
    next_perturb: Time,
    rng: Rng,
}

impl Sfq {
    pub fn new(limit: BufferSize, cfg: &SfqConfig, mut rng: Rng) -> Sfq {
        let salt = rng.next_u64();
        Sfq {
            rounds: Rounds::new(cfg.buckets as usize, cfg.quantum.0 as i64),
            limit,
            perturb: cfg.perturb,
            head_drop: cfg.drop == SfqDrop::Head,
            salt,
            next_perturb: cfg.perturb,
            rng,
        }
    }

    /// The bucket of `flow` under the current salt.
    pub fn bucket(&self, flow: u32) -> u32 {
        (mix64(flow as u64 ^ self.salt) % self.rounds.slots.len() as u64) as u32
    }
}

impl Discipline for Sfq {
    fn enqueue(&mut self, a: Arrival) -> Admit {
        if self.perturb > Time::ZERO && a.now >= self.next_perturb {
            self.salt = self.rng.next_u64();
            let periods = (a.now - self.next_perturb).ps() / self.perturb.ps() + 1;
            self.next_perturb = self.next_perturb + Time(periods * self.perturb.ps());
            for (pkt, size, flow) in self.rounds.drain() {
                let b = self.bucket(flow);
                self.rounds.push(b, pkt, size, flow);
            }
        }
        debug_assert!(
            self.rounds.victims.is_empty(),
            "victims of the previous enqueue were not collected"
        );
        let b = self.bucket(a.flow.0);
        self.rounds.push(b, a.pkt, a.size, a.flow.0);
        let by_bytes = matches!(self.limit, BufferSize::Bytes(_));
        while self.rounds.over(self.limit) {
            let v = self
                .rounds
                .longest(|s| if by_bytes { s.bytes as f64 } else { s.q.len() as f64 })
                .expect("over the limit means backlogged");
            let victim =
                if self.head_drop { self.rounds.drop_head(v) } else { self.rounds.drop_tail(v) };
            let (pkt, size) = victim.expect("longest is backlogged");
            if pkt == a.pkt {
                return Admit::Drop;
            }
            self.rounds.victims.push((pkt, size));
        }
        self.rounds.verdict()
    }

    fn dequeue(&mut self, _now: Time) -> Option<(PktId, u32)> {
        self.rounds.pop().map(|(p, s, _)| (p, s))
    }

    rounds_accessors!();
}

impl super::Declared for Sfq {
    type Config = SfqConfig;
    fn validate(cfg: &SfqConfig, path: &str) -> Result<()> {
        cfg.validate(path)
    }
    fn build(cfg: &SfqConfig, _settings: &super::QueueSettings, port: &super::PortQueue) -> Sfq {
        Sfq::new(
            port.buffer,
            cfg,
            crate::sim::rng::Rng::stream(port.seed, crate::sim::rng::stream::SFQ, port.port as u64),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;

    fn sfq(buckets: u32, limit: BufferSize) -> Sfq {
        Sfq::new(limit, &SfqConfig { buckets, ..SfqConfig::default() }, Rng::stream(1, 8, 0))
    }

    /// Two flows that hash to different buckets.
    fn two_flows(q: &Sfq) -> (u32, u32) {
        let a = 0;
        let b = (1..100).find(|&f| q.bucket(f) != q.bucket(a)).unwrap();
        (a, b)
    }

    #[test]
    fn heavy_and_light_buckets_are_served_equal_bytes_within_one_quantum() {
        let mut q = sfq(4, BufferSize::Packets(100_000));
        let (heavy, light) = two_flows(&q);
        let arr = |i: u32, f: u32, size| Arrival { flow: FlowId(f), ..Arrival::test(i, size) };
        let mut id = 0;
        for _ in 0..200 {
            q.enqueue(arr(id, heavy, 1500));
            id += 1;
            for _ in 0..5 {
                q.enqueue(arr(id, light, 300));
                id += 1;
            }
        }
        // Also queue extra light packets so both stay backlogged throughout.
        for _ in 0..200 {
            q.enqueue(arr(id, light, 300));
            id += 1;
        }
        let heavy_bucket = q.bucket(heavy);
        let (mut hb, mut lb) = (0i64, 0i64);
        for _ in 0..600 {
            let (p, s) = q.dequeue(Time::ZERO).unwrap();
            // Packet ids tell which flow sent them: heavy ids are multiples of 6 below 1200.
            if p.0 < 1200 && p.0 % 6 == 0 {
                hb += s as i64;
            } else {
                lb += s as i64;
            }
            assert!((hb - lb).abs() <= 1500, "served heavy {hb} B, light {lb} B");
        }
        assert!(hb > 50_000 && lb > 50_000);
        assert_ne!(heavy_bucket, q.bucket(light));
    }

    #[test]
    fn overflow_drops_the_tail_of_the_longest_bucket_even_if_the_arrival_is_elsewhere() {
        let mut q = sfq(4, BufferSize::Packets(4));
        let (a, b) = two_flows(&q);
        let arr = |i: u32, f: u32| Arrival { flow: FlowId(f), ..Arrival::test(i, 1500) };
        for i in 0..4 {
            assert_eq!(q.enqueue(arr(i, a)), Admit::Accept { mark: false });
        }
        // Full: flow b's packet is queued and flow a's newest packet (3) is dropped.
        assert_eq!(q.enqueue(arr(10, b)), Admit::Displace { mark: false });
        assert_eq!(q.rounds.victims.pop(), Some((PktId(3), 1500)));
        assert_eq!(q.rounds.packets(), 4);
        // Now a holds 3, b holds 1: another packet of a is itself the longest bucket's tail.
        assert_eq!(q.enqueue(arr(11, a)), Admit::Drop);
        assert!(q.rounds.victims.is_empty());
        let mut out: Vec<u32> =
            std::iter::from_fn(|| q.dequeue(Time::ZERO).map(|(p, _)| p.0)).collect();
        out.sort();
        assert_eq!(out, vec![0, 1, 2, 10]);
    }

    #[test]
    fn head_drop_takes_the_oldest_packet_of_the_longest_bucket() {
        let cfg = SfqConfig { drop: SfqDrop::Head, ..SfqConfig::default() };
        let mut q = Sfq::new(BufferSize::Packets(3), &cfg, Rng::stream(1, 8, 0));
        let (a, b) = two_flows(&q);
        let arr = |i: u32, f: u32| Arrival { flow: FlowId(f), ..Arrival::test(i, 1500) };
        for i in 0..3 {
            q.enqueue(arr(i, a));
        }
        assert_eq!(q.enqueue(arr(10, b)), Admit::Displace { mark: false });
        assert_eq!(q.rounds.victims.pop(), Some((PktId(0), 1500)));
        // Flow a again: its bucket (2 queued + the arrival) is longest; its oldest goes.
        assert_eq!(q.enqueue(arr(11, a)), Admit::Displace { mark: false });
        assert_eq!(q.rounds.victims.pop(), Some((PktId(1), 1500)));
        let mut out: Vec<u32> =
            std::iter::from_fn(|| q.dequeue(Time::ZERO).map(|(p, _)| p.0)).collect();
        out.sort();
        assert_eq!(out, vec![2, 10, 11]);
    }

    #[test]
    fn byte_limit_drops_until_the_arrival_fits() {
        let mut q = sfq(4, BufferSize::Bytes(3000));
        let (a, b) = two_flows(&q);
        q.enqueue(Arrival { flow: FlowId(a), ..Arrival::test(0, 1000) });
        q.enqueue(Arrival { flow: FlowId(a), ..Arrival::test(1, 1000) });
        q.enqueue(Arrival { flow: FlowId(a), ..Arrival::test(2, 1000) });
        assert_eq!(
            q.enqueue(Arrival { flow: FlowId(b), ..Arrival::test(3, 1500) }),
            Admit::Displace { mark: false }
        );
        assert_eq!(q.rounds.victims, vec![(PktId(2), 1000), (PktId(1), 1000)]);
        assert_eq!(q.rounds.bytes(), 2500);
    }

    #[test]
    fn perturbation_moves_queued_packets_and_keeps_each_flows_order() {
        let cfg = SfqConfig { buckets: 4, perturb: Time::from_ms(10), ..SfqConfig::default() };
        let mut q = Sfq::new(BufferSize::Packets(10_000), &cfg, Rng::stream(1, 8, 0));
        let arrive = |q: &mut Sfq, pkt: u32, flow: u32, ms: u64| {
            q.enqueue(Arrival {
                now: Time::from_ms(ms),
                flow: FlowId(flow),
                ..Arrival::test(pkt, 100)
            });
        };
        // Flows 0..8, three packets each before the salt changes, three after.
        for i in 0..24 {
            arrive(&mut q, i, i % 8, 1);
        }
        let before: Vec<u32> = (0..8).map(|f| q.bucket(f)).collect();
        for i in 24..48 {
            arrive(&mut q, i, i % 8, 11);
        }
        assert_ne!(before, (0..8).map(|f| q.bucket(f)).collect::<Vec<_>>(), "the salt changed");
        // Every queued packet sits in its flow's current bucket...
        for (b, slot) in q.rounds.slots.iter().enumerate() {
            for &(_, _, flow) in &slot.q {
                assert_eq!(q.bucket(flow), b as u32);
            }
        }
        // ...so each flow's packets leave in arrival order.
        let mut last = [None::<u32>; 8];
        while let Some((pkt, _)) = q.dequeue(Time::ZERO) {
            let f = (pkt.0 % 8) as usize;
            assert!(
                last[f].is_none_or(|p| p < pkt.0),
                "flow {f}: packet {} after {:?}",
                pkt.0,
                last[f]
            );
            last[f] = Some(pkt.0);
        }
    }

    #[test]
    fn perturbation_changes_the_salt_once_per_interval() {
        let cfg = SfqConfig { buckets: 1024, perturb: Time::from_ms(10), ..SfqConfig::default() };
        let mut q = Sfq::new(BufferSize::Packets(10_000), &cfg, Rng::stream(1, 8, 0));
        let map = |q: &Sfq| (0..64).map(|f| q.bucket(f)).collect::<Vec<_>>();
        let m0 = map(&q);
        q.enqueue(Arrival { now: Time::from_ms(5), ..Arrival::test(0, 100) });
        assert_eq!(map(&q), m0);
        q.enqueue(Arrival { now: Time::from_ms(10), ..Arrival::test(1, 100) });
        let m1 = map(&q);
        assert_ne!(m1, m0);
        q.enqueue(Arrival { now: Time::from_ms(19), ..Arrival::test(2, 100) });
        assert_eq!(map(&q), m1);
        q.enqueue(Arrival { now: Time::from_ms(45), ..Arrival::test(3, 100) });
        assert_ne!(map(&q), m1);
        assert_eq!(q.next_perturb, Time::from_ms(50));
    }
}
