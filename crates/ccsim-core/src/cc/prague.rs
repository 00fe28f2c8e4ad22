//! TCP Prague, the L4S congestion control.
//!
//! Follows: the L4S team's Linux module net/ipv4/tcp_prague.c (github
//! L4STeam/tcp-prague, module version 0.7), function by function, in its
//! default window mode; draft-briscoe-iccrg-prague-congestion-control; the
//! L4S requirements of RFC 9331 §4. It is DCTCP's idea on accurate ECN:
//! - `prague_update_alpha`: once per round trip (with RTT independence, once
//!   per target RTT as well), α ← α − α/16 + F/16 on an upscaled EWMA with
//!   24 fractional bits, F the fraction of segments newly delivered that the
//!   ECN feedback reported CE; α starts at 0 and is not updated before the
//!   first CE (`saw_ce`), whose arrival halves the window once;
//! - `prague_update_cwnd` (cong_control, every ACK): a fractional window
//!   with 20 fractional bits grows by acked·ai/cwnd over the segments not
//!   reported CE (Reno's 1 per round trip, scaled by RTT independence),
//!   slow start as tcp_slow_start, no growth in loss recovery or while
//!   application-limited; cwnd follows the fractional window one segment
//!   per ACK (ssthresh = cwnd on each step down);
//! - `prague_enter_cwr` (entering CWR on ECN feedback): frac −= frac·α/2,
//!   at most once per target RTT with RTT independence;
//! - `prague_enter_loss` (Recovery, RTO): frac halves and growth stops until
//!   the state is Open again; `prague_cwnd_undo` restores;
//! - RTT independence (`rtt_scaling = "rate"`, the default): after
//!   `rtt_transition` rounds out of slow start, a flow whose smoothed RTT is
//!   below `rtt_target_ms` grows by (RTT/target)² per round trip, so flows
//!   below the target get the same rate (`prague_rate_scaled_ai_ack_increase`);
//!   `scalable` and `additive` are the module's other heuristics; `none`
//!   turns it off;
//! - pacing at 100 % of cwnd·mss/srtt (200 % while cwnd < ssthresh/2), at
//!   least 100 kb/s, in bursts of rate·2^-burst_shift seconds
//!   (`prague_update_pacing_rate`, `prague_tso_segs`);
//! - TCP_CONG_NEEDS_ECN | NEEDS_ACCECN: its flows send ECT(1) with AccECN
//!   feedback; `ecn = false` is refused (the module falls back to Reno).
//!
//! Left out: the rate-based mode for windows under 4 MTUs
//! (`prague_cwnd_transit`) and the MTU adaptation that goes with it;
//! classic-ECN bottleneck detection and fallback (`prague_ecn_fallback`,
//! off in the module by default; the draft leaves it experimental); the
//! undo restores the fractional window as module 0.6 did (0.7 rebuilds it
//! from the rate-mode estimate).

use super::params::{int, num, AlgoSpec, EcnNeed, Lit, Params, Preset, RecoveryFlavour};
use super::{slow_start, CaState, CcState, CongestionOps, CwndEvent, RateSample};
use crate::packet::{EcnCodepoint, EcnFeedback};
use crate::units::{SimTime, PS_PER_S};

const ALPHA_BITS: u32 = 24;
const MAX_ALPHA: u64 = 1 << ALPHA_BITS;
const CWND_UNIT: u32 = 20;
const ONE_CWND: u64 = 1 << CWND_UNIT;
const SHIFT_G: u32 = 4;
const MIN_CWND: u32 = 2;
/// MINIMUM_RATE: 100 kb/s, bytes per second.
const MINIMUM_RATE: f64 = 12_500.0;
/// MAX_SCALED_RTT: no RTT scaling above 100 ms.
const MAX_SCALED_RTT_S: f64 = 0.1;

