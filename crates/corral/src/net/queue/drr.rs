//! Weighted fair queueing by deficit round robin (Shreedhar and Varghese, SIGCOMM 1995,
//! section 3; see [`super::rounds`]): every key with packets at the port (a flow, a priority
//! class, a tenant or a scheme's tunnel, by `key`) has its own queue, created when its first
//! packet arrives and released when it empties, with quantum `quantum x weight`, so
//! backlogged keys share the link in proportion to their weights (a flow's own weight, or
//! `weights` by class number, tenant name or tunnel id). Queues share the port's buffer; on
//! overflow the arrival is queued and the last packet of the queue longest relative to its
//! weight (bytes / weight) is dropped, which may be the arrival itself. Queue slots are
//! reused, so steady state allocates nothing per packet.

use super::rounds::Rounds;
use super::{Admit, Arrival, Discipline};
use crate::error::{ensure, Result};
use crate::ids::PktId;
use crate::units::{BufferSize, Bytes, Time};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// What a DRR queue is kept per.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DrrKey {
    /// Per flow, weighted by the flow's `weight` (default).
    #[default]
    Flow,
    /// Per priority class (the flow's `priority`), weighted by `weights["<class>"]`.
    Class,
    /// Per tenant, weighted by `weights["<tenant>"]`.
    Tenant,
    /// Per tunnel or aggregate id a scheme stamps on packets, weighted by `weights["<id>"]`.
    Tunnel,
}

/// `[switch.drr]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DrrConfig {
    /// Bytes per round for a queue of weight 1 (default "1500B").
    pub quantum: Bytes,
    /// "flow" (default), "class", "tenant" or "tunnel".
    pub key: DrrKey,
    /// Weights of classes, tenants or tunnels by name (default 1.0 each); unused with key = "flow".
    pub weights: BTreeMap<String, f64>,
}

impl Default for DrrConfig {
    fn default() -> Self {
        DrrConfig { quantum: Bytes(1500), key: DrrKey::Flow, weights: BTreeMap::new() }
    }
}

impl DrrConfig {
    pub fn validate(&self, path: &str) -> Result<()> {
        ensure(self.quantum.0 > 0, &format!("{path}.quantum"), || "must be positive".into())?;
        ensure(
            self.key != DrrKey::Flow || self.weights.is_empty(),
            &format!("{path}.weights"),
            || "not used with key = \"flow\": flows carry their own weight".into(),
        )?;
        for (name, w) in &self.weights {
            ensure(w.is_finite() && *w > 0.0, &format!("{path}.weights.{name}"), || {
                format!("must be a positive number, got {w}")
            })?;
            if self.key == DrrKey::Class || self.key == DrrKey::Tunnel {
                ensure(name.parse::<u32>().is_ok(), &format!("{path}.weights.{name}"), || {
                    "class and tunnel weights are keyed by number, like weights = { \"0\" = 2.0 }"
                        .into()
                })?;
            }
        }
        Ok(())
    }
}

pub struct Drr {
    pub(super) rounds: Rounds,
    limit: BufferSize,
    quantum: f64,
    key: DrrKey,
    /// Weight by key value for class and tunnel keys (absent = 1).
    weights: HashMap<u32, f64>,
    /// Weight by tenant number (the run's tenants in order of appearance).
    tenant_weights: Vec<f64>,
    /// Key value -> its slot, for keys with packets here: a map, not a vector indexed by
    /// key, so a port's memory follows its own backlog, not the number of flows in the
    /// run. Only looked up, never iterated, so its order cannot leak into results.
    slot_of: HashMap<u32, u32>,
    /// Slot -> the key value using it.
    key_of: Vec<u32>,
    free: Vec<u32>,
}

impl Drr {
    /// A DRR queue; `tenants` names the run's tenants by number (for key = "tenant").
    pub fn new(limit: BufferSize, cfg: &DrrConfig, tenants: &[String]) -> Drr {
        let weights =
            cfg.weights.iter().filter_map(|(k, &w)| Some((k.parse::<u32>().ok()?, w))).collect();
        let tenant_weights =
            tenants.iter().map(|t| cfg.weights.get(t).copied().unwrap_or(1.0)).collect();
        Drr {
            rounds: Rounds::new(0, 0),
            limit,
            quantum: cfg.quantum.0 as f64,
            key: cfg.key,
            weights,
            tenant_weights,
            slot_of: HashMap::new(),
            key_of: Vec::new(),
            free: Vec::new(),
        }
    }

    /// Queues currently held (keys with packets here).
    pub fn flows(&self) -> usize {
        self.key_of.len() - self.free.len()
    }

