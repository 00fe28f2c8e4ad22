//! Network-free sender tests: packets are fed to the flow by hand, so the
//! RFC's decision rules can be checked step by step.

use super::scoreboard::LOST;
use super::types::SackEntry;
use super::*;
use crate::config::{AppCfg, FlowCfg, SackCfg};
use crate::packet::{Ecn, FLAG_CWR, FLAG_ECE, FLAG_SACK};
use crate::presets::tcp_defaults;

const MS: SimTime = crate::units::PS_PER_MS;

pub(super) fn flow(segs: Option<u64>, sack: SackCfg, f: impl FnOnce(&mut crate::config::TcpCfg)) -> TcpFlow {
    let mut t = tcp_defaults("newreno");
    t.sack = sack;
    t.delayed_ack = false;
    // The RFC 6675 rules alone unless a test turns the Linux additions on.
    (t.dsack, t.rack, t.tlp, t.undo, t.frto) = (false, false, false, false, false);
    t.prr &= sack == SackCfg::Rfc6675;
    // The tests deliver ACKs by hand, carrying no receiver's window.
    t.rcv_autotune = false;
    f(&mut t);
    let app = match segs {
        Some(n) => AppCfg::File { bytes: n * t.mss as u64 },
        None => AppCfg::Bulk,
    };
    let cfg = FlowCfg { src: 0, dst: 1, start_ps: 0, app, tcp: t.into(), label: String::new() };
    TcpFlow::new(0, cfg, 0, 1, 0)
}

/// Deliver an ACK for `ack` carrying SACK blocks `blocks` at time `now`,
/// echoing timestamp 0 (the send time of the first flight).
pub(super) fn ack(fl: &mut TcpFlow, now: SimTime, ack: u64, blocks: &[(u64, u64)], out: &mut Vec<Packet>) {
    ack_echo(fl, now, ack, 0, blocks, out);
}

/// `ack` with timestamp echo `ts`.
fn ack_echo(fl: &mut TcpFlow, now: SimTime, ack: u64, ts: SimTime, blocks: &[(u64, u64)], out: &mut Vec<Packet>) {
    let mut p = Packet::new(PktKind::Ack, ack, ts, 0, 40, 1);
    fl.c.rcv.ack_id += 1;
    p.aux = fl.c.rcv.ack_id;
    if !blocks.is_empty() {
        let mut e = SackEntry { id: fl.c.rcv.ack_id, n: blocks.len() as u8, blocks: [(0, 0); 4] };
        e.blocks[..blocks.len()].copy_from_slice(blocks);
        fl.c.rcv.sack_log.push_back(e);
        p.flags |= FLAG_SACK;
    }
    fl.on_ack(now, &p, out);
}

/// RFC 6675 NextSeg of a flow in that mode.
fn next_seg(fl: &mut TcpFlow) -> Option<Pick> {
    match &fl.recovery {
        Recovery::Rfc6675(m) => m.next_seg(&mut fl.c),
        _ => panic!("not an RFC 6675 flow"),
    }
}

fn lost(fl: &TcpFlow, s: u64) -> bool {
    fl.c.rec(s).flags & LOST != 0
}

#[test]
fn rfc6675_islost_reference_vectors() {
    // docs/reference.md R2, hole at segment 0, DupThresh 3.
    // SACK of 1–2 (two segments, one range): not lost.
    let mut out = Vec::new();
    let mut f = flow(Some(10), SackCfg::Rfc6675, |_| {});
    f.start(0, &mut out);
    assert_eq!(f.c.snd_max, 10);
    ack(&mut f, MS, 0, &[(1, 3)], &mut out);
    assert!(!lost(&f, 0));
    assert!(!f.c.in_recovery);
    // 1–3 in one range (three segments > (DupThresh − 1)): lost.
    let mut f = flow(Some(10), SackCfg::Rfc6675, |_| {});
    f.start(0, &mut out);
    ack(&mut f, MS, 0, &[(1, 4)], &mut out);
    assert!(lost(&f, 0));
    // 2, 4, 6 (three discontiguous ranges): 0 and 1 lost, 3 and 5 not.
    let mut f = flow(Some(10), SackCfg::Rfc6675, |_| {});
    f.start(0, &mut out);
    ack(&mut f, MS, 0, &[(2, 3), (4, 5), (6, 7)], &mut out);
    assert!(lost(&f, 0) && lost(&f, 1));
    assert!(!lost(&f, 3) && !lost(&f, 5) && !lost(&f, 7));
    // SetPipe: un-SACKed, not lost 3, 5, 7, 8, 9 count once each; the
    // retransmission of 0 sent on entering recovery counts once more.
    assert!(f.c.in_recovery);
    assert_eq!(f.c.sb.sacked_out, 3);
    assert_eq!(f.c.pipe(), 5 + 1);
}

