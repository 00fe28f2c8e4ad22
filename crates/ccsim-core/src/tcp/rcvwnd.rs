//! The receiver's advertised window as Linux opens it (`tcp.rcv_autotune`),
//! followed function by function:
//!
//! - `tcp_select_initial_window` (tcp_output.c): the SYN-ACK offers the
//!   receive buffer's window, `tcp_rmem[1]` = 131072 bytes at the default
//!   scaling ratio of one half (`TCP_DEFAULT_SCALING_RATIO`), rounded down to
//!   whole MSS and at most 65535 (unscaled in a SYN): 65160 bytes, 45
//!   segments of 1448.
//! - `tcp_init_buffer_space` (tcp_input.c): `window_clamp` = the full space
//!   less one MSS (the reservation of one segment), `rcv_ssthresh` at most
//!   the clamp, `rcvq_space.space` = min(rcv_wnd, 10 MSS).
//! - `tcp_grow_window`: each in-order segment raises `rcv_ssthresh` by
//!   2 MSS toward the clamp, and each raise sets `icsk_ack.quick`, one ACK
//!   sent at once.
//! - `tcp_rcv_space_adjust` / `tcp_rcvbuf_grow` (Linux 6.18): once per
//!   receiver RTT, if the application read `copied` > `rcvq_space.space`
//!   in it, the space becomes `copied` and the clamp the window of a buffer
//!   sized for rcvwin = 2·copied ("DRS is always one RTT late") plus twice
//!   rcvwin·(copied − old)/old ("slow start: allow the sender to double its
//!   rate"), up to the window of `tcp_rmem[2]` = 33554432 bytes.
//! - `__tcp_select_window` / `tcp_select_window`: an ACK offers
//!   `rcv_ssthresh` rounded down to whole MSS beyond rcv_nxt, and never
//!   moves the right edge back.
//!
//! - `tcp_measure_rcv_mss`: the first full segment sets the scaling ratio
//!   to len·256/truesize and `tcp_set_window_clamp` moves the clamp to the
//!   buffer's window at that ratio, raising `rcv_ssthresh` to at least the
//!   SYN-ACK's window. The room this opens is what makes the first segments
//!   after the quick-ACK quota's start each ACKed at once.
//!
//! The ratio is the one Linux measures for 1448-byte segments through the
//! emulation's TUN device: its receiver ACKs the first 22 data segments one
//! by one (16 quick ACKs, plus one per raise while `quick |= 1` keeps the
//! count from falling: 6 raises of 2 MSS), which puts the room in
//! (5, 6] × 2896 bytes above 65160 and the ratio in (153, 159]/256
//! (docs/validation.md); 157 is taken. A NIC whose driver allocates other
//! buffers measures another ratio.
//!
//! - The receiver's RTT (`RcvRtt`, Linux 6.18's `tcp_rcv_rtt_est`): a
//!   sample from each full segment whose echoed timestamp changed
//!   (`tcp_rcv_rtt_measure_ts`: now − TSecr on the receiver's millisecond
//!   clock; a zero sample is dropped, "tcp: remove zero TCP TS samples for
//!   autotuning"), and one each time a whole window has arrived
//!   (`tcp_rcv_rtt_measure`, microseconds). `tcp_rcv_rtt_update` takes a
//!   lower sample at once ("tcp: always seek for minimal rtt in
//!   tcp_rcv_rtt_update()", commit b879dcb1aeec); a higher timestamp sample
//!   moves the estimate by 1/8, and only with the receive queue empty
//!   ("tcp: skip big rtt sample if receive queue is not empty"); a higher
//!   window sample is dropped. Autotuning runs once this RTT has passed.
//!
//! Deviations: the application reads every segment at once (the free space
//! is the whole buffer, and the receive queue is empty when a sample comes);
//! one ratio for every segment; a segment under 128 bytes takes no window
//! RTT sample and runs no autotuning step (in Linux only `tcp_grow_window`
//! needs 128 bytes; `tcp_rcv_rtt_measure` and the reader's
//! `tcp_rcv_space_adjust` run for every segment), which matters only for a
//! flow of such segments.

use crate::units::{SimTime, PS_PER_MS, PS_PER_US};

/// tcp_rmem[1] and tcp_rmem[2]: the default and largest receive buffers
/// (Linux 6.18: 131072 and 33554432, since "tcp: increase tcp_rmem[2] to
/// 32 MB"; /proc/sys/net/ipv4/tcp_rmem of the kernel validated against).
const RMEM_DEFAULT: u64 = 131_072;
const RMEM_MAX: u64 = 33_554_432;
/// TCP_INIT_CWND: rcvq_space starts at 10 segments.
const INIT_SPACE_SEGS: u64 = 10;

