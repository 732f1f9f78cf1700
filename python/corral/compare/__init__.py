"""`corral compare`: reports over sweep and run folders (see `report`)."""

from .report import CompareResult, compare
from .sources import CompareError

__all__ = ["CompareError", "CompareResult", "compare"]
