//! BBRv3's model of the path: bandwidth and min RTT filters, BDP and the
//! quantization budget, pacing rate and cwnd, PROBE_RTT (Google's v3
//! tcp_bbr.c, from bbr_max_bw to bbr_has_elapsed_in_phase).

use super::*;

impl Bbr3 {
    /// bbr_can_use_ecn: ECN negotiated on a shallow-threshold route.
    pub(super) fn can_use_ecn(&self, tp: &CcState) -> bool {
        tp.ecn_ok && self.ecn_low
    }

    /// bbr_max_bw: the max of the last one or two cycles, segments/s.
    pub fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// bbr_bw: the bandwidth the model uses (max, bounded by bw_lo).
    pub fn bw(&self) -> f64 {
        self.max_bw().min(self.bw_lo)
    }

    pub fn min_rtt(&self) -> Option<SimTime> {
        (self.min_rtt != NO_RTT).then_some(self.min_rtt)
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    pub(super) fn init_pacing_rate_from_rtt(&mut self, tp: &CcState) {
        self.pacing.init_from_rtt(tp, self.startup_pacing_gain);
    }

    pub(super) fn set_pacing_rate(&mut self, tp: &CcState, bw: f64, gain: f64) {
        self.pacing.set(tp, bw, gain, self.startup_pacing_gain, self.full_bw_reached);
    }

    /// bbr_tso_segs_generic: what the pacing rate sends in 2^-10 s plus an
    /// allowance of 64 KB halved per 512 µs of min RTT, under the GSO limit,
    /// at least 2 segments.
    pub(super) fn tso_segs_goal(&self) -> u32 {
        let mut bytes = self.pacing.rate / 1024.0;
        if self.min_rtt != NO_RTT {
            let r = (self.min_rtt / PS_PER_US) >> TSO_RTT_SHIFT;
            if r < 32 {
                bytes += GSO_LEGACY_MAX / (1u64 << r) as f64;
            }
        }
        let bytes = bytes.min(GSO_LEGACY_MAX - 1.0 - 320.0);
        ((bytes / self.mss as f64) as u32).max(MIN_TSO_SEGS)
    }

    /// bbr_bdp: ceil(bw · min_rtt · gain); the initial cwnd before any RTT.
    pub(super) fn bdp(&self, bw: f64, gain: f64) -> u32 {
        if self.min_rtt == NO_RTT {
            return self.init_cwnd;
        }
        let w = bw * self.min_rtt as f64 / PS_PER_S as f64;
        (w * gain).ceil().min(u32::MAX as f64 / 2.0) as u32
    }

    pub(super) fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut c = cwnd.max(3 * self.tso_segs_goal()).max(self.cwnd_min);
        if self.mode == Mode::ProbeBw && self.cycle_idx == Phase::Up {
            c += 2;
        }
        c
    }

    pub(super) fn inflight(&self, bw: f64, gain: f64) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    pub(super) fn packets_in_net_at_edt(&self, inflight_now: u32) -> u32 {
        if self.pacing_gain > 1.0 {
            inflight_now + self.tso_segs_goal()
        } else {
            inflight_now
        }
    }

    pub(super) fn ack_aggregation_cwnd(&self) -> u32 {
        self.aggr.cwnd(self.bw())
    }

    pub(super) fn probe_rtt_cwnd(&self) -> u32 {
        self.cwnd_min.max(self.bdp(self.bw(), self.probe_rtt_cwnd_gain))
    }

