//! A flow's demand as its application sets it: HCC's leaf agents "receive the application
//! layer demands as input" (HCC paper, section III-D), and the centralized controller that HCC
//! is compared with (`ideal`, `mode = "updates"`) is fed the same demands, so both see the
//! same demand changes. Three models (`demand`):
//!
//! - `backlog` (default): what the flow could send, its bytes not yet sent over `horizon`
//!   (the period at which its agent reads it), capped at its access-link rate; an unbounded
//!   flow demands that rate. A flow's demand then changes only near its end.
//! - `line`: its access-link rate until its last byte is sent (one value per flow).
//! - `onoff`: an application that writes in bursts, the on-off behaviour the paper's second
//!   workload has (section IV-B: a response, then a pause): on periods, when the flow demands
//!   as with `backlog`, and off periods, when it demands 0, each exponentially distributed
//!   with means `on_period` and `off_period`; a flow starts on. Each flow draws its periods
//!   from its own random stream (the run's seed and the flow's index), so every scheme run on
//!   the same flows sees the same switching times.

use super::Ctx;
use crate::error::{ensure, Result};
use crate::ids::FlowId;
use crate::sim::rng::{stream, Rng};
use crate::units::Time;
use serde::Deserialize;
use std::collections::BTreeMap;

/// How a flow's application sets its demand (`[scheme] demand`).
#[derive(Clone, Copy, Debug, Default, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DemandModel {
    #[default]
    Backlog,
    Line,
    OnOff,
}

/// Checks the on-off periods: positive, and set only with `demand = "onoff"` when they
/// differ from the defaults.
pub fn check(model: DemandModel, on: Time, off: Time) -> Result<()> {
    for (key, t) in [("on_period", on), ("off_period", off)] {
        ensure(t > Time::ZERO, &format!("scheme.{key}"), || "must be positive".into())?;
        ensure(
            model == DemandModel::OnOff || t == DEFAULT_PERIOD,
            &format!("scheme.{key}"),
            || "only used with demand = \"onoff\"".into(),
        )?;
    }
    Ok(())
}

/// The default mean of on and off periods (ours: the paper gives none).
pub const DEFAULT_PERIOD: Time = Time::from_us(1000);

/// One flow's on-off state: on until `until`, then off, and so on.
struct Switch {
    on: bool,
    until: Time,
    rng: Rng,
}

/// The demands of the flows one scheme manages.
pub struct AppDemand {
    model: DemandModel,
    on: Time,
    off: Time,
    switches: BTreeMap<u32, Switch>,
    /// Switches from on to off or back, over all flows (the application's demand events).
    pub switched: u64,
}

impl AppDemand {
    pub fn new(model: DemandModel, on: Time, off: Time) -> AppDemand {
        AppDemand { model, on, off, switches: BTreeMap::new(), switched: 0 }
    }

    pub fn model(&self) -> DemandModel {
        self.model
    }

    /// Flow `f`'s demand now (bit/s), read by an agent every `horizon`.
    pub fn demand(&mut self, ctx: &mut dyn Ctx, f: FlowId, horizon: Time) -> f64 {
        let line = ctx.access_rate(ctx.flow(f).src).bps() as f64;
        if self.model == DemandModel::Line {
            return line;
        }
        if self.model == DemandModel::OnOff && !self.is_on(ctx, f) {
            return 0.0;
        }
        let p = ctx.progress(f);
        match p.size {
            Some(size) => {
                let left = size.saturating_sub(p.sent) as f64 * 8.0;
                line.min(left / (horizon.0.max(1) as f64 * 1e-12))
            }
            None => line,
        }
    }

    /// Whether flow `f`'s application is in an on period now (created on, at its first
    /// reading, with a fresh period).
    fn is_on(&mut self, ctx: &mut dyn Ctx, f: FlowId) -> bool {
        let now = ctx.now();
        let (on_mean, off_mean) = (self.on, self.off);
        let seed = ctx.seed();
        let s = self.switches.entry(f.0).or_insert_with(|| {
            let mut rng = Rng::stream(seed, stream::APP_DEMAND, u64::from(f.0));
            let until = now + exponential(&mut rng, on_mean);
            Switch { on: true, until, rng }
        });
        while s.until <= now {
            s.on = !s.on;
            let mean = if s.on { on_mean } else { off_mean };
            s.until = s.until + exponential(&mut s.rng, mean);
            self.switched += 1;
        }
        s.on
    }

    /// Flow `f` left (its state goes).
    pub fn forget(&mut self, f: FlowId) {
        self.switches.remove(&f.0);
    }
}

/// An exponential draw of mean `mean`, at least 1 ps.
fn exponential(rng: &mut Rng, mean: Time) -> Time {
    let u = rng.unit();
    Time(((-(1.0 - u).ln()) * mean.0 as f64).max(1.0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponential_draws_have_the_mean() {
        let mut rng = Rng::stream(1, stream::APP_DEMAND, 7);
        let n = 20_000;
        let mean = Time::from_us(1000);
        let sum: f64 = (0..n).map(|_| exponential(&mut rng, mean).0 as f64).sum();
        let got = sum / n as f64 / mean.0 as f64;
        assert!((got - 1.0).abs() < 0.03, "mean {got} of the target");
    }

    #[test]
    fn periods_are_checked_and_only_for_onoff() {
        assert!(check(DemandModel::OnOff, Time::from_us(5), Time::from_us(7)).is_ok());
        assert!(check(DemandModel::Backlog, DEFAULT_PERIOD, DEFAULT_PERIOD).is_ok());
        let e = check(DemandModel::Backlog, Time::from_us(5), DEFAULT_PERIOD).unwrap_err();
        assert!(e.to_string().contains("scheme.on_period"), "{e}");
        let e = check(DemandModel::OnOff, DEFAULT_PERIOD, Time::ZERO).unwrap_err();
        assert!(e.to_string().contains("scheme.off_period"), "{e}");
    }
}
