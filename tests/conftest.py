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


# The files that take longest (a quick reproduction each, the docs' runnable pages) run
# first: `make test` spreads files over two pytest-xdist workers in collection order, and a
# long file collected last would leave one worker alone at the end while the other idles.
LONGEST_FIRST = (
    "test_docs_runnable.py",
    "test_scc.py",
    "test_r2c2.py",
    "test_hcc.py",
    "test_outcast.py",
    "test_outcast_studies.py",
    "test_rackcc.py",
)


# A paper's quick reproduction (`corral reproduce <paper> --quick`: 12-50 s of CPU each for
# RackCC, HCC, R2C2 and SCC, a module fixture named `quick` in their test files) and the tests
# that read it are marked `papers`: `make test` leaves them out, to stay within its 5 minutes
# on 2 cores; `make test-papers` runs them, and .ci/run runs both. Marked by hand the same way:
# Outcast's quick run, its studies' five-seed runs (tests/test_outcast_studies.py) and R2C2's
# GA at packet level; Outcast's Case I scenario tests (a few seconds) stay in `make test`.
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "quick" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.papers)
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture
def tiny_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    return path


def corral_cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run `python -m corral.cli ARGS`, capturing text output. The timeout only catches a
    hang: a quick reproduction takes 20-40 s alone and several times that on a 2-core machine
    that also builds the Rust tests and runs a second pytest worker."""
    return subprocess.run(
        [sys.executable, "-m", "corral.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=900,
    )


def assert_verdicts_pinned(
    claims_json: Path, known: dict[str | tuple[str, str], str], *, ignore: frozenset[str] = frozenset()
) -> list[dict]:
    """The rows of a reproduction's claims.json, checked against its schema: every row whose
    verdict is not `met` (outside the figures in `ignore`, e.g. wall times) is in `known`
    with that verdict, by row id (or by (figure, start of claim)), and every entry of `known`
    still names such a row: a verdict never changes silently. Returns the rows."""
    import json

    from corral.experiments import claims_schema

    doc = json.loads(claims_json.read_text())
    claims_schema.validate(doc)
    rows = [r for r in doc["claims"] if r["figure"] not in ignore]

    def names(key: str | tuple[str, str], r: dict) -> bool:
        if isinstance(key, str):
            return r.get("id") == key
        return r["figure"] == key[0] and r["claim"].startswith(key[1])

    def pinned(r: dict) -> str | None:
        return next((v for key, v in known.items() if names(key, r)), None)

    changed = [
        (r.get("id") or r["figure"], r["claim"], r["verdict"], pinned(r))
        for r in rows
        if r["verdict"] != "met" and pinned(r) != r["verdict"]
    ]
    assert not changed, "verdicts not pinned (row, claim, now, pinned):\n" + "\n".join(map(str, changed))
    gone = [(key, v) for key, v in known.items() if not any(names(key, r) and r["verdict"] == v for r in rows)]
    assert not gone, f"pinned verdicts that changed (update the test and the docs/reproductions page): {gone}"
    return doc["claims"]
