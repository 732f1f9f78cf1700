"""Runs the Outcast studies (`outcast_studies`) and writes their part of the report.

Per run it measures, from the result tables only: the goodput of the "few" and "many" flows
over the window where all of them are active (from throughput.parquet), their ratio (and,
where a variant asks, the ratio from a later time on), the consecutive-drop runs at the
variant's bottleneck per input-port class (few vs many; a class without drops has no
shares, never zeros), the data packets each flow lost anywhere (drops.parquet), timeouts,
the bottleneck's utilization and the background load offered to it. Per study it summarizes the seeds (one row per variant),
adds the study's claims rows (`outcast_studies`: the paper's band and the per-seed values),
and writes `<study>.csv`, `<study>.png` and a Markdown section with the rows.
"""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path
from typing import Any

import polars as pl

from .. import ScenarioError
from ..plots import new_figure, save, wrap_title
from ..results import Results
from . import claims as cl
from . import conditions as cond
from .outcast_studies import STUDIES, Study, StudyRuns, Variant, variant_of
from .runner import Job

LONG_RUN = 4  # a drop run this long or longer counts as a blackout episode
SCENARIO_DIR = Path(str(resources.files("corral") / "scenarios" / "outcast"))


def study_jobs(seeds: list[int], extra: tuple[str, ...], studies: tuple[Study, ...] = STUDIES) -> list[Job]:
    out = []
    for study in studies:
        for variant in study.variants:
            for seed in seeds:
                labels = {
                    "study": study.key,
                    "variant": variant.label,
                    "seed": seed,
                    "_study": study,
                    "setup": variant.setup,
                    "deviation": dict(variant.deviation),
                }
                overrides = (f"seed={seed}", *extra, *variant.overrides)
                out.append(Job(SCENARIO_DIR / f"{variant.scenario}.toml", overrides, labels))
    return out


def window_goodput(res: Results, window_start: float, window_end: float | None = None) -> pl.DataFrame:
    """Per-flow goodput (bit/s) over the whole sampling intervals that begin at or after
    `window_start` seconds (and end by `window_end`, if given)."""
    interval = _seconds(res.scenario["metrics"]["interval"])
    tp = res.throughput.filter(pl.col("time_s") - interval >= window_start - 1e-12)
    if window_end is not None:
        tp = tp.filter(pl.col("time_s") <= window_end + 1e-12)
    if tp.height == 0:
        raise ScenarioError(f"duration: no throughput samples after {window_start:.3f} s; run longer")
    span = tp["time_s"].max() - (tp["time_s"].min() - interval)
    return tp.group_by("flow_id").agg(goodput_bps=pl.col("bytes").sum() * 8 / span)


def _seconds(value: Any) -> float:
    """A duration from scenario.json: integer picoseconds or a string like "5ms"."""
    if isinstance(value, (int, float)):
        return value / 1e12
    units = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    for suffix in ("ps", "ns", "us", "ms", "s"):
        if value.endswith(suffix):
            return float(value[: -len(suffix)]) * units[suffix]
    raise ValueError(f"not a duration: {value!r}")


