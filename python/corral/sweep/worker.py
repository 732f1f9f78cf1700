"""The task a Dask worker runs: one grid point x seed, written atomically to its folder.

It is a plain function of plain data (the base scenario's text, the override strings, the
output folder), so any worker that can import corral can run it. Every error inside the run
is caught and written to the run folder's `error.json` (with the point), so one bad point
never stops the others; the function returns a small record for the progress display.
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path
from typing import Any

from . import layout


def run_point(task: dict[str, Any]) -> dict[str, Any]:
    """Simulate one run and write `task["dir"]`; return {hash, status, wall_time_s, error}."""
    from .. import __version__
    from ..api import build, simulate
    from ..outdir import atomic_dir

    folder = Path(task["dir"])
    start = time.perf_counter()
    try:
        sim = build(task["scenario_toml"], task["source"], list(task["overrides"]), task.get("max_memory"))
        got = layout.run_hash(sim.scenario_json, __version__)
        if got != task["hash"]:
            raise RuntimeError(
                f"the worker resolved the scenario to {got}, the client to {task['hash']}: "
                "is the same corral version installed on the workers?"
            )
        results = simulate(sim)
        # The sweep holds its folder's lock: its run folders are replaced without asking (only
        # the files their markers list), and a scratch folder left by a killed worker names
        # the sweep's lock, by which the next sweep finds it.
        with atomic_dir(folder, "run", owned=True, lock_file=task.get("lock")) as tmp:
            results.write_files(tmp, plots=task.get("plots", False))
            (tmp / layout.POINT_JSON).write_text(_json(task["point"]))
        return {"hash": task["hash"], "status": layout.OK, "wall_time_s": results.timing.get("wall_time_s"), "error": None}
    except Exception as e:  # noqa: BLE001 -- recorded in error.json, reported, never lost
        wall = time.perf_counter() - start
        message = f"{type(e).__name__}: {e}"
        try:
            write_failure(folder, task["point"], message, traceback.format_exc(), wall, task.get("lock"))
        except OSError as write_error:  # still report the run as failed, with both errors
            message += f" (and error.json could not be written: {write_error})"
        return {"hash": task["hash"], "status": layout.FAILED, "wall_time_s": wall, "error": message}


def write_failure(
    folder: Path, point: dict[str, Any], message: str, trace: str, wall: float | None, lock: str | None = None
) -> None:
    """Record a failed run: a folder with `error.json` and `point.json`, written atomically."""
    from ..outdir import atomic_dir

    with atomic_dir(folder, "run", owned=True, lock_file=lock) as tmp:
        (tmp / layout.ERROR_JSON).write_text(_json({"error": message, "traceback": trace, "wall_time_s": wall}))
        (tmp / layout.POINT_JSON).write_text(_json(point))


def _json(data: Any) -> str:
    import json

    return json.dumps(data, indent=2, default=str) + "\n"
