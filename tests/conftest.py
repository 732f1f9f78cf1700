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
