//! Queue disciplines. A discipline decides, when a packet reaches a link,
//! whether it joins the FIFO. The link computes each packet's departure time
//! at admission (a FIFO with a fixed rate makes it known), so disciplines that
//! decide at enqueue time (DropTail, the RED family, PIE) cost no event of
//! their own. Disciplines that decide at dequeue (CoDel, FQ-CoDel) hold their packets
//! themselves (`DequeueDisc`) and the link takes one when its transmitter
//! frees up, at a service event; see docs/architecture.md.

mod codel;
mod dualpi2;
mod fq_codel;
mod pie;
pub(crate) mod red;

pub use codel::{Codel, CodelParams};
pub use dualpi2::DualPi2;
pub use fq_codel::{FqCodel, FqCodelParams};
pub use pie::Pie;
pub use red::{Adaptive, Red, RedParams};

use crate::config::{LinkCfg, QueueCfg};
use crate::packet::Packet;
use crate::rng::{Stream, StreamKind};
use crate::units::SimTime;

/// What the FIFO holds when a packet arrives: packets waiting (not counting
/// the one being serialized) and their bytes.
#[derive(Clone, Copy, Debug)]
pub struct QueueState {
    pub waiting_pkts: u32,
    pub waiting_bytes: u64,
    /// True when the transmitter is idle, so the packet would start at once.
    pub idle: bool,
    /// When the transmitter last went idle (meaningful when `idle`).
    pub idle_since: SimTime,
    /// Every packet the link holds and has not delivered: waiting, in
    /// service and in the delay line (netem's count).
    pub held_pkts: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    Drop,
    /// Enqueue with CE set if the packet is ECN-capable; drop it otherwise
    /// (RFC 3168 §5: a router marks instead of dropping only ECT packets).
    Mark,
}

pub trait QueueDisc {
    fn name(&self) -> &'static str;
    fn admit(&mut self, now: SimTime, q: QueueState, pkt: &Packet) -> Verdict;
    /// Largest number of waiting packets / bytes this discipline allows
    /// (None when it is not limited in that unit); used for invariant checks.
    fn limit_pkts(&self) -> Option<u32>;
    fn limit_bytes(&self) -> Option<u64>;
    /// Itself, if it is a plain DropTail (decided inline by the link).
    fn as_droptail(&self) -> Option<DropTail> {
        None
    }
    /// The discipline's averaged queue, if it keeps one (RED: packets, or
    /// mean-size packets in byte mode), for the link time series.
    fn avg_queue(&self) -> Option<f64> {
        None
    }
    /// Current maximum marking/drop probability (adaptive RED moves it).
    fn max_p(&self) -> Option<f64> {
        None
    }
}

/// Tail drop: refuse an arriving packet when the waiting packets (or bytes,
/// counting the arriving packet) would exceed the limit. The packet in
/// service does not count, as in ns-2's DropTail where the link holds it.
#[derive(Clone, Copy, Debug)]
pub struct DropTail {
    pub limit_pkts: Option<u32>,
    pub limit_bytes: Option<u64>,
}

impl DropTail {
    /// Whether a packet of `size` bytes is refused with `waiting_pkts` /
    /// `waiting_bytes` already waiting behind a busy transmitter. (The link
    /// calls this directly for DropTail, the common case, instead of going
    /// through the trait object.)
    #[inline(always)]
    pub fn refuses(&self, waiting_pkts: u32, waiting_bytes: u64, size: u32) -> bool {
        self.limit_pkts.is_some_and(|l| waiting_pkts >= l)
            || self.limit_bytes.is_some_and(|l| waiting_bytes + size as u64 > l)
    }
}

impl QueueDisc for DropTail {
    fn name(&self) -> &'static str {
        "droptail"
    }
    #[inline]
    fn admit(&mut self, _now: SimTime, q: QueueState, pkt: &Packet) -> Verdict {
        if !q.idle && self.refuses(q.waiting_pkts, q.waiting_bytes, pkt.size) {
            Verdict::Drop
        } else {
            Verdict::Enqueue
        }
    }
    fn as_droptail(&self) -> Option<DropTail> {
        Some(*self)
    }
    fn limit_pkts(&self) -> Option<u32> {
        self.limit_pkts
    }
    fn limit_bytes(&self) -> Option<u64> {
        self.limit_bytes
    }
}

/// netem's tail drop: refuse a packet when the link already holds
/// `limit_pkts` packets, counting those in the delay line
/// (`QueueCfg::Netem`).
#[derive(Clone, Copy, Debug)]
pub struct Netem {
    pub limit_pkts: u32,
}

impl QueueDisc for Netem {
    fn name(&self) -> &'static str {
        "netem"
    }
    fn admit(&mut self, _now: SimTime, q: QueueState, _pkt: &Packet) -> Verdict {
        if q.held_pkts >= self.limit_pkts {
            Verdict::Drop
        } else {
            Verdict::Enqueue
        }
    }
    fn limit_pkts(&self) -> Option<u32> {
        Some(self.limit_pkts)
    }
    fn limit_bytes(&self) -> Option<u64> {
        None
    }
}

