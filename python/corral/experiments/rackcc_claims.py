"""The RackCC reproduction's rows (`corral reproduce rackcc`): the values each claim of
`papers/rackcc.toml` is judged on, measured from the report of `rackcc` (its runs and the Fig.
2 models). Paper rows run under the paper's setup (Fig. 3 on one ToR-to-ToR path, Fig. 2 on
the model fitted to its L = 1 point); the same claims under another setting (the fat-tree
with ECMP or spraying, window sending, the shared-alpha-only ablation, the calibrated model)
are sensitivity rows beside them."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from . import claims as cl
from . import conditions as cond
from . import rackcc as rc
from . import rackcc_model as model
from .claims import median_range, per_seed

MODEL_COND = {"model": "closed form (rackcc_model), 20,000 draws of B"}
# Fig. 3's sensitivity settings: the row id's suffix and what differs from the paper's setup.
NET_VARIES = {
    "ECMP": ("ecmp", "a k = 10 fat-tree with ECMP (corral's earlier setup): the subflows hash onto five uplinks"),
    "spraying": ("spraying", "a k = 10 fat-tree with per-packet spraying (dupthresh 10): every subflow on every path"),
}
VARIANT_VARIES = {
    rc.WINDOW: (
        "window",
        "window sending: a window of s x RTT, ACK-clocked (section 3.1's 'congestion window'; section 5 says rate)",
    ),
    "shared-alpha only": (
        "shared-alpha",
        "the shared alpha alone: no Fast Start, no D_target (the caption credits 'sharing ECN rate')",
    ),
}
SENS_VARIES = {
    "cold start 20 Gbps": (
        "cold-20g",
        "Fast Start's cold start at 20 Gbps instead of the source ToR's uplinks (ours either way)",
    ),
    "no loss halving": ("no-loss-halving", "no halving of f on a detected loss (ours: DCTCP's response; the paper names none)"),
}


def _interval(xs: list[float], level: float = 0.95, resamples: int = 4000) -> tuple[float, float] | None:
    """A percentile bootstrap interval of the median (fixed seed: the report is deterministic)."""
    if len(xs) < 2:
        return None
    rng = np.random.default_rng(0)
    meds = np.median(rng.choice(np.array(xs), size=(resamples, len(xs)), replace=True), axis=1)
    lo, hi = np.quantile(meds, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(lo), float(hi)


def _per_seed_ratio(a: pl.DataFrame, b: pl.DataFrame) -> list[float]:
    """Per seed: `a`'s speedup over `b`'s (frames of seed, speedup)."""
    both = a.join(b, on="seed", suffix="_b").filter(pl.col("speedup_b") > 0)
    return (both["speedup"] / both["speedup_b"]).to_list()


def _study(sweep: str, value: Any) -> str:
    """The study whose runs hold a sweep's point (the default point's runs stand in for it)."""
    return "default" if rc.DEFAULT[sweep] == value else sweep


class _Rows:
    """Adds a claim's row under the paper's setting, or a sensitivity row under another."""

    def __init__(self, c: cl.Claims) -> None:
        self.c = c

    def put(self, claim_id: str, values: list[float], variant: tuple[str, str] | None, **kw: Any) -> None:
        kw.setdefault("unit", "x")
        if variant is None:
            self.c.row(claim_id, values, **kw)
        else:
            self.c.sensitivity(claim_id, variant[0], values, varies=variant[1], **kw)


def claims(r: Any) -> list[dict[str, Any]]:
    c = cl.Claims(rc.PAPER, table=rc.TABLE)
    rows = _Rows(c)
    _fig2(r, rows)
    for net in rc.NETS:
        _fig3(r, rows, net, "RackCC")
    for variant in (rc.WINDOW, "shared-alpha only"):
        _fig3(r, rows, rc.PAPER_NET, variant)
    _sensitivity(r, rows)
    _onepath(r, rows)
    _dtarget(r, c)
    _coexist(r, rows)
    return c.rows


# ---------------------------------------------------------------- Fig. 2


def _params(p: model.ModelParams) -> str:
    return f"RTT {p.rtt_s * 1e6:.0f} us, IW 6 KB, B ~ Exp(mean {p.mean_b_bps / 1e9:.1f} Gbps), NIC {p.nic_bps / 1e9:.0f} Gbps"


def _ceiling(p: model.ModelParams, size_bytes: float, L: int) -> float:
    """The model's speedup when every draw of B exceeds the NIC: the share is the NIC."""
    bits, rate = size_bytes * 8.0, np.array([p.nic_bps])
    tcp = model.tcp_time(bits, rate, p.rtt_s, p.initial_window_bytes * 8.0)[0]
    return float(tcp / model.rackcc_time(bits, rate, p.rtt_s, L)[0])


