//! Routing: shortest-path candidate tables ([`table`]), the rules that pick one candidate per
//! hop, and the one place paths are chosen, for packets ([`Router`]), for source routes
//! ([`source`]) and for flow-level usage fractions ([`usage`], used by `alloc` and fluid
//! mode), so that every mode reads the same names with the same meaning:
//!
//! | name | per packet | paper |
//! |---|---|---|
//! | `static` | destination-address bits pick the uplink | TCP Outcast 2.1 |
//! | `ecmp` | per-flow hash over equal-cost next hops | RFC 2992 |
//! | `spray` | uniform over equal-cost next hops at every hop | Dixit et al. |
//! | `flowcell` | each `flowcell_bytes` of a flow on one path, successive cells round-robin over the equal-cost paths | Presto 3 |
//! | `rps` | a uniformly random minimal path (per hop, weighted by the paths behind each next hop) | R2C2 3.5 |
//! | `dest_tag` | one minimal path, lowest dimension first (dimension order on a torus) | R2C2 2.2.1, Dally-Towles |
//! | `vlb` | `rps` to a uniformly random intermediate (a host's switch), then `rps` to the destination | Valiant, R2C2 |
//! | `wlb` | `rps` direct with probability `direct`, else `vlb` (R2C2's 1:2 split is direct = 1/3) | R2C2 3.3.1 |
//! | `equal_length` | up to the top tier, then down (`core`: random or destination bits) | TCP Outcast 5.4 |
//!
//! A packet carries its per-hop rule ([`Leg`]) and a waypoint: an intermediate host whose
//! switch it heads for first (`vlb`, `wlb`), [`CLIMB`] while it climbs (`equal_length`), or
//! [`NO_WAYPOINT`]. With `source_routes` the sender applies the same rules once and writes
//! the whole path into the packet header ([`source`]); switches then only follow it.

pub mod dest_tag;
pub mod ecmp;
pub mod equal_length;
pub mod flowcell;
pub mod rps;
pub mod source;
pub mod spray;
pub mod static_bits;
pub mod table;
pub mod usage;
pub mod vlb;

use crate::ids::{FlowId, NodeId, PortId};
pub use crate::net::packet::Leg;
use crate::net::Network;
use crate::units::Bytes;
use equal_length::CoreChoice;
use serde::{Deserialize, Serialize, Serializer};
pub use table::RouteTable;

/// The waypoint of a packet that heads straight for its destination.
pub const NO_WAYPOINT: u32 = u32::MAX;
/// The waypoint of an `equal_length` packet still climbing to the top tier.
pub const CLIMB: u32 = u32::MAX - 1;

/// Declares the routings: for each, its name in scenarios (`routing.kind`, a flow's
/// `routing`), its variant in [`Routing`], and for a routing with settings, their fields and
/// the settings type of its file (which parses and checks them). Generates the enum, the list
/// of names, its parser and its serialization. The per-hop rules themselves live in the
/// routing's file ([`Leg`]); a new routing is its file and one line here (and its leg).
macro_rules! routings {
    ($($name:literal => $variant:ident $({ $($field:ident: $fty:ty),* } = $settings:ty)?),* $(,)?) => {
        /// How the packets of a flow choose among paths.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Routing {
            $($variant $({ $($field: $fty),* })?,)*
        }

        /// The names [`Routing`] accepts (scenario files, `corral.alloc.usage`), in
        /// declaration order.
        pub const ROUTING_NAMES: &[&str] = &[$($name),*];

        impl Routing {
            pub fn name(&self) -> &'static str {
                match self { $(Routing::$variant { .. } => $name,)* }
            }

            /// The routing `kind` from the rest of its table (its settings, if it has any).
            fn from_table(kind: &str, v: toml::Value) -> crate::Result<Routing> {
                match kind {
                    $($name => routings!(@parse v, $variant $({ $($field),* } = $settings)?),)*
                    other => unreachable!("by_kind checked {other}"),
                }
            }

            /// Writes the routing's settings (not its kind) into a map being serialized.
            fn serialize_settings<M: serde::ser::SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
                match self {
                    $(Routing::$variant $({ $($field),* })? => { $($(m.serialize_entry(stringify!($field), $field)?;)*)? },)*
                }
                Ok(())
            }
        }
    };
    (@parse $v:ident, $variant:ident) => {{
        crate::config::typed::<crate::config::NoSettings>($v, "")?;
        Ok(Routing::$variant)
    }};
    (@parse $v:ident, $variant:ident { $($field:ident),* } = $settings:ty) => {{
        let s: $settings = crate::config::typed($v, "")?;
        s.validate()?;
        Ok(Routing::$variant { $($field: s.$field),* })
    }};
}

