//! HighSpeed TCP.
//!
//! Follows: RFC 3649 (Floyd 2003). Above Low_Window the window grows by
//! a(w)/w per acknowledged segment and falls to (1 − b(w))·w on a loss, with
//! the response function p(w) a straight line in log-log space through
//! (Low_Window, Low_P) and (High_Window, High_P), b(w) linear in ln w from
//! 0.5 at Low_Window to High_Decrease at High_Window, and
//! a(w) = w²·p(w)·2·b(w)/(2 − b(w)). With the RFC's constants this gives
//! w = 0.12/p^0.835.
//!
//! Two ways to evaluate a(w) and b(w) (`table`):
//!   `linux`   — Linux net/ipv4/tcp_highspeed.c (6.x): the 72-row table of
//!               RFC 3649 Appendix B, a = row index + 1 for the whole
//!               interval (w_{i−1}, w_i], b = md/256; the row used at a loss
//!               is the one cached by the last avoidance step. Low_Window is
//!               the table's 38 and cannot change.
//!   `formula` — the RFC's continuous functions with the four constants as
//!               parameters, Low_P = 10⁻³ by default (standard TCP's
//!               loss rate at w = 38) and 1.5/Low_Window² in the `ns2`
//!               and `choi2004` presets, as ns-2's `windowOption_ 8`
//!               computes it. Choi, Lee, Cho & Han 2004 use Low_Window 31.
//! Slow start is standard (no RFC 3742 limited slow start).
//!
//! `first_decrease = "half"` (the `ns2` and `choi2004` presets): ns-2's
//! `TcpAgent::slowdown` (tcp/tcp.cc, 2.27 and 2.35) sets ssthresh and cwnd
//! to ⌊w/2⌋ instead of (1 − b(w))·w on the connection's first decrease
//! (first_decrease_), on any decrease in slow start (cwnd < ssthresh) and,
//! for ssthresh, on every timeout (last_cwnd_action_ == TIMEOUT). After a
//! timeout ns-2 keeps cwnd at (1 − b)·w for a later fast retransmit but
//! ssthresh at w/2 only then; ccsim's recovery ends at ssthresh either way.
//!
//! Deviations: none known for `linux`; in `formula`, ns-2 keeps cwnd as a
//! real number, we keep whole segments and carry the fraction in a counter.

use super::params::{choice, int, num, AlgoSpec, Lit, Params, Preset, RecoveryFlavour};
use super::{cong_avoid_ai, slow_start, CcState, CongestionOps};

pub const SPEC: AlgoSpec = AlgoSpec {
    name: "highspeed",
    source: "RFC 3649; Linux net/ipv4/tcp_highspeed.c (6.x); ns-2 windowOption 8",
    params: &[
        choice(
            "table",
            &["linux", "formula"],
            "linux",
            "a(w), b(w) from Linux's 72-row table or from the RFC formulas",
        ),
        int("low_window", 38.0, 2.0, 1e9, "Low_Window (formula only): standard TCP at or below it"),
        int("high_window", 83000.0, 3.0, 1e12, "High_Window (formula only)"),
        num("low_p", 1e-3, 1e-12, 0.5, "Low_P, loss rate at Low_Window (formula only; ns-2 uses 1.5/Low_Window²)"),
        num("high_p", 1e-7, 1e-15, 0.5, "High_P, loss rate at High_Window (formula only)"),
        num("high_decrease", 0.1, 0.001, 0.5, "High_Decrease, b at High_Window (formula only)"),
        choice(
            "first_decrease",
            &["b", "half"],
            "b",
            "'b': every decrease is b(w) (RFC 3649, Linux); 'half': halve on the first decrease, in slow start \
             and on timeouts (ns-2 slowdown)",
        ),
    ],
    presets: &[
        Preset { name: "linux", doc: "Linux tcp_highspeed.c table", values: &[] },
        Preset {
            name: "rfc3649",
            doc: "RFC 3649 formulas: Low_Window 38, Low_P 1e-3",
            values: &[("table", Lit::S("formula"))],
        },
        Preset {
            name: "ns2",
            doc: "ns-2 windowOption 8: Low_Window 38, Low_P = 1.5/38², first decrease halved",
            values: &[
                ("table", Lit::S("formula")),
                ("low_p", Lit::N(1.5 / (38.0 * 38.0))),
                ("first_decrease", Lit::S("half")),
            ],
        },
        Preset {
            name: "choi2004",
            doc: "Choi, Lee, Cho & Han 2004 (ns-2): Low_Window 31, Low_P = 1.5/31², first decrease halved",
            values: &[
                ("table", Lit::S("formula")),
                ("low_window", Lit::N(31.0)),
                ("low_p", Lit::N(1.5 / (31.0 * 31.0))),
                ("first_decrease", Lit::S("half")),
            ],
        },
    ],
    recovery: RecoveryFlavour::NewReno,
    ecn: None,
    ack_hooks: false,
    build: |p, _| Box::new(HighSpeed::new(p)),
};

