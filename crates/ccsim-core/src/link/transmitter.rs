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
        }
    }

    /// Bits the transmitter can send in [0, end] when its rate varies
    /// (utilisation is measured against these); None at a fixed rate, where
    /// utilisation is the busy time's share.
    pub fn varying_capacity_bits(&self, end: SimTime) -> Option<f64> {
        match self {
            Transmitter::PerByte(_) | Transmitter::Rate(_) => None,
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
}
