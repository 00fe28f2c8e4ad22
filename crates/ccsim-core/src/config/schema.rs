//! The scenario's option schema, owned by the core: every `[tcp]` option
//! with the name a scenario writes, the field of the resolved configuration
//! it fills, its kind (with bounds or accepted values), its unit and its
//! documentation line, each declared with its field (`TcpCfg`, tcp.rs).
//! The core validates against this table
//! (`TcpCfg::validate`), Python resolves and documents from it
//! (`ccsim._core.tcp_options()`, python/ccsim/scenario/tcp_options.py), and the
//! docs' table is checked against it, so no bound, list of values or doc
//! line is written twice. Defaults per stack are `TcpCfg::for_stack`.
//!
//! Rules between options (at most 3 SACK blocks with timestamps, the
//! scoreboard options only with RFC 6675, no SACK for Tahoe, max_rto ≥
//! min_rto, a window of at least one segment) are `tcp_rules`, also here,
//! and Python asks the core to apply them (`_core.check_tcp`).

use super::tcp::{SackCfg, Stack, TcpCfg, DEFAULT_CC, SCOREBOARD_OPTIONS};
pub(crate) use crate::opts::check_kinds;
pub use crate::opts::{Broken, Kind, Opt};
use serde_json::{json, Value};

/// Every `[tcp]` option, in documentation order (declared with `TcpCfg`).
pub const TCP: &[Opt] = TcpCfg::OPTS;

/// The TCP option table as JSON (`_core.tcp_options()`).
pub fn tcp_json() -> String {
    let rows: Vec<Value> = TCP
        .iter()
        .map(|o| {
            let mut row = o.to_json();
            row["needs_scoreboard"] = json!(SCOREBOARD_OPTIONS.contains(&o.name));
            // the two options whose default is not a stack's value: what a
            // flow that names neither runs
            match o.name {
                "stack" => row["default"] = serde_json::to_value(Stack::default()).expect("a stack serializes"),
                "cc" => row["default"] = json!(DEFAULT_CC),
                _ => {}
            }
            row
        })
        .collect();
    Value::Array(rows).to_string()
}

/// The rules between options.
pub fn tcp_rules(t: &TcpCfg) -> Result<(), Broken> {
    check_kinds(TCP, &serde_json::to_value(t).expect("TcpCfg serializes"))?;
    if let Some(r) = t.rwnd_bytes {
        if r < t.mss as u64 {
            return Err(Broken {
                option: "rwnd",
                got: format!("{r} bytes"),
                expected: format!("a window of at least one segment ({} bytes)", t.mss),
            });
        }
    }
    if t.timestamps && t.sack_blocks > 3 {
        return Err(Broken {
            option: "sack_blocks",
            got: t.sack_blocks.to_string(),
            expected: "at most 3 SACK blocks with timestamps (40 option bytes)".into(),
        });
    }
    let on = [t.prr, t.dsack, t.rack, t.tlp, t.undo, t.frto];
    for (k, on) in SCOREBOARD_OPTIONS.iter().zip(on) {
        if on && t.sack != SackCfg::Rfc6675 {
            return Err(Broken {
                option: k,
                got: "true".into(),
                expected: format!("{k} = true only with sack = 'rfc6675' (it works on the SACK scoreboard)"),
            });
        }
    }
    if t.sack != SackCfg::Off && t.recovery_flavour() == crate::cc::params::RecoveryFlavour::Tahoe {
        return Err(Broken {
            option: "sack",
            got: format!("{:?}", serde_json::to_value(t.sack).expect("serializes").as_str().unwrap_or("?")),
            expected: format!("sack = 'off' with {} (Tahoe recovery has no fast recovery)", t.cc),
        });
    }
    if let Some(need) = crate::cc::spec(&t.cc).and_then(|s| s.ecn) {
        if !t.ecn {
            return Err(Broken {
                option: "ecn",
                got: "false".into(),
                expected: format!("ecn = true with cc = '{}' ({})", t.cc, need.without),
            });
        }
    }
    if uses_ecn_low(t) {
        // BBRv3 (bbr_can_use_ecn) reads CE marks only on a flow that
        // negotiated ECN, and counts them per delivered segment, which needs
        // the receiver's precise per-CE-change ACKs (or AccECN's count), not
        // RFC 3168's ECE-until-CWR.
        if !t.ecn {
            return Err(Broken {
                option: "ecn",
                got: "false".into(),
                expected: format!("ecn = true with cc = '{}' and cc_params.ecn_low = true", t.cc),
            });
        }
        if t.ecn_feedback == super::EcnFeedback::Classic {
            return Err(Broken {
                option: "ecn_feedback",
                got: "'classic'".into(),
                expected: "'dctcp' or 'accecn' with cc_params.ecn_low = true (RFC 3168's ECE-until-CWR marks \
                           every segment of a window as CE)"
                    .into(),
            });
        }
    }
    if t.max_rto_ps < t.min_rto_ps {
        return Err(Broken {
            option: "max_rto",
            got: format!("{} ps", t.max_rto_ps),
            expected: "a time ≥ min_rto".into(),
        });
    }
    Ok(())
}

