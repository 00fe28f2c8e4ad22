//! Independent losses: each packet is lost with probability `p`.

use super::{LossKind, LossProcess, P};
use crate::opts::{options, Named, Opt};
use crate::packet::Packet;
use crate::rng::Stream;
use crate::units::SimTime;

options! {
    /// Independent losses.
    pub struct BernoulliCfg, rows OPTS, required {
        p: f64 => ("p", P, "", "each packet lost independently with probability p"),
    }
}

impl LossKind for BernoulliCfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    const REQUIRED: &'static [&'static str] = Self::REQUIRED;
    const NAME: Named = Named { name: "bernoulli", fixed: &[], doc: "independent losses" };
    type Model = Bernoulli;
    fn build(&self, rng: &mut dyn FnMut() -> Stream) -> Bernoulli {
        Bernoulli { p: self.p, rng: rng() }
    }
}

/// Each packet is lost independently with probability `p`.
pub struct Bernoulli {
    pub p: f64,
    pub rng: Stream,
}

impl LossProcess for Bernoulli {
    #[inline(always)]
    fn apply(&mut self, _: SimTime, _: &mut Packet) -> bool {
        self.rng.bernoulli(self.p)
    }
}
