//! `[[rpc]]` closed-loop sessions: every response starts when its request has fully
//! arrived, every next request one think time after its response has, and nothing starts
//! after `stop`; the block's cap on flows holds.

use crate::common;

fn scenario(extra: &str) -> String {
    format!(
        r#"
seed = 5
duration = "20ms"
{top}
[topology]
kind = "dumbbell"
senders = 2
receivers = 2
link_rate = "10Gbps"
[[rpc]]
pairs = 1
servers = "h0"
clients = "h2"
request = "1KB"
response = "100KB"
think = "1ms"
stop = "15ms"
{extra}
[[rpc]]
pairs = 1
servers = "h1"
clients = "h3"
request = "1KB"
response = "100KB"
think = {{ kind = "exponential", mean = "1ms" }}
"#,
        top = if extra.starts_with("mode") { extra } else { "" },
        extra = if extra.starts_with("mode") { "" } else { extra },
    )
}

#[test]
fn sessions_alternate_requests_and_responses() {
    let sim = common::run(&scenario(""), &[]);
    let start = sim.open_loop_end;
    assert_eq!(start, 0, "no open-loop flows");
    let flows: Vec<_> = sim.flows.iter().collect();
    assert!(flows.len() > 20, "{} flows", flows.len());
    // Servers h0, h1, clients h2, h3; requests go client -> server.
    let summary = sim.summary();
    let (req, resp) = (
        summary["rpc"]["requests"].as_u64().unwrap(),
        summary["rpc"]["responses"].as_u64().unwrap(),
    );
    assert!(req >= resp && req - resp <= 2, "{req} requests, {resp} responses");
    for f in &flows {
        let (src, dst) = (f.def.src, f.def.dst);
        let request = f.def.size == Some(1000);
        if request {
            assert!(src >= 2 && dst < 2, "request {src} -> {dst}");
        } else {
            assert!(src < 2 && dst >= 2 && f.def.size == Some(100_000), "response {src} -> {dst}");
        }
        assert!(f.def.start < corral::units::Time::from_ms(20));
        assert!(
            f.finish.is_some() || f.def.start > corral::units::Time::from_ms(14),
            "every flow but the last ones finished"
        );
        assert_eq!(f.def.class, "rpc");
    }
    // Per session (a client-server pair in order), each response starts when the previous
    // request finished, and each request 1 ms after the previous response finished.
    let mut by_pair: std::collections::BTreeMap<(u32, u32), Vec<&corral::world::Flow>> =
        Default::default();
    for f in &flows {
        let key =
            if f.def.size == Some(1000) { (f.def.src, f.def.dst) } else { (f.def.dst, f.def.src) };
        by_pair.entry(key).or_default().push(f);
    }
    // The first block's session (h2 asks h0, fixed 1 ms think): exact transitions. The second
    // (h3 asks h1, exponential think): alternation and gaps that vary.
    let chain = &by_pair[&(2, 0)];
    assert!(chain.len() >= 10, "{} flows", chain.len());
    for (k, w) in chain.windows(2).enumerate() {
        let done = w[0].finish.expect("an earlier flow finished");
        let first_is_request = k % 2 == 0;
        assert_eq!(w[0].def.size == Some(1000), first_is_request, "alternation at {k}");
        let gap = if first_is_request {
            corral::units::Time::ZERO
        } else {
            corral::units::Time::from_ms(1)
        };
        assert_eq!(w[1].def.start, done + gap);
    }
    let other = &by_pair[&(3, 1)];
    let gaps: Vec<u64> = other
        .windows(2)
        .filter(|w| w[0].def.size != Some(1000))
        .map(|w| (w[1].def.start - w[0].finish.unwrap()).0)
        .collect();
    assert!(gaps.len() >= 3 && gaps.windows(2).any(|g| g[0] != g[1]), "{gaps:?}");
    assert!(
        chain
            .iter()
            .all(|f| f.def.start < corral::units::Time::from_ms(15) || f.def.size != Some(1000)),
        "no request after stop"
    );
    assert!(
        other.last().unwrap().def.start > corral::units::Time::from_ms(15),
        "the second block has no stop"
    );
}

#[test]
fn max_flows_caps_a_block_and_is_reported() {
    let sim = common::run(&scenario("max_flows = 7"), &[]);
    let first_block = sim.flows.iter().filter(|f| f.def.src == 2 || f.def.dst == 2).count();
    assert_eq!(first_block, 7);
    assert!(sim.summary()["rpc"]["refused_at_max_flows"].as_u64().unwrap() >= 1);
    let err =
        corral::scenario::load(&scenario("think = \"2ms\""), &[], "t").err().unwrap().to_string();
    assert!(err.contains("think"), "{err}");
    let err = corral::scenario::load(&scenario("zzz = 1"), &[], "t").err().unwrap().to_string();
    assert!(err.starts_with("rpc[0].zzz") || err.contains("zzz"), "{err}");
    let err =
        corral::scenario::load(&scenario("mode = \"fluid\""), &[], "t").err().unwrap().to_string();
    assert!(err.starts_with("rpc[0]: closed-loop sessions run in packet mode only"), "{err}");
}
