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
  link. A sensitivity run of the web-search and MapReduce coexistence cases (sensitivity
  rows beside the paper's);
- `pfabric`: pFabric hosts and switch queues as its paper runs them (`pfabric_settings`: an
  initial window of one BDP, a minimum RTO of 3 RTTs, buffers of 2 BDPs), DS before CS
  (Fig. 8a);
- `priority`: `none` with two strict-priority ECN queues per port, LS in the high one
  (Fig. 12 with SCC off: its sensitivity rows);
- `scc_priority`: `scc` on the same two queues, LS's packets in the high one (Fig. 12: the
  paper evaluates strict priority under "SCC Dynamics", and section IV-C offers it as an SCC
  option, "put LS flows into a higher physical queue").

Fig. 8b (section VI-B, "Comparison under Data-mining workload") runs on the fabric too
(`TENANTS_CASE`, `tenants_text`): two DS tenants, A and B, each all-to-all on D2TCP at
`TENANT_LOAD` of the host links (data-mining sizes), without SCC and under SCC with A's
division weighted 2:1 over B's (4:1 as a sensitivity run); the dumbbell version (`scc.py`)
is kept as sensitivity rows. The DS class's flow sizes and deadline mean are ours
(`DS_SMALL`, `DEADLINE_LONG`): the coexistence pairs of data-mining and web-search run again
with DS drawing Sec. II-B's 2-198 KB flows (the paper's Class I is a "small message"
application) and with a 40 ms deadline mean, sensitivity rows beside Fig. 10b's.

Routing: the paper assumes Presto-like load balancing in its Clos fabric (section III,
"Network Mode"), so `fabric.toml` routes by 64 KiB flowcells (`routing.kind = "flowcell"`,
Presto's size; the SCC paper gives none). The data-mining coexistence pair (`none`, `scc`)
runs again under per-flow ECMP (`ECMP_CASE`): sensitivity rows beside the paper's, not counted.

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
# Fig. 8b on the fabric: two DS tenants (A, B) at this load each (ours: 90 % of the host links
# together, the three classes' total; A's 2:1 share, 667 Mbps of a host link, covers its 450,
# B's 333 does not), A's division weighted TENANT_WEIGHTS[variant] times B's.
TENANTS_CASE = "tenants datamining"
TENANT_LOAD = 0.45
TENANT_WEIGHTS = {"scc": 2.0, "scc_w4": 4.0}
# The DS class's sensitivity runs (coexistence, data-mining and web-search): DS flows of
# Sec. II-B's sizes, and DS deadlines of a longer mean.
DS_SMALL = {"kind": "uniform", "min": "2KB", "max": "198KB"}
DEADLINE_LONG = "40ms"
DS_SENSITIVITY = {
    "DS small": ("traffic.1.size", DS_SMALL),
    f"deadlines {DEADLINE_LONG}": ("traffic.1.deadline.mean", DEADLINE_LONG),
}


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
    ("coexist datamining", "datamining", CLASSES, "scc_priority", 0.3, ()),
    *((TENANTS_CASE, "datamining", ("DS",), v, TENANT_LOAD, ()) for v in ("none", *TENANT_WEIGHTS)),
    *(
        (f"coexist {w}, {name}", w, CLASSES, v, 0.3, ())
        for name in DS_SENSITIVITY
        for w in ("datamining", "websearch")
        for v in ("none", "scc")
    ),
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
        if variant in ("priority", "scc_priority"):
            block["priority"] = 0 if c == "LS" else 1
        kept.append(block)
    scenario.set("traffic", kept)
    assert (scenario.get("switch.queue"), scenario.get("switch.ecn_threshold")) == ("ecn", "20pkt"), "the [switch] changed"
    if variant == "pfabric":
        pf = pfabric_settings(fabric)
        assert scenario.get("switch.buffer") == "250KB" and scenario.get("transport.initial_window", 10) == 10
        scenario.remove("switch.ecn_threshold").set("switch.buffer", pf["buffer"]).set("switch.queue", "pfabric")
        scenario.set("transport.initial_window", pf["initial_window"]).set("transport.min_rto", pf["min_rto"])
    elif variant in ("priority", "scc_priority"):
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


def tenants_text(fabric: str, variant: str) -> str:
    """Fig. 8b on the fabric: the DS block twice, tenant A (stream 1) and tenant B (stream
    3), both on D2TCP (`none`) or under SCC with A's division weighted
    TENANT_WEIGHTS[variant] times B's (B's: DIVISION_WEIGHT)."""
    scenario = Scenario.from_toml(case_text(fabric, ("DS",), "scc" if variant in TENANT_WEIGHTS else variant))
    [ds] = scenario.get("traffic")
    assert (ds.get("class"), ds.get("tenant"), ds.get("stream")) == ("DS", "ds", 1), "fabric.toml's DS block changed"
    scenario.set("traffic", [{**ds, "tenant": "A"}, {**ds, "tenant": "B", "stream": 3}])
    if variant in TENANT_WEIGHTS:
        scenario.set("scheme.weights", {"A/DS": TENANT_WEIGHTS[variant] * DIVISION_WEIGHT, "B/DS": DIVISION_WEIGHT})
    return scenario.to_toml()


def jobs(fabric: str, seeds: list[int], quick: bool, overrides: tuple[str, ...]) -> list[Job]:
    out = []
    for seed in seeds:
        for case, workload, classes, variant, load, extra in CASES:
            duration, stop = TIMES[workload][quick]
            ov = [f"seed={seed}", f"duration={duration}", *extra]
            if quick:
                ov.append(f"topology.hosts_per_leaf={QUICK_HOSTS_PER_LEAF}")
            blocks = 2 if case == TENANTS_CASE else len(classes)
            ds_change = next((v for k, v in DS_SENSITIVITY.items() if case.endswith(", " + k)), None)
            for i in range(blocks):
                if ds_change is not None and ds_change[0] == "traffic.1.size" and i == 1:
                    ov.append(f"traffic.{i}.size={_inline(DS_SMALL)}")
                else:
                    ov.append(f"traffic.{i}.size.cdf={workload}")
                ov += [f"traffic.{i}.load={load}", f"traffic.{i}.stop={stop}"]
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
                "total_load": round(load * blocks, 9),
                "uplinks": case == "oversubscribed",
                **_setup(case, variant),
            }
            if ds_change is not None:
                if ds_change[0] == "traffic.1.deadline.mean":
                    ov.append(f'traffic.1.deadline.mean="{DEADLINE_LONG}"')
                labels["deviation"] = {**labels.get("deviation", {}), ds_change[0]: ds_change[1]}
            text = tenants_text(fabric, variant) if case == TENANTS_CASE else case_text(fabric, classes, variant)
            out.append(Job(text, (*ov, *overrides), labels))  # type: ignore[arg-type]
    return out


