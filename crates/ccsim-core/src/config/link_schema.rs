//! The option schema of what a link direction may add to its transmitter,
//! owned by the core as the queue and loss models' is (net_schema.rs): the
//! token-bucket shapers a scenario names (`shaper = "htb"` or a table) with
//! their options, kinds, units, doc lines and defaults, and the netem-like
//! reordering (`reorder = {jitter = "2ms"}`) with the rules between its
//! options. The core validates against it (`ShaperCfg::validate` →
//! `shaper_rules`, `LinkCfg::validate` → `reorder_rules`); Python resolves
//! and documents from it (`_core.link_options()`, `_core.check_shaper`,
//! `_core.check_reorder`, python/ccsim/scenario/netmodels.py).

use super::net::{ReorderCfg, ShaperCfg, MAX_BURST_BYTES};
use super::schema::{check_kinds, Broken, Kind, Opt};
use super::BucketRule;
use serde_json::{json, Value};

/// Most bytes a shaper counts on top of each packet.
pub const MAX_OVERHEAD_BYTES: u64 = 1_000;

/// A token-bucket shaper as a scenario names it.
#[derive(Clone, Copy, Debug)]
pub struct Shaper {
    pub name: &'static str,
    pub rule: BucketRule,
    pub opts: &'static [Opt],
    /// Values of the options left out, as a scenario writes them (JSON text).
    pub defaults: &'static [(&'static str, &'static str)],
    pub doc: &'static str,
}

const BURST: Kind = Kind::Size { lo: 1, hi: MAX_BURST_BYTES };

/// A shaper's options; TBF has the first two.
#[rustfmt::skip]
const SHAPER_OPTS: &[Opt] = &[
    Opt { name: "burst", core: "burst_bytes", kind: BURST, unit: "bytes", doc: "depth of the rate bucket" },
    Opt { name: "overhead", core: "overhead_bytes", kind: Kind::Int { lo: 0, hi: MAX_OVERHEAD_BYTES }, unit: "bytes", doc: "bytes counted on top of each packet (the Ethernet header on a veth)" },
    Opt { name: "cburst", core: "cburst_bytes", kind: BURST, unit: "bytes", doc: "htb only: depth of the ceil bucket" },
];

/// Every shaper, with the defaults of Mininet's TCLink (mininet/link.py,
/// `TCIntf.bwCmds`): HTB `rate R burst 15k` (tc reads 15k as 15 × 1024
/// bytes, iproute2 `get_size`) with tc's cburst = ceil/HZ + mtu = 1600
/// bytes (iproute2 tc/q_htb.c, mtu 1600; HZ is 10^9 with high-resolution
/// timers, /proc/net/psched); TBF `burst 15000`. Both count the 14-byte
/// Ethernet header of each packet (skb->len on a veth).
#[rustfmt::skip]
pub const SHAPERS: &[Shaper] = &[
    Shaper { name: "htb", rule: BucketRule::Htb, opts: SHAPER_OPTS, defaults: &[("burst", "\"15360B\""), ("overhead", "14"), ("cburst", "\"1600B\"")], doc: "Linux HTB (Mininet's default): send while both buckets hold ≥ 0 tokens, charge after" },
    Shaper { name: "tbf", rule: BucketRule::Tbf, opts: SHAPER_OPTS.split_at(2).0, defaults: &[("burst", "\"15000B\""), ("overhead", "14")], doc: "Linux TBF: send when the bucket holds the packet's cost" },
];

/// Reordering's options (`ReorderCfg`), after netem's `delay … jitter` and
/// `reorder`.
#[rustfmt::skip]
pub const REORDER: &[Opt] = &[
    Opt { name: "jitter", core: "jitter_ps", kind: Kind::Time { min_ps: 0 }, unit: "time", doc: "every packet waits a uniform extra 0..jitter" },
    Opt { name: "probability", core: "probability", kind: Kind::Prob { lo_open: false }, unit: "", doc: "share of packets held back by `delay` more; later packets overtake them" },
    Opt { name: "delay", core: "delay_ps", kind: Kind::Time { min_ps: 0 }, unit: "time", doc: "extra delay of a held packet" },
];

/// Values of reordering's options left out, as a scenario writes them.
pub const REORDER_DEFAULTS: &[(&str, &str)] = &[("jitter", "\"0s\""), ("probability", "0"), ("delay", "\"0s\"")];

fn defaults_json(d: &[(&str, &str)]) -> Value {
    Value::Object(d.iter().map(|(k, v)| (k.to_string(), serde_json::from_str(v).expect("a default is JSON"))).collect())
}

/// Shapers and reordering as JSON (`_core.link_options()`).
pub fn link_json() -> String {
    let shapers: Vec<Value> = SHAPERS
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "rule": s.rule,
                "options": s.opts.iter().map(|o| o.to_json()).collect::<Vec<_>>(),
                "defaults": defaults_json(s.defaults),
                "doc": s.doc,
            })
        })
        .collect();
    json!({
        "shapers": shapers,
        "reorder": {
            "options": REORDER.iter().map(|o| o.to_json()).collect::<Vec<_>>(),
            "defaults": defaults_json(REORDER_DEFAULTS),
        },
    })
    .to_string()
}

