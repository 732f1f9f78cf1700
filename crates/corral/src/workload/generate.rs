//! Turns `[[traffic]]` blocks into concrete flows on a built network, before the run: the
//! arrival rate from the target load and the size distribution's mean, then arrival times,
//! pairs, sizes and deadlines, each from its own random stream of the `WORKLOAD` family
//! (indexed by block and purpose), so changing one block's sizes moves neither its arrival
//! times nor another block's flows. Callable on its own ([`generate_block`]) to check
//! offered load without simulating packets.

use super::arrivals::{rate_for_load, Arrivals};
use super::dist::SizeDist;
use super::flow::{resolve_host, FlowDef};
use super::patterns::{PairPicker, TrafficPattern};
use super::spec::{LoadBasis, TrafficSpec};
use crate::error::{config_err, Result};
use crate::ids::NodeId;
use crate::net::Network;
use crate::route::RouteTable;
use crate::sim::rng::{stream, Rng};
use crate::units::Time;
use std::path::Path;

/// Stream index of traffic block `block` for `purpose`, above the indices `[[flows]]`
/// entries use in the same family.
fn stream_index(block: usize, purpose: u64) -> u64 {
    (1 << 40) + block as u64 * 16 + purpose
}
/// The stream index of block `i`: its `stream`, else its position.
fn stream_of(spec: &TrafficSpec, i: usize) -> usize {
    spec.stream.map_or(i, |s| s as usize)
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
            return Err(config_err(
                format!("{path}[{j}]"),
                format!("expected \"node:port\" (\"*\" matches anything), got \"{spec}\""),
            ));
        };
        let mut any = false;
        for (i, p) in net.ports.iter().enumerate() {
            if glob(node, &net.nodes[p.node.idx()].name) && glob(port, &p.local.to_string()) {
                hit[i] = true;
                any = true;
            }
        }
        if !any {
            return Err(config_err(
                format!("{path}[{j}]"),
                format!("\"{spec}\" matches no port of this topology"),
            ));
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
/// are expected (the memory limit). A trace replays its file (`Block::replay`); any other
/// pattern draws arrival times at the rate its load, rate or interval gives
/// (`Block::arrivals`), then a pair and a size per arrival (`Block::draw`).
#[allow(clippy::too_many_arguments)]
pub fn generate_block(
    spec: &TrafficSpec,
    i: usize,
    seed: u64,
    duration: Time,
    net: &Network,
    routes: &RouteTable,
    base: Option<&Path>,
    budget: u64,
) -> Result<Vec<FlowDef>> {
    let mut block = Block {
        spec,
        i,
        seed,
        stop: spec.stop_or(duration),
        net,
        routes,
        deadlines: Rng::stream(seed, stream::WORKLOAD, stream_index(stream_of(spec, i), DEADLINES)),
    };
    if spec.pattern == TrafficPattern::Trace {
        return block.replay(base);
    }
    let sizes = spec.size.as_ref().expect("validated").resolve(base, &block.at("size"))?;
    let hosts = block.hosts()?;
    let dst = spec.dst.as_deref().map(|d| resolve_host(net, d, &block.at("dst"))).transpose()?;
    let rack = racks(net);
    let picker = PairPicker::new(spec.pattern, &hosts, &rack, dst, &mut block.rng(SETUP));
    let fan_in = block.check_pattern(&picker, dst)?;
    let per_flow = match spec.load_basis {
        LoadBasis::Size => sizes.mean(),
        LoadBasis::Run => {
            let senders = picker.senders();
            let rate = senders.iter().map(|&h| access_bps(net, h)).sum::<f64>()
                / senders.len().max(1) as f64;
            mean_within_run(&sizes, spec.start, block.stop, duration, rate)
        }
    };
    let arrivals = block.arrivals(&picker, dst, per_flow * fan_in as f64)?;
    block.check_budget(arrivals, fan_in, budget)?;
    let out = block.draw(arrivals, &picker, &sizes, fan_in)?;
    let hosts_key = block.at("hosts");
    for f in &out {
        block.check_route(f.src, f.dst, &hosts_key)?;
    }
    Ok(out)
}

/// The mean bytes a flow arriving uniformly in [`start`, `stop`) can send before the run
/// ends at `end` (its size, or what `rate_bps` carries in the time left, if less): the
/// midpoint rule over 1,000 arrival times (`load_basis = "run"`).
fn mean_within_run(sizes: &SizeDist, start: Time, stop: Time, end: Time, rate_bps: f64) -> f64 {
    let (a, b) = (start.as_secs_f64(), stop.as_secs_f64().max(start.as_secs_f64()));
    let steps = 1000;
    let mean = (0..steps)
        .map(|k| {
            let t = a + (b - a) * (k as f64 + 0.5) / steps as f64;
            sizes.mean_below(rate_bps / 8.0 * (end.as_secs_f64() - t).max(0.0))
        })
        .sum::<f64>()
        / steps as f64;
    mean.max(1.0)
}

/// One traffic block being turned into flows: its spec, its random streams and the network.
struct Block<'a> {
    spec: &'a TrafficSpec,
    i: usize,
    seed: u64,
    /// No arrival at or after this time.
    stop: Time,
    net: &'a Network,
    routes: &'a RouteTable,
    /// Deadlines are drawn as flows are made, from their own stream.
    deadlines: Rng,
}

