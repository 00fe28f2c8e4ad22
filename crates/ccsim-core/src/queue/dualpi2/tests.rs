//! DualPI2 against RFC 9332's formulas and Linux sch_dualpi2.c's rules,
//! worked by hand.
use super::*;
use crate::packet::PktKind;
use crate::rng::StreamKind;
use crate::units::PS_PER_MS;

fn params() -> DualPi2Cfg {
    // Linux dualpi2_reset_default: 15 ms, 16 ms, α = 41/256 Hz, β = 819/256
    // Hz, step 1 ms, k = 2, w_C = 10 %, drop on overload, drop at dequeue.
    DualPi2Cfg {
        limit_pkts: 10_000,
        target_ps: 15 * PS_PER_MS,
        t_update_ps: 16 * PS_PER_MS,
        alpha: 41.0 / 256.0,
        beta: 819.0 / 256.0,
        step_thresh_ps: PS_PER_MS,
        min_qlen_step: 0,
        coupling: 2.0,
        c_protection: 10,
        drop_overload: true,
        drop_early: false,
        ecn_mask: EcnMask::L4sEct,
        mtu: 1514,
    }
}

#[test]
fn the_declared_defaults_are_linuxs() {
    assert_eq!(DualPi2Cfg { limit_pkts: 10_000, ..DualPi2Cfg::default() }, params());
}

fn q(p: DualPi2Cfg) -> DualPi2 {
    DualPi2::new(p, Stream::new(5, StreamKind::Queue, 0))
}

fn pkt(ecn: Ecn, size: u32) -> Packet {
    let mut p = Packet::new(PktKind::Data, 0, 0, 0, size, 0);
    p.ecn = ecn;
    p
}

#[test]
fn pi_update_follows_the_rfc_formula_by_hand() {
    // p' += α·(qdelay − target) + β·(qdelay − qdelay_prev), in [0, 1].
    let mut d = q(params());
    d.pi_update(20 * PS_PER_MS);
    // 0.16015625·0.005 + 3.19921875·0.020 = 0.00080078125 + 0.063984375
    assert!((d.base_prob() - 0.06478515625).abs() < 1e-12, "{}", d.base_prob());
    d.pi_update(20 * PS_PER_MS);
    assert!((d.base_prob() - 0.0655859375).abs() < 1e-12);
    // 10 ms: −0.00080078125 − 0.031992187 5
    d.pi_update(10 * PS_PER_MS);
    assert!((d.base_prob() - 0.03279296875).abs() < 1e-12);
    // Far below target: never below 0.
    d.pi_update(0);
    d.pi_update(0);
    assert_eq!(d.base_prob(), 0.0);
    // Without drop on overload p' is capped at 1/k.
    let mut d = q(DualPi2Cfg { drop_overload: false, ..params() });
    for _ in 0..100 {
        d.pi_update(500 * PS_PER_MS);
    }
    assert_eq!(d.base_prob(), 0.5);
}

#[test]
fn the_timer_runs_every_t_update_on_the_larger_head_delay() {
    // One C packet waits from t = 0: the updates at 16, 32 and 48 ms see
    // head delays 16, 32 and 48 ms (the L queue is empty).
    let mut d = q(params());
    let mut drops = Vec::new();
    d.enqueue(0, pkt(Ecn::NotEct, 1500), &mut drops);
    d.catch_up(48 * PS_PER_MS);
    let (a, b, t) = (41.0 / 256.0, 819.0 / 256.0, 0.015);
    let mut p: f64 = 0.0;
    let mut last = 0.0;
    for qd in [0.016, 0.032, 0.048] {
        p = (p + a * (qd - t) + b * (qd - last)).clamp(0.0, 1.0);
        last = qd;
    }
    assert!((d.base_prob() - p).abs() < 1e-12, "{} vs {p}", d.base_prob());
    assert!(drops.is_empty());
}

#[test]
fn classification_by_the_ecn_field() {
    let d = q(params());
    assert!(d.is_l4s(Ecn::Ect1) && d.is_l4s(Ecn::Ce));
    assert!(!d.is_l4s(Ecn::Ect0) && !d.is_l4s(Ecn::NotEct));
    let any = q(DualPi2Cfg { ecn_mask: EcnMask::AnyEct, ..params() });
    assert!(any.is_l4s(Ecn::Ect0) && !any.is_l4s(Ecn::NotEct));
}

/// Fractions of packets marked and dropped at dequeue with p' fixed and a
/// standing backlog (updates pushed beyond the test).
fn fractions(p: f64, ecn: Ecn, n: usize) -> (f64, f64) {
    let mut d = q(DualPi2Cfg { t_update_ps: SimTime::MAX / 4, ..params() });
    d.next_update = SimTime::MAX / 2;
    d.prob = p;
    let mut drops = Vec::new();
    let (mut marked, mut dropped) = (0usize, 0usize);
    for _ in 0..n {
        // Keep 100 packets waiting so that even a run of drops in one
        // dequeue never brings the backlog under the 2·MTU floor.
        while d.len_pkts() < 100 {
            d.enqueue(0, pkt(ecn, 1500), &mut drops);
        }
        let before = drops.len();
        let out = d.dequeue(0, &mut drops).expect("backlogged");
        dropped += drops.len() - before;
        marked += (out.ecn == Ecn::Ce) as usize;
    }
    let total = (n + dropped) as f64;
    (marked as f64 / total, dropped as f64 / total)
}

