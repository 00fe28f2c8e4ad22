//! TCP endpoints of one flow: the sender and the receiver, with their timers.
//!
//! Sequence space is in segments (segment k carries bytes [k·MSS, (k+1)·MSS)
//! of the application stream; the last segment of a file may be shorter).
//! Sender follows RFC 5681 (slow start, congestion avoidance through the
//! congestion module, fast retransmit), RFC 6582 (NewReno), classic Reno and
//! Tahoe recovery as in ns-2 (see `Recovery`), RFC 6298 (RTO, Karn, back-off)
//! and an optional SYN / SYN-ACK exchange. Receiver: cumulative ACKs,
//! optional delayed ACK (every `delack_count` segments or a timer), an
//! immediate ACK for out-of-order, duplicate and hole-filling segments
//! (RFC 5681 §4.2), and a fixed advertised window.
//!
//! Endpoints never touch the scheduler: they push the packets they send into
//! an output buffer and expose their timer deadlines; the simulation injects
//! the packets and keeps one pending timer event per flow.

pub mod rtt;

use crate::cc::{self, AckSample, CaState, CcState, CongestionOps};
use crate::config::{AppCfg, FlowCfg};
use crate::packet::{PktKind, Packet};
use crate::units::SimTime;
use rtt::RttEstimator;
use std::collections::VecDeque;

/// Loss-recovery variant, chosen by the algorithm name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Fast retransmit, then slow start from cwnd = 1 with go-back-N
    /// (Jacobson 1988; ns-2 `Agent/TCP` dupack_action "tahoe_action").
    Tahoe,
    /// RFC 5681 fast recovery; any new ACK ends it. A further fast retransmit
    /// in the same window is allowed after a fast retransmit but not after a
    /// timeout (ns-2 `RenoTcpAgent::allow_fast_retransmit`).
    Reno,
    /// RFC 6582 (Careful variant): stays in recovery until `recover` is
    /// acknowledged, retransmits on partial ACKs, resets the timer only on the
    /// first partial ACK ("Impatient").
    NewReno,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LastAction {
    None,
    FastRetransmit,
    Timeout,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderState {
    /// Not started yet.
    Idle,
    SynSent,
    Established,
}

/// Trace events a flow reports (kind, value), timestamped by the simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowEventKind {
    /// value = the RTO that expired, seconds.
    Timeout,
    /// value = cwnd before the reduction, segments.
    FastRetransmit,
    /// value = duration of the recovery episode, seconds.
    RecoveryEnd,
    /// value = flow completion time, seconds.
    Completed,
}