impl Block<'_> {
    /// The key path of the block's key `k`.
    fn at(&self, k: &str) -> String {
        format!("traffic[{}].{k}", self.i)
    }

    /// The block's random stream for `purpose`.
    fn rng(&self, purpose: u64) -> Rng {
        Rng::stream(
            self.seed,
            stream::WORKLOAD,
            stream_index(stream_of(self.spec, self.i), purpose),
        )
    }

    fn too_many(&self) -> crate::Error {
        let limit = self.spec.max_flows;
        config_err(self.at("max_flows"), format!("the block would generate more than {limit} flows; lower the load/rate or raise max_flows"))
    }

    /// A flow of the block from `src` to `dst` of `size` bytes starting at `start`.
    fn flow(&mut self, src: u32, dst: u32, size: u64, start: Time) -> FlowDef {
        let spec = self.spec;
        FlowDef {
            src,
            dst,
            size: Some(size),
            start,
            tag: spec.tag.clone(),
            priority: spec.priority,
            weight: spec.weight,
            tenant: spec.tenant.clone(),
            class: spec.class.clone(),
            deadline: spec
                .deadline
                .map(|d| Time(start.0.saturating_add(d.draw(&mut self.deadlines).0))),
            block: Some(self.i as u32),
            routing: spec.routing,
            transport: spec.transport.clone(),
        }
    }

    fn check_route(&self, src: u32, dst: u32, path: &str) -> Result<()> {
        if self.routes.hops(self.net.hosts[src as usize], dst).is_none() {
            return Err(config_err(
                path,
                format!("no route from h{src} to h{dst}: the hosts are not connected"),
            ));
        }
        Ok(())
    }

    /// A trace block: its file's rows (or the cells Python read from a Parquet file), each
    /// checked, in start order.
    fn replay(&mut self, base: Option<&Path>) -> Result<Vec<FlowDef>> {
        let spec = self.spec;
        let file = spec.file.as_deref().expect("validated");
        let full = match base {
            Some(b) if Path::new(file).is_relative() => b.join(file),
            _ => Path::new(file).to_path_buf(),
        };
        let rows = match &spec.cells {
            Some(c) => super::trace::from_cells(
                &c.names,
                c.rows.iter().cloned().enumerate().map(|(k, r)| (k + 1, r)),
                file,
                "row",
                &self.at("file"),
            )?,
            None => super::trace::read(&full, &self.at("file"))?,
        };
        let mut out = Vec::with_capacity(rows.len());
        for (r, row) in rows.iter().enumerate() {
            let path = format!("{} (row {})", self.at("file"), r + 1);
            let src = resolve_host(self.net, &row.src, &path)?;
            let dst = resolve_host(self.net, &row.dst, &path)?;
            if src == dst {
                return Err(config_err(path, format!("src and dst are the same host {}", row.src)));
            }
            self.check_route(src, dst, &path)?;
            let start = Time(spec.start.0.saturating_add(row.start.0));
            if start >= self.stop {
                continue;
            }
            if out.len() >= spec.max_flows as usize {
                return Err(self.too_many());
            }
            let mut f = self.flow(src, dst, row.size, start);
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
        Ok(out)
    }

    /// The block's hosts: its `hosts` list, or every host.
    fn hosts(&self) -> Result<Vec<u32>> {
        match &self.spec.hosts {
            None => Ok((0..self.net.hosts.len() as u32).collect()),
            Some(h) => {
                let names = h.names();
                let many = names.len() > 1;
                names
                    .iter()
                    .enumerate()
                    .map(|(j, n)| {
                        resolve_host(
                            self.net,
                            n,
                            &if many {
                                format!("{}[{j}]", self.at("hosts"))
                            } else {
                                self.at("hosts")
                            },
                        )
                    })
                    .collect()
            }
        }
    }

    /// Checks that the pattern has pairs to draw from; returns its fan-in (senders per
    /// arrival).
    fn check_pattern(&self, picker: &PairPicker, dst: Option<u32>) -> Result<usize> {
        let n = picker.hosts().len();
        // With no fixed dst, each arrival's receiver is one of the hosts: the senders are the rest.
        let others = n - dst.map_or(1, |d| picker.hosts().contains(&d) as usize);
        if n < 2 || others < 1 {
            return Err(config_err(
                self.at("hosts"),
                format!("needs at least two distinct hosts (one besides dst), got {n}"),
            ));
        }
        if self.spec.pattern == TrafficPattern::InterRack && !picker.has_inter_rack_pairs() {
            return Err(config_err(
                self.at("hosts"),
                "all hosts are in one rack: inter_rack has no pair",
            ));
        }
        let fan_in = self.spec.senders.unwrap_or(1) as usize;
        if self.spec.pattern == TrafficPattern::Incast && fan_in > others {
            return Err(config_err(
                self.at("senders"),
                format!("{fan_in} senders but only {others} hosts besides the receiver"),
            ));
        }
        Ok(fan_in)
    }

    /// When arrivals come: every `interval`, or Poisson at `rate`, or at the rate that offers
    /// `load` of the capacity the load refers to (`per_arrival` bytes each).
    fn arrivals(
        &self,
        picker: &PairPicker,
        dst: Option<u32>,
        per_arrival: f64,
    ) -> Result<Arrivals> {
        let spec = self.spec;
        if let Some(interval) = spec.interval {
            return Ok(Arrivals::Periodic { interval });
        }
        if let Some(per_s) = spec.rate {
            return Ok(Arrivals::Poisson { per_s });
        }
        let load = spec.load.expect("validated");
        let per_s = match &spec.load_links {
            Some(links) => {
                let marked = match_ports(self.net, links, &self.at("load_links"))?;
                let cap: f64 = self
                    .net
                    .ports
                    .iter()
                    .zip(&marked)
                    .filter(|(_, &m)| m)
                    .map(|(p, _)| p.rate().bps() as f64)
                    .sum();
                let per_flow = self.crossings_per_flow(picker, &marked);
                if per_flow < 1e-9 {
                    return Err(config_err(
                        self.at("load_links"),
                        "no flow of this pattern and host set crosses these links",
                    ));
                }
                rate_for_load(load, cap, per_arrival * per_flow)
            }
            None => {
                // The senders' access links, or the receivers' if fewer (many-to-one, incast:
                // the one receiver's link is the capacity the flows share).
                let net = self.net;
                let senders: f64 = picker
                    .senders()
                    .iter()
                    .filter(|&&h| Some(h) != dst)
                    .map(|&h| access_bps(net, h))
                    .sum();
                let receivers = match (spec.pattern, dst) {
                    (TrafficPattern::ManyToOne | TrafficPattern::Incast, Some(d)) => {
                        access_bps(net, d)
                    }
                    (TrafficPattern::Incast, None) => {
                        picker.hosts().iter().map(|&h| access_bps(net, h)).sum()
                    }
                    _ => senders,
                };
                rate_for_load(load, senders.min(receivers), per_arrival)
            }
        };
        Ok(Arrivals::Poisson { per_s })
    }

    /// The marked links a flow of the pattern crosses on average: a Monte-Carlo estimate over
    /// the pattern's own pair distribution (its own stream, `LINK_SHARE`).
    fn crossings_per_flow(&self, picker: &PairPicker, marked: &[bool]) -> f64 {
        let mut r = self.rng(LINK_SHARE);
        let mut cache = std::collections::HashMap::new();
        let samples = 20_000;
        let mut sum = 0.0;
        let mut buf = Vec::new();
        for _ in 0..samples {
            let pairs: Vec<(u32, u32)> = if self.spec.pattern == TrafficPattern::Incast {
                let d = picker.incast_senders(1, &mut r, &mut buf);
                vec![(buf[0], d)]
            } else {
                vec![picker.pick(&mut r)]
            };
            for (s, d) in pairs {
                sum += *cache
                    .entry((s, d))
                    .or_insert_with(|| crossings(self.net, self.routes, marked, s, d));
            }
        }
        sum / samples as f64
    }

    /// Refuses a block expected to bring more flows than fit in the memory limit.
    fn check_budget(&self, arrivals: Arrivals, fan_in: usize, budget: u64) -> Result<()> {
        let window = (self.stop.saturating_sub(self.spec.start)).as_secs_f64();
        let (per_s, key) = match arrivals {
            Arrivals::Poisson { per_s } => {
                (per_s, if self.spec.rate.is_some() { "rate" } else { "load" })
            }
            Arrivals::Periodic { interval } => {
                (1.0 / interval.as_secs_f64().max(1e-12), "interval")
            }
        };
        let expected = per_s * window * fan_in as f64;
        if expected > budget as f64 {
            return Err(config_err(
                self.at(key),
                format!("the block would generate about {expected:.3e} flows, more than the {budget} that fit in the memory limit (half of this machine's memory unless --max-memory says otherwise); lower the load or rate, or shorten the run"),
            ));
        }
        Ok(())
    }

    /// The arrival times, and a pair (or an incast's senders) and a size for each.
    fn draw(
        &mut self,
        arrivals: Arrivals,
        picker: &PairPicker,
        sizes: &super::dist::SizeDist,
        fan_in: usize,
    ) -> Result<Vec<FlowDef>> {
        let limit = self.spec.max_flows as usize;
        let times = arrivals
            .times(self.spec.start, self.stop, limit / fan_in.max(1) + 1, &mut self.rng(ARRIVALS))
            .ok_or_else(|| self.too_many())?;
        let mut pair_rng = self.rng(PAIRS);
        let mut size_rng = self.rng(SIZES);
        let mut out = Vec::with_capacity(times.len() * fan_in);
        let mut senders = Vec::with_capacity(fan_in);
        for t in times {
            if self.spec.pattern == TrafficPattern::Incast {
                let d = picker.incast_senders(fan_in, &mut pair_rng, &mut senders);
                for &s in &senders {
                    let size = sizes.sample(&mut size_rng);
                    out.push(self.flow(s, d, size, t));
                }
            } else {
                let (s, d) = picker.pick(&mut pair_rng);
                let size = sizes.sample(&mut size_rng);
                out.push(self.flow(s, d, size, t));
            }
            if out.len() > limit {
                return Err(self.too_many());
            }
        }
        Ok(out)
    }
}

/// The flows of every `[[traffic]]` block, merged in start order (ties: block order, then
/// generation order). At most `budget` flows in all fit in the run's memory limit: a block
/// expected to exceed what is left is refused before it generates anything.
pub fn generate(
    blocks: &[TrafficSpec],
    seed: u64,
    duration: Time,
    net: &Network,
    routes: &RouteTable,
    base: Option<&Path>,
    budget: u64,
) -> Result<Vec<FlowDef>> {
    let mut all = Vec::new();
    for (i, spec) in blocks.iter().enumerate() {
        if let Some(j) = (0..i).find(|&j| stream_of(&blocks[j], j) == stream_of(spec, i)) {
            return Err(config_err(
                format!("traffic[{i}].stream"),
                format!(
                    "block {j} already draws from stream {} (a block's default is its position); give each block its own",
                    stream_of(spec, i)
                ),
            ));
        }
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
