"""Claims of a paper reproduction, and their verdicts: one row per claim, judged by the rules
below (the only place they live), written as `claims.json` (`claims_schema`) and rendered
as the head of `report.md` (and of the README's tables, `scripts/claims_tables.py`).

A row holds one measured quantity: its value per seed (or per run the claim is about), the
band the paper's number gives, and the conditions its runs realized (`conditions`).

- **Kinds.** `paper`: a number or a direction the paper states. `acceptance`: our own check
  that a mechanism works. `structural`: true by construction or arithmetic (a test pins it).
  Only `paper` rows enter the headline "N of M".
- **Bands.** Around a paper number with the paper's one relative tolerance (`Paper`), or
  beyond it for a bound the paper states; a direction the paper gives without a number is
  the band beyond the no-effect value `null` by the paper's minimum effect size.
- **Verdicts** (`judge`):
  - `reported`: no band (the paper gives no number to judge against);
  - `off_conditions`: the runs did not reach the paper's conditions (`conditions.reached`);
  - `met`: the median is in the band and at least `AGREE` of the values are (4 of 5 seeds),
    or every value is for a claim about every run (`every`);
  - `direction`: not met, but the median is beyond the no-effect value on the band's side by
    at least the minimum effect size (the paper's sign, another size);
  - `missed`: otherwise (no effect, or the opposite one).

Values are medians over seeds with the range beside them; never a mean an outlier can move.
"""

from __future__ import annotations

import math
import os
import platform
from dataclasses import dataclass, field
from typing import Any, Optional, Tuple

import polars as pl
from rich import box
from rich.table import Table

from . import conditions as cond

KINDS = ("paper", "acceptance", "structural")
VERDICTS = ("met", "direction", "missed", "off_conditions", "reported")
AGREE = 0.8  # share of the values that must lie in the band for `met` (4 of 5 seeds)
Band = Tuple[Optional[float], Optional[float]]  # (low, high); None: no bound on that side


# ---------------------------------------------------------------- values over seeds


def clean(xs: list[Any]) -> list[float]:
    """Finite numbers only: no None, NaN or infinity."""
    return [float(x) for x in xs if x is not None and math.isfinite(x)]


def per_seed(runs: pl.DataFrame, col: str, **where: Any) -> list[float]:
    """`col` of the runs matching `where`, in seed order, without nulls and NaNs."""
    sub = runs
    for k, v in where.items():
        sub = sub.filter(pl.col(k).is_null()) if v is None else sub.filter(pl.col(k) == v)
    return clean(sub.sort("seed")[col].to_list()) if col in sub.columns else []


def ratio(runs: pl.DataFrame, col: str, a: dict, b: dict) -> list[float]:
    """Per seed: the value of `a`'s run over `b`'s (seeds where both ran)."""
    xa = dict(_by_seed(runs, col, a))
    xb = dict(_by_seed(runs, col, b))
    return [xa[s] / xb[s] for s in sorted(xa) if s in xb and xb[s]]


def _by_seed(runs: pl.DataFrame, col: str, where: dict) -> list[tuple[int, float]]:
    sub = runs
    for k, v in where.items():
        sub = sub.filter(pl.col(k).is_null()) if v is None else sub.filter(pl.col(k) == v)
    if col not in sub.columns:
        return []
    return [
        (s, float(x))
        for s, x in zip(sub["seed"].to_list(), sub[col].to_list())
        if x is not None and not (isinstance(x, float) and math.isnan(x))
    ]


def median(xs: list[float]) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    return s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2


def median_range(xs: list[float], fmt: str = ".3g", scale: float = 1.0) -> str:
    """ "median [min-max]" over seeds."""
    if not xs:
        return "–"
    m = median(xs)
    if len(xs) == 1:
        return format(m * scale, fmt)
    return f"{format(m * scale, fmt)} [{format(min(xs) * scale, fmt)}-{format(max(xs) * scale, fmt)}]"


