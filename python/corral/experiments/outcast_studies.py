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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import claims as cl
from . import conditions as cond

FEW, MANY = "2-hop", "6-hop"
BASE = "case1_12"  # one 2-hop and twelve 6-hop flows to h0 (Case I)
CASE1_BOTTLENECK, CASE1_FEW_IN = "tor0:0", "h1"


@dataclass(frozen=True)
class Variant:
    """One configuration of a study: scenario file (in scenarios/outcast) plus overrides."""

    label: str
    overrides: tuple[str, ...] = ()
    scenario: str = BASE
    # Measure goodput from this time on (seconds); None = from the latest flow start.
    window_start: float | None = None


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

    def add(self, c: cl.Claims, variant: str, claim: str, values: list[float], band: cl.Band | None, **kw: Any) -> None:
        """A row about `variant`, judged on its runs' conditions."""
        c.add(self.paper, f"{variant}: {claim}", values, band, conditions=self.conditions(variant), **kw)


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


RATIO = "the few flows' goodput over the many's mean"


def few_below_many(claim: str) -> Rows:
    """One row per variant: the paper's direction, the few flows below the many's mean."""

    def rows(s: StudyRuns, c: cl.Claims) -> None:
        for variant in s.runs:
            s.add(c, variant, f"{RATIO} ({claim})", s.values(variant, "ratio"), c.paper.below(1.0), null=1.0)

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
# K = 5 packets, below the 16 KB (10-packet) buffer: DCTCP's marking needs room above K.
DCTCP = ("transport.cc=dctcp", "transport.ecn=true", "switch.queue=ecn", "switch.ecn_threshold=5pkt")


def _single_drops(s: StudyRuns, variant: str) -> list[float]:
    """Per seed: the smaller of the two port classes' shares of single-drop episodes, in %
    (a class without drops counts as all single)."""

    def share(r: dict[str, Any], cls: str) -> float:
        x = r[f"single_drop_share_{cls}"]
        return 1.0 if x is None else x

    return [100 * min(share(r, "few"), share(r, "many")) for r in s.runs[variant]]


def _long_runs(s: StudyRuns, variant: str) -> list[float]:
    """Per seed: the larger of the two port classes' shares of drop episodes of 4 or more, in %."""
    return [100 * max(r["long_run_share_few"] or 0.0, r["long_run_share_many"] or 0.0) for r in s.runs[variant]]


def mitigations(s: StudyRuns, c: cl.Claims) -> None:
    p = c.paper
    for variant, kind in (("RED", "paper"), ("RED, 100-packet buffer", "acceptance")):
        s.add(
            c,
            variant,
            "single-drop episodes, the smaller share of the two input ports ('more than 90 %')",
            _single_drops(s, variant),
            p.at_least(90.0),
            kind=kind,
            paper_value=90.0,
            unit="%",
            fmt=".0f",
        )
        s.add(
            c,
            variant,
            f"{RATIO} (RTT bias: the 2-hop flow gets more)",
            s.values(variant, "ratio"),
            p.above(1.0),
            kind=kind,
            null=1.0,
        )
    for variant, kind in (("SFQ (4 buckets)", "paper"), ("SFQ (4 buckets, head drop, perturb 10 ms)", "acceptance")):
        s.add(
            c,
            variant,
            f"{RATIO} ('almost equal throughput')",
            s.values(variant, "ratio"),
            p.around(1.0),
            kind=kind,
            paper_value=1.0,
        )
    s.add(
        c, "pacing", f"{RATIO} ('reduced from 7x to 2x')", s.values("pacing", "ratio"), p.around(0.5), paper_value=0.5, null=1.0
    )
    for variant in ("equal-length, random core", "equal-length, dest bits"):
        s.add(c, variant, f"{RATIO} ('a fair throughput share')", s.values(variant, "ratio"), p.around(1.0), paper_value=1.0)
        s.add(
            c,
            variant,
            "drop episodes of 4 or more drops, the larger share of the bottleneck's input ports ('none suffer many consecutive drops')",
            _long_runs(s, variant),
            (None, 5.0),
            kind="acceptance",
            unit="%",
            fmt=".1f",
            note="our bound: 5 %",
        )
    s.add(
        c,
        "DCTCP (K=5pkt)",
        f"{RATIO} (the paper: future work)",
        s.values("DCTCP (K=5pkt)", "ratio"),
        (0.67, 1.5),
        kind="acceptance",
        note="our band: within 1.5x of even",
    )


MITIGATIONS = Study(
    key="mitigations",
    title="Mitigations: RED, SFQ, pacing, equal-length routing, DCTCP",
    paper="Sec. 5, Table 2, Figs. 14-16",
    variants=(
        Variant("taildrop"),
        Variant("RED", RED),
        Variant("RED, 100-packet buffer", (*RED, "switch.buffer=100pkt")),
        Variant("SFQ (4 buckets)", SFQ),
        Variant("SFQ (4 buckets, head drop, perturb 10 ms)", SFQ_HEAD),
        Variant("pacing", PACING),
        Variant("equal-length, random core", EQUAL_RANDOM),
        Variant("equal-length, dest bits", EQUAL_BITS),
        Variant("DCTCP (K=5pkt)", DCTCP),
    ),
    claims=mitigations,
    notes="One 2-hop and twelve 6-hop flows to h0 (Case I); only the named settings change. "
    "The 16 KB buffer holds about 10 packets, below RED's max_th of 15, so with it RED's hard "
    "limit does most dropping; the 100-packet variant gives RED room to work. "
    "With equal-length routing the 2-hop flow's packets reach tor0:0 from an aggregation "
    "switch like everyone else's, so all drops there count as 6-hop-port drops; with "
    "`dest_bits` every flow to h0 shares core0 -> agg0 -> tor0, and the bottleneck moves up "
    "to core0, where the 2-hop flow again arrives alone on one input port (the ratio is still "
    "measured from goodput; the drop-run columns are those of tor0:0, which has no drops).",
)


