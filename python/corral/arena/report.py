"""The arena's report: `leaderboard.md`, `index.html` and its plots, from `arena.parquet`.

- **Overall**: per contender, over the cells it ran, the geometric mean of its ratio to
  `ideal` in p99 slowdown of flows < 100 KB (the headline), the cells where it is at most
  10 % above `ideal`, and the cells where it was n/a (with reasons).
- **Per workload and network**: contenders ranked by the headline metric's median over
  seeds (by long-flow goodput where no flow < 100 KB finished: the permutation), at each load, with the other metrics beside (median, and [min-max] over seeds when
  there are several), each with its ratio to `ideal`.
- **Plots**: p99 small-flow slowdown against load per workload (one panel per network, one
  line per contender, `ideal` dashed, log scale), and a heatmap of contenders x cells
  coloured by log2 of that ratio to `ideal` (n/a cells grey).
- **Findings**: sentences generated from the same table: in how many cells each contender is
  at most 10 % above `ideal` (and more than 10 % below it), where it loses most, and per
  workload which contender has the lowest value in how many cells (ties counted as ties).
  Nothing is said that the tables do not show.
"""

from __future__ import annotations

import html
import math
from pathlib import Path

import polars as pl

from .metrics import CELL_KEYS, HEADLINE, METRICS, ratios
from .plan import REFERENCE

WITHIN = 0.10  # "within 10 % of ideal"
TIE = 1e-9  # relative difference below which two medians are the same value
SHOWN = (
    "slowdown_p99_small",
    "slowdown_p99_medium",
    "slowdown_p99_large",
    "long_goodput_gbps",
    "queue_p99_kb",
    "drop_rate",
    "timeouts_per_kflow",
    "jain",
    "control_ratio",
    "unfinished",
    "incast_qct_p99_ms",
    "rpc_per_s",
    "offered_load",
)


def write_report(frame: pl.DataFrame, out: Path) -> list[Path]:
    """Write leaderboard.md, index.html and plots/*.png into the (scratch) folder `out`,
    which the arena then publishes into its folder (`corral.outdir`); return the plots."""
    table = ratios(frame, REFERENCE)
    na = _na_cells(frame)
    plots_dir = out / "plots"
    plots_dir.mkdir(exist_ok=True)
    plots = [*slowdown_plots(table, plots_dir), heatmap(table, na, plots_dir / "heatmap_ratio_to_ideal.png")]
    plots = [p for p in plots if p is not None]
    findings = findings_text(table, na)
    md = leaderboard_md(table, na, findings)
    (out / "leaderboard.md").write_text(md, encoding="utf-8")
    (out / "index.html").write_text(index_html(md, plots, out), encoding="utf-8")
    return plots


