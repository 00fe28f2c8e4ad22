//! CoDel (Nichols & Jacobson; RFC 8289, as Linux `codel_impl.h`): a FIFO
//! whose dequeue drops (or ECN-marks) packets once their sojourn time has
//! stayed at or above `target` for `interval`, at times spaced
//! interval/√count apart while the delay stays high.

use super::{DequeueDisc, Discipline, LinkFacts, QueueKind, PKT_BYTES};
use crate::opts::{options, Kind, Named, Opt};
use crate::packet::Packet;
use crate::rng::Stream;
use crate::units::{SimTime, PS_PER_MS};
use std::collections::VecDeque;

options! {
    /// CoDel (RFC 8289; Linux sch_codel's defaults). The buffer
    /// (`limit_pkts`, set from the link's) is its packet limit. FQ-CoDel
    /// takes these four options (fq_codel.rs).
    pub struct CodelCfg, rows OPTS {
        limit_pkts: u32 = 0,
        target_ps: SimTime = 5 * PS_PER_MS
            => ("target", Kind::Time { min_ps: 1 }, "time", "acceptable standing queue delay"),
        interval_ps: SimTime = 100 * PS_PER_MS
            => ("interval", Kind::Time { min_ps: 1 }, "time", "time the delay must stay above target before dropping; drop spacing interval/√count"),
        /// Bytes at or below which the queue never drops (MAXPACKET).
        mtu: u32 = 1514
            => ("mtu", PKT_BYTES, "bytes", "bytes: no drop while at most this much is queued behind the head (RFC 8289 MAXPACKET)"),
        ecn: bool = false => ("ecn", Kind::Bool, "", "mark ECN-capable packets instead of dropping them"),
    }
}

impl CodelCfg {
    /// The model's parameters.
    pub fn params(&self) -> CodelParams {
        CodelParams {
            target: self.target_ps,
            interval: self.interval_ps,
            limit_pkts: self.limit_pkts,
            mtu: self.mtu as u64,
            ecn: self.ecn,
        }
    }
}

impl QueueKind for CodelCfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    const NAMES: &'static [Named] = &[Named { name: "codel", fixed: &[], doc: "CoDel (RFC 8289)" }];
    fn buffer(&self) -> (Option<u32>, Option<u64>) {
        (Some(self.limit_pkts), None)
    }
    fn build(&self, _: LinkFacts, _: &mut dyn FnMut() -> Stream) -> Discipline {
        Discipline::Dequeue(Box::new(Codel::new(self.params())))
    }
}

#[derive(Clone, Copy, Debug)]
pub struct CodelParams {
    pub target: SimTime,
    pub interval: SimTime,
    /// Hard limit on queued packets (tail drop above it).
    pub limit_pkts: u32,
    /// Bytes at or below which the queue never drops (RFC 8289 MAXPACKET:
    /// one MTU; Linux uses the largest packet seen).
    pub mtu: u64,
    pub ecn: bool,
}

pub struct Codel {
    pub p: CodelParams,
    q: VecDeque<(SimTime, Packet)>,
    bytes: u64,
    first_above_time: Option<SimTime>,
    drop_next: SimTime,
    count: u32,
    lastcount: u32,
    dropping: bool,
    marks: u64,
}

impl Codel {
    pub fn new(p: CodelParams) -> Self {
        Codel {
            p,
            q: VecDeque::with_capacity(64),
            bytes: 0,
            first_above_time: None,
            drop_next: 0,
            count: 0,
            lastcount: 0,
            dropping: false,
            marks: 0,
        }
    }

    /// RFC 8289 control_law: t + interval/√count.
    pub fn control_law(&self, t: SimTime, count: u32) -> SimTime {
        t + (self.p.interval as f64 / (count.max(1) as f64).sqrt()) as SimTime
    }

