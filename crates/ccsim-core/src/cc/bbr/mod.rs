//! BBR v1.
//!
//! Follows: Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR:
//! congestion-based congestion control", ACM Queue 14(5), 2016;
//! draft-cardwell-iccrg-bbr-congestion-control-00 (2017); Linux
//! net/ipv4/tcp_bbr.c (BBR v1 as in mainline 5.x/6.x). The model: BtlBw =
//! windowed max of delivery-rate samples over 10 packet-timed rounds
//! (app-limited samples only if they raise it), RTprop = min RTT over 10 s.
//! pacing_rate = pacing_gain·BtlBw·(1 − 1 %), cwnd target =
//! cwnd_gain·BtlBw·RTprop + ACK-aggregation allowance + quantization budget,
//! at least 4 segments. Modes:
//!   STARTUP    pacing and cwnd gain 2/ln 2 (739/256); full pipe when three
//!              non-app-limited rounds fail to raise BtlBw by 25 %;
//!   DRAIN      pacing gain 88/256 until inflight ≤ BDP;
//!   PROBE_BW   gains cycle [5/4, 3/4, 1, 1, 1, 1, 1, 1], each ≥ RTprop,
//!              cwnd gain 2, start phase random but never 3/4;
//!   PROBE_RTT  when RTprop is 10 s old: cwnd 4 for max(200 ms, one round).
//! Loss: packet conservation for the first round of recovery, then growth by
//! acked; on exit cwnd = max(cwnd, cwnd before recovery). Long-term
//! ("policer") bandwidth: after 2 lossy 4–16-round intervals with similar
//! rates, pace at their average for 48 rounds.
//!
//! Deviations from Linux: bandwidth in floating-point segments per second
//! (Linux: fixed point, segments/µs << 24); no host queue, so the "in network
//! at earliest departure time" estimate equals inflight (plus one send
//! quantum while probing up); the quantization budget uses Linux's GSO
//! sizing (`tso = true`: segments in 1 ms at the pacing rate, 2..=44) or
//! only its floor (`tso = false`: 1 segment below 1.2 Mb/s, else 2); ACK
//! delay is not known to BBR (Linux's is_ack_delayed), so a delayed-ACK RTT
//! sample may refresh an expired RTprop. Idle restart follows Linux's
//! `bbr_cwnd_event` on CA_EVENT_TX_START.

mod minmax;
pub mod shared;

use super::params::{flag, int, num, AlgoSpec, Params, Preset, RecoveryFlavour};
use super::{CaState, CcState, CongestionOps, CwndEvent, RateSample};
use crate::rng::Stream;
use crate::units::{SimTime, PS_PER_MS, PS_PER_S};
pub use minmax::MaxFilter;
use shared::{AckAggregation, Pacing};

pub const SPEC: AlgoSpec = AlgoSpec {
    name: "bbr",
    source: "Cardwell et al., ACM Queue 2016; draft-cardwell-iccrg-bbr-congestion-control-00; Linux net/ipv4/tcp_bbr.c (BBR v1)",
    params: &[
        num("high_gain", 739.0 / 256.0, 1.0, 10.0, "STARTUP pacing and cwnd gain (Linux 739/256 ≈ 2/ln 2)"),
        num("drain_gain", 88.0 / 256.0, 0.01, 1.0, "DRAIN pacing gain (Linux 88/256)"),
        num("cwnd_gain", 2.0, 1.0, 10.0, "PROBE_BW cwnd gain"),
        num("probe_bw_up", 1.25, 1.0, 4.0, "first PROBE_BW phase gain (then 2 − it, then six 1s)"),
        int("bw_win_rounds", 10.0, 1.0, 1000.0, "max filter length for BtlBw, rounds"),
        num("min_rtt_win_s", 10.0, 0.1, 3600.0, "min filter length for RTprop (PROBE_RTT period)"),
        num("probe_rtt_ms", 200.0, 0.0, 10_000.0, "PROBE_RTT duration (0 disables PROBE_RTT)"),
        int("cwnd_min_target", 4.0, 1.0, 1000.0, "cwnd floor and PROBE_RTT cwnd, segments"),
        num("full_bw_thresh", 1.25, 1.0, 4.0, "STARTUP ends when BtlBw grows less than this per round..."),
        int("full_bw_cnt", 3.0, 1.0, 100.0, "...for this many rounds"),
        flag("long_term_bw", true, "policer detection (lt_bw)"),
        flag("ack_aggregation", true, "extra cwnd for ACK aggregation (extra_acked)"),
        flag("tso", true, "quantization budget with Linux's GSO sizing (else 1-2 segments)"),
    ],
    presets: &[Preset { name: "linux", doc: "Linux tcp_bbr.c (BBR v1)", values: &[] }],
    recovery: RecoveryFlavour::NewReno,
    ecn: None,
    ack_hooks: false,
    build: |p, rng| Box::new(Bbr::new(p, rng)),
};

