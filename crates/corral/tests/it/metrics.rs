//! Output tables account for the whole run: the goodput series covers every byte delivered,
//! including a last interval shorter than the others.

use crate::common;

use corral::metrics::Column;

// Tolerance: exact. Duration 10.5 ms with 1 ms sampling: the series ends at 10.5 ms and its
// bytes add up to each flow's delivered total; the last row's goodput uses a 0.5 ms width.
#[test]
fn throughput_series_covers_the_tail_of_the_run() {
    let text = common::dumbbell(2, "1Gbps", 2, "")
        .replace("duration = \"100ms\"", "duration = \"10.5ms\"");
    let sim = common::run(&text, &[]);
    let t = sim.throughput_table();
    let (
        Some(Column::Float(time)),
        Some(Column::Int(flow)),
        Some(Column::Int(bytes)),
        Some(Column::Float(gp)),
    ) = (t.column("time_s"), t.column("flow_id"), t.column("bytes"), t.column("goodput_bps"))
    else {
        panic!("columns")
    };
    assert!((time.last().unwrap() - 0.0105).abs() < 1e-12);
    for f in 0..2 {
        let sum: i64 = flow.iter().zip(bytes).filter(|(&x, _)| x == f).map(|(_, &b)| b).sum();
        assert_eq!(sum as u64, sim.flows[f as usize].receiver.delivered());
    }
    let last = bytes.len() - 1;
    assert!((gp[last] - bytes[last] as f64 * 8.0 / 0.0005).abs() < 1e-3);
}
