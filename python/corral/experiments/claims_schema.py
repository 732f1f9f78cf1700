"""The schema of a reproduction's claims.json (JSON Schema, draft 2020-12), and a checker
for the part of JSON Schema it uses (type, enum, required, properties,
additionalProperties, items, minItems, maxItems), so that writing a claims.json needs no
extra package. `claims.write` checks every file it writes."""

from __future__ import annotations

from typing import Any

from .claims import KINDS, SCHEMA_VERSION, VERDICTS

_NUM = {"type": "number"}
_NUM_OR_NULL = {"type": ["number", "null"]}
_STR = {"type": "string"}
_PAIR = {"type": "array", "items": _NUM_OR_NULL, "minItems": 2, "maxItems": 2}
_REASONED = {"type": "object", "required": ["relative", "reason"], "properties": {"relative": _NUM, "reason": _STR}}

_STR_OR_NULL = {"type": ["string", "null"]}

ROW = {
    "type": "object",
    "required": [
        "id",
        "paper",
        "figure",
        "claim",
        "kind",
        "paper_value",
        "band",
        "measured",
        "range",
        "seeds",
        "seeds_agree",
        "seeds_on_side",
        "effect_ratio",
        "verdict",
        "conditions",
        "unit",
        "band_unit",
        "note",
    ],
    "properties": {
        "id": _STR,
        "paper": _STR,
        "figure": _STR,
        "claim": _STR,
        "kind": {"enum": list(KINDS)},
        "statement": _STR_OR_NULL,
        "setup": _STR_OR_NULL,
        "of": _STR_OR_NULL,
        "varies": _STR,
        "paper_value": _NUM_OR_NULL,
        "band": {"type": ["array", "null"], "items": _NUM_OR_NULL, "minItems": 2, "maxItems": 2},
        "band_open": {"type": "boolean"},
        "band_unit": _STR,
        "null": _NUM_OR_NULL,
        "every": {"type": "boolean"},
        "measured": _NUM_OR_NULL,
        "range": {"type": ["array", "null"], "items": _NUM, "minItems": 2, "maxItems": 2},
        "values": {"type": "array", "items": _NUM},
        "seeds": {"type": "integer"},
        "seeds_agree": {"type": "integer"},
        "seeds_needed": {"type": ["integer", "null"]},
        "seeds_on_side": {"type": ["integer", "null"]},
        "effect_ratio": _NUM_OR_NULL,
        "verdict": {"enum": list(VERDICTS)},
        "flips": {"type": "array", "items": _STR},
        "conditions": {"type": "object"},
        "unit": _STR,
        "format": _STR,
        "detail": _STR,
        "note": _STR,
    },
    "additionalProperties": False,
}

SETUP_ITEM = {
    "type": "object",
    "required": ["item", "value", "source", "text", "section", "check"],
    "properties": {
        "item": _STR,
        "value": _STR,
        "source": {"enum": ["paper", "default", "ours"]},
        "text": _STR,
        "section": _STR,
        "check": {"type": "object"},
    },
    "additionalProperties": False,
}
SETUP = {
    "type": "object",
    "required": ["id", "name", "figures", "runs", "base", "own", "items"],
    "properties": {
        "id": _STR,
        "name": _STR,
        "figures": _STR,
        "runs": {"type": "boolean"},
        "base": _STR_OR_NULL,
        "own": {"type": "array", "items": _STR},
        "items": {"type": "array", "items": SETUP_ITEM},
    },
    "additionalProperties": False,
}
COVERAGE = {
    "type": "object",
    "required": ["id", "section", "quote", "rows", "reason"],
    "properties": {"id": _STR, "section": _STR, "quote": _STR, "rows": {"type": "array", "items": _STR}, "reason": _STR},
    "additionalProperties": False,
}

# A reproduction's own table of numbers beside its rows (optional).
TABLE = {
    "type": "object",
    "required": ["id", "title", "columns", "rows"],
    "properties": {
        "id": _STR,
        "title": _STR,
        "columns": {"type": "array", "items": _STR},
        "rows": {"type": "array", "items": {"type": "object"}},
    },
    "additionalProperties": False,
}

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "corral reproduction claims",
    "type": "object",
    "required": [
        "schema",
        "paper",
        "title",
        "tolerance",
        "min_effect",
        "corral_version",
        "seeds",
        "quick",
        "run",
        "counts",
        "baselines",
        "setup",
        "coverage",
        "claims",
    ],
    "properties": {
        "schema": {"enum": [SCHEMA_VERSION]},
        "paper": _STR,
        "title": _STR,
        "tolerance": _REASONED,
        "min_effect": _REASONED,
        "corral_version": _STR,
        "seeds": {"type": "array", "items": {"type": "integer"}},
        "quick": {"type": "boolean"},
        "quick_means": _STR,
        "overrides": {"type": "array", "items": _STR},
        "run": {"type": "object", "required": ["machine"], "properties": {"machine": {"type": "object"}}},
        "counts": {"type": "object", "required": list(VERDICTS), "properties": {v: {"type": "integer"} for v in VERDICTS}},
        "baselines": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["baseline", "setting", "value", "source"],
                "properties": {k: _STR for k in ("baseline", "setting", "value", "source")},
            },
        },
        "setup": {"type": "array", "items": SETUP},
        "coverage": {"type": "array", "items": COVERAGE},
        "tables": {"type": "array", "items": TABLE},
        "claims": {"type": "array", "items": ROW},
    },
}

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def errors(value: Any, schema: dict[str, Any] = SCHEMA, where: str = "$") -> list[str]:
    """Every way `value` breaks `schema`, each naming where."""
    out: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where}: {value!r} is not one of {schema['enum']}"]
    types = schema.get("type")
    if types is not None and not any(_is(value, t) for t in ([types] if isinstance(types, str) else types)):
        return [f"{where}: {type(value).__name__} is not {types}"]
    if isinstance(value, dict):
        out += [f"{where}: {k!r} missing" for k in schema.get("required", ()) if k not in value]
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                out += errors(v, props[k], f"{where}.{k}")
            elif schema.get("additionalProperties") is False:
                out.append(f"{where}: unexpected key {k!r}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", len(value)):
            out.append(f"{where}: {len(value)} items")
        if "items" in schema:
            for i, v in enumerate(value):
                out += errors(v, schema["items"], f"{where}[{i}]")
    return out


def validate(doc: Any) -> None:
    """Raises ValueError listing every schema error of a claims.json document."""
    problems = errors(doc)
    if problems:
        raise ValueError("claims.json does not match its schema:\n" + "\n".join(problems[:20]))
