"""Run the arena on the sweep machinery and write its folder; resumable and deterministic.

Every cell x seed is built in the calling process first (`resolve_cells`): a cell whose
scenario the core refuses (a scheme's `check` that the topology does not fit, a fan-in
larger than the network) is "n/a" with the core's message as its reason; the others are
named by the sweep's run hash (`corral.sweep.layout`) and run on Dask by the sweep's worker
task (`corral.sweep.worker.run_point`) into `DIR/runs/<hash>/`, skipping those already
complete. `arena.parquet` is then built from the run folders alone, in plan order, so a
rerun or a resumed arena writes the same bytes; the report follows (`report`).

Folder: `arena.json` (the plan: cells, seeds, hashes, n/a reasons), `arena.parquet`,
`leaderboard.md`, `index.html`, `plots/`, `runs/`. Its marker lists these files by name (the
report is built in a scratch folder and published over the previous report's files); each
run folder in `runs/` has a marker of its own. An arena of more than `MAX_RUNS` cell x seed
runs is refused before anything is planned or built, and planning stops at once on Ctrl-C
or SIGTERM.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from ..sweep import layout
from .plan import ArenaError, Cell, plan_cells

KIND = "arena"
ARENA_JSON = "arena.json"
PARQUET = "arena.parquet"
OWNED = (ARENA_JSON, PARQUET)
OK, NA, FAILED = "ok", "n/a", "failed"
# Cell x seed runs an arena may plan (the sweep's limit): each is built before any runs.
MAX_RUNS = 10_000


@dataclass
class CellRun:
    """A cell at one seed: its run hash, or the reason it is n/a."""

    cell: Cell
    seed: int
    toml: str
    hash: str | None = None
    reason: str | None = None
    wall_s: float = 0.0


@dataclass
class ArenaResult:
    out: Path
    runs: list[CellRun]
    frame: pl.DataFrame
    done: int = 0
    skipped: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)


def resolve_cells(
    cells: Sequence[Cell], seeds: Sequence[int], max_memory: str | None = None, stop: Callable[[], bool] | None = None
) -> list[CellRun]:
    """Build every cell x seed; n/a cells carry the core's reason (module doc). `stop()` is
    polled between builds: once true, KeyboardInterrupt (Ctrl-C or SIGTERM stop planning at
    once)."""
    from .. import __version__, _core, estimates
    from ..api import build

    runs = []
    for cell in cells:
        text = cell.toml()
        reason = None
        for seed in seeds:
            if stop is not None and stop():
                raise KeyboardInterrupt
            run = CellRun(cell, seed, text)
            if reason is None:
                try:
                    sim = build(text, f"<arena {cell.label}>", [f"seed={seed}"], max_memory)
                except _core.ScenarioError as e:
                    reason = str(e)
                else:
                    run.hash = layout.run_hash(sim.scenario_json, __version__)
                    run.wall_s = estimates.wall_seconds(sim)
                    del sim
            run.reason = reason
            runs.append(run)
    return runs


def run_arena(
    out: str | os.PathLike,
    *,
    quick: bool = False,
    contenders: Sequence[str] | None = None,
    seeds: int | None = None,
    cells: Sequence[Cell] | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    client: Any = None,
    processes: bool = True,
    force: bool = False,
    max_memory: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> ArenaResult:
    """Run the arena into `out` and write its report. `cells` replaces the plan (tests run a
    tiny arena this way); `seeds` is a count (1..N; default 3, quick 1)."""
    from ..outdir import and_children, writing
    from ..sweep.runner import dask_client
    from . import plan as plan_mod

    n_seeds = seeds or (plan_mod.QUICK_SEEDS if quick else plan_mod.SEEDS)
    if max_memory is not None:
        check_memory_limit(max_memory)
    cells = list(cells) if cells is not None else plan_cells(quick, contenders)  # cheap: nothing is built yet
    n_cells = len(cells)
    if n_cells * n_seeds > MAX_RUNS:
        raise ArenaError(
            f"--seeds {n_seeds}: the arena would be {n_cells:,} cells x {n_seeds:,} seeds = {n_cells * n_seeds:,} runs, "
            f"more than the limit of {MAX_RUNS:,}; use fewer seeds or contenders"
        )
    seed_list = list(range(1, n_seeds + 1))
    out = Path(out)
    with writing(out, KIND, (), force, places=(layout.RUNS,)) as writer:
        runs = resolve_cells(cells, seed_list, max_memory, stop)
        writer.adopt(OWNED)
        writer.put_text(ARENA_JSON, json.dumps(describe(runs, quick, seed_list), indent=2, default=str) + "\n")
        todo, skipped, seen = [], 0, set()
        for r in runs:
            if r.hash is None or r.hash in seen:
                continue
            seen.add(r.hash)
            if layout.status(layout.run_dir(out, r.hash)) == layout.OK:
                skipped += 1
            else:
                todo.append(r)
        result = ArenaResult(out, runs, pl.DataFrame(), skipped=skipped)
        if todo:
            with dask_client(client, scheduler, workers, processes) as c:
                _execute(c, todo, out, result, max_memory, progress, stop, str(writer.lock.path))
            writer.lock.clean_leftovers(*and_children(writer.target / layout.RUNS))
        frame = collect(out, runs)
        writer.put(PARQUET, lambda p: frame.write_parquet(p, statistics=False))
        result.frame = frame
        publish_report(writer, frame)
        writer.finish()
    return result


def publish_report(writer, frame: pl.DataFrame) -> None:
    """Build the report in a scratch folder and put its files in place of the previous
    report's (the files the marker lists besides arena.json and arena.parquet)."""
    from ..outdir import files_below, owned_files
    from .report import write_report

    tmp = writer.scratch(writer.target)
    try:
        write_report(frame, tmp)
        old = [f for f in owned_files(writer.target) or [] if f not in OWNED]
        writer.merge_in(tmp, files_below(tmp), old, complete=False)
    finally:
        writer.drop(tmp)


