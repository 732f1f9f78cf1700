//! A JumboFlow as its source ToR keeps it (RackCC Table 1): the counters of one round of
//! echoed ACKs (for α), the bytes its subflows sent through the ToR's uplinks (for T, the
//! average total throughput), the registered subflows N and the subflows waiting to join
//! (M), and the Fast Start decision of the last aggregation period.

use super::law::{update_alpha, Registry};
use crate::units::Time;

/// What the source ToR tells a server about one JumboFlow every aggregation period.
#[derive(Clone, Debug, PartialEq)]
pub struct JumboState {
    pub jumbo: usize,
    /// The shared α.
    pub alpha: f64,
    /// Whether the last completed round had marked ACKs (the per-RTT law cuts then).
    pub marked: bool,
    /// Fast Start of this period: the factor for the subflows registered before it
    /// (N / (N + M)), the first f of the subflows that joined (T / (N + M)) and their ids.
    pub back_off: f64,
    pub first_f: f64,
    pub joined: Vec<u32>,
    /// Rounds closed so far, and when the last closed one ended: a server cuts at most once
    /// per round, and only for a round that ended one RTT or more after its last cut (it
    /// holds ACKs of data sent after the cut, whose marks are news).
    pub round: u64,
    pub round_end: Time,
}

#[derive(Clone, Debug)]
pub struct Jumbo {
    pub src_tor: u32,
    pub dst_tor: u32,
    /// The round length: the JumboFlow's base RTT.
    pub rtt: Time,
    pub alpha: f64,
    /// Marks in the last completed round.
    pub marked_last: bool,
    pub rounds: u64,
    /// When the last closed round ended, and when the open one ends.
    closed_at: Time,
    round_end: Time,
    acks: u64,
    marks: u64,
    /// Data bytes through the source ToR's uplinks this round, and T (bit/s) from the last.
    bytes: u64,
    pub throughput: f64,
    pub registry: Registry,
    /// Subflows whose registration reached the ToR since the last period.
    pub pending: Vec<u32>,
}

impl Jumbo {
    pub fn new(src_tor: u32, dst_tor: u32, rtt: Time, alpha: f64) -> Jumbo {
        Jumbo {
            src_tor,
            dst_tor,
            rtt,
            alpha,
            marked_last: false,
            rounds: 0,
            closed_at: Time::ZERO,
            round_end: Time::ZERO,
            acks: 0,
            marks: 0,
            bytes: 0,
            throughput: 0.0,
            registry: Registry::default(),
            pending: Vec::new(),
        }
    }

    /// An echoed ACK of a subflow passed the source ToR.
    pub fn on_ack(&mut self, ece: bool) {
        self.acks += 1;
        self.marks += ece as u64;
    }

    /// A data packet of a subflow left the source ToR toward the core.
    pub fn on_data(&mut self, bytes: u32) {
        self.bytes += bytes as u64;
    }

    /// Closes the round if it has ended by `now`: α from its ACKs (a round without ACKs
    /// leaves α and counts as unmarked) and T from its bytes.
    pub fn close_round(&mut self, now: Time, g: f64) {
        if now < self.round_end {
            return;
        }
        let span =
            if self.round_end == Time::ZERO { self.rtt } else { self.rtt + (now - self.round_end) };
        self.alpha = update_alpha(self.alpha, g, self.marks, self.acks);
        self.marked_last = self.marks > 0;
        self.throughput = self.bytes as f64 * 8.0 / span.as_secs_f64();
        (self.acks, self.marks, self.bytes) = (0, 0, 0);
        self.closed_at = now;
        self.round_end = now + self.rtt;
        self.rounds += 1;
    }

