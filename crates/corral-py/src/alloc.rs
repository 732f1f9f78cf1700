//! `corral._core` bindings of the max-min allocation library (`corral::alloc`). Arrays cross
//! the boundary as little-endian byte buffers (float64; int64 or, for CSR `indptr` and
//! `indices`, int32 as scipy keeps them; uint8), which the Python wrapper `corral.alloc` makes
//! from numpy arrays with one copy each. The problem is built from those buffers in place and
//! solved with the GIL released; results come back as `bytearray`s, which the wrapper wraps in
//! writable numpy arrays without copying. Invalid input raises `ValueError` naming the
//! argument.

use crate::buffers::{f64_out, i64_out};
use corral::alloc::problem::{CsrArray, CsrIndex};
use corral::alloc::{Allocator, Bottleneck, Problem, ProblemFlow};
use corral::route::usage::UsageBuilder;
use corral::route::Routing;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyByteArray;
use std::marker::PhantomData;

fn err(e: corral::Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A little-endian byte buffer read in place as an array of `T`.
struct Le<'a, T>(&'a [u8], PhantomData<T>);

macro_rules! le_array {
    ($($t:ty => $name:literal),*) => {$(
        impl<'a> Le<'a, $t> {
            fn new(b: &'a [u8], what: &str) -> PyResult<Self> {
                if b.len() % size_of::<$t>() != 0 {
                    return Err(PyValueError::new_err(format!("{what}: buffer is not {}", $name)));
                }
                Ok(Le(b, PhantomData))
            }
        }
        impl CsrArray<$t> for Le<'_, $t> {
            fn len(&self) -> usize {
                self.0.len() / size_of::<$t>()
            }
            #[inline]
            fn get(&self, i: usize) -> $t {
                const N: usize = size_of::<$t>();
                <$t>::from_le_bytes(self.0[i * N..][..N].try_into().unwrap())
            }
            fn range(&self, a: usize, b: usize) -> impl Iterator<Item = $t> + '_ {
                const N: usize = size_of::<$t>();
                self.0[a * N..b * N].chunks_exact(N).map(|c| <$t>::from_le_bytes(c.try_into().unwrap()))
            }
        }
    )*};
}
le_array!(f64 => "float64", i64 => "int64", i32 => "int32");

fn f64s(b: &[u8], what: &str) -> PyResult<Vec<f64>> {
    let a = Le::<f64>::new(b, what)?;
    Ok((0..a.len()).map(|i| a.get(i)).collect())
}

fn i64s(b: &[u8], what: &str) -> PyResult<Vec<i64>> {
    let a = Le::<i64>::new(b, what)?;
    Ok((0..a.len()).map(|i| a.get(i)).collect())
}

fn links_u32(v: Vec<i64>, what: &str) -> PyResult<Vec<u32>> {
    v.into_iter()
        .enumerate()
        .map(|(i, x)| {
            u32::try_from(x).map_err(|_| {
                PyValueError::new_err(format!("{what}[{i}]: link index must be >= 0, got {x}"))
            })
        })
        .collect()
}

/// The arguments of a problem as handed over by `corral.alloc` (borrowed byte buffers).
struct Csr<'a> {
    capacity: &'a [u8],
    indptr: &'a [u8],
    indices: &'a [u8],
    data: &'a [u8],
    weight: Option<&'a [u8]>,
    priority: Option<&'a [u8]>,
    demand: Option<&'a [u8]>,
    headroom: f64,
    /// Item size in bytes of `indptr` and `indices`: 4 (int32) or 8 (int64).
    indptr_width: u8,
    indices_width: u8,
}

