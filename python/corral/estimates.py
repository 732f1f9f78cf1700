"""What a run will cost, said before it runs: its peak memory and its wall time.

The core estimates a built run's peak memory by part (`Simulation.memory_parts`: the
`corral run` process without plots) and the events it will process
(`Simulation.estimated_events`); see docs/guides/command-line.md, "Estimates before the work". Here the
plots are added to the memory, and events become seconds at the speed this engine was
measured at: a run expected to take more than `LONG_RUN_S` is announced on stderr before it
starts, with the estimate and how to stop it.
"""

from __future__ import annotations

from typing import Any

# Peak bytes plotting adds to a run process (matplotlib and the figures of `corral.plots`,
# whose lines are capped at MAX_LINES x MAX_POINTS): 87 MB measured on a small run, 130 MB on
# one sampled every 10 ns.
PLOT_BYTES = 90_000_000
# Events per second of wall time, packet and fluid mode, measured on the 2-core AMD EPYC VM
# of bench/README.md over the package's and the benchmark's scenarios (the median of runs
# between 1 and 8 M/s; fluid runs process fewer, costlier events).
EVENTS_PER_S = {"packet": 3.0e6, "fluid": 5.0e4}
# Runs expected to take longer than this are announced.
LONG_RUN_S = 60.0


def memory(sim: Any, plots: bool = False) -> int:
    """Estimated peak resident bytes of a `corral run` process for the built `sim`."""
    return sum(b for _, _, b in sim.memory_parts) + (PLOT_BYTES if plots else 0)


def wall_seconds(sim: Any) -> float:
    """Estimated wall time of the built `sim`, in seconds."""
    return sim.estimated_events / EVENTS_PER_S[sim.mode]


def duration_text(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds / 3600:.1f} hours"


def long_run_note(seconds: float, what: str = "this run", events: int | None = None) -> str | None:
    """The note announcing a long run, or None for a short one."""
    if seconds <= LONG_RUN_S:
        return None
    count = f"{events:,} events " if events is not None else ""
    return (
        f"{what} is estimated to take about {duration_text(seconds)} ({count}at the speed measured on a "
        f"2-core VM; a rough estimate); Ctrl-C stops it"
    )
