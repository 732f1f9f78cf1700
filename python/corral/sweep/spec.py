"""The sweep file: a base scenario, a grid of overrides, seeds; parsed, checked and expanded.

A sweep file is TOML (docs/guides/sweeps.md):

    scenario = "dumbbell.toml"        # base scenario, relative to the sweep file, or a
                                      # packaged one: "corral:examples/dumbbell.toml"
    seeds = [1, 2, 3]                 # or a count: seeds = 3 means 1, 2, 3
    [set]                             # fixed overrides, applied to every run first
    duration = "50ms"
    [grid]                            # one axis per key: the cartesian product is run
    "transport.cc" = ["newreno", "cubic"]
    "topology.k" = [4, 8]
    [[zip]]                           # linked keys: equal-length lists that vary together
    "transport.cc" = ["newreno", "dctcp"]
    "transport.ecn" = [false, true]

Keys are the dotted paths `corral run --set` accepts; an unquoted dotted key (`topology.k`)
means the same as a quoted one. Each `[[zip]]` group is one axis of the product. Parsing
here only checks the sweep file's own shape; whether every key and value is valid for the
scenario is decided by the core, per point, in `runner.resolve` before anything runs.
"""

from __future__ import annotations

import difflib
import itertools
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TOP_KEYS = ("name", "scenario", "seeds", "set", "grid", "zip", "plots")
SEED_KEY = "seed"


class SweepError(ValueError):
    """The sweep file is invalid; the message names the key."""


@dataclass(frozen=True)
class Point:
    """One run of a sweep: the swept values (key path -> value) and the seed."""

    index: int
    values: dict[str, Any]
    seed: int | None  # None: the scenario's own seed

    def overrides(self, fixed: dict[str, Any]) -> list[str]:
        """The `key=value` override strings for the core: fixed ones, swept ones, the seed."""
        items = list(fixed.items()) + list(self.values.items())
        if self.seed is not None:
            items.append((SEED_KEY, self.seed))
        return [f"{key}={toml_value(value)}" for key, value in items]

    def label(self) -> str:
        """`key=value, ..., seed=N`, for messages."""
        parts = [f"{k}={toml_value(v)}" for k, v in self.values.items()]
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        return ", ".join(parts) or "the base scenario"


@dataclass
class Sweep:
    """A parsed sweep file."""

    path: Path
    name: str
    scenario: Path
    seeds: Sequence[int] | None  # None: the base scenario's own seed (a count is a lazy range)
    fixed: dict[str, Any] = field(default_factory=dict)
    grid: dict[str, list[Any]] = field(default_factory=dict)
    zips: list[dict[str, list[Any]]] = field(default_factory=list)
    plots: bool = False

    @property
    def keys(self) -> list[str]:
        """The swept keys, grid first, then zip groups, in file order."""
        return list(self.grid) + [k for group in self.zips for k in group]

    def axes(self) -> list[list[dict[str, Any]]]:
        """Each axis as a list of {key: value} assignments (a zip group sets several keys)."""
        axes = [[{key: v} for v in values] for key, values in self.grid.items()]
        for group in self.zips:
            n = len(next(iter(group.values())))
            axes.append([{key: values[i] for key, values in group.items()} for i in range(n)])
        return axes

    def points(self) -> list[Point]:
        """All runs: the product of the axes, times the seeds (innermost)."""
        seeds: Sequence[int | None] = self.seeds if self.seeds is not None else [None]
        out = []
        for combo in itertools.product(*self.axes()):
            values: dict[str, Any] = {}
            for assignment in combo:
                values.update(assignment)
            for seed in seeds:
                out.append(Point(len(out), dict(values), seed))
        return out

    def size(self) -> int:
        """Number of runs, without building them."""
        n_seeds = len(self.seeds) if self.seeds is not None else 1
        return math.prod(len(axis) for axis in self.axes()) * n_seeds


