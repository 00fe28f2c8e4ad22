//! A link direction's transmitter: how long a packet takes to put on the
//! wire once its transmission starts. Every service time the link computes
//! (enqueue-time FIFO, dequeue-time disciplines, busy-time accounting) asks
//! this type, and every reader of a link's capacity asks `capacity_bps`.
//!
//! The link's speed-up rests on one property: a FIFO's departures are known
//! when a packet is admitted, because a packet's transmission depends only
//! on its size, on when it may start and on the packets before it
//! (`transmit(start, waited, bytes)`). That holds for a fixed rate and
//! equally for a rate that follows a known schedule or a mahimahi trace
//! (whose cursor remembers what the last opportunity has left), so a
//! time-varying transmitter is another variant here, not another link.

use super::trace::TraceTx;
use crate::units::{serialization_ps, SimTime, PS_PER_S};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transmitter {
    /// A fixed rate whose picoseconds per byte are a whole number (8·10^12
    /// divisible by the rate: 1 Mb/s … 8 Tb/s in decimal steps and most
    /// usual rates): one multiplication per packet instead of a 128-bit
    /// division.
    PerByte(u64),
    /// Any other fixed rate, b/s; service times are rounded up to a whole
    /// picosecond (`units::serialization_ps`).
    Rate(u64),
    /// A mahimahi delivery trace (trace.rs).
    Trace(Box<TraceTx>),
    /// A piecewise-constant rate, outages (rate 0) included.
    Schedule(Box<ScheduleTx>),
    /// A token-bucket shaper in front of a link with no serialisation of
    /// its own (Linux `tc` HTB or TBF on a veth pair, as Mininet's `TCLink`).
    Bucket(Box<BucketTx>),
}

pub use crate::config::BucketRule;

/// A token-bucket shaper: tokens are picoseconds of transmission at `rate`
/// (as Linux keeps them in nanoseconds), each bucket capped at its depth;
/// a packet costs its size plus `overhead` bytes (the link-layer header the
/// qdisc counts: 14 bytes of Ethernet on a veth) at `rate`. The packet leaves
/// the shaper at the first instant the rule allows and reaches the far end
/// after the link's delay alone: the veth behind the shaper has no
/// serialisation time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BucketTx {
    rate_bps: u64,
    overhead: u32,
    rule: BucketRule,
    /// Depth of each bucket, ps (one for TBF, `burst` and `cburst` for HTB).
    caps: Vec<i64>,
    /// Tokens of each bucket at `t_c`, ps (may be negative under HTB).
    toks: Vec<i64>,
    /// Time of the last release (Linux's `t_c`).
    t_c: SimTime,
}

impl BucketTx {
    /// A shaper of `rate_bps` with buckets of `depths` bytes, full at time 0.
    pub fn new(rate_bps: u64, rule: BucketRule, depths: &[u64], overhead: u32) -> Self {
        let caps: Vec<i64> = depths.iter().map(|&b| Self::ps(b, rate_bps)).collect();
        BucketTx { rate_bps, overhead, rule, toks: caps.clone(), caps, t_c: 0 }
    }

    /// Picoseconds `bytes` take at `rate` (rounded up, as serialisation).
    fn ps(bytes: u64, rate: u64) -> i64 {
        (bytes as u128 * 8 * PS_PER_S as u128).div_ceil(rate as u128) as i64
    }

    /// When a packet of `bytes` that may leave at `start` leaves: the first
    /// instant ≥ `start` (and ≥ the last release) at which every bucket,
    /// refilled since the last release, passes the rule; then each bucket is
    /// capped at its depth and charged the packet's cost.
    pub fn transmit(&mut self, start: SimTime, bytes: u32) -> (SimTime, SimTime) {
        let cost = Self::ps(bytes as u64 + self.overhead as u64, self.rate_bps);
        let need = match self.rule {
            BucketRule::Htb => 0,
            BucketRule::Tbf => cost,
        };
        let wait = self.toks.iter().map(|&t| (need - t).max(0)).max().unwrap_or(0) as SimTime;
        let t = start.max(self.t_c + wait);
        let refill = (t - self.t_c).min(i64::MAX as SimTime) as i64;
        for (tok, &cap) in self.toks.iter_mut().zip(&self.caps) {
            *tok = tok.saturating_add(refill).min(cap) - cost;
        }
        self.t_c = t;
        (t, t)
    }

    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }
}

