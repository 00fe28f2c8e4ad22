//! The sender's side of an ACK, common to every recovery mode: SACK blocks
//! onto the scoreboard, the cumulative ACK and the RTT sample, the ECN
//! echo, the delivery-rate sample and the algorithm's hooks, and the
//! bookkeeping of entering and leaving recovery and of an RTO.

use super::{AckInfo, AckStep, Conn};
use crate::cc::{AckSample, CaState, CwndEvent};
use crate::config::{EcnResponse, RtoSsthresh, SackCfg};
use crate::packet::Packet;
use crate::tcp::rate::RateCand;
use crate::tcp::scoreboard::{EVER_RETRANS, LOST, RETRANS, SACKED, WAS_SACKED};
use crate::tcp::types::{FlowEventKind, LastAction, SackEntry};
use crate::units::{SimTime, PS_PER_S};

impl Conn {
    // ------------------------------------------------------------ ACKs

    /// An RTT sample `r`: always for the algorithms (smoothed and minimum
    /// RTT); for the retransmission timer too when `timer` (every valid
    /// sample in the Linux and RFC 6298 models, which also ends the
    /// back-off; the ns-2 model times its own segment, `ns2_timer_on_ack`).
    pub(in crate::tcp) fn take_rtt_sample(&mut self, now: SimTime, r: SimTime, timer: bool) {
        self.rtt.observe(r);
        if timer {
            self.rtt.timer_sample(r, now, self.snd_una, self.snd_max, self.cfg.tcp.timestamps);
            self.rtt.clear_backoff();
        }
        self.stats.rtt_sum_ps += r as u128;
        self.stats.rtt_samples += 1;
        self.stats.rtt_min_ps = Some(self.stats.rtt_min_ps.map_or(r, |m| m.min(r)));
        if let Some(b) = self.stats.base_rtt_ps {
            self.stats.qdelay_hist.add(r.saturating_sub(b));
        }
        if let Some(t) = self.trace.as_deref_mut() {
            if t.want_rtt {
                t.rtt.push((now, r));
            }
        }
    }

    /// The `ns2` RTO model on an ACK that advanced snd_una (ns-2
    /// `TcpAgent::newack`): with timestamps every such ACK updates the
    /// estimator; the timed segment's ACK ends the back-off and, without
    /// timestamps, is the sample.
    pub(in crate::tcp) fn ns2_timer_on_ack(&mut self, now: SimTime, ack: u64, ts_sample: Option<SimTime>) {
        let ts = self.cfg.tcp.timestamps;
        if let (true, Some(r)) = (ts, ts_sample) {
            self.rtt.timer_sample(r, now, self.snd_una, self.snd_max, true);
        }
        if let Some((seq, sent)) = self.ns2_timed {
            if ack > seq {
                self.ns2_timed = None;
                self.rtt.clear_backoff();
                if !ts {
                    self.rtt.timer_sample(now - sent, now, self.snd_una, self.snd_max, false);
                }
            }
        }
    }

    /// Take the SACK blocks the receiver filed for ACK `id`, dropping the
    /// entries of ACKs lost on the way.
    pub(in crate::tcp) fn take_sack_blocks(&mut self, id: u32, has: bool) -> Option<SackEntry> {
        while let Some(e) = self.rcv.sack_log.front() {
            if e.id < id {
                self.rcv.sack_log.pop_front();
            } else {
                break;
            }
        }
        if has && self.rcv.sack_log.front().is_some_and(|e| e.id == id) {
            self.rcv.sack_log.pop_front()
        } else {
            None
        }
    }

