//! One outcome model for both engines. At the end of a run the packet and fluid engines
//! each describe every flow as a [`FlowResult`] and the run as a [`RunSummary`]; one function
//! here builds the flows table from the former (its derived columns included: FCT, goodput,
//! slowdown, deadline met), and `summary.json` is the serialization of the latter, whose
//! fields [`SUMMARY_FIELDS`] lists for the Python layer and the docs. Wall-clock figures
//! (the run's wall time, a scheme's compute time) are not in it: a run's summary depends on
//! its scenario and seed only.

use super::fairness::jain_index;
use super::fct::{self, deadline_met, FlowRecord};
use super::{Column, Table};
use crate::units::Time;
use crate::workload::flow::FlowDef;
use serde::Serialize;

/// Counters only the packet engine keeps, per flow (none in fluid mode).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketCounters {
    pub packets_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_cuts: u64,
    pub max_reorder_bytes: u64,
}

/// What a run knows about one flow when it ends.
pub struct FlowResult<'a> {
    pub def: &'a FlowDef,
    /// `tcp`, the scheme's name for a flow it manages, or `fluid`.
    pub transport: &'a str,
    /// The congestion controller's name, or `fluid`.
    pub cc: &'a str,
    pub routing: &'static str,
    pub hops: u32,
    pub finish: Option<Time>,
    /// In-order bytes the receiver holds.
    pub delivered: u64,
    pub ideal: Option<Time>,
    /// `None` in fluid mode: the table's packet columns are then 0.
    pub counters: Option<PacketCounters>,
}

impl FlowResult<'_> {
    /// Goodput over the flow's lifetime in the run, from its start to its finish or `end`.
    pub fn goodput(&self, end: Time) -> f64 {
        let span = self.finish.unwrap_or(end).saturating_sub(self.def.start);
        if span == Time::ZERO {
            0.0
        } else {
            self.delivered as f64 * 8.0 / span.as_secs_f64()
        }
    }

    fn fct(&self) -> Option<Time> {
        self.finish.map(|t| t - self.def.start)
    }

    fn slowdown(&self) -> Option<f64> {
        let (fct, ideal) = (self.fct()?, self.ideal?);
        (ideal > Time::ZERO).then(|| fct.0 as f64 / ideal.0 as f64)
    }

    fn record(&self) -> FlowRecord<'_> {
        let d = self.def;
        FlowRecord {
            size: d.size,
            class: &d.class,
            start: d.start,
            finish: self.finish,
            ideal: self.ideal,
            deadline: d.deadline,
        }
    }
}

/// The flows table (flows.parquet) of a run that reached `end`; `hosts` names the hosts by
/// index.
pub fn flows_table<'a>(flows: &[FlowResult<'a>], hosts: &[String], end: Time) -> Table {
    let n = flows.len();
    let secs = |t: Time| t.as_secs_f64();
    let counter = |get: fn(&PacketCounters) -> u64| {
        Column::Int(flows.iter().map(|f| f.counters.as_ref().map_or(0, get) as i64).collect())
    };
    let text = |get: for<'r> fn(&'r FlowResult<'a>) -> &'r str| Column::cat(flows.iter().map(get));
    Table::default()
        .with("flow_id", Column::Int((0..n as i64).collect()))
        .with("src", Column::Cat(hosts.to_vec(), flows.iter().map(|f| f.def.src).collect()))
        .with("dst", Column::Cat(hosts.to_vec(), flows.iter().map(|f| f.def.dst).collect()))
        .with("tag", text(|f| &f.def.tag))
        .with("priority", Column::Int(flows.iter().map(|f| f.def.priority as i64).collect()))
        .with("weight", Column::Float(flows.iter().map(|f| f.def.weight).collect()))
        .with("transport", text(|f| f.transport))
        .with("cc", text(|f| f.cc))
        .with("routing", text(|f| f.routing))
        .with("hops", Column::Int(flows.iter().map(|f| f.hops as i64).collect()))
        .with(
            "size_bytes",
            Column::OptInt(flows.iter().map(|f| f.def.size.map(|s| s as i64)).collect()),
        )
        .with("start_s", Column::Float(flows.iter().map(|f| secs(f.def.start)).collect()))
        .with("finish_s", Column::OptFloat(flows.iter().map(|f| f.finish.map(secs)).collect()))
        .with("fct_s", Column::OptFloat(flows.iter().map(|f| f.fct().map(secs)).collect()))
        .with("bytes_delivered", Column::Int(flows.iter().map(|f| f.delivered as i64).collect()))
        .with("goodput_bps", Column::Float(flows.iter().map(|f| f.goodput(end)).collect()))
        .with("packets_sent", counter(|c| c.packets_sent))
        .with("retransmits", counter(|c| c.retransmits))
        .with("timeouts", counter(|c| c.timeouts))
        .with("fast_recoveries", counter(|c| c.fast_recoveries))
        .with("ecn_cuts", counter(|c| c.ecn_cuts))
        .with("max_reorder_bytes", counter(|c| c.max_reorder_bytes))
        .with("tenant", text(|f| &f.def.tenant))
        .with("class", text(|f| &f.def.class))
        .with("ideal_fct_s", Column::OptFloat(flows.iter().map(|f| f.ideal.map(secs)).collect()))
        .with("slowdown", Column::OptFloat(flows.iter().map(FlowResult::slowdown).collect()))
        .with(
            "deadline_s",
            Column::OptFloat(flows.iter().map(|f| f.def.deadline.map(secs)).collect()),
        )
        .with(
            "deadline_met",
            Column::OptBool(
                flows.iter().map(|f| deadline_met(f.def.deadline, f.finish, end)).collect(),
            ),
        )
        .check("flows")
}

