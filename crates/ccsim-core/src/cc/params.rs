//! Algorithm parameters: each algorithm declares its parameters (name, kind,
//! default, meaning) and named presets in a static `AlgoSpec`. A scenario
//! picks an algorithm, optionally a preset, and overrides single parameters;
//! `resolve` checks all three and returns the values the algorithm is built
//! from. The same table drives validation, `ccsim list cc` and the docs, so a
//! parameter cannot exist in one place and not another.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A parameter value as written in a scenario.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Value {
    Bool(bool),
    Num(f64),
    Str(String),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Num(x) => write!(f, "{x}"),
            Value::Str(s) => write!(f, "{s:?}"),
        }
    }
}

/// A default or preset value in a static table.
#[derive(Clone, Copy, Debug)]
pub enum Lit {
    B(bool),
    N(f64),
    S(&'static str),
}

impl Lit {
    pub fn to_value(self) -> Value {
        match self {
            Lit::B(b) => Value::Bool(b),
            Lit::N(x) => Value::Num(x),
            Lit::S(s) => Value::Str(s.to_string()),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A number in [min, max]; `integer` demands a whole number.
    Num {
        min: f64,
        max: f64,
        integer: bool,
    },
    Bool,
    Choice(&'static [&'static str]),
}

#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: Kind,
    pub default: Lit,
    pub doc: &'static str,
}

#[derive(Clone, Copy, Debug)]
pub struct Preset {
    pub name: &'static str,
    pub doc: &'static str,
    pub values: &'static [(&'static str, Lit)],
}

/// The loss recovery an algorithm runs when SACK is off (with SACK, the
/// sender's `tcp.sack` mode decides). Tahoe, Reno and NewReno share their
/// window rules and differ only here; every other algorithm recovers as
/// NewReno, as Linux and ns-2's `Agent/TCP/Newreno`-based agents do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryFlavour {
    /// Fast retransmit, then slow start from cwnd = 1 with go-back-N
    /// (Jacobson 1988; ns-2 `Agent/TCP`). No fast recovery, so no SACK.
    Tahoe,
    /// RFC 5681 fast recovery; any new ACK ends it.
    Reno,
    /// RFC 6582: stays in recovery until `recover` is acknowledged.
    NewReno,
}

/// What an algorithm that needs ECN (Linux `TCP_CONG_NEEDS_ECN`) turns on
/// for its flows unless the scenario says otherwise.
#[derive(Clone, Copy, Debug)]
pub struct EcnNeed {
    pub codepoint: crate::packet::EcnCodepoint,
    pub feedback: crate::packet::EcnFeedback,
    /// What happens without ECN, for the error that refuses `ecn = false`.
    pub without: &'static str,
}

#[derive(Clone, Copy, Debug)]
pub struct AlgoSpec {
    pub name: &'static str,
    /// One line: what the algorithm follows (paper, RFC, Linux file).
    pub source: &'static str,
    pub params: &'static [ParamSpec],
    pub presets: &'static [Preset],
    /// Loss recovery without SACK.
    pub recovery: RecoveryFlavour,
    /// The ECN the algorithm needs, if any.
    pub ecn: Option<EcnNeed>,
    /// The algorithm has a `pkts_acked` or an `in_ack_event` hook (Linux's
    /// names), so where they run on an ACK (the `ack_hooks_first` TCP
    /// option) can change what it computes; without them that option has
    /// no effect and a scenario that writes it is refused. The declaration
    /// is checked against runs (crates/ccsim-core/tests/ack_hooks.rs).
    pub ack_hooks: bool,
    /// Build the algorithm from resolved parameters and its own random
    /// stream (the one place an algorithm is registered: `cc::ALGORITHMS`).
    pub build: fn(&Params, crate::rng::Stream) -> Box<dyn super::CongestionOps>,
}

/// Resolved parameter values (defaults, then preset, then overrides).
#[derive(Clone, Debug, Default)]
pub struct Params {
    values: BTreeMap<&'static str, Value>,
}

