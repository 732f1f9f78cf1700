"""The bad-input corpus: one broken thing per case, across every part of a scenario (top
level, topology, switch, host, network, transport, control, metrics, flows, traffic, rpc,
routing, events, schemes), `--set` overrides, sweep files and the Python `Scenario` API.

Each case names the key path its error must name. `tests/test_bad_input.py` runs every case
and requires a clean error: a `ScenarioError` (a `SweepError` for a sweep file) whose message
names the key, says what is expected in TOML's words (a whole number, a number, a string, one
of "prr", "classic") and holds no Rust words (`u64`, `f64`, `usize`, "unit variant", "invalid
type", a module path). The census sorts the cases into four heaps, for before/after counts:

    python tests/bad_inputs.py            # clean / unclear / crash / accepted, and each case

`clean`: the error names the key and speaks TOML; `unclear`: an error, but Rust-worded, not
naming the key, or missing what the case requires (the valid values of a name, the table
form); `crash`: a traceback of another exception or a panic; `accepted`: no error at all.
"""

from __future__ import annotations

import copy
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

# One valid k=4 fat-tree scenario: each case breaks one thing in it (test_bad_input.py's
# cases too).
VALID = """
name = "bad-input"
seed = 1
duration = "10ms"

[topology]
kind = "fat_tree"
k = 4
link_rate = "1Gbps"
link_delay = "1us"

[switch]
buffer = "16KB"
queue = "taildrop"

[routing]
kind = "static"

[transport]
cc = "newreno"
mss = 1460

[[flows]]
src = "h1"
dst = "h0"
size = "unbounded"

[metrics]
queue_ports = ["tor0:0"]
"""

TRAFFIC = """
[[traffic]]
pattern = "all_to_all"
size = { cdf = "websearch" }
load = 0.5
"""

FAT = VALID + TRAFFIC

RPC = """
[[rpc]]
pairs = 2
request = "1KB"
response = "10KB"
think = "100us"
"""

EVENT = """
[[events]]
at = "1ms"
link = "tor0:2"
rate = "100Mbps"
"""

# The packaged scenario each scheme's cases start from (run for 1 ms).
SCHEME_BASE = {
    "hcc": "hcc/websearch.toml",
    "ideal": "ideal/websearch.toml",
    "r2c2": "r2c2/rack.toml",
    "rackcc": "rackcc/fig3.toml",
    "scc": "scc/weights.toml",
}

# Rust's words for what TOML calls a whole number, a number, a string, a table, a name.
RUST_WORDS = re.compile(
    r"\b(u8|u16|u32|u64|u128|usize|i8|i16|i32|i64|i128|isize|f32|f64)\b|unit variant|invalid type|"
    r"newtype|\bstruct\b|\benum\b|\bsequence\b|a map\b|\bOption\b|super::|crate::|\x01|string only"
)


@dataclass
class Case:
    """One bad input. `key`: the key path the error must name; `must`: more the message must
    hold (case-insensitive), e.g. the valid values of a name."""

    id: str
    area: str
    key: str
    run: Callable[[], Any]
    must: list[str] = field(default_factory=list)


def packaged(name: str) -> Path:
    import corral

    return Path(corral.__file__).parent / "scenarios" / name


def doc(text: str) -> dict[str, Any]:
    return tomllib.loads(text)


def edit(base: dict[str, Any], sets: dict[str, Any] = {}, unset: tuple[str, ...] = ()) -> dict[str, Any]:  # noqa: B006
    """A copy of `base` with `sets` ({dotted path: value}) applied and `unset` removed."""
    d = copy.deepcopy(base)
    for path, value in sets.items():
        *parents, last = path.split(".")
        cur: Any = d
        for p in parents:
            cur = cur[int(p)] if isinstance(cur, list) else cur.setdefault(p, {})
        if isinstance(cur, list):
            cur[int(last)] = value
        else:
            cur[last] = value
    for path in unset:
        *parents, last = path.split(".")
        cur = d
        for p in parents:
            cur = cur[int(p)] if isinstance(cur, list) else cur[p]
        del cur[int(last) if isinstance(cur, list) else last]
    return d


def build_text(text: str, overrides: list[str] | None = None, source: str = "<string>") -> None:
    """Builds (does not run) the scenario: every check the core makes before the first event."""
    from corral import api

    api.build(text, source, list(overrides or []), None)


def build_doc(d: dict[str, Any]) -> None:
    from corral.scenario import dumps

    build_text(dumps(d))


def scenario_case(id: str, area: str, key: str, base: dict[str, Any] | str, must=(), **kw) -> Case:
    """A case that builds `base` (a dict, edited by `sets=` / `unset=`, or TOML text)."""
    if isinstance(base, str):
        return Case(id, area, key, lambda: build_text(base, kw.get("overrides")), list(must))
    d = edit(base, kw.get("sets", {}), kw.get("unset", ()))
    overrides = kw.get("overrides")
    if overrides:
        from corral.scenario import dumps

        return Case(id, area, key, lambda: build_text(dumps(d), overrides), list(must))
    return Case(id, area, key, lambda: build_doc(d), list(must))


def scheme_case(id: str, scheme: str, key: str, sets: dict[str, Any], must=()) -> Case:
    def run() -> None:
        path = packaged(SCHEME_BASE[scheme])
        d = edit(tomllib.loads(path.read_text()), {"duration": "1ms", **sets})
        d.pop("events", None)  # link changes later than 1 ms
        from corral.scenario import dumps

        build_text(dumps(d), source=str(path))

    return Case(id, "scheme." + scheme, key, run, list(must))


