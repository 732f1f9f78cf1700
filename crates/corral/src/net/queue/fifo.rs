//! First-in first-out packet storage with byte accounting, shared by the FIFO disciplines.

use crate::ids::PktId;
use std::collections::VecDeque;

#[derive(Default)]
pub struct Fifo {
    q: VecDeque<(PktId, u32)>,
    bytes: u64,
}

impl Fifo {
    #[inline]
    pub fn push(&mut self, pkt: PktId, size: u32) {
        self.bytes += size as u64;
        self.q.push_back((pkt, size));
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(PktId, u32)> {
        let (p, s) = self.q.pop_front()?;
        self.bytes -= s as u64;
        Some((p, s))
    }

    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}