impl FlowEventKind {
    pub fn name(&self) -> &'static str {
        match self {
            FlowEventKind::Timeout => "timeout",
            FlowEventKind::FastRetransmit => "fast_retransmit",
            FlowEventKind::RecoveryEnd => "recovery_end",
            FlowEventKind::Completed => "completed",
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct TxRec {
    sent_at: SimTime,
    retrans: bool,
}

#[derive(Clone, Debug, Default)]
pub struct FlowStats {
    pub data_pkts_sent: u64,
    pub data_bytes_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub acks_sent: u64,
    pub acks_received: u64,
    pub dupacks_received: u64,
    pub rtt_sum_ps: u128,
    pub rtt_samples: u64,
    pub rto_sum_at_timeout_ps: u128,
    /// Packets of this flow (both directions) put into the network,
    /// delivered to an endpoint, and dropped or lost on the way.
    pub pkts_injected: u64,
    pub pkts_arrived: u64,
    pub pkts_dropped: u64,
}

pub struct TcpFlow {
    pub id: u32,
    pub fwd_route: u32,
    pub rev_route: u32,
    pub start: SimTime,
    pub cfg: FlowCfg,
    total_segs: u64,
    file_bytes: Option<u64>,
    recovery: Recovery,
    cc: Box<dyn CongestionOps>,
    pub tp: CcState,
    rwnd_segs: u32,

    // --- sender ---
    pub state: SenderState,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    recover: u64,
    recover_valid: bool,
    in_recovery: bool,
    recovery_started: SimTime,
    first_partial: bool,
    last_action: LastAction,
    dupacks: u32,
    txq: VecDeque<TxRec>,
    pub rtt: RttEstimator,
    rto_deadline: Option<SimTime>,
    syn_sent_at: SimTime,
    syn_retransmitted: bool,
    pub first_send: Option<SimTime>,

    // --- receiver ---
    rcv_nxt: u64,
    /// ooo[i] = segment rcv_nxt + i has arrived (index 0 is always false).
    ooo: VecDeque<bool>,
    unacked_segs: u32,
    delack_deadline: Option<SimTime>,
    pub completed_at: Option<SimTime>,

    /// Time of this flow's pending timer event in the scheduler (MAX = none).
    pub timer_event_at: SimTime,
    pub stats: FlowStats,
    pub events: Vec<(SimTime, FlowEventKind, f64)>,
}

impl TcpFlow {
    pub fn new(id: u32, cfg: FlowCfg, fwd_route: u32, rev_route: u32) -> Self {
        let t = &cfg.tcp;
        let cc = cc::by_name(&t.cc).expect("algorithm name validated by config");
        let recovery = match t.cc.as_str() {
            "tahoe" => Recovery::Tahoe,
            "reno" => Recovery::Reno,
            _ => Recovery::NewReno,
        };
        let (total_segs, file_bytes) = match cfg.app {
            AppCfg::Bulk => (u64::MAX, None),
            AppCfg::File { bytes } => (bytes.div_ceil(t.mss as u64), Some(bytes)),
        };
        let clamp = t.max_cwnd.unwrap_or(u32::MAX);
        let rwnd_segs = match t.rwnd_bytes {
            None => u32::MAX,
            Some(b) => (b / t.mss as u64).min(u32::MAX as u64) as u32,
        };
        let tp = CcState {
            now: 0,
            cwnd: t.initial_window.min(clamp),
            ssthresh: t.initial_ssthresh.unwrap_or(u32::MAX),
            cwnd_cnt: 0,
            cwnd_clamp: clamp,
            in_flight: 0,
            srtt: None,
            min_rtt: None,
            prior_cwnd: t.initial_window,
            mss: t.mss,
        };
        let rtt = RttEstimator::new(t.min_rto_ps, t.max_rto_ps, t.initial_rto_ps, t.clock_granularity_ps);
        TcpFlow {
            id,
            fwd_route,
            rev_route,
            start: cfg.start_ps,
            total_segs,
            file_bytes,
            recovery,
            cc,
            tp,
            rwnd_segs,
            state: SenderState::Idle,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            recover: 0,
            recover_valid: false,
            in_recovery: false,
            recovery_started: 0,
            first_partial: true,
            last_action: LastAction::None,
            dupacks: 0,
            txq: VecDeque::with_capacity(64),
            rtt,
            rto_deadline: None,
            syn_sent_at: 0,
            syn_retransmitted: false,
            first_send: None,
            rcv_nxt: 0,
            ooo: VecDeque::new(),
            unacked_segs: 0,
            delack_deadline: None,
            completed_at: None,
            timer_event_at: SimTime::MAX,
            stats: FlowStats::default(),
            events: Vec::new(),
            cfg,
        }
    }

    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }

    // ------------------------------------------------------------ helpers

    /// Application bytes in segments [0, k).
    #[inline]
    fn bytes_upto(&self, k: u64) -> u64 {
        let b = k.saturating_mul(self.cfg.tcp.mss as u64);
        match self.file_bytes {
            Some(f) => b.min(f),
            None => b,
        }
    }

    #[inline]
    fn seg_payload(&self, seq: u64) -> u32 {
        (self.bytes_upto(seq + 1) - self.bytes_upto(seq)) as u32
    }

    pub fn delivered_bytes(&self) -> u64 {
        self.bytes_upto(self.rcv_nxt)
    }

    pub fn inflight_bytes(&self) -> u64 {
        self.bytes_upto(self.snd_nxt) - self.bytes_upto(self.snd_una)
    }

    #[inline]
    fn in_flight(&self) -> u32 {
        (self.snd_nxt - self.snd_una).min(u32::MAX as u64) as u32
    }

    fn sync_tp(&mut self, now: SimTime) {
        self.tp.now = now;
        self.tp.in_flight = self.in_flight();
        self.tp.srtt = self.rtt.srtt;
        self.tp.min_rtt = self.rtt.min_rtt;
    }

    fn set_ca_state(&mut self, s: CaState) {
        self.cc.set_state(&self.tp, s);
    }

    fn header(&self) -> u32 {
        self.cfg.tcp.header_bytes
    }

    fn ctl_packet(&self, kind: PktKind, seq: u64, now: SimTime, route: u32) -> Packet {
        Packet { seq, sent_at: now, flow: self.id, size: self.header(), route, hop: 0, kind }
    }

    /// Earliest pending timer deadline (RTO or delayed ACK).
    pub fn next_deadline(&self) -> Option<SimTime> {
        match (self.rto_deadline, self.delack_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, None) => a,
            (None, b) => b,
        }
    }

