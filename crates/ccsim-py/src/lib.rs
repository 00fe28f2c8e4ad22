//! Python bindings for ccsim-core. The boundary is deliberately thin: one
//! resolved scenario (JSON text) goes in, result tables come out as columns
//! (raw native-endian buffers that Python wraps as numpy arrays without
//! parsing). The GIL is released while the simulation runs. A Rust panic is
//! caught and raised as `ccsim.InternalError`, never an abort.

use ccsim_core::{Column, RunError, SimOutput};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::sync::Arc;

mod gym;
mod pyalgo;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "The scenario is invalid: the message names the field, the value and what is accepted."
);
create_exception!(
    _core,
    RunCancelled,
    PyRuntimeError,
    "The run was stopped through its RunControl (a timeout or an interrupt) before its end."
);
create_exception!(
    _core,
    RunInterrupted,
    pyo3::exceptions::PyBaseException,
    "Raised inside a Python algorithm's hook when its run is cancelled (a timeout, Ctrl-C) while the hook runs; \
     a BaseException, so that `except Exception` in the hook does not keep the run going. The run then raises \
     RunCancelled."
);
create_exception!(
    _core,
    InternalError,
    PyRuntimeError,
    "A bug inside the simulator core (a Rust panic); please report it with the scenario."
);

fn as_bytes<T: Copy>(v: &[T]) -> &[u8] {
    // SAFETY: T is a plain numeric type (f64/u64/i64/u32) with no padding; the
    // slice is reinterpreted as its raw bytes for the lifetime of `v`.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

/// A column's raw bytes as a Python `bytes`; a failed allocation is a
/// Python `MemoryError`, not a panic (`PyBytes::new` would panic on it).
fn py_bytes<'py>(py: Python<'py>, raw: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyBytes::new_with(py, raw.len(), |buf| {
        buf.copy_from_slice(raw);
        Ok(())
    })?
    .into_any())
}

pub(crate) fn to_py<'py>(py: Python<'py>, out: &SimOutput) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let tables = PyDict::new(py);
    for t in &out.tables {
        let cols = PyList::empty(py);
        for (name, c) in &t.columns {
            let (dtype, data): (&str, Bound<'py, PyAny>) = match c {
                Column::F64(v) => ("f8", py_bytes(py, as_bytes(v))?),
                Column::U64(v) => ("u8", py_bytes(py, as_bytes(v))?),
                Column::I64(v) => ("i8", py_bytes(py, as_bytes(v))?),
                // (each row's code, the distinct values): Python looks
                // the rows up, sharing one object per distinct string
                Column::Str(v) => (
                    "str",
                    (py_bytes(py, as_bytes(v.codes()))?, PyList::new(py, v.values())?).into_pyobject(py)?.into_any(),
                ),
            };
            cols.append((name.as_str(), dtype, data))?;
        }
        tables.set_item(t.name.as_str(), cols)?;
    }
    d.set_item("tables", tables)?;
    d.set_item("events", out.events)?;
    d.set_item("sim_time_s", out.sim_time_s)?;
    d.set_item("delivered_data_pkts", out.delivered_data_pkts)?;
    Ok(d)
}

/// `to_py` with its failures as Python exceptions: a failed allocation is
/// `MemoryError`, and any panic while converting is `InternalError`.
pub(crate) fn convert<'py>(py: Python<'py>, out: &SimOutput) -> PyResult<Bound<'py, PyDict>> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| to_py(py, out)))
        .unwrap_or_else(|_| Err(InternalError::new_err("simulator core panicked while converting the results")))
}

/// Run `f` without the GIL; a panic inside becomes `InternalError`.
fn guarded<T: Send, F: FnOnce() -> T + Send + std::panic::UnwindSafe>(py: Python<'_>, f: F) -> PyResult<T> {
    py.detach(move || std::panic::catch_unwind(f)).map_err(|panic| {
        let msg = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        InternalError::new_err(format!("simulator core panicked: {msg}"))
    })
}

