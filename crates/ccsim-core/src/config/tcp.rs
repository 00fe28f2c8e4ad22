//! TCP options of a flow: SACK and pacing modes, the option table with its
//! defaults, and its validation.

use super::{check_time, err, ConfigError};
use crate::opts::{options, Kind};
// wire-level facts, owned by the packet (re-exported: a flow's options name them)
pub use crate::packet::{EcnCodepoint, EcnFeedback};
use crate::units::{SimTime, PS_PER_MS, PS_PER_S};
use serde::{Deserialize, Serialize};

/// Loss recovery with selective acknowledgments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SackCfg {
    /// No SACK option: recovery follows the algorithm's name (Tahoe, Reno,
    /// NewReno).
    #[default]
    Off,
    /// RFC 6675 conservative SACK recovery (scoreboard, IsLost, pipe, NextSeg,
    /// rescue retransmission).
    Rfc6675,
    /// ns-2 `Agent/TCP/Sack1` (Fall & Floyd 1996): ACK-counted pipe, every
    /// hole below the highest SACK is presumed lost.
    Sack1,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PacingCfg {
    #[default]
    Off,
    /// Linux internal pacing: rate = ratio · mss · max(cwnd, packets_out) / srtt,
    /// ratio = ss_ratio while cwnd < ssthresh/2, else ca_ratio; or the rate the
    /// algorithm sets (BBR).
    Linux,
    /// Leaky-bucket pacing of the ns-2 studies (Aggarwal, Savage & Anderson
    /// 2000): one segment every srtt/cwnd.
    Window,
}

/// The congestion control of a flow that names none: NewReno (RFC 6582),
/// the one algorithm every stack this core imitates carries. The schema
/// gives it to Python (`tcp_json`), so it is written only here.
pub const DEFAULT_CC: &str = "newreno";

/// Whose TCP the defaults imitate (docs/scenario.md, "Stacks"). Options set
/// explicitly in a scenario override the stack's values. A flow that names
/// none takes `Stack::default()`, Linux.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stack {
    /// Linux 6.x defaults (sysctls and net/ipv4/tcp_*.c behaviour).
    #[default]
    Linux,
    /// ns-2.35 defaults (tcl/lib/ns-default.tcl, tcp/tcp.cc, tcp-sink.cc).
    Ns2,
    /// ns-2.27 defaults (the release of 2004-01-18): what papers of 2004
    /// ran. ns-2.26 (2003-02-27) differs further (docs/scenario.md).
    #[serde(rename = "ns2-2.27")]
    Ns2_27,
}

/// What an ACK credits to window growth (`TcpCfg::growth_per`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GrowthPer {
    /// The segments the ACK delivered (Linux acked_sacked).
    #[default]
    Segment,
    /// One per ACK (ns-2).
    Ack,
}

/// What a loss-based reduction halves (`TcpCfg::ssthresh_base`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshBase {
    /// The congestion window (Linux tcp_reno_ssthresh; ns-2
    /// TcpAgent::slowdown halves window() = min(cwnd_, window_)).
    #[default]
    Cwnd,
    /// The data outstanding (RFC 5681 eq. 4: FlightSize).
    Flight,
}

/// Whether an RTO recomputes ssthresh (`TcpCfg::rto_ssthresh`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoSsthresh {
    /// Linux tcp_enter_loss: only outside a reduction (Open/Disorder), or
    /// once its recovery point is acked, or on the first expiry in Loss; an
    /// RTO in Recovery/CWR keeps that episode's ssthresh and a backed-off
    /// expiry keeps the first one's.
    #[default]
    Linux,
    /// ns-2 TcpAgent::timeout: on every expiry (slowdown with
    /// CLOSE_SSTHRESH_HALF), in fast recovery too, except in an ECN
    /// reduction whose recovery point is not yet acked.
    Ns2,
}

/// How the receiver times a delayed ACK (`TcpCfg::delack_timer`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DelackTimer {
    /// Linux tcp_event_data_recv / tcp_send_delayed_ack: an adaptive
    /// timeout (icsk_ack.ato, 40 ms up to `delack_timeout`, bounded by the
    /// RTT), a short (pushed) segment ACKed at once, the quick-ACK quota
    /// re-armed after an idle gap longer than the RTO.
    #[default]
    Linux,
    /// A fixed `delack_timeout` (RFC 1122 §4.2.3.2; ns-2 DelAckSink interval_).
    Fixed,
}

/// How the retransmission timeout is computed (tcp/rtt.rs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoModel {
    /// Linux tcp_rtt_estimator / tcp_set_rto: RTO = SRTT + rttvar with
    /// rttvar ≥ min_rto, so RTO ≥ SRTT + min_rto.
    #[default]
    Linux,
    /// RFC 6298: RTO = max(min_rto, SRTT + max(G, 4·RTTVAR)).
    Rfc6298,
    /// ns-2 TcpAgent: tick-counted samples (G = tcpTick_), one timed
    /// segment per RTT, min_rto before back-off.
    Ns2,
}

