"""Run a sweep on Dask: resolve and check every point, skip finished runs, run the rest.

`run_sweep` first resolves every grid point x seed in the calling process (the core
validates the scenario with the point's overrides; the first invalid point fails the sweep
before anything runs, naming the key and the point). Runs whose folder is already complete
are skipped, so a rerun of an interrupted sweep does only what is missing; failed runs are
tried again. The others are submitted to a Dask cluster, one task per run: an embedded
`LocalCluster` (worker processes with one thread each, by default one per CPU) or an
existing scheduler. Whatever happens (all done, failures, Ctrl-C), `index.parquet` is then
rebuilt from the run folders, so it always matches them.

A run's outputs depend only on its resolved scenario, never on which worker ran it or how
many workers there were, so the same sweep on 1 or N workers gives byte-identical Parquet.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import uuid
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from . import layout, spec
from .spec import Point, Sweep, SweepError
from .worker import run_point, write_failure

MAX_ERRORS_SHOWN = 3
# Runs a sweep may have unless told otherwise (`--max-runs`): each is validated before any
# runs, and its record kept in memory.
MAX_RUNS = 10_000


@dataclass(frozen=True)
class Run:
    """A resolved point: its overrides, the folder hash and the seed it runs with."""

    point: Point
    overrides: tuple[str, ...]
    hash: str
    seed: int
    # estimated wall time of the run, seconds (`corral.estimates`); not part of its record
    wall_s: float = field(default=0.0, compare=False)

    def record(self, sweep: Sweep) -> dict[str, Any]:
        """What `point.json` holds."""
        return {
            "sweep": sweep.name,
            "hash": self.hash,
            "index": self.point.index,
            "values": self.point.values,
            "seed": self.seed,
            "overrides": list(self.overrides),
        }


@dataclass
class Counts:
    """Progress of a sweep."""

    total: int = 0
    skipped: int = 0
    done: int = 0
    failed: int = 0

    @property
    def remaining(self) -> int:
        return self.total - self.skipped - self.done - self.failed


@dataclass
class SweepResult:
    """What `run_sweep` did."""

    out: Path
    runs: list[Run]
    counts: Counts
    index: pl.DataFrame
    cleaned: int = 0
    errors: list[str] = field(default_factory=list)


ProgressFn = Callable[[Counts], None]


def resolve(sweep: Sweep, max_memory: str | None = None) -> tuple[str, list[Run]]:
    """The base scenario's text and every run, each validated by the core."""
    from .. import __version__, _core, estimates
    from ..api import build

    text = sweep.scenario.read_text(encoding="utf-8")
    source = str(sweep.scenario)
    runs: list[Run] = []
    errors: list[str] = []
    by_hash: dict[str, Point] = {}
    for point in sweep.points():
        overrides = tuple(point.overrides(sweep.fixed))
        try:
            sim = build(text, source, list(overrides), max_memory)
        except _core.ScenarioError as e:
            errors.append(f"point {point.index} ({point.label()}): {e}")
            if len(errors) >= MAX_ERRORS_SHOWN:
                break
            continue
        h = layout.run_hash(sim.scenario_json, __version__)
        if h in by_hash:
            other = by_hash[h]
            raise SweepError(
                f"points {other.index} ({other.label()}) and {point.index} ({point.label()}) "
                "resolve to the same scenario; remove the duplicate value"
            )
        by_hash[h] = point
        runs.append(Run(point, overrides, h, sim.seed, estimates.wall_seconds(sim)))
        del sim
    if errors:
        more = "" if len(errors) < MAX_ERRORS_SHOWN else "\n(stopped checking after the first few)"
        raise SweepError("invalid point(s) in the sweep:\n" + "\n".join(errors) + more)
    return text, runs


