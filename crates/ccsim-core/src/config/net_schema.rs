//! The option schema of a link direction's models, owned by the core as
//! `[tcp]`'s is (schema.rs): each queue discipline and loss model a
//! scenario names (`queue = {kind = "pie", ...}`, `loss = {kind =
//! "gilbert", ...}`), the configuration variant it resolves to with the
//! fields the kind itself sets, and every option with its resolved field,
//! kind (bounds or accepted values), unit and documentation line. The core
//! validates against it (`QueueCfg::validate` → `queue_rules`,
//! `LossCfg::validate` → `loss_rules`); Python resolves and documents from
//! it (`_core.queue_options()`, `_core.loss_options()`,
//! python/ccsim/scenario/netmodels.py) and asks the core for the rules between
//! options (`_core.check_queue`, `_core.check_loss`). Defaults are the
//! configurations' serde defaults (config/net.rs, config/loss.rs); a
//! queue's buffer (`limit_pkts`, `limit_bytes`) is the link's and is
//! checked there.

use super::loss::LossCfg;
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

/// A queue discipline or loss model as a scenario names it.
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    pub name: &'static str,
    /// The configuration variant's tag (`QueueCfg`, `LossCfg`).
    pub core: &'static str,
    pub fixed: &'static [(&'static str, Fixed)],
    pub opts: &'static [Opt],
    /// Options a scenario must give.
    pub required: &'static [&'static str],
    pub doc: &'static str,
}

pub(super) const T_UPDATE: Kind = Kind::TimeFloor {
    min_ps: MIN_T_UPDATE_PS,
    accepted: "a time ≥ 1us (Linux counts the update period in microseconds)",
};
pub(super) const HZ: Kind = Kind::Number { lo: 0.0, hi: f64::INFINITY, lo_open: false };
pub(super) const PKT_BYTES: Kind = Kind::Int { lo: 1, hi: 65_535 };

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
    Opt { name: "mark_p", core: "mark_p", kind: Prob { lo_open: true }, unit: "", doc: "mark (not drop) an ECN-capable packet picked while p_b < mark_p, and no forced drops below the hard limit (ns-2's use_mark_p_ = true, added 2005-12, ns-2.35's default); needs ecn = true" },
    Opt { name: "mark_p_forced", core: "mark_p_forced", kind: Bool, unit: "", doc: "with mark_p: keep the forced drops above max_th (2·max_th when gentle) and apply mark_p to early picks only, as ns-2.27's mark_p_ did before use_mark_p_; needs mark_p" },
    Opt { name: "target_delay", core: "target_delay_ps", kind: Time { min_ps: 1 }, unit: "time", doc: "adaptive RED / automatic min_th target" },
    Opt { name: "interval", core: "interval_ps", kind: Time { min_ps: 1 }, unit: "time", doc: "adaptive RED update interval" },
    Opt { name: "alpha", core: "alpha", kind: Number { lo: 0.0, hi: f64::INFINITY, lo_open: true }, unit: "", doc: "adaptive RED additive step cap / Feng divisor; none = 0.01 / 3" },
    Opt { name: "beta", core: "beta", kind: Number { lo: 0.0, hi: f64::INFINITY, lo_open: true }, unit: "", doc: "adaptive RED decrease factor / Feng multiplier; none = 0.9 / 2" },
    Opt { name: "top", core: "top", kind: Prob { lo_open: true }, unit: "", doc: "adaptive RED upper bound on max_p" },
    Opt { name: "bottom", core: "bottom", kind: Prob { lo_open: false }, unit: "", doc: "adaptive RED lower bound on max_p; none = min(0.01, 80000/rate)" },
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
/// The queue of a link whose scenario names none: a FIFO that drops
/// arrivals once full (ns-2's DropTail, Linux pfifo), the queue every
/// congestion-control paper compares against.
pub const DEFAULT_QUEUE: &str = "droptail";

