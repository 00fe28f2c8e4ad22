//! RED and its variants, decided at enqueue.
//!
//! Follows Floyd & Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance" (ToN 1993) as implemented in ns-2 `queue/red.cc` (the studies'
//! simulator):
//! - average on every arrival, of the waiting queue *before* the arrival:
//!   avg ← (1 − w_q)^(m+1)·avg + w_q·q, where m = ⌊ptc · idle time⌋ when the
//!   link was idle (ptc = link rate / (8 · mean_pktsize)), else 0;
//! - between min_th and max_th: p_b = max_p·(avg − min_th)/(max_th − min_th);
//!   gentle RED: p_b = max_p + (1 − max_p)·(avg − max_th)/max_th up to
//!   2·max_th; above that (or above max_th without gentle) every packet is
//!   dropped ("forced");
//! - count correction: p_a = p_b/(1 − count·p_b); with `wait` (ns-2
//!   default) p_a = 0 while count·p_b < 1, p_b/(2 − count·p_b) while < 2,
//!   else 1; byte mode scales p_a by size/mean_pktsize and counts bytes;
//! - count restarts at 1 (and no drop) when avg first crosses min_th; early
//!   drops only when more than one packet waits (ns-2's `qlen > 1`);
//! - ECN (`ecn`, ns-2 `setbit_`): an early drop of an ECN-capable packet
//!   becomes a CE mark; forced drops stay drops. With `mark_p` (ns-2's
//!   `use_mark_p_ = true`, red.cc from 2005-12 on) there are no forced
//!   drops below the hard limit: an ECN-capable packet picked with p_b <
//!   mark_p is marked, others dropped. With `mark_p_forced` (ns-2.27's
//!   `mark_p_`, before `use_mark_p_`: drop_early's `v_prob1 < mark_p`) the
//!   forced drops above max_th (2·max_th when gentle) stay and mark_p
//!   decides only among early picks;
//! - adaptive RED (Floyd, Gummadi & Shenker 2001, ns-2 `updateMaxP`): at an
//!   arrival more than `interval` after the last change, if avg < min_th +
//!   0.4·(max_th − min_th) and max_p > bottom, max_p ·= β; if avg > max_th −
//!   0.4·(max_th − min_th) and max_p < top, max_p += min(α, max_p/4);
//! - Feng et al. self-configuring RED (INFOCOM 1999, ns-2
//!   `updateMaxPFeng`): on entering avg < min_th, max_p /= α_f; on entering
//!   avg > max_th, max_p ·= β_f.
//!
//! - step marking (`min_th = max_th = K`, as the DCTCP authors ran RED in
//!   ns-2 for Alizadeh et al., SIGCOMM 2010: `thresh_ = maxthresh_ = K`,
//!   `mark_p_ 1.0` with their change of red.cc's `p < mark_p` to `<=`):
//!   there is no random region and no forced region; every packet that
//!   finds avg ≥ K (with w_q = 1, the queue itself) is picked, an
//!   ECN-capable one marked (with `ecn`), another dropped. ns-2's other
//!   rules stay: nothing is picked while at most one packet waits, nor the
//!   first arrival after avg crosses K.
//!
//! Deviations: ns-2 keeps the count in an int and computes m with int();
//! the same here. Byte mode measures the queue in bytes / mean_pktsize, so
//! thresholds stay in (mean-size) packets. The hard limit is the link's
//! buffer (`limit_pkts` / `limit_bytes`), as DropTail's.

use super::{Discipline, LinkFacts, QueueDisc, QueueKind, QueueState, Verdict, PKT_BYTES};
use crate::opts::{options, Broken, Fixed, Kind, Named, Opt};
use crate::packet::Packet;
use crate::rng::Stream;
use crate::units::{SimTime, PS_PER_MS, PS_PER_S};
use serde::{Deserialize, Serialize};

/// Which adaptation of max_p a RED queue runs (set by the kind's name).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RedAdaptiveCfg {
    #[default]
    Off,
    /// Floyd, Gummadi & Shenker 2001.
    Floyd,
    /// Feng, Kandlur, Saha & Shin 1999.
    Feng,
}

const THRESHOLD: Kind = Kind::Number { lo: 0.0, hi: f64::INFINITY, lo_open: false };
const POSITIVE: Kind = Kind::Number { lo: 0.0, hi: f64::INFINITY, lo_open: true };

