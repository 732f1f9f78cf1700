//! Drop-tail FIFO: an arriving packet that does not fit in the buffer is dropped. This is the
//! discipline of commodity switches that the TCP Outcast paper (NSDI 2012, sections 2 and 4)
//! shows causes port blackout.

use super::{fits, Admit, Arrival, Discipline, Fifo};
use crate::ids::PktId;
use crate::units::{BufferSize, Time};

pub struct TailDrop {
    fifo: Fifo,
    limit: BufferSize,
}

impl TailDrop {
    pub fn new(limit: BufferSize) -> TailDrop {
        TailDrop { fifo: Fifo::default(), limit }
    }

    fn verdict(&self, a: &Arrival) -> Admit {
        if fits(self.limit, self.fifo.bytes(), self.fifo.len() as u64, a.size) {
            Admit::Accept { mark: false }
        } else {
            Admit::Drop
        }
    }
}

impl Discipline for TailDrop {
    fifo_accessors!(by_verdict);
}

impl super::Declared for TailDrop {
    type Config = super::NoSettings;
    const TABLE: bool = false;
    fn build(
        _cfg: &super::NoSettings,
        _settings: &super::QueueSettings,
        port: &super::PortQueue,
    ) -> TailDrop {
        TailDrop::new(port.buffer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(i: u32, size: u32) -> Arrival {
        Arrival::test(i, size)
    }

    #[test]
    fn drops_when_bytes_would_overflow() {
        let mut q = TailDrop::new(BufferSize::Bytes(3000));
        assert_eq!(q.enqueue(arr(0, 1500)), Admit::Accept { mark: false });
        assert_eq!(q.enqueue(arr(1, 1500)), Admit::Accept { mark: false });
        assert_eq!(q.enqueue(arr(2, 40)), Admit::Drop);
        assert_eq!(q.dequeue(Time::ZERO), Some((PktId(0), 1500)));
        assert_eq!(q.enqueue(arr(3, 1500)), Admit::Accept { mark: false });
        assert_eq!(q.bytes(), 3000);
    }

    #[test]
    fn packet_limit_counts_packets_not_bytes() {
        let mut q = TailDrop::new(BufferSize::Packets(2));
        assert_eq!(q.enqueue(arr(0, 9000)), Admit::Accept { mark: false });
        assert_eq!(q.enqueue(arr(1, 9000)), Admit::Accept { mark: false });
        assert_eq!(q.enqueue(arr(2, 40)), Admit::Drop);
    }
}
