//! CUBIC, with HyStart or HyStart++ slow start.
//!
//! Two window rules (`variant`):
//!
//! `linux` — Linux net/ipv4/tcp_cubic.c (v2.3, 6.x), integer arithmetic:
//! time in 1/1024 s, K = ∛(2^40/(10·bic_scale)·(Wmax − cwnd)), the target
//! evaluated one minimum RTT ahead, cnt = cwnd/(target − cwnd) (100·cwnd
//! when at or above target, at most 20 before the first loss), the
//! Reno-friendly window growing by 1 per cwnd·beta_scale/8 acked
//! (beta_scale = 8(1024 + β)/3/(1024 − β) = 15), cnt ≥ 2, cnt refreshed at
//! most once per jiffy and, for an unchanged cwnd, every HZ/32 (HZ = 1000).
//! Loss: Wmax = cwnd (·(1 + β)/2 with fast convergence when below the last
//! Wmax), ssthresh = max(cwnd·β, 2) from cwnd, not flight size. A timeout
//! resets everything. Delay samples are ignored for 1 s after an epoch
//! starts. β = 717/1024, C = 41·10/1024 = 0.4004 from `beta` = 0.7, `c` = 0.4.
//!
//! `rfc9438` — RFC 9438 in floating point: W_cubic(t) = C(t − K)³ + Wmax with
//! K = ∛((Wmax − cwnd_epoch)/C); per ACK cwnd += (target − cwnd)/cwnd with
//! target = W_cubic(t + RTT) clamped to [cwnd, 1.5·cwnd]; the Reno-friendly
//! W_est starts at cwnd_epoch and grows by α·acked/cwnd, α = 3(1 − β)/(1 + β)
//! until W_est ≥ cwnd_prior, then 1; if W_cubic(t) < W_est, cwnd follows
//! W_est. Loss: ssthresh = max(FlightSize·β, 2), Wmax as above. After a
//! timeout the next epoch starts with Wmax = cwnd, K = 0 (§4.8).
//!
//! Slow start (`slow_start`):
//! `hystart` — Linux's HyStart (Ha & Rhee 2011) from cwnd ≥ 16: ACK-train
//!   exit when ACKs ≤ 2 ms apart span more than delay_min + ack_delay (half
//!   that when not paced; ack_delay = min(1 ms, 4·64 KB / pacing rate) with
//!   Linux's internal pacing rate), delay exit when a round's minimum over
//!   ≥ 8 samples exceeds delay_min + clamp(delay_min/8, 4 ms, 16 ms). Exit sets
//!   ssthresh = cwnd.
//! `hystart++` — RFC 9406: after 8 samples in a round, if the round's
//!   minimum RTT ≥ last round's + clamp(last/8, 4 ms, 16 ms), enter
//!   Conservative Slow Start (growth ÷ 4); back to slow start if a round's
//!   minimum drops below the CSS baseline; after 5 CSS rounds ssthresh =
//!   cwnd. Only the first slow start uses it.
//! `standard` — RFC 5681 slow start.
//!
//! Deviations: Linux computes the cube root with a table and one Newton
//! step (≈0.2 % error); we use an exact root rounded down. Linux shifts the
//! epoch forward over idle periods (CA_EVENT_TX_START); the sender does not
//! raise that event yet, so an idle flow's curve keeps running. HyStart++'s
//! per-ACK cap L (8 segments unpaced) is the sender's `abc_limit`.

use super::params::{choice, flag, int, num, AlgoSpec, Lit, Params, Preset};
use super::{cong_avoid_ai, slow_start, AckSample, CaState, CcState, CongestionOps};
use crate::units::{SimTime, PS_PER_MS, PS_PER_S, PS_PER_US};

