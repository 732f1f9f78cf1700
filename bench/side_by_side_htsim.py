"""Transports side by side with htsim: the same cases in corral and in htsim's datacenter mains.

    python bench/side_by_side_htsim.py --htsim-src PATH            # every case
    python bench/side_by_side_htsim.py --htsim-src PATH --case hpcc_incast16 --json out.json

`PATH` is a fetched snapshot of htsim (github:Broadcom/csg-htsim, the repository's root,
holding `sim/`). The script builds htsim's library and the mains the cases name there
(`make -C PATH/sim`, `make -C PATH/sim/datacenter htsim_hpcc`: the snapshot's own Makefiles,
in the snapshot's folders); nothing of htsim is part of corral. `--no-build` takes the
binaries already there.

Each case (the `CASES` table: a transport, a traffic pattern and htsim's main) is one
network and one set of flows, written once for both sides: a k=8 fat-tree (128 hosts),
100 Gbps links of 1 us, 1500-byte packets, `BUFFER_PKTS`-packet switch buffers in htsim
(a case may give corral deeper ones, `corral_buffer`, where htsim's are lossless), ECMP; the
flows as htsim's connection matrix (`Nodes`, `Connections`, `src->dst start 0 size B`), and
the same hosts and sizes as corral's `[[flows]]`. Patterns:

* `incast16`: hosts 1..16 each send `size` bytes to host 0, all at time 0;
* `permutation`: every host sends `size` bytes to another, a random permutation drawn
  from `--seed` (no host sends to itself).

Columns, for each side: throughput (every byte of every finished flow over the time the
last one finished, Gb/s), FCT p50 and p99 (us, linear-interpolation percentiles over
finished flows), the mean queue of the case's ports (bytes; corral samples them every
microsecond; htsim's mains log queues only to their binary log file, which this script does
not read: "-"), drops (corral: every switch drop; htsim: the retransmitted packets its main
prints, `Rtx:`), and the wall time of each side (corral in this process through its Python
API, htsim as a child process) and their ratio.

The cases and the sides' modelling choices (what each case sets on each side, and what is
known to differ) are in the `CASES` table; docs/transports/*.md give each transport's.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

K = 8
HOSTS = K**3 // 4
LINK_GBPS = 100
LINK_DELAY_US = 1
MTU = 1500
HEADER = 40
BUFFER_PKTS = 100
# corral has no PFC (htsim's HPCC runs over lossless input queues): its switch buffers are
# made deep enough that nothing is dropped, the state a lossless fabric is in.
LOSSLESS_PKTS = 4000


@dataclass(frozen=True)
class Case:
    """One transport on one traffic pattern, in both simulators."""

    name: str
    # corral's `[transport]` body (TOML lines) and any more tables.
    corral_transport: str
    # htsim's main (a target of sim/datacenter/Makefile) and its arguments beyond the
    # network's and the flows'.
    htsim_main: str
    htsim_args: tuple[str, ...]
    pattern: str  # "incast16" | "permutation"
    size: int  # bytes per flow
    end_us: int  # simulated time (both sides)
    corral_extra: str = ""
    # corral's switch buffer, packets (htsim's is BUFFER_PKTS).
    corral_buffer: int = BUFFER_PKTS
    notes: tuple[str, ...] = field(default_factory=tuple)


HPCC_NOTES = (
    "htsim's HPCCSrc takes one T for every flow (12 us) and W_AI = one packet; corral takes "
    "each flow's unloaded RTT as T and the same W_AI",
    "htsim's HPCCSrc compares each ACK's records with those of the first ACK of the path "
    "(it refreshes them only when the hop count changes); corral, as Algorithm 1, with the "
    "previous ACK's",
    "htsim runs HPCC over lossless (PFC) input queues and go-back-N; corral has no PFC and "
    f"runs it over {LOSSLESS_PKTS}-packet drop-tail buffers (so that it drops nothing, as a "
    "lossless fabric) with TCP's SACK recovery",
)

# The cases. NDP and RoCE add theirs here (issue 60, part B).
CASES: tuple[Case, ...] = (
    Case(
        "hpcc_incast16",
        'cc = "hpcc"',
        "htsim_hpcc",
        ("-strat", "ecmp_host", "-paths", "1"),
        "incast16",
        1_000_000,
        2_000,
        corral_buffer=LOSSLESS_PKTS,
        notes=HPCC_NOTES,
    ),
    Case(
        "hpcc_permutation",
        'cc = "hpcc"',
        "htsim_hpcc",
        ("-strat", "ecmp_host", "-paths", "1"),
        "permutation",
        2_000_000,
        2_000,
        corral_buffer=LOSSLESS_PKTS,
        notes=HPCC_NOTES,
    ),
)


def flows(pattern: str, seed: int) -> list[tuple[int, int]]:
    """The case's (src, dst) host pairs."""
    if pattern == "incast16":
        return [(s, 0) for s in range(1, 17)]
    if pattern == "permutation":
        rng = random.Random(seed)
        while True:
            dst = list(range(HOSTS))
            rng.shuffle(dst)
            if all(s != d for s, d in enumerate(dst)):
                return list(enumerate(dst))
    raise ValueError(f"unknown pattern {pattern!r}")


