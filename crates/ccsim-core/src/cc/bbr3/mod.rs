//! BBRv3.
//!
//! Follows Google's BBRv3 `net/ipv4/tcp_bbr.c` (github.com/google/bbr, branch
//! v3, BBR_VERSION 3), function by function and under the kernel's names, and
//! draft-ietf-ccwg-bbr for the prose. BBR v1 stays as `bbr` (cc/bbr).
//!
//! The model keeps an upper and a lower bound on the operating range:
//!   bw_hi, inflight_hi  long-term: the max bandwidth of the last one or two
//!                       PROBE_BW cycles; the in-flight volume at which loss
//!                       (> 2 % of a flight) or ECN (> 50 % marked) began;
//!   bw_lo, inflight_lo  short-term: cut by β = 0.3 (or by α·1/3 under ECN)
//!                       once per round with loss/ECN while not probing.
//! Modes: STARTUP (pacing gain 2.77, cwnd gain 2; ends on a bandwidth plateau
//! of three rounds, on ≥ 6 loss events in a recovery round with the loss
//! rate over 2 %, or on two rounds with more than half marked), DRAIN
//! (pacing gain 0.34), PROBE_BW as the cycle DOWN (0.91) → CRUISE (1.0) →
//! REFILL (1.0, one round) → UP (1.25, cwnd gain 2.25), a bandwidth probe
//! 2–3 s after the last (or sooner, after as many rounds as a Reno flow's
//! BDP, at most 63), PROBE_RTT every 5 s at half the BDP for 200 ms and a
//! round. A segment marked lost while probing ends the probe at once when
//! the flight it was sent in had lost more than 2 % (`skb_marked_lost`).
//!
//! Deviations from the kernel:
//! - bandwidth in floating-point segments per second (Linux: segments/µs
//!   << 24) and gains as the kernel's fixed-point values in floating point
//!   (0.91 is 232/256, β 76/256, the loss threshold 5/256);
//! - no host queue, so the "in network at earliest departure time" estimate
//!   equals inflight, plus one send quantum while pacing above 1 (as v1 here);
//! - `is_ack_delayed` is never set: Linux flags only the ACK of a lone
//!   sub-MSS segment, and every segment here is full-sized;
//! - a TLP-repaired loss (CA_EVENT_TLP_RECOVERY) reads the flow's current
//!   app-limited state for the probe's original data
//!   (tp->tlp_orig_data_app_limited is not kept);
//! - no PLB (Protective Load Balancing: there is one path to rehash onto)
//!   and no fast-ACK mode (a receiver-side option; the receiver's ACK policy
//!   is the scenario's `tcp.delayed_ack`);
//! - ECN is used, as in the kernel, only where the route declares
//!   shallow-threshold marking (Linux's per-route `ecn_low`, here the
//!   `ecn_low` parameter) on a flow that negotiated ECN, and only while the
//!   minimum RTT is ≤ 5 ms; the precise per-CE-change ACKs the kernel's
//!   receiver then sends are `tcp.ecn_feedback = "dctcp"`;

use super::bbr::shared::{AckAggregation, Pacing};
use super::params::{flag, int, num, AlgoSpec, Params, Preset, RecoveryFlavour};
use super::{CaState, CcState, CongestionOps, CwndEvent, LostSkb, RateSample};
use crate::rng::Stream;
use crate::units::{SimTime, PS_PER_S, PS_PER_US};

