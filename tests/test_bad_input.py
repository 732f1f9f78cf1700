"""Malformed scenarios and overrides must fail early with a ScenarioError naming the key.

The corpus of `bad_inputs.py` (270 inputs across every section, overrides, sweep files and
the `Scenario` API) must each give a clean error: the key named, TOML's words, no Rust
type names. The cases below it check particular messages. Each starts from one valid k=4
fat-tree scenario and breaks one thing. The error must
name the offending key path (list indices may be written `flows[0]` or `flows.0`), and
unknown keys must suggest the nearest valid name. The CLI must turn the same errors into
`error: ...` on stderr, exit status 2, no traceback and no output folder.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import corral
import pytest
from bad_inputs import CLEAN, TRAFFIC, VALID, cases, judge
from conftest import TINY, corral_cli
from corral import plots

CORPUS = cases()


@pytest.mark.parametrize("case", CORPUS, ids=[c.id for c in CORPUS])
def test_every_bad_input_gives_a_clean_error_naming_the_key(case) -> None:
    heap, message = judge(case)
    assert heap == CLEAN, f"{case.area} {case.id}: {heap}: {message!r} (must name {case.key!r} and hold {case.must})"


def test_the_corpus_covers_every_part_of_the_input() -> None:
    areas = {c.area.split(".")[0] for c in CORPUS}
    assert len(CORPUS) >= 153
    for area in ("top", "topology", "switch", "host", "network", "transport", "control", "metrics", "flows", "traffic"):
        assert area in areas, area
    for area in ("rpc", "routing", "events", "scheme", "override", "sweep", "api"):
        assert area in areas, area


def edit(old: str, new: str) -> str:
    assert old in VALID, old
    return VALID.replace(old, new, 1)


# (id, scenario text, overrides, substrings the message must contain)
CASES = [
    ("unit-typo-rate", edit('"1Gbps"', '"1Gbs"'), [], ["topology.link_rate"]),
    ("negative-rate", edit('"1Gbps"', '"-1Gbps"'), [], ["topology.link_rate"]),
    ("odd-k", edit("k = 4", "k = 3"), [], ["topology.k"]),
    ("unknown-top-level-key", 'duraton = "1s"\n' + VALID, [], ["duraton", "did you mean", "duration"]),
    ("unknown-nested-key", edit('buffer = "16KB"', 'bufer = "16KB"'), [], ["switch.bufer", "did you mean", "buffer"]),
    ("unknown-host-dst", edit('dst = "h0"', 'dst = "h99"'), [], ["flows.0.dst", "h99"]),
    ("unknown-host-in-list", edit('src = "h1"', 'src = ["h1", "h16"]'), [], ["flows.0.src", "h16"]),
    ("switch-as-src", edit('src = "h1"', 'src = "tor0"'), [], ["flows.0.src", "tor0"]),
    ("zero-buffer", edit('buffer = "16KB"', 'buffer = "0KB"'), [], ["switch.buffer"]),
    (
        "buffer-below-one-packet",
        edit('buffer = "16KB"', 'buffer = "1000B"'),
        [],
        ["switch.buffer", "one full-size packet", "1500"],
    ),
    ("host-buffer-below-one-packet", VALID, ["host.buffer=1KB"], ["host.buffer", "one full-size packet"]),
    ("duration-missing", edit('duration = "10ms"', ""), [], ["duration"]),
    ("duration-zero", edit('duration = "10ms"', 'duration = "0s"'), [], ["duration"]),
    ("duration-bad-unit", edit('duration = "10ms"', 'duration = "10 parsecs"'), [], ["duration"]),
    ("bad-cc", edit('cc = "newreno"', 'cc = "newrenoo"'), [], ["transport.cc", "newrenoo"]),
    ("ecn-without-threshold", edit('queue = "taildrop"', 'queue = "ecn"'), [], ["switch.ecn_threshold"]),
    (
        "red-table-with-taildrop",
        edit('queue = "taildrop"', 'queue = "taildrop"\n[switch.red]\nw_q = 0.01'),
        [],
        ["switch.red", "red"],
    ),
    (
        "red-max-below-min",
        edit('queue = "taildrop"', 'queue = "red"\n[switch.red]\nmin_th = "10pkt"\nmax_th = "5pkt"'),
        [],
        ["switch.red.max_th"],
    ),
    (
        "red-mixed-units",
        edit('queue = "taildrop"', 'queue = "red"\n[switch.red]\nmin_th = "5KB"\nmax_th = "15pkt"'),
        [],
        ["switch.red.max_th", "unit"],
    ),
    ("red-bad-wq", edit('queue = "taildrop"', 'queue = "red"\n[switch.red]\nw_q = 0'), [], ["switch.red.w_q"]),
    ("red-bad-mode", edit('queue = "taildrop"', 'queue = "red"\n[switch.red]\nmode = "paint"'), [], ["switch.red.mode"]),
    (
        "red-unknown-key",
        edit('queue = "taildrop"', 'queue = "red"\n[switch.red]\nmin_thresh = "5pkt"'),
        [],
        ["switch.red.min_thresh", "min_th"],
    ),
    ("sfq-zero-buckets", edit('queue = "taildrop"', 'queue = "sfq"\n[switch.sfq]\nbuckets = 0'), [], ["switch.sfq.buckets"]),
    ("sfq-bad-drop", edit('queue = "taildrop"', 'queue = "sfq"\n[switch.sfq]\ndrop = "middle"'), [], ["switch.sfq.drop"]),
    ("sfq-table-with-drr", edit('queue = "taildrop"', 'queue = "drr"\n[switch.sfq]\nbuckets = 4'), [], ["switch.sfq"]),
    ("drr-zero-quantum", edit('queue = "taildrop"', 'queue = "drr"\n[switch.drr]\nquantum = "0B"'), [], ["switch.drr.quantum"]),
    (
        "priority-too-many-classes",
        edit('queue = "taildrop"', 'queue = "priority"\n[switch.priority]\nclasses = 9'),
        [],
        ["switch.priority.classes"],
    ),
    (
        "priority-ecn-without-threshold",
        edit('queue = "taildrop"', 'queue = "priority"\n[switch.priority]\nclass = "ecn"'),
        [],
        ["switch.ecn_threshold"],
    ),
    (
        "shared-without-size",
        edit('queue = "taildrop"', 'queue = "taildrop"\nbuffer_model = "shared"'),
        [],
        ["switch.shared_buffer"],
    ),
    (
        "shared-size-per-port",
        edit('queue = "taildrop"', 'queue = "taildrop"\nshared_buffer = "1MB"'),
        [],
        ["switch.shared_buffer", "shared"],
    ),
    (
        "shared-bad-alpha",
        edit('queue = "taildrop"', 'queue = "taildrop"\nbuffer_model = "shared"\nshared_buffer = "1MB"\nalpha = -1.0'),
        [],
        ["switch.alpha"],
    ),
    ("unknown-routing", edit('kind = "static"', 'kind = "ecmpp"'), [], ["routing.kind", "ecmp"]),
    ("unknown-topology", edit('kind = "fat_tree"', 'kind = "fattree"'), [], ["topology.kind", "fat_tree"]),
    ("bad-flow-size", edit('size = "unbounded"', 'size = "10XB"'), [], ["flows.0.size"]),
    ("tiny-mss", edit("mss = 1460", "mss = 10"), [], ["transport.mss"]),
    ("bad-queue-port", edit('["tor0:0"]', '["tor0:9"]'), [], ["metrics.queue_ports", "tor0:9"]),
    ("override-without-equals", VALID, ["topology.k"], ["topology.k", "key=value"]),
    ("override-unknown-key", VALID, ["topology.kk=4"], ["topology.kk", "did you mean"]),
    ("override-bad-value", VALID, ["switch.buffer=16KiBB"], ["switch.buffer"]),
    ("override-bad-index", VALID, ["flows.3.size=1MB"], ["flows"]),
    # [[traffic]] workloads
    (
        "unknown-workload",
        VALID + TRAFFIC.replace('"websearch"', '"websearh"'),
        [],
        ["traffic.0.size.cdf", "websearh", "did you mean"],
    ),
    ("load-zero", VALID + TRAFFIC.replace("load = 0.5", "load = 0"), [], ["traffic.0.load"]),
    ("load-negative", VALID + TRAFFIC.replace("load = 0.5", "load = -0.2"), [], ["traffic.0.load"]),
    ("load-above-capacity", VALID + TRAFFIC.replace("load = 0.5", "load = 1.2"), [], ["traffic.0.load", "(0, 1]"]),
    ("load-and-rate", VALID + TRAFFIC.replace("load = 0.5", "load = 0.5\nrate = 100.0"), [], ["traffic.0.load", "exactly one"]),
    ("traffic-size-missing", VALID + TRAFFIC.replace('size = { cdf = "websearch" }', ""), [], ["traffic.0.size", "missing"]),
    ("unknown-pattern", VALID + TRAFFIC.replace('"all_to_all"', '"all2all"'), [], ["traffic.0.pattern", "all_to_all"]),
    ("traffic-unknown-host", VALID + TRAFFIC + 'hosts = ["h1", "h42"]\n', [], ["traffic.0.hosts.1", "h42"]),
    (
        "pareto-shape",
        VALID + TRAFFIC.replace('{ cdf = "websearch" }', '{ kind = "pareto", shape = 0.9, mean = "10KB" }'),
        [],
        ["traffic.0.size.shape"],
    ),
    ("rate-in-bytes", edit('"1Gbps"', '"1GBps"'), [], ["topology.link_rate", "bytes per second", '"8Gbps"']),
    (
        "ecn-threshold-above-buffer",
        edit('queue = "taildrop"', 'queue = "ecn"\necn_threshold = "20pkt"'),
        [],
        ["switch.ecn_threshold", "switch.buffer", "drop before it marks"],
    ),
    (
        "ecn-threshold-equals-buffer",
        edit('queue = "taildrop"', 'queue = "ecn"\necn_threshold = "16KB"'),
        [],
        ["switch.ecn_threshold"],
    ),
    (
        "incast-every-host",
        VALID + TRAFFIC.replace('"all_to_all"', '"incast"') + "senders = 16\n",
        [],
        ["traffic.0.senders", "16 senders", "15 hosts"],
    ),
    ("size-buckets-order", VALID, ['metrics.size_buckets=["1MB", "100KB"]'], ["metrics.size_buckets"]),
]


def normalize(message: str) -> str:
    """`flows[0].src[1]` -> `flows.0.src.1`, so either spelling of list indices matches."""
    return re.sub(r"\[(\d+)\]", r".\1", message)


@pytest.mark.parametrize("text,overrides,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_scenario_names_the_key(text: str, overrides: list[str], expected: list[str]) -> None:
    with pytest.raises(corral.ScenarioError) as info:
        corral.run(text, overrides=overrides)
    message = normalize(str(info.value))
    for part in expected:
        assert part.lower() in message.lower(), f"{part!r} not in error message {message!r}"


def write_cdf(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "my.cdf"
    path.write_text(body)
    return path


def test_malformed_cdf_file_names_file_and_line(tmp_path: Path) -> None:
    cdf = write_cdf(tmp_path, "# sizes\n0 0\n1000 0.5\n2000 zero\n")
    text = VALID + TRAFFIC.replace('"websearch"', f'"{cdf}"')
    with pytest.raises(corral.ScenarioError) as info:
        corral.run(text)
    message = normalize(str(info.value))
    assert "traffic.0.size.cdf" in message and "my.cdf, line 4" in message, message
    write_cdf(tmp_path, "0 0\n1000 0.5\n")
    with pytest.raises(corral.ScenarioError, match="last probability must be 1"):
        corral.run(text)


def test_flow_list_missing_columns(tmp_path: Path) -> None:
    import polars as pl

    scenario = tmp_path / "s.toml"
    scenario.write_text(VALID + '[[traffic]]\npattern = "trace"\nfile = "flows.csv"\n')
    (tmp_path / "flows.csv").write_text("src,dst,start\nh1,h2,0\n")
    with pytest.raises(corral.ScenarioError) as info:
        corral.run(scenario)
    assert "traffic.0.file" in normalize(str(info.value)) and "missing column size" in str(info.value)
    scenario.write_text(VALID + '[[traffic]]\npattern = "trace"\nfile = "flows.parquet"\n')
    pl.DataFrame({"src": ["h1"], "dst": ["h2"], "size": [1000]}).write_parquet(tmp_path / "flows.parquet")
    with pytest.raises(corral.ScenarioError) as info:
        corral.run(scenario)
    assert "traffic.0.file" in normalize(str(info.value)) and "missing column start" in str(info.value)
    proc = corral_cli("run", scenario, "-o", tmp_path / "out")
    assert_user_error(proc, "traffic.0.file", "start")


def test_more_tenants_than_a_run_can_index_names_the_block(tmp_path: Path) -> None:
    # Tenant indices are 16 bits: a trace naming 65,537 distinct tenants is refused.
    scenario = tmp_path / "s.toml"
    scenario.write_text(VALID + '[[traffic]]\npattern = "trace"\nfile = "flows.csv"\n')
    rows = "".join(f"h1,h2,1000,{i}ns,t{i}\n" for i in range(65537))
    (tmp_path / "flows.csv").write_text("src,dst,size,start,tenant\n" + rows)
    from corral.api import simulation

    with pytest.raises(corral.ScenarioError) as info:
        simulation(scenario)
    assert "traffic.0.tenant" in normalize(str(info.value)) and "at most 65536" in str(info.value)


def test_invalid_toml_names_the_source(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(VALID.replace("k = 4", "k = = 4"))
    with pytest.raises(corral.ScenarioError) as info:
        corral.run(path)
    assert "broken.toml" in str(info.value)


def test_scenario_error_is_a_value_error() -> None:
    assert issubclass(corral.ScenarioError, ValueError)
    assert issubclass(corral.SimulationError, RuntimeError)


def test_missing_file_raises_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        corral.run(tmp_path / "nope.toml")
    with pytest.raises(FileNotFoundError):
        corral.run(str(tmp_path / "nope.toml"))


# ------------------------------------------------------------------------------ CLI


def assert_user_error(proc, *expected: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    for part in expected:
        assert part in normalize(proc.stderr), proc.stderr


def test_cli_bad_scenario_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(edit("k = 4", "k = 3"))
    out = tmp_path / "out"
    assert_user_error(corral_cli("run", bad, "-o", out), "topology.k")
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.toml"], "no temporary folder left behind"


def test_cli_bad_override_exits_2(tiny_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert_user_error(corral_cli("run", tiny_file, "-o", out, "--set", "topology.senders"), "topology.senders")
    assert_user_error(corral_cli("run", tiny_file, "-o", out, "--set", "topology.sendrs=3"), "did you mean")
    assert not out.exists()


def test_cli_missing_file_exits_2(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert_user_error(corral_cli("run", tmp_path / "missing.toml", "-o", out), "missing.toml")
    assert not out.exists()


def test_cli_failed_run_keeps_previous_output(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "flows.parquet").write_text("previous result")
    (out / ".corral-output.json").write_text('{"kind": "run", "files": ["flows.parquet"]}')
    bad = tmp_path / "bad.toml"
    bad.write_text(TINY.replace('"20ms"', '"0s"'))
    assert_user_error(corral_cli("run", bad, "-o", out), "duration")
    assert (out / "flows.parquet").read_text() == "previous result"


def test_cli_unknown_experiment_exits_2(tmp_path: Path) -> None:
    assert_user_error(corral_cli("reproduce", "outcats", "-o", tmp_path / "x"), "outcats")
    assert not (tmp_path / "x").exists()


def test_cli_reproduce_bad_override_exits_2(tmp_path: Path) -> None:
    out = tmp_path / "x"
    proc = corral_cli("reproduce", "outcast", "-o", out, "--quick", "--set", "switch.bufer=1KB")
    assert_user_error(proc, "switch.bufer")
    assert not out.exists()


def test_failure_while_writing_leaves_no_folder(tmp_path: Path, monkeypatch) -> None:
    res = corral.run(TINY)

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(plots, "write_run_plots", broken)
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="disk full"):
        res.write(out)
    assert list(tmp_path.iterdir()) == [], "neither the folder nor its temporary sibling may remain"


# -- messages that said the wrong thing (issue "Never delete what corral did not write ...") --


def write(folder: Path, text: str) -> Path:
    path = folder / "s.toml"
    path.write_text(text)
    return path


def test_a_path_that_is_not_a_file_says_what_it_is(tmp_path: Path) -> None:
    fifo = tmp_path / "s.toml"
    os.mkfifo(fifo)
    assert_user_error(corral_cli("run", fifo, "-o", tmp_path / "o"), "is a FIFO, not a file")
    assert_user_error(corral_cli("run", "/dev/null", "-o", tmp_path / "o"), "is a device, not a file")
    assert_user_error(corral_cli("run", tmp_path, "-o", tmp_path / "o"), "is a folder")
    assert_user_error(corral_cli("run", tmp_path / "nope.toml", "-o", tmp_path / "o"), "nope.toml: not found")
    (tmp_path / "sc").mkdir()
    (tmp_path / "sweep.toml").write_text('scenario = "sc"\n')
    assert_user_error(corral_cli("sweep", tmp_path / "sweep.toml", "-o", tmp_path / "o"), "scenario:", "is a folder")
    assert not (tmp_path / "o").exists()


def test_a_one_word_string_is_a_path_not_toml() -> None:
    with pytest.raises(FileNotFoundError, match="nonexistent: not found"):
        corral.run("nonexistent")


def test_an_unknown_key_without_a_suggestion_has_no_stray_separator(tmp_path: Path) -> None:
    proc = corral_cli(
        "run", write(tmp_path, TINY.replace('duration = "20ms"', 'duration = "20ms"\nzzzzzzzz = 1')), "-o", tmp_path / "o"
    )
    assert_user_error(proc, "zzzzzzzz: unknown key (valid keys: ")
    assert "; (" not in proc.stderr


@pytest.mark.parametrize(
    "value,expected",
    [
        ("10GBPS", 'ambiguous (bits or bytes per second?): write "10Gbps"'),
        ("1GBps", 'bytes per second; rates are in bits per second: write "8Gbps"'),
        ("1Gbit/s", 'write the unit as "Gbps"'),
    ],
)
def test_ambiguous_rates_are_refused_with_the_spelling_to_use(tmp_path: Path, value: str, expected: str) -> None:
    assert_user_error(
        corral_cli("run", write(tmp_path, TINY), "-o", tmp_path / "o", "--set", f"topology.link_rate={value}"),
        "topology.link_rate",
        expected,
    )


@pytest.mark.parametrize("value", ["1sec", "1secs", "1 second"])
def test_time_units_have_one_spelling(tmp_path: Path, value: str) -> None:
    assert_user_error(
        corral_cli("run", write(tmp_path, TINY), "-o", tmp_path / "o", "--set", f"duration={value}"),
        "duration",
        'write the unit as "s"',
    )


def test_alloc_errors_are_plain_text_and_name_the_argument() -> None:
    import corral.alloc as alloc

    with pytest.raises(ValueError) as info:
        alloc.usage({"kind": "torus", "dims": [2, 2], "link_rate": "10Gbs"}, [0], [1])
    assert str(info.value).startswith("topology.link_rate: expected a rate") and "\x01" not in str(info.value)
    with pytest.raises(ValueError, match="seed: expected an integer in 0..18446744073709551615, got -1"):
        alloc.usage({"kind": "torus", "dims": [2, 2], "link_rate": "10Gbps"}, [0], [1], seed=-1)
    a = alloc.Allocator([1.0])
    for call in (lambda: a.remove_flow(-1), lambda: a.set_demand(-1, 1.0)):
        with pytest.raises(ValueError, match="flow: expected an integer in 0..4294967295, got -1"):
            call()
    with pytest.raises(ValueError, match="link: expected an integer"):
        a.set_capacity(-2, 1.0)
    with pytest.raises(ValueError, match=r"priority\[0\]: expected a whole number in 0..255, got 0.5"):
        alloc.maxmin([1.0, 1.0], ([0, 1, 2], [0, 1], [1.0, 1.0]), priority=[0.5, 0])
