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
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from . import _core
from ._core import ScenarioError
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
    """Build (but do not run) the native simulation; raises ScenarioError if invalid.

    Flow lists of `[[traffic]]` blocks given as Parquet files are converted to the CSV form
    the core reads (in a temporary folder, removed once the simulation is built: the core
    reads flow lists at build time).
    """
    text, source = load_scenario(scenario)
    overrides = list(overrides)
    with tempfile.TemporaryDirectory(prefix="corral-flows-") as tmp:
        overrides += _parquet_flow_lists(text, source, overrides, Path(tmp))
        return _core.Simulation(text, overrides, source)


def _parquet_flow_lists(text: str, source: str, overrides: list[str], tmp: Path) -> list[str]:
    """Overrides pointing every `traffic.N.file` that names a .parquet file at a CSV copy."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib
        except ImportError:
            return []  # the core then explains that Parquet needs the Python layer
    try:
        blocks = tomllib.loads(text).get("traffic", [])
    except tomllib.TOMLDecodeError:
        return []  # the core reports the syntax error
    files: dict[int, str] = {}
    if isinstance(blocks, list):
        files = {i: b["file"] for i, b in enumerate(blocks) if isinstance(b, dict) and isinstance(b.get("file"), str)}
    for o in overrides:  # `--set traffic.0.file=x.parquet` wins over the file
        key, _, value = o.partition("=")
        parts = key.strip().split(".")
        if len(parts) == 3 and parts[0] == "traffic" and parts[1].isdigit() and parts[2] == "file":
            files[int(parts[1])] = value.strip().strip('"')
    base = Path(source).parent if Path(source).is_file() else Path.cwd()
    extra = []
    for i, name in sorted(files.items()):
        if not name.lower().endswith(".parquet"):
            continue
        path = Path(name) if Path(name).is_absolute() else base / name
        if not path.is_file():
            raise ScenarioError(f"traffic.{i}.file: cannot read flow list {path}: no such file")
        import polars as pl

        frame = pl.read_parquet(path)
        missing = [c for c in ("src", "dst", "size", "start") if c not in frame.columns]
        if missing:
            raise ScenarioError(
                f"traffic.{i}.file: {path}: missing column{'s' if len(missing) > 1 else ''} "
                f"{', '.join(missing)} (needs src, dst, size, start)"
            )
        csv = tmp / f"traffic{i}.csv"
        frame.write_csv(csv)
        extra.append(f"traffic.{i}.file={json.dumps(str(csv))}")
    return extra


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