def _inline(table: dict[str, str]) -> str:
    """A TOML inline table of strings, for an override."""
    return "{" + ", ".join(f'{k} = "{v}"' for k, v in table.items()) + "}"


def _setup(case: str, variant: str) -> dict[str, Any]:
    """A fabric job's setup (papers/scc.toml) and, for a sensitivity run, what it changes."""
    if case == "vs pFabric":
        return {"setup": "fabric-pfabric"}
    if case == "oversubscribed":
        return {"setup": "fabric-oversub"}
    if variant in ("priority", "scc_priority"):
        return {"setup": "fabric-priority"}
    if case == TENANTS_CASE:
        return {"setup": "fabric-tenants"}
    deviation: dict[str, Any] = {}
    if case == ECMP_CASE:
        deviation["routing.kind"] = "ecmp"
    if variant == "scc_least":
        deviation["scheme.min_increase"] = LEAST_INCREASE
    return {"setup": "fabric", "deviation": deviation}


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
    row: dict[str, Any] = {k: v for k, v in labels.items() if k not in ("setup", "deviation")}
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
            row["ds_met"] = f["deadline_met"].fill_null(False).sum()
        else:
            row.update(cs_metrics(f, end_s))
        row[f"{cls.lower()}_finished"] = f["fct_s"].is_not_null().sum()
    for tenant in ("A", "B"):  # Fig. 8b's DS tenants
        sub = flows.filter(pl.col("tenant") == tenant)
        if sub.height:
            row[f"miss_{tenant}"] = deadline_miss(sub)
    return row


