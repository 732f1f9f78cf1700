"""Claims of a paper reproduction, and their verdicts: one row per claim, judged by the rules
below (the only place they live), written as `claims.json` (`claims_schema`) and rendered
as the head of `report.md` (and of the README's tables, `scripts/claims_tables.py`).

A row holds one measured quantity: its value per seed (or per run the claim is about), the
band the paper's number gives, and the conditions its runs realized (`conditions`). Its
paper number, band, null, unit, setup and the paper's sentence come from the paper's claims
table (`claims_table`), written once.

- **Kinds.** `paper`: a number or a direction the paper states, under the paper's setup.
  `sensitivity`: a paper row's claim judged under another setting (one the paper does not
  give, or corral's earlier reading), beside the row it varies. `acceptance`: our own check
  that a mechanism works. `structural`: true by construction or arithmetic (a test pins
  it). Only `paper` rows enter the headline "N of M".
- **Bands.** Around a paper number with the paper's one relative tolerance (`Paper.around`).
  A one-sided bound the paper states ("more than 90 %", "less than one packet") is the
  band's edge, without tolerance (`at_least`, `more_than`, `at_most`, `less_than`; "more
  than" and "less than" exclude the edge); a bound that contains the no-effect value states
  closeness to it and has no null (the claims table refuses one). "No significant change"
  is the band within the minimum effect of null (`within`), not the tolerance. A direction the paper gives without a number is
  the band beyond the no-effect value `null` by the paper's minimum effect size. A band and
  the values are in one unit: the claims table states the paper's unit, the measuring code
  the values', and a row refuses a mismatch.
- **The paper's side.** The side of `null` the paper's number lies on (or, without a
  number, the side the band lies on). **Effect**: ln(value) for a ratio row (null 1, the
  paper's number and every value positive), value - null otherwise; a row's
  `effect_ratio` is its median's effect over the paper's.
- **Verdicts** (`judge`):
  - `reported`: no band (the paper gives no number to judge against);
  - `off_conditions`: the runs did not reach the paper's conditions (`conditions.reached`);
  - `met`: the median in the band and at least `AGREE` of the values in it (4 of 5
    seeds; every value for a claim about every run, `every`), and, where the row has a
    null and a side, the median strictly on the paper's side of it;
  - `direction`: not met, but at least `AGREE` of the values (every one for `every`)
    strictly on the paper's side of null, and the effect within a factor `EFFECT_FACTOR`
    of the paper's (`effect_ratio` in [1/2, 2]); needs the paper's number;
  - `missed`: everything else (no effect, the opposite one, or one of another size).

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

KINDS = ("paper", "sensitivity", "acceptance", "structural")
VERDICTS = ("met", "direction", "missed", "off_conditions", "reported")
AGREE = 0.8  # share of the values that must lie in the band for `met`, or on the paper's side for `direction` (4 of 5 seeds)
SCHEMA_VERSION = "corral-claims/2"
EFFECT_FACTOR = 2.0  # `direction`: the effect within this factor of the paper's
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
        """The band centred on a paper number: its tolerance on both sides."""
        lo, hi = value * (1 - self.tolerance), value * (1 + self.tolerance)
        return (min(lo, hi), max(lo, hi))

    @staticmethod
    def at_most(value: float) -> Band:
        """A bound the paper states ("up to X", "at most X"): X is the band's edge, in it;
        no tolerance widens a stated bound."""
        return (None, value)

    @staticmethod
    def at_least(value: float) -> Band:
        """ "at least X": X is the edge, in the band (`at_most`)."""
        return (value, None)

    # "more than X" / "less than X": the same bands with the edge itself out (the row's
    # `band_open`, `Claims.add(open_edges=True)`).
    more_than = at_least
    less_than = at_most

    def threshold(self, null: float, side: int, unit: str = "x") -> float:
        """The smallest effect on `side` (+1 above, -1 below) of the no-effect value `null`:
        relative to it, or, when it is 0, the minimum effect as a fraction of the quantity
        (in points when the unit is "%" or "points": 5 points for 5 %)."""
        step = self.min_effect * abs(null) if null else self.min_effect * (100 if unit in ("%", "points") else 1)
        return null + side * step

    def above(self, null: float = 1.0, unit: str = "x") -> Band:
        """A direction the paper states: more than `null` by the minimum effect."""
        return (self.threshold(null, +1, unit), None)

    def below(self, null: float = 1.0, unit: str = "x") -> Band:
        return (None, self.threshold(null, -1, unit))

    def within(self, null: float = 1.0, unit: str = "x") -> Band:
        """ "No significant change" the paper states: within the minimum effect of `null` on
        either side (an effect the paper's own threshold counts is a change)."""
        return (self.threshold(null, -1, unit), self.threshold(null, +1, unit))

    def head(self) -> dict[str, Any]:
        return {
            "paper": self.key,
            "title": self.title,
            "tolerance": {"relative": self.tolerance, "reason": self.tolerance_reason},
            "min_effect": {"relative": self.min_effect, "reason": self.min_effect_reason},
        }


def in_band(x: float, band: Band, open_edges: bool = False) -> bool:
    """`x` in `band`; with `open_edges` the edges themselves are out ("more than X")."""
    lo, hi = band
    if open_edges:
        return (lo is None or x > lo + 1e-12 * abs(lo)) and (hi is None or x < hi - 1e-12 * abs(hi))
    return (lo is None or x >= lo - 1e-12 * abs(lo)) and (hi is None or x <= hi + 1e-12 * abs(hi))


def side(band: Band | None, null: float | None, paper_value: float | None = None) -> int:
    """The paper's side of the no-effect value: +1 above `null`, -1 below, 0 when the row
    has no null, or when neither the paper's number nor the band lies on one side of it."""
    if null is None:
        return 0
    if paper_value is not None and paper_value != null:
        return 1 if paper_value > null else -1
    lo, hi = band if band is not None else (None, None)
    if lo is not None and lo >= null:
        return 1
    if hi is not None and hi <= null:
        return -1
    return 0


def is_ratio(values: list[float], null: float | None, paper_value: float | None) -> bool:
    """A ratio row: no effect at 1, the paper's number and every value positive (its effect
    is then a logarithm, so 1/4 and 4 are the same size of effect)."""
    return null == 1 and paper_value is not None and paper_value > 0 and all(v > 0 for v in values)


def effect_ratio(values: list[float], null: float | None, paper_value: float | None) -> float | None:
    """The median's effect over the paper's: ln(median) / ln(paper) for a ratio row,
    (median - null) / (paper - null) otherwise; None without a null, a paper number
    different from it, or values."""
    m = median(values)
    if m is None or null is None or paper_value is None or paper_value == null:
        return None
    if is_ratio(values, null, paper_value):
        return math.log(m) / math.log(paper_value)
    return (m - null) / (paper_value - null)


def needed(n: int, every: bool) -> int:
    """Values that must lie in the band for `met` (or on the paper's side for `direction`)."""
    return n if every else math.ceil(AGREE * n - 1e-9)


@dataclass(frozen=True)
class Judgement:
    """A row's verdict and what it was decided on."""

    verdict: str
    agree: int  # values in the band
    on_side: int | None  # values strictly on the paper's side of null (None: no side)
    effect_ratio: float | None  # the median's effect over the paper's (`effect_ratio`)


def judge(
    values: list[float],
    band: Band | None,
    *,
    paper: Paper,
    null: float | None = None,
    paper_value: float | None = None,
    every: bool = False,
    conditions_reached: bool = True,
    open_edges: bool = False,
) -> Judgement:
    """The verdict of a row (module doc). `paper` is kept for the callers' symmetry: the
    rules need only the band it built."""
    del paper
    s = side(band, null, paper_value)
    on = None if not s else sum((x - null) * s > 0 for x in values)  # type: ignore[operator]
    ratio = effect_ratio(values, null, paper_value)
    if band is None:
        return Judgement("reported", 0, on, ratio)
    agree = sum(in_band(x, band, open_edges) for x in values)
    if not conditions_reached:
        return Judgement("off_conditions", agree, on, ratio)
    m = median(values)
    if m is None:
        return Judgement("missed", 0, on, ratio)
    k = needed(len(values), every)
    right_side = not s or (m - null) * s > 0  # type: ignore[operator]
    if in_band(m, band, open_edges) and agree >= k and right_side:
        return Judgement("met", agree, on, ratio)
    if s and on is not None and on >= k and ratio is not None and 1 / EFFECT_FACTOR <= ratio <= EFFECT_FACTOR:
        return Judgement("direction", agree, on, ratio)
    return Judgement("missed", agree, on, ratio)


# ---------------------------------------------------------------- rows


def _slug(text: str) -> str:
    return "-".join("".join(ch.lower() if ch.isalnum() else " " for ch in text).split())[:60] or "row"


@dataclass
class Claims:
    """The rows of one reproduction, in the order they are added. With the paper's claims
    table (`claims_table.Table`), `row` and `sensitivity` add a row by its id, the paper's
    number, band, null, unit, setup and statement read from the table."""

    paper: Paper
    rows: list[dict[str, Any]] = field(default_factory=list)
    table: Any = None  # claims_table.Table

    def row(
        self,
        claim_id: str,
        values: list[float],
        *,
        unit: str,
        conditions: dict[str, Any] | None = None,
        detail: str = "",
        note: str = "",
    ) -> dict[str, Any]:
        """The row of claim `claim_id` of the claims table, judged on `values` measured in
        `unit` (which must be the unit the table states the paper's number in)."""
        spec = self.table.claim(claim_id)
        return self._from_spec(spec, spec.claim, values, unit, conditions, detail, "; ".join(x for x in (spec.note, note) if x))

    def sensitivity(
        self,
        claim_id: str,
        variant: str,
        values: list[float],
        *,
        unit: str,
        varies: str,
        conditions: dict[str, Any] | None = None,
        detail: str = "",
        note: str = "",
    ) -> dict[str, Any]:
        """Claim `claim_id` judged under another setting (`varies`: what differs from the
        paper's setup, and why it is run): a `sensitivity` row, id "<claim_id>@<variant>",
        beside the row it varies and not counted."""
        spec = self.table.claim(claim_id)
        return self._from_spec(
            spec,
            f"{spec.claim} [{variant}]",
            values,
            unit,
            conditions,
            detail,
            note,
            id=f"{spec.id}@{variant}",
            of=spec.id,
            varies=varies,
        )

    def _from_spec(
        self,
        spec: Any,
        claim: str,
        values: list[float],
        unit: str,
        conditions: dict[str, Any] | None,
        detail: str,
        note: str,
        **kw: Any,
    ) -> dict[str, Any]:
        """A row of claim `spec` (`claims_table.Claim`): its band, number, null, unit and
        setup from the table; a sensitivity row passes kind, id, of and varies in `kw`."""
        band, open_edges = spec.band_for(self.paper)
        fields = {"kind": spec.kind, "id": spec.id, **kw}
        if "of" in kw:
            fields["kind"] = "sensitivity"
        return self.add(
            spec.figure,
            claim,
            values,
            band,
            paper_value=spec.value,
            null=spec.null,
            every=spec.every,
            conditions=conditions,
            unit=unit,
            band_unit=spec.unit,
            fmt=spec.fmt,
            note=note,
            detail=detail,
            statement=spec.statement,
            setup=spec.setup,
            open_edges=open_edges,
            **fields,
        )

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
        band_unit: str | None = None,
        fmt: str = ".2f",
        note: str = "",
        detail: str = "",
        id: str | None = None,  # noqa: A002 -- the row's id in claims.json
        statement: str | None = None,
        setup: str | None = None,
        of: str | None = None,
        varies: str = "",
        open_edges: bool = False,
    ) -> dict[str, Any]:
        """Judge and keep one row. `values` are in `unit` (per seed, or per run the claim is
        about); `band`, `paper_value` and `null` in `band_unit` (default: `unit`), which
        must be the same unit; `detail` is what else the reader needs beside the value
        (other medians, counts). A row without an id gets one from its figure and claim."""
        assert kind in KINDS, kind
        band_unit = unit if band_unit is None else band_unit
        if band_unit != unit:
            raise ValueError(
                f"{id or figure}: the band is in {band_unit!r} and the values in {unit!r}; "
                "build the band and measure the values in one unit"
            )
        if id is None:
            id = _slug(f"{figure} {claim}")  # noqa: A001
        taken = {r["id"] for r in self.rows}
        if id in taken:
            if statement is not None or of is not None:
                raise ValueError(f"row id {id!r} twice")
            id = next(f"{id}-{i}" for i in range(2, 10_000) if f"{id}-{i}" not in taken)  # noqa: A001
        xs = clean(values)
        reached = cond.reached(conditions)
        j = judge(
            xs,
            band,
            paper=self.paper,
            null=null,
            paper_value=paper_value,
            every=every,
            conditions_reached=reached,
            open_edges=open_edges,
        )
        row = {
            "id": id,
            "paper": self.paper.key,
            "figure": figure,
            "claim": claim,
            "kind": kind,
            "statement": statement,
            "setup": setup,
            "of": of,
            "varies": varies,
            "paper_value": paper_value,
            "band": None if band is None else list(band),
            "band_open": open_edges,
            "band_unit": band_unit,
            "null": null,
            "every": every,
            "measured": median(xs),
            "range": [min(xs), max(xs)] if xs else None,
            "values": xs,
            "seeds": len(xs),
            "seeds_agree": j.agree,
            "seeds_needed": needed(len(xs), every) if band is not None else None,
            "seeds_on_side": j.on_side,
            "effect_ratio": j.effect_ratio,
            "verdict": j.verdict,
            "flips": [],
            "conditions": conditions or {},
            "unit": unit,
            "format": fmt,
            "detail": detail,
            "note": note,
        }
        self.rows.append(row)
        if of is not None:
            mark_flips(self.rows)
        return row