impl Params {
    pub fn num(&self, name: &str) -> f64 {
        match self.values.get(name) {
            Some(Value::Num(x)) => *x,
            other => panic!("parameter {name} is not a resolved number: {other:?}"),
        }
    }
    pub fn flag(&self, name: &str) -> bool {
        match self.values.get(name) {
            Some(Value::Bool(b)) => *b,
            other => panic!("parameter {name} is not a resolved flag: {other:?}"),
        }
    }
    pub fn text(&self, name: &str) -> &str {
        match self.values.get(name) {
            Some(Value::Str(s)) => s,
            other => panic!("parameter {name} is not a resolved choice: {other:?}"),
        }
    }
}

/// What a parameter of this kind accepts, in a scenario writer's words.
fn accepts(kind: Kind) -> String {
    match kind {
        Kind::Num { min, max, integer: false } => format!("a number in [{min}, {max}]"),
        Kind::Num { min, max, integer: true } => format!("a whole number in [{min}, {max}]"),
        Kind::Bool => "true or false".into(),
        Kind::Choice(opts) => {
            format!("one of {}", opts.iter().map(|o| format!("'{o}'")).collect::<Vec<_>>().join(", "))
        }
    }
}

fn fits(kind: Kind, v: &Value) -> bool {
    match (kind, v) {
        (Kind::Num { min, max, integer }, Value::Num(x)) => {
            x.is_finite() && *x >= min && *x <= max && (!integer || x.fract() == 0.0)
        }
        (Kind::Bool, Value::Bool(_)) => true,
        (Kind::Choice(opts), Value::Str(s)) => opts.contains(&s.as_str()),
        _ => false,
    }
}

fn check(spec: &ParamSpec, v: &Value) -> Result<Value, String> {
    if fits(spec.kind, v) {
        Ok(v.clone())
    } else {
        Err(format!("must be {} (got {v})", accepts(spec.kind)))
    }
}

fn preset_names(spec: &AlgoSpec) -> String {
    let names: Vec<String> = spec.presets.iter().map(|p| format!("'{}'", p.name)).collect();
    if names.is_empty() {
        "none (this algorithm has no presets)".to_string()
    } else {
        names.join(", ")
    }
}

fn param_names(spec: &AlgoSpec) -> String {
    let names: Vec<&str> = spec.params.iter().map(|p| p.name).collect();
    if names.is_empty() {
        "none (this algorithm has no parameters)".to_string()
    } else {
        names.join(", ")
    }
}

/// Why `resolve` refuses a preset or a parameter, in a scenario writer's
/// words: the sub-field (`cc_preset`, `cc_params.NAME`), what it accepts,
/// and whether the name itself is unknown (then there is no value to quote).
#[derive(Debug, PartialEq)]
pub struct Refusal {
    pub field: String,
    pub accepted: String,
    pub unknown_name: bool,
}

/// The first preset or parameter `resolve` would refuse, read from the
/// scenario's own JSON (a preset that is not a string, a value of the wrong
/// type); None when both are accepted. The front end reports it in the
/// scenario's field names.
pub fn refusal(
    spec: &AlgoSpec,
    preset: &serde_json::Value,
    params: &serde_json::Map<String, serde_json::Value>,
) -> Option<Refusal> {
    match preset {
        serde_json::Value::Null => {}
        serde_json::Value::String(s) if spec.presets.iter().any(|p| p.name == s) => {}
        _ => {
            return Some(Refusal {
                field: "cc_preset".into(),
                accepted: format!("a preset of {}: {}", spec.name, preset_names(spec)),
                unknown_name: false,
            })
        }
    }
    for (k, v) in params {
        let field = format!("cc_params.{k}");
        let Some(ps) = spec.params.iter().find(|p| p.name == k) else {
            let accepted = format!("unknown parameter of {}; accepted: {}", spec.name, param_names(spec));
            return Some(Refusal { field, accepted, unknown_name: true });
        };
        let value = match v {
            serde_json::Value::Bool(b) => Some(Value::Bool(*b)),
            serde_json::Value::Number(n) => n.as_f64().map(Value::Num),
            serde_json::Value::String(s) => Some(Value::Str(s.clone())),
            _ => None,
        };
        if !value.is_some_and(|x| fits(ps.kind, &x)) {
            return Some(Refusal { field, accepted: accepts(ps.kind), unknown_name: false });
        }
    }
    None
}

