"""`bench/side_by_side_tcp.py`: corral's side runs and prints its row; a side that is absent
(no ns-3 Python, no root) is skipped with a message naming what is missing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load():
    spec = importlib.util.spec_from_file_location("side_by_side_tcp", ROOT / "bench" / "side_by_side_tcp.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["side_by_side_tcp"] = module
    spec.loader.exec_module(module)
    return module


def test_corral_runs_and_a_missing_ns3_is_skipped_with_a_message(capsys, tmp_path):
    sbs = load()
    out = tmp_path / "out.json"
    code = sbs.main(
        [
            "--case",
            "1g",
            "--cc",
            "newreno",
            "--cc",
            "bbr",
            "--side",
            "corral",
            "--side",
            "ns-3",
            "--duration",
            "0.02",
            "--ns3-python",
            str(tmp_path / "no-python"),
            "--json",
            str(out),
        ]
    )
    assert code == 0
    text = capsys.readouterr()
    assert "skipped: ns-3: no Python with the ns3 wheel" in text.err
    rows = [line.split() for line in text.out.splitlines() if line.startswith("1g")]
    # NewReno once per ssthresh rule, BBR once.
    assert [r[:4] for r in rows] == [
        ["1g", "newreno", "corral,", "ssthresh=flight"],
        ["1g", "newreno", "corral,", "ssthresh=pipe"],
        ["1g", "bbr", "corral", rows[2][3]],
    ]
    import json

    data = json.loads(out.read_text())
    assert [r["side"] for r in data] == ["corral, ssthresh=flight", "corral, ssthresh=pipe", "corral"]
    assert all(r["throughput_bps"] > 0 for r in data)


def test_the_matched_shape_moves_the_receiver_and_sets_the_packet_sizes():
    sbs = load()
    ov = sbs.shape_overrides(4, "dctcp", 66)
    assert 'flows.0.dst="h4"' in ov and "transport.mss=1448" in ov and "transport.header=66" in ov
    assert 'switch.queue="ecn"' in ov and "transport.ecn=true" in ov
    assert sbs.jain([1.0, 1.0]) == 1.0 and sbs.jain([]) is None
