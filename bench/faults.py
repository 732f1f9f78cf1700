"""Fault-injection matrix for corral's output folders (issue "A result is complete or absent:
outputs that survive kill -9, a full disk and a second writer ...").

    python bench/faults.py [--corral PYTHON] [--json FILE] [--only CATEGORY] [--case TEXT]

Each case starts real `corral` processes (`PYTHON -m corral.cli ...`, PYTHON being the Python of
an environment where corral is installed; default this interpreter), hurts them, and then
looks at what a user would see: the files of the output folder against a reference run of
the same command, exit codes and stderr, and what corral itself then says of the folder (a
`corral compare` of it, a resumed sweep's "N skipped"). Each outcome is one of:

- held: the folder holds the previous complete result, the new complete result, or one that
  corral treats as incomplete (its readers refuse or redo it, or its marker says
  `"complete": false`); user files intact; a command that was meant to succeed did;
- clear error: exit status not 0 with an `error:` line naming the problem (the words the
  case expects), no traceback, nothing half-written;
- misleading: exit status 0, or a message, that is false: a folder that looks complete but is
  not (corral's readers accept it, its files differ from both results), a resumed sweep
  skipping a run that is not complete, an error that does not name the problem, a name the
  file system accepts refused as too long, scratch folders a killed writer left that the
  next writer does not remove (the issue's "small lies");
- lost: a user file or a previous complete result destroyed without a folder marked
  incomplete in its place, or two runs' files mixed in a folder that looks complete;
- hang: the child did not end within its timeout (killed);
- crash: a traceback, a death by a signal the case did not send, or the memory limit.

When several apply, the first of lost, misleading, hang, crash, clear error wins.

How faults are injected: a `sitecustomize.py` put on the child's PYTHONPATH wraps `os.rename`
and `os.replace` (and so `Path.rename`): it logs every call, can slow each one down, and can
send a signal (SIGKILL or SIGTERM to the process, SIGKILL or SIGINT to its process group,
SIGKILL or SIGTERM from a sweep's worker to the sweep) or raise EIO at the Nth call or when a
given path is about to be renamed into place. The moments are thus exact (the first rename of
the publishing, the one that lands `summary.json`, the last one); "early" and
"mid-simulation" moments are times measured on a reference run. Children run in a session of
their own, with a timeout, and (for the input cases) an address-space limit
(`resource.RLIMIT_AS`), so that a corral that reads /dev/zero cannot take the machine. The
full-disk and read-only cases mount a small tmpfs (root only; skipped with a note where
mounting fails). Everything is written in a temporary folder, removed at the end (`--keep`).

Nothing here is corral's code: the script works against any corral version whose CLI has
`run`, `sweep`, `compare` and `reproduce`, so it can compare a build before a change with one
after it (bench/README.md, "Fault injection").
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CLASSES = ("held", "clear error", "misleading", "lost", "hang", "crash")
# Which class a case gets when several apply.
PRECEDENCE = ("lost", "misleading", "hang", "crash", "clear error")
MARKER = ".corral-output.json"
TRACEBACK = "Traceback (most recent call last)"


def tiny_scenario() -> str:
    """tests/conftest.py's TINY (two long flows over a dumbbell), read from that file."""
    tree = ast.parse((REPO / "tests" / "conftest.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "TINY" for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit("tests/conftest.py has no TINY scenario")


TINY = tiny_scenario()
SCENARIO = TINY.replace('duration = "20ms"', 'duration = "5ms"')
# Long enough that a kill at 60 % of the time before the first rename falls in the simulation.
LONG = "duration=400ms"
SWEEP = 'scenario = "s.toml"\nseeds = 3\n[set]\nduration = "3ms"\n'

# The fault hook, installed as sitecustomize.py on the child's PYTHONPATH. FAULT_PARENT is the
# harness's PID: a process whose parent it is counts as "main", any other (a sweep's Dask
# worker) as "worker".
HOOK = r"""
import os, time, json
_E = os.environ
if _E.get("FAULT_PARENT"):
    import signal as _signal
    _role = "main" if str(os.getppid()) == _E["FAULT_PARENT"] else "worker"
    _armed = _E.get("FAULT_ROLE", "main") in ("any", _role)
    _delay = float(_E.get("FAULT_DELAY") or 0)
    _log = _E.get("FAULT_LOG")
    _at = int(_E.get("FAULT_AT") or 0)
    _dst = _E.get("FAULT_AT_DST") or ""
    _action = _E.get("FAULT_ACTION") or ""
    _once = _E.get("FAULT_ONCE") or ""
    _n = [0]

    def _write(**rec):
        if _log:
            rec.update(t=time.time(), pid=os.getpid(), role=_role)
            fd = os.open(_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, (json.dumps(rec) + "\n").encode())
            finally:
                os.close(fd)

    _write(event="start")

    def _first():
        if not _once:
            return True
        try:
            os.close(os.open(_once, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            return True
        except FileExistsError:
            return False

    def _fire(dst):
        _write(event="fire", action=_action, dst=dst)
        a = _action
        if a == "kill9":
            os.kill(os.getpid(), _signal.SIGKILL)
        elif a == "kill9-group":
            os.killpg(os.getpgid(0), _signal.SIGKILL)
        elif a == "term":
            os.kill(os.getpid(), _signal.SIGTERM)
        elif a == "int-group":
            os.killpg(os.getpgid(0), _signal.SIGINT)
        elif a == "kill9-parent":
            os.kill(os.getppid(), _signal.SIGKILL)
        elif a == "term-parent":
            os.kill(os.getppid(), _signal.SIGTERM)
        elif a == "eio":
            raise OSError(5, "Input/output error (injected)", dst)

    def _wrap(real):
        def wrapped(src, dst, *args, **kwargs):
            _n[0] += 1
            s, d = os.fsdecode(src), os.fsdecode(dst)
            _write(event="rename", n=_n[0], src=s, dst=d)
            if _armed and _action and ((_at and _n[0] == _at) or (_dst and os.path.abspath(d) == _dst)) and _first():
                _fire(d)  # a handler of SIGTERM/SIGINT runs here: before the rename, as during a slow one
            if _delay:
                time.sleep(_delay)
            return real(src, dst, *args, **kwargs)
        return wrapped

    os.rename = _wrap(os.rename)
    os.replace = _wrap(os.replace)
"""

# Run with the corral Python: Parquet reads for the classifier (the harness needs no polars).
PARQUET = r"""
import json, sys
import polars as pl
if sys.argv[1] == "index":
    try:
        df = pl.read_parquet(sys.argv[2])
        print(json.dumps({"ok": True, "hash": df["hash"].to_list(), "status": df["status"].to_list()}))
    except Exception as e:
        print(json.dumps({"ok": False, "error": (type(e).__name__ + ": " + str(e))[:300]}))
else:
    from polars.testing import assert_frame_equal
    try:
        assert_frame_equal(pl.read_parquet(sys.argv[2]), pl.read_parquet(sys.argv[3]), check_exact=False, rtol=1e-9)
        print("same")
    except Exception:
        print("differ")
"""


# -- children ---------------------------------------------------------------------------------


@dataclass
class Result:
    """One child process: how it ended, what it printed, the renames it (and its workers) made."""

    args: list[str]
    code: int | None  # exit status; None when it timed out or died by a signal
    signal: int | None  # the signal it died of
    timed_out: bool
    out: str
    err: str
    elapsed: float
    orphans: int = 0  # processes of its group still alive after it ended (killed then)
    log: list[dict] = field(default_factory=list)
    fault: str = ""  # the hook's action, if the case set one

    @property
    def fired(self) -> bool:
        return any(r.get("event") == "fire" for r in self.log)

    @property
    def traceback(self) -> bool:
        return TRACEBACK in self.err

    def traceback_lines(self) -> int:
        """Lines of Python tracebacks in stderr (from a traceback header to the exception line)."""
        n, inside = 0, False
        for line in self.err.splitlines():
            if line.startswith(TRACEBACK):
                inside = True
            if inside:
                n += 1
                if line and not line.startswith((" ", TRACEBACK)):
                    inside = False
        return n

    @property
    def error(self) -> str:
        lines = [ln for ln in self.err.splitlines() if ln.startswith("error:")]
        return lines[0] if lines else ""

    def renames(self, role: str | None = None) -> list[dict]:
        return [r for r in self.log if r.get("event") == "rename" and (role is None or r["role"] == role)]

    def started(self) -> float:
        return min((r["t"] for r in self.log if r.get("event") == "start"), default=0.0)

    def brief(self) -> dict:
        return {
            "args": [a if isinstance(a, str) else os.fsdecode(a) for a in self.args],
            "code": self.code,
            "signal": self.signal,
            "timed_out": self.timed_out,
            "elapsed_s": round(self.elapsed, 2),
            "orphans": self.orphans,
            "stderr": self.err[-1500:],
            "stdout": self.out[-500:],
        }


def cpu_seconds(pid: int, seconds: float, timeout: float = 120.0) -> None:
    """Wait until process `pid` has used `seconds` of CPU time (or ended, or `timeout`)."""
    tick = os.sysconf("SC_CLK_TCK")
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields[0] == "Z" or (int(fields[11]) + int(fields[12])) / tick >= seconds:
            return
        time.sleep(0.05)


def group_alive(pgid: int) -> int:
    """Processes (not zombies) of process group `pgid`."""
    n = 0
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[0] != "Z" and int(fields[2]) == pgid:
            n += 1
    return n


class Harness:
    def __init__(self, python: str, work: Path, input_timeout: float, mem_bytes: int) -> None:
        self.python = python
        self.work = work
        self.input_timeout = input_timeout
        self.mem_bytes = mem_bytes
        self.hook = work / "hook"
        self.hook.mkdir()
        (self.hook / "sitecustomize.py").write_text(HOOK)
        self.seq = 0
        self.refs: dict[str, object] = {}
        self.mounts: list[Path] = []

    # A child: its own session (a group to signal and to clean up), stdout/stderr to files (a
    # sweep's orphaned workers could hold a pipe open), the fault hook on its PYTHONPATH.
    def start(self, args, cwd: Path, *, fault: dict | None = None, delay: float = 0.0, mem: bool = False):
        self.seq += 1
        tag = self.work / "logs" / f"{self.seq:04d}"
        tag.parent.mkdir(exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("FAULT_")}
        env["PYTHONPATH"] = os.pathsep.join([str(self.hook), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        env["FAULT_PARENT"] = str(os.getpid())
        env["FAULT_LOG"] = f"{tag}.renames"
        env["FAULT_DELAY"] = str(delay)
        for k, v in (fault or {}).items():
            env[f"FAULT_{k.upper()}"] = str(v)
        limit = self.mem_bytes if mem else None

        def limits() -> None:
            if limit:
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        out, err = open(f"{tag}.out", "wb"), open(f"{tag}.err", "wb")
        proc = subprocess.Popen(
            [self.python, "-m", "corral.cli", *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
            preexec_fn=limits,
        )
        out.close()
        err.close()
        return Child(proc, list(args), tag, time.monotonic(), str((fault or {}).get("action", "")))

    def run(
        self, args, cwd: Path, *, at: float | None = None, sig: int = signal.SIGKILL, group: bool = False, timeout=None, **kw
    ):
        """Run a child to its end; with `at`, send it (or its group) `sig` after `at` seconds."""
        child = self.start(args, cwd, **kw)
        if at is not None:
            child.signal_at(at, sig, group)
        return child.finish(timeout or self.timeout_for(args))

    def timeout_for(self, args) -> float:
        return {"reproduce": 600.0, "sweep": 300.0}.get(str(args[0]), 120.0)

    # -- references: each command run once, undisturbed -------------------------------------
    def ref(self, name: str, make: Callable[[], object]):
        if name not in self.refs:
            self.refs[name] = make()
        return self.refs[name]

    def mount(self, where: Path, size: str) -> bool:
        where.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
        if proc.returncode == 0:
            self.mounts.append(where)
        return proc.returncode == 0

    def remount_ro(self, where: Path) -> bool:
        return subprocess.run(["mount", "-o", "remount,ro", str(where)], capture_output=True).returncode == 0

    def unmount_all(self) -> None:
        for m in reversed(self.mounts):
            subprocess.run(["umount", "-l", str(m)], capture_output=True)
        self.mounts.clear()

    def parquet(self, *args: str) -> str:
        proc = subprocess.run([self.python, "-c", PARQUET, *args], capture_output=True, text=True, timeout=120)
        return proc.stdout.strip()


@dataclass
class Child:
    proc: subprocess.Popen
    args: list
    tag: Path
    t0: float
    fault: str = ""

    def signal_at(self, at: float, sig: int, group: bool = False) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=max(0.0, at - (time.monotonic() - self.t0)))
            return
        with contextlib.suppress(ProcessLookupError):
            (os.killpg if group else os.kill)(self.proc.pid, sig)

    def finish(self, timeout: float) -> Result:
        timed_out = False
        try:
            self.proc.wait(timeout=max(0.1, timeout - (time.monotonic() - self.t0)))
        except subprocess.TimeoutExpired:
            timed_out = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        elapsed = time.monotonic() - self.t0
        orphans = group_alive(self.proc.pid)
        if orphans:  # a sweep's workers after their sweep was killed: a moment to end by themselves
            time.sleep(1.0)
            orphans = group_alive(self.proc.pid)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            time.sleep(0.2)
        rc = self.proc.returncode
        log = []
        with contextlib.suppress(OSError):
            for line in Path(f"{self.tag}.renames").read_text().splitlines():
                with contextlib.suppress(ValueError):
                    log.append(json.loads(line))
        return Result(
            self.args,
            None if timed_out or rc < 0 else rc,
            -rc if rc < 0 and not timed_out else None,
            timed_out,
            Path(f"{self.tag}.out").read_text(errors="replace"),
            Path(f"{self.tag}.err").read_text(errors="replace"),
            elapsed,
            orphans,
            log,
            self.fault,
        )


# -- what a folder holds -----------------------------------------------------------------------


def is_users(rel: str) -> bool:
    return any(p.startswith("mine") or p.startswith((".corral-tmp-mine", ".corral-old-mine")) for p in rel.split("/"))


def files_of(folder: Path) -> dict[str, bytes]:
    """Every regular file below `folder` (not following links), by relative path."""
    out = {}
    if not folder.is_dir():
        return out
    for root, _dirs, files in os.walk(folder):
        for f in files:
            p = Path(root) / f
            if p.is_file() and not p.is_symlink():
                with contextlib.suppress(OSError):
                    out[p.relative_to(folder).as_posix()] = p.read_bytes()
    return out


def data_of(files: dict[str, bytes]) -> dict[str, bytes]:
    """corral's result files: no marker, lock or scratch entry, no timing.json (wall clock), no
    user file."""
    return {
        k: v
        for k, v in files.items()
        if not is_users(k) and k.split("/")[-1] != "timing.json" and not any(p.startswith(".corral-") for p in k.split("/"))
    }


def user_files(root: Path) -> dict[str, bytes]:
    """The user's files below `root` (named mine*, .corral-tmp-mine*, .corral-old-mine*)."""
    return {k: v for k, v in files_of(root).items() if is_users(k) and not k.startswith("oracle")}


def leftovers(*places: Path) -> list[str]:
    """corral's scratch entries (.corral-tmp-*, .corral-old-*; not the user's) in `places`."""
    left = []
    for place in places:
        if place.is_dir():
            for p in place.iterdir():
                if p.name.startswith((".corral-tmp-", ".corral-old-")) and not is_users(p.name):
                    left.append(str(p))
    return sorted(left)


NUMBER = re.compile(r"-?\d+\.\d+(?:[eE][-+]?\d+)?")


def _same_file(h: Harness, name: str, a: bytes, b: bytes) -> bool:
    if a == b:
        return True
    if name.endswith(".parquet"):  # a report's statistics may differ in their last digit
        with tempfile.TemporaryDirectory(dir=h.work) as d:
            (Path(d) / "a").write_bytes(a)
            (Path(d) / "b").write_bytes(b)
            return h.parquet("same", f"{d}/a", f"{d}/b") == "same"
    if name.endswith(".json"):  # a reproduction's claims.json records the machine and its load
        try:
            return _steady(json.loads(a)) == _steady(json.loads(b))
        except ValueError:
            return False
    if name.endswith((".md", ".csv", ".txt")):
        try:
            ta, tb = a.decode(), b.decode()
        except UnicodeDecodeError:
            return False
        return NUMBER.sub(lambda m: f"{float(m.group()):.9g}", ta) == NUMBER.sub(lambda m: f"{float(m.group()):.9g}", tb)
    return False


VOLATILE = {"machine", "load_average", "wall_time_s", "pid"}


def _steady(x):
    """JSON without what changes from one run to the next (the machine, its load, wall times)
    and with numbers to 9 significant digits."""
    if isinstance(x, dict):
        return {k: _steady(v) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [_steady(v) for v in x]
    if isinstance(x, float):
        return float(f"{x:.9g}")
    return x


def same(h: Harness, a: dict[str, bytes], b: dict[str, bytes], tolerant: bool = False) -> bool:
    if a.keys() != b.keys():
        return False
    return all(a[k] == b[k] or (tolerant and _same_file(h, k, a[k], b[k])) for k in a)


def mixed(a: dict[str, bytes], b: dict[str, bytes], held: dict[str, bytes]) -> bool:
    """Whether `held` has files of result `a` and of result `b` (among the files that differ)."""
    differ = [k for k in held if k in a and k in b and a[k] != b[k]]
    return any(held[k] == a[k] for k in differ) and any(held[k] == b[k] for k in differ)


def marker_says_incomplete(folder: Path) -> bool:
    try:
        data = json.loads((folder / MARKER).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("complete") is False


# -- verdicts ----------------------------------------------------------------------------------


class Verdict:
    def __init__(self) -> None:
        self.flags: dict[str, list[str]] = {}
        self.notes: list[str] = []
        self.results: list[Result] = []

    def flag(self, cls: str, why: str) -> None:
        assert cls in CLASSES, cls
        self.flags.setdefault(cls, []).append(why)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def cls(self) -> str:
        for c in PRECEDENCE:
            if c in self.flags:
                return c
        return "held"

    def saw(self, r: Result, *, sent: tuple[int, ...] = (), expect_ok: bool = False, name: str = "") -> Result:
        """Record a child: a timeout is a hang; a traceback, a death by a signal the case did
        not send or the memory limit a crash; with `expect_ok`, a failure is flagged."""
        self.results.append(r)
        who = name or " ".join(map(str, r.args[:1]))
        if r.timed_out:
            self.flag("hang", f"{who}: no end within {r.elapsed:.0f} s")
        if r.traceback:
            self.flag("crash", f"{who}: traceback ({r.traceback_lines()} lines): {last_line(r.err)}")
        if r.signal is not None and r.signal not in sent:
            self.flag("crash", f"{who}: killed by signal {r.signal}")
        if "MemoryError" in r.err or "memory allocation of" in r.err:
            self.flag("crash", f"{who}: out of memory (the address-space limit)")
        if r.orphans:
            self.note(f"{who}: {r.orphans} process(es) of its group still ran after it ended")
        if r.fault and not r.fired:
            self.note(f"NOT INJECTED: {who} never reached the moment of its fault ({r.fault})")
        if r.signal == signal.SIGTERM and signal.SIGTERM in sent and not r.err.strip():
            self.note(f"{who}: died of SIGTERM without a word")
        if expect_ok and r.code != 0 and not r.timed_out and not r.traceback:
            if r.error:
                self.flag("clear error", f"{who}: {r.error}")
            else:
                self.flag("misleading", f"{who}: exit {r.code} without an error line: {last_line(r.err)}")
        return r

    def refused(self, r: Result, words: tuple[str, ...], name: str = "") -> None:
        """A command that should be refused: clear error if it names the problem (any of `words`)."""
        who = name or str(r.args[0])
        if r.code == 0:
            return
        if r.code is None:
            return  # a hang or a crash, flagged by saw()
        if r.traceback:
            return
        # matched without the folders of paths (a case's folder name must not match)
        text = re.sub(r"\S*/", "", r.err).lower()
        if r.error and any(w.lower() in text for w in words):
            self.flag("clear error", f"{who}: {r.error[:200]}")
        elif r.error:
            self.flag("misleading", f"{who}: the error does not name the problem: {r.error[:200]}")
        else:
            self.flag("misleading", f"{who}: exit {r.code} without an error line")

    def as_dict(self) -> dict:
        return {"class": self.cls(), "flags": self.flags, "notes": self.notes, "children": [r.brief() for r in self.results]}


def last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


# -- judging one output folder ------------------------------------------------------------------


def run_accepted(h: Harness, folder: Path) -> tuple[bool, str]:
    """Whether corral treats a run folder as a complete run: `corral compare` of it succeeds
    (or crashes trying to read it) rather than refusing it."""
    h.seq += 1
    r = h.run(["compare", str(folder), "-o", str(h.work / "oracle" / f"{h.seq}"), "--no-plots"], h.work)
    return (r.code == 0 or r.traceback), (r.error or last_line(r.err))


def report_accepted(h: Harness, folder: Path) -> tuple[bool, str]:
    """A report or reproduction has no reader: it looks complete unless its marker is missing or
    says `"complete": false`."""
    if not (folder / MARKER).exists():
        return False, "no marker"
    if marker_says_incomplete(folder):
        return False, 'marker says "complete": false'
    return True, ""


def judge(v: Verdict, h: Harness, folder: Path, refs: dict[str, dict], prev: str | None, accepted, tolerant=False) -> str:
    """Classify what `folder` holds after a fault: absent, one of `refs` (by name), incomplete
    (corral refuses or marks it), mixed, or partial; flag lost/misleading."""
    if not folder.exists():
        if prev is not None:
            v.flag("lost", f"{folder.name}: the previous result is gone")
        return "absent"
    data = data_of(files_of(folder))
    order = [prev] + [k for k in refs if k != prev] if prev else list(refs)
    for name in order:
        if same(h, data, refs[name], tolerant):
            return name
    ok, why = accepted(h, folder)
    names = list(refs)
    is_mixed = any(mixed(refs[a], refs[b], data) for i, a in enumerate(names) for b in names[i + 1 :])
    if not ok:
        v.note(f"{folder.name}: incomplete, and corral says so ({why[:160]})")
        return "incomplete"
    missing = sorted(set().union(*(refs[n].keys() for n in refs)) - data.keys())
    if is_mixed:
        v.flag("lost", f"{folder.name}: files of two results mixed, and it looks complete")
        return "mixed"
    v.flag("misleading", f"{folder.name}: looks complete but is neither result (missing {missing[:4]})")
    return "partial"


def check_users(v: Verdict, before: dict[str, bytes], root: Path) -> None:
    after = user_files(root)
    gone = sorted(k for k in before if after.get(k) != before[k])
    if gone:
        v.flag("lost", f"user files changed or removed: {gone}")


# -- references -----------------------------------------------------------------------------------


def project(h: Harness, name: str) -> Path:
    d = h.work / "cases" / name
    d.mkdir(parents=True)
    (d / "s.toml").write_text(SCENARIO)
    (d / "mine.txt").write_text("mine")
    return d


def ref_run(h: Harness, seed: int) -> dict:
    """The files of `corral run s.toml --set seed=N` in a new folder, and its renames."""

    def make():
        d = project(h, f"ref-run-{seed}")
        r = h.run(["run", "s.toml", "-o", "out", "--no-plots", "--set", f"seed={seed}"], d)
        assert r.code == 0, r.err
        return {"dir": d / "out", "data": data_of(files_of(d / "out")), "renames": len(r.renames("main")), "result": r}

    return h.ref(f"run{seed}", make)


def ref_replace(h: Harness) -> dict:
    """Seed 2 replacing seed 1: its renames (the publishing steps), its timing, and a long
    run's (for mid-simulation moments)."""

    def make():
        d = project(h, "ref-replace")
        shutil.copytree(ref_run(h, 1)["dir"], d / "out", symlinks=True)
        r = h.run(["run", "s.toml", "-o", "out", "--no-plots", "--set", "seed=2"], d)
        assert r.code == 0, r.err
        assert same(h, data_of(files_of(d / "out")), ref_run(h, 2)["data"]), "a replacement is not the new result"
        long = h.run(["run", "s.toml", "-o", "long", "--no-plots", "--set", LONG], d)
        assert long.code == 0, long.err
        first = long.renames("main")[0]["t"] - long.started()
        return {"renames": len(r.renames("main")), "long_first_rename_s": first, "long_s": long.elapsed}

    return h.ref("replace", make)


def ref_sweep(h: Harness) -> dict:
    """A 3-run sweep: each run folder's files by hash, and when its worker first renamed."""

    def make():
        d = project(h, "ref-sweep")
        (d / "sweep.toml").write_text(SWEEP)
        r = h.run(["sweep", "sweep.toml", "-o", "sw", "--workers", "1"], d)
        assert r.code == 0, r.err
        runs = {p.name: data_of(files_of(p)) for p in (d / "sw" / "runs").iterdir() if not p.name.startswith(".")}
        assert len(runs) == 3, runs.keys()
        worker = r.renames("worker")
        order = []  # hashes in the order their folders were published
        for rec in worker:
            name = Path(rec["dst"]).name
            if Path(rec["dst"]).parent.name == "runs" and name in runs and name not in order:
                order.append(name)
        return {
            "dir": d / "sw",
            "runs": runs,
            "order": order,
            "first_worker_rename_s": worker[0]["t"] - r.started() if worker else r.elapsed,
            "elapsed": r.elapsed,
            "result": r,
        }

    return h.ref("sweep", make)


def compare_base(h: Harness) -> Path:
    """A folder with a 3-run sweep `sw` and a run folder `r1`: what the compare cases read."""

    def make():
        d = h.work / "compare-base"
        d.mkdir()
        shutil.copytree(ref_sweep(h)["dir"], d / "sw", symlinks=True)
        shutil.copytree(ref_run(h, 1)["dir"], d / "r1", symlinks=True)
        return d

    return h.ref("compare-base", make)


PREV_COMPARE = ["compare", "sw", "-o", "rep", "--no-plots"]
NEW_COMPARE = ["compare", "sw", "r1", "-o", "rep", "--no-plots"]


def ref_compare(h: Harness) -> dict:
    """The report of `compare sw` (the previous one), of `compare sw r1` (the new one), and the
    renames of the latter into a new folder and over the former."""

    def make():
        d = h.work / "cases" / "ref-compare"
        shutil.copytree(compare_base(h), d, symlinks=True)
        fresh = h.run(NEW_COMPARE[:-3] + ["-o", "fresh", "--no-plots"], d)
        assert fresh.code == 0, fresh.err
        first = len(fresh.renames("main"))
        a = h.run(PREV_COMPARE, d)
        assert a.code == 0, a.err
        prev = data_of(files_of(d / "rep"))
        shutil.copytree(d / "rep", d / "prev-copy", symlinks=True)
        b = h.run(NEW_COMPARE, d)  # replacing the previous report
        assert b.code == 0, b.err
        new = data_of(files_of(d / "rep"))
        return {"prev": prev, "new": new, "prev_dir": d / "prev-copy", "renames": len(b.renames("main")), "renames_new": first}

    return h.ref("compare", make)


REPRODUCE = ["reproduce", "outcast", "--quick", "-o", "rep"]


def ref_reproduce(h: Harness) -> dict:
    def make():
        d = project(h, "ref-reproduce")
        r = h.run(REPRODUCE, d)
        assert r.code == 0, r.err
        return {"dir": d / "rep", "data": data_of(files_of(d / "rep")), "elapsed": r.elapsed}

    return h.ref("reproduce", make)


# -- the cases --------------------------------------------------------------------------------------


@dataclass
class Case:
    category: str
    id: str
    what: str
    fn: Callable[[Harness, Verdict, str], None]


CASES: list[Case] = []


def case(category: str, cid: str, what: str, fn: Callable[[Harness, Verdict, str], None]) -> None:
    CASES.append(Case(category, cid, what, fn))


SIGS = {"kill9": signal.SIGKILL, "term": signal.SIGTERM, "int-group": signal.SIGINT}
RUN2 = ["run", "s.toml", "-o", "out", "--no-plots", "--set", "seed=2"]


def moment_fault(moment: str, action: str, renames: int, folder: Path) -> tuple[dict | None, float | None]:
    """The hook's fault for a publishing moment, or (None, seconds) for a timed one."""
    if moment == "rename1":
        return {"action": action, "at": 1}, None
    if moment == "half":
        return {"action": action, "at": max(1, renames // 2)}, None
    if moment == "last":
        return {"action": action, "at": renames}, None
    if moment.startswith("dst:"):  # when this file is about to land in the folder
        return {"action": action, "at_dst": str(folder / moment[4:])}, None
    raise ValueError(moment)


def next_writer(h: Harness, v: Verdict, d: Path, args, folder: Path, ref: dict, places, *, strict: bool, tolerant=False) -> None:
    """The same command again, undisturbed: it must finish the job and (with `strict`) leave
    none of the killed writer's scratch entries behind."""
    left = leftovers(*places)
    if left:
        v.note(f"after the fault, scratch entries: {[Path(p).name for p in left]}")
    before = user_files(d)
    r = v.saw(h.run(args, d), expect_ok=True, name="the next writer")
    if r.code == 0 and not same(h, data_of(files_of(folder)), ref, tolerant):
        v.flag("misleading", "the next writer exited 0 but the folder does not hold its result")
    check_users(v, before, d)
    still = [p for p in leftovers(*places) if p in left]
    if still:
        msg = f"the next writer left the killed writer's scratch entries: {[Path(p).name for p in still]}"
        v.flag("misleading", msg) if strict else v.note(msg)
    elif left:
        v.note("the next writer removed them")


def run_kill(new: bool, action: str, moment: str, strict: bool = False, user_tmp: bool = False):
    """`corral run` (seed 2) into a new folder or over seed 1's result, hurt at `moment`."""

    def fn(h: Harness, v: Verdict, name: str) -> None:
        d = project(h, name)
        one, two = ref_run(h, 1), ref_run(h, 2)
        refs = {"seed1": one["data"], "seed2": two["data"]}
        if not new:
            shutil.copytree(one["dir"], d / "out", symlinks=True)
            (d / "out" / "mine-notes.txt").write_text("mine")
            renames = ref_replace(h)["renames"]
        else:
            renames = two["renames"]
        if user_tmp:
            (d / ".corral-tmp-mine").write_text("a user's file named like corral's")
            (d / ".corral-old-mine").mkdir()
            (d / ".corral-old-mine" / "notes").write_text("mine")
            if (d / "out").is_dir():
                (d / "out" / ".corral-tmp-mine").write_text("mine")
        before = user_files(d)
        sig = SIGS[action]
        args = list(RUN2)
        if moment in ("early", "midsim"):
            at = 0.3 if moment == "early" else 0.6 * ref_replace(h)["long_first_rename_s"]
            if moment == "midsim":
                args += ["--set", LONG]
            r = h.run(args, d, at=at, sig=sig)
        else:
            fault, _ = moment_fault(moment, action, renames, d / "out")
            r = h.run(args, d, fault=fault, delay=0.02)
        v.saw(r, sent=(sig,))
        st = judge(v, h, d / "out", refs, None if new else "seed1", run_accepted)
        v.note(f"exit {r.code if r.signal is None else 'signal %d' % r.signal}; the folder holds: {st}")
        if r.code == 0 and st != "seed2":
            v.flag("misleading", "exit 0 but the folder does not hold the new result")
        if action != "kill9" and r.code not in (None, 0) and not r.error and not r.err.strip():
            v.note("exited without a message")
        check_users(v, before, d)
        next_writer(h, v, d, RUN2, d / "out", two["data"], (d, d / "out"), strict=strict)

    return fn


def compare_kill(new: bool, action: str, moment: str, strict: bool = False):
    """`corral compare sw r1` into a new folder or over the report of `compare sw`, hurt."""

    def fn(h: Harness, v: Verdict, name: str) -> None:
        ref = ref_compare(h)
        d = h.work / "cases" / name
        shutil.copytree(compare_base(h), d, symlinks=True)
        if not new:
            shutil.copytree(ref["prev_dir"], d / "rep", symlinks=True)
            (d / "rep" / "mine-notes.txt").write_text("mine")
        (d / ".corral-tmp-mine").write_text("mine")
        before = user_files(d)
        sig = SIGS[action]
        if moment == "early":
            r = h.run(NEW_COMPARE, d, at=0.3, sig=sig)
        else:
            fault, _ = moment_fault(moment, action, ref["renames_new" if new else "renames"], d / "rep")
            r = h.run(NEW_COMPARE, d, fault=fault, delay=0.02)
        v.saw(r, sent=(sig,))
        st = judge(v, h, d / "rep", {"prev": ref["prev"], "new": ref["new"]}, None if new else "prev", report_accepted, True)
        v.note(f"exit {r.code if r.signal is None else 'signal %d' % r.signal}; the folder holds: {st}")
        if r.code == 0 and st != "new":
            v.flag("misleading", "exit 0 but the folder does not hold the new report")
        check_users(v, before, d)
        next_writer(h, v, d, NEW_COMPARE, d / "rep", ref["new"], (d, d / "rep"), strict=strict, tolerant=True)

    return fn


def reproduce_kill(action: str, moment: str):
    """`corral reproduce outcast --quick` over a previous reproduction, hurt."""

    def fn(h: Harness, v: Verdict, name: str) -> None:
        ref = ref_reproduce(h)
        d = project(h, name)
        shutil.copytree(ref["dir"], d / "rep", symlinks=True)
        (d / "rep" / "mine-notes.txt").write_text("mine")
        before = user_files(d)
        sig = SIGS[action]
        if moment == "early":
            r = h.run(REPRODUCE, d, at=3.0, sig=sig)
        else:
            step = moment
            if moment == "middle":  # when the middle one of its files is about to land
                files = sorted(ref["data"])
                step = "dst:" + files[len(files) // 2]
            fault, _ = moment_fault(step, action, 0, d / "rep")
            r = h.run(REPRODUCE, d, fault=fault, delay=0.01)
        v.saw(r, sent=(sig,))
        # the same command: the previous and the new result are the same files
        st = judge(v, h, d / "rep", {"prev": ref["data"]}, "prev", report_accepted, True)
        v.note(f"exit {r.code if r.signal is None else 'signal %d' % r.signal}; the folder holds: {st}")
        check_users(v, before, d)
        left = leftovers(d, d / "rep")
        if left:
            v.note(f"scratch entries after the fault: {[Path(p).name for p in left]}")

    return fn


# -- sweeps ------------------------------------------------------------------------------------------

SWEEP_ARGS = ["sweep", "sweep.toml", "-o", "sw", "--workers", "1"]
RUNS_LINE = re.compile(r"(\d+) runs: (\d+) done, (\d+) skipped \(already complete\), (\d+) failed")
COMPARED = re.compile(r"Runs: (\d+) compared, (\d+) failed, (\d+) missing")


def complete_runs(h: Harness, sw: Path, ref: dict) -> set[str]:
    """The runs whose folder holds exactly the reference run's files."""
    return {k for k, data in ref["runs"].items() if same(h, data_of(files_of(sw / "runs" / k)), data)}


def sweep_project(h: Harness, name: str, copy: bool = False) -> Path:
    d = project(h, name)
    (d / "sweep.toml").write_text(SWEEP)
    if copy:
        shutil.copytree(ref_sweep(h)["dir"], d / "sw", symlinks=True)
    return d


def sweep_places(d: Path) -> list[Path]:
    """Where a sweep's scratch entries may be: beside it, in it, in runs/ and in each run folder."""
    runs = d / "sw" / "runs"
    inner = [p for p in runs.iterdir() if p.is_dir() and not p.name.startswith(".")] if runs.is_dir() else []
    return [d, d / "sw", runs, *inner]


def sweep_view(h: Harness, v: Verdict, d: Path, *, compare: bool = True, strict: bool = False):
    """After a fault on sweep folder d/sw: what compare says of it, then a resume: it must skip
    only complete runs, end with all 3 complete, an index listing them, the user's files kept."""
    ref = ref_sweep(h)
    sw = d / "sw"
    if sw.is_dir():
        (sw / "mine-notes.txt").write_text("mine")
    before = user_files(d)
    done = complete_runs(h, sw, ref)
    v.note(f"complete runs after the fault: {len(done)}")
    if compare and (sw / "index.parquet").exists():
        h.seq += 1
        rep = f"oracle-{h.seq}"
        c = v.saw(h.run(["compare", "sw", "-o", rep, "--no-plots"], d), name="compare")
        m = COMPARED.search((d / rep / "report.md").read_text()) if (d / rep / "report.md").exists() else None
        if c.code == 0 and m:
            v.note(f"compare: {m.group(0)}")
            if int(m.group(1)) > len(done):
                v.flag("misleading", f"compare counted {m.group(1)} runs as compared, {len(done)} are complete")
        elif c.code not in (0, None) and not c.traceback:
            v.note(f"compare refused the folder: {c.error[:200]}")
    left = leftovers(*sweep_places(d))
    if left:
        v.note(f"scratch entries before the resume: {[str(Path(p).relative_to(d)) for p in left]}")
    r = v.saw(h.run(SWEEP_ARGS, d), expect_ok=True, name="resume")
    m = RUNS_LINE.search(r.out + r.err)
    if m:
        v.note(f"resume: {m.group(0)}")
        if int(m.group(3)) > len(done):
            v.flag("misleading", f"the resume skipped {m.group(3)} runs as complete; {len(done)} were")
    after = complete_runs(h, sw, ref)
    if r.code == 0 and len(after) < 3:
        v.flag("misleading", f"the resume exited 0 with {3 - len(after)} run(s) still incomplete")
    if r.code == 0:
        idx = json.loads(h.parquet("index", str(sw / "index.parquet")) or "{}")
        if not idx.get("ok") or sorted(idx.get("status", [])) != ["ok"] * 3:
            v.flag("misleading", f"after the resume index.parquet is wrong: {idx}")
    check_users(v, before, d)
    still = [p for p in leftovers(*sweep_places(d)) if p in left]
    if still:
        msg = f"the resume left scratch entries: {[str(Path(p).relative_to(d)) for p in still]}"
        v.flag("misleading", msg) if strict else v.note(msg)
    elif left:
        v.note("the resume removed them")


def sweep_kill(how: str, strict: bool = False, user_tmp: bool = False):
    """A new 3-run sweep hurt at a moment (`how`), then `sweep_view`."""

    def fn(h: Harness, v: Verdict, name: str) -> None:
        ref = ref_sweep(h)
        d = sweep_project(h, name)
        sw = d / "sw"
        kw: dict = {"delay": 0.02}
        sent: tuple = (signal.SIGKILL,)
        if how == "kill9-early":
            kw.update(at=0.5, sig=signal.SIGKILL)
        elif how == "term-early":
            kw.update(at=0.5, sig=signal.SIGTERM)
            sent = (signal.SIGTERM,)
        elif how == "kill9-group-startup":
            kw.update(at=0.75 * ref["first_worker_rename_s"], sig=signal.SIGKILL, group=True)
        elif how == "kill9-group-publish1":
            kw.update(fault={"role": "worker", "action": "kill9-group", "at_dst": str(sw / "runs" / ref["order"][0])})
        elif how == "kill9-main-publish2":
            kw.update(fault={"role": "worker", "action": "kill9-parent", "at_dst": str(sw / "runs" / ref["order"][1])})
        elif how == "term-publish2":
            kw.update(fault={"role": "worker", "action": "term-parent", "at_dst": str(sw / "runs" / ref["order"][1])})
            sent = (signal.SIGTERM,)
        elif how == "kill9-group-index":
            kw.update(fault={"role": "main", "action": "kill9-group", "at_dst": str(sw / "index.parquet")})
        elif how == "term-index":
            kw.update(fault={"role": "main", "action": "term", "at_dst": str(sw / "index.parquet")})
            sent = (signal.SIGTERM,)
        elif how.startswith("ctrl-c-"):
            kw.update(at=float(how[7:]) * ref["first_worker_rename_s"], sig=signal.SIGINT, group=True)
            sent = (signal.SIGINT,)
        else:
            raise ValueError(how)
        r = v.saw(h.run(SWEEP_ARGS, d, **kw), sent=sent)
        v.note(f"exit {r.code if r.signal is None else 'signal %d' % r.signal}")
        if how.startswith("ctrl-c-"):
            v.note(f"traceback lines: {r.traceback_lines()}")
            if r.code == 0:
                v.note("Ctrl-C came before the sweep noticed it (exit 0)")
            elif r.code != 130 or "interrupted" not in r.err:
                v.flag("misleading", f"Ctrl-C: exit {r.code}, stderr {last_line(r.err)!r}")
        if user_tmp:
            for place in (d, sw, sw / "runs"):
                if place.is_dir():
                    (place / ".corral-tmp-mine").write_text("a user's file named like corral's")
                    (place / ".corral-old-mine").mkdir(exist_ok=True)
                    (place / ".corral-old-mine" / "notes").write_text("mine")
        sweep_view(h, v, d, strict=strict)

    return fn


def sweep_replace(landing: str, strict: bool = False):
    """A run of a sweep fails (EIO injected in its worker's first rename: error.json); the resume
    redoes it into its folder, and is killed (-9, whole group) when `landing` is about to land."""

    def fn(h: Harness, v: Verdict, name: str) -> None:
        d = sweep_project(h, name)
        sw = d / "sw"
        first = v.saw(
            h.run(SWEEP_ARGS, d, fault={"role": "worker", "action": "eio", "at": 1, "once": str(d / "eio-once")}),
            name="the sweep with a failing run",
        )
        failed = [p for p in (sw / "runs").iterdir() if (p / "error.json").exists()] if (sw / "runs").is_dir() else []
        if len(failed) != 1:
            v.note(f"setup: expected one failed run, got {len(failed)} (exit {first.code})")
            v.flag("crash" if first.traceback else "misleading", "the injected I/O error did not make exactly one failed run")
            return
        v.flags.pop("clear error", None)  # the setup's failed run is expected
        fault = {"role": "worker", "action": "kill9-group", "at_dst": str(failed[0] / landing)}
        r = v.saw(h.run(SWEEP_ARGS, d, fault=fault, delay=0.02), sent=(signal.SIGKILL,), name="the resume")
        fired = any(rec.get("event") == "fire" for rec in r.log)
        v.note(
            f"the resume redoing the failed run: exit {r.code if r.signal is None else 'signal %d' % r.signal}, fault fired: {fired}"
        )
        sweep_view(h, v, d, strict=strict)

    return fn


# run: kill -9 and SIGTERM at several moments, over a previous result and into a new folder
for _action in ("kill9", "term"):
    for _moment, _label in (
        ("early", "0.3 s after the start (imports)"),
        ("midsim", "at 60 % of the time before publishing (a 400 ms simulation)"),
        ("rename1", "at the first rename of the publishing"),
        ("dst:summary.json", "when summary.json is about to land"),
        ("dst:throughput.parquet", "when throughput.parquet is about to land"),
        ("half", "at the middle rename of the publishing"),
        ("last", "at the last rename"),
    ):
        if _action == "term" and _moment == "half":
            continue
        _tag = _moment.replace("dst:", "").split(".")[0]
        case(
            "run",
            f"run-{_action}-{_tag}-replace",
            f"run over a previous result, {_action} {_label}",
            run_kill(False, _action, _moment),
        )
for _action, _moment, _label in (
    ("kill9", "rename1", "at the first rename"),
    ("kill9", "last", "at the last rename (the folder's)"),
    ("term", "last", "at the last rename (the folder's)"),
):
    case("run", f"run-{_action}-{_moment}-new", f"run into a new folder, {_action} {_label}", run_kill(True, _action, _moment))

# sweep
for _how, _label in (
    ("kill9-early", "kill -9 of the sweep 0.5 s after its start"),
    ("term-early", "SIGTERM 0.5 s after its start"),
    ("kill9-group-startup", "kill -9 of its process group at 75 % of the time to its first run's folder (Dask start-up)"),
    ("kill9-group-publish1", "kill -9 of the group when the worker is about to rename run 1's folder into place"),
    ("kill9-main-publish2", "kill -9 of the sweep (not its worker) as the worker renames run 2's folder"),
    ("term-publish2", "SIGTERM to the sweep as the worker renames run 2's folder"),
    ("kill9-group-index", "kill -9 of the group when index.parquet is about to land"),
    ("term-index", "SIGTERM when index.parquet is about to land"),
):
    case("sweep", f"sweep-{_how}", f"a 3-run sweep, {_label}; then compare and resume", sweep_kill(_how))
case(
    "sweep",
    "sweep-replace-kill9-throughput",
    "a failed run redone by a resume, kill -9 (group) when its throughput.parquet is about to land; then compare and resume",
    sweep_replace("throughput.parquet"),
)
case(
    "sweep",
    "sweep-replace-kill9-summary",
    "a failed run redone by a resume, kill -9 (group) when its summary.json is about to land; then compare and resume",
    sweep_replace("summary.json"),
)

# compare
for _new, _action, _moment, _label in (
    (False, "kill9", "early", "0.3 s after the start"),
    (False, "kill9", "rename1", "at the first rename"),
    (False, "kill9", "half", "at the middle rename"),
    (False, "kill9", "last", "at the last rename"),
    (False, "term", "half", "at the middle rename"),
    (False, "term", "last", "at the last rename"),
    (True, "kill9", "last", "at the last rename (the folder's)"),
):
    _kind = "new" if _new else "replace"
    _what = "compare into a new folder" if _new else "compare over a previous report"
    case("compare", f"compare-{_action}-{_moment}-{_kind}", f"{_what}, {_action} {_label}", compare_kill(_new, _action, _moment))


def compare_twice(h: Harness, v: Verdict, name: str) -> None:
    """Two reports of the same runs must be the same bytes."""
    d = h.work / "cases" / name
    shutil.copytree(compare_base(h), d, symlinks=True)
    for out in ("a", "b"):
        v.saw(h.run(["compare", "sw", "r1", "-o", out, "--no-plots"], d), expect_ok=True)
    a, b = data_of(files_of(d / "a")), data_of(files_of(d / "b"))
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    if differ:
        v.flag("misleading", f"two reports of the same runs differ in {differ[:6]}")


case("compare", "compare-twice-same-bytes", "compare the same runs twice: byte-identical reports", compare_twice)

# reproduce
for _action, _moment, _label in (
    ("kill9", "early", "3 s after the start"),
    ("kill9", "rename1", "at the first rename of the publishing"),
    ("kill9", "middle", "when the middle one of its files is about to land"),
    ("term", "middle", "when the middle one of its files is about to land"),
):
    case(
        "reproduce",
        f"reproduce-{_action}-{_moment}-replace",
        f"reproduce outcast --quick over a previous reproduction, {_action} {_label}",
        reproduce_kill(_action, _moment),
    )


# -- two writers of one folder ---------------------------------------------------------------------

LOCKED = ("another corral", "another sweep", "is writing", "PID", "lock")


def publish_window(r: Result) -> tuple[float, float] | None:
    rs = r.renames("main")
    return (rs[0]["t"], rs[-1]["t"]) if rs else None


def two_writers(v: Verdict, a: Result, b: Result, st: str, results: dict[str, str], words=()) -> None:
    """Judge two writers of one folder: both 0 with their publishing interleaved is misleading
    (one result silently replaced under the other); a loser must name the other writer."""
    v.saw(a, name="writer A")
    v.saw(b, name="writer B")
    v.note(f"exits {a.code}, {b.code}; the folder holds: {st}")
    if a.code == 0 and b.code == 0:
        wa, wb = publish_window(a), publish_window(b)
        if wa and wb and wa[0] <= wb[1] and wb[0] <= wa[1]:
            v.flag("misleading", "both writers exited 0 with their publishing interleaved: one result was silently replaced")
    for r, who in ((a, "A"), (b, "B")):
        if r.code not in (0, None):
            v.refused(r, LOCKED + tuple(words), name=f"writer {who}")
    winners = [results[w] for r, w in ((a, "A"), (b, "B")) if r.code == 0]
    if winners and st not in winners and not (a.code == 0 and b.code == 0):
        v.flag("misleading", f"the writer that exited 0 does not find its result (the folder holds {st})")


def run_run(mode: str):
    def fn(h: Harness, v: Verdict, name: str) -> None:
        d = project(h, name)
        refs = {"seed1": ref_run(h, 1)["data"], "seed2": ref_run(h, 2)["data"], "seed3": ref_run(h, 3)["data"]}
        prev = None
        if mode != "new":
            shutil.copytree(ref_run(h, 1)["dir"], d / "out", symlinks=True)
            (d / "out" / "mine-notes.txt").write_text("mine")
            prev = "seed1"
        before = user_files(d)
        args = ["run", "s.toml", "-o", "out", "--no-plots", "--set"]
        a = h.start(args + ["seed=2"], d, delay=0.03)
        if mode == "while-publishing":  # B starts once A renames its first file
            log = Path(f"{a.tag}.renames")
            t = time.monotonic()
            while time.monotonic() - t < 60 and a.proc.poll() is None:
                if log.exists() and '"rename"' in log.read_text():
                    break
                time.sleep(0.01)
        b = h.start(args + ["seed=3"], d, delay=0.03)
        ra, rb = a.finish(120), b.finish(120)
        st = judge(v, h, d / "out", refs, prev, run_accepted)
        two_writers(v, ra, rb, st, {"A": "seed2", "B": "seed3"})
        check_users(v, before, d)

    return fn


def reproduce_run(h: Harness, v: Verdict, name: str) -> None:
    """reproduce and run into one new folder (named as the reference reproduction's: its report
    names its folder): reproduce first, the run 3 s later."""
    d = project(h, name)
    refs = {"reproduce": ref_reproduce(h)["data"], "run": ref_run(h, 1)["data"]}
    before = user_files(d)
    a = h.start(["reproduce", "outcast", "--quick", "-o", "rep"], d, delay=0.01)
    cpu_seconds(a.proc.pid, 3.0)  # past its imports and checks, into its runs (whatever the load)
    b = h.start(["run", "s.toml", "-o", "rep", "--no-plots", "--set", "seed=1"], d, delay=0.01)
    rb = b.finish(120)
    ra = a.finish(600)
    kind = json.loads((d / "rep" / MARKER).read_text()).get("kind") if (d / "rep" / MARKER).exists() else None
    accepted = run_accepted if kind == "run" else report_accepted
    st = judge(v, h, d / "rep", refs, None, accepted, True)
    # the loser may also be told, truly, that the folder is now the other kind
    two_writers(v, ra, rb, st, {"A": "reproduce", "B": "run"}, words=("is a corral run folder", "is a corral reproduce"))
    if ra.code not in (0, None) and ra.elapsed > 0.8 * ref_reproduce(h)["elapsed"]:
        v.note("the reproduction was refused only after all its runs")
    check_users(v, before, d)


def compare_compare(h: Harness, v: Verdict, name: str) -> None:
    ref = ref_compare(h)
    d = h.work / "cases" / name
    shutil.copytree(compare_base(h), d, symlinks=True)
    shutil.copytree(ref["prev_dir"], d / "rep", symlinks=True)
    (d / "rep" / "mine-notes.txt").write_text("mine")
    before = user_files(d)
    a = h.start(NEW_COMPARE, d, delay=0.03)
    b = h.start(PREV_COMPARE, d, delay=0.03)
    ra, rb = a.finish(120), b.finish(120)
    st = judge(v, h, d / "rep", {"prev": ref["prev"], "new": ref["new"]}, "prev", report_accepted, True)
    two_writers(v, ra, rb, st, {"A": "new", "B": "prev"})
    check_users(v, before, d)


def sweep_sweep(h: Harness, v: Verdict, name: str) -> None:
    d = sweep_project(h, name)
    a = h.start(SWEEP_ARGS, d, delay=0.02)
    b = h.start(SWEEP_ARGS, d, delay=0.02)
    ra, rb = a.finish(300), b.finish(300)
    v.saw(ra, name="sweep A")
    v.saw(rb, name="sweep B")
    v.note(f"exits {ra.code}, {rb.code}")
    for r, who in ((ra, "A"), (rb, "B")):
        if r.code not in (0, None):
            v.refused(r, LOCKED, name=f"sweep {who}")
    if ra.code == 0 and rb.code == 0:
        v.note("both sweeps exited 0")
    sweep_view(h, v, d, compare=False)


case("concurrent", "two-runs-new", "two runs (seeds 2, 3) into one new folder at once", run_run("new"))
case("concurrent", "two-runs-replace", "two runs (seeds 2, 3) over one previous result at once", run_run("replace"))
case(
    "concurrent",
    "two-runs-second-while-publishing",
    "a run over a previous result, a second one started as the first publishes",
    run_run("while-publishing"),
)
case(
    "concurrent",
    "reproduce-and-run",
    "reproduce outcast --quick and, after its first 3 s of CPU time, a run into the same new folder",
    reproduce_run,
)
case("concurrent", "two-compares", "two compares (different inputs) over one previous report at once", compare_compare)
case("concurrent", "two-sweeps", "two sweeps into one new folder at once; then resume", sweep_sweep)


# -- a full disk ------------------------------------------------------------------------------------

NOSPACE = ("No space left", "space")


def tmpfs_bytes(data: dict[str, bytes]) -> int:
    """What files take on a tmpfs: whole pages."""
    return sum(-(-max(len(b), 1) // 4096) * 4096 for b in data.values())


def small_disk(h: Harness, v: Verdict, name: str, size: int) -> Path | None:
    mnt = h.work / "cases" / name / "disk"
    if not h.mount(mnt, str(max(size, 4096))):
        v.note("SKIPPED: cannot mount a tmpfs here (root needed)")
        return None
    (mnt / "mine.txt").write_text("mine")
    v.note(f"a tmpfs of {max(size, 4096) // 1024} KiB")
    return mnt


def after_error(v: Verdict, r: Result, words, folder: Path, places) -> None:
    """An error must be clear and leave no scratch entry behind."""
    v.saw(r)
    if r.code == 0:
        return
    v.refused(r, words)
    left = leftovers(*places)
    if left and r.code is not None:
        v.flag("misleading", f"the failed command left scratch entries: {[Path(p).name for p in left]}")


def disk_write(cmd: str, replace: bool):
    """A run (seed 2) or a compare (`sw r1`) into a new folder on a tmpfs half its size, or over
    the previous result (seed 1; `compare sw`) on one without room for both."""

    def fn(h: Harness, v: Verdict, name: str) -> None:
        if cmd == "run":
            d = project(h, name)
            one, two = ref_run(h, 1), ref_run(h, 2)
            refs, prev_dir, accepted = {"prev": one["data"], "new": two["data"]}, one["dir"], run_accepted
            args = ["run", str(d / "s.toml"), "--no-plots", "--set", "seed=2", "-o"]
        else:
            ref = ref_compare(h)
            d = h.work / "cases" / name
            shutil.copytree(compare_base(h), d, symlinks=True)
            refs, prev_dir, accepted = {"prev": ref["prev"], "new": ref["new"]}, ref["prev_dir"], report_accepted
            args = ["compare", "sw", "r1", "--no-plots", "-o"]
        size = (tmpfs_bytes(refs["prev"]) if replace else 0) + tmpfs_bytes(refs["new"]) // 2
        mnt = small_disk(h, v, name, size + 8192)
        if mnt is None:
            return
        out = mnt / ("out" if cmd == "run" else "rep")
        if replace:
            shutil.copytree(prev_dir, out, symlinks=True)
        before = user_files(d)
        r = h.run(args + [str(out)], d)
        after_error(v, r, NOSPACE, out, (mnt, out))
        st = judge(v, h, out, refs, "prev" if replace else None, accepted, cmd == "compare")
        v.note(f"exit {r.code}; the folder holds: {st}")
        if r.code == 0 and st != "new":
            v.flag("misleading", "exit 0 on a full disk without the result")
        check_users(v, before, d)

    return fn


def disk_sweep(resume: bool):
    """A sweep on a disk that fills: a new one, or one that grows from 3 to 6 seeds (does its
    index.parquet survive, and can compare still read the folder?)."""

    def fn(h: Harness, v: Verdict, name: str) -> None:
        ref = ref_sweep(h)
        d = sweep_project(h, name)
        one_run = max(tmpfs_bytes(x) for x in ref["runs"].values())
        base = tmpfs_bytes(files_of(ref["dir"])) if resume else 0
        mnt = small_disk(h, v, name, base + int(1.5 * one_run) + 16384)
        if mnt is None:
            return
        (d / "sweep.toml").write_text(SWEEP.replace('"s.toml"', f'"{d / "s.toml"}"'))
        args = ["sweep", str(d / "sweep.toml"), "-o", str(mnt / "sw"), "--workers", "1"]
        if resume:
            shutil.copytree(ref["dir"], mnt / "sw", symlinks=True)
            (d / "sweep.toml").write_text(SWEEP.replace('"s.toml"', f'"{d / "s.toml"}"').replace("seeds = 3", "seeds = 6"))
        before = user_files(d)
        r = v.saw(h.run(args, d))
        v.note(f"exit {r.code}: {last_line(r.err)}")
        if r.code == 0:
            v.flag("misleading", "a sweep on a full disk exited 0")
        elif r.code is not None and not r.traceback:
            if "No space left" in r.err or "space" in r.err.lower():
                v.flag("clear error", "the sweep says the disk is full")
            else:
                v.flag("misleading", f"the sweep failed without saying the disk is full: {last_line(r.err)}")
        index = mnt / "sw" / "index.parquet"
        if index.exists():
            idx = json.loads(h.parquet("index", str(index)) or "{}")
            ok = [s for s in idx.get("status", []) if s == "ok"]
            v.note(
                f"index.parquet: {len(idx.get('status', []))} rows, {len(ok)} ok"
                if idx.get("ok")
                else f"index.parquet unreadable: {idx}"
            )
            if not idx.get("ok"):
                v.flag("lost", "index.parquet is torn")
            elif resume and len(ok) < 3:
                v.flag("lost", "the index no longer lists the 3 complete runs")
        elif resume:
            v.flag("lost", "the sweep folder lost its index.parquet")
        if resume:
            c = v.saw(h.run(["compare", str(mnt / "sw"), "-o", str(d / "rep"), "--no-plots"], d), name="compare")
            if c.code != 0:
                v.flag("lost", f"compare cannot read the sweep folder any more: {c.error or last_line(c.err)}")
        check_users(v, before, d)

    return fn


case("disk", "disk-run-new", "a run into a new folder on a tmpfs half its size", disk_write("run", False))
case("disk", "disk-run-replace", "a run over a previous result on a tmpfs without room for both", disk_write("run", True))
case("disk", "disk-sweep-new", "a 3-run sweep on a tmpfs with room for 1.5 runs", disk_sweep(False))
case(
    "disk",
    "disk-sweep-resume",
    "a complete 3-run sweep grown to 6 seeds on a tmpfs with room for 1.5 more runs",
    disk_sweep(True),
)
case("disk", "disk-compare-new", "compare into a new folder on a tmpfs half the report's size", disk_write("compare", False))
case(
    "disk", "disk-compare-replace", "compare over a previous report on a tmpfs without room for both", disk_write("compare", True)
)


# -- read-only and odd output paths ---------------------------------------------------------------

READONLY = ("Read-only", "read-only", "cannot write", "Permission denied")


def readonly(kind: str):
    def fn(h: Harness, v: Verdict, name: str) -> None:
        d = sweep_project(h, name)
        mnt = small_disk(h, v, name, 4 << 20)
        if mnt is None:
            return
        if kind == "replace":
            shutil.copytree(ref_run(h, 1)["dir"], mnt / "out", symlinks=True)
            (mnt / "out" / "mine-notes.txt").write_text("mine")
        if kind == "sweep":
            shutil.copytree(ref_sweep(h)["dir"], mnt / "sw", symlinks=True)
            (d / "sweep.toml").write_text(SWEEP.replace('"s.toml"', f'"{d / "s.toml"}"'))
        if not h.remount_ro(mnt):
            v.note("SKIPPED: cannot remount the tmpfs read-only")
            return
        before = {**user_files(d), **{f"disk/{k}": b for k, b in user_files(mnt).items()}}
        if kind == "sweep":
            args = ["sweep", str(d / "sweep.toml"), "-o", str(mnt / "sw"), "--workers", "1"]
        else:
            args = ["run", "s.toml", "-o", str(mnt / "out"), "--no-plots", "--set", "seed=2"]
        r = v.saw(h.run(args, d))
        if r.code == 0 and kind != "sweep":
            v.flag("misleading", "exit 0 on a read-only file system")
        elif r.code == 0:
            v.note("the resume had nothing to write and exited 0")
        else:
            v.refused(r, READONLY)
        v.note(f"exit {r.code} after {r.elapsed:.1f} s: {r.error[:160]}")
        after = {**user_files(d), **{f"disk/{k}": b for k, b in user_files(mnt).items()}}
        if after != before:
            v.flag("lost", "user files changed")

    return fn


case("paths", "readonly-run-new", "run into a new folder on a read-only file system", readonly("new"))
case("paths", "readonly-run-replace", "run over a previous result on a read-only file system", readonly("replace"))
case("paths", "readonly-sweep-resume", "resume a complete sweep on a read-only file system", readonly("sweep"))


def odd_out(out, *, cmd: str = "run", expect: str = "ok", words=(), setup: Callable[[Path], None] | None = None, long_sim=False):
    """A command with an odd -o: `expect` "ok" (it must work: a refusal is misleading) or
    "error" (a clear error naming the problem, nothing written); anything of the user's kept."""

    def fn(h: Harness, v: Verdict, name: str) -> None:
        d = sweep_project(h, name)
        if cmd == "compare":
            shutil.copytree(ref_run(h, 1)["dir"], d / "r1", symlinks=True)
        if setup:
            setup(d)
        before = user_files(d)
        entries_before = set(os.listdir(d))
        if cmd == "run":
            args = ["run", "s.toml", "-o", out, "--no-plots"] + (["--set", LONG] if long_sim else [])
        elif cmd == "sweep":
            args = ["sweep", "sweep.toml", "-o", out, "--workers", "1"]
        else:
            args = ["compare", "r1", "-o", out, "--no-plots"]
        r = v.saw(h.run(args, d))
        v.note(f"exit {r.code} after {r.elapsed:.1f} s: {(r.error or last_line(r.err))[:200]}")
        if expect == "ok":
            if r.code not in (0, None) and not r.traceback:
                v.flag("misleading", f"refused a path the file system takes: {r.error[:200]}")
        else:
            if r.code == 0:
                v.note("it worked (no refusal needed)")
            else:
                v.refused(r, words)
                new = set(os.listdir(d)) - entries_before
                if new and r.code is not None and not r.traceback:
                    v.flag("misleading", f"the refused command left {sorted(new)}")
                elif new:
                    v.note(f"it left {sorted(new)}")
        if long_sim and r.code not in (0, None) and r.elapsed > 0.8 * ref_replace(h)["long_s"]:
            v.note("refused only after the simulation")
        check_users(v, before, d)

    return fn


def _file(p: str):
    return lambda d: (d / p).write_text("mine")


def _link(target: str, setup=None):
    def fn(d: Path) -> None:
        if setup:
            setup(d)
        (d / "link").symlink_to(target)

    return fn


def _user_dir(d: Path) -> None:
    (d / "mine-folder").mkdir()
    (d / "mine-folder" / "mine-a.txt").write_text("mine")


NONUTF8 = b"out-\xff\xfe"
case(
    "paths",
    "nonutf8-run",
    "run -o with bytes that are not UTF-8 (a 400 ms simulation)",
    odd_out(NONUTF8, expect="error", words=("UTF-8", "text", "encode"), long_sim=True),
)
case(
    "paths",
    "nonutf8-sweep",
    "sweep -o with bytes that are not UTF-8",
    odd_out(NONUTF8, cmd="sweep", expect="error", words=("UTF-8", "text", "encode")),
)
case("paths", "name250-run", "run -o a name of 250 bytes", odd_out("n" * 250))
case("paths", "name255-run", "run -o a name of 255 bytes", odd_out("n" * 255))
case(
    "paths",
    "name256-run",
    "run -o a name of 256 bytes (a 400 ms simulation)",
    odd_out("n" * 256, expect="error", words=("too long", "255"), long_sim=True),
)
case("paths", "name250-sweep", "sweep -o a name of 250 bytes", odd_out("n" * 250, cmd="sweep"))
case("paths", "name250-compare", "compare -o a name of 250 bytes", odd_out("n" * 250, cmd="compare"))
case(
    "paths",
    "file-in-the-way",
    "run -o a file of the user's",
    odd_out("mine-out", expect="error", words=("not a folder", "exists"), setup=_file("mine-out")),
)
case(
    "paths",
    "file-as-parent",
    "run -o below a file of the user's",
    odd_out("mine-file/sub", expect="error", words=("file", "not a folder", "Not a directory"), setup=_file("mine-file")),
)


def symlink_to_result(h: Harness, v: Verdict, name: str) -> None:
    """run -o link, link -> out (a previous result): the new result in out, the link kept."""
    d = project(h, name)
    shutil.copytree(ref_run(h, 1)["dir"], d / "out", symlinks=True)
    (d / "link").symlink_to("out")
    before = user_files(d)
    r = v.saw(h.run(RUN2[:3] + ["link"] + RUN2[4:], d))
    if r.code == 0:
        st = judge(v, h, d / "out", {"seed1": ref_run(h, 1)["data"], "seed2": ref_run(h, 2)["data"]}, "seed1", run_accepted)
        v.note(f"exit 0; out holds {st}")
        if st != "seed2":
            v.flag("misleading", "exit 0 but out does not hold the new result")
    else:
        v.refused(r, ("link", "symbolic"))
    if not (d / "link").is_symlink():
        v.flag("lost", "the user's symbolic link was replaced")
    check_users(v, before, d)


case("paths", "symlink-to-result", "run -o a symbolic link to a previous result", symlink_to_result)
case(
    "paths",
    "symlink-dangling",
    "run -o a dangling symbolic link",
    odd_out("link", expect="error", words=("broken", "link", "exist"), setup=_link("nowhere")),
)
case(
    "paths",
    "symlink-to-user-folder",
    "run -o a symbolic link to a folder of the user's",
    odd_out("link", expect="error", words=("did not write", "holds files"), setup=_link("mine-folder", _user_dir)),
)
case(
    "paths",
    "user-folder",
    "run -o a folder of the user's",
    odd_out("mine-folder", expect="error", words=("did not write", "holds files"), setup=_user_dir),
)


# -- corrupted and special inputs -------------------------------------------------------------------

FLOWS = TINY.split("[[flows]]")[0]


def traffic(key: str, path: Path) -> str:
    """A scenario whose first [[traffic]] names `path` as its flow-size CDF or flow list."""
    if key == "cdf":
        return FLOWS + f'[[traffic]]\npattern = "all_to_all"\nload = 0.3\nsize = {{ cdf = "{path}" }}\n'
    return FLOWS + f'[[traffic]]\npattern = "trace"\nfile = "{path}"\n'


def special(what: str, d: Path, suffix: str = ".csv") -> Path:
    p = d / f"mine-input{suffix}"  # a neutral name: the error must name the kind, not the path
    if what == "fifo":
        os.mkfifo(p)
        return p
    if what == "devzero":
        return Path("/dev/zero")
    # sparse: 10 GB of nothing, no disk used
    with open(p, "wb") as f:
        f.truncate(10 * 10**9)
    return p


KIND_WORDS = {"fifo": ("FIFO", "pipe"), "devzero": ("device",), "sparse": ("GB", "bytes", "too large", "larger")}


def bad_input(key: str, what: str, cmd: str = "run", suffix: str = ".csv"):
    def fn(h: Harness, v: Verdict, name: str) -> None:
        d = project(h, name)
        path = special(what, d, suffix)
        (d / "bad.toml").write_text(traffic(key, path))
        if cmd == "sweep":
            (d / "sweep.toml").write_text(SWEEP.replace('"s.toml"', '"bad.toml"'))
            args = ["sweep", "sweep.toml", "-o", "out", "--workers", "1"]
        else:
            args = ["run", "bad.toml", "-o", "out", "--no-plots"]
        r = v.saw(h.run(args, d, mem=True, timeout=h.input_timeout))
        v.note(
            f"exit {r.code if r.signal is None else 'signal %d' % r.signal} after {r.elapsed:.1f} s: {(r.error or last_line(r.err))[:200]}"
        )
        if "out of memory" in r.err.lower():  # the limit, not the input, stopped it
            v.flag("crash", f"the {h.mem_bytes / 2**30:.0f} GB address-space limit was hit: {last_line(r.err)[:160]}")
        elif r.code == 0:
            v.flag("misleading", "a run over a special or huge input succeeded")
        else:
            v.refused(r, KIND_WORDS[what])
            if r.error and "traffic[0]" not in r.err:
                v.note("the error does not name the key")
        if (d / "out").exists():
            v.flag("misleading", "the refused run left an output folder")

    return fn


for _key, _label in (("cdf", "a flow-size CDF"), ("file", "a flow list")):
    for _what, _wl in (("fifo", "a FIFO"), ("devzero", "/dev/zero"), ("sparse", "a 10 GB sparse file")):
        case(
            "inputs",
            f"{_key}-{_what}",
            f"a scenario whose {_label} is {_wl} (timeout, 4 GB address space)",
            bad_input(_key, _what),
        )
case("inputs", "parquet-flows-fifo", "a scenario whose Parquet flow list is a FIFO", bad_input("file", "fifo", suffix=".parquet"))
case("inputs", "sweep-cdf-fifo", "a sweep of a scenario whose flow-size CDF is a FIFO", bad_input("cdf", "fifo", cmd="sweep"))


def scenario_fifo(h: Harness, v: Verdict, name: str) -> None:
    d = project(h, name)
    os.mkfifo(d / "mine-scenario.toml")
    r = v.saw(h.run(["run", "mine-scenario.toml", "-o", "out"], d, mem=True, timeout=h.input_timeout))
    if r.code == 0:
        v.flag("misleading", "a FIFO as the scenario ran")
    else:
        v.refused(r, KIND_WORDS["fifo"])


case("inputs", "scenario-fifo", "run a scenario file that is a FIFO", scenario_fifo)


def truncate(p: Path) -> None:
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])


def truncated_sweep(then: str):
    def fn(h: Harness, v: Verdict, name: str) -> None:
        ref = ref_sweep(h)
        d = sweep_project(h, name, copy=True)
        sw = d / "sw"
        if then == "index":
            truncate(sw / "index.parquet")
        else:
            truncate(sw / "runs" / ref["order"][0] / "throughput.parquet")
        if then == "compare":
            c = v.saw(h.run(["compare", "sw", "-o", "rep", "--no-plots"], d), name="compare")
            md = (d / "rep" / "report.md").read_text() if (d / "rep" / "report.md").exists() else ""
            m = COMPARED.search(md)
            v.note(f"compare: exit {c.code}: {m.group(0) if m else (c.error or last_line(c.err))[:200]}")
            if c.code == 0 and m and int(m.group(1)) > 2:
                v.flag("misleading", f"compare counted {m.group(1)} runs; one has a truncated table")
            elif c.code not in (0, None):
                v.refused(c, ("throughput.parquet", "truncated", "incomplete", "cannot be read"))
            return
        if then == "index":
            c = v.saw(h.run(["compare", "sw", "-o", "rep", "--no-plots"], d), name="compare")
            v.note(f"compare: exit {c.code}: {(c.error or last_line(c.err))[:200]}")
            if c.code not in (0, None):
                v.refused(c, ("index.parquet",))
        sweep_view(h, v, d, compare=False)

    return fn


case("inputs", "truncated-table-resume", "a sweep run's throughput.parquet cut in half; resume", truncated_sweep("resume"))
case("inputs", "truncated-table-compare", "a sweep run's throughput.parquet cut in half; compare", truncated_sweep("compare"))
case("inputs", "truncated-index", "a sweep's index.parquet cut in half; compare, then resume", truncated_sweep("index"))


def truncated_run(h: Harness, v: Verdict, name: str) -> None:
    d = project(h, name)
    shutil.copytree(ref_run(h, 1)["dir"], d / "r1", symlinks=True)
    truncate(d / "r1" / "throughput.parquet")
    c = v.saw(h.run(["compare", "r1", "-o", "rep", "--no-plots"], d))
    v.note(f"compare: exit {c.code}: {(c.error or last_line(c.err))[:200]}")
    if c.code == 0:
        v.flag("misleading", "compare read a run folder with a truncated table")
    else:
        v.refused(c, ("throughput.parquet", "not a complete run", "incomplete"))


case("inputs", "truncated-run-compare", "a run folder's throughput.parquet cut in half; compare it", truncated_run)


def bad_marker(kind: str):
    def fn(h: Harness, v: Verdict, name: str) -> None:
        d = sweep_project(h, name, copy=(kind == "sweep"))
        if kind == "run":
            shutil.copytree(ref_run(h, 1)["dir"], d / "out", symlinks=True)
            folder, args = d / "out", RUN2
        else:
            folder, args = d / "sw", SWEEP_ARGS
        (folder / MARKER).write_text("{not json")
        (folder / "mine-notes.txt").write_text("mine")
        everything = files_of(folder)
        r = v.saw(h.run(args, d))
        if r.code == 0:
            v.flag("misleading", "wrote into a folder whose marker cannot be read")
        else:
            v.refused(r, ("not valid JSON", "cannot be read", "not a corral marker"))
            v.note(r.error[:200])
        if files_of(folder) != everything:
            v.flag("lost", "files of the folder changed")

    return fn


case("inputs", "marker-not-json-run", "run over a result folder whose marker is not JSON", bad_marker("run"))
case("inputs", "marker-not-json-sweep", "resume a sweep whose marker is not JSON", bad_marker("sweep"))


# -- Ctrl-C ---------------------------------------------------------------------------------------------

for _f in ("0.3", "0.5", "0.7", "0.9"):
    case(
        "ctrl-c",
        f"ctrl-c-sweep-{_f}",
        f"Ctrl-C (SIGINT to the group) at {float(_f):.0%} of a sweep's time to its first run folder; then resume",
        sweep_kill(f"ctrl-c-{_f}"),
    )
case(
    "ctrl-c",
    "ctrl-c-run-publish",
    "Ctrl-C during a run's replacement of a previous result (middle rename)",
    run_kill(False, "int-group", "half"),
)
case(
    "ctrl-c",
    "ctrl-c-compare-publish",
    "Ctrl-C during compare's replacement of a previous report",
    compare_kill(False, "int-group", "half"),
)


# -- leftovers of a killed writer, and the user's files named like them -------------------------------------

for _id, _what, _fn in (
    (
        "leftovers-run-kill9-new",
        "kill -9 of a run at its last rename; the next run removes its scratch?",
        run_kill(True, "kill9", "last", strict=True),
    ),
    (
        "leftovers-run-kill9-replace",
        "kill -9 of a run replacing a result (middle rename); the next run removes its scratch?",
        run_kill(False, "kill9", "half", strict=True),
    ),
    (
        "leftovers-run-term-new",
        "SIGTERM to a run at its last rename; the next run removes its scratch?",
        run_kill(True, "term", "last", strict=True),
    ),
    (
        "leftovers-compare-kill9",
        "kill -9 of a compare replacing a report (middle rename); the next compare removes its scratch?",
        compare_kill(False, "kill9", "half", strict=True),
    ),
    (
        "leftovers-sweep-kill9-worker",
        "kill -9 of a sweep's group as its worker publishes a run; the resume removes the scratch?",
        sweep_kill("kill9-group-publish1", strict=True),
    ),
    (
        "leftovers-run-term-rename1",
        "SIGTERM to a run replacing a result at its first rename (a scratch folder getting its marker); the next run?",
        run_kill(False, "term", "rename1", strict=True),
    ),
    (
        "leftovers-sweep-replace-kill9",
        "kill -9 (group) of a resume redoing a failed run, as its summary.json lands; the next resume removes the scratch?",
        sweep_replace("summary.json", strict=True),
    ),
    (
        "user-tmp-sweep-resume",
        "the user's .corral-tmp-mine and .corral-old-mine/ in a killed sweep's folder, runs/ and beside it; resume",
        sweep_kill("kill9-group-publish1", user_tmp=True),
    ),
    (
        "user-tmp-run-replace",
        "the user's .corral-tmp-mine beside and in a result, .corral-old-mine/ beside; a killed replacement, the next run",
        run_kill(False, "kill9", "half", user_tmp=True),
    ),
):
    case("leftovers", _id, _what, _fn)


# -- the matrix ---------------------------------------------------------------------------------------------

CATEGORIES = ("run", "sweep", "compare", "reproduce", "concurrent", "disk", "paths", "inputs", "ctrl-c", "leftovers")


def table(rows: list[dict]) -> str:
    width = max(len(c) for c in CATEGORIES) + 2
    head = f"{'category':<{width}}" + "".join(f"{c:>13}" for c in CLASSES) + f"{'total':>8}"
    lines = [head, "-" * len(head)]
    total = {c: 0 for c in CLASSES}
    for cat in CATEGORIES:
        mine = [r for r in rows if r["category"] == cat]
        if not mine:
            continue
        counts = {c: sum(r["class"] == c for r in mine) for c in CLASSES}
        for c in CLASSES:
            total[c] += counts[c]
        lines.append(f"{cat:<{width}}" + "".join(f"{counts[c] or '.':>13}" for c in CLASSES) + f"{len(mine):>8}")
    lines.append("-" * len(head))
    lines.append(f"{'all':<{width}}" + "".join(f"{total[c]:>13}" for c in CLASSES) + f"{len(rows):>8}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corral", default=sys.executable, help="the Python of an environment with corral installed")
    ap.add_argument("--json", type=Path, help="write every case's details here")
    ap.add_argument("--only", action="append", choices=CATEGORIES, help="run only this category (repeatable)")
    ap.add_argument("--case", action="append", help="run only cases whose id contains this text (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--input-timeout", type=float, default=20.0, help="seconds before a child reading an input is a hang")
    ap.add_argument("--mem-gb", type=float, default=4.0, help="address-space limit of those children (GB)")
    ap.add_argument("--work", type=Path, help="work folder (default: a new temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    opts = ap.parse_args()
    cases = [
        c for c in CASES if (not opts.only or c.category in opts.only) and (not opts.case or any(t in c.id for t in opts.case))
    ]
    if opts.list:
        for c in cases:
            print(f"{c.category:<11} {c.id:<40} {c.what}")
        print(f"{len(cases)} cases")
        return
    if os.sep in opts.corral:  # children run in other folders; not resolved: a venv's python is a link
        opts.corral = os.path.abspath(opts.corral)
    work = Path(tempfile.mkdtemp(prefix="corral-faults-", dir=opts.work)).resolve()
    h = Harness(opts.corral, work, opts.input_timeout, int(opts.mem_gb * 2**30))
    version = subprocess.run([opts.corral, "-m", "corral.cli", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{version or 'corral ?'} ({opts.corral}); {len(cases)} cases; work folder {work}", file=sys.stderr)
    rows = []
    t0 = time.monotonic()
    try:
        for c in cases:
            v = Verdict()
            t = time.monotonic()
            try:
                c.fn(h, v, c.id)
            except Exception as e:  # noqa: BLE001 -- a harness failure is reported, not fatal
                v.flag("crash", f"HARNESS: {type(e).__name__}: {e}")
                v.note("the harness itself failed on this case; see the traceback on stderr")
                import traceback

                traceback.print_exc()
            finally:
                h.unmount_all()
            row = {"category": c.category, "id": c.id, "what": c.what, "seconds": round(time.monotonic() - t, 1), **v.as_dict()}
            if any(n.startswith("NOT INJECTED") for n in v.notes):
                row["not_injected"] = True
            rows.append(row)
            why = "; ".join(w for ws in v.flags.values() for w in ws)[:220]
            print(f"[{time.monotonic() - t0:6.0f} s] {c.category:<11} {c.id:<36} {row['class']:<12} {why}", file=sys.stderr)
    finally:
        h.unmount_all()
        if not opts.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\n{version} ({opts.corral}): {len(rows)} cases in {time.monotonic() - t0:.0f} s\n")
    print(table(rows))
    missed = [r["id"] for r in rows if r.get("not_injected")]
    if missed:
        print(f"\nfaults that never fired (the case did not test its moment): {', '.join(missed)}")
    if opts.json:
        opts.json.write_text(json.dumps({"corral": version, "python": opts.corral, "cases": rows}, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
