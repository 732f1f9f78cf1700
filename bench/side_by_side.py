"""Side-by-side timing of corral against htsim, and corral's cost per event as fat-trees grow.

`side_by_side(htsim, runs)`: each case runs as a whole process, corral and htsim interleaved
(A B A B ...), and the ratio of the medians of their wall times is reported (corral /
htsim: below 1 is faster), with the median of the per-round ratios beside it: the machine's
fast and slow spells hit both sides of a round alike, so that one moves less between
sessions. corral is timed twice per round, both sides paying their own
start-up: the engine alone, as the Rust binary `run_scenario` (built like the wheel, with
profile-guided optimization: `make bench`, or `scripts/pgo.py`; it builds, runs and prints
the summary), which is a compiled program like htsim's; and the Python process, which
imports the installed native module, builds the scenario, runs it and collects its result
tables (`bench/run.py`'s phases). htsim
is the DCTCP permutation binary, and for the dumbbell a driver of htsim's TCP
(`bench/htsim/`), built as `bench/README.md` says.

`scaling(ks, runs)`: the DCTCP permutation on k = 4, 8, 12, 16 fat-trees (`fat_tree_k8_dctcp.toml`
with `topology.k` and a duration that keeps each run near a second), each in its own process:
events, ns per event, peak resident memory.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"

# case -> (corral scenario, which htsim binary, its arguments). htsim's fat-tree size
# follows -nodes (k^3/4). "permutation" is htsim's DCTCP permutation main (--htsim),
# "dumbbell" bench/htsim/main_dumbbell_newreno_bench.cpp (--htsim-dumbbell).
HTSIM_CASES = {
    "fat_tree_k8_dctcp": (
        BENCH / "fat_tree_k8_dctcp.toml",
        "permutation",
        ["-nodes", "128", "-conns", "128", "-q", "100", "-end", "100"],
    ),
    "fat_tree_k16_dctcp": (
        BENCH / "fat_tree_k16_dctcp.toml",
        "permutation",
        ["-nodes", "1024", "-conns", "1024", "-q", "100", "-end", "20"],
    ),
    "dumbbell_newreno": (
        BENCH / "dumbbell_newreno.toml",
        "dumbbell",
        ["-conns", "8", "-speed", "1000", "-delay", "10", "-qs", "100", "-end", "10"],
    ),
}

# One corral run in a fresh process: prints events and peak RSS (KB) as JSON.
CORRAL_PROCESS = """
import json, resource, sys, time
import corral._core as core
path = sys.argv[1]
t0 = time.perf_counter()
sim = core.Simulation(open(path).read(), sys.argv[2:], path)
t1 = time.perf_counter()
sim.run_until(sim.duration_ps)
t2 = time.perf_counter()
res = sim.results()
print(json.dumps({"events": sim.events, "build_s": t1 - t0, "run_s": t2 - t1,
                  "packets_in_flight": res["summary"]["packets_in_flight"],
                  "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def corral_process(scenario: Path, overrides: list[str] = ()) -> tuple[float, dict]:
    """Wall time of one corral run as a whole process, and what it printed."""
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", CORRAL_PROCESS, str(scenario), *overrides], capture_output=True, text=True, check=True
    )
    return time.perf_counter() - t0, json.loads(out.stdout)


def wall(cmd: list[str], cwd: str | None = None) -> float:
    """Wall time of one run of `cmd` as a whole process (its output is discarded)."""
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, capture_output=True, check=True)
    return time.perf_counter() - t0


def engine_process(binary: Path, scenario: Path) -> float:
    """Wall time of one run of the engine binary `run_scenario`."""
    return wall([str(binary), str(scenario)])


def htsim_process(binary: Path, args: list[str], seed: int) -> float:
    """Wall time of one htsim run (its log goes to a temporary folder)."""
    with tempfile.TemporaryDirectory() as tmp:
        return wall([str(binary), "-o", str(Path(tmp) / "log.dat"), "-seed", str(seed), *args], cwd=tmp)


def side_by_side(binaries: dict[str, Path], runs: int, cases: list[str], engine: Path | None = None) -> list[dict]:
    """The cases whose htsim binary (by kind, as in HTSIM_CASES) is given; with `engine`
    (the `run_scenario` binary), the engine alone is timed too, in the same rounds."""
    results = []
    for name in cases:
        scenario, kind, args = HTSIM_CASES[name]
        ours, bare, theirs = [], [], []
        for i in range(runs):
            if engine:
                bare.append(engine_process(engine, scenario))
            ours.append(corral_process(scenario)[0])
            theirs.append(htsim_process(binaries[kind], args, seed=i + 1))
            print(
                f"  {name} {i + 1}/{runs}: corral {ours[-1]:.3f} s"
                + (f" (engine {bare[-1]:.3f} s)" if bare else "")
                + f", htsim {theirs[-1]:.3f} s",
                file=sys.stderr,
                flush=True,
            )
        row = {
            "case": name,
            "corral_s": ours,
            "htsim_s": theirs,
            "ratio": statistics.median(ours) / statistics.median(theirs),
            "pairwise": pairwise(ours, theirs),
        }
        if bare:
            row |= {
                "engine_s": bare,
                "engine_ratio": statistics.median(bare) / statistics.median(theirs),
                "engine_pairwise": pairwise(bare, theirs),
            }
        results.append(row)
    return results


def pairwise(ours: list[float], theirs: list[float]) -> float:
    """The median over rounds of ours / theirs."""
    return statistics.median(a / b for a, b in zip(ours, theirs))


def runs_text(xs: list[float]) -> str:
    return ", ".join(f"{x:.2f}" for x in xs)


def side_by_side_report(results: list[dict]) -> str:
    lines = [
        "corral against htsim (whole processes, interleaved; ratio of medians and median of the per-round ratios,"
        " below 1 = corral faster)"
    ]
    for r in results:
        htsim = statistics.median(r["htsim_s"])
        if "engine_s" in r:
            lines.append(
                f"  {r['case']:<20} engine {statistics.median(r['engine_s']):.3f} s, htsim {htsim:.3f} s"
                f" -> {r['engine_ratio']:.2f}, per round {r['engine_pairwise']:.2f}  (runs: engine {runs_text(r['engine_s'])})"
            )
        lines.append(
            f"  {r['case']:<20} python {statistics.median(r['corral_s']):.3f} s, htsim {htsim:.3f} s"
            f" -> {r['ratio']:.2f}, per round {r['pairwise']:.2f}  (runs: python {runs_text(r['corral_s'])}; htsim {runs_text(r['htsim_s'])})"
        )
    return "\n".join(lines)


# k -> simulated time keeping each run near a second on the 2-core machine.
SCALING = {4: "400ms", 8: "100ms", 12: "30ms", 16: "12ms"}


def scaling(runs: int) -> list[dict]:
    out = []
    for k, duration in SCALING.items():
        samples = [
            corral_process(BENCH / "fat_tree_k8_dctcp.toml", [f"topology.k={k}", f"duration={duration}"])[1] for _ in range(runs)
        ]
        run_s = statistics.median(s["run_s"] for s in samples)
        events = samples[0]["events"]
        out.append(
            {
                "k": k,
                "hosts": k**3 // 4,
                "duration": duration,
                "events": events,
                "run_s": run_s,
                "ns_per_event": run_s / events * 1e9,
                "peak_rss_mb": max(s["peak_rss_kb"] for s in samples) / 1024,
            }
        )
        print(f"  scaling k={k}: {out[-1]['ns_per_event']:.0f} ns/event", file=sys.stderr, flush=True)
    return out


def scaling_report(rows: list[dict]) -> str:
    lines = [
        "cost per event as the fat-tree grows (DCTCP permutation, fat_tree_k8_dctcp.toml with topology.k)",
        "   k  hosts  simulated      events   run s  ns/event  peak RSS MB",
    ]
    for r in rows:
        lines.append(
            f"  {r['k']:>2} {r['hosts']:>6} {r['duration']:>10} {r['events']:>11,} {r['run_s']:>7.3f} {r['ns_per_event']:>9.0f} {r['peak_rss_mb']:>12.1f}"
        )
    return "\n".join(lines)
