"""Claims-vs-measured tables shared by the paper reproductions (R2C2, HCC, RackCC, SCC): per-seed values
from a runs table, their median and range (never a mean an outlier can move), ratios of
two configurations seed by seed, and the claims table in Markdown and for the terminal."""

from __future__ import annotations

import math
from typing import Any

import polars as pl
from rich import box
from rich.table import Table

VERDICTS = {True: "met", False: "missed", None: "not measured", "reported": "reported"}


def per_seed(runs: pl.DataFrame, col: str, **where: Any) -> list[float]:
    """`col` of the runs matching `where`, in seed order, without nulls and NaNs."""
    sub = runs
    for k, v in where.items():
        sub = sub.filter(pl.col(k) == v)
    return [x for x in sub.sort("seed")[col].to_list() if x is not None and not (isinstance(x, float) and math.isnan(x))]


def ratio(runs: pl.DataFrame, col: str, a: dict, b: dict) -> list[float]:
    """Per seed: the value of `a`'s run over `b`'s."""
    xa, xb = per_seed(runs, col, **a), per_seed(runs, col, **b)
    return [x / y for x, y in zip(xa, xb) if y]


def median(xs: list[float]) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    return s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2


def median_range(xs: list[float], fmt: str = ".3g", scale: float = 1.0) -> str:
    """"median [min-max]" over seeds."""
    if not xs:
        return "–"
    m = median(xs)
    if len(xs) == 1:
        return format(m * scale, fmt)
    return f"{format(m * scale, fmt)} [{format(min(xs) * scale, fmt)}-{format(max(xs) * scale, fmt)}]"


def claim(fig: str, text: str, measured: str, ok: bool | str | None, note: str = "") -> dict[str, Any]:
    """A claims-table row; `ok` is True (met), False (missed), None (not measured) or
    "reported" (a measured value with no claim to judge, e.g. where the paper contradicts
    itself)."""
    return {"figure": fig, "claim": text, "measured": measured, "verdict": VERDICTS[ok], "note": note}


def claims_markdown(claims: list[dict[str, Any]]) -> str:
    lines = ["| figure | claim | corral measured | verdict | note |", "|---|---|---|---|---|"]
    lines += [f"| {c['figure']} | {c['claim']} | {c['measured']} | {c['verdict']} | {c['note']} |" for c in claims]
    return "\n".join(lines) + "\n"


def report_head(title: str, report: Any, *, seeds_note: str = "", quick_note: str = ", quick",
                values_note: str = "Values are medians over seeds with the range in brackets.") -> list[str]:
    """The head of a reproduction's report.md: its title, what ran (corral version, seeds,
    quick, overrides), and the claims table under a heading that counts the verdicts.
    `report` has `seeds`, `quick`, `overrides` and `claims`."""
    from .. import __version__

    claims = report.claims
    verdicts = [c["verdict"] for c in claims]
    judged = verdicts.count("met") + verdicts.count("missed")
    rest = [f"{n} {what}" for n, what in ((verdicts.count("not measured"), "not measured"), (verdicts.count("reported"), "reported without a verdict")) if n]
    heading = f"## Claims: {verdicts.count('met')} of {judged} judged claims met" + (f" ({', '.join(rest)})" if rest else "")
    ran = (f"corral {__version__}, seeds {report.seeds[0]}..{report.seeds[-1]}{seeds_note}" + (quick_note if report.quick else "")
           + "".join(f", --set {o}" for o in report.overrides) + ".")
    return [f"# {title}", "", ran, values_note, "", heading, "", claims_markdown(claims)]


def rich_title(name: str, report: Any) -> str:
    """The terminal claims table's title."""
    return f"{name} ({len(report.seeds)} seed(s){', quick' if report.quick else ''}): claims"


def claims_table(title: str, claims: list[dict[str, Any]]) -> Table:
    t = Table(title=title, box=box.SIMPLE_HEAD)
    for col in ("figure", "claim", "measured", "verdict"):
        t.add_column(col)
    for c in claims:
        style = {"met": "green", "missed": "red"}.get(c["verdict"], "dim")
        t.add_row(c["figure"], c["claim"], c["measured"], f"[{style}]{c['verdict']}[/]")
    return t