/// How a sender answers an ECN-Echo (`TcpCfg::ecn_response`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnResponse {
    /// Linux 6.x: the ECN-Echo enters CWR (tcp_enter_cwr →
    /// tcp_init_cwnd_reduction: ssthresh from the algorithm), PRR
    /// (tcp_cwnd_reduction) brings cwnd from prior_cwnd down to ssthresh
    /// over the round and nothing grows it; the episode ends once snd_una
    /// is past high_seq with cwnd = ssthresh (tcp_end_cwnd_reduction), and
    /// an ECE on that ACK starts the next one.
    #[default]
    Linux,
    /// ns-2 TcpAgent::ecn → slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF)
    /// (tcp.cc, ns-2.27 and 2.35 alike): cwnd = ⌊window/2⌋, so 1 at a window
    /// of 2–3 and 0 at 1 (nothing is sent until the retransmission timer,
    /// which newtimer keeps running, expires), ssthresh ≥ 2; also after a
    /// timeout inside its window (last_cwnd_action_ == TIMEOUT); no ACK
    /// carrying ECE opens the window (recv_newack_helper, once ect_ is set);
    /// a second ECN at cwnd ≤ 1 backs the timer off (ecn_backoff_).
    Ns2,
}

/// Largest initial window accepted, segments.
pub const MAX_INITIAL_WINDOW: u32 = 1_000_000;

/// The shortest RTO bound a scenario may give (min_rto, initial_rto,
/// max_rto): 1 µs, the unit of Linux's `net.ipv4.tcp_rto_min_us` and of the
/// RTT estimator (`tcp_rtt_estimator` works in µs). A retransmission timer
/// of picoseconds fires a million times more often than any packet can
/// leave, so a lost segment would turn a run into an endless storm of
/// timeouts.
pub const RTO_FLOOR_PS: u64 = 1_000_000;
pub(crate) const RTO_FLOOR: Kind = Kind::TimeFloor {
    min_ps: RTO_FLOOR_PS,
    accepted: "a time ≥ 1us (RTO bounds are counted in µs, as Linux's tcp_rto_min_us)",
};