def _fig2(r: Any, rows: _Rows) -> None:
    short, big = rc.FIG2_SHORT, rc.FIG2_EXISTING[-1]
    fitted = r.fig2_params["fitted"]
    fit_note = f"{_params(fitted)}: B's mean fitted to the paper's L = 1 point ({rc.TABLE.value('fig2-l1')}x for 64 KB)"
    calibrated = r.fig2_params["calibrated"]
    cal = (
        "calibrated",
        f"the model on corral's own Fig. 3 run instead: {_params(calibrated)}, B's mean RackCC's JumboFlow throughput at "
        "the default point on one path (median over seeds), the NIC the host link",
    )

    def sp(p: model.ModelParams, size: float, L: int, existing: int = 1) -> float:
        return model.speedup(size, existing, L, p)

    for name, variant in (("fitted", None), ("calibrated", cal)):
        p = r.fig2_params[name]
        note = fit_note if variant is None else ""
        rows.put(
            "fig2-l1",
            [sp(p, short, 1)],
            variant,
            conditions=MODEL_COND,
            note=note,
            detail=f"at most {_ceiling(p, short, 1):.2f}x at this NIC",
        )
        rows.put("fig2-l3", [sp(p, short, 3)], variant, conditions=MODEL_COND, note=note, detail=f"L = 2: {sp(p, short, 2):.2f}x")
        if variant is None:
            for nic in rc.FIG2_NICS:
                q = r.fig2_params[f"fitted, NIC {nic / 1e9:.0f} Gbps"]
                rows.put(
                    "fig2-l3",
                    [sp(q, short, 3)],
                    (f"nic-{nic / 1e9:.0f}g", f"the model fitted at a {nic / 1e9:.0f} Gbps NIC instead of 40 ({_params(q)})"),
                    conditions=MODEL_COND,
                    detail=f"L = 1 gives {sp(q, short, 1):.2f}x there (fitted)",
                )
        by_size = {s: sp(p, s, 1) for s in (short, 1e6, 10e6)}
        rows.put(
            "fig2-size",
            [by_size[10e6] / by_size[short]],
            variant,
            conditions=MODEL_COND,
            note=note,
            detail=" > ".join(f"{x:.2f}x" for x in by_size.values()) + f" at 64 KB, 1 MB, 10 MB; {sp(p, 16e3, 1):.2f}x at 16 KB",
        )
        one, many = sp(p, short, 1, 1), sp(p, short, 1, big)
        rows.put(
            "fig2-subflows",
            [many / one],
            variant,
            conditions=MODEL_COND,
            note=note,
            detail=f"{one:.2f}x at 1, {many:.2f}x at {big}",
        )


# ---------------------------------------------------------------- Fig. 3


def _variant_of(net: str, variant: str) -> tuple[str, str] | None:
    """The sensitivity suffix and reason of Fig. 3's rows on `net` for `variant` (None: the
    paper's setting, RackCC on one path)."""
    if net != rc.PAPER_NET:
        return NET_VARIES[net]
    return VARIANT_VARIES.get(variant)


