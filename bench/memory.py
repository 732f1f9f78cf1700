"""Peak memory per flow and per packet in flight, run by `python bench/run.py --only memory`.

Each point is a whole process (`side_by_side.corral_process`: build, run, collect results)
and its peak resident memory; the slope of a least-squares line through the points is the
cost of one more flow or packet, the interpreter and the empty network being the intercept.

* flows: 16 senders -> 1 receiver on a 10 Gbps dumbbell, N sized flows (N = 4k, 16k, 64k)
  with an initial window of one segment that all start in the run's last nanosecond, so
  each flow is built (definition, sender, receiver, per-flow state) and has put one packet
  in its host's queue (a flow is counted with that packet);
* packets: 64 senders into one 10 Gbps port, each with an initial and a receive window of
  B/64 segments (B = 16k, 64k, 256k) and a buffer of 2B packets: the windows go out at once
  and nothing is dropped, so about B packets are in flight throughout (the summary's
  `packets_in_flight` at the end is the x value).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from side_by_side import corral_process

FLOWS = (4_000, 16_000, 64_000)
IN_FLIGHT = (16_000, 64_000, 256_000)


def _scenario(senders: int, body: str) -> str:
    srcs = ", ".join(f'"h{i}"' for i in range(senders))
    return f"""
duration = "{"1us" if "count" in body else "5ms"}"
[topology]
kind = "dumbbell"
senders = {senders}
receivers = 1
link_rate = "10Gbps"
link_delay = "1us"
[routing]
kind = "static"
[metrics]
interval = "1s"
[[flows]]
src = [{srcs}]
dst = "h{senders}"
{body}
"""


def slope(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares slope and intercept."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return b, my - b * mx


def bench_memory() -> dict:
    out: dict = {"flows": [], "packets": []}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.toml"
        for n in FLOWS:
            path.write_text(
                _scenario(16, f'size = "1MB"\nstart = "999ns"\ncount = {n // 16}\n') + "[transport]\ninitial_window = 1\n"
            )
            _, r = corral_process(path)
            out["flows"].append({"flows": n, "peak_rss_kb": r["peak_rss_kb"]})
            print(f"  memory: {n} flows -> {r['peak_rss_kb'] / 1024:.1f} MB", file=sys.stderr, flush=True)
        for b in IN_FLIGHT:
            w = b // 64
            path.write_text(
                _scenario(64, 'size = "unbounded"\n') + f'[switch]\nbuffer = "{2 * b}pkt"\n'
                f'[host]\nbuffer = "{2 * w}pkt"\n[transport]\ninitial_window = {w}\nreceive_window = {w * 1460}\n'
            )
            _, r = corral_process(path)
            out["packets"].append({"target": b, "in_flight": r["packets_in_flight"], "peak_rss_kb": r["peak_rss_kb"]})
            print(
                f"  memory: {r['packets_in_flight']} packets in flight -> {r['peak_rss_kb'] / 1024:.1f} MB",
                file=sys.stderr,
                flush=True,
            )
    f = out["flows"]
    out["bytes_per_flow"], _ = slope([x["flows"] for x in f], [x["peak_rss_kb"] * 1024 for x in f])
    p = out["packets"]
    out["bytes_per_packet"], _ = slope([x["in_flight"] for x in p], [x["peak_rss_kb"] * 1024 for x in p])
    return out


def report(r: dict) -> str:
    lines = ["[memory] peak resident memory, whole processes (least-squares slope over the points)"]
    lines.append("  flows:   " + ", ".join(f"{x['flows']:,} -> {x['peak_rss_kb'] / 1024:.1f} MB" for x in r["flows"]))
    lines.append(f"           {r['bytes_per_flow']:,.0f} bytes per flow")
    lines.append(
        "  packets: " + ", ".join(f"{x['in_flight']:,} in flight -> {x['peak_rss_kb'] / 1024:.1f} MB" for x in r["packets"])
    )
    lines.append(f"           {r['bytes_per_packet']:,.0f} bytes per packet in flight")
    return "\n".join(lines) + "\n"
