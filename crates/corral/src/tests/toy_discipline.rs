//! A toy discipline, registered only in test builds, that shows what adding a discipline
//! takes: this file and one line in `disciplines!` (`net/queue/mod.rs`), nothing else. A drop-tail FIFO
//! that also drops every `every`-th arrival, with its setting in `[switch.toy]`. Its test, which
//! loads a scenario naming it, is in `tests/kinds.rs`.

use crate::error::{ensure, Result};
use crate::ids::PktId;
use crate::net::queue::{
    fifo_accessors, fits, Admit, Arrival, Declared, Discipline, Fifo, PortQueue, QueueSettings,
};
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
        if self.arrivals.is_multiple_of(self.every)
            || !fits(self.limit, self.fifo.bytes(), self.fifo.len() as u64, a.size)
        {
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
