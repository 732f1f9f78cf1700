//! `corral._core` bindings of the max-min allocation library (`corral::alloc`). Arrays cross
//! the boundary as little-endian byte buffers (float64, int64, uint8), which the Python
//! wrapper `corral.alloc` makes from and turns back into numpy arrays; solves run with the
//! GIL released. Invalid input raises `ValueError` naming the argument.

use corral::alloc::usage::{Routing, UsageBuilder};
use corral::alloc::{Allocator, Bottleneck, FlowSpec, Problem};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

fn err(e: corral::Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn f64s(b: &[u8], what: &str) -> PyResult<Vec<f64>> {
    if b.len() % 8 != 0 {
        return Err(PyValueError::new_err(format!("{what}: buffer is not float64")));
    }
    Ok(b.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect())
}

fn i64s(b: &[u8], what: &str) -> PyResult<Vec<i64>> {
    if b.len() % 8 != 0 {
        return Err(PyValueError::new_err(format!("{what}: buffer is not int64")));
    }
    Ok(b.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect())
}

fn to_bytes_f64<'py>(py: Python<'py>, v: &[f64]) -> Bound<'py, PyBytes> {
    let raw: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    PyBytes::new(py, &raw)
}

fn to_bytes_i64<'py>(py: Python<'py>, v: impl Iterator<Item = i64>) -> Bound<'py, PyBytes> {
    let raw: Vec<u8> = v.flat_map(|x| x.to_le_bytes()).collect();
    PyBytes::new(py, &raw)
}

fn links_u32(v: Vec<i64>, what: &str) -> PyResult<Vec<u32>> {
    v.into_iter()
        .enumerate()
        .map(|(i, x)| u32::try_from(x).map_err(|_| PyValueError::new_err(format!("{what}[{i}]: link index must be >= 0, got {x}"))))
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn problem(capacity: &[u8], indptr: &[u8], indices: &[u8], data: &[u8], weight: Option<&[u8]>, priority: Option<&[u8]>, demand: Option<&[u8]>, headroom: f64) -> PyResult<Problem> {
    let cap = f64s(capacity, "capacity")?;
    let ip: Vec<usize> = i64s(indptr, "indptr")?
        .into_iter()
        .map(|x| usize::try_from(x).map_err(|_| PyValueError::new_err(format!("usage.indptr: entries must be >= 0, got {x}"))))
        .collect::<PyResult<_>>()?;
    let ix = links_u32(i64s(indices, "indices")?, "usage.indices")?;
    let d = f64s(data, "data")?;
    let w = weight.map(|b| f64s(b, "weight")).transpose()?;
    let dm = demand.map(|b| f64s(b, "demand")).transpose()?;
    Problem::from_csr(cap, &ip, &ix, &d, w.as_deref(), priority, dm.as_deref(), headroom).map_err(err)
}

fn bottleneck_codes(b: &[Bottleneck]) -> impl Iterator<Item = i64> + '_ {
    b.iter().map(|x| x.code())
}

/// One from-scratch solve: (rates float64 bytes, bottleneck int64 bytes; -1 = demand).
#[pyfunction]
#[pyo3(signature = (capacity, indptr, indices, data, weight=None, priority=None, demand=None, headroom=0.0))]
#[allow(clippy::too_many_arguments)]
fn alloc_maxmin<'py>(
    py: Python<'py>,
    capacity: &[u8],
    indptr: &[u8],
    indices: &[u8],
    data: &[u8],
    weight: Option<&[u8]>,
    priority: Option<&[u8]>,
    demand: Option<&[u8]>,
    headroom: f64,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let p = problem(capacity, indptr, indices, data, weight, priority, demand, headroom)?;
    // `problem` validated it (Problem::from_csr).
    let a = py.allow_threads(|| crate::guarded("allocating", || corral::alloc::solve_validated(&p)))?;
    Ok((to_bytes_f64(py, &a.rate), to_bytes_i64(py, bottleneck_codes(&a.bottleneck))))
}

