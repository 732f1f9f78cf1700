"""SCC reproduction (stacked congestion control, sections II-B, V and VI): `corral
reproduce scc`.

Runs the paper's single-bottleneck motivation (`fig1.toml`: LS 2 KB flows at 400 Mbps under
DCTCP, DS 2-198 KB flows with 5-25 ms deadlines under D2TCP, CS 2-198 KB flows under L2DCT)
and measures from the result tables only:

- Fig. 1: each class alone on a 500 Mbps bottleneck, and LS with DS, DS with CS on 1000
  Mbps, at DS/CS loads of 20, 50 and 80 % (of 500 Mbps): LS latency, DS deadline misses, CS
  average FCT;
- Fig. 4: DS with CS under SCC (one tunnel per class, weights equal, in-tunnel scheduling,
  the paper's transports inside) against the same without SCC; Fig. 5: the same with FIFO
  tunnels;
- Fig. 8b: two DS tenants needing 600 Mbps each, weighted 2:1, with and without SCC;
- Fig. 3: the testbed (`star.toml`: 16 hosts on one switch), CS alone, CS with DS, and all
  three classes, without SCC and under SCC with FIFO tunnels (the testbed's);
- weighted sharing: two CS tunnels weighted 2:1 on 1 Gbps (`weights.toml`), with DCTCP and
  with L2DCT inside.

LS latency is the paper's per-packet RTT, built from what corral records: each LS data
packet's one-way delay (latency.parquet, every packet) plus the ACK's unloaded way back
(three 50 us links and a 40 B ACK's serialization: the reverse path carries only ACKs).
The large-scale figures (6, 8a-12) run on the leaf-spine fabric (`scc_fabric`). `--quick`
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
from . import scc_fabric, summary_json
from .claims import claim, claims_table, median, median_range, per_seed, ratio, report_head, rich_title
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
)
TENANT_NEED = 600e6  # Fig. 8b: what each DS tenant needs (bit/s)
TENANT_WEIGHTS = ("2.0", "1.0")  # Fig. 8b: A's and B's W_d (our choice: A's share, 667 Mbps, covers its need)


def case_text(classes: tuple[str, ...], scc: bool) -> str:
    """fig1.toml with only `classes`' [[traffic]] blocks, under SCC (default weights) if
    asked."""
    return scc_fabric.case_text(FIG1.read_text(), classes, "scc" if scc else "none", weight=None)


def tenants_text(scc: bool) -> str:
    """Fig. 8b: fig1.toml with two DS tenants, A (h1 -> h4) and B (h0 -> h3), under SCC with
    A weighted above B if asked."""
    head, ds = case_text(("DS",), scc).split("\n[[traffic]]\n")
    b = ds.replace('hosts = ["h1", "h4"]', 'hosts = ["h0", "h3"]').replace('dst = "h4"', 'dst = "h3"').replace('tenant = "ds"', 'tenant = "B"')
    a = ds.replace('tenant = "ds"', 'tenant = "A"')
    if scc:
        head += f'weights = {{ "A/DS" = {TENANT_WEIGHTS[0]}, "B/DS" = {TENANT_WEIGHTS[1]} }}\n'
    return head + "\n[[traffic]]\n" + a + "\n[[traffic]]\n" + b


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
                labels = {"study": "fig1", "case": case, "load": load, "seed": seed}
                out.append(Job(case_text(classes, scc), (*ov, *overrides), labels))  # type: ignore[arg-type]
        out.append(Job(WEIGHTS, (f"seed={seed}", *overrides), {"study": "weights", "case": "2:1", "load": None, "seed": seed}))
        out.append(Job(WEIGHTS, (f"seed={seed}", 'scheme.cc.CS="l2dct"', *overrides), {"study": "weights", "case": "2:1, L2DCT inside", "load": None, "seed": seed}))
        for scc in (False, True):
            rate = TENANT_NEED / MEAN_BITS
            ov = (f"seed={seed}", "topology.bottleneck_rate=1Gbps", f"traffic.0.rate={rate}", f"traffic.1.rate={rate}", *overrides)
            out.append(Job(tenants_text(scc), ov, {"study": "tenants", "case": "SCC" if scc else "D2TCP", "load": None, "seed": seed}))  # type: ignore[arg-type]
        for case, classes in STAR_CASES:
            for variant in ("none", "scc_fifo"):
                text = scc_fabric.case_text(STAR.read_text(), classes, variant, STAR_WEIGHT)
                out.append(Job(text, (f"seed={seed}", *overrides), {"study": "star", "case": case, "variant": variant, "load": None, "seed": seed}))  # type: ignore[arg-type]
    return out + scc_fabric.jobs(FABRIC.read_text(), seeds, quick, overrides)


def measure(job: Job, res: Results) -> dict[str, Any]:
    if job.labels["study"] in ("fabric", "star"):
        return scc_fabric.measure(job.labels, res)
    row: dict[str, Any] = dict(job.labels)
    flows = res.tables()["flows"]
    if job.labels["study"] == "tenants":
        for tenant in ("A", "B"):
            row[f"miss_{tenant}"] = scc_fabric.deadline_miss(flows.filter(pl.col("tenant") == tenant))
        row["ds_miss"] = scc_fabric.deadline_miss(flows)
        return row
    if job.labels["study"] == "weights":
        tp = res.tables()["throughput"].filter(pl.col("time_s") > 0.05 + 1e-9).group_by("flow_id").agg(pl.col("bytes").sum()).sort("flow_id")
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


def claims(r: Report) -> list[dict[str, Any]]:
    runs = r.runs
    out: list[dict[str, Any]] = []

    def add(fig: str, text: str, measured: str, ok: bool | str | None, note: str = "") -> None:
        out.append(claim(fig, text, measured, ok, note))

    alone = per_seed(runs, "ls_mean_s", case="LS alone")
    add("Fig. 1b", "LS alone: mean latency <= 345 us (base RTT 300 us)", f"{median_range(alone, '.0f', 1e6)} us", bool(alone) and median(alone) <= 345e-6,
        "per-packet RTT: one-way delay + the ACK's unloaded way back")
    p99 = ratio(runs, "ls_p99_s", {"case": "LS+DS", "load": 0.8}, {"case": "LS alone"})
    mean = ratio(runs, "ls_mean_s", {"case": "LS+DS", "load": 0.8}, {"case": "LS alone"})
    add("Fig. 1b", "LS with DS at 80 %: LS p99 >= 2.5x and mean >= 1.3x alone (paper: +300 %, +50 %)",
        f"p99 {median_range(p99, '.2f')}x, mean {median_range(mean, '.2f')}x", bool(p99) and median(p99) >= 2.5 and median(mean) >= 1.3)
    ds = {load: (per_seed(runs, "ds_miss", case="DS alone", load=load), per_seed(runs, "ds_miss", case="DS+CS", load=load)) for load in LOADS}
    add("Fig. 1c", "DS with CS misses more deadlines than DS alone at every load (paper: even at low load, up to 4x)",
        "; ".join(f"{int(l * 100)} %: alone {median_range(a, '.1%')}, with CS {median_range(b, '.1%')}" for l, (a, b) in ds.items()),
        all(a and b and median(b) > median(a) for a, b in ds.values()))
    cs = ratio(runs, "cs_afct_s", {"case": "DS+CS", "load": 0.8}, {"case": "CS alone", "load": 0.8})
    add("Fig. 1d", "CS with DS at 80 %: AFCT >= 1.6x alone (paper: more than 2x)", f"{median_range(cs, '.2f')}x", bool(cs) and median(cs) >= 1.6)
    miss = ratio(runs, "ds_miss", {"case": "DS+CS, SCC", "load": 0.8}, {"case": "DS+CS", "load": 0.8})
    afct = ratio(runs, "cs_afct_s", {"case": "DS+CS, SCC", "load": 0.8}, {"case": "DS+CS", "load": 0.8})
    add("Fig. 4", "DS with CS at 80 %: SCC at least halves DS misses and CS AFCT (paper: 4x and 5x)",
        f"DS misses {median_range(miss, '.2f')}x, CS AFCT {median_range(afct, '.2f')}x of without SCC",
        bool(miss) and bool(afct) and median(miss) <= 0.5 and median(afct) <= 0.5,
        "SCC: one tunnel per class, equal weights, in-tunnel scheduling, DCTCP inside")
    # Per load, as the figure: medians over seeds, in-tunnel against FIFO tunnels.
    def worse(col: str, load: float) -> float | None:
        a, b = median(per_seed(runs, col, case="DS+CS, SCC", load=load)), median(per_seed(runs, col, case="DS+CS, SCC FIFO", load=load))
        return None if a is None or b is None else (a / b if b else (1.0 if a == 0 else float("inf")))

    by_load = {load: (worse("ds_miss", load), worse("cs_afct_s", load)) for load in LOADS}
    add("Fig. 5", "in-tunnel algorithms never worsen DS misses or CS AFCT by more than 3 % (paper: cut them by up to 8 % and 6 %)",
        "; ".join(f"{int(l * 100)} %: DS {d:.2f}x, CS {c:.2f}x" if d is not None and c is not None else f"{int(l * 100)} %: –" for l, (d, c) in by_load.items()),
        all(d is not None and c is not None and d <= 1.03 and c <= 1.03 for d, c in by_load.values()),
        "in-tunnel over FIFO tunnels (medians over seeds), Fig. 1's setup; no misses either way counts as 1.00x")
    star = {case: (ratio(runs, "cs_afct_s", {"study": "star", "case": case, "variant": "scc_fifo"}, {"study": "star", "case": case, "variant": "none"}),
                   ratio(runs, "ds_miss", {"study": "star", "case": case, "variant": "none"}, {"study": "star", "case": case, "variant": "scc_fifo"}))
            for case, _ in STAR_CASES}
    alone = star["CS"][0]
    add("Fig. 3", "testbed, CS alone at 400 Mbps: SCC leaves CS AFCT the same (within 10 %)", f"{median_range(alone, '.2f')}x",
        bool(alone) and abs(median(alone) - 1) <= 0.1, "16-host star, FIFO tunnels (the testbed has no in-tunnel algorithms)")
    add("Fig. 3", "testbed, CS+DS and CS+DS+LS: SCC's CS AFCT and DS misses against no SCC (paper: -17 % and 2x fewer; -53 % and 1x)",
        "; ".join(f"{case}: CS AFCT {median_range(c, '.2f')}x, DS misses {median_range(d, '.2f')}x fewer" for case, (c, d) in star.items() if case != "CS"),
        "reported", "loads ours: CS 400, DS 300, LS 200 Mbps (star.toml)")
    a, b = per_seed(runs, "miss_A", study="tenants", case="SCC"), per_seed(runs, "miss_B", study="tenants", case="SCC")
    add("Fig. 8b", f"two DS tenants needing 600 Mbps each on 1 Gbps, weighted {TENANT_WEIGHTS[0]}:{TENANT_WEIGHTS[1]}: A meets nearly all deadlines (<= 5 % missed), B misses more",
        f"A {median_range(a, '.1%')}, B {median_range(b, '.1%')} missed", bool(a) and bool(b) and median(a) <= 0.05 and median(b) > median(a))
    both = (per_seed(runs, "ds_miss", study="tenants", case="SCC"), per_seed(runs, "ds_miss", study="tenants", case="D2TCP"))
    add("Fig. 8b", "SCC meets more deadlines for both tenants combined", f"SCC {median_range(both[0], '.1%')}, D2TCP without SCC {median_range(both[1], '.1%')} missed",
        "reported", "the paper does not say against what; we compare with both tenants on D2TCP")
    w = per_seed(runs, "ratio", study="weights", case="2:1")
    u = per_seed(runs, "utilization", study="weights", case="2:1")
    add("section III-B", "two tunnels weighted 2:1 share a 1 Gbps bottleneck 2.0 +- 0.3 at >= 90 % utilization",
        f"{median_range(w, '.2f')}:1 at {median_range(u, '.0%')}", bool(w) and abs(median(w) - 2) <= 0.3 and median(u) >= 0.9,
        "weighted DCTCP underlay (README), DCTCP inside the tunnels")
    wl = per_seed(runs, "ratio", study="weights", case="2:1, L2DCT inside")
    ul = per_seed(runs, "utilization", study="weights", case="2:1, L2DCT inside")
    add("section III-B", "the same with L2DCT inside the tunnels", f"{median_range(wl, '.2f')}:1 at {median_range(ul, '.0%')}", "reported",
        "L2DCT grows a long flow's window by 0.125 packet per RTT: the window, not the tunnel, limits it")
    return out + scc_fabric.claims(runs)


def aggregate(measured: list[dict[str, Any]], seeds: list[int], quick: bool, overrides: tuple[str, ...]) -> Report:
    report = Report(pl.DataFrame(measured, infer_schema_length=None), seeds, quick, overrides)
    report.claims = claims(report)
    return report


def plan(seeds: int, quick: bool, overrides: tuple[str, ...]) -> tuple[list[Job], Callable[[list[Any]], Report]]:
    """The runs (one seed when quick) and how their measurements become the report."""
    seed_list = seed_range(seeds, quick)
    return jobs(seed_list, quick, overrides), lambda m: aggregate(m, seed_list, quick, overrides)


def write(report: Report, out: Path) -> None:
    from . import scc_figures as figures

    report.runs.write_csv(out / "runs.csv", float_precision=6)
    figures.fig1(report.runs, out / "fig1.png")
    figures.fabric(report.runs, out / "fabric.png")
    text = [
        *report_head("SCC reproduction (stacked congestion control: Figs. 1, 4, 5, 8b and weighted sharing on a dumbbell; Figs. 6, 8a-12 on a leaf-spine fabric)", report),
        "![Fig. 1 and 4](fig1.png)",
        "",
        "![Figs. 6, 8a-12 on the leaf-spine fabric](fabric.png)",
        "",
        "`runs.csv`: one row per run (case, load, seed) with every measured number.",
    ]
    (out / "report.md").write_text("\n".join(text) + "\n")
    summary_json.write_reproduction(out / "summary.json", "scc", "SCC: stacked congestion control for multi-tenant, multi-objective datacenters", report)


def rich_tables(report: Report) -> list[Table]:
    return [claims_table(rich_title("SCC", report), report.claims)]


reproduce = experiment(KIND, (SCENARIO_DIR,), plan, measure, write)