pub const QUEUES: &[Variant] = &[
    Variant { name: "droptail", core: "droptail", fixed: &[], opts: &[], required: &[], doc: "tail drop at the buffer (packets or bytes)" },
    Variant { name: "netem", core: "netem", fixed: &[], opts: &[], required: &[], doc: "Linux netem's queue: the buffer counts every packet the link holds, in its delay line too (tc's default limit 1000)" },
    Variant { name: "red", core: "red", fixed: &[OFF], opts: RED, required: &[], doc: "RED (Floyd & Jacobson 1993), as ns-2's REDQueue" },
    Variant { name: "gentle_red", core: "red", fixed: &[GENTLE, OFF], opts: RED, required: &[], doc: "RED with gentle on" },
    Variant { name: "adaptive_red", core: "red", fixed: &[GENTLE, ("adaptive", Fixed::Str("floyd"))], opts: RED, required: &[], doc: "Adaptive RED (Floyd, Gummadi & Shenker 2001): max_p adapted towards target_delay, gentle" },
    Variant { name: "feng_red", core: "red", fixed: &[("adaptive", Fixed::Str("feng"))], opts: RED, required: &[], doc: "self-configuring RED (Feng, Kandlur, Saha & Shin 1999)" },
    Variant { name: "codel", core: "codel", fixed: &[], opts: CODEL, required: &[], doc: "CoDel (RFC 8289)" },
    Variant { name: "fq_codel", core: "fq_codel", fixed: &[], opts: FQ_CODEL, required: &[], doc: "FQ-CoDel (RFC 8290)" },
    Variant { name: "pie", core: "pie", fixed: &[], opts: super::PieCfg::OPTS, required: &[], doc: "PIE (RFC 8033)" },
    Variant { name: "dualpi2", core: "dualpi2", fixed: &[], opts: super::DualPi2Cfg::OPTS, required: &[], doc: "DualPI2 (RFC 9332, Linux sch_dualpi2)" },
];

/// The shortest mean state of a time-driven channel (a two-state loss
/// model's Good or Bad) and of an ON/OFF source's periods: 1 µs. The model
/// steps through every state it passes, so its cost is the run's duration
/// over the mean state; a state far shorter than any packet's transmission
/// changes nothing a packet can see (a 1500-byte packet takes 1.2 µs at
/// 10 Gb/s), and a picosecond state makes a one-second run step through
/// 10^12 states.
pub const MIN_STATE_PS: u64 = crate::units::PS_PER_US;
pub const STATE_TIME: Kind = Kind::TimeDist {
    min_mean_ps: MIN_STATE_PS,
    accepted: "a time or a distribution of times with a mean of at least 1 µs (a 1500-byte packet takes 1.2 µs \
               at 10 Gb/s; shorter states only make the model step through millions of states)",
};
const P: Kind = Kind::Prob { lo_open: false };

/// Loss models (loss.rs). Each link direction draws from its own stream.
#[rustfmt::skip]
const GILBERT: &[Opt] = &[
    Opt { name: "p", core: "p", kind: P, unit: "", doc: "P(Good → Bad) before each packet" },
    Opt { name: "r", core: "r", kind: P, unit: "", doc: "P(Bad → Good) before each packet (simple Gilbert: mean burst 1/r)" },
    Opt { name: "loss_good", core: "loss_good", kind: P, unit: "", doc: "loss probability in Good (1 − k)" },
    Opt { name: "loss_bad", core: "loss_bad", kind: P, unit: "", doc: "loss probability in Bad (1 − h)" },
];
#[rustfmt::skip]
const TWO_STATE: &[Opt] = &[
    Opt { name: "good", core: "good", kind: STATE_TIME, unit: "time", doc: "time spent in Good: a time ('1s') or a distribution table" },
    Opt { name: "bad", core: "bad", kind: STATE_TIME, unit: "time", doc: "time spent in Bad: a time ('10ms') or a distribution table" },
    // how the resolver reads a plain time in good and bad: no field of its own
    Opt { name: "durations", core: "", kind: Kind::Choice(&["fixed", "exponential"]), unit: "", doc: "'fixed' (default) or 'exponential' for plain times" },
    Opt { name: "loss_good", core: "loss_good", kind: P, unit: "", doc: "loss probability in Good" },
    Opt { name: "loss_bad", core: "loss_bad", kind: P, unit: "", doc: "loss probability in Bad (required)" },
    Opt { name: "to_bad_after_good", core: "to_bad_after_good", kind: P, unit: "", doc: "P(next state is Bad) when Good ends; 1 alternates the states" },
    Opt { name: "to_bad_after_bad", core: "to_bad_after_bad", kind: P, unit: "", doc: "P(next state is Bad) when Bad ends; 0 alternates the states (Grieco & Mascolo 2004 use 0.5 and 0.5)" },
];

