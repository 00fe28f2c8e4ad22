//! RFC 6675 conservative SACK-based loss recovery: the scoreboard's IsLost
//! marking, pipe (`Conn::pipe`), NextSeg rules 1–4 including the rescue
//! retransmission, and RFC 6937 Proportional Rate Reduction as an option
//! (`tcp.prr`). After an RTO every un-SACKed segment is presumed lost, as in
//! Linux `tcp_enter_loss`, and the loss phase lasts until `recover` is
//! acknowledged (RFC 6675 §5.1).
//!
//! With `tcp.rack`, losses are marked by RACK (tcp/rack.rs) instead of
//! IsLost and recovery starts when RACK has marked one (Linux
//! `tcp_time_to_recover` with tcp_recovery = 1); with `tcp.undo`, a
//! recovery or loss phase shown spurious is undone (tcp/undo.rs); with
//! `tcp.frto`, the loss phase runs F-RTO (RFC 5682 §3, SACK-enhanced, as
//! Linux `tcp_process_loss`).

use crate::cc::CaState;
use crate::packet::Packet;
use crate::tcp::conn::{AckInfo, AckStep, Conn};
use crate::tcp::scoreboard::{LOST, RETRANS, SACKED};
use crate::tcp::types::Pick;
use crate::units::SimTime;

#[derive(Default)]
pub(in crate::tcp) struct Rfc6675 {
    /// Loss phase after an RTO, until snd_una reaches `recover`.
    pub(in crate::tcp) in_loss: bool,
    // RFC 6937 PRR
    prr_delivered: u64,
    pub(in crate::tcp) prr_out: u64,
    /// cwnd when the recovery began (Linux tp->prior_cwnd, where RFC 6937
    /// has RecoverFS, the flight size).
    prior_cwnd: u64,
    /// F-RTO is running in this loss phase (Linux tp->frto).
    frto: bool,
    /// F-RTO step 2b: this ACK sends new data, not retransmissions.
    frto_new: bool,
}

impl Rfc6675 {
    pub(super) fn pick(&mut self, c: &mut Conn) -> Option<Pick> {
        if self.in_loss && self.frto_new {
            if c.pipe() >= c.open_cwnd() {
                return None;
            }
            return c.new_data_allowed(c.rwnd_segs as u64).then_some(Pick::Next);
        }
        if c.in_recovery || self.in_loss {
            if c.pipe() >= c.open_cwnd() {
                return None;
            }
            self.next_seg(c)
        } else {
            c.new_data_allowed(c.send_window()).then_some(Pick::Next)
        }
    }

    /// RFC 6675 §4 NextSeg (pipe already checked).
    pub(in crate::tcp) fn next_seg(&self, c: &mut Conn) -> Option<Pick> {
        // (1) first lost, un-SACKed, not yet retransmitted segment above HighRxt.
        let mut s = c.sb.high_rxt.max(c.snd_una);
        let lost_end = c.sb.lost_upto.max(c.sb.lost_hi);
        while s < lost_end {
            if c.rec(s).flags & (LOST | SACKED | RETRANS) == LOST {
                c.sb.high_rxt = s;
                return Some(Pick::Hole(s));
            }
            s += 1;
        }
        c.sb.high_rxt = s;
        // (2) new data.
        if c.new_data_allowed(c.rwnd_segs as u64) {
            return Some(Pick::Next);
        }
        // Linux retransmits only what is marked lost (tcp_xmit_retransmit_queue;
        // its "forward retransmit", rule 3, went in 4.10): with RACK doing the
        // marking, rules 3 and 4 are not used.
        if self.in_loss || c.cfg.tcp.rack {
            return None;
        }
        // (3) any un-SACKed, not retransmitted segment below the highest SACK.
        let hi = c.sb.sacked.last_end().unwrap_or(c.snd_una);
        let mut s = c.sb.high_rxt.max(c.snd_una);
        while s < hi {
            if c.rec(s).flags & (SACKED | RETRANS) == 0 {
                return Some(Pick::Hole(s));
            }
            s += 1;
        }
        // (4) rescue retransmission, once per recovery episode.
        if c.sb.rescue_rxt.is_none_or(|r| c.snd_una > r) {
            let mut s = c.snd_max;
            while s > c.snd_una {
                s -= 1;
                if c.rec(s).flags & SACKED == 0 {
                    return Some(Pick::Rescue(s));
                }
            }
        }
        None
    }

