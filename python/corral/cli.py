"""The `corral` command line (argparse; rich for progress bars and tables).

    corral run SCENARIO.toml -o DIR [--set key=value ...]   simulate, write the run folder
    corral reproduce outcast -o DIR [--seeds N] [--quick] [--set key=value ...]
                                                            regenerate a paper's results
    corral sweep SWEEP.toml -o DIR [--scheduler ADDRESS] [--workers N]
                                                            run a parameter grid on Dask
    corral compare DIR... -o REPORT [--by KEY ...]          compare sweeps in a report
    corral arena -o DIR [--quick] [--contender NAME ...]    every design on the same networks
    corral emulate SCENARIO.toml -o DIR [--scale N]         the scenario on Linux TCP (root)
    corral version

Mistakes in the input (an invalid scenario, a bad override, a missing file, an unknown
option) print `error: <message>` on stderr and exit with status 2, without a traceback;
nothing is written then. Progress goes to stderr, summaries to stdout.

The parser is the standard library's argparse: typer, used before, cost about 18 ms more on
every command, a thirtieth of `corral run` on the benchmark's k=8 case.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import json
import math
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Callable, NoReturn

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

from . import __version__, interrupts
from ._core import ScenarioError, SimulationError
from .compare.buckets import DEFAULT_BUCKETS
from .outdir import OutputError

EXIT_USER_ERROR = 2


@functools.cache
def out_console() -> Console:
    """The console for summaries (stdout); rich is imported on first use, so `corral run`
    can import it beside the event loop."""
    from rich.console import Console

    return Console()


@functools.cache
def err_console() -> Console:
    """The console for progress (stderr)."""
    from rich.console import Console

    return Console(stderr=True)


def fail(message: str) -> SystemExit:
    """Print `error: message` on stderr; the caller raises the returned SystemExit."""
    print(f"error: {message}", file=sys.stderr)
    return SystemExit(EXIT_USER_ERROR)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn input and file-system errors into `error: ...` and exit status 2 (a full disk
    too, whichever library's exception reports it: `corral.outdir.disk_error`)."""
    from .outdir import disk_error

    try:
        yield
    except (ScenarioError, SimulationError, OutputError) as e:
        raise fail(str(e)) from None
    except OSError as e:
        disk = disk_error(e) if e.errno is None else None
        if disk is not None:
            raise fail(disk.strerror) from None
        text = f"{e.strerror}: {e.filename}" if e.strerror and e.filename else str(e)
        raise fail(text) from None
    except Exception as e:
        disk = disk_error(e)
        if disk is None:
            raise
        raise fail(disk.strerror) from None


def _import_all(modules: tuple[str, ...]) -> None:
    """Imports `modules` in order (run in a thread beside the event loop)."""
    for name in modules:
        importlib.import_module(name)


def _sim_progress() -> Progress:
    # Imported here: a run without a terminal on stderr never draws a bar.
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[sim]}"),
        TimeElapsedColumn(),
        console=err_console(),
        transient=True,
        disable=not err_console().is_terminal,
    )


def _scenario(path: Path, unset: list[str] | None):
    """The scenario to run: the file, or with `--unset` its `Scenario` with those removed."""
    if not unset:
        return path
    from .scenario import Scenario

    scenario = Scenario.load(path)
    for key in unset:
        scenario.remove(key)
    return scenario


def run(
    scenario: Path,
    out: Path,
    set_: list[str] | None = None,
    plots: bool = True,
    force: bool = False,
    max_memory: str | None = None,
    unset: list[str] | None = None,
) -> None:
    """Simulate SCENARIO and write its results folder."""
    from .api import simulate, simulation
    from .inputs import resolve
    from .outdir import writing

    with user_errors():
        scenario = resolve(scenario)
        with writing(out, "run", (scenario,), force) as writer:
            sim = simulation(_scenario(scenario, unset), set_ or (), max_memory=max_memory)
            plots = _announce(sim, plots)
            # The event loop releases the GIL: import what writing and printing the results need
            # (the results module, polars, a fifth of a second; rich's console and table) beside it.
            modules = ("corral.results", "polars", "rich.console", "rich.table")
            threading.Thread(target=_import_all, args=(modules,), daemon=True).start()
            with contextlib.ExitStack() as stack:
                progress = None
                if sys.stderr.isatty():  # no bar (nor its import) without a terminal
                    bar = stack.enter_context(_sim_progress())
                    task = bar.add_task(scenario.name, total=None, sim="")

                    def progress(now_ps: int, duration_ps: int) -> None:
                        text = f"{now_ps / 1e12:.4g} / {duration_ps / 1e12:.4g} s simulated"
                        bar.update(task, completed=now_ps, total=duration_ps, sim=text)

                results = simulate(sim, progress)
            results.write(out, plots=plots, writer=writer)
    out_console().print(summary_table(results.summary, results.flows, out, results.timing))


