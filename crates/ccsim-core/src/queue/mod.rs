//! Queue disciplines. A discipline decides, when a packet reaches a link,
//! whether it joins the FIFO. The link computes each packet's departure time
//! at admission (a FIFO with a fixed rate makes it known), so disciplines that
//! decide at enqueue time (DropTail, the RED family, PIE) cost no event of
//! their own. Disciplines that decide at dequeue (CoDel, FQ-CoDel) hold their packets
//! themselves (`DequeueDisc`) and the link takes one when its transmitter
//! frees up, at a service event; see docs/architecture.md.
//!
//! Each kind is one file: its options declared once (`opts::options!`),
//! its scenario names, buffer, rules and builder (`QueueKind`), and the
//! model. The registry (`queues!` below) lists each kind once and yields
//! the configuration enum, the schema's list of kinds and the dispatch.

mod codel;
mod dualpi2;
#[cfg(test)]
mod every_nth;
mod fq_codel;
mod pie;
pub(crate) mod red;

pub use codel::{Codel, CodelCfg, CodelParams};
pub use dualpi2::{DualPi2, DualPi2Cfg, EcnMask};
pub use fq_codel::{FqCodel, FqCodelCfg, FqCodelParams};
pub use pie::{Pie, PieCfg};
pub use red::{Adaptive, Red, RedAdaptiveCfg, RedCfg, RedParams};

use crate::opts::{check_kinds, options, Broken, Kind, Named, Opt, Variant};
use crate::packet::Packet;
use crate::rng::{Stream, StreamKind};
use crate::units::SimTime;

/// The shortest update period of a PI controller (PIE, DualPI2): 1 µs.
/// Linux counts both in microseconds, and a shorter period would be an
/// event storm.
pub const MIN_T_UPDATE_PS: SimTime = crate::units::PS_PER_US;
pub(crate) const T_UPDATE: Kind = Kind::TimeFloor {
    min_ps: MIN_T_UPDATE_PS,
    accepted: "a time ≥ 1us (Linux counts the update period in microseconds)",
};
pub(crate) const HZ: Kind = Kind::Number { lo: 0.0, hi: f64::INFINITY, lo_open: false };
pub(crate) const PKT_BYTES: Kind = Kind::Int { lo: 1, hi: 65_535 };

/// What a discipline reads of its link when it is built: RED sets its
/// automatic parameters from them (ns-2's initialize_params).
#[derive(Clone, Copy, Debug)]
pub struct LinkFacts {
    /// The transmitter's rate, bit/s.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay_ps: SimTime,
}

/// A queue discipline's configuration, implemented in its kind's own file.
pub trait QueueKind: Sized {
    /// Its option rows (declared with the fields by `opts::options!`).
    const ROWS: &'static [Opt];
    /// The names a scenario gives it (RED has four), in documentation order.
    const NAMES: &'static [Named];
    /// The buffer of a link direction whose scenario gives none, as a
    /// scenario writes it: one bandwidth-delay product (Villamizar & Song
    /// 1994's rule of thumb, the usual choice in congestion-control
    /// studies) unless the kind says otherwise.
    const DEFAULT_BUFFER: &'static str = "1bdp";
    /// Its hard limit: packets, bytes (a kind without a byte limit says
    /// None and has no `limit_bytes` field).
    fn buffer(&self) -> (Option<u32>, Option<u64>);
    /// Rules between its options, beyond each option's kind.
    fn rules(&self) -> Result<(), Broken> {
        Ok(())
    }
    /// The discipline; `rng` gives the link's random stream.
    fn build(&self, link: LinkFacts, rng: &mut dyn FnMut() -> Stream) -> Discipline;
}

