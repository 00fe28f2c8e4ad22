//! Scalable TCP.
//!
//! Follows: Kelly, "Scalable TCP: improving performance in highspeed wide
//! area networks", ACM CCR 33(2), 2003 — above a legacy window, cwnd grows by
//! a = 0.01 per acknowledged segment and falls by b = 0.125·cwnd on a loss,
//! so the window recovers in a fixed number of RTTs at any rate — and Linux
//! net/ipv4/tcp_scalable.c (6.x), which writes the increase as "+1 segment
//! per min(cwnd, 100) acknowledged" (tcp_cong_avoid_ai) and the decrease as
//! cwnd − cwnd>>3.
//!
//! One rule covers both: in avoidance, +1 per `w` acked segments with
//! w = cwnd while cwnd < `low_window`, else w = `ai_cnt` (= 1/a); on a
//! loss ssthresh = max(cwnd − ⌊cwnd·`md`⌋, 2). Linux is (ai_cnt 100,
//! low_window 100); old Linux and ns-3 used ai_cnt 50 ("for delayed ACK");
//! the paper and Choi, Lee, Cho & Han 2004 use a = 0.01 above a legacy window of 16.
//! Response function (derived from a(1 − p) = p·b·w): w ≈ a/(b·p) = 0.08/p.
//!
//! Deviations: ns-3 resets its ACK counter to 0 after an increase; we keep
//! the remainder as Linux does.

use super::params::{int, num, AlgoSpec, Lit, Params, Preset, RecoveryFlavour};
use super::{cong_avoid_ai, slow_start, CcState, CongestionOps};

pub const SPEC: AlgoSpec = AlgoSpec {
    name: "scalable",
    source: "Kelly, ACM CCR 2003; Linux net/ipv4/tcp_scalable.c (6.x)",
    params: &[
        int("ai_cnt", 100.0, 1.0, 1e9, "+1 segment per ai_cnt acked segments above low_window (a = 1/ai_cnt)"),
        int("low_window", 100.0, 1.0, 1e9, "below this cwnd, grow as Reno (+1 per cwnd acked)"),
        num("md", 0.125, 0.001, 0.5, "multiplicative decrease b: ssthresh = cwnd − floor(b·cwnd)"),
    ],
    presets: &[
        Preset { name: "linux", doc: "Linux tcp_scalable.c (AI_CNT 100)", values: &[] },
        Preset {
            name: "ns3",
            doc: "ns-3 TcpScalable and Linux before 2.6.x: AI_CNT 50",
            values: &[("ai_cnt", Lit::N(50.0)), ("low_window", Lit::N(50.0))],
        },
        Preset {
            name: "paper",
            doc: "Kelly 2003 / Choi, Lee, Cho & Han 2004: a = 0.01, b = 0.125, legacy window 16",
            values: &[("ai_cnt", Lit::N(100.0)), ("low_window", Lit::N(16.0))],
        },
    ],
    recovery: RecoveryFlavour::NewReno,
    ecn: None,
    ack_hooks: false,
    build: |p, _| Box::new(Scalable::new(p)),
};

pub struct Scalable {
    ai_cnt: u32,
    low_window: u32,
    md: f64,
}

impl Scalable {
    pub fn new(p: &Params) -> Self {
        Scalable { ai_cnt: p.num("ai_cnt") as u32, low_window: p.num("low_window") as u32, md: p.num("md") }
    }
}

impl CongestionOps for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        let w = tp.cwnd;
        if self.md == 0.125 {
            // Linux: cwnd − (cwnd >> 3).
            return (w - (w >> 3)).max(2);
        }
        (w - (w as f64 * self.md).floor() as u32).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        let mut acked = acked;
        if tp.in_slow_start() {
            acked = slow_start(tp, acked);
            if acked == 0 {
                return;
            }
        }
        let w = if tp.cwnd < self.low_window { tp.cwnd } else { self.ai_cnt };
        cong_avoid_ai(tp, w, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{state, with};

    fn run(preset: &str, cwnd: u32, acked: u32) -> u32 {
        let mut s = Scalable::new(&with("scalable", Some(preset), &[]));
        let mut tp = state(cwnd, 1);
        s.cong_avoid(&mut tp, acked);
        tp.cwnd
    }

    #[test]
    fn ns3_increment_vectors() {
        // ns-3 tcp-scalable-test.cc, docs/reference.md R5: (38, 38) → 39; (38, 100) → 40; (53, 50) → 54.
        assert_eq!(run("ns3", 38, 38), 39);
        assert_eq!(run("ns3", 38, 100), 40);
        assert_eq!(run("ns3", 53, 50), 54);
    }

    #[test]
    fn linux_increment_is_one_percent_per_ack_above_100() {
        // Linux: +1 per min(cwnd, 100) acked → 1000 acks at cwnd ≥ 100 add 10.
        let mut s = Scalable::new(&with("scalable", None, &[]));
        let mut tp = state(1000, 1);
        for _ in 0..1000 {
            s.cong_avoid(&mut tp, 1);
        }
        assert_eq!(tp.cwnd, 1010);
        // Below 100 it is Reno: 60 acks at cwnd 60 add 1.
        assert_eq!(run("linux", 60, 60), 61);
    }

    #[test]
    fn paper_legacy_window_16() {
        // Above 16 the paper's a = 0.01: 100 acks at cwnd 20 add exactly 1 (Reno would add 5).
        let mut s = Scalable::new(&with("scalable", Some("paper"), &[]));
        let mut tp = state(20, 1);
        for _ in 0..100 {
            s.cong_avoid(&mut tp, 1);
        }
        assert_eq!(tp.cwnd, 21);
        assert_eq!(run("paper", 10, 10), 11, "Reno below 16");
    }

    #[test]
    fn decrease_vectors() {
        // Linux cwnd − cwnd>>3 on the ns-3 test inputs: 38 → 34, 100 → 88, 40 → 35.
        let mut s = Scalable::new(&with("scalable", None, &[]));
        for (w, want) in [(38, 34), (100, 88), (40, 35), (2, 2)] {
            assert_eq!(s.ssthresh(&state(w, 1)), want, "w {w}");
        }
    }
}
