"""What the agents of an emulated run saw, as the tables `corral run` writes: `flows` and
`throughput` with the same columns (a column the kernel cannot give, such as `ecn_cuts`, is
null), and `summary.json` with the kernel version, the scale and the counters.

Per-flow `timeouts` and `fast_recoveries` come from the sending host's TCP counters
(`TCPTimeouts`, `TCPSackRecovery` + `TCPRenoRecovery`), so they are given only for hosts
that send a single flow; `retransmits` is the socket's `tcpi_total_retrans`.
"""

from __future__ import annotations

import platform
from collections import Counter
from typing import Any

from .. import tables


def jain(xs: list[float]) -> float | None:
    """Jain's fairness index of `xs` (None without a positive value)."""
    s, q = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * q) if xs and q > 0 else None


def build(
    export: dict[str, Any],
    agents: dict[int, dict[str, Any]],
    queues: list[dict[str, Any]],
    *,
    scale: float,
    duration_s: float,
    interval_s: float,
    cc_of: list[str],
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(flows columns, throughput columns, summary) from the agents' reports (by host)."""
    names = {n["host"]: n["name"] for n in export["nodes"] if n["host"] is not None}
    senders = Counter(f["src"] for f in export["flows"])
    cols: dict[str, list] = {c: [] for c in tables.schemas()["flows"]}
    thr: dict[str, list] = {c: [] for c in tables.schemas()["throughput"]}
    goodputs = []
    for i, f in enumerate(export["flows"]):
        rep_tx = agents.get(f["src"], {}).get("flows", {}).get(str(i), {}).get("tx", {})
        rep_rx = agents.get(f["dst"], {}).get("flows", {}).get(str(i), {}).get("rx", {})
        counters = agents.get(f["src"], {}).get("counters", {})
        alone = senders[f["src"]] == 1
        start = rep_tx.get("start", f["start_ns"] / 1e9)
        finish = rep_rx.get("finish")
        delivered = int(rep_rx.get("bytes", 0))
        span = (finish if finish is not None else duration_s) - start
        goodput = delivered * 8 / span if span > 0 else 0.0
        goodputs.append(goodput)
        info = rep_tx.get("tcp_info", {})
        row = {
            "flow_id": i,
            "src": names[f["src"]],
            "dst": names[f["dst"]],
            "tag": f["tag"],
            "priority": 0,
            "weight": 1.0,
            "transport": "tcp",
            "cc": cc_of[i],
            "routing": export["routing"],
            "hops": None,
            "size_bytes": f["size"],
            "start_s": start,
            "finish_s": finish,
            "fct_s": None if finish is None else finish - start,
            "bytes_delivered": delivered,
            "goodput_bps": goodput,
            "packets_sent": None,
            "retransmits": info.get("total_retrans"),
            "timeouts": counters.get("TcpExt:TCPTimeouts") if alone else None,
            "fast_recoveries": (counters.get("TcpExt:TCPSackRecovery", 0) + counters.get("TcpExt:TCPRenoRecovery", 0))
            if alone
            else None,
            "ecn_cuts": None,
            "max_reorder_bytes": None,
            "tenant": "",
            "class": "",
            "ideal_fct_s": None,
            "slowdown": None,
            "deadline_s": None,
            "deadline_met": None,
        }
        for c in cols:
            cols[c].append(row.get(c))
        for b, n in rep_rx.get("bins", []):
            thr["time_s"].append((b + 1) * interval_s)
            thr["flow_id"].append(i)
            thr["bytes"].append(n)
            thr["goodput_bps"].append(n * 8 / interval_s)
            thr["arrived_bytes"].append(None)  # a kernel socket shows only in-order data
    dropped = sum(q["dropped"] for q in queues)
    totals: dict[str, int] = {}
    for rep in agents.values():
        for k, v in rep.get("counters", {}).items():
            totals[k] = totals.get(k, 0) + v
    summary = {
        "mode": "emulate",
        "scenario": export["name"],
        "seed": export["seed"],
        "sim_time_s": duration_s,
        "kernel": platform.release(),
        "scale": scale,
        "flows": len(export["flows"]),
        "flows_finished": sum(1 for x in cols["finish_s"] if x is not None),
        "bytes_delivered": sum(cols["bytes_delivered"]),
        "packets_dropped": dropped,
        "ecn_marks": sum(q["marked"] for q in queues),
        "jain_index": jain(goodputs),
        "kernel_counters": totals,
        "port_queues": queues,
        "notes": "link propagation delays are not emulated; rates are the scenario's divided by `scale`",
    }
    return cols, thr, summary