    /// Mark newly SACKed segments; returns how many. A segment SACKed again
    /// after the scoreboard was cleared counts for the scoreboard only, not
    /// as a delivery or an RTT sample.
    pub(in crate::tcp) fn apply_sack(
        &mut self,
        e: &SackEntry,
        now: SimTime,
        cand: &mut RateCand,
        sack_rtt: &mut Option<SimTime>,
        highest: &mut Option<u64>,
    ) -> u64 {
        let mut fresh = std::mem::take(&mut self.sb.new_blocks);
        fresh.clear();
        let rack = self.cfg.tcp.rack;
        let (cache, cached) = (self.sb.sack_cache, self.sb.sack_cache_n as usize);
        let mut n_new = 0;
        for &(a, b) in &e.blocks[..e.n as usize] {
            let a = a.max(self.snd_una);
            let b = b.min(self.snd_max);
            if a < b {
                if !cache[..cached].contains(&(a, b)) {
                    self.sb.sacked.insert(a, b, &mut fresh);
                }
                self.sb.sack_cache[n_new] = (a, b);
                n_new += 1;
            }
        }
        self.sb.sack_cache_n = n_new as u8;
        let mut n = 0;
        let mut delivered = 0;
        for &(a, b) in &fresh {
            for s in a..b {
                let r = *self.rec(s);
                if r.flags & LOST != 0 {
                    self.sb.lost_out -= 1;
                }
                if r.flags & RETRANS != 0 {
                    self.sb.retrans_out -= 1;
                }
                self.rec_mut(s).flags = (r.flags & !(LOST | RETRANS)) | SACKED;
                self.sb.sacked_out += 1;
                n += 1;
                if r.flags & WAS_SACKED != 0 {
                    continue;
                }
                delivered += 1;
                cand.offer(&r, s);
                if r.flags & EVER_RETRANS == 0 {
                    if sack_rtt.is_none() {
                        *sack_rtt = Some(now - r.sent_at);
                    }
                    self.ack_orig |= s < self.recover;
                }
                if rack {
                    self.rack.note(&r, s, now, None, self.rtt.min_rtt);
                    *highest = Some(highest.unwrap_or(0).max(s + 1));
                }
            }
        }
        self.sb.new_blocks = fresh;
        self.rate.delivered += delivered;
        n
    }

    /// The cumulative part of an ACK: drop acknowledged records, advance
    /// snd_una, count duplicate ACKs, and choose the RTT sample (timestamps
    /// per RFC 7323 §4; otherwise Karn's rule, falling back on the first
    /// newly SACKed segment never retransmitted). Returns the RTT sample.
    pub(in crate::tcp) fn take_cumulative(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        new_sacked: u64,
        sack_rtt: Option<SimTime>,
        cand: &mut RateCand,
    ) -> (u64, bool, Option<SimTime>) {
        let ack = pkt.seq;
        let ts_on = self.cfg.tcp.timestamps;
        let rack = self.cfg.tcp.rack;
        let ts_ecr = ts_on.then_some(pkt.ts);
        let mut newly = 0u64;
        let mut sample = None;
        let mut is_dup = false;
        if ack > self.snd_una && ack <= self.snd_max {
            newly = ack - self.snd_una;
            let mut first_sent = None;
            let mut any_retrans = false;
            let mut fresh = 0u64;
            for s in self.snd_una..ack {
                let r = self.sb.txq.pop_front().expect("tx record for every outstanding segment");
                // A SACKed segment may carry RETRANS too: go-back-N after a
                // timeout (no RFC 6675 scoreboard) resends SACKed segments.
                if r.flags & RETRANS != 0 {
                    self.sb.retrans_out -= 1;
                }
                if r.flags & SACKED != 0 {
                    self.sb.sacked_out -= 1;
                    continue;
                }
                if r.flags & LOST != 0 {
                    self.sb.lost_out -= 1;
                }
                if r.flags & WAS_SACKED != 0 {
                    continue; // delivered when first SACKed
                }
                fresh += 1;
                cand.offer(&r, s);
                if first_sent.is_none() {
                    first_sent = Some(r.sent_at);
                }
                any_retrans |= r.flags & EVER_RETRANS != 0;
                self.ack_orig |= r.flags & EVER_RETRANS == 0 && s < self.recover;
                if rack {
                    self.rack.note(&r, s, now, ts_ecr, self.rtt.min_rtt);
                }
            }
            if self.sack == SackCfg::Off {
                // Linux tcp_remove_reno_sacks: dup ACKs already counted.
                self.rate.delivered += fresh.saturating_sub(self.dup_credit).max(1);
                self.dup_credit = 0;
            } else {
                self.rate.delivered += fresh;
            }
            sample = if ts_on {
                Some(now - pkt.ts)
            } else if any_retrans {
                None
            } else {
                first_sent.map(|t| now - t).or(sack_rtt)
            };
            self.snd_una = ack;
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            self.sb.sacked.trim_below(ack);
            self.sb.lost_upto = self.sb.lost_upto.max(ack);
            self.sb.lost_hi = self.sb.lost_hi.max(ack);
            self.sb.high_rxt = self.sb.high_rxt.max(ack);
        } else if ack == self.snd_una && self.snd_una < self.snd_max {
            is_dup = self.sack == SackCfg::Off || new_sacked > 0;
            if is_dup {
                self.stats.dupacks_received += 1;
                self.dupacks += 1;
                if self.sack == SackCfg::Off {
                    // Linux tcp_add_reno_sack: a dup ACK stands for one delivery.
                    self.rate.delivered += 1;
                    self.dup_credit += 1;
                }
            }
            if !ts_on {
                sample = sack_rtt;
            }
        }
        (newly, is_dup, sample)
    }