# ---------------------------------------------------------------- the paper's bands


@dataclass(frozen=True)
class Paper:
    """A reproduced paper: its one relative tolerance around its numbers and its minimum
    effect size for the directions it states, each with the reason given once."""

    key: str
    title: str
    tolerance: float
    tolerance_reason: str
    min_effect: float = 0.05
    min_effect_reason: str = (
        "an effect smaller than 5 % of the no-effect value is within the seed-to-seed noise of these runs; it counts as no effect"
    )

    def around(self, value: float) -> Band:
        """The band centred on a paper number."""
        lo, hi = value * (1 - self.tolerance), value * (1 + self.tolerance)
        return (min(lo, hi), max(lo, hi))

    def at_most(self, value: float) -> Band:
        """A bound the paper states ("below X"), with its tolerance."""
        return (None, value * (1 + self.tolerance))

    def at_least(self, value: float) -> Band:
        return (value * (1 - self.tolerance), None)

    def threshold(self, null: float, side: int, unit: str = "x") -> float:
        """The smallest effect on `side` (+1 above, -1 below) of the no-effect value `null`:
        relative to it, or, when it is 0, the minimum effect as a fraction of the quantity
        (in points when the unit is "%")."""
        step = self.min_effect * abs(null) if null else self.min_effect * (100 if unit == "%" else 1)
        return null + side * step

    def above(self, null: float = 1.0, unit: str = "x") -> Band:
        """A direction the paper states: more than `null` by the minimum effect."""
        return (self.threshold(null, +1, unit), None)

    def below(self, null: float = 1.0, unit: str = "x") -> Band:
        return (None, self.threshold(null, -1, unit))

    def head(self) -> dict[str, Any]:
        return {
            "paper": self.key,
            "title": self.title,
            "tolerance": {"relative": self.tolerance, "reason": self.tolerance_reason},
            "min_effect": {"relative": self.min_effect, "reason": self.min_effect_reason},
        }


def in_band(x: float, band: Band) -> bool:
    lo, hi = band
    return (lo is None or x >= lo - 1e-12 * abs(lo)) and (hi is None or x <= hi + 1e-12 * abs(hi))


def side(band: Band, null: float | None) -> int:
    """+1 if the band lies above the no-effect value, -1 if below, 0 if it straddles it or
    there is none."""
    if null is None:
        return 0
    lo, hi = band
    if lo is not None and lo >= null:
        return 1
    if hi is not None and hi <= null:
        return -1
    return 0


def needed(n: int, every: bool) -> int:
    """Values that must lie in the band for `met`."""
    return n if every else math.ceil(AGREE * n - 1e-9)


def judge(
    values: list[float],
    band: Band | None,
    *,
    paper: Paper,
    null: float | None = None,
    every: bool = False,
    conditions_reached: bool = True,
    unit: str = "x",
) -> tuple[str, int]:
    """The verdict of a row (module doc) and how many of its values lie in its band."""
    if band is None:
        return "reported", 0
    agree = sum(in_band(x, band) for x in values)
    if not conditions_reached:
        return "off_conditions", agree
    m = median(values)
    if m is None:
        return "missed", 0
    if in_band(m, band) and agree >= needed(len(values), every):
        return "met", agree
    s = side(band, null)
    if s and (m - paper.threshold(null, s, unit)) * s >= 0:  # type: ignore[arg-type]
        return "direction", agree
    return "missed", agree


# ---------------------------------------------------------------- rows


