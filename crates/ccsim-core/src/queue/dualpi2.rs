//! DualPI2: the coupled dual-queue AQM of L4S (RFC 9332, De Schepper,
//! Briscoe & White 2023; De Schepper et al., "PI2", CoNEXT 2016), as
//! Linux net/sched/sch_dualpi2.c (6.17) runs it:
//! - classification by the ECN field: ECT(1) and CE go to the L queue
//!   (`ecn_mask = "l4s_ect"`, RFC 9331 §5.1), also ECT(0) with `"any_ect"`;
//!   the rest to the C queue;
//! - one PI controller every `t_update` on the larger of the two queues'
//!   head sojourn times: p' += α·(qdelay − target) + β·(qdelay − qdelay_prev),
//!   kept in [0, 1] (capped at 1/k when overload does not drop);
//! - coupling: the C queue drops or marks with p_C = p'² (two independent
//!   rolls of p'), the L queue marks with p_CL = k·p'; when k·p' > 1
//!   (overload) L packets are dropped with p'² first and otherwise marked;
//! - the L queue's native step AQM: an L packet that waited more than
//!   `step_thresh` is marked (a Not-ECT one dropped), applied only when the L
//!   queue held at least `min_qlen_step` packets at its arrival;
//! - nothing is marked or dropped by the PI part while the backlog (both
//!   queues, the packet leaving excluded) is under 2·`mtu` bytes;
//! - decisions at dequeue (Linux's default) or, with `drop_early`, at
//!   enqueue; a tail drop when both queues together hold `limit` packets;
//! - the scheduler between the queues is Linux's weighted round robin with
//!   C-queue protection: a credit, reset to mtu·(w_C − w_L) whenever both
//!   queues are empty, picks L while ≤ 0 or while C is empty; sending from L
//!   with C waiting adds w_C·size, sending from C with L waiting subtracts
//!   w_L·size (w_C = `c_protection` %, w_L = 100 − w_C).
//!
//! Deviations: the probability is a float, not Linux's 32-bit fixed point;
//! the PI update, a kernel timer, is applied lazily at the next enqueue or
//! dequeue for every period that ended before it (the queues cannot change
//! between events, so the values are the timer's); RFC 9332 Appendix A's
//! time-shifted FIFO scheduler is not offered (Linux's WRR is); no GSO
//! splitting (ccsim's packets are single segments); the limit counts
//! packets, not Linux's memory (2·MTU per packet).

use super::{DequeueDisc, Discipline, LinkFacts, QueueKind, HZ, PKT_BYTES, T_UPDATE};
use crate::opts::{options, Kind, Named, Opt};
use crate::packet::{Ecn, Packet};
use crate::rng::Stream;
use crate::units::{SimTime, PS_PER_MS, PS_PER_S};
use serde::{Deserialize, Serialize};

/// Which ECN codepoints DualPI2 puts in its L queue (Linux TCA_DUALPI2_ECN_MASK).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnMask {
    /// ECT(1) and CE (RFC 9331 §5.1).
    #[default]
    L4sEct,
    /// ECT(0) too (a datacentre DCTCP in the L queue).
    AnyEct,
}

