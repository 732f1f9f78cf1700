"""Max-min allocation speed (corral.alloc), run by `python bench/run.py --only alloc`.

8x8x8 3D torus (512 hosts; 3072 directed torus links + 1024 directed host links = 4096
links), 10 Gbps, packet spraying over all minimal paths; 1k, 10k and 100k flows between
uniformly random distinct hosts (fixed seed). Timed, each through the Python API:
  usage    = corral.alloc.usage(...)          (fractions by path counting)
  full     = corral.alloc.maxmin(cap, csr)    (median of repetitions; includes the array
                                               hand-over to the native solver)
  arrival  = Allocator.add_flow(...)          (median over 30 arrivals into the N-flow state)
  departure= Allocator.remove_flow(...)       (median over the same 30 departures)
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

TOPO = {"kind": "torus", "dims": [8, 8, 8], "link_rate": "10Gbps"}


def pairs(n: int, hosts: int, rng) -> tuple[np.ndarray, np.ndarray]:
    s = rng.integers(0, hosts, n)
    d = rng.integers(0, hosts - 1, n)
    d = d + (d >= s)
    return s, d


def bench_alloc(sizes=(1_000, 10_000, 100_000), runs: int = 5) -> list[dict]:
    import corral.alloc as ca

    rng = np.random.default_rng(1)
    out = []
    for n in sizes:
        s, d = pairs(n, 512, rng)
        t = time.perf_counter()
        u = ca.usage(TOPO, s, d, routing="rps")
        usage_s = time.perf_counter() - t
        csr = u.csr
        reps = max(1, runs if n < 100_000 else min(runs, 3))
        full = []
        for _ in range(reps):
            t = time.perf_counter()
            rates, _ = ca.maxmin(u.capacity, csr)
            full.append(time.perf_counter() - t)
        al = ca.Allocator(u.capacity, csr)
        xs, xd = pairs(30, 512, rng)
        extra = ca.usage(TOPO, xs, xd, routing="rps")
        add, rem = [], []
        for i in range(30):
            a, b = extra.indptr[i], extra.indptr[i + 1]
            t = time.perf_counter()
            fid = al.add_flow(extra.indices[a:b], extra.data[a:b])
            add.append(time.perf_counter() - t)
            t = time.perf_counter()
            al.remove_flow(fid)
            rem.append(time.perf_counter() - t)
        r = {
            "flows": n,
            "links": len(u.capacity),
            "nnz": int(len(u.data)),
            "usage_ms": usage_s * 1e3,
            "full_ms": statistics.median(full) * 1e3,
            "all_full_ms": [x * 1e3 for x in full],
            "arrival_ms": statistics.median(add) * 1e3,
            "departure_ms": statistics.median(rem) * 1e3,
            "total_rate_gbps": float(rates.sum() / 1e9),
        }
        print(f"  alloc {n} flows: full {r['full_ms']:.1f} ms, arrival {r['arrival_ms']:.2f} ms", file=sys.stderr, flush=True)
        out.append(r)
    return out


def report(results: list[dict]) -> str:
    lines = ["[alloc] max-min on an 8x8x8 torus (4096 directed links incl. host links), spray over minimal paths"]
    lines.append("  flows    nnz         usage ms   full ms    arrival ms   departure ms")
    for r in results:
        lines.append(
            f"  {r['flows']:<8} {r['nnz']:<11,} {r['usage_ms']:<10.1f} {r['full_ms']:<10.2f} "
            f"{r['arrival_ms']:<12.2f} {r['departure_ms']:.2f}"
        )
    lines.append("  goals: 10k flows full < 20 ms, arrival at 10k < 1 ms (one core)")
    return "\n".join(lines) + "\n"
