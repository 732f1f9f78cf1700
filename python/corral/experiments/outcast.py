"""TCP Outcast reproduction (Prakash et al., NSDI 2012): Case I (Figs. 3 and 11) in detail,
then Fig. 2, Cases II-VI, Fig. 8 and the mitigations (`outcast_studies`, `outcast_report`).
The paper's numbers, each figure's setup and the statements of its evaluation are data
(papers/outcast.toml, `claims_table`): Case I runs under the paper's testbed setup (CUBIC
with SACK, 16 KB taildrop queues), and again with ns-2's NewReno as a sensitivity.

One 2-hop flow (a sender under the receiver's ToR) and 2, 6 or 12 6-hop flows (senders in
other pods) send to one host of a k=4 fat-tree; they meet at the ToR's taildrop output port
towards the receiver. The paper finds the lone 2-hop flow gets 2x (6 flows) and 7x (12
flows) less throughput than the average 6-hop flow, because taildrop "port blackouts" drop
runs of consecutive packets from its input port and push it into timeouts.

For every case and seed this module runs the shipped scenario (0.5 s) and measures, from the
result tables only: the ratio of the 2-hop flow's goodput to the mean 6-hop goodput over the
paper's window (Figs. 3(d)-(f): the first 0.1, 0.2 and 0.5 s with 2, 6 and 12 six-hop
flows; the sweep's over the whole run; Case I runs again without the scenarios' jitters as
a sensitivity), the
bottleneck's utilization, the drop-run distribution at the bottleneck per input-port class,
and timeouts. A sweep repeats the 12-flow case over switch buffers and routing schemes.
Outputs: claims.json (every claim of Case I and the studies: the paper's band, the per-seed
values, the verdict), report.md (the claims tables, then every table and figure),
table.md/csv, sweep.md/csv, <study>.csv/png, report.json, the Case I PNGs and runs/<case>/
folders.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
from rich import box
from rich.table import Table

from .. import ScenarioError
from ..results import Results
from . import claims as cl
from . import claims_table
from . import conditions as cond
from . import outcast_figures as figures
from .outcast_report import SCENARIO_DIR, measure_study_run, study_claims, study_jobs, window_goodput, write_studies
from .outcast_studies import NS2_TCP, NS2_TCP_DEVIATION, TESTBED
from .runner import Job, experiment, seed_range

CASES = ("case1_2", "case1_6", "case1_12")
SWEEP_CASE = "case1_12"
SWEEP_BUFFERS = ("16KB", "32pkt", "64pkt", "128pkt")
SWEEP_ROUTING = ("static", "ecmp", "spray")
FEW_TAG, MANY_TAG = "2-hop", "6-hop"
QUICK_DURATION = "0.2s"
KIND = "reproduce-outcast"  # the marker kind of the reproduction's folder
TABLE = claims_table.load("outcast")
PAPER = TABLE.paper
# Case I's rows by case: (claim id, figure's 6-hop flows); the paper's ratios are in TABLE.
CASE1_ROWS = {"case1_12": "fig3f", "case1_6": "fig3e", "case1_2": "fig3d"}
# Figs. 3(d)-(f): the aggregate throughputs "within the first 0.1, 0.2, and 0.5 seconds"
# with two, six and twelve 6-hop flows.
PAPER_WINDOW_S = {"case1_2": 0.1, "case1_6": 0.2, "case1_12": 0.5}
# The TCPs Case I runs with: the testbed's (the paper's setup for Fig. 3) and ns-2's
# (sensitivity: corral's earlier setup, and the paper's simulator).
TCPS = {"testbed": TESTBED, "ns-2": NS2_TCP}
# Case I once more on the testbed's TCP with neither of the scenarios' two jitters: the hosts'
# send jitter (up to 12 us per packet) and the flows' start jitter (up to 100 us).
NO_JITTER = "no jitter"
NO_JITTER_SETTINGS = ("host.send_jitter=0us", "flows.0.jitter=0us", "flows.1.jitter=0us")
NO_JITTER_DEVIATION = {"host.send_jitter": "0us", "flows.0.jitter": "0us", "flows.1.jitter": "0us"}
NO_JITTER_VARIES = (
    "no host send jitter (instead of up to 12 us per packet) and all flows started at 0 (instead of within 100 us): "
    "our two jitters, which the paper does not have; they decide which input port's phase loses"
)
NS2_VARIES = (
    "ns-2's NewReno without SACK (initial window 2, 20-segment window) instead of the testbed's CUBIC with SACK: "
    "corral's earlier setup for Fig. 3, a testbed figure"
)
QUICK_MEANS = "one seed and 0.2 s runs"


@dataclass
class Report:
    """Everything the reproduction measured: one row per run, plus aggregates."""

    runs: pl.DataFrame  # one row per (case, buffer, routing, seed)
    flows: pl.DataFrame  # goodput of every flow of the base cases, per seed
    drop_hist: pl.DataFrame  # case, seed, port_class, run_length, episodes
    cases: pl.DataFrame  # table.csv
    sweep: pl.DataFrame  # sweep.csv
    timeline: dict[str, Results]  # seed-1 Results of each base case
    studies: list[dict[str, Any]]  # one row per study run (outcast_report.measure_study_run)
    seeds: list[int]
    quick: bool
    overrides: tuple[str, ...] = ()  # extra --set applied to every run
    claims: list[dict[str, Any]] = field(default_factory=list)  # Case I's and the studies' rows
    study_rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # the studies' rows, by study


# ---------------------------------------------------------------- measuring one run


def measure(job: Job, res: Results) -> dict[str, Any]:
    """The per-run numbers the experiment needs, from the run's result tables."""
    flows = res.flows
    few = flows.filter(pl.col("tag") == FEW_TAG)
    many = flows.filter(pl.col("tag") == MANY_TAG)
    if few.height != 1 or many.height == 0:
        raise ScenarioError(f"flows: the outcast experiment needs one {FEW_TAG!r} flow and some {MANY_TAG!r} flows")
    receiver = few["dst"][0]
    bottleneck = res.ports.filter(pl.col("peer") == receiver)
    if bottleneck.height != 1:
        raise ScenarioError(f"topology: the outcast experiment needs one switch port towards {receiver}")
    node, port = bottleneck["node"][0], bottleneck["port"][0]
    runs = res.drop_runs.filter((pl.col("node") == node) & (pl.col("port") == port))
    runs = runs.with_columns(
        port_class=pl.when(pl.col("in_node") == few["src"][0]).then(pl.lit(FEW_TAG)).otherwise(pl.lit(MANY_TAG))
    )
    # The goodputs over the paper's window for the case (Figs. 3(d)-(f)), within the run.
    window = min(
        PAPER_WINDOW_S.get(job.labels["case"], math.inf) if job.labels["buffer"] is None else math.inf, res.summary["sim_time_s"]
    )
    g_few, g_many = _few_many(window_goodput(res, 0.0, window), few, many)
    # After the paper's window (Fig. 3(a): "occasionally starved by other flows after 0.1 seconds").
    late = math.nan
    if window < res.summary["sim_time_s"] - 1e-9:
        l_few, l_many = _few_many(window_goodput(res, window), few, many)
        late = (l_few / l_many) / (g_few / g_many) if l_many and g_many and g_few else math.nan
    labels = {k: v for k, v in job.labels.items() if k not in ("keep", "deviation")}
    row = {
        **labels,
        "n_many": many.height,
        "bottleneck": f"{node}:{port}",
        "ratio": g_few / g_many if g_many else math.nan,
        "ratio_late": late,
        "goodput_few_bps": g_few,
        "goodput_many_mean_bps": g_many,
        "fair_share_bps": bottleneck["rate_bps"][0] / flows.height,
        "utilization": bottleneck["utilization"][0],
        "timeouts_few": few["timeouts"][0],
        "timeouts_many_mean": many["timeouts"].mean(),
        "drops_few": _dropped(runs, FEW_TAG),
        "drops_many": _dropped(runs, MANY_TAG),
        "packets_conserved": _conserved(res.summary),
        **cond.realized(flows, res.ports, res.summary["sim_time_s"]),
        "window_s": window,
    }
    return {
        **labels,
        "row": row,
        "flows": flows.select("flow_id", "tag", "src", "goodput_bps", "timeouts"),
        "drop_hist": runs.group_by("port_class", "run_length").agg(pl.col("episodes").sum()),
        "results": res if job.labels.get("keep") else None,
    }


