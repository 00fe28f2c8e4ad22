//! Per-packet channel models applied per link direction, each with its own
//! random stream. A lost packet still occupies the transmitter (it was sent
//! and corrupted on the wire) and is discarded when it would have arrived.
//!
//! Besides losses this holds the test marker of RFC 3168 experiments: a link
//! that sets CE on chosen ECN-capable packets (every n-th, or scripted
//! numbers). It is a measuring device, not a model of a router: packets that
//! are not ECN-capable pass untouched. Marking by a congested queue (RED and
//! friends) is the queue discipline's job (`queue::Verdict::Mark`).
//!
//! Each model is one file: its options declared once (`opts::options!`),
//! its scenario name, rules and builder (`LossKind`) and the model
//! (`LossProcess`). The registry (`losses!` below) lists each once and
//! yields the configuration enum, the model enum with its dispatch, and the
//! schema's list.

mod ber;
mod bernoulli;
#[cfg(test)]
mod every_kth;
mod gilbert;
mod markers;
mod scripted;
mod two_state;

pub use ber::{ber_packet_loss, BerCfg, BitErrors};
pub use bernoulli::{Bernoulli, BernoulliCfg};
pub use gilbert::{GilbertCfg, GilbertElliott};
pub use markers::{CeEvery, CeEveryCfg, CeScripted, CeScriptedCfg};
pub use scripted::{Scripted, ScriptedCfg};
pub use two_state::{TwoStateCfg, TwoStateTime, MIN_STATE_PS, STATE_TIME};

use crate::opts::{check_kinds, options, Broken, Kind, Named, Opt, Variant};
use crate::packet::Packet;
use crate::rng::{Stream, StreamKind};
use crate::units::SimTime;

pub(crate) const P: Kind = Kind::Prob { lo_open: false };

/// A loss model's configuration, implemented in its own file.
pub trait LossKind: Sized {
    /// Its option rows (declared with the fields by `opts::options!`).
    const ROWS: &'static [Opt];
    /// The options a scenario must give.
    const REQUIRED: &'static [&'static str];
    /// The name a scenario gives it and its documentation line.
    const NAME: Named;
    /// The model it builds.
    type Model: LossProcess;
    /// Rules between its options, beyond each option's kind.
    fn rules(&self) -> Result<(), Broken> {
        Ok(())
    }
    /// The model; `rng` gives the link direction's random stream.
    fn build(&self, rng: &mut dyn FnMut() -> Stream) -> Self::Model;
}

/// A channel model at work.
pub trait LossProcess {
    /// Apply the model to a packet that starts transmission at `t`
    /// (a test marker may set its CE); true = lost.
    fn apply(&mut self, t: SimTime, pkt: &mut Packet) -> bool;
}

impl<T: LossProcess> LossProcess for Box<T> {
    #[inline(always)]
    fn apply(&mut self, t: SimTime, pkt: &mut Packet) -> bool {
        (**self).apply(t, pkt)
    }
}

