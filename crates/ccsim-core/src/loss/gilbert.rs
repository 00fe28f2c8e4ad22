//! Gilbert–Elliott per-packet chain (Gilbert 1960, Elliott 1963): before
//! each packet the chain moves Good→Bad with probability `p` and Bad→Good
//! with probability `r`; the packet is then lost with `loss_good` or
//! `loss_bad`. Stationary P(Bad) = p/(p + r); with loss_good = 0 and
//! loss_bad = 1 the loss bursts are geometric with mean 1/r.

use super::{LossKind, LossProcess, P};
use crate::opts::{options, Broken, Named, Opt};
use crate::packet::Packet;
use crate::rng::Stream;
use crate::units::SimTime;

options! {
    /// Gilbert–Elliott chain stepped before each packet.
    pub struct GilbertCfg, rows OPTS, required {
        p: f64 => ("p", P, "", "P(Good → Bad) before each packet"),
        r: f64 => ("r", P, "", "P(Bad → Good) before each packet (simple Gilbert: mean burst 1/r)"),
        loss_good: f64 = 0.0 => ("loss_good", P, "", "loss probability in Good (1 − k)"),
        loss_bad: f64 = 1.0 => ("loss_bad", P, "", "loss probability in Bad (1 − h)"),
    }
}

impl LossKind for GilbertCfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    const REQUIRED: &'static [&'static str] = Self::REQUIRED;
    const NAME: Named =
        Named { name: "gilbert", fixed: &[], doc: "Gilbert–Elliott chain stepped before each packet" };
    type Model = Box<GilbertElliott>;
    fn rules(&self) -> Result<(), Broken> {
        if self.p + self.r == 0.0 {
            return Err(Broken {
                option: "r",
                got: format!("{}", self.r),
                expected: "p + r > 0 (with both 0 the chain never moves)".into(),
            });
        }
        Ok(())
    }
    fn build(&self, rng: &mut dyn FnMut() -> Stream) -> Box<GilbertElliott> {
        let GilbertCfg { p, r, loss_good, loss_bad } = *self;
        Box::new(GilbertElliott { p, r, loss_good, loss_bad, bad: false, rng: rng() })
    }
}

/// The chain at work (boxed in `LossModel` to keep the enum small).
pub struct GilbertElliott {
    pub p: f64,
    pub r: f64,
    pub loss_good: f64,
    pub loss_bad: f64,
    pub bad: bool,
    pub rng: Stream,
}

impl LossProcess for GilbertElliott {
    #[inline(always)]
    fn apply(&mut self, _: SimTime, _: &mut Packet) -> bool {
        self.bad = if self.bad { !self.rng.bernoulli(self.r) } else { self.rng.bernoulli(self.p) };
        let q = if self.bad { self.loss_bad } else { self.loss_good };
        q > 0.0 && self.rng.bernoulli(q)
    }
}
