//! Building each switch output port's queue discipline (and each switch's shared buffer)
//! from `[switch]`. Randomized disciplines get their own stream per port (and class).

use crate::net::queue::{drr, PortQueue, QueueDisc};
use crate::net::shared_buffer::SharedBuffer;
use crate::net::{Network, NodeKind};
use crate::scenario::{BufferModel, SwitchConfig};
use crate::units::{BufferSize, Rate};

/// The discipline of switch port number `port` (global index), serializing at `rate`.
pub fn switch_queue(
    sw: &SwitchConfig,
    seed: u64,
    port: usize,
    rate: Rate,
    tenants: &[String],
) -> QueueDisc {
    QueueDisc::build(
        sw.queue.kind,
        &sw.queue,
        &PortQueue { buffer: sw.buffer, rate, seed, port, class: 0, tenants },
    )
}

/// Replaces every switch port's queue with the configured discipline (after the link rates
/// are final) and returns the per-node shared buffers (None for hosts and per-port buffers).
/// With back-pressure, hosts' NICs get per-flow queues too (of `host_buffer`), so that a
/// flow held back by its first switch does not hold up the others.
pub fn install(
    net: &mut Network,
    sw: &SwitchConfig,
    host_buffer: BufferSize,
    seed: u64,
    tenants: &[String],
) -> Vec<Option<SharedBuffer>> {
    for i in 0..net.ports.len() {
        if net.nodes[net.ports[i].node.idx()].kind == NodeKind::Switch {
            let rate = net.ports[i].rate();
            net.ports[i].queue = switch_queue(sw, seed, i, rate, tenants);
        } else if sw.backpressure > 0 {
            net.ports[i].queue = QueueDisc::Drr(Box::new(drr::Drr::new(
                host_buffer,
                &drr::DrrConfig::default(),
                tenants,
            )));
        }
    }
    net.nodes
        .iter()
        .map(|n| match (n.kind, sw.buffer_model) {
            (NodeKind::Switch, BufferModel::Shared) => Some(SharedBuffer::new(
                sw.shared_buffer.expect("validated").0,
                sw.alpha.unwrap_or(1.0),
            )),
            _ => None,
        })
        .collect()
}
