"""Scenarios and sweep files shared by the sweep and compare tests."""

from __future__ import annotations

from pathlib import Path

# A dumbbell with 11 finite flows in three size buckets (<100KB, 100KB-1MB, >=1MB) and
# start jitter, so that seeds differ; 30 ms simulated, a few milliseconds of wall time.
SIZED = """
name = "sized"
seed = 1
duration = "30ms"

[topology]
kind = "dumbbell"
senders = 2
receivers = 1
link_rate = "1Gbps"
link_delay = "5us"

[switch]
buffer = "32pkt"

[routing]
kind = "static"

[transport]
cc = "newreno"
min_rto = "2ms"

[[flows]]
src = ["h0", "h1"]
dst = "h2"
size = "50KB"
count = 4
jitter = "5ms"
tag = "small"

[[flows]]
src = "h0"
dst = "h2"
size = "400KB"
count = 2
jitter = "5ms"
tag = "medium"

[[flows]]
src = "h1"
dst = "h2"
size = "1500KB"
jitter = "2ms"
tag = "large"

[metrics]
interval = "1ms"
queue_ports = ["sw0:2"]
queue_interval = "200us"
"""

# 2 congestion controllers x 2 buffers x 2 seeds = 8 runs.
SWEEP = """
scenario = "sized.toml"
seeds = [1, 2]
[grid]
"transport.cc" = ["newreno", "cubic"]
switch.buffer = ["8pkt", "64pkt"]
"""


def write_sweep(folder: Path, sweep: str = SWEEP, scenario: str = SIZED) -> Path:
    """Write sized.toml and sweep.toml into `folder`; return the sweep file."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sized.toml").write_text(scenario)
    path = folder / "sweep.toml"
    path.write_text(sweep)
    return path