/// `refusal` for algorithm `cc` with the preset and the parameter table
/// given as JSON (the front end's form).
pub fn refusal_json(cc: &str, preset_json: &str, params_json: &str) -> Result<Option<Refusal>, String> {
    let spec = super::spec(cc).ok_or_else(|| format!("unknown algorithm {cc:?}"))?;
    let preset: serde_json::Value = serde_json::from_str(preset_json).map_err(|e| format!("a preset: {e}"))?;
    let params: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(params_json).map_err(|e| format!("a parameter table: {e}"))?;
    Ok(refusal(spec, &preset, &params))
}

/// Resolve `preset` and `overrides` for `spec`. Errors are (sub-field, message).
pub fn resolve(
    spec: &AlgoSpec,
    preset: Option<&str>,
    overrides: &BTreeMap<String, Value>,
) -> Result<Params, (String, String)> {
    let mut values: BTreeMap<&'static str, Value> =
        spec.params.iter().map(|p| (p.name, p.default.to_value())).collect();
    if let Some(name) = preset {
        let Some(p) = spec.presets.iter().find(|p| p.name == name) else {
            return Err((
                "cc_preset".into(),
                format!("unknown preset {name:?} for {}; accepted: {}", spec.name, preset_names(spec)),
            ));
        };
        for (k, lit) in p.values {
            values.insert(k, lit.to_value());
        }
    }
    for (k, v) in overrides {
        let Some(ps) = spec.params.iter().find(|p| p.name == k) else {
            return Err((
                format!("cc_params.{k}"),
                format!("unknown parameter for {}; accepted: {}", spec.name, param_names(spec)),
            ));
        };
        let v = check(ps, v).map_err(|m| (format!("cc_params.{k}"), m))?;
        values.insert(ps.name, v);
    }
    Ok(Params { values })
}

/// Shorthand constructors for the static tables.
pub const fn num(name: &'static str, default: f64, min: f64, max: f64, doc: &'static str) -> ParamSpec {
    ParamSpec { name, kind: Kind::Num { min, max, integer: false }, default: Lit::N(default), doc }
}
pub const fn int(name: &'static str, default: f64, min: f64, max: f64, doc: &'static str) -> ParamSpec {
    ParamSpec { name, kind: Kind::Num { min, max, integer: true }, default: Lit::N(default), doc }
}
pub const fn flag(name: &'static str, default: bool, doc: &'static str) -> ParamSpec {
    ParamSpec { name, kind: Kind::Bool, default: Lit::B(default), doc }
}
pub const fn choice(
    name: &'static str,
    opts: &'static [&'static str],
    default: &'static str,
    doc: &'static str,
) -> ParamSpec {
    ParamSpec { name, kind: Kind::Choice(opts), default: Lit::S(default), doc }
}