    /// RFC 8289 dodequeue: pop the head and say whether it may be dropped.
    fn do_dequeue(&mut self, now: SimTime) -> Option<(Packet, bool)> {
        let Some((enq, pkt)) = self.q.pop_front() else {
            self.first_above_time = None;
            return None;
        };
        self.bytes -= pkt.size as u64;
        let sojourn = now - enq;
        let mut ok = false;
        if sojourn < self.p.target || self.bytes <= self.p.mtu {
            // went (or stayed) below: stay below for at least an interval
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                None => self.first_above_time = Some(now + self.p.interval),
                Some(t) => ok = now >= t,
            }
        }
        Some((pkt, ok))
    }

    /// Mark instead of drop when ECN is on and the packet is ECN-capable.
    fn try_mark(&mut self, pkt: &mut Packet) -> bool {
        if self.p.ecn && pkt.ecn.mark() {
            self.marks += 1;
            true
        } else {
            false
        }
    }

    /// Drop the head packet (FQ-CoDel's overflow drop from the fattest queue).
    pub fn drop_head(&mut self) -> Option<Packet> {
        let (_, p) = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }

    pub fn dropping(&self) -> bool {
        self.dropping
    }
    pub fn count(&self) -> u32 {
        self.count
    }
}

impl DequeueDisc for Codel {
    fn name(&self) -> &'static str {
        "codel"
    }

    fn enqueue(&mut self, now: SimTime, pkt: Packet, drops: &mut Vec<Packet>) {
        if self.q.len() as u32 >= self.p.limit_pkts {
            drops.push(pkt);
            return;
        }
        self.bytes += pkt.size as u64;
        self.q.push_back((now, pkt));
    }

    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<Packet>) -> Option<Packet> {
        let Some((mut pkt, ok)) = self.do_dequeue(now) else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok {
                self.dropping = false;
            } else {
                let mut cur = (pkt, ok);
                while self.dropping && now >= self.drop_next {
                    self.count += 1;
                    if self.try_mark(&mut cur.0) {
                        self.drop_next = self.control_law(self.drop_next, self.count);
                        return Some(cur.0);
                    }
                    drops.push(cur.0);
                    match self.do_dequeue(now) {
                        None => {
                            self.dropping = false;
                            return None;
                        }
                        Some(next) => {
                            cur = next;
                            if !cur.1 {
                                self.dropping = false;
                            } else {
                                self.drop_next = self.control_law(self.drop_next, self.count);
                            }
                        }
                    }
                }
                pkt = cur.0;
            }
        } else if ok {
            if !self.try_mark(&mut pkt) {
                drops.push(pkt);
                match self.do_dequeue(now) {
                    Some((p, _)) => pkt = p,
                    None => {
                        // The drop emptied the queue; enter the dropping state
                        // all the same (RFC 8289 does), nothing to send.
                        self.enter_dropping(now);
                        return None;
                    }
                }
            }
            self.enter_dropping(now);
        }
        Some(pkt)
    }

    fn len_pkts(&self) -> u32 {
        self.q.len() as u32
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn limit_pkts(&self) -> Option<u32> {
        Some(self.p.limit_pkts)
    }
    fn marks(&self) -> u64 {
        self.marks
    }
    fn packets(&self) -> Box<dyn Iterator<Item = &Packet> + '_> {
        Box::new(self.q.iter().map(|(_, p)| p))
    }
}