pub const SPEC: AlgoSpec = AlgoSpec {
    name: "bbr3",
    source: "Google BBRv3 net/ipv4/tcp_bbr.c (github.com/google/bbr branch v3); draft-ietf-ccwg-bbr",
    params: &[
        num(
            "startup_pacing_gain",
            710.0 / 256.0,
            1.0,
            10.0,
            "STARTUP pacing gain (Linux 256·277/100 + 1 = 710/256 ≈ 4 ln 2)",
        ),
        num("startup_cwnd_gain", 2.0, 1.0, 10.0, "STARTUP and DRAIN cwnd gain"),
        num("drain_gain", 88.0 / 256.0, 0.01, 1.0, "DRAIN pacing gain (Linux 256·1000/2885 = 88/256)"),
        num("cwnd_gain", 2.0, 1.0, 10.0, "PROBE_BW cwnd gain"),
        num("probe_up_gain", 1.25, 1.0, 4.0, "PROBE_BW UP pacing gain"),
        num("probe_down_gain", 232.0 / 256.0, 0.1, 1.0, "PROBE_BW DOWN pacing gain (Linux 256·91/100 = 232/256)"),
        num("probe_up_cwnd_gain", 0.25, 0.0, 0.75, "added to the cwnd gain in PROBE_BW UP (bbr_bw_probe_cwnd_gain/4)"),
        num(
            "loss_thresh",
            5.0 / 256.0,
            0.0,
            0.5,
            "loss rate of a flight that means inflight is too high (Linux 5/256 ≈ 2 %)",
        ),
        num(
            "beta",
            76.0 / 256.0,
            0.0,
            1.0,
            "multiplicative cut of bw_lo and inflight_lo per lossy round (Linux 76/256 ≈ 0.3)",
        ),
        num(
            "inflight_headroom",
            38.0 / 256.0,
            0.0,
            0.9,
            "share of inflight_hi left unused when cruising (Linux 38/256 ≈ 15 %)",
        ),
        int("full_loss_cnt", 6.0, 0.0, 15.0, "loss events in a STARTUP recovery round that end STARTUP (0 disables)"),
        flag("ecn_low", false, "the path marks ECN at a shallow threshold (Linux's per-route ecn_low): use ECN"),
        num("ecn_thresh", 0.5, 0.0, 1.0, "CE share of a flight that means inflight is too high"),
        num("ecn_factor", 85.0 / 256.0, 0.0, 1.0, "ECN cut of inflight_lo is 1 − ecn_factor·α (Linux 85/256 ≈ 1/3)"),
        num("ecn_max_rtt_ms", 5.0, 0.0, 10_000.0, "ECN used only while min RTT ≤ this (0: at any RTT)"),
        int("full_ecn_cnt", 2.0, 0.0, 3.0, "rounds with CE share above ecn_thresh that end STARTUP (0 disables)"),
        int("bw_probe_max_rounds", 63.0, 1.0, 255.0, "most packet-timed rounds between bandwidth probes"),
        num("bw_probe_base_s", 2.0, 0.0, 3600.0, "wall-clock wait between bandwidth probes, fixed part"),
        num("bw_probe_rand_s", 1.0, 0.0, 3600.0, "wall-clock wait between bandwidth probes, uniform random part"),
        num("min_rtt_win_s", 10.0, 0.1, 3600.0, "min filter length for min_rtt"),
        num("probe_rtt_win_s", 5.0, 0.1, 3600.0, "PROBE_RTT period (window of probe_rtt_min), ≤ min_rtt_win_s"),
        num("probe_rtt_ms", 200.0, 0.0, 10_000.0, "PROBE_RTT duration (0 disables PROBE_RTT)"),
        num("probe_rtt_cwnd_gain", 0.5, 0.0, 1.0, "PROBE_RTT cwnd as a share of the BDP"),
        int("cwnd_min_target", 4.0, 1.0, 1000.0, "cwnd floor, segments"),
        num("full_bw_thresh", 1.25, 1.0, 4.0, "a bandwidth plateau is growth below this per round..."),
        int("full_bw_cnt", 3.0, 1.0, 3.0, "...for this many rounds"),
        flag("fast_path", true, "skip the model update on app-limited ACKs that change nothing (bbr_run_fast_path)"),
    ],
    presets: &[Preset { name: "linux", doc: "Google BBRv3 tcp_bbr.c defaults", values: &[] }],
    recovery: RecoveryFlavour::NewReno,
    ecn: None,
    ack_hooks: false,
    build: |p, rng| Box::new(Bbr3::new(p, rng)),
};

