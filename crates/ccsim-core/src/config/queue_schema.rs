//! The queue disciplines' option schema, owned by the core as `[tcp]`'s is
//! (schema.rs): each queue kind a scenario names (`queue = {kind = "pie",
//! ...}`), the `QueueCfg` variant it resolves to with the fields the kind
//! itself sets, and every option with its resolved field, kind (bounds or
//! accepted values), unit and documentation line. The core validates
//! against it (`QueueCfg::validate` → `queue_rules`), Python resolves and
//! documents from it (`_core.queue_options()`, python/ccsim/netmodels.py)
//! and asks the core for the rules between options (`_core.check_queue`).
//! Defaults are `QueueCfg`'s serde defaults (config/net.rs), the buffer
//! (`limit_pkts`, `limit_bytes`) is the link's and is checked there.

use super::net::{QueueCfg, RedAdaptiveCfg, MIN_T_UPDATE_PS};
use super::schema::{check_kinds, Broken, Kind, Opt};
use serde_json::{json, Value};

/// A field a queue kind sets itself (the RED family's `gentle` and
/// `adaptive`): the user may write the same value, not another.
#[derive(Clone, Copy, Debug)]
pub enum Fixed {
    Bool(bool),
    Str(&'static str),
}

/// A queue kind as a scenario names it.
#[derive(Clone, Copy, Debug)]
pub struct QueueKind {
    pub name: &'static str,
    /// The `QueueCfg` variant's tag.
    pub core: &'static str,
    pub fixed: &'static [(&'static str, Fixed)],
    pub opts: &'static [Opt],
    pub doc: &'static str,
}

const T_UPDATE: Kind = Kind::TimeFloor {
    min_ps: MIN_T_UPDATE_PS,
    accepted: "a time ≥ 1us (Linux counts the update period in microseconds)",
};
const HZ: Kind = Kind::Number { lo: 0.0, hi: f64::INFINITY, lo_open: false };
const PKT_BYTES: Kind = Kind::Int { lo: 1, hi: 65_535 };

/// RED and its variants (queue/red.rs). Thresholds are in packets
/// (mean-size packets in byte mode); omitted values are set as ns-2 does.
#[rustfmt::skip]
const RED: &[Opt] = {
    use Kind::*;
    &[
    Opt { name: "min_th", core: "min_th", kind: Number { lo: 0.0, hi: f64::INFINITY, lo_open: false }, unit: "packets", doc: "lower threshold, packets; none = max(5, target_delay·C/2) (ns-2 automatic)" },
    Opt { name: "max_th", core: "max_th", kind: Number { lo: 0.0, hi: f64::INFINITY, lo_open: false }, unit: "packets", doc: "upper threshold, packets; none = 3·min_th; = min_th: step marking at K = min_th (DCTCP's ns-2 set-up, with w_q = 1 and ecn = true)" },
    Opt { name: "max_p", core: "max_p", kind: Prob { lo_open: true }, unit: "", doc: "drop probability at max_th (ns-2 linterm 10)" },
    Opt { name: "w_q", core: "w_q", kind: ProbOrAuto, unit: "", doc: "EWMA weight (Floyd & Jacobson 1993); 'auto' = ns-2 1 − exp(−1/(10·RTT·C))" },
    Opt { name: "gentle", core: "gentle", kind: Bool, unit: "", doc: "p rises from max_p to 1 between max_th and 2·max_th (always on for gentle_red and adaptive_red)" },
    Opt { name: "wait", core: "wait", kind: Bool, unit: "", doc: "ns-2 wait_: no drop until count·p_b ≥ 1" },
    Opt { name: "bytes", core: "bytes", kind: Bool, unit: "", doc: "byte mode: queue in bytes/mean_pktsize, p scaled by size/mean_pktsize" },
    Opt { name: "mean_pktsize", core: "mean_pktsize", kind: PKT_BYTES, unit: "bytes", doc: "bytes (ns-2 mean_pktsize_); sets the idle-time decay and byte mode" },
    Opt { name: "ecn", core: "ecn", kind: Bool, unit: "", doc: "mark ECN-capable packets instead of dropping them early (ns-2 setbit_)" },
    Opt { name: "mark_p", core: "mark_p", kind: Prob { lo_open: true }, unit: "", doc: "mark (not drop) an ECN-capable packet picked while p_b < mark_p, no forced drops below the hard limit (ns-2 use_mark_p_); needs ecn = true" },
    Opt { name: "target_delay", core: "target_delay_ps", kind: Time { min_ps: 1 }, unit: "time", doc: "adaptive RED / automatic min_th target" },
    Opt { name: "interval", core: "interval_ps", kind: Time { min_ps: 1 }, unit: "time", doc: "adaptive RED update interval" },
    Opt { name: "alpha", core: "alpha", kind: Number { lo: 0.0, hi: f64::INFINITY, lo_open: true }, unit: "", doc: "adaptive RED additive step cap / Feng divisor; none = 0.01 / 3" },
    Opt { name: "beta", core: "beta", kind: Number { lo: 0.0, hi: f64::INFINITY, lo_open: true }, unit: "", doc: "adaptive RED decrease factor / Feng multiplier; none = 0.9 / 2" },
    Opt { name: "top", core: "top", kind: Prob { lo_open: true }, unit: "", doc: "adaptive RED upper bound on max_p" },
    Opt { name: "bottom", core: "bottom", kind: Prob { lo_open: false }, unit: "", doc: "adaptive RED lower bound on max_p; none = min(0.01, 80000/rate)" },
    ]
};