    /// What an ACK says about CE marks: (ECE, segments newly CE-delivered).
    /// RFC 3168 and DCTCP feedback: the ECE flag, and then everything the
    /// ACK delivered (Linux tcp_count_delivered with ece_ack). AccECN: the
    /// increase of the receiver's CE count the ACK carries over what was
    /// counted so far (tcp_accecn_process; an older, reordered ACK adds 0).
    pub(in crate::tcp) fn ecn_feedback_of(&mut self, pkt: &Packet, acked_sacked: u64) -> (bool, u64) {
        if !self.cfg.tcp.ecn {
            return (false, 0);
        }
        if self.cfg.tcp.ecn_feedback == crate::config::EcnFeedback::Accecn {
            let id = pkt.aux;
            while self.rcv.ace_log.front().is_some_and(|&(i, _)| i < id) {
                self.rcv.ace_log.pop_front();
            }
            let cep = match self.rcv.ace_log.front() {
                Some(&(i, cep)) if i == id => {
                    self.rcv.ace_log.pop_front();
                    cep
                }
                _ => return (false, 0),
            };
            let delta = cep.saturating_sub(self.delivered_ce);
            return (delta > 0, delta);
        }
        let ece = pkt.flags & crate::packet::FLAG_ECE != 0;
        (ece, if ece { acked_sacked } else { 0 })
    }

    /// RFC 3168 §6.1.2 as Linux 6.x makes it: an ECN-Echo in the Open or
    /// Disorder state enters CWR (tcp_try_to_open → tcp_enter_cwr →
    /// tcp_init_cwnd_reduction: prior_cwnd, ssthresh from the algorithm,
    /// PRR's counters at 0); cwnd is then brought down by PRR on each ACK
    /// (`cwr_reduction`), not at once. Not while already reducing:
    /// recovery, `in_loss`, CWR.
    pub(in crate::tcp) fn ecn_reduce(&mut self, now: SimTime, in_loss: bool) -> bool {
        if self.cfg.tcp.ecn_response == EcnResponse::Ns2 {
            return self.ecn_reduce_ns2(now);
        }
        if self.in_recovery || in_loss || self.in_cwr {
            return false;
        }
        self.sync_tp(now);
        self.tp.prior_cwnd = self.tp.cwnd;
        self.undo.prior_ssthresh = 0; // tcp_enter_cwr: not undoable
        self.events.push((now, FlowEventKind::EcnReduction, self.tp.cwnd as f64));
        self.stats.ecn_reductions += 1;
        let ssthresh = self.cc.ssthresh(&self.tp);
        self.tp.ssthresh = ssthresh;
        self.tp.cwnd_cnt = 0;
        self.cwr_prr_delivered = 0;
        self.cwr_prr_out = 0;
        self.in_cwr = true;
        self.cwr_high = self.snd_max;
        self.cwr_pending = true;
        self.set_ca_state(CaState::Cwr);
        true
    }

