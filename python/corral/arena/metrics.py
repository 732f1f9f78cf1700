"""The numbers the arena keeps of each run, and how cells compare with `ideal`.

`run_metrics(folder, cell)` reads a finished run folder (flows.parquet, queues.parquet,
summary.json) and returns {metric: value}; a metric that has no value in a run (no flow of
that size finished, no long flow) is left out rather than given a made-up one. Metrics:

- `slowdown_p50_*`, `slowdown_p99_*`: FCT slowdown (FCT over the flow's FCT alone on the
  empty network) of finished flows, by size bucket: `small` < 100 KB, `medium` 100 KB-1 MB,
  `large` >= 1 MB (summary.json's `fct_by_size`).
- `long_goodput_gbps`: mean goodput of the flows of 1 MB or more (unbounded ones included),
  each over its life or to the end of the run.
- `queue_p99_kb`: 99th percentile of the sampled bottleneck queues (`plan.Network.queue_ports`).
- `drop_rate`: packets dropped over packets sent (data and ACKs); `timeouts_per_kflow`:
  retransmission timeouts per 1000 flows.
- `jain`: Jain's index of the flows' goodputs (summary.json's `jain_index`).
- `control_ratio`: control bytes over data bytes carried on links (0 without control messages).
- `unfinished`: share of the bounded flows not finished at the end.
- `offered_load` and `carried_load`: the bytes of the flows that started (delivered) over
  the capacity the load refers to during the arrival window (whole run); they show whether a
  heavy-tailed run reached its load.
- `incast_qct_p99_ms` (incast): 99th percentile of a request's completion time, from its
  responses' common start to the last one's finish (unfinished requests excluded).
- `rpc_per_s` (rpc): responses completed per second.

`ratios(frame)` sets each metric of a cell beside `ideal`'s in the same cell: the ratio of
the medians over seeds.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from .plan import Cell

BUCKETS = ("small", "medium", "large")
LONG_FLOW_BYTES = 1_000_000
# metric -> (meaning for tables, direction: -1 lower is better, +1 higher is better, 0 context)
METRICS: dict[str, tuple[str, int]] = {
    "slowdown_p50_small": ("p50 slowdown < 100 KB", -1),
    "slowdown_p99_small": ("p99 slowdown < 100 KB", -1),
    "slowdown_p50_medium": ("p50 slowdown 100 KB-1 MB", -1),
    "slowdown_p99_medium": ("p99 slowdown 100 KB-1 MB", -1),
    "slowdown_p50_large": ("p50 slowdown >= 1 MB", -1),
    "slowdown_p99_large": ("p99 slowdown >= 1 MB", -1),
    "long_goodput_gbps": ("long-flow goodput (Gbps)", 1),
    "queue_p99_kb": ("bottleneck queue p99 (KB)", -1),
    "drop_rate": ("drops / packets", -1),
    "timeouts_per_kflow": ("timeouts / 1000 flows", -1),
    "jain": ("Jain's index", 1),
    "control_ratio": ("control / data bytes", -1),
    "unfinished": ("unfinished flows", -1),
    "incast_qct_p99_ms": ("incast QCT p99 (ms)", -1),
    "rpc_per_s": ("RPCs / s", 1),
    "offered_load": ("offered load", 0),
    "carried_load": ("carried load", 0),
}
HEADLINE = "slowdown_p99_small"


def run_metrics(folder: Path, cell: Cell) -> dict[str, float]:
    """The metrics of one finished run (module doc)."""
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    flows = pl.read_parquet(folder / "flows.parquet")
    out: dict[str, float] = {}
    for name, entry in zip(BUCKETS, summary.get("fct_by_size") or []):
        slowdown = entry.get("slowdown") or {}
        for q in ("p50", "p99"):
            if slowdown.get(q) is not None:
                out[f"slowdown_{q}_{name}"] = float(slowdown[q])
    long = flows.filter(pl.col("size_bytes").is_null() | (pl.col("size_bytes") >= LONG_FLOW_BYTES))
    if long.height:
        out["long_goodput_gbps"] = float(long["goodput_bps"].mean()) / 1e9
    queues_file = folder / "queues.parquet"
    if queues_file.is_file():
        queues = pl.read_parquet(queues_file)
        if queues.height:
            out["queue_p99_kb"] = float(queues["bytes"].quantile(0.99, "linear")) / 1e3
    sent = summary.get("packets_sent") or 0
    if sent:
        out["drop_rate"] = (summary.get("packets_dropped") or 0) / sent
    if flows.height:
        out["timeouts_per_kflow"] = 1000.0 * float(flows["timeouts"].sum()) / flows.height
    if summary.get("jain_index") is not None:
        out["jain"] = float(summary["jain_index"])
    control = summary.get("control") or {}
    out["control_ratio"] = float(control.get("data_byte_ratio") or 0.0)
    bounded = flows.filter(pl.col("size_bytes").is_not_null())
    if bounded.height:
        out["unfinished"] = bounded["finish_s"].null_count() / bounded.height
    out.update(_loads(flows, cell))
    if cell.workload.family == "incast":
        qct = _incast_qct(flows)
        if qct is not None:
            out["incast_qct_p99_ms"] = qct * 1e3
    if cell.workload.family == "rpc":
        rpc = summary.get("rpc") or {}
        out["rpc_per_s"] = float(rpc.get("responses") or 0) / cell.duration_s
    return {k: v for k, v in out.items() if math.isfinite(v)}


def _loads(flows: pl.DataFrame, cell: Cell) -> dict[str, float]:
    """Offered and carried load over the capacity the workload's load refers to."""
    from .plan import ARRIVAL_SHARE

    if cell.load is None:
        return {}
    net = cell.network
    window = cell.duration_s * ARRIVAL_SHARE
    bounded = flows.filter(pl.col("size_bytes").is_not_null())
    capacity_bytes = net.load_capacity_bps * window / 8
    share = net.crossing if net.load_links else 1.0
    offered = float(bounded["size_bytes"].sum()) * share
    # delivered bytes over the whole run (arrivals stop at ARRIVAL_SHARE; the rest drains)
    carried = float(bounded["bytes_delivered"].sum()) * share
    return {"offered_load": offered / capacity_bytes, "carried_load": carried / capacity_bytes}


