//! Delay histograms for per-flow percentiles (RTT samples, one-way delays of
//! data packets): log-linear buckets, 32 per octave, over whole nanoseconds,
//! the layout of HdrHistogram (Tene) with five significant bits. A value
//! below 32 ns has a bucket of its own; above, a bucket is 1/32 of its lower
//! bound wide, so the midpoint a percentile reports is within 1/64 (1.6 %)
//! of any sample in the bucket.
//!
//! Kept sparse (the buckets a flow's delays actually reach, sorted), with
//! the last bucket's count held apart: consecutive samples mostly fall in
//! the same bucket (a queue changes by about a packet per ACK), so most
//! samples touch no heap memory.

use crate::units::SimTime;

const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
const PS_PER_NS: SimTime = 1_000;

/// The bucket of a value in nanoseconds.
fn bucket(ns: u64) -> u16 {
    if ns < SUB {
        return ns as u16;
    }
    let e = 63 - ns.leading_zeros(); // ≥ SUB_BITS
    let m = (ns >> (e - SUB_BITS)) & (SUB - 1);
    ((e - SUB_BITS + 1) as u64 * SUB + m) as u16
}

/// The smallest value of bucket `b` and its width, nanoseconds.
fn bounds(b: u16) -> (u64, u64) {
    let b = b as u64;
    if b < SUB {
        return (b, 1);
    }
    let e = (b / SUB) as u32 + SUB_BITS - 1;
    let m = b % SUB;
    ((SUB + m) << (e - SUB_BITS), 1 << (e - SUB_BITS))
}

#[derive(Clone, Debug, Default)]
pub struct DelayHist {
    /// (bucket, count), sorted by bucket, without the pending count.
    buckets: Vec<(u16, u32)>,
    last: u16,
    pending: u32,
    n: u64,
}

impl DelayHist {
    /// Count one delay.
    #[inline]
    pub fn add(&mut self, d: SimTime) {
        let b = bucket(d / PS_PER_NS);
        self.n += 1;
        if self.pending > 0 && b == self.last && self.pending < u32::MAX {
            self.pending += 1;
            return;
        }
        self.flush();
        self.last = b;
        self.pending = 1;
    }

    fn flush(&mut self) {
        if self.pending == 0 {
            return;
        }
        match self.buckets.binary_search_by_key(&self.last, |e| e.0) {
            Ok(i) => self.buckets[i].1 = self.buckets[i].1.saturating_add(self.pending),
            Err(i) => self.buckets.insert(i, (self.last, self.pending)),
        }
        self.pending = 0;
    }

    pub fn len(&self) -> u64 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The `p`-quantile (0 < p ≤ 1) by nearest rank: the midpoint of the
    /// bucket holding the ⌈p·n⌉-th smallest sample; None without samples.
    pub fn quantile(&self, p: f64) -> Option<SimTime> {
        if self.n == 0 {
            return None;
        }
        let k = ((p * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut merged = self.clone();
        merged.flush();
        let mut seen = 0u64;
        for &(b, c) in &merged.buckets {
            seen += c as u64;
            if seen >= k {
                let (lo, w) = bounds(b);
                return Some((lo + w / 2) * PS_PER_NS);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_line_and_are_at_most_a_32nd_wide() {
        let mut next = 0u64;
        for b in 0..1800u16 {
            let (lo, w) = bounds(b);
            assert_eq!(lo, next, "bucket {b} starts where the previous ended");
            assert_eq!(bucket(lo), b);
            assert_eq!(bucket(lo + w - 1), b);
            if lo >= SUB {
                assert!(w * 32 <= lo, "bucket {b}: width {w} of {lo}");
            }
            next = lo + w;
        }
    }

    #[test]
    fn quantiles_by_nearest_rank_within_a_64th() {
        // 1..=1000 µs: the exact nearest-rank p-quantile is ⌈p·1000⌉ µs
        let mut h = DelayHist::default();
        for us in (1..=1000u64).rev() {
            h.add(us * 1_000_000);
        }
        for (p, exact_us) in [(0.5, 500u64), (0.95, 950), (0.99, 990), (1.0, 1000), (0.001, 1)] {
            let got = h.quantile(p).unwrap() as f64;
            let exact = (exact_us * 1_000_000) as f64;
            assert!((got - exact).abs() <= exact / 64.0, "p {p}: {got} against {exact}");
        }
        assert_eq!(h.len(), 1000);
        assert_eq!(DelayHist::default().quantile(0.5), None);
        // values below 32 ns are exact
        let mut s = DelayHist::default();
        s.add(7_000);
        assert_eq!(s.quantile(0.5), Some(7_000));
    }
}
