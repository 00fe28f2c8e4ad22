//! The option schema of a flow group's traffic, owned by the core as
//! `[tcp]`'s (schema.rs) and the link models' (net_schema.rs) are: each
//! application a scenario names (`app = "web"`, `app = "cbr"`), the
//! configuration it resolves to (`AppCfg`'s variant, or a `UdpCfg`), its
//! options with resolved field, kind, unit and documentation line, the
//! options it needs and the defaults of the rest. The core validates
//! against it (`AppCfg::validate` and `UdpCfg::validate` call `app_rules`
//! and `udp_rules`); Python resolves, documents and checks a flow group's
//! application from it (`_core.app_options()`, `_core.check_app`,
//! python/ccsim/scenario/traffic.py).

use super::net_schema::STATE_TIME;
use super::schema::{check_kinds, Broken, Kind, Opt};
use super::traffic::{AppCfg, UdpCfg};
use crate::units::PS_PER_S;
use serde_json::{json, Value};

/// The shortest gap between a UDP source's packets: 1 ns (8 Tb/s of
/// 1000-byte packets). The source schedules one event per packet, so a
/// picosecond gap is 10^12 events per simulated second.
pub const MIN_UDP_GAP_PS: u64 = 1_000;

/// The object sizes of `app = "web"` when a scenario gives none: Pareto II
/// with a mean of 12 segments and shape 1.2, the PagePool/WebTraf example
/// of ns-2 (tcl/ex/web-traffic.tcl: avgObjSize 12 packets, shape 1.2).
/// In segments of the flow's MSS, so the resolver scales it.
pub const WEB_SIZE_MEAN_SEGMENTS: f64 = 12.0;
pub const WEB_SIZE_SHAPE: f64 = 1.2;

/// An application as a scenario names it.
#[derive(Clone, Copy, Debug)]
pub struct App {
    pub name: &'static str,
    /// `AppCfg`'s tag, or "udp" for a UDP source (`UdpCfg`).
    pub core: &'static str,
    pub opts: &'static [Opt],
    /// Options a scenario must give.
    pub required: &'static [&'static str],
    /// Values of options left out, as a scenario writes them (JSON).
    pub defaults: &'static [(&'static str, AppDefault)],
    pub doc: &'static str,
}

