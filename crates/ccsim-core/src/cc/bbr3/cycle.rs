//! BBRv3's congestion signals and bandwidth-probing cycle: STARTUP exits,
//! the ECN α, inflight_hi/inflight_lo and bw_lo, the PROBE_BW state
//! machine, bbr_update_model and the fast path (Google's v3 tcp_bbr.c, from
//! bbr_handle_queue_too_high_in_startup to bbr_run_loss_probe_recovery).

use super::*;

impl Bbr3 {
    pub(super) fn handle_queue_too_high_in_startup(&mut self) {
        self.full_bw_reached = true;
        let bdp = self.inflight(self.max_bw(), 1.0);
        self.inflight_hi = bdp.max(self.inflight_latest);
    }

    pub(super) fn check_ecn_too_high_in_startup(&mut self, ce_ratio: f64) {
        if self.full_bw_reached || !self.ecn_eligible || self.full_ecn_cnt == 0 || self.ecn_thresh == 0.0 {
            return;
        }
        if ce_ratio >= self.ecn_thresh {
            self.startup_ecn_rounds += 1;
        } else {
            self.startup_ecn_rounds = 0;
        }
        if self.startup_ecn_rounds >= self.full_ecn_cnt {
            self.handle_queue_too_high_in_startup();
        }
    }

    /// bbr_update_ecn_alpha: once per round; the round's CE share (None
    /// when ECN is not in use or nothing was delivered).
    pub(super) fn update_ecn_alpha(&mut self, tp: &CcState) -> Option<f64> {
        if !self.ecn_eligible
            && self.can_use_ecn(tp)
            && self.ecn_factor > 0.0
            && (self.min_rtt <= self.ecn_max_rtt || self.ecn_max_rtt == 0)
        {
            self.ecn_eligible = true;
        }
        if !self.ecn_eligible {
            return None; // PLB is not modelled, so nothing else wants alpha
        }
        let delivered = tp.delivered - self.alpha_last_delivered;
        let delivered_ce = tp.delivered_ce - self.alpha_last_delivered_ce;
        if delivered == 0 {
            return None;
        }
        let ce_ratio = delivered_ce as f64 / delivered as f64;
        self.ecn_alpha = ((1.0 - ECN_ALPHA_GAIN) * self.ecn_alpha + ECN_ALPHA_GAIN * ce_ratio).min(1.0);
        self.alpha_last_delivered = tp.delivered;
        self.alpha_last_delivered_ce = tp.delivered_ce;
        self.check_ecn_too_high_in_startup(ce_ratio);
        Some(ce_ratio)
    }

    pub(super) fn raise_inflight_hi_slope(&mut self, tp: &CcState) {
        let growth_this_round = 1u32 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (tp.cwnd / growth_this_round).max(1);
    }

