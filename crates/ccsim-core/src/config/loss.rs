//! Loss models of a link direction (loss.rs runs them), each validating
//! itself.

use super::net::one;
use super::{err, ConfigError};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "snake_case")]
pub enum LossCfg {
    #[default]
    None,
    Bernoulli {
        p: f64,
    },
    /// Bit errors: P(loss) = 1 − (1 − ber)^(8·size).
    Ber {
        ber: f64,
    },
    /// Gilbert–Elliott per-packet chain (loss.rs).
    GilbertElliott {
        p: f64,
        r: f64,
        #[serde(default)]
        loss_good: f64,
        #[serde(default = "one")]
        loss_bad: f64,
    },
    /// Time-driven two-state channel (loss.rs); durations in ps.
    TwoState {
        good: crate::rng::Dist,
        bad: crate::rng::Dist,
        #[serde(default)]
        loss_good: f64,
        loss_bad: f64,
        /// P(next state is Bad) when Good ends (1: alternate).
        #[serde(default = "one")]
        to_bad_after_good: f64,
        /// P(next state is Bad) when Bad ends (0: alternate).
        #[serde(default)]
        to_bad_after_bad: f64,
    },
    /// 1-based numbers of the packets to lose, counted on this link direction.
    Scripted {
        drop: Vec<u64>,
    },
    /// Test marker: set CE on every n-th ECN-capable packet.
    CeEvery {
        n: u64,
    },
    /// Test marker: set CE on these 1-based ECN-capable packets.
    CeScripted {
        mark: Vec<u64>,
    },
}

impl LossCfg {
    /// `f` names a field of the link this loss model belongs to; the
    /// bounds and rules are the schema's (`net_schema::loss_rules`).
    pub fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ConfigError> {
        super::net_schema::loss_rules(self)
            .or_else(|b| err(f(&format!("loss.{}", b.option)), format!("got {}; expected {}", b.got, b.expected)))
    }
}