/// Jain's index of the flows' goodputs over their lifetimes.
pub fn jain(flows: &[FlowResult], end: Time) -> f64 {
    jain_index(&flows.iter().map(|f| f.goodput(end)).collect::<Vec<_>>())
}

/// The FCT sections of the summary (`flows_finished`, `fct_by_size`, `fct_by_class`,
/// `deadline_miss_ratio`), sizes bucketed at `bounds`.
pub fn fct_sections(flows: &[FlowResult], bounds: &[u64], end: Time) -> serde_json::Value {
    let records: Vec<FlowRecord> = flows.iter().map(FlowResult::record).collect();
    fct::summary(&records, bounds, end)
}

/// Which engine ran.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Packet,
    Fluid,
}

/// The packet engine's packet and byte counts (conservation: sent = delivered + dropped + in
/// flight).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct PacketTotals {
    pub packets_sent: u64,
    pub packets_delivered: u64,
    pub data_packets_delivered: u64,
    pub packets_dropped: u64,
    pub packets_in_flight: u64,
    pub bytes_sent: u64,
    pub bytes_delivered: u64,
    pub bytes_dropped: u64,
}

/// `summary.json`: the headline numbers of one run.
#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    pub scenario: String,
    pub seed: u64,
    pub corral_version: &'static str,
    pub mode: Mode,
    /// Simulated time the run reached, in seconds.
    pub sim_time_s: f64,
    pub events: u64,
    pub flows: usize,
    /// Packet and byte counts; in fluid mode no packets (0) and the bytes delivered only.
    #[serde(flatten)]
    pub totals: PacketTotals,
    pub jain_index: f64,
    /// Jain's index per goodput sampling interval of the `[[flows]]` flows (packet mode).
    pub jain_index_windows: Option<serde_json::Value>,
    /// `flows_finished`, `fct_by_size`, `fct_by_class`, `deadline_miss_ratio`.
    #[serde(flatten)]
    pub fct: serde_json::Value,
    /// The scheme's kind, counters and state (packet mode, with a scheme).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheme: Option<serde_json::Value>,
    /// A scheme the fluid engine does not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheme_ignored: Option<String>,
    /// Control-plane totals (packet mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control: Option<serde_json::Value>,
    /// Packets lost to links down and to missing routes (scenarios with link events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packets_lost_link_down: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packets_lost_no_route: Option<u64>,
    /// `[[rpc]]` sessions, requests, responses and refusals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rpc: Option<serde_json::Value>,
}

impl RunSummary {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a summary serializes")
    }
}