def _announce(sim, plots: bool) -> bool:
    """Say on stderr what a built run will cost when it is worth saying (a long run; plots
    that would not fit the memory limit, which are then skipped); whether to plot."""
    from . import estimates

    note = estimates.long_run_note(estimates.wall_seconds(sim), events=sim.estimated_events)
    if note:
        print(f"note: {note}", file=sys.stderr)
    if plots and estimates.memory(sim, plots=True) > sim.memory_limit:
        print(
            f"note: plots skipped: with them the run would need about {estimates.memory(sim, True) / 1e9:.1f} GB, "
            f"more than the limit of {sim.memory_limit / 1e9:.1f} GB (--max-memory); the tables hold all the data",
            file=sys.stderr,
        )
        return False
    return plots


def emulate(
    scenario: Path,
    out: Path,
    set_: list[str] | None = None,
    scale: float | None = None,
    kernel_cc: str | None = None,
    force: bool = False,
    unset: list[str] | None = None,
) -> None:
    """Run SCENARIO on real Linux TCP in network namespaces (root) and write a run folder."""
    from .emulate import EmulateError
    from .emulate import emulate as run_emulation
    from .inputs import resolve
    from .outdir import check_target

    with user_errors():
        scenario = resolve(scenario)
        check_target(out, "run", (scenario,), force)
        try:
            folder = run_emulation(
                _scenario(scenario, unset),
                out,
                set_ or (),
                scale=scale,
                kernel_congestion=kernel_cc,
                force=force,
                progress=lambda msg: err_console().print(msg),
                inputs=(scenario,),
            )
        except EmulateError as e:
            raise fail(str(e)) from None
    import polars as pl

    summary = json.loads((folder / "summary.json").read_text())
    out_console().print(summary_table(summary, pl.read_parquet(folder / "flows.parquet"), folder))


MAX_TAG_ROWS = 12  # flow tags the terminal summary lists; files keep every one


