//! Turns `[[traffic]]` blocks into concrete flows on a built network, before the run: the
//! arrival rate from the target load and the size distribution's mean, then arrival times,
//! pairs, sizes and deadlines, each from its own random stream of the `WORKLOAD` family
//! (indexed by block and purpose), so changing one block's sizes moves neither its arrival
//! times nor another block's flows. Callable on its own ([`generate_block`]) to check
//! offered load without simulating packets.

use super::arrivals::{rate_for_load, Arrivals};
use super::patterns::{PairPicker, TrafficPattern};
use super::spec::TrafficSpec;
use crate::error::{config_err, Result};
use crate::ids::NodeId;
use crate::net::Network;
use crate::route::RouteTable;
use super::flow::{resolve_host, FlowDef};
use crate::sim::rng::{stream, Rng};
use crate::units::Time;
use std::path::Path;

/// Stream index of traffic block `block` for `purpose`, above the indices `[[flows]]`
/// entries use in the same family.
fn stream_index(block: usize, purpose: u64) -> u64 {
    (1 << 40) + block as u64 * 16 + purpose
}
const ARRIVALS: u64 = 0;
const PAIRS: u64 = 1;
const SIZES: u64 = 2;
const DEADLINES: u64 = 3;
const SETUP: u64 = 4;
const LINK_SHARE: u64 = 5;

/// The rack of every host: the switch its NIC connects to.
pub fn racks(net: &Network) -> Vec<u32> {
    (0..net.hosts.len() as u32).map(|h| net.ports[net.host_port(h).idx()].peer.0).collect()
}

fn access_bps(net: &Network, h: u32) -> f64 {
    net.ports[net.host_port(h).idx()].rate().bps() as f64
}

/// `*` matches any run of characters.
fn glob(pat: &str, s: &str) -> bool {
    match pat.split_once('*') {
        None => pat == s,
        Some((head, rest)) => {
            let Some(tail) = s.strip_prefix(head) else { return false };
            (0..=tail.len()).any(|k| tail.is_char_boundary(k) && glob(rest, &tail[k..]))
        }
    }
}

/// Ports matching `"node:port"` patterns; every pattern must match at least one port.
pub fn match_ports(net: &Network, specs: &[String], path: &str) -> Result<Vec<bool>> {
    let mut hit = vec![false; net.ports.len()];
    for (j, spec) in specs.iter().enumerate() {
        let Some((node, port)) = spec.rsplit_once(':') else {
            return Err(config_err(format!("{path}[{j}]"), format!("expected \"node:port\" (\"*\" matches anything), got \"{spec}\"")));
        };
        let mut any = false;
        for (i, p) in net.ports.iter().enumerate() {
            if glob(node, &net.nodes[p.node.idx()].name) && glob(port, &p.local.to_string()) {
                hit[i] = true;
                any = true;
            }
        }
        if !any {
            return Err(config_err(format!("{path}[{j}]"), format!("\"{spec}\" matches no port of this topology")));
        }
    }
    Ok(hit)
}

/// Number of marked links a flow from `src` to `dst` crosses on average, its bytes split
/// equally over equal-cost next hops at every switch (ECMP in expectation).
fn crossings(net: &Network, routes: &RouteTable, marked: &[bool], src: u32, dst: u32) -> f64 {
    let mut level: Vec<(NodeId, f64)> = vec![(net.hosts[src as usize], 1.0)];
    let mut total = 0.0;
    let target = net.hosts[dst as usize];
    while !level.is_empty() {
        let mut next: Vec<(NodeId, f64)> = Vec::new();
        for &(node, mass) in &level {
            if node == target {
                continue;
            }
            let c = routes.candidates(node, dst);
            let share = mass / c.len().max(1) as f64;
            for &p in c {
                if marked[p.idx()] {
                    total += share;
                }
                let peer = net.ports[p.idx()].peer;
                match next.iter_mut().find(|(n, _)| *n == peer) {
                    Some(e) => e.1 += share,
                    None => next.push((peer, share)),
                }
            }
        }
        level = next;
    }
    total
}

