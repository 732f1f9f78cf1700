#!/usr/bin/env python3
"""corral benchmark: wall time, event rate and packet rate of reference scenarios.

    python bench/run.py              # the packet-level cases (median of 3 runs each), alloc
    python bench/run.py --runs 5     # more repetitions
    python bench/run.py --case fat_tree_k8_dctcp --json out.json
    python bench/run.py --only alloc # only the max-min allocation benchmark (bench/alloc.py)
    python bench/run.py --only packet
    python bench/run.py --only fluid # fluid vs packet level, bench/fat_tree_k8_websearch.toml:
                                     # median of --runs fluid runs against --packet-runs (1)
                                     # packet-level runs (--fluid-only: skip those);
                                     # --set KEY=VALUE overrides the scenario in both modes,
                                     # e.g. the k=16 case: --set topology.k=16
                                     # --set traffic.0.load=0.6 --set duration=50ms
    python bench/run.py --only scaling          # ns/event and peak RSS at k = 4, 8, 12, 16
    python bench/run.py --only memory           # bytes per flow and per packet in flight
    python bench/run.py --only cli --runs 9     # corral run --no-plots against the engine binary
    python bench/run.py --only packet --htsim PATH [--htsim-dumbbell PATH]
                                     # also corral against htsim, interleaved (bench/README.md):
                                     # the engine binary (--engine, default the one
                                     # `make bench` builds) and the Python process

Cases:
  (a) outcast_case1_12   TCP Outcast Case I, 12 six-hop flows + 1 two-hop flow into one
                         16 KB drop-tail port of a k=4 fat-tree, 1 Gbps, 0.5 s simulated
                         (python/corral/scenarios/outcast/case1_12.toml).
  (b) fat_tree_k8_dctcp  k=8 fat-tree (128 hosts), 10 Gbps, DCTCP, permutation of 128
                         long-lived flows, ECMP, 100 ms simulated (bench/fat_tree_k8_dctcp.toml).
  (c) fat_tree_k16_dctcp the same at k=16 (1024 hosts), 20 ms simulated.
  (d) dumbbell_newreno   eight NewReno flows through a 1 Gbps dumbbell, 10 s simulated.

With --htsim PATH, cases (b) and (c) also run as whole processes interleaved with htsim's
DCTCP permutation binary, and with --htsim-dumbbell PATH case (d) with the htsim driver of
bench/htsim/; the ratio of median wall times is printed (bench/side_by_side.py), for the engine
binary run_scenario (as the speed issue measured it) and for a Python process. Without them no
ratio to htsim is printed.

Each run goes through the installed native module directly (corral._core), as the Python
API does: build the simulation, run it to the end, collect the result tables. Timed phases:
  build   = core.Simulation(text, [], path)
  run     = sim.run_until(sim.duration_ps)       (the event loop, GIL released)
  results = sim.results()                         (tables and summary handed to Python)
  total   = build + run + results
Rates use the run phase ("events/s" = events processed / run seconds) and, in the total
column, the whole run. Nothing is written to disk.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# How the engine binary is built, like the wheel (profile-guided, scripts/pgo.py).
BUILD_ENGINE = "python3 scripts/pgo.py run -- cargo build --release -p corral --example run_scenario"

CASES = {
    "outcast_case1_12": ROOT / "python" / "corral" / "scenarios" / "outcast" / "case1_12.toml",
    "fat_tree_k8_dctcp": ROOT / "bench" / "fat_tree_k8_dctcp.toml",
    "fat_tree_k16_dctcp": ROOT / "bench" / "fat_tree_k16_dctcp.toml",
    "dumbbell_newreno": ROOT / "bench" / "dumbbell_newreno.toml",
}


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def nproc() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def one_run(core, text: str, path: Path, overrides=()) -> dict:
    t0 = time.perf_counter()
    sim = core.Simulation(text, list(overrides), str(path))
    t1 = time.perf_counter()
    sim.run_until(sim.duration_ps)
    t2 = time.perf_counter()
    res = sim.results()
    t3 = time.perf_counter()
    s = res["summary"]
    assert sim.finished, "the run did not reach its duration"
    # Packet conservation, as the Rust tests check it.
    assert s["packets_sent"] == s["packets_delivered"] + s["packets_dropped"] + s["packets_in_flight"], s
    return {
        "build_s": t1 - t0,
        "run_s": t2 - t1,
        "results_s": t3 - t2,
        "total_s": t3 - t0,
        "events": sim.events,
        "summary": s,
    }


def median_by(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def bench_case(core, name: str, path: Path, n: int) -> dict:
    text = path.read_text()
    runs = []
    for i in range(n):
        r = one_run(core, text, path)
        runs.append(r)
        print(f"  run {i + 1}/{n}: run {r['run_s']:.3f} s, total {r['total_s']:.3f} s", file=sys.stderr, flush=True)
    # Simulated outputs are deterministic: every repetition must agree.
    for r in runs[1:]:
        assert r["summary"] == runs[0]["summary"], "repeated runs disagree: nondeterminism"
    s = runs[0]["summary"]
    run_s = median_by(runs, "run_s")
    total_s = median_by(runs, "total_s")
    out = {
        "case": name,
        "scenario": str(path.relative_to(ROOT)),
        "runs": n,
        "sim_time_s": s["sim_time_s"],
        "flows": s["flows"],
        "events": runs[0]["events"],
        "packets_sent": s["packets_sent"],
        "packets_delivered": s["packets_delivered"],
        "data_packets_delivered": s["data_packets_delivered"],
        "packets_dropped": s["packets_dropped"],
        "jain_index": s["jain_index"],
        "median_build_s": median_by(runs, "build_s"),
        "median_run_s": run_s,
        "median_results_s": median_by(runs, "results_s"),
        "median_total_s": total_s,
        "all_run_s": [r["run_s"] for r in runs],
        "all_total_s": [r["total_s"] for r in runs],
        "events_per_s": runs[0]["events"] / run_s,
        "data_packets_delivered_per_s": s["data_packets_delivered"] / run_s,
        "packets_delivered_per_s": s["packets_delivered"] / run_s,
        "data_packets_delivered_per_s_total": s["data_packets_delivered"] / total_s,
        "packets_delivered_per_s_total": s["packets_delivered"] / total_s,
        "sim_seconds_per_wall_second": s["sim_time_s"] / run_s,
    }
    return out


def fmt_rate(x: float) -> str:
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= div:
            return f"{x / div:.2f} {unit}/s"
    return f"{x:.1f} /s"


def report(machine: dict, results: list[dict]) -> str:
    lines = [
        "corral benchmark",
        f"  machine : {machine['cpu']}, nproc {machine['nproc']}, {machine['platform']}",
        f"  python  : {machine['python']}, corral {machine['corral']}",
        "",
    ]
    for r in results:
        lines += [
            f"[{r['case']}] {r['scenario']}: {r['flows']} flows, {r['sim_time_s']:g} s simulated, median of {r['runs']}",
            f"  wall time      run {r['median_run_s']:.3f} s   total {r['median_total_s']:.3f} s"
            f"   (build {r['median_build_s'] * 1e3:.1f} ms, results {r['median_results_s'] * 1e3:.1f} ms)",
            f"  runs (run s)   {', '.join(f'{x:.3f}' for x in r['all_run_s'])}",
            f"  events         {r['events']:,}  -> {fmt_rate(r['events_per_s'])}",
            f"  data packets   {r['data_packets_delivered']:,} delivered -> {fmt_rate(r['data_packets_delivered_per_s'])}"
            f" (total wall: {fmt_rate(r['data_packets_delivered_per_s_total'])})",
            f"  all packets    {r['packets_delivered']:,} delivered (data + ACKs) -> {fmt_rate(r['packets_delivered_per_s'])}"
            f" (total wall: {fmt_rate(r['packets_delivered_per_s_total'])})",
            f"  dropped        {r['packets_dropped']:,};  Jain index {r['jain_index']:.3f};"
            f"  {r['sim_seconds_per_wall_second']:.3f} simulated s per wall s",
        ]
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="repetitions per case (median reported; default 3)")
    ap.add_argument("--case", choices=sorted(CASES), action="append", help="run only this case (repeatable)")
    ap.add_argument("--json", type=Path, help="also write the results as JSON to this file")
    ap.add_argument(
        "--only",
        choices=["packet", "alloc", "fluid", "scaling", "memory", "cli"],
        help="run only the packet-level cases, the allocation benchmark, fluid vs packet, the scaling table, "
        "memory, or corral run against the engine binary",
    )
    ap.add_argument("--htsim", type=Path, help="htsim's DCTCP permutation binary: also time it against corral, interleaved")
    ap.add_argument(
        "--htsim-dumbbell", type=Path, help="the htsim dumbbell driver (bench/htsim/): the dumbbell against htsim too"
    )
    ap.add_argument(
        "--engine",
        type=Path,
        default=ROOT / "target" / "pgo" / "use" / "release" / "examples" / "run_scenario",
        help="the engine binary timed beside htsim and corral run; default: the one `make bench` builds "
        f"like the wheel ({BUILD_ENGINE}), skipped beside htsim if absent",
    )
    ap.add_argument("--fluid-only", action="store_true", help="with --only fluid: time fluid mode only")
    ap.add_argument(
        "--packet-runs",
        type=int,
        default=1,
        help="with --only fluid: packet-level repetitions (median; default 1, ~50 s each); fluid mode takes --runs",
    )
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="with --only fluid: override a scenario key in both modes (repeatable), as `corral run -s` does",
    )
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    if args.packet_runs < 1:
        ap.error("--packet-runs must be at least 1")
    if args.set and args.only != "fluid":
        ap.error("--set goes with --only fluid")
    if bad := [s for s in args.set if "=" not in s]:
        ap.error(f"--set takes KEY=VALUE, got {bad[0]!r}")

    try:
        import corral._core as core
    except ImportError as e:
        print(f"cannot import corral._core ({e}); install the package first: cd {ROOT} && pip install -e .", file=sys.stderr)
        return 1

    machine = {
        "cpu": cpu_model(),
        "nproc": nproc(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "corral": core.version() if hasattr(core, "version") else "?",
    }
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import side_by_side

    results = []
    cases = [] if args.only in ("alloc", "fluid", "scaling", "memory", "cli") else (args.case or list(CASES))
    for name in cases:
        print(f"{name}: {args.runs} runs ...", file=sys.stderr, flush=True)
        results.append(bench_case(core, name, CASES[name], args.runs))
    print(report(machine, results))
    htsim_results = None
    binaries = {kind: path for kind, path in (("permutation", args.htsim), ("dumbbell", args.htsim_dumbbell)) if path}
    if binaries:
        with_htsim = [c for c in cases if c in side_by_side.HTSIM_CASES and side_by_side.HTSIM_CASES[c][1] in binaries]
        print(f"htsim side by side: {', '.join(with_htsim)} ...", file=sys.stderr, flush=True)
        engine = args.engine if args.engine.is_file() else None
        if engine is None:
            print(
                f"no engine binary at {args.engine}: timing the Python process only ({BUILD_ENGINE})", file=sys.stderr, flush=True
            )
        htsim_results = side_by_side.side_by_side(binaries, args.runs, with_htsim, engine)
        print(side_by_side.side_by_side_report(htsim_results) + "\n")
    scaling_results = None
    if args.only == "scaling":
        scaling_results = side_by_side.scaling(args.runs)
        print(side_by_side.scaling_report(scaling_results))
    memory_results = None
    if args.only == "memory":
        import memory

        memory_results = memory.bench_memory()
        print(memory.report(memory_results))
    cli_results = None
    if args.only == "cli":
        if not args.engine.is_file():
            print(f"no engine binary at {args.engine}: {BUILD_ENGINE}", file=sys.stderr)
            return 1
        import cli as cli_bench

        cli_results = cli_bench.bench_cli(args.engine, args.runs)
        print(cli_bench.report(cli_results))
    fluid_results = None
    if args.only == "fluid":
        path = ROOT / "bench" / "fat_tree_k8_websearch.toml"
        text = path.read_text()
        fluid_results = {}
        for mode in ["fluid"] + ([] if args.fluid_only else ["packet"]):
            n = args.runs if mode == "fluid" else args.packet_runs
            print(f"fluid bench: mode {mode}, {n} runs ...", file=sys.stderr, flush=True)
            try:
                runs = [one_run(core, text, path, [*args.set, f"mode={mode}"]) for _ in range(n)]
            except core.ScenarioError as e:
                print(f"error: {e}", file=sys.stderr)
                return 2
            r = runs[0]
            fluid_results[mode] = {
                "total_s": median_by(runs, "total_s"),
                "run_s": median_by(runs, "run_s"),
                "all_total_s": [x["total_s"] for x in runs],
                "events": r["events"],
                "flows": r["summary"]["flows"],
                "sim_time_s": r["summary"]["sim_time_s"],
            }
        sets = "".join(f" {s}" for s in args.set)
        print(
            f"[fluid] {path.relative_to(ROOT)}{sets}: {fluid_results['fluid']['flows']} flows, "
            f"{fluid_results['fluid']['sim_time_s']:g} s simulated; medians"
        )
        for mode, r in fluid_results.items():
            print(
                f"  {mode:<7} wall {r['total_s']:.3f} s (run {r['run_s']:.3f} s), {r['events']:,} events;"
                f" runs {', '.join(f'{x:.3f}' for x in r['all_total_s'])} s"
            )
        if "packet" in fluid_results:
            sp = fluid_results["packet"]["total_s"] / fluid_results["fluid"]["total_s"]
            # The process's first fluid run alone, as one `corral run` sees it (later runs
            # find memory the first one freed).
            first = fluid_results["packet"]["total_s"] / fluid_results["fluid"]["all_total_s"][0]
            fluid_results["speedup"] = sp
            fluid_results["speedup_first_run"] = first
            print(f"  fluid is {sp:.1f}x faster than packet level (medians; the first fluid run alone: {first:.1f}x)")
    alloc_results = None
    if args.only not in ("packet", "fluid", "scaling", "memory", "cli") and not args.case:
        import alloc as alloc_bench

        print("alloc: 1k, 10k, 100k flows ...", file=sys.stderr, flush=True)
        alloc_results = alloc_bench.bench_alloc(runs=max(args.runs, 3))
        print(alloc_bench.report(alloc_results))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "machine": machine,
                    "results": results,
                    "alloc": alloc_results,
                    "fluid": fluid_results,
                    "htsim": htsim_results,
                    "scaling": scaling_results,
                    "cli": cli_results,
                    "memory": memory_results,
                },
                indent=2,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