/// PIE (RFC 8033 defaults). The buffer is its hard limit.
#[rustfmt::skip]
const PIE: &[Opt] = {
    use Kind::*;
    &[
    Opt { name: "target", core: "target_ps", kind: Time { min_ps: 1 }, unit: "time", doc: "QDELAY_REF, the target queueing delay" },
    Opt { name: "t_update", core: "t_update_ps", kind: T_UPDATE, unit: "time", doc: "drop-probability update period" },
    Opt { name: "alpha", core: "alpha", kind: HZ, unit: "Hz", doc: "Hz, weight of the delay error" },
    Opt { name: "beta", core: "beta", kind: HZ, unit: "Hz", doc: "Hz, weight of the delay trend" },
    Opt { name: "max_burst", core: "max_burst_ps", kind: Time { min_ps: 0 }, unit: "time", doc: "burst allowance after an idle, uncongested period" },
    Opt { name: "mean_pktsize", core: "mean_pktsize", kind: PKT_BYTES, unit: "bytes", doc: "bytes; no early drop while at most two such packets wait" },
    Opt { name: "ecn", core: "ecn", kind: Bool, unit: "", doc: "mark ECN-capable packets while p ≤ mark_ecnth, drop above" },
    Opt { name: "mark_ecnth", core: "mark_ecnth", kind: Prob { lo_open: false }, unit: "", doc: "highest probability at which ECN-capable packets are marked" },
    Opt { name: "derandomize", core: "derandomize", kind: Bool, unit: "", doc: "RFC 8033 §5.1 accumulated-probability de-randomization (on in Linux)" },
    ]
};

/// DualPI2 (RFC 9332; Linux sch_dualpi2 defaults). The buffer is the
/// packet limit of both queues together.
#[rustfmt::skip]
const DUALPI2: &[Opt] = {
    use Kind::*;
    &[
    Opt { name: "target", core: "target_ps", kind: Time { min_ps: 0 }, unit: "time", doc: "PI2 target queueing delay (RFC 9332: 15 ms)" },
    Opt { name: "t_update", core: "t_update_ps", kind: T_UPDATE, unit: "time", doc: "PI2 update period" },
    Opt { name: "alpha", core: "alpha", kind: HZ, unit: "Hz", doc: "Hz, integral gain (Linux 41/256 ≈ RFC 9332's 0.16)" },
    Opt { name: "beta", core: "beta", kind: HZ, unit: "Hz", doc: "Hz, proportional gain (Linux 819/256 ≈ RFC 9332's 3.2)" },
    Opt { name: "step_thresh", core: "step_thresh_ps", kind: Time { min_ps: 0 }, unit: "time", doc: "L queue's native AQM: an L packet that waited longer is marked" },
    Opt { name: "min_qlen_step", core: "min_qlen_step", kind: Int { lo: 0, hi: u32::MAX as u64 }, unit: "packets", doc: "packets: the step applies only to L packets that found at least this many L packets waiting" },
    Opt { name: "coupling", core: "coupling", kind: Number { lo: 1.0, hi: 255.0, lo_open: false }, unit: "", doc: "k: the L queue marks with k·p', the C queue with p'² (RFC 9332: 2)" },
    Opt { name: "c_protection", core: "c_protection", kind: Int { lo: 0, hi: 100 }, unit: "percent", doc: "percent: the C queue's weight in the WRR scheduler (L gets the rest)" },
    Opt { name: "drop_overload", core: "drop_overload", kind: Bool, unit: "", doc: "when k·p' > 1, drop L packets with p'² (true) or mark only and let the queue grow (false)" },
    Opt { name: "drop_early", core: "drop_early", kind: Bool, unit: "", doc: "decide drops and marks at enqueue (true) instead of dequeue (Linux default)" },
    Opt { name: "ecn_mask", core: "ecn_mask", kind: Choice(&["l4s_ect", "any_ect"]), unit: "", doc: "'l4s_ect' (ECT(1) and CE to the L queue) or 'any_ect' (ECT(0) too)" },
    Opt { name: "mtu", core: "mtu", kind: PKT_BYTES, unit: "bytes", doc: "bytes: no PI marking or dropping while less than 2·mtu is queued" },
    ]
};

