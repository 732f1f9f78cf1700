//! Dumbbell: N senders on switch `sw0`, M receivers on switch `sw1`, one bottleneck link
//! between the switches.
//!
//! Hosts: senders `h0..h{N-1}`, receivers `h{N}..h{N+M-1}`. Ports: `sw0` numbers its sender
//! ports `0..N-1` and the bottleneck `N`; `sw1` its receiver ports `0..M-1` and the bottleneck
//! `M`. The bottleneck toward the receivers is `sw0:N`.

use crate::error::{ensure, Result};
use crate::net::Topology;
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DumbbellConfig {
    /// Number of sending hosts.
    pub senders: u32,
    /// Number of receiving hosts.
    pub receivers: u32,
    /// Rate of every host link.
    pub link_rate: Rate,
    /// Propagation delay of every host link (default 1us).
    #[serde(default = "super::default_delay")]
    pub link_delay: Time,
    /// Rate of the switch-to-switch link (default: link_rate).
    pub bottleneck_rate: Option<Rate>,
    /// Propagation delay of the switch-to-switch link (default: link_delay).
    pub bottleneck_delay: Option<Time>,
}

impl super::TopologyKind for DumbbellConfig {
    fn validate(&self) -> Result<()> {
        ensure(self.senders >= 1, "topology.senders", || {
            format!("must be at least 1, got {}", self.senders)
        })?;
        ensure(self.receivers >= 1, "topology.receivers", || {
            format!("must be at least 1, got {}", self.receivers)
        })
    }

    fn build(&self) -> Topology {
        let mut t = Topology::default();
        let senders: Vec<_> = (0..self.senders).map(|_| t.add_host()).collect();
        let receivers: Vec<_> = (0..self.receivers).map(|_| t.add_host()).collect();
        let left = t.add_switch("sw0".into(), 1, 1);
        let right = t.add_switch("sw1".into(), 1, 1);
        for h in senders {
            t.link(h, left, self.link_rate, self.link_delay);
        }
        for h in receivers {
            t.link(h, right, self.link_rate, self.link_delay);
        }
        t.link(
            left,
            right,
            self.bottleneck_rate.unwrap_or(self.link_rate),
            self.bottleneck_delay.unwrap_or(self.link_delay),
        );
        t
    }

    fn size(&self) -> super::Size {
        let h = self.senders as u64 + self.receivers as u64;
        super::Size {
            nodes: h + 2,
            ports: 2 * (h + 1),
            hosts: h,
            key: if self.senders >= self.receivers {
                "topology.senders"
            } else {
                "topology.receivers"
            },
        }
    }
}
