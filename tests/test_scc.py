"""`corral reproduce scc --quick`: the folder it writes and the verdict of every claim. A
claim whose verdict changes fails the test (KNOWN lists the quick run's verdicts other than met, with
the reasons in docs/reproductions/scc.md), so that a result never changes silently."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_verdicts_pinned, corral_cli

# Verdicts of the quick run other than met, by row id (papers/scc.toml). Under the strict
# rules (issue 57) a "direction" needs 4 of 5 seeds on the paper's side and an effect within a
# factor 2 of the paper's: rows that were direction with an effect outside [1/2, 2] are missed.
KNOWN = {
    "fig1b-ls-alone": "missed",
    # p99 1.33x and mean 1.13x against "more than 300 %" and "more than 50 %" (effects 0.21 and
    # 0.31 of the paper's): were direction.
    "fig1b-ls-p99": "missed",
    "fig1b-ls-mean": "missed",
    # New rows (Fig. 1(c)): DS alone misses 3.1 % at light and moderate loads (our bound 1 %),
    # and with LS at 80 % it misses 10 points fewer than alone.
    "fig1c-ds-light": "missed",
    "fig1c-ds-with-ls": "missed",
    "fig1c-ds-with-cs": "missed",
    "fig1d-cs": "missed",
    # "even at low loads, some of the flows miss their deadline due to interference from CS":
    # DS at 20 % offers 0.17 of its 0.2 in the quick run's one seed (off conditions).
    "fig1c-ds-low": "off_conditions",
    "fig1c-ds-low@alone on 1 Gbps": "off_conditions",
    # Each class alone on the 1000 Mbps link instead of 500 (sensitivity): the LS ratios reach
    # the paper's direction (p99 2.70x, mean 1.42x), DS with CS 130x against "up to 4x"; the
    # LS RTT alone (342 us), DS with LS (+8.2 points) and CS with DS (2.45x) are met.
    "fig1b-ls-p99@alone on 1 Gbps": "direction",
    "fig1b-ls-mean@alone on 1 Gbps": "direction",
    "fig1c-ds-with-cs@alone on 1 Gbps": "missed",
    # Fig. 4 under the 500 Mbps reading: DS misses 2.6x (effect 0.69: direction), CS AFCT
    # 1.07x against 5x (missed, was direction). The 1 Gbps reading is now sensitivity rows.
    "fig4-miss": "direction",
    "fig4-afct": "missed",
    "fig4-miss@loads of 1 Gbps": "missed",
    # direction since DCTCP's Linux alpha window (issue 56): the effect is within 2x of the paper's.
    "fig4-afct@loads of 1 Gbps": "direction",
    # "up to 8 %" and "up to 6 %": 57 % and 40 % (effects 7.1 and 6.7): were direction.
    "fig5-ds": "missed",
    "fig5-cs": "missed",
    "fig3-csds-afct": "missed",
    "fig3-csds-miss": "direction",
    "fig3-all-afct": "missed",
    "fig3-all-miss": "missed",
    # Fig. 8b on the dumbbell (sensitivity since the paper's runs on the fabric): A misses 25 %.
    "fig8b-a@dumbbell": "missed",
    "weights-validation": "reported",
    "weights-l2dct": "reported",
    # The fabric at quick scale: data-mining and web-search offer too little of their load
    # within the quick runs (off conditions), as before.
    "fig6a-completed": "off_conditions",
    # CS with LS only over CS alone, 1.08x: out of the no-effect band [0.95, 1.05] (was met
    # under +-25 %).
    "fig7b-ls": "missed",
    "fig6b-afct": "off_conditions",
    "fig10b-dm": "off_conditions",
    "fig6-ls": "off_conditions",
    "fig6b-afct@ECMP": "off_conditions",
    "fig10b-dm@ECMP": "off_conditions",
    "fig6-ls@ECMP": "off_conditions",
    "fig7a-hurt": "off_conditions",
    "fig7a-cut": "off_conditions",
    "fig7b-ds": "off_conditions",
    "fig10a-ws": "off_conditions",
    "fig10b-ws": "off_conditions",
    "wc-ws": "off_conditions",
    "fig10a-ws@least increase": "off_conditions",
    "fig10b-ws@least increase": "off_conditions",
    "wc-ws@least increase": "off_conditions",
    "fig10a-mr": "missed",
    # LS rates within the underlay's grant (no per-flow floor above it): MapReduce's DS misses
    # without over with SCC 0.99 -> 1.01 in the quick run, above the band's 1.0.
    "fig10b-mr": "missed",
    "fig10b-mr@least increase": "missed",
    # Under MapReduce SCC as written delivers under 97 % of no SCC's bytes (tunnels of weight
    # near 0 do not grow back onto idle links); with the least increase it does not.
    "wc-mr": "missed",
    "fig10a-mr@least increase": "missed",
    "wc-dm": "off_conditions",
    "wc-ds-alone": "off_conditions",
    "fig8a-afct": "off_conditions",
    "fig8a-miss": "off_conditions",
    "fig9a-most": "off_conditions",
    "fig9a-every": "off_conditions",
    "fig9b-90": "missed",
    "fig11a-afct": "off_conditions",
    "fig11a-miss": "off_conditions",
    "fig11b-afct": "off_conditions",
    "fig11b-ds-better": "off_conditions",
    "fig11b-ds-worse": "off_conditions",
    "fig12-ls": "off_conditions",
    "fig12-cs": "off_conditions",
    "fig12-ds": "off_conditions",
    "fig12-ls@SCC off": "off_conditions",
    "fig12-cs@SCC off": "off_conditions",
    "fig12-ds@SCC off": "off_conditions",
    # Fig. 8b on the fabric (data-mining, two DS tenants): off conditions at quick scale.
    "fig8b-a": "off_conditions",
    "fig8b-b": "off_conditions",
    "fig8b-both": "off_conditions",
    "fig8b-a@weight 4:1": "off_conditions",
    "fig8b-b@weight 4:1": "off_conditions",
    "fig8b-both@weight 4:1": "off_conditions",
    # DS of 2-198 KB offers its data-mining load within the quick run (0.88 of 0.9): SCC
    # misses more (0.88x); the others are off conditions at quick scale.
    "fig10b-dm@DS small": "missed",
    "fig10b-ws@DS small": "off_conditions",
    "fig10b-dm@deadlines 40ms": "off_conditions",
    "fig10b-ws@deadlines 40ms": "off_conditions",
    "fig5-fabric-ls": "off_conditions",
    "fig5-fabric-ds": "off_conditions",
    "fig5-fabric-cs": "off_conditions",
}


def test_case_text_keeps_the_classes_asked_for_and_puts_them_under_scc() -> None:
    from corral.experiments.scc import case_text

    both = case_text(("DS", "CS"), scc=True)
    assert both.count("\n[[traffic]]\n") == 2 and 'class = "LS"' not in both
    assert '[scheme]\nkind = "scc"' in both and 'transport = "d2tcp"' not in both
    alone = case_text(("LS",), scc=False)
    assert alone.count("\n[[traffic]]\n") == 1 and 'transport = "dctcp"' in alone and "[scheme]" not in alone


def test_fabric_variants_change_only_what_they_name() -> None:
    from corral import Scenario
    from corral.experiments.scc import FABRIC, STAR, tenants_text
    from corral.experiments.scc_fabric import case_text

    def variant(text: str, classes: tuple[str, ...], name: str, *weight: float) -> Scenario:
        return Scenario.from_toml(case_text(text, classes, name, *weight))

    fabric = FABRIC.read_text()
    pf = variant(fabric, ("DS", "CS"), "pfabric")
    assert [b["transport"] for b in pf.get("traffic")] == ["pfabric", "pfabric"]
    assert pf.get("switch.queue") == "pfabric" and pf.get("switch.ecn_threshold") is None
    pr = variant(fabric, ("LS", "DS", "CS"), "priority")
    assert pr.get("switch.queue") == "priority" and pr.get("switch.priority") == {"classes": 2, "class": "ecn"}
    assert [b["priority"] for b in pr.get("traffic")] == [0, 1, 1]
    dc = variant(fabric, ("LS", "DS", "CS"), "scc_dctcp")
    assert [b["transport"] for b in dc.get("traffic")] == ["scheme"] * 3
    assert dc.get("scheme.cc") == {"LS": "dctcp", "DS": "dctcp", "CS": "dctcp"}
    assert dc.get("scheme")["weights"]["cs/CS"] == 120.0 and "in_tunnel" not in dc.get("scheme")
    assert variant(fabric, ("CS",), "scc_fifo").get("scheme.in_tunnel") is False
    least = variant(fabric, ("LS", "DS", "CS"), "scc_least").get("scheme")
    assert least["min_increase"] == 1.0 and least["weights"]["ds/DS"] == 120.0 and "in_tunnel" not in least
    star = variant(STAR.read_text(), ("DS", "CS"), "scc_fifo", 5.0)
    assert [b["class"] for b in star.get("traffic")] == ["DS", "CS"] and star.get("scheme.in_tunnel") is False
    assert star.get("scheme")["weights"]["ds/DS"] == 5.0
    two = Scenario.from_toml(tenants_text(scc=True))
    assert [b["tenant"] for b in two.get("traffic")] == ["A", "B"] and two.get("scheme")["weights"] == {"A/DS": 2.0, "B/DS": 1.0}


def test_fig12_runs_strict_priority_under_scc_and_fig8b_two_tenants_on_the_fabric() -> None:
    """Fig. 12's paper rows: SCC on the two strict-priority queues (LS high) against SCC on
    one; Fig. 8b's: two DS tenants of the fabric's DS block, A weighted 2:1 (4:1) over B."""
    from corral import Scenario
    from corral.experiments.scc import FABRIC
    from corral.experiments.scc_fabric import DIVISION_WEIGHT, TENANTS_CASE, case_text, jobs, tenants_text

    fabric = FABRIC.read_text()
    sp = Scenario.from_toml(case_text(fabric, ("LS", "DS", "CS"), "scc_priority"))
    assert sp.get("switch.queue") == "priority" and sp.get("scheme")["kind"] == "scc"
    assert [(b["transport"], b["priority"]) for b in sp.get("traffic")] == [("scheme", 0), ("scheme", 1), ("scheme", 1)]
    none = Scenario.from_toml(tenants_text(fabric, "none"))
    assert [(b["tenant"], b["stream"], b["transport"]) for b in none.get("traffic")] == [("A", 1, "d2tcp"), ("B", 3, "d2tcp")]
    for variant, w in (("scc", 2.0), ("scc_w4", 4.0)):
        two = Scenario.from_toml(tenants_text(fabric, variant))
        assert two.get("scheme")["weights"] == {"A/DS": w * DIVISION_WEIGHT, "B/DS": DIVISION_WEIGHT}
    runs = jobs(fabric, [1], quick=False, overrides=())
    tenants = [j for j in runs if j.labels["case"] == TENANTS_CASE]
    assert {j.labels["variant"] for j in tenants} == {"none", "scc", "scc_w4"}
    assert all(j.labels["setup"] == "fabric-tenants" and j.labels["total_load"] == 0.9 for j in tenants)


def test_ds_sensitivity_runs_change_only_the_ds_block() -> None:
    """The DS sizes and deadline-mean sensitivity runs change the DS block (index 1) only, and
    name what they change."""
    from corral.experiments.scc import FABRIC
    from corral.experiments.scc_fabric import DEADLINE_LONG, jobs

    runs = jobs(FABRIC.read_text(), [1], quick=False, overrides=())
    small = [j for j in runs if j.labels["case"].endswith(", DS small")]
    long = [j for j in runs if j.labels["case"].endswith(f", deadlines {DEADLINE_LONG}")]
    assert len(small) == len(long) == 4
    for j in small:
        assert 'traffic.1.size={kind = "uniform", min = "2KB", max = "198KB"}' in j.overrides
        assert "traffic.1.size.cdf=" + j.labels["workload"] not in j.overrides
        assert "traffic.0.size.cdf=" + j.labels["workload"] in j.overrides
        assert set(j.labels["deviation"]) == {"traffic.1.size"}
    for j in long:
        assert f'traffic.1.deadline.mean="{DEADLINE_LONG}"' in j.overrides and set(j.labels["deviation"]) == {
            "traffic.1.deadline.mean"
        }


def test_pfabric_runs_as_its_paper_runs_it() -> None:
    """pFabric (SIGCOMM 2013) starts flows at line rate, a window of one BDP, with a minimum
    RTO of about 3 RTTs and buffers of about 2 BDPs: on SCC's fabric (1 Gbps hosts, 300 us
    between racks) 25 packets, 900 us and 75 KB, and only its variant changes."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    from corral.experiments.scc import FABRIC
    from corral.experiments.scc_fabric import case_text, pfabric_settings

    fabric = FABRIC.read_text()
    pf = pfabric_settings(fabric)
    assert pf["rtt_s"] == pytest.approx(300e-6) and pf["bdp_bytes"] == pytest.approx(37_500)
    sc = tomllib.loads(case_text(fabric, ("DS", "CS"), "pfabric"))
    assert sc["transport"]["initial_window"] == 25 and sc["transport"]["min_rto"] == "900us"
    assert sc["switch"]["buffer"] == "75KB" and sc["switch"]["queue"] == "pfabric"
    assert all(t["transport"] == "pfabric" for t in sc["traffic"])
    other = tomllib.loads(case_text(fabric, ("DS", "CS"), "scc"))
    assert other["transport"]["initial_window"] == 10 and other["transport"]["min_rto"] == "10ms"


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("scc") / "out"
    proc = corral_cli("reproduce", "scc", "--quick", "-o", out)
    assert proc.returncode == 0, proc.stderr
    return out


