"""`corral compare`: tables, plots and report over a small sweep, grouping, newer columns,
graceful degradation, and the all-or-nothing report folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import corral
import numpy as np
import polars as pl
import pytest
from conftest import corral_cli
from corral.compare import CompareError, compare
from corral.sweep import layout, run_sweep
from sweep_data import SIZED, write_sweep

TABLES = [
    "runs",
    "groups",
    "fct",
    "fct_runs",
    "size_buckets",
    "size_buckets_runs",
    "fct_by_size",
    "fct_by_size_runs",
    "throughput_time",
    "queues",
    "queues_runs",
]
FCT_SCENARIOS = Path(corral.__file__).parent / "scenarios" / "fct"
PLOTS = ["fct_cdf.png", "size_buckets.png", "throughput_time.png", "queue_cdf.png"]


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory) -> Path:
    """The 8-run sweep of sweep_data.SWEEP, run once for the module (threads, no processes)."""
    root = tmp_path_factory.mktemp("cmp")
    out = root / "sweep"
    result = run_sweep(write_sweep(root), out, workers=2, processes=False)
    assert result.counts.done == 8
    return out


def pooled_flows(sweep: Path, **where) -> pl.DataFrame:
    index = pl.read_parquet(sweep / layout.INDEX)
    for key, value in where.items():
        index = index.filter(pl.col(key) == value)
    return pl.concat(pl.read_parquet(sweep / layout.RUNS / h / "flows.parquet") for h in index["hash"])


def test_compare_writes_tables_plots_and_report(sweep_dir, tmp_path):
    rep = tmp_path / "rep"
    result = compare([sweep_dir], rep)
    assert result.by == ["transport.cc", "switch.buffer"]
    assert result.groups == [
        "transport.cc=newreno, switch.buffer=8pkt",
        "transport.cc=newreno, switch.buffer=64pkt",
        "transport.cc=cubic, switch.buffer=8pkt",
        "transport.cc=cubic, switch.buffer=64pkt",
    ]
    for name in TABLES:
        assert (rep / f"{name}.csv").is_file() and (rep / f"{name}.parquet").is_file(), name
    for name in PLOTS:
        assert (rep / name).stat().st_size > 1000, name
    md = (rep / "report.md").read_text()
    for name in PLOTS:
        assert f"]({name})" in md
    assert "8 compared, 0 failed, 0 missing" in md

    groups = pl.read_csv(rep / "groups.csv")
    assert groups["runs"].to_list() == [2, 2, 2, 2] and groups["flows"].to_list() == [22] * 4
    assert groups["finished"].to_list() == [22] * 4
    # the pooled numbers match a direct computation from the run folders
    flows = pooled_flows(sweep_dir, **{"transport.cc": "cubic", "switch.buffer": "8pkt"})
    row = groups.filter(pl.col("group") == "transport.cc=cubic, switch.buffer=8pkt").row(0, named=True)
    assert row["fct_mean_s"] == pytest.approx(flows["fct_s"].mean())
    assert row["fct_p99_s"] == pytest.approx(np.quantile(flows["fct_s"].to_numpy(), 0.99))

    buckets = pl.read_parquet(rep / "size_buckets.parquet")
    assert buckets["bucket"].unique(maintain_order=True).to_list() == ["<100KB", "100KB-1MB", ">=1MB"]
    assert buckets.height == 4 * 3 * 4  # groups x buckets x (mean, p50, p99, p99.9)
    assert set(buckets["metric"]) == {"slowdown"}  # the core reports slowdown per flow
    small = flows.filter(pl.col("size_bytes") < 100_000)["slowdown"].to_numpy()
    cell = buckets.filter((pl.col("group") == row["group"]) & (pl.col("bucket") == "<100KB") & (pl.col("stat") == "p99")).row(
        0, named=True
    )
    assert cell["pooled"] == pytest.approx(np.quantile(small, 0.99))
    assert cell["samples"] == 16 and cell["runs"] == 2 and cell["unfinished"] == 0
    assert cell["run_min"] <= cell["run_mean"] <= cell["run_max"] and cell["run_min"] < cell["run_max"]

    # p99 FCT per bucket: the p99 of each run, averaged over the group's runs
    fct = pl.read_parquet(rep / "fct_by_size.parquet").filter(
        (pl.col("group") == row["group"]) & (pl.col("bucket") == "<100KB") & (pl.col("stat") == "p99")
    )
    index = pl.read_parquet(sweep_dir / layout.INDEX).filter(
        (pl.col("transport.cc") == "cubic") & (pl.col("switch.buffer") == "8pkt")
    )
    per_seed = []
    for h in index["hash"]:
        small = pl.read_parquet(sweep_dir / layout.RUNS / h / "flows.parquet").filter(pl.col("size_bytes") < 100_000)
        per_seed.append(np.quantile(small["fct_s"].to_numpy(), 0.99))
    assert fct["run_mean"][0] == pytest.approx(np.mean(per_seed))
    assert fct["run_min"][0] == pytest.approx(min(per_seed)) and fct["run_max"][0] == pytest.approx(max(per_seed))
    assert "### p99 FCT by flow size" in md
    line = next(ln for ln in md.splitlines() if ln.startswith("| cubic | 8pkt |"))
    assert f"{np.mean(per_seed) * 1e3:.4g} ± " in line.split("|")[3]

    tp = pl.read_parquet(rep / "throughput_time.parquet")
    assert set(tp["runs"]) == {2} and (tp["min_bps"] <= tp["mean_bps"]).all() and (tp["mean_bps"] <= tp["max_bps"]).all()
    queues = pl.read_parquet(rep / "queues.parquet")
    q8 = queues.filter((pl.col("group") == row["group"]) & (pl.col("stat") == "p99.9"))["pooled"][0]
    assert q8 <= 8 * 1500  # the 8-packet buffer bounds the queue


def test_by_one_key_pools_the_other(sweep_dir, tmp_path):
    result = compare([sweep_dir], tmp_path / "rep", by=["switch.buffer"], plots=False)
    assert result.groups == ["switch.buffer=8pkt", "switch.buffer=64pkt"]
    groups = result.tables["groups"]
    assert groups["runs"].to_list() == [4, 4]
    assert not list((tmp_path / "rep").glob("*.png"))
    by_seed = compare([sweep_dir], tmp_path / "rep2", by=["seed"], plots=False)
    assert by_seed.groups == ["seed=1", "seed=2"]


def remark(run):
    """The marker a core that wrote these files would have written (a run folder is complete
    only while its files are those its marker lists, at their sizes)."""
    from corral.outdir import files_below, write_marker

    write_marker(run, "run", files_below(run))


def test_missing_columns_degrade_with_a_note(sweep_dir, tmp_path):
    older = tmp_path / "older"  # run folders of a core without the FCT columns
    shutil.copytree(sweep_dir, older)
    for run in (older / layout.RUNS).iterdir():
        flows = pl.read_parquet(run / "flows.parquet")
        newer = ["tenant", "class", "ideal_fct_s", "slowdown", "deadline_s", "deadline_met"]
        flows.drop([c for c in newer if c in flows.columns]).write_parquet(run / "flows.parquet")
        for table in ("latency.parquet", "throughput_class.parquet"):
            (run / table).unlink(missing_ok=True)
        remark(run)
    result = compare([older], tmp_path / "rep", plots=False)
    notes = " ".join(result.notes)
    assert "No `slowdown` column" in notes and "FCT in seconds instead" in notes and "No `class`" in notes
    assert "slowdown_by_class" not in result.tables


def test_newer_core_columns_are_used_when_present(sweep_dir, tmp_path):
    newer = tmp_path / "newer"
    shutil.copytree(sweep_dir, newer)
    for run in (newer / layout.RUNS).iterdir():
        flows = pl.read_parquet(run / "flows.parquet")
        ideal = pl.col("size_bytes") * 8 / 1e9
        flows = flows.with_columns(
            ideal.alias("ideal_fct_s"),
            (pl.col("fct_s") / ideal).alias("slowdown"),
            pl.when(pl.col("size_bytes") < 100_000).then(pl.lit("query")).otherwise(pl.lit("bulk")).alias("class"),
            (pl.col("fct_s") < 0.01).alias("deadline_met"),
        )
        flows.write_parquet(run / "flows.parquet")
        pl.DataFrame({"time_s": [0.001, 0.002], "latency_s": [1e-5, 3e-5]}).write_parquet(run / "latency.parquet")
        remark(run)
    result = compare([newer], tmp_path / "rep")
    assert set(result.tables["size_buckets"]["metric"]) == {"slowdown"}
    assert (tmp_path / "rep" / "slowdown_by_class.csv").is_file()
    by_class = result.tables["slowdown_by_class"]
    assert set(by_class["class"]) == {"query", "bulk"}
    groups = result.tables["groups"]
    assert {"slowdown_mean", "slowdown_p99", "deadline_met_frac"} <= set(groups.columns)
    assert (groups["slowdown_mean"] >= 1).all() and groups["deadline_met_frac"].is_between(0, 1).all()
    per_class = result.tables["throughput_time_by_class"]
    total = result.tables["throughput_time"]
    summed = per_class.group_by("group", "time_s").agg(pl.col("mean_bps").sum())
    check = total.join(summed, on=["group", "time_s"], suffix="_classes")
    assert check.height == total.height
    assert check["mean_bps_classes"].to_numpy() == pytest.approx(check["mean_bps"].to_numpy())
    assert (tmp_path / "rep" / "latency_cdf.png").is_file()
    assert result.tables["latency"].filter(pl.col("stat") == "mean")["pooled"][0] == pytest.approx(2e-5)
    assert not any("slowdown" in n for n in result.notes)


def test_run_folders_and_incomplete_sweeps(sweep_dir, tmp_path):
    single = tmp_path / "single"
    corral.run(SIZED).write(single, plots=False)
    partial = tmp_path / "partial"
    run_sweep(write_sweep(tmp_path / "p"), partial, workers=1, processes=False, limit=2)
    result = compare([single, partial], tmp_path / "rep", plots=False)
    assert result.by[0] == "source"
    runs = result.tables["runs"]
    assert runs.height == 9 and runs.filter(pl.col("status") == "missing").height == 6
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "3 compared, 0 failed, 6 missing" in md and "## Runs not compared" in md


def test_a_failed_compare_leaves_no_report(sweep_dir, tmp_path, monkeypatch):
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "keep.txt").write_text("earlier report")
    (rep / ".corral-output.json").write_text('{"kind": "report", "files": ["keep.txt"]}')
    with pytest.raises(CompareError, match="--by nope: not a swept key"):
        compare([sweep_dir], rep, by=["nope"])
    from corral.compare import figures

    def broken(*args, **kwargs):
        raise RuntimeError("plotting failed")

    monkeypatch.setattr(figures, "throughput_plot", broken)
    with pytest.raises(RuntimeError, match="plotting failed"):
        compare([sweep_dir], rep)
    assert [p.name for p in tmp_path.iterdir()] == ["rep"]  # no temporary sibling left
    assert sorted(p.name for p in rep.iterdir()) == [".corral-output.json", "keep.txt"]


def test_compare_cli(sweep_dir, tmp_path):
    proc = corral_cli(
        "compare", sweep_dir, "-o", tmp_path / "rep", "--by", "transport.cc", "--buckets", "20KB,200KB,1MB", "--no-plots"
    )
    assert proc.returncode == 0, proc.stderr
    assert "2 group(s) by transport.cc" in proc.stdout
    buckets = pl.read_csv(tmp_path / "rep" / "size_buckets.csv")
    assert buckets["bucket"].unique(maintain_order=True).to_list() == ["20KB-200KB", "200KB-1MB", ">=1MB"]
    bad = corral_cli("compare", tmp_path / "nothing", "-o", tmp_path / "rep2")
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and "no such folder" in bad.stderr
    bad = corral_cli("compare", sweep_dir, "-o", tmp_path / "rep2", "--buckets", "1MB,abc")
    assert bad.returncode == 2 and "--buckets" in bad.stderr
    assert not (tmp_path / "rep2").exists()


def test_traffic_goodput_comes_from_the_class_table(tmp_path):
    """`[[traffic]]` flows have no per-flow series: compare adds their class series (total
    `*` and per class) to the `[[flows]]` flows' per-flow series."""
    mixed = (
        SIZED
        + """
[[traffic]]
pattern = "all_to_all"
size = "20KB"
rate = 3000.0
class = "web"
"""
    )
    run = tmp_path / "run"
    corral.run(mixed).write(run, plots=False)
    tc = pl.read_parquet(run / "throughput_class.parquet")
    tp = pl.read_parquet(run / "throughput.parquet")
    assert tc.filter(pl.col("class") == "web")["bytes"].sum() > 0
    result = compare([run], tmp_path / "rep", plots=False)
    total = result.tables["throughput_time"]
    expected = (
        pl.concat([tp.select("time_s", "goodput_bps"), tc.filter(pl.col("class") == "*").select("time_s", "goodput_bps")])
        .group_by("time_s")
        .agg(pl.col("goodput_bps").sum())
        .sort("time_s")
    )
    assert total["time_s"].to_list() == expected["time_s"].to_list()
    assert total["mean_bps"].to_numpy() == pytest.approx(expected["goodput_bps"].to_numpy())
    per_class = result.tables["throughput_time_by_class"]
    assert set(per_class["class"]) == {"", "web"}  # the [[flows]] flows have no class
    web = per_class.filter(pl.col("class") == "web").sort("time_s")
    assert web["mean_bps"].sum() == pytest.approx(tc.filter(pl.col("class") == "web")["goodput_bps"].sum())
    summed = per_class.group_by("time_s").agg(pl.col("mean_bps").sum()).sort("time_s")
    assert summed["mean_bps"].to_numpy() == pytest.approx(total["mean_bps"].to_numpy())
    assert any("per flow tenant left out" in n for n in result.notes)


