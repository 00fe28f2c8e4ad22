//! Reno AIMD window rules, shared by Tahoe, Reno and NewReno (they differ
//! only in loss recovery, which the sender implements).
//!
//! Follows: RFC 5681 §3.1 (slow start, congestion avoidance counted in acked
//! segments, ssthresh = max(FlightSize/2, 2·SMSS), eq. 4) and Linux
//! net/ipv4/tcp_cong.c (`tcp_reno_cong_avoid`, `tcp_slow_start`,
//! `tcp_cong_avoid_ai`).
//! What a reduction halves is the `ssthresh_base` option: cwnd by default
//! on both stacks (Linux `tcp_reno_ssthresh`, ns-2 `TcpAgent::slowdown`), or
//! FlightSize as RFC 5681 eq. 4 says (`ssthresh_base = "flight"`); they
//! agree whenever the flow is cwnd-limited.

use super::params::{AlgoSpec, RecoveryFlavour};
use super::{reno_cong_avoid, CcState, CongestionOps};

pub const TAHOE: AlgoSpec = AlgoSpec {
    name: "tahoe",
    source: "Jacobson 1988; RFC 5681 window rules; fast retransmit then slow start from 1 (ns-2 Agent/TCP)",
    params: &[],
    presets: &[],
    recovery: RecoveryFlavour::Tahoe,
    ecn: None,
    ack_hooks: false,
    build: |_, _| Box::new(Reno::new("tahoe")),
};
pub const RENO: AlgoSpec = AlgoSpec {
    name: "reno",
    source: "RFC 5681 (fast retransmit / fast recovery, one loss per window); Linux tcp_cong.c window rules",
    params: &[],
    presets: &[],
    recovery: RecoveryFlavour::Reno,
    ecn: None,
    ack_hooks: false,
    build: |_, _| Box::new(Reno::new("reno")),
};
pub const NEWRENO: AlgoSpec = AlgoSpec {
    name: "newreno",
    source: "RFC 6582 NewReno recovery on RFC 5681 window rules; Linux tcp_cong.c (tcp_reno_cong_avoid)",
    params: &[],
    presets: &[],
    recovery: RecoveryFlavour::NewReno,
    ecn: None,
    ack_hooks: false,
    build: |_, _| Box::new(Reno::new("newreno")),
};

pub struct Reno {
    name: &'static str,
}

impl Reno {
    pub fn new(name: &str) -> Self {
        let name = match name {
            "tahoe" => "tahoe",
            "reno" => "reno",
            _ => "newreno",
        };
        Reno { name }
    }
}

impl CongestionOps for Reno {
    fn name(&self) -> &'static str {
        self.name
    }

    // ssthresh = max(FlightSize / 2, 2·SMSS)   (RFC 5681 eq. 4), or half
    // of cwnd as Linux tcp_reno_ssthresh and ns-2 slowdown do.
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        tp.half_window()
    }

    // Slow start, then cwnd += 1 per cwnd segments acked (RFC 5681 eq. 3,
    // counted per segment).
    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        reno_cong_avoid(tp, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::state;

    #[test]
    fn slow_start_adds_one_segment_per_segment_acked() {
        let mut r = Reno::new("newreno");
        let mut tp = state(10, u32::MAX);
        r.cong_avoid(&mut tp, 1);
        assert_eq!(tp.cwnd, 11);
        r.cong_avoid(&mut tp, 2); // a delayed ACK covering two segments
        assert_eq!(tp.cwnd, 13);
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_leftover_goes_to_avoidance() {
        let mut r = Reno::new("newreno");
        let mut tp = state(9, 10);
        r.cong_avoid(&mut tp, 3);
        // 1 segment of slow start reaches ssthresh = 10, 2 left count toward +1 per 10.
        assert_eq!(tp.cwnd, 10);
        assert_eq!(tp.cwnd_cnt, 2);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window() {
        // RFC 5681: at most +1 SMSS per RTT. One RTT = cwnd segments acked.
        let mut r = Reno::new("newreno");
        let mut tp = state(20, 10);
        for _ in 0..19 {
            r.cong_avoid(&mut tp, 1);
        }
        assert_eq!(tp.cwnd, 20);
        r.cong_avoid(&mut tp, 1);
        assert_eq!(tp.cwnd, 21);
        // Delayed ACKs (2 segments each) give the same growth per window.
        let mut tp2 = state(20, 10);
        for _ in 0..10 {
            r.cong_avoid(&mut tp2, 2);
        }
        assert_eq!(tp2.cwnd, 21);
    }

    #[test]
    fn ssthresh_from_cwnd_halves_cwnd_whatever_is_in_flight() {
        // Linux tcp_reno_ssthresh: max(snd_cwnd >> 1, 2).
        let mut r = Reno::new("newreno");
        let mut tp = state(41, 100);
        tp.ssthresh_from_cwnd = true;
        tp.in_flight = 7;
        assert_eq!(r.ssthresh(&tp), 20);
        tp.cwnd = 3;
        assert_eq!(r.ssthresh(&tp), 2);
    }

    #[test]
    fn ssthresh_is_half_flightsize_but_at_least_two() {
        let mut r = Reno::new("reno");
        let mut tp = state(40, 100);
        tp.in_flight = 31;
        assert_eq!(r.ssthresh(&tp), 15);
        tp.in_flight = 3;
        assert_eq!(r.ssthresh(&tp), 2);
    }

    #[test]
    fn clamp_caps_growth() {
        let mut r = Reno::new("newreno");
        let mut tp = state(8, u32::MAX);
        tp.cwnd_clamp = 8;
        r.cong_avoid(&mut tp, 4);
        assert_eq!(tp.cwnd, 8);
    }
}
