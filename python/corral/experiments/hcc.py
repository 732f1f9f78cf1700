"""HCC reproduction (hierarchical congestion control, section IV): `corral reproduce hcc`.

Runs the paper's three-tier tree (1 core, 2 aggregation and 8 edge switches, 8 hosts each;
the 32 left hosts send to the 32 right hosts) and measures from the result tables only:

- Fig. 4 (web search): HCC-2 against NewReno, CUBIC and DCTCP on the same flows, with the
  core links at 10, 50 and 5 Gbps for a third of the run T each, under both readings of the
  paper's load (below): FCT (mean and p99 over the flows every variant finished), and per
  phase and over the run (`hcc_phases`, 1 ms samples): the core port's utilization and
  goodput, the queue at the left aggregation switch's core port, Jain's index, one-way
  packet latency against the unloaded path's, and the time to fill the core after a step;
- capacity steps (our isolating experiment for Fig. 4a-b): 8 always-backlogged flows through
  the same steps, the core port's utilization every 10 us, and the time to fill it, for
  HCC-2, the TCPs and the centralized controller (HCC's "fast reaction at the edge");
- Figs. 4g-h (overhead): bytes and messages each level of agents receives and sends, for
  HCC-1, HCC-2 (with and without quantization) and HCC-3, against a centralized controller
  fed the same per-flow updates (`ideal`, `mode = "updates"`, at the root's switch), and
  against one that polls every flow every period (`mode = "periodic"`, a sensitivity), each
  with the leaves' demands from their backlog and, as a sensitivity, from on-off
  applications (`schemes/app_demand`);
- Fig. 5 (gRPC on-off): 500 closed-loop request/response sessions on 10 Gbps links for 0.5 s,
  the mean and p99 response FCT, the responses unfinished at the end (with their ages), the
  core port's utilization and its variation, queue and latency, HCC-2 against the TCPs (and
  HCC-2 with 5 % headroom, without headroom, and with independent uniform start phases, our
  choices' sensitivities); an FCT row is judged only where few sessions stalled
  (`hcc_claims.grpc_conditions`), since the FCTs are over the finished responses.

The paper's load: "flows congest the network with average loads of 50 %, 10 %, 100 %" while
the core steps 10 -> 50 -> 5 Gbps, which one Poisson rate of 5 Gbps gives (reading "one
rate", websearch.toml); its throughput text ("HCC acquires almost all the capacity all the
time while other protocols are slow in filling the bandwidth specially when the available
bandwidth is increased to 50Gbps", a "utilization gap up to 20 %" there, TCP queues full
"most of the time") needs a core full in every phase (reading "full core",
websearch_saturated.toml: each phase offered 100 % of its capacity). A Fig. 4 row is judged
under the reading its sentence describes, the other as its sensitivity row. The paper runs
T = 0.1 s and says "Longer simulations did not change the observed results" (section IV-A):
at 0.1 s a phase sees about 10 web-search flows at 5 Gbps and realizes 0.56-1.45 of its load
over five seeds, so the full run takes T = 3 s, and `--quick` runs one seed at the paper's
0.1 s.

The TCPs (the baselines' and HCC's own, which keeps TCP for reliability) run ns-3.35's
defaults (the scenarios' `[transport]`, with the sources); corral's earlier settings
(`CORRAL_TCP`) are sensitivity rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import polars as pl
from rich.table import Table

from ..results import Results
from . import claims as cl
from . import claims_table
from . import conditions as cond
from . import hcc_claims as hc
from . import hcc_figures as figures
from . import hcc_phases as phases_
from .claims import median_range, per_seed
from .runner import Job, experiment, seed_range

SCENARIO_DIR = Path(str(resources.files("corral") / "scenarios" / "hcc"))
WEBSEARCH = SCENARIO_DIR / "websearch.toml"
SATURATED = SCENARIO_DIR / "websearch_saturated.toml"
STEPS = SCENARIO_DIR / "steps.toml"
GRPC = SCENARIO_DIR / "grpc.toml"
RESPONSE = 256 * 1024  # bytes of a gRPC response
KIND = "reproduce-hcc"
CORE_PORT = ("agg0", 4)  # the left aggregation switch's port to the core: the bottleneck
MSS, WIRE = 1460, 1500
TCPS = ("newreno", "cubic", "dctcp")
# The two readings of Fig. 4's load: study name -> (scenario, label, each phase's offered load
# as a fraction of its core capacity).
READINGS = {
    "fig4": (WEBSEARCH, "one rate", (0.5, 0.1, 1.0)),
    "fig4_full": (SATURATED, "full core", (1.0, 1.0, 1.0)),
}
TRAFFIC_BLOCKS = {WEBSEARCH: 1, SATURATED: 7}
# corral's TCP settings before this reproduction ran ns-3's (a sensitivity): an ACK per
# segment, a 1 ms minimum RTO, RACK-TLP, ssthresh from the FlightSize.
CORRAL_TCP = (
    "transport.min_rto=1ms",
    "transport.delayed_ack=1",
    "transport.delayed_ack_timeout=40us",
    "transport.rack=true",
    "transport.ssthresh=flight",
)
CORRAL = " (corral TCP)"  # the suffix of a TCP variant run with CORRAL_TCP
# DCTCP as ns-3.35's TcpDctcp runs it: no floor under its ECN ssthresh (GetSsThresh returns
# (1 - alpha/2) cwnd), i.e. min_window 1; with the scenarios' `transport.ecn_response = "cwr"`
# (TcpSocketBase::EnterCwr with TcpPrrRecovery).
DCTCP_NS3 = '{kind="dctcp",min_window=1}'
# corral's DCTCP rules (the runs before issue 58's third fix): the window cut at once on the
# echo (RFC 8257 section 3.3's text) and at least 2 segments (Linux's dctcp_ssthresh): a
# sensitivity of the DCTCP rows.
CORRAL_DCTCP_SET = ("transport.ecn_response=instant",)
CORRAL_DCTCP_SFX = " (corral DCTCP)"
# ns-3.35's socket buffers (TcpSocket SndBufSize = RcvBufSize = 131072 B), which the setup
# does not apply (papers/hcc.toml, "segment_and_buffers"): a sensitivity.
NS3_BUFFERS = ("transport.receive_window=131072",)
BUFFERS = " (ns-3 buffers)"
# (Cycle_child, Cycle_parent) in link delays: HCC-1 the slowest, HCC-2 the paper's default.
CYCLES = {"HCC-1": (4, 16), "HCC-2": (2, 8), "HCC-3": (1, 4)}
ONOFF = ", on-off"  # the suffix of a variant whose leaves demand as on-off applications
# The centralized controllers at the root's switch, with HCC's headroom and message sizes:
# fed the per-flow updates HCC-2's leaves produce (hosts report every 8 us, HCC-2's host
# Cycle_parent; the controller computes every 20 us, HCC-2's root Cycle_child), or polling
# every flow every 20 us (a sensitivity).
CENTRAL = {
    "centralized": (
        "scheme.kind=ideal",
        "scheme.mode=updates",
        "scheme.period=20us",
        "scheme.host_period=8us",
        "scheme.controller=agg0",
        "scheme.headroom=0.02",
    ),
    "centralized, polling": (
        "scheme.kind=ideal",
        "scheme.mode=periodic",
        "scheme.period=20us",
        "scheme.controller=agg0",
        "scheme.headroom=0.02",
    ),
}
# Websearch phases, as fractions of the run T: (start, end, core capacity in bit/s).
PHASE_SHARES = ((0.0, 1 / 3, 10e9), (1 / 3, 2 / 3, 50e9), (2 / 3, 1.0, 5e9))
# The web-search run's T in seconds: the paper's 0.1 s for --quick, 3 s for the full run (module doc).
WEBSEARCH_T = {"quick": 0.1, "full": 3.0}


def phases(run_s: float, study: str = "fig4") -> tuple[tuple[float, float, float, float], ...]:
    """The web-search phases of a run of `run_s` seconds under a reading: (start, end, core
    capacity, offered load)."""
    loads = READINGS[study][2]
    return tuple((a * run_s, b * run_s, cap, load) for (a, b, cap), load in zip(PHASE_SHARES, loads))


def _websearch_length(run_s: float, scenario: Path) -> tuple[str, ...]:
    """Overrides that run a web-search scenario for `run_s` seconds, its core steps at T/3
    and 2T/3 and, for the full-core reading, its traffic blocks' windows with them."""
    t1, t2 = (round(run_s * 1e6 * f) for f in (1 / 3, 2 / 3))
    out = [f"duration={round(run_s * 1e6)}us", *(f"events.{i}.at={at}us" for i, at in enumerate((t1, t1, t2, t2)))]
    if scenario == SATURATED:
        out += ["traffic.0.stop=%dus" % t1, "traffic.6.start=%dus" % t2]
        out += [f"traffic.{i}.{k}={v}us" for i in range(1, 6) for k, v in (("start", t1), ("stop", t2))]
    return tuple(out)


