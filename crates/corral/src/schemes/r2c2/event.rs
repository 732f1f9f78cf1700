//! R2C2's 16-byte broadcast packet (SIGCOMM 2015, section 4.2): the event type, source and
//! destination node, weight, priority, demand, broadcast tree, routing protocol and a
//! checksum. The bytes are really encoded, and receivers act on the decoded fields, so
//! the quantization of the format (demand in Kbps up to 4 Tbps, weight in 1/256 steps) is
//! part of what every node sees.
//!
//! Layout (little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 0 | type (low 4 bits), routing protocol (high 4 bits) |
//! | 1-2 | source node (host index) |
//! | 3-4 | destination node |
//! | 5-6 | the source's flow number (which of its flows) |
//! | 7 | priority |
//! | 8-9 | weight, 8.8 fixed point |
//! | 10-13 | demand in Kbps, `u32::MAX` = none |
//! | 14 | broadcast tree id |
//! | 15 | checksum: the wrapping sum of bytes 0-14 |

use crate::route::Routing;

/// What happened to a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Start = 1,
    Finish = 2,
    /// Its demand changed (fell below its allocation, or rose again).
    Demand = 3,
    /// Its routing protocol changed.
    Route = 4,
    /// Its whole state again, after a failure (section 3.2: "nodes broadcast information
    /// about all their ongoing flows").
    Refresh = 5,
}

/// The routing protocols the 4-bit field names.
const PROTOCOLS: [&str; 5] = ["rps", "dest_tag", "vlb", "wlb", "ecmp"];

/// One broadcast event, as the fields decode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event {
    pub kind: Kind,
    pub src: u32,
    pub dst: u32,
    pub seq: u16,
    pub priority: u8,
    pub weight: f64,
    /// Wire bit/s, infinite for none.
    pub demand_bps: f64,
    pub tree: u8,
    pub routing: Routing,
}

/// Bytes on the wire.
pub const BYTES: u32 = 16;

fn protocol(r: Routing) -> u8 {
    let name = match r {
        Routing::Wlb { .. } => "wlb",
        other => other.name(),
    };
    PROTOCOLS.iter().position(|&p| p == name).unwrap_or(0) as u8
}

impl Event {
    /// The 16 bytes; a WLB flow's `direct` share is the scheme's setting, not on the wire.
    pub fn encode(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[0] = (self.kind as u8) | (protocol(self.routing) << 4);
        b[1..3].copy_from_slice(&(self.src as u16).to_le_bytes());
        b[3..5].copy_from_slice(&(self.dst as u16).to_le_bytes());
        b[5..7].copy_from_slice(&self.seq.to_le_bytes());
        b[7] = self.priority;
        let w = (self.weight * 256.0).round().clamp(1.0, u16::MAX as f64) as u16;
        b[8..10].copy_from_slice(&w.to_le_bytes());
        let kbps = if self.demand_bps.is_finite() {
            (self.demand_bps / 1e3).round().clamp(0.0, (u32::MAX - 1) as f64) as u32
        } else {
            u32::MAX
        };
        b[10..14].copy_from_slice(&kbps.to_le_bytes());
        b[14] = self.tree;
        b[15] = b[..15].iter().fold(0u8, |a, &x| a.wrapping_add(x));
        b
    }

    /// The event in `b`, or `None` if the checksum or a field is wrong. `wlb_direct` is WLB's
    /// minimal share.
    pub fn decode(b: &[u8; 16], wlb_direct: f64) -> Option<Event> {
        if b[..15].iter().fold(0u8, |a, &x| a.wrapping_add(x)) != b[15] {
            return None;
        }
        let kind = match b[0] & 0x0f {
            1 => Kind::Start,
            2 => Kind::Finish,
            3 => Kind::Demand,
            4 => Kind::Route,
            5 => Kind::Refresh,
            _ => return None,
        };
        let routing = match PROTOCOLS.get((b[0] >> 4) as usize)? {
            &"wlb" => Routing::Wlb { direct: wlb_direct },
            name => Routing::parse(name, wlb_direct).ok()?,
        };
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        let kbps = u32::from_le_bytes([b[10], b[11], b[12], b[13]]);
        Some(Event {
            kind,
            src: u16_at(1) as u32,
            dst: u16_at(3) as u32,
            seq: u16_at(5),
            priority: b[7],
            weight: u16_at(8) as f64 / 256.0,
            demand_bps: if kbps == u32::MAX { f64::INFINITY } else { kbps as f64 * 1e3 },
            tree: b[14],
            routing,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixteen_bytes_round_trip_with_the_format_s_quantization() {
        let e = Event {
            kind: Kind::Demand,
            src: 511,
            dst: 7,
            seq: 65535,
            priority: 3,
            weight: 2.5,
            demand_bps: 1_234_567_891.0,
            tree: 5,
            routing: Routing::Vlb,
        };
        let b = e.encode();
        assert_eq!(b.len() as u32, BYTES);
        let d = Event::decode(&b, 1.0 / 3.0).unwrap();
        assert_eq!(d, Event { demand_bps: 1_234_568_000.0, ..e });
        let none = Event {
            kind: Kind::Start,
            demand_bps: f64::INFINITY,
            weight: 1.0 / 1000.0,
            routing: Routing::Wlb { direct: 0.5 },
            ..e
        };
        let d = Event::decode(&none.encode(), 0.25).unwrap();
        assert!(
            d.demand_bps.is_infinite()
                && d.weight == 1.0 / 256.0
                && d.routing == Routing::Wlb { direct: 0.25 }
        );
        let mut bad = b;
        bad[3] ^= 1;
        assert_eq!(Event::decode(&bad, 0.5), None, "a flipped bit fails the checksum");
    }
}