/// A handle to watch a run from another thread and stop it: pass it to
/// `run(..., control=c)`, then read `c.sim_time_s()` or call `c.cancel()`
/// while the run holds no GIL.
#[pyclass(name = "RunControl", frozen)]
struct PyRunControl {
    inner: Arc<ccsim_core::RunControl>,
}

#[pymethods]
impl PyRunControl {
    #[new]
    fn new() -> Self {
        PyRunControl { inner: Arc::new(ccsim_core::RunControl::new()) }
    }
    /// Simulated time the run had reached at its latest report, seconds.
    fn sim_time_s(&self) -> f64 {
        self.inner.sim_time_ps() as f64 * 1e-12
    }
    /// Ask the run to stop; it raises RunCancelled within a few
    /// milliseconds. A Python algorithm's hook running at that moment (one
    /// that never returns, say) gets RunCancelled raised inside it, at its
    /// next bytecode (`pyalgo::in_python`).
    fn cancel(&self, py: Python<'_>) {
        self.inner.cancel();
        let id = self.inner.external_thread();
        if id != 0 {
            // SAFETY: the GIL is held (`py`); the thread id is one the run's
            // thread published while inside a hook, and RunInterrupted a type
            // object that lives as long as the module.
            unsafe {
                pyo3::ffi::PyThreadState_SetAsyncExc(
                    id as std::os::raw::c_long,
                    py.get_type::<RunInterrupted>().as_ptr(),
                );
            }
        }
    }
    fn cancelled(&self) -> bool {
        self.inner.is_cancelled()
    }
    /// Stop the run (raising ScenarioError, with the message of
    /// `ccsim.memory.exceeded`) once its recorded tables and the packets
    /// its links hold take more than `bytes` (0: no limit).
    fn set_memory_limit(&self, bytes: u64) {
        self.inner.set_memory_limit(bytes)
    }
}

/// Run one resolved scenario (JSON text). Returns
/// {"tables": {name: [(column, dtype, data), ...]}, "events", "sim_time_s",
/// "delivered_data_pkts"}; numeric data are raw native-endian buffers, a
/// string column's ("str") is (each row's code as native uint32 bytes,
/// the list of distinct values). With `control`, the run publishes its progress there and stops (raising
/// `RunCancelled`) when it is cancelled.
#[pyfunction]
#[pyo3(signature = (scenario_json, control=None))]
fn run<'py>(
    py: Python<'py>,
    scenario_json: &str,
    control: Option<PyRef<'py, PyRunControl>>,
) -> PyResult<Bound<'py, PyDict>> {
    // The text is read in place, not copied (a Python str is immutable and
    // the caller holds it): a million flows' text is about 90 MB.
    // Python algorithms stop the run through a control on an exception,
    // so every run has one (it changes no result).
    let ctl = control.map_or_else(|| Arc::new(ccsim_core::RunControl::new()), |c| Arc::clone(&c.inner));
    let res = pyalgo::with_run(Arc::clone(&ctl), || {
        guarded(py, move || ccsim_core::run_json_controlled(scenario_json, &ctl))
    })?;
    match res {
        Ok(out) => convert(py, &out),
        Err(RunError::Config(e)) => Err(ScenarioError::new_err(e.to_string())),
        Err(RunError::Cancelled(c)) => Err(RunCancelled::new_err(c.to_string())),
        Err(RunError::Memory(m)) => {
            // worded by the same function that refuses a run before it starts
            let rows = PyDict::new(py);
            for (t, r) in &m.rows {
                rows.set_item(*t, *r)?;
            }
            let msg: String =
                py.import("ccsim.memory")?.call_method1("exceeded", (rows, m.limit, m.sim_time_s))?.extract()?;
            Err(ScenarioError::new_err(msg))
        }
    }
}

