"""No input can hang a run or fill the machine's memory (issue "A result is complete or
absent ..."): every path a scenario or sweep names is a regular file within a size cap, or it
is refused naming its key, in well under a second, before anything is read. Output paths the
file system cannot hold are refused before the simulation."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from conftest import TINY, corral_cli

FLOWS = TINY.split("[[flows]]")[0]


def traffic(key: str, path: Path) -> str:
    """A scenario whose first [[traffic]] block names `path` as its `key` (cdf or file)."""
    if key == "cdf":
        block = f'[[traffic]]\npattern = "all_to_all"\nload = 0.3\nsize = {{ cdf = "{path}" }}\n'
    else:
        block = f'[[traffic]]\npattern = "trace"\nfile = "{path}"\n'
    return FLOWS + block


@pytest.fixture
def specials(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    big = tmp_path / "big.csv"
    with open(big, "wb") as f:  # a sparse file of 10 GB: nothing is written
        f.truncate(10 * 10**9)
    return {"fifo": fifo, "device": Path("/dev/zero"), "big": big, "folder": tmp_path}


@pytest.mark.parametrize("key", ["cdf", "file"])
@pytest.mark.parametrize("what", ["fifo", "device", "big", "folder"])
def test_a_special_or_huge_input_is_refused_at_once_naming_its_key(tmp_path, specials, key, what):
    scenario = tmp_path / "s.toml"
    scenario.write_text(traffic(key, specials[what]))
    start = time.monotonic()
    proc = corral_cli("run", scenario, "-o", tmp_path / "out", cwd=tmp_path)
    took = time.monotonic() - start
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert f"traffic[0].{'size' if key == 'cdf' else key}" in proc.stderr, proc.stderr
    expected = {"fifo": "a FIFO", "device": "a device", "big": "10.0 GB", "folder": "folder"}[what]
    assert expected in proc.stderr, proc.stderr
    assert took < 5, took  # process start-up included; the check itself reads nothing
    assert not (tmp_path / "out").exists()


def test_the_cap_is_stated_and_can_be_raised(tmp_path):
    import corral
    import corral.api

    cdf = tmp_path / "sizes.cdf"
    cdf.write_text("1000 0\n2000 0.5\n3000 1\n")
    scenario = traffic("cdf", cdf)
    os.environ["CORRAL_MAX_INPUT_BYTES"] = "10"
    try:
        with pytest.raises(
            corral.ScenarioError, match=r"traffic\[0\]\.size.*: .*more than the 10 bytes .*CORRAL_MAX_INPUT_BYTES"
        ):
            corral.api.simulation(scenario)
    finally:
        del os.environ["CORRAL_MAX_INPUT_BYTES"]
    corral.api.simulation(scenario)  # within the default cap


def test_a_scenario_or_sweep_file_that_is_a_fifo_is_refused(tmp_path, specials):
    proc = corral_cli("run", specials["fifo"], "-o", tmp_path / "out", cwd=tmp_path)
    assert proc.returncode == 2 and "a FIFO" in proc.stderr, proc.stderr
    proc = corral_cli("sweep", specials["fifo"], "-o", tmp_path / "out", cwd=tmp_path)
    assert proc.returncode == 2 and "a FIFO" in proc.stderr, proc.stderr


def test_an_output_path_the_file_system_cannot_hold_is_refused_before_simulating(tmp_path):
    (tmp_path / "s.toml").write_text(TINY.replace('duration = "20ms"', 'duration = "2s"'))
    start = time.monotonic()
    proc = corral_cli("run", "s.toml", "-o", "x" * 256, cwd=tmp_path)
    assert proc.returncode == 2 and "more than the 255" in proc.stderr, proc.stderr
    assert time.monotonic() - start < 5  # refused before the 2 s simulation
    # a name of 255 bytes, the most the file system takes, works (no temporary name is longer)
    short = TINY.replace('duration = "20ms"', 'duration = "1ms"')
    (tmp_path / "t.toml").write_text(short)
    proc = corral_cli("run", "t.toml", "-o", "y" * 255, "--no-plots", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    import subprocess
    import sys

    bad = os.fsencode(str(tmp_path)) + b"/out-\xff"
    proc = subprocess.run(
        [sys.executable, "-m", "corral.cli", "run", "s.toml", "-o", bad], capture_output=True, cwd=tmp_path, timeout=60
    )
    assert proc.returncode == 2 and b"not valid text" in proc.stderr and b"Traceback" not in proc.stderr, proc.stderr


def test_a_marker_that_cannot_be_read_is_said_so(tmp_path):
    (tmp_path / "s.toml").write_text(TINY)
    out = tmp_path / "out"
    out.mkdir()
    (out / ".corral-output.json").write_text("{not json")
    (out / "x").write_text("x")
    proc = corral_cli("run", "s.toml", "-o", "out", cwd=tmp_path)
    assert proc.returncode == 2 and "is not valid JSON" in proc.stderr and "has no" not in proc.stderr, proc.stderr