    pub(super) fn save_cwnd(&mut self, tp: &CcState) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = tp.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(tp.cwnd);
        }
    }

    pub(super) fn set_cwnd(&mut self, tp: &mut CcState, acked: u32, bw: f64, gain: f64) {
        let mut cwnd = tp.cwnd;
        if acked > 0 {
            let mut target = self.bdp(bw, gain);
            target += self.ack_aggregation_cwnd();
            target = self.quantization_budget(target);
            self.try_fast_path = false;
            if self.full_bw_reached {
                cwnd += acked;
                if cwnd >= target {
                    cwnd = target;
                    self.try_fast_path = true;
                }
            } else if cwnd < target || cwnd < 2 * self.init_cwnd {
                cwnd += acked;
            } else {
                self.try_fast_path = true;
            }
            cwnd = cwnd.max(self.cwnd_min);
        }
        tp.cwnd = cwnd.min(tp.cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            tp.cwnd = tp.cwnd.min(self.probe_rtt_cwnd());
        }
    }

    pub(super) fn update_round_start(&mut self, tp: &CcState, rs: &RateSample) {
        self.round_start = false;
        if rs.delivered.is_some() && rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = tp.delivered;
            self.round_start = true;
        }
    }

    pub(super) fn calculate_bw_sample(rs: &RateSample) -> f64 {
        match rs.delivered {
            Some(d) if rs.interval > 0 => d as f64 * PS_PER_S as f64 / rs.interval as f64,
            _ => 0.0,
        }
    }

    /// bbr_update_ack_aggregation: a window of 1 round in STARTUP, else 5.
    pub(super) fn update_ack_aggregation(&mut self, tp: &CcState, rs: &RateSample) {
        if rs.acked_sacked == 0 || rs.delivered.is_none() {
            return;
        }
        let win = if self.full_bw_reached { EXTRA_ACKED_WIN_RTTS } else { 1 };
        self.aggr.update(self.round_start, win, self.bw(), tp.delivered_at, rs.acked_sacked, tp.cwnd);
    }

    pub(super) fn check_probe_rtt_done(&mut self, tp: &mut CcState) {
        let Some(done) = self.probe_rtt_done else { return };
        if tp.now <= done {
            return;
        }
        self.probe_rtt_min_stamp = tp.now; // schedule the next PROBE_RTT
        tp.cwnd = tp.cwnd.max(self.prior_cwnd);
        self.exit_probe_rtt(tp);
    }

    pub(super) fn update_min_rtt(&mut self, tp: &mut CcState, rs: &RateSample) {
        let probe_rtt_expired = tp.now > self.probe_rtt_min_stamp.saturating_add(self.probe_rtt_win);
        if let Some(r) = rs.rtt {
            // is_ack_delayed is never set here (see the header).
            if r < self.probe_rtt_min || probe_rtt_expired {
                self.probe_rtt_min = r;
                self.probe_rtt_min_stamp = tp.now;
            }
        }
        let min_rtt_expired = tp.now > self.min_rtt_stamp.saturating_add(self.min_rtt_win);
        if self.probe_rtt_min <= self.min_rtt || min_rtt_expired {
            self.min_rtt = self.probe_rtt_min;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
        if self.probe_rtt_time > 0 && probe_rtt_expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.probe_rtt_count += 1;
            self.save_cwnd(tp);
            self.probe_rtt_done = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_rtt_delivered = tp.delivered;
        }
        if self.mode == Mode::ProbeRtt {
            tp.mark_app_limited = true; // ignore low-rate samples
            if self.probe_rtt_done.is_none() && tp.pipe <= self.probe_rtt_cwnd() {
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
        if rs.delivered_count > 0 {
            self.idle_restart = false;
        }
    }

    pub(super) fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.startup_pacing_gain, self.startup_cwnd_gain),
            Mode::Drain => (self.drain_gain, self.startup_cwnd_gain),
            Mode::ProbeBw => {
                let pacing = match self.cycle_idx {
                    Phase::Up => self.gain_up,
                    Phase::Down => self.gain_down,
                    Phase::Cruise | Phase::Refill => 1.0,
                };
                let extra = if self.cycle_idx == Phase::Up { self.probe_up_cwnd_gain } else { 0.0 };
                (pacing, self.cwnd_gain_bw + extra)
            }
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    pub(super) fn take_max_bw_sample(&mut self, bw: f64) {
        self.bw_hi[1] = self.bw_hi[1].max(bw);
    }

    pub(super) fn advance_max_bw_filter(&mut self) {
        if self.bw_hi[1] == 0.0 {
            return; // no samples in this window; remember the old one
        }
        self.bw_hi[0] = self.bw_hi[1];
        self.bw_hi[1] = 0.0;
    }

    pub(super) fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
    }

    pub(super) fn target_inflight(&self, tp: &CcState) -> u32 {
        self.inflight(self.bw(), 1.0).min(tp.cwnd)
    }

    pub(super) fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup
            || (self.mode == Mode::ProbeBw && matches!(self.cycle_idx, Phase::Refill | Phase::Up))
    }

    pub(super) fn has_elapsed_in_phase(&self, tp: &CcState, interval: SimTime) -> bool {
        tp.now > self.cycle_stamp.saturating_add(interval)
    }
}
