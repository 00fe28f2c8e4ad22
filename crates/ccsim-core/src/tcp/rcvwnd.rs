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
//! Deviations: the application reads every segment at once (the free space
//! is the whole buffer); one ratio for every segment; the receiver's RTT is
//! the sender's smoothed RTT, where Linux keeps its own average of timestamp
//! samples (`tcp_rcv_rtt_measure_ts`, queueing included as here).

use crate::units::SimTime;

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
        }
    }

    /// The window the SYN-ACK offers, in segments.
    pub(super) fn initial_segs(&self) -> u32 {
        (self.right_edge / self.mss) as u32
    }

    /// An in-order segment arrived and `rcv_nxt` (segments) now covers it,
    /// read by the application at once: tcp_grow_window, then
    /// tcp_rcv_space_adjust. True when the window was raised (an ACK goes
    /// at once).
    pub(super) fn on_in_order(&mut self, now: SimTime, rcv_nxt: u64, rtt: Option<SimTime>) -> bool {
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
        if let Some(r) = rtt.filter(|&r| r > 0) {
            if now.saturating_sub(self.space_time) >= r {
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
        let raises = (1..=10).filter(|&n| w.on_in_order(n * PS_PER_MS, n, None)).count();
        assert_eq!(raises, 6);
        assert_eq!((w.window_clamp, w.rcv_ssthresh), (80_384, 80_384));
    }

    #[test]
    fn autotuning_sizes_the_clamp_for_twice_what_was_read_plus_its_growth() {
        let mut w = RcvWindow::new(1448);
        let rtt = 20 * PS_PER_MS;
        let mut n = 0;
        // three RTTs of 10, 20 and 40 segments; each RTT's end measures the
        // one before: 14480 (not above the initial space: no change); 28960:
        // rcvwin = 57920 + 2·57920·(28960 − 14480)/14480 = 173760; 57920:
        // rcvwin = 115840 + 2·115840·(57920 − 28960)/28960 = 347520
        for (k, segs) in [(1u64, 10u64), (2, 20), (3, 40)] {
            for i in 1..=segs {
                n += 1;
                w.on_in_order((k - 1) * rtt + i * PS_PER_MS / 4, n, Some(rtt));
            }
            w.on_in_order(k * rtt, n, Some(rtt));
            let want = match k {
                1 => (14_480, 80_384),
                2 => (28_960, 173_760),
                _ => (57_920, 347_520),
            };
            assert_eq!((w.space, w.window_clamp), want, "after RTT {k}");
        }
        let before = w.rcv_ssthresh;
        n += 1;
        assert!(w.on_in_order(3 * rtt + 1, n, Some(rtt)));
        assert_eq!(w.rcv_ssthresh, before + 2 * 1448);
    }

    #[test]
    fn the_right_edge_never_moves_back() {
        let mut w = RcvWindow::new(1448);
        assert_eq!(w.advertise(0), 45); // the SYN-ACK's 65160 B
        assert_eq!(w.advertise(1), 45, "1 + 44 whole MSS of rcv_ssthresh 64088 is still 45");
        assert_eq!(w.advertise(10), 54);
    }
}