def summary_table(summary: dict, flows, out: Path, timing: dict | None = None) -> Table:
    """A short key/value table of a run for the terminal (`timing`: its timing.json)."""
    import polars as pl
    from rich.table import Table

    table = Table(title=f"{summary.get('scenario')} (seed {summary.get('seed')})", show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    timing = timing or {}
    events_per_s, jain = timing.get("events_per_s"), summary.get("jain_index")
    jain_row = ("Jain index", f"{jain:.3f}" if isinstance(jain, (int, float)) else "–")
    if summary.get("mode") == "emulate":
        # Only what the emulation measured: no events, no wall time beyond the traffic's,
        # and drops and marks as the ports' qdiscs counted them.
        rows = [
            ("emulated", f"{summary.get('sim_time_s', 0):.4g} s on Linux {summary.get('kernel', '?')}"),
            ("link rates", f"1/{summary.get('scale', 1):g} of the scenario's"),
            ("packets dropped / ECN-marked", f"{summary.get('packets_dropped', 0):,} / {summary.get('ecn_marks', 0):,}"),
            jain_row,
        ]
    else:
        rows = [
            ("simulated", f"{summary.get('sim_time_s', 0):.4g} s"),
            ("wall time", f"{timing.get('wall_time_s', 0):.3f} s"),
            ("events", f"{summary.get('events', 0):,}" + (f"  ({events_per_s / 1e6:.2f} M/s)" if events_per_s else "")),
            ("packets sent / dropped", f"{summary.get('packets_sent', 0):,} / {summary.get('packets_dropped', 0):,}"),
            jain_row,
        ]
    by_tag = flows.group_by("tag", maintain_order=True).agg(
        n=pl.len(), mbps=pl.col("goodput_bps").mean() / 1e6, timeouts=pl.col("timeouts").mean()
    )
    # The largest tags (by flow count, then first seen); the rest are counted, all are in flows.parquet.
    shown = by_tag.with_row_index("seen").sort(["n", "seen"], descending=[True, False]).head(MAX_TAG_ROWS)
    for _, tag, n, mbps, timeouts in shown.sort("seen").rows():
        rows.append((f"flows '{tag}' ({n})", f"{mbps:.1f} Mbps mean, {timeouts:.1f} timeouts"))
    if by_tag.height > MAX_TAG_ROWS:
        rest = by_tag.height - MAX_TAG_ROWS
        rows.append((f"... {rest:,} more tags", "see flows.parquet"))
    if flows.height > 0 and flows["class"].str.len_chars().max():  # [[traffic]] workloads
        for b in summary.get("fct_by_size") or []:
            slow = b["slowdown"]
            if b["finished"]:
                rows.append(
                    (
                        f"slowdown {b['bucket']} ({b['finished']}/{b['flows']})",
                        f"p50 {slow['p50']:.2f}, p99 {slow['p99']:.2f}",
                    )
                )
    rows.append(("written to", str(out)))
    for key, value in rows:
        table.add_row(key, value)
    return table


def reproduce(
    experiment: str,
    out: Path,
    seeds: int = 5,
    quick: bool = False,
    set_: list[str] | None = None,
    force: bool = False,
    max_memory: str | None = None,
) -> None:
    """Rerun a paper's experiment and write its tables and figures."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .experiments import EXPERIMENTS

    module = EXPERIMENTS.get(experiment)
    if module is None:
        raise fail(f"unknown experiment {experiment!r} (choose from: {', '.join(EXPERIMENTS)})")
    with user_errors():
        with Progress(
            TextColumn(f"[bold]{experiment}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("runs"),
            TimeElapsedColumn(),
            console=err_console(),
            transient=True,
            disable=not err_console().is_terminal,
        ) as bar:
            task = bar.add_task(experiment, total=None)
            report = module.reproduce(
                out,
                seeds=seeds,
                quick=quick,
                overrides=tuple(set_ or ()),
                progress=lambda done, total: bar.update(task, completed=done, total=total),
                force=force,
                max_memory=max_memory,
            )
    for table in module.rich_tables(report):
        out_console().print(table)
    out_console().print(f"written to {out}")


def sweep(
    sweep_file: Path,
    out: Path,
    scheduler: str | None = None,
    workers: int | None = None,
    force: bool = False,
    max_memory: str | None = None,
    max_runs: int | None = None,
) -> None:
    """Run every grid point x seed of SWEEP_FILE on Dask into OUT (resumable)."""
    from .sweep import SweepError, run_sweep

    if scheduler and workers:
        raise fail("--workers sizes the embedded cluster; it cannot be used with --scheduler")
    with user_errors(), _sigterm_as_interrupt() as signalled:
        try:
            with _sweep_progress() as (bar, update):
                limits = {"max_runs": max_runs} if max_runs is not None else {}
                result = run_sweep(
                    sweep_file,
                    out,
                    scheduler=scheduler,
                    workers=workers,
                    progress=update,
                    force=force,
                    max_memory=max_memory,
                    stop=lambda: bool(signalled),
                    notify=lambda text: print(f"note: {text}", file=sys.stderr),
                    **limits,
                )
        except SweepError as e:
            raise fail(str(e)) from None
        except KeyboardInterrupt:
            print(
                f"interrupted: finished runs are kept and {out / 'index.parquet'} lists them; "
                "run the same command again to resume",
                file=sys.stderr,
            )
            raise SystemExit(143 if signalled else 130) from None
    c = result.counts
    out_console().print(
        f"{c.total} runs: {c.done} done, {c.skipped} skipped (already complete), {c.failed} failed"
        + (f", {c.remaining} not run" if c.remaining else "")
    )
    for line in result.errors[:10]:
        err_console().print(f"[red]failed[/red] {line}", highlight=False, markup=True)
    out_console().print(f"index written to {out / 'index.parquet'}")
    if c.failed:
        raise SystemExit(1)


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """While inside, SIGTERM stops the sweep like Ctrl-C (it writes its index and stops its
    cluster on the way out). Yields a list that holds the signal number once one came; the
    sweep polls it (`run_sweep(stop=...)`) instead of being interrupted inside Dask."""
    import signal

    signalled: list[int] = []

    def interrupt(signum, _frame):
        signalled.append(signum)

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield signalled
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _sweep_progress():
    """A progress bar for sweeps: done, failed, skipped, remaining, ETA."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    bar = Progress(
        TextColumn("[bold]sweep"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(
            "[green]{task.fields[done]} done[/] [red]{task.fields[failed]} failed[/] "
            "[dim]{task.fields[skipped]} skipped[/] {task.fields[remaining]} remaining"
        ),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err_console(),
        transient=False,
        disable=not err_console().is_terminal,
    )
    with bar:
        task = bar.add_task("sweep", total=None, done=0, failed=0, skipped=0, remaining="?")

        def update(c) -> None:
            # the bar counts runs to do in this invocation, so that the ETA ignores skips
            bar.update(
                task,
                total=c.total - c.skipped,
                completed=c.done + c.failed,
                done=c.done,
                failed=c.failed,
                skipped=c.skipped,
                remaining=c.remaining,
            )

        yield bar, update


def compare(
    folders: list[Path],
    out: Path,
    by: list[str] | None = None,
    buckets: str = ",".join(DEFAULT_BUCKETS),
    plots: bool = True,
    force: bool = False,
) -> None:
    """Compare runs grouped by swept keys: report.md, plots, CSV/Parquet tables."""
    from .compare import CompareError
    from .compare import compare as compare_runs

    with user_errors():
        try:
            edges = [b for b in buckets.split(",") if b.strip()]
            result = compare_runs(folders, out, by=by, buckets=edges, plots=plots, force=force)
        except CompareError as e:
            raise fail(str(e)) from None
    by_text = ", ".join(result.by) if result.by else "nothing (one group)"
    out_console().print(f"{len(result.groups)} group(s) by {by_text}; {len(result.plots)} plots, {len(result.tables)} tables")
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    out_console().print(f"report written to {out / 'report.md'}")


def arena(
    out: Path,
    quick: bool = False,
    contender: list[str] | None = None,
    seeds: int | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    force: bool = False,
    max_memory: str | None = None,
) -> None:
    """Run every contender on the arena's networks and workloads; write the leaderboard."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .arena import ArenaError, run_arena

    if scheduler and workers:
        raise fail("--workers sizes the embedded cluster; it cannot be used with --scheduler")
    with user_errors(), _sigterm_as_interrupt() as signalled:
        try:
            with Progress(
                TextColumn("[bold]arena"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("runs"),
                TimeElapsedColumn(),
                console=err_console(),
                disable=not err_console().is_terminal,
            ) as bar:
                task = bar.add_task("arena", total=None)
                result = run_arena(
                    out,
                    quick=quick,
                    contenders=contender,
                    seeds=seeds,
                    scheduler=scheduler,
                    workers=workers,
                    force=force,
                    max_memory=max_memory,
                    progress=lambda done, total: bar.update(task, completed=done, total=total),
                    stop=lambda: bool(signalled),
                )
        except ArenaError as e:
            raise fail(str(e)) from None
        except KeyboardInterrupt:
            print("interrupted: finished runs are kept; run the same command again to resume", file=sys.stderr)
            raise SystemExit(143 if signalled else 130) from None
    na = sum(1 for r in result.runs if r.hash is None)
    out_console().print(
        f"{len(result.runs)} cell x seed: {result.done} run, {result.skipped} already complete, {na} n/a, {result.failed} failed"
    )
    for line in result.errors[:10]:
        err_console().print(f"[red]failed[/red] {line}", highlight=False, markup=True)
    out_console().print(f"leaderboard written to {out / 'leaderboard.md'}")
    _arena_exit(result)


def _arena_exit(result) -> None:
    """Exit 1 when no cell ran (every one n/a or failed) or a run failed."""
    if result.done + result.skipped == 0:
        reasons = sorted({r.reason for r in result.runs if r.reason})[:3]
        print("error: no cell ran" + (": " + "; ".join(reasons) if reasons else ""), file=sys.stderr)
        raise SystemExit(1)
    if result.failed:
        raise SystemExit(1)


def version() -> None:
    """Print corral's version."""
    out_console().print(f"corral {__version__}")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake the way corral reports every input mistake:
    `error: ...` on stderr, exit status 2."""

    def error(self, message: str) -> NoReturn:
        raise fail(f"{self.prog}: {message} (see '{self.prog} --help')")


def _at_least(minimum: float, kind: Callable[[str], float], what: str) -> Callable[[str], float]:
    """An argparse type: `kind(text)` (`what`, for the message), refused below `minimum`."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not minimum <= value < math.inf:  # NaN and infinity too
            raise argparse.ArgumentTypeError(f"expected a finite value of at least {minimum}, got {text}")
        return value

    return parse


def _memory_limit(text: str) -> str:
    """An argparse type: a `--max-memory` the core takes (bytes, or a size such as 8GB),
    checked before anything is planned; kept as text, as the core takes it."""
    from . import _core

    try:
        _core.parse_memory_limit(text)
    except ScenarioError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("--max-memory: ")) from None
    return text


