//! The receiving end of a flow: cumulative ACKs with SACK blocks (RFC 2018),
//! delayed ACKs (RFC 5681 §4.2, RFC 1122 §4.2.3.2) with a fixed timer or
//! Linux's adaptive one and quick-ACK mode, the timestamp echo (RFC 7323
//! §4.3) and the ECN echo (RFC 3168 §6.1.3).

use super::ranges::RangeSet;
use super::rcvwnd::{ms_clock, RcvWindow};
use super::rtt::RttEstimator;
use super::types::SackEntry;
use crate::cc::CwndEvent;
use crate::config::{sack_option_bytes, DelackTimer, EcnFeedback, SackCfg, TcpCfg};
use crate::packet::{Ecn, Packet, PktKind, FLAG_CWR, FLAG_ECE, FLAG_SACK};
use crate::units::{SimTime, PS_PER_MS};

/// CE marks awaiting report at which an AccECN receiver ACKs at once
/// (Linux TCP_ACCECN_ACE_MAX_DELTA).
const ACCECN_ACE_MAX_DELTA: u32 = 6;

/// TCP_ATO_MIN and TCP_DELACK_MIN (HZ/25) of include/net/tcp.h.
const ATO_MIN: SimTime = 40 * PS_PER_MS;
/// The cap tcp_send_delayed_ack puts on ato before the RTT bound (HZ/2).
const ATO_MAX: SimTime = 500 * PS_PER_MS;
use std::collections::VecDeque;

/// The CE event an arriving data segment raises at the receiver, where
/// Linux raises it (tcp_input.c __tcp_ecn_check_ce, to the receiving
/// socket's algorithm when it has TCP_CONG_NEEDS_ECN): CA_EVENT_ECN_IS_CE
/// for CE, CA_EVENT_ECN_NO_CE for ECT(0) or ECT(1), nothing for Not-ECT.
#[inline]
pub(super) fn ce_event(ecn: Ecn) -> Option<CwndEvent> {
    match ecn {
        Ecn::Ce => Some(CwndEvent::EcnIsCe),
        Ecn::Ect0 | Ecn::Ect1 => Some(CwndEvent::EcnNoCe),
        Ecn::NotEct => None,
    }
}

/// The receiver's ECN feedback: what the ACKs say about the CE marks the
/// data met. One place for it, fed the CE events above and the sender's CWR,
/// in the flow's `ecn_feedback` mode:
/// - classic (RFC 3168 §6.1.3): ECE latched from the first CE until a
///   segment with CWR arrives;
/// - dctcp (RFC 8257 §3.2, Linux tcp_dctcp.c dctcp_ece_ack_update): ECE is
///   the CE state of the last segment; CWR does not clear it;
/// - accecn (RFC 9768, Linux `tcp_ecn_received_counters`): a count of
///   CE-marked segments (r.cep, Linux received_ce) that every ACK carries.
#[derive(Default)]
pub(super) struct EcnEcho {
    /// The ECE flag of the next ACK.
    ece: bool,
    /// AccECN: CE-marked segments received, and those not yet reported.
    received_ce: u64,
    ce_pending: u32,
}

impl EcnEcho {
    /// A data segment with CWR set: the sender has reduced (RFC 3168 §6.1.3;
    /// Linux tcp_ecn_accept_cwr). Under DCTCP feedback the segment's own CE
    /// state sets ECE again at once (dctcp_ece_ack_cwr), so CWR changes nothing.
    #[inline]
    fn on_cwr(&mut self, fb: EcnFeedback) {
        // AccECN: CWR is a bit of the ACE field, not a reduction signal.
        if fb == EcnFeedback::Classic {
            self.ece = false;
        }
    }

    /// Whether the CE event `ev` changes the DCTCP CE state, so that a
    /// delayed ACK still owed must go first with the old state.
    #[inline]
    fn dctcp_changes(&self, ev: CwndEvent) -> bool {
        (ev == CwndEvent::EcnIsCe) != self.ece
    }

