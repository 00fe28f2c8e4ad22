//! The receiving end of a flow: cumulative ACKs with SACK blocks (RFC 2018),
//! delayed ACKs (RFC 5681 §4.2, RFC 1122 §4.2.3.2) with Linux-like quick-ACK
//! at the start, the timestamp echo (RFC 7323 §4.3) and the ECN echo
//! (RFC 3168 §6.1.3).

use super::ranges::RangeSet;
use super::{SackEntry, TcpFlow};
use crate::config::{sack_option_bytes, SackCfg};
use crate::packet::{PktKind, Packet, ECN_CE, FLAG_CWR, FLAG_ECE, FLAG_SACK};
use crate::units::{SimTime, PS_PER_S};
use std::collections::VecDeque;

/// The receiver's state (the other end of the flow, kept in the same slot).
#[derive(Default)]
pub(super) struct Receiver {
    /// Next in-order segment expected.
    pub(super) rcv_nxt: u64,
    /// Out-of-order segments held above rcv_nxt.
    pub(super) ooo: RangeSet,
    /// Full-sized segments received since the last ACK (delayed ACK).
    pub(super) unacked_segs: u32,
    pub(super) delack_deadline: Option<SimTime>,
    /// Timestamp to echo (RFC 7323 TS.Recent).
    pub(super) ts_recent: SimTime,
    pub(super) last_ack_sent: u64,
    /// Echo ECE until the sender's CWR arrives (RFC 3168 §6.1.3).
    pub(super) ece_pending: bool,
    /// Segments still to ACK at once (Linux quick-ACK).
    pub(super) quickack_left: u32,
    /// Starts of the blocks reported in the last ACK (RFC 2018 §4 order).
    pub(super) sack_hist: Vec<u64>,
    /// SACK blocks of ACKs in flight, by ACK id, for the sender to read.
    pub(super) sack_log: VecDeque<SackEntry>,
    pub(super) ack_id: u32,
}

impl Receiver {
    pub(super) fn new(quickack: u32) -> Self {
        Receiver { quickack_left: quickack, ..Default::default() }
    }
}

impl TcpFlow {
    /// Build the SACK blocks for an ACK (RFC 2018 §4): first the block holding
    /// the segment that triggered the ACK, then the most recently reported
    /// blocks that are still above rcv_nxt, without repeats.
    fn sack_blocks(&mut self, trigger: Option<u64>) -> SackEntry {
        let max = self.cfg.tcp.sack_blocks as usize;
        let mut e = SackEntry { id: 0, n: 0, blocks: [(0, 0); 4] };
        let hist = std::mem::take(&mut self.rcv.sack_hist);
        for s in trigger.into_iter().chain(hist.iter().copied()) {
            if (e.n as usize) >= max {
                break;
            }
            if s < self.rcv.rcv_nxt {
                continue;
            }
            if let Some(r) = self.rcv.ooo.find(s) {
                if !e.blocks[..e.n as usize].contains(&r) {
                    e.blocks[e.n as usize] = r;
                    e.n += 1;
                }
            }
        }
        let mut hist = hist;
        hist.clear();
        hist.extend(e.blocks[..e.n as usize].iter().map(|b| b.0));
        self.rcv.sack_hist = hist;
        e
    }

    pub(super) fn send_ack(&mut self, _now: SimTime, trigger: Option<u64>, out: &mut Vec<Packet>) {
        self.rcv.unacked_segs = 0;
        self.rcv.delack_deadline = None;
        self.stats.acks_sent += 1;
        let mut p = Packet::new(PktKind::Ack, self.rcv.rcv_nxt, self.rcv.ts_recent, self.id, self.ack_hdr, self.rev_route);
        self.rcv.ack_id = self.rcv.ack_id.wrapping_add(1);
        p.aux = self.rcv.ack_id;
        if self.rcv.ece_pending {
            p.flags |= FLAG_ECE;
        }
        if self.sack != SackCfg::Off && !self.rcv.ooo.is_empty() {
            let mut e = self.sack_blocks(trigger);
            if e.n > 0 {
                e.id = self.rcv.ack_id;
                p.flags |= FLAG_SACK;
                p.size += sack_option_bytes(e.n as u32);
                self.rcv.sack_log.push_back(e);
            }
        }
        self.rcv.last_ack_sent = self.rcv.rcv_nxt;
        out.push(p);
    }

    /// A data segment or SYN reached the receiver.
    pub fn on_data(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        if pkt.kind == PktKind::Syn {
            out.push(Packet::new(PktKind::SynAck, 0, pkt.ts, self.id, self.ack_hdr, self.rev_route));
            return;
        }
        let seq = pkt.seq;
        // RFC 7323 §4.3: TS.Recent comes from the segment that covers
        // Last.ACK.sent, so a delayed ACK echoes the earliest segment it acks.
        if seq <= self.rcv.last_ack_sent {
            self.rcv.ts_recent = pkt.ts;
        }
        let mut immediate = false;
        if pkt.ecn & ECN_CE != 0 {
            self.stats.ce_received += 1;
        }
        if self.cfg.tcp.ecn {
            if pkt.flags & FLAG_CWR != 0 {
                self.rcv.ece_pending = false;
            }
            if pkt.ecn & ECN_CE != 0 {
                // Linux ACKs at once when CE first appears (tcp_ecn_check_ce).
                immediate |= !self.rcv.ece_pending;
                self.rcv.ece_pending = true;
            }
        }
        let t = &self.cfg.tcp;
        let (delayed, count) = (t.delayed_ack, t.delack_count);
        if seq == self.rcv.rcv_nxt {
            let had_gap = !self.rcv.ooo.is_empty();
            self.rcv.rcv_nxt += 1;
            while let Some(end) = self.rcv.ooo.pop_front_at(self.rcv.rcv_nxt) {
                self.rcv.rcv_nxt = end;
            }
            if self.completed_at.is_none() && self.rcv.rcv_nxt >= self.total_segs {
                self.completed_at = Some(now);
                let fct = (now - self.first_send.unwrap_or(self.start)) as f64 / PS_PER_S as f64;
                self.events.push((now, super::FlowEventKind::Completed, fct));
            }
            if self.rcv.quickack_left > 0 {
                self.rcv.quickack_left -= 1;
                immediate = true;
            }
            if !delayed || had_gap || immediate {
                // No delayed ACK, quick-ACK, or the segment filled a hole.
                self.send_ack(now, None, out);
            } else {
                self.rcv.unacked_segs += 1;
                if self.rcv.unacked_segs >= count {
                    self.send_ack(now, None, out);
                } else if self.rcv.delack_deadline.is_none() {
                    self.rcv.delack_deadline = Some(now + self.cfg.tcp.delack_timeout_ps);
                }
            }
        } else if seq > self.rcv.rcv_nxt {
            // Out of order: remember it and send an immediate duplicate ACK.
            let mut fresh = std::mem::take(&mut self.sb.new_blocks);
            fresh.clear();
            self.rcv.ooo.insert(seq, seq + 1, &mut fresh);
            self.sb.new_blocks = fresh;
            self.send_ack(now, Some(seq), out);
        } else {
            // Duplicate of data already received: immediate ACK.
            self.send_ack(now, None, out);
        }
    }
}
