//! Network-free sender tests: packets are fed to the flow by hand, so the
//! RFC's decision rules can be checked step by step.

use super::*;
use crate::config::{AppCfg, FlowCfg, SackCfg};
use crate::packet::{ECN_CE, ECN_ECT, FLAG_CWR, FLAG_ECE, FLAG_SACK};
use super::scoreboard::LOST;
use crate::presets::tcp_defaults;

const MS: SimTime = crate::units::PS_PER_MS;

fn flow(segs: Option<u64>, sack: SackCfg, f: impl FnOnce(&mut crate::config::TcpCfg)) -> TcpFlow {
    let mut t = tcp_defaults("newreno");
    t.sack = sack;
    t.delayed_ack = false;
    // The RFC 6675 rules alone unless a test turns the Linux additions on.
    (t.dsack, t.rack, t.tlp, t.undo, t.frto) = (false, false, false, false, false);
    t.prr &= sack == SackCfg::Rfc6675;
    f(&mut t);
    let app = match segs {
        Some(n) => AppCfg::File { bytes: n * t.mss as u64 },
        None => AppCfg::Bulk,
    };
    let cfg = FlowCfg { src: 0, dst: 1, start_ps: 0, app, tcp: t, label: String::new() };
    TcpFlow::new(0, cfg, 0, 1, 0)
}

