//! Drop-tail FIFO that sets ECN Congestion Experienced on ECN-capable packets when the
//! instantaneous queue on arrival exceeds a threshold K: the switch marking DCTCP assumes
//! (RFC 8257 section 3.1; Alizadeh et al., SIGCOMM 2010, section 3.1). Non-ECT packets are
//! never marked; packets that do not fit are dropped as in drop-tail.

use super::{exceeds, fits, Admit, Arrival, Discipline, Fifo};
use crate::ids::PktId;
use crate::units::{BufferSize, Time};

pub struct EcnThreshold {
    fifo: Fifo,
    limit: BufferSize,
    threshold: BufferSize,
}

impl EcnThreshold {
    pub fn new(limit: BufferSize, threshold: BufferSize) -> EcnThreshold {
        EcnThreshold { fifo: Fifo::default(), limit, threshold }
    }

    fn verdict(&self, a: &Arrival) -> Admit {
        let (bytes, pkts) = (self.fifo.bytes(), self.fifo.len() as u64);
        if !fits(self.limit, bytes, pkts, a.size) {
            return Admit::Drop;
        }
        Admit::Accept { mark: a.ect && exceeds(self.threshold, bytes, pkts) }
    }
}

impl Discipline for EcnThreshold {
    fifo_accessors!(by_verdict);
}

/// Its threshold is `switch.ecn_threshold` (a key of `[switch]`, shared with "ecn" priority
/// classes), so it has no table of its own.
impl super::Declared for EcnThreshold {
    type Config = super::NoSettings;
    const TABLE: bool = false;
    fn build(
        _cfg: &super::NoSettings,
        settings: &super::QueueSettings,
        port: &super::PortQueue,
    ) -> EcnThreshold {
        EcnThreshold::new(
            port.buffer,
            settings.ecn_threshold.expect("validated: an ecn queue has a threshold"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_only_above_threshold_and_only_ect() {
        let mut q = EcnThreshold::new(BufferSize::Packets(10), BufferSize::Packets(2));
        let a = |i, ect| Arrival { ect, ..Arrival::test(i, 1500) };
        assert_eq!(q.enqueue(a(0, true)), Admit::Accept { mark: false });
        assert_eq!(q.enqueue(a(1, true)), Admit::Accept { mark: false });
        assert_eq!(q.enqueue(a(2, true)), Admit::Accept { mark: false }); // 2 queued: not above K
        assert_eq!(q.enqueue(a(3, true)), Admit::Accept { mark: true }); // 3 queued > K
        assert_eq!(q.enqueue(a(4, false)), Admit::Accept { mark: false });
    }

    #[test]
    fn still_drops_when_full() {
        let mut q = EcnThreshold::new(BufferSize::Packets(1), BufferSize::Packets(0));
        let a = |i| Arrival::test(i, 1500);
        assert_eq!(q.enqueue(a(0)), Admit::Accept { mark: false });
        assert_eq!(q.enqueue(a(1)), Admit::Drop);
    }
}