def _fig3(r: Any, rows: _Rows, net: str, variant: str) -> None:
    v = _variant_of(net, variant)
    frame = r.speedups.filter((pl.col("net") == net) & (pl.col("variant") == variant))
    fig3 = r.runs.filter(pl.col("study").is_in(["default", *rc.SWEEPS]) & (pl.col("net") == net))
    fcond = cond.of_runs(fig3)
    dcond = cond.of_runs(fig3.filter(pl.col("study") == "default"))
    sp = per_seed(frame.filter(pl.col("study") == "default"), "speedup")
    ci = _interval(sp)
    rows.put(
        "fig3-default",
        sp,
        v,
        conditions=dcond,
        detail=f"95 % interval of the median [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "",
    )
    spread = cl.ratio(
        r.runs.filter((pl.col("study") == "default") & (pl.col("net") == net)),
        "max_over_median",
        {"variant": variant},
        {"variant": "DCTCP"},
    )
    rows.put("fig3-spread", spread, v, conditions=dcond)
    if not frame.filter(pl.col("study") != "default").height:
        return  # no sweeps on this network (a quick run's fat-tree)
    sweeps = rc.QUICK_SWEEPS if r.quick else rc.SWEEPS

    def point(sweep: str, value: Any) -> pl.DataFrame:
        return frame.filter((pl.col("study") == _study(sweep, value)) & (pl.col(sweep) == value)).select("seed", "speedup")

    pts = {sweep: {x: point(sweep, x)["speedup"].to_list() for x in values} for sweep, values in sweeps.items()}
    lo, hi = sweeps["subflows"][0], sweeps["subflows"][-1]
    rows.put(
        "fig3a",
        _per_seed_ratio(point("subflows", hi), point("subflows", lo)),
        v,
        conditions=fcond,
        detail=", ".join(f"{n}: {median_range(x, '.2f')}x" for n, x in pts["subflows"].items()),
    )
    p_lo, p_hi = sweeps["period_us"][0], sweeps["period_us"][-1]
    if variant == "RackCC":
        rows.put(
            "fig3b",
            _per_seed_ratio(point("period_us", p_hi), point("period_us", p_lo)),
            v,
            conditions=fcond,
            detail=", ".join(f"{pu} us {median_range(x, '.2f')}x" for pu, x in pts["period_us"].items()),
        )
    sizes = sweeps["size"]
    detail = ", ".join(f"{sz // 1000} KB {median_range(x, '.2f')}x" for sz, x in pts["size"].items())
    rows.put("fig3c-rise", _per_seed_ratio(point("size", 150_000), point("size", 10_000)), v, conditions=fcond, detail=detail)
    rows.put("fig3-short", _per_seed_ratio(point("size", sizes[0]), point("size", sizes[-1])), v, conditions=fcond, detail=detail)
    rows.put("fig3-short-level", point("size", sizes[0])["speedup"].to_list(), v, conditions=fcond)
    flat = _per_seed_ratio(point("size", sizes[-1]), point("size", sizes[-2]))
    rows.put(
        "fig3c-plateau",
        _per_seed_ratio(point("size", sizes[-1]), point("size", sizes[0])),
        v,
        conditions=fcond,
        detail=f"flat from {sizes[-2] // 1000} KB: {sizes[-1] // 1000} KB over {sizes[-2] // 1000} KB {median_range(flat, '.2f')}x",
    )
    rows.put(
        "fig3c-level",
        point("size", sizes[-1])["speedup"].to_list(),
        v,
        conditions=fcond,
        detail=f"{sizes[-2] // 1000} KB {median_range(pts['size'][sizes[-2]], '.2f')}x",
    )


