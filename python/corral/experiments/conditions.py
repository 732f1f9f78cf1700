"""The conditions a reproduction's run realized, and whether a claims row was judged at the
paper's: the offered load against its target, the flows it generated and finished, and its
length (the "Verdicts a researcher can trust" rules; `claims` applies them).

A run's offered load is what its flows could put on the network within the run: each flow
counts its size, or what its sender's access link could send from its start to the end of the
run if that is less (a 1 GB data-mining flow that starts 1 s before the end of a run on a 1
Gbps host offers 125 MB of it). It is taken over the arrival window (arrivals stop there)
and against the capacity the workload's load is a fraction of, so a workload whose flows fit
in the run realizes its nominal load within the sampling noise of its sizes, and one whose
heavy tail cannot be carried within the run realizes less: the run did not reach the
paper's conditions.

A row's conditions are a dict: a check is `{"realized", "target", "tolerance"}` (relative;
0 means equal), with the range of the realized values over the row's runs; anything else is
recorded as is. A row reached its conditions when every check holds at the median of its
runs.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl

LOAD_TOLERANCE = 0.10  # offered load within +-10 % of the paper's (the rule)
# The columns `realized` gives a run's row in a runs table.
COLUMNS = ("load_offered", "flows_started", "flows_finished", "run_s")


def host_rates(ports: pl.DataFrame) -> dict[str, float]:
    """Each host's access-link rate (bit/s): the rate of its own output port."""
    hosts = ports.filter(pl.col("node").str.starts_with("h"))
    return dict(zip(hosts["node"].to_list(), (float(r) for r in hosts["rate_bps"].to_list())))


def offered_bytes(flows: pl.DataFrame, rates: dict[str, float], end_s: float) -> float:
    """Bytes `flows` could offer within a run that ends at `end_s` (module doc): each flow's
    size, capped at its sender's access-link rate times the time it had; an unbounded flow
    offers the whole of that."""
    total = 0.0
    for src, size, start in zip(flows["src"].to_list(), flows["size_bytes"].to_list(), flows["start_s"].to_list()):
        room = max(0.0, end_s - start) * rates.get(src, math.inf) / 8
        total += room if size is None else min(float(size), room)
    return total


def offered_bps(flows: pl.DataFrame, ports: pl.DataFrame, end_s: float, window_s: float) -> float:
    """The offered load of `flows` in bit/s over an arrival window of `window_s`."""
    return offered_bytes(flows, host_rates(ports), end_s) * 8 / window_s


def realized(
    flows: pl.DataFrame, ports: pl.DataFrame, end_s: float, *, capacity_bps: float | None = None, window_s: float | None = None
) -> dict[str, Any]:
    """A run's realized conditions (`COLUMNS`): the offered load (module doc) over
    `window_s` (default: the run) as a fraction of `capacity_bps` (None: not a load-driven
    workload, no load), the flows started and finished, and the run's length."""
    load = None
    if capacity_bps:
        window = window_s or end_s
        load = offered_bytes(flows, host_rates(ports), end_s) * 8 / (capacity_bps * window)
    return {
        "load_offered": load,
        "flows_started": flows.height,
        "flows_finished": int(flows["fct_s"].is_not_null().sum()),
        "run_s": end_s,
    }


def check(realized_values: list[float], target: float, tolerance: float = LOAD_TOLERANCE) -> dict[str, Any]:
    """A condition to meet: the median of `realized_values` within `tolerance` of `target`
    (relative), with the range over the runs."""
    xs = sorted(x for x in realized_values if x is not None and not (isinstance(x, float) and math.isnan(x)))
    mid = None if not xs else (xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2)
    return {"realized": mid, "target": target, "tolerance": tolerance, "range": [xs[0], xs[-1]] if xs else None}


def is_check(value: Any) -> bool:
    return isinstance(value, dict) and {"realized", "target", "tolerance"} <= value.keys()


def holds(c: dict[str, Any]) -> bool:
    """One check: realized within tolerance of target (a missing value does not hold)."""
    r, t, tol = c["realized"], c["target"], c["tolerance"]
    if r is None:
        return False
    if t == 0:
        return abs(r) <= tol
    return abs(r / t - 1) <= tol + 1e-12


def reached(conditions: dict[str, Any] | None) -> bool:
    """Every check of a row's conditions holds (a row without checks reached them)."""
    return all(holds(v) for v in (conditions or {}).values() if is_check(v))


def unmet(conditions: dict[str, Any] | None) -> list[str]:
    """The names of the checks that do not hold."""
    return [k for k, v in (conditions or {}).items() if is_check(v) and not holds(v)]


def of_runs(runs: pl.DataFrame, *, load: float | None = None, run_s: float | None = None, **extra: Any) -> dict[str, Any]:
    """A row's conditions from the runs it was judged on (`runs`, rows with `COLUMNS`):
    the offered load checked against `load` (the paper's, a fraction), the run length
    against `run_s` (the paper's, exactly) when given, the flows started and finished over
    all the runs, and `extra` as given (a check from `check`, or a value)."""
    out: dict[str, Any] = {}
    if load is not None:
        out["load"] = check(runs["load_offered"].to_list() if "load_offered" in runs.columns else [], load)
    if "run_s" in runs.columns and runs.height:
        lengths = runs["run_s"].drop_nulls().to_list()
        out["run_s"] = check(lengths, run_s, 0.0) if run_s is not None else (max(lengths) if lengths else None)
    for col in ("flows_started", "flows_finished"):
        if col in runs.columns:
            out[col] = int(runs[col].fill_null(0).sum())
    out.update(extra)
    return out
