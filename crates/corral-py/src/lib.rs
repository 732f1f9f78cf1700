//! `corral._core`: the thin PyO3 layer over the corral engine. It loads scenarios, advances
//! runs with the GIL released, and hands result tables to Python column by column: numbers
//! as little-endian byte buffers (with a validity byte per row where a value may be missing),
//! text as lists or as distinct values plus row codes (`corral.tables` turns them into
//! polars columns). Core errors become `ScenarioError`; a panic inside the engine becomes
//! `SimulationError`, never a Python-level panic.

mod alloc;
mod buffers;

use corral::metrics::{Column, Table};
use corral::run::Run;
use corral::units::Time;
use corral::workload::trace::Cell;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "The scenario is invalid; the message names the key."
);
create_exception!(_core, SimulationError, PyRuntimeError, "The simulation failed while running.");

thread_local! {
    /// Where the last panic on this thread happened, kept by the quiet hook.
    static PANIC_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Replaces the default panic hook (which prints a message and a backtrace on stderr) with
/// one that only remembers the location: the panic reaches Python as a `SimulationError`
/// naming it. With RUST_BACKTRACE set, the default hook stays, for debugging. The hook is
/// this module's own: other Rust extensions have their own standard library.
fn quiet_panics() {
    if std::env::var_os("RUST_BACKTRACE").is_none() {
        std::panic::set_hook(Box::new(|info| {
            let at = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
            PANIC_AT.with(|p| *p.borrow_mut() = at);
        }));
    }
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    let msg = p
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into());
    match PANIC_AT.with(|p| p.borrow_mut().take()) {
        Some(at) => format!("{msg} (at {at}; please report it)"),
        None => msg,
    }
}

/// Runs `f`, turning a panic into a `SimulationError`.
fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        SimulationError::new_err(format!("internal error while {what}: {}", panic_message(p)))
    })
}

#[pyclass(module = "corral._core")]
struct Simulation {
    inner: Run,
    #[pyo3(get)]
    name: String,
    #[pyo3(get)]
    seed: u64,
    #[pyo3(get)]
    duration_ps: u64,
    #[pyo3(get)]
    scenario_json: String,
}

/// A Parquet flow list's cells as Python passes them: (header, rows).
type TraceCells = (Vec<String>, Vec<Vec<PyCell>>);

/// One cell of a Parquet flow list as its column types it: None, an int, a float or text
/// (anything else, a bool or an int past 64 bits, as its text).
struct PyCell(Cell);

impl<'py> FromPyObject<'py> for PyCell {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        use pyo3::types::{PyBool, PyFloat, PyInt, PyString};
        Ok(PyCell(if ob.is_none() {
            Cell::Null
        } else if ob.is_instance_of::<PyBool>() {
            Cell::Text(ob.str()?.to_string())
        } else if ob.is_instance_of::<PyInt>() {
            ob.extract::<i64>()
                .map(Cell::Int)
                .or_else(|_| ob.str().map(|s| Cell::Text(s.to_string())))?
        } else if ob.is_instance_of::<PyFloat>() {
            Cell::Float(ob.extract::<f64>()?)
        } else if ob.is_instance_of::<PyString>() {
            Cell::Text(ob.extract::<String>()?)
        } else {
            Cell::Text(ob.str()?.to_string())
        }))
    }
}

#[pymethods]
impl Simulation {
    /// Loads and builds a scenario. `max_memory` (a size like "4GB", or bytes) caps the
    /// memory the run may need (default: half of this machine's).
    /// `traces` are the cells of Parquet flow lists (`parquet_traces`): {block: (header, rows)}.
    #[new]
    #[pyo3(signature = (scenario_toml, overrides = Vec::new(), source = "<string>".to_string(), max_memory = None, traces = None))]
    fn new(
        scenario_toml: &str,
        overrides: Vec<String>,
        source: String,
        max_memory: Option<String>,
        traces: Option<BTreeMap<usize, TraceCells>>,
    ) -> PyResult<Self> {
        let limit = max_memory.as_deref().map(parse_memory_limit).transpose()?;
        let built = guarded("loading the scenario", || -> corral::Result<_> {
            let mut sc = corral::scenario::load(scenario_toml, &overrides, &source)?;
            sc.memory_limit = limit;
            for (i, (names, rows)) in traces.unwrap_or_default() {
                if let Some(block) = sc.traffic.get_mut(i) {
                    let rows =
                        rows.into_iter().map(|r| r.into_iter().map(|c| c.0).collect()).collect();
                    block.cells = Some(std::sync::Arc::new(corral::workload::spec::TraceCells {
                        names,
                        rows,
                    }));
                }
            }
            let json = serde_json::to_string(&sc).unwrap_or_default();
            Ok((Run::new(sc)?, json))
        })?;
        let (inner, scenario_json) = built.map_err(|e| ScenarioError::new_err(e.to_string()))?;
        let sc = inner.scenario();
        Ok(Simulation {
            name: sc.name.clone(),
            seed: sc.seed,
            duration_ps: sc.duration.ps(),
            scenario_json,
            inner,
        })
    }

