//! Links that follow a mahimahi packet-delivery trace (Netravali et al.,
//! "Mahimahi: accurate record-and-replay for HTTP", USENIX ATC 2015;
//! `mm-link`, src/frontend/link_queue.cc), and piecewise-constant rate
//! schedules.
//!
//! mahimahi's rules, as its `LinkQueue::rationalize` applies them and as
//! `TraceTx` follows them:
//! - a trace is a text file of whole milliseconds, one per line, in
//!   nondecreasing order, each a delivery opportunity of 1504 bytes
//!   (`PACKET_SIZE`, the largest TUN payload); several lines may share a
//!   millisecond; the last must be > 0, and the trace repeats with that
//!   period (an opportunity at 0 of the next pass falls at the same instant
//!   as the last one of this pass);
//! - a packet may use only opportunities after it arrived (mahimahi burns
//!   the opportunities due up to now before it enqueues an arrival);
//! - an opportunity's bytes go to the packets waiting in order: a packet
//!   larger than what is left takes several opportunities, and what an
//!   opportunity has left after a packet completes goes to the next packet
//!   if that one was already waiting; with nothing waiting the rest is lost
//!   (no credit is banked);
//! - a packet leaves at the opportunity that delivers its last byte; it
//!   leaves the queue (for the queue's limits and discipline) when it takes
//!   its first byte.
//!
//! Deviation: opportunities are instants in picoseconds (milliseconds ×
//! 10⁹), so a packet arriving between two milliseconds is not rounded to
//! mahimahi's millisecond clock.

use crate::units::SimTime;
use std::sync::Arc;

pub use crate::tracefile::{Trace, OPPORTUNITY_BYTES};

/// A link direction's trace, with its cursor: the next opportunity not yet
/// used and what the last used one has left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceTx {
    trace: Arc<Trace>,
    /// Time of the trace's offset 0 in the current pass (may be before 0).
    base: i128,
    /// The same for the pass under way at time 0.
    base0: i128,
    idx: usize,
    /// The last opportunity used, and the bytes it has left.
    last: SimTime,
    left: u32,
}

impl TraceTx {
    /// Replay `trace` so that simulated time 0 is `offset` into it.
    pub fn new(trace: Arc<Trace>, offset: SimTime) -> Self {
        let period = trace.period;
        let passes = offset / period;
        let into = offset - passes * period;
        let idx = trace.opps.partition_point(|&o| o < into);
        let base = -(into as i128);
        let mut t = TraceTx { trace, base, base0: base, idx, last: 0, left: 0 };
        if t.idx == t.trace.opps.len() {
            t.idx = 0;
            t.base += period as i128;
        }
        t
    }

    fn next_time(&self) -> i128 {
        self.base + self.trace.opps[self.idx] as i128
    }

    fn advance(&mut self) {
        self.idx += 1;
        if self.idx == self.trace.opps.len() {
            self.idx = 0;
            self.base += self.trace.period as i128;
        }
    }

    /// Move the cursor to the first opportunity after `t` (strictly).
    fn skip_through(&mut self, t: SimTime) {
        let t = t as i128;
        if self.next_time() > t {
            return;
        }
        let period = self.trace.period as i128;
        // whole passes first, then a binary search within one
        let behind = t - self.base;
        if behind >= period {
            self.base += (behind / period) * period;
        }
        let into = t - self.base;
        self.idx = self.trace.opps.partition_point(|&o| (o as i128) <= into);
        if self.idx == self.trace.opps.len() {
            self.idx = 0;
            self.base += period;
        }
    }