options! {
    /// TCP options of one flow. Every field has a default, set by the stack
    /// (`TcpCfg::for_stack`, the one place TCP defaults are written; Python
    /// reads them through `tcp_defaults_json`).
    pub struct TcpCfg, rows OPTS, default by hand {
        /// The stack whose defaults fill the options not given.
        stack: Stack
            => ("stack", Kind::Choice(&["linux", "ns2", "ns2-2.27"]), "", "whose TCP the defaults imitate: 'linux' (Linux 6.x), 'ns2' (ns-2.35) or 'ns2-2.27' (ns-2.27, 2004); options set explicitly override it (docs/scenario.md)"),
        cc: String
            => ("cc", Kind::Algorithm, "", "congestion control: one of the core's algorithms ('ccsim list cc' prints each with its source, parameters and presets)"),
        /// Named parameter set of the algorithm (`ccsim list cc`).
        cc_preset: Option<String>
            => ("cc_preset", Kind::Preset, "", "named parameter set of the algorithm, e.g. 'paper' ('ccsim list cc'); none = defaults"),
        /// Single algorithm parameters, applied over the preset.
        cc_params: std::collections::BTreeMap<String, crate::cc::params::Value>
            => ("cc_params", Kind::Params, "", "table of algorithm parameters over the preset, e.g. {low_window = 31} ('ccsim list cc')"),
        /// Set when `cc` is not one of the core's algorithms but one the
        /// embedding program builds (a Python class): where to find it and its
        /// loss recovery (`cc::external`). Written by the front end, not by a
        /// scenario's author; absent from the JSON of every other flow.
        #[serde(skip_serializing_if = "Option::is_none")]
        cc_external: Option<crate::cc::external::ExternalCc>,
        mss: u32
            => ("mss", Kind::Int { lo: 1, hi: 65_495 }, "bytes", "maximum segment size, payload bytes"),
        header_bytes: u32
            => ("header_bytes", Kind::Int { lo: 0, hi: 1_000 }, "bytes", "TCP/IP header bytes on every packet without options; timestamps add ts_option_bytes, SACK blocks 4 + 8 per block"),
        initial_window: u32
            => ("initial_window", Kind::Int { lo: 1, hi: MAX_INITIAL_WINDOW as u64 }, "segments", "initial cwnd, segments (RFC 6928 / Linux: 10)"),
        /// Segments; None = "arbitrarily high" (RFC 5681 §3.1).
        initial_ssthresh: Option<u32>
            => ("initial_ssthresh", Kind::IntOrInf { lo: 2, hi: u32::MAX as u64 - 1 }, "segments", "initial ssthresh, segments, or 'inf' (RFC 5681: arbitrarily high)"),
        /// Retransmission-timeout model.
        rto: RtoModel
            => ("rto", Kind::Choice(&["linux", "rfc6298", "ns2"]), "", "RTO model: 'linux' (RTO = SRTT + rttvar, rttvar ≥ min_rto), 'rfc6298' (max(min_rto, SRTT + max(G, 4·RTTVAR))), 'ns2' (tick-counted, one timed segment per RTT)"),
        min_rto_ps: SimTime
            => ("min_rto", RTO_FLOOR, "time", "lower bound on the RTO (rfc6298: on the RTO; linux: on rttvar, so RTO ≥ SRTT + min_rto; ns2: minrto_, before back-off)"),
        initial_rto_ps: SimTime
            => ("initial_rto", RTO_FLOOR, "time", "RTO before the first RTT sample (RFC 6298: 1s)"),
        max_rto_ps: SimTime
            => ("max_rto", RTO_FLOOR, "time", "upper bound on the RTO, back-off included (RFC 6298: at least 60s)"),
        /// RFC 6298's clock granularity G; Linux's jiffy (the RTO is rounded
        /// up to it); ns-2's tcpTick_.
        clock_granularity_ps: SimTime
            => ("clock_granularity", Kind::Time { min_ps: 0 }, "time", "rfc6298: G in SRTT + max(G, 4·RTTVAR); linux: the jiffy the RTO is rounded up to; ns2: tcpTick_"),
        /// Per-flow cap on cwnd, segments (Linux snd_cwnd_clamp).
        max_cwnd: Option<u32>
            => ("max_cwnd", Kind::IntOrNone { lo: 1, hi: u32::MAX as u64 }, "segments", "cap on cwnd in segments (Linux snd_cwnd_clamp); none = no cap"),
        /// Receiver's advertised window in bytes; None = unlimited.
        rwnd_bytes: Option<u64>
            => ("rwnd", Kind::Window, "bytes", "receiver's advertised window: a size ('64KB') or '<n>pkt'; none = unlimited"),
        /// The receiver's window opens as Linux's does (tcp/rcvwnd.rs): 64 KB in
        /// the SYN-ACK, raised per segment up to a clamp that receive-buffer
        /// autotuning doubles with what the application read in each RTT, and
        /// a quick ACK for each raise. Within `rwnd_bytes` when that is set.
        rcv_autotune: bool
            => ("rcv_autotune", Kind::Bool, "", "the receiver's window opens as Linux's: 64 KB in the SYN-ACK (tcp_select_initial_window), raised by 2 MSS per segment with a quick ACK each time (tcp_grow_window) up to a clamp that receive-buffer autotuning sets to twice what the application read in the last RTT (tcp_rcv_space_adjust); within rwnd when set"),
        delayed_ack: bool
            => ("delayed_ack", Kind::Bool, "", "ACK every delack_count segments or after delack_timeout (RFC 5681 §4.2)"),
        delack_timeout_ps: SimTime
            => ("delack_timeout", Kind::Time { min_ps: 1 }, "time", "delayed-ACK timer"),
        /// Full-sized segments per delayed ACK (RFC 5681: 2).
        delack_count: u32
            => ("delack_count", Kind::Int { lo: 1, hi: 1_000 }, "segments", "full-sized segments per delayed ACK"),
        handshake: bool
            => ("handshake", Kind::Bool, "", "open with SYN / SYN-ACK (one RTT) before data"),
        dupthresh: u32
            => ("dupthresh", Kind::Int { lo: 1, hi: 1_000 }, "ACKs", "duplicate ACKs that trigger fast retransmit (RFC 5681: 3)"),
        /// A loss of the connection's first data segment may be repaired by
        /// fast retransmit; false: only the RTO repairs it (ns-2.27's
        /// dupack_action: recovered = highest_ack_ > recover_ is false while
        /// both are at the start; ns-2 added bugfix_ss_ in 2006).
        fast_retransmit_first: bool
            => ("fast_retransmit_first", Kind::Bool, "", "a loss of the first data segment may be repaired by fast retransmit; false: only by the RTO (ns-2.27 dupack_action, before bugfix_ss_)"),
        /// The algorithm's pkts_acked and in_ack_event see an ACK before it
        /// may start a reduction (Linux 6.14+ tcp_ack: tcp_clean_rtx_queue,
        /// tcp_in_ack_event, then tcp_fastretrans_alert), so DCTCP's α is
        /// updated before the cut it computes; false: after the reduction.
        ack_hooks_first: bool
            => ("ack_hooks_first", Kind::Bool, "", "the algorithm's pkts_acked and in_ack_event see an ACK before it may start a reduction, so DCTCP's alpha is updated before the cut it computes (Linux 6.14+ tcp_ack); false: after the reduction (the ns-2 stacks)"),
        /// Sack1 only: once the application's data has all been sent, the
        /// send loop stops, so holes found in recovery wait for the RTO
        /// (ns-2.27 Sack1TcpAgent::send_much loops while t_seqno_ < curseq_;
        /// ns-2.35 changed the loop).
        sack1_stop_at_end: bool
            => ("sack1_stop_at_end", Kind::Bool, "", "sack = 'sack1' only: once the application's data has all been sent, recovery retransmits no more holes and only the RTO repairs them (ns-2.27 Sack1TcpAgent::send_much); false: holes are repaired in recovery (ns-2.35)"),
        /// Sack1 only: the fast-retransmit threshold grows with the window,
        /// max(dupthresh, ⌊cwnd / dupthresh_frac⌋) (ns-2 `numdupacksFrac_`,
        /// `TcpAgent::numdupacks`); 0 = off.
        dupthresh_frac: u32
            => ("dupthresh_frac", Kind::Int { lo: 0, hi: 1_000_000 }, "segments", "with sack = 'sack1', the threshold is max(dupthresh, cwnd / dupthresh_frac); with limited_transmit (any recovery), one new segment per duplicate ACK below the threshold (ns-2 send_one) rather than RFC 3042's first two, which differs only where the threshold exceeds 3; 0 = off (ns-2 numdupacksFrac_: 100 in ns-2.27, off in 2.35)"),
        /// Appropriate Byte Counting limit L in slow start, segments per ACK
        /// (RFC 3465 §2.3; RFC 5681 eq. 2 is L = 1); 0 = no limit (Linux).
        abc_limit: u32
            => ("abc_limit", Kind::Int { lo: 0, hi: u32::MAX as u64 }, "segments", "most segments one ACK may add to cwnd in slow start (RFC 3465 L; RFC 5681: 1); 0 = no limit (Linux)"),
        sack: SackCfg
            => ("sack", Kind::Choice(&["off", "rfc6675", "sack1"]), "", "SACK recovery: 'off' (recovery by cc name), 'rfc6675' (RFC 6675 scoreboard), 'sack1' (ns-2 Agent/TCP/Sack1)"),
        /// The receiver reports SACK blocks when `sack` is on (false: a sink
        /// without SACK, as ns-2's plain Agent/TCPSink behind a Sack1 sender).
        receiver_sack: bool
            => ("receiver_sack", Kind::Bool, "", "the receiver sends SACK blocks when sack is on; false: a sink without SACK (ns-2's plain TCPSink behind a Sack1 sender; a Linux sender would negotiate SACK off instead: set sack = 'off')"),
        /// Most SACK blocks per ACK (RFC 2018: 4, or 3 with timestamps).
        sack_blocks: u32
            => ("sack_blocks", Kind::Int { lo: 1, hi: 4 }, "blocks", "most SACK blocks per ACK (RFC 2018: 4, or 3 with timestamps; ns-2: 3)"),
        /// What one ACK credits to window growth: the segments it delivered
        /// (Linux, RFC 3465 byte counting) or one segment whatever it covers
        /// (ns-2 `opencwnd`: +1 per ACK in slow start, +1/cwnd in congestion
        /// avoidance, so delayed ACKs halve the growth).
        growth_per: GrowthPer
            => ("growth_per", Kind::Choice(&["segment", "ack"]), "", "what one ACK credits to window growth: 'segment' (the segments it delivered; Linux, RFC 3465) or 'ack' (one, however many it covers; ns-2, so delayed ACKs halve the growth)"),
        /// What a loss-based reduction halves: cwnd (Linux, ns-2) or
        /// FlightSize (RFC 5681). Read by the Reno-family algorithms.
        ssthresh_base: SsthreshBase
            => ("ssthresh_base", Kind::Choice(&["cwnd", "flight"]), "", "what a loss-based reduction of the Reno family halves: 'cwnd' (Linux tcp_reno_ssthresh, ns-2 slowdown) or 'flight' (RFC 5681 eq. 4: FlightSize)"),
        /// Whether an RTO recomputes ssthresh inside a reduction and on a
        /// backed-off expiry (Linux: no; ns-2: yes).
        rto_ssthresh: RtoSsthresh
            => ("rto_ssthresh", Kind::Choice(&["linux", "ns2"]), "", "whether an RTO recomputes ssthresh: 'linux' (not inside a recovery or ECN reduction, nor on a backed-off expiry; tcp_enter_loss) or 'ns2' (on every expiry, fast recovery included; TcpAgent::timeout)"),
        /// Grow the window only while the flow uses it (Linux
        /// `tcp_is_cwnd_limited`); false: on every ACK (ns-2).
        cwnd_limited_gate: bool
            => ("cwnd_limited_gate", Kind::Bool, "", "grow the window only while the flow uses it (Linux tcp_is_cwnd_limited); false: on every new ACK (ns-2)"),
        /// RFC 3042 limited transmit.
        limited_transmit: bool
            => ("limited_transmit", Kind::Bool, "", "RFC 3042: one new segment on each of the first two duplicate ACKs"),
        /// NewReno restarts the RTO timer only on the first partial ACK of a
        /// recovery (RFC 6582 §4 "Impatient"; ns-2 newreno_changes1_); false:
        /// on every partial ACK ("Slow-but-Steady", as Linux rearms on every
        /// ACK that advances snd_una).
        impatient: bool
            => ("impatient", Kind::Bool, "", "NewReno restarts the RTO timer only on the first partial ACK (RFC 6582 §4 Impatient; ns-2); false: on every partial ACK (Slow-but-Steady; Linux)"),
        /// RFC 6937 proportional rate reduction during SACK recovery.
        prr: bool
            => ("prr", Kind::Bool, "", "RFC 6937 proportional rate reduction in recovery (needs sack = 'rfc6675')"),
        /// RFC 7323 timestamps: RTT from every ACK, 12 option bytes per packet.
        timestamps: bool
            => ("timestamps", Kind::Bool, "", "RFC 7323 timestamps: an RTT sample from every ACK, ts_option_bytes on every packet"),
        /// Bytes the timestamp option adds to every packet when `timestamps`
        /// is on (RFC 7323 §3: 10, padded to 12 by Linux; ns-2 charges
        /// `ts_option_size_` 10).
        ts_option_bytes: u32
            => ("ts_option_bytes", Kind::Int { lo: 10, hi: 12 }, "bytes", "bytes the timestamp option adds to every packet when timestamps are on: 12 (RFC 7323's 10 padded with two NOPs, as Linux sends it) or 10 (ns-2 ts_option_size_)"),
        /// ECN negotiated: data is ECN-capable and the sender answers ECE
        /// with one reduction per window (RFC 3168 §6.1.2).
        ecn: bool
            => ("ecn", Kind::Bool, "", "ECN negotiated: data is ECN-capable, the sender reduces once per window on ECE (RFC 3168); on by default for algorithms that need it (dctcp, prague)"),
        /// How the sender answers ECN-Echo.
        ecn_response: EcnResponse
            => ("ecn_response", Kind::Choice(&["linux", "ns2"]), "", "the sender's answer to ECN-Echo: 'linux' (cwnd to the algorithm's ssthresh, at least 1, once per window; tcp_enter_cwr) or 'ns2' (TcpAgent::ecn: cwnd = ⌊cwnd/2⌋, so 0 at a window of 1 until the retransmission timer expires; also inside a timeout's window; no ACK carrying ECE opens the window; a second ECN at cwnd ≤ 1 backs the timer off)"),
        /// The codepoint of ECN-capable data.
        ecn_codepoint: EcnCodepoint
            => ("ecn_codepoint", Kind::Choice(&["ect0", "ect1"]), "", "codepoint of ECN-capable data: 'ect0' (classic, RFC 3168) or 'ect1' (L4S, RFC 9331)"),
        /// The receiver's ECN feedback.
        ecn_feedback: EcnFeedback
            => ("ecn_feedback", Kind::Choice(&["classic", "dctcp", "accecn"]), "", "receiver's ECN feedback: 'classic' (ECE from a CE until CWR, RFC 3168 §6.1.3), 'dctcp' (ECE follows each segment's CE state, ACK at once when it changes; RFC 8257 §3.2; dctcp's default) or 'accecn' (every ACK carries the count of CE-marked segments, RFC 9768; prague's default)"),
        pacing: PacingCfg
            => ("pacing", Kind::Choice(&["off", "linux", "window"]), "", "'off', 'linux' (rate = ratio·mss·max(cwnd, in flight)/srtt), 'window' (one segment per srtt/cwnd, ns-2 studies)"),
        pacing_ss_ratio: f64
            => ("pacing_ss_ratio", Kind::Ratio { max: 100.0 }, "", "Linux pacing ratio while cwnd < ssthresh/2 (tcp_pacing_ss_ratio 200%)"),
        pacing_ca_ratio: f64
            => ("pacing_ca_ratio", Kind::Ratio { max: 100.0 }, "", "Linux pacing ratio otherwise (tcp_pacing_ca_ratio 120%)"),
        /// Linux TSO/GSO autosizing of paced bursts (tcp_tso_autosize, Linux
        /// 3.12–5.17): when the pacing timer allows, a Linux-paced flow releases
        /// max(min_tso_segs, ⌊(rate >> 10) / mss⌋) segments (under 64 KB) back to
        /// back, then waits their length at the pacing rate. `false`: one
        /// segment per release (ns-3). Not used by `pacing = "window"`.
        tso: bool
            => ("tso", Kind::Bool, "", "Linux TSO/GSO autosizing: a Linux-paced flow sends max(min_tso_segs, rate·1 ms/mss) segments per release, ≤ 64 KB (false: one, as ns-3)"),
        /// Fewest segments per paced burst (sysctl tcp_min_tso_segs, 2); an
        /// algorithm with a min_tso_segs hook (BBR) overrides it.
        min_tso_segs: u32
            => ("min_tso_segs", Kind::Int { lo: 1, hi: MAX_TSO_SEGS as u64 }, "segments", "fewest segments per paced release (sysctl tcp_min_tso_segs 2; BBR decides its own: 1 below 1.2 Mb/s, else 2)"),
        /// Receiver ACKs each of the first `quickack` data segments at once
        /// (Linux quick-ACK mode at connection start; Linux uses up to 16).
        quickack: u32
            => ("quickack", Kind::Int { lo: 0, hi: u32::MAX as u64 }, "segments", "quick-ACK quota: the receiver ACKs each of the first n data segments at once (Linux: 16, TCP_MAX_QUICKACKS, and at most rwnd/(2·mss); re-armed after an idle gap longer than the RTO with delack_timer = 'linux')"),
        /// How the delayed-ACK timer is set: `linux` (adaptive) or `fixed`.
        delack_timer: DelackTimer
            => ("delack_timer", Kind::Choice(&["linux", "fixed"]), "", "'linux' (adaptive ato from 40 ms up to delack_timeout, bounded by max(RTT, 40 ms); short segments ACKed at once; quick-ACK re-armed after idle; tcp_event_data_recv / tcp_send_delayed_ack) or 'fixed' (delack_timeout; ns-2 DelAckSink)"),
        /// RFC 2883 D-SACK: the receiver reports a duplicate segment in the
        /// first SACK block, and the sender reads it (undo, RACK's reordering
        /// window). Needs sack = "rfc6675".
        dsack: bool
            => ("dsack", Kind::Bool, "", "RFC 2883 D-SACK: the receiver reports a duplicate segment in the first SACK block; the sender uses it for undo and RACK's reordering window (needs sack = 'rfc6675')"),
        /// RFC 8985 RACK: losses detected by time (a segment sent before one
        /// already delivered, by more than RTT + reordering window, is lost),
        /// with the reordering timer. Needs sack = "rfc6675".
        rack: bool
            => ("rack", Kind::Bool, "", "RFC 8985 RACK: a segment sent before one already delivered is lost once RTT + reordering window (min_rtt/4, grown by D-SACKs) have passed; with DupThresh as Linux tcp_recovery = 1 (needs sack = 'rfc6675')"),
        /// RFC 8985 §7 Tail Loss Probe. Needs sack = "rfc6675".
        tlp: bool
            => ("tlp", Kind::Bool, "", "RFC 8985 §7 tail loss probe: after 2·SRTT (+ min_rto with one segment out) without an ACK, send new data or the last segment (needs sack = 'rfc6675')"),
        /// Undo a reduction that D-SACKs or timestamps prove spurious (Linux
        /// tcp_try_undo_recovery / _dsack / _partial / _loss). Needs sack = "rfc6675".
        undo: bool
            => ("undo", Kind::Bool, "", "undo a window reduction that D-SACKs or timestamps prove spurious (Linux tcp_try_undo_*) through the algorithm's undo_cwnd (needs sack = 'rfc6675')"),
        /// RFC 5682 F-RTO, SACK-enhanced as Linux tcp_process_loss: an RTO
        /// after which never-retransmitted data is acknowledged is spurious and
        /// undone. Needs sack = "rfc6675".
        frto: bool
            => ("frto", Kind::Bool, "", "RFC 5682 F-RTO, SACK-enhanced as Linux: an RTO followed by ACKs of never-retransmitted data is spurious and undone (needs sack = 'rfc6675')"),
        /// Restart the window after idle (RFC 2861 / Linux
        /// tcp_slow_start_after_idle, on by default in Linux).
        idle_restart: bool
            => ("idle_restart", Kind::Bool, "", "restart the window after an idle period longer than the RTO when the application writes again (RFC 2861, Linux tcp_slow_start_after_idle)"),
    }
}