/// No sample yet (Linux ~0U in min_rtt_us and probe_rtt_min_us).
const NO_RTT: SimTime = SimTime::MAX;
/// "No bound" (Linux ~0U in inflight_hi / inflight_lo).
const NO_BOUND: u32 = u32::MAX;
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const ECN_ALPHA_GAIN: f64 = 1.0 / 16.0;
const ECN_REPROBE_GAIN: f64 = 0.5;
const BW_PROBE_RAND_ROUNDS: f64 = 2.0;
/// Linux's smallest bandwidth, 1 in units of 2^-24 segments/µs, in segments/s.
const BW_FLOOR: f64 = 1e6 / (1u64 << 24) as f64;
/// GSO_LEGACY_MAX_SIZE, and the send quantum's ceiling below it
/// (gso_max_size − 1 − MAX_TCP_HEADER, MAX_TCP_HEADER taken as 320).
const GSO_LEGACY_MAX: f64 = 65536.0;
const TSO_RTT_SHIFT: u32 = 9;
const MIN_TSO_SEGS: u32 = 2; // sysctl_tcp_min_tso_segs

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// enum bbr_pacing_gain_phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Up,
    Down,
    Cruise,
    Refill,
}

/// enum bbr_ack_phase: how the incoming ACKs relate to bandwidth probing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// The fields of a rate sample that `bbr_is_inflight_too_high` and
/// `bbr_handle_inflight_too_high` read (the kernel builds partial samples in
/// `skb_marked_lost` and the TLP path).
#[derive(Clone, Copy, Debug, Default)]
struct LossView {
    lost: u32,
    tx_in_flight: u32,
    delivered: u64,
    delivered_ce: u32,
    is_app_limited: bool,
}

impl From<&RateSample> for LossView {
    fn from(rs: &RateSample) -> Self {
        LossView {
            lost: rs.lost,
            tx_in_flight: rs.tx_in_flight,
            delivered: rs.delivered_count,
            delivered_ce: rs.delivered_ce,
            is_app_limited: rs.is_app_limited,
        }
    }
}

pub struct Bbr3 {
    // parameters
    startup_pacing_gain: f64,
    startup_cwnd_gain: f64,
    drain_gain: f64,
    cwnd_gain_bw: f64,
    gain_up: f64,
    gain_down: f64,
    probe_up_cwnd_gain: f64,
    loss_thresh: f64,
    beta: f64,
    headroom: f64,
    full_loss_cnt: u32,
    ecn_low: bool,
    ecn_thresh: f64,
    ecn_factor: f64,
    ecn_max_rtt: SimTime,
    full_ecn_cnt: u32,
    probe_max_rounds: u32,
    probe_base: SimTime,
    probe_rand: SimTime,
    min_rtt_win: SimTime,
    probe_rtt_win: SimTime,
    probe_rtt_time: SimTime,
    probe_rtt_cwnd_gain: f64,
    cwnd_min: u32,
    full_thresh: f64,
    full_cnt: u32,
    fast_path: bool,
    rng: Stream,
    mss: u32,
    // struct bbr
    min_rtt: SimTime,
    min_rtt_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_min: SimTime,
    probe_rtt_min_stamp: SimTime,
    next_rtt_delivered: u64,
    cycle_stamp: SimTime,
    pub mode: Mode,
    prev_ca_state: CaState,
    round_start: bool,
    bw_probe_up_rounds: u32,
    try_fast_path: bool,
    idle_restart: bool,
    probe_rtt_round_done: bool,
    init_cwnd: u32,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    full_bw_reached: bool,
    full_bw_cnt: u32,
    pub cycle_idx: Phase,
    prior_cwnd: u32,
    full_bw: f64,
    aggr: AckAggregation,
    full_bw_now: bool,
    startup_ecn_rounds: u32,
    loss_in_cycle: bool,
    ecn_in_cycle: bool,
    loss_round_delivered: u64,
    undo_bw_lo: f64,
    undo_inflight_lo: u32,
    undo_inflight_hi: u32,
    bw_latest: f64,
    bw_lo: f64,
    bw_hi: [f64; 2],
    inflight_latest: u32,
    pub inflight_lo: u32,
    pub inflight_hi: u32,
    bw_probe_up_cnt: u32,
    bw_probe_up_acks: u32,
    probe_wait: SimTime,
    ecn_eligible: bool,
    pub ecn_alpha: f64,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    rounds_since_probe: u32,
    loss_round_start: bool,
    loss_in_round: bool,
    ecn_in_round: bool,
    ack_phase: AckPhase,
    loss_events_in_round: u32,
    alpha_last_delivered: u64,
    alpha_last_delivered_ce: u64,
    pacing: Pacing,
    /// Times PROBE_RTT was entered and bandwidth probes (REFILL) begun, for
    /// traces and tests.
    pub probe_rtt_count: u32,
    pub bw_probe_count: u32,
}