def load(path: str | Path) -> Sweep:
    """Read and check a sweep file (SweepError naming the key if it is malformed)."""
    from ..inputs import file_problem, resolve

    path = resolve(path)  # `corral:fct/sweep.toml`: a sweep file the package ships
    problem = file_problem(path, "a sweep TOML file")
    if problem:
        raise (FileNotFoundError if not path.exists() else SweepError)(problem)
    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as e:
        raise SweepError(f"{path}: not a UTF-8 text file (byte {e.start}); expected a sweep TOML file") from None
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{path}: not valid TOML: {e}") from None
    except RecursionError:
        raise SweepError(f"{path}: not valid TOML: arrays or tables nested too deeply") from None
    return parse(data, path)


def parse(data: dict[str, Any], path: Path) -> Sweep:
    """Check the parsed TOML of a sweep file; `path` locates the base scenario."""
    for key in data:
        if key not in TOP_KEYS:
            raise SweepError(f"{key}: unknown key{_suggest(key, TOP_KEYS)} (expected one of: {', '.join(TOP_KEYS)})")
    if "scenario" not in data:
        raise SweepError(
            'scenario: missing; give the base scenario file, relative to the sweep file, or a packaged one ("corral:examples/dumbbell.toml")'
        )
    scenario = data["scenario"]
    if not isinstance(scenario, str) or not scenario:
        raise SweepError(f"scenario: must be a file path string, got {scenario!r}")
    scenario_path = _scenario_path(scenario, path)
    name = data.get("name", path.stem)
    if not isinstance(name, str):
        raise SweepError(f"name: must be a string, got {name!r}")
    plots = data.get("plots", False)
    if not isinstance(plots, bool):
        raise SweepError(f"plots: must be true or false, got {plots!r}")
    sweep = Sweep(path, name, scenario_path, _seeds(data.get("seeds")), plots=plots)
    sweep.fixed = _flatten(_table(data, "set"), "set", leaf_lists=False)
    sweep.grid = _flatten(_table(data, "grid"), "grid", leaf_lists=True)
    zips = data.get("zip", [])
    if not isinstance(zips, list) or not all(isinstance(z, dict) for z in zips):
        raise SweepError("zip: must be an array of tables ([[zip]] sections)")
    for i, group in enumerate(zips):
        where = f"zip[{i}]"
        # One key of a zip group may repeat a value (ecn = [false, false, true] next to three
        # controllers); the rows, one value of each key, must differ.
        flat = _flatten(group, where, leaf_lists=True, unique=False)
        if not flat:
            raise SweepError(f"{where}: empty; give two or more keys with equal-length lists")
        lengths = {key: len(values) for key, values in flat.items()}
        if len(set(lengths.values())) > 1:
            shown = ", ".join(f"{k!r}: {n}" for k, n in lengths.items())
            raise SweepError(f"{where}: lists must have equal lengths, got {shown}")
        rows = list(zip(*([toml_value(v) for v in values] for values in flat.values())))
        if len(set(rows)) != len(rows):
            dup = next(r for r in rows if rows.count(r) > 1)
            shown = ", ".join(f"{k}={v}" for k, v in zip(flat, dup))
            raise SweepError(f"{where}: the combination {shown} is listed twice")
        sweep.zips.append(flat)
    seen: dict[str, str] = {}
    for where, keys in [("grid", sweep.grid)] + [(f"zip[{i}]", z) for i, z in enumerate(sweep.zips)]:
        for key in keys:
            if key == SEED_KEY:
                raise SweepError(f'{where}."{key}": sweep seeds with the top-level key seeds = [...]')
            if key in seen:
                raise SweepError(f'{where}."{key}": already swept in {seen[key]}')
            seen[key] = where
            if key in sweep.fixed:
                raise SweepError(f'{where}."{key}": also fixed in [set]; remove one')
    if SEED_KEY in sweep.fixed and sweep.seeds is not None:
        raise SweepError('set."seed": give either seeds = [...] or set.seed, not both')
    return sweep


