//! The connection's side of RACK-TLP and of undo: the steps that need the
//! scoreboard, the counters and the algorithm besides their own state
//! (`Rack`, `Tlp` in tcp/rack.rs, `Undo` in tcp/undo.rs, which hold the
//! state and the rules that need nothing else).

use super::Conn;
use crate::cc::{CaState, CwndEvent};
use crate::packet::Packet;
use crate::tcp::rack::{sent_after, Tlp};
use crate::tcp::scoreboard::{EVER_RETRANS, LOST, RETRANS, SACKED};
use crate::tcp::types::FlowEventKind;
use crate::units::SimTime;

impl Conn {
    // ------------------------------------------------------------ RACK

    /// The reordering window now (`Rack::reo_wnd` with this connection's
    /// SACKed count, DupThresh and RTTs).
    pub(in crate::tcp) fn rack_reo_wnd(&self, recovering: bool) -> SimTime {
        let dupthresh_sacked = self.sb.sacked_out >= self.cfg.tcp.dupthresh;
        self.rack.reo_wnd(recovering, dupthresh_sacked, self.rtt.min_rtt, self.rtt.srtt)
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
    pub(in crate::tcp) fn rack_detect_loss(&mut self, now: SimTime, recovering: bool) -> u32 {
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

    /// Presume the segment at snd_una lost if it is not SACKed or marked
    /// already (RFC 6675 §5 step 4.3's HighACK+1; Linux
    /// tcp_newreno_mark_lost without SACK, at the fast retransmit and on each
    /// partial ACK).
    pub(in crate::tcp) fn mark_head_lost(&mut self) {
        let una = self.snd_una;
        if una >= self.snd_max || self.rec(una).flags & (SACKED | LOST) != 0 {
            return;
        }
        self.rec_mut(una).flags |= LOST;
        self.sb.marked(una, una + 1);
        self.sb.lost_out += 1;
        self.sb.lost_upto = self.sb.lost_upto.max(una + 1);
        self.sb.lost_hi = self.sb.lost_hi.max(una + 1);
        let r = *self.rec(una);
        crate::tcp::rate::skb_lost(&mut *self.cc, &mut self.tp, &r);
    }

    /// Linux `tcp_timeout_mark_lost` at an RTO: every un-SACKed segment is
    /// presumed lost and earlier retransmissions gone too; each segment
    /// newly lost, or a retransmission lost again, is counted.
    pub(in crate::tcp) fn timeout_mark_lost(&mut self) {
        let mut lost = 0;
        for r in self.sb.txq.iter_mut() {
            let counts = r.flags & SACKED == 0 && (r.flags & LOST == 0 || r.flags & RETRANS != 0);
            r.flags &= !RETRANS;
            if r.flags & SACKED == 0 {
                r.flags |= LOST;
                lost += 1;
            }
            if counts {
                crate::tcp::rate::skb_lost(&mut *self.cc, &mut self.tp, r);
            }
        }
        self.sb.lost_out = lost;
        self.sb.marked(self.snd_una, self.snd_max);
        self.sb.retrans_out = 0;
        self.sb.lost_upto = self.snd_max;
        self.sb.lost_hi = self.snd_max;
        self.sb.high_rxt = self.snd_una;
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
        let r = *self.rec(s);
        crate::tcp::rate::skb_lost(&mut *self.cc, &mut self.tp, &r);
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
    pub(in crate::tcp) fn tlp_schedule(&mut self, now: SimTime, open: bool) {
        if !self.cfg.tcp.tlp || !open || self.snd_una >= self.snd_max {
            self.tlp.deadline = None;
            return;
        }
        let one_out = self.snd_max - self.snd_una == 1;
        let mut pto = Tlp::pto(self.rtt.srtt, one_out, self.cfg.tcp.min_rto_ps, self.cfg.tcp.initial_rto_ps);
        if let Some(d) = self.rto_deadline {
            pto = pto.min(d.saturating_sub(now));
        }
        self.tlp.deadline = Some(now + pto);
    }

    /// Linux `tcp_send_loss_probe`: one probe per flight — new data if the
    /// receiver's window allows (cwnd is not consulted), else the last
    /// segment — then the RTO restarts from now.
    pub(in crate::tcp) fn tlp_fire(&mut self, now: SimTime, out: &mut Vec<Packet>) {
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
    pub(in crate::tcp) fn tlp_on_ack(&mut self, now: SimTime, ack: u64, dsack_tlp: bool, pure_dup: bool) {
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
            // tcp_process_tlp_ack: CA_EVENT_TLP_RECOVERY, then
            // tcp_init_cwnd_reduction.
            self.cc.cwnd_event(&mut self.tp, CwndEvent::TlpRecovery);
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

    // ------------------------------------------------------------ undo

    /// Linux `tcp_current_ssthresh`: ssthresh inside a reduction, else at
    /// least ¾ of cwnd.
    pub(in crate::tcp) fn current_ssthresh(&self, reducing: bool) -> u32 {
        if reducing {
            self.tp.ssthresh
        } else {
            self.tp.ssthresh.max((self.tp.cwnd >> 1) + (self.tp.cwnd >> 2))
        }
    }

    /// Linux `tcp_init_undo`, with prior_ssthresh as the caller computed it.
    pub(in crate::tcp) fn init_undo(&mut self, prior_ssthresh: u32) {
        self.undo.init(self.snd_una, self.sb.retrans_out, prior_ssthresh);
    }

    /// Linux `tcp_may_undo`.
    #[inline]
    pub(in crate::tcp) fn may_undo(&self, ts_ecr: Option<SimTime>) -> bool {
        self.cfg.tcp.undo && self.undo.may_undo(ts_ecr)
    }

    /// A D-SACK for [a, b): count the retransmissions it shows were not
    /// needed (`tcp_sacktag_one` for data still held, "dumb counting" of
    /// `tcp_check_dsack` for data already acked), and note it for RACK's
    /// reordering window unless it answers a TLP retransmission. Returns
    /// whether it does.
    pub(in crate::tcp) fn on_dsack(&mut self, a: u64, b: u64) -> bool {
        self.stats.dsacks_received += 1;
        let dsack_tlp = self.tlp.retrans && self.tlp.high_seq == Some(b);
        let (una, max) = (self.snd_una, self.snd_max);
        let sb = &self.sb;
        self.undo.on_dsack(a, b, |s| s < una || (s < max && sb.rec(una, s).flags & EVER_RETRANS != 0));
        if self.rack.reord_seen && !dsack_tlp {
            self.rack.dsack_seen = true;
        }
        dsack_tlp
    }

    /// Linux `tcp_undo_cwnd_reduction`: forget the loss marks if asked,
    /// restore ssthresh and let the algorithm restore cwnd.
    pub(in crate::tcp) fn undo_reduction(&mut self, now: SimTime, unmark_loss: bool) {
        if unmark_loss && self.sb.lost_out > 0 {
            for r in self.sb.txq.iter_mut() {
                r.flags &= !LOST;
            }
            self.sb.lost_out = 0;
            self.sb.lost_upto = self.snd_una;
            self.sb.lost_hi = self.snd_una;
            self.rack.rescan(self.snd_una);
        }
        if self.undo.prior_ssthresh > 0 {
            self.sync_tp(now);
            let cwnd = self.cc.undo_cwnd(&self.tp);
            self.tp.cwnd = cwnd.clamp(1, self.tp.cwnd_clamp);
            if self.undo.prior_ssthresh > self.tp.ssthresh {
                self.tp.ssthresh = self.undo.prior_ssthresh;
            }
        }
        self.undo.marker = None;
        self.rack.advanced = true;
        self.stats.undos += 1;
        self.events.push((now, FlowEventKind::Undo, self.tp.cwnd as f64));
    }

    /// Back to Open after an undo that ends the episode.
    pub(in crate::tcp) fn undo_to_open(&mut self, now: SimTime) {
        if self.in_recovery {
            self.in_recovery = false;
            let d = (now - self.recovery_started) as f64 / crate::units::PS_PER_S as f64;
            self.events.push((now, FlowEventKind::RecoveryEnd, d));
        }
        self.dupacks = 0;
        self.lt_sent = 0;
        self.undo.stamp = None;
        self.recover_valid = false;
        self.sync_tp(now);
        self.set_ca_state(CaState::Open);
    }
}
