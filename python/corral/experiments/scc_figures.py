"""Figures of the SCC reproduction (`corral reproduce scc`): Fig. 1's three panels (LS
latency, DS deadline misses, CS average FCT against load), alone, shared and under SCC; the
fabric's cases as grouped bars; Fig. 7 (DS and CS coexisting, data-mining)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..plots import new_figure, save
from .scc_fabric import CLASSES, fig7_case

CASE_STYLE = {
    "DS alone": ("#1f77b4", "-"),
    "CS alone": ("#1f77b4", "-"),
    "LS+DS": ("#d62728", "--"),
    "DS+CS": ("#d62728", "--"),
    "DS+CS, SCC": ("#2ca02c", ":"),
}


def fig1(runs: pl.DataFrame, path: Path) -> Path:
    fig, (ls, ds, cs) = new_figure(12.0, 3.6, ncols=3)
    f = runs.filter(pl.col("study") == "fig1")
    alone = f.filter(pl.col("case") == "LS alone")
    if alone.height:
        ls.axhline(alone["ls_mean_s"].median() * 1e6, color="#1f77b4", label="LS alone (mean)")
        ls.axhline(alone["ls_p99_s"].median() * 1e6, color="#1f77b4", ls=":", label="LS alone (p99)")
    for ax, col, cases, scale, label in (
        (ls, "ls_p99_s", ("LS+DS",), 1e6, "LS p99 latency (us)"),
        (ds, "ds_miss", ("DS alone", "LS+DS", "DS+CS", "DS+CS, SCC"), 100.0, "DS deadlines missed (%)"),
        (cs, "cs_afct_s", ("CS alone", "DS+CS", "DS+CS, SCC"), 1e3, "CS average FCT (ms)"),
    ):
        for case in cases:
            sub = f.filter((pl.col("case") == case) & pl.col(col).is_not_null())
            if not sub.height:
                continue
            g = sub.group_by("load").agg(pl.col(col).median()).sort("load")
            color, style = CASE_STYLE.get(case, ("k", "-"))
            if case == "LS+DS" and col == "ds_miss":
                color = "#ff7f0e"
            ax.plot((g["load"] * 100).to_list(), (g[col] * scale).to_list(), marker="o", color=color, ls=style, label=case)
        ax.set(xlabel="DS / CS load (% of 500 Mbps)", ylabel=label)
        ax.grid(alpha=0.3)
        ax.legend(frameon=False, fontsize=8)
    ls.set_title("Fig. 1b")
    ds.set_title("Fig. 1c / 4")
    cs.set_title("Fig. 1d / 4")
    return save(fig, path)


VARIANT_COLOR = {
    "none": "#d62728",
    "scc": "#2ca02c",
    "scc_fifo": "#8c564b",
    "scc_dctcp": "#9467bd",
    "pfabric": "#1f77b4",
    "priority": "#ff7f0e",
    "scc_priority": "#bcbd22",
    "scc_w4": "#17becf",
}


def fabric(runs: pl.DataFrame, path: Path) -> Path:
    """Figs. 6-12 on the leaf-spine fabric: per case (and load) and variant, the seeds'
    median LS latency, DS misses and CS AFCT, as grouped bars."""
    fig, axes = new_figure(15.0, 4.2, ncols=3)
    f = runs.filter(pl.col("study") == "fabric")
    if "variant" not in f.columns or not f.height:
        return save(fig, path)
    groups = f.select("case", "load").unique(maintain_order=True).rows()
    variants = [v for v in VARIANT_COLOR if v in f["variant"].unique().to_list()]
    width = 0.8 / len(variants)
    for ax, col, scale, label in zip(
        axes,
        ("ls_small_fct_s", "ds_miss", "cs_afct_s"),
        (1e3, 100.0, 1e3),
        ("LS latency: FCT of flows <= 10 KB (ms)", "DS deadlines missed (%)", "CS average FCT (ms)"),
    ):
        for j, v in enumerate(variants):
            xs, ys = [], []
            for i, (case, load) in enumerate(groups):
                if col not in f.columns:
                    continue
                vals = f.filter((pl.col("case") == case) & (pl.col("load") == load) & (pl.col("variant") == v))[col].drop_nulls()
                if vals.len():
                    xs.append(i + (j - (len(variants) - 1) / 2) * width)
                    ys.append(vals.median() * scale)
            ax.bar(xs, ys, width=width, color=VARIANT_COLOR[v], label=v)
        ax.set_xticks(range(len(groups)), [f"{c}\n{int(l * 100)} %" for c, l in groups], rotation=70, fontsize=6)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3, axis="y")
    axes[0].legend(frameon=False, fontsize=8)
    axes[0].set_title("leaf-spine: no SCC / SCC / baselines")
    return save(fig, path)


def fig7(runs: pl.DataFrame, path: Path) -> Path:
    """Fig. 7: data-mining at 30 % per class, (a) DS misses alone and coexisting with CS, LS
    and both, (b) CS AFCT alone and with DS, LS and both, each without and with SCC (seeds'
    medians; alone: the isolation cases at 30 %)."""
    fig, (ds, cs) = new_figure(10.0, 3.8, ncols=2)
    if "variant" not in runs.columns:
        return save(fig, path)
    f = runs.filter((pl.col("study") == "fabric") & (pl.col("load") == 0.3))
    panels = (
        (
            ds,
            "ds_miss",
            100.0,
            "DS deadlines missed (%)",
            "Fig. 7a: DS",
            (
                ("alone", "isolation DS"),
                ("with CS", fig7_case(("DS", "CS"))),
                ("with LS", fig7_case(("LS", "DS"))),
                ("with CS+LS", fig7_case(CLASSES)),
            ),
        ),
        (
            cs,
            "cs_afct_s",
            1e3,
            "CS average FCT (ms)",
            "Fig. 7b: CS",
            (
                ("alone", "isolation CS"),
                ("with DS", fig7_case(("DS", "CS"))),
                ("with LS", fig7_case(("LS", "CS"))),
                ("with DS+LS", fig7_case(CLASSES)),
            ),
        ),
    )
    for ax, col, scale, label, title, sets in panels:
        for j, v in enumerate(("none", "scc")):
            xs, ys = [], []
            for i, (_, case) in enumerate(sets):
                vals = f.filter((pl.col("case") == case) & (pl.col("variant") == v))[col].drop_nulls() if col in f.columns else []
                if len(vals):
                    xs.append(i + (j - 0.5) * 0.4)
                    ys.append(vals.median() * scale)
            ax.bar(xs, ys, width=0.4, color=VARIANT_COLOR[v], label="SCC" if v == "scc" else "no SCC")
        ax.set_xticks(range(len(sets)), [name for name, _ in sets])
        ax.set(ylabel=label, title=title)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(frameon=False, fontsize=8)
    return save(fig, path)
