//! Congestion-control algorithms written in Python, run by the core through
//! the same `CongestionOps` trait as its own (`ccsim_core::cc::external`).
//!
//! The run holds no GIL; each hook of a Python algorithm takes it for the
//! length of the call. The hook sees `tp`, one `Tcp` view per algorithm
//! refreshed from the core's `CcState` before each call; the fields a hook
//! may change are copied back after it returns, and only in the hooks whose
//! Linux counterparts may write them (`ssthresh`, `undo_cwnd` and
//! `in_ack_event` get a read-only view). A setter checks its value where the
//! user's code assigns it, so a bad window is refused on the user's own line.
//!
//! An exception in a hook (KeyboardInterrupt included) is kept with a note
//! naming the algorithm, hook, flow and simulated time, the run's
//! `RunControl` is cancelled, the algorithm stops calling Python, and
//! `run` raises the kept exception once the core has stopped.

use ccsim_core::cc::external::{Builder, ExternalCc};
use ccsim_core::cc::params::Value;
use ccsim_core::cc::{AckSample, CaState, CcState, CongestionOps, CwndEvent, RateSample};
use ccsim_core::RunControl;
use pyo3::exceptions::{PyAttributeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// What the run in progress on this thread needs from its Python
/// algorithms: the control to stop it, and the first exception raised.
#[derive(Default)]
struct RunSlot {
    ctl: Option<Arc<RunControl>>,
    error: Option<PyErr>,
}

thread_local! {
    static CURRENT: RefCell<RunSlot> = RefCell::new(RunSlot::default());
}

/// Run `f` (the core's run) with `ctl` as the control Python algorithms
/// cancel on an exception; return the exception they raised, if any, in
/// place of `f`'s result.
/// A hook interrupted by the cancel (`RunInterrupted`) makes the run
/// cancelled, whatever the core reached.
pub fn with_run<T>(ctl: Arc<RunControl>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    CURRENT.with_borrow_mut(|s| *s = RunSlot { ctl: Some(Arc::clone(&ctl)), error: None });
    let r = f();
    let slot = CURRENT.with_borrow_mut(std::mem::take);
    match slot.error {
        Some(e) if Python::attach(|py| e.is_instance_of::<crate::RunInterrupted>(py)) => {
            let at = ccsim_core::control::Cancelled { sim_time_s: ctl.sim_time_ps() as f64 * 1e-12 };
            Err(crate::RunCancelled::new_err(at.to_string()))
        }
        Some(e) => Err(e),
        None => r,
    }
}

/// Run `f` (Python code of the run's algorithms: a hook, a constructor)
/// marked on the run's control as running on this thread, so that a
/// cancel from another thread (a timeout, Ctrl-C) raises RunCancelled in
/// it (`RunControl.cancel` in lib.rs) even when it never returns. Once `f`
/// is back, an interruption that came too late to act is withdrawn. Called
/// with the GIL held, as the cancel is made, so the two never interleave.
fn in_python<T>(_py: Python<'_>, ctl: Option<&Arc<RunControl>>, f: impl FnOnce() -> T) -> T {
    let Some(ctl) = ctl else {
        return f();
    };
    // SAFETY: plain calls into the interpreter with the GIL held (`_py`).
    let me = unsafe { pyo3::ffi::PyThread_get_thread_ident() };
    #[allow(clippy::useless_conversion)] // c_ulong is u64 on this target, not on every one
    ctl.set_external_thread(u64::from(me));
    let r = f();
    ctl.set_external_thread(0);
    if ctl.is_cancelled() {
        // SAFETY: as above; a null exception clears a pending one.
        unsafe {
            pyo3::ffi::PyThreadState_SetAsyncExc(me as std::os::raw::c_long, std::ptr::null_mut());
        }
    }
    r
}

/// Keep the first exception of the run and stop it.
fn fail(py: Python<'_>, err: PyErr, note: String) {
    let _ = err.value(py).call_method1("add_note", (note,));
    CURRENT.with_borrow_mut(|s| {
        if s.error.is_none() {
            s.error = Some(err);
        }
        if let Some(c) = &s.ctl {
            c.cancel();
        }
    });
}

/// The names algorithms report, leaked once per distinct name
/// (`CongestionOps::name` is `&'static str`).
fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Option<HashMap<String, &'static str>>> = Mutex::new(None);
    let mut g = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let m = g.get_or_insert_with(HashMap::new);
    if let Some(s) = m.get(name) {
        return s;
    }
    let s: &'static str = Box::leak(name.to_owned().into_boxed_str());
    m.insert(name.to_owned(), s);
    s
}