@dataclass
class Claims:
    """The rows of one reproduction, in the order they are added."""

    paper: Paper
    rows: list[dict[str, Any]] = field(default_factory=list)

    def add(
        self,
        figure: str,
        claim: str,
        values: list[float],
        band: Band | None,
        *,
        kind: str = "paper",
        paper_value: float | None = None,
        null: float | None = None,
        every: bool = False,
        conditions: dict[str, Any] | None = None,
        unit: str = "x",
        fmt: str = ".2f",
        note: str = "",
        detail: str = "",
    ) -> dict[str, Any]:
        """Judge and keep one row. `values` are in `unit` (per seed, or per run the claim is
        about); `band`, `paper_value` and `null` in the same unit; `detail` is what else the
        reader needs beside the value (other medians, counts)."""
        assert kind in KINDS, kind
        xs = clean(values)
        reached = cond.reached(conditions)
        verdict, agree = judge(xs, band, paper=self.paper, null=null, every=every, conditions_reached=reached, unit=unit)
        row = {
            "paper": self.paper.key,
            "figure": figure,
            "claim": claim,
            "kind": kind,
            "paper_value": paper_value,
            "band": None if band is None else list(band),
            "null": null,
            "every": every,
            "measured": median(xs),
            "range": [min(xs), max(xs)] if xs else None,
            "values": xs,
            "seeds": len(xs),
            "seeds_agree": agree,
            "seeds_needed": needed(len(xs), every) if band is not None else None,
            "verdict": verdict,
            "conditions": conditions or {},
            "unit": unit,
            "format": fmt,
            "detail": detail,
            "note": note,
        }
        self.rows.append(row)
        return row


def counts(rows: list[dict[str, Any]], kind: str = "paper") -> dict[str, int]:
    """Rows of `kind` by verdict, every verdict present."""
    out = {v: 0 for v in VERDICTS}
    for r in rows:
        if r["kind"] == kind:
            out[r["verdict"]] += 1
    return out


def headline(rows: list[dict[str, Any]]) -> str:
    """ "N of M paper claims met" (M: the paper rows with a band) and the rest by verdict."""
    c = counts(rows)
    judged = sum(c.values()) - c["reported"]
    rest = ", ".join(f"{c[v]} {v.replace('_', ' ')}" for v in VERDICTS[1:] if c[v])
    return f"{c['met']} of {judged} paper claims met" + (f" ({rest})" if rest else "")


# ---------------------------------------------------------------- claims.json


def machine() -> dict[str, Any]:
    """What ran it: CPU model and count, OS, Python, and the load average now."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "load_average": load,
    }


def document(
    paper: Paper,
    rows: list[dict[str, Any]],
    *,
    seeds: list[int],
    quick: bool,
    overrides: tuple[str, ...],
    baselines: list[dict[str, str]],
    quick_means: str,
    run: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The content of claims.json (`claims_schema.SCHEMA`)."""
    from .. import __version__

    return {
        "schema": "corral-claims/1",
        **paper.head(),
        "corral_version": __version__,
        "seeds": seeds,
        "quick": quick,
        "quick_means": quick_means,
        "overrides": list(overrides),
        "run": {"machine": machine(), **(run or {})},
        "counts": counts(rows),
        "baselines": baselines,
        "claims": rows,
    }


def write(path: Any, doc: dict[str, Any]) -> None:
    """claims.json, checked against the schema first."""
    from . import claims_schema, report_json

    claims_schema.validate(report_json.finite(doc))
    report_json.write(path, doc)


def baseline(name: str, setting: str, value: Any, source: str) -> dict[str, str]:
    """A row of the baselines table: a baseline's setting, its value and where it comes from
    (the paper, the baseline's own paper, an RFC, or our choice)."""
    return {"baseline": name, "setting": setting, "value": str(value), "source": source}