/// A default as a scenario would write it.
#[derive(Clone, Copy, Debug)]
pub enum AppDefault {
    Bool(bool),
    Str(&'static str),
    /// Pareto II object sizes with a mean in segments of the flow's MSS.
    SegmentsPareto2 {
        mean_segments: f64,
        shape: f64,
    },
}

const THINK: Kind = Kind::TimeDist { min_mean_ps: 0, accepted: "a time ≥ 0 or a distribution of times" };
const DURATIONS: Kind = Kind::Choice(&["exponential", "fixed"]);
const TRANSFERS: Kind = Kind::IntOrNone { lo: 1, hi: u64::MAX };

#[rustfmt::skip]
const FILE: &[Opt] = &[
    Opt { name: "size", core: "bytes", kind: Kind::Size { lo: 1, hi: u64::MAX }, unit: "bytes", doc: "bytes to transfer ('100KB'); the flow's FCT is recorded" },
];
#[rustfmt::skip]
const ON_OFF: &[Opt] = &[
    Opt { name: "on", core: "on", kind: STATE_TIME, unit: "time", doc: "ON period: a time ('10s', exponential with that mean unless durations = 'fixed') or a distribution table" },
    Opt { name: "off", core: "off", kind: STATE_TIME, unit: "time", doc: "OFF period, as 'on'" },
    // how the resolver reads a plain time in on and off: no field of its own
    Opt { name: "durations", core: "", kind: DURATIONS, unit: "", doc: "'exponential' or 'fixed' for plain times" },
    Opt { name: "start_off", core: "start_off", kind: Kind::Bool, unit: "", doc: "begin in an OFF period" },
];
#[rustfmt::skip]
const SCHEDULE: &[Opt] = &[
    Opt { name: "on", core: "on", kind: Kind::Intervals, unit: "time", doc: "list of ON intervals [[start, end], ...], e.g. [['250s', '500s'], ['750s', '1000s']]; OFF elsewhere" },
];
#[rustfmt::skip]
const REPEAT: &[Opt] = &[
    Opt { name: "size", core: "size", kind: Kind::SizeDist, unit: "bytes", doc: "size of each transfer: a size ('50KB', fixed) or a distribution table of sizes" },
    Opt { name: "think", core: "think", kind: THINK, unit: "time", doc: "pause after a transfer completes before the next: a time (exponential mean) or a distribution" },
    Opt { name: "transfers", core: "count", kind: TRANSFERS, unit: "", doc: "most transfers per flow (none: until the end)" },
];
#[rustfmt::skip]
const WEB: &[Opt] = &[
    Opt { name: "size", core: "size", kind: Kind::SizeDist, unit: "bytes", doc: "object size: a size or a distribution table of sizes" },
    Opt { name: "think", core: "think", kind: THINK, unit: "time", doc: "time from the end of one object to the next (ns-2 WebTraf interPage)" },
    Opt { name: "transfers", core: "count", kind: TRANSFERS, unit: "", doc: "most objects per session (none: until the end)" },
];
#[rustfmt::skip]
const CBR: &[Opt] = &[
    Opt { name: "rate", core: "rate_bps", kind: Kind::Rate, unit: "bit/s", doc: "sending rate while ON ('64kbps')" },
    Opt { name: "packet_size", core: "size", kind: Kind::Size { lo: 1, hi: 65_535 }, unit: "bytes", doc: "bytes per packet on the wire" },
    Opt { name: "random", core: "random", kind: Kind::Bool, unit: "", doc: "ns-2 CBR random_: each gap scaled by U[0.5, 1.5)" },
    Opt { name: "on", core: "on", kind: STATE_TIME, unit: "time", doc: "ON period (time or distribution) for an ON-OFF source; none = always on" },
    Opt { name: "off", core: "off", kind: STATE_TIME, unit: "time", doc: "OFF period, given with 'on'" },
    Opt { name: "durations", core: "", kind: DURATIONS, unit: "", doc: "'exponential' or 'fixed' for plain on/off times" },
    Opt { name: "stop", core: "stop_ps", kind: Kind::Time { min_ps: 1 }, unit: "time", doc: "time the source stops (none: the end of the run)" },
];

const EXPONENTIAL: (&str, AppDefault) = ("durations", AppDefault::Str("exponential"));

/// Every application, in documentation order.
#[rustfmt::skip]
pub const APPS: &[App] = &[
    App { name: "bulk", core: "bulk", opts: &[], required: &[], defaults: &[], doc: "unlimited data from the start to the end of the run" },
    App { name: "file", core: "file", opts: FILE, required: &["size"], defaults: &[], doc: "one transfer of a given size; its completion time is recorded" },
    App { name: "onoff", core: "on_off", opts: ON_OFF, required: &["on", "off"], defaults: &[EXPONENTIAL, ("start_off", AppDefault::Bool(false))], doc: "unlimited data during ON periods, none during OFF periods" },
    App { name: "schedule", core: "schedule", opts: SCHEDULE, required: &["on"], defaults: &[], doc: "unlimited data during fixed ON intervals" },
    App { name: "repeat", core: "repeat", opts: REPEAT, required: &["size"], defaults: &[("think", AppDefault::Str("0s"))], doc: "repeated transfers, each on a fresh connection, a think time apart" },
    App { name: "web", core: "repeat", opts: WEB, required: &[], defaults: &[("size", AppDefault::SegmentsPareto2 { mean_segments: WEB_SIZE_MEAN_SEGMENTS, shape: WEB_SIZE_SHAPE }), ("think", AppDefault::Str("15s"))], doc: "a web session: objects of Pareto II sizes a think time apart (ns-2 WebTraf)" },
    App { name: "cbr", core: "udp", opts: CBR, required: &["rate"], defaults: &[("packet_size", AppDefault::Str("1000B")), ("random", AppDefault::Bool(false)), EXPONENTIAL], doc: "a UDP source, not congestion controlled: one packet every packet_size·8/rate while ON; results in the udp table" },
];

impl AppDefault {
    fn to_json(self) -> Value {
        match self {
            AppDefault::Bool(b) => json!(b),
            AppDefault::Str(s) => json!(s),
            AppDefault::SegmentsPareto2 { mean_segments, shape } => {
                json!({"dist": "pareto2", "mean_segments": mean_segments, "shape": shape})
            }
        }
    }
}

/// The applications as JSON (`_core.app_options()`).
pub fn app_json() -> String {
    let rows: Vec<Value> = APPS
        .iter()
        .map(|a| {
            json!({
                "name": a.name,
                "core": a.core,
                "options": a.opts.iter().map(|o| o.to_json()).collect::<Vec<_>>(),
                "required": a.required,
                "defaults": a.defaults.iter().map(|(k, v)| (k.to_string(), v.to_json())).collect::<serde_json::Map<_, _>>(),
                "doc": a.doc,
            })
        })
        .collect();
    Value::Array(rows).to_string()
}

/// A TCP flow's application: each option against its kind. (Each kind
/// holds the rules of its own option: a schedule's intervals increasing
/// and disjoint, a transfer of at least one byte.)
pub fn app_rules(a: &AppCfg) -> Result<(), Broken> {
    if matches!(a, AppCfg::Bulk) {
        return Ok(());
    }
    let v = serde_json::to_value(a).expect("AppCfg serializes");
    let tag = v["kind"].as_str().unwrap_or_default();
    let app = APPS.iter().find(|x| x.core == tag).expect("every AppCfg variant is in APPS");
    check_kinds(app.opts, &v)
}

/// A UDP source: each option against its kind, ON and OFF together, and a
/// rate that leaves at least `MIN_UDP_GAP_PS` between packets.
pub fn udp_rules(u: &UdpCfg) -> Result<(), Broken> {
    check_kinds(CBR, &serde_json::to_value(u).expect("UdpCfg serializes"))?;
    match (&u.on, &u.off) {
        (Some(_), None) | (None, Some(_)) => {
            let (missing, given) = if u.on.is_some() { ("off", "on") } else { ("on", "off") };
            return Err(Broken {
                option: missing,
                got: "nothing".into(),
                expected: format!(
                    "both 'on' and 'off' for an ON-OFF source ({given} is given; neither for constant bit rate)"
                ),
            });
        }
        _ => {}
    }
    // bits·10^12 ps/s over the rate is the gap in ps
    if u128::from(u.size) * 8 * u128::from(PS_PER_S) < u128::from(MIN_UDP_GAP_PS) * u128::from(u.rate_bps) {
        return Err(Broken {
            option: "rate",
            got: format!("{} bit/s", u.rate_bps),
            expected: format!(
                "a rate that leaves at least 1 ns between packets (at most {} Gb/s for {}-byte packets)",
                u.size * 8,
                u.size
            ),
        });
    }
    Ok(())
}

/// Apply `app_rules` or `udp_rules` to a resolved application given as JSON
/// (`_core.check_app`; a UDP source as {"kind": "udp", ...UdpCfg's fields
/// but its addresses and start}): `Ok(None)` when it passes,
/// `Ok(Some(broken))` when a rule fails, `Err` when the JSON is neither.
pub fn check_app_json(json: &str) -> Result<Option<Broken>, String> {
    let mut v: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    if v["kind"] == "udp" {
        let m = v.as_object_mut().ok_or("not a table")?;
        m.remove("kind");
        m.extend([("src".into(), json!(0)), ("dst".into(), json!(1)), ("start_ps".into(), json!(0))]);
        let u: UdpCfg = serde_json::from_value(v).map_err(|e| e.to_string())?;
        return Ok(udp_rules(&u).err());
    }
    let a: AppCfg = serde_json::from_value(v).map_err(|e| e.to_string())?;
    Ok(app_rules(&a).err())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn broken(v: Value) -> Option<&'static str> {
        check_app_json(&v.to_string()).unwrap().map(|b| b.option)
    }

