//! TCP Westwood (original) and Westwood+.
//!
//! Both grow the window as Reno does and, after a congestion episode, set
//! ssthresh = max(2, BWE·RTTmin/MSS) from an end-to-end estimate BWE of the
//! bandwidth the flow gets. They differ in how BWE is sampled.
//!
//! `westwoodplus` follows Grieco & Mascolo, "Performance evaluation and
//! comparison of Westwood+, New Reno, and Vegas TCP congestion control",
//! ACM CCR 34(2), 2004, as implemented in Linux net/ipv4/tcp_westwood.c
//! (6.x): one sample per window of max(RTT, `min_window` = 50 ms) =
//! bytes acknowledged in the window / window length, with duplicate ACKs
//! counted as one MSS and later subtracted from the cumulative ACK that
//! covers them; RTTmin is re-learnt after each timeout. Filters:
//!   `linux` — two cascaded integer 7/8 filters, the first sample fills both;
//!   `ewma`  — the paper's b̂ ← α·b̂ + (1 − α)·b with α = `alpha` (0.9),
//!             first sample fills it;
//!   `ns3`   — ns-3's Tustin b̂ ← α·b̂ + (1 − α)·(b_k + b_{k−1})/2 from 0.
//! Reaction (`reaction`):
//!   `linux` — ssthresh from Reno (half) at recovery entry; at the end of
//!             recovery or CWR cwnd = ssthresh = BWE·RTTmin; on timeout
//!             ssthresh = BWE·RTTmin (Linux CA_EVENT_COMPLETE_CWR / LOSS);
//!   `paper` — ssthresh = BWE·RTTmin already at the third duplicate ACK
//!             (and on timeout), cwnd = ssthresh as the sender's recovery sets it.
//!
//! `westwood` follows Mascolo, Casetti, Gerla, Sanadidi, Wang, "TCP
//! Westwood: bandwidth estimation for enhanced transport over wireless
//! links", MobiCom 2001: one sample per ACK, b_k = d_k/(t_k − t_{k−1})
//! (d_k bytes acknowledged, counted as above), filtered by the Tustin
//! discretisation b̂_k = α_k·b̂_{k−1} + (1 − α_k)·(b_k + b_{k−1})/2 with
//! α_k = (2τ − Δ_k)/(2τ + Δ_k). Under ACK compression Δ_k shrinks and the
//! estimate overshoots: the flaw Westwood+ fixes (Grieco & Mascolo 2004, Fig. 1).
//! Its reaction is the paper's (ssthresh at the third duplicate ACK).
//!
//! Deviations: BWE is kept in bytes per second (Linux: bytes per jiffy), so
//! the integer filter loses less at low rates. In `paper` reaction, if
//! BWE·RTTmin exceeds cwnd at the third duplicate ACK the paper keeps cwnd,
//! while our sender's recovery sets cwnd = ssthresh (it does so for every
//! algorithm). τ = 0.5 s for the original Westwood is recalled from the
//! paper, not checked against a stored copy (docs/model.md).

use super::params::{choice, num, AlgoSpec, Lit, Params, Preset, RecoveryFlavour};
use super::{AckSample, CcState, CongestionOps, CwndEvent};
use crate::units::{SimTime, PS_PER_MS, PS_PER_S};