def _sensitivity(r: Any, rows: _Rows) -> None:
    """The default point under the cold-start and loss-response settings, on every network."""
    for net in rc.NETS:
        full = per_seed(r.speedups.filter((pl.col("net") == net) & (pl.col("study") == "default")), "speedup", variant="RackCC")
        dcond = cond.of_runs(r.runs.filter((pl.col("study") == "default") & (pl.col("net") == net)))
        for variant, (suffix, varies) in SENS_VARIES.items():
            if net != rc.PAPER_NET:
                suffix, varies = f"{NET_VARIES[net][0]}-{suffix}", f"{varies}; {NET_VARIES[net][1]}"
            values = per_seed(
                r.speedups.filter((pl.col("net") == net) & (pl.col("study") == "default")), "speedup", variant=variant
            )
            rows.put("fig3-default", values, (suffix, varies), conditions=dcond, detail=f"RackCC {median_range(full, '.2f')}x")


# ---------------------------------------------------------------- the one-path loss


def _onepath(r: Any, rows: _Rows) -> None:
    runs = r.runs.filter(pl.col("study") == "onepath")
    ocond = cond.of_runs(runs)

    def by(variant: str, col: str) -> list[float]:
        return per_seed(runs, col, variant=variant)

    def drops_of(variant: str) -> str:
        d, sent = by(variant, "drops"), by(variant, "packets_sent")
        frac = [100 * a / b for a, b in zip(d, sent) if b]
        return f"{variant} {median_range(d, ',.0f')} drops ({median_range(frac, '.1f')} % of packets sent, {sum(d):,.0f} in all)"

    def versus(a: str, b: str) -> list[float]:
        return cl.ratio(runs, "drops", {"variant": a}, {"variant": b})

    rows.put(
        "onepath-drops",
        versus("RackCC", "DCTCP"),
        None,
        conditions=ocond,
        detail=f"{drops_of('RackCC')}; {drops_of('DCTCP')}; after the first ms: RackCC "
        f"{median_range(by('RackCC', 'late_drops'), ',.0f')}, DCTCP {median_range(by('DCTCP', 'late_drops'), ',.0f')}",
    )
    rows.put(
        "onepath-drops",
        versus(rc.OBSERVED, "DCTCP"),
        (
            "observed",
            "the law's current rate read as the subflow's observed rate (section 3.2), not its previous target: "
            '`scheme.current = "observed"`',
        ),
        conditions=ocond,
        detail=f"{drops_of(rc.OBSERVED)}; peak aggregate {median_range(by(rc.OBSERVED, 'ep_peak'), '.2f')}x the link; "
        f"speedup over DCTCP {median_range(cl.ratio(runs, 'jct_s', {'variant': 'DCTCP'}, {'variant': rc.OBSERVED}), '.2f')}x",
    )
    rows.put("onepath-law", versus("RackCC", "rate DCTCP"), None, conditions=ocond, detail=drops_of("rate DCTCP"))
    rows.put(
        "onepath-window",
        versus(rc.WINDOW, "DCTCP"),
        None,
        conditions=ocond,
        detail=f"{drops_of(rc.WINDOW)}; {drops_of('window DCTCP')} (the rate DCTCP sent by window: "
        f"{median_range(versus('window DCTCP', 'DCTCP'), '.1f')}x DCTCP's)",
    )
    for variant, sens in (("RackCC", None), (rc.OBSERVED, ("observed", "the law's current rate read as the observed one"))):
        rows.put(
            "throughput",
            cl.ratio(runs, "jct_s", {"variant": "DCTCP"}, {"variant": variant}),
            sens,
            conditions=ocond,
            detail=f"job time {variant} {median_range([x * 1e3 for x in by(variant, 'jct_s')], '.2f')} ms, DCTCP "
            f"{median_range([x * 1e3 for x in by('DCTCP', 'jct_s')], '.2f')} ms (25 MB in all)",
        )
    rows.put(
        "onepath-peak",
        by("RackCC", "ep_peak"),
        None,
        conditions=ocond,
        detail=f"rate DCTCP {median_range(by('rate DCTCP', 'ep_peak'), '.2f')}x; summed rate above the link for "
        f"{median_range(by('RackCC', 'ep_above_us'), '.0f')} us before the queue passes K (rate DCTCP "
        f"{median_range(by('rate DCTCP', 'ep_above_us'), '.0f')} us); drops per episode RackCC "
        f"{median_range(by('RackCC', 'ep_drops'), '.0f')}, rate DCTCP {median_range(by('rate DCTCP', 'ep_drops'), '.0f')}, "
        f"DCTCP {median_range(by('DCTCP', 'ep_drops'), '.0f')}",
    )
    rows.put(
        "onepath-delay",
        by("RackCC", "ep_first_cut_us"),
        None,
        unit="us",
        conditions=ocond,
        detail=f"first marked ACK at the source ToR {median_range(by('RackCC', 'ep_marks_us'), '.0f')} us, every subflow cut "
        f"{median_range(by('RackCC', 'ep_all_cut_us'), '.0f')} us; rate DCTCP: first cut "
        f"{median_range(by('rate DCTCP', 'ep_first_cut_us'), '.0f')} us, every subflow "
        f"{median_range(by('rate DCTCP', 'ep_all_cut_us'), '.0f')} us (10 us resolution)",
    )


