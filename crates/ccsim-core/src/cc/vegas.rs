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
//! `flavour = "ns2"` follows ns-2.35 `tcp-vegas.cc` (`VegasTcpAgent::recv`)
//! instead, where it differs:
//!   rtt  = the mean of the RTT samples of the round (v_sumRTT_/v_cntRTT_),
//!          one sample is enough;
//!   diff = round(cwnd·(rtt − baseRTT)/rtt) (ns-2's (expect − actual)·baseRTT
//!          with the packets in flight and sent in the round taken as cwnd);
//!   slow start: every other RTT, if diff > γ: cwnd −= cwnd/8 and slow start
//!          ends (ns-2 sets ssthresh = 2); otherwise the next RTT grows;
//!   avoidance never falls back into slow start (ssthresh ≤ cwnd after
//!          each decision, ns-2's ssthresh = 2);
//!   a loss cuts the window by ¼, not ½ (`win -= win >> 2`, 2 at most 3).
//!
//! Presets: `linux` (α 2, β 4, γ 1, the default) and `paper` (α 1, β 3, γ 1
//! as in the paper and ns-2's `Agent/TCP/Vegas` defaults, slow start
//! growing only every other RTT as the paper describes, `flavour = "ns2"`).
//!
//! Deviations: in the linux flavour "Actual" is measured from ACKs (as Linux
//! does, documented in its header), not from packets sent over the RTT as in
//! the paper and ns-2. ns-2's fine-grained timeout check on duplicate ACKs
//! (`vegas_expire`), its cut only when the lost packet predates the last
//! reduction, and its cwnd of 2 after a timeout are not modelled: recovery
//! and timeouts are the sender's (NewReno or SACK).

use super::params::{choice, flag, int, AlgoSpec, Lit, Params, Preset, RecoveryFlavour};
use super::{slow_start, AckSample, CaState, CcState, CongestionOps, CwndEvent};

pub const SPEC: AlgoSpec = AlgoSpec {
    name: "vegas",
    source: "Brakmo & Peterson, IEEE JSAC 1995; Linux net/ipv4/tcp_vegas.c (6.x)",
    params: &[
        int("alpha", 2.0, 0.0, 1e6, "grow cwnd by 1/RTT while fewer than alpha segments are queued"),
        int("beta", 4.0, 0.0, 1e6, "shrink cwnd by 1/RTT while more than beta segments are queued"),
        int("gamma", 1.0, 0.0, 1e6, "leave slow start once more than gamma segments are queued"),
        flag("ss_every_other_rtt", false, "slow start doubles cwnd only every other RTT (paper, ns-2)"),
        choice("flavour", &["linux", "ns2"], "linux", "linux tcp_vegas.c (min RTT of the round, loss halves) or ns-2 tcp-vegas.cc (mean RTT, slow-start exit cwnd −= cwnd/8, loss cuts ¼)"),
    ],
    presets: &[
        Preset { name: "linux", doc: "Linux tcp_vegas.c module defaults", values: &[] },
        Preset {
            name: "paper",
            doc: "Brakmo & Peterson 1995 / ns-2 Agent/TCP/Vegas: alpha 1, beta 3, gamma 1, slow start every other RTT, ns-2 flavour",
            values: &[
                ("alpha", Lit::N(1.0)),
                ("beta", Lit::N(3.0)),
                ("gamma", Lit::N(1.0)),
                ("ss_every_other_rtt", Lit::B(true)),
                ("flavour", Lit::S("ns2")),
            ],
        },
    ],
    recovery: RecoveryFlavour::NewReno,
    ecn: None,
    ack_hooks: true,
    build: |p, _| Box::new(Vegas::new(p)),
};

const NO_RTT: u64 = u64::MAX;

pub struct Vegas {
    alpha: u64,
    beta: u64,
    gamma: u64,
    every_other: bool,
    /// ns-2 tcp-vegas.cc rules instead of Linux's (module docs).
    ns2: bool,
    /// Sum of the RTT samples of the current RTT, µs (ns2 flavour).
    sum_rtt: u64,
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
            ns2: p.text("flavour") == "ns2",
            sum_rtt: 0,
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
        self.sum_rtt = 0;
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

    /// ns-2 `VegasTcpAgent::recv`, the once-per-RTT block (module docs).
    /// The growth of slow start itself happens per ACK in `cong_avoid`
    /// while `ss_grow` holds.
    fn decide_ns2(&mut self, tp: &mut CcState, acked: u32) {
        let rtt_us = self.sum_rtt / self.cnt_rtt as u64;
        let base_us = self.base_rtt - 1;
        let cwnd = tp.cwnd as u64;
        // round(cwnd·(rtt − base)/rtt)
        let diff = if rtt_us == 0 { 0 } else { (2 * cwnd * rtt_us.saturating_sub(base_us) + rtt_us) / (2 * rtt_us) };
        self.last_diff = Some((diff, rtt_us + 1));
        if tp.in_slow_start() {
            // ss_grow was flipped at this boundary: a growing RTT starts
            // only if the queue is small; otherwise leave slow start.
            if (!self.every_other || self.ss_grow) && diff > self.gamma {
                tp.cwnd = (tp.cwnd - tp.cwnd / 8).max(2);
                tp.ssthresh = tp.cwnd;
                self.ss_grow = false;
                return;
            }
            // ns-2 grows on the deciding ACK too (v_incr_ is applied on the
            // same ACK); with cwnd 1 every ACK decides, so it must.
            if self.ss_grow {
                slow_start(tp, acked);
            }
        } else {
            if diff > self.beta {
                tp.cwnd = (tp.cwnd - 1).max(2);
            } else if diff < self.alpha {
                tp.cwnd += 1;
            }
            tp.cwnd = tp.cwnd.min(tp.cwnd_clamp.max(2));
            tp.ssthresh = tp.ssthresh.min(tp.cwnd);
        }
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
        if self.ns2 {
            // tcp-vegas.cc: win <= 3 → 2, else win − win/4.
            let w = tp.reduction_base();
            return if w <= 3 { 2 } else { w - (w >> 2) };
        }
        tp.half_window()
    }