fn ps_s(t: u64) -> f64 {
    t as f64 * 1e-12
}

/// The connection as an algorithm's hook sees it (Linux `struct tcp_sock`,
/// the fields congestion modules use), with the core's field names; times
/// in seconds, rates in bytes per second, windows in segments.
#[pyclass(name = "Tcp", module = "ccsim.cc")]
pub struct TcpView {
    s: CcState,
    flow: u32,
    /// The hook being run, for the message of a refused write.
    hook: &'static str,
    writable: bool,
    /// A hook of this flow is running: outside one the view is stale (kept
    /// from an earlier call, or reached from another flow's hook).
    live: bool,
}

impl TcpView {
    fn check_write(&self, field: &str) -> PyResult<()> {
        if !self.live {
            Err(PyAttributeError::new_err(format!(
                "tp.{field} cannot be set here: this tp belongs to flow {}'s hook {}(), which has returned; a tp is \
                 valid only during the hook call it was passed to (keep values, not the tp)",
                self.flow, self.hook
            )))
        } else if self.writable {
            Ok(())
        } else {
            Err(PyAttributeError::new_err(format!(
                "tp.{field} cannot be set in {}(): Linux passes this hook a read-only socket (return the value instead, \
                 or set it in cong_avoid, cong_control, cwnd_event, set_state, pkts_acked or init)",
                self.hook
            )))
        }
    }
}

/// A whole number of segments in [1, u32::MAX], or a clear error.
/// A window a Python algorithm sets or returns: at most the largest window
/// a scenario may configure (the connection's `cwnd_clamp` for such an
/// algorithm, set by the core), so that one ACK cannot send billions.
fn window(what: &str, v: &Bound<'_, PyAny>) -> PyResult<u32> {
    let n = segments(what, v)?;
    let max = ccsim_core::config::MAX_INITIAL_WINDOW;
    if n > max {
        return Err(PyValueError::new_err(format!(
            "{what} = {n}: expected a whole number of segments in [1, {max}] (the largest window a Python \
             algorithm may set)"
        )));
    }
    Ok(n)
}

fn segments(what: &str, v: &Bound<'_, PyAny>) -> PyResult<u32> {
    if v.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!("{what} = {v}: expected a whole number of segments, not a bool")));
    }
    let n: i128 = v.extract().map_err(|_| {
        let ty = v.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        PyTypeError::new_err(format!("{what} = {v} ({ty}): expected a whole number of segments (int)"))
    })?;
    if !(1..=u32::MAX as i128).contains(&n) {
        return Err(PyValueError::new_err(format!(
            "{what} = {n}: expected a whole number of segments in [1, {}] (a window is at least one segment)",
            u32::MAX
        )));
    }
    Ok(n as u32)
}

