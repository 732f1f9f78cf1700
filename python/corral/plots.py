"""Plots of one run's tables (matplotlib, rendered off-screen by the Agg canvas).

Each `plot_*` function draws one kind of figure onto a given Axes, so experiments can
compose them; `write_run_plots` writes the standard PNGs of a run folder, skipping any
whose table is empty. Figures are built with `matplotlib.figure.Figure` rather than pyplot,
so no global state or GUI backend is involved and plotting is safe from any thread.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

if TYPE_CHECKING:
    from .results import Results

MBPS = 1e6
RUN_CAP = 10  # drop-run histograms show lengths 1..10 and pool longer runs
DPI = 120
MAX_BARS = 200  # a per-flow bar chart is unreadable (and huge) beyond this many flows
# A line of a time plot keeps at most this many points: a 7-inch figure at 120 dpi is 840
# pixels wide, so more cannot be seen, and a run sampled every nanosecond would otherwise
# need gigabytes of matplotlib objects. Longer series are averaged (queues: maximum) over
# equal buckets of consecutive samples.
MAX_POINTS = 2000
# Lines a time plot draws at most; the flows with the most bytes are drawn. With these caps
# plotting needs about the same memory whatever the run (`corral.estimates.PLOT_BYTES`).
MAX_LINES = 100
TAG_COLORS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"]


def new_figure(width: float = 7.0, height: float = 4.0, **subplots) -> tuple[Figure, object]:
    """A Figure and its subplots (`Figure.subplots` arguments), with the house style."""
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    return fig, fig.subplots(**subplots)


def wrap_title(text: str, width_in: float, fontsize: float) -> str:
    """`text` broken into lines that fit a figure `width_in` inches wide at `fontsize`
    points (an average character is about 0.6 of the font size wide; the margins keep a
    tenth): a title longer than its figure is otherwise cut at the edge."""
    import textwrap

    chars = max(20, int(width_in * 72 * 0.9 / (fontsize * 0.6)))
    return textwrap.fill(text, chars)


def save(fig: Figure, path: Path) -> Path:
    fig.savefig(path, metadata={"Software": None})
    return path


def tag_colors(tags: list[str]) -> dict[str, str]:
    """A stable colour per tag, in order of first appearance."""
    order = list(dict.fromkeys(tags))
    return {t: TAG_COLORS[i % len(TAG_COLORS)] for i, t in enumerate(order)}


def _style(ax: Axes, title: str, xlabel: str, ylabel: str) -> None:
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    ax.spines[["top", "right"]].set_visible(False)


def plot_flow_bars(ax: Axes, flows: pl.DataFrame, fair_share_bps: float | None = None) -> None:
    """Goodput of every flow as a bar, coloured by tag."""
    colors = tag_colors(flows["tag"].to_list())
    x = list(range(flows.height))
    ax.bar(
        x,
        (flows["goodput_bps"] / MBPS).to_list(),
        color=[colors[t] for t in flows["tag"]],
    )
    if flows.height <= 40:
        labels = [f"{i}\n{s}" for i, s in zip(flows["flow_id"], flows["src"])]
        ax.set_xticks(x, labels, fontsize=7)
    handles = [Patch(color=color, label=tag or "(untagged)") for tag, color in colors.items()]
    if fair_share_bps:
        ax.axhline(fair_share_bps / MBPS, color="k", ls="--", lw=1)
        handles.append(Line2D([], [], color="k", ls="--", lw=1, label="fair share"))
    ax.legend(handles=handles, fontsize=8, frameon=False)
    _style(ax, "Goodput per flow", "flow (id, source)", "goodput (Mbps)")


def thin(series: pl.DataFrame, value: str, how: str = "mean", max_points: int = MAX_POINTS) -> pl.DataFrame:
    """At most `max_points` rows of a time series (`time_s`, `value`): consecutive samples
    pooled in equal buckets, their time the bucket's first, their value the bucket's mean
    (or maximum)."""
    if series.height <= max_points:
        return series
    size = -(-series.height // max_points)
    agg = pl.col(value).mean() if how == "mean" else pl.col(value).max()
    return (
        series.with_row_index("_i")
        .with_columns((pl.col("_i") // size).alias("_b"))
        .group_by("_b", maintain_order=True)
        .agg(pl.col("time_s").first(), agg)
        .drop("_b")
    )


def biggest(frame: pl.DataFrame, keys: list[str], weight: str, n: int = MAX_LINES) -> pl.DataFrame:
    """The rows of the `n` groups (by `keys`) with the largest sum of `weight`."""
    top = (
        frame.group_by(keys)
        .agg(pl.col(weight).sum().alias("_w"))
        .sort(["_w", *keys], descending=[True] + [False] * len(keys))
        .head(n)
    )
    return frame.join(top.select(keys), on=keys, how="semi")


def plot_goodput_time(ax: Axes, throughput: pl.DataFrame, flows: pl.DataFrame) -> None:
    """Goodput of each flow over time (the `MAX_LINES` flows with the most bytes, each at
    most `MAX_POINTS` points); one colour per tag, or per flow if untagged."""
    throughput = biggest(throughput, ["flow_id"], "bytes")
    tags = dict(zip(flows["flow_id"], flows["tag"]))
    by_tag = len(set(tags.values())) > 1
    colors = tag_colors(list(tags.values()))
    count = {t: list(tags.values()).count(t) for t in colors}
    labelled: set[str] = set()
    for (flow_id,), series in throughput.sort("time_s").group_by("flow_id", maintain_order=True):
        series = thin(series.select("time_s", "goodput_bps"), "goodput_bps")
        tag = tags.get(flow_id, "")
        if by_tag:
            color, label = colors[tag], (None if tag in labelled else tag)
            labelled.add(tag)
            lw, alpha = (2.0, 1.0) if count[tag] == 1 else (0.9, 0.6)
        else:
            color, label, lw, alpha = None, f"flow {flow_id}", 1.2, 0.9
        ax.plot(
            series["time_s"].to_list(),
            (series["goodput_bps"] / MBPS).to_list(),
            color=color,
            lw=lw,
            alpha=alpha,
            label=label,
        )
    if by_tag or flows.height <= 10:
        ax.legend(fontsize=8, frameon=False)
    _style(ax, "Goodput over time", "time (s)", "goodput (Mbps)")


def clip_runs(runs: pl.DataFrame, keys: list[str], cap: int = RUN_CAP) -> pl.DataFrame:
    """Episodes per run length, runs longer than `cap` pooled into length `cap + 1`."""
    return (
        runs.with_columns(pl.col("run_length").clip(upper_bound=cap + 1))
        .group_by(*keys, "run_length")
        .agg(pl.col("episodes").sum())
        .sort(*keys, "run_length")
    )


def run_length_axis(ax: Axes, cap: int = RUN_CAP) -> None:
    """x ticks 1..cap and '>cap' for pooled long runs."""
    ax.set_xticks(range(1, cap + 2), [*map(str, range(1, cap + 1)), f">{cap}"])
    ax.set_xlim(0.4, cap + 1.6)


def plot_drop_runs(ax: Axes, drop_runs: pl.DataFrame, node: str, port: int) -> None:
    """Episodes of k consecutive drops at output port (node, port), one bar set per input port."""
    runs = drop_runs.filter((pl.col("node") == node) & (pl.col("port") == port))
    runs = clip_runs(runs, ["in_port", "in_node"])
    inputs = runs.select("in_port", "in_node").unique().sort("in_port").rows()
    width = 0.8 / max(1, len(inputs))
    for i, (in_port, in_node) in enumerate(inputs):
        sub = runs.filter(pl.col("in_port") == in_port)
        ax.bar(
            [k - 0.4 + width * (i + 0.5) for k in sub["run_length"]],
            sub["episodes"].to_list(),
            width=width,
            label=f"in port {in_port} (from {in_node})",
        )
    run_length_axis(ax)
    ax.legend(fontsize=8, frameon=False)
    _style(ax, f"Consecutive drops at {node}:{port}", "consecutive drops (k)", "episodes")


def plot_queues(ax: Axes, queues: pl.DataFrame) -> None:
    """Queue length of each sampled port over time (the `MAX_LINES` ports with the largest
    queues, each at most `MAX_POINTS` points: the maximum of each bucket)."""
    queues = biggest(queues, ["node", "port"], "bytes")
    for (node, port), series in queues.sort("time_s").group_by(["node", "port"], maintain_order=True):
        series = thin(series.select("time_s", "bytes"), "bytes", "max")
        ax.plot(series["time_s"].to_list(), (series["bytes"] / 1e3).to_list(), lw=0.8, label=f"{node}:{port}")
    ax.legend(fontsize=8, frameon=False)
    _style(ax, "Queue length", "time (s)", "queue (KB)")


def plot_slowdown_by_size(ax: Axes, flows: pl.DataFrame, bins: int = 12) -> None:
    """Median and 99th-percentile slowdown of finished flows against flow size, in
    log-spaced size bins, one line pair per class (the pFabric/HPCC FCT figure)."""
    done = flows.filter(pl.col("slowdown").is_not_null() & (pl.col("size_bytes") > 0))
    lo, hi = math.log(done["size_bytes"].min()), math.log(done["size_bytes"].max())
    span = max(hi - lo, 1e-9)
    log_bin = ((pl.col("size_bytes").log() - lo) / span * bins).floor().clip(0, bins - 1)
    for i, (cls, group) in enumerate(done.group_by("class", maintain_order=True)):
        binned = (
            group.with_columns(log_bin.alias("bin"))
            .group_by("bin")
            .agg(
                size=pl.col("size_bytes").median(),
                p50=pl.col("slowdown").median(),
                p99=pl.col("slowdown").quantile(0.99, "linear"),
            )
            .sort("size")
        )
        color = TAG_COLORS[i % len(TAG_COLORS)]
        name = cls[0] or "(no class)"
        ax.plot(binned["size"].to_list(), binned["p50"].to_list(), color=color, marker="o", ms=3, label=f"{name} p50")
        ax.plot(binned["size"].to_list(), binned["p99"].to_list(), color=color, ls="--", marker="^", ms=3, label=f"{name} p99")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.legend(fontsize=8, frameon=False)
    _style(ax, "FCT slowdown by flow size", "flow size (bytes)", "slowdown (FCT / ideal)")


def worst_ports(drop_runs: pl.DataFrame, n: int = 3) -> list[tuple[str, int]]:
    """The `n` output ports with the most dropped packets in drop runs."""
    return (
        drop_runs.group_by("node", "port")
        .agg((pl.col("run_length") * pl.col("episodes")).sum().alias("dropped"))
        .sort(["dropped", "node", "port"], descending=[True, False, False])
        .head(n)
        .select("node", "port")
        .rows()
    )


def write_run_plots(results: Results, out_dir: Path) -> list[Path]:
    """Write the standard PNGs of a run folder; tables without rows get no plot."""
    written = []
    if 0 < results.flows.height <= MAX_BARS:
        fig, ax = new_figure(max(6.0, 0.3 * results.flows.height), 4.0)
        plot_flow_bars(ax, results.flows)
        written.append(save(fig, out_dir / "throughput_bars.png"))
    if results.throughput.height:
        fig, ax = new_figure()
        plot_goodput_time(ax, results.throughput, results.flows)
        written.append(save(fig, out_dir / "throughput_time.png"))
    if results.throughput_class.height and results.flows["slowdown"].drop_nulls().len():
        fig, ax = new_figure()
        plot_slowdown_by_size(ax, results.flows)
        written.append(save(fig, out_dir / "fct_slowdown.png"))
    if results.queues.height:
        fig, ax = new_figure()
        plot_queues(ax, results.queues)
        written.append(save(fig, out_dir / "queues.png"))
    ports = worst_ports(results.drop_runs)
    if ports:
        fig, axes = new_figure(6.0, 3.2 * len(ports), nrows=len(ports), squeeze=False)
        for ax, (node, port) in zip(axes[:, 0], ports):
            plot_drop_runs(ax, results.drop_runs, node, port)
        written.append(save(fig, out_dir / "drop_runs.png"))
    return written
