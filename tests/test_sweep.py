"""Sweeps: grid expansion, sweep-file errors, resume after an interruption, failures, index.

Most tests share one in-process Dask cluster (threads, `processes=False`): the core releases
the GIL, and worker processes would only add start-up time. The determinism test alone
starts real worker processes, once with one worker and once with two.
"""

from __future__ import annotations

import json
from pathlib import Path

import corral
import polars as pl
import pytest
from conftest import corral_cli
from corral.sweep import SweepError, layout, load, resolve, run_sweep
from sweep_data import write_sweep


@pytest.fixture(scope="module")
def client():
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with Client(cluster) as c:
            yield c


def run_dirs(out: Path) -> list[Path]:
    return sorted(p for p in (out / layout.RUNS).iterdir())


# -- the sweep file ------------------------------------------------------------------------


def test_grid_zip_and_seeds_expand_to_the_product(tmp_path):
    path = write_sweep(
        tmp_path,
        """
scenario = "sized.toml"
seeds = 2
[set]
duration = "10ms"
[grid]
"transport.cc" = ["newreno", "cubic", "dctcp"]
switch.buffer = ["8pkt", "64pkt"]
[[zip]]
"transport.min_rto" = ["1ms", "5ms"]
"transport.initial_window" = [2, 10]
""",
    )
    sweep = load(path)
    assert sweep.keys == ["transport.cc", "switch.buffer", "transport.min_rto", "transport.initial_window"]
    assert sweep.fixed == {"duration": "10ms"}
    points = sweep.points()
    assert len(points) == sweep.size() == 3 * 2 * 2 * 2
    # seeds vary fastest, then the last axis; zipped keys move together
    assert [p.seed for p in points[:4]] == [1, 2, 1, 2]
    assert points[0].values == {
        "transport.cc": "newreno",
        "switch.buffer": "8pkt",
        "transport.min_rto": "1ms",
        "transport.initial_window": 2,
    }
    assert points[2].values["transport.min_rto"] == "5ms" and points[2].values["transport.initial_window"] == 10
    assert points[-1].values == {
        "transport.cc": "dctcp",
        "switch.buffer": "64pkt",
        "transport.min_rto": "5ms",
        "transport.initial_window": 10,
    }
    assert len({tuple(sorted(p.values.items())) + (p.seed,) for p in points}) == len(points)
    assert points[0].overrides(sweep.fixed) == [
        'duration="10ms"',
        'transport.cc="newreno"',
        'switch.buffer="8pkt"',
        'transport.min_rto="1ms"',
        "transport.initial_window=2",
        "seed=1",
    ]


def test_a_zip_key_may_repeat_a_value(tmp_path):
    path = write_sweep(
        tmp_path,
        """
scenario = "sized.toml"
[[zip]]
"transport.cc" = ["newreno", "cubic", "dctcp"]
"transport.ecn" = [false, false, true]
""",
    )
    points = load(path).points()
    assert [(p.values["transport.cc"], p.values["transport.ecn"]) for p in points] == [
        ("newreno", False),
        ("cubic", False),
        ("dctcp", True),
    ]


def test_resolve_hashes_every_point_and_uses_the_scenario_seed_without_seeds(tmp_path):
    path = write_sweep(tmp_path, 'scenario = "sized.toml"\n[grid]\n"topology.link_delay" = ["1us", "5us"]\n')
    _, runs = resolve(load(path))
    assert [r.seed for r in runs] == [1, 1]
    assert len({r.hash for r in runs}) == 2 and all(len(r.hash) == layout.HASH_DIGITS for r in runs)
    # the hash is that of the resolved scenario: the same scenario built directly matches
    sim = corral.api.simulation(tmp_path / "sized.toml", ["topology.link_delay=5us"])
    assert runs[1].hash == layout.run_hash(sim.scenario_json, corral.__version__)


def test_values_of_every_toml_type_reach_the_core(tmp_path):
    path = write_sweep(
        tmp_path,
        """
scenario = "sized.toml"
[grid]
"transport.cc" = ["newreno", {kind = "cubic", beta = 0.5}]
"transport.receive_window" = [29200]
"host.small_queue" = [0, 3]
"network.clock_ppm" = [0.0, 50.5]
"transport.handshake_rtt" = [true]
""",
    )
    _, runs = resolve(load(path))
    assert len(runs) == 8
    sim = corral.api.simulation(tmp_path / "sized.toml", list(runs[-1].overrides))
    sc = json.loads(sim.scenario_json)
    assert sc["transport"]["cc"]["kind"] == "cubic" and sc["transport"]["cc"]["beta"] == 0.5
    assert sc["network"]["clock_ppm"] == 50.5 and sc["host"]["small_queue"] == 3