    /// ns-2 `TcpAgent::ecn` (tcp/tcp.cc; the same in ns-2.27 and 2.35):
    /// once the ACK passed `recover_` (seqno > recover_, here snd_una >
    /// cwr_high) or after a timeout (last_cwnd_action_ == TIMEOUT), then
    /// `slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF)`: ssthresh from the
    /// algorithm (ns-2 floors it at 2, as Reno's does), cwnd = ⌊cwnd/2⌋
    /// below a window of 4 (where the floor would differ), so 1 at 2–3 and
    /// 0 at 1 (`ecn_stalled`). At cwnd ≤ 1 a second such ECN in a row backs
    /// the retransmission timer off (`ecn_backoff_`, rtt_backoff).
    fn ecn_reduce_ns2(&mut self, now: SimTime) -> bool {
        if self.in_recovery || (self.snd_una <= self.cwr_high && self.last_action != LastAction::Timeout) {
            return false;
        }
        let w = self.open_cwnd();
        if w <= 1 {
            if self.ecn_backoff {
                self.rtt.back_off();
            } else {
                self.ecn_backoff = true;
            }
        } else {
            self.ecn_backoff = false;
        }
        self.sync_tp(now);
        self.tp.prior_cwnd = self.tp.cwnd;
        self.undo.prior_ssthresh = 0;
        self.events.push((now, FlowEventKind::EcnReduction, w as f64));
        self.stats.ecn_reductions += 1;
        let ssthresh = self.cc.ssthresh(&self.tp);
        self.tp.ssthresh = ssthresh;
        if !self.cc_owns_cwnd {
            let cwnd = if w / 2 < 2 { w / 2 } else { ssthresh };
            self.ecn_stalled = cwnd == 0;
            self.tp.cwnd = cwnd.clamp(1, self.tp.cwnd_clamp);
            self.tp.cwnd_cnt = 0;
        }
        self.in_cwr = true;
        self.cwr_high = self.snd_max;
        self.cwr_pending = true;
        self.last_action = LastAction::Ecn;
        self.set_ca_state(CaState::Cwr);
        true
    }

    /// ns-2 `recv_newack_helper` with `ecn_response = "ns2"`: whether a new
    /// ACK may open the window. Not one carrying ECE once an earlier ACK
    /// carried one (ect_; the first ECE ACK still opens it, ect_ being set
    /// after opencwnd); an ACK without ECE ends `ecn_backoff_`.
    pub(in crate::tcp) fn ns2_ecn_ack(&mut self, ece: bool) -> bool {
        let open = !ece || !self.ecn_seen;
        if ece {
            self.ecn_seen = true;
        } else {
            self.ecn_backoff = false;
        }
        open
    }

    /// The window the sender may fill: cwnd, or 0 while an ns-2 ECN
    /// reduction holds it closed (`ecn_stalled`).
    #[inline]
    pub fn open_cwnd(&self) -> u32 {
        if self.ecn_stalled {
            0
        } else {
            self.tp.cwnd
        }
    }

    /// The retransmission timer expired with nothing outstanding while an
    /// ns-2 ECN reduction held the window at 0 (ns-2 `TcpAgent::timeout`
    /// with highest_ack_ == maxseq_ and restart_bugfix_): cwnd 1 and
    /// ssthresh kept (slowdown(CLOSE_CWND_ONE)), no back-off
    /// (reset_rtx_timer(0, 0)), last_cwnd_action_ = TIMEOUT.
    pub(in crate::tcp) fn ecn_stall_expired(&mut self, now: SimTime) {
        self.stats.timeouts += 1;
        self.events.push((now, FlowEventKind::Timeout, crate::units::ps_to_s(self.rtt.rto())));
        self.ecn_stalled = false;
        self.tp.cwnd = 1;
        self.tp.cwnd_cnt = 0;
        self.cwr_pending = true;
        self.last_action = LastAction::Timeout;
    }

