//! DCTCP (Data Center TCP).
//!
//! Follows: Linux net/ipv4/tcp_dctcp.c (6.x), function by function, and
//! RFC 8257 (Bensley et al., 2017); the algorithm of Alizadeh et al.,
//! "Data Center TCP (DCTCP)", SIGCOMM 2010.
//! - `dctcp_update_alpha` (in_ack_event): once per window of data (when
//!   snd_una reaches the snd_nxt of the last update), with F the fraction
//!   of segments delivered in that window by ACKs that carried ECE,
//!   α ← (1 − g)·α + g·F in Linux's fixed point: α in 1/1024 units,
//!   α −= max(α >> shift_g, min(α, 1)) (min_not_zero), then
//!   α += (delivered_ce << (10 − shift_g)) / delivered, at most 1024.
//! - `dctcp_ssthresh`: cwnd − ⌊cwnd·α / 2048⌋ (cwnd·(1 − α/2)), at least 2;
//!   the sender's ECN reduction (once per window, RFC 3168 §6.1.2, as
//!   Linux's tcp_enter_cwr) uses it.
//! - `dctcp_state` / `dctcp_react_to_loss`: entering Recovery, and an RTO
//!   (CA_EVENT_LOSS), set ssthresh = max(cwnd/2, 2), as Reno.
//! - `dctcp_cwnd_undo`: max(cwnd, cwnd before the last reduction).
//! - Growth is Reno's (tcp_reno_cong_avoid).
//! - TCP_CONG_NEEDS_ECN: its flows negotiate ECN with ECT(0) and the
//!   receiver gives DCTCP feedback (RFC 8257 §3.2, `tcp.ecn_feedback`);
//!   `ecn = false` is refused (Linux falls back to Reno, `dctcp-reno`).
//!
//! Deviations: PLB (tcp_plb.c, path re-hashing) is left out: ccsim routes
//! are fixed. The CWR reduction is applied at once, not spread by PRR over
//! the round trip (the sender's model for every ECN reduction).

use super::params::{int, AlgoSpec, EcnNeed, Params, Preset, RecoveryFlavour};
use super::{reno_cong_avoid, CaState, CcState, CongestionOps, CwndEvent};
use crate::packet::{EcnCodepoint, EcnFeedback};

/// α's full scale (DCTCP_MAX_ALPHA): α = 1024 is a fraction of 1.
pub const MAX_ALPHA: u32 = 1024;

pub const SPEC: AlgoSpec = AlgoSpec {
    name: "dctcp",
    source: "Linux net/ipv4/tcp_dctcp.c (6.x); RFC 8257; Alizadeh et al., SIGCOMM 2010",
    params: &[
        int(
            "shift_g",
            4.0,
            0.0,
            10.0,
            "EWMA gain g = 1/2^shift_g of the marked fraction α (dctcp_shift_g; RFC 8257: g = 1/16)",
        ),
        int(
            "alpha_on_init",
            1024.0,
            0.0,
            1024.0,
            "α at the start, in 1/1024 (dctcp_alpha_on_init: 1024, so the first reduction halves)",
        ),
    ],
    presets: &[Preset { name: "linux", doc: "Linux tcp_dctcp.c module defaults (g = 1/16, α₀ = 1)", values: &[] }],
    recovery: RecoveryFlavour::NewReno,
    ecn: Some(EcnNeed {
        codepoint: EcnCodepoint::Ect0,
        feedback: EcnFeedback::Dctcp,
        without: "DCTCP needs ECN; Linux falls back to Reno without it: use cc = 'reno'",
    }),
    ack_hooks: true,
    build: |p, _| Box::new(Dctcp::new(p)),
};

pub struct Dctcp {
    shift_g: u32,
    /// α in 1/1024 (ca->dctcp_alpha).
    alpha: u32,
    /// snd_nxt when the current observation window began (ca->next_seq).
    next_seq: u64,
    old_delivered: u64,
    old_delivered_ce: u64,
    /// cwnd before the last reduction (ca->loss_cwnd).
    loss_cwnd: u32,
}