def check_memory_limit(text: str) -> None:
    """Refuse a `--max-memory` the core would not take, as `corral run` and `sweep` do."""
    from .. import _core

    try:
        _core.parse_memory_limit(str(text))
    except _core.ScenarioError as e:
        raise ArenaError(str(e)) from None


def _execute(client, todo: list[CellRun], out: Path, result: ArenaResult, max_memory, progress, stop, lock: str = "") -> None:
    from ..sweep.runner import run_tasks
    from ..sweep.worker import write_failure

    # longest first, so that the last minutes are not one long run alone
    order = sorted(todo, key=lambda r: -r.wall_s)
    tasks = [
        {
            "scenario_toml": r.toml,
            "source": f"<arena {r.cell.label}>",
            "overrides": [f"seed={r.seed}"],
            "dir": str(layout.run_dir(out, r.hash).absolute()),
            "hash": r.hash,
            "point": {"arena": r.cell.label, "seed": r.seed, "hash": r.hash},
            "plots": False,
            "max_memory": max_memory,
            "lock": lock,
        }
        for r in order
    ]

    def ended(i: int, fut) -> None:
        if fut.status == "finished":
            rec = fut.result()
        else:  # the task never raises: its worker died; record it as the sweep does
            rec = {"status": FAILED, "error": f"{type(fut.exception()).__name__}: {fut.exception()}"}
            write_failure(layout.run_dir(out, order[i].hash), tasks[i]["point"], rec["error"], "", None, lock)
        if rec["status"] == layout.OK:
            result.done += 1
        else:
            result.failed += 1
            result.errors.append(f"{order[i].cell.label} seed {order[i].seed}: {rec['error']}")
        if progress:
            progress(result.done + result.failed, len(order))

    run_tasks(client, tasks, ended, stop, prefix="corral-arena")


SCHEMA = {
    "contender": pl.Utf8,
    "network": pl.Utf8,
    "workload": pl.Utf8,
    "load": pl.Float64,
    "seed": pl.Int64,
    "metric": pl.Utf8,
    "value": pl.Float64,
    "status": pl.Utf8,
    "reason": pl.Utf8,
}


def collect(out: Path, runs: Sequence[CellRun]) -> pl.DataFrame:
    """The long table of every cell x seed, in plan order, from the run folders alone: one
    row per metric of a finished run; one row (metric "") with the reason for an n/a cell, a
    failed run or one not run yet."""
    from .metrics import METRICS, run_metrics

    rows: list[tuple] = []
    for r in runs:
        c = r.cell
        key = (c.contender, c.network.name, c.workload.name, c.load, r.seed)
        if r.hash is None:
            rows.append((*key, "", None, NA, r.reason))
            continue
        folder = layout.run_dir(out, r.hash)
        st = layout.status(folder)
        if st != layout.OK:
            reason = layout.read_json(folder / layout.ERROR_JSON).get("error", "failed") if st == layout.FAILED else "not run"
            rows.append((*key, "", None, FAILED if st == layout.FAILED else "missing", reason))
            continue
        values = run_metrics(folder, c)
        for metric in METRICS:
            if metric in values:
                rows.append((*key, metric, values[metric], OK, None))
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


def describe(runs: Sequence[CellRun], quick: bool, seeds: list[int]) -> dict[str, Any]:
    """`arena.json`: what was planned."""
    from .. import __version__

    return {
        "corral_version": __version__,
        "quick": quick,
        "seeds": seeds,
        "cells": [{"cell": r.cell.label, "seed": r.seed, "hash": r.hash, "n/a": r.reason} for r in runs],
    }