#[test]
fn rfc6675_nextseg_order_without_new_data() {
    // 10-segment file all sent, SACKs for 2, 4, 6 arrive as three duplicate
    // ACKs. Entering recovery retransmits 0 (step 4.3); NextSeg then gives
    // rule 1: 1; no new data (rule 2); rule 3: 3 then 5 (un-SACKed below the
    // highest SACK); rule 4: rescue of the highest un-SACKed segment, 9.
    let mut out = Vec::new();
    let mut f = flow(Some(10), SackCfg::Rfc6675, |_| {});
    f.start(0, &mut out);
    out.clear();
    ack(&mut f, MS, 0, &[(2, 3)], &mut out);
    ack(&mut f, MS, 0, &[(4, 5), (2, 3)], &mut out);
    ack(&mut f, MS, 0, &[(6, 7), (4, 5), (2, 3)], &mut out);
    assert!(f.c.in_recovery);
    assert_eq!(f.c.tp.ssthresh, 5);
    assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![0]);
    let mut seq = Vec::new();
    while let Some(p) = next_seg(&mut f) {
        match p {
            Pick::Hole(s) => {
                f.c.sb.high_rxt = s + 1;
                f.c.send_segment(s, MS, &mut out);
                seq.push(s);
            }
            Pick::Rescue(s) => {
                f.c.sb.rescue_rxt = Some(f.c.recover);
                f.c.send_segment(s, MS, &mut out);
                seq.push(100 + s);
            }
            Pick::Next => panic!("no new data in a 10-segment file"),
        }
    }
    assert_eq!(seq, vec![1, 3, 5, 109]);
}

#[test]
fn rfc6675_nextseg_prefers_new_data_over_rule3() {
    let mut out = Vec::new();
    let mut f = flow(None, SackCfg::Rfc6675, |_| {});
    f.start(0, &mut out);
    for (i, b) in [(2u64, 3u64), (4, 5), (6, 7)].iter().enumerate() {
        let _ = i;
        ack(&mut f, MS, 0, &[*b], &mut out);
    }
    assert!(f.c.in_recovery);
    assert_eq!(next_seg(&mut f), Some(Pick::Hole(1)));
    f.c.sb.high_rxt = 2;
    assert_eq!(next_seg(&mut f), Some(Pick::Next));
}

#[test]
fn sack1_pipe_counts_acks() {
    // ns-2 Sack1: on the 3rd dup ACK with new SACK info, pipe =
    // maxseq − highest_ack − numdupacks = 10 − 3, cwnd = ssthresh = 5, only
    // the first hole is retransmitted. Each ACK then takes one from pipe.
    let mut out = Vec::new();
    let mut f = flow(None, SackCfg::Sack1, |_| {});
    f.start(0, &mut out);
    out.clear();
    for b in [(1u64, 2u64), (1, 3), (1, 4)] {
        ack(&mut f, MS, 0, &[b], &mut out);
    }
    assert!(f.c.in_recovery);
    assert_eq!(f.c.sack1_pipe, 7);
    assert_eq!(f.c.tp.cwnd, 5);
    assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![0]);
    out.clear();
    // Three more dup ACKs bring pipe to 4 < cwnd: one new segment goes.
    for b in [(1u64, 5u64), (1, 6)] {
        ack(&mut f, MS, 0, &[b], &mut out);
    }
    assert!(out.is_empty());
    ack(&mut f, MS, 0, &[(1, 7)], &mut out);
    assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![10]);
}