ECMP_VARIES = "per-flow ECMP instead of the Presto-like 64 KiB flowcells the paper assumes (section III)"
LEAST_VARIES = (
    "every tunnel grows at least one segment per RTT (scheme.min_increase = 1, our option; eqs. 1, 3-4 as written give 0)"
)


PRIORITY_OFF_VARIES = (
    "SCC off: the paper's transports on the two strict-priority queues against them on one queue; the paper evaluates "
    "strict priority under 'SCC Dynamics' (section VI-D), with SCC on"
)
WEIGHT4_VARIES = "A's division weighted 4:1 over B's instead of 2:1 (both ours: the paper gives no weights)"
DS_VARIES = {
    "DS small": "DS flows of 2-198 KB (Sec. II-B's DS sizes) instead of the workload's: the paper calls Class I a "
    "'deadline-sensitive small message application' but also replicates the workloads for it",
    f"deadlines {DEADLINE_LONG}": f"DS deadlines exponential with mean {DEADLINE_LONG} instead of 20 ms (both ours: the paper "
    "points to L2DCT's guidelines); with 20 ms some DS flows cannot meet their deadline even on an idle path",
}


def claims(runs: pl.DataFrame, c: cl.Claims) -> None:
    """The fabric's rows (Figs. 5-12), by their ids in papers/scc.toml, into `c`."""
    fab = runs.filter(pl.col("study") == "fabric")

    def r(col: str, case: str, a: str, b: str, load: float = 0.3) -> list[float]:
        return ratio(fab, col, {"case": case, "variant": a, "load": load}, {"case": case, "variant": b, "load": load})

    def lower(col: str, case: str, a: str, b: str, load: float = 0.3) -> list[float]:
        """Per seed: how much lower `a`'s value is than `b`'s, in %."""
        return [100 * (1 - x) for x in r(col, case, a, b, load)]

    def at(case: str, *variants: str, load: float = 0.3) -> dict[str, Any]:
        return at_load(fab, case, variants, load)

    def count(case: str, variant: str, *cols: str) -> dict[int, float]:
        """Per seed: the sum of `cols` (flow counts) of the case's run."""
        sub = fab.filter((pl.col("case") == case) & (pl.col("variant") == variant) & (pl.col("load") == 0.3))
        if not set(cols) <= set(sub.columns):
            return {}
        return {row["seed"]: float(sum(row[k] for k in cols)) for row in sub.iter_rows(named=True)}

    dm = "coexist datamining"
    met_scc, met_none = count(dm, "scc", "ds_met"), count(dm, "none", "ds_met")
    done_scc, done_none = count(dm, "scc", "ds_finished", "cs_finished"), count(dm, "none", "ds_finished", "cs_finished")
    c.row(
        "fig6a-completed",
        [met_scc[s] / met_none[s] for s in sorted(met_scc) if met_none.get(s)],
        unit="x",
        conditions=at(dm, "none", "scc"),
        detail=f"DS flows within their deadline: {median_range(list(met_scc.values()), ',.0f')} under SCC, "
        f"{median_range(list(met_none.values()), ',.0f')} without; DS and CS flows finished by the run's end: "
        f"{median_range(list(done_scc.values()), ',.0f')} and {median_range(list(done_none.values()), ',.0f')}",
    )
    for case, sensitivity in ((dm, False), (ECMP_CASE, True)):
        rows = (
            ("fig6b-afct", lower("cs_afct_s", case, "scc", "none"), "%"),
            ("fig10b-dm", r("ds_miss", case, "none", "scc"), "x"),
            ("fig6-ls", lower("ls_small_fct_s", case, "scc", "none"), "%"),
        )
        for claim_id, values, unit in rows:
            if sensitivity:
                c.sensitivity(claim_id, "ECMP", values, unit=unit, varies=ECMP_VARIES, conditions=at(case, "none", "scc"))
            else:
                c.row(claim_id, values, unit=unit, conditions=at(case, "none", "scc"))
    _fig7(fab, c)
    for w, key in (("websearch", "ws"), ("fb_hadoop", "mr")):
        case = f"coexist {w}"
        done = at(case, "none", "scc")
        c.row(f"fig10a-{key}", lower("cs_afct_s", case, "scc", "none"), unit="%", conditions=done)
        c.row(f"fig10b-{key}", r("ds_miss", case, "none", "scc"), unit="x", conditions=done)
        c.row(f"wc-{key}", r("realized_load", case, "scc", "none"), unit="x", conditions=done)
        least = at(case, "none", "scc_least")
        for claim_id, values, unit in (
            (f"fig10a-{key}", lower("cs_afct_s", case, "scc_least", "none"), "%"),
            (f"fig10b-{key}", r("ds_miss", case, "none", "scc_least"), "x"),
            (f"wc-{key}", r("realized_load", case, "scc_least", "none"), "x"),
        ):
            c.sensitivity(claim_id, "least increase", values, unit=unit, varies=LEAST_VARIES, conditions=least)
    c.row("wc-dm", r("realized_load", dm, "scc", "none"), unit="x", conditions=at(dm, "none", "scc"))
    for cls in ("DS", "CS"):
        case = f"isolation {cls}"
        c.row(
            f"wc-{cls.lower()}-alone",
            r("realized_load", case, "scc", "none", 0.9),
            unit="x",
            conditions=at(case, "none", "scc", load=0.9),
        )
    pf = "vs pFabric"
    c.row("fig8a-afct", lower("cs_afct_s", pf, "scc", "pfabric", 0.4), unit="%", conditions=at(pf, "scc", "pfabric", load=0.4))
    pd = [
        100 * (a - b)
        for a, b in zip(per_seed(fab, "ds_miss", case=pf, variant="scc"), per_seed(fab, "ds_miss", case=pf, variant="pfabric"))
    ]
    c.row("fig8a-miss", pd, unit="points", conditions=at(pf, "scc", "pfabric", load=0.4))
    loads = (0.3, 0.6, 0.9)
    ds_by_load = {load: r("ds_miss", "isolation DS", "none", "scc", load) for load in loads}
    ds_runs = fab.filter(pl.col("case") == "isolation DS")
    # Over loads 30-90 %: each run's offered load against its own target.
    iso = cond.of_runs(ds_runs, load_of_target=cond.check((ds_runs["load_offered"] / ds_runs["total_load"]).to_list(), 1.0))
    c.row(
        "fig9a-most",
        [max(xs) for xs in zip(*ds_by_load.values())],
        unit="x",
        conditions=iso,
        detail="; ".join(f"{int(l * 100)} %: {median_range(x, '.2f')}x" for l, x in ds_by_load.items()),
    )
    c.row("fig9a-every", [min(xs) for xs in zip(*ds_by_load.values())], unit="x", conditions=iso)
    for load, claim_id in ((0.3, "fig9b-30"), (0.9, "fig9b-90")):
        sub = fab.filter((pl.col("case") == "isolation CS") & (pl.col("load") == load))
        c.row(claim_id, r("cs_afct_s", "isolation CS", "scc", "none", load), unit="x", conditions=cond.of_runs(sub, load=load))
    over = "oversubscribed"
    c.row("fig11a-afct", lower("cs_afct_s", over, "scc", "none"), unit="%", conditions=at(over, "none", "scc"))
    c.row("fig11a-miss", r("ds_miss", over, "none", "scc"), unit="x", conditions=at(over, "none", "scc"))
    c.row("fig11b-afct", r("cs_afct_s", dm, "none", "scc_dctcp"), unit="x", conditions=at(dm, "none", "scc_dctcp"))
    c.row("fig11b-ds-better", r("ds_miss", dm, "none", "scc_dctcp"), unit="x", conditions=at(dm, "none", "scc_dctcp"))
    c.row("fig11b-ds-worse", r("ds_miss", dm, "scc_dctcp", "scc"), unit="x", conditions=at(dm, "scc", "scc_dctcp"))
    # Fig. 12: strict priority under SCC against SCC on one queue; SCC off as sensitivity rows.
    for claim_id, col in (("fig12-ls", "ls_small_fct_s"), ("fig12-cs", "cs_afct_s"), ("fig12-ds", "ds_miss")):
        c.row(claim_id, r(col, dm, "scc_priority", "scc"), unit="x", conditions=at(dm, "scc", "scc_priority"))
        c.sensitivity(
            claim_id,
            "SCC off",
            r(col, dm, "priority", "none"),
            unit="x",
            varies=PRIORITY_OFF_VARIES,
            conditions=at(dm, "none", "priority"),
        )
    _tenants(fab, c)
    for name in DS_SENSITIVITY:
        for w, key in (("datamining", "dm"), ("websearch", "ws")):
            case = f"coexist {w}, {name}"
            c.sensitivity(
                f"fig10b-{key}",
                name,
                r("ds_miss", case, "none", "scc"),
                unit="x",
                varies=DS_VARIES[name],
                conditions=at(case, "none", "scc"),
            )
    fifo = at(dm, "scc", "scc_fifo")
    for claim_id, col in (("fig5-fabric-ls", "ls_small_fct_s"), ("fig5-fabric-ds", "ds_miss"), ("fig5-fabric-cs", "cs_afct_s")):
        c.row(claim_id, r(col, dm, "scc", "scc_fifo"), unit="x", conditions=fifo)