/// The registry: one line per model, `Variant(Cfg) = "tag"`. It yields
/// `LossCfg` (a link direction's `loss`, tagged by `kind`), `LossModel`
/// (the model, dispatched without a call through a pointer) and
/// `losses()` (every model a scenario names, for the schema).
macro_rules! losses {
    ($( $(#[$m:meta])* $variant:ident($cfg:ty) = $tag:literal ),* $(,)?) => {
        /// A link direction's loss model as configured.
        #[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
        #[serde(deny_unknown_fields, tag = "kind")]
        pub enum LossCfg {
            $( $(#[$m])* #[serde(rename = $tag)] $variant($cfg), )*
        }

        impl LossCfg {
            /// Each option's value against its kind, then the rules
            /// between options.
            pub fn rules(&self) -> Result<(), Broken> {
                match self {
                    $( $(#[$m])* LossCfg::$variant(c) => {
                        if !<$cfg as LossKind>::ROWS.is_empty() {
                            let v = serde_json::to_value(c).expect("a loss configuration serializes");
                            check_kinds(<$cfg as LossKind>::ROWS, &v)?;
                        }
                        c.rules()
                    } )*
                }
            }
        }

        /// A link direction's loss model at work.
        pub enum LossModel {
            $( $(#[$m])* $variant(<$cfg as LossKind>::Model), )*
        }

        impl LossModel {
            /// The model a link's configuration asks for; `index` picks the
            /// link's random stream.
            pub fn build(cfg: &LossCfg, seed: u64, index: u64) -> LossModel {
                let mut rng = || Stream::new(seed, StreamKind::LinkLoss, index);
                match cfg { $( $(#[$m])* LossCfg::$variant(c) => LossModel::$variant(c.build(&mut rng)), )* }
            }

            #[inline(never)]
            fn apply_model(&mut self, t: SimTime, pkt: &mut Packet) -> bool {
                match self { $( $(#[$m])* LossModel::$variant(m) => m.apply(t, pkt), )* }
            }
        }

        /// Every loss model a scenario names, in documentation order.
        pub fn losses() -> Vec<Variant> {
            vec![$( $(#[$m])* {
                let n = <$cfg as LossKind>::NAME;
                Variant {
                    name: n.name, core: $tag, fixed: n.fixed, opts: <$cfg as LossKind>::ROWS,
                    required: <$cfg as LossKind>::REQUIRED, doc: n.doc,
                }
            }, )*]
        }
    };
}

losses! {
    None(NoLoss) = "none",
    Bernoulli(bernoulli::BernoulliCfg) = "bernoulli",
    Ber(ber::BerCfg) = "ber",
    GilbertElliott(gilbert::GilbertCfg) = "gilbert_elliott",
    TwoState(two_state::TwoStateCfg) = "two_state",
    Scripted(scripted::ScriptedCfg) = "scripted",
    CeEvery(markers::CeEveryCfg) = "ce_every",
    CeScripted(markers::CeScriptedCfg) = "ce_scripted",
    #[cfg(test)]
    EveryKth(every_kth::EveryKthCfg) = "every_kth",
}

impl Default for LossCfg {
    /// A link direction without a loss model.
    fn default() -> Self {
        LossCfg::None(NoLoss {})
    }
}

options! {
    /// No loss: the link direction delivers every packet it sends.
    pub struct NoLoss, rows OPTS {}
}

impl LossKind for NoLoss {
    const ROWS: &'static [Opt] = Self::OPTS;
    const REQUIRED: &'static [&'static str] = &[];
    const NAME: Named = Named { name: "none", fixed: &[], doc: "no loss" };
    type Model = NoLoss;
    fn build(&self, _: &mut dyn FnMut() -> Stream) -> NoLoss {
        NoLoss {}
    }
}

impl LossProcess for NoLoss {
    #[inline(always)]
    fn apply(&mut self, _: SimTime, _: &mut Packet) -> bool {
        false
    }
}

impl LossModel {
    /// Apply the model to a packet that starts transmission at `t`;
    /// true = lost.
    #[inline(always)]
    pub fn apply(&mut self, t: SimTime, pkt: &mut Packet) -> bool {
        // Most link directions have no loss model: decided without a call.
        if matches!(self, LossModel::None(_)) {
            return false;
        }
        self.apply_model(t, pkt)
    }

    /// A link direction without loss.
    pub fn none() -> LossModel {
        LossModel::None(NoLoss {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PktKind;
    use crate::rng::{Dist, StreamKind};

    fn pkt(size: u32) -> Packet {
        Packet::new(PktKind::Data, 0, 0, 0, size, 0)
    }

    fn stream(i: u64) -> Stream {
        Stream::new(11, StreamKind::LinkLoss, i)
    }

    /// Loss rate and mean length of runs of consecutive losses.
    fn run(m: &mut LossModel, n: u64, size: u32, gap: SimTime) -> (f64, f64) {
        let (mut lost, mut bursts, mut prev) = (0u64, 0u64, false);
        let mut p = pkt(size);
        for i in 0..n {
            let l = m.apply(i * gap, &mut p);
            lost += l as u64;
            bursts += (l && !prev) as u64;
            prev = l;
        }
        (lost as f64 / n as f64, lost as f64 / bursts.max(1) as f64)
    }

    fn within(got: f64, want: f64, rel: f64) {
        assert!((got / want - 1.0).abs() < rel, "got {got}, expected {want} ± {}%", rel * 100.0);
    }

    #[test]
    fn ber_vectors_from_the_reference() {
        // docs/reference.md R8 (ns-2/ns-3 error models, unit bit).
        for (ber, bytes, want) in
            [(1e-6, 1500, 0.011928), (1e-5, 1500, 0.11308), (1e-5, 40, 0.0031949), (1e-4, 1000, 0.55069)]
        {
            let got = ber_packet_loss(ber, bytes);
            assert!((got - want).abs() < 5e-6 * want.max(1e-3) * 10.0, "{ber} {bytes}: {got} vs {want}");
        }
        assert_eq!(ber_packet_loss(0.0, 1500), 0.0);
        assert_eq!(ber_packet_loss(1.0, 40), 1.0);
    }

    #[test]
    fn ber_loss_differs_for_acks_and_data_as_the_formula_says() {
        // 10^6 packets of each size; within 3 % of 1 − (1 − BER)^(8·size).
        let ber = 1e-5;
        let mut m = LossModel::Ber(BitErrors { ber, last: (0, 0.0), rng: stream(1) });
        let (data, _) = run(&mut m, 1_000_000, 1500, 1);
        let (ack, _) = run(&mut m, 1_000_000, 40, 1);
        within(data, 1.0 - (1.0 - ber).powf(8.0 * 1500.0), 0.03);
        within(ack, 1.0 - (1.0 - ber).powf(8.0 * 40.0), 0.03);
    }

    #[test]
    fn gilbert_stationary_loss_and_burst_length() {
        // Reference §12 vector: p = 0.01, r = 0.3 → loss p/(p+r) = 0.03226,
        // mean burst 1/r = 3.33 packets (simple Gilbert: lose all in Bad).
        // 10^7 packets (≈ 97 000 bursts): the estimate's relative standard
        // error is ≈ 0.4 %, so 3 % is far outside chance (10^6 would give ≈ 1.3 %).
        let g = GilbertElliott { p: 0.01, r: 0.3, loss_good: 0.0, loss_bad: 1.0, bad: false, rng: stream(2) };
        let mut m = LossModel::GilbertElliott(Box::new(g));
        let (rate, burst) = run(&mut m, 10_000_000, 1500, 1);
        within(rate, 0.01 / 0.31, 0.03);
        within(burst, 1.0 / 0.3, 0.03);
    }

    #[test]
    fn gilbert_elliott_mean_loss() {
        // loss = (1−k)·r/(p+r) + (1−h)·p/(p+r), with 1−k = 0.001, 1−h = 0.5.
        let (p, r, lg, lb) = (0.02, 0.2, 0.001, 0.5);
        let g = GilbertElliott { p, r, loss_good: lg, loss_bad: lb, bad: false, rng: stream(3) };
        let mut m = LossModel::GilbertElliott(Box::new(g));
        let (rate, _) = run(&mut m, 10_000_000, 1500, 1);
        within(rate, lg * r / (p + r) + lb * p / (p + r), 0.03);
    }

    #[test]
    fn two_state_time_channel_loss_matches_time_in_bad() {
        // Grieco & Mascolo 2004's wireless channel: Good lasts 1 s, Bad lasts d; at the end of
        // a state the next is Bad with probability 0.5. The embedded chain has
        // P(B) = a/(a + b) with a = P(G→B) = 0.5, b = P(B→G) = 0.5, so the share
        // of time in Bad is a·d / (b·1 s + a·d); packets sent at a constant rate
        // are lost with 0.1 in Bad. Here d = 100 ms and 4·10^6 packets 25 ms
        // apart (10^5 s, ≈ 180 000 states): relative standard error ≈ 0.6 %.
        let ms = crate::units::PS_PER_MS as f64;
        for (dist_good, dist_bad) in [
            (Dist::Fixed { value: 1000.0 * ms }, Dist::Fixed { value: 100.0 * ms }),
            (Dist::Exponential { mean: 1000.0 * ms }, Dist::Exponential { mean: 100.0 * ms }),
        ] {
            let mut m =
                LossModel::TwoState(Box::new(TwoStateTime::new(dist_good, dist_bad, 0.0, 0.1, 0.5, 0.5, stream(4))));
            let (rate, _) = run(&mut m, 4_000_000, 1500, 25 * crate::units::PS_PER_MS);
            let share_bad = 0.5 * 100.0 / (0.5 * 1000.0 + 0.5 * 100.0);
            within(rate, 0.1 * share_bad, 0.03);
        }
    }

    #[test]
    fn two_state_time_fixed_durations_follow_the_clock() {
        // Always switch (to_bad_after_good = 1, to_bad_after_bad = 0), Good 10 ps,
        // Bad 5 ps, every packet lost in Bad: the pattern repeats every 15 ps.
        let c =
            TwoStateTime::new(Dist::Fixed { value: 10.0 }, Dist::Fixed { value: 5.0 }, 0.0, 1.0, 1.0, 0.0, stream(5));
        let mut m = LossModel::TwoState(Box::new(c));
        let got: Vec<bool> = (0..30).map(|t| m.apply(t, &mut pkt(100))).collect();
        let want: Vec<bool> = (0..30).map(|t| t % 15 >= 10).collect();
        assert_eq!(got, want);
    }
}
