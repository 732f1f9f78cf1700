//! `corral._core`: the thin PyO3 layer over the corral engine. It loads scenarios, advances
//! runs with the GIL released, and hands result tables to Python as column lists. Core errors
//! become `ScenarioError`; a panic inside the engine becomes `SimulationError`, never a
//! Python-level panic.

mod alloc;

use corral::metrics::{Column, Table};
use corral::units::Time;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::panic::{catch_unwind, AssertUnwindSafe};

create_exception!(_core, ScenarioError, PyValueError, "The scenario is invalid; the message names the key.");
create_exception!(_core, SimulationError, PyRuntimeError, "The simulation failed while running.");

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_else(|| "unknown panic".into())
}

/// Runs `f`, turning a panic into a `SimulationError`.
fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| SimulationError::new_err(format!("internal error while {what}: {}", panic_message(p))))
}

/// Packet-level or fluid run, by the scenario's `mode`.
enum Engine {
    Packet(Box<corral::Simulation>),
    Fluid(Box<corral::fluid::FluidSim>),
}

impl Engine {
    fn reached(&self) -> Time {
        match self {
            Engine::Packet(s) => s.reached(),
            Engine::Fluid(s) => s.reached(),
        }
    }
    fn is_finished(&self) -> bool {
        match self {
            Engine::Packet(s) => s.is_finished(),
            Engine::Fluid(s) => s.is_finished(),
        }
    }
    fn events_processed(&self) -> u64 {
        match self {
            Engine::Packet(s) => s.events_processed(),
            Engine::Fluid(s) => s.events_processed(),
        }
    }
    fn run_until(&mut self, t: Time) {
        match self {
            Engine::Packet(s) => s.run_until(t),
            Engine::Fluid(s) => s.run_until(t),
        }
    }
}

/// Empty table with the columns of `t`.
fn empty_like(t: Table) -> Table {
    let mut out = Table::default();
    for (name, col) in t.columns {
        let empty = match col {
            Column::Int(_) => Column::Int(vec![]),
            Column::OptInt(_) => Column::OptInt(vec![]),
            Column::Float(_) => Column::Float(vec![]),
            Column::OptFloat(_) => Column::OptFloat(vec![]),
            Column::OptBool(_) => Column::OptBool(vec![]),
            Column::Str(_) => Column::Str(vec![]),
        };
        out = out.with(name, empty);
    }
    out
}

#[pyclass(module = "corral._core")]
struct Simulation {
    inner: Engine,
    #[pyo3(get)]
    name: String,
    #[pyo3(get)]
    seed: u64,
    #[pyo3(get)]
    duration_ps: u64,
    #[pyo3(get)]
    scenario_json: String,
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (scenario_toml, overrides = Vec::new(), source = "<string>".to_string()))]
    fn new(scenario_toml: &str, overrides: Vec<String>, source: String) -> PyResult<Self> {
        let built = guarded("loading the scenario", || -> corral::Result<_> {
            let sc = corral::scenario::load(scenario_toml, &overrides, &source)?;
            let json = serde_json::to_string(&sc).unwrap_or_default();
            let engine = match sc.mode {
                corral::scenario::Mode::Packet => Engine::Packet(Box::new(corral::Simulation::new(sc)?)),
                corral::scenario::Mode::Fluid => Engine::Fluid(Box::new(corral::fluid::FluidSim::new(sc)?)),
            };
            Ok((engine, json))
        })?;
        let (inner, scenario_json) = built.map_err(|e| ScenarioError::new_err(e.to_string()))?;
        let sc = match &inner {
            Engine::Packet(s) => &s.scenario,
            Engine::Fluid(s) => &s.scenario,
        };
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

    /// Advances the run to simulated time `t_ps` (capped at the duration), without the GIL.
    fn run_until(&mut self, py: Python<'_>, t_ps: u64) -> PyResult<()> {
        let inner = &mut self.inner;
        py.allow_threads(|| guarded("running", || inner.run_until(Time::from_ps(t_ps))))
    }

    /// The output tables as {table: {column: list}} plus "summary": dict.
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let inner = &self.inner;
        let (tables, summary) = guarded("collecting results", || match inner {
            Engine::Packet(s) => {
                let tables = vec![
                    ("flows", s.flows_table()),
                    ("throughput", s.throughput_table()),
                    ("queues", s.queues_table()),
                    ("drops", s.drops_table()),
                    ("drop_runs", s.drop_runs_table()),
                    ("ports", s.ports_table()),
                    ("throughput_class", s.throughput_class_table()),
                    ("latency", s.latency_table()),
                ];
                (tables, s.summary().to_string())
            }
            Engine::Fluid(f) => {
                // Queue, drop and port tables keep their columns and stay empty: fluid mode
                // has no packets. Their schemas come from an empty packet-level run.
                let schema = fluid_schemas();
                let tables = vec![
                    ("flows", f.flows_table()),
                    ("throughput", f.throughput_table()),
                    ("queues", schema.0),
                    ("drops", schema.1),
                    ("drop_runs", schema.2),
                    ("ports", schema.3),
                    ("throughput_class", f.throughput_class_table()),
                    ("latency", schema.4),
                ];
                (tables, f.summary().to_string())
            }
        })?;
        let out = PyDict::new(py);
        for (name, t) in &tables {
            out.set_item(name, table_to_dict(py, t)?)?;
        }
        let json = py.import("json")?;
        out.set_item("summary", json.call_method1("loads", (summary,))?)?;
        Ok(out)
    }
}

/// Empty queues, drops, drop_runs, ports and latency tables with the packet-level columns.
fn fluid_schemas() -> (Table, Table, Table, Table, Table) {
    let text = "duration = \"1us\"\n[topology]\nkind = \"dumbbell\"\nsenders = 1\nreceivers = 1\nlink_rate = \"1Gbps\"\n";
    let sim = corral::Simulation::new(corral::scenario::load(text, &[], "schema").expect("schema scenario")).expect("schema scenario");
    (
        empty_like(sim.queues_table()),
        empty_like(sim.drops_table()),
        empty_like(sim.drop_runs_table()),
        empty_like(sim.ports_table()),
        empty_like(sim.latency_table()),
    )
}

fn table_to_dict<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in &t.columns {
        let list = match col {
            Column::Int(v) => PyList::new(py, v)?,
            Column::OptInt(v) => PyList::new(py, v)?,
            Column::Float(v) => PyList::new(py, v)?,
            Column::OptFloat(v) => PyList::new(py, v)?,
            Column::OptBool(v) => PyList::new(py, v)?,
            Column::Str(v) => PyList::new(py, v)?,
        };
        d.set_item(*name, list)?;
    }
    Ok(d)
}

#[pyfunction]
fn version() -> &'static str {
    corral::VERSION
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    alloc::register(m)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    Ok(())
}
