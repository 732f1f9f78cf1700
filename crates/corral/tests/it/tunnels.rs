//! Tunnel queues at hosts (`world::tunnels`, SCC's FIFO tunnel): first in, first out across
//! the flows of one aggregate, released at the rate the scheme sets, with every packet kept.

use crate::common;
use corral::ids::FlowId;
use corral::schemes::{Ctx, Scheme, SchemeTransport, Window};
use corral::units::Time;
use corral::workload::flow::FlowDef;
use corral::Simulation;

/// Every flow in tunnel `tag` (0 or 1, from the flow's tag) at its source host; tunnel 0
/// released at `rates[0]`, tunnel 1 at `rates[1]`, and from `change.0` tunnel 0 at `change.1`.
struct Tunnels {
    rates: [f64; 2],
    change: Option<(Time, f64)>,
}

impl Scheme for Tunnels {
    fn init(&mut self, ctx: &mut dyn Ctx) {
        if let Some((at, _)) = self.change {
            ctx.schedule(at, 0, 0);
        }
    }

    fn transport(&self, _def: &FlowDef) -> SchemeTransport {
        SchemeTransport::Rate {
            initial_bps: None,
            window: Window::On,
            dupthresh: 3,
            ecn: false,
            cc: None,
        }
    }

    fn on_flow_start(&mut self, ctx: &mut dyn Ctx, flow: FlowId) {
        let agg = u32::from(ctx.flow(flow).tag == "b");
        ctx.set_agg(flow, agg);
        let src = ctx.flow(flow).src;
        ctx.set_tunnel_rate(agg, src, self.rates[agg as usize]);
    }

    fn on_timer(&mut self, ctx: &mut dyn Ctx, _agent: u32, _tag: u32) {
        let (_, bps) = self.change.expect("a rate change");
        ctx.set_tunnel_rate(0, 0, bps);
    }
}

/// One sender h0 into h1 at 1 Gbps (10 us links), for `duration`; `flows` follows.
fn scenario(duration: &str, flows: &str) -> String {
    format!(
        r#"duration = "{duration}"
[topology]
kind = "dumbbell"
senders = 1
receivers = 1
link_rate = "1Gbps"
link_delay = "10us"
[metrics]
interval = "1ms"
latency_sample_every = 1
{flows}"#
    )
}

fn run(text: &str, scheme: Tunnels) -> Simulation {
    let sc = corral::scenario::load(text, &[], "test").unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::with_scheme(sc, Box::new(scheme), "test").unwrap();
    sim.run();
    common::assert_conserved(&sim);
    let (entered, left, waiting) = sim.tunnel_counts();
    assert!(entered > 0, "the tunnel queue was used");
    assert_eq!(entered, left + waiting, "no packet lost or duplicated in the tunnel queue");
    sim
}

/// Wire bit/s delivered by all flows between `from` and `to` seconds (goodput x 1500/1460).
fn wire_bps(sim: &Simulation, from: f64, to: f64) -> f64 {
    let tp = &sim.metrics.throughput;
    let bytes: u64 = (0..tp.time.len())
        .filter(|&k| {
            let t = tp.time[k].as_secs_f64();
            t > from + 1e-9 && t <= to + 1e-9
        })
        .map(|k| tp.bytes[k])
        .sum();
    bytes as f64 * 8.0 * 1500.0 / 1460.0 / (to - from)
}

// Two flows in one tunnel released at 100 Mbps (120 us a packet): flow a (1 MB) from 0,
// flow b (100 KB) from 200 us. Packets reach h1 in the order they entered the tunnel (one
// path, equal sizes: the entry time, arrival minus one-way delay, never falls), so b's first
// packet waits behind the packets a queued before it: at least 5 packet times.
#[test]
fn packets_of_a_tunnels_flows_leave_in_the_order_they_entered() {
    let flows = r#"[[flows]]
src = "h0"
dst = "h1"
size = "1MB"
tag = "a"
[[flows]]
src = "h0"
dst = "h1"
size = "100KB"
start = "200us"
tag = "a"
"#;
    let sim = run(&scenario("120ms", flows), Tunnels { rates: [100e6, 100e6], change: None });
    let l = &sim.metrics.latency;
    assert!(l.time.len() > 700, "{} packets sampled", l.time.len());
    let entered: Vec<Time> = (0..l.time.len()).map(|k| l.time[k] - l.delay[k]).collect();
    for k in 1..entered.len() {
        assert!(entered[k] >= entered[k - 1], "packet {k} entered before the one ahead of it");
    }
    let first_b = (0..l.time.len()).find(|&k| l.flow[k] == FlowId(1)).expect("b delivered");
    assert!(
        l.delay[first_b] >= Time::from_us(5 * 120),
        "b's first packet waited {:?} behind a's",
        l.delay[first_b]
    );
    let a_before = (0..first_b).filter(|&k| l.flow[k] == FlowId(0)).count();
    assert!(a_before >= 5, "{a_before} of a's packets went first");
    assert!(sim.flows.iter().all(|f| f.finish.is_some()), "both finished");
}

// Backlogged, a tunnel releases its rate: two unbounded flows in a tunnel at 300 Mbps carry
// 300 Mbps (wire) within 1 % over 5-25 ms; raised to 600 Mbps at 25 ms, 600 within 1 % over
// 30-50 ms.
#[test]
fn a_backlogged_tunnel_carries_its_rate() {
    let flows = "[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\ntag = \"a\"\n".repeat(2);
    let sim = run(
        &scenario("50ms", &flows),
        Tunnels { rates: [300e6, 0.0], change: Some((Time::from_ms(25), 600e6)) },
    );
    let (before, after) = (wire_bps(&sim, 0.005, 0.025), wire_bps(&sim, 0.03, 0.05));
    assert!((before / 300e6 - 1.0).abs() < 0.01, "{before:.4e} at 300 Mbps");
    assert!((after / 600e6 - 1.0).abs() < 0.01, "{after:.4e} at 600 Mbps");
    assert_eq!(sim.counts.dropped, 0);
}

// Two tunnels from one host at 800 Mbps each exceed its 1 Gbps NIC: they wait for NIC room
// (small queues), the NIC drops nothing and the link runs full.
#[test]
fn tunnels_wait_for_room_in_their_hosts_nic() {
    let flows = "[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\ntag = \"a\"\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\ntag = \"b\"\n";
    let sim = run(&scenario("30ms", flows), Tunnels { rates: [800e6, 800e6], change: None });
    let wire = wire_bps(&sim, 0.005, 0.03);
    assert!(wire >= 0.99e9, "link {:.3} busy", wire / 1e9);
    assert_eq!(sim.counts.dropped, 0);
}
