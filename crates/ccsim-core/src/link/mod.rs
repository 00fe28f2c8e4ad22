//! One direction of a link: a FIFO transmitter of fixed rate, a queue
//! discipline, a loss model and a propagation delay.
//!
//! Speed: because the FIFO drains at a fixed rate, a packet's transmission
//! start, end and arrival at the far end are all known when it is admitted.
//! The link therefore keeps every packet it holds (waiting, in service or
//! propagating) in one ring ordered by arrival time and schedules a single
//! event: the arrival of its head packet. Queue occupancy at any instant is
//! the number of ring entries whose transmission has not started yet.
//!
//! Reordering (`reorder`, netem-like): with it, a packet leaving the ring at
//! its FIFO arrival time draws an extra delay (uniform jitter, and/or a fixed
//! delay with some probability) and waits it out in a heap ordered by its new
//! arrival time, so packets behind it overtake it; the link's next event is
//! the earlier of the ring's head and the heap's top. Links without it never
//! touch the heap.

use crate::loss::LossModel;
use crate::packet::Packet;
use crate::queue::{Discipline, QueueState, Verdict};
use crate::ring::Ring;
use crate::units::SimTime;

mod reorder;
pub mod trace;
mod transmitter;
pub use reorder::Reorder;
pub use transmitter::{BucketRule, BucketTx, ScheduleTx, Transmitter};

#[derive(Clone, Copy, Debug)]
pub struct Slot {
    pub tx_start: SimTime,
    pub arrive: SimTime,
    pub pkt: Packet,
    pub lost: bool,
}

/// `repr(C)`: the counters every admitted packet updates fill the first 48
/// bytes (one cache line of `Link`), the drop counters follow.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct LinkStats {
    /// Packets offered to the link (admitted + dropped by the queue).
    pub pkts_offered: u64,
    pub pkts_tx: u64,
    pub bytes_tx: u64,
    /// Picoseconds the transmitter was busy (clipped to the run at the end).
    pub busy_ps: u64,
    pub max_waiting_bytes: u64,
    pub max_waiting_pkts: u32,
    /// Largest number of waiting packets since the last sample (the series'
    /// `queue_max_pkts`, so that peaks between samples are not lost).
    pub interval_max_pkts: u32,
    /// Packets refused by the queue discipline.
    pub drops: u64,
    /// Packets lost on the wire by the loss model.
    pub losses: u64,
    /// ECN-capable packets this link marked CE (queue or test marker).
    pub marks: u64,
}

pub enum Admission {
    Dropped,
    /// Accepted; `Some(t)` when the ring was empty and the caller must
    /// schedule this link's arrival event at `t`.
    Accepted(Option<SimTime>),
}

/// `repr(C)` keeps the declared order, and the struct is aligned to 64
/// bytes: the fields every packet reads (ring, transmitter times, limits,
/// flags) fill the first two cache lines and its counters and loss model the
/// next two, so a link last used milliseconds ago costs at most four misses
/// instead of the six its scattered fields did (with thousands of flows,
/// their access links are rarely in cache).
#[repr(C, align(64))]
pub struct Link {
    // --- per packet
    ring: Ring<Slot>,
    /// Transmission start of the oldest waiting packet (`SimTime::MAX` when
    /// none waits): `advance` has nothing to do before it.
    next_start: SimTime,
    busy_until: SimTime,
    waiting_bytes: u64,
    pub delay: SimTime,
    /// Service times (and the capacity).
    tx: Transmitter,
    /// Reordering, if the direction has it.
    pub reorder: Option<Box<Reorder>>,
    /// The discipline's limits when it is a plain DropTail, decided inline.
    droptail: Option<crate::queue::DropTail>,
    waiting_pkts: u32,
    /// The simulation has an arrival event of this link pending (kept here,
    /// beside the ring it describes, rather than in a separate table).
    pending: bool,
    /// `disc` decides at dequeue time (read per packet; `disc` itself is
    /// not).
    dequeue: bool,
    /// `loss` is `LossModel::None` (read per packet; `loss` lies beyond
    /// the counters).
    lossless: bool,
    pub stats: LinkStats,
    loss: LossModel,
    // --- the rest
    pub disc: Discipline,
    /// Time of the service event the simulation has been asked for.
    service_at: Option<SimTime>,
    /// Packets the dequeue-time discipline dropped, for the simulation to
    /// account to their flows.
    dropped: Vec<Packet>,
    pub name: String,
    pub from: u32,
    pub to: u32,
}