# Capacity steps of steps.toml: (time, capacity).
STEP_TIMES = ((0.0, 10e9), (0.01, 50e9), (0.02, 5e9))
STEP_END = 0.03
BUSY = 0.95  # "busy": the core port's utilization
UNLOADED_RTT_S = 2 * (1 + 10 + 100 + 100 + 10 + 1) * 1e-6  # host to host across the core and back
GRPC_WARMUP = 0.020  # s: the gRPC core's utilization is judged after the sessions' first 20 ms
GRPC_SESSIONS = 500
STALLED_S = 0.25  # s: a response unfinished for half the run at its end stalled its session
GRPC_THINK_S = 0.002  # the mean think time
WINDOW = 10  # samples (of 10 us) per utilization window
HOLD = 0.001  # s the utilization must hold after convergence


def _variant(v: str, scenario: Path, where: str) -> tuple[str, ...]:
    """The overrides of variant `v` (a TCP, an HCC variant or a centralized controller, with
    its suffixes) in `scenario`, whose flows are `where` (traffic, flows, rpc)."""
    if v.endswith(CORRAL):
        return (*_variant(v[: -len(CORRAL)], scenario, where), *CORRAL_TCP)
    if v.endswith(BUFFERS):
        return (*_variant(v[: -len(BUFFERS)], scenario, where), *NS3_BUFFERS)
    if v.endswith(ONOFF):
        return (*_variant(v[: -len(ONOFF)], scenario, where), "scheme.demand=onoff")
    blocks = TRAFFIC_BLOCKS.get(scenario, 1) if where == "traffic" else 1
    if v == "dctcp" + CORRAL_DCTCP_SFX:
        return (*(f"{where}.{i}.transport=dctcp" for i in range(blocks)), *CORRAL_DCTCP_SET)
    if v in TCPS:
        kind = DCTCP_NS3 if v == "dctcp" else v
        return tuple(f"{where}.{i}.transport={kind}" for i in range(blocks))
    if v in CYCLES:
        c, p = CYCLES[v]
        return (f"scheme.child_cycle={c}", f"scheme.parent_cycle={p}")
    if v == "HCC-2, no quantization":
        return (*_variant("HCC-2", scenario, where), "scheme.bins=0")
    if v in CENTRAL:
        return CENTRAL[v]
    if v == "HCC-2, headroom 5 %":
        return (*_variant("HCC-2", scenario, where), "scheme.headroom=0.05")
    if v == "HCC-2, uniform phases":
        return (*_variant("HCC-2", scenario, where), "scheme.phase=uniform")
    if v == "HCC-2, no headroom":
        return (*_variant("HCC-2", scenario, where), "scheme.headroom=0")
    raise ValueError(v)


