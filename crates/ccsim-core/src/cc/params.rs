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

fn check(spec: &ParamSpec, v: &Value) -> Result<Value, String> {
    match (spec.kind, v) {
        (Kind::Num { min, max, integer }, Value::Num(x)) => {
            if !x.is_finite() || *x < min || *x > max {
                return Err(format!("must be a number in [{min}, {max}] (got {x})"));
            }
            if integer && x.fract() != 0.0 {
                return Err(format!("must be a whole number in [{min}, {max}] (got {x})"));
            }
            Ok(v.clone())
        }
        (Kind::Bool, Value::Bool(_)) => Ok(v.clone()),
        (Kind::Choice(opts), Value::Str(s)) => {
            if opts.contains(&s.as_str()) {
                Ok(v.clone())
            } else {
                Err(format!("unknown choice {s:?}; accepted: {}", opts.join(", ")))
            }
        }
        (Kind::Num { min, max, .. }, _) => Err(format!("must be a number in [{min}, {max}] (got {v})")),
        (Kind::Bool, _) => Err(format!("must be true or false (got {v})")),
        (Kind::Choice(opts), _) => Err(format!("must be one of {} (got {v})", opts.join(", "))),
    }
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
            let names: Vec<&str> = spec.presets.iter().map(|p| p.name).collect();
            let accepted =
                if names.is_empty() { "none (this algorithm has no presets)".to_string() } else { names.join(", ") };
            return Err((
                "cc_preset".into(),
                format!("unknown preset {name:?} for {}; accepted: {accepted}", spec.name),
            ));
        };
        for (k, lit) in p.values {
            values.insert(k, lit.to_value());
        }
    }
    for (k, v) in overrides {
        let Some(ps) = spec.params.iter().find(|p| p.name == k) else {
            let names: Vec<&str> = spec.params.iter().map(|p| p.name).collect();
            let accepted =
                if names.is_empty() { "none (this algorithm has no parameters)".to_string() } else { names.join(", ") };
            return Err((
                format!("cc_params.{k}"),
                format!("unknown parameter for {}; accepted: {accepted}", spec.name),
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
        assert!(resolve(&SPEC, None, &o).unwrap_err().1.contains("accepted: x, y"));
    }
}
