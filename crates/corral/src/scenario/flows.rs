//! Expands `[[flows]]` entries into concrete flows on a built network: host names resolve to
//! host indices, patterns draw from the workload random stream, start jitter from each flow's
//! own stream. Unknown hosts, switches used as endpoints and unroutable pairs are errors here,
//! before the run starts.

use super::{FlowSize, FlowSpec, Pattern, Scenario};
use crate::error::{config_err, Result};
use crate::net::Network;
use crate::route::RouteTable;
use crate::sim::rng::{stream, Rng};
use crate::units::Time;
use crate::workload::flow::{resolve_host, FlowDef};

fn pairs(net: &Network, spec: &FlowSpec, i: usize, seed: u64) -> Result<Vec<(u32, u32)>> {
    if let Some(Pattern::Permutation) = spec.pattern {
        let n = net.hosts.len() as u32;
        if n < 2 {
            return Err(config_err(
                format!("flows[{i}].pattern"),
                "a permutation needs at least 2 hosts",
            ));
        }
        let mut order: Vec<u32> = (0..n).collect();
        Rng::stream(seed, stream::WORKLOAD, i as u64).shuffle(&mut order);
        // Each host sends to the next one in a random cycle: a derangement.
        return Ok((0..n as usize).map(|k| (order[k], order[(k + 1) % n as usize])).collect());
    }
    let resolve = |names: Vec<&str>, key: &str| -> Result<Vec<u32>> {
        names
            .iter()
            .enumerate()
            .map(|(j, name)| {
                let path = if names.len() == 1 {
                    format!("flows[{i}].{key}")
                } else {
                    format!("flows[{i}].{key}[{j}]")
                };
                resolve_host(net, name, &path)
            })
            .collect()
    };
    let src = resolve(spec.src.as_ref().map(|h| h.names()).unwrap_or_default(), "src")?;
    let dst = resolve(spec.dst.as_ref().map(|h| h.names()).unwrap_or_default(), "dst")?;
    let out: Vec<(u32, u32)> = match (src.len(), dst.len()) {
        (a, b) if a == b => src.into_iter().zip(dst).collect(),
        (_, 1) => src.into_iter().map(|s| (s, dst[0])).collect(),
        (1, _) => dst.into_iter().map(|d| (src[0], d)).collect(),
        (a, b) => {
            return Err(config_err(
                format!("flows[{i}].dst"),
                format!(
                    "{a} sources and {b} destinations: give equal-length lists, or one of either"
                ),
            ))
        }
    };
    if out.is_empty() {
        return Err(config_err(format!("flows[{i}].src"), "must name at least one host"));
    }
    Ok(out)
}

/// All flows of the scenario, in file order, with ids assigned by position.
pub fn expand(sc: &Scenario, net: &Network, routes: &RouteTable) -> Result<Vec<FlowDef>> {
    let mut flows = Vec::new();
    for (i, spec) in sc.flows.iter().enumerate() {
        for (src, dst) in pairs(net, spec, i, sc.seed)? {
            if src == dst {
                return Err(config_err(
                    format!("flows[{i}]"),
                    format!("src and dst are the same host h{src}"),
                ));
            }
            if routes.hops(net.hosts[src as usize], dst).is_none() {
                return Err(config_err(
                    format!("flows[{i}]"),
                    format!("no route from h{src} to h{dst}: the hosts are not connected"),
                ));
            }
            if spec.deadline == Some(Time::ZERO) {
                return Err(config_err(
                    format!("flows[{i}].deadline"),
                    "must be positive (a time after the flow's start)",
                ));
            }
            for _ in 0..spec.count {
                let id = flows.len() as u64;
                let jitter = if spec.jitter > Time::ZERO {
                    Rng::stream(sc.seed, stream::FLOW_START, id).below(spec.jitter.0)
                } else {
                    0
                };
                flows.push(FlowDef {
                    src,
                    dst,
                    size: match spec.size {
                        FlowSize::Unbounded => None,
                        FlowSize::Bytes(b) => Some(b),
                    },
                    start: spec.start + Time(jitter),
                    deadline: spec.deadline.map(|d| spec.start + Time(jitter) + d),
                    tag: spec.tag.clone(),
                    priority: spec.priority,
                    weight: spec.weight,
                    tenant: spec.tenant.clone(),
                    class: spec.class.clone(),
                    block: None,
                    routing: spec.routing,
                    transport: spec.transport.clone(),
                });
            }
        }
    }
    Ok(flows)
}