#[pymethods]
impl TcpView {
    #[getter]
    fn flow(&self) -> u32 {
        self.flow
    }
    /// Simulated time now, seconds.
    #[getter]
    fn now_s(&self) -> f64 {
        ps_s(self.s.now)
    }
    /// Simulated time now, whole microseconds (Linux tp->tcp_mstamp); the
    /// jiffies of HZ = 1000 are now_us // 1000.
    #[getter]
    fn now_us(&self) -> u64 {
        self.s.now / ccsim_core::units::PS_PER_US
    }
    /// Congestion window, segments (snd_cwnd).
    #[getter]
    fn cwnd(&self) -> u32 {
        self.s.cwnd
    }
    #[setter]
    fn set_cwnd(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_write("cwnd")?;
        self.s.cwnd = window("tp.cwnd", v)?;
        Ok(())
    }
    /// Slow-start threshold, segments (snd_ssthresh); INFINITE_SSTHRESH when unset.
    #[getter]
    fn ssthresh(&self) -> u32 {
        self.s.ssthresh
    }
    #[setter]
    fn set_ssthresh(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_write("ssthresh")?;
        self.s.ssthresh = segments("tp.ssthresh", v)?;
        Ok(())
    }
    /// Fractional growth counter (snd_cwnd_cnt).
    #[getter]
    fn cwnd_cnt(&self) -> u32 {
        self.s.cwnd_cnt
    }
    #[setter]
    fn set_cwnd_cnt(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_write("cwnd_cnt")?;
        let n: u32 = v.extract().map_err(|_| {
            PyTypeError::new_err(format!("tp.cwnd_cnt = {v}: expected a whole number in [0, {}]", u32::MAX))
        })?;
        self.s.cwnd_cnt = n;
        Ok(())
    }
    /// Upper bound on cwnd (snd_cwnd_clamp).
    #[getter]
    fn cwnd_clamp(&self) -> u32 {
        self.s.cwnd_clamp
    }
    #[setter]
    fn set_cwnd_clamp(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_write("cwnd_clamp")?;
        self.s.cwnd_clamp = window("tp.cwnd_clamp", v)?;
        Ok(())
    }
    /// Pacing rate the algorithm asks for, bytes per second (sk_pacing_rate);
    /// None lets the sender's pacing mode decide.
    #[getter]
    fn pacing_rate(&self) -> Option<f64> {
        self.s.pacing_rate
    }
    #[setter]
    fn set_pacing_rate(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_write("pacing_rate")?;
        if v.is_none() {
            self.s.pacing_rate = None;
            return Ok(());
        }
        let x: f64 = match v.is_instance_of::<pyo3::types::PyBool>() {
            true => Err(()),
            false => v.extract().map_err(|_| ()),
        }
        .map_err(|_| {
            PyTypeError::new_err(format!("tp.pacing_rate = {v}: expected bytes per second (a number > 0) or None"))
        })?;
        // Linux's sk_pacing_rate counts whole bytes per second: below one
        // a packet's gap would outlast any run (and overflow the clock)
        if !(x >= 1.0 && x.is_finite()) {
            return Err(PyValueError::new_err(format!(
                "tp.pacing_rate = {x}: expected bytes per second, a finite number ≥ 1 (Linux's sk_pacing_rate counts \
                 whole bytes per second), or None for no rate"
            )));
        }
        self.s.pacing_rate = Some(x);
        Ok(())
    }
    /// Mark the flow application-limited until what is in flight is
    /// delivered (Linux writes tp->app_limited; BBR in PROBE_RTT).
    #[getter]
    fn mark_app_limited(&self) -> bool {
        self.s.mark_app_limited
    }
    #[setter]
    fn set_mark_app_limited(&mut self, v: bool) -> PyResult<()> {
        self.check_write("mark_app_limited")?;
        self.s.mark_app_limited = v;
        Ok(())
    }
    /// Segments sent and not yet cumulatively acknowledged (FlightSize).
    #[getter]
    fn in_flight(&self) -> u32 {
        self.s.in_flight
    }
    /// Segments in the network by RFC 6675's reckoning (tcp_packets_in_flight).
    #[getter]
    fn pipe(&self) -> u32 {
        self.s.pipe
    }
    /// Segments delivered so far (tp->delivered).
    #[getter]
    fn delivered(&self) -> u64 {
        self.s.delivered
    }
    /// Of `delivered`, those delivered by ACKs carrying ECN-Echo (tp->delivered_ce).
    #[getter]
    fn delivered_ce(&self) -> u64 {
        self.s.delivered_ce
    }
    /// Segments marked lost so far (tp->lost).
    #[getter]
    fn lost(&self) -> u64 {
        self.s.lost
    }
    /// Smoothed RTT, seconds; None before the first sample.
    #[getter]
    fn srtt_s(&self) -> Option<f64> {
        self.s.srtt.map(ps_s)
    }
    /// Smallest RTT sample seen, seconds; None before the first sample.
    #[getter]
    fn min_rtt_s(&self) -> Option<f64> {
        self.s.min_rtt.map(ps_s)
    }
    /// The retransmission timeout now, back-off included, seconds (icsk_rto).
    #[getter]
    fn rto_s(&self) -> f64 {
        ps_s(self.s.rto)
    }
    /// The variation term the RTO adds to the smoothed RTT, seconds (Linux
    /// tp->rttvar_us, RFC 6298's 4·RTTVAR); None before the first sample.
    #[getter]
    fn rttvar_s(&self) -> Option<f64> {
        self.s.rttvar.map(ps_s)
    }
    /// The window the receiver offers, segments (`tcp.rwnd`, receive-buffer
    /// autotuning); None when neither limits it.
    #[getter]
    fn rwnd(&self) -> Option<u32> {
        (self.s.rwnd != u32::MAX).then_some(self.s.rwnd)
    }
    /// Segments the application has handed over that are not yet sent;
    /// None for a bulk source (always more).
    #[getter]
    fn app_backlog(&self) -> Option<u64> {
        (self.s.app_backlog != u64::MAX).then_some(self.s.app_backlog)
    }
    /// cwnd before the last reduction (for undo).
    #[getter]
    fn prior_cwnd(&self) -> u32 {
        self.s.prior_cwnd
    }
    /// Payload bytes of a full segment.
    #[getter]
    fn mss(&self) -> u32 {
        self.s.mss
    }
    /// The application leaves the window unused (tcp_rate.c).
    #[getter]
    fn app_limited(&self) -> bool {
        self.s.app_limited
    }
    /// The flight filled cwnd when the sender last sent (tp->is_cwnd_limited).
    #[getter]
    fn is_cwnd_limited(&self) -> bool {
        self.s.is_cwnd_limited
    }
    /// Congestion state (icsk_ca_state): ccsim.cc.CA_OPEN ... CA_LOSS.
    #[getter]
    fn ca_state(&self) -> u8 {
        self.s.ca_state as u8
    }
    /// Oldest unacknowledged segment (snd_una), in segments.
    #[getter]
    fn snd_una(&self) -> u64 {
        self.s.snd_una
    }
    /// Next new segment to send (snd_nxt), in segments.
    #[getter]
    fn snd_nxt(&self) -> u64 {
        self.s.snd_nxt
    }
    /// Simulated time data was last sent (tp->lsndtime), seconds.
    #[getter]
    fn lsndtime_s(&self) -> f64 {
        ps_s(self.s.lsndtime)
    }
    /// The same in whole microseconds (jiffies: lsndtime_us // 1000).
    #[getter]
    fn lsndtime_us(&self) -> u64 {
        self.s.lsndtime / ccsim_core::units::PS_PER_US
    }
    /// When `delivered` last grew (tp->delivered_mstamp), seconds.
    #[getter]
    fn delivered_at_s(&self) -> f64 {
        ps_s(self.s.delivered_at)
    }
    /// The sender paces its segments.
    #[getter]
    fn paced(&self) -> bool {
        self.s.paced
    }
    /// ECN was negotiated for this flow (TCP_ECN_OK).
    #[getter]
    fn ecn_ok(&self) -> bool {
        self.s.ecn_ok
    }
    /// Linux tcp_in_slow_start: cwnd < ssthresh.
    fn in_slow_start(&self) -> bool {
        self.s.in_slow_start()
    }
    fn __repr__(&self) -> String {
        format!(
            "<ccsim.cc.Tcp flow={} now_s={:.6} cwnd={} ssthresh={} in_flight={} ca_state={}>",
            self.flow,
            ps_s(self.s.now),
            self.s.cwnd,
            self.s.ssthresh,
            self.s.in_flight,
            self.s.ca_state as u8
        )
    }
}

