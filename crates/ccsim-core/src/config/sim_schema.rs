//! The option schema of a scenario's `[sim]` table, owned by the core as
//! `[tcp]`'s is (schema.rs): each option with the field of the resolved
//! scenario it fills, its kind, its doc line, the required ones and the
//! defaults of the rest as a scenario writes them. The core checks the run's
//! length and sampling period against it (`Scenario::validate` →
//! `sim_rules`); Python resolves and documents `[sim]` from it
//! (`_core.sim_options()`, python/ccsim/scenario/resolve.py).

use super::schema::{check_kinds, Broken, Kind, Opt};
use super::Scenario;
use serde_json::{json, Value};

/// Every `[sim]` option, in documentation order.
#[rustfmt::skip]
pub const SIM: &[Opt] = &[
    Opt { name: "duration", core: "duration_ps", kind: Kind::Time { min_ps: 1 }, unit: "time", doc: "the simulated time the run covers ('60s')" },
    Opt { name: "seed", core: "seed", kind: Kind::Int { lo: 0, hi: u64::MAX }, unit: "", doc: "seed of every random stream (losses, start times, applications); the same scenario and seed give the same results" },
    Opt { name: "sample_interval", core: "sample_interval_ps", kind: Kind::TimeOrOff, unit: "time", doc: "period of the time series (flow_series, link_series), or 'off'" },
    Opt { name: "sample_links", core: "sample_links", kind: Kind::Links(&["all", "shared"]), unit: "", doc: "links the link time series samples: 'all', 'shared' (links between two nodes that each have more than one neighbour: a dumbbell's router-to-router links; refused where there is none) or a list of names ['r0->r1']" },
    Opt { name: "trace", core: "trace", kind: Kind::ChoiceList(&["rtt", "seq", "cc"]), unit: "", doc: "per-event traces to record: 'rtt' (every RTT sample), 'seq' (every segment sent and ACK received), 'cc' (the algorithm's state at every change)" },
    Opt { name: "pcap", core: "capture_links", kind: Kind::Links(&["bottleneck"]), unit: "", doc: "links whose packets are captured (pcap files beside the results): a list of names, or 'bottleneck'" },
];

/// Options a scenario must give.
pub const SIM_REQUIRED: &[&str] = &["duration"];

/// Values of the options left out, as a scenario writes them (JSON text).
pub const SIM_DEFAULTS: &[(&str, &str)] =
    &[("seed", "1"), ("sample_interval", "\"100ms\""), ("sample_links", "\"all\""), ("trace", "[]"), ("pcap", "[]")];

/// The `[sim]` table as JSON (`_core.sim_options()`).
pub fn sim_json() -> String {
    let defaults: serde_json::Map<String, Value> = SIM_DEFAULTS
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::from_str(v).expect("a default is JSON")))
        .collect();
    json!({
        "options": SIM.iter().map(|o| o.to_json()).collect::<Vec<_>>(),
        "required": SIM_REQUIRED,
        "defaults": defaults,
    })
    .to_string()
}

/// The run's length and sampling period against their kinds (the link
/// selections are checked against the links by `Scenario::validate`).
pub fn sim_rules(sc: &Scenario) -> Result<(), Broken> {
    let v = json!({"duration_ps": sc.duration_ps, "seed": sc.seed, "sample_interval_ps": sc.sample_interval_ps});
    check_kinds(SIM, &v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_defaults_and_traces_name_the_schema_and_the_scenario() {
        for (d, _) in SIM_DEFAULTS {
            assert!(SIM.iter().any(|o| o.name == *d), "default {d} is an option");
            assert!(!SIM_REQUIRED.contains(d), "{d} is required and has a default");
        }
        let traces = SIM.iter().find_map(|o| match o.kind {
            Kind::ChoiceList(c) if o.name == "trace" => Some(c),
            _ => None,
        });
        for t in traces.expect("trace is a list of choices") {
            let cfg: super::super::TraceCfg =
                serde_json::from_value(json!({ *t: true })).unwrap_or_else(|e| panic!("trace {t}: {e}"));
            let _ = cfg;
        }
    }
}