def _few_many(goodput: pl.DataFrame, few: pl.DataFrame, many: pl.DataFrame) -> tuple[float, float]:
    """The few (one) flow's goodput and the many flows' mean, from a window's goodputs."""
    g = dict(zip(goodput["flow_id"].to_list(), goodput["goodput_bps"].to_list()))
    return g.get(few["flow_id"][0], 0.0), sum(g.get(f, 0.0) for f in many["flow_id"].to_list()) / many.height


def _conserved(summary: dict[str, Any]) -> bool:
    """Packet conservation: every packet sent was delivered, dropped, or is still in flight."""
    accounted = summary["packets_delivered"] + summary["packets_dropped"] + summary["packets_in_flight"]
    return summary["packets_sent"] == accounted


def _dropped(runs: pl.DataFrame, port_class: str) -> int:
    sub = runs.filter(pl.col("port_class") == port_class)
    return int((sub["run_length"] * sub["episodes"]).sum())


# ---------------------------------------------------------------- the experiment


def jobs(seeds: list[int], quick: bool, overrides: tuple[str, ...] = ()) -> list[Job]:
    """The base cases under the testbed's TCP and under ns-2's (sensitivity), then the
    buffer x routing sweep of the 12-flow case (the testbed's TCP).

    `overrides` apply to every run (after the seed, before the cases' own settings).
    """
    extra = (*overrides, *((f"duration={QUICK_DURATION}",) if quick else ()))
    out = []
    runs_of = {**TCPS, NO_JITTER: (*TESTBED, *NO_JITTER_SETTINGS)}
    for tcp, settings in runs_of.items():
        deviation = {"testbed": {}, "ns-2": NS2_TCP_DEVIATION, NO_JITTER: NO_JITTER_DEVIATION}[tcp]
        for case in CASES:
            for seed in seeds:
                labels = {
                    "case": case,
                    "tcp": tcp,
                    "buffer": None,
                    "routing": None,
                    "seed": seed,
                    "keep": seed == seeds[0] and tcp == "testbed",
                    "setup": "testbed",
                    "deviation": deviation,
                }
                out.append(Job(SCENARIO_DIR / f"{case}.toml", (f"seed={seed}", *extra, *settings), labels))
    for buffer in SWEEP_BUFFERS:
        for routing in SWEEP_ROUTING:
            for seed in seeds:
                settings = (f"seed={seed}", *extra, *TESTBED, f"switch.buffer={buffer}", f"routing.kind={routing}")
                deviation = {
                    k: v for k, v in (("switch.buffer", buffer), ("routing.kind", routing)) if v not in ("16KB", "static")
                }
                labels = {
                    "case": SWEEP_CASE,
                    "tcp": "testbed",
                    "buffer": buffer,
                    "routing": routing,
                    "seed": seed,
                    "setup": "testbed",
                    "deviation": deviation,
                }
                out.append(Job(SCENARIO_DIR / f"{SWEEP_CASE}.toml", settings, labels))
    return out


