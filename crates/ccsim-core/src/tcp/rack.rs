//! RACK-TLP (RFC 8985), as Linux 6.x runs it (net/ipv4/tcp_recovery.c,
//! tcp_output.c `tcp_schedule_loss_probe` / `tcp_send_loss_probe`,
//! tcp_input.c `tcp_process_tlp_ack`).
//!
//! RACK detects losses by time: once a segment sent later has been
//! delivered, an earlier one still missing after RACK.rtt + the reordering
//! window is lost, whatever the duplicate-ACK count — so a lost
//! retransmission is found within about one RTT instead of by an RTO. The
//! reordering window is min_rtt/4 times a multiplier that D-SACKs raise
//! (once per round trip) and that resets after 16 recoveries without one;
//! it is 0 while no reordering has been seen and the sender is recovering or
//! has DupThresh segments SACKed (Linux `tcp_rack_reo_wnd`, tcp_recovery = 1:
//! DupThresh detection kept).
//!
//! TLP sends one probe 2·SRTT after the last transmission or ACK (plus the
//! minimum RTO when a single segment is out, for a delayed ACK), capped by
//! the RTO: new data if the window of the receiver allows, else the last
//! segment. When the probe was a retransmission and the ACK passes it
//! without a D-SACK, the probe repaired a loss and the window is reduced
//! once.

use super::conn::Conn;
use super::scoreboard::{TxRec, EVER_RETRANS, LOST, RETRANS, SACKED};
use super::FlowEventKind;
use crate::cc::{CaState, CwndEvent};
use crate::packet::Packet;
use crate::units::{SimTime, PS_PER_MS};

/// Recoveries a D-SACK-widened reordering window persists for
/// (TCP_RACK_RECOVERY_THRESH, include/net/tcp.h).
const REO_WND_PERSIST: u32 = 16;
/// Largest reordering-window multiplier (rack.reo_wnd_steps is a u8).
const REO_WND_STEPS_MAX: u32 = 255;
/// Slack added to a PTO when more than one segment is out
/// (TCP_TIMEOUT_MIN_US, 2 ms).
const TLP_SLACK: SimTime = 2 * PS_PER_MS;

#[derive(Clone, Debug)]
pub(super) struct Rack {
    /// Send time and end (seq + 1) of the most recently sent segment
    /// delivered so far (RACK.xmit_ts, RACK.end_seq).
    pub xmit_ts: SimTime,
    pub end_seq: u64,
    /// RTT of that segment (RACK.rtt).
    pub rtt: SimTime,
    /// A delivery moved RACK since the last loss scan.
    pub advanced: bool,
    /// Highest end of a delivered segment (RACK.fack).
    pub fack: u64,
    /// A never-retransmitted segment was delivered below `fack`.
    pub reord_seen: bool,
    /// A D-SACK arrived after reordering had been seen (rack.dsack_seen).
    pub dsack_seen: bool,
    pub reo_wnd_steps: u32,
    pub reo_wnd_persist: u32,
    /// `delivered` when the window was last widened.
    pub last_delivered: u64,
    /// Reordering timer.
    pub deadline: Option<SimTime>,
    /// Every segment below this that was never retransmitted has been
    /// delivered or marked lost (see `rack_detect_loss`).
    pub orig_ptr: u64,
    /// Outstanding retransmissions in transmission order: (time, seq).
    pub rtx: std::collections::VecDeque<(SimTime, u64)>,
    // Per-ACK scratch: the newest segment this ACK delivered and the lowest
    // end of a never-retransmitted one.
    newest: Option<(SimTime, u64)>,
    min_orig_end: u64,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            xmit_ts: 0,
            end_seq: 0,
            rtt: 0,
            advanced: false,
            fack: 0,
            reord_seen: false,
            dsack_seen: false,
            reo_wnd_steps: 1,
            reo_wnd_persist: 0,
            last_delivered: 0,
            deadline: None,
            orig_ptr: 0,
            rtx: std::collections::VecDeque::new(),
            newest: None,
            min_orig_end: u64::MAX,
        }
    }
}