/// Bytes one row of each table that grows with a run takes
/// (`output::GROWING_TABLES`; "packets_held" is one packet held by a link).
#[pyfunction]
fn growing_tables() -> Vec<(&'static str, u64)> {
    ccsim_core::output::GROWING_TABLES.iter().map(|t| (t.0, ccsim_core::output::row_bytes(t.0))).collect()
}

/// The emulation backend's real-time forwarder: move packets between the
/// TUN devices `fds` (one per host of `config_json`'s `hosts`) through the
/// scenario's links until the configured end or until `control` is
/// cancelled. Runs without the GIL. Returns the same dictionary as `run`,
/// with the tables `links`, `link_series` and `forwarder`.
#[pyfunction]
#[pyo3(signature = (config_json, fds, control))]
fn forward<'py>(
    py: Python<'py>,
    config_json: &str,
    fds: Vec<i32>,
    control: PyRef<'py, PyRunControl>,
) -> PyResult<Bound<'py, PyDict>> {
    let cfg = ccsim_emu::parse_cfg(config_json).map_err(ScenarioError::new_err)?;
    let ctl = Arc::clone(&control.inner);
    let res = guarded(py, move || ccsim_emu::forward(&cfg, &fds, &ctl))?;
    match res {
        Ok(out) => convert(py, &out),
        Err(e) => Err(PyRuntimeError::new_err(format!("forwarder: {e}"))),
    }
}

/// The link paths (link indices) the simulator routes along from node s to
/// node d, for each (s, d) in `pairs`; None where no path exists. The
/// emulation backend uses it to compute each flow's configured minimum RTT.
#[pyfunction]
fn routes(scenario_json: &str, pairs: Vec<(u32, u32)>) -> PyResult<Vec<Option<Vec<u32>>>> {
    let sc = ccsim_core::Scenario::from_json(scenario_json).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    Ok(ccsim_core::route::static_routes(&sc, &pairs))
}

/// Whether this build checks the core's invariants (`debug_assert!`): true
/// for the `test-release` profile `make test` uses, false for release.
#[pyfunction]
fn debug_assertions() -> bool {
    cfg!(debug_assertions)
}

/// Names of the congestion-control algorithms the core knows.
#[pyfunction]
fn algorithms() -> Vec<&'static str> {
    ccsim_core::cc::names()
}

/// Every algorithm with its source, parameters (kind, default, meaning) and
/// presets, as JSON.
#[pyfunction]
fn algorithm_specs() -> String {
    ccsim_core::cc::params::specs_json(ccsim_core::cc::ALGORITHMS)
}

/// Default options of every queue discipline and loss model
/// (`presets::net_defaults_json`), as JSON.
#[pyfunction]
fn net_defaults() -> String {
    ccsim_core::presets::net_defaults_json()
}

/// RED's parameters on a link (a link of a resolved scenario, as JSON) as
/// the queue runs them, ns-2's automatic values filled in.
#[pyfunction]
fn red_params(link_json: &str) -> PyResult<String> {
    ccsim_core::presets::red_params_json(link_json).map_err(pyo3::exceptions::PyValueError::new_err)
}

/// The core's TCP options as `stack` (one of the schema's stacks) sets
/// them for algorithm `cc` (`TcpCfg::for_stack`), in their resolved form,
/// as JSON. Both are required: the defaults a flow takes when it names
/// neither are the schema's (`tcp_options()`, rows "stack" and "cc").
#[pyfunction]
fn tcp_defaults(stack: &str, cc: &str) -> PyResult<String> {
    ccsim_core::presets::tcp_defaults_json(stack, cc).map_err(pyo3::exceptions::PyValueError::new_err)
}

/// Bytes of a full-sized data packet of a flow whose resolved TCP
/// configuration is given as JSON: mss, headers and options
/// (`TcpCfg::packet_bytes`, the size the core's buffer checks use).
#[pyfunction]
fn packet_bytes(tcp_json: &str) -> PyResult<u64> {
    ccsim_core::presets::packet_bytes_json(tcp_json).map_err(pyo3::exceptions::PyValueError::new_err)
}

