//! Seeded random streams. Every random process (a link's loss model, a
//! traffic source) owns its own stream, derived from the run seed and a
//! stable component key, so adding a flow never changes another component's
//! draws.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Stream kinds: part of the derivation key so two component kinds with the
/// same index never share a stream.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum StreamKind {
    LinkLoss = 1,
    Flow = 2,
    /// A congestion-control algorithm's own draws (BBR's gain-cycle start).
    Cc = 3,
    /// A queue discipline's draws (RED's early drops), per link direction.
    Queue = 4,
    /// A TCP flow's application (ON-OFF periods, transfer sizes, think times).
    App = 5,
    /// A UDP source (ON-OFF periods, CBR jitter).
    Udp = 6,
    /// A TCP flow's retransmission timer (the ns-2 clock phase).
    Timer = 7,
    /// A link direction's reordering delays.
    LinkReorder = 8,
}

/// SplitMix64 finaliser, used only to mix the derivation key.
fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub struct Stream {
    rng: Xoshiro256PlusPlus,
}

impl Stream {
    pub fn new(seed: u64, kind: StreamKind, index: u64) -> Self {
        let key = mix64(mix64(seed) ^ mix64((kind as u64) << 56 ^ index));
        Stream { rng: Xoshiro256PlusPlus::seed_from_u64(key) }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Uniform in [0, 1) with 53 random bits.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }
}

/// A distribution of a non-negative quantity (a time in ps, a size in bytes,
/// a count), sampled by inversion from a component's own stream.
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "snake_case")]
pub enum Dist {
    /// Always `value`.
    Fixed { value: f64 },
    /// Exponential with mean `mean`.
    Exponential { mean: f64 },
    /// Pareto (type I) with mean `mean` and shape `shape` > 1, as ns-2's
    /// RandomVariable/Pareto (avg_, shape_): scale x_m = mean·(shape − 1)/shape,
    /// P(X > x) = (x_m/x)^shape for x ≥ x_m.
    Pareto { mean: f64, shape: f64 },
    /// Pareto type II (Lomax) with mean `mean` and shape > 1, as ns-2's
    /// RandomVariable/ParetoII (the WebTraf object sizes): scale
    /// λ = mean·(shape − 1), P(X > x) = (1 + x/λ)^−shape for x ≥ 0.
    Pareto2 { mean: f64, shape: f64 },
    /// Uniform in [min, max].
    Uniform { min: f64, max: f64 },
}

impl Dist {
    /// One draw from `s`: the quantile of one uniform draw (a fixed value
    /// draws nothing).
    pub fn sample(&self, s: &mut Stream) -> f64 {
        match *self {
            Dist::Fixed { value } => value,
            _ => self.quantile(s.uniform()),
        }
    }

    /// The value at quantile `u` ∈ [0, 1) (the inverse of the distribution
    /// function): what a draw of uniform `u` gives. The front end draws its
    /// per-flow values (RTTs, start times) through it with its own uniforms.
    pub fn quantile(&self, u: f64) -> f64 {
        match *self {
            Dist::Fixed { value } => value,
            Dist::Exponential { mean } => -mean * (-u).ln_1p(),
            Dist::Pareto { mean, shape } => {
                let scale = mean * (shape - 1.0) / shape;
                // 1 − u is in (0, 1], so the power is finite.
                scale * (1.0 - u).powf(-1.0 / shape)
            }
            Dist::Pareto2 { mean, shape } => {
                let scale = mean * (shape - 1.0);
                scale * ((1.0 - u).powf(-1.0 / shape) - 1.0)
            }
            Dist::Uniform { min, max } => min + (max - min) * u,
        }
    }

    /// The smallest value it draws: a Pareto's scale, 0 for the exponential
    /// and the Lomax.
    pub fn least(&self) -> f64 {
        match *self {
            Dist::Exponential { .. } | Dist::Pareto2 { .. } => 0.0,
            _ => self.quantile(0.0),
        }
    }

    pub fn mean(&self) -> f64 {
        match *self {
            Dist::Fixed { value } => value,
            Dist::Exponential { mean } | Dist::Pareto { mean, .. } | Dist::Pareto2 { mean, .. } => mean,
            Dist::Uniform { min, max } => (min + max) / 2.0,
        }
    }

    /// The first parameter outside its bounds: (parameter, its value, what
    /// is accepted); `lo_open`: the values drawn must be > 0 (a duration),
    /// else ≥ 0.
    pub fn broken(&self, lo_open: bool) -> Option<(&'static str, f64, &'static str)> {
        let ok = |v: f64| v.is_finite() && if lo_open { v > 0.0 } else { v >= 0.0 };
        let bound = if lo_open { "a finite value > 0" } else { "a finite value ≥ 0" };
        let positive = |v: f64| v.is_finite() && v > 0.0;
        match *self {
            Dist::Fixed { value } if !ok(value) => Some(("value", value, bound)),
            Dist::Exponential { mean } | Dist::Pareto { mean, .. } | Dist::Pareto2 { mean, .. } if !positive(mean) => {
                Some(("mean", mean, "a finite value > 0"))
            }
            Dist::Pareto { shape, .. } | Dist::Pareto2 { shape, .. } if !(shape.is_finite() && shape > 1.0) => {
                Some(("shape", shape, "a number > 1 (the Pareto mean is infinite for shape ≤ 1)"))
            }
            Dist::Uniform { min, .. } if !ok(min) => Some(("min", min, bound)),
            Dist::Uniform { min, max } if !(max.is_finite() && max >= min) => {
                Some(("max", max, "a finite value ≥ min (the lower end)"))
            }
            _ => None,
        }
    }

