"""The run folder: every documented file and column, determinism, and --set overrides."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import corral
import polars as pl
import pytest
from conftest import TINY, corral_cli
from corral.tables import SCHEMAS, summary_fields, to_frame

PARQUET = [f"{name}.parquet" for name in SCHEMAS]
# The keys every summary has (the others are present in some runs only: see summary_fields).
SUMMARY_KEYS = {name for name, _, when in summary_fields() if when.startswith("always")}


def documented_schema(frame: pl.DataFrame, table: str) -> dict:
    """The frame's leading columns (the documented ones; a newer core may append more)."""
    return dict(list(frame.schema.items())[: len(SCHEMAS[table])])


@pytest.fixture(scope="module")
def run_dirs(tmp_path_factory) -> tuple[Path, Path]:
    """The tiny scenario run twice through the CLI into two folders."""
    base = tmp_path_factory.mktemp("outputs")
    scenario = base / "tiny.toml"
    scenario.write_text(TINY)
    dirs = base / "run1", base / "run2"
    for out in dirs:
        proc = corral_cli("run", scenario, "-o", out)
        assert proc.returncode == 0, proc.stderr
    return dirs


def test_all_files_exist(run_dirs) -> None:
    out = run_dirs[0]
    expected = {*PARQUET, "summary.json", "timing.json", "scenario.json", "throughput_bars.png", "throughput_time.png"}
    assert expected <= {p.name for p in out.iterdir()}


@pytest.mark.parametrize("table", list(SCHEMAS))
def test_parquet_has_documented_columns_and_dtypes(run_dirs, table: str) -> None:
    frame = pl.read_parquet(run_dirs[0] / f"{table}.parquet")
    assert documented_schema(frame, table) == SCHEMAS[table]


def test_summary_json(run_dirs) -> None:
    summary = json.loads((run_dirs[0] / "summary.json").read_text())
    assert SUMMARY_KEYS <= set(summary)
    assert summary["scenario"] == "tiny" and summary["seed"] == 1
    assert summary["sim_time_s"] == pytest.approx(0.020)
    assert summary["corral_version"] == corral.__version__
    scenario = json.loads((run_dirs[0] / "scenario.json").read_text())
    assert scenario["duration"] and scenario["topology"]["kind"] == "dumbbell"


def test_same_scenario_and_seed_gives_identical_files_but_timing(run_dirs) -> None:
    first, second = run_dirs
    for name in [*PARQUET, "summary.json", "scenario.json"]:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    timing = json.loads((first / "timing.json").read_text())
    assert timing["wall_time_s"] > 0 and timing["events_per_s"] > 0 and timing["scheme"] is None


def test_summary_keys_are_the_declared_fields_in_both_engines() -> None:
    declared = {name for name, _, _ in summary_fields()}
    for mode in ("packet", "fluid"):
        res = corral.run(TINY, overrides=[f'mode="{mode}"'])
        assert SUMMARY_KEYS <= set(res.summary) <= declared, mode
        assert res.summary["mode"] == mode


def test_tables_are_consistent(run_dirs) -> None:
    out = run_dirs[0]
    flows = pl.read_parquet(out / "flows.parquet")
    throughput = pl.read_parquet(out / "throughput.parquet")
    ports = pl.read_parquet(out / "ports.parquet")
    summary = json.loads((out / "summary.json").read_text())
    assert flows.height == 2
    assert flows["tag"].to_list() == ["long", "long"]
    assert (flows["bytes_delivered"] > 0).all()
    assert flows["size_bytes"].is_null().all()  # unbounded
    assert flows["finish_s"].is_null().all()  # unbounded flows never finish
    # the interval samples add up to what each flow delivered by the end of the run
    per_flow = throughput.group_by("flow_id").agg(pl.col("bytes").sum()).sort("flow_id")
    assert per_flow["bytes"].to_list() == flows.sort("flow_id")["bytes_delivered"].to_list()
    assert throughput["time_s"].max() == pytest.approx(0.020)
    # a packet counts in tx_bytes once it starts serializing, so a port may exceed 100% by
    # at most one in-flight packet (1500 B plus headers) at the end of the run
    one_packet = 8 * 1600 / (ports["rate_bps"] * summary["sim_time_s"])
    assert ((ports["utilization"] >= 0) & (ports["utilization"] <= 1.0 + one_packet)).all()
    # every packet sent was delivered, dropped, or is still on its way
    assert summary["packets_sent"] == (summary["packets_delivered"] + summary["packets_dropped"] + summary["packets_in_flight"])