    pub(super) fn probe_inflight_hi_upward(&mut self, tp: &CcState, rs: &RateSample) {
        if !tp.is_cwnd_limited || tp.cwnd < self.inflight_hi {
            return; // not fully using inflight_hi, so do not grow it
        }
        self.bw_probe_up_acks += rs.acked_sacked;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.bw_probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi = self.inflight_hi.saturating_add(delta);
            self.try_fast_path = false;
        }
        if self.round_start {
            self.raise_inflight_hi_slope(tp);
        }
    }

    /// bbr_is_inflight_too_high: the flight lost more than `loss_thresh`
    /// of itself, or more than `ecn_thresh` of what it delivered was marked.
    pub(super) fn is_inflight_too_high(&self, rs: &LossView) -> bool {
        if rs.lost > 0 && rs.tx_in_flight > 0 {
            let loss_thresh = (rs.tx_in_flight as f64 * self.loss_thresh).floor();
            if rs.lost as f64 > loss_thresh {
                return true;
            }
        }
        if rs.delivered_ce > 0 && rs.delivered > 0 && self.ecn_eligible && self.ecn_thresh > 0.0 {
            let ecn_thresh = (rs.delivered as f64 * self.ecn_thresh).floor();
            if rs.delivered_ce as f64 > ecn_thresh {
                return true;
            }
        }
        false
    }

    /// bbr_inflight_hi_from_lost_skb: the in-flight level at which the loss
    /// rate crossed `loss_thresh`, solving
    /// (lost_prev + x) / (inflight_prev + x) = loss_thresh for the prefix x
    /// of the lost segment (one segment here) and rounding up.
    pub(super) fn inflight_hi_from_lost_skb(&self, rs: &LossView) -> u32 {
        let (Some(inflight_prev), Some(lost_prev)) = (rs.tx_in_flight.checked_sub(1), rs.lost.checked_sub(1)) else {
            return NO_BOUND;
        };
        let loss_budget = (inflight_prev as f64 * self.loss_thresh).ceil();
        let lost_prefix = if lost_prev as f64 >= loss_budget {
            0.0
        } else {
            ((loss_budget - lost_prev as f64) / (1.0 - self.loss_thresh)).floor()
        };
        inflight_prev.saturating_add(lost_prefix as u32)
    }

    pub(super) fn inflight_with_headroom(&self) -> u32 {
        if self.inflight_hi == NO_BOUND {
            return NO_BOUND;
        }
        let headroom = ((self.inflight_hi as f64 * self.headroom) as u32).max(1);
        self.inflight_hi.saturating_sub(headroom).max(self.cwnd_min)
    }

    pub(super) fn bound_cwnd_for_inflight_model(&self, tp: &mut CcState) {
        let mut cap = NO_BOUND;
        if self.mode == Mode::ProbeBw && self.cycle_idx != Phase::Cruise {
            cap = self.inflight_hi; // probe to see if more fits
        } else if self.mode == Mode::ProbeRtt || (self.mode == Mode::ProbeBw && self.cycle_idx == Phase::Cruise) {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_lo).max(self.cwnd_min);
        tp.cwnd = tp.cwnd.min(cap);
    }

    pub(super) fn ecn_cut(&self) -> f64 {
        1.0 - self.ecn_alpha * self.ecn_factor
    }

    pub(super) fn init_lower_bounds(&mut self, tp: &CcState, init_bw: bool) {
        if init_bw && self.bw_lo == f64::INFINITY {
            self.bw_lo = self.max_bw();
        }
        if self.inflight_lo == NO_BOUND {
            self.inflight_lo = tp.cwnd;
        }
    }

    pub(super) fn loss_lower_bounds(&mut self) {
        let cut = 1.0 - self.beta;
        self.bw_lo = self.bw_latest.max(self.bw_lo * cut);
        self.inflight_lo = self.inflight_latest.max((self.inflight_lo as f64 * cut) as u32);
    }

    pub(super) fn adapt_lower_bounds(&mut self, tp: &CcState) {
        if self.is_probing_bandwidth() {
            return; // lower bounds are for when not probing
        }
        let mut ecn_inflight_lo = NO_BOUND;
        if self.ecn_in_round && self.ecn_factor > 0.0 {
            self.init_lower_bounds(tp, false);
            ecn_inflight_lo = (self.inflight_lo as f64 * self.ecn_cut()) as u32;
        }
        if self.loss_in_round {
            self.init_lower_bounds(tp, true);
            self.loss_lower_bounds();
        }
        self.inflight_lo = self.inflight_lo.min(ecn_inflight_lo);
        self.bw_lo = self.bw_lo.max(BW_FLOOR);
    }

    pub(super) fn reset_lower_bounds(&mut self) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = NO_BOUND;
    }

    pub(super) fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
    }

    pub(super) fn exit_loss_recovery(&mut self, tp: &mut CcState) {
        tp.cwnd = tp.cwnd.max(self.prior_cwnd);
        self.try_fast_path = false;
    }

    pub(super) fn update_latest_delivery_signals(&mut self, tp: &CcState, rs: &RateSample, sample_bw: f64) {
        self.loss_round_start = false;
        let Some(d) = rs.delivered else { return };
        if rs.acked_sacked == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(sample_bw);
        self.inflight_latest = self.inflight_latest.max(d.min(u32::MAX as u64) as u32);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = tp.delivered;
            self.loss_round_start = true;
        }
    }

    pub(super) fn advance_latest_delivery_signals(&mut self, rs: &RateSample, sample_bw: f64) {
        if self.loss_round_start && !rs.is_acking_tlp_retrans_seq {
            self.bw_latest = sample_bw;
            self.inflight_latest = rs.delivered.unwrap_or(0).min(u32::MAX as u64) as u32;
        }
    }

    pub(super) fn update_congestion_signals(&mut self, tp: &CcState, rs: &RateSample, sample_bw: f64) {
        if rs.delivered.is_none() || rs.acked_sacked == 0 {
            return;
        }
        if !rs.is_app_limited || sample_bw >= self.max_bw() {
            self.take_max_bw_sample(sample_bw);
        }
        self.loss_in_round |= rs.losses > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds(tp);
        self.loss_in_round = false;
        self.ecn_in_round = false;
    }

    pub(super) fn is_reno_coexistence_probe_time(&self, tp: &CcState) -> bool {
        let rounds = self.probe_max_rounds.min(self.target_inflight(tp));
        self.rounds_since_probe >= rounds
    }

    pub(super) fn pick_probe_wait(&mut self) {
        self.rounds_since_probe = (self.rng.uniform() * BW_PROBE_RAND_ROUNDS) as u32;
        let rand_us = (self.rng.uniform() * (self.probe_rand / PS_PER_US) as f64) as SimTime;
        self.probe_wait = self.probe_base + rand_us * PS_PER_US;
    }

    pub(super) fn set_cycle_idx(&mut self, phase: Phase) {
        self.cycle_idx = phase;
        self.try_fast_path = false;
    }

    pub(super) fn start_bw_probe_refill(&mut self, tp: &CcState, bw_probe_up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = bw_probe_up_rounds;
        self.bw_probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = tp.delivered;
        self.bw_probe_count += 1;
        self.set_cycle_idx(Phase::Refill);
    }

    pub(super) fn start_bw_probe_up(&mut self, tp: &CcState, sample_bw: f64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = tp.delivered;
        self.cycle_stamp = tp.now;
        self.reset_full_bw();
        self.full_bw = sample_bw;
        self.set_cycle_idx(Phase::Up);
        self.raise_inflight_hi_slope(tp);
    }

    pub(super) fn start_bw_probe_down(&mut self, tp: &CcState) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = NO_BOUND;
        self.pick_probe_wait();
        self.cycle_stamp = tp.now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = tp.delivered;
        self.set_cycle_idx(Phase::Down);
    }

    pub(super) fn start_bw_probe_cruise(&mut self) {
        if self.inflight_lo != NO_BOUND {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.set_cycle_idx(Phase::Cruise);
    }

    pub(super) fn handle_inflight_too_high(&mut self, tp: &CcState, rs: &LossView) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false; // react once per probe
        if !rs.is_app_limited {
            let floor = (self.target_inflight(tp) as f64 * (1.0 - self.beta)) as u32;
            self.inflight_hi = rs.tx_in_flight.max(floor);
        }
        if self.mode == Mode::ProbeBw && self.cycle_idx == Phase::Up {
            self.start_bw_probe_down(tp);
        }
    }

    /// bbr_adapt_upper_bounds: true when it decided a state transition.
    pub(super) fn adapt_upper_bounds(&mut self, tp: &CcState, rs: &RateSample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !rs.is_app_limited {
                self.advance_max_bw_filter();
            }
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_bw_probe_refill(tp, 0);
                return true;
            }
        }
        let view = LossView::from(rs);
        if self.is_inflight_too_high(&view) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(tp, &view);
            }
        } else {
            if self.inflight_hi == NO_BOUND {
                return false; // no excess-queue signal yet
            }
            if rs.tx_in_flight > self.inflight_hi {
                self.inflight_hi = rs.tx_in_flight;
            }
            if self.mode == Mode::ProbeBw && self.cycle_idx == Phase::Up {
                self.probe_inflight_hi_upward(tp, rs);
            }
        }
        false
    }

    pub(super) fn check_time_to_probe_bw(&mut self, tp: &CcState) -> bool {
        if self.ecn_eligible && self.ecn_in_cycle && !self.loss_in_cycle && tp.ca_state == CaState::Open {
            let v = ((self.inflight_hi as f64 * ECN_REPROBE_GAIN) as u32).max(1);
            self.start_bw_probe_refill(tp, v.ilog2());
            return true;
        }
        if self.has_elapsed_in_phase(tp, self.probe_wait) || self.is_reno_coexistence_probe_time(tp) {
            self.start_bw_probe_refill(tp, 0);
            return true;
        }
        false
    }

    pub(super) fn check_time_to_cruise(&self, inflight: u32, bw: f64) -> bool {
        if inflight > self.inflight_with_headroom() {
            return false;
        }
        inflight <= self.inflight(bw, 1.0)
    }

    pub(super) fn update_cycle_phase(&mut self, tp: &CcState, rs: &RateSample, sample_bw: f64) {
        if !self.full_bw_reached {
            return;
        }
        if self.adapt_upper_bounds(tp, rs) {
            return;
        }
        if self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = self.packets_in_net_at_edt(rs.prior_in_flight);
        let bw = self.max_bw();
        match self.cycle_idx {
            Phase::Cruise => {
                self.check_time_to_probe_bw(tp);
            }
            Phase::Refill => {
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_bw_probe_up(tp, sample_bw);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if tp.is_cwnd_limited && tp.cwnd >= self.inflight_hi {
                    self.reset_full_bw(); // inflight_hi is limiting growth
                    self.full_bw = sample_bw;
                } else if self.full_bw_now {
                    done = true; // bandwidth plateau: the pipe looks full
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_bw_probe_down(tp);
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(tp) {
                    return;
                }
                if self.check_time_to_cruise(inflight, bw) {
                    self.start_bw_probe_cruise();
                }
            }
        }
    }

    pub(super) fn exit_probe_rtt(&mut self, tp: &CcState) {
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(tp);
            self.start_bw_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }

    pub(super) fn check_loss_too_high_in_startup(&mut self, tp: &CcState, rs: &RateSample) {
        if self.full_bw_reached {
            return;
        }
        if rs.losses > 0 && self.loss_events_in_round < 0xf {
            self.loss_events_in_round += 1;
        }
        if self.full_loss_cnt > 0
            && self.loss_round_start
            && tp.ca_state == CaState::Recovery
            && self.loss_events_in_round >= self.full_loss_cnt
            && self.is_inflight_too_high(&LossView::from(rs))
        {
            self.handle_queue_too_high_in_startup();
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    pub(super) fn check_full_bw_reached(&mut self, rs: &RateSample, sample_bw: f64) {
        if self.full_bw_now || rs.is_app_limited {
            return;
        }
        if sample_bw >= self.full_bw * self.full_thresh {
            self.reset_full_bw();
            self.full_bw = sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_now = self.full_bw_cnt >= self.full_cnt;
        self.full_bw_reached |= self.full_bw_now;
    }

    pub(super) fn check_drain(&mut self, tp: &mut CcState) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            // ssthresh is only exported, to show STARTUP has ended.
            tp.ssthresh = self.inflight(self.max_bw(), 1.0);
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain && self.packets_in_net_at_edt(tp.pipe) <= self.inflight(self.max_bw(), 1.0) {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(tp);
        }
    }

    pub(super) fn update_model(&mut self, tp: &mut CcState, rs: &RateSample, sample_bw: f64) {
        self.update_congestion_signals(tp, rs, sample_bw);
        self.update_ack_aggregation(tp, rs);
        self.check_loss_too_high_in_startup(tp, rs);
        self.check_full_bw_reached(rs, sample_bw);
        self.check_drain(tp);
        self.update_cycle_phase(tp, rs, sample_bw);
        self.update_min_rtt(tp, rs);
    }

    /// bbr_run_fast_path: on an app-limited ACK with nothing new, skip the
    /// model update (Some(true): skip the control too).
    pub(super) fn run_fast_path(&mut self, tp: &mut CcState, rs: &RateSample, sample_bw: f64) -> Option<bool> {
        if !(self.fast_path
            && self.try_fast_path
            && rs.is_app_limited
            && sample_bw < self.max_bw()
            && !self.loss_in_round
            && !self.ecn_in_round)
        {
            return None;
        }
        let (prev_mode, prev_min_rtt) = (self.mode, self.min_rtt);
        self.check_drain(tp);
        self.update_cycle_phase(tp, rs, sample_bw);
        self.update_min_rtt(tp, rs);
        Some(self.mode == prev_mode && self.min_rtt == prev_min_rtt && self.try_fast_path)
    }

    /// bbr_note_loss: the current round is a loss round.
    pub(super) fn note_loss(&mut self, tp: &CcState) {
        if !self.loss_in_round {
            self.loss_round_delivered = tp.delivered;
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
    }

    pub(super) fn run_loss_probe_recovery(&mut self, tp: &CcState) {
        self.note_loss(tp);
        if !self.bw_probe_samples {
            return;
        }
        let rs = LossView {
            lost: 1,
            tx_in_flight: self.inflight_latest + 1,
            is_app_limited: tp.app_limited,
            ..Default::default()
        };
        if self.is_inflight_too_high(&rs) {
            self.handle_inflight_too_high(tp, &rs);
        }
    }

    /// Linux's bbr_get_phase names.
    pub(super) fn phase_name(&self) -> &'static str {
        match (self.mode, self.cycle_idx) {
            (Mode::Startup, _) => "startup",
            (Mode::Drain, _) => "drain",
            (Mode::ProbeRtt, _) => "probe_rtt",
            (Mode::ProbeBw, Phase::Up) => "probe_bw_up",
            (Mode::ProbeBw, Phase::Down) => "probe_bw_down",
            (Mode::ProbeBw, Phase::Cruise) => "probe_bw_cruise",
            (Mode::ProbeBw, Phase::Refill) => "probe_bw_refill",
        }
    }
}
