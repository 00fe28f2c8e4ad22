//! The vocabulary every option schema of the core is written in: how an
//! option is written and what it accepts (`Kind`), one option's row
//! (`Opt`), a broken rule (`Broken`), a model's scenario names (`Variant`),
//! and `options!`, which declares a model's options once. It sits below the
//! models and the configuration so that each model's own file can declare
//! its options (queue disciplines, loss models and `[tcp]` do).

use crate::units::MAX_TIME_PS;
use serde_json::{json, Value};

/// How an option is written and what values it accepts.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Bool,
    /// A whole number in [lo, hi].
    Int {
        lo: u64,
        hi: u64,
    },
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// A time such as "200ms" (the core field holds picoseconds), at least
    /// `min_ps` (0: any time ≥ 0; 1: any time > 0).
    Time {
        min_ps: u64,
    },
    /// A time of at least `min_ps`, refused with `accepted` (which gives
    /// the reason for the floor).
    TimeFloor {
        min_ps: u64,
        accepted: &'static str,
    },
    /// A number in (0, max].
    Ratio {
        max: f64,
    },
    /// A number in [lo, hi] (lo excluded when `lo_open`; hi infinite: no
    /// upper bound).
    Number {
        lo: f64,
        hi: f64,
        lo_open: bool,
    },
    /// A probability in [0, 1] (0 excluded when `lo_open`).
    Prob {
        lo_open: bool,
    },
    /// A probability in (0, 1], or "auto" (the core field is null).
    ProbOrAuto,
    /// A distribution of times (`rng::Dist`: a time, or a table {dist =
    /// ..., ...}) whose mean is at least `min_mean_ps`; `accepted` says why.
    TimeDist {
        min_mean_ps: u64,
        accepted: &'static str,
    },
    /// A non-empty list of strictly increasing 1-based packet numbers.
    Packets,
    /// A whole number in [lo, hi], or "inf" (the core field is null).
    IntOrInf {
        lo: u64,
        hi: u64,
    },
    /// A whole number in [lo, hi], or "none" (the core field is null).
    IntOrNone {
        lo: u64,
        hi: u64,
    },
    /// A size ("64KB"), "<n>pkt" or "none" (the core field holds bytes or null).
    Window,
    /// The name of an algorithm of `cc::ALGORITHMS`.
    Algorithm,
    /// A preset of the algorithm (`AlgoSpec::presets`).
    Preset,
    /// A table of the algorithm's parameters (`AlgoSpec::params`).
    Params,
    /// A size such as "100KB" in [lo, hi] bytes (the core field holds bytes).
    Size {
        lo: u64,
        hi: u64,
    },
    /// A rate such as "64kbps" above 0 (the core field holds bit/s).
    Rate,
    /// A distribution of sizes (`rng::Dist` in bytes), every draw above 0.
    SizeDist,
    /// A non-empty list of [start, end] times, each ending after it starts,
    /// increasing and disjoint.
    Intervals,
    /// A time above 0, or "off" (the core field is null).
    TimeOrOff,
    /// A list of these strings, each at most once.
    ChoiceList(&'static [&'static str]),
    /// A list of link names ("r0->r1"), or one of these words (the core
    /// field holds link indices).
    Links(&'static [&'static str]),
}