def plan(seeds: int, quick: bool, overrides: tuple[str, ...]) -> tuple[list[Job], Callable[[list[Any]], Report]]:
    """Case I's runs and the studies' (quick: one seed, studies cut to QUICK_DURATION), and
    how their measurements become the report."""
    seed_list = seed_range(seeds, quick)
    extra = (*overrides, *((f"duration={QUICK_DURATION}",) if quick else ()))

    def report(measured: list[Any]) -> Report:
        case1 = [m for m in measured if "study" not in m]
        return aggregate(case1, seed_list, quick, overrides, [m for m in measured if "study" in m])

    return jobs(seed_list, quick, overrides) + study_jobs(seed_list, extra), report


def measure_any(job: Job, res: Results) -> dict[str, Any]:
    """`measure` for the Case I runs, `measure_study_run` for the studies'."""
    return measure_study_run(job, res) if "study" in job.labels else measure(job, res)


def aggregate(
    measured: list[dict[str, Any]],
    seeds: list[int],
    quick: bool,
    overrides: tuple[str, ...] = (),
    studies: list[dict[str, Any]] | None = None,
) -> Report:
    all_runs = pl.DataFrame([m["row"] for m in measured], infer_schema_length=None)
    runs = all_runs.filter(pl.col("tcp") == "testbed")
    base = [m for m in measured if m["buffer"] is None and m["tcp"] == "testbed"]
    flows = pl.concat(m["flows"].with_columns(case=pl.lit(m["case"]), seed=pl.lit(m["seed"])) for m in base)
    drop_hist = pl.concat(m["drop_hist"].with_columns(case=pl.lit(m["case"]), seed=pl.lit(m["seed"])) for m in base).select(
        "case", "seed", "port_class", "run_length", "episodes"
    )
    timeline = {m["case"]: m["results"] for m in base if m["results"] is not None}
    report = Report(
        runs=runs,
        flows=flows,
        drop_hist=drop_hist,
        cases=case_table(runs.filter(pl.col("buffer").is_null()), drop_hist),
        sweep=sweep_table(runs.filter(pl.col("buffer").is_not_null())),
        timeline=timeline,
        studies=studies or [],
        seeds=seeds,
        quick=quick,
        overrides=overrides,
    )
    c = cl.Claims(PAPER, table=TABLE)
    case1_claims(report.runs, report.drop_hist, c)
    case1_sensitivity(all_runs.filter(pl.col("tcp") == "ns-2"), c)
    case1_sensitivity(all_runs.filter(pl.col("tcp") == NO_JITTER), c, NO_JITTER_VARIES, NO_JITTER)
    report.study_rows = study_claims(report.studies, c) if report.studies else {}
    report.claims = c.rows
    return report


