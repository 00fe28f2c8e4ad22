//! The resolved scenario: what Python hands to the core after parsing units
//! and expanding topology builders. Every quantity is explicit and in base
//! units (bits per second, picoseconds, bytes, segments). Unknown fields are
//! refused, and `validate` re-checks every value so a bad scenario built by
//! hand from Python (or JSON) gets an error naming the field, never a panic.

use crate::units::SimTime;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub duration_ps: SimTime,
    pub seed: u64,
    /// Sampling period of the time series; None = no time series.
    #[serde(default)]
    pub sample_interval_ps: Option<SimTime>,
    pub nodes: Vec<String>,
    pub links: Vec<LinkCfg>,
    pub flows: Vec<FlowCfg>,
    /// UDP sources (constant bit rate, optionally ON-OFF).
    #[serde(default)]
    pub udp: Vec<UdpCfg>,
    /// Per-event traces (off by default: they grow with every packet).
    #[serde(default)]
    pub trace: TraceCfg,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceCfg {
    /// Every RTT sample a sender takes (table `rtt_trace`).
    #[serde(default)]
    pub rtt: bool,
    /// Every data segment sent (new or retransmitted) and every ACK received,
    /// with its sequence number (table `seq_trace`): the ns-2-style
    /// sequence-number plot.
    #[serde(default)]
    pub seq: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkCfg {
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay_ps: SimTime,
    pub queue: QueueCfg,
    #[serde(default)]
    pub loss: LossCfg,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "snake_case")]
pub enum QueueCfg {
    Droptail {
        #[serde(default)]
        limit_pkts: Option<u32>,
        #[serde(default)]
        limit_bytes: Option<u64>,
    },
    /// The RED family (queue/red.rs); None values are set automatically
    /// from the link as ns-2's initialize_params does.
    Red {
        #[serde(default)]
        limit_pkts: Option<u32>,
        #[serde(default)]
        limit_bytes: Option<u64>,
        #[serde(default)]
        min_th: Option<f64>,
        #[serde(default)]
        max_th: Option<f64>,
        #[serde(default = "red_max_p")]
        max_p: f64,
        #[serde(default)]
        w_q: Option<f64>,
        #[serde(default)]
        gentle: bool,
        #[serde(default = "default_true")]
        wait: bool,
        #[serde(default)]
        bytes: bool,
        #[serde(default = "red_mean_pktsize")]
        mean_pktsize: u32,
        #[serde(default)]
        ecn: bool,
        #[serde(default)]
        mark_p: Option<f64>,
        #[serde(default)]
        adaptive: RedAdaptiveCfg,
        #[serde(default = "five_ms")]
        target_delay_ps: SimTime,
        #[serde(default = "red_interval")]
        interval_ps: SimTime,
        #[serde(default)]
        alpha: Option<f64>,
        #[serde(default)]
        beta: Option<f64>,
        #[serde(default = "red_top")]
        top: f64,
        #[serde(default)]
        bottom: Option<f64>,
    },
    /// PIE (RFC 8033), decided at enqueue (queue/pie.rs).
    Pie {
        #[serde(default)]
        limit_pkts: Option<u32>,
        #[serde(default)]
        limit_bytes: Option<u64>,
        #[serde(default = "pie_15ms")]
        target_ps: SimTime,
        #[serde(default = "pie_15ms")]
        t_update_ps: SimTime,
        #[serde(default = "pie_alpha")]
        alpha: f64,
        #[serde(default = "pie_beta")]
        beta: f64,
        #[serde(default = "pie_max_burst")]
        max_burst_ps: SimTime,
        #[serde(default = "pie_mean_pktsize")]
        mean_pktsize: u32,
        #[serde(default)]
        ecn: bool,
        #[serde(default = "red_max_p")]
        mark_ecnth: f64,
        #[serde(default = "default_true")]
        derandomize: bool,
    },
    /// FQ-CoDel (RFC 8290), decided at dequeue (queue/fq_codel.rs).
    FqCodel {
        limit_pkts: u32,
        #[serde(default = "five_ms")]
        target_ps: SimTime,
        #[serde(default = "codel_interval")]
        interval_ps: SimTime,
        #[serde(default = "codel_mtu")]
        mtu: u32,
        #[serde(default)]
        ecn: bool,
        #[serde(default = "codel_mtu")]
        quantum: u32,
        #[serde(default = "fq_buckets")]
        buckets: u32,
    },
    /// CoDel (RFC 8289), decided at dequeue (queue/codel.rs).
    Codel {
        limit_pkts: u32,
        #[serde(default = "five_ms")]
        target_ps: SimTime,
        #[serde(default = "codel_interval")]
        interval_ps: SimTime,
        /// Bytes at or below which the queue never drops (MAXPACKET).
        #[serde(default = "codel_mtu")]
        mtu: u32,
        #[serde(default)]
        ecn: bool,
    },
}

