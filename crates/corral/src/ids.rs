//! Index newtypes. Each is a dense index into one of the simulation's vectors.

macro_rules! id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);
        impl $name {
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(/// A host or switch.
    NodeId);
id!(/// An output port, global over all nodes (each link end is one port).
    PortId);
id!(/// A transport flow.
    FlowId);
id!(/// A packet slot in the arena.
    PktId);
