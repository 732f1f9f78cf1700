"""Output folders never cost a user a file (issue "Never delete what corral did not write,
even with --force").

corral writes a new or empty folder, or a corral folder of the same kind, where it replaces
only the files its marker lists; `--force` adds only corral folders of another kind. The
current folder, its parents, a folder holding an input, the input itself and any folder of
someone else's files are refused, with or without `--force`, by `error: ...` and exit
status 2, and nothing is created, renamed or removed. The five cases of the issue come
first; a property test drives random sequences of commands at the end.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import corral
import pytest
from conftest import TINY, corral_cli
from corral.outdir import MARKER, OutputError, owned_files


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below `root` with its content (folders too, as None)."""
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def refused(proc, *needles: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    assert "--force" not in proc.stderr or "pass --force" in proc.stderr, proc.stderr
    for n in needles:
        assert n in proc.stderr, (n, proc.stderr)


def refused_for_good(proc, *needles: str) -> None:
    """Refused in a way --force cannot change, so the message must not suggest it."""
    refused(proc, *needles)
    assert "--force" not in proc.stderr, proc.stderr


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A user's folder: a scenario and files of their own."""
    d = tmp_path / "proj"
    d.mkdir()
    (d / "s.toml").write_text(TINY)
    (d / "thesis.tex").write_text("mine")
    return d


# -- the five cases of the issue ------------------------------------------------------------


@pytest.mark.parametrize("force", [False, True])
def test_1_the_current_folder_is_refused_with_or_without_force(work: Path, force: bool) -> None:
    before = snapshot(work.parent)
    refused_for_good(corral_cli("run", "s.toml", "-o", ".", *(["--force"] if force else []), cwd=work), "-o .", "current folder")
    assert snapshot(work.parent) == before


def test_2_force_into_a_user_folder_is_refused_and_deletes_nothing(work: Path) -> None:
    out = work / "data"
    out.mkdir()
    (out / "mydata.txt").write_text("precious")
    before = snapshot(work.parent)
    refused_for_good(corral_cli("run", "s.toml", "-o", "data", "--force", cwd=work), "-o data", "did not write")
    assert snapshot(work.parent) == before


def test_3_rerunning_into_a_run_folder_keeps_the_user_s_files(work: Path) -> None:
    assert corral_cli("run", "s.toml", "-o", "r", "--no-plots", cwd=work).returncode == 0
    (work / "r" / "analysis.ipynb").write_text("{}")
    (work / "r" / "notes").mkdir()
    (work / "r" / "notes" / "a.txt").write_text("keep")
    for extra in ([], ["--force"], ["--set", "seed=2"]):
        assert corral_cli("run", "s.toml", "-o", "r", "--no-plots", *extra, cwd=work).returncode == 0
        assert (work / "r" / "analysis.ipynb").read_text() == "{}"
        assert (work / "r" / "notes" / "a.txt").read_text() == "keep"
    assert json.loads((work / "r" / "summary.json").read_text())["seed"] == 2  # corral's files were replaced
    assert "analysis.ipynb" not in owned_files(work / "r")
    # plots on, then off: the plots of the first run go, as corral's files
    assert corral_cli("run", "s.toml", "-o", "r", cwd=work).returncode == 0
    assert (work / "r" / "queues.png").is_file()
    assert corral_cli("run", "s.toml", "-o", "r", "--no-plots", cwd=work).returncode == 0
    assert not (work / "r" / "queues.png").exists() and (work / "r" / "analysis.ipynb").is_file()
    assert not [p for p in (work / "r").iterdir() if p.name.startswith(".corral-") and p.name != MARKER]


@pytest.mark.parametrize("force", [False, True])
def test_4_the_input_itself_is_refused(work: Path, force: bool) -> None:
    before = snapshot(work.parent)
    refused_for_good(corral_cli("run", "s.toml", "-o", "s.toml", *(["--force"] if force else []), cwd=work), "input")
    assert snapshot(work.parent) == before


def test_5_the_current_folder_by_another_name_is_refused(work: Path) -> None:
    before = snapshot(work.parent)
    refused_for_good(corral_cli("run", "s.toml", "-o", "../proj", "--force", cwd=work), "current folder")
    assert snapshot(work.parent) == before


# -- the rest of the rules --------------------------------------------------------------------


def test_a_parent_of_the_current_folder_is_refused(work: Path) -> None:
    sub = work / "deeper"
    sub.mkdir()
    before = snapshot(work.parent)
    refused_for_good(corral_cli("run", "../s.toml", "-o", "..", "--force", cwd=sub), "parent of the current folder")
    assert snapshot(work.parent) == before


def test_a_folder_holding_the_scenario_is_refused(work: Path, tmp_path: Path) -> None:
    before = snapshot(work)
    refused_for_good(corral_cli("run", work / "s.toml", "-o", work, "--force", cwd=tmp_path), "holds the input")
    assert snapshot(work) == before


def test_an_empty_folder_and_a_new_one_work(work: Path) -> None:
    (work / "empty").mkdir()
    assert corral_cli("run", "s.toml", "-o", "empty", "--no-plots", cwd=work).returncode == 0
    assert corral_cli("run", "s.toml", "-o", "a/b/new", "--no-plots", cwd=work).returncode == 0
    for d in (work / "empty", work / "a" / "b" / "new"):
        assert (d / "flows.parquet").is_file()
        assert set(owned_files(d)) == {p.name for p in d.iterdir() if p.name != MARKER}


def test_another_kind_needs_force_and_then_only_its_files_go(work: Path, tmp_path: Path) -> None:
    assert corral_cli("run", "s.toml", "-o", "r", "--no-plots", cwd=work).returncode == 0
    assert corral_cli("run", "s.toml", "-o", "x", "--no-plots", cwd=work).returncode == 0
    (work / "x" / "mine.txt").write_text("mine")
    before = snapshot(work)
    refused(
        corral_cli("compare", "r", "-o", "x", "--no-plots", cwd=work), "a corral run folder, not a report folder", "pass --force"
    )
    assert snapshot(work) == before
    assert corral_cli("compare", "r", "-o", "x", "--no-plots", "--force", cwd=work).returncode == 0
    assert (work / "x" / "report.md").is_file() and (work / "x" / "mine.txt").read_text() == "mine"
    assert not (work / "x" / "flows.parquet").exists()
    assert json.loads((work / "x" / MARKER).read_text())["kind"] == "report"


def test_a_marker_without_a_file_list_protects_everything(work: Path) -> None:
    old = work / "old"
    old.mkdir()
    (old / MARKER).write_text('{"kind": "run"}')
    (old / "flows.parquet").write_text("an older corral's, or the user's: nobody can tell")
    before = snapshot(work)
    refused_for_good(corral_cli("run", "s.toml", "-o", "old", "--force", cwd=work), "older corral")
    assert snapshot(work) == before


def test_a_marker_cannot_name_files_outside_its_folder(work: Path) -> None:
    out = work / "out"
    out.mkdir()
    (out / MARKER).write_text(json.dumps({"kind": "run", "files": ["../thesis.tex"]}))
    (out / "x").write_text("x")
    before = snapshot(work)
    refused_for_good(corral_cli("run", "s.toml", "-o", "out", cwd=work), "older corral")
    assert snapshot(work) == before


def test_a_user_file_where_corral_would_write_stops_the_write(work: Path) -> None:
    assert corral_cli("run", "s.toml", "-o", "r", "--no-plots", cwd=work).returncode == 0
    marker = json.loads((work / "r" / MARKER).read_text())
    marker["files"].remove("summary.json")  # as if the user had put a summary.json there
    (work / "r" / MARKER).write_text(json.dumps(marker))
    (work / "r" / "summary.json").write_text("the user's")
    before = snapshot(work)
    refused(corral_cli("run", "s.toml", "-o", "r", "--no-plots", cwd=work), "summary.json", "did not write")
    assert snapshot(work) == before


def test_a_failure_while_moving_in_restores_the_folder(work: Path, monkeypatch) -> None:
    res = corral.run(TINY)
    res.write(work / "r", plots=False)
    (work / "r" / "mine.txt").write_text("mine")
    before = snapshot(work)
    real_rename = Path.rename
    calls = []

    def failing(self, target):
        calls.append(self)
        if len(calls) == 12:  # part way through moving the new files in
            raise OSError(5, "Input/output error")
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", failing)
    with pytest.raises(OSError, match="Input/output error"):
        res.write(work / "r", plots=False)
    monkeypatch.undo()
    assert len(calls) >= 12
    assert snapshot(work) == before


def test_an_unwritable_output_is_refused_before_simulating(work: Path) -> None:
    (work / "afile.txt").write_text("x")
    refused(corral_cli("run", "s.toml", "-o", "afile.txt/sub", cwd=work), "afile.txt is a file, not a folder")
    ro = work / "ro"
    ro.mkdir()
    os.chmod(ro, 0o500)
    try:
        if not os.access(ro, os.W_OK):  # root writes anywhere
            refused(corral_cli("run", "s.toml", "-o", "ro/out", cwd=work), "cannot write in")
    finally:
        os.chmod(ro, 0o700)
    if Path("/proc/self").is_dir():
        refused(corral_cli("run", "s.toml", "-o", "/proc/self/corral-out", cwd=work), "cannot write in")


def test_the_python_api_refuses_too(work: Path) -> None:
    res = corral.run(TINY)
    out = work / "out"
    out.mkdir()
    (out / "mydata.txt").write_text("precious")
    for force in (False, True):
        with pytest.raises(OutputError, match="did not write"):
            res.write(out, force=force)
    assert (out / "mydata.txt").read_text() == "precious"
    cwd = os.getcwd()
    try:
        os.chdir(work)
        with pytest.raises(OutputError, match="current folder"):
            res.write(".", force=True)
    finally:
        os.chdir(cwd)


def test_sweep_and_compare_follow_the_same_rules(work: Path, tmp_path: Path) -> None:
    from corral.sweep import run_sweep

    (work / "sweep.toml").write_text('scenario = "s.toml"\nseeds = [1]\n[set]\nduration = "2ms"\n')
    sweep = work / "sw"
    run_sweep(work / "sweep.toml", sweep, workers=1, processes=False)
    (sweep / "mine.csv").write_text("mine")
    (sweep / ".config.tmp-1").write_text("a dot file with a temporary-looking name")
    run_sweep(work / "sweep.toml", sweep, workers=1, processes=False, force=True)
    assert (sweep / "mine.csv").read_text() == "mine" and (sweep / ".config.tmp-1").is_file()
    before = snapshot(work)
    refused_for_good(corral_cli("compare", sweep, "-o", sweep, "--force", cwd=tmp_path), "is the input")
    refused_for_good(corral_cli("compare", sweep, "-o", work, "--force", cwd=tmp_path), "holds the input")
    refused(corral_cli("run", "s.toml", "-o", "sw", "--force", cwd=work), "sweep folder")
    refused_for_good(corral_cli("sweep", "sweep.toml", "-o", ".", "--force", cwd=work), "current folder")
    assert snapshot(work) == before


def test_reproduce_into_the_current_folder_is_refused_before_running(work: Path) -> None:
    before = snapshot(work)
    refused_for_good(corral_cli("reproduce", "outcast", "-o", ".", "--quick", "--force", cwd=work), "current folder")
    assert snapshot(work) == before


# -- property: no sequence of commands changes a user's file ----------------------------------

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies

COMMANDS = ("run", "sweep", "compare", "reproduce", "arena", "demo")
TARGETS = (".", "..", "user", "user/deeper", "out", "out2", "s.toml", "runs/a", "proj2", "out/plots", "out/runs")


def _tree(root: Path) -> Path:
    """A user's project: the scenario, a sweep file, files of their own at several depths."""
    work = root / "proj"
    (work / "user" / "deeper").mkdir(parents=True)
    (work / "s.toml").write_text(TINY.replace('duration = "20ms"', 'duration = "2ms"'))
    (work / "sweep.toml").write_text('scenario = "s.toml"\nseeds = [1]\n[set]\nduration = "1ms"\n')
    (work / "thesis.tex").write_text("mine")
    (work / "user" / "a.csv").write_text("1,2")
    (work / "user" / "deeper" / "b.txt").write_text("b")
    (root / "proj2").mkdir()
    (root / "proj2" / "c.txt").write_text("c")
    return work


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _sprinkle(work: Path, step: int) -> None:
    """Put a file of the user's into every folder corral wrote (and its plots/ and runs/), as a
    user adds notes beside results; later steps must keep them."""
    from corral.outdir import MARKER

    for marker in list(work.parent.rglob(MARKER)):
        folder = marker.parent
        for sub in (folder, folder / "plots", folder / "runs"):
            if sub.is_dir():
                (sub / f"mine-{step}.txt").write_text(f"user file {step}")


def _do(command: str, target: str, force: bool, work: Path) -> None:
    """Run one command in-process (the CLI's functions, so no process start per step)."""
    from corral import cli

    if command == "demo":
        import subprocess
        import sys

        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve().parent.parent / "scripts" / "demo.py"), target, "--page"],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode in (0, 2) and "Traceback" not in proc.stderr, proc.stderr
        return
    args = (
        {
            "run": ["run", "s.toml", "--no-plots"],
            "sweep": ["sweep", "sweep.toml", "--workers", "1"],
            "compare": ["compare", "out", "--no-plots"],
            "reproduce": ["reproduce", "tiny-test", "--seeds", "1"],
            "arena": ["arena", "--seeds", "1", "--workers", "1"],
        }[command]
        + ["-o", target]
        + (["--force"] if force else [])
    )
    cwd = os.getcwd()
    os.chdir(work)
    try:
        cli._dispatch(args)
    except SystemExit as e:
        assert e.code in (0, 1, 2), e.code
    finally:
        os.chdir(cwd)