/// tcp_win_from_space: the window a buffer of `space` bytes offers at a
/// scaling ratio (of 256): TCP_DEFAULT_SCALING_RATIO = 128 until data has
/// been measured, then the measured one.
#[inline]
fn win_from_space(space: u64, ratio: u64) -> u64 {
    (space * ratio) >> 8
}
const DEFAULT_RATIO: u64 = 128;
const MEASURED_RATIO: u64 = 157;

/// tcp_rcv_rtt_est: the receiver's RTT, in microseconds times 8 as Linux
/// keeps it (0 until the first sample), and its two sources' state.
#[derive(Default)]
pub(super) struct RcvRtt {
    rtt_us8: u64,
    /// rcv_rtt_last_tsecr: the echoed timestamp of the last sample.
    last_tsecr: u32,
    /// rcv_rtt_est.seq (bytes) and .time (µs; None before the first).
    win_seq: u64,
    win_time_us: Option<u64>,
}

impl RcvRtt {
    /// tcp_rcv_rtt_update (Linux 6.18): a lower sample is taken at once; a
    /// higher one moves the estimate by 1/8 if it came from a timestamp
    /// (the receive queue is empty here), and is dropped if it came from a
    /// window (`win_dep`).
    fn update(&mut self, sample_us: u64, win_dep: bool) {
        let m = sample_us << 3;
        if self.rtt_us8 == 0 || m < self.rtt_us8 {
            self.rtt_us8 = m;
        } else if !win_dep {
            self.rtt_us8 = self.rtt_us8 - (self.rtt_us8 >> 3) + sample_us;
        }
    }

    /// tcp_rcv_rtt_measure_ts: a data segment echoing `tsecr_ms` (the
    /// receiver's millisecond clock when it sent the ACK the sender last
    /// read). Only a change of the echo is a sample, only a full segment
    /// (`full`) measures, and a zero difference is no sample.
    pub(super) fn measure_ts(&mut self, now: SimTime, tsecr_ms: u32, full: bool) {
        if tsecr_ms == self.last_tsecr {
            return;
        }
        self.last_tsecr = tsecr_ms;
        if full {
            let delta = ms_clock(now).wrapping_sub(tsecr_ms);
            if delta > 0 && delta < i32::MAX as u32 / 1000 {
                self.update(delta as u64 * 1000, false);
            }
        }
    }

    /// tcp_rcv_rtt_measure (from tcp_event_data_recv): the time for
    /// `rcv_nxt` (bytes) to pass the end of the window offered when the
    /// last measurement started; then a new one starts at `rcv_nxt` +
    /// `rcv_wnd` (bytes).
    fn measure_window(&mut self, now: SimTime, rcv_nxt: u64, window_end: u64) {
        let now_us = now / PS_PER_US;
        if let Some(t) = self.win_time_us {
            if rcv_nxt < self.win_seq {
                return;
            }
            self.update((now_us - t).max(1), true);
        }
        self.win_seq = window_end;
        self.win_time_us = Some(now_us);
    }

    /// The estimate, once there is one.
    fn rtt(&self) -> Option<SimTime> {
        (self.rtt_us8 > 0).then(|| (self.rtt_us8 >> 3) * PS_PER_US)
    }
}

/// The millisecond clock TCP timestamps carry (TCP_TS_HZ = 1000), which
/// wraps as their 32 bits do.
#[inline]
pub(super) fn ms_clock(now: SimTime) -> u32 {
    (now / PS_PER_MS) as u32
}

#[derive(Default)]
pub(super) struct RcvWindow {
    mss: u64,
    /// Bytes: the window the receiver is willing to offer now.
    rcv_ssthresh: u64,
    window_clamp: u64,
    max_window: u64,
    /// rcvq_space: bytes read in the last measured RTT, and where and when
    /// that measurement started (segments, time).
    space: u64,
    space_seq: u64,
    space_time: SimTime,
    /// Bytes: the right edge of the window last offered (rcv_wup + rcv_wnd).
    right_edge: u64,
    /// The SYN-ACK's window, and whether a data segment has been measured.
    syn_wnd: u64,
    measured: bool,
    /// The receiver's RTT, which paces autotuning.
    pub(super) rtt: RcvRtt,
}

impl RcvWindow {
    pub(super) fn new(mss: u32) -> Self {
        let mss = mss as u64;
        let full = win_from_space(RMEM_DEFAULT, DEFAULT_RATIO);
        let syn_wnd = (full / mss * mss).min(65_535);
        let window_clamp = (full - mss).max(2 * mss);
        RcvWindow {
            mss,
            rcv_ssthresh: syn_wnd.min(window_clamp),
            window_clamp,
            max_window: win_from_space(RMEM_MAX, MEASURED_RATIO),
            space: syn_wnd.min(INIT_SPACE_SEGS * mss),
            space_seq: 0,
            space_time: 0,
            right_edge: syn_wnd,
            syn_wnd,
            measured: false,
            rtt: RcvRtt::default(),
        }
    }

