"""`corral reproduce hcc --quick`: the folder it writes and the verdict of every claim. A
claim whose verdict changes fails the test (KNOWN lists the quick run's verdicts other than met, with
the reasons in docs/reproductions/hcc.md), so that a result never changes silently."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_verdicts_pinned, corral_cli

# Verdicts of the quick run other than met, by (figure, start of claim).
KNOWN = {
    ("Fig. 4d", "HCC's core queue, median of 1 "): "off_conditions",
    ("Fig. 4d", "newreno: share of 1 ms samples"): "off_conditions",
    ("Fig. 4d", "cubic: share of 1 ms samples w"): "off_conditions",
    ("Fig. 4d", "DCTCP's core queue, median of "): "off_conditions",
    ("Fig. 4c", "HCC's mean FCT below newreno's"): "off_conditions",
    ("Fig. 4c", "HCC's p99 FCT below newreno's "): "off_conditions",
    ("Fig. 4c", "HCC's mean FCT below cubic's b"): "off_conditions",
    ("Fig. 4c", "HCC's p99 FCT below cubic's by"): "off_conditions",
    ("Fig. 4c", "HCC's mean FCT below dctcp's b"): "off_conditions",
    ("Fig. 4c", "HCC's p99 FCT below dctcp's by"): "off_conditions",
    ("Fig. 4e", "HCC: share of 1 ms windows with Jain's index above 0.8"): "off_conditions",
    ("Fig. 4e", "HCC: share of 1 ms windows with Jain's index above 0.9"): "off_conditions",
    ("Fig. 4e", "newreno: mean Jain's index of "): "off_conditions",
    ("Fig. 4e", "cubic: mean Jain's index of 1 "): "off_conditions",
    ("Fig. 4e", "dctcp: mean Jain's index of 1 "): "off_conditions",
    ("Fig. 4g-h", "root received bytes, HCC-2 ove"): "off_conditions",
    ("Fig. 4g-h", "root sent bytes, HCC-2 over th"): "off_conditions",
    ("Fig. 4g-h", "root received bytes grow as the cycles shorten: HCC-2 o"): "off_conditions",
    ("Fig. 4g-h", "root received bytes grow as the cycles shorten: HCC-3 o"): "off_conditions",
    ("Fig. 4g-h", "root sent bytes grow as the cycles shorten: HCC-2 "): "off_conditions",
    ("Fig. 4g-h", "root sent bytes grow as the cycles shorten: HCC-3 "): "off_conditions",
    ("Fig. 4g", "no quantization: root received"): "off_conditions",
    ("Fig. 4h", "no quantization: root sent byt"): "off_conditions",
    ("Fig. 5", "gRPC: HCC's mean response FCT below newr"): "missed",
    ("Fig. 5", "gRPC: HCC's mean response FCT below cubi"): "missed",
    ("Fig. 5", "gRPC: HCC's p99 response FCT below cubic"): "direction",
    ("Fig. 5", "gRPC: HCC's mean response FCT below dctc"): "missed",
    ("Fig. 5", "gRPC: HCC's p99 response FCT below dctcp"): "direction",
    ("Fig. 5", "gRPC: HCC's core queue, median"): "missed",
    ("Fig. 4d", "HCC's core queue, p99 of 1 ms "): "off_conditions",
    ("Fig. 4f", "HCC's p99 one-way packet laten"): "off_conditions",
}


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hcc") / "out"
    proc = corral_cli("reproduce", "hcc", "--quick", "-o", out)
    assert proc.returncode == 0, proc.stderr
    return out


def test_quick_run_writes_the_report_plots_and_tables(quick: Path) -> None:
    for name in (
        "report.md",
        "claims.json",
        "report.json",
        "runs.csv",
        "fct_cdf.png",
        "steps.png",
        "overhead.png",
        "grpc.png",
        "websearch_series.png",
    ):
        assert (quick / name).is_file(), name
    assert not (quick / "summary.json").exists()
    assert "| verdict | paper rows |" in (quick / "report.md").read_text()


def test_claim_verdicts_do_not_change_silently(quick: Path) -> None:
    assert_verdicts_pinned(quick / "claims.json", KNOWN)


def test_convergence_is_the_start_of_the_first_window_that_stays_busy() -> None:
    """10 us samples: idle for 200 us after the step, then busy: converged at 200 us, and
    busy in every window after; a port that never stays busy for 1 ms has no time."""
    import polars as pl
    from corral.experiments import hcc

    times = [0.01 + 1e-5 * (k + 1) for k in range(1000)]
    util = pl.DataFrame({"time_s": times, "util": [0.2 if k < 20 else 0.99 for k in range(1000)]})
    at, busy = hcc.convergence(util, 0.01, 0.02)
    assert abs(at - 200e-6) < 1e-9 and busy == 1.0
    flapping = pl.DataFrame({"time_s": times, "util": [0.99 if (k // 50) % 2 else 0.2 for k in range(1000)]})
    assert hcc.convergence(flapping, 0.01, 0.02) == (None, None)


def test_quantization_merges_backlog_demands() -> None:
    """Demands from backlog (a leaf demands its bytes not yet sent over its host agent's
    Cycle_parent, capped at its line rate): web-search flows near their end demand many
    different rates, the bins merge them, and the root receives more without quantization
    (1984 against 1416 bytes, seed 1). With every flow demanding its line rate the capped
    demands take one or two values and quantization saves nothing (1280 against 1352)."""
    from corral.api import run
    from corral.experiments.hcc import WEBSEARCH

    def root(demand: str, bins: int) -> int:
        res = run(WEBSEARCH, overrides=("seed=1", f"scheme.demand={demand}", f"scheme.bins={bins}"))
        return res.summary["scheme"]["counters"]["root_received_bytes"]

    assert root("backlog", 0) > 1.2 * root("backlog", 16)
    assert root("line", 0) < 1.05 * root("line", 16)