/// One ACK's sample for `pkts_acked` (Linux `struct ack_sample`).
#[pyclass(name = "AckSample", module = "ccsim.cc", frozen, get_all)]
pub struct PyAckSample {
    /// Segments newly acknowledged by this ACK (pkts_acked).
    acked: u32,
    /// RTT sample of this ACK, seconds; None under Karn's rule (rtt_us < 0).
    rtt_s: Option<f64>,
    /// The same in whole microseconds, as Linux's rtt_us (None for none).
    rtt_us: Option<u64>,
    /// FlightSize before this ACK (in_flight).
    in_flight: u32,
}

/// One delivery-rate sample for `cong_control` (Linux `struct rate_sample`).
#[pyclass(name = "RateSample", module = "ccsim.cc", frozen, get_all)]
pub struct PyRateSample {
    /// Segments delivered over `interval_s`; None when this ACK gives no
    /// valid sample.
    delivered: Option<u64>,
    interval_s: f64,
    /// Delivery rate, segments per second; None when no valid sample.
    rate_pps: Option<f64>,
    is_app_limited: bool,
    acked_sacked: u32,
    /// Segments newly marked lost by this ACK.
    losses: u32,
    prior_in_flight: u32,
    rtt_s: Option<f64>,
    prior_delivered: u64,
    ece_delta: u32,
    tx_in_flight: u32,
    lost: u32,
    delivered_ce: u32,
    delivered_count: u64,
    is_ece: bool,
}

