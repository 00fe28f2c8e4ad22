//! TCP Prague's rules worked by hand from tcp_prague.c's arithmetic.
use super::*;
use crate::cc::testkit::{state, with};
use crate::units::PS_PER_MS;

fn prague(preset: Option<&str>) -> (Prague, CcState) {
    let mut p = Prague::new(&with("prague", preset, &[]));
    let mut tp = state(100, u32::MAX);
    tp.srtt = Some(20 * PS_PER_MS);
    tp.snd_nxt = 100;
    p.init(&mut tp);
    (p, tp)
}

fn ack(acked: u32, ce: u32) -> RateSample {
    RateSample { acked_sacked: acked, ece_delta: ce, ..Default::default() }
}

#[test]
fn alpha_is_an_ewma_of_the_ce_fraction_with_gain_one_sixteenth() {
    // upscaled_alpha ← upscaled − upscaled/16 + F·2^24: α = upscaled/16/2^24.
    let (mut p, mut tp) = prague(None);
    p.saw_ce = true;
    let mut want: f64 = 0.0;
    for f in [0.5, 0.5, 0.0, 1.0] {
        tp.delivered += 100;
        tp.delivered_ce += (100.0 * f) as u64;
        p.update_alpha(&tp);
        want = want * (1.0 - 1.0 / 16.0) + f / 16.0;
        assert!((p.alpha() - want).abs() < 1e-6, "{} vs {want}", p.alpha());
    }
    // Before any CE, α is never updated (no AQM proven on the path).
    let (mut q, mut tq) = prague(None);
    tq.delivered += 100;
    tq.delivered_ce += 50;
    q.update_alpha(&tq);
    assert_eq!(q.alpha(), 0.0);
}

#[test]
fn cwr_cuts_the_fractional_window_by_alpha_over_two() {
    let (mut p, mut tp) = prague(Some("rtt_dependent"));
    p.upscaled_alpha = (MAX_ALPHA / 4) << SHIFT_G; // α = 1/4
    p.frac_cwnd = 100 << CWND_UNIT;
    tp.ca_state = CaState::Open;
    p.set_state(&mut tp, CaState::Cwr);
    // 100·(1 − 1/8) = 87.5
    assert!((p.frac_cwnd() - 87.5).abs() < 1e-6, "{}", p.frac_cwnd());
    // cwnd then steps down one segment per ACK, ssthresh following.
    tp.ssthresh = 50; // not in slow start
    tp.ca_state = CaState::Cwr;
    p.in_loss = true; // no growth on these ACKs
    for want in (88..100).rev() {
        p.update_cwnd(&mut tp, &ack(1, 0));
        assert_eq!((tp.cwnd, tp.ssthresh), (want, want));
    }
    p.update_cwnd(&mut tp, &ack(1, 0));
    assert_eq!(tp.cwnd, 88, "⌈87.5⌉ reached");
}

#[test]
fn first_ce_halves_once_and_marked_segments_do_not_grow() {
    let (mut p, mut tp) = prague(Some("rtt_dependent"));
    tp.ssthresh = 50;
    p.frac_cwnd = 100 << CWND_UNIT;
    // 10 acked, 4 reported CE: saw_ce halves to 50, then 6 unmarked
    // segments add 6·1/100 (Reno: one per window).
    p.update_cwnd(&mut tp, &ack(10, 4));
    assert!((p.frac_cwnd() - (50.0 + 6.0 / 100.0)).abs() < 1e-6, "{}", p.frac_cwnd());
    let before = p.frac_cwnd;
    p.update_cwnd(&mut tp, &ack(10, 4));
    assert!(p.frac_cwnd > before, "no second halving");
    // A fully marked ACK adds nothing.
    let before = p.frac_cwnd;
    p.update_cwnd(&mut tp, &ack(3, 3));
    assert_eq!(p.frac_cwnd, before);
}

#[test]
fn loss_halves_and_stops_growth_until_open() {
    let (mut p, mut tp) = prague(None);
    tp.ssthresh = 50;
    p.frac_cwnd = 80 << CWND_UNIT;
    tp.ca_state = CaState::Open;
    p.set_state(&mut tp, CaState::Recovery);
    assert_eq!(p.frac_cwnd(), 40.0);
    let f = p.frac_cwnd;
    tp.cwnd = 40;
    p.update_cwnd(&mut tp, &ack(5, 0));
    assert_eq!(p.frac_cwnd, f, "no growth in loss recovery");
    tp.ca_state = CaState::Recovery;
    p.set_state(&mut tp, CaState::Open);
    p.update_cwnd(&mut tp, &ack(5, 0));
    assert!(p.frac_cwnd > f);
    // Undo restores the window before the loss.
    assert_eq!(p.undo_cwnd(&tp), 100);
    assert_eq!(p.frac_cwnd(), 80.0);
}

#[test]
fn rtt_independence_scales_growth_by_rtt_over_target_squared() {
    // 5 ms against the 25 ms target: (5/25)² = 1/25 of Reno's growth once
    // rtt_transition rounds have passed out of slow start.
    let (mut p, mut tp) = prague(None);
    tp.ssthresh = 50;
    tp.srtt = Some(5 * PS_PER_MS);
    p.round = 3;
    p.update_ai_ack_increase(&tp);
    assert_eq!(p.ai_ack_increase, ONE_CWND, "not before 4 rounds");
    p.round = 4;
    p.update_ai_ack_increase(&tp);
    let want = ONE_CWND as f64 / 25.0;
    assert!((p.ai_ack_increase as f64 - want).abs() <= 1.0, "{} vs {want}", p.ai_ack_increase);
    // At or above the target: unscaled.
    tp.srtt = Some(30 * PS_PER_MS);
    p.update_ai_ack_increase(&tp);
    assert_eq!(p.ai_ack_increase, ONE_CWND);
    // And a CWR at most once per target RTT.
    tp.srtt = Some(5 * PS_PER_MS);
    p.upscaled_alpha = (MAX_ALPHA / 2) << SHIFT_G;
    p.frac_cwnd = 100 << CWND_UNIT;
    tp.now = 100 * PS_PER_MS;
    tp.ca_state = CaState::Open;
    p.enter_cwr(&tp);
    let once = p.frac_cwnd;
    assert!(once < 100 << CWND_UNIT);
    tp.now += 10 * PS_PER_MS;
    p.enter_cwr(&tp);
    assert_eq!(p.frac_cwnd, once, "10 ms < 25 ms target: no second cut");
    tp.now += 20 * PS_PER_MS;
    p.enter_cwr(&tp);
    assert!(p.frac_cwnd < once);
}

#[test]
fn pacing_is_cwnd_over_srtt_with_quarter_millisecond_bursts() {
    let (mut p, mut tp) = prague(None);
    tp.ssthresh = 50;
    tp.cwnd = 100;
    tp.pipe = 80;
    p.update_pacing_rate(&mut tp);
    let rate = tp.pacing_rate.unwrap();
    // 100 · 1448 B / 20 ms = 7.24 MB/s; bursts of ⌊5000 pkt/s / 4096⌋ = 1.
    assert!((rate - 100.0 * 1448.0 / 0.02).abs() < 1e-6, "{rate}");
    assert_eq!(p.tso_segs(), Some(1));
    // In slow start below ssthresh/2: twice that.
    tp.ssthresh = 1000;
    p.update_pacing_rate(&mut tp);
    assert!((tp.pacing_rate.unwrap() - 2.0 * rate).abs() < 1e-6);
}
