"""corral.alloc: max-min rates against an LP progressive-filling reference (scipy), Hypothesis
properties, incremental == from scratch, usage from topologies, and input errors."""

import math

import corral.alloc as ca
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from scipy.sparse import csr_matrix


def lp_reference(cap, A, w, prio, dem, headroom=0.0):
    """Progressive filling with an LP per round: maximize t s.t. unfrozen flows get w*t (at most
    their demand) and links stay within capacity; then freeze the flows at their demand or on a
    saturated link. Priority levels in turn on what the previous ones left."""
    n, m = A.shape
    rate = np.zeros(n)
    left = np.asarray(cap, float) * (1 - headroom)
    for p in sorted(set(prio)):
        open_ = [f for f in range(n) if prio[f] == p]
        used = np.zeros(m)
        while open_:
            wa = np.zeros(m)
            for f in open_:
                wa += A[f] * w[f]
            slack = left - used
            # One variable t >= 0; maximize t.
            A_ub = [[x] for x in wa[wa > 0]]
            b_ub = list(np.maximum(slack[wa > 0], 0))
            for f in open_:
                if math.isfinite(dem[f]):
                    A_ub.append([w[f]])
                    b_ub.append(dem[f])
            res = linprog([-1.0], A_ub=A_ub, b_ub=b_ub, bounds=[(0, None)], method="highs")
            t = res.x[0]
            load = used + t * wa
            sat = (wa > 0) & (load >= left - 1e-9 * max(1.0, float(np.max(cap))))
            frozen = [f for f in open_ if (math.isfinite(dem[f]) and w[f] * t >= dem[f] - 1e-12) or np.any(sat & (A[f] > 0))]
            for f in frozen:
                rate[f] = min(w[f] * t, dem[f])
                used += A[f] * rate[f]
            open_ = [f for f in open_ if f not in frozen]
        left = left - used
    return rate


@st.composite
def instances(draw):
    m = draw(st.integers(1, 5))
    n = draw(st.integers(1, 9))
    cap = [draw(st.sampled_from([0.0, 1.0, 2.5, 10.0]) | st.floats(0.5, 12)) for _ in range(m)]
    A = np.zeros((n, m))
    for f in range(n):
        links = draw(st.lists(st.integers(0, m - 1), min_size=1, max_size=m, unique=True))
        for l in links:
            A[f, l] = draw(st.sampled_from([1.0, 0.5, 0.25]) | st.floats(0.05, 1.0))
    w = [draw(st.sampled_from([1.0, 2.0, 0.5]) | st.floats(0.1, 4)) for _ in range(n)]
    prio = [draw(st.sampled_from([0, 0, 0, 1, 2])) for _ in range(n)]
    dem = [draw(st.sampled_from([math.inf, math.inf, 1.0]) | st.floats(0, 6)) for _ in range(n)]
    headroom = draw(st.sampled_from([0.0, 0.05]))
    return np.array(cap), A, np.array(w), np.array(prio), np.array(dem), headroom


