"""`corral emulate`: the same scenario file on real Linux TCP, in network namespaces.

The scenario is built by the engine (so it is validated the same way, and flows get the
same start times), exported as data (`_core.Simulation.emulation_export`), and built on
namespaces by `fabric.Fabric`. One `agent` process per host runs that host's flows on kernel
TCP for the scenario's duration in wall-clock time; `results` turns their reports into the
tables of a run folder, which `corral compare` reads beside a simulated run.

`--scale` divides every link rate (default: enough to bring the busiest link down to
100 Mbps, as 2 cores cannot forward much more through veths); the output says which scale
it used (`summary.json`), and `scenario.toml` in it is the input scenario under a header
naming the scale; simulate with the rates divided the same way for a like-for-like run. Needs root or CAP_NET_ADMIN and `ip`/`tc`; everything it creates is removed on
every exit path, Ctrl-C included.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .errors import EmulateError
from .fabric import Fabric, requirements

__all__ = ["EmulateError", "emulate", "requirements", "KERNEL_CC"]

# corral's controller names -> the kernel's.
KERNEL_CC = {"newreno": "reno", "cubic": "cubic", "dctcp": "dctcp", "bbr": "bbr"}
DEFAULT_TOP_BPS = 100e6


def available_cc() -> list[str]:
    try:
        with open("/proc/sys/net/ipv4/tcp_available_congestion_control", encoding="ascii") as f:
            return f.read().split()
    except OSError:
        return ["reno", "cubic"]


def kernel_cc(export: dict[str, Any], override: str | None) -> list[str]:
    """The kernel congestion control of each flow (EmulateError naming the key if there is none)."""
    have = available_cc()
    out = []
    for f in export["flows"]:
        name = override or KERNEL_CC.get(f["cc"])
        if name is None:
            raise EmulateError(
                f"transport.cc: the kernel has no {f['cc']!r}; corral emulate runs {sorted(KERNEL_CC)} "
                f"(or --kernel-cc with one of {have})"
            )
        if name not in have:
            raise EmulateError(f"{'--kernel-cc' if override else 'transport.cc'}: this kernel offers {have}, not {name!r}")
        out.append(name)
    return out


def default_scale(export: dict[str, Any]) -> float:
    top = max((p["rate_bps"] for p in export["ports"]), default=DEFAULT_TOP_BPS)
    return max(1.0, top / DEFAULT_TOP_BPS)


def emulate(
    scenario: Any,
    out: str | os.PathLike,
    overrides: Iterable[str] = (),
    *,
    scale: float | None = None,
    kernel_congestion: str | None = None,
    force: bool = False,
    interval_s: float = 0.1,
    progress: Callable[[str], None] | None = None,
    inputs: Iterable[str | os.PathLike] | None = None,
) -> Path:
    """Runs `scenario` (a path, TOML text or `corral.Scenario`) on namespaces and writes a run
    folder to `out`; returns its path. `inputs` are the files the output must not replace
    (default: `scenario` if it is a file)."""
    from .. import api, tables
    from ..outdir import atomic_dir
    from . import results

    missing = requirements()
    if missing:
        raise EmulateError("corral emulate needs " + " and ".join(missing))
    text, source = api.load_scenario(scenario)
    sim = api.build(text, source, list(overrides))
    export = json.loads(sim.emulation_export())
    cc_of = kernel_cc(export, kernel_congestion)
    if scale is None:
        scale = default_scale(export)
    if not (scale >= 1.0):
        raise EmulateError(f"--scale: must be at least 1, got {scale}")
    duration_s = export["duration_ns"] / 1e9
    if duration_s > 3600:
        raise EmulateError(f"duration: corral emulate runs in real time; {duration_s:g} s is more than an hour")
    say = progress or (lambda _msg: None)
    if inputs is None:
        inputs = [scenario] if isinstance(scenario, (str, os.PathLike)) and Path(str(scenario)).exists() else []
    # SIGTERM unwinds like Ctrl-C, so the namespaces go (only the main thread may set it).
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _raise_exit) if main else None
    try:
        with atomic_dir(out, "run", inputs, force) as tmp, Fabric(export, scale) as fab:
            say(f"built {len(fab.namespaces)} namespaces; running {duration_s:g} s of traffic at 1/{scale:g} of the link rates")
            agents = _run_agents(fab, export, cc_of, duration_s, interval_s, tmp)
            queues = fab.qdisc_drops()
            flows, thr, summary = results.build(
                export, agents, queues, scale=scale, duration_s=duration_s, interval_s=interval_s, cc_of=cc_of
            )
            tables.to_frame("flows", flows).write_parquet(tmp / "flows.parquet")
            tables.to_frame("throughput", thr).write_parquet(tmp / "throughput.parquet")
            (tmp / "scenario.toml").write_text(
                f"# corral emulate ran this scenario with every link rate divided by {scale:g}\n" + text
            )
            (tmp / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
            for leftover in tmp.glob("agent-*"):
                leftover.unlink()
        return Path(out).absolute()
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)


def _raise_exit(signum, frame):
    raise SystemExit(128 + signum)


def _run_agents(
    fab: Fabric, export: dict[str, Any], cc_of: list[str], duration_s: float, interval_s: float, tmp: Path
) -> dict[int, dict[str, Any]]:
    """Starts one agent per host with flows, waits for them (killing them on any error), and
    returns their reports by host."""
    hosts: dict[int, dict[str, Any]] = {}
    node_of = {n["host"]: i for i, n in enumerate(export["nodes"]) if n["host"] is not None}
    for i, f in enumerate(export["flows"]):
        port = 20000 + i
        hosts.setdefault(f["src"], {"send": [], "receive": []})["send"].append(
            {
                "id": i,
                "dst_ip": fab.host_ip[f["dst"]],
                "port": port,
                "size": f["size"],
                "start_s": f["start_ns"] / 1e9,
                "cc": cc_of[i],
            }
        )
        hosts.setdefault(f["dst"], {"send": [], "receive": []})["receive"].append({"id": i, "port": port, "size": f["size"]})
    t0 = time.time() + 1.0 + 0.2 * len(hosts)
    procs = {}
    try:
        for h, work in hosts.items():
            cfg = tmp / f"agent-{h}.json"
            cfg.write_text(
                json.dumps({"t0": t0, "duration_s": duration_s, "interval_s": interval_s, "ip": fab.host_ip[h], **work})
            )
            args = fab.exec_args(node_of[h]) + [
                sys.executable,
                "-m",
                "corral.emulate.agent",
                str(cfg),
                str(tmp / f"agent-{h}.out.json"),
            ]
            procs[h] = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = t0 + duration_s + 30
        for h, p in procs.items():
            try:
                _, err = p.communicate(timeout=max(1.0, deadline - time.time()))
            except subprocess.TimeoutExpired as e:
                raise EmulateError(f"the agent of host {h} did not finish") from e
            if p.returncode != 0:
                raise EmulateError(f"the agent of host {h} failed: {err.strip()[-2000:]}")
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
    return {h: json.loads((tmp / f"agent-{h}.out.json").read_text()) for h in procs}
