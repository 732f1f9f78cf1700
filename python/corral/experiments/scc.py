"""SCC reproduction (stacked congestion control, sections II-B, V and VI): `corral
reproduce scc`.

Runs the paper's single-bottleneck motivation (`fig1.toml`: LS 2 KB flows at 400 Mbps under
DCTCP, DS 2-198 KB flows with 5-25 ms deadlines under D2TCP, CS 2-198 KB flows under L2DCT)
and measures from the result tables only:

- Fig. 1: each class alone on a 500 Mbps bottleneck (and, for sensitivity rows, on 1000
  Mbps), and LS with DS, DS with CS on 1000 Mbps, at DS/CS loads of 20, 50 and 80 % (of 500
  Mbps): LS latency, DS deadline misses, CS average FCT;
- Fig. 4: DS with CS under SCC (also with loads read as fractions of 1000 Mbps) (one tunnel per class, weights equal, in-tunnel scheduling,
  the paper's transports inside) against the same without SCC; Fig. 5: the same with FIFO
  tunnels;
- Fig. 8b's sensitivity rows: two DS tenants needing 600 Mbps each, weighted 2:1, with and
  without SCC (the paper's Fig. 8b runs on the fabric, `scc_fabric`);
- Fig. 3: the testbed (`star.toml`: 16 hosts on one switch), CS alone, CS with DS, and all
  three classes, without SCC and under SCC with FIFO tunnels (the testbed's);
- weighted sharing: two CS tunnels weighted 2:1 on 1 Gbps (`weights.toml`), with DCTCP and
  with L2DCT inside.

LS latency is the paper's per-packet RTT, built from what corral records: each LS data
packet's one-way delay (latency.parquet, every packet) plus the ACK's unloaded way back
(three 50 us links and a 40 B ACK's serialization: the reverse path carries only ACKs).
The large-scale figures (6-12) run on the leaf-spine fabric (`scc_fabric`). `--quick`
runs one seed, and the fabric with 8 hosts per ToR and shorter runs.
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
from ..scenario import Scenario
from . import claims as cl
from . import claims_table, scc_fabric
from . import conditions as cond
from .claims import median_range, per_seed, ratio
from .runner import Job, experiment, seed_range

SCENARIO_DIR = Path(str(resources.files("corral") / "scenarios" / "scc"))
FIG1 = SCENARIO_DIR / "fig1.toml"
WEIGHTS = SCENARIO_DIR / "weights.toml"
FABRIC = SCENARIO_DIR / "fabric.toml"
STAR = SCENARIO_DIR / "star.toml"
# Fig. 3 (the testbed): the classes each case runs, and the testbed's SCC (FIFO tunnels, each
# division weighted by its 5 senders' tunnels: one MSS per RTT each).
STAR_CASES = (("CS", ("CS",)), ("CS+DS", ("DS", "CS")), ("CS+DS+LS", ("LS", "DS", "CS")))
STAR_WEIGHT = 5.0
KIND = "reproduce-scc"
LOADS = (0.2, 0.5, 0.8)
CLASSES = ("LS", "DS", "CS")  # the order of fig1.toml's [[traffic]] blocks
MEAN_BITS = 100e3 * 8  # mean DS / CS flow (uniform 2-198 KB)
ACK_BACK_S = 3 * 50e-6 + 3 * 40 * 8 / 1e9  # an ACK's unloaded one-way delay in fig1.toml
BASE = 500e6  # the bottleneck alone; loads are fractions of it
# (case, classes, bottleneck, SCC)
CASES = (
    ("LS alone", ("LS",), "500Mbps", False),
    ("DS alone", ("DS",), "500Mbps", False),
    ("CS alone", ("CS",), "500Mbps", False),
    ("LS+DS", ("LS", "DS"), "1Gbps", False),
    ("DS+CS", ("DS", "CS"), "1Gbps", False),
    ("DS+CS, SCC", ("DS", "CS"), "1Gbps", True),
    ("DS+CS, SCC FIFO", ("DS", "CS"), "1Gbps", True),
    # Fig. 1's other reading of "alone": the class alone on the shared 1000 Mbps bottleneck
    # (sensitivity rows: the paper's alone runs are on 500 Mbps).
    ("LS alone, 1 Gbps", ("LS",), "1Gbps", False),
    ("DS alone, 1 Gbps", ("DS",), "1Gbps", False),
    ("CS alone, 1 Gbps", ("CS",), "1Gbps", False),
)
ALONE_1G = "alone on 1 Gbps"
ALONE_1G_VARIES = (
    "the class alone on the 1000 Mbps bottleneck of the two-class runs, not on the paper's 500 Mbps ('In these "
    "experiments, the bottleneck link capacity is 500 Mbps'): the same link with and without the other class"
)
# Fig. 4 under the other reading of its loads: fractions of the shared 1000 Mbps bottleneck.
FIG4_SHARED = (("DS+CS, loads of 1 Gbps", False), ("DS+CS, SCC, loads of 1 Gbps", True))
SHARED = 1e9
ARRIVALS_S = 1.9  # arrivals stop here in fig1.toml and star.toml (the runs last 2 s)
TENANT_NEED = 600e6  # Fig. 8b: what each DS tenant needs (bit/s)
TENANT_WEIGHTS = (2.0, 1.0)  # Fig. 8b: A's and B's W_d (our choice: A's share, 667 Mbps, covers its need)


def case_text(classes: tuple[str, ...], scc: bool) -> str:
    """fig1.toml with only `classes`' [[traffic]] blocks, under SCC (default weights) if
    asked."""
    return scc_fabric.case_text(FIG1.read_text(), classes, "scc" if scc else "none", weight=None)


def tenants_text(scc: bool) -> str:
    """Fig. 8b: fig1.toml with two DS tenants, A (h1 -> h4) and B (h0 -> h3), under SCC with
    A weighted above B if asked."""
    scenario = Scenario.from_toml(case_text(("DS",), scc))
    [ds] = scenario.get("traffic")
    assert (ds.get("hosts"), ds.get("dst"), ds.get("tenant")) == (["h1", "h4"], "h4", "ds"), "fig1.toml's DS block changed"
    # Each tenant on a stream of its own (two blocks may not share one).
    scenario.set(
        "traffic", [{**ds, "tenant": "A", "stream": 0}, {**ds, "hosts": ["h0", "h3"], "dst": "h3", "tenant": "B", "stream": 1}]
    )
    if scc:
        scenario.set("scheme.weights", {"A/DS": TENANT_WEIGHTS[0], "B/DS": TENANT_WEIGHTS[1]})
    return scenario.to_toml()


def jobs(seeds: list[int], quick: bool = True, overrides: tuple[str, ...] = ()) -> list[Job]:
    out = []
    for seed in seeds:
        for case, classes, bottleneck, scc in CASES:
            loads = (None,) if classes == ("LS",) else LOADS
            for load in loads:
                ov = [f"seed={seed}", f"topology.bottleneck_rate={bottleneck}"]
                if case.endswith("FIFO"):
                    ov.append("scheme.in_tunnel=false")
                if load is not None:
                    rate = load * BASE / MEAN_BITS
                    ov += [f"traffic.{i}.rate={rate}" for i, c in enumerate(c for c in CLASSES if c in classes) if c != "LS"]
                labels = {"study": "fig1", "case": case, "load": load, "seed": seed, "setup": "motivation"}
                out.append(Job(case_text(classes, scc), (*ov, *overrides), labels))  # type: ignore[arg-type]
        for case, scc in FIG4_SHARED:
            rate = LS_LOAD * SHARED / MEAN_BITS
            ov = [f"seed={seed}", "topology.bottleneck_rate=1Gbps", f"traffic.0.rate={rate}", f"traffic.1.rate={rate}"]
            out.append(
                Job(
                    case_text(("DS", "CS"), scc),
                    (*ov, *overrides),
                    {
                        "study": "fig4_shared",
                        "case": case,
                        "load": LS_LOAD,
                        "seed": seed,
                        "setup": "motivation",
                        # The other reading of the loads: fractions of the shared 1000 Mbps.
                        "deviation": {"traffic.0.rate": rate, "traffic.1.rate": rate},
                    },
                )
            )  # type: ignore[arg-type]
        out.append(
            Job(
                WEIGHTS,
                (f"seed={seed}", *overrides),
                {"study": "weights", "case": "2:1", "load": None, "seed": seed, "setup": "weights"},
            )
        )
        out.append(
            Job(
                WEIGHTS,
                (f"seed={seed}", 'scheme.cc.CS="l2dct"', *overrides),
                {"study": "weights", "case": "2:1, L2DCT inside", "load": None, "seed": seed, "setup": "weights"},
            )
        )
        out.append(
            Job(
                WEIGHTS,
                (f"seed={seed}", "scheme.validate=true", *overrides),
                {"study": "weights", "case": "2:1, rate validation", "load": None, "seed": seed, "setup": "weights"},
            )
        )
        for scc in (False, True):
            rate = TENANT_NEED / MEAN_BITS
            ov = (
                f"seed={seed}",
                "topology.bottleneck_rate=1Gbps",
                f"traffic.0.rate={rate}",
                f"traffic.1.rate={rate}",
                *overrides,
            )
            out.append(
                Job(
                    tenants_text(scc),
                    ov,
                    {"study": "tenants", "case": "SCC" if scc else "D2TCP", "load": None, "seed": seed, "setup": "motivation"},
                )
            )  # type: ignore[arg-type]
        for case, classes in STAR_CASES:
            for variant in ("none", "scc_fifo"):
                text = scc_fabric.case_text(STAR.read_text(), classes, variant, STAR_WEIGHT)
                out.append(
                    Job(
                        text,
                        (f"seed={seed}", *overrides),
                        {
                            "study": "star",
                            "case": case,
                            "variant": variant,
                            "load": None,
                            "seed": seed,
                            "window_s": ARRIVALS_S,
                            "setup": "testbed",
                        },
                    )
                )  # type: ignore[arg-type]
    return out + scc_fabric.jobs(FABRIC.read_text(), seeds, quick, overrides)


def measure(job: Job, res: Results) -> dict[str, Any]:
    labels = {k: v for k, v in job.labels.items() if k not in ("setup", "deviation")}
    if job.labels["study"] in ("fabric", "star"):
        return scc_fabric.measure(labels, res)
    row: dict[str, Any] = labels
    flows = res.tables()["flows"]
    end = res.summary["sim_time_s"]
    row.update(**cond.realized(flows, res.ports, end))
    # Offered load per class (and per tenant) in bit/s over the arrival window.
    for col, key in (("class", CLASSES), ("tenant", ("A", "B"))):
        for name in key:
            sub = flows.filter(pl.col(col) == name)
            if sub.height:
                row[f"offered_{name}_bps"] = cond.offered_bps(sub, res.ports, end, ARRIVALS_S)
    if job.labels["study"] == "tenants":
        for tenant in ("A", "B"):
            row[f"miss_{tenant}"] = scc_fabric.deadline_miss(flows.filter(pl.col("tenant") == tenant))
        row["ds_miss"] = scc_fabric.deadline_miss(flows)
        return row
    if job.labels["study"] == "weights":
        tp = (
            res.tables()["throughput"]
            .filter(pl.col("time_s") > 0.05 + 1e-9)
            .group_by("flow_id")
            .agg(pl.col("bytes").sum())
            .sort("flow_id")
        )
        a, b = tp["bytes"].to_list()
        row.update(ratio=a / b, utilization=(a + b) * 8 * 1500 / 1460 / 0.15 / 1e9)
        return row
    for cls in CLASSES:
        f = flows.filter(pl.col("class") == cls)
        if not f.height:
            continue
        if cls == "LS":
            rtt = res.tables()["latency"].filter(pl.col("class") == "LS")["latency_s"] + ACK_BACK_S
            row.update(ls_mean_s=rtt.mean(), ls_p99_s=rtt.quantile(0.99))
        elif cls == "DS":
            row["ds_miss"] = scc_fabric.deadline_miss(f)
        else:
            row.update(scc_fabric.cs_metrics(f, res.summary["sim_time_s"]))
    return row


@dataclass
class Report:
    runs: pl.DataFrame
    seeds: list[int]
    quick: bool
    overrides: tuple[str, ...]
    claims: list[dict[str, Any]] = field(default_factory=list)


TABLE = claims_table.load("scc")  # the paper's numbers, setups and statements (papers/scc.toml)
PAPER = TABLE.paper
QUICK_MEANS = "one seed, and the fabric with 8 hosts per ToR and runs of 150 ms (data-mining 1 s)"
LS_LOAD = 0.8  # LS: 400 Mbps of 500


def _dumbbell(runs: pl.DataFrame, cases: tuple[str, ...], load: float | None, **extra: Any) -> dict[str, Any]:
    """Conditions of a motivation-setup row: each class's offered load (a fraction of 500
    Mbps, over the arrival window) against the paper's (LS 400 Mbps; DS and CS `load`)."""
    sub = runs.filter(
        pl.col("case").is_in(list(cases))
        & ((pl.col("load") == load) | pl.col("load").is_null() if load is not None else pl.col("load").is_null())
    )
    checks = {}
    for cls in CLASSES:
        col = f"offered_{cls}_bps"
        if col in sub.columns and sub[col].drop_nulls().len():
            target = LS_LOAD if cls == "LS" else load
            if target is not None:
                checks[f"load_{cls}"] = cond.check([x / BASE for x in sub[col].drop_nulls().to_list()], target)
    return cond.of_runs(sub, **checks, **extra)


