//! ns-2's sender rules that differ from Linux's, fed by hand as in
//! `tcp::tests`: the ECN response of `TcpAgent::ecn` and the first-segment
//! rule of ns-2.27's `dupack_action` (tcp/tcp.cc, tcp/tcp-newreno.cc and
//! tcp/tcp-sack1.cc at the ns-2.27 release, 2004-01-18).

use super::tests::{ack, flow};
use super::*;
use crate::config::{EcnResponse, SackCfg};
use crate::packet::FLAG_ECE;

const MS: SimTime = crate::units::PS_PER_MS;

/// A flow with ECN negotiated in its handshake (the SYN-ACK's ECN-Echo
/// sets ns-2's ect_), its first window sent at time 0.
fn ecn_flow(iw: u32, response: EcnResponse) -> (TcpFlow, Vec<Packet>) {
    let mut out = Vec::new();
    let mut f = flow(None, SackCfg::Off, |t| {
        t.ecn = true;
        t.ecn_response = response;
        t.initial_window = iw;
        t.handshake = true;
    });
    f.start(0, &mut out);
    out.clear();
    let mut p = Packet::new(PktKind::SynAck, 0, 0, 0, 40, 1);
    p.flags = FLAG_ECE;
    f.on_ack(0, &p, &mut out);
    (f, out)
}

fn ece_ack(f: &mut TcpFlow, now: SimTime, seq: u64, out: &mut Vec<Packet>) {
    let mut p = Packet::new(PktKind::Ack, seq, 0, 0, 40, 1);
    p.flags = FLAG_ECE;
    f.on_ack(now, &p, out);
}

#[test]
fn ns2_ecn_halves_the_window_to_zero_at_one() {
    // slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF): cwnd_ = int(window()/2),
    // ssthresh_ at least 2. Windows 1..5 give 0, 1, 1, 2, 2. Linux's
    // tcp_enter_cwr sets ssthresh max(w/2, 2) = 2 and PRR (tcp_cwnd_reduction)
    // on this ACK, with w − 1 in flight: below ssthresh packet conservation
    // + 1 up to ssthresh (w 1, 2: cwnd 2), at it one segment as none has
    // gone yet (w 3: 3), above it ⌈1·2/w⌉ = 1 (w 4, 5: cwnd w).
    for (w, ns2, linux) in [(1, 0, 2), (2, 1, 2), (3, 1, 3), (4, 2, 4), (5, 2, 5)] {
        let (mut f, mut out) = ecn_flow(w, EcnResponse::Ns2);
        out.clear();
        ece_ack(&mut f, MS, 1, &mut out);
        assert_eq!((f.c.open_cwnd(), f.c.tp.ssthresh), (ns2, 2), "ns2, window {w}");
        assert_eq!(f.c.stats.ecn_reductions, 1);
        let (mut f, _) = ecn_flow(w, EcnResponse::Linux);
        ece_ack(&mut f, MS, 1, &mut out);
        assert_eq!((f.c.open_cwnd(), f.c.tp.ssthresh), (linux, 2), "linux, window {w}");
    }
}

#[test]
fn ns2_ecn_at_a_window_of_one_waits_for_the_timer() {
    // At cwnd 0 nothing is sent; newtimer keeps the timer running although
    // nothing is outstanding; its expiry (timeout with highest_ack_ ==
    // maxseq_, restart_bugfix_) sets cwnd 1, keeps ssthresh, does not back
    // the timer off, and the next segment goes.
    let (mut f, mut out) = ecn_flow(1, EcnResponse::Ns2);
    assert_eq!(out.len(), 1);
    out.clear();
    ece_ack(&mut f, 100 * MS, 1, &mut out);
    assert!(out.is_empty(), "sent {:?}", out.iter().map(|p| p.seq).collect::<Vec<_>>());
    let rto = f.c.rtt.rto();
    assert_eq!(f.c.rto_deadline, Some(100 * MS + rto));
    f.on_timer(100 * MS + rto, &mut out);
    assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![1]);
    assert_eq!((f.c.tp.cwnd, f.c.tp.ssthresh), (1, 2));
    assert!(!f.c.rtt.backed_off());
    assert_eq!(f.c.stats.timeouts, 1);
    // A second ECN at cwnd ≤ 1 in a row backs the timer off (ecn_backoff_).
    out.clear();
    ece_ack(&mut f, 100 * MS + rto + 100 * MS, 2, &mut out);
    assert!(out.is_empty());
    assert_eq!(f.c.stats.ecn_reductions, 2);
    assert!(f.c.rtt.backed_off());
    // Linux: cwnd 2 at once, and the next two segments go.
    let (mut f, mut out) = ecn_flow(1, EcnResponse::Linux);
    out.clear();
    ece_ack(&mut f, 100 * MS, 1, &mut out);
    assert_eq!(out.len(), 2);
}

