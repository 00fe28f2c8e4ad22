//! Algorithms the core does not define: a congestion-control class written
//! in Python (the binding crate builds it) or the Gymnasium environment's
//! agent. The core calls them through `CongestionOps` like its own and
//! stays free of any language runtime: a scenario names such an algorithm
//! with `TcpCfg::cc_external` (where to find it and which loss recovery it
//! runs without SACK), and the program embedding the core installs one
//! [`Builder`] that turns that description into an algorithm.

use super::params::{RecoveryFlavour, Value};
use super::CongestionOps;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// How a scenario describes an algorithm the core does not know.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ExternalCc {
    /// Where the builder finds it: "MODULE:CLASS" for a Python class,
    /// "agent" for the Gymnasium environment's controlled flow.
    pub source: String,
    /// SHA-256 of the source file, so that results of an edited algorithm
    /// are never mixed with older ones (it is part of the run's identity);
    /// empty where there is no file.
    #[serde(default)]
    pub sha256: String,
    /// Loss recovery without SACK (`AlgoSpec::recovery` of a built-in).
    pub recovery: RecoveryFlavourName,
}

/// `RecoveryFlavour` as a scenario writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryFlavourName {
    Tahoe,
    Reno,
    Newreno,
}

impl From<RecoveryFlavourName> for RecoveryFlavour {
    fn from(r: RecoveryFlavourName) -> Self {
        match r {
            RecoveryFlavourName::Tahoe => RecoveryFlavour::Tahoe,
            RecoveryFlavourName::Reno => RecoveryFlavour::Reno,
            RecoveryFlavourName::Newreno => RecoveryFlavour::NewReno,
        }
    }
}

/// Builds external algorithms. A builder reports a failure to build (an
/// import error, a constructor that raises) through its own channel and
/// stops the run there (the Python binding keeps the exception and cancels
/// the run's `RunControl`); the algorithm it returns then must keep the
/// connection consistent until the run stops.
pub trait Builder: Send + Sync {
    /// Build the algorithm `name` of flow `flow` from its description, its
    /// `cc_params` as written and a seed drawn from the flow's own stream.
    fn build(
        &self,
        name: &str,
        ext: &ExternalCc,
        params: &BTreeMap<String, Value>,
        flow: u32,
        seed: u64,
    ) -> Box<dyn CongestionOps>;
}

static BUILDER: OnceLock<Box<dyn Builder>> = OnceLock::new();

/// Install the process's builder (once; later calls are ignored and
/// return false).
pub fn install(b: Box<dyn Builder>) -> bool {
    BUILDER.set(b).is_ok()
}

/// Whether a builder is installed (scenario validation refuses external
/// algorithms otherwise).
pub fn available() -> bool {
    BUILDER.get().is_some()
}

/// Build through the installed builder; None when there is none.
pub fn build(
    name: &str,
    ext: &ExternalCc,
    params: &BTreeMap<String, Value>,
    flow: u32,
    seed: u64,
) -> Option<Box<dyn CongestionOps>> {
    Some(BUILDER.get()?.build(name, ext, params, flow, seed))
}