/// RFC 3649 Appendix B as carried by Linux: (upper cwnd bound, md·256).
pub const AIMD: [(u32, u32); 72] = [
    (38, 128),
    (118, 112),
    (221, 104),
    (347, 98),
    (495, 93),
    (663, 89),
    (851, 86),
    (1058, 83),
    (1284, 81),
    (1529, 78),
    (1793, 76),
    (2076, 74),
    (2378, 72),
    (2699, 71),
    (3039, 69),
    (3399, 68),
    (3778, 66),
    (4177, 65),
    (4596, 64),
    (5036, 62),
    (5497, 61),
    (5979, 60),
    (6483, 59),
    (7009, 58),
    (7558, 57),
    (8130, 56),
    (8726, 55),
    (9346, 54),
    (9991, 53),
    (10661, 52),
    (11358, 52),
    (12082, 51),
    (12834, 50),
    (13614, 49),
    (14424, 48),
    (15265, 48),
    (16137, 47),
    (17042, 46),
    (17981, 45),
    (18955, 45),
    (19965, 44),
    (21013, 43),
    (22101, 43),
    (23230, 42),
    (24402, 41),
    (25618, 41),
    (26881, 40),
    (28193, 39),
    (29557, 39),
    (30975, 38),
    (32450, 38),
    (33986, 37),
    (35586, 36),
    (37253, 36),
    (38992, 35),
    (40808, 35),
    (42707, 34),
    (44694, 33),
    (46776, 33),
    (48961, 32),
    (51258, 32),
    (53677, 31),
    (56230, 30),
    (58932, 30),
    (61799, 29),
    (64851, 28),
    (68113, 28),
    (71617, 27),
    (75401, 26),
    (79517, 26),
    (84035, 25),
    (89053, 24),
];

/// The RFC's continuous response: p(w), b(w), a(w).
#[derive(Clone, Copy, Debug)]
pub struct Rfc {
    pub low_window: f64,
    pub low_p: f64,
    pub high_window: f64,
    pub high_p: f64,
    pub high_decrease: f64,
}

impl Rfc {
    /// Loss rate at which the average window is w (log-log line).
    pub fn p(&self, w: f64) -> f64 {
        let (lw, hw) = (self.low_window.ln(), self.high_window.ln());
        let (lp, hp) = (self.low_p.ln(), self.high_p.ln());
        (lp + (w.ln() - lw) * (hp - lp) / (hw - lw)).exp()
    }
    pub fn b(&self, w: f64) -> f64 {
        (self.high_decrease - 0.5) * (w.ln() - self.low_window.ln()) / (self.high_window.ln() - self.low_window.ln())
            + 0.5
    }
    pub fn a(&self, w: f64) -> f64 {
        let b = self.b(w);
        w * w * self.p(w) * 2.0 * b / (2.0 - b)
    }
}

pub struct HighSpeed {
    rfc: Option<Rfc>,
    /// Linux: cached table row.
    ai: usize,
    /// Formula: fractional growth in segments·cwnd units.
    acc: f64,
    /// `first_decrease = "half"`: ns-2's slowdown rule.
    halve_first: bool,
    /// ns-2 first_decrease_ is spent (any ssthresh computed).
    decreased: bool,
}

impl HighSpeed {
    pub fn new(p: &Params) -> Self {
        let rfc = (p.text("table") == "formula").then(|| Rfc {
            low_window: p.num("low_window"),
            low_p: p.num("low_p"),
            high_window: p.num("high_window"),
            high_p: p.num("high_p"),
            high_decrease: p.num("high_decrease"),
        });
        HighSpeed { rfc, ai: 0, acc: 0.0, halve_first: p.text("first_decrease") == "half", decreased: false }
    }

    /// Linux: move `ai` so that AIMD[ai-1].0 < cwnd <= AIMD[ai].0.
    fn update_row(&mut self, cwnd: u32) {
        if cwnd > AIMD[self.ai].0 {
            while cwnd > AIMD[self.ai].0 && self.ai < AIMD.len() - 1 {
                self.ai += 1;
            }
        } else {
            while self.ai > 0 && cwnd <= AIMD[self.ai - 1].0 {
                self.ai -= 1;
            }
        }
    }
}

