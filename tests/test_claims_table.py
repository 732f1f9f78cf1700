"""A paper's claims table (`corral.experiments.claims_table`, papers/<paper>.toml): the format
refuses what would let a claim go unjudged or unsourced (a statement judged by no row and
giving no reason, a paper row citing no statement, a setup missing a setting or a source);
and every reproduction's full-run jobs agree with the setups its table states (a figure's
scenario that disagrees with its stated setup fails here)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from corral.experiments import claims_table as ct
from corral.experiments.runner import Job

SETUP = """
[[setup]]
id = "sim"
name = "the simulations"
figures = "Fig. 1"
item = [
  { item = "topology", value = "dumbbell", source = "paper", section = "Sec. 5", text = "a dumbbell", check = { "topology.kind" = "dumbbell" } },
  { item = "link_rate", value = "10 Gbps", source = "paper", section = "Sec. 5", text = "10 Gbps", check = { "topology.link_rate" = "10Gbps" } },
  { item = "host_rate", value = "10 Gbps", source = "ours", text = "the links'" },
  { item = "buffer", value = "100 packets", source = "default", text = "ns-2", check = { "switch.buffer" = "100pkt" } },
  { item = "queue", value = "taildrop", source = "ours", text = "none named" },
  { item = "cc", value = "NewReno", source = "paper", section = "Sec. 5", text = "NewReno" },
  { item = "sack", value = "off", source = "default", text = "ns-2" },
  { item = "min_rto", value = "200 ms", source = "default", text = "ns-2" },
  { item = "initial_window", value = "2", source = "default", text = "ns-2" },
  { item = "load", value = "one flow", source = "paper", section = "Sec. 5", text = "one flow" },
  { item = "run_length", value = "1 s", source = "ours", text = "long enough", check = { "duration" = { any = ["1s", "2s"] } } },
]

[[setup]]
id = "sim-big"
base = "sim"
name = "the simulations with a larger buffer"
figures = "Fig. 2"
item = [{ item = "buffer", value = "1000 packets", source = "paper", section = "Sec. 6", text = "1000 packets", check = { "switch.buffer" = "1000pkt" } }]
"""
HEAD = """
[paper]
key = "test"
title = "A paper"
tolerance = 0.25
tolerance_reason = "why"
"""
GOOD = (
    HEAD
    + SETUP
    + """
[[statement]]
id = "s1"
section = "Sec. 5"
quote = "three times faster"

[[statement]]
id = "s2"
section = "Sec. 5"
quote = "it is faster"
rows = ["fast"]

[[statement]]
id = "s3"
section = "Sec. 6"
quote = "a trend"
reason = "a plot"

[[claim]]
id = "fast"
figure = "Fig. 1"
claim = "speed-up"
statement = "s1"
value = "3/1"
bound = "around"
null = 1.0
setup = "sim"