/// The core's rule for a byte-limited buffer (`config::buffer_refusal`):
/// None, or why `limit_bytes` cannot hold a packet of `packet_bytes`.
#[pyfunction]
fn buffer_refusal(limit_bytes: u64, packet_bytes: u64) -> Option<String> {
    ccsim_core::config::buffer_refusal(limit_bytes, packet_bytes)
}

/// Every `[tcp]` option (name as written, resolved field, kind with its
/// bounds or values, unit, doc line): the core's option schema
/// (`config::schema::TCP`), as JSON.
#[pyfunction]
fn tcp_options() -> String {
    ccsim_core::config::schema::tcp_json()
}

/// Apply the rules between `[tcp]` options (`config::schema::tcp_rules`) to
/// a resolved TCP configuration given as JSON: None when it passes, else
/// (option as written, value, what is accepted).
#[pyfunction]
fn check_tcp(json: &str) -> PyResult<Option<(String, String, String)>> {
    broken(ccsim_core::config::schema::check_tcp_json(json))
}

/// Every queue kind a scenario names, with the variant it resolves to, the
/// fields it sets and its options (`queue::queues()`, each kind's own file), as JSON.
#[pyfunction]
fn queue_options() -> String {
    ccsim_core::config::net_schema::queue_json()
}

/// Apply the queue options' bounds and rules (`QueueCfg::rules`)
/// to a resolved queue given as JSON: None when it passes, else (option or
/// field the kind sets, value, what is accepted).
#[pyfunction]
fn check_queue(json: &str) -> PyResult<Option<(String, String, String)>> {
    broken(ccsim_core::config::net_schema::check_queue_json(json))
}

/// Every loss model a scenario names, with the variant it resolves to and
/// its options (`config::net_schema::LOSSES`), as JSON.
#[pyfunction]
fn loss_options() -> String {
    ccsim_core::config::net_schema::loss_json()
}

/// Apply the loss options' bounds and rules (`net_schema::loss_rules`) to a
/// resolved loss model given as JSON, as `check_queue`.
#[pyfunction]
fn check_loss(json: &str) -> PyResult<Option<(String, String, String)>> {
    broken(ccsim_core::config::net_schema::check_loss_json(json))
}

/// Every application a flow group names, with the configuration it
/// resolves to, its options, the required ones and the defaults of the
/// rest (`config::app_schema::APPS`), as JSON.
#[pyfunction]
fn app_options() -> String {
    ccsim_core::config::app_schema::app_json()
}

/// Apply the application options' bounds and rules (`app_schema::app_rules`,
/// `udp_rules`) to a resolved application given as JSON, as `check_queue`.
#[pyfunction]
fn check_app(json: &str) -> PyResult<Option<(String, String, String)>> {
    broken(ccsim_core::config::app_schema::check_app_json(json))
}

/// The `[sim]` table's options, the required ones and the defaults of the
/// rest (`config::sim_schema`), as JSON.
#[pyfunction]
fn sim_options() -> String {
    ccsim_core::config::sim_schema::sim_json()
}

/// Every shaper a link direction names and reordering's options, with
/// their kinds, doc lines and defaults (`config::link_schema`), as JSON.
#[pyfunction]
fn link_options() -> String {
    ccsim_core::config::link_schema::link_json()
}

/// Apply a shaper's bounds and rules (`link_schema::shaper_rules`) to a
/// resolved shaper given as JSON, as `check_queue`.
#[pyfunction]
fn check_shaper(json: &str) -> PyResult<Option<(String, String, String)>> {
    broken(ccsim_core::config::link_schema::check_shaper_json(json))
}