# ---------------------------------------------------------------- Case II: multiple flows (Fig. 4)


def _case2(s: StudyRuns, c: cl.Claims) -> None:
    first, *rest = s.runs
    s.add(c, first, f"{RATIO} ('3x worse')", s.values(first, "ratio"), c.paper.around(1 / 3), paper_value=1 / 3, null=1.0)
    for variant in rest:
        s.add(c, variant, f"{RATIO} ('similar unfairness persists')", s.values(variant, "ratio"), c.paper.below(1.0), null=1.0)


CASE2 = Study(
    key="case2",
    title="Case II: 10, 20, 30 flows per host at the 1:12 proportion",
    paper="Sec. 3.2.2, Fig. 4",
    variants=tuple(Variant(f"{n} flows/host", (f"flows.0.count={n}", f"flows.1.count={n}")) for n in (10, 20, 30)),
    claims=_case2,
    notes="Every sender opens n flows to h0; the ratio is per flow (equal to per host, since all hosts open the same number).",
)


# ---------------------------------------------------------------- Case III: staggered starts (Fig. 5)

CASE3 = Study(
    key="case3",
    title="Case III: the 2-hop flow starts 100 ms before, 100 ms after, 200 ms after the others",
    paper="Sec. 3.2.3, Fig. 5",
    variants=(
        Variant("2-hop 100 ms before", ("flows.1.start=100ms", "duration=0.6s")),
        Variant("2-hop 100 ms after", ("flows.0.start=100ms", "duration=0.6s")),
        Variant("2-hop 200 ms after", ("flows.0.start=200ms", "duration=0.7s")),
    ),
    claims=few_below_many("once all flows are active, the 2-hop flow gets less"),
    notes="Goodput is measured from the time the last flow starts (all flows active) to the end; "
    "each run lasts 0.5 s after that.",
)


# ---------------------------------------------------------------- Case IV: distinct end points (Fig. 6)

CASE4 = Study(
    key="case4",
    title="Case IV: distinct end points, bottleneck at an aggregation-to-ToR link",
    paper="Sec. 3.2.4, Fig. 6",
    variants=(Variant("distinct end points", scenario="case4_distinct"),),
    claims=few_below_many("the lone flow on its input port gets less than the 12 on the other"),
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


def case5(s: StudyRuns, c: cl.Claims) -> None:
    p = c.paper
    for variant, paper in (("10 % background", 0.25), ("20 % background", 0.4)):
        s.add(
            c,
            variant,
            f"{RATIO} ('the gap remains 4x and 2.5x')",
            s.values(variant, "ratio"),
            p.around(paper),
            paper_value=paper,
            null=1.0,
        )
    lo, hi = s.values("10 % background", "ratio"), s.values("50 % background", "ratio")
    c.add(
        s.paper,
        "50 % background: the unfairness tapers off: the ratio at 50 % over at 10 %",
        [b / a for a, b in zip(lo, hi) if a],
        p.above(1.0),
        null=1.0,
        conditions=s.conditions("10 % background", "50 % background"),
    )


CASE5 = Study(
    key="case5",
    title="Case V: background traffic at 10, 20, 50 % of the bottleneck, plus two 4-hop flows",
    paper="Sec. 3.2.5, Fig. 7",
    variants=tuple(
        Variant(f"{p} % background", (f"traffic.0.load={p / 100}",), scenario="case5_background") for p in (10, 20, 50)
    ),
    claims=case5,
    extra_tags=("4-hop",),
    notes="Background flows between random host pairs, sizes from the data-mining distribution "
    "(VL2, as the paper's [13]), Poisson arrivals with the mean inter-arrival time set for the "
    "given fraction of a 1 Gbps link per host.",
)


# ---------------------------------------------------------------- Case VI: buffers, RTT, ports

LONE_FLOWS_LOSE = few_below_many("the lone flow(s) get less")

CASE6_BUFFERS = Study(
    key="case6_buffers",
    title="Case VI: buffers of 32, 64, 128 KB",
    paper="Sec. 3.2.6",
    variants=tuple(Variant(f"{b} buffer", (f"switch.buffer={b}",)) for b in ("32KB", "64KB", "128KB")),
    claims=LONE_FLOWS_LOSE,
)

CASE6_RTT = Study(
    key="case6_rtt",
    title="Case VI: equal RTTs, twelve flows from one 4-hop host vs one from another",
    paper="Sec. 3.2.6",
    variants=(Variant("equal RTTs", scenario="case6_equal_rtt"),),
    claims=LONE_FLOWS_LOSE,
    bottleneck="tor1:2",
    few_in=("h3",),
    few_tag="few",
    many_tag="many",
    notes="h2 opens twelve flows and h3 one flow to h0; both are 4 hops away, so RTTs are "
    "equal, and they meet at tor1's uplink to agg0.",
)

CASE6_PORTS = Study(
    key="case6_ports",
    title="Case VI: three contending input ports",
    paper="Sec. 3.2.6",
    variants=(Variant("three input ports", ("routing.kind=ecmp",)),),
    claims=LONE_FLOWS_LOSE,
    notes="Case I with per-flow ECMP: the 6-hop flows reach tor0 through both aggregation "
    "switches, so three input ports (h1, agg0, agg1) feed tor0:0.",
)

STUDIES = (MITIGATIONS, CASE2, CASE3, CASE4, CASE5, CASE6_BUFFERS, CASE6_RTT, CASE6_PORTS)