    #[getter]
    fn now_ps(&self) -> u64 {
        self.inner.reached().ps()
    }

    #[getter]
    fn finished(&self) -> bool {
        self.inner.is_finished()
    }

    #[getter]
    fn events(&self) -> u64 {
        self.inner.events_processed()
    }

    /// The run's estimated peak memory as [(key, what, bytes)], largest first: the
    /// `corral run` process without plots (see `corral.api.memory_estimate`).
    #[getter]
    fn memory_parts(&self) -> Vec<(String, String, u64)> {
        self.inner.work().parts.iter().map(|p| (p.key.clone(), p.what.clone(), p.bytes)).collect()
    }

    /// The memory limit the run was checked against, in bytes (`max_memory`, or half of this
    /// machine's memory).
    #[getter]
    fn memory_limit(&self) -> u64 {
        corral::scenario::budget::limit_or_default(self.inner.scenario().memory_limit)
    }

    /// "packet" or "fluid".
    #[getter]
    fn mode(&self) -> &'static str {
        match self.inner {
            Run::Packet(_) => "packet",
            Run::Fluid(_) => "fluid",
        }
    }

    /// The events the run is expected to process (an estimate, for warning of long runs).
    #[getter]
    fn estimated_events(&self) -> u64 {
        self.inner.work().events
    }

    /// Advances the run to simulated time `t_ps` (capped at the duration), without the GIL.
    fn run_until(&mut self, py: Python<'_>, t_ps: u64) -> PyResult<()> {
        let inner = &mut self.inner;
        py.allow_threads(|| guarded("running", || inner.run_until(Time::from_ps(t_ps))))
    }

    /// The built run as JSON for `corral emulate` (nodes, ports, routes, flows); a scenario
    /// a kernel cannot follow raises ScenarioError naming the key.
    fn emulation_export(&self) -> PyResult<String> {
        let inner = &self.inner;
        let export = guarded("exporting the run", || match inner {
            Run::Packet(sim) => sim.emulation_export(),
            Run::Fluid(_) => Err(corral::error::config_err(
                "mode",
                "corral emulate needs a packet-mode scenario",
            )),
        })?;
        export.map(|v| v.to_string()).map_err(|e| ScenarioError::new_err(e.to_string()))
    }

    /// The output tables as {table: {column: data}} plus "summary" (summary.json) and "timing"
    /// (the wall-clock measurements of the core, for timing.json): dicts; a column's data is
    /// a list (text, booleans), ("int" | "float", values bytes[, validity bytes]) or ("cat",
    /// values list, uint32 row codes bytes).
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let inner = &self.inner;
        let (tables, summary, timing) = guarded("collecting results", || {
            (inner.tables(), inner.summary().to_json().to_string(), inner.timing().to_string())
        })?;
        let out = PyDict::new(py);
        for (name, t) in &tables {
            out.set_item(name, table_to_dict(py, t)?)?;
        }
        let json = py.import("json")?;
        out.set_item("summary", json.call_method1("loads", (summary,))?)?;
        out.set_item("timing", json.call_method1("loads", (timing,))?)?;
        Ok(out)
    }
}

/// A memory limit as `--max-memory` takes it: bytes, or a size such as "8GB"; a
/// `ScenarioError` naming `--max-memory` otherwise (every command checks it this way before
/// it plans anything).
#[pyfunction]
fn parse_memory_limit(text: &str) -> PyResult<u64> {
    let s = text.trim();
    s.parse::<u64>()
        .map(corral::units::Bytes)
        .or_else(|_| corral::units::parse_bytes(s))
        .map(|b| b.0)
        .map_err(|e| ScenarioError::new_err(format!("--max-memory: {e}")))
}

