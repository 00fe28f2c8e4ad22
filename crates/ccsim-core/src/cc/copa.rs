//! Copa.
//!
//! Follows: Arun & Balakrishnan, "Copa: Practical Delay-Based Congestion
//! Control for the Internet", NSDI 2018, with the authors' genericCC code
//! (github venkatarun95/genericCC: markoviancc.cc, rtt-window.cc) for the
//! constants and the details the paper leaves open:
//! - RTT_min over the last 10 s; RTT_standing, the smallest RTT over the last
//!   srtt/2 (srtt an EWMA of gain 1/16); queueing delay d_q = RTT_standing −
//!   RTT_min (rtt-window.cc);
//! - target rate 1/(δ·d_q) packets per second, as a window
//!   RTT_standing/(δ·d_q); per acknowledged segment the window moves toward
//!   it by v/(δ·cwnd), never below 2 (markoviancc.cc update_intersend_time);
//! - velocity v: once per RTT, if more than 2/3 of the RTT's updates went one
//!   way and it is the way of the previous RTT, v doubles; otherwise v = 1;
//!   v ≤ cwnd (the code's rule; the paper describes doubling after three
//!   RTTs in one direction);
//! - slow start: cwnd + 1 per acknowledged segment until it reaches the
//!   target window;
//! - mode switch (rtt-window.cc is_copa): default mode while the smallest
//!   RTT of the last 4·srtt is within 10 % of the way from RTT_min to the
//!   largest RTT of the last 4·srtt (the queue empties now and then);
//!   otherwise competitive mode, where 1/δ grows by one per RTT and δ
//!   doubles on a loss (at most once per RTT); back in default mode δ
//!   returns to `delta`;
//! - paced at 2·cwnd/RTT_standing (the paper, §2.1; genericCC paces at 1×).
//!
//! Deviations: the window counts segments acknowledged, not ACKs, so a
//! delayed ACK applies the per-segment rule twice; a retransmission
//! timeout restarts Copa from a window of 2 in slow start (genericCC leaves
//! its window alone and lets its sender time out); loss in default mode
//! changes nothing, as in the paper.

use super::params::{num, AlgoSpec, Kind, Lit, ParamSpec, Params, Preset, RecoveryFlavour};
use super::{AckSample, CaState, CcState, CongestionOps, CwndEvent, RateSample};
use crate::units::{SimTime, PS_PER_S};
use std::collections::VecDeque;

pub const SPEC: AlgoSpec = AlgoSpec {
    name: "copa",
    source: "Arun & Balakrishnan, NSDI 2018; genericCC markoviancc.cc / rtt-window.cc",
    params: &[
        num("delta", 0.5, 0.001, 10.0, "δ of the default mode: target rate 1/(δ·d_q); equilibrium queue ≈ 1/δ packets"),
        ParamSpec {
            name: "competitive",
            kind: Kind::Bool,
            default: Lit::B(true),
            doc: "switch to competitive mode (AIMD on 1/δ) when the queue never empties, as beside loss-based flows",
        },
    ],
    presets: &[
        Preset { name: "paper", doc: "δ = 0.5 with mode switching (NSDI 2018 §2)", values: &[] },
        Preset {
            name: "default_only",
            doc: "δ fixed at 0.5: no competitive mode",
            values: &[("competitive", Lit::B(false))],
        },
    ],
    recovery: RecoveryFlavour::NewReno,
    ecn: None,
    ack_hooks: true,
    build: |p, _| Box::new(Copa::new(p)),
};

/// The smallest (or largest) value over a sliding time window, with a
/// monotonic deque (genericCC ExtremeWindow; the last sample is never
/// dropped).
#[derive(Default)]
struct Extreme {
    max: bool,
    vals: VecDeque<(SimTime, SimTime)>,
}

impl Extreme {
    fn new(max: bool) -> Self {
        Extreme { max, vals: VecDeque::new() }
    }