# What runs, per seed: (study, scenario, flows' key, variants).
OVERHEAD = ("HCC-1", "HCC-3", "HCC-2, no quantization", "centralized", "centralized, polling")
TRANSPORTS = (
    "HCC-2",
    *TCPS,
    *(v + CORRAL for v in ("HCC-2", *TCPS)),
    *(v + BUFFERS for v in ("HCC-2", *TCPS)),
    "dctcp" + CORRAL_DCTCP_SFX,
)
ONOFF_VARIANTS = tuple(v + ONOFF for v in ("HCC-2", "HCC-1", "HCC-3", "HCC-2, no quantization", "centralized"))
STUDIES = (
    ("fig4", WEBSEARCH, "traffic", TRANSPORTS),
    ("fig4_full", SATURATED, "traffic", TRANSPORTS),
    ("overhead", WEBSEARCH, "traffic", OVERHEAD + ONOFF_VARIANTS),
    ("overhead_full", SATURATED, "traffic", ("centralized",)),
    ("steps", STEPS, "flows", ("HCC-2", *TCPS, "centralized")),
    ("grpc", GRPC, "rpc", (*TRANSPORTS, "HCC-2, headroom 5 %", "HCC-2, uniform phases", "HCC-2, no headroom")),
)


# The setup (papers/hcc.toml) each study runs under.
SETUPS = {
    "fig4": "fig4-one-rate",
    "fig4_full": "fig4-full-core",
    "overhead": "overhead",
    "overhead_full": "fig4-full-core",
    "steps": "steps",
    "grpc": "grpc",
}


def deviation(v: str) -> dict[str, Any]:
    """The scenario keys variant `v` runs at other values than its setup states."""
    out: dict[str, Any] = {}
    if v.endswith(CORRAL):
        out.update({k: _toml(x) for k, x in (o.split("=", 1) for o in CORRAL_TCP)})
    if v.endswith(BUFFERS):
        out.update({k: _toml(x) for k, x in (o.split("=", 1) for o in NS3_BUFFERS)})
    if v.endswith(CORRAL_DCTCP_SFX):
        out.update({k: _toml(x) for k, x in (o.split("=", 1) for o in CORRAL_DCTCP_SET)})
    if ONOFF in v:
        out["scheme.demand"] = "onoff"
    out.update(
        {
            "centralized, polling": {"scheme.mode": "periodic"},
            "HCC-2, headroom 5 %": {"scheme.headroom": 0.05},
            "HCC-2, uniform phases": {"scheme.phase": "uniform"},
            "HCC-2, no headroom": {"scheme.headroom": 0},
        }.get(v, {})
    )
    return out


def _toml(text: str) -> Any:
    """An override's value as TOML reads it (a bool, a number), else the text."""
    return {"true": True, "false": False}.get(text, int(text) if text.isdigit() else text)


def jobs(seeds: list[int], overrides: tuple[str, ...] = (), websearch_s: float = WEBSEARCH_T["full"]) -> list[Job]:
    out = []
    for seed in seeds:
        for study, scenario, where, variants in STUDIES:
            length = _websearch_length(websearch_s, scenario) if where == "traffic" else ()
            for v in variants:
                labels: dict[str, Any] = {"study": study, "variant": v, "seed": seed, "setup": SETUPS[study]}
                if deviation(v):
                    labels["deviation"] = deviation(v)
                out.append(Job(scenario, (f"seed={seed}", *length, *_variant(v, scenario, where), *overrides), labels))
    return out


# ---------------------------------------------------------------- measuring one run


def _core_samples(res: Results) -> pl.DataFrame:
    node, port = CORE_PORT
    return res.queues.filter((pl.col("node") == node) & (pl.col("port") == port)).sort("time_s")


def _capacity(t: float, schedule: tuple[tuple[float, float], ...]) -> float:
    cap = schedule[0][1]
    for at, c in schedule:
        if t >= at - 1e-12:
            cap = c
    return cap


def _utilization(q: pl.DataFrame, schedule: tuple[tuple[float, float], ...]) -> pl.DataFrame:
    """The core port's utilization in each sample interval (wire bytes over capacity)."""
    t, tx = q["time_s"].to_list(), q["tx_bytes"].to_list()
    rows = [
        (t[i], (tx[i] - tx[i - 1]) * 8 / ((t[i] - t[i - 1]) * _capacity(t[i - 1] + 1e-9, schedule)))
        for i in range(1, len(t))
        if t[i] > t[i - 1]
    ]
    return pl.DataFrame(rows, schema=["time_s", "util"], orient="row")


