//! TCP Vegas.
//!
//! Follows: Brakmo & Peterson, "TCP Vegas: end to end congestion avoidance on
//! a global Internet", IEEE JSAC 13(8), 1995, as implemented in Linux
//! net/ipv4/tcp_vegas.c (6.x): once per RTT (the first ACK beyond the
//! snd_nxt recorded at the previous decision), with at least 3 RTT samples
//! in that RTT, rtt = the smallest of them, baseRTT = the smallest ever,
//! diff = cwnd·(rtt − baseRTT)/baseRTT segments (integer, RTTs in µs + 1),
//! and
//!   slow start, diff > γ  → cwnd = min(cwnd, cwnd·baseRTT/rtt + 1), ssthresh = min(ssthresh, cwnd)
//!   slow start otherwise  → Reno slow start
//!   avoidance, diff > β   → cwnd −= 1, ssthresh = min(ssthresh, cwnd)
//!   avoidance, diff < α   → cwnd += 1
//! then cwnd ∈ [2, clamp] and ssthresh = max(ssthresh, ¾·cwnd) (Linux
//! tcp_current_ssthresh). Fewer than 3 samples: Reno for that ACK. Outside
//! the Open state Vegas is off and Reno rules apply; losses use Reno's
//! ssthresh (half the flight).
//!
//! Presets: `linux` (α 2, β 4, γ 1, the default) and `paper` (α 1, β 3, γ 1
//! as in the paper and ns-2's `Agent/TCP/Vegas` defaults, with slow start
//! growing only every other RTT as the paper describes).
//!
//! Deviations: "Actual" is measured from ACKs (as Linux does, documented in
//! its header), not from bytes sent over the RTT as in the paper and ns-2.
//! ns-2's Vegas-specific loss handling (fine-grained timeout check on
//! duplicate ACKs, cwnd cut by ¼ when the lost packet predates the last
//! reduction) is not modelled: recovery is the sender's (NewReno or SACK).

use super::params::{flag, int, AlgoSpec, Lit, Params, Preset};
use super::{slow_start, AckSample, CaState, CcState, CongestionOps, CwndEvent};

pub const SPEC: AlgoSpec = AlgoSpec {
    name: "vegas",
    source: "Brakmo & Peterson, IEEE JSAC 1995; Linux net/ipv4/tcp_vegas.c (6.x)",
    params: &[
        int("alpha", 2.0, 0.0, 1e6, "grow cwnd by 1/RTT while fewer than alpha segments are queued"),
        int("beta", 4.0, 0.0, 1e6, "shrink cwnd by 1/RTT while more than beta segments are queued"),
        int("gamma", 1.0, 0.0, 1e6, "leave slow start once more than gamma segments are queued"),
        flag("ss_every_other_rtt", false, "slow start doubles cwnd only every other RTT (paper, ns-2)"),
    ],
    presets: &[
        Preset { name: "linux", doc: "Linux tcp_vegas.c module defaults", values: &[] },
        Preset {
            name: "paper",
            doc: "Brakmo & Peterson 1995 / ns-2 Agent/TCP/Vegas: alpha 1, beta 3, gamma 1, slow start every other RTT",
            values: &[("alpha", Lit::N(1.0)), ("beta", Lit::N(3.0)), ("gamma", Lit::N(1.0)), ("ss_every_other_rtt", Lit::B(true))],
        },
    ],
    build: |p, _| Box::new(Vegas::new(p)),
};

const NO_RTT: u64 = u64::MAX;

pub struct Vegas {
    alpha: u64,
    beta: u64,
    gamma: u64,
    every_other: bool,
    enabled: bool,
    beg_snd_nxt: u64,
    cnt_rtt: u32,
    /// Smallest RTT in the current RTT, µs + 1.
    min_rtt: u64,
    /// Smallest RTT ever, µs + 1.
    base_rtt: u64,
    /// Paper slow start: whether this RTT is a growing one.
    ss_grow: bool,
    /// The last per-RTT decision's diff (segments) and RTT (µs + 1), for traces.
    last_diff: Option<(u64, u64)>,
}

impl Vegas {
    pub fn new(p: &Params) -> Self {
        Vegas {
            alpha: p.num("alpha") as u64,
            beta: p.num("beta") as u64,
            gamma: p.num("gamma") as u64,
            every_other: p.flag("ss_every_other_rtt"),
            enabled: true,
            beg_snd_nxt: 0,
            cnt_rtt: 0,
            min_rtt: NO_RTT,
            base_rtt: NO_RTT,
            ss_grow: true,
            last_diff: None,
        }
    }

    fn enable(&mut self, tp: &CcState) {
        self.enabled = true;
        self.beg_snd_nxt = tp.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = NO_RTT;
    }