/// A shaper's options against their kinds and its rule's buckets.
pub fn shaper_rules(s: &ShaperCfg) -> Result<(), Broken> {
    let spec = SHAPERS.iter().find(|x| x.rule == s.rule).expect("every rule has a shaper");
    check_kinds(spec.opts, &serde_json::to_value(s).expect("ShaperCfg serializes"))?;
    match (s.rule, s.cburst_bytes) {
        (BucketRule::Htb, None) => {
            Err(Broken { option: "cburst", got: "none".into(), expected: "HTB's ceil bucket depth (bytes)".into() })
        }
        (BucketRule::Tbf, Some(b)) => Err(Broken {
            option: "cburst",
            got: format!("{b} bytes"),
            expected: "no cburst: TBF has one bucket".into(),
        }),
        _ => Ok(()),
    }
}

/// Reordering's options against their kinds and each other. A table that
/// reorders nothing, or sets a delay no packet is held for, is refused: it
/// would be ignored.
pub fn reorder_rules(r: &ReorderCfg) -> Result<(), Broken> {
    check_kinds(REORDER, &serde_json::to_value(r).expect("ReorderCfg serializes"))?;
    let delay = || format!("{} ps", r.delay_ps);
    if r.probability > 0.0 && r.delay_ps == 0 {
        return Err(Broken {
            option: "delay",
            got: delay(),
            expected: "an extra delay > 0 for the held packets when probability > 0".into(),
        });
    }
    if r.probability == 0.0 && r.delay_ps > 0 {
        return Err(Broken {
            option: "delay",
            got: delay(),
            expected: "a delay only with probability > 0 (it is the held packets' extra delay)".into(),
        });
    }
    if !r.is_on() {
        return Err(Broken {
            option: "jitter",
            got: "0 ps".into(),
            expected: "jitter > 0 or probability > 0 (a table that reorders nothing: leave it out)".into(),
        });
    }
    Ok(())
}

/// `shaper_rules` on a shaper given as JSON (`_core.check_shaper`).
pub fn check_shaper_json(json: &str) -> Result<Option<Broken>, String> {
    let s: ShaperCfg = serde_json::from_str(json).map_err(|e| format!("a shaper: {e}"))?;
    Ok(shaper_rules(&s).err())
}

/// `reorder_rules` on reordering given as JSON (`_core.check_reorder`).
pub fn check_reorder_json(json: &str) -> Result<Option<Broken>, String> {
    let r: ReorderCfg = serde_json::from_str(json).map_err(|e| format!("reordering: {e}"))?;
    Ok(reorder_rules(&r).err())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shaper(v: Value) -> Option<&'static str> {
        check_shaper_json(&v.to_string()).expect("parses").map(|b| b.option)
    }

    fn reorder(v: Value) -> Option<&'static str> {
        check_reorder_json(&v.to_string()).expect("parses").map(|b| b.option)
    }

    #[test]
    fn every_shaper_option_names_a_field_and_its_bounds_are_the_cores() {
        for s in SHAPERS {
            for (k, _) in s.defaults {
                assert!(s.opts.iter().any(|o| o.name == *k), "{}: default {k} is an option", s.name);
            }
            let mut v = json!({"rule": s.rule, "burst_bytes": 1, "overhead_bytes": 0});
            if s.rule == BucketRule::Htb {
                v["cburst_bytes"] = json!(1);
            }
            assert_eq!(shaper(v.clone()), None, "{}", s.name);
            for o in s.opts {
                let mut bad = v.clone();
                bad[o.core] = json!(if o.name == "overhead" { MAX_OVERHEAD_BYTES + 1 } else { 0 });
                assert_eq!(shaper(bad), Some(o.name), "{}.{}", s.name, o.name);
            }
        }
        assert_eq!(shaper(json!({"rule": "htb", "burst_bytes": 1})), Some("cburst"));
        assert_eq!(shaper(json!({"rule": "tbf", "burst_bytes": 1, "cburst_bytes": 5})), Some("cburst"));
        assert_eq!(shaper(json!({"rule": "tbf", "burst_bytes": MAX_BURST_BYTES + 1})), Some("burst"));
    }

    #[test]
    fn reordering_that_would_be_ignored_is_refused_by_name() {
        assert_eq!(reorder(json!({"jitter_ps": 2_000_000_000u64})), None);
        assert_eq!(reorder(json!({"probability": 0.01, "delay_ps": 5})), None);
        assert_eq!(reorder(json!({"probability": 0.01})), Some("delay"));
        assert_eq!(reorder(json!({"jitter_ps": 5, "delay_ps": 5})), Some("delay"));
        assert_eq!(reorder(json!({})), Some("jitter"));
        assert_eq!(reorder(json!({"probability": 1.5, "delay_ps": 5})), Some("probability"));
    }
}
