"""corral: a fast, deterministic datacenter network simulator.

The engine is native (`corral._core`, Rust); this package loads scenarios, runs them and
turns their results into polars tables, Parquet files, plots and paper reproductions.

    >>> import corral
    >>> res = corral.run("scenarios/outcast/case1_12.toml", overrides=["seed=2"])
    >>> res.flows.select("tag", "goodput_bps")
    >>> res.write("out/case1_12")
    >>> s = corral.Scenario.load("scenarios/hcc/websearch.toml").remove("scheme")
    >>> corral.run(s)                      # the same run without its scheme
"""

import importlib
from typing import TYPE_CHECKING

from ._core import ScenarioError, SimulationError
from ._core import version as _core_version


def kinds() -> dict[str, list[str]]:
    """Every list of kinds a scenario may name: {"queues", "controllers", "schemes",
    "topologies", "routings"} -> names, each from its one declaration in the core."""
    from ._core import kinds as core_kinds

    return core_kinds()


if TYPE_CHECKING:
    from .api import run
    from .results import Results
    from .scenario import Scenario

__version__: str = _core_version()

# `run` and `Results` load on first use (PEP 562): `corral run` imports the results module
# (dataclasses, polars tables) beside the event loop rather than before it.
_LAZY = {"run": "api", "Results": "results", "Scenario": "scenario"}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value  # later look-ups find it directly
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["run", "kinds", "Results", "Scenario", "ScenarioError", "SimulationError", "__version__"]