def _busy_after(q: pl.DataFrame, start: float, capacity: float) -> float | None:
    """The core port's utilization from `start` to the last sample (tx_bytes over capacity)."""
    after = q.filter(pl.col("time_s") >= start)
    if after.height < 2:
        return None
    span = after["time_s"][-1] - after["time_s"][0]
    return float((after["tx_bytes"][-1] - after["tx_bytes"][0]) * 8 / (span * capacity))


def convergence(util: pl.DataFrame, start: float, end: float) -> tuple[float | None, float | None]:
    """After a step at `start`: the time until the port stays busy (every window of
    `WINDOW` samples in the following `HOLD` at least `BUSY`), and the share of windows busy
    from then until `end`."""
    sub = util.filter((pl.col("time_s") > start + 1e-12) & (pl.col("time_s") <= end + 1e-12))
    u = sub["util"].to_list()
    t = sub["time_s"].to_list()
    if len(u) < WINDOW:
        return None, None
    means = [sum(u[i : i + WINDOW]) / WINDOW for i in range(len(u) - WINDOW + 1)]
    span = max(1, round(HOLD / (t[1] - t[0]))) if len(t) > 1 else 1
    for i in range(len(means)):
        ahead = means[i : i + span]
        if len(ahead) == span and min(ahead) >= BUSY:
            busy = means[i::WINDOW]
            return t[i] - (t[1] - t[0]) - start, sum(m >= BUSY for m in busy) / len(busy)
    return None, None


# Scheme counters a run's row keeps: bytes and messages per level of agents (l1: the hosts';
# l2: the edge switches'; l3: the root at agg0) and at the root or controller, and the flow
# events the leaves saw.
COUNTERS = tuple(
    f"{who}_{way}_{what}" for who in ("root", "l1", "l2", "l3") for way in ("received", "sent") for what in ("bytes", "msgs")
) + ("flow_arrivals", "flow_departures", "demand_switches")


def _grpc(res: Results, q: pl.DataFrame) -> dict[str, Any]:
    """Fig. 5's numbers of one gRPC run: response FCTs, the responses still unfinished at the
    end with their ages, the core's utilization and its variation after the warm-up, the
    queue and packet latency, and the response throughput the closed loop ran at."""
    f = res.flows
    end = res.summary["sim_time_s"]
    resp = f.filter(pl.col("size_bytes") == RESPONSE)
    done = resp.filter(pl.col("fct_s").is_not_null())["fct_s"]
    open_ = resp.filter(pl.col("fct_s").is_null())
    ages = (end - open_["start_s"]) if open_.height else pl.Series([], dtype=pl.Float64)
    after = resp.filter(pl.col("fct_s").is_not_null() & (pl.col("finish_s") >= GRPC_WARMUP))
    rate = after.height / (end - GRPC_WARMUP)
    util = _utilization(q, ((0.0, 10e9),)).filter(pl.col("time_s") > GRPC_WARMUP)["util"]
    lat = res.latency["latency_s"]
    with_open = pl.concat([done, ages]) if ages.len() else done
    return {
        "responses": done.len(),
        "mean_response_fct_s": done.mean(),
        "p99_response_fct_s": done.quantile(0.99),
        "unfinished": open_.height,
        # Sessions stalled: a response still unfinished after half the run.
        "stalled": int((ages > STALLED_S).sum()) if ages.len() else 0,
        "unfinished_age_median_s": ages.median() if ages.len() else None,
        "unfinished_age_max_s": ages.max() if ages.len() else None,
        # A lower bound on the mean: every unfinished response counted at its age.
        "mean_response_fct_with_open_s": with_open.mean(),
        # Little's law for the closed loop: N sessions = X (R + Z), so R = N / X - Z.
        "responses_per_s": rate,
        "little_response_s": GRPC_SESSIONS / rate - GRPC_THINK_S if rate else None,
        "queue_median_pkts": q["packets"].median(),
        "queue_mean_pkts": q["packets"].mean(),
        "queue_p99_pkts": q["packets"].quantile(0.99),
        "core_util_after_20ms": _busy_after(q, GRPC_WARMUP, 10e9),
        "core_util_std": util.std() if util.len() > 1 else None,
        "latency_p99_over_min": float(lat.quantile(0.99) / lat.min()) if lat.len() else None,
        "drops": res.summary.get("packets_dropped"),
    }