const CYCLE_LEN: usize = 8;
const MIN_TSO_RATE_BPS: f64 = 1_200_000.0;
const INIT_CWND: u32 = 10; // TCP_INIT_CWND
const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: f64 = 50.0 / 256.0;
const LT_BW_RATIO: f64 = 1.0 / 8.0;
const LT_BW_DIFF_BYTES: f64 = 4000.0 / 8.0;
const LT_BW_MAX_RTTS: u32 = 48;
const EXTRA_ACKED_WIN_RTTS: u32 = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

pub struct Bbr {
    // parameters
    high_gain: f64,
    drain_gain: f64,
    cwnd_gain_bw: f64,
    gains: [f64; CYCLE_LEN],
    bw_win: u64,
    min_rtt_win: SimTime,
    probe_rtt_time: SimTime,
    cwnd_min: u32,
    full_thresh: f64,
    full_cnt: u32,
    lt_on: bool,
    aggr_on: bool,
    tso: bool,
    rng: Stream,
    // state
    pub mode: Mode,
    bw: MaxFilter,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    min_rtt: Option<SimTime>,
    min_rtt_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    packet_conservation: bool,
    prev_ca_state: CaState,
    prior_cwnd: u32,
    idle_restart: bool,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    full_bw: f64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    pub cycle_idx: usize,
    cycle_stamp: SimTime,
    pacing: Pacing,
    // long-term
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    lt_use_bw: bool,
    lt_bw: f64,
    lt_last_delivered: u64,
    lt_last_stamp: SimTime,
    lt_last_lost: u64,
    lost: u64,
    aggr: AckAggregation,
    /// Times PROBE_RTT was entered (for traces and tests).
    pub probe_rtt_count: u32,
}

