"""The `corral` command line (typer + rich).

    corral run SCENARIO.toml -o DIR [--set key=value ...]   simulate, write the run folder
    corral reproduce outcast -o DIR [--seeds N] [--quick] [--set key=value ...]
                                                            regenerate a paper's results
    corral version

Mistakes in the input (an invalid scenario, a bad override, a missing file) print
`error: <message>` on stderr and exit with status 2, without a traceback; nothing is
written then. Progress goes to stderr, summaries to stdout.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import __version__
from ._core import ScenarioError, SimulationError

EXIT_USER_ERROR = 2

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="corral: fast, deterministic datacenter network simulation.",
)
out_console = Console()
err_console = Console(stderr=True)


def fail(message: str) -> typer.Exit:
    """Print `error: message` on stderr; the caller raises the returned Exit."""
    print(f"error: {message}", file=sys.stderr)
    return typer.Exit(EXIT_USER_ERROR)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn input and file-system errors into `error: ...` and exit status 2."""
    try:
        yield
    except (ScenarioError, SimulationError) as e:
        raise fail(str(e)) from None
    except OSError as e:
        text = f"{e.strerror}: {e.filename}" if e.strerror and e.filename else str(e)
        raise fail(text) from None


def _sim_progress() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[sim]}"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
        disable=not err_console.is_terminal,
    )


@app.command()
def run(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Output folder (replaced if it exists).")],
    set_: Annotated[
        Optional[list[str]],
        typer.Option("--set", "-s", help="Override a scenario key: --set topology.k=8 (repeatable)."),
    ] = None,
    plots: Annotated[bool, typer.Option(help="Write PNG plots.")] = True,
) -> None:
    """Simulate SCENARIO and write its results folder."""
    from .api import simulate, simulation

    with user_errors():
        sim = simulation(scenario, set_ or ())
        with _sim_progress() as bar:
            task = bar.add_task(scenario.name, total=None, sim="")

            def progress(now_ps: int, duration_ps: int) -> None:
                text = f"{now_ps / 1e12:.4g} / {duration_ps / 1e12:.4g} s simulated"
                bar.update(task, completed=now_ps, total=duration_ps, sim=text)

            results = simulate(sim, progress)
        results.write(out, plots=plots)
    out_console.print(summary_table(results.summary, results.flows, out))


def summary_table(summary: dict, flows, out: Path) -> Table:
    """A short key/value table of a run for the terminal."""
    import polars as pl

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
    by_tag = (
        flows.group_by("tag", maintain_order=True)
        .agg(n=pl.len(), mbps=pl.col("goodput_bps").mean() / 1e6, timeouts=pl.col("timeouts").mean())
        .rows()
    )
    for tag, n, mbps, timeouts in by_tag:
        rows.append((f"flows '{tag}' ({n})", f"{mbps:.1f} Mbps mean, {timeouts:.1f} timeouts"))
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
    experiment: Annotated[str, typer.Argument(help="Experiment to reproduce: outcast.")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Output folder (replaced if it exists).")],
    seeds: Annotated[int, typer.Option(min=1, help="Seeds 1..N per configuration.")] = 5,
    quick: Annotated[bool, typer.Option(help="One seed and 0.2 s runs, for a fast look.")] = False,
    set_: Annotated[
        Optional[list[str]],
        typer.Option("--set", "-s", help="Override a key in every run, e.g. --set network.clock_ppm=100."),
    ] = None,
) -> None:
    """Rerun a paper's experiment and write its tables and figures."""
    from .experiments import EXPERIMENTS

    module = EXPERIMENTS.get(experiment)
    if module is None:
        raise fail(f"unknown experiment {experiment!r} (choose from: {', '.join(EXPERIMENTS)})")
    with user_errors():
        with Progress(
            TextColumn(f"[bold]{experiment}"), BarColumn(), MofNCompleteColumn(), TextColumn("runs"),
            TimeElapsedColumn(), console=err_console, transient=True,
            disable=not err_console.is_terminal,
        ) as bar:
            task = bar.add_task(experiment, total=None)
            report = module.reproduce(
                out, seeds=seeds, quick=quick, overrides=tuple(set_ or ()),
                progress=lambda done, total: bar.update(task, completed=done, total=total),
            )
    for table in module.rich_tables(report):
        out_console.print(table)
    out_console.print(f"written to {out}")


@app.command()
def version() -> None:
    """Print corral's version."""
    out_console.print(f"corral {__version__}")


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
