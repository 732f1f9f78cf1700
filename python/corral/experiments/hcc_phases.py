"""HCC's Fig. 4 phase by phase: what one web-search run did in each third of the run, when the
core link ran at 10, 50 and 5 Gbps (HCC paper, section IV-A), from its result tables only.

Every number is taken over the run's 1 ms samples, as the paper's Figs. 4(a), 4(d) and 4(e)
are ("captured every 1 millisecond"), within each phase and over the whole run:

- `util`: the core port's utilization, wire bytes sent in a sample over what the phase's
  capacity carries in it, and `util_std`, its standard deviation within the phase (the
  paper's "variations" of the total throughput);
- `wire_gbps`: what the core port transmitted, wire bytes (headers and retransmissions
  included) per second: the phase's throughput on the bottleneck, at most its capacity;
- `goodput_gbps`: the flows' total goodput as corral's class samples count it, payload bytes
  delivered in order to the receivers: data that arrived earlier behind a hole is credited
  when the hole is filled, so after a long recovery (a 1 s RTO) a phase is credited data
  that crossed the core in an earlier one, and its goodput can exceed its capacity;
- `converge_ms`: from the phase's start to the end of the first sample at least `FULL`
  utilized (the paper's "converges to the full utilization"), or the phase's length when no
  sample is (a lower bound, `converged` false);
- `queue_median`, `queue_mean`, `queue_p99`, `queue_full_share`: the core port's queue in
  packets, and the
  share of samples above `NEAR_FULL` of the 1000-packet buffer;
- `jain_mean`, `jain_ge_08`, `jain_ge_09`: Jain's index of the flows' goodputs (in-order
  delivery, as above) per sample: corral's class samples keep no per-flow wire rate;
- `latency_p99_s`, `latency_p99_over_min`: the p99 one-way packet latency, and over the
  smallest of the run (the unloaded path's).
"""

from __future__ import annotations

from typing import Any

import polars as pl

FULL = 0.95  # a sample is "full" at this utilization
NEAR_FULL = 800  # packets of the 1000-packet buffer: "the full queue size"
NAMES = ("10 Gbps", "50 Gbps", "5 Gbps")


def utilization(q: pl.DataFrame, phases: tuple[tuple[float, float, float, float], ...]) -> pl.DataFrame:
    """The core port's samples (time_s, tx_bytes, packets) as one row per sample interval:
    its end, the phase it lies in (by its start), its utilization of that phase's capacity
    and the wire rate it sent at (bit/s)."""
    t, tx, pk = q["time_s"].to_list(), q["tx_bytes"].to_list(), q["packets"].to_list()
    rows = []
    for i in range(1, len(t)):
        dt = t[i] - t[i - 1]
        if dt <= 0:
            continue
        k = phase_of(t[i - 1] + 1e-9, phases)
        bps = (tx[i] - tx[i - 1]) * 8 / dt
        rows.append((t[i], k, bps / phases[k][2], pk[i], bps))
    return pl.DataFrame(rows, schema=["time_s", "phase", "util", "packets", "wire_bps"], orient="row")


def phase_of(t: float, phases: tuple[tuple[float, float, float, float], ...]) -> int:
    """The index of the phase holding time `t` (the last one from its end on)."""
    for k, (a, b, _, _) in enumerate(phases):
        if a - 1e-12 <= t < b - 1e-12:
            return k
    return len(phases) - 1


def _share(xs: pl.Series, pred: pl.Series) -> float | None:
    return float(pred.mean()) if xs.len() else None


def stats(
    q: pl.DataFrame,
    throughput: pl.DataFrame,
    latency: pl.DataFrame,
    phases: tuple[tuple[float, float, float, float], ...],
) -> dict[str, Any]:
    """The module's numbers for each phase (`phase<k>_<name>`) and over the run (`<name>`)
    from the core port's samples `q`, the all-flows throughput rows `throughput` (time_s,
    goodput_bps, jain) and the latency samples `latency` (time_s, latency_s)."""
    u = utilization(q, phases)
    lat_min = latency["latency_s"].min() if latency.height else None
    out: dict[str, Any] = {}
    spans = [(f"phase{k}_", a, b) for k, (a, b, _, _) in enumerate(phases)] + [("", phases[0][0], phases[-1][1])]
    for prefix, a, b in spans:
        # The core port's samples of a phase are those that start in it (`utilization` gives
        # each its phase's capacity): where a step falls inside a sample (a run whose T/3 is
        # not a whole number of samples, as the quick run's), the sample that straddles it is
        # the earlier phase's, not the later one's at the earlier capacity.
        uu = u.filter(pl.col("phase") == int(prefix[5:-1])) if prefix else u
        tp = throughput.filter((pl.col("time_s") > a + 1e-12) & (pl.col("time_s") <= b + 1e-9))
        lat = latency.filter((pl.col("time_s") >= a) & (pl.col("time_s") < b))["latency_s"]
        jain = tp["jain"].drop_nulls()
        pk = uu["packets"]
        out[prefix + "util"] = float(uu["util"].mean()) if uu.height else None
        out[prefix + "util_std"] = float(uu["util"].std()) if uu.height > 1 else None
        out[prefix + "wire_gbps"] = float(uu["wire_bps"].mean()) / 1e9 if uu.height else None
        out[prefix + "goodput_gbps"] = float(tp["goodput_bps"].mean()) / 1e9 if tp.height else None
        out[prefix + "queue_median"] = float(pk.median()) if pk.len() else None
        out[prefix + "queue_mean"] = float(pk.mean()) if pk.len() else None
        out[prefix + "queue_p99"] = float(pk.quantile(0.99)) if pk.len() else None
        out[prefix + "queue_full_share"] = _share(pk, pk > NEAR_FULL)
        out[prefix + "jain_mean"] = float(jain.mean()) if jain.len() else None
        out[prefix + "jain_ge_08"] = _share(jain, jain >= 0.8)
        out[prefix + "jain_ge_09"] = _share(jain, jain >= 0.9)
        out[prefix + "latency_p99_s"] = float(lat.quantile(0.99)) if lat.len() else None
        out[prefix + "latency_p99_over_min"] = float(lat.quantile(0.99) / lat_min) if lat.len() and lat_min else None
        if prefix:
            t = uu.filter(pl.col("util") >= FULL)["time_s"]
            out[prefix + "converged"] = bool(t.len())
            out[prefix + "converge_ms"] = 1e3 * ((t.min() if t.len() else b) - a)
    return out


def table(runs: pl.DataFrame, readings: dict[str, str], variants: tuple[str, ...]) -> list[dict[str, Any]]:
    """The per-phase table: for each reading (its study name -> its label) and variant, each
    phase's medians over seeds of utilization, goodput, queue and Jain's index."""
    cols = ("util", "util_std", "wire_gbps", "goodput_gbps", "queue_median", "queue_full_share", "jain_mean", "converge_ms")
    out = []
    for study, label in readings.items():
        for v in variants:
            sub = runs.filter((pl.col("study") == study) & (pl.col("variant") == v))
            if not sub.height:
                continue
            for k, name in enumerate(NAMES):
                row: dict[str, Any] = {"reading": label, "variant": v, "phase": name}
                for c in cols:
                    col = f"phase{k}_{c}"
                    xs = sub[col].drop_nulls() if col in sub.columns else pl.Series([])
                    row[c] = float(xs.median()) if xs.len() else None
                out.append(row)
    return out
