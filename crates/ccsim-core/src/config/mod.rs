//! The resolved scenario: what Python hands to the core after parsing units
//! and expanding topology builders. Every quantity is explicit and in base
//! units (bits per second, picoseconds, bytes, segments). Unknown fields are
//! refused, and `validate` re-checks every value so a bad scenario built by
//! hand from Python (or JSON) gets an error naming the field, never a panic.
//! One file per section (net: links and queues; loss; tcp; traffic: flows,
//! applications, UDP), each type validating itself.

pub mod app_schema;
pub mod link_schema;
mod net;
pub mod net_schema;
pub mod schema;
pub mod sim_schema;
mod tcp;
mod traffic;

pub use crate::loss::LossCfg;
pub use crate::tracefile::{load_trace, MAX_TRACE_BYTES};
pub use net::{
    check_schedule_json, schedule_refusal, BucketRule, EcnMask, LinkCfg, QueueCfg, RedAdaptiveCfg, ReorderCfg,
    ScheduleRefusal, VaryingRate, MIN_T_UPDATE_PS,
};
pub use tcp::{
    sack_option_bytes, DelackTimer, EcnCodepoint, EcnFeedback, EcnResponse, GrowthPer, PacingCfg, RtoModel,
    RtoSsthresh, SackCfg, SsthreshBase, Stack, TcpCfg, MAX_INITIAL_WINDOW, MAX_TSO_SEGS,
};
pub use traffic::{AppCfg, FlowCfg, UdpCfg};

use crate::units::SimTime;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub duration_ps: SimTime,
    pub seed: u64,
    /// Sampling period of the time series; None = no time series.
    #[serde(default)]
    pub sample_interval_ps: Option<SimTime>,
    /// Links (indices) whose state the time series samples; none = all.
    #[serde(default)]
    pub sample_links: Option<Vec<u32>>,
    pub nodes: Vec<String>,
    pub links: Vec<LinkCfg>,
    /// TCP tables shared by flows that name one by index (written before
    /// `flows`; see `tcp::deserialize_with_stack`).
    #[serde(default, deserialize_with = "tcp::deserialize_tables")]
    pub tcp_tables: Vec<std::sync::Arc<TcpCfg>>,
    pub flows: Vec<FlowCfg>,
    /// UDP sources (constant bit rate, optionally ON-OFF).
    #[serde(default)]
    pub udp: Vec<UdpCfg>,
    /// Per-event traces (off by default: they grow with every packet).
    #[serde(default)]
    pub trace: TraceCfg,
    /// Links (indices) whose packets are recorded as they arrive at the far
    /// end (table `capture`, written out as pcap files by the front end).
    #[serde(default)]
    pub capture_links: Vec<u32>,
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
    /// The congestion controller's state (cwnd, ssthresh and each
    /// algorithm's own variables) at every sample and after every
    /// congestion event (table `cc_state`).
    #[serde(default)]
    pub cc: bool,
}

pub use crate::units::MAX_TIME_PS;

#[derive(Debug)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for ConfigError {}

pub(crate) fn err<T>(field: String, msg: impl std::fmt::Display) -> Result<T, ConfigError> {
    Err(ConfigError(format!("{field}: {msg}")))
}

/// A scenario that `Scenario::validate` has passed, read only from then on,
/// so `Simulation::from_checked` builds it without checking it again (a
/// `Scenario`'s fields are public, so `Simulation::new` must check).
pub struct Checked(Scenario);

impl Checked {
    pub fn scenario(&self) -> &Scenario {
        &self.0
    }

    pub fn into_scenario(self) -> Scenario {
        self.0
    }
}

impl Scenario {
    /// Parse a resolved scenario, load its trace files and validate it.
    pub fn from_json(s: &str) -> Result<Scenario, ConfigError> {
        Ok(Scenario::checked_from_json(s)?.into_scenario())
    }

    /// As `from_json`, keeping the proof that it was validated.
    pub fn checked_from_json(s: &str) -> Result<Checked, ConfigError> {
        let shared = tcp::SharedTables::scope();
        let mut sc: Scenario = serde_json::from_str(s).map_err(|e| ConfigError(format!("scenario: {e}")))?;
        drop(shared);
        sc.load_traces()?;
        sc.checked()
    }

    /// This scenario, validated.
    pub fn checked(self) -> Result<Checked, ConfigError> {
        self.validate()?;
        Ok(Checked(self))
    }