    // ------------------------------------------------------------ sender

    pub fn start(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.first_send = Some(now);
        self.sync_tp(now);
        self.cc.init(&mut self.tp);
        if self.cfg.tcp.handshake {
            self.state = SenderState::SynSent;
            self.syn_sent_at = now;
            out.push(self.ctl_packet(PktKind::Syn, 0, now, self.fwd_route));
            self.rto_deadline = Some(now + self.rtt.rto());
        } else {
            self.state = SenderState::Established;
            self.try_send(now, out);
        }
    }

    fn send_segment(&mut self, seq: u64, now: SimTime, out: &mut Vec<Packet>) {
        let payload = self.seg_payload(seq);
        let size = payload + self.header();
        if seq < self.snd_max {
            self.stats.retransmits += 1;
            let i = (seq - self.snd_una) as usize;
            self.txq[i] = TxRec { sent_at: now, retrans: true };
        } else {
            debug_assert_eq!(seq, self.snd_max);
            self.txq.push_back(TxRec { sent_at: now, retrans: false });
            self.snd_max = seq + 1;
        }
        self.stats.data_pkts_sent += 1;
        self.stats.data_bytes_sent += size as u64;
        out.push(Packet { seq, sent_at: now, flow: self.id, size, route: self.fwd_route, hop: 0, kind: PktKind::Data });
    }

