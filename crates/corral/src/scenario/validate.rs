//! Value checks that need no network: positive durations, non-zero buffers, a threshold for
//! ECN queues, well-formed flow entries. References to hosts and ports are checked when the
//! network is built ([`super::flows`]).

use super::{QueueKind, Scenario};
use crate::error::{config_err, ensure, Result};
use crate::units::Time;

impl Scenario {
    pub fn validate(&self) -> Result<()> {
        ensure(self.duration > Time::ZERO, "duration", || "must be positive, got 0".into())?;
        self.topology.validate()?;
        ensure(!self.switch.buffer.is_zero(), "switch.buffer", || "must be positive: a zero buffer drops every packet that has to wait".into())?;
        let ppm = self.network.clock_ppm;
        ensure((0.0..=1000.0).contains(&ppm), "network.clock_ppm", || format!("must be between 0 and 1000, got {ppm}"))?;
        ensure(!self.host.buffer.is_zero(), "host.buffer", || "must be positive".into())?;
        match (self.switch.queue, self.switch.ecn_threshold) {
            (QueueKind::Ecn, None) => return Err(config_err("switch.ecn_threshold", "required when switch.queue = \"ecn\" (e.g. \"65pkt\")")),
            (QueueKind::Taildrop, Some(_)) => {
                return Err(config_err("switch.ecn_threshold", "only used when switch.queue = \"ecn\"; remove it or set queue = \"ecn\""))
            }
            _ => {}
        }
        self.transport.validate()?;
        ensure(self.metrics.interval > Time::ZERO, "metrics.interval", || "must be positive".into())?;
        ensure(self.metrics.queue_interval > Time::ZERO, "metrics.queue_interval", || "must be positive".into())?;
        for (i, f) in self.flows.iter().enumerate() {
            let at = |k: &str| format!("flows[{i}].{k}");
            match (&f.pattern, &f.src, &f.dst) {
                (Some(_), None, None) | (None, Some(_), Some(_)) => {}
                (Some(_), _, _) => return Err(config_err(at("pattern"), "give either a pattern or src and dst, not both")),
                (None, None, _) => return Err(config_err(at("src"), "required key is missing (or give a pattern)")),
                (None, _, None) => return Err(config_err(at("dst"), "required key is missing (or give a pattern)")),
            }
            ensure(f.count >= 1, &at("count"), || "must be at least 1".into())?;
            ensure(f.weight.is_finite() && f.weight > 0.0, &at("weight"), || format!("must be a positive number, got {}", f.weight))?;
            ensure(f.start < self.duration, &at("start"), || format!("must be before the end of the run ({})", self.duration))?;
        }
        for (i, t) in self.traffic.iter().enumerate() {
            t.validate(i, self.duration)?;
        }
        let b = &self.metrics.size_buckets;
        ensure(b.windows(2).all(|w| w[0] < w[1]) && b.iter().all(|x| x.0 > 0), "metrics.size_buckets", || "must be increasing positive sizes, like [\"100KB\", \"1MB\"]".into())?;
        Ok(())
    }
}