    /// A CE event of an arriving segment; true when it must be ACKed at once.
    /// Classic: when CE first appears (Linux __tcp_ecn_check_ce enters
    /// quick-ACK unless TCP_ECN_DEMAND_CWR is already set). DCTCP: when the
    /// CE state changes (ICSK_ACK_NOW in dctcp_ece_ack_update).
    #[inline]
    fn on_event(&mut self, ev: CwndEvent, fb: EcnFeedback) -> bool {
        let ce = ev == CwndEvent::EcnIsCe;
        match fb {
            EcnFeedback::Accecn => {
                // Linux caps the pending count at 15 and ACKs at once from
                // TCP_ACCECN_ACE_MAX_DELTA = 6, before the 3-bit field wraps.
                if ce {
                    self.received_ce += 1;
                    self.ce_pending = (self.ce_pending + 1).min(15);
                }
                self.ce_pending >= ACCECN_ACE_MAX_DELTA
            }
            EcnFeedback::Classic => {
                let first = ce && !self.ece;
                self.ece |= ce;
                first
            }
            EcnFeedback::Dctcp => {
                let changed = ce != self.ece;
                self.ece = ce;
                changed
            }
        }
    }

    /// The ECE flag of the next ACK.
    #[inline]
    fn ece(&self) -> bool {
        self.ece
    }
}

/// The receiver's state (the other end of the flow, kept in the same slot).
#[derive(Default)]
pub(super) struct Receiver {
    /// Next in-order segment expected.
    pub(super) rcv_nxt: u64,
    /// Out-of-order segments held above rcv_nxt.
    pub(super) ooo: RangeSet,
    /// Full-sized segments received since the last ACK (delayed ACK).
    pub(super) unacked_segs: u32,
    pub(super) delack_deadline: Option<SimTime>,
    /// Timestamp to echo (RFC 7323 TS.Recent).
    pub(super) ts_recent: SimTime,
    pub(super) last_ack_sent: u64,
    /// The ECN feedback the ACKs carry.
    ecn: EcnEcho,
    /// Segments still to ACK at once (Linux quick-ACK).
    pub(super) quickack_left: u32,
    /// The quick-ACK quota a (re)start grants (tcp_incr_quickack).
    quickack_quota: u32,
    /// Linux icsk_ack.ato (0 until the first segment) and lrcvtime.
    ato: SimTime,
    lrcvtime: SimTime,
    /// The blocks reported in the last ACK (RFC 2018 §4 order), as they
    /// were then; `sack_hist_n` of them.
    sack_hist: [(u64, u64); 4],
    sack_hist_n: u8,
    /// The hull of the ranges the out-of-order inserts since the last SACK
    /// blocks were built changed (`RangeSet::insert`'s result). A reported
    /// block outside it is unchanged: ranges change only by an insert
    /// (merged into its result) or by leaving from below `rcv_nxt`.
    ooo_touched: Option<(u64, u64)>,
    /// SACK blocks of ACKs in flight, by ACK id, for the sender to read.
    pub(super) sack_log: VecDeque<SackEntry>,
    /// AccECN counts of ACKs in flight, by ACK id, for the sender to read.
    pub(super) ace_log: VecDeque<(u32, u64)>,
    pub(super) ack_id: u32,
    /// A duplicate segment to report in the next ACK's first SACK block
    /// (RFC 2883 D-SACK), reported once.
    pub(super) dsack: Option<u64>,
    /// Duplicate segments received (D-SACKed or not).
    pub(super) dup_segs: u64,
    /// Linux's window growth (`tcp.rcv_autotune`), and for each ACK in
    /// flight, by ACK id, for the sender: the right edge (segments) it
    /// offers and its TSval (the receiver's millisecond clock).
    wnd: Option<RcvWindow>,
    wnd_log: VecDeque<(u32, u64, u32)>,
}

impl Receiver {
    pub(super) fn new(t: &TcpCfg) -> Self {
        // tcp_incr_quickack: rcv_wnd / (2·rcv_mss), at least 2, at most the
        // quota (TCP_MAX_QUICKACKS = 16 for the linux stack).
        let quota = match (t.delack_timer, t.rwnd_bytes) {
            (DelackTimer::Linux, Some(w)) => ((w / (2 * t.mss as u64)).max(2)).min(t.quickack as u64) as u32,
            _ => t.quickack,
        };
        let quick = if t.delack_timer == DelackTimer::Linux { 0 } else { quota };
        let wnd = t.rcv_autotune.then(|| RcvWindow::new(t.mss));
        Receiver { quickack_left: quick, quickack_quota: quota, wnd, ..Default::default() }
    }

