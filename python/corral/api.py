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

from . import _core
from .results import Results

ProgressFn = Callable[[int, int], None]

PROGRESS_STEPS = 100


def load_scenario(scenario: str | os.PathLike) -> tuple[str, str]:
    """Return (TOML text, source name) for a scenario path or TOML text.

    A `Path`, or a one-line string ending in `.toml` or naming an existing file, is read
    as a file (FileNotFoundError if it is missing); any other string is TOML text.
    """
    if isinstance(scenario, os.PathLike) or _looks_like_path(scenario):
        path = Path(scenario)
        if not path.is_file():
            raise FileNotFoundError(f"scenario file not found: {path}")
        return path.read_text(encoding="utf-8"), str(path)
    return scenario, "<string>"


def _looks_like_path(text: str) -> bool:
    if "\n" in text or "=" in text:
        return False
    return text.strip().endswith(".toml") or Path(text).is_file()


def simulation(
    scenario: str | os.PathLike, overrides: Iterable[str] = ()
) -> _core.Simulation:
    """Build (but do not run) the native simulation; raises ScenarioError if invalid."""
    text, source = load_scenario(scenario)
    return _core.Simulation(text, list(overrides), source)


def run(
    scenario: str | os.PathLike,
    *,
    overrides: Iterable[str] = (),
    progress: ProgressFn | None = None,
) -> Results:
    """Simulate `scenario` to its duration and return its `Results`.

    `progress(now_ps, duration_ps)` is called after every step of simulated time.
    """
    return simulate(simulation(scenario, overrides), progress)


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
    return Results.from_core(raw, json.loads(sim.scenario_json), wall)
