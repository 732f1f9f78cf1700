"""corral: a fast, deterministic datacenter network simulator.

The engine is native (`corral._core`, Rust); this package loads scenarios, runs them and
turns their results into polars tables, Parquet files, plots and paper reproductions.

    >>> import corral
    >>> res = corral.run("scenarios/outcast/case1_12.toml", overrides=["seed=2"])
    >>> res.flows.select("tag", "goodput_bps")
    >>> res.write("out/case1_12")
"""

from ._core import ScenarioError, SimulationError
from ._core import version as _core_version
from .api import run
from .results import Results

__version__: str = _core_version()

__all__ = ["run", "Results", "ScenarioError", "SimulationError", "__version__"]