/// Apply a rate schedule's rules (`net::schedule_refusal`) to steps given
/// as JSON, [[ps, b/s], ...]: None, or (step or None for the whole list,
/// part: 0 time, 1 rate, what is accepted).
#[pyfunction]
fn check_schedule(json: &str) -> PyResult<Option<(Option<usize>, usize, String)>> {
    match ccsim_core::config::check_schedule_json(json) {
        Ok(r) => Ok(r.map(|r| (r.step, r.part, r.expected))),
        Err(e) => Err(pyo3::exceptions::PyValueError::new_err(e)),
    }
}

/// Apply reordering's bounds and rules (`link_schema::reorder_rules`) to
/// resolved reordering given as JSON, as `check_queue`.
#[pyfunction]
fn check_reorder(json: &str) -> PyResult<Option<(String, String, String)>> {
    broken(ccsim_core::config::link_schema::check_reorder_json(json))
}

/// Every distribution a scenario writes (`rng::DISTS`: kind, parameters,
/// doc line), as JSON.
#[pyfunction]
fn dist_options() -> String {
    ccsim_core::rng::dists_json()
}

/// Check a resolved distribution given as JSON (`rng::Dist::broken`;
/// `positive`: every draw must be > 0): None when it passes, else
/// (parameter, value, what is accepted).
#[pyfunction]
fn check_dist(json: &str, positive: bool) -> PyResult<Option<(String, f64, String)>> {
    match ccsim_core::rng::check_dist_json(json, positive) {
        Ok(b) => Ok(b.map(|(p, v, e)| (p.to_string(), v, e.to_string()))),
        Err(e) => Err(pyo3::exceptions::PyValueError::new_err(e)),
    }
}

/// The values at quantiles `us` (each in [0, 1)) of a resolved
/// distribution given as JSON (`rng::Dist::quantile`): the front end draws
/// its uniforms and the core owns the distributions' formulas.
#[pyfunction]
fn dist_quantiles(json: &str, us: Vec<f64>) -> PyResult<Vec<f64>> {
    ccsim_core::rng::dist_quantiles_json(json, &us).map_err(pyo3::exceptions::PyValueError::new_err)
}

/// The smallest value a resolved distribution given as JSON draws
/// (`rng::Dist::least`).
#[pyfunction]
fn dist_least(json: &str) -> PyResult<f64> {
    ccsim_core::rng::dist_least_json(json).map_err(pyo3::exceptions::PyValueError::new_err)
}

/// Algorithm `cc`'s preset and parameter overrides as a scenario writes
/// them (JSON: the preset or null, a table of name = value), checked by
/// the core's rules (`cc::params::refusal`): None, or (sub-field, what it
/// accepts, whether the name itself is unknown).
#[pyfunction]
fn check_cc(cc: &str, preset_json: &str, params_json: &str) -> PyResult<Option<(String, String, bool)>> {
    ccsim_core::cc::params::refusal_json(cc, preset_json, params_json)
        .map(|r| r.map(|r| (r.field, r.accepted, r.unknown_name)))
        .map_err(pyo3::exceptions::PyValueError::new_err)
}

fn broken(r: Result<Option<ccsim_core::config::schema::Broken>, String>) -> PyResult<Option<(String, String, String)>> {
    match r {
        Ok(None) => Ok(None),
        Ok(Some(b)) => Ok(Some((b.option.to_string(), b.got, b.expected))),
        Err(e) => Err(pyo3::exceptions::PyValueError::new_err(e)),
    }
}

/// Read and check a mahimahi trace file: (opportunities, period in ms, mean
/// rate in b/s), or ValueError naming the file, the line and the value.
#[pyfunction]
fn load_trace(path: &str) -> PyResult<(usize, u64, u64)> {
    let t = ccsim_core::config::load_trace(path).map_err(pyo3::exceptions::PyValueError::new_err)?;
    Ok((t.opps.len(), t.period / ccsim_core::units::PS_PER_MS, t.mean_bps()))
}