    /// One aggregation period: Fast Start for the subflows that registered since the last
    /// (each gets T / (N + M), `cold / M` when N = 0, and `cold` stands in for T until a
    /// round has measured it); with `fast_start` off they join without a rate. Returns what
    /// the servers are told.
    pub fn period(&mut self, me: usize, fast_start: bool, cold: f64) -> JumboState {
        let joined = std::mem::take(&mut self.pending);
        let (mut back_off, mut first_f) = (1.0, 0.0);
        if !joined.is_empty() {
            let m = joined.len() as u32;
            if fast_start {
                // Before a round has measured T, the cold-start rate stands in for it.
                let t = if self.throughput > 0.0 { self.throughput } else { cold };
                (back_off, first_f) = self.registry.join(m, t, cold);
            } else {
                self.registry.n += m;
            }
        }
        JumboState {
            jumbo: me,
            alpha: self.alpha,
            marked: self.marked_last,
            back_off,
            first_f,
            joined,
            round: self.rounds,
            round_end: self.closed_at,
        }
    }
}

/// The least congested of a ToR pair's JumboFlows, for a new subflow (the paper's section 5:
/// "we can emulate CONGA by always choosing the least congested JumboFlow"): of
/// `candidates` (index, α, active subflows), the lowest α; among equal α the fewest
/// subflows; then the lowest index. Returns the index.
pub fn least_congested(candidates: &[(usize, f64, usize)]) -> usize {
    candidates
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.2.cmp(&b.2)).then(a.0.cmp(&b.0)))
        .expect("a ToR pair has at least one JumboFlow")
        .0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_subflow_joins_the_least_congested_jumboflow() {
        let mut js = vec![(4, 1.0, 0), (5, 1.0, 0), (6, 1.0, 0), (7, 1.0, 0)];
        assert_eq!(least_congested(&js), 4, "all equal: the lowest index");
        (js[0].2, js[1].2) = (3, 1);
        assert_eq!(least_congested(&js), 6, "equal alpha: the fewest subflows");
        js[3] = (7, 0.2, 10);
        assert_eq!(least_congested(&js), 7, "the lowest alpha, however loaded");
        js[1].1 = 0.0;
        assert_eq!(least_congested(&js[..2]), 5, "only among those given");
    }

    #[test]
    fn a_round_sets_alpha_and_throughput_and_fast_start_splits_t() {
        let mut j = Jumbo::new(0, 1, Time::from_us(60), 0.0);
        j.registry.n = 5;
        for i in 0..100 {
            j.on_ack(i % 4 == 0);
        }
        j.on_data(75_000);
        j.close_round(Time::from_us(60), 1.0 / 16.0);
        assert!((j.alpha - 0.25 / 16.0).abs() < 1e-12 && j.marked_last);
        assert!((j.throughput - 10e9).abs() < 1.0, "75 kB in 60 us is 10 Gbps: {}", j.throughput);
        j.pending = vec![7, 8, 9, 10, 11];
        let s = j.period(3, true, 40e9);
        assert_eq!((s.back_off, s.first_f, s.joined.len(), j.registry.n), (0.5, 1e9, 5, 10));
        let quiet = j.period(3, true, 40e9);
        assert_eq!((quiet.back_off, quiet.joined.len()), (1.0, 0), "no joins, no back-off");
        j.close_round(Time::from_us(120), 1.0 / 16.0);
        assert!(!j.marked_last, "a round without ACKs is unmarked");
    }

    #[test]
    fn a_cold_jumboflow_shares_the_cold_start_rate() {
        let mut j = Jumbo::new(0, 1, Time::from_us(60), 0.0);
        j.pending = vec![1, 2, 3, 4];
        let s = j.period(0, true, 40e9);
        assert_eq!((s.back_off, s.first_f, j.registry.n), (1.0, 10e9, 4));
        let mut plain = Jumbo::new(0, 1, Time::from_us(60), 0.0);
        plain.pending = vec![1];
        let s = plain.period(0, false, 40e9);
        assert_eq!(
            (s.first_f, plain.registry.n),
            (0.0, 1),
            "without Fast Start a subflow joins without a rate"
        );
    }
}
