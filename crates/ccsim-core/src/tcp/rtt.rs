//! The retransmission timer, in three models (`tcp.rto`):
//!
//! - `rfc6298` — RFC 6298 §2: SRTT/RTTVAR with α = 1/8, β = 1/4,
//!   RTO = max(min_rto, SRTT + max(G, 4·RTTVAR)), capped at max_rto; before
//!   the first sample RTO = initial_rto.
//! - `linux` — Linux `tcp_rtt_estimator` and `__tcp_set_rto`
//!   (net/ipv4/tcp_input.c, include/net/tcp.h, 4.x–6.x), in microseconds as
//!   the kernel keeps them: srtt ×8, mdev ×4 with a 1/8 gain when the RTT
//!   falls (the Eifel refinement), `mdev_max` the largest mdev of the
//!   current RTT (reset to rto_min at each RTT boundary, when snd_una passes
//!   `rtt_seq`), `rttvar` raised at once to mdev_max and otherwise decaying
//!   by ¼ of its excess per RTT. RTO = srtt + rttvar, rounded up to a jiffy
//!   (`clock_granularity`), capped at max_rto. Because rttvar never falls
//!   below rto_min the RTO stays above SRTT + rto_min: the floor is relative.
//! - `ns2` — ns-2.35 `TcpAgent::rtt_update`, `rtt_timeout`, `rtt_backoff`
//!   (tcp/tcp.cc, defaults in tcl/lib/ns-default.tcl): samples counted in
//!   ticks of `clock_granularity` (tcpTick_, 10 ms), srtt ×8 and rttvar ×4 in
//!   ticks, RTO = (srtt + 4·rttvar) ticks; min_rto applied before the
//!   back-off multiplier (rfc2988_ true); at least two ticks; after more
//!   than three back-offs srtt is folded into rttvar and cleared. Without
//!   timestamps a sample is the number of tick boundaries between send and
//!   ACK, with a random clock phase per flow (`boot_time_`); the sender
//!   times one segment per RTT (see `Conn::ns2_timed`).
//!
//! Each expiry doubles the RTO (capped) until a valid sample clears the
//! back-off (RFC 6298 §5.5–5.7). Karn's rule is applied by the sender. The
//! smoothed RTT the algorithms and pacing read (`srtt`) is the RFC 6298
//! average of every sample in all three models.

use crate::config::RtoModel;
use crate::units::SimTime;

const PS_PER_US: SimTime = 1_000_000;

#[derive(Clone, Debug)]
enum Timer {
    Rfc6298 {
        srtt: SimTime,
        rttvar: SimTime,
    },
    /// Microseconds; `srtt8` = 8·srtt, `mdev` = 4·mean deviation.
    Linux {
        srtt8: i64,
        mdev: i64,
        mdev_max: i64,
        rttvar: i64,
        rtt_seq: u64,
    },
    /// Ticks; `srtt8` = 8·srtt (0 = no estimate), `rttvar4` = 4·rttvar.
    Ns2 {
        srtt8: i64,
        rttvar4: i64,
        rtxcur: SimTime,
    },
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// RFC 6298 smoothed RTT of every sample (for the algorithms and pacing).
    pub srtt: Option<SimTime>,
    pub min_rtt: Option<SimTime>,
    /// Expiries since the last valid sample.
    backoff: u32,
    timer: Option<Timer>,
    model: RtoModel,
    min_rto: SimTime,
    max_rto: SimTime,
    initial_rto: SimTime,
    granularity: SimTime,
    /// ns-2's clock phase, drawn once per flow (uniform in one tick).
    boot: SimTime,
}

impl RttEstimator {
    /// `boot_frac` in [0, 1) places the ns-2 clock's phase within a tick.
    pub fn new(
        model: RtoModel,
        min_rto: SimTime,
        max_rto: SimTime,
        initial_rto: SimTime,
        granularity: SimTime,
        boot_frac: f64,
    ) -> Self {
        let boot = (boot_frac * granularity as f64) as SimTime;
        RttEstimator {
            srtt: None,
            min_rtt: None,
            backoff: 0,
            timer: None,
            model,
            min_rto,
            max_rto,
            initial_rto,
            granularity,
            boot,
        }
    }

