//! RackCC's optional trace (`scheme.trace`, off by default): what the control loop of a
//! JumboFlow did, sampled every trace interval, and its events as they happen, for finding
//! where a loop is slow or too aggressive (RackCC section 3.1: the ToR's α, its messages to
//! the servers and the per-subflow law). It goes into the run's summary
//! (`scheme.state.trace`) as columns (times in microseconds, rates in bit/s):
//!
//! - `jumbo`: per sample and JumboFlow, α, the rounds closed, the echoed ACKs and marked
//!   ACKs the source ToR counted since the last sample, the bytes its subflows sent up
//!   through the ToR since the last sample, and the sums of its subflows' f and s.
//! - `subflow`: per sample and active subflow, f, D, s = min(f, D) and the bytes in flight
//!   (sent, not acknowledged).
//! - `cuts`: every decrease the law applied: when, which subflow, why ("mark" with the
//!   round and α it used, "loss"), f before and after.
//! - `messages`: every ToR period message: sent, delivered (or dropped), to which server,
//!   and the round, α and marked flag it carried.

use crate::units::Time;
use serde_json::{json, Value};

fn us(t: Time) -> f64 {
    t.as_secs_f64() * 1e6
}

/// A JumboFlow's counters between two samples.
#[derive(Clone, Copy, Debug, Default)]
pub struct Since {
    pub acks: u64,
    pub marks: u64,
    pub bytes_up: u64,
}

/// One sample of a JumboFlow.
pub struct JumboSample {
    pub jumbo: usize,
    pub alpha: f64,
    pub rounds: u64,
    pub since: Since,
    pub sum_f: f64,
    pub sum_s: f64,
}

/// One sample of a subflow.
pub struct SubSample {
    pub flow: u32,
    pub f: f64,
    pub d: f64,
    pub s: f64,
    pub inflight: u64,
}

/// A ToR period message as traced.
#[derive(Clone, Copy, Debug)]
struct Sent {
    at: Time,
    /// When it was delivered, or dropped.
    done: Option<Time>,
    host: u32,
    round: u64,
    alpha: f64,
    marked: bool,
    dropped: bool,
}

#[derive(Debug, Default)]
pub struct Trace {
    pub every: Time,
    /// Counters since the last sample, per JumboFlow.
    pub since: Vec<Since>,
    jumbo: Vec<Value>,
    subflow: Vec<Value>,
    cuts: Vec<Value>,
    messages: Vec<Sent>,
}

impl Trace {
    pub fn new(every: Time) -> Trace {
        Trace { every, ..Trace::default() }
    }

    pub fn counters(&mut self, j: usize) -> &mut Since {
        if self.since.len() <= j {
            self.since.resize(j + 1, Since::default());
        }
        &mut self.since[j]
    }

    pub fn sample(&mut self, now: Time, jumbos: Vec<JumboSample>, subs: Vec<SubSample>) {
        let t = us(now);
        for j in jumbos {
            self.jumbo.push(json!([
                t,
                j.jumbo,
                j.alpha,
                j.rounds,
                j.since.acks,
                j.since.marks,
                j.since.bytes_up,
                j.sum_f,
                j.sum_s
            ]));
        }
        for s in subs {
            let d = if s.d.is_finite() { Some(s.d) } else { None };
            self.subflow.push(json!([t, s.flow, s.f, d, s.s, s.inflight]));
        }
        self.since.iter_mut().for_each(|c| *c = Since::default());
    }

    #[allow(clippy::too_many_arguments)]
    pub fn cut(
        &mut self,
        now: Time,
        flow: u32,
        cause: &str,
        round: u64,
        alpha: f64,
        before: f64,
        after: f64,
    ) {
        self.cuts.push(json!([us(now), flow, cause, round, alpha, before, after]));
    }

    /// A ToR message was sent; returns its index for [`Trace::delivered`].
    pub fn message(&mut self, now: Time, host: u32, round: u64, alpha: f64, marked: bool) -> usize {
        self.messages.push(Sent {
            at: now,
            done: None,
            host,
            round,
            alpha,
            marked,
            dropped: false,
        });
        self.messages.len() - 1
    }

    pub fn delivered(&mut self, i: usize, now: Time, dropped: bool) {
        if let Some(m) = self.messages.get_mut(i) {
            (m.done, m.dropped) = (Some(now), dropped);
        }
    }

    pub fn to_json(&self) -> Value {
        let messages: Vec<Value> = self
            .messages
            .iter()
            .map(|m| {
                json!([us(m.at), m.done.map(us), m.host, m.round, m.alpha, m.marked, m.dropped])
            })
            .collect();
        json!({
            "every_us": us(self.every),
            "jumbo": {
                "columns": ["t_us", "jumbo", "alpha", "rounds", "acks", "marks", "bytes_up", "sum_f_bps", "sum_s_bps"],
                "rows": self.jumbo,
            },
            "subflow": {"columns": ["t_us", "flow", "f_bps", "d_bps", "s_bps", "inflight_bytes"], "rows": self.subflow},
            "cuts": {
                "columns": ["t_us", "flow", "cause", "round", "alpha", "f_before_bps", "f_after_bps"],
                "rows": self.cuts,
            },
            "messages": {
                "columns": ["sent_us", "done_us", "host", "round", "alpha", "marked", "dropped"],
                "rows": messages,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // A sample takes the counters since the last and clears them; a message is marked
    // delivered or dropped; every table's rows are as wide as its columns.
    #[test]
    fn samples_clear_their_counters_and_rows_match_their_columns() {
        let mut t = Trace::new(Time::from_us(10));
        let c = t.counters(1);
        (c.acks, c.marks, c.bytes_up) = (8, 3, 12_000);
        let jumbo =
            |since| JumboSample { jumbo: 1, alpha: 0.5, rounds: 2, since, sum_f: 1e9, sum_s: 1e9 };
        let sub = SubSample { flow: 7, f: 1e9, d: f64::INFINITY, s: 1e9, inflight: 3000 };
        t.sample(Time::from_us(10), vec![jumbo(t.since[1])], vec![sub]);
        assert_eq!((t.since[1].acks, t.since[1].marks, t.since[1].bytes_up), (0, 0, 0));
        t.cut(Time::from_us(12), 7, "mark", 2, 0.5, 1e9, 0.75e9);
        let (a, b) = (
            t.message(Time::from_us(10), 0, 2, 0.5, true),
            t.message(Time::from_us(20), 1, 2, 0.5, true),
        );
        t.delivered(a, Time::from_us(15), false);
        t.delivered(b, Time::from_us(21), true);
        let j = t.to_json();
        for table in ["jumbo", "subflow", "cuts", "messages"] {
            let width = j[table]["columns"].as_array().unwrap().len();
            assert!(
                j[table]["rows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|r| r.as_array().unwrap().len() == width),
                "{table}"
            );
        }
        assert_eq!(j["jumbo"]["rows"][0][4], 8, "the ACKs since the last sample");
        assert_eq!(j["subflow"]["rows"][0][3], Value::Null, "an unheard D");
        assert_eq!(j["messages"]["rows"][0][1], 15.0);
        assert_eq!(j["messages"]["rows"][1][6], true, "dropped");
    }
}
