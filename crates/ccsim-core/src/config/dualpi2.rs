//! DualPI2's configuration, each option declared once (`schema::options!`):
//! its field, default, and the row a scenario's `queue` table is checked
//! and documented by. Defaults are Linux's `dualpi2_reset_default`
//! (net/sched/sch_dualpi2.c); the model is queue/dualpi2.rs.

use super::net_schema::{HZ, PKT_BYTES, T_UPDATE};
use super::schema::{options, Kind};
use super::EcnMask;
use crate::units::{SimTime, PS_PER_MS};

options! {
    /// DualPI2 (RFC 9332, Linux sch_dualpi2), decided at dequeue. The
    /// buffer (`limit_pkts`, set from the link's) counts both queues.
    pub struct DualPi2Cfg, rows OPTS {
        limit_pkts: u32 = 0,
        target_ps: SimTime = 15 * PS_PER_MS
            => ("target", Kind::Time { min_ps: 0 }, "time", "PI2 target queueing delay (RFC 9332: 15 ms)"),
        t_update_ps: SimTime = 16 * PS_PER_MS => ("t_update", T_UPDATE, "time", "PI2 update period"),
        /// Integral gain, Hz (probability per second of delay error).
        alpha: f64 = 41.0 / 256.0
            => ("alpha", HZ, "Hz", "Hz, integral gain (Linux 41/256 ≈ RFC 9332's 0.16)"),
        /// Proportional gain, Hz.
        beta: f64 = 819.0 / 256.0
            => ("beta", HZ, "Hz", "Hz, proportional gain (Linux 819/256 ≈ RFC 9332's 3.2)"),
        step_thresh_ps: SimTime = PS_PER_MS
            => ("step_thresh", Kind::Time { min_ps: 0 }, "time", "L queue's native AQM: an L packet that waited longer is marked"),
        min_qlen_step: u32 = 0
            => ("min_qlen_step", Kind::Int { lo: 0, hi: u32::MAX as u64 }, "packets", "packets: the step applies only to L packets that found at least this many L packets waiting"),
        /// Coupling factor k.
        coupling: f64 = 2.0
            => ("coupling", Kind::Number { lo: 1.0, hi: 255.0, lo_open: false }, "", "k: the L queue marks with k·p', the C queue with p'² (RFC 9332: 2)"),
        /// C-queue weight w_C, percent.
        c_protection: u32 = 10
            => ("c_protection", Kind::Int { lo: 0, hi: 100 }, "percent", "percent: the C queue's weight in the WRR scheduler (L gets the rest)"),
        drop_overload: bool = true
            => ("drop_overload", Kind::Bool, "", "when k·p' > 1, drop L packets with p'² (true) or mark only and let the queue grow (false)"),
        drop_early: bool = false
            => ("drop_early", Kind::Bool, "", "decide drops and marks at enqueue (true) instead of dequeue (Linux default)"),
        ecn_mask: EcnMask = EcnMask::L4sEct
            => ("ecn_mask", Kind::Choice(&["l4s_ect", "any_ect"]), "", "'l4s_ect' (ECT(1) and CE to the L queue) or 'any_ect' (ECT(0) too)"),
        mtu: u32 = 1514
            => ("mtu", PKT_BYTES, "bytes", "bytes: no PI marking or dropping while less than 2·mtu is queued"),
    }
}
