//! Links and queue disciplines of the resolved scenario (loss models: loss.rs), each
//! validating itself.

use super::{check_time, err, ConfigError, LossCfg};
use crate::queue::LinkFacts;
pub use crate::queue::{EcnMask, QueueCfg, RedAdaptiveCfg, MIN_T_UPDATE_PS};
use crate::units::{SimTime, MAX_TIME_PS};
use serde::{Deserialize, Serialize};

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
    /// Reordering (netem-like extra delay that later packets may overtake).
    #[serde(default)]
    pub reorder: ReorderCfg,
    /// A rate that varies: a mahimahi trace or a schedule (then `rate_bps`
    /// is its nominal capacity: the trace's mean, the schedule's first rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub varying: Option<VaryingRate>,
    /// A token-bucket shaper in place of the serialising transmitter
    /// (Linux `tc` HTB or TBF on a veth, as Mininet's `TCLink`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shaper: Option<ShaperCfg>,
}

/// A token-bucket shaper at the link's rate (link/transmitter.rs `BucketTx`).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ShaperCfg {
    pub rule: BucketRule,
    /// Depth of the rate bucket, bytes (HTB `burst`, TBF `burst`).
    pub burst_bytes: u64,
    /// Depth of HTB's ceil bucket, bytes (`cburst`); None for TBF.
    #[serde(default)]
    pub cburst_bytes: Option<u64>,
    /// Bytes the shaper counts on top of each packet (link-layer header).
    #[serde(default)]
    pub overhead_bytes: u32,
}

/// A link direction whose rate varies (link/trace.rs, link/transmitter.rs).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "snake_case")]
pub enum VaryingRate {
    /// A mahimahi packet-delivery trace, replayed from `offset_ps` into it.
    Trace {
        path: String,
        #[serde(default)]
        offset_ps: SimTime,
        /// The file's SHA-256 when the scenario was resolved: part of the
        /// run's identity, so a changed file is a different run.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sha256: Option<String>,
        /// The parsed file (`Scenario::load_traces`).
        #[serde(skip)]
        loaded: Option<std::sync::Arc<crate::tracefile::Trace>>,
    },
    /// Piecewise-constant rate: (from, b/s) steps, the first from 0.
    Schedule { steps: Vec<(SimTime, u64)> },
}

/// Why a rate schedule is refused: the step (None: the schedule as a whole),
/// its part (0 the time, 1 the rate) and what is accepted there, in words a
/// scenario's author reads (the front end names the field as written).
#[derive(Debug, PartialEq, Eq)]
pub struct ScheduleRefusal {
    pub step: Option<usize>,
    pub part: usize,
    pub expected: String,
}

/// The rules of a rate schedule, (from, b/s) steps: the first from 0 at a
/// rate above 0 (an outage begins at a later step), times increasing and
/// within the supported range, the last rate above 0 (an outage must end).
pub fn schedule_refusal(steps: &[(SimTime, u64)]) -> Option<ScheduleRefusal> {
    let no = |step, part, expected: String| Some(ScheduleRefusal { step, part, expected });
    let Some(&(t0, r0)) = steps.first() else {
        return no(
            None,
            0,
            "a non-empty list of [time, rate] steps, e.g. [[0, \"50Mbps\"], [\"10s\", \"10Mbps\"]]".into(),
        );
    };
    if t0 != 0 {
        return no(Some(0), 0, "0 for the first step (the rate from the start)".into());
    }
    for (k, w) in steps.windows(2).enumerate() {
        if w[1].0 <= w[0].0 {
            return no(Some(k + 1), 0, "a time after the previous step's".into());
        }
        if w[1].0 > MAX_TIME_PS {
            return no(Some(k + 1), 0, "a time of at most 2^62 ps (about 53 days)".into());
        }
    }
    let last = steps.len() - 1;
    if steps[last].1 == 0 {
        return no(Some(last), 1, "a rate above 0 for the last step (an outage must end)".into());
    }
    if r0 == 0 {
        return no(Some(0), 1, "a rate above 0 at the start (begin an outage at a later step)".into());
    }
    None
}

