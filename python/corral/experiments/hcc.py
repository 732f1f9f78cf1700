"""HCC reproduction (hierarchical congestion control, section IV): `corral reproduce hcc`.

Runs the paper's three-tier tree (1 core, 2 aggregation and 8 edge switches, 8 hosts each;
the 32 left hosts send to the 32 right hosts) and measures from the result tables only:

- Fig. 4 (web search): HCC-2 against NewReno, CUBIC and DCTCP on the same flows, with the
  core links at 10, 50 and 5 Gbps for a third of T = 0.1 s each: FCT (mean and p99 over
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
  with 5 % headroom, to show what the queue owes to the 2 % default).

The paper's loads "50 %, 10 %, 100 %" are read as one Poisson arrival rate offering 5 Gbps
against the three core capacities (the issue's reading). `--quick` runs one seed.
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
from . import hcc_figures as figures
from . import summary_json
from .claims import claim, claims_table, median, median_range, per_seed, ratio, report_head, rich_title
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
CENTRAL = ("scheme.kind=ideal", "scheme.mode=periodic", "scheme.period=20us", "scheme.controller=agg0",
           "scheme.headroom=0.02")
# Websearch phases: (start, end, core capacity in bit/s, offered load).
PHASES = ((0.0, 1 / 30, 10e9, 0.5), (1 / 30, 2 / 30, 50e9, 0.1), (2 / 30, 0.1, 5e9, 1.0))
# Capacity steps of steps.toml: (time, capacity).
STEP_TIMES = ((0.0, 10e9), (0.01, 50e9), (0.02, 5e9))
STEP_END = 0.03
BUSY = 0.95  # "busy": the core port's utilization
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
    raise ValueError(v)


def jobs(seeds: list[int], overrides: tuple[str, ...] = ()) -> list[Job]:
    out = []
    for seed in seeds:
        for v in ("HCC-2", *TCPS, "HCC-1", "HCC-3", "HCC-2, no quantization", "centralized"):
            study = "fig4" if v == "HCC-2" or v in TCPS else "overhead"
            out.append(Job(WEBSEARCH, (f"seed={seed}", *_variant(v, "traffic"), *overrides), {"study": study, "variant": v, "seed": seed}))
        for v in ("HCC-2", *TCPS):
            out.append(Job(STEPS, (f"seed={seed}", *_variant(v, "flows"), *overrides), {"study": "steps", "variant": v, "seed": seed}))
        for v in ("HCC-2", *TCPS, "HCC-2, headroom 5 %"):
            out.append(Job(GRPC, (f"seed={seed}", *_variant(v, "rpc"), *overrides), {"study": "grpc", "variant": v, "seed": seed}))
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
    rows = [(t[i], (tx[i] - tx[i - 1]) * 8 / ((t[i] - t[i - 1]) * _capacity(t[i - 1] + 1e-9, schedule)))
            for i in range(1, len(t)) if t[i] > t[i - 1]]
    return pl.DataFrame(rows, schema=["time_s", "util"], orient="row")


def convergence(util: pl.DataFrame, start: float, end: float) -> tuple[float | None, float | None]:
    """After a step at `start`: the time until the port stays busy (every window of
    `WINDOW` samples in the following `HOLD` at least `BUSY`), and the share of windows busy
    from then until `end`."""
    sub = util.filter((pl.col("time_s") > start + 1e-12) & (pl.col("time_s") <= end + 1e-12))
    u = sub["util"].to_list()
    t = sub["time_s"].to_list()
    if len(u) < WINDOW:
        return None, None
    means = [sum(u[i:i + WINDOW]) / WINDOW for i in range(len(u) - WINDOW + 1)]
    span = max(1, round(HOLD / (t[1] - t[0]))) if len(t) > 1 else 1
    for i in range(len(means)):
        ahead = means[i:i + span]
        if len(ahead) == span and min(ahead) >= BUSY:
            busy = means[i::WINDOW]
            return t[i] - (t[1] - t[0]) - start, sum(m >= BUSY for m in busy) / len(busy)
    return None, None


def measure(job: Job, res: Results) -> dict[str, Any]:
    """The numbers one run contributes, from its result tables."""
    counters = ((res.summary.get("scheme") or {}).get("counters")) or {}
    row: dict[str, Any] = {**job.labels, "root_received_bytes": counters.get("root_received_bytes", 0),
                           "root_sent_bytes": counters.get("root_sent_bytes", 0)}
    q = _core_samples(res)
    if job.labels["study"] == "steps":
        util = _utilization(q, STEP_TIMES)
        ends = [s[0] for s in STEP_TIMES[1:]] + [STEP_END]
        for k, ((at, _), end) in enumerate(zip(STEP_TIMES, ends)):
            row[f"step{k}_converge_s"], row[f"step{k}_busy_share"] = convergence(util, at, end)
        return {"row": row, "flows": None, "series": None, "util": util.with_columns(pl.lit(job.labels["variant"]).alias("variant"), pl.lit(job.labels["seed"]).alias("seed"))}
    f = res.flows
    if job.labels["study"] == "grpc":
        resp = f.filter((pl.col("size_bytes") == RESPONSE) & pl.col("fct_s").is_not_null())["fct_s"]
        row.update({
            "responses": resp.len(),
            "mean_response_fct_s": resp.mean(),
            "p99_response_fct_s": resp.quantile(0.99),
            "queue_median_pkts": q["packets"].median(),
            "queue_p99_pkts": q["packets"].quantile(0.99),
            "drops": res.summary.get("packets_dropped"),
        })
        return {"row": row, "flows": None, "util": None, "series": None}
    lat = res.latency["latency_s"]
    jain = res.throughput_class.filter(pl.col("class") == "*")["jain"].drop_nulls()
    row.update({
        "flows": f.height,
        "finished": int(f["fct_s"].is_not_null().sum()),
        "queue_median_pkts": q["packets"].median(),
        "queue_p99_pkts": q["packets"].quantile(0.99),
        "jain_ge_09_share": float((jain >= 0.9).mean()) if jain.len() else None,
        "jain_ge_08_share": float((jain >= 0.8).mean()) if jain.len() else None,
        "latency_p99_over_min": float(lat.quantile(0.99) / lat.min()) if lat.len() else None,
        "drops": res.summary.get("packets_dropped"),
    })
    for k, (a, b, _, _) in enumerate(PHASES):
        ph = q.filter((pl.col("time_s") >= a) & (pl.col("time_s") < b))["packets"]
        row[f"phase{k}_queue_median_pkts"] = ph.median()
        row[f"phase{k}_queue_over_800_share"] = float((ph > 800).mean()) if ph.len() else None
    series = None
    if job.labels["study"] == "fig4":
        tp = res.throughput_class.filter(pl.col("class") == "*").select("time_s", "goodput_bps", "jain")
        series = tp.join(q.select("time_s", "packets"), on="time_s", how="left").with_columns(
            pl.lit(job.labels["variant"]).alias("variant"), pl.lit(job.labels["seed"]).alias("seed"))
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
            frames.append(fl.filter(pl.col("flow_id").is_in(sorted(done or ()))).with_columns(
                pl.lit(seed).alias("seed"), pl.lit(v).alias("variant")))
    return pl.concat(frames) if frames else pl.DataFrame()


def aggregate(measured: list[dict[str, Any]], jobs_: list[Job], seeds: list[int], quick: bool, overrides: tuple[str, ...]) -> Report:
    pairs = [(j.labels, m) for j, m in zip(jobs_, measured)]
    fct = _common_fcts(pairs)
    rows = [m["row"] for m in measured]
    if fct.height:
        stats = fct.group_by("seed", "variant").agg(mean_fct_s=pl.col("fct_s").mean(), p99_fct_s=pl.col("fct_s").quantile(0.99), common_flows=pl.len())
        by = {(r["seed"], r["variant"]): r for r in stats.to_dicts()}
        for r in rows:
            r.update({k: v for k, v in by.get((r["seed"], r["variant"]), {}).items() if k not in ("seed", "variant")} if r["study"] == "fig4" else {})
    runs = pl.DataFrame(rows, infer_schema_length=None)
    util = pl.concat([m["util"] for m in measured if m["util"] is not None])
    series = pl.concat([m["series"] for m in measured if m["series"] is not None])
    report = Report(runs, fct, util, series, [], seeds, quick, overrides)
    report.claims = claims(report)
    return report


# ---------------------------------------------------------------- claims


def claims(r: Report) -> list[dict[str, Any]]:
    runs = r.runs
    out: list[dict[str, Any]] = []
    fig4 = {"study": "fig4"}

    def add(fig: str, text: str, measured: str, ok: bool | None, note: str = "") -> None:
        out.append(claim(fig, text, measured, ok, note))

    # Queue (acceptance 2).
    qm = per_seed(runs, "queue_median_pkts", **fig4, variant="HCC-2")
    q99 = per_seed(runs, "queue_p99_pkts", **fig4, variant="HCC-2")
    add("Fig. 4d", "HCC's queue at the core port: median <= 2 packets, p99 <= 20",
        f"median {median_range(qm, '.0f')}, p99 {median_range(q99, '.0f')}", bool(qm) and median(qm) <= 2 and median(q99) <= 20)
    over = {v: per_seed(runs, "phase2_queue_over_800_share", **fig4, variant=v) for v in ("newreno", "cubic")}
    add("Fig. 4d", "at 100 % load (5 Gbps core): NewReno and CUBIC above 800 packets in at least half the samples",
        f"NewReno {median_range(over['newreno'], '.2f')}, CUBIC {median_range(over['cubic'], '.2f')} of samples",
        all(bool(x) and median(x) >= 0.5 for x in over.values()),
        "one Poisson rate offers 5 Gbps: about 30 flows per run, so the 5 Gbps phase is often idle between flows")
    dq = per_seed(runs, "phase2_queue_median_pkts", **fig4, variant="dctcp")
    add("Fig. 4d", "at 100 % load: DCTCP's median queue 40-100 packets (K = 65)", f"{median_range(dq, '.0f')} packets",
        bool(dq) and 40 <= median(dq) <= 100, "the same light load: DCTCP's queue is often empty between flows")
    # FCT (acceptance 3).
    for v in TCPS:
        mean = [1 - x for x in ratio(runs, "mean_fct_s", {**fig4, "variant": "HCC-2"}, {**fig4, "variant": v})]
        p99 = [1 - x for x in ratio(runs, "p99_fct_s", {**fig4, "variant": "HCC-2"}, {**fig4, "variant": v})]
        paper = {"newreno": (62, 68), "cubic": (54, 39), "dctcp": (42, 49)}[v]
        add("Fig. 4c", f"HCC's FCT vs {v}: mean >= 30 % lower (paper {paper[0]} %), p99 >= 25 % lower (paper {paper[1]} %)",
            f"mean {median_range(mean, '.0%')} lower, p99 {median_range(p99, '.0%')} lower",
            bool(mean) and median(mean) >= 0.30 and median(p99) >= 0.25, "over the flows every variant finished")
    # Fairness (acceptance 4).
    j9 = per_seed(runs, "jain_ge_09_share", **fig4, variant="HCC-2")
    add("Fig. 4e", "HCC's Jain index >= 0.9 in >= 80 % of 1 ms windows", median_range(j9, '.0%'), bool(j9) and median(j9) >= 0.8,
        "windows with at least one flow active through the whole window")
    # Capacity steps (acceptance 5): the step up is where the TCPs must catch up; after the
    # step down every sender overfills the port at once, so only HCC's staying busy is checked.
    root_cycle = 2 * 10e-6  # HCC-2's root: Cycle_child = 2 x the 10 us aggregation-edge delay
    steps = runs.filter(pl.col("study") == "steps")
    for k, label in ((1, "10 -> 50 Gbps"), (2, "50 -> 5 Gbps")):
        hcc = per_seed(runs, f"step{k}_converge_s", study="steps", variant="HCC-2")
        busy = per_seed(runs, f"step{k}_busy_share", study="steps", variant="HCC-2")
        ok = bool(hcc) and len(hcc) == len(r.seeds) and median(hcc) <= 2 * root_cycle and median(busy) >= BUSY
        text = f"HCC {median_range(hcc, '.0f', 1e6)} us, then busy in {median_range(busy, '.0%')} of 100 us windows"
        if k == 1:
            faster, never = [], 0
            for seed in r.seeds:
                t = steps.filter((pl.col("seed") == seed) & pl.col("variant").is_in(TCPS))[f"step{k}_converge_s"].drop_nulls()
                h = per_seed(steps, f"step{k}_converge_s", seed=seed, variant="HCC-2")
                never += 3 - t.len()
                if h and h[0] > 0:
                    faster.append(t.min() / h[0] if t.len() else float("inf"))
            ok = ok and bool(faster) and median(faster) >= 2
            text += f"; fastest TCP / HCC {median_range(faster, '.1f')}x ({never} of {3 * len(r.seeds)} TCP runs never stay busy)"
            claim_text = f"{label}: HCC >= 95 % busy within 2 root cycles (40 us), >= 2x sooner than the fastest TCP"
        else:
            claim_text = f"{label}: HCC >= 95 % busy within 2 root cycles (40 us) and stays busy"
        add("Fig. 4a-b", claim_text, text, ok, "core port utilization per 100 us, held for 1 ms; steps.toml, 8 backlogged flows")
    # Latency (acceptance 6).
    lat = per_seed(runs, "latency_p99_over_min", **fig4, variant="HCC-2")
    add("Fig. 4f", "HCC's p99 one-way packet latency <= 1.1x the unloaded path's", f"{median_range(lat, '.3f')}x",
        bool(lat) and median(lat) <= 1.1, "unloaded path: the smallest one-way delay measured in the run")
    # Overhead (acceptance 7).
    rx = ratio(runs, "root_received_bytes", {"variant": "HCC-2", "study": "fig4"}, {"variant": "centralized"})
    tx = ratio(runs, "root_sent_bytes", {"variant": "HCC-2", "study": "fig4"}, {"variant": "centralized"})
    add("Fig. 4g-h", "HCC-2 / centralized at the root: received <= 0.5x (paper 0.27x), sent <= 0.05x (paper 0.005x)",
        f"received {median_range(rx, '.3f')}x, sent {median_range(tx, '.4f')}x", bool(rx) and median(rx) <= 0.5 and median(tx) <= 0.05,
        "centralized: `ideal` in periodic mode at agg0, every 20 us")
    noq = ratio(runs, "root_received_bytes", {"variant": "HCC-2, no quantization"}, {"variant": "HCC-2", "study": "fig4"})
    add("Fig. 4g", "no quantization: root receives >= 30 % more (paper 70 %)", f"{median_range([x - 1 for x in noq], '+.0%')}",
        bool(noq) and median(noq) >= 1.3,
        "every flow demands line rate, so an agent's capped demands take one or two values: bins merge nothing, and refits add deltas")
    order = []
    for col in ("root_received_bytes", "root_sent_bytes"):
        v = [median(per_seed(runs, col, variant=h, **({"study": "fig4"} if h == "HCC-2" else {}))) for h in CYCLES]
        order.append(v)
    mono = all(None not in v and v[0] < v[1] < v[2] for v in order)
    add("Fig. 4g-h", "root overhead HCC-1 < HCC-2 < HCC-3, received and sent",
        "; ".join(f"{name}: " + " < ".join(f"{x:,.0f}" if x is not None else "–" for x in v) for name, v in zip(("received", "sent"), order)), mono,
        "cycles (child, parent) in link delays: " + ", ".join(f"{k} {c}x/{p}x" for k, (c, p) in CYCLES.items()))
    # gRPC (acceptance 8).
    grpc = {"study": "grpc"}
    fct = {v: ratio(runs, "mean_response_fct_s", {**grpc, "variant": "HCC-2"}, {**grpc, "variant": v}) for v in TCPS}
    add("Fig. 5", "gRPC: HCC's mean response FCT <= 0.75x NewReno's and CUBIC's, <= DCTCP's (paper 47/46/9 % lower)",
        ", ".join(f"{v} {median_range(fct[v], '.2f')}x" for v in TCPS),
        all(fct.values()) and median(fct["newreno"]) <= 0.75 and median(fct["cubic"]) <= 0.75 and median(fct["dctcp"]) <= 1.0,
        "500 sessions keep the core busy under every transport; max-min shares it equally among equal responses")
    gq = per_seed(runs, "queue_p99_pkts", **grpc, variant="HCC-2")
    g5 = per_seed(runs, "queue_p99_pkts", **grpc, variant="HCC-2, headroom 5 %")
    add("Fig. 5", "gRPC: HCC's queue p99 <= 20 packets", f"{median_range(gq, '.0f')} packets (headroom 5 %: {median_range(g5, '.0f')})",
        bool(gq) and median(gq) <= 20, "the leaves' rates never sum above the core, but their packets bunch in time (README, HCC)")
    return out


# ---------------------------------------------------------------- the experiment


def plan(seeds: int, quick: bool, overrides: tuple[str, ...]) -> tuple[list[Job], Callable[[list[Any]], Report]]:
    """The runs (one seed when quick) and how their measurements become the report."""
    seed_list = seed_range(seeds, quick)
    all_jobs = jobs(seed_list, overrides)
    return all_jobs, lambda m: aggregate(m, all_jobs, seed_list, quick, overrides)


def write(report: Report, out: Path) -> None:
    report.runs.write_csv(out / "runs.csv", float_precision=6)
    figures.fct_cdf(report.fct, out / "fct_cdf.png")
    figures.websearch_series(report.series, PHASES, out / "websearch_series.png")
    figures.steps(report.util, STEP_TIMES, out / "steps.png")
    figures.overhead(report.runs, out / "overhead.png")
    figures.grpc(report.runs, out / "grpc.png")
    text = [
        *report_head("HCC reproduction (hierarchical congestion control, section IV)", report),
        "![web search series](websearch_series.png)",
        "![FCT CDF](fct_cdf.png)",
        "![capacity steps](steps.png)",
        "![overhead](overhead.png)",
        "![gRPC](grpc.png)",
        "",
        "## Runs",
        "",
        "`runs.csv`: one row per run (study, variant, seed) with every measured number.",
    ]
    (out / "report.md").write_text("\n".join(text) + "\n")
    summary_json.write_reproduction(out / "summary.json", "hcc", "HCC: hierarchical congestion control with aggregated, quantized and pruned messages", report)


def rich_tables(report: Report) -> list[Table]:
    return [claims_table(rich_title("HCC", report), report.claims)]


reproduce = experiment(KIND, (SCENARIO_DIR,), plan, measure, write)
