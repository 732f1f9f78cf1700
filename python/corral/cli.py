"""The `corral` command line (typer + rich).

    corral run SCENARIO.toml -o DIR [--set key=value ...]   simulate, write the run folder
    corral reproduce outcast -o DIR [--seeds N] [--quick] [--set key=value ...]
                                                            regenerate a paper's results
    corral sweep SWEEP.toml -o DIR [--scheduler ADDRESS] [--workers N]
                                                            run a parameter grid on Dask
    corral compare DIR... -o REPORT [--by KEY ...]          compare sweeps in a report
    corral emulate SCENARIO.toml -o DIR [--scale N]         the scenario on Linux TCP (root)
    corral version

Mistakes in the input (an invalid scenario, a bad override, a missing file) print
`error: <message>` on stderr and exit with status 2, without a traceback; nothing is
written then. Progress goes to stderr, summaries to stdout.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

from . import __version__
from .compare.buckets import DEFAULT_BUCKETS
from ._core import ScenarioError, SimulationError
from .outdir import OutputError

EXIT_USER_ERROR = 2

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="corral: fast, deterministic datacenter network simulation.",
)


@functools.cache
def out_console() -> Console:
    """The console for summaries (stdout); rich is imported on first use, so `corral run`
    can import it beside the event loop."""
    from rich.console import Console

    return Console()


# `--max-memory`: the memory a run may need (default: half of this machine's).
MaxMemoryOption = Annotated[
    Optional[str], typer.Option("--max-memory", help="Refuse runs estimated to need more memory than this, e.g. 8GB (default: half of this machine's).")
]

# The scenario argument and `-o` of the commands that write a run folder (run, emulate).
ScenarioArgument = Annotated[Path, typer.Argument(help="Scenario TOML file.")]
RunOutOption = Annotated[Path, typer.Option("-o", "--out", help="Output folder (a corral folder of the same kind there is replaced).")]
SetOption = Annotated[
    Optional[list[str]], typer.Option("--set", "-s", help="Override a scenario key: --set topology.k=8 (repeatable).")
]

# `--force`: the one way past corral.outdir's checks on an existing output folder.
ForceOption = Annotated[
    bool, typer.Option("--force", help="Write OUT even if it is not empty and not a corral folder of this kind.")
]


@functools.cache
def err_console() -> Console:
    """The console for progress (stderr)."""
    from rich.console import Console

    return Console(stderr=True)


def fail(message: str) -> typer.Exit:
    """Print `error: message` on stderr; the caller raises the returned Exit."""
    print(f"error: {message}", file=sys.stderr)
    return typer.Exit(EXIT_USER_ERROR)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn input and file-system errors into `error: ...` and exit status 2."""
    try:
        yield
    except (ScenarioError, SimulationError, OutputError) as e:
        raise fail(str(e)) from None
    except OSError as e:
        text = f"{e.strerror}: {e.filename}" if e.strerror and e.filename else str(e)
        raise fail(text) from None


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


@app.command()
def run(
    scenario: ScenarioArgument,
    out: RunOutOption,
    set_: SetOption = None,
    plots: Annotated[bool, typer.Option(help="Write PNG plots.")] = True,
    force: ForceOption = False,
    max_memory: MaxMemoryOption = None,
) -> None:
    """Simulate SCENARIO and write its results folder."""
    from .api import simulate, simulation
    from .outdir import check_target

    with user_errors():
        check_target(out, "run", (scenario,), force)
        sim = simulation(scenario, set_ or (), max_memory=max_memory)
        # The event loop releases the GIL: import what writing and printing the results need
        # (polars, a fifth of a second; rich's console and table) beside it.
        threading.Thread(target=_import_all, args=(("polars", "rich.console", "rich.table"),), daemon=True).start()
        with contextlib.ExitStack() as stack:
            progress = None
            if sys.stderr.isatty():  # no bar (nor its import) without a terminal
                bar = stack.enter_context(_sim_progress())
                task = bar.add_task(scenario.name, total=None, sim="")

                def progress(now_ps: int, duration_ps: int) -> None:
                    text = f"{now_ps / 1e12:.4g} / {duration_ps / 1e12:.4g} s simulated"
                    bar.update(task, completed=now_ps, total=duration_ps, sim=text)

            results = simulate(sim, progress)
        results.write(out, plots=plots, force=force, inputs=(scenario,))
    out_console().print(summary_table(results.summary, results.flows, out))


