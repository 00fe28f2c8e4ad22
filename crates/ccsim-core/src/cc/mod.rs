//! Congestion-control interface, modelled on Linux `struct tcp_congestion_ops`
//! (include/net/tcp.h, net/ipv4/tcp_cong.c, Linux 6.x). Hook names and
//! meanings are the kernel's so an algorithm file can be read beside its
//! kernel counterpart. An algorithm never schedules events and never reads a
//! clock: the sender hands it `now`, the ACK's newly acked count and RTT
//! samples. Loss *recovery* (Tahoe / Reno / NewReno, SACK, PRR) lives in the
//! sender, as in Linux; an algorithm only says how the window grows and how
//! far it falls.
//!
//! Units follow Linux: `cwnd` and `ssthresh` in segments, growth driven by the
//! number of segments newly acknowledged (`acked`), not the number of ACKs.

pub mod bbr;
pub mod bbr3;
pub mod bic;
pub mod copa;
pub mod cubic;
pub mod dctcp;
pub mod external;
pub mod highspeed;
pub mod hystart;
pub mod params;
pub mod prague;
pub mod reno;
pub mod scalable;
pub mod vegas;
pub mod westwood;

use crate::units::SimTime;
use params::{AlgoSpec, Params};

/// The part of the connection an algorithm may read and change (Linux's
/// `tcp_sock` subset used by congestion modules). `Default` is all zeros
/// (Open state, no samples): a placeholder to fill, not a connection.
#[derive(Clone, Debug, Default)]
pub struct CcState {
    pub now: SimTime,
    /// Congestion window, segments (snd_cwnd).
    pub cwnd: u32,
    /// Slow-start threshold, segments (snd_ssthresh); u32::MAX = infinite.
    pub ssthresh: u32,
    /// Fractional growth counter (snd_cwnd_cnt).
    pub cwnd_cnt: u32,
    /// Upper bound on cwnd (snd_cwnd_clamp).
    pub cwnd_clamp: u32,
    /// Segments sent and not yet cumulatively acknowledged (FlightSize).
    pub in_flight: u32,
    /// Smoothed RTT, if a sample has been taken.
    pub srtt: Option<SimTime>,
    /// Smallest RTT sample seen.
    pub min_rtt: Option<SimTime>,
    /// cwnd before the last reduction (for undo_cwnd).
    pub prior_cwnd: u32,
    pub mss: u32,
    /// Segments delivered so far, cumulatively or by SACK (Linux tp->delivered).
    pub delivered: u64,
    /// Of `delivered`, the segments delivered by ACKs that carried ECN-Echo
    /// (Linux tp->delivered_ce, counted by tcp_count_delivered with FLAG_ECE).
    /// Under RFC 3168 feedback an ECE ACK means "CE seen since the last CWR",
    /// so this over-counts marks; DCTCP-style feedback makes it exact.
    pub delivered_ce: u64,
    /// Segments in the network by RFC 6675's reckoning (Linux
    /// tcp_packets_in_flight): outstanding − SACKed − lost + retransmitted.
    /// Without SACK it equals `in_flight`.
    pub pipe: u32,
    /// Pacing rate the algorithm asks for, bytes per second (BBR sets it;
    /// Linux sk_pacing_rate). None = let the sender's pacing mode decide.
    pub pacing_rate: Option<f64>,
    /// True while the application leaves the window unused (tcp_rate.c).
    pub app_limited: bool,
    /// Oldest unacknowledged segment (snd_una), in segments.
    pub snd_una: u64,
    /// Next new segment to send (Linux snd_nxt: highest sent + 1).
    pub snd_nxt: u64,
    /// Current congestion state (icsk_ca_state).
    pub ca_state: CaState,
    /// When `delivered` last grew (tp->delivered_mstamp).
    pub delivered_at: SimTime,
    /// When data was last sent (tp->lsndtime); read by TxStart handlers.
    pub lsndtime: SimTime,
    /// The sender paces its segments (Linux sk_pacing_status != NONE).
    pub paced: bool,
    /// A loss-based reduction halves cwnd (Linux tcp_reno_ssthresh, ns-2
    /// slowdown) rather than FlightSize (RFC 5681 eq. 4); `TcpCfg::ssthresh_base`.
    pub ssthresh_from_cwnd: bool,
    /// Set by the algorithm to mark the flow application-limited from now
    /// until what is in flight is delivered (BBR in PROBE_RTT; Linux writes
    /// tp->app_limited). The sender applies and clears it.
    pub mark_app_limited: bool,
    /// Segments marked lost so far, a retransmission lost again counting
    /// again (Linux tp->lost, summed by tcp_mark_skb_lost).
    pub lost: u64,
    /// The flight filled cwnd when the sender last sent (Linux
    /// tp->is_cwnd_limited, as tcp_cwnd_validate keeps it for the window).
    pub is_cwnd_limited: bool,
    /// ECN was negotiated for this flow (Linux TCP_ECN_OK).
    pub ecn_ok: bool,
    /// The retransmission timeout now, back-off included (Linux
    /// icsk_rto), as the flow's RTO model computes it. This and the three
    /// fields below are kept only for an algorithm whose
    /// `CongestionOps::reads_conn` is true (the built-ins read none of them;
    /// computing the RTO on every ACK cost them 1.4 % of their instructions).
    pub rto: SimTime,
    /// The variation term the RTO adds to the smoothed RTT (Linux
    /// tp->rttvar_us, RFC 6298's K·RTTVAR), if a sample has been taken.
    pub rttvar: Option<SimTime>,
    /// The window the receiver offers, segments (u32::MAX: unlimited;
    /// Linux tp->snd_wnd in segments).
    pub rwnd: u32,
    /// Segments the application has handed over that are not yet sent
    /// (u64::MAX for a bulk source, which always has more).
    pub app_backlog: u64,
}

