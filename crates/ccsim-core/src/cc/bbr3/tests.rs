//! Network-free BBRv3 tests. Every expectation is the v3 kernel's constant
//! or formula worked by hand (Linux fixed point, BBR_UNIT = 256), or a
//! transition the kernel's state machine makes, driven by the fluid pipe of
//! `cc::testkit`.

use super::*;
use crate::cc::testkit::{defaults, state, step, Pipe};
use crate::rng::StreamKind;
use crate::units::PS_PER_MS;

fn bbr3() -> Bbr3 {
    Bbr3::new(&defaults("bbr3"), Stream::new(7, StreamKind::Cc, 0))
}

fn run_until(x: &mut Bbr3, tp: &mut CcState, p: &Pipe, until: SimTime, mut f: impl FnMut(&Bbr3, &CcState)) {
    let mut inflight = tp.pipe as f64;
    while tp.now < until {
        step(x, tp, p, &mut inflight);
        f(x, tp);
    }
}

fn ecn_low_params() -> Params {
    let o = std::collections::BTreeMap::from([("ecn_low".to_string(), crate::cc::params::Value::Bool(true))]);
    crate::cc::params::resolve(&SPEC, None, &o).unwrap()
}

/// 10 Mb/s of 1250-byte segments = 1000 segments/s, min RTT 40 ms: BDP 40.
const PIPE: Pipe = Pipe { b: 1000.0, t: 40 * PS_PER_MS };

#[test]
fn constants_are_the_kernels_fixed_point_values() {
    let x = bbr3();
    // static const int bbr_startup_pacing_gain = BBR_UNIT * 277 / 100 + 1;
    assert_eq!(x.startup_pacing_gain * 256.0, (256 * 277 / 100 + 1) as f64);
    // bbr_drain_gain = BBR_UNIT * 1000 / 2885
    assert_eq!(x.drain_gain * 256.0, (256 * 1000 / 2885) as f64);
    // bbr_pacing_gain[] = { 5/4, 91/100, 1, 1 } (UP, DOWN, CRUISE, REFILL)
    assert_eq!((x.gain_up * 256.0, x.gain_down * 256.0), ((256 * 5 / 4) as f64, (256 * 91 / 100) as f64));
    // bbr_beta = BBR_UNIT * 30 / 100; bbr_loss_thresh = BBR_UNIT * 2 / 100;
    // bbr_inflight_headroom = BBR_UNIT * 15 / 100; bbr_ecn_factor = BBR_UNIT / 3
    assert_eq!(x.beta * 256.0, (256 * 30 / 100) as f64);
    assert_eq!(x.loss_thresh * 256.0, (256 * 2 / 100) as f64);
    assert_eq!(x.headroom * 256.0, (256 * 15 / 100) as f64);
    assert_eq!(x.ecn_factor * 256.0, (256 / 3) as f64);
    assert_eq!((x.ecn_thresh, x.full_loss_cnt, x.full_ecn_cnt), (0.5, 6, 2));
    assert_eq!((x.probe_max_rounds, x.probe_base, x.probe_rand), (63, 2 * PS_PER_S, PS_PER_S));
    assert_eq!((x.probe_rtt_win, x.probe_rtt_time, x.min_rtt_win), (5 * PS_PER_S, 200 * PS_PER_MS, 10 * PS_PER_S));
    assert_eq!((x.probe_rtt_cwnd_gain, x.cwnd_min, x.ecn_max_rtt), (0.5, 4, 5 * PS_PER_MS));
}

#[test]
fn gains_per_mode_and_phase() {
    let mut x = bbr3();
    let mut tp = state(10, u32::MAX);
    x.init(&mut tp);
    let mut seen = std::collections::BTreeSet::new();
    run_until(&mut x, &mut tp, &PIPE, 8 * PS_PER_S, |x, _| {
        seen.insert(x.phase_name());
        let expect = match (x.mode, x.cycle_idx) {
            (Mode::Startup, _) => (710.0 / 256.0, 2.0),
            (Mode::Drain, _) => (88.0 / 256.0, 2.0),
            (Mode::ProbeRtt, _) => (1.0, 1.0),
            (Mode::ProbeBw, Phase::Up) => (1.25, 2.25),
            (Mode::ProbeBw, Phase::Down) => (232.0 / 256.0, 2.0),
            (Mode::ProbeBw, _) => (1.0, 2.0),
        };
        assert_eq!((x.pacing_gain, x.cwnd_gain), expect, "{}", x.phase_name());
    });
    for p in ["startup", "drain", "probe_bw_down", "probe_bw_cruise", "probe_bw_refill", "probe_bw_up", "probe_rtt"] {
        assert!(seen.contains(p), "never in {p}: {seen:?}");
    }
    assert!((x.max_bw() - 1000.0).abs() < 15.0, "bw {}", x.max_bw());
    assert_eq!(x.min_rtt(), Some(40 * PS_PER_MS));
}

