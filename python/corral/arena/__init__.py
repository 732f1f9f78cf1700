"""The arena: every design and baseline on the same networks and workloads, one leaderboard.

    corral arena [--quick] [--scheduler ADDR] [--contender NAME ...] [--seeds N] -o DIR

`plan` makes the cells (contender x network x workload x load) as scenario text, `run` runs
them on the sweep machinery (Dask, run folders keyed by the scenario's hash, resumable) and
writes `arena.parquet`, `metrics` turns a run folder into the arena's numbers and sets them
beside `ideal`'s, `report` writes `leaderboard.md`, `index.html` and the plots.
"""

from .plan import DEFAULT_CONTENDERS, ArenaError, Cell, plan_cells
from .run import ArenaResult, run_arena

__all__ = ["DEFAULT_CONTENDERS", "ArenaError", "ArenaResult", "Cell", "plan_cells", "run_arena"]