    pub fn model(&self) -> RtoModel {
        self.model
    }

    /// One RTT measurement for the algorithms: the smoothed RTT
    /// (RFC 6298 §2.3 averaging) and the minimum.
    pub fn observe(&mut self, r: SimTime) {
        self.srtt = Some(match self.srtt {
            None => r,
            Some(s) => (7 * s + r) / 8,
        });
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
    }

    /// One measurement for the retransmission timer. `now` is when the
    /// ACK arrived; `snd_una`/`snd_nxt` after it (Linux's per-RTT
    /// boundary); `ts` whether the sample came from a timestamp echo (ns-2
    /// rounds those instead of counting tick boundaries). Does not clear the
    /// back-off: `clear_backoff` does (RFC 6298 §5.7).
    pub fn timer_sample(&mut self, r: SimTime, now: SimTime, snd_una: u64, snd_nxt: u64, ts: bool) {
        match self.model {
            RtoModel::Rfc6298 => {
                self.timer = Some(match self.timer {
                    // RTTVAR = 3/4·RTTVAR + 1/4·|SRTT − R'| (old SRTT), then SRTT = 7/8·SRTT + 1/8·R'
                    Some(Timer::Rfc6298 { srtt, rttvar }) => {
                        Timer::Rfc6298 { srtt: (7 * srtt + r) / 8, rttvar: (3 * rttvar + srtt.abs_diff(r)) / 4 }
                    }
                    _ => Timer::Rfc6298 { srtt: r, rttvar: r / 2 },
                });
            }
            RtoModel::Linux => {
                let rto_min = (self.min_rto / PS_PER_US) as i64;
                let m = (r / PS_PER_US) as i64;
                self.timer = Some(match self.timer {
                    Some(Timer::Linux { srtt8, mut mdev, mut mdev_max, mut rttvar, mut rtt_seq }) => {
                        let mut m = m - (srtt8 >> 3);
                        let srtt8 = srtt8 + m;
                        if m < 0 {
                            m = -m - (mdev >> 2);
                            if m > 0 {
                                m >>= 3;
                            }
                        } else {
                            m -= mdev >> 2;
                        }
                        mdev += m;
                        if mdev > mdev_max {
                            mdev_max = mdev;
                            if mdev_max > rttvar {
                                rttvar = mdev_max;
                            }
                        }
                        if snd_una > rtt_seq {
                            if mdev_max < rttvar {
                                rttvar -= (rttvar - mdev_max) >> 2;
                            }
                            rtt_seq = snd_nxt;
                            mdev_max = rto_min;
                        }
                        Timer::Linux { srtt8: srtt8.max(1), mdev, mdev_max, rttvar, rtt_seq }
                    }
                    _ => {
                        let mdev = m << 1;
                        let rttvar = mdev.max(rto_min);
                        Timer::Linux { srtt8: (m << 3).max(1), mdev, mdev_max: rttvar, rttvar, rtt_seq: snd_nxt }
                    }
                });
            }
            RtoModel::Ns2 => {
                let tick = self.granularity.max(1);
                let boot = self.boot;
                let ticks = if ts {
                    ((r + tick / 2) / tick) as i64
                } else {
                    // Tick boundaries crossed between the send and `now`.
                    let off = (now - r + boot) % tick;
                    ((r + off) / tick) as i64
                }
                .max(1);
                let (srtt8, rttvar4) = match self.timer {
                    Some(Timer::Ns2 { srtt8, rttvar4, .. }) if srtt8 != 0 => {
                        let mut delta = ticks - (srtt8 >> 3);
                        let srtt8 = (srtt8 + delta).max(1);
                        delta = delta.abs() - (rttvar4 >> 2);
                        (srtt8, (rttvar4 + delta).max(1))
                    }
                    _ => (ticks << 3, ticks << 1),
                };
                let rtxcur = (((rttvar4 << 3) + srtt8) >> 3) as SimTime * tick;
                self.timer = Some(Timer::Ns2 { srtt8, rttvar4, rtxcur });
            }
        }
    }