options! {
    /// The RED family. Thresholds are in packets (mean-size packets in
    /// byte mode); values left out (None) are set from the link as ns-2's
    /// initialize_params does (`RedParams::from_cfg`). The buffer
    /// (`limit_pkts` or `limit_bytes`, set from the link's) is the hard limit.
    pub struct RedCfg, rows OPTS {
        limit_pkts: Option<u32> = None,
        limit_bytes: Option<u64> = None,
        min_th: Option<f64> = None
            => ("min_th", THRESHOLD, "packets", "lower threshold, packets; none = max(5, target_delay·C/2) (ns-2 automatic)"),
        max_th: Option<f64> = None
            => ("max_th", THRESHOLD, "packets", "upper threshold, packets; none = 3·min_th; = min_th: step marking at K = min_th (DCTCP's ns-2 set-up, with w_q = 1 and ecn = true)"),
        max_p: f64 = 0.1 => ("max_p", Kind::Prob { lo_open: true }, "", "drop probability at max_th (ns-2 linterm 10)"),
        /// EWMA weight: Floyd & Jacobson 1993's suggested 0.002 (ns-2
        /// q_weight_); None = ns-2's automatic value (q_weight_ = −1).
        w_q: Option<f64> = Some(0.002)
            => ("w_q", Kind::ProbOrAuto, "", "EWMA weight (Floyd & Jacobson 1993); 'auto' = ns-2 1 − exp(−1/(10·RTT·C))"),
        gentle: bool = false
            => ("gentle", Kind::Bool, "", "p rises from max_p to 1 between max_th and 2·max_th (always on for gentle_red and adaptive_red)"),
        wait: bool = true => ("wait", Kind::Bool, "", "ns-2 wait_: no drop until count·p_b ≥ 1"),
        bytes: bool = false
            => ("bytes", Kind::Bool, "", "byte mode: queue in bytes/mean_pktsize, p scaled by size/mean_pktsize"),
        mean_pktsize: u32 = 500
            => ("mean_pktsize", PKT_BYTES, "bytes", "bytes (ns-2 mean_pktsize_); sets the idle-time decay and byte mode"),
        ecn: bool = false
            => ("ecn", Kind::Bool, "", "mark ECN-capable packets instead of dropping them early (ns-2 setbit_)"),
        mark_p: Option<f64> = None
            => ("mark_p", Kind::Prob { lo_open: true }, "", "mark (not drop) an ECN-capable packet picked while p_b < mark_p, and no forced drops below the hard limit (ns-2's use_mark_p_ = true, added 2005-12, ns-2.35's default); needs ecn = true"),
        /// With mark_p: keep the forced drops (ns-2.27's mark_p_, before
        /// use_mark_p_).
        mark_p_forced: bool = false
            => ("mark_p_forced", Kind::Bool, "", "with mark_p: keep the forced drops above max_th (2·max_th when gentle) and apply mark_p to early picks only, as ns-2.27's mark_p_ did before use_mark_p_; needs mark_p"),
        adaptive: RedAdaptiveCfg = RedAdaptiveCfg::Off,
        /// 5 ms: RED's automatic target delay.
        target_delay_ps: SimTime = 5 * PS_PER_MS
            => ("target_delay", Kind::Time { min_ps: 1 }, "time", "adaptive RED / automatic min_th target"),
        interval_ps: SimTime = PS_PER_S / 2
            => ("interval", Kind::Time { min_ps: 1 }, "time", "adaptive RED update interval"),
        alpha: Option<f64> = None
            => ("alpha", POSITIVE, "", "adaptive RED additive step cap / Feng divisor; none = 0.01 / 3"),
        beta: Option<f64> = None
            => ("beta", POSITIVE, "", "adaptive RED decrease factor / Feng multiplier; none = 0.9 / 2"),
        top: f64 = 0.5 => ("top", Kind::Prob { lo_open: true }, "", "adaptive RED upper bound on max_p"),
        bottom: Option<f64> = None
            => ("bottom", Kind::Prob { lo_open: false }, "", "adaptive RED lower bound on max_p; none = min(0.01, 80000/rate)"),
    }
}

