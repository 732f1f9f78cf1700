"""The README's claims tables are the rendering of the committed full runs' claims
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


def test_readme_tables_are_the_rendering_of_the_committed_claims() -> None:
    script = tables_script()
    text = (ROOT / "README.md").read_text()
    for paper in PAPERS:
        assert f"<!-- claims:{paper}:begin -->" in text and f"<!-- claims:{paper}:end -->" in text, paper
    assert script.rendered(text) == text, "README.md differs from docs/claims: run `python scripts/claims_tables.py render`"