def test_arrived_bytes_count_a_byte_once_when_it_first_reaches_the_receiver() -> None:
    # Two finite NewReno flows into a 32-packet taildrop queue lose packets and retransmit.
    # `bytes` (in-order goodput) counts data held above a hole when the retransmission fills
    # it; `arrived_bytes` counts it when it arrived, and never a duplicate: over the run both
    # sum to each flow's size though the senders sent more, and some interval releases more
    # in order than reached the receiver in it.
    res = corral.run(TINY, overrides=["flows.0.size=1MB"])
    flows = res.flows.sort("flow_id")
    assert (flows["retransmits"] > 0).all() and flows["finish_s"].is_not_null().all()
    per_flow = res.throughput.group_by("flow_id").agg(pl.col("bytes").sum(), pl.col("arrived_bytes").sum()).sort("flow_id")
    assert per_flow["arrived_bytes"].to_list() == per_flow["bytes"].to_list() == flows["size_bytes"].to_list()
    assert (res.throughput["bytes"] > res.throughput["arrived_bytes"]).any()
    assert (res.throughput["arrived_bytes"] > res.throughput["bytes"]).any()
    # A fluid flow neither loses nor reorders: both columns are the same.
    fluid = corral.run(TINY, overrides=["mode=fluid"]).throughput
    assert fluid["arrived_bytes"].to_list() == fluid["bytes"].to_list()


def test_set_override_changes_the_result(tiny_file: Path, tmp_path: Path, run_dirs) -> None:
    out = tmp_path / "short"
    proc = corral_cli("run", tiny_file, "-o", out, "--set", "duration=10ms", "--set", "seed=7")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sim_time_s"] == pytest.approx(0.010)
    assert summary["seed"] == 7
    assert json.loads((out / "scenario.json").read_text())["seed"] == 7
    assert (out / "flows.parquet").read_bytes() != (run_dirs[0] / "flows.parquet").read_bytes()


def test_cli_prints_a_summary(tiny_file: Path, tmp_path: Path) -> None:
    proc = corral_cli("run", tiny_file, "-o", tmp_path / "o", "--no-plots")
    assert proc.returncode == 0, proc.stderr
    assert "tiny" in proc.stdout and "Jain" in proc.stdout
    assert not list((tmp_path / "o").glob("*.png"))


