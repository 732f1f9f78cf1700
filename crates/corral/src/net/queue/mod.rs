//! Output-queue disciplines, one file each, dispatched through the closed enum [`QueueDisc`].
//!
//! A discipline owns the packets waiting at one output port (the packet being serialized is
//! on the wire and no longer counts, as in ns-2/ns-3 devices) and decides on arrival whether to
//! accept, mark (ECN CE) or drop. Every arrival goes through the discipline, also one that
//! finds the port idle (it is dequeued at once), so averaging disciplines such as RED see
//! every packet; a FIFO gives its verdict there without queueing the packet
//! ([`Discipline::pass_idle`]), which leaves it as queueing and dequeueing would.
//! Disciplines that make room by dropping an already queued packet (SFQ, DRR) answer
//! [`Admit::Displace`] and hand the victims out through [`Discipline::pop_victim`].
//!
//! Every discipline implements [`Discipline`] and [`Declared`] (its settings and how a port
//! gets one); the `disciplines!` list generates [`QueueKind`], [`QueueConfig`] and
//! [`QueueDisc`], the closed enum the per-packet path dispatches through, which never reaches
//! into a discipline's fields.

/// The accessors of a discipline that keeps its packets in one [`Fifo`] named `fifo`: its
/// bytes and packets, and (unless it passes `bytes_and_packets_only`) its dequeue. With
/// `by_verdict`, also its enqueue and [`Discipline::pass_idle`], from its own
/// `verdict(&self, &Arrival) -> Admit` on the queue as it stands.
macro_rules! fifo_accessors {
    (by_verdict) => {
        #[inline]
        fn enqueue(&mut self, a: Arrival) -> Admit {
            let admit = self.verdict(&a);
            if admit != Admit::Drop {
                self.fifo.push(a.pkt, a.size);
            }
            admit
        }

        #[inline]
        fn pass_idle(&self, a: &Arrival) -> Option<Admit> {
            Some(self.verdict(a))
        }

        fifo_accessors!();
    };
    (bytes_and_packets_only) => {
        #[inline]
        fn bytes(&self) -> u64 {
            self.fifo.bytes()
        }

        #[inline]
        fn packets(&self) -> u64 {
            self.fifo.len() as u64
        }
    };
    () => {
        #[inline]
        fn dequeue(&mut self, _now: Time) -> Option<(PktId, u32)> {
            self.fifo.pop()
        }

        fifo_accessors!(bytes_and_packets_only);
    };
}

/// The accessors of a discipline that keeps its packets in [`rounds::Rounds`] named
/// `rounds`: the victims of its last enqueue, its bytes and packets.
macro_rules! rounds_accessors {
    () => {
        fn pop_victim(&mut self) -> Option<(PktId, u32)> {
            self.rounds.victims.pop()
        }

        fn bytes(&self) -> u64 {
            self.rounds.bytes()
        }

        fn packets(&self) -> u64 {
            self.rounds.packets()
        }
    };
}

// The test-only discipline, in `crate::tests`, takes the FIFO's accessors by path.
#[cfg(test)]
pub(crate) use fifo_accessors;

pub mod drr;
pub mod ecn_threshold;
pub mod fifo;
pub mod pfabric;
pub mod priority;
pub mod red;
pub mod rounds;
pub mod sfq;
pub mod taildrop;

pub use crate::config::NoSettings;
use crate::error::{config_err, Result};
use crate::ids::{FlowId, PktId};
use crate::units::{BufferSize, Rate, Time};
pub use fifo::Fifo;
use serde::{Deserialize, Serialize};

/// The fate of an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Queued; `mark` asks the caller to set CE on the packet.
    Accept { mark: bool },
    /// Queued, but to make room the discipline dropped one or more packets that were already
    /// queued; the caller takes them with [`Discipline::pop_victim`] and accounts their drops.
    Displace { mark: bool },
    /// The arriving packet is dropped. (A discipline may also have dropped queued packets
    /// first; [`Discipline::pop_victim`] returns them.)
    Drop,
}

