"""The claims rules every reproduction's verdicts come from (`corral.experiments.claims`): the
paper's bands, the verdicts met / direction / missed / off_conditions / reported, the per-seed
rule, the paper's side of null and the effect against the paper's, units, the conditions a row
was judged at, and claims.json's schema on a synthetic report (the quick runs of each paper
check their own files in tests/test_<paper>.py; the claims tables' format and the setups
against the runs: tests/test_claims_table.py)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from corral.experiments import claims as cl
from corral.experiments import claims_schema
from corral.experiments import conditions as cond
from test_claims_table import HEAD, SETUP

PAPER = cl.Paper(key="test", title="A paper", tolerance=0.25, tolerance_reason="why 25 %", min_effect=0.05)


def verdict(values: list[float], band: cl.Band | None, **kw) -> str:
    return cl.judge(values, band, paper=PAPER, **kw).verdict


def test_bands_come_from_the_paper_number_and_its_one_tolerance() -> None:
    assert PAPER.around(3.21) == pytest.approx((2.4075, 4.0125))
    # A bound the paper states is the band's edge: no tolerance widens it.
    assert PAPER.at_most(27.0) == (None, 27.0)
    assert PAPER.at_least(4.0) == (4.0, None)
    # A direction needs the minimum effect: relative to the no-effect value, or in points
    # (of the quantity's own scale) when that value is 0.
    assert PAPER.above(1.0) == (pytest.approx(1.05), None)
    assert PAPER.below(1.0) == (None, pytest.approx(0.95))
    assert PAPER.above(0.0, "%") == (pytest.approx(5.0), None)


def test_met_needs_the_median_and_four_of_five_seeds_in_the_band() -> None:
    band = PAPER.around(3.0)  # 2.25-3.75
    j = cl.judge([3.0, 3.1, 2.9, 3.2, 1.0], band, paper=PAPER)
    assert (j.verdict, j.agree) == ("met", 4)
    # The median is in the band but only 3 of 5 seeds are; all five on the paper's side and
    # the effect ln(2.9)/ln(3) = 0.97 of the paper's: direction.
    j = cl.judge([3.0, 3.1, 2.9, 1.5, 1.6], band, paper=PAPER, null=1.0, paper_value=3.0)
    assert (j.verdict, j.agree, j.on_side) == ("direction", 3, 5)
    assert j.effect_ratio == pytest.approx(0.969, abs=1e-3)
    assert cl.needed(5, every=False) == 4 and cl.needed(3, every=False) == 3 and cl.needed(10, every=False) == 8


def test_a_claim_about_every_run_needs_every_seed() -> None:
    # R2C2's "always above one" (and the issue's "every seed >= 2x"): one seed out is not met.
    values = [2.5, 2.6, 2.4, 2.7, 1.8]
    assert verdict(values, (2.0, None), null=1.0, paper_value=2.0) == "met"
    # Not met; every seed is on the paper's side and the effect ln(2.5)/ln(2) = 1.32 is within 2.
    assert verdict(values, (2.0, None), null=1.0, paper_value=2.0, every=True) == "direction"
    assert verdict([*values[:4], 0.9], (2.0, None), null=1.0, paper_value=2.0, every=True) == "missed"


def test_direction_is_the_paper_side_and_an_effect_within_a_factor_two() -> None:
    band = PAPER.around(4.0)  # 3-5
    # Effect ln(value) / ln(4): 2.5 -> 0.66, 1.5 -> 0.29, 7 -> 1.40, 20 -> 2.16.
    assert verdict([2.5] * 5, band, null=1.0, paper_value=4.0) == "direction"
    assert verdict([1.5] * 5, band, null=1.0, paper_value=4.0) == "missed"  # the paper's sign, a quarter of its size
    assert verdict([7.0] * 5, band, null=1.0, paper_value=4.0) == "direction"
    assert verdict([20.0] * 5, band, null=1.0, paper_value=4.0) == "missed"  # beyond twice the paper's effect
    assert verdict([0.5] * 5, band, null=1.0, paper_value=4.0) == "missed"  # the opposite effect
    assert verdict([0.5] * 5, band) == "missed"  # no no-effect value: met or missed only
    # The issue's examples: Outcast Fig. 7's 0.030 against the paper's 1/4 (effect 2.53x), its
    # pacing 0.90 against 1/2 (0.15x): missed; 4 of 5 seeds on the paper's side is enough, 3 is not.
    assert verdict([0.03] * 5, PAPER.around(0.25), null=1.0, paper_value=0.25) == "missed"
    assert verdict([0.9] * 5, PAPER.around(0.5), null=1.0, paper_value=0.5) == "missed"
    assert verdict([2.5, 2.5, 2.5, 2.5, 0.9], band, null=1.0, paper_value=4.0) == "direction"
    assert verdict([2.5, 2.5, 2.5, 0.9, 0.9], band, null=1.0, paper_value=4.0) == "missed"
    # Not a ratio (null 0): the effect is value - null. 4 points against the paper's 8: 0.5.
    assert verdict([4.0] * 5, PAPER.around(8.0), null=0.0, paper_value=8.0) == "direction"
    assert verdict([3.9] * 5, PAPER.around(8.0), null=0.0, paper_value=8.0) == "missed"
    # A direction-only claim (no paper number) is met beyond the minimum effect, missed short
    # of it: there is no effect of the paper's to be within a factor 2 of.
    assert verdict([1.06] * 5, PAPER.above(1.0), null=1.0) == "met"
    assert verdict([1.04] * 5, PAPER.above(1.0), null=1.0) == "missed"
    # A band around "no effect" (PFQ "closely matches") has no side: met or missed.
    assert verdict([2.0] * 5, PAPER.around(1.0), null=1.0, paper_value=1.0) == "missed"


def test_met_needs_the_median_on_the_papers_side_of_null() -> None:
    # RackCC's Fig. 3c "plateaus": the paper's 1.1x band reaches below 1, the median 0.94 is in
    # it but on the other side of null from the paper's number: not met (and no direction).
    band = PAPER.around(1.1)  # 0.825-1.375
    assert verdict([0.94, 0.92, 0.9, 0.95, 0.93], band, null=1.0, paper_value=1.1) == "missed"
    assert verdict([1.04, 1.02, 1.1, 1.05, 1.03], band, null=1.0, paper_value=1.1) == "met"


def test_one_sided_bounds_are_the_edge_and_more_or_less_than_excludes_it() -> None:
    # "more than 90 %": 89 is out (the old tolerance made the band start at 67.5 %).
    assert verdict([89.0] * 5, PAPER.more_than(90.0), open_edges=True) == "missed"
    assert verdict([90.5] * 5, PAPER.more_than(90.0), open_edges=True) == "met"
    # "less than one packet": exactly 1.00 is not less than one.
    assert verdict([1.0] * 5, PAPER.less_than(1.0), open_edges=True) == "missed"
    assert verdict([1.0] * 5, PAPER.at_most(1.0)) == "met"
    assert verdict([0.99] * 5, PAPER.less_than(1.0), open_edges=True) == "met"


def test_a_row_refuses_a_band_and_values_in_different_units() -> None:
    # SCC's Fig. 7a DS-misses row built its band in % and judged it in points.
    c = cl.Claims(PAPER)
    with pytest.raises(ValueError, match="band is in '%' and the values in 'points'"):
        c.add("Fig. 7a", "DS misses", [0.5] * 5, PAPER.around(40.0), unit="points", band_unit="%")
    row = c.add("Fig. 7a", "DS misses", [0.5] * 5, PAPER.around(40.0), unit="%", paper_value=40.0)
    assert row["band_unit"] == row["unit"] == "%"
    # The minimum effect of a direction in points or % beside a null of 0 is 5 points.
    assert PAPER.above(0.0, "points") == (pytest.approx(5.0), None)


def test_sensitivity_rows_vary_a_paper_row_and_flips_are_marked() -> None:
    from corral.experiments import claims_table

    table = claims_table.parse(TABLE_TEXT)
    c = cl.Claims(table.paper, table=table)
    c.row("ratio", [3.0, 3.1, 2.9, 3.0, 3.2], unit="x")
    c.sensitivity("ratio", "40G", [1.0, 1.1, 0.9, 1.0, 1.0], unit="x", varies="hosts at 40 Gbps")
    c.sensitivity("ratio", "10G", [3.0, 3.1, 2.9, 3.0, 3.2], unit="x", varies="hosts at 10 Gbps")
    paper, flipped, same = c.rows
    assert (paper["kind"], flipped["kind"], flipped["id"], flipped["of"]) == ("paper", "sensitivity", "ratio@40G", "ratio")
    assert paper["flips"] == ["ratio@40G"] and flipped["flips"] == ["ratio"] and same["flips"] == []
    assert cl.counts(c.rows) == {"met": 1, "direction": 0, "missed": 0, "off_conditions": 0, "reported": 0}
    with pytest.raises(ValueError, match="values in 'ms'"):
        c.row("ratio", [1.0], unit="ms")


# A claims table: test_claims_table.py's paper and setups, and one statement judged by one
# claim, one with a reason.
TABLE_TEXT = (
    HEAD
    + SETUP
    + """