[[claim]]
id = "pkts"
figure = "Fig. 2"
claim = "queue below 1 packet"
statement = "s1"
value = 1
bound = "less_than"
unit = "packets"
setup = "sim-big"
"""
)


def test_a_table_reads_its_claims_setups_and_statements() -> None:
    t = ct.parse(GOOD)
    assert t.value("fast") == 3.0 and t.claim("pkts").band_for(t.paper) == ((None, 1.0), True)
    assert t.claim("fast").band_for(t.paper) == (pytest.approx((2.25, 3.75)), False)
    big = t.setup("sim-big")
    assert [i.item for i in big.items][:4] == ["topology", "link_rate", "host_rate", "buffer"]
    assert next(i for i in big.items if i.item == "buffer").value == "1000 packets" and big.own == ("buffer",)
    rows = [{"id": "fast", "statement": "s1"}, {"id": "fast@40G", "statement": "s1"}, {"id": "pkts", "statement": "s1"}]
    cov = {c["id"]: c for c in t.coverage(rows)}
    assert cov["s1"]["rows"] == ["fast", "fast@40G", "pkts"]
    assert cov["s2"]["rows"] == ["fast", "fast@40G"]  # a statement naming a row takes its sensitivity rows too
    assert cov["s3"]["rows"] == [] and cov["s3"]["reason"] == "a plot"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        # A statement no row judges, without a reason: coverage would have a hole.
        (lambda s: s.replace('reason = "a plot"\n', ""), "statement 's3' is judged by no claim and gives no reason"),
        # A paper row must quote the paper: name its statement.
        (lambda s: s.replace('statement = "s1"\nvalue = "3/1"', 'value = "3/1"'), "claim[0].statement"),
        (lambda s: s.replace('statement = "s1"\nvalue = "3/1"', 'statement = "nope"\nvalue = "3/1"'), "no [[statement]] 'nope'"),
        (lambda s: s.replace('value = "3/1"\n', ""), "claim[0].value: bound = 'around' is built from the paper's number"),
        (lambda s: s.replace('bound = "around"', 'bound = "roughly"'), "claim[0].bound"),
        (lambda s: s.replace('rows = ["fast"]', 'rows = ["slow"]'), "statement 's2'.rows: no claim 'slow'"),
        # Every setting of a setup, each with its source.
        (
            lambda s: s.replace('  { item = "queue", value = "taildrop", source = "ours", text = "none named" },\n', ""),
            "does not state queue",
        ),
        (
            lambda s: s.replace('source = "paper", section = "Sec. 5", text = "NewReno"', 'source = "paper", text = "NewReno"'),
            "section",
        ),
        (lambda s: s.replace('source = "ours", text = "the links\'"', 'source = "guess", text = "x"'), "source: 'guess'"),
        (lambda s: s.replace('base = "sim"', 'base = "nope"'), "base: no earlier [[setup]] 'nope'"),
        (lambda s: s.replace('setup = "sim-big"', 'setup = "other"'), "no [[setup]] 'other'"),
        (lambda s: s.replace('figure = "Fig. 1"\n', 'figure = "Fig. 1"\ncolour = "red"\n'), "unknown key(s) colour"),
    ],
)
def test_a_table_that_breaks_the_format_is_refused_naming_the_key(edit, message: str) -> None:
    with pytest.raises(ct.TableError, match=None) as e:
        ct.parse(edit(GOOD))
    assert message in str(e.value), str(e.value)


def test_a_jobs_scenario_must_agree_with_its_setup(tmp_path: Path) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text('duration = "1s"\n[topology]\nkind = "dumbbell"\nlink_rate = "10 Gbps"\n[switch]\nbuffer = "100pkt"\n')
    t = ct.parse(GOOD)

    def job(*overrides: str, setup: str | None = "sim", **deviation) -> Job:
        labels = {"setup": setup, "deviation": {k.replace("__", "."): v for k, v in deviation.items()}}
        return Job(scenario, ("seed=1", *overrides), labels)

    big = job("switch.buffer=1000pkt", setup="sim-big")
    assert ct.problems(t, [job(), big]) == []
    assert ct.problems(t, [job("duration=2000ms"), big]) == []  # one of the stated run lengths, spelled otherwise
    assert ct.problems(t, [job("topology.link_rate=40Gbps"), big]) == [
        "s.toml topology.link_rate=40Gbps: topology.link_rate = '40Gbps', setup 'sim' (link_rate) states '10Gbps'"
    ]
    assert ct.problems(t, [job("duration=3s"), big])[0].endswith("(run_length) states {'any': ['1s', '2s']}")
    assert "names no setup" in ct.problems(t, [job(setup=None), big])[0]
    assert ct.problems(t, [job()]) == ["setup 'sim-big': no job runs under it (runs = false if none should)"]
    # A sensitivity run names what it changes: it must differ, and be what the job runs.
    assert ct.problems(t, [job("switch.buffer=16KB", switch__buffer="16KB"), big]) == []
    assert "equals its" in ct.problems(t, [job(switch__buffer="100pkt"), big])[0]
    assert "deviation says" in ct.problems(t, [job("switch.buffer=32KB", switch__buffer="16KB"), big])[0]
    missing = tmp_path / "m.toml"
    missing.write_text('duration = "1s"\n[topology]\nkind = "dumbbell"\nlink_rate = "10Gbps"\n')
    assert "switch.buffer is not set" in ct.problems(t, [Job(missing, (), {"setup": "sim"}), big])[0]


# The reproductions whose claims tables are written (papers/<paper>.toml).
TABLES = sorted(p.stem for p in ct.PAPERS_DIR.glob("*.toml"))


@pytest.mark.parametrize("paper", TABLES)
def test_every_figure_runs_under_the_setup_its_table_states(paper: str) -> None:
    """Each job of the paper's full run (five seeds, not quick) against the setup it names."""
    table = ct.load(paper)
    module = importlib.import_module(f"corral.experiments.{paper}")
    jobs, _ = module.plan(5, False, ())
    problems = ct.problems(table, jobs)
    assert problems == [], "\n".join(problems[:20])


