"""`corral emulate`: the run the engine exports, the qdisc mapping, clear errors, and (where
this machine allows network namespaces) a real run on kernel TCP that leaves nothing behind,
Ctrl-C included."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from corral import api, tables
from corral.emulate import EmulateError, emulate, fabric, requirements
from corral.emulate.results import jain

ROOT = pytest.mark.skipif(bool(requirements()), reason=f"corral emulate needs: {', '.join(requirements())}")


def dumbbell(senders: int = 2, duration: str = "2s", extra: str = "") -> str:
    srcs = ", ".join(f'"h{i}"' for i in range(senders))
    return f"""
name = "emu-dumbbell"
duration = "{duration}"
[topology]
kind = "dumbbell"
senders = {senders}
receivers = 1
link_rate = "100Mbps"
[switch]
buffer = "50pkt"
[routing]
kind = "static"
[[flows]]
src = [{srcs}]
dst = "h{senders}"
size = "unbounded"
{extra}
"""


def export_of(text: str, overrides=()) -> dict:
    return json.loads(api.build(text, "<test>", list(overrides)).emulation_export())


def our_namespaces() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split()
    return [n for n in out if n.startswith("crl")]


def test_an_emulated_summary_has_only_declared_keys_and_the_flows_columns():
    from corral.emulate import results

    export = export_of(dumbbell())
    cols, thr, summary = results.build(
        export, {}, [], scale=1.0, duration_s=2.0, interval_s=0.1, cc_of=["newreno"] * len(export["flows"])
    )
    assert set(summary) <= {name for name, _, _ in tables.summary_fields()}
    assert summary["mode"] == "emulate"
    assert list(cols) == list(tables.schemas()["flows"]) and list(thr) == list(tables.schemas()["throughput"])


def test_the_export_holds_nodes_ports_routes_and_flows():
    export = export_of(dumbbell(2))
    assert [n["host"] for n in export["nodes"]][:3] == [0, 1, 2]
    assert all(p["rate_bps"] == 100_000_000 for p in export["ports"])
    switch_ports = [p for p in export["ports"] if export["nodes"][p["node"]]["host"] is None]
    assert {json.dumps(p["queue"], sort_keys=True) for p in switch_ports} == {'{"buffer": {"packets": 50}, "kind": "taildrop"}'}
    # Every switch reaches every host through one port (static routing).
    switches = [i for i, n in enumerate(export["nodes"]) if n["host"] is None]
    assert sorted((r[0], r[1]) for r in export["routes"]) == sorted((s, h) for s in switches for h in range(3))
    assert all(len(r[2]) == 1 for r in export["routes"])
    assert [(f["src"], f["dst"], f["size"], f["cc"]) for f in export["flows"]] == [
        (0, 2, None, "newreno"),
        (1, 2, None, "newreno"),
    ]


def test_ecmp_routes_list_every_equal_cost_port():
    export = export_of(
        'duration = "1s"\n[topology]\nkind = "fat_tree"\nk = 4\nlink_rate = "1Gbps"\n[routing]\nkind = "ecmp"\n[[flows]]\nsrc = "h0"\ndst = "h15"\n'
    )
    widths = {len(r[2]) for r in export["routes"]}
    assert widths == {1, 2}, "ToRs and aggregation switches going up have two equal-cost ports"


@pytest.mark.parametrize(
    "change, key",
    [
        ("routing.kind=vlb", "routing.kind"),
        ("switch.queue=sfq", "switch.queue"),
        ("switch.buffer_model=shared", "switch.buffer_model"),
    ],
)
def test_what_a_kernel_cannot_follow_is_named(change, key):
    extra = "[switch.sfq]\nbuckets = 4\n" if "sfq" in change else ""
    extra += 'shared_buffer = "1MB"\n' if "shared" in change else ""
    text = dumbbell(2).replace("[routing]", extra + "[routing]") if extra else dumbbell(2)
    with pytest.raises(Exception, match=key.replace(".", r"\.")):
        export_of(text, [change])


def test_link_events_are_not_replayed_and_say_so():
    failure = '[[events]]\nat = "1s"\nlink = "sw0:0"\nstate = "down"\n'
    with pytest.raises(Exception, match=r"^events: corral emulate does not replay"):
        export_of(dumbbell(2) + failure)


def test_a_controller_the_kernel_lacks_is_named():
    from corral.emulate import kernel_cc

    export = export_of(dumbbell(2, extra='transport = "l2dct"\n'), ["transport.ecn=true"])
    with pytest.raises(EmulateError, match="transport.cc"):
        kernel_cc(export, None)
    with pytest.raises(EmulateError, match="--kernel-cc"):
        kernel_cc(export, "no-such-cc")


def test_missing_privileges_stop_with_what_is_missing(monkeypatch, tmp_path):
    import corral.emulate as em

    monkeypatch.setattr(em, "requirements", lambda: ["root or CAP_NET_ADMIN (to create network namespaces)"])
    (tmp_path / "s.toml").write_text(dumbbell(2))
    with pytest.raises(EmulateError, match="needs root or CAP_NET_ADMIN"):
        emulate(tmp_path / "s.toml", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_queues_map_to_linux_qdiscs():
    pkt = 1500
    assert fabric.leaf_qdisc({"kind": "taildrop", "buffer": {"packets": 100}}, 1e8, pkt) == ["pfifo", "limit", "100"]
    assert fabric.leaf_qdisc({"kind": "taildrop", "buffer": {"bytes": 16384}}, 1e8, pkt) == ["bfifo", "limit", "16384"]
    ecn = fabric.leaf_qdisc({"kind": "ecn", "buffer": {"packets": 100}, "threshold": {"packets": 20}}, 1e8, pkt)
    assert ecn[0] == "red" and ecn[-1] == "ecn" and ecn[ecn.index("min") + 1] == str(20 * pkt)
    red = fabric.leaf_qdisc(
        {
            "kind": "red",
            "buffer": {"packets": 100},
            "min_th": {"packets": 5},
            "max_th": {"packets": 15},
            "max_p": 0.1,
            "mark": False,
        },
        1e8,
        pkt,
    )
    assert "ecn" not in red and red[red.index("probability") + 1] == "0.1"
    with pytest.raises(EmulateError, match="switch.queue"):
        fabric.leaf_qdisc({"kind": "pfabric", "buffer": {"packets": 10}}, 1e8, pkt)


def test_links_get_distinct_subnets_and_counters_parse():
    nets = {fabric.link_subnet(i) for i in range(20000)}
    assert len(nets) == 20000
    text = (
        "qdisc htb 1: root refcnt 2 r2q 10 default 0x1\n Sent 99 bytes 3 pkt (dropped 0, overlimits 0 requeues 0)\n"
        "qdisc pfifo 10: parent 1:1 limit 50p\n Sent 6000 bytes 4 pkt (dropped 7, overlimits 0 requeues 0)\n"
    )
    assert fabric._leaf_counters(text) == {"sent": 4, "dropped": 7, "marked": 0}
    assert jain([1.0, 1.0]) == 1.0 and jain([1.0, 0.0]) == 0.5 and jain([]) is None


@ROOT
def test_the_fabric_turns_offloads_off_and_removes_everything():
    export = export_of(dumbbell(2))
    with fabric.Fabric(export, 1.0) as fab:
        names = list(fab.namespaces)
        assert len(names) == len(export["nodes"])
        port = export["ports"][0]
        assert fabric.offloads(fab.ns_of[port["node"]], fab.ifname[0]) == {"tso": 0, "gso": 0, "gro": 0}
    assert fabric.stale_namespaces(names) == []


@ROOT
def test_two_flows_on_kernel_tcp_share_the_bottleneck(tmp_path):
    (tmp_path / "s.toml").write_text(dumbbell(2, "3s"))
    out = emulate(tmp_path / "s.toml", tmp_path / "run")
    flows = pl.read_parquet(out / "flows.parquet")
    assert flows.columns[: len(tables.schemas()["flows"])] == list(tables.schemas()["flows"])
    total = flows["goodput_bps"].sum()
    assert total < 100e6, f"{total / 1e6:.1f} Mbps through a 100 Mbps bottleneck"
    # The two flows fill the link while both send. Their mean over 3 s is not a bound: on a
    # loaded 2-core CI machine both flows once sat out retransmission timeouts together after
    # slow start (61 Mbps over the run). Nor is one 0.1 s bin: the receiving agent, starved of
    # CPU, reads late and counts a backlog in one bin (124 Mbps seen). So the check is on the
    # busiest 0.5 s (five bins) at the receivers: the link ran full (>= 80 Mbps) for that long.
    thr = pl.read_parquet(out / "throughput.parquet")
    sums = thr.group_by("time_s").agg(pl.col("goodput_bps").sum())
    by_bin = {round(t, 6): g for t, g in zip(sums["time_s"].to_list(), sums["goodput_bps"].to_list())}
    per_bin = [by_bin.get(round(0.1 * (b + 1), 6), 0.0) for b in range(30)]  # a bin with no bytes has no row
    busiest = max(sum(per_bin[i : i + 5]) / 5 for i in range(len(per_bin) - 4))
    assert busiest >= 80e6, f"busiest 0.5 s at {busiest / 1e6:.1f} Mbps; bins {[round(b / 1e6) for b in per_bin]} Mbps"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["kernel"] == os.uname().release and summary["scale"] == 1.0
    # Both flows deliver. How evenly is kernel TCP's business, and over 3 s it varies a lot:
    # both flows leave slow start into the same 50-packet buffer, and one of them can sit out
    # retransmission timeouts. In about 30 runs here Jain's index went from 0.55 to 1.0 and one
    # flow's share as low as 4.9 %; a bound of 0.8 on the index failed about one run in seven.
    assert (flows["goodput_bps"] > 0).all(), f"goodput {flows['goodput_bps'].to_list()}"
    assert summary["jain_index"] == pytest.approx(jain(flows["goodput_bps"].to_list()))
    assert our_namespaces() == []
    assert not list(out.glob("agent-*")), "the agents' files are not part of the run folder"


@ROOT
def test_ctrl_c_removes_every_namespace_and_leaves_no_output(tmp_path):
    (tmp_path / "s.toml").write_text(dumbbell(2, "20s"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "corral", "emulate", str(tmp_path / "s.toml"), "-o", str(tmp_path / "run")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.time() + 30
    while not our_namespaces() and time.time() < deadline:
        time.sleep(0.05)
    assert our_namespaces(), "the run never built its namespaces"
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    assert proc.returncode != 0
    assert our_namespaces() == []
    assert not Path(tmp_path / "run").exists()


@pytest.mark.slow
@ROOT
def test_the_dumbbell_side_by_side_meets_the_goals(tmp_path):
    """The side by side of docs/guides/emulate.md, shortened to 5 s: eight Reno flows through 100 Mbps, corral
    with SACK and limited transmit against Linux. Goals: mean goodput within 5 % and Jain's
    index within 0.05 (the 20 s runs of bench/side_by_side_tcp.py gave 95.7 against a median
    of 95.3 Mb/s and 0.996 against 0.998).

    Real traffic in real time can only fall short of the link on a busy machine (HTB's timers
    and the agents' threads wait for the CPU), never exceed it: CI once saw Linux carry 91.2 of
    100 Mbps where this machine gives 95.2. So a Linux run that falls short of corral by more
    than 5 % is run again, up to three times in all, and the last run is compared; a corral
    more than 5 % short of Linux fails at once."""
    from importlib.resources import files

    scenario = files("corral") / "scenarios" / "emulate" / "dumbbell_100m.toml"
    sim = api.run(scenario, overrides=["duration=5s"])
    ours = sim.flows["goodput_bps"].mean()
    seen = []
    for attempt in range(3):
        linux = emulate(scenario, tmp_path / f"linux{attempt}", ["duration=5s"])
        theirs = pl.read_parquet(linux / "flows.parquet")["goodput_bps"].mean()
        seen.append(f"{theirs / 1e6:.2f}")
        if ours / theirs - 1 < 0.05:
            break
    assert abs(ours / theirs - 1) < 0.05, f"corral {ours / 1e6:.2f} Mbps, Linux {', '.join(seen)} Mbps"
    jain_linux = json.loads((linux / "summary.json").read_text())["jain_index"]
    assert abs(sim.summary["jain_index"] - jain_linux) < 0.05


@pytest.mark.slow
@ROOT
def test_ecmp_on_a_fat_tree_carries_cross_pod_flows(tmp_path):
    """36 namespaces, multipath routes: two flows from pod 1 to pod 0 both get through."""
    text = """
duration = "2s"
[topology]
kind = "fat_tree"
k = 4
link_rate = "100Mbps"
[routing]
kind = "ecmp"
[[flows]]
src = ["h4", "h5"]
dst = ["h0", "h1"]
size = "unbounded"
"""
    (tmp_path / "s.toml").write_text(text)
    out = emulate(tmp_path / "s.toml", tmp_path / "run")
    goodput = pl.read_parquet(out / "flows.parquet")["goodput_bps"].to_list()
    # Both get through, and together carry at least one link's worth. Not each 20 Mbps: over
    # 2 s one kernel TCP flow can sit out retransmission timeouts (a CI run saw 95 and 8.8).
    assert all(g > 0 for g in goodput) and sum(goodput) > 80e6, goodput
    assert our_namespaces() == []


@ROOT
def test_a_queue_the_kernel_lacks_fails_cleanly(tmp_path):
    """`ecn` maps to Linux red; on a kernel without it the run stops with that reason, and
    nothing is left behind (on one with it, the run goes through)."""
    extra = 'queue = "ecn"\necn_threshold = "20pkt"\n'
    (tmp_path / "s.toml").write_text(dumbbell(2, "1s").replace('buffer = "50pkt"\n', 'buffer = "50pkt"\n' + extra))
    try:
        emulate(tmp_path / "s.toml", tmp_path / "run")
    except EmulateError as e:
        assert "no red qdisc" in str(e)
        assert not (tmp_path / "run").exists()
    else:
        assert (tmp_path / "run" / "flows.parquet").is_file()
    assert our_namespaces() == []
