//! TCP endpoints of one flow: the sender and the receiver, with their timers.
//!
//! Sequence space is in segments (segment k carries bytes [k·MSS, (k+1)·MSS)
//! of the application stream; the last segment of a file may be shorter).
//!
//! Sender: RFC 5681 slow start and congestion avoidance through the
//! congestion module; loss recovery chosen per flow:
//! * SACK off: Tahoe, Reno (ns-2 rules) or NewReno (RFC 6582), as the
//!   algorithm's spec says (recovery/classic.rs);
//! * `rfc6675`: RFC 6675 conservative SACK recovery (scoreboard, IsLost,
//!   pipe, NextSeg rules 1–4 including the rescue retransmission), with
//!   RFC 6937 PRR as an option (recovery/rfc6675.rs);
//! * `sack1`: ns-2 `Agent/TCP/Sack1` (Fall & Floyd 1996; recovery/sack1.rs).
//!
//! Also RFC 3042 limited transmit, RFC 6298 RTO with Karn's rule or RFC 7323
//! timestamps, RFC 3168 ECN, pacing (Linux internal or the ns-2 studies'
//! leaky bucket), and delivery-rate samples after Linux `tcp_rate.c`.
//!
//! A flow is its connection (`Conn`, conn/: everything every mode
//! shares) plus its recovery mode (`Recovery`, recovery/); this file holds
//! the steps that need both: the send loop, ACK processing and the RTO.
//! The types the parts share (counters, traces, what to send next) live in
//! types.rs, so no child imports from this file.
//! Receiver (receiver.rs): cumulative ACKs, SACK blocks (RFC 2018), delayed
//! ACK with quick-ACK at the start, immediate ACKs for out-of-order,
//! duplicate and hole-filling segments (RFC 5681 §4.2), timestamps echo and
//! the ECN echo.
//!
//! Endpoints never touch the scheduler: they push the packets they send into
//! an output buffer and expose their timer deadlines; the simulation injects
//! the packets and keeps one pending timer event per flow.

mod conn;
mod pacing;
mod rack;
pub mod ranges;
mod rate;
mod rcvwnd;
mod receiver;
mod recovery;
pub mod rtt;
mod scoreboard;
mod types;
mod undo;

/// Bytes of the sender's record of one outstanding segment (for the memory
/// figures of docs/performance.md).
pub const TX_RECORD_BYTES: usize = std::mem::size_of::<scoreboard::TxRec>();

pub use conn::Conn;
pub use types::{CcSample, FlowEventKind, FlowStats, FlowTrace, SenderState};
pub(crate) use types::{LastAction, Pick};

use crate::config::{AppCfg, FlowCfg};
use crate::config::{EcnResponse, RtoModel};
use crate::packet::{Packet, PktKind, FLAG_SACK};
use crate::units::SimTime;
use conn::AckInfo;
use rate::RateCand;
use recovery::Recovery;

/// One TCP flow: its connection state plus its loss-recovery mode.
pub struct TcpFlow {
    /// The connection every recovery mode shares (sequence state, algorithm,
    /// receiver, timers, counters): what the simulation and the result
    /// columns read, named explicitly (`flow.c.stats`).
    pub c: Conn,
    recovery: Recovery,
}

impl TcpFlow {
    /// The SACK blocks the receiver filed for ACK `id` (segments, up to
    /// four), if it is still in the log: what a packet capture writes.
    pub fn sack_blocks(&self, id: u32) -> Option<(u8, [(u64, u64); 4])> {
        self.c.rcv.sack_log.iter().find(|e| e.id == id).map(|e| (e.n, e.blocks))
    }

    /// The flow's algorithm as `Any`, when it offers itself so
    /// (`CongestionOps::as_any_mut`: algorithms an embedding program built).
    pub fn cc_any(&mut self) -> Option<&mut dyn std::any::Any> {
        self.c.cc.as_any_mut()
    }

    pub fn new(id: u32, cfg: FlowCfg, fwd_route: u32, rev_route: u32, seed: u64) -> Self {
        let recovery = Recovery::new(&cfg.tcp);
        TcpFlow { c: Conn::new(id, cfg, fwd_route, rev_route, seed), recovery }
    }

    // ------------------------------------------------------------ application

