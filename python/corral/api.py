"""`corral.run`: load a scenario, simulate it in the native core, return `Results`.

The scenario is a path to a TOML file or TOML text. Overrides are `key=value` strings with
dotted key paths (`"topology.k=8"`, `"flows.0.size=1MB"`), applied and validated by the
core, which raises `ScenarioError` naming the offending key. The run advances in about 100
steps of simulated time so that a caller can show progress; the core releases the GIL while
it simulates, so several runs can proceed in parallel threads.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _core
from ._core import ScenarioError

if TYPE_CHECKING:
    from .results import Results
    from .scenario import Scenario

ProgressFn = Callable[[int, int], None]

PROGRESS_STEPS = 100


def load_scenario(scenario: str | os.PathLike | Scenario) -> tuple[str, str]:
    """Return (TOML text, source name) for a `Scenario`, a scenario path or TOML text.

    A `Scenario` gives its TOML and the file it was loaded from (so that files it names
    resolve from that file's folder).

    A `Path`, or a one-line string without `=` that does not open a `[table]` (TOML text of
    one line must have one of those), is read as a file (`corral:<name>`: a scenario the
    package ships, e.g. `corral:examples/dumbbell.toml`) (FileNotFoundError if it is missing,
    ScenarioError if it is a folder, a device or FIFO, or not UTF-8 text); any other string
    is TOML text.
    """
    from .scenario import Scenario

    if isinstance(scenario, Scenario):
        return scenario.to_toml(), str(scenario.source) if scenario.source else "<scenario>"
    if isinstance(scenario, os.PathLike) or _looks_like_path(scenario):
        from .inputs import file_problem, resolve

        path = resolve(scenario)
        problem = file_problem(path, "a scenario TOML file")
        if problem:
            raise (FileNotFoundError if not path.exists() else ScenarioError)(problem)
        try:
            return path.read_bytes().decode("utf-8"), str(path)
        except UnicodeDecodeError as e:
            raise ScenarioError(f"{path}: not a UTF-8 text file (byte {e.start}); expected a scenario TOML file") from None
    if not isinstance(scenario, str):
        raise TypeError(f"scenario: expected a path or TOML text, got {type(scenario).__name__}")
    return scenario, "<string>"


def _looks_like_path(text: str) -> bool:
    if not isinstance(text, str) or "\n" in text or "=" in text:
        return False
    return bool(text.strip()) and not text.lstrip().startswith("[")


def simulation(
    scenario: str | os.PathLike | Scenario, overrides: Iterable[str] = (), *, max_memory: str | int | None = None
) -> _core.Simulation:
    """Build (but do not run) the native simulation; raises ScenarioError if invalid.

    Flow lists of `[[traffic]]` blocks given as Parquet files are read here (the core names
    them, after overrides) and their cells handed to the core, which reads CSV lists itself.
    `max_memory` ("4GB" or bytes) caps the memory the run may need (default: half of this
    machine's); a scenario estimated above it is refused with a ScenarioError.
    """
    text, source = load_scenario(scenario)
    return build(text, source, _override_list(overrides), max_memory)


def build(text: str, source: str, overrides: list[str], max_memory: str | int | None = None) -> _core.Simulation:
    """`simulation` for TOML `text` read from `source` (the sweep runner's entry)."""
    traces = {i: _parquet_cells(i, Path(p)) for i, p in _core.parquet_traces(text, overrides, source)}
    limit = None if max_memory is None else str(max_memory)
    return _core.Simulation(text, overrides, source, limit, traces or None)


def _override_list(overrides: Iterable[str] | str) -> list[str]:
    """The overrides as a list; a single string is one override (`"seed=2"`)."""
    if isinstance(overrides, str):
        return [overrides]
    out = list(overrides)
    for o in out:
        if not isinstance(o, str):
            raise TypeError(f"overrides: expected key=value strings, got {o!r}")
    return out


def _parquet_cells(i: int, path: Path) -> tuple[list[str], list[list[Any]]]:
    """The header and cells of Parquet flow list `path` (traffic block `i`), as the file types
    them: ints, floats and text go to the core as they are (a column of another type, a
    duration or a date, as its text)."""
    from .inputs import file_problem

    problem = file_problem(path, "a flow list")
    if problem:
        raise ScenarioError(f"traffic[{i}].file: {problem}")
    import polars as pl

    try:
        frame = pl.read_parquet(path)
    except Exception as e:  # noqa: BLE001 -- polars raises several kinds for a corrupt file
        first = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
        raise ScenarioError(f"traffic[{i}].file: {path} is not a readable Parquet file ({first})") from None
    kept = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32, pl.UInt64, pl.Float32, pl.Float64, pl.Utf8)
    cells = frame.select(pl.col(c) if frame[c].dtype in kept else pl.col(c).cast(pl.Utf8) for c in frame.columns)
    return list(cells.columns), [list(r) for r in cells.rows()]


def run(
    scenario: str | os.PathLike | Scenario,
    *,
    overrides: Iterable[str] | str = (),
    progress: ProgressFn | None = None,
    max_memory: str | int | None = None,
) -> Results:
    """Simulate `scenario` (a `corral.Scenario`, a path or TOML text) to its duration and
    return its `Results`.

    `overrides` are `key=value` strings (one string is one override); `progress(now_ps,
    duration_ps)` is called after every step of simulated time; `max_memory` caps the memory
    the run may need (see `simulation`).
    """
    return simulate(simulation(scenario, overrides, max_memory=max_memory), progress)


def simulate(sim: _core.Simulation, progress: ProgressFn | None = None) -> Results:
    """Run a built simulation to its duration in ~100 steps and collect its `Results`."""
    duration = sim.duration_ps
    step = max(1, -(-duration // PROGRESS_STEPS))  # ceiling division
    wall_start = time.perf_counter()
    t = 0
    while True:
        t = min(t + step, duration)
        sim.run_until(t)
        if progress is not None:
            progress(sim.now_ps, duration)
        if t >= duration:
            break
    raw = sim.results()
    wall = time.perf_counter() - wall_start
    from .results import Results  # imported beside the event loop by `corral run`

    return Results.from_core(raw, json.loads(sim.scenario_json), wall)