routings! {
    "static" => Static,
    "ecmp" => Ecmp,
    "spray" => Spray,
    "flowcell" => Flowcell { flowcell_bytes: Bytes } = flowcell::FlowcellSettings,
    "rps" => Rps,
    "dest_tag" => DestTag,
    "vlb" => Vlb,
    "wlb" => Wlb { direct: f64 } = vlb::WlbSettings,
    "equal_length" => EqualLength { core: CoreChoice } = equal_length::EqualLengthSettings,
}

impl Routing {
    /// A routing by name, with the older `corral.alloc` aliases: `single` = `dest_tag`,
    /// `spray_per_hop` = `spray`. `direct` is WLB's minimal share.
    pub fn parse(name: &str, direct: f64) -> crate::Result<Routing> {
        Ok(match name {
            "static" => Routing::Static,
            "ecmp" => Routing::Ecmp,
            "spray" | "spray_per_hop" => Routing::Spray,
            "flowcell" => Routing::Flowcell { flowcell_bytes: flowcell::PRESTO_FLOWCELL },
            "rps" => Routing::Rps,
            "dest_tag" | "single" => Routing::DestTag,
            "vlb" => Routing::Vlb,
            "wlb" => Routing::Wlb { direct: vlb::WlbSettings { direct }.checked("direct")? },
            "equal_length" => Routing::EqualLength { core: CoreChoice::Random },
            _ => {
                let hint = crate::config::suggest::nearest(name, ROUTING_NAMES.iter().copied())
                    .map(|s| format!("did you mean \"{s}\"? "))
                    .unwrap_or_default();
                return Err(crate::error::config_err(
                    "routing",
                    format!(
                        "unknown routing \"{name}\"; {hint}expected one of {}",
                        crate::config::one_of(ROUTING_NAMES)
                    ),
                ));
            }
        })
    }

    /// The per-hop rule between waypoints.
    pub fn leg(&self) -> Leg {
        match self {
            Routing::Static | Routing::EqualLength { core: CoreChoice::DestBits } => Leg::Static,
            Routing::Ecmp => Leg::Ecmp,
            Routing::Spray => Leg::Spray,
            Routing::Flowcell { .. } => Leg::Flowcell,
            Routing::Rps | Routing::Vlb | Routing::Wlb { .. } => Leg::Rps,
            Routing::DestTag => Leg::DestTag,
            Routing::EqualLength { core: CoreChoice::Random } => Leg::EqualRandom,
        }
    }

    /// The flowcell of a packet whose first byte (or ACK number) is `seq` (0 unless the
    /// routing is `flowcell`).
    #[inline]
    pub fn cell(&self, seq: u64) -> u64 {
        match self {
            Routing::Flowcell { flowcell_bytes } => flowcell::cell_of(seq, *flowcell_bytes),
            _ => 0,
        }
    }

    /// Packets climb to the top tier first.
    pub fn via_top(&self) -> bool {
        matches!(self, Routing::EqualLength { .. })
    }

    /// The route table must count shortest paths (uniform path sampling).
    pub fn needs_path_counts(&self) -> bool {
        self.leg() == Leg::Rps
    }
}

/// `"vlb"` or `{ kind = "wlb", direct = 0.5 }`.
impl<'de> Deserialize<'de> for Routing {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = match toml::Value::deserialize(d)? {
            toml::Value::String(name) => toml::Value::Table(toml::Table::from_iter([(
                "kind".to_string(),
                toml::Value::String(name),
            )])),
            other => other,
        };
        crate::config::by_kind(v, ROUTING_NAMES, Routing::from_table)
            .map_err(|e: toml::de::Error| D::Error::custom(e.message()))
    }
}

impl Serialize for Routing {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("kind", self.name())?;
        self.serialize_settings(&mut m)?;
        m.end()
    }
}

/// `[routing]`: the run's routing (every flow's unless a flow entry names its own) and
/// whether senders write whole paths into packet headers.
#[derive(Clone, Debug, PartialEq)]
pub struct RoutingConfig {
    pub routing: Routing,
    /// Senders choose each packet's whole path and write it into the header (3 bits per hop
    /// on a torus, as R2C2's data plane); switches only follow it (default false: every
    /// switch chooses the next hop itself). The same rules choose either way.
    pub source_routes: bool,
}

impl Default for RoutingConfig {
    fn default() -> Self {
        RoutingConfig { routing: Routing::Ecmp, source_routes: false }
    }
}