    /// Read the trace files of trace-driven links (each file once) and set
    /// each such link's nominal rate to its trace's mean.
    pub fn load_traces(&mut self) -> Result<(), ConfigError> {
        let mut seen: std::collections::HashMap<String, std::sync::Arc<crate::tracefile::Trace>> = Default::default();
        for (i, l) in self.links.iter_mut().enumerate() {
            let name = l.name.clone();
            if let Some(net::VaryingRate::Trace { path, loaded, .. }) = &mut l.varying {
                if loaded.is_none() {
                    let t = match seen.get(path.as_str()) {
                        Some(t) => t.clone(),
                        None => {
                            let t = std::sync::Arc::new(
                                crate::tracefile::load_trace(path)
                                    .map_err(|m| ConfigError(format!("links[{i}] ({name}).trace: {m}")))?,
                            );
                            seen.insert(path.clone(), t.clone());
                            t
                        }
                    };
                    l.rate_bps = t.mean_bps();
                    *loaded = Some(t);
                }
            }
        }
        Ok(())
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        sim_schema::sim_rules(self)
            .or_else(|b| err(format!("sim.{}", b.option), format!("got {}; expected {}", b.got, b.expected)))?;
        if self.nodes.is_empty() {
            return err("nodes".into(), "at least one node is required");
        }
        if let Some(n) = self.nodes.iter().find(|n| n.trim().is_empty() || n.contains("->") || n.contains(',')) {
            // links are named "a->b" in every table and selector
            return err("nodes".into(), format!("node name {n:?}: expected a non-empty name without '->' or ','"));
        }
        let n = self.nodes.len() as u32;
        for (i, l) in self.links.iter().enumerate() {
            l.validate(i, n)?;
        }
        if let Some(&bad) = self.capture_links.iter().find(|&&i| i as usize >= self.links.len()) {
            return err("capture_links".into(), format!("link {bad} does not exist ({} links)", self.links.len()));
        }
        if let Some(sl) = &self.sample_links {
            if let Some(&bad) = sl.iter().find(|&&i| i as usize >= self.links.len()) {
                return err("sample_links".into(), format!("link {bad} does not exist ({} links)", self.links.len()));
            }
        }
        // A byte-limited queue must hold one packet of every flow: compare
        // each flow with the smallest such queue (one pass over the links, so
        // validation stays linear in flows + links).
        let smallest = self.links.iter().filter_map(|l| l.queue.limit_bytes().map(|b| (b, l))).min_by_key(|&(b, _)| b);
        // Flows of a group share one TcpCfg (deserialize_with_stack) and
        // have equal applications: check each shared or repeated one once
        // (checking a web session's distributions was most of the
        // validation of a mix of thousands of them).
        let mut last_tcp: Option<&std::sync::Arc<TcpCfg>> = None;
        let mut last_app: Option<&AppCfg> = None;
        for (i, fl) in self.flows.iter().enumerate() {
            let tcp_checked = last_tcp.is_some_and(|p| std::sync::Arc::ptr_eq(p, &fl.tcp));
            fl.validate(i, &self.nodes, tcp_checked, last_app == Some(&fl.app))?;
            last_tcp = Some(&fl.tcp);
            last_app = Some(&fl.app);
            if let Some((b, l)) = smallest {
                if let Some(why) = buffer_refusal(b, fl.tcp.packet_bytes()) {
                    return err(format!("links ({}).queue.limit_bytes", l.name), format!("flow {i}: {why}"));
                }
            }
        }
        for (i, u) in self.udp.iter().enumerate() {
            u.validate(i, &self.nodes)?;
        }
        Ok(())
    }
}

/// A byte-limited queue must hold one whole packet of every flow that
/// crosses it (a smaller one could never accept a full-sized segment):
/// None, or why a `limit_bytes` is refused for packets of `packet_bytes`
/// (`TcpCfg::packet_bytes`), in words the front end prints after the
/// buffer's field (`_core.buffer_refusal`).
pub fn buffer_refusal(limit_bytes: u64, packet_bytes: u64) -> Option<String> {
    (limit_bytes < packet_bytes).then(|| {
        format!(
            "{limit_bytes} bytes is smaller than one packet ({packet_bytes} bytes: mss, headers and options); \
             expected a buffer of at least one packet"
        )
    })
}

/// Every time must leave room for `now + time` without overflow.
/// `field` is called only for the error: thousands of flows and links are
/// checked, and formatting every field name up front was most of the
/// check's cost.
pub(crate) fn check_time(field: impl FnOnce() -> String, t: SimTime) -> Result<(), ConfigError> {
    if t > MAX_TIME_PS {
        return err(field(), format!("{t} ps is beyond the largest supported time ({MAX_TIME_PS} ps, about 53 days)"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_buffer_must_hold_one_whole_packet() {
        assert_eq!(buffer_refusal(1500, 1500), None);
        let why = buffer_refusal(1499, 1500).expect("refused");
        assert!(why.starts_with("1499 bytes is smaller than one packet (1500 bytes"), "{why}");
    }
}