    /// The window the SYN-ACK offers (segments), when the receiver models
    /// Linux's window growth.
    pub(super) fn initial_window_segs(&self) -> Option<u32> {
        self.wnd.as_ref().map(RcvWindow::initial_segs)
    }

    /// The right edge (segments) the ACK with id `id` offered and its
    /// TSval, for the sender reading it (older entries, of ACKs lost or
    /// overtaken, go).
    pub(super) fn take_window(&mut self, id: u32) -> Option<(u64, u32)> {
        while self.wnd_log.front().is_some_and(|&(i, _, _)| i < id) {
            self.wnd_log.pop_front();
        }
        match self.wnd_log.front() {
            Some(&(i, edge, tsval)) if i == id => {
                self.wnd_log.pop_front();
                Some((edge, tsval))
            }
            _ => None,
        }
    }

    /// Linux tcp_event_data_recv for in-order data: the first segment
    /// starts quick-ACK mode with ato = TCP_ATO_MIN; later ones adapt ato to
    /// the inter-arrival gap m, and a gap longer than the RTO re-arms
    /// quick-ACK mode.
    #[inline]
    fn event_data_recv(&mut self, now: SimTime, srtt: Option<SimTime>, t: &TcpCfg) {
        let m = now - self.lrcvtime;
        self.lrcvtime = now;
        if self.ato != 0 && m <= ATO_MIN / 2 {
            // The common case: back-to-back segments.
            self.ato = self.ato / 2 + ATO_MIN / 2;
            return;
        }
        // The receiving socket's RTO, which Linux bases on the handshake's
        // RTT: taken as the sender's smallest RTT + min_rto.
        let rto = srtt.map_or(t.initial_rto_ps, |r| r + t.min_rto_ps);
        if self.ato == 0 {
            self.quickack_left = self.quickack_left.max(self.quickack_quota);
            self.ato = ATO_MIN;
        } else if m < self.ato {
            self.ato = (self.ato / 2 + m).min(rto);
        } else if m > rto {
            self.quickack_left = self.quickack_left.max(self.quickack_quota);
        }
    }

    /// Linux __tcp_ecn_check_ce on the first CE (no CWR demanded yet):
    /// tcp_enter_quickack_mode(sk, 2), quick-ACKs for this segment and the
    /// next (tcp_incr_quickack, within the quota) and ato at TCP_ATO_MIN.
    /// Called after tcp_event_data_recv's ato update, as Linux orders them.
    fn enter_ce_quickack(&mut self) {
        self.quickack_left = self.quickack_left.max(self.quickack_quota.min(2));
        self.ato = ATO_MIN;
    }

    /// Linux tcp_send_delayed_ack: the timeout is ato, bounded by
    /// max(srtt, TCP_DELACK_MIN) once ato exceeds TCP_DELACK_MIN and by
    /// `delack_timeout` (icsk_delack_max, TCP_DELACK_MAX); an armed timer
    /// keeps its earlier expiry, and one due within ato/4 means ACK now.
    /// Returns false when the ACK must go at once.
    fn arm_linux_delack(&mut self, now: SimTime, srtt: Option<SimTime>, max: SimTime) -> bool {
        let mut ato = self.ato;
        if ato > ATO_MIN {
            let mut max_ato = ATO_MAX;
            if let Some(r) = srtt {
                max_ato = max_ato.min(r.max(ATO_MIN));
            }
            ato = ato.min(max_ato);
        }
        ato = ato.min(max);
        let mut timeout = now + ato;
        if let Some(d) = self.delack_deadline {
            if d <= now + ato / 4 {
                return false;
            }
            timeout = timeout.min(d);
        }
        self.delack_deadline = Some(timeout);
        true
    }
}