def _incast_qct(flows: pl.DataFrame) -> float | None:
    """p99 over incast requests of (last response's finish - their start), finished ones."""
    incast = flows.filter(pl.col("class") == "incast")
    if not incast.height:
        return None
    requests = incast.group_by("dst", "start_s").agg(
        pl.col("finish_s").max().alias("last"), pl.col("finish_s").null_count().alias("open")
    )
    done = requests.filter(pl.col("open") == 0)
    if not done.height:
        return None
    return float((done["last"] - done["start_s"]).quantile(0.99, "linear"))


CELL_KEYS = ["network", "workload", "load"]


def medians(frame: pl.DataFrame) -> pl.DataFrame:
    """Per cell and metric: median, min and max over seeds, and the seeds counted."""
    ok = frame.filter(pl.col("status") == "ok")
    return ok.group_by(["contender", *CELL_KEYS, "metric"], maintain_order=True).agg(
        pl.col("value").median().alias("median"),
        pl.col("value").min().alias("min"),
        pl.col("value").max().alias("max"),
        pl.len().alias("seeds"),
    )


def ratios(frame: pl.DataFrame, reference: str = "ideal") -> pl.DataFrame:
    """`medians` with `ratio`: the contender's median over the reference's in the same cell
    (null where the reference has no value or it is 0)."""
    med = medians(frame)
    ref = med.filter(pl.col("contender") == reference).select(*CELL_KEYS, "metric", pl.col("median").alias("ref"))
    joined = med.join(ref, on=[*CELL_KEYS, "metric"], how="left", nulls_equal=True)
    return joined.with_columns(
        pl.when(pl.col("ref").is_not_null() & (pl.col("ref") != 0))
        .then(pl.col("median") / pl.col("ref"))
        .otherwise(None)
        .alias("ratio")
    )
