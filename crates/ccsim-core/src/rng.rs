//! Seeded random streams. Every random process (a link's loss model, a
//! traffic source) owns its own stream, derived from the run seed and a
//! stable component key, so adding a flow never changes another component's
//! draws.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Stream kinds: part of the derivation key so two component kinds with the
/// same index never share a stream.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum StreamKind {
    LinkLoss = 1,
    Flow = 2,
    /// A congestion-control algorithm's own draws (BBR's gain-cycle start).
    Cc = 3,
    /// A queue discipline's draws (RED's early drops), per link direction.
    Queue = 4,
}

/// SplitMix64 finaliser, used only to mix the derivation key.
fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub struct Stream {
    rng: Xoshiro256PlusPlus,
}

impl Stream {
    pub fn new(seed: u64, kind: StreamKind, index: u64) -> Self {
        let key = mix64(mix64(seed) ^ mix64((kind as u64) << 56 ^ index));
        Stream { rng: Xoshiro256PlusPlus::seed_from_u64(key) }
    }

    /// Uniform in [0, 1) with 53 random bits.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn streams_are_reproducible_and_independent() {
        let mut a = Stream::new(1, StreamKind::LinkLoss, 3);
        let mut b = Stream::new(1, StreamKind::LinkLoss, 3);
        let mut c = Stream::new(1, StreamKind::LinkLoss, 4);
        let xa: Vec<f64> = (0..5).map(|_| a.uniform()).collect();
        let xb: Vec<f64> = (0..5).map(|_| b.uniform()).collect();
        let xc: Vec<f64> = (0..5).map(|_| c.uniform()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn bernoulli_rate_within_sampling_error() {
        // n = 1e6, p = 0.01: sd of the estimate = sqrt(p(1-p)/n) ≈ 1e-4; allow 5 sd.
        let mut s = Stream::new(42, StreamKind::LinkLoss, 0);
        let n = 1_000_000;
        let k = (0..n).filter(|_| s.bernoulli(0.01)).count();
        let est = k as f64 / n as f64;
        assert!((est - 0.01).abs() < 5.0 * (0.01f64 * 0.99 / n as f64).sqrt(), "{est}");
    }
}
