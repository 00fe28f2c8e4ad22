//! Loss models of a link direction (loss.rs runs them), each validating
//! itself.

use super::net::one;
use super::{err, ConfigError, MAX_TIME_PS};
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
    /// `f` names a field of the link this loss model belongs to.
    pub fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ConfigError> {
        match self {
            LossCfg::None => {}
            LossCfg::Bernoulli { p } => {
                if !(0.0..=1.0).contains(p) || p.is_nan() {
                    return err(f("loss.p"), format!("must be a probability in [0, 1] (got {p})"));
                }
            }
            LossCfg::Ber { ber } => {
                if !(0.0..=1.0).contains(ber) || ber.is_nan() {
                    return err(f("loss.ber"), format!("must be a bit-error probability in [0, 1] (got {ber})"));
                }
            }
            LossCfg::GilbertElliott { p, r, loss_good, loss_bad } => {
                for (k, v) in [("p", p), ("r", r), ("loss_good", loss_good), ("loss_bad", loss_bad)] {
                    if !(0.0..=1.0).contains(v) || v.is_nan() {
                        return err(f(&format!("loss.{k}")), format!("must be a probability in [0, 1] (got {v})"));
                    }
                }
                if *p + *r == 0.0 {
                    return err(f("loss.r"), "p and r cannot both be 0 (the chain would never move)");
                }
            }
            LossCfg::TwoState { good, bad, loss_good, loss_bad, to_bad_after_good, to_bad_after_bad } => {
                for (k, v) in [
                    ("loss_good", loss_good),
                    ("loss_bad", loss_bad),
                    ("to_bad_after_good", to_bad_after_good),
                    ("to_bad_after_bad", to_bad_after_bad),
                ] {
                    if !(0.0..=1.0).contains(v) || v.is_nan() {
                        return err(f(&format!("loss.{k}")), format!("must be a probability in [0, 1] (got {v})"));
                    }
                }
                for (k, d) in [("good", good), ("bad", bad)] {
                    d.check_named(|| f(&format!("loss.{k}")), true).map_err(ConfigError)?;
                    if d.mean() > MAX_TIME_PS as f64 {
                        return err(
                            f(&format!("loss.{k}")),
                            format!("mean {} ps is beyond the largest supported time", d.mean()),
                        );
                    }
                }
            }
            LossCfg::Scripted { drop: v } | LossCfg::CeScripted { mark: v } => {
                let k = if matches!(self, LossCfg::Scripted { .. }) { "loss.drop" } else { "loss.mark" };
                if v.contains(&0) {
                    return err(f(k), "packet numbers are 1-based (got 0)");
                }
                if v.windows(2).any(|w| w[0] >= w[1]) {
                    return err(f(k), "packet numbers must be strictly increasing");
                }
            }
            LossCfg::CeEvery { n } => {
                if *n == 0 {
                    return err(f("loss.n"), "must be ≥ 1 (got 0)");
                }
            }
        }
        Ok(())
    }
}