def _case1_values(runs: pl.DataFrame, case: str, col: str = "ratio") -> tuple[list[float], dict[str, Any]]:
    """A base case's `col` per seed and its conditions (the paper's window realized)."""
    sub = runs.filter(pl.col("buffer").is_null() & (pl.col("case") == case)).sort("seed")
    return cl.clean(sub[col].to_list()), cond.of_runs(
        sub, window_s=cond.check(sub["window_s"].to_list(), PAPER_WINDOW_S[case], 0.0)
    )


def _port_shares(drop_hist: pl.DataFrame, case: str, at_least: int) -> dict[str, dict[int, float]]:
    """Per port class and seed: the share (%) of the input port's drop episodes that are
    `at_least` drops long."""
    sub = drop_hist.filter(pl.col("case") == case)
    out: dict[str, dict[int, float]] = {}
    for (cls, seed), part in sub.group_by("port_class", "seed"):
        total = part["episodes"].sum()
        if total:
            out.setdefault(cls, {})[seed] = 100 * part.filter(pl.col("run_length") >= at_least)["episodes"].sum() / total
    return out


def _blackout_ms(drop_hist: pl.DataFrame, runs: pl.DataFrame, case: str, at_least: int) -> list[float]:
    """Per seed: the run's length over its blackouts (episodes of `at_least` or more drops
    from one input port, both ports), in ms."""
    sub = drop_hist.filter((pl.col("case") == case) & (pl.col("run_length") >= at_least))
    lengths = dict(
        zip(
            *runs.filter(pl.col("buffer").is_null() & (pl.col("case") == case))
            .select("seed", "run_s")
            .to_dict(as_series=False)
            .values()
        )
    )
    out = []
    for seed in sorted(lengths):
        n = sub.filter(pl.col("seed") == seed)["episodes"].sum()
        out.append(1000 * lengths[seed] / n if n else math.nan)
    return cl.clean(out)