const OFF: (&str, Fixed) = ("adaptive", Fixed::Str("off"));
const GENTLE: (&str, Fixed) = ("gentle", Fixed::Bool(true));

impl QueueKind for RedCfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    #[rustfmt::skip]
    const NAMES: &'static [Named] = &[
        Named { name: "red", fixed: &[OFF], doc: "RED (Floyd & Jacobson 1993), as ns-2's REDQueue" },
        Named { name: "gentle_red", fixed: &[GENTLE, OFF], doc: "RED with gentle on" },
        Named { name: "adaptive_red", fixed: &[GENTLE, ("adaptive", Fixed::Str("floyd"))], doc: "Adaptive RED (Floyd, Gummadi & Shenker 2001): max_p adapted towards target_delay, gentle" },
        Named { name: "feng_red", fixed: &[("adaptive", Fixed::Str("feng"))], doc: "self-configuring RED (Feng, Kandlur, Saha & Shin 1999)" },
    ];
    fn buffer(&self) -> (Option<u32>, Option<u64>) {
        (self.limit_pkts, self.limit_bytes)
    }
    fn build(&self, link: LinkFacts, rng: &mut dyn FnMut() -> Stream) -> Discipline {
        Discipline::Enqueue(Box::new(Red::new(RedParams::from_cfg(self, link), rng())))
    }
    /// `Broken::option` may be a field a name sets (`gentle`, `adaptive`).
    fn rules(&self) -> Result<(), Broken> {
        let RedCfg { min_th, max_th, gentle, adaptive, mark_p, mark_p_forced, ecn, .. } = *self;
        if mark_p_forced && mark_p.is_none() {
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
                // step marking has no use for these
                if adaptive != RedAdaptiveCfg::Off {
                    return Err(Broken {
                        option: "adaptive",
                        got: "adaptive".into(),
                        expected: format!("'red' with min_th = max_th = {lo} (step marking has no max_p to adapt)"),
                    });
                }
                if gentle {
                    return Err(Broken {
                        option: "gentle",
                        got: "true".into(),
                        expected: format!(
                            "RED without gentle with min_th = max_th = {lo} (step marking has no region above max_th to soften)"
                        ),
                    });
                }
                if let Some(m) = mark_p {
                    return Err(Broken {
                        option: "mark_p",
                        got: format!("{m}"),
                        expected: format!(
                            "left out with min_th = max_th = {lo} (step marking marks every packet picked)"
                        ),
                    });
                }
            }
        } else if let Some(hi) = max_th {
            if hi <= 0.0 {
                return Err(Broken {
                    option: "max_th",
                    got: format!("{hi}"),
                    expected: "a number > 0 (packets)".into(),
                });
            }
        }
        if let (Some(m), false) = (mark_p, ecn) {
            // a queue that does not mark never uses mark_p: refused rather than ignored
            return Err(Broken {
                option: "mark_p",
                got: format!("{m}"),
                expected: "left out unless ecn = true (mark_p sets which ECN-capable packets are marked \
                           instead of dropped)"
                    .into(),
            });
        }
        Ok(())
    }
}

/// Resolved RED parameters (the scenario layer fills in the automatic ones).
#[derive(Clone, Debug)]
pub struct RedParams {
    pub limit_pkts: Option<u32>,
    pub limit_bytes: Option<u64>,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    pub wait: bool,
    pub bytes: bool,
    pub mean_pktsize: u32,
    pub ecn: bool,
    pub mark_p: Option<f64>,
    /// ns-2.27's mark_p_: forced drops kept with mark_p.
    pub mark_p_forced: bool,
    pub adaptive: Adaptive,
    /// Link rate, bit/s (for the idle-time correction).
    pub link_bps: u64,
}