/// Every spec as JSON for the Python front end (`ccsim list cc`, validation).
pub fn specs_json(specs: &[&AlgoSpec]) -> String {
    use serde_json::{json, Value as J};
    let lit = |l: &Lit| match l {
        Lit::B(b) => J::Bool(*b),
        Lit::N(x) => json!(x),
        Lit::S(s) => J::String(s.to_string()),
    };
    let algos: Vec<J> = specs
        .iter()
        .map(|s| {
            let params: Vec<J> = s
                .params
                .iter()
                .map(|p| {
                    let kind = match p.kind {
                        Kind::Num { min, max, integer } => {
                            json!({"type": if integer {"int"} else {"number"}, "min": min, "max": max})
                        }
                        Kind::Bool => json!({"type": "bool"}),
                        Kind::Choice(o) => json!({"type": "choice", "choices": o}),
                    };
                    json!({"name": p.name, "kind": kind, "default": lit(&p.default), "doc": p.doc})
                })
                .collect();
            let presets: Vec<J> = s
                .presets
                .iter()
                .map(|p| {
                    let vals: serde_json::Map<String, J> =
                        p.values.iter().map(|(k, v)| (k.to_string(), lit(v))).collect();
                    json!({"name": p.name, "doc": p.doc, "values": vals})
                })
                .collect();
            json!({
                "name": s.name,
                "source": s.source,
                "recovery": format!("{:?}", s.recovery).to_lowercase(),
                "ecn": s.ecn.map(|n| json!({
                    "codepoint": serde_json::to_value(n.codepoint).expect("serializes"),
                    "feedback": serde_json::to_value(n.feedback).expect("serializes"),
                    "without": n.without,
                })),
                "ack_hooks": s.ack_hooks,
                "params": params,
                "presets": presets,
            })
        })
        .collect();
    J::Array(algos).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: AlgoSpec = AlgoSpec {
        name: "demo",
        source: "test",
        params: &[int("a", 2.0, 1.0, 10.0, ""), flag("f", true, ""), choice("c", &["x", "y"], "x", "")],
        presets: &[Preset { name: "p", doc: "", values: &[("a", Lit::N(5.0)), ("c", Lit::S("y"))] }],
        recovery: RecoveryFlavour::NewReno,
        ecn: None,
        ack_hooks: false,
        build: |_, _| Box::new(crate::cc::reno::Reno::new("newreno")),
    };

    #[test]
    fn defaults_then_preset_then_overrides() {
        let none = BTreeMap::new();
        let p = resolve(&SPEC, None, &none).unwrap();
        assert_eq!((p.num("a"), p.flag("f"), p.text("c")), (2.0, true, "x"));
        let p = resolve(&SPEC, Some("p"), &none).unwrap();
        assert_eq!((p.num("a"), p.text("c")), (5.0, "y"));
        let mut o = BTreeMap::new();
        o.insert("a".to_string(), Value::Num(7.0));
        let p = resolve(&SPEC, Some("p"), &o).unwrap();
        assert_eq!(p.num("a"), 7.0);
    }

    #[test]
    fn the_front_ends_check_refuses_what_resolve_refuses_in_the_writers_words() {
        let ok =
            |preset: serde_json::Value, params: serde_json::Value| refusal(&SPEC, &preset, params.as_object().unwrap());
        let r = |field: &str, accepted: &str, unknown_name: bool| {
            Some(Refusal { field: field.into(), accepted: accepted.into(), unknown_name })
        };
        assert_eq!(ok(serde_json::json!(null), serde_json::json!({"a": 7, "f": false, "c": "y"})), None);
        assert_eq!(ok(serde_json::json!("p"), serde_json::json!({})), None);
        assert_eq!(ok(serde_json::json!("q"), serde_json::json!({})), r("cc_preset", "a preset of demo: 'p'", false));
        assert_eq!(ok(serde_json::json!(5), serde_json::json!({})), r("cc_preset", "a preset of demo: 'p'", false));
        assert_eq!(
            ok(serde_json::json!(null), serde_json::json!({"zz": 1})),
            r("cc_params.zz", "unknown parameter of demo; accepted: a, f, c", true)
        );
        let whole = r("cc_params.a", "a whole number in [1, 10]", false);
        assert_eq!(ok(serde_json::json!(null), serde_json::json!({"a": 2.5})), whole);
        assert_eq!(ok(serde_json::json!(null), serde_json::json!({"a": 11})), whole);
        assert_eq!(ok(serde_json::json!(null), serde_json::json!({"a": "3"})), whole);
        assert_eq!(ok(serde_json::json!(null), serde_json::json!({"f": 1})), r("cc_params.f", "true or false", false));
        assert_eq!(
            ok(serde_json::json!(null), serde_json::json!({"c": "z"})),
            r("cc_params.c", "one of 'x', 'y'", false)
        );
        // what it refuses, resolve refuses too
        let mut o = BTreeMap::new();
        o.insert("a".to_string(), Value::Num(11.0));
        assert!(resolve(&SPEC, None, &o).unwrap_err().1.starts_with("must be a whole number in [1, 10]"));
    }

    #[test]
    fn bad_input_names_the_field() {
        let mut o = BTreeMap::new();
        o.insert("a".to_string(), Value::Num(2.5));
        let e = resolve(&SPEC, None, &o).unwrap_err();
        assert_eq!(e.0, "cc_params.a");
        assert!(e.1.contains("whole number"), "{}", e.1);
        let mut o = BTreeMap::new();
        o.insert("zz".to_string(), Value::Bool(true));
        let e = resolve(&SPEC, None, &o).unwrap_err();
        assert!(e.1.contains("accepted: a, f, c"), "{}", e.1);
        let e = resolve(&SPEC, Some("nope"), &BTreeMap::new()).unwrap_err();
        assert_eq!(e.0, "cc_preset");
        let mut o = BTreeMap::new();
        o.insert("c".to_string(), Value::Str("z".into()));
        assert!(resolve(&SPEC, None, &o).unwrap_err().1.contains("one of 'x', 'y'"));
    }
}