    /// Leave CWR once the window that saw the ECN-Echo is acknowledged.
    /// Linux (tcp_fastretrans_alert, before an ECE on the same ACK can
    /// start the next reduction): once snd_una is past high_seq (`!before`
    /// and `!=`), tcp_end_cwnd_reduction sets cwnd = ssthresh (an algorithm
    /// that owns cwnd keeps its own) and raises CA_EVENT_COMPLETE_CWR. ns-2
    /// has no CWR state: the episode ends when snd_una reaches it.
    pub(in crate::tcp) fn maybe_end_cwr(&mut self, now: SimTime) {
        let linux = self.cfg.tcp.ecn_response == EcnResponse::Linux;
        let done = if linux { self.snd_una > self.cwr_high } else { self.snd_una >= self.cwr_high };
        if self.in_cwr && done {
            self.in_cwr = false;
            if linux && !self.cc_owns_cwnd && self.tp.ssthresh != u32::MAX {
                self.tp.cwnd = self.tp.ssthresh.clamp(1, self.tp.cwnd_clamp);
            }
            self.sync_tp(now);
            self.set_ca_state(CaState::Open);
            self.cc.cwnd_event(&mut self.tp, CwndEvent::CompleteCwr);
        }
    }

    /// `ack_hooks_first` (Linux 6.14+ `tcp_ack`): the algorithm's
    /// `pkts_acked` (called from `tcp_clean_rtx_queue`) and then
    /// `in_ack_event` (`tcp_in_ack_event`) see the ACK before
    /// `tcp_fastretrans_alert` may enter recovery or CWR and ask the
    /// algorithm for ssthresh, so DCTCP's α is updated before the cut it
    /// computes. Without the option they run in `after_ack`, after the
    /// reduction.
    pub(in crate::tcp) fn ack_hooks(
        &mut self,
        now: SimTime,
        a: &AckInfo,
        sample: Option<SimTime>,
        prior_in_flight: u32,
    ) {
        let acked = a.newly.min(u32::MAX as u64) as u32;
        self.sync_tp(now);
        if a.newly > 0 {
            self.cc.pkts_acked(&mut self.tp, &AckSample { acked, rtt: sample, in_flight: prior_in_flight });
        }
        let flags = if a.ece { crate::cc::CA_ACK_ECE } else { 0 };
        self.cc.in_ack_event(&self.tp, acked, flags);
    }

    /// Linux tcp_cwnd_reduction (6.x) in CWR: RFC 6937 PRR from prior_cwnd
    /// towards ssthresh; the window never grows in CWR (tcp_cong_control
    /// runs this instead of cong_avoid).
    fn cwr_reduction(&mut self, delivered: u64, progress: bool) {
        if delivered == 0 || self.tp.prior_cwnd == 0 {
            return;
        }
        self.cwr_prr_delivered += delivered;
        self.tp.cwnd = prr_cwnd(
            self.pipe() as i64,
            self.tp.ssthresh as i64,
            self.tp.prior_cwnd as i64,
            self.cwr_prr_delivered as i64,
            self.cwr_prr_out as i64,
            delivered as i64,
            progress,
        )
        .min(self.tp.cwnd_clamp);
    }