def _add_common(cmd: argparse.ArgumentParser, out_help: str, *, overrides: str | None = None, max_memory: bool = True) -> None:
    """-o/--out, --set/-s, --force and --max-memory, shared by the commands that write a folder."""
    cmd.add_argument("-o", "--out", type=Path, required=True, help=out_help)
    if overrides:
        cmd.add_argument("-s", "--set", dest="set_", action="append", metavar="KEY=VALUE", help=overrides)
    cmd.add_argument(
        "--force",
        action="store_true",
        help="Also write into a corral output folder of another kind (a run folder as a report, "
        "say). corral only ever replaces files it wrote itself: a folder with files of yours, "
        "the current folder, a parent of it, or one holding an input is refused even then.",
    )
    if max_memory:
        cmd.add_argument(
            "--max-memory",
            metavar="SIZE",
            type=_memory_limit,
            help="Refuse runs estimated to need more memory than this, e.g. 8GB (default: half of this machine's).",
        )


REPLACED = (
    "Output folder: a new or empty folder, or a corral folder of the same kind, whose files from the "
    "earlier run are replaced (files you added there are kept)."
)


def parser() -> argparse.ArgumentParser:
    """The `corral` command line: one subcommand per function above."""
    top = _Parser(prog="corral", allow_abbrev=False, description="corral: fast, deterministic datacenter network simulation.")
    top.add_argument("--version", action="version", version=f"corral {__version__}")
    commands = top.add_subparsers(title="commands", metavar="COMMAND")

    def command(fn: Callable[..., None], help_text: str) -> argparse.ArgumentParser:
        cmd = commands.add_parser(fn.__name__, help=help_text, description=help_text, allow_abbrev=False)
        cmd.set_defaults(command=fn, command_parser=cmd)
        return cmd

    cmd = command(run, "Simulate SCENARIO and write its results folder.")
    cmd.add_argument("scenario", type=Path, help="Scenario TOML file (or corral:NAME, a scenario the package ships).")
    _add_common(cmd, REPLACED, overrides="Override a scenario key: --set topology.k=8 (repeatable).")
    cmd.add_argument(
        "--unset",
        action="append",
        metavar="KEY",
        help="Remove a key or a whole block before the --set overrides: --unset scheme, --unset traffic.1 (repeatable).",
    )
    cmd.add_argument("--plots", action=argparse.BooleanOptionalAction, default=True, help="Write PNG plots.")

    cmd = command(reproduce, "Rerun a paper's experiment and write its tables and figures.")
    cmd.add_argument("experiment", help="Experiment to reproduce: hcc, outcast, r2c2, rackcc or scc.")
    _add_common(cmd, REPLACED, overrides="Override a key in every run, e.g. --set network.clock_ppm=100.")
    cmd.add_argument("--seeds", type=_at_least(1, int, "an integer"), default=5, help="Seeds 1..N per configuration (default 5).")
    cmd.add_argument(
        "--quick",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="A fast look, not the paper's conditions: fewer seeds and smaller or shorter runs (report.md says which).",
    )

    cmd = command(sweep, "Run every grid point x seed of SWEEP_FILE on Dask into OUT (resumable).")
    cmd.add_argument("sweep_file", type=Path, help="Sweep TOML file (base scenario, grid, seeds).")
    _add_common(cmd, "Sweep folder; finished runs in it are kept and skipped.")
    cmd.add_argument("--scheduler", help="Address of a running Dask scheduler, e.g. tcp://host:8786.")
    cmd.add_argument(
        "--workers", type=_at_least(1, int, "an integer"), help="Worker processes of the embedded cluster (default: one per CPU)."
    )
    cmd.add_argument(
        "--max-runs", type=_at_least(1, int, "an integer"), help="Refuse a sweep of more runs than this (default 10,000)."
    )

    cmd = command(compare, "Compare runs grouped by swept keys: report.md, plots, CSV/Parquet tables.")
    cmd.add_argument("folders", type=Path, nargs="+", help="Sweep folders (corral sweep) or run folders (corral run).")
    _add_common(
        cmd, "Report folder: new, empty, or an earlier corral report (its files are replaced; yours kept).", max_memory=False
    )
    cmd.add_argument(
        "--by", action="append", metavar="KEY", help="Group runs by this swept key (repeatable; default: every key that varies)."
    )
    cmd.add_argument(
        "--buckets", default=",".join(DEFAULT_BUCKETS), help="Flow-size bucket edges, comma-separated, e.g. 10KB,100KB,1MB."
    )
    cmd.add_argument("--plots", action=argparse.BooleanOptionalAction, default=True, help="Write PNG plots.")

    cmd = command(emulate, "Run SCENARIO on real Linux TCP in network namespaces (root) and write a run folder.")
    cmd.add_argument("scenario", type=Path, help="Scenario TOML file (or corral:NAME, a scenario the package ships).")
    _add_common(cmd, REPLACED, overrides="Override a scenario key: --set topology.k=8 (repeatable).", max_memory=False)
    cmd.add_argument("--unset", action="append", metavar="KEY", help="Remove a key or a whole block (repeatable).")
    cmd.add_argument(
        "--scale",
        type=_at_least(1.0, float, "a number"),
        help="Divide every link rate by this (default: bring the busiest link to 100 Mbps).",
    )
    cmd.add_argument("--kernel-cc", metavar="NAME", help="Run every flow with this kernel congestion control (e.g. bbr).")

    cmd = command(arena, "Run every contender on the arena's networks and workloads; write the leaderboard.")
    _add_common(cmd, "Arena folder; finished runs in it are kept and skipped.")
    cmd.add_argument(
        "--quick",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="Smaller networks, loads 30/70 %%, fan-in 8, shorter runs, 1 seed: about 5 minutes on 2 cores.",
    )
    cmd.add_argument(
        "--contender",
        action="append",
        metavar="NAME",
        help="Run this controller or scheme (repeatable; ideal is always added). "
        "Default: newreno, cubic, dctcp, d2tcp, l2dct, pfabric, hpcc, swift, ideal, r2c2, hcc, rackcc, scc.",
    )
    cmd.add_argument("--seeds", type=_at_least(1, int, "an integer"), help="Seeds 1..N per cell (default 3; --quick 1).")
    cmd.add_argument("--scheduler", help="Address of a running Dask scheduler, e.g. tcp://host:8786.")
    cmd.add_argument(
        "--workers", type=_at_least(1, int, "an integer"), help="Worker processes of the embedded cluster (default: one per CPU)."
    )

    command(version, "Print corral's version.")
    return top