    /// The application stops writing (an ON-OFF source turns OFF): data
    /// already sent is still delivered and retransmitted, nothing new goes.
    pub fn app_pause(&mut self) {
        self.c.send_limit = self.c.snd_max.min(self.c.total_segs);
    }

    /// The application writes again (OFF → ON), after the idle restart
    /// check (`Conn::idle_restart`, RFC 2861).
    pub fn app_resume(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let c = &mut self.c;
        if c.send_limit == c.total_segs {
            return;
        }
        c.send_limit = c.total_segs;
        if c.state != SenderState::Established {
            return;
        }
        c.idle_restart(now);
        self.try_send(now, out);
    }

    /// Size the slot's first connection (a repeating app, before start).
    pub fn reconnect_first(&mut self, bytes: u64) {
        let c = &mut self.c;
        c.file_bytes = Some(bytes);
        c.total_segs = bytes.div_ceil(c.cfg.tcp.mss as u64);
        c.send_limit = c.total_segs;
    }

    /// Start this slot's next connection: a fresh TCP connection (new
    /// congestion state, sequence space and RTT estimate) carrying `bytes`,
    /// as ns-2 web and short-flow models open one connection per object.
    /// Counters, events and traces carry on across connections.
    pub fn reconnect(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Packet>) {
        let mut cfg = self.c.cfg.clone();
        cfg.app = AppCfg::File { bytes };
        cfg.start_ps = now;
        let conn = self.c.conn.wrapping_add(1);
        let seed = self.c.seed ^ ((conn as u64) << 40);
        let mut next = TcpFlow::new(self.c.id, cfg, self.c.fwd_route, self.c.rev_route, seed);
        let n = &mut next.c;
        n.seed = self.c.seed;
        n.conn = conn;
        n.delivered_base = self.c.delivered_bytes();
        n.stats = std::mem::take(&mut self.c.stats);
        n.events = std::mem::take(&mut self.c.events);
        n.trace = self.c.trace.take();
        n.cfg.app = self.c.cfg.app.clone();
        // The slot's first connection keeps its start; per-transfer times
        // are the simulation's transfer records.
        n.start = self.c.start;
        n.file_bytes = Some(bytes);
        *self = next;
        self.start(now, out);
    }

    /// Linux-style congestion state code for traces: 0 open, 1 CWR,
    /// 2 recovery, 3 loss (after an RTO).
    pub fn ca_state_code(&self) -> u64 {
        let c = &self.c;
        if c.in_recovery {
            2
        } else if self.recovery.in_loss()
            || (c.last_action == LastAction::Timeout && c.recover_valid && c.snd_una < c.recover)
        {
            3
        } else if c.in_cwr {
            1
        } else {
            0
        }
    }

    /// Record the controller's state in the `cc_state` trace (cause None =
    /// a periodic sample), if the flow keeps one.
    pub fn trace_cc(&mut self, now: SimTime, cause: Option<FlowEventKind>) {
        let ca_state = self.ca_state_code() as u8;
        let cwnd = self.c.open_cwnd();
        let c = &mut self.c;
        let Some(t) = c.trace.as_deref_mut() else { return };
        if !t.want_cc {
            return;
        }
        let mut vars = Vec::with_capacity(c.cc.var_names().len());
        c.tp.now = now;
        c.cc.vars(&c.tp, &mut vars);
        t.cc.push(CcSample { time: now, cause, ca_state, cwnd, ssthresh: c.tp.ssthresh, mode: c.cc.mode(), vars });
    }

    /// One `cc_state` row per congestion event raised since the last call,
    /// with the state after the event was handled.
    #[inline]
    fn trace_cc_events(&mut self, now: SimTime) {
        let Some(t) = self.c.trace.as_deref() else { return };
        if !t.want_cc || t.cc_events_seen == self.c.events.len() {
            return;
        }
        let (from, to) = (t.cc_events_seen, self.c.events.len());
        for i in from..to {
            let kind = self.c.events[i].1;
            if kind != FlowEventKind::Completed {
                self.trace_cc(now, Some(kind));
            }
        }
        if let Some(t) = self.c.trace.as_deref_mut() {
            t.cc_events_seen = to;
        }
    }

    // ------------------------------------------------------------ sender

