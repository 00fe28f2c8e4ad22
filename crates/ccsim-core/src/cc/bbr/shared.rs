//! What BBR v1 and BBRv3 share line for line in their kernels
//! (net/ipv4/tcp_bbr.c, mainline and Google's v3): the ACK-aggregation
//! estimator and the pacing rate.

use crate::cc::CcState;
use crate::units::{SimTime, PS_PER_MS, PS_PER_S};

/// bbr_extra_acked_max_us: the aggregation allowance is at most 100 ms of bw.
const EXTRA_ACKED_MAX: SimTime = 100 * PS_PER_MS;
/// bbr_ack_epoch_acked_reset_thresh.
const ACK_EPOCH_RESET: u64 = 1 << 20;
/// bbr_pacing_margin_percent: pace 1 % below the bandwidth estimate.
const PACING_MARGIN: f64 = 0.01;

/// The windowed max of data acknowledged beyond what the bandwidth
/// estimate explains (bbr_update_ack_aggregation): the cwnd allowance for
/// ACK aggregation, over two windows of rounds.
#[derive(Clone, Debug, Default)]
pub struct AckAggregation {
    extra_acked: [u64; 2],
    win_rtts: u32,
    win_idx: usize,
    epoch_stamp: SimTime,
    epoch_acked: u64,
}

impl AckAggregation {
    /// Start a new sampling epoch now (bbr_init; restart from idle).
    pub fn restart_epoch(&mut self, now: SimTime) {
        self.epoch_stamp = now;
        self.epoch_acked = 0;
    }

    /// Max extra acked over the last one or two windows (bbr_extra_acked).
    pub fn max_extra(&self) -> u64 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// One ACK that (S)ACKed `acked_sacked` segments with a valid rate
    /// sample; the window advances every `win_rtts` rounds. `bw` is the
    /// model's bandwidth (segments/s), `delivered_at` when delivery last
    /// grew (tp->delivered_mstamp).
    pub fn update(
        &mut self,
        round_start: bool,
        win_rtts: u32,
        bw: f64,
        delivered_at: SimTime,
        acked_sacked: u32,
        cwnd: u32,
    ) {
        if round_start {
            self.win_rtts = (self.win_rtts + 1).min(0x1f);
            if self.win_rtts >= win_rtts {
                self.win_rtts = 0;
                self.win_idx ^= 1;
                self.extra_acked[self.win_idx] = 0;
            }
        }
        let epoch = delivered_at.saturating_sub(self.epoch_stamp);
        let mut expected = (bw * epoch as f64 / PS_PER_S as f64) as u64;
        if self.epoch_acked <= expected || self.epoch_acked + acked_sacked as u64 >= ACK_EPOCH_RESET {
            self.epoch_acked = 0;
            self.epoch_stamp = delivered_at;
            expected = 0;
        }
        self.epoch_acked = (self.epoch_acked + acked_sacked as u64).min(0xFFFFF);
        let extra = (self.epoch_acked - expected).min(cwnd as u64);
        let slot = &mut self.extra_acked[self.win_idx];
        if extra > *slot {
            *slot = extra;
        }
    }

    /// bbr_ack_aggregation_cwnd: the allowance, at most 100 ms at `bw`.
    pub fn cwnd(&self, bw: f64) -> u32 {
        let max_aggr = bw * EXTRA_ACKED_MAX as f64 / PS_PER_S as f64;
        (self.max_extra() as f64).min(max_aggr) as u32
    }
}

/// The pacing rate BBR sets (bbr_init_pacing_rate_from_rtt,
/// bbr_set_pacing_rate), bytes per second.
#[derive(Clone, Debug, Default)]
pub struct Pacing {
    pub rate: f64,
    has_seen_rtt: bool,
}

impl Pacing {
    /// bbr_rate_bytes_per_sec with the pacing margin: `bw` segments/s.
    pub fn bytes(bw: f64, gain: f64, mss: u32) -> f64 {
        bw * mss as f64 * gain * (1.0 - PACING_MARGIN)
    }

    /// `startup_gain` · cwnd / srtt, or per 1 ms before any RTT sample.
    pub fn init_from_rtt(&mut self, tp: &CcState, startup_gain: f64) {
        let rtt = match tp.srtt {
            Some(s) if s > 0 => {
                self.has_seen_rtt = true;
                s as f64 / PS_PER_S as f64
            }
            _ => 1e-3,
        };
        self.rate = Self::bytes(tp.cwnd as f64 / rtt, startup_gain, tp.mss);
    }

    /// Pace at `gain` · `bw`; before the pipe is full, only ever faster.
    pub fn set(&mut self, tp: &CcState, bw: f64, gain: f64, startup_gain: f64, full_bw_reached: bool) {
        let rate = Self::bytes(bw, gain, tp.mss);
        if !self.has_seen_rtt && tp.srtt.is_some() {
            self.init_from_rtt(tp, startup_gain);
        }
        if full_bw_reached || rate > self.rate {
            self.rate = rate;
        }
    }
}
