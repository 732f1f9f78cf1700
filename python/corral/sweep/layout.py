"""Where a sweep keeps its runs, how a run is named, and whether it is done.

A run's folder is `DIR/runs/<hash>/`, where `<hash>` is the first 16 hex digits of the
sha256 of the corral version and the canonical JSON (keys sorted, no spaces) of the fully
resolved scenario (`Simulation.scenario_json`, seed included). The same scenario therefore
always lands in the same folder, whatever grid produced it, and a new corral version never
reuses an old result. Folders appear by an atomic rename (`outdir.atomic_dir`), so a folder
is either absent or complete: `summary.json` marks a finished run, `error.json` a failed
one. Temporary entries left by an interrupted sweep carry corral's temporary prefixes
(`corral.outdir.is_temporary`) and are removed when the next sweep on the folder starts.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

HASH_DIGITS = 16
RUNS = "runs"
INDEX = "index.parquet"
SWEEP_JSON = "sweep.json"
POINT_JSON = "point.json"
ERROR_JSON = "error.json"
DONE_FILE = "summary.json"
LOCK_FILE = ".lock"

OK, FAILED, MISSING = "ok", "failed", "missing"

KIND = "sweep"  # the marker kind of a sweep folder (corral.outdir)
# What a sweep folder's marker lists as corral's: its files, and the whole runs/ tree.
OWNED = (SWEEP_JSON, INDEX, LOCK_FILE, RUNS + "/")


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
    """`ok` (complete), `failed` (error.json) or `missing`."""
    if (folder / DONE_FILE).is_file():
        return OK
    if (folder / ERROR_JSON).is_file():
        return FAILED
    return MISSING


def clean_partial(out: Path) -> int:
    """Remove temporary folders and files an interrupted sweep left behind; return how many.
    Only corral's own temporary names (`corral.outdir.is_temporary`) are touched."""
    from ..outdir import is_temporary

    removed = 0
    for parent in (Path(out), Path(out) / RUNS):
        if not parent.is_dir():
            continue
        for entry in parent.iterdir():
            if is_temporary(entry.name):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)
                removed += 1
    return removed


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to `path` through a temporary sibling and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    from ..outdir import TMP_PREFIX

    fd, tmp = tempfile.mkstemp(prefix=f"{TMP_PREFIX}{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(data, indent=2, default=str) + "\n")
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