/// RACK_sent_after: (t1, s1) was sent after (t2, s2); equal times (one
/// burst) are ordered by sequence.
#[inline]
fn sent_after(t1: SimTime, s1: u64, t2: SimTime, s2: u64) -> bool {
    t1 > t2 || (t1 == t2 && s1 > s2)
}

/// Tail-loss-probe state (Linux tlp_high_seq, tlp_retrans).
#[derive(Clone, Debug, Default)]
pub(super) struct Tlp {
    pub deadline: Option<SimTime>,
    /// snd_max when the outstanding probe was sent.
    pub high_seq: Option<u64>,
    /// The outstanding probe was a retransmission.
    pub retrans: bool,
}

impl Conn {
    /// RFC 8985 §6.2 steps 1–2 for one segment this ACK newly delivered
    /// (cumulatively or by SACK): remember the most recently sent one and
    /// the lowest never-retransmitted one. A retransmitted segment whose
    /// ACK may be for its original does not move RACK: an RTT below min_rtt
    /// (Linux `tcp_rack_advance`), or, for a cumulative ACK (`ts_ecr` given),
    /// a timestamp echo older than the retransmission (Linux
    /// `tcp_skb_spurious_retrans`). A SACK's echo is not checked, as in
    /// Linux: it comes from the last in-order segment, so it is older than
    /// any retransmission SACKed out of order (RFC 8985 §6.2 step 2 checks
    /// it for every ACK, which would ignore the SACK of a TLP probe).
    #[inline]
    pub(super) fn rack_note(&mut self, r: &TxRec, seq: u64, now: SimTime, ts_ecr: Option<SimTime>) {
        let end = seq + 1;
        if r.flags & EVER_RETRANS == 0 {
            self.rack.min_orig_end = self.rack.min_orig_end.min(end);
        } else {
            let rtt = now - r.sent_at;
            if ts_ecr.is_some_and(|e| e < r.sent_at) || self.rtt.min_rtt.is_some_and(|m| rtt < m) {
                return;
            }
        }
        match self.rack.newest {
            Some((t, s)) if !sent_after(r.sent_at, end, t, s) => {}
            _ => self.rack.newest = Some((r.sent_at, end)),
        }
    }

    /// End of an ACK's deliveries: RACK.rtt from the newest segment it
    /// delivered, RACK.xmit_ts / end_seq if that is newer, RACK.fack and
    /// the reordering test (RFC 8985 §6.2 steps 1–2, Linux
    /// `tcp_rack_advance`, `tcp_check_sack_reordering`).
    pub(super) fn rack_finish_ack(&mut self, now: SimTime, highest_delivered: Option<u64>) {
        let k = &mut self.rack;
        if let Some((t, e)) = k.newest.take() {
            k.rtt = now - t;
            k.advanced = true;
            if sent_after(t, e, k.xmit_ts, k.end_seq) {
                k.xmit_ts = t;
                k.end_seq = e;
            }
        }
        if k.min_orig_end < k.fack {
            k.reord_seen = true;
            self.stats.reorder_seen += 1;
        }
        k.min_orig_end = u64::MAX;
        if let Some(h) = highest_delivered {
            k.fack = k.fack.max(h);
        }
    }

    /// Linux `tcp_rack_update_reo_wnd`: widen the window by one step per
    /// round trip that saw a D-SACK (`prior_delivered`: the delivered count
    /// when the newest segment this ACK delivered was sent); go back to one
    /// step once 16 recoveries have passed without one.
    pub(super) fn rack_update_reo_wnd(&mut self, prior_delivered: Option<u64>) {
        let Some(pd) = prior_delivered.filter(|&d| d > 0) else { return };
        let delivered = self.rate.delivered;
        let k = &mut self.rack;
        if pd < k.last_delivered {
            k.dsack_seen = false;
        }
        if k.dsack_seen {
            k.reo_wnd_steps = (k.reo_wnd_steps + 1).min(REO_WND_STEPS_MAX);
            k.dsack_seen = false;
            k.last_delivered = delivered;
            k.reo_wnd_persist = REO_WND_PERSIST;
        } else if k.reo_wnd_persist == 0 {
            k.reo_wnd_steps = 1;
        }
    }