def _tenants(fab: pl.DataFrame, c: cl.Claims) -> None:
    """Fig. 8b on the fabric: two DS tenants at TENANT_LOAD each, A weighted 2:1 over B
    under SCC (4:1 as a sensitivity row), against both on D2TCP."""
    case = TENANTS_CASE

    def misses(variant: str) -> tuple[list[float], list[float]]:
        return (
            [100 * x for x in per_seed(fab, "miss_A", case=case, variant=variant)],
            [100 * x for x in per_seed(fab, "miss_B", case=case, variant=variant)],
        )

    for variant, sens in (("scc", None), ("scc_w4", "weight 4:1")):
        a, b = misses(variant)
        done = at_load(fab, case, ("none", variant), TENANT_LOAD)
        rows = (
            ("fig8b-a", a, "%"),
            ("fig8b-b", [y - x for x, y in zip(a, b)], "points"),
            ("fig8b-both", ratio(fab, "ds_miss", {"case": case, "variant": variant}, {"case": case, "variant": "none"}), "x"),
        )
        for claim_id, values, unit in rows:
            if sens is None:
                c.row(
                    claim_id,
                    values,
                    unit=unit,
                    conditions=done,
                    detail=f"D2TCP without SCC: A {median_range(misses('none')[0], '.1f')} %, B {median_range(misses('none')[1], '.1f')} %"
                    if claim_id == "fig8b-a"
                    else "",
                )
            else:
                c.sensitivity(claim_id, sens, values, unit=unit, varies=WEIGHT4_VARIES, conditions=done)