/// Ask the CPU to start loading the per-packet part of a link (its first
/// two cache lines) ahead of use; a hint only, with no effect on results.
#[inline(always)]
pub fn prefetch(link: &Link) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = link as *const Link as *const i8;
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch never
        // faults or changes memory, whatever the address.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
        }
    }
}

impl Link {
    pub fn new(
        name: String,
        from: u32,
        to: u32,
        tx: Transmitter,
        delay: SimTime,
        disc: Discipline,
        loss: LossModel,
    ) -> Self {
        Link {
            name,
            from,
            to,
            delay,
            lossless: matches!(loss, LossModel::None(_)),
            loss,
            ring: Ring::default(),
            waiting_pkts: 0,
            waiting_bytes: 0,
            next_start: SimTime::MAX,
            busy_until: 0,
            tx,
            stats: LinkStats::default(),
            service_at: None,
            droptail: match &disc {
                Discipline::Enqueue(d) => d.as_droptail(),
                Discipline::Dequeue(_) => None,
            },
            dequeue: matches!(disc, Discipline::Dequeue(_)),
            disc,
            dropped: Vec::new(),
            reorder: None,
            pending: false,
        }
    }

    /// Link `i` of a validated scenario with its discipline, loss model and
    /// reordering, each drawing from its own random stream. The real-time
    /// forwarder of the emulation backend builds its links with this too, so
    /// both backends run the same queue and loss code.
    pub fn build(sc: &crate::config::Scenario, i: usize) -> Link {
        let l = &sc.links[i];
        let disc = l.queue.build(l.queue_facts(), sc.seed, i as u64);
        let loss = LossModel::build(&l.loss, sc.seed, i as u64);
        let mut link = Link::new(l.name.clone(), l.from, l.to, Transmitter::for_link(l), l.delay_ps, disc, loss);
        if l.reorder.is_on() {
            let rng = crate::rng::Stream::new(sc.seed, crate::rng::StreamKind::LinkReorder, i as u64);
            link.reorder =
                Some(Box::new(Reorder::new(l.reorder.jitter_ps, l.reorder.probability, l.reorder.delay_ps, rng)));
        }
        link
    }

    /// Whether the discipline decides at dequeue time (CoDel, FQ-CoDel): its
    /// waiting packets live in it and the transmitter takes them one at a
    /// time at service events.
    #[inline]
    pub fn dequeue_time(&self) -> bool {
        self.dequeue
    }

    /// Dequeue-time mode: give the transmitter every packet it can start by
    /// `now`, each at the instant it frees up. `fresh`: the first of them
    /// arrived to an idle link just now (it did not wait behind another).
    pub fn serve_until(&mut self, now: SimTime) {
        self.serve(now, false);
    }

    fn serve(&mut self, now: SimTime, fresh: bool) {
        let Discipline::Dequeue(aqm) = &mut self.disc else { return };
        let mut waited = !fresh;
        while self.busy_until <= now && aqm.len_pkts() > 0 {
            let t = self.busy_until;
            let before = self.dropped.len();
            let next = aqm.dequeue(t, &mut self.dropped);
            self.stats.drops += (self.dropped.len() - before) as u64;
            let Some(mut pkt) = next else { break };
            let (t, end) = self.tx.transmit(t, waited, pkt.size);
            waited = true;
            let ser = end - t;
            self.busy_until = end;
            self.stats.busy_ps += ser;
            self.stats.pkts_tx += 1;
            self.stats.bytes_tx += pkt.size as u64;
            let was_ce = pkt.ecn.is_ce();
            let lost = self.loss.apply(t, &mut pkt);
            if !was_ce && pkt.ecn.is_ce() {
                self.stats.marks += 1;
            }
            self.ring.push_back(Slot { tx_start: t, arrive: t + ser + self.delay, pkt, lost });
        }
    }