pub const SPEC: AlgoSpec = AlgoSpec {
    name: "prague",
    source: "L4STeam tcp_prague.c (tcp-prague module 0.7); draft-briscoe-iccrg-prague-congestion-control; RFC 9331",
    params: &[
        super::params::ParamSpec {
            name: "rtt_scaling",
            kind: super::params::Kind::Choice(&["none", "rate", "scalable", "additive"]),
            default: Lit::S("rate"),
            doc: "RTT independence heuristic (prague_rtt_scaling): 'rate' grows by (RTT/target)² per RTT below the target",
        },
        num("rtt_target_ms", 25.0, 0.001, 1000.0, "RTT the flow behaves as if it had, ms (prague_rtt_target)"),
        int("rtt_transition", 4.0, 0.0, 1e9, "rounds after slow start before RTT independence applies (prague_rtt_transition)"),
        int("burst_shift", 12.0, 0.0, 30.0, "paced bursts last at most 2^-burst_shift s (prague_burst_shift: ≈ 0.25 ms)"),
        int("max_tso_segs", 0.0, 0.0, 1e6, "cap on segments per burst, 0 = none (prague_max_tso_segs)"),
    ],
    presets: &[
        Preset { name: "module", doc: "tcp-prague module 0.7 defaults (RTT independence 'rate', target 25 ms)", values: &[] },
        Preset {
            name: "rtt_dependent",
            doc: "no RTT independence: DCTCP-like growth of one segment per RTT",
            values: &[("rtt_scaling", Lit::S("none"))],
        },
    ],
    recovery: RecoveryFlavour::NewReno,
    ecn: Some(EcnNeed {
        codepoint: EcnCodepoint::Ect1,
        feedback: EcnFeedback::Accecn,
        without: "Prague needs ECN with accurate feedback; the module falls back to Reno without it: use cc = 'reno'",
    }),
    ack_hooks: false,
    build: |p, _| Box::new(Prague::new(p)),
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RttScaling {
    None,
    Rate,
    Scalable,
    Additive,
}

pub struct Prague {
    rtt_indep: RttScaling,
    rtt_target: SimTime,
    rtt_transition: u32,
    burst_shift: u32,
    max_tso_segs: u32,
    cwr_stamp: SimTime,
    alpha_stamp: SimTime,
    upscaled_alpha: u64,
    ai_ack_increase: u64,
    frac_cwnd: u64,
    loss_frac_cwnd: u64,
    loss_cwnd: u32,
    max_tso_burst: u32,
    old_delivered: u64,
    old_delivered_ce: u64,
    next_seq: u64,
    round: u32,
    saw_ce: bool,
    in_loss: bool,
}

fn secs(t: SimTime) -> f64 {
    t as f64 / PS_PER_S as f64
}

/// Linux srtt_us (µs << 3) of an RTT.
fn srtt8(t: SimTime) -> u64 {
    (t as u128 * 8 / 1_000_000) as u64
}

impl Prague {
    pub fn new(p: &Params) -> Self {
        let rtt_indep = match p.text("rtt_scaling") {
            "none" => RttScaling::None,
            "scalable" => RttScaling::Scalable,
            "additive" => RttScaling::Additive,
            _ => RttScaling::Rate,
        };
        Prague {
            rtt_indep,
            rtt_target: (p.num("rtt_target_ms") * 1e9) as SimTime,
            rtt_transition: p.num("rtt_transition") as u32,
            burst_shift: p.num("burst_shift") as u32,
            max_tso_segs: p.num("max_tso_segs") as u32,
            cwr_stamp: 0,
            alpha_stamp: 0,
            upscaled_alpha: 0,
            ai_ack_increase: ONE_CWND,
            frac_cwnd: 0,
            loss_frac_cwnd: 0,
            loss_cwnd: 0,
            max_tso_burst: 1,
            old_delivered: 0,
            old_delivered_ce: 0,
            next_seq: 0,
            round: 0,
            saw_ce: false,
            in_loss: false,
        }
    }

    /// α as a fraction in [0, 1].
    pub fn alpha(&self) -> f64 {
        (self.upscaled_alpha >> SHIFT_G) as f64 / MAX_ALPHA as f64
    }

    /// The fractional window, segments.
    pub fn frac_cwnd(&self) -> f64 {
        self.frac_cwnd as f64 / ONE_CWND as f64
    }

    /// prague_is_rtt_indep.
    fn is_rtt_indep(&self, tp: &CcState) -> bool {
        self.rtt_indep != RttScaling::None && !tp.in_slow_start() && self.round >= self.rtt_transition
    }

    /// prague_target_rtt (additive: target + srtt).
    fn target_rtt(&self, tp: &CcState) -> SimTime {
        match self.rtt_indep {
            RttScaling::Additive => self.rtt_target + tp.srtt.unwrap_or(0),
            _ => self.rtt_target,
        }
    }

    /// prague_ai_ack_increase: the per-ACK growth numerator, in ONE_CWND units.
    fn update_ai_ack_increase(&mut self, tp: &CcState) {
        self.ai_ack_increase = match (self.rtt_indep, tp.srtt) {
            (RttScaling::None, _) | (_, None) => ONE_CWND,
            _ if self.round < self.rtt_transition => ONE_CWND,
            (_, Some(r)) if r == 0 || secs(r) > MAX_SCALED_RTT_S => ONE_CWND,
            (RttScaling::Scalable, Some(r)) => {
                // R0 ≈ 16 ms, R1 ≈ 1.5 ms, in srtt_us units.
                let (r0, r1) = (((1u64 << 14) << 3) as i64, ((((1u64 << 10) + (1 << 9)) << 3) as i64));
                let rtt = srtt8(r) as i64;
                let inc = (ONE_CWND as i128 >> 3) * r0 as i128 + ONE_CWND as i128 * (rtt - r1).clamp(0, r0) as i128;
                let inc = inc * rtt as i128;
                let div = (r0 * r0) as i128;
                ((inc + div / 2) / div) as u64
            }
            (_, Some(r)) => {
                // prague_rate_scaled_ai_ack_increase: (rtt/target)² below the target.
                let (rtt, target) = (srtt8(r) as u128, srtt8(self.target_rtt(tp)) as u128);
                if rtt >= target {
                    ONE_CWND
                } else {
                    let div = target * target;
                    (((rtt << CWND_UNIT) * rtt + div / 2) / div) as u64
                }
            }
        };
    }

    /// prague_frac_cwnd_to_snd_cwnd.
    fn frac_to_cwnd(&self, tp: &CcState) -> u32 {
        let w = (self.frac_cwnd + ONE_CWND - 1) >> CWND_UNIT;
        (w.min(u32::MAX as u64) as u32).max(MIN_CWND).min(tp.cwnd_clamp)
    }

    /// prague_new_round.
    fn new_round(&mut self, tp: &CcState) {
        self.next_seq = tp.snd_nxt;
        self.old_delivered_ce = tp.delivered_ce;
        self.old_delivered = tp.delivered;
        if !tp.in_slow_start() {
            self.round = self.round.wrapping_add(1);
            if self.round == 0 {
                self.round = self.rtt_transition;
            }
        }
        self.update_ai_ack_increase(tp);
    }

    /// prague_should_update_ewma.
    fn should_update_ewma(&self, tp: &CcState) -> bool {
        let e2e = tp.snd_una >= self.next_seq;
        e2e && (self.rtt_indep == RttScaling::None
            || !self.is_rtt_indep(tp)
            || tp.now.saturating_sub(self.alpha_stamp) >= self.target_rtt(tp))
    }

    /// prague_update_alpha.
    fn update_alpha(&mut self, tp: &CcState) {
        if self.saw_ce {
            let mut ecn = tp.delivered_ce - self.old_delivered_ce;
            if ecn > 0 {
                let acked = (tp.delivered - self.old_delivered).max(1);
                ecn = ((ecn as u128) << ALPHA_BITS).div_euclid(acked as u128) as u64;
            }
            let a = self.upscaled_alpha - (self.upscaled_alpha >> SHIFT_G) + ecn;
            self.alpha_stamp = tp.now;
            self.upscaled_alpha = a.min(MAX_ALPHA << SHIFT_G);
        }
        self.new_round(tp);
    }

    /// prague_update_cwnd.
    fn update_cwnd(&mut self, tp: &mut CcState, rs: &RateSample) {
        let mut acked = rs.acked_sacked as i64;
        if rs.ece_delta > 0 {
            if !self.saw_ce {
                self.frac_cwnd = (self.frac_cwnd + 1) >> 1;
            }
            self.saw_ce = true;
            acked -= rs.ece_delta as i64;
        }
        if acked > 0 && !self.in_loss && !tp.app_limited {
            let mut acked = acked as u32;
            if tp.in_slow_start() {
                acked = slow_start(tp, acked);
                self.frac_cwnd = (tp.cwnd as u64) << CWND_UNIT;
                if acked == 0 {
                    self.update_ai_ack_increase(tp);
                    return;
                }
            }
            let w = tp.cwnd.max(1) as u64;
            let increase = (acked as u64 * self.ai_ack_increase + w / 2) / w;
            self.frac_cwnd += increase.max(acked as u64);
        }
        // adjust: cwnd follows the fractional window one segment per ACK.
        let target = self.frac_to_cwnd(tp);
        if tp.cwnd > target {
            tp.cwnd -= 1;
            tp.ssthresh = tp.cwnd;
            self.update_ai_ack_increase(tp);
        } else if tp.cwnd < target {
            tp.cwnd += 1;
            self.update_ai_ack_increase(tp);
        }
    }

    /// prague_update_pacing_rate (window mode), bytes of payload per second.
    fn update_pacing_rate(&mut self, tp: &mut CcState) {
        let Some(srtt) = tp.srtt.filter(|&s| s > 0) else {
            return;
        };
        let inflight = tp.cwnd.max(tp.pipe) as f64;
        let mut rate = tp.mss as f64 / secs(srtt);
        if (tp.cwnd as u64) < tp.ssthresh as u64 / 2 {
            rate *= 2.0;
        }
        let rate = (rate * inflight).max(MINIMUM_RATE);
        let burst = (rate / tp.mss as f64) as u64 >> self.burst_shift;
        self.max_tso_burst = burst.clamp(1, u32::MAX as u64) as u32;
        tp.pacing_rate = Some(rate);
    }

    /// prague_enter_cwr.
    fn enter_cwr(&mut self, tp: &CcState) {
        if self.is_rtt_indep(tp) && self.target_rtt(tp) > tp.now.saturating_sub(self.cwr_stamp) {
            return;
        }
        self.cwr_stamp = tp.now;
        let alpha = (self.upscaled_alpha >> SHIFT_G) as u128;
        let reduction = ((alpha * self.frac_cwnd as u128 + MAX_ALPHA as u128) >> (ALPHA_BITS + 1)) as u64;
        self.frac_cwnd -= reduction.min(self.frac_cwnd);
    }

    /// prague_enter_loss.
    fn enter_loss(&mut self, tp: &CcState) {
        self.loss_cwnd = tp.cwnd;
        self.loss_frac_cwnd = self.frac_cwnd;
        self.frac_cwnd -= self.frac_cwnd >> 1;
        self.in_loss = true;
    }
}

impl CongestionOps for Prague {
    fn name(&self) -> &'static str {
        "prague"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.alpha_stamp = tp.now;
        self.upscaled_alpha = 0;
        self.frac_cwnd = (tp.cwnd as u64) << CWND_UNIT;
        self.max_tso_burst = 1;
        self.round = 0;
        self.saw_ce = tp.delivered_ce > 0;
        self.update_pacing_rate(tp);
        self.new_round(tp);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        // prague_ssthresh leaves ssthresh as it is; the reductions are
        // enter_cwr / enter_loss on the state change.
        tp.ssthresh
    }

    fn cong_avoid(&mut self, _tp: &mut CcState, _acked: u32) {}

    fn has_cong_control(&self) -> bool {
        true
    }

    fn cong_control(&mut self, tp: &mut CcState, rs: &RateSample) {
        self.update_cwnd(tp, rs);
        if self.should_update_ewma(tp) {
            self.update_alpha(tp);
        }
        self.update_pacing_rate(tp);
    }

    fn set_state(&mut self, tp: &mut CcState, new: CaState) {
        if new == tp.ca_state {
            return;
        }
        match new {
            CaState::Recovery => self.enter_loss(tp),
            CaState::Cwr => self.enter_cwr(tp),
            CaState::Open => self.in_loss = false,
            _ => {}
        }
    }

    fn cwnd_event(&mut self, tp: &mut CcState, ev: CwndEvent) {
        if ev == CwndEvent::Loss {
            self.enter_loss(tp);
        }
    }

    fn undo_cwnd(&mut self, tp: &CcState) -> u32 {
        self.in_loss = false;
        self.frac_cwnd = self.frac_cwnd.max(self.loss_frac_cwnd);
        self.loss_cwnd.max(tp.cwnd)
    }

    fn tso_segs(&self) -> Option<u32> {
        Some(if self.max_tso_segs > 0 { self.max_tso_burst.min(self.max_tso_segs) } else { self.max_tso_burst })
    }

    fn var_names(&self) -> &'static [&'static str] {
        &["alpha", "frac_cwnd", "rtt_indep"]
    }

    fn vars(&self, tp: &CcState, out: &mut Vec<f64>) {
        out.push(self.alpha());
        out.push(self.frac_cwnd());
        out.push(if self.is_rtt_indep(tp) { 1.0 } else { 0.0 });
    }
}

#[cfg(test)]
mod tests;
