"""The profile-guided build's script (scripts/pgo.py): its training set and its fallback.

The build itself is exercised by `make` (CI builds the wheel the suite runs against with
it); these check what would otherwise fail quietly: a training run that no longer loads
makes the build fall back to no profile, and the benchmark's scenarios must stay out of the
training set.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import corral
import pytest
from corral.api import simulation

ROOT = Path(__file__).resolve().parent.parent
SPEC = importlib.util.spec_from_file_location("pgo", ROOT / "scripts" / "pgo.py")
pgo = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(pgo)


KINDS = corral.kinds()  # what `run_scenario --kinds` prints, from the same declarations


def test_training_covers_every_package_scenario_and_no_benchmark():
    runs = pgo.training_runs(KINDS)
    paths = {Path(r[0]).resolve() for r in runs}
    package = {p.resolve() for p in pgo.SCENARIOS.rglob("*.toml")} - {(pgo.SCENARIOS / s).resolve() for s in pgo.SKIP}
    assert package <= paths
    bench = ROOT / "bench"
    assert not any(bench in p.parents for p in paths)
    # Every controller and discipline the engine declares runs on the dumbbell.
    on_dumbbell = [" ".join(r[1:]) for r in runs if Path(r[0]).name == "dumbbell.toml" and len(r) > 2]
    for cc in KINDS["controllers"]:
        assert any(f"transport.cc={cc} " in v for v in on_dumbbell), cc
    for q in KINDS["queues"]:
        assert any(f"switch.queue={q}" in v for v in on_dumbbell), q


@pytest.mark.parametrize("run", pgo.training_runs(KINDS), ids=lambda r: " ".join([Path(r[0]).name, *r[1:]]))
def test_every_training_run_builds(run):
    # Built, not run: an invalid scenario or override would fail the training and with it the
    # profile, silently (the build then goes on without one).
    simulation(run[0], run[1:])


def test_without_a_profile_the_command_runs_plainly_in_its_own_target_dir(monkeypatch):
    monkeypatch.setenv("CORRAL_PGO", "0")
    monkeypatch.setenv("RUSTFLAGS", "-Cdebuginfo=0")
    show = "import json, os; print(json.dumps({k: os.environ.get(k) for k in ('RUSTFLAGS', 'CARGO_TARGET_DIR')}))"
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "pgo.py"), "run", "--", sys.executable, "-c", show],
        capture_output=True,
        text=True,
        check=True,
    )
    env = json.loads(out.stdout)
    assert env["RUSTFLAGS"] == "-Cdebuginfo=0"  # the user's flags kept, no profile added
    assert Path(env["CARGO_TARGET_DIR"]) == ROOT / "target" / "pgo" / "use"
    assert "without profile-guided optimization: CORRAL_PGO=0" in out.stderr


def test_the_command_s_exit_code_is_passed_on_and_bad_usage_is_refused(monkeypatch):
    monkeypatch.setenv("CORRAL_PGO", "0")
    failing = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "pgo.py"), "run", "--", sys.executable, "-c", "raise SystemExit(7)"],
        capture_output=True,
        text=True,
    )
    assert failing.returncode == 7
    usage = subprocess.run([sys.executable, str(ROOT / "scripts" / "pgo.py"), "build"], capture_output=True, text=True)
    assert usage.returncode == 2 and "pgo.py run --" in usage.stderr
    missing = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "pgo.py"), "run", "--", "no-such-command-xyz"], capture_output=True, text=True
    )
    assert missing.returncode == 127 and "error: no-such-command-xyz" in missing.stderr