def queue_ports(pattern: str) -> list[str]:
    """The ports whose queues the case reports: the receiver's ToR downlink for an incast,
    every ToR's host downlinks for a permutation."""
    if pattern == "incast16":
        return ["tor0:0"]
    return [f"tor{t}:{p}" for t in range(K * K // 2) for p in range(K // 2)]


def corral_scenario(case: Case, pairs: list[tuple[int, int]], seed: int) -> str:
    flow_lines = "\n".join(f'[[flows]]\nsrc = "h{s}"\ndst = "h{d}"\nsize = {case.size}\n' for s, d in pairs)
    ports = ", ".join(f'"{p}"' for p in queue_ports(case.pattern))
    return f"""
name = "{case.name}"
seed = {seed}
duration = "{case.end_us}us"
[topology]
kind = "fat_tree"
k = {K}
link_rate = "{LINK_GBPS}Gbps"
link_delay = "{LINK_DELAY_US}us"
[switch]
buffer = "{case.corral_buffer}pkt"
[routing]
kind = "ecmp"
[transport]
{case.corral_transport}
mss = {MTU - HEADER}
header = {HEADER}
{case.corral_extra}
{flow_lines}
[metrics]
interval = "100us"
queue_ports = [{ports}]
queue_interval = "1us"
"""


def percentile(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    pos = (len(xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summarize(fcts_us: list[float], size: int, flows_total: int) -> dict:
    last = max(fcts_us) if fcts_us else None
    return {
        "finished": len(fcts_us),
        "flows": flows_total,
        "throughput_gbps": (len(fcts_us) * size * 8 / (last * 1e-6) / 1e9) if last else None,
        "fct_p50_us": percentile(fcts_us, 0.5),
        "fct_p99_us": percentile(fcts_us, 0.99),
    }


def run_corral(case: Case, pairs: list[tuple[int, int]], seed: int) -> dict:
    import corral

    text = corral_scenario(case, pairs, seed)
    t0 = time.perf_counter()
    res = corral.run(text)
    wall = time.perf_counter() - t0
    tables = res.tables()
    fl = tables["flows"]
    fcts = [x * 1e6 for x in fl["fct_s"].to_list() if x is not None]
    out = summarize(fcts, case.size, len(pairs))
    q = tables.get("queues")
    out["mean_queue_bytes"] = float(q["bytes"].mean()) if q is not None and len(q) else None
    ports = tables.get("ports")
    out["drops"] = int(ports["drops"].sum()) if ports is not None and "drops" in ports.columns else None
    out["wall_s"] = wall
    return out


def build_htsim(src: Path, mains: set[str]) -> None:
    sim = src / "sim"
    if not (sim / "Makefile").exists():
        raise SystemExit(f"--htsim-src: {src} holds no sim/Makefile (expected htsim's repository root)")
    subprocess.run(["make", "-C", str(sim)], check=True, stdout=subprocess.DEVNULL)
    for m in sorted(mains):
        subprocess.run(["make", "-C", str(sim / "datacenter"), m], check=True, stdout=subprocess.DEVNULL)


def run_htsim(src: Path, case: Case, pairs: list[tuple[int, int]], seed: int, tmp: Path) -> dict:
    cm = tmp / f"{case.name}.cm"
    lines = [f"Nodes {HOSTS}", f"Connections {len(pairs)}"]
    lines += [f"{s}->{d} start 0 size {case.size}" for s, d in pairs]
    cm.write_text("\n".join(lines) + "\n")
    binary = src / "sim" / "datacenter" / case.htsim_main
    cmd = [
        str(binary),
        "-o", str(tmp / f"{case.name}.log"),
        "-nodes", str(HOSTS),
        "-tm", str(cm),
        "-linkspeed", str(LINK_GBPS * 1000),
        "-hop_latency", str(LINK_DELAY_US),
        "-mtu", str(MTU),
        "-q", str(BUFFER_PKTS),
        "-end", str(case.end_us),
        "-seed", str(seed),
        *case.htsim_args,
    ]  # fmt: skip
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"htsim failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    fcts = [float(m.group(1)) for m in re.finditer(r"finished at ([0-9.e+-]+)", p.stdout)]
    out = summarize(fcts, case.size, len(pairs))
    rtx = re.search(r"Rtx: (\d+)", p.stdout)
    out["mean_queue_bytes"] = None
    out["drops"] = int(rtx.group(1)) if rtx else None
    out["wall_s"] = wall
    return out


def fmt(x, spec: str) -> str:
    width = re.match(r"\d*", spec).group()
    return "-".rjust(int(width or 0)) if x is None else format(x, spec)


def report(rows: list[tuple[Case, dict, dict]]) -> str:
    head = (
        f"{'case':<18} {'side':<7} {'done':>8} {'Gb/s':>7} {'p50 us':>9} {'p99 us':>9} {'queue B':>9} {'drops':>6} {'wall s':>8}"
    )
    out = [head, "-" * len(head)]
    for case, c, h in rows:
        for side, r in (("corral", c), ("htsim", h)):
            out.append(
                f"{case.name:<18} {side:<7} {r['finished']:>4}/{r['flows']:<3} {fmt(r['throughput_gbps'], '7.2f')} "
                f"{fmt(r['fct_p50_us'], '9.1f')} {fmt(r['fct_p99_us'], '9.1f')} {fmt(r['mean_queue_bytes'], '9.0f')} "
                f"{fmt(r['drops'], '6d')} {fmt(r['wall_s'], '8.3f')}"
            )
        ratios = []
        for key, label in (("throughput_gbps", "throughput"), ("fct_p99_us", "p99 FCT")):
            if c[key] and h[key]:
                ratios.append(f"{label} corral/htsim {c[key] / h[key]:.3f}")
        if c["wall_s"] and h["wall_s"]:
            ratios.append(f"wall corral/htsim {c['wall_s'] / h['wall_s']:.2f}")
        out.append(f"{'':<18} {'ratio':<7} " + ", ".join(ratios))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--htsim-src", type=Path, required=True, help="htsim's repository root (a fetched snapshot)")
    ap.add_argument("--case", action="append", choices=[c.name for c in CASES], help="repeatable; default every case")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-build", action="store_true", help="use the htsim binaries already built in the snapshot")
    ap.add_argument("--json", type=Path, help="write every number here")
    args = ap.parse_args(argv)
    cases = [c for c in CASES if not args.case or c.name in args.case]
    if not args.no_build:
        build_htsim(args.htsim_src, {c.htsim_main for c in cases})
    rows = []
    with tempfile.TemporaryDirectory(prefix="corral-htsim-") as tmp:
        for case in cases:
            pairs = flows(case.pattern, args.seed)
            print(f"{case.name}: corral ...", file=sys.stderr, flush=True)
            c = run_corral(case, pairs, args.seed)
            print(f"{case.name}: htsim ...", file=sys.stderr, flush=True)
            h = run_htsim(args.htsim_src, case, pairs, args.seed, Path(tmp))
            rows.append((case, c, h))
    print(report(rows))
    for case in cases:
        for note in case.notes:
            print(f"  {case.name}: {note}")
    if args.json:
        args.json.write_text(json.dumps({c.name: {"corral": a, "htsim": b} for c, a, b in rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
