#!/usr/bin/env python3
"""Profile-guided optimization (PGO) of corral's native code, with rustc's
`-Cprofile-generate` and `-Cprofile-use` (the rustc book, "Profile-guided Optimization").

    python3 scripts/pgo.py run -- COMMAND...   # e.g. -- cargo build --release --example run_scenario

`run` makes a profile (below) and runs COMMAND, a cargo or maturin build, with
`-Cprofile-use=PROFILE` added to RUSTFLAGS and CARGO_TARGET_DIR=target/pgo/use (so that it
does not rebuild the plain `target/` that `cargo test` uses). Without a profile (no
llvm-profdata to be had, a failed step, or CORRAL_PGO=0) it says why and runs COMMAND the
same way without the flag: the build is then slower to run, never different in its results.

The profile: an instrumented build of the engine (`run_scenario`, in target/pgo/gen) runs
the training set, and llvm-profdata merges its counts into target/pgo/corral.profdata. The
training set is the package's own scenarios (python/corral/scenarios, long ones cut short),
a small dumbbell under each transport, queue discipline and in fluid mode, so that no
part of the engine is left with zero counts (which the compiler would optimize as cold),
and the package's k=4 web-search fat-tree in fluid mode, whose thousands of arrivals and
departures give the incremental allocator the weight it has in fluid runs. It leaves out
bench/'s scenarios: the benchmark does not time code trained on itself.

llvm-profdata comes with the rustup component `llvm-tools` (or an `llvm-profdata-N` on PATH
matching rustc's LLVM); this script never installs it, so it needs no network and changes
nothing outside the project. Everything this writes is under target/pgo.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PGO = ROOT / "target" / "pgo"
SCENARIOS = ROOT / "python" / "corral" / "scenarios"

# Scenarios longer than a second or so are cut to this simulated time.
SHORT = {
    "fct/websearch_fattree.toml": "150ms",
    "r2c2/fig7.toml": "20ms",
    "r2c2/rack.toml": "20ms",
    "ideal/websearch.toml": "300ms",
    "hcc/grpc.toml": "300ms",
}
# Not a scenario: a sweep's grid.
SKIP = {"fct/sweep.toml"}

DUMBBELL = "examples/dumbbell.toml"
ECN = ["transport.ecn=true", "switch.queue=ecn", "switch.ecn_threshold=20pkt"]


def variants(kinds: dict[str, list[str]]) -> list[list[str]]:
    """The dumbbell under each controller (with ECN, which every controller can run with and
    DCTCP's family needs), each queue discipline, and fluid mode (1 s simulated each): the
    lists come from the engine itself (`run_scenario --kinds`), so a new kind is trained on
    without an edit here."""
    runs = [[f"transport.cc={cc}", *ECN] for cc in kinds["controllers"]]
    runs += [[f"switch.queue={q}", *(["switch.ecn_threshold=20pkt"] if q == "ecn" else [])] for q in kinds["queues"]]
    return runs + [["mode=fluid"]]


# Runs with a part of the engine the runs above hardly reach: fluid mode with thousands of
# flows arriving and leaving (the dumbbell's few flows leave the incremental allocator's
# refill almost unexercised, and so optimized as cold code).
MORE = [
    ("fct/websearch_fattree.toml", ["mode=fluid"]),
]


class Unavailable(Exception):
    """No profile can be made here (the reason is the message)."""


def say(message: str) -> None:
    print(f"pgo: {message}", file=sys.stderr, flush=True)


def llvm_profdata() -> Path:
    """The llvm-profdata of the active Rust toolchain (rustup's `llvm-tools` component), or
    one on PATH. This never installs anything: without one, PGO is skipped with a message."""
    try:
        sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout.strip()
        version = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise Unavailable(f"rustc did not run: {e}") from e
    host = next((line.split(":", 1)[1].strip() for line in version.splitlines() if line.startswith("host:")), None)
    if host is None:
        raise Unavailable("rustc -vV names no host")
    tool = Path(sysroot) / "lib" / "rustlib" / host / "bin" / "llvm-profdata"
    if tool.is_file():
        return tool
    llvm = next((line.split(":", 1)[1].strip() for line in version.splitlines() if line.startswith("LLVM version:")), "")
    major = llvm.split(".")[0]
    for name in (f"llvm-profdata-{major}", "llvm-profdata"):
        found = shutil.which(name) if major or name == "llvm-profdata" else None
        if found:
            return Path(found)
    raise Unavailable(
        f"no llvm-profdata for rustc's LLVM {llvm or '(unknown)'}: `rustup component add llvm-tools` "
        "installs it (corral never does that for you)"
    )


def training_runs(kinds: dict[str, list[str]]) -> list[list[str]]:
    """Scenario path and overrides of each training run."""
    runs = []
    for path in sorted(SCENARIOS.rglob("*.toml")):
        name = path.relative_to(SCENARIOS).as_posix()
        if name in SKIP:
            continue
        runs.append([str(path)] + ([f"duration={SHORT[name]}"] if name in SHORT else []))
    runs += [[str(SCENARIOS / DUMBBELL), "duration=1s", *v] for v in variants(kinds)]
    runs += [[str(SCENARIOS / name), *overrides] for name, overrides in MORE]
    return runs


def with_flags(env: dict, flags: str, target: Path) -> dict:
    env = dict(env)
    env["RUSTFLAGS"] = f"{env.get('RUSTFLAGS', '')} {flags}".strip()
    env["CARGO_TARGET_DIR"] = str(target)
    return env


def make_profile() -> Path:
    """Builds the instrumented engine, trains it and merges the profile; its path."""
    if os.environ.get("CORRAL_PGO") == "0":
        raise Unavailable("CORRAL_PGO=0")
    tool = llvm_profdata()
    raw = PGO / "raw"
    shutil.rmtree(raw, ignore_errors=True)
    raw.mkdir(parents=True)
    say("building the instrumented engine (target/pgo/gen)")
    env = with_flags(os.environ, f"-Cprofile-generate={raw}", PGO / "gen")
    try:
        build = subprocess.run(["cargo", "build", "--release", "-p", "corral", "--example", "run_scenario"], cwd=ROOT, env=env)
    except OSError as e:
        raise Unavailable(f"cargo did not run: {e}") from e
    if build.returncode != 0:
        raise Unavailable("the instrumented build failed")
    engine = PGO / "gen" / "release" / "examples" / "run_scenario"
    listed = subprocess.run([str(engine), "--kinds"], capture_output=True, text=True)
    if listed.returncode != 0:
        raise Unavailable(f"run_scenario --kinds failed: {listed.stderr.strip()[-300:]}")
    runs = training_runs(json.loads(listed.stdout))
    say(f"training: {len(runs)} runs")
    for args in runs:
        run = subprocess.run([str(engine), *args], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            raise Unavailable(f"training run {' '.join(args)} failed: {run.stderr.strip()[-300:]}")
    profile = PGO / "corral.profdata"
    part = PGO / "corral.profdata.part"
    merge = subprocess.run(
        [str(tool), "merge", "-o", str(part), *map(str, sorted(raw.glob("*.profraw")))], capture_output=True, text=True
    )
    if merge.returncode != 0:
        raise Unavailable(f"llvm-profdata merge failed: {merge.stderr.strip()[-300:]}")
    part.replace(profile)
    return profile


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[:2] != ["run", "--"]:
        print(__doc__, file=sys.stderr)
        return 2
    command = argv[2:]
    try:
        flags = f"-Cprofile-use={make_profile()}"
        say("building with the profile (target/pgo/use)")
    except Unavailable as e:
        say(f"building without profile-guided optimization: {e}")
        flags = ""
    try:
        return subprocess.run(command, cwd=ROOT, env=with_flags(os.environ, flags, PGO / "use")).returncode
    except OSError as e:
        print(f"error: {command[0]}: {e.strerror or e}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
