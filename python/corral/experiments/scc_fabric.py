"""SCC's large-scale figures (section VI, Figs. 6-12) on the leaf-spine fabric of
`fabric.toml`: part of `corral reproduce scc`.

Each case keeps some of the fabric's three class blocks (LS, DS, CS) and runs them under one
variant:

- `none`: each class on its paper transport (DCTCP, D2TCP, L2DCT) sharing the ECN queues;
- `scc`: the same flows in SCC tunnels (equal division weights of 120, in-tunnel algorithms,
  the paper transports inside);
- `scc_fifo`: `scc` without in-tunnel algorithms: FIFO tunnels, each one packet queue at its
  source host released at the tunnel's rate;
- `scc_dctcp`: SCC with DCTCP inside every tunnel (Fig. 11b);
- `scc_least`: `scc` with every tunnel's window growing at least one segment per RTT
  (`scheme.min_increase = 1`, our option): as written (eqs. 1, 3-4) a tunnel of large CS
  flows or late DS flows gets a weight near 0 and, once cut, does not grow back onto an idle
  link. A sensitivity run of the web-search and MapReduce coexistence cases, whose rows are
  acceptance rows beside the paper's;
- `pfabric`: pFabric hosts and switch queues as its paper runs them (`pfabric_settings`: an
  initial window of one BDP, a minimum RTO of 3 RTTs, buffers of 2 BDPs), DS before CS
  (Fig. 8a);
- `priority`: `none` with two strict-priority ECN queues per port, LS in the high one
  (Fig. 12).

Routing: the paper assumes Presto-like load balancing in its Clos fabric (section III,
"Network Mode"), so `fabric.toml` routes by 64 KiB flowcells (`routing.kind = "flowcell"`,
Presto's size; the SCC paper gives none). The data-mining coexistence pair (`none`, `scc`)
runs again under per-flow ECMP (`ECMP_CASE`) as a sensitivity run: its rows are acceptance
rows beside the paper's, not counted.

Fig. 7 (DS and CS coexisting with the other classes) takes each two-class set of data-mining
at 30 % per class (`FIG7_SETS`); its three-class set is the coexistence case and each class
alone the isolation cases at 30 %, shared with Figs. 6, 9 and 10.

Metrics, from the result tables: LS latency is the mean FCT of LS flows of at most 10 KB (one
to seven packets; an FCT includes any wait in SCC's shim), DS misses count unfinished DS
flows as missed, CS AFCT counts an unfinished flow at its age at the end of the run (a lower
bound; a mean over finished flows alone favours the run that leaves its longest flows
unfinished), the unfinished ones are counted beside it,
`realized_load` is the delivered bytes over the host links' capacity and the run's time, and
each run's offered load (`conditions`: what its flows could send within the run) is what its
rows are judged at. Data-mining carries most of its bytes in flows of 100 MB-1 GB (2 % of
flows, 8 s each at 1 Gbps): at the nominal arrival rate (load x capacity / mean size) a 3 s
run offered 35 % of its 90 % (median of 5 seeds) and a run that offers 90 % within +-10 %
would last some 30 s. The data-mining blocks therefore count a flow's load by what it can
send before the run ends (`load_basis = "run"`, `DATAMINING_LOAD_BASIS`): the arrival rate
is the load over E[min(size, line rate x time left)], so the run is offered the paper's load
with the paper's size distribution (more arrivals: about 3.4x the nominal rate in a 1.5 s
run). TIMES gives the run lengths.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from ..results import Results
from ..scenario import Scenario
from . import claims as cl
from . import conditions as cond
from .claims import median_range, per_seed, ratio
from .runner import Job

CLASSES = ("LS", "DS", "CS")  # the order of fabric.toml's [[traffic]] blocks
PAPER_TRANSPORT = {"LS": "dctcp", "DS": "d2tcp", "CS": "l2dct"}
SMALL_LS = 10_000  # LS latency: flows of at most this many bytes
# Per workload: (duration, when arrivals stop), full and quick. Web-search and MapReduce offer
# their nominal load within 1 s (their largest flows, 30 MB, take 0.24 s at 1 Gbps: in a 1 s
# run all but the last few fit). Data-mining's 1 GB flows take 8 s each: a run offering 90 %
# of the nominal rate's bytes within +-10 % would need arrivals over some 30 s (about 9
# minutes per run here, 14 hours for its 95 runs). Its runs count load within the run
# instead (module doc) and last 1.5 s: at that length a run costs what the former 3 s runs
# at the nominal rate did (the arrivals it adds are mostly small flows, the elephants are
# cut by the run's end either way), which keeps the full reproduction near 22 minutes.
TIMES = {
    "datamining": (("1.5s", "1.25s"), ("1s", "0.8s")),
    "websearch": (("1s", "950ms"), ("150ms", "120ms")),
    "fb_hadoop": (("1s", "950ms"), ("150ms", "120ms")),
}
# How the data-mining blocks count load: what a flow can send before the run ends.
DATAMINING_LOAD_BASIS = "run"
QUICK_HOSTS_PER_LEAF = 8  # --quick: 4 ToRs x 8 hosts
# Each division's W_d. A division's tunnels share W_d MSS per RTT of additive increase (the
# tracker scales their weights to sum to W_d), so W_d = 1 would leave each of a division's
# ~120 tunnels (one per host) 1/120 MSS per RTT: a tunnel cut by marks would take seconds to
# grow back. 120 gives about one MSS per RTT per tunnel; equal weights keep the shares equal.
DIVISION_WEIGHT = 120.0
# The sensitivity variant `scc_least`: every tunnel grows at least this many segments per RTT.
LEAST_INCREASE = 1.0
# Fig. 7's two-class sets (data-mining, 30 % per class), in fabric.toml's block order.
FIG7_SETS = (("LS", "DS"), ("DS", "CS"), ("LS", "CS"))
# The sensitivity run: the data-mining coexistence pair under per-flow ECMP.
ECMP_CASE = "coexist datamining, ECMP"


def fig7_case(classes: tuple[str, ...]) -> str:
    """The case name of a Fig. 7 set (the three-class set is the coexistence case)."""
    return "coexist datamining" if len(classes) == 3 else "coexist datamining " + "+".join(classes)


# (case, workload, classes, variant, per-class load, extra overrides)
CASES: tuple[tuple[str, str, tuple[str, ...], str, float, tuple[str, ...]], ...] = (
    *((f"coexist {w}", w, CLASSES, v, 0.3, ()) for w in ("datamining", "websearch", "fb_hadoop") for v in ("none", "scc")),
    ("coexist datamining", "datamining", CLASSES, "scc_fifo", 0.3, ()),
    ("vs pFabric", "datamining", ("DS", "CS"), "pfabric", 0.4, ()),
    ("vs pFabric", "datamining", ("DS", "CS"), "scc", 0.4, ()),
    *(
        (f"isolation {c}", "datamining", (c,), v, load, ())
        for c in ("DS", "CS")
        for v in ("none", "scc")
        for load in (0.3, 0.6, 0.9)
    ),
    *(("oversubscribed", "websearch", CLASSES, v, 0.3, ("topology.spines=1",)) for v in ("none", "scc")),
    ("coexist datamining", "datamining", CLASSES, "scc_dctcp", 0.3, ()),
    ("coexist datamining", "datamining", CLASSES, "priority", 0.3, ()),
    *((fig7_case(s), "datamining", s, v, 0.3, ()) for s in FIG7_SETS for v in ("none", "scc")),
    *((ECMP_CASE, "datamining", CLASSES, v, 0.3, ('routing.kind="ecmp"',)) for v in ("none", "scc")),
    *((f"coexist {w}", w, CLASSES, "scc_least", 0.3, ()) for w in ("websearch", "fb_hadoop")),
)


def _time_s(text: str) -> float:
    """ "40us", "10ms" or "2s" in seconds."""
    for suffix, scale in (("us", 1e-6), ("ms", 1e-3), ("ns", 1e-9), ("s", 1.0)):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * scale
    raise ValueError(f"not a duration: {text!r}")


def _rate_bps(text: str) -> float:
    for suffix, scale in (("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3), ("bps", 1.0)):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * scale
    raise ValueError(f"not a rate: {text!r}")


def pfabric_settings(fabric: str) -> dict[str, Any]:
    """pFabric as its paper runs it (Alizadeh et al., SIGCOMM 2013, sections 4-5), on this
    fabric: an initial window of one bandwidth-delay product (its flows start at line rate),
    a minimum RTO of about 3 RTTs, and switch buffers of about 2 BDPs. The RTT is the
    fabric's largest unloaded one (between racks: four host and four core link delays), the
    bandwidth the host link's."""
    from .claims import scenario_value

    rtt = 4 * _time_s(scenario_value(fabric, "topology.host_delay")) + 4 * _time_s(
        scenario_value(fabric, "topology.fabric_delay")
    )
    bdp = _rate_bps(scenario_value(fabric, "topology.host_rate")) * rtt / 8
    window = round(bdp / 1500)  # packets of 1500 B on the wire
    rto_us = round(3 * rtt * 1e6)
    return {
        "rtt_s": rtt,
        "bdp_bytes": bdp,
        "initial_window": window,
        "min_rto": f"{rto_us}us",
        "buffer": f"{round(2 * bdp / 1000)}KB",
        "initial_window_text": f"{window} segments (one BDP: {bdp / 1e3:.1f} KB at {rtt * 1e6:.0f} us)",
        "min_rto_text": f"{rto_us} us (3 RTTs)",
        "buffer_text": f"{round(2 * bdp / 1000)} KB (2 BDPs)",
    }