    /// Check the parameters; `what` names the field, `lo_open` as `broken`.
    pub fn check(&self, what: &str, lo_open: bool) -> Result<(), String> {
        match self.broken(lo_open) {
            Some((p, v, accepted)) => Err(format!("{what}.{p}: got {v}; expected {accepted}")),
            None => Ok(()),
        }
    }
}

/// A distribution as a scenario writes it (`{dist = "pareto", mean = …,
/// shape = …}`): the kind (`Dist`'s tag), its parameters in order, and
/// the doc line. A parameter that is a `quantity` is in the unit of what
/// is drawn (a time, a size); the rest (a shape) are plain numbers.
#[derive(Clone, Copy, Debug)]
pub struct DistSpec {
    pub name: &'static str,
    pub params: &'static [(&'static str, Quantity)],
    pub doc: &'static str,
}

/// Whether a distribution's parameter is in the unit of what is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Quantity {
    Drawn,
    Number,
}

/// Every distribution, in documentation order.
#[rustfmt::skip]
pub const DISTS: &[DistSpec] = {
    use Quantity::*;
    &[
    DistSpec { name: "fixed", params: &[("value", Drawn)], doc: "{dist = 'fixed', value = X}, or X alone" },
    DistSpec { name: "exponential", params: &[("mean", Drawn)], doc: "{dist = 'exponential', mean = X}" },
    DistSpec { name: "pareto", params: &[("mean", Drawn), ("shape", Number)], doc: "{dist = 'pareto', mean = X, shape = a} (a > 1; ns-2 Pareto: scale = mean·(a − 1)/a)" },
    DistSpec { name: "pareto2", params: &[("mean", Drawn), ("shape", Number)], doc: "{dist = 'pareto2', mean = X, shape = a} (Pareto II / Lomax, ns-2 ParetoII: scale = mean·(a − 1), from 0)" },
    DistSpec { name: "uniform", params: &[("min", Drawn), ("max", Drawn)], doc: "{dist = 'uniform', min = X, max = Y}" },
    ]
};

/// The distributions as JSON (`_core.dist_options()`).
pub fn dists_json() -> String {
    let rows: Vec<serde_json::Value> = DISTS
        .iter()
        .map(|d| {
            serde_json::json!({
                "name": d.name,
                "params": d.params.iter().map(|(p, q)| serde_json::json!({"name": p, "number": *q == Quantity::Number})).collect::<Vec<_>>(),
                "doc": d.doc,
            })
        })
        .collect();
    serde_json::Value::Array(rows).to_string()
}

/// Check a distribution given as JSON (`_core.check_dist`): None when it
/// passes, else (parameter, value, what is accepted).
/// The values at quantiles `us` of a distribution given as JSON (the front
/// end's per-flow draws, `Dist::quantile`).
pub fn dist_quantiles_json(json: &str, us: &[f64]) -> Result<Vec<f64>, String> {
    let d: Dist = serde_json::from_str(json).map_err(|e| format!("a distribution: {e}"))?;
    Ok(us.iter().map(|&u| d.quantile(u)).collect())
}

/// The smallest value a distribution given as JSON draws (`Dist::least`).
pub fn dist_least_json(json: &str) -> Result<f64, String> {
    let d: Dist = serde_json::from_str(json).map_err(|e| format!("a distribution: {e}"))?;
    Ok(d.least())
}