impl CcState {
    /// The window a loss-based reduction starts from: cwnd (Linux
    /// tcp_reno_ssthresh, ns-2 TcpAgent::slowdown) or FlightSize (RFC 5681
    /// eq. 4), per `ssthresh_from_cwnd`.
    #[inline]
    pub fn reduction_base(&self) -> u32 {
        if self.ssthresh_from_cwnd {
            self.cwnd
        } else {
            self.in_flight
        }
    }

    /// Halve the reduction base, at least 2 segments.
    #[inline]
    pub fn half_window(&self) -> u32 {
        (self.reduction_base() / 2).max(2)
    }

    /// Linux `tcp_in_slow_start`.
    #[inline]
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// Linux's congestion states (enum tcp_ca_state), in the kernel's order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    #[default]
    Open,
    Disorder,
    Cwr,
    Recovery,
    Loss,
}

/// `in_ack_event` flag: the ACK carried ECN-Echo (Linux CA_ACK_ECE,
/// include/net/tcp.h). Linux also passes CA_ACK_SLOWPATH (1) and
/// CA_ACK_WIN_UPDATE (2); neither is modelled (no header-prediction fast
/// path, no receive window), so they are never set. An ACK with ECE always
/// takes Linux's slow path, so CA_ACK_ECE is raised on exactly the ACKs
/// Linux raises it on.
pub const CA_ACK_ECE: u32 = 4;

/// Linux's `enum tcp_ca_event`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndEvent {
    TxStart,
    CwndRestart,
    CompleteCwr,
    Loss,
    EcnNoCe,
    EcnIsCe,
    /// A tail-loss probe repaired a loss (Linux CA_EVENT_TLP_RECOVERY, sent
    /// by tcp_process_tlp_ack just before the window reduction; the BBRv3
    /// kernel adds it).
    TlpRecovery,
}

/// A segment the sender just marked lost, as the BBRv3 kernel's
/// `skb_marked_lost` hook sees it: the send-time record (tcp_skb_cb.tx)
/// against the connection now.
#[derive(Clone, Copy, Debug, Default)]
pub struct LostSkb {
    /// Segments in flight when it was sent, itself included (tx.in_flight).
    pub tx_in_flight: u32,
    /// Segments marked lost since it was sent, itself included
    /// (tp->lost − tx.lost).
    pub lost: u32,
    /// It was sent while the flow was application-limited.
    pub is_app_limited: bool,
}