pub const SPEC: AlgoSpec = AlgoSpec {
    name: "cubic",
    source: "RFC 9438 / RFC 8312; Linux net/ipv4/tcp_cubic.c v2.3 (6.x); HyStart (Ha & Rhee 2011); HyStart++ RFC 9406",
    params: &[
        choice("variant", &["linux", "rfc9438"], "linux", "window rule: Linux integer code or RFC 9438 in floating point"),
        num("beta", 0.7, 0.1, 0.95, "multiplicative decrease β (Linux 717/1024)"),
        num("c", 0.4, 0.01, 10.0, "cubic constant C (Linux bic_scale 41 → 0.4004)"),
        flag("fast_convergence", true, "release bandwidth faster when Wmax shrinks"),
        flag("tcp_friendliness", true, "Reno-friendly region"),
        choice("slow_start", &["hystart", "hystart++", "standard"], "hystart", "slow-start exit rule"),
        choice("hystart_detect", &["both", "ack_train", "delay"], "both", "HyStart detectors (Linux hystart_detect 3/1/2)"),
        int("hystart_low_window", 16.0, 2.0, 1e9, "HyStart runs only from this cwnd"),
        num("hystart_ack_delta_ms", 2.0, 0.0, 1e4, "ACKs this close form a train"),
    ],
    presets: &[
        Preset { name: "linux", doc: "Linux tcp_cubic.c with HyStart", values: &[] },
        Preset { name: "rfc9438", doc: "RFC 9438 with HyStart++ (RFC 9406)", values: &[("variant", Lit::S("rfc9438")), ("slow_start", Lit::S("hystart++"))] },
        Preset { name: "no_hystart", doc: "Linux CUBIC with standard slow start", values: &[("slow_start", Lit::S("standard"))] },
        Preset { name: "hystart++", doc: "Linux CUBIC window with RFC 9406 slow start", values: &[("slow_start", Lit::S("hystart++"))] },
    ],
};

const BETA_SCALE: u64 = 1024;
const BICTCP_HZ: u32 = 10;
const JIFFY: SimTime = PS_PER_MS; // HZ = 1000
const HZ32: u64 = 31; // HZ/32 in jiffies
const HYSTART_MIN_SAMPLES: u32 = 8;
const DELAY_MIN_THRESH: SimTime = 4 * PS_PER_MS;
const DELAY_MAX_THRESH: SimTime = 16 * PS_PER_MS;

#[derive(Clone, Copy, PartialEq, Debug)]
enum SlowStart {
    HyStart,
    HyStartPP,
    Standard,
}

/// RFC 9406 state.
#[derive(Clone, Debug, Default)]
struct HsPlusPlus {
    window_end: u64,
    last_round_min: Option<SimTime>,
    cur_round_min: Option<SimTime>,
    samples: u32,
    css: bool,
    css_baseline: SimTime,
    css_rounds: u32,
    css_acc: u32,
    done: bool,
}

pub struct Cubic {
    rfc: bool,
    beta: f64,
    c: f64,
    beta_i: u64,
    cube_rtt_scale: u64,
    cube_factor: u64,
    beta_scale: u32,
    fast_convergence: bool,
    friendliness: bool,
    ss: SlowStart,
    detect_train: bool,
    detect_delay: bool,
    hs_low_window: u32,
    ack_delta: SimTime,
    // Linux bictcp
    cnt: u32,
    last_max_cwnd: u32,
    last_cwnd: u32,
    last_time: u64,
    origin: u32,
    k: u64,
    /// Smallest RTT sample, µs (0 = none).
    delay_min: u64,
    epoch_start: Option<u64>,
    ack_cnt: u32,
    tcp_cwnd: u32,
    // HyStart
    found: bool,
    round_start: SimTime,
    last_ack: SimTime,
    end_seq: u64,
    curr_rtt: u64,
    sample_cnt: u32,
    // RFC 9438
    w_max: f64,
    k_s: f64,
    t_epoch: Option<SimTime>,
    w_est: f64,
    cwnd_prior: f64,
    acc: f64,
    after_timeout: bool,
    hpp: HsPlusPlus,
}

/// Linux jiffies at `now`.
#[inline]
fn jiffies(now: SimTime) -> u64 {
    now / JIFFY
}

