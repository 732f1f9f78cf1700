"""Shared helpers: a tiny valid scenario and a way to run the `corral` CLI as a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# Two long flows over a dumbbell for 20 ms: runs in a fraction of a second.
TINY = """
name = "tiny"
seed = 1
duration = "20ms"

[topology]
kind = "dumbbell"
senders = 2
receivers = 1
link_rate = "1Gbps"
link_delay = "5us"

[switch]
buffer = "32pkt"
queue = "taildrop"

[routing]
kind = "static"

[transport]
cc = "newreno"

[[flows]]
src = ["h0", "h1"]
dst = "h2"
size = "unbounded"
tag = "long"

[metrics]
interval = "1ms"
queue_ports = ["sw0:2"]
queue_interval = "100us"
"""


@pytest.fixture
def tiny_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    return path


def corral_cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run `python -m corral.cli ARGS`, capturing text output."""
    return subprocess.run(
        [sys.executable, "-m", "corral.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def assert_verdicts_pinned(summary: Path, known_misses: set[tuple[str, str]], *, ignore: frozenset[str] = frozenset(),
                           not_measured: frozenset[str] = frozenset()) -> list[dict]:
    """The claims of a reproduction's summary.json: the figures left unmeasured are exactly
    `not_measured`, and the missed ones (outside the figures in `ignore`, e.g. wall times)
    exactly `known_misses` (figure, start of claim): a verdict never changes silently.
    Returns the claims."""
    import json

    claims = json.loads(summary.read_text())["claims"]
    assert {c["figure"] for c in claims if c["verdict"] == "not measured"} == set(not_measured), claims
    missed = {(c["figure"], c["claim"]) for c in claims if c["verdict"] == "missed" and c["figure"] not in ignore}
    known = {c for c in missed if any(c[0] == f and c[1].startswith(s) for f, s in known_misses)}
    assert missed == known, f"new misses: {missed - known}"
    now_met = {(f, s) for f, s in known_misses if not any(c[0] == f and c[1].startswith(s) for c in missed)}
    assert not now_met, f"known misses now met or gone (update KNOWN_MISSES and the README): {now_met}"
    return claims
