"""A reproduced paper as data: its claims table, its setups and its coverage, written once in
`papers/<paper>.toml` (the format: docs/reproductions/index.md) and read here.

- `[paper]`: the paper's key, title, tolerance and minimum effect, with their reasons
  (`claims.Paper`).
- `[[statement]]`: every quantitative or directional statement of the paper's evaluation: a
  quote and its section, judged by the claims that name it or, if none does, not judged for
  the `reason` it gives (`coverage`).
- `[[claim]]`: one row of claims.json each: its id, figure, text, kind, the paper's number
  (`value`, in `unit`, a fraction like "1/7" allowed), how the band is built from it
  (`bound`), its null, the statement it judges (paper rows must name one) and the setup it
  runs under. The experiment module measures the values and adds the row by id
  (`claims.Claims.row`), so a paper number lives in one place.
- `[[setup]]`: per figure (or group of figures), the topology, link and host rates, buffer,
  queue discipline, transport (cc, SACK, min RTO, initial window), load and run length
  (`REQUIRED`), each value with its source: the paper (a quote and its section), a cited
  default of the simulator or OS the paper used, or ours with the reason. An item's
  `check` names the scenario keys and values the runs must have: every job of the
  reproduction carries its setup's id (`Job.labels["setup"]`), and `problems` compares each
  job's scenario (file plus overrides) with its setup. A job run under another setting
  names the keys it changes in `Job.labels["deviation"]`; those must differ, the rest match.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .claims import KINDS, Band, Paper

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

PAPERS_DIR = Path(str(resources.files("corral") / "experiments" / "papers"))
# The settings every figure's setup states, in the order of its table.
REQUIRED = (
    "topology",
    "link_rate",
    "host_rate",
    "buffer",
    "queue",
    "cc",
    "sack",
    "min_rto",
    "initial_window",
    "load",
    "run_length",
)
SOURCES = ("paper", "default", "ours")
BOUNDS = ("around", "at_least", "more_than", "at_most", "less_than", "above", "below", "within", "band", "none")


class TableError(ValueError):
    """A paper's claims table breaks the format: the message names the key path."""


# ---------------------------------------------------------------- the entries


@dataclass(frozen=True)
class Statement:
    """A statement of the paper's evaluation: its quote and section; `reason` when no row
    judges it."""

    id: str
    section: str
    quote: str
    reason: str = ""
    rows: tuple[str, ...] = ()  # rows that judge it besides the claims naming it (a row judging two statements)


@dataclass(frozen=True)
class Claim:
    """One row's specification (module doc)."""

    id: str
    figure: str
    claim: str
    kind: str = "paper"
    statement: str | None = None
    value: float | None = None
    bound: str = "none"
    band: tuple[float | None, float | None] | None = None  # only for bound = "band"
    null: float | None = None
    unit: str = "x"
    fmt: str = ".2f"
    every: bool = False
    setup: str | None = None
    note: str = ""

    def band_for(self, paper: Paper) -> tuple[Band | None, bool]:
        """The row's band and whether its edges are open ("more than", "less than")."""
        v, b = self.value, self.bound
        if b == "none":
            return None, False
        if b == "band":
            return self.band, False
        if b == "above":
            return paper.above(self.null if self.null is not None else 1.0, self.unit), False
        if b == "below":
            return paper.below(self.null if self.null is not None else 1.0, self.unit), False
        if b == "within":
            assert self.null is not None
            return paper.within(self.null, self.unit), False
        assert v is not None
        if b == "around":
            return paper.around(v), False
        return {
            "at_least": (paper.at_least(v), False),
            "more_than": (paper.more_than(v), True),
            "at_most": (paper.at_most(v), False),
            "less_than": (paper.less_than(v), True),
        }[b]


@dataclass(frozen=True)
class SetupItem:
    """One setting of a figure's setup: its value and where it comes from."""

    item: str
    value: str
    source: str  # "paper", "default" (of the simulator or OS the paper used) or "ours"
    text: str  # the paper's quote, the cited default, or our reason
    section: str = ""  # where the quote is (source "paper")
    check: dict[str, Any] = field(default_factory=dict)  # scenario key -> the value the runs must have


