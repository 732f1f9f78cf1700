//! Flow-completion metrics: the ideal completion time of a flow on an empty network, the
//! slowdown (FCT / ideal, as in pFabric and HPCC), percentiles, FCT and slowdown summaries by
//! flow-size bucket, and the deadline miss ratio (D3, D2TCP).
//!
//! Ideal FCT: the flow's packets (payload plus headers) serialized back to back at the
//! sender's access-link rate, plus the time the last packet takes from leaving the sender's
//! NIC to reaching the receiver on the unloaded path (propagation and store-and-forward at
//! every later hop). corral measures FCT when the receiver holds the last byte, so this is
//! the exact minimum on a path whose links are at least as fast as the access link.

use crate::net::Network;
use crate::route::RouteTable;
use crate::units::Time;

/// Ideal completion time of a `size`-byte flow from host `src` to host `dst`, on the path
/// the router takes (`via_top`: equal-length routing climbs to the top tier first).
#[allow(clippy::too_many_arguments)]
pub fn ideal_fct(
    net: &Network,
    routes: &RouteTable,
    via_top: bool,
    src: u32,
    dst: u32,
    size: u64,
    mss: u64,
    header: u64,
) -> Time {
    let packets = size.div_ceil(mss).max(1);
    let last = size - (packets - 1) * mss + header;
    let wire = size + packets * header;
    let access = net.ports[net.host_port(src).idx()].rate();
    let path =
        routes.path(net, net.hosts[src as usize], dst, last, via_top).map_or(Time::ZERO, |p| p.1);
    access.tx_time(wire) + path - access.tx_time(last)
}

/// Linear-interpolation percentile (q in [0, 1]) of sorted values (NumPy's default).
pub fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64))
}

/// Mean and the 50th, 99th and 99.9th percentiles, as JSON (nulls when empty).
pub fn stats(v: Vec<f64>) -> serde_json::Value {
    let v = sorted(v);
    let mean = (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    serde_json::json!({
        "mean": mean,
        "p50": percentile(&v, 0.5),
        "p99": percentile(&v, 0.99),
        "p999": percentile(&v, 0.999),
    })
}

/// `v` in the order of `f64::total_cmp`, sorted as integers: `total_cmp` orders floats as it
/// orders these keys of their bits, and values it finds equal have the same bits, so the
/// sequence is the same as a stable sort by it gives, sooner (the fluid bench's summary of
/// 47k flows, four such sorts, 3.6 ms instead of 5.0).
fn sorted(v: Vec<f64>) -> Vec<f64> {
    // Flips the magnitude bits of negative numbers; its own inverse.
    let key = |b: i64| b ^ (((b >> 63) as u64) >> 1) as i64;
    let mut keys: Vec<i64> = v.into_iter().map(|x| key(x.to_bits() as i64)).collect();
    keys.sort_unstable();
    keys.into_iter().map(|k| f64::from_bits(key(k) as u64)).collect()
}

/// One finished or unfinished sized flow, for the summaries.
#[derive(Clone, Copy)]
pub struct FlowOutcome {
    pub size: u64,
    pub fct: Option<f64>,
    pub slowdown: Option<f64>,
}

/// FCT and slowdown of finished flows by size bucket: `bounds` are the upper bounds
/// (exclusive) of all buckets but the last.
pub fn by_size(flows: &[FlowOutcome], bounds: &[u64]) -> serde_json::Value {
    let mut out = Vec::new();
    for b in 0..=bounds.len() {
        let lo = if b == 0 { 0 } else { bounds[b - 1] };
        let hi = bounds.get(b).copied();
        let inside: Vec<&FlowOutcome> =
            flows.iter().filter(|f| f.size >= lo && hi.is_none_or(|h| f.size < h)).collect();
        let label = match (b, hi) {
            (0, Some(h)) => format!("<{}", human(h)),
            (_, Some(h)) => format!("{}-{}", human(lo), human(h)),
            (_, None) => format!(">={}", human(lo)),
        };
        out.push(serde_json::json!({
            "bucket": label,
            "min_bytes": lo,
            "max_bytes": hi,
            "flows": inside.len(),
            "finished": inside.iter().filter(|f| f.fct.is_some()).count(),
            "fct_s": stats(inside.iter().filter_map(|f| f.fct).collect()),
            "slowdown": stats(inside.iter().filter_map(|f| f.slowdown).collect()),
        }));
    }
    serde_json::Value::Array(out)
}

fn human(b: u64) -> String {
    match b {
        b if b >= 1_000_000_000 && b % 1_000_000_000 == 0 => format!("{}GB", b / 1_000_000_000),
        b if b >= 1_000_000 && b % 1_000_000 == 0 => format!("{}MB", b / 1_000_000),
        b if b >= 1000 && b % 1000 == 0 => format!("{}KB", b / 1000),
        b => format!("{b}B"),
    }
}

/// Whether a flow met its deadline: `None` without a deadline, or while it is unfinished and
/// the deadline is still ahead of the end of the run.
pub fn deadline_met(deadline: Option<Time>, finish: Option<Time>, end: Time) -> Option<bool> {
    let d = deadline?;
    match finish {
        Some(f) => Some(f <= d),
        None if d <= end => Some(false),
        None => None,
    }
}

/// What the run summary needs of one flow.
pub struct FlowRecord<'a> {
    pub size: Option<u64>,
    pub class: &'a str,
    pub start: Time,
    pub finish: Option<Time>,
    pub ideal: Option<Time>,
    pub deadline: Option<Time>,
}

