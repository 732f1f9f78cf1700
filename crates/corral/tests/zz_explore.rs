mod common;
#[test]
fn explore() {
    let buf = std::env::var("BUF").unwrap_or("200pkt".into());
    let host = std::env::var("HOST").unwrap_or("40Gbps".into());
    let text = format!(r#"
duration = "200ms"
[topology]
kind = "dumbbell"
senders = 1
receivers = 1
link_rate = "{host}"
bottleneck_rate = "10Gbps"
link_delay = "10us"
bottleneck_delay = "50us"
[switch]
buffer = "{buf}"
[[flows]]
src = "h0"
dst = "h1"
[metrics]
queue_ports = ["sw0:1"]
queue_interval = "100us"
"#);
    let sim = common::run(&text, &[]);
    let t = &sim.metrics.throughput;
    let mut s = String::new();
    for i in 0..t.time.len() { s += &format!("{:.1} ", t.bytes[i] as f64 * 8.0 / 1e-3 / 1e9); }
    eprintln!("gbps per ms: {s}");
    let q = &sim.metrics.queues;
    let mut s = String::new();
    for i in (0..q.time.len()).step_by(10) { s += &format!("{} ", q.packets[i]); }
    eprintln!("queue per ms: {s}");
    eprintln!("util {}", common::utilization(&sim, "sw0:1"));
}