    /// Dequeue-time mode: the time of a service event the simulation must
    /// schedule (packets wait and the transmitter frees up later), once.
    pub fn service_request(&mut self) -> Option<SimTime> {
        let Discipline::Dequeue(aqm) = &self.disc else { return None };
        if aqm.len_pkts() > 0 && self.service_at != Some(self.busy_until) {
            self.service_at = Some(self.busy_until);
            return self.service_at;
        }
        None
    }

    /// Dequeue-time mode: a service event fires at `now`.
    pub fn on_service(&mut self, now: SimTime) {
        if self.service_at == Some(now) {
            self.service_at = None;
        }
        self.serve_until(now);
    }

    fn enqueue_aqm(&mut self, now: SimTime, pkt: Packet) -> Admission {
        self.serve_until(now);
        self.stats.pkts_offered += 1;
        let was_empty = self.ring.is_empty();
        let Discipline::Dequeue(aqm) = &mut self.disc else { unreachable!("called in dequeue-time mode only") };
        let before = self.dropped.len();
        aqm.enqueue(now, pkt, &mut self.dropped);
        self.stats.drops += (self.dropped.len() - before) as u64;
        let (qp, qb) = (aqm.len_pkts(), aqm.len_bytes());
        self.stats.max_waiting_pkts = self.stats.max_waiting_pkts.max(qp);
        self.stats.interval_max_pkts = self.stats.interval_max_pkts.max(qp);
        self.stats.max_waiting_bytes = self.stats.max_waiting_bytes.max(qb);
        // An idle transmitter takes the packet at once.
        let fresh = self.busy_until <= now;
        self.busy_until = self.busy_until.max(now);
        self.serve(now, fresh);
        let head = if was_empty { self.ring.front().map(|s| s.arrive) } else { None };
        self.debug_check();
        Admission::Accepted(head)
    }

    /// Bring the waiting counters up to `now`: packets whose transmission has
    /// started leave the queue. Waiting packets are the ring's tail.
    #[inline]
    fn advance(&mut self, now: SimTime) {
        if now < self.next_start {
            return;
        }
        self.next_start = SimTime::MAX;
        while self.waiting_pkts > 0 {
            let idx = self.ring.len() - self.waiting_pkts as usize;
            let s = self.ring.get(idx).expect("waiting packets are in the ring");
            if s.tx_start <= now {
                self.waiting_pkts -= 1;
                self.waiting_bytes -= s.pkt.size as u64;
            } else {
                self.next_start = s.tx_start;
                break;
            }
        }
    }

