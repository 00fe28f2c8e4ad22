//! TCP endpoints of one flow: the sender and the receiver, with their timers.
//!
//! Sequence space is in segments (segment k carries bytes [k·MSS, (k+1)·MSS)
//! of the application stream; the last segment of a file may be shorter).
//!
//! Sender: RFC 5681 slow start and congestion avoidance through the
//! congestion module; loss recovery chosen per flow:
//! * SACK off: Tahoe, Reno (ns-2 rules) or NewReno (RFC 6582), by the
//!   algorithm's name (see `Recovery`);
//! * `rfc6675`: RFC 6675 conservative SACK recovery (scoreboard, IsLost,
//!   pipe, NextSeg rules 1–4 including the rescue retransmission), with
//!   RFC 6937 PRR as an option;
//! * `sack1`: ns-2 `Agent/TCP/Sack1` (Fall & Floyd 1996), see `sack1_*`.
//!
//! Also RFC 3042 limited transmit, RFC 6298 RTO with Karn's rule or RFC 7323
//! timestamps, RFC 3168 ECN, pacing (Linux internal or the ns-2 studies'
//! leaky bucket), and delivery-rate samples after Linux `tcp_rate.c`.
//! Receiver (receiver.rs): cumulative ACKs, SACK blocks (RFC 2018), delayed
//! ACK with quick-ACK at the start, immediate ACKs for out-of-order,
//! duplicate and hole-filling segments (RFC 5681 §4.2), timestamps echo and
//! the ECN echo.
//!
//! Endpoints never touch the scheduler: they push the packets they send into
//! an output buffer and expose their timer deadlines; the simulation injects
//! the packets and keeps one pending timer event per flow.

mod rate;
pub mod ranges;
mod pacing;
mod receiver;
mod scoreboard;
pub mod rtt;

use crate::cc::{self, AckSample, CaState, CcState, CongestionOps, CwndEvent};
use crate::config::{AppCfg, FlowCfg, PacingCfg, SackCfg, TS_OPTION_BYTES};
use crate::packet::{PktKind, Packet, ECN_ECT, FLAG_CWR, FLAG_ECE, FLAG_SACK};
use crate::units::{SimTime, PS_PER_S};
use rate::{RateCand, RateState};
use pacing::Pacer;
use receiver::Receiver;
use scoreboard::{Scoreboard, TxRec, APP_LIMITED, EVER_RETRANS, LOST, RETRANS, SACKED};
use rtt::RttEstimator;

/// Loss-recovery variant without SACK, chosen by the algorithm name.
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
    /// Start of a fast-recovery episode (any variant, SACK or not);
    /// value = cwnd before the reduction, segments.
    FastRetransmit,
    /// value = duration of the recovery episode, seconds.
    RecoveryEnd,
    /// ECN-Echo answered by a window reduction; value = cwnd before, segments.
    EcnReduction,
    /// value = flow completion time, seconds.
    Completed,
}

impl FlowEventKind {
    pub fn name(&self) -> &'static str {
        match self {
            FlowEventKind::Timeout => "timeout",
            FlowEventKind::FastRetransmit => "fast_retransmit",
            FlowEventKind::RecoveryEnd => "recovery_end",
            FlowEventKind::EcnReduction => "ecn_reduction",
            FlowEventKind::Completed => "completed",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct FlowStats {
    pub data_pkts_sent: u64,
    pub data_bytes_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    pub acks_sent: u64,
    pub acks_received: u64,
    pub dupacks_received: u64,
    /// Data segments that arrived at the receiver with CE set.
    pub ce_received: u64,
    pub rtt_sum_ps: u128,
    pub rtt_samples: u64,
    pub rto_sum_at_timeout_ps: u128,
    /// Packets of this flow (both directions) put into the network,
    /// delivered to an endpoint, and dropped or lost on the way.
    pub pkts_injected: u64,
    pub pkts_arrived: u64,
    pub pkts_dropped: u64,
    /// Window restarts after idle (RFC 2861, `tcp.idle_restart`).
    pub idle_restarts: u64,
    /// Packets of an earlier connection of this slot that arrived after a
    /// new one opened (repeated transfers), discarded.
    pub stale_pkts: u64,
}

/// Per-packet traces, kept only when the scenario asks for them.
#[derive(Default)]
pub struct FlowTrace {
    pub want_rtt: bool,
    pub want_seq: bool,
    /// (time, RTT sample)
    pub rtt: Vec<(SimTime, SimTime)>,
    /// (time, kind, seq): kind 0 = new data sent, 1 = retransmission, 2 = ACK received.
    pub seq: Vec<(SimTime, u8, u64)>,
}

/// SACK blocks of one ACK, filed by the receiver under the ACK's id.
#[derive(Clone, Copy, Debug)]
struct SackEntry {
    id: u32,
    n: u8,
    blocks: [(u64, u64); 4],
}

/// What the sender transmits next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pick {
    /// New data at snd_max (or go-back-N at snd_nxt below snd_max).
    Next,
    /// Retransmission by NextSeg rule 1 or 3 / the Sack1 hole search.
    Hole(u64),
    /// RFC 6675 rule 4.
    Rescue(u64),
}

pub struct TcpFlow {
    pub id: u32,
    pub fwd_route: u32,
    pub rev_route: u32,
    pub start: SimTime,
    pub cfg: FlowCfg,
    total_segs: u64,
    file_bytes: Option<u64>,
    /// New data may be sent below this segment: `total_segs` while the
    /// application has data, `snd_max` while an ON-OFF source is OFF.
    send_limit: u64,
    /// Connection number of this flow slot: packets carry it, and packets of
    /// an earlier connection (a repeated transfer's late ACK) are discarded.
    pub conn: u16,
    /// Application bytes delivered by earlier connections of this slot.
    delivered_base: u64,
    /// When data was last sent (Linux lsndtime), for the idle checks.
    last_send: Option<SimTime>,
    seed: u64,
    recovery: Recovery,
    sack: SackCfg,
    cc: Box<dyn CongestionOps>,
    cc_owns_cwnd: bool,
    pub tp: CcState,
    rwnd_segs: u32,
    data_hdr: u32,
    ack_hdr: u32,

