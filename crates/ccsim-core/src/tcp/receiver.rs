//! The receiving end of a flow: cumulative ACKs with SACK blocks (RFC 2018),
//! delayed ACKs (RFC 5681 §4.2, RFC 1122 §4.2.3.2) with Linux-like quick-ACK
//! at the start, the timestamp echo (RFC 7323 §4.3) and the ECN echo
//! (RFC 3168 §6.1.3).

use super::{SackEntry, TcpFlow};
use crate::config::{sack_option_bytes, SackCfg};
use crate::packet::{PktKind, Packet, ECN_CE, FLAG_CWR, FLAG_ECE, FLAG_SACK};
use crate::units::{SimTime, PS_PER_S};

impl TcpFlow {
    /// Build the SACK blocks for an ACK (RFC 2018 §4): first the block holding
    /// the segment that triggered the ACK, then the most recently reported
    /// blocks that are still above rcv_nxt, without repeats.
    fn sack_blocks(&mut self, trigger: Option<u64>) -> SackEntry {
        let max = self.cfg.tcp.sack_blocks as usize;
        let mut e = SackEntry { id: 0, n: 0, blocks: [(0, 0); 4] };
        let hist = std::mem::take(&mut self.sack_hist);
        for s in trigger.into_iter().chain(hist.iter().copied()) {
            if (e.n as usize) >= max {
                break;
            }
            if s < self.rcv_nxt {
                continue;
            }
            if let Some(r) = self.ooo.find(s) {
                if !e.blocks[..e.n as usize].contains(&r) {
                    e.blocks[e.n as usize] = r;
                    e.n += 1;
                }
            }
        }
        let mut hist = hist;
        hist.clear();
        hist.extend(e.blocks[..e.n as usize].iter().map(|b| b.0));
        self.sack_hist = hist;
        e
    }

    pub(super) fn send_ack(&mut self, _now: SimTime, trigger: Option<u64>, out: &mut Vec<Packet>) {
        self.unacked_segs = 0;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        let mut p = Packet::new(PktKind::Ack, self.rcv_nxt, self.ts_recent, self.id, self.ack_hdr, self.rev_route);
        self.ack_id = self.ack_id.wrapping_add(1);
        p.aux = self.ack_id;
        if self.ece_pending {
            p.flags |= FLAG_ECE;
        }
        if self.sack != SackCfg::Off && !self.ooo.is_empty() {
            let mut e = self.sack_blocks(trigger);
            if e.n > 0 {
                e.id = self.ack_id;
                p.flags |= FLAG_SACK;
                p.size += sack_option_bytes(e.n as u32);
                self.sack_log.push_back(e);
            }
        }
        self.last_ack_sent = self.rcv_nxt;
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
        if seq <= self.last_ack_sent {
            self.ts_recent = pkt.ts;
        }
        let mut immediate = false;
        if pkt.ecn & ECN_CE != 0 {
            self.stats.ce_received += 1;
        }
        if self.cfg.tcp.ecn {
            if pkt.flags & FLAG_CWR != 0 {
                self.ece_pending = false;
            }
            if pkt.ecn & ECN_CE != 0 {
                // Linux ACKs at once when CE first appears (tcp_ecn_check_ce).
                immediate |= !self.ece_pending;
                self.ece_pending = true;
            }
        }
        let t = &self.cfg.tcp;
        let (delayed, count) = (t.delayed_ack, t.delack_count);
        if seq == self.rcv_nxt {
            let had_gap = !self.ooo.is_empty();
            self.rcv_nxt += 1;
            while let Some(end) = self.ooo.pop_front_at(self.rcv_nxt) {
                self.rcv_nxt = end;
            }
            if self.completed_at.is_none() && self.rcv_nxt >= self.total_segs {
                self.completed_at = Some(now);
                let fct = (now - self.first_send.unwrap_or(self.start)) as f64 / PS_PER_S as f64;
                self.events.push((now, super::FlowEventKind::Completed, fct));
            }
            if self.quickack_left > 0 {
                self.quickack_left -= 1;
                immediate = true;
            }
            if !delayed || had_gap || immediate {
                // No delayed ACK, quick-ACK, or the segment filled a hole.
                self.send_ack(now, None, out);
            } else {
                self.unacked_segs += 1;
                if self.unacked_segs >= count {
                    self.send_ack(now, None, out);
                } else if self.delack_deadline.is_none() {
                    self.delack_deadline = Some(now + self.cfg.tcp.delack_timeout_ps);
                }
            }
        } else if seq > self.rcv_nxt {
            // Out of order: remember it and send an immediate duplicate ACK.
            let mut fresh = std::mem::take(&mut self.new_blocks);
            fresh.clear();
            self.ooo.insert(seq, seq + 1, &mut fresh);
            self.new_blocks = fresh;
            self.send_ack(now, Some(seq), out);
        } else {
            // Duplicate of data already received: immediate ACK.
            self.send_ack(now, None, out);
        }
    }
}