impl Dctcp {
    pub fn new(p: &Params) -> Self {
        Dctcp {
            shift_g: p.num("shift_g") as u32,
            alpha: (p.num("alpha_on_init") as u32).min(MAX_ALPHA),
            next_seq: 0,
            old_delivered: 0,
            old_delivered_ce: 0,
            loss_cwnd: 0,
        }
    }

    /// dctcp_reset: a new observation window starts at snd_nxt.
    fn reset(&mut self, tp: &CcState) {
        self.next_seq = tp.snd_nxt;
        self.old_delivered = tp.delivered;
        self.old_delivered_ce = tp.delivered_ce;
    }

    /// dctcp_react_to_loss.
    fn react_to_loss(&mut self, tp: &mut CcState) {
        self.loss_cwnd = tp.cwnd;
        tp.ssthresh = (tp.cwnd >> 1).max(2);
    }

    /// α as a fraction in [0, 1].
    pub fn alpha(&self) -> f64 {
        self.alpha as f64 / MAX_ALPHA as f64
    }
}

impl CongestionOps for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.loss_cwnd = 0;
        self.reset(tp);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        self.loss_cwnd = tp.cwnd;
        let cut = ((tp.cwnd as u64 * self.alpha as u64) >> 11) as u32;
        (tp.cwnd - cut).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        reno_cong_avoid(tp, acked);
    }

    fn in_ack_event(&mut self, tp: &CcState, _acked: u32, _flags: u32) {
        if tp.snd_una < self.next_seq {
            return;
        }
        let delivered = tp.delivered - self.old_delivered;
        let delivered_ce = tp.delivered_ce - self.old_delivered_ce;
        let mut alpha = self.alpha;
        // alpha -= min_not_zero(alpha, alpha >> g) (tcp_dctcp.c; include/linux/minmax.h:
        // the smaller of the two that is not zero): once α < 2^g, α >> g is 0
        // and the whole of α goes, so α drops to 0 rather than by one per window.
        let decay = alpha >> self.shift_g;
        alpha -= if decay == 0 { alpha } else { decay.min(alpha) };
        if delivered_ce > 0 {
            let f = (delivered_ce << (10 - self.shift_g)) / delivered.max(1);
            alpha = (alpha as u64 + f).min(MAX_ALPHA as u64) as u32;
        }
        self.alpha = alpha;
        self.reset(tp);
    }

    fn set_state(&mut self, tp: &mut CcState, new: CaState) {
        if new == CaState::Recovery && new != tp.ca_state {
            self.react_to_loss(tp);
        }
    }

    fn cwnd_event(&mut self, tp: &mut CcState, ev: CwndEvent) {
        // The receiver's side of CA_EVENT_ECN_IS_CE / _NO_CE (the CE
        // state and its ACKs) is the flow's `ecn_feedback = "dctcp"`
        // (tcp/receiver.rs), where the receiving socket keeps it.
        if ev == CwndEvent::Loss {
            self.react_to_loss(tp);
        }
    }

    fn undo_cwnd(&mut self, tp: &CcState) -> u32 {
        tp.cwnd.max(self.loss_cwnd)
    }

    fn var_names(&self) -> &'static [&'static str] {
        &["alpha"]
    }

    fn vars(&self, _tp: &CcState, out: &mut Vec<f64>) {
        out.push(self.alpha());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{defaults, state};

    /// One observation window: `delivered` segments, `ce` of them by ECE ACKs.
    fn window(d: &mut Dctcp, tp: &mut CcState, delivered: u64, ce: u64) {
        tp.delivered += delivered;
        tp.delivered_ce += ce;
        tp.snd_una = d.next_seq;
        tp.snd_nxt = tp.snd_una + 100;
        d.in_ack_event(tp, 1, 0);
    }

    #[test]
    fn alpha_follows_the_ewma_of_the_marked_fraction() {
        // RFC 8257 §3.3: α ← (1 − g)·α + g·F with g = 1/16, worked in
        // Linux's 1/1024 fixed point from α₀ = 1024.
        let mut d = Dctcp::new(&defaults("dctcp"));
        let mut tp = state(100, u32::MAX);
        d.init(&mut tp);
        // F = 0: 1024 − 1024/16 = 960.
        window(&mut d, &mut tp, 100, 0);
        assert_eq!(d.alpha, 960);
        // F = 1/2: 960 − 60 + (50·64)/100 = 900 + 32 = 932.
        window(&mut d, &mut tp, 100, 50);
        assert_eq!(d.alpha, 932);
        // F = 1: 932 − 58 + 64 = 938 (α ≈ 0.916, the real EWMA gives 0.9160).
        window(&mut d, &mut tp, 10, 10);
        assert_eq!(d.alpha, 938);
        let mut a = 1.0f64;
        for f in [0.0, 0.5, 1.0] {
            a = (1.0 - 1.0 / 16.0) * a + f / 16.0;
        }
        assert!((d.alpha() - a).abs() < 2.0 / 1024.0, "fixed point {} vs real {a}", d.alpha());
    }

    #[test]
    fn alpha_decays_to_zero_without_marks_and_is_not_updated_mid_window() {
        let mut d = Dctcp::new(&defaults("dctcp"));
        let mut tp = state(100, u32::MAX);
        d.init(&mut tp);
        // An ACK before snd_una reaches next_seq leaves α alone.
        tp.snd_nxt = 100;
        d.reset(&tp);
        tp.snd_una = 99;
        tp.delivered = 99;
        tp.delivered_ce = 99;
        d.in_ack_event(&tp, 1, 0);
        assert_eq!(d.alpha, 1024);
        // Unmarked windows, g = 1/16: α ← α − α/16 in integers (1024, 960,
        // 900, …) until α < 16, when min_not_zero(α, 0) = α takes it to 0 in
        // one window (Linux tcp_dctcp.c dctcp_update_alpha). Expected:
        // the kernel's integer rule applied by hand, and the window count
        // it gives.
        tp.delivered_ce = 0;
        tp.delivered = 0;
        d.reset(&tp);
        let mut want = vec![1024u32];
        while *want.last().unwrap() >= 16 {
            let a = *want.last().unwrap();
            want.push(a - (a >> 4));
        }
        want.push(0);
        let mut got = vec![d.alpha];
        while d.alpha != 0 && got.len() < 500 {
            window(&mut d, &mut tp, 100, 0);
            got.push(d.alpha);
        }
        assert_eq!(got, want);
        assert!(want[want.len() - 2] < 16 && want[want.len() - 2] > 1, "the last step drops more than one");
    }

    #[test]
    fn reductions_follow_alpha_and_loss_halves() {
        let mut d = Dctcp::new(&defaults("dctcp"));
        let mut tp = state(100, u32::MAX);
        d.init(&mut tp);
        // α = 1: cwnd·(1 − 1/2) = 50.
        assert_eq!(d.ssthresh(&tp), 50);
        // α = 1/4 (256): 100 − 100·256/2048 = 100 − 12 = 88.
        d.alpha = 256;
        assert_eq!(d.ssthresh(&tp), 88);
        d.alpha = 0;
        assert_eq!(d.ssthresh(&state(3, 1)), 3);
        assert_eq!(d.ssthresh(&state(2, 1)), 2);
        // Entering Recovery overrides the α-based value with Reno's half.
        d.alpha = 256;
        tp.ssthresh = d.ssthresh(&tp);
        d.set_state(&mut tp, CaState::Recovery);
        assert_eq!(tp.ssthresh, 50);
        // ...only on entry, not on a repeated Recovery notification.
        tp.ca_state = CaState::Recovery;
        tp.ssthresh = 77;
        d.set_state(&mut tp, CaState::Recovery);
        assert_eq!(tp.ssthresh, 77);
        // An RTO (CA_EVENT_LOSS) halves too, and undo restores the window before it.
        tp.cwnd = 60;
        d.cwnd_event(&mut tp, CwndEvent::Loss);
        assert_eq!(tp.ssthresh, 30);
        tp.cwnd = 1;
        assert_eq!(d.undo_cwnd(&tp), 60);
    }
}