/// A discipline that decides when a packet leaves (CoDel): it holds the
/// waiting packets, and the link asks it for the next one whenever the
/// transmitter is free. Dropped packets are handed back in `drops` so the
/// simulation can account them to their flows.
pub trait DequeueDisc {
    fn name(&self) -> &'static str;
    /// A packet arrives at `now`; it may be dropped (pushed to `drops`).
    fn enqueue(&mut self, now: SimTime, pkt: Packet, drops: &mut Vec<Packet>);
    /// The transmitter is free at `now`: the next packet to send (CE set if
    /// the discipline marks it), after any drops it decides.
    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<Packet>) -> Option<Packet>;
    fn len_pkts(&self) -> u32;
    fn len_bytes(&self) -> u64;
    fn limit_pkts(&self) -> Option<u32>;
    fn limit_bytes(&self) -> Option<u64> {
        None
    }
    /// Packets this discipline has marked CE.
    fn marks(&self) -> u64;
    /// Its marking/drop probability, if it keeps one (DualPI2's p').
    fn prob(&self) -> Option<f64> {
        None
    }
    /// The packets it holds (for conservation checks).
    fn packets(&self) -> Box<dyn Iterator<Item = &Packet> + '_>;
}

/// A link's queue discipline: one that decides as packets arrive (the link's
/// ring then holds the waiting packets), or one that holds the waiting
/// packets itself and decides as they leave.
pub enum Discipline {
    Enqueue(Box<dyn QueueDisc>),
    Dequeue(Box<dyn DequeueDisc>),
}

impl Discipline {
    /// The discipline a link's configuration asks for; `index` picks the
    /// link's random stream.
    pub fn build(l: &LinkCfg, seed: u64, index: u64) -> Discipline {
        let rng = || Stream::new(seed, StreamKind::Queue, index);
        match &l.queue {
            QueueCfg::Droptail { limit_pkts, limit_bytes } => {
                Discipline::Enqueue(Box::new(DropTail { limit_pkts: *limit_pkts, limit_bytes: *limit_bytes }))
            }
            QueueCfg::Netem { limit_pkts } => Discipline::Enqueue(Box::new(Netem { limit_pkts: *limit_pkts })),
            QueueCfg::Red { .. } => Discipline::Enqueue(Box::new(Red::new(RedParams::from_link(l), rng()))),
            QueueCfg::Pie(c) => Discipline::Enqueue(Box::new(Pie::new(*c, rng()))),
            QueueCfg::Codel { limit_pkts, target_ps, interval_ps, mtu, ecn } => {
                Discipline::Dequeue(Box::new(Codel::new(CodelParams {
                    target: *target_ps,
                    interval: *interval_ps,
                    limit_pkts: *limit_pkts,
                    mtu: *mtu as u64,
                    ecn: *ecn,
                })))
            }
            QueueCfg::Dualpi2(c) => Discipline::Dequeue(Box::new(DualPi2::new(*c, rng()))),
            QueueCfg::FqCodel { limit_pkts, target_ps, interval_ps, mtu, ecn, quantum, buckets } => {
                let codel = CodelParams {
                    target: *target_ps,
                    interval: *interval_ps,
                    limit_pkts: *limit_pkts,
                    mtu: *mtu as u64,
                    ecn: *ecn,
                };
                // Linux draws a hash perturbation at setup; here from the link's stream.
                let perturb = rng().next_u64();
                Discipline::Dequeue(Box::new(FqCodel::new(FqCodelParams {
                    codel,
                    limit_pkts: *limit_pkts,
                    quantum: *quantum,
                    buckets: *buckets,
                    perturb,
                })))
            }
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Discipline::Enqueue(d) => d.name(),
            Discipline::Dequeue(d) => d.name(),
        }
    }

    pub fn limit_pkts(&self) -> Option<u32> {
        match self {
            Discipline::Enqueue(d) => d.limit_pkts(),
            Discipline::Dequeue(d) => d.limit_pkts(),
        }
    }

    pub fn limit_bytes(&self) -> Option<u64> {
        match self {
            Discipline::Enqueue(d) => d.limit_bytes(),
            Discipline::Dequeue(d) => d.limit_bytes(),
        }
    }

    /// RED's average queue (None for the others).
    pub fn avg_queue(&self) -> Option<f64> {
        match self {
            Discipline::Enqueue(d) => d.avg_queue(),
            Discipline::Dequeue(_) => None,
        }
    }

    /// RED's current max_p, PIE's and DualPI2's probability (None for the others).
    pub fn max_p(&self) -> Option<f64> {
        match self {
            Discipline::Enqueue(d) => d.max_p(),
            Discipline::Dequeue(d) => d.prob(),
        }
    }
}
