"""Run many independent simulations in parallel threads.

The native core releases the GIL while it simulates, so threads give real parallelism. Each
job is a scenario plus overrides; `reduce` turns a job's `Results` into whatever the
experiment keeps (usually a few numbers), inside the worker, so that only small records stay
in memory. Results come back in job order whatever order the runs finish in, and every run
is deterministic on its own, so the outcome does not depend on the number of workers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..api import run
from ..outdir import writing
from ..results import Results

T = TypeVar("T")


@dataclass(frozen=True)
class Job:
    """One simulation: a scenario file and the overrides applied to it."""

    scenario: Path
    overrides: tuple[str, ...] = ()
    labels: dict[str, Any] = field(default_factory=dict, compare=False)


def run_jobs(
    jobs: Sequence[Job],
    reduce: Callable[[Job, Results], T],
    *,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    max_memory: str | None = None,
) -> list[T]:
    """Run every job, returning `reduce(job, results)` for each, in job order.

    `progress(done, total)` is called from the calling thread as runs finish. The first
    failing run cancels the runs not yet started and its exception is raised.
    """
    workers = workers or min(len(jobs), os.cpu_count() or 1) or 1
    out: list[Any] = [None] * len(jobs)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {
            pool.submit(lambda j=job: reduce(j, run(j.scenario, overrides=j.overrides, max_memory=max_memory))): i
            for i, job in enumerate(jobs)
        }
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for fut in done:
                if fut.exception() is not None:
                    for other in pending:
                        other.cancel()
                    raise fut.exception()
                out[futures[fut]] = fut.result()
            if progress is not None:
                progress(len(jobs) - len(pending), len(jobs))
    return out


def seed_range(seeds: int, quick: bool, quick_seeds: int = 1) -> list[int]:
    """Seeds 1..`seeds`, or 1..`quick_seeds` for a quick run."""
    return list(range(1, (quick_seeds if quick else seeds) + 1))


Plan = Callable[[int, bool, tuple[str, ...]], tuple[list[Job], Callable[[list[Any]], Any]]]


def experiment(
    kind: str,
    inputs: tuple[Path, ...],
    plan: Plan,
    measure: Callable[[Job, Results], Any],
    write: Callable[[Any, Path], None],
    *,
    default_seeds: int = 5,
) -> Callable[..., Any]:
    """The `reproduce` function of a paper reproduction (the `EXPERIMENTS` protocol):
    `plan(seeds, quick, overrides)` gives its jobs and the function that turns their
    measurements into the report; `reproduce_into` does the rest."""

    def reproduce(
        out_dir: str | Path,
        *,
        seeds: int = default_seeds,
        quick: bool = False,
        overrides: tuple[str, ...] = (),
        progress: Callable[[int, int], None] | None = None,
        force: bool = False,
        max_memory: str | None = None,
    ) -> Any:
        """Run the reproduction and write `out_dir` (atomically; `corral.outdir` rules:
        `force` skips the checks of which existing folder it may replace)."""
        all_jobs, report = plan(seeds, quick, tuple(overrides))
        return reproduce_into(
            out_dir, kind, inputs, force, all_jobs, measure, report, write, progress=progress, max_memory=max_memory
        )

    return reproduce


def reproduce_into(
    out_dir: str | Path,
    kind: str,
    inputs: tuple[Path, ...],
    force: bool,
    jobs: Sequence[Job],
    measure: Callable[[Job, Results], Any],
    report: Callable[[list[Any]], T],
    write: Callable[[T, Path], None],
    *,
    progress: Callable[[int, int], None] | None = None,
    max_memory: str | None = None,
) -> T:
    """A paper reproduction's pipeline: refuse an unsafe `out_dir` before any work
    (`corral.outdir` rules), run `jobs` reducing each run with `measure`, build the report
    from the measurements, and write it into `out_dir` atomically."""
    with writing(out_dir, kind, inputs, force) as writer:
        measured = run_jobs(jobs, measure, progress=progress, max_memory=max_memory)
        result = report(measured)
        with writer.publish() as tmp:
            write(result, tmp)
    return result