    /// The window the SYN-ACK offers, in segments.
    pub(super) fn initial_segs(&self) -> u32 {
        (self.right_edge / self.mss) as u32
    }

    /// An in-order segment arrived and `rcv_nxt` (segments) now covers it,
    /// read by the application at once: tcp_rcv_rtt_measure (`rcv_wup`:
    /// the `rcv_nxt` of the last window offered), tcp_grow_window, then
    /// tcp_rcv_space_adjust. True when the window was raised (an ACK goes
    /// at once).
    pub(super) fn on_in_order(&mut self, now: SimTime, rcv_nxt: u64, rcv_wup: u64) -> bool {
        // rcv_nxt + rcv_wnd, where rcv_wnd runs from rcv_wup to the right edge
        let window_end = self.right_edge + rcv_nxt.saturating_sub(rcv_wup) * self.mss;
        self.rtt.measure_window(now, rcv_nxt * self.mss, window_end);
        if !self.measured {
            // tcp_measure_rcv_mss → tcp_set_window_clamp (a larger clamp)
            self.measured = true;
            let clamp = win_from_space(RMEM_DEFAULT, MEASURED_RATIO);
            if clamp > self.window_clamp {
                self.window_clamp = clamp;
                self.rcv_ssthresh = self.rcv_ssthresh.max(self.syn_wnd.min(clamp));
            }
        }
        let grew = self.rcv_ssthresh < self.window_clamp;
        if grew {
            self.rcv_ssthresh = (self.rcv_ssthresh + 2 * self.mss).min(self.window_clamp);
        }
        if let Some(r) = self.rtt.rtt() {
            // `time < rcv_rtt_est.rtt_us >> 3` returns: microsecond stamps
            if (now / PS_PER_US).saturating_sub(self.space_time / PS_PER_US) >= r / PS_PER_US {
                let copied = (rcv_nxt - self.space_seq) * self.mss;
                if copied > self.space {
                    // tcp_rcvbuf_grow: "DRS is always one RTT late" (twice
                    // what was read), and "slow start: allow the sender to
                    // double its rate" (twice that again times the growth)
                    let old = self.space;
                    self.space = copied;
                    let mut rcvwin = 2 * copied;
                    rcvwin += 2 * (rcvwin * (copied - old) / old);
                    self.window_clamp = self.window_clamp.max(rcvwin.min(self.max_window));
                }
                self.space_seq = rcv_nxt;
                self.space_time = now;
            }
        }
        grew
    }