    /// Send what the window allows: new data, or go-back-N retransmissions
    /// after a timeout (snd_nxt < snd_max).
    fn try_send(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.state != SenderState::Established {
            return;
        }
        let wnd = self.tp.cwnd.min(self.rwnd_segs) as u64;
        let mut sent = false;
        while self.snd_nxt < self.total_segs && self.snd_nxt < self.snd_una + wnd {
            let s = self.snd_nxt;
            self.send_segment(s, now, out);
            self.snd_nxt += 1;
            sent = true;
        }
        if sent && self.rto_deadline.is_none() {
            // RFC 6298 §5.1: start the timer if it is not running.
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    fn take_rtt_sample(&mut self, r: SimTime) {
        self.rtt.sample(r);
        self.stats.rtt_sum_ps += r as u128;
        self.stats.rtt_samples += 1;
    }

    fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.stats.fast_retransmits += 1;
        self.events.push((now, FlowEventKind::FastRetransmit, self.tp.cwnd as f64));
        self.sync_tp(now);
        self.tp.prior_cwnd = self.tp.cwnd;
        let ssthresh = self.cc.ssthresh(&self.tp);
        self.tp.ssthresh = ssthresh;
        self.recover = self.snd_max;
        self.recover_valid = true;
        self.last_action = LastAction::FastRetransmit;
        match self.recovery {
            Recovery::Tahoe => {
                // cwnd = 1 and go back to snd_una in slow start.
                self.tp.cwnd = 1;
                self.tp.cwnd_cnt = 0;
                self.snd_nxt = self.snd_una;
                self.set_ca_state(CaState::Loss);
                self.rto_deadline = Some(now + self.rtt.rto());
            }
            Recovery::Reno | Recovery::NewReno => {
                // cwnd = ssthresh + 3·SMSS and retransmit (RFC 5681 §3.2 steps 2-4).
                let una = self.snd_una;
                self.send_segment(una, now, out);
                self.tp.cwnd = ssthresh.saturating_add(self.cfg.tcp.dupthresh);
                self.in_recovery = true;
                self.recovery_started = now;
                self.first_partial = true;
                self.set_ca_state(CaState::Recovery);
            }
        }
    }

    fn exit_recovery(&mut self, now: SimTime) {
        self.in_recovery = false;
        self.tp.cwnd = self.tp.ssthresh.min(self.tp.cwnd_clamp).max(1);
        self.tp.cwnd_cnt = 0;
        self.dupacks = 0;
        let d = (now - self.recovery_started) as f64 / crate::units::PS_PER_S as f64;
        self.events.push((now, FlowEventKind::RecoveryEnd, d));
        self.set_ca_state(CaState::Open);
    }

    fn fast_retransmit_allowed(&self, ack: u64) -> bool {
        let passed_recover = !self.recover_valid || ack > self.recover;
        match self.recovery {
            Recovery::Reno => passed_recover || self.last_action == LastAction::FastRetransmit,
            Recovery::Tahoe | Recovery::NewReno => passed_recover,
        }
    }

    /// An ACK (or SYN-ACK) reached the sender.
    pub fn on_ack(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        if pkt.kind == PktKind::SynAck {
            if self.state == SenderState::SynSent {
                if !self.syn_retransmitted {
                    self.take_rtt_sample(now - self.syn_sent_at);
                }
                self.rtt.backoff = 0;
                self.state = SenderState::Established;
                self.rto_deadline = None;
                self.try_send(now, out);
            }
            return;
        }
        if self.state != SenderState::Established {
            return;
        }
        self.stats.acks_received += 1;
        let ack = pkt.seq;
        let prior_in_flight = self.in_flight();
        if ack > self.snd_una && ack <= self.snd_max {
            let newly = ack - self.snd_una;
            // RTT from the oldest newly acked segment, unless any of them was
            // retransmitted (Karn's rule).
            let mut first_sent = None;
            let mut any_retrans = false;
            for _ in 0..newly {
                let r = self.txq.pop_front().expect("tx record for every outstanding segment");
                if first_sent.is_none() {
                    first_sent = Some(r.sent_at);
                }
                any_retrans |= r.retrans;
            }
            let sample = if any_retrans { None } else { first_sent.map(|t| now - t) };
            if let Some(r) = sample {
                self.take_rtt_sample(r);
            }
            self.snd_una = ack;
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            let acked = newly.min(u32::MAX as u64) as u32;
            self.sync_tp(now);
            self.cc.pkts_acked(&self.tp, &AckSample { acked, rtt: sample, in_flight: prior_in_flight });
            let mut restart_timer = true;
            if self.in_recovery {
                if self.recovery == Recovery::Reno || ack >= self.recover {
                    // Reno: any new ACK ends recovery. NewReno: full ACK.
                    self.exit_recovery(now);
                } else {
                    // NewReno partial ACK (RFC 6582 §3.2 step 4): retransmit the
                    // next hole, deflate by the amount acked, add back one SMSS.
                    let una = self.snd_una;
                    self.send_segment(una, now, out);
                    self.tp.cwnd = self.tp.cwnd.saturating_sub(acked).saturating_add(1).max(1);
                    restart_timer = self.first_partial;
                    self.first_partial = false;
                }
            } else {
                self.dupacks = 0;
                if prior_in_flight >= self.tp.cwnd {
                    // In slow start an ACK may grow cwnd by at most L segments
                    // (RFC 3465 §2.3 / RFC 5681 eq. 2), however much it acks.
                    let l = self.cfg.tcp.abc_limit;
                    let credit = if l > 0 && self.tp.in_slow_start() { acked.min(l) } else { acked };
                    self.cc.cong_avoid(&mut self.tp, credit);
                    self.tp.cwnd = self.tp.cwnd.min(self.tp.cwnd_clamp).max(1);
                }
            }
            if self.snd_una >= self.snd_max {
                self.rto_deadline = None;
            } else if restart_timer {
                self.rto_deadline = Some(now + self.rtt.rto());
            }
        } else if ack == self.snd_una && self.snd_una < self.snd_max {
            self.stats.dupacks_received += 1;
            self.dupacks += 1;
            if self.in_recovery {
                // Each further duplicate ACK: cwnd += SMSS (RFC 5681 §3.2 step 4).
                self.tp.cwnd = self.tp.cwnd.saturating_add(1);
            } else if self.dupacks == self.cfg.tcp.dupthresh && self.fast_retransmit_allowed(ack) {
                self.enter_recovery(now, out);
            }
        }
        self.try_send(now, out);
    }

    fn on_rto(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.rto_deadline = None;
        match self.state {
            SenderState::Idle => {}
            SenderState::SynSent => {
                self.stats.timeouts += 1;
                self.events.push((now, FlowEventKind::Timeout, crate::units::ps_to_s(self.rtt.rto())));
                self.rtt.back_off();
                self.syn_retransmitted = true;
                self.syn_sent_at = now;
                out.push(self.ctl_packet(PktKind::Syn, 0, now, self.fwd_route));
                self.rto_deadline = Some(now + self.rtt.rto());
            }
            SenderState::Established => {
                if self.snd_una >= self.snd_max {
                    return;
                }
                let expired = self.rtt.rto();
                self.stats.timeouts += 1;
                self.stats.rto_sum_at_timeout_ps += expired as u128;
                self.events.push((now, FlowEventKind::Timeout, crate::units::ps_to_s(expired)));
                self.sync_tp(now);
                self.tp.in_flight = (self.snd_max - self.snd_una).min(u32::MAX as u64) as u32;
                if self.last_action != LastAction::Timeout || self.rtt.backoff == 0 {
                    // RFC 5681 eq. 4; not again if the timed-out segment was
                    // already retransmitted by the timer.
                    self.tp.prior_cwnd = self.tp.cwnd;
                    self.tp.ssthresh = self.cc.ssthresh(&self.tp);
                }
                if self.in_recovery {
                    self.in_recovery = false;
                }
                self.tp.cwnd = 1;
                self.tp.cwnd_cnt = 0;
                self.dupacks = 0;
                self.recover = self.snd_max; // RFC 6582 §3.2 step 5
                self.recover_valid = true;
                self.last_action = LastAction::Timeout;
                self.snd_nxt = self.snd_una;
                self.rtt.back_off();
                self.set_ca_state(CaState::Loss);
                self.try_send(now, out);
                if self.rto_deadline.is_none() {
                    self.rto_deadline = Some(now + self.rtt.rto());
                }
            }
        }
    }

    // ------------------------------------------------------------ receiver

    fn send_ack(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.unacked_segs = 0;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        out.push(self.ctl_packet(PktKind::Ack, self.rcv_nxt, now, self.rev_route));
    }

    /// A data segment or SYN reached the receiver.
    pub fn on_data(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        if pkt.kind == PktKind::Syn {
            out.push(self.ctl_packet(PktKind::SynAck, 0, now, self.rev_route));
            return;
        }
        let seq = pkt.seq;
        let t = &self.cfg.tcp;
        let (delayed, count) = (t.delayed_ack, t.delack_count);
        if seq == self.rcv_nxt {
            let had_gap = self.ooo.len() > 1;
            self.rcv_nxt += 1;
            self.ooo.pop_front();
            while self.ooo.front() == Some(&true) {
                self.ooo.pop_front();
                self.rcv_nxt += 1;
            }
            if self.ooo.len() == 1 {
                // Only the placeholder for rcv_nxt is left.
                self.ooo.clear();
            }
            if self.completed_at.is_none() && self.rcv_nxt >= self.total_segs {
                self.completed_at = Some(now);
                let fct = (now - self.first_send.unwrap_or(self.start)) as f64 / crate::units::PS_PER_S as f64;
                self.events.push((now, FlowEventKind::Completed, fct));
            }
            if !delayed || had_gap {
                // No delayed ACK, or the segment filled a hole: ACK at once.
                self.send_ack(now, out);
            } else {
                self.unacked_segs += 1;
                if self.unacked_segs >= count {
                    self.send_ack(now, out);
                } else if self.delack_deadline.is_none() {
                    self.delack_deadline = Some(now + t.delack_timeout_ps);
                }
            }
        } else if seq > self.rcv_nxt {
            // Out of order: remember it and send an immediate duplicate ACK.
            let idx = (seq - self.rcv_nxt) as usize;
            if self.ooo.len() <= idx {
                self.ooo.resize(idx + 1, false);
            }
            self.ooo[idx] = true;
            self.send_ack(now, out);
        } else {
            // Duplicate of data already received: immediate ACK.
            self.send_ack(now, out);
        }
    }

    // ------------------------------------------------------------ timers

    /// Run whichever timers are due at `now`.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if let Some(d) = self.delack_deadline {
            if d <= now {
                self.send_ack(now, out);
            }
        }
        if let Some(d) = self.rto_deadline {
            if d <= now {
                self.on_rto(now, out);
            }
        }
    }
}