def test_quick_run_writes_the_report_plot_and_tables(quick: Path) -> None:
    for name in ("report.md", "claims.json", "report.json", "runs.csv", "fig1.png", "fabric.png", "fig7.png"):
        assert (quick / name).is_file(), name
    assert not (quick / "summary.json").exists()


def test_claim_verdicts_do_not_change_silently(quick: Path) -> None:
    import json

    from test_claims_table import table_rows_written

    assert_verdicts_pinned(quick / "claims.json", KNOWN)
    table_rows_written("scc", json.loads((quick / "claims.json").read_text()))


def test_datamining_runs_count_load_within_the_run() -> None:
    from corral.experiments.scc import FABRIC
    from corral.experiments.scc_fabric import jobs

    fabric = jobs(FABRIC.read_text(), [1], quick=False, overrides=())
    for job in fabric:
        basis = [o for o in job.overrides if ".load_basis=" in o]
        if job.labels["workload"] == "datamining":
            assert basis and all(o.endswith('="run"') for o in basis) and "duration=1.5s" in job.overrides
        else:
            assert not basis


def test_fabric_routes_by_flowcells_and_ecmp_is_the_sensitivity_run() -> None:
    """The fabric runs the paper's Presto-like routing (64 KiB flowcells, the default size);
    only the named sensitivity case overrides it, with per-flow ECMP."""
    from corral import Scenario
    from corral.experiments.scc import FABRIC
    from corral.experiments.scc_fabric import ECMP_CASE, jobs

    assert Scenario.from_toml(FABRIC.read_text()).get("routing") == {"kind": "flowcell"}
    fabric = jobs(FABRIC.read_text(), [1], quick=False, overrides=())
    routed = {j.labels["case"] for j in fabric if any(o.startswith("routing.") for o in j.overrides)}
    assert routed == {ECMP_CASE}
    assert {j.labels["variant"] for j in fabric if j.labels["case"] == ECMP_CASE} == {"none", "scc"}
    assert all('routing.kind="ecmp"' in j.overrides for j in fabric if j.labels["case"] == ECMP_CASE)


