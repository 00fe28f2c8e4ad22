//! The connection: everything a flow keeps whatever its loss-recovery mode
//! — sequence state, the congestion module and its `CcState`, the
//! scoreboard, RTT and RTO, pacing, delivery rate, ECN, counters, traces —
//! and the operations every mode uses (send a segment, process the
//! cumulative part of an ACK, enter and leave recovery, grow the window).
//!
//! Whether SACK was negotiated decides a few rules here, each with its
//! source: FlightSize counts from snd_max with the RFC 6675 scoreboard and
//! from snd_nxt without it (go-back-N); pipe is RFC 6675 SetPipe, ns-2
//! Sack1's counter, or FlightSize; without SACK, delivery counts duplicate
//! ACKs as Linux `tcp_add_reno_sack` does. The mode-specific decisions live
//! in `recovery/`.

mod ack;
pub(in crate::tcp) use ack::prr_cwnd;
mod rack_undo;

use super::pacing::{self, Pacer};
use super::rack::{Rack, Tlp};
use super::rate::RateState;
use super::rcvwnd::ms_clock;
use super::receiver::Receiver;
use super::rtt::RttEstimator;
use super::scoreboard::{Scoreboard, TxRec, APP_LIMITED, EVER_RETRANS, RETRANS};
use super::types::{FlowEventKind, FlowStats, FlowTrace, LastAction, SenderState};
use super::undo::Undo;
use crate::cc::{self, CaState, CcState, CongestionOps, CwndEvent};
use crate::config::{AppCfg, FlowCfg, PacingCfg, SackCfg, SsthreshBase, TcpCfg};
use crate::config::{EcnCodepoint, EcnFeedback, RtoModel};
use crate::packet::{Ecn, Packet, PktKind, FLAG_CWR};
use crate::units::{SimTime, PS_PER_S};

/// Data segments a Linux-paced connection sends before pacing starts
/// (`tcp_update_skb_after_send`: `tp->data_segs_out >= 10`).
const LINUX_UNPACED_SEGS: u64 = 10;

/// What the cumulative part of an ACK did (`Conn::take_cumulative`).
#[derive(Clone, Copy, Debug)]
pub(super) struct AckInfo {
    /// The ACK number.
    pub ack: u64,
    /// Segments newly cumulatively acknowledged.
    pub newly: u64,
    /// A duplicate ACK (RFC 5681 §2; with SACK, RFC 6675 §2: it must also
    /// carry new SACK information).
    pub is_dup: bool,
    /// Segments newly acked or SACKed (delivered).
    pub acked_sacked: u64,
    /// Segments newly SACKed.
    pub sacked: u64,
    /// This ACK marked segments lost (Linux rs->losses > 0, `newly_lost`
    /// of tcp_cwnd_reduction).
    pub newly_lost: bool,
    /// A newly delivered segment at or below `recover` was never
    /// retransmitted (Linux FLAG_ORIG_SACK_ACKED).
    pub orig_acked: bool,
    /// The timestamp the ACK echoes (with timestamps on).
    pub ts_ecr: Option<SimTime>,
    /// The ACK carried ECN-Echo on a connection with ECN (Linux FLAG_ECE,
    /// tcp_ecn_rcv_ecn_echo), or, under AccECN, reported new CE marks
    /// (tcp_accecn_process sets FLAG_ECE when its delta is positive).
    pub ece: bool,
    /// Segments this ACK adds to `delivered_ce` (Linux rs->ece_delta):
    /// under AccECN the increase of the receiver's CE count; otherwise
    /// everything the ACK delivered when it carried ECE.
    pub ce_delta: u64,
    /// The ACK acknowledges exactly a retransmitted tail-loss probe's
    /// sequence and made progress: it may be for the probe (the BBRv3
    /// kernel's rs->is_acking_tlp_retrans_seq, as we read tcp_process_tlp_ack).
    pub acking_tlp_retrans: bool,
}

/// What the recovery mode decided for one ACK.
#[derive(Clone, Copy, Debug)]
pub(super) struct AckStep {
    /// The window may grow on this ACK (not during recovery).
    pub grow: bool,
    /// Restart the RTO timer if the ACK acknowledged new data.
    pub restart_timer: bool,
}