    /// The queue key of an arrival and its weight.
    fn key(&self, a: &Arrival) -> (u32, f64) {
        let by_table = |k: u32| (k, self.weights.get(&k).copied().unwrap_or(1.0));
        match self.key {
            DrrKey::Flow => (a.flow.0, a.weight),
            DrrKey::Class => by_table(a.prio as u32),
            DrrKey::Tenant => (
                a.tenant as u32,
                self.tenant_weights.get(a.tenant as usize).copied().unwrap_or(1.0),
            ),
            DrrKey::Tunnel => by_table(a.agg),
        }
    }

    fn slot_for(&mut self, key: u32, weight: f64) -> u32 {
        if let Some(&slot) = self.slot_of.get(&key) {
            return slot;
        }
        let id = match self.free.pop() {
            Some(id) => {
                self.key_of[id as usize] = key;
                id
            }
            None => {
                self.rounds.slots.push(Default::default());
                self.key_of.push(key);
                self.key_of.len() as u32 - 1
            }
        };
        let s = &mut self.rounds.slots[id as usize];
        s.quantum = ((self.quantum * weight).round() as i64).max(1);
        s.weight = weight;
        self.slot_of.insert(key, id);
        id
    }

    fn release_if_empty(&mut self, slot: u32) {
        if self.rounds.slots[slot as usize].q.is_empty() {
            let key = self.key_of[slot as usize];
            self.slot_of.remove(&key);
            self.free.push(slot);
        }
    }
}

impl Discipline for Drr {
    fn enqueue(&mut self, a: Arrival) -> Admit {
        debug_assert!(
            self.rounds.victims.is_empty(),
            "victims of the previous enqueue were not collected"
        );
        let (key, weight) = self.key(&a);
        let slot = self.slot_for(key, weight);
        self.rounds.push(slot, a.pkt, a.size, a.flow.0);
        while self.rounds.over(self.limit) {
            let v = self
                .rounds
                .longest(|s| s.bytes as f64 / s.weight)
                .expect("over the limit means backlogged");
            let (pkt, size) = self.rounds.drop_tail(v).expect("longest is backlogged");
            self.release_if_empty(v);
            if pkt == a.pkt {
                return Admit::Drop;
            }
            self.rounds.victims.push((pkt, size));
        }
        self.rounds.verdict()
    }

    fn dequeue(&mut self, _now: Time) -> Option<(PktId, u32)> {
        let (p, s, slot) = self.rounds.pop()?;
        self.release_if_empty(slot);
        Some((p, s))
    }

    /// Per-flow queues (`key = "flow"`) pass over the flows whose next packet may not be
    /// sent; other keys mix flows in a queue and ignore back-pressure (validation allows it
    /// with flows only).
    fn dequeue_where(
        &mut self,
        now: Time,
        may_send: &dyn Fn(PktId) -> bool,
    ) -> Option<(PktId, u32)> {
        if self.key != DrrKey::Flow {
            return self.dequeue(now);
        }
        let (p, s, slot) = self.rounds.pop_where(may_send)?;
        self.release_if_empty(slot);
        Some((p, s))
    }

    rounds_accessors!();
}