pub const SPEC_PLUS: AlgoSpec = AlgoSpec {
    name: "westwoodplus",
    source: "Grieco & Mascolo, ACM CCR 2004; Linux net/ipv4/tcp_westwood.c (6.x)",
    params: &[
        choice(
            "filter",
            &["linux", "ewma", "ns3"],
            "linux",
            "bandwidth filter: Linux's two 7/8 stages, the paper's EWMA, or ns-3's Tustin",
        ),
        num("alpha", 0.9, 0.0, 0.999, "EWMA/Tustin coefficient (filter = ewma or ns3)"),
        num(
            "min_window_ms",
            50.0,
            0.0,
            10_000.0,
            "a sample covers at least max(RTT, this) (Linux TCP_WESTWOOD_RTT_MIN)",
        ),
        choice(
            "reaction",
            &["linux", "paper"],
            "linux",
            "when ssthresh = BWE·RTTmin is applied: end of recovery (linux) or third dup ACK (paper)",
        ),
    ],
    presets: &[
        Preset { name: "linux", doc: "Linux tcp_westwood.c", values: &[] },
        Preset {
            name: "paper",
            doc: "Grieco & Mascolo 2004: EWMA 0.9 on per-RTT samples, ssthresh set at the third dup ACK",
            values: &[
                ("filter", Lit::S("ewma")),
                ("alpha", Lit::N(0.9)),
                ("min_window_ms", Lit::N(0.0)),
                ("reaction", Lit::S("paper")),
            ],
        },
        Preset {
            name: "ns3",
            doc: "ns-3 TcpWestwoodPlus: Tustin 0.9 from 0, one sample per RTT",
            values: &[
                ("filter", Lit::S("ns3")),
                ("alpha", Lit::N(0.9)),
                ("min_window_ms", Lit::N(0.0)),
                ("reaction", Lit::S("paper")),
            ],
        },
    ],
    recovery: RecoveryFlavour::NewReno,
    ecn: None,
    ack_hooks: true,
    build: |p, _| Box::new(Westwood::new_plus(p)),
};

pub const SPEC_WESTWOOD: AlgoSpec = AlgoSpec {
    name: "westwood",
    source: "Mascolo, Casetti, Gerla, Sanadidi, Wang, MobiCom 2001 (per-ACK samples, Tustin filter)",
    params: &[num("tau_ms", 500.0, 1.0, 100_000.0, "filter time constant τ (cut-off 1/τ)")],
    presets: &[],
    recovery: RecoveryFlavour::NewReno,
    ecn: None,
    ack_hooks: true,
    build: |p, _| Box::new(Westwood::new_original(p)),
};

#[derive(Clone, Copy, PartialEq, Debug)]
enum Filter {
    Linux,
    Ewma,
    Ns3,
    /// Original Westwood, per ACK.
    PerAck,
}

/// One stage of Linux's filter: (7·a + b)/8, floored.
#[inline]
pub fn linux_stage(a: u64, b: u64) -> u64 {
    (7 * a + b) >> 3
}

pub struct Westwood {
    name: &'static str,
    filter: Filter,
    alpha: f64,
    tau: f64,
    min_window: SimTime,
    paper_reaction: bool,
    // Linux state
    bk: u64,
    accounted: u64,
    rtt_win_sx: SimTime,
    rtt: SimTime,
    rtt_min: SimTime,
    reset_rtt_min: bool,
    first_ack: bool,
    bw_ns_est: u64,
    bw_est: u64,
    // float filters (bytes/s)
    est: f64,
    prev_sample: f64,
    have_est: bool,
    last_ack_at: Option<SimTime>,
}

const INIT_RTT: SimTime = 20 * PS_PER_S; // TCP_WESTWOOD_INIT_RTT

impl Westwood {
    fn base(name: &'static str, filter: Filter) -> Self {
        Westwood {
            name,
            filter,
            alpha: 0.9,
            tau: 0.5,
            min_window: 50 * PS_PER_MS,
            paper_reaction: false,
            bk: 0,
            accounted: 0,
            rtt_win_sx: 0,
            rtt: INIT_RTT,
            rtt_min: INIT_RTT,
            reset_rtt_min: true,
            first_ack: true,
            bw_ns_est: 0,
            bw_est: 0,
            est: 0.0,
            prev_sample: 0.0,
            have_est: false,
            last_ack_at: None,
        }
    }

    pub fn new_plus(p: &Params) -> Self {
        let filter = match p.text("filter") {
            "ewma" => Filter::Ewma,
            "ns3" => Filter::Ns3,
            _ => Filter::Linux,
        };
        let mut w = Self::base("westwoodplus", filter);
        w.alpha = p.num("alpha");
        w.min_window = (p.num("min_window_ms") * PS_PER_MS as f64).round() as SimTime;
        w.paper_reaction = p.text("reaction") == "paper";
        w
    }