def table_rows_written(paper: str, doc: dict) -> None:
    """A reproduction's claims.json and its table agree: every row the code writes is a claim
    of the table or a sensitivity row varying one, and every claim of the table is written
    (the quick run of each paper checks its own file with this, tests/test_<paper>.py)."""
    table = ct.load(paper)
    ids = {r["id"] for r in doc["claims"] if r["kind"] != "sensitivity"}
    assert ids == set(table.claims), (sorted(ids - set(table.claims)), sorted(set(table.claims) - ids))
    for r in doc["claims"]:
        if r["kind"] == "sensitivity":
            assert r["of"] in table.claims and r["varies"], r["id"]


def test_a_bound_that_holds_the_null_is_closeness_and_is_refused_with_a_null() -> None:
    """ "At most 1.1x the unloaded latency" with null 1 would make every value above 1 read
    as the paper's direction, so one past the bound could be `direction`: the table refuses
    the null; without it the value past the bound is missed (HCC's fig4f-hcc, issue 58's
    referee review)."""
    from corral.experiments import claims as cl

    close = GOOD.replace(
        'value = 1\nbound = "less_than"\nunit = "packets"', 'value = 1.1\nbound = "at_most"\nnull = 1\nunit = "x"'
    )
    with pytest.raises(ct.TableError) as e:
        ct.parse(close)
    assert "claim[1].null" in str(e.value) and "contains the no-effect value" in str(e.value)
    t = ct.parse(close.replace("null = 1\nunit", "unit"))
    band, _ = t.claim("pkts").band_for(t.paper)
    assert cl.judge([1.114] * 5, band, paper=t.paper, null=None, paper_value=1.1).verdict == "missed"
    assert cl.judge([1.05] * 5, band, paper=t.paper, null=None, paper_value=1.1).verdict == "met"


def test_no_significant_change_is_the_band_within_the_minimum_effect() -> None:
    """ "No significant change" is within the paper's minimum effect (5 %) of null, not the
    tolerance: 1.064x is a change (HCC's fig4h-noq)."""
    from corral.experiments import claims as cl

    same = GOOD.replace('value = 1\nbound = "less_than"\nunit = "packets"', 'value = 1\nbound = "within"\nnull = 1\nunit = "x"')
    t = ct.parse(same)
    band, open_ = t.claim("pkts").band_for(t.paper)
    assert band == pytest.approx((0.95, 1.05)) and not open_
    assert cl.judge([1.064, 1.04, 1.07, 1.088, 1.038], band, paper=t.paper, null=1, paper_value=1).verdict == "missed"
    assert cl.judge([1.01, 0.99, 1.02, 1.0, 1.03], band, paper=t.paper, null=1, paper_value=1).verdict == "met"
    with pytest.raises(ct.TableError, match="claim\\[1\\].null"):
        ct.parse(same.replace("null = 1\nunit", "unit"))