def case_text(fabric: str, classes: tuple[str, ...], variant: str, weight: float | None = DIVISION_WEIGHT) -> str:
    """A scenario with one [[traffic]] block per class (LS, DS, CS, in that order, as
    fabric.toml, star.toml and fig1.toml) keeping only `classes`' blocks, under `variant`
    (module doc), SCC's divisions weighted `weight` each (None: SCC's default weights).
    Edited as a `corral.Scenario`, so a change to the scenario files fails here by name."""
    scenario = Scenario.from_toml(fabric)
    blocks = scenario.get("traffic")
    assert len(blocks) == len(CLASSES), "one [[traffic]] block per class, in the order LS, DS, CS"
    kept = []
    for c, block in zip(CLASSES, blocks):
        if c not in classes:
            continue
        assert block.get("transport") == PAPER_TRANSPORT[c], f"the {c} block's transport changed"
        if variant.startswith("scc"):
            block["transport"] = "scheme"
        elif variant == "pfabric":
            block["transport"] = "pfabric"
        elif variant == "priority":
            block["priority"] = 0 if c == "LS" else 1
        kept.append(block)
    scenario.set("traffic", kept)
    assert (scenario.get("switch.queue"), scenario.get("switch.ecn_threshold")) == ("ecn", "20pkt"), "the [switch] changed"
    if variant == "pfabric":
        pf = pfabric_settings(fabric)
        assert scenario.get("switch.buffer") == "250KB" and "initial_window" not in scenario.get("transport", {})
        scenario.remove("switch.ecn_threshold").set("switch.buffer", pf["buffer"]).set("switch.queue", "pfabric")
        scenario.set("transport.initial_window", pf["initial_window"]).set("transport.min_rto", pf["min_rto"])
    elif variant == "priority":
        scenario.set("switch.queue", "priority").set("switch.priority", {"classes": 2, "class": "ecn"})
    if variant.startswith("scc"):
        scenario.set("scheme", {"kind": "scc"})
        if weight is not None:  # the kept divisions only: a weight for a tenant no flow has is an error
            scenario.set("scheme.weights", {f"{c.lower()}/{c}": weight for c in classes})
    if variant == "scc_fifo":
        scenario.set("scheme.in_tunnel", False)
    elif variant == "scc_dctcp":
        scenario.set("scheme.cc", {c: "dctcp" for c in CLASSES})
    elif variant == "scc_least":
        scenario.set("scheme.min_increase", LEAST_INCREASE)
    return scenario.to_toml()


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
                if workload == "datamining":
                    ov.append(f'traffic.{i}.load_basis="{DATAMINING_LOAD_BASIS}"')
                if case == "oversubscribed":  # all inter-rack, the load on the ToRs' uplinks (port 30+)
                    ov += [
                        f"traffic.{i}.pattern=inter_rack",
                        f'traffic.{i}.load_links=["leaf*:{QUICK_HOSTS_PER_LEAF if quick else 30}"]',
                    ]
            labels = {
                "study": "fabric",
                "case": case,
                "variant": variant,
                "workload": workload,
                "load": load,
                "seed": seed,
                "window_s": _seconds(stop),
                "total_load": round(load * len(classes), 9),
                "uplinks": case == "oversubscribed",
            }
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