def measure(job: Job, res: Results) -> dict[str, Any]:
    """The numbers one run contributes, from its result tables."""
    counters = ((res.summary.get("scheme") or {}).get("counters")) or {}
    study = job.labels["study"]
    labels = {k: v for k, v in job.labels.items() if k not in ("setup", "deviation")}
    row: dict[str, Any] = {**labels, **{k: counters.get(k, 0) for k in COUNTERS}}
    q = _core_samples(res)
    if study == "steps":
        util = _utilization(q, STEP_TIMES)
        ends = [s[0] for s in STEP_TIMES[1:]] + [STEP_END]
        for k, ((at, _), end) in enumerate(zip(STEP_TIMES, ends)):
            row[f"step{k}_converge_s"], row[f"step{k}_busy_share"] = convergence(util, at, end)
        row.update(**cond.realized(res.flows, res.ports, res.summary["sim_time_s"]))
        return {
            "row": row,
            "flows": None,
            "series": None,
            "util": util.with_columns(pl.lit(job.labels["variant"]).alias("variant"), pl.lit(job.labels["seed"]).alias("seed")),
        }
    f = res.flows
    row.update(**cond.realized(f, res.ports, res.summary["sim_time_s"]))
    if study == "grpc":
        row.update(_grpc(res, q))
        return {"row": row, "flows": None, "util": None, "series": None}
    reading = "fig4_full" if study.endswith("_full") else "fig4"
    rates = cond.host_rates(res.ports)
    run_phases = phases(res.summary["sim_time_s"], reading)
    for k, (a, b, capacity, _) in enumerate(run_phases):
        # The offered load of each phase: the flows arriving in it, against its core capacity.
        arrived = f.filter((pl.col("start_s") >= a) & (pl.col("start_s") < b))
        row[f"phase{k}_load_offered"] = cond.offered_bytes(arrived, rates, res.summary["sim_time_s"]) * 8 / ((b - a) * capacity)
    row.update({"flows": f.height, "finished": int(f["fct_s"].is_not_null().sum()), "drops": res.summary.get("packets_dropped")})
    series = None
    if study in READINGS:
        tp = res.throughput_class.filter(pl.col("class") == "*").select("time_s", "goodput_bps", "jain")
        row.update(phases_.stats(q, tp, res.latency.select("time_s", "latency_s"), run_phases))
        series = tp.join(q.select("time_s", "packets"), on="time_s", how="left").with_columns(
            pl.lit(study).alias("study"), pl.lit(job.labels["variant"]).alias("variant"), pl.lit(job.labels["seed"]).alias("seed")
        )
    return {"row": row, "flows": f.select("flow_id", "size_bytes", "fct_s"), "util": None, "series": series}


# ---------------------------------------------------------------- aggregating


@dataclass
class Report:
    runs: pl.DataFrame
    fct: pl.DataFrame  # study, group, seed, variant, flow_id, fct_s: flows every variant of the group finished
    util: pl.DataFrame  # steps: seed, variant, time_s, util
    series: pl.DataFrame  # fig4 (both readings): study, seed, variant, time_s, goodput_bps, jain, packets (1 ms)
    claims: list[dict[str, Any]]
    seeds: list[int]
    quick: bool
    overrides: tuple[str, ...] = ()
    tables: list[dict[str, Any]] = field(default_factory=list)


# The variants whose FCTs compare: HCC-2 against ns-3's TCPs (the paper rows), and against
# corral's (their sensitivity rows).
FCT_GROUPS = {
    "ns3": ("HCC-2", *TCPS),
    "corral": tuple(v + CORRAL for v in ("HCC-2", *TCPS)),
    "buffers": tuple(v + BUFFERS for v in ("HCC-2", *TCPS)),
    "corral-dctcp": ("HCC-2", "newreno", "cubic", "dctcp" + CORRAL_DCTCP_SFX),
}


def _common_fcts(pairs: list[tuple[dict, dict]]) -> pl.DataFrame:
    """Per Fig. 4 reading, group and seed, the FCTs of the flows that every variant of the
    group finished (a variant that finishes more of the late, large flows would otherwise
    look slower)."""
    frames = []
    for study in READINGS:
        for group, variants in FCT_GROUPS.items():
            for seed in sorted({l["seed"] for l, _ in pairs}):
                runs = {
                    l["variant"]: m["flows"]
                    for l, m in pairs
                    if l["study"] == study and l["seed"] == seed and l["variant"] in variants
                }
                if len(runs) < len(variants):
                    continue
                done = None
                for fl in runs.values():
                    ids = set(fl.filter(pl.col("fct_s").is_not_null())["flow_id"].to_list())
                    done = ids if done is None else done & ids
                for v, fl in runs.items():
                    frames.append(
                        fl.filter(pl.col("flow_id").is_in(sorted(done or ()))).with_columns(
                            pl.lit(study).alias("study"),
                            pl.lit(group).alias("group"),
                            pl.lit(seed).alias("seed"),
                            pl.lit(v).alias("variant"),
                        )
                    )
    return pl.concat(frames) if frames else pl.DataFrame()


def aggregate(
    measured: list[dict[str, Any]], jobs_: list[Job], seeds: list[int], quick: bool, overrides: tuple[str, ...]
) -> Report:
    pairs = [(j.labels, m) for j, m in zip(jobs_, measured)]
    fct = _common_fcts(pairs)
    rows = [m["row"] for m in measured]
    if fct.height:
        stats = fct.group_by("study", "group", "seed", "variant").agg(
            mean_fct_s=pl.col("fct_s").mean(), p99_fct_s=pl.col("fct_s").quantile(0.99), common_flows=pl.len()
        )
        for st in stats.to_dicts():
            for r in rows:
                if (r["study"], r["seed"], r["variant"]) == (st["study"], st["seed"], st["variant"]):
                    for k in ("mean_fct_s", "p99_fct_s", "common_flows"):
                        r[f"{k}@{st['group']}"] = st[k]
    runs = pl.DataFrame(rows, infer_schema_length=None)
    util = pl.concat([m["util"] for m in measured if m["util"] is not None])
    series = pl.concat([m["series"] for m in measured if m["series"] is not None])
    report = Report(runs, fct, util, series, [], seeds, quick, overrides)
    report.claims = claims(report)
    report.tables = tables(report)
    return report


# ---------------------------------------------------------------- claims


