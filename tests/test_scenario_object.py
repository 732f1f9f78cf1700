"""Scenarios as Python objects (`corral.Scenario`): load, read and edit by key path, remove a
block, write TOML back, run; `corral run --unset` does what `remove` does."""

from __future__ import annotations

import json
from pathlib import Path

import corral
import pytest
from conftest import TINY, corral_cli
from corral import api
from corral.scenario import Scenario, dumps

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

PACKAGE = Path(corral.__file__).parent / "scenarios"
SCENARIOS = sorted(p for p in PACKAGE.rglob("*.toml") if "sweep" not in p.name)


@pytest.mark.parametrize("path", SCENARIOS, ids=[str(p.relative_to(PACKAGE)) for p in SCENARIOS])
def test_every_package_scenario_round_trips_to_the_same_run(path: Path) -> None:
    s = Scenario.load(path)
    assert tomllib.loads(s.to_toml()) == tomllib.loads(path.read_text())
    assert api.simulation(s).scenario_json == api.simulation(path).scenario_json


def test_key_paths_read_set_and_remove() -> None:
    s = Scenario.from_toml(TINY)
    assert s["topology.kind"] == "dumbbell" and s["flows.0.src"] == ["h0", "h1"]
    assert "scheme" not in s and s.get("scheme.kind", "none") == "none"
    s.set("switch.red.min_th", "5pkt").set("flows.0.size", "1MB")
    assert s["switch.red"] == {"min_th": "5pkt"} and s["flows.0.size"] == "1MB"
    s.remove("switch.red").remove("flows.0.tag")
    assert "switch.red" not in s and "tag" not in s["flows.0"]
    with pytest.raises(corral.ScenarioError, match="flows.3: not in the scenario"):
        s.remove("flows.3")
    with pytest.raises(corral.ScenarioError, match="flows is a list; expected an index"):
        s.set("flows.size", 1)
    with pytest.raises(KeyError, match="topology.zzz: not in the scenario"):
        s["topology.zzz"]


def test_from_dict_copies_and_the_writer_handles_nested_shapes() -> None:
    d = {
        "a": 1,
        "b": {"c": [1.5, float("inf")], "d": {"e": 'x"y\n'}},
        "t": [{"k": 1, "sub": {"z": True}}, {"k": 2}],
        "odd key": "é",
        "empty": {},
        "mixed": [{"x": 1}, 2],
    }
    s = Scenario.from_dict(d)
    s.set("a", 2)
    assert d["a"] == 1
    assert tomllib.loads(dumps(d)) == d


def test_a_scenario_without_its_scheme_runs_as_corral_run_unset_does(tmp_path: Path) -> None:
    path = PACKAGE / "ideal" / "fat_tree_16_flows.toml"
    s = Scenario.load(path).remove("scheme")
    short = ["duration=2ms"]
    by_object = corral.run(s, overrides=short)
    assert "scheme" not in json.loads(api.simulation(s).scenario_json)
    proc = corral_cli("run", path, "-o", tmp_path / "out", "--unset", "scheme", "--no-plots", "--set", short[0])
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["events"] == by_object.summary["events"]
    with_scheme = corral.run(path, overrides=short)
    assert with_scheme.summary["events"] != by_object.summary["events"]


def test_errors_keep_their_key_paths_and_files_resolve_from_the_source(tmp_path: Path) -> None:
    s = Scenario.from_toml(TINY).set("topology.link_rate", "1Gbs")
    with pytest.raises(corral.ScenarioError, match="topology.link_rate"):
        corral.run(s)
    (tmp_path / "my.cdf").write_text("1000 0\n2000 1\n")
    (tmp_path / "s.toml").write_text(TINY + '[[traffic]]\npattern = "all_to_all"\nsize = { cdf = "my.cdf" }\nload = 0.1\n')
    loaded = Scenario.load(tmp_path / "s.toml")
    assert loaded.source == tmp_path / "s.toml"
    assert corral.run(loaded, overrides=["duration=1ms"]).flows.height > 0


def test_unset_of_a_missing_key_is_a_clean_error(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(TINY)
    proc = corral_cli("run", tmp_path / "s.toml", "-o", tmp_path / "o", "--unset", "scheme")
    assert proc.returncode == 2 and proc.stderr.startswith("error: scheme: not in the scenario"), proc.stderr
    assert not (tmp_path / "o").exists()


def test_set_refuses_a_misspelt_key_with_the_loaders_suggestion() -> None:
    s = Scenario.from_toml(TINY)
    before = s.to_dict()
    for path, near in [
        ("transport.ccc", "`cc`"),
        ("topolgy.k", "`topology`"),
        ("topology.sendrs", "`senders`"),
        ("flows.0.sizes", "`size`"),
    ]:
        with pytest.raises(corral.ScenarioError, match=rf"^{path.split('.')[0]}.*unknown key; did you mean {near}"):
            s.set(path, 1)
        assert s.to_dict() == before, "a refused set changes nothing"
    s.set("scheme", {"kind": "hcc"})
    with pytest.raises(corral.ScenarioError, match="scheme.parent_cycl: unknown key; did you mean `parent_cycle`"):
        s.set("scheme.parent_cycl", 4.0)
    # keys the schema has are set, on a partial scenario too (no duration, no kind yet)
    s.set("scheme.parent_cycle", 4.0).set("transport.ecn", True).set("switch.red.min_th", "5pkt")
    p = Scenario.from_dict({}).set("topology.k", 4).set("topology.kind", "fat_tree").set("duration", "1ms")
    assert p["topology"] == {"k": 4, "kind": "fat_tree"}


def test_to_toml_refuses_an_integer_toml_cannot_hold_naming_the_key() -> None:
    s = Scenario.from_toml(TINY).set("seed", 2**64)
    with pytest.raises(corral.ScenarioError, match=r"^seed: 18446744073709551616 does not fit in a TOML integer"):
        s.to_toml()
    s = Scenario.from_toml(TINY).set("flows.0.count", -(2**63) - 1)
    with pytest.raises(corral.ScenarioError, match=r"^flows.0.count: "):
        s.to_toml()
    assert "seed = 9223372036854775807" in Scenario.from_toml(TINY).set("seed", 2**63 - 1).to_toml()