    #[test]
    fn every_option_and_default_names_an_option_of_its_app() {
        for a in APPS {
            for r in a.required {
                assert!(a.opts.iter().any(|o| o.name == *r), "{}: required {r} is an option", a.name);
            }
            for (d, _) in a.defaults {
                assert!(a.opts.iter().any(|o| o.name == *d), "{}: default {d} is an option", a.name);
                assert!(!a.required.contains(d), "{}: {d} is required and has a default", a.name);
            }
        }
    }

    #[test]
    fn bounds_and_rules_name_the_option_as_written() {
        let udp = |extra: Value| {
            let mut v = json!({"kind": "udp", "rate_bps": 1_000_000, "size": 1000});
            v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            broken(v)
        };
        assert_eq!(udp(json!({})), None);
        assert_eq!(udp(json!({"size": 65_536})), Some("packet_size"));
        assert_eq!(udp(json!({"size": 0})), Some("packet_size"));
        assert_eq!(udp(json!({"rate_bps": 0})), Some("rate"));
        // 1000 bytes every 1 ns is 8 Tb/s: the fastest accepted
        assert_eq!(udp(json!({"rate_bps": 8_000_000_000_000u64})), None);
        assert_eq!(udp(json!({"rate_bps": 8_000_000_000_001u64})), Some("rate"));
        let on = json!({"kind": "exponential", "mean": 1e9});
        assert_eq!(udp(json!({"on": on})), Some("off"));
        assert_eq!(udp(json!({"off": on})), Some("on"));
        assert_eq!(udp(json!({"on": on, "off": on})), None);
        assert_eq!(udp(json!({"on": {"kind": "fixed", "value": 1.0}, "off": on})), Some("on"), "a 1 ps state");
        assert_eq!(udp(json!({"stop_ps": 0})), Some("stop"));

        assert_eq!(broken(json!({"kind": "file", "bytes": 0})), Some("size"));
        assert_eq!(broken(json!({"kind": "schedule", "on": [[0, 5], [5, 9]]})), None);
        assert_eq!(broken(json!({"kind": "schedule", "on": [[0, 5], [4, 9]]})), Some("on"), "overlapping");
        assert_eq!(broken(json!({"kind": "schedule", "on": [[5, 5]]})), Some("on"), "empty interval");
        assert_eq!(broken(json!({"kind": "schedule", "on": []})), Some("on"));
        let fixed = |x: f64| json!({"kind": "fixed", "value": x});
        assert_eq!(broken(json!({"kind": "repeat", "size": fixed(1.0), "think": fixed(0.0)})), None);
        assert_eq!(broken(json!({"kind": "repeat", "size": fixed(0.0), "think": fixed(0.0)})), Some("size"));
        assert_eq!(
            broken(json!({"kind": "repeat", "size": fixed(1.0), "think": fixed(0.0), "count": 0})),
            Some("transfers")
        );
    }
}