def _seconds(text: str) -> float:
    """ "250ms" or "2.5s" in seconds."""
    return float(text[:-2]) / 1e3 if text.endswith("ms") else float(text[:-1])


def measure(labels: dict[str, Any], res: Results) -> dict[str, Any]:
    row: dict[str, Any] = dict(labels)
    flows = res.tables()["flows"]
    ports = res.tables()["ports"]
    end = res.summary["sim_time_s"]
    host_bps = ports.filter(pl.col("node").str.starts_with("h"))["rate_bps"].sum()
    row["realized_load"] = res.summary["bytes_delivered"] * 8 / host_bps / end
    if labels["study"] == "fabric":
        # The offered load against the capacity the classes' loads are fractions of: the
        # host links, or the ToRs' uplinks for the oversubscribed case (module doc).
        uplinks = ports.filter(pl.col("node").str.starts_with("leaf") & pl.col("peer").str.starts_with("spine"))["rate_bps"].sum()
        row.update(
            **cond.realized(
                flows, ports, end, capacity_bps=float(uplinks if labels["uplinks"] else host_bps), window_s=labels["window_s"]
            )
        )
    else:
        row.update(**cond.realized(flows, ports, end))
        for cls in CLASSES:
            sub = flows.filter(pl.col("class") == cls)
            if sub.height:
                row[f"offered_{cls}_bps"] = cond.offered_bps(sub, ports, end, labels["window_s"])
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