def test_fct_sweep_in_small_through_the_cli(tmp_path):
    """The shipped FCT study (scenarios/fct/sweep.toml) in miniature: 30 ms, load 0.5,
    NewReno vs DCTCP, one seed, through `corral sweep` and `corral compare`."""
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(f"""
scenario = "{(FCT_SCENARIOS / "websearch_fattree.toml").as_posix()}"
seeds = [1]
[set]
duration = "30ms"
"traffic.0.load" = 0.5
[[zip]]
"transport.cc" = ["newreno", "dctcp"]
"transport.ecn" = [false, true]
""")
    proc = corral_cli("sweep", sweep, "-o", tmp_path / "fct", "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    proc = corral_cli("compare", tmp_path / "fct", "-o", tmp_path / "rep", "--by", "transport.cc", "--no-plots")
    assert proc.returncode == 0, proc.stderr
    p99 = pl.read_csv(tmp_path / "rep" / "fct_by_size.csv").filter(pl.col("stat") == "p99")
    small = p99.filter(pl.col("bucket") == "<100KB").sort("group_i")
    assert small["group"].to_list() == ["transport.cc=newreno", "transport.cc=dctcp"]
    assert (small["samples"] > 20).all() and (small["run_mean"] > 0).all()
    md = (tmp_path / "rep" / "report.md").read_text()
    table = md.split("### p99 FCT by flow size")[1]
    assert "| transport.cc | <100KB |" in table
    assert "| newreno |" in table and "| dctcp |" in table
    tp = pl.read_csv(tmp_path / "rep" / "throughput_time.csv")  # from throughput_class.parquet
    assert tp["group"].n_unique() == 2 and tp["mean_bps"].max() > 1e9


def test_sweep_file_of_the_fct_study_resolves(tmp_path):
    from corral.sweep import load

    sweep = load(FCT_SCENARIOS / "sweep.toml")
    points = sweep.points()
    assert len(points) == 27
    assert {(p.values["transport.cc"], p.values["transport.ecn"]) for p in points} == {
        ("newreno", False),
        ("cubic", False),
        ("dctcp", True),
    }


def test_the_statistics_are_the_same_bytes_on_every_call(sweep_dir, tmp_path):
    """The report's tables sum in one order: two reports of the same runs are byte-identical
    (the throughput spread's std_bps changed in its last digit before)."""
    first = compare([sweep_dir], tmp_path / "a", plots=False)
    for i in range(3):
        compare([sweep_dir], tmp_path / f"b{i}", plots=False)
        for name in first.tables:
            a = (tmp_path / "a" / f"{name}.parquet").read_bytes()
            assert (tmp_path / f"b{i}" / f"{name}.parquet").read_bytes() == a, name


def test_no_finished_flow_is_named_as_the_reason_not_an_older_corral(tmp_path):
    """Runs whose flows are all unbounded have slowdown and FCT columns full of nulls: the
    report says no flow finished, not that the runs are of an older corral."""
    from conftest import TINY

    scenario = tmp_path / "s.toml"
    scenario.write_text(TINY)
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('scenario = "s.toml"\nseeds = 1\n[grid]\n"transport.cc" = ["newreno", "cubic"]\n')
    result = run_sweep(sweep, tmp_path / "sw", workers=1)
    assert result.counts.failed == 0
    report = compare([tmp_path / "sw"], tmp_path / "rep", by=["transport.cc"], plots=False)
    notes = " ".join(report.notes)
    assert "no flow finished" in notes and "older corral" not in notes, notes
