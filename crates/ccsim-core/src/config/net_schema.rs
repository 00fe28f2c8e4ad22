//! The option schema of a link direction's models, owned by the core as
//! `[tcp]`'s is (schema.rs): each queue discipline and loss model a
//! scenario names (`queue = {kind = "pie", ...}`, `loss = {kind =
//! "gilbert", ...}`), the configuration variant it resolves to with the
//! fields the kind itself sets, and every option with its resolved field,
//! kind (bounds or accepted values), unit and documentation line. Each
//! queue kind and loss model declares its own in its file (queue/,
//! `QueueKind`; loss/, `LossKind`), listed once by a registry (`queues!`,
//! `losses!`); this module exports them. The core
//! validates against it (`QueueCfg::validate` → `QueueCfg::rules`,
//! `LossCfg::validate` → `LossCfg::rules`); Python resolves and documents from
//! it (`_core.queue_options()`, `_core.loss_options()`,
//! python/ccsim/scenario/netmodels.py) and asks the core for the rules between
//! options (`_core.check_queue`, `_core.check_loss`). A queue's buffer
//! (`limit_pkts`, `limit_bytes`) is the link's and is checked there.

use super::schema::Broken;
use crate::loss::LossCfg;
pub use crate::loss::{losses, MIN_STATE_PS, STATE_TIME};
pub use crate::opts::{Fixed, Variant};
use crate::queue::QueueCfg;
pub use crate::queue::{queues, DEFAULT_QUEUE};
use serde_json::{json, Value};

fn variants_json(table: &[Variant]) -> String {
    let rows: Vec<Value> = table
        .iter()
        .map(|q| {
            json!({
                "name": q.name,
                "core": q.core,
                "fixed": q.fixed.iter().map(|(k, v)| (k.to_string(), v.to_json())).collect::<serde_json::Map<_, _>>(),
                "options": q.opts.iter().map(|o| o.to_json()).collect::<Vec<_>>(),
                "required": q.required,
                "doc": q.doc,
            })
        })
        .collect();
    Value::Array(rows).to_string()
}

/// The queue kinds as JSON (`_core.queue_options()`), each saying whether
/// its buffer may be a byte limit (`bytes_limit`) and the buffer it gets
/// where the scenario writes none (`QueueKind::DEFAULT_BUFFER`).
pub fn queue_json() -> String {
    let kinds = queues();
    let mut rows: Value = serde_json::from_str(&variants_json(&kinds)).expect("JSON");
    for (row, q) in rows.as_array_mut().expect("a list").iter_mut().zip(&kinds) {
        row["bytes_limit"] = json!(bytes_limit(q.core));
        row["default_buffer"] = json!(crate::queue::default_buffer(q.core).expect("a registered kind"));
    }
    rows.to_string()
}

/// Whether the queue configuration `core` has a byte limit (DropTail, the
/// RED family, PIE), read from `QueueCfg` itself: the others count packets
/// only and refuse `limit_bytes`.
pub fn bytes_limit(core: &str) -> bool {
    serde_json::from_value::<QueueCfg>(json!({"kind": core, "limit_pkts": 1, "limit_bytes": 1})).is_ok()
}

/// The loss models as JSON (`_core.loss_options()`).
pub fn loss_json() -> String {
    variants_json(&losses())
}

/// Apply `LossCfg::rules` to a resolved loss model given as JSON
/// (`_core.check_loss`), as `check_queue_json`.
pub fn check_loss_json(json: &str) -> Result<Option<Broken>, String> {
    let l: LossCfg = serde_json::from_str(json).map_err(|e| e.to_string())?;
    Ok(l.rules().err())
}