def case1_claims(runs: pl.DataFrame, drop_hist: pl.DataFrame, c: cl.Claims) -> None:
    """Case I's rows (testbed setup): the 2-hop flow's goodput over the 6-hop flows' mean
    per seed (Figs. 3(d)-(f), and Fig. 8's CUBIC with SACK, which is Fig. 3(f)'s runs), 3(a)
    after 0.1 s where its premise holds, the trend from two to six to twelve 6-hop flows, the
    drop-run shares of its input port (Fig. 11(a)) and the time between blackouts (Sec. 4.3)."""
    for case, claim_id in CASE1_ROWS.items():
        values, conditions = _case1_values(runs, case)
        c.row(claim_id, values, unit="x", conditions=conditions, note=f"goodputs over the first {PAPER_WINDOW_S[case]:g} s")
    late, conditions = _later_given_ahead(runs)
    c.row("fig3d-later", late, unit="x", conditions=conditions, detail=_premise_detail(runs))
    for claim_id, more, fewer in (("fig3-worse-6", "case1_6", "case1_2"), ("fig3-worse-12", "case1_12", "case1_6")):
        values, conditions = _worse(runs, more, fewer)
        c.row(claim_id, values, unit="x", conditions=conditions)
    values, conditions = _case1_values(runs, "case1_12")
    shares = _port_shares(drop_hist, "case1_12", 3)
    few, many = shares.get(FEW_TAG, {}), shares.get(MANY_TAG, {})
    # A seed where one port had no drops has no share there: left out, not counted as 0 %.
    points = [few[s] - many[s] for s in sorted(few) if s in many]
    detail = (
        f"2-hop port {cl.median_range(list(few.values()), '.1f')} %, 6-hop port {cl.median_range(list(many.values()), '.1f')} %"
    )
    c.row("fig11a", points, unit="points", conditions=conditions, detail=detail)
    c.row("blackout-interval", _blackout_ms(drop_hist, runs, "case1_12", 3), unit="ms", conditions=conditions)
    c.sensitivity(
        "blackout-interval",
        "4 drops",
        _blackout_ms(drop_hist, runs, "case1_12", 4),
        unit="ms",
        varies="a blackout counted from 4 consecutive drops instead of 3 (the paper does not define one)",
        conditions=conditions,
    )


def _seed_values(runs: pl.DataFrame, case: str, col: str) -> dict[int, float]:
    sub = runs.filter(pl.col("buffer").is_null() & (pl.col("case") == case))
    return {s: x for s, x in zip(sub["seed"].to_list(), sub[col].to_list()) if x is not None and math.isfinite(x)}


def _later_given_ahead(runs: pl.DataFrame) -> tuple[list[float], dict[str, Any]]:
    """Fig. 3(a)'s "gets higher than average share in the beginning, but is occasionally
    starved ... after 0.1 seconds", per seed where its premise holds: the 2-hop flow's ratio
    after 0.1 s over its ratio in the first 0.1 s, only for the seeds whose first-0.1-s ratio
    is above 1 (the flow was ahead); a seed where it was never ahead says nothing about being
    starved later, so it is left out (none left: no value, `missed`)."""
    early, late = _seed_values(runs, "case1_2", "ratio"), _seed_values(runs, "case1_2", "ratio_late")
    values = [late[s] for s in sorted(late) if early.get(s, 0.0) > 1.0]
    _, conditions = _case1_values(runs, "case1_2")
    return values, conditions


def _premise_detail(runs: pl.DataFrame) -> str:
    early = _seed_values(runs, "case1_2", "ratio")
    ahead = sum(x > 1.0 for x in early.values())
    return f"seeds where the 2-hop flow was ahead in the first 0.1 s (the premise, fig3d): {ahead} of {len(early)}"


def _worse(runs: pl.DataFrame, more: str, fewer: str) -> tuple[list[float], dict[str, Any]]:
    """Fig. 3's trend, per seed: the 2-hop flow's ratio with more 6-hop flows over its ratio
    with fewer, each over its own panel's window (Figs. 3(d)-(f)); below 1: worse."""
    a, b = _seed_values(runs, more, "ratio"), _seed_values(runs, fewer, "ratio")
    _, conditions = _case1_values(runs, more)
    return [a[s] / b[s] for s in sorted(a) if s in b and b[s] > 0], conditions