fn within(got: f64, want: f64, n: usize) {
    let se = (want * (1.0 - want) / n as f64).sqrt();
    assert!((got - want).abs() <= 4.0 * se + 1e-9, "{got} vs {want} (±4·{se})");
}

#[test]
fn coupling_marks_l_with_k_p_and_c_with_p_squared() {
    // RFC 9332 §2.4: p_C = (p')², p_CL = k·p' with k = 2. p' = 0.3:
    // classic ECT(0) marked 9 %, Not-ECT dropped 9 %, L4S marked 60 %.
    let n = 100_000;
    let (m, d) = fractions(0.3, Ecn::Ect0, n);
    within(m, 0.09, n);
    assert_eq!(d, 0.0);
    let (m, d) = fractions(0.3, Ecn::NotEct, n);
    assert_eq!(m, 0.0);
    within(d, 0.09, n);
    let (m, d) = fractions(0.3, Ecn::Ect1, n);
    within(m, 0.6, n);
    assert_eq!(d, 0.0);
}

#[test]
fn overload_drops_l_with_p_squared_and_marks_the_rest() {
    // p' = 0.6: k·p' = 1.2 > 1. L4S packets are dropped with p'² = 0.36
    // and every other one is marked; classic ECT packets are dropped (not
    // marked) with 0.36.
    let n = 100_000;
    let (m, d) = fractions(0.6, Ecn::Ect1, n);
    within(d, 0.36, n);
    assert!((m + d - 1.0).abs() < 1e-9, "every L packet marked or dropped");
    let (m, d) = fractions(0.6, Ecn::Ect0, n);
    assert_eq!(m, 0.0);
    within(d, 0.36, n);
}

#[test]
fn no_pi_action_below_two_mtus_of_backlog() {
    let mut d = q(params());
    d.next_update = SimTime::MAX / 2;
    d.prob = 1.0;
    let mut drops = Vec::new();
    d.enqueue(0, pkt(Ecn::NotEct, 1500), &mut drops);
    d.enqueue(0, pkt(Ecn::NotEct, 1500), &mut drops);
    // At the first dequeue 1500 bytes remain (< 3028): nothing dropped.
    assert!(d.dequeue(0, &mut drops).is_some());
    assert!(d.dequeue(0, &mut drops).is_some());
    assert!(drops.is_empty());
}

#[test]
fn the_step_marks_l_packets_that_waited_longer_than_one_ms() {
    let mut d = q(params());
    let mut drops = Vec::new();
    d.enqueue(0, pkt(Ecn::Ect1, 1500), &mut drops);
    d.enqueue(0, pkt(Ecn::Ect1, 1500), &mut drops);
    d.enqueue(0, pkt(Ecn::NotEct, 1500), &mut drops); // C queue
    let first = d.dequeue(PS_PER_MS, &mut drops).unwrap(); // waited exactly 1 ms: not more
    assert_eq!(first.ecn, Ecn::Ect1);
    let second = d.dequeue(PS_PER_MS + 1, &mut drops).unwrap();
    assert_eq!(second.ecn, Ecn::Ce);
    // A C packet is never step-marked.
    let third = d.dequeue(10 * PS_PER_MS, &mut drops).unwrap();
    assert_eq!(third.ecn, Ecn::NotEct);
    assert!(drops.is_empty());
    assert_eq!(d.marks(), 1);
}

#[test]
fn wrr_gives_the_c_queue_its_protected_share() {
    // Both queues backlogged with equal packets: each L send adds
    // w_C·size, each C send takes w_L·size, so L:C = w_L:w_C = 90:10.
    let mut d = q(params());
    d.next_update = SimTime::MAX / 2;
    let mut drops = Vec::new();
    for _ in 0..2000 {
        d.enqueue(0, pkt(Ecn::Ect1, 1500), &mut drops);
        d.enqueue(0, pkt(Ecn::NotEct, 1500), &mut drops);
    }
    let l = (0..1000).filter(|_| d.dequeue(0, &mut drops).unwrap().ecn == Ecn::Ect1).count();
    assert!((899..=901).contains(&l), "{l}");
    // With C empty, L alone is served and the credit stays put.
    let mut d = q(params());
    d.enqueue(0, pkt(Ecn::Ect1, 1500), &mut drops);
    d.dequeue(0, &mut drops).unwrap();
    assert_eq!(d.credit, d.credit_init);
}

#[test]
fn the_limit_counts_both_queues() {
    let mut d = q(DualPi2Cfg { limit_pkts: 3, ..params() });
    let mut drops = Vec::new();
    for e in [Ecn::Ect1, Ecn::NotEct, Ecn::Ect1, Ecn::NotEct] {
        d.enqueue(0, pkt(e, 1500), &mut drops);
    }
    assert_eq!(d.len_pkts(), 3);
    assert_eq!(drops.len(), 1);
}
