"""RackCC's control loop on one ToR-to-ToR path, episode by episode (the one-path loss
analysis of the RackCC reproduction, `onepath.toml`): from the uplink's queue sampled every
microsecond and the scheme's trace (`scheme.trace`, every 10 us: the ToR's marked ACKs, the
sum of the subflows' rates, every cut).

A congestion episode starts when the source ToR's uplink queue passes the marking threshold
K, after having fallen below K/2 since the last one. For each, with the trace's resolution
(10 us):

- `marks_us`: until the source ToR counted its first marked ACK (the echo: queueing, the way
  to the receivers and back);
- `first_cut_us`: until the first cut for marks a subflow applied;
- `all_cut_us`: until every subflow active then had cut (for marks or a loss);
- `above_us`: how long the subflows' summed rate had been above the link before the episode;
- `peak`: the highest summed rate over the link's, from 300 us before the episode to the
  next;
- `drops`: the drops from 100 us before the episode to 100 us before the next.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .claims import median


def trace_frames(trace: dict[str, Any]) -> dict[str, pl.DataFrame]:
    """The trace's tables (`jumbo`, `subflow`, `cuts`, `messages`) as frames."""
    return {
        k: pl.DataFrame(trace[k]["rows"], schema=trace[k]["columns"], orient="row", infer_schema_length=None)
        for k in ("jumbo", "subflow", "cuts", "messages")
    }


def episode_starts(time_s: np.ndarray, packets: np.ndarray, k: float) -> list[float]:
    """When the queue passes `k` packets, each time after having fallen below k/2."""
    out, armed = [], True
    for i in range(1, len(time_s)):
        if armed and packets[i] > k >= packets[i - 1]:
            out.append(float(time_s[i]))
            armed = False
        elif not armed and packets[i] < k / 2:
            armed = True
    return out


def episodes(
    queue: pl.DataFrame,
    drops_s: np.ndarray,
    trace: dict[str, Any] | None,
    *,
    k: float,
    capacity_bps: float,
    warmup_s: float,
) -> pl.DataFrame:
    """One row per episode after `warmup_s` (module doc); without a trace only `drops`."""
    t, p = queue["time_s"].to_numpy(), queue["packets"].to_numpy()
    starts = [e for e in episode_starts(t, p, k) if e > warmup_s]
    frames = trace_frames(trace) if trace else None
    rows = []
    for i, e in enumerate(starts):
        nxt = starts[i + 1] if i + 1 < len(starts) else float(t[-1])
        row: dict[str, Any] = {"start_s": e, "drops": int(np.sum((drops_s >= e - 100e-6) & (drops_s < nxt - 100e-6)))}
        if frames is not None:
            row.update(_loop(frames, e, nxt, capacity_bps))
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)


def _loop(f: dict[str, pl.DataFrame], e: float, nxt: float, capacity: float) -> dict[str, Any]:
    j, cuts, subs = f["jumbo"], f["cuts"], f["subflow"]
    jt, marks, s = j["t_us"].to_numpy() * 1e-6, j["marks"].to_numpy(), j["sum_s_bps"].to_numpy()
    ct, cause, flow = cuts["t_us"].to_numpy() * 1e-6, np.array(cuts["cause"].to_list()), cuts["flow"].to_numpy()

    def after(x: np.ndarray) -> float | None:
        return float((x[0] - e) * 1e6) if len(x) else None

    marked = jt[(jt > e) & (marks > 0)]
    mark_cuts = ct[(ct > e) & (cause == "mark")]
    window = (jt >= e - 300e-6) & (jt < nxt)
    active = set(subs.filter((pl.col("t_us") * 1e-6 > e) & (pl.col("t_us") * 1e-6 <= e + 10e-6))["flow"].to_list())
    first: dict[int, float] = {}
    for time, fl in zip(ct[(ct > e) & (ct < nxt)], flow[(ct > e) & (ct < nxt)]):
        first.setdefault(int(fl), float(time))
    below_before = jt[(jt <= e) & (s < capacity)]
    return {
        "marks_us": after(marked),
        "first_cut_us": after(mark_cuts),
        "all_cut_us": (max(first[x] for x in active) - e) * 1e6 if active and all(x in first for x in active) else None,
        "above_us": float((e - below_before[-1]) * 1e6) if len(below_before) else None,
        "peak": float(s[window].max() / capacity) if window.any() else None,
    }


def summary(eps: pl.DataFrame) -> dict[str, Any]:
    """A run's medians over its episodes (None where no episode gives the quantity)."""
    out: dict[str, Any] = {"episodes": eps.height}
    for col in ("drops", "marks_us", "first_cut_us", "all_cut_us", "above_us", "peak"):
        out[f"ep_{col}"] = median([float(x) for x in eps[col].drop_nulls().to_list()]) if col in eps.columns else None
    return out
