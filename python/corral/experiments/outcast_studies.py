"""The TCP Outcast paper's characterization cases and mitigations, as data.

Prakash et al., NSDI 2012: Sec. 3.2.2-3.2.6 (Cases II-VI, Figs. 4-7) vary the flow counts,
start times, end points, background traffic, buffers, RTTs and the number of input ports;
Sec. 5 and Table 2 (Figs. 14-16) compare four mitigations of port blackout. Each `Study` is a
list of variants (a shipped scenario plus `--set` overrides), the bottleneck port and the
input port of the "few" flows there, and its claims: a function that adds the paper's
statements, as claims rows (`claims`: the paper's number and band, or its direction), from
the per-seed values of its variants. `outcast_report` runs them and writes the report.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import claims as cl
from . import conditions as cond

FEW, MANY = "2-hop", "6-hop"
BASE = "case1_12"  # one 2-hop and twelve 6-hop flows to h0 (Case I)
CASE1_BOTTLENECK, CASE1_FEW_IN = "tor0:0", "h1"

# The two TCPs of the paper (Sec. 3.1), over the shipped scenarios' settings: its testbed's
# Linux 2.6.18 with CUBIC (the paper ran BIC and CUBIC there; corral has no BIC), and its
# ns-2 simulations' NewReno (the `testbed` and `ns2` setups of papers/outcast.toml give each
# value's source). NS2 adds ns-2's 30-packet queue (Sec. 4.2, "Q-size 30").
TESTBED = (
    "transport.cc=cubic",
    "transport.sack=true",
    "transport.limited_transmit=true",
    "transport.initial_window=3",
    "transport.receive_window=4194304",
)
NS2_TCP = (
    "transport.cc=newreno",
    "transport.sack=false",
    "transport.limited_transmit=false",
    "transport.initial_window=2",
    "transport.receive_window=29200",
)
NS2 = (*NS2_TCP, "switch.buffer=30pkt")
# ns-2's TCP as a deviation from the testbed's (the sensitivity runs of Case I).
NS2_TCP_DEVIATION = {
    "transport.cc": "newreno",
    "transport.sack": False,
    "transport.limited_transmit": False,
    "transport.initial_window": 2,
    "transport.receive_window": 29200,
}


@dataclass(frozen=True)
class Variant:
    """One configuration of a study: scenario file (in scenarios/outcast) plus overrides,
    run under `setup` (an id of papers/outcast.toml's setups) with the settings it changes
    from that setup in `deviation` (a sensitivity or our own check)."""

    label: str
    overrides: tuple[str, ...] = ()
    scenario: str = BASE
    # Measure goodput from this time on (seconds); None = from the latest flow start.
    window_start: float | None = None
    setup: str = "testbed"
    deviation: tuple[tuple[str, Any], ...] = ()
    # Where the few and many flows meet in this variant, when not the study's (equal-length
    # routing by destination bits moves the bottleneck up to a core switch).
    bottleneck: str | None = None
    few_in: tuple[str, ...] | None = None
    # Also measure the ratio over the goodputs from this time on ("ratio_late"), seconds.
    late_from: float | None = None


@dataclass(frozen=True)
class StudyRuns:
    """One study's measured runs (`outcast_report.measure_study_run` rows) by variant, in
    seed order."""

    key: str
    paper: str  # section and figure: the rows' figure
    runs: dict[str, list[dict[str, Any]]]

    def values(self, variant: str, col: str) -> list[float]:
        return cl.clean([r[col] for r in self.runs[variant]])

    def conditions(self, *variants: str) -> dict[str, Any]:
        import polars as pl

        rows = [r for v in variants for r in self.runs[v]]
        return cond.of_runs(pl.DataFrame(rows, infer_schema_length=None)) if rows else {}

    def row(self, c: cl.Claims, claim_id: str, variant: str, values: list[float], unit: str = "x", **kw: Any) -> None:
        """Claim `claim_id` of the claims table, judged on `variant`'s runs."""
        c.row(claim_id, values, unit=unit, conditions=self.conditions(variant), **kw)

    def sensitivity(self, c: cl.Claims, claim_id: str, variant: str, values: list[float], varies: str, unit: str = "x") -> None:
        """Claim `claim_id` judged on `variant`'s runs, a setting away from the paper's."""
        c.sensitivity(claim_id, variant, values, unit=unit, varies=varies, conditions=self.conditions(variant))


# A study's claims: adds its rows to the Claims from its runs.
Rows = Callable[[StudyRuns, cl.Claims], None]


@dataclass(frozen=True)
class Study:
    key: str
    title: str
    paper: str  # section and figure
    variants: tuple[Variant, ...]
    claims: Rows
    bottleneck: str = CASE1_BOTTLENECK  # "node:port" where the flows meet
    few_in: tuple[str, ...] = (CASE1_FEW_IN,)  # neighbour(s) the few flows arrive from there
    few_tag: str = FEW
    many_tag: str = MANY
    notes: str = ""
    extra_tags: tuple[str, ...] = field(default=())  # other tagged flows reported separately


def ratio_rows(*pairs: tuple[str, str]) -> Rows:
    """One row per (claim id, variant): the few flows' goodput over the many's mean."""

    def rows(s: StudyRuns, c: cl.Claims) -> None:
        for claim_id, variant in pairs:
            s.row(c, claim_id, variant, s.values(variant, "ratio"))

    return rows


# ---------------------------------------------------------------- mitigations (Sec. 5, Table 2)

RED = ("switch.queue=red", "switch.red.min_th=5pkt", "switch.red.max_th=15pkt", "switch.red.w_q=0.002")
SFQ = ("switch.queue=sfq", "switch.sfq.buckets=4")
# Linux sfq's `headdrop`: overflow drops the oldest packet of the longest bucket, so a loss
# is signalled a queue earlier and never takes the tail of a window; the hash is re-salted
# every 10 ms so no flow stays in an unlucky bucket.
SFQ_HEAD = (*SFQ, "switch.sfq.drop=head", "switch.sfq.perturb=10ms")
PACING = ("transport.pacing=true",)
EQUAL_RANDOM = ("routing.kind=equal_length", "routing.core=random")
EQUAL_BITS = ("routing.kind=equal_length", "routing.core=dest_bits")
# With `dest_bits` every flow to h0 climbs to core0 and comes down through agg0: the flows
# meet at core0's port towards agg0, where the 2-hop flow arrives from agg0 (it went up
# through it) and the 6-hop flows from the other pods' aggregation switches.
EQUAL_BITS_BOTTLENECK = "core0:0"
# K = 5 packets, below ns-2's 30-packet queue: DCTCP's marking needs room above K.
DCTCP = ("transport.cc=dctcp", "transport.ecn=true", "switch.queue=ecn", "switch.ecn_threshold=5pkt")
TESTBED_BUFFER = ("switch.buffer=16KB",)
SMALL = "16 KB queue"  # the sensitivity variants' suffix
SMALL_VARIES = (
    "a 16 KB queue (the testbed's NetFPGA buffer, about 10 packets) instead of ns-2's 30 packets (Sec. 4.2): "
    "corral's earlier setup, under which RED's max_th of 15 packets is never reached"
)


def _shares(s: StudyRuns, variant: str, col: str, cls: str) -> list[float]:
    """Per seed: `cls`'s share of drop episodes `col` ("share_1", "share_2", "share_ge3",
    "share_ge4"), in % (seeds where that input port had no drop left out)."""
    return cl.clean([None if r[f"{col}_{cls}"] is None else 100 * r[f"{col}_{cls}"] for r in s.runs[variant]])


def _present(r: dict[str, Any], col: str) -> list[float]:
    """`col`'s values of the two port classes of run `r`, leaving out a class whose input
    port had no drop episode (its share is missing, not 0 or 1)."""
    return [r[f"{col}_{cls}"] for cls in ("few", "many") if r[f"{col}_{cls}"] is not None]


def _single_drops(s: StudyRuns, variant: str) -> list[float]:
    """Per seed: the smaller of the two port classes' shares of single-drop episodes, in %
    (of the classes that had drops; a seed without drops at the bottleneck is left out)."""
    return cl.clean([100 * min(xs) if (xs := _present(r, "share_1")) else None for r in s.runs[variant]])


def _single_ratio(s: StudyRuns, variant: str) -> list[float]:
    """Per seed: the few flows' port's share of single-drop episodes over the many's."""
    return cl.clean(
        [r["share_1_few"] / r["share_1_many"] if r["share_1_few"] and r["share_1_many"] else None for r in s.runs[variant]]
    )


def _long_runs(s: StudyRuns, variant: str) -> list[float]:
    """Per seed: the larger of the two port classes' shares of drop episodes of 4 or more,
    in % (of the classes that had drops at the variant's bottleneck; a seed without drops
    there is left out, never counted as 0 %)."""
    return cl.clean([100 * max(xs) if (xs := _present(r, "share_ge4")) else None for r in s.runs[variant]])


def _consecutive_points(s: StudyRuns, variant: str) -> list[float]:
    """Per seed: the few flows' port's share of drop episodes of 2 or more drops minus the
    many's, in points (seeds where either port had no drop left out)."""
    return cl.clean(
        [
            100 * (r["share_1_many"] - r["share_1_few"])
            if r["share_1_few"] is not None and r["share_1_many"] is not None
            else None
            for r in s.runs[variant]
        ]
    )


def _flow_drop_ratio(s: StudyRuns, variant: str) -> list[float]:
    """Per seed: the few flows' mean dropped data packets (anywhere in the network) over the
    many flows' mean (seeds where the many flows lost nothing left out)."""
    return cl.clean([r["flow_drops_few"] / r["flow_drops_many"] if r["flow_drops_many"] else None for r in s.runs[variant]])


# A goodput ratio is taken within [1/LOCKOUT, LOCKOUT] in `unfairness`: a flow side that
# sent nothing in the window (ratio 0) is as unfair as one a million times behind, not missing.
LOCKOUT = 1e6


def unfairness(ratio: float | None) -> float | None:
    """How far a goodput ratio is from even, either way: |ln ratio| (0 when fair; 1/4 and 4
    are equally unfair), the ratio held within [1/LOCKOUT, LOCKOUT] so that a locked-out
    side counts; None for a missing ratio (NaN: the many flows had no goodput to compare)."""
    if ratio is None or math.isnan(ratio):
        return None
    return abs(math.log(min(max(ratio, 1 / LOCKOUT), LOCKOUT)))


def toward_fair(s: StudyRuns, variant: str, base: str, col: str = "ratio", base_col: str = "ratio") -> list[float]:
    """Per seed: `variant`'s unfairness over `base`'s (`unfairness`; below 1: closer to
    even), seeds paired by seed number; a seed where `base` is already even is left out."""
    base_by_seed = {r["seed"]: unfairness(r[base_col]) for r in s.runs[base]}
    out = []
    for r in s.runs[variant]:
        a, b = unfairness(r[col]), base_by_seed.get(r["seed"])
        out.append(a / b if a is not None and b else None)
    return cl.clean(out)


def mitigations(s: StudyRuns, c: cl.Claims) -> None:
    for variant in ("RED", f"RED, {SMALL}"):
        rows = (
            ("red-single", _single_drops(s, variant), "%"),
            ("red-similar", _single_ratio(s, variant), "x"),
            ("red-bias", s.values(variant, "ratio"), "x"),
        )
        for claim_id, values, unit in rows:
            if variant == "RED":
                s.row(c, claim_id, variant, values, unit)
            else:
                s.sensitivity(c, claim_id, variant, values, SMALL_VARIES, unit)
    for variant in ("SFQ (4 buckets)", f"SFQ, {SMALL}"):
        rows = (
            ("sfq-fair", s.values(variant, "ratio"), "x"),
            ("sfq-2drops", _shares(s, variant, "share_2", "few"), "%"),
            ("sfq-consecutive", _consecutive_points(s, variant), "points"),
            ("sfq-more-drops", _flow_drop_ratio(s, variant), "x"),
        )
        for claim_id, values, unit in rows:
            if variant == "SFQ (4 buckets)":
                s.row(c, claim_id, variant, values, unit)
            else:
                s.sensitivity(c, claim_id, variant, values, SMALL_VARIES, unit)
    s.row(
        c, "sfq-head", "SFQ (4 buckets, head drop, perturb 10 ms)", s.values("SFQ (4 buckets, head drop, perturb 10 ms)", "ratio")
    )
    s.row(c, "pacing", "pacing", s.values("pacing", "ratio"))
    s.sensitivity(c, "pacing", f"pacing, {SMALL}", s.values(f"pacing, {SMALL}", "ratio"), SMALL_VARIES)
    for variant, ratio_id, drops_id, runs_id in (
        ("equal-length, random core", "equal-random", "equal-random-drops", "equal-random-longruns"),
        ("equal-length, dest bits", "equal-bits", "equal-bits-drops", "equal-bits-longruns"),
    ):
        s.row(c, ratio_id, variant, s.values(variant, "ratio"))
        s.row(c, drops_id, variant, _flow_drop_ratio(s, variant))
        where = variant_of(MITIGATIONS, variant).bottleneck or MITIGATIONS.bottleneck
        s.row(c, runs_id, variant, _long_runs(s, variant), "%", detail=f"at {where}")
    # Sec. 5.3 and 5.5: each mitigation against taildrop in the same setup, per seed.
    for claim_id, variant, base in (
        ("pacing-reduces", "pacing", "taildrop"),
        ("alleviate-red", "RED", "taildrop"),
        ("alleviate-sfq", "SFQ (4 buckets)", "taildrop"),
        ("alleviate-equal-random", "equal-length, random core", "taildrop (testbed)"),
        ("alleviate-equal-bits", "equal-length, dest bits", "taildrop (testbed)"),
    ):
        s.row(c, claim_id, variant, toward_fair(s, variant, base), detail=f"against {base}")
    s.row(c, "dctcp", "DCTCP (K=5pkt)", s.values("DCTCP (K=5pkt)", "ratio"))


def variant_of(study: Study, label: str) -> Variant:
    """The variant of `study` labelled `label`."""
    return next(v for v in study.variants if v.label == label)


_SMALL_DEVIATION = (("switch.buffer", "16KB"),)

MITIGATIONS = Study(
    key="mitigations",
    title="Mitigations: RED, SFQ, pacing, equal-length routing, DCTCP",
    paper="Sec. 5, Table 2, Figs. 14-16",
    variants=(
        Variant("taildrop", NS2, setup="ns2"),
        Variant("RED", (*NS2, *RED), setup="ns2-red"),
        Variant(f"RED, {SMALL}", (*NS2, *RED, *TESTBED_BUFFER), setup="ns2-red", deviation=_SMALL_DEVIATION),
        Variant("SFQ (4 buckets)", (*NS2, *SFQ), setup="ns2-sfq"),
        Variant(f"SFQ, {SMALL}", (*NS2, *SFQ, *TESTBED_BUFFER), setup="ns2-sfq", deviation=_SMALL_DEVIATION),
        Variant(
            "SFQ (4 buckets, head drop, perturb 10 ms)",
            (*NS2, *SFQ_HEAD),
            setup="ns2-sfq",
            deviation=(("switch.sfq.drop", "head"), ("switch.sfq.perturb", "10ms")),
        ),
        Variant("pacing", (*NS2, *PACING), setup="ns2-pacing"),
        Variant(f"pacing, {SMALL}", (*NS2, *PACING, *TESTBED_BUFFER), setup="ns2-pacing", deviation=_SMALL_DEVIATION),
        Variant("equal-length, random core", (*TESTBED, *EQUAL_RANDOM), setup="testbed-equal"),
        Variant(
            "equal-length, dest bits",
            (*TESTBED, *EQUAL_BITS),
            setup="testbed-equal",
            bottleneck=EQUAL_BITS_BOTTLENECK,
            few_in=("agg0",),
        ),
        # Fig. 3(f)'s taildrop on the testbed's setup, the baseline of equal-length routing
        # (Sec. 5.5: "all approaches alleviate the TCP outcast problem").
        Variant("taildrop (testbed)", TESTBED),
        Variant(
            "DCTCP (K=5pkt)",
            (*NS2, *DCTCP),
            setup="ns2",
            deviation=(("transport.cc", "dctcp"), ("switch.queue", "ecn")),
        ),
    ),
    claims=mitigations,
    notes="One 2-hop and twelve 6-hop flows to h0 (Case I). RED, SFQ and pacing run as the paper "
    "ran them, in ns-2's setup (NewReno without SACK, 30-packet queues: Sec. 4.2's 'Q-size 30'); "
    "the '16 KB queue' variants are the sensitivity to corral's earlier 16 KB queue, where RED's "
    "max_th of 15 packets is never reached. Equal-length routing runs on the testbed's setup "
    "(CUBIC, 16 KB), where the paper ran it (Sec. 5.4). "
    "With equal-length routing the 2-hop flow's packets reach tor0:0 from an aggregation "
    "switch like everyone else's, so all drops there count as 6-hop-port drops; with "
    "`dest_bits` every flow to h0 shares core0 -> agg0 -> tor0, and the bottleneck moves up "
    "to core0, where the 2-hop flow again arrives alone on one input port (the ratio is still "
    "measured from goodput; the drop-run columns are those of tor0:0, which has no drops).",
)


# ---------------------------------------------------------------- Fig. 2: fifteen flows


def _fig2(s: StudyRuns, c: cl.Claims) -> None:
    s.row(c, "fig2-f1", "15 flows", s.values("15 flows", "ratio"))
    four = cl.clean(
        [r["goodput_4-hop_bps"] / r["goodput_many_bps"] if r["goodput_many_bps"] else None for r in s.runs["15 flows"]]
    )
    s.row(c, "fig2-f23", "15 flows", four)


FIG2 = Study(
    key="fig2",
    title="Fig. 2: one 2-hop, two 4-hop and twelve 6-hop flows",
    paper="Sec. 2.2, Fig. 2",
    variants=(Variant("15 flows", TESTBED, scenario="fig2_fifteen"),),
    claims=_fig2,
    extra_tags=("4-hop",),
    notes="Fifteen senders S1-S15, one flow each to h0: the 2-hop flow from h1, the 4-hop flows from h2 "
    "and h3, the 6-hop flows from h4-h15; goodputs while all flows are active.",
)


# ---------------------------------------------------------------- Case II: multiple flows (Fig. 4)


def _case2(s: StudyRuns, c: cl.Claims) -> None:
    for n in (10, 20, 30):
        s.row(c, f"case2-{n}", f"{n} flows/host", s.values(f"{n} flows/host", "ratio"))
    twenty = "20 flows/host"
    few, many = _shares(s, twenty, "share_ge3", "few"), _shares(s, twenty, "share_ge3", "many")
    points = cl.clean(
        [
            100 * (r["share_ge3_few"] - r["share_ge3_many"])
            if r["share_ge3_few"] is not None and r["share_ge3_many"] is not None
            else None
            for r in s.runs[twenty]
        ]
    )
    left_out = len(s.runs[twenty]) - len(points)
    detail = f"2-hop port {cl.median_range(few, '.1f')} %, 6-hop port {cl.median_range(many, '.1f')} %" + (
        f"; {left_out} seed(s) left out: an input port without any drop has no share" if left_out else ""
    )
    s.row(c, "fig11b", twenty, points, "points", detail=detail)
    # Sec. 4.3: with more flows "the duration of the blackout simply increases": the mean
    # drop run at the bottleneck (both ports) with 30 flows per host over that with 10.
    longer = [b / a if a and b else None for a, b in zip(_mean_run(s.runs["10 flows/host"]), _mean_run(s.runs["30 flows/host"]))]
    s.row(c, "blackout-longer", "30 flows/host", cl.clean(longer), detail="30 against 10 flows per host, seeds paired")


def _mean_run(runs: list[dict[str, Any]]) -> list[float | None]:
    """Per run: the mean length of the drop runs at the bottleneck, both input ports
    (episodes-weighted; None without drops)."""
    out: list[float | None] = []
    for r in runs:
        n = sum(r[f"drop_episodes_{c}"] for c in ("few", "many"))
        drops = sum(r[f"drop_episodes_{c}"] * (r[f"drop_run_mean_{c}"] or 0.0) for c in ("few", "many"))
        out.append(drops / n if n else None)
    return out


CASE2 = Study(
    key="case2",
    title="Case II: 10, 20, 30 flows per host at the 1:12 proportion",
    paper="Sec. 3.2.2, Fig. 4",
    variants=tuple(Variant(f"{n} flows/host", (*TESTBED, f"flows.0.count={n}", f"flows.1.count={n}")) for n in (10, 20, 30)),
    claims=_case2,
    notes="Every sender opens n flows to h0; the ratio is per flow (equal to per host, since all hosts open the same number).",
)


# ---------------------------------------------------------------- Case III: staggered starts (Fig. 5)

CASE3 = Study(
    key="case3",
    title="Case III: the 2-hop flow starts 100 ms before, 100 ms after, 200 ms after the others",
    paper="Sec. 3.2.3, Fig. 5",
    variants=(
        Variant("2-hop 100 ms before", (*TESTBED, "flows.1.start=100ms", "duration=0.6s"), setup="testbed-staggered"),
        Variant("2-hop 100 ms after", (*TESTBED, "flows.0.start=100ms", "duration=0.6s"), setup="testbed-staggered"),
        Variant("2-hop 200 ms after", (*TESTBED, "flows.0.start=200ms", "duration=0.7s"), setup="testbed-staggered"),
    ),
    claims=ratio_rows(
        ("case3-before", "2-hop 100 ms before"),
        ("case3-after100", "2-hop 100 ms after"),
        ("case3-after200", "2-hop 200 ms after"),
    ),
    notes="Goodput is measured from the time the last flow starts (all flows active) to the end; "
    "each run lasts 0.5 s after that.",
)


# ---------------------------------------------------------------- Case IV: distinct end points (Fig. 6)

CASE4 = Study(
    key="case4",
    title="Case IV: distinct end points, bottleneck at an aggregation-to-ToR link",
    paper="Sec. 3.2.4, Fig. 6",
    variants=(Variant("distinct end points", TESTBED, scenario="case4_distinct", setup="testbed-distinct"),),
    claims=ratio_rows(("case4", "distinct end points")),
    bottleneck="spine0:0",
    few_in=("leaf1",),
    few_tag="few",
    many_tag="many",
    notes="Leaf-spine with one spine (the aggregation level), 10 Gbps host links and 1 Gbps "
    "fabric links: h12 (leaf1) sends to h1 and twelve hosts of leaf2 send to h0, so no two "
    "flows share a receiver and the bottleneck is spine0's port down to leaf0. A k=4 fat-tree "
    "with destination-bit routing cannot put two receivers behind one aggregation-to-ToR link.",
)


# ---------------------------------------------------------------- Case V: background traffic (Fig. 7)


CASE5_LATE_S = 0.2  # "the unfairness seems to taper off, that too after 0.2 seconds"


def _case5_conditions(s: StudyRuns, *variants: str) -> dict[str, Any]:
    """The rows' conditions, with the background load the bottleneck was offered (its
    receiver's share of the background flows, `outcast_report._background_load`) checked
    against the paper's fraction of its 1 Gbps, per variant."""
    out = s.conditions(*variants)
    for v in variants:
        target = float(v.split()[0]) / 100
        out[f"load_bottleneck_{v.split()[0]}pct"] = cond.check([r["background_load_bottleneck"] for r in s.runs[v]], target)
    return out


def case5(s: StudyRuns, c: cl.Claims) -> None:
    for claim_id, variant in (("case5-10", "10 % background"), ("case5-20", "20 % background")):
        c.row(claim_id, s.values(variant, "ratio"), unit="x", conditions=_case5_conditions(s, variant))
    # Tapering: per seed, how much less unfair the ratio is at 50 % than at 10 % after 0.2 s
    # (|ln ratio| at 50 % over |ln ratio| at 10 %; below 1: closer to even, either way).
    c.row(
        "case5-50",
        toward_fair(s, "50 % background", "10 % background", col="ratio_late", base_col="ratio_late"),
        unit="x",
        conditions=_case5_conditions(s, "10 % background", "50 % background"),
        detail=f"goodputs from {CASE5_LATE_S:g} s to the end; 50 % ratio {cl.median_range(s.values('50 % background', 'ratio_late'))}",
    )


CASE5 = Study(
    key="case5",
    title="Case V: background traffic at 10, 20, 50 % of the bottleneck, plus two 4-hop flows",
    paper="Sec. 3.2.5, Fig. 7",
    variants=tuple(
        Variant(
            f"{p} % background",
            (*TESTBED, f"traffic.0.load={p / 100}"),
            scenario="case5_background",
            setup="testbed-background",
            late_from=CASE5_LATE_S,
        )
        for p in (10, 20, 50)
    ),
    claims=case5,
    extra_tags=("4-hop",),
    notes="Background flows between random host pairs, sizes from the data-mining distribution "
    "(VL2, as the paper's [13]), Poisson arrivals with the mean inter-arrival time set for the "
    "given fraction of a 1 Gbps link per host.",
)


# ---------------------------------------------------------------- Case VI: buffers, RTT, ports, Fig. 8

CASE6_BUFFERS = Study(
    key="case6_buffers",
    title="Case VI: buffers of 32, 64, 128 KB (ns-2) and 512 KB (testbed)",
    paper="Sec. 3.2.6",
    variants=(
        *(Variant(f"{b} buffer", (*NS2_TCP, f"switch.buffer={b}"), setup="ns2-buffers") for b in ("32KB", "64KB", "128KB")),
        Variant("512KB buffer", (*TESTBED, "switch.buffer=512KB"), setup="testbed-512KB"),
    ),
    claims=ratio_rows(
        ("case6-32KB", "32KB buffer"),
        ("case6-64KB", "64KB buffer"),
        ("case6-128KB", "128KB buffer"),
        ("case6-512KB", "512KB buffer"),
    ),
    notes="32, 64 and 128 KB in the paper's ns-2 setup (NewReno without SACK), 512 KB in its testbed's (CUBIC).",
)

CASE6_RTT = Study(
    key="case6_rtt",
    title="Case VI: equal RTTs, twelve flows from one 4-hop host vs one from another",
    paper="Sec. 3.2.6",
    variants=(Variant("equal RTTs", NS2, scenario="case6_equal_rtt", setup="ns2"),),
    claims=ratio_rows(("case6-rtt", "equal RTTs")),
    bottleneck="tor1:2",
    few_in=("h3",),
    few_tag="few",
    many_tag="many",
    notes="h2 opens twelve flows and h3 one flow to h0; both are 4 hops away, so RTTs are "
    "equal, and they meet at tor1's uplink to agg0 (the paper's ns-2 setup: 'We simulate').",
)

CASE6_PORTS = Study(
    key="case6_ports",
    title="Case VI: three contending input ports",
    paper="Sec. 3.2.6",
    variants=(Variant("three input ports", (*TESTBED, "routing.kind=ecmp"), setup="testbed-3ports"),),
    claims=ratio_rows(("case6-ports", "three input ports")),
    notes="Case I with per-flow ECMP: the 6-hop flows reach tor0 through both aggregation "
    "switches, so three input ports (h1, agg0, agg1) feed tor0:0.",
)

FIG8 = Study(
    key="fig8",
    title="Fig. 8: CUBIC without SACK",
    paper="Sec. 3.2.6, Fig. 8",
    variants=(Variant("CUBIC without SACK", (*TESTBED, "transport.sack=false"), setup="testbed-nosack"),),
    claims=ratio_rows(("fig8-cubic-nosack", "CUBIC without SACK")),
    notes="Case I (twelve 6-hop flows) on the testbed's setup with SACK off; CUBIC with SACK is Case I itself (Fig. 3f).",
)

STUDIES = (FIG2, MITIGATIONS, CASE2, CASE3, CASE4, CASE5, CASE6_BUFFERS, CASE6_RTT, CASE6_PORTS, FIG8)
