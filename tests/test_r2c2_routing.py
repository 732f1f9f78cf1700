"""Fig. 2 of the R2C2 paper (`corral.experiments.r2c2_routing`): the throughput table of four
routing protocols on an 8x8 torus comes from the links each protocol's packets cross. Checked
against what those paths imply by hand: dimension-order (destination-tag) routing's loads on
the patterns where they are easy to count, VLB's half capacity under any traffic in which
every node sends, every flow's shares summing to its path length, and the worst-case search
against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from corral.experiments import r2c2_routing as rr


@pytest.fixture(scope="module")
def torus() -> rr.Torus2D:
    return rr.Torus2D()


@pytest.fixture(scope="module")
def table() -> dict[str, dict[str, float]]:
    return rr.table()


def ring(a: int, b: int, k: int = rr.K) -> int:
    return min((a - b) % k, (b - a) % k)


def test_channels_are_the_torus_links(torus: rr.Torus2D) -> None:
    assert len(torus.channels) == 4 * 64 and torus.capacity_bps == 10e9
    for a, b in torus.channels.values():
        assert ring(a % 8, b % 8) + ring(a // 8, b // 8) == 1


@pytest.mark.parametrize("routing", rr.PROTOCOLS)
def test_every_flow_s_shares_add_up_to_its_path_length(torus: rr.Torus2D, routing: str) -> None:
    g = torus.shares(routing)
    total = g.sum(axis=2)
    dist = np.array([[ring(s % 8, d % 8) + ring(s // 8, d // 8) for d in range(64)] for s in range(64)], dtype=float)
    if routing in ("dest_tag", "rps"):  # minimal: exactly the torus distance
        assert np.allclose(total, dist)
    else:  # through a random intermediate for all (VLB) or 2/3 (WLB) of the packets: longer
        assert np.all(total >= dist - 1e-9) and total.sum() > dist.sum() * 1.2


def test_dimension_order_routing_matches_the_counted_loads(table: dict) -> None:
    # NN: every channel carries a quarter of one node's traffic -> 4x capacity (b = capacity
    # on the 8x8 torus); BC: the x channels at the middle of a row carry 2 flows -> 0.5; TP:
    # a row's channel into its diagonal node carries the 4 flows turning there (ties of
    # offset 4 included) -> 0.25; tornado: each x channel carries the 3 flows of offset 3
    # that cross it -> 1/3.
    t = table["dest_tag"]
    assert t["NN"] == pytest.approx(4.0) and t["BC"] == pytest.approx(0.5)
    assert t["TP"] == pytest.approx(0.25) and t["TOR"] == pytest.approx(1 / 3)
    assert t["WC"] == pytest.approx(0.25)  # no permutation puts more than 4 flows on one channel


def test_vlb_gets_half_of_capacity_when_every_node_sends(table: dict) -> None:
    # Each phase spreads one node's traffic uniformly: a channel carries x per phase.
    for name in ("NN", "UR", "BC", "TOR", "WC"):
        assert table["vlb"][name] == pytest.approx(0.5), name
    assert table["vlb"]["TP"] > 0.5  # the 8 diagonal nodes send nothing


def test_no_protocol_is_best_everywhere(table: dict) -> None:
    values = rr.claim_values(table)
    assert values["best_single_shortfall"] > 1.05 and values["vlb_over_minimal_wc"] > 1 and values["minimal_over_vlb_ur"] > 1


def test_max_assignment_matches_brute_force() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        w = rng.random((6, 6)) * (rng.random((6, 6)) < 0.6)
        brute = max(sum(w[i, p[i]] for i in range(6)) for p in itertools.permutations(range(6)))
        assert rr.max_assignment(w) == pytest.approx(brute)