impl Csr<'_> {
    /// Builds and validates the problem, reading every buffer in place (no GIL needed).
    fn problem(&self) -> PyResult<Problem> {
        let (ip, ix) = (self.indptr, self.indices);
        match (self.indptr_width, self.indices_width) {
            (8, 8) => self
                .build(&Le::<i64>::new(ip, "usage.indptr")?, &Le::<i64>::new(ix, "usage.indices")?),
            (8, 4) => self
                .build(&Le::<i64>::new(ip, "usage.indptr")?, &Le::<i32>::new(ix, "usage.indices")?),
            (4, 8) => self
                .build(&Le::<i32>::new(ip, "usage.indptr")?, &Le::<i64>::new(ix, "usage.indices")?),
            (4, 4) => self
                .build(&Le::<i32>::new(ip, "usage.indptr")?, &Le::<i32>::new(ix, "usage.indices")?),
            (a, b) => Err(PyValueError::new_err(format!(
                "usage: index widths must be 4 or 8 bytes, got {a} (indptr) and {b} (indices)"
            ))),
        }
    }

    fn build<P: CsrIndex, I: CsrIndex>(
        &self,
        indptr: &impl CsrArray<P>,
        indices: &impl CsrArray<I>,
    ) -> PyResult<Problem> {
        let cap = f64s(self.capacity, "capacity")?;
        let data = Le::<f64>::new(self.data, "usage.data")?;
        let w = self.weight.map(|b| Le::<f64>::new(b, "weight")).transpose()?;
        let dm = self.demand.map(|b| Le::<f64>::new(b, "demand")).transpose()?;
        let (w, dm) = (
            w.as_ref().map(|a| a as &dyn CsrArray<f64>),
            dm.as_ref().map(|a| a as &dyn CsrArray<f64>),
        );
        let pr = self.priority.as_ref().map(|a| a as &dyn CsrArray<u8>);
        Problem::from_csr_arrays(cap, indptr, indices, &data, w, pr, dm, self.headroom).map_err(err)
    }
}

fn bottleneck_codes(b: &[Bottleneck]) -> impl ExactSizeIterator<Item = i64> + '_ {
    b.iter().map(|x| x.code())
}

/// One from-scratch solve: (rates float64, bottleneck int64 with -1 = demand) as bytearrays.
/// The problem is built and solved with the GIL released.
#[pyfunction]
#[pyo3(signature = (capacity, indptr, indices, data, weight=None, priority=None, demand=None, headroom=0.0, indptr_width=8, indices_width=8))]
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
    indptr_width: u8,
    indices_width: u8,
) -> PyResult<(Bound<'py, PyByteArray>, Bound<'py, PyByteArray>)> {
    let csr = Csr {
        capacity,
        indptr,
        indices,
        data,
        weight,
        priority,
        demand,
        headroom,
        indptr_width,
        indices_width,
    };
    let a = py.allow_threads(|| {
        crate::guarded("allocating", || -> PyResult<_> {
            let p = csr.problem()?;
            // `problem` validated it (Problem::from_csr_arrays).
            Ok(corral::alloc::solve_validated(&p))
        })
    })??;
    Ok((f64_out(py, &a.rate)?, i64_out(py, bottleneck_codes(&a.bottleneck))?))
}