    /// The right edge (segments) an ACK for `rcv_nxt` offers: rcv_ssthresh
    /// in whole MSS beyond it, never less than what was offered before.
    pub(super) fn advertise(&mut self, rcv_nxt: u64) -> u64 {
        let offer = rcv_nxt * self.mss + self.rcv_ssthresh / self.mss * self.mss;
        self.right_edge = self.right_edge.max(offer);
        self.right_edge / self.mss
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::PS_PER_MS;

    #[test]
    fn the_syn_ack_offers_45_segments_of_1448_and_the_first_segment_opens_six_raises() {
        // Linux: win_from_space(131072) = 65536 at ratio 1/2, rounded down to
        // 45 × 1448 = 65160 (< 65535); window_clamp = 65536 − 1448 = 64088.
        let mut w = RcvWindow::new(1448);
        assert_eq!(w.initial_segs(), 45);
        assert_eq!((w.window_clamp, w.rcv_ssthresh, w.space), (64_088, 64_088, 14_480));
        // the first segment measures the ratio: clamp 131072·157/256 = 80384,
        // rcv_ssthresh max(min(65160, 80384), 64088) = 65160; room 15224 =
        // five raises of 2896 and a sixth of 744
        let raises = (1..=10).filter(|&n| w.on_in_order(n * PS_PER_MS, n, 0)).count();
        assert_eq!(raises, 6);
        assert_eq!((w.window_clamp, w.rcv_ssthresh), (80_384, 80_384));
    }

    #[test]
    fn autotuning_sizes_the_clamp_for_twice_what_was_read_plus_its_growth() {
        let mut w = RcvWindow::new(1448);
        let rtt = 20 * PS_PER_MS;
        // the receiver's RTT: the first data segment echoes the SYN-ACK's
        // TSval (ms 1), 20 ms earlier
        w.rtt.measure_ts(21 * PS_PER_MS, 1, true);
        assert_eq!(w.rtt.rtt(), Some(rtt));
        let mut n = 0;
        // three RTTs of 10, 20 and 40 segments; each RTT's end measures the
        // one before: 14480 (not above the initial space: no change); 28960:
        // rcvwin = 57920 + 2·57920·(28960 − 14480)/14480 = 173760; 57920:
        // rcvwin = 115840 + 2·115840·(57920 − 28960)/28960 = 347520
        for (k, segs) in [(1u64, 10u64), (2, 20), (3, 40)] {
            for i in 1..=segs {
                n += 1;
                // each segment ACKed (rcv_wup = n − 1 when it arrives)
                w.on_in_order((k - 1) * rtt + i * PS_PER_MS / 4, n, n - 1);
                w.advertise(n);
            }
            w.on_in_order(k * rtt, n, n);
            let want = match k {
                1 => (14_480, 80_384),
                2 => (28_960, 173_760),
                _ => (57_920, 347_520),
            };
            assert_eq!((w.space, w.window_clamp), want, "after RTT {k}");
        }
        let before = w.rcv_ssthresh;
        n += 1;
        assert!(w.on_in_order(3 * rtt + 1, n, n - 1));
        assert_eq!(w.rcv_ssthresh, before + 2 * 1448);
    }

    #[test]
    fn the_right_edge_never_moves_back() {
        let mut w = RcvWindow::new(1448);
        assert_eq!(w.advertise(0), 45); // the SYN-ACK's 65160 B
        assert_eq!(w.advertise(1), 45, "1 + 44 whole MSS of rcv_ssthresh 64088 is still 45");
        assert_eq!(w.advertise(10), 54);
    }

    #[test]
    fn the_receivers_rtt_takes_a_lower_sample_at_once_and_a_higher_one_by_an_eighth() {
        // tcp_rcv_rtt_update (Linux 6.18), worked by hand in µs × 8
        let mut r = RcvRtt::default();
        assert_eq!(r.rtt(), None);
        r.measure_ts(101 * PS_PER_MS, 1, true); // 100 ms: the first sample
        assert_eq!(r.rtt_us8, 800_000);
        r.measure_ts(221 * PS_PER_MS, 101, true); // 120 ms: 800000 − 100000 + 120000
        assert_eq!(r.rtt_us8, 820_000);
        assert_eq!(r.rtt(), Some(102_500 * PS_PER_US));
        r.measure_ts(321 * PS_PER_MS, 221, true); // 100 ms: lower, latched
        assert_eq!(r.rtt_us8, 800_000);
        // the same echo again is no sample, and neither is a short segment,
        // whose echo still counts as seen
        r.measure_ts(400 * PS_PER_MS, 221, true);
        r.measure_ts(400 * PS_PER_MS, 300, false);
        r.measure_ts(401 * PS_PER_MS, 300, true);
        assert_eq!(r.rtt_us8, 800_000);
        // a zero difference on the millisecond clock is no sample
        r.measure_ts(402 * PS_PER_MS + PS_PER_MS / 2, 402, true);
        assert_eq!(r.rtt_us8, 800_000);
        // window samples: the first starts a measurement; a higher one is
        // dropped, a lower one latched
        r.measure_window(500 * PS_PER_MS, 0, 10_000);
        r.measure_window(550 * PS_PER_MS, 9_999, 20_000); // not yet through
        r.measure_window(700 * PS_PER_MS, 10_000, 30_000); // 200 ms: higher
        assert_eq!(r.rtt_us8, 800_000);
        r.measure_window(760 * PS_PER_MS, 30_000, 40_000); // 60 ms: lower
        assert_eq!(r.rtt_us8, 480_000);
    }

    #[test]
    fn autotuning_waits_for_the_receivers_rtt() {
        // no estimate, no autotuning (tcp_rcv_space_adjust returns while
        // rcv_rtt_est.rtt_us is 0)
        let mut w = RcvWindow::new(1448);
        for n in 1..=30 {
            w.on_in_order(n * PS_PER_MS, n, n - 1);
        }
        assert_eq!(w.space, 14_480);
        // with 10 ms: a step once 10 ms have passed since the last one
        let mut w = RcvWindow::new(1448);
        w.rtt.measure_ts(11 * PS_PER_MS, 1, true);
        for n in 1..=9 {
            w.on_in_order(n * PS_PER_MS, 20 + n, 20 + n - 1);
        }
        assert_eq!((w.space, w.space_seq), (14_480, 0), "9 ms: not yet");
        w.on_in_order(10 * PS_PER_MS, 30, 29);
        assert_eq!((w.space, w.space_seq), (30 * 1448, 30), "10 ms: 30 segments read");
    }
}