    /// The transmission of `bytes` that may begin at `start`: (first
    /// opportunity used, the one that delivers the last byte). `waited`: the
    /// packet was queued behind the one before, so it may take what that
    /// one's last opportunity had left.
    pub fn transmit(&mut self, start: SimTime, waited: bool, bytes: u32) -> (SimTime, SimTime) {
        let mut need = bytes;
        let mut first = None;
        if waited && self.left > 0 && self.last >= start {
            first = Some(self.last);
            if need <= self.left {
                self.left -= need;
                return (self.last, self.last);
            }
            need -= self.left;
        }
        self.left = 0;
        if first.is_none() {
            self.skip_through(start);
        }
        loop {
            let t = self.next_time() as SimTime;
            self.advance();
            first.get_or_insert(t);
            if need <= OPPORTUNITY_BYTES {
                self.left = OPPORTUNITY_BYTES - need;
                self.last = t;
                return (first.unwrap(), t);
            }
            need -= OPPORTUNITY_BYTES;
        }
    }

    pub fn mean_bps(&self) -> u64 {
        self.trace.mean_bps()
    }

    /// Bits the trace offers in [0, end] (for the utilisation).
    pub fn capacity_bits_until(&self, end: SimTime) -> f64 {
        let period = self.trace.period as i128;
        let n = self.trace.opps.len() as i128;
        let end = end as i128;
        let mut total = 0i128;
        let mut b = self.base0;
        while b <= end {
            if b >= 0 && b + period <= end {
                // whole passes inside [0, end]
                let k = (end - period - b) / period + 1;
                total += k * n;
                b += k * period;
                continue;
            }
            let lo = self.trace.opps.partition_point(|&o| (o as i128) + b < 0) as i128;
            let hi = self.trace.opps.partition_point(|&o| (o as i128) + b <= end) as i128;
            total += (hi - lo).max(0);
            b += period;
        }
        total as f64 * OPPORTUNITY_BYTES as f64 * 8.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::PS_PER_MS;

    const MS: SimTime = PS_PER_MS;

    fn tx(text: &str) -> TraceTx {
        TraceTx::new(Arc::new(Trace::parse(text).unwrap()), 0)
    }

    #[test]
    fn parse_errors_name_the_line_and_the_value() {
        assert_eq!(
            Trace::parse("1\n2\n\n3").unwrap_err(),
            "line 3: empty line (one whole number of milliseconds per line)"
        );
        assert!(Trace::parse("1\nx2\n").unwrap_err().starts_with("line 2: 'x2' is not a whole"));
        assert!(Trace::parse("1\n-2\n").unwrap_err().starts_with("line 2: '-2'"));
        // a line that is not a trace's: its first token, cut at 16 printable characters
        let e = Trace::parse("KEY=0123456789abcdefXYZ secret\n").unwrap_err();
        assert!(e.starts_with("line 1: 'KEY=0123456789ab…' is not"), "{e}");
        assert!(!e.contains("secret") && !e.contains("XYZ"), "{e}");
        assert!(Trace::parse("a\u{7}b\n").unwrap_err().starts_with("line 1: 'a?b' is not"));
        assert!(Trace::parse("5\n3\n").unwrap_err().starts_with("line 2: 3 ms is earlier than the line before (5 ms)"));
        assert!(Trace::parse("").unwrap_err().starts_with("no delivery opportunities"));
        assert!(Trace::parse("0\n0\n").unwrap_err().starts_with("the last opportunity is at 0 ms"));
        let t = Trace::parse("1\n1\n4\n").unwrap();
        assert_eq!((t.opps.len(), t.period), (3, 4 * MS));
        // 3 opportunities of 1504 B per 4 ms = 9.024 Mb/s.
        assert_eq!(t.mean_bps(), 9_024_000);
    }

    #[test]
    fn a_trace_slower_than_one_bit_per_second_is_refused_by_its_own_parser() {
        // 2 × 1504 B × 8 bit in 10^9 ms is 0.024 b/s: refused here, with the
        // counts, rather than later as a link rate of 0 under the core's name
        let e = Trace::parse("0\n1\n1000000000\n").unwrap_err();
        assert!(e.contains("mean rate below 1 b/s"), "{e}");
        // one opportunity per 12,032 s is exactly 1 b/s, and is accepted
        assert_eq!(Trace::parse("12032000\n").unwrap().mean_bps(), 1);
    }

    #[test]
    fn mahimahi_rules_worked_by_hand_on_a_ten_line_trace() {
        // Opportunities at 1, 2, 2, 4, 5, 5, 5, 8, 9, 10 ms (period 10 ms).
        let mut t = tx("1\n2\n2\n4\n5\n5\n5\n8\n9\n10\n");
        // A 1500-byte packet at 0.5 ms takes the 1 ms opportunity; 4 bytes left.
        assert_eq!(t.transmit(MS / 2, false, 1500), (MS, MS));
        // The next one arrives at 1.5 ms, after that opportunity: the 4 bytes
        // are lost (nothing was waiting); it takes the first 2 ms one.
        assert_eq!(t.transmit(3 * MS / 2, false, 1500), (2 * MS, 2 * MS));
        // A third waited behind it (arrived before 2 ms): it takes the 4
        // bytes left at 2 ms, then the second 2 ms opportunity (shared ms).
        assert_eq!(t.transmit(2 * MS, true, 1500), (2 * MS, 2 * MS));
        // Its leftover: 1504 − 1496 = 8 bytes. A 40-byte ACK waiting behind
        // needs 32 more: the 4 ms opportunity, 1472 left.
        assert_eq!(t.transmit(2 * MS, true, 40), (2 * MS, 4 * MS));
        // A 1000-byte packet waiting too fits in those 1472 (472 left).
        assert_eq!(t.transmit(4 * MS, true, 1000), (4 * MS, 4 * MS));
        // Nothing arrives until 6 ms: the 472 bytes and the three 5 ms
        // opportunities are wasted; a 3000-byte packet takes 8 and 9 ms (8
        // bytes left).
        assert_eq!(t.transmit(6 * MS, false, 3000), (8 * MS, 9 * MS));
        // An arrival exactly at an opportunity cannot use it (mahimahi burns
        // the opportunities due up to now first): at 10 ms it waits for the
        // next pass, whose 1 ms opportunity is at 11 ms.
        assert_eq!(t.transmit(10 * MS, false, 1500), (11 * MS, 11 * MS));
        // A long idle time skips whole passes: 1 s later, at 1011.5 ms, the
        // next opportunity is 1012 ms (the pass's 2 ms).
        assert_eq!(t.transmit(1011 * MS + MS / 2, false, 100), (1012 * MS, 1012 * MS));
    }

    #[test]
    fn a_start_offset_replays_from_inside_the_trace() {
        // Offset 3 ms into "1, 2, 4, 10": time 0 is trace time 3, so the
        // opportunities fall at 1 (trace 4), 7 (trace 10), 8 (trace 1 of the
        // next pass), 9 ms.
        let mut t = TraceTx::new(Arc::new(Trace::parse("1\n2\n4\n10\n").unwrap()), 3 * MS);
        let got: Vec<_> = (0..4).map(|_| t.transmit(0, false, 1504).1).collect();
        assert_eq!(got, vec![MS, 7 * MS, 8 * MS, 9 * MS]);
    }

    #[test]
    fn capacity_over_a_window_counts_opportunities() {
        let t = tx("1\n2\n2\n4\n");
        // [0, 10 ms]: passes at 0 (1, 2, 2, 4), 4 (5, 6, 6, 8), 8 (9, 10, 10): 11.
        assert_eq!(t.capacity_bits_until(10 * MS), 11.0 * 1504.0 * 8.0);
        let off = TraceTx::new(Arc::new(Trace::parse("1\n2\n2\n4\n").unwrap()), 3 * MS);
        // Offset 3: opportunities at 1 (trace 4), 2, 3, 3, 5, 6, 7, 7, 9, 10, 11…
        assert_eq!(off.capacity_bits_until(10 * MS), 10.0 * 1504.0 * 8.0);
    }
}