/// Every loss model, in documentation order.
#[rustfmt::skip]
pub const LOSSES: &[Variant] = &[
    Variant { name: "none", core: "none", fixed: &[], opts: &[], required: &[], doc: "no loss" },
    Variant { name: "bernoulli", core: "bernoulli", fixed: &[], opts: &[Opt { name: "p", core: "p", kind: P, unit: "", doc: "each packet lost independently with probability p" }], required: &["p"], doc: "independent losses" },
    Variant { name: "ber", core: "ber", fixed: &[], opts: &[Opt { name: "ber", core: "ber", kind: P, unit: "", doc: "bit-error rate: a packet of s bytes is lost with 1 − (1 − ber)^(8·s) (ACKs less than data)" }], required: &["ber"], doc: "bit errors" },
    Variant { name: "gilbert", core: "gilbert_elliott", fixed: &[], opts: GILBERT, required: &["p", "r"], doc: "Gilbert–Elliott chain stepped before each packet" },
    Variant { name: "two_state", core: "two_state", fixed: &[], opts: TWO_STATE, required: &["good", "bad", "loss_bad"], doc: "time-driven two-state channel" },
    Variant { name: "scripted", core: "scripted", fixed: &[], opts: &[Opt { name: "drop", core: "drop", kind: Kind::Packets, unit: "", doc: "1-based numbers of the packets to lose on this link direction (tests)" }], required: &["drop"], doc: "test: lose these packets" },
    Variant { name: "ce_every", core: "ce_every", fixed: &[], opts: &[Opt { name: "n", core: "n", kind: Kind::Int { lo: 1, hi: u64::MAX }, unit: "packets", doc: "test marker: CE on every n-th ECN-capable packet" }], required: &["n"], doc: "test: mark every n-th ECN-capable packet" },
    Variant { name: "ce_scripted", core: "ce_scripted", fixed: &[], opts: &[Opt { name: "mark", core: "mark", kind: Kind::Packets, unit: "", doc: "test marker: CE on these 1-based ECN-capable packets" }], required: &["mark"], doc: "test: mark these ECN-capable packets" },
];

impl Fixed {
    fn to_json(self) -> Value {
        match self {
            Fixed::Bool(b) => json!(b),
            Fixed::Str(s) => json!(s),
        }
    }
}

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
/// where the scenario writes none (`default_buffer`).
pub fn queue_json() -> String {
    let mut rows: Value = serde_json::from_str(&variants_json(QUEUES)).expect("JSON");
    for (row, q) in rows.as_array_mut().expect("a list").iter_mut().zip(QUEUES) {
        row["bytes_limit"] = json!(bytes_limit(q.core));
        row["default_buffer"] = json!(default_buffer(q.core));
    }
    rows.to_string()
}

/// The buffer of a link direction whose scenario gives none, as a scenario
/// writes it: netem's own default limit of 1000 packets (iproute2
/// tc/q_netem.c, `netem_parse_opt`: `opt.limit = 1000`) for a netem queue,
/// which imitates `tc qdisc add ... netem` as written without a limit;
/// otherwise one bandwidth-delay product (Villamizar & Song 1994's rule of
/// thumb, the usual choice in congestion-control studies).
pub fn default_buffer(core: &str) -> &'static str {
    if core == "netem" {
        "1000pkt"
    } else {
        "1bdp"
    }
}

