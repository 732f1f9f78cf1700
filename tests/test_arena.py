"""The arena: cell planning, n/a cells, metrics on a tiny arena, resume byte for byte, errors.

The tiny arena is two contenders (`ideal` and DCTCP) on a k=4 fat-tree under web-search at
50 % for 3 ms, plus R2C2 on the same network (n/a: it needs a torus), on one in-process Dask
cluster (threads). The full arena is `corral arena`, never run here.
"""

from __future__ import annotations

import shutil

import polars as pl
import pytest
from conftest import corral_cli
from corral.arena import ArenaError, plan_cells, run_arena
from corral.arena import plan as P
from corral.arena.metrics import medians, ratios
from corral.arena.run import PARQUET, resolve_cells
from corral.sweep import layout
from corral.sweep.spec import tomllib


@pytest.fixture(scope="module")
def client():
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with Client(cluster) as c:
            yield c


def tiny_cells() -> list[P.Cell]:
    net = P.fat_tree(4)
    web = P.Workload("websearch", "poisson", (0.5,), cdf="websearch")
    return [P.Cell(c, net, web, 0.5, 0.003) for c in ("ideal", "dctcp", "r2c2")]


# -- planning --------------------------------------------------------------------------------


def test_quick_plan_has_every_contender_network_and_workload():
    cells = plan_cells(quick=True)
    contenders = {c.contender for c in cells}
    assert contenders == set(P.DEFAULT_CONTENDERS) and len(contenders) >= 10
    assert len({c.network.name for c in cells}) == 4
    assert len({c.workload.name for c in cells}) >= 4
    # every contender gets every network x workload x load: nothing is dropped at planning
    per = {name: sum(1 for c in cells if c.contender == name) for name in contenders}
    assert len(set(per.values())) == 1
    # every cell's scenario is valid TOML naming its contender
    for cell in cells[:: max(1, len(cells) // 40)]:
        tables = tomllib.loads(cell.toml())
        assert tables["topology"] == cell.network.topology


def test_full_plan_uses_the_issue_sizes():
    nets = {n.name: n for n in P.networks(quick=False)}
    assert nets["fat_tree"].topology["k"] == 8 and nets["torus3d"].topology["dims"] == [8, 8, 8]
    ls = nets["leaf_spine_3to1"].topology
    assert ls["hosts_per_leaf"] == 3 * ls["spines"]  # 3:1 at equal link rates
    assert {w.name for w in P.workloads(quick=False)} >= {
        "websearch",
        "datamining",
        "hadoop",
        "incast16",
        "incast64",
        "rpc",
        "permutation",
    }
    assert P.workloads(quick=False)[0].loads == (0.3, 0.5, 0.7, 0.9)


def test_settings_are_derived_from_the_network():
    ft, ls, tt, torus = P.networks(quick=True)
    assert [P.contender_tables("hcc", n)["scheme"]["levels"] for n in (ft, ls, tt, torus)] == [3, 2, 3, 2]
    assert P.contender_tables("r2c2", torus)["routing"] == {"kind": "rps", "source_routes": True}
    assert P.contender_tables("r2c2", ft)["routing"] == {"kind": "ecmp"}
    pf = P.contender_tables("pfabric", ft)
    # 12 us RTT at 10 Gbps: BDP 15 KB = 10 packets, 2 BDPs of buffer, RTO 3 RTTs
    assert pf["transport"]["initial_window"] == 10 and pf["switch"] == {"buffer": "20pkt", "queue": "pfabric"}
    assert pf["transport"]["min_rto"] == "36000ns"
    assert P.contender_tables("dctcp", ft)["transport"]["ecn"] is True
    assert P.contender_tables("cubic", ft)["transport"]["ecn"] is False


def test_ideal_is_always_the_reference_and_a_user_kind_joins_by_name():
    assert P.check_contenders(["bbr"]) == ["ideal", "bbr"]
    assert P.check_contenders(["dctcp", "ideal", "dctcp"]) == ["dctcp", "ideal"]


def test_an_unknown_contender_lists_the_known_ones():
    with pytest.raises(ArenaError) as e:
        plan_cells(quick=True, contenders=["dctpc"])
    text = str(e.value)
    assert "'dctpc'" in text and "did you mean 'dctcp'" in text
    for name in ("newreno", "cubic", "pfabric", "ideal", "r2c2", "hcc", "rackcc", "scc"):
        assert name in text


def test_the_cli_refuses_an_unknown_contender(tmp_path):
    res = corral_cli("arena", "--quick", "--contender", "nosuch", "-o", tmp_path / "a")
    assert res.returncode == 2
    assert "unknown contender 'nosuch'" in res.stderr and "known schemes:" in res.stderr
    assert not (tmp_path / "a").exists()


# -- n/a cells -------------------------------------------------------------------------------


def test_a_scheme_that_does_not_fit_is_na_with_its_check_message():
    ideal, _, r2c2 = resolve_cells(tiny_cells(), [1])
    assert ideal.hash and ideal.reason is None
    assert r2c2.hash is None and "torus" in r2c2.reason and "scheme.kind" in r2c2.reason
    on_torus = P.Cell("r2c2", P.torus(4), tiny_cells()[0].workload, 0.5, 0.001)
    assert resolve_cells([on_torus], [1])[0].reason is None


# -- a tiny arena ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, client):
    out = tmp_path_factory.mktemp("arena") / "a"
    result = run_arena(out, cells=tiny_cells(), seeds=2, client=client)
    return out, result


def test_tiny_arena_writes_its_outputs(tiny):
    out, result = tiny
    assert result.done == 4 and result.failed == 0
    for name in ("arena.parquet", "leaderboard.md", "index.html", "arena.json"):
        assert (out / name).is_file()
    assert (out / "plots" / "heatmap_ratio_to_ideal.png").is_file()
    frame = pl.read_parquet(out / PARQUET)
    assert frame.columns == ["contender", "network", "workload", "load", "seed", "metric", "value", "status", "reason"]
    na = frame.filter(pl.col("contender") == "r2c2")
    assert na["status"].to_list() == ["n/a", "n/a"] and "torus" in na["reason"][0]
    board = (out / "leaderboard.md").read_text()
    assert "| r2c2 | fat_tree: websearch 50% | n/a |" in board
    assert "**dctcp**'s p99 slowdown < 100 KB is at most 10% above" in board


def test_metrics_match_the_run_folder(tiny):
    out, result = tiny
    frame = pl.read_parquet(out / PARQUET)
    run = next(r for r in result.runs if r.cell.contender == "dctcp" and r.seed == 1)
    flows = pl.read_parquet(layout.run_dir(out, run.hash) / "flows.parquet")
    got = {
        r["metric"]: r["value"]
        for r in frame.filter((pl.col("contender") == "dctcp") & (pl.col("seed") == 1)).iter_rows(named=True)
    }
    small = flows.filter((pl.col("size_bytes") < 100_000) & pl.col("slowdown").is_not_null())["slowdown"]
    assert got["slowdown_p99_small"] == pytest.approx(small.quantile(0.99, "linear"), rel=1e-9)
    assert got["slowdown_p50_small"] == pytest.approx(small.quantile(0.5, "linear"), rel=1e-9)
    bounded = flows.filter(pl.col("size_bytes").is_not_null())
    assert got["unfinished"] == pytest.approx(bounded["finish_s"].null_count() / bounded.height)
    assert got["control_ratio"] == 0.0  # TCP sends no control messages
    assert got["timeouts_per_kflow"] == pytest.approx(1000 * flows["timeouts"].sum() / flows.height)
    # offered load: the flows' bytes over the access links during the arrival window
    window = 0.003 * P.ARRIVAL_SHARE
    assert got["offered_load"] == pytest.approx(bounded["size_bytes"].sum() * 8 / (16 * 10e9 * window))
    # the same flows for every contender (the workload's streams depend on the seed only)
    other = next(r for r in result.runs if r.cell.contender == "ideal" and r.seed == 1)
    ideal_flows = pl.read_parquet(layout.run_dir(out, other.hash) / "flows.parquet")
    assert ideal_flows.select("src", "dst", "size_bytes", "start_s").equals(flows.select("src", "dst", "size_bytes", "start_s"))
    assert ideal_flows["transport"].unique().to_list() == ["ideal"]


def test_ratios_to_ideal(tiny):
    out, _ = tiny
    table = ratios(pl.read_parquet(out / PARQUET))
    ideal = table.filter(pl.col("contender") == "ideal")
    assert ideal.filter(pl.col("ratio").is_not_null())["ratio"].to_list() == pytest.approx(
        [1.0] * ideal.filter(pl.col("ratio").is_not_null()).height
    )
    med = medians(pl.read_parquet(out / PARQUET))

    def row(c):
        return med.filter((pl.col("contender") == c) & (pl.col("metric") == "slowdown_p99_small")).row(0, named=True)

    dctcp = table.filter((pl.col("contender") == "dctcp") & (pl.col("metric") == "slowdown_p99_small"))["ratio"][0]
    assert dctcp == pytest.approx(row("dctcp")["median"] / row("ideal")["median"])
    assert row("dctcp")["seeds"] == 2 and row("dctcp")["min"] <= row("dctcp")["median"] <= row("dctcp")["max"]


def test_rerun_and_resume_reproduce_the_parquet_byte_for_byte(tiny, client):
    out, result = tiny
    first = (out / PARQUET).read_bytes()
    again = run_arena(out, cells=tiny_cells(), seeds=2, client=client)
    assert again.done == 0 and again.skipped == 4
    assert (out / PARQUET).read_bytes() == first
    # an interrupted arena: one run folder lost; the resume runs it alone

    shutil.rmtree(layout.run_dir(out, result.runs[1].hash))
    resumed = run_arena(out, cells=tiny_cells(), seeds=2, client=client)
    assert resumed.done == 1 and resumed.skipped == 3
    assert (out / PARQUET).read_bytes() == first


# -- its folder: files by name, limits, signals (issue "Nothing lost, nothing that cannot be stopped") --


def test_an_arena_folder_lists_its_files_by_name_and_other_commands_never_enter_it(tiny, tmp_path):
    """`--force` from run, compare, sweep or reproduce into an arena folder is refused and
    deletes nothing: its marker names files, never plots/ or runs/ as trees."""
    import json

    from conftest import TINY
    from corral.outdir import MARKER

    out, _ = tiny
    marker = json.loads((out / MARKER).read_text())
    assert all(not f.endswith("/") for f in marker["files"]) and "plots/heatmap_ratio_to_ideal.png" in marker["files"]
    (out / "plots" / "mine.png").write_bytes(b"mine")
    (out / "runs" / "mine.csv").write_text("mine")
    before = {str(p): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    (tmp_path / "s.toml").write_text(TINY)
    (tmp_path / "sweep.toml").write_text('scenario = "s.toml"\nseeds = [1]\n')
    assert corral_cli("run", "s.toml", "-o", "r", "--no-plots", cwd=tmp_path).returncode == 0
    some_run = tmp_path / "r"
    for args in (
        ("run", "s.toml", "-o", out, "--force"),
        ("compare", some_run, "-o", out, "--force", "--no-plots"),
        ("sweep", "sweep.toml", "-o", out, "--force"),
        ("reproduce", "outcast", "--quick", "-o", out, "--force"),
    ):
        proc = corral_cli(*args, cwd=tmp_path)
        assert proc.returncode == 2 and "arena folder, which holds its runs" in proc.stderr, (args, proc.stderr)
        assert {str(p): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()} == before


def test_a_rerun_keeps_the_user_s_files_in_plots_and_runs(tmp_path, client):
    out = tmp_path / "a"
    run_arena(out, cells=tiny_cells()[:2], seeds=1, client=client)
    (out / "plots" / "mine.png").write_bytes(b"mine")
    (out / "runs" / "notes.txt").write_text("mine")
    run_arena(out, cells=tiny_cells()[:2], seeds=1, client=client, force=True)
    assert (out / "plots" / "mine.png").read_bytes() == b"mine" and (out / "runs" / "notes.txt").read_text() == "mine"


def test_too_many_seeds_are_refused_at_once(tmp_path):
    import time

    start = time.monotonic()
    proc = corral_cli("arena", "-o", tmp_path / "a", "--seeds", "100000", cwd=tmp_path)
    assert proc.returncode == 2 and "more than the limit of 10,000" in proc.stderr, proc.stderr
    assert time.monotonic() - start < 5 + 3  # the process start-up included
    proc = corral_cli("arena", "-o", tmp_path / "a", "--seeds", "1000000000000", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr, proc.stderr
    assert not (tmp_path / "a").exists()


def test_a_bad_memory_limit_is_refused_as_run_refuses_it(tmp_path):
    for command in (("arena", "--quick"), ("run", "s.toml"), ("sweep", "sweep.toml")):
        proc = corral_cli(*command, "-o", tmp_path / "a", "--max-memory", "lots", cwd=tmp_path)
        assert proc.returncode == 2 and "--max-memory" in proc.stderr and "lots" in proc.stderr, (command, proc.stderr)
    assert not (tmp_path / "a").exists()


def test_an_arena_where_no_cell_runs_exits_non_zero(tmp_path, client):
    from corral import cli

    net = P.fat_tree(4)
    web = P.Workload("websearch", "poisson", (0.5,), cdf="websearch")
    cells = [P.Cell("r2c2", net, web, 0.5, 0.003)]  # n/a: r2c2 needs a torus
    result = run_arena(tmp_path / "a", cells=cells, seeds=1, client=client)
    assert result.done == 0 and result.skipped == 0
    with pytest.raises(SystemExit) as e:
        cli._arena_exit(result)
    assert e.value.code == 1