    fn sample(&mut self, now: SimTime, v: SimTime, window: SimTime) {
        while self.vals.back().is_some_and(|&(_, b)| if self.max { b < v } else { b > v }) {
            self.vals.pop_back();
        }
        self.vals.push_back((now, v));
        while self.vals.len() > 1 && self.vals.front().is_some_and(|&(t, _)| t + window < now) {
            self.vals.pop_front();
        }
    }

    fn get(&self) -> Option<SimTime> {
        self.vals.front().map(|&(_, v)| v)
    }
}

pub struct Copa {
    delta_default: f64,
    competitive_allowed: bool,
    delta: f64,
    window: f64,
    slow_start: bool,
    srtt: f64,
    min_rtt: Extreme,
    standing: Extreme,
    recent_min: Extreme,
    recent_max: Extreme,
    competitive: bool,
    // velocity bookkeeping (markoviancc.cc)
    last_update: SimTime,
    update_dir: i64,
    prev_update_dir: i64,
    pkts_per_rtt: i64,
    update_amt: f64,
    // competitive δ
    last_delta_update: SimTime,
    last_delta_loss: SimTime,
}

fn secs(t: SimTime) -> f64 {
    t as f64 / PS_PER_S as f64
}

impl Copa {
    pub fn new(p: &Params) -> Self {
        let d = p.num("delta");
        Copa {
            delta_default: d,
            competitive_allowed: p.flag("competitive"),
            delta: d,
            window: 0.0,
            slow_start: true,
            srtt: 0.0,
            min_rtt: Extreme::new(false),
            standing: Extreme::new(false),
            recent_min: Extreme::new(false),
            recent_max: Extreme::new(true),
            competitive: false,
            last_update: 0,
            update_dir: 0,
            prev_update_dir: 1,
            pkts_per_rtt: 0,
            update_amt: 1.0,
            last_delta_update: 0,
            last_delta_loss: 0,
        }
    }

    /// RTTWindow::new_rtt_sample.
    fn rtt_sample(&mut self, now: SimTime, r: SimTime) {
        let rs = secs(r);
        self.srtt = if self.srtt == 0.0 { rs } else { rs / 16.0 + self.srtt * 15.0 / 16.0 };
        let s = (self.srtt * PS_PER_S as f64) as SimTime;
        let ten = 10 * PS_PER_S;
        self.min_rtt.sample(now, r, ten);
        self.standing.sample(now, r, (s / 2).min(ten));
        self.recent_min.sample(now, r, (4 * s).min(ten));
        self.recent_max.sample(now, r, (4 * s).min(ten));
    }

    /// Queueing delay and standing RTT, seconds, once samples exist.
    fn delays(&self) -> Option<(f64, f64)> {
        let (min, st) = (self.min_rtt.get()?, self.standing.get()?);
        Some((secs(st.saturating_sub(min)), secs(st)))
    }

    /// RTTWindow::is_copa: the queue came close to empty in the last 4·srtt.
    fn queue_empties(&self) -> bool {
        match (self.min_rtt.get(), self.recent_min.get(), self.recent_max.get()) {
            (Some(min), Some(lo), Some(hi)) => (lo as f64) < min as f64 + 0.1 * (hi - min) as f64,
            _ => true,
        }
    }

    /// markoviancc.cc update_delta.
    fn update_delta(&mut self, now: SimTime, loss: bool) {
        if !self.competitive_allowed {
            return;
        }
        let was = self.competitive;
        self.competitive = !self.queue_empties();
        if !self.competitive {
            self.delta = self.delta_default;
            return;
        }
        if !was {
            self.delta = 1.0; // genericCC: δ starts at 1 in the loss-sensitive mode
            self.last_delta_update = now;
        }
        let rtt = (self.srtt * PS_PER_S as f64) as SimTime;
        if loss {
            if self.last_delta_loss + rtt < now {
                self.delta *= 2.0;
                self.last_delta_loss = now;
            }
        } else if self.last_delta_update + rtt < now {
            self.delta = 1.0 / (1.0 + 1.0 / self.delta);
            self.last_delta_update = now;
        }
    }

