//! D-SACK at the sender (RFC 2883 §4, RFC 3708) and the undo of window
//! reductions that turn out to be spurious, as Linux 6.x does it
//! (net/ipv4/tcp_input.c: `tcp_init_undo`, `tcp_may_undo`,
//! `tcp_packet_delayed`, `tcp_undo_cwnd_reduction`, `tcp_try_undo_recovery`,
//! `tcp_try_undo_dsack`, `tcp_try_undo_partial`, `tcp_try_undo_loss`).
//!
//! A recovery or RTO episode remembers where it started (undo_marker),
//! ssthresh before it (prior_ssthresh), how many retransmissions it sent
//! (undo_retrans) and when the first went (retrans_stamp). The reduction is
//! undone when every retransmission has been D-SACKed (the receiver had the
//! originals: Blanton & Allman, RFC 3708) or when an ACK's timestamp echo
//! predates the first retransmission (the original was only delayed: the
//! Eifel detection of RFC 3522). Undo restores ssthresh and sets cwnd from
//! the algorithm's `undo_cwnd` (Reno family: max(cwnd, prior_cwnd)).

use super::conn::Conn;
use super::scoreboard::{EVER_RETRANS, LOST};
use super::FlowEventKind;
use crate::cc::CaState;
use crate::units::SimTime;

#[derive(Clone, Debug, Default)]
pub(super) struct Undo {
    /// snd_una when the episode began (None: nothing to undo).
    pub marker: Option<u64>,
    /// Retransmissions of the episode not yet D-SACKed; −1 before the first.
    pub retrans: i64,
    /// Time of the episode's first retransmission (Linux retrans_stamp).
    pub stamp: Option<SimTime>,
    /// ssthresh before the reduction; 0 = do not restore (ECN, TLP).
    pub prior_ssthresh: u32,
}

impl Conn {
    /// Linux `tcp_current_ssthresh`: ssthresh inside a reduction, else at
    /// least ¾ of cwnd.
    pub(super) fn current_ssthresh(&self, reducing: bool) -> u32 {
        if reducing {
            self.tp.ssthresh
        } else {
            self.tp.ssthresh.max((self.tp.cwnd >> 1) + (self.tp.cwnd >> 2))
        }
    }

    /// Linux `tcp_init_undo`, with prior_ssthresh as the caller computed it.
    pub(super) fn init_undo(&mut self, prior_ssthresh: u32) {
        self.undo.marker = Some(self.snd_una);
        self.undo.retrans = if self.sb.retrans_out > 0 { self.sb.retrans_out as i64 } else { -1 };
        self.undo.prior_ssthresh = prior_ssthresh;
    }

    /// A retransmission (Linux `tcp_retransmit_skb`).
    #[inline]
    pub(super) fn undo_on_retransmit(&mut self, now: SimTime) {
        if self.undo.stamp.is_none() {
            self.undo.stamp = Some(now);
        }
        self.undo.retrans = self.undo.retrans.max(0) + 1;
    }

    /// Linux `tcp_packet_delayed`: the ACK echoes a timestamp older than the
    /// first retransmission, so an original got through.
    #[inline]
    pub(super) fn packet_delayed(&self, ts_ecr: Option<SimTime>) -> bool {
        match (self.undo.stamp, ts_ecr) {
            (Some(st), Some(e)) => e < st,
            _ => false,
        }
    }

    /// Linux `tcp_may_undo`.
    #[inline]
    pub(super) fn may_undo(&self, ts_ecr: Option<SimTime>) -> bool {
        self.cfg.tcp.undo && self.undo.marker.is_some() && (self.undo.retrans == 0 || self.packet_delayed(ts_ecr))
    }

    /// RFC 2883 §4 / Linux `tcp_check_dsack`: the first block reports a
    /// duplicate if it lies below the ACK or inside the second block.
    /// Returns the D-SACKed range.
    pub(super) fn find_dsack(blocks: &[(u64, u64)], ack: u64) -> Option<(u64, u64)> {
        let &(a, b) = blocks.first()?;
        if a < ack {
            return Some((a, b));
        }
        match blocks.get(1) {
            Some(&(c, d)) if c <= a && b <= d => Some((a, b)),
            _ => None,
        }
    }

    /// A D-SACK for [a, b): count the retransmissions it shows were not
    /// needed (`tcp_sacktag_one` for data still held, "dumb counting" of
    /// `tcp_check_dsack` for data already acked), and note it for RACK's
    /// reordering window unless it answers a TLP retransmission. Returns
    /// whether it does.
    pub(super) fn on_dsack(&mut self, a: u64, b: u64) -> bool {
        self.stats.dsacks_received += 1;
        let dsack_tlp = self.tlp.retrans && self.tlp.high_seq == Some(b);
        if let Some(m) = self.undo.marker {
            if self.undo.retrans > 0 && b > m {
                let mut dup = 0i64;
                for s in a.max(m)..b {
                    if s < self.snd_una || (s < self.snd_max && self.rec(s).flags & EVER_RETRANS != 0) {
                        dup += 1;
                    }
                }
                self.undo.retrans = (self.undo.retrans - dup).max(0);
            }
        }
        if self.rack.reord_seen && !dsack_tlp {
            self.rack.dsack_seen = true;
        }
        dsack_tlp
    }

    /// Linux `tcp_undo_cwnd_reduction`: forget the loss marks if asked,
    /// restore ssthresh and let the algorithm restore cwnd.
    pub(super) fn undo_reduction(&mut self, now: SimTime, unmark_loss: bool) {
        if unmark_loss && self.sb.lost_out > 0 {
            for r in self.sb.txq.iter_mut() {
                r.flags &= !LOST;
            }
            self.sb.lost_out = 0;
            self.sb.lost_upto = self.snd_una;
            self.sb.lost_hi = self.snd_una;
            self.rack_rescan();
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
    pub(super) fn undo_to_open(&mut self, now: SimTime) {
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
