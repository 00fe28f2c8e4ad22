//! Linux's answer to an ECN-Echo, fed by hand as in `tcp::tests`: CWR
//! entered and left as `tcp_enter_cwr`, `tcp_cwnd_reduction` and
//! `tcp_end_cwnd_reduction` do, the order of the algorithm's hooks around
//! the reduction (`tcp_ack`, Linux 6.14+), and what `in_ack_event` is told.

use super::tests::flow;
use super::*;
use crate::config::SackCfg;
use crate::packet::{Ecn, FLAG_CWR, FLAG_ECE};

const MS: SimTime = crate::units::PS_PER_MS;

#[test]
fn ecn_echo_reduces_once_per_window_and_sets_cwr() {
    let mut out = Vec::new();
    let mut f = flow(None, SackCfg::Off, |t| {
        t.ecn = true;
        t.initial_window = 20;
        t.ssthresh_base = crate::config::SsthreshBase::Flight;
    });
    f.start(0, &mut out);
    assert!(out.iter().all(|p| p.ecn == Ecn::Ect0));
    out.clear();
    let mut p = Packet::new(PktKind::Ack, 1, 0, 0, 40, 1);
    p.flags = FLAG_ECE;
    f.on_ack(MS, &p, &mut out);
    // RFC 3168 §6.1.2: ssthresh = max(FlightSize/2, 2) = 9, FlightSize = 19
    // once this ACK has acked segment 0. Linux (tcp_enter_cwr, then
    // tcp_cwnd_reduction on this ACK): PRR from prior_cwnd 20, flight 19 >
    // ssthresh, so ⌈1·9/20⌉ = 1 segment may go: cwnd = 19 + 1.
    assert_eq!((f.c.tp.ssthresh, f.c.tp.cwnd), (9, 20));
    assert_eq!(f.c.stats.ecn_reductions, 1);
    // More ECE within the same window: no further reduction, and the window
    // never grows in CWR; after the 14th ACK PRR has let ⌈14·9/20⌉ = 7 go.
    for a in 2..15 {
        let mut p = Packet::new(PktKind::Ack, a, 0, 0, 40, 1);
        p.flags = FLAG_ECE;
        let before = f.c.tp.cwnd;
        f.on_ack(MS, &p, &mut out);
        assert!(f.c.tp.cwnd <= before, "ACK {a}: cwnd {before} → {}", f.c.tp.cwnd);
    }
    assert_eq!(f.c.stats.ecn_reductions, 1);
    assert_eq!(out.len(), 7);
    // The first new segment sent after the reduction, and only it, carries CWR.
    assert!(out[0].flags & FLAG_CWR != 0);
    assert_eq!(out.iter().filter(|p| p.flags & FLAG_CWR != 0).count(), 1);
    // An ACK past high_seq (20) ends CWR with cwnd = ssthresh
    // (tcp_end_cwnd_reduction); one for high_seq itself does not.
    let p = Packet::new(PktKind::Ack, 20, 0, 0, 40, 1);
    f.on_ack(MS, &p, &mut out);
    assert!(f.c.in_cwr);
    let p = Packet::new(PktKind::Ack, 21, 0, 0, 40, 1);
    f.on_ack(MS, &p, &mut out);
    assert!(!f.c.in_cwr);
    assert_eq!(f.c.tp.cwnd, 9);
}

#[test]
fn an_ece_on_the_ack_that_ends_cwr_starts_the_next_reduction() {
    // tcp_fastretrans_alert leaves CWR (snd_una past high_seq) before
    // tcp_try_to_open sees the ECE of the same ACK and enters CWR again.
    let mut out = Vec::new();
    let mut f = flow(None, SackCfg::Off, |t| {
        t.ecn = true;
        t.initial_window = 20;
    });
    f.start(0, &mut out);
    let ece = |a| {
        let mut p = Packet::new(PktKind::Ack, a, 0, 0, 40, 1);
        p.flags = FLAG_ECE;
        p
    };
    f.on_ack(MS, &ece(1), &mut out);
    let high = f.c.cwr_high; // snd_nxt at the reduction: tp->high_seq
    for a in 2..=high {
        f.on_ack(MS, &Packet::new(PktKind::Ack, a, 0, 0, 40, 1), &mut out);
    }
    assert!(f.c.in_cwr && f.c.stats.ecn_reductions == 1);
    f.on_ack(2 * MS, &ece(high + 1), &mut out);
    assert_eq!(f.c.stats.ecn_reductions, 2);
    assert!(f.c.in_cwr);
}

