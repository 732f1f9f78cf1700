//! A toy discipline, registered only in test builds, that shows what adding a discipline
//! takes: this file and one line in `disciplines!` (`net/queue/mod.rs`), nothing else. A drop-tail FIFO
//! that also drops every `every`-th arrival, with its setting in `[switch.toy]`.

use super::{fits, Admit, Arrival, Declared, Discipline, Fifo, PortQueue, QueueSettings};
use crate::error::{ensure, Result};
use crate::ids::PktId;
use crate::units::{BufferSize, Time};
use serde::{Deserialize, Serialize};

/// `[switch.toy]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ToyConfig {
    /// Every this-many-th arrival is dropped (default 10).
    pub every: u64,
}

impl Default for ToyConfig {
    fn default() -> Self {
        ToyConfig { every: 10 }
    }
}

pub struct Toy {
    fifo: Fifo,
    limit: BufferSize,
    every: u64,
    arrivals: u64,
}

impl Discipline for Toy {
    fn enqueue(&mut self, a: Arrival) -> Admit {
        self.arrivals += 1;
        if self.arrivals.is_multiple_of(self.every) || !fits(self.limit, self.fifo.bytes(), self.fifo.len() as u64, a.size) {
            return Admit::Drop;
        }
        self.fifo.push(a.pkt, a.size);
        Admit::Accept { mark: false }
    }

    fifo_accessors!();
}

impl Declared for Toy {
    type Config = ToyConfig;
    fn validate(cfg: &ToyConfig, path: &str) -> Result<()> {
        ensure(cfg.every >= 1, &format!("{path}.every"), || "must be at least 1".into())
    }
    fn build(cfg: &ToyConfig, _settings: &QueueSettings, port: &PortQueue) -> Toy {
        Toy { fifo: Fifo::default(), limit: port.buffer, every: cfg.every, arrivals: 0 }
    }
}

#[cfg(test)]
mod tests {
    use crate::net::queue::{QueueKind, KINDS};

    const TOY: &str = "duration = \"20ms\"\n[topology]\nkind = \"dumbbell\"\nsenders = 1\nreceivers = 1\nlink_rate = \"1Gbps\"\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n[transport]\nsack = false\n";

    #[test]
    fn one_file_and_one_line_make_a_discipline_scenarios_can_name() {
        assert!(KINDS.contains(&"toy") && QueueKind::ALL.contains(&QueueKind::Toy));
        // its settings table, validated with key paths
        let e = crate::scenario::load(&format!("{TOY}[switch]\nqueue = \"toy\"\n[switch.toy]\nevery = 0\n"), &[], "t").unwrap_err().to_string();
        assert!(e.starts_with("switch.toy.every: must be at least 1"), "{e}");
        let e = crate::scenario::load(&format!("{TOY}[switch]\nqueue = \"toy\"\n[switch.toy]\nevry = 3\n"), &[], "t").unwrap_err().to_string();
        assert!(e.starts_with("switch.toy.evry: unknown key; did you mean `every`?"), "{e}");
        // and it runs: every 5th packet arriving at the switches is dropped
        let sc = crate::scenario::load(&format!("{TOY}[switch]\nqueue = \"toy\"\nbuffer = \"1000pkt\"\n[switch.toy]\nevery = 5\n"), &[], "t").unwrap();
        let mut sim = crate::Simulation::new(sc).unwrap();
        sim.run();
        let (sent, dropped) = (sim.counts.sent, sim.counts.dropped);
        assert!(dropped > 0 && sim.flows[0].receiver.delivered() > 0, "{sent} sent, {dropped} dropped");
    }
}
