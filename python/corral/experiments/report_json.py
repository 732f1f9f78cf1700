"""JSON files of a reproduction (report.json, claims.json): valid JSON whatever the numbers
(NaN and infinities become null)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any


def finite(x: Any) -> Any:
    """`x` with NaN and infinities replaced by None, in nested dicts and lists too."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    return x


def write(path: Path, summary: dict[str, Any]) -> None:
    path.write_text(json.dumps(finite(summary), indent=2, default=str) + "\n")


def write_reproduction(path: Path, experiment: str, paper: str, report: Any, **extra: Any) -> None:
    """A reproduction's report.json: what ran (corral version, seeds, quick, overrides), its
    claims and runs (a report with those attributes; `runs` a polars frame), and `extra`. (A
    run's summary.json is another file: this one is named apart so that the two are never
    confused.)"""
    from .. import __version__

    write(
        path,
        {
            "experiment": experiment,
            "paper": paper,
            "corral_version": __version__,
            "seeds": report.seeds,
            "quick": report.quick,
            "overrides": list(report.overrides),
            "claims": report.claims,
            "runs": report.runs.to_dicts(),
            **extra,
        },
    )
