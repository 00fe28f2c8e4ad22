//! The sender's scoreboard: one record per segment from snd_una to snd_max
//! (when it was sent, the delivery-rate state it carries, its flags) and,
//! with SACK, what the receiver holds (RFC 6675 §3: SACKed ranges, the
//! counts Linux keeps as sacked_out / lost_out / retrans_out, HighRxt and
//! RescueRxt).

use super::ranges::RangeSet;
use crate::units::SimTime;
use std::collections::VecDeque;

// TxRec flags
pub(super) const SACKED: u8 = 1;
/// Presumed lost (RFC 6675 IsLost, or every un-SACKed segment after an RTO).
pub(super) const LOST: u8 = 2;
/// Retransmitted in the current episode and neither SACKed nor acked since.
pub(super) const RETRANS: u8 = 4;
/// Ever retransmitted (Karn's rule).
pub(super) const EVER_RETRANS: u8 = 8;
/// Sent while the flow was application-limited (tcp_rate.c).
pub(super) const APP_LIMITED: u8 = 16;
/// SACKed before the scoreboard was cleared: SACKing it again is old news,
/// neither a delivery nor an RTT sample (it left the network long ago).
pub(super) const WAS_SACKED: u8 = 32;

/// Per-segment sender record, from transmission until cumulatively acked.
#[derive(Clone, Copy, Debug)]
pub(super) struct TxRec {
    pub(super) sent_at: SimTime,
    /// Delivery-rate state at the (re)transmission (Linux tcp_skb_cb.tx).
    pub(super) delivered: u64,
    pub(super) delivered_at: SimTime,
    pub(super) first_tx: SimTime,
    /// Segments in flight after this send (Linux tx.in_flight).
    pub(super) in_flight: u32,
    /// The connection's lost count at the send (tx.lost; wraps as Linux's u32).
    pub(super) lost: u32,
    /// The connection's CE-delivered count at the send (tx.delivered_ce).
    pub(super) delivered_ce: u32,
    pub(super) flags: u8,
}

pub(super) struct Scoreboard {
    /// Records of segments snd_una.. (index = seq − snd_una).
    pub(super) txq: VecDeque<TxRec>,
    pub(super) sacked: RangeSet,
    pub(super) sacked_out: u32,
    pub(super) lost_out: u32,
    pub(super) retrans_out: u32,
    /// Every un-SACKed segment below this has been marked lost.
    pub(super) lost_upto: u64,
    /// No segment at or above this is marked lost (RACK marks above
    /// `lost_upto`); NextSeg rule 1 searches below max(lost_upto, lost_hi).
    pub(super) lost_hi: u64,
    /// Retransmission search pointer (RFC 6675 HighRxt + 1).
    pub(super) high_rxt: u64,
    pub(super) rescue_rxt: Option<u64>,
    /// Ranges newly SACKed by the ACK being processed.
    pub(super) new_blocks: Vec<(u64, u64)>,
    /// The previous ACK's SACK blocks as applied (clipped to [snd_una,
    /// snd_max)), as Linux's `recv_sack_cache` (tcp_input.c,
    /// `tcp_sacktag_write_queue`): each lies inside `sacked`, which loses
    /// ranges only below the cumulative ACK (`trim_below`, at or below any
    /// later block's clipped start) or all at once (`clear`, which empties
    /// this), so a block repeated by the next ACK adds nothing and is
    /// skipped. Receivers repeat most blocks (RFC 2018 §4).
    pub(super) sack_cache: [(u64, u64); 4],
    pub(super) sack_cache_n: u8,
    /// Every record carrying LOST or RETRANS lies in [mark_lo, mark_hi)
    /// (widened by `marked` wherever one is set; empty after `clear`), and
    /// every SACKED one in `sacked`. So `clear` walks that span and the
    /// SACKed ranges, not the window: ns-2 Sack1 clears the scoreboard on
    /// every new ACK that follows SACK blocks, and after a timeout's
    /// go-back-N (the segments resent since the last ACK, a few SACKed
    /// segments at the top of a window of 30,000) walking the whole window
    /// each time was 61 % of the cache misses of a 2.5 Gb/s HighSpeed run.
    pub(super) mark_lo: u64,
    pub(super) mark_hi: u64,
}