TABLE = claims_table.load("hcc")
PAPER = TABLE.paper
QUICK_MEANS = (
    "one seed, and the web-search runs at the paper's T = 0.1 s (the full run's are 3 s long, to reach the paper's loads)"
)
GRPC_RUN_S = 0.5  # the paper's T for gRPC: "0.5 second"


def _ids(setup: str, kind: str = "paper", prefix: str = "") -> list[str]:
    """The claims of the table under `setup` (of `kind`, ids starting with `prefix`), in
    the table's order."""
    return [c.id for c in TABLE.claims.values() if c.setup == setup and c.kind == kind and c.id.startswith(prefix)]


def claims(r: Report) -> list[dict[str, Any]]:
    runs = r.runs
    c = cl.Claims(PAPER, table=TABLE)
    run_s = WEBSEARCH_T["quick" if r.quick else "full"]
    conds = {setup: hc.websearch_conditions(runs, study, run_s, READINGS[study][2]) for setup, study in hc.STUDY.items()}
    # Fig. 4: each row under its setup's reading, then the other reading and corral's TCPs.
    for setup, study in hc.STUDY.items():
        values = hc.fig4_values(runs, study)
        ids = _ids(setup)
        hc.add_rows(c, values, ids + _ids(setup, "acceptance"), conds[setup])
        hc.add_named_phases(c, values, ids, conds[setup])
        # The whole-run values of the rows judged per phase are reported, without sensitivities.
        ids = [i for i in ids if i not in hc.PHASED]
        other, name = hc.OTHER[setup]
        hc.add_sensitivity(c, hc.fig4_values(runs, other), ids, name, conds[next(k for k, v in hc.STUDY.items() if v == other)])
        hc.add_sensitivity(c, hc.fig4_values(runs, study, CORRAL), ids, "corral-tcp", conds[setup])
        hc.add_sensitivity(c, hc.fig4_values(runs, study, BUFFERS), ids, "ns3-buffers", conds[setup])
        dc = [i for i in ids if "dctcp" in i]
        hc.add_sensitivity(c, hc.fig4_values(runs, study, dctcp=hc.CORRAL_DCTCP), dc, "corral-dctcp", conds[setup])
    for pid in hc.PHASE_IDS:
        hc.add_closeness(c, f"fig4f-hcc-{pid}")
    # Figs. 4(g)-(h): against the controller fed the same updates; polling, on-off demands
    # and the full-core reading as sensitivities.
    ov = conds["fig4-one-rate"]
    ids = _ids("overhead")
    hc.add_rows(c, hc.overhead_values(runs), ids, ov)
    central = ["fig4g-received", "fig4h-sent", "fig4g-all-agents", "fig4g-l2", "fig4h-l2"]
    hc.add_sensitivity(c, hc.overhead_values(runs, central="centralized, polling"), central, "polling", ov)
    hc.add_sensitivity(c, hc.overhead_values(runs, sfx=ONOFF), ids, "on-off", ov)
    hc.add_sensitivity(c, hc.overhead_values(runs, hcc_study="fig4_full"), central, "full-core", conds["fig4-full-core"])
    hc.add_sensitivity(c, hc.overhead_values(runs, agents=("l2", "l3")), ["fig4g-all-agents"], "l2-l3", ov)
    # Fig. 5: gRPC, with corral's TCPs as the sensitivity.
    gcond = cond.of_runs(runs.filter(pl.col("study") == "grpc"), run_s=GRPC_RUN_S)
    values = hc.grpc_values(runs)
    r_hcc = values["_r_hcc"][0][0] if values["_r_hcc"][0] else None
    for t in TCPS:
        implied = hc.little_implied(TABLE.value(f"fig5b-mean-{t}"), r_hcc, GRPC_THINK_S)
        xs, unit, _ = values[f"fig5a-util-{t}"]
        values[f"fig5a-util-{t}"] = (
            xs,
            unit,
            ""
            if implied is None
            else f"the paper's mean-FCT reduction implies {implied:.2f} (Little's law at HCC's measured mean)",
        )
    ids = _ids("grpc")
    hc.add_rows(c, values, ids + _ids("grpc", "acceptance"), gcond, hc.grpc_conditions(runs, gcond))
    hc.add_closeness(c, "fig5d-hcc")
    hc.add_sensitivity(c, hc.grpc_values(runs, CORRAL), ids, "corral-tcp", gcond, hc.grpc_conditions(runs, gcond, CORRAL))
    hc.add_sensitivity(c, hc.grpc_values(runs, BUFFERS), ids, "ns3-buffers", gcond, hc.grpc_conditions(runs, gcond, BUFFERS))
    hc.add_sensitivity(
        c,
        hc.grpc_values(runs, dctcp=hc.CORRAL_DCTCP),
        [i for i in ids + _ids("grpc", "acceptance") if "dctcp" in i],
        "corral-dctcp",
        gcond,
        hc.grpc_conditions(runs, gcond, dctcp=hc.CORRAL_DCTCP),
    )
    # Our choices for HCC that the paper does not state, and that move Fig. 5's rows: the
    # start phases (`spread`) and the 2 % headroom.
    for variant, name in (("HCC-2, uniform phases", "uniform-phases"), ("HCC-2, no headroom", "no-headroom")):
        hc.add_sensitivity(
            c, hc.grpc_values(runs, hcc_variant=variant), ids, name, gcond, hc.grpc_conditions(runs, gcond, hcc_variant=variant)
        )
    g5 = per_seed(runs, "queue_p99_pkts", study="grpc", variant="HCC-2, headroom 5 %")
    gu = per_seed(runs, "queue_p99_pkts", study="grpc", variant="HCC-2, uniform phases")
    row = next(x for x in c.rows if x["id"] == "fig5c-hcc-p99")
    row["detail"] = f"with 5 % headroom {median_range(g5, '.0f')}; with independent uniform phases {median_range(gu, '.0f')}"
    _steps(r, c)
    return c.rows


