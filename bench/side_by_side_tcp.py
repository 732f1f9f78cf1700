"""TCP side by side: the same dumbbells in corral, ns-3 3.44 and Linux (`corral emulate`).

    python bench/side_by_side_tcp.py                    # every case, every side present
    python bench/side_by_side_tcp.py --case 1g --cc newreno --duration 2

Cases (`--case`, repeatable; default all):

* `1g`: `bench/dumbbell_newreno.toml`, 8 flows into one receiver through a 1 Gbps
  bottleneck with 100-packet drop-tail buffers, 10 us links, an ACK per segment, 200 ms
  minimum RTO. corral and ns-3.
* `100m`: `scenarios/emulate/dumbbell_100m.toml`, the same shape at 100 Mbps. corral, ns-3
  and Linux.
* `bbr4`: the 100 Mbps dumbbell with 4 senders (the issue's BBR check). corral, ns-3 and
  Linux.
* `16f`: the 100 Mbps dumbbell with 16 senders, every controller. corral, ns-3 and Linux.
* `incast`: DCTCP incast at 1 Gbps, 16 senders of 64 KiB each at once into 40-packet
  buffers, for 1 s; each flow's completion time. corral and ns-3.

Controllers (`--cc`, repeatable; default newreno, cubic, dctcp, bbr): DCTCP runs with a
marking queue (ECN threshold 20 packets) and only where the side has it (corral, ns-3: the
kernel here has no dctcp); a side without a controller prints a row saying so. corral's
NewReno and DCTCP run once per ssthresh rule (`--ssthresh`, repeatable; default both):
`transport.ssthresh = "flight"` (the RFCs' and Linux's) and `"pipe"` (ns-3's), each a row;
DCTCP's pipe row also takes ns-3's ECN rules: its ssthresh without Linux's two-segment floor
(`transport.cc = {kind = "dctcp", min_window = 1}`) and its CWR state
(`transport.ecn_response = "cwr"`).

Each side runs with its own TCP defaults; only what describes the network is matched:
corral takes ns-3's and Linux's packet sizes (1448-byte payload with the timestamp option:
`transport.mss = 1448` and `header` = 54 bytes on ns-3's point-to-point links, 66 in Linux's
Ethernet frames), and ns-3 and Linux start each flow when corral's flow starts (the
scenario's start jitter, drawn from its seed). Nothing else is set.

Sides are skipped with a message when absent: ns-3 needs a Python with the `ns3` wheel
(`--ns3-python`, default /work/notes/ns3-venv/bin/python or `$NS3_PYTHON`; it is no
dependency of corral), Linux needs root and `ip`/`tc` (`corral emulate`). Linux runs are
noisy and real-time: each is run `--linux-runs` times (default 5) and the table gives the
median with the range. corral and ns-3 are deterministic: one run each.

Columns: throughput (sum of the flows' goodput, Mb/s), Jain's index over the flows'
goodputs, mean bottleneck queue (packets, sampled every 10 us at 1 Gbps and 100 us at
100 Mbps; Linux: not measured), drops at the bottleneck (all drops for Linux: every qdisc),
retransmitted segments, retransmission timeouts. `--json FILE` writes every number;
`--trace DIR` writes flow 0's cwnd and the bottleneck queue over time for corral and ns-3
(CSV) for the first case and controller.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NS3_SCRIPT = ROOT / "bench" / "ns3_dumbbell.py"
DEFAULT_NS3_PYTHON = "/work/notes/ns3-venv/bin/python"


@dataclass(frozen=True)
class Case:
    """One dumbbell of the side by side."""

    title: str
    scenario: Path
    senders: int
    duration: float
    # Bottleneck queue sampling interval, seconds.
    every: float
    sides: tuple[str, ...]
    rate: float
    ccs: tuple[str, ...] = ("newreno", "cubic", "dctcp", "bbr")
    # Bytes each flow sends (0: unbounded); buffer of every port, packets.
    size: int = 0
    buffer_pkts: int = 100


DUMBBELL_1G = ROOT / "bench" / "dumbbell_newreno.toml"
DUMBBELL_100M = ROOT / "scenarios" / "emulate" / "dumbbell_100m.toml"
CASES = {
    "1g": Case("1 Gbps, 8 flows, 10 s", DUMBBELL_1G, 8, 10.0, 10e-6, ("corral", "ns-3"), 1e9),
    "100m": Case("100 Mbps, 8 flows, 20 s", DUMBBELL_100M, 8, 20.0, 100e-6, ("corral", "ns-3", "linux"), 100e6),
    "bbr4": Case("100 Mbps, 4 flows, 20 s", DUMBBELL_100M, 4, 20.0, 100e-6, ("corral", "ns-3", "linux"), 100e6, ("bbr",)),
    "16f": Case("100 Mbps, 16 flows, 20 s", DUMBBELL_100M, 16, 20.0, 100e-6, ("corral", "ns-3", "linux"), 100e6),
    "incast": Case(
        "1 Gbps incast: 16 x 64 KiB, 40-packet buffers, 1 s",
        DUMBBELL_1G,
        16,
        1.0,
        10e-6,
        ("corral", "ns-3"),
        1e9,
        ("dctcp",),
        size=65536,
        buffer_pkts=40,
    ),
}
CCS = ("newreno", "cubic", "dctcp", "bbr")
SSTHRESH_RULES = ("flight", "pipe")
# The controllers whose reaction to loss halves what transport.ssthresh names.
SSTHRESH_CCS = ("newreno", "dctcp")
ECN_THRESHOLD_PKTS = 20
LINUX_CC = {"newreno": "reno", "cubic": "cubic", "bbr": "bbr"}


def jain(xs: list[float]) -> float | None:
    s, q = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * q) if xs and q > 0 else None


def shape_overrides(senders: int, cc: str, header: int, size: int = 0, buffer_pkts: int = 100) -> list[str]:
    """Overrides for `senders` flows h0.. into one receiver, controller `cc`, and the packet
    sizes of the side compared (payload 1448, `header` bytes); flows of `size` bytes (0:
    unbounded) and `buffer_pkts`-packet buffers."""
    hosts = ", ".join(f'"h{i}"' for i in range(senders))
    out = [
        f"topology.senders={senders}",
        f"flows.0.src=[{hosts}]",
        f'flows.0.dst="h{senders}"',
        "transport.mss=1448",
        f"transport.header={header}",
        f"transport.cc={cc}",
        f'switch.buffer="{buffer_pkts}pkt"',
    ]
    if size:
        out.append(f'flows.0.size="{size}B"')
    if cc == "dctcp":
        out += ["transport.ecn=true", 'switch.queue="ecn"', f'switch.ecn_threshold="{ECN_THRESHOLD_PKTS}pkt"']
    return out


def run_corral(case: Case, cc: str, duration: float, header: int, trace: Path | None, extra: list[str] = ()) -> dict:
    from corral import api

    senders = case.senders
    ov = (
        shape_overrides(senders, cc, header, case.size, case.buffer_pkts)
        + list(extra)
        + [f"duration={duration}s", f'metrics.queue_ports=["sw0:{senders}"]', f'metrics.queue_interval="{case.every}s"']
    )
    scenario = case.scenario
    try:
        sim = api.simulation(scenario, ov)
    except api.ScenarioError as e:
        return {"missing": f"corral: {e}"}
    res = api.simulate(sim)
    flows = res.flows
    goodputs = [float(x) for x in flows["goodput_bps"]]
    queue = res.queues["packets"]
    if trace is not None:
        res.queues.select("time_s", "packets").write_csv(trace / f"corral-{cc}-queue.csv")
    return {
        "throughput_bps": sum(goodputs),
        "goodputs_bps": goodputs,
        "jain": jain(goodputs),
        "mean_queue_pkts": float(queue.mean()) if len(queue) else None,
        "drops": int(res.summary["packets_dropped"]),
        "retransmits": int(flows["retransmits"].sum()),
        "timeouts": int(flows["timeouts"].sum()),
        "starts": [float(x) for x in flows["start_s"]],
        "fcts": [None if x is None else float(x) for x in flows["fct_s"]] if case.size else None,
    }


def ns3_python(arg: str | None) -> str | None:
    py = arg or os.environ.get("NS3_PYTHON") or DEFAULT_NS3_PYTHON
    if not Path(py).exists():
        return None
    ok = subprocess.run([py, "-c", "import ns3, cppyy"], capture_output=True)
    return py if ok.returncode == 0 else None


def ns3_cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "corral-ns3"


def run_ns3(py: str, case: Case, cc: str, duration: float, starts: list[float], trace: Path | None) -> dict:
    """One ns-3 run. ns-3 is deterministic: a result is kept in a cache (`~/.cache/corral-ns3`)
    under the hash of its parameters and of the ns-3 script, and reused."""
    every = case.every
    params = {
        "senders": case.senders,
        "rate_bps": case.rate,
        "delay_s": 10e-6,
        "buffer_pkts": case.buffer_pkts,
        "duration_s": duration,
        "cc": cc,
        "starts": starts,
        "segment_size": 1448,
        "delack_count": 1,
        "min_rto_s": 0.2,
        "ecn_threshold_pkts": ECN_THRESHOLD_PKTS,
        "queue_interval_s": every,
    }
    if case.size:
        params["size_bytes"] = case.size
    if trace is not None:
        params["cwnd_trace"] = str(trace / f"ns3-{cc}.csv")
    key = hashlib.sha256(json.dumps(params, sort_keys=True).encode() + NS3_SCRIPT.read_bytes()).hexdigest()[:24]
    cached = ns3_cache_dir() / f"{key}.json"
    if trace is None and cached.exists():
        return json.loads(cached.read_text())
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(params, f)
    try:
        p = subprocess.run([py, str(NS3_SCRIPT), f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if p.returncode != 0:
        return {"missing": f"ns-3 failed: {p.stderr.strip()[-800:]}"}
    result = json.loads(p.stdout.strip().splitlines()[-1])
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(result))
    return result


def linux_missing() -> str | None:
    from corral.emulate import requirements

    missing = requirements()
    return "Linux: corral emulate needs " + " and ".join(missing) if missing else None


def run_linux(case: Case, cc: str, duration: float, runs: int) -> dict:
    from corral.emulate import EmulateError, available_cc, emulate

    kernel = LINUX_CC.get(cc)
    if kernel is None or kernel not in available_cc():
        return {"missing": f"Linux: this kernel has no {cc} (it offers {' '.join(available_cc())})"}
    scenario = case.scenario
    ov = shape_overrides(case.senders, "newreno", 66, case.size, case.buffer_pkts) + [f"duration={duration}s"]
    out = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            try:
                folder = emulate(scenario, Path(tmp) / "run", ov, kernel_congestion=kernel)
            except EmulateError as e:
                return {"missing": f"Linux: {e}"}
            import polars as pl

            summary = json.loads((folder / "summary.json").read_text())
            flows = pl.read_parquet(folder / "flows.parquet")
        goodputs = [float(x) for x in flows["goodput_bps"]]
        counters = summary.get("kernel_counters", {})
        out.append(
            {
                "throughput_bps": sum(goodputs),
                "goodputs_bps": goodputs,
                "jain": jain(goodputs),
                "mean_queue_pkts": None,
                "drops": int(summary["packets_dropped"]),
                "retransmits": int(flows["retransmits"].sum()),
                "timeouts": int(counters.get("TcpExt:TCPTimeouts", 0)),
                "loss_probes": int(counters.get("TcpExt:TCPLossProbes", 0)),
            }
        )
    return {"runs": out}


COLUMNS = ("throughput_bps", "jain", "mean_queue_pkts", "drops", "retransmits", "timeouts", "fcts")
HEAD = ("Mb/s", "Jain", "queue", "drops", "retx", "timeouts", "FCT max / mean (ms)")


def fmt(key: str, v) -> str:
    if v is None:
        return "-"
    if key == "throughput_bps":
        return f"{v / 1e6:.1f}"
    if key == "jain":
        return f"{v:.3f}"
    if key == "mean_queue_pkts":
        return f"{v:.1f}"
    if key == "fcts":
        done = [x for x in v if x is not None]
        text = f"{max(done) * 1e3:.1f} / {statistics.fmean(done) * 1e3:.1f}" if done else "-"
        return text + (f" ({len(v) - len(done)} unfinished)" if len(done) < len(v) else "")
    return f"{v:,.0f}"


def cells(result: dict) -> list[str]:
    if "runs" in result:
        runs = result["runs"]
        out = []
        for key in COLUMNS:
            xs = [r[key] for r in runs if r.get(key) is not None]
            if not xs:
                out.append("-")
            elif len(xs) == 1:
                out.append(fmt(key, xs[0]))
            else:
                out.append(f"{fmt(key, statistics.median(xs))} [{fmt(key, min(xs))}-{fmt(key, max(xs))}]")
        return out
    return [fmt(key, result.get(key)) for key in COLUMNS]


def side_label(side: str, result: dict) -> str:
    return side if "runs" not in result else f"{side} (median of {len(result['runs'])} [min-max])"


def print_table(rows: list[tuple[str, str, str, dict]]) -> None:
    head = ("case", "cc", "side", *HEAD)
    table = [head]
    notes = []
    for case, cc, side, result in rows:
        if "missing" in result:
            notes.append(f"{case} {cc}: {result['missing']}")
            continue
        table.append((case, cc, side_label(side, result), *cells(result)))
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    for i, r in enumerate(table):
        print("  ".join(c.ljust(w) if j < 3 else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))))
        if i == 0:
            print("  ".join("-" * w for w in widths))
    for n in notes:
        print(f"skipped: {n}")
    print(RULES_NOTE)


def print_markdown(rows: list[tuple[str, str, str, dict]]) -> None:
    """The table as docs/guides/emulate.md shows it (case titles, Markdown)."""
    print("| case | cc | side | " + " | ".join(HEAD) + " |")
    print("|---" * (3 + len(HEAD)) + "|")
    for case, cc, side, result in rows:
        if "missing" not in result:
            print(f"| {CASES[case].title} | {cc} | {side_label(side, result)} | " + " | ".join(cells(result)) + " |")


RULES_NOTE = (
    "corral rows name the rule they ran: ssthresh=flight halves the FlightSize when a loss recovery starts (RFC 5681, "
    "Linux; corral's default), ssthresh=pipe halves the pipe (ns-3's rule); CUBIC and BBR use neither. DCTCP's "
    "ssthresh=flight row runs corral's defaults (Linux's two-segment floor on the ECN ssthresh, dctcp_ssthresh; "
    "cwnd = ssthresh at once on ECN-Echo, RFC 3168's text), its ssthresh=pipe row ns-3's rules: min_window=1 "
    "(TcpDctcp has no floor) and ecn_response=cwr (ns-3's EnterCwr: PRR over the next round trip)."
)
# corral's DCTCP with ns-3's ECN rules: no floor on the ssthresh, the CWR state.
DCTCP_NS3 = ['transport.cc={kind="dctcp",min_window=1}', 'transport.ecn_response="cwr"']


def corral_variants(cc: str, rules: list[str]) -> list[tuple[str, list[str]]]:
    """corral's rows for `cc`: (label, overrides)."""
    if cc == "dctcp":
        # The pipe row runs all of ns-3's rules: its ECN ssthresh without a floor and its CWR state.
        return [
            (
                f"corral, ssthresh={r}" + (", min_window=1, ecn_response=cwr" if r == "pipe" else ""),
                [f'transport.ssthresh="{r}"'] + (DCTCP_NS3 if r == "pipe" else []),
            )
            for r in rules
        ]
    if cc in SSTHRESH_CCS:
        return [(f"corral, ssthresh={r}", [f'transport.ssthresh="{r}"']) for r in rules]
    return [("corral", [])]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", action="append", choices=list(CASES), help="case to run (repeatable; default all)")
    ap.add_argument("--cc", action="append", choices=CCS, help="controller (repeatable; default all)")
    ap.add_argument("--side", action="append", choices=("corral", "ns-3", "linux"), help="side (repeatable; default all present)")
    ap.add_argument(
        "--ssthresh",
        action="append",
        choices=SSTHRESH_RULES,
        help="corral's transport.ssthresh for NewReno and DCTCP (repeatable; default both, a row each)",
    )
    ap.add_argument("--duration", type=float, help="seconds of traffic per run (default: the case's)")
    ap.add_argument("--linux-runs", type=int, default=5, help="runs of each Linux case (default 5)")
    ap.add_argument("--ns3-python", help=f"Python with the ns3 wheel (default $NS3_PYTHON or {DEFAULT_NS3_PYTHON})")
    ap.add_argument("--json", type=Path, help="write every number to this JSON file")
    ap.add_argument("--markdown", action="store_true", help="also print the table in Markdown, with the cases' titles")
    ap.add_argument("--trace", type=Path, help="write cwnd and queue traces of the first case and controller here")
    args = ap.parse_args(argv)

    sides = set(args.side or ("corral", "ns-3", "linux"))
    py = ns3_python(args.ns3_python) if "ns-3" in sides else None
    skip_ns3 = "ns-3: no Python with the ns3 wheel (pip install ns3==3.44.post0 cppyy into a separate venv; --ns3-python)"
    skip_linux = linux_missing() if "linux" in sides else None
    if "ns-3" in sides and py is None:
        print(f"skipped: {skip_ns3}", file=sys.stderr)
    if skip_linux:
        print(f"skipped: {skip_linux}", file=sys.stderr)
    if args.trace:
        args.trace.mkdir(parents=True, exist_ok=True)
    rows: list[tuple[str, str, str, dict]] = []
    first = True
    for name in args.case or list(CASES):
        case = CASES[name]
        duration = args.duration or case.duration
        for cc in [c for c in (args.cc or CCS) if c in case.ccs]:
            trace = args.trace if first else None
            first = False
            print(f"running {name} {cc} ...", file=sys.stderr, flush=True)
            # corral matched to the packet sizes of ns-3 at 1 Gbps and of Linux at 100 Mbps.
            header = 54 if case.rate >= 1e9 else 66
            starts = None
            for k, (label, extra) in enumerate(corral_variants(cc, args.ssthresh or list(SSTHRESH_RULES))):
                sim = run_corral(case, cc, duration, header, trace if k == 0 else None, extra)
                starts = starts or sim.get("starts")
                if "corral" in sides:
                    rows.append((name, cc, label, sim))
            if starts is None:
                starts = run_corral(case, "newreno", 1e-3, header, None)["starts"]
            if "ns-3" in sides and "ns-3" in case.sides and py is not None:
                rows.append((name, cc, "ns-3", run_ns3(py, case, cc, duration, starts, trace)))
            if "linux" in sides and "linux" in case.sides and not skip_linux:
                rows.append((name, cc, "linux", run_linux(case, cc, duration, args.linux_runs)))
    print_table(rows)
    if args.markdown:
        print()
        print_markdown(rows)
    if args.json:
        args.json.write_text(json.dumps([{"case": c, "cc": k, "side": s, **r} for c, k, s, r in rows], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