    pub fn start(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let c = &mut self.c;
        c.first_send = Some(now);
        c.sync_tp(now);
        c.cc.init(&mut c.tp);
        c.cc_timer = c.cc.timer_interval().map(|iv| now + iv);
        if c.cfg.tcp.handshake {
            c.state = SenderState::SynSent;
            c.syn_sent_at = now;
            out.push(Packet::new(PktKind::Syn, 0, now, c.id, c.data_hdr, c.fwd_route));
            c.rto_deadline = Some(now + c.rtt.rto());
        } else {
            c.state = SenderState::Established;
            self.try_send(now, out);
        }
    }

    /// Send what the window allows.
    fn try_send(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let c = &mut self.c;
        if c.state != SenderState::Established {
            return;
        }
        let mut sent = false;
        let paced = c.pacing_active();
        // A release of a paced flow: a burst of up to `quota` segments back
        // to back (one TSO/GSO packet), each adding its length at the pacing
        // rate to the next departure time (Linux tcp_wstamp_ns).
        let mut quota = if !paced {
            u32::MAX
        } else if now >= c.pacer.next {
            c.pacer.rate = c.pacing_rate_now();
            c.pacing_burst()
        } else {
            0
        };
        while let Some(p) = self.recovery.pick(c) {
            if quota == 0 {
                c.pacer.deadline = Some(c.pacer.next);
                break;
            }
            quota -= 1;
            match p {
                Pick::Next => {
                    // Go-back-N resends from snd_nxt; otherwise new data at snd_max.
                    let s = if self.recovery.go_back_n(c) { c.snd_nxt } else { c.snd_max };
                    if !c.in_recovery
                        && !self.recovery.in_loss()
                        && c.dupacks > 0
                        && s >= c.snd_una + c.open_cwnd() as u64
                    {
                        c.lt_sent += 1;
                    }
                    c.send_segment(s, now, out);
                    c.snd_nxt = c.snd_nxt.max(s + 1);
                }
                Pick::Hole(s) => {
                    c.sb.high_rxt = s + 1;
                    c.send_segment(s, now, out);
                    if s == c.snd_una && c.cfg.tcp.rack {
                        // Linux tcp_xmit_retransmit_queue: resending the
                        // head restarts the RTO, so a head that RACK finds
                        // lost again gets a full RTO for its new copy.
                        c.rto_deadline = Some(now + c.rtt.rto());
                    }
                }
                Pick::Rescue(s) => {
                    c.sb.rescue_rxt = Some(c.recover);
                    c.send_segment(s, now, out);
                }
            }
            self.recovery.on_sent(c);
            if c.in_cwr {
                c.cwr_prr_out += 1; // tcp_write_xmit / tcp_xmit_retransmit_queue in a reduction
            }
            sent = true;
        }
        c.cwnd_validate(sent);
        if sent && c.rto_deadline.is_none() {
            // RFC 6298 §5.1: start the timer if it is not running.
            c.rto_deadline = Some(now + c.rtt.rto());
        }
        if sent && c.cfg.tcp.tlp {
            // tcp_write_xmit: one loss probe per tail-loss episode.
            let open = !c.in_recovery && !self.recovery.in_loss();
            c.tlp_schedule(now, open);
        }
        // tcp_rate_check_app_limited: nothing left to send and window unused.
        if c.snd_max >= c.send_limit && c.sb.lost_out <= c.sb.retrans_out {
            let pipe = c.pipe();
            if pipe < c.tp.cwnd {
                c.rate.app_limited = (c.rate.delivered + pipe as u64).max(1);
            }
        }
    }

    fn on_syn_ack(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        let c = &mut self.c;
        if c.state != SenderState::SynSent {
            return;
        }
        if c.cfg.tcp.timestamps {
            c.take_rtt_sample(now, now - pkt.ts, true);
        } else if !c.syn_retransmitted {
            c.take_rtt_sample(now, now - c.syn_sent_at, true);
        }
        c.rtt.clear_backoff();
        c.ts_recent_ms = pkt.aux;
        // ns-2 (ecn_response = "ns2"): the SYN-ACK's ECN-Echo is the ECN
        // negotiation (TcpSink::ack) and sets ect_ (recv_newack_helper).
        c.ecn_seen = c.cfg.tcp.ecn;
        c.state = SenderState::Established;
        c.rto_deadline = None;
        self.try_send(now, out);
    }