/// CoDel (RFC 8289; Linux sch_codel defaults). The buffer is its packet
/// limit. FQ-CoDel (RFC 8290) adds the last two.
#[rustfmt::skip]
const FQ_CODEL: &[Opt] = {
    use Kind::*;
    &[
    Opt { name: "target", core: "target_ps", kind: Time { min_ps: 1 }, unit: "time", doc: "acceptable standing queue delay" },
    Opt { name: "interval", core: "interval_ps", kind: Time { min_ps: 1 }, unit: "time", doc: "time the delay must stay above target before dropping; drop spacing interval/√count" },
    Opt { name: "mtu", core: "mtu", kind: PKT_BYTES, unit: "bytes", doc: "bytes: no drop while at most this much is queued behind the head (RFC 8289 MAXPACKET)" },
    Opt { name: "ecn", core: "ecn", kind: Bool, unit: "", doc: "mark ECN-capable packets instead of dropping them" },
    Opt { name: "quantum", core: "quantum", kind: Int { lo: 1, hi: i32::MAX as u64 }, unit: "bytes", doc: "fq_codel only: DRR bytes per round" },
    Opt { name: "buckets", core: "buckets", kind: Int { lo: 1, hi: 65_536 }, unit: "queues", doc: "fq_codel only: flow queues, flows hashed into them" },
    ]
};
const CODEL: &[Opt] = FQ_CODEL.split_at(4).0;

const OFF: (&str, Fixed) = ("adaptive", Fixed::Str("off"));
const GENTLE: (&str, Fixed) = ("gentle", Fixed::Bool(true));

/// Every queue kind, in documentation order.
#[rustfmt::skip]
pub const QUEUES: &[QueueKind] = &[
    QueueKind { name: "droptail", core: "droptail", fixed: &[], opts: &[], doc: "tail drop at the buffer (packets or bytes)" },
    QueueKind { name: "netem", core: "netem", fixed: &[], opts: &[], doc: "Linux netem's queue: the buffer counts every packet the link holds, in its delay line too (tc's default limit 1000)" },
    QueueKind { name: "red", core: "red", fixed: &[OFF], opts: RED, doc: "RED (Floyd & Jacobson 1993), as ns-2's REDQueue" },
    QueueKind { name: "gentle_red", core: "red", fixed: &[GENTLE, OFF], opts: RED, doc: "RED with gentle on" },
    QueueKind { name: "adaptive_red", core: "red", fixed: &[GENTLE, ("adaptive", Fixed::Str("floyd"))], opts: RED, doc: "Adaptive RED (Floyd, Gummadi & Shenker 2001): max_p adapted towards target_delay, gentle" },
    QueueKind { name: "feng_red", core: "red", fixed: &[("adaptive", Fixed::Str("feng"))], opts: RED, doc: "self-configuring RED (Feng, Kandlur, Saha & Shin 1999)" },
    QueueKind { name: "codel", core: "codel", fixed: &[], opts: CODEL, doc: "CoDel (RFC 8289)" },
    QueueKind { name: "fq_codel", core: "fq_codel", fixed: &[], opts: FQ_CODEL, doc: "FQ-CoDel (RFC 8290)" },
    QueueKind { name: "pie", core: "pie", fixed: &[], opts: PIE, doc: "PIE (RFC 8033)" },
    QueueKind { name: "dualpi2", core: "dualpi2", fixed: &[], opts: DUALPI2, doc: "DualPI2 (RFC 9332, Linux sch_dualpi2)" },
];

