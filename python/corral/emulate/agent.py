"""The program `corral emulate` runs inside each host's namespace: it sends this host's flows
and receives the flows addressed to it, over kernel TCP, and writes what it saw as JSON.

`python -m corral.emulate.agent CONFIG OUT` reads CONFIG (written by `corral emulate`):
`t0` (wall-clock start, time.time()), `duration_s`, `interval_s`, `ip` (this host's address),
`send` (flows: `id`, `dst_ip`, `port`, `size` or null, `start_s`, `cc`) and `receive` (flows:
`id`, `port`, `size`). Senders connect at `t0 + start_s` with the flow's congestion
control (TCP_CONGESTION), write `size` bytes (or until the end for an unbounded flow) and
read the kernel's TCP_INFO before closing. Receivers count delivered bytes per interval and
note when the last byte arrived. The host's TCP counters (`/proc/net/netstat`, `snmp`) are
read before and after. Nothing runs past `t0 + duration_s` (plus grace seconds to close).
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import threading
import time
from typing import Any

CHUNK = 64 * 1024
GRACE_S = 1.0
# struct tcp_info (linux/tcp.h) up to tcpi_total_retrans: 8 u8 fields, then u32 fields.
TCP_INFO_FMT = "8B24I"
TCP_INFO_U32 = (
    "rto",
    "ato",
    "snd_mss",
    "rcv_mss",
    "unacked",
    "sacked",
    "lost",
    "retrans",
    "fackets",
    "last_data_sent",
    "last_ack_sent",
    "last_data_recv",
    "last_ack_recv",
    "pmtu",
    "rcv_ssthresh",
    "rtt",
    "rttvar",
    "snd_ssthresh",
    "snd_cwnd",
    "advmss",
    "reordering",
    "rcv_rtt",
    "rcv_space",
    "total_retrans",
)
COUNTERS = (
    "TcpExt:TCPTimeouts",
    "TcpExt:TCPSackRecovery",
    "TcpExt:TCPRenoRecovery",
    "TcpExt:TCPLossProbes",
    "TcpExt:TCPLostRetransmit",
    "Tcp:RetransSegs",
    "Tcp:OutSegs",
)


def tcp_counters() -> dict[str, int]:
    """The namespace's TCP counters named in COUNTERS."""
    out: dict[str, int] = {}
    for path in ("/proc/net/netstat", "/proc/net/snmp"):
        with open(path, encoding="ascii") as f:
            lines = f.read().splitlines()
        for names, values in zip(lines[::2], lines[1::2]):
            prefix = names.split(":")[0]
            for k, v in zip(names.split()[1:], values.split()[1:]):
                key = f"{prefix}:{k}"
                if key in COUNTERS:
                    out[key] = int(v)
    return out


def tcp_info(sock: socket.socket) -> dict[str, int]:
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    vals = struct.unpack_from(TCP_INFO_FMT, raw)
    info = dict(zip(TCP_INFO_U32, vals[8:]))
    info["ca_state"], info["retransmits"], info["backoff"] = vals[1], vals[2], vals[4]
    return info


def send_flow(flow: dict[str, Any], ip: str, t0: float, end: float, result: dict[str, Any]) -> None:
    delay = t0 + flow["start_s"] - time.time()
    if delay > 0:
        time.sleep(delay)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, flow["cc"].encode())
        s.bind((ip, 0))
        s.settimeout(max(0.1, end - time.time()))
        s.connect((flow["dst_ip"], flow["port"]))
        result["start"] = time.time() - t0
        buf = memoryview(bytearray(CHUNK))
        left = flow["size"]
        sent = 0
        while (left is None or left > 0) and time.time() < end:
            n = CHUNK if left is None else min(CHUNK, left)
            s.settimeout(max(0.01, end - time.time()))
            try:
                k = s.send(buf[:n])
            except OSError:  # the end came (timeout) or the receiver closed at the end
                break
            sent += k
            if left is not None:
                left -= k
        result["sent_bytes"] = sent
        result["tcp_info"] = tcp_info(s)
    except OSError as e:
        result["error"] = str(e)
    finally:
        s.close()


def receive_flow(
    listener: socket.socket, flow: dict[str, Any], t0: float, end: float, interval: float, result: dict[str, Any]
) -> None:
    bins: dict[int, int] = {}
    total = 0
    try:
        listener.settimeout(max(0.1, end - time.time()))
        conn, _ = listener.accept()
    except OSError as e:
        result["error"] = f"no connection: {e}"
        return
    buf = bytearray(CHUNK)
    with conn:
        # Read until the sender closes or a grace second after the end (so the sender is not
        # cut off mid-write); only bytes that arrive before the end are counted.
        while True:
            left = end + GRACE_S - time.time()
            if left <= 0:
                break
            conn.settimeout(left)
            try:
                n = conn.recv_into(buf)
            except (TimeoutError, OSError):
                break
            if n == 0:
                break
            now = time.time() - t0
            if now > end - t0:
                continue
            total += n
            bins[int(now / interval)] = bins.get(int(now / interval), 0) + n
            if flow["size"] is not None and total >= flow["size"]:
                result["finish"] = now
    result["bytes"] = total
    result["bins"] = sorted(bins.items())


def main(config_path: str, out_path: str) -> None:
    with open(config_path, encoding="utf-8") as f:
        cfg = json.load(f)
    t0, end = cfg["t0"], cfg["t0"] + cfg["duration_s"]
    listeners = {}
    for flow in cfg["receive"]:
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((cfg["ip"], flow["port"]))
        ls.listen(1)
        listeners[flow["id"]] = ls
    before = tcp_counters()
    results: dict[str, dict[str, Any]] = {}
    threads = []
    for flow in cfg["receive"]:
        r = results.setdefault(str(flow["id"]), {})
        threads.append(
            threading.Thread(
                target=receive_flow, args=(listeners[flow["id"]], flow, t0, end, cfg["interval_s"], r.setdefault("rx", {}))
            )
        )
    for flow in cfg["send"]:
        r = results.setdefault(str(flow["id"]), {})
        threads.append(threading.Thread(target=send_flow, args=(flow, cfg["ip"], t0, end, r.setdefault("tx", {}))))
    for t in threads:
        t.daemon = True
        t.start()
    for t in threads:
        t.join(timeout=max(0.0, end + 2 * GRACE_S - time.time()))
    after = tcp_counters()
    for ls in listeners.values():
        ls.close()
    counters = {k: after.get(k, 0) - before.get(k, 0) for k in COUNTERS}
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"flows": results, "counters": counters}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
