//! A link direction's transmitter: how long a packet takes to put on the
//! wire once its transmission starts. Every service time the link computes
//! (enqueue-time FIFO, dequeue-time disciplines, busy-time accounting) asks
//! this type, and every reader of a link's capacity asks `capacity_bps`.
//!
//! The link's speed-up rests on one property: a FIFO's departures are known
//! when a packet is admitted, because a packet's service time depends only
//! on its size and on when it starts (`service_ps(start, bytes)`). That holds
//! for a fixed rate and equally for a rate that follows a known schedule or
//! trace, so a time-varying transmitter is another variant here, not another
//! link.

use crate::units::{serialization_ps, SimTime, PS_PER_S};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transmitter {
    /// A fixed rate whose picoseconds per byte are a whole number (8·10^12
    /// divisible by the rate: 1 Mb/s … 8 Tb/s in decimal steps and most
    /// usual rates): one multiplication per packet instead of a 128-bit
    /// division.
    PerByte(u64),
    /// Any other fixed rate, b/s; service times are rounded up to a whole
    /// picosecond (`units::serialization_ps`).
    Rate(u64),
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

    /// Time to transmit `bytes` starting at `start`.
    #[inline]
    pub fn service_ps(&self, _start: SimTime, bytes: u32) -> SimTime {
        match *self {
            Transmitter::PerByte(k) => bytes as u64 * k,
            Transmitter::Rate(r) => serialization_ps(bytes, r),
        }
    }

    /// The link's capacity, b/s: what a queue discipline sizes itself by,
    /// utilisation is measured against and the `rate_bps` column reports.
    pub fn capacity_bps(&self) -> u64 {
        match *self {
            Transmitter::PerByte(k) => 8 * PS_PER_S / k,
            Transmitter::Rate(r) => r,
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
            let t = Transmitter::fixed(rate);
            assert_eq!(t.service_ps(0, 1500), ser);
            assert_eq!(t.service_ps(123_456, 1500), ser, "a fixed rate does not depend on the start");
            assert_eq!(t.capacity_bps(), rate);
        }
        assert!(matches!(Transmitter::fixed(10_000_000), Transmitter::PerByte(800_000)));
        assert!(matches!(Transmitter::fixed(3), Transmitter::Rate(3)));
    }
}
