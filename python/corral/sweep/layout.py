"""Where a sweep keeps its runs, how a run is named, and whether it is done.

A run's folder is `DIR/runs/<hash>/`, where `<hash>` is the first 16 hex digits of the
sha256 of the corral version and the canonical JSON (keys sorted, no spaces) of the fully
resolved scenario (`Simulation.scenario_json`, seed included). The same scenario therefore
always lands in the same folder, whatever grid produced it, and a new corral version never
reuses an old result. Folders appear by an atomic rename (`corral.outdir`), each with its
own marker: a run is done when its folder is complete (`corral.outdir.is_complete`: the
marker says so and every file it lists is there, at its size) and lists `summary.json`,
failed when it lists `error.json`; anything else (no folder, a folder a killed worker left
incomplete, a file truncated since) is missing, and the next sweep runs it again. The
scratch folders of a killed sweep or worker are removed by the next sweep on the folder,
found by the folder's lock (`corral.outdir.lock`), never by their names alone.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

HASH_DIGITS = 16
RUNS = "runs"
INDEX = "index.parquet"
SWEEP_JSON = "sweep.json"
POINT_JSON = "point.json"
ERROR_JSON = "error.json"
DONE_FILE = "summary.json"

OK, FAILED, MISSING = "ok", "failed", "missing"

KIND = "sweep"  # the marker kind of a sweep folder (corral.outdir)
# What a sweep folder's marker lists as corral's; each run folder in runs/ has its own marker.
OWNED = (SWEEP_JSON, INDEX)


def canonical_json(scenario_json: str) -> str:
    """The scenario JSON with sorted keys and no whitespace."""
    return json.dumps(json.loads(scenario_json), sort_keys=True, separators=(",", ":"))


def run_hash(scenario_json: str, version: str) -> str:
    """The run folder name of a resolved scenario under corral `version`."""
    text = f"corral {version}\n{canonical_json(scenario_json)}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_DIGITS]


def run_dir(out: Path, run_hash_: str) -> Path:
    return Path(out) / RUNS / run_hash_


def status(folder: Path) -> str:
    """`ok` (complete, with summary.json), `failed` (complete, with error.json) or `missing`."""
    from ..outdir import is_complete, owned_files

    if not is_complete(folder):
        return MISSING
    files = owned_files(folder) or []
    if DONE_FILE in files:
        return OK
    if ERROR_JSON in files:
        return FAILED
    return MISSING


def read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
