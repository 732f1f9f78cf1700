"""The TCP Outcast paper's Cases II-VI and mitigations (Sec. 3.2.2-3.2.6, Sec. 5, Table 2).

Each study runs its variants with seeds 1..5 and its claims rows judge the few/many goodput
ratio per seed against the paper's band or direction (`outcast_studies`; the verdict rules
are `claims`'). The median, not the mean: the taildrop dynamics are bistable and one seed in
five can lock the many flows out instead, which would dominate a mean. Each study is one
test, so a change names the claim and the numbers.
"""

from __future__ import annotations

import pytest
from corral.experiments import claims as cl
from corral.experiments import outcast, outcast_report, outcast_studies
from corral.experiments.runner import run_jobs

# The studies' five-seed runs (about 10 s of CPU) pin verdicts of the paper, as the other
# papers' quick runs do: `make test-papers` runs them (tests/conftest.py).
pytestmark = pytest.mark.papers

SEEDS = [1, 2, 3, 4, 5]


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return run_jobs(outcast_report.study_jobs(SEEDS, ()), outcast_report.measure_study_run)


@pytest.fixture(scope="module")
def by_study(rows) -> dict[str, list[dict]]:
    return outcast_report.study_claims(rows, cl.Claims(outcast.PAPER, table=outcast.TABLE))


# Verdicts other than met, by row id (docs/reproductions/outcast.md explains each). Like a
# strict xfail: the test fails if one of these changes or another row stops being met. The
# ids ending in "@16 KB queue" are the sensitivity rows of corral's earlier 16 KB setup.
KNOWN: dict[str, str] = {
    # Fig. 2 under the testbed's CUBIC: the 2-hop flow gets 0.08 of the 6-hop mean (paper
    # 1/7.5: 3 of 5 seeds on the paper's side) and the 4-hop flows 0.02 (paper 1/2): too much.
    "fig2-f1": "missed",
    "fig2-f23": "missed",
    # RED in ns-2's 30-packet queue meets all three rows; in 16 KB (about 10 packets, under
    # max_th = 15) the hard limit does most dropping: 49 % single drops, no RTT bias.
    "red-single@RED, 16 KB queue": "missed",
    "red-similar@RED, 16 KB queue": "missed",
    "red-bias@RED, 16 KB queue": "missed",
    # Tail-drop SFQ takes the tails of the 2-hop flow's windows inside its bucket (0.14 in
    # 30 packets, 0.26 in 16 KB); with Linux's head drop and perturbation (sfq-head) it is fair.
    # Its consecutive drops and drops per flow lead the 6-hop flows' in 2 and 3 seeds of 5
    # (in 16 KB the consecutive drops in every seed).
    "sfq-fair": "missed",
    "sfq-2drops": "missed",
    "sfq-consecutive": "missed",
    "sfq-more-drops": "missed",
    "sfq-fair@SFQ, 16 KB queue": "missed",
    "sfq-2drops@SFQ, 16 KB queue": "missed",
    "sfq-more-drops@SFQ, 16 KB queue": "missed",
    # Pacing in 30 packets: 0.24 against the paper's 1/2 (effect 2.07x the paper's, just past
    # the factor 2); in 16 KB: 0.97, nearly fair (0.04x). It still halves taildrop's
    # unfairness in every seed (pacing-reduces met).
    "pacing": "missed",
    "pacing@pacing, 16 KB queue": "missed",
    # Equal-length routing on the testbed's CUBIC: random core 1.34, dest bits 0.04 (every
    # flow to h0 shares core0, where the 2-hop flow is alone on one input port again; it
    # loses 0.36 as many packets as a 6-hop flow, and 8 % of one port's drop episodes there
    # are 4 drops or longer).
    "equal-random": "missed",
    "equal-bits": "missed",
    "equal-bits-drops": "missed",
    "equal-bits-longruns": "missed",
    # SFQ and destination-bit equal-length routing alleviate taildrop's unfairness in only
    # 3 seeds of 5.
    "alleviate-sfq": "missed",
    "alleviate-equal-bits": "missed",
    # Cases II, III, VI and Fig. 8 under CUBIC: the paper's sign, a larger size (10 flows per
    # host 0.03 against 1/3), or bistable seeds (3 of 5 on the paper's side: 30 flows per
    # host, 200 ms after, CUBIC without SACK; 2 of 5 with 512 KB).
    "case2-10": "missed",
    "case2-30": "missed",
    "case3-after200": "missed",
    "case6-512KB": "missed",
    "fig8-cubic-nosack": "missed",
    # Fig. 11(b): 3 of the 4 seeds where both ports dropped (the fifth has no 6-hop share).
    "fig11b": "missed",
    # Case V: no background flow reaches h0 in 0.5 s at 10 and 20 % (the bottleneck's load
    # check fails), so its rows are off the paper's conditions.
    "case5-10": "off_conditions",
    "case5-20": "off_conditions",
    "case5-50": "off_conditions",
}