def _na_cells(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per contender x cell that did not run, with its status and reason."""
    return (
        frame.filter(pl.col("status") != "ok")
        .group_by(["contender", *CELL_KEYS], maintain_order=True)
        .agg(pl.col("status").first(), pl.col("reason").first())
    )


def _cell_name(network: str, workload: str, load: float | None) -> str:
    return f"{network} {workload}" + ("" if load is None else f" {load:.0%}")


def _fmt(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 0.01:
        return f"{value:.3g}"
    return f"{value:.2e}"


def headline(table: pl.DataFrame) -> pl.DataFrame:
    """Per contender and cell: the headline median and its ratio to ideal."""
    return table.filter(pl.col("metric") == HEADLINE).select("contender", *CELL_KEYS, "median", "ratio")


def overall(table: pl.DataFrame, na: pl.DataFrame) -> pl.DataFrame:
    """Per contender: cells run, geometric-mean headline ratio, cells at most 10 % above, n/a."""
    head = headline(table).filter(pl.col("ratio").is_not_null() & (pl.col("ratio") > 0))
    per = head.group_by("contender", maintain_order=True).agg(
        pl.len().alias("cells"),
        pl.col("ratio").log().mean().exp().alias("geomean_ratio"),
        (pl.col("ratio") <= 1 + WITHIN).sum().alias("within"),
    )
    missing = na.group_by("contender", maintain_order=True).agg(pl.len().alias("na"))
    contenders = pl.DataFrame({"contender": list(dict.fromkeys(table["contender"].to_list() + na["contender"].to_list()))})
    out = contenders.join(per, on="contender", how="left").join(missing, on="contender", how="left")
    return out.with_columns(pl.col("na").fill_null(0), pl.col("cells").fill_null(0), pl.col("within").fill_null(0)).sort(
        ["geomean_ratio", "contender"], nulls_last=True
    )


def leaderboard_md(table: pl.DataFrame, na: pl.DataFrame, findings: list[str]) -> str:
    lines = [
        "# Arena leaderboard",
        "",
        f"Ranked by the p99 FCT slowdown of flows < 100 KB; `x ideal` is the ratio of the median over seeds to "
        f"`{REFERENCE}`'s in the same cell (lower is better for slowdowns, queues, drops; higher for goodput, "
        "Jain's index, RPCs/s). Values are medians over seeds, [min-max] when there are several.",
        "",
        "## Overall",
        "",
        "| rank | contender | cells run | geomean p99 slowdown < 100 KB x ideal | cells at most 10 % above ideal | n/a cells |",
        "|---|---|---|---|---|---|",
    ]
    for i, row in enumerate(overall(table, na).iter_rows(named=True), 1):
        lines.append(
            f"| {i} | {row['contender']} | {row['cells']} | {_fmt(row['geomean_ratio'])} | {row['within']} | {row['na']} |"
        )
    lines += ["", "## Findings", ""] + [f"- {f}" for f in findings]
    if na.height:
        lines += ["", "## Cells not run", "", "| contender | cell | status | reason |", "|---|---|---|---|"]
        reasons = na.group_by(["contender", "network", "status", "reason"], maintain_order=True).agg(
            pl.struct("workload", "load").alias("cells")
        )
        for row in reasons.iter_rows(named=True):
            cells = ", ".join(_cell_name("", c["workload"], c["load"]).strip() for c in row["cells"])
            reason = (row["reason"] or "").replace("|", "\\|").replace("\n", " ")
            lines.append(f"| {row['contender']} | {row['network']}: {cells} | {row['status']} | {reason} |")
    shown = [m for m in SHOWN if m in set(table["metric"].to_list())]
    for workload in dict.fromkeys(table["workload"].to_list()):
        lines += ["", f"## {workload}"]
        wt = table.filter(pl.col("workload") == workload)
        for (network, load), cell in wt.group_by(["network", "load"], maintain_order=True):
            cols = [m for m in shown if m in set(cell["metric"].to_list())]
            wide = {(r["contender"], r["metric"]): r for r in cell.iter_rows(named=True)}
            metric = rank_metric(cell)
            sign = -METRICS[metric][1]  # ascending when lower is better

            def key(c: str, metric: str = metric, sign: int = sign) -> tuple:
                value = wide.get((c, metric), {}).get("median")  # noqa: B023 -- used within this iteration
                return (value is None, sign * (value or 0.0), c)

            order = sorted(dict.fromkeys(cell["contender"].to_list()), key=key)
            lines += ["", f"### {_cell_name(network, workload, load)}", "", f"Ranked by {METRICS[metric][0]}.", ""]
            lines.append("| rank | contender | " + " | ".join(METRICS[m][0] for m in cols) + " |")
            lines.append("|---|---|" + "---|" * len(cols))
            for rank, c in enumerate(order, 1):
                lines.append(f"| {rank} | {c} | " + " | ".join(_value(wide.get((c, m))) for m in cols) + " |")
            gone = na.filter(
                (pl.col("workload") == workload)
                & (pl.col("network") == network)
                & (pl.col("load").is_null() if load is None else pl.col("load") == load)
            )
            for row in gone.iter_rows(named=True):
                lines.append(f"| - | {row['contender']} | {row['status']}" + " |" * len(cols))
    return "\n".join(lines) + "\n"


def rank_metric(cell: pl.DataFrame) -> str:
    """What a cell's contenders are ranked by: the headline, or long-flow goodput where no
    flow < 100 KB finished (the permutation of long flows)."""
    present = set(cell["metric"].to_list())
    return HEADLINE if HEADLINE in present or "long_goodput_gbps" not in present else "long_goodput_gbps"


def _value(row: dict | None) -> str:
    if row is None:
        return "-"
    text = _fmt(row["median"])
    if row["seeds"] > 1:
        text += f" [{_fmt(row['min'])}-{_fmt(row['max'])}]"
    if row["ratio"] is not None and row["contender"] != REFERENCE:
        text += f" ({_fmt(row['ratio'])}x)"
    return text


def findings_text(table: pl.DataFrame, na: pl.DataFrame) -> list[str]:
    """Sentences read off the headline table (module doc)."""
    head = headline(table).filter(pl.col("contender") != REFERENCE)
    out: list[str] = []
    if not head.height:
        return ["No contender besides the reference ran."]
    rated = head.filter(pl.col("ratio").is_not_null())
    for contender in dict.fromkeys(head["contender"].to_list()):
        mine = rated.filter(pl.col("contender") == contender)
        if not mine.height:
            continue
        near = mine.filter(pl.col("ratio") <= 1 + WITHIN)
        below = mine.filter(pl.col("ratio") < 1 - WITHIN)
        worst = mine.sort(["ratio"], descending=True).row(0, named=True)
        text = (
            f"**{contender}**'s p99 slowdown < 100 KB is at most {WITHIN:.0%} above `{REFERENCE}`'s in "
            f"{near.height} of {mine.height} cells"
        )
        if 0 < near.height <= 4:
            text += " (" + ", ".join(_cell_name(r["network"], r["workload"], r["load"]) for r in near.iter_rows(named=True)) + ")"
        if below.height:
            best = below.sort("ratio").row(0, named=True)
            text += (
                f", more than {WITHIN:.0%} below it in {below.height} (lowest on "
                f"{_cell_name(best['network'], best['workload'], best['load'])}, {_fmt(best['ratio'])}x)"
            )
        text += (
            f"; it loses most on {_cell_name(worst['network'], worst['workload'], worst['load'])}, "
            f"at {_fmt(worst['ratio'])}x `{REFERENCE}` ({_fmt(worst['median'])} against "
            f"{_fmt(worst['median'] / worst['ratio'])})."
        )
        out.append(text)
    for workload in dict.fromkeys(head["workload"].to_list()):
        w = rated.filter(pl.col("workload") == workload)
        if not w.height:
            continue
        cells = w.group_by(["network", "load"], maintain_order=True).agg(
            pl.col("contender").filter(pl.col("ratio") <= pl.col("ratio").min() * (1 + TIE)).alias("best")
        )
        alone = cells.filter(pl.col("best").list.len() == 1).with_columns(pl.col("best").list.first())
        wins = alone.group_by("best", maintain_order=True).agg(pl.len().alias("n")).sort(["n", "best"], descending=[True, False])
        parts = [f"{r['best']} in {r['n']}" for r in wins.iter_rows(named=True)]
        tied = cells.height - alone.height
        if tied:
            parts.append(f"a tie of several in {tied}")
        out.append(
            f"On **{workload}**, the lowest p99 slowdown < 100 KB besides `{REFERENCE}` "
            f"(of {cells.height} network x load cells): " + ", ".join(parts) + "."
        )
    short = _short_of_load(table)
    if short:
        out.append(
            f"In {len(short)} cells the offered load (`{REFERENCE}`'s run; every contender has the same flows) "
            f"was below half its target, so their numbers are of a lighter network: " + ", ".join(short) + "."
        )
    if na.height:
        for contender, rows in na.group_by("contender", maintain_order=True):
            out.append(
                f"**{contender[0]}** did not run in {rows.height} cells ({', '.join(sorted(set(rows['status'])))}; "
                'reasons under "Cells not run").'
            )
    return out


def _short_of_load(table: pl.DataFrame) -> list[str]:
    """Cells whose offered load (reference run, median over seeds) is below half the target."""
    offered = table.filter(
        (pl.col("metric") == "offered_load")
        & (pl.col("contender") == REFERENCE)
        & pl.col("load").is_not_null()
        & (pl.col("median") < 0.5 * pl.col("load"))
    )
    return [f"{_cell_name(r['network'], r['workload'], r['load'])} ({r['median']:.2g})" for r in offered.iter_rows(named=True)]


def slowdown_plots(table: pl.DataFrame, folder: Path) -> list[Path]:
    """Per open-loop workload with several loads: headline against load, a panel per network."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FormatStrFormatter, LogLocator

    from ..compare.figures import PALETTE

    head = headline(table).filter(pl.col("load").is_not_null())
    contenders = list(dict.fromkeys(table["contender"].to_list()))
    colours = {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(contenders)}
    paths = []
    for workload in dict.fromkeys(head["workload"].to_list()):
        w = head.filter(pl.col("workload") == workload)
        if w["load"].n_unique() < 2:
            continue
        nets = list(dict.fromkeys(w["network"].to_list()))
        fig, axes = plt.subplots(1, len(nets), figsize=(4.2 * len(nets), 4.2), squeeze=False)
        for ax, net in zip(axes[0], nets):
            for i, c in enumerate(contenders):
                pts = w.filter((pl.col("network") == net) & (pl.col("contender") == c)).sort("load")
                if not pts.height:
                    continue
                ref = c == REFERENCE
                ax.plot(
                    pts["load"] * 100,
                    pts["median"],
                    label=c,
                    color="black" if ref else colours[c],
                    linestyle="--" if ref else ["-", "-.", ":"][i // len(PALETTE) % 3],
                    marker="o",
                    linewidth=2.2 if ref else 1.4,
                    markersize=3,
                )
            ax.set_yscale("log")
            ax.yaxis.set_minor_locator(LogLocator(base=10, subs=(2, 5)))
            ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
            ax.yaxis.set_minor_formatter(FormatStrFormatter("%g"))
            ax.tick_params(axis="y", which="minor", labelsize=6)
            ax.set_title(net)
            ax.set_xlabel("load (%)")
            ax.grid(True, which="both", alpha=0.3)
        axes[0][0].set_ylabel("p99 FCT slowdown, flows < 100 KB")
        handles, labels = axes[0][0].get_legend_handles_labels()
        for ax in axes[0][1:]:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in labels:
                    handles.append(h)
                    labels.append(lab)
        fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 6), fontsize=8)
        fig.suptitle(f"{workload}: p99 slowdown of flows < 100 KB against load ({REFERENCE} dashed)")
        fig.tight_layout(rect=(0, 0.12, 1, 0.95))
        path = folder / f"slowdown_vs_load_{workload}.png"
        fig.savefig(path, dpi=110, format="png")
        plt.close(fig)
        paths.append(path)
    return paths