def measure_study_run(job: Job, res: Results) -> dict[str, Any]:
    study = job.labels["_study"]
    variant = variant_of(study, job.labels["variant"])
    flows = res.flows
    few = flows.filter(pl.col("tag") == study.few_tag)
    many = flows.filter(pl.col("tag") == study.many_tag)
    if few.height == 0 or many.height == 0:
        raise ScenarioError(f"flows: study {study.key} needs flows tagged {study.few_tag!r} and {study.many_tag!r}")
    start = variant.window_start
    if start is None:
        start = float(pl.concat([few, many])["start_s"].max())
    goodput = flows.select("flow_id", "tag").join(window_goodput(res, start), on="flow_id", how="left").fill_null(0.0)
    by_tag = {
        t: goodput.filter(pl.col("tag") == t)["goodput_bps"].mean() for t in (study.few_tag, study.many_tag, *study.extra_tags)
    }
    bottleneck = variant.bottleneck or study.bottleneck
    few_in = variant.few_in or study.few_in
    node, port = bottleneck.split(":")
    ports = res.ports.filter((pl.col("node") == node) & (pl.col("port") == int(port)))
    if ports.height != 1:
        raise ScenarioError(f"study {study.key}: bottleneck port {bottleneck} not in this topology")
    runs = res.drop_runs.filter((pl.col("node") == node) & (pl.col("port") == int(port))).with_columns(
        port_class=pl.when(pl.col("in_node").is_in(list(few_in))).then(pl.lit("few")).otherwise(pl.lit("many"))
    )
    g_few, g_many = by_tag[study.few_tag], by_tag[study.many_tag]
    end = res.summary["sim_time_s"]
    out = {
        **{k: v for k, v in job.labels.items() if not k.startswith("_") and k != "deviation"},
        **cond.realized(flows, res.ports, end),
        "bottleneck": bottleneck,
        "ratio": g_few / g_many if g_many else math.nan,
        "goodput_few_bps": g_few,
        "goodput_many_bps": g_many,
        "utilization": ports["utilization"][0],
        "timeouts_few": few["timeouts"].mean(),
        "timeouts_many": many["timeouts"].mean(),
        **_flow_drops(res, few, many),
        "ratio_late": _late_ratio(res, variant, few, many),
        "background_load_bottleneck": _background_load(
            flows, res.ports, ports, end, (study.few_tag, study.many_tag, *study.extra_tags)
        ),
    }
    for tag in study.extra_tags:
        out[f"goodput_{tag}_bps"] = by_tag[tag]
    for cls in ("few", "many"):
        sub = runs.filter(pl.col("port_class") == cls)
        episodes = int(sub["episodes"].sum())
        out[f"drop_episodes_{cls}"] = episodes
        out[f"drop_run_max_{cls}"] = int(sub["run_length"].max()) if episodes else 0
        for name, which in (
            ("share_1", pl.col("run_length") == 1),
            ("share_2", pl.col("run_length") == 2),
            ("share_ge3", pl.col("run_length") >= 3),
            (f"share_ge{LONG_RUN}", pl.col("run_length") >= LONG_RUN),
        ):
            out[f"{name}_{cls}"] = int(sub.filter(which)["episodes"].sum()) / episodes if episodes else None
        out[f"drop_run_mean_{cls}"] = float((sub["run_length"] * sub["episodes"]).sum() / episodes) if episodes else None
    return out


def _flow_drops(res: Results, few: pl.DataFrame, many: pl.DataFrame) -> dict[str, float]:
    """The data packets dropped per flow anywhere in the network (drops.parquet), the few
    flows' mean and the many's (a flow without drops counts 0: it lost none)."""
    drops = res.drops.filter(pl.col("seq").is_not_null()).group_by("flow_id").agg(n=pl.len())
    per_flow = dict(zip(drops["flow_id"].to_list(), drops["n"].to_list()))

    def mean(part: pl.DataFrame) -> float:
        return sum(per_flow.get(f, 0) for f in part["flow_id"].to_list()) / part.height

    return {"flow_drops_few": mean(few), "flow_drops_many": mean(many)}


def _late_ratio(res: Results, variant: Variant, few: pl.DataFrame, many: pl.DataFrame) -> float | None:
    """The few flows' mean goodput over the many's from `variant.late_from` seconds to the
    end (None when the variant asks for none, or the run ends before it: a quick run)."""
    if variant.late_from is None or variant.late_from >= res.summary["sim_time_s"] - 1e-9:
        return None
    g = window_goodput(res, variant.late_from)
    rate = dict(zip(g["flow_id"].to_list(), g["goodput_bps"].to_list()))
    few_bps = sum(rate.get(f, 0.0) for f in few["flow_id"].to_list()) / few.height
    many_bps = sum(rate.get(f, 0.0) for f in many["flow_id"].to_list()) / many.height
    return few_bps / many_bps if many_bps else math.nan