    /// An ACK (or SYN-ACK) reached the sender: SACK blocks, the cumulative
    /// ACK, loss recovery (the mode's), the ECN echo, the delivery-rate
    /// sample and window growth, the RTO timer, then whatever may be sent.
    pub fn on_ack(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        if pkt.kind == PktKind::SynAck {
            self.on_syn_ack(now, pkt, out);
            return;
        }
        let c = &mut self.c;
        if c.state != SenderState::Established {
            return;
        }
        c.stats.acks_received += 1;
        c.take_window(pkt);
        let ack = pkt.seq;
        c.trace_seq(now, 2, ack);
        let prior_in_flight = c.in_flight();
        let prior_pipe = c.pipe();
        let delivered_before = c.rate.delivered;
        let lost_before = c.sb.lost_out;
        let mut cand = RateCand::default();
        let mut sack_rtt = None;
        let ts_ecr = c.cfg.tcp.timestamps.then_some(pkt.ts);
        c.ack_orig = false;

        let mut new_sacked = 0;
        let mut dsack_tlp = false;
        let mut highest = None;
        if let Some(e) = c.take_sack_blocks(pkt.aux, pkt.flags & FLAG_SACK != 0) {
            if self.recovery.reads_sack() && ack <= c.snd_max {
                if c.cfg.tcp.dsack {
                    if let Some((a, b)) = undo::find_dsack(&e.blocks[..e.n as usize], ack) {
                        dsack_tlp = c.on_dsack(a, b);
                    }
                }
                new_sacked = c.apply_sack(&e, now, &mut cand, &mut sack_rtt, &mut highest);
            }
        }
        let (newly, is_dup, sample) = c.take_cumulative(now, pkt, new_sacked, sack_rtt, &mut cand);
        if c.cfg.tcp.rack {
            if newly > 0 {
                highest = Some(highest.unwrap_or(0).max(ack));
            }
            if c.rack.finish_ack(now, highest) {
                c.stats.reorder_seen += 1;
            }
            c.rack.update_reo_wnd(cand.prior_delivered(), c.rate.delivered);
        }
        let acking_tlp_retrans =
            c.tlp.retrans && c.tlp.high_seq == Some(ack) && !dsack_tlp && (newly > 0 || new_sacked > 0);
        c.tlp_on_ack(now, ack, dsack_tlp, newly == 0 && new_sacked == 0);
        let ns2_timer = c.rtt.model() == RtoModel::Ns2;
        if let Some(r) = sample {
            c.take_rtt_sample(now, r, !ns2_timer);
        }
        if ns2_timer && newly > 0 {
            c.ns2_timer_on_ack(now, ack, sample);
        }
        let newly_lost = self.recovery.newly_lost(c, now, new_sacked);
        let acked_sacked = c.rate.delivered - delivered_before;
        let (ece, ce_delta) = c.ecn_feedback_of(pkt, acked_sacked);
        let a = AckInfo {
            ack,
            newly,
            is_dup,
            acked_sacked,
            sacked: new_sacked,
            newly_lost: newly_lost > 0,
            orig_acked: c.ack_orig,
            ts_ecr,
            ece,
            ce_delta,
            acking_tlp_retrans,
        };
        c.delivered_ce += ce_delta;
        if newly > 0 && !c.in_recovery {
            c.dupacks = 0;
            c.lt_sent = 0;
        }
        if c.cfg.tcp.ack_hooks_first {
            c.ack_hooks(now, &a, sample, prior_in_flight);
        }
        let mut step = self.recovery.on_ack(c, now, &a, out);

        // Linux ends a CWR episode before an ECE on the same ACK may start
        // the next one (tcp_fastretrans_alert: state exit, then
        // tcp_try_to_open → tcp_enter_cwr). ns-2 has no CWR state; its
        // episode (recover_) is judged by ecn() itself, and ours is closed
        // after it, so a reduction after a timeout's window counts as one.
        let linux = c.cfg.tcp.ecn_response == EcnResponse::Linux;
        if linux {
            c.maybe_end_cwr(now);
        }
        let reduced = a.ece && c.ecn_reduce(now, self.recovery.in_loss());
        if !linux {
            if a.newly > 0 && !c.ns2_ecn_ack(a.ece) {
                step.grow = false;
            }
            c.maybe_end_cwr(now);
        } else if reduced {
            step.grow = false; // RFC 3168 §6.1.2: no increase on this ACK
        }

        let losses = c.sb.lost_out.saturating_sub(lost_before).max(newly_lost);
        c.after_ack(now, cand, &a, losses, prior_in_flight, prior_pipe, sample, step);
        self.try_send(now, out);
        let c = &mut self.c;
        if c.cfg.tcp.tlp {
            // tcp_set_xmit_timer on an ACK that acknowledged data; a probe
            // pending when a recovery or loss phase began is dropped.
            let open = !c.in_recovery && !self.recovery.in_loss();
            if newly > 0 || !open {
                c.tlp_schedule(now, open);
            }
        }
        self.trace_cc_events(now);
        self.debug_check();
    }