impl CongestionOps for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn var_names(&self) -> &'static [&'static str] {
        &["hs_a", "hs_b"]
    }

    fn vars(&self, tp: &CcState, out: &mut Vec<f64>) {
        // a(w): segments added per RTT; b(w): fraction removed at a loss.
        match self.rfc {
            // tcp_highspeed.c: cwnd_cnt grows by ai + 1 per ack; md / 256.
            // The row of the current window (Linux moves `ai` only in
            // congestion avoidance, so it lags in slow start).
            None => {
                let ai = AIMD.iter().position(|&(w, _)| tp.cwnd <= w).unwrap_or(AIMD.len() - 1);
                out.extend([(ai + 1) as f64, AIMD[ai].1 as f64 / 256.0])
            }
            Some(r) => {
                let w = tp.cwnd as f64;
                if w <= r.low_window {
                    out.extend([1.0, 0.5])
                } else {
                    out.extend([r.a(w), r.b(w)])
                }
            }
        }
    }

    fn init(&mut self, tp: &mut CcState) {
        // Keep the MD arithmetic in range, as Linux does.
        tp.cwnd_clamp = tp.cwnd_clamp.min(u32::MAX / 128);
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        let w = tp.cwnd;
        let first = !std::mem::replace(&mut self.decreased, true);
        if self.halve_first && (first || tp.in_slow_start()) {
            return (w / 2).max(2);
        }
        match self.rfc {
            None => (w - ((w as u64 * AIMD[self.ai].1 as u64) >> 8) as u32).max(2),
            Some(r) => {
                if (w as f64) <= r.low_window {
                    tp.half_window()
                } else {
                    ((w as f64 * (1.0 - r.b(w as f64))).floor() as u32).max(2)
                }
            }
        }
    }

    fn cwnd_event(&mut self, tp: &mut CcState, ev: super::CwndEvent) {
        // ns-2 timeout(): last_cwnd_action_ = TIMEOUT before slowdown, so
        // ssthresh is ⌊w/2⌋ whatever b(w) (cwnd not yet cut here).
        if self.halve_first && ev == super::CwndEvent::Loss {
            tp.ssthresh = (tp.cwnd / 2).max(2);
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        if tp.in_slow_start() {
            match self.rfc {
                // Linux drops the acks left over when slow start ends.
                None => {
                    slow_start(tp, acked);
                    return;
                }
                Some(_) => {
                    let left = slow_start(tp, acked);
                    if left == 0 {
                        return;
                    }
                    return self.cong_avoid(tp, left);
                }
            }
        }
        match self.rfc {
            None => {
                self.update_row(tp.cwnd);
                if tp.cwnd < tp.cwnd_clamp {
                    // cwnd += a(w)/cwnd per acked segment, a = row + 1.
                    tp.cwnd_cnt += (self.ai as u32 + 1) * acked;
                    while tp.cwnd_cnt >= tp.cwnd {
                        tp.cwnd_cnt -= tp.cwnd;
                        tp.cwnd += 1;
                    }
                }
            }
            Some(r) => {
                let w = tp.cwnd as f64;
                if w <= r.low_window {
                    let c = tp.cwnd;
                    cong_avoid_ai(tp, c, acked);
                    return;
                }
                self.acc += r.a(w) * acked as f64;
                while self.acc >= tp.cwnd as f64 && tp.cwnd < tp.cwnd_clamp {
                    self.acc -= tp.cwnd as f64;
                    tp.cwnd += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{state, with};

    fn linux() -> HighSpeed {
        HighSpeed::new(&with("highspeed", None, &[]))
    }

    #[test]
    fn table_increment_matches_ns3_test_rows() {
        // ns-3 tcp-highspeed-test: with cwnd = w (CA) and a = a(w), acking
        // floor(w/a) + 1 segments raises cwnd to exactly w + 1.
        for (i, &(w, _)) in AIMD.iter().enumerate().take(71) {
            let a = i as u32 + 1;
            let mut h = linux();
            let mut tp = state(w, 1);
            for _ in 0..(w / a + 1) {
                h.cong_avoid(&mut tp, 1);
            }
            assert_eq!(tp.cwnd, w + 1, "row {i} (w {w}, a {a})");
        }
    }

    #[test]
    fn table_decrease_vectors() {
        // docs/reference.md R4, Linux vectors from tcp_highspeed.c's table.
        for (w, want) in [
            (38, 19),
            (39, 22),
            (100, 57),
            (119, 71),
            (500, 327),
            (1000, 676),
            (5000, 3790),
            (10000, 7969),
            (100000, 90625),
        ] {
            let mut h = linux();
            let mut tp = state(w, 1);
            h.update_row(w); // the row a CA step at this cwnd would cache
            tp.cwnd = w;
            assert_eq!(h.ssthresh(&tp), want, "w {w}");
        }
    }

    #[test]
    fn rfc_functions_match_reference_points() {
        let r = Rfc { low_window: 38.0, low_p: 1e-3, high_window: 83000.0, high_p: 1e-7, high_decrease: 0.1 };
        // docs/reference.md R4: a, b at table points (from p = 0.078/w^1.2;
        // the line through (38, 1e-3) and (83000, 1e-7) has exponent
        // −1.1978, so allow 3 %).
        for (w, a, b) in [
            (118.0, 2.006, 0.441),
            (221.0, 3.005, 0.408),
            (1058.0, 8.011, 0.327),
            (10000.0, 29.02, 0.210),
            (84035.0, 70.96, 0.0994),
        ] {
            assert!((r.b(w) - b).abs() < 0.002, "b({w}) = {}", r.b(w));
            assert!((r.a(w) - a).abs() / a < 0.03, "a({w}) = {}", r.a(w));
        }
        // Response function w = 0.12/p^0.835 (RFC 3649 §5).
        for (p, w) in [(1e-4, 262.5), (1e-5, 1795.5), (1e-6, 12279.5)] {
            let solved = bisect(|x| r.p(x) - p, 38.0, 1e7);
            assert!((solved - w).abs() / w < 0.03, "p {p}: {solved} vs {w}");
        }
    }

    #[test]
    fn ns2_presets_halve_the_first_decrease_in_slow_start_and_on_timeouts() {
        // ns-2 TcpAgent::slowdown (tcp/tcp.cc at the ns-2.27 release): ssthresh_
        // and cwnd_ = halfwin = ⌊w/2⌋ while first_decrease_ == 1 or cwnd_ <
        // ssthresh_, decreasewin = ⌊w − b(w)·w⌋ otherwise; timeout() sets
        // last_cwnd_action_ = TIMEOUT first, so its ssthresh is halfwin too.
        // Choi et al. 2004's constants (Low_Window 31): a first loss at cwnd
        // 4955 gives 2477 in ns-2, where b(w) alone gives 3751.
        let w = 4955;
        let mut h = HighSpeed::new(&with("highspeed", Some("choi2004"), &[]));
        let ca = state(w, 1);
        assert_eq!(h.ssthresh(&ca), 2477);
        assert_eq!(h.ssthresh(&ca), 3751);
        assert_eq!(h.ssthresh(&state(w, 10_000)), 2477, "a decrease in slow start");
        let mut tp = state(w, 1);
        tp.ssthresh = h.ssthresh(&tp);
        assert_eq!(tp.ssthresh, 3751);
        h.cwnd_event(&mut tp, crate::cc::CwndEvent::Loss);
        assert_eq!(tp.ssthresh, 2477, "a timeout");
        // RFC 3649 and Linux: b(w) from the first decrease on, timeouts too.
        let mut rfc = HighSpeed::new(&with(
            "highspeed",
            Some("choi2004"),
            &[("first_decrease", crate::cc::params::Value::Str("b".into()))],
        ));
        assert_eq!(rfc.ssthresh(&ca), 3751);
        let mut tp = state(w, 1);
        tp.ssthresh = rfc.ssthresh(&tp);
        rfc.cwnd_event(&mut tp, crate::cc::CwndEvent::Loss);
        assert_eq!(tp.ssthresh, 3751);
        // The ns2 preset (Low_Window 38) takes the same rule.
        assert_eq!(HighSpeed::new(&with("highspeed", Some("ns2"), &[])).ssthresh(&ca), 2477);
    }

    fn bisect(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
        for _ in 0..200 {
            let m = (lo * hi).sqrt();
            if f(m) > 0.0 {
                lo = m;
            } else {
                hi = m;
            }
        }
        lo
    }

    #[test]
    fn formula_mode_per_rtt_growth_and_decrease() {
        let p = with("highspeed", Some("rfc3649"), &[]);
        let r = Rfc { low_window: 38.0, low_p: 1e-3, high_window: 83000.0, high_p: 1e-7, high_decrease: 0.1 };
        let mut h = HighSpeed::new(&p);
        let mut tp = state(1000, 1);
        for _ in 0..1000 {
            h.cong_avoid(&mut tp, 1);
        }
        // One window of ACKs adds about a(1000) segments.
        let a = r.a(1000.0);
        assert!((tp.cwnd as f64 - 1000.0 - a).abs() <= 1.0, "{} vs +{a}", tp.cwnd);
        tp.cwnd = 1000;
        assert_eq!(h.ssthresh(&tp), (1000.0 * (1.0 - r.b(1000.0))).floor() as u32);
        // At or below Low_Window: Reno.
        let mut tp = state(38, 1);
        tp.in_flight = 38;
        assert_eq!(h.ssthresh(&tp), 19);
        let p31 = with("highspeed", Some("choi2004"), &[]);
        assert_eq!(p31.num("low_window"), 31.0);
    }
}