#[test]
fn probe_bw_cycle_order_and_probe_spacing() {
    // DOWN → CRUISE → REFILL → UP → DOWN; REFILL lasts one round; a probe
    // starts 2–3 s after the last one began DOWN (bbr_pick_probe_wait) or
    // after min(63, BDP-ish) rounds: with an inflight target of about 40
    // segments and 40 ms rounds that is ~1.6 s, so the Reno clock decides.
    let mut x = bbr3();
    let mut tp = state(10, u32::MAX);
    x.init(&mut tp);
    run_until(&mut x, &mut tp, &PIPE, PS_PER_S, |_, _| {});
    assert_eq!(x.mode, Mode::ProbeBw);
    let mut phases = vec![(x.cycle_idx, tp.now)];
    run_until(&mut x, &mut tp, &PIPE, 20 * PS_PER_S, |x, tp| {
        if x.mode == Mode::ProbeBw && x.cycle_idx != phases.last().unwrap().0 {
            phases.push((x.cycle_idx, tp.now));
        }
    });
    let next = |p: Phase| match p {
        Phase::Down => [Phase::Cruise, Phase::Refill],
        Phase::Cruise => [Phase::Refill, Phase::Refill],
        Phase::Refill => [Phase::Up, Phase::Up],
        Phase::Up => [Phase::Down, Phase::Down],
    };
    for w in phases.windows(2) {
        assert!(next(w[0].0).contains(&w[1].0), "{:?} → {:?}", w[0].0, w[1].0);
    }
    let s = PS_PER_S as f64;
    let downs: Vec<f64> = phases.iter().filter(|p| p.0 == Phase::Down).map(|p| p.1 as f64 / s).collect();
    let refills: Vec<f64> = phases.iter().filter(|p| p.0 == Phase::Refill).map(|p| p.1 as f64 / s).collect();
    assert!(refills.len() >= 4, "{phases:?}");
    assert!(refills.iter().filter(|r| downs.iter().any(|d| d < r)).count() >= 4, "{phases:?}");
    for r in &refills {
        let Some(d) = downs.iter().rev().find(|d| *d < r) else { continue };
        let wait = r - d;
        // Reno clock: rounds_since_probe starts at 0 or 1 and needs ~41 rounds of ≥ 40 ms.
        assert!((1.5..=3.05).contains(&wait), "probe {wait:.2} s after DOWN began; {downs:?} {refills:?}");
    }
}

#[test]
fn probe_rtt_every_five_seconds_at_half_the_bdp() {
    let mut x = bbr3();
    let mut tp = state(10, u32::MAX);
    x.init(&mut tp);
    let mut entered = vec![];
    let mut prev = x.mode;
    run_until(&mut x, &mut tp, &PIPE, 16 * PS_PER_S, |x, tp| {
        if x.mode == Mode::ProbeRtt && prev != Mode::ProbeRtt {
            entered.push(tp.now as f64 / PS_PER_S as f64);
        }
        if x.mode == Mode::ProbeRtt {
            // bbr_probe_rtt_cwnd: max(4, ceil(0.5 · bw · 0.04)), 20 at
            // 1000 segments/s; the fluid pipe's estimate is within 1.5 %, so
            // 20 or 21 (v1 would hold 4).
            assert!(tp.cwnd <= 21, "cwnd {} in PROBE_RTT", tp.cwnd);
        }
        prev = x.mode;
    });
    assert_eq!(entered.len(), 3, "{entered:?}");
    for w in entered.windows(2) {
        // 5 s after the last sample at min RTT (taken on leaving PROBE_RTT).
        assert!((w[1] - w[0] - 5.0).abs() < 0.5, "{entered:?}");
    }
    assert!((20..=21).contains(&x.probe_rtt_cwnd()), "{}", x.probe_rtt_cwnd());
}

#[test]
fn loss_threshold_is_two_percent_of_the_flight() {
    let x = bbr3();
    // loss_thresh = tx_in_flight · 5 >> 8: 100 in flight → 1, so 1 lost is
    // not too high and 2 are.
    let v = |lost, tx_in_flight| LossView { lost, tx_in_flight, ..Default::default() };
    assert!(!x.is_inflight_too_high(&v(1, 100)));
    assert!(x.is_inflight_too_high(&v(2, 100)));
    // 1000 in flight → 19.
    assert!(!x.is_inflight_too_high(&v(19, 1000)));
    assert!(x.is_inflight_too_high(&v(20, 1000)));
    // No flight recorded (a segment never sampled): never too high.
    assert!(!x.is_inflight_too_high(&v(50, 0)));
}

