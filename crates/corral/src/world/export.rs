//! The built run as plain data, for `corral emulate` (the Python package builds it on Linux
//! network namespaces): nodes, ports with their rate, delay and queue, each switch's next hop
//! toward every host under the run's routing, and the flows with their start times (jitter
//! drawn). Only what a kernel can reproduce is exported; anything else is a clear error
//! naming the scenario key.

use super::Simulation;
use crate::error::{config_err, Result};
use crate::net::queue::red::RedMode;
use crate::net::queue::QueueConfig;
use crate::net::NodeKind;
use crate::route::static_bits::StaticBits;
use crate::route::Routing;
use crate::scenario::{BufferModel, QueueKind};
use crate::transport::config::FlowTransport;
use crate::units::BufferSize;
use serde_json::{json, Value};

fn buffer(b: BufferSize) -> Value {
    match b {
        BufferSize::Bytes(n) => json!({ "bytes": n }),
        BufferSize::Packets(n) => json!({ "packets": n }),
    }
}

impl Simulation {
    /// The run as this module's data (`export.rs`). Errors name the key a kernel cannot follow: a
    /// `[scheme]`, `[[rpc]]`, routing other than static or ECMP, a shared buffer, or a switch
    /// queue other than taildrop, ecn or red.
    pub fn emulation_export(&self) -> Result<Value> {
        let sc = &self.scenario;
        if sc.scheme.is_some() {
            return Err(config_err(
                "scheme",
                "corral emulate runs kernel TCP only: remove [scheme]",
            ));
        }
        if !sc.rpc.is_empty() {
            return Err(config_err(
                "rpc",
                "corral emulate runs open-loop flows only: remove [[rpc]]",
            ));
        }
        if !sc.events.is_empty() {
            return Err(config_err("events", "corral emulate does not replay [[events]] (link rate changes and failures): remove them"));
        }
        let routing = match sc.routing.routing {
            Routing::Static => "static",
            Routing::Ecmp => "ecmp",
            other => {
                return Err(config_err(
                    "routing.kind",
                    format!(
                        "corral emulate maps \"static\" and \"ecmp\" to IP routes, got \"{}\"",
                        other.name()
                    ),
                ))
            }
        };
        let sw = &sc.switch;
        if sw.buffer_model != BufferModel::PerPort {
            return Err(config_err(
                "switch.buffer_model",
                "corral emulate gives each port its own queue: use \"per_port\"",
            ));
        }
        let switch_queue = match sw.queue.kind {
            QueueKind::Taildrop => json!({ "kind": "taildrop", "buffer": buffer(sw.buffer) }),
            QueueKind::Ecn => {
                let k = sw.queue.ecn_threshold.ok_or_else(|| {
                    config_err("switch.ecn_threshold", "queue \"ecn\" needs a threshold")
                })?;
                json!({ "kind": "ecn", "buffer": buffer(sw.buffer), "threshold": buffer(k) })
            }
            QueueKind::Red => {
                let r = match sw.queue.table(QueueKind::Red) {
                    Some(QueueConfig::Red(r)) => r.clone(),
                    _ => Default::default(),
                };
                json!({
                    "kind": "red", "buffer": buffer(sw.buffer), "min_th": buffer(r.min_th), "max_th": buffer(r.max_th),
                    "w_q": r.w_q, "max_p": r.max_p, "gentle": r.gentle, "mark": r.mode == RedMode::Mark, "mean_packet": r.mean_packet.0,
                })
            }
            other => {
                return Err(config_err(
                    "switch.queue",
                    format!(
                        "corral emulate maps taildrop, ecn and red to Linux qdiscs, got \"{}\"",
                        other.name()
                    ),
                ))
            }
        };
        let host_queue = json!({ "kind": "taildrop", "buffer": buffer(sc.host.buffer) });
        let net = &self.net;
        let nodes: Vec<Value> = net
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| json!({ "name": n.name, "host": net.host_index[i] }))
            .collect();
        let ports: Vec<Value> = net
            .ports
            .iter()
            .map(|p| {
                let host = net.nodes[p.node.idx()].kind == NodeKind::Host;
                json!({
                    "node": p.node.idx(), "peer": p.peer.idx(), "peer_port": p.peer_port.idx(), "rate_bps": p.rate().bps(), "delay_ns": p.delay.0 / 1000,
                    "queue": if host { &host_queue } else { &switch_queue },
                })
            })
            .collect();
        // Each switch's output port toward each host: the static rule's pick, or every
        // equal-cost port for ECMP.
        let mut routes = Vec::new();
        for (i, n) in net.nodes.iter().enumerate() {
            if n.kind == NodeKind::Host {
                continue;
            }
            let node = crate::ids::NodeId(i as u32);
            for dst in 0..net.hosts.len() as u32 {
                let c = self.routes.candidates(node, dst);
                if c.is_empty() {
                    continue;
                }
                let out: Vec<usize> = match sc.routing.routing {
                    Routing::Static => vec![c[StaticBits.pick(n.static_div, c.len(), dst)].idx()],
                    _ => c.iter().map(|p| p.idx()).collect(),
                };
                routes.push(json!([i, dst, out]));
            }
        }
        let mut flows = Vec::new();
        for (i, f) in self.flows.iter().enumerate() {
            let d = &f.def;
            if d.routing.is_some_and(|r| r != sc.routing.routing) {
                return Err(config_err(
                    format!("flows[{i}].routing"),
                    "corral emulate routes every flow by the run's [routing]",
                ));
            }
            let cc = match &d.transport {
                FlowTransport::Tcp(Some(cc)) => cc.name(),
                _ => sc.transport.cc.name(),
            };
            flows.push(json!({ "src": d.src, "dst": d.dst, "size": d.size, "start_ns": d.start.0 / 1000, "cc": cc, "tag": d.tag }));
        }
        let t = &sc.transport;
        Ok(json!({
            "name": sc.name, "seed": sc.seed, "duration_ns": sc.duration.0 / 1000, "routing": routing,
            "mss": t.mss, "header": t.header, "ecn": t.ecn, "sack": t.sack, "limited_transmit": t.limited_transmit,
            "delayed_ack": t.delayed_ack, "min_rto_ns": t.min_rto.0 / 1000, "initial_window": t.initial_window,
            "nodes": nodes, "ports": ports, "routes": routes, "flows": flows,
        }))
    }
}
