"""The TCP Outcast paper's characterization cases and mitigations, as data.

Prakash et al., NSDI 2012: Sec. 3.2.2-3.2.6 (Cases II-VI, Figs. 4-7) vary the flow counts,
start times, end points, background traffic, buffers, RTTs and the number of input ports;
Sec. 5 and Table 2 (Figs. 14-16) compare four mitigations of port blackout. Each `Study` is a
list of variants (a shipped scenario plus `--set` overrides), the bottleneck port and the
input port of the "few" flows there, the paper's expectation in words, and a check that turns
the measured table into a verdict. `outcast_report` runs them and writes the report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

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
class Verdict:
    claim: str  # the paper's expectation, in words
    measured: str  # what corral measured, in words
    ok: bool


# A check gets the study's table (one row per variant, means over seeds; see
# `outcast_report.variant_table`) and returns one verdict per claim.
Check = Callable[[pl.DataFrame], list[Verdict]]


@dataclass(frozen=True)
class Study:
    key: str
    title: str
    paper: str  # section and figure
    variants: tuple[Variant, ...]
    check: Check
    bottleneck: str = CASE1_BOTTLENECK  # "node:port" where the flows meet
    few_in: tuple[str, ...] = (CASE1_FEW_IN,)  # neighbour(s) the few flows arrive from there
    few_tag: str = FEW
    many_tag: str = MANY
    notes: str = ""
    extra_tags: tuple[str, ...] = field(default=())  # other tagged flows reported separately


def row(table: pl.DataFrame, label: str) -> dict:
    rows = table.filter(pl.col("variant") == label).to_dicts()
    if len(rows) != 1:
        raise KeyError(f"variant {label!r} missing from the study table")
    return rows[0]


def ratio_text(r: dict) -> str:
    """The ratio's median over seeds with its range: the dynamics are bistable (a seed can
    lock either side out), so a mean over seeds is dominated by one outlier."""
    return (f"{r['variant']}: median ratio {r['ratio_median']:.2f} (seeds {r['ratio_min']:.2f}..{r['ratio_max']:.2f}, "
            f"{r['seeds_below_fair']} of {r['seeds']} below 1)")


def within(lo: float, hi: float) -> Callable[[float], bool]:
    return lambda x: lo <= x <= hi


def few_below_many(claim: str) -> Check:
    """A check with one claim per variant: "<variant>: <claim>", met when the median ratio
    is below 1 (the few flows get less than the mean of the many)."""

    def check(t: pl.DataFrame) -> list[Verdict]:
        return [Verdict(f"{r['variant']}: {claim}", ratio_text(r), r["ratio_median"] < 1.0) for r in t.to_dicts()]

    return check


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


def long_runs_rare(r: dict) -> bool:
    """Blackouts are rare: under 5 % of drop episodes on each port class are runs of 4 or
    more drops (a class without drops passes)."""
    return all((r[f"long_run_share_{c}"] or 0.0) < 0.05 for c in ("few", "many"))


def runs_text(r: dict) -> str:
    def share(c: str) -> str:
        x = r[f"long_run_share_{c}"]
        return "no drops" if x is None else f"{x:.2f}"

    return f"share of runs >= 4 drops: 2-hop {share('few')}, 6-hop {share('many')} (max {r['drop_run_max_few']} / {r['drop_run_max_many']})"


def check_mitigations(t: pl.DataFrame) -> list[Verdict]:
    base, pacing = (row(t, v) for v in ("taildrop", "pacing"))
    reds = [row(t, v) for v in ("RED", "RED, 100-packet buffer")]
    sfqs = [row(t, v) for v in ("SFQ (4 buckets)", "SFQ (4 buckets, head drop, perturb 10 ms)")]
    eq = [row(t, v) for v in ("equal-length, random core", "equal-length, dest bits")]
    dctcp = row(t, "DCTCP (K=5pkt)")
    return [
        *(
            Verdict(
                f"{red['variant']}: drop runs on both ports alike and mostly single drops (>= 80 % of episodes)",
                f"single-drop share 2-hop {red['single_drop_share_few']:.2f}, 6-hop {red['single_drop_share_many']:.2f}",
                min(red["single_drop_share_few"] or 0.0, red["single_drop_share_many"] or 0.0) >= 0.8,
            )
            for red in reds
        ),
        *(
            Verdict(f"{red['variant']}: the 2-hop flow gets more than the 6-hop mean (RTT bias)", ratio_text(red),
                    red["ratio_median"] > 1.0)
            for red in reds
        ),
        *(
            Verdict(f"{r['variant']}: ratio within 0.75..1.33", ratio_text(r), within(0.75, 1.33)(r["ratio_median"]))
            for r in sfqs
        ),
        Verdict(
            "Pacing: unfairness clearly smaller than taildrop (ratio at least 1.5x the taildrop ratio), "
            "2-hop still below the 6-hop mean",
            f"{ratio_text(pacing)} vs taildrop {base['ratio_median']:.2f}",
            pacing["ratio_median"] >= 1.5 * base["ratio_median"] and pacing["ratio_median"] < 1.0,
        ),
        *(
            Verdict(
                f"{r['variant']}: ratio within 0.75..1.33 and no long drop runs (runs of >= 4 drops under 5 % "
                "of episodes on every input port of the bottleneck)",
                f"{ratio_text(r)}; {runs_text(r)}",
                within(0.75, 1.33)(r["ratio_median"]) and long_runs_rare(r),
            )
            for r in eq
        ),
        Verdict(
            "DCTCP with ECN marking below the buffer (paper: future work; issue: within 0.67..1.5)",
            ratio_text(dctcp),
            within(0.67, 1.5)(dctcp["ratio_median"]),
        ),
    ]


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
    check=check_mitigations,
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

CASE2 = Study(
    key="case2",
    title="Case II: 10, 20, 30 flows per host at the 1:12 proportion",
    paper="Sec. 3.2.2, Fig. 4",
    variants=tuple(
        Variant(f"{n} flows/host", (f"flows.0.count={n}", f"flows.1.count={n}")) for n in (10, 20, 30)
    ),
    check=few_below_many("the 2-hop flows get less than the 6-hop flows (paper: 3x less at 10 flows/host)"),
    notes="Every sender opens n flows to h0; the ratio is per flow (equal to per host, since all "
    "hosts open the same number).",
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
    check=few_below_many("once all flows are active the 2-hop flow gets less than the 6-hop mean"),
    notes="Goodput is measured from the time the last flow starts (all flows active) to the end; "
    "each run lasts 0.5 s after that.",
)


# ---------------------------------------------------------------- Case IV: distinct end points (Fig. 6)

CASE4 = Study(
    key="case4",
    title="Case IV: distinct end points, bottleneck at an aggregation-to-ToR link",
    paper="Sec. 3.2.4, Fig. 6",
    variants=(Variant("distinct end points", scenario="case4_distinct"),),
    check=few_below_many("the lone flow on its input port gets less than the mean of the 12 flows on the other"),
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

def check_case5(t: pl.DataFrame) -> list[Verdict]:
    out = []
    for r in t.to_dicts():
        if r["variant"] == "50 % background":
            out.append(Verdict("50 %: unfairness tapers off (ratio closer to 1 than at 10 %)",
                               f"{ratio_text(r)} vs 10 %: {row(t, '10 % background')['ratio_median']:.2f}",
                               abs(1 - r["ratio_median"]) < abs(1 - row(t, "10 % background")["ratio_median"])))
        else:
            out.append(Verdict(f"{r['variant']}: the 2-hop flow still below the 6-hop mean (paper: 4x and 2.5x)",
                               ratio_text(r), r["ratio_median"] < 1.0))
    return out


CASE5 = Study(
    key="case5",
    title="Case V: background traffic at 10, 20, 50 % of the bottleneck, plus two 4-hop flows",
    paper="Sec. 3.2.5, Fig. 7",
    variants=tuple(
        Variant(f"{p} % background", (f"traffic.0.load={p / 100}",), scenario="case5_background") for p in (10, 20, 50)
    ),
    check=check_case5,
    extra_tags=("4-hop",),
    notes="Background flows between random host pairs, sizes from the data-mining distribution "
    "(VL2, as the paper's [13]), Poisson arrivals with the mean inter-arrival time set for the "
    "given fraction of a 1 Gbps link per host.",
)


# ---------------------------------------------------------------- Case VI: buffers, RTT, ports

LONE_FLOWS_LOSE = few_below_many("the lone flow(s) get less than the mean of the many")

CASE6_BUFFERS = Study(
    key="case6_buffers",
    title="Case VI: buffers of 32, 64, 128 KB",
    paper="Sec. 3.2.6",
    variants=tuple(Variant(f"{b} buffer", (f"switch.buffer={b}",)) for b in ("32KB", "64KB", "128KB")),
    check=LONE_FLOWS_LOSE,
)

CASE6_RTT = Study(
    key="case6_rtt",
    title="Case VI: equal RTTs, twelve flows from one 4-hop host vs one from another",
    paper="Sec. 3.2.6",
    variants=(Variant("equal RTTs", scenario="case6_equal_rtt"),),
    check=LONE_FLOWS_LOSE,
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
    check=LONE_FLOWS_LOSE,
    notes="Case I with per-flow ECMP: the 6-hop flows reach tor0 through both aggregation "
    "switches, so three input ports (h1, agg0, agg1) feed tor0:0.",
)

STUDIES = (MITIGATIONS, CASE2, CASE3, CASE4, CASE5, CASE6_BUFFERS, CASE6_RTT, CASE6_PORTS)