#[test]
fn sack1_threshold_grows_with_the_window_as_ns2_27() {
    // ns-2.27 numdupacksFrac_ 100: numdupacks(cwnd_) = max(3, 500 / 100)
    // = 5 (tcp.cc TcpAgent::numdupacks). Below it each duplicate ACK sends
    // one new segment (singledup_: send_one, cwnd_ + dupacks_); the 5th
    // enters recovery with pipe_ = maxseq_ − highest_ack_ − 5
    // (tcp-sack1.cc) and retransmits the first hole.
    let mut out = Vec::new();
    let mut f = flow(None, SackCfg::Sack1, |t| {
        t.initial_window = 500;
        t.limited_transmit = true;
        t.dupthresh_frac = 100;
    });
    f.start(0, &mut out);
    assert_eq!(f.c.snd_max, 500);
    for k in 1..=4u64 {
        out.clear();
        ack(&mut f, MS, 0, &[(1, 1 + k)], &mut out);
        assert!(!f.c.in_recovery, "dup ACK {k}");
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![499 + k], "dup ACK {k}");
    }
    out.clear();
    ack(&mut f, MS, 0, &[(1, 6)], &mut out);
    assert!(f.c.in_recovery);
    assert_eq!(f.c.sack1_pipe, 504 - 5);
    assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![0]);
    // ns-2.35 (numdupacksFrac_ −1): the 3rd duplicate ACK.
    let mut f = flow(None, SackCfg::Sack1, |t| {
        t.initial_window = 500;
        t.limited_transmit = true;
    });
    f.start(0, &mut out);
    for k in 1..=3u64 {
        ack(&mut f, MS, 0, &[(1, 1 + k)], &mut out);
    }
    assert!(f.c.in_recovery);
    assert_eq!(f.c.sack1_pipe, 502 - 3);
}

#[test]
fn prr_follows_rfc6937_proportional_part() {
    // RFC 6937 §3: while pipe > ssthresh, sndcnt = ceil(prr_delivered ·
    // ssthresh / RecoverFS) − prr_out. Window of 20, one loss (segment 0):
    // ssthresh 10, RecoverFS 20, so about one segment per two delivered.
    let mut out = Vec::new();
    let mut f = flow(None, SackCfg::Rfc6675, |t| {
        t.prr = true;
        t.initial_window = 20;
    });
    f.start(0, &mut out);
    out.clear();
    let mut sent = Vec::new();
    for k in 1..=10u64 {
        ack(&mut f, MS, 0, &[(1, 1 + k)], &mut out);
        sent.push(out.len() as u64);
    }
    // prr_delivered starts at 0 on entering recovery (3rd dup ACK) and that
    // ACK's own delivery counts (RFC 6937 §3 "on every ACK during
    // recovery"), so after the k-th dup ACK prr_delivered = k − 2 and the
    // total sent is ceil((k − 2)·10/20); the first of them is the
    // retransmission of segment 0.
    let expect: Vec<u64> = (1..=10u64).map(|k| if k < 3 { 0 } else { ((k - 2) * 10).div_ceil(20) }).collect();
    assert_eq!(sent, expect);
}

#[test]
fn receiver_raises_ce_events_as_linux_tcp_ecn_check_ce() {
    use super::receiver::ce_event;
    assert_eq!(ce_event(Ecn::Ce), Some(crate::cc::CwndEvent::EcnIsCe));
    assert_eq!(ce_event(Ecn::Ect0), Some(crate::cc::CwndEvent::EcnNoCe));
    assert_eq!(ce_event(Ecn::Ect1), Some(crate::cc::CwndEvent::EcnNoCe));
    assert_eq!(ce_event(Ecn::NotEct), None);
}

#[test]
fn receiver_echoes_ece_until_cwr_and_reports_sack_blocks() {
    let mut out = Vec::new();
    let mut r = flow(None, SackCfg::Rfc6675, |t| {
        t.ecn = true;
        t.timestamps = false; // the size check below counts SACK option bytes only
    });
    let data = |seq: u64, ecn: Ecn, flags: u8| {
        let mut p = Packet::new(PktKind::Data, seq, 0, 0, 1488, 0);
        p.ecn = ecn;
        p.flags = flags;
        p
    };
    r.c.on_data(MS, &data(0, Ecn::Ce, 0), &mut out);
    r.c.on_data(MS, &data(1, Ecn::Ect0, 0), &mut out);
    assert!(out.iter().all(|a| a.flags & FLAG_ECE != 0));
    out.clear();
    r.c.on_data(MS, &data(2, Ecn::Ect0, FLAG_CWR), &mut out);
    assert_eq!(out[0].flags & FLAG_ECE, 0);
    // Out of order: 4, 6 arrive; the latest block comes first (RFC 2018).
    out.clear();
    r.c.on_data(MS, &data(4, Ecn::Ect0, 0), &mut out);
    r.c.on_data(MS, &data(6, Ecn::Ect0, 0), &mut out);
    r.c.on_data(MS, &data(7, Ecn::Ect0, 0), &mut out);
    let last = out.last().unwrap();
    assert!(last.flags & FLAG_SACK != 0 && last.seq == 3);
    let e = r.c.rcv.sack_log.back().unwrap();
    assert_eq!(&e.blocks[..e.n as usize], &[(6, 8), (4, 5)]);
    assert_eq!(last.size, 40 + 4 + 16);
}