    /// Offer a packet to the link at time `now`.
    #[inline]
    pub fn enqueue(&mut self, now: SimTime, mut pkt: Packet) -> Admission {
        if self.dequeue_time() {
            return self.enqueue_aqm(now, pkt);
        }
        self.advance(now);
        self.stats.pkts_offered += 1;
        let idle = self.busy_until <= now;
        let verdict = match &self.droptail {
            Some(dt) => {
                if !idle && dt.refuses(self.waiting_pkts, self.waiting_bytes, pkt.size) {
                    Verdict::Drop
                } else {
                    Verdict::Enqueue
                }
            }
            None => {
                let q = QueueState {
                    waiting_pkts: self.waiting_pkts,
                    waiting_bytes: self.waiting_bytes,
                    idle,
                    idle_since: self.busy_until,
                    held_pkts: (self.ring.len() + self.reorder.as_deref().map_or(0, |r| r.len())) as u32,
                };
                let Discipline::Enqueue(disc) = &mut self.disc else {
                    unreachable!("dequeue-time links returned above")
                };
                disc.admit(now, q, &pkt)
            }
        };
        match verdict {
            Verdict::Enqueue => {}
            Verdict::Drop => {
                self.stats.drops += 1;
                return Admission::Dropped;
            }
            Verdict::Mark => {
                if pkt.ecn.mark() {
                    self.stats.marks += 1;
                } else {
                    self.stats.drops += 1;
                    return Admission::Dropped;
                }
            }
        }
        let (tx_start, tx_end) = self.tx.transmit(if idle { now } else { self.busy_until }, !idle, pkt.size);
        let ser = tx_end - tx_start;
        self.busy_until = tx_end;
        self.stats.busy_ps += ser;
        self.stats.pkts_tx += 1;
        self.stats.bytes_tx += pkt.size as u64;
        if tx_start > now {
            if self.waiting_pkts == 0 {
                self.next_start = tx_start;
            }
            self.waiting_pkts += 1;
            self.waiting_bytes += pkt.size as u64;
            if self.waiting_pkts > self.stats.max_waiting_pkts {
                self.stats.max_waiting_pkts = self.waiting_pkts;
            }
            if self.waiting_pkts > self.stats.interval_max_pkts {
                self.stats.interval_max_pkts = self.waiting_pkts;
            }
            if self.waiting_bytes > self.stats.max_waiting_bytes {
                self.stats.max_waiting_bytes = self.waiting_bytes;
            }
        }
        let was_ce = pkt.ecn.is_ce();
        let lost = !self.lossless && self.loss.apply(tx_start, &mut pkt);
        if !was_ce && pkt.ecn.is_ce() {
            self.stats.marks += 1;
        }
        let arrive = tx_end + self.delay;
        let was_empty = self.ring.is_empty();
        // FIFO: transmissions start no earlier than now and arrivals leave
        // the ring in order (a trace may start two in one opportunity).
        debug_assert!(
            tx_start >= now && self.ring.back().is_none_or(|b| b.arrive <= arrive && b.tx_start <= tx_start),
            "link {}: out-of-order transmission at {now}",
            self.name
        );
        self.ring.push_back(Slot { tx_start, arrive, pkt, lost });
        self.debug_check();
        Admission::Accepted(if was_empty { Some(arrive) } else { None })
    }

    /// The link's accounting, checked in builds with debug assertions:
    /// every offered packet is transmitted, refused or still waiting inside
    /// a dequeue-time discipline, and the waiting counters agree with the
    /// ring (enqueue-time disciplines).
    #[inline]
    fn debug_check(&self) {
        #[cfg(debug_assertions)]
        {
            let inside = match &self.disc {
                Discipline::Dequeue(a) => a.len_pkts() as u64,
                Discipline::Enqueue(_) => 0,
            };
            debug_assert_eq!(
                self.stats.pkts_offered,
                self.stats.pkts_tx + self.stats.drops + inside,
                "link {}: offered = transmitted + refused + waiting",
                self.name
            );
            debug_assert!(self.waiting_pkts as usize <= self.ring.len(), "link {}: more waiting than held", self.name);
            let (qp, qb) = match &self.disc {
                Discipline::Dequeue(a) => (a.len_pkts(), a.len_bytes()),
                Discipline::Enqueue(_) => (self.waiting_pkts, self.waiting_bytes),
            };
            if let Some(l) = self.disc.limit_pkts() {
                debug_assert!(qp <= l, "link {}: {qp} packets waiting, limit {l}", self.name);
            }
            if let Some(l) = self.disc.limit_bytes() {
                debug_assert!(qb <= l, "link {}: {qb} bytes waiting, limit {l}", self.name);
            }
            // (summing the ring is O(queue): only for short queues)
            if self.waiting_pkts > 0 && self.waiting_pkts <= 64 {
                let idx = self.ring.len() - self.waiting_pkts as usize;
                let bytes: u64 = self.ring.iter_from(idx).map(|s| s.pkt.size as u64).sum();
                debug_assert_eq!(bytes, self.waiting_bytes, "link {}: waiting bytes", self.name);
            }
        }
    }

    /// The link's capacity, b/s (`Transmitter::capacity_bps`).
    pub fn capacity_bps(&self) -> u64 {
        self.tx.capacity_bps()
    }