def _background_load(
    flows: pl.DataFrame, ports: pl.DataFrame, bottleneck: pl.DataFrame, end_s: float, long_tags: tuple[str, ...]
) -> float | None:
    """The background flows' offered load at the bottleneck: what the flows that are not the
    study's long flows and that go to the bottleneck's peer could offer within the run
    (`conditions.offered_bytes`), over the run and the bottleneck's rate (None without
    background flows in the scenario)."""
    background = flows.filter(~pl.col("tag").is_in(list(long_tags)))
    if background.height == 0:
        return None
    to_peer = background.filter(pl.col("dst") == bottleneck["peer"][0])
    offered = cond.offered_bytes(to_peer, cond.host_rates(ports), end_s)
    return offered * 8 / (float(bottleneck["rate_bps"][0]) * end_s)


def variant_table(rows: list[dict[str, Any]], study: Study) -> pl.DataFrame:
    """One row per variant of `study`, in the study's order: means (and ratio std) over seeds."""
    runs = pl.DataFrame([r for r in rows if r["study"] == study.key], infer_schema_length=None)
    extra = [pl.col(f"goodput_{t}_bps").mean().alias(f"goodput_{t}_bps") for t in study.extra_tags]
    table = runs.group_by("variant", maintain_order=True).agg(
        seeds=pl.len(),
        ratio_median=pl.col("ratio").median(),
        ratio_mean=pl.col("ratio").mean(),
        ratio_std=pl.col("ratio").std(),
        seeds_below_fair=(pl.col("ratio") < 1.0).sum(),
        ratio_min=pl.col("ratio").min(),
        ratio_max=pl.col("ratio").max(),
        goodput_few_mbps=pl.col("goodput_few_bps").mean() / 1e6,
        goodput_many_mbps=pl.col("goodput_many_bps").mean() / 1e6,
        *extra,
        utilization=pl.col("utilization").mean(),
        timeouts_few=pl.col("timeouts_few").mean(),
        timeouts_many=pl.col("timeouts_many").mean(),
        drop_episodes_few=pl.col("drop_episodes_few").mean(),
        drop_episodes_many=pl.col("drop_episodes_many").mean(),
        drop_run_max_few=pl.col("drop_run_max_few").max(),
        drop_run_max_many=pl.col("drop_run_max_many").max(),
        single_drop_share_few=pl.col("share_1_few").mean(),
        single_drop_share_many=pl.col("share_1_many").mean(),
        long_run_share_few=pl.col(f"share_ge{LONG_RUN}_few").mean(),
        long_run_share_many=pl.col(f"share_ge{LONG_RUN}_many").mean(),
    )
    order = {v.label: i for i, v in enumerate(study.variants)}
    return table.sort(pl.col("variant").replace_strict(order, return_dtype=pl.Int64))