/// `schedule_refusal` on steps given as JSON, [[ps, b/s], ...]
/// (`_core.check_schedule`).
pub fn check_schedule_json(json: &str) -> Result<Option<ScheduleRefusal>, String> {
    let steps: Vec<(SimTime, u64)> = serde_json::from_str(json).map_err(|e| format!("a rate schedule: {e}"))?;
    Ok(schedule_refusal(&steps))
}

/// Which test a token-bucket shaper applies before it releases a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BucketRule {
    /// Linux `net/sched/sch_htb.c` (`htb_class_mode`, with the module's
    /// default `htb_hysteresis = 0`): a class may send while every bucket
    /// holds zero or more tokens; the packet is charged after, so a bucket
    /// may go negative by up to one packet (`htb_accnt_tokens`,
    /// `htb_accnt_ctokens`). Two buckets: `rate` with `burst`, `ceil` (the
    /// same rate here) with `cburst`.
    Htb,
    /// Linux `net/sched/sch_tbf.c` (`tbf_dequeue`): a packet leaves only
    /// when the bucket holds its whole cost.
    Tbf,
}

/// Per-packet extra delay on a link direction, after netem's `delay …
/// jitter` and `reorder`: every packet waits a uniform [0, jitter] more,
/// and with `probability` a packet waits `delay` more; packets behind it
/// overtake it. Zeros (the default): no reordering.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReorderCfg {
    pub jitter_ps: SimTime,
    pub probability: f64,
    pub delay_ps: SimTime,
}

impl ReorderCfg {
    pub fn is_on(&self) -> bool {
        self.jitter_ps > 0 || self.probability > 0.0
    }
}

impl LinkCfg {
    /// The link's nominal capacity, b/s (a trace's mean, a schedule's rate
    /// at time 0): what RED's automatic parameters read.
    pub fn capacity_bps(&self) -> u64 {
        self.rate_bps
    }

    /// What its queue discipline reads of it when built.
    pub fn queue_facts(&self) -> LinkFacts {
        LinkFacts { rate_bps: self.capacity_bps(), delay_ps: self.delay_ps }
    }

    /// Check the link `i` of a scenario with `n` nodes.
    pub fn validate(&self, i: usize, n: u32) -> Result<(), ConfigError> {
        let f = |k: &str| format!("links[{i}] ({}).{k}", self.name);
        check_time(|| f("delay_ps"), self.delay_ps)?;
        if self.from >= n {
            return err(f("from"), format!("node index {} out of range 0..{}", self.from, n));
        }
        if self.to >= n {
            return err(f("to"), format!("node index {} out of range 0..{}", self.to, n));
        }
        if self.from == self.to {
            return err(f("to"), format!("a link must join two different nodes (both are {})", self.from));
        }
        if self.rate_bps == 0 {
            return err(f("rate_bps"), "must be > 0 (got 0)");
        }
        match &self.varying {
            None => {}
            Some(VaryingRate::Trace { loaded, offset_ps, .. }) => {
                check_time(|| f("trace.offset"), *offset_ps)?;
                if loaded.is_none() {
                    return err(f("trace"), "not loaded (Scenario::load_traces)");
                }
            }
            Some(VaryingRate::Schedule { steps }) => {
                if let Some(r) = schedule_refusal(steps) {
                    let at = r.step.map_or(String::new(), |k| format!("[{k}][{}]", r.part));
                    return err(format!("{}{at}", f("rate")), format!("expected {}", r.expected));
                }
                if steps[0].1 != self.rate_bps {
                    return err(
                        f("rate_bps"),
                        format!("must be the schedule's first rate {} (got {})", steps[0].1, self.rate_bps),
                    );
                }
            }
        }
        if let Some(s) = &self.shaper {
            s.validate(&f, self.varying.is_some())?;
        }
        self.queue.validate(&f)?;
        self.loss.validate(&f)?;
        if self.reorder != ReorderCfg::default() {
            super::link_schema::reorder_rules(&self.reorder).or_else(|b| {
                err(f(&format!("reorder.{}", b.option)), format!("got {}; expected {}", b.got, b.expected))
            })?;
        }
        Ok(())
    }
}

/// Deepest shaper bucket accepted, bytes (1 GiB).
pub const MAX_BURST_BYTES: u64 = 1 << 30;