@pytest.fixture
def tiny_experiment(monkeypatch):
    """A reproduction of one 1 ms run, registered as `tiny-test`: the folder handling of
    `corral reproduce` without a paper's cost; sweeps run their cluster in threads."""
    import functools

    import corral.sweep
    from corral import experiments
    from corral.experiments import runner

    monkeypatch.setattr(corral.sweep, "run_sweep", functools.partial(corral.sweep.run_sweep, processes=False))

    class Tiny:
        @staticmethod
        def reproduce(out, *, seeds, quick, overrides, progress, force, max_memory):
            import tempfile

            scenario = Path(tempfile.mkdtemp()) / "t.toml"
            scenario.write_text(TINY.replace('duration = "20ms"', 'duration = "1ms"'))

            def write(result, folder: Path) -> None:
                (folder / "report.md").write_text(f"{result}\n")

            return runner.reproduce_into(
                out, "tiny-test", (), force, [runner.Job(scenario)], lambda job, res: res.summary["events"], lambda m: m, write
            )

        @staticmethod
        def rich_tables(report):
            return []

    monkeypatch.setitem(experiments.EXPERIMENTS, "tiny-test", Tiny)

    import corral.arena
    from corral.arena import plan as P

    def tiny_arena(out, **kw):
        net = P.fat_tree(4)
        web = P.Workload("websearch", "poisson", (0.5,), cdf="websearch")
        kw.update(cells=[P.Cell("ideal", net, web, 0.5, 0.001)], processes=False, quick=False, contenders=None)
        return real_arena(out, **kw)

    real_arena = corral.arena.run_arena
    monkeypatch.setattr(corral.arena, "run_arena", tiny_arena)


