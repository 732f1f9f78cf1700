//! Building a run from a validated scenario, the one path packet and fluid mode share: the
//! network (with switch queue disciplines and shared buffers for packet mode), the route
//! table, and every flow (`[[flows]]` entries first, then `[[traffic]]` flows in start
//! order) with its resolved routing and transport, its traffic class and tenant, its path
//! length and its ideal completion time; and the `[[rpc]]` blocks, whose flows are resolved
//! the same way ([`resolve_flow`]) while the run goes.

pub mod queues;
pub mod work;

use crate::error::{config_err, Result};
use crate::ids::PortId;
use crate::net::queue::QueueDisc;
use crate::net::shared_buffer::SharedBuffer;
use crate::net::Network;
use crate::route::{RouteTable, Routing};
use crate::scenario::flows::expand;
use crate::scenario::Scenario;
use crate::sim::rng::{stream, Rng};
use crate::text::Names;
use crate::transport::cc::CcConfig;
use crate::transport::config::FlowTransport;
use crate::units::{Rate, Time};
use crate::workload::flow::FlowDef;

/// Who controls a flow's sending.
#[derive(Clone, Debug, PartialEq)]
pub enum Transport {
    /// TCP with this controller, outside any scheme.
    Tcp(CcConfig),
    /// The scenario's scheme.
    Scheme,
}

/// One flow, ready to run.
#[derive(Clone, Debug)]
pub struct ResolvedFlow {
    pub def: FlowDef,
    pub routing: Routing,
    pub transport: Transport,
    /// Links on the flow's path (its minimal path; up and down for `equal_length`).
    pub hops: u32,
    /// Shortest possible completion time on the empty network (sized flows).
    pub ideal: Option<Time>,
    /// Index into [`Built::classes`] for `[[traffic]]` flows; `None` for `[[flows]]` flows.
    pub class: Option<u32>,
    /// Index into [`Built::tenants`].
    pub tenant: u16,
}

pub struct Built {
    pub net: Network,
    pub routes: RouteTable,
    pub flows: Vec<ResolvedFlow>,
    /// Flows `0..explicit` come from `[[flows]]` entries.
    pub explicit: usize,
    /// Classes of `[[traffic]]` flows, in order of first appearance.
    pub classes: Vec<String>,
    /// Tenants of all flows, in order of first appearance.
    pub tenants: Vec<String>,
    /// Per node: the switch's shared buffer (packet mode with `buffer_model = "shared"`).
    pub shared_buffers: Vec<Option<SharedBuffer>>,
    pub link_events: LinkEvents,
    /// `[[rpc]]` blocks, resolved (their flows are made at run time).
    pub rpc: Vec<crate::workload::rpc::RpcBlock>,
}

/// One change of `[[events]]`, resolved to ports.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkChange {
    /// Each port's new rate (with its clock offset in packet mode).
    Rate(Vec<(PortId, Rate)>),
    /// Both ports of a link fail (`down`) or come back.
    State { ports: [PortId; 2], down: bool },
    /// Routing, broadcast trees and the scheme learn of the links' states (`detect` after a
    /// state change).
    Discover,
}

/// `[[events]]` in time order (ties in entry order).
pub type LinkEvents = Vec<(Time, LinkChange)>;

/// A port's rate under its clock offset (`network.clock_ppm`, packet mode): the same
/// offset draw for the port at build time and at every scheduled change.
fn clocked(sc: &Scenario, packet: bool, port: usize, nominal: Rate) -> Rate {
    if !packet || sc.network.clock_ppm <= 0.0 {
        return nominal;
    }
    let ppb = (sc.network.clock_ppm * 1000.0) as u64;
    let offset = Rng::stream(sc.seed, stream::LINK_CLOCK, port as u64).below(2 * ppb + 1) as i128
        - ppb as i128;
    let r = nominal.0 as i128;
    Rate((r + r * offset / 1_000_000_000) as u64)
}

