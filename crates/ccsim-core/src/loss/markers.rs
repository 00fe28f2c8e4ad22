//! The test markers of RFC 3168 experiments: a link that sets CE on chosen
//! ECN-capable packets (every n-th, or scripted numbers). A measuring
//! device, not a model of a router: packets that are not ECN-capable pass
//! untouched, and none is lost.

use super::{LossKind, LossProcess};
use crate::opts::{options, Kind, Named, Opt};
use crate::packet::Packet;
use crate::rng::Stream;
use crate::units::SimTime;

options! {
    /// Test: mark every n-th ECN-capable packet.
    pub struct CeEveryCfg, rows OPTS, required {
        n: u64 => ("n", Kind::Int { lo: 1, hi: u64::MAX }, "packets", "test marker: CE on every n-th ECN-capable packet"),
    }
}

impl LossKind for CeEveryCfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    const REQUIRED: &'static [&'static str] = Self::REQUIRED;
    const NAME: Named = Named { name: "ce_every", fixed: &[], doc: "test: mark every n-th ECN-capable packet" };
    type Model = CeEvery;
    fn build(&self, _: &mut dyn FnMut() -> Stream) -> CeEvery {
        CeEvery { n: self.n, count: 0 }
    }
}

/// Set CE on every `n`-th ECN-capable packet (counted from 1).
pub struct CeEvery {
    pub n: u64,
    pub count: u64,
}

impl LossProcess for CeEvery {
    #[inline(always)]
    fn apply(&mut self, _: SimTime, pkt: &mut Packet) -> bool {
        if pkt.ecn.capable() {
            self.count += 1;
            if self.count.is_multiple_of(self.n) {
                pkt.ecn.mark();
            }
        }
        false
    }
}

options! {
    /// Test: mark these ECN-capable packets.
    pub struct CeScriptedCfg, rows OPTS, required {
        mark: Vec<u64> => ("mark", Kind::Packets, "", "test marker: CE on these 1-based ECN-capable packets"),
    }
}

impl LossKind for CeScriptedCfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    const REQUIRED: &'static [&'static str] = Self::REQUIRED;
    const NAME: Named = Named { name: "ce_scripted", fixed: &[], doc: "test: mark these ECN-capable packets" };
    type Model = CeScripted;
    fn build(&self, _: &mut dyn FnMut() -> Stream) -> CeScripted {
        CeScripted { marks: self.mark.clone(), next: 0, count: 0 }
    }
}

/// Set CE on the ECN-capable packets with these 1-based numbers (counted
/// over ECN-capable packets only).
pub struct CeScripted {
    pub marks: Vec<u64>,
    pub next: usize,
    pub count: u64,
}

impl LossProcess for CeScripted {
    #[inline(always)]
    fn apply(&mut self, _: SimTime, pkt: &mut Packet) -> bool {
        if pkt.ecn.capable() {
            self.count += 1;
            if self.next < self.marks.len() && self.marks[self.next] == self.count {
                self.next += 1;
                pkt.ecn.mark();
            }
        }
        false
    }
}