@settings(max_examples=150, deadline=None, derandomize=True)
@given(instances())
def test_matches_lp_reference_and_is_max_min(inst):
    cap, A, w, prio, dem, h = inst
    rates, bott = ca.maxmin(cap, csr_matrix(A), weight=w, priority=prio, demand=dem, headroom=h)
    ref = lp_reference(cap, A, w, prio, dem, h)
    tol = 1e-7 * max(1.0, cap.max())
    np.testing.assert_allclose(rates, ref, atol=tol, rtol=1e-7)
    eff = cap * (1 - h)
    assert np.all(A.T @ rates <= eff + tol)  # feasible
    for f in range(len(rates)):
        assert rates[f] <= dem[f] + tol
        if bott[f] == ca.DEMAND:
            assert abs(rates[f] - dem[f]) <= tol
            continue
        l = bott[f]
        assert A[f, l] > 0
        same = (prio == prio[f]) & (A[:, l] > 0)
        upto = (prio <= prio[f]) & (A[:, l] > 0)
        assert A[upto, l] @ rates[upto] >= eff[l] - tol  # saturated by this level and above
        assert rates[f] / w[f] >= np.max(rates[same] / w[same]) - tol  # largest weighted rate


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    instances(),
    st.lists(
        st.tuples(st.sampled_from(["add", "remove", "demand", "cap"]), st.integers(0, 1000), st.floats(0, 8)),
        min_size=1,
        max_size=8,
    ),
)
def test_incremental_equals_from_scratch(inst, ops):
    cap, A, w, prio, dem, h = inst
    al = ca.Allocator(cap, csr_matrix(A), weight=w, priority=prio, demand=dem, headroom=h)
    flows = {i: (np.nonzero(A[i])[0], A[i][A[i] > 0], w[i], int(prio[i]), dem[i]) for i in range(len(w))}
    cap = cap.copy()
    for kind, k, x in ops:
        ids = sorted(flows)
        if kind == "add":
            links = np.array(sorted({k % len(cap), (k // 7) % len(cap)}))
            spec = (links, np.full(len(links), 0.5), 1.0 + (k % 3), k % 2, math.inf if k % 2 else x)
            flows[al.add_flow(*spec)] = spec
        elif kind == "remove" and ids:
            f = ids[k % len(ids)]
            al.remove_flow(f)
            del flows[f]
        elif kind == "demand" and ids:
            f = ids[k % len(ids)]
            al.set_demand(f, x)
            flows[f] = flows[f][:4] + (x,)
        elif kind == "cap":
            cap[k % len(cap)] = x
            al.set_capacity(k % len(cap), x)
        ids, rates, _ = al.state()
        assert list(ids) == sorted(flows)
        if not len(ids):
            continue
        M = np.zeros((len(ids), len(cap)))
        for r, f in enumerate(ids):
            M[r, flows[f][0]] = flows[f][1]
        full, _ = ca.maxmin(
            cap,
            csr_matrix(M),
            weight=[flows[f][2] for f in ids],
            priority=[flows[f][3] for f in ids],
            demand=[flows[f][4] for f in ids],
            headroom=h,
        )
        np.testing.assert_allclose(rates, full, atol=1e-9 * max(1.0, cap.max()), rtol=1e-9)


def test_torus_rps_usage_and_gil_free_solve():
    u = ca.usage({"kind": "torus", "dims": [5, 5], "link_rate": "10Gbps"}, src=[0, 0], dst=[6, 7], routing="rps")
    assert len(u.capacity) == 2 * (25 + 50) and np.all(u.capacity == 1e10)
    # h0 -> h6: 2 host links at 1 + 4 torus links at 1/2; h0 -> h7 (2,1): 3 paths.
    assert sorted(u.data[u.indptr[0] : u.indptr[1]]) == [0.5] * 4 + [1.0] * 2
    first = [u.data[k] for k in range(u.indptr[1], u.indptr[2]) if u.link_names[u.indices[k]].startswith("sw0:")]
    assert sorted(first) == pytest.approx([1 / 3, 2 / 3])
    rates, bott = ca.maxmin(u.capacity, u.matrix)
    # Both share h0's uplink.
    assert rates == pytest.approx([5e9, 5e9])
    assert u.link_names[bott[0]] == "h0:0"


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"^capacity\[1\]: must be finite and >= 0"):
        ca.maxmin([1.0, -2.0], ([0, 1], [0], [1.0]))
    with pytest.raises(ValueError, match=r"usage: has 3 columns but capacity has 2 links"):
        ca.maxmin([1.0, 1.0], csr_matrix(np.ones((1, 3))))
    with pytest.raises(ValueError, match=r"weight: has 2 entries but there are 1 flows"):
        ca.maxmin([1.0], ([0, 1], [0], [1.0]), weight=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"flows\[0\].weight: must be a positive"):
        ca.maxmin([1.0], ([0, 1], [0], [1.0]), weight=[0.0])
    with pytest.raises(ValueError, match=r"^headroom: must be in \[0, 1\)"):
        ca.maxmin([1.0], ([0, 1], [0], [1.0]), headroom=1.5)
    with pytest.raises(ValueError, match=r"unknown routing \"rsp\"; did you mean \"rps\"\?"):
        ca.usage({"kind": "torus", "dims": [3, 3], "link_rate": "1Gbps"}, [0], [1], routing="rsp")
    with pytest.raises(ValueError, match=r"dst\[0\]: host 99 out of range"):
        ca.usage({"kind": "torus", "dims": [3, 3], "link_rate": "1Gbps"}, [0], [99])
    with pytest.raises(ValueError, match=r"topology.dims\[0\]"):
        ca.usage({"kind": "torus", "dims": [1, 3], "link_rate": "1Gbps"}, [0], [1])
    al = ca.Allocator([1.0])
    with pytest.raises(ValueError, match=r"no live flow with id 3"):
        al.remove_flow(3)
    for bad in (300, -1, 1.5):
        with pytest.raises(ValueError, match=r"^priority: expected an integer in 0\.\.255"):
            al.add_flow([0], priority=bad)
    with pytest.raises(ValueError, match=r"^priority: entries must be in 0\.\.255"):
        ca.maxmin([1.0], ([0, 1], [0], [1.0]), priority=[300])


def test_duplicates_sum_and_zeros_drop_for_every_usage_input():
    """One rule for scipy, the (indptr, indices, data) tuple and add_flow: a link given twice
    uses the sum of its fractions, and a stored zero is as if absent. The caller's matrix is
    left as it was."""
    cap = [1.0, 1.0]
    # Flow 0 uses link 0 at 0.25 + 0.25 and link 1 at 0 (stored); flow 1 uses link 0 at 1.
    ip, ix, data = [0, 3, 4], [0, 0, 1], [0.25, 0.25, 0.0]
    ix, data = ix + [0], data + [1.0]
    m = csr_matrix((np.array(data), np.array(ix), np.array(ip)), shape=(2, 2))
    before = (m.indptr.copy(), m.indices.copy(), m.data.copy())
    want, want_b = ca.maxmin(cap, ([0, 1, 2], [0, 0], [0.5, 1.0]))
    for usage in (m, (ip, ix, data)):
        rates, b = ca.maxmin(cap, usage)
        np.testing.assert_allclose(rates, want)
        np.testing.assert_array_equal(b, want_b)
    assert all(np.array_equal(x, y) for x, y in zip(before, (m.indptr, m.indices, m.data)))
    al = ca.Allocator(cap)
    al.add_flow([0, 0, 1], [0.25, 0.25, 0.0])
    al.add_flow([0])
    np.testing.assert_allclose(al.rates, want)
    with pytest.raises(ValueError, match=r"fraction must be positive and finite, got -0.5"):
        al.add_flow([0, 0], [0.5, -0.5])


def test_removed_flow_ids_are_reused():
    al = ca.Allocator([1.0])
    a, b = al.add_flow([0]), al.add_flow([0])
    al.remove_flow(a)
    assert al.add_flow([0]) == a and a != b


FLUID = """
name = "fluid"
mode = "fluid"
duration = "40ms"
[topology]
kind = "fat_tree"
k = 4
link_rate = "10Gbps"
[[flows]]
pattern = "permutation"
size = "10MB"
"""


def test_fluid_mode_runs_through_the_python_api(tmp_path):
    import corral

    r = corral.run(FLUID)
    assert r.summary["mode"] == "fluid"
    assert r.flows.height == 16 and r.flows["fct_s"].null_count() == 0
    # A flow alone on its path: 10 MB at the 10 Gbps payload rate (1460 of 1500 bytes).
    assert r.flows["fct_s"].min() == pytest.approx(10e6 * 8 / (10e9 * 1460 / 1500), rel=1e-9)
    assert r.throughput.height > 0 and r.queues.height == 0 and r.drops.height == 0
    # Delivered bytes in the series add up to the flow sizes.
    assert r.throughput["bytes"].sum() == pytest.approx(16 * 10e6, abs=16 * 2)
    r.write(tmp_path / "run")
    assert (tmp_path / "run" / "flows.parquet").exists()


def test_fluid_mode_sums_traffic_flows_per_class():
    import corral

    r = corral.run(
        FLUID.replace(
            '[[flows]]\npattern = "permutation"\nsize = "10MB"',
            '[[traffic]]\npattern = "all_to_all"\nsize = "50KB"\nload = 0.3\nclass = "web"',
        ).replace('duration = "40ms"', 'duration = "5ms"')
    )
    tc = r.throughput_class
    assert set(tc["class"].unique()) == {"web", "*"}
    # Traffic flows have no per-flow rows; their bytes are in the class series.
    assert r.throughput.height == 0
    delivered = r.flows["bytes_delivered"].sum()
    assert abs(tc.filter(tc["class"] == "*")["bytes"].sum() - delivered) < r.flows.height


def test_bad_mode_names_the_key():
    import corral

    with pytest.raises(corral.ScenarioError, match=r"mode"):
        corral.run(FLUID.replace('mode = "fluid"', 'mode = "flow"'))


def _torus_usage(n=60):
    rng = np.random.default_rng(3)
    src = rng.integers(0, 27, n)
    dst = (src + 1 + rng.integers(0, 26, n)) % 27
    return ca.usage({"kind": "torus", "dims": [3, 3, 3], "link_rate": "10Gbps"}, src, dst, routing="rps")


def test_scipy_int32_indices_and_converted_arrays_give_the_same_rates():
    u = _torus_usage()
    want, wb = ca.maxmin(u.capacity, u.csr)  # int64 indptr and indices
    m = u.matrix
    assert m.indices.dtype == np.int32 and m.indptr.dtype == np.int32  # scipy's own choice
    w = np.linspace(0.5, 2.0, len(u.indptr) - 1)
    for usage in [
        m,
        (m.indptr, m.indices, m.data),  # int32 arrays as a tuple
        (u.indptr.astype(np.int32), u.indices, u.data),  # mixed widths
        (u.indptr.tolist(), u.indices.tolist(), u.data.tolist()),  # lists
        (u.indptr.astype(">i8"), u.indices.astype(">i4"), u.data.astype(">f8")),  # big-endian
        (u.indptr.astype(np.uint16), u.indices.astype(np.uint16), u.data.astype(np.float32).astype(np.float64)),
        # Strided (non-contiguous) views of the same values.
        (np.repeat(u.indptr, 2)[::2], np.repeat(u.indices, 3)[1::3], np.stack([u.data, -u.data], 1)[:, 0]),
    ]:
        rates, bott = ca.maxmin(np.repeat(u.capacity, 2)[::2], usage)
        np.testing.assert_array_equal(rates, want)
        np.testing.assert_array_equal(bott, wb)
        rates, _ = ca.maxmin(u.capacity, usage, weight=w[::-1].copy()[::-1])
        np.testing.assert_array_equal(rates, ca.maxmin(u.capacity, u.csr, weight=w)[0])
    al = ca.Allocator(u.capacity, m)
    np.testing.assert_array_equal(al.rates, want)


def test_bad_indices_name_the_argument_whatever_their_width():
    for dt in (np.int32, np.int64):
        with pytest.raises(ValueError, match=r"^usage.indices\[1\]: link index must be >= 0, got -1"):
            ca.maxmin([1.0, 1.0], (np.array([0, 1, 2], dt), np.array([0, -1], dt), [1.0, 1.0]))
        with pytest.raises(ValueError, match=r"^flows\[1\].usage\[0\]: link 2 out of range: there are 2 links"):
            ca.maxmin([1.0, 1.0], (np.array([0, 1, 2], dt), np.array([0, 2], dt), [1.0, 1.0]))
        with pytest.raises(ValueError, match=r"^usage.indptr: entries must be >= 0, got -1"):
            ca.Allocator([1.0, 1.0], (np.array([0, -1, 2], dt), np.array([0, 1], dt), [1.0, 1.0]))
        with pytest.raises(ValueError, match=r"^usage.indptr: must start at 0"):
            ca.Allocator([1.0, 1.0], (np.array([0, 1, 3], dt), np.array([0, 1], dt), [1.0, 1.0]))
    with pytest.raises(ValueError, match=r"^usage.indices: expected integers, got float64"):
        ca.maxmin([1.0], ([0, 1], [0.0], [1.0]))
    with pytest.raises(ValueError, match=r"^usage.data: expected a 1-D array"):
        ca.maxmin([1.0], ([0, 1], [0], [[1.0]]))
    with pytest.raises(ValueError, match=r"^flows\[0\].usage\[0\]: fraction must be positive and finite, got NaN"):
        ca.maxmin([1.0], ([0, 1], [0], [np.nan]))


def test_results_are_writable_arrays_of_their_own():
    u = _torus_usage(8)
    for a in (u.indptr, u.indices, u.data, u.capacity):
        assert a.flags.writeable and a.flags.c_contiguous
    assert u.indices.dtype == np.int64 and u.data.dtype == np.float64
    rates, bott = ca.maxmin(u.capacity, u.csr)
    assert rates.dtype == np.float64 and bott.dtype == np.int64
    assert rates.flags.writeable and bott.flags.writeable
    again, _ = ca.maxmin(u.capacity, u.csr)
    rates[:] = -1.0
    bott[:] = 7
    assert np.all(again > 0)  # each call's arrays are its own
    al = ca.Allocator(u.capacity, u.csr)
    ids, r, b = al.state()
    np.testing.assert_array_equal(r, again)
    for a in (ids, r, b):
        assert a.flags.writeable
    r[:] = 0.0
    np.testing.assert_array_equal(al.rates, again)  # the allocator's state is not shared
