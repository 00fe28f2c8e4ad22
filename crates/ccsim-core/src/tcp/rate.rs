//! Delivery-rate estimation after Linux `net/ipv4/tcp_rate.c` (v6.x) and
//! draft-cheng-iccrg-delivery-rate-estimation-01. Every (re)transmission
//! records the connection's delivered count and times (`Conn::stamp`);
//! when segments are acked or SACKed, the most recently sent of them gives
//! the sample: delivered since it was sent, over the longer of its send
//! interval and its ACK interval. Samples shorter than the minimum RTT are
//! discarded, as in Linux.

use super::scoreboard::{TxRec, APP_LIMITED};
use crate::cc::{CcState, CongestionOps, LostSkb, RateSample};
use crate::units::{SimTime, PS_PER_S};

#[derive(Clone, Debug, Default)]
pub(super) struct RateState {
    /// Segments delivered (acked or SACKed) so far.
    pub delivered: u64,
    /// When `delivered` last changed.
    pub delivered_at: SimTime,
    /// Send time of the most recently sent segment that has been delivered.
    pub first_tx: SimTime,
    /// Delivered count at which the app-limited period ends (0 = not limited).
    pub app_limited: u64,
    /// Last sample kept by Linux's tcp_info rule, bit/s.
    pub info_bps: f64,
}

/// The most recently sent segment delivered by the current ACK.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RateCand {
    have: bool,
    seq: u64,
    sent_at: SimTime,
    prior_delivered: u64,
    prior_at: SimTime,
    first_tx: SimTime,
    app_limited: bool,
    in_flight: u32,
    lost: u32,
    delivered_ce: u32,
}

impl RateCand {
    /// Delivered count when the newest delivered segment was sent (Linux
    /// rs->prior_delivered), if the ACK delivered any.
    #[inline]
    pub fn prior_delivered(&self) -> Option<u64> {
        self.have.then_some(self.prior_delivered)
    }

    /// tcp_rate_skb_delivered: keep the segment sent last.
    #[inline]
    pub fn offer(&mut self, r: &TxRec, seq: u64) {
        if !self.have || (r.sent_at, seq) > (self.sent_at, self.seq) {
            *self = RateCand {
                have: true,
                seq,
                sent_at: r.sent_at,
                prior_delivered: r.delivered,
                prior_at: r.delivered_at,
                first_tx: r.first_tx,
                app_limited: r.flags & APP_LIMITED != 0,
                in_flight: r.in_flight,
                lost: r.lost,
                delivered_ce: r.delivered_ce,
            };
        }
    }
}

impl RateState {
    /// tcp_rate_gen: the sample of one ACK. `min_rtt` discards samples
    /// shorter than the path's minimum RTT; `mss` scales `info_bps`;
    /// `lost_now` and `delivered_ce_now` are the connection's counts now.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn sample(
        &mut self,
        now: SimTime,
        c: RateCand,
        acked_sacked: u64,
        losses: u32,
        prior_in_flight: u32,
        rtt: Option<SimTime>,
        min_rtt: Option<SimTime>,
        mss: u32,
        lost_now: u64,
        delivered_ce_now: u64,
    ) -> RateSample {
        let st = self;
        if st.app_limited != 0 && st.delivered > st.app_limited {
            st.app_limited = 0;
        }
        if acked_sacked > 0 {
            st.delivered_at = now;
        }
        let mut rs = RateSample {
            delivered: None,
            interval: 0,
            is_app_limited: c.app_limited,
            acked_sacked: acked_sacked.min(u32::MAX as u64) as u32,
            losses,
            prior_in_flight,
            rtt,
            prior_delivered: if c.have { c.prior_delivered } else { 0 },
            ece_delta: 0, // filled by the sender, which reads the ECN feedback
            ..Default::default()
        };
        if !c.have {
            return rs;
        }
        st.first_tx = c.sent_at;
        let delivered = st.delivered - c.prior_delivered;
        rs.tx_in_flight = c.in_flight;
        rs.lost = (lost_now as u32).wrapping_sub(c.lost);
        rs.delivered_ce = (delivered_ce_now as u32).wrapping_sub(c.delivered_ce);
        rs.delivered_count = delivered;
        let send_elapsed = c.sent_at.saturating_sub(c.first_tx);
        let ack_elapsed = now.saturating_sub(c.prior_at);
        let interval = send_elapsed.max(ack_elapsed);
        if interval == 0 || min_rtt.is_some_and(|m| interval < m) {
            return rs;
        }
        rs.delivered = Some(delivered);
        rs.interval = interval;
        // Linux keeps the sample for tcp_info unless it is app-limited and
        // slower than the one it has.
        let bps = delivered as f64 * mss as f64 * 8.0 * PS_PER_S as f64 / interval as f64;
        if !rs.is_app_limited || bps >= st.info_bps {
            st.info_bps = bps;
        }
        rs
    }
}

/// Linux tcp_mark_skb_lost's accounting of a segment newly marked lost (or a
/// retransmission lost again): tp->lost counts it, then the algorithm's
/// `skb_marked_lost` hook hears of it with the segment's send-time record.
pub(super) fn skb_lost(cc: &mut dyn CongestionOps, tp: &mut CcState, r: &TxRec) {
    tp.lost += 1;
    let skb = LostSkb {
        tx_in_flight: r.in_flight,
        lost: (tp.lost as u32).wrapping_sub(r.lost),
        is_app_limited: r.flags & APP_LIMITED != 0,
    };
    cc.skb_marked_lost(tp, &skb);
}
