//! Turning a resolved flow ([`crate::build::ResolvedFlow`]) into its endpoints and the record the
//! per-packet path reads: the sender's controller, ECN and rate limit (from its transport,
//! or from the scheme that manages it), its receiver, and its hot fields. Used when the run
//! is built and for the flows `[[rpc]]` sessions make while it goes.

use super::{Flow, FlowHot};
use crate::build::{ResolvedFlow, Transport};
use crate::net::{Network, NO_AGG};
use crate::route::RouteTable;
use crate::schemes::{Scheme, SchemeTransport};
use crate::sim::rng::Rng;
use crate::transport::cc::PathInfo;
use crate::transport::rate::{RateLimit, Window};
use crate::transport::sender::SenderSetup;
use crate::transport::{HandshakeRtt, TcpConfig, TcpReceiver, TcpSender};
use crate::units::Time;

/// `cc_rng` is the flow's own random stream for its controller.
pub(super) fn make_flow(
    resolved: ResolvedFlow,
    net: &Network,
    routes: &RouteTable,
    tcp: &TcpConfig,
    scheme: Option<&dyn Scheme>,
    cc_rng: Rng,
) -> (Flow, FlowHot) {
    let managed = resolved.transport == Transport::Scheme;
    let src_rate = net.ports[net.host_port(resolved.def.src).idx()].rate().bps() as f64;
    let (cc, ecn, accurate_echo, limit, dupthresh) = match &resolved.transport {
        Transport::Tcp(cc) => (cc.clone(), tcp.ecn_for(cc), cc.accurate_ecn(), None, tcp.dupthresh),
        Transport::Scheme => {
            match scheme.expect("managed flows have a scheme").transport(&resolved.def) {
                SchemeTransport::Tcp(cc) => {
                    (cc.clone(), tcp.ecn_for(&cc), cc.accurate_ecn(), None, tcp.dupthresh)
                }
                SchemeTransport::Rate { initial_bps, window, dupthresh, ecn, cc } => {
                    let depth = (tcp.mss + tcp.header) as u64;
                    let limit =
                        Some(RateLimit { bps: initial_bps.unwrap_or(src_rate), depth, window });
                    let cc = cc.unwrap_or_else(|| tcp.cc.clone());
                    let accurate = ecn || cc.accurate_ecn();
                    (cc, ecn || tcp.ecn, accurate, limit, dupthresh)
                }
            }
        }
    };
    let cc_name =
        if limit.is_some_and(|l: RateLimit| l.window != Window::On) { "rate" } else { cc.name() };
    let setup = SenderSetup {
        cc: &cc,
        ecn,
        rate: limit,
        size: resolved.def.size,
        dupthresh,
        deadline: resolved.def.deadline,
        rng: Some(cc_rng),
    };
    let mut sender = TcpSender::build(tcp, &setup);
    let (src, dst, via_top) = (resolved.def.src, resolved.def.dst, resolved.routing.via_top());
    if tcp.handshake_rtt == HandshakeRtt::Unloaded {
        sender.seed_rtt(handshake_rtt(net, routes, src, dst, tcp.header, via_top, None));
    }
    if cc.ack_signals() {
        sender.on_path(&base_path(net, routes, tcp, src, dst, via_top, src_rate as u64));
    }
    let hot = FlowHot {
        src: resolved.def.src,
        dst: resolved.def.dst,
        weight: resolved.def.weight,
        routing: resolved.routing,
        leg: resolved.routing.leg(),
        priority: resolved.def.priority,
        ect: ecn,
        managed,
        tenant: resolved.tenant,
        agg: NO_AGG,
        size_priority: cc.size_priority(),
        telemetry: cc.telemetry(),
        ack_signals: cc.ack_signals(),
    };
    let flow = Flow {
        hops: resolved.hops,
        sender,
        receiver: TcpReceiver::new(tcp.delayed_ack, accurate_echo).with_sack(tcp.sack),
        rto_event_at: None,
        pace_event_at: None,
        delack_armed: false,
        blocked: false,
        finish: None,
        class_idx: resolved.class.unwrap_or(0),
        ideal: resolved.ideal,
        cc_name,
        sent_all: false,
        ended: false,
        def: Box::new(resolved.def),
    };
    (flow, hot)
}

/// The path of a flow from host `src` to `dst` as a controller that reads ACK signals learns
/// it ([`PathInfo`]): the unloaded round trip of a full segment there (with its telemetry
/// header) and its ACK back.
fn base_path(
    net: &Network,
    routes: &RouteTable,
    tcp: &TcpConfig,
    src: u32,
    dst: u32,
    via_top: bool,
    nic_bps: u64,
) -> PathInfo {
    let seg = (tcp.mss + tcp.header) as u64;
    let there = routes.path(net, net.hosts[src as usize], dst, seg, via_top);
    let back = routes.path(net, net.hosts[dst as usize], src, tcp.header as u64, via_top);
    PathInfo {
        base_rtt: there.map_or(Time::ZERO, |p| p.1) + back.map_or(Time::ZERO, |p| p.1),
        hops: there.map_or(0, |p| p.0),
        nic_bps,
    }
}

/// The RTT a connection handshake between hosts `src` and `dst` measures
/// (`transport.handshake_rtt`): the unloaded round trip of `header`-byte packets, plus, when
/// it happens at `loaded_at`, the queueing both ways as the ports stand then.
pub(super) fn handshake_rtt(
    net: &Network,
    routes: &RouteTable,
    src: u32,
    dst: u32,
    header: u32,
    via_top: bool,
    loaded_at: Option<Time>,
) -> Time {
    let one_way = |s: u32, d: u32| {
        let from = net.hosts[s as usize];
        let base = routes.path(net, from, d, header as u64, via_top).map_or(Time::ZERO, |p| p.1);
        base + loaded_at.map_or(Time::ZERO, |now| routes.queueing_delay(net, from, d, via_top, now))
    };
    one_way(src, dst) + one_way(dst, src)
}