#[test]
fn ts_recent_never_moves_backwards() {
    // RFC 7323 §4.3 (Linux tcp_replace_ts_recent / tcp_paws_check): a
    // segment updates TS.Recent only if it covers Last.ACK.sent and its
    // TSval is not older. Segment 1 (TSval 5 ms) overtakes segment 0 (TSval
    // 4 ms) and is held out of order; when 0 fills the hole, the ACK for
    // both must echo 5 ms, not the reordered older 4 ms.
    let mut out = Vec::new();
    let mut r = flow(None, SackCfg::Rfc6675, |t| t.delayed_ack = false);
    let data = |seq: u64, ts: SimTime| Packet::new(PktKind::Data, seq, ts, 0, 1500, 0);
    r.c.on_data(10 * MS, &data(2, 6 * MS), &mut out); // out of order: TS.Recent unchanged
    assert_eq!(r.c.rcv.ts_recent, 0);
    r.c.on_data(11 * MS, &data(0, 4 * MS), &mut out); // covers Last.ACK.sent = 0: 4 ms
    assert_eq!(r.c.rcv.ts_recent, 4 * MS);
    r.c.on_data(12 * MS, &data(1, 5 * MS), &mut out);
    assert_eq!(r.c.rcv.ts_recent, 5 * MS);
    // A duplicate of segment 0 (TSval 4 ms again) must not take it back.
    r.c.on_data(13 * MS, &data(0, 4 * MS), &mut out);
    assert_eq!(r.c.rcv.ts_recent, 5 * MS);
    assert_eq!(out.last().unwrap().ts, 5 * MS, "the duplicate's ACK echoes the newest valid TSval");
}

#[test]
fn idle_restart_follows_tcp_cwnd_restart() {
    // Linux tcp_cwnd_restart / RFC 2861 by hand: cwnd set to 80 (then grown
    // by the ACKs), idle for 3.5 RTOs with nothing outstanding → while
    // (delta −= rto) > 0 and cwnd > restart: three halvings, floor
    // min(IW = 10, cwnd); ssthresh = max(ssthresh, ¾·cwnd).
    let mut out = Vec::new();
    let mut f = flow(None, SackCfg::Off, |t| t.initial_window = 10);
    f.start(0, &mut out);
    f.c.tp.cwnd = 80;
    f.c.tp.ssthresh = 50;
    let sent = f.c.snd_max;
    ack(&mut f, MS, sent, &[], &mut out); // everything acknowledged
    f.app_pause();
    out.clear();
    let m = f.c.snd_max;
    ack(&mut f, 2 * MS, m, &[], &mut out);
    assert_eq!(f.c.snd_una, f.c.snd_max, "nothing outstanding while OFF");
    let cwnd = f.c.tp.cwnd;
    let last = f.c.last_send.unwrap();
    let rto = f.c.rtt.rto();
    f.app_resume(last + rto * 7 / 2, &mut out);
    // halvings while (delta −= rto) > 0 and cwnd > restart: delta = 3.5 rto → 3
    let mut want = cwnd;
    for _ in 0..3 {
        if want > 10 {
            want >>= 1;
        }
    }
    assert_eq!(f.c.stats.idle_restarts, 1);
    assert_eq!(f.c.tp.ssthresh, 50u32.max(cwnd * 3 / 4));
    assert_eq!(f.c.tp.cwnd, want.max(10.min(cwnd)));
    assert!(!out.is_empty(), "sends again after the restart");
    // A short pause (under one RTO) does not restart.
    let mut g = flow(None, SackCfg::Off, |_| {});
    g.start(0, &mut out);
    let s = g.c.snd_max;
    ack(&mut g, MS, s, &[], &mut out);
    g.app_pause();
    let m = g.c.snd_max;
    ack(&mut g, 2 * MS, m, &[], &mut out);
    let c = g.c.tp.cwnd;
    let l = g.c.last_send.unwrap();
    g.app_resume(l + g.c.rtt.rto() / 2, &mut out);
    assert_eq!((g.c.tp.cwnd, g.c.stats.idle_restarts), (c, 0));
}

