//! Valiant load balancing and weighted load balancing (Valiant and Brebner, STOC 1981; Singh
//! et al.'s WLB; R2C2, SIGCOMM 2015, sections 2.2.1 and 3.3.1): the sender gives each packet
//! a uniformly random intermediate, and the packet takes a random minimal path to it and
//! then on to its destination. The intermediate is a host's switch (every node of a torus,
//! a ToR in a tree), drawn per packet from the sending host's stream. WLB sends a `direct`
//! share of the packets straight along minimal paths and the rest through an intermediate,
//! which biases it toward short paths.

use super::NO_WAYPOINT;
use crate::sim::rng::{stream, Streams};

pub struct Waypoints(Streams);

/// `[routing]` with `kind = "wlb"`: `direct`, the share of the traffic on minimal paths
/// (default 1/3: R2C2's 1:2 example).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WlbSettings {
    /// Share of the traffic on minimal paths, in [0, 1] (default 1/3: R2C2's 1:2 example).
    #[serde(default = "one_third")]
    pub direct: f64,
}

fn one_third() -> f64 {
    1.0 / 3.0
}

impl WlbSettings {
    /// `direct` must be a share, in [0, 1].
    pub fn validate(&self) -> crate::Result<()> {
        self.checked("direct").map(|_| ())
    }

    /// `direct` if it is a share; else an error naming `key`.
    pub fn checked(&self, key: &str) -> crate::Result<f64> {
        crate::error::ensure((0.0..=1.0).contains(&self.direct), key, || {
            format!("must be in [0, 1], got {}", self.direct)
        })?;
        Ok(self.direct)
    }
}

impl Waypoints {
    pub fn new(seed: u64, hosts: usize) -> Waypoints {
        Waypoints(Streams::new(seed, stream::WAYPOINT, hosts))
    }

    /// VLB: the intermediate host of a new packet from `src`.
    #[inline]
    pub fn vlb(&mut self, src: u32, hosts: usize) -> u32 {
        self.0.of(src as usize).below(hosts as u64) as u32
    }

    /// WLB: no intermediate with probability `direct`, else a uniformly random one.
    #[inline]
    pub fn wlb(&mut self, src: u32, hosts: usize, direct: f64) -> u32 {
        let rng = self.0.of(src as usize);
        if rng.unit() < direct {
            NO_WAYPOINT
        } else {
            rng.below(hosts as u64) as u32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wlb_goes_direct_with_its_share() {
        let mut w = Waypoints::new(3, 4);
        let direct = (0..30_000).filter(|_| w.wlb(1, 64, 1.0 / 3.0) == NO_WAYPOINT).count();
        assert!((direct as f64 / 30_000.0 - 1.0 / 3.0).abs() < 0.01, "{direct}");
        let mut seen = [false; 64];
        for _ in 0..2000 {
            seen[w.vlb(0, 64) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s), "every intermediate is drawn");
    }
}