// Defaults are Linux's `dualpi2_reset_default` (net/sched/sch_dualpi2.c).
options! {
    /// DualPI2 (RFC 9332, Linux sch_dualpi2), decided at dequeue. The
    /// buffer (`limit_pkts`, set from the link's) counts both queues.
    pub struct DualPi2Cfg, rows OPTS {
        limit_pkts: u32 = 0,
        target_ps: SimTime = 15 * PS_PER_MS
            => ("target", Kind::Time { min_ps: 0 }, "time", "PI2 target queueing delay (RFC 9332: 15 ms)"),
        t_update_ps: SimTime = 16 * PS_PER_MS => ("t_update", T_UPDATE, "time", "PI2 update period"),
        /// Integral gain, Hz (probability per second of delay error).
        alpha: f64 = 41.0 / 256.0
            => ("alpha", HZ, "Hz", "Hz, integral gain (Linux 41/256 ≈ RFC 9332's 0.16)"),
        /// Proportional gain, Hz.
        beta: f64 = 819.0 / 256.0
            => ("beta", HZ, "Hz", "Hz, proportional gain (Linux 819/256 ≈ RFC 9332's 3.2)"),
        step_thresh_ps: SimTime = PS_PER_MS
            => ("step_thresh", Kind::Time { min_ps: 0 }, "time", "L queue's native AQM: an L packet that waited longer is marked"),
        min_qlen_step: u32 = 0
            => ("min_qlen_step", Kind::Int { lo: 0, hi: u32::MAX as u64 }, "packets", "packets: the step applies only to L packets that found at least this many L packets waiting"),
        /// Coupling factor k.
        coupling: f64 = 2.0
            => ("coupling", Kind::Number { lo: 1.0, hi: 255.0, lo_open: false }, "", "k: the L queue marks with k·p', the C queue with p'² (RFC 9332: 2)"),
        /// C-queue weight w_C, percent.
        c_protection: u32 = 10
            => ("c_protection", Kind::Int { lo: 0, hi: 100 }, "percent", "percent: the C queue's weight in the WRR scheduler (L gets the rest)"),
        drop_overload: bool = true
            => ("drop_overload", Kind::Bool, "", "when k·p' > 1, drop L packets with p'² (true) or mark only and let the queue grow (false)"),
        drop_early: bool = false
            => ("drop_early", Kind::Bool, "", "decide drops and marks at enqueue (true) instead of dequeue (Linux default)"),
        ecn_mask: EcnMask = EcnMask::L4sEct
            => ("ecn_mask", Kind::Choice(&["l4s_ect", "any_ect"]), "", "'l4s_ect' (ECT(1) and CE to the L queue) or 'any_ect' (ECT(0) too)"),
        mtu: u32 = 1514
            => ("mtu", PKT_BYTES, "bytes", "bytes: no PI marking or dropping while less than 2·mtu is queued"),
    }
}

impl QueueKind for DualPi2Cfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    const NAMES: &'static [Named] =
        &[Named { name: "dualpi2", fixed: &[], doc: "DualPI2 (RFC 9332, Linux sch_dualpi2)" }];
    fn buffer(&self) -> (Option<u32>, Option<u64>) {
        (Some(self.limit_pkts), None)
    }
    fn build(&self, _: LinkFacts, rng: &mut dyn FnMut() -> Stream) -> Discipline {
        Discipline::Dequeue(Box::new(DualPi2::new(*self, rng())))
    }
}
use std::collections::VecDeque;

/// A waiting packet with its arrival time and whether the step applies.
#[derive(Clone, Copy, Debug)]
struct Held {
    at: SimTime,
    pkt: Packet,
    step: bool,
}

pub struct DualPi2 {
    p: DualPi2Cfg,
    rng: Stream,
    l: VecDeque<Held>,
    c: VecDeque<Held>,
    bytes: u64,
    /// The base probability p'.
    prob: f64,
    last_qdelay_s: f64,
    next_update: SimTime,
    credit: i64,
    credit_init: i64,
    marks: u64,
}

impl DualPi2 {
    pub fn new(p: DualPi2Cfg, rng: Stream) -> Self {
        let wc = p.c_protection as i64;
        let credit_init = p.mtu as i64 * (wc - (100 - wc));
        DualPi2 {
            rng,
            l: VecDeque::with_capacity(64),
            c: VecDeque::with_capacity(64),
            bytes: 0,
            prob: 0.0,
            last_qdelay_s: 0.0,
            next_update: p.t_update_ps,
            credit: credit_init,
            credit_init,
            marks: 0,
            p,
        }
    }

    /// The base probability p' now (after the updates due by `now`).
    pub fn base_prob(&self) -> f64 {
        self.prob
    }

    /// Whether a packet goes to the L queue (dualpi2_skb_classify).
    #[inline]
    pub fn is_l4s(&self, ecn: Ecn) -> bool {
        match ecn {
            Ecn::Ect1 | Ecn::Ce => true,
            Ecn::Ect0 => self.p.ecn_mask == EcnMask::AnyEct,
            Ecn::NotEct => false,
        }
    }

    /// One PI2 update (calculate_probability) with queue delays `ql`, `qc`.
    pub fn pi_update(&mut self, qdelay: SimTime) {
        let s = |t: SimTime| t as f64 / PS_PER_S as f64;
        let q = s(qdelay);
        let delta = self.p.alpha * (q - s(self.p.target_ps)) + self.p.beta * (q - self.last_qdelay_s);
        self.last_qdelay_s = q;
        let mut p = (self.prob + delta).clamp(0.0, 1.0);
        if !self.p.drop_overload {
            p = p.min(1.0 / self.p.coupling);
        }
        self.prob = p;
    }