def _steps(r: Report, c: cl.Claims) -> None:
    """Our capacity-step study (8 backlogged flows through the same steps): acceptance rows
    isolating Fig. 4(a)-(b)'s convergence."""
    steps = r.runs.filter(pl.col("study") == "steps")
    scond = cond.of_runs(steps)
    for k, name in ((1, "50"), (2, "5")):
        c.row(
            f"steps-hcc-{name}",
            [1e6 * x for x in per_seed(steps, f"step{k}_converge_s", variant="HCC-2")],
            unit="us",
            conditions=scond,
        )
        busy = [100 * x for x in per_seed(steps, f"step{k}_busy_share", variant="HCC-2")]
        c.row(f"steps-hcc-{name}-busy", busy, unit="%", conditions=scond)
    faster, never = [], 0
    window = STEP_TIMES[2][0] - STEP_TIMES[1][0]
    for seed in r.seeds:
        tcp = steps.filter((pl.col("seed") == seed) & pl.col("variant").is_in(TCPS))["step1_converge_s"]
        h = per_seed(steps, "step1_converge_s", seed=seed, variant="HCC-2")
        never += int(tcp.null_count())
        if h and h[0] > 0 and tcp.len():
            faster.append(tcp.fill_null(window).min() / h[0])
    c.row("steps-faster", faster, unit="x", conditions=scond, detail=f"{never} of {3 * len(r.seeds)} TCP runs never stay busy")
    hcc50 = [1e6 * x for x in per_seed(steps, "step1_converge_s", variant="HCC-2")]
    c.row("steps-sub-rtt", hcc50, unit="us", conditions=scond)
    rtts = []
    for seed in r.seeds:
        tcp = steps.filter((pl.col("seed") == seed) & pl.col("variant").is_in(TCPS))["step1_converge_s"]
        if tcp.len():
            rtts.append(tcp.fill_null(window).min() / UNLOADED_RTT_S)
    c.row("steps-tcp-rtts", rtts, unit="x", conditions=scond, detail=f"{never} of {3 * len(r.seeds)} TCP runs never stay busy")
    central = []
    for seed in r.seeds:
        cen = steps.filter((pl.col("seed") == seed) & (pl.col("variant") == "centralized"))["step1_converge_s"]
        h = per_seed(steps, "step1_converge_s", seed=seed, variant="HCC-2")
        if h and h[0] > 0 and cen.len():
            central.append(cen.fill_null(window)[0] / h[0])
    cen_us = [1e6 * x for x in per_seed(steps, "step1_converge_s", variant="centralized")]
    c.row(
        "steps-central-50",
        central,
        unit="x",
        conditions=scond,
        detail=f"centralized {median_range(cen_us, '.0f')} us, HCC-2 {median_range(hcc50, '.0f')} us",
    )


def tables(r: Report) -> list[dict[str, Any]]:
    """The report's tables beside the rows: Fig. 4 per phase under both readings, and the
    control messages per flow event at each level of agents."""
    variants = TRANSPORTS
    phase_rows = phases_.table(r.runs, {s: READINGS[s][1] for s in READINGS}, variants)
    return [
        {
            "id": "fig4-phases",
            "title": (
                "Fig. 4 per phase (medians over seeds of the 1 ms samples; wire_gbps: bytes the core port sent, "
                "headers and retransmissions included; goodput_gbps: payload delivered in order to the receivers, "
                "which credits data held behind a hole when it is filled and can exceed the phase's capacity; "
                "jain_mean: over the flows' in-order goodputs)"
            ),
            "columns": [
                "reading",
                "variant",
                "phase",
                "util",
                "util_std",
                "wire_gbps",
                "goodput_gbps",
                "queue_median",
                "queue_full_share",
                "jain_mean",
                "converge_ms",
            ],
            "rows": phase_rows,
        },
        {
            "id": "messages",
            "title": "Control messages and bytes per flow event (arrivals, departures and on-off switches; medians over seeds)",
            "columns": ["variant", "level", "received_msgs", "received_bytes", "sent_msgs", "sent_bytes"],
            "rows": _messages(r.runs),
        },
    ]


def _messages(runs: pl.DataFrame) -> list[dict[str, Any]]:
    """Messages and bytes each level receives and sends per flow event, for HCC's variants
    and the centralized controllers (their root is the controller, their L1 the hosts)."""
    out = []
    order = (
        ("fig4", "HCC-2"),
        *(("overhead", v) for v in OVERHEAD),
        *(("overhead", v) for v in ONOFF_VARIANTS),
    )
    for study, v in order:
        sub = runs.filter((pl.col("study") == study) & (pl.col("variant") == v))
        if not sub.height:
            continue
        events = sub["flow_arrivals"] + sub["flow_departures"] + sub["demand_switches"]
        levels = ("l1", "root") if v.startswith("centralized") else ("l1", "l2", "l3")
        for lvl in levels:
            row: dict[str, Any] = {
                "variant": v,
                "level": {"l1": "hosts (L1)", "l2": "edge (L2)", "l3": "root (L3)", "root": "controller"}[lvl],
            }
            for way in ("received", "sent"):
                for what in ("msgs", "bytes"):
                    per = (sub[f"{lvl}_{way}_{what}"] / events).drop_nulls()
                    row[f"{way}_{what}"] = float(per.median()) if per.len() else None
            out.append(row)
    return out


