//! Network-free BBR tests: gains per mode, the gain cycle, ProbeRTT timing
//! and the worked example of docs/reference.md R7, driven by the fluid pipe
//! of `cc::testkit` (bottleneck B segments/s, propagation RTT T).

use super::*;
use crate::cc::testkit::{defaults, state, step, Pipe};
use crate::rng::StreamKind;

fn bbr() -> Bbr {
    Bbr::new(&defaults("bbr"), Stream::new(7, StreamKind::Cc, 0))
}

fn run_until(x: &mut Bbr, tp: &mut CcState, p: &Pipe, until: SimTime, mut f: impl FnMut(&Bbr, &CcState)) {
    let mut inflight = tp.pipe as f64;
    while tp.now < until {
        step(x, tp, p, &mut inflight);
        f(x, tp);
    }
}

#[test]
fn gains_per_mode() {
    let mut x = bbr();
    let mut tp = state(10, u32::MAX);
    x.init(&mut tp);
    assert_eq!((x.pacing_gain, x.cwnd_gain), (739.0 / 256.0, 739.0 / 256.0), "STARTUP");
    // 10 Mb/s of 1250-byte segments = 1000 segments/s, RTprop 40 ms.
    let p = Pipe { b: 1000.0, t: 40 * PS_PER_MS };
    let mut seen_drain = false;
    let mut probe_bw_at = None;
    run_until(&mut x, &mut tp, &p, 3 * PS_PER_S, |x, tp| {
        if x.mode == Mode::Drain {
            seen_drain = true;
            assert_eq!((x.pacing_gain, x.cwnd_gain), (88.0 / 256.0, 739.0 / 256.0), "DRAIN");
        }
        if x.mode == Mode::ProbeBw {
            probe_bw_at.get_or_insert(tp.now);
            assert_eq!(x.cwnd_gain, 2.0, "PROBE_BW cwnd gain");
            assert_eq!(x.pacing_gain, x.gains[x.cycle_idx]);
        }
    });
    assert!(seen_drain && probe_bw_at.is_some());
    assert!(x.full_bw_reached());
    // The fluid model rounds inflight to whole segments, so allow 1.5 %.
    assert!((x.max_bw() - 1000.0).abs() < 15.0, "BtlBw {}", x.max_bw());
    assert_eq!(x.min_rtt(), Some(40 * PS_PER_MS));
}

#[test]
fn startup_exits_after_three_rounds_without_25_percent_growth() {
    let mut x = bbr();
    let mut tp = state(10, u32::MAX);
    x.init(&mut tp);
    let p = Pipe { b: 1000.0, t: 40 * PS_PER_MS };
    let mut rounds_at_full = None;
    let mut plateau_round = None;
    run_until(&mut x, &mut tp, &p, 2 * PS_PER_S, |x, _| {
        if plateau_round.is_none() && x.max_bw() >= 999.0 {
            plateau_round = Some(x.rtt_cnt);
        }
        if rounds_at_full.is_none() && x.full_bw_reached() {
            rounds_at_full = Some(x.rtt_cnt);
        }
    });
    let (p0, f) = (plateau_round.unwrap(), rounds_at_full.unwrap());
    // The round that first sees the full rate records full_bw; three later
    // rounds without +25 % end STARTUP (Linux full_bw_cnt 3).
    assert!((p0 + 2..=p0 + 4).contains(&f), "plateau at round {p0}, full at {f}");
}