def claims(r: Report) -> list[dict[str, Any]]:
    """Every row, by its id in papers/scc.toml (the paper's numbers are there)."""
    runs = r.runs
    c = cl.Claims(PAPER, table=TABLE)
    hi = 0.8
    alone = [1e6 * x for x in per_seed(runs, "ls_mean_s", case="LS alone")]
    c.row("fig1b-ls-alone", alone, unit="us", conditions=_dumbbell(runs, ("LS alone",), None))
    # DS alone: "almost no flows miss deadlines" at light and moderate loads, "many" at high.
    light = [100 * max(xs) for xs in zip(*(per_seed(runs, "ds_miss", case="DS alone", load=load) for load in (0.2, 0.5)))]
    c.row("fig1c-ds-light", light, unit="%", conditions=_dumbbell(runs, ("DS alone",), 0.5))
    high = [
        100 * (a - b)
        for a, b in zip(per_seed(runs, "ds_miss", case="DS alone", load=hi), per_seed(runs, "ds_miss", case="DS alone", load=0.5))
    ]
    c.row("fig1c-ds-high", high, unit="points", conditions=_dumbbell(runs, ("DS alone",), hi))
    lsds = _dumbbell(runs, ("LS alone", "LS+DS"), hi)
    c.row("fig1b-ls-p99", ratio(runs, "ls_p99_s", {"case": "LS+DS", "load": hi}, {"case": "LS alone"}), unit="x", conditions=lsds)
    c.row(
        "fig1b-ls-mean", ratio(runs, "ls_mean_s", {"case": "LS+DS", "load": hi}, {"case": "LS alone"}), unit="x", conditions=lsds
    )
    ds_ls = [
        100 * (a - b)
        for a, b in zip(per_seed(runs, "ds_miss", case="LS+DS", load=hi), per_seed(runs, "ds_miss", case="DS alone", load=hi))
    ]
    c.row("fig1c-ds-with-ls", ds_ls, unit="points", conditions=_dumbbell(runs, ("DS alone", "LS+DS"), hi))
    ups = {load: ratio(runs, "ds_miss", {"case": "DS+CS", "load": load}, {"case": "DS alone", "load": load}) for load in LOADS}
    most = (
        [max(xs) for xs in zip(*(v for v in ups.values() if len(v) == len(r.seeds)))]
        if any(len(v) == len(r.seeds) for v in ups.values())
        else []
    )
    c.row(
        "fig1c-ds-with-cs",
        most,
        unit="x",
        conditions=_dumbbell(runs, ("DS alone", "DS+CS"), hi),
        detail="; ".join(f"{int(l * 100)} %: {median_range(x, '.2f')}x" for l, x in ups.items()),
    )
    cs = ratio(runs, "cs_afct_s", {"case": "DS+CS", "load": hi}, {"case": "CS alone", "load": hi})
    c.row("fig1d-cs", cs, unit="x", conditions=_dumbbell(runs, ("CS alone", "DS+CS"), hi))
    low = [
        100 * (a - b)
        for a, b in zip(per_seed(runs, "ds_miss", case="DS+CS", load=0.2), per_seed(runs, "ds_miss", case="DS alone", load=0.2))
    ]
    c.row("fig1c-ds-low", low, unit="points", conditions=_dumbbell(runs, ("DS alone", "DS+CS"), 0.2))
    _alone_1g(r, c)
    f4 = _dumbbell(runs, ("DS+CS", "DS+CS, SCC"), hi)
    miss = ratio(runs, "ds_miss", {"case": "DS+CS", "load": hi}, {"case": "DS+CS, SCC", "load": hi})
    afct = ratio(runs, "cs_afct_s", {"case": "DS+CS", "load": hi}, {"case": "DS+CS, SCC", "load": hi})
    c.row("fig4-miss", miss, unit="x", conditions=f4)
    c.row("fig4-afct", afct, unit="x", conditions=f4)
    # Sensitivity: the other reading of the loads, fractions of the shared 1000 Mbps.
    shared = runs.filter(pl.col("study") == "fig4_shared")
    f4b = cond.of_runs(
        shared,
        **{
            f"load_{k}": cond.check([x / SHARED for x in shared[f"offered_{k}_bps"].drop_nulls().to_list()], LS_LOAD)
            for k in ("DS", "CS")
            if f"offered_{k}_bps" in shared.columns
        },
    )
    none, scc = (case for case, _ in FIG4_SHARED)
    varies = (
        "loads read as fractions of the shared 1000 Mbps (1.6 Gbps offered at 80 %), not of 500 Mbps: the paper's "
        "1000 Mbps is 'large enough to meet the demands of both types of flows', which only the 500 Mbps reading keeps"
    )
    for claim_id, col in (("fig4-miss", "ds_miss"), ("fig4-afct", "cs_afct_s")):
        c.sensitivity(
            claim_id,
            "loads of 1 Gbps",
            ratio(shared, col, {"case": none}, {"case": scc}),
            unit="x",
            varies=varies,
            conditions=f4b,
        )
    # Fig. 5: how much in-tunnel algorithms cut against FIFO tunnels, the largest over loads.
    for claim_id, col in (("fig5-ds", "ds_miss"), ("fig5-cs", "cs_afct_s")):
        cuts = {
            load: [
                100 * (1 - x)
                for x in ratio(runs, col, {"case": "DS+CS, SCC", "load": load}, {"case": "DS+CS, SCC FIFO", "load": load})
            ]
            for load in LOADS
        }
        full = [v for v in cuts.values() if len(v) == len(r.seeds)]
        c.row(
            claim_id,
            [max(xs) for xs in zip(*full)] if full else [],
            unit="%",
            conditions=_dumbbell(runs, ("DS+CS, SCC", "DS+CS, SCC FIFO"), hi),
            detail="; ".join(f"{int(l * 100)} %: {median_range(x, '.0f')} %" for l, x in cuts.items()),
        )
    _testbed(r, c)
    wcond = cond.of_runs(runs.filter(pl.col("study") == "weights"))
    u = [100 * x for x in per_seed(runs, "utilization", study="weights", case="2:1")]
    c.row("weights-ratio", per_seed(runs, "ratio", study="weights", case="2:1"), unit="x", conditions=wcond)
    c.row("weights-util", u, unit="%", conditions=wcond)
    c.row("weights-validation", per_seed(runs, "ratio", study="weights", case="2:1, rate validation"), unit="x", conditions=wcond)
    c.row("weights-l2dct", per_seed(runs, "ratio", study="weights", case="2:1, L2DCT inside"), unit="x", conditions=wcond)
    scc_fabric.claims(runs, c)
    _tenants(r, c)
    return c.rows