    /// The delivery-rate sample and the algorithm's hooks for one ACK:
    /// in_ack_event, pkts_acked (here only without `ack_hooks_first`;
    /// with it, `ack_hooks` ran them before the reduction), then either cong_control (the algorithm
    /// owns cwnd) or cong_avoid when the step allows growth and the window
    /// was full; then the RTO timer (RFC 6298 §5.2–5.3).
    #[allow(clippy::too_many_arguments)]
    pub(in crate::tcp) fn after_ack(
        &mut self,
        now: SimTime,
        cand: RateCand,
        a: &AckInfo,
        losses: u32,
        prior_in_flight: u32,
        prior_pipe: u32,
        sample: Option<SimTime>,
        step: AckStep,
    ) {
        let acked = a.newly.min(u32::MAX as u64) as u32;
        let mut rs = self.rate.sample(
            now,
            cand,
            a.acked_sacked,
            losses,
            prior_pipe,
            sample,
            self.rtt.min_rtt,
            self.cfg.tcp.mss,
            self.tp.lost,
            self.delivered_ce,
        );
        rs.ece_delta = a.ce_delta.min(u32::MAX as u64) as u32;
        rs.is_ece = a.ece;
        rs.is_acking_tlp_retrans_seq = a.acking_tlp_retrans;
        self.sync_tp(now);
        if !self.cfg.tcp.ack_hooks_first {
            let flags = if a.ece { crate::cc::CA_ACK_ECE } else { 0 };
            self.cc.in_ack_event(&self.tp, acked, flags);
            if a.newly > 0 {
                self.cc.pkts_acked(&mut self.tp, &AckSample { acked, rtt: sample, in_flight: prior_in_flight });
            }
        }
        if self.cc_owns_cwnd {
            self.cc.cong_control(&mut self.tp, &rs);
            self.tp.cwnd = self.tp.cwnd.clamp(1, self.tp.cwnd_clamp);
            if self.tp.mark_app_limited {
                // Linux: tp->app_limited = (delivered + in flight) ?: 1.
                self.tp.mark_app_limited = false;
                self.rate.app_limited = (self.rate.delivered + self.pipe() as u64).max(1);
            }
        } else if self.in_cwr && self.cfg.tcp.ecn_response == EcnResponse::Linux {
            self.cwr_reduction(a.acked_sacked, a.newly > 0 && !a.newly_lost);
        } else if self.ecn_stalled {
            // ns-2 opencwnd on a new ACK without ECE: cwnd_ 0 → 1.
            self.ecn_stalled = !step.grow;
        } else if step.grow && (!self.cfg.tcp.cwnd_limited_gate || self.cwnd_limited()) {
            // Growth is credited with the segments this ACK delivered (Linux
            // tcp_cong_control's acked_sacked): a cumulative ACK over data
            // already SACKed (counted when it was SACKed) adds nothing more.
            // In slow start an ACK may grow cwnd by at most L segments
            // (RFC 3465 §2.3 / RFC 5681 eq. 2), however much it acks.
            // ns-2 (growth_per = "ack") credits one segment per ACK.
            let delivered = match self.cfg.tcp.growth_per {
                crate::config::GrowthPer::Segment => a.acked_sacked.min(u32::MAX as u64) as u32,
                crate::config::GrowthPer::Ack => 1,
            };
            let l = self.cfg.tcp.abc_limit;
            let credit = if l > 0 && self.tp.in_slow_start() { delivered.min(l) } else { delivered };
            self.cc.cong_avoid(&mut self.tp, credit);
            self.tp.cwnd = self.tp.cwnd.clamp(1, self.tp.cwnd_clamp);
        }
        if a.newly > 0 {
            if self.snd_una >= self.snd_max {
                // ns-2 newtimer keeps the timer running while cwnd_ < 1.
                self.rto_deadline = self.ecn_stalled.then(|| now + self.rtt.rto());
            } else if step.restart_timer {
                self.rto_deadline = Some(now + self.rtt.rto());
            }
        }
    }

    /// Linux `tcp_is_cwnd_limited` (include/net/tcp.h, 6.x): the window may
    /// grow if the flight that was last sent filled cwnd, or, in slow start,
    /// while cwnd is below twice the largest flight of the current window —
    /// so a paced sender, whose flight rarely fills cwnd when an ACK
    /// arrives, still doubles per RTT.
    #[inline]
    pub(in crate::tcp) fn cwnd_limited(&self) -> bool {
        self.is_cwnd_limited || (self.tp.in_slow_start() && (self.tp.cwnd as u64) < 2 * self.max_packets_out as u64)
    }

    /// After a send attempt (Linux `tcp_write_xmit` → `tcp_cwnd_validate`,
    /// 6.x): whether the flight now fills cwnd, remembered for the current
    /// window (until snd_una passes `cwnd_usage_seq`), and the largest
    /// flight of that window.
    #[inline]
    pub(in crate::tcp) fn cwnd_validate(&mut self, sent: bool) {
        let limited = self.pipe() >= self.tp.cwnd;
        if !(sent || limited) {
            return;
        }
        let packets_out = (self.snd_max - self.snd_una).min(u32::MAX as u64) as u32;
        if self.snd_una >= self.cwnd_usage_seq
            || limited
            || (!self.is_cwnd_limited && packets_out > self.max_packets_out)
        {
            self.is_cwnd_limited = limited;
            self.max_packets_out = packets_out;
            self.cwnd_usage_seq = self.snd_max;
        }
    }

    // ------------------------------------------------------------ recovery