    // --- sender ---
    pub state: SenderState,
    pub snd_una: u64,
    /// Next segment to send; below snd_max only during go-back-N after a
    /// timeout (or Tahoe's fast retransmit) without the RFC 6675 scoreboard.
    pub snd_nxt: u64,
    pub snd_max: u64,
    recover: u64,
    recover_valid: bool,
    in_recovery: bool,
    /// RFC 6675 loss phase after an RTO, until snd_una reaches `recover`.
    in_loss: bool,
    recovery_started: SimTime,
    first_partial: bool,
    last_action: LastAction,
    dupacks: u32,
    /// Segments sent by limited transmit in the current run of dup ACKs.
    lt_sent: u32,
    /// Per-segment records and the SACK scoreboard.
    sb: Scoreboard,
    sack1_pipe: i64,
    /// ns-2 Sack1 ignores SACK information after a timeout until a new ACK.
    sack1_ignore: bool,
    // PRR (RFC 6937)
    prr_delivered: u64,
    prr_out: u64,
    recover_fs: u64,
    // ECN (RFC 3168)
    in_cwr: bool,
    cwr_high: u64,
    cwr_pending: bool,
    // pacing
    pacer: Pacer,
    // delivery rate
    rate: RateState,
    dup_credit: u64,
    /// Last delivery-rate sample kept by Linux's tcp_info rule, bit/s.
    pub delivery_rate_bps: f64,
    pub rtt: RttEstimator,
    rto_deadline: Option<SimTime>,
    syn_sent_at: SimTime,
    syn_retransmitted: bool,
    pub first_send: Option<SimTime>,

    // --- receiver ---
    rcv: Receiver,
    pub completed_at: Option<SimTime>,

    pub stats: FlowStats,
    pub events: Vec<(SimTime, FlowEventKind, f64)>,
    pub trace: Option<Box<FlowTrace>>,
}

impl TcpFlow {
    pub fn new(id: u32, cfg: FlowCfg, fwd_route: u32, rev_route: u32, seed: u64) -> Self {
        let t = &cfg.tcp;
        let params = cc::params::resolve(cc::spec(&t.cc).expect("algorithm name validated by config"), t.cc_preset.as_deref(), &t.cc_params)
            .expect("algorithm parameters validated by config");
        let rng = crate::rng::Stream::new(seed, crate::rng::StreamKind::Cc, id as u64);
        let cc = cc::build(&t.cc, &params, rng).expect("algorithm name validated by config");
        let recovery = match t.cc.as_str() {
            "tahoe" => Recovery::Tahoe,
            "reno" => Recovery::Reno,
            _ => Recovery::NewReno,
        };
        let (total_segs, file_bytes) = match cfg.app {
            AppCfg::Bulk | AppCfg::OnOff { .. } | AppCfg::Schedule { .. } => (u64::MAX, None),
            AppCfg::File { bytes } => (bytes.div_ceil(t.mss as u64), Some(bytes)),
            // Sized by reconnect_first before the first transfer starts.
            AppCfg::Repeat { .. } => (0, Some(0)),
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
            delivered: 0,
            pipe: 0,
            pacing_rate: None,
            app_limited: false,
            snd_una: 0,
            snd_nxt: 0,
            ca_state: CaState::Open,
            delivered_at: 0,
            lsndtime: 0,
            paced: t.pacing != PacingCfg::Off,
            mark_app_limited: false,
        };
        let opt = if t.timestamps { TS_OPTION_BYTES } else { 0 };
        let rtt = RttEstimator::new(t.min_rto_ps, t.max_rto_ps, t.initial_rto_ps, t.clock_granularity_ps);
        let cc_owns_cwnd = cc.has_cong_control();
        TcpFlow {
            id,
            fwd_route,
            rev_route,
            start: cfg.start_ps,
            total_segs,
            file_bytes,
            send_limit: total_segs,
            conn: 0,
            delivered_base: 0,
            last_send: None,
            seed,
            recovery,
            sack: t.sack,
            cc,
            cc_owns_cwnd,
            tp,
            rwnd_segs,
            data_hdr: t.header_bytes + opt,
            ack_hdr: t.header_bytes + opt,
            state: SenderState::Idle,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            recover: 0,
            recover_valid: false,
            in_recovery: false,
            in_loss: false,
            recovery_started: 0,
            first_partial: true,
            last_action: LastAction::None,
            dupacks: 0,
            lt_sent: 0,
            sb: Scoreboard::default(),
            sack1_pipe: 0,
            sack1_ignore: false,
            prr_delivered: 0,
            prr_out: 0,
            recover_fs: 0,
            in_cwr: false,
            cwr_high: 0,
            cwr_pending: false,
            pacer: Pacer::default(),
            rate: RateState::default(),
            dup_credit: 0,
            delivery_rate_bps: 0.0,
            rtt,
            rto_deadline: None,
            syn_sent_at: 0,
            syn_retransmitted: false,
            first_send: None,
            rcv: Receiver::new(t.quickack),
            completed_at: None,
            stats: FlowStats::default(),
            events: Vec::new(),
            trace: None,
            cfg,
        }
    }