#[test]
fn inflight_hi_from_a_lost_segment_worked_by_hand() {
    let x = bbr3();
    let v = |lost, tx_in_flight| LossView { lost, tx_in_flight, ..Default::default() };
    // inflight_prev 200, lost_prev 1: budget = (200·5 + 255) >> 8 = 4;
    // prefix = ((4 − 1) << 8) / (256 − 5) = 768 / 251 = 3 → 203.
    assert_eq!(x.inflight_hi_from_lost_skb(&v(2, 201)), 203);
    // inflight_prev 100, lost_prev 2 ≥ budget (755 >> 8 = 2): prefix 0 → 100.
    assert_eq!(x.inflight_hi_from_lost_skb(&v(3, 101)), 100);
    // inflight_prev 1000, lost_prev 0: budget (5255 >> 8) = 20;
    // prefix = 5120 / 251 = 20 → 1020.
    assert_eq!(x.inflight_hi_from_lost_skb(&v(1, 1001)), 1020);
}

#[test]
fn a_lossy_probe_ends_at_once_and_sets_inflight_hi() {
    let mut x = bbr3();
    let mut tp = state(10, u32::MAX);
    x.init(&mut tp);
    run_until(&mut x, &mut tp, &PIPE, 12 * PS_PER_S, |_, _| {});
    // Run on to the next PROBE_UP.
    let mut inflight = tp.pipe as f64;
    while !(x.mode == Mode::ProbeBw && x.cycle_idx == Phase::Up) {
        step(&mut x, &mut tp, &PIPE, &mut inflight);
    }
    assert!(x.bw_probe_samples, "UP follows a round of REFILL");
    // A segment sent with 60 in flight is lost, the 3rd loss of its flight:
    // 3 > 60·5 >> 8 = 1, so inflight was too high.
    tp.lost += 3;
    x.skb_marked_lost(&tp, &LostSkb { tx_in_flight: 60, lost: 3, is_app_limited: false });
    // inflight_hi = max(59 + prefix, target · (1 − β)); prefix 0 since
    // lost_prev 2 ≥ budget (59·5 + 255) >> 8 = 2.
    let target = x.target_inflight(&tp);
    assert_eq!(x.inflight_hi, 59.max((target as f64 * (1.0 - 76.0 / 256.0)) as u32));
    assert_eq!((x.mode, x.cycle_idx), (Mode::ProbeBw, Phase::Down));
    assert!(x.prev_probe_too_high && !x.bw_probe_samples, "react once per probe");
}

#[test]
fn a_lossy_round_while_cruising_cuts_the_lower_bounds_by_beta() {
    let mut x = bbr3();
    let mut tp = state(10, u32::MAX);
    x.init(&mut tp);
    run_until(&mut x, &mut tp, &PIPE, PS_PER_S, |_, _| {});
    let mut inflight = tp.pipe as f64;
    while !(x.mode == Mode::ProbeBw && x.cycle_idx == Phase::Cruise) {
        step(&mut x, &mut tp, &PIPE, &mut inflight);
    }
    assert_eq!((x.inflight_lo, x.bw_lo), (NO_BOUND, f64::INFINITY));
    // One loss reported on an ACK; the cut happens at the next loss round.
    let mut rs = RateSample {
        delivered: Some(40),
        delivered_count: 40,
        interval: 40 * PS_PER_MS,
        acked_sacked: 1,
        losses: 1,
        prior_in_flight: 40,
        tx_in_flight: 40,
        prior_delivered: tp.delivered - 40,
        ..Default::default()
    };
    x.loss_round_delivered = u64::MAX; // not yet a new loss round
    tp.delivered += 1;
    x.cong_control(&mut tp, &rs);
    assert!(x.loss_in_round);
    let (cwnd, bw_latest, inflight_latest, max_bw) = (tp.cwnd, x.bw_latest, x.inflight_latest, x.max_bw());
    x.loss_round_delivered = 0; // the next ACK starts a loss round
    rs.losses = 0;
    tp.delivered += 1;
    x.cong_control(&mut tp, &rs);
    // bbr_loss_lower_bounds from the bounds bbr_init_lower_bounds set:
    // inflight_lo = max(inflight_latest, cwnd · 180 >> 8), bw_lo likewise.
    let cut = 1.0 - 76.0 / 256.0;
    assert_eq!(x.inflight_lo, inflight_latest.max((cwnd as f64 * cut) as u32));
    assert!((x.bw_lo - bw_latest.max(max_bw * cut)).abs() < 1e-9);
    assert!(tp.cwnd <= x.inflight_lo, "cwnd {} bounded by inflight_lo {}", tp.cwnd, x.inflight_lo);
}