def claims(runs: pl.DataFrame, c: cl.Claims) -> None:
    """The fabric's rows (Figs. 6, 8a, 9-12) into `c`."""
    fab = runs.filter(pl.col("study") == "fabric")
    paper = c.paper

    def r(col: str, case: str, a: str, b: str, load: float = 0.3) -> list[float]:
        return ratio(fab, col, {"case": case, "variant": a, "load": load}, {"case": case, "variant": b, "load": load})

    def lower(col: str, case: str, a: str, b: str, load: float = 0.3) -> list[float]:
        """Per seed: how much lower `a`'s value is than `b`'s, in %."""
        return [100 * (1 - x) for x in r(col, case, a, b, load)]

    def at(case: str, *variants: str, load: float = 0.3) -> dict[str, Any]:
        """Conditions: the offered load of the case's runs against the paper's total."""
        sub = fab.filter((pl.col("case") == case) & pl.col("variant").is_in(list(variants)) & (pl.col("load") == load))
        return cond.of_runs(sub, load=float(sub["total_load"][0]) if sub.height else None)

    dm = "coexist datamining"
    ecmp_note = (
        "sensitivity (not counted): per-flow ECMP instead of the paper's Presto-like 64 KiB flowcells; "
        "the same band as the paper row"
    )
    for case, kind, extra in ((dm, "paper", ""), (ECMP_CASE, "acceptance", "under ECMP: ")):
        c.add(
            "Figs. 6b, 10a",
            f"{extra}data-mining, LS+DS+CS at 90 %: SCC's CS AFCT below no SCC's by",
            lower("cs_afct_s", case, "scc", "none"),
            paper.around(40.0),
            kind=kind,
            paper_value=40.0,
            null=0.0,
            conditions=at(case, "none", "scc"),
            unit="%",
            fmt=".0f",
            note=ecmp_note if extra else "",
        )
        c.add(
            "Fig. 10b",
            f"{extra}data-mining: DS misses without SCC over with",
            r("ds_miss", case, "none", "scc"),
            paper.around(3.2),
            kind=kind,
            paper_value=3.2,
            null=1.0,
            conditions=at(case, "none", "scc"),
            note=ecmp_note if extra else "",
        )
        c.add(
            "Fig. 6",
            f"{extra}data-mining: SCC's LS latency below no SCC's by ('up to 40 %')",
            lower("ls_small_fct_s", case, "scc", "none"),
            paper.around(40.0),
            kind=kind,
            paper_value=40.0,
            null=0.0,
            conditions=at(case, "none", "scc"),
            unit="%",
            fmt=".0f",
            note=ecmp_note if extra else "LS latency: mean FCT of LS flows of at most 10 KB",
        )
    _fig7(fab, c)
    least = "every tunnel grows at least one segment per RTT (scheme.min_increase = 1, our option)"
    least_note = f"sensitivity (not counted): {least}; the same band as the paper row"
    for w, name, afct, miss in (("websearch", "web-search", 24.0, 1.8), ("fb_hadoop", "MapReduce", 32.0, 0.8)):
        case = f"coexist {w}"
        for variant, kind, extra in (("scc", "paper", ""), ("scc_least", "acceptance", "with a least increase: ")):
            note = least_note if extra else ""
            c.add(
                "Fig. 10a",
                f"{extra}{name}, LS+DS+CS at 90 %: SCC's CS AFCT below no SCC's by",
                lower("cs_afct_s", case, variant, "none"),
                paper.around(afct),
                kind=kind,
                paper_value=afct,
                null=0.0,
                conditions=at(case, "none", variant),
                unit="%",
                fmt=".0f",
                note=note,
            )
            c.add(
                "Fig. 10b",
                f"{extra}{name}: DS misses without SCC over with",
                r("ds_miss", case, "none", variant),
                paper.around(miss),
                kind=kind,
                paper_value=miss,
                null=1.0 if miss > 1 else None,
                conditions=at(case, "none", variant),
                note=note,
            )
        for variant, extra in (("scc", ""), ("scc_least", ", with a least increase")):
            _work_conserving(
                c,
                f"{name}, LS+DS+CS at 90 %{extra}",
                r("realized_load", case, variant, "none"),
                at(case, "none", variant),
                f"; sensitivity (not counted): {least}" if extra else "",
            )
    _work_conserving(c, "data-mining, LS+DS+CS at 90 %", r("realized_load", dm, "scc", "none"), at(dm, "none", "scc"))
    for cls in ("DS", "CS"):
        case = f"isolation {cls}"
        _work_conserving(
            c,
            f"data-mining, {cls} alone at 90 %",
            r("realized_load", case, "scc", "none", 0.9),
            at(case, "none", "scc", load=0.9),
        )
    pf = "vs pFabric"
    c.add(
        "Fig. 8a",
        "DS+CS at 40 % each: SCC's CS AFCT below pFabric's by",
        lower("cs_afct_s", pf, "scc", "pfabric", 0.4),
        paper.around(30.0),
        paper_value=30.0,
        null=0.0,
        conditions=at(pf, "scc", "pfabric", load=0.4),
        unit="%",
        fmt=".0f",
    )
    pd = [
        100 * (a - b)
        for a, b in zip(per_seed(fab, "ds_miss", case=pf, variant="scc"), per_seed(fab, "ds_miss", case=pf, variant="pfabric"))
    ]
    c.add(
        "Fig. 8a",
        "the same: SCC's DS misses above pFabric's by",
        pd,
        (0.0, 4.0),
        paper_value=2.0,
        conditions=at(pf, "scc", "pfabric", load=0.4),
        unit="points",
        fmt="+.1f",
        note="band 0-4 points, wider than +-25 % of 2: a difference of two small miss rates",
    )
    loads = (0.3, 0.6, 0.9)
    ds_by_load = {load: r("ds_miss", "isolation DS", "none", "scc", load) for load in loads}
    ds_runs = fab.filter(pl.col("case") == "isolation DS")
    # Over loads 30-90 %: each run's offered load against its own target.
    iso = cond.of_runs(ds_runs, load_of_target=cond.check((ds_runs["load_offered"] / ds_runs["total_load"]).to_list(), 1.0))
    best = [max(xs) for xs in zip(*ds_by_load.values())]
    worst = [min(xs) for xs in zip(*ds_by_load.values())]
    c.add(
        "Fig. 9a",
        "DS alone: D2TCP's misses over SCC's, the largest over loads 30-90 % ('up to 2.5x')",
        best,
        paper.around(2.5),
        paper_value=2.5,
        null=1.0,
        conditions=iso,
        detail="; ".join(f"{int(l * 100)} %: {median_range(x, '.2f')}x" for l, x in ds_by_load.items()),
    )
    c.add(
        "Fig. 9a",
        "DS alone: SCC meets more deadlines at every load: D2TCP over SCC, the smallest over loads",
        worst,
        paper.above(1.0),
        null=1.0,
        conditions=iso,
    )
    for load, text, band, pv in (
        (0.3, "similar at low load", paper.around(1.0), 1.0),
        (0.9, "better at high load", paper.below(1.0), None),
    ):
        sub = fab.filter((pl.col("case") == "isolation CS") & (pl.col("load") == load))
        c.add(
            "Fig. 9b",
            f"CS alone at {int(load * 100)} %: SCC's AFCT over L2DCT's ({text})",
            r("cs_afct_s", "isolation CS", "scc", "none", load),
            band,
            paper_value=pv,
            null=1.0,
            conditions=cond.of_runs(sub, load=load),
        )
    over = "oversubscribed"
    c.add(
        "Fig. 11a",
        "3:1 oversubscribed, web-search inter-rack: SCC's CS AFCT below no SCC's by",
        lower("cs_afct_s", over, "scc", "none"),
        paper.around(20.0),
        paper_value=20.0,
        null=0.0,
        conditions=at(over, "none", "scc"),
        unit="%",
        fmt=".0f",
        note="loads of 30 % per class on the ToR uplinks",
    )
    c.add(
        "Fig. 11a",
        "the same: DS misses without SCC over with ('only marginally')",
        r("ds_miss", over, "none", "scc"),
        None,
        conditions=at(over, "none", "scc"),
    )
    c.add(
        "Fig. 11b",
        "SCC over DCTCP: CS AFCT without SCC (the paper's transports) over with",
        r("cs_afct_s", dm, "none", "scc_dctcp"),
        paper.around(3.0),
        paper_value=3.0,
        null=1.0,
        conditions=at(dm, "none", "scc_dctcp"),
    )
    c.add(
        "Fig. 11b",
        "SCC over DCTCP: DS misses below D2TCP's without SCC: without over with",
        r("ds_miss", dm, "none", "scc_dctcp"),
        paper.above(1.0),
        null=1.0,
        conditions=at(dm, "none", "scc_dctcp"),
    )
    c.add(
        "Fig. 11b",
        "SCC over DCTCP: DS misses above SCC over D2TCP's",
        r("ds_miss", dm, "scc_dctcp", "scc"),
        paper.above(1.0),
        null=1.0,
        conditions=at(dm, "scc", "scc_dctcp"),
    )
    pcond = at(dm, "none", "priority")
    c.add(
        "Fig. 12",
        "strict priority, LS high: LS latency with over without",
        r("ls_small_fct_s", dm, "priority", "none"),
        paper.below(1.0),
        null=1.0,
        conditions=pcond,
    )
    for name, col in (("CS AFCT", "cs_afct_s"), ("DS misses", "ds_miss")):
        c.add(
            "Fig. 12",
            f"strict priority: {name} with over without ('hurt a little')",
            r(col, dm, "priority", "none"),
            (1.0, 1.0 + paper.tolerance),
            conditions=pcond,
            note="'hurt a little' read as worse by at most the paper's tolerance",
        )
    fifo = {col: r(col, dm, "scc", "scc_fifo") for col in ("ls_small_fct_s", "ds_miss", "cs_afct_s")}
    for name, col in (("LS latency", "ls_small_fct_s"), ("DS misses", "ds_miss"), ("CS AFCT", "cs_afct_s")):
        c.add(
            "Fig. 5 (fabric)",
            f"data-mining at 90 %: {name}, in-tunnel algorithms over FIFO tunnels",
            fifo[col],
            (None, 1.03),
            kind="acceptance",
            conditions=at(dm, "scc", "scc_fifo"),
            note="the paper: 'similar gains in other scenarios'; our check: in-tunnel worsens nothing by more than 3 %",
        )