impl Cubic {
    pub fn new(p: &Params) -> Self {
        let beta = p.num("beta");
        let c = p.num("c");
        let beta_i = (beta * BETA_SCALE as f64).round() as u64;
        let bic_scale = ((c * 1024.0 / 10.0).round() as u64).max(1);
        let cube_rtt_scale = bic_scale * 10;
        let detect = p.text("hystart_detect");
        Cubic {
            rfc: p.text("variant") == "rfc9438",
            beta,
            c,
            beta_i,
            cube_rtt_scale,
            cube_factor: (1u64 << (10 + 3 * BICTCP_HZ)) / cube_rtt_scale,
            beta_scale: (8 * (BETA_SCALE + beta_i) / 3 / (BETA_SCALE - beta_i)) as u32,
            fast_convergence: p.flag("fast_convergence"),
            friendliness: p.flag("tcp_friendliness"),
            ss: match p.text("slow_start") {
                "hystart" => SlowStart::HyStart,
                "hystart++" => SlowStart::HyStartPP,
                _ => SlowStart::Standard,
            },
            detect_train: detect != "delay",
            detect_delay: detect != "ack_train",
            hs_low_window: p.num("hystart_low_window") as u32,
            ack_delta: (p.num("hystart_ack_delta_ms") * PS_PER_MS as f64).round() as SimTime,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            origin: 0,
            k: 0,
            delay_min: 0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            found: false,
            round_start: 0,
            last_ack: 0,
            end_seq: 0,
            curr_rtt: u64::MAX,
            sample_cnt: 0,
            w_max: 0.0,
            k_s: 0.0,
            t_epoch: None,
            w_est: 0.0,
            cwnd_prior: 0.0,
            acc: 0.0,
            after_timeout: false,
            hpp: HsPlusPlus::default(),
        }
    }

    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.origin = 0;
        self.k = 0;
        self.delay_min = 0;
        self.epoch_start = None;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.found = false;
        self.t_epoch = None;
        self.acc = 0.0;
    }

    fn hystart_reset(&mut self, tp: &CcState) {
        self.round_start = tp.now;
        self.last_ack = tp.now;
        self.end_seq = tp.snd_nxt;
        self.curr_rtt = u64::MAX;
        self.sample_cnt = 0;
    }

    /// Linux's K for a window gap, in 1/1024 s.
    pub fn linux_k(&self, gap: u32) -> u64 {
        ((self.cube_factor as f64) * gap as f64).cbrt().floor() as u64
    }

    /// RFC 9438 W_cubic(t) for the current epoch (t in seconds).
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.c * (t - self.k_s).powi(3) + self.w_max
    }

    /// RFC 8312 Eq. 4 Reno-friendly window t seconds into an epoch after a
    /// β cut from `w_max` with round-trip time `rtt`.
    pub fn w_est_eq4(w_max: f64, beta: f64, t: f64, rtt: f64) -> f64 {
        w_max * beta + 3.0 * (1.0 - beta) / (1.0 + beta) * t / rtt
    }

    /// Linux bictcp_update.
    fn linux_update(&mut self, cwnd: u32, acked: u32, now: SimTime) {
        let j = jiffies(now);
        self.ack_cnt = self.ack_cnt.wrapping_add(acked);
        if self.last_cwnd == cwnd && j.wrapping_sub(self.last_time) <= HZ32 {
            return;
        }
        let skip_curve = self.epoch_start.is_some() && j == self.last_time;
        if !skip_curve {
            self.last_cwnd = cwnd;
            self.last_time = j;
            if self.epoch_start.is_none() {
                self.epoch_start = Some(j);
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.k = 0;
                    self.origin = cwnd;
                } else {
                    self.k = self.linux_k(self.last_max_cwnd - cwnd);
                    self.origin = self.last_max_cwnd;
                }
            }
            // t in 1/1024 s, one minimum RTT ahead.
            let mut t = j - self.epoch_start.unwrap();
            t += self.delay_min.div_ceil(1000); // usecs_to_jiffies rounds up
            let t = (t << BICTCP_HZ) / 1000;
            let offs = t.abs_diff(self.k) as u128;
            let delta = ((self.cube_rtt_scale as u128 * offs * offs * offs) >> (10 + 3 * BICTCP_HZ)).min(u32::MAX as u128) as u32;
            let target = if t < self.k { self.origin.saturating_sub(delta) } else { self.origin.saturating_add(delta) };
            self.cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100u32.saturating_mul(cwnd) };
            if self.last_max_cwnd == 0 && self.cnt > 20 {
                self.cnt = 20;
            }
        }
        if self.friendliness {
            let delta = ((cwnd as u64 * self.beta_scale as u64) >> 3).max(1) as u32;
            while self.ack_cnt > delta {
                self.ack_cnt -= delta;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                self.cnt = self.cnt.min(max_cnt);
            }
        }
        self.cnt = self.cnt.max(2);
    }

    /// RFC 9438 congestion avoidance for one ACK.
    fn rfc_avoid(&mut self, tp: &mut CcState, acked: u32) {
        let cwnd = tp.cwnd as f64;
        if self.t_epoch.is_none() {
            self.t_epoch = Some(tp.now);
            if self.after_timeout || self.w_max < cwnd {
                self.w_max = cwnd;
                self.after_timeout = false;
            }
            self.k_s = ((self.w_max - cwnd) / self.c).max(0.0).cbrt();
            self.w_est = cwnd;
            self.acc = 0.0;
            if self.cwnd_prior == 0.0 {
                self.cwnd_prior = cwnd;
            }
        }
        let rtt = tp.srtt.unwrap_or(0) as f64 / PS_PER_S as f64;
        let t = (tp.now - self.t_epoch.unwrap()) as f64 / PS_PER_S as f64;
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        if self.friendliness {
            let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { 3.0 * (1.0 - self.beta) / (1.0 + self.beta) };
            self.w_est += alpha * acked as f64 / cwnd;
        }
        if self.friendliness && self.w_cubic(t) < self.w_est {
            let w = self.w_est.floor().min(tp.cwnd_clamp as f64) as u32;
            if w > tp.cwnd {
                tp.cwnd = w;
                self.acc = 0.0;
            }
            return;
        }
        self.acc += (target - cwnd) / cwnd * acked as f64;
        if self.acc >= 1.0 {
            let add = self.acc.floor();
            self.acc -= add;
            tp.cwnd = (tp.cwnd as f64 + add).min(tp.cwnd_clamp as f64) as u32;
        }
    }

    /// Linux hystart_ack_delay: min(1 ms, 4·GSO max size / pacing rate),
    /// with the pacing rate Linux keeps internally (2·cwnd·mss/srtt in early
    /// slow start) when the algorithm does not set one.
    fn ack_delay(tp: &CcState) -> SimTime {
        let rate = match (tp.pacing_rate, tp.srtt) {
            (Some(r), _) => r,
            (None, Some(s)) if s > 0 => 2.0 * tp.cwnd as f64 * tp.mss as f64 * PS_PER_S as f64 / s as f64,
            _ => return 0,
        };
        let d = 4.0 * 65536.0 / rate * PS_PER_S as f64;
        (d as SimTime).min(PS_PER_MS)
    }

    fn hystart_update(&mut self, tp: &mut CcState, delay_us: u64) {
        if tp.snd_una > self.end_seq {
            self.hystart_reset(tp);
        }
        if self.detect_train && tp.now - self.last_ack <= self.ack_delta {
            self.last_ack = tp.now;
            let mut threshold = self.delay_min * PS_PER_US + Self::ack_delay(tp);
            if !tp.paced {
                threshold /= 2;
            }
            if tp.now - self.round_start > threshold {
                self.found = true;
                tp.ssthresh = tp.cwnd;
            }
        }
        if self.detect_delay {
            self.curr_rtt = self.curr_rtt.min(delay_us);
            if self.sample_cnt < HYSTART_MIN_SAMPLES {
                self.sample_cnt += 1;
            } else {
                let th = ((self.delay_min >> 3) * PS_PER_US).clamp(DELAY_MIN_THRESH, DELAY_MAX_THRESH) / PS_PER_US;
                if self.curr_rtt > self.delay_min + th {
                    self.found = true;
                    tp.ssthresh = tp.cwnd;
                }
            }
        }
    }

    /// RFC 9406 per-ACK bookkeeping while in slow start.
    fn hspp_update(&mut self, tp: &mut CcState, rtt: Option<SimTime>) {
        let h = &mut self.hpp;
        if h.done || !tp.in_slow_start() {
            return;
        }
        if tp.snd_una > h.window_end {
            // A round ended.
            h.last_round_min = h.cur_round_min;
            h.cur_round_min = None;
            h.samples = 0;
            h.window_end = tp.snd_nxt;
            if h.css {
                h.css_rounds += 1;
                if h.css_rounds >= 5 {
                    tp.ssthresh = tp.cwnd;
                    h.done = true;
                    return;
                }
            }
        }
        let Some(r) = rtt else { return };
        h.cur_round_min = Some(h.cur_round_min.map_or(r, |m| m.min(r)));
        h.samples += 1;
        if h.samples < HYSTART_MIN_SAMPLES {
            return;
        }
        let cur = h.cur_round_min.unwrap();
        if !h.css {
            if let Some(last) = h.last_round_min {
                let th = (last / 8).clamp(DELAY_MIN_THRESH, DELAY_MAX_THRESH);
                if cur >= last + th {
                    h.css = true;
                    h.css_baseline = cur;
                    h.css_rounds = 0;
                }
            }
        } else if cur < h.css_baseline {
            h.css = false;
        }
    }
}