/// The summary's top-level fields: name, JSON type, and when present. `corral._core.schemas()`
/// exports it beside the tables' columns; a test holds it to what both engines write.
pub const SUMMARY_FIELDS: &[(&str, &str, &str)] = &[
    ("scenario", "str", "always"),
    ("seed", "int", "always"),
    ("corral_version", "str", "always"),
    ("mode", "str", "always: packet or fluid (emulate for corral emulate)"),
    ("sim_time_s", "float", "always"),
    ("events", "int", "always"),
    ("flows", "int", "always"),
    ("packets_sent", "int", "always (0 in fluid mode)"),
    ("packets_delivered", "int", "always (0 in fluid mode)"),
    ("data_packets_delivered", "int", "always (0 in fluid mode)"),
    ("packets_dropped", "int", "always (0 in fluid mode)"),
    ("packets_in_flight", "int", "always (0 in fluid mode)"),
    ("bytes_sent", "int", "always (fluid: the bytes delivered)"),
    ("bytes_delivered", "int", "always"),
    ("bytes_dropped", "int", "always (0 in fluid mode)"),
    ("jain_index", "float", "always"),
    ("jain_index_windows", "object", "always (null in fluid mode or without two [[flows]] flows)"),
    ("flows_finished", "int", "always"),
    ("fct_by_size", "list", "always"),
    ("fct_by_class", "object", "always"),
    ("deadline_miss_ratio", "float", "always (null without deadlines)"),
    ("scheme", "object", "packet mode with a [scheme]"),
    ("scheme_ignored", "str", "fluid mode with a [scheme]"),
    ("control", "object", "packet mode"),
    ("packets_lost_link_down", "int", "packet mode with [[events]]"),
    ("packets_lost_no_route", "int", "packet mode with [[events]]"),
    ("rpc", "object", "packet mode with [[rpc]]"),
    // What only a `corral emulate` folder's summary has (filled by its Python layer).
    ("kernel", "str", "corral emulate"),
    ("scale", "float", "corral emulate"),
    ("ecn_marks", "int", "corral emulate"),
    ("kernel_counters", "object", "corral emulate"),
    ("port_queues", "list", "corral emulate"),
    ("notes", "str", "corral emulate"),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn def(start_us: u64, size: u64) -> FlowDef {
        FlowDef {
            src: 0,
            dst: 0,
            size: Some(size),
            start: Time::from_us(start_us),
            tag: String::new(),
            priority: 0,
            weight: 1.0,
            tenant: String::new(),
            class: String::new(),
            deadline: None,
            block: None,
            routing: None,
            transport: Default::default(),
        }
    }

    #[test]
    fn derived_columns_come_from_the_outcome() {
        let (a, b) = (def(0, 1000), def(10, 1000));
        let flows = [
            FlowResult {
                def: &a,
                transport: "tcp",
                cc: "newreno",
                routing: "ecmp",
                hops: 2,
                finish: Some(Time::from_us(8)),
                delivered: 1000,
                ideal: Some(Time::from_us(4)),
                counters: None,
            },
            FlowResult {
                def: &b,
                transport: "tcp",
                cc: "newreno",
                routing: "ecmp",
                hops: 2,
                finish: None,
                delivered: 500,
                ideal: None,
                counters: None,
            },
        ];
        let t = flows_table(&flows, &["h0".into()], Time::from_us(20));
        assert_eq!(t.column("slowdown"), Some(&Column::OptFloat(vec![Some(2.0), None])));
        assert_eq!(t.column("fct_s"), Some(&Column::OptFloat(vec![Some(8e-6), None])));
        // 1000 B in 8 us, and 500 B in the 10 us from its start to the end of the run.
        let Some(Column::Float(g)) = t.column("goodput_bps") else { panic!("goodput_bps") };
        assert!((g[0] - 1e9).abs() < 1.0 && (g[1] - 4e8).abs() < 1.0, "{g:?}");
        assert_eq!(t.column("retransmits"), Some(&Column::Int(vec![0, 0])));
    }

    #[test]
    fn the_summary_fields_list_every_key_a_summary_can_have() {
        let s = RunSummary {
            scenario: "s".into(),
            seed: 1,
            corral_version: crate::VERSION,
            mode: Mode::Packet,
            sim_time_s: 1.0,
            events: 1,
            flows: 0,
            totals: PacketTotals::default(),
            jain_index: 1.0,
            jain_index_windows: None,
            fct: fct_sections(&[], &[], Time::ZERO),
            scheme: Some(serde_json::json!({})),
            scheme_ignored: Some("x".into()),
            control: Some(serde_json::json!({})),
            packets_lost_link_down: Some(0),
            packets_lost_no_route: Some(0),
            rpc: Some(serde_json::json!({})),
        };
        let keys: Vec<String> = s.to_json().as_object().unwrap().keys().cloned().collect();
        let mut listed: Vec<String> = SUMMARY_FIELDS
            .iter()
            .filter(|f| f.2 != "corral emulate")
            .map(|f| f.0.to_string())
            .collect();
        listed.sort();
        let mut keys = keys;
        keys.sort();
        assert_eq!(keys, listed);
    }
}