#[test]
fn rto_in_newreno_recovery_keeps_the_recoverys_ssthresh() {
    // Linux tcp_enter_loss: ssthresh is recomputed on an RTO only from Open
    // or Disorder (or once the reduction's high_seq is acked). NewReno, 20
    // segments out, three duplicate ACKs: ssthresh = FlightSize/2 = 10, cwnd
    // inflated to 13; dup ACKs inflate it further and new data goes out. An
    // RTO before `recover` is acked must leave ssthresh at 10, not halve the
    // swollen FlightSize.
    let mut out = Vec::new();
    let mut f = flow(None, SackCfg::Off, |t| t.initial_window = 20);
    f.start(0, &mut out);
    for _ in 0..3 {
        ack(&mut f, MS, 0, &[], &mut out);
    }
    assert!(f.c.in_recovery);
    assert_eq!(f.c.tp.ssthresh, 10);
    for _ in 0..15 {
        ack(&mut f, 2 * MS, 0, &[], &mut out);
    }
    assert!(f.c.snd_max > 20, "the inflated window sent new data");
    let deadline = f.c.next_deadline().expect("RTO armed");
    f.on_timer(deadline, &mut out);
    assert_eq!(f.c.stats.timeouts, 1);
    assert_eq!(f.c.tp.cwnd, 1);
    assert_eq!(f.c.tp.ssthresh, 10);
    // From Open, an RTO does halve: ssthresh = max(FlightSize/2, 2) (RFC 5681 eq. 4).
    let mut g = flow(None, SackCfg::Off, |t| t.initial_window = 20);
    g.start(0, &mut out);
    let deadline = g.c.next_deadline().expect("RTO armed");
    g.on_timer(deadline, &mut out);
    assert_eq!(g.c.tp.ssthresh, 10);
}

// ------------------------------------------------------------ RACK-TLP, undo, F-RTO

/// A flow with the Linux loss-recovery additions chosen by the test.
fn linux_flow(segs: Option<u64>, f: impl FnOnce(&mut crate::config::TcpCfg)) -> TcpFlow {
    flow(segs, SackCfg::Rfc6675, |t| {
        t.tlp = false;
        f(t)
    })
}

fn sent(out: &[Packet]) -> Vec<u64> {
    out.iter().filter(|p| p.kind == PktKind::Data).map(|p| p.seq).collect()
}

#[test]
fn rack_marks_a_lost_retransmission_one_rtt_later() {
    // RFC 8985 §3.3: 0–9 go at t = 0. At 100 ms the ACK SACKs 1–9: RACK's
    // newest delivered segment is 9 (sent at 0, RTT 100 ms); 0 was sent
    // before it (same time, lower sequence) and 100 ms ≥ RACK.rtt + 0 (no
    // reordering seen and 9 ≥ DupThresh SACKed: window 0), so 0 is lost and
    // recovery retransmits it. At 200 ms a segment sent after that
    // retransmission is SACKed: the retransmission is lost in turn (100 ms
    // ≥ RACK.rtt) and goes again — no RTO.
    let mut out = Vec::new();
    let mut f = linux_flow(Some(30), |t| t.rack = true);
    f.start(0, &mut out);
    out.clear();
    ack(&mut f, 100 * MS, 0, &[(1, 10)], &mut out);
    assert!(f.c.in_recovery);
    assert_eq!(f.c.stats.rack_lost, 1);
    let first = sent(&out);
    assert_eq!(first[0], 0, "the retransmission goes first: {first:?}");
    let after = *first.iter().find(|&&s| s >= 10).expect("new data after the retransmission");
    out.clear();
    ack(&mut f, 200 * MS, 0, &[(after, after + 1), (1, 10)], &mut out);
    assert_eq!((f.c.stats.lost_retransmits, f.c.stats.rack_lost), (1, 2));
    assert_eq!(sent(&out).first(), Some(&0));
    assert_eq!((f.c.stats.retransmits, f.c.stats.timeouts), (2, 0));
}

