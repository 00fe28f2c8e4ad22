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

use super::DequeueDisc;
use crate::config::{DualPi2Cfg, EcnMask};
use crate::packet::{Ecn, Packet};
use crate::rng::Stream;
use crate::units::{SimTime, PS_PER_S};
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
