"""The arena's cells: which contender runs which workload on which network, as scenario text.

A cell is (contender, network, workload, load); each runs once per seed. The scenario of a
cell is built here as TOML text from three independent parts, so that every contender sees
the same network and the same flows (each `[[traffic]]` block draws from its own random
streams, seeded by the run's seed):

- **Networks** (`networks`): a k=8 fat-tree (full bisection), a 3:1 oversubscribed
  leaf-spine, HCC's three-tier tree (one core, two aggregation switches, 8 edges of 8 hosts)
  and R2C2's 3D torus (8x8x8). `--quick` shrinks each (k=4; 4 leaves of 6 hosts on 2 spines,
  still 3:1; 4 edges of 4 hosts; 4x4x4). Every link is 10 Gbps; tree links have 1 us of
  delay, torus links R2C2's 100 ns. Our choices where the papers differ: HCC's tree runs at
  one rate and delay on every tier (the paper's tiers differ, 50/10 Gbps, 1-100 us) and the
  torus's hosts inject at the link rate (R2C2's at 40 Gbps), so that a load means the same
  on every network. On the oversubscribed networks (leaf-spine, three-tier) the load is of
  the bottleneck tier (`load_links`: the leaf uplinks, the aggregation-to-core links), else
  of the hosts' access links: an all-to-all load of 90 % of the access links would offer the
  3:1 fabric 270 % and nothing would be measured but the overload.
- **Contenders** (`contender_tables`): a TCP controller runs every flow under
  `transport.cc`; a scheme puts every flow under `[scheme]`. Settings derived from the
  network, stated where they are made: pFabric's initial window (one BDP), minimum RTO
  (3 RTTs) and buffer (2 BDPs) from the network's largest unloaded RTT, as its paper runs
  it; HCC's `levels` (agents on the up-going ports of a path: 3 on the fat-tree and the
  three-tier tree, 2 on the leaf-spine and on the torus, which has no up: the host's NIC and
  its node's first torus hop);
  R2C2 on the torus routes as its paper does (RPS with source routes). A design's own
  `check` decides where it applies: the scenario is built, and a `ScenarioError` makes the
  cell "n/a" with that message as its reason (`run.resolve_cells`).
- **Workloads** (`workloads`): web-search, data-mining and Hadoop flow-size CDFs under
  Poisson all-to-all traffic at loads 30/50/70/90 %; incast (fan-in 16 and 64 of 64 KB
  responses, with background web-search at 50 %); closed-loop RPCs; a permutation of long
  (unbounded) flows. Open-loop arrivals stop at 3/4 of the run so that flows can finish.

Every switch port buffers 300 packets and marks ECN-capable packets above 65 (DCTCP's K at
10 Gbps); controllers that do not use ECN send non-ECT packets, so for them it is taildrop.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..sweep.spec import toml_value

# The contenders run unless `--contender` names others: the baselines, HPCC
# (in-network telemetry) and Swift (delay), the reference and the four cooperative schemes.
DEFAULT_CONTENDERS = (
    "newreno",
    "cubic",
    "dctcp",
    "d2tcp",
    "l2dct",
    "pfabric",
    "hpcc",
    "swift",
    "ideal",
    "r2c2",
    "hcc",
    "rackcc",
    "scc",
)
REFERENCE = "ideal"
# Controllers that react to ECN marks (their packets are ECN-capable).
ECN_CONTROLLERS = frozenset({"dctcp", "d2tcp", "l2dct"})
# Schemes whose rate law reads DCTCP-style ECN marks (their flows' base TCP echoes them).
ECN_SCHEMES = frozenset({"rackcc", "scc"})

LINK_RATE_BPS = 10e9
BUFFER = "300pkt"
ECN_K = "65pkt"
MIN_RTO = "1ms"
MTU_BYTES = 1500
LOADS = (0.3, 0.5, 0.7, 0.9)
QUICK_LOADS = (0.3, 0.7)
# How long a run lasts (seconds) by workload family, full and quick; open-loop arrivals stop
# at ARRIVAL_SHARE of it.
DURATION_S = {"poisson": 0.2, "incast": 0.1, "rpc": 0.05, "permutation": 0.02}
QUICK_DURATION_S = {"poisson": 0.03, "incast": 0.03, "rpc": 0.01, "permutation": 0.01}
ARRIVAL_SHARE = 0.75
SEEDS = 3
QUICK_SEEDS = 1


class ArenaError(ValueError):
    """The arena was asked for something it cannot do (an unknown contender, ...)."""


@dataclass(frozen=True)
class Network:
    """A topology and what the arena needs to know about it."""

    name: str
    topology: dict[str, Any]
    hosts: int
    rtt_s: float  # largest unloaded round trip (propagation only), for pFabric's settings
    hcc_levels: int
    load_links: tuple[str, ...] = ()  # empty: loads are of the access links
    # with load_links: the share of all-to-all bytes that crosses them, and their capacity
    crossing: float = 1.0
    bottleneck_bps: float = 0.0
    queue_ports: tuple[str, ...] = ()  # bottleneck ports whose queues are sampled
    routing: dict[str, Any] = field(default_factory=lambda: {"kind": "ecmp"})

    @property
    def load_capacity_bps(self) -> float:
        """Capacity the loads refer to (all access links, or the bottleneck tier)."""
        return self.bottleneck_bps if self.load_links else self.hosts * LINK_RATE_BPS


def fat_tree(k: int) -> Network:
    hosts = k**3 // 4
    # receiver downlinks of the first ToRs (host ports 0..k/2-1)
    ports = tuple(f"tor{t}:{p}" for t in range(min(4, k * k // 2)) for p in range(k // 2))
    return Network(
        "fat_tree",
        {"kind": "fat_tree", "k": k, "link_rate": "10Gbps", "link_delay": "1us"},
        hosts,
        rtt_s=2 * 6 * 1e-6,
        hcc_levels=3,
        queue_ports=ports,
    )


def leaf_spine(leaves: int, spines: int, hosts_per_leaf: int) -> Network:
    assert hosts_per_leaf == 3 * spines, "the arena's leaf-spine is 3:1"
    hosts = leaves * hosts_per_leaf
    uplinks = tuple(f"leaf*:{hosts_per_leaf + s}" for s in range(spines))
    return Network(
        "leaf_spine_3to1",
        {
            "kind": "leaf_spine",
            "leaves": leaves,
            "spines": spines,
            "hosts_per_leaf": hosts_per_leaf,
            "host_rate": "10Gbps",
            "fabric_rate": "10Gbps",
            "host_delay": "1us",
            "fabric_delay": "1us",
        },
        hosts,
        rtt_s=2 * 4 * 1e-6,
        hcc_levels=2,
        load_links=uplinks,
        crossing=(hosts - hosts_per_leaf) / (hosts - 1),
        bottleneck_bps=leaves * spines * LINK_RATE_BPS,
        queue_ports=tuple(f"leaf{l}:{hosts_per_leaf + s}" for l in range(leaves) for s in range(spines)),
    )


def three_tier(edges: int, hosts_per_edge: int) -> Network:
    aggs = 2  # HCC's tree: one core, two aggregation switches (one per pod)
    hosts = edges * hosts_per_edge
    edges_per_pod = edges // aggs
    return Network(
        "three_tier",
        {
            "kind": "three_tier",
            "cores": 1,
            "aggs": aggs,
            "aggs_per_pod": 1,
            "edges": edges,
            "hosts_per_edge": hosts_per_edge,
            "host_rate": "10Gbps",
            "edge_rate": "10Gbps",
            "core_rate": "10Gbps",
            "host_delay": "1us",
            "edge_delay": "1us",
            "core_delay": "1us",
        },
        hosts,
        rtt_s=2 * 6 * 1e-6,
        hcc_levels=3,
        load_links=(f"agg*:{edges_per_pod}",),
        crossing=(hosts / 2) / (hosts - 1),
        bottleneck_bps=aggs * LINK_RATE_BPS,
        queue_ports=tuple(f"agg{a}:{edges_per_pod}" for a in range(aggs)) + ("core0:0", "core0:1"),
    )


def torus(side: int) -> Network:
    hosts = side**3
    diameter = 3 * (side // 2)
    return Network(
        "torus3d",
        {
            "kind": "torus",
            "dims": [side, side, side],
            "link_rate": "10Gbps",
            "link_delay": "100ns",
            "host_rate": "10Gbps",
            "host_delay": "100ns",
        },
        hosts,
        rtt_s=2 * (diameter + 2) * 100e-9,
        hcc_levels=2,
        queue_ports=tuple(f"sw{i}:0" for i in range(16)),  # receiver downlinks of 16 nodes
    )


def networks(quick: bool) -> list[Network]:
    if quick:
        return [fat_tree(4), leaf_spine(4, 2, 6), three_tier(4, 4), torus(4)]
    return [fat_tree(8), leaf_spine(8, 4, 12), three_tier(8, 8), torus(8)]


@dataclass(frozen=True)
class Workload:
    """A traffic pattern; `loads` are its offered loads (None: closed loop or long flows)."""

    name: str
    family: str  # poisson | incast | rpc | permutation
    loads: tuple[float | None, ...]
    cdf: str = ""
    fan_in: int = 0


def workloads(quick: bool) -> list[Workload]:
    loads = QUICK_LOADS if quick else LOADS
    out = [
        Workload(name, "poisson", loads, cdf=cdf)
        for name, cdf in (("websearch", "websearch"), ("datamining", "datamining"), ("hadoop", "fb_hadoop"))
    ]
    out += [Workload(f"incast{f}", "incast", (0.5,), cdf="websearch", fan_in=f) for f in ((8,) if quick else (16, 64))]
    out += [Workload("rpc", "rpc", (None,)), Workload("permutation", "permutation", (None,))]
    return out


# Incast: 64 KB responses, requests at 5 % of the access links' capacity.
INCAST_RESPONSE = "64KB"
INCAST_LOAD = 0.05
# Closed-loop RPC sessions (half the hosts are clients): 1 KB requests, exponential responses
# of mean 64 KB, exponential think time of mean 50 us.
RPC = {"request": "1KB", "response": {"kind": "exponential", "mean": "64KB"}, "think": {"kind": "exponential", "mean": "50us"}}


def traffic_tables(workload: Workload, net: Network, load: float | None, duration_s: float) -> dict[str, Any]:
    """The `[[traffic]]`, `[[rpc]]` or `[[flows]]` blocks of a workload on a network."""
    stop = f"{duration_s * ARRIVAL_SHARE * 1e6:.0f}us"

    def poisson(cdf: str, load: float) -> dict[str, Any]:
        block = {"pattern": "all_to_all", "size": {"cdf": cdf}, "load": load, "stop": stop, "class": cdf}
        if net.load_links:
            block["load_links"] = list(net.load_links)
        return block

    if workload.family == "poisson":
        return {"traffic": [poisson(workload.cdf, load)]}
    if workload.family == "incast":
        incast = {
            "pattern": "incast",
            "senders": workload.fan_in,
            "size": INCAST_RESPONSE,
            "load": INCAST_LOAD,
            "stop": stop,
            "class": "incast",
        }
        return {"traffic": [poisson(workload.cdf, load), incast]}
    if workload.family == "rpc":
        return {"rpc": [{"pairs": net.hosts // 2, **RPC, "stop": stop, "class": "rpc"}]}
    return {"flows": [{"pattern": "permutation", "size": "unbounded", "tag": "permutation"}]}


def known_kinds() -> tuple[list[str], list[str]]:
    """(controllers, schemes) the core knows."""
    from .. import kinds

    k = kinds()
    return list(k["controllers"]), list(k["schemes"])


def check_contenders(names: Sequence[str]) -> list[str]:
    """The contenders to run: `names` checked against the core's controllers and schemes
    (ArenaError listing the known ones), `ideal` added first if missing, duplicates dropped."""
    controllers, schemes = known_kinds()
    known = controllers + schemes
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ArenaError(
                f"--contender: unknown contender {name!r}{hint}; known controllers: "
                f"{', '.join(controllers)}; known schemes: {', '.join(schemes)}"
            )
    out = [REFERENCE] if REFERENCE not in names else []
    for name in names:
        if name not in out:
            out.append(name)
    return out


def contender_tables(name: str, net: Network) -> dict[str, Any]:
    """The scenario tables that make `name` the contender on `net`."""
    controllers, schemes = known_kinds()
    transport: dict[str, Any] = {"cc": "newreno", "ecn": False, "min_rto": MIN_RTO}
    switch: dict[str, Any] = {"buffer": BUFFER, "queue": "ecn", "ecn_threshold": ECN_K}
    tables: dict[str, Any] = {"transport": transport, "switch": switch, "routing": dict(net.routing)}
    if name == "pfabric":
        # pFabric as its paper runs it (Alizadeh et al., SIGCOMM 2013, sections 4-5): an initial
        # window of one BDP, a minimum RTO of about 3 RTTs, buffers of about 2 BDPs.
        bdp = LINK_RATE_BPS * net.rtt_s / 8
        transport.update(
            cc="pfabric", initial_window=max(1, round(bdp / MTU_BYTES)), min_rto=f"{max(1, round(3 * net.rtt_s * 1e9))}ns"
        )
        tables["switch"] = {"buffer": f"{max(2, round(2 * bdp / MTU_BYTES))}pkt", "queue": "pfabric"}
    elif name in controllers:
        transport.update(cc=name, ecn=name in ECN_CONTROLLERS)
    elif name in schemes:
        scheme: dict[str, Any] = {"kind": name}
        if name in ECN_SCHEMES:
            transport.update(cc="dctcp", ecn=True)
        if name == "hcc":
            scheme["levels"] = net.hcc_levels
        if name == "r2c2" and net.topology["kind"] == "torus":
            tables["routing"] = {"kind": "rps", "source_routes": True}  # R2C2's routing (section 3.4)
        tables["scheme"] = scheme
    else:
        raise ArenaError(f"unknown contender {name!r}")
    return tables


@dataclass(frozen=True)
class Cell:
    """One contender on one network under one workload at one load."""

    contender: str
    network: Network
    workload: Workload
    load: float | None
    duration_s: float

    @property
    def label(self) -> str:
        load = "" if self.load is None else f"@{self.load:g}"
        return f"{self.contender}/{self.network.name}/{self.workload.name}{load}"

    def scenario(self) -> dict[str, Any]:
        """The cell's scenario as nested tables (the seed is an override)."""
        queue_interval = max(1e-6, self.duration_s / 2000)
        return {
            "name": f"arena_{self.contender}_{self.network.name}_{self.workload.name}",
            "duration": f"{self.duration_s * 1e6:.0f}us",
            "topology": dict(self.network.topology),
            **contender_tables(self.contender, self.network),
            **traffic_tables(self.workload, self.network, self.load, self.duration_s),
            "metrics": {
                "interval": f"{self.duration_s * 1e6 / 20:.0f}us",
                "queue_ports": list(self.network.queue_ports),
                "queue_interval": f"{queue_interval * 1e9:.0f}ns",
                "size_buckets": ["100KB", "1MB"],
            },
        }

    def toml(self) -> str:
        return to_toml(self.scenario())


