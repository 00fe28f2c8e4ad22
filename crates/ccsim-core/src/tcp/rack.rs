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

use super::scoreboard::{TxRec, EVER_RETRANS};
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
pub(super) fn sent_after(t1: SimTime, s1: u64, t2: SimTime, s2: u64) -> bool {
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

impl Rack {
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
    pub(super) fn note(
        &mut self,
        r: &TxRec,
        seq: u64,
        now: SimTime,
        ts_ecr: Option<SimTime>,
        min_rtt: Option<SimTime>,
    ) {
        let end = seq + 1;
        if r.flags & EVER_RETRANS == 0 {
            self.min_orig_end = self.min_orig_end.min(end);
        } else {
            let rtt = now - r.sent_at;
            if ts_ecr.is_some_and(|e| e < r.sent_at) || min_rtt.is_some_and(|m| rtt < m) {
                return;
            }
        }
        match self.newest {
            Some((t, s)) if !sent_after(r.sent_at, end, t, s) => {}
            _ => self.newest = Some((r.sent_at, end)),
        }
    }

    /// End of an ACK's deliveries: RACK.rtt from the newest segment it
    /// delivered, RACK.xmit_ts / end_seq if that is newer, RACK.fack and
    /// the reordering test (RFC 8985 §6.2 steps 1–2, Linux
    /// `tcp_rack_advance`, `tcp_check_sack_reordering`). Returns whether
    /// the ACK showed reordering.
    pub(super) fn finish_ack(&mut self, now: SimTime, highest_delivered: Option<u64>) -> bool {
        if let Some((t, e)) = self.newest.take() {
            self.rtt = now - t;
            self.advanced = true;
            if sent_after(t, e, self.xmit_ts, self.end_seq) {
                self.xmit_ts = t;
                self.end_seq = e;
            }
        }
        let reordered = self.min_orig_end < self.fack;
        if reordered {
            self.reord_seen = true;
        }
        self.min_orig_end = u64::MAX;
        if let Some(h) = highest_delivered {
            self.fack = self.fack.max(h);
        }
        reordered
    }

    /// Linux `tcp_rack_update_reo_wnd`: widen the window by one step per
    /// round trip that saw a D-SACK (`prior_delivered`: the delivered count
    /// when the newest segment this ACK delivered was sent; `delivered`:
    /// the count now); go back to one step once 16 recoveries have passed
    /// without one.
    pub(super) fn update_reo_wnd(&mut self, prior_delivered: Option<u64>, delivered: u64) {
        let Some(pd) = prior_delivered.filter(|&d| d > 0) else { return };
        if pd < self.last_delivered {
            self.dsack_seen = false;
        }
        if self.dsack_seen {
            self.reo_wnd_steps = (self.reo_wnd_steps + 1).min(REO_WND_STEPS_MAX);
            self.dsack_seen = false;
            self.last_delivered = delivered;
            self.reo_wnd_persist = REO_WND_PERSIST;
        } else if self.reo_wnd_persist == 0 {
            self.reo_wnd_steps = 1;
        }
    }

    /// RFC 8985 §6.2 step 4 (Linux `tcp_rack_reo_wnd`): 0 while no
    /// reordering has been seen and the sender is recovering or has
    /// `dupthresh` segments SACKed; else min_rtt/4 per step, at most SRTT.
    pub(super) fn reo_wnd(
        &self,
        recovering: bool,
        dupthresh_sacked: bool,
        min_rtt: Option<SimTime>,
        srtt: Option<SimTime>,
    ) -> SimTime {
        if !self.reord_seen && (recovering || dupthresh_sacked) {
            return 0;
        }
        let Some(min_rtt) = min_rtt else { return 0 };
        let w = (min_rtt / 4).saturating_mul(self.reo_wnd_steps as u64);
        match srtt {
            Some(s) => w.min(s),
            None => w,
        }
    }

    /// A retransmission of `seq` went out at `now` (the second list of
    /// `Conn::rack_detect_loss`).
    #[inline]
    pub(super) fn on_retransmit(&mut self, now: SimTime, seq: u64) {
        self.rtx.push_back((now, seq));
    }

    /// Loss marks were cleared (undo): originals from `snd_una` on must be
    /// looked at again.
    pub(super) fn rescan(&mut self, snd_una: u64) {
        self.orig_ptr = snd_una;
    }
}

impl Tlp {
    /// Linux `tcp_schedule_loss_probe`'s timeout: 2·SRTT, plus the minimum
    /// RTO when one segment is out (the peer may be delaying its ACK) or
    /// 2 ms otherwise; `initial_rto` before any RTT sample.
    pub(super) fn pto(srtt: Option<SimTime>, one_out: bool, min_rto: SimTime, initial_rto: SimTime) -> SimTime {
        match srtt {
            Some(s) => 2 * s + if one_out { min_rto } else { TLP_SLACK },
            None => initial_rto,
        }
    }
}