impl FlowRecord<'_> {
    fn outcome(&self) -> Option<FlowOutcome> {
        let fct = self.finish.map(|t| t - self.start);
        let slowdown = match (fct, self.ideal) {
            (Some(f), Some(i)) if i > Time::ZERO => Some(f.0 as f64 / i.0 as f64),
            _ => None,
        };
        self.size.map(|size| FlowOutcome { size, fct: fct.map(Time::as_secs_f64), slowdown })
    }
}

/// The summary's FCT sections, the same in packet and fluid mode: FCT and slowdown by size
/// bucket (`bounds`) and by class, and the deadline miss ratio at `end`.
pub fn summary(flows: &[FlowRecord], bounds: &[u64], end: Time) -> serde_json::Value {
    // One pass: each flow's outcome under its class (every class gets a row, even one whose
    // flows have no outcome); the rows come out in name order.
    let mut names = crate::text::Names::default();
    let mut outcomes: Vec<Vec<FlowOutcome>> = Vec::new();
    let mut all = Vec::with_capacity(flows.len());
    for f in flows {
        let c = names.index(f.class) as usize;
        if c == outcomes.len() {
            outcomes.push(Vec::new());
        }
        if let Some(o) = f.outcome() {
            outcomes[c].push(o);
            all.push(o);
        }
    }
    let mut classes: Vec<(String, Vec<FlowOutcome>)> =
        names.list.into_iter().zip(outcomes).collect();
    classes.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut by_class = serde_json::Map::new();
    for (c, o) in classes {
        by_class.insert(
            c,
            serde_json::json!({
                "flows": o.len(),
                "finished": o.iter().filter(|f| f.fct.is_some()).count(),
                "fct_s": stats(o.iter().filter_map(|f| f.fct).collect()),
                "slowdown": stats(o.iter().filter_map(|f| f.slowdown).collect()),
            }),
        );
    }
    let decided: Vec<bool> =
        flows.iter().filter_map(|f| deadline_met(f.deadline, f.finish, end)).collect();
    let miss = (!decided.is_empty())
        .then(|| decided.iter().filter(|&&m| !m).count() as f64 / decided.len() as f64);
    serde_json::json!({
        "flows_finished": flows.iter().filter(|f| f.finish.is_some()).count(),
        "fct_by_size": by_size(&all, bounds),
        "fct_by_class": by_class,
        "deadline_miss_ratio": miss,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::QueueDisc;
    use crate::net::topo::fat_tree::FatTreeConfig;
    use crate::net::topo::TopologyKind as _;
    use crate::units::{BufferSize, Rate};

    #[test]
    fn ideal_fct_of_one_packet_is_the_path_delay_and_grows_at_line_rate() {
        let topo =
            FatTreeConfig { k: 4, link_rate: Rate(10_000_000_000), link_delay: Time::from_us(1) }
                .build();
        let net = Network::build(&topo, |_| QueueDisc::taildrop(BufferSize::Packets(10)));
        let rt = RouteTable::build(&net, false);
        // 1000 B + 40 B header over 6 hops: 6 x (832 ns + 1 us).
        assert_eq!(ideal_fct(&net, &rt, false, 4, 0, 1000, 1460, 40), Time::from_ns(6 * 1832));
        // Two full packets more add exactly their serialization at the access link.
        let one = ideal_fct(&net, &rt, false, 4, 0, 1000, 1460, 40);
        let three = ideal_fct(&net, &rt, false, 4, 0, 1000 + 2 * 1460, 1460, 40);
        assert_eq!(three - one, Rate(10_000_000_000).tx_time(2 * 1500));
    }

    #[test]
    fn floats_sort_as_total_cmp_sorts_them() {
        let mut rng = crate::sim::Rng::stream(3, 0, 0);
        let mut v: Vec<f64> = (0..2000)
            .map(|i| (rng.below(1000) as f64 - 500.0) * if i % 7 == 0 { 1e-300 } else { 0.37 })
            .collect();
        v.extend([
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE / 2.0,
        ]);
        let mut want = v.clone();
        want.sort_by(f64::total_cmp);
        let got = sorted(v);
        assert_eq!(
            got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn percentiles_interpolate() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.5), Some(50.5));
        assert_eq!(percentile(&v, 1.0), Some(100.0));
        assert!((percentile(&v, 0.99).unwrap() - 99.01).abs() < 1e-9);
        assert_eq!(percentile(&[], 0.5), None);
    }

    #[test]
    fn buckets_split_at_bounds() {
        let f = |size, fct: Option<f64>| FlowOutcome { size, fct, slowdown: fct.map(|x| x * 2.0) };
        let flows =
            [f(10, Some(1.0)), f(99_999, Some(3.0)), f(100_000, Some(5.0)), f(2_000_000, None)];
        let j = by_size(&flows, &[100_000, 1_000_000]);
        assert_eq!(j[0]["bucket"], "<100KB");
        assert_eq!(j[0]["flows"], 2);
        assert_eq!(j[0]["fct_s"]["mean"], 2.0);
        assert_eq!(j[1]["bucket"], "100KB-1MB");
        assert_eq!(j[1]["slowdown"]["p50"], 10.0);
        assert_eq!(j[2]["bucket"], ">=1MB");
        assert_eq!(j[2]["finished"], 0);
        assert!(j[2]["fct_s"]["mean"].is_null());
    }

    #[test]
    fn deadlines() {
        let t = Time::from_us;
        assert_eq!(deadline_met(None, Some(t(1)), t(10)), None);
        assert_eq!(deadline_met(Some(t(5)), Some(t(5)), t(10)), Some(true));
        assert_eq!(deadline_met(Some(t(5)), Some(t(6)), t(10)), Some(false));
        assert_eq!(deadline_met(Some(t(5)), None, t(10)), Some(false));
        assert_eq!(deadline_met(Some(t(20)), None, t(10)), None);
    }
}