    fn set_state(&mut self, tp: &mut CcState, new: CaState) {
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
        self.sum_rtt += v - 1;
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
            if self.ns2 {
                if self.cnt_rtt == 0 {
                    self.reno(tp, acked);
                } else {
                    self.decide_ns2(tp, acked);
                }
            } else if self.cnt_rtt <= 2 {
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
            self.sum_rtt = 0;
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
        v.set_state(&mut tp, CaState::Recovery);
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

    /// One ns-2-flavour round: baseRTT 100 ms, samples `rtts_ms`, then the ACK
    /// that closes the round. Returns (cwnd, ssthresh).
    fn run_ns2(v: &mut Vegas, tp: &mut CcState, rtts_ms: &[u64]) -> (u32, u32) {
        let w = tp.cwnd;
        let s = |ms: u64| AckSample { acked: 1, rtt: Some(ms * PS_PER_MS), in_flight: w };
        v.base_rtt = 100 * 1000 + 1;
        for &r in rtts_ms {
            v.pkts_acked(tp, &s(r));
        }
        tp.snd_una = v.beg_snd_nxt + 1;
        tp.snd_nxt = tp.snd_una + tp.cwnd as u64;
        v.cong_avoid(tp, 1);
        (tp.cwnd, tp.ssthresh)
    }

    // Expected values by hand from ns-2.35 tcp-vegas.cc: rtt = mean of the
    // round's samples, delta = round(cwnd·(rtt − base)/rtt).
    #[test]
    fn ns2_flavour_uses_the_mean_rtt_of_the_round() {
        // Avoidance, cwnd 40, samples 100, 100, 130 ms: mean 110 → delta =
        // round(40·10/110) = round(3.64) = 4 > β = 3 → cwnd 39. Linux's min
        // RTT (100 ms) would give diff 0 < α → growth.
        let p = with("vegas", Some("paper"), &[]);
        let mut v = Vegas::new(&p);
        let mut tp = state(40, 30);
        v.init(&mut tp);
        assert_eq!(run_ns2(&mut v, &mut tp, &[100, 100, 130]), (39, 30));
        // Samples 100, 104 ms: mean 102 → round(40·2/102) = round(0.78) = 1 → hold (α = 1 ≤ 1 ≤ β).
        assert_eq!(run_ns2(&mut v, &mut tp, &[100, 104]), (39, 30));
        // One sample of 100 ms is enough in ns-2 → delta 0 < α → +1.
        assert_eq!(run_ns2(&mut v, &mut tp, &[100]), (40, 30));
    }

    #[test]
    fn ns2_flavour_leaves_slow_start_by_an_eighth_and_stays_in_avoidance() {
        let p = with("vegas", Some("paper"), &[]);
        let mut v = Vegas::new(&p);
        let mut tp = state(32, u32::MAX);
        v.init(&mut tp);
        // First boundary flips ss_grow to false: a measuring round, no check.
        let _ = run_ns2(&mut v, &mut tp, &[100, 100, 100]);
        assert!(!v.ss_grow);
        // Next boundary (a growing RTT would start): mean 120 ms → delta =
        // round(32·20/120) = round(5.33) = 5 > γ = 1 → cwnd 32 − 4 = 28, slow start over.
        assert_eq!(run_ns2(&mut v, &mut tp, &[110, 120, 130]), (28, 28));
        assert!(!tp.in_slow_start());
        // In avoidance a decrease keeps ssthresh ≤ cwnd (ns-2 sets ssthresh = 2).
        assert_eq!(run_ns2(&mut v, &mut tp, &[150, 150, 150]), (27, 27));
        assert!(!tp.in_slow_start());
    }

    #[test]
    fn ns2_flavour_grows_from_one_segment_where_every_ack_decides() {
        // After an RTO cwnd is 1: each ACK ends a round. Growing rounds must
        // still grow (regression: cwnd stayed at 1 for 250 s in W1).
        let p = with("vegas", Some("paper"), &[]);
        let mut v = Vegas::new(&p);
        let mut tp = state(1, 52);
        v.init(&mut tp);
        for _ in 0..6 {
            let _ = run_ns2(&mut v, &mut tp, &[100]);
        }
        assert!(tp.cwnd >= 4, "cwnd {}", tp.cwnd);
    }

    #[test]
    fn ns2_flavour_cuts_the_window_by_a_quarter_on_loss() {
        let p = with("vegas", Some("paper"), &[]);
        let mut v = Vegas::new(&p);
        for (w, want) in [(40u32, 30u32), (10, 8), (4, 3), (3, 2), (2, 2)] {
            let tp = state(w, 100);
            assert_eq!(v.ssthresh(&tp), want, "cwnd {w}");
        }
        let mut l = Vegas::new(&defaults("vegas"));
        assert_eq!(l.ssthresh(&state(40, 100)), 20, "the linux flavour halves");
    }
}