/// A model's options declared once: each field's name, type and default,
/// and, for the fields a scenario writes, its schema row (name as written,
/// kind, unit, doc line). It yields the configuration struct (serde,
/// every field defaulted, unknown fields refused), its `Default`, and the
/// rows as the associated constant named after `rows`, so no option is
/// written in a second place. A field without a row (a buffer the link
/// sets) has its default only. A row written `[ROW]` is another model's
/// `Opt` constant, taken whole but for the field it fills: how FQ-CoDel
/// takes CoDel's options.
///
/// ```ignore
/// options! {
///     /// DualPI2 ...
///     pub struct DualPi2Cfg, rows OPTS {
///         limit_pkts: u32 = 0,
///         coupling: f64 = 2.0 => ("coupling", Kind::Number { .. }, "", "k: ..."),
///         target_ps: SimTime = codel::TARGET => [codel::TARGET_ROW],
///     }
/// }
/// ```
macro_rules! options {
    (@row $field:ident ($oname:literal, $kind:expr, $unit:literal, $doc:literal)) => {
        $crate::opts::Opt { name: $oname, core: stringify!($field), kind: $kind, unit: $unit, doc: $doc }
    };
    (@row $field:ident [$row:expr]) => {
        $crate::opts::Opt { core: stringify!($field), ..$row }
    };
    (@value $err:ty, $field:ident) => {
        return Err(<$err as serde::de::Error>::missing_field(stringify!($field)))
    };
    (@value $err:ty, $field:ident $default:expr) => {
        $default
    };
    (@required $field:ident) => {
        Some(stringify!($field))
    };
    (@required $field:ident $default:expr) => {
        None
    };
    // A model with options a scenario must give (a field without `=
    // default`): no `Default`, and the rows' `REQUIRED` names them.
    (
        $(#[$meta:meta])*
        pub struct $name:ident, rows $rows:ident, required {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty $(= $default:expr)?
                $( => $row:tt )?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, serde::Serialize)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error;
                const FIELDS: &[&str] = &[$(stringify!($field)),*];
                let mut m = <serde_json::Map<String, serde_json::Value>>::deserialize(d)?;
                let v = $name {
                    $( $field: match m.remove(stringify!($field)) {
                        Some(x) => serde_json::from_value(x).map_err(D::Error::custom)?,
                        None => $crate::opts::options!(@value D::Error, $field $($default)?),
                    }, )*
                };
                match m.keys().next() {
                    Some(k) => Err(D::Error::unknown_field(k, FIELDS)),
                    None => Ok(v),
                }
            }
        }

        impl $name {
            /// The options a scenario writes, in documentation order.
            #[rustfmt::skip]
            pub const $rows: &'static [$crate::opts::Opt] = &[
                $( $( $crate::opts::options!(@row $field $row), )? )*
            ];
            /// The options a scenario must give, in declaration order.
            pub const REQUIRED: &'static [&'static str] = {
                const ALL: &[Option<&str>] = &[$( $crate::opts::options!(@required $field $($default)?) ),*];
                const N: usize = {
                    let (mut i, mut n) = (0, 0);
                    while i < ALL.len() {
                        if ALL[i].is_some() {
                            n += 1;
                        }
                        i += 1;
                    }
                    n
                };
                const OUT: [&str; N] = {
                    let mut out = [""; N];
                    let (mut i, mut n) = (0, 0);
                    while i < ALL.len() {
                        if let Some(f) = ALL[i] {
                            out[n] = f;
                            n += 1;
                        }
                        i += 1;
                    }
                    out
                };
                &OUT
            };
        }
    };
    // A configuration whose defaults are written by hand elsewhere (`[tcp]`:
    // per stack, each naming its source, in `TcpCfg::for_stack`): the struct
    // and its rows; a field without a row is not written by a scenario.
    (
        $(#[$meta:meta])*
        pub struct $name:ident, rows $rows:ident, default by hand {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty
                $( => $row:tt )?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, serde::Deserialize, serde::Serialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
        }

        impl $name {
            /// The options a scenario writes, in documentation order.
            #[rustfmt::skip]
            pub const $rows: &'static [$crate::opts::Opt] = &[
                $( $( $crate::opts::options!(@row $field $row), )? )*
            ];
        }
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident, rows $rows:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty = $default:expr
                $( => $row:tt )?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $( $field: $default, )* }
            }
        }

        impl $name {
            /// The options a scenario writes, in documentation order.
            #[rustfmt::skip]
            pub const $rows: &'static [$crate::opts::Opt] = &[
                $( $( $crate::opts::options!(@row $field $row), )? )*
            ];
        }
    };
}
pub(crate) use options;