def _alone_1g(r: Report, c: cl.Claims) -> None:
    """Fig. 1's rows with each class alone on 1000 Mbps (sensitivity rows)."""
    runs, hi = r.runs, 0.8

    def sens(claim_id: str, values: list[float], unit: str, cases: tuple[str, ...], load: float | None, detail: str = "") -> None:
        c.sensitivity(
            claim_id, ALONE_1G, values, unit=unit, varies=ALONE_1G_VARIES, conditions=_dumbbell(runs, cases, load), detail=detail
        )

    ls1, ds1, cs1 = "LS alone, 1 Gbps", "DS alone, 1 Gbps", "CS alone, 1 Gbps"
    sens("fig1b-ls-alone", [1e6 * x for x in per_seed(runs, "ls_mean_s", case=ls1)], "us", (ls1,), None)
    for claim_id, col in (("fig1b-ls-p99", "ls_p99_s"), ("fig1b-ls-mean", "ls_mean_s")):
        sens(claim_id, ratio(runs, col, {"case": "LS+DS", "load": hi}, {"case": ls1}), "x", (ls1, "LS+DS"), hi)
    ds_ls = [
        100 * (a - b)
        for a, b in zip(per_seed(runs, "ds_miss", case="LS+DS", load=hi), per_seed(runs, "ds_miss", case=ds1, load=hi))
    ]
    sens("fig1c-ds-with-ls", ds_ls, "points", (ds1, "LS+DS"), hi)
    ups = {load: ratio(runs, "ds_miss", {"case": "DS+CS", "load": load}, {"case": ds1, "load": load}) for load in LOADS}
    full = [v for v in ups.values() if len(v) == len(r.seeds)]
    sens(
        "fig1c-ds-with-cs",
        [max(xs) for xs in zip(*full)] if full else [],
        "x",
        (ds1, "DS+CS"),
        hi,
        detail="; ".join(f"{int(l * 100)} %: {median_range(x, '.2f')}x" for l, x in ups.items()),
    )
    low = [
        100 * (a - b)
        for a, b in zip(per_seed(runs, "ds_miss", case="DS+CS", load=0.2), per_seed(runs, "ds_miss", case=ds1, load=0.2))
    ]
    sens("fig1c-ds-low", low, "points", (ds1, "DS+CS"), 0.2)
    sens("fig1d-cs", ratio(runs, "cs_afct_s", {"case": "DS+CS", "load": hi}, {"case": cs1, "load": hi}), "x", (cs1, "DS+CS"), hi)