    /// One acknowledged segment (update_intersend_time).
    fn on_segment(&mut self, now: SimTime) {
        let Some((dq, rtt)) = self.delays() else {
            return;
        };
        let target = if dq <= 0.0 { f64::INFINITY } else { rtt / (dq * self.delta) };
        if self.slow_start {
            self.window += 1.0;
            if self.window >= target {
                self.slow_start = false;
            }
        } else {
            if self.last_update + ((rtt * PS_PER_S as f64) as SimTime) < now {
                if self.update_dir.abs() > 2 * self.pkts_per_rtt / 3 {
                    if self.prev_update_dir * self.update_dir > 0 {
                        self.update_amt *= 2.0;
                    } else {
                        self.update_amt = 1.0;
                        self.prev_update_dir *= -1;
                    }
                } else {
                    self.update_amt = 1.0;
                }
                self.last_update = now;
                self.pkts_per_rtt = 0;
                self.update_dir = 0;
            }
            self.update_amt = self.update_amt.min(self.window.max(1.0));
            self.pkts_per_rtt += 1;
            let step = self.update_amt / (self.delta * self.window);
            if self.window < target {
                self.update_dir += 1;
                self.window += step;
            } else {
                self.update_dir -= 1;
                self.window -= step;
            }
        }
        self.window = self.window.max(2.0);
    }

    /// The target rate, packets per second (∞ with no queue).
    pub fn target_rate(&self) -> f64 {
        match self.delays() {
            Some((dq, _)) if dq > 0.0 => 1.0 / (self.delta * dq),
            _ => f64::INFINITY,
        }
    }
}

