"""Figures of the R2C2 reproduction (`corral reproduce r2c2`): short-flow p99 FCT and
long-flow throughput against tau (Figs. 10-13), queue occupancy (Fig. 14), broadcast bytes
against the small-flow byte share (Fig. 9), per-flow rate error (Figs. 15-16) and packet vs
fluid FCTs (Fig. 7). Each point is the median over seeds; whiskers show the seed range."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from ..plots import new_figure, save

COLORS = {"r2c2": "#1f77b4", "tcp": "#d62728", "ideal": "#2ca02c", "pfq": "#9467bd"}
TAU_ORDER = ["100ns", "1us", "10us", "100us"]


def _median_range(sub: pl.DataFrame, col: str, by: str) -> pl.DataFrame:
    return (
        sub.group_by(by)
        .agg(med=pl.col(col).median(), lo=pl.col(col).min(), hi=pl.col(col).max())
        .with_columns(order=pl.col(by).replace_strict({t: i for i, t in enumerate(TAU_ORDER)}, default=99))
        .sort("order")
    )


def _errorbar(ax, stats: pl.DataFrame, label: str, color: str | None, scale: float) -> None:
    med = [m * scale for m in stats["med"]]
    lo = [(m - x * scale) for m, x in zip(med, stats["lo"])]
    hi = [(x * scale - m) for m, x in zip(med, stats["hi"])]
    ax.errorbar(stats["tau"].to_list(), med, yerr=[lo, hi], marker="o", capsize=3, label=label, color=color)


def tau_panels(runs: pl.DataFrame, path: Path) -> Path:
    """Short-flow p99 FCT and long-flow mean throughput against tau, per scheme."""
    fig, (a, b) = new_figure(10.0, 3.8, ncols=2)
    tau = runs.filter(pl.col("study") == "tau")
    for variant in ("r2c2", "tcp", "pfq", "ideal"):
        sub = tau.filter(pl.col("variant") == variant)
        if sub.height == 0:
            continue
        _errorbar(a, _median_range(sub.drop_nulls("short_p99_fct_s"), "short_p99_fct_s", "tau"), variant, COLORS[variant], 1e6)
        _errorbar(b, _median_range(sub.drop_nulls("long_mean_bps"), "long_mean_bps", "tau"), variant, COLORS[variant], 1e-9)
    a.set(xlabel="mean inter-arrival time tau", ylabel="short flows (< 100 KB): p99 FCT (us)", yscale="log")
    b.set(xlabel="mean inter-arrival time tau", ylabel="long flows (> 1 MB): mean throughput (Gbps)")
    for ax in (a, b):
        ax.legend(frameon=False, fontsize=9)
        ax.grid(alpha=0.3)
    return save(fig, path)


def queues(runs: pl.DataFrame, path: Path) -> Path:
    """Largest occupancy of the torus queues (p99 and median over queues) against tau."""
    fig, ax = new_figure(6.0, 3.8)
    sub = runs.filter((pl.col("study") == "tau") & (pl.col("variant") == "r2c2"))
    for col, label in (("queue_max_p99_bytes", "p99 over queues"), ("queue_max_median_bytes", "median over queues")):
        _errorbar(ax, _median_range(sub.drop_nulls(col), col, "tau"), label, None, 1e-3)
    ax.axhline(54, color="k", ls="--", lw=1, label="54 KB (the issue's bound)")
    ax.set(
        xlabel="mean inter-arrival time tau", ylabel="largest queue (KB)", yscale="log", title="R2C2: queue occupancy (Fig. 14)"
    )
    ax.legend(frameon=False, fontsize=9)
    return save(fig, path)


def broadcast_share(
    runs: pl.DataFrame,
    topologies: Any,
    formula: Callable[[Any, float], float],
    measured: Callable[[pl.DataFrame, str, float], list[float]],
    path: Path,
) -> Path:
    """Broadcast bytes / data byte-hops against the share of bytes in small flows, per
    topology: the formula (line) and the measured mix of the two ends (markers, median over
    seeds), with the 5 % point."""
    fig, ax = new_figure(6.0, 3.8)
    xs = [i / 100 for i in range(0, 101, 2)]
    for (name, geo), color in zip(topologies, ("#1f77b4", "#ff7f0e", "#2ca02c")):
        ax.plot(
            [100 * x for x in xs],
            [100 * formula(geo, x) for x in xs],
            color=color,
            lw=1,
            label=f"{name} {'x'.join(map(str, geo.dims))}: formula",
        )
        points = [(x, measured(runs, name, x)) for x in (0.0, 0.05, 0.25, 0.5, 0.75, 1.0)]
        points = [(x, sorted(v)[len(v) // 2]) for x, v in points if v]
        ax.scatter(
            [100 * x for x, _ in points], [100 * y for _, y in points], color=color, zorder=3, s=18, label=f"{name}: measured"
        )
    ax.axvline(5, color="k", ls=":", lw=1)
    ax.set(
        xlabel="bytes in small (10 KB) flows (%)", ylabel="broadcast / data byte-hops (%)", title="Broadcast overhead (Fig. 9)"
    )
    ax.legend(frameon=False, fontsize=8)
    ax.grid(alpha=0.3)
    return save(fig, path)


def rate_error(err: pl.DataFrame, path: Path) -> Path:
    """CDF of the per-flow rate error against rho = 0 (ideal)."""
    fig, ax = new_figure(6.0, 3.8)
    if err.height:
        for (rho, tau), g in err.group_by("rho", "tau", maintain_order=True):
            e = g["error"].sort().to_list()
            ax.plot([100 * x for x in e], [(i + 1) / len(e) for i in range(len(e))], label=f"rho {rho}, tau {tau}")
    ax.set(
        xlabel="|throughput - ideal| / ideal (%)",
        ylabel="CDF of long flows",
        xscale="symlog",
        title="Long-flow throughput against ideal (Figs. 15-16)",
    )
    ax.legend(frameon=False, fontsize=9)
    ax.grid(alpha=0.3)
    return save(fig, path)


def fig7(f7: pl.DataFrame, path: Path) -> Path:
    """FCT CDFs, packet level against fluid mode (Fig. 7's validation)."""
    fig, ax = new_figure(6.0, 3.8)
    curves = [
        (f7.filter(pl.col("variant") == v)[col], label)
        for v, col, label in (
            ("packet", "fct_s", "packet level, R2C2 (5 % headroom)"),
            ("packet, headroom 0", "fct_s", "packet level, R2C2 without headroom"),
            ("packet", "fct_s_fluid", "fluid (max-min, no headroom)"),
        )
    ]
    for values, label in curves:
        v = values.sort().to_list()
        ax.plot([1e3 * x for x in v], [(i + 1) / len(v) for i in range(len(v))], label=label)
    ax.set(xlabel="FCT (ms)", ylabel="CDF", title="4x4 torus, 5 Gbps, 10 MB flows (Fig. 7)")
    ax.legend(frameon=False, fontsize=9)
    ax.grid(alpha=0.3)
    return save(fig, path)