#[test]
fn gain_cycle_order_and_phase_length() {
    let mut x = bbr();
    let mut tp = state(10, u32::MAX);
    x.init(&mut tp);
    let p = Pipe { b: 1000.0, t: 40 * PS_PER_MS };
    run_until(&mut x, &mut tp, &p, 2 * PS_PER_S, |_, _| {});
    assert_eq!(x.mode, Mode::ProbeBw);
    let mut phases: Vec<(usize, SimTime)> = vec![(x.cycle_idx, tp.now)];
    run_until(&mut x, &mut tp, &p, 6 * PS_PER_S, |x, tp| {
        if x.cycle_idx != phases.last().unwrap().0 {
            phases.push((x.cycle_idx, tp.now));
        }
    });
    // Phases advance 0 → 1 → … → 7 → 0.
    for w in phases.windows(2) {
        assert_eq!(w[1].0, (w[0].0 + 1) % 8, "{phases:?}");
    }
    // Every phase with gain 1 lasts more than one RTprop (and the sender's
    // RTT here is < 3 RTprop, so well under three).
    for w in phases.windows(2).skip(1) {
        let len = w[1].1 - w[0].1;
        if x.gains[w[0].0] == 1.0 {
            assert!(len > 40 * PS_PER_MS && len < 3 * 40 * PS_PER_MS, "phase {} lasted {len}", w[0].0);
        }
    }
    assert_eq!(x.gains, [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
}

#[test]
fn probe_bw_start_phase_is_random_but_never_the_drain_phase() {
    let tp = state(10, u32::MAX);
    let mut seen = [0u32; 8];
    let mut x = bbr();
    for _ in 0..2000 {
        x.reset_probe_bw_mode(&tp);
        seen[x.cycle_idx] += 1;
    }
    assert_eq!(seen[1], 0, "never starts in the 3/4 phase");
    for (i, &n) in seen.iter().enumerate() {
        if i != 1 {
            // Uniform over 7 phases: 2000/7 ≈ 286 each, sd ≈ 16.
            assert!((200..380).contains(&n), "phase {i}: {n}");
        }
    }
}

#[test]
fn probe_rtt_every_ten_seconds_for_200_ms_at_four_segments() {
    let mut x = bbr();
    let mut tp = state(10, u32::MAX);
    x.init(&mut tp);
    let p = Pipe { b: 1000.0, t: 40 * PS_PER_MS };
    let mut entered = vec![];
    let mut left = vec![];
    let mut prev = x.mode;
    run_until(&mut x, &mut tp, &p, 25 * PS_PER_S, |x, tp| {
        if x.mode == Mode::ProbeRtt && prev != Mode::ProbeRtt {
            entered.push(tp.now);
        }
        if x.mode != Mode::ProbeRtt && prev == Mode::ProbeRtt {
            left.push(tp.now);
        }
        if x.mode == Mode::ProbeRtt {
            assert!(tp.cwnd <= 4, "cwnd {} in PROBE_RTT", tp.cwnd);
        }
        prev = x.mode;
    });
    assert_eq!(entered.len(), 2, "{entered:?}");
    // The RTprop sample is taken early in STARTUP; the filter expires 10 s later.
    let s = PS_PER_S as f64;
    assert!((entered[0] as f64 / s - 10.0).abs() < 0.5, "{entered:?}");
    // Then 10 s after the sample taken at the end of PROBE_RTT.
    assert!(((entered[1] - left[0]) as f64 / s - 10.0).abs() < 0.3, "{entered:?} {left:?}");
    // Stay max(200 ms, one round) after inflight reached 4: here 200 ms + the drain time.
    let stay = (left[0] - entered[0]) as f64 / s;
    assert!((0.2..0.4).contains(&stay), "stayed {stay} s");
    assert_eq!(x.probe_rtt_count, 2);
}

#[test]
fn worked_example_targets() {
    // docs/reference.md R7: 10 Mb/s, 1500-byte packets (833.3 pkt/s), RTprop 40 ms.
    let mut x = bbr();
    let mut tp = state(10, u32::MAX);
    tp.mss = 1500;
    x.init(&mut tp);
    x.min_rtt = Some(40 * PS_PER_MS);
    x.bw.reset(0, 1e7 / 8.0 / 1500.0);
    x.full_bw_reached = true;
    // BDP 33.3 → ceil 34; PROBE_BW target ceil(66.7) = 67, + 3·2 quantum, rounded to even = 74.
    assert_eq!(x.bdp(x.bw(), 1.0), 34);
    x.set_pacing_rate(&tp, x.bw(), 1.25);
    assert_eq!(x.inflight(x.bw(), 2.0, 1500), 74);
    // Pacing: gain·bw·0.99 bytes/s.
    assert!((x.pacing.rate - 1.25 * 1.25e6 * 0.99).abs() < 1.0, "{}", x.pacing.rate);
    x.set_pacing_rate(&tp, x.bw(), 739.0 / 256.0);
    assert!((x.pacing.rate - 3.57e6).abs() < 0.01e6, "STARTUP pacing {}", x.pacing.rate);
    x.set_pacing_rate(&tp, x.bw(), 88.0 / 256.0);
    assert!((x.pacing.rate - 0.425e6).abs() < 0.001e6, "DRAIN pacing {}", x.pacing.rate);
}

#[test]
fn recovery_conserves_packets_then_restores() {
    let mut x = bbr();
    let mut tp = state(60, u32::MAX);
    x.init(&mut tp);
    x.min_rtt = Some(40 * PS_PER_MS);
    x.bw.reset(0, 1000.0);
    x.full_bw_reached = true;
    x.mode = Mode::ProbeBw;
    x.cycle_idx = 2;
    x.update_gains();
    let ss = x.ssthresh(&tp);
    assert_eq!(ss, u32::MAX, "BBR's ssthresh does not cut");
    tp.ca_state = CaState::Recovery;
    tp.pipe = 50;
    let rs = RateSample { acked_sacked: 1, losses: 1, prior_in_flight: 51, ..Default::default() };
    x.cong_control(&mut tp, &rs);
    assert_eq!(tp.cwnd, 51, "first round of recovery: pipe + acked");
    tp.ca_state = CaState::Open;
    tp.pipe = 40;
    x.cong_control(&mut tp, &RateSample { acked_sacked: 1, prior_in_flight: 41, ..Default::default() });
    assert!(tp.cwnd >= 60, "restored prior cwnd: {}", tp.cwnd);
}
