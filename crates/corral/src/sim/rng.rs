//! Seeded random streams: xoshiro256** seeded through SplitMix64.
//!
//! Each component (a flow's start jitter, a switch's spray choices, the workload generator)
//! gets its own stream derived from the scenario's single seed and a stable stream label, so
//! adding a component never shifts the numbers another component sees. The generator is
//! implemented here so results do not depend on a third-party crate's version.

/// SplitMix64 step: also used as a stateless 64-bit mixer (ECMP hashing).
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

/// Stream labels: one per kind of component, combined with the component's index.
pub mod stream {
    pub const FLOW_START: u64 = 1;
    pub const SPRAY: u64 = 2;
    /// Index i: `[[flows]]` entry i; index 2^40 + 16 b + k: `[[traffic]]` block b (its
    /// `stream`, else its position), purpose k (arrivals, pairs, sizes, deadlines, setup, link
    /// share; `workload::generate`).
    pub const WORKLOAD: u64 = 3;
    pub const ECMP: u64 = 4;
    pub const HOST_JITTER: u64 = 5;
    pub const LINK_CLOCK: u64 = 6;
    pub const EQUAL_LENGTH: u64 = 7;
    /// RED early-drop draws, per (port, class).
    pub const RED: u64 = 8;
    /// SFQ hash salts, per port.
    pub const SFQ: u64 = 9;
    /// Uniform-minimal-path (`rps`) choices, per switch.
    pub const RPS: u64 = 10;
    /// VLB/WLB intermediates, per sending host.
    pub const WAYPOINT: u64 = 11;
    /// A scheme's own draws (index: the scheme's choice, e.g. its agent).
    pub const SCHEME: u64 = 12;
    /// `[[rpc]]` sessions: index 2^32 b + s is session s of block b (its pairs, sizes and
    /// think times).
    pub const RPC: u64 = 13;
    /// A flow's congestion controller (BBR's ProbeBW phase), per flow index.
    pub const CONTROLLER: u64 = 14;
    /// Flowcell routing's per-(flow, switch) rotation offsets (a stateless hash salt).
    pub const FLOWCELL: u64 = 15;
    /// A flow's application demand (on-off periods), per flow index
    /// (schemes/app_demand.rs).
    pub const APP_DEMAND: u64 = 16;
}

impl Rng {
    /// The stream for component `(label, index)` under scenario seed `seed`.
    pub fn stream(seed: u64, label: u64, index: u64) -> Rng {
        let mut x = mix64(seed ^ mix64(label.wrapping_mul(0x1000_0000_01B3) ^ mix64(index)));
        let mut s = [0u64; 4];
        for v in &mut s {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            *v = mix64(x);
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform integer in `0..n` (n > 0), without modulo bias worth caring about (Lemire).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform float in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

/// One stream per component of a kind (a switch's choices, a host's draws): stream
/// `(label, i)` for component `i`.
#[derive(Clone, Debug)]
pub struct Streams(Vec<Rng>);

impl Streams {
    pub fn new(seed: u64, label: u64, components: usize) -> Streams {
        Streams((0..components).map(|i| Rng::stream(seed, label, i as u64)).collect())
    }

    /// The stream of component `i`.
    #[inline]
    pub fn of(&mut self, i: usize) -> &mut Rng {
        &mut self.0[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, 1, 0);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, 1, 0);
                move |_| r.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, 1, 1);
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = Rng::stream(1, 2, 3);
        let mut seen = [0u32; 5];
        for _ in 0..1000 {
            seen[r.below(5) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 150), "{seen:?}");
    }
}