def heatmap(table: pl.DataFrame, na: pl.DataFrame, path: Path) -> Path | None:
    """Contenders x cells, coloured by log2(headline ratio to ideal); n/a cells grey."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    head = headline(table)
    if not head.height:
        return None
    # cells where the headline exists (the permutation has no flows < 100 KB: its table ranks
    # by goodput); a contender n/a there is marked
    cells = list(dict.fromkeys((r["network"], r["workload"], r["load"]) for r in head.select(CELL_KEYS).iter_rows(named=True)))
    cells.sort(key=lambda c: (c[1], c[0], -1 if c[2] is None else c[2]))
    contenders = list(dict.fromkeys(head["contender"].to_list() + na["contender"].to_list()))
    index = {c: i for i, c in enumerate(cells)}
    grid = np.full((len(contenders), len(cells)), np.nan)
    for r in head.iter_rows(named=True):
        if r["ratio"] is not None and r["ratio"] > 0:
            grid[contenders.index(r["contender"]), index[(r["network"], r["workload"], r["load"])]] = math.log2(r["ratio"])
    missing = np.zeros_like(grid, dtype=bool)
    for r in na.iter_rows(named=True):
        cell = (r["network"], r["workload"], r["load"])
        if cell in index:
            missing[contenders.index(r["contender"]), index[cell]] = True
    lim = max(1.0, float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 1.0)
    fig, ax = plt.subplots(figsize=(max(8, 0.28 * len(cells) + 3), 0.42 * len(contenders) + 3.2))
    cmap = plt.get_cmap("RdBu_r").with_extremes(bad="#d9d9d9")
    im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=-lim, vmax=lim, aspect="auto")
    for i, j in zip(*np.nonzero(missing)):
        ax.text(j, i, "n/a", ha="center", va="center", fontsize=5, color="#555555")
    ax.set_yticks(range(len(contenders)), contenders, fontsize=8)
    ax.set_xticks(range(len(cells)), [_cell_name(*c) for c in cells], rotation=90, fontsize=6)
    bar = fig.colorbar(im, ax=ax, fraction=0.03)
    bar.set_label(f"log2(p99 slowdown < 100 KB / {REFERENCE}'s)")
    ax.set_title(f"p99 slowdown of flows < 100 KB relative to {REFERENCE} (red: slower; grey: n/a or no value)")
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)
    return path


def index_html(md: str, plots: list[Path], out: Path) -> str:
    """A self-contained page: the plots, then the leaderboard (markdown tables as HTML)."""
    body = [f'<figure><img src="{html.escape(str(p.relative_to(out)))}" style="max-width:100%"></figure>' for p in plots]
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>corral arena</title><style>"
        "body{font-family:sans-serif;max-width:1400px;margin:auto}table{border-collapse:collapse;font-size:12px}"
        "td,th{border:1px solid #ccc;padding:2px 6px}</style></head><body><h1>corral arena</h1>"
        + "".join(body)
        + _md_to_html(md)
        + "</body></html>\n"
    )


def _md_to_html(md: str) -> str:
    """The small markdown subset leaderboard_md writes: headings, bullets, tables."""
    import re

    out, in_table = [], False
    for line in md.splitlines():
        text = html.escape(line)
        text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
        text = re.sub(r"`(.+?)`", r"<code>\1</code>", text)
        if line.startswith("|"):
            if set(line) <= set("|-"):
                continue
            if not in_table:
                out.append("<table>")
                in_table = True
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", text)[1:-1]]
            out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
            continue
        if in_table:
            out.append("</table>")
            in_table = False
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            out.append(f"<h{level}>{text.lstrip('#').strip()}</h{level}>")
        elif line.startswith("- "):
            out.append(f"<p>&bull; {text[2:]}</p>")
        elif line.strip():
            out.append(f"<p>{text}</p>")
    if in_table:
        out.append("</table>")
    return "\n".join(out)
