"""The claims tables of the reproduction pages (docs/reproductions/<paper>.md) and the
README's list of papers are the rendering of the committed full runs' claims
(docs/claims/<paper>.json, `scripts/claims_tables.py`), never a hand copy; and each committed
file is a full run's claims.json that matches the schema and records what ran it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from corral.experiments import claims_schema

ROOT = Path(__file__).resolve().parent.parent
PAPERS = ("outcast", "r2c2", "hcc", "rackcc", "scc")


def tables_script():
    spec = importlib.util.spec_from_file_location("claims_tables", ROOT / "scripts" / "claims_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("paper", PAPERS)
def test_committed_claims_are_a_full_run_that_matches_the_schema(paper: str) -> None:
    doc = json.loads((ROOT / "docs" / "claims" / f"{paper}.json").read_text())
    claims_schema.validate(doc)
    assert doc["paper"] == paper and not doc["quick"] and doc["seeds"] == [1, 2, 3, 4, 5]
    run = doc["run"]
    for key in ("command", "commit", "date", "wall_s", "machine", "load_average_before", "load_average_after"):
        assert key in run, key
    assert run["machine"]["cores"] and run["machine"]["cpu"]
    assert sum(doc["counts"].values()) == sum(r["kind"] == "paper" for r in doc["claims"])


@pytest.mark.parametrize("paper", PAPERS)
def test_the_reproduction_page_holds_the_rendering_of_the_committed_claims(paper: str) -> None:
    script = tables_script()
    page = ROOT / "docs" / "reproductions" / f"{paper}.md"
    text = page.read_text()
    assert f"<!-- claims:{paper}:begin -->" in text and f"<!-- claims:{paper}:end -->" in text, paper
    assert script.rendered(page, text) == text, (
        f"{page.name} differs from docs/claims: run `python scripts/claims_tables.py render`"
    )
    doc = json.loads((ROOT / "docs" / "claims" / f"{paper}.json").read_text())
    assert f"## Claims: {claims_headline(doc)}" in text


def test_the_readme_lists_every_paper_with_its_committed_headline() -> None:
    script = tables_script()
    text = (ROOT / "README.md").read_text()
    assert "<!-- claims:papers:begin -->" in text and "<!-- claims:papers:end -->" in text
    assert script.rendered(script.README, text) == text, (
        "README.md differs from docs/claims: run `python scripts/claims_tables.py render`"
    )
    for paper in PAPERS:
        doc = json.loads((ROOT / "docs" / "claims" / f"{paper}.json").read_text())
        assert f"{claims_headline(doc)} ([reproduction](docs/reproductions/{paper}.md))" in text, paper


def test_render_check_passes_on_the_committed_pages() -> None:
    """`render --check`, as a contributor runs it, exits 0."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "claims_tables.py"), "render", "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def claims_headline(doc: dict) -> str:
    from corral.experiments.claims import headline

    return headline(doc["claims"])


def _row_ids(doc: dict) -> list[tuple[str, str, str]]:
    """Each row's kind, figure and claim text with its numbers blanked (a quick run's scale
    shows in a structural row's text: "64 nodes" for "512 nodes")."""
    import re

    return sorted((r["kind"], r["figure"], re.sub(r"[\d,.]+", "#", r["claim"])) for r in doc["claims"])


@pytest.mark.slow
@pytest.mark.parametrize("paper", PAPERS)
def test_the_committed_claims_have_the_rows_the_code_writes_now(paper: str, tmp_path: Path) -> None:
    """The committed full run and a quick run of the code as it is have the same schema and
    the same rows (so a page never shows claims the code no longer makes, or misses new
    ones); every committed verdict is one the code gives. A changed row means: rerun
    `scripts/claims_tables.py run <paper>`."""
    import subprocess
    import sys

    from corral.experiments.claims import VERDICTS

    subprocess.run(
        [sys.executable, "-m", "corral.cli", "reproduce", paper, "--quick", "-o", str(tmp_path / paper)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    quick = json.loads((tmp_path / paper / "claims.json").read_text())
    committed = json.loads((ROOT / "docs" / "claims" / f"{paper}.json").read_text())
    assert quick["schema"] == committed["schema"]
    assert _row_ids(quick) == _row_ids(committed)
    assert {r["verdict"] for r in committed["claims"]} <= set(VERDICTS)