def sweep_case(id: str, key: str, text: str, must=()) -> Case:
    """A sweep file beside a copy of the packaged example dumbbell, loaded and resolved."""

    def run() -> None:
        from corral.sweep import load, resolve

        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "dumbbell.toml").write_text(packaged("examples/dumbbell.toml").read_text())
            path = Path(tmp) / "sweep.toml"
            path.write_text(text)
            resolve(load(path))

    return Case(id, "sweep", key, run, list(must))


def cases() -> list[Case]:
    F = doc(FAT)
    out: list[Case] = []

    def s(id, area, key, must=(), **kw):
        out.append(scenario_case(id, area, key, kw.pop("base", F), must, **kw))

    # --------------------------------------------------------------- top level
    s("duration-bare-number", "top", "duration", sets={"duration": 10})
    s("duration-negative", "top", "duration", sets={"duration": "-5ms"})
    s("duration-overflow", "top", "duration", sets={"duration": "1e300s"})
    s("duration-absurd", "top", "duration", sets={"duration": "1000000000s"})
    s("duration-missing", "top", "duration", unset=("duration",))
    s("duration-zero", "top", "duration", sets={"duration": "0s"})
    s("duration-no-unit", "top", "duration", sets={"duration": "10"})
    s("duration-wrong-type", "top", "duration", sets={"duration": True})
    s("seed-negative", "top", "seed", ["whole number"], sets={"seed": -1})
    s("seed-float", "top", "seed", ["whole number"], sets={"seed": 1.5})
    s("seed-string", "top", "seed", ["whole number"], sets={"seed": "one"})
    s("seed-too-big-for-toml", "top", "seed", base=FAT.replace("seed = 1", "seed = 99999999999999999999"))
    s("name-number", "top", "name", ["string"], sets={"name": 5})
    s("mode-typo", "top", "mode", ['"packet"', '"fluid"'], sets={"mode": "fluidd"})
    s("mode-number", "top", "mode", ['"packet"', '"fluid"'], sets={"mode": 1})
    s("topology-missing", "top", "topology", unset=("topology",))
    s("unknown-top-key", "top", "flow", ["flows"], sets={"flow": []})
    s("topology-as-string", "top", "topology", ["kind ="], sets={"topology": "fat_tree"})

    # --------------------------------------------------------------- topology
    T = "topology"
    s("k-odd", T, "topology.k", sets={"topology.k": 3})
    s("k-zero", T, "topology.k", sets={"topology.k": 0})
    s("k-negative", T, "topology.k", ["whole number"], sets={"topology.k": -4})
    s("k-string", T, "topology.k", ["whole number"], sets={"topology.k": "4"})
    s("k-float", T, "topology.k", ["whole number"], sets={"topology.k": 4.5})
    s("k-absurd", T, "topology.k", sets={"topology.k": 1000000})
    s("kind-missing", T, "topology.kind", unset=("topology.kind",))
    s("kind-number", T, "topology.kind", ["fat_tree"], sets={"topology.kind": 5})
    s("kind-typo", T, "topology.kind", ["fat_tree"], sets={"topology.kind": "fattree"})
    s("link-rate-bare", T, "topology.link_rate", sets={"topology.link_rate": 10})
    s("link-rate-zero", T, "topology.link_rate", sets={"topology.link_rate": "0Gbps"})
    s("link-rate-overflow", T, "topology.link_rate", sets={"topology.link_rate": "1e300Gbps"})
    s("link-rate-absurd", T, "topology.link_rate", sets={"topology.link_rate": "1000000Tbps"})
    s("link-rate-missing", T, "topology.link_rate", unset=("topology.link_rate",))
    s("link-rate-typo", T, "topology.link_rate", sets={"topology.link_rate": "1Gbs"})
    s("link-delay-negative", T, "topology.link_delay", sets={"topology.link_delay": "-1us"})
    s("link-delay-overflow", T, "topology.link_delay", sets={"topology.link_delay": "1e300s"})
    s("link-delay-absurd", T, "topology.link_delay", sets={"topology.link_delay": "1000000s"})
    s("topology-unknown-key", T, "topology.radix", ["k"], sets={"topology.radix": 4})
    dumbbell = {"kind": "dumbbell", "senders": 2, "receivers": 1, "link_rate": "1Gbps"}
    db = edit(F, {"topology": dumbbell, "flows": [{"src": "h0", "dst": "h2"}], "metrics": {}}, unset=("traffic",))
    s("dumbbell-senders-zero", T, "topology.senders", base=db, sets={"topology.senders": 0})
    s("dumbbell-receivers-negative", T, "topology.receivers", ["whole number"], base=db, sets={"topology.receivers": -1})
    s("dumbbell-bottleneck-rate", T, "topology.bottleneck_rate", base=db, sets={"topology.bottleneck_rate": "fast"})
    ls = {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2, "host_rate": "1Gbps", "fabric_rate": "1Gbps"}
    lsd = edit(db, {"topology": ls})
    s("leaf-spine-leaves-zero", T, "topology.leaves", base=lsd, sets={"topology.leaves": 0})
    s("leaf-spine-hosts-zero", T, "topology.hosts_per_leaf", base=lsd, sets={"topology.hosts_per_leaf": 0})
    s("leaf-spine-fabric-rate-missing", T, "topology.fabric_rate", base=lsd, unset=("topology.fabric_rate",))
    torus = {"kind": "torus", "dims": [2, 2], "link_rate": "1Gbps"}
    td = edit(db, {"topology": torus, "flows": [{"src": "h0", "dst": "h3"}]})
    s("torus-dims-one", T, "topology.dims", base=td, sets={"topology.dims": [1, 2]})
    s("torus-dims-four", T, "topology.dims", base=td, sets={"topology.dims": [2, 2, 2, 2]})
    s("torus-dims-string", T, "topology.dims", ["list"], base=td, sets={"topology.dims": "4x4"})
    s("torus-wrap-string", T, "topology.wrap", ["true or false"], base=td, sets={"topology.wrap": "yes"})
    tt = {
        "kind": "three_tier",
        "cores": 2,
        "aggs": 3,
        "edges": 4,
        "hosts_per_edge": 2,
        "host_rate": "1Gbps",
        "edge_rate": "1Gbps",
        "core_rate": "1Gbps",
    }
    s("three-tier-aggs-not-multiple", T, "topology.aggs", base=edit(db, {"topology": tt}))

    # --------------------------------------------------------------- switch
    S = "switch"
    s("buffer-negative", S, "switch.buffer", sets={"switch.buffer": "-5pkt"})
    s("buffer-fraction-packets", S, "switch.buffer", sets={"switch.buffer": "1.5pkt"})
    s("buffer-overflow", S, "switch.buffer", sets={"switch.buffer": "1e300B"})
    s("buffer-absurd", S, "switch.buffer", sets={"switch.buffer": "1000000000000pkt"})
    s("buffer-zero", S, "switch.buffer", sets={"switch.buffer": "0KB"})
    s("buffer-bool", S, "switch.buffer", sets={"switch.buffer": True})
    s("queue-typo", S, "switch.queue", ["taildrop", "red"], sets={"switch.queue": "fifo"})
    s("queue-number", S, "switch.queue", ["taildrop"], sets={"switch.queue": 3})
    s("ecn-threshold-garbage", S, "switch.ecn_threshold", sets={"switch.queue": "ecn", "switch.ecn_threshold": "abc"})
    s("red-max-p-above-one", S, "switch.red.max_p", sets={"switch.queue": "red", "switch.red": {"max_p": 2.0}})
    s("red-max-p-negative", S, "switch.red.max_p", sets={"switch.queue": "red", "switch.red": {"max_p": -0.1}})
    s("red-w-q-above-one", S, "switch.red.w_q", sets={"switch.queue": "red", "switch.red": {"w_q": 1.5}})
    s(
        "red-gentle-string",
        S,
        "switch.red.gentle",
        ["true or false"],
        sets={"switch.queue": "red", "switch.red": {"gentle": "yes"}},
    )
    s("red-mode-typo", S, "switch.red.mode", ['"drop"', '"mark"'], sets={"switch.queue": "red", "switch.red": {"mode": "marks"}})
    s("sfq-quantum-zero", S, "switch.sfq.quantum", sets={"switch.queue": "sfq", "switch.sfq": {"quantum": "0B"}})
    s("sfq-perturb-negative", S, "switch.sfq.perturb", sets={"switch.queue": "sfq", "switch.sfq": {"perturb": "-1s"}})
    s(
        "sfq-buckets-negative",
        S,
        "switch.sfq.buckets",
        ["whole number"],
        sets={"switch.queue": "sfq", "switch.sfq": {"buckets": -4}},
    )
    s("priority-classes-zero", S, "switch.priority.classes", sets={"switch.queue": "priority", "switch.priority": {"classes": 0}})
    s(
        "priority-class-typo",
        S,
        "switch.priority.class",
        ["taildrop"],
        sets={"switch.queue": "priority", "switch.priority": {"class": "ecm"}},
    )
    s("drr-key-typo", S, "switch.drr.key", ['"flow"', '"class"'], sets={"switch.queue": "drr", "switch.drr": {"key": "flows"}})
    s(
        "drr-weight-string",
        S,
        "switch.drr.weights",
        ["number"],
        sets={"switch.queue": "drr", "switch.drr": {"key": "class", "weights": {"a": "x"}}},
    )
    s(
        "drr-weight-zero",
        S,
        "switch.drr.weights",
        sets={"switch.queue": "drr", "switch.drr": {"key": "class", "weights": {"a": 0.0}}},
    )
    s("buffer-model-typo", S, "switch.buffer_model", ['"per_port"', '"shared"'], sets={"switch.buffer_model": "sharred"})
    s("backpressure-negative", S, "switch.backpressure", ["whole number"], sets={"switch.backpressure": -1})
    s(
        "alpha-nan",
        S,
        "switch.alpha",
        sets={"switch.buffer_model": "shared", "switch.shared_buffer": "1MB", "switch.alpha": float("nan")},
    )
    s("shared-buffer-absurd", S, "switch.shared_buffer", sets={"switch.buffer_model": "shared", "switch.shared_buffer": "1e300B"})
    s("switch-unknown-key", S, "switch.bufer", ["buffer"], sets={"switch.bufer": "16KB"})

    # --------------------------------------------------------------- host, network
    H = "host"
    s("host-buffer-zero", H, "host.buffer", sets={"host.buffer": "0pkt"})
    s("host-jitter-negative", H, "host.send_jitter", sets={"host.send_jitter": "-1us"})
    s("host-jitter-absurd", H, "host.send_jitter", sets={"host.send_jitter": "1000s"})
    s("host-small-queue-negative", H, "host.small_queue", ["whole number"], sets={"host.small_queue": -1})
    s("host-small-queue-float", H, "host.small_queue", ["whole number"], sets={"host.small_queue": 1.5})
    s("host-scheduler-typo", H, "host.scheduler", ['"round_robin"', '"fair"'], sets={"host.scheduler": "rr"})
    s("host-scheduler-number", H, "host.scheduler", ['"round_robin"', '"fair"'], sets={"host.scheduler": 1})
    s("clock-ppm-negative", "network", "network.clock_ppm", sets={"network.clock_ppm": -5.0})
    s("clock-ppm-string", "network", "network.clock_ppm", ["number"], sets={"network.clock_ppm": "10"})
    s("clock-ppm-absurd", "network", "network.clock_ppm", sets={"network.clock_ppm": 1e6})

    # --------------------------------------------------------------- transport
    X = "transport"
    s("cc-typo", X, "transport.cc", ["newreno", "cubic"], sets={"transport.cc": "bbr2"})
    s("cc-number", X, "transport.cc", ["newreno"], sets={"transport.cc": 5})
    s("cc-dctcp-g-above-one", X, "transport.cc.g", sets={"transport.cc": {"kind": "dctcp", "g": 2.0}, "transport.ecn": True})
    s("cc-cubic-beta-above-one", X, "transport.cc.beta", sets={"transport.cc": {"kind": "cubic", "beta": 1.5}})
    s("cc-cubic-unknown-key", X, "transport.cc.bta", ["beta"], sets={"transport.cc": {"kind": "cubic", "bta": 0.5}})
    s("cc-table-without-kind", X, "transport.cc.kind", ["newreno"], sets={"transport.cc": {"g": 0.1}})
    s("cc-bbr-gain-string", X, "transport.cc.cwnd_gain", ["number"], sets={"transport.cc": {"kind": "bbr", "cwnd_gain": "2"}})
    s("cc-bbr-rounds-zero", X, "transport.cc.bw_rounds", sets={"transport.cc": {"kind": "bbr", "bw_rounds": 0}})
    s(
        "cc-bbr-extra-acked-negative",
        X,
        "transport.cc.extra_acked_gain",
        sets={"transport.cc": {"kind": "bbr", "extra_acked_gain": -1.0}},
    )
    s(
        "cc-bbr-quantum-typo",
        X,
        "transport.cc.quantum",
        ["tso", "segment"],
        sets={"transport.cc": {"kind": "bbr", "quantum": "tsoo"}},
    )
    s("cc-setting-on-a-name", X, "transport.cc", ["kind ="], overrides=["transport.cc.beta=0.5"])
    s("mss-zero", X, "transport.mss", sets={"transport.mss": 0})
    s("mss-with-unit", X, "transport.mss", ["whole number"], sets={"transport.mss": "1460B"})
    s("mss-negative", X, "transport.mss", ["whole number"], sets={"transport.mss": -1})
    s("mss-too-big-for-32-bits", X, "transport.mss", sets={"transport.mss": 5_000_000_000})
    s("header-negative", X, "transport.header", ["whole number"], sets={"transport.header": -1})
    s("header-absurd", X, "transport.header", sets={"transport.header": 1_000_000})
    s("initial-window-zero", X, "transport.initial_window", sets={"transport.initial_window": 0})
    s("initial-window-overflow", X, "transport.initial_window", sets={"transport.initial_window": 4294967296})
    s("min-rto-zero", X, "transport.min_rto", sets={"transport.min_rto": "0s"})
    s("min-rto-bare", X, "transport.min_rto", sets={"transport.min_rto": 200})
    s("max-rto-below-min", X, "transport.max_rto", sets={"transport.max_rto": "1ms", "transport.min_rto": "10ms"})
    s("receive-window-zero", X, "transport.receive_window", sets={"transport.receive_window": 0})
    s("receive-window-negative", X, "transport.receive_window", ["whole number"], sets={"transport.receive_window": -1})
    s("receive-window-below-mss", X, "transport.receive_window", sets={"transport.receive_window": 100})
    s("receive-window-float", X, "transport.receive_window", sets={"transport.receive_window": 1.5})
    s("delayed-ack-zero", X, "transport.delayed_ack", sets={"transport.delayed_ack": 0})
    s("dupthresh-zero", X, "transport.dupthresh", sets={"transport.dupthresh": 0})
    s("pacing-gain-zero", X, "transport.pacing_gain", sets={"transport.pacing_gain": 0.0})
    s("pacing-gain-string", X, "transport.pacing_gain", ["number"], sets={"transport.pacing_gain": "fast"})
    s("ecn-string", X, "transport.ecn", ["true or false"], sets={"transport.ecn": "true"})
    s("recovery-typo", X, "transport.recovery", ['"prr"', '"classic"'], sets={"transport.recovery": "prrr"})
    s("recovery-number", X, "transport.recovery", ['"prr"', '"classic"'], sets={"transport.recovery": 1})
    s("ssthresh-typo", X, "transport.ssthresh", ['"flight"', '"pipe"'], sets={"transport.ssthresh": "cwnd"})
    s("tlp-slack-negative", X, "transport.tlp_slack", sets={"transport.tlp_slack": "-1ms"})
    s("sack-number", X, "transport.sack", ["true or false"], sets={"transport.sack": 1})
    s("dctcp-without-ecn", X, "transport.ecn", sets={"transport.cc": "dctcp"})
    s("transport-unknown-key", X, "transport.ccc", ["cc"], sets={"transport.ccc": "cubic"})
    s("min-rto-absurd", X, "transport.min_rto", sets={"transport.min_rto": "100000000s"})

    # --------------------------------------------------------------- control, metrics
    C = "control"
    s("control-mode-typo", C, "control.mode", ['"inband"', '"out_of_band"'], sets={"control.mode": "oob"})
    s("control-delay-negative", C, "control.delay", sets={"control.delay": "-1s"})
    s("control-priority-negative", C, "control.priority", ["whole number"], sets={"control.priority": -1})
    s("control-priority-too-big", C, "control.priority", sets={"control.priority": 300})
    M = "metrics"
    s("interval-zero", M, "metrics.interval", sets={"metrics.interval": "0s"})
    s("interval-bare", M, "metrics.interval", sets={"metrics.interval": 5})
    s("queue-interval-zero", M, "metrics.queue_interval", sets={"metrics.queue_interval": "0s"})
    s("queue-ports-string", M, "metrics.queue_ports", ["list"], sets={"metrics.queue_ports": "tor0:0"})
    s("queue-ports-no-port", M, "metrics.queue_ports", sets={"metrics.queue_ports": ["tor0"]})
    s("record-drops-string", M, "metrics.record_drops", ["true or false"], sets={"metrics.record_drops": "yes"})
    s("latency-every-negative", M, "metrics.latency_sample_every", ["whole number"], sets={"metrics.latency_sample_every": -1})
    s("size-buckets-zero", M, "metrics.size_buckets", sets={"metrics.size_buckets": ["0B"]})
    s("metrics-unknown-key", M, "metrics.queue_port", ["queue_ports"], sets={"metrics.queue_port": ["tor0:0"]})

    # --------------------------------------------------------------- flows
    L = "flows"
    s("flow-src-missing", L, "flows.0.src", unset=("flows.0.src",))
    s("flow-pattern-typo", L, "flows.0.pattern", ['"permutation"'], sets={"flows.0": {"pattern": "perm"}})
    s("flow-size-negative", L, "flows.0.size", sets={"flows.0.size": "-1MB"})
    s("flow-size-zero", L, "flows.0.size", sets={"flows.0.size": 0})
    s("flow-size-float", L, "flows.0.size", sets={"flows.0.size": 1.5})
    s("flow-size-overflow", L, "flows.0.size", sets={"flows.0.size": "1e300B"})
    s("flow-start-negative", L, "flows.0.start", sets={"flows.0.start": "-1ms"})
    s("flow-start-after-end", L, "flows.0.start", sets={"flows.0.start": "1s"})
    s("flow-jitter-garbage", L, "flows.0.jitter", sets={"flows.0.jitter": "x"})
    s("flow-count-zero", L, "flows.0.count", sets={"flows.0.count": 0})
    s("flow-count-negative", L, "flows.0.count", ["whole number"], sets={"flows.0.count": -1})
    s("flow-count-absurd", L, "flows.0.count", sets={"flows.0.count": 4_000_000_000})
    s("flow-priority-too-big", L, "flows.0.priority", sets={"flows.0.priority": 256})
    s("flow-priority-negative", L, "flows.0.priority", ["whole number"], sets={"flows.0.priority": -1})
    s("flow-weight-zero", L, "flows.0.weight", sets={"flows.0.weight": 0.0})
    s("flow-weight-string", L, "flows.0.weight", ["number"], sets={"flows.0.weight": "heavy"})
    s("flow-routing-typo", L, "flows.0.routing", ["ecmp"], sets={"flows.0.routing": "ecmpp"})
    s("flow-transport-scheme-without-scheme", L, "flows.0.transport", sets={"flows.0.transport": "scheme"})
    s("flow-transport-typo", L, "flows.0.transport", ["newreno"], sets={"flows.0.transport": "bbr2"})
    s("flow-tenant-number", L, "flows.0.tenant", ["string"], sets={"flows.0.tenant": 5})
    s("flows-as-table", L, "flows", ["[[flows]]"], sets={"flows": {"src": "h1", "dst": "h0"}})
    s("flow-deadline-negative", L, "flows.0.deadline", sets={"flows.0.deadline": "-1ms"})
    s("flow-unknown-key", L, "flows.0.sizes", ["size"], sets={"flows.0.sizes": "1MB"})
    s("flow-dst-unknown-host", L, "flows.0.dst", sets={"flows.0.dst": "h99"})

    # --------------------------------------------------------------- traffic
    W = "traffic"
    s("traffic-pattern-missing", W, "traffic.0.pattern", unset=("traffic.0.pattern",))
    s("traffic-pattern-typo", W, "traffic.0.pattern", ["all_to_all"], sets={"traffic.0.pattern": "all2all"})
    s("traffic-cdf-number", W, "traffic.0.size.cdf", sets={"traffic.0.size": {"cdf": 5}})
    s(
        "traffic-uniform-min-above-max",
        W,
        "traffic.0.size",
        sets={"traffic.0.size": {"kind": "uniform", "min": "10KB", "max": "1KB"}},
    )
    s("traffic-fixed-zero", W, "traffic.0.size", sets={"traffic.0.size": {"kind": "fixed", "size": "0B"}})
    s(
        "traffic-size-kind-typo",
        W,
        "traffic.0.size.kind",
        ["uniform"],
        sets={"traffic.0.size": {"kind": "uniformm", "min": "1KB", "max": "2KB"}},
    )
    s("traffic-load-zero", W, "traffic.0.load", sets={"traffic.0.load": 0.0})
    s("traffic-load-percent-string", W, "traffic.0.load", ["number"], sets={"traffic.0.load": "50%"})
    s("traffic-rate-zero", W, "traffic.0.rate", sets={"traffic.0.rate": 0.0}, unset=("traffic.0.load",))
    s("traffic-rate-negative", W, "traffic.0.rate", sets={"traffic.0.rate": -5.0}, unset=("traffic.0.load",))
    s("traffic-rate-overflow", W, "traffic.0.rate", sets={"traffic.0.rate": 1e300}, unset=("traffic.0.load",))
    s("traffic-start-after-stop", W, "traffic.0.stop", sets={"traffic.0.start": "5ms", "traffic.0.stop": "2ms"})
    s("traffic-stop-negative", W, "traffic.0.stop", sets={"traffic.0.stop": "-1s"})
    s("traffic-max-flows-zero", W, "traffic.0.max_flows", sets={"traffic.0.max_flows": 0})
    s(
        "traffic-deadline-mean-zero",
        W,
        "traffic.0.deadline.mean",
        sets={"traffic.0.deadline": {"kind": "exponential", "mean": "0s"}},
    )
    s("traffic-load-basis-typo", W, "traffic.0.load_basis", ['"size"', '"run"'], sets={"traffic.0.load_basis": "sizes"})
    s("traffic-stream-negative", W, "traffic.0.stream", ["whole number"], sets={"traffic.0.stream": -1})
    s("traffic-weight-zero", W, "traffic.0.weight", sets={"traffic.0.weight": 0.0})
    s("traffic-hosts-empty", W, "traffic.0.hosts", sets={"traffic.0.hosts": []})
    s(
        "traffic-trace-without-file",
        W,
        "traffic.0.file",
        sets={"traffic.0.pattern": "trace"},
        unset=("traffic.0.load", "traffic.0.size"),
    )
    s("traffic-many-to-one-without-dst", W, "traffic.0.dst", sets={"traffic.0.pattern": "many_to_one"})
    s(
        "traffic-incast-interval-zero",
        W,
        "traffic.0.interval",
        sets={"traffic.0.pattern": "incast", "traffic.0.senders": 2, "traffic.0.interval": "0s"},
        unset=("traffic.0.load",),
    )
    s("traffic-incast-senders-zero", W, "traffic.0.senders", sets={"traffic.0.pattern": "incast", "traffic.0.senders": 0})
    s("traffic-size-as-string", W, "traffic.0.size", sets={"traffic.0.size": "websearch"})
    s("traffic-unknown-key", W, "traffic.0.lod", ["load"], sets={"traffic.0.lod": 0.5})

    # --------------------------------------------------------------- rpc
    R = "rpc"
    rp = edit(F, {"rpc": doc(RPC)["rpc"]})
    s("rpc-pairs-zero", R, "rpc.0.pairs", base=rp, sets={"rpc.0.pairs": 0})
    s("rpc-pairs-negative", R, "rpc.0.pairs", ["whole number"], base=rp, sets={"rpc.0.pairs": -1})
    s("rpc-request-zero", R, "rpc.0.request", base=rp, sets={"rpc.0.request": "0B"})
    s("rpc-think-negative", R, "rpc.0.think", base=rp, sets={"rpc.0.think": "-1ms"})
    s("rpc-think-normal-without-std", R, "rpc.0.think.std", base=rp, sets={"rpc.0.think": {"kind": "normal", "mean": "1ms"}})
    s("rpc-servers-unknown-host", R, "rpc.0.servers", base=rp, sets={"rpc.0.servers": ["h99"]})
    s("rpc-start-after-end", R, "rpc.0.start", base=rp, sets={"rpc.0.start": "1s"})
    s("rpc-pairs-missing", R, "rpc.0.pairs", base=rp, unset=("rpc.0.pairs",))

    # --------------------------------------------------------------- routing
    O = "routing"
    s("routing-kind-typo", O, "routing.kind", ["ecmp"], sets={"routing.kind": "ecmpp"})
    s("routing-flowcell-zero", O, "routing.flowcell_bytes", sets={"routing": {"kind": "flowcell", "flowcell_bytes": "0B"}})
    s("routing-source-routes-string", O, "routing.source_routes", ["true or false"], sets={"routing.source_routes": "yes"})
    s("routing-as-number", O, "routing", sets={"routing": 5})
    s(
        "routing-equal-length-core-typo",
        O,
        "routing.core",
        ['"random"', '"dest_bits"'],
        sets={"routing": {"kind": "equal_length", "core": "bits"}},
    )
    s("routing-unknown-key", O, "routing.knd", ["kind"], sets={"routing": {"knd": "ecmp"}})

    # --------------------------------------------------------------- events
    E = "events"
    ev = edit(F, {"events": doc(EVENT)["events"]})
    s("event-at-negative", E, "events.0.at", base=ev, sets={"events.0.at": "-1ms"})
    s("event-at-after-end", E, "events.0.at", base=ev, sets={"events.0.at": "1s"})
    s("event-unknown-port", E, "events.0.link", base=ev, sets={"events.0.link": "tor0:99"})
    s("event-rate-zero", E, "events.0.rate", base=ev, sets={"events.0.rate": "0Gbps"})
    s(
        "event-state-typo",
        E,
        "events.0.state",
        ['"down"', '"up"'],
        base=ev,
        sets={"events.0.state": "off"},
        unset=("events.0.rate",),
    )
    s(
        "event-detect-negative",
        E,
        "events.0.detect",
        base=ev,
        sets={"events.0.state": "down", "events.0.detect": "-1s"},
        unset=("events.0.rate",),
    )
    s("event-neither-rate-nor-state", E, "events.0", base=ev, unset=("events.0.rate",))

    # --------------------------------------------------------------- schemes
    def sc(id, scheme, key, sets, must=()):
        out.append(scheme_case(id, scheme, key, sets, must))

    sc("scheme-kind-typo", "ideal", "scheme.kind", {"scheme.kind": "idael"}, ["ideal"])
    sc("ideal-mode-typo", "ideal", "scheme.mode", {"scheme.mode": "instantt"}, ['"instant"', '"periodic"'])
    sc("ideal-period-zero", "ideal", "scheme.period", {"scheme.mode": "periodic", "scheme.period": "0s"})
    sc("ideal-headroom-one", "ideal", "scheme.headroom", {"scheme.headroom": 1.0})
    sc("ideal-delay-negative", "ideal", "scheme.delay", {"scheme.delay": "-1s"})
    sc("ideal-controller-unknown", "ideal", "scheme.controller", {"scheme.mode": "periodic", "scheme.controller": "sw999"})
    sc("ideal-first-rate-typo", "ideal", "scheme.first_rate", {"scheme.first_rate": "fast"}, ['"line"', '"window"'])
    sc("ideal-report-header-negative", "ideal", "scheme.report_header", {"scheme.report_header": -1}, ["whole number"])
    sc("hcc-parent-cycle-overflow", "hcc", "scheme.parent_cycle", {"scheme.parent_cycle": 1e300})
    sc("hcc-child-cycle-zero", "hcc", "scheme.child_cycle", {"scheme.child_cycle": 0.0})
    sc("hcc-min-cycle-zero", "hcc", "scheme.min_cycle", {"scheme.min_cycle": "0s"})
    sc("hcc-headroom-two", "hcc", "scheme.headroom", {"scheme.headroom": 2.0})
    sc("hcc-bins-negative", "hcc", "scheme.bins", {"scheme.bins": -1}, ["whole number"])
    sc("hcc-prune-negative", "hcc", "scheme.prune", {"scheme.prune": -1.0})
    sc("hcc-levels-zero", "hcc", "scheme.levels", {"scheme.levels": 0})
    sc("hcc-phase-typo", "hcc", "scheme.phase", {"scheme.phase": "middle"}, ['"spread"', '"uniform"'])
    sc("hcc-refit-absurd", "hcc", "scheme.refit", {"scheme.refit": "1e300s"})
    sc("r2c2-interval-zero", "r2c2", "scheme.interval", {"scheme.interval": "0s"})
    sc("r2c2-trees-zero", "r2c2", "scheme.trees", {"scheme.trees": 0})
    sc("r2c2-demand-ewma-two", "r2c2", "scheme.demand_ewma", {"scheme.demand_ewma": 2.0})
    sc("r2c2-control-typo", "r2c2", "scheme.control", {"scheme.control": "central"}, ['"broadcast"', '"centralized"'])
    sc("r2c2-ga-mutation-two", "r2c2", "scheme.ga_mutation", {"scheme.ga_mutation": 2.0})
    sc("r2c2-rate-messages-typo", "r2c2", "scheme.rate_messages", {"scheme.rate_messages": "all"}, ['"per_node"', '"changed"'])
    sc("rackcc-g-zero", "rackcc", "scheme.g", {"scheme.g": 0.0})
    sc("rackcc-period-zero", "rackcc", "scheme.period", {"scheme.period": "0s"})
    sc("rackcc-sending-typo", "rackcc", "scheme.sending", {"scheme.sending": "windows"}, ['"rate"', '"window"'])
    sc("rackcc-jumboflows-zero", "rackcc", "scheme.jumboflows", {"scheme.jumboflows": 0})
    sc("rackcc-d-floor-two", "rackcc", "scheme.d_floor", {"scheme.d_floor": 2.0})
    sc("scc-weight-unknown-tenant", "scc", "scheme.weights", {"scheme.weights": {"a/CS": 2.0, "zz/CS": 1.0}}, ["zz"])
    sc("scc-weight-bad-class", "scc", "scheme.weights", {"scheme.weights": {"a/XX": 2.0}})
    sc("scc-weight-negative", "scc", "scheme.weights", {"scheme.weights": {"a/CS": -1.0}})
    sc("scc-epsilon-negative", "scc", "scheme.epsilon", {"scheme.epsilon": -1.0})
    sc("scc-ucc-typo", "scc", "scheme.ucc", {"scheme.ucc": "papr"}, ['"paper"', '"literal"'])
    sc("scc-fifo-typo", "scc", "scheme.fifo", {"scheme.fifo": "fifo"}, ['"queue"', '"equal_shares"'])
    sc("scc-slot-zero", "scc", "scheme.slot", {"scheme.slot": "0s"})
    sc("scc-cut-every-negative", "scc", "scheme.cut_every", {"scheme.cut_every": -1.0})
    sc("scc-cc-typo", "scc", "scheme.cc", {"scheme.cc": {"LS": "dctpc"}}, ["dctcp"])
    sc("scheme-unknown-key", "ideal", "scheme.headrom", {"scheme.headrom": 0.1}, ["headroom"])

    # --------------------------------------------------------------- --set overrides
    def ov(id, key, overrides, must=()):
        out.append(Case(id, "override", key, lambda: build_text(FAT, overrides), list(must)))

    ov("override-without-equals", "topology.k", ["topology.k"])
    ov("override-unknown-key", "topology.kk", ["topology.kk=4"], ["k"])
    ov("override-list-index-word", "flows", ["flows.x.size=1MB"])
    ov("override-index-out-of-range", "flows", ["flows.9.size=1MB"])
    ov("override-empty-key", "key", ["=4"])
    ov("override-bad-value", "topology.k", ["topology.k=abc"], ["whole number"])
    ov("override-empty-value", "duration", ["duration="])
    ov("override-into-a-value", "topology.k", ["topology.k.x=1"])

    # --------------------------------------------------------------- sweep files
    W2 = 'scenario = "dumbbell.toml"\n'
    sw = lambda id, key, text, must=(): out.append(sweep_case(id, key, text, must))  # noqa: E731
    sw("sweep-scenario-missing", "scenario", "seeds = 2\n")
    sw("sweep-scenario-not-found", "scenario", 'scenario = "nope.toml"\n')
    sw("sweep-scenario-number", "scenario", "scenario = 5\n")
    sw("sweep-grid-not-list", "grid", W2 + '[grid]\n"transport.cc" = "cubic"\n')
    sw("sweep-zip-unequal", "zip", W2 + '[[zip]]\n"transport.cc" = ["cubic", "newreno"]\n"transport.ecn" = [false]\n')
    sw("sweep-seeds-zero", "seeds", W2 + "seeds = 0\n")
    sw("sweep-seeds-negative", "seeds", W2 + "seeds = [-1]\n")
    sw("sweep-unknown-top-key", "grids", W2 + '[grids]\n"transport.cc" = ["cubic"]\n', ["grid"])
    sw("sweep-grid-unknown-key", "transport.ccc", W2 + '[grid]\n"transport.ccc" = ["cubic"]\n', ["cc"])
    sw("sweep-set-bad-value", "transport.mss", W2 + '[set]\n"transport.mss" = 0\n')
    sw("sweep-plots-string", "plots", W2 + 'plots = "yes"\n')
    sw("sweep-grid-empty-list", "grid", W2 + '[grid]\n"transport.cc" = []\n')
    sw("sweep-grid-bad-enum", "transport.recovery", W2 + '[grid]\n"transport.recovery" = ["prr", "clasic"]\n', ['"classic"'])

    # --------------------------------------------------------------- the Python Scenario API
    def api(id, key, fn, must=()):
        out.append(Case(id, "api", key, fn, list(must)))

    def scenario():
        import corral

        return corral.Scenario.from_toml(FAT)

    api("set-misspelt-key", "transport.ccc", lambda: scenario().set("transport.ccc", "cubic"), ["did you mean", "cc"])
    api("set-misspelt-table", "topolgy", lambda: scenario().set("topolgy.k", 8), ["topology"])
    api(
        "set-misspelt-nested",
        "switch.red.maxp",
        lambda: scenario().set("switch.queue", "red").set("switch.red.maxp", 0.1),
        ["max_p"],
    )
    api("set-index-out-of-range", "flows", lambda: scenario().set("flows.5.size", "1MB"))
    api("to-toml-integer-too-big", "seed", lambda: scenario().set("seed", 2**64).to_toml())
    api("to-toml-negative-too-big", "topology.k", lambda: scenario().set("topology.k", -(2**70)).to_toml())
    return out


