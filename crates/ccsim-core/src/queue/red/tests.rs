//! RED against its formulas (Floyd & Jacobson 1993; ns-2 red.cc).
use super::*;
use crate::packet::PktKind;
use crate::rng::StreamKind;

fn params() -> RedParams {
    RedParams {
        limit_pkts: Some(1000),
        limit_bytes: None,
        min_th: 5.0,
        max_th: 15.0,
        max_p: 0.1,
        w_q: 1.0, // avg = the waiting queue: the tests pin avg
        gentle: false,
        wait: false,
        bytes: false,
        mean_pktsize: 500,
        ecn: false,
        mark_p: None,
        mark_p_forced: false,
        adaptive: Adaptive::Off,
        link_bps: 10_000_000,
    }
}

fn red(p: RedParams) -> Red {
    Red::new(p, Stream::new(11, StreamKind::Queue, 0))
}

fn pkt(size: u32, ect: bool) -> Packet {
    let mut p = Packet::new(PktKind::Data, 0, 0, 0, size, 0);
    if ect {
        p.ecn = crate::packet::Ecn::Ect0;
    }
    p
}

fn q(n: u32) -> QueueState {
    QueueState { waiting_pkts: n, waiting_bytes: n as u64 * 500, idle: false, idle_since: 0, held_pkts: 0 }
}

/// Mean number of arrivals between early drops implied by the count
/// correction: P(gap > k) = Π_{j=1..k} (1 − p_a(j)), count restarting at 1
/// after a drop (ns-2).
fn expected_mean_gap(r: &Red, p_b: f64) -> f64 {
    let (mut surv, mut mean, mut k) = (1.0, 0.0, 1i64);
    while surv > 1e-15 {
        let pa = r.p_a(p_b, k, k * 500, 500);
        mean += k as f64 * surv * pa;
        surv *= 1.0 - pa;
        k += 1;
        assert!(k < 1_000_000);
    }
    mean
}

/// Drive `n` arrivals at a fixed queue and return the mean gap between
/// early drops (or marks) and how many there were.
fn measured_gap(r: &mut Red, queue: u32, n: usize, ect: bool, want: Verdict) -> (f64, usize) {
    let (mut last, mut gaps, mut sum) = (None, 0usize, 0usize);
    for i in 0..n {
        let v = r.admit(i as SimTime, q(queue), &pkt(500, ect));
        if v == want {
            if let Some(l) = last {
                sum += i - l;
                gaps += 1;
            }
            last = Some(i);
        } else {
            assert_eq!(v, Verdict::Enqueue);
        }
    }
    (sum as f64 / gaps as f64, gaps)
}

#[test]
fn p_b_follows_the_linear_and_gentle_ramps() {
    let r = red(params());
    assert!((r.p_b(10.0) - 0.05).abs() < 1e-12); // 0.1 · (10 − 5)/(15 − 5)
    assert!((r.p_b(5.0)).abs() < 1e-12);
    assert_eq!(r.p_b(15.0), 1.0); // non-gentle: forced above max_th
    let g = red(RedParams { gentle: true, ..params() });
    assert!((g.p_b(15.0) - 0.1).abs() < 1e-12);
    assert!((g.p_b(22.5) - 0.55).abs() < 1e-12); // 0.1 + 0.9 · 7.5/15
    assert_eq!(g.p_b(30.0), 1.0);
}

#[test]
fn p_a_count_correction_matches_the_paper_and_ns2_wait() {
    let r = red(params());
    assert!((r.p_a(0.05, 4, 0, 500) - 0.05 / 0.8).abs() < 1e-12);
    assert_eq!(r.p_a(0.05, 20, 0, 500), 1.0);
    let w = red(RedParams { wait: true, ..params() });
    assert_eq!(w.p_a(0.05, 19, 0, 500), 0.0); // count·p_b < 1
    assert!((w.p_a(0.05, 30, 0, 500) - 0.05 / 0.5).abs() < 1e-12); // p_b/(2 − 1.5)
    assert_eq!(w.p_a(0.05, 40, 0, 500), 1.0);
    // byte mode: count in mean-size packets, p scaled by size/mean
    let b = red(RedParams { bytes: true, ..params() });
    assert!((b.p_a(0.05, 0, 4 * 500, 1000) - 2.0 * 0.05 / 0.8).abs() < 1e-12);
}