pub fn check_dist_json(json: &str, lo_open: bool) -> Result<Option<(&'static str, f64, &'static str)>, String> {
    let d: Dist = serde_json::from_str(json).map_err(|e| format!("a distribution: {e}"))?;
    Ok(d.broken(lo_open))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn streams_are_reproducible_and_independent() {
        let mut a = Stream::new(1, StreamKind::LinkLoss, 3);
        let mut b = Stream::new(1, StreamKind::LinkLoss, 3);
        let mut c = Stream::new(1, StreamKind::LinkLoss, 4);
        let xa: Vec<f64> = (0..5).map(|_| a.uniform()).collect();
        let xb: Vec<f64> = (0..5).map(|_| b.uniform()).collect();
        let xc: Vec<f64> = (0..5).map(|_| c.uniform()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn bernoulli_rate_within_sampling_error() {
        // n = 1e6, p = 0.01: sd of the estimate = sqrt(p(1-p)/n) ≈ 1e-4; allow 5 sd.
        let mut s = Stream::new(42, StreamKind::LinkLoss, 0);
        let n = 1_000_000;
        let k = (0..n).filter(|_| s.bernoulli(0.01)).count();
        let est = k as f64 / n as f64;
        assert!((est - 0.01).abs() < 5.0 * (0.01f64 * 0.99 / n as f64).sqrt(), "{est}");
    }

    /// Kolmogorov–Smirnov distance between a sample and a CDF.
    fn ks(mut x: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
        x.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let n = x.len() as f64;
        x.iter()
            .enumerate()
            .map(|(i, &v)| {
                let f = cdf(v);
                (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn distributions_match_their_cdfs() {
        // KS critical value at level 0.001 is 1.95/√n.
        let n = 100_000;
        let crit = 1.95 / (n as f64).sqrt();
        let mut s = Stream::new(7, StreamKind::Flow, 1);
        let draw = |d: Dist, s: &mut Stream| (0..n).map(|_| d.sample(s)).collect::<Vec<f64>>();
        let e = draw(Dist::Exponential { mean: 2.5 }, &mut s);
        assert!(ks(e, |x| 1.0 - (-x / 2.5).exp()) < crit);
        // Pareto mean 10 KB, shape 1.2 (ns-2 web object sizes): x_m = 10e3·0.2/1.2.
        let xm = 10e3 * 0.2 / 1.2;
        let p = draw(Dist::Pareto { mean: 10e3, shape: 1.2 }, &mut s);
        assert!(p.iter().all(|&v| v >= xm));
        assert!(ks(p, |x| 1.0 - (xm / x).powf(1.2)) < crit);
        // Pareto II (ns-2 WebTraf objects: mean 12, shape 1.2): λ = 12·0.2.
        let lam = 12.0 * 0.2;
        let p2 = draw(Dist::Pareto2 { mean: 12.0, shape: 1.2 }, &mut s);
        assert!(ks(p2, |x| 1.0 - (1.0 + x / lam).powf(-1.2)) < crit);
        let u = draw(Dist::Uniform { min: 20.0, max: 250.0 }, &mut s);
        assert!(ks(u, |x| (x - 20.0) / 230.0) < crit);
        assert_eq!(Dist::Fixed { value: 3.0 }.sample(&mut s), 3.0);
    }

    #[test]
    fn every_distribution_kind_has_its_parameters_and_no_more() {
        for d in DISTS {
            let mut v = serde_json::json!({"kind": d.name});
            for (p, _) in d.params {
                v[p] = serde_json::json!(2.0);
            }
            let parsed: Dist = serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{}: {e}", d.name));
            assert_eq!(parsed.broken(true), None, "{v}");
            v["other"] = serde_json::json!(1.0);
            assert!(serde_json::from_value::<Dist>(v).is_err(), "{}: unknown parameter refused", d.name);
        }
    }

    #[test]
    fn dist_check_names_the_bad_parameter() {
        assert!(Dist::Pareto { mean: 1.0, shape: 1.0 }.check("d", true).unwrap_err().contains("d.shape"));
        assert!(Dist::Fixed { value: 0.0 }.check("d", true).unwrap_err().contains("d.value"));
        assert!(Dist::Fixed { value: 0.0 }.check("d", false).is_ok());
        assert!(Dist::Uniform { min: 2.0, max: 1.0 }.check("d", false).unwrap_err().contains("d.max"));
    }

    #[test]
    fn quantiles_are_the_inverse_distribution_functions() {
        // medians from the closed forms: exponential mean·ln 2; Pareto I
        // x_m·2^(1/a); Lomax λ·(2^(1/a) − 1); uniform (min + max)/2
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1.0);
        assert!(close(Dist::Exponential { mean: 3.0 }.quantile(0.5), 3.0 * 2f64.ln()));
        let (mean, a) = (12.0, 1.2);
        let xm = mean * (a - 1.0) / a;
        assert!(close(Dist::Pareto { mean, shape: a }.quantile(0.5), xm * 2f64.powf(1.0 / a)));
        let lam = mean * (a - 1.0);
        assert!(close(Dist::Pareto2 { mean, shape: a }.quantile(0.5), lam * (2f64.powf(1.0 / a) - 1.0)));
        assert!(close(Dist::Uniform { min: 2.0, max: 6.0 }.quantile(0.5), 4.0));
        // the smallest values: the scale, 0, 0, min, the value
        assert_eq!(Dist::Pareto { mean, shape: a }.least(), xm);
        assert_eq!(Dist::Pareto2 { mean, shape: a }.least(), 0.0);
        assert_eq!(Dist::Exponential { mean: 3.0 }.least().to_bits(), 0f64.to_bits());
        assert_eq!(Dist::Uniform { min: 2.0, max: 6.0 }.least(), 2.0);
        assert_eq!(Dist::Fixed { value: 5.0 }.least(), 5.0);
        // a draw is the quantile of the stream's next uniform; a fixed value draws none
        let (mut s1, mut s2) = (Stream::new(9, StreamKind::LinkLoss, 1), Stream::new(9, StreamKind::LinkLoss, 1));
        let d = Dist::Pareto2 { mean, shape: a };
        assert_eq!(d.sample(&mut s1), d.quantile(s2.uniform()));
        assert_eq!(Dist::Fixed { value: 5.0 }.sample(&mut s1), 5.0);
        assert_eq!(s1.uniform(), s2.uniform());
    }
}