/// A rate that changes at given instants: `steps[k] = (from, b/s)`, the
/// first from 0, the last > 0 (an outage must end). A packet in
/// transmission when the rate changes finishes at the new rate; one due to
/// start inside an outage starts when it ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleTx {
    steps: std::sync::Arc<[(SimTime, u64)]>,
    /// Step in force at the last transmission's start (starts never go back).
    i: usize,
}

impl ScheduleTx {
    pub fn new(steps: std::sync::Arc<[(SimTime, u64)]>) -> Self {
        debug_assert!(steps.first().is_some_and(|s| s.0 == 0) && steps.last().is_some_and(|s| s.1 > 0));
        ScheduleTx { steps, i: 0 }
    }

    fn end_of(&self, i: usize) -> SimTime {
        self.steps.get(i + 1).map_or(SimTime::MAX, |s| s.0)
    }

    /// (start, end) of `bytes` from `start`: the work is bits × 10¹² (bit·ps
    /// per second), so a step delivers rate × its length of it, and the last
    /// piece rounds up to a whole picosecond as a fixed rate does.
    pub fn transmit(&mut self, start: SimTime, bytes: u32) -> (SimTime, SimTime) {
        if self.steps[self.i].0 > start {
            self.i = self.steps.partition_point(|s| s.0 <= start) - 1;
        }
        while self.end_of(self.i) <= start {
            self.i += 1;
        }
        let mut work = bytes as u128 * 8 * PS_PER_S as u128;
        let (mut t, mut i) = (start, self.i);
        let mut first = None;
        loop {
            let (rate, end) = (self.steps[i].1 as u128, self.end_of(i));
            if rate > 0 {
                first.get_or_insert(t);
                let room = (end - t) as u128 * rate;
                if end == SimTime::MAX || work <= room {
                    let dt = work.div_ceil(rate) as SimTime;
                    return (first.unwrap(), t + dt);
                }
                work -= room;
            }
            t = end;
            i += 1;
        }
    }

    /// The rate at time 0, b/s: the link's nominal capacity.
    pub fn initial_bps(&self) -> u64 {
        self.steps[0].1
    }

    /// Bits the schedule offers in [0, end].
    pub fn capacity_bits_until(&self, end: SimTime) -> f64 {
        let mut bits = 0.0;
        for (k, &(from, rate)) in self.steps.iter().enumerate() {
            if from >= end {
                break;
            }
            let to = self.end_of(k).min(end);
            bits += rate as f64 * (to - from) as f64 / PS_PER_S as f64;
        }
        bits
    }
}

impl Transmitter {
    /// A link direction's transmitter, built from its configuration: the
    /// one place a link's configuration becomes service times and a
    /// capacity (what RED's automatic parameters, the utilisation and the
    /// `rate_bps` column read).
    pub fn for_link(cfg: &crate::config::LinkCfg) -> Self {
        use crate::config::VaryingRate;
        match &cfg.varying {
            None if cfg.shaper.is_some() => {
                let s = cfg.shaper.as_ref().unwrap();
                let depths: Vec<u64> = std::iter::once(s.burst_bytes).chain(s.cburst_bytes).collect();
                Transmitter::Bucket(Box::new(BucketTx::new(cfg.rate_bps, s.rule, &depths, s.overhead_bytes)))
            }
            None => Transmitter::fixed(cfg.rate_bps),
            Some(VaryingRate::Trace { loaded, offset_ps, .. }) => {
                let t = loaded.clone().expect("Scenario::load_traces ran before the links are built");
                Transmitter::Trace(Box::new(TraceTx::new(t, *offset_ps)))
            }
            Some(VaryingRate::Schedule { steps }) => {
                Transmitter::Schedule(Box::new(ScheduleTx::new(steps.clone().into())))
            }
        }
    }

    /// A transmitter of constant rate `rate_bps` (> 0).
    pub fn fixed(rate_bps: u64) -> Self {
        let bits = 8 * PS_PER_S;
        if bits.is_multiple_of(rate_bps) {
            Transmitter::PerByte(bits / rate_bps)
        } else {
            Transmitter::Rate(rate_bps)
        }
    }