/// The flows of traffic block `i`, in arrival order; refused when more than `budget` flows
/// are expected (the memory limit).
#[allow(clippy::too_many_arguments)]
pub fn generate_block(spec: &TrafficSpec, i: usize, seed: u64, duration: Time, net: &Network, routes: &RouteTable, base: Option<&Path>, budget: u64) -> Result<Vec<FlowDef>> {
    let at = |k: &str| format!("traffic[{i}].{k}");
    let rng = |purpose| Rng::stream(seed, stream::WORKLOAD, stream_index(i, purpose));
    let stop = spec.stop_or(duration);
    let limit = spec.max_flows as usize;
    let too_many = || config_err(at("max_flows"), format!("the block would generate more than {limit} flows; lower the load/rate or raise max_flows"));
    let mut deadline_rng = rng(DEADLINES);
    let mut make = |src: u32, dst: u32, size: u64, start: Time| FlowDef {
        src,
        dst,
        size: Some(size),
        start,
        tag: spec.tag.clone(),
        priority: spec.priority,
        weight: spec.weight,
        tenant: spec.tenant.clone(),
        class: spec.class.clone(),
        deadline: spec.deadline.map(|d| Time(start.0.saturating_add(d.draw(&mut deadline_rng).0))),
        block: Some(i as u32),
        routing: spec.routing,
        transport: spec.transport.clone(),
    };
    let check_route = |src: u32, dst: u32, path: &str| -> Result<()> {
        if routes.hops(net.hosts[src as usize], dst).is_none() {
            return Err(config_err(path, format!("no route from h{src} to h{dst}: the hosts are not connected")));
        }
        Ok(())
    };

    if spec.pattern == TrafficPattern::Trace {
        let file = spec.file.as_deref().expect("validated");
        let full = match base {
            Some(b) if Path::new(file).is_relative() => b.join(file),
            _ => Path::new(file).to_path_buf(),
        };
        let rows = match &spec.cells {
            Some(c) => super::trace::from_cells(&c.names, c.rows.iter().cloned().enumerate().map(|(k, r)| (k + 1, r)), file, "row", &at("file"))?,
            None => super::trace::read(&full, &at("file"))?,
        };
        let mut out = Vec::with_capacity(rows.len());
        for (r, row) in rows.iter().enumerate() {
            let path = format!("{} (row {})", at("file"), r + 1);
            let src = resolve_host(net, &row.src, &path)?;
            let dst = resolve_host(net, &row.dst, &path)?;
            if src == dst {
                return Err(config_err(path, format!("src and dst are the same host {}", row.src)));
            }
            check_route(src, dst, &path)?;
            let start = Time(spec.start.0.saturating_add(row.start.0));
            if start >= stop {
                continue;
            }
            if out.len() >= limit {
                return Err(too_many());
            }
            let mut f = make(src, dst, row.size, start);
            if let Some(t) = &row.tenant {
                f.tenant = t.clone();
            }
            if let Some(c) = &row.class {
                f.class = c.clone();
            }
            f.priority = row.priority.unwrap_or(f.priority);
            f.weight = row.weight.unwrap_or(f.weight);
            if let Some(d) = row.deadline {
                f.deadline = Some(Time(start.0.saturating_add(d.0)));
            }
            out.push(f);
        }
        out.sort_by_key(|f| f.start);
        return Ok(out);
    }

    let sizes = spec.size.as_ref().expect("validated").resolve(base, &at("size"))?;
    let hosts: Vec<u32> = match &spec.hosts {
        None => (0..net.hosts.len() as u32).collect(),
        Some(h) => {
            let names = h.names();
            let many = names.len() > 1;
            names.iter().enumerate().map(|(j, n)| resolve_host(net, n, &if many { format!("{}[{j}]", at("hosts")) } else { at("hosts") })).collect::<Result<_>>()?
        }
    };
    let dst = spec.dst.as_deref().map(|d| resolve_host(net, d, &at("dst"))).transpose()?;
    let rack = racks(net);
    let picker = PairPicker::new(spec.pattern, &hosts, &rack, dst, &mut rng(SETUP));
    let n = picker.hosts().len();
    // With no fixed dst, each arrival's receiver is one of the hosts: the senders are the rest.
    let others = n - dst.map_or(1, |d| picker.hosts().contains(&d) as usize);
    if n < 2 || others < 1 {
        return Err(config_err(at("hosts"), format!("needs at least two distinct hosts (one besides dst), got {n}")));
    }
    if spec.pattern == TrafficPattern::InterRack && !picker.has_inter_rack_pairs() {
        return Err(config_err(at("hosts"), "all hosts are in one rack: inter_rack has no pair"));
    }
    let fan_in = spec.senders.unwrap_or(1) as usize;
    if spec.pattern == TrafficPattern::Incast && fan_in > others {
        return Err(config_err(at("senders"), format!("{fan_in} senders but only {others} hosts besides the receiver")));
    }

    // Bytes each arrival brings, and the capacity the load refers to.
    let per_arrival = sizes.mean() * fan_in as f64;
    let arrivals = if let Some(iv) = spec.interval {
        Arrivals::Periodic { interval: iv }
    } else if let Some(r) = spec.rate {
        Arrivals::Poisson { per_s: r }
    } else {
        let load = spec.load.expect("validated");
        let per_s = match &spec.load_links {
            Some(links) => {
                let marked = match_ports(net, links, &at("load_links"))?;
                let cap: f64 = net.ports.iter().zip(&marked).filter(|(_, &m)| m).map(|(p, _)| p.rate().bps() as f64).sum();
                // Average crossings per flow, over the pattern's own pair distribution.
                let mut r = rng(LINK_SHARE);
                let mut cache = std::collections::HashMap::new();
                let samples = 20_000;
                let mut sum = 0.0;
                let mut buf = Vec::new();
                for _ in 0..samples {
                    let pairs: Vec<(u32, u32)> = if spec.pattern == TrafficPattern::Incast {
                        let d = picker.incast_senders(1, &mut r, &mut buf);
                        vec![(buf[0], d)]
                    } else {
                        vec![picker.pick(&mut r)]
                    };
                    for (s, d) in pairs {
                        sum += *cache.entry((s, d)).or_insert_with(|| crossings(net, routes, &marked, s, d));
                    }
                }
                let per_flow = sum / samples as f64;
                if per_flow < 1e-9 {
                    return Err(config_err(at("load_links"), "no flow of this pattern and host set crosses these links"));
                }
                rate_for_load(load, cap, per_arrival * per_flow)
            }
            None => {
                // The senders' access links, or the receivers' if fewer (many-to-one, incast:
                // the one receiver's link is the capacity the flows share).
                let senders: f64 = picker.senders().iter().filter(|&&h| Some(h) != dst).map(|&h| access_bps(net, h)).sum();
                let receivers = match (spec.pattern, dst) {
                    (TrafficPattern::ManyToOne | TrafficPattern::Incast, Some(d)) => access_bps(net, d),
                    (TrafficPattern::Incast, None) => picker.hosts().iter().map(|&h| access_bps(net, h)).sum(),
                    _ => senders,
                };
                rate_for_load(load, senders.min(receivers), per_arrival)
            }
        };
        Arrivals::Poisson { per_s }
    };

    let window = (stop.saturating_sub(spec.start)).as_secs_f64();
    let (per_s, key) = match arrivals {
        Arrivals::Poisson { per_s } => (per_s, if spec.rate.is_some() { "rate" } else { "load" }),
        Arrivals::Periodic { interval } => (1.0 / interval.as_secs_f64().max(1e-12), "interval"),
    };
    let expected = per_s * window * fan_in as f64;
    if expected > budget as f64 {
        return Err(config_err(
            at(key),
            format!("the block would generate about {expected:.3e} flows, more than the {budget} that fit in the memory limit (half of this machine's memory unless --max-memory says otherwise); lower the load or rate, or shorten the run"),
        ));
    }
    let times = arrivals.times(spec.start, stop, limit / fan_in.max(1) + 1, &mut rng(ARRIVALS)).ok_or_else(too_many)?;
    let mut pair_rng = rng(PAIRS);
    let mut size_rng = rng(SIZES);
    let mut out = Vec::with_capacity(times.len() * fan_in);
    let mut senders = Vec::with_capacity(fan_in);
    for t in times {
        if spec.pattern == TrafficPattern::Incast {
            let d = picker.incast_senders(fan_in, &mut pair_rng, &mut senders);
            for &s in &senders {
                out.push(make(s, d, sizes.sample(&mut size_rng), t));
            }
        } else {
            let (s, d) = picker.pick(&mut pair_rng);
            out.push(make(s, d, sizes.sample(&mut size_rng), t));
        }
        if out.len() > limit {
            return Err(too_many());
        }
    }
    let hosts_key = at("hosts");
    for f in &out {
        check_route(f.src, f.dst, &hosts_key)?;
    }
    Ok(out)
}

/// The flows of every `[[traffic]]` block, merged in start order (ties: block order, then
/// generation order). At most `budget` flows in all fit in the run's memory limit: a block
/// expected to exceed what is left is refused before it generates anything.
pub fn generate(blocks: &[TrafficSpec], seed: u64, duration: Time, net: &Network, routes: &RouteTable, base: Option<&Path>, budget: u64) -> Result<Vec<FlowDef>> {
    let mut all = Vec::new();
    for (i, spec) in blocks.iter().enumerate() {
        let left = budget.saturating_sub(all.len() as u64);
        let block = generate_block(spec, i, seed, duration, net, routes, base, left)?;
        // A block's flows are moved, not copied, when they are the first.
        if all.is_empty() {
            all = block;
        } else {
            all.extend(block);
        }
    }
    all.sort_by_key(|f| f.start); // stable
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("agg*", "agg12"));
        assert!(glob("*", "2"));
        assert!(glob("a*g*3", "abcg13"));
        assert!(!glob("agg*", "core1"));
        assert!(!glob("tor1", "tor10"));
    }
}