/// The flow's algorithm takes an `ecn_low` parameter (BBRv3: the route marks
/// at a shallow threshold) and it is on.
fn uses_ecn_low(t: &TcpCfg) -> bool {
    let Some(spec) = crate::cc::spec(&t.cc) else { return false };
    if !spec.params.iter().any(|p| p.name == "ecn_low") {
        return false;
    }
    crate::cc::params::resolve(spec, t.cc_preset.as_deref(), &t.cc_params).is_ok_and(|p| p.flag("ecn_low"))
}

/// Apply `tcp_rules` to a resolved `[tcp]` configuration given as JSON
/// (`_core.check_tcp`): `Ok(None)` when it passes, `Ok(Some(broken))` when a
/// rule fails, `Err` when the JSON is not a TCP configuration.
pub fn check_tcp_json(json: &str) -> Result<Option<Broken>, String> {
    let mut de = serde_json::Deserializer::from_str(json);
    let t = super::tcp::deserialize_with_stack(&mut de).map_err(|e| e.to_string())?;
    Ok(tcp_rules(&t).err())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::tcp::{MAX_INITIAL_WINDOW, RTO_FLOOR_PS};
    use crate::config::Stack;

    #[test]
    fn every_option_names_a_field_of_the_resolved_configuration() {
        let v = serde_json::to_value(TcpCfg::for_stack(Stack::Linux, "newreno")).unwrap();
        let fields: std::collections::BTreeSet<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let named: std::collections::BTreeSet<&str> = TCP.iter().map(|o| o.core).collect();
        assert_eq!(fields, named, "the table and TcpCfg list the same fields");
        assert_eq!(named.len(), TCP.len(), "no field twice");
    }

    #[test]
    fn each_choice_is_a_value_the_configuration_accepts() {
        for o in TCP {
            if let Kind::Choice(cs) = o.kind {
                for c in cs {
                    let mut v = serde_json::to_value(TcpCfg::for_stack(Stack::Linux, "newreno")).unwrap();
                    v[o.core] = Value::String(c.to_string());
                    // the scoreboard options follow sack; keep them legal
                    let r = check_tcp_json(&v.to_string());
                    assert!(r.is_ok(), "{}: {c} does not deserialize: {r:?}", o.name);
                }
            }
        }
    }

    #[test]
    fn bounds_and_rules_name_the_option_as_written() {
        let base = serde_json::to_value(TcpCfg::for_stack(Stack::Linux, "newreno")).unwrap();
        let broken = |k: &str, x: Value| {
            let mut v = base.clone();
            v[k] = x;
            check_tcp_json(&v.to_string()).unwrap().map(|b| b.option)
        };
        assert_eq!(broken("mss", json!(0)), Some("mss"));
        assert_eq!(broken("mss", json!(65_495)), None);
        assert_eq!(broken("initial_window", json!(MAX_INITIAL_WINDOW + 1)), Some("initial_window"));
        assert_eq!(broken("min_rto_ps", json!(0)), Some("min_rto"));
        // below 1 µs an RTO bound is refused (a timer storm), at 1 µs it is taken
        assert_eq!(broken("min_rto_ps", json!(RTO_FLOOR_PS - 1)), Some("min_rto"));
        assert_eq!(broken("min_rto_ps", json!(RTO_FLOOR_PS)), None);
        assert_eq!(broken("initial_rto_ps", json!(1)), Some("initial_rto"));
        assert_eq!(broken("clock_granularity_ps", json!(0)), None);
        assert_eq!(broken("pacing_ss_ratio", json!(0.0)), Some("pacing_ss_ratio"));
        assert_eq!(broken("sack_blocks", json!(4)), Some("sack_blocks"), "4 blocks with timestamps");
        assert_eq!(broken("rwnd_bytes", json!(100)), Some("rwnd"));
        assert_eq!(broken("max_rto_ps", json!(1)), Some("max_rto"));
        // prr = true written out, with sack off: refused under prr's name
        assert_eq!(broken("sack", json!("off")), Some("prr"));
    }
}