#[test]
fn rack_waits_the_reordering_window_before_marking() {
    // One segment SACKed (fewer than DupThresh): the window is min_rtt/4.
    // The ACK at 100 ms gives min_rtt = 100 ms; at 101 ms the SACK of 3
    // leaves 1 and 2 (sent with 3 at t = 0) waiting RACK.rtt + 25 ms from
    // their send time: the timer is set for 126 ms, and when it fires they
    // are lost and recovery starts.
    let mut out = Vec::new();
    let mut f = linux_flow(Some(30), |t| t.rack = true);
    f.start(0, &mut out);
    ack(&mut f, 100 * MS, 1, &[], &mut out);
    assert_eq!(f.c.rtt.min_rtt, Some(100 * MS));
    ack(&mut f, 101 * MS, 1, &[(3, 4)], &mut out);
    assert!(!f.c.in_recovery && f.c.stats.rack_lost == 0);
    assert_eq!(f.c.rack.deadline, Some(101 * MS + 25 * MS));
    out.clear();
    f.on_timer(126 * MS, &mut out);
    assert_eq!(f.c.stats.rack_lost, 2);
    assert!(f.c.in_recovery);
    assert_eq!(sent(&out).first(), Some(&1));
}

#[test]
fn rack_reordering_window_grows_after_a_dsack() {
    // RFC 8985 §6.2 step 4 / Linux tcp_rack_update_reo_wnd: reordering is
    // seen when never-retransmitted segments below RACK.fack are delivered;
    // then a D-SACK makes the next round's window 2 × min_rtt/4, kept for 16
    // recoveries (TCP_RACK_RECOVERY_THRESH).
    let mut out = Vec::new();
    let mut f = linux_flow(None, |t| {
        t.rack = true;
        t.dsack = true;
    });
    f.start(0, &mut out);
    ack(&mut f, 100 * MS, 1, &[], &mut out);
    ack(&mut f, 101 * MS, 1, &[(3, 4)], &mut out);
    assert!(!f.c.rack.reord_seen);
    ack(&mut f, 102 * MS, 4, &[], &mut out);
    assert!(f.c.rack.reord_seen, "1 and 2 arrived after 3 without a retransmission");
    assert!(!f.c.in_recovery && f.c.stats.retransmits == 0);
    let min_rtt = f.c.rtt.min_rtt.unwrap();
    assert_eq!(f.c.rack_reo_wnd(false), min_rtt / 4);
    // A D-SACK for segment 2 (below the ACK).
    ack(&mut f, 103 * MS, 4, &[(2, 3)], &mut out);
    assert!(f.c.rack.dsack_seen);
    assert_eq!(f.c.stats.dsacks_received, 1);
    // The next ACK that delivers data sent after the first deliveries.
    let top = f.c.snd_max;
    ack(&mut f, 200 * MS, top, &[], &mut out);
    assert_eq!(f.c.rack.reo_wnd_steps, 2);
    assert_eq!(f.c.rack.reo_wnd_persist, 16);
    assert_eq!(f.c.rack_reo_wnd(false), (2 * (min_rtt / 4)).min(f.c.rtt.srtt.unwrap()));
}

#[test]
fn tlp_probes_the_last_segment_then_rack_repairs_the_tail() {
    // RFC 8985 §7.2: 10-segment file, the ACK at 100 ms covers 0–7; two
    // segments out, so PTO = 2·SRTT + 2 ms = 202 ms (the RTO, SRTT + 200 ms
    // rttvar floor = 300 ms, is later). No new data: the probe resends 9.
    // Its SACK at 402 ms shows 8 (sent long before) lost: recovery, no RTO.
    let mut out = Vec::new();
    let mut f = linux_flow(Some(10), |t| {
        t.rack = true;
        t.tlp = true;
    });
    f.start(0, &mut out);
    ack(&mut f, 100 * MS, 8, &[], &mut out);
    assert_eq!(f.c.rtt.srtt, Some(100 * MS));
    assert_eq!(f.c.tlp.deadline, Some(100 * MS + 202 * MS));
    out.clear();
    f.on_timer(302 * MS, &mut out);
    assert_eq!(sent(&out), vec![9]);
    assert_eq!((f.c.stats.tlp_probes, f.c.tlp.high_seq, f.c.tlp.retrans), (1, Some(10), true));
    assert_eq!(f.c.rto_deadline, Some(302 * MS + f.c.rtt.rto()));
    out.clear();
    ack(&mut f, 402 * MS, 8, &[(9, 10)], &mut out);
    assert!(f.c.in_recovery);
    assert_eq!(sent(&out), vec![8]);
    assert_eq!(f.c.stats.timeouts, 0);
}