pub struct Conn {
    pub id: u32,
    pub fwd_route: u32,
    pub rev_route: u32,
    pub start: SimTime,
    pub cfg: FlowCfg,
    pub(super) total_segs: u64,
    pub(super) file_bytes: Option<u64>,
    /// When the algorithm's own timer fires next (`CongestionOps::timer_interval`).
    pub(super) cc_timer: Option<SimTime>,
    /// `CongestionOps::reads_conn`, asked once.
    cc_reads_conn: bool,
    /// New data may be sent below this segment: `total_segs` while the
    /// application has data, `snd_max` while an ON-OFF source is OFF.
    pub(super) send_limit: u64,
    /// Connection number of this flow slot: packets carry it, and packets of
    /// an earlier connection (a repeated transfer's late ACK) are discarded.
    pub conn: u16,
    /// Application bytes delivered by earlier connections of this slot.
    pub(super) delivered_base: u64,
    /// When data was last sent (Linux lsndtime), for the idle checks.
    pub(super) last_send: Option<SimTime>,
    pub(super) seed: u64,
    /// SACK as negotiated (`tcp.sack`).
    pub(super) sack: SackCfg,
    pub(super) cc: Box<dyn CongestionOps>,
    pub(super) cc_owns_cwnd: bool,
    pub tp: CcState,
    pub(super) rwnd_segs: u32,
    /// TS.Recent of the sender (RFC 7323 §4.3): the TSval of the last ACK
    /// whose window it read (the receiver's millisecond clock), echoed as
    /// TSecr in each data segment's `aux`.
    pub(super) ts_recent_ms: u32,
    pub(super) data_hdr: u32,
    pub(super) ack_hdr: u32,

    // --- sender
    pub state: SenderState,
    pub snd_una: u64,
    /// Next segment to send; below snd_max only during go-back-N after a
    /// timeout (or Tahoe's fast retransmit) without the RFC 6675 scoreboard.
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint.
    pub(super) recover: u64,
    pub(super) recover_valid: bool,
    pub in_recovery: bool,
    pub(super) recovery_started: SimTime,
    pub(super) last_action: LastAction,
    pub(super) dupacks: u32,
    /// Segments sent by limited transmit in the current run of dup ACKs.
    pub(super) lt_sent: u32,
    /// Per-segment records and the SACK scoreboard.
    pub(super) sb: Scoreboard,
    /// ns-2 Sack1's pipe, a counter kept during its recovery (see
    /// recovery/sack1.rs); `pipe()` reads it.
    pub(super) sack1_pipe: i64,
    /// RFC 8985 RACK state and the tail loss probe.
    pub(super) rack: Rack,
    pub(super) tlp: Tlp,
    /// Undo of spurious reductions.
    pub(super) undo: Undo,
    /// Set while an ACK is processed: it delivered never-retransmitted
    /// data at or below `recover` (AckInfo::orig_acked).
    pub(super) ack_orig: bool,
    // ECN (RFC 3168)
    pub(super) in_cwr: bool,
    pub(super) cwr_high: u64,
    pub(super) cwr_pending: bool,
    /// Linux CWR (`ecn_response = "linux"`): PRR's prr_delivered and
    /// prr_out since the reduction began (tcp_init_cwnd_reduction).
    pub(super) cwr_prr_delivered: u64,
    pub(super) cwr_prr_out: u64,
    /// `ecn_response = "ns2"`: ns-2's cwnd_ is 0 after an ECN at a window
    /// of 1. cwnd stays 1 (the algorithms' arithmetic needs a window) and
    /// this flag closes the send window until a new ACK without ECE opens
    /// it (opencwnd: 0 → 1) or the retransmission timer expires.
    pub(super) ecn_stalled: bool,
    /// ns-2 ecn_backoff_: the last ECN came at cwnd ≤ 1 (a second one
    /// backs the timer off).
    pub(super) ecn_backoff: bool,
    /// ns-2 ect_: an ACK with ECE has been seen, the SYN-ACK's negotiation
    /// included (from then on an ACK carrying ECE does not open the window).
    pub(super) ecn_seen: bool,
    /// Segments delivered by ECE ACKs (CcState::delivered_ce).
    pub(super) delivered_ce: u64,
    pub(super) pacer: Pacer,
    pub(super) rate: RateState,
    // Linux tcp_cwnd_validate state: is the window used (`cwnd_limited`)?
    pub(super) is_cwnd_limited: bool,
    pub(super) max_packets_out: u32,
    pub(super) cwnd_usage_seq: u64,
    /// Duplicate ACKs already counted as delivered (tcp_remove_reno_sacks).
    pub(super) dup_credit: u64,
    pub rtt: RttEstimator,
    /// ns-2's timed segment (rtt_seq_, rtt_ts_): the `ns2` RTO model
    /// samples one segment per RTT; cancelled by any retransmission event.
    pub(super) ns2_timed: Option<(u64, SimTime)>,
    pub(super) rto_deadline: Option<SimTime>,
    pub(super) syn_sent_at: SimTime,
    pub(super) syn_retransmitted: bool,
    pub first_send: Option<SimTime>,
    /// When this connection first put a data segment on the wire (after
    /// the handshake, if any): the start of FCT "from the first data byte".
    pub first_data: Option<SimTime>,