/// What a discipline needs to know about an arriving packet.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    pub pkt: PktId,
    pub size: u32,
    /// ECN-capable transport.
    pub ect: bool,
    /// The packet's flow, for per-flow and hashed disciplines.
    pub flow: FlowId,
    /// The packet's priority class (0 = highest).
    pub prio: u8,
    /// The flow's weight, for weighted fair queueing.
    pub weight: f64,
    /// The flow's tenant, numbered in order of appearance in the run (DRR by tenant).
    pub tenant: u16,
    /// The aggregate or tunnel id a scheme stamped on the packet (`u32::MAX`: none).
    pub agg: u32,
    /// Arrival time, for disciplines with time-based state (RED's idle decay, SFQ perturbation).
    pub now: Time,
}

impl Arrival {
    /// An arrival at time zero of flow 0, priority 0, weight 1 (for unit tests).
    #[cfg(test)]
    pub fn test(pkt: u32, size: u32) -> Arrival {
        Arrival {
            pkt: PktId(pkt),
            size,
            ect: true,
            flow: FlowId(0),
            prio: 0,
            weight: 1.0,
            tenant: 0,
            agg: u32::MAX,
            now: Time::ZERO,
        }
    }
}

/// One output-queue discipline. The per-packet path calls these through the closed enum
/// [`QueueDisc`]; each discipline keeps its packets and state private.
pub trait Discipline {
    /// Decides the fate of an arriving packet (and queues it unless dropped).
    fn enqueue(&mut self, a: Arrival) -> Admit;
    /// The next packet to transmit; `now` is when it starts on the wire.
    fn dequeue(&mut self, now: Time) -> Option<(PktId, u32)>;
    /// The next packet to transmit among those `may_send` allows (hop-by-hop back-pressure,
    /// `switch.backpressure`); disciplines without per-flow queues ignore it.
    fn dequeue_where(
        &mut self,
        now: Time,
        _may_send: &dyn Fn(PktId) -> bool,
    ) -> Option<(PktId, u32)> {
        self.dequeue(now)
    }
    /// The verdict on a packet that finds the queue empty and the port idle, so that it goes
    /// straight onto the wire: `Some` from a discipline whose state that leaves as it was (a
    /// FIFO's), so the caller need not queue and dequeue it; `None` (the default) asks for
    /// [`Self::enqueue`] and [`Self::dequeue`], for disciplines that see every arrival (RED's
    /// average, SFQ's and DRR's rounds).
    fn pass_idle(&self, _a: &Arrival) -> Option<Admit> {
        None
    }
    /// A queued packet the last enqueue dropped to make room, with its size.
    fn pop_victim(&mut self) -> Option<(PktId, u32)> {
        None
    }
    /// Bytes queued (the packet on the wire excluded).
    fn bytes(&self) -> u64;
    /// Packets queued.
    fn packets(&self) -> u64;
}

/// One queue discipline as a scenario declares it: `switch.queue = "<name>"`, its settings in
/// the table `[switch.<name>]`. Each discipline file implements it, and the `disciplines!`
/// list below is the one place the set of disciplines is written: a new discipline is its
/// file and one line there.
pub trait Declared: Discipline + Sized {
    /// Its settings ([`NoSettings`] and `TABLE = false` for a discipline without any).
    type Config: serde::de::DeserializeOwned
        + Serialize
        + Clone
        + std::fmt::Debug
        + PartialEq
        + Default;
    /// It has a settings table `[switch.<name>]`.
    const TABLE: bool = true;
    /// The discipline it is made of with these settings (a priority queue's classes), whose
    /// settings it uses too.
    fn composes(_cfg: &Self::Config) -> Option<QueueKind> {
        None
    }
    /// Checks the settings; errors name keys under `path` (`switch.red`).
    fn validate(_cfg: &Self::Config, _path: &str) -> Result<()> {
        Ok(())
    }
    /// The discipline of one port.
    fn build(cfg: &Self::Config, settings: &QueueSettings, port: &PortQueue) -> Self;
}

/// What building one port's discipline may use.
#[derive(Clone, Copy)]
pub struct PortQueue<'a> {
    /// The port's buffer (`switch.buffer`).
    pub buffer: BufferSize,
    /// Its serialization rate.
    pub rate: Rate,
    /// The run's seed, the port's global index and (inside a priority queue) the class: a
    /// randomized discipline draws from its own stream of these.
    pub seed: u64,
    pub port: usize,
    pub class: usize,
    /// The run's tenants in order of appearance (DRR by tenant).
    pub tenants: &'a [String],
}

