"""HCC reproduction (hierarchical congestion control, section IV): `corral reproduce hcc`.

Runs the paper's three-tier tree (1 core, 2 aggregation and 8 edge switches, 8 hosts each;
the 32 left hosts send to the 32 right hosts) and measures from the result tables only:

- Fig. 4 (web search): HCC-2 against NewReno, CUBIC and DCTCP on the same flows, with the
  core links at 10, 50 and 5 Gbps for a third of the run T each: FCT (mean and p99 over
  the flows every variant finished), the queue at the left aggregation switch's core port
  (sampled every 1 ms), Jain's index per 1 ms, and one-way packet latency against the
  unloaded path's;
- capacity steps (Fig. 4a-b's convergence): 8 always-backlogged flows through the same
  steps, the core port's utilization every 10 us, and the time to fill it after each step;
- Figs. 4g-h (overhead): bytes the root agent receives and sends for HCC-1, HCC-2 (with and
  without quantization) and HCC-3, and for the centralized controller (`ideal` in periodic
  mode at the same switch);
- Fig. 5 (gRPC on-off): 500 closed-loop request/response sessions on 10 Gbps links for 0.5 s,
  the mean and p99 response FCT and the core port's queue, HCC-2 against the TCPs (and HCC-2
  with 5 % headroom, to show what the queue owes to the 2 % default, and with independent
  uniform start phases, `phase = "uniform"`, to show what it owes to spreading one host's flows).

The paper's loads "50 %, 10 %, 100 %" are read as one Poisson arrival rate offering 5 Gbps
against the three core capacities (the issue's reading). The paper runs T = 0.1 s and says
"Longer simulations did not change the observed results" (section IV-A): at 0.1 s a phase
sees about 10 web-search flows and realizes 0.56-1.45 of its 50 % load over five seeds, so
the full run takes T = 3 s (about 360 flows a phase; median loads 0.48, 0.095 and 1.08 of
0.5, 0.1 and 1.0 on seeds 1-5), and `--quick` runs one seed at the paper's 0.1 s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import polars as pl
from rich.table import Table

from ..results import Results
from . import claims as cl
from . import conditions as cond
from . import hcc_figures as figures
from .claims import median_range, per_seed, ratio
from .runner import Job, experiment, seed_range

SCENARIO_DIR = Path(str(resources.files("corral") / "scenarios" / "hcc"))
WEBSEARCH = SCENARIO_DIR / "websearch.toml"
STEPS = SCENARIO_DIR / "steps.toml"
GRPC = SCENARIO_DIR / "grpc.toml"
RESPONSE = 256 * 1024  # bytes of a gRPC response
KIND = "reproduce-hcc"
CORE_PORT = ("agg0", 4)  # the left aggregation switch's port to the core: the bottleneck
MSS, WIRE = 1460, 1500
TCPS = ("newreno", "cubic", "dctcp")
# (Cycle_child, Cycle_parent) in link delays: HCC-1 the slowest, HCC-2 the paper's default.
CYCLES = {"HCC-1": (4, 16), "HCC-2": (2, 8), "HCC-3": (1, 4)}
# The centralized controller at the root's switch, every HCC-2 root cycle (2 x 10 us), with
# HCC's headroom and message sizes.
CENTRAL = ("scheme.kind=ideal", "scheme.mode=periodic", "scheme.period=20us", "scheme.controller=agg0", "scheme.headroom=0.02")
# Websearch phases, as fractions of the run T: (start, end, core capacity in bit/s, offered load).
PHASE_SHARES = ((0.0, 1 / 3, 10e9, 0.5), (1 / 3, 2 / 3, 50e9, 0.1), (2 / 3, 1.0, 5e9, 1.0))
# The web-search run's T in seconds: the paper's 0.1 s for --quick, 3 s for the full run (module doc).
WEBSEARCH_T = {"quick": 0.1, "full": 3.0}


def phases(run_s: float) -> tuple[tuple[float, float, float, float], ...]:
    """The web-search phases of a run of `run_s` seconds: (start, end, core capacity, load)."""
    return tuple((a * run_s, b * run_s, cap, load) for a, b, cap, load in PHASE_SHARES)


def _websearch_length(run_s: float) -> tuple[str, ...]:
    """Overrides that run websearch.toml for `run_s` seconds, its core steps at T/3 and 2T/3."""
    steps = [a for a, *_ in phases(run_s)[1:] for _ in range(2)]  # both aggregation switches' core links
    return (f"duration={round(run_s * 1e6)}us", *(f"events.{i}.at={round(at * 1e6)}us" for i, at in enumerate(steps)))


# Capacity steps of steps.toml: (time, capacity).
STEP_TIMES = ((0.0, 10e9), (0.01, 50e9), (0.02, 5e9))
STEP_END = 0.03
BUSY = 0.95  # "busy": the core port's utilization
GRPC_WARMUP = 0.020  # s: the gRPC core's utilization is judged after the sessions' first 20 ms
WINDOW = 10  # samples (of 10 us) per utilization window
HOLD = 0.001  # s the utilization must hold after convergence


def _variant(v: str, where: str) -> tuple[str, ...]:
    if v in TCPS:
        return (f"{where}.0.transport={v}",)
    if v in CYCLES:
        c, p = CYCLES[v]
        return (f"scheme.child_cycle={c}", f"scheme.parent_cycle={p}")
    if v == "HCC-2, no quantization":
        return (*_variant("HCC-2", where), "scheme.bins=0")
    if v == "centralized":
        return CENTRAL
    if v == "HCC-2, headroom 5 %":
        return (*_variant("HCC-2", where), "scheme.headroom=0.05")
    if v == "HCC-2, uniform phases":
        return (*_variant("HCC-2", where), "scheme.phase=uniform")
    raise ValueError(v)


def jobs(seeds: list[int], overrides: tuple[str, ...] = (), websearch_s: float = WEBSEARCH_T["full"]) -> list[Job]:
    out = []
    length = _websearch_length(websearch_s)
    for seed in seeds:
        for v in ("HCC-2", *TCPS, "HCC-1", "HCC-3", "HCC-2, no quantization", "centralized"):
            study = "fig4" if v == "HCC-2" or v in TCPS else "overhead"
            out.append(
                Job(
                    WEBSEARCH,
                    (f"seed={seed}", *length, *_variant(v, "traffic"), *overrides),
                    {"study": study, "variant": v, "seed": seed},
                )
            )
        for v in ("HCC-2", *TCPS):
            out.append(
                Job(STEPS, (f"seed={seed}", *_variant(v, "flows"), *overrides), {"study": "steps", "variant": v, "seed": seed})
            )
        for v in ("HCC-2", *TCPS, "HCC-2, headroom 5 %", "HCC-2, uniform phases"):
            out.append(
                Job(GRPC, (f"seed={seed}", *_variant(v, "rpc"), *overrides), {"study": "grpc", "variant": v, "seed": seed})
            )
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


def measure(job: Job, res: Results) -> dict[str, Any]:
    """The numbers one run contributes, from its result tables."""
    counters = ((res.summary.get("scheme") or {}).get("counters")) or {}
    row: dict[str, Any] = {
        **job.labels,
        "root_received_bytes": counters.get("root_received_bytes", 0),
        "root_sent_bytes": counters.get("root_sent_bytes", 0),
    }
    q = _core_samples(res)
    if job.labels["study"] == "steps":
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
    if job.labels["study"] == "grpc":
        resp = f.filter((pl.col("size_bytes") == RESPONSE) & pl.col("fct_s").is_not_null())["fct_s"]
        row.update(**cond.realized(f, res.ports, res.summary["sim_time_s"]))
        row.update(
            {
                "responses": resp.len(),
                "mean_response_fct_s": resp.mean(),
                "p99_response_fct_s": resp.quantile(0.99),
                "queue_median_pkts": q["packets"].median(),
                "queue_p99_pkts": q["packets"].quantile(0.99),
                "core_util_after_20ms": _busy_after(q, GRPC_WARMUP, 10e9),
                "drops": res.summary.get("packets_dropped"),
            }
        )
        return {"row": row, "flows": None, "util": None, "series": None}
    lat = res.latency["latency_s"]
    jain = res.throughput_class.filter(pl.col("class") == "*")["jain"].drop_nulls()
    row.update(**cond.realized(f, res.ports, res.summary["sim_time_s"]))
    rates = cond.host_rates(res.ports)
    run_phases = phases(res.summary["sim_time_s"])
    for k, (a, b, capacity, _) in enumerate(run_phases):
        # The offered load of each phase: the flows arriving in it, against its core capacity.
        arrived = f.filter((pl.col("start_s") >= a) & (pl.col("start_s") < b))
        row[f"phase{k}_load_offered"] = cond.offered_bytes(arrived, rates, res.summary["sim_time_s"]) * 8 / ((b - a) * capacity)
    row.update(
        {
            "flows": f.height,
            "finished": int(f["fct_s"].is_not_null().sum()),
            "queue_median_pkts": q["packets"].median(),
            "queue_p99_pkts": q["packets"].quantile(0.99),
            "queue_over_800_share": float((q["packets"] > 800).mean()) if q.height else None,
            "jain_mean": float(jain.mean()) if jain.len() else None,
            "jain_ge_09_share": float((jain >= 0.9).mean()) if jain.len() else None,
            "jain_ge_08_share": float((jain >= 0.8).mean()) if jain.len() else None,
            "latency_p99_over_min": float(lat.quantile(0.99) / lat.min()) if lat.len() else None,
            "drops": res.summary.get("packets_dropped"),
        }
    )
    for k, (a, b, _, _) in enumerate(run_phases):
        ph = q.filter((pl.col("time_s") >= a) & (pl.col("time_s") < b))["packets"]
        row[f"phase{k}_queue_median_pkts"] = ph.median()
        row[f"phase{k}_queue_over_800_share"] = float((ph > 800).mean()) if ph.len() else None
    series = None
    if job.labels["study"] == "fig4":
        tp = res.throughput_class.filter(pl.col("class") == "*").select("time_s", "goodput_bps", "jain")
        series = tp.join(q.select("time_s", "packets"), on="time_s", how="left").with_columns(
            pl.lit(job.labels["variant"]).alias("variant"), pl.lit(job.labels["seed"]).alias("seed")
        )
    return {"row": row, "flows": f.select("flow_id", "size_bytes", "fct_s"), "util": None, "series": series}


# ---------------------------------------------------------------- aggregating


@dataclass
class Report:
    runs: pl.DataFrame
    fct: pl.DataFrame  # seed, variant, flow_id, fct_s: flows every fig4 variant finished
    util: pl.DataFrame  # steps: seed, variant, time_s, util
    series: pl.DataFrame  # fig4: seed, variant, time_s, goodput_bps, jain, packets (1 ms)
    claims: list[dict[str, Any]]
    seeds: list[int]
    quick: bool
    overrides: tuple[str, ...] = ()


def _common_fcts(pairs: list[tuple[dict, dict]]) -> pl.DataFrame:
    """Per seed, the FCTs of the flows that every Fig. 4 variant finished (a variant that
    finishes more of the late, large flows would otherwise look slower)."""
    frames = []
    for seed in sorted({l["seed"] for l, _ in pairs}):
        runs = {l["variant"]: m["flows"] for l, m in pairs if l["study"] == "fig4" and l["seed"] == seed}
        done = None
        for fl in runs.values():
            ids = set(fl.filter(pl.col("fct_s").is_not_null())["flow_id"].to_list())
            done = ids if done is None else done & ids
        for v, fl in runs.items():
            frames.append(
                fl.filter(pl.col("flow_id").is_in(sorted(done or ()))).with_columns(
                    pl.lit(seed).alias("seed"), pl.lit(v).alias("variant")
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
        stats = fct.group_by("seed", "variant").agg(
            mean_fct_s=pl.col("fct_s").mean(), p99_fct_s=pl.col("fct_s").quantile(0.99), common_flows=pl.len()
        )
        by = {(r["seed"], r["variant"]): r for r in stats.to_dicts()}
        for r in rows:
            r.update(
                {k: v for k, v in by.get((r["seed"], r["variant"]), {}).items() if k not in ("seed", "variant")}
                if r["study"] == "fig4"
                else {}
            )
    runs = pl.DataFrame(rows, infer_schema_length=None)
    util = pl.concat([m["util"] for m in measured if m["util"] is not None])
    series = pl.concat([m["series"] for m in measured if m["series"] is not None])
    report = Report(runs, fct, util, series, [], seeds, quick, overrides)
    report.claims = claims(report)
    return report


# ---------------------------------------------------------------- claims


PAPER = cl.Paper(
    key="hcc",
    title="HCC: hierarchical congestion control with aggregated, quantized and pruned messages",
    tolerance=0.25,
    tolerance_reason=(
        "the paper's numbers come from one ns-3 run each, under a load whose reading is ours (one Poisson rate "
        "offering 5 Gbps against the three core capacities) and cycle values it does not give"
    ),
)
QUICK_MEANS = (
    "one seed, and the web-search runs at the paper's T = 0.1 s (the full run's are 3 s long, to reach the paper's loads)"
)
GRPC_RUN_S = 0.5  # the paper's T for gRPC: "0.5 second"


def _websearch(runs: pl.DataFrame, quick: bool, **where: Any) -> dict[str, Any]:
    """Conditions of a web-search row: the offered load of each phase against the paper's
    (50 %, 10 %, 100 % of the core), and the run's length against the T it was planned with
    (the paper's 0.1 s quick, 3 s full: module doc)."""
    sub = runs.filter(pl.col("study").is_in(["fig4", "overhead"]))
    for k, v in where.items():
        sub = sub.filter(pl.col(k) == v)
    loads = {
        f"load_phase{k}": cond.check(sub[f"phase{k}_load_offered"].to_list(), load) for k, (*_, load) in enumerate(PHASE_SHARES)
    }
    return cond.of_runs(sub, run_s=WEBSEARCH_T["quick" if quick else "full"], paper_run_s=0.1, **loads)


def claims(r: Report) -> list[dict[str, Any]]:
    runs = r.runs
    c = cl.Claims(PAPER)
    fig4 = {"study": "fig4"}
    ws = _websearch(runs, r.quick)

    # Fig. 4d: the queue at the core port, sampled every 1 ms.
    qm = per_seed(runs, "queue_median_pkts", **fig4, variant="HCC-2")
    c.add(
        "Fig. 4d",
        "HCC's core queue, median of 1 ms samples ('very close to zero')",
        qm,
        (None, 1.0),
        paper_value=0.0,
        conditions=ws,
        unit="packets",
        fmt=".1f",
        note="'very close to zero' read as at most one packet",
    )
    for v in ("newreno", "cubic"):
        full = [100 * x for x in per_seed(runs, "queue_over_800_share", **fig4, variant=v)]
        c.add(
            "Fig. 4d",
            f"{v}: share of 1 ms samples with the core queue near full ('most of the time')",
            full,
            (50.0, None),
            conditions=ws,
            unit="%",
            fmt=".0f",
            note="near full: above 800 of 1000 packets; 'most of the time' read as more than half",
        )
    dq = per_seed(runs, "queue_median_pkts", **fig4, variant="dctcp")
    c.add(
        "Fig. 4d",
        "DCTCP's core queue, median of 1 ms samples ('around 65 packets')",
        dq,
        PAPER.around(65.0),
        paper_value=65.0,
        conditions=ws,
        unit="packets",
        fmt=".0f",
    )
    # Fig. 4c: FCT over the flows every variant finished.
    papers = {"newreno": (62, 68), "cubic": (54, 39), "dctcp": (42, 49)}
    for v in TCPS:
        for stat, col, paper in (("mean", "mean_fct_s", papers[v][0]), ("p99", "p99_fct_s", papers[v][1])):
            lower = [100 * (1 - x) for x in ratio(runs, col, {**fig4, "variant": "HCC-2"}, {**fig4, "variant": v})]
            c.add(
                "Fig. 4c",
                f"HCC's {stat} FCT below {v}'s by",
                lower,
                PAPER.around(paper),
                paper_value=paper,
                null=0.0,
                conditions=ws,
                unit="%",
                fmt=".0f",
                note="over the flows every variant finished",
            )
    # Fig. 4e: Jain's index per 1 ms.
    for level, paper in ((0.8, 95.0), (0.9, 89.0)):
        share = [100 * x for x in per_seed(runs, f"jain_ge_0{int(level * 10)}_share", **fig4, variant="HCC-2")]
        c.add(
            "Fig. 4e",
            f"HCC: share of 1 ms windows with Jain's index above {level}",
            share,
            PAPER.around(paper),
            paper_value=paper,
            conditions=ws,
            unit="%",
            fmt=".0f",
            note="windows with at least one flow active through the whole window",
        )
    for v in TCPS:
        c.add(
            "Fig. 4e",
            f"{v}: mean Jain's index of 1 ms windows (paper: 'below 0.5' for the others)",
            per_seed(runs, "jain_mean", **fig4, variant=v),
            PAPER.at_most(0.5),
            paper_value=0.5,
            conditions=ws,
            unit="",
            fmt=".2f",
        )
    # Fig. 4g-h: overhead at the root.
    hcc2 = {"variant": "HCC-2", "study": "fig4"}
    for what, col, paper in (("received", "root_received_bytes", 0.27), ("sent", "root_sent_bytes", 0.005)):
        c.add(
            "Fig. 4g-h",
            f"root {what} bytes, HCC-2 over the centralized controller",
            ratio(runs, col, hcc2, {"variant": "centralized"}),
            PAPER.around(paper),
            paper_value=paper,
            null=1.0,
            conditions=ws,
            fmt=".4f",
            note="centralized: `ideal` in periodic mode at agg0, every 20 us (baselines)",
        )
    for what, col in (("received", "root_received_bytes"), ("sent", "root_sent_bytes")):
        for slow, fast in (("HCC-1", "HCC-2"), ("HCC-2", "HCC-3")):
            a = {"variant": fast, **({"study": "fig4"} if fast == "HCC-2" else {})}
            b = {"variant": slow, **({"study": "fig4"} if slow == "HCC-2" else {})}
            c.add(
                "Fig. 4g-h",
                f"root {what} bytes grow as the cycles shorten: {fast} over {slow}",
                ratio(runs, col, a, b),
                PAPER.above(1.0),
                null=1.0,
                conditions=ws,
                fmt=".3f",
                note="cycles (child, parent) in link delays: " + ", ".join(f"{k} {c_}x/{p}x" for k, (c_, p) in CYCLES.items()),
            )
    noq = ratio(runs, "root_received_bytes", {"variant": "HCC-2, no quantization"}, hcc2)
    c.add(
        "Fig. 4g",
        "no quantization: root received bytes over HCC-2's",
        noq,
        PAPER.around(1.7),
        paper_value=1.7,
        null=1.0,
        conditions=ws,
        fmt=".2f",
        note="a leaf demands its bytes not yet sent over its host agent's Cycle_parent, capped at its line rate",
    )
    noq_sent = ratio(runs, "root_sent_bytes", {"variant": "HCC-2, no quantization"}, hcc2)
    c.add(
        "Fig. 4h",
        "no quantization: root sent bytes over HCC-2's ('no significant change')",
        noq_sent,
        PAPER.around(1.0),
        paper_value=1.0,
        conditions=ws,
        fmt=".2f",
    )
    # Fig. 5: gRPC.
    grpc = {"study": "grpc"}
    gcond = cond.of_runs(runs.filter(pl.col("study") == "grpc"), run_s=GRPC_RUN_S)
    fig5 = {"newreno": (47, 40), "cubic": (46, 39), "dctcp": (9, 6)}
    for v in TCPS:
        for stat, col, paper in (("mean", "mean_response_fct_s", fig5[v][0]), ("p99", "p99_response_fct_s", fig5[v][1])):
            lower = [100 * (1 - x) for x in ratio(runs, col, {**grpc, "variant": "HCC-2"}, {**grpc, "variant": v})]
            c.add(
                "Fig. 5",
                f"gRPC: HCC's {stat} response FCT below {v}'s by",
                lower,
                PAPER.around(paper),
                paper_value=paper,
                null=0.0,
                conditions=gcond,
                unit="%",
                fmt=".0f",
                note="500 closed-loop sessions, 256 KiB responses",
            )
    gm = per_seed(runs, "queue_median_pkts", **grpc, variant="HCC-2")
    c.add(
        "Fig. 5",
        "gRPC: HCC's core queue, median of samples ('near zero')",
        gm,
        (None, 1.0),
        paper_value=0.0,
        conditions=gcond,
        unit="packets",
        fmt=".1f",
        note="'near zero' read as at most one packet",
    )
    # Our checks.
    q99 = per_seed(runs, "queue_p99_pkts", **fig4, variant="HCC-2")
    c.add(
        "Fig. 4d",
        "HCC's core queue, p99 of 1 ms samples",
        q99,
        (None, 20.0),
        kind="acceptance",
        conditions=ws,
        unit="packets",
        fmt=".0f",
    )
    gq = per_seed(runs, "queue_p99_pkts", **grpc, variant="HCC-2")
    g5 = per_seed(runs, "queue_p99_pkts", **grpc, variant="HCC-2, headroom 5 %")
    g_uniform = per_seed(runs, "queue_p99_pkts", **grpc, variant="HCC-2, uniform phases")
    c.add(
        "Fig. 5",
        "gRPC: HCC's core queue, p99 of samples",
        gq,
        (None, 20.0),
        kind="acceptance",
        conditions=gcond,
        unit="packets",
        fmt=".0f",
        detail=f"with 5 % headroom {median_range(g5, '.0f')}; with independent uniform phases {median_range(g_uniform, '.0f')}",
        note='one host\'s flows interleave their packets (`phase = "spread"`); independent phases of about 490 flows make an N*D/D/1 queue',
    )
    gu = [100 * x for x in per_seed(runs, "core_util_after_20ms", **grpc, variant="HCC-2")]
    c.add(
        "Fig. 5",
        "gRPC: HCC's core utilization after the first 20 ms",
        gu,
        (100 * BUSY, None),
        kind="acceptance",
        conditions=gcond,
        unit="%",
        fmt=".1f",
        note="rates sum to the core less 2 % headroom",
    )
    lat = per_seed(runs, "latency_p99_over_min", **fig4, variant="HCC-2")
    c.add(
        "Fig. 4f",
        "HCC's p99 one-way packet latency over the unloaded path's ('close to the physical latency')",
        lat,
        (None, 1.1),
        kind="acceptance",
        conditions=ws,
        fmt=".3f",
        note="unloaded path: the smallest one-way delay measured in the run",
    )
    _steps(r, c)
    return c.rows


def _steps(r: Report, c: cl.Claims) -> None:
    """Our capacity-step study (8 backlogged flows through the same steps): acceptance rows;
    the paper's Fig. 4a-b is the web-search run ("up to 4x faster" than the TCPs)."""
    runs = r.runs
    root_cycle = 2 * 10e-6  # HCC-2's root: Cycle_child = 2 x the 10 us aggregation-edge delay
    steps = runs.filter(pl.col("study") == "steps")
    scond = cond.of_runs(steps)
    note = "core port utilization per 100 us, held for 1 ms; steps.toml, 8 backlogged flows"
    for k, label in ((1, "10 -> 50 Gbps"), (2, "50 -> 5 Gbps")):
        hcc = [1e6 * x for x in per_seed(steps, f"step{k}_converge_s", variant="HCC-2")]
        c.add(
            "Fig. 4a-b",
            f"{label}: HCC's time to stay >= 95 % busy (2 root cycles: {2e6 * root_cycle:.0f} us)",
            hcc,
            (None, 2e6 * root_cycle),
            kind="acceptance",
            conditions=scond,
            unit="us",
            fmt=".0f",
            note=note,
        )
        busy = [100 * x for x in per_seed(steps, f"step{k}_busy_share", variant="HCC-2")]
        c.add(
            "Fig. 4a-b",
            f"{label}: share of 100 us windows HCC stays >= 95 % busy after converging",
            busy,
            (100 * BUSY, None),
            kind="acceptance",
            conditions=scond,
            unit="%",
            fmt=".0f",
        )
    faster, never = [], 0
    window = STEP_TIMES[2][0] - STEP_TIMES[1][0]
    for seed in r.seeds:
        t = steps.filter((pl.col("seed") == seed) & pl.col("variant").is_in(TCPS))["step1_converge_s"].fill_null(window)
        h = per_seed(steps, "step1_converge_s", seed=seed, variant="HCC-2")
        never += int(steps.filter((pl.col("seed") == seed) & pl.col("variant").is_in(TCPS))["step1_converge_s"].null_count())
        if h and h[0] > 0 and t.len():
            faster.append(t.min() / h[0])
    c.add(
        "Fig. 4a-b",
        "10 -> 50 Gbps: the fastest TCP's time to stay busy over HCC's (paper: HCC 'up to 4x faster')",
        faster,
        (2.0, None),
        kind="acceptance",
        conditions=scond,
        fmt=".1f",
        detail=f"{never} of {3 * len(r.seeds)} TCP runs never stay busy",
        note="a TCP that never stays busy counts at the step's 10 ms (a lower bound)",
    )


# ---------------------------------------------------------------- the experiment


def plan(seeds: int, quick: bool, overrides: tuple[str, ...]) -> tuple[list[Job], Callable[[list[Any]], Report]]:
    """The runs (one seed when quick) and how their measurements become the report."""
    seed_list = seed_range(seeds, quick)
    all_jobs = jobs(seed_list, overrides, WEBSEARCH_T["quick" if quick else "full"])
    return all_jobs, lambda m: aggregate(m, all_jobs, seed_list, quick, overrides)


def baselines() -> list[dict[str, str]]:
    """Every baseline's settings and where each comes from (read from the scenarios)."""
    b, v = cl.baseline, cl.scenario_value
    paper, ours = "HCC paper, section IV", "our choice (the paper gives none)"
    return [
        b(
            "all (web search)",
            "links",
            f"core {v(WEBSEARCH, 'topology.core_rate')} -> 50 -> 5 Gbps at T/3, 2T/3; others "
            f"{v(WEBSEARCH, 'topology.edge_rate')}; delays 100 / 10 / 1 us",
            paper,
        ),
        b(
            "all (web search)",
            "load",
            "one Poisson rate offering 5 Gbps (50 %, 10 %, 100 % of the three core capacities)",
            paper + "; the single-rate reading ours",
        ),
        b(
            "all (web search)",
            "run length T",
            f"{WEBSEARCH_T['full']:g} s ({WEBSEARCH_T['quick']:g} s with --quick)",
            "HCC paper, section IV-A: T = 0.1 s, and 'longer simulations did not change the observed results'; 3 s is ours, "
            "to reach the phases' loads (0.1 s: about 10 flows a phase)",
        ),
        b("all", "switch buffer", v(WEBSEARCH, "switch.buffer"), paper),
        b(
            "NewReno, CUBIC, DCTCP",
            "initial window",
            f"{v(WEBSEARCH, 'transport.initial_window')} segments",
            paper + " ('initial congestion window is set to 10')",
        ),
        b("NewReno, CUBIC, DCTCP", "min RTO", v(WEBSEARCH, "transport.min_rto"), ours),
        b(
            "NewReno, CUBIC, DCTCP",
            "loss recovery",
            "SACK, limited transmit, PRR, RACK-TLP (corral's defaults)",
            "the paper runs ns-3's TCPs and does not name their loss recovery: corral's defaults, which are Linux's and ns-3 3.44's",
        ),
        b(
            "DCTCP",
            "marking threshold K, gain g",
            f"{v(WEBSEARCH, 'switch.ecn_threshold')}, 1/16",
            "HCC paper (K = 65, 'the suggested value') and DCTCP's paper (g)",
        ),
        b("CUBIC", "beta, C", "0.7, 0.4", "RFC 9438"),
        b("HCC", "cycles (child, parent) in link delays", ", ".join(f"{k} {c_}/{p_}" for k, (c_, p_) in CYCLES.items()), ours),
        b("HCC", "headroom, bins, prune", "2 %, 16, 1 %", ours),
        b(
            "HCC",
            "a leaf's demand",
            "its bytes not yet sent over its host agent's Cycle_parent, capped at its line rate",
            "HCC paper, section III-D (leaf agents 'receive the application layer demands as input'); the horizon ours",
        ),
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
            "gRPC",
            "think time",
            f"normal, mean {v(GRPC, 'rpc.0.think.mean')}, standard deviation {v(GRPC, 'rpc.0.think.std')} (truncated at 0)",
            "HCC paper, section IV-B ('a mean of 2 milliseconds and a variance of 0.01 millisecond', read in ms^2)",
        ),
        b(
            "centralized",
            "controller, period",
            "`ideal`, periodic, at agg0 (the root's switch), every 20 us (HCC-2's root cycle)",
            ours,
        ),
        b(
            "centralized",
            "headroom, message sizes",
            "2 % (HCC's); report 16 B + 8 B per flow, rate 16 B per flow",
            ours + ": those of HCC's messages",
        ),
        b(
            "centralized",
            "link capacities",
            "read at every computation, so the core's steps reach it within a period",
            "as HCC's agents read their ports' at every cycle",
        ),
        b(
            "centralized",
            "before the first rate",
            "TCP with the initial window (10 segments)",
            'as HCC\'s flows start (`first_rate = "window"`)',
        ),
    ]


def write(report: Report, out: Path) -> None:
    report.runs.write_csv(out / "runs.csv", float_precision=6)
    figures.fct_cdf(report.fct, out / "fct_cdf.png")
    figures.websearch_series(
        report.series, phases(WEBSEARCH_T["quick" if report.quick else "full"]), out / "websearch_series.png"
    )
    figures.steps(report.util, STEP_TIMES, out / "steps.png")
    figures.overhead(report.runs, out / "overhead.png")
    figures.grpc(report.runs, out / "grpc.png")
    body = [
        "## Figures",
        "",
        "![web search series](websearch_series.png)",
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
    )


def rich_tables(report: Report) -> list[Table]:
    return [cl.claims_table(cl.rich_title("HCC", report), report.claims)]


reproduce = experiment(KIND, (SCENARIO_DIR,), plan, measure, write)