impl Fixed {
    fn to_json(self) -> Value {
        match self {
            Fixed::Bool(b) => json!(b),
            Fixed::Str(s) => json!(s),
        }
    }
}

/// The queue kinds as JSON (`_core.queue_options()`).
pub fn queue_json() -> String {
    let rows: Vec<Value> = QUEUES
        .iter()
        .map(|q| {
            json!({
                "name": q.name,
                "core": q.core,
                "fixed": q.fixed.iter().map(|(k, v)| (k.to_string(), v.to_json())).collect::<serde_json::Map<_, _>>(),
                "options": q.opts.iter().map(|o| o.to_json()).collect::<Vec<_>>(),
                "doc": q.doc,
            })
        })
        .collect();
    Value::Array(rows).to_string()
}

/// Each option's value against its kind, then the rules between options.
/// `Broken::option` is an option as a scenario writes it, or a field the
/// kind sets (`gentle`, `adaptive`).
pub fn queue_rules(q: &QueueCfg) -> Result<(), Broken> {
    let v = serde_json::to_value(q).expect("QueueCfg serializes");
    let tag = v["kind"].as_str().unwrap_or_default();
    let kind = QUEUES.iter().find(|k| k.core == tag).expect("every QueueCfg variant has a kind");
    check_kinds(kind.opts, &v)?;
    if let QueueCfg::Red { min_th, max_th, gentle, adaptive, mark_p, ecn, .. } = q {
        if let (Some(lo), Some(hi)) = (min_th, max_th) {
            if hi < lo {
                return Err(Broken {
                    option: "max_th",
                    got: format!("{hi}"),
                    expected: format!("≥ min_th = {lo} (equal: step marking at K = min_th)"),
                });
            }
            if hi == lo {
                // step marking (red.rs) has no use for these
                if *adaptive != RedAdaptiveCfg::Off {
                    return Err(Broken {
                        option: "adaptive",
                        got: "adaptive".into(),
                        expected: format!("'red' with min_th = max_th = {lo} (step marking has no max_p to adapt)"),
                    });
                }
                if *gentle {
                    return Err(Broken {
                        option: "gentle",
                        got: "true".into(),
                        expected: format!(
                            "RED without gentle with min_th = max_th = {lo} (step marking has no region above max_th to soften)"
                        ),
                    });
                }
                if mark_p.is_some() {
                    return Err(Broken {
                        option: "mark_p",
                        got: format!("{}", mark_p.unwrap_or_default()),
                        expected: format!(
                            "left out with min_th = max_th = {lo} (step marking marks every packet picked)"
                        ),
                    });
                }
            }
        } else if let Some(hi) = max_th {
            if *hi <= 0.0 {
                return Err(Broken {
                    option: "max_th",
                    got: format!("{hi}"),
                    expected: "a number > 0 (packets)".into(),
                });
            }
        }
        if mark_p.is_some() && !ecn {
            // a queue that does not mark never uses mark_p: refused rather than ignored
            return Err(Broken {
                option: "mark_p",
                got: format!("{}", mark_p.unwrap_or_default()),
                expected: "left out unless ecn = true (mark_p sets which ECN-capable packets are marked \
                           instead of dropped)"
                    .into(),
            });
        }
    }
    Ok(())
}

/// Apply `queue_rules` to a resolved queue given as JSON
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
    Ok(queue_rules(&q).err())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn broken(q: Value) -> Option<&'static str> {
        check_queue_json(&q.to_string()).unwrap().map(|b| b.option)
    }

    #[test]
    fn every_option_names_a_field_of_its_queue() {
        for k in QUEUES {
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
            assert_eq!(queue_rules(&q), Ok(()), "{}: its defaults pass", k.name);
        }
    }

    #[test]
    fn bounds_and_rules_name_the_option_as_written() {
        assert_eq!(broken(json!({"kind": "dualpi2", "coupling": 0.5})), Some("coupling"));
        assert_eq!(broken(json!({"kind": "dualpi2", "coupling": 255.0})), None);
        assert_eq!(broken(json!({"kind": "dualpi2", "c_protection": 101})), Some("c_protection"));
        assert_eq!(broken(json!({"kind": "pie", "t_update_ps": MIN_T_UPDATE_PS - 1})), Some("t_update"));
        assert_eq!(broken(json!({"kind": "pie", "t_update_ps": MIN_T_UPDATE_PS})), None);
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
