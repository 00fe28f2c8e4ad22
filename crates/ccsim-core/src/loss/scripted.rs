//! Scripted losses, for tests: lose the packets with these 1-based arrival
//! numbers on this link direction ("drop data packets 30, 32 and 34").

use super::{LossKind, LossProcess};
use crate::opts::{options, Kind, Named, Opt};
use crate::packet::Packet;
use crate::rng::Stream;
use crate::units::SimTime;

options! {
    /// Test: lose these packets.
    pub struct ScriptedCfg, rows OPTS, required {
        drop: Vec<u64> => ("drop", Kind::Packets, "", "1-based numbers of the packets to lose on this link direction (tests)"),
    }
}

impl LossKind for ScriptedCfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    const REQUIRED: &'static [&'static str] = Self::REQUIRED;
    const NAME: Named = Named { name: "scripted", fixed: &[], doc: "test: lose these packets" };
    type Model = Scripted;
    fn build(&self, _: &mut dyn FnMut() -> Stream) -> Scripted {
        Scripted { drops: self.drop.clone(), next: 0, count: 0 }
    }
}

/// The script at work: `count` packets seen, `next` the next number to lose.
pub struct Scripted {
    pub drops: Vec<u64>,
    pub next: usize,
    pub count: u64,
}

impl LossProcess for Scripted {
    #[inline(always)]
    fn apply(&mut self, _: SimTime, _: &mut Packet) -> bool {
        self.count += 1;
        if self.next < self.drops.len() && self.drops[self.next] == self.count {
            self.next += 1;
            true
        } else {
            false
        }
    }
}