/// One ACK's worth of information for `pkts_acked` (Linux `ack_sample`).
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    /// Segments newly acknowledged by this ACK.
    pub acked: u32,
    /// RTT sample from this ACK (None under Karn's rule).
    pub rtt: Option<SimTime>,
    /// FlightSize before this ACK was processed.
    pub in_flight: u32,
}

/// One delivery-rate sample (Linux `struct rate_sample`, net/ipv4/tcp_rate.c;
/// draft-cheng-iccrg-delivery-rate-estimation-01).
#[derive(Clone, Copy, Debug, Default)]
pub struct RateSample {
    /// Segments delivered over `interval`; None when this ACK gives no
    /// valid sample (nothing delivered, or the interval was shorter than the
    /// minimum RTT, which only ACK compression or reordering can cause).
    pub delivered: Option<u64>,
    pub interval: SimTime,
    /// The sample was taken while the flow was application-limited, so it
    /// may under-estimate the path.
    pub is_app_limited: bool,
    /// Segments newly acked or SACKed by this ACK.
    pub acked_sacked: u32,
    /// Segments newly marked lost by this ACK.
    pub losses: u32,
    /// `pipe` before this ACK.
    pub prior_in_flight: u32,
    /// RTT sample of this ACK, if any.
    pub rtt: Option<SimTime>,
    /// `delivered` when the sampled segment was sent (rs->prior_delivered);
    /// 0 when the ACK delivered nothing.
    pub prior_delivered: u64,
    /// Segments this ACK reported as CE-marked (the L4S kernel's
    /// rs->ece_delta: AccECN's count increase, or everything an ECE ACK
    /// delivered under RFC 3168 / DCTCP feedback).
    pub ece_delta: u32,
    /// Segments in flight when the sampled segment was sent, itself included
    /// (BBRv3 kernel rs->tx_in_flight); 0 when the ACK delivered nothing.
    pub tx_in_flight: u32,
    /// Segments marked lost between the sampled segment's send and this ACK
    /// (BBRv3 kernel rs->lost = tp->lost − tx.lost).
    pub lost: u32,
    /// Of the segments delivered since the sampled one was sent, those
    /// delivered CE-marked (BBRv3 kernel rs->delivered_ce).
    pub delivered_ce: u32,
    /// Segments delivered since the sampled segment was sent, also when the
    /// interval is too short to make a rate and `delivered` is None (Linux
    /// rs->delivered with rs->interval_us = −1); 0 when nothing was delivered.
    pub delivered_count: u64,
    /// The ACK carried ECN-Echo (BBRv3 kernel rs->is_ece).
    pub is_ece: bool,
    /// The ACK may be for a tail-loss probe's retransmission: it acknowledges
    /// exactly the probe's sequence (BBRv3 kernel rs->is_acking_tlp_retrans_seq).
    pub is_acking_tlp_retrans_seq: bool,
}

impl RateSample {
    /// Delivery rate in segments per second, if valid.
    pub fn rate_pps(&self) -> Option<f64> {
        match self.delivered {
            Some(d) if self.interval > 0 => Some(d as f64 * crate::units::PS_PER_S as f64 / self.interval as f64),
            _ => None,
        }
    }
}