#[test]
fn ecn_needs_a_shallow_threshold_route_and_a_short_rtt() {
    let p = defaults("bbr3");
    let mut tp = state(10, u32::MAX);
    tp.ecn_ok = true;
    tp.min_rtt = Some(2 * PS_PER_MS);
    tp.delivered = 100;
    tp.delivered_ce = 50;
    // Default: no ecn_low route, so ECN is ignored as in the kernel.
    let mut x = Bbr3::new(&p, Stream::new(7, StreamKind::Cc, 0));
    x.init(&mut tp);
    assert_eq!(x.update_ecn_alpha(&tp), None);
    let p = ecn_low_params();
    let mut x = Bbr3::new(&p, Stream::new(7, StreamKind::Cc, 0));
    x.init(&mut tp);
    // α starts at 1 (bbr_ecn_alpha_init); one round with half marked:
    // α = 15/16 · 1 + 1/16 · 1/2 = 31/32.
    assert_eq!(x.update_ecn_alpha(&tp), Some(0.5));
    assert_eq!(x.ecn_alpha, 31.0 / 32.0);
    // The ECN cut of inflight_lo: 1 − α · 85/256.
    assert!((x.ecn_cut() - (1.0 - 31.0 / 32.0 * 85.0 / 256.0)).abs() < 1e-12);
    // A 20 ms path is not eligible (bbr_ecn_max_rtt_us = 5000).
    tp.min_rtt = Some(20 * PS_PER_MS);
    let mut x = Bbr3::new(&p, Stream::new(7, StreamKind::Cc, 0));
    x.init(&mut tp);
    assert_eq!(x.update_ecn_alpha(&tp), None);
}

#[test]
fn startup_ends_on_two_rounds_of_high_ce() {
    let p = ecn_low_params();
    let mut x = Bbr3::new(&p, Stream::new(7, StreamKind::Cc, 0));
    let mut tp = state(10, u32::MAX);
    tp.ecn_ok = true;
    tp.min_rtt = Some(PS_PER_MS);
    x.init(&mut tp);
    x.inflight_latest = 30;
    for round in 1..=2 {
        tp.delivered += 100;
        tp.delivered_ce += 60; // 60 % ≥ ecn_thresh 50 %
        x.update_ecn_alpha(&tp);
        assert_eq!(x.full_bw_reached(), round == 2, "round {round}");
    }
    // bbr_handle_queue_too_high_in_startup: inflight_hi = max(BDP budget, inflight_latest).
    assert_eq!(x.inflight_hi, x.inflight(x.max_bw(), 1.0).max(30));
}

#[test]
fn undo_restores_the_bounds_saved_at_ssthresh() {
    let mut x = bbr3();
    let mut tp = state(50, u32::MAX);
    x.init(&mut tp);
    (x.bw_lo, x.inflight_lo, x.inflight_hi) = (900.0, 45, 60);
    assert_eq!(x.ssthresh(&tp), u32::MAX, "BBR's ssthresh does not cut");
    (x.bw_lo, x.inflight_lo, x.inflight_hi) = (600.0, 30, 40);
    x.undo_cwnd(&tp);
    assert_eq!((x.bw_lo, x.inflight_lo, x.inflight_hi), (900.0, 45, 60));
}

#[test]
fn tso_goal_is_the_kernels_sizing() {
    let mut x = bbr3();
    x.mss = 1448;
    // 100 Mb/s pacing: 12.5e6/1024 = 12207 bytes, plus 64 KB >> (40000 µs >> 9 = 78) = 0.
    x.pacing.rate = 12.5e6;
    x.min_rtt = 40 * PS_PER_MS;
    assert_eq!(x.tso_segs_goal(), 12207 / 1448);
    // 100 µs min RTT: r = 0, allowance 65536, capped at 65536 − 1 − 320.
    x.min_rtt = 100 * PS_PER_US;
    assert_eq!(x.tso_segs_goal(), (65536 - 1 - 320) / 1448);
    // Slow: at least sysctl_tcp_min_tso_segs = 2.
    x.pacing.rate = 1e4;
    x.min_rtt = 40 * PS_PER_MS;
    assert_eq!(x.tso_segs_goal(), 2);
}
