"""The `Results` of one run: polars tables, a summary dict, and writing them to a folder.

`Results.write(out_dir)` produces the documented run folder (see docs/guides/outputs.md):
one Parquet file per table, `summary.json`, `scenario.json` (the effective scenario after
overrides), `timing.json` and PNG plots. Parquet files hold no timestamps or statistics, so the
same scenario and seed give byte-identical files; everything measured by the clock (the wall
time, events per second, a scheme's compute time) is in `timing.json` alone, the one file
that differs between two runs. The folder appears only once complete.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .outdir import atomic_dir
from .tables import TABLES, to_frame

if TYPE_CHECKING:
    import polars as pl


@dataclass
class Results:
    """Everything one simulation run produced."""

    flows: pl.DataFrame
    throughput: pl.DataFrame
    queues: pl.DataFrame
    drops: pl.DataFrame
    drop_runs: pl.DataFrame
    ports: pl.DataFrame
    throughput_class: pl.DataFrame
    latency: pl.DataFrame
    control: pl.DataFrame
    summary: dict[str, Any]
    scenario: dict[str, Any] = field(default_factory=dict)
    timing: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_core(cls, raw: dict[str, Any], scenario: dict[str, Any], wall_time_s: float) -> Results:
        """Wrap the dict returned by `_core.Simulation.results()`."""
        frames = {name: to_frame(name, raw.get(name)) for name in TABLES}
        summary = dict(raw.get("summary", {}))
        events = summary.get("events")
        timing = {
            "wall_time_s": wall_time_s,
            "events_per_s": events / wall_time_s if events and wall_time_s > 0 else None,
            **raw.get("timing", {}),
        }
        return cls(**frames, summary=summary, scenario=scenario, timing=timing)

    def tables(self) -> dict[str, pl.DataFrame]:
        """The result tables by name, in the documented order."""
        return {name: getattr(self, name) for name in TABLES}

    def write(self, out_dir: str | os.PathLike, *, plots: bool = True, force: bool = False, inputs=(), writer=None) -> Path:
        """Write the run folder `out_dir` (it appears, or replaces the old one, only once
        everything is written: `corral.outdir`).

        An existing `out_dir` is replaced only if it is an empty folder or a corral run folder,
        and never if it is the current folder, one of its parents, or holds one of `inputs`
        (`corral.outdir.OutputError` otherwise); `force=True` also takes a corral folder of
        another kind. `writer` is the `corral.outdir.Writer` of a caller that already holds
        the folder's lock (`corral run` takes it before simulating).
        """
        if writer is not None:
            with writer.publish() as tmp:
                self.write_files(tmp, plots=plots)
        else:
            with atomic_dir(out_dir, "run", inputs, force) as tmp:
                self.write_files(tmp, plots=plots)
        return Path(out_dir)

    def write_files(self, folder: Path, *, plots: bool = True) -> None:
        """Write the run folder's files into the existing folder `folder` (not atomic)."""
        for name, frame in self.tables().items():
            frame.write_parquet(folder / f"{name}.parquet", statistics=False)
        _write_json(folder / "summary.json", self.summary)
        _write_json(folder / "scenario.json", self.scenario)
        _write_json(folder / "timing.json", self.timing)
        if plots:
            from . import plots as plotting  # matplotlib is slow to import

            plotting.write_run_plots(self, folder)


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n")