def _work_conserving(c: cl.Claims, what: str, values: list[float], conditions: dict[str, Any], note: str = "") -> None:
    """Our check of the paper's "work-conserving design" (section III-B): SCC delivers at
    least 97 % of the bytes the same flows deliver without it."""
    c.add(
        "section III-B",
        f"{what}: bytes delivered under SCC over without ('work-conserving')",
        values,
        (0.97, None),
        kind="acceptance",
        conditions=conditions,
        note="our check of the paper's 'work-conserving design': SCC delivers at least 97 % of what the same flows "
        "deliver without it" + note,
    )


def _fig7(fab: pl.DataFrame, c: cl.Claims) -> None:
    """Fig. 7: data-mining at 30 % per class, DS and CS each coexisting with the other
    classes, with and without SCC, against the class alone (the isolation cases at 30 %)."""
    paper = c.paper
    ds_with = {"CS": fig7_case(("DS", "CS")), "LS": fig7_case(("LS", "DS")), "CS+LS": fig7_case(CLASSES)}
    cs_with = {"DS": fig7_case(("DS", "CS")), "DS+LS": fig7_case(CLASSES), "LS": fig7_case(("LS", "CS"))}
    ds_alone, cs_alone = "isolation DS", "isolation CS"

    def of(cases: list[str], variants: tuple[str, ...]) -> dict[str, Any]:
        """Conditions over runs of different totals: each run's offered load against its own."""
        runs = fab.filter(pl.col("case").is_in(cases) & pl.col("variant").is_in(list(variants)) & (pl.col("load") == 0.3))
        return cond.of_runs(
            runs, load_of_target=cond.check((runs["load_offered"] / runs["total_load"]).to_list() if runs.height else [], 1.0)
        )

    def value(col: str, case: str, variant: str) -> dict[int, float]:
        sub = fab.filter(
            (pl.col("case") == case) & (pl.col("variant") == variant) & (pl.col("load") == 0.3) & pl.col(col).is_not_null()
        )
        return dict(zip(sub["seed"].to_list(), sub[col].to_list())) if col in sub.columns else {}

    def per_set(
        f: Any, sets: dict[str, str], col: str, base: tuple[str, str] | None, variant: str = "none", base_variant: str = "none"
    ) -> dict[str, dict[int, float]]:
        """Per set, per seed: f(the set's value, the base's) (the base None: the set's own run under `base_variant`)."""
        out = {}
        for name, case in sets.items():
            a, b = value(col, case, variant), value(col, *(base or (case, base_variant)))
            out[name] = {s: f(a[s], b[s]) for s in a if s in b and f(a[s], b[s]) is not None}
        return out

    def over(per: dict[str, dict[int, float]], pick: Any) -> list[float]:
        """Per seed where every set has a value: `pick` (min or max) over the sets."""
        seeds = sorted(set.intersection(*(set(v) for v in per.values()))) if per else []
        return [pick(v[s] for v in per.values()) for s in seeds]

    def detail(per: dict[str, dict[int, float]], what: str, fmt: str, unit: str) -> str:
        return "; ".join(f"{what} {k}: {median_range([v[s] for s in sorted(v)], fmt)}{unit}" for k, v in per.items())

    def div(a: float, b: float) -> float | None:
        return a / b if b else None

    def points(a: float, b: float) -> float:
        return 100 * (a - b)

    hurt = per_set(points, ds_with, "ds_miss", (ds_alone, "none"))
    c.add(
        "Fig. 7a",
        "data-mining, no SCC: DS misses coexisting above DS alone, the smallest over CS / LS / CS+LS "
        "('DS flows miss lots of deadlines because of interference')",
        over(hurt, min),
        paper.above(0.0, "%"),
        null=0.0,
        conditions=of([*ds_with.values(), ds_alone], ("none",)),
        unit="points",
        fmt="+.1f",
        detail=detail(hurt, "with", "+.1f", " points"),
        note="DS alone: the isolation case at 30 %; the CS+LS set is Fig. 10b's run",
    )
    cut = per_set(div, ds_with, "ds_miss", None, base_variant="scc")
    c.add(
        "Fig. 7a",
        "data-mining: DS misses without SCC over with, the largest over CS / LS / CS+LS ('up to 3x')",
        over(cut, max),
        paper.around(3.0),
        paper_value=3.0,
        null=1.0,
        conditions=of(list(ds_with.values()), ("none", "scc")),
        detail=detail(cut, "with", ".2f", "x"),
    )
    slow = per_set(div, cs_with, "cs_afct_s", (cs_alone, "none"))
    more = {k: v for k, v in per_set(div, cs_with, "cs_afct_s", (cs_with["LS"], "none")).items() if k != "LS"}
    c.add(
        "Fig. 7b",
        "data-mining, no SCC: CS AFCT with DS over with LS only, the smallest over DS / DS+LS "
        "('CS performance affects more in the presence of DS flows')",
        over(more, min),
        paper.above(1.0),
        null=1.0,
        conditions=of(list(cs_with.values()), ("none",)),
        detail=detail(slow, "over CS alone, with", ".2f", "x"),
    )
    c.add(
        "Fig. 7b",
        "data-mining, no SCC: CS AFCT with LS only over CS alone ('the AFCT is not degraded')",
        over({"LS": slow["LS"]}, min),
        paper.around(1.0),
        paper_value=1.0,
        conditions=of([cs_with["LS"], cs_alone], ("none",)),
        note="CS alone: the isolation case at 30 %",
    )
