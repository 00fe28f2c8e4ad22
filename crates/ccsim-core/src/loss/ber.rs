//! Independent bit errors: a packet of `size` bytes is lost with
//! P = 1 − (1 − ber)^(8·size) (ns-2 ErrorModel unit_ bit, as Lee, Seo & Park
//! use it), so 40-byte ACKs and 1500-byte segments differ.

use super::{LossKind, LossProcess, P};
use crate::opts::{options, Named, Opt};
use crate::packet::Packet;
use crate::rng::Stream;
use crate::units::SimTime;

options! {
    /// Bit errors.
    pub struct BerCfg, rows OPTS, required {
        ber: f64 => ("ber", P, "", "bit-error rate: a packet of s bytes is lost with 1 − (1 − ber)^(8·s) (ACKs less than data)"),
    }
}

impl LossKind for BerCfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    const REQUIRED: &'static [&'static str] = Self::REQUIRED;
    const NAME: Named = Named { name: "ber", fixed: &[], doc: "bit errors" };
    type Model = BitErrors;
    fn build(&self, rng: &mut dyn FnMut() -> Stream) -> BitErrors {
        BitErrors { ber: self.ber, last: (0, 0.0), rng: rng() }
    }
}

/// P(packet of `bytes` bytes has at least one bit error) = 1 − (1 − ber)^(8·bytes),
/// computed as −expm1(8·bytes·ln(1 − ber)) to keep precision for small ber.
pub fn ber_packet_loss(ber: f64, bytes: u32) -> f64 {
    if ber >= 1.0 {
        return 1.0;
    }
    -(8.0 * bytes as f64 * (-ber).ln_1p()).exp_m1()
}

/// Bit errors at rate `ber`; `last` caches the probability of the last
/// size seen.
pub struct BitErrors {
    pub ber: f64,
    pub last: (u32, f64),
    pub rng: Stream,
}

impl LossProcess for BitErrors {
    #[inline(always)]
    fn apply(&mut self, _: SimTime, pkt: &mut Packet) -> bool {
        if self.last.0 != pkt.size {
            self.last = (pkt.size, ber_packet_loss(self.ber, pkt.size));
        }
        self.rng.bernoulli(self.last.1)
    }
}
