"""Figures of the RackCC reproduction (`corral reproduce rackcc`): the analytical model's
speedup of Fast Start over slow start (Fig. 2) and the simulated tail speedups over DCTCP
(Fig. 3a-c)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from ..plots import new_figure, save

L_COLORS = {1: "#1f77b4", 2: "#ff7f0e", 3: "#2ca02c"}
MODEL_LABELS = {"fitted": "fitted to the paper's 3.2x at L = 1", "calibrated": "calibrated on corral's one-path run"}
VARIANT_COLORS = {"RackCC": "#1f77b4", "shared-alpha only": "#ff7f0e", "window sending": "#2ca02c"}


def fig2(table: pl.DataFrame, path: Path) -> Path:
    """Speedup against the new subflow's size and against the existing subflows, per L: the
    model fitted to the paper's 3.2x at L = 1 (solid) and the one calibrated on corral's Fig. 3
    network (dotted, thin)."""
    fig, (by_size, by_n) = new_figure(9.0, 3.6, ncols=2, sharey=True)
    for which, style, width in (("fitted", "-", 1.5), ("calibrated", ":", 0.8)):
        _fig2_curves(table.filter(pl.col("model") == which), by_size, by_n, style, width, which == "fitted")
        by_n.plot([], [], ls=style, lw=width, color="gray", label=MODEL_LABELS[which])
    by_size.set(
        xscale="log",
        xlabel="new subflow size (KB)",
        ylabel="speedup (TCP / RackCC)",
        title="Fig. 2: against size (1 existing subflow)",
    )
    by_n.set(xscale="log", xlabel="existing subflows", title="against subflows (64 KB)")
    for ax in (by_size, by_n):
        ax.axhline(1.0, color="k", lw=0.6, ls=":")
        ax.grid(alpha=0.3)
    by_size.legend(frameon=False, fontsize=9)
    models = [line for line in by_n.get_lines() if line.get_label() in MODEL_LABELS.values()]
    by_n.legend(handles=models, frameon=False, fontsize=8)
    return save(fig, path)


def _fig2_curves(table: pl.DataFrame, by_size: Any, by_n: Any, style: str, width: float, labelled: bool) -> None:
    for L, color in L_COLORS.items():
        s = table.filter((pl.col("sweep") == "size") & (pl.col("L") == L)).sort("size_bytes")
        label = f"L = {L} RTT" if labelled else None
        by_size.plot(
            (s["size_bytes"] / 1e3).to_list(), s["speedup"].to_list(), marker="o", ls=style, lw=width, color=color, label=label
        )
        n = table.filter((pl.col("sweep") == "existing") & (pl.col("L") == L)).sort("existing")
        by_n.plot(n["existing"].to_list(), n["speedup"].to_list(), marker="o", ls=style, lw=width, color=color, label=label)


NET_STYLES = {"one path": "-", "ECMP": "--", "spraying": ":"}


def fig3(speedups: pl.DataFrame, path: Path) -> Path:
    """Median speedup (with the range over seeds) for each sweep: one path solid (the
    paper rows' setup: every variant), ECMP dashed and spraying dotted on the fat-tree
    (sensitivity rows: RackCC only)."""
    fig, axes = new_figure(12.0, 3.6, ncols=3, sharey=True)
    panels = (
        ("subflows", "subflows", "Fig. 3a: subflow count", 1.0),
        ("period_us", "period_us", "Fig. 3b: aggregation period (us)", 1.0),
        ("size", "size", "Fig. 3c: subflow size (KB)", 1e-3),
    )
    for ax, (sweep, col, title, scale) in zip(axes, panels):
        others = [k for k in ("subflows", "period_us", "size") if k != sweep]
        for net, style in NET_STYLES.items():
            runs = speedups.filter(pl.col("net") == net)
            default = runs.filter(pl.col("study") == "default")
            sub = runs.filter(pl.col("study").is_in([sweep, "default"]))
            for k in others:
                if default.height:
                    sub = sub.filter(pl.col(k) == default[k][0])
            for variant, color in VARIANT_COLORS.items():
                if net != "one path" and variant != "RackCC":
                    continue
                g = (
                    sub.filter(pl.col("variant") == variant)
                    .group_by(col)
                    .agg(mid=pl.col("speedup").median(), lo=pl.col("speedup").min(), hi=pl.col("speedup").max())
                    .sort(col)
                )
                if not g.height:
                    continue
                x = [v * scale for v in g[col].to_list()]
                ax.plot(x, g["mid"].to_list(), marker="o", ls=style, color=color, label=f"{variant}, {net}")
                ax.fill_between(x, g["lo"].to_list(), g["hi"].to_list(), color=color, alpha=0.1)
        ax.axhline(1.0, color="k", lw=0.6, ls=":")
        ax.set(xscale="log", title=title)
        ax.grid(alpha=0.3)
    axes[0].set(ylabel="DCTCP / RackCC tail completion time")
    axes[0].legend(frameon=False, fontsize=8)
    return save(fig, path)
