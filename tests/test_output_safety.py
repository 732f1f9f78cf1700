"""Output folders never cost a user a file: every case of issue "Never lose a user's files".

corral replaces an existing folder only if it is empty or a corral folder of the same kind,
never the current folder, one of its parents or a folder holding an input; `--force` is the
only way past. Each refusal is `error: ...` with exit status 2, and nothing is created or
removed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import corral
from corral.outdir import OutputError

from conftest import TINY, corral_cli


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below `root` with its content."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def refused(proc, *needles: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    for n in needles:
        assert n in proc.stderr, (n, proc.stderr)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A user's folder: a scenario and a data file of their own."""
    d = tmp_path / "work"
    d.mkdir()
    (d / "base.toml").write_text(TINY)
    (d / "notes.txt").write_text("mine")
    return d


def test_run_into_the_current_folder_is_refused(work: Path) -> None:
    before = snapshot(work.parent)
    refused(corral_cli("run", "base.toml", "-o", ".", cwd=work), "-o .", "current folder", "--force")
    assert snapshot(work.parent) == before


def test_run_into_a_parent_of_the_current_folder_is_refused(work: Path) -> None:
    sub = work / "deeper"
    sub.mkdir()
    before = snapshot(work.parent)
    refused(corral_cli("run", "../base.toml", "-o", "..", cwd=sub), "parent of the current folder")
    assert snapshot(work.parent) == before


def test_run_into_a_folder_of_someone_else_s_files_is_refused(work: Path) -> None:
    out = work / "out"
    out.mkdir()
    (out / "mydata.txt").write_text("precious")
    before = snapshot(work)
    refused(corral_cli("run", "base.toml", "-o", "out", cwd=work), "-o out", "not a folder corral wrote")
    assert snapshot(work) == before


def test_run_into_the_folder_holding_the_scenario_is_refused(work: Path, tmp_path: Path) -> None:
    before = snapshot(work)
    refused(corral_cli("run", work / "base.toml", "-o", work, cwd=tmp_path), "holds the input")
    assert snapshot(work) == before


def test_run_into_an_empty_or_own_folder_works(work: Path) -> None:
    (work / "empty").mkdir()
    assert corral_cli("run", "base.toml", "-o", "empty", "--no-plots", cwd=work).returncode == 0
    assert (work / "empty" / "flows.parquet").is_file()
    assert corral_cli("run", "base.toml", "-o", "empty", "--no-plots", cwd=work).returncode == 0
    assert (work / "notes.txt").read_text() == "mine"


def test_force_is_the_way_past(work: Path) -> None:
    out = work / "out"
    out.mkdir()
    (out / "mydata.txt").write_text("given up")
    assert corral_cli("run", "base.toml", "-o", "out", "--no-plots", "--force", cwd=work).returncode == 0
    assert (out / "flows.parquet").is_file() and not (out / "mydata.txt").exists()
    assert (work / "notes.txt").read_text() == "mine"


def test_a_run_folder_is_not_a_report_folder(work: Path, tmp_path: Path) -> None:
    assert corral_cli("run", "base.toml", "-o", "r", "--no-plots", cwd=work).returncode == 0
    before = snapshot(work)
    refused(corral_cli("compare", work / "r", "-o", work / "r", cwd=tmp_path), "holds the input")
    (work / "r2").mkdir()
    (work / "r2" / ".corral-output.json").write_text('{"kind": "run"}')
    (work / "r2" / "x.txt").write_text("a run folder")
    before = snapshot(work)
    refused(corral_cli("compare", work / "r", "-o", work / "r2", cwd=tmp_path), "a corral run folder, not a report folder")
    assert snapshot(work) == before


def test_compare_into_the_sweep_it_reads_is_refused(work: Path, tmp_path: Path) -> None:
    from corral.sweep import run_sweep

    (work / "sweep.toml").write_text('scenario = "base.toml"\nseeds = [1]\n[set]\nduration = "2ms"\n')
    sweep = work / "sw"
    run_sweep(work / "sweep.toml", sweep, workers=1, processes=False)
    before = snapshot(sweep)
    refused(corral_cli("compare", sweep, "-o", sweep, cwd=tmp_path), "holds the input")
    refused(corral_cli("compare", sweep, "-o", work, cwd=tmp_path), "holds the input")
    assert snapshot(sweep) == before


def test_sweep_into_a_foreign_folder_is_refused(work: Path) -> None:
    (work / "sweep.toml").write_text('scenario = "base.toml"\nseeds = [1]\n[grid]\n"switch.buffer" = ["16pkt", "32pkt"]\n')
    out = work / "runs"
    out.mkdir()
    (out / "results.csv").write_text("mine too")
    before = snapshot(work)
    refused(corral_cli("sweep", "sweep.toml", "-o", "runs", cwd=work), "not a folder corral wrote")
    refused(corral_cli("sweep", "sweep.toml", "-o", ".", cwd=work), "current folder")
    assert snapshot(work) == before


def test_reproduce_into_the_current_folder_is_refused_before_running(work: Path) -> None:
    before = snapshot(work)
    refused(corral_cli("reproduce", "outcast", "-o", ".", "--quick", cwd=work), "current folder")
    assert snapshot(work) == before


def test_the_python_api_refuses_too(work: Path) -> None:
    res = corral.run(TINY)
    out = work / "out"
    out.mkdir()
    (out / "mydata.txt").write_text("precious")
    with pytest.raises(OutputError, match="not a folder corral wrote"):
        res.write(out)
    assert (out / "mydata.txt").read_text() == "precious"
    cwd = os.getcwd()
    try:
        os.chdir(work)
        with pytest.raises(OutputError, match="current folder"):
            res.write(".")
    finally:
        os.chdir(cwd)
    res.write(out, force=True)
    assert (out / "flows.parquet").is_file()