/// The `[[traffic]]` blocks of a scenario (with overrides) whose flow list is a Parquet
/// file: [(block, path)], for the Python layer to read.
#[pyfunction]
#[pyo3(signature = (scenario_toml, overrides = Vec::new(), source = "<string>".to_string()))]
fn parquet_traces(
    scenario_toml: &str,
    overrides: Vec<String>,
    source: String,
) -> PyResult<Vec<(usize, String)>> {
    let sc = guarded("loading the scenario", || {
        corral::scenario::load(scenario_toml, &overrides, &source)
    })?
    .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    Ok(corral::scenario::parquet_traces(&sc)
        .into_iter()
        .map(|(i, p)| (i, p.display().to_string()))
        .collect())
}

/// The first key or type error of a scenario's TOML (`corral::scenario::load::type_check`),
/// or None: the values are not checked against each other.
#[pyfunction]
fn type_error(scenario_toml: &str) -> PyResult<Option<String>> {
    guarded("checking the scenario's keys", || {
        corral::scenario::load::type_check(scenario_toml).err().map(|e| e.to_string())
    })
}

/// Every scheme's settings at their defaults, as JSON: {kind: {key: value}} (durations as
/// "<n>ps"; an unset optional setting is null).
#[pyfunction]
fn scheme_defaults() -> String {
    serde_json::Value::Object(
        corral::schemes::defaults().into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    )
    .to_string()
}

/// Every list of kinds a scenario may name, each from its one declaration in the core:
/// {"queues", "controllers", "schemes", "topologies", "routings"} -> names.
#[pyfunction]
fn kinds() -> BTreeMap<&'static str, Vec<&'static str>> {
    corral::run::kinds()
}

/// The output schema: {table: [(column, type)]}, type one of "int", "float", "str", "bool".
#[pyfunction]
fn schemas<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (name, cols) in corral::metrics::schema::TABLES {
        let list = PyList::empty(py);
        for (col, ty) in cols.iter() {
            list.append((*col, ty.name()))?;
        }
        out.set_item(*name, list)?;
    }
    Ok(out)
}

/// The fields of summary.json: [(field, JSON type, when present)].
#[pyfunction]
fn summary_fields() -> Vec<(&'static str, &'static str, &'static str)> {
    corral::metrics::outcome::SUMMARY_FIELDS.to_vec()
}

fn table_to_dict<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let valid =
        |v: &mut dyn ExactSizeIterator<Item = bool>| buffers::le_bytes(py, v, |b| [b as u8]);
    for (name, col) in &t.columns {
        let data = match col {
            Column::Int(v) => {
                ("int", buffers::i64_out(py, v.iter().copied())?).into_pyobject(py)?.into_any()
            }
            Column::OptInt(v) => (
                "int",
                buffers::i64_out(py, v.iter().map(|x| x.unwrap_or(0)))?,
                valid(&mut v.iter().map(Option::is_some))?,
            )
                .into_pyobject(py)?
                .into_any(),
            Column::Float(v) => ("float", buffers::f64_out(py, v)?).into_pyobject(py)?.into_any(),
            Column::OptFloat(v) => (
                "float",
                buffers::le_bytes(py, v.iter().map(|x| x.unwrap_or(0.0)), f64::to_le_bytes)?,
                valid(&mut v.iter().map(Option::is_some))?,
            )
                .into_pyobject(py)?
                .into_any(),
            Column::OptBool(v) => PyList::new(py, v)?.into_any(),
            Column::Str(v) => PyList::new(py, v)?.into_any(),
            Column::Cat(names, rows) => (
                "cat",
                PyList::new(py, names)?,
                buffers::le_bytes(py, rows.iter().copied(), u32::to_le_bytes)?,
            )
                .into_pyobject(py)?
                .into_any(),
        };
        d.set_item(*name, data)?;
    }
    Ok(d)
}

#[pyfunction]
fn version() -> &'static str {
    corral::VERSION
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    quiet_panics();
    m.add_class::<Simulation>()?;
    alloc::register(m)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(schemas, m)?)?;
    m.add_function(wrap_pyfunction!(summary_fields, m)?)?;
    m.add_function(wrap_pyfunction!(kinds, m)?)?;
    m.add_function(wrap_pyfunction!(parquet_traces, m)?)?;
    m.add_function(wrap_pyfunction!(parse_memory_limit, m)?)?;
    m.add_function(wrap_pyfunction!(type_error, m)?)?;
    m.add_function(wrap_pyfunction!(scheme_defaults, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    Ok(())
}