impl Bbr {
    pub fn new(p: &Params, rng: Stream) -> Self {
        let up = p.num("probe_bw_up");
        Bbr {
            high_gain: p.num("high_gain"),
            drain_gain: p.num("drain_gain"),
            cwnd_gain_bw: p.num("cwnd_gain"),
            gains: [up, 2.0 - up, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            bw_win: p.num("bw_win_rounds") as u64,
            min_rtt_win: (p.num("min_rtt_win_s") * PS_PER_S as f64) as SimTime,
            probe_rtt_time: (p.num("probe_rtt_ms") * PS_PER_MS as f64) as SimTime,
            cwnd_min: p.num("cwnd_min_target") as u32,
            full_thresh: p.num("full_bw_thresh"),
            full_cnt: p.num("full_bw_cnt") as u32,
            lt_on: p.flag("long_term_bw"),
            aggr_on: p.flag("ack_aggregation"),
            tso: p.flag("tso"),
            rng,
            mode: Mode::Startup,
            bw: MaxFilter::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            packet_conservation: false,
            prev_ca_state: CaState::Open,
            prior_cwnd: 0,
            idle_restart: false,
            pacing_gain: 0.0,
            cwnd_gain: 0.0,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: 0,
            pacing: Pacing::default(),
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0.0,
            lt_last_delivered: 0,
            lt_last_stamp: 0,
            lt_last_lost: 0,
            lost: 0,
            aggr: AckAggregation::default(),
            probe_rtt_count: 0,
        }
    }

    pub fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// Bandwidth the model uses, segments per second.
    pub fn bw(&self) -> f64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    pub fn min_rtt(&self) -> Option<SimTime> {
        self.min_rtt
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    fn rate_bytes(&self, bw: f64, gain: f64, mss: u32) -> f64 {
        Pacing::bytes(bw, gain, mss)
    }

    fn init_pacing_rate_from_rtt(&mut self, tp: &CcState) {
        self.pacing.init_from_rtt(tp, self.high_gain);
    }

    fn set_pacing_rate(&mut self, tp: &CcState, bw: f64, gain: f64) {
        self.pacing.set(tp, bw, gain, self.high_gain, self.full_bw_reached);
    }

    /// bbr_min_tso_segs: one segment below 1.2 Mb/s, else two.
    fn min_segs(&self) -> u32 {
        if self.pacing.rate * 8.0 < MIN_TSO_RATE_BPS {
            1
        } else {
            2
        }
    }

    /// Segments per send quantum (bbr_tso_segs_goal).
    fn tso_segs_goal(&self, mss: u32) -> u32 {
        if !self.tso {
            return self.min_segs();
        }
        super::tso_autosize(self.pacing.rate, mss, self.min_segs()).min(0x7f)
    }

    fn bdp(&self, bw: f64, gain: f64) -> u32 {
        let Some(rtt) = self.min_rtt else { return INIT_CWND };
        let w = bw * rtt as f64 / PS_PER_S as f64;
        (w * gain).ceil().min(u32::MAX as f64 / 2.0) as u32
    }

    fn quantization_budget(&self, cwnd: u32, mss: u32) -> u32 {
        let mut c = cwnd + 3 * self.tso_segs_goal(mss);
        c = (c + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            c += 2;
        }
        c
    }

    fn inflight(&self, bw: f64, gain: f64, mss: u32) -> u32 {
        self.quantization_budget(self.bdp(bw, gain), mss)
    }

    fn in_net_at_edt(&self, inflight_now: u32, mss: u32) -> u32 {
        if self.pacing_gain > 1.0 {
            inflight_now + self.tso_segs_goal(mss)
        } else {
            inflight_now
        }
    }

    fn save_cwnd(&mut self, tp: &CcState) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = tp.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(tp.cwnd);
        }
    }

    fn ack_aggregation_cwnd(&self) -> u32 {
        if !self.aggr_on || !self.full_bw_reached {
            return 0;
        }
        self.aggr.cwnd(self.bw())
    }

