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

use super::{QueueDisc, QueueState, Verdict};
use crate::packet::Packet;
use crate::rng::Stream;
use crate::units::{SimTime, PS_PER_S};

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
    pub fn from_link(l: &crate::config::LinkCfg) -> RedParams {
        use crate::config::{QueueCfg, RedAdaptiveCfg};
        use crate::units::ps_to_s;
        let QueueCfg::Red {
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
        } = &l.queue
        else {
            unreachable!("RedParams::from_link is called for RED links only")
        };
        let link_bps = l.capacity_bps();
        let c = link_bps as f64 / (8.0 * *mean_pktsize as f64);
        let min = min_th.unwrap_or_else(|| (ps_to_s(*target_delay_ps) * c / 2.0).max(5.0));
        let max = max_th.unwrap_or(3.0 * min);
        let w = w_q.unwrap_or_else(|| {
            let rtt = (3.0 * (ps_to_s(l.delay_ps) + 1.0 / c)).max(0.1);
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