# ---------------------------------------------------------------- the experiment


def plan(seeds: int, quick: bool, overrides: tuple[str, ...]) -> tuple[list[Job], Callable[[list[Any]], Report]]:
    """The runs (one seed when quick) and how their measurements become the report."""
    seed_list = seed_range(seeds, quick)
    all_jobs = jobs(seed_list, overrides, WEBSEARCH_T["quick" if quick else "full"])
    return all_jobs, lambda m: aggregate(m, all_jobs, seed_list, quick, overrides)


def baselines() -> list[dict[str, str]]:
    """What the setup table (papers/hcc.toml) does not state: how HCC's and the centralized
    controller's flows start and pace, and the gRPC think time, each with its source."""
    b, v = cl.baseline, cl.scenario_value
    paper, ours = "HCC paper, section IV", "our choice (the paper gives none)"
    return [
        b(
            "HCC (web search, steps)",
            "before the first share",
            "TCP with the initial window (10 segments)",
            paper + " ('initial congestion window is set to 10')",
        ),
        b(
            "HCC (gRPC)",
            "before the first share",
            f'nothing (`first_rate = "{v(GRPC, "scheme.first_rate")}"`): the first packet waits for the first rate',
            "HCC paper, section IV-B: 'we send the first packet of a flow after a rate update with a uniform delay'",
        ),
        b(
            "HCC",
            "random start delay",
            "uniform in [0, 1 / rate] for a packet that would leave at once after a new rate",
            "HCC paper, section IV-B; a flow already waiting for its next slot keeps it (ours: holding it too would lose throughput and align phases)",
        ),
        b(
            "HCC",
            "start delays of one host's flows",
            "spread: each at the widest gap between the host's other flows' next packets (`phase = \"spread\"`)",
            ours
            + ": the paper does not say whether one host's delays are independent; independent draws are `phase = \"uniform\"` (the gRPC queue row's detail)",
        ),
        b(
            "HCC",
            "a zero demand",
            "quantized to 0 (an off application reserves nothing)",
            ours + ": a level above 0 would give capacity to flows that send nothing",
        ),
        b(
            "gRPC",
            "think time",
            f"normal, mean {v(GRPC, 'rpc.0.think.mean')}, standard deviation {v(GRPC, 'rpc.0.think.std')} (truncated at 0)",
            "HCC paper, section IV-B ('a mean of 2 milliseconds and a variance of 0.01 millisecond', read in ms^2)",
        ),
        b(
            "centralized (both)",
            "headroom, message sizes",
            "2 % (HCC's); report 16 B + 8 B per flow, rate 16 B per flow",
            ours + ": those of HCC's messages",
        ),
        b(
            "centralized (both)",
            "link capacities",
            "read at every computation, so the core's steps reach it within a period",
            "as HCC's agents read their ports' at every cycle",
        ),
        b(
            "centralized (both)",
            "before the first rate",
            "TCP with the initial window (10 segments); the first rate after a uniform delay of up to one packet time",
            'as HCC\'s flows start (`first_rate = "window"`)',
        ),
        b(
            "centralized, polling (sensitivity)",
            "reports and rates",
            "every 20 us each host with flows reports all of them and the controller sends every flow its rate",
            ours + ": corral's earlier reading of 'periodically collects flow demands ... and distributes the allocations'",
        ),
    ]


def write(report: Report, out: Path) -> None:
    report.runs.write_csv(out / "runs.csv", float_precision=6)
    figures.fct_cdf(report.fct, out / "fct_cdf.png")
    run_s = WEBSEARCH_T["quick" if report.quick else "full"]
    for study, name in (("fig4_full", "websearch_series.png"), ("fig4", "websearch_series_one_rate.png")):
        series = report.series.filter(pl.col("study") == study)
        figures.websearch_series(series, phases(run_s, study), out / name, READINGS[study][1])
    figures.steps(report.util, STEP_TIMES, out / "steps.png")
    figures.overhead(report.runs, out / "overhead.png")
    figures.grpc(report.runs, out / "grpc.png")
    body = [
        "## Figures",
        "",
        "![web search series, full core](websearch_series.png)",
        "![web search series, one rate](websearch_series_one_rate.png)",
        "![FCT CDF](fct_cdf.png)",
        "![capacity steps](steps.png)",
        "![overhead](overhead.png)",
        "![gRPC](grpc.png)",
        "",
        "## Files",
        "",
        "`claims.json`: the claims above; `report.json`: what ran, the claims and every run's numbers; "
        "`runs.csv`: one row per run (study, variant, seed) with every measured number.",
    ]
    cl.write_report(
        out,
        PAPER,
        report,
        title="HCC reproduction (hierarchical congestion control, section IV)",
        baselines=baselines(),
        quick_means=QUICK_MEANS,
        body=body,
        table=TABLE,
        tables=report.tables,
    )


def rich_tables(report: Report) -> list[Table]:
    return [cl.claims_table(cl.rich_title("HCC", report), report.claims)]


reproduce = experiment(KIND, (SCENARIO_DIR,), plan, measure, write)