#[test]
fn drop_rate_versus_average_queue_follows_the_formula() {
    // For several pinned averages, the mean gap between early drops must
    // match the count-corrected formula within 4 standard errors (the gap
    // is at most 2/p_b, so its s.d. is below 1/p_b).
    for (gentle, wait, queue) in
        [(false, false, 7u32), (false, false, 12), (false, true, 10), (true, true, 20), (true, false, 27)]
    {
        let mut r = red(RedParams { gentle, wait, ..params() });
        let p_b = r.p_b(queue as f64);
        let want = expected_mean_gap(&r, p_b);
        let (got, n) = measured_gap(&mut r, queue, 400_000, false, Verdict::Drop);
        let se = (1.0 / p_b) / (n as f64).sqrt();
        assert!((got - want).abs() < 4.0 * se, "gentle {gentle} wait {wait} q {queue}: gap {got} want {want} (n {n})");
    }
}

#[test]
fn ecn_capable_packets_are_marked_not_dropped_below_max_th() {
    let mut r = red(RedParams { ecn: true, ..params() });
    let p_b = r.p_b(10.0);
    let want = expected_mean_gap(&r, p_b);
    let (got, n) = measured_gap(&mut r, 10, 200_000, true, Verdict::Mark);
    assert!((got - want).abs() < 4.0 * (1.0 / p_b) / (n as f64).sqrt());
    // non-ECT packets are dropped at the same rate
    let mut r = red(RedParams { ecn: true, ..params() });
    let (got, n) = measured_gap(&mut r, 10, 200_000, false, Verdict::Drop);
    assert!((got - want).abs() < 4.0 * (1.0 / p_b) / (n as f64).sqrt());
    // above max_th (non-gentle) drops are forced, even for ECT packets
    let mut r = red(RedParams { ecn: true, ..params() });
    r.admit(0, q(16), &pkt(500, true));
    for i in 1..100 {
        assert_eq!(r.admit(i, q(16), &pkt(500, true)), Verdict::Drop);
    }
}

#[test]
fn mark_p_above_max_p_marks_in_the_gentle_region() {
    // Mišković, Petrović & Trajković 2004 (ns-2 use_mark_p_): with mark_p = 1 an ECT packet picked in
    // the gentle region (p_b in [max_p, 1)) is marked; with mark_p = max_p
    // it is dropped.
    for (mark_p, want) in [(1.0, Verdict::Mark), (0.1, Verdict::Drop)] {
        let mut r = red(RedParams { ecn: true, gentle: true, mark_p: Some(mark_p), ..params() });
        let (_, n) = measured_gap(&mut r, 20, 10_000, true, want);
        assert!(n > 1000);
    }
}

#[test]
fn mark_p_forced_keeps_the_drops_above_twice_max_th_as_ns2_27() {
    // ns-2.27 red.cc enque: qavg ≥ 2·th_max (gentle) is a forced drop of
    // every arrival whatever mark_p_. ns-2's use_mark_p_ (2005) sends those
    // arrivals through the early-drop path instead: the first after the
    // average crossed min_th is queued (edv_.old), the rest are picked with
    // p_b = 1 and dropped since p_b is not below mark_p.
    for forced in [true, false] {
        let mut r = red(RedParams { ecn: true, gentle: true, mark_p: Some(1.0), mark_p_forced: forced, ..params() });
        let got: Vec<Verdict> = (0..200).map(|i| r.admit(i, q(31), &pkt(500, true))).collect();
        let queued = got.iter().filter(|&&v| v == Verdict::Enqueue).count();
        assert!(!got.contains(&Verdict::Mark));
        assert_eq!(queued == 0, forced, "mark_p_forced = {forced}: {queued} of 200 queued");
    }
    // Below 2·max_th the two agree: mark_p = 1 marks every early pick.
    let (_, n) = measured_gap(
        &mut red(RedParams { ecn: true, gentle: true, mark_p: Some(1.0), mark_p_forced: true, ..params() }),
        20,
        10_000,
        true,
        Verdict::Mark,
    );
    assert!(n > 1000);
}

#[test]
fn idle_time_decays_the_average() {
    // avg ← (1 − w)^(m+1)·avg + w·q with m = ⌊ptc · idle⌋, ptc = C/(8·500).
    let w = 0.002;
    let mut r = red(RedParams { w_q: w, ..params() });
    for i in 0..5000 {
        r.admit(i, q(10), &pkt(500, false));
    }
    let before = r.avg_queue().unwrap();
    let idle_ps = 50 * crate::units::PS_PER_MS; // 50 ms at 2500 pkts/s: m = 125
    let now = 10 * PS_PER_S;
    r.admit(
        now,
        QueueState { waiting_pkts: 0, waiting_bytes: 0, idle: true, idle_since: now - idle_ps, held_pkts: 0 },
        &pkt(500, false),
    );
    let want = before * (1.0 - w).powi(126);
    assert!((r.avg_queue().unwrap() - want).abs() < 1e-9 * want);
}

