"""Types of `corral._core`, the native module (the PyO3 crate `crates/corral-py`).

The package's Python modules wrap it (`corral.api`, `corral.results`, `corral.tables`,
`corral.alloc`); this file lets editors and type checkers see it. `make lint` checks it
against the built module with mypy's stubtest, so a change on the Rust side that is not made
here fails the lint. Numbers cross the boundary as little-endian byte buffers (see the crate's
module doc).
"""

from typing import Any, Dict, List, Optional, Tuple, final

__all__ = [
    "Simulation",
    "alloc_maxmin",
    "alloc_usage",
    "AllocatorCore",
    "version",
    "schemas",
    "summary_fields",
    "kinds",
    "parquet_traces",
    "parse_memory_limit",
    "type_error",
    "scheme_defaults",
    "ScenarioError",
    "SimulationError",
]

class ScenarioError(ValueError):
    """The scenario is invalid; the message names the key."""

class SimulationError(RuntimeError):
    """The simulation failed while running."""

@final
class Simulation:
    """One run, packet-level or fluid by the scenario's `mode`."""

    def __new__(
        cls,
        scenario_toml: str,
        overrides: List[str] = ...,
        source: str = ...,
        max_memory: Optional[str] = None,
        traces: Optional[Dict[int, Tuple[List[str], List[List[Any]]]]] = None,
    ) -> "Simulation": ...
    @property
    def name(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def duration_ps(self) -> int: ...
    @property
    def scenario_json(self) -> str: ...
    @property
    def now_ps(self) -> int: ...
    @property
    def finished(self) -> bool: ...
    @property
    def events(self) -> int: ...
    @property
    def memory_parts(self) -> List[Tuple[str, str, int]]: ...
    @property
    def memory_limit(self) -> int: ...
    @property
    def mode(self) -> str: ...
    @property
    def estimated_events(self) -> int: ...
    def run_until(self, t_ps: int) -> None: ...
    def emulation_export(self) -> str: ...
    def results(self) -> Dict[str, Any]: ...

@final
class AllocatorCore:
    """The incremental max-min allocator (`corral.alloc.Allocator` wraps it)."""

    def __new__(
        cls,
        capacity: bytes,
        indptr: bytes,
        indices: bytes,
        data: bytes,
        weight: Optional[bytes] = None,
        priority: Optional[bytes] = None,
        demand: Optional[bytes] = None,
        headroom: float = 0.0,
        indptr_width: int = 8,
        indices_width: int = 8,
    ) -> "AllocatorCore": ...
    def add_flow(
        self,
        links: bytes,
        fractions: bytes,
        weight: float = 1.0,
        priority: int = 0,
        demand: float = ...,
    ) -> int: ...
    def remove_flow(self, flow: int) -> None: ...
    def set_demand(self, flow: int, demand: float) -> None: ...
    def set_capacity(self, link: int, capacity: float) -> None: ...
    def state(self) -> Tuple[bytearray, bytearray, bytearray]: ...

def alloc_maxmin(
    capacity: bytes,
    indptr: bytes,
    indices: bytes,
    data: bytes,
    weight: Optional[bytes] = None,
    priority: Optional[bytes] = None,
    demand: Optional[bytes] = None,
    headroom: float = 0.0,
    indptr_width: int = 8,
    indices_width: int = 8,
) -> Tuple[bytearray, bytearray]: ...
def alloc_usage(
    topology_json: str,
    src: bytes,
    dst: bytes,
    routing: str,
    direct: float = ...,
    seed: int = 1,
) -> Tuple[bytearray, bytearray, bytearray, bytearray, List[str]]: ...
def version() -> str: ...
def schemas() -> Dict[str, List[Tuple[str, str]]]: ...
def summary_fields() -> List[Tuple[str, str, str]]: ...
def kinds() -> Dict[str, List[str]]: ...
def parquet_traces(scenario_toml: str, overrides: List[str] = ..., source: str = ...) -> List[Tuple[int, str]]: ...
def parse_memory_limit(text: str) -> int: ...
def type_error(scenario_toml: str) -> Optional[str]: ...
def scheme_defaults() -> str: ...