/// One option.
#[derive(Clone, Copy, Debug)]
pub struct Opt {
    /// As a scenario writes it (`tcp.min_rto`).
    pub name: &'static str,
    /// The field of the resolved configuration (`min_rto_ps`).
    pub core: &'static str,
    pub kind: Kind,
    /// Unit of a number ("bytes", "segments"), empty for the rest.
    pub unit: &'static str,
    pub doc: &'static str,
}

impl Kind {
    pub(crate) fn to_json(self) -> Value {
        match self {
            Kind::Bool => json!({"type": "bool"}),
            Kind::Int { lo, hi } => json!({"type": "int", "lo": lo, "hi": hi}),
            Kind::Choice(c) => json!({"type": "choice", "choices": c}),
            Kind::Time { min_ps } | Kind::TimeFloor { min_ps, .. } => {
                json!({"type": "time", "min_ps": min_ps, "accepted": self.accepted()})
            }
            Kind::Ratio { max } => json!({"type": "ratio", "max": max}),
            Kind::Number { lo, hi, lo_open } => json!({
                "type": "number", "lo": lo, "hi": if hi.is_finite() { json!(hi) } else { Value::Null },
                "lo_open": lo_open, "accepted": self.accepted(),
            }),
            Kind::Prob { lo_open } => json!({"type": "prob", "lo_open": lo_open, "accepted": self.accepted()}),
            Kind::ProbOrAuto => json!({"type": "prob_or_auto", "accepted": self.accepted()}),
            Kind::TimeDist { min_mean_ps, .. } => {
                json!({"type": "time_dist", "min_mean_ps": min_mean_ps, "accepted": self.accepted()})
            }
            Kind::Packets => json!({"type": "packets", "accepted": self.accepted()}),
            Kind::IntOrInf { lo, hi } => json!({"type": "int_or_inf", "lo": lo, "hi": hi}),
            Kind::IntOrNone { lo, hi } => json!({"type": "int_or_none", "lo": lo, "hi": hi}),
            Kind::Window => json!({"type": "window"}),
            Kind::Algorithm => json!({"type": "algorithm"}),
            Kind::Preset => json!({"type": "preset"}),
            Kind::Params => json!({"type": "params"}),
            Kind::Size { lo, hi } => json!({"type": "size", "lo": lo, "hi": hi, "accepted": self.accepted()}),
            Kind::Rate => json!({"type": "rate", "accepted": self.accepted()}),
            Kind::SizeDist => json!({"type": "size_dist", "accepted": self.accepted()}),
            Kind::Intervals => json!({"type": "intervals", "accepted": self.accepted()}),
            Kind::TimeOrOff => json!({"type": "time_or_off", "accepted": self.accepted()}),
            Kind::ChoiceList(c) => json!({"type": "choice_list", "choices": c, "accepted": self.accepted()}),
            Kind::Links(w) => json!({"type": "links", "words": w, "accepted": self.accepted()}),
        }
    }

