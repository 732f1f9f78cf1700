//! `[[rpc]]`: closed-loop request/response sessions, the on-off RPC traffic of HCC's
//! section IV-B (gRPC, after Kumar et al.'s production traces). Each of `pairs` sessions
//! joins a server and a client; the client sends a `request`, the server answers with a
//! `response` once the request has fully arrived, and the client sends its next request a
//! think time after the response has fully arrived. Flows are made while the run goes
//! (`crate::world`), since each start depends on an earlier finish.
//!
//! Servers and clients: by default the lower and the upper half of the hosts by index (so
//! responses cross the network as HCC's left-to-right flows do); each session draws its
//! server and its client uniformly. A session's first request is at `start` plus a uniform
//! draw below the mean think time, so that sessions do not start in lockstep. No request
//! starts at or after `stop`.

use super::dist::SizeSpec;
use super::flow::Hosts;
use crate::error::{config_err, ensure, Result};
use crate::sim::rng::Rng;
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// Think time between a response and the next request.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ThinkSpec {
    Fixed {
        value: Time,
    },
    /// Normal, truncated at 0 (a negative draw is 0).
    Normal {
        mean: Time,
        std: Time,
    },
    Exponential {
        mean: Time,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NormalKeys {
    mean: Time,
    std: Time,
}

impl<'de> Deserialize<'de> for ThinkSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use super::deadline::{time_or_table, ExpKeys, FixedKeys};
        use crate::config::{by_kind, typed};
        use serde::de::Error;
        let v = match time_or_table(d, "{ kind = \"normal\", mean = \"2ms\", std = \"1ms\" }")? {
            Ok(value) => return Ok(ThinkSpec::Fixed { value }),
            Err(table) => table,
        };
        by_kind(v, &["fixed", "normal", "exponential"], |kind, v| {
            Ok(match kind {
                "fixed" => ThinkSpec::Fixed { value: typed::<FixedKeys>(v, "")?.value },
                "normal" => {
                    let k = typed::<NormalKeys>(v, "")?;
                    ThinkSpec::Normal { mean: k.mean, std: k.std }
                }
                _ => ThinkSpec::Exponential { mean: typed::<ExpKeys>(v, "")?.mean },
            })
        })
        .map_err(|e: toml::de::Error| D::Error::custom(e.message()))
    }
}

impl ThinkSpec {
    pub fn mean(&self) -> Time {
        match *self {
            ThinkSpec::Fixed { value } => value,
            ThinkSpec::Normal { mean, .. } | ThinkSpec::Exponential { mean } => mean,
        }
    }

    pub fn draw(&self, rng: &mut Rng) -> Time {
        match *self {
            ThinkSpec::Fixed { value } => value,
            ThinkSpec::Normal { mean, std } => {
                // Box-Muller; one of the pair is used.
                let (u1, u2) = (1.0 - rng.unit(), rng.unit());
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                Time((mean.0 as f64 + z * std.0 as f64).max(0.0).round() as u64)
            }
            ThinkSpec::Exponential { mean } => {
                Time(super::deadline::exponential_ps(mean, rng).round() as u64)
            }
        }
    }
}

/// One `[[rpc]]` block.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RpcSpec {
    /// Sessions (client-server pairs).
    pub pairs: u32,
    /// Hosts that answer (default: the lower half by index).
    pub servers: Option<Hosts>,
    /// Hosts that ask (default: the upper half by index).
    pub clients: Option<Hosts>,
    /// Size of each request, a size or a size table as `[[traffic]]` `size` takes.
    pub request: SizeSpec,
    /// Size of each response, as `request`.
    pub response: SizeSpec,
    /// Think time between a response and the next request: a time ("1ms") or a table
    /// `{ kind = "exponential", mean }`, `{ kind = "normal", mean, std }`, ...
    pub think: ThinkSpec,
    /// First request not before `start` (default "0s").
    #[serde(default)]
    pub start: Time,
    /// No request at or after `stop` (default: the run's duration).
    pub stop: Option<Time>,
    /// Objective class of the flows (default "rpc").
    #[serde(default = "default_class")]
    pub class: String,
    #[serde(default)]
    pub tenant: String,
    #[serde(default)]
    pub tag: String,
    #[serde(default)]
    pub priority: u8,
    #[serde(default = "one")]
    pub weight: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routing: Option<crate::route::Routing>,
    #[serde(default, skip_serializing_if = "crate::transport::config::FlowTransport::is_default")]
    pub transport: crate::transport::config::FlowTransport,
    /// Refuse a block that could make more flows than this (default 2000000; the bound is
    /// every session cycling as fast as the empty network allows).
    #[serde(default = "default_max_flows")]
    pub max_flows: u64,
}