def test_rerun_replaces_corral_s_files_and_keeps_the_user_s(tiny_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    assert corral_cli("run", tiny_file, "-o", out).returncode == 0
    (out / "mine.txt").write_text("old")  # a file the user put in a corral run folder stays
    (out / "queues.png").unlink()
    assert corral_cli("run", tiny_file, "-o", out).returncode == 0
    assert (out / "mine.txt").read_text() == "old"
    assert (out / "flows.parquet").exists() and (out / "queues.png").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o", "tiny.toml"]


def test_version_command() -> None:
    proc = corral_cli("version")
    assert proc.returncode == 0 and corral.__version__ in proc.stdout


# ------------------------------------------------------------------------------ Python API


def test_run_api_returns_typed_frames_and_reports_progress() -> None:
    calls: list[tuple[int, int]] = []
    res = corral.run(TINY, overrides=["switch.buffer=100000pkt"], progress=lambda n, d: calls.append((n, d)))
    assert isinstance(res, corral.Results)
    for name, frame in res.tables().items():
        assert documented_schema(frame, name) == SCHEMAS[name]
    # a buffer this large drops nothing, and the empty table keeps its schema
    assert res.drops.height == 0 and res.drops.schema == pl.Schema(SCHEMAS["drops"])
    duration = calls[-1][1]
    assert calls[-1][0] >= duration == round(0.020e12)
    assert 90 <= len(calls) <= 101
    assert [n for n, _ in calls] == sorted(n for n, _ in calls)
    assert res.timing["wall_time_s"] > 0 and res.timing["events_per_s"] > 0 and "wall_time_s" not in res.summary


def test_runs_are_deterministic_in_memory() -> None:
    a, b = corral.run(TINY), corral.run(TINY)
    for name in SCHEMAS:
        assert a.tables()[name].equals(b.tables()[name]), name
    c = corral.run(TINY, overrides=["seed=2", "flows.0.jitter=50us"])
    assert not a.flows.equals(c.flows)


def test_columns_handed_over_as_bytes_and_codes_decode_to_their_values() -> None:
    import array

    from corral.tables import column

    def le(code: str, items: list) -> bytearray:
        a = array.array(code, items)
        if sys.byteorder != "little":
            a.byteswap()
        return bytearray(a.tobytes())

    assert column(("int", le("q", [3, -1, 7]))).to_list() == [3, -1, 7]
    assert column(("float", le("d", [0.5, 0.0, 2.5]), bytearray([1, 0, 1]))).to_list() == [0.5, None, 2.5]
    assert column(("int", le("q", [3, -1, 7]), bytearray([0, 1, 1]))).to_list() == [None, -1, 7]
    assert column(("cat", ["h0", "h1"], le("I", [1, 0, 1, 1]))).to_list() == ["h1", "h0", "h1", "h1"]
    assert column(("cat", [], bytearray())).dtype == pl.Utf8
    assert column(["a", None]) == ["a", None]
    # A fluid run's flows table comes over this way and keeps its documented dtypes.
    res = corral.run(TINY, overrides=["mode=fluid"])
    assert res.flows.schema == pl.Schema(SCHEMAS["flows"]) and res.flows.height > 0
    assert res.flows["transport"].unique().to_list() == ["fluid"]


def test_empty_tables_keep_their_schema() -> None:
    for name, schema in SCHEMAS.items():
        assert to_frame(name, {}).schema == pl.Schema(schema)
        assert to_frame(name, None).height == 0


# ------------------------------------------------------------------- [[traffic]] workloads

WORKLOAD = """
name = "workload"
duration = "10ms"
[topology]
kind = "fat_tree"
k = 4
link_rate = "10Gbps"
[switch]
buffer = "300pkt"
queue = "ecn"
ecn_threshold = "65pkt"
[transport]
cc = "dctcp"
ecn = true
min_rto = "1ms"
[[traffic]]
pattern = "all_to_all"
size = { cdf = "websearch" }
load = 0.5
class = "web"
deadline = "5ms"
[[traffic]]
pattern = "trace"
file = "FILE"
class = "listed"
[metrics]
latency_sample_every = 20
size_buckets = ["50KB", "1MB"]
"""


def test_traffic_run_writes_fct_columns_and_tables(tmp_path: Path) -> None:
    # A Parquet flow list, converted by the Python layer.
    pl.DataFrame(
        {"src": ["h1", "h4"], "dst": ["h0", "h9"], "size": [20_000, 3_000], "start": [0.001, 0.002], "tenant": ["t1", "t2"]}
    ).write_parquet(tmp_path / "flows.parquet")
    scenario = tmp_path / "w.toml"
    scenario.write_text(WORKLOAD.replace("FILE", "flows.parquet"))
    out = tmp_path / "out"
    proc = corral_cli("run", scenario, "-o", out, "--no-plots")
    assert proc.returncode == 0, proc.stderr
    flows = pl.read_parquet(out / "flows.parquet")
    for col in ("tenant", "class", "ideal_fct_s", "slowdown", "deadline_s", "deadline_met"):
        assert col in flows.columns
    assert flows["deadline_met"].dtype == pl.Boolean
    listed = flows.filter(pl.col("class") == "listed").sort("start_s")
    assert listed["tenant"].to_list() == ["t1", "t2"]
    assert listed["size_bytes"].to_list() == [20_000, 3_000]
    assert listed["deadline_s"].null_count() == 2
    web = flows.filter(pl.col("class") == "web")
    assert web.height > 20
    assert (web["deadline_s"] - web["start_s"] - 0.005).abs().max() < 1e-9
    done = flows.filter(pl.col("slowdown").is_not_null())
    assert done.height > 0 and done["slowdown"].min() >= 1.0 - 1e-9
    classes = pl.read_parquet(out / "throughput_class.parquet")
    assert set(classes["class"]) == {"web", "listed", "*"}
    assert classes.height == 3 * 10
    latency = pl.read_parquet(out / "latency.parquet")
    assert latency.height > 0 and latency["latency_s"].min() > 0
    summary = json.loads((out / "summary.json").read_text())
    assert [b["bucket"] for b in summary["fct_by_size"]] == ["<50KB", "50KB-1MB", ">=1MB"]
    assert set(summary["fct_by_class"]) == {"web", "listed"}
    assert summary["deadline_miss_ratio"] is not None


def test_websearch_scenario_is_valid(tmp_path: Path) -> None:
    res = corral.run(
        Path(corral.__file__).parent / "scenarios" / "fct" / "websearch_fattree.toml",
        overrides=["duration=10ms"],
    )
    assert res.flows.height > 10
    assert res.throughput.height == 0
    assert res.throughput_class.height == 2 * 10
    res.write(tmp_path / "run")
    assert (tmp_path / "run" / "fct_slowdown.png").is_file()
    assert not (tmp_path / "run" / "throughput_time.png").exists()


def test_terminal_summary_lists_a_capped_number_of_tags(tmp_path: Path) -> None:
    """2,000 tags print a dozen rows and a count of the rest; flows.parquet keeps all."""
    from corral.cli import MAX_TAG_ROWS

    head = TINY.split("[[flows]]")[0]
    flows = "".join(f'[[flows]]\nsrc = "h0"\ndst = "h2"\nsize = "10KB"\ntag = "t{i}"\n' for i in range(2000))
    flows += '[[flows]]\nsrc = ["h0", "h1"]\ndst = "h2"\nsize = "10KB"\ntag = "big"\n'
    scenario = tmp_path / "tags.toml"
    scenario.write_text(head + flows)
    proc = corral_cli("run", scenario, "-o", tmp_path / "out", "--no-plots")
    assert proc.returncode == 0, proc.stderr
    tag_rows = [line for line in proc.stdout.splitlines() if "flows '" in line]
    assert len(tag_rows) == MAX_TAG_ROWS and any("flows 'big' (2)" in r for r in tag_rows), proc.stdout
    assert f"{2001 - MAX_TAG_ROWS:,} more tags" in proc.stdout
    assert pl.read_parquet(tmp_path / "out" / "flows.parquet")["tag"].n_unique() == 2001


def test_a_parquet_flow_list_reads_its_typed_cells_as_the_same_csv_reads(tmp_path: Path) -> None:
    """Numbers go to the core as numbers (no text round trip); text cells read as in a CSV."""
    rows = {
        "src": ["h1", "h4", "h2"],
        "dst": ["h0", "h9", "h3"],
        "size": [20_000, 3_000, 150_000],
        "start": [0.001, 0.0025, 0.0],
        "priority": [1, None, 0],
        "weight": [2.0, 1.0, 0.5],
        "tenant": ["a", None, "b"],
    }
    pl.DataFrame(rows).write_parquet(tmp_path / "typed.parquet")
    (tmp_path / "same.csv").write_text(
        "src,dst,size,start,priority,weight,tenant\nh1,h0,20000,0.001,1,2.0,a\nh4,h9,3000,0.0025,,1.0,\nh2,h3,150KB,0,0,0.5,b\n"
    )
    pl.DataFrame({**rows, "size": ["20000", "3KB", "150_000"]}).write_parquet(tmp_path / "text.parquet")
    flows = {}
    for name in ("typed.parquet", "same.csv", "text.parquet"):
        (tmp_path / "w.toml").write_text(WORKLOAD.replace("FILE", name).replace("load = 0.5", "load = 0.01"))
        res = corral.run(corral.Scenario.load(tmp_path / "w.toml"))
        flows[name] = res.flows.filter(pl.col("class") == "listed").select(
            "src", "dst", "size_bytes", "start_s", "priority", "weight", "tenant"
        )
    assert flows["typed.parquet"].equals(flows["same.csv"])
    assert flows["text.parquet"].equals(flows["same.csv"])
    assert sorted(flows["same.csv"]["size_bytes"].to_list()) == [3_000, 20_000, 150_000]
    pl.DataFrame({**rows, "size": [20_000.0, 1.5, 3.0]}).write_parquet(tmp_path / "bad.parquet")
    (tmp_path / "w.toml").write_text(WORKLOAD.replace("FILE", "bad.parquet"))
    with pytest.raises(corral.ScenarioError, match=r"row 2: size: expected a whole number of bytes, got 1.5"):
        corral.run(corral.Scenario.load(tmp_path / "w.toml"))