fn pie_15ms() -> SimTime {
    15 * crate::units::PS_PER_MS
}
fn pie_alpha() -> f64 {
    0.125
}
fn pie_beta() -> f64 {
    1.25
}
fn pie_max_burst() -> SimTime {
    150 * crate::units::PS_PER_MS
}
fn pie_mean_pktsize() -> u32 {
    1500
}
fn codel_interval() -> SimTime {
    100 * crate::units::PS_PER_MS
}
fn fq_buckets() -> u32 {
    1024
}
fn codel_mtu() -> u32 {
    1514
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedAdaptiveCfg {
    #[default]
    Off,
    /// Floyd, Gummadi & Shenker 2001.
    Floyd,
    /// Feng, Kandlur, Saha & Shin 1999.
    Feng,
}

fn one() -> f64 {
    1.0
}
fn red_max_p() -> f64 {
    0.1
}
fn red_mean_pktsize() -> u32 {
    500
}
/// 5 ms: RED's automatic target delay and CoDel's target.
fn five_ms() -> SimTime {
    5 * crate::units::PS_PER_MS
}
fn red_interval() -> SimTime {
    crate::units::PS_PER_S / 2
}
fn red_top() -> f64 {
    0.5
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "snake_case")]
pub enum LossCfg {
    #[default]
    None,
    Bernoulli { p: f64 },
    /// Bit errors: P(loss) = 1 − (1 − ber)^(8·size).
    Ber { ber: f64 },
    /// Gilbert–Elliott per-packet chain (loss.rs).
    GilbertElliott {
        p: f64,
        r: f64,
        #[serde(default)]
        loss_good: f64,
        #[serde(default = "one")]
        loss_bad: f64,
    },
    /// Time-driven two-state channel (loss.rs); durations in ps.
    TwoState {
        good: crate::rng::Dist,
        bad: crate::rng::Dist,
        #[serde(default)]
        loss_good: f64,
        loss_bad: f64,
        to_bad_after_good: f64,
        to_bad_after_bad: f64,
    },
    /// 1-based numbers of the packets to lose, counted on this link direction.
    Scripted { drop: Vec<u64> },
    /// Test marker: set CE on every n-th ECN-capable packet.
    CeEvery { n: u64 },
    /// Test marker: set CE on these 1-based ECN-capable packets.
    CeScripted { mark: Vec<u64> },
}

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

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowCfg {
    pub src: u32,
    pub dst: u32,
    pub start_ps: SimTime,
    pub app: AppCfg,
    pub tcp: TcpCfg,
    #[serde(default)]
    pub label: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UdpCfg {
    pub src: u32,
    pub dst: u32,
    pub start_ps: SimTime,
    #[serde(default)]
    pub stop_ps: Option<SimTime>,
    /// Sending rate while ON, bit/s.
    pub rate_bps: u64,
    /// Bytes per packet on the wire.
    pub size: u32,
    /// ns-2 CBR random_: each gap scaled by U[0.5, 1.5).
    #[serde(default)]
    pub random: bool,
    /// ON and OFF period distributions (ps); both or neither.
    #[serde(default)]
    pub on: Option<crate::rng::Dist>,
    #[serde(default)]
    pub off: Option<crate::rng::Dist>,
    #[serde(default)]
    pub label: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "snake_case")]