BAD_SWEEPS = [
    ('scenario = "sized.toml"\ngird = {}\n', "gird: unknown key (did you mean 'grid'?)"),
    ('[grid]\n"topology.k" = [4]\n', "scenario: missing"),
    ('scenario = "nope.toml"\n', "nope.toml: not found; expected the base scenario"),
    ('scenario = "sized.toml"\n[grid]\n"switch.buffer" = "8pkt"\n', 'grid."switch.buffer": must be a non-empty list'),
    ('scenario = "sized.toml"\n[grid]\n"switch.buffer" = []\n', 'grid."switch.buffer": must be a non-empty list'),
    (
        'scenario = "sized.toml"\n[grid]\n"switch.buffer" = ["8pkt", "8pkt"]\n',
        'grid."switch.buffer": value "8pkt" is listed twice',
    ),
    ('scenario = "sized.toml"\n[[zip]]\na = [1, 2]\nb = [1]\n', "zip[0]: lists must have equal lengths"),
    ('scenario = "sized.toml"\n[[zip]]\na = [1, 1]\nb = [2, 2]\n', "zip[0]: the combination a=1, b=2 is listed twice"),
    (
        'scenario = "sized.toml"\n[set]\nduration = "5ms"\n[grid]\nduration = ["1ms", "2ms"]\n',
        'grid."duration": also fixed in [set]',
    ),
    ('scenario = "sized.toml"\n[grid]\nseed = [1, 2]\n', 'grid."seed": sweep seeds with the top-level key seeds'),
    ('scenario = "sized.toml"\n[grid]\na = [1]\n[[zip]]\na = [2]\n', 'zip[0]."a": already swept in grid'),
    ('scenario = "sized.toml"\nseeds = 0\n', "seeds: a count must be >= 1"),
    ('scenario = "sized.toml"\nseeds = [1, -1]\n', "seeds: every seed must be an integer >= 0"),
    ('scenario = "sized.toml"\nseeds = [3, 3]\n', "seeds: seed 3 is listed twice"),
    ('scenario = "sized.toml"\nseeds = true\n', "seeds: must be"),
    ('scenario = "sized.toml"\nplots = "yes"\n', "plots: must be true or false"),
    ('scenario = "sized.toml"\n[grid\n', "not valid TOML"),
]


@pytest.mark.parametrize("text, message", BAD_SWEEPS)
def test_bad_sweep_files_name_the_key(tmp_path, text, message):
    path = write_sweep(tmp_path, text)
    with pytest.raises(SweepError) as err:
        run_sweep(path, tmp_path / "out", workers=1)
    assert message in str(err.value)
    assert not (tmp_path / "out").exists()


def test_an_invalid_point_fails_before_anything_runs_naming_key_and_point(tmp_path):
    path = write_sweep(tmp_path, 'scenario = "sized.toml"\nseeds = [1]\n[grid]\n"switch.buffer" = ["8pkt", "-3pkt"]\n')
    with pytest.raises(SweepError) as err:
        run_sweep(path, tmp_path / "out", workers=1)
    text = str(err.value)
    assert 'point 1 (switch.buffer="-3pkt", seed=1)' in text and "switch.buffer" in text.split("):", 1)[1]
    assert "point 0" not in text
    assert not (tmp_path / "out").exists()


def test_a_misspelt_key_fails_fast_in_the_cli(tmp_path):
    path = write_sweep(tmp_path, 'scenario = "sized.toml"\n[grid]\n"transport.ccc" = ["cubic"]\n')
    proc = corral_cli("sweep", path, "-o", tmp_path / "out", "--workers", "1")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and "transport.ccc" in proc.stderr and "did you mean `cc`" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_points_resolving_to_the_same_scenario_are_rejected(tmp_path):
    path = write_sweep(tmp_path, 'scenario = "sized.toml"\n[grid]\n"transport.cc" = ["newreno", {kind = "newreno"}]\n')
    with pytest.raises(SweepError, match="resolve to the same scenario"):
        resolve(load(path))


# -- running ---------------------------------------------------------------------------------