@app.command()
def emulate(
    scenario: ScenarioArgument,
    out: RunOutOption,
    set_: SetOption = None,
    scale: Annotated[
        Optional[float], typer.Option(min=1.0, help="Divide every link rate by this (default: bring the busiest link to 100 Mbps).")
    ] = None,
    kernel_cc: Annotated[
        Optional[str], typer.Option("--kernel-cc", help="Run every flow with this kernel congestion control (e.g. bbr).")
    ] = None,
    force: ForceOption = False,
) -> None:
    """Run SCENARIO on real Linux TCP in network namespaces (root) and write a run folder."""
    from .emulate import EmulateError
    from .emulate import emulate as run_emulation
    from .outdir import check_target

    with user_errors():
        check_target(out, "run", (scenario,), force)
        try:
            folder = run_emulation(scenario, out, set_ or (), scale=scale, kernel_congestion=kernel_cc, force=force,
                                   progress=lambda msg: err_console().print(msg))
        except EmulateError as e:
            raise fail(str(e)) from None
    import polars as pl

    summary = json.loads((folder / "summary.json").read_text())
    out_console().print(summary_table(summary, pl.read_parquet(folder / "flows.parquet"), folder))


MAX_TAG_ROWS = 12  # flow tags the terminal summary lists; files keep every one