def mark_flips(rows: list[dict[str, Any]]) -> None:
    """Each sensitivity row whose verdict differs from the row it varies lists that row's
    id in its `flips`, and that row lists it: the verdicts that move with a setting."""
    by_id = {r["id"]: r for r in rows}
    for r in rows:
        r["flips"] = []
    for r in rows:
        base = by_id.get(r.get("of") or "")
        if base is not None and base["verdict"] != r["verdict"]:
            r["flips"].append(base["id"])
            base["flips"].append(r["id"])


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
    table: Any = None,
    tables: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The content of claims.json (`claims_schema.SCHEMA`): with the paper's claims table
    (`claims_table.Table`), its setups and its coverage of the paper's statements, and the
    reproduction's own `tables` (each an id, a title, its columns and its rows as dicts), the
    numbers a report shows beside its rows."""
    from .. import __version__

    mark_flips(rows)
    extra = {"tables": tables} if tables else {}
    return {
        "schema": SCHEMA_VERSION,
        **paper.head(),
        "corral_version": __version__,
        "seeds": seeds,
        "quick": quick,
        "quick_means": quick_means,
        "overrides": list(overrides),
        "run": {"machine": machine(), **(run or {})},
        "counts": counts(rows),
        "baselines": baselines,
        "setup": table.setup_doc() if table is not None else [],
        "coverage": table.coverage(rows) if table is not None else [],
        **extra,
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
    from . import claims_table

    got = claims_table.resolve(scenario, (), key)
    return default if got is claims_table.MISSING else got


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
    table: Any = None,
    tables: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A reproduction's outputs in `out`: claims.json (its rows, `report.claims`, with the
    setups and coverage of the paper's claims `table`), report.md (the claims tables from
    claims.json, then `body`) and report.json (what ran, the claims, every run's row, and
    `extra`). `report` has `claims`, `seeds`, `quick`, `overrides` and `runs`."""
    from . import report_json

    doc = document(
        paper,
        report.claims,
        seeds=report.seeds,
        quick=report.quick,
        overrides=report.overrides,
        baselines=baselines,
        quick_means=quick_means,
        table=table,
        tables=tables,
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
    opened = row.get("band_open", False)
    if lo is None:
        return f"{'<' if opened else '<='} {_num(hi, fmt)}{unit}"
    if hi is None:
        return f"{'>' if opened else '>='} {_num(lo, fmt)}{unit}"
    return f"{_num(lo, fmt)} to {_num(hi, fmt)}{unit}"


def paper_text(row: dict[str, Any]) -> str:
    if row["paper_value"] is None:
        if row["kind"] in ("acceptance", "structural"):
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
            fmt = ".0%" if k.startswith("load") or k.endswith("_share") else ",.3g"
            # A target of 0 is "at most the tolerance" (cond.holds): say so, not "of 0".
            want = f"(≤ {_num(v['tolerance'], fmt)})" if t == 0 else f"of {_num(t, fmt)}"
            parts.append(f"{k.replace('_', ' ')} {_num(r, fmt)} {want}" + ("" if cond.holds(v) else " ✗"))
    if c.get("flows_started") and not unmet_only:
        parts.append(f"{c.get('flows_finished', 0):,} of {c['flows_started']:,} flows finished")
    return "; ".join(parts)


def seeds_text(row: dict[str, Any]) -> str:
    """Seeds in the band, and on the paper's side of null where the row has one."""
    if row["band"] is None:
        return "–"
    text = f"{row['seeds_agree']} of {row['seeds']}"
    if row.get("seeds_on_side") is not None:
        text += f"; {row['seeds_on_side']} on the paper's side"
    return text


def verdict_text(row: dict[str, Any]) -> str:
    """The verdict, the effect against the paper's where there is one, and the rows whose
    verdict differs under another setting."""
    text = row["verdict"].replace("_", " ")
    if row.get("effect_ratio") is not None:
        text += f" (effect {row['effect_ratio']:.2f}x the paper's)"
    if row.get("flips"):
        text += " ⇄ " + ", ".join(row["flips"])
    return text


def rows_table(rows: list[dict[str, Any]], *, conditions: str = "all") -> list[str]:
    """The rows as a Markdown table; `conditions` "all" (every check), "unmet" (only the
    checks that fail) or "none" (no column)."""
    head = (
        ["id", "figure", "claim", "paper", "band", "measured", "seeds in band", "verdict"]
        + (["conditions"] if conditions != "none" else [])
        + ["note"]
    )
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        varies = f"varies: {r['varies']}" if r.get("varies") else ""
        note = "; ".join(x for x in (varies, r["detail"], r["note"]) if x)
        cells = [
            f"`{r['id']}`" if r.get("id") else "",
            r["figure"],
            r["claim"],
            paper_text(r),
            band_text(r),
            measured_text(r),
            seeds_text(r),
            verdict_text(r),
        ]
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


SOURCE_NAMES = {"paper": "the paper", "default": "default", "ours": "ours"}


def setup_source(item: dict[str, Any]) -> str:
    """Where a setup value comes from: the paper's quote and section, the cited default, or
    our reason."""
    if item["source"] == "paper":
        return f'the paper, {item["section"]}: "{item["text"]}"'
    if item["source"] == "default":
        return f"default: {item['text']}"
    return f"ours: {item['text']}"


def setup_tables(doc: dict[str, Any], level: int = 3) -> list[str]:
    """One table per setup of claims.json: each setting, its value and its source (a setup
    copied from another lists only the settings it changes)."""
    h = "#" * level
    out: list[str] = []
    for s in doc.get("setup", []):
        base = s.get("base")
        items = [i for i in s["items"] if not base or i["item"] in s.get("own", [])]
        head = f"{h} Setup `{s['id']}`: {s['name']} ({s['figures']})"
        out += [head, "", *([f"As `{base}`, except:", ""] if base else []), "| setting | value | source |", "|---|---|---|"]
        out += [f"| {_cell(i['item'].replace('_', ' '))} | {_cell(i['value'])} | {_cell(setup_source(i))} |" for i in items]
        out.append("")
    return out


def coverage_table(doc: dict[str, Any]) -> list[str]:
    """Every statement of the paper's evaluation: the rows that judge it (with their
    verdicts), or why none does (and, for one judged in part, why the rest is not)."""
    verdicts = {r["id"]: r["verdict"] for r in doc["claims"] if r.get("id")}
    out = ["| section | the paper says | judged by |", "|---|---|---|"]
    for c in doc.get("coverage", []):
        judged = ", ".join(f"`{i}` ({verdicts.get(i, '?').replace('_', ' ')})" for i in c["rows"])
        if judged and c["reason"]:
            judged += "; in part not judged: " + c["reason"]
        out.append(f"| {_cell(c['section'])} | {_cell(c['quote'])} | {_cell(judged or 'not judged: ' + c['reason'])} |")
    return out


def tolerance_text(doc: dict[str, Any]) -> str:
    t, m = doc["tolerance"], doc["min_effect"]
    return (
        f"Bands: the paper's number +-{t['relative']:.0%} ({t['reason']}); a bound the paper states on a value (\"more "
        'than", "at most") is the band\'s edge, without tolerance, and one that contains the no-effect value ("close to") '
        'has no direction; "up to X" where the row measures the largest value is X with the tolerance; "no significant '
        'change" is within the minimum effect of no effect; a direction the paper states without a number needs an effect '
        f"of at least {m['relative']:.0%} ({m['reason']}). `met`: the median in the band, {AGREE:.0%} of the seeds in it "
        "(every run for a claim about every run), and the median on the paper's side of the no-effect value. "
        f"`direction`: {AGREE:.0%} of the seeds on the paper's side and the effect within a factor {EFFECT_FACTOR:g} of the "
        "paper's (effect: ln(value) for a ratio, value - null otherwise). Anything else with a band is `missed`; "
        "`off conditions`: the runs did not reach the paper's conditions (offered load within +-10 % of the paper's, its "
        "scale and length)."
    )


def markdown(doc: dict[str, Any], *, title: str | None = None, level: int = 2, conditions: str = "all") -> list[str]:
    """The claims part of a report (and of the README): the headline, the counts of paper
    rows by verdict with the rules, each figure's setup, the baselines table, then the paper
    rows, the sensitivity rows, our acceptance checks, the structural rows, and the
    coverage of the paper's statements (`conditions` as in `rows_table`)."""
    h = "#" * level
    rows = doc["claims"]
    out = [
        f"{h} {title or 'Claims'}: {headline(rows)}",
        "",
        tolerance_text(doc),
        "",
        *counts_table(doc),
        "",
    ]
    if doc.get("setup"):
        out += [f"{h}# Setup per figure", "", *setup_tables(doc, level + 2)]
    out += [f"{h}# Baselines", "", *baselines_table(doc), ""]
    for kind, name in (
        ("paper", "Paper claims"),
        ("sensitivity", "Sensitivity: the paper's claims under another setting (not counted)"),
        ("acceptance", "Our acceptance checks (not counted)"),
        ("structural", "Structural (true by construction; pinned by tests, not counted)"),
    ):
        some = [r for r in rows if r["kind"] == kind]
        if some:
            out += [f"{h}# {name}", "", *rows_table(some, conditions=conditions), ""]
    for t in doc.get("tables", []):
        out += [f"{h}# {t['title']}", "", *data_table(t), ""]
    if doc.get("coverage"):
        out += [f"{h}# Coverage of the paper's statements", "", *coverage_table(doc), ""]
    return out


def data_table(t: dict[str, Any]) -> list[str]:
    """One of a reproduction's own tables (`document(tables=...)`) in Markdown: numbers to
    three significant digits, a missing value as a dash."""

    def cell(x: Any) -> str:
        if x is None or (isinstance(x, float) and not math.isfinite(x)):
            return "–"
        if isinstance(x, float):
            return format(x, ".3g")
        return _cell(str(x))

    out = ["| " + " | ".join(t["columns"]) + " |", "|" + "---|" * len(t["columns"])]
    out += ["| " + " | ".join(cell(r.get(c)) for c in t["columns"]) + " |" for r in t["rows"]]
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
