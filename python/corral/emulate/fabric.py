"""The scenario's network on Linux network namespaces: one namespace per host and per switch,
a veth pair per link, IP routes that follow the scenario's routing, and a qdisc per output
port with the port's rate and queue.

* Addresses: the link of ports p and q (p < q) gets subnet number p:
  10.(64 + p // 16384).(p // 64 % 256).(p % 64 * 4)/30, .1 on p's side and .2 on q's; a
  host's address is the one on its only link.
* Routes: a switch reaches each host through the port(s) the run's routing picks
  (`static`: the destination-bit rule, one route per host; `ecmp`: a multipath route over
  the equal-cost ports, hashed on the L4 5-tuple with `fib_multipath_hash_policy = 1`).
  Hosts send everything to their switch. Host routes carry the scenario's initial window,
  minimum RTO and, with `delayed_ack = 1`, `quickack` (an ACK for every segment).
* Ports: `htb` at the port's rate (divided by the scale) over a `pfifo` (buffer in packets),
  a `bfifo` (in bytes) or, for `red` and `ecn`, Linux `red` (ECN marking for `ecn` and for
  `red` in mark mode). Link propagation delays are not added: no qdisc does it without
  netem, and at these rates they are far below a packet's serialization time.
* Segmentation offloads (TSO, GSO, GRO) are turned off on every veth, so queues hold
  packets of the scenario's size.

Everything is created under a name prefix unique to the run and removed by `close()` (also
on errors and Ctrl-C: `Fabric` is a context manager). Deleting a namespace deletes the veth
ends inside it, and every veth is created inside namespaces, none in the caller's.
"""

from __future__ import annotations

import ctypes
import fcntl
import ipaddress
import os
import secrets
import shutil
import socket
import struct
import subprocess
from collections.abc import Iterable
from typing import Any

from .errors import EmulateError

CLONE_NEWNET = 0x40000000
SIOCETHTOOL = 0x8946
# Legacy ethtool "set" commands; the kernel maps each to its feature flags.
ETHTOOL_SET = {"tso": 0x1F, "gso": 0x24, "gro": 0x2C}
ETHTOOL_GET = {"tso": 0x1E, "gso": 0x23, "gro": 0x2B}


def link_subnet(i: int) -> ipaddress.IPv4Network:
    """The /30 of subnet number `i` (the module doc's rule)."""
    base = (10 << 24) | ((64 + i // 16384) << 16) | ((i // 64 % 256) << 8) | (i % 64 * 4)
    return ipaddress.IPv4Network((base, 30))


def run_cmd(args: list[str], what: str) -> str:
    """Runs a command; a failure raises EmulateError with its stderr."""
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise EmulateError(f"{what}: `{' '.join(args)}` failed: {p.stderr.strip() or p.stdout.strip()}")
    return p.stdout


def requirements() -> list[str]:
    """What this machine lacks for `corral emulate` (empty: nothing)."""
    missing = [f"the `{t}` command (iproute2)" for t in ("ip", "tc") if shutil.which(t) is None]
    if os.geteuid() != 0 and not _has_cap_net_admin():
        missing.append("root or CAP_NET_ADMIN (to create network namespaces)")
    return missing


def _has_cap_net_admin() -> bool:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) & (1 << 12))
    except OSError:
        pass
    return False


class _EthtoolValue(ctypes.Structure):
    _fields_ = [("cmd", ctypes.c_uint32), ("data", ctypes.c_uint32)]


def _ethtool(ifname: str, cmd: int, data: int = 0) -> int:
    """One legacy ethtool command on `ifname` in the current namespace."""
    value = _EthtoolValue(cmd, data)
    ifreq = struct.pack("16sP", ifname.encode(), ctypes.addressof(value)) + b"\0" * 16
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        fcntl.ioctl(s.fileno(), SIOCETHTOOL, bytearray(ifreq))
    return value.data


class _InNamespace:
    """Runs the calling thread inside namespace `ns` for the `with` block."""

    def __init__(self, ns: str):
        self.ns = ns

    def __enter__(self):
        self.libc = ctypes.CDLL(None, use_errno=True)
        target = os.open(f"/var/run/netns/{self.ns}", os.O_RDONLY)
        self.home = os.open("/proc/self/ns/net", os.O_RDONLY)
        try:
            if self.libc.setns(target, CLONE_NEWNET) != 0:
                raise EmulateError(f"cannot enter namespace {self.ns}: {os.strerror(ctypes.get_errno())}")
        finally:
            os.close(target)
        return self

    def __exit__(self, *exc):
        try:
            if self.libc.setns(self.home, CLONE_NEWNET) != 0:
                raise EmulateError(f"cannot return from namespace {self.ns}: {os.strerror(ctypes.get_errno())}")
        finally:
            os.close(self.home)