def run_sweep(
    sweep_file: str | os.PathLike,
    out: str | os.PathLike,
    *,
    client: Any = None,
    scheduler: str | None = None,
    workers: int | None = None,
    processes: bool = True,
    progress: ProgressFn | None = None,
    limit: int | None = None,
    force: bool = False,
    max_memory: str | None = None,
    stop: Callable[[], bool] | None = None,
    max_runs: int = MAX_RUNS,
    notify: Callable[[str], None] | None = None,
) -> SweepResult:
    """Run every point of `sweep_file` into `out` and return what happened.

    `client` is a `dask.distributed.Client` to use as is; otherwise `scheduler` is the
    address of a running one; otherwise a `LocalCluster` with `workers` workers (default:
    one per CPU) is started and closed again. `limit` runs only the first N pending runs
    (the rest stay missing until the next call), which is how tests cut a sweep short.
    `out` must be a new or empty folder or an earlier sweep folder (to resume); `force`
    accepts any folder. `max_memory` caps each run's memory (default: half of the machine's).
    `stop()` is polled while runs go: once it returns true the sweep stops as on Ctrl-C
    (KeyboardInterrupt, after the index is written). The CLI's SIGTERM handler sets it
    rather than raising inside Dask's client calls, whose cancel path can fail when
    interrupted at the wrong moment. A sweep of more than `max_runs` runs is refused before
    anything is built; `notify(text)` hears, before the runs start, when the runs still to
    do are estimated to take more than a minute (`corral.estimates`).
    """
    from .. import estimates
    from ..outdir import and_children, writing

    sweep = spec.load(sweep_file)
    size = sweep.size()
    if size > max_runs:
        raise SweepError(
            f"the sweep has {size:,} runs (grid points x seeds), more than the limit of {max_runs:,}; "
            f"pass --max-runs {size} to run them all"
        )
    out = Path(out)
    # The folder is checked and locked before any point is built (a second sweep on it is
    # refused at once); a killed sweep's or worker's scratch folders are removed here.
    with writing(out, layout.KIND, (sweep.path, sweep.scenario), force, places=(layout.RUNS,)) as writer:
        text, runs = resolve(sweep, max_memory)
        writer.adopt(layout.OWNED)
        writer.put_text(layout.SWEEP_JSON, json.dumps(describe(sweep, runs), indent=2, default=str) + "\n")
        counts = Counts(total=len(runs))
        todo = []
        for run in runs:
            if layout.status(layout.run_dir(out, run.hash)) == layout.OK:
                counts.skipped += 1
            else:
                todo.append(run)
        if limit is not None:
            todo = todo[:limit]
        parallel = workers or (1 if client is not None or scheduler else os.cpu_count() or 1)
        note = estimates.long_run_note(sum(r.wall_s for r in todo) / parallel, f"the sweep's {len(todo)} runs")
        if note and notify:
            notify(note)
        errors: list[str] = []
        cleaned = writer.cleaned
        try:
            if progress:
                progress(counts)
            if todo:
                with dask_client(client, scheduler, workers, processes) as c:
                    _execute(c, sweep, text, todo, out, counts, errors, progress, max_memory, stop, str(writer.lock.path))
                # every task has ended: scratch folders of workers killed mid-write can go
                cleaned += writer.lock.clean_leftovers(*and_children(writer.target / layout.RUNS))
        finally:
            index = build_index(out, sweep, runs)
            writer.put(layout.INDEX, lambda p: index.write_parquet(p, statistics=False))
            writer.finish()
    return SweepResult(out, runs, counts, index, cleaned, errors)


# How often the sweep loop looks at `stop` while it waits for runs (seconds).
STOP_POLL_S = 0.25


def _execute(client, sweep, text, todo, out, counts, errors, progress, max_memory, stop=None, lock: str = "") -> None:
    tasks = [
        {
            "scenario_toml": text,
            "source": str(sweep.scenario),
            "overrides": list(run.overrides),
            "dir": str(layout.run_dir(out, run.hash).absolute()),
            "hash": run.hash,
            "point": run.record(sweep),
            "plots": sweep.plots,
            "max_memory": max_memory,
            "lock": lock,
        }
        for run in todo
    ]

    def ended(i: int, fut) -> None:
        _record(fut, todo[i], sweep, out, counts, errors, lock)
        if progress:
            progress(counts)

    run_tasks(client, tasks, ended, stop)


def run_tasks(
    client,
    tasks: list[dict[str, Any]],
    ended: Callable[[int, Any], None],
    stop: Callable[[], bool] | None = None,
    prefix: str = "corral-run",
) -> None:
    """Run each `worker.run_point` task on `client`; `ended(i, future)` hears of task `i` as
    it ends (in task order among those ending together). `stop()` is polled while they run:
    once true, the tasks not yet ended are cancelled and KeyboardInterrupt raised."""
    from dask.distributed import wait

    token = uuid.uuid4().hex[:8]
    futures = {
        client.submit(run_point, task, key=f"{prefix}-{task['hash']}-{token}", pure=False): i for i, task in enumerate(tasks)
    }
    pending = set(futures)
    try:
        while pending:
            if stop is not None and stop():
                raise KeyboardInterrupt
            try:
                done, pending = wait(list(pending), timeout=STOP_POLL_S, return_when="FIRST_COMPLETED")
            except TimeoutError:
                continue
            for fut in sorted(done, key=futures.__getitem__):
                ended(futures[fut], fut)
    except BaseException:
        client.cancel(list(futures))
        raise


