//! Loss models applied per link direction, each with its own random stream.
//! A lost packet still occupies the transmitter (it was sent and corrupted on
//! the wire) and is discarded when it would have arrived.

use crate::rng::Stream;

pub enum LossModel {
    None,
    /// Each packet is lost independently with probability `p`.
    Bernoulli { p: f64, rng: Stream },
    /// Lose the packets with these 1-based arrival numbers on this link
    /// direction (for tests: "drop data packets 30, 32 and 34").
    Scripted { drops: Vec<u64>, next: usize, count: u64 },
}

impl LossModel {
    #[inline]
    pub fn lose(&mut self) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p, rng } => rng.bernoulli(*p),
            LossModel::Scripted { drops, next, count } => {
                *count += 1;
                if *next < drops.len() && drops[*next] == *count {
                    *next += 1;
                    true
                } else {
                    false
                }
            }
        }
    }
}
