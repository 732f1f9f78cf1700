//! Value checks that need no network: positive durations, non-zero buffers, a threshold for
//! ECN queues, well-formed flow entries. References to hosts and ports are checked when the
//! network is built ([`super::flows`]).

use super::{BufferModel, QueueKind, Scenario, SwitchConfig};
use crate::error::{config_err, ensure, Result};
use crate::net::queue::QueueConfig;
use crate::units::Time;

impl Scenario {
    pub fn validate(&self) -> Result<()> {
        ensure(self.duration > Time::ZERO, "duration", || "must be positive, got 0".into())?;
        self.topology.validate()?;
        // The segment size and header first: the buffer checks below are in packets of them.
        self.transport.validate()?;
        // Every packet passes its port's discipline, so a byte buffer below one full-size
        // packet would drop every data packet.
        let packet = self.transport.mss as u64 + self.transport.header as u64;
        let holds_a_packet = |b: crate::units::BufferSize| match b {
            crate::units::BufferSize::Bytes(n) => n >= packet,
            crate::units::BufferSize::Packets(n) => n >= 1,
        };
        ensure(holds_a_packet(self.switch.buffer), "switch.buffer", || {
            format!("must hold at least one full-size packet ({packet} bytes = transport.mss + transport.header, or \"1pkt\")")
        })?;
        if let Some(b) = self.switch.shared_buffer {
            ensure(b.0 >= packet, "switch.shared_buffer", || {
                format!("must hold at least one full-size packet ({packet} bytes)")
            })?;
        }
        let ppm = self.network.clock_ppm;
        ensure((0.0..=1000.0).contains(&ppm), "network.clock_ppm", || {
            format!("must be between 0 and 1000, got {ppm}")
        })?;
        ensure(holds_a_packet(self.host.buffer), "host.buffer", || {
            format!("must hold at least one full-size packet ({packet} bytes = transport.mss + transport.header, or \"1pkt\")")
        })?;
        ensure(self.host.send_jitter < self.duration, "host.send_jitter", || {
            format!(
                "must be shorter than the run ({}): each packet waits up to this long",
                self.duration
            )
        })?;
        self.switch.validate()?;
        if let Some(k) = self.switch.queue.ecn_threshold {
            // A threshold at or above the buffer never marks: the queue drops first.
            let bytes = |b: crate::units::BufferSize| match b {
                crate::units::BufferSize::Bytes(n) => n,
                crate::units::BufferSize::Packets(n) => n.saturating_mul(packet),
            };
            ensure(bytes(k) < bytes(self.switch.buffer), "switch.ecn_threshold", || {
                format!("{} is not below switch.buffer ({}): the queue would drop before it marks (a packet is {packet} bytes)", k, self.switch.buffer)
            })?;
        }
        self.control.validate()?;
        ensure(
            self.switch.backpressure == 0 || self.host.small_queue == 0,
            "host.small_queue",
            || {
                "must be 0 with switch.backpressure: the NIC's per-flow queues hold each flow's window, and back-pressure from the first switch paces them".into()
            },
        )?;
        ensure(
            self.host.scheduler == super::HostScheduler::RoundRobin || self.host.small_queue > 0,
            "host.scheduler",
            || {
                "\"fair\" needs host.small_queue >= 1: without backpressure flows fill the NIC queue in arrival order".into()
            },
        )?;
        if self.scheme.is_none() {
            let needs = |t: &crate::transport::config::FlowTransport| {
                *t == crate::transport::config::FlowTransport::Scheme
            };
            for (i, f) in self.flows.iter().enumerate() {
                ensure(!needs(&f.transport), &format!("flows[{i}].transport"), || {
                    "\"scheme\" needs a [scheme] section (e.g. [scheme] kind = \"ideal\")".into()
                })?;
            }
            for (i, t) in self.traffic.iter().enumerate() {
                ensure(!needs(&t.transport), &format!("traffic[{i}].transport"), || {
                    "\"scheme\" needs a [scheme] section (e.g. [scheme] kind = \"ideal\")".into()
                })?;
            }
            for (i, r) in self.rpc.iter().enumerate() {
                ensure(!needs(&r.transport), &format!("rpc[{i}].transport"), || {
                    "\"scheme\" needs a [scheme] section (e.g. [scheme] kind = \"ideal\")".into()
                })?;
            }
        }
        ensure(self.metrics.interval > Time::ZERO, "metrics.interval", || {
            "must be positive".into()
        })?;
        ensure(self.metrics.queue_interval > Time::ZERO, "metrics.queue_interval", || {
            "must be positive".into()
        })?;
        for (i, f) in self.flows.iter().enumerate() {
            let at = |k: &str| format!("flows[{i}].{k}");
            match (&f.pattern, &f.src, &f.dst) {
                (Some(_), None, None) | (None, Some(_), Some(_)) => {}
                (Some(_), _, _) => {
                    return Err(config_err(
                        at("pattern"),
                        "give either a pattern or src and dst, not both",
                    ))
                }
                (None, None, _) => {
                    return Err(config_err(
                        at("src"),
                        "required key is missing (or give a pattern)",
                    ))
                }
                (None, _, None) => {
                    return Err(config_err(
                        at("dst"),
                        "required key is missing (or give a pattern)",
                    ))
                }
            }
            ensure(f.count >= 1, &at("count"), || "must be at least 1".into())?;
            ensure(f.weight.is_finite() && f.weight > 0.0, &at("weight"), || {
                format!("must be a positive number, got {}", f.weight)
            })?;
            ensure(f.start < self.duration, &at("start"), || {
                format!("must be before the end of the run ({})", self.duration)
            })?;
            f.transport.validate(&at("transport"))?;
        }
        for (i, t) in self.traffic.iter().enumerate() {
            t.validate(i, self.duration)?;
        }
        for (i, r) in self.rpc.iter().enumerate() {
            r.validate(i, self.duration)?;
            ensure(self.mode == super::Mode::Packet, &format!("rpc[{i}]"), || {
                "closed-loop sessions run in packet mode only (mode = \"packet\")".into()
            })?;
        }
        for (i, e) in self.events.iter().enumerate() {
            e.validate(i, self.duration)?;
        }
        let b = &self.metrics.size_buckets;
        ensure(
            b.windows(2).all(|w| w[0] < w[1]) && b.iter().all(|x| x.0 > 0),
            "metrics.size_buckets",
            || "must be increasing positive sizes, like [\"100KB\", \"1MB\"]".into(),
        )?;
        Ok(())
    }
}