def summary_table(summary: dict, flows, out: Path) -> Table:
    """A short key/value table of a run for the terminal."""
    import polars as pl
    from rich.table import Table

    table = Table(title=f"{summary.get('scenario')} (seed {summary.get('seed')})", show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    events_per_s, jain = summary.get("events_per_s"), summary.get("jain_index")
    rows = [
        ("simulated", f"{summary.get('sim_time_s', 0):.4g} s"),
        ("wall time", f"{summary.get('wall_time_s', 0):.3f} s"),
        ("events", f"{summary.get('events', 0):,}" + (f"  ({events_per_s / 1e6:.2f} M/s)" if events_per_s else "")),
        ("packets sent / dropped", f"{summary.get('packets_sent', 0):,} / {summary.get('packets_dropped', 0):,}"),
        ("Jain index", f"{jain:.3f}" if isinstance(jain, (int, float)) else "–"),
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
                rows.append((
                    f"slowdown {b['bucket']} ({b['finished']}/{b['flows']})",
                    f"p50 {slow['p50']:.2f}, p99 {slow['p99']:.2f}",
                ))
    rows.append(("written to", str(out)))
    for key, value in rows:
        table.add_row(key, value)
    return table


@app.command()
def reproduce(
    experiment: Annotated[str, typer.Argument(help="Experiment to reproduce: hcc, outcast, r2c2, rackcc or scc.")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Output folder (a corral folder of the same kind there is replaced).")],
    seeds: Annotated[int, typer.Option(min=1, help="Seeds 1..N per configuration (default 5).")] = 5,
    quick: Annotated[bool, typer.Option(help="One seed and 0.2 s runs, for a fast look.")] = False,
    set_: Annotated[
        Optional[list[str]],
        typer.Option("--set", "-s", help="Override a key in every run, e.g. --set network.clock_ppm=100."),
    ] = None,
    force: ForceOption = False,
    max_memory: MaxMemoryOption = None,
) -> None:
    """Rerun a paper's experiment and write its tables and figures."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .experiments import EXPERIMENTS

    module = EXPERIMENTS.get(experiment)
    if module is None:
        raise fail(f"unknown experiment {experiment!r} (choose from: {', '.join(EXPERIMENTS)})")
    with user_errors():
        with Progress(
            TextColumn(f"[bold]{experiment}"), BarColumn(), MofNCompleteColumn(), TextColumn("runs"),
            TimeElapsedColumn(), console=err_console(), transient=True,
            disable=not err_console().is_terminal,
        ) as bar:
            task = bar.add_task(experiment, total=None)
            report = module.reproduce(
                out, seeds=seeds, quick=quick, overrides=tuple(set_ or ()),
                progress=lambda done, total: bar.update(task, completed=done, total=total),
                force=force, max_memory=max_memory,
            )
    for table in module.rich_tables(report):
        out_console().print(table)
    out_console().print(f"written to {out}")


@app.command()
def sweep(
    sweep_file: Annotated[Path, typer.Argument(help="Sweep TOML file (base scenario, grid, seeds).")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Sweep folder; finished runs in it are kept and skipped.")],
    scheduler: Annotated[
        Optional[str], typer.Option(help="Address of a running Dask scheduler, e.g. tcp://host:8786.")
    ] = None,
    workers: Annotated[
        Optional[int], typer.Option(min=1, help="Worker processes of the embedded cluster (default: one per CPU).")
    ] = None,
    force: ForceOption = False,
    max_memory: MaxMemoryOption = None,
) -> None:
    """Run every grid point x seed of SWEEP_FILE on Dask into OUT (resumable)."""
    from .sweep import SweepError, run_sweep

    if scheduler and workers:
        raise fail("--workers sizes the embedded cluster; it cannot be used with --scheduler")
    with user_errors(), _sigterm_as_interrupt() as signalled:
        try:
            with _sweep_progress() as (bar, update):
                result = run_sweep(sweep_file, out, scheduler=scheduler, workers=workers, progress=update, force=force,
                                   max_memory=max_memory, stop=lambda: bool(signalled))
        except SweepError as e:
            raise fail(str(e)) from None
        except KeyboardInterrupt:
            print(f"interrupted: finished runs are kept and {out / 'index.parquet'} lists them; "
                  "run the same command again to resume", file=sys.stderr)
            raise typer.Exit(143 if signalled else 130) from None
    c = result.counts
    out_console().print(
        f"{c.total} runs: {c.done} done, {c.skipped} skipped (already complete), {c.failed} failed"
        + (f", {c.remaining} not run" if c.remaining else "")
    )
    for line in result.errors[:10]:
        err_console().print(f"[red]failed[/red] {line}", highlight=False, markup=True)
    out_console().print(f"index written to {out / 'index.parquet'}")
    if c.failed:
        raise typer.Exit(1)


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
        TextColumn("[bold]sweep"), BarColumn(), MofNCompleteColumn(),
        TextColumn("[green]{task.fields[done]} done[/] [red]{task.fields[failed]} failed[/] "
                   "[dim]{task.fields[skipped]} skipped[/] {task.fields[remaining]} remaining"),
        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
        console=err_console(), transient=False, disable=not err_console().is_terminal,
    )
    with bar:
        task = bar.add_task("sweep", total=None, done=0, failed=0, skipped=0, remaining="?")

        def update(c) -> None:
            # the bar counts runs to do in this invocation, so that the ETA ignores skips
            bar.update(task, total=c.total - c.skipped, completed=c.done + c.failed,
                       done=c.done, failed=c.failed, skipped=c.skipped, remaining=c.remaining)

        yield bar, update


@app.command()
def compare(
    folders: Annotated[list[Path], typer.Argument(help="Sweep folders (corral sweep) or run folders (corral run).")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Report folder (a corral report there is replaced).")],
    by: Annotated[
        Optional[list[str]],
        typer.Option("--by", help="Group runs by this swept key (repeatable; default: every key that varies)."),
    ] = None,
    buckets: Annotated[
        str, typer.Option(help="Flow-size bucket edges, comma-separated, e.g. 10KB,100KB,1MB.")
    ] = ",".join(DEFAULT_BUCKETS),
    plots: Annotated[bool, typer.Option(help="Write PNG plots.")] = True,
    force: ForceOption = False,
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
    out_console().print(f"{len(result.groups)} group(s) by {by_text}; {len(result.plots)} plots, "
                        f"{len(result.tables)} tables")
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    out_console().print(f"report written to {out / 'report.md'}")


@app.command()
def version() -> None:
    """Print corral's version."""
    out_console().print(f"corral {__version__}")


def main() -> None:
    """Console-script entry point.

    Once a command has returned (its files written and closed), the process ends without the
    interpreter's teardown, which frees every module's objects one by one: a twentieth of a
    second with polars loaded, on every `corral run`. Only when nothing else is running: no
    non-daemon thread and no child process (a sweep's Dask cluster is closed by then).
    """
    code: int = 0
    try:
        app()
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