def at_load(fab: pl.DataFrame, case: str, variants: tuple[str, ...], load: float) -> dict[str, Any]:
    """Conditions: the offered load of the case's runs against the paper's total."""
    sub = fab.filter((pl.col("case") == case) & pl.col("variant").is_in(list(variants)) & (pl.col("load") == load))
    return cond.of_runs(sub, load=float(sub["total_load"][0]) if sub.height else None)


def _fig7(fab: pl.DataFrame, c: cl.Claims) -> None:
    """Fig. 7: data-mining at 30 % per class, DS and CS each coexisting with the other
    classes, with and without SCC, against the class alone (the isolation cases at 30 %)."""
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
    c.row(
        "fig7a-hurt",
        over(hurt, min),
        unit="points",
        conditions=of([*ds_with.values(), ds_alone], ("none",)),
        detail=detail(hurt, "with", "+.1f", " points"),
    )
    cut = per_set(div, ds_with, "ds_miss", None, base_variant="scc")
    c.row(
        "fig7a-cut",
        over(cut, max),
        unit="x",
        conditions=of(list(ds_with.values()), ("none", "scc")),
        detail=detail(cut, "with", ".2f", "x"),
    )
    slow = per_set(div, cs_with, "cs_afct_s", (cs_alone, "none"))
    more = {k: v for k, v in per_set(div, cs_with, "cs_afct_s", (cs_with["LS"], "none")).items() if k != "LS"}
    c.row(
        "fig7b-ds",
        over(more, min),
        unit="x",
        conditions=of(list(cs_with.values()), ("none",)),
        detail=detail(slow, "over CS alone, with", ".2f", "x"),
    )
    c.row("fig7b-ls", over({"LS": slow["LS"]}, min), unit="x", conditions=of([cs_with["LS"], cs_alone], ("none",)))