#[test]
fn tlp_recovery_reduces_the_window_once() {
    // RFC 8985 §7.4.2 / Linux tcp_process_tlp_ack: a retransmitted probe
    // whose ACK goes beyond it without a D-SACK repaired a loss; the window
    // is reduced once (ssthresh from the algorithm, cwnd = ssthresh).
    let mut out = Vec::new();
    let mut f = linux_flow(None, |t| {
        t.tlp = true;
        t.rwnd_bytes = Some(10 * t.mss as u64); // no new data may go
    });
    f.start(0, &mut out);
    ack(&mut f, 100 * MS, 8, &[], &mut out);
    let d = f.c.tlp.deadline.unwrap();
    f.on_timer(d, &mut out);
    assert!(f.c.tlp.retrans);
    ack(&mut f, d + 100 * MS, 10, &[], &mut out);
    assert_eq!(f.c.stats.tlp_recoveries, 0, "ACK == tlp_high_seq is not yet beyond it");
    let top = f.c.snd_max;
    assert!(top > 10);
    let cwnd = f.c.tp.cwnd;
    ack(&mut f, d + 200 * MS, top, &[], &mut out);
    assert_eq!(f.c.stats.tlp_recoveries, 1);
    assert_eq!(f.c.tp.ssthresh, (cwnd / 2).max(2));
}

#[test]
fn dsack_of_every_retransmission_undoes_the_recovery() {
    // RFC 2883 §4 + Linux tcp_try_undo_recovery: DupThresh recovery on
    // SACKs of 1–3 retransmits 0 (ssthresh 5). The ACK that completes the
    // recovery carries a D-SACK for 0 (below the ACK): the only
    // retransmission was not needed, so ssthresh goes back to what it was
    // (infinite) and cwnd to undo_cwnd = max(cwnd, cwnd before) = 10.
    let mut out = Vec::new();
    let mut f = linux_flow(Some(10), |t| {
        t.dsack = true;
        t.undo = true;
    });
    f.start(0, &mut out);
    for k in 1..4 {
        ack(&mut f, 100 * MS, 0, &[(1, k + 1)], &mut out);
    }
    assert!(f.c.in_recovery);
    assert_eq!((f.c.tp.ssthresh, f.c.stats.retransmits), (5, 1));
    ack(&mut f, 150 * MS, 10, &[(0, 1)], &mut out);
    assert!(!f.c.in_recovery);
    assert_eq!(f.c.stats.undos, 1);
    assert_eq!(f.c.tp.ssthresh, u32::MAX);
    assert!(f.c.tp.cwnd >= 10);
    assert!(f.c.events.iter().any(|e| e.1 == FlowEventKind::Undo));
}

#[test]
fn timestamps_show_a_delayed_segment_and_undo_the_recovery() {
    // Linux tcp_packet_delayed (Eifel, RFC 3522): the ACK ending the
    // recovery echoes a timestamp older than the first retransmission, so
    // the original got through: undo without any D-SACK.
    let mut out = Vec::new();
    let mut f = linux_flow(Some(10), |t| t.undo = true);
    f.start(0, &mut out);
    for k in 1..4 {
        ack(&mut f, 100 * MS, 0, &[(1, k + 1)], &mut out);
    }
    assert!(f.c.in_recovery);
    // `ack` echoes timestamp 0: the originals' send time.
    ack(&mut f, 150 * MS, 10, &[], &mut out);
    assert_eq!(f.c.stats.undos, 1);
    assert_eq!(f.c.tp.ssthresh, u32::MAX);
}

fn timed_out_flow(frto: bool) -> (TcpFlow, Vec<Packet>, u32) {
    let mut out = Vec::new();
    let mut f = linux_flow(Some(40), |t| {
        t.frto = frto;
        t.undo = true;
    });
    f.start(0, &mut out);
    ack(&mut f, 100 * MS, 2, &[], &mut out);
    let cwnd = f.c.tp.cwnd;
    let d = f.c.rto_deadline.unwrap();
    out.clear();
    f.on_timer(d, &mut out);
    assert_eq!((f.c.stats.timeouts, f.c.tp.cwnd), (1, 1));
    assert_eq!(sent(&out), vec![2]);
    (f, out, cwnd)
}

