"""SCC's large-scale figures (section VI, Figs. 6 and 8a-12) on the leaf-spine fabric of
`fabric.toml`: part of `corral reproduce scc`.

Each case keeps some of the fabric's three class blocks (LS, DS, CS) and runs them under one
variant:

- `none`: each class on its paper transport (DCTCP, D2TCP, L2DCT) sharing the ECN queues;
- `scc`: the same flows in SCC tunnels (equal division weights of 120, in-tunnel algorithms,
  the paper transports inside);
- `scc_fifo`: `scc` without in-tunnel algorithms (each flow an equal share of its tunnel);
- `scc_dctcp`: SCC with DCTCP inside every tunnel (Fig. 11b);
- `pfabric`: pFabric hosts and switch queues, buffers of 2 BDP (75 KB), DS before CS (Fig. 8a);
- `priority`: `none` with two strict-priority ECN queues per port, LS in the high one
  (Fig. 12).

Metrics, from the result tables: LS latency is the mean FCT of LS flows of at most 10 KB (one
to seven packets; an FCT includes any wait in SCC's shim), DS misses count unfinished DS
flows as missed, CS AFCT counts an unfinished flow at its age at the end of the run (a lower
bound; a mean over finished flows alone favours the run that leaves its longest flows
unfinished), the unfinished ones are counted beside it,
and the realized load is the delivered bytes over the host links' capacity and the run's
time. Data-mining carries most of its bytes in flows of 100 MB-1 GB (2 % of flows): a 3 s run
realizes far less than its nominal load, so each row reports the load it realized.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from ..results import Results
from .claims import claim, median, median_range, per_seed, ratio
from .runner import Job

CLASSES = ("LS", "DS", "CS")  # the order of fabric.toml's [[traffic]] blocks
PAPER_TRANSPORT = {"LS": "dctcp", "DS": "d2tcp", "CS": "l2dct"}
SMALL_LS = 10_000  # LS latency: flows of at most this many bytes
# Per workload: (duration, when arrivals stop), full and quick. Web-search and MapReduce reach
# their nominal load in a few hundred ms; data-mining needs seconds (module doc).
TIMES = {"datamining": (("3s", "2.5s"), ("1s", "0.8s")), "websearch": (("300ms", "250ms"), ("150ms", "120ms")),
         "fb_hadoop": (("300ms", "250ms"), ("150ms", "120ms"))}
QUICK_HOSTS_PER_LEAF = 8  # --quick: 4 ToRs x 8 hosts
# Each division's W_d. A division's tunnels share W_d MSS per RTT of additive increase (the
# tracker scales their weights to sum to W_d), so W_d = 1 would leave each of a division's
# ~120 tunnels (one per host) 1/120 MSS per RTT: a tunnel cut by marks would take seconds to
# grow back. 120 gives about one MSS per RTT per tunnel; equal weights keep the shares equal.
DIVISION_WEIGHT = 120.0
# (case, workload, classes, variant, per-class load, extra overrides)
CASES: tuple[tuple[str, str, tuple[str, ...], str, float, tuple[str, ...]], ...] = (
    *((f"coexist {w}", w, CLASSES, v, 0.3, ()) for w in ("datamining", "websearch", "fb_hadoop") for v in ("none", "scc")),
    ("coexist datamining", "datamining", CLASSES, "scc_fifo", 0.3, ()),
    ("vs pFabric", "datamining", ("DS", "CS"), "pfabric", 0.4, ()),
    ("vs pFabric", "datamining", ("DS", "CS"), "scc", 0.4, ()),
    *((f"isolation {c}", "datamining", (c,), v, load, ()) for c in ("DS", "CS") for v in ("none", "scc") for load in (0.3, 0.6, 0.9)),
    *(("oversubscribed", "websearch", CLASSES, v, 0.3, ("topology.spines=1",)) for v in ("none", "scc")),
    ("coexist datamining", "datamining", CLASSES, "scc_dctcp", 0.3, ()),
    ("coexist datamining", "datamining", CLASSES, "priority", 0.3, ()),
)


def case_text(fabric: str, classes: tuple[str, ...], variant: str, weight: float | None = DIVISION_WEIGHT) -> str:
    """A scenario with one [[traffic]] block per class (LS, DS, CS, in that order, as
    fabric.toml, star.toml and fig1.toml) keeping only `classes`' blocks, under `variant`
    (module doc), SCC's divisions weighted `weight` each (None: SCC's default weights)."""
    head, *blocks = fabric.split("\n[[traffic]]\n")
    kept = {c: b for c, b in zip(CLASSES, blocks) if c in classes}
    switch = 'queue = "ecn"\necn_threshold = "20pkt"\n'
    assert switch in head, "fabric.toml's [switch] changed"
    for c, b in kept.items():
        transport = f'transport = "{PAPER_TRANSPORT[c]}"'
        if variant.startswith("scc"):
            b = b.replace(transport, 'transport = "scheme"')
        elif variant == "pfabric":
            b = b.replace(transport, 'transport = "pfabric"')
        elif variant == "priority":
            b += f"priority = {0 if c == 'LS' else 1}\n"
        kept[c] = b
    if variant == "pfabric":
        head = head.replace('buffer = "250KB"\n' + switch, 'buffer = "75KB"\nqueue = "pfabric"\n')
    elif variant == "priority":
        head = head.replace(switch, switch.replace('"ecn"', '"priority"') + '\n[switch.priority]\nclasses = 2\nclass = "ecn"\n')
    if variant.startswith("scc"):
        head += '\n[scheme]\nkind = "scc"\n'
        if weight is not None:
            head += "weights = { " + ", ".join(f'"{c.lower()}/{c}" = {weight}' for c in CLASSES) + " }\n"
    if variant == "scc_fifo":
        head += "in_tunnel = false\n"
    elif variant == "scc_dctcp":
        head += 'cc = { LS = "dctcp", DS = "dctcp", CS = "dctcp" }\n'
    return head + "".join("\n[[traffic]]\n" + b for b in kept.values())


def jobs(fabric: str, seeds: list[int], quick: bool, overrides: tuple[str, ...]) -> list[Job]:
    out = []
    for seed in seeds:
        for case, workload, classes, variant, load, extra in CASES:
            duration, stop = TIMES[workload][quick]
            ov = [f"seed={seed}", f"duration={duration}", *extra]
            if quick:
                ov.append(f"topology.hosts_per_leaf={QUICK_HOSTS_PER_LEAF}")
            for i, _ in enumerate(classes):
                ov += [f"traffic.{i}.size.cdf={workload}", f"traffic.{i}.load={load}", f"traffic.{i}.stop={stop}"]
                if case == "oversubscribed":  # all inter-rack, the load on the ToRs' uplinks (port 30+)
                    ov += [f"traffic.{i}.pattern=inter_rack", f'traffic.{i}.load_links=["leaf*:{QUICK_HOSTS_PER_LEAF if quick else 30}"]']
            labels = {"study": "fabric", "case": case, "variant": variant, "workload": workload, "load": load, "seed": seed}
            out.append(Job(case_text(fabric, classes, variant), (*ov, *overrides), labels))  # type: ignore[arg-type]
    return out


def censored_fct(flows: pl.DataFrame, end_s: float) -> pl.Series:
    """Each flow's FCT, an unfinished flow's age at the end of the run in its place (a lower
    bound): a mean over finished flows alone would favour the run that left its longest
    flows unfinished."""
    return flows["fct_s"].fill_null(pl.lit(end_s) - flows["start_s"])


def deadline_miss(flows: pl.DataFrame) -> float:
    """The fraction of flows that missed their deadline, unfinished ones included."""
    return 1.0 - flows["deadline_met"].fill_null(False).cast(pl.Float64).mean()


def cs_metrics(flows: pl.DataFrame, end_s: float) -> dict[str, Any]:
    """CS: the average FCT (censored) and the count of unfinished flows."""
    return {"cs_afct_s": censored_fct(flows, end_s).mean(), "cs_unfinished": flows["fct_s"].null_count()}


def measure(labels: dict[str, Any], res: Results) -> dict[str, Any]:
    row: dict[str, Any] = dict(labels)
    flows = res.tables()["flows"]
    ports = res.tables()["ports"]
    host_bps = ports.filter(pl.col("node").str.starts_with("h"))["rate_bps"].sum()
    row["realized_load"] = res.summary["bytes_delivered"] * 8 / host_bps / res.summary["sim_time_s"]
    for cls in CLASSES:
        f = flows.filter(pl.col("class") == cls)
        if not f.height:
            continue
        end_s = res.summary["sim_time_s"]
        if cls == "LS":
            row["ls_small_fct_s"] = censored_fct(f.filter(pl.col("size_bytes") <= SMALL_LS), end_s).mean()
        elif cls == "DS":
            row["ds_miss"] = deadline_miss(f)
        else:
            row.update(cs_metrics(f, end_s))
    return row


def claims(runs: pl.DataFrame) -> list[dict[str, Any]]:
    fab = runs.filter(pl.col("study") == "fabric")
    out: list[dict[str, Any]] = []

    def add(fig: str, text: str, measured: str, ok: bool | str | None, note: str = "") -> None:
        out.append(claim(fig, text, measured, ok, note))

    def r(col: str, case: str, a: str, b: str, load: float = 0.3) -> list[float]:
        return ratio(fab, col, {"case": case, "variant": a, "load": load}, {"case": case, "variant": b, "load": load})

    def rl(case: str, variant: str = "none", load: float = 0.3) -> str:
        return median_range(per_seed(fab, "realized_load", case=case, variant=variant, load=load), ".0%")

    def lt(xs: list[float], bound: float) -> bool:
        return bool(xs) and median(xs) <= bound

    dm = "coexist datamining"
    cs, ds, ls = r("cs_afct_s", dm, "scc", "none"), r("ds_miss", dm, "none", "scc"), r("ls_small_fct_s", dm, "scc", "none")
    add("Figs. 6/10", "data-mining, LS+DS+CS at 90 %: SCC cuts CS AFCT >= 20 %, DS misses >= 1.5x, and LS latency (paper: -40 %, 3.2x, -40 %)",
        f"CS AFCT {median_range(cs, '.2f')}x, DS misses {median_range(ds, '.2f')}x fewer, LS latency {median_range(ls, '.2f')}x (realized load {rl(dm)})",
        lt(cs, 0.8) and bool(ds) and median(ds) >= 1.5 and lt(ls, 1.0 - 1e-9))
    for w, paper in (("websearch", "-24 %, 1.8x"), ("fb_hadoop", "-32 %, 0.8x")):
        c, d = r("cs_afct_s", f"coexist {w}", "scc", "none"), r("ds_miss", f"coexist {w}", "none", "scc")
        add("Fig. 10", f"{w}: SCC's CS AFCT and DS misses against no SCC (paper: {paper})",
            f"CS AFCT {median_range(c, '.2f')}x, DS misses {median_range(d, '.2f')}x fewer (realized load {rl(f'coexist {w}')})", "reported")
    pc = ratio(fab, "cs_afct_s", {"case": "vs pFabric", "variant": "scc"}, {"case": "vs pFabric", "variant": "pfabric"})
    pd = [a - b for a, b in zip(per_seed(fab, "ds_miss", case="vs pFabric", variant="scc"), per_seed(fab, "ds_miss", case="vs pFabric", variant="pfabric"))]
    add("Fig. 8a", "DS+CS at 40 % each: SCC's CS AFCT <= 0.85x pFabric's, DS misses <= pFabric's + 5 points (paper: -30 %, +2 points)",
        f"CS AFCT {median_range(pc, '.2f')}x, DS misses {median_range(pd, '+.1%')} (realized load {rl('vs pFabric', 'scc', 0.4)})",
        lt(pc, 0.85) and lt(pd, 0.05))
    loads = (0.3, 0.6, 0.9)
    dsi = {load: (per_seed(fab, "ds_miss", case="isolation DS", variant="scc", load=load), per_seed(fab, "ds_miss", case="isolation DS", variant="none", load=load)) for load in loads}
    add("Fig. 9a", "DS alone: SCC misses no more deadlines than D2TCP at every load (paper: up to 2.5x fewer)",
        "; ".join(f"{int(l * 100)} %: SCC {median_range(a, '.1%')}, D2TCP {median_range(b, '.1%')}" for l, (a, b) in dsi.items()),
        all(a and b and median(a) <= median(b) for a, b in dsi.values()))
    csi = {load: r("cs_afct_s", "isolation CS", "scc", "none", load) for load in loads}
    add("Fig. 9b", "CS alone: SCC's AFCT within +-15 % of L2DCT's at 30 % load (paper: similar at low load, better at high)",
        "; ".join(f"{int(l * 100)} %: {median_range(x, '.2f')}x" for l, x in csi.items()),
        bool(csi[0.3]) and abs(median(csi[0.3]) - 1) <= 0.15)
    oc, od = r("cs_afct_s", "oversubscribed", "scc", "none"), r("ds_miss", "oversubscribed", "none", "scc")
    add("Fig. 11a", "3:1 oversubscribed, web-search inter-rack: SCC cuts CS AFCT by 20 % (DS misses only marginally fewer)",
        f"CS AFCT {median_range(oc, '.2f')}x, DS misses {median_range(od, '.2f')}x fewer", lt(oc, 0.8),
        "loads of 30 % per class on the ToR uplinks")
    dc = r("cs_afct_s", dm, "scc_dctcp", "none")
    dd = r("ds_miss", dm, "scc_dctcp", "scc")
    add("Fig. 11b", "SCC over DCTCP: CS AFCT 3x better than the original protocols without SCC; DS worse than SCC over D2TCP",
        f"CS AFCT {median_range(dc, '.2f')}x; DS misses {median_range(dd, '.2f')}x SCC over D2TCP's", bool(dc) and median(dc) <= 1 / 3 and bool(dd) and median(dd) > 1)
    fifo = {col: r(col, dm, "scc", "scc_fifo") for col in ("ls_small_fct_s", "ds_miss", "cs_afct_s")}
    add("Fig. 5 (fabric)", "data-mining at 90 %: in-tunnel algorithms worsen no metric by more than 3 % against FIFO tunnels",
        ", ".join(f"{name} {median_range(fifo[col], '.2f')}x" for name, col in (("LS latency", "ls_small_fct_s"), ("DS misses", "ds_miss"), ("CS AFCT", "cs_afct_s"))),
        all(lt(x, 1.03) for x in fifo.values()), "in-tunnel over FIFO")
    pl_ls, pl_cs, pl_ds = r("ls_small_fct_s", dm, "priority", "none"), r("cs_afct_s", dm, "priority", "none"), r("ds_miss", dm, "priority", "none")
    add("Fig. 12", "strict priority, LS high: LS latency lower, DS and CS hurt a little",
        f"LS latency {median_range(pl_ls, '.2f')}x, CS AFCT {median_range(pl_cs, '.2f')}x, DS misses {median_range(pl_ds, '.2f')}x of no priority",
        lt(pl_ls, 1.0 - 1e-9) and lt(pl_cs, 1.1) and lt(pl_ds, 1.1), "'a little': at most 10 % worse (our reading)")
    return out