impl super::Declared for Drr {
    type Config = DrrConfig;
    fn validate(cfg: &DrrConfig, path: &str) -> Result<()> {
        cfg.validate(path)
    }
    fn build(cfg: &DrrConfig, _settings: &super::QueueSettings, port: &super::PortQueue) -> Drr {
        Drr::new(port.buffer, cfg, port.tenants)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::ids::FlowId;

    fn arr(i: u32, flow: u32, weight: f64) -> Arrival {
        Arrival { flow: FlowId(flow), weight, ..Arrival::test(i, 1500) }
    }

    #[test]
    fn weights_one_two_three_get_bytes_one_two_three_within_a_quantum() {
        let mut q = Drr::new(BufferSize::Packets(100_000), &DrrConfig::default(), &[]);
        for id in 0..300 {
            for (f, w) in [(0, 1.0), (1, 2.0), (2, 3.0)] {
                q.enqueue(arr(id * 3 + f, f, w));
            }
        }
        let mut served = [0i64; 3];
        for n in 1..=600 {
            let (p, s) = q.dequeue(Time::ZERO).unwrap();
            served[(p.0 % 3) as usize] += s as i64;
            if n % 6 == 0 {
                // After every whole round (6 packets of 1500 B), served = k * (1, 2, 3) quanta.
                let k = served[0];
                for (f, w) in [(1usize, 2), (2, 3)] {
                    assert!((served[f] - w * k).abs() <= 1500, "after {n}: {served:?}");
                }
            }
            // At any point, within one quantum of the weights' ratio.
            let unit = served[0] as f64;
            assert!((served[1] as f64 - 2.0 * unit).abs() <= 2.0 * 1500.0 + 1500.0, "{served:?}");
            assert!((served[2] as f64 - 3.0 * unit).abs() <= 3.0 * 1500.0 + 1500.0, "{served:?}");
        }
        assert_eq!(served[0] * 2, served[1]);
        assert_eq!(served[0] * 3, served[2]);
    }

    #[test]
    fn queues_are_created_lazily_and_released_when_empty() {
        let mut q = Drr::new(BufferSize::Packets(100), &DrrConfig::default(), &[]);
        q.enqueue(arr(0, 7, 1.0));
        q.enqueue(arr(1, 3, 1.0));
        assert_eq!(q.flows(), 2);
        q.dequeue(Time::ZERO);
        q.dequeue(Time::ZERO);
        assert_eq!(q.flows(), 0);
        q.enqueue(arr(2, 5, 1.0));
        assert_eq!(q.flows(), 1);
        assert_eq!(q.rounds.slots.len(), 2, "slots are reused");
    }

    #[test]
    fn overflow_drops_from_the_queue_longest_relative_to_its_weight() {
        let mut q = Drr::new(BufferSize::Packets(5), &DrrConfig::default(), &[]);
        // Flow 0 (weight 1) holds 2 packets = 3000 B/weight; flow 1 (weight 4) holds 3 = 1125.
        q.enqueue(arr(0, 0, 1.0));
        q.enqueue(arr(1, 0, 1.0));
        for i in 2..5 {
            q.enqueue(arr(i, 1, 4.0));
        }
        assert_eq!(q.enqueue(arr(5, 1, 4.0)), Admit::Displace { mark: false });
        assert_eq!(q.rounds.victims.pop(), Some((PktId(1), 1500)));
        assert_eq!(
            q.enqueue(arr(6, 0, 1.0)),
            Admit::Drop,
            "flow 0 is again the longest by weight; its arrival goes"
        );
    }

    #[test]
    fn tenant_and_class_keys_share_by_the_weights_table() {
        // Two tenants, 3:1, each with two flows: the tenants get 3:1 whatever their flow counts.
        let cfg = DrrConfig {
            key: DrrKey::Tenant,
            weights: BTreeMap::from([("a".into(), 3.0)]),
            ..DrrConfig::default()
        };
        let mut q = Drr::new(BufferSize::Packets(100_000), &cfg, &["a".into(), "b".into()]);
        for i in 0..400u32 {
            let (flow, tenant) = (i % 4, (i % 4 < 2) as u16 ^ 1);
            q.enqueue(Arrival { flow: FlowId(flow), tenant, ..Arrival::test(i, 1500) });
        }
        assert_eq!(q.flows(), 2, "one queue per tenant");
        let mut served = [0u64; 2];
        for _ in 0..200 {
            let (p, s) = q.dequeue(Time::ZERO).unwrap();
            served[((p.0 % 4 < 2) as usize) ^ 1] += s as u64;
        }
        assert!((served[0] as f64 / served[1] as f64 - 3.0).abs() < 0.1, "{served:?}");
        // Classes: weights by class number; an unlisted class weighs 1.
        let cfg = DrrConfig {
            key: DrrKey::Class,
            weights: BTreeMap::from([("1".into(), 2.0)]),
            ..DrrConfig::default()
        };
        let mut q = Drr::new(BufferSize::Packets(100_000), &cfg, &[]);
        for i in 0..300u32 {
            q.enqueue(Arrival { prio: (i % 2) as u8, ..Arrival::test(i, 1500) });
        }
        let ones = (0..150).filter(|_| q.dequeue(Time::ZERO).unwrap().0 .0 % 2 == 1).count();
        assert!((99..=101).contains(&ones), "class 1 gets two thirds: {ones}");
    }

    #[test]
    fn weights_are_checked() {
        let bad = DrrConfig {
            key: DrrKey::Class,
            weights: BTreeMap::from([("web".into(), 2.0)]),
            ..DrrConfig::default()
        };
        assert!(bad
            .validate("switch.drr")
            .unwrap_err()
            .to_string()
            .starts_with("switch.drr.weights.web:"));
        let flow =
            DrrConfig { weights: BTreeMap::from([("1".into(), 2.0)]), ..DrrConfig::default() };
        assert!(flow
            .validate("switch.drr")
            .unwrap_err()
            .to_string()
            .starts_with("switch.drr.weights:"));
    }
}