pub trait CongestionOps {
    /// Linux-style name, as used in scenarios (`"newreno"`).
    fn name(&self) -> &'static str;
    /// Called once when the connection starts.
    fn init(&mut self, _tp: &mut CcState) {}
    /// New slow-start threshold after a loss (required, as in Linux).
    fn ssthresh(&mut self, tp: &CcState) -> u32;
    /// Grow the window on an ACK that acknowledges `acked` new segments while
    /// the flow is cwnd-limited and not in recovery (required).
    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32);
    /// Notification of a change of congestion state. Like Linux's hook it
    /// may set ssthresh: on entering Recovery it is called after
    /// `ssthresh` and the sender reduces to the value it leaves (DCTCP
    /// halves there, tcp_dctcp.c dctcp_state).
    fn set_state(&mut self, _tp: &mut CcState, _new: CaState) {}
    /// Notification of a window event. Like Linux's hook it may set cwnd
    /// and ssthresh (Westwood+ does at CompleteCwr and Loss).
    fn cwnd_event(&mut self, _tp: &mut CcState, _ev: CwndEvent) {}
    /// Called for every ACK before the window is grown (Linux
    /// `in_ack_event`), after the ACK's deliveries are counted (as since
    /// Linux 6.14, where it follows tcp_clean_rtx_queue); `acked` is the
    /// number of segments newly cumulatively acknowledged, 0 for a duplicate
    /// ACK; `flags` holds `CA_ACK_*` bits.
    fn in_ack_event(&mut self, _tp: &CcState, _acked: u32, _flags: u32) {}
    /// Per-ACK hook with RTT sample and acked count.
    fn pkts_acked(&mut self, _tp: &mut CcState, _sample: &AckSample) {}
    /// Window to restore after a spurious reduction (tcp_reno_undo_cwnd).
    fn undo_cwnd(&mut self, tp: &CcState) -> u32 {
        tp.cwnd.max(tp.prior_cwnd)
    }
    /// True if the algorithm runs its own window (and pacing) from rate
    /// samples (Linux `cong_control`, BBR). The sender then calls
    /// `cong_control` on every ACK instead of `cong_avoid` and leaves cwnd
    /// alone in recovery, CWR and at recovery exit; only an RTO still sets
    /// cwnd (to 1), as Linux's tcp_enter_loss does.
    fn has_cong_control(&self) -> bool {
        false
    }
    /// Per-ACK control with the delivery-rate sample.
    fn cong_control(&mut self, _tp: &mut CcState, _rs: &RateSample) {}
    /// A segment was just marked lost (the BBRv3 kernel's `skb_marked_lost`,
    /// called from tcp_mark_skb_lost after tp->lost counts it). `tp.lost` and
    /// `tp.cwnd` are current; other fields may date from the last ACK.
    fn skb_marked_lost(&mut self, _tp: &CcState, _skb: &LostSkb) {}
    /// Fewest segments per paced burst, if the algorithm decides it (Linux
    /// `min_tso_segs`, BBR); otherwise the sender's `tcp.min_tso_segs`.
    fn min_tso_segs(&self) -> Option<u32> {
        None
    }
    /// Segments per paced burst, if the algorithm sizes bursts itself in
    /// place of TSO autosizing (Linux `tso_segs`, TCP Prague).
    fn tso_segs(&self) -> Option<u32> {
        None
    }
    /// Names of the state variables the algorithm exports to the `cc_state`
    /// trace, units in the name (`bwe_bps`, `k_s`); `vars` writes their values
    /// in this order.
    fn var_names(&self) -> &'static [&'static str] {
        &[]
    }
    /// Current values of `var_names` (NaN where not yet defined).
    fn vars(&self, _tp: &CcState, _out: &mut Vec<f64>) {}
    /// The algorithm's own phase, if it has one (BBR's mode).
    fn mode(&self) -> Option<&'static str> {
        None
    }
    /// A periodic timer the algorithm asks for, its period (CCP's reports
    /// on a timer, Narayan et al. 2018): `on_timer` runs every period from
    /// the flow's start while its connection lasts. None: no timer.
    fn timer_interval(&self) -> Option<SimTime> {
        None
    }
    /// The algorithm's timer fired; it may change cwnd and the pacing rate.
    fn on_timer(&mut self, _tp: &mut CcState) {}
    /// Whether the algorithm reads `CcState::rto`, `rttvar`, `rwnd` and
    /// `app_backlog` (kept for it before every hook when true).
    fn reads_conn(&self) -> bool {
        false
    }
    /// The algorithm as `Any`, for a program that embeds the core and
    /// talks to an algorithm it built itself (the Gymnasium environment's
    /// agent); None for the core's own.
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        None
    }
}

/// GSO limit on one burst: 64 KB less one byte and the header reserve
/// (Linux sk_gso_max_size − 1 − MAX_TCP_HEADER; MAX_TCP_HEADER taken as 320).
pub const GSO_MAX_BYTES: f64 = 65536.0 - 1.0 - 320.0;

