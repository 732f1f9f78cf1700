"""`corral compare`: reports over sweep and run folders (see `report`).

`compare`, `CompareResult` and `CompareError` load on first use: the report pulls in numpy
and polars, which `corral run` does not need at start-up."""

from typing import Any

__all__ = ["CompareError", "CompareResult", "compare"]


def __getattr__(name: str) -> Any:
    if name in ("CompareResult", "compare"):
        from . import report

        return getattr(report, name)
    if name == "CompareError":
        from .sources import CompareError

        return CompareError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
