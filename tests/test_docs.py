"""The reference pages list every scenario key, output column, summary field and command,
as the code declares them, and the docs' examples work when copied.

The scenario keys come from the schema itself: an unknown key `zzz` in a section makes the
core list the section's valid keys (`scripts/docs_reference.py`'s probes). The committed
pages under docs/reference/ must be exactly what that script generates now, and each entry
must carry what a reader needs (a type and a meaning for a key, a meaning for a column).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import corral
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def reference_script():
    spec = importlib.util.spec_from_file_location("docs_reference", ROOT / "scripts" / "docs_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REF = reference_script()
SECTIONS = REF.sections()


def page_sections(path: Path) -> dict[str, list[list[str]]]:
    """{heading: table rows as cells} of a reference page."""
    out: dict[str, list[list[str]]] = {}
    heading = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            heading = line[3:].strip().strip("`")
            out[heading] = []
        elif heading and line.startswith("| `"):
            out[heading].append([c.strip() for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])])
    return out


def test_the_committed_reference_pages_are_the_generation() -> None:
    for path, text in REF.pages().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(ROOT)} is stale: run `python scripts/docs_reference.py`"
        )


@pytest.mark.parametrize("title,path,keys", SECTIONS, ids=[s[0] for s in SECTIONS])
def test_every_key_of_the_section_has_a_type_and_a_meaning(title: str, path: str, keys: list[str]) -> None:
    rows = page_sections(REF.REFERENCE / "scenario.md")[title]
    listed = {r[0].strip("`"): r for r in rows}
    assert [k for k in keys if k not in listed] == [], f"{title}: keys missing from the reference"
    assert [k for k in listed if k not in keys] == [], f"{title}: keys the schema does not take"
    for key, (_, kind, _default, meaning) in listed.items():
        assert kind and meaning, f"{title} `{key}`: no type or no meaning (a doc comment on its Rust field gives it)"


def test_every_kind_with_settings_has_its_section() -> None:
    """A kind that takes keys of its own (a topology, routing, controller, scheme, queue
    table) appears as a section: the probes cover every kind the core declares."""
    kinds = corral.kinds()
    titles = {t for t, _, _ in SECTIONS}
    for what, prefix in (("topologies", '[topology] kind = "{}"'), ("schemes", '[scheme] kind = "{}"')):
        assert [k for k in kinds[what] if prefix.format(k) not in titles] == [], what
    text = (REF.REFERENCE / "scenario.md").read_text(encoding="utf-8")
    for what in ("routings", "controllers"):
        assert [k for k in kinds[what] if f"`{k}`" not in text] == [], what


def test_every_output_column_and_summary_field_is_in_the_reference() -> None:
    from corral import _core
    from corral.tables import summary_fields

    sections = page_sections(REF.REFERENCE / "outputs.md")
    for table, columns in _core.schemas().items():
        rows = {r[0].strip("`"): r for r in sections[f"{table}.parquet"]}
        assert list(rows) == [c for c, _ in columns], table
        assert [c for c, r in rows.items() if not r[-1]] == [], f"{table}: columns without a meaning in docs/guides/outputs.md"
    rows = {r[0].strip("`"): r for r in sections["summary.json"]}
    assert list(rows) == [name for name, _, _ in summary_fields()]
    assert [n for n, r in rows.items() if not r[-1]] == [], "summary fields without a meaning in docs/guides/outputs.md"


def test_every_command_is_in_the_cli_reference() -> None:
    import argparse

    from corral.cli import parser

    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    text = (REF.REFERENCE / "cli.md").read_text(encoding="utf-8")
    for name, cmd in sub.choices.items():
        assert f"## corral {name}" in text, name
        for action in cmd._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for flag in action.option_strings:
                assert f"`{flag}" in text or f", {flag}" in text, f"corral {name} {flag}"


def test_every_kind_is_named_in_the_docs() -> None:
    """Every queue discipline, controller, scheme, topology and routing the core declares
    appears in the written pages (not only in the generated reference)."""
    guides = "".join(p.read_text(encoding="utf-8") for p in DOCS.rglob("*.md") if p.parent.name != "reference")
    for what, names in corral.kinds().items():
        assert [k for k in names if f"`{k}`" not in guides and f'"{k}"' not in guides] == [], what


def toml_blocks(path: Path) -> list[str]:
    """A page's ```toml blocks, in order (those written to a file by a tutorial included)."""
    return re.findall(r"^```toml\n(.*?)^```$", path.read_text(encoding="utf-8"), re.S | re.M)


TOML_PAGES = [
    README,
    DOCS / "guides" / "scenario-files.md",
    DOCS / "guides" / "sweeps.md",
    DOCS / "guides" / "workloads.md",
    DOCS / "guides" / "routing.md",
]


@pytest.mark.parametrize("page", TOML_PAGES, ids=[p.name for p in TOML_PAGES])
def test_the_toml_examples_work_when_copied(page: Path, tmp_path: Path) -> None:
    """Every TOML example of the page loads as it is: a scenario builds and runs for a
    millisecond; a sweep file (it has `scenario =`) resolves every point against the
    package's example dumbbell."""
    from corral import api
    from corral.sweep import load, resolve

    example = Path(corral.__file__).parent / "scenarios" / "examples" / "dumbbell.toml"
    for i, block in enumerate(toml_blocks(page)):
        if re.search(r"^scenario\s*=", block, re.M):
            (tmp_path / "dumbbell.toml").write_text(example.read_text())
            path = tmp_path / f"sweep{i}.toml"
            path.write_text(block)
            assert resolve(load(path))[1], f"{page.name} toml block {i}: no runs"
        elif re.search(r"^duration\s*=", block, re.M):
            api.simulate(api.build(block, f"{page.name} toml block {i}", []))


def test_the_readme_is_short_and_no_path_leaves_the_repository() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 150
    for path in [README, *DOCS.rglob("*.md")]:
        text = path.read_text(encoding="utf-8")
        assert ".." + "/shared" not in text and "/work/" not in text, path


def test_the_readme_links_resolve() -> None:
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8")):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target


def test_each_key_has_its_own_default_and_every_name_its_values() -> None:
    """A grouped doc comment ("Q* (default 10) and epsilon (default 0.5)") no longer gives
    every key of the group the first default: the defaults are the core's. A key that takes
    a name lists the names; no row points into the Rust code."""
    sections = page_sections(REF.REFERENCE / "scenario.md")
    scc = {r[0].strip("`"): r for r in sections['[scheme] kind = "scc"']}
    assert scc["q_star"][2] == "`10.0`" and scc["epsilon"][2] == "`0.5`"
    rackcc = {r[0].strip("`"): r for r in sections['[scheme] kind = "rackcc"']}
    assert rackcc["k"][2] == "`0.4`" and rackcc["k_q"][2] == "`0.2`"
    transport = {r[0].strip("`"): r for r in sections["[transport]"]}
    assert 'One of `"prr"`, `"classic"`.' in transport["recovery"][3]
    assert 'One of `"flight"`, `"pipe"`.' in transport["ssthresh"][3]
    for title, rows in sections.items():
        for key, kind, _default, meaning in rows:
            if kind == "name":
                assert "One of `" in meaning or "one of [`" in meaning or "one of `" in meaning, f"{title} {key}: no valid names"
    text = (REF.REFERENCE / "scenario.md").read_text(encoding="utf-8")
    assert "::" not in text and "super" not in text and "crate" not in text