/// Deliver an ACK for `ack` carrying SACK blocks `blocks` at time `now`.
fn ack(fl: &mut TcpFlow, now: SimTime, ack: u64, blocks: &[(u64, u64)], out: &mut Vec<Packet>) {
    let mut p = Packet::new(PktKind::Ack, ack, 0, 0, 40, 1);
    fl.rcv.ack_id += 1;
    p.aux = fl.rcv.ack_id;
    if !blocks.is_empty() {
        let mut e = SackEntry { id: fl.rcv.ack_id, n: blocks.len() as u8, blocks: [(0, 0); 4] };
        e.blocks[..blocks.len()].copy_from_slice(blocks);
        fl.rcv.sack_log.push_back(e);
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
    fl.rec(s).flags & LOST != 0
}

#[test]
fn rfc6675_islost_reference_vectors() {
    // docs/reference.md R2, hole at segment 0, DupThresh 3.
    // SACK of 1–2 (two segments, one range): not lost.
    let mut out = Vec::new();
    let mut f = flow(Some(10), SackCfg::Rfc6675, |_| {});
    f.start(0, &mut out);
    assert_eq!(f.snd_max, 10);
    ack(&mut f, MS, 0, &[(1, 3)], &mut out);
    assert!(!lost(&f, 0));
    assert!(!f.in_recovery);
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
    assert!(f.in_recovery);
    assert_eq!(f.sb.sacked_out, 3);
    assert_eq!(f.pipe(), 5 + 1);
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
    assert!(f.in_recovery);
    assert_eq!(f.tp.ssthresh, 5);
    assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![0]);
    let mut seq = Vec::new();
    while let Some(p) = next_seg(&mut f) {
        match p {
            Pick::Hole(s) => {
                f.sb.high_rxt = s + 1;
                f.send_segment(s, MS, &mut out);
                seq.push(s);
            }
            Pick::Rescue(s) => {
                f.sb.rescue_rxt = Some(f.recover);
                f.send_segment(s, MS, &mut out);
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
    assert!(f.in_recovery);
    assert_eq!(next_seg(&mut f), Some(Pick::Hole(1)));
    f.sb.high_rxt = 2;
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
    assert!(f.in_recovery);
    assert_eq!(f.sack1_pipe, 7);
    assert_eq!(f.tp.cwnd, 5);
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
fn ecn_echo_reduces_once_per_window_and_sets_cwr() {
    let mut out = Vec::new();
    let mut f = flow(None, SackCfg::Off, |t| {
        t.ecn = true;
        t.initial_window = 20;
        t.ssthresh_base = crate::config::SsthreshBase::Flight;
    });
    f.start(0, &mut out);
    assert!(out.iter().all(|p| p.ecn == ECN_ECT));
    out.clear();
    let mut p = Packet::new(PktKind::Ack, 1, 0, 0, 40, 1);
    p.flags = FLAG_ECE;
    f.on_ack(MS, &p, &mut out);
    // RFC 3168 §6.1.2: ssthresh = max(FlightSize/2, 2), cwnd = ssthresh, with
    // FlightSize = 19 once this ACK has acked segment 0.
    assert_eq!(f.tp.cwnd, 9);
    assert_eq!(f.stats.ecn_reductions, 1);
    // More ECE within the same window: no further reduction.
    for a in 2..15 {
        let mut p = Packet::new(PktKind::Ack, a, 0, 0, 40, 1);
        p.flags = FLAG_ECE;
        f.on_ack(MS, &p, &mut out);
    }
    assert_eq!(f.stats.ecn_reductions, 1);
    // The first new segment sent after the reduction, and only it, carries CWR.
    assert!(!out.is_empty());
    assert!(out[0].flags & FLAG_CWR != 0);
    assert_eq!(out.iter().filter(|p| p.flags & FLAG_CWR != 0).count(), 1);
}

#[test]
fn receiver_echoes_ece_until_cwr_and_reports_sack_blocks() {
    let mut out = Vec::new();
    let mut r = flow(None, SackCfg::Rfc6675, |t| {
        t.ecn = true;
        t.timestamps = false; // the size check below counts SACK option bytes only
    });
    let data = |seq: u64, ecn: u8, flags: u8| {
        let mut p = Packet::new(PktKind::Data, seq, 0, 0, 1488, 0);
        p.ecn = ecn;
        p.flags = flags;
        p
    };
    r.on_data(MS, &data(0, ECN_ECT | ECN_CE, 0), &mut out);
    r.on_data(MS, &data(1, ECN_ECT, 0), &mut out);
    assert!(out.iter().all(|a| a.flags & FLAG_ECE != 0));
    out.clear();
    r.on_data(MS, &data(2, ECN_ECT, FLAG_CWR), &mut out);
    assert_eq!(out[0].flags & FLAG_ECE, 0);
    // Out of order: 4, 6 arrive; the latest block comes first (RFC 2018).
    out.clear();
    r.on_data(MS, &data(4, ECN_ECT, 0), &mut out);
    r.on_data(MS, &data(6, ECN_ECT, 0), &mut out);
    r.on_data(MS, &data(7, ECN_ECT, 0), &mut out);
    let last = out.last().unwrap();
    assert!(last.flags & FLAG_SACK != 0 && last.seq == 3);
    let e = r.rcv.sack_log.back().unwrap();
    assert_eq!(&e.blocks[..e.n as usize], &[(6, 8), (4, 5)]);
    assert_eq!(last.size, 40 + 4 + 16);
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
    f.tp.cwnd = 80;
    f.tp.ssthresh = 50;
    let sent = f.snd_max;
    ack(&mut f, MS, sent, &[], &mut out); // everything acknowledged
    f.app_pause();
    out.clear();
    let m = f.snd_max;
    ack(&mut f, 2 * MS, m, &[], &mut out);
    assert_eq!(f.snd_una, f.snd_max, "nothing outstanding while OFF");
    let cwnd = f.tp.cwnd;
    let last = f.last_send.unwrap();
    let rto = f.rtt.rto();
    f.app_resume(last + rto * 7 / 2, &mut out);
    // halvings while (delta −= rto) > 0 and cwnd > restart: delta = 3.5 rto → 3
    let mut want = cwnd;
    for _ in 0..3 {
        if want > 10 {
            want >>= 1;
        }
    }
    assert_eq!(f.stats.idle_restarts, 1);
    assert_eq!(f.tp.ssthresh, 50u32.max(cwnd * 3 / 4));
    assert_eq!(f.tp.cwnd, want.max(10.min(cwnd)));
    assert!(!out.is_empty(), "sends again after the restart");
    // A short pause (under one RTO) does not restart.
    let mut g = flow(None, SackCfg::Off, |_| {});
    g.start(0, &mut out);
    let s = g.snd_max;
    ack(&mut g, MS, s, &[], &mut out);
    g.app_pause();
    let m = g.snd_max;
    ack(&mut g, 2 * MS, m, &[], &mut out);
    let c = g.tp.cwnd;
    let l = g.last_send.unwrap();
    g.app_resume(l + g.rtt.rto() / 2, &mut out);
    assert_eq!((g.tp.cwnd, g.stats.idle_restarts), (c, 0));
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
    assert!(f.in_recovery);
    assert_eq!(f.tp.ssthresh, 10);
    for _ in 0..15 {
        ack(&mut f, 2 * MS, 0, &[], &mut out);
    }
    assert!(f.snd_max > 20, "the inflated window sent new data");
    let deadline = f.next_deadline().expect("RTO armed");
    f.on_timer(deadline, &mut out);
    assert_eq!(f.stats.timeouts, 1);
    assert_eq!(f.tp.cwnd, 1);
    assert_eq!(f.tp.ssthresh, 10);
    // From Open, an RTO does halve: ssthresh = max(FlightSize/2, 2) (RFC 5681 eq. 4).
    let mut g = flow(None, SackCfg::Off, |t| t.initial_window = 20);
    g.start(0, &mut out);
    let deadline = g.next_deadline().expect("RTO armed");
    g.on_timer(deadline, &mut out);
    assert_eq!(g.tp.ssthresh, 10);
}