def case1_sensitivity(runs: pl.DataFrame, c: cl.Claims, varies: str = NS2_VARIES, label: str = "ns-2 TCP") -> None:
    """Case I's ratio rows again under another setting (sensitivity rows): ns-2's NewReno
    without SACK, or the testbed's TCP without the jitter."""
    for case, claim_id in CASE1_ROWS.items():
        values, conditions = _case1_values(runs, case)
        c.sensitivity(claim_id, label, values, unit="x", varies=varies, conditions=conditions)
    late, conditions = _later_given_ahead(runs)
    c.sensitivity("fig3d-later", label, late, unit="x", varies=varies, conditions=conditions, detail=_premise_detail(runs))


# The ratio over seeds: the median and range lead (one seed's lockout moves a mean a lot);
# the mean and standard deviation are kept for comparison with earlier reports.
RATIO_STATS = (
    pl.col("ratio").median().alias("ratio_median"),
    pl.col("ratio").min().alias("ratio_min"),
    pl.col("ratio").max().alias("ratio_max"),
    pl.col("ratio").mean().alias("ratio_mean"),
    pl.col("ratio").std().alias("ratio_std"),
)


def case_table(runs: pl.DataFrame, drop_hist: pl.DataFrame) -> pl.DataFrame:
    """table.csv: one row per case, medians over seeds (and the ratio's range and mean)."""
    drops = drop_hist.group_by("case", "port_class").agg(
        mean_run=(pl.col("run_length") * pl.col("episodes")).sum() / pl.col("episodes").sum(),
        max_run=pl.col("run_length").filter(pl.col("episodes") > 0).max(),
        episodes_per_seed=pl.col("episodes").sum() / len(runs["seed"].unique()),
    )
    table = runs.group_by("case", maintain_order=True).agg(
        n_6hop=pl.col("n_many").first(),
        seeds=pl.len(),
        *RATIO_STATS,
        goodput_2hop_mbps=pl.col("goodput_few_bps").median() / 1e6,
        goodput_6hop_mean_mbps=pl.col("goodput_many_mean_bps").median() / 1e6,
        fair_share_mbps=pl.col("fair_share_bps").mean() / 1e6,
        utilization=pl.col("utilization").mean(),
        timeouts_2hop=pl.col("timeouts_few").mean(),
        timeouts_6hop_mean=pl.col("timeouts_many_mean").mean(),
    )
    for cls, name in ((FEW_TAG, "2hop"), (MANY_TAG, "6hop")):
        part = drops.filter(pl.col("port_class") == cls).select(
            "case",
            pl.col("mean_run").alias(f"drop_run_mean_{name}"),
            pl.col("max_run").alias(f"drop_run_max_{name}"),
            pl.col("episodes_per_seed").alias(f"drop_episodes_{name}"),
        )
        table = table.join(part, on="case", how="left", maintain_order="left")
    ratios = {case: TABLE.claim(i).value for case, i in CASE1_ROWS.items() if TABLE.claim(i).value is not None}
    paper = pl.DataFrame({"case": list(ratios), "paper_ratio": list(ratios.values())})
    return table.join(paper, on="case", how="left", maintain_order="left")


def sweep_table(runs: pl.DataFrame) -> pl.DataFrame:
    """sweep.csv: one row per buffer x routing, in sweep order: the ratio's median, range and
    mean over seeds; means of the rest."""
    return runs.group_by("buffer", "routing", maintain_order=True).agg(
        seeds=pl.len(),
        *RATIO_STATS,
        utilization=pl.col("utilization").mean(),
        timeouts_2hop=pl.col("timeouts_few").mean(),
        timeouts_6hop_mean=pl.col("timeouts_many_mean").mean(),
    )


# ---------------------------------------------------------------- outputs


def baselines() -> list[dict[str, str]]:
    """The mitigations as the paper ran them (each figure's network and TCP: the setup
    tables, from papers/outcast.toml)."""
    b = cl.baseline
    return [
        b("RED", "min_th, max_th, w_q", "5, 15 packets, 0.002", "Outcast paper, section 5.1"),
        b("SFQ", "buckets", "4", "Outcast paper, section 5.2"),
        b("pacing", "sender", "TCP pacing at cwnd / RTT", "Outcast paper, section 5.3 (the pacing rule ours)"),
        b("equal-length routing", "core choice", "random, or by destination bits", "Outcast paper, section 5.4"),
        b("DCTCP", "K", "5 packets (ns-2's queue holds 30)", "our choice (the paper leaves DCTCP to future work)"),
        b(
            "hosts",
            "send jitter",
            cl.scenario_value(SCENARIO_DIR / f"{SWEEP_CASE}.toml", "host.send_jitter"),
            "our choice: breaks the exact phase lock of identical links (this reproduction's docs page)",
        ),
    ]