    /// The transmission of `bytes` that may begin at `start`: when it
    /// begins and when its last bit is out. `waited`: the packet was queued
    /// behind the one before (a trace's leftover bytes go only to such a
    /// packet). At a fixed rate it begins at `start`.
    #[inline]
    pub fn transmit(&mut self, start: SimTime, waited: bool, bytes: u32) -> (SimTime, SimTime) {
        match self {
            Transmitter::PerByte(k) => (start, start + bytes as u64 * *k),
            Transmitter::Rate(r) => (start, start + serialization_ps(bytes, *r)),
            Transmitter::Trace(t) => t.transmit(start, waited, bytes),
            Transmitter::Schedule(s) => s.transmit(start, bytes),
            Transmitter::Bucket(b) => b.transmit(start, bytes),
        }
    }

    /// The link's capacity, b/s: what a queue discipline sizes itself by
    /// and the `rate_bps` column reports — a trace's mean, a schedule's
    /// rate at time 0.
    pub fn capacity_bps(&self) -> u64 {
        match self {
            Transmitter::PerByte(k) => 8 * PS_PER_S / k,
            Transmitter::Rate(r) => *r,
            Transmitter::Trace(t) => t.mean_bps(),
            Transmitter::Schedule(s) => s.initial_bps(),
            Transmitter::Bucket(b) => b.rate_bps(),
        }
    }