pub enum AppCfg {
    /// Unlimited data.
    Bulk,
    /// A transfer of `bytes` application bytes; records its completion time.
    File { bytes: u64 },
    /// Unlimited data during ON periods, none during OFF periods; period
    /// lengths drawn from `on` and `off` (ps). Starts ON unless `start_off`.
    OnOff {
        on: crate::rng::Dist,
        off: crate::rng::Dist,
        #[serde(default)]
        start_off: bool,
    },
    /// Unlimited data during the listed [start, end) intervals (ps,
    /// increasing, disjoint), none outside them.
    Schedule { on: Vec<[SimTime; 2]> },
    /// Repeated transfers, each on a fresh connection: a size drawn from
    /// `size` (bytes), then, once the receiver has it all, a think time drawn
    /// from `think` (ps) before the next; `count` transfers at most.
    Repeat {
        size: crate::rng::Dist,
        think: crate::rng::Dist,
        #[serde(default)]
        count: Option<u64>,
    },
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TcpCfg {
    pub cc: String,
    /// Named parameter set of the algorithm (`ccsim list cc`).
    #[serde(default)]
    pub cc_preset: Option<String>,
    /// Single algorithm parameters, applied over the preset.
    #[serde(default)]
    pub cc_params: std::collections::BTreeMap<String, crate::cc::params::Value>,
    pub mss: u32,
    pub header_bytes: u32,
    pub initial_window: u32,
    /// Segments; None = "arbitrarily high" (RFC 5681 §3.1).
    pub initial_ssthresh: Option<u32>,
    pub min_rto_ps: SimTime,
    pub initial_rto_ps: SimTime,
    pub max_rto_ps: SimTime,
    /// RFC 6298's clock granularity G.
    pub clock_granularity_ps: SimTime,
    /// Per-flow cap on cwnd, segments (Linux snd_cwnd_clamp).
    pub max_cwnd: Option<u32>,
    /// Receiver's advertised window in bytes; None = unlimited.
    pub rwnd_bytes: Option<u64>,
    pub delayed_ack: bool,
    pub delack_timeout_ps: SimTime,
    /// Full-sized segments per delayed ACK (RFC 5681: 2).
    pub delack_count: u32,
    pub handshake: bool,
    pub dupthresh: u32,
    /// Appropriate Byte Counting limit L in slow start, segments per ACK
    /// (RFC 3465 §2.3; RFC 5681 eq. 2 is L = 1); 0 = no limit (Linux).
    pub abc_limit: u32,
    #[serde(default)]
    pub sack: SackCfg,
    /// Most SACK blocks per ACK (RFC 2018: 4, or 3 with timestamps).
    #[serde(default = "default_sack_blocks")]
    pub sack_blocks: u32,
    /// RFC 3042 limited transmit.
    #[serde(default)]
    pub limited_transmit: bool,
    /// RFC 6937 proportional rate reduction during SACK recovery.
    #[serde(default)]
    pub prr: bool,
    /// RFC 7323 timestamps: RTT from every ACK, 12 option bytes per packet.
    #[serde(default)]
    pub timestamps: bool,
    /// RFC 3168 ECN: data is ECT, the receiver echoes CE with ECE until CWR.
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub pacing: PacingCfg,
    #[serde(default = "default_ss_ratio")]
    pub pacing_ss_ratio: f64,
    #[serde(default = "default_ca_ratio")]
    pub pacing_ca_ratio: f64,
    /// Linux TSO/GSO autosizing of paced bursts (tcp_tso_autosize, Linux
    /// 3.12–5.17): when the pacing timer allows, a Linux-paced flow releases
    /// max(min_tso_segs, ⌊(rate >> 10) / mss⌋) segments (under 64 KB) back to
    /// back, then waits their length at the pacing rate. `false`: one
    /// segment per release (ns-3). Not used by `pacing = "window"`.
    #[serde(default = "default_true")]
    pub tso: bool,
    /// Fewest segments per paced burst (sysctl tcp_min_tso_segs, 2); an
    /// algorithm with a min_tso_segs hook (BBR) overrides it.
    #[serde(default = "default_min_tso_segs")]
    pub min_tso_segs: u32,
    /// Restart the window after idle (RFC 2861 / Linux
    /// tcp_slow_start_after_idle, on by default in Linux).
    #[serde(default = "default_true")]
    pub idle_restart: bool,
    /// Receiver ACKs each of the first `quickack` data segments at once
    /// (Linux quick-ACK mode at connection start; Linux uses up to 16).
    #[serde(default)]
    pub quickack: u32,
}

fn default_true() -> bool {
    true
}

fn default_min_tso_segs() -> u32 {
    2
}

fn default_sack_blocks() -> u32 {
    3
}
fn default_ss_ratio() -> f64 {
    2.0
}
fn default_ca_ratio() -> f64 {
    1.2
}

/// TCP option bytes on the wire (RFC 7323 timestamps with two NOPs; RFC 2018
/// SACK with two NOPs: 4 + 8 per block).
pub const TS_OPTION_BYTES: u32 = 12;
/// Largest tcp.min_tso_segs (Linux's sysctl is a u8, at least 1).
pub const MAX_TSO_SEGS: u32 = 255;
pub fn sack_option_bytes(blocks: u32) -> u32 {
    if blocks == 0 {
        0
    } else {
        4 + 8 * blocks
    }
}

/// Largest time accepted anywhere in a scenario (2^62 ps ≈ 53 days), so sums
/// of two times never overflow.
pub const MAX_TIME_PS: SimTime = 1 << 62;


#[derive(Debug)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for ConfigError {}

fn err<T>(field: String, msg: impl std::fmt::Display) -> Result<T, ConfigError> {
    Err(ConfigError(format!("{field}: {msg}")))
}

impl Scenario {
    pub fn from_json(s: &str) -> Result<Scenario, ConfigError> {
        let sc: Scenario = serde_json::from_str(s).map_err(|e| ConfigError(format!("scenario: {e}")))?;
        sc.validate()?;
        Ok(sc)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        // Every time must leave room for `now + time` without overflow.
        let check_t = |f: String, t: SimTime| -> Result<(), ConfigError> {
            if t > MAX_TIME_PS {
                return err(f, format!("{t} ps is beyond the largest supported time ({MAX_TIME_PS} ps, about 53 days)"));
            }
            Ok(())
        };
        check_t("duration_ps".into(), self.duration_ps)?;
        if let Some(s) = self.sample_interval_ps {
            check_t("sample_interval_ps".into(), s)?;
        }
        for (i, l) in self.links.iter().enumerate() {
            check_t(format!("links[{i}].delay_ps"), l.delay_ps)?;
        }
        for (i, fl) in self.flows.iter().enumerate() {
            let t = &fl.tcp;
            check_t(format!("flows[{i}].start_ps"), fl.start_ps)?;
            for (k, v) in [
                ("min_rto", t.min_rto_ps),
                ("initial_rto", t.initial_rto_ps),
                ("max_rto", t.max_rto_ps),
                ("clock_granularity", t.clock_granularity_ps),
                ("delack_timeout", t.delack_timeout_ps),
            ] {
                check_t(format!("flows[{i}].tcp.{k}"), v)?;
            }
        }
        if self.duration_ps == 0 {
            return err("duration_ps".into(), "must be > 0 (got 0)");
        }
        if let Some(0) = self.sample_interval_ps {
            return err("sample_interval_ps".into(), "must be > 0 when given (got 0)");
        }
        if self.nodes.is_empty() {
            return err("nodes".into(), "at least one node is required");
        }
        let n = self.nodes.len() as u32;
        for (i, l) in self.links.iter().enumerate() {
            let f = |k: &str| format!("links[{i}] ({}).{k}", l.name);
            if l.from >= n {
                return err(f("from"), format!("node index {} out of range 0..{}", l.from, n));
            }
            if l.to >= n {
                return err(f("to"), format!("node index {} out of range 0..{}", l.to, n));
            }
            if l.from == l.to {
                return err(f("to"), format!("a link must join two different nodes (both are {})", l.from));
            }
            if l.rate_bps == 0 {
                return err(f("rate_bps"), "must be > 0 (got 0)");
            }
            match &l.queue {
                QueueCfg::Droptail { limit_pkts, limit_bytes } => {
                    if limit_pkts.is_none() && limit_bytes.is_none() {
                        return err(f("queue"), "droptail needs limit_pkts or limit_bytes");
                    }
                    if let Some(0) = limit_pkts {
                        return err(f("queue.limit_pkts"), "must be ≥ 1 packet (got 0)");
                    }
                }
                QueueCfg::Red { limit_pkts, limit_bytes, min_th, max_th, max_p, w_q, mean_pktsize, mark_p, alpha, beta, top, bottom, adaptive, interval_ps, .. } => {
                    if limit_pkts.is_none() && limit_bytes.is_none() {
                        return err(f("queue"), "red needs limit_pkts or limit_bytes (the hard limit)");
                    }
                    if let Some(0) = limit_pkts {
                        return err(f("queue.limit_pkts"), "must be ≥ 1 packet (got 0)");
                    }
                    let prob = |k: &str, v: f64, lo_open: bool| -> Result<(), ConfigError> {
                        let ok = v.is_finite() && v <= 1.0 && if lo_open { v > 0.0 } else { v >= 0.0 };
                        if ok { Ok(()) } else { err(f(&format!("queue.{k}")), format!("must be a probability in {}0, 1] (got {v})", if lo_open { "(" } else { "[" })) }
                    };
                    prob("max_p", *max_p, true)?;
                    prob("top", *top, true)?;
                    if let Some(w) = w_q { prob("w_q", *w, true)?; }
                    if let Some(m) = mark_p { prob("mark_p", *m, true)?; }
                    if let Some(b) = bottom { prob("bottom", *b, false)?; }
                    if *mean_pktsize == 0 {
                        return err(f("queue.mean_pktsize"), "must be ≥ 1 byte (got 0)");
                    }
                    if let Some(lo) = min_th {
                        if !(lo.is_finite() && *lo >= 0.0) {
                            return err(f("queue.min_th"), format!("must be ≥ 0 packets (got {lo})"));
                        }
                    }
                    if let (Some(lo), Some(hi)) = (min_th, max_th) {
                        if !(hi.is_finite() && hi > lo) {
                            return err(f("queue.max_th"), format!("must be greater than min_th = {lo} (got {hi})"));
                        }
                    } else if let Some(hi) = max_th {
                        if !(hi.is_finite() && *hi > 0.0) {
                            return err(f("queue.max_th"), format!("must be > 0 packets (got {hi})"));
                        }
                    }
                    for (k, v) in [("alpha", alpha), ("beta", beta)] {
                        if let Some(v) = v {
                            if !(v.is_finite() && *v > 0.0) {
                                return err(f(&format!("queue.{k}")), format!("must be > 0 (got {v})"));
                            }
                        }
                    }
                    if *adaptive == RedAdaptiveCfg::Floyd && *interval_ps == 0 {
                        return err(f("queue.interval"), "must be > 0 for adaptive RED (got 0)");
                    }
                }
                QueueCfg::Codel { .. } | QueueCfg::FqCodel { .. } => {} // checked below
                QueueCfg::Pie { limit_pkts, limit_bytes, target_ps, t_update_ps, alpha, beta, max_burst_ps, mean_pktsize, mark_ecnth, .. } => {
                    if limit_pkts.is_none() && limit_bytes.is_none() {
                        return err(f("queue"), "pie needs limit_pkts or limit_bytes (the hard limit)");
                    }
                    if let Some(0) = limit_pkts {
                        return err(f("queue.limit_pkts"), "must be ≥ 1 packet (got 0)");
                    }
                    for (k, v) in [("target", target_ps), ("t_update", t_update_ps)] {
                        if *v == 0 {
                            return err(f(&format!("queue.{k}")), "must be > 0 for PIE (got 0)");
                        }
                        check_t(f(&format!("queue.{k}")), *v)?;
                    }
                    check_t(f("queue.max_burst"), *max_burst_ps)?;
                    for (k, v) in [("alpha", alpha), ("beta", beta)] {
                        if !(v.is_finite() && *v >= 0.0) {
                            return err(f(&format!("queue.{k}")), format!("must be ≥ 0 Hz (got {v})"));
                        }
                    }
                    if *mean_pktsize == 0 {
                        return err(f("queue.mean_pktsize"), "must be ≥ 1 byte (got 0)");
                    }
                    if !(0.0..=1.0).contains(mark_ecnth) {
                        return err(f("queue.mark_ecnth"), format!("must be a probability in [0, 1] (got {mark_ecnth})"));
                    }
                }
            }
            if let QueueCfg::FqCodel { quantum, buckets, .. } = &l.queue {
                if *quantum == 0 {
                    return err(f("queue.quantum"), "must be ≥ 1 byte (got 0)");
                }
                if *buckets == 0 || *buckets > 65_536 {
                    return err(f("queue.buckets"), format!("must be 1..=65536 (got {buckets})"));
                }
            }
            if let QueueCfg::Codel { limit_pkts, target_ps, interval_ps, .. } | QueueCfg::FqCodel { limit_pkts, target_ps, interval_ps, .. } = &l.queue {
                if *limit_pkts == 0 {
                    return err(f("queue.limit_pkts"), "must be ≥ 1 packet (got 0)");
                }
                if *target_ps == 0 || *interval_ps == 0 {
                    return err(f(if *target_ps == 0 { "queue.target" } else { "queue.interval" }), "must be > 0 for CoDel (got 0)");
                }
                check_t(f("queue.interval"), *interval_ps)?;
                check_t(f("queue.target"), *target_ps)?;
            }
            match &l.loss {
                LossCfg::None => {}
                LossCfg::Bernoulli { p } => {
                    if !(0.0..=1.0).contains(p) || p.is_nan() {
                        return err(f("loss.p"), format!("must be a probability in [0, 1] (got {p})"));
                    }
                }
                LossCfg::Ber { ber } => {
                    if !(0.0..=1.0).contains(ber) || ber.is_nan() {
                        return err(f("loss.ber"), format!("must be a bit-error probability in [0, 1] (got {ber})"));
                    }
                }
                LossCfg::GilbertElliott { p, r, loss_good, loss_bad } => {
                    for (k, v) in [("p", p), ("r", r), ("loss_good", loss_good), ("loss_bad", loss_bad)] {
                        if !(0.0..=1.0).contains(v) || v.is_nan() {
                            return err(f(&format!("loss.{k}")), format!("must be a probability in [0, 1] (got {v})"));
                        }
                    }
                    if *p + *r == 0.0 {
                        return err(f("loss.r"), "p and r cannot both be 0 (the chain would never move)");
                    }
                }
                LossCfg::TwoState { good, bad, loss_good, loss_bad, to_bad_after_good, to_bad_after_bad } => {
                    for (k, v) in [("loss_good", loss_good), ("loss_bad", loss_bad), ("to_bad_after_good", to_bad_after_good), ("to_bad_after_bad", to_bad_after_bad)] {
                        if !(0.0..=1.0).contains(v) || v.is_nan() {
                            return err(f(&format!("loss.{k}")), format!("must be a probability in [0, 1] (got {v})"));
                        }
                    }
                    for (k, d) in [("good", good), ("bad", bad)] {
                        d.check(&f(&format!("loss.{k}")), true).map_err(ConfigError)?;
                        if d.mean() > MAX_TIME_PS as f64 {
                            return err(f(&format!("loss.{k}")), format!("mean {} ps is beyond the largest supported time", d.mean()));
                        }
                    }
                }
                LossCfg::Scripted { drop: v } | LossCfg::CeScripted { mark: v } => {
                    let k = if matches!(l.loss, LossCfg::Scripted { .. }) { "loss.drop" } else { "loss.mark" };
                    if v.iter().any(|&k| k == 0) {
                        return err(f(k), "packet numbers are 1-based (got 0)");
                    }
                    if v.windows(2).any(|w| w[0] >= w[1]) {
                        return err(f(k), "packet numbers must be strictly increasing");
                    }
                }
                LossCfg::CeEvery { n } => {
                    if *n == 0 {
                        return err(f("loss.n"), "must be ≥ 1 (got 0)");
                    }
                }
            }
        }
        for (i, fl) in self.flows.iter().enumerate() {
            let f = |k: &str| format!("flows[{i}].{k}");
            if fl.src >= n {
                return err(f("src"), format!("node index {} out of range 0..{}", fl.src, n));
            }
            if fl.dst >= n {
                return err(f("dst"), format!("node index {} out of range 0..{}", fl.dst, n));
            }
            if fl.src == fl.dst {
                return err(f("dst"), format!("source and destination are the same node ({})", self.nodes[fl.src as usize]));
            }
            match &fl.app {
                AppCfg::Bulk => {}
                AppCfg::File { bytes } => {
                    if *bytes == 0 {
                        return err(f("app.bytes"), "a file transfer needs at least 1 byte (got 0)");
                    }
                }
                AppCfg::OnOff { on, off, .. } => {
                    on.check(&f("app.on"), true).map_err(ConfigError)?;
                    off.check(&f("app.off"), true).map_err(ConfigError)?;
                }
                AppCfg::Schedule { on } => {
                    let mut prev = 0;
                    for (k, [a, b]) in on.iter().enumerate() {
                        if b <= a {
                            return err(f(&format!("app.on[{k}]")), format!("an interval must end after it starts (got [{a}, {b}] ps)"));
                        }
                        if k > 0 && *a < prev {
                            return err(f(&format!("app.on[{k}]")), "intervals must be increasing and disjoint");
                        }
                        check_t(f(&format!("app.on[{k}]")), *b)?;
                        prev = *b;
                    }
                }
                AppCfg::Repeat { size, think, count } => {
                    size.check(&f("app.size"), true).map_err(ConfigError)?;
                    think.check(&f("app.think"), false).map_err(ConfigError)?;
                    if let Some(0) = count {
                        return err(f("app.count"), "must be ≥ 1 transfer when given (got 0)");
                    }
                }
            }
            let t = &fl.tcp;
            let Some(spec) = crate::cc::spec(&t.cc) else {
                return err(f("tcp.cc"), format!("unknown algorithm {:?}; accepted: {}", t.cc, crate::cc::names().join(", ")));
            };
            if let Err((k, m)) = crate::cc::params::resolve(spec, t.cc_preset.as_deref(), &t.cc_params) {
                return err(f(&format!("tcp.{k}")), m);
            }
            if t.mss == 0 {
                return err(f("tcp.mss"), "must be ≥ 1 byte (got 0)");
            }
            if t.mss > 65_495 {
                return err(f("tcp.mss"), format!("must be ≤ 65495 bytes (got {})", t.mss));
            }
            if t.header_bytes > 1_000 {
                return err(f("tcp.header_bytes"), format!("must be ≤ 1000 (got {})", t.header_bytes));
            }
            if t.initial_window == 0 {
                return err(f("tcp.initial_window"), "must be ≥ 1 segment (got 0)");
            }
            if let Some(s) = t.initial_ssthresh {
                if s < 2 {
                    return err(f("tcp.initial_ssthresh"), format!("must be ≥ 2 segments (got {s})"));
                }
            }
            if t.min_rto_ps == 0 {
                return err(f("tcp.min_rto"), "must be > 0 (got 0)");
            }
            if t.initial_rto_ps == 0 {
                return err(f("tcp.initial_rto"), "must be > 0 (got 0)");
            }
            if t.max_rto_ps < t.min_rto_ps {
                return err(f("tcp.max_rto"), "must be ≥ min_rto");
            }
            if let Some(0) = t.max_cwnd {
                return err(f("tcp.max_cwnd"), "must be ≥ 1 segment (got 0)");
            }
            if let Some(r) = t.rwnd_bytes {
                if r < t.mss as u64 {
                    return err(f("tcp.rwnd"), format!("must hold at least one segment of {} bytes (got {r})", t.mss));
                }
            }
            if t.delayed_ack && t.delack_timeout_ps == 0 {
                return err(f("tcp.delack_timeout"), "must be > 0 when delayed_ack is on (got 0)");
            }
            if t.delack_count == 0 {
                return err(f("tcp.delack_count"), "must be ≥ 1 (got 0)");
            }
            if t.dupthresh == 0 {
                return err(f("tcp.dupthresh"), "must be ≥ 1 (got 0)");
            }
            if t.sack != SackCfg::Off && t.cc == "tahoe" {
                return err(f("tcp.sack"), "tahoe has no fast recovery to drive with SACK; accepted: sack = \"off\" with tahoe, or another algorithm");
            }
            let max_blocks = if t.timestamps { 3 } else { 4 };
            if t.sack_blocks == 0 || t.sack_blocks > max_blocks {
                return err(
                    f("tcp.sack_blocks"),
                    format!("must be 1..={max_blocks} (40 option bytes{}; got {})", if t.timestamps { " with timestamps" } else { "" }, t.sack_blocks),
                );
            }
            if t.prr && t.sack != SackCfg::Rfc6675 {
                return err(f("tcp.prr"), "PRR needs the RFC 6675 scoreboard; accepted: prr = true only with sack = \"rfc6675\"");
            }
            for (k, v) in [("pacing_ss_ratio", t.pacing_ss_ratio), ("pacing_ca_ratio", t.pacing_ca_ratio)] {
                if !(v.is_finite() && v > 0.0 && v <= 100.0) {
                    return err(f(&format!("tcp.{k}")), format!("must be a ratio in (0, 100] (got {v})"));
                }
            }
            if t.min_tso_segs == 0 || t.min_tso_segs > MAX_TSO_SEGS {
                return err(f("tcp.min_tso_segs"), format!("must be 1..={MAX_TSO_SEGS} segments (got {})", t.min_tso_segs));
            }
            let pkt = t.mss as u64 + t.header_bytes as u64 + if t.timestamps { TS_OPTION_BYTES as u64 } else { 0 };
            for l in &self.links {
                if let QueueCfg::Droptail { limit_bytes: Some(b), .. } | QueueCfg::Red { limit_bytes: Some(b), .. } | QueueCfg::Pie { limit_bytes: Some(b), .. } = l.queue {
                    if b < pkt {
                        return err(
                            format!("links ({}).queue.limit_bytes", l.name),
                            format!("{b} bytes is smaller than one packet of flow {i} ({pkt} bytes)"),
                        );
                    }
                }
            }
        }
        for (i, u) in self.udp.iter().enumerate() {
            let f = |k: &str| format!("udp[{i}].{k}");
            check_t(f("start_ps"), u.start_ps)?;
            if let Some(s) = u.stop_ps {
                check_t(f("stop_ps"), s)?;
                if s <= u.start_ps {
                    return err(f("stop_ps"), format!("must be after start_ps = {} (got {s})", u.start_ps));
                }
            }
            for (k, v) in [("src", u.src), ("dst", u.dst)] {
                if v >= n {
                    return err(f(k), format!("node index {v} out of range 0..{n}"));
                }
            }
            if u.src == u.dst {
                return err(f("dst"), format!("source and destination are the same node ({})", self.nodes[u.src as usize]));
            }
            if u.rate_bps == 0 {
                return err(f("rate_bps"), "must be > 0 (got 0)");
            }
            if u.size == 0 || u.size > 65_535 {
                return err(f("size"), format!("must be 1..=65535 bytes (got {})", u.size));
            }
            match (&u.on, &u.off) {
                (None, None) => {}
                (Some(on), Some(off)) => {
                    on.check(&f("on"), true).map_err(ConfigError)?;
                    off.check(&f("off"), true).map_err(ConfigError)?;
                }
                _ => return err(f("on"), "an ON-OFF source needs both on and off (or neither, for constant bit rate)"),
            }
        }
        Ok(())
    }
}
