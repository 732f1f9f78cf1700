"""Parameter sweeps: a grid of scenario overrides x seeds, run on Dask, resumable.

    >>> from corral.sweep import run_sweep
    >>> result = run_sweep("sweep.toml", "out/sweep", workers=2)
    >>> result.index            # one row per run: hash, swept keys, seed, status, ...

See `spec` for the sweep file, `layout` for the output folder, `runner` for execution.
"""

from .runner import Counts, Run, SweepResult, build_index, resolve, run_sweep
from .spec import Point, Sweep, SweepError, load

__all__ = ["Counts", "Point", "Run", "Sweep", "SweepError", "SweepResult", "build_index", "load", "resolve", "run_sweep"]
