//! PIE (Pan et al.; RFC 8033): arriving packets are dropped (or ECN-marked)
//! at random with a probability that a PI controller updates every
//! `t_update` from the queueing delay and its trend.
//!
//! The link computes every departure time at admission, so the current
//! queueing delay is known exactly: a packet arriving at t would wait
//! busy_until − t before its first bit leaves (Little's law with the exact
//! departure rate, counting the rest of the packet in service). Between two
//! arrivals busy_until does not change, so the periodic updates are applied
//! lazily at the next arrival, each with the delay at its own tick.

use super::{Discipline, LinkFacts, QueueDisc, QueueKind, QueueState, Verdict, HZ, PKT_BYTES, T_UPDATE};
use crate::opts::{options, Kind, Named, Opt};
use crate::packet::Packet;
use crate::rng::Stream;
use crate::units::{SimTime, PS_PER_MS, PS_PER_S};

// Defaults are RFC 8033's (QDELAY_REF 15 ms, T_UPDATE 15 ms, α 0.125 Hz,
// β 1.25 Hz, MAX_BURST 150 ms, MEAN_PKTSIZE 1500 bytes, §5.1's
// mark_ecnth 0.1).
options! {
    /// PIE (RFC 8033), decided at enqueue. The buffer (`limit_pkts` or
    /// `limit_bytes`, set from the link's) is its hard limit.
    pub struct PieCfg, rows OPTS {
        limit_pkts: Option<u32> = None,
        limit_bytes: Option<u64> = None,
        target_ps: SimTime = 15 * PS_PER_MS
            => ("target", Kind::Time { min_ps: 1 }, "time", "QDELAY_REF, the target queueing delay"),
        t_update_ps: SimTime = 15 * PS_PER_MS => ("t_update", T_UPDATE, "time", "drop-probability update period"),
        alpha: f64 = 0.125 => ("alpha", HZ, "Hz", "Hz, weight of the delay error"),
        beta: f64 = 1.25 => ("beta", HZ, "Hz", "Hz, weight of the delay trend"),
        max_burst_ps: SimTime = 150 * PS_PER_MS
            => ("max_burst", Kind::Time { min_ps: 0 }, "time", "burst allowance after an idle, uncongested period"),
        /// MEAN_PKTSIZE: no early drop while at most 2 of these wait.
        mean_pktsize: u32 = 1500
            => ("mean_pktsize", PKT_BYTES, "bytes", "bytes; no early drop while at most two such packets wait"),
        ecn: bool = false
            => ("ecn", Kind::Bool, "", "mark ECN-capable packets while p ≤ mark_ecnth, drop above"),
        /// Mark (not drop) ECN-capable packets only while p ≤ this.
        mark_ecnth: f64 = 0.1
            => ("mark_ecnth", Kind::Prob { lo_open: false }, "", "highest probability at which ECN-capable packets are marked"),
        /// RFC 8033 §5.1 de-randomization (accumulated probability).
        derandomize: bool = true
            => ("derandomize", Kind::Bool, "", "RFC 8033 §5.1 accumulated-probability de-randomization (on in Linux)"),
    }
}

impl QueueKind for PieCfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    const NAMES: &'static [Named] = &[Named { name: "pie", fixed: &[], doc: "PIE (RFC 8033)" }];
    fn buffer(&self) -> (Option<u32>, Option<u64>) {
        (self.limit_pkts, self.limit_bytes)
    }
    fn build(&self, _: LinkFacts, rng: &mut dyn FnMut() -> Stream) -> Discipline {
        Discipline::Enqueue(Box::new(Pie::new(*self, rng())))
    }
}

pub struct Pie {
    pub p: PieCfg,
    rng: Stream,
    pub drop_prob: f64,
    qdelay_old: SimTime,
    burst_allowance: SimTime,
    accu_prob: f64,
    /// Time of the next periodic update.
    next_update: SimTime,
}

impl Pie {
    pub fn new(p: PieCfg, rng: Stream) -> Self {
        Pie {
            burst_allowance: p.max_burst_ps,
            p,
            rng,
            drop_prob: 0.0,
            qdelay_old: 0,
            accu_prob: 0.0,
            next_update: p.t_update_ps,
        }
    }

