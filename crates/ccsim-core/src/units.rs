//! Units. Simulated time is an integer number of picoseconds (`SimTime`), so
//! serialization at 2.5 Gb/s (3200 ps per byte) is exact
//! and 2^64 ps gives 213 days of simulated time.

/// Simulated time in picoseconds.
pub type SimTime = u64;

pub const PS_PER_NS: u64 = 1_000;
pub const PS_PER_US: u64 = 1_000_000;
pub const PS_PER_MS: u64 = 1_000_000_000;
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// Time to put `bytes` on a wire of `rate_bps`, rounded up to a whole picosecond.
#[inline]
pub fn serialization_ps(bytes: u32, rate_bps: u64) -> SimTime {
    let bits = bytes as u128 * 8 * PS_PER_S as u128;
    let r = rate_bps as u128;
    bits.div_ceil(r) as u64
}

#[inline]
pub fn ps_to_s(t: SimTime) -> f64 {
    t as f64 / PS_PER_S as f64
}

#[inline]
pub fn s_to_ps(s: f64) -> SimTime {
    (s * PS_PER_S as f64).round() as u64
}

/// Largest time accepted anywhere in a scenario (2^62 ps ≈ 53 days), so sums
/// of two times never overflow.
pub const MAX_TIME_PS: SimTime = 1 << 62;

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn serialization_matches_rate_definition() {
        // 1500 B at 100 Mb/s = 12000 bits / 1e8 bit/s = 120 µs.
        assert_eq!(serialization_ps(1500, 100_000_000), 120 * PS_PER_US);
        // 1500 B at 2.5 Gb/s = 4.8 µs.
        assert_eq!(serialization_ps(1500, 2_500_000_000), 4_800 * PS_PER_NS);
        // 40 B at 3 b/s = 320/3 s, rounded up to the next picosecond.
        assert_eq!(serialization_ps(40, 3), (320 * PS_PER_S).div_ceil(3));
    }
}