def _testbed(r: Report, c: cl.Claims) -> None:
    """Fig. 3: the 16-host star, SCC with FIFO tunnels against no SCC; CS offers the paper's
    400 Mbps of the 1 Gbps link."""
    runs = r.runs.filter(pl.col("study") == "star")

    def on(case: str) -> dict[str, Any]:
        sub = runs.filter(pl.col("case") == case)
        return cond.of_runs(sub, load_CS=cond.check([x / 1e9 for x in sub["offered_CS_bps"].drop_nulls().to_list()], 0.4))

    afct = {
        case: ratio(runs, "cs_afct_s", {"case": case, "variant": "scc_fifo"}, {"case": case, "variant": "none"})
        for case, _ in STAR_CASES
    }
    fewer = {
        case: ratio(runs, "ds_miss", {"case": case, "variant": "none"}, {"case": case, "variant": "scc_fifo"})
        for case, _ in STAR_CASES
    }
    c.row("fig3-cs-alone", afct["CS"], unit="x", conditions=on("CS"), note="16-host star, FIFO tunnels")
    note = "loads ours (the paper: 'medium', 'high'): CS 400, DS 300, LS 200 Mbps (star.toml)"
    for case, prefix in (("CS+DS", "fig3-csds"), ("CS+DS+LS", "fig3-all")):
        c.row(f"{prefix}-afct", [100 * (1 - x) for x in afct[case]], unit="%", conditions=on(case), note=note)
        c.row(f"{prefix}-miss", fewer[case], unit="x", conditions=on(case), note=note)