def _record(fut, run, sweep, out, counts, errors, lock: str = "") -> None:
    """Counts one ended run, writing error.json for a run whose worker died."""
    if fut.status == "finished":
        rec = fut.result()
    else:  # the task itself never raises: the worker died or the cluster failed
        exc = fut.exception()
        message = f"{type(exc).__name__}: {exc}"
        try:
            write_failure(layout.run_dir(out, run.hash), run.record(sweep), message, "", None, lock)
        except OSError as write_error:
            message += f" (and error.json could not be written: {write_error})"
        rec = {"status": layout.FAILED, "error": message}
    if rec["status"] == layout.OK:
        counts.done += 1
    else:
        counts.failed += 1
        errors.append(f"point {run.point.index} ({run.point.label()}): {rec['error']}")


@contextlib.contextmanager
def dask_client(client, scheduler, workers, processes) -> Iterator[Any]:
    """`client` as is, else a client of the scheduler at `scheduler`, else an embedded
    `LocalCluster` of `workers` single-threaded workers (default one per CPU), closed after."""
    if client is not None:
        yield client
        return
    from dask.distributed import Client, LocalCluster

    if scheduler:
        with Client(scheduler) as c:
            yield c
        return
    n = workers or os.cpu_count() or 1
    # Ctrl-C reaches the whole process group. While the cluster starts, this process ignores
    # it, so that the cluster's processes inherit it ignored and none of them dies
    # half-imported with a traceback (the workers also ignore it once they run); a Ctrl-C in
    # those one or two seconds is lost, the next one stops the sweep (cancel, rebuild the
    # index, close the cluster). Dask's own logs of a cluster closed under running tasks
    # (missed heartbeats) are silenced: the sweep says what happened to each run.
    with _sigint_ignored(), warnings.catch_warnings():
        # the scheduler's HTTP endpoint falls back to a free port if 8787 is taken; that is fine
        warnings.filterwarnings("ignore", message="Port .* is already in use", category=UserWarning)
        cluster = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=processes,
            dashboard_address=None,
            silence_logs=logging.CRITICAL,
        )
        c = Client(cluster)
        if processes:
            c.run(_ignore_sigint)
    quiet = logging.getLogger("distributed")
    level = quiet.level
    try:
        yield c
    finally:
        quiet.setLevel(logging.CRITICAL)  # the closing cluster's complaints
        try:
            c.close()
            cluster.close()
        finally:
            quiet.setLevel(level)


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored by this process (and by the processes it starts meanwhile)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)


def _ignore_sigint() -> None:
    import signal

    with contextlib.suppress(ValueError):  # not the worker's main thread: leave it
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def describe(sweep: Sweep, runs: list[Run]) -> dict[str, Any]:
    """`sweep.json`: the sweep's definition and its runs."""
    from .. import __version__

    return {
        "name": sweep.name,
        "sweep_file": str(sweep.path),
        "scenario": str(sweep.scenario),
        "corral_version": __version__,
        "keys": sweep.keys,
        "fixed": sweep.fixed,
        "grid": sweep.grid,
        "zip": sweep.zips,
        "seeds": sorted({r.seed for r in runs}),
        "runs": [{"hash": r.hash, **r.point.values, "seed": r.seed} for r in runs],
    }


def build_index(out: Path, sweep: Sweep, runs: list[Run]) -> pl.DataFrame:
    """One row per run from its folder: hash, swept keys, seed, status, wall time, error."""
    rows = []
    for run in runs:
        folder = layout.run_dir(out, run.hash)
        st = layout.status(folder)
        wall, error = None, None
        if st == layout.OK:
            wall = layout.read_json(folder / layout.DONE_FILE).get("wall_time_s")
        elif st == layout.FAILED:
            info = layout.read_json(folder / layout.ERROR_JSON)
            wall, error = info.get("wall_time_s"), info.get("error", "unknown error")
        rows.append((run, st, wall, error))
    columns: dict[str, pl.Series] = {"hash": pl.Series("hash", [r.hash for r, *_ in rows], pl.Utf8)}
    for key in sweep.keys:
        columns[key] = value_column(key, [r.point.values[key] for r, *_ in rows])
    columns["seed"] = pl.Series("seed", [r.seed for r, *_ in rows], pl.Int64)
    columns["status"] = pl.Series("status", [st for _, st, _, _ in rows], pl.Utf8)
    columns["wall_time_s"] = pl.Series("wall_time_s", [w for _, _, w, _ in rows], pl.Float64)
    columns["error"] = pl.Series("error", [e for *_, e in rows], pl.Utf8)
    return pl.DataFrame(list(columns.values()))


def value_column(name: str, values: list[Any]) -> pl.Series:
    """Swept values as one typed column: Int64, Float64 or Boolean if they all are, else text."""
    if all(isinstance(v, bool) for v in values):
        return pl.Series(name, values, pl.Boolean)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return pl.Series(name, values, pl.Int64)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return pl.Series(name, [float(v) for v in values], pl.Float64)
    return pl.Series(name, [v if isinstance(v, str) else spec.toml_value(v) for v in values], pl.Utf8)