    /// The variation term the RTO adds to the smoothed RTT: RFC 6298's
    /// K·RTTVAR (K = 4), Linux's rttvar_us, ns-2's 4·rttvar in ticks; None
    /// before the first sample.
    pub fn rttvar(&self) -> Option<SimTime> {
        match self.timer {
            None => None,
            Some(Timer::Rfc6298 { rttvar, .. }) => Some(4 * rttvar),
            Some(Timer::Linux { rttvar, .. }) => Some(rttvar as SimTime * PS_PER_US),
            Some(Timer::Ns2 { rttvar4, .. }) => Some(rttvar4.max(0) as SimTime * self.granularity.max(1)),
        }
    }

    /// A valid sample ends the back-off (RFC 6298 §5.7; Linux
    /// `icsk_backoff = 0`; ns-2 `t_backoff_ = 1`).
    pub fn clear_backoff(&mut self) {
        self.backoff = 0;
    }

    pub fn backed_off(&self) -> bool {
        self.backoff > 0
    }

    /// RTO before back-off.
    pub fn base_rto(&self) -> SimTime {
        match self.timer {
            None => self.initial_rto.min(self.max_rto),
            Some(Timer::Rfc6298 { srtt, rttvar }) => {
                (srtt + self.granularity.max(4 * rttvar)).max(self.min_rto).min(self.max_rto)
            }
            Some(Timer::Linux { srtt8, rttvar, .. }) => {
                let us = ((srtt8 >> 3) + rttvar) as SimTime * PS_PER_US;
                let g = self.granularity.max(1);
                (us.div_ceil(g) * g).min(self.max_rto)
            }
            // ns-2 rtt_timeout with rfc2988_: min_rto applies before back-off.
            Some(Timer::Ns2 { rtxcur, .. }) => rtxcur.max(self.min_rto),
        }
    }

    /// Current RTO including exponential back-off.
    pub fn rto(&self) -> SimTime {
        let base = self.base_rto();
        let shifted = if self.backoff >= 40 { u64::MAX } else { base.saturating_mul(1u64 << self.backoff) };
        let rto = shifted.min(self.max_rto);
        if self.model == RtoModel::Ns2 {
            rto.max(2 * self.granularity)
        } else {
            rto
        }
    }

