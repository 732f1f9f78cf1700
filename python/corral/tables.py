"""Result tables: the column schema of every table a run produces, and their conversion.

The native core defines the output schema once (`corral._core.schemas()`: table -> columns
with their types) and hands back each table as a dict of column name -> data: a list, or
numbers as little-endian bytes ("int" / "float", with a byte per row saying whether the
value is there where it may be missing), or text as distinct values plus uint32 row codes
("cat"), which skips making a Python object per cell. Here each one becomes a polars
DataFrame with that schema, so that an empty table (a run without drops, say) still has the
documented columns and dtypes. docs/guides/outputs.md documents the columns.

polars is imported on first use (`SCHEMAS`, `to_frame`), not with the module: it takes a
fifth of a second, which `corral run` spends while the simulation runs instead.
"""

from __future__ import annotations

import array
import functools
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import _core

if TYPE_CHECKING:
    import polars as pl

TABLES: tuple[str, ...] = tuple(_core.schemas())


@functools.cache
def schemas() -> dict[str, dict[str, pl.DataType]]:
    """Every table's documented columns and their polars dtypes."""
    import polars as pl

    types = {"int": pl.Int64, "float": pl.Float64, "str": pl.Utf8, "bool": pl.Boolean}
    return {name: {col: types[ty] for col, ty in cols} for name, cols in _core.schemas().items()}


def summary_fields() -> list[tuple[str, str, str]]:
    """The keys of summary.json: (key, JSON type, when present), from the core's typed summary."""
    return [tuple(f) for f in _core.summary_fields()]


def __getattr__(name: str) -> Any:
    if name == "SCHEMAS":  # `from corral.tables import SCHEMAS`, built on first use
        return schemas()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def column(data: Any) -> Any:
    """A column as the core hands it over (see the module doc), as a list or polars Series.

    The buffers are read through memoryviews: numpy is not needed, and not imported (it
    would add ~40 ms to every `corral run`).
    """
    if not isinstance(data, tuple):
        return data
    import polars as pl

    kind = data[0]
    if kind == "cat":
        codes = pl.Series(_little_endian(data[2], "I"), dtype=pl.UInt32)
        return pl.Series(data[1], dtype=pl.Utf8).gather(codes)
    values = pl.Series(_little_endian(data[1], "q" if kind == "int" else "d"), dtype=pl.Int64 if kind == "int" else pl.Float64)
    if len(data) == 3:
        there = pl.Series(memoryview(data[2]).cast("B"), dtype=pl.UInt8).cast(pl.Boolean)
        values = pl.select(pl.when(there).then(values)).to_series()
    return values


def _little_endian(buf: bytearray, code: str) -> Sequence:
    """The items of little-endian `buf` (array type code `code`) in this machine's order."""
    if sys.byteorder == "little":
        return memoryview(buf).cast(code)
    items = array.array(code, bytes(buf))
    items.byteswap()
    return items


def to_frame(name: str, columns: Mapping[str, Sequence] | None) -> pl.DataFrame:
    """Build table `name` from a column dict, with the core's schema.

    Columns beyond the schema are kept (after the documented ones) so that no data is lost;
    documented columns that are missing are an error, because every consumer relies on them.
    """
    import polars as pl

    schema = schemas()[name]
    columns = {c: column(d) for c, d in (columns or {}).items()}
    missing = [c for c in schema if c not in columns]
    if columns and missing:
        raise ValueError(f"core results table {name!r} lacks columns {missing}")
    data = {c: columns.get(c, []) for c in schema}
    frame = pl.DataFrame(data, schema=schema)
    extra = [c for c in columns if c not in schema]
    if extra:
        frame = frame.hstack(pl.DataFrame({c: columns[c] for c in extra}))
    return frame
