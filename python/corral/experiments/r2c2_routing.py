"""Fig. 2 of the R2C2 paper (Costa et al., SIGCOMM 2015, section 2.2.2): the throughput of
four routing algorithms on an 8-ary 2-cube (an 8x8 2D torus) under five traffic patterns and
their worst case, as a fraction of the network's capacity. The paper reprints the table from
Dally and Towles ("Principles and Practices of Interconnection Networks") to argue that "no
single routing algorithm can achieve optimal throughput across all workloads": minimal
routing does well on benign patterns and poorly in the worst case, VLB has "the same
performance across all traffic patterns" but "hurts average-case throughput", and WLB lies
between them.

Here the four algorithms are corral's own (the two minimal ones the paper names,
destination-tag routing `dest_tag` and randomized packet spraying `rps`, and the two
non-minimal ones, `vlb` and `wlb`), and every number comes from the links each protocol's
packets cross (`corral.alloc.usage`, the same rules the packet router follows): with every
node injecting at rate x, channel c carries x * sum over flows of the flow's share on c, so
the largest rate the network accepts is b / max_c load_c. Capacity is the ideal throughput
under uniform traffic, 2 b B_C / N (B_C channels cross the bisection, N nodes, b a link's
rate): b for an 8x8 torus. The worst case over all traffic is the worst permutation (Birkhoff): for each
channel, a maximum-weight assignment of sources to destinations on the flows' shares.

Patterns (Dally and Towles, section 3.2): NN, each node to its four neighbours equally; UR,
uniformly random destinations; BC, bit complement (x, y) -> (k-1-x, k-1-y); TP, transpose
(x, y) -> (y, x); TOR, tornado (x, y) -> (x + k/2 - 1, y).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .. import alloc

K = 8  # the 8-ary 2-cube of Fig. 2
PROTOCOLS = ("dest_tag", "rps", "wlb", "vlb")
PATTERNS = ("NN", "UR", "BC", "TP", "TOR", "WC")


def _node(x: int, y: int, k: int) -> int:
    return (y % k) * k + (x % k)


def pattern(name: str, k: int = K) -> np.ndarray:
    """The traffic matrix of a pattern: T[s, d] = the share of node s's traffic sent to d
    (rows sum to 1; a node that would send to itself sends nothing)."""
    n = k * k
    t = np.zeros((n, n))
    for s in range(n):
        x, y = s % k, s // k
        if name == "NN":
            for d in (_node(x + 1, y, k), _node(x - 1, y, k), _node(x, y + 1, k), _node(x, y - 1, k)):
                t[s, d] += 0.25
        elif name == "UR":
            t[s, :] = 1.0 / (n - 1)
            t[s, s] = 0.0
        else:
            d = {"BC": _node(k - 1 - x, k - 1 - y, k), "TP": _node(y, x, k), "TOR": _node(x + math.ceil(k / 2) - 1, y, k)}[name]
            if d != s:
                t[s, d] = 1.0
    return t


def max_assignment(w: np.ndarray) -> float:
    """The largest sum of w[i, p(i)] over permutations p (the Hungarian method, O(n^3),
    one row added per pass with its shortest augmenting path)."""
    n = w.shape[0]
    cost = -w
    u, v = np.zeros(n + 1), np.zeros(n + 1)
    p = np.zeros(n + 1, dtype=np.int64)  # p[j]: the row assigned to column j (1-based; 0: none)
    way = np.zeros(n + 1, dtype=np.int64)
    for i in range(1, n + 1):
        p[0], j0 = i, 0
        minv = np.full(n + 1, np.inf)
        used = np.zeros(n + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            free = ~used
            free[0] = False
            cur = cost[i0 - 1, :] - u[i0] - v[1:]
            better = free[1:] & (cur < minv[1:])
            minv[1:][better] = cur[better]
            way[1:][better] = j0
            masked = np.where(free, minv, np.inf)
            j1 = int(np.argmin(masked))
            delta = masked[j1]
            u[p[used]] += delta
            v[used] -= delta
            minv[free] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    return float(sum(w[p[j] - 1, j - 1] for j in range(1, n + 1)))


@dataclass
class Torus2D:
    """The k x k torus and each protocol's share of every flow on every channel (a channel:
    a directed switch-to-switch link)."""

    k: int = K
    link_rate_bps: float = 10e9

    @property
    def nodes(self) -> int:
        return self.k * self.k

    def topology(self) -> dict:
        return {"kind": "torus", "dims": [self.k, self.k], "link_rate": f"{self.link_rate_bps / 1e9:g}Gbps"}

    @cached_property
    def channels(self) -> dict[int, tuple[int, int]]:
        """Global link index -> (from node, to node) of every channel: the one torus link a
        one-hop flow between neighbours crosses."""
        pairs = sorted({(s, d) for s in range(self.nodes) for d in np.flatnonzero(pattern("NN", self.k)[s])})
        u = alloc.usage(self.topology(), [s for s, _ in pairs], [d for _, d in pairs], "dest_tag")
        out = {}
        for i, pair in enumerate(pairs):
            links = [
                int(link)
                for link in u.indices[u.indptr[i] : u.indptr[i + 1]]
                if u.link_names[link].startswith("sw") and not u.link_names[link].endswith(":0")
            ]
            assert len(links) == 1, (pair, links)
            out[links[0]] = pair
        return out

    @cached_property
    def capacity_bps(self) -> float:
        """Ideal uniform throughput per node, 2 b B_C / N: B_C = 4k channels cross the
        bisection of a k x k torus (2k links each way)."""
        return 2 * self.link_rate_bps * 4 * self.k / self.nodes

    def shares(self, routing: str) -> np.ndarray:
        """G[s, d, c]: the share of flow s -> d's packets on channel c (channels in the order
        of `channels`)."""
        n = self.nodes
        src, dst = zip(*((s, d) for s in range(n) for d in range(n) if s != d))
        u = alloc.usage(self.topology(), list(src), list(dst), routing)
        column = {link: i for i, link in enumerate(self.channels)}
        g = np.zeros((n, n, len(column)))
        for f, (s, d) in enumerate(zip(src, dst)):
            for link, a in zip(u.indices[u.indptr[f] : u.indptr[f + 1]], u.data[u.indptr[f] : u.indptr[f + 1]]):
                c = column.get(int(link))
                if c is not None:
                    g[s, d, c] += a
        return g

    def translate(self, node: int, by: int) -> int:
        """The node at `node`'s position plus `by`'s (both grid indices)."""
        k = self.k
        return _node(node % k + by % k, node // k + by // k, k)

    def distinct(self, g: np.ndarray) -> list[int]:
        """Channels whose shares are not a translate of another's: a channel out of node 0
        stands for every channel of its direction when every flow's shares translate with it
        (true of RPS, VLB and WLB on a torus); otherwise every channel."""
        index = {pair: i for i, pair in enumerate(self.channels.values())}
        reps = [index[(0, b)] for (a, b) in self.channels.values() if a == 0]
        n = self.nodes
        for t in range(n):
            move = np.array([self.translate(s, t) for s in range(n)])
            for c0 in reps:
                a, b = list(self.channels.values())[c0]
                c = index[(self.translate(a, t), self.translate(b, t))]
                if not np.allclose(g[np.ix_(move, move)][:, :, c], g[:, :, c0]):
                    return list(range(g.shape[2]))
        return reps

    def worst_load(self, g: np.ndarray) -> float:
        """The largest load any permutation puts on a channel. Channels go in order of an
        upper bound (the smaller of the sums of row and column maxima) and stop once the
        bound cannot beat the best found: exact, and most channels are never solved."""
        bound = {c: min(g[:, :, c].max(axis=1).sum(), g[:, :, c].max(axis=0).sum()) for c in self.distinct(g)}
        best = 0.0
        for c in sorted(bound, key=lambda c: -bound[c]):
            if bound[c] <= best + 1e-12:
                break
            best = max(best, max_assignment(g[:, :, c]))
        return best

    def throughput(self, g: np.ndarray, name: str) -> float:
        """The largest injection rate per node under pattern `name` (or the worst case), as a
        fraction of capacity."""
        if name == "WC":
            load = self.worst_load(g)
        else:
            load = float(np.einsum("sd,sdc->c", pattern(name, self.k), g).max())
        return self.link_rate_bps / load / self.capacity_bps


def table(k: int = K) -> dict[str, dict[str, float]]:
    """Fig. 2: throughput / capacity per protocol and pattern."""
    torus = Torus2D(k)
    out = {}
    for routing in PROTOCOLS:
        g = torus.shares(routing)
        out[routing] = {name: torus.throughput(g, name) for name in PATTERNS}
    return out


def markdown(t: dict[str, dict[str, float]], k: int = K) -> list[str]:
    return [
        f"## Fig. 2: throughput of four routing protocols on an {k}-ary 2-cube",
        "",
        "As a fraction of capacity (the ideal throughput under uniform traffic, 2 b B_C / N: one link's rate b on an 8x8 "
        "torus), from the links each protocol's packets cross (`corral.alloc.usage`); WC: the worst permutation. NN: to the four neighbours; UR: uniform "
        "random; BC: bit complement; TP: transpose; TOR: tornado.",
        "",
        "| routing | " + " | ".join(PATTERNS) + " |",
        "|---|" + "---|" * len(PATTERNS),
        *(f"| {r} | " + " | ".join(f"{t[r][p]:.2f}" for p in PATTERNS) + " |" for r in t),
        "",
    ]


def claim_values(t: dict[str, dict[str, float]]) -> dict[str, float]:
    """The quantities of the paper's statements about the table (section 2.2.2)."""
    best = {p: max(t[r][p] for r in t) for p in PATTERNS}
    vlb = list(t["vlb"].values())
    minimal = ("dest_tag", "rps")
    return {
        # "VLB has the same performance across all traffic patterns"
        "vlb_spread": max(vlb) / min(vlb),
        # "no single routing algorithm can achieve optimal throughput across all workloads":
        # the protocol closest to best everywhere, by its largest shortfall
        "best_single_shortfall": min(max(best[p] / t[r][p] for p in PATTERNS) for r in t),
        # minimal routing's "poor worst-case performance" against VLB's guaranteed one
        "vlb_over_minimal_wc": t["vlb"]["WC"] / max(t[r]["WC"] for r in minimal),
        # VLB "hurts average-case throughput": minimal over VLB on uniform random traffic
        "minimal_over_vlb_ur": max(t[r]["UR"] for r in minimal) / t["vlb"]["UR"],
    }
