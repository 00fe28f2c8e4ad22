//! Per-packet channel models applied per link direction, each with its own
//! random stream. A lost packet still occupies the transmitter (it was sent
//! and corrupted on the wire) and is discarded when it would have arrived.
//!
//! Besides losses this holds the test marker of RFC 3168 experiments: a link
//! that sets CE on chosen ECN-capable packets (every n-th, or scripted
//! numbers). It is a measuring device, not a model of a router: packets that
//! are not ECN-capable pass untouched. Marking by a congested queue (RED and
//! friends) is the queue discipline's job (`queue::Verdict::Mark`).

use crate::packet::{Packet, ECN_CE, ECN_ECT};
use crate::rng::Stream;

pub enum LossModel {
    None,
    /// Each packet is lost independently with probability `p`.
    Bernoulli { p: f64, rng: Stream },
    /// Lose the packets with these 1-based arrival numbers on this link
    /// direction (for tests: "drop data packets 30, 32 and 34").
    Scripted { drops: Vec<u64>, next: usize, count: u64 },
    /// Set CE on every `n`-th ECN-capable packet (counted from 1).
    CeEvery { n: u64, count: u64 },
    /// Set CE on the ECN-capable packets with these 1-based numbers
    /// (counted over ECN-capable packets only).
    CeScripted { marks: Vec<u64>, next: usize, count: u64 },
}

impl LossModel {
    /// Apply the model to a packet entering the wire; true = lost.
    #[inline]
    pub fn apply(&mut self, pkt: &mut Packet) -> bool {
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
            LossModel::CeEvery { n, count } => {
                if pkt.ecn & ECN_ECT != 0 {
                    *count += 1;
                    if *count % *n == 0 {
                        pkt.ecn |= ECN_CE;
                    }
                }
                false
            }
            LossModel::CeScripted { marks, next, count } => {
                if pkt.ecn & ECN_ECT != 0 {
                    *count += 1;
                    if *next < marks.len() && marks[*next] == *count {
                        *next += 1;
                        pkt.ecn |= ECN_CE;
                    }
                }
                false
            }
        }
    }
}