    fn on_rto(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let c = &mut self.c;
        c.rto_deadline = None;
        match c.state {
            SenderState::Idle => {}
            SenderState::SynSent => {
                c.stats.timeouts += 1;
                c.events.push((now, FlowEventKind::Timeout, crate::units::ps_to_s(c.rtt.rto())));
                c.rtt.back_off();
                c.syn_retransmitted = true;
                c.syn_sent_at = now;
                out.push(Packet::new(PktKind::Syn, 0, now, c.id, c.data_hdr, c.fwd_route));
                c.rto_deadline = Some(now + c.rtt.rto());
            }
            SenderState::Established => {
                if c.snd_una >= c.snd_max {
                    if c.ecn_stalled {
                        c.ecn_stall_expired(now);
                        self.try_send(now, out);
                        let c = &mut self.c;
                        if c.rto_deadline.is_none() {
                            c.rto_deadline = Some(now + c.rtt.rto());
                        }
                        self.trace_cc_events(now);
                    }
                    return;
                }
                // F-RTO (RFC 5682 §3.1 step 1, Linux tcp_enter_loss): not
                // inside a recovery, except on a repeated timeout.
                let frto = c.cfg.tcp.frto && ((!c.in_recovery && !self.recovery.in_loss()) || c.rtt.backed_off());
                c.timeout(now);
                self.recovery.on_rto(c, frto);
                self.try_send(now, out);
                let c = &mut self.c;
                if c.rto_deadline.is_none() {
                    c.rto_deadline = Some(now + c.rtt.rto());
                }
            }
        }
        self.trace_cc_events(now);
    }

    // ------------------------------------------------------------ timers