def _dispatch(argv: list[str]) -> None:
    """Parse `argv` and run its command; without one, print the help."""
    top = parser()
    parsed, unknown = top.parse_known_args(argv)
    args = vars(parsed)
    command, command_parser = args.pop("command", None), args.pop("command_parser", top)
    if unknown:  # reported by the command's parser, so that the message names the command
        command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if command is None:
        top.print_help()
        return
    command(**args)


def main() -> None:
    """Console-script entry point.

    Once a command has returned (its files written and closed), the process ends without the
    interpreter's teardown, which frees every module's objects one by one: a twentieth of a
    second with polars loaded, on every `corral run`. Only when nothing else is running: no
    non-daemon thread and no child process (a sweep's Dask cluster is closed by then).
    """
    code: int = 0
    interrupts.install()
    try:
        _dispatch(sys.argv[1:])
    except interrupts.Terminated:
        print("terminated (SIGTERM): no half-written output was left", file=sys.stderr)
        code = 143
    except KeyboardInterrupt:
        print("interrupted: no half-written output was left", file=sys.stderr)
        code = 130
    except SystemExit as e:
        if isinstance(e.code, int) or e.code is None:
            code = e.code or 0
        else:
            raise
    sys.stdout.flush()
    sys.stderr.flush()
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    children = "multiprocessing" in sys.modules and sys.modules["multiprocessing"].active_children()
    if others or children:
        sys.exit(code)
    os._exit(code)


if __name__ == "__main__":
    main()
