"""The comparison plots: CDFs per group with each run's own curve, and bars with the spread.

One colour per group throughout. A CDF plot draws the group's pooled CDF as a thick line
and each run (seed) as a thin line of the same colour, so the per-seed spread is visible;
bar charts show the mean over runs with min-max error bars; time series show the mean over
runs with a min-max band. Figures use `plots.new_figure`/`plots.save` (Agg, no pyplot).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from ..plots import new_figure, save
from .stats import STATS, cdf

THIN_ALPHA = 0.25
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
LINESTYLES = ["-", "--", ":", "-."]  # past 10 groups, colours repeat with another line style
LEGEND_INSIDE_MAX = 4  # more groups than this: the legend goes below the axes


def colors(groups: list[str]) -> dict[str, str]:
    return {g: PALETTE[i % len(PALETTE)] for i, g in enumerate(groups)}


def styles(groups: list[str]) -> dict[str, str]:
    return {g: LINESTYLES[(i // len(PALETTE)) % len(LINESTYLES)] for i, g in enumerate(groups)}


def legend(fig, ax, n_groups: int, *, outside: bool = False, **inside) -> None:
    if n_groups <= LEGEND_INSIDE_MAX and not outside:
        ax.legend(fontsize=8, **inside)
    else:
        handles, labels = ax.get_legend_handles_labels()
        fig.legend(handles, labels, fontsize=8, loc="outside lower center", ncols=2 if n_groups > 8 else 1)


def _finish(ax, title: str, xlabel: str, ylabel: str) -> None:
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.spines[["top", "right"]].set_visible(False)


def cdf_plot(
    samples: pl.DataFrame,
    value: str,
    groups: list[str],
    path: Path,
    *,
    title: str,
    xlabel: str,
    log_x: bool = False,
) -> Path:
    """CDF of `value` per group (pooled, thick) and per run (thin)."""
    fig, ax = new_figure(7.0, 4.2 + _legend_height(groups))
    cmap, smap = colors(groups), styles(groups)
    for g in groups:
        sub = samples.filter(pl.col("group") == g)
        for run in sub["run"].unique(maintain_order=True).to_list():
            x, y = cdf(sub.filter(pl.col("run") == run)[value].drop_nulls().to_numpy())
            ax.step(x, y, where="post", color=cmap[g], alpha=THIN_ALPHA, linewidth=0.8)
        x, y = cdf(sub[value].drop_nulls().to_numpy())
        ax.step(x, y, where="post", color=cmap[g], linestyle=smap[g], linewidth=2.0, label=g)
    if log_x and (samples[value].drop_nulls() > 0).all():
        ax.set_xscale("log")
    ax.set_ylim(0, 1.01)
    legend(fig, ax, len(groups), loc="lower right")
    _finish(ax, title, xlabel, "CDF")
    return save(fig, path)


def bucket_bars(spread: pl.DataFrame, groups: list[str], buckets: list[str], path: Path, *, ylabel: str) -> Path:
    """One panel per statistic: bars per bucket and group, mean over runs, min-max error bars."""
    cmap = colors(groups)  # before dropping groups without sized flows, to keep colours stable
    present = set(spread["group"].to_list())
    groups = [g for g in groups if g in present]
    fig, axes = new_figure(10.0, 6.5 + _legend_height(groups, outside=True), nrows=2, ncols=2)
    width = 0.8 / max(1, len(groups))
    for ax, stat in zip(np.ravel(axes), STATS):
        rows = spread.filter(pl.col("stat") == stat)
        for gi, g in enumerate(groups):
            xs, hs, lo, hi = [], [], [], []
            for bi, b in enumerate(buckets):
                r = rows.filter((pl.col("group") == g) & (pl.col("bucket") == b))
                if r.is_empty() or r["run_mean"][0] is None:
                    continue
                mean, mn, mx = r["run_mean"][0], r["run_min"][0], r["run_max"][0]
                xs.append(bi + (gi - (len(groups) - 1) / 2) * width)
                hs.append(mean)
                lo.append(mean - mn)
                hi.append(mx - mean)
            ax.bar(xs, hs, width=width, color=cmap[g], label=g, yerr=[lo, hi], capsize=2, ecolor="#333333")
        ax.set_xticks(range(len(buckets)), buckets)
        if (rows["run_min"].drop_nulls() > 0).all() and rows["run_min"].drop_nulls().len() > 0:
            ax.set_yscale("log")
        _finish(ax, stat, "flow size", ylabel)
    legend(fig, np.ravel(axes)[0], len(groups), outside=True)
    return save(fig, path)


def throughput_plot(agg: pl.DataFrame, groups: list[str], path: Path) -> Path:
    """Total goodput over time per group: mean over runs, min-max band."""
    fig, ax = new_figure(7.0, 4.2 + _legend_height(groups))
    cmap, smap = colors(groups), styles(groups)
    for g in groups:
        sub = agg.filter(pl.col("group") == g).sort("time_s")
        t = sub["time_s"].to_numpy()
        ax.plot(t, sub["mean_bps"].to_numpy() / 1e9, color=cmap[g], linestyle=smap[g], label=g, linewidth=1.5)
        ax.fill_between(
            t, sub["min_bps"].to_numpy() / 1e9, sub["max_bps"].to_numpy() / 1e9, color=cmap[g], alpha=0.2, linewidth=0
        )
    ax.set_ylim(bottom=0)
    legend(fig, ax, len(groups))
    _finish(ax, "aggregate goodput (mean over runs, min-max band)", "time (s)", "Gbps")
    return save(fig, path)


def _legend_height(groups: list[str], *, outside: bool = False) -> float:
    """Extra figure height (inches) for a legend below the axes."""
    if len(groups) <= LEGEND_INSIDE_MAX and not outside:
        return 0.0
    rows = len(groups) if len(groups) <= 8 else -(-len(groups) // 2)
    return 0.2 * rows + 0.2
