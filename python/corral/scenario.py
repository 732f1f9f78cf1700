"""Scenarios as Python objects: load a scenario file, read and edit it by key path, remove a
block or a key, write it back as TOML, and run it.

    >>> s = corral.Scenario.load("corral:hcc/websearch.toml")   # a packaged scenario, or a path
    >>> s["topology.kind"]
    'three_tier'
    >>> s.set("transport.cc", "dctcp").set("transport.ecn", True).remove("scheme")
    >>> res = corral.run(s)

Key paths are the ones `--set` takes: dotted table keys, list entries by index
(`traffic.0.load`). `set` creates missing tables on the way, as `--set` does, and refuses a
key the scenario's schema does not have, with the loader's suggestion (`transport.ccc:
unknown key; did you mean `cc`?`); `remove` takes a key or a whole block (`scheme`,
`traffic.1`) and is an error naming the path if it is not there. A `Scenario` keeps the file it was loaded from (`source`), so that files it names
(CDFs, flow lists) resolve from that folder when it runs. Its values are not validated until it
runs (`corral.run`, `corral.api.simulation`): the core then checks it as it checks a file, with
the same key paths in its errors. `to_toml` refuses a value TOML cannot hold (an integer
beyond 64 bits), naming its key. The CLI's `--unset PATH` is `remove` before the `--set`
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
        """Set the value at `path` (tables on the way are created); returns the scenario.
        A key the schema does not have is refused (ScenarioError) and nothing changes."""
        new = path not in self
        before = copy.deepcopy(self._data) if new else None
        parent, key = self._walk(path, create=True)
        if isinstance(parent, list) and key >= len(parent):
            raise ScenarioError(f"{path}: {self._prefix(path)} has {len(parent)} entries, no index {key}")
        parent[key] = copy.deepcopy(value)
        if new:
            try:
                _check_key(self._data, path)
            except ScenarioError:
                self._data = before
                raise
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


def _check_key(doc: dict[str, Any], path: str) -> None:
    """Refuse `path` if the schema has no such key: the core types the scenario cut down to
    that key (and the `kind` of each table on the way, which decides its keys), and an
    unknown-key error at the path or above it is raised; any other error (a required key
    not set yet) is left for the run to report."""
    from . import _core

    parts = path.split(".")
    pruned: dict[str, Any] = {}
    cur_src: Any = doc
    cur_dst: Any = pruned
    shown: list[str] = []  # the path as the pruned document spells it (list indices 0)
    for i, part in enumerate(parts):
        last = i + 1 == len(parts)
        if isinstance(cur_src, list):
            item = cur_src[int(part)]
            shown.append("0")
            if last or not isinstance(item, (dict, list)):
                cur_dst.append(copy.deepcopy(item))
                break
            nxt: Any = {} if isinstance(item, dict) else []
            cur_dst.append(nxt)
        else:
            if isinstance(cur_src, dict) and "kind" in cur_src and not isinstance(cur_dst, list):
                cur_dst["kind"] = copy.deepcopy(cur_src["kind"])
            item = cur_src[part]
            shown.append(part)
            if last or not isinstance(item, (dict, list)):
                cur_dst[part] = copy.deepcopy(item)
                break
            nxt = {} if isinstance(item, dict) else []
            cur_dst[part] = nxt
        cur_src, cur_dst = item, nxt
    try:
        text = dumps(pruned)
    except ScenarioError:
        return
    error = _core.type_error(text)
    if not error:
        return
    where, _, message = error.partition(": ")
    where = re.sub(r"\[(\d+)\]", r".\1", where)
    pruned_path = ".".join(shown)
    if not message.startswith("unknown key") or not (pruned_path + ".").startswith(where + "."):
        return
    real = ".".join(parts[: len(where.split("."))])
    raise ScenarioError(f"{real}: {message}")


# ---------------------------------------------------------------------- TOML writer

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _key(k: str) -> str:
    return k if _BARE_KEY.fullmatch(k) else _value(k)


# TOML's integers are 64-bit signed.
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1


def _value(v: Any, path: str = "") -> str:
    """A value as inline TOML; `path` names it in an error."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        if not _INT_MIN <= v <= _INT_MAX:
            raise ScenarioError(f"{path or 'value'}: {v} does not fit in a TOML integer (64-bit, {_INT_MIN} to {_INT_MAX})")
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
        return "[" + ", ".join(_value(x, f"{path}.{i}") for i, x in enumerate(v)) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x, f'{path}.{k}')}" for k, x in v.items()) + " }" if v else "{}"
    raise TypeError(f"{path or 'value'}: cannot write {type(v).__name__} as TOML: {v!r}")


def _is_table_list(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def dumps(doc: dict[str, Any]) -> str:
    """`doc` as a TOML document: plain keys first, then its tables and arrays of tables."""
    lines: list[str] = []
    _table(doc, [], lines)
    return "\n".join(lines).lstrip("\n") + "\n"


def _table(doc: dict[str, Any], path: list[str], lines: list[str], where: str = "") -> None:
    """`doc` under the TOML header `path`; `where` is its key path (`flows.0`) for errors."""
    at = (lambda k: f"{where}.{k}") if where else str
    plain = [(k, v) for k, v in doc.items() if not isinstance(v, dict) and not _is_table_list(v)]
    for k, v in plain:
        lines.append(f"{_key(k)} = {_value(v, at(k))}")
    for k, v in doc.items():
        here = [*path, _key(k)]
        if isinstance(v, dict):
            lines += ["", f"[{'.'.join(here)}]"]
            _table(v, here, lines, at(k))
        elif _is_table_list(v):
            for i, item in enumerate(v):
                lines += ["", f"[[{'.'.join(here)}]]"]
                _table(item, here, lines, f"{at(k)}.{i}")