impl Receiver {
    /// Build the SACK blocks for an ACK (RFC 2018 §4): first the block holding
    /// the segment that triggered the ACK, then the most recently reported
    /// blocks that are still above rcv_nxt, without repeats; at most `max`.
    fn sack_blocks(&mut self, trigger: Option<u64>, max: usize) -> SackEntry {
        let mut e = SackEntry { id: 0, n: 0, blocks: [(0, 0); 4] };
        // RFC 2883 §4: a D-SACK block goes first; the block holding the
        // duplicate (the trigger's) follows it.
        if let Some(d) = self.dsack.take() {
            e.blocks[0] = (d, d + 1);
            e.n = 1;
        }
        let first_sack = e.n as usize;
        let touched = self.ooo_touched.take();
        let hist = self.sack_hist;
        let hist = hist[..self.sack_hist_n as usize].iter().map(|&r| (r.0, Some(r)));
        for (s, was) in trigger.map(|s| (s, None)).into_iter().chain(hist) {
            if (e.n as usize) >= max {
                break;
            }
            if s < self.rcv_nxt {
                continue;
            }
            // a block reported last time and untouched since is still a range
            let r = match (was, touched) {
                (Some(r), Some((lo, hi))) if r.1 <= lo || hi <= r.0 => Some(r),
                (Some(r), None) => Some(r),
                _ => self.ooo.find(s),
            };
            if let Some(r) = r {
                if !e.blocks[first_sack..e.n as usize].contains(&r) {
                    e.blocks[e.n as usize] = r;
                    e.n += 1;
                }
            }
        }
        let n = e.n as usize - first_sack;
        self.sack_hist[..n].copy_from_slice(&e.blocks[first_sack..e.n as usize]);
        self.sack_hist_n = n as u8;
        e
    }

    /// The ACK to send now (`trigger`: the out-of-order segment that caused
    /// it, reported first). The SACK blocks it carries are filed in
    /// `sack_log` under the ACK's id for the sender to read.
    pub(super) fn make_ack(
        &mut self,
        now: SimTime,
        trigger: Option<u64>,
        t: &TcpCfg,
        flow: u32,
        hdr: u32,
        route: u32,
    ) -> Packet {
        self.unacked_segs = 0;
        self.delack_deadline = None;
        let mut p = Packet::new(PktKind::Ack, self.rcv_nxt, self.ts_recent, flow, hdr, route);
        self.ack_id = self.ack_id.wrapping_add(1);
        p.aux = self.ack_id;
        if t.ecn && t.ecn_feedback == EcnFeedback::Accecn {
            // The ACE field (and option): the count, filed under the ACK's id.
            self.ecn.ce_pending = 0;
            self.ace_log.push_back((self.ack_id, self.ecn.received_ce));
        } else if self.ecn.ece() {
            p.flags |= FLAG_ECE;
        }
        if t.sack != SackCfg::Off && t.receiver_sack && (!self.ooo.is_empty() || self.dsack.is_some()) {
            let mut e = self.sack_blocks(trigger, t.sack_blocks as usize);
            if e.n > 0 {
                e.id = self.ack_id;
                p.flags |= FLAG_SACK;
                p.size += sack_option_bytes(e.n as u32);
                self.sack_log.push_back(e);
            }
        }
        if let Some(w) = &mut self.wnd {
            self.wnd_log.push_back((self.ack_id, w.advertise(self.rcv_nxt), ms_clock(now)));
        }
        self.last_ack_sent = self.rcv_nxt;
        p
    }

    /// DCTCP feedback (RFC 8257 §3.2; Linux dctcp_ece_ack_update): the
    /// segment `pkt` changes the CE state while a delayed ACK is owed, so
    /// that ACK must go now, before the segment is taken, with the old
    /// state (Linux sends it for the prior rcv_nxt).
    pub(super) fn ack_before_ce_change(&self, pkt: &Packet, t: &TcpCfg) -> bool {
        t.ecn
            && t.ecn_feedback == EcnFeedback::Dctcp
            && self.delack_deadline.is_some()
            && ce_event(pkt.ecn).is_some_and(|ev| self.ecn.dctcp_changes(ev))
    }