def plan_cells(quick: bool, contenders: Sequence[str] | None = None) -> list[Cell]:
    """Every cell of the arena, in a fixed order (contender, network, workload, load)."""
    names = check_contenders(list(contenders) if contenders else list(DEFAULT_CONTENDERS))
    durations = QUICK_DURATION_S if quick else DURATION_S
    cells = []
    for name in names:
        for net in networks(quick):
            for wl in workloads(quick):
                for load in wl.loads:
                    cells.append(Cell(name, net, wl, load, durations[wl.family]))
    return cells


def to_toml(tables: dict[str, Any]) -> str:
    """Nested dicts as TOML text: scalars first, then tables, then arrays of tables."""
    lines: list[str] = []
    scalars = {k: v for k, v in tables.items() if not isinstance(v, (dict, list)) or (isinstance(v, list) and not _table_list(v))}
    for k, v in scalars.items():
        lines.append(f"{k} = {toml_value(v)}")
    for k, v in tables.items():
        if isinstance(v, dict):
            lines.append(f"\n[{k}]")
            lines += [f"{kk} = {toml_value(vv)}" for kk, vv in v.items()]
    for k, v in tables.items():
        if isinstance(v, list) and _table_list(v):
            for item in v:
                lines.append(f"\n[[{k}]]")
                lines += [f"{kk} = {toml_value(vv)}" for kk, vv in item.items()]
    return "\n".join(lines) + "\n"


def _table_list(value: list[Any]) -> bool:
    return bool(value) and all(isinstance(v, dict) for v in value)
