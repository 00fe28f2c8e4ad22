//! Types the parts of a TCP flow share: what the sender did last, its
//! connection state, its counters and trace events, the SACK blocks an ACK
//! carries and what the send loop transmits next.

use crate::units::SimTime;

/// What the sender did last to a loss: ns-2's `last_cwnd_action_`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LastAction {
    None,
    FastRetransmit,
    Timeout,
    /// An ECN reduction (`ecn_response = "ns2"` only: CWND_ACTION_ECN).
    Ecn,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderState {
    /// Not started yet.
    Idle,
    SynSent,
    Established,
}

/// Trace events a flow reports (kind, value), timestamped by the simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowEventKind {
    /// value = the RTO that expired, seconds.
    Timeout,
    /// Start of a fast-recovery episode (any variant, SACK or not);
    /// value = cwnd before the reduction, segments.
    FastRetransmit,
    /// value = duration of the recovery episode, seconds.
    RecoveryEnd,
    /// ECN-Echo answered by a window reduction; value = cwnd before, segments.
    EcnReduction,
    /// value = flow completion time, seconds.
    Completed,
    /// A tail loss probe repaired a loss: one reduction (RFC 8985 §7.4);
    /// value = cwnd before, segments.
    TlpRecovery,
    /// A reduction undone as spurious (D-SACK, timestamps, F-RTO); value =
    /// cwnd after, segments.
    Undo,
}

impl FlowEventKind {
    pub fn name(&self) -> &'static str {
        match self {
            FlowEventKind::Timeout => "timeout",
            FlowEventKind::FastRetransmit => "fast_retransmit",
            FlowEventKind::RecoveryEnd => "recovery_end",
            FlowEventKind::EcnReduction => "ecn_reduction",
            FlowEventKind::Completed => "completed",
            FlowEventKind::TlpRecovery => "tlp_recovery",
            FlowEventKind::Undo => "undo",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct FlowStats {
    pub data_pkts_sent: u64,
    pub data_bytes_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    pub acks_sent: u64,
    pub acks_received: u64,
    pub dupacks_received: u64,
    /// Data segments that arrived at the receiver with CE set.
    pub ce_received: u64,
    pub rtt_sum_ps: u128,
    pub rtt_samples: u64,
    /// Smallest RTT sample over every connection of the flow (repeated
    /// transfers open a new connection, and with it a new RTT estimator).
    pub rtt_min_ps: Option<SimTime>,
    /// The path's base RTT: propagation both ways plus one full-sized data
    /// segment's and one ACK's serialisation at each link's nominal rate
    /// (None when a link starts at rate 0). Set when the simulation is built.
    pub base_rtt_ps: Option<SimTime>,
    /// Every RTT sample minus the base RTT (a sample below it, on a link
    /// faster than its nominal rate, counts as 0): the queueing delay the
    /// flow saw, for `qdelay_p*_s`.
    pub qdelay_hist: crate::hist::DelayHist,
    /// One-way delay of every data segment that reached the receiver (from
    /// the sender handing it to its first link), for `owd_p*_s`.
    pub owd_hist: crate::hist::DelayHist,
    pub rto_sum_at_timeout_ps: u128,
    /// Packets of this flow (both directions) put into the network,
    /// delivered to an endpoint, and dropped or lost on the way.
    pub pkts_injected: u64,
    pub pkts_arrived: u64,
    pub pkts_dropped: u64,
    /// Bytes of data packets the flow's first link refused (queue drops
    /// there): sent by the sender, never on the wire.
    pub first_hop_drop_bytes: u64,
    /// Window restarts after idle (RFC 2861, `tcp.idle_restart`).
    pub idle_restarts: u64,
    /// Packets of an earlier connection of this slot that arrived after a
    /// new one opened (repeated transfers), discarded.
    pub stale_pkts: u64,
    /// ACKs carrying a D-SACK (RFC 2883).
    pub dsacks_received: u64,
    /// Duplicate data segments that reached the receiver.
    pub dup_segs_received: u64,
    /// Segments RACK marked lost (RFC 8985), lost retransmissions included.
    pub rack_lost: u64,
    /// Retransmissions found lost (by RACK) before any RTO.
    pub lost_retransmits: u64,
    /// ACKs that showed reordering (RACK.reordering_seen events).
    pub reorder_seen: u64,
    /// Tail loss probes sent, and those that repaired a loss.
    pub tlp_probes: u64,
    pub tlp_recoveries: u64,
    /// Reductions undone (recovery or RTO), and RTOs found spurious by F-RTO.
    pub undos: u64,
    pub spurious_rtos: u64,
}

/// Per-packet traces, kept only when the scenario asks for them.
#[derive(Default)]
pub struct FlowTrace {
    pub want_rtt: bool,
    pub want_seq: bool,
    pub want_cc: bool,
    /// Samples of the congestion controller's state (table `cc_state`).
    pub cc: Vec<CcSample>,
    /// Flow events already answered by a `cc` sample.
    pub cc_events_seen: usize,
    /// (time, RTT sample)
    pub rtt: Vec<(SimTime, SimTime)>,
    /// (time, kind, seq): kind 0 = new data sent, 1 = retransmission, 2 = ACK received.
    pub seq: Vec<(SimTime, u8, u64)>,
}

/// One row of the `cc_state` trace: the window and the algorithm's own
/// variables (`CongestionOps::vars`) at a sample time or just after a
/// congestion event has been handled.
#[derive(Clone, Debug)]
pub struct CcSample {
    pub time: SimTime,
    /// The event just handled; None = a periodic sample.
    pub cause: Option<FlowEventKind>,
    pub ca_state: u8,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub mode: Option<&'static str>,
    pub vars: Vec<f64>,
}

/// SACK blocks of one ACK, filed by the receiver under the ACK's id.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SackEntry {
    pub(crate) id: u32,
    pub(crate) n: u8,
    pub(crate) blocks: [(u64, u64); 4],
}

/// What the sender transmits next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pick {
    /// New data at snd_max (or go-back-N at snd_nxt below snd_max).
    Next,
    /// Retransmission by NextSeg rule 1 or 3 / the Sack1 hole search.
    Hole(u64),
    /// RFC 6675 rule 4.
    Rescue(u64),
}