/// Options that need the RFC 6675 scoreboard; a stack turns them on only
/// where it is (`deserialize_with_stack`, Python `for_group`).
pub const SCOREBOARD_OPTIONS: [&str; 6] = ["prr", "dsack", "rack", "tlp", "undo", "frto"];

impl Default for TcpCfg {
    fn default() -> Self {
        TcpCfg::for_stack(Stack::default(), DEFAULT_CC)
    }
}

impl TcpCfg {
    /// The loss recovery without SACK of this flow's algorithm.
    pub fn recovery_flavour(&self) -> crate::cc::params::RecoveryFlavour {
        match &self.cc_external {
            Some(e) => e.recovery.into(),
            None => crate::cc::recovery_flavour(&self.cc),
        }
    }

    /// Every option as `stack` sets it for algorithm `cc` (the table in
    /// docs/scenario.md). Tahoe has no fast recovery for SACK to drive, so
    /// its SACK options stay off whatever the stack.
    pub fn for_stack(stack: Stack, cc: &str) -> Self {
        let sack_ok = crate::cc::recovery_flavour(cc) != crate::cc::params::RecoveryFlavour::Tahoe;
        // An algorithm that needs ECN (Linux TCP_CONG_NEEDS_ECN: DCTCP)
        // turns it on for its flows with the codepoint and feedback it
        // expects (tcp_ca_needs_ecn → tcp_ecn_send_syn; the receiver's
        // feedback is its own algorithm's, dctcp_cwnd_event).
        let need = crate::cc::spec(cc).and_then(|s| s.ecn);
        // Linux 6.x: sysctl defaults (tcp_sack, tcp_timestamps = 1), PRR
        // (tcp_input.c since 3.2), no ABC limit in slow start (tcp_slow_start
        // since 3.8), TCP_RTO_MAX 120 s, HZ = 1000 jiffies.
        let linux = TcpCfg {
            stack,
            cc: cc.to_string(),
            cc_preset: None,
            cc_params: Default::default(),
            cc_external: None,
            mss: 1448,
            header_bytes: 40,
            initial_window: 10,
            initial_ssthresh: None,
            rto: RtoModel::Linux,
            min_rto_ps: 200 * PS_PER_MS,
            initial_rto_ps: PS_PER_S,
            max_rto_ps: 120 * PS_PER_S,
            clock_granularity_ps: PS_PER_MS,
            max_cwnd: None,
            rwnd_bytes: None,
            rcv_autotune: true, // tcp_moderate_rcvbuf = 1, tcp_rmem = 4096 131072 33554432
            delayed_ack: true,
            delack_timeout_ps: 200 * PS_PER_MS,
            delack_count: 2,
            handshake: false,
            dupthresh: 3,
            dupthresh_frac: 0,
            abc_limit: 0,
            sack: if sack_ok { SackCfg::Rfc6675 } else { SackCfg::Off },
            sack_blocks: 3,
            growth_per: GrowthPer::Segment,
            ssthresh_base: SsthreshBase::Cwnd,
            rto_ssthresh: RtoSsthresh::Linux,
            cwnd_limited_gate: true,
            limited_transmit: false,
            impatient: false,
            prr: sack_ok,
            timestamps: true,
            ecn: need.is_some(),
            ecn_codepoint: need.map_or(EcnCodepoint::Ect0, |n| n.codepoint),
            ecn_feedback: need.map_or(EcnFeedback::Classic, |n| n.feedback),
            ecn_response: EcnResponse::Linux, // tcp_enter_cwr / tcp_cwnd_reduction
            ts_option_bytes: 12,              // TCPOLEN_TSTAMP_ALIGNED (include/net/tcp.h)
            fast_retransmit_first: true,
            ack_hooks_first: true, // tcp_ack: tcp_in_ack_event before tcp_fastretrans_alert
            sack1_stop_at_end: false,
            pacing: PacingCfg::Off,
            pacing_ss_ratio: 2.0,
            pacing_ca_ratio: 1.2,
            tso: true,
            min_tso_segs: 2,
            quickack: 16, // TCP_MAX_QUICKACKS
            delack_timer: DelackTimer::Linux,
            receiver_sack: true,
            idle_restart: true,
            // Linux ≥ 4.18: tcp_dsack = 1, tcp_recovery = 1 (RACK with
            // DupThresh), tcp_early_retrans = 3 (TLP), tcp_frto = 2.
            dsack: sack_ok,
            rack: sack_ok,
            tlp: sack_ok,
            undo: sack_ok,
            frto: sack_ok,
        };
        // ns-2.35: Agent/TCP with Agent/TCPSink (tcl/lib/ns-default.tcl).
        // Not taken: window_ 20 (every study sets its own; use rwnd).
        let ns2 = TcpCfg {
            mss: 1000,          // packetSize_ 1000
            header_bytes: 40,   // tcpip_base_hdr_size_ 40
            initial_window: 2,  // windowInit_ 2
            handshake: true,    // syn_ true
            timestamps: false,  // timestamps_ false
            sack: SackCfg::Off, // Agent/TCP/Sack1 is a separate agent
            prr: false,
            dsack: false,
            rack: false,
            tlp: false,
            undo: false,
            frto: false,
            limited_transmit: true,             // singledup_ 1
            abc_limit: 1,                       // opencwnd: +1 per ACK in slow start
            growth_per: GrowthPer::Ack,         // opencwnd: per ACK, increase_num_ 1
            cwnd_limited_gate: false,           // opencwnd on every new ACK
            rto_ssthresh: RtoSsthresh::Ns2,     // timeout(): slowdown(CLOSE_SSTHRESH_HALF|...)
            delayed_ack: false,                 // Agent/TCPSink ACKs every packet
            rcv_autotune: false,                // TCPSink advertises no window (the sender's window_ caps)
            delack_timeout_ps: 100 * PS_PER_MS, // TCPSink/DelAck interval_
            delack_timer: DelackTimer::Fixed,
            quickack: 0,
            rto: RtoModel::Ns2,
            min_rto_ps: 200 * PS_PER_MS,          // minrto_ 0.2
            initial_rto_ps: 3 * PS_PER_S,         // rtxcur_init_ 3.0
            max_rto_ps: 60 * PS_PER_S,            // maxrto_ 60
            clock_granularity_ps: 10 * PS_PER_MS, // tcpTick_ 0.01
            impatient: true,                      // Newreno newreno_changes1_ 1
            ecn_response: EcnResponse::Ns2,       // TcpAgent::ecn → slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF)
            ts_option_bytes: 10,                  // ts_option_size_ 10
            ack_hooks_first: false,               // the order of model versions ≤ 16, not checked against ns-2's agents
            ..linux.clone()
        };
        match stack {
            Stack::Linux => linux,
            Stack::Ns2 => ns2,
            // ns-2.27 (CVS tag of 2004-01-18), tcl/lib/ns-default.tcl where it
            // differs from ns-2.35 in what ccsim models; windowInit_ 2
            // (2001-05-26), syn_ true (2001-05-17), singledup_ 1
            // (2001-11-28), tcpTick_ 0.01 (2002-03-07), rfc2988_ true
            // (2002-03-07), newreno_changes1_ 1 and partial_window_deflation_
            // 1 are as in ns-2.35 already.
            Stack::Ns2_27 => TcpCfg {
                min_rto_ps: PS_PER_S,           // minrto_ 1 ("set to 1 on 2001/05/14"; 0.2 from 2004-10-14)
                initial_rto_ps: 6 * PS_PER_S,   // rtxcur_init_ 6.0
                max_rto_ps: 100_000 * PS_PER_S, // maxrto_ 100000
                dupthresh_frac: 100,            // numdupacksFrac_ 100 ("Added 2002/10/18"; -1 in 2.35)
                fast_retransmit_first: false,   // no bugfix_ss_ ("added on 2006/06/13")
                sack1_stop_at_end: true,        // Sack1TcpAgent::send_much: ... && t_seqno_ < curseq_
                ..ns2
            },
        }
    }
}