/// Usage fractions of flows (src, dst host pairs) on a topology under a routing:
/// (indptr, indices, data as int64/int64/float64 bytes, capacities in bit/s as float64 bytes,
/// link names "node:port").
#[pyfunction]
#[pyo3(signature = (topology_json, src, dst, routing, direct=0.5, seed=1))]
#[allow(clippy::type_complexity)]
fn alloc_usage<'py>(
    py: Python<'py>,
    topology_json: &str,
    src: &[u8],
    dst: &[u8],
    routing: &str,
    direct: f64,
    seed: u64,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, Vec<String>)> {
    let topo: corral::net::topo::TopologyConfig =
        serde_json::from_str(topology_json).map_err(|e| PyValueError::new_err(format!("topology: {e}")))?;
    topo.validate().map_err(err)?;
    let routing = Routing::parse(routing, direct).map_err(err)?;
    let (src, dst) = (i64s(src, "src")?, i64s(dst, "dst")?);
    if src.len() != dst.len() {
        return Err(PyValueError::new_err(format!("dst: has {} entries but src has {}", dst.len(), src.len())));
    }
    let out = py.allow_threads(|| {
        crate::guarded("computing usage", || -> Result<_, String> {
            let t = topo.build();
            let net = corral::net::Network::build(&t, |_| corral::net::queue::QueueDisc::taildrop(corral::units::BufferSize::Packets(1)));
            let rt = corral::route::RouteTable::build(&net);
            let nh = net.hosts.len() as i64;
            let mut ub = UsageBuilder::new(&net, &rt, seed);
            let (mut ip, mut ix, mut dt) = (vec![0i64], Vec::new(), Vec::new());
            for (i, (&s, &d)) in src.iter().zip(&dst).enumerate() {
                for (key, h) in [("src", s), ("dst", d)] {
                    if h < 0 || h >= nh {
                        return Err(format!("{key}[{i}]: host {h} out of range: the topology has hosts 0..{}", nh - 1));
                    }
                }
                if s == d {
                    return Err(format!("dst[{i}]: same host as src ({s})"));
                }
                for (l, a) in ub.usage(routing, i as u32, s as u32, d as u32) {
                    ix.push(l as i64);
                    dt.push(a);
                }
                ip.push(ix.len() as i64);
            }
            let cap: Vec<f64> = net.ports.iter().map(|p| p.rate.bps() as f64).collect();
            let names: Vec<String> = net.ports.iter().map(|p| format!("{}:{}", net.nodes[p.node.idx()].name, p.local)).collect();
            Ok((ip, ix, dt, cap, names))
        })
    })?;
    let (ip, ix, dt, cap, names) = out.map_err(PyValueError::new_err)?;
    Ok((to_bytes_i64(py, ip.into_iter()), to_bytes_i64(py, ix.into_iter()), to_bytes_f64(py, &dt), to_bytes_f64(py, &cap), names))
}

/// The incremental allocator (`corral.alloc.Allocator` wraps it).
#[pyclass(module = "corral._core")]
struct AllocatorCore {
    inner: Allocator,
}

#[pymethods]
impl AllocatorCore {
    #[new]
    #[pyo3(signature = (capacity, indptr, indices, data, weight=None, priority=None, demand=None, headroom=0.0))]
    #[allow(clippy::too_many_arguments)]
    fn new(py: Python<'_>, capacity: &[u8], indptr: &[u8], indices: &[u8], data: &[u8], weight: Option<&[u8]>, priority: Option<&[u8]>, demand: Option<&[u8]>, headroom: f64) -> PyResult<Self> {
        let p = problem(capacity, indptr, indices, data, weight, priority, demand, headroom)?;
        let inner = py.allow_threads(|| crate::guarded("allocating", || Allocator::new(p)))?.map_err(err)?;
        Ok(AllocatorCore { inner })
    }

    #[pyo3(signature = (links, fractions, weight=1.0, priority=0, demand=f64::INFINITY))]
    fn add_flow(&mut self, py: Python<'_>, links: &[u8], fractions: &[u8], weight: f64, priority: u8, demand: f64) -> PyResult<u32> {
        let l = links_u32(i64s(links, "links")?, "links")?;
        let a = f64s(fractions, "fractions")?;
        if l.len() != a.len() {
            return Err(PyValueError::new_err(format!("fractions: has {} entries but links has {}", a.len(), l.len())));
        }
        let spec = FlowSpec { weight, priority, demand, usage: l.into_iter().zip(a).collect() };
        let inner = &mut self.inner;
        py.allow_threads(|| crate::guarded("allocating", || inner.add_flow(spec)))?.map_err(err)
    }

    fn remove_flow(&mut self, py: Python<'_>, flow: u32) -> PyResult<()> {
        let inner = &mut self.inner;
        py.allow_threads(|| crate::guarded("allocating", || inner.remove_flow(flow)))?.map_err(err)
    }

    fn set_demand(&mut self, py: Python<'_>, flow: u32, demand: f64) -> PyResult<()> {
        let inner = &mut self.inner;
        py.allow_threads(|| crate::guarded("allocating", || inner.set_demand(flow, demand)))?.map_err(err)
    }

    fn set_capacity(&mut self, py: Python<'_>, link: u32, capacity: f64) -> PyResult<()> {
        let inner = &mut self.inner;
        py.allow_threads(|| crate::guarded("allocating", || inner.set_capacity(link, capacity)))?.map_err(err)
    }

    /// (flow ids int64, rates float64, bottleneck int64) of the live flows, as bytes.
    fn state<'py>(&self, py: Python<'py>) -> (Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>) {
        let ids = self.inner.flow_ids();
        let a = self.inner.allocation();
        (to_bytes_i64(py, ids.iter().map(|&f| f as i64)), to_bytes_f64(py, &a.rate), to_bytes_i64(py, bottleneck_codes(&a.bottleneck)))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(alloc_maxmin, m)?)?;
    m.add_function(wrap_pyfunction!(alloc_usage, m)?)?;
    m.add_class::<AllocatorCore>()
}