    pub fn enable_trace(&mut self, rtt: bool, seq: bool) {
        if rtt || seq {
            self.trace = Some(Box::new(FlowTrace { want_rtt: rtt, want_seq: seq, ..Default::default() }));
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
        self.delivered_base + self.bytes_upto(self.rcv.rcv_nxt)
    }

    // ------------------------------------------------------------ application

    /// The application stops writing (an ON-OFF source turns OFF): data
    /// already sent is still delivered and retransmitted, nothing new goes.
    pub fn app_pause(&mut self) {
        self.send_limit = self.snd_max.min(self.total_segs);
    }

    /// The application writes again (OFF → ON). With `tcp.idle_restart`,
    /// a sender with nothing outstanding that has been silent for more than
    /// an RTO restarts its window as Linux tcp_cwnd_restart does (RFC 2861):
    /// ssthresh = max(ssthresh, ¾·cwnd), cwnd halved once per RTO of
    /// idleness, but not below min(initial window, cwnd).
    pub fn app_resume(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.send_limit == self.total_segs {
            return;
        }
        self.send_limit = self.total_segs;
        if self.state != SenderState::Established {
            return;
        }
        if let Some(last) = self.last_send {
            let rto = self.rtt.rto();
            if self.cfg.tcp.idle_restart && self.snd_una == self.snd_max && now - last > rto {
                let cwnd = self.tp.cwnd;
                if !self.in_recovery && !self.in_cwr {
                    self.tp.ssthresh = self.tp.ssthresh.max((cwnd >> 1) + (cwnd >> 2));
                }
                let restart = self.cfg.tcp.initial_window.min(cwnd);
                let mut c = cwnd;
                let mut delta = (now - last) as i128;
                loop {
                    delta -= rto as i128;
                    if delta <= 0 || c <= restart {
                        break;
                    }
                    c >>= 1;
                }
                self.tp.cwnd = c.max(restart);
                self.tp.cwnd_cnt = 0;
                self.stats.idle_restarts += 1;
                self.sync_tp(now);
                self.cc.cwnd_event(&mut self.tp, CwndEvent::CwndRestart);
            }
        }
        self.try_send(now, out);
    }

    /// Size the slot's first connection (a repeating app, before start).
    pub fn reconnect_first(&mut self, bytes: u64) {
        self.file_bytes = Some(bytes);
        self.total_segs = bytes.div_ceil(self.cfg.tcp.mss as u64);
        self.send_limit = self.total_segs;
    }

    /// Start this slot's next connection: a fresh TCP connection (new
    /// congestion state, sequence space and RTT estimate) carrying `bytes`,
    /// as ns-2 web and short-flow models open one connection per object.
    /// Counters, events and traces carry on across connections.
    pub fn reconnect(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Packet>) {
        let mut cfg = self.cfg.clone();
        cfg.app = AppCfg::File { bytes };
        cfg.start_ps = now;
        let conn = self.conn.wrapping_add(1);
        let seed = self.seed ^ ((conn as u64) << 40);
        let mut next = TcpFlow::new(self.id, cfg, self.fwd_route, self.rev_route, seed);
        next.seed = self.seed;
        next.conn = conn;
        next.delivered_base = self.delivered_bytes();
        next.stats = std::mem::take(&mut self.stats);
        next.events = std::mem::take(&mut self.events);
        next.trace = self.trace.take();
        next.cfg.app = self.cfg.app.clone();
        next.start = self.start;
        // The slot's first connection keeps its start; per-transfer times
        // are the simulation's transfer records.
        next.file_bytes = Some(bytes);
        *self = next;
        self.start(now, out);
    }

    pub fn inflight_bytes(&self) -> u64 {
        self.bytes_upto(self.snd_nxt) - self.bytes_upto(self.snd_una)
    }

    /// Linux-style congestion state code for traces: 0 open, 1 CWR,
    /// 2 recovery, 3 loss (after an RTO).
    pub fn ca_state_code(&self) -> u64 {
        if self.in_recovery {
            2
        } else if self.in_loss || (self.last_action == LastAction::Timeout && self.recover_valid && self.snd_una < self.recover) {
            3
        } else if self.in_cwr {
            1
        } else {
            0
        }
    }

    /// Sent and not cumulatively acked: snd_nxt − snd_una without the
    /// scoreboard (go-back-N resets snd_nxt), FlightSize with it.
    #[inline]
    fn in_flight(&self) -> u32 {
        let top = if self.sack == SackCfg::Rfc6675 { self.snd_max } else { self.snd_nxt };
        (top - self.snd_una).min(u32::MAX as u64) as u32
    }

    /// RFC 6675 SetPipe: outstanding − SACKed − lost + retransmitted.
    #[inline]
    pub fn pipe(&self) -> u32 {
        match self.sack {
            SackCfg::Rfc6675 => {
                let out = (self.snd_max - self.snd_una) as i64;
                (out - self.sb.sacked_out as i64 - self.sb.lost_out as i64 + self.sb.retrans_out as i64).max(0) as u32
            }
            SackCfg::Sack1 if self.in_recovery => self.sack1_pipe.max(0) as u32,
            _ => self.in_flight(),
        }
    }

    fn sync_tp(&mut self, now: SimTime) {
        self.tp.now = now;
        self.tp.in_flight = self.in_flight();
        self.tp.pipe = self.pipe();
        self.tp.srtt = self.rtt.srtt;
        self.tp.min_rtt = self.rtt.min_rtt;
        self.tp.delivered = self.rate.delivered;
        self.tp.delivered_at = self.rate.delivered_at;
        self.tp.app_limited = self.rate.app_limited != 0;
        self.tp.snd_una = self.snd_una;
        self.tp.snd_nxt = self.snd_max;
    }

    fn set_ca_state(&mut self, s: CaState) {
        self.cc.set_state(&self.tp, s);
        self.tp.ca_state = s;
    }

    #[inline]
    fn rec(&self, seq: u64) -> &TxRec {
        self.sb.rec(self.snd_una, seq)
    }

    #[inline]
    fn rec_mut(&mut self, seq: u64) -> &mut TxRec {
        self.sb.rec_mut(self.snd_una, seq)
    }

    /// Earliest pending timer deadline (RTO, delayed ACK or pacing).
    #[inline]
    pub fn next_deadline(&self) -> Option<SimTime> {
        let a = self.rto_deadline.unwrap_or(SimTime::MAX);
        let b = self.rcv.delack_deadline.unwrap_or(SimTime::MAX);
        let c = self.pacer.deadline.unwrap_or(SimTime::MAX);
        let m = a.min(b).min(c);
        (m != SimTime::MAX).then_some(m)
    }

    // ------------------------------------------------------------ sender

    pub fn start(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.first_send = Some(now);
        self.sync_tp(now);
        self.cc.init(&mut self.tp);
        if self.cfg.tcp.handshake {
            self.state = SenderState::SynSent;
            self.syn_sent_at = now;
            out.push(Packet::new(PktKind::Syn, 0, now, self.id, self.data_hdr, self.fwd_route));
            self.rto_deadline = Some(now + self.rtt.rto());
        } else {
            self.state = SenderState::Established;
            self.try_send(now, out);
        }
    }

    fn pacing_active(&self) -> bool {
        pacing::active(self.tp.pacing_rate, self.cfg.tcp.pacing)
    }

    /// Pacing rate in bytes/s now, or None when unpaced (pacing::rate).
    fn pacing_rate_now(&self) -> Option<f64> {
        let t = &self.cfg.tcp;
        pacing::rate(&pacing::RateInputs {
            cc_rate: self.tp.pacing_rate,
            mode: t.pacing,
            srtt: self.rtt.srtt,
            mss: t.mss,
            cwnd: self.tp.cwnd,
            ssthresh: self.tp.ssthresh,
            in_flight_segs: self.snd_max - self.snd_una,
            ss_ratio: t.pacing_ss_ratio,
            ca_ratio: t.pacing_ca_ratio,
        })
    }

    #[inline]
    fn window_paced(&self) -> bool {
        pacing::window_paced(self.tp.pacing_rate, self.cfg.tcp.pacing)
    }

    /// Segments the current release may send back to back.
    fn pacing_burst(&self) -> u32 {
        let min = self.cc.min_tso_segs().unwrap_or(self.cfg.tcp.min_tso_segs);
        self.pacer.burst(self.cfg.tcp.tso, self.window_paced(), self.cfg.tcp.mss, min)
    }

    /// Gap to leave after sending `payload` bytes, or None when unpaced.
    fn pacing_gap(&mut self, payload: u32) -> Option<SimTime> {
        let wp = self.window_paced();
        self.pacer.gap(payload, wp, self.cfg.tcp.mss)
    }

    /// Rate used for the last paced segment, bit/s (0 = unpaced).
    pub fn pacing_rate_bps(&self) -> f64 {
        self.pacer.rate_bps
    }

    /// Record the rate state a (re)transmission carries (tcp_rate_skb_sent).
    #[inline]
    fn stamp(&mut self, now: SimTime) -> TxRec {
        if self.snd_una == self.snd_max {
            self.rate.first_tx = now;
            self.rate.delivered_at = now;
        }
        TxRec {
            sent_at: now,
            delivered: self.rate.delivered,
            delivered_at: self.rate.delivered_at,
            first_tx: self.rate.first_tx,
            flags: if self.rate.app_limited != 0 { APP_LIMITED } else { 0 },
        }
    }

    fn send_segment(&mut self, seq: u64, now: SimTime, out: &mut Vec<Packet>) {
        // tcp_event_data_sent: sending with nothing in flight is CA_EVENT_TX_START
        // (not for the connection's first segment, where there is no idle time).
        if self.snd_max > 0 && self.pipe() == 0 {
            self.sync_tp(now);
            self.cc.cwnd_event(&mut self.tp, CwndEvent::TxStart);
        }
        self.last_send = Some(now);
        self.tp.lsndtime = now;
        let payload = self.seg_payload(seq);
        let size = payload + self.data_hdr;
        let mut pkt = Packet::new(PktKind::Data, seq, now, self.id, size, self.fwd_route);
        let stamp = self.stamp(now);
        if seq < self.snd_max {
            self.stats.retransmits += 1;
            let r = self.rec_mut(seq);
            let was = r.flags;
            r.sent_at = stamp.sent_at;
            r.delivered = stamp.delivered;
            r.delivered_at = stamp.delivered_at;
            r.first_tx = stamp.first_tx;
            r.flags = (was & !APP_LIMITED) | (stamp.flags & APP_LIMITED) | RETRANS | EVER_RETRANS;
            if was & RETRANS == 0 {
                self.sb.retrans_out += 1;
            }
            self.trace_seq(now, 1, seq);
            // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
        } else {
            debug_assert_eq!(seq, self.snd_max);
            self.sb.txq.push_back(stamp);
            self.snd_max = seq + 1;
            self.trace_seq(now, 0, seq);
            if self.cfg.tcp.ecn {
                pkt.ecn = ECN_ECT;
                if self.cwr_pending {
                    pkt.flags |= FLAG_CWR;
                    self.cwr_pending = false;
                }
            }
        }
        if self.in_recovery {
            self.prr_out += 1;
            if self.sack == SackCfg::Sack1 {
                self.sack1_pipe += 1;
            }
        }
        if self.pacing_active() {
            if let Some(gap) = self.pacing_gap(payload) {
                self.pacer.next = self.pacer.next.max(now) + gap;
            }
        }
        self.stats.data_pkts_sent += 1;
        self.stats.data_bytes_sent += size as u64;
        out.push(pkt);
    }

    #[inline]
    fn trace_seq(&mut self, now: SimTime, kind: u8, seq: u64) {
        if let Some(t) = self.trace.as_deref_mut() {
            if t.want_seq {
                t.seq.push((now, kind, seq));
            }
        }
    }

    /// New data may go if the file has more and the receiver window allows.
    #[inline]
    fn new_data_allowed(&self, wnd: u64) -> bool {
        self.snd_max < self.send_limit && self.snd_max < self.snd_una + wnd
    }

    /// Window for sending outside recovery: cwnd (plus RFC 3042's allowance
    /// of one new segment per each of the first two duplicate ACKs), capped
    /// by the receiver's window.
    #[inline]
    fn send_window(&self) -> u64 {
        let mut w = self.tp.cwnd as u64;
        if self.cfg.tcp.limited_transmit && !self.in_recovery && self.dupacks > 0 && self.dupacks < self.cfg.tcp.dupthresh {
            w += self.dupacks.min(2) as u64;
        }
        w.min(self.rwnd_segs as u64)
    }

    /// What to send next, if anything (window, scoreboard and file allowing).
    fn pick(&mut self) -> Option<Pick> {
        match self.sack {
            SackCfg::Rfc6675 if self.in_recovery || self.in_loss => {
                if self.pipe() >= self.tp.cwnd {
                    return None;
                }
                self.next_seg()
            }
            SackCfg::Sack1 if self.in_recovery => {
                if self.sack1_pipe >= self.tp.cwnd as i64 {
                    return None;
                }
                // Next hole below the highest SACK not retransmitted yet in
                // this episode (scoreboard-rq GetNextRetran), else new data
                // within the receiver's window.
                let hi = self.sb.sacked.last_end().unwrap_or(self.snd_una);
                let mut s = self.sb.high_rxt.max(self.snd_una);
                while s < hi {
                    if self.rec(s).flags & (SACKED | RETRANS) == 0 {
                        self.sb.high_rxt = s;
                        return Some(Pick::Hole(s));
                    }
                    s += 1;
                }
                self.sb.high_rxt = s;
                self.new_data_allowed(self.rwnd_segs as u64).then_some(Pick::Next)
            }
            SackCfg::Rfc6675 => self.new_data_allowed(self.send_window()).then_some(Pick::Next),
            _ => {
                let wnd = self.send_window();
                (self.snd_nxt < self.send_limit.max(self.snd_max) && self.snd_nxt < self.snd_una + wnd).then_some(Pick::Next)
            }
        }
    }

    /// RFC 6675 §4 NextSeg (pipe already checked).
    fn next_seg(&mut self) -> Option<Pick> {
        // (1) first lost, un-SACKed, not yet retransmitted segment above HighRxt.
        let mut s = self.sb.high_rxt.max(self.snd_una);
        while s < self.sb.lost_upto {
            if self.rec(s).flags & (LOST | SACKED | RETRANS) == LOST {
                self.sb.high_rxt = s;
                return Some(Pick::Hole(s));
            }
            s += 1;
        }
        self.sb.high_rxt = s;
        // (2) new data.
        if self.new_data_allowed(self.rwnd_segs as u64) {
            return Some(Pick::Next);
        }
        if self.in_loss {
            return None;
        }
        // (3) any un-SACKed, not retransmitted segment below the highest SACK.
        let hi = self.sb.sacked.last_end().unwrap_or(self.snd_una);
        let mut s = self.sb.high_rxt.max(self.snd_una);
        while s < hi {
            if self.rec(s).flags & (SACKED | RETRANS) == 0 {
                return Some(Pick::Hole(s));
            }
            s += 1;
        }
        // (4) rescue retransmission, once per recovery episode.
        if self.sb.rescue_rxt.is_none_or(|r| self.snd_una > r) {
            let mut s = self.snd_max;
            while s > self.snd_una {
                s -= 1;
                if self.rec(s).flags & SACKED == 0 {
                    return Some(Pick::Rescue(s));
                }
            }
        }
        None
    }

    /// Send what the window allows.
    fn try_send(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.state != SenderState::Established {
            return;
        }
        let mut sent = false;
        let paced = self.pacing_active();
        // A release of a paced flow: a burst of up to `quota` segments back
        // to back (one TSO/GSO packet), each adding its length at the pacing
        // rate to the next departure time (Linux tcp_wstamp_ns).
        let mut quota = if !paced {
            u32::MAX
        } else if now >= self.pacer.next {
            self.pacer.rate = self.pacing_rate_now();
            self.pacing_burst()
        } else {
            0
        };
        while let Some(p) = self.pick() {
            if quota == 0 {
                self.pacer.deadline = Some(self.pacer.next);
                break;
            }
            quota -= 1;
            match p {
                Pick::Next => {
                    // Go-back-N resends from snd_nxt; otherwise new data at snd_max.
                    let gbn = self.sack == SackCfg::Off || (self.sack == SackCfg::Sack1 && !self.in_recovery);
                    let s = if gbn { self.snd_nxt } else { self.snd_max };
                    if !self.in_recovery && !self.in_loss && self.dupacks > 0 && s >= self.snd_una + self.tp.cwnd as u64 {
                        self.lt_sent += 1;
                    }
                    self.send_segment(s, now, out);
                    self.snd_nxt = self.snd_nxt.max(s + 1);
                }
                Pick::Hole(s) => {
                    self.sb.high_rxt = s + 1;
                    self.send_segment(s, now, out);
                }
                Pick::Rescue(s) => {
                    self.sb.rescue_rxt = Some(self.recover);
                    self.send_segment(s, now, out);
                }
            }
            sent = true;
        }
        if sent && self.rto_deadline.is_none() {
            // RFC 6298 §5.1: start the timer if it is not running.
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        // tcp_rate_check_app_limited: nothing left to send and window unused.
        if self.snd_max >= self.send_limit && self.sb.lost_out <= self.sb.retrans_out {
            let pipe = self.pipe();
            if pipe < self.tp.cwnd {
                self.rate.app_limited = (self.rate.delivered + pipe as u64).max(1);
            }
        }
    }

    fn take_rtt_sample(&mut self, now: SimTime, r: SimTime) {
        self.rtt.sample(r);
        self.stats.rtt_sum_ps += r as u128;
        self.stats.rtt_samples += 1;
        if let Some(t) = self.trace.as_deref_mut() {
            if t.want_rtt {
                t.rtt.push((now, r));
            }
        }
    }

    /// Common part of entering fast recovery: ssthresh from the algorithm,
    /// bookkeeping and the trace event. `flight` is what the algorithm sees
    /// as FlightSize.
    fn begin_recovery(&mut self, now: SimTime, flight: u32) -> u32 {
        self.stats.fast_retransmits += 1;
        self.events.push((now, FlowEventKind::FastRetransmit, self.tp.cwnd as f64));
        self.sync_tp(now);
        self.tp.in_flight = flight;
        self.tp.prior_cwnd = self.tp.cwnd;
        let ssthresh = self.cc.ssthresh(&self.tp);
        self.tp.ssthresh = ssthresh;
        self.recover = self.snd_max;
        self.recover_valid = true;
        self.cwr_high = self.snd_max;
        self.in_cwr = false;
        self.last_action = LastAction::FastRetransmit;
        ssthresh
    }

    /// Fast retransmit without SACK (Tahoe / Reno / NewReno).
    fn enter_recovery_classic(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let flight = self.in_flight().saturating_sub(self.lt_sent);
        let ssthresh = self.begin_recovery(now, flight);
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
                self.in_recovery = true;
                self.recovery_started = now;
                self.first_partial = true;
                let una = self.snd_una;
                self.send_segment(una, now, out);
                if !self.cc_owns_cwnd {
                    self.tp.cwnd = ssthresh.saturating_add(self.cfg.tcp.dupthresh);
                }
                self.set_ca_state(CaState::Recovery);
            }
        }
    }