impl TcpCfg {
    /// `f` names a field of the flow these options belong to. Bounds and
    /// rules come from the option schema (config/schema.rs).
    pub fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ConfigError> {
        let t = self;
        for (k, v) in [
            ("min_rto", t.min_rto_ps),
            ("initial_rto", t.initial_rto_ps),
            ("max_rto", t.max_rto_ps),
            ("clock_granularity", t.clock_granularity_ps),
            ("delack_timeout", t.delack_timeout_ps),
        ] {
            check_time(|| f(&format!("tcp.{k}")), v)?;
        }
        if t.cc_external.is_some() {
            return self.validate_external(f);
        }
        let Some(spec) = crate::cc::spec(&t.cc) else {
            return err(
                f("tcp.cc"),
                format!("unknown algorithm {:?}; accepted: {}", t.cc, crate::cc::names().join(", ")),
            );
        };
        if let Err((k, m)) = crate::cc::params::resolve(spec, t.cc_preset.as_deref(), &t.cc_params) {
            return err(f(&format!("tcp.{k}")), m);
        }
        if let Err(b) = super::schema::tcp_rules(t) {
            return err(f(&format!("tcp.{}", b.option)), format!("got {}; expected {}", b.got, b.expected));
        }
        Ok(())
    }

    /// An algorithm the embedding program builds: its name must not hide a
    /// built-in, a builder must be installed, and its parameters are its
    /// own to check (the Python front end does, with the class).
    fn validate_external(&self, f: &dyn Fn(&str) -> String) -> Result<(), ConfigError> {
        if crate::cc::spec(&self.cc).is_some() {
            return err(
                f("tcp.cc"),
                format!("{:?} is a built-in algorithm; an external one needs its own name", self.cc),
            );
        }
        if !crate::cc::external::available() {
            return err(
                f("tcp.cc"),
                format!(
                    "{:?} is an external algorithm ({}); this program cannot build one (run it through ccsim's Python package)",
                    self.cc,
                    self.cc_external.as_ref().map_or("", |e| e.source.as_str())
                ),
            );
        }
        if self.cc_preset.is_some() {
            return err(f("tcp.cc_preset"), "an external algorithm has no presets; give cc_params".to_string());
        }
        if let Err(b) = super::schema::tcp_rules(self) {
            return err(f(&format!("tcp.{}", b.option)), format!("got {}; expected {}", b.got, b.expected));
        }
        Ok(())
    }

