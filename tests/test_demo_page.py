"""`make demo`'s page (scripts/demo.py): results/index.html shows every paper's claims
table from its claims.json and its figures, and says when a paper failed or did not run."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from corral.outdir import MARKER, files_below, write_marker

ROOT = Path(__file__).resolve().parent.parent


def demo_script():
    spec = importlib.util.spec_from_file_location("demo", ROOT / "scripts" / "demo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_has_each_paper_s_claims_and_figures(tmp_path: Path) -> None:
    demo = demo_script()
    for paper in demo.PAPERS:
        (tmp_path / paper / "runs" / "one").mkdir(parents=True)
        shutil.copy(ROOT / "docs" / "claims" / f"{paper}.json", tmp_path / paper / "claims.json")
        (tmp_path / paper / f"{paper}_figure.png").write_bytes(b"\x89PNG")
        (tmp_path / paper / "runs" / "one" / "throughput_time.png").write_bytes(b"\x89PNG")
        write_marker(tmp_path / paper, paper, files_below(tmp_path / paper))  # as `corral reproduce` leaves it
    page = demo.write_index(tmp_path, {"outcast": (12.0, None)}).read_text()
    for paper in demo.PAPERS:
        doc = json.loads((tmp_path / paper / "claims.json").read_text())
        section = page.split(f'<section id="{paper}">')[1].split("</section>")[0]
        assert section.count("<tr class=") == len(doc["claims"]), paper
        assert f'<img src="{paper}/{paper}_figure.png"' in section and "runs/one" not in section
    summary = page.split('<table class="summary">')[1].split("</table>")[0]
    assert len(re.findall(r"<tr><td>", summary)) == len(demo.PAPERS) and "12 s" in summary


def test_a_failed_or_missing_paper_is_said_so(tmp_path: Path) -> None:
    demo = demo_script()
    page = demo.write_index(tmp_path, {"rackcc": (3.0, "error: something broke")}).read_text()
    assert "error: something broke" in page and "failed" in page and "not run" in page


def _demo_page(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "demo.py"), str(root), "--page"], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("mine", ["index.html", "demo.json"])
def test_the_demo_never_overwrites_a_user_s_page_or_timings(tmp_path: Path, mine: str) -> None:
    """A results folder holding the user's index.html or demo.json (without corral's marker,
    or with a marker that does not list the file) is refused before anything is written,
    with a way out: make demo OUT=..."""
    root = tmp_path / "results"
    root.mkdir()
    (root / mine).write_text("the user's")
    proc = _demo_page(root)
    assert proc.returncode == 2 and "make demo OUT=" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert (root / mine).read_text() == "the user's" and sorted(p.name for p in root.iterdir()) == [mine]
    # a demo folder whose marker does not list the file: the same
    (root / mine).unlink()
    assert _demo_page(root).returncode == 0
    assert json.loads((root / MARKER).read_text())["kind"] == "demo"
    if mine == "demo.json":
        (root / mine).write_text("the user's")
        proc = _demo_page(root)
        assert proc.returncode == 2 and "demo.json" in proc.stderr and "make demo OUT=" in proc.stderr, proc.stderr
        assert (root / mine).read_text() == "the user's"


def test_the_demo_keeps_the_user_s_other_files_and_rewrites_its_own(tmp_path: Path) -> None:
    root = tmp_path / "results"
    assert _demo_page(root).returncode == 0
    (root / "notes.md").write_text("mine")
    first = (root / "index.html").read_text()
    assert _demo_page(root).returncode == 0
    assert (root / "notes.md").read_text() == "mine" and "corral" in first
    assert "index.html" in json.loads((root / MARKER).read_text())["files"]


def test_the_full_run_s_verdicts_stand_beside_the_quick_run_s(tmp_path: Path) -> None:
    """Each row shows the committed full run's value and verdict; a quick value ten times
    off the full run's is marked, and the paper's note says why quick runs differ."""
    demo = demo_script()
    full = json.loads((ROOT / "docs" / "claims" / "outcast.json").read_text())
    quick = json.loads(json.dumps(full))
    row = next(r for r in quick["claims"] if r["claim"].startswith("10 flows/host"))
    row["measured"], row["values"], row["seeds"], row["verdict"] = 1142.0, [1142.0], 1, "missed"
    (tmp_path / "outcast").mkdir()
    (tmp_path / "outcast" / "claims.json").write_text(json.dumps(quick))
    write_marker(tmp_path / "outcast", "outcast", ["claims.json"])  # as `corral reproduce` leaves it
    page = demo.write_index(tmp_path, {}).read_text()
    section = page.split('<section id="outcast">')[1].split("</section>")[0]
    assert "Full run:" in section and "bistable" in section
    assert section.count("<th>full verdict</th>") == 1
    marked = [tr for tr in section.split("<tr class=")[1:] if "outlier" in tr]
    assert len(marked) == 1 and "10 flows/host" in marked[0], marked
    summary = page.split('<table class="summary">')[1].split("</table>")[0]
    counts = full["counts"]
    assert f"<td>{counts['met']} / {counts['met']}</td>" in summary