    #[inline]
    pub(super) fn on_sent(&mut self, c: &Conn) {
        if c.in_recovery {
            self.prr_out += 1;
        }
    }

    /// RFC 6675 §5 entry (steps 4.1–4.5); with PRR, RFC 6937 takes over the
    /// window from this ACK on.
    fn enter(&mut self, c: &mut Conn, now: SimTime, delivered: u64, progress: bool, out: &mut Vec<Packet>) {
        let flight = ((c.snd_max - c.snd_una) as u32).saturating_sub(c.lt_sent);
        let prior_cwnd = c.tp.cwnd as u64;
        let ssthresh = c.begin_recovery(now, flight, CaState::Recovery);
        c.mark_in_recovery(now);
        c.sb.high_rxt = c.snd_una;
        // HighACK+1 is presumed dropped (step 4.3) even when the trigger was
        // the duplicate-ACK count rather than IsLost (not with RACK, which
        // marks losses itself).
        let una = c.snd_una;
        if !c.cfg.tcp.rack {
            c.mark_head_lost();
        }
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.prior_cwnd = prior_cwnd;
        if c.cc_owns_cwnd {
            return;
        }
        if c.cfg.tcp.prr {
            self.prr_update(c, delivered, progress);
        } else {
            c.tp.cwnd = ssthresh.max(1);
            c.tp.cwnd_cnt = 0;
            // Step 4.3: the first retransmission goes regardless of pipe.
            if c.rec(una).flags & (LOST | RETRANS) == LOST {
                c.sb.high_rxt = una + 1;
                c.send_segment(una, now, out);
                self.on_sent(c);
            }
        }
    }

    /// RFC 6937 PRR per ACK in recovery, as Linux 6.x's tcp_cwnd_reduction:
    /// above ssthresh, ⌈prr_delivered · ssthresh / prior_cwnd⌉ − prr_out
    /// (Linux divides by the cwnd at entry, RFC 6937 by RecoverFS); at or
    /// below it, packet conservation, plus the slow-start reduction bound's
    /// one extra segment only on an ACK that advanced snd_una and marked no
    /// new loss (`progress`: FLAG_SND_UNA_ADVANCED && !newly_lost).
    fn prr_update(&mut self, c: &mut Conn, delivered: u64, progress: bool) {
        self.prr_delivered += delivered;
        // prr_out 0: the fast retransmission itself goes
        c.tp.cwnd = crate::tcp::conn::prr_cwnd(
            c.pipe() as i64,
            c.tp.ssthresh as i64,
            self.prior_cwnd as i64,
            self.prr_delivered as i64,
            self.prr_out as i64,
            delivered as i64,
            progress,
        )
        .min(c.tp.cwnd_clamp);
    }

    pub(super) fn on_ack(&mut self, c: &mut Conn, now: SimTime, a: &AckInfo, out: &mut Vec<Packet>) -> AckStep {
        let mut step = AckStep { grow: a.newly > 0, restart_timer: true };
        self.frto_new = false;
        if c.in_recovery && c.snd_una >= c.recover {
            // Linux tcp_try_undo_recovery, then the end of the reduction.
            if c.may_undo(a.ts_ecr) {
                c.undo_reduction(now, false);
                c.undo_to_open(now);
            } else {
                c.rack.reo_wnd_persist = c.rack.reo_wnd_persist.saturating_sub(1);
                c.exit_recovery(now);
            }
            step.grow = false;
        }
        if c.in_recovery {
            step.grow = false;
            if c.cfg.tcp.undo && c.undo.marker.is_some() {
                if a.newly > 0 && c.undo.packet_delayed(a.ts_ecr) && c.sb.retrans_out == 0 {
                    // tcp_try_undo_partial: the hole was filled by a delayed
                    // original, so this was reordering, not loss.
                    c.rack.reord_seen = true;
                    c.undo_reduction(now, true);
                    c.undo_to_open(now);
                } else if c.undo.retrans == 0 {
                    // tcp_try_undo_dsack: every retransmission D-SACKed.
                    c.rack.reo_wnd_persist = (c.rack.reo_wnd_persist + 1).min(16);
                    c.undo_reduction(now, false);
                    c.undo_to_open(now);
                }
            }
            if c.in_recovery {
                if c.cfg.tcp.prr && !c.cc_owns_cwnd {
                    self.prr_update(c, a.acked_sacked, a.newly > 0 && !a.newly_lost);
                }
                return step;
            }
        } else if self.in_loss {
            self.process_loss(c, now, a);
            if self.in_loss {
                return step;
            }
        }
        let lost_evident = if c.cfg.tcp.rack {
            c.sb.lost_out > 0
        } else {
            c.dupacks >= c.cfg.tcp.dupthresh || (c.snd_una < c.snd_max && c.rec(c.snd_una).flags & LOST != 0)
        };
        if c.snd_una < c.snd_max
            && lost_evident
            // RFC 6675 §5.1: no new recovery until HighACK ≥ RecoveryPoint.
            && (!c.recover_valid || c.snd_una >= c.recover)
            && c.first_segment_rule(c.snd_una)
        {
            self.enter(c, now, a.acked_sacked, a.newly > 0 && !a.newly_lost, out);
            step.grow = false;
        }
        step
    }

