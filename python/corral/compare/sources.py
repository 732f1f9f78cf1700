"""Find the runs of the folders given to `corral compare` and load their tables.

A folder is either a sweep folder (`index.parquet`, runs in `runs/<hash>/`) or a single run
folder (`summary.json`, as `corral run` writes it). All runs go into one catalog: one row
per run with `source` (the folder's name), `run` (the hash, or the folder name), `path`,
every swept key as a column, `seed` and `status`. A run's status is read from its folder when
the catalog is made (`corral.sweep.layout.status`: complete, as its marker says, with every
file it lists at its size), not taken from the sweep's index, which a killed writer may have
left behind its folders. Only runs with status `ok` are compared; the others are counted in
the report. A table that cannot be read is an error naming its file. Tables are read per run and stacked with
`how="diagonal_relaxed"`, so runs from an older corral that lack a newer column still load
(the column is null for them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from ..sweep import layout

CATALOG_COLUMNS = ("source", "run", "path", "seed", "status")


class CompareError(ValueError):
    """The folders to compare, or the options, are unusable; the message says which."""


@dataclass
class Catalog:
    """The runs to compare."""

    runs: pl.DataFrame  # CATALOG_COLUMNS plus the swept keys
    keys: list[str]  # swept keys, in order of first appearance

    @property
    def ok(self) -> pl.DataFrame:
        return self.runs.filter(pl.col("status") == layout.OK)

    def varying_keys(self) -> list[str]:
        """Swept keys (and `source`) that take more than one value among the ok runs."""
        ok = self.ok
        keys = [k for k in self.keys if ok[k].n_unique() > 1]
        if ok["source"].n_unique() > 1:
            keys = ["source"] + keys
        return keys


def load_catalog(folders: list[Path]) -> Catalog:
    """Catalog the runs of every folder (CompareError if a folder is neither kind)."""
    if not folders:
        raise CompareError("give at least one sweep or run folder")
    names = _source_names(folders)
    frames, keys = [], []
    for folder, name in zip(folders, names):
        if (folder / layout.INDEX).is_file():
            frame, swept = _sweep_runs(folder, name)
        elif (folder / layout.DONE_FILE).is_file():
            frame, swept = _single_run(folder, name), []
        elif not folder.exists():
            raise CompareError(f"{folder}: no such folder")
        else:
            raise CompareError(f"{folder}: neither a sweep folder (index.parquet) nor a run folder (summary.json)")
        frames.append(frame)
        keys += [k for k in swept if k not in keys]
    runs = pl.concat(frames, how="diagonal_relaxed")
    if runs.filter(pl.col("status") == layout.OK).is_empty():
        raise CompareError("no finished runs to compare (every run failed or is missing)")
    return Catalog(runs, keys)


def _source_names(folders: list[Path]) -> list[str]:
    """The folder names, or their full paths if two folders share a name."""
    names = [f.absolute().name for f in folders]
    if len(set(names)) < len(names):
        return [str(f) for f in folders]
    return names


def _sweep_runs(folder: Path, name: str) -> tuple[pl.DataFrame, list[str]]:
    index = read_parquet(folder / layout.INDEX)
    meta = layout.read_json(folder / layout.SWEEP_JSON)
    fixed = {"hash", "seed", "status", "wall_time_s", "error"}
    keys = meta.get("keys") or [c for c in index.columns if c not in fixed]
    paths = [str(folder / layout.RUNS / h) for h in index["hash"].to_list()]
    frame = index.select(
        pl.lit(name).alias("source"),
        pl.col("hash").alias("run"),
        pl.Series("path", paths, pl.Utf8),
        pl.col("seed"),
        pl.Series("status", [layout.status(Path(p)) for p in paths], pl.Utf8),
        *[pl.col(k) for k in keys if k in index.columns],
    )
    return frame, [k for k in keys if k in index.columns]


def _single_run(folder: Path, name: str) -> pl.DataFrame:
    if layout.status(folder) != layout.OK:
        raise CompareError(
            f"{folder}: is not a complete run folder (its writer was interrupted, or a file changed since); run it again"
        )
    summary = json.loads((folder / layout.DONE_FILE).read_text(encoding="utf-8"))
    return pl.DataFrame(
        {"source": [name], "run": [name], "path": [str(folder)], "seed": [summary.get("seed")], "status": [layout.OK]},
        schema={"source": pl.Utf8, "run": pl.Utf8, "path": pl.Utf8, "seed": pl.Int64, "status": pl.Utf8},
    )


def read_table(runs: pl.DataFrame, table: str, carry: list[str]) -> pl.DataFrame | None:
    """Stack `table`.parquet of every run, with the `carry` catalog columns added.

    Returns None if no run has the file; runs without it are left out.
    """
    frames = []
    for row in runs.iter_rows(named=True):
        path = Path(row["path"]) / f"{table}.parquet"
        if not path.is_file():
            continue
        frame = read_parquet(path)
        frames.append(frame.with_columns(pl.lit(row[c]).alias(c) for c in carry))
    if not frames:
        return None
    return pl.concat(frames, how="diagonal_relaxed")


def read_parquet(path: Path) -> pl.DataFrame:
    """A Parquet table, or CompareError naming the file when it cannot be read (truncated,
    not Parquet)."""
    try:
        return pl.read_parquet(path)
    except Exception as e:  # noqa: BLE001 -- polars raises several kinds for a corrupt file
        first = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
        raise CompareError(f"{path}: cannot be read as a Parquet table ({first})") from None