    pub fn new_original(p: &Params) -> Self {
        let mut w = Self::base("westwood", Filter::PerAck);
        w.tau = p.num("tau_ms") / 1e3;
        w.paper_reaction = true;
        w
    }

    /// Current bandwidth estimate, bytes per second.
    pub fn bwe(&self) -> f64 {
        match self.filter {
            Filter::Linux => self.bw_est as f64,
            _ => self.est,
        }
    }

    /// max(BWE·RTTmin/MSS, 2) segments (tcp_westwood_bw_rttmin).
    pub fn bw_rttmin(&self, mss: u32) -> u32 {
        let w = self.bwe() * self.rtt_min as f64 / PS_PER_S as f64 / mss as f64;
        (w.min(u32::MAX as f64) as u32).max(2)
    }

    /// Feed one per-window sample (bytes/s) to the per-RTT filter.
    fn filter_sample(&mut self, b: f64) {
        match self.filter {
            Filter::Linux => {
                let s = b as u64;
                if self.bw_ns_est == 0 && self.bw_est == 0 {
                    self.bw_ns_est = s;
                    self.bw_est = s;
                } else {
                    self.bw_ns_est = linux_stage(self.bw_ns_est, s);
                    self.bw_est = linux_stage(self.bw_est, self.bw_ns_est);
                }
            }
            Filter::Ewma => {
                self.est = if self.have_est { self.alpha * self.est + (1.0 - self.alpha) * b } else { b };
                self.have_est = true;
            }
            Filter::Ns3 => {
                self.est = self.alpha * self.est + (1.0 - self.alpha) * (b + self.prev_sample) / 2.0;
                self.prev_sample = b;
            }
            Filter::PerAck => unreachable!(),
        }
    }

    /// Bytes this ACK stands for (westwood_acked_count).
    fn acked_bytes(&mut self, acked: u32, mss: u64) -> u64 {
        let mut cumul = acked as u64 * mss;
        if cumul == 0 {
            self.accounted += mss;
            cumul = mss;
        }
        if cumul > mss {
            if self.accounted >= cumul {
                self.accounted -= cumul;
                cumul = mss;
            } else {
                cumul -= self.accounted;
                self.accounted = 0;
            }
        }
        cumul
    }

    fn update_rtt_min(&mut self) {
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(self.rtt);
        }
    }
}