# ------------------------------------------------------------------------ the census

CLEAN, UNCLEAR, CRASH, ACCEPTED = "clean", "unclear", "crash", "accepted"


def normalize(message: str) -> str:
    """`flows[0].src[1]` -> `flows.0.src.1`, so either spelling of list indices matches."""
    return re.sub(r"\[(\d+)\]", r".\1", message)


def judge(case: Case) -> tuple[str, str]:
    """(heap, message) for one case."""
    from corral import ScenarioError
    from corral.sweep import SweepError

    try:
        case.run()
    except (ScenarioError, SweepError) as e:
        return verdict(case, str(e)), str(e)
    except BaseException as e:  # a panic (pyo3 PanicException), a TypeError, an OverflowError...
        if isinstance(e, KeyboardInterrupt):
            raise
        return CRASH, f"{type(e).__name__}: {e}"
    return ACCEPTED, ""


def verdict(case: Case, message: str) -> str:
    m = normalize(message)
    if case.key.lower() not in m.lower() or RUST_WORDS.search(m):
        return UNCLEAR
    if any(part.lower() not in m.lower() for part in case.must):
        return UNCLEAR
    return CLEAN


def census(show: bool = True) -> dict[str, int]:
    counts = {CLEAN: 0, UNCLEAR: 0, CRASH: 0, ACCEPTED: 0}
    for case in cases():
        heap, message = judge(case)
        counts[heap] += 1
        if show:
            print(f"{heap:9} {case.area:14} {case.id:40} {message[:200]!r}")
    return counts


if __name__ == "__main__":
    counts = census(show="-q" not in sys.argv)
    print(f"{sum(counts.values())} bad inputs: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