def offloads(ns: str, ifname: str) -> dict[str, int]:
    """The TSO, GSO and GRO flags of `ifname` in `ns` (1 = on)."""
    with _InNamespace(ns):
        return {k: _ethtool(ifname, c) for k, c in ETHTOOL_GET.items()}


def _size_arg(buf: dict[str, int], packet: int) -> tuple[str, int]:
    """A queue limit as ("packets" | "bytes", n)."""
    if "packets" in buf:
        return "packets", int(buf["packets"])
    return "bytes", max(int(buf["bytes"]), packet)


def leaf_qdisc(queue: dict[str, Any], rate_bps: float, packet: int) -> list[str]:
    """The `tc qdisc add ... parent 1:1 handle 10:` arguments after the device for a port's queue."""
    kind = queue["kind"]
    unit, limit = _size_arg(queue["buffer"], packet)
    if kind == "taildrop":
        return ["pfifo", "limit", str(limit)] if unit == "packets" else ["bfifo", "limit", str(limit)]
    limit_bytes = limit * packet if unit == "packets" else limit

    def nbytes(b: dict[str, int]) -> int:
        u, n = _size_arg(b, packet)
        return n * packet if u == "packets" else n

    if kind == "ecn":
        lo = nbytes(queue["threshold"])
        hi, p, ecn = lo + packet, 1.0, True
    elif kind == "red":
        lo, hi, p, ecn = nbytes(queue["min_th"]), nbytes(queue["max_th"]), float(queue["max_p"]), bool(queue["mark"])
    else:
        raise EmulateError(f"switch.queue: corral emulate cannot map queue {kind!r} to a Linux qdisc")
    burst = max(1, (2 * lo + hi) // (3 * packet))
    args = [
        "red",
        "limit",
        str(max(limit_bytes, hi * 2)),
        "min",
        str(lo),
        "max",
        str(hi),
        "avpkt",
        str(packet),
        "burst",
        str(burst),
        "probability",
        str(p),
        "bandwidth",
        f"{int(rate_bps)}bit",
    ]
    return args + (["ecn"] if ecn else [])


class Fabric:
    """The namespaces, links, routes and qdiscs of one emulated run (see the module doc)."""

    def __init__(self, export: dict[str, Any], scale: float):
        self.export = export
        self.scale = scale
        self.tag = secrets.token_hex(3)
        self.namespaces: list[str] = []
        nodes, ports = export["nodes"], export["ports"]
        self.ns_of = [f"crl{self.tag}n{i}" for i in range(len(nodes))]
        self.peer_port = [port["peer_port"] for port in ports]
        self.ifname = [f"c{self.tag}p{p}" for p in range(len(ports))]
        self.addr = []
        for p, q in enumerate(self.peer_port):
            hosts = list(link_subnet(min(p, q)).hosts())
            self.addr.append(str(hosts[0] if p < q else hosts[1]))
        self.host_ip = {}
        for p, port in enumerate(ports):
            h = nodes[port["node"]]["host"]
            if h is not None:
                self.host_ip[h] = self.addr[p]

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> Fabric:
        try:
            self.build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Deletes every namespace this run made (and so every veth end in it)."""
        for ns in reversed(self.namespaces):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self.namespaces.clear()

    def exec_args(self, node: int) -> list[str]:
        """The command prefix that runs a program inside node `node`'s namespace."""
        return ["ip", "netns", "exec", self.ns_of[node]]

    # -- building --------------------------------------------------------------------------
    def build(self) -> None:
        export, ports, nodes = self.export, self.export["ports"], self.export["nodes"]
        packet = int(export["mss"]) + int(export["header"])
        for ns in self.ns_of:
            run_cmd(["ip", "netns", "add", ns], "creating a namespace")
            self.namespaces.append(ns)
            self._ip(ns, "link", "set", "lo", "up")
        for p, port in enumerate(ports):
            q = self.peer_port[p]
            if p > q:
                continue
            a, b = self.ns_of[port["node"]], self.ns_of[ports[q]["node"]]
            run_cmd(
                ["ip", "link", "add", self.ifname[p], "netns", a, "type", "veth", "peer", "name", self.ifname[q], "netns", b],
                "creating a veth pair",
            )
        for p, port in enumerate(ports):
            ns = self.ns_of[port["node"]]
            dev = self.ifname[p]
            self._ip(ns, "link", "set", dev, "mtu", str(packet), "gso_max_segs", "1")
            self._ip(ns, "addr", "add", f"{self.addr[p]}/30", "dev", dev)
            self._ip(ns, "link", "set", dev, "up")
            with _InNamespace(ns):
                for cmd in ETHTOOL_SET.values():
                    try:
                        _ethtool(dev, cmd, 0)
                    except OSError as e:
                        raise EmulateError(f"turning offloads off on {dev}: {e}") from e
            rate = max(1.0, port["rate_bps"] / self.scale)
            self._tc(ns, "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1")
            self._tc(
                ns,
                "class",
                "add",
                "dev",
                dev,
                "parent",
                "1:",
                "classid",
                "1:1",
                "htb",
                "rate",
                f"{int(rate)}bit",
                "ceil",
                f"{int(rate)}bit",
                "burst",
                str(packet),
                "cburst",
                str(packet),
                "quantum",
                str(packet),
            )
            self._tc(ns, "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", *leaf_qdisc(port["queue"], rate, packet))
        for i, node in enumerate(nodes):
            ns = self.ns_of[i]
            if node["host"] is None:
                self._sysctl(ns, "net.ipv4.ip_forward", 1)
                self._sysctl(ns, "net.ipv4.fib_multipath_hash_policy", 1)
                self._sysctl(ns, "net.ipv4.conf.all.rp_filter", 0)
            else:
                self._host_settings(ns)
        self._routes()

    def _host_settings(self, ns: str) -> None:
        export = self.export
        self._sysctl(ns, "net.ipv4.tcp_sack", int(bool(export["sack"])))
        self._sysctl(ns, "net.ipv4.tcp_ecn", 1 if export["ecn"] else 0)
        self._sysctl(ns, "net.ipv4.tcp_no_metrics_save", 1)

    def _routes(self) -> None:
        export, ports, nodes = self.export, self.export["ports"], self.export["nodes"]
        host_opts = ["initcwnd", str(export["initial_window"]), "rto_min", f"{max(1, export['min_rto_ns'] // 1_000_000)}ms"]
        if int(export["delayed_ack"]) == 1:
            host_opts += ["quickack", "1"]
        for p, port in enumerate(ports):
            if nodes[port["node"]]["host"] is not None:
                gw = self.addr[self.peer_port[p]]
                self._ip(self.ns_of[port["node"]], "route", "add", "default", "via", gw, "dev", self.ifname[p], *host_opts)
        for node, dst, outs in export["routes"]:
            ip = self.host_ip[dst]
            if len(outs) == 1:
                o = outs[0]
                self._ip(self.ns_of[node], "route", "add", f"{ip}/32", "via", self.addr[self.peer_port[o]], "dev", self.ifname[o])
            else:
                hops: list[str] = []
                for o in outs:
                    hops += ["nexthop", "via", self.addr[self.peer_port[o]], "dev", self.ifname[o]]
                self._ip(self.ns_of[node], "route", "add", f"{ip}/32", *hops)

    def _ip(self, ns: str, *args: str) -> None:
        run_cmd(["ip", "-n", ns, *args], "configuring the network")

    def _tc(self, ns: str, *args: str) -> None:
        p = subprocess.run(["tc", "-n", ns, *args], capture_output=True, text=True)
        if p.returncode != 0:
            msg = p.stderr.strip()
            if "unknown" in msg.lower():
                kind = next((a for a in args if a in ("red", "htb", "pfifo", "bfifo")), "a")
                msg = f"this kernel has no {kind} qdisc ({msg})"
            raise EmulateError(f"setting up the queue of a port: {msg}")

    def _sysctl(self, ns: str, key: str, value: int) -> None:
        path = "/proc/sys/" + key.replace(".", "/")
        with _InNamespace(ns):
            try:
                with open(path, "w", encoding="ascii") as f:
                    f.write(str(value))
            except OSError as e:
                raise EmulateError(f"setting {key} in the emulated network: {e}") from e

    # -- reading ---------------------------------------------------------------------------
    def qdisc_drops(self) -> list[dict[str, Any]]:
        """Per port: packets sent, dropped and ECN-marked by its leaf qdisc."""
        out = []
        for p, port in enumerate(self.export["ports"]):
            text = run_cmd(
                ["tc", "-n", self.ns_of[port["node"]], "-s", "qdisc", "show", "dev", self.ifname[p]], "reading queue counters"
            )
            out.append({"port": p, **_leaf_counters(text)})
        return out


def _leaf_counters(text: str) -> dict[str, int]:
    """Sent packets, drops and marks of the `10:` leaf in `tc -s qdisc show` output."""
    sent = dropped = marked = 0
    leaf = False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("qdisc "):
            leaf = " 10: " in f" {s} "
        elif leaf and s.startswith("Sent "):
            parts = s.replace(",", " ").replace("(", " ").replace(")", " ").split()
            sent = int(parts[parts.index("pkt") - 1])
            dropped = int(parts[parts.index("dropped") + 1])
        elif leaf and "marked" in s:
            words = s.split()
            marked = int(words[words.index("marked") + 1])
    return {"sent": sent, "dropped": dropped, "marked": marked}


def stale_namespaces(names: Iterable[str]) -> list[str]:
    """The namespaces among `names` that still exist (for tests that check cleanup)."""
    existing = set(run_cmd(["ip", "netns", "list"], "listing namespaces").split())
    return [n for n in names if n in existing]