/// Panic inside the core through the same guard as `run` (the test suite
/// uses it to prove a panic becomes a Python exception, not an abort).
#[pyfunction]
fn _panic_for_test(py: Python<'_>) -> PyResult<()> {
    guarded(py, || -> () { panic!("deliberate test panic") })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", ccsim_core::VERSION)?;
    m.add("MODEL_VERSION", ccsim_core::MODEL_VERSION)?;
    // bounds the Python front end checks with the core's own numbers
    m.add("MAX_INITIAL_WINDOW", ccsim_core::config::MAX_INITIAL_WINDOW)?;
    m.add("MAX_TIME_PS", ccsim_core::config::MAX_TIME_PS)?;
    m.add("TRACE_OPPORTUNITY_BYTES", ccsim_core::link::trace::OPPORTUNITY_BYTES)?;
    m.add("CA_ACK_ECE", ccsim_core::cc::CA_ACK_ECE)?;
    m.add("FLOW_ECHO_COLUMNS", ccsim_core::output::FLOW_ECHO_COLUMNS.to_vec())?;
    m.add("LINK_ECHO_COLUMNS", ccsim_core::output::LINK_ECHO_COLUMNS.to_vec())?;
    m.add("RESULT_TABLES", ccsim_core::output::RESULT_TABLES.to_vec())?;
    m.add("RunCancelled", m.py().get_type::<RunCancelled>())?;
    m.add("RunInterrupted", m.py().get_type::<RunInterrupted>())?;
    m.add_class::<PyRunControl>()?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(forward, m)?)?;
    m.add_function(wrap_pyfunction!(routes, m)?)?;
    m.add_function(wrap_pyfunction!(growing_tables, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(algorithm_specs, m)?)?;
    m.add_function(wrap_pyfunction!(red_params, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(net_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_options, m)?)?;
    m.add_function(wrap_pyfunction!(packet_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(check_tcp, m)?)?;
    m.add_function(wrap_pyfunction!(queue_options, m)?)?;
    m.add_function(wrap_pyfunction!(check_queue, m)?)?;
    m.add_function(wrap_pyfunction!(loss_options, m)?)?;
    m.add_function(wrap_pyfunction!(check_loss, m)?)?;
    m.add_function(wrap_pyfunction!(app_options, m)?)?;
    m.add_function(wrap_pyfunction!(sim_options, m)?)?;
    m.add_function(wrap_pyfunction!(check_app, m)?)?;
    m.add_function(wrap_pyfunction!(dist_quantiles, m)?)?;
    m.add_function(wrap_pyfunction!(dist_least, m)?)?;
    m.add_function(wrap_pyfunction!(check_cc, m)?)?;
    m.add_function(wrap_pyfunction!(link_options, m)?)?;
    m.add_function(wrap_pyfunction!(check_shaper, m)?)?;
    m.add_function(wrap_pyfunction!(check_reorder, m)?)?;
    m.add_function(wrap_pyfunction!(check_schedule, m)?)?;
    m.add_function(wrap_pyfunction!(buffer_refusal, m)?)?;
    m.add_function(wrap_pyfunction!(dist_options, m)?)?;
    m.add_function(wrap_pyfunction!(check_dist, m)?)?;
    m.add_function(wrap_pyfunction!(load_trace, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    m.add_class::<pyalgo::TcpView>()?;
    m.add_class::<pyalgo::PyAckSample>()?;
    m.add_class::<pyalgo::PyRateSample>()?;
    m.add_class::<gym::SteppedSimulation>()?;
    m.add_function(wrap_pyfunction!(pyalgo::slow_start, m)?)?;
    m.add_function(wrap_pyfunction!(pyalgo::cong_avoid_ai, m)?)?;
    m.add_function(wrap_pyfunction!(pyalgo::reno_cong_avoid, m)?)?;
    ccsim_core::cc::external::install(Box::new(pyalgo::PyBuilder));
    m.add_function(wrap_pyfunction!(debug_assertions, m)?)?;
    Ok(())
}