TENANTS_VARIES = (
    "the motivation's dumbbell (two DS tenants of uniform 2-198 KB flows needing 600 Mbps each of 1 Gbps, weighted 2:1) "
    "instead of the paper's large-scale data-mining setup (section VI-B)"
)


def _tenants(r: Report, c: cl.Claims) -> None:
    """Fig. 8b on the dumbbell (sensitivity rows; the paper's rows run on the fabric):
    two DS tenants needing 600 Mbps each, weighted 2:1, on 1 Gbps."""
    runs = r.runs.filter(pl.col("study") == "tenants")
    need = {
        f"load_{t}": cond.check([x / TENANT_NEED for x in runs[f"offered_{t}_bps"].drop_nulls().to_list()], 1.0)
        for t in ("A", "B")
    }
    tcond = cond.of_runs(runs, **need)
    a = [100 * x for x in per_seed(runs, "miss_A", case="SCC")]
    b = [100 * x for x in per_seed(runs, "miss_B", case="SCC")]
    both = ratio(runs, "ds_miss", {"case": "SCC"}, {"case": "D2TCP"})
    for claim_id, values, unit in (
        ("fig8b-a", a, "%"),
        ("fig8b-b", [y - x for x, y in zip(a, b)], "points"),
        ("fig8b-both", both, "x"),
    ):
        c.sensitivity(claim_id, "dumbbell", values, unit=unit, varies=TENANTS_VARIES, conditions=tcond)