    /// The last fast retransmit or timeout is behind us: the ACK passed
    /// `recover` (RFC 6582 §3.2 step 1), or there was none.
    #[inline]
    pub(in crate::tcp) fn passed_recover(&self, ack: u64) -> bool {
        (!self.recover_valid || ack > self.recover) && self.first_segment_rule(ack)
    }

    /// `fast_retransmit_first = false` (ns-2.27): duplicate ACKs for the
    /// connection's first data segment start no fast retransmit. ns-2.27's
    /// dupack_action needs highest_ack_ > recover_, both 0 until the first
    /// data segment is acknowledged; ns-2.35's bugfix_ss_ (2006) lifts it.
    #[inline]
    pub(in crate::tcp) fn first_segment_rule(&self, ack: u64) -> bool {
        self.cfg.tcp.fast_retransmit_first || ack > 0
    }

    /// Common part of entering fast recovery: ssthresh from the algorithm,
    /// bookkeeping, the trace event and the new congestion `state`, which
    /// the algorithm hears after its ssthresh and may amend it then (Linux
    /// tcp_enter_recovery: tcp_init_cwnd_reduction, then tcp_set_ca_state;
    /// DCTCP's dctcp_state). Returns the ssthresh to reduce to. `flight`
    /// is what the algorithm sees as FlightSize.
    pub(in crate::tcp) fn begin_recovery(&mut self, now: SimTime, flight: u32, state: CaState) -> u32 {
        self.stats.fast_retransmits += 1;
        self.events.push((now, FlowEventKind::FastRetransmit, self.tp.cwnd as f64));
        self.ns2_timed = None; // ns-2 reset_rtx_timer: rtt_active_ = 0
        self.ecn_stalled = false;
        self.sync_tp(now);
        self.tp.in_flight = flight;
        // Linux tcp_enter_recovery: the undo point, and ssthresh before
        // (not when an ECN reduction is under way).
        let prior = if self.in_cwr { 0 } else { self.current_ssthresh(false) };
        self.init_undo(prior);
        self.tlp.high_seq = None; // tcp_init_cwnd_reduction
        self.tp.prior_cwnd = self.tp.cwnd;
        self.tp.ssthresh = self.cc.ssthresh(&self.tp);
        self.recover = self.snd_max;
        self.recover_valid = true;
        self.cwr_high = self.snd_max;
        self.in_cwr = false;
        self.last_action = LastAction::FastRetransmit;
        self.set_ca_state(state);
        self.tp.ssthresh
    }

    /// Enter fast recovery proper (after `begin_recovery`).
    pub(in crate::tcp) fn mark_in_recovery(&mut self, now: SimTime) {
        self.in_recovery = true;
        self.recovery_started = now;
    }

    pub(in crate::tcp) fn exit_recovery(&mut self, now: SimTime) {
        self.in_recovery = false;
        self.undo.stamp = None;
        if !self.cc_owns_cwnd {
            self.tp.cwnd = self.tp.ssthresh.min(self.tp.cwnd_clamp).max(1);
            self.tp.cwnd_cnt = 0;
        }
        self.dupacks = 0;
        self.lt_sent = 0;
        let d = (now - self.recovery_started) as f64 / PS_PER_S as f64;
        self.events.push((now, FlowEventKind::RecoveryEnd, d));
        self.sync_tp(now);
        self.set_ca_state(CaState::Open);
        self.cc.cwnd_event(&mut self.tp, CwndEvent::CompleteCwr);
    }

    /// Forget all SACK information (ns-2 ClearScoreBoard; RTO without the
    /// RFC 6675 scoreboard).
    pub(in crate::tcp) fn clear_scoreboard(&mut self) {
        self.sb.clear(self.snd_una);
    }