@pytest.mark.parametrize("key", [s.key for s in outcast_studies.STUDIES])
def test_study_claims(by_study, key) -> None:
    rows = by_study[key]
    assert rows, key
    changed = [f"{r['id']}: {r['verdict']} ({cl.measured_text(r)})" for r in rows if r["verdict"] != KNOWN.get(r["id"], "met")]
    assert not changed, "verdicts other than pinned (update KNOWN and docs/reproductions/outcast.md):\n" + "\n".join(changed)


def test_every_variant_ran_every_seed(rows) -> None:
    for study in outcast_studies.STUDIES:
        table = outcast_report.variant_table(rows, study)
        assert table["variant"].to_list() == [v.label for v in study.variants]
        assert set(table["seeds"].to_list()) == {len(SEEDS)}


def test_window_excludes_the_solo_start() -> None:
    # Case III measures from the moment all flows are active: a 2-hop flow that runs alone for
    # 100 ms must not get credit for that period.
    study = next(s for s in outcast_studies.STUDIES if s.key == "case3")
    variant = study.variants[0]
    job = outcast_report.study_jobs([1], (), (study,))[0]
    assert job.labels["variant"] == variant.label
    from corral import run

    res = run(job.scenario, overrides=job.overrides)
    whole = res.flows.filter(res.flows["tag"] == "2-hop")["goodput_bps"][0]
    windowed = outcast_report.measure_study_run(job, res)["goodput_few_bps"]
    assert windowed < whole


def _fake_runs(**cols) -> outcast_studies.StudyRuns:
    """A study's runs from per-seed columns (one dict per seed), for the row helpers."""
    n = len(next(iter(cols.values())))
    runs = [{"seed": i + 1, **{k: v[i] for k, v in cols.items()}} for i in range(n)]
    return outcast_studies.StudyRuns("fake", "Fig. 0", {"v": runs})


def test_a_port_without_drops_has_no_share_not_zero() -> None:
    # Seed 2's few port and seed 3's both ports dropped nothing: their shares are missing.
    s = _fake_runs(
        share_ge4_few=[0.10, None, None],
        share_ge4_many=[0.02, 0.08, None],
        share_1_few=[0.90, None, None],
        share_1_many=[0.95, 0.50, None],
    )
    assert outcast_studies._long_runs(s, "v") == [10.0, 8.0]
    assert outcast_studies._single_drops(s, "v") == [90.0, 50.0]
    assert outcast_studies._consecutive_points(s, "v") == pytest.approx([5.0])


def test_toward_fair_counts_a_reversal_as_unfair() -> None:
    # Per seed |ln ratio| over the base's: 1/4 -> 1/2 tapers (0.5); 1/4 -> 4 does not (1.0);
    # 1/4 -> 16 is further from even (2.0); a locked-out side (ratio 0) counts, a NaN does not.
    s = outcast_studies.StudyRuns(
        "fake",
        "Fig. 0",
        {
            "base": [{"seed": i, "ratio": 0.25} for i in (1, 2, 3, 4, 5)],
            "v": [{"seed": i, "ratio": r} for i, r in zip((1, 2, 3, 4, 5), (0.5, 4.0, 16.0, 0.0, float("nan")))],
        },
    )
    got = outcast_studies.toward_fair(s, "v", "base")
    assert got[:3] == pytest.approx([0.5, 1.0, 2.0])
    assert len(got) == 4 and got[3] > 5