    /// RFC 6675 §5 entry (steps 4.1–4.5); with PRR, RFC 6937 takes over the
    /// window from this ACK on.
    fn enter_recovery_6675(&mut self, now: SimTime, delivered: u64, out: &mut Vec<Packet>) {
        let flight = ((self.snd_max - self.snd_una) as u32).saturating_sub(self.lt_sent);
        let ssthresh = self.begin_recovery(now, flight);
        self.in_recovery = true;
        self.recovery_started = now;
        self.sb.high_rxt = self.snd_una;
        // HighACK+1 is presumed dropped (step 4.3) even when the trigger was
        // the duplicate-ACK count rather than IsLost.
        let una = self.snd_una;
        if self.rec(una).flags & (SACKED | LOST) == 0 {
            self.rec_mut(una).flags |= LOST;
            self.sb.lost_out += 1;
            self.sb.lost_upto = self.sb.lost_upto.max(una + 1);
        }
        self.set_ca_state(CaState::Recovery);
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.recover_fs = self.snd_max - self.snd_una;
        if self.cc_owns_cwnd {
            return;
        }
        if self.cfg.tcp.prr {
            self.prr_update(delivered);
        } else {
            self.tp.cwnd = ssthresh.max(1);
            self.tp.cwnd_cnt = 0;
            // Step 4.3: the first retransmission goes regardless of pipe.
            if self.rec(una).flags & RETRANS == 0 {
                self.sb.high_rxt = una + 1;
                self.send_segment(una, now, out);
            }
        }
    }

