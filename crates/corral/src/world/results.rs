//! The run's output tables (the columns documented in the README) and the summary.

use super::Simulation;
use crate::metrics::fairness::jain_index;
use crate::metrics::outcome::{self, FlowResult, Mode, PacketCounters, PacketTotals, RunSummary};
use crate::metrics::{Column, Table};
use crate::units::Time;

fn secs(t: Time) -> f64 {
    t.as_secs_f64()
}

impl Simulation {
    fn port_name(&self, p: crate::ids::PortId) -> (String, i64) {
        let port = &self.net.ports[p.idx()];
        (self.net.nodes[port.node.idx()].name.clone(), port.local as i64)
    }

    fn host_name(&self, h: u32) -> String {
        self.net.nodes[self.net.hosts[h as usize].idx()].name.clone()
    }

    /// Each flow's outcome ([`FlowResult`]), in flow order.
    fn flow_results(&self) -> Vec<FlowResult<'_>> {
        self.flows
            .iter()
            .zip(&self.hot)
            .map(|(f, h)| {
                let st = &f.sender.stats;
                FlowResult {
                    def: &f.def,
                    transport: if h.managed { &self.scheme_name } else { "tcp" },
                    cc: f.cc_name,
                    routing: h.routing.name(),
                    hops: f.hops,
                    finish: f.finish,
                    delivered: f.receiver.delivered(),
                    ideal: f.ideal,
                    counters: Some(PacketCounters {
                        packets_sent: st.segments_sent,
                        retransmits: st.retransmits,
                        timeouts: st.timeouts,
                        fast_recoveries: st.fast_recoveries,
                        ecn_cuts: st.ecn_cuts,
                        max_reorder_bytes: f.receiver.max_reorder_bytes(),
                    }),
                }
            })
            .collect()
    }

    /// Goodput of each flow over its lifetime in the run: from its start to its finish or the
    /// end of the run.
    pub fn flow_goodputs(&self) -> Vec<f64> {
        self.flow_results().iter().map(|f| f.goodput(self.reached())).collect()
    }

    pub fn flows_table(&self) -> Table {
        let hosts: Vec<String> =
            (0..self.net.hosts.len() as u32).map(|h| self.host_name(h)).collect();
        outcome::flows_table(&self.flow_results(), &hosts, self.reached())
    }

    pub fn throughput_class_table(&self) -> Table {
        let s = &self.metrics.classes;
        let name = |c: u32| {
            if c == crate::metrics::classes::ALL {
                "*".to_string()
            } else {
                self.classes[c as usize].clone()
            }
        };
        Table::default()
            .with("time_s", Column::Float(s.time.iter().map(|&t| secs(t)).collect()))
            .with("class", Column::Str(s.class.iter().map(|&c| name(c)).collect()))
            .with("bytes", Column::Int(s.bytes.iter().map(|&b| b as i64).collect()))
            .with("goodput_bps", Column::goodput_bps(&s.bytes, &s.width))
            .with("active_flows", Column::Int(s.active_flows.iter().map(|&a| a as i64).collect()))
            .with("jain", Column::OptFloat(s.jain.clone()))
            .check("throughput_class")
    }

    /// Sampled one-way delays of data packets.
    pub fn latency_table(&self) -> Table {
        let l = &self.metrics.latency;
        Table::default()
            .with("time_s", Column::Float(l.time.iter().map(|&t| secs(t)).collect()))
            .with("flow_id", Column::Int(l.flow.iter().map(|f| f.0 as i64).collect()))
            .with(
                "class",
                Column::Str(l.flow.iter().map(|f| self.flows[f.idx()].def.class.clone()).collect()),
            )
            .with("latency_s", Column::Float(l.delay.iter().map(|&d| secs(d)).collect()))
            .check("latency")
    }

    /// Jain's index of the `[[flows]]` flows' goodputs in each sampling interval.
    fn jain_windows(&self) -> serde_json::Value {
        let s = &self.metrics.throughput;
        let mut values = Vec::new();
        let mut i = 0;
        while i < s.time.len() {
            let j = i + s.time[i..].iter().take_while(|&&t| t == s.time[i]).count();
            let xs: Vec<f64> = s.bytes[i..j].iter().map(|&b| b as f64).collect();
            if xs.len() >= 2 {
                values.push(jain_index(&xs));
            }
            i = j;
        }
        if values.is_empty() {
            return serde_json::Value::Null;
        }
        serde_json::json!({
            "windows": values.len(),
            "mean": values.iter().sum::<f64>() / values.len() as f64,
            "min": values.iter().copied().fold(f64::INFINITY, f64::min),
        })
    }

    pub fn throughput_table(&self) -> Table {
        let s = &self.metrics.throughput;
        Table::default()
            .with("time_s", Column::Float(s.time.iter().map(|&t| secs(t)).collect()))
            .with("flow_id", Column::Int(s.flow.iter().map(|&f| f as i64).collect()))
            .with("bytes", Column::Int(s.bytes.iter().map(|&b| b as i64).collect()))
            .with("goodput_bps", Column::goodput_bps(&s.bytes, &s.width))
            .with("arrived_bytes", Column::Int(s.arrived.iter().map(|&b| b as i64).collect()))
            .check("throughput")
    }

    pub fn queues_table(&self) -> Table {
        let q = &self.metrics.queues;
        let names: Vec<(String, i64)> = q.port.iter().map(|&p| self.port_name(p)).collect();
        Table::default()
            .with("time_s", Column::Float(q.time.iter().map(|&t| secs(t)).collect()))
            .with("node", Column::Str(names.iter().map(|n| n.0.clone()).collect()))
            .with("port", Column::Int(names.iter().map(|n| n.1).collect()))
            .with("bytes", Column::Int(q.bytes.iter().map(|&b| b as i64).collect()))
            .with("packets", Column::Int(q.packets.iter().map(|&b| b as i64).collect()))
            .with("tx_bytes", Column::Int(q.tx_bytes.iter().map(|&b| b as i64).collect()))
            .check("queues")
    }

    /// Name of the node on the other side of input slot `slot` of `node`'s ports, or the node
    /// itself for its own traffic.
    fn input_peer(&self, node: crate::ids::NodeId, slot: Option<u16>) -> String {
        match slot.and_then(|s| self.net.port(node, s as usize)) {
            Some(p) => self.net.nodes[self.net.ports[p.idx()].peer.idx()].name.clone(),
            None => self.net.nodes[node.idx()].name.clone(),
        }
    }

    pub fn drops_table(&self) -> Table {
        let d = &self.metrics.drops;
        let names: Vec<(String, i64)> = d.port.iter().map(|&p| self.port_name(p)).collect();
        let in_nodes = d
            .port
            .iter()
            .zip(&d.in_port)
            .map(|(&p, &s)| self.input_peer(self.net.ports[p.idx()].node, s))
            .collect();
        Table::default()
            .with("time_s", Column::Float(d.time.iter().map(|&t| secs(t)).collect()))
            .with("node", Column::Str(names.iter().map(|n| n.0.clone()).collect()))
            .with("port", Column::Int(names.iter().map(|n| n.1).collect()))
            .with("in_node", Column::Str(in_nodes))
            .with(
                "in_port",
                Column::Int(d.in_port.iter().map(|s| s.map_or(-1, |v| v as i64)).collect()),
            )
            .with("flow_id", Column::Int(d.flow.iter().map(|f| f.0 as i64).collect()))
            .with(
                "seq",
                Column::OptInt(
                    d.seq.iter().map(|&s| (s != u64::MAX).then_some(s as i64)).collect(),
                ),
            )
            .check("drops")
    }

    pub fn drop_runs_table(&self) -> Table {
        let (mut node, mut port, mut in_port, mut in_node, mut len, mut episodes) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        for (pi, p) in self.net.ports.iter().enumerate() {
            for (&(slot, run), &count) in &p.run_histogram {
                let slot = (slot != p.local_slot()).then_some(slot);
                let (n, l) = self.port_name(crate::ids::PortId(pi as u32));
                node.push(n);
                port.push(l);
                in_port.push(slot.map_or(-1, |s| s as i64));
                in_node.push(self.input_peer(p.node, slot));
                len.push(run as i64);
                episodes.push(count as i64);
            }
        }
        Table::default()
            .with("node", Column::Str(node))
            .with("port", Column::Int(port))
            .with("in_port", Column::Int(in_port))
            .with("in_node", Column::Str(in_node))
            .with("run_length", Column::Int(len))
            .with("episodes", Column::Int(episodes))
            .check("drop_runs")
    }

    pub fn ports_table(&self) -> Table {
        let ps = &self.net.ports;
        let dur = secs(self.reached()).max(1e-12);
        Table::default()
            .with(
                "node",
                Column::Str(ps.iter().map(|p| self.net.nodes[p.node.idx()].name.clone()).collect()),
            )
            .with("port", Column::Int(ps.iter().map(|p| p.local as i64).collect()))
            .with(
                "peer",
                Column::Str(ps.iter().map(|p| self.net.nodes[p.peer.idx()].name.clone()).collect()),
            )
            .with("rate_bps", Column::Int(ps.iter().map(|p| p.rate().bps() as i64).collect()))
            .with("tx_packets", Column::Int(ps.iter().map(|p| p.stats.tx_packets as i64).collect()))
            .with("tx_bytes", Column::Int(ps.iter().map(|p| p.stats.tx_bytes as i64).collect()))
            .with("drops", Column::Int(ps.iter().map(|p| p.stats.drops as i64).collect()))
            .with("ecn_marks", Column::Int(ps.iter().map(|p| p.stats.ecn_marks as i64).collect()))
            .with(
                "max_queue_bytes",
                Column::Int(ps.iter().map(|p| p.stats.max_queue_bytes as i64).collect()),
            )
            .with(
                "utilization",
                Column::Float(
                    ps.iter()
                        .map(|p| p.stats.tx_bytes as f64 * 8.0 / (p.rate().bps() as f64 * dur))
                        .collect(),
                ),
            )
            .check("ports")
    }

    /// Control packets and bytes per link and message type; out-of-band deliveries in rows
    /// with no link (node "", port -1).
    pub fn control_table(&self) -> Table {
        let c = &self.ctrl;
        let mut rows: Vec<(u32, u16, u64, u64)> =
            c.per_link.iter().map(|(&(p, k), &(n, b))| (p, k, n, b)).collect();
        rows.sort_unstable();
        let (mut node, mut port, mut peer, mut kind, mut packets, mut bytes) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        for (p, k, n, b) in rows {
            let (nm, l) = self.port_name(crate::ids::PortId(p));
            node.push(nm);
            port.push(l);
            peer.push(self.net.nodes[self.net.ports[p as usize].peer.idx()].name.clone());
            kind.push(c.kinds[k as usize].to_string());
            packets.push(n as i64);
            bytes.push(b as i64);
        }
        if c.cfg.mode == crate::ctrl::ControlMode::OutOfBand {
            for (k, t) in c.kinds.iter().zip(&c.totals) {
                node.push(String::new());
                port.push(-1);
                peer.push(String::new());
                kind.push(k.to_string());
                packets.push(t.packets as i64);
                bytes.push(t.bytes as i64);
            }
        }
        Table::default()
            .with("node", Column::Str(node))
            .with("port", Column::Int(port))
            .with("peer", Column::Str(peer))
            .with("kind", Column::Str(kind))
            .with("packets", Column::Int(packets))
            .with("bytes", Column::Int(bytes))
            .check("control")
    }

    /// Control-plane totals for summary.json: per message type, the bytes on links, their
    /// share of all link capacity over the run, and their ratio to the data bytes links
    /// carried (byte-hops).
    fn control_summary(&self) -> serde_json::Value {
        let c = &self.ctrl;
        if c.kinds.is_empty() {
            return serde_json::Value::Null;
        }
        let per_kind: serde_json::Map<String, serde_json::Value> = c
            .kinds
            .iter()
            .zip(&c.totals)
            .map(|(k, t)| (k.to_string(), serde_json::json!({"sent": t.sent, "delivered": t.delivered, "dropped": t.dropped, "packets": t.packets, "bytes": t.bytes, "offered_bytes": t.offered})))
            .collect();
        let link_bytes: u64 = c.per_link.values().map(|v| v.1).sum();
        let offered: u64 = c.totals.iter().map(|t| t.offered).sum();
        let all_tx: u64 = self.net.ports.iter().map(|p| p.stats.tx_bytes).sum();
        let capacity_bits: f64 = self.net.ports.iter().map(|p| p.rate().bps() as f64).sum::<f64>()
            * secs(self.reached()).max(1e-12);
        let data_bytes = all_tx.saturating_sub(link_bytes);
        serde_json::json!({
            "mode": match c.cfg.mode { crate::ctrl::ControlMode::Inband => "inband", crate::ctrl::ControlMode::OutOfBand => "out_of_band" },
            "kinds": per_kind,
            "link_bytes": link_bytes,
            "offered_link_bytes": offered,
            "capacity_fraction": link_bytes as f64 * 8.0 / capacity_bits,
            "data_byte_ratio": if data_bytes > 0 { link_bytes as f64 / data_bytes as f64 } else { 0.0 },
        })
    }

    /// summary.json as JSON ([`Self::run_summary`] serialized).
    pub fn summary(&self) -> serde_json::Value {
        self.run_summary().to_json()
    }

    /// summary.json (see [`RunSummary`]).
    pub fn run_summary(&self) -> RunSummary {
        let c = &self.counts;
        let flows = self.flow_results();
        let bounds: Vec<u64> = self.scenario.metrics.size_buckets.iter().map(|b| b.0).collect();
        let links_change = self.scenario.events.iter().any(|e| e.state.is_some());
        let r = &self.rpc;
        RunSummary {
            scenario: self.scenario.name.clone(),
            seed: self.scenario.seed,
            corral_version: crate::VERSION,
            mode: Mode::Packet,
            sim_time_s: secs(self.reached()),
            events: self.events_processed(),
            flows: flows.len(),
            totals: PacketTotals {
                packets_sent: c.sent,
                packets_delivered: c.delivered,
                data_packets_delivered: c.data_delivered,
                packets_dropped: c.dropped,
                packets_in_flight: self.packets_in_flight(),
                bytes_sent: c.sent_bytes,
                bytes_delivered: c.delivered_bytes,
                bytes_dropped: c.dropped_bytes,
            },
            jain_index: outcome::jain(&flows, self.reached()),
            jain_index_windows: Some(self.jain_windows()),
            fct: outcome::fct_sections(&flows, &bounds, self.reached()),
            scheme: Some(if self.scheme_name.is_empty() {
                serde_json::Value::Null
            } else {
                serde_json::json!({
                    "kind": self.scheme_name,
                    "counters": self.scheme_counters,
                    "state": self.scheme.as_ref().map_or(serde_json::Value::Null, |s| s.summary()),
                })
            }),
            scheme_ignored: None,
            control: Some(self.control_summary()),
            packets_lost_link_down: links_change.then_some(c.lost_link_down),
            packets_lost_no_route: links_change.then_some(c.lost_no_route),
            rpc: (r.sessions() > 0).then(|| {
                serde_json::json!({ "sessions": r.sessions(), "requests": r.requests, "responses": r.responses, "refused_at_max_flows": r.refused })
            }),
        }
    }

    /// The run's wall-clock measurements that are not the run's outcome (a scheme's compute
    /// time): timing.json, beside the caller's wall time.
    pub fn timing(&self) -> serde_json::Value {
        serde_json::json!({ "scheme": self.scheme.as_ref().map_or(serde_json::Value::Null, |s| s.timing()) })
    }
}
