"""`corral run --no-plots` against the engine alone, run by `python bench/run.py --only cli`.

The speed issue's goal: the command line on the k=8 case (`fat_tree_k8_dctcp.toml`) takes at
most 1.15x the engine's time, start-up, building, results and writing Parquet included. Each
round runs the engine binary `run_scenario` (which builds, runs and prints the summary) and
then `corral run SCENARIO --no-plots -o DIR` (the installed console script, into a fresh
folder under a temporary directory that is removed afterwards), both as whole processes;
the ratio of the medians of their wall times is reported, and the median of the per-round
ratios (less moved by the machine's fast and slow spells).
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from side_by_side import engine_process, pairwise, runs_text, wall

SCENARIO = Path(__file__).resolve().parent / "fat_tree_k8_dctcp.toml"


def bench_cli(engine: Path, runs: int, scenario: Path = SCENARIO) -> dict:
    """Interleaved wall times of the engine binary and of `corral run --no-plots`."""
    corral = shutil.which("corral") or str(Path(sys.executable).with_name("corral"))
    bare, cli = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            bare.append(engine_process(engine, scenario))
            cli.append(wall([corral, "run", str(scenario), "--no-plots", "-o", str(Path(tmp) / f"run{i}")]))
            print(f"  cli {i + 1}/{runs}: engine {bare[-1]:.3f} s, corral run {cli[-1]:.3f} s", file=sys.stderr, flush=True)
    return {
        "scenario": scenario.name,
        "engine_s": bare,
        "cli_s": cli,
        "ratio": statistics.median(cli) / statistics.median(bare),
        "pairwise": pairwise(cli, bare),
    }


def report(r: dict) -> str:
    return (
        f"[cli] corral run --no-plots against the engine binary, {r['scenario']} "
        f"(whole processes, interleaved, median of {len(r['cli_s'])})\n"
        f"  engine {statistics.median(r['engine_s']):.3f} s, corral run {statistics.median(r['cli_s']):.3f} s"
        f" -> {r['ratio']:.2f}x, per round {r['pairwise']:.2f}x  (goal <= 1.15)\n"
        f"  runs: engine {runs_text(r['engine_s'])}; corral run {runs_text(r['cli_s'])}"
    )
