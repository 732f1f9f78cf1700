//! Static destination-bits routing, as in the TCP Outcast paper's fat-tree (section 2.1,
//! after Al-Fares et al.'s two-level tables): a ToR picks its uplink by the destination
//! host's last bit and an aggregation switch picks the core by the second-last bit. In
//! general a switch picks candidate `(dst / static_div) mod n`, where the topology builder
//! sets `static_div` per switch tier (1 at ToRs, k/2 at fat-tree aggregation switches).

pub struct StaticBits;

impl StaticBits {
    #[inline]
    pub fn pick(&self, static_div: u32, n: usize, dst: u32) -> usize {
        ((dst / static_div.max(1)) as usize) % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k4_uses_last_then_second_last_bit() {
        let r = StaticBits;
        // ToR (div 1): last bit.
        assert_eq!((r.pick(1, 2, 0), r.pick(1, 2, 1), r.pick(1, 2, 2)), (0, 1, 0));
        // Aggregation (div k/2 = 2): second-last bit.
        assert_eq!(
            (r.pick(2, 2, 0), r.pick(2, 2, 1), r.pick(2, 2, 2), r.pick(2, 2, 3)),
            (0, 0, 1, 1)
        );
    }
}