fn ps(seconds: f64) -> SimTime {
    (seconds * PS_PER_S as f64) as SimTime
}

impl Bbr3 {
    pub fn new(p: &Params, rng: Stream) -> Self {
        Bbr3 {
            startup_pacing_gain: p.num("startup_pacing_gain"),
            startup_cwnd_gain: p.num("startup_cwnd_gain"),
            drain_gain: p.num("drain_gain"),
            cwnd_gain_bw: p.num("cwnd_gain"),
            gain_up: p.num("probe_up_gain"),
            gain_down: p.num("probe_down_gain"),
            probe_up_cwnd_gain: p.num("probe_up_cwnd_gain"),
            loss_thresh: p.num("loss_thresh"),
            beta: p.num("beta"),
            headroom: p.num("inflight_headroom"),
            full_loss_cnt: p.num("full_loss_cnt") as u32,
            ecn_low: p.flag("ecn_low"),
            ecn_thresh: p.num("ecn_thresh"),
            ecn_factor: p.num("ecn_factor"),
            ecn_max_rtt: ps(p.num("ecn_max_rtt_ms") / 1e3),
            full_ecn_cnt: p.num("full_ecn_cnt") as u32,
            probe_max_rounds: p.num("bw_probe_max_rounds") as u32,
            probe_base: ps(p.num("bw_probe_base_s")),
            probe_rand: ps(p.num("bw_probe_rand_s")),
            min_rtt_win: ps(p.num("min_rtt_win_s")),
            probe_rtt_win: ps(p.num("probe_rtt_win_s")),
            probe_rtt_time: ps(p.num("probe_rtt_ms") / 1e3),
            probe_rtt_cwnd_gain: p.num("probe_rtt_cwnd_gain"),
            cwnd_min: p.num("cwnd_min_target") as u32,
            full_thresh: p.num("full_bw_thresh"),
            full_cnt: p.num("full_bw_cnt") as u32,
            fast_path: p.flag("fast_path"),
            rng,
            mss: 1448,
            min_rtt: NO_RTT,
            min_rtt_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_min: NO_RTT,
            probe_rtt_min_stamp: 0,
            next_rtt_delivered: 0,
            cycle_stamp: 0,
            mode: Mode::Startup,
            prev_ca_state: CaState::Open,
            round_start: false,
            bw_probe_up_rounds: 0,
            try_fast_path: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            init_cwnd: 10,
            pacing_gain: 0.0,
            cwnd_gain: 0.0,
            full_bw_reached: false,
            full_bw_cnt: 0,
            cycle_idx: Phase::Up,
            prior_cwnd: 0,
            full_bw: 0.0,
            aggr: AckAggregation::default(),
            full_bw_now: false,
            startup_ecn_rounds: 0,
            loss_in_cycle: false,
            ecn_in_cycle: false,
            loss_round_delivered: 0,
            undo_bw_lo: 0.0,
            undo_inflight_lo: 0,
            undo_inflight_hi: 0,
            bw_latest: 0.0,
            bw_lo: f64::INFINITY,
            bw_hi: [0.0; 2],
            inflight_latest: 0,
            inflight_lo: NO_BOUND,
            inflight_hi: NO_BOUND,
            bw_probe_up_cnt: NO_BOUND,
            bw_probe_up_acks: 0,
            probe_wait: 0,
            ecn_eligible: false,
            ecn_alpha: 1.0,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            rounds_since_probe: 0,
            loss_round_start: false,
            loss_in_round: false,
            ecn_in_round: false,
            ack_phase: AckPhase::Init,
            loss_events_in_round: 0,
            alpha_last_delivered: 0,
            alpha_last_delivered_ce: 0,
            pacing: Pacing::default(),
            probe_rtt_count: 0,
            bw_probe_count: 0,
        }
    }
}