impl Codel {
    /// RFC 8289: on entering the dropping state, resume near the previous
    /// drop rate if the last episode was recent (within 16 intervals).
    fn enter_dropping(&mut self, now: SimTime) {
        self.dropping = true;
        let delta = self.count.wrapping_sub(self.lastcount);
        self.count =
            if self.count > self.lastcount && delta > 1 && now.saturating_sub(self.drop_next) < 16 * self.p.interval {
                delta
            } else {
                1
            };
        self.drop_next = self.control_law(now, self.count);
        self.lastcount = self.count;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PktKind;

    const MS: SimTime = crate::units::PS_PER_MS;

    fn pkt(seq: u64) -> Packet {
        Packet::new(PktKind::Data, seq, 0, 0, 1500, 0)
    }

    fn codel(ecn: bool) -> Codel {
        Codel::new(CodelParams { target: 5 * MS, interval: 100 * MS, limit_pkts: 10_000, mtu: 1500, ecn })
    }

    /// A standing queue: 100 packets enqueued at time 0, then one new packet
    /// for every one dequeued, dequeues every `gap`. Returns the times of
    /// drops (or marks).
    fn standing_queue(c: &mut Codel, gap: SimTime, until: SimTime) -> Vec<SimTime> {
        let mut drops = Vec::new();
        let mut times = Vec::new();
        let mut seq = 0;
        for _ in 0..100 {
            c.enqueue(0, pkt(seq), &mut drops);
            seq += 1;
        }
        let mut t = gap;
        while t <= until {
            let marks_before = c.marks();
            let n = drops.len();
            let out = c.dequeue(t, &mut drops);
            for _ in n..drops.len() {
                times.push(t);
            }
            if c.marks() > marks_before {
                times.push(t);
            }
            // keep the queue standing: refill what left
            let left = (drops.len() - n) + out.is_some() as usize;
            for _ in 0..left {
                c.enqueue(t, pkt(seq), &mut drops);
                seq += 1;
            }
            t += gap;
        }
        times
    }

    #[test]
    fn drops_follow_the_control_law() {
        // The first packets were enqueued at 0, so the sojourn first reaches
        // the 5 ms target at the dequeue at 5 ms; it then stays ≈ 100 ms. The
        // first drop is one interval later (105 ms) and sets count = 1,
        // drop_next = 105 + 100/√1 ms; drop k+1 comes at the first dequeue (1 ms
        // grid) at or after drop_next, which then advances by 100/√count ms
        // from its previous value (RFC 8289 control_law), count = 2, 3, …
        let gap = MS;
        let mut c = codel(false);
        let times = standing_queue(&mut c, gap, 1000 * MS);
        assert_eq!(times[0], 105 * MS);
        let law = |t: SimTime, count: u32| t + (100.0 * MS as f64 / (count as f64).sqrt()) as SimTime;
        let mut next = law(105 * MS, 1);
        for (k, &t) in times.iter().enumerate().skip(1).take(10) {
            assert_eq!(t, next.div_ceil(gap) * gap, "drop {k}");
            next = law(next, k as u32 + 1);
        }
        assert!(times.len() > 11);
    }

    #[test]
    fn short_queues_and_low_delay_never_drop() {
        // Sojourn under target: one packet in, one out, every 1 ms.
        let mut c = codel(false);
        let mut drops = Vec::new();
        for i in 0..10_000u64 {
            c.enqueue(i * MS, pkt(i), &mut drops);
            assert!(c.dequeue(i * MS + MS / 2, &mut drops).is_some());
        }
        assert!(drops.is_empty());
        // Long sojourn but at most one MTU left behind the head: no drop.
        let mut c = codel(false);
        for i in 0..1000u64 {
            c.enqueue(i * 200 * MS, pkt(i), &mut drops);
            c.enqueue(i * 200 * MS, pkt(i), &mut drops);
            c.dequeue(i * 200 * MS + 150 * MS, &mut drops);
            c.dequeue(i * 200 * MS + 160 * MS, &mut drops);
        }
        assert!(drops.is_empty());
    }

    #[test]
    fn ecn_capable_packets_are_marked_at_the_same_times() {
        let mut a = codel(false);
        let drop_times = standing_queue(&mut a, MS, 600 * MS);
        let mut b = codel(true);
        // all packets ECN-capable
        let mut drops = Vec::new();
        let mut times = Vec::new();
        for s in 0..100 {
            let mut p = pkt(s);
            p.ecn = crate::packet::Ecn::Ect0;
            b.enqueue(0, p, &mut drops);
        }
        let mut t = MS;
        let mut s = 100;
        while t <= 600 * MS {
            let m = b.marks();
            let out = b.dequeue(t, &mut drops).expect("marking never empties the queue");
            if b.marks() > m {
                assert!(out.ecn.is_ce());
                times.push(t);
            }
            let mut p = pkt(s);
            p.ecn = crate::packet::Ecn::Ect0;
            b.enqueue(t, p, &mut drops);
            s += 1;
            t += MS;
        }
        assert!(drops.is_empty());
        assert_eq!(times, drop_times);
    }

    #[test]
    fn leaving_and_reentering_soon_resumes_the_drop_rate() {
        // RFC 8289: re-entering within 16 intervals starts from count − lastcount.
        let mut c = codel(false);
        let _ = standing_queue(&mut c, MS, 1000 * MS);
        let before = c.count();
        assert!(before > 3);
        c.lastcount = 2;
        // drain to below target, then rebuild quickly
        c.dropping = false;
        c.enter_dropping(c.drop_next + MS);
        assert_eq!(c.count(), before - 2);
        // long after: count restarts at 1
        c.dropping = false;
        let late = c.drop_next + 20 * 100 * MS;
        c.enter_dropping(late);
        assert_eq!(c.count(), 1);
    }
}