    /// RFC 8033 §4.2 calculate_drop_prob with the §4.2 auto-tuning of the
    /// step by the current probability, then the burst allowance (§4.4).
    pub fn update(&mut self, qdelay: SimTime) {
        let s = |t: SimTime| t as f64 / PS_PER_S as f64;
        let mut d = self.p.alpha * (s(qdelay) - s(self.p.target_ps)) + self.p.beta * (s(qdelay) - s(self.qdelay_old));
        let p = self.drop_prob;
        d /= if p < 1e-6 {
            2048.0
        } else if p < 1e-5 {
            512.0
        } else if p < 1e-4 {
            128.0
        } else if p < 1e-3 {
            32.0
        } else if p < 1e-2 {
            8.0
        } else if p < 0.1 {
            2.0
        } else {
            1.0
        };
        if p >= 0.1 && d > 0.02 {
            d = 0.02;
        }
        let mut np = p + d;
        if qdelay == 0 && self.qdelay_old == 0 {
            np *= 0.98;
        }
        self.drop_prob = np.clamp(0.0, 1.0);
        if self.drop_prob == 0.0 && qdelay < self.p.target_ps / 2 && self.qdelay_old < self.p.target_ps / 2 {
            self.burst_allowance = self.p.max_burst_ps;
        }
        self.burst_allowance = self.burst_allowance.saturating_sub(self.p.t_update_ps);
        self.qdelay_old = qdelay;
    }

    /// Apply every update due by `now`; `busy_until` has not changed since
    /// the previous arrival, so tick t saw the delay busy_until − t.
    fn catch_up(&mut self, now: SimTime, busy_until: SimTime) {
        while self.next_update <= now {
            let t = self.next_update;
            let qd = busy_until.saturating_sub(t);
            if qd == 0 && self.qdelay_old == 0 && self.drop_prob == 0.0 {
                // Idle and settled: every further tick is the same.
                let ticks = (now - t) / self.p.t_update_ps + 1;
                self.update(0);
                self.next_update = t + ticks * self.p.t_update_ps;
                continue;
            }
            self.update(qd);
            self.next_update = t + self.p.t_update_ps;
        }
    }

    /// RFC 8033 drop_early (with the §5.1 de-randomization when enabled).
    fn drop_early(&mut self, waiting_bytes: u64) -> bool {
        if (self.qdelay_old < self.p.target_ps / 2 && self.drop_prob < 0.2)
            || waiting_bytes <= 2 * self.p.mean_pktsize as u64
        {
            return false;
        }
        if !self.p.derandomize {
            return self.rng.bernoulli(self.drop_prob);
        }
        if self.drop_prob == 0.0 {
            self.accu_prob = 0.0;
        }
        self.accu_prob += self.drop_prob;
        if self.accu_prob < 0.85 {
            return false;
        }
        if self.accu_prob >= 8.5 {
            self.accu_prob = 0.0;
            return true;
        }
        if self.rng.bernoulli(self.drop_prob) {
            self.accu_prob = 0.0;
            return true;
        }
        false
    }
}

