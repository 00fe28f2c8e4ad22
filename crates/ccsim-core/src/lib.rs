//! ccsim-core: a deterministic packet-level network simulator for TCP
//! congestion-control research. Pure Rust; the Python bindings live in
//! `ccsim-py`. See docs/architecture.md.

pub mod app;
pub mod cc;
pub mod config;
pub mod control;
pub mod hist;
pub mod link;
pub mod loss;
pub mod opts;
pub mod output;
pub mod packet;
pub mod presets;
pub mod queue;
pub mod record;
pub mod ring;
pub mod rng;
pub mod route;
pub mod sched;
pub mod sim;
pub mod tcp;
pub mod tracefile;
pub mod units;

pub use config::{Checked, ConfigError, Scenario};
pub use control::{Cancelled, MemoryExceeded, RunControl, Stopped};
pub use record::{Column, SimOutput, Strings, Table};
pub use sim::Simulation;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The simulation model's version. Bump it in any commit that changes what a
/// scenario simulates to (a different number, column or event in any result
/// table for some scenario and seed); leave it for changes that keep every
/// output identical (speed, refactoring, docs, new options whose default
/// keeps the old behaviour). A run's identity in a campaign includes it, so
/// results made by different models are never mixed (docs/experiments.md).
pub const MODEL_VERSION: u32 = 19;

/// Why a controlled run did not produce output.
#[derive(Debug)]
pub enum RunError {
    Config(ConfigError),
    Cancelled(Cancelled),
    Memory(MemoryExceeded),
}

/// Run a resolved scenario given as JSON and return its result columns.
pub fn run_json(json: &str) -> Result<SimOutput, ConfigError> {
    let sc = Scenario::checked_from_json(json)?;
    let mut sim = Simulation::from_checked(sc)?;
    sim.run();
    Ok(sim.output())
}

/// As [`run_json`], publishing progress to `ctl` and stopping if it is cancelled.
pub fn run_json_controlled(json: &str, ctl: &RunControl) -> Result<SimOutput, RunError> {
    let sc = Scenario::checked_from_json(json).map_err(RunError::Config)?;
    let mut sim = Simulation::from_checked(sc).map_err(RunError::Config)?;
    sim.run_controlled(ctl).map_err(|s| match s {
        Stopped::Cancelled(c) => RunError::Cancelled(c),
        Stopped::Memory(m) => RunError::Memory(m),
    })?;
    Ok(sim.output())
}

pub fn run(sc: &Scenario) -> Result<SimOutput, ConfigError> {
    let mut sim = Simulation::new(sc)?;
    sim.run();
    Ok(sim.output())
}