def scenario_value(scenario: Any, key: str, default: Any = None) -> Any:
    """The value of dotted `key` ("transport.min_rto", "traffic.0.load") in a scenario
    (a path, or TOML text), `default` where the file leaves it out: the baselines table
    reads what the runs use."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    from pathlib import Path

    text = scenario.read_text() if isinstance(scenario, Path) else str(scenario)
    node: Any = tomllib.loads(text)
    for part in key.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return default
    return node


def write_report(
    out: Any,
    paper: Paper,
    report: Any,
    *,
    title: str,
    baselines: list[dict[str, str]],
    quick_means: str,
    body: list[str],
    values_note: str = "Values are medians over seeds with the range in brackets.",
    **extra: Any,
) -> dict[str, Any]:
    """A reproduction's outputs in `out`: claims.json (its rows, `report.claims`), report.md
    (the claims tables from claims.json, then `body`) and report.json (what ran, the claims,
    every run's row, and `extra`). `report` has `claims`, `seeds`, `quick`, `overrides` and
    `runs`."""
    from . import report_json

    doc = document(
        paper,
        report.claims,
        seeds=report.seeds,
        quick=report.quick,
        overrides=report.overrides,
        baselines=baselines,
        quick_means=quick_means,
    )
    write(out / "claims.json", doc)
    (out / "report.md").write_text("\n".join([*report_head(title, doc, values_note=values_note), *body]) + "\n")
    report_json.write_reproduction(out / "report.json", paper.key, paper.title, report, **extra)
    return doc


# ---------------------------------------------------------------- Markdown


def _num(x: float | None, fmt: str) -> str:
    return "–" if x is None else format(x, fmt)


def measured_text(row: dict[str, Any]) -> str:
    """ "median [min-max] unit"."""
    fmt, unit = row["format"], row["unit"]
    if row["measured"] is None:
        return "–"
    text = _num(row["measured"], fmt)
    if row["range"] and row["seeds"] > 1:
        text += f" [{_num(row['range'][0], fmt)}, {_num(row['range'][1], fmt)}]"
    return text + _unit(unit)


def _unit(unit: str) -> str:
    return "" if not unit else (unit if unit in ("x", "%") else f" {unit}")


def band_text(row: dict[str, Any]) -> str:
    if row["band"] is None:
        return "–"
    lo, hi = row["band"]
    fmt, unit = row["format"], _unit(row["unit"])
    if lo is None:
        return f"<= {_num(hi, fmt)}{unit}"
    if hi is None:
        return f">= {_num(lo, fmt)}{unit}"
    return f"{_num(lo, fmt)} to {_num(hi, fmt)}{unit}"


def paper_text(row: dict[str, Any]) -> str:
    if row["paper_value"] is None:
        if row["kind"] != "paper":
            return "ours" if row["band"] is not None else "–"
        return "direction" if row["band"] is not None else "–"
    return _num(row["paper_value"], row["format"]) + _unit(row["unit"])


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def conditions_text(c: dict[str, Any], *, unmet_only: bool = False) -> str:
    """The realized conditions in a few words: every check as realized of target (✗ where
    it does not hold), and the flows finished; only the unmet checks if `unmet_only`."""
    parts = []
    for k, v in c.items():
        if cond.is_check(v) and not (unmet_only and cond.holds(v)):
            r, t = v["realized"], v["target"]
            fmt = ".0%" if k.startswith("load") else ",.3g"
            parts.append(f"{k.replace('_', ' ')} {_num(r, fmt)} of {_num(t, fmt)}" + ("" if cond.holds(v) else " ✗"))
    if c.get("flows_started") and not unmet_only:
        parts.append(f"{c.get('flows_finished', 0):,} of {c['flows_started']:,} flows finished")
    return "; ".join(parts)


def rows_table(rows: list[dict[str, Any]], *, conditions: str = "all") -> list[str]:
    """The rows as a Markdown table; `conditions` "all" (every check), "unmet" (only the
    checks that fail) or "none" (no column)."""
    head = (
        ["figure", "claim", "paper", "band", "measured", "in band", "verdict"]
        + (["conditions"] if conditions != "none" else [])
        + ["note"]
    )
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        agree = f"{r['seeds_agree']} of {r['seeds']}" if r["band"] is not None else "–"
        note = "; ".join(x for x in (r["detail"], r["note"]) if x)
        cells = [r["figure"], r["claim"], paper_text(r), band_text(r), measured_text(r), agree, r["verdict"].replace("_", " ")]
        if conditions != "none":
            cells.append(conditions_text(r["conditions"], unmet_only=conditions == "unmet"))
        out.append("| " + " | ".join(_cell(x) for x in [*cells, note]) + " |")
    return out


def counts_table(doc: dict[str, Any]) -> list[str]:
    c = doc["counts"]
    return ["| verdict | paper rows |", "|---|---|", *(f"| {v.replace('_', ' ')} | {c[v]} |" for v in VERDICTS)]


def baselines_table(doc: dict[str, Any]) -> list[str]:
    out = ["| baseline | setting | value | source |", "|---|---|---|---|"]
    out += [
        f"| {_cell(b['baseline'])} | {_cell(b['setting'])} | {_cell(b['value'])} | {_cell(b['source'])} |"
        for b in doc["baselines"]
    ]
    return out


def tolerance_text(doc: dict[str, Any]) -> str:
    t, m = doc["tolerance"], doc["min_effect"]
    return (
        f"Bands: the paper's number +-{t['relative']:.0%} ({t['reason']}); a direction the paper states without a "
        f"number needs an effect of at least {m['relative']:.0%} ({m['reason']}). `met` needs the median in the band "
        f"and {AGREE:.0%} of the seeds in it (every run for a claim about every run); `off conditions`: the runs did "
        "not reach the paper's conditions (offered load within +-10 % of the paper's, its scale and length)."
    )


def markdown(doc: dict[str, Any], *, title: str | None = None, level: int = 2, conditions: str = "all") -> list[str]:
    """The claims part of a report (and of the README): the headline, the counts of paper
    rows by verdict with the tolerance, the baselines table, then the paper rows, our
    acceptance checks and the structural rows (`conditions` as in `rows_table`)."""
    h = "#" * level
    rows = doc["claims"]
    out = [
        f"{h} {title or 'Claims'}: {headline(rows)}",
        "",
        tolerance_text(doc),
        "",
        *counts_table(doc),
        "",
        f"{h}# Baselines",
        "",
        *baselines_table(doc),
        "",
    ]
    for kind, name in (
        ("paper", "Paper claims"),
        ("acceptance", "Our acceptance checks (not counted)"),
        ("structural", "Structural (true by construction; pinned by tests, not counted)"),
    ):
        some = [r for r in rows if r["kind"] == kind]
        if some:
            out += [f"{h}# {name}", "", *rows_table(some, conditions=conditions), ""]
    return out


def report_head(
    title: str, doc: dict[str, Any], *, values_note: str = "Values are medians over seeds with the range in brackets."
) -> list[str]:
    """The head of a reproduction's report.md, from its claims.json content."""
    ran = (
        f"corral {doc['corral_version']}, seeds {doc['seeds'][0]}..{doc['seeds'][-1]}"
        + (f", quick ({doc['quick_means']})" if doc["quick"] else "")
        + "".join(f", --set {o}" for o in doc["overrides"])
        + "."
    )
    return [f"# {title}", "", ran, values_note, "", *markdown(doc)]


# ---------------------------------------------------------------- terminal


def rich_title(name: str, report: Any) -> str:
    """The terminal claims table's title."""
    return f"{name} ({len(report.seeds)} seed(s){', quick' if report.quick else ''}): {headline(report.claims)}"


def claims_table(title: str, rows: list[dict[str, Any]]) -> Table:
    t = Table(title=title, box=box.SIMPLE_HEAD)
    for col in ("figure", "claim", "band", "measured", "verdict"):
        t.add_column(col)
    for r in rows:
        style = {"met": "green", "missed": "red", "direction": "yellow"}.get(r["verdict"], "dim")
        kind = "" if r["kind"] == "paper" else f" ({r['kind']})"
        t.add_row(r["figure"], r["claim"] + kind, band_text(r), measured_text(r), f"[{style}]{r['verdict'].replace('_', ' ')}[/]")
    return t
