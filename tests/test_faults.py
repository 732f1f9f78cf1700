"""A result is complete or absent, whatever happens to its writer (issue "A result is complete
or absent: outputs that survive kill -9, a full disk and a second writer").

Each case starts a real `corral` process, hurts it (SIGKILL or SIGTERM at a random moment,
with every rename slowed down so that the moment falls inside the publishing steps often; a
second writer; a file system that fills up), and then checks the output folder: it holds the
previous complete result, the new complete result, or a result marked incomplete; the user's
files are untouched; and the next writer finishes the job and leaves no scratch folder
behind. A resumed sweep redoes exactly the runs that are not complete.

The renames are slowed by a `sitecustomize` module put on the child's PYTHONPATH (test-only:
corral itself has no hook for it). Moments are drawn from a fixed seed. `make test` runs a
few moments per command; `make test-slow` runs many (`-m slow`).
"""

from __future__ import annotations

import errno
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from conftest import TINY
from corral.outdir import MARKER, OLD_PREFIX, TMP_PREFIX, is_complete, lock_path, owned_files, read_marker, write_marker
from corral.sweep import layout

SLOW_RENAMES = """
import os, time
_delay = float(os.environ.get("CORRAL_TEST_RENAME_DELAY", "0"))
if _delay > 0:
    def _slow(real):
        def wrapped(*args, **kwargs):
            time.sleep(_delay)
            return real(*args, **kwargs)
        return wrapped
    os.rename = _slow(os.rename)
    os.replace = _slow(os.replace)
"""

SCENARIO = TINY.replace('duration = "20ms"', 'duration = "5ms"')


def user_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("mine*")) if p.is_file()}


def corral_files(folder: Path) -> dict[str, bytes]:
    """The files a complete folder's marker lists, with their bytes (timing.json aside: the
    one file that differs between two runs of one scenario)."""
    return {f: (folder / f).read_bytes() for f in owned_files(folder) or [] if f != "timing.json"}


def state(folder: Path, previous: dict[str, bytes] | None) -> str:
    """`absent`, `previous`, `new` or `incomplete`; anything else fails the test."""
    if not folder.exists():
        assert previous is None, "the previous result is gone"
        return "absent"
    marker = read_marker(folder)
    assert marker is not None, f"{folder} has files but no marker: {sorted(p.name for p in folder.iterdir())}"
    if marker.get("complete") is False:
        return "incomplete"
    assert is_complete(folder), f"{folder}: marker says complete but its files disagree"
    return "previous" if previous is not None and corral_files(folder) == previous else "new"


def scratch_left(*places: Path) -> list[str]:
    """Corral's scratch entries (by marker) left in `places` after a successful writer."""
    left = []
    for place in places:
        if not place.is_dir():
            continue
        for p in place.iterdir():
            if p.name.startswith((TMP_PREFIX, OLD_PREFIX)) and not p.name.startswith((f"{TMP_PREFIX}mine", f"{OLD_PREFIX}mine")):
                left.append(str(p))
            if p.name.startswith(".corral-lock-"):
                left.append(str(p))
    return left


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SLOW_RENAMES)
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(hook), e.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return e


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    d = tmp_path / "proj"
    d.mkdir()
    (d / "s.toml").write_text(SCENARIO)
    (d / "mine.txt").write_text("mine")
    (d / f"{TMP_PREFIX}mine").write_text("a user's file with a name like corral's")
    return d


