"""Figures of the HCC reproduction (`corral reproduce hcc`): FCT CDFs of the web-search
flows (Fig. 4c), the core port's utilization through the capacity steps (Fig. 4a-b), and
the root's control bytes per variant (Figs. 4g-h)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..plots import new_figure, save

COLORS = {"HCC-2": "#1f77b4", "newreno": "#d62728", "cubic": "#ff7f0e", "dctcp": "#2ca02c"}


def fct_cdf(fct: pl.DataFrame, path: Path) -> Path:
    """CDF of the FCTs (all seeds pooled) of the flows every variant finished, under the
    load sentence's reading against ns-3's TCPs (the Fig. 4(c) rows')."""
    fig, ax = new_figure(6.0, 3.8)
    if fct.height:
        fct = fct.filter((pl.col("study") == "fig4") & (pl.col("group") == "ns3"))
    for variant, color in COLORS.items():
        sub = fct.filter(pl.col("variant") == variant)["fct_s"].sort() if fct.height else pl.Series([])
        if sub.len():
            ax.plot([x * 1e3 for x in sub], [(i + 1) / sub.len() for i in range(sub.len())], label=variant, color=color)
    ax.set(xscale="log", xlabel="flow completion time (ms)", ylabel="CDF", title="web search: FCT (Fig. 4c)")
    ax.legend(frameon=False, fontsize=9)
    ax.grid(alpha=0.3)
    return save(fig, path)


def websearch_series(series: pl.DataFrame, phases: tuple, path: Path, reading: str) -> Path:
    """Fig. 4a, 4d, 4e for the first seed under one reading of the load (`series` holds its
    runs): total goodput, the core port's queue and Jain's index, every 1 ms."""
    fig, axes = new_figure(8.0, 7.5, nrows=3, sharex=True)
    first = series["seed"].min() if series.height else None
    for variant, color in COLORS.items():
        sub = series.filter((pl.col("variant") == variant) & (pl.col("seed") == first)).sort("time_s")
        if not sub.height:
            continue
        t = (sub["time_s"] * 1e3).to_list()
        axes[0].plot(t, (sub["goodput_bps"] / 1e9).to_list(), label=variant, color=color, lw=1)
        axes[1].plot(t, sub["packets"].to_list(), label=variant, color=color, lw=1)
        j = sub.drop_nulls("jain")
        axes[2].plot((j["time_s"] * 1e3).to_list(), j["jain"].to_list(), label=variant, color=color, lw=1, marker=".", ms=3)
    axes[0].step(
        [a * 1e3 for a, _, _, _ in phases] + [phases[-1][1] * 1e3],
        [c / 1e9 for _, _, c, _ in phases] + [phases[-1][2] / 1e9],
        where="post",
        color="k",
        lw=0.8,
        ls=":",
        label="core capacity",
    )
    axes[0].set(ylabel="goodput (Gbps)", title=f"web search (Fig. 4a, d, e), load read as {reading}, first seed")
    axes[1].set(ylabel="core queue (packets)", yscale="symlog")
    axes[2].set(ylabel="Jain index (1 ms)", xlabel="time (ms)", ylim=(0, 1.05))
    axes[0].legend(frameon=False, fontsize=8, ncol=5)
    return save(fig, path)


def steps(util: pl.DataFrame, step_times: tuple[tuple[float, float], ...], path: Path) -> Path:
    """Utilization of the core port (100 us means, the first seed) through the steps."""
    fig, ax = new_figure(8.0, 3.8)
    first = util["seed"].min() if util.height else None
    for variant, color in COLORS.items():
        sub = util.filter((pl.col("variant") == variant) & (pl.col("seed") == first)).sort("time_s")
        if sub.height:
            sub = (
                sub.with_columns(bucket=(pl.col("time_s") * 1e4).floor())
                .group_by("bucket")
                .agg(pl.col("util").mean())
                .sort("bucket")
            )
            ax.plot((sub["bucket"] / 10).to_list(), sub["util"].to_list(), label=variant, color=color, lw=1)
    for at, cap in step_times:
        ax.axvline(at * 1e3, color="k", lw=0.8, ls=":")
        ax.text(at * 1e3, 1.12, f" {cap / 1e9:g} Gbps", fontsize=8, va="top")
    ax.axhline(0.95, color="grey", lw=0.8, ls="--")
    ax.set(xlabel="time (ms)", ylabel="core port utilization", ylim=(0, 1.15), title="capacity steps (Fig. 4a-b)")
    ax.legend(frameon=False, fontsize=9, ncol=4, loc="lower right")
    return save(fig, path)


def overhead(runs: pl.DataFrame, path: Path) -> Path:
    """Bytes received and sent by the root agent (or the centralized controller), medians
    over seeds."""
    fig, (a, b) = new_figure(10.0, 3.8, ncols=2)
    order = ["centralized", "centralized, polling", "HCC-1", "HCC-2", "HCC-3", "HCC-2, no quantization"]
    sub = runs.filter(pl.col("variant").is_in(order) & pl.col("study").is_in(["fig4", "overhead"]))
    stats = sub.group_by("variant").agg(pl.col("root_received_bytes").median(), pl.col("root_sent_bytes").median())
    by = {r["variant"]: r for r in stats.to_dicts()}
    names = [v for v in order if v in by]
    for ax, col, title in (
        (a, "root_received_bytes", "received at the root (Fig. 4g)"),
        (b, "root_sent_bytes", "sent by the root (Fig. 4h)"),
    ):
        colors = ["#d62728" if n.startswith("centralized") else "#1f77b4" for n in names]
        ax.bar(range(len(names)), [by[n][col] / 1e3 for n in names], color=colors)
        ax.set_xticks(range(len(names)), [n.replace(", ", "\n") for n in names], fontsize=8)
        ax.set(ylabel="KB", yscale="log", title=title)
    return save(fig, path)


def grpc(runs: pl.DataFrame, path: Path) -> Path:
    """gRPC (Fig. 5): mean and p99 response FCT and the core queue's p99, medians over
    seeds."""
    fig, (a, b) = new_figure(10.0, 3.8, ncols=2)
    sub = runs.filter(pl.col("study") == "grpc")
    stats = sub.group_by("variant").agg(
        pl.col("mean_response_fct_s").median(), pl.col("p99_response_fct_s").median(), pl.col("queue_p99_pkts").median()
    )
    by = {r["variant"]: r for r in stats.to_dicts()}
    names = [v for v in ("HCC-2", "newreno", "cubic", "dctcp", "HCC-2, headroom 5 %", "HCC-2, uniform phases") if v in by]
    x = range(len(names))
    a.bar([i - 0.2 for i in x], [by[n]["mean_response_fct_s"] * 1e3 for n in names], width=0.4, label="mean")
    a.bar([i + 0.2 for i in x], [by[n]["p99_response_fct_s"] * 1e3 for n in names], width=0.4, label="p99")
    a.set(ylabel="response FCT (ms)", title="gRPC: response FCT (Fig. 5)")
    a.legend(frameon=False, fontsize=9)
    b.bar(x, [max(by[n]["queue_p99_pkts"], 0.5) for n in names], color=[COLORS.get(n, "#7f7f7f") for n in names])
    b.set(ylabel="packets", yscale="log", title="gRPC: core queue p99")
    for ax in (a, b):
        ax.set_xticks(list(x), [n.replace(", ", "\n") for n in names], fontsize=8)
    return save(fig, path)
