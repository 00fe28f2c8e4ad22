//! Pacing: when a paced flow may send and how much per release.
//!
//! Two kinds (`tcp.pacing`): `linux`, a byte rate of ratio·mss·max(cwnd, in
//! flight)/srtt (Linux `tcp_update_pacing_rate`, ratios `tcp_pacing_ss_ratio`
//! 200 % while cwnd < ssthresh/2, else `tcp_pacing_ca_ratio` 120 %), or the
//! algorithm's own rate when it sets one (BBR); and `window`, ns-2's leaky
//! bucket, one segment every srtt/cwnd. A Linux-paced release may be a burst
//! of several segments (`tcp_tso_autosize`); each segment moves the next
//! departure time forward by its length at the rate (`tcp_wstamp_ns`).

use crate::config::PacingCfg;
use crate::units::{SimTime, PS_PER_S};

/// The pacing state of a sender.
#[derive(Debug, Default)]
pub(super) struct Pacer {
    /// Earliest time the next release may go.
    pub(super) next: SimTime,
    /// Timer armed when a release had to wait for `next`.
    pub(super) deadline: Option<SimTime>,
    /// Rate used for the last paced segment, bit/s (0 = unpaced).
    pub(super) rate_bps: f64,
    /// Pacing rate of the current release, bytes/s: computed once per send
    /// opportunity, as Linux updates sk_pacing_rate once per ACK.
    pub(super) rate: Option<f64>,
}

/// Whether the flow paces at all: the algorithm set a rate, or `tcp.pacing` is on.
#[inline]
pub(super) fn active(cc_rate: Option<f64>, mode: PacingCfg) -> bool {
    cc_rate.is_some() || mode != PacingCfg::Off
}

/// True when the flow paces by ns-2's leaky bucket (one segment every
/// srtt/cwnd) rather than at a Linux-style byte rate.
#[inline]
pub(super) fn window_paced(cc_rate: Option<f64>, mode: PacingCfg) -> bool {
    cc_rate.is_none() && mode == PacingCfg::Window
}

/// What the pacing rate depends on.
pub(super) struct RateInputs {
    /// A rate the congestion control set (BBR), bytes/s.
    pub(super) cc_rate: Option<f64>,
    pub(super) mode: PacingCfg,
    pub(super) srtt: Option<SimTime>,
    pub(super) mss: u32,
    pub(super) cwnd: u32,
    pub(super) ssthresh: u32,
    pub(super) in_flight_segs: u64,
    pub(super) ss_ratio: f64,
    pub(super) ca_ratio: f64,
}

/// Pacing rate in bytes/s, or None when unpaced (no rate yet: Linux paces
/// nothing before the first RTT sample). For `window` pacing the rate is
/// cwnd·mss/srtt, of which the gap uses only srtt/cwnd.
pub(super) fn rate(i: &RateInputs) -> Option<f64> {
    let r = if let Some(r) = i.cc_rate {
        r
    } else {
        let srtt = i.srtt.map(|s| s as f64 / PS_PER_S as f64).filter(|&s| s > 0.0)?;
        let mss = i.mss as f64;
        let cwnd = i.cwnd.max(1) as f64;
        match i.mode {
            PacingCfg::Off => return None,
            PacingCfg::Linux => {
                // tcp_update_pacing_rate: ss ratio while cwnd < ssthresh/2.
                let ratio = if (i.cwnd as u64) < i.ssthresh as u64 / 2 { i.ss_ratio } else { i.ca_ratio };
                ratio * mss * cwnd.max(i.in_flight_segs as f64) / srtt
            }
            PacingCfg::Window => cwnd * mss / srtt,
        }
    };
    (r > 0.0 && r.is_finite()).then_some(r)
}

impl Pacer {
    /// Segments one release may send back to back: Linux's TSO/GSO
    /// autosizing for Linux-style pacing (`tcp.tso`), else one.
    pub(super) fn burst(&self, tso: bool, window_paced: bool, mss: u32, min_tso_segs: u32) -> u32 {
        if !tso || window_paced {
            return 1;
        }
        match self.rate {
            Some(r) => crate::cc::tso_autosize(r, mss, min_tso_segs),
            None => 1,
        }
    }

    /// Gap to leave after sending `payload` bytes, or None when unpaced.
    pub(super) fn gap(&mut self, payload: u32, window_paced: bool, mss: u32) -> Option<SimTime> {
        let rate = self.rate?;
        // Window pacing: srtt/cwnd per segment whatever its payload.
        let bytes = if window_paced { mss } else { payload };
        self.rate_bps = rate * 8.0;
        Some((bytes as f64 / rate * PS_PER_S as f64 + 0.5) as SimTime)
    }
}