    /// RFC 8985 §6.2 step 4 (Linux `tcp_rack_reo_wnd`).
    pub(super) fn rack_reo_wnd(&self, recovering: bool) -> SimTime {
        if !self.rack.reord_seen && (recovering || self.sb.sacked_out >= self.cfg.tcp.dupthresh) {
            return 0;
        }
        let Some(min_rtt) = self.rtt.min_rtt else { return 0 };
        let w = (min_rtt / 4).saturating_mul(self.rack.reo_wnd_steps as u64);
        match self.rtt.srtt {
            Some(s) => w.min(s),
            None => w,
        }
    }

    /// RFC 8985 §6.2 step 5 (Linux `tcp_rack_detect_loss`): mark lost every
    /// outstanding segment sent before RACK.xmit_ts whose time
    /// (RACK.rtt + reordering window) has passed, and arm the reordering
    /// timer for the others (at the latest of their expiries, as Linux).
    /// Returns segments newly marked (a lost retransmission counts again).
    ///
    /// Linux walks a list kept in transmission order. Here the candidates
    /// come from two lists that are each in transmission order: segments
    /// never retransmitted (sequence order; `orig_ptr` passes those already
    /// delivered, lost or retransmitted, which never become candidates as
    /// originals again), and outstanding retransmissions (`rtx`, appended at
    /// each retransmission, entries going stale when the segment is
    /// delivered, marked lost or sent again). Each walk stops at the first
    /// segment sent after RACK.xmit_ts.
    pub(super) fn rack_detect_loss(&mut self, now: SimTime, recovering: bool) -> u32 {
        self.rack.advanced = false;
        self.rack.deadline = None;
        if self.snd_una >= self.snd_max {
            return 0;
        }
        let wait = self.rack.rtt + self.rack_reo_wnd(recovering);
        let (xt, xe) = (self.rack.xmit_ts, self.rack.end_seq);
        let mut timeout: SimTime = 0;
        let mut n = 0;
        // Originals.
        let mut s = self.rack.orig_ptr.max(self.snd_una);
        let mut advancing = true;
        while s < self.snd_max {
            let r = *self.rec(s);
            if r.flags & SACKED != 0 {
                s = self.sb.sacked.find(s).map_or(s + 1, |(_, b)| b);
            } else if r.flags & (LOST | EVER_RETRANS) != 0 {
                s += 1;
            } else if !sent_after(xt, xe, r.sent_at, s + 1) {
                break;
            } else {
                let elapsed = now - r.sent_at;
                if elapsed >= wait {
                    n += self.mark_lost(s, r.flags);
                } else {
                    timeout = timeout.max(wait - elapsed);
                    advancing = false;
                }
                s += 1;
            }
            if advancing {
                self.rack.orig_ptr = s;
            }
        }
        // Retransmissions.
        let mut i = 0;
        while i < self.rack.rtx.len() {
            let (t, s) = self.rack.rtx[i];
            let live = s >= self.snd_una && s < self.snd_max && {
                let r = self.rec(s);
                r.flags & RETRANS != 0 && r.sent_at == t
            };
            if live && !sent_after(xt, xe, t, s + 1) {
                break;
            }
            let mut gone = !live;
            if live {
                let elapsed = now - t;
                if elapsed >= wait {
                    let f = self.rec(s).flags;
                    n += self.mark_lost(s, f);
                    gone = true;
                } else {
                    timeout = timeout.max(wait - elapsed);
                }
            }
            if gone && i == 0 {
                self.rack.rtx.pop_front();
            } else {
                i += 1;
            }
        }
        if timeout > 0 {
            self.rack.deadline = Some(now + timeout);
        }
        self.stats.rack_lost += n as u64;
        n
    }

    /// A retransmission of `seq` went out at `now` (RACK's second list).
    #[inline]
    pub(super) fn rack_on_retransmit(&mut self, now: SimTime, seq: u64) {
        if self.cfg.tcp.rack {
            self.rack.rtx.push_back((now, seq));
        }
    }

    /// Loss marks were cleared (undo): originals must be looked at again.
    pub(super) fn rack_rescan(&mut self) {
        self.rack.orig_ptr = self.snd_una;
    }