    /// Bits the transmitter can send in [0, end] when its rate varies or
    /// its packets take no time on the wire (a shaper: rate × end);
    /// utilisation is measured against these. None at a fixed rate, where
    /// utilisation is the busy time's share.
    pub fn varying_capacity_bits(&self, end: SimTime) -> Option<f64> {
        match self {
            Transmitter::PerByte(_) | Transmitter::Rate(_) => None,
            Transmitter::Bucket(b) => Some(b.rate_bps() as f64 * end as f64 / PS_PER_S as f64),
            Transmitter::Trace(t) => Some(t.capacity_bits_until(end)),
            Transmitter::Schedule(s) => Some(s.capacity_bits_until(end)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_rates_serialize_as_size_over_rate_and_report_their_rate() {
        // 1500 B at 12 Mb/s take exactly 1 ms; at 12,000,001 b/s the exact
        // 999,999.9167 ns is rounded up to a whole picosecond.
        for (rate, ser) in [(12_000_000u64, 1_000_000_000u64), (12_000_001, 999_999_917)] {
            let mut t = Transmitter::fixed(rate);
            assert_eq!(t.transmit(0, false, 1500), (0, ser));
            assert_eq!(t.transmit(123_456, true, 1500), (123_456, 123_456 + ser), "independent of the start");
            assert_eq!(t.capacity_bps(), rate);
        }
        assert!(matches!(Transmitter::fixed(10_000_000), Transmitter::PerByte(800_000)));
        assert!(matches!(Transmitter::fixed(3), Transmitter::Rate(3)));
    }

    fn schedule(steps: &[(SimTime, u64)]) -> ScheduleTx {
        ScheduleTx::new(steps.to_vec().into())
    }

    #[test]
    fn a_schedule_changes_rate_mid_packet_and_holds_packets_through_an_outage() {
        const MS: SimTime = crate::units::PS_PER_MS;
        // 12 Mb/s until 10 ms, then 6 Mb/s; off from 20 to 30 ms; 12 Mb/s.
        let mut s = schedule(&[(0, 12_000_000), (10 * MS, 6_000_000), (20 * MS, 0), (30 * MS, 12_000_000)]);
        // A 1500-byte packet from 9.5 ms: half its 12,000 bits by 10 ms at
        // 12 Mb/s, the other 6,000 at 6 Mb/s in 1 ms: done at 11 ms.
        assert_eq!(s.transmit(9 * MS + MS / 2, 1500), (9 * MS + MS / 2, 11 * MS));
        // From 19 ms: 6,000 bits by 20 ms, then nothing until 30 ms, then
        // 6,000 at 12 Mb/s in 0.5 ms.
        assert_eq!(s.transmit(19 * MS, 1500), (19 * MS, 30 * MS + MS / 2));
        // Due to start inside the outage: it starts when the outage ends.
        let mut s = schedule(&[(0, 12_000_000), (20 * MS, 0), (30 * MS, 12_000_000)]);
        assert_eq!(s.transmit(25 * MS, 1500), (30 * MS, 31 * MS));
        // One step is a fixed rate, rounding included.
        let mut one = schedule(&[(0, 12_000_001)]);
        assert_eq!(one.transmit(5, 1500), (5, 5 + 999_999_917));
        // Capacity in [0, 35 ms]: 12 Mb/s × 20 ms + 0 + 12 Mb/s × 5 ms.
        let s = schedule(&[(0, 12_000_000), (20 * MS, 0), (30 * MS, 12_000_000)]);
        assert_eq!(s.capacity_bits_until(35 * MS), 300_000.0);
    }

    /// Departures of `n` packets of `bytes` all offered at `at`.
    fn departures(b: &mut BucketTx, at: SimTime, n: usize, bytes: u32) -> Vec<SimTime> {
        (0..n).map(|_| b.transmit(at, bytes).0).collect()
    }

    /// The most wire bytes (`cost` each) that leave in any window of `w` ps.
    fn most_in_window(deps: &[SimTime], w: SimTime, cost: u64) -> u64 {
        let mut j = 0;
        let mut best = 0;
        for i in 0..deps.len() {
            while deps[i] - deps[j] > w {
                j += 1;
            }
            best = best.max((i - j + 1) as u64 * cost);
        }
        best
    }

    #[test]
    fn htb_sends_while_its_buckets_are_not_negative_and_keeps_its_rate() {
        // Mininet's TCLink at 10 Mb/s: HTB rate 10 Mbit, burst 15k (15,360
        // bytes), cburst 1600 bytes (tc's default), 14 bytes of Ethernet
        // counted per 1500-byte packet: 1514 bytes = 1.2112 ms of tokens.
        const COST: SimTime = 1_211_200_000;
        let mut b = BucketTx::new(10_000_000, BucketRule::Htb, &[15_360, 1_600], 14);
        let d = departures(&mut b, 0, 1000, 1500);
        // The ceil bucket (1600 B = 1.28 ms) is the shallower: the first
        // packet leaves it 0.0688 ms, the second may still go (≥ 0) and
        // takes it to −1.1424 ms; from then on one packet per 1.2112 ms.
        assert_eq!(&d[..3], &[0, 0, 1_142_400_000]);
        assert!(d.windows(2).skip(2).all(|w| w[1] - w[0] == COST));
        // Long run: exactly the configured rate in wire bytes.
        let secs = (d[999] - d[2]) as f64 / PS_PER_S as f64;
        assert!((997.0 * 1514.0 * 8.0 / secs - 10e6).abs() < 1e-3);
        // Short windows: never more than the arrival curve cburst + one
        // packet + rate × w, and that bound is reached at the start.
        for w in [0, COST / 2, COST, 10 * COST, 500 * COST] {
            let bound = 1600 + 1514 + (w as u128 * 10_000_000 / 8 / PS_PER_S as u128) as u64;
            assert!(most_in_window(&d, w, 1514) <= bound, "window {w}");
        }
        assert_eq!(most_in_window(&d, 0, 1514), 2 * 1514);
        // After an idle second the buckets are full again, not fuller.
        let later = d[999] + PS_PER_S;
        assert_eq!(&departures(&mut b, later, 3, 1500)[..], &[later, later, later + 1_142_400_000]);
    }

    #[test]
    fn tbf_sends_a_packet_only_when_it_holds_its_whole_cost() {
        // Mininet's use_tbf at 10 Mb/s: burst 15000 bytes; 1514-byte cost.
        const COST: SimTime = 1_211_200_000;
        let mut b = BucketTx::new(10_000_000, BucketRule::Tbf, &[15_000], 14);
        let d = departures(&mut b, 0, 500, 1500);
        // 15000 // 1514 = 9 leave at once, leaving 1374 bytes of tokens;
        // the 10th waits for 140 more bytes (0.112 ms), then one per cost.
        assert!(d[..9].iter().all(|&t| t == 0));
        assert_eq!(d[9], 112_000_000);
        assert!(d.windows(2).skip(9).all(|w| w[1] - w[0] == COST));
        for w in [0, COST, 7 * COST, 300 * COST] {
            let bound = 15_000 + (w as u128 * 10_000_000 / 8 / PS_PER_S as u128) as u64;
            assert!(most_in_window(&d, w, 1514) <= bound, "window {w}");
        }
        // A packet offered later than the bucket allows leaves when offered.
        let t = d[499] + 10 * COST;
        assert_eq!(b.transmit(t, 1500), (t, t));
    }
}