    /// The loss phase after an RTO, per ACK (Linux `tcp_process_loss`):
    /// undo if the ACK proves the RTO spurious (timestamps, D-SACKs, or
    /// F-RTO's never-retransmitted data acknowledged); F-RTO's step 2b
    /// (send new data once the first ACK advances) and step 3a (a duplicate
    /// or SACK after that: the loss was real); the end of the phase once
    /// `recover` is acknowledged.
    fn process_loss(&mut self, c: &mut Conn, now: SimTime, a: &AckInfo) {
        let recovered = c.snd_una >= c.recover;
        if a.newly > 0 && c.may_undo(a.ts_ecr) {
            c.undo_reduction(now, true);
            self.end_loss(c, now, true);
            return;
        }
        if self.frto {
            if a.orig_acked {
                // RFC 5682 §3.1 step 3b (SACK variant): never-retransmitted
                // data was delivered, so not everything was lost.
                c.stats.spurious_rtos += 1;
                c.undo_reduction(now, true);
                self.end_loss(c, now, true);
                return;
            }
            if c.snd_max > c.recover {
                if a.sacked > 0 || a.newly == 0 {
                    self.frto = false; // step 3a: the loss was real
                }
            } else if a.newly > 0 && !recovered {
                // Step 2b: send new data (after this ACK's window growth).
                if c.new_data_allowed(c.rwnd_segs as u64) {
                    self.frto_new = true;
                    return;
                }
                self.frto = false;
            }
        }
        if recovered {
            let undone = c.may_undo(a.ts_ecr);
            if undone {
                c.undo_reduction(now, false);
            } else {
                c.rack.reo_wnd_persist = c.rack.reo_wnd_persist.saturating_sub(1);
            }
            self.end_loss(c, now, undone);
        }
    }

    fn end_loss(&mut self, c: &mut Conn, now: SimTime, undone: bool) {
        self.in_loss = false;
        self.frto = false;
        self.frto_new = false;
        if undone {
            c.undo_to_open(now);
        } else {
            c.undo.stamp = None;
            c.set_ca_state(CaState::Open);
        }
    }

    /// RACK's reordering timer marked `lost` segments (Linux
    /// `tcp_rack_reo_timeout`): outside a recovery or loss phase, start a
    /// recovery, crediting one delivered segment to PRR as Linux does.
    pub(super) fn on_rack_timeout(&mut self, c: &mut Conn, now: SimTime, _lost: u32, out: &mut Vec<Packet>) {
        if !c.in_recovery && !self.in_loss && c.snd_una < c.snd_max && (!c.recover_valid || c.snd_una >= c.recover) {
            self.enter(c, now, 1, false, out);
        }
    }

    /// Every un-SACKed segment is presumed lost and earlier retransmissions
    /// are presumed gone too (Linux tcp_enter_loss; RFC 6675 §5.1 keeps
    /// using SACK information in the slow start that follows).
    pub(super) fn on_rto(&mut self, c: &mut Conn, frto: bool) {
        self.frto = frto;
        self.frto_new = false;
        c.timeout_mark_lost();
        c.rack.rtx.clear(); // every retransmission is presumed lost too
        c.sb.high_rxt = c.snd_una;
        self.in_loss = true;
    }
}
