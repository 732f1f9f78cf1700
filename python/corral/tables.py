"""Result tables: the column schema of every table a run produces, and their conversion.

The native core defines the output schema once (`corral._core.schemas()`: table -> columns
with their types) and hands back each table as a dict of column name -> Python list. Here
each one becomes a polars DataFrame with that schema, so that an empty table (a run without
drops, say) still has the documented columns and dtypes. The README documents the columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from . import _core

_TYPES = {"int": pl.Int64, "float": pl.Float64, "str": pl.Utf8, "bool": pl.Boolean}

SCHEMAS: dict[str, dict[str, pl.DataType]] = {
    name: {col: _TYPES[ty] for col, ty in cols} for name, cols in _core.schemas().items()
}

TABLES: tuple[str, ...] = tuple(SCHEMAS)


def to_frame(name: str, columns: Mapping[str, Sequence] | None) -> pl.DataFrame:
    """Build table `name` from a column dict, with the core's schema.

    Columns beyond the schema are kept (after the documented ones) so that no data is lost;
    documented columns that are missing are an error, because every consumer relies on them.
    """
    schema = SCHEMAS[name]
    columns = dict(columns or {})
    missing = [c for c in schema if c not in columns]
    if columns and missing:
        raise ValueError(f"core results table {name!r} lacks columns {missing}")
    data = {c: columns.get(c, []) for c in schema}
    frame = pl.DataFrame(data, schema=schema)
    extra = [c for c in columns if c not in schema]
    if extra:
        frame = frame.hstack(pl.DataFrame({c: columns[c] for c in extra}))
    return frame
