//! The core side of the Gymnasium environment (python/ccsim/gym.py): a
//! simulation that advances one monitor interval at a time without being
//! rebuilt, and the agent, the algorithm of the controlled flow, which sends
//! at the rate (or with the window) the environment sets and sums what each
//! ACK tells it over the interval.

use ccsim_core::cc::{CcState, CongestionOps, RateSample};
use ccsim_core::{RunControl, Scenario, Simulation};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

/// `ExternalCc::source` of the agent.
pub const AGENT_SOURCE: &str = "agent";

/// Largest window the agent keeps in rate mode (segments): the pacing rate
/// alone limits it, as in Aurora's simulator, which has no window.
const RATE_MODE_CWND: u32 = 1 << 20;

/// What the agent saw over one monitor interval.
#[derive(Clone, Debug, Default)]
pub struct Interval {
    /// Segments newly acked or SACKed.
    pub acked: u64,
    /// Segments newly marked lost.
    pub lost: u64,
    /// Segments reported CE-marked.
    pub ce: u64,
    /// RTT samples in arrival order, seconds (Aurora's latency increase
    /// compares the means of their halves).
    pub rtts: Vec<f64>,
    /// Delivery-rate samples' sum (segments per second) and count.
    pub rate_sum: f64,
    pub rate_n: u64,
}

/// The controlled flow's algorithm. `rate` (bytes/s) in rate mode or
/// `window` (segments) in window mode, whichever the environment set last.
#[derive(Default)]
pub struct Agent {
    pub rate: Option<f64>,
    pub window: Option<u32>,
    pub iv: Interval,
    /// The flow's smoothed RTT at the latest ACK.
    pub srtt: Option<u64>,
}

impl Agent {
    fn apply(&self, tp: &mut CcState) {
        match (self.rate, self.window) {
            (Some(r), _) => {
                tp.pacing_rate = Some(r);
                tp.cwnd = RATE_MODE_CWND.min(tp.cwnd_clamp).max(1);
            }
            (None, Some(w)) => {
                tp.pacing_rate = None;
                tp.cwnd = w.min(tp.cwnd_clamp).max(1);
            }
            (None, None) => {}
        }
    }
}

impl CongestionOps for Agent {
    fn name(&self) -> &'static str {
        "agent"
    }
    fn init(&mut self, tp: &mut CcState) {
        self.apply(tp);
    }
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        tp.cwnd.max(2)
    }
    fn cong_avoid(&mut self, _tp: &mut CcState, _acked: u32) {}
    fn has_cong_control(&self) -> bool {
        true
    }
    fn cong_control(&mut self, tp: &mut CcState, rs: &RateSample) {
        let iv = &mut self.iv;
        iv.acked += rs.acked_sacked as u64;
        iv.lost += rs.losses as u64;
        iv.ce += rs.ece_delta as u64;
        if let Some(r) = rs.rtt {
            iv.rtts.push(r as f64 * 1e-12);
        }
        self.srtt = tp.srtt;
        if let Some(x) = rs.rate_pps() {
            iv.rate_sum += x;
            iv.rate_n += 1;
        }
        self.apply(tp);
    }
    fn undo_cwnd(&mut self, tp: &CcState) -> u32 {
        tp.cwnd
    }
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }
}

/// A simulation stepped from Python: built once, advanced interval by
/// interval (`run_to`), with the controlled flow's algorithm reachable.
/// Steps hold the GIL (they are short).
#[pyclass(name = "SteppedSimulation", unsendable)]
pub struct SteppedSimulation {
    sim: Simulation,
    flow: usize,
    duration_s: f64,
    /// Control for Python algorithms in the rest of the scenario.
    ctl: Arc<RunControl>,
}

impl SteppedSimulation {
    fn agent(&mut self) -> PyResult<&mut Agent> {
        self.sim.flows[self.flow].cc_any().and_then(|a| a.downcast_mut::<Agent>()).ok_or_else(|| {
            PyTypeError::new_err("the controlled flow's algorithm is not the agent (cc_external.source = 'agent')")
        })
    }
}