/// Linux `tcp_slow_start` on `tp`: grow cwnd by `acked`, never past
/// ssthresh; return the acked segments left for congestion avoidance.
#[pyfunction]
pub fn slow_start(tp: &Bound<'_, TcpView>, acked: u32) -> PyResult<u32> {
    let mut v = tp.borrow_mut();
    v.check_write("cwnd")?;
    Ok(ccsim_core::cc::slow_start(&mut v.s, acked))
}

/// Linux `tcp_cong_avoid_ai` on `tp`: +1 segment per `w` segments acked.
#[pyfunction]
pub fn cong_avoid_ai(tp: &Bound<'_, TcpView>, w: u32, acked: u32) -> PyResult<()> {
    let mut v = tp.borrow_mut();
    v.check_write("cwnd")?;
    ccsim_core::cc::cong_avoid_ai(&mut v.s, w, acked);
    Ok(())
}

/// Linux `tcp_reno_cong_avoid` on `tp` (without its cwnd-limited check,
/// which the core makes before calling `cong_avoid`).
#[pyfunction]
pub fn reno_cong_avoid(tp: &Bound<'_, TcpView>, acked: u32) -> PyResult<()> {
    let mut v = tp.borrow_mut();
    v.check_write("cwnd")?;
    ccsim_core::cc::reno_cong_avoid(&mut v.s, acked);
    Ok(())
}

/// Hooks a class overrides (the others keep the core's defaults and are
/// never called into Python).
#[derive(Default, Clone, Copy)]
struct Hooks {
    init: bool,
    cong_avoid: bool,
    set_state: bool,
    cwnd_event: bool,
    in_ack_event: bool,
    pkts_acked: bool,
    undo_cwnd: bool,
    cong_control: bool,
    on_timer: bool,
}

/// A Python algorithm as the core sees it.
pub struct PyAlgo {
    name: &'static str,
    obj: Py<PyAny>,
    view: Py<TcpView>,
    hooks: Hooks,
    flow: u32,
    failed: bool,
    /// The class's `timer_interval`, when it defines `on_timer`.
    timer: Option<ccsim_core::units::SimTime>,
    /// The run's control: once it is cancelled no more Python is called
    /// (a hook that swallows its interruption returns, and the next ACK's
    /// hook would start over), and a cancel interrupts a hook (`in_python`).
    ctl: Option<Arc<RunControl>>,
}

impl PyAlgo {
    /// Call hook `hook` with `tp` in the view; `args` makes the call from
    /// the object and the view. Writable hooks copy the fields an
    /// algorithm may set back into `tp`. None after a failure.
    fn call<T>(
        &mut self,
        hook: &'static str,
        tp: &CcState,
        writable: bool,
        args: impl for<'py> FnOnce(&Bound<'py, PyAny>, &Bound<'py, TcpView>) -> PyResult<T>,
    ) -> Option<(T, CcState)> {
        if self.failed || self.ctl.as_ref().is_some_and(|c| c.is_cancelled()) {
            self.failed = true;
            return None;
        }
        Python::attach(|py| {
            let view = self.view.bind(py);
            {
                let mut v = view.borrow_mut();
                v.s.clone_from(tp);
                v.hook = hook;
                v.writable = writable;
                v.live = true;
            }
            let result = in_python(py, self.ctl.as_ref(), || args(self.obj.bind(py), view));
            view.borrow_mut().live = false;
            match result {
                Ok(x) => {
                    let s = view.borrow().s.clone();
                    Some((x, s))
                }
                Err(e) => {
                    self.failed = true;
                    let note = format!(
                        "ccsim: raised in {}.{}() of flow {} at simulated time {:.6} s",
                        self.name,
                        hook,
                        self.flow,
                        ps_s(tp.now)
                    );
                    fail(py, e, note);
                    None
                }
            }
        })
    }

