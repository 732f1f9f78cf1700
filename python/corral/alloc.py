"""Max-min fair rate allocation (`corral::alloc`), for rate controllers and analyses.

Weighted water-filling per R2C2 (SIGCOMM 2015) section 3.3: each flow has a weight, a
priority (0 first; a level gets what higher levels left), an optional demand cap and per-link
usage fractions (a flow sprayed over two paths uses each of their links with fraction 1/2);
a headroom fraction of every link is kept free. The problem is built and solved natively with
the GIL released.

    >>> import numpy as np, corral.alloc as ca
    >>> usage = ca.usage({"kind": "torus", "dims": [4, 4], "link_rate": "10Gbps"},
    ...                  src=[0, 1], dst=[5, 5], routing="rps")
    >>> rates, bottleneck = ca.maxmin(usage.capacity, usage.matrix)

`bottleneck[i]` is the index of the saturated link that froze flow i, or -1 when the flow is
at its demand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple, Union

import numpy as np

from . import _core

__all__ = ["maxmin", "Allocator", "usage", "Usage", "DEMAND"]

DEMAND = -1  # bottleneck code of a demand-limited flow


def _f64(x, name: str, n: Optional[int] = None) -> bytes:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {a.shape}")
    if n is not None and a.shape[0] != n:
        raise ValueError(f"{name}: has {a.shape[0]} entries but there are {n} flows")
    return a.astype("<f8", copy=False).tobytes()  # C order: one copy, whatever the strides


def _ints(x, name: str, widths=(8,)) -> Tuple[bytes, int]:
    """Little-endian bytes of a 1-D integer array and their item size: int32 stays int32 where
    4 is in `widths` (scipy's CSR indices), anything else becomes int64."""
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {a.shape}")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"{name}: expected integers, got {a.dtype}")
    if not (a.dtype.kind == "i" and a.dtype.itemsize in widths):
        a = a.astype(np.int64)
    return a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes(), a.dtype.itemsize


def _i64(x, name: str) -> bytes:
    return _ints(x, name)[0]


def _csr(usage, n_links: int) -> Tuple[tuple, int]:
    """(indptr, indices, data, indptr width, indices width) for the native side, and the
    number of flows."""
    if hasattr(usage, "tocsr"):
        m = usage.tocsr()
        if m.shape[1] != n_links:
            raise ValueError(f"usage: has {m.shape[1]} columns but capacity has {n_links} links")
        indptr, indices, data = m.indptr, m.indices, m.data
    else:
        try:
            indptr, indices, data = usage
        except (TypeError, ValueError):
            raise ValueError("usage: expected a scipy.sparse matrix (flows x links) or (indptr, indices, data)") from None
    ip, ipw = _ints(indptr, "usage.indptr", (4, 8))
    ix, ixw = _ints(indices, "usage.indices", (4, 8))
    return (ip, ix, _f64(data, "usage.data"), ipw, ixw), len(ip) // ipw - 1


def _out(b, dtype: str) -> np.ndarray:
    """A writable numpy array over a bytearray from the native side (no copy)."""
    return np.frombuffer(b, dtype=dtype)


def _index(x, name: str, top: int = 2**32 - 1) -> int:
    """A non-negative integer argument (a flow id, a link index, a seed), checked here so that
    a negative or huge one is a ValueError naming it, not a bare OverflowError."""
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or not 0 <= int(x) <= top:
        raise ValueError(f"{name}: expected an integer in 0..{top}, got {x!r}")
    return int(x)


def _opt(weight, priority, demand, n: int):
    w = None if weight is None else _f64(weight, "weight", n)
    if priority is None:
        p = None
    else:
        pa = np.asarray(priority)
        if pa.ndim != 1 or pa.shape[0] != n:
            raise ValueError(f"priority: expected {n} entries, got shape {pa.shape}")
        if pa.size and not (
            np.issubdtype(pa.dtype, np.integer) or (np.issubdtype(pa.dtype, np.floating) and np.all(pa == np.round(pa)))
        ):
            bad = next(i for i, v in enumerate(pa.tolist()) if not (isinstance(v, (int, float)) and float(v).is_integer()))
            raise ValueError(f"priority[{bad}]: expected a whole number in 0..255, got {pa.tolist()[bad]!r}")
        if pa.size and (pa.min() < 0 or pa.max() > 255):
            raise ValueError("priority: entries must be in 0..255")
        p = pa.astype(np.uint8).tobytes()
    d = None if demand is None else _f64(np.where(np.isnan(np.asarray(demand, dtype=float)), np.inf, demand), "demand", n)
    return w, p, d


def maxmin(capacity, usage, weight=None, priority=None, demand=None, headroom: float = 0.0) -> Tuple[np.ndarray, np.ndarray]:
    """Max-min fair rates.

    capacity: (links,) link capacities (any unit; rates come out in it).
    usage: flows x links scipy.sparse matrix of usage fractions, or (indptr, indices, data);
      int32 or int64 indptr and indices are handed over as they are, other integer types as
      int64.
    weight, priority, demand: per flow (defaults 1, 0, none; inf or nan = no demand);
      priority is 0..255.
    One rule for every usage input (scipy, the tuple form, `Allocator.add_flow`): a link given
    twice in a flow uses the sum of its fractions, and a zero fraction is dropped.
    headroom: fraction of every link left unallocated, in [0, 1).
    Returns (rates float64 (flows,), bottleneck int64 (flows,): link index or -1 = demand),
    new writable arrays.
    """
    cap = _f64(capacity, "capacity")
    (ip, ix, dt, ipw, ixw), n = _csr(usage, len(cap) // 8)
    w, p, d = _opt(weight, priority, demand, n)
    r, b = _core.alloc_maxmin(cap, ip, ix, dt, w, p, d, float(headroom), ipw, ixw)
    return _out(r, "<f8"), _out(b, "<i8")


class Allocator:
    """Incremental max-min allocation: add or remove flows, change demands or capacities;
    each update recomputes only the part of the allocation it can change (HCC's incremental
    algorithm) and gives the from-scratch result (to rounding). Flow ids of removed flows are
    reused by later `add_flow` calls."""

    def __init__(self, capacity, usage=None, weight=None, priority=None, demand=None, headroom: float = 0.0):
        cap = _f64(capacity, "capacity")
        if usage is None:
            usage = (np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))
        (ip, ix, dt, ipw, ixw), n = _csr(usage, len(cap) // 8)
        w, p, d = _opt(weight, priority, demand, n)
        self._core = _core.AllocatorCore(cap, ip, ix, dt, w, p, d, float(headroom), ipw, ixw)

    def add_flow(
        self,
        links: Sequence[int],
        fractions: Optional[Sequence[float]] = None,
        weight: float = 1.0,
        priority: int = 0,
        demand: float = float("inf"),
    ) -> int:
        """Adds a flow using `links` with `fractions` (default 1 each); returns its id.

        Ids are small integers: the id of a removed flow is given to the next flow added (the
        most recently freed first), so do not keep an id past `remove_flow`. A link given
        twice uses the sum of its fractions; a zero fraction is dropped.
        """
        links = np.asarray(links, dtype=np.int64)
        fr = np.ones(len(links)) if fractions is None else fractions
        if isinstance(priority, bool) or not isinstance(priority, (int, np.integer)) or not 0 <= priority <= 255:
            raise ValueError(f"priority: expected an integer in 0..255, got {priority!r}")
        return self._core.add_flow(_i64(links, "links"), _f64(fr, "fractions"), float(weight), int(priority), float(demand))

    def remove_flow(self, flow: int) -> None:
        """Removes a live flow; its id will be reused by a later `add_flow`."""
        self._core.remove_flow(_index(flow, "flow"))

    def set_demand(self, flow: int, demand: float) -> None:
        self._core.set_demand(_index(flow, "flow"), float(demand))

    def set_capacity(self, link: int, capacity: float) -> None:
        self._core.set_capacity(_index(link, "link"), float(capacity))

    def state(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(flow ids, rates, bottleneck) of the live flows, ids ascending."""
        i, r, b = self._core.state()
        return _out(i, "<i8"), _out(r, "<f8"), _out(b, "<i8")

    @property
    def rates(self) -> np.ndarray:
        return self.state()[1]


@dataclass
class Usage:
    """Usage fractions derived from a topology and a routing."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    capacity: np.ndarray  # bit/s per directed link
    link_names: list  # "node:port" of the transmitting port

    @property
    def csr(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.indptr, self.indices, self.data

    @property
    def matrix(self):
        """The flows x links scipy.sparse.csr_matrix (needs scipy)."""
        from scipy.sparse import csr_matrix

        return csr_matrix((self.data, self.indices, self.indptr), shape=(len(self.indptr) - 1, len(self.capacity)))


def usage(topology: Union[dict, str], src, dst, routing: str = "rps", direct: float = 1 / 3, seed: int = 1) -> Usage:
    """Usage fractions of flows src[i] -> dst[i] (host indices) on a topology.

    topology: a `[topology]` table as a dict (or JSON text), e.g.
      {"kind": "torus", "dims": [8, 8, 8], "link_rate": "10Gbps"} or {"kind": "fat_tree", "k": 4, ...}.
    routing: the names packets use (docs/guides/routing.md): "static", "ecmp" (the packet
      simulator's per-flow hash with `seed`, flow i = i), "spray" (uniform per hop),
      "flowcell" (Presto-like 64 KiB flowcells: over many cells, as "spray"), "rps"
      (uniform over minimal paths), "dest_tag" (dimension order), "vlb", "wlb" (`direct`
      share on minimal paths, the rest VLB) or "equal_length"; "single" and "spray_per_hop"
      are the older names of "dest_tag" and "spray".
    Links are the topology's directed links, host links included.
    """
    text = topology if isinstance(topology, str) else json.dumps(topology)
    ip, ix, dt, cap, names = _core.alloc_usage(
        text,
        _i64(np.atleast_1d(src), "src"),
        _i64(np.atleast_1d(dst), "dst"),
        routing,
        float(direct),
        _index(seed, "seed", 2**64 - 1),
    )
    return Usage(_out(ip, "<i8"), _out(ix, "<i8"), _out(dt, "<f8"), _out(cap, "<f8"), names)