fn default_class() -> String {
    "rpc".into()
}
fn one() -> f64 {
    1.0
}
fn default_max_flows() -> u64 {
    2_000_000
}

impl RpcSpec {
    pub fn stop_or(&self, duration: Time) -> Time {
        self.stop.unwrap_or(duration).min(duration)
    }

    pub fn validate(&self, i: usize, duration: Time) -> Result<()> {
        let at = |k: &str| format!("rpc[{i}].{k}");
        ensure(self.pairs >= 1, &at("pairs"), || "must be at least 1".into())?;
        self.request.validate(&at("request"))?;
        self.response.validate(&at("response"))?;
        if let ThinkSpec::Normal { mean, std } = self.think {
            ensure(mean > Time::ZERO || std > Time::ZERO, &at("think"), || {
                "a normal think time needs a positive mean or std".into()
            })?;
        }
        super::spec::check_window_and_weight(&at, self.start, self.stop, self.weight, duration)?;
        ensure(self.max_flows >= 2, &at("max_flows"), || {
            "must be at least 2 (a request and its response)".into()
        })?;
        self.transport.validate(&at("transport"))
    }
}

/// A block ready to run: its hosts, size distributions and the indices of its class and
/// tenant.
#[derive(Clone, Debug)]
pub struct RpcBlock {
    pub spec: RpcSpec,
    pub servers: Vec<u32>,
    pub clients: Vec<u32>,
    pub request: super::dist::SizeDist,
    pub response: super::dist::SizeDist,
    pub class: u32,
    pub tenant: u16,
    /// No request at or after this time.
    pub stop: Time,
}

/// Servers and clients of block `i` as host indices: the lists given, or the two halves.
pub fn sides(spec: &RpcSpec, i: usize, net: &crate::net::Network) -> Result<(Vec<u32>, Vec<u32>)> {
    let n = net.hosts.len() as u32;
    let resolve =
        |h: &Option<Hosts>, key: &str, default: std::ops::Range<u32>| -> Result<Vec<u32>> {
            let list = match h {
                Some(h) => h
                    .names()
                    .iter()
                    .map(|name| super::flow::resolve_host(net, name, &format!("rpc[{i}].{key}")))
                    .collect::<Result<Vec<_>>>()?,
                None => default.collect(),
            };
            if list.is_empty() {
                return Err(config_err(format!("rpc[{i}].{key}"), "needs at least one host"));
            }
            Ok(list)
        };
    Ok((resolve(&spec.servers, "servers", 0..n / 2)?, resolve(&spec.clients, "clients", n / 2..n)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Think-time draws: fixed is exact; the truncated normal's mean is above the normal's by
    // the truncation (mean 2 ms, std 1 ms: E[max(0, X)] = 2.0017 ms) and never negative; the
    // exponential's mean is its parameter.
    #[test]
    fn think_time_draws() {
        let mut r = Rng::stream(1, 13, 0);
        assert_eq!(ThinkSpec::Fixed { value: Time::from_ms(2) }.draw(&mut r), Time::from_ms(2));
        let n = 200_000;
        let normal = ThinkSpec::Normal { mean: Time::from_ms(2), std: Time::from_ms(1) };
        let draws: Vec<f64> = (0..n).map(|_| normal.draw(&mut r).as_secs_f64()).collect();
        let m = draws.iter().sum::<f64>() / n as f64;
        assert!((m / 0.0020017 - 1.0).abs() < 0.01, "{m}");
        assert!(draws.contains(&0.0), "truncated at 0");
        let e = ThinkSpec::Exponential { mean: Time::from_ms(2) };
        let m = (0..n).map(|_| e.draw(&mut r).as_secs_f64()).sum::<f64>() / n as f64;
        assert!((m / 0.002 - 1.0).abs() < 0.02, "{m}");
    }

    #[test]
    fn think_parses_every_form() {
        #[derive(Deserialize)]
        struct W {
            think: ThinkSpec,
        }
        let p =
            |s: &str| crate::config::typed::<W>(toml::from_str(s).unwrap(), "t").map(|w| w.think);
        assert_eq!(p("think = \"3ms\"").unwrap(), ThinkSpec::Fixed { value: Time::from_ms(3) });
        assert_eq!(
            p("think = { kind = \"normal\", mean = \"2ms\", std = \"1ms\" }").unwrap(),
            ThinkSpec::Normal { mean: Time::from_ms(2), std: Time::from_ms(1) }
        );
        let e = p("think = { kind = \"normal\", mean = \"2ms\" }").unwrap_err().to_string();
        assert!(e.contains("std"), "{e}");
    }
}