def test_interrupted_sweep_resumes_with_one_result_per_point(tmp_path, client):
    path = write_sweep(tmp_path)
    out = tmp_path / "out"
    first = run_sweep(path, out, client=client, limit=3)  # "killed" after 3 runs
    assert (first.counts.done, first.counts.remaining) == (3, 5)
    assert first.index["status"].to_list().count(layout.OK) == 3
    assert first.index["status"].to_list().count(layout.MISSING) == 5
    done_before = {p.name: (p / "flows.parquet").stat().st_mtime_ns for p in run_dirs(out)}
    # a worker killed mid-write leaves a scratch folder naming the sweep's lock; a half-made
    # run folder never exists. A user's file with a name like corral's stays.
    from corral.outdir import lock_path, write_marker

    dead = out / layout.RUNS / ".corral-tmp-deadbeef00"
    dead.mkdir()
    write_marker(dead, "run", (), complete=False, writer={"pid": 1, "lock": str(lock_path(out.resolve()))})
    (dead / "flows.parquet").write_text("partial")
    (out / layout.RUNS / ".corral-tmp-my-notes.txt").write_text("mine")
    (out / layout.RUNS / ".corral-old-folder").mkdir()

    second = run_sweep(path, out, client=client)
    assert (second.counts.skipped, second.counts.done, second.counts.failed) == (3, 5, 0)
    assert second.cleaned == 1 and not dead.exists()
    assert (out / layout.RUNS / ".corral-tmp-my-notes.txt").read_text() == "mine"
    assert (out / layout.RUNS / ".corral-old-folder").is_dir()
    (out / layout.RUNS / ".corral-tmp-my-notes.txt").unlink()
    (out / layout.RUNS / ".corral-old-folder").rmdir()
    names = [p.name for p in run_dirs(out)]
    assert sorted(names) == sorted(r.hash for r in second.runs)  # exactly one folder per point
    for name, mtime in done_before.items():  # finished runs were not redone
        assert (out / layout.RUNS / name / "flows.parquet").stat().st_mtime_ns == mtime
    index = pl.read_parquet(out / layout.INDEX)
    assert index.height == 8 and index["status"].unique().to_list() == [layout.OK]
    assert index.columns == ["hash", "transport.cc", "switch.buffer", "seed", "status", "wall_time_s", "error"]
    assert index.select("transport.cc", "switch.buffer", "seed").unique().height == 8
    for row in index.iter_rows(named=True):
        point = json.loads((out / layout.RUNS / row["hash"] / layout.POINT_JSON).read_text())
        assert point["values"] == {"transport.cc": row["transport.cc"], "switch.buffer": row["switch.buffer"]}
        assert point["seed"] == row["seed"]
        scenario = json.loads((out / layout.RUNS / row["hash"] / "scenario.json").read_text())
        assert scenario["seed"] == row["seed"] and scenario["transport"]["cc"]["kind"] == row["transport.cc"]

    third = run_sweep(path, out, client=client)
    assert (third.counts.skipped, third.counts.done) == (8, 0)


def test_a_failing_run_is_recorded_and_the_others_finish(tmp_path, client, monkeypatch):
    import corral.api

    real = corral.api.simulate

    def flaky(sim, progress=None):
        if sim.seed == 2 and '"cubic"' in sim.scenario_json:
            raise corral.SimulationError("boom in the engine")
        return real(sim, progress)

    monkeypatch.setattr(corral.api, "simulate", flaky)
    path = write_sweep(tmp_path)
    out = tmp_path / "out"
    result = run_sweep(path, out, client=client)
    assert (result.counts.done, result.counts.failed) == (6, 2)
    failed = result.index.filter(pl.col("status") == layout.FAILED)
    assert failed.height == 2 and set(failed["seed"]) == {2} and set(failed["transport.cc"]) == {"cubic"}
    assert all("boom in the engine" in e for e in failed["error"])
    for h in failed["hash"]:
        err = json.loads((out / layout.RUNS / h / layout.ERROR_JSON).read_text())
        assert "SimulationError: boom in the engine" in err["error"] and "Traceback" in err["traceback"]
        assert not (out / layout.RUNS / h / "flows.parquet").exists()
    assert any("seed=2" in e and "boom" in e for e in result.errors)

    monkeypatch.setattr(corral.api, "simulate", real)  # fixed: the rerun retries only the failures
    again = run_sweep(path, out, client=client)
    assert (again.counts.skipped, again.counts.done, again.counts.failed) == (6, 2, 0)
    assert again.index["status"].unique().to_list() == [layout.OK]
    assert not any((p / layout.ERROR_JSON).exists() for p in run_dirs(out))