/// The discipline part of `[switch]`: which discipline, the ECN marking threshold, and the
/// settings tables given.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSettings {
    /// `switch.queue` (default "taildrop").
    pub kind: QueueKind,
    /// `switch.ecn_threshold`: marking threshold K of "ecn" queues (and "ecn" priority
    /// classes), bytes or packets.
    pub ecn_threshold: Option<BufferSize>,
    /// The `[switch.<kind>]` tables given, in the disciplines' declaration order.
    pub tables: Vec<QueueConfig>,
}

impl Default for QueueSettings {
    fn default() -> Self {
        QueueSettings { kind: QueueKind::Taildrop, ecn_threshold: None, tables: Vec::new() }
    }
}

/// Declares the disciplines: for each, its name in scenarios, its variant in [`QueueKind`],
/// [`QueueConfig`] and [`QueueDisc`], and its type (`, boxed` for the larger ones, which
/// keeps every port small: the FIFOs sit inline). Generates those enums, the list of names,
/// and the dispatch of the per-packet path: a new discipline is its file (declared above as
/// a plain module, which `cargo fmt` sees) and one line in the list.
macro_rules! disciplines {
    ($($(#[$attr:meta])* $name:literal => $variant:ident($kind:ty $(, $boxed:ident)?)),* $(,)?) => {

        /// The queue discipline of switch output ports (`switch.queue`).
        #[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum QueueKind {
            $($(#[$attr])* #[serde(rename = $name)] $variant,)*
        }

        /// The disciplines' names, in declaration order.
        pub const KINDS: &[&str] = &[$($(#[$attr])* $name),*];

        impl QueueKind {
            pub const ALL: &[QueueKind] = &[$($(#[$attr])* QueueKind::$variant),*];

            pub fn name(self) -> &'static str {
                match self { $($(#[$attr])* QueueKind::$variant => $name,)* }
            }

            /// It has a settings table `[switch.<name>]`.
            pub fn has_table(self) -> bool {
                match self { $($(#[$attr])* QueueKind::$variant => <$kind as Declared>::TABLE,)* }
            }
        }

        /// One discipline's settings, tagged by the discipline.
        #[derive(Clone, Debug, PartialEq)]
        pub enum QueueConfig {
            $($(#[$attr])* $variant(<$kind as Declared>::Config),)*
        }

        impl QueueConfig {
            pub fn kind(&self) -> QueueKind {
                match self { $($(#[$attr])* QueueConfig::$variant(_) => QueueKind::$variant,)* }
            }

            /// The settings of `kind` when its table is not given.
            pub fn default_for(kind: QueueKind) -> QueueConfig {
                match kind { $($(#[$attr])* QueueKind::$variant => QueueConfig::$variant(Default::default()),)* }
            }

            /// The settings of `kind` from its table (errors name keys under its path).
            pub fn parse<E: serde::de::Error>(kind: QueueKind, v: toml::Value) -> std::result::Result<QueueConfig, E> {
                Ok(match kind { $($(#[$attr])* QueueKind::$variant => QueueConfig::$variant(crate::config::nested(v, $name)?),)* })
            }

            /// [`Declared::validate`] of its discipline.
            pub fn validate(&self, path: &str) -> Result<()> {
                match self { $($(#[$attr])* QueueConfig::$variant(c) => <$kind as Declared>::validate(c, path),)* }
            }

            /// [`Declared::composes`] of its discipline.
            pub fn composes(&self) -> Option<QueueKind> {
                match self { $($(#[$attr])* QueueConfig::$variant(c) => <$kind as Declared>::composes(c),)* }
            }
        }

        /// The settings alone, as their table.
        impl Serialize for QueueConfig {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                match self { $($(#[$attr])* QueueConfig::$variant(c) => c.serialize(s),)* }
            }
        }

        /// The closed set of disciplines, dispatched statically on the per-packet path.
        pub enum QueueDisc {
            $($(#[$attr])* $variant(disciplines!(@type $kind $(, $boxed)?)),)*
        }

        impl QueueDisc {
            /// The discipline `kind` of one port, with its settings from `settings` (its
            /// defaults where its table is not given).
            pub fn build(kind: QueueKind, settings: &QueueSettings, port: &PortQueue) -> QueueDisc {
                match kind {
                    $($(#[$attr])* QueueKind::$variant => {
                        let given = settings.tables.iter().find_map(|t| match t { QueueConfig::$variant(c) => Some(c), _ => None });
                        let cfg = given.cloned().unwrap_or_default();
                        QueueDisc::$variant(disciplines!(@held $($boxed)? <$kind as Declared>::build(&cfg, settings, port)))
                    })*
                }
            }
        }

        impl Discipline for QueueDisc {
            #[inline(always)]
            fn enqueue(&mut self, a: Arrival) -> Admit {
                match self { $($(#[$attr])* QueueDisc::$variant(q) => q.enqueue(a),)* }
            }

            #[inline(always)]
            fn dequeue(&mut self, now: Time) -> Option<(PktId, u32)> {
                match self { $($(#[$attr])* QueueDisc::$variant(q) => q.dequeue(now),)* }
            }

            fn dequeue_where(&mut self, now: Time, may_send: &dyn Fn(PktId) -> bool) -> Option<(PktId, u32)> {
                match self { $($(#[$attr])* QueueDisc::$variant(q) => q.dequeue_where(now, may_send),)* }
            }

            #[inline(always)]
            fn pass_idle(&self, a: &Arrival) -> Option<Admit> {
                match self { $($(#[$attr])* QueueDisc::$variant(q) => q.pass_idle(a),)* }
            }

            #[inline]
            fn pop_victim(&mut self) -> Option<(PktId, u32)> {
                match self { $($(#[$attr])* QueueDisc::$variant(q) => q.pop_victim(),)* }
            }

            #[inline]
            fn bytes(&self) -> u64 {
                match self { $($(#[$attr])* QueueDisc::$variant(q) => q.bytes(),)* }
            }

            #[inline]
            fn packets(&self) -> u64 {
                match self { $($(#[$attr])* QueueDisc::$variant(q) => q.packets(),)* }
            }
        }
    };
    (@type $ty:ty, boxed) => { Box<$ty> };
    (@type $ty:ty) => { $ty };
    (@held boxed $e:expr) => { Box::new($e) };
    (@held $e:expr) => { $e };
}

disciplines! {
    "taildrop" => Taildrop(taildrop::TailDrop),
    "ecn" => Ecn(ecn_threshold::EcnThreshold),
    "red" => Red(red::Red, boxed),
    "sfq" => Sfq(sfq::Sfq, boxed),
    "priority" => Priority(priority::Priority, boxed),
    "drr" => Drr(drr::Drr, boxed),
    "pfabric" => Pfabric(pfabric::Pfabric, boxed),
    #[cfg(test)]
    "toy" => Toy(crate::tests::toy_discipline::Toy, boxed),
}

impl QueueSettings {
    /// The settings table given for `kind`.
    pub fn table(&self, kind: QueueKind) -> Option<&QueueConfig> {
        self.tables.iter().find(|t| t.kind() == kind)
    }

    /// The disciplines in use: the queue's, and the one it is made of.
    pub fn used(&self) -> Vec<QueueKind> {
        let composed = self
            .table(self.kind)
            .cloned()
            .unwrap_or_else(|| QueueConfig::default_for(self.kind))
            .composes();
        std::iter::once(self.kind).chain(composed).collect()
    }

    /// A table is given only for a discipline in use, the ECN threshold exactly when an "ecn"
    /// queue is in use; each table's own checks. `at` is the key path of `[switch]`.
    pub fn validate(&self, at: &str) -> Result<()> {
        let used = self.used();
        let ecn = used.contains(&QueueKind::Ecn);
        let key = format!("{at}.ecn_threshold");
        match (ecn, self.ecn_threshold) {
            (true, None) => return Err(config_err(key, format!("required when {at}.queue = \"ecn\" or {at}.priority.class = \"ecn\" (e.g. \"65pkt\")"))),
            (false, Some(_)) => return Err(config_err(key, format!("only used when {at}.queue = \"ecn\" (or priority classes of \"ecn\"); remove it or set queue = \"ecn\""))),
            _ => {}
        }
        for t in &self.tables {
            let name = t.kind().name();
            if !used.contains(&t.kind()) {
                return Err(config_err(format!("{at}.{name}"), format!("only used when {at}.queue = \"{name}\" (queue is \"{}\"); remove it or change {at}.queue", self.kind.name())));
            }
            t.validate(&format!("{at}.{name}"))?;
        }
        Ok(())
    }

    /// Takes the discipline's keys (`queue`, `ecn_threshold`, the `[<kind>]` tables) out of
    /// the `[switch]` table `t`, leaving the rest; `E` is the caller's deserializer error.
    pub fn take<E: serde::de::Error>(t: &mut toml::Table) -> std::result::Result<QueueSettings, E> {
        let mut out = QueueSettings::default();
        if let Some(v) = t.remove("queue") {
            out.kind = crate::config::nested::<QueueKind, E>(v, "queue")?;
        }
        if let Some(v) = t.remove("ecn_threshold") {
            out.ecn_threshold =
                Some(crate::config::nested::<crate::units::BufferSize, E>(v, "ecn_threshold")?);
        }
        for &kind in QueueKind::ALL {
            if kind.has_table() {
                if let Some(v) = t.remove(kind.name()) {
                    out.tables.push(QueueConfig::parse(kind, v)?);
                }
            }
        }
        Ok(out)
    }

    /// Writes the discipline's keys into a `[switch]` map being serialized: `queue`, then
    /// `ecn_threshold` if given, then the tables in declaration order.
    pub fn serialize_into<M: serde::ser::SerializeMap>(
        &self,
        m: &mut M,
    ) -> std::result::Result<(), M::Error> {
        m.serialize_entry("queue", &self.kind)?;
        if let Some(k) = self.ecn_threshold {
            m.serialize_entry("ecn_threshold", &BufferText(k))?;
        }
        for t in &self.tables {
            m.serialize_entry(t.kind().name(), t)?;
        }
        Ok(())
    }
}

/// A buffer limit serialized as the scenario writes it (`"64pkt"`, `"16000B"`).
pub struct BufferText(pub BufferSize);

impl Serialize for BufferText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        crate::config::ser_buffer(&self.0, s)
    }
}

impl QueueDisc {
    pub fn taildrop(limit: BufferSize) -> QueueDisc {
        QueueDisc::Taildrop(taildrop::TailDrop::new(limit))
    }

    pub fn ecn_threshold(limit: BufferSize, threshold: BufferSize) -> QueueDisc {
        QueueDisc::Ecn(ecn_threshold::EcnThreshold::new(limit, threshold))
    }

    pub fn is_empty(&self) -> bool {
        self.packets() == 0
    }
}

/// Whether a queue holding `bytes`/`packets` has room for one more packet of `size` bytes.
pub fn fits(limit: BufferSize, bytes: u64, packets: u64, size: u32) -> bool {
    match limit {
        BufferSize::Bytes(b) => bytes + size as u64 <= b,
        BufferSize::Packets(p) => packets < p,
    }
}

/// Whether the occupancy exceeds a threshold given in bytes or packets.
pub fn exceeds(threshold: BufferSize, bytes: u64, packets: u64) -> bool {
    match threshold {
        BufferSize::Bytes(b) => bytes > b,
        BufferSize::Packets(p) => packets > p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_passes_an_idle_port_s_packet_as_queueing_and_dequeueing_would() {
        let cases = [
            QueueDisc::taildrop(BufferSize::Packets(2)),
            QueueDisc::taildrop(BufferSize::Bytes(1000)),
            QueueDisc::ecn_threshold(BufferSize::Packets(2), BufferSize::Packets(0)),
            QueueDisc::ecn_threshold(BufferSize::Packets(0), BufferSize::Packets(0)),
        ];
        for mut q in cases {
            for (size, ect) in [(1500, true), (40, false), (900, true)] {
                let a = Arrival { ect, ..Arrival::test(7, size) };
                let passed = q.pass_idle(&a).expect("a FIFO passes idle packets");
                assert!(q.is_empty(), "nothing is queued by a pass");
                let admit = q.enqueue(a);
                assert_eq!(passed, admit, "size {size}, ect {ect}");
                if admit != Admit::Drop {
                    assert_eq!(q.dequeue(Time::ZERO), Some((PktId(7), size)));
                }
                assert!(q.is_empty() && q.bytes() == 0);
            }
        }
        // RED averages every arrival: its idle packets go through the queue.
        let red = red::Red::new(
            BufferSize::Packets(10),
            red::RedConfig::default(),
            crate::units::Rate(1_000_000_000),
            crate::sim::Rng::stream(1, 0, 0),
        );
        assert_eq!(QueueDisc::Red(Box::new(red)).pass_idle(&Arrival::test(0, 1500)), None);
    }
}
