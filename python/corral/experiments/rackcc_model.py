"""RackCC's analytical model of Fast Start against TCP slow start (section 4.1, Fig. 2): a
closed-form calculator, no packet simulation.

A new subflow of `size` bytes joins a JumboFlow whose `existing` subflows carry B, drawn
from an exponential distribution; its fair share is R = min(B / (existing + 1), nic). Both
transports first spend one RTT on the connection handshake.

- TCP doubles its window each RTT from `initial_window` bytes until its rate w / RTT reaches
  R, then sends at R.
- RackCC learns R after L RTTs (the handshake's included: L = 1 is "the fair share comes
  back with the SYN-ACK"), then sends at R.

A completion time is the time the last byte leaves at the model's rates (a fluid model: the
rate of a round is constant within it). The speedup is the mean over draws of B of
T_TCP / T_RackCC, the "average speedup of a new flow" of the paper's caption.

The paper names the distribution's family (B "from an exponential distribution from previous
measurements"), not its parameters, nor its RTT or NIC. The reproduction fits one parameter,
B's mean, to one of the paper's two numbers (3.2x at L = 1 for short flows, `fit_mean_b`) and
judges the other (1.3x at L = 3) and the trends on the fitted model: the RTT is the paper's
"around 60 us", the initial window its 6 KB, the NIC ours (40 Gbps; a 10 Gbps NIC cannot give
3.2x for 64 KB whatever B is). `calibrated` is the model on a simulated network's own numbers
instead (B's mean the throughput a JumboFlow carried in the packet-level Fig. 3 runs, the NIC
their host link), for the sensitivity rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ModelParams:
    rtt_s: float = 60e-6
    initial_window_bytes: float = 6e3
    mean_b_bps: float = 80e9
    nic_bps: float = 40e9
    draws: int = 20_000
    seed: int = 1


def fit_mean_b(target: float, size_bytes: float, rtts_to_learn: int, nic_bps: float, existing: int = 1) -> ModelParams:
    """The model whose speedup for (`size_bytes`, `existing`, `rtts_to_learn`) is `target`:
    B's mean found by bisection (on a log scale, to 1e-9 relative) at the given NIC. The
    speedup grows with B's mean up to the NIC's ceiling; a target above it raises ValueError."""

    def at(mean: float) -> float:
        return speedup(size_bytes, existing, rtts_to_learn, ModelParams(mean_b_bps=mean, nic_bps=nic_bps))

    lo, hi = 1e6, 1e16
    if at(hi) < target:
        raise ValueError(f"a {nic_bps / 1e9:g} Gbps NIC caps the speedup at {at(hi):.3f}x, below {target}x")
    while hi / lo > 1 + 1e-9:
        mid = (lo * hi) ** 0.5
        lo, hi = (mid, hi) if at(mid) < target else (lo, mid)
    return ModelParams(mean_b_bps=hi, nic_bps=nic_bps)


def calibrated(mean_b_bps: float, nic_bps: float) -> ModelParams:
    """The model on a network's own numbers: B's mean and the NIC measured or set there, the
    paper's RTT and initial window."""
    return ModelParams(mean_b_bps=mean_b_bps, nic_bps=nic_bps)


def tcp_time(size_bits: np.ndarray | float, rate: np.ndarray, rtt: float, w0_bits: float) -> np.ndarray:
    """Slow start then the fair share, after a one-RTT handshake (vectorized over `rate`)."""
    rate = np.asarray(rate, dtype=float)
    left = np.broadcast_to(np.asarray(size_bits, dtype=float), rate.shape).copy()
    t = np.full(rate.shape, rtt)
    done = np.zeros(rate.shape, dtype=bool)
    window = w0_bits
    while not done.all():
        r = np.minimum(window / rtt, rate)
        last = ~done & ((left <= r * rtt) | (r >= rate))
        t[last] += left[last] / r[last]
        going = ~done & ~last
        left[going] -= r[going] * rtt
        t[going] += rtt
        done |= last
        window *= 2
    return t


def rackcc_time(size_bits: float, rate: np.ndarray, rtt: float, rtts_to_learn: int) -> np.ndarray:
    return rtts_to_learn * rtt + size_bits / rate


def speedup(size_bytes: float, existing: int, rtts_to_learn: int, p: ModelParams = ModelParams()) -> float:
    """Mean T_TCP / T_RackCC over draws of B for one configuration."""
    rng = np.random.default_rng(p.seed)
    b = rng.exponential(p.mean_b_bps, p.draws)
    b = b[b > 0]
    rate = np.minimum(b / (existing + 1), p.nic_bps)
    bits = size_bytes * 8.0
    ratio = tcp_time(bits, rate, p.rtt_s, p.initial_window_bytes * 8.0) / rackcc_time(bits, rate, p.rtt_s, rtts_to_learn)
    return float(ratio.mean())


def table(
    sizes: list[float],
    existing: list[int],
    rtts: list[int],
    default_existing: int = 1,
    default_size: float = 64e3,
    p: ModelParams = ModelParams(),
) -> list[dict]:
    """Fig. 2's two sweeps: speedup against size (at `default_existing`) and against the
    number of existing subflows (at `default_size`), for each L."""
    rows = [
        {"sweep": "size", "size_bytes": s, "existing": default_existing, "L": L, "speedup": speedup(s, default_existing, L, p)}
        for L in rtts
        for s in sizes
    ]
    rows += [
        {"sweep": "existing", "size_bytes": default_size, "existing": n, "L": L, "speedup": speedup(default_size, n, L, p)}
        for L in rtts
        for n in existing
    ]
    return rows