#[test]
fn frto_finds_a_spurious_rto_when_original_data_is_acked() {
    // RFC 5682 §3.1 step 3b, SACK-enhanced (Linux FLAG_ORIG_SACK_ACKED):
    // after the RTO retransmitted 2, an ACK for 2–7 covers segments never
    // retransmitted — the originals were delayed, not lost. The RTO is
    // undone: cwnd back to undo_cwnd = max(cwnd, cwnd before), ssthresh to
    // its value before (infinite).
    // The ACK echoes the retransmission's timestamp, so timestamps show
    // nothing (else tcp_try_undo_loss would undo first, as Eifel).
    let (mut f, mut out, cwnd) = timed_out_flow(true);
    let rto_at = f.c.rto_deadline.unwrap() - f.c.rtt.rto();
    let now = rto_at + 10 * MS;
    ack_echo(&mut f, now, 8, rto_at, &[], &mut out);
    assert_eq!((f.c.stats.spurious_rtos, f.c.stats.undos), (1, 1));
    assert!(f.c.tp.cwnd >= cwnd);
    assert_eq!(f.c.tp.ssthresh, u32::MAX);
    // Without F-RTO (and no timestamp evidence: the ACK echoes the
    // retransmission's time) the same ACK is just progress in slow start.
    let (mut g, mut out, _) = timed_out_flow(false);
    let rto_at = g.c.rto_deadline.unwrap() - g.c.rtt.rto();
    let now = rto_at + 10 * MS;
    ack_echo(&mut g, now, 8, rto_at, &[], &mut out);
    assert_eq!(g.c.stats.undos, 0);
    assert!(g.c.tp.cwnd < cwnd);
}

#[test]
fn frto_sends_new_data_then_declares_the_loss_real_on_a_dupack() {
    // Step 2b: the first ACK after the RTO acknowledges only the
    // retransmitted segment: send new data (not the presumed-lost 3…).
    // Step 3a: the next ACK is a duplicate with a SACK of that new data —
    // the loss was real; retransmissions follow, nothing is undone.
    let (mut f, mut out, _) = timed_out_flow(true);
    let t0 = f.c.rto_deadline.unwrap() - f.c.rtt.rto();
    let top = f.c.snd_max;
    out.clear();
    ack_echo(&mut f, t0 + 100 * MS, 3, t0, &[], &mut out);
    let s = sent(&out);
    assert!(!s.is_empty() && s.iter().all(|&q| q >= top), "new data only: {s:?}");
    out.clear();
    ack_echo(&mut f, t0 + 200 * MS, 3, t0, &[(top, top + 1)], &mut out);
    assert_eq!((f.c.stats.spurious_rtos, f.c.stats.undos), (0, 0));
    assert_eq!(sent(&out).first(), Some(&3), "conventional recovery resends 3");
}

#[test]
fn newreno_without_sack_marks_the_head_lost_as_linux_does() {
    // Linux tcp_newreno_mark_lost: without SACK the segment at snd_una is
    // marked lost (tp->lost counts it, skb_marked_lost hears of it) at the
    // fast retransmit and again at each partial ACK; tcp_timeout_mark_lost
    // marks every outstanding segment at an RTO, a retransmission again.
    let mut out = Vec::new();
    let mut f = flow(None, SackCfg::Off, |t| t.initial_window = 20);
    f.start(0, &mut out);
    for _ in 0..3 {
        ack(&mut f, MS, 0, &[], &mut out);
    }
    assert!(f.c.in_recovery && lost(&f, 0));
    assert_eq!((f.c.tp.lost, f.c.sb.lost_out), (1, 1));
    // A partial ACK for 0..5 (recover = 20): the new head, 5, is lost.
    ack(&mut f, 2 * MS, 5, &[], &mut out);
    assert!(f.c.in_recovery && lost(&f, 5));
    assert_eq!((f.c.tp.lost, f.c.sb.lost_out), (2, 1));
    // An RTO: 5 was retransmitted (lost again) and 6..snd_max newly lost.
    let out_now = f.c.snd_max - f.c.snd_una;
    let deadline = f.c.next_deadline().expect("RTO armed");
    f.on_timer(deadline, &mut out);
    assert_eq!(f.c.tp.lost, 2 + out_now);
    assert_eq!(f.c.sb.lost_out as u64, out_now);
}