def _scenario_path(scenario: str, path: Path) -> Path:
    """The base scenario a sweep file names: `corral:<name>`, a scenario the package ships;
    else a path relative to the sweep file. A sweep file of older docs named the package's
    scenarios relative to the root of a clone (`scenarios/fct/...`, the clone's link to
    them): where that is not found next to the sweep file, the path from the current folder
    is taken if it exists, and otherwise the error names the packaged file to write."""
    from ..inputs import PACKAGED, file_problem, packaged_root, resolve

    if scenario.startswith(PACKAGED):
        try:
            return resolve(scenario)
        except FileNotFoundError as e:
            raise SweepError(f"scenario: {e}") from None
    scenario_path = path.parent / scenario
    problem = file_problem(scenario_path, "the base scenario TOML file, relative to the sweep file")
    if not problem:
        return scenario_path
    if not Path(scenario).is_absolute() and Path(scenario).is_file():
        return Path(scenario)  # relative to the current folder, as older sweep files assumed
    parts = Path(scenario).parts
    if len(parts) > 1 and parts[0] == "scenarios" and (packaged_root() / Path(*parts[1:])).is_file():
        name = PACKAGED + Path(*parts[1:]).as_posix()
        problem += f'; the package ships it: write scenario = "{name}"'
    raise SweepError(f"scenario: {problem}")


def _seeds(raw: Any) -> Sequence[int] | None:
    if raw is None:
        return None
    if isinstance(raw, bool):
        raise SweepError(f"seeds: must be a list of integers >= 0 or a count >= 1, got {raw!r}")
    if isinstance(raw, int):
        if raw < 1:
            raise SweepError(f"seeds: a count must be >= 1, got {raw}")
        return range(1, raw + 1)  # lazy: a huge count is refused by its size, not by memory
    if not isinstance(raw, list) or not raw:
        raise SweepError(f"seeds: must be a non-empty list of integers >= 0 or a count >= 1, got {raw!r}")
    for s in raw:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise SweepError(f"seeds: every seed must be an integer >= 0, got {s!r}")
    seen: set[int] = set()
    for s in raw:
        if s in seen:
            raise SweepError(f"seeds: seed {s} is listed twice")
        seen.add(s)
    return list(raw)


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise SweepError(f"{key}: must be a table ([{key}] section), got {value!r}")
    return value


def _flatten(table: dict[str, Any], where: str, *, leaf_lists: bool, unique: bool = True, prefix: str = "") -> dict[str, Any]:
    """Nested tables -> {"a.b.c": value}. With `leaf_lists`, every leaf must be a list (of
    distinct values with `unique`)."""
    out: dict[str, Any] = {}
    for key, value in table.items():
        path = f"{prefix}{key}"
        if not key or any(not part for part in key.split(".")):
            raise SweepError(f'{where}."{path}": a key must be a dotted path like topology.k')
        if isinstance(value, dict):
            out.update(_flatten(value, where, leaf_lists=leaf_lists, unique=unique, prefix=f"{path}."))
            continue
        if leaf_lists:
            if not isinstance(value, list) or not value:
                raise SweepError(f'{where}."{path}": must be a non-empty list of values, got {value!r}')
            dups = [toml_value(v) for v in value]
            if unique and len(set(dups)) != len(dups):
                raise SweepError(f'{where}."{path}": value {next(d for d in dups if dups.count(d) > 1)} is listed twice')
        out[path] = value
    return out


def _suggest(word: str, choices: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def toml_value(value: Any) -> str:
    """A Python value from TOML back as TOML text, as the core's override parser reads it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        return f'"{escaped}"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    # dates and times: TOML's own text form
    return value.isoformat()


def _toml_key(key: str) -> str:
    if key and all(c.isalnum() or c in "_-" for c in key):
        return key
    return toml_value(key)