/// An algorithm that halves like Reno and records the order in which its
/// hooks are called.
struct OrderSpy(std::rc::Rc<std::cell::RefCell<Vec<&'static str>>>);

impl crate::cc::CongestionOps for OrderSpy {
    fn name(&self) -> &'static str {
        "order_spy"
    }
    fn ssthresh(&mut self, tp: &crate::cc::CcState) -> u32 {
        self.0.borrow_mut().push("ssthresh");
        tp.half_window()
    }
    fn cong_avoid(&mut self, tp: &mut crate::cc::CcState, acked: u32) {
        crate::cc::reno_cong_avoid(tp, acked)
    }
    fn in_ack_event(&mut self, _tp: &crate::cc::CcState, _acked: u32, _flags: u32) {
        self.0.borrow_mut().push("in_ack_event");
    }
    fn pkts_acked(&mut self, _tp: &mut crate::cc::CcState, _s: &crate::cc::AckSample) {
        self.0.borrow_mut().push("pkts_acked");
    }
}

#[test]
fn the_algorithm_sees_an_ack_before_the_reduction_it_starts_as_linux() {
    // Linux 6.14+ tcp_ack: tcp_clean_rtx_queue (→ pkts_acked), then
    // tcp_in_ack_event, then tcp_fastretrans_alert (→ tcp_enter_cwr →
    // ssthresh). Without `ack_hooks_first` (the ns-2 stacks) the hooks
    // run after the reduction.
    for (first, want) in
        [(true, ["pkts_acked", "in_ack_event", "ssthresh"]), (false, ["ssthresh", "in_ack_event", "pkts_acked"])]
    {
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let mut out = Vec::new();
        let mut f = flow(None, SackCfg::Off, |t| {
            t.ecn = true;
            t.initial_window = 10;
            t.ack_hooks_first = first;
        });
        f.c.cc = Box::new(OrderSpy(seen.clone()));
        f.start(0, &mut out);
        let mut p = Packet::new(PktKind::Ack, 1, 0, 0, 40, 1);
        p.flags = FLAG_ECE;
        f.on_ack(MS, &p, &mut out);
        assert_eq!(f.c.stats.ecn_reductions, 1);
        assert_eq!(seen.borrow().as_slice(), want, "ack_hooks_first = {first}");
    }
}

#[test]
fn dctcp_cuts_with_the_alpha_its_ack_has_just_updated() {
    // tcp_dctcp.c: dctcp_update_alpha (in_ack_event) ends an observation
    // window and sets α = α − min_not_zero(α, α >> g) + (ce << (10 − g)) /
    // delivered; dctcp_ssthresh on the same ACK then gives cwnd − ((cwnd ·
    // α) >> 11) with that new α. Window 1 ends on the first ACK (no CE):
    // 1024 → 960. Window 2 ends on the ACK for its snd_nxt, which carries
    // ECE for 1 of the segments it delivered.
    let mut out = Vec::new();
    let mut f = flow(None, SackCfg::Off, |t| {
        t.cc = "dctcp".into();
        t.ecn = true;
        t.ecn_feedback = crate::packet::EcnFeedback::Dctcp;
        t.initial_window = 64; // a window large enough for α's step to move the cut
        t.max_cwnd = Some(1000);
    });
    f.start(0, &mut out);
    // Window 2 is reset by the first ACK before that ACK's new segments
    // go: its next_seq is the initial window's snd_nxt.
    let end = f.c.snd_max;
    f.on_ack(MS, &Packet::new(PktKind::Ack, 1, 0, 0, 40, 1), &mut out);
    for a in 2..end {
        f.on_ack(MS, &Packet::new(PktKind::Ack, a, 0, 0, 40, 1), &mut out);
    }
    let cwnd = f.c.tp.cwnd as u64;
    let delivered = end - 1; // segments 1 .. end − 1 in window 2
    let mut p = Packet::new(PktKind::Ack, end, 0, 0, 40, 1);
    p.flags = FLAG_ECE;
    f.on_ack(2 * MS, &p, &mut out);
    assert_eq!(f.c.stats.ecn_reductions, 1);
    let old = 960u64;
    let new = old - (old >> 4) + (1 << 6) / delivered;
    let want = cwnd - ((cwnd * new) >> 11);
    assert_ne!(want, cwnd - ((cwnd * old) >> 11), "the test needs α's update to move the cut");
    assert_eq!(f.c.tp.ssthresh as u64, want, "cwnd {cwnd}, α {old} → {new}");
}

/// An algorithm that grows like Reno and records what `in_ack_event` is
/// told: (flags, delivered, delivered_ce) per ACK.
struct InAckSpy(std::rc::Rc<std::cell::RefCell<Vec<(u32, u64, u64)>>>);

impl crate::cc::CongestionOps for InAckSpy {
    fn name(&self) -> &'static str {
        "spy"
    }
    fn ssthresh(&mut self, tp: &crate::cc::CcState) -> u32 {
        tp.half_window()
    }
    fn cong_avoid(&mut self, tp: &mut crate::cc::CcState, acked: u32) {
        crate::cc::reno_cong_avoid(tp, acked)
    }
    fn in_ack_event(&mut self, tp: &crate::cc::CcState, _acked: u32, flags: u32) {
        self.0.borrow_mut().push((flags, tp.delivered, tp.delivered_ce));
    }
}

