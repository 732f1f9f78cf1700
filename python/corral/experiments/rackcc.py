"""RackCC reproduction (rack-to-rack JumboFlows, HotNets 2016, section 4): `corral reproduce
rackcc`.

- Fig. 2: the analytical model of Fast Start against slow start ([`rackcc_model`]), no
  simulation: speedup against the new subflow's size and against the JumboFlow's subflow
  count, for L = 1, 2, 3 RTTs to learn the fair share.
- Fig. 3: job completion time (the slowest of the subflows five servers in one rack send to
  five in another) under DCTCP over that under RackCC, on a k = 10 fat-tree
  (`fig3.toml`): the default point (25 subflows of 150 KB, 10 us aggregation period) and
  three sweeps, subflow count (a), aggregation period (b) and subflow size (c). Full RackCC
  and the "shared-alpha only" ablation. Everything runs twice: with ECMP (the scenario's
  routing), where a JumboFlow's subflows take different paths, and with per-packet spraying
  (the reading in which one JumboFlow is one ToR-to-ToR pipe, as the paper's alpha
  assumes). The default point runs at least 10 seeds.
- D_target (`dtarget.toml`): four senders into one receiver.
- Coexistence (`coexist.toml`): one JumboFlow of 4 subflows against 4 DCTCP flows.

`--quick` runs 3 seeds and fewer sweep points.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from rich.table import Table

from ..results import Results
from . import rackcc_figures as figures
from . import rackcc_model as model
from . import summary_json
from .claims import claim, claims_table, median, median_range, per_seed, report_head, rich_title
from .runner import Job, experiment, seed_range

SCENARIO_DIR = Path(str(resources.files("corral") / "scenarios" / "rackcc"))
FIG3 = SCENARIO_DIR / "fig3.toml"
DTARGET = SCENARIO_DIR / "dtarget.toml"
COEXIST = SCENARIO_DIR / "coexist.toml"
KIND = "reproduce-rackcc"
VARIANTS = {
    "DCTCP": ("flows.0.transport=dctcp",),
    "RackCC": (),
    "shared-alpha only": ("scheme.fast_start=false", "scheme.destination=false"),
}
ROUTINGS = {"ecmp": (), "spray": ("routing.kind=spray", "transport.dupthresh=10", "scheme.dupthresh=10")}
SERVERS = 5  # per rack; rack A is h0-h4, rack B (another pod) h25-h29
DEFAULT = {"subflows": 25, "period_us": 10, "size": 150_000}
SWEEPS = {
    "subflows": [5, 10, 25, 50, 100],
    "period_us": [1, 3, 10, 30, 100],
    "size": [10_000, 50_000, 150_000, 1_000_000, 10_000_000],
}
QUICK_SWEEPS = {"subflows": [5, 25, 100], "period_us": [1, 10, 100], "size": [10_000, 150_000, 1_000_000, 10_000_000]}
FIG3_SEEDS = 10  # the paper's, at least, for the default point
CAPACITY = 10e9  # the receiver's link in dtarget.toml
D_INTERVALS = 50  # acceptance: D within 10 % of C/4 after this many intervals (d = 100 us)
FIG2_SIZES = [16e3, 64e3, 256e3, 1e6, 4e6, 10e6]
FIG2_EXISTING = [1, 2, 4, 8, 16, 32]
FIG2_L = [1, 2, 3]


def _pairs(n: int) -> tuple[str, str]:
    """`n` subflows over the 25 server pairs of the two racks, round robin."""
    pairs = [(s, SERVERS * SERVERS + d) for s in range(SERVERS) for d in range(SERVERS)]
    chosen = [pairs[i % len(pairs)] for i in range(n)]
    src = ", ".join(f'"h{s}"' for s, _ in chosen)
    dst = ", ".join(f'"h{d}"' for _, d in chosen)
    return f"flows.0.src=[{src}]", f"flows.0.dst=[{dst}]"


def _fig3_overrides(variant: str, routing: str, point: dict[str, Any]) -> tuple[str, ...]:
    out = [*VARIANTS[variant], *ROUTINGS[routing], f"flows.0.size={point['size']}", *_pairs(point["subflows"])]
    if variant != "DCTCP":
        out.append(f"scheme.period={point['period_us']}us")
    if variant == "DCTCP":
        out = [o for o in out if not o.startswith("scheme.")]
    return tuple(out)


def jobs(seeds: list[int], fig3_seeds: list[int], quick: bool, overrides: tuple[str, ...] = ()) -> list[Job]:
    out = []
    for routing in ROUTINGS:
        for variant in VARIANTS:
            for seed in fig3_seeds:
                labels = {"study": "default", "routing": routing, "variant": variant, "seed": seed, **DEFAULT}
                out.append(Job(FIG3, (f"seed={seed}", *_fig3_overrides(variant, routing, DEFAULT), *overrides), labels))
    for sweep, values in (QUICK_SWEEPS if quick else SWEEPS).items():
        for value in values:
            point = {**DEFAULT, sweep: value}
            if point == DEFAULT:
                continue  # the default point's runs stand in
            for routing in ROUTINGS:
                for variant in VARIANTS:
                    if variant == "DCTCP" and sweep == "period_us":
                        continue  # DCTCP has no aggregation period: its default runs stand in
                    for seed in seeds:
                        labels = {"study": sweep, "routing": routing, "variant": variant, "seed": seed, **point}
                        out.append(Job(FIG3, (f"seed={seed}", *_fig3_overrides(variant, routing, point), *overrides), labels))
    for seed in seeds:
        for duration in ("5ms", "10ms"):
            out.append(Job(DTARGET, (f"seed={seed}", f"duration={duration}", *overrides), {"study": "dtarget", "seed": seed, "duration": duration}))
        out.append(Job(COEXIST, (f"seed={seed}", *overrides), {"study": "coexist", "seed": seed}))
    return out


def measure(job: Job, res: Results) -> dict[str, Any]:
    study = job.labels["study"]
    row: dict[str, Any] = dict(job.labels)
    flows = res.tables()["flows"]
    if study == "dtarget":
        state = res.summary["scheme"]["state"]
        row["d_bps"] = state["destination_rate_bps"]["0"]
        if job.labels["duration"] == "10ms":
            q = res.tables()["queues"].filter(pl.col("time_s") > 0.005)
            tp = res.tables()["throughput"].filter(pl.col("time_s") > 0.005 + 1e-9)
            row["queue_median_pkts"] = float(q["packets"].median())
            row["goodput_bps"] = tp["bytes"].sum() * 8 / 0.005
        return row
    if study == "coexist":
        late = res.tables()["throughput"].filter(pl.col("time_s") > 0.01 + 1e-9)
        tags = flows.select("flow_id", "tag")
        per = late.join(tags, on="flow_id").group_by("tag").agg(pl.col("bytes").sum())
        total = per["bytes"].sum()
        for tag, b in per.iter_rows():
            row[f"{tag}_share"] = b / total if total else None
        return row
    fct = flows["fct_s"].drop_nulls()
    row.update(
        finished=fct.len(), flows=flows.height, jct_s=fct.max() if fct.len() == flows.height else None,
        median_fct_s=fct.median(), timeouts=int(flows["timeouts"].sum()), drops=res.summary["packets_dropped"],
    )
    row["max_over_median"] = row["jct_s"] / row["median_fct_s"] if row["jct_s"] and row["median_fct_s"] else None
    return row


@dataclass
class Report:
    runs: pl.DataFrame
    fig2: pl.DataFrame
    speedups: pl.DataFrame
    seeds: list[int]
    fig3_seeds: list[int]
    quick: bool
    overrides: tuple[str, ...]
    claims: list[dict[str, Any]] = field(default_factory=list)


def _speedups(runs: pl.DataFrame) -> pl.DataFrame:
    """Per seed and Fig. 3 point: DCTCP's job completion time over each RackCC variant's (the
    period sweep's DCTCP is the default point's)."""
    fig3 = runs.filter(pl.col("study").is_in(["default", *SWEEPS])).select("study", "routing", "variant", "seed", *DEFAULT, "jct_s")
    dctcp = fig3.filter(pl.col("variant") == "DCTCP")
    base = dctcp.filter(pl.col("study") == "default").drop("study", "period_us", "variant").rename({"jct_s": "dctcp_jct_s"})
    rest = fig3.filter(pl.col("variant") != "DCTCP")
    same = rest.join(dctcp.drop("variant").rename({"jct_s": "dctcp_jct_s"}), on=["study", "routing", "seed", *DEFAULT], how="inner")
    period = rest.filter(pl.col("study") == "period_us").join(base, on=["routing", "seed", "subflows", "size"], how="inner")
    both = pl.concat([same, period.select(same.columns)])
    return both.with_columns(speedup=pl.col("dctcp_jct_s") / pl.col("jct_s"))


def _interval(xs: list[float], level: float = 0.95, resamples: int = 4000) -> tuple[float, float] | None:
    """A percentile bootstrap interval of the median (fixed seed: the report is deterministic)."""
    if len(xs) < 2:
        return None
    rng = np.random.default_rng(0)
    meds = np.median(rng.choice(np.array(xs), size=(resamples, len(xs)), replace=True), axis=1)
    lo, hi = np.quantile(meds, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(lo), float(hi)


def aggregate(measured: list[dict[str, Any]], seeds: list[int], fig3_seeds: list[int], quick: bool, overrides: tuple[str, ...]) -> Report:
    runs = pl.DataFrame(measured, infer_schema_length=None)
    fig2 = pl.DataFrame(model.table(FIG2_SIZES, FIG2_EXISTING, FIG2_L))
    report = Report(runs, fig2, _speedups(runs), seeds, fig3_seeds, quick, overrides)
    report.claims = claims(report)
    return report


# ---------------------------------------------------------------- claims


def _fig2(report: Report, sweep: str, key: str, value: float, L: int) -> float:
    t = report.fig2.filter((pl.col("sweep") == sweep) & (pl.col(key) == value) & (pl.col("L") == L))
    return t["speedup"][0]


def _speedup(report: Report, variant: str = "RackCC", **where: Any) -> list[float]:
    return per_seed(report.speedups, "speedup", variant=variant, **where)


def claims(r: Report) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def add(fig: str, text: str, measured: str, ok: bool | None, note: str = "") -> None:
        out.append(claim(fig, text, measured, ok, note))

    # Fig. 2 (acceptance 3).
    s1, s3 = _fig2(r, "size", "size_bytes", 64e3, 1), _fig2(r, "size", "size_bytes", 64e3, 3)
    p = model.ModelParams()
    params = f"RTT {p.rtt_s * 1e6:.0f} us, IW 6 KB, B ~ Exp(mean {p.mean_b_bps / 1e9:.0f} Gbps), NIC {p.nic_bps / 1e9:.0f} Gbps, 1 existing subflow"
    add("Fig. 2", "short flows (64 KB), L = 1: speedup 3.2x (within [2.9, 3.5])", f"{s1:.2f}x", 2.9 <= s1 <= 3.5,
        f"{params}; B's mean was chosen to match this claim (README)")
    add("Fig. 2", "the same flows, L = 3: speedup 1.3x (within [1.15, 1.45])", f"{s3:.2f}x", 1.15 <= s3 <= 1.45, "a prediction of the same parameters")
    by_size = [_fig2(r, "size", "size_bytes", s, 1) for s in (64e3, 1e6, 10e6)]
    add("Fig. 2", "the speedup falls with size: 64 KB > 1 MB > 10 MB, and <= 1.1x at 10 MB (L = 1)",
        " > ".join(f"{x:.2f}x" for x in by_size), by_size[0] > by_size[1] > by_size[2] and by_size[2] <= 1.1,
        f"below 64 KB it falls again: {_fig2(r, 'size', 'size_bytes', 16e3, 1):.2f}x at 16 KB (one RTT of slow start carries it)")
    by_n = [_fig2(r, "existing", "existing", n, 1) for n in (1, FIG2_EXISTING[-1])]
    add("Fig. 2", "the speedup falls as the JumboFlow has more subflows (L = 1, 64 KB)", f"1 subflow {by_n[0]:.2f}x, {FIG2_EXISTING[-1]}: {by_n[1]:.2f}x",
        by_n[0] > by_n[1])
    # Fig. 3 default (acceptance 4), both routings.
    for routing in ROUTINGS:
        sp = _speedup(r, study="default", routing=routing)
        ci = _interval(sp)
        ci_text = f", 95 % interval of the median [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""
        add("Fig. 3", f"default point ({routing}): DCTCP / RackCC tail completion time > 1, 95 % interval excluding 1",
            f"{median_range(sp, '.2f')}x over {len(sp)} seeds{ci_text}", bool(sp) and ci is not None and ci[0] > 1.0,
            "25 subflows of 150 KB, 10 us period" + (", spraying with dupthresh 10 for both" if routing == "spray" else ", ECMP"))
    for routing in ROUTINGS:
        _sweep_claims(r, routing, add)
    # D_target (acceptance 7).
    d = per_seed(r.runs, "d_bps", study="dtarget", duration="5ms")
    q = per_seed(r.runs, "queue_median_pkts", study="dtarget", duration="10ms")
    g = per_seed(r.runs, "goodput_bps", study="dtarget", duration="10ms")
    ok_d = bool(d) and all(abs(x / (CAPACITY / 4) - 1) <= 0.1 for x in d) and median(q) < 10 and median(g) >= 0.9 * CAPACITY
    add("D_target", "four senders into one receiver: D within 10 % of C/4 after 50 intervals; persistent queue < 10 % of the buffer; goodput >= 90 % of C",
        f"D {median_range(d, '.3f', 1e-9)} Gbps (C/4 = 2.5); queue median {median_range(q, '.0f')} of 100 packets; goodput {median_range(g, '.2f', 1e-9)} Gbps",
        ok_d, "queue and goodput over 5-10 ms")
    # Shared signal (acceptance 8).
    for routing in ROUTINGS:
        mm = {v: per_seed(r.runs, "max_over_median", study="default", routing=routing, variant=v) for v in ("RackCC", "DCTCP")}
        add("Fig. 3", f"shared signal ({routing}): RackCC's max / median FCT within a job <= DCTCP's", f"RackCC {median_range(mm['RackCC'], '.2f')}, DCTCP {median_range(mm['DCTCP'], '.2f')}",
            bool(mm["RackCC"]) and median(mm["RackCC"]) <= median(mm["DCTCP"]), "default point")
    # Coexistence (acceptance 9).
    share = per_seed(r.runs, "rackcc_share", study="coexist")
    add("section 5", "coexistence: a JumboFlow of 4 subflows and 4 DCTCP flows share a bottleneck about equally (JumboFlow 40-60 %)",
        f"JumboFlow {median_range(share, '.0%')}, DCTCP {median_range([1 - x for x in share], '.0%')}", bool(share) and 0.4 <= median(share) <= 0.6,
        "claimed in the paper ('TCP-friendly with legacy racks'), not evaluated there; throughput after 10 ms")
    return out


def _sweep_claims(r: Report, routing: str, add: Callable[..., None]) -> None:
    """The ablation and Figs. 3a-c under one routing."""
    full, shared = _speedup(r, study="default", routing=routing), _speedup(r, "shared-alpha only", study="default", routing=routing)
    add("Fig. 3", f"({routing}) which variant the paper's Fig. 3 describes (its caption credits 'sharing ECN rate across subflows')",
        f"full {median_range(full, '.2f')}x, shared-alpha only {median_range(shared, '.2f')}x", "reported", "default point; the README says which reading")
    sweeps = QUICK_SWEEPS if r.quick else SWEEPS
    pts = {sweep: {v: _speedup(r, study=_study(sweep, v), routing=routing, **{sweep: v}) for v in values} for sweep, values in sweeps.items()}
    lo, hi = sweeps["subflows"][0], sweeps["subflows"][-1]
    a_lo, a_hi = pts["subflows"][lo], pts["subflows"][hi]
    add("Fig. 3a", f"({routing}) the speedup falls with the subflow count: at {hi} below at {lo}",
        ", ".join(f"{n}: {median_range(v, '.2f')}x" for n, v in pts["subflows"].items()), bool(a_lo) and bool(a_hi) and median(a_hi) < median(a_lo))
    add("Fig. 3b", f"({routing}) the speedup against the aggregation period (the paper: 'decreases as the period decreases since the ECN information becomes increasingly stale', which contradicts itself)",
        ", ".join(f"{pu} us {median_range(v, '.2f')}x" for pu, v in pts["period_us"].items()), "reported", "see the README for the reading")
    c = pts["size"]
    c10, c150, last2 = c.get(10_000, []), c.get(150_000, []), [c[sz] for sz in sweeps["size"][-2:]]
    ok_c = bool(c10) and bool(c150) and median(c150) >= median(c10) and all(last2) and abs(median(last2[0]) / median(last2[1]) - 1) <= 0.10
    add("Fig. 3c", f"({routing}) the speedup rises with size, then levels off: at 150 KB >= at 10 KB, the last two sizes within 10 %",
        ", ".join(f"{sz // 1000} KB {median_range(v, '.2f')}x" for sz, v in c.items()), ok_c)


def _study(sweep: str, value: Any) -> str:
    """The study whose runs hold a sweep's point (the default point's runs stand in for it)."""
    return "default" if DEFAULT[sweep] == value else sweep


# ---------------------------------------------------------------- the experiment


def plan(seeds: int, quick: bool, overrides: tuple[str, ...]) -> tuple[list[Job], Callable[[list[Any]], Report]]:
    """The runs (3 seeds when quick; Fig. 3's default point at least the paper's 10 otherwise)
    and how their measurements become the report."""
    seed_list = seed_range(seeds, quick, quick_seeds=3)
    fig3_seeds = seed_list if quick else seed_range(max(seeds, FIG3_SEEDS), False)
    all_jobs = jobs(seed_list, fig3_seeds, quick, overrides)
    return all_jobs, lambda m: aggregate(m, seed_list, fig3_seeds, quick, overrides)


def write(report: Report, out: Path) -> None:
    report.runs.write_csv(out / "runs.csv", float_precision=6)
    report.fig2.write_csv(out / "fig2.csv", float_precision=4)
    report.speedups.write_csv(out / "speedups.csv", float_precision=4)
    figures.fig2(report.fig2, out / "fig2.png")
    figures.fig3(report.speedups, out / "fig3.png")
    text = [
        *report_head("RackCC reproduction (rack-to-rack JumboFlows, section 4)", report,
                     seeds_note=f" (Fig. 3's default point {report.fig3_seeds[0]}..{report.fig3_seeds[-1]})",
                     values_note="Values are medians over seeds with the range in brackets; speedup = DCTCP's job completion time / RackCC's, seed by seed."),
        "![Fig. 2](fig2.png)",
        "![Fig. 3](fig3.png)",
        "",
        "## Files",
        "",
        "`runs.csv`: one row per run; `speedups.csv`: DCTCP / RackCC per seed and Fig. 3 point; `fig2.csv`: the model's table.",
    ]
    (out / "report.md").write_text("\n".join(text) + "\n")
    summary_json.write_reproduction(out / "summary.json", "rackcc", "RackCC: rack-level congestion control (HotNets 2016)", report,
                                    fig3_seeds=report.fig3_seeds, fig2=report.fig2.to_dicts())


def rich_tables(report: Report) -> list[Table]:
    return [claims_table(rich_title("RackCC", report), report.claims)]


reproduce = experiment(KIND, (SCENARIO_DIR,), plan, measure, write)