    /// The part of an RTO common to every mode (RFC 6298 §5.5–5.7, RFC 5681
    /// eq. 4): ssthresh from the algorithm (not again for a segment the
    /// timer already retransmitted, nor during a recovery or CWR episode, as
    /// Linux), cwnd = 1, `recover` = snd_max, back off.
    pub(in crate::tcp) fn timeout(&mut self, now: SimTime) {
        let expired = self.rtt.rto();
        self.ns2_timed = None; // ns-2 reset_rtx_timer: rtt_active_ = 0
        self.stats.timeouts += 1;
        self.stats.rto_sum_at_timeout_ps += expired as u128;
        self.events.push((now, FlowEventKind::Timeout, crate::units::ps_to_s(expired)));
        self.sync_tp(now);
        self.tp.in_flight = (self.snd_max - self.snd_una).min(u32::MAX as u64) as u32;
        // Linux tcp_enter_loss (6.x): ssthresh comes from the algorithm only
        // when the sender was not already reducing (Open/Disorder), or its
        // reduction is over (high_seq acked), or on the first expiry in Loss.
        // An RTO in Recovery or CWR keeps that episode's ssthresh instead of
        // halving a FlightSize swollen by the inflated recovery window.
        //
        // ns-2 TcpAgent::timeout calls slowdown(CLOSE_SSTHRESH_HALF) on
        // every expiry, backed-off ones and those in fast recovery included
        // (halving the inflated NewReno window there), and keeps ssthresh
        // only inside an ECN reduction not yet acked.
        let in_ecn = self.in_cwr && self.cwr_high > self.snd_una;
        let recompute = match self.cfg.tcp.rto_ssthresh {
            RtoSsthresh::Linux => {
                let reducing = (self.in_recovery && self.recover > self.snd_una) || in_ecn;
                !reducing && (self.last_action != LastAction::Timeout || !self.rtt.backed_off())
            }
            RtoSsthresh::Ns2 => !in_ecn,
        };
        if recompute {
            // tcp_enter_loss: remember what to undo to.
            let prior = self.current_ssthresh(self.in_recovery || self.in_cwr);
            self.init_undo(prior);
            self.tp.prior_cwnd = self.tp.cwnd;
            self.tp.ssthresh = self.cc.ssthresh(&self.tp);
            // tcp_ca_event(CA_EVENT_LOSS) follows the ssthresh, in the same
            // block and with cwnd not yet cut (Westwood+ and DCTCP set
            // ssthresh there).
            self.cc.cwnd_event(&mut self.tp, CwndEvent::Loss);
        }
        self.tlp.high_seq = None;
        self.tlp.deadline = None;
        if self.in_recovery {
            self.in_recovery = false;
            let d = (now - self.recovery_started) as f64 / PS_PER_S as f64;
            self.events.push((now, FlowEventKind::RecoveryEnd, d));
        }
        self.in_cwr = false;
        self.ecn_stalled = false;
        self.tp.cwnd = 1;
        self.tp.cwnd_cnt = 0;
        self.dupacks = 0;
        self.lt_sent = 0;
        self.recover = self.snd_max; // RFC 6582 §3.2 step 5; RFC 6675 §5.1
        self.recover_valid = true;
        self.cwr_high = self.snd_max;
        self.last_action = LastAction::Timeout;
        self.rtt.back_off();
        self.set_ca_state(CaState::Loss);
    }
}

/// RFC 6937 PRR as Linux 6.x's tcp_cwnd_reduction computes the window, for
/// recovery and CWR alike: while the flight exceeds ssthresh,
/// ⌈prr_delivered · ssthresh / prior_cwnd⌉ − prr_out may go; at or below
/// it, packet conservation (prr_delivered − prr_out, at least what this ACK
/// delivered) plus one segment on an ACK that advanced snd_una and marked
/// no new loss (`progress`), up to ssthresh; at least one segment before
/// the reduction has sent any. cwnd = flight + that count, at least 1.
pub(in crate::tcp) fn prr_cwnd(
    pipe: i64,
    ssthresh: i64,
    prior_cwnd: i64,
    prr_delivered: i64,
    prr_out: i64,
    delivered: i64,
    progress: bool,
) -> u32 {
    let mut sndcnt = if pipe > ssthresh {
        let fs = prior_cwnd.max(1);
        (prr_delivered * ssthresh + fs - 1) / fs - prr_out
    } else {
        let limit = (prr_delivered - prr_out).max(delivered) + progress as i64;
        (ssthresh - pipe).min(limit)
    };
    sndcnt = sndcnt.max(0);
    if prr_out == 0 && sndcnt == 0 {
        sndcnt = 1;
    }
    (pipe + sndcnt).clamp(1, u32::MAX as i64) as u32
}