    /// Bytes of one full-sized data packet on the wire.
    pub fn packet_bytes(&self) -> u64 {
        self.mss as u64 + self.header_bytes as u64 + self.option_bytes() as u64
    }

    /// Option bytes on every packet: the timestamp option when it is on.
    pub fn option_bytes(&self) -> u32 {
        if self.timestamps {
            self.ts_option_bytes
        } else {
            0
        }
    }
}

/// Deserialize a flow's TCP options: the stack they name (default Linux)
/// fills every option they leave out, so explicit options override the
/// stack's values. A stack's PRR, D-SACK, RACK, TLP, undo and F-RTO apply where the recovery has the
/// scoreboard they work on: unless given, `SCOREBOARD_OPTIONS` are on only
/// with sack = "rfc6675" (python/ccsim/scenario/tcp_options.py `for_group` does the same).
///
/// A flow's `tcp` may instead be the index of one of the scenario's
/// `tcp_tables` (`deserialize_tables`), which the front end writes once for
/// all the flows that share a table: a 15,684-flow mix was 31 MB of JSON,
/// 29 % of its run's instructions in the core were spent reading it.
pub fn deserialize_with_stack<'de, D: serde::Deserializer<'de>>(d: D) -> Result<std::sync::Arc<TcpCfg>, D::Error> {
    use serde::de::Error;
    let given = match serde_json::Value::deserialize(d)? {
        serde_json::Value::Object(given) => given,
        serde_json::Value::Number(n) => {
            let k = n.as_u64().unwrap_or(u64::MAX);
            return SHARED.with_borrow(|t| usize::try_from(k).ok().and_then(|k| t.get(k).cloned())).ok_or_else(|| {
                D::Error::custom(format!("tcp: {n} is not the index of a table in tcp_tables (given before flows)"))
            });
        }
        _ => return Err(D::Error::custom("tcp: expected a table of options or the index of one in tcp_tables")),
    };
    // Scenarios with thousands of flows (web sessions) repeat the same
    // table: the last one and its result are kept, per thread, as the
    // merge below cost about 120,000 instructions a flow (a 15,000-flow
    // scenario spent 1.9 G instructions here), and the flows share the
    // result. A pure function of `given`, so the cache changes no result.
    type Memo = Option<(serde_json::Map<String, serde_json::Value>, std::sync::Arc<TcpCfg>)>;
    thread_local! {
        static LAST: std::cell::RefCell<Memo> = const { std::cell::RefCell::new(None) };
    }
    if let Some(t) = LAST.with_borrow(|l| l.as_ref().filter(|(g, _)| *g == given).map(|(_, t)| t.clone())) {
        return Ok(t);
    }
    let key = given.clone();
    let t = std::sync::Arc::new(merge_with_stack::<D>(given)?);
    LAST.set(Some((key, t.clone())));
    Ok(t)
}

