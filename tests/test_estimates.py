"""Estimates before the work (issue "Never delete what corral did not write ... estimates
that hold"): the memory estimate is within 1.5x of the measured peak of a `corral run`
process, a long run or sweep says so up front, a sweep refuses more runs than its limit
before building anything, and a huge seed count costs no memory.

The memory cases: the valid scenarios of the fuzz corpus (tests/test_fuzz.py), the
benchmark's k=8 web-search fat-tree cut short, and the stress case of the issue (goodput
sampled every 10 ns), with and without plots. `bench/memory_estimate.py` prints the same
comparison over more scenarios.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import corral
import pytest
from conftest import TINY, corral_cli
from corral import api, estimates
from test_fuzz import SEEDS

ROOT = Path(__file__).resolve().parent.parent


# Starts the command from a small process and prints its peak RSS in KB: a child forked from
# this large test process would count the test's pages, shared until its exec, as its own.
MEASURE = """
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
_, status, usage = os.wait4(p.pid, 0)
code = os.waitstatus_to_exitcode(status)
print(usage.ru_maxrss if code == 0 else -1, p.stderr.read().decode()[-500:])
"""


def peak_mb(args: list[str], cwd: Path) -> float:
    """Peak resident memory (MB) of a `corral` CLI process; it must succeed."""
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, sys.executable, "-m", "corral.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    kb, _, err = out.partition(" ")
    assert int(kb) > 0, err
    return int(kb) * 1024 / 1e6


def _valid(text: str) -> bool:
    try:
        api.simulation(text)
    except corral.ScenarioError:
        return False
    return True


CASES = [
    *((f"fuzz-seed-{i}", text, []) for i, text in enumerate(SEEDS) if _valid(text)),
    ("websearch-k8", (ROOT / "bench" / "fat_tree_k8_websearch.toml").read_text(), ["duration=10ms"]),
    ("goodput-every-10ns", TINY, ["metrics.interval=10ns"]),
]


@pytest.mark.parametrize("name,text,overrides", CASES, ids=[c[0] for c in CASES])
def test_memory_estimate_is_within_1_5x_of_the_measured_peak(tmp_path: Path, name: str, text: str, overrides: list[str]) -> None:
    (tmp_path / "s.toml").write_text(text)
    plots = name == "fuzz-seed-0"  # one case with plots: they are counted too
    est = estimates.memory(api.simulation(tmp_path / "s.toml", overrides), plots=plots) / 1e6
    args = ["run", "s.toml", "-o", "out", *(x for o in overrides for x in ("--set", o))] + ([] if plots else ["--no-plots"])
    measured = peak_mb(args, tmp_path)
    assert measured / 1.5 <= est <= measured * 1.5, f"{name}: estimated {est:.0f} MB, measured {measured:.0f} MB"


def test_a_long_run_says_so_before_it_starts(tmp_path: Path) -> None:
    """100 s of a k=4 fat-tree's traffic: the note comes first, and Ctrl-C would stop it; the
    test only builds it (the note is printed before the event loop starts)."""
    sim = api.simulation(ROOT / "python" / "corral" / "scenarios" / "fct" / "websearch_fattree.toml", ["duration=100s"])
    seconds = estimates.wall_seconds(sim)
    note = estimates.long_run_note(seconds, events=sim.estimated_events)
    assert seconds > 600 and note and ("minutes" in note or "hours" in note), (seconds, note)
    short = api.simulation(TINY)
    assert estimates.long_run_note(estimates.wall_seconds(short)) is None


def test_the_event_estimate_is_near_the_events_a_run_has() -> None:
    for text, overrides in ((TINY, []), ((ROOT / "bench" / "fat_tree_k8_websearch.toml").read_text(), ["duration=5ms"])):
        sim = api.simulation(text, overrides)
        guess = sim.estimated_events
        api.simulate(sim)
        assert sim.events / 3 <= guess <= sim.events * 3, (guess, sim.events)


def test_a_sweep_of_too_many_runs_is_refused_at_once(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(TINY)
    (tmp_path / "sweep.toml").write_text('scenario = "s.toml"\nseeds = 100000000\n')
    proc = corral_cli("sweep", "sweep.toml", "-o", "out", cwd=tmp_path)
    assert proc.returncode == 2 and "100,000,000 runs" in proc.stderr and "--max-runs" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out").exists()
    from corral.sweep import SweepError, load, run_sweep

    assert load(tmp_path / "sweep.toml").size() == 100_000_000  # a lazy range, not a list
    (tmp_path / "sweep.toml").write_text('scenario = "s.toml"\nseeds = 3\n[set]\nduration = "1ms"\n')
    with pytest.raises(SweepError, match="more than the limit of 2"):
        run_sweep(tmp_path / "sweep.toml", tmp_path / "out", max_runs=2, processes=False)


def test_a_memory_limit_below_the_process_names_the_option(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(TINY)
    proc = corral_cli("run", "s.toml", "-o", "out", "--max-memory", "1KB", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith("error: --max-memory: 1000 bytes is less than any run"), proc.stderr


def test_plots_that_would_not_fit_are_skipped_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(TINY)
    sim = api.simulation(TINY)
    limit = estimates.memory(sim) + estimates.PLOT_BYTES // 2  # room for the run, not its plots
    proc = corral_cli("run", "s.toml", "-o", "out", "--max-memory", str(limit), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "note: plots skipped" in proc.stderr
    assert (tmp_path / "out" / "flows.parquet").is_file() and not list((tmp_path / "out").glob("*.png"))