impl Default for Scoreboard {
    fn default() -> Self {
        Scoreboard {
            txq: VecDeque::new(), // grows on demand: an idle flow holds none (2.5 KB each with 64 reserved)
            sacked: RangeSet::default(),
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
            lost_upto: 0,
            lost_hi: 0,
            high_rxt: 0,
            rescue_rxt: None,
            new_blocks: Vec::new(),
            sack_cache: [(0, 0); 4],
            sack_cache_n: 0,
            mark_lo: u64::MAX,
            mark_hi: 0,
        }
    }
}

impl Scoreboard {
    #[inline]
    pub(super) fn rec(&self, una: u64, seq: u64) -> &TxRec {
        &self.txq[(seq - una) as usize]
    }

    #[inline]
    pub(super) fn rec_mut(&mut self, una: u64, seq: u64) -> &mut TxRec {
        &mut self.txq[(seq - una) as usize]
    }

    /// Segments in [start, end) may now carry a LOST or RETRANS mark.
    #[inline]
    pub(super) fn marked(&mut self, start: u64, end: u64) {
        self.mark_lo = self.mark_lo.min(start);
        self.mark_hi = self.mark_hi.max(end);
    }

    /// Forget SACK, loss and retransmission marks (after an RTO, or when
    /// SACK information must be ignored).
    pub(super) fn clear(&mut self, una: u64) {
        // every kind of mark in [mark_lo, mark_hi); SACK marks also in the
        // SACKed ranges (converting one twice is harmless: the first pass
        // clears it)
        let end = una + self.txq.len() as u64;
        if self.lost_out > 0 || self.retrans_out > 0 {
            let lo = (self.mark_lo.max(una) - una) as usize;
            let hi = (self.mark_hi.min(end).max(una) - una) as usize;
            for r in self.txq.range_mut(lo.min(hi)..hi) {
                if r.flags & SACKED != 0 {
                    r.flags |= WAS_SACKED;
                }
                r.flags &= !(SACKED | LOST | RETRANS);
            }
        }
        for (a, b) in self.sacked.iter() {
            for s in a.max(una)..b.min(end) {
                let r = &mut self.txq[(s - una) as usize];
                if r.flags & SACKED != 0 {
                    r.flags = (r.flags | WAS_SACKED) & !SACKED;
                }
            }
        }
        self.sacked.clear();
        self.sack_cache_n = 0;
        self.mark_lo = u64::MAX;
        self.mark_hi = una;
        self.sacked_out = 0;
        self.lost_out = 0;
        self.retrans_out = 0;
        self.lost_upto = una;
        self.lost_hi = una;
        self.high_rxt = una;
    }

    /// RFC 6675 IsLost over the scoreboard: every un-SACKed segment below the
    /// DupThresh-th highest SACKed segment is lost; `on_lost` hears of each
    /// one newly marked. Returns segments newly marked.
    pub(super) fn update_lost(&mut self, una: u64, dupthresh: u64, mut on_lost: impl FnMut(&TxRec)) -> u32 {
        let Some(x) = self.sacked.kth_highest(dupthresh) else { return 0 };
        let mut n = 0;
        let mut s = self.lost_upto.max(una);
        self.marked(s, x);
        while s < x {
            let r = self.rec_mut(una, s);
            if r.flags & (SACKED | LOST) == 0 {
                r.flags |= LOST;
                n += 1;
                on_lost(r);
            }
            s += 1;
        }
        self.lost_out += n;
        self.lost_upto = self.lost_upto.max(x);
        self.lost_hi = self.lost_hi.max(x);
        n
    }
}
