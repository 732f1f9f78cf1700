"""Fuzzing scenario loading: every input ends in a result or a clean error.

Hypothesis mutates valid scenarios (a leaf replaced by a value of another type or unit, a key
dropped, an unknown key added, the text cut or spliced) and runs each through `corral.run`:
the run must finish or raise `ScenarioError` (a `ValueError`), never another exception, a
panic (`SimulationError`) or a traceback. A few examples also go through `corral run` in a
subprocess: exit status 0 with a complete output folder, or 2 with an `error:` line, no
traceback and no file left behind.

The suite runs a bounded number of examples. For a long run:

    CORRAL_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest -q tests/test_fuzz.py

(the CLI test then runs 1/30 as many, or CORRAL_FUZZ_CLI_EXAMPLES).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import corral
import pytest
from conftest import TINY, corral_cli
from corral.scenario import dumps
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

EXAMPLES = int(os.environ.get("CORRAL_FUZZ_EXAMPLES", "150"))
CLI_EXAMPLES = int(os.environ.get("CORRAL_FUZZ_CLI_EXAMPLES", max(4, EXAMPLES // 30)))

# Small valid scenarios of different shapes: each run takes milliseconds.
SEEDS = [
    TINY,
    """
duration = "1ms"
seed = 3
[topology]
kind = "fat_tree"
k = 4
link_rate = "10Gbps"
[switch]
buffer = "64KB"
queue = "ecn"
ecn_threshold = "20pkt"
[routing]
kind = "ecmp"
[transport]
cc = "dctcp"
[[traffic]]
pattern = "all_to_all"
size = { cdf = "websearch" }
load = 0.3
""",
    """
duration = "1ms"
[topology]
kind = "torus"
dims = [3, 3]
link_rate = "10Gbps"
[routing]
kind = "rps"
[scheme]
kind = "ideal"
[[flows]]
src = "h0"
dst = "h4"
size = "100KB"
transport = "scheme"
""",
    """
duration = "1ms"
mode = "fluid"
[topology]
kind = "leaf_spine"
leaves = 2
spines = 2
hosts_per_leaf = 3
host_rate = "10Gbps"
fabric_rate = "40Gbps"
[[flows]]
pattern = "permutation"
size = "1MB"
""",
]

# Values a leaf may become: other types, other units, edge numbers.
VALUES = st.one_of(
    st.sampled_from(
        [
            "",
            "1Gbps",
            "1GBps",
            "-1Gbps",
            "5us",
            "0s",
            "1e400s",
            "16KB",
            "32pkt",
            "0pkt",
            "1.5pkt",
            "abc",
            "h0",
            "h99",
            "sw0:2",
            "tor0:9",
            "unbounded",
            "websearch",
            "ecmp",
            "taildrop",
            "1e-3ms",
            "∞",
            "\x00",
        ]
    ),
    st.integers(min_value=-3, max_value=12),
    st.sampled_from([0, 2**31, 2**63 - 1, -(2**63)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.lists(st.sampled_from(["h0", "h1", 1, "1Gbps"]), max_size=3),
    st.just({"cdf": "websearch"}),
    st.just({}),
)

KEYS = [
    "kind",
    "k",
    "dims",
    "buffer",
    "queue",
    "load",
    "rate",
    "size",
    "count",
    "pattern",
    "senders",
    "weight",
    "start",
    "interval",
    "cc",
    "bogus_key",
]


SCALES = [0, 0.5, 1, 2, 3, 10, 1e-3]


def perturb(v: Any, scale: float) -> Any:
    """`v` with its number scaled: 4 -> 8, "10Gbps" -> "20Gbps"; other values unchanged."""
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        return v
    if isinstance(v, (int, float)):
        return type(v)(v * scale)
    m = re.match(r"^([0-9.]+)(.*)$", v)
    return f"{float(m.group(1)) * scale:g}{m.group(2)}" if m else v


def leaves(doc: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(doc, dict):
        return [p for k, v in doc.items() for p in leaves(v, path + (k,))] or [path]
    if isinstance(doc, list) and doc and all(isinstance(x, dict) for x in doc):
        return [p for i, v in enumerate(doc) for p in leaves(v, path + (i,))]
    return [path]


def parent(doc: Any, path: tuple) -> Any:
    for k in path[:-1]:
        doc = doc[k]
    return doc


@st.composite
def scenarios(draw) -> str:
    text = draw(st.sampled_from(SEEDS))
    doc = tomllib.loads(text)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(leaves(doc)))
        holder = parent(doc, path)
        op = draw(st.sampled_from(["perturb", "perturb", "replace", "drop", "add"]))
        if not path or not isinstance(holder, (dict, list)):
            continue
        if op == "perturb":  # same type and unit, another number: mostly still valid
            holder[path[-1]] = perturb(holder[path[-1]], draw(st.sampled_from(SCALES)))
        elif op == "replace":
            holder[path[-1]] = draw(VALUES)
        elif op == "drop" and isinstance(holder, dict):
            del holder[path[-1]]
        elif op == "add" and isinstance(holder, dict):
            holder[draw(st.sampled_from(KEYS))] = draw(VALUES)
    out = dumps(doc)
    if draw(st.integers(0, 9)) == 0:  # now and then, damage the text itself
        i = draw(st.integers(0, len(out)))
        out = (
            out[:i]
            + draw(st.sampled_from(["", "[", "]", "=", '"', "\n[[", "\\", "\x00", "é"]))
            + out[i + draw(st.integers(0, 5)) :]
        )
    return out


def clean_outcome(text: str) -> str:
    """'ok' or 'error'; anything else fails the test."""
    try:
        corral.run(text)
    except corral.ScenarioError as e:
        assert 0 < len(str(e)) < 2000, str(e)[:300]
        return "error"
    return "ok"


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(scenarios())
def test_run_ends_in_a_result_or_a_scenario_error(text: str) -> None:
    clean_outcome(text)


@settings(max_examples=CLI_EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(scenarios())
def test_cli_exits_0_or_2_and_leaves_no_stray_files(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    work = tmp_path_factory.mktemp("fuzz")
    scenario = work / "s.toml"
    scenario.write_text(text, encoding="utf-8")
    proc = corral_cli("run", scenario, "-o", work / "out", "--no-plots", cwd=work)
    assert proc.returncode in (0, 2), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "panicked" not in proc.stderr, proc.stderr[-2000:]
    left = sorted(p.name for p in work.iterdir())
    if proc.returncode == 0:
        assert left == ["out", "s.toml"] and (Path(work / "out") / "summary.json").is_file()
    else:
        assert proc.stderr.startswith("error: "), proc.stderr[:500]
        assert left == ["s.toml"], left