/// Whether the queue configuration `core` has a byte limit (DropTail, the
/// RED family, PIE), read from `QueueCfg` itself: the others count packets
/// only and refuse `limit_bytes`.
pub fn bytes_limit(core: &str) -> bool {
    serde_json::from_value::<QueueCfg>(json!({"kind": core, "limit_pkts": 1, "limit_bytes": 1})).is_ok()
}

/// The loss models as JSON (`_core.loss_options()`).
pub fn loss_json() -> String {
    variants_json(LOSSES)
}

/// The variant of `table` whose tag the serialized configuration `v` has.
fn variant_of(table: &'static [Variant], v: &Value) -> &'static Variant {
    let tag = v["kind"].as_str().unwrap_or_default();
    table.iter().find(|k| k.core == tag).expect("every configuration variant is in its table")
}

/// Each option's value against its kind, then the rules between options.
/// `Broken::option` is an option as a scenario writes it, or a field the
/// kind sets (`gentle`, `adaptive`).
pub fn queue_rules(q: &QueueCfg) -> Result<(), Broken> {
    if matches!(q, QueueCfg::Droptail { .. } | QueueCfg::Netem { .. }) {
        // no options: nothing to check (and a 100,000-flow dumbbell's
        // 400,000 access links skip the serialisation below)
        return Ok(());
    }
    let v = serde_json::to_value(q).expect("QueueCfg serializes");
    check_kinds(variant_of(QUEUES, &v).opts, &v)?;
    if let QueueCfg::Red { min_th, max_th, gentle, adaptive, mark_p, mark_p_forced, ecn, .. } = q {
        if *mark_p_forced && mark_p.is_none() {
            return Err(Broken {
                option: "mark_p_forced",
                got: "true".into(),
                expected: "left out unless mark_p is given (it says how mark_p treats the forced-drop region)".into(),
            });
        }
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

/// A loss model's options against their kinds, then the rules between them.
pub fn loss_rules(l: &LossCfg) -> Result<(), Broken> {
    if matches!(l, LossCfg::None) {
        return Ok(()); // the common case, on every link without a loss model
    }
    let v = serde_json::to_value(l).expect("LossCfg serializes");
    check_kinds(variant_of(LOSSES, &v).opts, &v)?;
    if let LossCfg::GilbertElliott { p, r, .. } = l {
        if *p + *r == 0.0 {
            return Err(Broken {
                option: "r",
                got: format!("{r}"),
                expected: "p + r > 0 (with both 0 the chain never moves)".into(),
            });
        }
    }
    Ok(())
}

/// Apply `loss_rules` to a resolved loss model given as JSON
/// (`_core.check_loss`), as `check_queue_json`.
pub fn check_loss_json(json: &str) -> Result<Option<Broken>, String> {
    let l: LossCfg = serde_json::from_str(json).map_err(|e| e.to_string())?;
    Ok(loss_rules(&l).err())
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
    fn byte_limits_are_the_tail_drop_red_and_pie_kinds() {
        let with: Vec<&str> = QUEUES.iter().filter(|q| bytes_limit(q.core)).map(|q| q.name).collect();
        assert_eq!(with, ["droptail", "red", "gentle_red", "adaptive_red", "feng_red", "pie"]);
    }

    #[test]
    fn the_default_queue_is_a_kind_and_netem_defaults_to_tcs_limit() {
        assert!(QUEUES.iter().any(|q| q.name == DEFAULT_QUEUE && q.core == DEFAULT_QUEUE));
        // iproute2 tc/q_netem.c netem_parse_opt: opt.limit = 1000
        assert_eq!(default_buffer("netem"), "1000pkt");
        assert!(QUEUES.iter().filter(|q| q.core != "netem").all(|q| default_buffer(q.core) == "1bdp"));
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
        for l in LOSSES {
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