@hypothesis.settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=list(hypothesis.HealthCheck))
@hypothesis.given(
    steps=st.lists(st.tuples(st.sampled_from(COMMANDS), st.sampled_from(TARGETS), st.booleans()), min_size=1, max_size=5)
)
@hypothesis.example(steps=[("arena", "out", False), ("arena", "out", True), ("run", "out", True), ("compare", "out", True)])
@hypothesis.example(steps=[("reproduce", "out", False), ("sweep", "out", True), ("sweep", "out", False), ("run", "out", True)])
@hypothesis.example(steps=[("demo", "out", False), ("demo", "out", False), ("run", "out", True)])
@hypothesis.example(steps=[("run", "out", False), ("demo", "out", True), ("arena", "out", True), ("sweep", "out", True)])
def test_no_sequence_of_commands_changes_a_user_file(steps, tmp_path_factory, tiny_experiment) -> None:
    root = tmp_path_factory.mktemp("prop")
    work = _tree(root)
    before = _files(root)  # every file is the user's at the start
    for i, (command, target, force) in enumerate(steps):
        _do(command, target, force, work)
        now = _files(root)
        lost = {k: v for k, v in before.items() if now.get(k) != v}
        assert not lost, (steps, command, target, force, sorted(lost))
        _sprinkle(work, i)  # the user adds files into what corral wrote
        before.update({k: v for k, v in _files(root).items() if Path(k).name.startswith("mine-")})