/// Apply `QueueCfg::rules` to a resolved queue given as JSON
/// (`_core.check_queue`), with a placeholder buffer when it has none yet
/// (the link's buffer is resolved later and checked by the link):
/// `Ok(None)` when it passes, `Ok(Some(broken))` when a rule fails, `Err`
/// when the JSON is not a queue.
pub fn check_queue_json(json: &str) -> Result<Option<Broken>, String> {
    let mut v: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    if v.get("limit_pkts").is_none() && v.get("limit_bytes").is_none() {
        v["limit_pkts"] = json!(1);
    }
    let q: QueueCfg = serde_json::from_value(v).map_err(|e| e.to_string())?;
    Ok(q.rules().err())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn broken(q: Value) -> Option<&'static str> {
        check_queue_json(&q.to_string()).unwrap().map(|b| b.option)
    }

    #[test]
    fn byte_limits_are_the_tail_drop_red_and_pie_kinds() {
        let with: Vec<&str> = queues().iter().filter(|q| bytes_limit(q.core)).map(|q| q.name).collect();
        assert_eq!(with, ["droptail", "red", "gentle_red", "adaptive_red", "feng_red", "pie"]);
    }

    #[test]
    fn the_default_queue_is_a_kind_and_netem_defaults_to_tcs_limit() {
        assert!(queues().iter().any(|q| q.name == DEFAULT_QUEUE && q.core == DEFAULT_QUEUE));
        // iproute2 tc/q_netem.c netem_parse_opt: opt.limit = 1000
        let buffer = |core| crate::queue::default_buffer(core).unwrap();
        assert_eq!(buffer("netem"), "1000pkt");
        assert!(queues().iter().filter(|q| q.core != "netem").all(|q| buffer(q.core) == "1bdp"));
    }

    #[test]
    fn every_option_names_a_field_of_its_queue() {
        for k in &queues() {
            let mut v = json!({"kind": k.core, "limit_pkts": 10});
            for (f, x) in k.fixed {
                v[*f] = x.to_json();
            }
            let q: QueueCfg = serde_json::from_value(v).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            let fields = serde_json::to_value(&q).unwrap();
            for o in k.opts {
                assert!(fields.get(o.core).is_some(), "{}: {} is not a field", k.name, o.core);
            }
            for (f, _) in k.fixed {
                assert!(fields.get(*f).is_some(), "{}: fixed {f} is not a field", k.name);
            }
            assert_eq!(q.rules(), Ok(()), "{}: its defaults pass", k.name);
        }
    }

    #[test]
    fn every_loss_option_names_a_field_and_rules_name_it() {
        let ok = |v: Value| check_loss_json(&v.to_string()).unwrap().map(|b| b.option);
        assert_eq!(ok(json!({"kind": "bernoulli", "p": 0.5})), None);
        assert_eq!(ok(json!({"kind": "bernoulli", "p": 1.5})), Some("p"));
        assert_eq!(ok(json!({"kind": "gilbert_elliott", "p": 0.0, "r": 0.0})), Some("r"));
        let state = |mean_ps: f64| {
            ok(json!({"kind": "two_state", "good": {"kind": "fixed", "value": mean_ps},
                      "bad": {"kind": "exponential", "mean": 1e9}, "loss_bad": 1.0}))
        };
        assert_eq!(state(MIN_STATE_PS as f64), None);
        assert_eq!(state(MIN_STATE_PS as f64 - 1.0), Some("good"), "a state below 1 µs is an event storm");
        assert_eq!(ok(json!({"kind": "scripted", "drop": [1, 5, 9]})), None);
        assert_eq!(ok(json!({"kind": "scripted", "drop": [5, 5]})), Some("drop"));
        assert_eq!(ok(json!({"kind": "ce_scripted", "mark": [0, 3]})), Some("mark"));
        assert_eq!(ok(json!({"kind": "scripted", "drop": []})), Some("drop"));
        assert_eq!(ok(json!({"kind": "ce_every", "n": 0})), Some("n"));
        for l in &losses() {
            for r in l.required {
                assert!(l.opts.iter().any(|o| o.name == *r), "{}: required {r} is an option", l.name);
            }
        }
    }

    #[test]
    fn bounds_and_rules_name_the_option_as_written() {
        assert_eq!(broken(json!({"kind": "dualpi2", "coupling": 0.5})), Some("coupling"));
        assert_eq!(broken(json!({"kind": "dualpi2", "coupling": 255.0})), None);
        assert_eq!(broken(json!({"kind": "dualpi2", "c_protection": 101})), Some("c_protection"));
        assert_eq!(broken(json!({"kind": "pie", "t_update_ps": crate::queue::MIN_T_UPDATE_PS - 1})), Some("t_update"));
        assert_eq!(broken(json!({"kind": "pie", "t_update_ps": crate::queue::MIN_T_UPDATE_PS})), None);
        assert_eq!(broken(json!({"kind": "pie", "mark_ecnth": 1.5})), Some("mark_ecnth"));
        assert_eq!(broken(json!({"kind": "codel", "target_ps": 0})), Some("target"));
        assert_eq!(broken(json!({"kind": "fq_codel", "buckets": 65_537})), Some("buckets"));
        assert_eq!(broken(json!({"kind": "red", "max_p": 0.0})), Some("max_p"));
        assert_eq!(broken(json!({"kind": "red", "bottom": 0.0})), None);
        assert_eq!(broken(json!({"kind": "red", "w_q": null})), None, "auto");
        assert_eq!(broken(json!({"kind": "red", "alpha": 0.0})), Some("alpha"));
        assert_eq!(broken(json!({"kind": "red", "min_th": 10.0, "max_th": 5.0})), Some("max_th"));
        assert_eq!(broken(json!({"kind": "red", "max_th": 0.0})), Some("max_th"));
        // step marking (DCTCP's K): gentle, adaptation and mark_p refused
        let step = |extra: Value| {
            let mut v = json!({"kind": "red", "min_th": 20.0, "max_th": 20.0, "w_q": 1.0, "ecn": true});
            v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            broken(v)
        };
        assert_eq!(step(json!({})), None);
        assert_eq!(step(json!({"gentle": true})), Some("gentle"));
        assert_eq!(step(json!({"adaptive": "floyd"})), Some("adaptive"));
        assert_eq!(step(json!({"mark_p": 1.0})), Some("mark_p"));
        assert_eq!(broken(json!({"kind": "red", "mark_p": 0.5})), Some("mark_p"), "mark_p without ecn");
        assert_eq!(broken(json!({"kind": "red", "mark_p": 0.5, "ecn": true})), None);
    }
}
