"""The run estimates against what runs really take: for each scenario, the estimated peak
memory of `corral run` (`corral.estimates.memory`: the core's parts, plus plots) against the
peak resident memory of a whole `corral run` process, and the estimated events against the
events the run had.

    .venv/bin/python bench/memory_estimate.py [--plots]

The scenarios are the benchmark's, the package's own (long ones cut short) and the stress
case of the memory issue (goodput sampled every 10 ns). The test suite checks a few of them
(tests/test_estimates.py: within 1.5x).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from corral import api, estimates

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "python" / "corral" / "scenarios"
TINY = SCENARIOS / "examples" / "dumbbell.toml"

CASES = [
    (TINY, []),
    (TINY, ["metrics.interval=10ns", "duration=20ms"]),
    (ROOT / "bench" / "dumbbell_newreno.toml", ["duration=1s"]),
    (ROOT / "bench" / "fat_tree_k8_dctcp.toml", ["duration=20ms"]),
    (ROOT / "bench" / "fat_tree_k8_websearch.toml", ["duration=50ms"]),
    (SCENARIOS / "fct" / "websearch_fattree.toml", []),
    (SCENARIOS / "fct" / "websearch_fattree.toml", ["mode=fluid"]),
    (SCENARIOS / "outcast" / "case1_12.toml", []),
    (SCENARIOS / "hcc" / "grpc.toml", ["duration=100ms"]),
    (SCENARIOS / "r2c2" / "rack.toml", ["duration=20ms"]),
    (SCENARIOS / "scc" / "fabric.toml", ["duration=100ms"]),
]


# Starts the command from a small process and prints its peak RSS in KB and its exit code: a
# child forked from this process, which has built the scenarios, would count this process's
# pages, shared until its exec, as its own.
MEASURE = """
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
_, status, usage = os.wait4(p.pid, 0)
print(usage.ru_maxrss, os.waitstatus_to_exitcode(status), p.stderr.read().decode()[-300:])
"""


def measure(path: Path, overrides: list[str], plots: bool) -> tuple[float, dict, str]:
    """Peak resident MB of `corral run`, its summary, and its stderr."""
    out = Path(tempfile.mkdtemp()) / "run"
    args = [sys.executable, "-m", "corral.cli", "run", str(path), "-o", str(out)]
    args += [x for o in overrides for x in ("--set", o)] + ([] if plots else ["--no-plots"])
    kb, code, err = subprocess.run(
        [sys.executable, "-c", MEASURE, *args], capture_output=True, text=True, check=True
    ).stdout.split(" ", 2)
    summary = json.loads((out / "summary.json").read_text()) if code == "0" else {}
    shutil.rmtree(out.parent, ignore_errors=True)
    return int(kb) * 1024 / 1e6, summary, err


def main() -> None:
    plots = "--plots" in sys.argv
    print(f"{'scenario':34} {'overrides':34} {'est MB':>8} {'peak MB':>8} {'peak/est':>8} {'est events':>13} {'events':>13}")
    for path, overrides in CASES:
        sim = api.simulation(path, overrides)
        est, events = estimates.memory(sim, plots=plots) / 1e6, sim.estimated_events
        del sim
        peak, summary, err = measure(path, overrides, plots)
        name = f"{path.parent.name}/{path.name}"
        print(
            f"{name:34} {' '.join(overrides):34} {est:8.0f} {peak:8.0f} {peak / est:8.2f} {events:13,} {summary.get('events', 0):13,}"
            + (f"  {err.strip()[-80:]}" if not summary else ""),
            flush=True,
        )


if __name__ == "__main__":
    main()
