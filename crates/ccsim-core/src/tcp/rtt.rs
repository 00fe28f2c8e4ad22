//! Retransmission timer, RFC 6298: SRTT/RTTVAR with α = 1/8, β = 1/4,
//! RTO = max(min_rto, SRTT + max(G, 4·RTTVAR)), capped at max_rto; before the
//! first sample RTO = initial_rto; each expiry doubles RTO (capped) until a new
//! valid sample clears the back-off (§5.5–5.7). Karn's rule is applied by the
//! sender (no samples from retransmitted segments).
//! Deviation: Linux floors RTO at SRTT + 200 ms via rttvar (see
//! docs/reference.md R1); we follow the RFC with a configurable floor.

use crate::units::SimTime;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub srtt: Option<SimTime>,
    pub rttvar: SimTime,
    pub min_rtt: Option<SimTime>,
    pub backoff: u32,
    min_rto: SimTime,
    max_rto: SimTime,
    initial_rto: SimTime,
    granularity: SimTime,
}

impl RttEstimator {
    pub fn new(min_rto: SimTime, max_rto: SimTime, initial_rto: SimTime, granularity: SimTime) -> Self {
        RttEstimator { srtt: None, rttvar: 0, min_rtt: None, backoff: 0, min_rto, max_rto, initial_rto, granularity }
    }

    /// Feed one RTT measurement `r` (RFC 6298 §2.2–2.3).
    pub fn sample(&mut self, r: SimTime) {
        match self.srtt {
            None => {
                // SRTT = R, RTTVAR = R/2
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                // RTTVAR = 3/4·RTTVAR + 1/4·|SRTT − R'| (old SRTT), then SRTT = 7/8·SRTT + 1/8·R'
                let err = s.abs_diff(r);
                self.rttvar = (3 * self.rttvar + err) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.backoff = 0;
    }

    /// RTO before back-off.
    pub fn base_rto(&self) -> SimTime {
        match self.srtt {
            None => self.initial_rto.min(self.max_rto),
            Some(s) => (s + self.granularity.max(4 * self.rttvar)).max(self.min_rto).min(self.max_rto),
        }
    }

    /// Current RTO including exponential back-off.
    pub fn rto(&self) -> SimTime {
        let base = self.base_rto();
        let shifted = if self.backoff >= 40 { u64::MAX } else { base.saturating_mul(1u64 << self.backoff) };
        shifted.min(self.max_rto)
    }

    /// The timer expired: RTO ← 2·RTO (§5.5).
    pub fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{PS_PER_MS, PS_PER_S};

    fn ms(x: f64) -> SimTime {
        (x * PS_PER_MS as f64).round() as SimTime
    }

    /// ns-3 rtt-test vectors with α = 1/8, β = 1/4 (docs/reference.md R1):
    /// samples 1.0, 1.2, 0.9 s → SRTT/RTTVAR 1.0/0.5; 1.025/0.425; 1.009375/0.35.
    #[test]
    fn rfc6298_estimator_matches_reference_vectors() {
        let mut e = RttEstimator::new(ms(200.0), 60 * PS_PER_S, PS_PER_S, ms(1.0));
        let expect = [(1000.0, 1000.0, 500.0), (1200.0, 1025.0, 425.0), (900.0, 1009.375, 350.0)];
        for (r, s, v) in expect {
            e.sample(ms(r));
            assert_eq!(e.srtt, Some(ms(s)));
            assert_eq!(e.rttvar, ms(v));
        }
    }

    #[test]
    fn rto_formula_floor_and_initial_value() {
        let mut e = RttEstimator::new(ms(1000.0), 60 * PS_PER_S, PS_PER_S, ms(1.0));
        assert_eq!(e.rto(), PS_PER_S); // before any sample: 1 s (§2.1)
        e.sample(ms(100.0)); // 100 + 4·50 = 300 ms → raised to the 1 s floor (§2.4)
        assert_eq!(e.rto(), PS_PER_S);
        let mut e = RttEstimator::new(ms(200.0), 60 * PS_PER_S, PS_PER_S, ms(1.0));
        e.sample(ms(100.0));
        assert_eq!(e.rto(), ms(300.0));
    }

    #[test]
    fn backoff_doubles_up_to_max_and_sample_clears_it() {
        let mut e = RttEstimator::new(ms(200.0), 8 * PS_PER_S, PS_PER_S, ms(1.0));
        let mut seen = vec![e.rto()];
        for _ in 0..6 {
            e.back_off();
            seen.push(e.rto());
        }
        let s = PS_PER_S;
        assert_eq!(seen, vec![s, 2 * s, 4 * s, 8 * s, 8 * s, 8 * s, 8 * s]);
        e.sample(ms(100.0));
        assert_eq!(e.rto(), ms(300.0));
    }
}