    /// A writable hook: run it and copy back what an algorithm may set.
    fn call_mut(
        &mut self,
        hook: &'static str,
        tp: &mut CcState,
        args: impl for<'py> FnOnce(&Bound<'py, PyAny>, &Bound<'py, TcpView>) -> PyResult<Bound<'py, PyAny>>,
    ) {
        if let Some((_, s)) = self.call(hook, tp, true, |o, v| args(o, v).map(|_| ())) {
            tp.cwnd = s.cwnd;
            tp.ssthresh = s.ssthresh;
            tp.cwnd_cnt = s.cwnd_cnt;
            tp.cwnd_clamp = s.cwnd_clamp;
            tp.pacing_rate = s.pacing_rate;
            tp.mark_app_limited = s.mark_app_limited;
        }
    }

    /// A hook returning a window: checked, or a failure.
    fn call_window(&mut self, hook: &'static str, tp: &CcState) -> Option<u32> {
        let name = self.name;
        let r = self.call(hook, tp, false, |o, v| {
            let r = o.call_method1(hook, (v,))?;
            segments(&format!("{name}.{hook}() returned a value that"), &r).map_err(|e| {
                let py = r.py();
                PyErr::from_type(
                    e.get_type(py),
                    format!("{name}.{hook}() returned {r}; expected a whole number of segments in [1, {}]", u32::MAX),
                )
            })
        });
        r.map(|(x, _)| x)
    }
}

fn ca_state(s: CaState) -> u8 {
    s as u8
}

fn ca_event(e: CwndEvent) -> u8 {
    match e {
        CwndEvent::TxStart => 0,
        CwndEvent::CwndRestart => 1,
        CwndEvent::CompleteCwr => 2,
        CwndEvent::Loss => 3,
        CwndEvent::EcnNoCe => 4,
        CwndEvent::EcnIsCe => 5,
        CwndEvent::TlpRecovery => 6,
    }
}

impl CongestionOps for PyAlgo {
    fn name(&self) -> &'static str {
        self.name
    }
    fn init(&mut self, tp: &mut CcState) {
        if self.hooks.init {
            self.call_mut("init", tp, |o, v| o.call_method1("init", (v,)));
        }
    }
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        self.call_window("ssthresh", tp).unwrap_or_else(|| tp.half_window())
    }
    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        if self.hooks.cong_avoid {
            self.call_mut("cong_avoid", tp, |o, v| o.call_method1("cong_avoid", (v, acked)));
        }
    }
    fn set_state(&mut self, tp: &mut CcState, new: CaState) {
        if self.hooks.set_state {
            self.call_mut("set_state", tp, |o, v| o.call_method1("set_state", (v, ca_state(new))));
        }
    }
    fn cwnd_event(&mut self, tp: &mut CcState, ev: CwndEvent) {
        if self.hooks.cwnd_event {
            self.call_mut("cwnd_event", tp, |o, v| o.call_method1("cwnd_event", (v, ca_event(ev))));
        }
    }
    fn in_ack_event(&mut self, tp: &CcState, _acked: u32, flags: u32) {
        if self.hooks.in_ack_event {
            self.call("in_ack_event", tp, false, |o, v| o.call_method1("in_ack_event", (v, flags)).map(|_| ()));
        }
    }
    fn pkts_acked(&mut self, tp: &mut CcState, s: &AckSample) {
        if self.hooks.pkts_acked {
            let sample = PyAckSample {
                acked: s.acked,
                rtt_s: s.rtt.map(ps_s),
                rtt_us: s.rtt.map(|r| r / ccsim_core::units::PS_PER_US),
                in_flight: s.in_flight,
            };
            self.call_mut("pkts_acked", tp, |o, v| {
                let py = o.py();
                o.call_method1("pkts_acked", (v, Py::new(py, sample)?))
            });
        }
    }
    fn undo_cwnd(&mut self, tp: &CcState) -> u32 {
        if !self.hooks.undo_cwnd {
            return tp.cwnd.max(tp.prior_cwnd);
        }
        self.call_window("undo_cwnd", tp).unwrap_or(tp.cwnd)
    }
    fn has_cong_control(&self) -> bool {
        self.hooks.cong_control
    }
    fn timer_interval(&self) -> Option<ccsim_core::units::SimTime> {
        if self.failed {
            None
        } else {
            self.timer
        }
    }
    fn reads_conn(&self) -> bool {
        true
    }
    fn on_timer(&mut self, tp: &mut CcState) {
        if self.hooks.on_timer {
            self.call_mut("on_timer", tp, |o, v| o.call_method1("on_timer", (v,)));
        }
    }
    fn cong_control(&mut self, tp: &mut CcState, rs: &RateSample) {
        let sample = PyRateSample {
            delivered: rs.delivered,
            interval_s: ps_s(rs.interval),
            rate_pps: rs.rate_pps(),
            is_app_limited: rs.is_app_limited,
            acked_sacked: rs.acked_sacked,
            losses: rs.losses,
            prior_in_flight: rs.prior_in_flight,
            rtt_s: rs.rtt.map(ps_s),
            prior_delivered: rs.prior_delivered,
            ece_delta: rs.ece_delta,
            tx_in_flight: rs.tx_in_flight,
            lost: rs.lost,
            delivered_ce: rs.delivered_ce,
            delivered_count: rs.delivered_count,
            is_ece: rs.is_ece,
        };
        self.call_mut("cong_control", tp, |o, v| {
            let py = o.py();
            o.call_method1("cong_control", (v, Py::new(py, sample)?))
        });
    }
}