    /// Linux `tcp_mark_skb_lost`: a lost retransmission leaves retrans_out;
    /// the segment is (again) a hole for NextSeg rule 1.
    fn mark_lost(&mut self, s: u64, flags: u8) -> u32 {
        let mut f = flags;
        if f & RETRANS != 0 {
            f &= !RETRANS;
            self.sb.retrans_out -= 1;
            self.stats.lost_retransmits += 1;
        }
        if f & LOST == 0 {
            f |= LOST;
            self.sb.lost_out += 1;
        }
        self.rec_mut(s).flags = f;
        self.sb.marked(s, s + 1);
        self.sb.high_rxt = self.sb.high_rxt.min(s);
        self.sb.lost_hi = self.sb.lost_hi.max(s + 1);
        1
    }

    // ------------------------------------------------------------ TLP

    /// Linux `tcp_schedule_loss_probe`: with data outstanding in Open or CWR
    /// state, the probe timer is 2·SRTT, plus the minimum RTO when one
    /// segment is out (the peer may be delaying its ACK) or 2 ms otherwise;
    /// 1 s before any RTT sample; never later than the RTO.
    pub(super) fn tlp_schedule(&mut self, now: SimTime, open: bool) {
        if !self.cfg.tcp.tlp || !open || self.snd_una >= self.snd_max {
            self.tlp.deadline = None;
            return;
        }
        let mut pto = match self.rtt.srtt {
            Some(s) => 2 * s + if self.snd_max - self.snd_una == 1 { self.cfg.tcp.min_rto_ps } else { TLP_SLACK },
            None => self.cfg.tcp.initial_rto_ps,
        };
        if let Some(d) = self.rto_deadline {
            pto = pto.min(d.saturating_sub(now));
        }
        self.tlp.deadline = Some(now + pto);
    }

    /// Linux `tcp_send_loss_probe`: one probe per flight — new data if the
    /// receiver's window allows (cwnd is not consulted), else the last
    /// segment — then the RTO restarts from now.
    pub(super) fn tlp_fire(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.tlp.deadline = None;
        if self.tlp.high_seq.is_some() || self.snd_una >= self.snd_max {
            return;
        }
        if self.new_data_allowed(self.rwnd_segs as u64) {
            let s = self.snd_max;
            self.send_segment(s, now, out);
            self.snd_nxt = self.snd_nxt.max(s + 1);
            self.tlp.retrans = false;
        } else {
            let s = self.snd_max - 1;
            if self.rec(s).flags & SACKED != 0 {
                return;
            }
            self.send_segment(s, now, out);
            self.tlp.retrans = true;
        }
        self.tlp.high_seq = Some(self.snd_max);
        self.stats.tlp_probes += 1;
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// Linux `tcp_process_tlp_ack` / RFC 8985 §7.4.2: the ACK of a probe.
    /// A new-data probe, or a retransmitted one that a D-SACK or a pure
    /// duplicate ACK shows was not needed, ends the episode; an ACK beyond
    /// a retransmitted probe without either means the probe repaired a
    /// loss: reduce the window once (CWR, ended at once).
    pub(super) fn tlp_on_ack(&mut self, now: SimTime, ack: u64, dsack_tlp: bool, pure_dup: bool) {
        let Some(h) = self.tlp.high_seq else { return };
        if ack < h {
            return;
        }
        if !self.tlp.retrans || dsack_tlp {
            self.tlp.high_seq = None;
        } else if ack > h {
            self.tlp.high_seq = None;
            self.stats.tlp_recoveries += 1;
            self.events.push((now, FlowEventKind::TlpRecovery, self.tp.cwnd as f64));
            self.sync_tp(now);
            self.tp.prior_cwnd = self.tp.cwnd;
            self.undo.prior_ssthresh = 0;
            let ssthresh = self.cc.ssthresh(&self.tp);
            self.tp.ssthresh = ssthresh;
            self.set_ca_state(CaState::Cwr);
            if !self.cc_owns_cwnd {
                self.tp.cwnd = ssthresh.clamp(1, self.tp.cwnd_clamp);
                self.tp.cwnd_cnt = 0;
            }
            self.set_ca_state(CaState::Open);
            self.cc.cwnd_event(&mut self.tp, CwndEvent::CompleteCwr);
        } else if pure_dup {
            self.tlp.high_seq = None;
        }
    }
}
