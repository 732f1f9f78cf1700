"""`make demo`'s page (scripts/demo.py): results/index.html shows every paper's claims
table from its claims.json and its figures, and says when a paper failed or did not run."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path

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
    page = demo.write_index(tmp_path, {}).read_text()
    section = page.split('<section id="outcast">')[1].split("</section>")[0]
    assert "Full run:" in section and "bistable" in section
    assert section.count("<th>full verdict</th>") == 1
    marked = [tr for tr in section.split("<tr class=")[1:] if "outlier" in tr]
    assert len(marked) == 1 and "10 flows/host" in marked[0], marked
    summary = page.split('<table class="summary">')[1].split("</table>")[0]
    counts = full["counts"]
    assert f"<td>{counts['met']} / {counts['met']}</td>" in summary