    /// A data segment arrived. Returns `Some(trigger)` when an ACK must go
    /// at once, `None` when it is delayed (the delayed-ACK timer is armed
    /// here). `scratch` is a reusable buffer.
    ///
    /// `payload` is the segment's data bytes; a data segment's `aux` is
    /// its TSecr (the receiver's millisecond clock). `rtt` is the flow's
    /// RTT estimator: its smallest RTT stands for the receiving socket's
    /// RTT, which Linux takes from the handshake (the delayed-ACK timer's).
    pub(super) fn on_segment(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        payload: u32,
        t: &TcpCfg,
        rtt: &RttEstimator,
        scratch: &mut Vec<(u64, u64)>,
    ) -> Option<Option<u64>> {
        let srtt = rtt.min_rtt;
        let seq = pkt.seq;
        // tcp_rcv_rtt_measure_ts, for every segment tcp_sequence accepts
        // (its end at or beyond rcv_wup, the rcv_nxt last ACKed)
        if let Some(w) = &mut self.wnd {
            if t.timestamps && seq + 1 >= self.last_ack_sent {
                w.rtt.measure_ts(now, pkt.aux, payload >= t.mss);
            }
        }
        // RFC 7323 §4.3: TS.Recent comes from the segment that covers
        // Last.ACK.sent, so a delayed ACK echoes the earliest segment it acks,
        // and never moves backwards: a reordered older segment (smaller
        // TSval) leaves it (Linux tcp_replace_ts_recent → tcp_paws_check
        // with paws_win 0, then tcp_store_ts_recent).
        if seq <= self.last_ack_sent && pkt.ts >= self.ts_recent {
            self.ts_recent = pkt.ts;
        }
        let mut immediate = false;
        // A first CE under classic feedback on the linux stack: quick-ACK
        // mode, entered after the segment's ato update as Linux does.
        let mut first_ce = false;
        let linux = t.delack_timer == DelackTimer::Linux;
        if t.ecn {
            if pkt.flags & FLAG_CWR != 0 {
                self.ecn.on_cwr(t.ecn_feedback);
                // Linux tcp_ecn_accept_cwr (include/net/tcp_ecn.h): a data
                // segment carrying CWR is ACKed at once, "its cwnd may be
                // very low". AccECN's CWR is a bit of its counter instead.
                immediate |= linux && payload > 0 && t.ecn_feedback != EcnFeedback::Accecn;
            }
            if let Some(ev) = ce_event(pkt.ecn) {
                let now_ack = self.ecn.on_event(ev, t.ecn_feedback);
                if linux && t.ecn_feedback == EcnFeedback::Classic {
                    first_ce = now_ack;
                } else {
                    immediate |= now_ack;
                }
            }
        }
        if seq == self.rcv_nxt {
            let had_gap = !self.ooo.is_empty();
            self.rcv_nxt += 1;
            while let Some(end) = self.ooo.pop_front_at(self.rcv_nxt) {
                self.rcv_nxt = end;
            }
            if linux {
                self.event_data_recv(now, srtt, t);
                if first_ce {
                    self.enter_ce_quickack();
                }
                // A short segment marks the ACK "pushed" (tcp_measure_rcv_mss)
                // and tcp_cleanup_rbuf sends it once the application has read
                // the data, taken here to be at once.
                immediate |= payload < t.mss;
            }
            // tcp_grow_window runs for segments of 128 bytes or more; a
            // raise of the window is ACKed at once (icsk_ack.quick |= 1: an
            // even quick-ACK count gains one, so raises keep the count from
            // falling while the window opens).
            if let Some(w) = &mut self.wnd {
                if payload >= 128 && w.on_in_order(now, self.rcv_nxt, self.last_ack_sent) {
                    self.quickack_left |= 1;
                }
            }
            if self.quickack_left > 0 {
                self.quickack_left -= 1;
                immediate = true;
            }
            if !t.delayed_ack || had_gap || immediate {
                // No delayed ACK, quick-ACK, or the segment filled a hole.
                return Some(None);
            }
            self.unacked_segs += 1;
            if self.unacked_segs >= t.delack_count {
                return Some(None);
            }
            if linux {
                if !self.arm_linux_delack(now, srtt, t.delack_timeout_ps) {
                    return Some(None);
                }
            } else if self.delack_deadline.is_none() {
                self.delack_deadline = Some(now + t.delack_timeout_ps);
            }
            None
        } else if seq > self.rcv_nxt {
            if first_ce {
                self.enter_ce_quickack();
            }
            // Out of order: remember it and send an immediate duplicate ACK.
            scratch.clear();
            if let Some((lo, hi)) = self.ooo.insert(seq, seq + 1, scratch) {
                self.ooo_touched = Some(self.ooo_touched.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
            }
            if scratch.is_empty() {
                self.dup_segs += 1;
                if t.dsack {
                    self.dsack = Some(seq);
                }
            }
            Some(Some(seq))
        } else {
            // Duplicate of data already received: immediate ACK (Linux
            // tcp_send_dupack), with a D-SACK for it.
            self.dup_segs += 1;
            if t.dsack {
                self.dsack = Some(seq);
            }
            Some(None)
        }
    }
}
