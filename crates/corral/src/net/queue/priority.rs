//! Strict priority: `classes` sub-queues, each its own discipline with its own buffer;
//! an arrival goes to the class of its flow's priority (0 is the highest; priorities at or
//! beyond the number of classes share the lowest class), and the port always sends from the
//! highest-priority class that has packets (IEEE 802.1Q strict priority transmission
//! selection, section 8.6.8.1).

use super::{Admit, Arrival, Discipline, QueueDisc};
use crate::error::{ensure, Result};
use crate::ids::PktId;
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// The discipline inside each priority class.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ClassKind {
    Taildrop,
    /// ECN threshold marking with `switch.ecn_threshold`.
    Ecn,
    /// RED with `[switch.red]`.
    Red,
}

/// `[switch.priority]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PriorityConfig {
    /// Number of classes, 1 to 8 (default 8).
    pub classes: u8,
    /// Discipline of every class (default "taildrop"); each class has the port's buffer.
    pub class: ClassKind,
}

impl Default for PriorityConfig {
    fn default() -> Self {
        PriorityConfig { classes: 8, class: ClassKind::Taildrop }
    }
}

impl PriorityConfig {
    pub fn validate(&self, path: &str) -> Result<()> {
        ensure((1..=8).contains(&self.classes), &format!("{path}.classes"), || {
            format!("must be between 1 and 8, got {}", self.classes)
        })
    }
}

pub struct Priority {
    classes: Vec<QueueDisc>,
}

impl Priority {
    /// Strict priority over `classes` (index 0 highest); none of them may itself be a
    /// priority queue.
    pub fn new(classes: Vec<QueueDisc>) -> Priority {
        assert!(
            !classes.is_empty() && classes.iter().all(|c| !matches!(c, QueueDisc::Priority(_)))
        );
        Priority { classes }
    }

    /// Packets queued in class `c`.
    pub fn class_packets(&self, c: usize) -> u64 {
        self.classes[c].packets()
    }
}

impl Discipline for Priority {
    fn enqueue(&mut self, a: Arrival) -> Admit {
        let c = (a.prio as usize).min(self.classes.len() - 1);
        self.classes[c].enqueue(a)
    }

    fn dequeue(&mut self, now: Time) -> Option<(PktId, u32)> {
        self.classes.iter_mut().find(|c| !c.is_empty())?.dequeue(now)
    }

    fn pop_victim(&mut self) -> Option<(PktId, u32)> {
        self.classes.iter_mut().find_map(|c| c.pop_victim())
    }

    fn bytes(&self) -> u64 {
        self.classes.iter().map(|c| c.bytes()).sum()
    }

    fn packets(&self) -> u64 {
        self.classes.iter().map(|c| c.packets()).sum()
    }
}

impl ClassKind {
    fn queue(self) -> super::QueueKind {
        match self {
            ClassKind::Taildrop => super::QueueKind::Taildrop,
            ClassKind::Ecn => super::QueueKind::Ecn,
            ClassKind::Red => super::QueueKind::Red,
        }
    }
}

/// Its classes are each a discipline of `class`'s kind, built with that kind's settings (the
/// `[switch.red]` table, `switch.ecn_threshold`), each with the port's buffer.
impl super::Declared for Priority {
    type Config = PriorityConfig;
    fn composes(cfg: &PriorityConfig) -> Option<super::QueueKind> {
        Some(cfg.class.queue())
    }
    fn validate(cfg: &PriorityConfig, path: &str) -> Result<()> {
        cfg.validate(path)
    }
    fn build(
        cfg: &PriorityConfig,
        settings: &super::QueueSettings,
        port: &super::PortQueue,
    ) -> Priority {
        let classes = (0..cfg.classes as usize)
            .map(|class| {
                QueueDisc::build(cfg.class.queue(), settings, &super::PortQueue { class, ..*port })
            })
            .collect();
        Priority::new(classes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::BufferSize;

    #[test]
    fn never_serves_a_lower_class_while_a_higher_one_is_backlogged() {
        let classes = (0..3).map(|_| QueueDisc::taildrop(BufferSize::Packets(50))).collect();
        let mut q = Priority::new(classes);
        let mut rng = crate::sim::rng::Rng::stream(3, 99, 0);
        let mut prio_of = std::collections::HashMap::new();
        let mut next = 0u32;
        let mut served = 0;
        for step in 0..5000 {
            // Random arrivals of priorities 0..5 (3, 4 map to the lowest class), random service.
            if rng.below(3) < 2 {
                let prio = rng.below(5) as u8;
                if q.enqueue(Arrival { prio, ..Arrival::test(next, 100) }) != Admit::Drop {
                    prio_of.insert(next, prio.min(2));
                }
                next += 1;
            } else if let Some((p, _)) = q.dequeue(Time::ZERO) {
                let class = prio_of.remove(&p.0).unwrap();
                for higher in 0..class as usize {
                    assert_eq!(
                        q.class_packets(higher),
                        0,
                        "step {step}: served class {class} while class {higher} waits"
                    );
                }
                served += 1;
            }
        }
        assert!(served > 1000);
        assert_eq!(q.packets() as usize, prio_of.len());
    }

    #[test]
    fn priorities_beyond_the_classes_share_the_lowest() {
        let mut q = Priority::new(vec![
            QueueDisc::taildrop(BufferSize::Packets(1)),
            QueueDisc::taildrop(BufferSize::Packets(1)),
        ]);
        assert_eq!(
            q.enqueue(Arrival { prio: 7, ..Arrival::test(0, 100) }),
            Admit::Accept { mark: false }
        );
        assert_eq!(
            q.enqueue(Arrival { prio: 1, ..Arrival::test(1, 100) }),
            Admit::Drop,
            "class 1 holds its one packet"
        );
        assert_eq!(
            q.enqueue(Arrival { prio: 0, ..Arrival::test(2, 100) }),
            Admit::Accept { mark: false }
        );
        assert_eq!(q.dequeue(Time::ZERO), Some((PktId(2), 100)));
        assert_eq!(q.dequeue(Time::ZERO), Some((PktId(0), 100)));
    }
}
