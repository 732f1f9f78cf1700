"""`corral compare`: group the runs of sweep or run folders and write a report folder.

The report folder holds `report.md` (Markdown with the tables and plots), the PNG plots and
every table behind them as CSV and Parquet. Runs are grouped by the `by` keys (default:
every swept key, and the source folder, that takes more than one value); within a group the
runs differ by seed (and by any swept key left out of `by`), and their spread is what the
error bars and bands show. Columns that only newer cores write (`slowdown`, `class`,
`tenant`, `deadline_met`, the `latency` table) are used when present; when absent, the
report says which plot or table it left out. Goodput over time comes from the per-flow
series of `[[flows]]` flows (`throughput.parquet`) plus the per-class series of `[[traffic]]`
flows (`throughput_class.parquet`, class `*` = their total). The folder is written atomically.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from ..outdir import writing
from ..sweep import layout
from . import stats
from .buckets import DEFAULT_BUCKETS
from .sources import Catalog, CompareError, load_catalog, read_table

CARRY = ["group_i", "group", "run", "seed"]
GROUP = ["group_i", "group"]
BREAKDOWN_COLUMNS = ("class", "tenant")  # categorical flow columns a newer core may write
MAX_ERRORS_LISTED = 20


@dataclass
class CompareResult:
    """What `compare` wrote."""

    out: Path
    by: list[str]
    groups: list[str]
    tables: dict[str, pl.DataFrame] = field(default_factory=dict)
    plots: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def compare(
    folders: list[str | os.PathLike],
    out: str | os.PathLike,
    *,
    by: list[str] | None = None,
    buckets: list[str] | tuple[str, ...] = DEFAULT_BUCKETS,
    plots: bool = True,
    force: bool = False,
) -> CompareResult:
    """Compare the runs of `folders`, grouped by `by`, into the report folder `out`.

    `out` must not hold one of `folders` or be a folder corral did not write as a report
    (`corral.outdir.OutputError`); `force=True` skips that check.
    """
    with writing(out, "report", folders, force) as writer:
        return _compare(writer, folders, out, by, buckets, plots)


def _compare(writer, folders, out, by, buckets, plots) -> CompareResult:
    catalog = load_catalog([Path(f) for f in folders])
    by = _check_by(catalog, by)
    try:
        edges = stats.bucket_edges(list(buckets))
    except ValueError as e:
        raise CompareError(f"--buckets: {e}") from None
    labels = stats.bucket_labels(list(buckets))
    ok = _with_groups(catalog.ok, by)
    groups = ok.unique("group_i", maintain_order=True).sort("group_i")["group"].to_list()
    result = CompareResult(Path(out), by, groups)
    with writer.publish() as tmp:
        _Report(tmp, catalog, ok, by, groups, edges, labels, plots, result).build()
    return result


def _check_by(catalog: Catalog, by: list[str] | None) -> list[str]:
    if not by:
        return catalog.varying_keys()
    allowed = ["source", *catalog.keys, "seed"]
    for key in by:
        if key not in allowed:
            raise CompareError(f"--by {key}: not a swept key of these folders (choose from: {', '.join(allowed)})")
    if len(set(by)) != len(by):
        raise CompareError("--by: a key is given twice")
    return list(by)


def _with_groups(ok: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Add `group` ("k=v, ...") and `group_i` (groups in order of first appearance, which
    for a sweep is the order of the values in the sweep file)."""
    if not by:
        return ok.with_columns(pl.lit("all").alias("group"), pl.lit(0).cast(pl.Int64).alias("group_i"))
    label = pl.concat_str([pl.format(f"{k}={{}}", pl.col(k).cast(pl.Utf8).fill_null("-")) for k in by], separator=", ")
    ok = ok.with_columns(label.alias("group"))
    order = ok["group"].unique(maintain_order=True).to_list()
    index = {g: i for i, g in enumerate(order)}
    return ok.with_columns(pl.col("group").replace_strict(index, return_dtype=pl.Int64).alias("group_i"))