    /// Remove the head packet if it has arrived by `now`.
    #[inline]
    pub fn pop_arrived(&mut self, now: SimTime) -> Option<Slot> {
        // A packet that has arrived has also started transmission: settle the
        // waiting counters first so they never count a popped packet.
        self.advance(now);
        if self.reorder.is_some() {
            return self.pop_reordered(now);
        }
        match self.ring.front() {
            Some(s) if s.arrive <= now => {
                let s = self.ring.pop_front().unwrap();
                if s.lost {
                    self.stats.losses += 1;
                }
                Some(s)
            }
            _ => None,
        }
    }

    /// `pop_arrived` with reordering: every packet leaving the ring draws
    /// its extra delay and goes through the heap (lost ones too, with none,
    /// so the loss is counted when it would have arrived).
    #[inline(never)]
    fn pop_reordered(&mut self, now: SimTime) -> Option<Slot> {
        let r = self.reorder.as_deref_mut().expect("called with reordering");
        while self.ring.front().is_some_and(|s| s.arrive <= now) {
            r.hold(self.ring.pop_front().unwrap());
        }
        let s = r.pop_due(now)?;
        if s.lost {
            self.stats.losses += 1;
        }
        Some(s)
    }

    /// The arrival event the simulation must schedule for this link: its
    /// head packet's arrival, unless an event is already pending (then, and
    /// when the link holds nothing, None). The event is then pending.
    #[inline]
    pub fn arm(&mut self) -> Option<SimTime> {
        if self.pending {
            return None;
        }
        let t = self.next_arrival()?;
        self.pending = true;
        Some(t)
    }

    /// The link's pending arrival event fired.
    #[inline]
    pub fn arrival_fired(&mut self) {
        self.pending = false;
    }

    /// A packet the dequeue-time discipline dropped, for the caller to
    /// account to its flow.
    #[inline]
    pub fn pop_dropped(&mut self) -> Option<Packet> {
        self.dropped.pop()
    }

    /// Call `f` on every packet not transmitted by `end`; returns whether
    /// the link's `pkts_tx`/`bytes_tx` already count them (a FIFO counts a
    /// packet when it is admitted, a dequeue-time discipline when it leaves).
    /// Packets the link holds: waiting, in transmission or propagating in
    /// its ring, and those a dequeue-time discipline keeps apart.
    pub fn held_pkts(&self) -> usize {
        let apart = match &self.disc {
            crate::queue::Discipline::Dequeue(d) => d.len_pkts() as usize,
            crate::queue::Discipline::Enqueue(_) => 0,
        };
        self.ring.len() + apart
    }

    pub fn untransmitted(&self, end: SimTime, mut f: impl FnMut(&Packet)) -> bool {
        match &self.disc {
            Discipline::Dequeue(aqm) => {
                aqm.packets().for_each(f);
                false
            }
            Discipline::Enqueue(_) => {
                self.held_iter().filter(|s| s.tx_start > end).for_each(|s| f(&s.pkt));
                true
            }
        }
    }

    #[inline]
    pub fn next_arrival(&self) -> Option<SimTime> {
        let a = self.ring.front().map(|s| s.arrive);
        match &self.reorder {
            None => a,
            Some(r) => match r.next_due() {
                Some(h) => Some(a.map_or(h, |a| a.min(h))),
                None => a,
            },
        }
    }

    /// The largest queue (packets) since the previous call, given the queue
    /// `now_pkts` at this sample (where the next interval starts).
    pub fn take_interval_max(&mut self, now_pkts: u32) -> u32 {
        let m = self.stats.interval_max_pkts.max(now_pkts);
        self.stats.interval_max_pkts = now_pkts;
        m
    }

    /// (waiting packets, waiting bytes) at `now`.
    pub fn queue_at(&mut self, now: SimTime) -> (u32, u64) {
        if let Discipline::Dequeue(a) = &self.disc {
            // Service events keep it current (every earlier one has fired).
            return (a.len_pkts(), a.len_bytes());
        }
        self.advance(now);
        (self.waiting_pkts, self.waiting_bytes)
    }