impl CongestionOps for Westwood {
    fn name(&self) -> &'static str {
        self.name
    }

    fn var_names(&self) -> &'static [&'static str] {
        &["bwe_bps", "rtt_min_s", "bw_rttmin"]
    }

    fn vars(&self, tp: &CcState, out: &mut Vec<f64>) {
        let rtt_min = if self.rtt_min == INIT_RTT { f64::NAN } else { self.rtt_min as f64 / PS_PER_S as f64 };
        out.extend([self.bwe() * 8.0, rtt_min, self.bw_rttmin(tp.mss) as f64]);
    }

    fn init(&mut self, tp: &mut CcState) {
        self.rtt_win_sx = tp.now;
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        if self.paper_reaction && self.bwe() > 0.0 {
            self.bw_rttmin(tp.mss)
        } else {
            tp.half_window()
        }
    }

    fn cwnd_event(&mut self, tp: &mut CcState, ev: CwndEvent) {
        match ev {
            CwndEvent::CompleteCwr if !self.paper_reaction => {
                tp.ssthresh = self.bw_rttmin(tp.mss);
                tp.cwnd = tp.ssthresh.min(tp.cwnd_clamp);
            }
            CwndEvent::Loss => {
                tp.ssthresh = self.bw_rttmin(tp.mss);
                self.reset_rtt_min = true;
            }
            _ => {}
        }
    }

    fn in_ack_event(&mut self, tp: &CcState, acked: u32, _flags: u32) {
        let now = tp.now;
        if self.filter == Filter::PerAck {
            let d = self.acked_bytes(acked, tp.mss as u64);
            self.bk += d;
            if let Some(last) = self.last_ack_at {
                let dt = now - last;
                if dt > 0 {
                    let dts = dt as f64 / PS_PER_S as f64;
                    let b = self.bk as f64 / dts;
                    let a = ((2.0 * self.tau - dts) / (2.0 * self.tau + dts)).max(0.0);
                    self.est = a * self.est + (1.0 - a) * (b + self.prev_sample) / 2.0;
                    self.prev_sample = b;
                    self.bk = 0;
                    self.last_ack_at = Some(now);
                }
            } else {
                self.bk = 0;
                self.last_ack_at = Some(now);
            }
            self.update_rtt_min();
            return;
        }
        if self.first_ack {
            self.first_ack = false;
            self.rtt_win_sx = now;
        }
        let delta = now - self.rtt_win_sx;
        if delta > self.rtt.max(self.min_window) && delta > 0 {
            let b = self.bk as f64 * PS_PER_S as f64 / delta as f64;
            self.filter_sample(b);
            self.bk = 0;
            self.rtt_win_sx = now;
        }
        self.bk += self.acked_bytes(acked, tp.mss as u64);
        self.update_rtt_min();
    }

    fn pkts_acked(&mut self, _tp: &mut CcState, s: &AckSample) {
        if let Some(r) = s.rtt {
            if r > 0 {
                self.rtt = r;
            }
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        super::reno_cong_avoid(tp, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{state, with};

    #[test]
    fn linux_filter_integer_vector() {
        // docs/reference.md R3: samples 100, 200, 200, 200, 200.
        let mut w = Westwood::new_plus(&with("westwoodplus", None, &[]));
        let mut got = vec![];
        for s in [100.0, 200.0, 200.0, 200.0, 200.0] {
            w.filter_sample(s);
            got.push((w.bw_ns_est, w.bw_est));
        }
        assert_eq!(got, vec![(100, 100), (112, 101), (123, 103), (132, 106), (140, 110)]);
    }

    #[test]
    fn ns3_tustin_vector() {
        // docs/reference.md R3: 5, 19.5, 37.55, 53.795, 68.4155.
        let mut w = Westwood::new_plus(&with("westwoodplus", Some("ns3"), &[]));
        let want = [5.0, 19.5, 37.55, 53.795, 68.4155];
        for (s, e) in [100.0, 200.0, 200.0, 200.0, 200.0].iter().zip(want) {
            w.filter_sample(*s);
            assert!((w.est - e).abs() < 1e-9, "{} vs {e}", w.est);
        }
    }

    #[test]
    fn paper_ewma_first_sample_then_alpha() {
        let mut w = Westwood::new_plus(&with("westwoodplus", Some("paper"), &[]));
        w.filter_sample(100.0);
        assert_eq!(w.est, 100.0);
        w.filter_sample(200.0);
        assert!((w.est - (0.9 * 100.0 + 0.1 * 200.0)).abs() < 1e-9);
    }

    /// Drive ACKs of `per_ack` segments every `gap` for `n` ACKs, RTT `rtt`.
    fn drive(w: &mut Westwood, tp: &mut CcState, n: usize, gap: SimTime, per_ack: u32, rtt: SimTime) {
        for _ in 0..n {
            tp.now += gap;
            w.in_ack_event(tp, per_ack, 0);
            w.pkts_acked(tp, &AckSample { acked: per_ack, rtt: Some(rtt), in_flight: tp.cwnd });
        }
    }

    #[test]
    fn estimate_converges_to_ack_rate_and_sets_ssthresh_at_recovery_end() {
        // 1000 B segments acked one per ms = 1 MB/s; RTTmin 100 ms → BWE·RTTmin = 100 segments.
        let mut w = Westwood::new_plus(&with("westwoodplus", None, &[]));
        let mut tp = state(120, 200);
        tp.mss = 1000;
        w.init(&mut tp);
        drive(&mut w, &mut tp, 5000, PS_PER_MS, 1, 100 * PS_PER_MS);
        let bwe = w.bwe();
        assert!((bwe - 1e6).abs() / 1e6 < 0.02, "bwe {bwe}");
        // Linux: Reno halving at entry, BWE·RTTmin at the end.
        tp.in_flight = 120;
        assert_eq!(w.ssthresh(&tp), 60);
        w.cwnd_event(&mut tp, CwndEvent::CompleteCwr);
        assert!((98..=100).contains(&tp.ssthresh), "{}", tp.ssthresh);
        assert_eq!(tp.cwnd, tp.ssthresh);
    }

    #[test]
    fn dup_acks_count_one_mss_and_are_not_counted_twice() {
        let mut w = Westwood::new_plus(&with("westwoodplus", None, &[]));
        assert_eq!(w.acked_bytes(0, 1000), 1000);
        assert_eq!(w.acked_bytes(0, 1000), 1000);
        // A cumulative ACK of 5 segments after two dup ACKs adds only 3.
        assert_eq!(w.acked_bytes(5, 1000), 3000);
        assert_eq!(w.accounted, 0);
    }

    #[test]
    fn timeout_sets_ssthresh_and_relearns_rtt_min() {
        let mut w = Westwood::new_plus(&with("westwoodplus", None, &[]));
        let mut tp = state(50, 100);
        tp.mss = 1000;
        w.init(&mut tp);
        drive(&mut w, &mut tp, 3000, PS_PER_MS, 1, 100 * PS_PER_MS);
        // The last sample before the timeout is 300 ms; RTTmin stays 100 ms.
        drive(&mut w, &mut tp, 1, PS_PER_MS, 1, 300 * PS_PER_MS);
        assert_eq!(w.rtt_min, 100 * PS_PER_MS);
        w.cwnd_event(&mut tp, CwndEvent::Loss);
        assert!((98..=100).contains(&tp.ssthresh), "{}", tp.ssthresh);
        // Linux re-learns RTTmin on the next ACK from the latest sample
        // (in_ack_event runs before this ACK's own sample arrives).
        drive(&mut w, &mut tp, 1, PS_PER_MS, 1, 300 * PS_PER_MS);
        assert_eq!(w.rtt_min, 300 * PS_PER_MS);
    }

    #[test]
    fn paper_reaction_sets_ssthresh_at_loss() {
        let mut w = Westwood::new_plus(&with("westwoodplus", Some("paper"), &[]));
        let mut tp = state(150, 200);
        tp.mss = 1000;
        w.init(&mut tp);
        drive(&mut w, &mut tp, 5000, PS_PER_MS, 1, 100 * PS_PER_MS);
        tp.in_flight = 150;
        let s = w.ssthresh(&tp);
        assert!((98..=100).contains(&s), "{s}");
    }

    #[test]
    fn original_westwood_overestimates_under_ack_compression() {
        // Same 1 MB/s, but ACKs arrive in bursts of 10 spaced 10 µs apart
        // every 10 ms: per-ACK samples see 1000 B / 10 µs = 100 MB/s.
        let mut orig = Westwood::new_original(&with("westwood", None, &[]));
        let mut plus = Westwood::new_plus(&with("westwoodplus", None, &[]));
        let mut tp = state(100, 200);
        tp.mss = 1000;
        orig.init(&mut tp);
        plus.init(&mut tp);
        let mut t = 0;
        for _ in 0..500 {
            for k in 0..10 {
                tp.now = t + k * 10 * crate::units::PS_PER_US;
                orig.in_ack_event(&tp, 1, 0);
                plus.in_ack_event(&tp, 1, 0);
                plus.pkts_acked(&mut tp, &AckSample { acked: 1, rtt: Some(100 * PS_PER_MS), in_flight: 100 });
            }
            t += 10 * PS_PER_MS;
        }
        assert!((plus.bwe() - 1e6).abs() / 1e6 < 0.05, "plus {}", plus.bwe());
        assert!(orig.bwe() > 3e6, "original Westwood should overshoot: {}", orig.bwe());
    }
}