class _Report:
    """Builds the tables, plots and Markdown of one report into `folder`."""

    def __init__(self, folder, catalog, ok, by, groups, edges, labels, plots, result):
        self.folder: Path = folder
        self.catalog: Catalog = catalog
        self.ok: pl.DataFrame = ok
        self.by: list[str] = by
        self.groups: list[str] = groups
        self.edges, self.labels = edges, labels
        self.plots = plots
        self.result: CompareResult = result
        self.md: list[str] = []

    # -- output helpers ------------------------------------------------------------------
    def table(self, name: str, frame: pl.DataFrame) -> pl.DataFrame:
        frame.write_parquet(self.folder / f"{name}.parquet", statistics=False)
        frame.write_csv(self.folder / f"{name}.csv")
        self.result.tables[name] = frame
        return frame

    def figure(self, name: str, draw, alt: str) -> None:
        if not self.plots:
            return
        draw(self.folder / f"{name}.png")
        self.result.plots.append(f"{name}.png")
        self.md.append(f"![{alt}]({name}.png)\n")

    def note(self, text: str) -> None:
        self.result.notes.append(text)
        self.md.append(f"*{text}*\n")

    # -- sections ---------------------------------------------------------------------------
    def build(self) -> None:
        flows = read_table(self.ok, "flows", CARRY)
        if flows is None:
            raise CompareError("no run has a flows.parquet")
        rows = []
        for row in self.ok.iter_rows(named=True):
            s = layout.read_json(Path(row["path"]) / layout.DONE_FILE)
            rows.append(
                {
                    "run": row["run"],
                    "sim_time_s": s.get("sim_time_s"),
                    "jain_index": s.get("jain_index"),
                    "packets_dropped": s.get("packets_dropped"),
                }
            )
        self.summaries = pl.DataFrame(
            rows, schema={"run": pl.Utf8, "sim_time_s": pl.Float64, "jain_index": pl.Float64, "packets_dropped": pl.Int64}
        )
        flows = flows.sort(["group_i", "seed", "run", "flow_id"])
        self.header()
        self.runs_table(flows)
        self.groups_table(flows)
        self.fct_section(flows)
        self.buckets_section(flows)
        self.breakdown_section(flows)
        self.throughput_section(flows)
        self.queues_section()
        self.latency_section()
        self.failures_section()
        self.md.append("## Files\n")
        files = sorted(p.name for p in self.folder.iterdir() if p.name != "report.md")
        self.md.append("\n".join(f"- `{f}`" for f in files) + "\n")
        (self.folder / "report.md").write_text("\n".join(self.md))

    def header(self) -> None:
        runs = self.catalog.runs
        counts = {s: runs.filter(pl.col("status") == s).height for s in (layout.OK, layout.FAILED, layout.MISSING)}
        sources = runs["source"].unique(maintain_order=True).to_list()
        self.md.append("# corral compare\n")
        self.md.append(
            f"Sources: {', '.join(f'`{s}`' for s in sources)}. Runs: {counts[layout.OK]} compared, "
            f"{counts[layout.FAILED]} failed, {counts[layout.MISSING]} missing (not run).\n"
        )
        by = ", ".join(f"`{k}`" for k in self.by) if self.by else "nothing (one group)"
        self.md.append(
            f"Grouped by {by}: {len(self.groups)} group(s). Error bars and bands show the min-max "
            "over a group's runs (its seeds, and any swept key not grouped by); thin CDF lines are single runs.\n"
        )

    def runs_table(self, flows: pl.DataFrame) -> None:
        per_run = flows.group_by("run", maintain_order=True).agg(
            pl.len().alias("flows"),
            pl.col("fct_s").count().alias("finished"),
            pl.col("fct_s").mean().alias("fct_mean_s"),
            pl.col("bytes_delivered").sum().alias("bytes_delivered"),
            pl.col("timeouts").sum().alias("timeouts"),
        )
        catalog = self.catalog.runs.join(self.ok.select("run", "source", *GROUP), on=["source", "run"], how="left")
        table = catalog.join(per_run, on="run", how="left").join(self.summaries, on="run", how="left")
        table = table.with_columns((pl.col("bytes_delivered") * 8 / pl.col("sim_time_s") / 1e9).alias("delivered_gbps"))
        self.table("runs", table.drop("path"))

    def groups_table(self, flows: pl.DataFrame) -> None:
        has_slowdown = _has(flows, "slowdown")
        has_deadline = _has(flows, "deadline_met")
        per_run = (
            flows.group_by([*GROUP, "run"], maintain_order=True)
            .agg(pl.col("bytes_delivered").sum(), pl.col("timeouts").sum())
            .join(self.summaries, on="run", how="left")
            .with_columns((pl.col("bytes_delivered") * 8 / pl.col("sim_time_s") / 1e9).alias("delivered_gbps"))
        )
        spread = per_run.group_by(GROUP, maintain_order=True).agg(
            pl.len().alias("runs"),
            pl.col("delivered_gbps").mean().alias("delivered_gbps_mean"),
            pl.col("delivered_gbps").std().alias("delivered_gbps_std"),
            pl.col("timeouts").mean().alias("timeouts_per_run"),
        )
        aggs = [
            pl.len().alias("flows"),
            pl.col("fct_s").count().alias("finished"),
            pl.col("fct_s").mean().alias("fct_mean_s"),
            pl.col("fct_s").quantile(0.5, interpolation="linear").alias("fct_p50_s"),
            pl.col("fct_s").quantile(0.99, interpolation="linear").alias("fct_p99_s"),
        ]
        if has_slowdown:
            aggs += [
                pl.col("slowdown").mean().alias("slowdown_mean"),
                pl.col("slowdown").quantile(0.99, interpolation="linear").alias("slowdown_p99"),
            ]
        if has_deadline:
            aggs.append(pl.col("deadline_met").cast(pl.Float64).mean().alias("deadline_met_frac"))
        pooled = flows.group_by(GROUP, maintain_order=True).agg(*aggs)
        keys = self.ok.unique("group_i", maintain_order=True).select("group_i", *[k for k in self.by])
        table = keys.join(spread, on="group_i").join(pooled.drop("group"), on="group_i").sort("group_i")
        table = table.select("group_i", "group", *[c for c in table.columns if c not in ("group_i", "group")])
        self.table("groups", table)
        self.md.append("## Groups\n")
        headers = ["group", "runs", "flows", "finished", "FCT mean (ms)", "FCT p99 (ms)"]
        if has_slowdown:
            headers += ["slowdown mean", "slowdown p99"]
        if has_deadline:
            headers.append("deadlines met")
        headers += ["delivered (Gbps)", "timeouts / run"]
        rows = []
        for r in table.iter_rows(named=True):
            row = [r["group"], r["runs"], r["flows"], r["finished"], _ms(r["fct_mean_s"]), _ms(r["fct_p99_s"])]
            if has_slowdown:
                row += [_num(r["slowdown_mean"]), _num(r["slowdown_p99"])]
            if has_deadline:
                row.append(_num(r["deadline_met_frac"]))
            row += [_pm(r["delivered_gbps_mean"], r["delivered_gbps_std"]), _num(r["timeouts_per_run"])]
            rows.append(row)
        self.md.append(_md_table(headers, rows))
        if not has_slowdown:
            self.note(f"{_no_slowdown_reason(flows)}: slowdown statistics are left out.")

    def fct_section(self, flows: pl.DataFrame) -> None:
        self.md.append("## Flow completion times\n")
        finished = flows.filter(pl.col("fct_s").is_not_null())
        if finished.is_empty():
            self.note("No flow finished (all unbounded or cut off by the duration): FCT CDF left out.")
            return
        per_run, spread = stats.summarise(flows, "fct_s", GROUP)
        self.table("fct_runs", per_run)
        self.table("fct", spread)
        self.figure(
            "fct_cdf",
            lambda p: _figures().cdf_plot(
                finished, "fct_s", self.groups, p, title="flow completion time", xlabel="FCT (s)", log_x=True
            ),
            "FCT CDF per group",
        )

    def buckets_section(self, flows: pl.DataFrame) -> None:
        metric = "slowdown" if _has(flows, "slowdown") else "fct_s"
        what = "slowdown" if metric == "slowdown" else "FCT (s)"
        self.md.append(f"## {what.split(' ')[0]} by flow size\n")
        sized = stats.with_bucket(flows.filter(pl.col("size_bytes").is_not_null()), self.edges, self.labels)
        if sized.filter(pl.col(metric).is_not_null()).is_empty():
            self.note(f"No finished flow with a size: {what} by size bucket left out.")
            return
        by = [*GROUP, "bucket_i", "bucket"]
        per_run, spread = stats.summarise(sized, metric, by)
        spread = spread.rename({"missing": "unfinished"})
        self.table("size_buckets_runs", per_run.rename({"missing": "unfinished"}))
        self.table("size_buckets", spread.with_columns(pl.lit(metric).alias("metric")))
        if metric == "fct_s":
            self.note(f"{_no_slowdown_reason(flows)}: buckets show FCT in seconds instead.")
        shown = "FCT in ms" if metric == "fct_s" else "slowdown"
        self.md.append(
            f"{shown} per size bucket ({', '.join(self.labels)}): mean over runs ± sample std "
            "(pooled value in size_buckets.csv).\n"
        )
        scale = 1e3 if metric == "fct_s" else 1.0  # FCT shown in ms
        rows = []
        for (_gi, g, _bi, b), sub in spread.group_by(by, maintain_order=True):
            cell = {
                r["stat"]: _pm(_scaled(r["run_mean"], scale), _scaled(r["run_std"], scale)) for r in sub.iter_rows(named=True)
            }
            first = sub.row(0, named=True)
            rows.append([g, b, first["samples"], first["unfinished"], *[cell.get(s, "–") for s in stats.STATS]])
        self.md.append(_md_table(["group", "size", "finished", "unfinished", *stats.STATS], rows))
        present = [b for b in self.labels if b in spread["bucket"].to_list()]
        self.figure(
            "size_buckets",
            lambda p: _figures().bucket_bars(spread, self.groups, present, p, ylabel=what),
            f"{what} by size bucket",
        )
        self.p99_by_bucket(sized)

    def p99_by_bucket(self, sized: pl.DataFrame) -> None:
        """Tail FCT per size bucket x group: the p99 of each run, then its mean, std and
        min-max over the group's runs (seeds). Tables fct_by_size(_runs) hold every statistic."""
        by = [*GROUP, "bucket_i", "bucket"]
        per_run, spread = stats.summarise(sized, "fct_s", by)
        self.table("fct_by_size_runs", per_run.rename({"missing": "unfinished"}))
        spread = self.table("fct_by_size", spread.rename({"missing": "unfinished"}))
        p99 = spread.filter(pl.col("stat") == "p99")
        present = [b for b in self.labels if b in p99["bucket"].to_list()]
        self.md.append("### p99 FCT by flow size\n")
        self.md.append(
            "p99 FCT in ms per size bucket: the p99 of each run, mean over the group's runs ± sample std "
            "[min–max over runs] (finished flows per run, mean). All statistics: fct_by_size.csv; "
            "per run: fct_by_size_runs.csv.\n"
        )
        cols = self.by or ["group"]
        rows = []
        for g in self.ok.unique("group_i", maintain_order=True).sort("group_i").iter_rows(named=True):
            cells = {r["bucket"]: r for r in p99.filter(pl.col("group_i") == g["group_i"]).iter_rows(named=True)}
            row = [_num(g[c]) for c in cols]
            for b in present:
                r = cells.get(b)
                if r is None or r["run_mean"] is None:
                    row.append("–")
                    continue
                row.append(
                    f"{_pm(r['run_mean'] * 1e3, _scaled(r['run_std'], 1e3))} "
                    f"[{r['run_min'] * 1e3:.4g}–{r['run_max'] * 1e3:.4g}] ({r['samples'] / r['runs']:.0f})"
                )
            rows.append(row)
        self.md.append(_md_table([*cols, *present], rows))

    def breakdown_section(self, flows: pl.DataFrame) -> None:
        for col in BREAKDOWN_COLUMNS:
            if not _has(flows, col):
                continue
            metric = "slowdown" if _has(flows, "slowdown") else "fct_s"
            sub = flows.with_columns(pl.col(col).cast(pl.Utf8))
            per_run, spread = stats.summarise(sub, metric, [*GROUP, col])
            spread = self.table(f"{metric}_by_{col}", spread.rename({"missing": "unfinished"}))
            self.md.append(f"## {metric} by flow {col}\n")
            rows = [
                [r["group"], r[col], r["samples"], r["unfinished"], _num(r["pooled"]), _pm(r["run_mean"], r["run_std"])]
                for r in spread.filter(pl.col("stat") == "mean").iter_rows(named=True)
            ]
            p99 = {(r["group"], r[col]): _num(r["pooled"]) for r in spread.filter(pl.col("stat") == "p99").iter_rows(named=True)}
            rows = [row + [p99.get((row[0], row[1]), "–")] for row in rows]
            self.md.append(
                _md_table(["group", col, "finished", "unfinished", "mean (pooled)", "mean over runs", "p99 (pooled)"], rows)
            )
        if not any(_has(flows, c) for c in BREAKDOWN_COLUMNS):
            self.note("No `class` or `tenant` column in flows.parquet: no per-class breakdown.")

    def throughput_section(self, flows: pl.DataFrame) -> None:
        """Goodput over time, total and per class/tenant, from both sampled sources.

        `[[flows]]` flows have one series each (`throughput.parquet`); `[[traffic]]` flows only
        have per-class series and their total, class `*` (`throughput_class.parquet`). The
        two sets of flows are disjoint, so a run's goodput is the sum of both.
        """
        self.md.append("## Throughput over time\n")
        tp = read_table(self.ok, "throughput", CARRY)
        tc = read_table(self.ok, "throughput_class", CARRY)
        tp = tp if tp is not None and not tp.is_empty() else None
        tc = tc if tc is not None and not tc.is_empty() else None
        if tp is None and tc is None:
            self.note("No throughput samples: throughput plot left out.")
            return
        parts = [] if tp is None else [tp.select(*CARRY, "time_s", "goodput_bps")]
        if tc is not None:
            parts.append(tc.filter(pl.col("class") == "*").select(*CARRY, "time_s", "goodput_bps"))
        agg = self.table("throughput_time", stats.aggregate_throughput(pl.concat(parts, how="vertical_relaxed")))
        self.figure("throughput_time", lambda p: _figures().throughput_plot(agg, self.groups, p), "aggregate goodput over time")
        if tc is not None:
            self.md.append("Goodput of `[[traffic]]` flows from throughput_class.parquet (per class and in total).\n")
        for col in BREAKDOWN_COLUMNS:
            if not _has(flows, col):
                continue
            parts = []
            if tp is not None:
                labels = flows.select("run", "flow_id", pl.col(col).cast(pl.Utf8).fill_null("-"))
                parts.append(tp.join(labels, on=["run", "flow_id"], how="left").select(*CARRY, "time_s", col, "goodput_bps"))
            if tc is not None:
                if col != "class":
                    self.note(f"Goodput over time per flow {col} left out: `[[traffic]]` flows are sampled per class only.")
                    continue
                parts.append(tc.filter(pl.col("class") != "*").select(*CARRY, "time_s", "class", "goodput_bps"))
            per = stats.aggregate_throughput(pl.concat(parts, how="vertical_relaxed"), (col,))
            self.table(f"throughput_time_by_{col}", per)
            self.md.append(f"Goodput over time per flow {col}: `throughput_time_by_{col}.csv`.\n")

    def queues_section(self) -> None:
        self.md.append("## Queue occupancy\n")
        q = read_table(self.ok, "queues", CARRY)
        if q is None or q.is_empty():
            self.note("No queue samples (set `metrics.queue_ports`): queue occupancy CDF left out.")
            return
        per_run, spread = stats.summarise(q, "bytes", GROUP)
        self.table("queues_runs", per_run)
        self.table("queues", spread)
        ports = q.select(pl.concat_str([pl.col("node"), pl.col("port").cast(pl.Utf8)], separator=":")).unique().height
        self.md.append(f"Bytes queued at the sampled ports ({ports} port(s), all samples pooled per group).\n")
        self.md.append("Mean over runs ± sample std, in bytes (pooled values in queues.csv).\n")
        rows = []
        for (_, g), sub in spread.group_by(GROUP, maintain_order=True):
            cell = {r["stat"]: _pm(r["run_mean"], r["run_std"]) for r in sub.iter_rows(named=True)}
            rows.append([g, *[cell.get(st, "–") for st in stats.STATS]])
        self.md.append(_md_table(["group", *stats.STATS], rows))
        self.figure(
            "queue_cdf",
            lambda p: _figures().cdf_plot(
                q.with_columns(pl.col("bytes") / 1e3), "bytes", self.groups, p, title="queue occupancy", xlabel="queued (KB)"
            ),
            "queue occupancy CDF",
        )

    def latency_section(self) -> None:
        lat = read_table(self.ok, "latency", CARRY)
        if lat is None or lat.is_empty():
            return  # only newer cores write a latency table; nothing to say otherwise
        value = (
            "latency_s"
            if "latency_s" in lat.columns
            else next(
                (c for c, t in lat.schema.items() if c.endswith("_s") and c not in ("time_s", "start_s") and t.is_float()), None
            )
        )
        self.md.append("## Latency\n")
        if value is None:
            self.note("latency.parquet has no `*_s` latency column: latency CDF left out.")
            return
        per_run, spread = stats.summarise(lat, value, GROUP)
        self.table("latency_runs", per_run)
        self.table("latency", spread)
        self.figure(
            "latency_cdf",
            lambda p: _figures().cdf_plot(lat, value, self.groups, p, title=f"latency ({value})", xlabel="seconds", log_x=True),
            "latency CDF",
        )

    def failures_section(self) -> None:
        bad = self.catalog.runs.filter(pl.col("status") != layout.OK)
        if bad.is_empty():
            return
        self.md.append("## Runs not compared\n")
        errors = {}
        for row in bad.iter_rows(named=True):
            info = layout.read_json(Path(row["path"]) / layout.ERROR_JSON)
            errors[(row["source"], row["run"])] = info.get("error", "")
        rows = [
            [r["source"], r["run"], r["status"], (errors.get((r["source"], r["run"])) or "").replace("|", "\\|")[:200]]
            for r in bad.head(MAX_ERRORS_LISTED).iter_rows(named=True)
        ]
        self.md.append(_md_table(["source", "run", "status", "error"], rows))
        if bad.height > MAX_ERRORS_LISTED:
            self.md.append(f"... and {bad.height - MAX_ERRORS_LISTED} more (see runs.csv).\n")