#[test]
fn ns2_acks_carrying_ece_do_not_open_the_window() {
    // recv_newack_helper opens the window only on an ACK without ECN-Echo
    // once ect_ is set (the first ECE ACK sets it). After the reduction at
    // cwnd 10 (cwnd = ssthresh = 5), eight more ACKs of the same window:
    // with ECE the window stays 5; without, congestion avoidance adds one.
    for (ece, want) in [(true, 5), (false, 6)] {
        let (mut f, mut out) = ecn_flow(10, EcnResponse::Ns2);
        f.c.cfg.tcp = std::sync::Arc::new(crate::config::TcpCfg { cwnd_limited_gate: false, ..(*f.c.cfg.tcp).clone() });
        ece_ack(&mut f, MS, 1, &mut out);
        assert_eq!(f.c.tp.cwnd, 5);
        for a in 2..=9 {
            if ece {
                ece_ack(&mut f, MS, a, &mut out);
            } else {
                ack(&mut f, MS, a, &[], &mut out);
            }
        }
        assert_eq!(f.c.stats.ecn_reductions, 1);
        assert_eq!(f.c.tp.cwnd, want, "ECE on the later ACKs: {ece}");
    }
}

#[test]
fn ns2_27_gives_a_lost_first_segment_no_fast_retransmit() {
    // ns-2.27 dupack_action (tcp-newreno.cc, tcp-sack1.cc): recovered =
    // highest_ack_ > recover_ is false while both are at the start, and
    // bug_fix_ returns; only the timer repairs the first segment. ns-2.35's
    // bugfix_ss_ (2006) and Linux retransmit it on the third duplicate ACK.
    // A loss after the first segment is fast-retransmitted either way.
    for sack in [SackCfg::Off, SackCfg::Sack1] {
        for (first, want) in [(false, false), (true, true)] {
            let mut out = Vec::new();
            let mut f = flow(None, sack, |t| {
                t.initial_window = 10;
                t.fast_retransmit_first = first;
            });
            f.start(0, &mut out);
            for k in 1..=3 {
                ack(&mut f, MS, 0, &[(1, 1 + k)], &mut out);
            }
            assert_eq!(f.c.in_recovery, want, "{sack:?}, fast_retransmit_first = {first}");
            let mut f = flow(None, sack, |t| {
                t.initial_window = 10;
                t.fast_retransmit_first = first;
            });
            f.start(0, &mut out);
            ack(&mut f, MS, 1, &[], &mut out);
            for k in 1..=3 {
                ack(&mut f, MS, 1, &[(2, 2 + k)], &mut out);
            }
            assert!(f.c.in_recovery, "{sack:?}: the second segment");
        }
    }
}

#[test]
fn ns2_27_sack1_leaves_the_last_holes_to_the_timer() {
    // A 20-segment file sent at once (window 20), segments 0 and 10 lost.
    // The third duplicate ACK retransmits segment 0 (dupack_action's
    // output(), outside the loop). ns-2.27's send_much loops only while
    // t_seqno_ < curseq_, so with the whole file sent segment 10 waits for
    // the timer; ns-2.35's loop retransmits it once pipe allows.
    for (stop, want) in [(true, vec![0]), (false, vec![0, 10])] {
        let mut out = Vec::new();
        let mut f = flow(Some(20), SackCfg::Sack1, |t| {
            t.initial_window = 20;
            t.sack1_stop_at_end = stop;
        });
        f.start(0, &mut out);
        assert_eq!(f.c.snd_max, 20);
        out.clear();
        for k in (1..=19u64).filter(|&k| k != 10) {
            let blocks = if k < 10 { vec![(1, k + 1)] } else { vec![(11, k + 1), (1, 10)] };
            ack(&mut f, MS, 0, &blocks, &mut out);
        }
        assert!(f.c.in_recovery);
        let mut sent: Vec<u64> = out.iter().map(|p| p.seq).collect();
        sent.dedup();
        assert_eq!(sent, want, "sack1_stop_at_end = {stop}");
    }
}
