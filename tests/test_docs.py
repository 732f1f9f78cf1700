"""The README's key reference lists every key of every scenario section.

The keys come from the scenario schema itself: an unknown key `zzz` in a section makes the
core list the section's valid keys. Each section's row of README's "Key reference" table must
name every one of them as `key`.
"""

from __future__ import annotations

import re
from pathlib import Path

import corral
import pytest

README = Path(__file__).resolve().parent.parent / "README.md"

BASE = 'duration = "1ms"\n[topology]\nkind = "dumbbell"\nsenders = 1\nreceivers = 1\nlink_rate = "1Gbps"\n' \
       '[[flows]]\nsrc = "h0"\ndst = "h1"\n'
TRAFFIC = '[[traffic]]\npattern = "all_to_all"\nsize = { cdf = "websearch" }\nload = 0.1\n'


def _section(name: str) -> tuple[str, list[str]]:
    return BASE, [f"{name}zzz=1"]


KINDS = corral.kinds()  # every list of kinds, from its one declaration in the core


def _takes_keys(text: str, overrides: list[str]) -> bool:
    """Whether the table a probe puts `zzz` into takes keys of its own (a kind without
    settings answers "this table takes no keys" and has no row)."""
    try:
        corral.run(text, overrides=overrides)
    except corral.ScenarioError as e:
        return "valid keys:" in str(e) and "zzz" in str(e)
    return False


def _kinds_with_keys(rows):
    return [r for r in rows if _takes_keys(r[1], r[2])]


# The [switch.<queue>] tables: those the switch section lists among its keys.
_SWITCH_KEYS = re.search(r"valid keys: ([^)]*)\)", str(pytest.raises(corral.ScenarioError, corral.run, BASE,
                                                                      overrides=["switch.zzz=1"]).value)).group(1).split(", ")
QUEUE_TABLES = [q for q in KINDS["queues"] if q in _SWITCH_KEYS]

# (the README row's first cell, scenario text, overrides): each puts `zzz` in one section.
PROBES = [
    ("top level", BASE, ["zzz=1"]),
    *((f"`[{s}]`", *_section(f"{s}.")) for s in
      ("switch", *(f"switch.{q}" for q in QUEUE_TABLES), "host", "network", "transport", "control", "metrics")),
    ("`[[flows]]`", BASE, ["flows.0.zzz=1"]),
    ("`[[traffic]]`", BASE + TRAFFIC + "zzz = 1\n", []),
    ("`[[rpc]]`", BASE + '[[rpc]]\npairs = 1\nrequest = "1KB"\nresponse = "1KB"\nthink = "1ms"\nzzz = 1\n', []),
    ("`[[events]]`", BASE + '[[events]]\nat = "0s"\nlink = "sw0:1"\nrate = "1Gbps"\nzzz = 1\n', []),
    *((f"`[topology]` kind = `{k}`", BASE.replace('kind = "dumbbell"', f'kind = "{k}"'), ["topology.zzz=1"])
      for k in KINDS["topologies"]),
    *_kinds_with_keys([("`[routing]`", BASE + f'[routing]\nkind = "{k}"\nzzz = 1\n', []) for k in KINDS["routings"]]),
    *_kinds_with_keys([(f"`transport.cc` table, kind = `{k}`", BASE + f'[transport]\ncc = {{ kind = "{k}", zzz = 1 }}\n', [])
                       for k in KINDS["controllers"]]),
    *((f"`[scheme]` kind = `{k}`", BASE + f'[scheme]\nkind = "{k}"\nzzz = 1\n', []) for k in KINDS["schemes"]),
    *(("`size` table", BASE + TRAFFIC.replace('{ cdf = "websearch" }', size), []) for size in
      ('{ cdf = "websearch", zzz = 1 }', '{ kind = "fixed", zzz = 1 }', '{ kind = "uniform", zzz = 1 }',
       '{ kind = "exponential", zzz = 1 }', '{ kind = "pareto", zzz = 1 }')),
    ("`deadline` table", BASE + TRAFFIC + 'deadline = { kind = "exponential", zzz = 1 }\n', []),
    ("`deadline` table", BASE + TRAFFIC + 'deadline = { kind = "uniform", zzz = 1 }\n', []),
]


def schema_keys(text: str, overrides: list[str]) -> list[str]:
    with pytest.raises(corral.ScenarioError) as info:
        corral.run(text, overrides=overrides)
    found = re.search(r"valid keys: ([^)]*)\)", str(info.value))
    assert found, f"no key list in: {info.value}"
    return found.group(1).split(", ")


def reference_rows() -> dict[str, str]:
    text = README.read_text(encoding="utf-8")
    start = text.index("### Key reference")
    table = text[start:text.index("\n#", start + 1)]
    return {line.split(" | ")[0].lstrip("| ").strip(): line for line in table.splitlines() if line.startswith("| ")}


@pytest.mark.parametrize("row,text,overrides", PROBES, ids=[f"{p[0]}-{i}" for i, p in enumerate(PROBES)])
def test_every_key_of_the_section_is_in_the_readme(row: str, text: str, overrides: list[str]) -> None:
    rows = reference_rows()
    assert row in rows, f"README key reference has no row {row!r}; rows: {list(rows)}"
    missing = [k for k in schema_keys(text, overrides) if f"`{k}`" not in rows[row]]
    assert not missing, f"README key reference, row {row!r}: undocumented keys {missing}"


def test_every_kind_is_named_in_the_readme() -> None:
    """Every queue discipline, controller, scheme, topology and routing the core declares
    appears in the README."""
    readme = README.read_text(encoding="utf-8")
    for what, names in KINDS.items():
        assert [k for k in names if f"`{k}`" not in readme and f'"{k}"' not in readme] == [], what


def readme_toml_blocks() -> list[str]:
    """The README's ```toml blocks, in order."""
    return re.findall(r"^```toml\n(.*?)^```$", README.read_text(encoding="utf-8"), re.S | re.M)


def test_the_readme_s_toml_examples_work_when_copied(tmp_path) -> None:
    """Every TOML example in the README loads as it is: a scenario builds and runs for a
    millisecond; a sweep file (it has `scenario =`) resolves every point against the
    package's example dumbbell."""
    from corral import api
    from corral.sweep import load, resolve

    blocks = readme_toml_blocks()
    assert len(blocks) >= 2
    example = Path(corral.__file__).parent / "scenarios" / "examples" / "dumbbell.toml"
    for i, block in enumerate(blocks):
        if re.search(r"^scenario\s*=", block, re.M):
            (tmp_path / "dumbbell.toml").write_text(example.read_text())
            path = tmp_path / f"sweep{i}.toml"
            path.write_text(block)
            assert resolve(load(path))[1], f"README toml block {i}: no runs"
        else:
            api.simulate(api.build(block, f"README toml block {i}", []))


def test_the_summary_table_lists_every_declared_summary_key() -> None:
    """README's summary.json table names exactly the keys of the core's typed summary."""
    from corral.tables import summary_fields

    text = README.read_text(encoding="utf-8")
    section = text.split("### summary.json", 1)[1].split("\n### ", 1)[0]
    documented = {key for row in section.splitlines() if row.startswith("| `") for key in re.findall(r"`([a-z_0-9]+)`", row.split("|")[1])}
    assert documented == {name for name, _, _ in summary_fields()}