impl QueueDisc for Pie {
    fn name(&self) -> &'static str {
        "pie"
    }

    fn admit(&mut self, now: SimTime, q: QueueState, pkt: &Packet) -> Verdict {
        // idle_since is the link's busy_until (when the transmitter frees up).
        self.catch_up(now, q.idle_since);
        if !q.idle
            && (self.p.limit_pkts.is_some_and(|l| q.waiting_pkts >= l)
                || self.p.limit_bytes.is_some_and(|l| q.waiting_bytes + pkt.size as u64 > l))
        {
            return Verdict::Drop;
        }
        if self.burst_allowance == 0 && self.drop_early(q.waiting_bytes) {
            return if self.p.ecn && self.drop_prob <= self.p.mark_ecnth { Verdict::Mark } else { Verdict::Drop };
        }
        Verdict::Enqueue
    }

    fn limit_pkts(&self) -> Option<u32> {
        self.p.limit_pkts
    }
    fn limit_bytes(&self) -> Option<u64> {
        self.p.limit_bytes
    }
    fn max_p(&self) -> Option<f64> {
        Some(self.drop_prob)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PktKind;
    use crate::rng::StreamKind;

    const MS: SimTime = crate::units::PS_PER_MS;

    fn params() -> PieCfg {
        PieCfg {
            target_ps: 15 * MS,
            t_update_ps: 15 * MS,
            alpha: 0.125,
            beta: 1.25,
            max_burst_ps: 150 * MS,
            limit_pkts: Some(1000),
            limit_bytes: None,
            mean_pktsize: 1500,
            ecn: false,
            mark_ecnth: 0.1,
            derandomize: false,
        }
    }

    #[test]
    fn the_declared_defaults_are_rfc_8033s() {
        // params() writes RFC 8033's values out; de-randomization is on by
        // default (as in Linux) and off in these hand-worked tests
        assert_eq!(PieCfg { limit_pkts: Some(1000), derandomize: false, ..PieCfg::default() }, params());
    }

    fn pie(p: PieCfg) -> Pie {
        Pie::new(p, Stream::new(3, StreamKind::Queue, 0))
    }

    #[test]
    fn update_follows_the_pi_rule_with_auto_tuning() {
        // A constant 45 ms delay: first step α(0.045 − 0.015) + β(0.045 − 0)
        // = 0.00375 + 0.05625 = 0.06, divided by 2048 (p < 1e-6).
        let mut q = pie(params());
        q.update(45 * MS);
        let p1 = 0.06 / 2048.0;
        assert!((q.drop_prob - p1).abs() < 1e-15);
        // Second: only the proportional part (trend 0): 0.00375, divided by
        // 128 because 1e-5 ≤ p1 = 2.93e-5 < 1e-4.
        q.update(45 * MS);
        let p2 = p1 + 0.00375 / 128.0;
        assert!((q.drop_prob - p2).abs() < 1e-15);
        // Above 10 % a step is capped at 0.02.
        q.drop_prob = 0.5;
        q.update(500 * MS);
        assert!((q.drop_prob - 0.52).abs() < 1e-12);
        // Idle (delay 0 now and at the last update): the step, then × 0.98.
        q.drop_prob = 0.3;
        q.qdelay_old = 0;
        q.update(0);
        assert!((q.drop_prob - (0.3 - 0.125 * 0.015) * 0.98).abs() < 1e-12);
    }

    #[test]
    fn burst_allowance_spares_the_first_150_ms_of_congestion() {
        let mut q = pie(params());
        q.drop_prob = 0.5; // would drop half of everything
        q.qdelay_old = 100 * MS;
        let pkt = Packet::new(PktKind::Data, 0, 0, 0, 1500, 0);
        let mut drops_before = 0;
        let mut drops_after = 0;
        for i in 0..20_000u64 {
            let now = i * MS / 100; // 100 arrivals per ms, 200 ms
            let qs = QueueState {
                waiting_pkts: 100,
                waiting_bytes: 150_000,
                idle: false,
                idle_since: now + 100 * MS,
                held_pkts: 0,
            };
            let v = q.admit(now, qs, &pkt);
            if v == Verdict::Drop {
                if now < 150 * MS {
                    drops_before += 1;
                } else {
                    drops_after += 1;
                }
            }
        }
        assert_eq!(drops_before, 0);
        assert!(drops_after > 0);
    }

    #[test]
    fn early_drop_rate_equals_the_probability() {
        // p pinned (α = β = 0 keep it), no burst allowance, delay above
        // target/2: the drop frequency is p within sampling error.
        let mut pr = params();
        pr.alpha = 0.0;
        pr.beta = 0.0;
        pr.max_burst_ps = 0;
        let mut q = pie(pr);
        q.drop_prob = 0.03;
        q.qdelay_old = 20 * MS;
        let pkt = Packet::new(PktKind::Data, 0, 0, 0, 1500, 0);
        let n = 400_000u64;
        let mut drops = 0u64;
        for i in 0..n {
            let now = i * MS / 100;
            let qs = QueueState {
                waiting_pkts: 20,
                waiting_bytes: 30_000,
                idle: false,
                idle_since: now + 20 * MS,
                held_pkts: 0,
            };
            drops += (q.admit(now, qs, &pkt) == Verdict::Drop) as u64;
        }
        let rate = drops as f64 / n as f64;
        let se = (0.03f64 * 0.97 / n as f64).sqrt();
        assert!((rate - 0.03).abs() < 4.0 * se, "{rate}");
    }

    #[test]
    fn short_queues_are_never_dropped_early() {
        let mut q = pie(params());
        q.drop_prob = 0.9;
        q.qdelay_old = 100 * MS;
        q.burst_allowance = 0;
        let pkt = Packet::new(PktKind::Data, 0, 0, 0, 1500, 0);
        for i in 0..1000u64 {
            let qs = QueueState { waiting_pkts: 2, waiting_bytes: 3000, idle: false, idle_since: i + 1, held_pkts: 0 };
            assert_eq!(q.admit(i, qs, &pkt), Verdict::Enqueue);
        }
    }

    #[test]
    fn lazy_ticks_use_the_delay_at_each_tick() {
        // busy_until = 60 ms: ticks at 15, 30, 45 ms see 45, 30, 15 ms of delay.
        let mut lazy = pie(params());
        lazy.catch_up(50 * MS, 60 * MS);
        let mut by_hand = pie(params());
        for d in [45, 30, 15] {
            by_hand.update(d * MS);
        }
        assert_eq!(lazy.drop_prob, by_hand.drop_prob);
        assert_eq!(lazy.qdelay_old, 15 * MS);
    }
}