impl<'de> Deserialize<'de> for RoutingConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut table = toml::Table::deserialize(d).map_err(|_| {
            D::Error::custom(format!(
                "expected a table like [routing] kind = \"ecmp\" (kind one of {})",
                crate::config::one_of(ROUTING_NAMES)
            ))
        })?;
        let source_routes = match table.remove("source_routes") {
            None => false,
            Some(toml::Value::Boolean(b)) => b,
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "\u{1}source_routes\u{1}expected true or false, got {other}"
                )))
            }
        };
        let routing = Routing::deserialize(toml::Value::Table(table))
            .map_err(|e| D::Error::custom(e.message()))?;
        Ok(RoutingConfig { routing, source_routes })
    }
}

impl Serialize for RoutingConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("kind", self.routing.name())?;
        self.routing.serialize_settings(&mut m)?;
        m.serialize_entry("source_routes", &self.source_routes)?;
        m.end()
    }
}

/// What a switch needs to know about a packet to route it.
#[derive(Clone, Copy, Debug)]
pub struct Hop {
    pub flow: FlowId,
    /// Destination host.
    pub dst: u32,
    /// Intermediate host, [`CLIMB`] or [`NO_WAYPOINT`]; cleared when reached.
    pub waypoint: u32,
    pub leg: Leg,
    /// The packet's flowcell (`flowcell` routing; 0 otherwise).
    pub cell: u64,
    /// Switches the packet has left since the sender's first switch (`flowcell` routing).
    pub depth: u8,
}

impl Hop {
    /// A packet toward `dst` without a waypoint, in flowcell 0 at its first switch.
    pub fn toward(flow: FlowId, dst: u32, leg: Leg) -> Hop {
        Hop { flow, dst, waypoint: NO_WAYPOINT, leg, cell: 0, depth: 0 }
    }
}

/// The routing state of a run: the random streams of the randomized rules, per switch (and
/// per sending host for waypoints), each derived from the run's seed.
pub struct Router {
    ecmp: ecmp::Ecmp,
    flowcell: flowcell::Flowcell,
    spray: spray::Spray,
    rps: rps::Rps,
    equal: equal_length::EqualRandom,
    waypoints: vlb::Waypoints,
}

impl Router {
    pub fn new(seed: u64, nodes: usize, hosts: usize) -> Router {
        Router {
            ecmp: ecmp::Ecmp::new(seed),
            flowcell: flowcell::Flowcell::new(seed),
            spray: spray::Spray::new(seed, nodes),
            rps: rps::Rps::new(seed, nodes),
            equal: equal_length::EqualRandom::new(seed, nodes),
            waypoints: vlb::Waypoints::new(seed, hosts),
        }
    }

    /// The waypoint a new packet of a flow with routing `r` from host `src` starts with.
    #[inline]
    pub fn waypoint(&mut self, r: Routing, src: u32, hosts: usize) -> u32 {
        match r {
            Routing::Vlb => self.waypoints.vlb(src, hosts),
            Routing::Wlb { direct } => self.waypoints.wlb(src, hosts, direct),
            Routing::EqualLength { .. } => CLIMB,
            _ => NO_WAYPOINT,
        }
    }

    /// The output port at `node` for a packet described by `hop` (which may clear its
    /// waypoint); `None` when its destination (or waypoint) cannot be reached from `node`
    /// (links are down). `node` must not be the destination host.
    #[inline]
    pub fn next_port(
        &mut self,
        rt: &RouteTable,
        net: &Network,
        node: NodeId,
        hop: &mut Hop,
    ) -> Option<PortId> {
        if hop.waypoint == CLIMB {
            let up = rt.uplinks(node);
            if !up.is_empty() {
                return Some(up[self.pick(net, node, up, &[], hop)]);
            }
            hop.waypoint = NO_WAYPOINT;
        }
        let mut target = hop.dst;
        if hop.waypoint != NO_WAYPOINT {
            // Reached the intermediate's switch (or the waypoint is the sender itself).
            if node == net.attach[hop.waypoint as usize] || node == net.hosts[hop.waypoint as usize]
            {
                hop.waypoint = NO_WAYPOINT;
            } else {
                target = hop.waypoint;
            }
        }
        let cands = rt.candidates(node, target);
        match cands.len() {
            0 => None,
            1 => Some(cands[0]),
            _ => {
                let paths =
                    if hop.leg == Leg::Rps { rt.candidate_paths(node, target) } else { &[] };
                Some(cands[self.pick(net, node, cands, paths, hop)])
            }
        }
    }

