//! Recovery without SACK: Tahoe (fast retransmit, then slow start from
//! cwnd = 1 with go-back-N: Jacobson 1988, ns-2 `Agent/TCP` dupack_action
//! "tahoe_action"), Reno (RFC 5681 fast recovery, any new ACK ends it; a
//! further fast retransmit in the same window is allowed after a fast
//! retransmit but not after a timeout, ns-2
//! `RenoTcpAgent::allow_fast_retransmit`) or NewReno (RFC 6582, Careful
//! variant: in recovery until `recover` is acknowledged, a retransmission
//! per partial ACK, the timer reset only on the first partial ACK,
//! "Impatient"), as the algorithm's spec says (`AlgoSpec::recovery`).

use crate::cc::params::RecoveryFlavour as Variant;
use crate::cc::CaState;
use crate::packet::Packet;
use crate::tcp::conn::{AckInfo, AckStep, Conn};
use crate::tcp::types::LastAction;
use crate::units::SimTime;

pub(in crate::tcp) struct Classic {
    pub(in crate::tcp) variant: Variant,
    /// No partial ACK yet in this episode (RFC 6582 §4, Impatient timer).
    first_partial: bool,
}

impl Classic {
    pub(super) fn new(variant: Variant) -> Self {
        Classic { variant, first_partial: true }
    }

    fn fast_retransmit_allowed(&self, c: &Conn, ack: u64) -> bool {
        match self.variant {
            Variant::Reno => c.passed_recover(ack) || c.last_action == LastAction::FastRetransmit,
            _ => c.passed_recover(ack),
        }
    }

    /// Fast retransmit (RFC 5681 §3.2 steps 2–4; Tahoe: slow start from 1).
    fn enter(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<Packet>) {
        let flight = c.in_flight().saturating_sub(c.lt_sent);
        let state = if self.variant == Variant::Tahoe { CaState::Loss } else { CaState::Recovery };
        let ssthresh = c.begin_recovery(now, flight, state);
        c.mark_head_lost();
        match self.variant {
            Variant::Tahoe => {
                // cwnd = 1 and go back to snd_una in slow start.
                c.tp.cwnd = 1;
                c.tp.cwnd_cnt = 0;
                c.snd_nxt = c.snd_una;
                c.rto_deadline = Some(now + c.rtt.rto());
            }
            Variant::Reno | Variant::NewReno => {
                // cwnd = ssthresh + 3·SMSS and retransmit.
                c.mark_in_recovery(now);
                self.first_partial = true;
                let una = c.snd_una;
                c.send_segment(una, now, out);
                if !c.cc_owns_cwnd {
                    c.tp.cwnd = ssthresh.saturating_add(c.cfg.tcp.dupthresh);
                }
            }
        }
    }

    pub(super) fn on_ack(&mut self, c: &mut Conn, now: SimTime, a: &AckInfo, out: &mut Vec<Packet>) -> AckStep {
        let mut step = AckStep { grow: a.newly > 0, restart_timer: true };
        if a.newly > 0 {
            if c.in_recovery {
                step.grow = false;
                if self.variant == Variant::Reno || a.ack >= c.recover {
                    // Reno: any new ACK ends recovery. NewReno: the full ACK.
                    c.exit_recovery(now);
                } else {
                    // NewReno partial ACK (RFC 6582 §3.2 step 4): retransmit the
                    // next hole, deflate by the amount acked, add back one SMSS.
                    c.mark_head_lost();
                    let una = c.snd_una;
                    c.send_segment(una, now, out);
                    if !c.cc_owns_cwnd {
                        let acked = a.newly.min(u32::MAX as u64) as u32;
                        c.tp.cwnd = c.tp.cwnd.saturating_sub(acked).saturating_add(1).max(1);
                    }
                    step.restart_timer = self.first_partial || !c.cfg.tcp.impatient;
                    self.first_partial = false;
                }
            }
        } else if a.is_dup {
            if c.in_recovery {
                // Each further duplicate ACK: cwnd += SMSS (RFC 5681 §3.2 step 4).
                if !c.cc_owns_cwnd {
                    c.tp.cwnd = c.tp.cwnd.saturating_add(1);
                }
            } else if c.dupacks == c.cfg.tcp.dupthresh && self.fast_retransmit_allowed(c, a.ack) {
                self.enter(c, now, out);
            }
        }
        step
    }
}