/// Segments per paced burst (Linux tcp_tso_autosize, 3.12–5.17): what the
/// pacing rate sends in 2^-10 s (`sk_pacing_rate >> sk_pacing_shift`), under
/// the GSO limit, at least `min_segs`. Linux 5.18 adds an allowance of
/// 64 KB >> (min_rtt / 512 µs), which vanishes above a few ms of RTT.
#[inline]
pub fn tso_autosize(rate_bytes_per_s: f64, mss: u32, min_segs: u32) -> u32 {
    let bytes = (rate_bytes_per_s / 1024.0).min(GSO_MAX_BYTES);
    ((bytes / mss as f64) as u32).max(min_segs)
}

/// Linux `tcp_slow_start`: grow cwnd by the acked count, never past
/// ssthresh; return the acked segments left over for congestion avoidance.
#[inline]
pub fn slow_start(tp: &mut CcState, acked: u32) -> u32 {
    let cwnd = tp.cwnd.saturating_add(acked).min(tp.ssthresh);
    let used = cwnd - tp.cwnd;
    tp.cwnd = cwnd.min(tp.cwnd_clamp);
    acked - used
}

/// Linux `tcp_cong_avoid_ai`: +1 segment for every `w` segments acked
/// (RFC 5681 §3.1 congestion avoidance with w = cwnd is "+1 SMSS per RTT",
/// counted in acked segments as the RFC's byte-counting alternative).
#[inline]
pub fn cong_avoid_ai(tp: &mut CcState, w: u32, acked: u32) {
    let w = w.max(1);
    // If credits accumulated at a higher w, apply them gently now.
    if tp.cwnd_cnt >= w {
        tp.cwnd_cnt = 0;
        tp.cwnd = tp.cwnd.saturating_add(1);
    }
    tp.cwnd_cnt += acked;
    if tp.cwnd_cnt >= w {
        let delta = tp.cwnd_cnt / w;
        tp.cwnd_cnt -= delta * w;
        tp.cwnd = tp.cwnd.saturating_add(delta);
    }
    tp.cwnd = tp.cwnd.min(tp.cwnd_clamp);
}

/// Linux `tcp_reno_cong_avoid`: slow start, then +1 segment per cwnd acked.
/// Reno, NewReno, Tahoe and Westwood(+) grow this way.
#[inline]
pub fn reno_cong_avoid(tp: &mut CcState, acked: u32) {
    let mut acked = acked;
    if tp.in_slow_start() {
        acked = slow_start(tp, acked);
        if acked == 0 {
            return;
        }
    }
    let w = tp.cwnd;
    cong_avoid_ai(tp, w, acked);
}

/// Every algorithm the core knows, in the order `ccsim list cc` prints them.
pub const ALGORITHMS: &[&AlgoSpec] = &[
    &reno::TAHOE,
    &reno::RENO,
    &reno::NEWRENO,
    &vegas::SPEC,
    &westwood::SPEC_WESTWOOD,
    &westwood::SPEC_PLUS,
    &highspeed::SPEC,
    &scalable::SPEC,
    &bic::SPEC,
    &cubic::SPEC,
    &bbr::SPEC,
    &bbr3::SPEC,
    &dctcp::SPEC,
    &prague::SPEC,
    &copa::SPEC,
];

pub fn spec(name: &str) -> Option<&'static AlgoSpec> {
    ALGORITHMS.iter().copied().find(|s| s.name == name)
}

/// The loss recovery without SACK of algorithm `name` (NewReno for a name
/// the core does not know; validation refuses those separately).
pub fn recovery_flavour(name: &str) -> params::RecoveryFlavour {
    spec(name).map_or(params::RecoveryFlavour::NewReno, |s| s.recovery)
}

pub fn names() -> Vec<&'static str> {
    ALGORITHMS.iter().map(|s| s.name).collect()
}