#[test]
fn adaptive_red_moves_max_p_toward_the_target_band() {
    let interval = PS_PER_S / 2;
    let ad = Adaptive::Floyd { interval, alpha: 0.01, beta: 0.9, top: 0.5, bottom: 0.01 };
    // avg 14 > max_th − 0.4·10 = 11: every 0.5 s max_p += min(0.01, max_p/4)
    let mut r = red(RedParams { adaptive: ad.clone(), max_p: 0.02, ..params() });
    let mut want = 0.02f64;
    for k in 1..=80u64 {
        r.admit(k * (interval + 1), q(14), &pkt(500, false));
        if want < 0.5 {
            want += 0.01f64.min(want / 4.0);
        }
        assert!((r.max_p().unwrap() - want).abs() < 1e-12, "step {k}");
    }
    assert!((0.5..0.51).contains(&want));
    // avg 6 < min_th + 4 = 9: max_p ·= 0.9 while above bottom
    let mut r = red(RedParams { adaptive: ad, max_p: 0.1, ..params() });
    let mut want = 0.1f64;
    for k in 1..=40u64 {
        r.admit(k * (interval + 1), q(6), &pkt(500, false));
        if want > 0.01 {
            want *= 0.9;
        }
        assert!((r.max_p().unwrap() - want).abs() < 1e-12);
    }
    // inside the band nothing changes
    let mut r = red(RedParams {
        adaptive: Adaptive::Floyd { interval, alpha: 0.01, beta: 0.9, top: 0.5, bottom: 0.01 },
        ..params()
    });
    for k in 1..=10u64 {
        r.admit(k * (interval + 1), q(10), &pkt(500, false));
    }
    assert_eq!(r.max_p(), Some(0.1));
}

#[test]
fn feng_red_divides_and_multiplies_on_region_changes_only() {
    let mut r = red(RedParams { adaptive: Adaptive::Feng { alpha: 3.0, beta: 2.0 }, ..params() });
    let seq = [(3u32, 0.1 / 3.0), (3, 0.1 / 3.0), (10, 0.1 / 3.0), (20, 0.2 / 3.0), (20, 0.2 / 3.0), (2, 0.2 / 9.0)];
    for (i, (queue, want)) in seq.iter().enumerate() {
        r.admit(i as SimTime, q(*queue), &pkt(500, false));
        assert!((r.max_p().unwrap() - want).abs() < 1e-12, "step {i}");
    }
}

#[test]
fn hard_limit_drops_even_below_min_th() {
    let mut r = red(RedParams { limit_pkts: Some(3), ..params() });
    assert_eq!(r.admit(0, q(2), &pkt(500, false)), Verdict::Enqueue);
    assert_eq!(r.admit(1, q(3), &pkt(500, false)), Verdict::Drop);
}

#[test]
fn step_marking_at_k_marks_every_ect_arrival_at_or_above_k_and_drops_none() {
    // DCTCP's ns-2 set-up (Alizadeh et al. 2010): min_th = max_th = K,
    // w_q = 1, setbit. Below K nothing is picked; at or above K every
    // arrival is, except the first after avg crosses K (ns-2's count
    // restart); an ECN-capable packet is marked, a Not-ECT one dropped.
    let k = 65.0;
    let mut r = red(RedParams { min_th: k, max_th: k, ecn: true, ..params() });
    for n in [0, 1, 2, 30, 64] {
        assert_eq!(r.admit(0, q(n), &pkt(500, true)), Verdict::Enqueue, "queue {n} < K");
    }
    assert_eq!(r.admit(0, q(65), &pkt(500, true)), Verdict::Enqueue, "first arrival after the crossing");
    for n in [65, 66, 100, 400, 999] {
        assert_eq!(r.admit(0, q(n), &pkt(500, true)), Verdict::Mark, "ECT at queue {n} ≥ K");
    }
    assert_eq!(r.admit(0, q(70), &pkt(500, false)), Verdict::Drop, "Not-ECT is dropped, as any RED pick");
    // Back below K and up again: one more unpicked crossing arrival.
    assert_eq!(r.admit(0, q(10), &pkt(500, true)), Verdict::Enqueue);
    assert_eq!(r.admit(0, q(80), &pkt(500, true)), Verdict::Enqueue);
    assert_eq!(r.admit(0, q(80), &pkt(500, true)), Verdict::Mark);
    // The hard limit still drops.
    assert_eq!(r.admit(0, q(1000), &pkt(500, true)), Verdict::Drop);
    // ECT(1) is ECN-capable to a classic AQM (RFC 3168 §5, RFC 9331 §5.1).
    let mut p = pkt(500, false);
    p.ecn = crate::packet::Ecn::Ect1;
    assert_eq!(r.admit(0, q(90), &p), Verdict::Mark);
}
