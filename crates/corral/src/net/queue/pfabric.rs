//! pFabric's switch queue (Alizadeh et al., SIGCOMM 2013, section 4.1): packets carry a
//! priority (their flow's remaining size, lower is more urgent; see
//! [`crate::net::packet::pfabric_priority`]). The port sends the earliest queued packet of
//! the flow that holds the most urgent packet (so a flow's packets leave in order), and a
//! full buffer drops the least urgent packet, queued or arriving (the latest of equals).
//! A few tens of packets per port make the linear scans cheap.

use super::{fits, Admit, Arrival, Discipline};
use crate::ids::{FlowId, PktId};
use crate::units::{BufferSize, Time};

#[derive(Clone, Copy, Debug)]
struct Queued {
    pkt: PktId,
    size: u32,
    prio: u8,
    flow: FlowId,
}

pub struct Pfabric {
    limit: BufferSize,
    /// In arrival order.
    queue: Vec<Queued>,
    bytes: u64,
    victim: Option<(PktId, u32)>,
}

impl Pfabric {
    pub fn new(limit: BufferSize) -> Pfabric {
        Pfabric { limit, queue: Vec::new(), bytes: 0, victim: None }
    }
}

impl Discipline for Pfabric {
    fn enqueue(&mut self, a: Arrival) -> Admit {
        let q = Queued { pkt: a.pkt, size: a.size, prio: a.prio, flow: a.flow };
        if fits(self.limit, self.bytes, self.queue.len() as u64, a.size) {
            self.bytes += a.size as u64;
            self.queue.push(q);
            return Admit::Accept { mark: false };
        }
        // The least urgent queued packet (the latest of equals) makes room if the arrival is
        // more urgent; otherwise the arrival is dropped.
        let worst = self.queue.iter().enumerate().max_by_key(|(i, p)| (p.prio, *i)).map(|(i, _)| i);
        match worst {
            Some(i) if self.queue[i].prio > a.prio => {
                let out = self.queue.remove(i);
                self.bytes -= out.size as u64;
                self.victim = Some((out.pkt, out.size));
                if !fits(self.limit, self.bytes, self.queue.len() as u64, a.size) {
                    // A byte limit may need more room than one packet gave: drop the arrival.
                    self.bytes += out.size as u64;
                    self.queue.insert(i, out);
                    self.victim = None;
                    return Admit::Drop;
                }
                self.bytes += a.size as u64;
                self.queue.push(q);
                Admit::Displace { mark: false }
            }
            _ => Admit::Drop,
        }
    }

    fn dequeue(&mut self, _now: Time) -> Option<(PktId, u32)> {
        let best = self.queue.iter().min_by_key(|p| p.prio)?.flow;
        let i = self.queue.iter().position(|p| p.flow == best).expect("the flow has a packet");
        let out = self.queue.remove(i);
        self.bytes -= out.size as u64;
        Some((out.pkt, out.size))
    }

    fn pop_victim(&mut self) -> Option<(PktId, u32)> {
        self.victim.take()
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn packets(&self) -> u64 {
        self.queue.len() as u64
    }
}

impl super::Declared for Pfabric {
    type Config = super::NoSettings;
    const TABLE: bool = false;
    fn build(
        _cfg: &super::NoSettings,
        _settings: &super::QueueSettings,
        port: &super::PortQueue,
    ) -> Pfabric {
        Pfabric::new(port.buffer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrival(pkt: u32, flow: u32, prio: u8) -> Arrival {
        Arrival { flow: FlowId(flow), prio, ..Arrival::test(pkt, 1000) }
    }

    // The most urgent flow goes first, its packets in arrival order, even when a later one
    // of its packets is more urgent still (remaining size shrinks along a flow).
    #[test]
    fn serves_the_most_urgent_flow_in_order() {
        let mut q = Pfabric::new(BufferSize::Packets(10));
        for (pkt, flow, prio) in [(0, 1, 50), (1, 2, 30), (2, 2, 20), (3, 3, 40)] {
            assert_eq!(q.enqueue(arrival(pkt, flow, prio)), Admit::Accept { mark: false });
        }
        let order: Vec<u32> =
            std::iter::from_fn(|| q.dequeue(Time::ZERO)).map(|(p, _)| p.0).collect();
        assert_eq!(order, vec![1, 2, 3, 0]);
        assert_eq!((q.bytes(), q.packets()), (0, 0));
    }

    // A full buffer drops the least urgent packet: a queued one if the arrival beats it
    // (handed out as the victim), else the arrival.
    #[test]
    fn a_full_buffer_drops_the_least_urgent() {
        let mut q = Pfabric::new(BufferSize::Packets(2));
        q.enqueue(arrival(0, 1, 90));
        q.enqueue(arrival(1, 2, 10));
        assert_eq!(q.enqueue(arrival(2, 3, 50)), Admit::Displace { mark: false });
        assert_eq!(q.pop_victim(), Some((PktId(0), 1000)));
        assert_eq!(q.enqueue(arrival(3, 4, 60)), Admit::Drop, "less urgent than everything queued");
        assert_eq!(q.pop_victim(), None);
        assert_eq!((q.packets(), q.bytes()), (2, 2000));
    }
}
