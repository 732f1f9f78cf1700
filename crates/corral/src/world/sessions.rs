//! `[[rpc]]` sessions while the run goes ([`crate::workload::rpc`]): each session sends a
//! request flow, answers with a response flow once the request has fully arrived, and sends
//! its next request a think time after the response has fully arrived. The flows are made
//! here ([`super::make_flow`]) and appended after the open-loop flows; they count as traffic
//! flows of their block's class.

use super::{Event, Simulation};
use crate::ids::FlowId;
use crate::sim::rng::{stream, Rng};
use crate::units::Time;
use crate::workload::flow::FlowDef;
use crate::workload::rpc::RpcBlock;
use std::collections::HashMap;

/// One client-server session.
struct Session {
    block: u32,
    server: u32,
    client: u32,
    rng: Rng,
}

/// The run's sessions and the flows they have made.
#[derive(Default)]
pub struct RpcSessions {
    blocks: Vec<RpcBlock>,
    sessions: Vec<Session>,
    /// Flows made by sessions: (session, is the request).
    of_flow: HashMap<u32, (u32, bool)>,
    /// Flows made per block.
    made: Vec<u64>,
    /// Requests not made because their block reached `max_flows`.
    pub refused: u64,
    pub requests: u64,
    pub responses: u64,
}

impl RpcSessions {
    /// Draws every session's server and client and schedules its first request.
    pub fn new(blocks: Vec<RpcBlock>, seed: u64, first: &mut dyn FnMut(Time, u32)) -> RpcSessions {
        let mut sessions = Vec::new();
        for (b, block) in blocks.iter().enumerate() {
            for s in 0..block.spec.pairs {
                let mut rng = Rng::stream(seed, stream::RPC, ((b as u64) << 32) | s as u64);
                let server = block.servers[rng.below(block.servers.len() as u64) as usize];
                let client = block.clients[rng.below(block.clients.len() as u64) as usize];
                let at =
                    block.spec.start + Time((rng.unit() * block.spec.think.mean().0 as f64) as u64);
                if at < block.stop {
                    first(at, sessions.len() as u32);
                }
                sessions.push(Session { block: b as u32, server, client, rng });
            }
        }
        let made = vec![0; blocks.len()];
        RpcSessions { blocks, sessions, made, ..RpcSessions::default() }
    }

    pub fn sessions(&self) -> usize {
        self.sessions.len()
    }
}

impl Simulation {
    /// A session's next request is due.
    pub(super) fn on_rpc_request(&mut self, session: u32) {
        let s = &mut self.rpc.sessions[session as usize];
        let (client, server) = (s.client, s.server);
        let size = self.rpc.blocks[s.block as usize].request.sample(&mut s.rng);
        self.rpc_flow(session, client, server, size, true);
    }

    /// Flow `flow` has fully arrived: if a session made it, the session moves on.
    pub(super) fn on_rpc_arrived(&mut self, flow: FlowId) {
        let Some((session, request)) = self.rpc.of_flow.remove(&flow.0) else { return };
        let now = self.events.now();
        let s = &mut self.rpc.sessions[session as usize];
        let block = &self.rpc.blocks[s.block as usize];
        if request {
            let size = block.response.sample(&mut s.rng);
            let (server, client) = (s.server, s.client);
            self.rpc_flow(session, server, client, size, false);
        } else {
            let next = now + block.spec.think.draw(&mut s.rng);
            if next < block.stop {
                self.events.schedule(next, Event::RpcRequest { session });
            }
        }
    }

    /// Makes and starts one flow of `session`.
    fn rpc_flow(&mut self, session: u32, src: u32, dst: u32, size: u64, request: bool) {
        let b = self.rpc.sessions[session as usize].block as usize;
        let block = &self.rpc.blocks[b];
        if self.rpc.made[b] >= block.spec.max_flows {
            self.rpc.refused += 1;
            return;
        }
        self.rpc.made[b] += 1;
        let spec = &block.spec;
        let now = self.events.now();
        let def = FlowDef {
            src,
            dst,
            size: Some(size.max(1)),
            start: now,
            tag: spec.tag.clone(),
            priority: spec.priority,
            weight: spec.weight,
            tenant: spec.tenant.clone(),
            class: spec.class.clone(),
            deadline: None,
            block: None,
            routing: spec.routing,
            transport: spec.transport.clone(),
        };
        let (class, tenant) = (block.class, block.tenant);
        let resolved = crate::build::resolve_flow(
            def,
            &self.scenario,
            &self.net,
            &self.routes,
            self.scheme.is_some(),
            Some(class),
            tenant,
        )
        .expect("the block's transport was checked when the run was built");
        let id = FlowId(self.flows.len() as u32);
        let cc_rng = Rng::stream(self.scenario.seed, stream::CONTROLLER, id.0 as u64);
        let (flow, hot) = super::make_flow(
            resolved,
            &self.net,
            &self.routes,
            &self.scenario.transport,
            self.scheme.as_deref(),
            cc_rng,
        );
        self.telemetry |= hot.telemetry;
        self.flows.push(flow);
        self.hot.push(hot);
        self.rpc.of_flow.insert(id.0, (session, request));
        if request {
            self.rpc.requests += 1;
        } else {
            self.rpc.responses += 1;
        }
        self.events.schedule(now, Event::FlowStart { flow: id });
    }
}
