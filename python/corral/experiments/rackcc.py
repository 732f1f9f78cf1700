"""RackCC reproduction (rack-to-rack JumboFlows, HotNets 2016, section 4): `corral reproduce
rackcc`. The paper's numbers, each figure's setup and the statements of its evaluation are
data (`papers/rackcc.toml`); the rows are built in `rackcc_claims`.

- Fig. 2: the analytical model of Fast Start against slow start ([`rackcc_model`]), no
  simulation: B's mean fitted to the paper's L = 1 point (3.2x for 64 KB), its L = 3 point
  and trends judged; the model calibrated on corral's own Fig. 3 run as sensitivity rows.
- Fig. 3: job completion time (the slowest of the subflows five servers in one rack send to
  five in another) under DCTCP over that under RackCC, on one ToR-to-ToR path (`fig3.toml`,
  the paper's reading: the JumboFlow is one connection): the default point (25 subflows of
  150 KB, 10 us aggregation period) and three sweeps, subflow count (a), aggregation period
  (b) and subflow size (c), with full RackCC, the "shared-alpha only" ablation and window
  sending (section 3.1's reading). The same job on a k = 10 fat-tree (`fig3_fattree.toml`)
  under ECMP and under per-packet spraying gives sensitivity rows. The default point runs at
  least 10 seeds.
- The one-path loss (`onepath.toml`: 25 subflows of 1 MB on that path, 10 seeds): RackCC,
  DCTCP, a plain rate-based DCTCP (`scheme.signal = "subflow"`: the same law per subflow,
  no ToR), window sending and the law's current rate read as the observed one
  (`scheme.current = "observed"`), the control loop traced every 10 us (`rackcc_loop`).
- D_target (`dtarget.toml`): four senders into one receiver.
- Coexistence (`coexist.toml`): one JumboFlow of N subflows against N DCTCP flows (N = 1, 2,
  4, 8, 16), as the paper builds it and under the two settings that isolate why its share
  falls short of even: window sending and, with it, one JumboFlow per subflow (no fate
  sharing).

`--quick` runs 3 seeds and fewer sweep points.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from rich.table import Table

from ..results import Results
from . import claims as cl
from . import claims_table
from . import conditions as cond
from . import rackcc_figures as figures
from . import rackcc_loop as loop
from . import rackcc_model as model
from .runner import Job, experiment, seed_range

SCENARIO_DIR = Path(str(resources.files("corral") / "scenarios" / "rackcc"))
FIG3 = SCENARIO_DIR / "fig3.toml"
FIG3_FATTREE = SCENARIO_DIR / "fig3_fattree.toml"
ONEPATH = SCENARIO_DIR / "onepath.toml"
DTARGET = SCENARIO_DIR / "dtarget.toml"
COEXIST = SCENARIO_DIR / "coexist.toml"
KIND = "reproduce-rackcc"
TABLE = claims_table.load("rackcc")  # the paper's numbers, setups and statements (papers/rackcc.toml)
PAPER = TABLE.paper

# Fig. 3's networks, the paper's reading first: (scenario, overrides, setup id, deviation from
# that setup, the first receiving host).
SPRAY = ("routing.kind=spray", "transport.dupthresh=10", "scheme.dupthresh=10")
NETS: dict[str, tuple[Path, tuple[str, ...], str, dict[str, Any], int]] = {
    "one path": (FIG3, (), "fig3", {}, 5),
    "ECMP": (FIG3_FATTREE, (), "fig3-fattree", {}, 25),
    "spraying": (FIG3_FATTREE, SPRAY, "fig3-fattree", {"routing.kind": "spray"}, 25),
}
PAPER_NET = "one path"
VARIANTS = {
    "DCTCP": ("flows.0.transport=dctcp",),
    "RackCC": (),
    "shared-alpha only": ("scheme.fast_start=false", "scheme.destination=false"),
}
# Section 3.1 says the law sets "a subflow's congestion window", section 5 that "flow control
# is rate based": rate is RackCC's default, window sending runs on the paper's network.
WINDOW = "window sending"
WINDOW_OVERRIDES = ("scheme.sending=window",)
# Sensitivity of the default point to Fast Start's cold-start rate (our choice: the paper's
# first rate T / (N + M) is undefined for an idle JumboFlow, where N = 0 and T is unmeasured).
# The default shares the source ToR's uplinks (10 Gbps on one path, 50 on the fat-tree);
# 20 Gbps is about what 25 new DCTCP flows send in their first RTT (25 x 6 KB per 61 us).
COLD_START_BPS = 20e9
# And to the loss response (ours, DCTCP's halving): spraying's reordering makes senders detect
# losses that are not, and each halves f.
SENSITIVITY = {
    "cold start 20 Gbps": (f"scheme.cold_start_bps={COLD_START_BPS:.0f}",),
    "no loss halving": ("scheme.loss_halves=false",),
}
SERVERS = 5  # per rack
DEFAULT = {"subflows": 25, "period_us": 10, "size": 150_000}
SWEEPS = {
    "subflows": [5, 10, 25, 50, 100],
    "period_us": [1, 3, 10, 30, 100],
    "size": [10_000, 50_000, 150_000, 1_000_000, 10_000_000],
}
QUICK_SWEEPS = {"subflows": [5, 25, 100], "period_us": [1, 10, 100], "size": [10_000, 150_000, 1_000_000, 10_000_000]}
FIG3_SEEDS = 10  # at least, for the default point and the one-path loss (ours: the paper gives no seed count)
# The law's f_cur read as the subflow's observed rate (section 3.2's "final, observed rate"),
# a subflow short of its f_target by more than a packet held there: a sensitivity of the
# one-path loss (RackCC's default reads f_cur as the previous f_target).
OBSERVED = "observed rate"
# The one-path loss: 25 subflows of 1 MB. The plain rate-based DCTCP is the same per-subflow
# law with its own alpha and no ToR (no Fast Start, no D: DCTCP's slow start); window DCTCP
# through the scheme is that with window sending.
LOSS_VARIANTS = {
    "DCTCP": ("flows.0.transport=dctcp",),
    "RackCC": (),
    "rate DCTCP": ("scheme.signal=subflow", "scheme.fast_start=false", "scheme.destination=false"),
    WINDOW: WINDOW_OVERRIDES,
    "window DCTCP": ("scheme.signal=subflow", "scheme.fast_start=false", "scheme.destination=false", *WINDOW_OVERRIDES),
    OBSERVED: ("scheme.current=observed",),
}
TRACE_EVERY = "10us"
LOSS_WARMUP_S = 1e-3  # the episodes after the cold start
CAPACITY = 10e9  # the receiver's link in dtarget.toml; the one path's links
D_INTERVALS = 50  # acceptance: D within 10 % of C/4 after this many intervals (d = 100 us)
FIG2_SIZES = [16e3, 64e3, 256e3, 1e6, 4e6, 10e6]
FIG2_EXISTING = [1, 2, 4, 8, 16, 32]
FIG2_L = [1, 2, 3]
FIG2_SHORT = 64e3  # "short flows" (ours)
FIG2_NIC = 40e9  # the fitted model's NIC (ours); 25 and 100 Gbps in sensitivity rows
FIG2_NICS = (25e9, 100e9)
# Coexistence: N subflows against N DCTCP flows, and the settings that isolate the
# JumboFlow's shortfall: sending by window instead of rate (section 3.1's reading), and then
# no fate sharing (each subflow in a JumboFlow of its own).
COEXIST_N = (1, 2, 4, 8, 16)
COEXIST_VARIANTS = {
    "RackCC": lambda n: (),
    "window sending": lambda n: ("scheme.sending=window",),
    "window sending, a JumboFlow per subflow": lambda n: ("scheme.sending=window", f"scheme.jumboflows={n}"),
}
COEXIST_WARMUP_S = 0.01


def coexist_variants(n: int) -> list[str]:
    """The coexistence variants run with `n` subflows (with one subflow a JumboFlow per
    subflow is the window variant again)."""
    return [v for v in COEXIST_VARIANTS if not (n == 1 and "per subflow" in v)]


def coexist_hosts(n: int) -> tuple[str, ...]:
    """`n` RackCC senders and `n` DCTCP senders on coexist.toml's dumbbell: up to 4 each on its
    8 senders (h0.. and h4..), more on a dumbbell of 2n senders, the receivers after them."""
    names = lambda first, k: ", ".join(f'"h{first + i}"' for i in range(k))  # noqa: E731
    if n <= 4:
        return f"flows.0.src=[{names(0, n)}]", f"flows.1.src=[{names(4, n)}]"
    return (
        f"topology.senders={2 * n}",
        f"flows.0.src=[{names(0, n)}]",
        f"flows.1.src=[{names(n, n)}]",
        f'flows.0.dst="h{2 * n}"',
        f'flows.1.dst="h{2 * n + 1}"',
    )


def pairs(n: int, first_receiver: int) -> tuple[str, str]:
    """`n` subflows from the five servers of one rack to the five of the other (hosts
    `first_receiver`..), one per server pair in turn so that every server sends (and every
    receiver gets) an equal share: the i-th goes from server i mod 5 to server
    (i mod 5 + i div 5) mod 5, which covers the 25 pairs once in every 25 subflows."""
    chosen = [(i % SERVERS, first_receiver + (i % SERVERS + i // SERVERS) % SERVERS) for i in range(n)]
    src = ", ".join(f'"h{s}"' for s, _ in chosen)
    dst = ", ".join(f'"h{d}"' for _, d in chosen)
    return f"flows.0.src=[{src}]", f"flows.0.dst=[{dst}]"


def _variant_overrides(variant: str) -> tuple[str, ...]:
    return {**VARIANTS, WINDOW: WINDOW_OVERRIDES, **SENSITIVITY}[variant]


def _fig3_job(net: str, variant: str, point: dict[str, Any], seed: int, study: str, overrides: tuple[str, ...]) -> Job:
    scenario, net_over, setup, deviation, first = NETS[net]
    out = [
        f"seed={seed}",
        *_variant_overrides(variant),
        *net_over,
        f"flows.0.size={point['size']}",
        *pairs(point["subflows"], first),
    ]
    if variant != "DCTCP":
        out.append(f"scheme.period={point['period_us']}us")
    else:
        out = [o for o in out if not o.startswith("scheme.")]
    labels = {"study": study, "net": net, "variant": variant, "seed": seed, **point, "setup": setup, "deviation": deviation}
    return Job(scenario, (*out, *overrides), labels)


def _fig3_variants(net: str, default_point: bool) -> list[str]:
    """The variants run on `net`: DCTCP, RackCC and shared-alpha only everywhere, window
    sending on the paper's network, and at the default point the cold-start and loss
    sensitivities."""
    out = [*VARIANTS, *([WINDOW] if net == PAPER_NET else [])]
    return out + (list(SENSITIVITY) if default_point else [])


def jobs(seeds: list[int], fig3_seeds: list[int], quick: bool, overrides: tuple[str, ...] = ()) -> list[Job]:
    out = []
    for net in NETS:
        for variant in _fig3_variants(net, True):
            for seed in fig3_seeds:
                out.append(_fig3_job(net, variant, DEFAULT, seed, "default", overrides))
    for sweep, values in (QUICK_SWEEPS if quick else SWEEPS).items():
        for value in values:
            point = {**DEFAULT, sweep: value}
            if point == DEFAULT:
                continue  # the default point's runs stand in
            for net in [PAPER_NET] if quick else NETS:  # the fat-tree's sweeps only in full runs
                for variant in _fig3_variants(net, False):
                    if variant == "DCTCP" and sweep == "period_us":
                        continue  # DCTCP has no aggregation period: its default runs stand in
                    for seed in seeds:
                        out.append(_fig3_job(net, variant, point, seed, sweep, overrides))
    for variant, over in LOSS_VARIANTS.items():
        trace = () if variant == "DCTCP" else (f"scheme.trace={TRACE_EVERY}",)
        for seed in fig3_seeds:
            labels = {"study": "onepath", "variant": variant, "seed": seed, "setup": "fig3"}
            out.append(Job(ONEPATH, (f"seed={seed}", *over, *trace, *overrides), labels))
    for seed in seeds:
        for duration in ("5ms", "10ms"):
            out.append(
                Job(
                    DTARGET,
                    (f"seed={seed}", f"duration={duration}", *overrides),
                    {"study": "dtarget", "seed": seed, "duration": duration, "setup": "dtarget"},
                )
            )
        for n in COEXIST_N:
            for variant in coexist_variants(n):
                over = (f"seed={seed}", *coexist_hosts(n), *COEXIST_VARIANTS[variant](n), *overrides)
                labels = {"study": "coexist", "seed": seed, "subflows": n, "variant": variant, "setup": "coexist"}
                out.append(Job(COEXIST, over, labels))
    return out


K_PKTS = int(str(cl.scenario_value(ONEPATH, "switch.ecn_threshold")).removesuffix("pkt"))  # the marking threshold


def measure(job: Job, res: Results) -> dict[str, Any]:
    row: dict[str, Any] = {k: v for k, v in job.labels.items() if k not in ("setup", "deviation")}
    study = row["study"]
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
        late = res.tables()["throughput"].filter(pl.col("time_s") > COEXIST_WARMUP_S + 1e-9)
        tags = flows.select("flow_id", "tag")
        per = late.join(tags, on="flow_id").group_by("tag").agg(pl.col("bytes").sum())
        total = per["bytes"].sum()
        for tag, b in per.iter_rows():
            row[f"{tag}_share"] = b / total if total else None
        late_drops = res.tables()["drops"].filter(pl.col("time_s") > COEXIST_WARMUP_S).join(tags, on="flow_id")
        for tag in ("rackcc", "dctcp"):
            row[f"{tag}_late_drops"] = late_drops.filter(pl.col("tag") == tag).height
        return row
    fct = flows["fct_s"].drop_nulls()
    row.update(
        finished=fct.len(),
        flows=flows.height,
        jct_s=fct.max() if fct.len() == flows.height else None,
        median_fct_s=fct.median(),
        timeouts=int(flows["timeouts"].sum()),
        drops=res.summary["packets_dropped"],
        packets_sent=int(flows["packets_sent"].sum()),
    )
    row.update(**cond.realized(flows, res.tables()["ports"], res.summary["sim_time_s"]))
    if study == "onepath":
        drops = res.tables()["drops"]["time_s"].to_numpy()
        row["late_drops"] = int(np.sum(drops > LOSS_WARMUP_S))
        state = (res.summary.get("scheme") or {}).get("state") or {}
        eps = loop.episodes(
            res.tables()["queues"],
            drops,
            state.get("trace"),
            k=K_PKTS,
            capacity_bps=CAPACITY,
            warmup_s=LOSS_WARMUP_S,
        )
        row.update(loop.summary(eps))
        return row
    row["max_over_median"] = row["jct_s"] / row["median_fct_s"] if row["jct_s"] and row["median_fct_s"] else None
    # What the Fig. 2 model is calibrated on: the JumboFlow's throughput over its job, the NIC.
    row["jumbo_bps"] = flows["size_bytes"].sum() * 8 / row["jct_s"] if row["jct_s"] else None
    row["nic_bps"] = float(np.median(list(cond.host_rates(res.tables()["ports"]).values())))
    return row


def calibration(runs: pl.DataFrame) -> model.ModelParams:
    """The Fig. 2 model on the Fig. 3 network (rackcc_model's doc): B's mean is the median over
    seeds of the throughput RackCC's JumboFlow carried at the default point on the paper's
    network (one path), the NIC its hosts' link rate."""
    at = runs.filter((pl.col("study") == "default") & (pl.col("net") == PAPER_NET) & (pl.col("variant") == "RackCC"))
    return model.calibrated(float(at["jumbo_bps"].drop_nulls().median()), float(at["nic_bps"].median()))


@dataclass
class Report:
    runs: pl.DataFrame
    fig2: pl.DataFrame
    fig2_params: dict[str, model.ModelParams]
    speedups: pl.DataFrame
    seeds: list[int]
    fig3_seeds: list[int]
    quick: bool
    overrides: tuple[str, ...]
    claims: list[dict[str, Any]] = field(default_factory=list)


def _speedups(runs: pl.DataFrame) -> pl.DataFrame:
    """Per seed and Fig. 3 point: DCTCP's job completion time over each RackCC variant's (the
    period sweep's DCTCP is the default point's)."""
    fig3 = runs.filter(pl.col("study").is_in(["default", *SWEEPS])).select(
        "study", "net", "variant", "seed", *DEFAULT, "jct_s", "max_over_median"
    )
    dctcp = fig3.filter(pl.col("variant") == "DCTCP").drop("max_over_median")
    base = dctcp.filter(pl.col("study") == "default").drop("study", "period_us", "variant").rename({"jct_s": "dctcp_jct_s"})
    rest = fig3.filter(pl.col("variant") != "DCTCP")
    same = rest.join(dctcp.drop("variant").rename({"jct_s": "dctcp_jct_s"}), on=["study", "net", "seed", *DEFAULT], how="inner")
    period = rest.filter(pl.col("study") == "period_us").join(base, on=["net", "seed", "subflows", "size"], how="inner")
    both = pl.concat([same, period.select(same.columns)])
    return both.with_columns(speedup=pl.col("dctcp_jct_s") / pl.col("jct_s"))


def fig2_models(runs: pl.DataFrame) -> dict[str, model.ModelParams]:
    """The Fig. 2 models: fitted to the paper's L = 1 point at our NIC (the paper rows) and at
    the others, and calibrated on corral's own Fig. 3 run (sensitivity rows)."""
    target = TABLE.value("fig2-l1")
    out = {"fitted": model.fit_mean_b(target, FIG2_SHORT, 1, FIG2_NIC)}
    out.update({f"fitted, NIC {nic / 1e9:.0f} Gbps": model.fit_mean_b(target, FIG2_SHORT, 1, nic) for nic in FIG2_NICS})
    out["calibrated"] = calibration(runs)
    return out


def aggregate(
    measured: list[dict[str, Any]], seeds: list[int], fig3_seeds: list[int], quick: bool, overrides: tuple[str, ...]
) -> Report:
    from . import rackcc_claims

    runs = pl.DataFrame(measured, infer_schema_length=None)
    params = fig2_models(runs)
    fig2 = pl.concat(
        [
            pl.DataFrame(model.table(FIG2_SIZES, FIG2_EXISTING, FIG2_L, p=params[name])).with_columns(model=pl.lit(name))
            for name in ("fitted", "calibrated")
        ]
    )
    report = Report(runs, fig2, params, _speedups(runs), seeds, fig3_seeds, quick, overrides)
    report.claims = rackcc_claims.claims(report)
    return report


QUICK_MEANS = (
    "3 seeds (also at Fig. 3's default point and in the one-path loss), fewer sweep points, and the fat-tree (ECMP, "
    "spraying) at the default point only"
)


# ---------------------------------------------------------------- the experiment


def plan(seeds: int, quick: bool, overrides: tuple[str, ...]) -> tuple[list[Job], Callable[[list[Any]], Report]]:
    """The runs (3 seeds when quick; Fig. 3's default point at least the paper's 10 otherwise)
    and how their measurements become the report."""
    seed_list = seed_range(seeds, quick, quick_seeds=3)
    fig3_seeds = seed_list if quick else seed_range(max(seeds, FIG3_SEEDS), False)
    all_jobs = jobs(seed_list, fig3_seeds, quick, overrides)
    return all_jobs, lambda m: aggregate(m, seed_list, fig3_seeds, quick, overrides)


def baselines() -> list[dict[str, str]]:
    """Every baseline's and variant's settings and where each comes from (the networks are
    the setups' tables; values read from fig3.toml)."""
    b, v = cl.baseline, cl.scenario_value
    ours = "our choice (the paper gives none)"
    iw = v(FIG3, "transport.initial_window", 10)
    return [
        b(
            "DCTCP",
            "initial window",
            f"{iw} segments ({iw * 1460:,} B)",
            "ours: the RackCC paper's Fig. 2 model's TCP (section 4.1, 'initial window of 6 KB'; 4 segments of 1460 B) carried "
            "over to Fig. 3, for which the paper gives none"
            if iw == 4
            else "corral's default (the paper's section 4.1 gives 6 KB)",
        ),
        b(
            "DCTCP",
            "gain g, delayed ACK, marking",
            f"1/16, every {v(FIG3, 'transport.delayed_ack', 1)} segment(s), every hop marks",
            "DCTCP paper (g, its simulations' K rule); the ACK policy ours",
        ),
        b(
            "RackCC",
            "aggregation period, alpha gain",
            "10 us (the default point), 1/16 over rounds of the base RTT",
            "RackCC paper, section 4.2 (period); the gain and round DCTCP's (section 3.1: 'emulate ... N DCTCP flows')",
        ),
        b(
            "RackCC",
            "law clock, sending, loss",
            "once per smoothed RTT, r = MSS / RTT; a token bucket at s = min(f, D); a detected loss halves f",
            "RackCC paper, sections 3.1 ('r = MSS/RTT', 'fair to standard DCTCP') and 5 ('flow control is rate based'); "
            "the loss response DCTCP's (the paper names none)",
        ),
        b(
            "RackCC",
            "cold start",
            f"the source ToR's uplinks shared (10 Gbps on one path, 50 on the fat-tree); {COLD_START_BPS / 1e9:.0f} Gbps "
            "in a sensitivity row",
            ours + " (T / (N + M) is undefined for an idle JumboFlow)",
        ),
        b(
            "RackCC",
            "D_target",
            "k = 0.4, k' = 0.2, every 100 us, from the least queue sample of the interval",
            ours + " (section 3.2 gives the law, not its gains)",
        ),
        b(
            "shared-alpha only",
            "start",
            f"slow start from {iw} segments until the JumboFlow's first marked round",
            "the same initial window as DCTCP",
        ),
        b(WINDOW, "sending", "a window of s x RTT, ACK-clocked", "RackCC paper, section 3.1 ('a subflow's congestion window')"),
        b(
            f"{OBSERVED} (one-path loss)",
            "current rate",
            "f_cur = the rate the sender saw acknowledged since its last law step; short of f_target by more than a "
            "packet, the subflow is constrained (held there, or cut from there)",
            "RackCC paper, section 3.2 ('if the final, observed rate of the subflow is f_target, it is bottlenecked by its "
            "JumboFlow'); the default reads f_cur as the previous f_target",
        ),
        b(
            "rate DCTCP (one-path loss)",
            "signal",
            "RackCC's per-subflow law with the subflow's own alpha (DCTCP's: once per RTT) and a cut at its first marked ACK, "
            "no ToR, no Fast Start, no D",
            "ours: isolates the JumboFlow's loss (the ToR's aggregation against the law)",
        ),
    ]


def write(report: Report, out: Path) -> None:
    report.runs.write_csv(out / "runs.csv", float_precision=6)
    report.fig2.write_csv(out / "fig2.csv", float_precision=4)
    report.speedups.write_csv(out / "speedups.csv", float_precision=4)
    figures.fig2(report.fig2, out / "fig2.png")
    figures.fig3(report.speedups, out / "fig3.png")
    body = [
        "## Figures",
        "",
        "![Fig. 2](fig2.png)",
        "![Fig. 3](fig3.png)",
        "",
        "## Files",
        "",
        "`claims.json`: the claims above; `report.json`: what ran, the claims and every run's numbers; `runs.csv`: one row per run "
        "(the one-path loss runs with their episodes' medians, `ep_*`); `speedups.csv`: DCTCP / RackCC per seed and Fig. 3 point; "
        "`fig2.csv`: the fitted and calibrated models' tables.",
    ]
    cl.write_report(
        out,
        PAPER,
        report,
        title="RackCC reproduction (rack-to-rack JumboFlows, section 4)",
        table=TABLE,
        baselines=baselines(),
        quick_means=QUICK_MEANS,
        body=body,
        values_note=(
            f"Values are medians over seeds with the range in brackets (Fig. 3's default point and the one-path loss: seeds "
            f"{report.fig3_seeds[0]}..{report.fig3_seeds[-1]}); speedup = DCTCP's job completion time / RackCC's, seed by seed."
        ),
        fig3_seeds=report.fig3_seeds,
        fig2=report.fig2.to_dicts(),
        fig2_params={name: asdict(p) for name, p in report.fig2_params.items()},
    )


def rich_tables(report: Report) -> list[Table]:
    return [cl.claims_table(cl.rich_title("RackCC", report), report.claims)]


reproduce = experiment(KIND, (SCENARIO_DIR,), plan, measure, write)