    /// One of `cands`, the (two or more) candidates at `node` toward the packet's
    /// destination, for a packet without a waypoint: [`Self::next_port`]'s common case.
    #[inline(always)]
    pub fn pick_toward(
        &mut self,
        rt: &RouteTable,
        net: &Network,
        node: NodeId,
        cands: &[PortId],
        hop: &Hop,
    ) -> PortId {
        let paths = if hop.leg == Leg::Rps { rt.candidate_paths(node, hop.dst) } else { &[] };
        cands[self.pick(net, node, cands, paths, hop)]
    }

    /// One of the candidates `cands` at `node` by the packet's rule; `paths` are the shortest
    /// paths behind each candidate (for `rps`; empty while climbing).
    #[inline(always)]
    fn pick(
        &mut self,
        net: &Network,
        node: NodeId,
        cands: &[PortId],
        paths: &[f64],
        hop: &Hop,
    ) -> usize {
        let n = cands.len();
        if n == 1 {
            return 0;
        }
        match hop.leg {
            Leg::Static => {
                static_bits::StaticBits.pick(net.nodes[node.idx()].static_div, n, hop.dst)
            }
            Leg::Ecmp => self.ecmp.pick(node, n, hop.flow),
            Leg::Spray => self.spray.pick(node, n),
            Leg::Flowcell => self.flowcell.pick(node, n, hop.flow, hop.cell, hop.depth),
            Leg::EqualRandom => self.equal.pick(node, n),
            Leg::DestTag => dest_tag::pick(net, cands),
            Leg::Rps if paths.is_empty() => self.rps.uniform(node, n),
            Leg::Rps => self.rps.pick(node, paths),
        }
    }

    /// The whole path (output ports) a packet described by `hop` takes from `node` to its
    /// destination host, every hop chosen as the switches would choose it. Returns false,
    /// with the path up to where it ends, if the destination cannot be reached.
    pub fn path(
        &mut self,
        rt: &RouteTable,
        net: &Network,
        mut node: NodeId,
        mut hop: Hop,
        out: &mut Vec<PortId>,
    ) -> bool {
        out.clear();
        let dst = net.hosts[hop.dst as usize];
        while node != dst {
            // The sender's host is hop 0 of `out`; its first switch is depth 0.
            hop.depth = out.len().saturating_sub(1).min(u8::MAX as usize) as u8;
            let Some(p) = self.next_port(rt, net, node, &mut hop) else { return false };
            out.push(p);
            node = net.ports[p.idx()].peer;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<RoutingConfig, String> {
        crate::config::typed::<RoutingConfig>(toml::from_str(text).unwrap(), "routing")
            .map_err(|e| e.to_string())
    }

    #[test]
    fn routing_tables_parse_with_their_keys() {
        assert_eq!(parse("kind = \"vlb\"").unwrap().routing, Routing::Vlb);
        assert_eq!(
            parse("kind = \"wlb\"\ndirect = 0.5").unwrap().routing,
            Routing::Wlb { direct: 0.5 }
        );
        assert_eq!(parse("kind = \"wlb\"").unwrap().routing, Routing::Wlb { direct: 1.0 / 3.0 });
        let c = parse("kind = \"rps\"\nsource_routes = true").unwrap();
        assert!(c.source_routes && c.routing == Routing::Rps);
        assert!(parse("kind = \"wlb\"\ndirect = 2.0").unwrap_err().starts_with("routing.direct:"));
        assert!(parse("kind = \"ecmp\"\ndirect = 0.5")
            .unwrap_err()
            .starts_with("routing.direct: unknown key"));
        assert!(parse("kind = \"vbl\"").unwrap_err().contains("did you mean \"vlb\""));
        assert_eq!(
            parse("kind = \"flowcell\"").unwrap().routing,
            Routing::Flowcell { flowcell_bytes: Bytes(65_536) }
        );
        assert_eq!(
            parse("kind = \"flowcell\"\nflowcell_bytes = \"16KB\"").unwrap().routing,
            Routing::Flowcell { flowcell_bytes: Bytes(16_000) }
        );
        assert!(parse("kind = \"flowcell\"\nflowcell_bytes = \"0B\"")
            .unwrap_err()
            .starts_with("routing.flowcell_bytes:"));
        assert!(parse("kind = \"flowcell\"\nflowcell_bytes = \"lots\"")
            .unwrap_err()
            .starts_with("routing.flowcell_bytes:"));
        assert!(parse("kind = \"ecmp\"\nflowcell_bytes = \"64KB\"")
            .unwrap_err()
            .starts_with("routing.flowcell_bytes: unknown key"));
        assert!(parse("kind = \"rps\"\nsource_routes = 1")
            .unwrap_err()
            .starts_with("routing.source_routes:"));
    }
}