/// Builds Python algorithms: `ccsim.pyalgo._instantiate` imports the class
/// and makes the instance (all import rules live there, in Python).
pub struct PyBuilder;

fn to_py_value<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        Value::Num(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => (*x as i64).into_pyobject(py)?.into_any(),
        Value::Num(x) => x.into_pyobject(py)?.into_any(),
        Value::Str(s) => PyString::new(py, s).into_any(),
    })
}

impl PyBuilder {
    fn try_build(
        py: Python<'_>,
        name: &str,
        ext: &ExternalCc,
        params: &BTreeMap<String, Value>,
        flow: u32,
        seed: u64,
    ) -> PyResult<PyAlgo> {
        let kw = PyDict::new(py);
        for (k, v) in params {
            kw.set_item(k, to_py_value(py, v)?)?;
        }
        let made =
            py.import("ccsim.pyalgo")?.getattr("_instantiate")?.call1((ext.source.as_str(), name, kw, flow, seed))?;
        let (obj, hooks, timer_s): (Bound<'_, PyAny>, Bound<'_, PyTuple>, Option<f64>) = made.extract()?;
        let mut h = Hooks::default();
        for x in hooks.iter() {
            match x.extract::<String>()?.as_str() {
                "init" => h.init = true,
                "cong_avoid" => h.cong_avoid = true,
                "set_state" => h.set_state = true,
                "cwnd_event" => h.cwnd_event = true,
                "in_ack_event" => h.in_ack_event = true,
                "pkts_acked" => h.pkts_acked = true,
                "undo_cwnd" => h.undo_cwnd = true,
                "cong_control" => h.cong_control = true,
                "on_timer" => h.on_timer = true,
                _ => {}
            }
        }
        let view = Py::new(py, TcpView { s: blank_state(), flow, hook: "init", writable: false, live: false })?;
        // checked by ccsim.pyalgo (≥ 1 µs, finite); rounded to the picosecond
        let timer = timer_s.map(|s| (s * ccsim_core::units::PS_PER_S as f64).round() as ccsim_core::units::SimTime);
        let ctl = CURRENT.with_borrow(|s| s.ctl.clone());
        Ok(PyAlgo { name: intern(name), obj: obj.unbind(), view, hooks: h, flow, failed: false, timer, ctl })
    }
}

/// A placeholder state for a view before its first hook.
fn blank_state() -> CcState {
    CcState { cwnd: 1, ssthresh: u32::MAX, cwnd_clamp: u32::MAX, prior_cwnd: 1, ..Default::default() }
}

impl Builder for PyBuilder {
    fn build(
        &self,
        name: &str,
        ext: &ExternalCc,
        params: &BTreeMap<String, Value>,
        flow: u32,
        seed: u64,
    ) -> Box<dyn CongestionOps> {
        if ext.source == crate::gym::AGENT_SOURCE {
            return Box::new(crate::gym::Agent::default());
        }
        let ctl = CURRENT.with_borrow(|s| s.ctl.clone());
        Python::attach(|py| match in_python(py, ctl.as_ref(), || Self::try_build(py, name, ext, params, flow, seed)) {
            Ok(a) => Box::new(a) as Box<dyn CongestionOps>,
            Err(e) => {
                fail(
                    py,
                    e,
                    format!("ccsim: raised while building algorithm {name:?} ({}) for flow {flow}", ext.source),
                );
                Box::new(ccsim_core::cc::reno::Reno::new("newreno"))
            }
        })
    }
}