def start(args: list[str], cwd: Path, env: dict[str, str], delay: float = 0.0) -> subprocess.Popen:
    e = dict(env)
    e["CORRAL_TEST_RENAME_DELAY"] = str(delay)
    return subprocess.Popen(
        [sys.executable, "-m", "corral.cli", *args], cwd=cwd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def finish(proc: subprocess.Popen, timeout: float = 300) -> tuple[int, str]:
    _, err = proc.communicate(timeout=timeout)
    return proc.returncode, err


def timed(args: list[str], cwd: Path, env: dict[str, str], delay: float) -> float:
    t = time.monotonic()
    proc = start(args, cwd, env, delay)
    code, err = finish(proc)
    assert code == 0, err
    return time.monotonic() - t


def hurt(args, cwd, env, delay, at: float, sig: int) -> tuple[int | None, str]:
    proc = start(args, cwd, env, delay)
    try:
        proc.wait(timeout=at)
    except subprocess.TimeoutExpired:
        proc.send_signal(sig)
    return finish(proc)


def moments(n: int, span: float, seed: int) -> list[float]:
    rng = random.Random(seed)
    return sorted(rng.uniform(0.05 * span, span) for _ in range(n))


# -- run: kill -9 and SIGTERM at random moments --------------------------------------------------

RUN_CASES = [("kill", signal.SIGKILL), ("term", signal.SIGTERM)]


def _run_case(proj: Path, env, sig: int, n: int, seed: int) -> dict[str, int]:
    args = ["run", "s.toml", "-o", "out", "--no-plots"]
    assert start(args, proj, env).wait(timeout=300) == 0  # a previous result
    delay = 0.03
    span = timed(args + ["--set", "seed=2"], proj, env, delay)
    seen: dict[str, int] = {}
    for at in moments(n, span, seed):
        (proj / "out" / "mine-notes.txt").write_text("mine")
        before_user = user_files(proj)
        previous = corral_files(proj / "out") if is_complete(proj / "out") else None
        code, err = hurt(args + ["--set", f"seed={3 + len(seen)}"], proj, env, delay, at, sig)
        assert "Traceback" not in err, err
        if sig == signal.SIGTERM and code not in (0, None):
            assert code == 143 and "terminated" in err, (code, err)
        st = state(proj / "out", previous)
        if sig == signal.SIGTERM:
            assert st in ("previous", "new"), st  # SIGTERM rolls back like Ctrl-C
        seen[st] = seen.get(st, 0) + 1
        assert user_files(proj) == before_user
        # the next writer completes the job and removes what the killed one left
        assert start(args, proj, env).wait(timeout=300) == 0
        assert is_complete(proj / "out") and not scratch_left(proj, proj / "out"), scratch_left(proj, proj / "out")
    return seen


@pytest.mark.parametrize("name,sig", RUN_CASES)
def test_a_killed_run_leaves_the_old_result_the_new_one_or_one_marked_incomplete(proj, env, name, sig):
    _run_case(proj, env, sig, 2, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("name,sig", RUN_CASES)
def test_many_kill_moments_of_a_run(proj, env, name, sig):
    seen = _run_case(proj, env, sig, 30, seed=2)
    assert len(seen) >= 2, seen  # the moments reached more than one phase


@pytest.mark.parametrize("signame,code", [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_signal_raised_inside_a_callback_still_stops_the_command(tmp_path, signame, code):
    """A SIGTERM (or Ctrl-C) that arrives while Python runs a callback that ignores exceptions
    (an import's module-lock weakref callback: a killed compare printed "Exception ignored ...
    Terminated" with a traceback and went on to exit 0) is delivered again and stops the
    command at its next statement."""
    script = f"""
import signal, sys, time, weakref
import corral.cli as cli

class Thing:
    pass

def dispatch(argv):
    handler = signal.getsignal(signal.{signame})
    thing = Thing()
    ref = weakref.ref(thing, lambda r: handler(signal.{signame}, None))  # as if the signal came in it
    del thing
    for _ in range(200):
        time.sleep(0.01)
    print("went on")

cli._dispatch = dispatch
cli.main()
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == code and "went on" not in proc.stdout, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr
    assert ("terminated" if code == 143 else "interrupted") in proc.stderr


# -- compare and reproduce --------------------------------------------------------------------


def _folder_case(proj, env, first_args, args, out: str, sig, n, seed, span_args=None):
    assert start(first_args, proj, env).wait(timeout=600) == 0
    delay = 0.03
    span = timed(span_args or args, proj, env, delay)
    for at in moments(n, span, seed):
        (proj / out / "mine-notes.txt").write_text("mine")
        before_user = user_files(proj)
        previous = corral_files(proj / out)
        code, err = hurt(args, proj, env, delay, at, sig)
        assert "Traceback" not in err, err
        st = state(proj / out, previous)
        if sig == signal.SIGTERM:
            assert st in ("previous", "new"), st
        assert user_files(proj) == before_user
        assert start(args, proj, env).wait(timeout=600) == 0
        assert is_complete(proj / out) and not scratch_left(proj, proj / out)


@pytest.mark.slow
@pytest.mark.parametrize("name,sig", RUN_CASES)
def test_a_killed_compare_leaves_a_complete_or_incomplete_report(proj, env, name, sig):
    assert start(["run", "s.toml", "-o", "r1", "--no-plots"], proj, env).wait(timeout=300) == 0
    args = ["compare", "r1", "-o", "rep", "--no-plots"]
    _folder_case(proj, env, args, args, "rep", sig, 2, seed=3)


@pytest.mark.slow
@pytest.mark.parametrize("name,sig", RUN_CASES)
def test_a_killed_quick_reproduction(proj, env, name, sig):
    args = ["reproduce", "outcast", "--quick", "-o", "rep"]
    _folder_case(proj, env, args, args, "rep", sig, 3, seed=4)


# -- sweeps: a resumed sweep redoes exactly the runs that are not complete ---------------------


def _sweep(proj: Path, seeds: int) -> Path:
    (proj / "sweep.toml").write_text(f'scenario = "s.toml"\nseeds = {seeds}\n[set]\nduration = "3ms"\n')
    return proj / "sweep.toml"


def _complete_runs(out: Path) -> dict[str, int]:
    runs = out / layout.RUNS
    if not runs.is_dir():
        return {}
    return {
        d.name: (d / "flows.parquet").stat().st_mtime_ns for d in runs.iterdir() if not d.name.startswith(".") and is_complete(d)
    }


# Slow (make test-slow), both signals: the kill -9 moment is a fraction of a timed sweep, so where it
# lands moves with the machine's load. A worker killed between making its scratch folder and writing
# its marker once left a `.corral-tmp-*` folder no later writer could tell from a user's (a fresh clone
# under load, 2026-12-02); workers now name their scratch folders after the sweep's lock
# (test_sweep.py: test_a_worker_killed_before_its_scratch_marker_...).
@pytest.mark.slow
@pytest.mark.parametrize("name,sig,n", [("kill", signal.SIGKILL, 1), ("term", signal.SIGTERM, 1)])
def test_a_killed_sweep_resumes_with_exactly_the_incomplete_runs(proj, env, name, sig, n):
    _sweep(proj, 6)
    args = ["sweep", "sweep.toml", "-o", "sw", "--workers", "1"]
    span = timed(args, proj, env, 0.02)
    shutil.rmtree(proj / "sw")
    for at in moments(n, span, seed=5):
        code, err = hurt(args, proj, env, 0.02, at, sig)
        assert "Traceback" not in err, err
        (proj / "sw").mkdir(exist_ok=True)
        (proj / "sw" / "mine-notes.txt").write_text("mine")
        before_user = user_files(proj)
        done_before = _complete_runs(proj / "sw")
        proc = start(args, proj, env)
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        after = _complete_runs(proj / "sw")
        assert len(after) == 6
        assert f"{len(done_before)} skipped" in out, (out, done_before)
        for h, mtime in done_before.items():
            assert after[h] == mtime  # complete runs were not redone
        index = pl.read_parquet(proj / "sw" / layout.INDEX)
        assert index["status"].to_list() == ["ok"] * 6
        assert user_files(proj) == before_user
        assert not scratch_left(proj, proj / "sw", proj / "sw" / layout.RUNS)
        shutil.rmtree(proj / "sw")


def test_a_truncated_table_makes_its_run_incomplete_and_compare_names_nothing_it_cannot_read(proj):
    from corral.compare import compare
    from corral.sweep import run_sweep

    sweep = _sweep(proj, 2)
    run_sweep(sweep, proj / "sw", workers=1, processes=False)
    run = next(d for d in (proj / "sw" / layout.RUNS).iterdir() if d.is_dir())
    data = (run / "throughput.parquet").read_bytes()
    (run / "throughput.parquet").write_bytes(data[: len(data) // 2])
    assert layout.status(run) == layout.MISSING
    compare([proj / "sw"], proj / "rep", plots=False)
    md = (proj / "rep" / "report.md").read_text()
    assert "1 compared, 0 failed, 1 missing" in md
    again = run_sweep(sweep, proj / "sw", workers=1, processes=False)
    assert (again.counts.done, again.counts.skipped) == (1, 1)
    assert layout.status(run) == layout.OK


def test_a_resume_removes_a_killed_workers_scratch_inside_a_run_folder(proj, env):
    """A worker killed while it replaced a run folder (a failed run redone) leaves its scratch
    folder and its trash inside that run folder; the next sweep removes them (they name the
    sweep's lock), and keeps the user's file named like them (found by bench/faults.py)."""
    _sweep(proj, 2)
    args = ["sweep", "sweep.toml", "-o", "sw", "--workers", "1"]
    assert start(args, proj, env).wait(timeout=600) == 0
    run = next(d for d in (proj / "sw" / layout.RUNS).iterdir() if d.is_dir())
    worker = {"pid": 1, "command": "corral worker", "lock": str(lock_path((proj / "sw").resolve()))}
    for name in (f"{TMP_PREFIX}0123456789", f"{OLD_PREFIX}0123456789"):
        (run / name).mkdir()
        (run / name / "summary.json").write_text("{}")
        write_marker(run / name, "run", (), complete=False, writer=worker, sync=False)
    (run / f"{TMP_PREFIX}mine").write_text("a user's file named like corral's")
    proc = start(args, proj, env)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0 and "0 done, 2 skipped" in out, (out, err)
    assert sorted(p.name for p in run.iterdir() if p.name.startswith(".corral-")) == [MARKER, f"{TMP_PREFIX}mine"]
    assert layout.status(run) == layout.OK


@pytest.mark.parametrize("interrupt", [OSError(5, "Input/output error"), KeyboardInterrupt()], ids=["error", "ctrl-c"])
def test_a_scratch_folder_interrupted_before_its_marker_is_removed(tmp_path, monkeypatch, interrupt):
    """An error, Ctrl-C or SIGTERM while a new scratch folder gets its marker, before anything
    could tell it is corral's, removes the folder: SIGTERM at the first rename of a
    replacement left an empty .corral-tmp-* that no later writer removed (bench/faults.py)."""
    import corral.outdir.publish as publish

    def interrupted(*args, **kwargs):
        raise interrupt

    monkeypatch.setattr(publish, "write_marker", interrupted)
    for out in ("new", "old"):
        if out == "old":
            (tmp_path / "old").mkdir()
        with pytest.raises(type(interrupt)):
            with publish.atomic_dir(tmp_path / out, "run"):
                pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old"]
    assert list((tmp_path / "old").iterdir()) == []


# -- two writers -------------------------------------------------------------------------------


def test_two_writers_of_one_folder_never_mix_their_files(proj, env):
    """Two runs into one folder at once: the second is refused naming the first's PID, or
    (when the first ended before) replaces it; the folder always holds one run's files."""
    args = ["run", "s.toml", "-o", "out", "--no-plots"]
    refs = {}
    for seed in (1, 2):
        assert start(["run", "s.toml", "-o", f"ref{seed}", "--no-plots", "--set", f"seed={seed}"], proj, env).wait(300) == 0
        refs[seed] = corral_files(proj / f"ref{seed}")
    outcomes = []
    for _ in range(3):
        a = start(args + ["--set", "seed=1"], proj, env, 0.02)
        b = start(args + ["--set", "seed=2"], proj, env, 0.02)
        (ca, ea), (cb, eb) = finish(a), finish(b)
        assert "Traceback" not in ea + eb
        assert {ca, cb} <= {0, 2}, (ca, cb, ea, eb)
        for code, err in ((ca, ea), (cb, eb)):
            if code == 2:
                assert "another corral is writing it (PID" in err, err
        outcomes.append((ca, cb))
        summary = json.loads((proj / "out" / "summary.json").read_text())
        assert is_complete(proj / "out") and corral_files(proj / "out") == refs[summary["seed"]]
        shutil.rmtree(proj / "out")
    assert any(2 in o for o in outcomes), outcomes  # the lock refused at least once


# -- a full disk -------------------------------------------------------------------------------


@pytest.fixture
def small_fs(tmp_path: Path):
    """A 96 KiB tmpfs (root only; skipped where mounting is not allowed)."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a tmpfs")
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(mnt)], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_a_full_disk_is_an_error_and_leaves_nothing_half_written(proj, env, small_fs):
    big = SCENARIO.replace('duration = "5ms"', 'duration = "200ms"')
    (proj / "big.toml").write_text(big)
    (small_fs / "mine.txt").write_text("mine")
    proc = start(["run", str(proj / "big.toml"), "-o", str(small_fs / "out")], proj, env)
    code, err = finish(proc)
    assert code == 2 and "No space left on device" in err and "Traceback" not in err, (code, err)
    assert sorted(p.name for p in small_fs.iterdir()) == ["mine.txt"]
    # a sweep on a full disk keeps its index (or says it could not write it)
    (proj / "sweep.toml").write_text('scenario = "big.toml"\nseeds = 2\n')
    proc = start(["sweep", "sweep.toml", "-o", str(small_fs / "sw"), "--workers", "1"], proj, env)
    code, err = finish(proc, 600)
    assert code in (1, 2) and "Traceback" not in err, (code, err)
    assert (small_fs / "mine.txt").read_text() == "mine"
    if (small_fs / "sw" / layout.INDEX).exists():
        pl.read_parquet(small_fs / "sw" / layout.INDEX)  # readable, not a torn file


@pytest.mark.slow
def test_ctrl_c_while_a_sweep_s_workers_start_prints_no_traceback(proj):
    """Ctrl-C reaches the whole process group; while the Dask workers start they ignore it,
    so none dies half-imported with a traceback (the one-off moments are fixed)."""
    _sweep(proj, 4)
    for at in (0.5, 1.0, 1.5, 2.0, 2.5):
        shutil.rmtree(proj / "sw", ignore_errors=True)
        proc = subprocess.Popen(
            [sys.executable, "-m", "corral.cli", "sweep", "sweep.toml", "-o", "sw", "--workers", "1"],
            cwd=proj,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        time.sleep(at)
        try:
            os.killpg(proc.pid, signal.SIGINT)
        except ProcessLookupError:
            pass
        _, err = proc.communicate(timeout=300)
        assert proc.returncode in (0, 130) and "Traceback" not in err and "leaked" not in err, (at, err)


def test_a_full_disk_reported_as_a_bare_oserror_is_named(tmp_path, capsys):
    """polars' CSV writer reports a full disk as `OSError("No space left on device (os error
    28)")`, without an errno (`compare` on a small tmpfs printed `error: [Errno None] None:
    rep`): it is the full disk, naming the folder, and nothing is left behind; any other
    OSError without an errno keeps its text."""
    from corral.cli import user_errors
    from corral.outdir import atomic_dir

    with pytest.raises(OSError) as info:
        with atomic_dir(tmp_path / "rep", "report") as tmp:
            (tmp / "a.csv").write_text("x")
            raise OSError("No space left on device (os error 28)")
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(tmp_path / "rep"), info.value
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(OSError, match=r"^something else \(writing .*rep\)$"):
        with atomic_dir(tmp_path / "rep", "report"):
            raise OSError("something else")
    with pytest.raises(SystemExit):
        with user_errors():
            raise OSError("No space left on device (os error 28)")
    assert capsys.readouterr().err == "error: No space left on device\n"
