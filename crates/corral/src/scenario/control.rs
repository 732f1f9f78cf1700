//! `[control]`: how a scheme's control messages travel (`crate::ctrl`).

use crate::error::{ensure, Result};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// How control messages travel.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ControlMode {
    /// As packets through the network, sharing queues and links with data (default).
    #[default]
    Inband,
    /// Straight to the receiver after `delay`, through no queue and no link.
    OutOfBand,
}

/// `[control]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ControlConfig {
    /// "inband" (default) or "out_of_band".
    pub mode: ControlMode,
    /// Delivery delay of out-of-band messages (default "0s").
    pub delay: Time,
    /// Priority class of in-band control packets, 0 = highest (default 0; matters only with
    /// priority queues).
    pub priority: u8,
}

impl Default for ControlConfig {
    fn default() -> Self {
        ControlConfig { mode: ControlMode::Inband, delay: Time::ZERO, priority: 0 }
    }
}

impl ControlConfig {
    pub fn validate(&self) -> Result<()> {
        ensure(
            self.mode == ControlMode::OutOfBand || self.delay == Time::ZERO,
            "control.delay",
            || "only used with control.mode = \"out_of_band\"".into(),
        )
    }
}