thread_local! {
    /// The `tcp_tables` of the scenario being read on this thread (set by
    /// `deserialize_tables`, cleared by `SharedTables`).
    static SHARED: std::cell::RefCell<Vec<std::sync::Arc<TcpCfg>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Clears the shared tables when a scenario has been read (or failed to).
pub(crate) struct SharedTables;

impl SharedTables {
    pub(crate) fn scope() -> Self {
        SHARED.set(Vec::new());
        SharedTables
    }
}

impl Drop for SharedTables {
    fn drop(&mut self) {
        SHARED.set(Vec::new());
    }
}

/// Deserialize the scenario's `tcp_tables`: each merged with its stack once
/// (as a flow's own table would be), then kept for the flows that name one
/// by its index. JSON is read in document order, so the front end writes
/// `tcp_tables` before `flows`.
pub fn deserialize_tables<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<std::sync::Arc<TcpCfg>>, D::Error> {
    use serde::de::Error;
    let raw: Vec<serde_json::Map<String, serde_json::Value>> = Vec::deserialize(d)?;
    let mut out = Vec::with_capacity(raw.len());
    for (k, given) in raw.into_iter().enumerate() {
        let t = merge_with_stack::<D>(given).map_err(|e| D::Error::custom(format!("tcp_tables[{k}]: {e}")))?;
        out.push(std::sync::Arc::new(t));
    }
    SHARED.set(out.clone());
    Ok(out)
}

fn merge_with_stack<'de, D: serde::Deserializer<'de>>(
    given: serde_json::Map<String, serde_json::Value>,
) -> Result<TcpCfg, D::Error> {
    use serde::de::Error;
    let stack = match given.get("stack") {
        Some(v) => Stack::deserialize(v).map_err(|e| D::Error::custom(format!("tcp.stack: {e}")))?,
        None => Stack::default(),
    };
    let cc = given.get("cc").and_then(|v| v.as_str()).unwrap_or(DEFAULT_CC);
    let mut full = serde_json::to_value(TcpCfg::for_stack(stack, cc)).map_err(D::Error::custom)?;
    let map = full.as_object_mut().expect("TcpCfg serializes to an object");
    let given_keys: Vec<bool> = SCOREBOARD_OPTIONS.iter().map(|k| given.contains_key(*k)).collect();
    map.extend(given);
    let mut t = TcpCfg::deserialize(full).map_err(D::Error::custom)?;
    let board = t.sack == SackCfg::Rfc6675;
    for (k, g) in SCOREBOARD_OPTIONS.iter().zip(given_keys) {
        if !g {
            let v = match *k {
                "prr" => &mut t.prr,
                "dsack" => &mut t.dsack,
                "rack" => &mut t.rack,
                "tlp" => &mut t.tlp,
                "undo" => &mut t.undo,
                _ => &mut t.frto,
            };
            *v &= board;
        }
    }
    Ok(t)
}

/// SACK option bytes on the wire (RFC 2018 with two NOPs: 4 + 8 per block;
/// the timestamp option is `TcpCfg::ts_option_bytes`).
/// Largest tcp.min_tso_segs (Linux's sysctl is a u8, at least 1).
pub const MAX_TSO_SEGS: u32 = 255;
pub fn sack_option_bytes(blocks: u32) -> u32 {
    if blocks == 0 {
        0
    } else {
        4 + 8 * blocks
    }
}