    /// RFC 6937 PRR with the slow-start reduction bound, per ACK in recovery.
    fn prr_update(&mut self, delivered: u64) {
        self.prr_delivered += delivered;
        let pipe = self.pipe() as i64;
        let ssthresh = self.tp.ssthresh as i64;
        let mut sndcnt = if pipe > ssthresh {
            let fs = self.recover_fs.max(1) as i64;
            (self.prr_delivered as i64 * ssthresh + fs - 1) / fs - self.prr_out as i64
        } else {
            let limit = (self.prr_delivered as i64 - self.prr_out as i64).max(delivered as i64) + 1;
            (ssthresh - pipe).min(limit)
        };
        sndcnt = sndcnt.max(0);
        if self.prr_out == 0 && sndcnt == 0 {
            sndcnt = 1; // the fast retransmission itself
        }
        self.tp.cwnd = ((pipe + sndcnt).max(1) as u32).min(self.tp.cwnd_clamp);
    }

    fn enter_recovery_sack1(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        // ns-2 slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF) halves window() =
        // min(cwnd, rwnd), not FlightSize.
        let win = self.tp.cwnd.min(self.rwnd_segs);
        let ssthresh = self.begin_recovery(now, win);
        self.in_recovery = true;
        self.recovery_started = now;
        // pipe = maxseq − highest_ack − numdupacks
        self.sack1_pipe = (self.snd_max - self.snd_una) as i64 - self.cfg.tcp.dupthresh as i64;
        if !self.cc_owns_cwnd {
            self.tp.cwnd = ssthresh.max(1);
            self.tp.cwnd_cnt = 0;
        }
        self.set_ca_state(CaState::Recovery);
        // output(last_ack_ + 1): not through send_much, so pipe is not raised.
        let una = self.snd_una;
        self.sb.high_rxt = una + 1;
        let pipe = self.sack1_pipe;
        self.send_segment(una, now, out);
        self.sack1_pipe = pipe;
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    fn exit_recovery(&mut self, now: SimTime) {
        self.in_recovery = false;
        if !self.cc_owns_cwnd {
            self.tp.cwnd = self.tp.ssthresh.min(self.tp.cwnd_clamp).max(1);
            self.tp.cwnd_cnt = 0;
        }
        self.dupacks = 0;
        self.lt_sent = 0;
        let d = (now - self.recovery_started) as f64 / PS_PER_S as f64;
        self.events.push((now, FlowEventKind::RecoveryEnd, d));
        self.sync_tp(now);
        self.set_ca_state(CaState::Open);
        self.cc.cwnd_event(&mut self.tp, CwndEvent::CompleteCwr);
    }

    fn fast_retransmit_allowed(&self, ack: u64) -> bool {
        let passed_recover = !self.recover_valid || ack > self.recover;
        match (self.sack, self.recovery) {
            // RFC 6675 §5.1: no new recovery until HighACK ≥ RecoveryPoint.
            (SackCfg::Rfc6675, _) => !self.recover_valid || ack >= self.recover,
            (SackCfg::Off, Recovery::Reno) => passed_recover || self.last_action == LastAction::FastRetransmit,
            _ => passed_recover,
        }
    }

    /// Forget all SACK information (ns-2 ClearScoreBoard; RTO without the
    /// RFC 6675 scoreboard).
    fn clear_scoreboard(&mut self) {
        self.sb.clear(self.snd_una);
    }

    /// Take the SACK blocks the receiver filed for ACK `id`, dropping the
    /// entries of ACKs lost on the way.
    fn take_sack_blocks(&mut self, id: u32, has: bool) -> Option<SackEntry> {
        while let Some(e) = self.rcv.sack_log.front() {
            if e.id < id {
                self.rcv.sack_log.pop_front();
            } else {
                break;
            }
        }
        if has && self.rcv.sack_log.front().is_some_and(|e| e.id == id) {
            self.rcv.sack_log.pop_front()
        } else {
            None
        }
    }

    /// Mark newly SACKed segments; returns how many.
    fn apply_sack(&mut self, e: &SackEntry, now: SimTime, cand: &mut RateCand, sack_rtt: &mut Option<SimTime>) -> u64 {
        let mut fresh = std::mem::take(&mut self.sb.new_blocks);
        fresh.clear();
        for &(a, b) in &e.blocks[..e.n as usize] {
            let a = a.max(self.snd_una);
            let b = b.min(self.snd_max);
            if a < b {
                self.sb.sacked.insert(a, b, &mut fresh);
            }
        }
        let mut n = 0;
        for &(a, b) in &fresh {
            for s in a..b {
                let r = *self.rec(s);
                if r.flags & LOST != 0 {
                    self.sb.lost_out -= 1;
                }
                if r.flags & RETRANS != 0 {
                    self.sb.retrans_out -= 1;
                }
                self.rec_mut(s).flags = (r.flags & !(LOST | RETRANS)) | SACKED;
                self.sb.sacked_out += 1;
                n += 1;
                cand.offer(&r, s);
                if r.flags & EVER_RETRANS == 0 && sack_rtt.is_none() {
                    *sack_rtt = Some(now - r.sent_at);
                }
            }
        }
        self.sb.new_blocks = fresh;
        self.rate.delivered += n;
        n
    }

    /// RFC 6675 IsLost (Scoreboard::update_lost); segments newly marked.
    fn update_lost(&mut self) -> u32 {
        self.sb.update_lost(self.snd_una, self.cfg.tcp.dupthresh as u64)
    }

    /// RFC 3168 §6.1.2: answer ECN-Echo with one reduction per window.
    fn ecn_reduce(&mut self, now: SimTime) -> bool {
        if self.in_recovery || self.in_loss || self.in_cwr || self.snd_una < self.cwr_high {
            return false;
        }
        self.sync_tp(now);
        self.tp.prior_cwnd = self.tp.cwnd;
        self.events.push((now, FlowEventKind::EcnReduction, self.tp.cwnd as f64));
        self.stats.ecn_reductions += 1;
        let ssthresh = self.cc.ssthresh(&self.tp);
        self.tp.ssthresh = ssthresh;
        if !self.cc_owns_cwnd {
            self.tp.cwnd = ssthresh.clamp(1, self.tp.cwnd_clamp);
            self.tp.cwnd_cnt = 0;
        }
        self.in_cwr = true;
        self.cwr_high = self.snd_max;
        self.cwr_pending = true;
        self.set_ca_state(CaState::Cwr);
        true
    }

    /// An ACK (or SYN-ACK) reached the sender.
    pub fn on_ack(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        let ts_on = self.cfg.tcp.timestamps;
        if pkt.kind == PktKind::SynAck {
            if self.state == SenderState::SynSent {
                if ts_on {
                    self.take_rtt_sample(now, now - pkt.ts);
                } else if !self.syn_retransmitted {
                    self.take_rtt_sample(now, now - self.syn_sent_at);
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
        self.trace_seq(now, 2, ack);
        let prior_in_flight = self.in_flight();
        let prior_pipe = self.pipe();
        let delivered_before = self.rate.delivered;
        let lost_before = self.sb.lost_out;
        let mut cand = RateCand::default();
        let mut sack_rtt = None;

        // --- SACK information
        let mut new_sacked = 0;
        let entry = self.take_sack_blocks(pkt.aux, pkt.flags & FLAG_SACK != 0);
        if let Some(e) = entry {
            let use_it = match self.sack {
                SackCfg::Off => false,
                SackCfg::Sack1 => !self.sack1_ignore,
                SackCfg::Rfc6675 => true,
            };
            if use_it && ack <= self.snd_max {
                new_sacked = self.apply_sack(&e, now, &mut cand, &mut sack_rtt);
            }
        }

        // --- cumulative ACK
        let mut newly = 0u64;
        let mut sample = None;
        let mut is_dup = false;
        if ack > self.snd_una && ack <= self.snd_max {
            newly = ack - self.snd_una;
            let mut first_sent = None;
            let mut any_retrans = false;
            let mut fresh = 0u64;
            for s in self.snd_una..ack {
                let r = self.sb.txq.pop_front().expect("tx record for every outstanding segment");
                if r.flags & SACKED != 0 {
                    self.sb.sacked_out -= 1;
                    continue;
                }
                if r.flags & LOST != 0 {
                    self.sb.lost_out -= 1;
                }
                if r.flags & RETRANS != 0 {
                    self.sb.retrans_out -= 1;
                }
                fresh += 1;
                cand.offer(&r, s);
                if first_sent.is_none() {
                    first_sent = Some(r.sent_at);
                }
                any_retrans |= r.flags & EVER_RETRANS != 0;
            }
            if self.sack == SackCfg::Off {
                // Linux tcp_remove_reno_sacks: dup ACKs already counted.
                self.rate.delivered += fresh.saturating_sub(self.dup_credit).max(1);
                self.dup_credit = 0;
            } else {
                self.rate.delivered += fresh;
            }
            sample = if ts_on {
                Some(now - pkt.ts)
            } else if any_retrans {
                None
            } else {
                first_sent.map(|t| now - t).or(sack_rtt)
            };
            self.snd_una = ack;
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            self.sb.sacked.trim_below(ack);
            self.sb.lost_upto = self.sb.lost_upto.max(ack);
            self.sb.high_rxt = self.sb.high_rxt.max(ack);
        } else if ack == self.snd_una && self.snd_una < self.snd_max {
            // RFC 5681 duplicate ACK; with SACK (RFC 6675 §2) it must also
            // carry new SACK information.
            is_dup = self.sack == SackCfg::Off || new_sacked > 0;
            if is_dup {
                self.stats.dupacks_received += 1;
                self.dupacks += 1;
                if self.sack == SackCfg::Off {
                    self.rate.delivered += 1;
                    self.dup_credit += 1;
                }
            }
            if !ts_on {
                sample = sack_rtt;
            }
        }
        if let Some(r) = sample {
            self.take_rtt_sample(now, r);
        }
        let newly_lost = if self.sack == SackCfg::Rfc6675 && new_sacked > 0 { self.update_lost() } else { 0 };
        let acked_sacked = self.rate.delivered - delivered_before;
        let acked = newly.min(u32::MAX as u64) as u32;

        // --- loss recovery
        let mut restart_timer = true;
        let mut grow = newly > 0;
        match self.sack {
            SackCfg::Off => {
                if newly > 0 {
                    if self.in_recovery {
                        grow = false;
                        if self.recovery == Recovery::Reno || ack >= self.recover {
                            // Reno: any new ACK ends recovery. NewReno: full ACK.
                            self.exit_recovery(now);
                        } else {
                            // NewReno partial ACK (RFC 6582 §3.2 step 4): retransmit the
                            // next hole, deflate by the amount acked, add back one SMSS.
                            let una = self.snd_una;
                            self.send_segment(una, now, out);
                            if !self.cc_owns_cwnd {
                                self.tp.cwnd = self.tp.cwnd.saturating_sub(acked).saturating_add(1).max(1);
                            }
                            restart_timer = self.first_partial;
                            self.first_partial = false;
                        }
                    } else {
                        self.dupacks = 0;
                        self.lt_sent = 0;
                    }
                } else if is_dup {
                    if self.in_recovery {
                        // Each further duplicate ACK: cwnd += SMSS (RFC 5681 §3.2 step 4).
                        if !self.cc_owns_cwnd {
                            self.tp.cwnd = self.tp.cwnd.saturating_add(1);
                        }
                    } else if self.dupacks == self.cfg.tcp.dupthresh && self.fast_retransmit_allowed(ack) {
                        self.enter_recovery_classic(now, out);
                    }
                }
            }
            SackCfg::Rfc6675 => {
                if newly > 0 && !self.in_recovery {
                    self.dupacks = 0;
                    self.lt_sent = 0;
                }
                if self.in_recovery && self.snd_una >= self.recover {
                    self.exit_recovery(now);
                    grow = false;
                } else if self.in_loss && self.snd_una >= self.recover {
                    self.in_loss = false;
                    self.set_ca_state(CaState::Open);
                }
                if self.in_recovery {
                    grow = false;
                    if self.cfg.tcp.prr && !self.cc_owns_cwnd {
                        self.prr_update(acked_sacked);
                    }
                } else if !self.in_loss
                    && self.snd_una < self.snd_max
                    && (self.dupacks >= self.cfg.tcp.dupthresh || self.rec(self.snd_una).flags & LOST != 0)
                    && self.fast_retransmit_allowed(self.snd_una)
                {
                    self.enter_recovery_6675(now, acked_sacked, out);
                    grow = false;
                }
            }
            SackCfg::Sack1 => {
                if self.in_recovery {
                    grow = false;
                    self.sack1_pipe -= 1;
                    if newly > 0 && ack >= self.recover {
                        self.exit_recovery(now);
                        self.clear_scoreboard();
                    } else if newly > 0 {
                        // Partial ACK: the original and its retransmission
                        // have both left the pipe.
                        self.sack1_pipe -= 1;
                    }
                } else if newly > 0 {
                    self.dupacks = 0;
                    self.lt_sent = 0;
                    self.sack1_ignore = false;
                    if self.sb.sacked_out > 0 {
                        self.clear_scoreboard();
                    }
                } else if is_dup && self.dupacks == self.cfg.tcp.dupthresh && self.fast_retransmit_allowed(ack) {
                    self.enter_recovery_sack1(now, out);
                }
            }
        }

        // --- ECN echo
        if pkt.flags & FLAG_ECE != 0 && self.cfg.tcp.ecn && self.ecn_reduce(now) {
            grow = false; // RFC 3168 §6.1.2: no increase on this ACK
        }
        if self.in_cwr && self.snd_una >= self.cwr_high {
            self.in_cwr = false;
            self.sync_tp(now);
            self.set_ca_state(CaState::Open);
            self.cc.cwnd_event(&mut self.tp, CwndEvent::CompleteCwr);
        }

        // --- delivery-rate sample and window growth
        let losses = self.sb.lost_out.saturating_sub(lost_before).max(newly_lost);
        let rs = self.rate_sample(now, cand, acked_sacked, losses, prior_pipe, sample);
        self.sync_tp(now);
        self.cc.in_ack_event(&self.tp, acked);
        if newly > 0 {
            self.cc.pkts_acked(&mut self.tp, &AckSample { acked, rtt: sample, in_flight: prior_in_flight });
        }
        if self.cc_owns_cwnd {
            self.cc.cong_control(&mut self.tp, &rs);
            self.tp.cwnd = self.tp.cwnd.clamp(1, self.tp.cwnd_clamp);
            if self.tp.mark_app_limited {
                // Linux: tp->app_limited = (delivered + in flight) ?: 1.
                self.tp.mark_app_limited = false;
                self.rate.app_limited = (self.rate.delivered + self.pipe() as u64).max(1);
            }
        } else if grow && prior_in_flight >= self.tp.cwnd {
            // In slow start an ACK may grow cwnd by at most L segments
            // (RFC 3465 §2.3 / RFC 5681 eq. 2), however much it acks.
            let l = self.cfg.tcp.abc_limit;
            let credit = if l > 0 && self.tp.in_slow_start() { acked.min(l) } else { acked };
            self.cc.cong_avoid(&mut self.tp, credit);
            self.tp.cwnd = self.tp.cwnd.clamp(1, self.tp.cwnd_clamp);
        }

        if newly > 0 {
            if self.snd_una >= self.snd_max {
                self.rto_deadline = None;
            } else if restart_timer {
                self.rto_deadline = Some(now + self.rtt.rto());
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
                out.push(Packet::new(PktKind::Syn, 0, now, self.id, self.data_hdr, self.fwd_route));
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
                    let d = (now - self.recovery_started) as f64 / PS_PER_S as f64;
                    self.events.push((now, FlowEventKind::RecoveryEnd, d));
                }
                self.in_cwr = false;
                self.tp.cwnd = 1;
                self.tp.cwnd_cnt = 0;
                self.dupacks = 0;
                self.lt_sent = 0;
                self.recover = self.snd_max; // RFC 6582 §3.2 step 5; RFC 6675 §5.1
                self.recover_valid = true;
                self.cwr_high = self.snd_max;
                self.last_action = LastAction::Timeout;
                self.rtt.back_off();
                self.set_ca_state(CaState::Loss);
                self.cc.cwnd_event(&mut self.tp, CwndEvent::Loss);
                match self.sack {
                    SackCfg::Off => self.snd_nxt = self.snd_una,
                    SackCfg::Sack1 => {
                        self.clear_scoreboard();
                        self.sack1_ignore = true;
                        self.snd_nxt = self.snd_una;
                    }
                    SackCfg::Rfc6675 => {
                        // Every un-SACKed segment is presumed lost and earlier
                        // retransmissions are presumed gone too (Linux
                        // tcp_enter_loss; RFC 6675 §5.1 keeps using SACK
                        // information in the slow start that follows).
                        let mut lost = 0;
                        for r in self.sb.txq.iter_mut() {
                            r.flags &= !RETRANS;
                            if r.flags & SACKED == 0 {
                                r.flags |= LOST;
                                lost += 1;
                            }
                        }
                        self.sb.lost_out = lost;
                        self.sb.retrans_out = 0;
                        self.sb.lost_upto = self.snd_max;
                        self.sb.high_rxt = self.snd_una;
                        self.in_loss = true;
                    }
                }
                self.try_send(now, out);
                if self.rto_deadline.is_none() {
                    self.rto_deadline = Some(now + self.rtt.rto());
                }
            }
        }
    }

    // ------------------------------------------------------------ timers

    /// Run whichever timers are due at `now`.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if let Some(d) = self.rcv.delack_deadline {
            if d <= now {
                self.send_ack(now, None, out);
            }
        }
        if let Some(d) = self.rto_deadline {
            if d <= now {
                self.on_rto(now, out);
            }
        }
        if let Some(d) = self.pacer.deadline {
            if d <= now {
                self.pacer.deadline = None;
                self.try_send(now, out);
            }
        }
    }
}

#[cfg(test)]
mod tests;