    /// Every packet the link holds: waiting, in service or propagating.
    pub fn held(&self) -> usize {
        let waiting = match &self.disc {
            Discipline::Dequeue(a) => a.len_pkts() as usize,
            Discipline::Enqueue(_) => 0,
        };
        self.ring.len() + waiting + self.reorder.as_deref().map_or(0, |r| r.len())
    }

    pub fn queue_name(&self) -> &'static str {
        self.disc.name()
    }

    pub fn limit_pkts(&self) -> Option<u32> {
        self.disc.limit_pkts()
    }

    pub fn limit_bytes(&self) -> Option<u64> {
        self.disc.limit_bytes()
    }

    /// CE marks set by this link: its queue discipline and loss-slot marker.
    pub fn marks(&self) -> u64 {
        let queue_marks = match &self.disc {
            Discipline::Dequeue(a) => a.marks(),
            Discipline::Enqueue(_) => 0,
        };
        self.stats.marks + queue_marks
    }

    pub fn held_iter(&self) -> impl Iterator<Item = &Slot> {
        self.ring.iter().chain(self.reorder.as_deref().into_iter().flat_map(|r| r.iter()))
    }

    /// Bits the transmitter could send in [0, t]: rate × t at a fixed rate,
    /// what the trace or schedule offered otherwise.
    pub fn offered_bits(&self, t: SimTime) -> f64 {
        self.tx
            .varying_capacity_bits(t)
            .unwrap_or_else(|| self.tx.capacity_bps() as f64 * t as f64 / crate::units::PS_PER_S as f64)
    }

    /// Utilisation within [0, end]: at a fixed rate the busy time's share;
    /// with a trace or schedule, the bits delivered by `end` over the bits
    /// the transmitter offered in that time.
    pub fn utilization_within(&self, end: SimTime) -> f64 {
        match self.tx.varying_capacity_bits(end) {
            None => self.busy_within(end) as f64 / end as f64,
            Some(cap) => {
                let late: u64 =
                    self.ring.iter().rev().take_while(|s| s.arrive - self.delay > end).map(|s| s.pkt.size as u64).sum();
                let bits = (self.stats.bytes_tx - late) as f64 * 8.0;
                if cap > 0.0 {
                    bits / cap
                } else {
                    0.0
                }
            }
        }
    }

    /// Busy time within [0, end]: remove the part of transmissions after `end`.
    pub fn busy_within(&self, end: SimTime) -> u64 {
        let mut over = 0u64;
        for s in self.ring.iter().rev() {
            let tx_end = s.arrive - self.delay;
            if tx_end <= end {
                break;
            }
            over += tx_end - s.tx_start.max(end);
        }
        self.stats.busy_ps - over
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PktKind;
    use crate::queue::DropTail;
    use crate::units::PS_PER_MS;

    fn pkt(size: u32) -> Packet {
        Packet::new(PktKind::Data, 0, 0, 0, size, 0)
    }

    fn link(rate: u64, limit: u32) -> Link {
        let q = Discipline::Enqueue(Box::new(DropTail { limit_pkts: Some(limit), limit_bytes: None }));
        Link::new("l".into(), 0, 1, Transmitter::fixed(rate), 1_000, q, LossModel::none())
    }

    #[test]
    fn fifo_timing_follows_rate_and_delay() {
        // 3 packets of 1500 B at 12 Mb/s (1 ms each) arriving together: they
        // leave back to back and arrive 1, 2, 3 ms + delay later.
        for rate in [12_000_000u64, 12_000_001] {
            let mut l = link(rate, 10);
            for _ in 0..3 {
                assert!(matches!(l.enqueue(0, pkt(1500)), Admission::Accepted(_)));
            }
            let ser = crate::units::serialization_ps(1500, rate);
            let arrivals: Vec<_> = l.held_iter().map(|s| s.arrive).collect();
            assert_eq!(arrivals, vec![ser + 1_000, 2 * ser + 1_000, 3 * ser + 1_000]);
            // Two wait behind the first; after the first leaves, one waits.
            assert_eq!(l.queue_at(0), (2, 3000));
            assert_eq!(l.queue_at(ser), (1, 1500));
            assert_eq!(l.queue_at(2 * ser), (0, 0));
        }
    }

    #[test]
    fn netem_limit_counts_the_packets_in_the_delay_line() {
        // 12 Mb/s (1 ms per 1500 B), 10 ms of delay, one packet offered per
        // ms: nothing ever waits, but about 11 are on their way at once.
        let run = |disc: Discipline| {
            let mut l =
                Link::new("l".into(), 0, 1, Transmitter::fixed(12_000_000), 10 * PS_PER_MS, disc, LossModel::none());
            let mut refused = 0;
            for k in 0..30u64 {
                let now = k * PS_PER_MS;
                while l.pop_arrived(now).is_some() {}
                if matches!(l.enqueue(now, pkt(1500)), Admission::Dropped) {
                    refused += 1;
                }
            }
            refused
        };
        let dt = Discipline::Enqueue(Box::new(DropTail { limit_pkts: Some(5), limit_bytes: None }));
        assert_eq!(run(dt), 0, "DropTail counts waiting packets only");
        // netem with limit 5: packets k = 0..4 are admitted; from then on a
        // packet is held 11 ms (1 ms on the wire + 10 ms), so the link holds
        // 5 until the first arrives at 11 ms: k = 5..10 are refused, k = 11
        // is admitted, and so on (5 admitted per 11 ms).
        let nm = Discipline::Enqueue(Box::new(crate::queue::Netem { limit_pkts: 5 }));
        // Admitted: k = 0..4, 11..15, 22..26; refused: the other 15.
        assert_eq!(run(nm), 15);
    }

    #[test]
    fn droptail_counts_waiting_packets_only() {
        let mut l = link(8_000_000, 2); // 1 ms per 1000 B
        let r: Vec<bool> = (0..5).map(|_| matches!(l.enqueue(0, pkt(1000)), Admission::Accepted(_))).collect();
        // one in service + two waiting, the rest refused
        assert_eq!(r, vec![true, true, true, false, false]);
        assert_eq!(l.stats.drops, 2);
        assert_eq!(l.stats.max_waiting_pkts, 2);
    }

    #[test]
    fn dequeue_time_link_keeps_fifo_timing_and_serves_at_its_events() {
        // CoDel below target behaves as a FIFO: 3 packets of 1500 B at 12 Mb/s
        // (1 ms each) arriving together leave back to back; the 2nd and 3rd
        // start only when the service events at 1 ms and 2 ms fire.
        use crate::queue::{Codel, CodelParams};
        let ms = crate::units::PS_PER_MS;
        let codel =
            Codel::new(CodelParams { target: 5 * ms, interval: 100 * ms, limit_pkts: 10, mtu: 1514, ecn: false });
        let mut l = Link::new(
            "l".into(),
            0,
            1,
            Transmitter::fixed(12_000_000),
            1_000,
            Discipline::Dequeue(Box::new(codel)),
            LossModel::none(),
        );
        let first = l.enqueue(0, pkt(1500));
        assert!(matches!(first, Admission::Accepted(Some(t)) if t == ms + 1_000));
        for _ in 0..2 {
            assert!(matches!(l.enqueue(0, pkt(1500)), Admission::Accepted(None)));
        }
        assert_eq!(l.queue_at(0), (2, 3000));
        assert_eq!(l.service_request(), Some(ms));
        assert_eq!(l.service_request(), None, "asked once");
        l.on_service(ms);
        assert_eq!(l.queue_at(ms), (1, 1500));
        assert_eq!(l.service_request(), Some(2 * ms));
        l.on_service(2 * ms);
        let arrivals: Vec<_> = l.held_iter().map(|s| s.arrive).collect();
        assert_eq!(arrivals, vec![ms + 1_000, 2 * ms + 1_000, 3 * ms + 1_000]);
        assert_eq!(l.service_request(), None, "nothing waits");
        assert_eq!(l.stats.drops, 0);
    }
}