def test_a_lost_task_is_recorded_from_the_client(tmp_path, client, monkeypatch):
    """A task whose worker dies surfaces as an errored future; the client writes error.json."""
    import corral.sweep.runner as runner

    real = runner.run_point

    def dies(task):
        if task["point"]["index"] == 0:
            raise RuntimeError("worker lost")  # stands in for KilledWorker
        return real(task)

    monkeypatch.setattr(runner, "run_point", dies)
    out = tmp_path / "out"
    result = run_sweep(write_sweep(tmp_path), out, client=client)
    assert (result.counts.done, result.counts.failed) == (7, 1)
    row = result.index.row(0, named=True)
    assert row["status"] == layout.FAILED and "RuntimeError: worker lost" in row["error"]


def test_same_sweep_on_one_and_two_workers_is_byte_identical(tmp_path, client):
    path = write_sweep(tmp_path)
    one, two, threads = tmp_path / "one", tmp_path / "two", tmp_path / "threads"
    # two worker processes, through the CLI; one in-process worker; the shared 2-thread cluster
    proc = corral_cli("sweep", path, "-o", two, "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    assert "8 runs: 8 done, 0 skipped" in proc.stdout
    run_sweep(path, one, workers=1, processes=False)
    run_sweep(path, threads, client=client)
    names = [p.name for p in run_dirs(one)]
    assert len(names) == 8
    assert names == [p.name for p in run_dirs(two)] == [p.name for p in run_dirs(threads)]
    fcts = set()
    for name in names:
        files = sorted(f.name for f in (one / layout.RUNS / name).glob("*.parquet"))
        assert len(files) == 9  # flows, throughput, throughput_class, queues, drops, drop_runs, ports, latency, control
        for f in files:
            data = (one / layout.RUNS / name / f).read_bytes()
            assert data == (two / layout.RUNS / name / f).read_bytes() == (threads / layout.RUNS / name / f).read_bytes(), f
        fcts.add(tuple(pl.read_parquet(one / layout.RUNS / name / "flows.parquet")["fct_s"].to_list()))
    assert len(fcts) == 8  # and the runs really differ from each other
    drop = ["wall_time_s"]
    assert pl.read_parquet(one / layout.INDEX).drop(drop).equals(pl.read_parquet(two / layout.INDEX).drop(drop))


def test_scheduler_address_uses_a_running_cluster(tmp_path, client):
    path = write_sweep(tmp_path, 'scenario = "sized.toml"\nseeds = 2\n')
    result = run_sweep(path, tmp_path / "out", scheduler=client.scheduler.address)
    assert (result.counts.done, result.counts.failed) == (2, 0)
    assert result.index.columns == ["hash", "seed", "status", "wall_time_s", "error"]
    assert result.index["seed"].to_list() == [1, 2]


def test_workers_and_scheduler_together_are_refused(tmp_path):
    path = write_sweep(tmp_path)
    proc = corral_cli("sweep", path, "-o", tmp_path / "out", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1")
    assert proc.returncode == 2 and proc.stderr.startswith("error: --workers")
    assert not (tmp_path / "out").exists()


def test_a_second_sweep_on_the_same_folder_is_refused_while_one_runs(tmp_path):
    import os

    from corral.outdir import OutputError
    from corral.outdir.lock import TargetLock

    path = write_sweep(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / ".corral-output.json").write_text('{"kind": "sweep", "files": []}')  # the running sweep's folder
    held = TargetLock(out.resolve(), "corral sweep").acquire()
    try:
        with pytest.raises(OutputError, match=f"another corral is writing it \\(PID {os.getpid()}: corral sweep\\)"):
            run_sweep(path, out, workers=1)
    finally:
        held.release()
    assert not (out / layout.RUNS).exists()


def test_sigterm_stops_a_sweep_like_ctrl_c_and_writes_the_index(tmp_path):
    """SIGTERM (a scheduler or `kill`) ends `corral sweep` as Ctrl-C does: finished runs are
    kept, index.parquet lists them, the cluster is shut down (no leaked semaphores)."""
    import signal
    import subprocess
    import sys
    import time

    path = write_sweep(tmp_path, 'scenario = "sized.toml"\nseeds = 40\n[grid]\nduration = ["300ms"]\n')
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "corral.cli", "sweep", str(path), "-o", str(out), "--workers", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        runs = out / layout.RUNS
        if runs.is_dir() and any(layout.status(d) == layout.OK for d in runs.iterdir()):
            break
        time.sleep(0.2)
    assert proc.poll() is None, "the sweep ended before it could be interrupted"
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 143, stderr
    assert "interrupted: finished runs are kept" in stderr
    assert "Traceback" not in stderr and "leaked" not in stderr, stderr
    index = pl.read_parquet(out / "index.parquet")
    assert index.height == 40 and 1 <= (index["status"] == "ok").sum() < 40


def test_a_sweep_names_a_packaged_scenario_from_any_folder(tmp_path, monkeypatch):
    """`corral:<name>` is a scenario the package ships; a path is relative to the sweep file;
    an older sweep file's path into a clone (`scenarios/...`) is taken from the current
    folder if it is there, and otherwise the error names the packaged file to write."""
    packaged = Path(corral.__file__).parent / "scenarios" / "examples" / "dumbbell.toml"
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    sweep = tmp_path / "elsewhere" / "sweep.toml"
    sweep.parent.mkdir()
    sweep.write_text('scenario = "corral:examples/dumbbell.toml"\n[grid]\n"transport.cc" = ["newreno", "cubic"]\n')
    assert load(sweep).scenario.resolve() == packaged.resolve() and len(resolve(load(sweep))[1]) == 2
    sweep.write_text('scenario = "corral:examples/dumbell.toml"\n')
    with pytest.raises(SweepError, match="no such packaged scenario; did you mean corral:examples/dumbbell.toml"):
        load(sweep)
    sweep.write_text('scenario = "scenarios/examples/dumbbell.toml"\n')
    with pytest.raises(SweepError, match='the package ships it: write scenario = "corral:examples/dumbbell.toml"'):
        load(sweep)
    (tmp_path / "here" / "scenarios" / "examples").mkdir(parents=True)
    (tmp_path / "here" / "scenarios" / "examples" / "dumbbell.toml").write_text(packaged.read_text())
    assert load(sweep).scenario == Path("scenarios/examples/dumbbell.toml")  # from the current folder
    # the packaged sweep file itself, by name
    assert len(load("corral:fct/sweep.toml").points()) == 27


def test_corral_run_takes_a_packaged_scenario(tmp_path):
    proc = corral_cli(
        "run", "corral:examples/dumbbell.toml", "-o", tmp_path / "o", "--no-plots", "--set", "duration=2ms", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "o" / "flows.parquet").is_file()
    proc = corral_cli("run", "corral:nope.toml", "-o", tmp_path / "p", cwd=tmp_path)
    assert proc.returncode == 2 and "corral:nope.toml: no such packaged scenario" in proc.stderr, proc.stderr


def test_a_worker_killed_before_its_scratch_marker_leaves_nothing_the_next_sweep_keeps(tmp_path):
    """A sweep's worker holds no lock file to record its scratch folders in: it names them
    after the sweep's lock, so that one killed between making a scratch folder and writing its
    marker (kill -9) leaves a folder the next sweep of that folder still removes; a marker-less
    folder with corral's temporary prefix and another name is a user's, and stays."""
    from corral.outdir import atomic_dir
    from corral.outdir.lock import lock_path, worker_tag

    path = write_sweep(tmp_path)
    out = tmp_path / "out"
    run_sweep(path, out, workers=1)
    runs = out / layout.RUNS
    lock = str(lock_path(out.resolve()))
    tag = worker_tag(lock)
    run = next(d for d in runs.iterdir() if layout.status(d) == layout.OK)
    with atomic_dir(tmp_path / "solo", "run", owned=True, lock_file=lock) as tmp:
        assert tmp.name.startswith(".corral-tmp-" + tag)
    dead = [runs / f".corral-tmp-{tag}0123456789", run / f".corral-old-{tag}0123456789"]
    for d in dead:
        d.mkdir()  # made, and killed before its marker
    users = runs / ".corral-tmp-mine"
    users.mkdir()
    (users / "notes.txt").write_text("mine")
    run_sweep(path, out, workers=1)
    assert not any(d.exists() for d in dead)
    assert (users / "notes.txt").read_text() == "mine"
