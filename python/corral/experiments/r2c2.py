"""R2C2 reproduction (Costa et al., SIGCOMM 2015, section 5): `corral reproduce r2c2`.

Runs the paper's rack (an 8x8x8 torus of 10 Gbps links, Pareto flow sizes with mean 100 KB,
rack-wide Poisson arrivals with mean gap tau) under R2C2, TCP (NewReno on one ECMP-hashed
minimal path per flow), PFQ (per-flow queues with hop-by-hop back-pressure, below) and `ideal` (max-min rates recomputed at
every event, the paper's rho = 0), and measures from the result tables only:

- Figs. 10-13: the short-flow (< 100 KB) p99 FCT and the long-flow (> 1 MB) mean throughput
  at tau = 1, 10 and 100 us;
- Fig. 14: the largest occupancy of every torus queue (median and p99 over queues), and at
  tau = 100 ns;
- Figs. 15-16: the assigned-rate error against rho = 0 (`scheme.rate_error`: the rates the
  sources hold against the max-min rates of a complete, current view, half an interval after
  each epoch), at rho = 500 us and 1 ms; and each long flow's throughput against `ideal`'s;
- Fig. 17: headroom 0, 5, 10 and 20 %;
- Fig. 8: the wall time of one rate computation / rho (this machine);
- Fig. 9: broadcast bytes as a share of data byte-hops on a 3D torus, a 3D mesh and a 2D
  torus, from the formula and measured (runs of 10 KiB flows only and of 35 MiB flows only,
  mixed by byte share);
- Fig. 2: the throughput of four routing protocols on an 8x8 torus under six traffic
  patterns, from each protocol's link shares (`r2c2_routing`; no simulation);
- Fig. 7: a 4x4 torus at 5 Gbps, packet level against fluid mode;
- Fig. 18: the genetic routing search against all-RPS, all-VLB and random protocols, each
  assignment's packet-level aggregate beside the rate model's prediction;
- Fig. 19: control bytes of the centralized controller against R2C2's broadcasts, the
  controller's messages in band (the controller is a rack node) and, for the first seeds,
  out of band.

`--quick` runs a 4x4x4 rack with tau scaled by 8 (the same load per node) and one seed: not
the paper's rack, so its rows are judged off their conditions. Every claim is a row of
claims.json (`claims`: kind, the paper's band, median and range over seeds, verdict, the
conditions its runs realized), rendered at the head of report.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

import polars as pl
from rich.table import Table

from ..results import Results
from . import claims as cl
from . import claims_table
from . import conditions as cond
from . import r2c2_figures as figures
from . import r2c2_routing as routing
from .claims import median_range, per_seed, ratio
from .runner import Job, experiment, seed_range

SCENARIO_DIR = Path(str(resources.files("corral") / "scenarios" / "r2c2"))
RACK = SCENARIO_DIR / "rack.toml"
FIG7 = SCENARIO_DIR / "fig7.toml"
KIND = "reproduce-r2c2"
SHORT, LONG = 100_000, 1_000_000  # bytes: short flows are below, long flows above
MTU = 1500
TCP = ("traffic.0.transport=tcp", "traffic.0.routing=ecmp")
IDEAL = ("scheme.kind=ideal",)
RATE_ERROR = "scheme.rate_error=true"
# PFQ, the paper's idealised upper bound: per-flow queues with hop-by-hop back-pressure at every
# node (`switch.backpressure`: a switch takes at most BACKPRESSURE packets of a flow at a time,
# and credits return at once) plus RPS. Buffers nothing fills, so nothing is dropped: each
# flow's window waits in its own queue at the source's NIC (a 1 MB receive window bounds it),
# and TCP does not mistake RPS's reordering for loss.
BACKPRESSURE = 4
PFQ = (
    "traffic.0.transport=tcp",
    "traffic.0.routing=rps",
    "switch.queue=drr",
    "switch.buffer=100000pkt",
    f"switch.backpressure={BACKPRESSURE}",
    "host.small_queue=0",
    "host.buffer=100000pkt",
    "transport.receive_window=1000000",
    "transport.dupthresh=1000",
)


@dataclass(frozen=True)
class Geometry:
    """The rack of a run: full (the paper's) or quick."""

    dims: tuple[int, ...]
    tau_scale: float  # multiplies every tau, so that the load per node stays the paper's
    wrap: bool = True  # a torus; False: a mesh (no wrap-around links)

    @property
    def nodes(self) -> int:
        return math.prod(self.dims)

    @property
    def mean_hops(self) -> float:
        """Mean hops between two nodes (uniform pairs, self included): the sum over
        dimensions of the mean distance on a ring (a line for a mesh)."""
        if not self.wrap:
            return sum((d * d - 1) / (3 * d) for d in self.dims)
        return sum(sum(min(i, d - i) for i in range(d)) / d for d in self.dims)

    def overrides(self) -> tuple[str, ...]:
        return (f"topology.dims=[{', '.join(map(str, self.dims))}]", *(() if self.wrap else ("topology.wrap=false",)))

    def rate(self, tau_s: float) -> float:
        return 1.0 / (tau_s * self.tau_scale)


FULL = Geometry((8, 8, 8), 1.0)
QUICK = Geometry((4, 4, 4), 8.0)

# (label, tau in s, duration full, duration quick)
TAUS = (("1us", 1e-6, "10ms", "5ms"), ("10us", 1e-5, "20ms", "10ms"), ("100us", 1e-4, "60ms", "30ms"))
TAU_100NS = ("100ns", 1e-7, "1ms", "1ms")
HEADROOMS = (0.0, 0.1, 0.2)  # besides the default 0.05 of the tau runs
SMALL, LONG_FIG9 = "10KiB", "35MiB"  # Fig. 9's small and long flows
FIG9_SMALL_SHARE = 0.05
# Fig. 9's topologies: the 3D torus and two of greater diameter, a 3D mesh and a 2D torus,
# each of the run's node count (the paper gives no 2D shape for 512 nodes: 16x32 is ours).
FIG9_TOPOLOGIES = {
    False: (("3D torus", FULL), ("3D mesh", Geometry((8, 8, 8), 1.0, wrap=False)), ("2D torus", Geometry((16, 32), 1.0))),
    True: (("3D torus", QUICK), ("3D mesh", Geometry((4, 4, 4), 8.0, wrap=False)), ("2D torus", Geometry((8, 8), 8.0))),
}
FIG9_LONG_FLOWS = 32  # 35 MiB flows per long-only run, arriving over its first millisecond


def _tau_runs(geo: Geometry, quick: bool) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
    runs = []
    for label, tau, full_d, quick_d in (*TAUS, TAU_100NS):
        base = (f"traffic.0.rate={geo.rate(tau)}", f"duration={quick_d if quick else full_d}")
        variants = {"r2c2": (RATE_ERROR,), "tcp": TCP, "ideal": IDEAL, "pfq": PFQ} if label != "100ns" else {"r2c2": ()}
        for v, extra in variants.items():
            runs.append(({"study": "tau", "tau": label, "variant": v, "setup": "rack"}, base + extra))
        if label == "1us":
            for h in HEADROOMS:
                runs.append(
                    (
                        {"study": "headroom", "tau": label, "variant": f"headroom {h:g}", "headroom": h, "setup": "rack"},
                        base + (f"scheme.headroom={h}",),
                    )
                )
            runs.append(
                (
                    {"study": "interval", "tau": label, "variant": "rho 1ms", "setup": "rack"},
                    base + ("scheme.interval=1ms", RATE_ERROR),
                )
            )
    return runs


# The settings the paper leaves open, each changed alone at tau = 1 us (the report's
# sensitivity table): (name, the variants it reruns, its overrides). The other variants of
# a setting's row are the default configuration's.
TCP_DEFAULTS = ("transport.sack=true", "transport.limited_transmit=true", "transport.recovery=prr", "transport.rack=true")
HOST_10G = "host 10 Gbps"  # run at every seed: the tau = 1 us rows' sensitivity rows (their verdicts flip)
SENSITIVITY = (
    (HOST_10G, ("r2c2", "tcp", "pfq"), ("topology.host_rate=10Gbps",)),
    ("host 20 Gbps", ("r2c2", "tcp", "pfq"), ("topology.host_rate=20Gbps",)),
    ('first_rate = "line"', ("r2c2",), ('scheme.first_rate="line"',)),
    ('first_rate = "size"', ("r2c2",), ('scheme.first_rate="size"',)),
    ("TCP: corral's loss recovery defaults", ("r2c2", "tcp", "pfq"), TCP_DEFAULTS),
)
SENSITIVITY_SEEDS = 2  # the first seeds only (but HOST_10G): each setting reruns up to three tau = 1 us runs
HOST_10G_VARIES = (
    "hosts at 10 Gbps, one torus link's rate, instead of 40 Gbps: the paper gives no host link (its nodes inject "
    "straight onto their six torus links)"
)


def _deviation(overrides: tuple[str, ...]) -> dict[str, Any]:
    """A sensitivity setting's overrides as a job's `deviation` (key -> value)."""
    from .claims_table import _toml_value

    return {k: _toml_value(v) for k, _, v in (o.partition("=") for o in overrides)}


def _sensitivity_runs(geo: Geometry, quick: bool, seed: int) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
    label, tau, full_d, quick_d = TAUS[0]
    base = (f"traffic.0.rate={geo.rate(tau)}", f"duration={quick_d if quick else full_d}")
    variants = {"r2c2": (), "tcp": TCP, "pfq": PFQ}
    return [
        (
            {
                "study": "sensitivity",
                "tau": label,
                "setting": name,
                "variant": v,
                "setup": "rack",
                "deviation": _deviation(extra),
            },
            base + variants[v] + extra,
        )
        for name, rerun, extra in SENSITIVITY
        if name == HOST_10G or seed <= SENSITIVITY_SEEDS
        for v in rerun
    ]


def _fig9_runs(quick: bool) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
    """Per topology, the two ends of Fig. 9's line, measured: 10 KiB flows only at tau = 1 us,
    and 35 MiB flows only (`FIG9_LONG_FLOWS` of them arriving over the first millisecond, in
    a run long enough for all to finish, so that both broadcasts of each are counted, and any
    demand updates). Broadcast bytes / data byte-hops is linear in the share of bytes in small
    flows (flows of both sizes cross the same mean number of hops), so each share's value is
    the two ends' mix: a mix in one run could not be measured in milliseconds (its 35 MiB
    flows would not finish)."""
    out = []
    for name, geo in FIG9_TOPOLOGIES[quick]:
        small = ("duration=1ms" if quick else "duration=2ms", f"traffic.0.size={SMALL}", f"traffic.0.rate={geo.rate(1e-6)}")
        long = ("duration=60ms", f"traffic.0.size={LONG_FIG9}", f"traffic.0.rate={FIG9_LONG_FLOWS / 1e-3}", "traffic.0.stop=1ms")
        for variant, extra in (("small only", small), ("long only", long)):
            labels = {"study": "fig9", "variant": variant, "topology": name, "setup": "rack-fig9"}
            if quick:
                labels["deviation"] = {"topology.dims": list(geo.dims)}
            out.append((labels, (*geo.overrides(), *extra)))
    return out


# Fig. 19 counts the control traffic each design generates: the controller answers every
# flow event. The paper's rows run its messages out of band (a lossless control network
# that delivers at once), where they are all sent; in band, over the torus of the node the
# controller is, its six 10 Gbps links drop up to 78 % of them and it answers fewer events.
# The in-band runs are sensitivity rows, for the first seeds only (each run at 10 long flows
# per server takes about a minute).
FIG19_IN_BAND_SEEDS = 2
FIG19_IN_BAND_VARIES = (
    "the controller's messages in band, over the torus links of the rack node it is: its 10 Gbps links drop "
    "a share of its rate messages (the row's detail), so it answers fewer events than the design generates"
)


def _fig19_runs(geo: Geometry, seed: int) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
    """The tau = 1 us short-flow workload plus about L long flows per server (1 GB flows, none
    of which finishes, arriving over the first 100 us: L x nodes expected), in both modes, on
    the run's rack (512 nodes: with 10 per server a run takes about 1.5 minutes), and the
    centralized one out of band (`FIG19_OUT_OF_BAND_SEEDS`)."""
    runs = []
    variants: list[tuple[str, tuple[str, ...], dict[str, Any]]] = [
        ("broadcast", (), {}),
        ("centralized", ('control.mode="out_of_band"',), {}),
    ]
    if seed <= FIG19_IN_BAND_SEEDS:
        variants.append(("centralized, in band", ('control.mode="inband"',), {"control.mode": "inband"}))
    for per_server in (1, 10):
        long = f'{{pattern = "all_to_all", size = "1GB", rate = {per_server * geo.nodes / 1e-4}, stop = "100us"}}'
        traffic = (
            f'traffic=[{{pattern = "all_to_all", size = {{kind = "pareto", shape = 1.05, mean = "100KB"}}, rate = {geo.rate(1e-6)}, '
            f'tag = "rack"}}, {long}]'
        )
        for variant, extra, deviation in variants:
            control = variant.split(",")[0]
            runs.append(
                (
                    {
                        "study": "fig19",
                        "variant": variant,
                        "per_server": per_server,
                        "setup": "rack-control",
                        "deviation": deviation,
                    },
                    (*geo.overrides(), "duration=3ms", traffic, f"scheme.control={control}", *extra),
                )
            )
    return runs


FIG18_L = (0.1, 0.25, 0.5, 1.0)
R2C2_HEADROOM = 0.05  # the scheme's default (the paper's)
SEARCH_GAIN = 0.01  # the scheme's default `search_gain`
# s: runs of 12 ms, aggregate throughput (`_window_bps`) after 6 ms: every flow has started
# (`FIG18_START_SPREAD`) and the GA has searched several times (in 4 ms runs measured after
# 2.5 ms, with every flow started at once, the packet-level aggregate of a fixed assignment
# was 0.25-0.55 of the rate model's at L = 1, and the GA's ranking was lost in that noise).
FIG18_DURATION, FIG18_WINDOW = "12ms", 0.006
# The paper does not say when Fig. 18's long-running flows start; we start each at a random
# time in the first 2 ms (four recomputation intervals), the same times in every variant.
# Started at one instant, the unrated first bursts of all flows (`first_rate`) met in the
# queues: at L = 1 the runs with flows on RPS at the start (all-RPS, random and the GA,
# which starts every flow on RPS) lost 880-5,500 packets and timed out, and without SACK
# go-back-N then resent data the receivers held, at the flows' allocated rates, into the
# 6-12 ms window (the GA's run at seed 4 carried 0.63 of its allocation at 6.5 ms with no
# drop after 2.5 ms), while all-VLB lost none. The window measured that recovery rather
# than the assignments.
FIG18_START_SPREAD = "2ms"


def fig18_pairs(rnd: Any, nodes: int, frac: float) -> list[tuple[int, int]]:
    """Fig. 18's flows: a fraction `frac` of the nodes each send to another node, "such that
    every node is the source and the destination of at most one flow" (section 5.2): random
    sources, and distinct random destinations, none its own source (redrawn until so)."""
    srcs = rnd.sample(range(nodes), max(1, round(frac * nodes)))
    while True:
        dsts = rnd.sample(range(nodes), len(srcs))
        if all(s != d for s, d in zip(srcs, dsts)):
            return list(zip(srcs, dsts))


def fig18_predicted(pairs: list[tuple[int, int]], routing: list[str], geo: Geometry = QUICK) -> float:
    """The rate model's aggregate throughput (bit/s) of Fig. 18's flows under an assignment:
    the sum of their max-min rates with R2C2's headroom on the rack's links, each flow's
    usage from its routing protocol: the GA's fitness, computed outside the run."""
    import numpy as np

    from .. import alloc

    topology = {
        "kind": "torus",
        "dims": list(geo.dims),
        "wrap": geo.wrap,
        "link_rate": cl.scenario_value(RACK, "topology.link_rate"),
        "host_rate": cl.scenario_value(RACK, "topology.host_rate"),
    }
    usages = [alloc.usage(topology, [s], [d], r) for (s, d), r in zip(pairs, routing)]
    indptr = np.cumsum([0, *(len(u.indices) for u in usages)])
    indices = np.concatenate([u.indices for u in usages])
    data = np.concatenate([u.data for u in usages])
    rates, _ = alloc.maxmin(usages[0].capacity, (indptr, indices, data), headroom=R2C2_HEADROOM)
    return float(rates.sum())


def _fig18_runs(
    seed: int,
    geo: Geometry = QUICK,
    fractions: tuple[float, ...] = FIG18_L,
    variants: tuple[str, ...] = ("rps", "vlb", "random", "ga"),
    study: str = "fig18",
) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
    """A fraction L of the nodes each send one unbounded flow to another node (`fig18_pairs`),
    all on RPS, all on VLB, each on a random one of the two, or searched by the GA, each
    starting in the first `FIG18_START_SPREAD`. The figure runs on the 4x4x4 rack in both
    modes (a GA run at 512 nodes, L = 1 took 863 s); the full run adds one point at 512
    nodes (`FIG18_FULL_POINT`)."""
    import random

    out = []
    for frac in fractions:
        rnd = random.Random(seed * 1000 + int(frac * 100))
        pairs = fig18_pairs(rnd, geo.nodes, frac)
        coin = [rnd.choice(["rps", "vlb"]) for _ in pairs]
        for variant in variants:
            routing = [variant if variant in ("rps", "vlb") else ("rps" if variant == "ga" else c) for c in coin]
            flows = ", ".join(
                f'{{src = "h{s}", dst = "h{d}", jitter = "{FIG18_START_SPREAD}", routing = "{r}"}}'
                for (s, d), r in zip(pairs, routing)
            )
            extra = ("scheme.routing_search=true", "scheme.search_every=1ms") if variant == "ga" else ()
            predicted = {"predicted_bps": fig18_predicted(pairs, routing, geo)} if variant != "ga" else {}
            setup = {"setup": "rack-fig18", "deviation": {} if geo == FULL else {"topology.dims": list(geo.dims)}}
            out.append(
                (
                    {"study": study, "variant": variant, "fraction": frac, **predicted, **setup},
                    (
                        *geo.overrides(),
                        f"duration={FIG18_DURATION}",
                        "traffic=[]",
                        f"flows=[{flows}]",
                        "metrics.interval=500us",
                        *extra,
                    ),
                )
            )
    return out


# Fig. 18 on the paper's 8x8x8 rack, full run only: L = 0.1 (51 flows), seed 1: all-RPS,
# all-VLB and the GA take about a minute together (7, 23 and 33 s at load 4.5); L = 1 would
# take ~15 min per GA run.
FIG18_FULL_POINT = {"fraction": 0.1, "seed": 1}


def jobs(seeds: list[int], quick: bool, overrides: tuple[str, ...] = ()) -> list[Job]:
    geo = QUICK if quick else FULL
    out = []
    for seed in seeds:
        sensitivity = _sensitivity_runs(geo, quick, seed)
        for labels, extra in (*_tau_runs(geo, quick), *sensitivity):
            out.append(Job(RACK, (f"seed={seed}", *geo.overrides(), *extra, *overrides), {**labels, "seed": seed}))
        point = (
            _fig18_runs(seed, FULL, (FIG18_FULL_POINT["fraction"],), ("rps", "vlb", "ga"), "fig18 full")
            if not quick and seed == FIG18_FULL_POINT["seed"]
            else []
        )
        for labels, extra in (*_fig9_runs(quick), *_fig19_runs(geo, seed), *_fig18_runs(seed), *point):
            out.append(Job(RACK, (f"seed={seed}", *extra, *overrides), {**labels, "seed": seed}))
        fig7 = ("duration=0.12s", "traffic.0.stop=0.1s") if quick else ()
        # Fluid mode keeps no headroom: R2C2 without headroom is the like-for-like run.
        for variant, extra in (("packet", ()), ("packet, headroom 0", ("scheme.headroom=0",)), ("fluid", ("mode=fluid",))):
            out.append(
                Job(
                    FIG7,
                    (f"seed={seed}", *fig7, *extra, *overrides),
                    {"study": "fig7", "variant": variant, "seed": seed, "setup": "fig7"},
                )
            )
    return out


# ---------------------------------------------------------------- measuring one run


def _torus_ports(res: Results) -> pl.DataFrame:
    return res.ports.filter(pl.col("node").str.starts_with("sw") & pl.col("peer").str.starts_with("sw"))


def measure(job: Job, res: Results) -> dict[str, Any]:
    """The numbers one run contributes, from its result tables."""
    f = res.flows
    short = f.filter(pl.col("size_bytes") < SHORT)
    long = f.filter(pl.col("size_bytes").is_null() | (pl.col("size_bytes") > LONG))
    torus = _torus_ports(res)
    control = res.summary.get("control") or {}
    kinds = control.get("kinds") or {}
    state = ((res.summary.get("scheme") or {}).get("state")) or {}
    # Payload byte-hops on torus links: every RPS path is minimal, `hops` counts the two
    # host links too.
    byte_hops = float((f["bytes_delivered"] * (f["hops"] - 2).clip(lower_bound=0)).sum())
    small_bytes = float(f.filter(pl.col("size_bytes") < SHORT)["bytes_delivered"].sum())
    start = kinds.get("r2c2_start") or {}
    rate = kinds.get("r2c2_rate") or {}
    compute = ((res.timing.get("scheme") or {}).get("compute_time_share")) or {}  # wall clock: timing.json
    row = {
        **{k: v for k, v in job.labels.items() if k not in ("setup", "deviation")},
        "flows": f.height,
        "short_flows": short.height,
        "short_unfinished": int(short["fct_s"].is_null().sum()),
        "short_p99_fct_s": short["fct_s"].drop_nulls().quantile(0.99) if short.height else None,
        "long_flows": long.height,
        "long_mean_bps": long["goodput_bps"].mean() if long.height else None,
        "queue_max_p99_bytes": torus["max_queue_bytes"].quantile(0.99) if torus.height else None,
        "queue_max_median_bytes": torus["max_queue_bytes"].median() if torus.height else None,
        "reorder_p95_pkts": f["max_reorder_bytes"].quantile(0.95) / 1460 if f.height else None,
        "reorder_max_pkts": f["max_reorder_bytes"].max() / 1460 if f.height else None,
        "peak_active_flows": peak_active(f, res.summary["sim_time_s"]),
        "drops": res.summary.get("packets_dropped"),
        "control_link_bytes": control.get("link_bytes", 0),
        "control_offered_bytes": control.get("offered_link_bytes", 0),
        "rate_dropped_share": rate["dropped"] / rate["sent"] if rate.get("sent") else None,
        "rate_messages": rate.get("sent"),
        "broadcast_bytes_per_start": start["bytes"] / start["sent"] if start.get("sent") else None,
        "data_byte_hops": byte_hops,
        "small_byte_share": small_bytes / float(f["bytes_delivered"].sum()) if f.height else None,
        "compute_share_median": compute.get("median"),
        "rate_error_median": (state.get("assigned_rate_error") or {}).get("median"),
        "rate_error_p95": (state.get("assigned_rate_error") or {}).get("p95"),
        "rate_error_samples": (state.get("assigned_rate_error") or {}).get("samples"),
        "compute_share_p99": compute.get("p99"),
        "median_fct_s": f["fct_s"].median(),
        "aggregate_bps": _window_bps(res, FIG18_WINDOW) if job.labels["study"].startswith("fig18") else None,
        "routing_changes": state.get("routing_changes"),
        "predicted_bps": job.labels.get("predicted_bps") or _ga_predicted(state, SEARCH_GAIN),
        # What the run realized (`conditions`): the rack's size, and the arrival rate of the
        # rack workload (tag "rack"; the paper's condition is its mean gap tau).
        "nodes": res.ports.filter(pl.col("node").str.starts_with("h"))["node"].n_unique(),
        "arrivals_per_s": f.filter(pl.col("tag") == "rack").height / res.summary["sim_time_s"],
        **cond.realized(f, res.ports, res.summary["sim_time_s"]),
    }
    keep = ("flow_id", "size_bytes", "fct_s", "goodput_bps", "start_s")
    return {"row": row, "flows": f.select(keep) if job.labels["study"] in ("tau", "interval", "fig7") else None}


def peak_active(flows: pl.DataFrame, end_s: float) -> int:
    """The most flows in flight at once: each from its start to its finish (the end of the
    run if it did not finish); a finish at the instant of a start counts first."""
    if not flows.height:
        return 0
    ends = (flows["start_s"] + flows["fct_s"]).fill_null(end_s)
    events = pl.DataFrame({"t": pl.concat([flows["start_s"], ends]), "d": [1] * flows.height + [-1] * flows.height}).sort(
        ["t", "d"]
    )
    return int(events["d"].cum_sum().max())


def _ga_predicted(state: dict[str, Any], gain: float) -> float | None:
    """The rate model's throughput of the assignment the GA left in place: its last search's
    result if that was applied (predicted `gain` above the assignment it searched from),
    else that assignment's."""
    searches = state.get("search_fitness_bps") or []
    if not searches:
        return None
    start, found = searches[-1]
    return found if found >= start * (1 + gain) else start


def _window_bps(res: Results, after_s: float) -> float:
    """Fig. 18's aggregate throughput: the distinct payload bytes of the `[[flows]]` flows
    that reached their receivers after `after_s`, in any order (`arrived_bytes`), per second.
    The rate model (the GA's fitness) predicts the rate at which the network carries each
    flow's data; in-order goodput over a window also counts data that arrived before it and
    was held back behind a loss until a retransmission filled the hole, and so credits a run
    for its own start-up losses. Duplicates (retransmissions of data the receiver holds)
    count in neither."""
    tp = res.throughput.filter(pl.col("time_s") > after_s + 1e-12)
    span = res.summary["sim_time_s"] - after_s
    return float(tp["arrived_bytes"].sum()) * 8 / span if span > 0 else float("nan")


# ---------------------------------------------------------------- aggregating


@dataclass
class Report:
    runs: pl.DataFrame
    rate_error: pl.DataFrame  # study, variant, tau, seed, flow_id, error
    fig7: pl.DataFrame  # seed, flow_id, packet fct, fluid fct
    claims: list[dict[str, Any]]
    seeds: list[int]
    quick: bool
    geometry: Geometry
    overrides: tuple[str, ...] = ()
    routing_table: dict[str, dict[str, float]] = field(default_factory=dict)  # Fig. 2: protocol -> pattern -> throughput


def _rate_errors(measured: list[tuple[dict, dict]]) -> pl.DataFrame:
    """|long-flow throughput under R2C2 - under ideal| / ideal, per flow of the same run."""
    ideal = {(l["tau"], l["seed"]): m["flows"] for l, m in measured if l["study"] == "tau" and l["variant"] == "ideal"}
    rows = []
    for labels, m in measured:
        if labels.get("variant") not in ("r2c2", "rho 1ms") or labels["study"] not in ("tau", "interval"):
            continue
        ref = ideal.get((labels["tau"], labels["seed"]))
        if ref is None:
            continue
        both = (
            m["flows"]
            .join(ref, on="flow_id", suffix="_ideal")
            .filter((pl.col("size_bytes").is_null() | (pl.col("size_bytes") > LONG)) & (pl.col("goodput_bps_ideal") > 0))
        )
        rho = "1ms" if labels["variant"] == "rho 1ms" else "500us"
        rows.append(
            both.select(
                pl.lit(rho).alias("rho"),
                pl.lit(labels["tau"]).alias("tau"),
                pl.lit(labels["seed"]).alias("seed"),
                "flow_id",
                ((pl.col("goodput_bps") - pl.col("goodput_bps_ideal")).abs() / pl.col("goodput_bps_ideal")).alias("error"),
            )
        )
    return (
        pl.concat(rows)
        if rows
        else pl.DataFrame(schema={"rho": pl.Utf8, "tau": pl.Utf8, "seed": pl.Int64, "flow_id": pl.Int64, "error": pl.Float64})
    )


def _fig7(measured: list[tuple[dict, dict]]) -> pl.DataFrame:
    """Per seed and packet-level variant: the FCT of every flow finished in it and in fluid mode."""
    by = {(l["variant"], l["seed"]): m["flows"] for l, m in measured if l["study"] == "fig7"}
    rows = []
    for (variant, seed), flows in by.items():
        if variant == "fluid" or ("fluid", seed) not in by:
            continue
        both = flows.join(by[("fluid", seed)], on="flow_id", suffix="_fluid").drop_nulls(["fct_s", "fct_s_fluid"])
        rows.append(both.select(pl.lit(variant).alias("variant"), pl.lit(seed).alias("seed"), "flow_id", "fct_s", "fct_s_fluid"))
    return pl.concat(rows) if rows else pl.DataFrame()


def aggregate(
    measured: list[dict[str, Any]], jobs_: list[Job], seeds: list[int], quick: bool, overrides: tuple[str, ...]
) -> Report:
    pairs = [(j.labels, m) for j, m in zip(jobs_, measured)]
    runs = pl.DataFrame([m["row"] for m in measured], infer_schema_length=None)
    geo = QUICK if quick else FULL
    report = Report(runs, _rate_errors(pairs), _fig7(pairs), [], seeds, quick, geo, overrides, routing.table())
    report.claims = claims(report)
    return report


# ---------------------------------------------------------------- claims


def fig9_measured(runs: pl.DataFrame, topology: str, small_share: float) -> list[float]:
    """Per seed: broadcast bytes / data byte-hops when a share `small_share` of the bytes is in
    10 KiB flows, from the topology's runs of small flows only and of long flows only."""

    def end(variant: str) -> dict[int, float]:
        sub = runs.filter((pl.col("study") == "fig9") & (pl.col("topology") == topology) & (pl.col("variant") == variant))
        return {s: c / d for s, c, d in zip(sub["seed"], sub["control_link_bytes"], sub["data_byte_hops"]) if d}

    small, long = end("small only"), end("long only")
    return [small_share * small[s] + (1 - small_share) * long[s] for s in sorted(small.keys() & long.keys())]


def _fig9_conditions(runs: pl.DataFrame, topology: str) -> dict[str, Any]:
    """The small-flow run's (the rack's size, the arrival rate) and every long flow finished
    (both of its broadcasts counted)."""
    out = _conditions(runs, 1e-6, study="fig9", topology=topology, variant="small only")
    long = runs.filter((pl.col("study") == "fig9") & (pl.col("topology") == topology) & (pl.col("variant") == "long only"))
    out["long_flows_finished"] = cond.check([f / s for f, s in zip(long["flows_finished"], long["flows_started"]) if s], 1.0, 0.0)
    return out


def fig9_formula(geo: Geometry, small_share: float, long_bytes: int = 35 * 1024 * 1024) -> float:
    """Broadcast bytes / data byte-hops when a share `small_share` of the bytes is in 10 KiB
    flows and the rest in `long_bytes` flows (35 MiB in Fig. 9): each flow costs two
    broadcasts of (n - 1) x 16 B and carries its size over the mean number of torus hops."""
    per_flow = 2 * (geo.nodes - 1) * 16
    hops = geo.mean_hops
    return small_share * per_flow / (10 * 1024 * hops) + (1 - small_share) * per_flow / (long_bytes * hops)


TABLE = claims_table.load("r2c2")  # the paper's numbers, setups and statements (papers/r2c2.toml)
PAPER = TABLE.paper
PAPER_NODES = 512  # the paper's rack: an 8x8x8 torus
QUICK_MEANS = "a 4x4x4 rack with tau x 8 (the same load per node) and one seed: not the paper's rack"


def _conditions(runs: pl.DataFrame, tau_s: float | None = None, **where: Any) -> dict[str, Any]:
    """A row's conditions from its runs (`where`): the rack's size against the paper's 512
    nodes and, for a workload of mean gap `tau_s`, the realized arrival rate against 1 / tau."""
    sub = runs
    for k, v in where.items():
        sub = sub.filter(pl.col(k) == v)
    extra: dict[str, Any] = {"nodes": cond.check(sub["nodes"].to_list(), PAPER_NODES, 0.0)}
    if tau_s is not None:
        extra["arrivals_per_s"] = cond.check(sub["arrivals_per_s"].to_list(), 1 / tau_s)
    return cond.of_runs(sub, **extra)


# The tau = 1 us rows the host-rate sensitivity reruns, by claim id: their values' keys and units.
TAU1_ROWS = {
    "tau1-p99-tcp": "p99_tcp",
    "tau1-tput-tcp": "tput_tcp",
    "tau1-p99-pfq": "p99_pfq",
    "tau1-tput-pfq": "tput_pfq",
    "tau1-q99": "q99",
    "tau1-q50": "q50",
}
TAU1_UNITS = {"p99_tcp": "x", "tput_tcp": "x", "p99_pfq": "x", "tput_pfq": "x", "q99": "KB", "q50": "packets"}


def _tau1_values(runs: pl.DataFrame, where: Callable[[str], dict[str, Any]]) -> dict[str, list[float]]:
    """The per-seed values of the tau = 1 us rows, with variant v's run found by `where(v)`."""
    r2c2, tcp, pfq = where("r2c2"), where("tcp"), where("pfq")
    return {
        "p99_tcp": ratio(runs, "short_p99_fct_s", tcp, r2c2),
        "tput_tcp": ratio(runs, "long_mean_bps", r2c2, tcp),
        "p99_pfq": ratio(runs, "short_p99_fct_s", r2c2, pfq),
        "tput_pfq": ratio(runs, "long_mean_bps", r2c2, pfq),
        "q99": [x / 1e3 for x in per_seed(runs, "queue_max_p99_bytes", **r2c2)],
        "q50": [x / MTU for x in per_seed(runs, "queue_max_median_bytes", **r2c2)],
    }


def sensitivity(runs: pl.DataFrame) -> list[dict[str, Any]]:
    """Per open setting (`SENSITIVITY`, and the default configuration first): the tau = 1 us
    rows' median over the first seeds and the verdict the row would get, all else equal."""
    if "setting" not in runs.columns:
        return []
    runs = runs.filter(pl.col("seed") <= SENSITIVITY_SEEDS)
    base = {"study": "tau", "tau": "1us"}
    out = []
    for name, rerun in (("default (40 Gbps hosts, spread, TCP as pinned)", ()), *((n, r) for n, r, _ in SENSITIVITY)):

        def where(v: str, name: str = name, rerun: tuple[str, ...] = rerun) -> dict[str, Any]:
            return {"study": "sensitivity", "setting": name, "variant": v} if v in rerun else {**base, "variant": v}

        values = _tau1_values(runs, where)
        cells = {}
        for claim_id, key in TAU1_ROWS.items():
            spec = TABLE.claim(claim_id)
            band, open_edges = spec.band_for(PAPER)
            xs = cl.clean(values[key])
            verdict = cl.judge(xs, band, paper=PAPER, null=spec.null, paper_value=spec.value, open_edges=open_edges).verdict
            cells[key] = {"median": cl.median(xs), "seeds": len(xs), "verdict": verdict, "format": spec.fmt}
        out.append({"setting": name, "rows": cells})
    return out


def sensitivity_markdown(table: list[dict[str, Any]]) -> list[str]:
    if not table:
        return []
    heads = {
        "p99_tcp": "TCP / R2C2 short p99 (Fig. 10)",
        "tput_tcp": "R2C2 / TCP long tput (Fig. 11)",
        "p99_pfq": "R2C2 / PFQ short p99 (Fig. 10)",
        "tput_pfq": "R2C2 / PFQ long tput (Fig. 11)",
        "q99": "queue p99, KB (Fig. 14)",
        "q50": "queue median, packets (Fig. 14)",
    }
    seeds = max(c["seeds"] for row in table for c in row["rows"].values())
    out = [
        "## Sensitivity: the settings the paper leaves open",
        "",
        f"tau = 1 us, each setting changed alone (medians over {seeds} seed(s); the verdict each row would get, "
        "with the bands above). A setting reruns the variants it touches; the others are the default configuration's runs.",
        "",
        "| setting | " + " | ".join(heads.values()) + " |",
        "|---|" + "---|" * len(heads),
    ]
    for row in table:
        cells = []
        for key in heads:
            c = row["rows"][key]
            value = "–" if c["median"] is None else format(c["median"], c["format"])
            cells.append(f"{value} ({c['verdict'].replace('_', ' ')})")
        out.append(f"| {row['setting']} | " + " | ".join(cells) + " |")
    return out + [""]


def fig9_markdown(runs: pl.DataFrame, quick: bool) -> list[str]:
    """Fig. 9's curves: per topology, the formula and the measured value at both ends and at
    the 5 % share (medians over seeds)."""
    if "topology" not in runs.columns:
        return []
    out = [
        "## Fig. 9: broadcast bytes / data byte-hops by topology",
        "",
        "Measured: runs of 10 KiB flows only and of 35 MiB flows only, mixed by the share of bytes in small flows "
        "(medians over seeds).",
        "",
        "| topology | nodes | mean hops | formula, 100 % small | measured | formula, 5 % small | measured | measured, 0 % small |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, g in FIG9_TOPOLOGIES[quick]:
        m = [cl.median(fig9_measured(runs, name, x)) for x in (1.0, FIG9_SMALL_SHARE, 0.0)]
        cells = ["–" if v is None else f"{100 * v:.{f}f} %" for v, f in zip(m, (2, 2, 4))]
        out.append(
            f"| {name} ({'x'.join(map(str, g.dims))}) | {g.nodes} | {g.mean_hops:.2f} | {100 * fig9_formula(g, 1.0):.2f} % | "
            f"{cells[0]} | {100 * fig9_formula(g, FIG9_SMALL_SHARE):.2f} % | {cells[1]} | {cells[2]} |"
        )
    return out + [""]


def fig18_markdown(runs: pl.DataFrame) -> list[str]:
    """Fig. 18 per L: each assignment's packet-level aggregate over the rate model's
    prediction (the GA's fitness), and the GA against the fixed protocols (medians over
    seeds, ranges in brackets)."""
    if "predicted_bps" not in runs.columns or not runs.filter(pl.col("study") == "fig18").height:
        return []
    variants = ("rps", "vlb", "random", "ga")
    out = [
        "## Fig. 18: packet level against the rate model",
        "",
        f"Aggregate throughput (distinct payload bytes reaching the receivers, in any order) after {FIG18_WINDOW * 1e3:g} ms "
        f"of {FIG18_DURATION} runs over the rate model's aggregate max-min "
        "throughput of the same assignment (the GA's fitness; for the GA, the assignment it left in place), and the GA's "
        "packet-level aggregate over the fixed protocols'. 'same as fixed': runs whose GA assignment is predicted exactly as "
        "all-RPS or all-VLB (the GA chose that assignment).",
        "",
        "| L | "
        + " | ".join(f"{v}: packet / model" for v in variants)
        + " | GA / best fixed | GA / all-RPS (its start) | same as fixed |",
        "|---|" + "---|" * (len(variants) + 3),
    ]
    for frac in FIG18_L:
        at = {"study": "fig18", "fraction": frac}
        cells = [
            median_range(
                [
                    a / b
                    for a, b in zip(
                        per_seed(runs, "aggregate_bps", **at, variant=v), per_seed(runs, "predicted_bps", **at, variant=v)
                    )
                    if b
                ],
                ".3f",
            )
            for v in variants
        ]
        ga = per_seed(runs, "aggregate_bps", **at, variant="ga")
        rps, vlb = per_seed(runs, "aggregate_bps", **at, variant="rps"), per_seed(runs, "aggregate_bps", **at, variant="vlb")
        best = [g / max(a, b) for g, a, b in zip(ga, rps, vlb)]
        start = [g / a for g, a in zip(ga, rps)]
        same = sum(
            any(abs(g - f) <= 1e-9 * f for f in fixed)
            for g, *fixed in zip(
                per_seed(runs, "predicted_bps", **at, variant="ga"),
                per_seed(runs, "predicted_bps", **at, variant="rps"),
                per_seed(runs, "predicted_bps", **at, variant="vlb"),
            )
        )
        out.append(
            f"| {frac:g} | " + " | ".join(cells) + f" | {median_range(best, '.3f')} | {median_range(start, '.3f')} | "
            f"{same} of {len(ga)} |"
        )
    return out + [""]


def fig19_markdown(runs: pl.DataFrame) -> list[str]:
    """Fig. 19 under both readings of where the controller's messages travel (medians over
    the seeds that ran both)."""
    sub = runs.filter(pl.col("study") == "fig19")
    if "centralized, in band" not in sub["variant"].to_list():
        return []
    out = [
        "## Fig. 19: the centralized design out of band and in band",
        "",
        "Centralized over decentralized control bytes (the bytes the messages would put on their paths and trees), with the "
        "controller's messages out of band (every event answered: the claims' paper rows) and in band (over the torus, "
        f"seeds 1-{FIG19_IN_BAND_SEEDS}: sensitivity rows).",
        "",
        "| long flows per server | paper | out of band | in band | rate messages dropped in band | rate messages sent, out of band / in band |",
        "|---|---|---|---|---|---|",
    ]
    for per_server in (1, 10):
        at = {"study": "fig19", "per_server": per_server}
        oob = {**at, "variant": "centralized"}
        band = {**at, "variant": "centralized, in band"}
        dec = {**at, "variant": "broadcast"}
        cells = [
            median_range(ratio(runs, "control_offered_bytes", oob, dec), ".2f") + "x",
            median_range(ratio(runs, "control_offered_bytes", band, dec), ".2f") + "x",
            median_range([100 * x for x in per_seed(runs, "rate_dropped_share", **band) if x is not None], ".0f") + " %",
            median_range(ratio(runs, "rate_messages", oob, band), ".2f") + "x",
        ]
        out.append(f"| {per_server} | {TABLE.value(f'fig19-{per_server}')}x | " + " | ".join(cells) + " |")
    return out + [""]


def claims(r: Report) -> list[dict[str, Any]]:
    """Every row, by its id in papers/r2c2.toml (the paper's numbers are there)."""
    runs = r.runs
    c = cl.Claims(PAPER, table=TABLE)
    tau1 = {"study": "tau", "tau": "1us"}

    def at(label: str = "1us", **where: Any) -> dict[str, Any]:
        tau_s = {t[0]: t[1] for t in (*TAUS, TAU_100NS)}[label]
        return _conditions(runs, tau_s, **{"study": "tau", "tau": label, **where})

    # Figs. 10-14 at tau = 1 us, with 40 Gbps hosts (the paper rows) and 10 Gbps (sensitivity).
    tau1_values = _tau1_values(runs, lambda v: {**tau1, "variant": v})
    host10 = _tau1_values(runs, lambda v: {"study": "sensitivity", "setting": HOST_10G, "variant": v})
    ten = (
        runs.filter((pl.col("study") == "sensitivity") & (pl.col("setting") == HOST_10G))
        if "setting" in runs.columns
        else runs.clear()
    )
    for claim_id, key in TAU1_ROWS.items():
        conditions = at() if key in ("p99_tcp", "tput_tcp", "p99_pfq", "tput_pfq") else at(variant="r2c2")
        c.row(claim_id, tau1_values[key], unit=TAU1_UNITS[key], conditions=conditions)
        sub = ten if key in ("p99_tcp", "tput_tcp", "p99_pfq", "tput_pfq") else ten.filter(pl.col("variant") == "r2c2")
        c.sensitivity(
            claim_id,
            "10 Gbps hosts",
            host10[key],
            unit=TAU1_UNITS[key],
            varies=HOST_10G_VARIES,
            conditions=cond.of_runs(sub, nodes=cond.check(sub["nodes"].to_list(), PAPER_NODES, 0.0)) if sub.height else {},
        )
    # "TCP achieves the worst performance both for short and long flows": against PFQ too.
    c.row(
        "tau1-p99-tcp-pfq",
        ratio(runs, "short_p99_fct_s", {**tau1, "variant": "tcp"}, {**tau1, "variant": "pfq"}),
        unit="x",
        conditions=at(),
    )
    c.row(
        "tau1-tput-pfq-tcp",
        ratio(runs, "long_mean_bps", {**tau1, "variant": "pfq"}, {**tau1, "variant": "tcp"}),
        unit="x",
        conditions=at(),
    )
    # Figs. 12-13 across tau: "as the load decreases, R2C2's performance converges to PFQ's".
    for label, *_ in TAUS[1:]:
        at_tau = {"study": "tau", "tau": label}
        r2c2_at, pfq_at = {**at_tau, "variant": "r2c2"}, {**at_tau, "variant": "pfq"}
        c.row(
            f"tau{label[:-2]}-p99-pfq",
            ratio(runs, "short_p99_fct_s", r2c2_at, pfq_at),
            unit="x",
            conditions=at(label),
            detail=_missing(r.seeds, runs, "short_p99_fct_s", (r2c2_at, pfq_at), "no short flow finished"),
        )
        longs = per_seed_all(runs, "long_flows", r.seeds, **r2c2_at)
        c.row(
            f"tau{label[:-2]}-tput-pfq",
            ratio(runs, "long_mean_bps", r2c2_at, pfq_at),
            unit="x",
            conditions=at(label),
            detail="; ".join(
                x
                for x in (
                    f"long flows (> 1 MB) per seed: {_counts(longs)}",
                    _missing(r.seeds, runs, "long_mean_bps", (r2c2_at, pfq_at), "no long flow in its runs"),
                )
                if x
            ),
        )
    for label, *_ in TAUS[1:]:
        q99 = [x / 1e3 for x in per_seed(runs, "queue_max_p99_bytes", study="tau", tau=label, variant="r2c2")]
        c.row(f"tau{label[:-2]}-q99", q99, unit="KB", conditions=at(label, variant="r2c2"))
        q50 = [x / MTU for x in per_seed(runs, "queue_max_median_bytes", study="tau", tau=label, variant="r2c2")]
        c.row(f"tau{label[:-2]}-q50", q50, unit="packets", conditions=at(label, variant="r2c2"))
    ns = at("100ns", variant="r2c2")
    lengths = per_seed(runs, "run_s", study="tau", tau="100ns", variant="r2c2")
    finished = ", ".join(
        f"{a:,.0f} of {b:,.0f}"
        for a, b in zip(
            per_seed(runs, "flows_finished", study="tau", tau="100ns", variant="r2c2"),
            per_seed(runs, "flows_started", study="tau", tau="100ns", variant="r2c2"),
        )
    )
    ran = f"runs of {median_range([1e3 * x for x in lengths], '.3g')} ms; flows finished per seed: {finished}"
    c.row(
        "tau100ns-q99",
        [x / 1e3 for x in per_seed(runs, "queue_max_p99_bytes", study="tau", tau="100ns", variant="r2c2")],
        unit="KB",
        conditions=ns,
        detail=ran,
    )
    c.row(
        "tau100ns-q50",
        [x / 1e3 for x in per_seed(runs, "queue_max_median_bytes", study="tau", tau="100ns", variant="r2c2")],
        unit="KB",
        conditions=ns,
        detail=ran,
    )
    c.row(
        "tau100ns-peak",
        per_seed(runs, "peak_active_flows", study="tau", tau="100ns", variant="r2c2"),
        unit="flows",
        conditions=ns,
        detail=ran,
    )
    c.row(
        "reorder-p95", per_seed(runs, "reorder_p95_pkts", **tau1, variant="r2c2"), unit="packets", conditions=at(variant="r2c2")
    )
    c.row(
        "reorder-max", per_seed(runs, "reorder_max_pkts", **tau1, variant="r2c2"), unit="packets", conditions=at(variant="r2c2")
    )
    # Fig. 17.
    h0 = {"study": "headroom", "tau": "1us", "variant": "headroom 0"}
    hcond = _conditions(runs, 1e-6, study="headroom", variant="headroom 0")
    c.row(
        "headroom-cut",
        [100 * (1 - x) for x in ratio(runs, "short_p99_fct_s", {**tau1, "variant": "r2c2"}, h0)],
        unit="%",
        conditions=hcond,
    )
    c.row(
        "headroom-loss",
        [100 * (1 - x) for x in ratio(runs, "long_mean_bps", {**tau1, "variant": "r2c2"}, h0)],
        unit="%",
        conditions=hcond,
    )

    # Figs. 15-16: the assigned rates against rho = 0, sampled in the runs (`rate_error`).
    def err(stat: str, **where: Any) -> list[float]:
        return [100 * x for x in per_seed(runs, f"rate_error_{stat}", **where)]

    rho500 = {**tau1, "variant": "r2c2"}
    c.row("rate-err-median", err("median", **rho500), unit="%", conditions=at(variant="r2c2"))
    c.row("rate-err-p95", err("p95", **rho500), unit="%", conditions=at(variant="r2c2"))
    up_rho = ratio(runs, "rate_error_median", {"study": "interval", "tau": "1us", "variant": "rho 1ms"}, rho500)
    c.row("rho-grows", up_rho, unit="x", conditions=_conditions(runs, 1e-6, study="interval"))
    tau100 = {"study": "tau", "tau": "100us", "variant": "r2c2"}
    low = ratio(runs, "rate_error_median", tau100, rho500)
    c.row(
        "rate-err-load",
        low,
        unit="x",
        conditions=at("100us", variant="r2c2"),
        detail="; ".join(
            x
            for x in (
                f"rate-limited flows sampled at tau = 100 us per seed: {_counts(per_seed_all(runs, 'rate_error_samples', r.seeds, **tau100))}",
                _missing(r.seeds, runs, "rate_error_median", (tau100, rho500), "no rate-limited flow sampled"),
            )
            if x
        ),
    )
    # Fig. 8: wall clock of another machine: reported.
    c.row(
        "fig8-median",
        [100 * x for x in per_seed(runs, "compute_share_median", **rho500)],
        unit="%",
        conditions=at(variant="r2c2"),
    )
    c.row("fig8-p99", [100 * x for x in per_seed(runs, "compute_share_p99", **rho500)], unit="%", conditions=at(variant="r2c2"))
    c.row(
        "fig8-rho",
        ratio(runs, "compute_share_median", {"study": "interval", "tau": "1us", "variant": "rho 1ms"}, rho500),
        unit="x",
        conditions=_conditions(runs, 1e-6, study="interval"),
    )
    _fig18(r, c)
    _fig19(r, c)
    _fig9(r, c)
    # Fig. 2 (analytic: each protocol's link shares on the 8x8 torus).
    fig2 = routing.claim_values(r.routing_table)
    for claim_id, key in (
        ("fig2-vlb-spread", "vlb_spread"),
        ("fig2-shortfall", "best_single_shortfall"),
        ("fig2-vlb-wc", "vlb_over_minimal_wc"),
        ("fig2-min-ur", "minimal_over_vlb_ur"),
    ):
        c.row(claim_id, [fig2[key]], unit="x")
    # Our check: packet level against the fluid model (Fig. 7's setup).
    f7 = r.fig7
    if f7.height:

        def fig7_ratios(variant: str) -> list[float]:
            sub = f7.filter(pl.col("variant") == variant)
            return [g["fct_s"].median() / g["fct_s_fluid"].median() for _, g in sub.group_by("seed", maintain_order=True)]

        c.row(
            "fig7-fluid",
            fig7_ratios("packet, headroom 0"),
            unit="x",
            conditions=cond.of_runs(
                runs.filter(pl.col("study") == "fig7"),
                flows=cond.check([x for x in per_seed(runs, "flows_started", study="fig7", variant="fluid")], 1000),
            ),
            detail=f"with R2C2's 5 % headroom {median_range(fig7_ratios('packet'), '.3f')}",
        )
    _structural(r, c)
    return c.rows


def _fig18(r: Report, c: cl.Claims) -> None:
    """Fig. 18 on a 4x4x4 rack (the search evaluates ~1,000 rate computations), and one point
    on the paper's rack in the full run."""
    runs = r.runs
    ga_ratio, rps_wins, vlb_wins = [], [], []
    for frac in FIG18_L:
        at18 = {"study": "fig18", "fraction": frac}
        best = [
            max(a, b)
            for a, b in zip(
                per_seed(runs, "aggregate_bps", **at18, variant="rps"), per_seed(runs, "aggregate_bps", **at18, variant="vlb")
            )
        ]
        ga_ratio += [g / b for g, b in zip(per_seed(runs, "aggregate_bps", **at18, variant="ga"), best) if b]
        rv = ratio(runs, "aggregate_bps", {**at18, "variant": "rps"}, {**at18, "variant": "vlb"})
        (rps_wins if frac >= 0.5 else vlb_wins if frac == FIG18_L[0] else []).extend(rv)
    f18 = _conditions(runs, None, study="fig18")
    c.row("fig18-ga", ga_ratio, unit="x", conditions=f18, note=f"L = {', '.join(map(str, FIG18_L))}")
    # One point on the paper's rack in the full run; the quick run judges the same point of
    # its own (64-node) runs.
    point_at = {"study": "fig18" if r.quick else "fig18 full", **FIG18_FULL_POINT}
    point = {v: per_seed(runs, "aggregate_bps", **point_at, variant=v) for v in ("rps", "vlb", "ga")}
    c.row(
        "fig18-point",
        [g / max(a, b) for g, a, b in zip(point["ga"], point["rps"], point["vlb"])],
        unit="x",
        conditions=_conditions(runs, None, **point_at),
        detail=f"{r.geometry.nodes if not r.quick else QUICK.nodes} nodes, L = {point_at['fraction']}, seed {point_at['seed']}; "
        f"GA over all-RPS {median_range([g / a for g, a in zip(point['ga'], point['rps'])], '.3f')}",
    )
    c.row("fig18-rps-high", rps_wins, unit="x", conditions=f18)
    c.row("fig18-vlb-low", vlb_wins, unit="x", conditions=f18, note=f"L = {FIG18_L[0]}")


def _fig19(r: Report, c: cl.Claims) -> None:
    """Fig. 19: centralized (out of band: every event answered) over decentralized control
    bytes, and in band as sensitivity rows."""
    runs, geo = r.runs, r.geometry
    rack = "x".join(map(str, geo.dims))
    for per_server in (1, 10):
        central = {"study": "fig19", "variant": "centralized", "per_server": per_server}
        inband = {**central, "variant": "centralized, in band"}
        decentral = {**central, "variant": "broadcast"}
        conditions = _conditions(runs, 1e-6, study="fig19", per_server=per_server)
        sent = per_seed(runs, "rate_messages", **central)
        c.row(
            f"fig19-{per_server}",
            ratio(runs, "control_offered_bytes", central, decentral),
            unit="x",
            conditions=conditions,
            detail=f"{rack} rack; rate messages sent {median_range(sent, ',.0f')}",
        )
        dropped = [100 * x for x in per_seed(runs, "rate_dropped_share", **inband) if x is not None]
        on_links = ratio(runs, "control_link_bytes", inband, decentral)
        c.sensitivity(
            f"fig19-{per_server}",
            "in band",
            ratio(runs, "control_offered_bytes", inband, decentral),
            unit="x",
            varies=FIG19_IN_BAND_VARIES,
            conditions=_conditions(runs, 1e-6, study="fig19", per_server=per_server, variant="centralized, in band"),
            detail=f"seeds 1-{FIG19_IN_BAND_SEEDS}; {median_range(dropped, '.0f')} % of the controller's rate messages dropped; "
            f"on the links {median_range(on_links, '.2f')}x; rate messages sent "
            f"{median_range(per_seed(runs, 'rate_messages', **inband), ',.0f')}",
        )
    conditions = _conditions(runs, 1e-6, study="fig19")
    for claim_id, variant in (("fig19-central-grows", "centralized"), ("fig19-decentral-flat", "broadcast")):
        c.row(
            claim_id,
            ratio(
                runs,
                "control_offered_bytes",
                {"study": "fig19", "variant": variant, "per_server": 10},
                {"study": "fig19", "variant": variant, "per_server": 1},
            ),
            unit="x",
            conditions=conditions,
        )


def _fig9(r: Report, c: cl.Claims) -> None:
    """Fig. 9: measured on the three topologies (each share's value: the mix of the two ends)."""
    runs = r.runs
    torus3d = FIG9_TOPOLOGIES[r.quick][0][0]
    for share, claim_id in ((1.0, "fig9-small"), (FIG9_SMALL_SHARE, "fig9-mixed")):
        c.row(
            claim_id,
            [100 * x for x in fig9_measured(runs, torus3d, share)],
            unit="%",
            conditions=_fig9_conditions(runs, torus3d),
            detail=f"formula {100 * fig9_formula(FIG9_TOPOLOGIES[r.quick][0][1], share):.2f} %",
        )
    for (name, _g), claim_id in zip(FIG9_TOPOLOGIES[r.quick][1:], ("fig9-mesh", "fig9-2d")):
        lower = [
            a / b
            for a, b in zip(fig9_measured(runs, name, FIG9_SMALL_SHARE), fig9_measured(runs, torus3d, FIG9_SMALL_SHARE))
            if b
        ]
        c.row(claim_id, lower, unit="x", conditions=_fig9_conditions(runs, name))
    for (name, g), claim_id in zip(FIG9_TOPOLOGIES[r.quick], ("fig9-torus-check", "fig9-mesh-check", "fig9-2d-check")):
        f_small = fig9_formula(g, 1.0)
        # Our check's band comes from the formula on the run's rack: added as a row of its own band.
        spec = TABLE.claim(claim_id)
        c.add(
            spec.figure,
            spec.claim,
            [100 * x for x in fig9_measured(runs, name, 1.0)],
            (100 * f_small * 0.9, 100 * f_small * 1.1),
            kind="acceptance",
            unit="%",
            fmt=spec.fmt,
            conditions=_conditions(runs, 1e-6, study="fig9", topology=name, variant="small only"),
            detail=f"formula {100 * f_small:.2f} % on this {'x'.join(map(str, g.dims))} {name[3:]}",
            note=spec.note,
            id=spec.id,
            setup=spec.setup,
        )


def paths_mean(dims: tuple[int, ...]) -> float:
    """The mean number of minimal paths between two distinct nodes of a torus: per offset, the
    multinomial of its per-dimension distances, times two for each dimension where both
    directions are minimal (half-way round)."""
    import itertools

    total, pairs = 0, 0
    for offset in itertools.product(*(range(d) for d in dims)):
        if not any(offset):
            continue
        dist = [min(o, d - o) for o, d in zip(offset, dims)]
        ties = sum(1 for o, d in zip(offset, dims) if 2 * o == d)
        count = math.factorial(sum(dist))
        for x in dist:
            count //= math.factorial(x)
        total += count * 2**ties
        pairs += 1
    return total / pairs


def fig4_rates(f1_paths: list[list[tuple[int, int]]]) -> list[float]:
    """Fig. 4's two flows on unit links, through corral's max-min allocator: f1 from node 1 to
    4 split equally over `f1_paths`, f2 on 2 -> 3 -> 4."""
    import numpy as np

    from .. import alloc

    links = {l: i for i, l in enumerate(((1, 4), (1, 3), (3, 4), (2, 3)))}
    share: dict[int, float] = {}
    for path in f1_paths:
        for hop in path:
            share[links[hop]] = share.get(links[hop], 0.0) + 1 / len(f1_paths)
    f2 = {links[(2, 3)]: 1.0, links[(3, 4)]: 1.0}
    indices = [*share, *f2]
    indptr = np.array([0, len(share), len(share) + len(f2)])
    data = np.array([*share.values(), *f2.values()])
    rates, _ = alloc.maxmin(np.ones(len(links)), (indptr, np.array(indices), data))
    return [float(x) for x in rates]


def _structural(r: Report, c: cl.Claims) -> None:
    """The design sections' numbers: arithmetic and the rate model on tiny inputs (pinned by
    tests/test_r2c2.py)."""
    geo = r.geometry
    cost = per_seed(r.runs, "broadcast_bytes_per_start", study="tau", tau="1us", variant="r2c2")
    want = (geo.nodes - 1) * 16
    if geo == FULL:
        c.row("broadcast-cost", cost, unit="B")
    else:  # the quick rack's own (n - 1) x 16 B, the claim's text as the full run's
        spec = TABLE.claim("broadcast-cost")
        c.add(
            spec.figure,
            spec.claim,
            cost,
            (want * 0.999, want * 1.001),
            kind="structural",
            unit="B",
            fmt=spec.fmt,
            note=spec.note,
            detail=f"the quick rack's {geo.nodes} nodes: {want:,} B",
            id=spec.id,
            statement=spec.statement,
            setup=spec.setup,
        )
    n = FULL.nodes
    per_link = n * (n - 1) * (n - 1) * 16 / (2 * len(FULL.dims) * n) / 1024
    c.row("broadcast-all-pairs", [per_link], unit="KiB")
    c.row("paths-216", [paths_mean((6, 6, 6))], unit="paths", detail=f"the farthest pair: {paths_mean_far((6, 6, 6)):,}")
    c.row("fig4-restricted", fig4_rates([[(1, 4)], [(1, 3), (3, 4)]]), unit="capacity")
    c.row("fig4-ideal", fig4_rates([[(1, 4)]]), unit="capacity")
    shape, mean = 1.05, 100e3
    xm = mean * (shape - 1) / shape
    c.row("workload-short", [100 * (1 - (xm / SHORT) ** shape)], unit="%")
    for share, claim_id in ((1.0, "fig9-small-formula"), (FIG9_SMALL_SHARE, "fig9-mixed-formula")):
        c.row(claim_id, [100 * fig9_formula(FULL, share)], unit="%")
    c.row("fig9-10mb-formula", [100 * fig9_formula(FULL, 0.0, long_bytes=10 * 1024 * 1024)], unit="%")
    c.row("memory-512", [link_weight_bytes(FULL.dims) / 1024**2], unit="MiB", detail=f"{link_weight_bytes(FULL.dims):,} B")
    c.row("route-hops", [ROUTE_BITS // HOP_BITS], unit="hops")
    c.row("route-hops-vlb", [2 * sum(d // 2 for d in FULL.dims)], unit="hops")


ROUTE_BITS, HOP_BITS = 128, 3  # R2C2's route field and its bits per hop (section 4.2)


def link_weight_bytes(dims: tuple[int, ...]) -> int:
    """Section 4.2's precomputed link weights of one routing protocol at a node: every other
    node as a destination times every directed torus link times a 4-byte weight."""
    n = math.prod(dims)
    return (n - 1) * 2 * len(dims) * n * 4


def per_seed_all(runs: pl.DataFrame, col: str, seeds: list[int], **where: Any) -> list[float | None]:
    """`col` of the runs matching `where` for every seed of `seeds`, None where no run or no value."""
    sub = runs
    for k, v in where.items():
        sub = sub.filter(pl.col(k) == v)
    got = dict(zip(sub["seed"].to_list(), sub[col].to_list())) if col in sub.columns and sub.height else {}
    return [got.get(s) for s in seeds]


def _counts(xs: list[float | None]) -> str:
    return ", ".join("-" if x is None else f"{x:,.0f}" for x in xs)


def _missing(seeds: list[int], runs: pl.DataFrame, col: str, where: tuple[dict[str, Any], ...], why: str) -> str:
    """Which of `seeds` give a ratio row no value (a run of `where` without `col`, or a zero
    divisor), and `why`: a row on fewer seeds than the run says so."""
    values = [per_seed_all(runs, col, seeds, **w) for w in where]
    gone = [s for i, s in enumerate(seeds) if any(v[i] is None or v[i] != v[i] for v in values) or not values[-1][i]]
    if not gone:
        return ""
    return f"seed{'s' if len(gone) > 1 else ''} {', '.join(map(str, gone))} give{'s' if len(gone) == 1 else ''} no value: {why}"


def paths_mean_far(dims: tuple[int, ...]) -> int:
    """The minimal paths of the farthest pair, both directions of every half-way tie counted."""
    dist = [d // 2 for d in dims]
    count = math.factorial(sum(dist))
    for x in dist:
        count //= math.factorial(x)
    return count * 2 ** sum(1 for d in dims if d % 2 == 0)


# ---------------------------------------------------------------- the experiment


def plan(seeds: int, quick: bool, overrides: tuple[str, ...]) -> tuple[list[Job], Callable[[list[Any]], Report]]:
    """The runs (one seed when quick) and how their measurements become the report."""
    seed_list = seed_range(seeds, quick)
    all_jobs = jobs(seed_list, quick, overrides)
    return all_jobs, lambda m: aggregate(m, all_jobs, seed_list, quick, overrides)


def baselines() -> list[dict[str, str]]:
    """Every baseline's settings and where each comes from (the rack's from rack.toml)."""
    b, v = cl.baseline, cl.scenario_value
    paper, ours = "R2C2 paper, section 5.2", "our choice (the paper gives none)"
    return [
        b(
            "rack (all)",
            "topology",
            f"8x8x8 3D torus, {v(RACK, 'topology.link_rate')} links of {v(RACK, 'topology.link_delay')}",
            paper,
        ),
        b("rack (all)", "host link rate", v(RACK, "topology.host_rate"), ours + ": hosts inject above the torus link rate"),
        b("rack (all)", "switch buffer per port", v(RACK, "switch.buffer"), ours),
        b(
            "rack (all)",
            "workload",
            "uniform pairs, Pareto sizes (shape 1.05, mean 100 KB), Poisson arrivals of mean gap tau",
            paper,
        ),
        b("R2C2", "recomputation interval rho, headroom", "500 us, 5 %", paper),
        b("R2C2", "routing", "RPS, source-routed", paper),
        b(
            "R2C2",
            "rate before the first epoch",
            '`first_rate = "spread"`: not rate-limited; as fast as its routing\'s paths carry it',
            "R2C2 paper, section 3.3.2: the sender 'starts transmitting packets immediately'; batching 'filters out very "
            "short-lived flows, which would be pointless to rate-limit'",
        ),
        b("TCP", "congestion control", v(RACK, "transport.cc"), ours + " (the paper says TCP)"),
        b("TCP", "routing", "one ECMP-hashed minimal path per flow", paper),
        b("TCP", "initial window", f"{v(RACK, 'transport.initial_window', 10)} segments", "corral's default (RFC 6928)"),
        b("TCP", "min RTO", v(RACK, "transport.min_rto"), ours),
        b("PFQ", "queues", "per-flow queues (DRR) with hop-by-hop back-pressure at every node, RPS", paper),
        b("PFQ", "back-pressure credit", f"{BACKPRESSURE} packets per flow and switch, returned at once", ours),
        b("PFQ", "buffers, receive window, dupthresh", "100,000 packets, 1 MB, 1000 (reordering is not loss)", ours),
        b(
            "ideal (rho = 0)",
            "allocation",
            "weighted max-min of every active flow at every event, 5 % headroom",
            paper + " (Figs. 15-16's reference)",
        ),
        b(
            "centralized (Fig. 19)",
            "messages",
            "events by unicast to the middle node's switch; after each event every node with flows "
            "gets one message, 6 B + 6 B per flow",
            "the paper's design (section 5.2); the sizes ours",
        ),
        b(
            "genetic search (Fig. 18)",
            "flows",
            "a fraction L of the nodes each send one long-running flow; every node the source and the destination of at most one",
            paper,
        ),
        b(
            "genetic search (Fig. 18)",
            "flow starts",
            f"uniform in the first {FIG18_START_SPREAD}, the same in every variant",
            ours + "; started at one instant, start-up losses and their recovery filled the window",
        ),
        b("genetic search (Fig. 18)", "population, mutation", "100, 0.01", paper),
        b(
            "genetic search (Fig. 18)",
            "every, rack",
            f"1 ms on a 4x4x4 rack; runs of {FIG18_DURATION}, throughput after {FIG18_WINDOW * 1e3:g} ms "
            "(distinct payload bytes reaching the receivers, in any order)",
            ours + " (the paper: every few seconds, 512 nodes)",
        ),
        b(
            "genetic search (Fig. 18)",
            "first population, when applied",
            "the current assignment, all-RPS, all-VLB and random ones; applied if predicted 1 % above the current",
            "the paper's population plus the fixed assignments (ours); 'if a significant "
            "improvement is possible' (section 3.1; the 1 % ours)",
        ),
    ]


def paper_of_run(rows: list[dict[str, Any]]) -> cl.Paper:
    """The paper's head with its tolerance reason's seed span taken from this run's
    `tau1-p99-tcp` row (the table writes it as "{tau1-p99-tcp}"), never a fixed text."""
    row = next((r for r in rows if r["id"] == "tau1-p99-tcp"), None)
    xs = cl.clean(row["values"]) if row else []
    span = f"{min(xs):.2f}-{max(xs):.2f}x" if len(xs) > 1 else (f"{xs[0]:.2f}x" if xs else "not measured")
    return replace(PAPER, tolerance_reason=PAPER.tolerance_reason.replace("{tau1-p99-tcp}", span))


def write(report: Report, out: Path) -> None:
    report.runs.write_csv(out / "runs.csv", float_precision=6)
    report.rate_error.write_csv(out / "rate_error.csv", float_precision=6)
    figures.tau_panels(report.runs, out / "fct_throughput.png")
    figures.queues(report.runs, out / "queues.png")
    figures.broadcast_share(report.runs, FIG9_TOPOLOGIES[report.quick], fig9_formula, fig9_measured, out / "broadcast_share.png")
    figures.rate_error(report.rate_error, out / "rate_error.png")
    if report.fig7.height:
        figures.fig7(report.fig7, out / "fig7.png")
    table = sensitivity(report.runs)
    body = [
        *sensitivity_markdown(table),
        *fig9_markdown(report.runs, report.quick),
        *routing.markdown(report.routing_table),
        *fig18_markdown(report.runs),
        *fig19_markdown(report.runs),
        "## Figures",
        "",
        "![FCT and throughput](fct_throughput.png)",
        "![queues](queues.png)",
        "![broadcast share](broadcast_share.png)",
        "![rate error](rate_error.png)",
        *(["![Fig. 7](fig7.png)"] if report.fig7.height else []),
        "",
        "## Files",
        "",
        "`claims.json`: the claims above; `report.json`: what ran, the claims and every run's numbers; "
        "`runs.csv`: one row per run (study, tau, variant, seed) with every measured number.",
    ]
    cl.write_report(
        out,
        paper_of_run(report.claims),
        report,
        title=f"R2C2 reproduction (rack {'x'.join(map(str, report.geometry.dims))})",
        baselines=baselines(),
        quick_means=QUICK_MEANS,
        body=body,
        table=TABLE,
        sensitivity=table,
    )


def rich_tables(report: Report) -> list[Table]:
    return [cl.claims_table(cl.rich_title("R2C2", report), report.claims)]


reproduce = experiment(KIND, (SCENARIO_DIR,), plan, measure, write)