# ---------------------------------------------------------------- our checks


def _dtarget(r: Any, c: cl.Claims) -> None:
    dt = r.runs.filter(pl.col("study") == "dtarget")
    dcond = cond.of_runs(dt)
    c.row(
        "dtarget-d", [x / 1e9 for x in per_seed(r.runs, "d_bps", study="dtarget", duration="5ms")], unit="Gbps", conditions=dcond
    )
    c.row(
        "dtarget-queue", per_seed(r.runs, "queue_median_pkts", study="dtarget", duration="10ms"), unit="packets", conditions=dcond
    )
    goodput = [x / 1e9 for x in per_seed(r.runs, "goodput_bps", study="dtarget", duration="10ms")]
    c.row("dtarget-goodput", goodput, unit="Gbps", conditions=dcond)


def _coexist(r: Any, rows: _Rows) -> None:
    for n in rc.COEXIST_N:
        runs = r.runs.filter((pl.col("study") == "coexist") & (pl.col("subflows") == n))
        ccond = cond.of_runs(runs)
        for variant in rc.coexist_variants(n):
            share = [100 * x for x in per_seed(runs, "rackcc_share", variant=variant)]
            sens = (
                None
                if variant == "RackCC"
                else (
                    "window" if "per subflow" not in variant else "window-apart",
                    f"{variant}: isolates the shortfall (rate-based sending collects more marks than ACK-clocked windows; fate "
                    "sharing cuts every subflow for any mark)",
                )
            )
            rows.put(f"coexist-share-n{n}", share, sens, unit="%", conditions=ccond)
        late = {tag: per_seed(runs, f"{tag}_late_drops", variant="RackCC") for tag in ("rackcc", "dctcp")}
        others = "; ".join(
            f"{v}: JumboFlow {median_range(per_seed(runs, 'rackcc_late_drops', variant=v), '.0f')}, DCTCP "
            f"{median_range(per_seed(runs, 'dctcp_late_drops', variant=v), '.0f')}"
            for v in rc.coexist_variants(n)
            if v != "RackCC"
        )
        rows.put(
            f"coexist-drops-n{n}",
            [a - 2 * b for a, b in zip(late["rackcc"], late["dctcp"])],
            None,
            unit="packets",
            conditions=ccond,
            detail=f"drops after 10 ms: JumboFlow {median_range(late['rackcc'], '.0f')} ({sum(late['rackcc']):.0f} in all), "
            f"DCTCP {median_range(late['dctcp'], '.0f')} ({sum(late['dctcp']):.0f} in all); {others}",
        )