    fn advance_cycle_phase(&mut self, tp: &CcState) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_stamp = tp.delivered_at;
    }

    fn reset_probe_bw_mode(&mut self, tp: &CcState) {
        self.mode = Mode::ProbeBw;
        let r = (self.rng.uniform() * (CYCLE_LEN - 1) as f64) as usize; // 0..=6
        self.cycle_idx = CYCLE_LEN - 1 - r;
        self.advance_cycle_phase(tp);
    }

    fn reset_mode(&mut self, tp: &CcState) {
        if !self.full_bw_reached {
            self.mode = Mode::Startup;
        } else {
            self.reset_probe_bw_mode(tp);
        }
    }

    fn is_next_cycle_phase(&self, tp: &CcState, rs: &RateSample) -> bool {
        let full_length = self.min_rtt.is_some_and(|m| tp.delivered_at - self.cycle_stamp > m);
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        let inflight = self.in_net_at_edt(rs.prior_in_flight, tp.mss);
        let bw = self.max_bw();
        if self.pacing_gain > 1.0 {
            return full_length && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain, tp.mss));
        }
        full_length || inflight <= self.inflight(bw, 1.0, tp.mss)
    }

    fn reset_lt_interval(&mut self, tp: &CcState) {
        self.lt_last_stamp = tp.delivered_at;
        self.lt_last_delivered = tp.delivered;
        self.lt_last_lost = self.lost;
        self.lt_rtt_cnt = 0;
    }

    fn reset_lt(&mut self, tp: &CcState) {
        self.lt_bw = 0.0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_interval(tp);
    }

    fn lt_interval_done(&mut self, tp: &CcState, bw: f64) {
        if self.lt_bw > 0.0 {
            let diff = (bw - self.lt_bw).abs();
            if diff <= LT_BW_RATIO * self.lt_bw || self.rate_bytes(diff, 1.0, tp.mss) <= LT_BW_DIFF_BYTES {
                self.lt_bw = (bw + self.lt_bw) / 2.0;
                self.lt_use_bw = true;
                self.pacing_gain = 1.0;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_interval(tp);
    }

    fn lt_sampling(&mut self, tp: &CcState, losses: u32, app_limited: bool) {
        if !self.lt_on {
            return;
        }
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt(tp);
                    self.reset_probe_bw_mode(tp);
                }
            }
            return;
        }
        if !self.lt_is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_interval(tp);
            self.lt_is_sampling = true;
        }
        if app_limited {
            self.reset_lt(tp);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt(tp);
            return;
        }
        if losses == 0 {
            return;
        }
        let lost = self.lost - self.lt_last_lost;
        let delivered = tp.delivered - self.lt_last_delivered;
        if delivered == 0 || (lost as f64) < LT_LOSS_THRESH * delivered as f64 {
            return;
        }
        let t = tp.delivered_at.saturating_sub(self.lt_last_stamp);
        if t < PS_PER_MS {
            return;
        }
        let bw = delivered as f64 * PS_PER_S as f64 / t as f64;
        self.lt_interval_done(tp, bw);
    }

    fn update_bw(&mut self, tp: &CcState, rs: &RateSample) {
        self.round_start = false;
        let (Some(d), true) = (rs.delivered, rs.interval > 0) else { return };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = tp.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_sampling(tp, rs.losses, rs.is_app_limited);
        let bw = d as f64 * PS_PER_S as f64 / rs.interval as f64;
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.running_max(self.bw_win, self.rtt_cnt, bw);
        }
    }

    fn update_ack_aggregation(&mut self, tp: &CcState, rs: &RateSample) {
        if !self.aggr_on || rs.acked_sacked == 0 || rs.delivered.is_none() || rs.interval == 0 {
            return;
        }
        self.aggr.update(self.round_start, EXTRA_ACKED_WIN_RTTS, self.bw(), tp.delivered_at, rs.acked_sacked, tp.cwnd);
    }

    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * self.full_thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= self.full_cnt;
    }

    fn check_drain(&mut self, tp: &mut CcState) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            tp.ssthresh = self.inflight(self.max_bw(), 1.0, tp.mss);
        }
        if self.mode == Mode::Drain && self.in_net_at_edt(tp.pipe, tp.mss) <= self.inflight(self.max_bw(), 1.0, tp.mss)
        {
            self.reset_probe_bw_mode(tp);
        }
    }

    fn check_probe_rtt_done(&mut self, tp: &mut CcState) {
        let Some(done) = self.probe_rtt_done else { return };
        if tp.now <= done {
            return;
        }
        self.min_rtt_stamp = tp.now;
        tp.cwnd = tp.cwnd.max(self.prior_cwnd);
        self.reset_mode(tp);
    }

    fn update_min_rtt(&mut self, tp: &mut CcState, rs: &RateSample) {
        let expired = tp.now > self.min_rtt_stamp + self.min_rtt_win;
        if let Some(r) = rs.rtt {
            if self.min_rtt.is_none_or(|m| r <= m) || expired {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = tp.now;
            }
        }
        if self.probe_rtt_time > 0 && expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.probe_rtt_count += 1;
            self.save_cwnd(tp);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Samples taken while the window is held down are app-limited.
            tp.mark_app_limited = true;
            if self.probe_rtt_done.is_none() && tp.pipe <= self.cwnd_min {
                self.probe_rtt_done = Some(tp.now + self.probe_rtt_time);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = tp.delivered;
            } else if self.probe_rtt_done.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(tp);
                }
            }
        }
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.high_gain, self.high_gain),
            Mode::Drain => (self.drain_gain, self.high_gain),
            Mode::ProbeBw => (if self.lt_use_bw { 1.0 } else { self.gains[self.cycle_idx] }, self.cwnd_gain_bw),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// bbr_set_cwnd_to_recover_or_restore: Some(cwnd) while conserving packets.
    fn recover_or_restore(&mut self, tp: &CcState, rs: &RateSample, acked: u32) -> (u32, bool) {
        let state = tp.ca_state;
        let mut cwnd = tp.cwnd;
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(1);
        }
        if state == CaState::Recovery && self.prev_ca_state != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = tp.delivered;
            cwnd = tp.pipe + acked;
        } else if self.prev_ca_state >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(tp.pipe + acked), true);
        }
        (cwnd, false)
    }

    fn set_cwnd(&mut self, tp: &mut CcState, rs: &RateSample, bw: f64, gain: f64) {
        let acked = rs.acked_sacked;
        let mut cwnd = tp.cwnd;
        if acked > 0 {
            let (c, conserving) = self.recover_or_restore(tp, rs, acked);
            cwnd = c;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                target += self.ack_aggregation_cwnd();
                target = self.quantization_budget(target, tp.mss);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || tp.delivered < INIT_CWND as u64 {
                    cwnd += acked;
                }
                cwnd = cwnd.max(self.cwnd_min);
            }
        }
        tp.cwnd = cwnd.min(tp.cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            tp.cwnd = tp.cwnd.min(self.cwnd_min);
        }
    }
}