def _figures():
    from . import figures  # matplotlib is slow to import

    return figures


def _scaled(x: float | None, k: float) -> float | None:
    return None if x is None else x * k


def _no_slowdown_reason(flows: pl.DataFrame) -> str:
    """Why flows.parquet gives no slowdown: a flow's slowdown is its FCT over the ideal one,
    so no flow that finished with a size has one; only without the column is the cause the
    tool that wrote the runs."""
    if "slowdown" not in flows.columns:
        return "No `slowdown` column in flows.parquet (runs of an older corral, or of `corral emulate`)"
    finished = flows.filter(pl.col("fct_s").is_not_null()) if "fct_s" in flows.columns else flows.clear()
    if finished.is_empty():
        return "No `slowdown` values: no flow finished (every flow is unbounded, or the run ended before any completed)"
    if "size_bytes" in flows.columns and finished.filter(pl.col("size_bytes").is_not_null()).is_empty():
        return "No `slowdown` values: no flow with a size finished"
    return "No `slowdown` values in flows.parquet (runs of `corral emulate`, which has no ideal FCT to divide by)"


def _has(frame: pl.DataFrame, col: str) -> bool:
    return col in frame.columns and frame[col].null_count() < frame.height


def _num(x: Any) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def _ms(x: float | None) -> str:
    return "–" if x is None else f"{x * 1e3:.4g}"


def _pm(mean: float | None, std: float | None) -> str:
    if mean is None:
        return "–"
    return _num(mean) if std is None else f"{mean:.4g} ± {std:.2g}"


def _md_table(headers: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