def write(report: Report, out: Path) -> None:
    report.cases.write_csv(out / "table.csv", float_precision=4)
    report.sweep.write_csv(out / "sweep.csv", float_precision=4)
    (out / "table.md").write_text(case_markdown(report))
    (out / "sweep.md").write_text(sweep_markdown(report))
    figures.throughput_bars(report.flows, report.cases, out / "throughput_bars.png")
    figures.drop_runs(report.drop_hist.filter(pl.col("case") == SWEEP_CASE), len(report.seeds), out / "drop_runs.png")
    figures.throughput_time(report.timeline, out / "throughput_time.png")
    figures.sweep(report.sweep, out / "sweep.png")
    studies_md = write_studies(report.studies, report.study_rows, out) if report.studies else ""
    cl.write_report(
        out,
        PAPER,
        report,
        title="TCP Outcast reproduction (Prakash et al., NSDI 2012)",
        baselines=baselines(),
        quick_means=QUICK_MEANS,
        table=TABLE,
        body=report_body(report, studies_md),
        values_note="Ratio = goodput of the few (2-hop) flows / mean goodput of the many (6-hop) flows; medians over seeds with the range in brackets.",
        cases=report.cases.to_dicts(),
        sweep=report.sweep.to_dicts(),
        drop_runs=report.drop_hist.sort("case", "seed", "port_class", "run_length").to_dicts(),
        study_runs=report.studies,
    )
    for case, res in report.timeline.items():
        res.write(out / "runs" / case)


def _num(x: Any, fmt: str = ".2f") -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)


def _median_range(r: dict[str, Any]) -> str:
    """ "median [min–max]" of the ratio over seeds; the median alone for one seed."""
    if r["seeds"] < 2:
        return _num(r["ratio_median"])
    return f"{_num(r['ratio_median'])} [{_num(r['ratio_min'])}–{_num(r['ratio_max'])}]"


CASE_COLUMNS = (
    ("case", "case"),
    ("6-hop flows", "n_6hop"),
    ("seeds", "seeds"),
    ("ratio 2-hop / 6-hop", None),
    ("paper", "paper_ratio"),
    ("2-hop Mbps", "goodput_2hop_mbps"),
    ("6-hop mean Mbps", "goodput_6hop_mean_mbps"),
    ("utilization", "utilization"),
    ("drop run 2-hop mean / max", None),
    ("drop run 6-hop mean / max", None),
    ("timeouts 2-hop / 6-hop mean", None),
)


def case_rows(cases: pl.DataFrame) -> list[list[str]]:
    """The cells of the case table, as text, shared by markdown and rich output."""
    rows = []
    for r in cases.iter_rows(named=True):
        rows.append(
            [
                r["case"],
                str(r["n_6hop"]),
                str(r["seeds"]),
                _median_range(r),
                _num(r["paper_ratio"]),
                _num(r["goodput_2hop_mbps"], ".1f"),
                _num(r["goodput_6hop_mean_mbps"], ".1f"),
                _num(r["utilization"], ".3f"),
                f"{_num(r['drop_run_mean_2hop'])} / {_num(r['drop_run_max_2hop'], 'd')}",
                f"{_num(r['drop_run_mean_6hop'])} / {_num(r['drop_run_max_6hop'], 'd')}",
                f"{_num(r['timeouts_2hop'], '.1f')} / {_num(r['timeouts_6hop_mean'], '.1f')}",
            ]
        )
    return rows


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def case_markdown(report: Report) -> str:
    seeds = f"seeds {report.seeds[0]}..{report.seeds[-1]}" + (f", quick ({QUICK_MEANS})" if report.quick else "")
    seeds += "".join(f", --set {o}" for o in report.overrides)
    return (
        f"# TCP Outcast, Case I ({seeds})\n\n"
        "ratio = goodput of the 2-hop flow / mean goodput of the 6-hop flows over the paper's window\n"
        "(Figs. 3(d)-(f): the first 0.1, 0.2, 0.5 s with 2, 6, 12 six-hop flows; median [range] over seeds;\n"
        "goodputs are medians over seeds);\n"
        "drop runs are consecutive drops at the bottleneck port per input-port class.\n\n"
        + _markdown([c[0] for c in CASE_COLUMNS], case_rows(report.cases))
    )