def aggregate(measured: list[dict[str, Any]], seeds: list[int], quick: bool, overrides: tuple[str, ...]) -> Report:
    report = Report(pl.DataFrame(measured, infer_schema_length=None), seeds, quick, overrides)
    report.claims = claims(report)
    return report


def plan(seeds: int, quick: bool, overrides: tuple[str, ...]) -> tuple[list[Job], Callable[[list[Any]], Report]]:
    """The runs (one seed when quick) and how their measurements become the report."""
    seed_list = seed_range(seeds, quick)
    return jobs(seed_list, quick, overrides), lambda m: aggregate(m, seed_list, quick, overrides)


def baselines() -> list[dict[str, str]]:
    """Every baseline's settings and where each comes from (read from the scenarios)."""
    b, v = cl.baseline, cl.scenario_value
    paper, ours = "SCC paper", "our choice (the paper gives none)"
    pf = scc_fabric.pfabric_settings(FABRIC.read_text())
    return [
        b(
            "motivation (Figs. 1, 4, 5; Fig. 8b's dumbbell sensitivity rows)",
            "bottleneck, buffer, K, RTT",
            f"500 Mbps alone, 1 Gbps shared; {v(FIG1, 'switch.buffer')}, {v(FIG1, 'switch.ecn_threshold')}; 300 us",
            paper + ", section II-B",
        ),
        b(
            "motivation",
            "loads",
            "fractions of 500 Mbps: DS and CS 20, 50, 80 %; LS 400 Mbps of 2 KB flows",
            paper + "; the 500 Mbps base ours",
        ),
        b(
            "fabric (Figs. 6-12)",
            "network",
            f"leaf-spine, 4 ToRs x 30 hosts, {v(FABRIC, 'topology.host_rate')} hosts, "
            f"{v(FABRIC, 'topology.fabric_rate')} core, RTT 300 us",
            paper + ", section VI",
        ),
        b(
            "fabric",
            "routing",
            f"{v(FABRIC, 'routing.kind')}: 64 KiB flowcells, a flow's cells round-robin over the spines; "
            "per-flow ECMP as a sensitivity run (the data-mining coexistence pair)",
            paper + ", section III (it assumes Presto); the 64 KiB Presto's (the SCC paper gives no size)",
        ),
        b(
            "fabric",
            "switch buffer, K",
            f"{v(FABRIC, 'switch.buffer')}, {v(FABRIC, 'switch.ecn_threshold')}",
            "SCC paper (250 KB); K ours (Fig. 1's)",
        ),
        b(
            "fabric",
            "loads, deadlines",
            "300 Mbps per class (90 % with three); DS deadlines exponential, mean 20 ms (40 ms and DS flows of 2-198 KB "
            "as sensitivity rows of Fig. 10b)",
            paper + " (loads); the deadline mean and DS's sizes ours (the paper points to L2DCT's guidelines)",
        ),
        b(
            "DCTCP (LS)",
            "gain g, initial window",
            f"1/16, {v(FABRIC, 'transport.initial_window', 10)} segments",
            "DCTCP paper; corral's default window",
        ),
        b("D2TCP (DS)", "deadline imminence d clip", "[0.5, 2]", "D2TCP paper"),
        b("L2DCT (CS)", "weight schedule", "2.5 up to 200 KB sent, 0.125 from 1 MB", "L2DCT paper's bounds; the schedule ours"),
        b("all TCPs", "min RTO", v(FABRIC, "transport.min_rto"), ours),
        b("pFabric (Fig. 8a)", "initial window", pf["initial_window_text"], "pFabric paper (flows start at line rate: one BDP)"),
        b("pFabric", "min RTO", pf["min_rto_text"], "pFabric paper (about 3 RTTs)"),
        b("pFabric", "switch buffer", pf["buffer_text"], "pFabric paper (about 2 BDPs)"),
        b("pFabric", "priorities", "remaining bytes; DS before CS", "pFabric paper; 'high priority to DS flows' the SCC paper's"),
        b(
            "SCC",
            "underlay",
            "eqs. 1-2 read as weighted DCTCP: + W_t segments per RTT, cut (1 - alpha/2) once per RTT; no rate validation",
            paper + ", section III-B (the reading ours, this reproduction's docs page)",
        ),
        b(
            "SCC",
            "least increase",
            f"none: a tunnel grows by its weight W_t (min_increase 0); {scc_fabric.LEAST_INCREASE:g} segment per RTT "
            "as a sensitivity run (web-search and MapReduce coexistence)",
            paper + ", eqs. 1, 3-4 (the option ours)",
        ),
        b(
            "SCC",
            "division weights",
            f"fabric {scc_fabric.DIVISION_WEIGHT:g} each; testbed {STAR_WEIGHT:g}; Fig. 8b A:B "
            f"{scc_fabric.TENANT_WEIGHTS['scc']:g}:1 (4:1 as sensitivity rows; the dumbbell's {TENANT_WEIGHTS[0]:g}:{TENANT_WEIGHTS[1]:g})",
            ours,
        ),
        b(
            "SCC FIFO tunnels",
            "in-tunnel scheduling",
            "off: one FIFO packet queue per tunnel at the source host, released at R_t; its flows send as their windows allow",
            paper + ", sections III-A and V ('a rate limited per-tunnel queue')",
        ),
        b(
            "fabric, data-mining",
            "load, run length",
            "load counted by what each flow can send before the run ends "
            '(traffic load_basis = "run"); runs of 1.5 s, arrivals to 1.25 s',
            ours + " (the paper's 1 GB flows outlast any affordable run)",
        ),
        b(
            "strict priority (Fig. 12)",
            "queues, SCC",
            "2 per port, LS high, ECN in each; SCC on against SCC on one queue (SCC off as sensitivity rows)",
            paper + ", section VI-D ('SCC Dynamics') and IV-C",
        ),
        b(
            "fabric, Fig. 8b",
            "tenants",
            f"two DS tenants, data-mining, {scc_fabric.TENANT_LOAD:.0%} of the host links each",
            ours + " (the paper: Fig. 8 'Comparison under Data-mining workload', section VI-B)",
        ),
    ]


