//! The run's output tables (the columns documented in the README) and the summary.

use super::Simulation;
use crate::metrics::fairness::jain_index;
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

    /// Goodput of each flow over its lifetime in the run: from its start to its finish or the
    /// end of the run.
    pub fn flow_goodputs(&self) -> Vec<f64> {
        let end = self.reached();
        self.flows
            .iter()
            .map(|f| {
                let until = f.finish.unwrap_or(end);
                let span = until.saturating_sub(f.def.start);
                if span == Time::ZERO {
                    0.0
                } else {
                    f.receiver.delivered() as f64 * 8.0 / secs(span)
                }
            })
            .collect()
    }

    pub fn flows_table(&self) -> Table {
        let f = &self.flows;
        let goodput = self.flow_goodputs();
        Table::default()
            .with("flow_id", Column::Int((0..f.len() as i64).collect()))
            .with("src", Column::Str(f.iter().map(|x| self.host_name(x.def.src)).collect()))
            .with("dst", Column::Str(f.iter().map(|x| self.host_name(x.def.dst)).collect()))
            .with("tag", Column::Str(f.iter().map(|x| x.def.tag.clone()).collect()))
            .with("priority", Column::Int(f.iter().map(|x| x.def.priority as i64).collect()))
            .with("weight", Column::Float(f.iter().map(|x| x.def.weight).collect()))
            .with("cc", Column::Str(f.iter().map(|_| self.scenario.transport.cc.name().to_string()).collect()))
            .with("hops", Column::Int(f.iter().map(|x| x.hops as i64).collect()))
            .with("size_bytes", Column::OptInt(f.iter().map(|x| x.def.size.map(|s| s as i64)).collect()))
            .with("start_s", Column::Float(f.iter().map(|x| secs(x.def.start)).collect()))
            .with("finish_s", Column::OptFloat(f.iter().map(|x| x.finish.map(secs)).collect()))
            .with("fct_s", Column::OptFloat(f.iter().map(|x| x.finish.map(|t| secs(t - x.def.start))).collect()))
            .with("bytes_delivered", Column::Int(f.iter().map(|x| x.receiver.delivered() as i64).collect()))
            .with("goodput_bps", Column::Float(goodput))
            .with("packets_sent", Column::Int(f.iter().map(|x| x.sender.stats.segments_sent as i64).collect()))
            .with("retransmits", Column::Int(f.iter().map(|x| x.sender.stats.retransmits as i64).collect()))
            .with("timeouts", Column::Int(f.iter().map(|x| x.sender.stats.timeouts as i64).collect()))
            .with("fast_recoveries", Column::Int(f.iter().map(|x| x.sender.stats.fast_recoveries as i64).collect()))
            .with("ecn_cuts", Column::Int(f.iter().map(|x| x.sender.stats.ecn_cuts as i64).collect()))
    }

    pub fn throughput_table(&self) -> Table {
        let s = &self.metrics.throughput;
        Table::default()
            .with("time_s", Column::Float(s.time.iter().map(|&t| secs(t)).collect()))
            .with("flow_id", Column::Int(s.flow.iter().map(|&f| f as i64).collect()))
            .with("bytes", Column::Int(s.bytes.iter().map(|&b| b as i64).collect()))
            .with("goodput_bps", Column::Float(s.bytes.iter().zip(&s.width).map(|(&b, &w)| b as f64 * 8.0 / secs(w).max(1e-12)).collect()))
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
        let in_nodes = d.port.iter().zip(&d.in_port).map(|(&p, &s)| self.input_peer(self.net.ports[p.idx()].node, s)).collect();
        Table::default()
            .with("time_s", Column::Float(d.time.iter().map(|&t| secs(t)).collect()))
            .with("node", Column::Str(names.iter().map(|n| n.0.clone()).collect()))
            .with("port", Column::Int(names.iter().map(|n| n.1).collect()))
            .with("in_node", Column::Str(in_nodes))
            .with("in_port", Column::Int(d.in_port.iter().map(|s| s.map_or(-1, |v| v as i64)).collect()))
            .with("flow_id", Column::Int(d.flow.iter().map(|f| f.0 as i64).collect()))
            .with("seq", Column::OptInt(d.seq.iter().map(|&s| (s != u64::MAX).then_some(s as i64)).collect()))
    }

    pub fn drop_runs_table(&self) -> Table {
        let (mut node, mut port, mut in_port, mut in_node, mut len, mut episodes) = (vec![], vec![], vec![], vec![], vec![], vec![]);
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
    }

    pub fn ports_table(&self) -> Table {
        let ps = &self.net.ports;
        let dur = secs(self.reached()).max(1e-12);
        Table::default()
            .with("node", Column::Str(ps.iter().map(|p| self.net.nodes[p.node.idx()].name.clone()).collect()))
            .with("port", Column::Int(ps.iter().map(|p| p.local as i64).collect()))
            .with("peer", Column::Str(ps.iter().map(|p| self.net.nodes[p.peer.idx()].name.clone()).collect()))
            .with("rate_bps", Column::Int(ps.iter().map(|p| p.rate.bps() as i64).collect()))
            .with("tx_packets", Column::Int(ps.iter().map(|p| p.stats.tx_packets as i64).collect()))
            .with("tx_bytes", Column::Int(ps.iter().map(|p| p.stats.tx_bytes as i64).collect()))
            .with("drops", Column::Int(ps.iter().map(|p| p.stats.drops as i64).collect()))
            .with("ecn_marks", Column::Int(ps.iter().map(|p| p.stats.ecn_marks as i64).collect()))
            .with("max_queue_bytes", Column::Int(ps.iter().map(|p| p.stats.max_queue_bytes as i64).collect()))
            .with("utilization", Column::Float(ps.iter().map(|p| p.stats.tx_bytes as f64 * 8.0 / (p.rate.bps() as f64 * dur)).collect()))
    }

    /// Headline numbers for summary.json (the Python layer adds wall time).
    pub fn summary(&self) -> serde_json::Value {
        let c = &self.counts;
        serde_json::json!({
            "scenario": self.scenario.name,
            "seed": self.scenario.seed,
            "corral_version": crate::VERSION,
            "sim_time_s": secs(self.reached()),
            "events": self.events_processed(),
            "flows": self.flows.len(),
            "packets_sent": c.sent,
            "packets_delivered": c.delivered,
            "data_packets_delivered": c.data_delivered,
            "packets_dropped": c.dropped,
            "packets_in_flight": self.packets_in_flight(),
            "bytes_sent": c.sent_bytes,
            "bytes_delivered": c.delivered_bytes,
            "bytes_dropped": c.dropped_bytes,
            "jain_index": jain_index(&self.flow_goodputs()),
        })
    }
}
