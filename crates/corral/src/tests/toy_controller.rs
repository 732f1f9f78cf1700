//! A toy controller, registered only in test builds, that shows what adding a controller
//! takes: this file and one line in `controllers!` (`transport/cc/mod.rs`). A fixed window of
//! `segments` segments, set with `transport.cc = { kind = "toy", segments = N }`: it owns
//! its window ([`CcState`], which the sender only reads), sets it on every ACK and keeps it
//! when loss recovery asks for another. Its test, which loads a scenario naming it and reads
//! the window back, is in `tests/kinds.rs`.

use crate::transport::cc::{CcState, CongestionControl, Declared};
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ToyConfig {
    /// The window, in segments (default 4).
    pub segments: u64,
}

impl Default for ToyConfig {
    fn default() -> Self {
        ToyConfig { segments: 4 }
    }
}

#[derive(Clone, Debug)]
pub struct Toy {
    segments: u64,
}

impl CongestionControl for Toy {
    fn on_ack(&mut self, st: &mut CcState, _acked: u64, _now: Time, _srtt: Time) {
        st.cwnd = self.segments * st.mss;
    }
    fn on_loss(&mut self, st: &mut CcState, _flight: u64, _now: Time) {
        st.ssthresh = self.segments * st.mss;
    }
    /// Loss recovery asks for a window (RFC 6675, PRR, NewReno's inflation); the toy keeps
    /// its own, as BBR does.
    fn on_recovery_window(&mut self, st: &mut CcState, _cwnd: u64) {
        st.cwnd = self.segments * st.mss;
    }
}

impl Declared for Toy {
    type Config = ToyConfig;
    /// The one way a toy is built: from its settings (through `CcConfig::build`).
    fn new(cfg: &ToyConfig) -> Toy {
        Toy { segments: cfg.segments }
    }
    fn validate(cfg: &ToyConfig) -> Result<(), String> {
        if cfg.segments >= 1 {
            Ok(())
        } else {
            Err("segments: must be at least 1".into())
        }
    }
}
