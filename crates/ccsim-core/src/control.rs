//! A handle through which another thread watches a run and may stop it.
//!
//! A controlled run (`Simulation::run_controlled`) publishes its simulated
//! time about every [`REPORT_EVERY`] events and checks for a stop request at
//! the same moment, so a caller can draw a progress bar, enforce a
//! wall-clock timeout or estimate a run's cost from a partial run, without
//! touching the simulation's state. A run without a control pays nothing.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Events between two reports, aimed at (the run advances in chunks of
/// simulated time sized from the previous chunk's events). At ~20 M events
/// per second this is a report every ~1 ms of wall time.
pub const REPORT_EVERY: u64 = 1 << 14;

#[derive(Debug, Default)]
pub struct RunControl {
    sim_time_ps: AtomicU64,
    cancel: AtomicBool,
    /// Bytes the run's growing tables and held packets may take (0: no
    /// limit), checked at every report.
    memory_limit: AtomicU64,
    /// The thread running an external algorithm's own code at this moment
    /// (an identifier the embedding program chooses; 0: none), so that
    /// whoever cancels the run can interrupt code the run cannot check.
    external_thread: AtomicU64,
}

impl RunControl {
    pub fn new() -> Self {
        Self::default()
    }
    /// Simulated time (ps) the run had reached at its latest report.
    pub fn sim_time_ps(&self) -> u64 {
        self.sim_time_ps.load(Ordering::Relaxed)
    }
    /// Ask the run to stop at its next report.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
    /// Stop the run at the first report where what it has recorded and
    /// the packets its links hold (`Simulation::memory_use`) take more than
    /// `bytes` (0: no limit).
    pub fn set_memory_limit(&self, bytes: u64) {
        self.memory_limit.store(bytes, Ordering::Relaxed);
    }
    pub fn memory_limit(&self) -> Option<u64> {
        Some(self.memory_limit.load(Ordering::Relaxed)).filter(|&b| b > 0)
    }
    /// Mark that an external algorithm's code runs on thread `id` (0:
    /// that code has returned).
    pub fn set_external_thread(&self, id: u64) {
        self.external_thread.store(id, Ordering::SeqCst);
    }
    pub fn external_thread(&self) -> u64 {
        self.external_thread.load(Ordering::SeqCst)
    }
    pub fn report(&self, now_ps: u64) {
        self.sim_time_ps.store(now_ps, Ordering::Relaxed);
    }
}

/// A run stopped by [`RunControl::cancel`] before its end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cancelled {
    /// Simulated time reached, seconds.
    pub sim_time_s: f64,
}

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "run cancelled at simulated time {:.6} s", self.sim_time_s)
    }
}
impl std::error::Error for Cancelled {}

/// A run stopped because what it had recorded passed the control's memory
/// limit: the rows of each growing table (and the packets the links held)
/// at that moment.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryExceeded {
    /// Simulated time reached, seconds.
    pub sim_time_s: f64,
    /// (table, rows) with the packets held as "packets_held".
    pub rows: Vec<(&'static str, u64)>,
    pub bytes: u64,
    pub limit: u64,
}

impl std::fmt::Display for MemoryExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "run stopped at simulated time {:.6} s: its recorded tables took {} bytes, over the limit of {} bytes",
            self.sim_time_s, self.bytes, self.limit
        )
    }
}
impl std::error::Error for MemoryExceeded {}

/// Why a controlled run stopped before its end.
#[derive(Debug, Clone, PartialEq)]
pub enum Stopped {
    Cancelled(Cancelled),
    Memory(MemoryExceeded),
}