/// The registry: one line per kind, `Variant(Cfg) = "tag"`. It yields
/// `QueueCfg` (the enum a link's `queue` deserializes into, tagged by
/// `kind`), its dispatch, and `queues()` (every scenario name, for the
/// schema). A line may carry attributes (`#[cfg(test)]`).
macro_rules! queues {
    ($( $(#[$m:meta])* $variant:ident($cfg:ty) = $tag:literal ),* $(,)?) => {
        /// A link direction's queue discipline as configured.
        #[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
        #[serde(deny_unknown_fields, tag = "kind")]
        pub enum QueueCfg {
            $( $(#[$m])* #[serde(rename = $tag)] $variant($cfg), )*
        }

        impl QueueCfg {
            /// The hard limit: packets, bytes.
            pub fn buffer(&self) -> (Option<u32>, Option<u64>) {
                match self { $( $(#[$m])* QueueCfg::$variant(c) => c.buffer(), )* }
            }

            /// Each option's value against its kind, then the rules between
            /// options. `Broken::option` is an option as a scenario writes
            /// it, or a field the kind's name sets (`gentle`, `adaptive`).
            pub fn rules(&self) -> Result<(), Broken> {
                match self {
                    $( $(#[$m])* QueueCfg::$variant(c) => {
                        // a kind without options skips the serialisation (a
                        // 100,000-flow dumbbell has 400,000 access links)
                        if !<$cfg as QueueKind>::ROWS.is_empty() {
                            let v = serde_json::to_value(c).expect("a queue configuration serializes");
                            check_kinds(<$cfg as QueueKind>::ROWS, &v)?;
                        }
                        c.rules()
                    } )*
                }
            }

            /// The discipline this configuration asks for; `index` picks
            /// the link's random stream.
            pub fn build(&self, link: LinkFacts, seed: u64, index: u64) -> Discipline {
                let mut rng = || Stream::new(seed, StreamKind::Queue, index);
                match self { $( $(#[$m])* QueueCfg::$variant(c) => c.build(link, &mut rng), )* }
            }
        }

        /// Every name a scenario gives a queue kind, in documentation order.
        pub fn queues() -> Vec<Variant> {
            let mut out = Vec::new();
            $( $(#[$m])* for n in <$cfg as QueueKind>::NAMES {
                out.push(Variant {
                    name: n.name, core: $tag, fixed: n.fixed, opts: <$cfg as QueueKind>::ROWS,
                    required: &[], doc: n.doc,
                });
            } )*
            out
        }

        /// The buffer a kind (`core`, its tag) gets where the scenario gives none.
        pub fn default_buffer(core: &str) -> Option<&'static str> {
            $( $(#[$m])* if core == $tag { return Some(<$cfg as QueueKind>::DEFAULT_BUFFER); } )*
            None
        }
    };
}

queues! {
    Droptail(DropTailCfg) = "droptail",
    Netem(NetemCfg) = "netem",
    Red(red::RedCfg) = "red",
    Codel(codel::CodelCfg) = "codel",
    FqCodel(fq_codel::FqCodelCfg) = "fq_codel",
    Pie(pie::PieCfg) = "pie",
    Dualpi2(dualpi2::DualPi2Cfg) = "dualpi2",
    #[cfg(test)]
    EveryNth(every_nth::EveryNthCfg) = "every_nth",
}

/// The queue of a link whose scenario names none: a FIFO that drops
/// arrivals once full (ns-2's DropTail, Linux pfifo), the queue every
/// congestion-control paper compares against.
pub const DEFAULT_QUEUE: &str = "droptail";

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

options! {
    /// DropTail: its buffer only (set from the link's).
    pub struct DropTailCfg, rows OPTS {
        limit_pkts: Option<u32> = None,
        limit_bytes: Option<u64> = None,
    }
}

impl QueueKind for DropTailCfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    const NAMES: &'static [Named] =
        &[Named { name: "droptail", fixed: &[], doc: "tail drop at the buffer (packets or bytes)" }];
    fn buffer(&self) -> (Option<u32>, Option<u64>) {
        (self.limit_pkts, self.limit_bytes)
    }
    fn build(&self, _: LinkFacts, _: &mut dyn FnMut() -> Stream) -> Discipline {
        Discipline::Enqueue(Box::new(DropTail { limit_pkts: self.limit_pkts, limit_bytes: self.limit_bytes }))
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

options! {
    /// Linux netem's queue (`net/sched/sch_netem.c`, `netem_enqueue`): a
    /// packet is refused when the packets the link holds — waiting,
    /// shaped and in the delay line, until they reach the far end — number
    /// `limit_pkts` (netem keeps a packet through its delay).
    pub struct NetemCfg, rows OPTS {
        limit_pkts: u32 = 0,
    }
}

impl QueueKind for NetemCfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    const NAMES: &'static [Named] = &[Named {
        name: "netem",
        fixed: &[],
        doc: "Linux netem's queue: the buffer counts every packet the link holds, in its delay line too (tc's default limit 1000)",
    }];
    /// netem's own default limit of 1000 packets (iproute2 tc/q_netem.c,
    /// `netem_parse_opt`: `opt.limit = 1000`), as `tc qdisc add ... netem`
    /// written without a limit.
    const DEFAULT_BUFFER: &'static str = "1000pkt";
    fn buffer(&self) -> (Option<u32>, Option<u64>) {
        (Some(self.limit_pkts), None)
    }
    fn build(&self, _: LinkFacts, _: &mut dyn FnMut() -> Stream) -> Discipline {
        Discipline::Enqueue(Box::new(Netem { limit_pkts: self.limit_pkts }))
    }
}

/// netem's tail drop: refuse a packet when the link already holds
/// `limit_pkts` packets, counting those in the delay line
/// (`NetemCfg`).
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