impl CongestionOps for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn init(&mut self, tp: &mut CcState) {
        self.reset();
        self.hystart_reset(tp);
        self.hpp.window_end = tp.snd_nxt;
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        self.hpp.done = true; // HyStart++ is for the initial slow start only
        if self.rfc {
            let cwnd = tp.cwnd as f64;
            self.t_epoch = None;
            self.w_max = if self.fast_convergence && cwnd < self.w_max { cwnd * (1.0 + self.beta) / 2.0 } else { cwnd };
            self.cwnd_prior = cwnd;
            return ((tp.in_flight as f64 * self.beta) as u32).max(2);
        }
        let w = tp.cwnd;
        self.epoch_start = None;
        self.last_max_cwnd = if w < self.last_max_cwnd && self.fast_convergence {
            ((w as u64 * (BETA_SCALE + self.beta_i)) / (2 * BETA_SCALE)) as u32
        } else {
            w
        };
        ((w as u64 * self.beta_i / BETA_SCALE) as u32).max(2)
    }

    fn set_state(&mut self, tp: &CcState, new: CaState) {
        if new == CaState::Loss {
            if self.rfc {
                self.t_epoch = None;
                self.after_timeout = true;
                self.found = false;
            } else {
                self.reset();
            }
            self.hystart_reset(tp);
        }
    }

    fn pkts_acked(&mut self, tp: &mut CcState, s: &AckSample) {
        if self.ss == SlowStart::HyStartPP {
            self.hspp_update(tp, s.rtt);
        }
        let Some(rtt) = s.rtt else { return };
        if !self.rfc {
            if let Some(e) = self.epoch_start {
                if jiffies(tp.now) - e < 1000 {
                    return; // discard delay samples for 1 s after recovery
                }
            }
        }
        let delay = (rtt / PS_PER_US).max(1);
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
        if self.ss == SlowStart::HyStart && !self.found && tp.in_slow_start() && tp.cwnd >= self.hs_low_window {
            self.hystart_update(tp, delay);
        }
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        let mut acked = acked;
        if tp.in_slow_start() {
            if self.ss == SlowStart::HyStartPP && !self.hpp.done {
                if self.hpp.css {
                    self.hpp.css_acc += acked;
                    let add = self.hpp.css_acc / 4;
                    self.hpp.css_acc %= 4;
                    tp.cwnd = tp.cwnd.saturating_add(add).min(tp.ssthresh).min(tp.cwnd_clamp);
                    return;
                }
            }
            acked = slow_start(tp, acked);
            if acked == 0 {
                return;
            }
        }
        if self.rfc {
            self.rfc_avoid(tp, acked);
        } else {
            self.linux_update(tp.cwnd, acked, tp.now);
            cong_avoid_ai(tp, self.cnt, acked);
        }
    }
}