#[test]
fn ece_acks_raise_ca_ack_ece_and_count_delivered_ce() {
    // Linux tcp_ack: an ACK with ECE on an ECN connection sets FLAG_ECE,
    // passes CA_ACK_ECE to in_ack_event, and tcp_count_delivered adds what
    // it delivered to delivered_ce; without ECN negotiated, ECE is ignored.
    for ecn in [true, false] {
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let mut out = Vec::new();
        let mut f = flow(None, SackCfg::Off, |t| {
            t.ecn = ecn;
            t.initial_window = 10;
        });
        f.c.cc = Box::new(InAckSpy(seen.clone()));
        f.start(0, &mut out);
        // ACK 2 (delivers segments 0, 1) with ECE; ACK 5 (2..4) without;
        // ACK 6 (segment 5) with ECE.
        for (a, ece) in [(2u64, true), (5, false), (6, true)] {
            let mut p = Packet::new(PktKind::Ack, a, 0, 0, 40, 1);
            if ece {
                p.flags = FLAG_ECE;
            }
            f.on_ack(MS, &p, &mut out);
        }
        let e = crate::cc::CA_ACK_ECE;
        let expect = if ecn { vec![(e, 2, 2), (0, 5, 2), (e, 6, 3)] } else { vec![(0, 2, 0), (0, 5, 0), (0, 6, 0)] };
        assert_eq!(*seen.borrow(), expect, "ecn = {ecn}");
    }
}

#[test]
fn a_linux_receiver_quick_acks_two_segments_at_the_first_ce_and_acks_cwr_at_once() {
    // Linux receiver with delayed ACKs, classic feedback. __tcp_ecn_check_ce:
    // the first CE enters quick-ACK mode for 2 segments
    // (tcp_enter_quickack_mode(sk, 2)); a later CE while CWR is demanded
    // does not. tcp_ecn_accept_cwr: a data segment with CWR is ACKed at once.
    let mut out = Vec::new();
    let mut r = flow(None, SackCfg::Rfc6675, |t| {
        t.ecn = true;
        t.delayed_ack = true;
        t.delack_timer = crate::config::DelackTimer::Linux;
        t.timestamps = false; // full-sized segments of 1488 bytes on the wire
    });
    let data = |seq: u64, ecn: Ecn, flags: u8| {
        let mut p = Packet::new(PktKind::Data, seq, 0, 0, 1488, 0);
        p.ecn = ecn;
        p.flags = flags;
        p
    };
    // Leave the connection's opening quick-ACKs behind: back-to-back
    // segments until one is held for a delayed ACK.
    let mut seq = 0;
    let mut t = MS;
    for _ in 0..100 {
        out.clear();
        r.c.on_data(t, &data(seq, Ecn::Ect0, 0), &mut out);
        seq += 1;
        t += 10 * crate::units::PS_PER_US;
        if out.is_empty() {
            break;
        }
    }
    assert!(out.is_empty(), "no segment was held for a delayed ACK");
    // Its pair goes out: the delayed-ACK count of 2.
    out.clear();
    r.c.on_data(t, &data(seq, Ecn::Ect0, 0), &mut out);
    seq += 1;
    assert_eq!(out.len(), 1);
    let acks_for = |r: &mut TcpFlow, seq: &mut u64, t: SimTime, ecn: Ecn, flags: u8, out: &mut Vec<Packet>| {
        out.clear();
        r.c.on_data(t, &data(*seq, ecn, flags), out);
        *seq += 1;
        out.len()
    };
    // First CE: this segment and the next are ACKed at once, ECE on both;
    // the third waits again.
    assert_eq!(acks_for(&mut r, &mut seq, t, Ecn::Ce, 0, &mut out), 1);
    assert!(out[0].flags & FLAG_ECE != 0);
    assert_eq!(acks_for(&mut r, &mut seq, t, Ecn::Ect0, 0, &mut out), 1);
    assert!(out[0].flags & FLAG_ECE != 0);
    assert_eq!(acks_for(&mut r, &mut seq, t, Ecn::Ect0, 0, &mut out), 0);
    // A second CE while CWR is still demanded: no quick-ACK (the delayed
    // ACK owed goes for the count of 2).
    assert_eq!(acks_for(&mut r, &mut seq, t, Ecn::Ce, 0, &mut out), 1);
    assert_eq!(acks_for(&mut r, &mut seq, t, Ecn::Ect0, 0, &mut out), 0);
    // The CWR segment: ACKed at once, without ECE.
    assert_eq!(acks_for(&mut r, &mut seq, t, Ecn::Ect0, FLAG_CWR, &mut out), 1);
    assert_eq!(out[0].flags & FLAG_ECE, 0);
    // A CWR segment that is itself CE: ACKed at once, ECE set again.
    assert_eq!(acks_for(&mut r, &mut seq, t, Ecn::Ect0, 0, &mut out), 0);
    assert_eq!(acks_for(&mut r, &mut seq, t, Ecn::Ce, FLAG_CWR, &mut out), 1);
    assert!(out[0].flags & FLAG_ECE != 0);
}