def write(report: Report, out: Path) -> None:
    from . import scc_figures as figures

    report.runs.write_csv(out / "runs.csv", float_precision=6)
    figures.fig1(report.runs, out / "fig1.png")
    figures.fabric(report.runs, out / "fabric.png")
    figures.fig7(report.runs, out / "fig7.png")
    body = [
        "## Figures",
        "",
        "![Fig. 1 and 4](fig1.png)",
        "",
        "![Figs. 6-12 on the leaf-spine fabric](fabric.png)",
        "",
        "![Fig. 7: DS and CS coexisting, data-mining](fig7.png)",
        "",
        "## Files",
        "",
        "`claims.json`: the claims above; `report.json`: what ran, the claims and every run's numbers; "
        "`runs.csv`: one row per run (case, load, seed) with every measured number.",
    ]
    cl.write_report(
        out,
        PAPER,
        report,
        title=(
            "SCC reproduction (stacked congestion control: Figs. 1, 3, 4, 5, 8b and weighted sharing; "
            "Figs. 6-12 on a leaf-spine fabric)"
        ),
        baselines=baselines(),
        quick_means=QUICK_MEANS,
        body=body,
        table=TABLE,
    )


def rich_tables(report: Report) -> list[Table]:
    return [cl.claims_table(cl.rich_title("SCC", report), report.claims)]


reproduce = experiment(KIND, (SCENARIO_DIR,), plan, measure, write)
