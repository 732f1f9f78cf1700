"""Scenarios as Python objects: load a scenario file, read and edit it by key path, remove a
block or a key, write it back as TOML, and run it.

    >>> s = corral.Scenario.load("scenarios/hcc/websearch.toml")
    >>> s["topology.kind"]
    'three_tier'
    >>> s.set("transport.cc", "dctcp").set("transport.ecn", True).remove("scheme")
    >>> res = corral.run(s)

Key paths are the ones `--set` takes: dotted table keys, list entries by index
(`traffic.0.load`). `set` creates missing tables on the way, as `--set` does; `remove` takes
a key or a whole block (`scheme`, `traffic.1`) and is an error naming the path if it is not
there. A `Scenario` keeps the file it was loaded from (`source`), so that files it names
(CDFs, flow lists) resolve from that folder when it runs. It is not validated until it runs
(`corral.run`, `corral.api.simulation`): the core then checks it as it checks a file, with the
same key paths in its errors. The CLI's `--unset PATH` is `remove` before the `--set`
overrides.
"""

from __future__ import annotations

import copy
import datetime
import json
import math
import os
import re
from pathlib import Path
from typing import Any

from ._core import ScenarioError

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib


class Scenario:
    """A scenario as nested dicts and lists (the TOML document), with its source file."""

    def __init__(self, data: dict[str, Any], source: str | os.PathLike | None = None):
        if not isinstance(data, dict):
            raise TypeError(f"a scenario is a table (dict), got {type(data).__name__}")
        self._data = data
        self.source = Path(source) if source is not None else None

    # ------------------------------------------------------------------ making one

    @classmethod
    def load(cls, path: str | os.PathLike) -> Scenario:
        """Read a scenario file (errors as `corral.run` gives for the file)."""
        from .api import load_scenario

        text, source = load_scenario(Path(path))
        return cls.from_toml(text, source)

    @classmethod
    def from_toml(cls, text: str, source: str | os.PathLike | None = None) -> Scenario:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError(f"{source or '<string>'}: invalid TOML: {e}") from None
        return cls(data, source)

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str | os.PathLike | None = None) -> Scenario:
        """A scenario from a dict (deep-copied: the caller's dict stays as it is)."""
        return cls(copy.deepcopy(data), source)

    def copy(self) -> Scenario:
        return Scenario(copy.deepcopy(self._data), self.source)

    def to_dict(self) -> dict[str, Any]:
        """The scenario as a new dict."""
        return copy.deepcopy(self._data)

    def to_toml(self) -> str:
        """The scenario as TOML text (`tomllib.loads(s.to_toml()) == s.to_dict()`)."""
        return dumps(self._data)

    # ------------------------------------------------------------------ key paths

    def __getitem__(self, path: str) -> Any:
        parent, key = self._walk(path, create=False)
        try:
            return parent[key]
        except (KeyError, IndexError):
            raise KeyError(f"{path}: not in the scenario") from None

    def __contains__(self, path: str) -> bool:
        try:
            self[path]
        except KeyError:
            return False
        return True

    def get(self, path: str, default: Any = None) -> Any:
        return self[path] if path in self else default

    def set(self, path: str, value: Any) -> Scenario:
        """Set the value at `path` (tables on the way are created); returns the scenario."""
        parent, key = self._walk(path, create=True)
        if isinstance(parent, list) and key >= len(parent):
            raise ScenarioError(f"{path}: {self._prefix(path)} has {len(parent)} entries, no index {key}")
        parent[key] = copy.deepcopy(value)
        return self

    def remove(self, path: str) -> Scenario:
        """Remove the key or block at `path` (a list entry shifts the later ones down);
        returns the scenario."""
        parent, key = self._walk(path, create=False)
        try:
            del parent[key]
        except (KeyError, IndexError):
            raise ScenarioError(f"{path}: not in the scenario, so it cannot be removed") from None
        return self

    def _walk(self, path: str, create: bool) -> tuple[Any, Any]:
        """The container holding the last part of `path`, and that part (a key or an index)."""
        parts = path.split(".") if isinstance(path, str) else []
        if not parts or any(p == "" for p in parts):
            raise ScenarioError(f"{path!r}: a key path is dotted keys, like topology.k or traffic.0.load")
        cur: Any = self._data
        for i, part in enumerate(parts):
            here = ".".join(parts[:i]) or "the scenario"
            if isinstance(cur, list):
                if not re.fullmatch(r"\d+", part):
                    raise ScenarioError(f"{path}: {here} is a list; expected an index, got {part!r}")
                part = int(part)
                if i + 1 < len(parts) and part >= len(cur):
                    raise ScenarioError(f"{path}: {here} has {len(cur)} entries, no index {part}")
            elif not isinstance(cur, dict):
                raise ScenarioError(f"{path}: {here} is not a table")
            if i + 1 == len(parts):
                return cur, part
            if isinstance(cur, dict) and part not in cur:
                if not create:
                    raise KeyError(f"{path}: not in the scenario")
                cur[part] = {}
            cur = cur[part]
        raise AssertionError("unreachable")

    @staticmethod
    def _prefix(path: str) -> str:
        return path.rsplit(".", 1)[0]

    def __repr__(self) -> str:
        name = self._data.get("name") or (self.source.name if self.source else "<scenario>")
        return f"Scenario({name!r}, {len(self._data)} top-level keys)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self._data == other._data


# ---------------------------------------------------------------------- TOML writer

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _key(k: str) -> str:
    return k if _BARE_KEY.fullmatch(k) else _value(k)


def _value(v: Any) -> str:
    """A value as inline TOML."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        # JSON's escapes are TOML basic-string escapes; TOML also forbids a raw DEL
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }" if v else "{}"
    raise TypeError(f"cannot write {type(v).__name__} as TOML: {v!r}")


def _is_table_list(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def dumps(doc: dict[str, Any]) -> str:
    """`doc` as a TOML document: plain keys first, then its tables and arrays of tables."""
    lines: list[str] = []
    _table(doc, [], lines)
    return "\n".join(lines).lstrip("\n") + "\n"


def _table(doc: dict[str, Any], path: list[str], lines: list[str]) -> None:
    plain = [(k, v) for k, v in doc.items() if not isinstance(v, dict) and not _is_table_list(v)]
    for k, v in plain:
        lines.append(f"{_key(k)} = {_value(v)}")
    for k, v in doc.items():
        here = [*path, _key(k)]
        if isinstance(v, dict):
            lines += ["", f"[{'.'.join(here)}]"]
            _table(v, here, lines)
        elif _is_table_list(v):
            for item in v:
                lines += ["", f"[[{'.'.join(here)}]]"]
                _table(item, here, lines)