/// The changes of each `[[events]]` entry, in time order (ties in entry order); a state
/// change also schedules its discovery. Fluid mode has no failures.
fn link_events(sc: &Scenario, net: &Network, packet: bool) -> Result<LinkEvents> {
    let mut out = Vec::with_capacity(sc.events.len());
    for (i, e) in sc.events.iter().enumerate() {
        let (name, both) = e.target();
        let key = format!("events[{i}].{}", if both { "link" } else { "port" });
        let p = net.port_by_name(name).ok_or_else(|| config_err(&key, format!("unknown port \"{name}\"; expected \"node:port\" with a node name of this topology and a port number it has")))?;
        let peer = net.ports[p.idx()].peer_port;
        if let Some(rate) = e.rate {
            let ports = if both { vec![p, peer] } else { vec![p] };
            out.push((
                e.at,
                LinkChange::Rate(
                    ports.into_iter().map(|q| (q, clocked(sc, packet, q.idx(), rate))).collect(),
                ),
            ));
        }
        if let Some(state) = e.state {
            crate::error::ensure(packet, &format!("events[{i}].state"), || {
                "link failures run in packet mode (mode = \"packet\")".into()
            })?;
            let down = state == crate::scenario::events::LinkState::Down;
            out.push((e.at, LinkChange::State { ports: [p, peer], down }));
            out.push((e.at + e.detect.unwrap_or(Time::ZERO), LinkChange::Discover));
        }
    }
    out.sort_by_key(|e| e.0);
    Ok(out)
}

/// The index of tenant `name` among `tenants`, which is 16 bits wide; `key` names where it
/// was given, for the error.
fn tenant_index(tenants: &mut Names, name: &str, key: impl FnOnce() -> String) -> Result<u16> {
    let i = tenants.index(name);
    u16::try_from(i).map_err(|_| {
        config_err(
            key(),
            format!(
                "tenant \"{name}\" is the {}th distinct tenant; a run has at most 65536",
                i as u64 + 1
            ),
        )
    })
}

/// Builds the network and flows of `sc`; `packet` installs switch disciplines and the ports'
/// clock offsets (fluid mode needs neither); with `scheme`, flows whose transport is left at
/// its default belong to the scheme. Reference errors (unknown hosts and ports, unroutable
/// pairs) are reported here, before anything runs.
pub fn build(sc: &Scenario, packet: bool, scheme: bool) -> Result<Built> {
    crate::scenario::budget::check(sc, sc.memory_limit)?;
    let topo = sc.topology.build();
    // Switch ports get their discipline below, once rates are final.
    let mut net = Network::build(&topo, |_| QueueDisc::taildrop(sc.host.buffer));
    for (i, p) in net.ports.iter_mut().enumerate() {
        let r = clocked(sc, packet, i, p.rate());
        p.set_rate(r);
    }
    let link_events = link_events(sc, &net, packet)?;
    let mut routes = RouteTable::build(&net, false);
    let mut defs = expand(sc, &net, &routes)?;
    let explicit = defs.len();
    let budget = crate::scenario::budget::flow_budget(sc, sc.memory_limit);
    let generated = crate::workload::generate::generate(
        &sc.traffic,
        sc.seed,
        sc.duration,
        &net,
        &routes,
        sc.base_dir.as_deref(),
        budget,
    )?;
    // Moved, not copied, when there are no `[[flows]]` entries.
    if defs.is_empty() {
        defs = generated;
    } else {
        defs.extend(generated);
    }
    let needs_counts = |r: Option<Routing>| r.is_some_and(|r| r.needs_path_counts());
    if sc.routing.routing.needs_path_counts()
        || defs.iter().any(|d| needs_counts(d.routing))
        || sc.rpc.iter().any(|r| needs_counts(r.routing))
    {
        routes = RouteTable::build(&net, true);
    }
    let mut classes = Names::default();
    let mut tenants = Names::default();
    let mut flows = Vec::with_capacity(defs.len());
    for def in defs {
        let class = def.block.map(|_| classes.index(&def.class));
        let block = def.block;
        let tenant = tenant_index(&mut tenants, &def.tenant, || {
            block.map_or("flows.tenant".to_string(), |b| format!("traffic[{b}].tenant"))
        })?;
        flows.push(resolve_flow(def, sc, &net, &routes, scheme, class, tenant)?);
    }
    let mut rpc = Vec::with_capacity(sc.rpc.len());
    let mut room = crate::scenario::budget::flow_budget(sc, sc.memory_limit)
        .saturating_sub(flows.len() as u64);
    for (i, spec) in sc.rpc.iter().enumerate() {
        crate::error::ensure(spec.max_flows <= room, &format!("rpc[{i}].max_flows"), || {
            format!("{} flows would not fit the memory limit (room for {room} more flows); lower max_flows or raise --max-memory", spec.max_flows)
        })?;
        room -= spec.max_flows;
        let (servers, clients) = crate::workload::rpc::sides(spec, i, &net)?;
        let class = classes.index(&spec.class);
        let tenant = tenant_index(&mut tenants, &spec.tenant, || format!("rpc[{i}].tenant"))?;
        let base = sc.base_dir.as_deref();
        let request = spec.request.resolve(base, &format!("rpc[{i}].request"))?;
        let response = spec.response.resolve(base, &format!("rpc[{i}].response"))?;
        rpc.push(crate::workload::rpc::RpcBlock {
            spec: spec.clone(),
            servers,
            clients,
            request,
            response,
            class,
            tenant,
            stop: spec.stop_or(sc.duration),
        });
    }
    let (classes, tenants) = (classes.list, tenants.list);
    let shared_buffers = if packet {
        queues::install(&mut net, &sc.switch, sc.host.buffer, sc.seed, &tenants)
    } else {
        (0..net.nodes.len()).map(|_| None).collect()
    };
    Ok(Built { net, routes, flows, explicit, classes, tenants, shared_buffers, link_events, rpc })
}

