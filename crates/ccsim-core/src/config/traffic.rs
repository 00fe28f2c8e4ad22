//! Traffic of the resolved scenario: TCP flows with their applications,
//! and UDP sources, each validating itself.

use super::{check_time, err, ConfigError, TcpCfg};
use crate::units::SimTime;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowCfg {
    pub src: u32,
    pub dst: u32,
    pub start_ps: SimTime,
    pub app: AppCfg,
    /// Shared by the flows whose TCP tables are equal (thousands of web
    /// sessions use one): the per-packet reads of options then hit one
    /// cached copy, and a flow does not carry 224 bytes of it.
    #[serde(deserialize_with = "super::tcp::deserialize_with_stack")]
    pub tcp: std::sync::Arc<TcpCfg>,
    #[serde(default)]
    pub label: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
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

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
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

impl FlowCfg {
    /// Check flow `i` of a scenario with these nodes; `tcp_checked`: its
    /// TCP options are the same (shared) ones an earlier flow passed;
    /// `app_checked`: its application equals one an earlier flow passed.
    pub fn validate(
        &self,
        i: usize,
        nodes: &[String],
        tcp_checked: bool,
        app_checked: bool,
    ) -> Result<(), ConfigError> {
        let f = |k: &str| format!("flows[{i}].{k}");
        let n = nodes.len() as u32;
        check_time(|| f("start_ps"), self.start_ps)?;
        if self.src >= n {
            return err(f("src"), format!("node index {} out of range 0..{}", self.src, n));
        }
        if self.dst >= n {
            return err(f("dst"), format!("node index {} out of range 0..{}", self.dst, n));
        }
        if self.src == self.dst {
            return err(f("dst"), format!("source and destination are the same node ({})", nodes[self.src as usize]));
        }
        if !app_checked {
            self.app.validate(&f)?;
        }
        if tcp_checked {
            return Ok(());
        }
        self.tcp.validate(&f)
    }
}

impl AppCfg {
    /// `f` names a field of the flow this application drives; the bounds
    /// are the schema's (`app_schema::app_rules`).
    pub fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ConfigError> {
        super::app_schema::app_rules(self)
            .or_else(|b| err(f(b.option), format!("got {}; expected {}", b.got, b.expected)))
    }
}

impl UdpCfg {
    /// Check UDP source `i` of a scenario with these nodes.
    pub fn validate(&self, i: usize, nodes: &[String]) -> Result<(), ConfigError> {
        let f = |k: &str| format!("udp[{i}].{k}");
        let n = nodes.len() as u32;
        check_time(|| f("start_ps"), self.start_ps)?;
        if let Some(s) = self.stop_ps {
            check_time(|| f("stop_ps"), s)?;
            if s <= self.start_ps {
                return err(f("stop_ps"), format!("must be after start_ps = {} (got {s})", self.start_ps));
            }
        }
        for (k, v) in [("src", self.src), ("dst", self.dst)] {
            if v >= n {
                return err(f(k), format!("node index {v} out of range 0..{n}"));
            }
        }
        if self.src == self.dst {
            return err(f("dst"), format!("source and destination are the same node ({})", nodes[self.src as usize]));
        }
        super::app_schema::udp_rules(self)
            .or_else(|b| err(f(b.option), format!("got {}; expected {}", b.got, b.expected)))
    }
}