impl SwitchConfig {
    /// The discipline's settings ([`crate::net::queue::QueueSettings::validate`]); the
    /// shared-buffer keys need buffer_model = "shared".
    fn validate(&self) -> Result<()> {
        self.queue.validate("switch")?;
        let per_flow = match self.queue.table(QueueKind::Drr) {
            _ if self.queue.kind != QueueKind::Drr => false,
            Some(QueueConfig::Drr(d)) => d.key == crate::net::queue::drr::DrrKey::Flow,
            _ => true,
        };
        ensure(self.backpressure == 0 || per_flow, "switch.backpressure", || {
            "hop-by-hop back-pressure holds back single flows: it needs per-flow queues, queue = \"drr\" (with drr.key = \"flow\")".into()
        })?;
        match self.buffer_model {
            BufferModel::Shared => {
                let Some(b) = self.shared_buffer else {
                    return Err(config_err(
                        "switch.shared_buffer",
                        "required when switch.buffer_model = \"shared\" (e.g. \"1MB\")",
                    ));
                };
                ensure(b.0 > 0, "switch.shared_buffer", || "must be positive".into())?;
                if let Some(a) = self.alpha {
                    ensure(a.is_finite() && a > 0.0, "switch.alpha", || {
                        format!("must be a positive number, got {a}")
                    })?;
                }
            }
            BufferModel::PerPort => {
                let msg = "only used when switch.buffer_model = \"shared\"";
                ensure(self.shared_buffer.is_none(), "switch.shared_buffer", || msg.into())?;
                ensure(self.alpha.is_none(), "switch.alpha", || msg.into())?;
            }
        }
        Ok(())
    }
}