/// Build an algorithm from its scenario name and resolved parameters.
/// `rng` is the algorithm's own random stream (BBR's gain-cycle start).
pub fn build(name: &str, p: &Params, rng: crate::rng::Stream) -> Option<Box<dyn CongestionOps>> {
    Some((spec(name)?.build)(p, rng))
}

/// Build with default parameters (tests, benches).
pub fn by_name(name: &str) -> Option<Box<dyn CongestionOps>> {
    let p = params::resolve(spec(name)?, None, &Default::default()).ok()?;
    build(name, &p, crate::rng::Stream::new(0, crate::rng::StreamKind::Cc, 0))
}

#[cfg(test)]
pub(crate) mod testkit {
    use super::*;
    /// A network-free view of the connection for algorithm unit tests.
    pub fn state(cwnd: u32, ssthresh: u32) -> CcState {
        CcState {
            now: 0,
            cwnd,
            ssthresh,
            cwnd_cnt: 0,
            cwnd_clamp: u32::MAX,
            in_flight: cwnd,
            srtt: None,
            min_rtt: None,
            prior_cwnd: cwnd,
            mss: 1448,
            delivered: 0,
            delivered_ce: 0,
            pipe: cwnd,
            pacing_rate: None,
            app_limited: false,
            snd_una: 0,
            snd_nxt: cwnd as u64,
            ca_state: CaState::Open,
            ssthresh_from_cwnd: false,
            delivered_at: 0,
            lsndtime: 0,
            paced: false,
            mark_app_limited: false,
            lost: 0,
            is_cwnd_limited: true,
            ecn_ok: false,
            rto: 0,
            rttvar: None,
            rwnd: u32::MAX,
            app_backlog: u64::MAX,
        }
    }

    /// A fluid bottleneck for network-free tests of rate-based algorithms:
    /// B segments/s, propagation RTT T.
    pub struct Pipe {
        pub b: f64,
        pub t: SimTime,
    }

    /// One ACK for one segment. The pipe delivers min(B, inflight/T)
    /// segments per second with RTT max(T, inflight/B); between ACKs the
    /// sender adds segments at its pacing rate, never past cwnd (and is
    /// cwnd-limited when it reaches it).
    pub fn step(x: &mut dyn CongestionOps, tp: &mut CcState, p: &Pipe, inflight: &mut f64) -> SimTime {
        let t = p.t as f64 / crate::units::PS_PER_S as f64;
        let now_in = inflight.max(1.0);
        let rate = p.b.min(now_in / t);
        let rtt = (t.max(now_in / p.b) * crate::units::PS_PER_S as f64) as SimTime;
        let dt = 1.0 / rate;
        tp.now += (dt * crate::units::PS_PER_S as f64) as SimTime;
        tp.delivered += 1;
        tp.delivered_at = tp.now;
        let pace = tp.pacing_rate.unwrap_or(f64::INFINITY) / tp.mss as f64;
        let prior = now_in.round() as u32;
        let wanted = now_in - 1.0 + pace * dt;
        tp.is_cwnd_limited = wanted >= tp.cwnd as f64;
        *inflight = wanted.min(tp.cwnd as f64).max(0.0);
        tp.pipe = inflight.round() as u32;
        tp.in_flight = tp.pipe;
        let rs = RateSample {
            delivered: Some(prior as u64),
            delivered_count: prior as u64,
            interval: rtt,
            acked_sacked: 1,
            prior_in_flight: prior,
            tx_in_flight: prior,
            rtt: Some(rtt),
            prior_delivered: tp.delivered.saturating_sub(prior as u64),
            ..Default::default()
        };
        tp.srtt = Some(rtt);
        x.cong_control(tp, &rs);
        tp.mark_app_limited = false;
        rtt
    }

    /// Default parameters of an algorithm, for unit tests.
    pub fn defaults(name: &str) -> Params {
        params::resolve(spec(name).unwrap(), None, &Default::default()).unwrap()
    }

    /// Parameters of a preset with overrides, for unit tests.
    pub fn with(name: &str, preset: Option<&str>, kv: &[(&str, params::Value)]) -> Params {
        let o = kv.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        params::resolve(spec(name).unwrap(), preset, &o).unwrap()
    }
}
