"""The TCP Outcast reproduction's figures, in the style of the paper's Figs. 3 and 11.

Each function takes the measured tables of `outcast.Report` and writes one PNG:
per-flow goodput bars per case (Fig. 3d-f), episodes of k consecutive drops at the
bottleneck for the 2-hop input port vs the 6-hop ports (Fig. 11), goodput over time for one
seed (Fig. 3a-c), and the 2-hop/6-hop ratio over the buffer x routing sweep.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..plots import MBPS, clip_runs, new_figure, plot_goodput_time, run_length_axis, save
from ..results import Results

FEW_COLOR, MANY_COLOR = "#d62728", "#1f77b4"


def throughput_bars(flows: pl.DataFrame, cases: pl.DataFrame, path: Path) -> Path:
    """Median goodput over seeds of the 2-hop flow and of each 6-hop flow, whiskers at the
    seeds' minimum and maximum, one panel per case."""
    names = cases["case"].to_list()
    fig, axes = new_figure(4.0 * len(names), 4.0, ncols=len(names), squeeze=False)
    ymax = flows["goodput_bps"].max() / MBPS * 1.15
    for ax, info in zip(axes[0], cases.iter_rows(named=True)):
        per_flow = (
            flows.filter(pl.col("case") == info["case"])
            .group_by("flow_id", "tag", "src")
            .agg(
                median=pl.col("goodput_bps").median() / MBPS,
                lo=pl.col("goodput_bps").min() / MBPS,
                hi=pl.col("goodput_bps").max() / MBPS,
            )
            .sort(pl.col("tag") != "2-hop", "flow_id")
        )
        colors = [FEW_COLOR if t == "2-hop" else MANY_COLOR for t in per_flow["tag"]]
        x = list(range(per_flow.height))
        med = per_flow["median"].to_list()
        spread = [[m - lo for m, lo in zip(med, per_flow["lo"])], [hi - m for m, hi in zip(med, per_flow["hi"])]]
        ax.bar(x, med, yerr=spread, color=colors, capsize=2, error_kw={"lw": 0.8})
        ax.set_xticks(x, per_flow["src"].to_list(), fontsize=7, rotation=90)
        ax.axhline(info["fair_share_mbps"], color="k", ls="--", lw=1)
        ax.axhline(info["goodput_6hop_mean_mbps"], color=MANY_COLOR, ls=":", lw=1.2)
        ax.set_ylim(0, ymax)
        ax.set_title(f"1 vs {info['n_6hop']} flows: ratio {info['ratio_median']:.2f} (median)", fontsize=11)
        ax.set_xlabel("flow (sender)")
        ax.spines[["top", "right"]].set_visible(False)
    axes[0][0].set_ylabel(f"goodput (Mbps), median and range of {cases['seeds'][0]} seed(s)")
    handles = [
        Patch(color=FEW_COLOR, label="2-hop flow"),
        Patch(color=MANY_COLOR, label="6-hop flows"),
        Line2D([], [], color=MANY_COLOR, ls=":", lw=1.2, label="6-hop mean (median over seeds)"),
        Line2D([], [], color="k", ls="--", lw=1, label="fair share"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=4, frameon=False, fontsize=9)
    return save(fig, path)


def drop_runs(drop_hist: pl.DataFrame, n_seeds: int, path: Path) -> Path:
    """Episodes of k consecutive drops per seed, 2-hop input port vs 6-hop input ports."""
    hist = clip_runs(drop_hist, ["port_class"]).with_columns(per_seed=pl.col("episodes") / n_seeds)
    fig, ax = new_figure(6.5, 3.8)
    for offset, cls, color in ((-0.2, "2-hop", FEW_COLOR), (0.2, "6-hop", MANY_COLOR)):
        sub = hist.filter(pl.col("port_class") == cls).sort("run_length")
        ax.bar(
            [k + offset for k in sub["run_length"]],
            sub["per_seed"].to_list(),
            width=0.4,
            color=color,
            label=f"{cls} input port" + ("s" if cls == "6-hop" else ""),
        )
    run_length_axis(ax)
    ax.set_yscale("log")
    ax.set_xlabel("consecutive packet drops (k)")
    ax.set_ylabel(f"episodes per run (mean of {n_seeds})")
    ax.set_title("Drop runs at the bottleneck port (12 six-hop flows)", fontsize=11)
    ax.legend(frameon=False, fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    ax.spines[["top", "right"]].set_visible(False)
    return save(fig, path)


def throughput_time(timeline: dict[str, Results], path: Path) -> Path:
    """Goodput of every flow over time in one seed, one panel per case."""
    fig, axes = new_figure(8.0, 2.6 * len(timeline), nrows=len(timeline), squeeze=False, sharex=True)
    for ax, (case, res) in zip(axes[:, 0], timeline.items()):
        plot_goodput_time(ax, res.throughput, res.flows)
        to_receiver = res.ports.filter(pl.col("peer") == res.flows["dst"][0])["rate_bps"]
        if to_receiver.len():
            ax.axhline(to_receiver[0] / res.flows.height / MBPS, color="k", ls="--", lw=1, label="fair share")
            ax.legend(fontsize=8, frameon=False, loc="upper right")
        n_many = res.flows.filter(pl.col("tag") == "6-hop").height
        ax.set_title(f"{case}: 1 two-hop vs {n_many} six-hop flows, seed {res.summary.get('seed')}", fontsize=10)
        if case != list(timeline)[-1]:
            ax.set_xlabel("")
    return save(fig, path)


def sweep(table: pl.DataFrame, path: Path) -> Path:
    """Ratio (2-hop / mean 6-hop goodput) per buffer, one bar per routing scheme."""
    buffers = list(dict.fromkeys(table["buffer"]))
    routings = list(dict.fromkeys(table["routing"]))
    width = 0.8 / len(routings)
    fig, ax = new_figure(6.5, 3.8)
    for i, routing in enumerate(routings):
        sub = table.filter(pl.col("routing") == routing)
        pos = {b: j for j, b in enumerate(buffers)}
        med = sub["ratio_median"].to_list()
        spread = [[m - lo for m, lo in zip(med, sub["ratio_min"])], [hi - m for m, hi in zip(med, sub["ratio_max"])]]
        ax.bar([pos[b] - 0.4 + width * (i + 0.5) for b in sub["buffer"]], med, yerr=spread, width=width, capsize=2, label=routing)
    ax.axhline(1.0, color="k", ls="--", lw=1, label="fair (ratio 1)")
    ax.set_xticks(range(len(buffers)), buffers)
    ax.set_xlabel("switch buffer per port")
    ax.set_ylabel("2-hop / mean 6-hop goodput\n(median, whiskers: seed range)")
    ax.set_title("Outcast ratio, 12 six-hop flows", fontsize=11)
    ax.legend(frameon=False, fontsize=9, title="routing", title_fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    ax.spines[["top", "right"]].set_visible(False)
    return save(fig, path)