def _fmt(x: Any, spec: str = ".2f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return format(x, spec)


def study_markdown(study: Study, table: pl.DataFrame, rows: list[dict[str, Any]], figure: str) -> str:
    few, many = study.few_tag, study.many_tag
    header = [
        "variant",
        "seeds",
        f"ratio {few}/{many} median",
        "mean ± std",
        "min..max",
        "seeds < 1",
        f"{few} Mbps",
        f"{many} Mbps",
        *(f"{t} Mbps" for t in study.extra_tags),
        "util",
        f"timeouts {few}/{many}",
        f"max drop run {few}/{many}",
        f"single-drop share {few}/{many}",
        f"runs >= {LONG_RUN} share {few}/{many}",
    ]
    lines = [
        f"## {study.title}",
        "",
        f"Paper: {study.paper}. Bottleneck `{study.bottleneck}`; the {few} flows arrive from {', '.join(study.few_in)}.",
        "",
    ]
    if study.notes:
        lines += [study.notes, ""]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in table.iter_rows(named=True):
        cells = [
            r["variant"],
            str(r["seeds"]),
            _fmt(r["ratio_median"]),
            f"{_fmt(r['ratio_mean'])} ± {_fmt(r['ratio_std'])}",
            f"{_fmt(r['ratio_min'])}..{_fmt(r['ratio_max'])}",
            str(r["seeds_below_fair"]),
            _fmt(r["goodput_few_mbps"], ".1f"),
            _fmt(r["goodput_many_mbps"], ".1f"),
            *(_fmt((r[f"goodput_{t}_bps"] or 0) / 1e6, ".1f") for t in study.extra_tags),
            _fmt(r["utilization"], ".3f"),
            f"{_fmt(r['timeouts_few'], '.1f')} / {_fmt(r['timeouts_many'], '.1f')}",
            f"{r['drop_run_max_few']} / {r['drop_run_max_many']}",
            f"{_fmt(r['single_drop_share_few'])} / {_fmt(r['single_drop_share_many'])}",
            f"{_fmt(r['long_run_share_few'])} / {_fmt(r['long_run_share_many'])}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", *cl.rows_table(rows, conditions="none")]
    lines += ["", f"![{study.key}]({figure})", ""]
    return "\n".join(lines)


def study_claims(
    rows: list[dict[str, Any]], c: cl.Claims, studies: tuple[Study, ...] = STUDIES
) -> dict[str, list[dict[str, Any]]]:
    """Every study's claims rows into `c`, from the measured study runs `rows`; returns the
    rows added per study."""
    out = {}
    for study in studies:
        runs = {
            v.label: sorted((r for r in rows if r["study"] == study.key and r["variant"] == v.label), key=lambda r: r["seed"])
            for v in study.variants
        }
        before = len(c.rows)
        study.claims(StudyRuns(study.key, study.paper, runs), c)
        out[study.key] = c.rows[before:]
    return out


def study_figure(study: Study, table: pl.DataFrame, path: Path) -> Path:
    """Ratio per variant (median over seeds, with the seeds' min..max as error bars)."""
    width = max(5.0, 1.1 * table.height + 2)
    fig, ax = new_figure(width, 3.6)
    x = list(range(table.height))
    mean = table["ratio_median"].to_list()
    lo = [m - (r or m) for m, r in zip(mean, table["ratio_min"].to_list())]
    hi = [(r or m) - m for m, r in zip(mean, table["ratio_max"].to_list())]
    ax.bar(x, mean, yerr=[lo, hi], capsize=3, color="#1f77b4")
    ax.axhline(1.0, color="k", ls="--", lw=1, label="fair (ratio 1)")
    ax.set_xticks(x, table["variant"].to_list(), rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(f"{study.few_tag} / mean {study.many_tag} goodput\n(median, min..max over seeds)", fontsize=8)
    ax.set_yscale("log")
    # Wrapped to the figure's width: a long study title ran past the right edge and was cut.
    ax.set_title(wrap_title(f"{study.title} ({study.paper})", width, 9), fontsize=9)
    ax.legend(frameon=False, fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax.spines[["top", "right"]].set_visible(False)
    return save(fig, path)


def write_studies(
    rows: list[dict[str, Any]], by_study: dict[str, list[dict[str, Any]]], out: Path, studies: tuple[Study, ...] = STUDIES
) -> str:
    """Write every study's table and figure into `out`; return the Markdown (with each
    study's claims rows, `by_study` from `study_claims`)."""
    sections = []
    for study in studies:
        table = variant_table(rows, study)
        table.write_csv(out / f"{study.key}.csv", float_precision=4)
        study_figure(study, table, out / f"{study.key}.png")
        sections.append(study_markdown(study, table, by_study.get(study.key, []), f"{study.key}.png"))
    return "\n".join(sections)