    /// Run whichever timers are due at `now`.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if let Some(d) = self.c.rcv.delack_deadline {
            if d <= now {
                self.c.send_ack(now, None, out);
            }
        }
        if let Some(d) = self.c.tlp.deadline {
            // Before the RTO: a probe due with it goes instead of it (one
            // timer in Linux; the probe restarts the RTO).
            if d <= now {
                self.c.tlp_fire(now, out);
            }
        }
        if let Some(d) = self.c.rack.deadline {
            if d <= now {
                self.rack_timeout(now, out);
            }
        }
        if let Some(d) = self.c.rto_deadline {
            if d <= now {
                self.on_rto(now, out);
            }
        }
        if let Some(d) = self.c.pacer.deadline {
            if d <= now {
                self.c.pacer.deadline = None;
                self.try_send(now, out);
            }
        }
        if let Some(d) = self.c.cc_timer {
            if d <= now {
                self.cc_timer_fire(now, out);
            }
        }
        self.debug_check();
    }

    /// The algorithm's own timer: run its hook, re-arm it while the
    /// connection has data to deliver, and send what a larger window allows.
    #[inline(never)]
    fn cc_timer_fire(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let c = &mut self.c;
        c.sync_tp(now);
        c.cc.on_timer(&mut c.tp);
        let done = c.completed_at.is_some() && c.snd_una >= c.total_segs;
        c.cc_timer = if done { None } else { c.cc.timer_interval().map(|iv| now + iv) };
        self.try_send(now, out);
    }

    /// The sender's invariants, checked after every ACK and timer in builds
    /// with debug assertions (`make test` builds the core that way): sequence
    /// order, a window of at least one segment, and a scoreboard that never
    /// counts more segments than are outstanding.
    #[inline]
    fn debug_check(&self) {
        #[cfg(debug_assertions)]
        {
            let c = &self.c;
            let id = c.id;
            debug_assert!(
                c.snd_una <= c.snd_nxt && c.snd_nxt <= c.snd_max,
                "flow {id}: snd_una {} <= snd_nxt {} <= snd_max {}",
                c.snd_una,
                c.snd_nxt,
                c.snd_max
            );
            debug_assert!(
                c.snd_max <= c.total_segs,
                "flow {id}: snd_max {} beyond the data ({} segments)",
                c.snd_max,
                c.total_segs
            );
            debug_assert!(c.tp.cwnd >= 1, "flow {id}: cwnd {} < 1", c.tp.cwnd);
            let out = c.snd_max - c.snd_una;
            debug_assert_eq!(c.sb.txq.len() as u64, out, "flow {id}: one transmit record per outstanding segment");
            debug_assert!(
                c.sb.sacked_out as u64 + c.sb.lost_out as u64 <= out,
                "flow {id}: sacked {} + lost {} > outstanding {out}",
                c.sb.sacked_out,
                c.sb.lost_out
            );
            debug_assert!(
                c.sb.retrans_out as u64 <= out,
                "flow {id}: retrans_out {} > outstanding {out} ({:?}, rack {})",
                c.sb.retrans_out,
                c.sack,
                c.cfg.tcp.rack
            );
            // O(window): every call for small windows, every 64th ACK for
            // larger ones (every call made the checked test suite 3× slower)
            if out <= 128 || (out <= 4096 && c.stats.acks_received.is_multiple_of(64)) {
                // one pass over the records: the LOST and RETRANS counts are
                // exact, those marks lie in [mark_lo, mark_hi), SACK marks inside
                // the SACKed ranges (`Scoreboard::clear` relies on all three)
                use scoreboard::{LOST, RETRANS, SACKED};
                let mut ranges = c.sb.sacked.iter().peekable();
                let (mut lost, mut rtx) = (0u32, 0u32);
                for (i, r) in c.sb.txq.iter().enumerate() {
                    let s = c.snd_una + i as u64;
                    lost += (r.flags & LOST != 0) as u32;
                    rtx += (r.flags & RETRANS != 0) as u32;
                    debug_assert!(
                        r.flags & (LOST | RETRANS) == 0 || (c.sb.mark_lo..c.sb.mark_hi).contains(&s),
                        "flow {id}: segment {s} marked lost or retransmitted outside [{}, {})",
                        c.sb.mark_lo,
                        c.sb.mark_hi
                    );
                    if r.flags & SACKED != 0 {
                        while ranges.peek().is_some_and(|&(_, b)| b <= s) {
                            ranges.next();
                        }
                        debug_assert!(
                            ranges.peek().is_some_and(|&(a, _)| a <= s),
                            "flow {id}: segment {s} marked SACKED outside the SACKed ranges"
                        );
                    }
                }
                debug_assert_eq!(lost, c.sb.lost_out, "flow {id}: LOST marks vs lost_out");
                debug_assert_eq!(rtx, c.sb.retrans_out, "flow {id}: RETRANS marks vs retrans_out");
            }
            // (ns-2 Sack1's pipe is a free-running counter, as in tcp-sack1.cc:
            // it may exceed the outstanding segments, so it is not checked)
        }
    }

    /// Linux `tcp_rack_reo_timeout`: scan again; if it found losses, enter
    /// recovery (outside a loss phase) and retransmit.
    fn rack_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let c = &mut self.c;
        c.rack.deadline = None;
        if c.state != SenderState::Established {
            return;
        }
        let recovering = c.in_recovery || self.recovery.in_loss();
        let n = c.rack_detect_loss(now, recovering);
        if n == 0 {
            return;
        }
        self.recovery.on_rack_timeout(c, now, n, out);
        self.try_send(now, out);
        self.trace_cc_events(now);
    }
}

#[cfg(test)]
mod ecn_tests;
#[cfg(test)]
mod ns2_tests;
#[cfg(test)]
mod tests;