    // --- receiver
    pub(super) rcv: Receiver,
    pub completed_at: Option<SimTime>,

    pub stats: FlowStats,
    pub events: Vec<(SimTime, FlowEventKind, f64)>,
    pub trace: Option<Box<FlowTrace>>,
}

impl Conn {
    pub(super) fn new(id: u32, cfg: FlowCfg, fwd_route: u32, rev_route: u32, seed: u64) -> Self {
        let t = &cfg.tcp;
        let mut rng = crate::rng::Stream::new(seed, crate::rng::StreamKind::Cc, id as u64);
        let cc = match &t.cc_external {
            Some(ext) => cc::external::build(&t.cc, ext, &t.cc_params, id, rng.next_u64())
                .expect("external builder checked by config"),
            None => {
                let spec = cc::spec(&t.cc).expect("algorithm name validated by config");
                let params = cc::params::resolve(spec, t.cc_preset.as_deref(), &t.cc_params)
                    .expect("algorithm parameters validated by config");
                (spec.build)(&params, rng)
            }
        };
        let (total_segs, file_bytes) = match cfg.app {
            AppCfg::Bulk | AppCfg::OnOff { .. } | AppCfg::Schedule { .. } => (u64::MAX, None),
            AppCfg::File { bytes } => (bytes.div_ceil(t.mss as u64), Some(bytes)),
            // Sized by reconnect_first before the first transfer starts.
            AppCfg::Repeat { .. } => (0, Some(0)),
        };
        // An algorithm outside the core (Python) may set any window in one
        // step: its window is kept within the largest one a scenario may
        // configure, so that one ACK cannot send (and record) billions of
        // segments before the memory watch runs (docs/python-algorithms.md).
        let clamp =
            t.max_cwnd.unwrap_or(if t.cc_external.is_some() { crate::config::MAX_INITIAL_WINDOW } else { u32::MAX });
        let rcv = Receiver::new(t);
        // The SYN-ACK's window caps the first flight (Linux: 45 segments of 1448).
        let rwnd_segs = rwnd_cap_segs(t).min(rcv.initial_window_segs().unwrap_or(u32::MAX));
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
            delivered_ce: 0,
            pipe: 0,
            pacing_rate: None,
            app_limited: false,
            snd_una: 0,
            snd_nxt: 0,
            ca_state: CaState::Open,
            delivered_at: 0,
            lsndtime: 0,
            paced: t.pacing != PacingCfg::Off,
            ssthresh_from_cwnd: t.ssthresh_base == SsthreshBase::Cwnd,
            mark_app_limited: false,
            lost: 0,
            is_cwnd_limited: false,
            ecn_ok: t.ecn,
            rto: 0,
            rttvar: None,
            rwnd: rwnd_segs,
            app_backlog: 0,
        };
        let opt = t.option_bytes();
        let boot = crate::rng::Stream::new(seed, crate::rng::StreamKind::Timer, id as u64).uniform();
        let rtt = RttEstimator::new(t.rto, t.min_rto_ps, t.max_rto_ps, t.initial_rto_ps, t.clock_granularity_ps, boot);
        let cc_owns_cwnd = cc.has_cong_control();
        let cc_reads_conn = cc.reads_conn();
        Conn {
            id,
            fwd_route,
            rev_route,
            start: cfg.start_ps,
            total_segs,
            file_bytes,
            cc_timer: None,
            cc_reads_conn,
            send_limit: total_segs,
            conn: 0,
            delivered_base: 0,
            last_send: None,
            seed,
            sack: t.sack,
            cc,
            cc_owns_cwnd,
            tp,
            rwnd_segs,
            ts_recent_ms: 0,
            data_hdr: t.header_bytes + opt,
            ack_hdr: t.header_bytes + opt,
            state: SenderState::Idle,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            recover: 0,
            recover_valid: false,
            in_recovery: false,
            recovery_started: 0,
            last_action: LastAction::None,
            dupacks: 0,
            lt_sent: 0,
            sb: Scoreboard::default(),
            sack1_pipe: 0,
            rack: Rack::default(),
            tlp: Tlp::default(),
            undo: Undo::default(),
            ack_orig: false,
            in_cwr: false,
            cwr_high: 0,
            cwr_pending: false,
            cwr_prr_delivered: 0,
            cwr_prr_out: 0,
            ecn_stalled: false,
            ecn_backoff: false,
            ecn_seen: false,
            delivered_ce: 0,
            pacer: Pacer::default(),
            rate: RateState::default(),
            dup_credit: 0,
            is_cwnd_limited: false,
            max_packets_out: 0,
            cwnd_usage_seq: 0,
            rtt,
            ns2_timed: None,
            rto_deadline: None,
            syn_sent_at: 0,
            syn_retransmitted: false,
            first_send: None,
            first_data: None,
            rcv,
            completed_at: None,
            stats: FlowStats::default(),
            events: Vec::new(),
            trace: None,
            cfg,
        }
    }

    pub fn enable_trace(&mut self, rtt: bool, seq: bool, cc: bool) {
        if rtt || seq || cc {
            self.trace = Some(Box::new(FlowTrace { want_rtt: rtt, want_seq: seq, want_cc: cc, ..Default::default() }));
        }
    }

    /// Names of the algorithm's exported state variables.
    pub fn cc_var_names(&self) -> &'static [&'static str] {
        self.cc.var_names()
    }

    /// Segments delivered by ACKs that carried ECN-Echo (Linux tp->delivered_ce).
    pub fn delivered_ce(&self) -> u64 {
        self.delivered_ce
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

    pub fn inflight_bytes(&self) -> u64 {
        self.bytes_upto(self.snd_nxt) - self.bytes_upto(self.snd_una)
    }

    /// Last delivery-rate sample kept by Linux's tcp_info rule, bit/s.
    pub fn delivery_rate_bps(&self) -> f64 {
        self.rate.info_bps
    }

    /// Rate used for the last paced segment, bit/s (0 = unpaced).
    pub fn pacing_rate_bps(&self) -> f64 {
        self.pacer.rate_bps
    }

    /// Sent and not cumulatively acked: snd_nxt − snd_una without the
    /// scoreboard (go-back-N resets snd_nxt), FlightSize with it.
    #[inline]
    pub(super) fn in_flight(&self) -> u32 {
        let top = if self.sack == SackCfg::Rfc6675 { self.snd_max } else { self.snd_nxt };
        (top - self.snd_una).min(u32::MAX as u64) as u32
    }

    /// The sender's estimate of segments in the network: RFC 6675 SetPipe
    /// (outstanding − SACKed − lost + retransmitted), ns-2 Sack1's counter
    /// during its recovery, FlightSize otherwise.
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

    pub(super) fn sync_tp(&mut self, now: SimTime) {
        self.tp.now = now;
        self.tp.in_flight = self.in_flight();
        self.tp.pipe = self.pipe();
        self.tp.srtt = self.rtt.srtt;
        self.tp.min_rtt = self.rtt.min_rtt;
        self.tp.delivered = self.rate.delivered;
        self.tp.delivered_ce = self.delivered_ce;
        self.tp.delivered_at = self.rate.delivered_at;
        self.tp.app_limited = self.rate.app_limited != 0;
        self.tp.snd_una = self.snd_una;
        self.tp.snd_nxt = self.snd_max;
        self.tp.is_cwnd_limited = self.is_cwnd_limited;
        if self.cc_reads_conn {
            self.tp.rto = self.rtt.rto();
            self.tp.rttvar = self.rtt.rttvar();
            self.tp.rwnd = self.rwnd_segs;
            self.tp.app_backlog = if self.total_segs == u64::MAX { u64::MAX } else { self.send_limit - self.snd_max };
        }
    }

    pub(super) fn set_ca_state(&mut self, s: CaState) {
        self.cc.set_state(&mut self.tp, s);
        self.tp.ca_state = s;
    }

    #[inline]
    pub(super) fn rec(&self, seq: u64) -> &TxRec {
        self.sb.rec(self.snd_una, seq)
    }

    #[inline]
    pub(super) fn rec_mut(&mut self, seq: u64) -> &mut TxRec {
        self.sb.rec_mut(self.snd_una, seq)
    }

    /// Earliest pending timer deadline (RTO, delayed ACK, pacing, RACK's
    /// reordering timer or the loss probe).
    #[inline]
    pub fn next_deadline(&self) -> Option<SimTime> {
        let a = self.rto_deadline.unwrap_or(SimTime::MAX);
        let b = self.rcv.delack_deadline.unwrap_or(SimTime::MAX);
        let c = self.pacer.deadline.unwrap_or(SimTime::MAX);
        let d = self.rack.deadline.unwrap_or(SimTime::MAX);
        let e = self.tlp.deadline.unwrap_or(SimTime::MAX);
        let f = self.cc_timer.unwrap_or(SimTime::MAX);
        let m = a.min(b).min(c).min(d).min(e).min(f);
        (m != SimTime::MAX).then_some(m)
    }

    /// Restart the window after idle (RFC 2861) as Linux tcp_cwnd_restart
    /// does, if `tcp.idle_restart` is on, nothing is outstanding and the
    /// sender has been silent for more than an RTO: ssthresh =
    /// max(ssthresh, ¾·cwnd), cwnd halved once per RTO of idleness, but not
    /// below min(initial window, cwnd).
    pub(super) fn idle_restart(&mut self, now: SimTime) {
        let Some(last) = self.last_send else { return };
        let rto = self.rtt.rto();
        if !(self.cfg.tcp.idle_restart && self.snd_una == self.snd_max && now - last > rto) {
            return;
        }
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

    // ------------------------------------------------------------ sending

    pub(super) fn pacing_active(&self) -> bool {
        pacing::active(self.tp.pacing_rate, self.cfg.tcp.pacing)
    }

    /// Pacing rate in bytes/s now, or None when unpaced (pacing::rate).
    pub(super) fn pacing_rate_now(&self) -> Option<f64> {
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
    pub(super) fn pacing_burst(&self) -> u32 {
        if let Some(n) = self.cc.tso_segs() {
            if self.cfg.tcp.tso && !self.window_paced() && self.pacer.rate.is_some() {
                return n.max(1);
            }
        }
        let min = self.cc.min_tso_segs().unwrap_or(self.cfg.tcp.min_tso_segs);
        self.pacer.burst(self.cfg.tcp.tso, self.window_paced(), self.cfg.tcp.mss, min)
    }

    /// Gap to leave after sending `payload` bytes, or None when unpaced.
    fn pacing_gap(&mut self, payload: u32) -> Option<SimTime> {
        let wp = self.window_paced();
        self.pacer.gap(payload, wp, self.cfg.tcp.mss)
    }

    /// Record the rate state a (re)transmission carries (tcp_rate_skb_sent,
    /// with the BBRv3 kernel's tx.in_flight, tx.lost and tx.delivered_ce).
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
            // tcp_set_tx_in_flight: in flight after this send.
            in_flight: self.pipe().saturating_add(1),
            lost: self.tp.lost as u32,
            delivered_ce: self.delivered_ce as u32,
            flags: if self.rate.app_limited != 0 { APP_LIMITED } else { 0 },
        }
    }

    pub(super) fn send_segment(&mut self, seq: u64, now: SimTime, out: &mut Vec<Packet>) {
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
        pkt.aux = self.ts_recent_ms;
        self.first_data.get_or_insert(now);
        let stamp = self.stamp(now);
        if seq < self.snd_max {
            self.stats.retransmits += 1;
            let r = self.rec_mut(seq);
            let was = r.flags;
            *r = TxRec { flags: (was & !APP_LIMITED) | (stamp.flags & APP_LIMITED) | RETRANS | EVER_RETRANS, ..stamp };
            self.sb.marked(seq, seq + 1);
            if was & RETRANS == 0 {
                self.sb.retrans_out += 1;
            }
            self.undo.on_retransmit(now);
            if self.cfg.tcp.rack {
                self.rack.on_retransmit(now, seq);
            }
            self.trace_seq(now, 1, seq);
            // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
        } else {
            debug_assert_eq!(seq, self.snd_max);
            if self.sb.txq.capacity() == 0 {
                // the first window's records, exactly: growing from empty
                // would reserve 16 for an initial window of 10 (a million
                // flows: 290 MB more)
                self.sb.txq.reserve_exact((self.tp.cwnd as usize).clamp(4, 1 << 10));
            }
            self.sb.txq.push_back(stamp);
            self.snd_max = seq + 1;
            if self.ns2_timed.is_none() && self.rtt.model() == RtoModel::Ns2 {
                self.ns2_timed = Some((seq, now));
            }
            self.trace_seq(now, 0, seq);
            if self.cfg.tcp.ecn {
                pkt.ecn = match self.cfg.tcp.ecn_codepoint {
                    EcnCodepoint::Ect0 => Ecn::Ect0,
                    EcnCodepoint::Ect1 => Ecn::Ect1,
                };
                if self.cwr_pending && self.cfg.tcp.ecn_feedback != EcnFeedback::Accecn {
                    pkt.flags |= FLAG_CWR;
                    self.cwr_pending = false;
                }
            }
        }
        if self.in_recovery && self.sack == SackCfg::Sack1 {
            self.sack1_pipe += 1;
        }
        // Linux tcp_update_skb_after_send: the pacing clock advances only
        // once the connection has sent 10 data segments ("Original sch_fq
        // does not pace first 10 MSS"): the first nine go unpaced.
        // ns-2's leaky bucket paces from the first segment.
        if self.pacing_active() {
            let gap = if self.window_paced() || self.stats.data_pkts_sent + 1 >= LINUX_UNPACED_SEGS {
                self.pacing_gap(payload)
            } else {
                None
            };
            // never behind the clock: a release that runs out of its quota
            // waits for `next`, which must not lie in the past
            self.pacer.next = self.pacer.next.max(now) + gap.unwrap_or(0);
        }
        self.stats.data_pkts_sent += 1;
        self.stats.data_bytes_sent += size as u64;
        out.push(pkt);
    }

    #[inline]
    pub(super) fn trace_seq(&mut self, now: SimTime, kind: u8, seq: u64) {
        if let Some(t) = self.trace.as_deref_mut() {
            if t.want_seq {
                t.seq.push((now, kind, seq));
            }
        }
    }

    /// New data may go if the file has more and the receiver window allows.
    #[inline]
    pub(super) fn new_data_allowed(&self, wnd: u64) -> bool {
        self.snd_max < self.send_limit && self.snd_max < self.snd_una + wnd
    }

    /// The fast-retransmit threshold now: `dupthresh`, or for Sack1 with
    /// `dupthresh_frac` the larger of it and cwnd / dupthresh_frac (ns-2
    /// `TcpAgent::numdupacks(cwnd_)`, which only tcp-sack1.cc calls).
    #[inline]
    pub(super) fn dupthresh(&self) -> u32 {
        let t = &self.cfg.tcp;
        if t.dupthresh_frac > 0 && self.sack == SackCfg::Sack1 {
            t.dupthresh.max(self.tp.cwnd / t.dupthresh_frac)
        } else {
            t.dupthresh
        }
    }

    /// An ACK's window (`tcp.rcv_autotune`): the right edge it offered, as
    /// a limit on the segments beyond its cumulative ACK, within `rwnd`.
    pub(in crate::tcp) fn take_window(&mut self, pkt: &Packet) {
        if let Some((edge, tsval)) = self.rcv.take_window(pkt.aux) {
            let offered = edge.saturating_sub(pkt.seq).min(u32::MAX as u64) as u32;
            self.rwnd_segs = rwnd_cap_segs(&self.cfg.tcp).min(offered);
            self.ts_recent_ms = tsval;
        }
    }

    /// Window for sending outside recovery: cwnd (plus RFC 3042's allowance
    /// of one new segment per each of the first two duplicate ACKs), capped
    /// by the receiver's window. With a threshold that grows with the
    /// window (`dupthresh_frac`), ns-2's `send_one` allowance: one new
    /// segment per duplicate ACK below the threshold (cwnd + dupacks_).
    #[inline]
    pub(super) fn send_window(&self) -> u64 {
        let mut w = if self.ecn_stalled { 0 } else { self.tp.cwnd as u64 };
        if self.cfg.tcp.limited_transmit && !self.in_recovery && self.dupacks > 0 {
            let thresh = self.dupthresh();
            if self.dupacks < thresh {
                w += if self.cfg.tcp.dupthresh_frac > 0 { self.dupacks } else { self.dupacks.min(2) } as u64;
            }
        }
        w.min(self.rwnd_segs as u64)
    }

    /// Outside recovery without the scoreboard: the next segment at snd_nxt
    /// (new data, or go-back-N below snd_max) if the window allows.
    #[inline]
    pub(super) fn go_back_n_allowed(&self) -> bool {
        let wnd = self.send_window();
        self.snd_nxt < self.send_limit.max(self.snd_max) && self.snd_nxt < self.snd_una + wnd
    }

    /// Bytes on the wire of a full-sized data segment and of a plain ACK.
    pub fn wire_sizes(&self) -> (u32, u32) {
        (self.cfg.tcp.mss + self.data_hdr, self.ack_hdr)
    }

    // ------------------------------------------------------------ receiver

    pub(super) fn send_ack(&mut self, now: SimTime, trigger: Option<u64>, out: &mut Vec<Packet>) {
        self.stats.acks_sent += 1;
        let p = self.rcv.make_ack(now, trigger, &self.cfg.tcp, self.id, self.ack_hdr, self.rev_route);
        out.push(p);
    }

    /// A data segment or SYN reached the receiver.
    pub fn on_data(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        if pkt.kind == PktKind::Syn {
            // TSecr echoes the SYN; the SYN-ACK's own TSval (the receiver's
            // millisecond clock) rides in `aux`
            let mut p = Packet::new(PktKind::SynAck, 0, pkt.ts, self.id, self.ack_hdr, self.rev_route);
            p.aux = ms_clock(now);
            out.push(p);
            return;
        }
        if pkt.ecn.is_ce() {
            self.stats.ce_received += 1;
        }
        self.stats.owd_hist.add(now.saturating_sub(pkt.ts));
        let before = self.rcv.rcv_nxt;
        let payload = pkt.size.saturating_sub(self.data_hdr);
        let dups = self.rcv.dup_segs;
        if self.rcv.ack_before_ce_change(pkt, &self.cfg.tcp) {
            self.send_ack(now, None, out);
        }
        let ack_now = self.rcv.on_segment(now, pkt, payload, &self.cfg.tcp, &self.rtt, &mut self.sb.new_blocks);
        self.stats.dup_segs_received += self.rcv.dup_segs - dups;
        if self.rcv.rcv_nxt > before && self.completed_at.is_none() && self.rcv.rcv_nxt >= self.total_segs {
            self.completed_at = Some(now);
            let fct = (now - self.first_send.unwrap_or(self.start)) as f64 / PS_PER_S as f64;
            self.events.push((now, FlowEventKind::Completed, fct));
        }
        if let Some(trigger) = ack_now {
            self.send_ack(now, trigger, out);
        }
    }
}

/// `rwnd` in whole segments (no limit when unset).
fn rwnd_cap_segs(t: &TcpCfg) -> u32 {
    match t.rwnd_bytes {
        None => u32::MAX,
        Some(b) => (b / t.mss as u64).min(u32::MAX as u64) as u32,
    }
}