#[pymethods]
impl SteppedSimulation {
    /// Build the simulation of `scenario_json`; flow `flow` must run the
    /// agent (`tcp.cc_external.source = "agent"`).
    #[new]
    fn new(scenario_json: &str, flow: usize) -> PyResult<Self> {
        let checked =
            Scenario::checked_from_json(scenario_json).map_err(|e| crate::ScenarioError::new_err(e.to_string()))?;
        let sc = checked.scenario();
        if flow >= sc.flows.len() {
            return Err(PyIndexError::new_err(format!("flow {flow}: the scenario has {} flows", sc.flows.len())));
        }
        let duration_s = sc.duration_ps as f64 * 1e-12;
        let ctl = Arc::new(RunControl::new());
        let sim = crate::pyalgo::with_run(Arc::clone(&ctl), || {
            Simulation::from_checked(checked).map_err(|e| crate::ScenarioError::new_err(e.to_string()))
        })?;
        let mut me = SteppedSimulation { sim, flow, duration_s, ctl };
        me.agent()?;
        Ok(me)
    }

    /// Simulated time now, seconds.
    #[getter]
    fn now_s(&self) -> f64 {
        self.sim.now as f64 * 1e-12
    }
    #[getter]
    fn duration_s(&self) -> f64 {
        self.duration_s
    }

    /// Set the controlled flow's sending rate (bytes per second; its window
    /// then no longer limits it).
    fn set_rate(&mut self, bytes_per_s: f64) -> PyResult<()> {
        if !(bytes_per_s > 0.0 && bytes_per_s.is_finite()) {
            return Err(PyValueError::new_err(format!("rate {bytes_per_s} B/s: expected a finite number > 0")));
        }
        let a = self.agent()?;
        a.rate = Some(bytes_per_s);
        a.window = None;
        Ok(())
    }

    /// Set the controlled flow's window (segments; no pacing of its own).
    fn set_window(&mut self, segments: u32) -> PyResult<()> {
        if segments == 0 {
            return Err(PyValueError::new_err("window 0: expected at least 1 segment"));
        }
        let a = self.agent()?;
        a.window = Some(segments);
        a.rate = None;
        Ok(())
    }

    /// Run to simulated time `t_s` (at most the end) and return what the
    /// agent saw since the last call, with the flow's counters now.
    fn run_to<'py>(&mut self, py: Python<'py>, t_s: f64) -> PyResult<Bound<'py, PyDict>> {
        if !(t_s.is_finite() && t_s >= 0.0) {
            return Err(PyValueError::new_err(format!("t_s = {t_s}: expected a time ≥ 0")));
        }
        let t = (t_s * 1e12).round() as u64;
        let ctl = Arc::clone(&self.ctl);
        crate::pyalgo::with_run(ctl, || {
            self.sim.run_to(t);
            Ok(())
        })?;
        let now = self.sim.now;
        let a = self.agent()?;
        let iv = std::mem::take(&mut a.iv);
        let srtt = a.srtt;
        let d = PyDict::new(py);
        d.set_item("now_s", now as f64 * 1e-12)?;
        d.set_item("acked", iv.acked)?;
        d.set_item("lost", iv.lost)?;
        d.set_item("ce", iv.ce)?;
        d.set_item("rtts_s", iv.rtts)?;
        d.set_item("srtt_s", srtt.map(|s| s as f64 * 1e-12))?;
        d.set_item("rate_sum_pps", iv.rate_sum)?;
        d.set_item("rate_n", iv.rate_n)?;
        let f = &self.sim.flows[self.flow].c;
        d.set_item("data_pkts_sent", f.stats.data_pkts_sent)?;
        d.set_item("retransmits", f.stats.retransmits)?;
        d.set_item("mss", f.cfg.tcp.mss)?;
        Ok(d)
    }

    /// Run to the end and return the result tables (as `run` does).
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let ctl = Arc::clone(&self.ctl);
        crate::pyalgo::with_run(ctl, || {
            self.sim.run();
            Ok(())
        })?;
        let out = self.sim.output();
        crate::convert(py, &out)
    }
}
