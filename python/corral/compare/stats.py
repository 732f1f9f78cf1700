"""The numbers behind a comparison: per-run statistics and their spread across a group's runs.

Every statistic is computed per run first (one run = one grid point x seed) and then
summarised per group two ways: pooled (all of the group's flows or samples together) and
across runs (mean, sample standard deviation, min and max of the per-run values), which is
the spread the plots draw as error bars or bands. Flows that did not finish (null `fct_s`)
cannot enter FCT statistics; they are counted (`unfinished`) so the reader sees the bias.
Size buckets follow the usual datacenter split (pFabric, Alizadeh et al., SIGCOMM 2013,
Sec. 5): small < 100KB, medium 100KB-1MB, large >= 1MB; the edges are a setting.
"""

from __future__ import annotations

import re

import numpy as np
import polars as pl

QUANTILES = (("p50", 0.5), ("p99", 0.99), ("p99.9", 0.999))
STATS = ("mean",) + tuple(name for name, _ in QUANTILES)
CDF_POINTS = 2000  # a plotted CDF keeps at most this many points

_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*$")
_UNITS = {"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KIB": 1024, "MIB": 1024**2, "GIB": 1024**3}


def parse_size(text: str) -> float:
    """`"100KB"` -> 100000.0 (K/M/G decimal, KiB/MiB/GiB binary, plain number = bytes)."""
    m = _SIZE.match(text)
    unit = m.group(2).upper() if m else None
    if not m or unit not in _UNITS:
        raise ValueError(f"expected a size like 100KB, 1MB or 64KiB, got {text!r}")
    return float(m.group(1)) * _UNITS[unit]


def bucket_edges(specs: list[str]) -> list[float]:
    """Increasing bucket edges in bytes from size strings."""
    edges = [parse_size(s) for s in specs]
    if not edges or any(b <= a for a, b in zip(edges, edges[1:])) or edges[0] <= 0:
        raise ValueError(f"bucket edges must be positive and increasing, got {', '.join(specs)}")
    return edges


def bucket_labels(specs: list[str]) -> list[str]:
    """`["<100KB", "100KB-1MB", ">=1MB"]` for edges `["100KB", "1MB"]`."""
    names = [s.strip() for s in specs]
    middle = [f"{a}-{b}" for a, b in zip(names, names[1:])]
    return [f"<{names[0]}"] + middle + [f">={names[-1]}"]


def with_bucket(flows: pl.DataFrame, edges: list[float], labels: list[str]) -> pl.DataFrame:
    """Add `bucket` (label) and `bucket_i` (order) from `size_bytes`; unbounded flows get null."""
    size = pl.col("size_bytes")
    index = pl.when(size.is_null()).then(None)
    for i, edge in enumerate(edges):
        index = index.when(size < edge).then(i)
    index = index.otherwise(len(edges)).cast(pl.Int64)
    flows = flows.with_columns(index.alias("bucket_i"))
    return flows.with_columns(pl.col("bucket_i").map_elements(lambda i: labels[i], return_dtype=pl.Utf8).alias("bucket"))


def _stat_exprs(col: str) -> list[pl.Expr]:
    return [pl.col(col).mean().alias("mean")] + [
        pl.col(col).quantile(q, interpolation="linear").alias(name) for name, q in QUANTILES
    ]


def per_run_stats(frame: pl.DataFrame, value: str, by: list[str]) -> pl.DataFrame:
    """Per (by..., run): samples `n` and mean/p50/p99/p99.9 of `value` (nulls ignored)."""
    return (
        frame.group_by([*by, "run", "seed"], maintain_order=True)
        .agg(pl.col(value).count().alias("n"), pl.col(value).null_count().alias("missing"), *_stat_exprs(value))
        .sort([*by, "seed", "run"])
    )


def spread(per_run: pl.DataFrame, pooled: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Long table: per (by..., stat) the pooled value and the mean/std/min/max over runs."""
    rows = []
    for stat in STATS:
        across = per_run.group_by(by, maintain_order=True).agg(
            pl.len().alias("runs"),
            pl.col("n").sum().alias("samples"),
            pl.col("missing").sum().alias("missing"),
            pl.col(stat).mean().alias("run_mean"),
            pl.col(stat).std().alias("run_std"),
            pl.col(stat).min().alias("run_min"),
            pl.col(stat).max().alias("run_max"),
        )
        joined = across.join(pooled.select(*by, pl.col(stat).alias("pooled")), on=by, how="left")
        rows.append(joined.with_columns(pl.lit(stat).alias("stat")))
    out = pl.concat(rows, how="vertical_relaxed")
    order = [*by, "stat", "pooled", "run_mean", "run_std", "run_min", "run_max", "runs", "samples", "missing"]
    stat_order = {s: i for i, s in enumerate(STATS)}
    return (
        out.select(order)
        .with_columns(pl.col("stat").replace_strict(stat_order, return_dtype=pl.Int64).alias("_s"))
        .sort([*by, "_s"], maintain_order=True)
        .drop("_s")
    )


def pooled_stats(frame: pl.DataFrame, value: str, by: list[str]) -> pl.DataFrame:
    return frame.group_by(by, maintain_order=True).agg(*_stat_exprs(value))


def summarise(frame: pl.DataFrame, value: str, by: list[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(per-run stats, spread table) of `value` grouped by `by`."""
    per_run = per_run_stats(frame, value, by)
    return per_run, spread(per_run, pooled_stats(frame, value, by), by)


def cdf(values: np.ndarray, points: int = CDF_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """Empirical CDF (x sorted, y = fraction <= x), thinned to at most `points` points."""
    x = np.sort(np.asarray(values, dtype=float))
    x = x[~np.isnan(x)]
    n = len(x)
    if n == 0:
        return x, x
    y = np.arange(1, n + 1) / n
    if n > points:
        keep = np.unique(np.linspace(0, n - 1, points).round().astype(int))
        x, y = x[keep], y[keep]
    return x, y


def aggregate_throughput(throughput: pl.DataFrame, by: tuple[str, ...] = ()) -> pl.DataFrame:
    """Per (group, by..., time_s): total goodput of a run, then mean/min/max over the group's runs.

    A run with no row at one of its group's sampling times (no flow of that `by` value
    active) counts as 0 there. Rows are put in one order (group, by..., time, run) before
    every sum, so the floating-point results are the same bytes on every call.
    """
    keys = ["group_i", "group", *by]
    per_run = throughput.group_by([*keys, "run", "time_s"], maintain_order=True).agg(pl.col("goodput_bps").sum())
    runs = throughput.select("group_i", "group", "run").unique()
    grid = runs.join(per_run.select(*keys).unique(), on=["group_i", "group"]).join(
        per_run.select("group_i", "time_s").unique(), on="group_i"
    )
    per_run = (
        grid.join(per_run, on=[*keys, "run", "time_s"], how="left")
        .with_columns(pl.col("goodput_bps").fill_null(0.0))
        .sort([*keys, "time_s", "run"])
    )
    return (
        per_run.group_by([*keys, "time_s"], maintain_order=True)
        .agg(
            pl.col("goodput_bps").mean().alias("mean_bps"),
            pl.col("goodput_bps").std().alias("std_bps"),
            pl.col("goodput_bps").min().alias("min_bps"),
            pl.col("goodput_bps").max().alias("max_bps"),
            pl.len().alias("runs"),
        )
        .sort(["group_i", *by, "time_s"])
    )
