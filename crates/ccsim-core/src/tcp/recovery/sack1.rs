//! ns-2 `Agent/TCP/Sack1` (`tcp-sack1.cc`; Fall & Floyd 1996): halve the
//! window on the third duplicate ACK, keep `pipe` as a counter (−1 per
//! duplicate ACK, −2 per partial ACK, +1 per segment sent), retransmit the
//! holes below the highest SACK once each, and clear the scoreboard on a
//! timeout or when recovery ends. The counter lives in `Conn::sack1_pipe`
//! because `Conn::pipe` reports it to the algorithm.

use crate::cc::CaState;
use crate::packet::Packet;
use crate::tcp::conn::{AckInfo, AckStep, Conn};
use crate::tcp::scoreboard::{RETRANS, SACKED};
use crate::tcp::types::Pick;
use crate::units::SimTime;

#[derive(Default)]
pub(in crate::tcp) struct Sack1 {
    /// ns-2 Sack1 ignores SACK information after a timeout until a new ACK.
    pub(super) ignore_sack: bool,
}

impl Sack1 {
    pub(super) fn pick(&mut self, c: &mut Conn) -> Option<Pick> {
        if !c.in_recovery {
            return c.go_back_n_allowed().then_some(Pick::Next);
        }
        if c.sack1_pipe >= c.tp.cwnd as i64 || (c.cfg.tcp.sack1_stop_at_end && c.snd_max >= c.send_limit) {
            return None;
        }
        // Next hole below the highest SACK not retransmitted yet in this
        // episode (scoreboard-rq GetNextRetran), else new data within the
        // receiver's window.
        let hi = c.sb.sacked.last_end().unwrap_or(c.snd_una);
        let mut s = c.sb.high_rxt.max(c.snd_una);
        while s < hi {
            if c.rec(s).flags & (SACKED | RETRANS) == 0 {
                c.sb.high_rxt = s;
                return Some(Pick::Hole(s));
            }
            s += 1;
        }
        c.sb.high_rxt = s;
        c.new_data_allowed(c.rwnd_segs as u64).then_some(Pick::Next)
    }

    fn enter(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<Packet>) {
        // ns-2 slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF) halves window() =
        // min(cwnd, rwnd), not FlightSize.
        let win = c.tp.cwnd.min(c.rwnd_segs);
        let ssthresh = c.begin_recovery(now, win, CaState::Recovery);
        c.mark_in_recovery(now);
        // pipe = maxseq − highest_ack − numdupacks
        c.sack1_pipe = (c.snd_max - c.snd_una) as i64 - c.dupthresh() as i64;
        if !c.cc_owns_cwnd {
            c.tp.cwnd = ssthresh.max(1);
            c.tp.cwnd_cnt = 0;
        }
        // output(last_ack_ + 1): not through send_much, so pipe is not raised.
        let una = c.snd_una;
        c.sb.high_rxt = una + 1;
        let pipe = c.sack1_pipe;
        c.send_segment(una, now, out);
        c.sack1_pipe = pipe;
        c.rto_deadline = Some(now + c.rtt.rto());
    }

    pub(super) fn on_ack(&mut self, c: &mut Conn, now: SimTime, a: &AckInfo, out: &mut Vec<Packet>) -> AckStep {
        let mut step = AckStep { grow: a.newly > 0, restart_timer: true };
        if c.in_recovery {
            step.grow = false;
            c.sack1_pipe -= 1;
            if a.newly > 0 && a.ack >= c.recover {
                c.exit_recovery(now);
                c.clear_scoreboard();
            } else if a.newly > 0 {
                // Partial ACK: the original and its retransmission have
                // both left the pipe.
                c.sack1_pipe -= 1;
            }
        } else if a.newly > 0 {
            self.ignore_sack = false;
            if c.sb.sacked_out > 0 {
                c.clear_scoreboard();
            }
        } else if a.is_dup && c.dupacks == c.dupthresh() && c.passed_recover(a.ack) {
            self.enter(c, now, out);
        }
        step
    }

    pub(super) fn on_rto(&mut self, c: &mut Conn) {
        c.clear_scoreboard();
        self.ignore_sack = true;
        c.snd_nxt = c.snd_una;
    }
}