impl CongestionOps for Copa {
    fn name(&self) -> &'static str {
        "copa"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.window = tp.cwnd as f64;
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        tp.ssthresh
    }

    fn cong_avoid(&mut self, _tp: &mut CcState, _acked: u32) {}

    fn has_cong_control(&self) -> bool {
        true
    }

    fn pkts_acked(&mut self, tp: &mut CcState, s: &AckSample) {
        if let Some(r) = s.rtt {
            self.rtt_sample(tp.now, r);
        }
    }

    fn cong_control(&mut self, tp: &mut CcState, rs: &RateSample) {
        self.update_delta(tp.now, false);
        for _ in 0..rs.acked_sacked {
            self.on_segment(tp.now);
        }
        tp.cwnd = (self.window.ceil() as u32).clamp(2, tp.cwnd_clamp.max(2));
        if let Some((_, rtt)) = self.delays().filter(|&(_, r)| r > 0.0) {
            tp.pacing_rate = Some(2.0 * self.window * tp.mss as f64 / rtt);
        }
    }

    fn set_state(&mut self, tp: &mut CcState, new: CaState) {
        if new == CaState::Recovery && new != tp.ca_state {
            self.update_delta(tp.now, true);
        }
    }

    fn cwnd_event(&mut self, tp: &mut CcState, ev: CwndEvent) {
        if ev == CwndEvent::Loss {
            self.update_delta(tp.now, true);
            self.window = 2.0;
            self.slow_start = true;
        }
    }

    fn var_names(&self) -> &'static [&'static str] {
        &["delta", "velocity", "target_rate_pps", "queue_delay_s"]
    }

    fn vars(&self, _tp: &CcState, out: &mut Vec<f64>) {
        out.push(self.delta);
        out.push(self.update_amt);
        out.push(self.target_rate());
        out.push(self.delays().map_or(f64::NAN, |(dq, _)| dq));
    }

    fn mode(&self) -> Option<&'static str> {
        Some(if self.slow_start {
            "slow_start"
        } else if self.competitive {
            "competitive"
        } else {
            "default"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{state, with};
    use crate::units::PS_PER_MS;

    fn copa(kv: &[(&str, crate::cc::params::Value)]) -> Copa {
        Copa::new(&with("copa", None, kv))
    }

    #[test]
    fn the_target_window_is_rtt_over_delta_times_queueing_delay() {
        // RTT_min 20 ms, standing RTT 25 ms: d_q = 5 ms; δ = 0.5 →
        // target rate 1/(0.5·0.005) = 400 pkt/s, window 0.025·400 = 10.
        // RTT_min remembers 10 s: 100 s later the 20 ms sample is gone.
        let mut c = copa(&[]);
        c.rtt_sample(0, 20 * PS_PER_MS);
        c.rtt_sample(100 * PS_PER_S, 25 * PS_PER_MS);
        let (dq, rtt) = c.delays().unwrap();
        assert!((rtt - 0.025).abs() < 1e-12 && dq.abs() < 1e-12);
        let mut c = copa(&[]);
        c.rtt_sample(0, 20 * PS_PER_MS);
        c.rtt_sample(PS_PER_S, 25 * PS_PER_MS);
        let (dq, rtt) = c.delays().unwrap();
        assert!((dq - 0.005).abs() < 1e-12 && (rtt - 0.025).abs() < 1e-12);
        assert!((c.target_rate() - 400.0).abs() < 1e-9);
    }

    #[test]
    fn window_moves_by_v_over_delta_cwnd_and_velocity_doubles_when_the_direction_holds() {
        let mut c = copa(&[]);
        c.rtt_sample(0, 20 * PS_PER_MS);
        c.rtt_sample(PS_PER_S, 25 * PS_PER_MS); // target window 10
        c.slow_start = false;
        c.window = 4.0;
        c.last_update = PS_PER_S;
        // Below target: +1/(0.5·4) = +0.5 for the first segment.
        c.on_segment(PS_PER_S + 1);
        assert!((c.window - 4.5).abs() < 1e-12);
        // A whole RTT of increases, then the next RTT doubles v (same way as before).
        for i in 0..3 {
            c.on_segment(PS_PER_S + 2 + i);
        }
        c.on_segment(PS_PER_S + 30 * PS_PER_MS);
        assert_eq!(c.update_amt, 2.0);
        // Above target the window falls.
        c.window = 20.0;
        c.update_amt = 1.0;
        c.on_segment(PS_PER_S + 31 * PS_PER_MS);
        assert!((c.window - (20.0 - 1.0 / (0.5 * 20.0))).abs() < 1e-12);
    }

    #[test]
    fn slow_start_grows_one_per_segment_until_the_target() {
        let mut c = copa(&[]);
        c.rtt_sample(0, 20 * PS_PER_MS);
        c.rtt_sample(PS_PER_S, 25 * PS_PER_MS); // target 10
        c.window = 8.0;
        c.on_segment(PS_PER_S);
        assert!(c.slow_start && c.window == 9.0);
        c.on_segment(PS_PER_S);
        assert!(!c.slow_start && c.window == 10.0);
    }

    #[test]
    fn competitive_mode_when_the_queue_never_empties_and_aimd_on_one_over_delta() {
        let mut c = copa(&[]);
        let mut tp = state(10, u32::MAX);
        // A queue that stays 30–40 ms above a 20 ms minimum for a second.
        c.rtt_sample(0, 20 * PS_PER_MS);
        for i in 1..=100u64 {
            let r = if i % 2 == 0 { 50 } else { 60 };
            c.rtt_sample(i * 10 * PS_PER_MS, r * PS_PER_MS);
        }
        tp.now = PS_PER_S;
        c.update_delta(tp.now, false);
        assert!(c.competitive && c.delta == 1.0);
        // One RTT later 1/δ = 2; a loss doubles δ back.
        tp.now += 100 * PS_PER_MS;
        c.update_delta(tp.now, false);
        assert!((c.delta - 0.5).abs() < 1e-12);
        c.update_delta(tp.now + 1, true);
        assert!((c.delta - 1.0).abs() < 1e-12);
        // Without the switch δ stays.
        let mut d = copa(&[("competitive", crate::cc::params::Value::Bool(false))]);
        d.rtt_sample(0, 20 * PS_PER_MS);
        for i in 1..=100u64 {
            d.rtt_sample(i * 10 * PS_PER_MS, 55 * PS_PER_MS);
        }
        d.update_delta(PS_PER_S, false);
        assert!(!d.competitive && d.delta == 0.5);
    }
}
