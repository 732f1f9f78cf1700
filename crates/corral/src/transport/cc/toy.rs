//! A toy controller, registered only in test builds, that shows what adding a controller
//! takes: this file and one line in `controllers!` (`transport/cc/mod.rs`). A fixed window of
//! `segments` segments, whatever happens, set with `transport.cc = { kind = "toy", segments = N }`.

use super::{CcState, CongestionControl, Controller};
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
}

impl Controller for Toy {
    type Config = ToyConfig;
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

#[cfg(test)]
mod tests {
    use crate::transport::cc::{CcConfig, KINDS};

    #[test]
    fn one_file_and_one_line_make_a_controller_scenarios_can_name() {
        assert!(KINDS.contains(&"toy"));
        let base = "duration = \"10ms\"\n[topology]\nkind = \"dumbbell\"\nsenders = 1\nreceivers = 1\nlink_rate = \"1Gbps\"\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n";
        let e = crate::scenario::load(&format!("{base}[transport]\ncc = {{ kind = \"toy\", segmnts = 2 }}\n"), &[], "t").unwrap_err().to_string();
        assert!(e.contains("segmnts") && e.contains("did you mean `segments`"), "{e}");
        let sc = crate::scenario::load(&format!("{base}[transport]\ncc = {{ kind = \"toy\", segments = 2 }}\n"), &[], "t").unwrap();
        assert_eq!(sc.transport.cc, CcConfig::Toy(super::ToyConfig { segments: 2 }));
        let mut sim = crate::Simulation::new(sc).unwrap();
        sim.run();
        assert!(sim.flows[0].receiver.delivered() > 0);
    }
}