def test_fig7_adds_only_the_two_class_sets_and_keeps_each_class_flows() -> None:
    """Fig. 7 shares its three-class set and the classes alone with Figs. 6, 9 and 10: it adds
    the three two-class sets with and without SCC (6 runs per seed), and every class keeps
    its random stream (its flows) in every case."""
    from corral import Scenario
    from corral.experiments.scc import FABRIC
    from corral.experiments.scc_fabric import CLASSES, FIG7_SETS, case_text, fig7_case, jobs

    fabric = jobs(FABRIC.read_text(), [1], quick=False, overrides=())
    two = [j for j in fabric if j.labels["case"] in {fig7_case(s) for s in FIG7_SETS}]
    assert len(two) == 6 and all(j.labels["workload"] == "datamining" and j.labels["load"] == 0.3 for j in two)
    for case in (fig7_case(CLASSES), "isolation DS", "isolation CS"):
        assert {j.labels["variant"] for j in fabric if j.labels["case"] == case and j.labels["load"] == 0.3} >= {"none", "scc"}
    for classes in (*FIG7_SETS, ("CS",), ("DS",), CLASSES):
        blocks = Scenario.from_toml(case_text(FABRIC.read_text(), classes, "none")).get("traffic")
        assert [(b["class"], b["stream"]) for b in blocks] == [(c, CLASSES.index(c)) for c in classes]