/// One flow ready to run: its routing and transport resolved, its path length and ideal
/// completion time (`class`, `tenant`: indices into the run's lists).
pub fn resolve_flow(
    def: FlowDef,
    sc: &Scenario,
    net: &Network,
    routes: &RouteTable,
    scheme: bool,
    class: Option<u32>,
    tenant: u16,
) -> Result<ResolvedFlow> {
    let tcp = &sc.transport;
    let routing = def.routing.unwrap_or(sc.routing.routing);
    let transport = match &def.transport {
        FlowTransport::Default if scheme => Transport::Scheme,
        FlowTransport::Default | FlowTransport::Tcp(None) => Transport::Tcp(tcp.cc.clone()),
        FlowTransport::Tcp(Some(cc)) => Transport::Tcp(cc.clone()),
        FlowTransport::Scheme if scheme => Transport::Scheme,
        FlowTransport::Scheme => {
            return Err(config_err(
                "scheme",
                "flows with transport = \"scheme\" need a [scheme] section",
            ))
        }
    };
    let via_top = routing.via_top();
    let hops = routes.path_hops(net, net.hosts[def.src as usize], def.dst, via_top).unwrap_or(0);
    let ideal = def.size.map(|size| {
        crate::metrics::fct::ideal_fct(
            net,
            routes,
            via_top,
            def.src,
            def.dst,
            size,
            tcp.mss as u64,
            tcp.header as u64,
        )
    });
    Ok(ResolvedFlow { def, routing, transport, hops, ideal, class, tenant })
}

#[cfg(test)]
mod tests {
    use super::{tenant_index, Names};

    #[test]
    fn a_tenant_past_the_16_bit_index_is_an_error_naming_where_it_was_given() {
        let mut n = Names::default();
        for i in 0..65536 {
            assert_eq!(
                tenant_index(&mut n, &format!("t{i}"), || unreachable!()).unwrap(),
                i as u16
            );
        }
        assert_eq!(tenant_index(&mut n, "t7", || unreachable!()).unwrap(), 7);
        let e = tenant_index(&mut n, "new", || "traffic[0].tenant".into()).unwrap_err().to_string();
        assert!(
            e.contains("traffic[0].tenant") && e.contains("65537th") && e.contains("at most 65536"),
            "{e}"
        );
    }
}