def report_body(report: Report, studies_md: str) -> list[str]:
    """report.md after the claims tables: Case I, the sweep and every study in full."""
    return [
        "## Case I: one 2-hop flow against 2, 6, 12 six-hop flows (Sec. 3.2.1, Figs. 3, 11)",
        "",
        case_markdown(report).split("\n", 2)[2],
        *(
            f'- Paper ({st.section}): "{st.quote}"'
            for st in TABLE.statements
            if st.id in ("fig3-two", "fig3-two-later", "fig3-ratios")
        ),
        "",
        "![goodput per flow](throughput_bars.png)",
        "![goodput over time](throughput_time.png)",
        "![drop runs](drop_runs.png)",
        "",
        "## Case I sweep: buffer x routing, twelve 6-hop flows",
        "",
        sweep_markdown(report).split("\n", 2)[2],
        "![sweep](sweep.png)",
        "",
        studies_md,
    ]


def sweep_markdown(report: Report) -> str:
    header = ["buffer \\ routing", *SWEEP_ROUTING]
    cells = {(r["buffer"], r["routing"]): _median_range(r) for r in report.sweep.iter_rows(named=True)}
    rows = [[b, *(cells.get((b, r), "–") for r in SWEEP_ROUTING)] for b in SWEEP_BUFFERS]
    return f"# TCP Outcast sweep: {SWEEP_CASE}, ratio 2-hop / mean 6-hop goodput\n\n" + _markdown(header, rows)


RICH_HEADERS = ("6-hop\nflows", "ratio", "paper", "2-hop\nMbps", "6-hop\nMbps", "util", "run\n2-hop", "run\n6-hop", "timeouts")


def rich_tables(report: Report) -> list[Table]:
    """The case table and the sweep, for printing to a terminal."""
    seeds = f"{len(report.seeds)} seed(s)" + (", quick" if report.quick else "")
    seeds += "".join(f", {o}" for o in report.overrides)
    cases = Table(
        title=f"TCP Outcast, Case I ({seeds}): ratio = 2-hop / mean 6-hop goodput",
        caption="run = consecutive drops at the bottleneck, mean / max; timeouts = 2-hop / 6-hop mean",
        box=box.SIMPLE_HEAD,
        padding=(0, 1, 0, 0),
        pad_edge=False,
    )
    for name in RICH_HEADERS:
        cases.add_column(name, justify="right")
    for r, row in zip(report.cases.iter_rows(named=True), case_rows(report.cases)):
        del row[0], row[1]  # case name and seeds: the 6-hop count and the title say it
        row[-1] = f"{_num(r['timeouts_2hop'], '.0f')}/{_num(r['timeouts_6hop_mean'], '.0f')}"
        cases.add_row(*(cell.replace(" / ", "/").replace(" ± ", "±") for cell in row))
    sweep = Table(title=f"Sweep ({SWEEP_CASE}): ratio by buffer x routing", box=box.SIMPLE_HEAD)
    sweep.add_column("buffer")
    for r in SWEEP_ROUTING:
        sweep.add_column(r, justify="right")
    cells = {(r["buffer"], r["routing"]): _median_range(r) for r in report.sweep.iter_rows(named=True)}
    for b in SWEEP_BUFFERS:
        sweep.add_row(b, *(cells.get((b, r), "–") for r in SWEEP_ROUTING))
    tables = [cases, sweep]
    if report.claims:
        tables.append(cl.claims_table(cl.rich_title("Outcast", report), report.claims))
    return tables


reproduce = experiment(KIND, (SCENARIO_DIR,), plan, measure_any, write)
