"""`corral reproduce hcc --quick`: the folder it writes and the verdict of every claim. A
claim whose verdict changes fails the test (KNOWN_MISSES lists the quick run's misses, with
the reasons in README, "HCC"), so that a result never changes silently."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import assert_verdicts_pinned, corral_cli

# Claims the quick run (seed 1) misses, by (figure, start of claim).
KNOWN_MISSES = {
    ("Fig. 4d", "at 100 % load (5 Gbps core): NewReno and CUBIC"),
    ("Fig. 4d", "at 100 % load: DCTCP's median queue"),
    ("Fig. 4g", "no quantization: root receives"),
    ("Fig. 5", "gRPC: HCC's mean response FCT"),
    ("Fig. 5", "gRPC: HCC's queue p99"),
}


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hcc") / "out"
    proc = corral_cli("reproduce", "hcc", "--quick", "-o", out)
    assert proc.returncode == 0, proc.stderr
    return out


def test_quick_run_writes_the_report_plots_and_tables(quick: Path) -> None:
    for name in ("report.md", "runs.csv", "summary.json", "fct_cdf.png", "steps.png", "overhead.png", "grpc.png", "websearch_series.png"):
        assert (quick / name).is_file(), name
    assert "| figure | claim | corral measured | verdict | note |" in (quick / "report.md").read_text()


def test_claim_verdicts_do_not_change_silently(quick: Path) -> None:
    assert_verdicts_pinned(quick / "summary.json", KNOWN_MISSES)


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
