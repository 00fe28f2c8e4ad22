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

impl Undo {
    /// Linux `tcp_init_undo`: an episode begins at `snd_una` with
    /// `retrans_out` retransmissions outstanding; `prior_ssthresh` as the
    /// caller computed it.
    pub(super) fn init(&mut self, snd_una: u64, retrans_out: u32, prior_ssthresh: u32) {
        self.marker = Some(snd_una);
        self.retrans = if retrans_out > 0 { retrans_out as i64 } else { -1 };
        self.prior_ssthresh = prior_ssthresh;
    }

    /// A retransmission (Linux `tcp_retransmit_skb`).
    #[inline]
    pub(super) fn on_retransmit(&mut self, now: SimTime) {
        if self.stamp.is_none() {
            self.stamp = Some(now);
        }
        self.retrans = self.retrans.max(0) + 1;
    }

    /// Linux `tcp_packet_delayed`: the ACK echoes a timestamp older than the
    /// first retransmission, so an original got through.
    #[inline]
    pub(super) fn packet_delayed(&self, ts_ecr: Option<SimTime>) -> bool {
        match (self.stamp, ts_ecr) {
            (Some(st), Some(e)) => e < st,
            _ => false,
        }
    }

    /// Linux `tcp_may_undo` (the `undo` option aside): an episode whose
    /// retransmissions were all D-SACKed, or whose original got through.
    #[inline]
    pub(super) fn may_undo(&self, ts_ecr: Option<SimTime>) -> bool {
        self.marker.is_some() && (self.retrans == 0 || self.packet_delayed(ts_ecr))
    }

    /// A D-SACK for [a, b): take off the retransmissions it shows were not
    /// needed (`tcp_sacktag_one` for data still held, "dumb counting" of
    /// `tcp_check_dsack` for data already acked); `was_retransmitted(s)`
    /// says whether segment s is acknowledged or was ever retransmitted.
    pub(super) fn on_dsack(&mut self, a: u64, b: u64, was_retransmitted: impl Fn(u64) -> bool) {
        let Some(m) = self.marker else { return };
        if self.retrans > 0 && b > m {
            let dup = (a.max(m)..b).filter(|&s| was_retransmitted(s)).count() as i64;
            self.retrans = (self.retrans - dup).max(0);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dsack_is_the_first_block_below_the_ack_or_inside_the_second() {
        // RFC 2883 §4.1.1: a duplicate below the cumulative ACK.
        assert_eq!(find_dsack(&[(3, 4)], 5), Some((3, 4)));
        // §4.1.2 (out-of-order duplicate): first block inside the second.
        assert_eq!(find_dsack(&[(7, 8), (6, 9)], 5), Some((7, 8)));
        // An ordinary SACK: first block above the ACK, not inside the next.
        assert_eq!(find_dsack(&[(7, 8), (10, 12)], 5), None);
        assert_eq!(find_dsack(&[], 5), None);
    }

    #[test]
    fn every_retransmission_dsacked_makes_the_episode_undoable() {
        // Linux tcp_may_undo: undo_retrans reaches 0 once each
        // retransmission of the episode has been D-SACKed.
        let mut u = Undo::default();
        u.init(10, 0, 50);
        assert_eq!(u.retrans, -1);
        u.on_retransmit(100);
        u.on_retransmit(200);
        assert_eq!((u.retrans, u.stamp), (2, Some(100)));
        assert!(!u.may_undo(None));
        u.on_dsack(10, 11, |_| true);
        assert!(!u.may_undo(None));
        // the timestamp echo predates the first retransmission: delayed
        assert!(u.may_undo(Some(99)));
        u.on_dsack(11, 12, |_| true);
        assert!(u.may_undo(None));
        // D-SACKs below the episode's start do not count
        let mut v = Undo::default();
        v.init(10, 1, 50);
        v.on_dsack(5, 9, |_| true);
        assert_eq!(v.retrans, 1);
    }
}