[[statement]]
id = "s1"
section = "Sec. 5"
quote = "three times faster"

[[statement]]
id = "s2"
section = "Sec. 6"
quote = "a trend in a plot"
reason = "read off a plot we cannot see"

[[claim]]
id = "ratio"
figure = "Fig. 1"
claim = "the speed-up"
statement = "s1"
value = 3.0
bound = "around"
null = 1.0
setup = "sim"

[[claim]]
id = "big"
figure = "Fig. 2"
claim = "the speed-up with a larger buffer"
statement = "s1"
value = 3.0
bound = "around"
null = 1.0
setup = "sim-big"
"""
)


def test_off_conditions_and_reported() -> None:
    assert verdict([3.0] * 5, PAPER.around(3.0), conditions_reached=False) == "off_conditions"
    assert verdict([3.0] * 5, None) == "reported"
    assert verdict([3.0] * 5, None, conditions_reached=False) == "reported"
    assert verdict([], PAPER.around(3.0)) == "missed"


def test_conditions_check_the_offered_load_within_ten_percent() -> None:
    assert cond.reached({"load": cond.check([0.85, 0.9, 0.95], 0.9)})
    assert not cond.reached({"load": cond.check([0.24, 0.25, 0.21], 0.9)})
    assert cond.unmet({"load": cond.check([0.5], 0.9), "run_s": cond.check([0.5], 0.5, 0.0), "flows_started": 10}) == ["load"]
    assert not cond.reached({"nodes": cond.check([64], 512, 0.0)})
    assert cond.reached({"flows_started": 3}), "values that are not checks are recorded, not judged"


def test_offered_load_counts_what_each_flow_could_send_within_the_run() -> None:
    # A 1 Gbps host; a run of 3 s. A 125 MB flow at t = 2 s can offer 1 s of line rate
    # (125 MB) and a 1 GB one at t = 1 s 2 s of it (250 MB); an unbounded flow from t = 0 all 3 s.
    ports = pl.DataFrame({"node": ["h0", "sw0"], "rate_bps": [1_000_000_000, 10_000_000_000]})
    flows = pl.DataFrame(
        {
            "src": ["h0", "h0", "h0"],
            "size_bytes": [125_000_000, 1_000_000_000, None],
            "start_s": [2.0, 1.0, 0.0],
            "fct_s": [0.5, None, None],
        }
    )
    assert cond.offered_bytes(flows, cond.host_rates(ports), 3.0) == pytest.approx(125e6 + 250e6 + 375e6)
    got = cond.realized(flows, ports, 3.0, capacity_bps=1e9, window_s=3.0)
    assert got["load_offered"] == pytest.approx(750e6 * 8 / 3e9)
    assert (got["flows_started"], got["flows_finished"], got["run_s"]) == (3, 1, 3.0)


def test_a_row_holds_what_the_issue_asks_and_the_headline_counts_paper_rows_only() -> None:
    c = cl.Claims(PAPER)
    c.add(
        "Fig. 1",
        "a paper number",
        [3.0, 3.1, 2.9, 3.0, 3.2],
        PAPER.around(3.0),
        paper_value=3.0,
        null=1.0,
        conditions={"load": cond.check([0.9], 0.9)},
        id="fig1",
    )
    c.add("Fig. 2", "off its load", [3.0] * 5, PAPER.around(3.0), paper_value=3.0, conditions={"load": cond.check([0.2], 0.9)})
    c.add("Fig. 3", "no number", [1.0] * 5, None)
    c.add("ours", "a mechanism", [1.0] * 5, (0.9, 1.1), kind="acceptance")
    c.add("§1", "arithmetic", [8176.0], (8175.0, 8177.0), kind="structural")
    row = c.rows[0]
    for key in (
        "id",
        "seeds_on_side",
        "effect_ratio",
        "band_unit",
        "paper",
        "figure",
        "claim",
        "kind",
        "paper_value",
        "band",
        "measured",
        "range",
        "seeds",
        "seeds_agree",
        "verdict",
        "conditions",
        "note",
    ):
        assert key in row, key
    assert (row["measured"], row["range"], row["seeds"], row["seeds_agree"], row["verdict"]) == (3.0, [2.9, 3.2], 5, 5, "met")
    assert cl.counts(c.rows) == {"met": 1, "direction": 0, "missed": 0, "off_conditions": 1, "reported": 1}
    assert cl.headline(c.rows) == "1 of 2 paper claims met (1 off conditions, 1 reported)"


def synthetic_doc() -> dict:
    from corral.experiments import claims_table

    table = claims_table.parse(TABLE_TEXT)
    c = cl.Claims(PAPER, table=table)
    c.row("ratio", [3.0, 3.1, float("nan"), 2.9], unit="x")
    c.row("big", [3.0, 3.1, 2.9], unit="x")
    c.add(
        "Fig. 2", "a direction", [0.9, 0.8], PAPER.below(1.0), null=1.0, conditions={"load": cond.check([0.5], 0.9), "run_s": 1.0}
    )
    c.add("Fig. 3", "reported", [], None)
    return cl.document(
        PAPER,
        c.rows,
        seeds=[1, 2, 3, 4],
        quick=False,
        overrides=(),
        quick_means="one seed",
        baselines=[cl.baseline("TCP", "min RTO", "1ms", "our choice")],
        table=table,
    )


def test_claims_json_schema_accepts_a_report_and_names_what_breaks_it(tmp_path: Path) -> None:
    doc = synthetic_doc()
    cl.write(tmp_path / "claims.json", doc)
    back = json.loads((tmp_path / "claims.json").read_text())
    claims_schema.validate(back)
    assert back["counts"] == {"met": 2, "direction": 0, "missed": 0, "off_conditions": 1, "reported": 1}
    bad = json.loads(json.dumps(back))
    bad["claims"][0]["verdict"] = "passed"
    del bad["claims"][1]["band"]
    bad["claims"][2]["surprise"] = 1
    errors = claims_schema.errors(bad)
    assert any("claims[0].verdict" in e for e in errors) and any("'band' missing" in e for e in errors)
    assert any("unexpected key 'surprise'" in e for e in errors)
    with pytest.raises(ValueError, match="does not match its schema"):
        claims_schema.validate(bad)


def test_the_schema_is_json_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    doc = json.loads(json.dumps(synthetic_doc()))
    jsonschema.validate(doc, claims_schema.SCHEMA)


def test_report_tables_come_from_the_claims_document() -> None:
    doc = synthetic_doc()
    text = "\n".join(cl.markdown(doc))
    assert text.startswith("## Claims: 2 of 3 paper claims met (1 off conditions, 1 reported)")
    assert "+-25%" in text and "| verdict | paper rows |" in text and "| TCP | min RTO | 1ms | our choice |" in text
    assert (
        "| Fig. 2 | a direction | direction | <= 0.95x | 0.85 [0.80, 0.90]x | 2 of 2; 2 on the paper's side | off conditions | "
        "load 50% of 90% ✗" in text
    )
    assert (
        "| `ratio` | Fig. 1 | the speed-up | 3.00x | 2.25 to 3.75x | 3.00 [2.90, 3.10]x | 3 of 3; 3 on the paper's side | "
        "met (effect 1.00x the paper's) |" in text
    )
    # The setup table (each value's source) and the coverage (rows, or the reason none judges).
    assert "### Setup `sim`: the simulations (Fig. 1)" in text
    assert "| buffer | 100 packets | default: ns-2 |" in text
    # A setup copied from another lists only what it changes.
    assert "### Setup `sim-big`: the simulations with a larger buffer (Fig. 2)\n\nAs `sim`, except:" in text
    assert '| buffer | 1000 packets | the paper, Sec. 6: "1000 packets" |' in text
    assert '| topology | dumbbell | the paper, Sec. 5: "a dumbbell" |' in text
    assert "| Sec. 5 | three times faster | `ratio` (met), `big` (met) |" in text
    assert "| Sec. 6 | a trend in a plot | not judged: read off a plot we cannot see |" in text


def test_scenario_value_reads_what_the_runs_use() -> None:
    text = 'duration = "1s"\n[transport]\nmin_rto = "2ms"\n[[traffic]]\nload = 0.3\n'
    assert cl.scenario_value(text, "transport.min_rto") == "2ms"
    assert cl.scenario_value(text, "traffic.0.load") == 0.3
    assert cl.scenario_value(text, "transport.initial_window", 10) == 10