impl ShaperCfg {
    /// `f` names a field of the link; `varying`: the link's rate varies.
    pub fn validate(&self, f: &dyn Fn(&str) -> String, varying: bool) -> Result<(), ConfigError> {
        if varying {
            return err(f("shaper"), "a shaper runs at a fixed rate; it cannot be combined with a trace or a schedule");
        }
        super::link_schema::shaper_rules(self)
            .or_else(|b| err(f(&format!("shaper.{}", b.option)), format!("got {}; expected {}", b.got, b.expected)))
    }
}

impl LossCfg {
    /// `f` names a field of the link this loss model belongs to; the
    /// bounds and rules are the model's (`LossCfg::rules`, loss/).
    pub fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ConfigError> {
        self.rules()
            .or_else(|b| err(f(&format!("loss.{}", b.option)), format!("got {}; expected {}", b.got, b.expected)))
    }
}

impl QueueCfg {
    /// `f` names a field of the link this queue belongs to. The buffer is
    /// the link's; every option and the rules between them are the kind's
    /// (`QueueCfg::rules`, queue/).
    pub fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ConfigError> {
        let (limit_pkts, limit_bytes) = self.buffer();
        if limit_pkts.is_none() && limit_bytes.is_none() {
            return err(f("queue"), "needs limit_pkts or limit_bytes (the hard limit)");
        }
        if limit_pkts == Some(0) {
            // netem, CoDel, FQ-CoDel and DualPI2 hold their packet limit as a
            // number that a configuration without one leaves at 0
            return err(f("queue.limit_pkts"), "got 0 (or left out); expected a limit of at least 1 packet");
        }
        self.rules()
            .or_else(|b| err(f(&format!("queue.{}", b.option)), format!("got {}; expected {}", b.got, b.expected)))
    }

    /// The byte limit, for the disciplines that have one.
    pub fn limit_bytes(&self) -> Option<u64> {
        self.buffer().1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queue_without_its_packet_limit_is_refused_by_the_fields_name() {
        let f = |k: &str| format!("links[0].{k}");
        for kind in ["netem", "codel", "fq_codel", "dualpi2"] {
            let q: QueueCfg = serde_json::from_value(serde_json::json!({ "kind": kind })).unwrap();
            let e = q.validate(&f).unwrap_err().0;
            assert!(e.starts_with("links[0].queue.limit_pkts: got 0 (or left out)"), "{kind}: {e}");
        }
        let q: QueueCfg = serde_json::from_value(serde_json::json!({"kind": "red"})).unwrap();
        assert!(q.validate(&f).unwrap_err().0.starts_with("links[0].queue: needs limit_pkts or limit_bytes"));
        let q: QueueCfg = serde_json::from_value(serde_json::json!({"kind": "codel", "limit_pkts": 1})).unwrap();
        assert!(q.validate(&f).is_ok());
    }

    /// The step and part each rule refuses, on schedules written to break
    /// one rule each (ccsim's own rules, stated in `schedule_refusal`).
    #[test]
    fn each_schedule_rule_refuses_at_its_step_and_part() {
        const S: SimTime = 1_000_000_000_000;
        let at = |steps: &[(SimTime, u64)]| schedule_refusal(steps).map(|r| (r.step, r.part));
        assert_eq!(at(&[(0, 10), (S, 0), (2 * S, 5)]), None);
        assert_eq!(at(&[]), Some((None, 0)));
        assert_eq!(at(&[(S, 10)]), Some((Some(0), 0)));
        assert_eq!(at(&[(0, 10), (2 * S, 5), (S, 8)]), Some((Some(2), 0)));
        assert_eq!(at(&[(0, 10), (S, 5), (S, 8)]), Some((Some(2), 0)));
        assert_eq!(at(&[(0, 10), (MAX_TIME_PS + 1, 8)]), Some((Some(1), 0)));
        assert_eq!(at(&[(0, 10), (S, 0)]), Some((Some(1), 1)));
        assert_eq!(at(&[(0, 0), (S, 8)]), Some((Some(0), 1)));
        // a one-step outage breaks both rate rules; the end of it is named
        assert_eq!(at(&[(0, 0)]), Some((Some(0), 1)));
        let r = schedule_refusal(&[(0, 10), (S, 0)]).expect("refused");
        assert!(r.expected.contains("an outage must end"), "{}", r.expected);
    }
}
