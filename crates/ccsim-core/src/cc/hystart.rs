//! Slow-start exit rules beside the algorithms that use them (as quiche
//! keeps `hystart.rs` beside its algorithms): Linux's HyStart (Ha & Rhee
//! 2011, net/ipv4/tcp_cubic.c `hystart_update`) and HyStart++ (RFC 9406).
//! CUBIC uses them today; any algorithm may hold one.
//!
//! `HyStart` — from cwnd ≥ `low_window`: ACK-train exit when ACKs at most
//! `ack_delta` apart span more than delay_min + ack_delay (half that when not
//! paced; ack_delay = min(1 ms, 4·64 KB / pacing rate) with Linux's internal
//! pacing rate), delay exit when a round's minimum over ≥ 8 samples exceeds
//! delay_min + clamp(delay_min/8, 4 ms, 16 ms). Exit sets ssthresh = cwnd.
//!
//! `HyStartPP` — RFC 9406: after 8 samples in a round, if the round's
//! minimum RTT ≥ last round's + clamp(last/8, 4 ms, 16 ms), enter
//! Conservative Slow Start (growth ÷ 4, CSS_GROWTH_DIVISOR); back to slow
//! start if a round's minimum drops below the CSS baseline; after 5 CSS
//! rounds (CSS_ROUNDS) ssthresh = cwnd. Only the first slow start uses it.

use super::CcState;
use crate::units::{SimTime, PS_PER_MS, PS_PER_S, PS_PER_US};

/// Linux HYSTART_MIN_SAMPLES; RFC 9406 N_RTT_SAMPLE.
const MIN_SAMPLES: u32 = 8;
/// Linux HYSTART_DELAY_MIN / _MAX; RFC 9406 MIN_RTT_THRESH / MAX_RTT_THRESH.
const DELAY_MIN_THRESH: SimTime = 4 * PS_PER_MS;
const DELAY_MAX_THRESH: SimTime = 16 * PS_PER_MS;
/// RFC 9406 CSS_GROWTH_DIVISOR and CSS_ROUNDS.
const CSS_GROWTH_DIVISOR: u32 = 4;
const CSS_ROUNDS: u32 = 5;

/// Linux HyStart state (`struct bictcp`'s hystart fields).
#[derive(Clone, Debug)]
pub struct HyStart {
    detect_train: bool,
    detect_delay: bool,
    /// Linux hystart_low_window.
    low_window: u32,
    /// Linux hystart_ack_delta_us.
    ack_delta: SimTime,
    /// The exit has been taken (Linux ca->found).
    pub found: bool,
    round_start: SimTime,
    last_ack: SimTime,
    end_seq: u64,
    /// The round's smallest RTT, µs.
    curr_rtt: u64,
    sample_cnt: u32,
}

impl HyStart {
    pub fn new(detect_train: bool, detect_delay: bool, low_window: u32, ack_delta: SimTime) -> Self {
        HyStart {
            detect_train,
            detect_delay,
            low_window,
            ack_delta,
            found: false,
            round_start: 0,
            last_ack: 0,
            end_seq: 0,
            curr_rtt: u64::MAX,
            sample_cnt: 0,
        }
    }

    /// Linux bictcp_hystart_reset: a new round starts now and ends when
    /// what is sent by now is acknowledged.
    pub fn reset(&mut self, tp: &CcState) {
        self.round_start = tp.now;
        self.last_ack = tp.now;
        self.end_seq = tp.snd_nxt;
        self.curr_rtt = u64::MAX;
        self.sample_cnt = 0;
    }

    /// Linux hystart_ack_delay: min(1 ms, 4·GSO max size / pacing rate),
    /// with the pacing rate Linux keeps internally (2·cwnd·mss/srtt in early
    /// slow start) when the algorithm does not set one.
    fn ack_delay(tp: &CcState) -> SimTime {
        let rate = match (tp.pacing_rate, tp.srtt) {
            (Some(r), _) => r,
            (None, Some(s)) if s > 0 => 2.0 * tp.cwnd as f64 * tp.mss as f64 * PS_PER_S as f64 / s as f64,
            _ => return 0,
        };
        let d = 4.0 * 65536.0 / rate * PS_PER_S as f64;
        (d as SimTime).min(PS_PER_MS)
    }