impl RedParams {
    /// RED parameters with ns-2's automatic values (red.cc initialize_params):
    /// C = link rate in mean-size packets/s; min_th = max(5, target_delay·C/2);
    /// max_th = 3·min_th; w_q = 1 − exp(−1/(10·RTT·C)) with RTT = max(0.1 s,
    /// 3·(delay + 1/C)) (ns-2 q_weight_ = −1); bottom = min(0.01, 80000/rate).
    pub fn from_cfg(cfg: &RedCfg, link: LinkFacts) -> RedParams {
        let RedCfg {
            limit_pkts,
            limit_bytes,
            min_th,
            max_th,
            max_p,
            w_q,
            gentle,
            wait,
            bytes,
            mean_pktsize,
            ecn,
            mark_p,
            mark_p_forced,
            adaptive,
            target_delay_ps,
            interval_ps,
            alpha,
            beta,
            top,
            bottom,
        } = cfg;
        use crate::units::ps_to_s;
        let link_bps = link.rate_bps;
        let c = link_bps as f64 / (8.0 * *mean_pktsize as f64);
        let min = min_th.unwrap_or_else(|| (ps_to_s(*target_delay_ps) * c / 2.0).max(5.0));
        let max = max_th.unwrap_or(3.0 * min);
        let w = w_q.unwrap_or_else(|| {
            let rtt = (3.0 * (ps_to_s(link.delay_ps) + 1.0 / c)).max(0.1);
            1.0 - (-1.0 / (10.0 * rtt * c)).exp()
        });
        let adaptive = match adaptive {
            RedAdaptiveCfg::Off => Adaptive::Off,
            RedAdaptiveCfg::Floyd => Adaptive::Floyd {
                interval: *interval_ps,
                alpha: alpha.unwrap_or(0.01),
                beta: beta.unwrap_or(0.9),
                top: *top,
                bottom: bottom.unwrap_or((80_000.0 / link_bps as f64).min(0.01)),
            },
            RedAdaptiveCfg::Feng => Adaptive::Feng { alpha: alpha.unwrap_or(3.0), beta: beta.unwrap_or(2.0) },
        };
        RedParams {
            limit_pkts: *limit_pkts,
            limit_bytes: *limit_bytes,
            min_th: min,
            max_th: max,
            max_p: *max_p,
            w_q: w,
            gentle: *gentle,
            wait: *wait,
            bytes: *bytes,
            mean_pktsize: *mean_pktsize,
            ecn: *ecn,
            mark_p: *mark_p,
            mark_p_forced: *mark_p_forced,
            adaptive,
            link_bps,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Adaptive {
    Off,
    /// Floyd, Gummadi & Shenker 2001.
    Floyd {
        interval: SimTime,
        alpha: f64,
        beta: f64,
        top: f64,
        bottom: f64,
    },
    /// Feng, Kandlur, Saha & Shin 1999.
    Feng {
        alpha: f64,
        beta: f64,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Region {
    Below,
    Between,
    Above,
}

pub struct Red {
    p: RedParams,
    rng: Stream,
    avg: f64,
    cur_max_p: f64,
    count: i64,
    count_bytes: i64,
    /// ns-2 `old`: avg was already above min_th at the previous arrival.
    old: bool,
    last_set: SimTime,
    feng_region: Region,
    /// Packets per second of mean size (ns-2 ptc).
    ptc: f64,
}

impl Red {
    pub fn new(p: RedParams, rng: Stream) -> Self {
        let ptc = p.link_bps as f64 / (8.0 * p.mean_pktsize as f64);
        Red {
            cur_max_p: p.max_p,
            p,
            rng,
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            last_set: 0,
            feng_region: Region::Between,
            ptc,
        }
    }

    /// Drop probability before the count correction (ns-2 calculate_p_new).
    pub fn p_b(&self, avg: f64) -> f64 {
        let (min, max) = (self.p.min_th, self.p.max_th);
        let p = if avg >= max {
            if self.p.gentle {
                self.cur_max_p + (1.0 - self.cur_max_p) * (avg - max) / max
            } else {
                1.0
            }
        } else {
            self.cur_max_p * (avg - min) / (max - min)
        };
        p.min(1.0)
    }

    /// Count correction and byte scaling (ns-2 modify_p).
    pub fn p_a(&self, p_b: f64, count: i64, count_bytes: i64, size: u32) -> f64 {
        let c = if self.p.bytes { (count_bytes / self.p.mean_pktsize as i64) as f64 } else { count as f64 };
        let mut p = if self.p.wait {
            if c * p_b < 1.0 {
                0.0
            } else if c * p_b < 2.0 {
                p_b / (2.0 - c * p_b)
            } else {
                1.0
            }
        } else if c * p_b < 1.0 {
            p_b / (1.0 - c * p_b)
        } else {
            1.0
        };
        if self.p.bytes && p < 1.0 {
            p = p * size as f64 / self.p.mean_pktsize as f64;
        }
        p.min(1.0)
    }

    fn queue_measure(&self, q: &QueueState) -> f64 {
        if self.p.bytes {
            q.waiting_bytes as f64 / self.p.mean_pktsize as f64
        } else {
            q.waiting_pkts as f64
        }
    }

    fn adapt(&mut self, now: SimTime) {
        match self.p.adaptive {
            Adaptive::Off => {}
            Adaptive::Floyd { interval, alpha, beta, top, bottom } => {
                if now > self.last_set + interval {
                    let part = 0.4 * (self.p.max_th - self.p.min_th);
                    if self.avg < self.p.min_th + part && self.cur_max_p > bottom {
                        self.cur_max_p *= beta;
                    } else if self.avg > self.p.max_th - part && top > self.cur_max_p {
                        self.cur_max_p += alpha.min(0.25 * self.cur_max_p);
                    }
                    self.last_set = now;
                }
            }
            Adaptive::Feng { alpha, beta } => {
                let r = if self.avg < self.p.min_th {
                    Region::Below
                } else if self.avg > self.p.max_th {
                    Region::Above
                } else {
                    Region::Between
                };
                if r != self.feng_region {
                    match r {
                        Region::Below => self.cur_max_p /= alpha,
                        Region::Above => self.cur_max_p *= beta,
                        Region::Between => {}
                    }
                    self.feng_region = r;
                }
            }
        }
    }

    fn hard_limit(&self, q: &QueueState, pkt: &Packet) -> bool {
        if q.idle {
            return false;
        }
        self.p.limit_pkts.is_some_and(|l| q.waiting_pkts >= l)
            || self.p.limit_bytes.is_some_and(|l| q.waiting_bytes + pkt.size as u64 > l)
    }
}

impl QueueDisc for Red {
    fn name(&self) -> &'static str {
        "red"
    }

    fn admit(&mut self, now: SimTime, q: QueueState, pkt: &Packet) -> Verdict {
        // Estimator, with the idle-time correction.
        let m = if q.idle && now > q.idle_since {
            (self.ptc * (now - q.idle_since) as f64 / PS_PER_S as f64) as i64
        } else {
            0
        };
        let decay = (1.0 - self.p.w_q).powi((m + 1).min(i32::MAX as i64) as i32);
        self.avg = self.avg * decay + self.p.w_q * self.queue_measure(&q);
        self.adapt(now);

        self.count += 1;
        self.count_bytes += pkt.size as i64;
        let avg = self.avg;
        let qlen = if self.p.bytes { q.waiting_bytes as i64 } else { q.waiting_pkts as i64 };
        let mut verdict = Verdict::Enqueue;
        if avg >= self.p.min_th && qlen > 1 {
            let step = self.p.min_th == self.p.max_th;
            let forced_region = if self.p.gentle { avg >= 2.0 * self.p.max_th } else { avg >= self.p.max_th };
            if (self.p.mark_p.is_none() || self.p.mark_p_forced) && forced_region && !step {
                verdict = Verdict::Drop;
            } else if !self.old {
                self.count = 1;
                self.count_bytes = pkt.size as i64;
                self.old = true;
            } else {
                let p_b = self.p_b(avg);
                let p_a = self.p_a(p_b, self.count, self.count_bytes, pkt.size);
                if self.rng.uniform() <= p_a {
                    self.count = 0;
                    self.count_bytes = 0;
                    let ect = pkt.ecn.capable();
                    verdict = if self.p.ecn && ect && (step || self.p.mark_p.is_none_or(|mp| p_b < mp)) {
                        Verdict::Mark
                    } else {
                        Verdict::Drop
                    };
                }
            }
        } else {
            self.old = false;
        }
        if self.hard_limit(&q, pkt) {
            return Verdict::Drop;
        }
        verdict
    }

    fn limit_pkts(&self) -> Option<u32> {
        self.p.limit_pkts
    }
    fn limit_bytes(&self) -> Option<u64> {
        self.p.limit_bytes
    }
    fn avg_queue(&self) -> Option<f64> {
        Some(self.avg)
    }
    fn max_p(&self) -> Option<f64> {
        Some(self.cur_max_p)
    }
}

#[cfg(test)]
mod tests;