    fn reno(&mut self, tp: &mut CcState, acked: u32) {
        let mut acked = acked;
        if tp.in_slow_start() {
            if !self.ss_grow {
                return;
            }
            acked = slow_start(tp, acked);
            if acked == 0 {
                return;
            }
        }
        let w = tp.cwnd;
        super::cong_avoid_ai(tp, w, acked);
    }

    /// Linux tcp_current_ssthresh outside CWR/Recovery: max(ssthresh, ¾·cwnd).
    fn current_ssthresh(tp: &CcState) -> u32 {
        tp.ssthresh.max((tp.cwnd >> 1) + (tp.cwnd >> 2))
    }
}

impl CongestionOps for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn var_names(&self) -> &'static [&'static str] {
        &["base_rtt_s", "rtt_s", "diff", "expected_pps", "actual_pps"]
    }

    fn vars(&self, tp: &CcState, out: &mut Vec<f64>) {
        // RTTs are kept in µs + 1 (tcp_vegas.c); diff, and the rates
        // cwnd/baseRTT and cwnd/rtt, as of the last once-per-RTT decision.
        let us = |v: u64| if v == NO_RTT { f64::NAN } else { (v - 1) as f64 * 1e-6 };
        let base = us(self.base_rtt);
        match self.last_diff {
            Some((d, rtt)) => {
                // Expected and Actual of the Vegas paper at the current cwnd.
                let w = tp.cwnd as f64;
                out.extend([base, us(rtt), d as f64, w / base, w / us(rtt)])
            }
            None => out.extend([base, f64::NAN, f64::NAN, f64::NAN, f64::NAN]),
        }
    }

    fn init(&mut self, tp: &mut CcState) {
        self.base_rtt = NO_RTT;
        self.enable(tp);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        tp.half_window()
    }

    fn set_state(&mut self, tp: &CcState, new: CaState) {
        if new == CaState::Open {
            self.enable(tp);
        } else {
            self.enabled = false;
        }
    }

    fn cwnd_event(&mut self, tp: &mut CcState, ev: CwndEvent) {
        if matches!(ev, CwndEvent::TxStart | CwndEvent::CwndRestart) {
            self.init(tp);
        }
    }

    fn pkts_acked(&mut self, _tp: &mut CcState, s: &AckSample) {
        let Some(rtt) = s.rtt else { return };
        let v = rtt / crate::units::PS_PER_US + 1;
        self.base_rtt = self.base_rtt.min(v);
        self.min_rtt = self.min_rtt.min(v);
        self.cnt_rtt += 1;
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        if !self.enabled {
            self.reno(tp, acked);
            return;
        }
        if tp.snd_una > self.beg_snd_nxt {
            // One Vegas decision per RTT.
            self.beg_snd_nxt = tp.snd_nxt;
            if self.every_other {
                self.ss_grow = !self.ss_grow;
            }
            if self.cnt_rtt <= 2 {
                self.reno(tp, acked);
            } else {
                let rtt = self.min_rtt;
                let base = self.base_rtt;
                let cwnd = tp.cwnd as u64;
                let target = cwnd * base / rtt;
                let diff = cwnd * (rtt - base) / base;
                self.last_diff = Some((diff, rtt));
                if diff > self.gamma && tp.in_slow_start() {
                    tp.cwnd = tp.cwnd.min(target as u32 + 1);
                    tp.ssthresh = tp.ssthresh.min(tp.cwnd);
                } else if tp.in_slow_start() {
                    if self.ss_grow {
                        slow_start(tp, acked);
                    }
                } else if diff > self.beta {
                    tp.cwnd -= 1;
                    tp.ssthresh = tp.ssthresh.min(tp.cwnd);
                } else if diff < self.alpha {
                    tp.cwnd += 1;
                }
                tp.cwnd = tp.cwnd.clamp(2, tp.cwnd_clamp.max(2));
                tp.ssthresh = Self::current_ssthresh(tp);
            }
            self.cnt_rtt = 0;
            self.min_rtt = NO_RTT;
        } else if tp.in_slow_start() && self.ss_grow {
            slow_start(tp, acked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::params::Value;
    use crate::cc::testkit::{defaults, state, with};
    use crate::units::PS_PER_MS;

    /// The tcp-vegas-test shape of ns-3: baseRTT from a first 100 ms sample,
    /// then three samples of `rtt_ms`, then one ACK that closes the round.
    fn run(cwnd: u32, ssthresh: u32, rtt_ms: u64) -> (u32, u32) {
        let mut v = Vegas::new(&defaults("vegas"));
        let mut tp = state(cwnd, ssthresh);
        tp.snd_nxt = 100;
        v.init(&mut tp);
        let s = |ms: u64| AckSample { acked: 1, rtt: Some(ms * PS_PER_MS), in_flight: cwnd };
        // baseRTT learnt in an earlier round.
        v.base_rtt = 100 * 1000 + 1;
        for _ in 0..3 {
            v.pkts_acked(&mut tp, &s(rtt_ms));
        }
        tp.snd_una = 101;
        tp.snd_nxt = 100 + cwnd as u64;
        v.cong_avoid(&mut tp, 1);
        (tp.cwnd, tp.ssthresh)
    }

    // Expected values recomputed by hand from Linux's integer formulas with
    // baseRTT = 100 ms: diff = cwnd·(rtt − base)/base, target = cwnd·base/rtt,
    // ssthresh finally max(ssthresh, cwnd/2 + cwnd/4).
    #[test]
    fn slow_start_exit_when_diff_exceeds_gamma() {
        // diff = 38·6/100 = 2 > 1; target = 38·100/106 = 35 → cwnd 36; ssthresh min(40, 36) = 36.
        assert_eq!(run(38, 40, 106), (36, 36));
    }

    #[test]
    fn slow_start_continues_when_diff_small() {
        // diff = 5·18/100 = 0 → slow start +1; ssthresh max(10, 2 + 1) = 10.
        assert_eq!(run(5, 10, 118), (6, 10));
    }

    #[test]
    fn avoidance_decrease_above_beta() {
        // diff = 60·106/100 = 63 > 4 → 59; ssthresh min(40, 59) = 40 → max(40, 29 + 14) = 43.
        assert_eq!(run(60, 40, 206), (59, 43));
    }

    #[test]
    fn avoidance_increase_below_alpha() {
        // diff = 15·6/100 = 0 < 2 → 16; ssthresh max(10, 8 + 4) = 12.
        assert_eq!(run(15, 10, 106), (16, 12));
    }

    #[test]
    fn avoidance_hold_between_alpha_and_beta() {
        // diff = 20·15/100 = 3 ∈ [2, 4] → hold; ssthresh max(10, 10 + 5) = 15.
        assert_eq!(run(20, 10, 115), (20, 15));
    }

    #[test]
    fn too_few_samples_is_reno() {
        let mut v = Vegas::new(&defaults("vegas"));
        let mut tp = state(20, 10);
        v.init(&mut tp);
        v.pkts_acked(&mut tp, &AckSample { acked: 1, rtt: Some(100 * PS_PER_MS), in_flight: 20 });
        tp.snd_una = 21;
        tp.cwnd_cnt = 19;
        v.cong_avoid(&mut tp, 1);
        assert_eq!(tp.cwnd, 21, "Reno +1 after cwnd segments acked");
    }

    #[test]
    fn outside_open_state_vegas_is_off() {
        let mut v = Vegas::new(&defaults("vegas"));
        let mut tp = state(60, 40);
        v.init(&mut tp);
        v.set_state(&tp, CaState::Recovery);
        for ms in [100, 206, 206, 206] {
            v.pkts_acked(&mut tp, &AckSample { acked: 1, rtt: Some(ms * PS_PER_MS), in_flight: 60 });
        }
        tp.snd_una = 1000;
        v.cong_avoid(&mut tp, 1);
        assert_eq!(tp.cwnd, 60, "no Vegas decrease outside Open");
    }

    #[test]
    fn paper_preset_uses_ns2_constants_and_grows_every_other_rtt() {
        let p = with("vegas", Some("paper"), &[]);
        assert_eq!((p.num("alpha"), p.num("beta"), p.num("gamma")), (1.0, 3.0, 1.0));
        let mut v = Vegas::new(&p);
        let mut tp = state(4, u32::MAX);
        tp.snd_nxt = 4;
        v.init(&mut tp);
        tp.snd_nxt = 8;
        // Round 1 boundary flips to a non-growing RTT: the acks of that RTT do not grow cwnd.
        tp.snd_una = 5;
        v.cong_avoid(&mut tp, 1);
        let after_boundary = tp.cwnd;
        v.cong_avoid(&mut tp, 1);
        v.cong_avoid(&mut tp, 1);
        assert_eq!(tp.cwnd, after_boundary, "no growth in the off RTT");
        // Next boundary: growth resumes.
        tp.snd_una = tp.snd_nxt + 1;
        v.cong_avoid(&mut tp, 1);
        v.cong_avoid(&mut tp, 1);
        assert!(tp.cwnd > after_boundary);
        let o = with("vegas", None, &[("alpha", Value::Num(3.0))]);
        assert_eq!(o.num("alpha"), 3.0);
    }
}
