"""Figures of the SCC reproduction (`corral reproduce scc`): Fig. 1's three panels (LS
latency, DS deadline misses, CS average FCT against load), alone, shared and under SCC."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..plots import new_figure, save

CASE_STYLE = {"DS alone": ("#1f77b4", "-"), "CS alone": ("#1f77b4", "-"), "LS+DS": ("#d62728", "--"), "DS+CS": ("#d62728", "--"),
              "DS+CS, SCC": ("#2ca02c", ":")}


def fig1(runs: pl.DataFrame, path: Path) -> Path:
    fig, (ls, ds, cs) = new_figure(12.0, 3.6, ncols=3)
    f = runs.filter(pl.col("study") == "fig1")
    alone = f.filter(pl.col("case") == "LS alone")
    if alone.height:
        ls.axhline(alone["ls_mean_s"].median() * 1e6, color="#1f77b4", label="LS alone (mean)")
        ls.axhline(alone["ls_p99_s"].median() * 1e6, color="#1f77b4", ls=":", label="LS alone (p99)")
    for ax, col, cases, scale, label in ((ls, "ls_p99_s", ("LS+DS",), 1e6, "LS p99 latency (us)"),
                                         (ds, "ds_miss", ("DS alone", "LS+DS", "DS+CS", "DS+CS, SCC"), 100.0, "DS deadlines missed (%)"),
                                         (cs, "cs_afct_s", ("CS alone", "DS+CS", "DS+CS, SCC"), 1e3, "CS average FCT (ms)")):
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