    /// What the kind accepts, in words (error messages).
    pub(crate) fn accepted(self) -> String {
        match self {
            Kind::Bool => "true or false".into(),
            Kind::Int { lo, hi } => format!("a whole number in [{lo}, {hi}]"),
            Kind::Choice(c) => format!("one of {}", c.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ")),
            Kind::Time { min_ps: 0 } => "a time ≥ 0".into(),
            Kind::Time { min_ps: 1 } => "a time > 0".into(),
            Kind::Time { min_ps } => format!("a time ≥ {min_ps} ps"),
            Kind::TimeFloor { accepted, .. } => accepted.into(),
            Kind::Ratio { max } => format!("a ratio in (0, {max}]"),
            Kind::Number { lo, hi, lo_open } => match (lo_open, hi.is_finite()) {
                (false, false) => format!("a number ≥ {lo}"),
                (true, false) => format!("a number > {lo}"),
                (false, true) => format!("a number in [{lo}, {hi}]"),
                (true, true) => format!("a number in ({lo}, {hi}]"),
            },
            Kind::Prob { lo_open: false } => "a probability in [0, 1]".into(),
            Kind::Prob { lo_open: true } => "a probability in (0, 1]".into(),
            Kind::ProbOrAuto => "a probability in (0, 1] or \"auto\"".into(),
            Kind::TimeDist { accepted, .. } => accepted.into(),
            Kind::Packets => "a non-empty list of strictly increasing 1-based packet numbers".into(),
            Kind::IntOrInf { lo, hi } => format!("a whole number in [{lo}, {hi}] or \"inf\""),
            Kind::IntOrNone { lo, hi } => format!("a whole number in [{lo}, {hi}] or \"none\""),
            Kind::Window => "a size, \"<n>pkt\" or \"none\"".into(),
            Kind::Algorithm | Kind::Preset | Kind::Params => "see ccsim list cc".into(),
            Kind::Size { lo, hi: u64::MAX } => {
                format!("a size of at least {lo} byte{}", if lo == 1 { "" } else { "s" })
            }
            Kind::Size { lo, hi } => format!("a size of {lo} to {hi} bytes"),
            Kind::Rate => "a rate above 0 such as '64kbps'".into(),
            Kind::SizeDist => "a size above 0 or a distribution of sizes above 0".into(),
            Kind::Intervals => "a non-empty list of [start, end] intervals, each ending after it starts, \
                                increasing and not overlapping"
                .into(),
            Kind::TimeOrOff => "a time above 0 such as '100ms', or 'off'".into(),
            Kind::ChoiceList(c) => {
                format!("a list of values from {}", c.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", "))
            }
            Kind::Links(w) => format!(
                "{} or a non-empty list of link names such as ['r0->r1']",
                w.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

impl Kind {
    /// A value of the resolved field's type, for serde round trips (not
    /// necessarily within the kind's bounds).
    pub(crate) fn typed_value(self) -> Value {
        match self {
            Kind::Bool => json!(false),
            Kind::Choice(c) => json!(c[0]),
            Kind::Packets => json!([1]),
            Kind::TimeDist { .. } | Kind::SizeDist => json!({"kind": "fixed", "value": 1.0}),
            Kind::Intervals => json!([[0, 1]]),
            Kind::ChoiceList(_) | Kind::Links(_) => json!([]),
            Kind::Ratio { .. } | Kind::Number { .. } | Kind::Prob { .. } | Kind::ProbOrAuto => json!(1.0),
            _ => json!(1),
        }
    }
}

impl Opt {
    /// The option as the Python side reads it.
    pub(crate) fn to_json(self) -> Value {
        json!({"name": self.name, "core": self.core, "kind": self.kind.to_json(), "unit": self.unit, "doc": self.doc})
    }
}

/// A value of the resolved configuration breaks a rule: `option` is the
/// option as a scenario writes it, `expected` what is accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct Broken {
    pub option: &'static str,
    pub got: String,
    pub expected: String,
}

impl Kind {
    /// Whether a resolved field's value `x` is one this kind accepts.
    /// Enums and booleans are checked by deserialization; an algorithm,
    /// its preset and parameters by `cc::params::resolve`; a window by the
    /// TCP rules.
    pub(crate) fn holds(self, x: &Value) -> bool {
        let prob = |p: f64, lo_open: bool| p.is_finite() && p <= 1.0 && if lo_open { p > 0.0 } else { p >= 0.0 };
        match self {
            Kind::Int { lo, hi } => x.as_u64().is_some_and(|n| (lo..=hi).contains(&n)),
            Kind::IntOrInf { lo, hi } | Kind::IntOrNone { lo, hi } => {
                x.is_null() || x.as_u64().is_some_and(|n| (lo..=hi).contains(&n))
            }
            Kind::Time { min_ps } | Kind::TimeFloor { min_ps, .. } => {
                x.as_u64().is_some_and(|n| n >= min_ps && n <= MAX_TIME_PS)
            }
            Kind::Ratio { max } => x.as_f64().is_some_and(|r| r.is_finite() && r > 0.0 && r <= max),
            Kind::Number { lo, hi, lo_open } => {
                // an optional number left out (null) is set automatically
                x.is_null()
                    || x.as_f64().is_some_and(|r| !r.is_nan() && r <= hi && if lo_open { r > lo } else { r >= lo })
            }
            Kind::Prob { lo_open } => x.is_null() || x.as_f64().is_some_and(|p| prob(p, lo_open)),
            Kind::ProbOrAuto => x.is_null() || x.as_f64().is_some_and(|p| prob(p, true)),
            Kind::Packets => x.as_array().is_some_and(|a| {
                let n: Vec<Option<u64>> = a.iter().map(Value::as_u64).collect();
                !n.is_empty() && n.iter().all(|k| k.is_some_and(|k| k >= 1)) && n.windows(2).all(|w| w[0] < w[1])
            }),
            Kind::TimeDist { min_mean_ps, .. } => {
                serde_json::from_value::<crate::rng::Dist>(x.clone()).is_ok_and(|d| {
                    d.check("", min_mean_ps > 0).is_ok()
                        && d.mean() >= min_mean_ps as f64
                        && d.mean() <= MAX_TIME_PS as f64
                })
            }
            Kind::Size { lo, hi } => x.as_u64().is_some_and(|n| (lo..=hi).contains(&n)),
            Kind::Rate => x.as_u64().is_some_and(|n| n > 0),
            Kind::TimeOrOff => x.as_u64().is_some_and(|n| n > 0 && n <= MAX_TIME_PS),
            Kind::SizeDist => {
                serde_json::from_value::<crate::rng::Dist>(x.clone()).is_ok_and(|d| d.check("", true).is_ok())
            }
            Kind::Intervals => x.as_array().is_some_and(|a| {
                let pairs: Option<Vec<[u64; 2]>> = a.iter().map(|p| serde_json::from_value(p.clone()).ok()).collect();
                pairs.is_some_and(|p| {
                    !p.is_empty()
                        && p.iter().all(|[s, e]| s < e && *e <= MAX_TIME_PS)
                        && p.windows(2).all(|w| w[0][1] <= w[1][0])
                })
            }),
            _ => true,
        }
    }
}

/// Check each field of a resolved configuration `v` against its option's
/// kind in `table`.
pub(crate) fn check_kinds(table: &'static [Opt], v: &Value) -> Result<(), Broken> {
    for o in table {
        let x = &v[o.core];
        // null: an optional field left out (set automatically or unused)
        if !x.is_null() && !o.kind.holds(x) {
            let got = match (o.kind, x.as_u64()) {
                (Kind::Time { .. } | Kind::TimeFloor { .. } | Kind::TimeOrOff, Some(ps)) => format!("{ps} ps"),
                _ => x.to_string(),
            };
            return Err(Broken { option: o.name, got, expected: o.kind.accepted() });
        }
    }
    Ok(())
}

/// A field a model's scenario name sets itself (the RED family's `gentle`
/// and `adaptive`): the user may write the same value, not another.
#[derive(Clone, Copy, Debug)]
pub enum Fixed {
    Bool(bool),
    Str(&'static str),
}

impl Fixed {
    pub(crate) fn to_json(self) -> Value {
        match self {
            Fixed::Bool(b) => json!(b),
            Fixed::Str(s) => json!(s),
        }
    }
}

/// A name a scenario gives a model, the fields that name sets and its
/// documentation line (a model may have several: RED's four).
#[derive(Clone, Copy, Debug)]
pub struct Named {
    pub name: &'static str,
    pub fixed: &'static [(&'static str, Fixed)],
    pub doc: &'static str,
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