    /// Linux hystart_update for an ACK with RTT `delay_us`, given the
    /// connection's smallest RTT `delay_min_us`; on exit sets ssthresh.
    pub fn update(&mut self, tp: &mut CcState, delay_us: u64, delay_min_us: u64) {
        if tp.snd_una > self.end_seq {
            self.reset(tp);
        }
        // Rounds are tracked from the first ACK; the detectors run only from
        // hystart_low_window on. Linux moved the low-window test after
        // bictcp_hystart_reset in 2024 (M. Arghavani, fixing commit
        // 4e1fddc98d25; in 6.11 and the 6.1/6.6 stable series): testing
        // the window first starts the first round mid-flight, so every later
        // round begins in the idle gap between two slow-start flights, sees
        // the empty queue's RTT and breaks the ACK train.
        if tp.cwnd < self.low_window {
            return;
        }
        if self.detect_train && tp.now - self.last_ack <= self.ack_delta {
            self.last_ack = tp.now;
            let mut threshold = delay_min_us * PS_PER_US + Self::ack_delay(tp);
            if !tp.paced {
                threshold /= 2;
            }
            if tp.now - self.round_start > threshold {
                self.found = true;
                tp.ssthresh = tp.cwnd;
            }
        }
        if self.detect_delay {
            self.curr_rtt = self.curr_rtt.min(delay_us);
            if self.sample_cnt < MIN_SAMPLES {
                self.sample_cnt += 1;
            } else {
                let th = ((delay_min_us >> 3) * PS_PER_US).clamp(DELAY_MIN_THRESH, DELAY_MAX_THRESH) / PS_PER_US;
                if self.curr_rtt > delay_min_us + th {
                    self.found = true;
                    tp.ssthresh = tp.cwnd;
                }
            }
        }
    }
}

/// RFC 9406 state.
#[derive(Clone, Debug, Default)]
pub struct HyStartPP {
    window_end: u64,
    last_round_min: Option<SimTime>,
    cur_round_min: Option<SimTime>,
    samples: u32,
    /// In Conservative Slow Start.
    pub css: bool,
    css_baseline: SimTime,
    css_rounds: u32,
    css_acc: u32,
    /// Slow start is over for good (HyStart++ runs in the first one only).
    pub done: bool,
}

impl HyStartPP {
    /// The first round ends when what is sent by now is acknowledged.
    pub fn init(&mut self, tp: &CcState) {
        self.window_end = tp.snd_nxt;
    }

    /// RFC 9406 §4.2 per-ACK bookkeeping while in slow start.
    pub fn update(&mut self, tp: &mut CcState, rtt: Option<SimTime>) {
        if self.done || !tp.in_slow_start() {
            return;
        }
        if tp.snd_una > self.window_end {
            // A round ended.
            self.last_round_min = self.cur_round_min;
            self.cur_round_min = None;
            self.samples = 0;
            self.window_end = tp.snd_nxt;
            if self.css {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    tp.ssthresh = tp.cwnd;
                    self.done = true;
                    return;
                }
            }
        }
        let Some(r) = rtt else { return };
        self.cur_round_min = Some(self.cur_round_min.map_or(r, |m| m.min(r)));
        self.samples += 1;
        if self.samples < MIN_SAMPLES {
            return;
        }
        let cur = self.cur_round_min.unwrap();
        if !self.css {
            if let Some(last) = self.last_round_min {
                let th = (last / 8).clamp(DELAY_MIN_THRESH, DELAY_MAX_THRESH);
                if cur >= last + th {
                    self.css = true;
                    self.css_baseline = cur;
                    self.css_rounds = 0;
                }
            }
        } else if cur < self.css_baseline {
            self.css = false;
        }
    }

    /// In Conservative Slow Start, grow cwnd by acked/CSS_GROWTH_DIVISOR
    /// (never past ssthresh) and return true; otherwise false (ordinary slow
    /// start applies).
    pub fn css_grow(&mut self, tp: &mut CcState, acked: u32) -> bool {
        if self.done || !self.css {
            return false;
        }
        self.css_acc += acked;
        let add = self.css_acc / CSS_GROWTH_DIVISOR;
        self.css_acc %= CSS_GROWTH_DIVISOR;
        tp.cwnd = tp.cwnd.saturating_add(add).min(tp.ssthresh).min(tp.cwnd_clamp);
        true
    }
}
