"""The TCP Outcast paper's qualitative results on the shipped scenarios (Case I, Figs. 3, 11).

Every case runs with seeds 1..5 (0.5 s simulated each) and the claims are checked on the
medians over seeds (one seed's lockout moves a mean by a factor of 30), except where a per-run
bound is stated. The tolerances are deliberately
loose versions of the paper's numbers (ratio 1/2 with 6 and 1/7 with 12 six-hop flows): the
tests check that the simulator shows the effect, not that it matches a testbed to the digit.
If one fails, report the measured numbers rather than loosening the bound.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from conftest import corral_cli
from corral.experiments import outcast
from corral.experiments.runner import run_jobs

SEEDS = [1, 2, 3, 4, 5]


@pytest.fixture(scope="module")
def report() -> outcast.Report:
    # Case I under the testbed's TCP (the paper's setup for Fig. 3) and ns-2's (sensitivity).
    base_jobs = [job for job in outcast.jobs(SEEDS, quick=False) if job.labels["buffer"] is None]
    return outcast.aggregate(run_jobs(base_jobs, outcast.measure), SEEDS, quick=False)


# Case I's verdicts (docs/reproductions/outcast.md explains each): pinned, so a change fails.
CASE1_VERDICTS = {
    # The testbed's CUBIC with SACK: the 12-flow median 0.13 sits near the paper's 1/7, but
    # the seeds are bistable (one in band, four on the paper's side): direction, effect 1.04.
    # These runs are also Fig. 8's CUBIC with SACK (judged once, here).
    "fig3f": "direction",
    # Six 6-hop flows shut the 2-hop flow out further than the paper's 1/2 (0.08).
    "fig3e": "missed",
    # With two 6-hop flows the 2-hop flow gets less, not more, in the first 0.1 s (0.28).
    "fig3d": "missed",
    # Judged on the seeds where the 2-hop flow led early (fig3d's premise): none did.
    "fig3d-later": "missed",
    # "Increasingly worse" from two to six to twelve: below 1 in 3 and 2 seeds of 5.
    "fig3-worse-6": "missed",
    "fig3-worse-12": "missed",
    "fig11a": "met",
    # 33 ms between runs of 3 or more drops (50 ms counting from 4) against the testbed's 5 ms.
    "blackout-interval": "missed",
    "blackout-interval@4 drops": "missed",
    # ns-2's NewReno without SACK (corral's earlier setup): 0.42, 0.98 and 1.21; the early
    # lead with two 6-hop flows grows after 0.1 s instead of falling (4.1).
    "fig3f@ns-2 TCP": "missed",
    "fig3e@ns-2 TCP": "missed",
    "fig3d@ns-2 TCP": "met",
    "fig3d-later@ns-2 TCP": "missed",
    # Without the two jitters every seed runs the same: the 2-hop flow starves in every case
    # (0.071, 0.039, 0.019 with twelve, six, two 6-hop flows).
    "fig3f@no jitter": "direction",
    "fig3e@no jitter": "missed",
    "fig3d@no jitter": "missed",
    "fig3d-later@no jitter": "missed",
}


def test_case1_verdicts(report) -> None:
    got = {r["id"]: r["verdict"] for r in report.claims}
    changed = {k: (v, got.get(k)) for k, v in CASE1_VERDICTS.items() if got.get(k) != v}
    assert not changed, f"(pinned, measured): {changed}; rows: {[(r['id'], r['measured']) for r in report.claims]}"


def case(report: outcast.Report, name: str) -> dict:
    rows = report.cases.filter(pl.col("case") == name).to_dicts()
    assert len(rows) == 1, name
    return rows[0]


def test_twelve_six_hop_flows_starve_the_two_hop_flow(report) -> None:
    # Tolerance: paper Fig. 3(f) gives 1/7; we require the 2-hop flow to get at most half
    # of the mean 6-hop goodput, median of 5 seeds.
    row = case(report, "case1_12")
    assert row["ratio_median"] <= 0.5, row


# The dynamics are bistable (docs/reproductions/outcast.md): in 4 of 5 seeds the 2-hop flow gets
# 0.54-0.96 of the mean 6-hop goodput, but in seed 2 it locks the six 6-hop flows out (they
# sit in exponential RTO backoff) and the ratio is ~150. The median meets the claim; the mean
# (which earlier reports showed) did not.
def test_six_six_hop_flows_already_beat_the_two_hop_flow(report) -> None:
    # Tolerance: paper Fig. 3(e) gives 1/2; we require only ratio < 1 (median of 5 seeds).
    row = case(report, "case1_6")
    assert row["ratio_median"] < 1.0, row


# Known deviation: the 2-hop flow never starves (it gets 1.2-10x the 6-hop mean, the RTT bias
# the paper also sees early in Fig. 3(a)), but in some seeds one 6-hop flow falls below 25% of
# the fair share. strict: fails as soon as the simulator meets the claim.
@pytest.mark.xfail(
    strict=True, reason="a 6-hop flow falls below 25% of fair share in some seeds; see docs/reproductions/outcast.md"
)
def test_two_six_hop_flows_nobody_starves(report) -> None:
    # Tolerance: with 2 six-hop flows every flow, in every seed, gets >= 25% of the fair
    # share (bottleneck rate / 3) over the whole run.
    runs = report.runs.filter(pl.col("case") == "case1_2")
    fair = runs["fair_share_bps"][0]
    flows = report.flows.filter(pl.col("case") == "case1_2")
    assert flows.height == 3 * len(SEEDS)
    starving = flows.filter(pl.col("goodput_bps") < 0.25 * fair)
    assert starving.height == 0, (
        f"fair share {fair / 1e6:.0f} Mbps; starving flows (seed, tag, sender, Mbps): "
        f"{[(r['seed'], r['tag'], r['src'], round(r['goodput_bps'] / 1e6, 1)) for r in starving.iter_rows(named=True)]}"
    )


def test_two_hop_port_suffers_longer_drop_runs(report) -> None:
    # Fig. 11: the 2-hop flow's input port sees longer runs of consecutive drops than the
    # 6-hop flows' ports. Mean run length over all episodes of 5 seeds, 12-flow case.
    row = case(report, "case1_12")
    assert row["drop_run_mean_2hop"] is not None and row["drop_run_mean_6hop"] is not None, row
    assert row["drop_run_mean_2hop"] > row["drop_run_mean_6hop"], row


# Known deviation under the testbed's CUBIC with SACK: the starved 2-hop flow sits in long
# exponential backoffs, fewer timeouts than the 6-hop flows' (seeds 4 and 5: 12 and 9 against
# a 6-hop mean of 71 and 65, ratio 0.07 and 0.03), and seed 1 locks the 6-hop flows out
# instead; the mean count is then lower for the 2-hop flow. With ns-2's NewReno it held.
@pytest.mark.xfail(
    strict=True, reason="CUBIC's starved 2-hop flow times out less often, for longer; see docs/reproductions/outcast.md"
)
def test_two_hop_flow_times_out_more(report) -> None:
    # Sec. 4: the blackouts hit the lone 2-hop flow with timeouts. Mean over 5 seeds,
    # 12-flow case: more timeouts than the average 6-hop flow.
    row = case(report, "case1_12")
    assert row["timeouts_2hop"] > row["timeouts_6hop_mean"], row


def test_every_run_conserves_packets(report) -> None:
    # Exact: packets sent = delivered + dropped + in flight at the end, in every run.
    assert report.runs["packets_conserved"].all(), report.runs.select("case", "seed", "packets_conserved")


def test_bottleneck_stays_busy(report) -> None:
    # The unfairness is not idle capacity: the bottleneck (tor0 port 0, towards h0) is more
    # than 90% utilized in every run.
    assert set(report.runs["bottleneck"]) == {"tor0:0"}
    low = report.runs.filter(pl.col("utilization") <= 0.9)
    assert low.height == 0, low.select("case", "seed", "utilization")


# Under ns-2's NewReno (corral's earlier setup for Fig. 3) 3 us per link gave a mean of 0.52 over
# seeds (0.41-0.71), just above the bound, and was a strict xfail; under the testbed's CUBIC
# with SACK, the paper's setup for the figure, both delays meet it.
@pytest.mark.parametrize("link_delay", ["1500ns", "3us"])
def test_result_does_not_hinge_on_link_delay_phase(link_delay: str) -> None:
    # Robustness: the paper's effect comes from port blackout, not from one exact timing.
    # Moving every link's delay by a fraction of a packet time (12 us at 1 Gbps) must not
    # flip the 12-flow result: same tolerance as above, ratio <= 0.5 (mean of 5 seeds).
    jobs = [
        job
        for job in outcast.jobs(SEEDS, quick=False, overrides=(f"topology.link_delay={link_delay}",))
        if job.labels["buffer"] is None and job.labels["case"] == "case1_12" and job.labels["tcp"] == "testbed"
    ]
    ratios = [m["row"]["ratio"] for m in run_jobs(jobs, outcast.measure)]
    assert sum(ratios) / len(ratios) <= 0.5, f"ratio per seed: {[round(r, 2) for r in ratios]}"


# Outcast's quick reproduction (11 s of CPU), like the other papers' (tests/conftest.py).
@pytest.mark.papers
def test_reproduce_quick_writes_everything(tmp_path: Path) -> None:
    out = tmp_path / "outcast"
    proc = corral_cli("reproduce", "outcast", "-o", out, "--quick")
    assert proc.returncode == 0, proc.stderr
    for name in (
        "table.md",
        "table.csv",
        "sweep.md",
        "sweep.csv",
        "claims.json",
        "report.json",
        "throughput_bars.png",
        "drop_runs.png",
        "throughput_time.png",
        "sweep.png",
    ):
        assert (out / name).is_file(), name
    for case_name in outcast.CASES:
        assert (out / "runs" / case_name / "flows.parquet").is_file()
    table = pl.read_csv(out / "table.csv")
    assert table["case"].to_list() == list(outcast.CASES)
    sweep = pl.read_csv(out / "sweep.csv")
    assert sweep.height == len(outcast.SWEEP_BUFFERS) * len(outcast.SWEEP_ROUTING)
    assert "case1_12" in proc.stdout
    import json

    from test_claims_table import table_rows_written

    table_rows_written("outcast", json.loads((out / "claims.json").read_text()))