fn nan_if(x: f64, none: bool) -> f64 {
    if none {
        f64::NAN
    } else {
        x
    }
}

impl CongestionOps for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }

    fn var_names(&self) -> &'static [&'static str] {
        &[
            "bw_bps",
            "bw_hi_bps",
            "bw_lo_bps",
            "min_rtt_s",
            "pacing_gain",
            "cwnd_gain",
            "inflight_hi",
            "inflight_lo",
            "ecn_alpha",
        ]
    }

    fn vars(&self, _tp: &CcState, out: &mut Vec<f64>) {
        let bits = self.mss as f64 * 8.0;
        out.extend([
            self.bw() * bits,
            self.max_bw() * bits,
            nan_if(self.bw_lo * bits, self.bw_lo.is_infinite()),
            self.min_rtt().map_or(f64::NAN, |r| r as f64 / PS_PER_S as f64),
            self.pacing_gain,
            self.cwnd_gain,
            nan_if(self.inflight_hi as f64, self.inflight_hi == NO_BOUND),
            nan_if(self.inflight_lo as f64, self.inflight_lo == NO_BOUND),
            self.ecn_alpha,
        ]);
    }

    fn mode(&self) -> Option<&'static str> {
        Some(self.phase_name())
    }

    fn init(&mut self, tp: &mut CcState) {
        self.mss = tp.mss;
        self.init_cwnd = tp.cwnd.min(0x7f);
        self.prior_cwnd = tp.prior_cwnd;
        tp.ssthresh = u32::MAX;
        self.next_rtt_delivered = tp.delivered;
        self.prev_ca_state = CaState::Open;
        self.probe_rtt_done = None;
        self.probe_rtt_round_done = false;
        self.probe_rtt_min = tp.min_rtt.unwrap_or(NO_RTT);
        self.probe_rtt_min_stamp = tp.now;
        self.min_rtt = self.probe_rtt_min;
        self.min_rtt_stamp = tp.now;
        self.pacing = Pacing::default();
        self.init_pacing_rate_from_rtt(tp);
        self.mode = Mode::Startup;
        self.aggr.restart_epoch(tp.now);
        // Start sampling the ECN mark rate after the first full flight.
        self.loss_round_delivered = tp.delivered + 1;
        self.reset_congestion_signals();
        tp.pacing_rate = Some(self.pacing.rate);
    }

    /// bbr_ssthresh: save cwnd and the loss-adapted bounds for undo.
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        self.save_cwnd(tp);
        self.undo_bw_lo = self.bw_lo;
        self.undo_inflight_lo = self.inflight_lo;
        self.undo_inflight_hi = self.inflight_hi;
        tp.ssthresh
    }

    fn cong_avoid(&mut self, _tp: &mut CcState, _acked: u32) {
        unreachable!("BBRv3 runs through cong_control")
    }

    /// bbr_undo_cwnd: revert the short-term model after a spurious recovery.
    fn undo_cwnd(&mut self, _tp: &CcState) -> u32 {
        self.reset_full_bw();
        self.loss_in_round = false;
        self.bw_lo = self.bw_lo.max(self.undo_bw_lo);
        self.inflight_lo = self.inflight_lo.max(self.undo_inflight_lo);
        self.inflight_hi = self.inflight_hi.max(self.undo_inflight_hi);
        self.try_fast_path = false;
        self.prior_cwnd
    }

    fn cwnd_event(&mut self, tp: &mut CcState, ev: CwndEvent) {
        match ev {
            CwndEvent::TxStart if tp.app_limited => {
                self.idle_restart = true;
                self.aggr.restart_epoch(tp.now);
                if self.mode == Mode::ProbeBw {
                    self.set_pacing_rate(tp, self.bw(), 1.0);
                    tp.pacing_rate = Some(self.pacing.rate);
                } else if self.mode == Mode::ProbeRtt {
                    self.check_probe_rtt_done(tp);
                }
            }
            CwndEvent::TlpRecovery => self.run_loss_probe_recovery(tp),
            // CA_EVENT_ECN_IS_CE / NO_CE drive the kernel's receiver-side
            // precise ACKs, which are `tcp.ecn_feedback = "dctcp"` here.
            _ => {}
        }
    }

    fn set_state(&mut self, tp: &mut CcState, new: CaState) {
        if new == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.reset_full_bw();
            if !self.is_probing_bandwidth() && self.inflight_lo == NO_BOUND {
                // adapt_lower_bounds needs the cwnd from before the RTO.
                self.inflight_lo = tp.cwnd.max(self.prior_cwnd);
            }
        } else if self.prev_ca_state == CaState::Loss {
            self.exit_loss_recovery(tp);
        }
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    fn tso_segs(&self) -> Option<u32> {
        Some(self.tso_segs_goal())
    }

    /// bbr_skb_marked_lost: while probing, end the probe as soon as the
    /// flight a lost segment was sent in lost more than `loss_thresh`, with
    /// inflight_hi at the level where the threshold was crossed.
    fn skb_marked_lost(&mut self, tp: &CcState, skb: &LostSkb) {
        self.note_loss(tp);
        if !self.bw_probe_samples {
            return; // not sent while probing for bandwidth
        }
        let mut rs = LossView {
            lost: skb.lost,
            tx_in_flight: skb.tx_in_flight,
            is_app_limited: skb.is_app_limited,
            ..Default::default()
        };
        if self.is_inflight_too_high(&rs) {
            rs.tx_in_flight = self.inflight_hi_from_lost_skb(&rs);
            self.handle_inflight_too_high(tp, &rs);
        }
    }

    /// bbr_main.
    fn cong_control(&mut self, tp: &mut CcState, rs: &RateSample) {
        self.mss = tp.mss;
        self.update_round_start(tp, rs);
        if self.round_start {
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(0xff);
            self.update_ecn_alpha(tp);
        }
        self.ecn_in_round |= self.ecn_eligible && rs.is_ece;
        let sample_bw = Self::calculate_bw_sample(rs);
        self.update_latest_delivery_signals(tp, rs, sample_bw);
        let fast = self.run_fast_path(tp, rs, sample_bw);
        if fast != Some(true) {
            if fast.is_none() {
                self.update_model(tp, rs, sample_bw);
            }
            self.update_gains();
            let bw = self.bw();
            self.set_pacing_rate(tp, bw, self.pacing_gain);
            self.set_cwnd(tp, rs.acked_sacked, bw, self.cwnd_gain);
            self.bound_cwnd_for_inflight_model(tp);
        }
        self.advance_latest_delivery_signals(rs, sample_bw);
        self.prev_ca_state = tp.ca_state;
        self.loss_in_cycle |= rs.lost > 0;
        self.ecn_in_cycle |= rs.delivered_ce > 0;
        tp.pacing_rate = Some(self.pacing.rate);
    }
}

mod cycle;
mod model;

#[cfg(test)]
mod tests;
