//! TCP options of a flow: SACK and pacing modes, the option table with its
//! defaults, and its validation.

use super::{check_time, err, ConfigError};
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

/// TCP options of one flow. Every field has a default (`TcpCfg::default`,
/// the one place TCP defaults are written; Python reads them through
/// `tcp_defaults_json`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpCfg {
    pub cc: String,
    /// Named parameter set of the algorithm (`ccsim list cc`).
    pub cc_preset: Option<String>,
    /// Single algorithm parameters, applied over the preset.
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
    pub sack: SackCfg,
    /// Most SACK blocks per ACK (RFC 2018: 4, or 3 with timestamps).
    pub sack_blocks: u32,
    /// RFC 3042 limited transmit.
    pub limited_transmit: bool,
    /// RFC 6937 proportional rate reduction during SACK recovery.
    pub prr: bool,
    /// RFC 7323 timestamps: RTT from every ACK, 12 option bytes per packet.
    pub timestamps: bool,
    /// RFC 3168 ECN: data is ECT, the receiver echoes CE with ECE until CWR.
    pub ecn: bool,
    pub pacing: PacingCfg,
    pub pacing_ss_ratio: f64,
    pub pacing_ca_ratio: f64,
    /// Linux TSO/GSO autosizing of paced bursts (tcp_tso_autosize, Linux
    /// 3.12–5.17): when the pacing timer allows, a Linux-paced flow releases
    /// max(min_tso_segs, ⌊(rate >> 10) / mss⌋) segments (under 64 KB) back to
    /// back, then waits their length at the pacing rate. `false`: one
    /// segment per release (ns-3). Not used by `pacing = "window"`.
    pub tso: bool,
    /// Fewest segments per paced burst (sysctl tcp_min_tso_segs, 2); an
    /// algorithm with a min_tso_segs hook (BBR) overrides it.
    pub min_tso_segs: u32,
    /// Restart the window after idle (RFC 2861 / Linux
    /// tcp_slow_start_after_idle, on by default in Linux).
    pub idle_restart: bool,
    /// Receiver ACKs each of the first `quickack` data segments at once
    /// (Linux quick-ACK mode at connection start; Linux uses up to 16).
    pub quickack: u32,
}

impl Default for TcpCfg {
    fn default() -> Self {
        TcpCfg {
            cc: "newreno".to_string(),
            cc_preset: None,
            cc_params: Default::default(),
            mss: 1448,
            header_bytes: 40,
            initial_window: 10,
            initial_ssthresh: None,
            min_rto_ps: 200 * PS_PER_MS,
            initial_rto_ps: PS_PER_S,
            max_rto_ps: 60 * PS_PER_S,
            clock_granularity_ps: PS_PER_MS,
            max_cwnd: None,
            rwnd_bytes: None,
            delayed_ack: true,
            delack_timeout_ps: 200 * PS_PER_MS,
            delack_count: 2,
            handshake: false,
            dupthresh: 3,
            abc_limit: 2,
            sack: SackCfg::Off,
            sack_blocks: 3,
            limited_transmit: false,
            prr: false,
            timestamps: false,
            ecn: false,
            pacing: PacingCfg::Off,
            pacing_ss_ratio: 2.0,
            pacing_ca_ratio: 1.2,
            tso: true,
            min_tso_segs: 2,
            quickack: 0,
            idle_restart: true,
        }
    }
}

impl TcpCfg {
    /// `f` names a field of the flow these options belong to.
    pub fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ConfigError> {
        let t = self;
        for (k, v) in [
            ("min_rto", t.min_rto_ps),
            ("initial_rto", t.initial_rto_ps),
            ("max_rto", t.max_rto_ps),
            ("clock_granularity", t.clock_granularity_ps),
            ("delack_timeout", t.delack_timeout_ps),
        ] {
            check_time(f(&format!("tcp.{k}")), v)?;
        }
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
        Ok(())
    }

    /// Bytes of one full-sized data packet on the wire.
    pub fn packet_bytes(&self) -> u64 {
        self.mss as u64 + self.header_bytes as u64 + if self.timestamps { TS_OPTION_BYTES as u64 } else { 0 }
    }
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