    /// Run the timer's updates that fell due by `now`.
    fn catch_up(&mut self, now: SimTime) {
        while self.next_update <= now {
            if self.l.is_empty() && self.c.is_empty() && self.prob == 0.0 && self.last_qdelay_s == 0.0 {
                // Empty and at rest: every update still due leaves p' = 0.
                let n = (now - self.next_update) / self.p.t_update_ps + 1;
                self.next_update += n * self.p.t_update_ps;
                return;
            }
            let t = self.next_update;
            let head = |q: &VecDeque<Held>| q.front().map_or(0, |h| t.saturating_sub(h.at));
            let qdelay = head(&self.l).max(head(&self.c));
            self.pi_update(qdelay);
            self.next_update += self.p.t_update_ps;
        }
    }

    #[inline]
    fn roll(&mut self, p: f64) -> bool {
        self.rng.uniform() < p
    }

    fn mark(&mut self, pkt: &mut Packet) {
        if pkt.ecn != Ecn::Ce && pkt.ecn.mark() {
            self.marks += 1;
        }
    }

    /// must_drop: the PI part's verdict on `pkt`, marking it if it is to be
    /// marked; true when it must be dropped. `backlog` excludes `pkt`.
    fn must_drop(&mut self, pkt: &mut Packet, in_l: bool, backlog: u64) -> bool {
        if backlog < 2 * self.p.mtu as u64 {
            return false;
        }
        let p = self.prob;
        let p_l = p * self.p.coupling;
        let overload = p_l > 1.0;
        if !in_l {
            if self.roll(p) && self.roll(p) {
                if overload || !pkt.ecn.capable() {
                    return true;
                }
                self.mark(pkt);
            }
            return false;
        }
        if overload {
            if self.p.drop_overload && self.roll(p) && self.roll(p) {
                return true;
            }
            self.mark(pkt);
            return false;
        }
        if self.roll(p_l) {
            if !pkt.ecn.capable() {
                return true;
            }
            self.mark(pkt);
        }
        false
    }
}

impl DequeueDisc for DualPi2 {
    fn name(&self) -> &'static str {
        "dualpi2"
    }

    fn enqueue(&mut self, now: SimTime, mut pkt: Packet, drops: &mut Vec<Packet>) {
        self.catch_up(now);
        let in_l = self.is_l4s(pkt.ecn);
        if (self.l.len() + self.c.len()) as u64 >= self.p.limit_pkts as u64 {
            drops.push(pkt);
            return;
        }
        if self.p.drop_early && self.must_drop(&mut pkt, in_l, self.bytes) {
            drops.push(pkt);
            return;
        }
        self.bytes += pkt.size as u64;
        if in_l {
            let step = self.l.len() as u32 >= self.p.min_qlen_step;
            self.l.push_back(Held { at: now, pkt, step });
        } else {
            self.c.push_back(Held { at: now, pkt, step: false });
        }
    }

    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<Packet>) -> Option<Packet> {
        self.catch_up(now);
        let (wc, wl) = (self.p.c_protection as i64, 100 - self.p.c_protection as i64);
        loop {
            let c_waiting = !self.c.is_empty();
            let (mut h, in_l, change) = if !self.l.is_empty() && (!c_waiting || self.credit <= 0) {
                let h = self.l.pop_front().expect("L is not empty");
                (h, true, if c_waiting { wc } else { 0 })
            } else if let Some(h) = self.c.pop_front() {
                (h, false, if self.l.is_empty() { 0 } else { -wl })
            } else {
                self.credit = self.credit_init;
                return None;
            };
            self.bytes -= h.pkt.size as u64;
            if !self.p.drop_early && self.must_drop(&mut h.pkt, in_l, self.bytes) {
                drops.push(h.pkt);
                continue;
            }
            if in_l && h.step && now - h.at > self.p.step_thresh_ps {
                if !h.pkt.ecn.capable() {
                    drops.push(h.pkt);
                    continue;
                }
                self.mark(&mut h.pkt);
            }
            self.credit += change * h.pkt.size as i64;
            return Some(h.pkt);
        }
    }

    fn len_pkts(&self) -> u32 {
        (self.l.len() + self.c.len()) as u32
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
    fn prob(&self) -> Option<f64> {
        Some(self.prob)
    }
    fn packets(&self) -> Box<dyn Iterator<Item = &Packet> + '_> {
        Box::new(self.l.iter().chain(self.c.iter()).map(|h| &h.pkt))
    }
}

#[cfg(test)]
mod tests;