    /// The timer expired: RTO ← 2·RTO (RFC 6298 §5.5). ns-2 (`rtt_backoff`)
    /// also forgets SRTT once backed off more than 8×, adding it to RTTVAR.
    pub fn back_off(&mut self) {
        // ns-2 keeps doubling its multiplier up to 64 even at the cap.
        if self.rto() < self.max_rto || (self.model == RtoModel::Ns2 && self.backoff < 6) {
            self.backoff += 1;
        }
        if self.backoff > 3 {
            if let Some(Timer::Ns2 { srtt8, rttvar4, .. }) = &mut self.timer {
                *rttvar4 += *srtt8 >> 3;
                *srtt8 = 0;
            }
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

    fn rfc(min_rto: SimTime, max_rto: SimTime) -> RttEstimator {
        RttEstimator::new(RtoModel::Rfc6298, min_rto, max_rto, PS_PER_S, ms(1.0), 0.0)
    }

    fn feed(e: &mut RttEstimator, r: SimTime) {
        e.timer_sample(r, 10 * PS_PER_S, 0, 0, false);
        e.clear_backoff();
    }

    /// ns-3 rtt-test vectors with α = 1/8, β = 1/4 (docs/reference.md R1):
    /// samples 1.0, 1.2, 0.9 s → SRTT/RTTVAR 1.0/0.5; 1.025/0.425; 1.009375/0.35.
    #[test]
    fn rfc6298_estimator_matches_reference_vectors() {
        let mut e = rfc(ms(200.0), 60 * PS_PER_S);
        let expect = [(1000.0, 1000.0, 500.0), (1200.0, 1025.0, 425.0), (900.0, 1009.375, 350.0)];
        for (r, s, v) in expect {
            feed(&mut e, ms(r));
            assert_eq!(e.base_rto(), ms(s) + 4 * ms(v));
        }
    }

    #[test]
    fn rto_formula_floor_and_initial_value() {
        let mut e = rfc(ms(1000.0), 60 * PS_PER_S);
        assert_eq!(e.rto(), PS_PER_S); // before any sample: 1 s (§2.1)
        feed(&mut e, ms(100.0)); // 100 + 4·50 = 300 ms → raised to the 1 s floor (§2.4)
        assert_eq!(e.rto(), PS_PER_S);
        let mut e = rfc(ms(200.0), 60 * PS_PER_S);
        feed(&mut e, ms(100.0));
        assert_eq!(e.rto(), ms(300.0));
    }

    #[test]
    fn backoff_doubles_up_to_max_and_sample_clears_it() {
        let mut e = rfc(ms(200.0), 8 * PS_PER_S);
        let mut seen = vec![e.rto()];
        for _ in 0..6 {
            e.back_off();
            seen.push(e.rto());
        }
        let s = PS_PER_S;
        assert_eq!(seen, vec![s, 2 * s, 4 * s, 8 * s, 8 * s, 8 * s, 8 * s]);
        feed(&mut e, ms(100.0));
        assert_eq!(e.rto(), ms(300.0));
    }

    fn linux() -> RttEstimator {
        RttEstimator::new(RtoModel::Linux, ms(200.0), 120 * PS_PER_S, PS_PER_S, ms(1.0), 0.0)
    }

    /// Hand-computed from tcp_rtt_estimator / __tcp_set_rto (µs, HZ = 1000).
    #[test]
    fn linux_first_sample_gives_max_of_3r_and_r_plus_rto_min() {
        // R = 100 ms: mdev = 200 000 µs ≥ rto_min, RTO = 100 + 200 = 300 ms.
        let mut e = linux();
        e.timer_sample(ms(100.0), 0, 0, 10, false);
        assert_eq!(e.rto(), ms(300.0));
        // R = 20 ms: mdev = 40 ms < rto_min, rttvar = 200 ms, RTO = 220 ms.
        let mut e = linux();
        e.timer_sample(ms(20.0), 0, 0, 10, false);
        assert_eq!(e.rto(), ms(220.0));
    }

    #[test]
    fn linux_rto_stays_above_srtt_plus_rto_min_when_the_rtt_is_constant() {
        // Constant 100 ms samples, one per RTT (snd_una passes rtt_seq each
        // time): mdev decays to 0, rttvar decays towards mdev_max = 200 ms.
        let mut e = linux();
        let mut una = 0;
        for k in 0..200u64 {
            e.timer_sample(ms(100.0), 0, una, una + 10, false);
            una += 10 + k % 2;
        }
        assert_eq!(e.rto(), ms(300.0));
        // The RFC estimator falls to SRTT + G = 101 ms on the same samples.
        let mut r = rfc(ms(1.0), 60 * PS_PER_S);
        for _ in 0..200 {
            feed(&mut r, ms(100.0));
        }
        assert_eq!(r.rto(), ms(101.0));
    }

    #[test]
    fn linux_sequence_by_hand() {
        // Samples 100, 140, 80 ms; every sample crosses an RTT boundary.
        // 1: srtt8 = 800 000, mdev = 200 000, rttvar = mdev_max = 200 000.
        // 2: m = 140 000 − 100 000 = 40 000 → srtt8 = 840 000;
        //    m −= mdev>>2 (50 000) → −10 000; mdev = 190 000 (< mdev_max);
        //    boundary: rttvar stays (mdev_max = rttvar), mdev_max = 200 000.
        //    RTO = 105 000 + 200 000 µs = 305 ms.
        // 3: m = 80 000 − 105 000 = −25 000 → srtt8 = 815 000; m < 0:
        //    m = 25 000 − 47 500 = −22 500 (not > 0, no 1/8); mdev = 167 500;
        //    RTO = 101 875 + 200 000 µs = 301.875 → 302 ms (jiffy round-up).
        let mut e = linux();
        e.timer_sample(ms(100.0), 0, 0, 10, false);
        e.timer_sample(ms(140.0), 0, 11, 20, false);
        assert_eq!(e.rto(), ms(305.0));
        e.timer_sample(ms(80.0), 0, 21, 30, false);
        assert_eq!(e.rto(), ms(302.0));
        // A 1.1 s sample: m = 1 100 000 − 101 875 = 998 125 → mdev = 167 500
        // + 998 125 − 41 875 = 1 123 750 > mdev_max → rttvar = 1 123 750;
        // srtt8 = 815 000 + 998 125 = 1 813 125 → srtt 226 640;
        // RTO = 1 350 390 µs → 1351 ms.
        e.timer_sample(ms(1100.0), 0, 25, 30, false);
        assert_eq!(e.rto(), ms(1351.0));
    }

    fn ns2() -> RttEstimator {
        RttEstimator::new(RtoModel::Ns2, ms(200.0), 60 * PS_PER_S, 3 * PS_PER_S, ms(10.0), 0.0)
    }

    /// Hand-computed from ns-2.35 rtt_update / rtt_timeout (tcpTick_ 10 ms).
    #[test]
    fn ns2_sequence_by_hand() {
        let mut e = ns2();
        assert_eq!(e.rto(), 3 * PS_PER_S); // rtxcur_init_
                                           // A 100 ms sample sent on a tick boundary: 10 ticks; srtt8 = 80,
                                           // rttvar4 = 20; rtxcur = ((20 << 3) + 80) >> 3 = 30 ticks = 300 ms.
        e.timer_sample(ms(100.0), ms(1000.0), 0, 0, false);
        assert_eq!(e.rto(), ms(300.0));
        // 104 ms sent 5 ms after a tick: (104 + 5) / 10 = 10 ticks (floor);
        // delta = 0 → srtt8 80, rttvar4 = 20 − 5 = 15; rtxcur = (120 + 80) >> 3 = 25.
        e.timer_sample(ms(104.0), ms(1109.0), 0, 0, false);
        assert_eq!(e.rto(), ms(250.0));
        // Constant 10-tick samples: rttvar4 → 15, 12, 9, 7, 6, 5, 4, 3 (x − x>>2 stops at 3);
        // rtxcur = (24 + 80) >> 3 = 13 ticks = 130 ms → min_rto 200 ms.
        for _ in 0..20 {
            e.timer_sample(ms(100.0), ms(2000.0), 0, 0, false);
        }
        assert_eq!(e.base_rto(), ms(200.0));
        // min_rto applies before the back-off (rfc2988_): 400, 800 ms ...
        e.back_off();
        assert_eq!(e.rto(), ms(400.0));
        e.back_off();
        assert_eq!(e.rto(), ms(800.0));
    }

    #[test]
    fn ns2_tick_counting_and_timestamp_rounding() {
        // Without timestamps the sample is the count of tick boundaries: a
        // 15 ms RTT sent 6 ms into a tick crosses two (21 → 2 ticks).
        let mut e = ns2();
        e.timer_sample(ms(15.0), ms(1021.0), 0, 0, false);
        // srtt8 = 16, rttvar4 = 4: ((4 << 3) + 16) >> 3 = 6 ticks, then min_rto.
        assert_eq!(e.base_rto(), ms(200.0));
        // With timestamps it is rounded: 15 ms → int(1.5 + 0.5) = 2 ticks; 14 ms → 1 tick (floor 1).
        let mut e = RttEstimator::new(RtoModel::Ns2, 1, 60 * PS_PER_S, 3 * PS_PER_S, ms(10.0), 0.0);
        e.timer_sample(ms(14.0), ms(1000.0), 0, 0, true);
        // srtt8 = 8, rttvar4 = 2 → (16 + 8) >> 3 = 3 ticks.
        assert_eq!(e.base_rto(), ms(30.0));
    }

    #[test]
    fn ns2_backoff_forgets_srtt_after_eight_times() {
        let mut e = ns2();
        e.timer_sample(ms(100.0), ms(1000.0), 0, 0, false); // srtt8 80, rttvar4 20
        for _ in 0..4 {
            e.back_off();
        }
        // Backed off 16×: srtt folded into rttvar4 (20 + 10 = 30), srtt cleared,
        // so the next sample starts afresh: 10 ticks → srtt8 80, rttvar4 20.
        e.timer_sample(ms(100.0), ms(5000.0), 0, 0, false);
        e.clear_backoff();
        assert_eq!(e.rto(), ms(300.0));
    }
}