/// Usage fractions of flows (src, dst host pairs) on a topology under a routing:
/// (indptr, indices, data as int64/int64/float64 bytearrays, capacities in bit/s as float64
/// bytearray, link names "node:port").
#[pyfunction]
#[pyo3(signature = (topology_json, src, dst, routing, direct=1.0 / 3.0, seed=1))]
#[allow(clippy::type_complexity)]
fn alloc_usage<'py>(
    py: Python<'py>,
    topology_json: &str,
    src: &[u8],
    dst: &[u8],
    routing: &str,
    direct: f64,
    seed: u64,
) -> PyResult<(
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Vec<String>,
)> {
    // Through the scenario's typed tables, so that errors name the key as a scenario's do.
    let value: toml::Value = serde_json::from_str(topology_json)
        .map_err(|e| PyValueError::new_err(format!("topology: {e}")))?;
    let topo: corral::net::topo::TopologyConfig =
        corral::config::typed(value, "topology").map_err(err)?;
    topo.validate().map_err(err)?;
    let routing = Routing::parse(routing, direct).map_err(err)?;
    let (src, dst) = (i64s(src, "src")?, i64s(dst, "dst")?);
    if src.len() != dst.len() {
        return Err(PyValueError::new_err(format!(
            "dst: has {} entries but src has {}",
            dst.len(),
            src.len()
        )));
    }
    let out = py.allow_threads(|| {
        crate::guarded("computing usage", || -> Result<_, String> {
            let t = topo.build();
            let net = corral::net::Network::build(&t, |_| {
                corral::net::queue::QueueDisc::taildrop(corral::units::BufferSize::Packets(1))
            });
            let rt = corral::route::RouteTable::build(&net, true);
            let nh = net.hosts.len() as i64;
            let mut ub = UsageBuilder::new(&net, &rt, seed);
            let (mut ip, mut ix, mut dt) = (vec![0i64], Vec::new(), Vec::new());
            for (i, (&s, &d)) in src.iter().zip(&dst).enumerate() {
                for (key, h) in [("src", s), ("dst", d)] {
                    if h < 0 || h >= nh {
                        return Err(format!(
                            "{key}[{i}]: host {h} out of range: the topology has hosts 0..{}",
                            nh - 1
                        ));
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
            let cap: Vec<f64> = net.ports.iter().map(|p| p.rate().bps() as f64).collect();
            let names: Vec<String> = net
                .ports
                .iter()
                .map(|p| format!("{}:{}", net.nodes[p.node.idx()].name, p.local))
                .collect();
            Ok((ip, ix, dt, cap, names))
        })
    })?;
    let (ip, ix, dt, cap, names) = out.map_err(PyValueError::new_err)?;
    Ok((
        i64_out(py, ip.into_iter())?,
        i64_out(py, ix.into_iter())?,
        f64_out(py, &dt)?,
        f64_out(py, &cap)?,
        names,
    ))
}

/// The incremental allocator (`corral.alloc.Allocator` wraps it).
#[pyclass(module = "corral._core")]
struct AllocatorCore {
    inner: Allocator,
}

#[pymethods]
impl AllocatorCore {
    #[new]
    #[pyo3(signature = (capacity, indptr, indices, data, weight=None, priority=None, demand=None, headroom=0.0, indptr_width=8, indices_width=8))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        capacity: &[u8],
        indptr: &[u8],
        indices: &[u8],
        data: &[u8],
        weight: Option<&[u8]>,
        priority: Option<&[u8]>,
        demand: Option<&[u8]>,
        headroom: f64,
        indptr_width: u8,
        indices_width: u8,
    ) -> PyResult<Self> {
        let csr = Csr {
            capacity,
            indptr,
            indices,
            data,
            weight,
            priority,
            demand,
            headroom,
            indptr_width,
            indices_width,
        };
        let inner = py.allow_threads(|| {
            crate::guarded("allocating", || {
                csr.problem().and_then(|p| Allocator::new(p).map_err(err))
            })
        })??;
        Ok(AllocatorCore { inner })
    }

    #[pyo3(signature = (links, fractions, weight=1.0, priority=0, demand=f64::INFINITY))]
    fn add_flow(
        &mut self,
        py: Python<'_>,
        links: &[u8],
        fractions: &[u8],
        weight: f64,
        priority: u8,
        demand: f64,
    ) -> PyResult<u32> {
        let l = links_u32(i64s(links, "links")?, "links")?;
        let a = f64s(fractions, "fractions")?;
        if l.len() != a.len() {
            return Err(PyValueError::new_err(format!(
                "fractions: has {} entries but links has {}",
                a.len(),
                l.len()
            )));
        }
        let spec = ProblemFlow { weight, priority, demand, usage: l.into_iter().zip(a).collect() };
        let inner = &mut self.inner;
        py.allow_threads(|| crate::guarded("allocating", || inner.add_flow(spec)))?.map_err(err)
    }

    fn remove_flow(&mut self, py: Python<'_>, flow: u32) -> PyResult<()> {
        let inner = &mut self.inner;
        py.allow_threads(|| crate::guarded("allocating", || inner.remove_flow(flow)))?.map_err(err)
    }

    fn set_demand(&mut self, py: Python<'_>, flow: u32, demand: f64) -> PyResult<()> {
        let inner = &mut self.inner;
        py.allow_threads(|| crate::guarded("allocating", || inner.set_demand(flow, demand)))?
            .map_err(err)
    }

    fn set_capacity(&mut self, py: Python<'_>, link: u32, capacity: f64) -> PyResult<()> {
        let inner = &mut self.inner;
        py.allow_threads(|| crate::guarded("allocating", || inner.set_capacity(link, capacity)))?
            .map_err(err)
    }

    /// (flow ids int64, rates float64, bottleneck int64) of the live flows, as bytearrays.
    #[allow(clippy::type_complexity)]
    fn state<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyByteArray>, Bound<'py, PyByteArray>, Bound<'py, PyByteArray>)> {
        let ids = self.inner.flow_ids();
        let a = self.inner.allocation();
        Ok((
            i64_out(py, ids.iter().map(|&f| f as i64))?,
            f64_out(py, &a.rate)?,
            i64_out(py, bottleneck_codes(&a.bottleneck))?,
        ))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(alloc_maxmin, m)?)?;
    m.add_function(wrap_pyfunction!(alloc_usage, m)?)?;
    m.add_class::<AllocatorCore>()
}