impl CongestionOps for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn var_names(&self) -> &'static [&'static str] {
        &["bw_bps", "min_rtt_s", "pacing_gain", "cwnd_gain", "full_bw_reached", "lt_use_bw"]
    }

    fn vars(&self, tp: &CcState, out: &mut Vec<f64>) {
        let min_rtt = self.min_rtt.map_or(f64::NAN, |r| r as f64 / crate::units::PS_PER_S as f64);
        out.extend([
            self.bw() * tp.mss as f64 * 8.0,
            min_rtt,
            self.pacing_gain,
            self.cwnd_gain,
            if self.full_bw_reached { 1.0 } else { 0.0 },
            if self.lt_use_bw { 1.0 } else { 0.0 },
        ]);
    }

    fn mode(&self) -> Option<&'static str> {
        Some(match self.mode {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw => "probe_bw",
            Mode::ProbeRtt => "probe_rtt",
        })
    }

    fn init(&mut self, tp: &mut CcState) {
        tp.ssthresh = u32::MAX;
        self.min_rtt = tp.min_rtt;
        self.min_rtt_stamp = tp.now;
        self.bw.reset(0, 0.0);
        self.init_pacing_rate_from_rtt(tp);
        self.reset_lt(tp);
        self.mode = Mode::Startup;
        self.update_gains();
        self.aggr.restart_epoch(tp.now);
        tp.pacing_rate = Some(self.pacing.rate);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        self.save_cwnd(tp);
        tp.ssthresh
    }

    fn cong_avoid(&mut self, _tp: &mut CcState, _acked: u32) {
        unreachable!("BBR runs through cong_control")
    }

    fn undo_cwnd(&mut self, tp: &CcState) -> u32 {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.reset_lt(tp);
        tp.cwnd
    }

    /// bbr_cwnd_event: restarting from idle while application-limited.
    fn cwnd_event(&mut self, tp: &mut CcState, ev: CwndEvent) {
        if ev == CwndEvent::TxStart && tp.app_limited {
            self.idle_restart = true;
            self.aggr.restart_epoch(tp.now);
            // Pace at the estimated bandwidth: no need for more speed when
            // restarting from idle and app-limited.
            if self.mode == Mode::ProbeBw {
                self.set_pacing_rate(tp, self.bw(), 1.0);
                tp.pacing_rate = Some(self.pacing.rate);
            } else if self.mode == Mode::ProbeRtt {
                self.check_probe_rtt_done(tp);
            }
        }
    }

    fn set_state(&mut self, tp: &mut CcState, new: CaState) {
        if new == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0.0;
            self.round_start = true;
            self.lost += 1;
            self.lt_sampling(tp, 1, false);
        }
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    fn min_tso_segs(&self) -> Option<u32> {
        Some(self.min_segs())
    }

    fn cong_control(&mut self, tp: &mut CcState, rs: &RateSample) {
        self.lost += rs.losses as u64;
        self.update_bw(tp, rs);
        self.update_ack_aggregation(tp, rs);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(tp, rs) {
            self.advance_cycle_phase(tp);
        }
        self.check_full_bw_reached(rs);
        self.check_drain(tp);
        self.update_min_rtt(tp, rs);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(tp, bw, self.pacing_gain);
        self.set_cwnd(tp, rs, bw, self.cwnd_gain);
        tp.pacing_rate = Some(self.pacing.rate);
    }
}

#[cfg(test)]
mod tests;