@dataclass(frozen=True)
class Setup:
    """The setup of one figure or group of figures."""

    id: str
    name: str
    figures: str
    items: tuple[SetupItem, ...]
    runs: bool = True  # False: no simulation runs under it (structural numbers, analyses)
    base: str | None = None  # the setup it copies, `items` replacing the base's of the same name
    own: tuple[str, ...] = ()  # the items it states itself (all of them without a base)


@dataclass(frozen=True)
class Table:
    """A paper's claims table (module doc)."""

    paper: Paper
    statements: tuple[Statement, ...]
    claims: dict[str, Claim]
    setups: tuple[Setup, ...]

    def claim(self, claim_id: str) -> Claim:
        try:
            return self.claims[claim_id]
        except KeyError:
            raise KeyError(f"{self.paper.key}: no claim {claim_id!r} in its claims table") from None

    def value(self, claim_id: str) -> float:
        """The paper's number of a claim (for the code that needs it beside the row: a
        prediction, a figure's reference line)."""
        v = self.claim(claim_id).value
        if v is None:
            raise KeyError(f"{self.paper.key}: claim {claim_id!r} has no paper value")
        return v

    def setup(self, setup_id: str) -> Setup:
        for s in self.setups:
            if s.id == setup_id:
                return s
        raise KeyError(f"{self.paper.key}: no setup {setup_id!r} in its claims table")

    def coverage(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """claims.json's `coverage`: every statement with the ids of the rows (of `rows`)
        that judge it, or the reason none does."""
        by_statement: dict[str, list[str]] = {}
        ids = [r["id"] for r in rows]
        for r in rows:
            if r.get("statement"):
                by_statement.setdefault(r["statement"], []).append(r["id"])
        for s in self.statements:
            by_statement.setdefault(s.id, []).extend(
                i
                for base in s.rows
                for i in ids
                if (i == base or i.startswith(base + "@")) and i not in by_statement.get(s.id, [])
            )
        return [
            {"id": s.id, "section": s.section, "quote": s.quote, "rows": by_statement.get(s.id, []), "reason": s.reason}
            for s in self.statements
        ]

    def setup_doc(self) -> list[dict[str, Any]]:
        """claims.json's `setup`: every setup with its items and their sources."""
        return [
            {
                "id": s.id,
                "name": s.name,
                "figures": s.figures,
                "runs": s.runs,
                "base": s.base,
                "own": list(s.own),
                "items": [
                    {"item": i.item, "value": i.value, "source": i.source, "text": i.text, "section": i.section, "check": i.check}
                    for i in s.items
                ],
            }
            for s in self.setups
        ]


# ---------------------------------------------------------------- reading a table


def _number(x: Any, where: str) -> float | None:
    if x is None:
        return None
    if isinstance(x, bool):
        raise TableError(f"{where}: expected a number, got {x!r}")
    if isinstance(x, (int, float)):
        return float(x)
    if isinstance(x, str):
        num, _, den = x.replace(" ", "").partition("/")
        try:
            return float(num) / float(den or 1)
        except (ValueError, ZeroDivisionError):
            pass
    raise TableError(f'{where}: expected a number or a fraction like "1/7", got {x!r}')


def _take(entry: dict[str, Any], where: str, required: tuple[str, ...], optional: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise TableError(f"{where}: expected a table")
    extra = sorted(set(entry) - set(required) - set(optional))
    if extra:
        raise TableError(f"{where}: unknown key(s) {', '.join(extra)}; expected {', '.join(required + optional)}")
    missing = [k for k in required if k not in entry or entry[k] in ("", None)]
    if missing:
        raise TableError(f"{where}: missing {', '.join(missing)}")
    return entry


def _paper(d: dict[str, Any], where: str) -> Paper:
    _take(d, where, ("key", "title", "tolerance", "tolerance_reason"), ("min_effect", "min_effect_reason"))
    kw: dict[str, Any] = {}
    if "min_effect" in d:
        kw["min_effect"] = _number(d["min_effect"], f"{where}.min_effect")
        if "min_effect_reason" not in d:
            raise TableError(f"{where}: min_effect needs min_effect_reason")
        kw["min_effect_reason"] = d["min_effect_reason"]
    return Paper(
        key=d["key"],
        title=d["title"],
        tolerance=_number(d["tolerance"], f"{where}.tolerance"),  # type: ignore[arg-type]
        tolerance_reason=d["tolerance_reason"],
        **kw,
    )


def _statement(d: dict[str, Any], where: str) -> Statement:
    _take(d, where, ("id", "section", "quote"), ("reason", "rows"))
    rows = d.get("rows", [])
    if not (isinstance(rows, list) and all(isinstance(r, str) for r in rows)):
        raise TableError(f"{where}.rows: expected a list of claim ids")
    return Statement(d["id"], d["section"], d["quote"], d.get("reason", ""), tuple(rows))


CLAIM_KEYS = ("kind", "statement", "value", "bound", "band", "null", "unit", "fmt", "every", "setup", "note")


def _claim(d: dict[str, Any], where: str) -> Claim:
    _take(d, where, ("id", "figure", "claim"), CLAIM_KEYS)
    kind = d.get("kind", "paper")
    if kind not in KINDS or kind == "sensitivity":
        raise TableError(f"{where}.kind: {kind!r}; expected one of paper, acceptance, structural (sensitivity rows vary a claim)")
    bound = d.get("bound", "none")
    if bound not in BOUNDS:
        raise TableError(f"{where}.bound: {bound!r}; expected one of {', '.join(BOUNDS)}")
    value = _number(d.get("value"), f"{where}.value")
    null = _number(d.get("null"), f"{where}.null")
    band = None
    if bound == "band":
        raw = d.get("band")
        if not (isinstance(raw, list) and len(raw) == 2):
            raise TableError(f'{where}.band: bound = "band" needs band = [low, high] (a bound may be "none")')
        band = tuple(None if x == "none" else _number(x, f"{where}.band") for x in raw)
    elif "band" in d:
        raise TableError(f'{where}.band: only with bound = "band"; the other bounds are built from value')
    if bound in ("around", "at_least", "more_than", "at_most", "less_than") and value is None:
        raise TableError(f"{where}.value: bound = {bound!r} is built from the paper's number; give value")
    if bound == "within" and null is None:
        raise TableError(f'{where}.null: bound = "within" (no effect) is the band within the minimum effect of null; give null')
    if null is not None and value is not None and _bound_holds_null(bound, value, null):
        raise TableError(
            f"{where}.null: the bound {bound} {value:g} contains the no-effect value {null:g}, so the claim is closeness to "
            "it, not an effect on one side: leave null out (a value beyond the bound is missed, never a direction)"
        )
    if kind == "paper" and not d.get("statement"):
        raise TableError(f"{where}.statement: a paper row judges a statement of the paper; name its [[statement]] id")
    if kind in ("paper", "acceptance") and not d.get("setup"):
        raise TableError(f"{where}.setup: name the [[setup]] its runs follow")
    return Claim(
        id=d["id"],
        figure=d["figure"],
        claim=d["claim"],
        kind=kind,
        statement=d.get("statement"),
        value=value,
        bound=bound,
        band=band,  # type: ignore[arg-type]
        null=null,
        unit=d.get("unit", "x"),
        fmt=d.get("fmt", ".2f"),
        every=bool(d.get("every", False)),
        setup=d.get("setup"),
        note=d.get("note", ""),
    )


def _bound_holds_null(bound: str, value: float, null: float) -> bool:
    """A one-sided bound ("at most 1.1" with null 1) whose band contains the no-effect value:
    the paper states closeness to null, and a value past the bound must not read as the
    paper's direction."""
    if bound in ("at_most", "less_than"):
        return null < value or (bound == "at_most" and null == value)
    if bound in ("at_least", "more_than"):
        return null > value or (bound == "at_least" and null == value)
    return False


def _item(d: dict[str, Any], where: str) -> SetupItem:
    _take(d, where, ("item", "value", "source", "text"), ("section", "check"))
    if d["source"] not in SOURCES:
        raise TableError(f"{where}.source: {d['source']!r}; expected one of {', '.join(SOURCES)}")
    if d["source"] == "paper" and not d.get("section"):
        raise TableError(f"{where}.section: a value quoted from the paper names its section")
    check = d.get("check", {})
    if not isinstance(check, dict):
        raise TableError(f"{where}.check: expected a table of scenario keys and values")
    return SetupItem(d["item"], str(d["value"]), d["source"], d["text"], d.get("section", ""), dict(check))


def _setup(d: dict[str, Any], where: str, earlier: dict[str, Setup]) -> Setup:
    """A setup; with `base`, the earlier setup it copies, its own items replacing the base's
    of the same name."""
    _take(d, where, ("id", "name", "figures", "item"), ("runs", "base"))
    items = tuple(_item(x, f"{where}.item[{i}]") for i, x in enumerate(d["item"]))
    names = [i.item for i in items]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise TableError(f"{where}: setup {d['id']!r} states {', '.join(dup)} twice")
    base = d.get("base")
    if base is not None:
        if base not in earlier:
            raise TableError(f"{where}.base: no earlier [[setup]] {base!r}")
        mine = {i.item: i for i in items}
        inherited = tuple(mine.pop(i.item, i) for i in earlier[base].items)
        items = inherited + tuple(mine.values())
    missing = [r for r in REQUIRED if r not in [i.item for i in items]]
    if missing:
        raise TableError(f"{where}: setup {d['id']!r} does not state {', '.join(missing)}")
    return Setup(d["id"], d["name"], d["figures"], items, bool(d.get("runs", True)), base, tuple(names))


def parse(text: str, source: str = "<table>") -> Table:
    """A claims table from its TOML text; TableError names the first key path that breaks
    the format."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise TableError(f"{source}: not TOML ({e})") from None
    _take(doc, source, ("paper", "claim"), ("statement", "setup"))
    paper = _paper(doc["paper"], f"{source}: paper")
    statements = tuple(_statement(x, f"{source}: statement[{i}]") for i, x in enumerate(doc.get("statement", [])))
    earlier: dict[str, Setup] = {}
    for i, x in enumerate(doc.get("setup", [])):
        setup = _setup(x, f"{source}: setup[{i}]", earlier)
        if setup.id in earlier:
            raise TableError(f"{source}: setup[{i}].id: {setup.id!r} twice")
        earlier[setup.id] = setup
    setups = tuple(earlier.values())
    claims: dict[str, Claim] = {}
    for i, x in enumerate(doc["claim"]):
        c = _claim(x, f"{source}: claim[{i}]")
        if c.id in claims:
            raise TableError(f"{source}: claim[{i}].id: {c.id!r} twice")
        claims[c.id] = c
    ids = {s.id for s in statements}
    if len(ids) != len(statements):
        raise TableError(f"{source}: statement ids must be unique")
    setup_ids = {s.id for s in setups}
    for c in claims.values():
        if c.statement and c.statement not in ids:
            raise TableError(f"{source}: claim {c.id!r}.statement: no [[statement]] {c.statement!r}")
        if c.setup and c.setup not in setup_ids:
            raise TableError(f"{source}: claim {c.id!r}.setup: no [[setup]] {c.setup!r}")
    judged = {c.statement for c in claims.values() if c.statement} | {s.id for s in statements if s.rows}
    for s in statements:
        for r in s.rows:
            if r not in claims:
                raise TableError(f"{source}: statement {s.id!r}.rows: no claim {r!r}")
    for s in statements:
        if s.id not in judged and not s.reason:
            raise TableError(f"{source}: statement {s.id!r} is judged by no claim and gives no reason")
    return Table(paper, statements, claims, setups)


def load(key: str) -> Table:
    """The claims table of paper `key` (papers/<key>.toml in the package)."""
    path = PAPERS_DIR / f"{key}.toml"
    return parse(path.read_text(), str(path.name))


# ---------------------------------------------------------------- setups against the runs


def _toml_value(text: str) -> Any:
    """An override's value as the core reads it: TOML if it parses as such, else the text."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def resolve(scenario: Path | str, overrides: tuple[str, ...], key: str, cache: dict[Any, dict[str, Any]] | None = None) -> Any:
    """The value of dotted `key` in `scenario` (a file, or TOML text as a job may carry)
    after `overrides` (the last override of the key, or of a table holding it, wins);
    `MISSING` where neither sets it."""
    cache = cache if cache is not None else {}
    if scenario not in cache:
        cache[scenario] = tomllib.loads(scenario.read_text() if isinstance(scenario, Path) else scenario)
    found: Any = _walk(cache[scenario], key)
    for o in overrides:
        k, sep, v = o.partition("=")
        if not sep:
            continue
        k = k.strip()
        if k == key:
            found = _toml_value(v.strip())
        elif key.startswith(k + "."):
            found = _walk(_toml_value(v.strip()), key[len(k) + 1 :])
    return found


class _Missing:
    def __repr__(self) -> str:
        return "not set"


MISSING = _Missing()


def _walk(node: Any, key: str) -> Any:
    for part in key.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return MISSING
    return node


_UNITS = {
    "ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0,
    "bps": 1.0, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9, "tbps": 1e12,
    "b": 1.0, "kb": 1e3, "mb": 1e6, "gb": 1e9, "kib": 1024.0, "mib": 1024.0**2, "gib": 1024.0**3,
}  # fmt: skip


def normal(x: Any) -> Any:
    """A scenario value in a form two spellings of it share: a number with a unit as its
    base-unit number and unit class ("0.5s" and "500ms"), a controller table as its kind,
    text lower-cased without spaces."""
    if isinstance(x, dict) and "kind" in x:
        return normal(x["kind"])
    if isinstance(x, bool) or x is MISSING:
        return x
    if isinstance(x, (int, float)):
        return float(x)
    if isinstance(x, str):
        t = x.replace(" ", "").lower()
        m = re.fullmatch(r"([0-9.]+(?:e[-+]?\d+)?)([a-z]+)", t)
        if m and m.group(2) in _UNITS:
            unit = m.group(2)
            kind = "time" if unit.endswith("s") and not unit.endswith("bps") else ("rate" if unit.endswith("bps") else "bytes")
            return (round(float(m.group(1)) * _UNITS[unit], 9), kind)
        return t
    if isinstance(x, list):
        return [normal(v) for v in x]
    return x


def same(a: Any, want: Any) -> bool:
    """`a` (a scenario's value) is `want` (a setup's check), or one of `want = {any = [...]}`
    (a figure run at several values the paper gives, such as Case V's loads)."""
    if isinstance(want, dict) and set(want) == {"any"}:
        return any(same(a, w) for w in want["any"])
    na, nb = normal(a), normal(want)
    if isinstance(na, float) and isinstance(nb, float):
        return math.isclose(na, nb, rel_tol=1e-9)
    return na == nb


def problems(table: Table, jobs: list[Any]) -> list[str]:
    """Every way the reproduction's `jobs` (its full run's) disagree with the setups its
    claims table states: a job without a setup, or naming none the table has; a checked
    key a job's scenario does not set, or sets to another value (a deviation it names must
    differ instead); a setup that runs no job."""
    out: list[str] = []
    cache: dict[Any, dict[str, Any]] = {}
    used: set[str] = set()
    for job in jobs:
        source = job.scenario.name if isinstance(job.scenario, Path) else str(tomllib.loads(job.scenario).get("name", "<text>"))
        name = f"{source} {' '.join(o for o in job.overrides if not o.startswith('seed='))}".strip()[:300]
        sid = job.labels.get("setup")
        if not sid:
            out.append(f"{name}: the job names no setup (labels['setup'])")
            continue
        try:
            setup = table.setup(sid)
        except KeyError as e:
            out.append(f"{name}: {e.args[0]}")
            continue
        used.add(sid)
        deviation = dict(job.labels.get("deviation") or {})
        for item in setup.items:
            for key, want in item.check.items():
                got = resolve(job.scenario, job.overrides, key, cache)
                if key in deviation:
                    if same(got, want):
                        out.append(f"{name}: {key} is listed as a deviation from setup {sid!r} but equals its {want!r}")
                    elif not same(got, deviation[key]):
                        out.append(f"{name}: {key} = {got!r}, but the job's deviation says {deviation[key]!r}")
                elif got is MISSING:
                    out.append(f"{name}: {key} is not set; setup {sid!r} ({item.item}) states {want!r}: set it in the scenario")
                elif not same(got, want):
                    out.append(f"{name}: {key} = {got!r}, setup {sid!r} ({item.item}) states {want!r}")
        checked = {k for i in setup.items for k in i.check}
        for key in sorted(set(deviation) - checked):  # a setting the setup does not state: what the job runs
            got = resolve(job.scenario, job.overrides, key, cache)
            if not same(got, deviation[key]):
                out.append(f"{name}: {key} = {got!r}, but the job's deviation says {deviation[key]!r}")
    for s in table.setups:
        if s.runs and s.id not in used:
            out.append(f"setup {s.id!r}: no job runs under it (runs = false if none should)")
    return out
