//! ccsim-core: a deterministic packet-level network simulator for TCP
//! congestion-control research. Pure Rust; the Python bindings live in
//! `ccsim-py`. See docs/architecture.md.

pub mod cc;
pub mod config;
pub mod link;
pub mod app;
pub mod loss;
pub mod packet;
pub mod presets;
pub mod queue;
pub mod record;
pub mod rng;
pub mod sched;
pub mod sim;
pub mod tcp;
pub mod units;

pub use config::{ConfigError, Scenario};
pub use record::{Column, SimOutput, Table};
pub use sim::Simulation;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Run a resolved scenario given as JSON and return its result columns.
pub fn run_json(json: &str) -> Result<SimOutput, ConfigError> {
    let sc = Scenario::from_json(json)?;
    run(&sc)
}

pub fn run(sc: &Scenario) -> Result<SimOutput, ConfigError> {
    let mut sim = Simulation::new(sc)?;
    sim.run();
    Ok(sim.output())
}
