//! PIE's configuration, each option declared once (`schema::options!`).
//! Defaults are RFC 8033's (QDELAY_REF 15 ms, T_UPDATE 15 ms, α 0.125 Hz,
//! β 1.25 Hz, MAX_BURST 150 ms, MEAN_PKTSIZE 1500 bytes, §5.1's
//! mark_ecnth 0.1); the model is queue/pie.rs.

use super::net_schema::{HZ, PKT_BYTES, T_UPDATE};
use super::schema::{options, Kind};
use crate::units::{SimTime, PS_PER_MS};

options! {
    /// PIE (RFC 8033), decided at enqueue. The buffer (`limit_pkts` or
    /// `limit_bytes`, set from the link's) is its hard limit.
    pub struct PieCfg, rows OPTS {
        limit_pkts: Option<u32> = None,
        limit_bytes: Option<u64> = None,
        target_ps: SimTime = 15 * PS_PER_MS
            => ("target", Kind::Time { min_ps: 1 }, "time", "QDELAY_REF, the target queueing delay"),
        t_update_ps: SimTime = 15 * PS_PER_MS => ("t_update", T_UPDATE, "time", "drop-probability update period"),
        alpha: f64 = 0.125 => ("alpha", HZ, "Hz", "Hz, weight of the delay error"),
        beta: f64 = 1.25 => ("beta", HZ, "Hz", "Hz, weight of the delay trend"),
        max_burst_ps: SimTime = 150 * PS_PER_MS
            => ("max_burst", Kind::Time { min_ps: 0 }, "time", "burst allowance after an idle, uncongested period"),
        /// MEAN_PKTSIZE: no early drop while at most 2 of these wait.
        mean_pktsize: u32 = 1500
            => ("mean_pktsize", PKT_BYTES, "bytes", "bytes; no early drop while at most two such packets wait"),
        ecn: bool = false
            => ("ecn", Kind::Bool, "", "mark ECN-capable packets while p ≤ mark_ecnth, drop above"),
        /// Mark (not drop) ECN-capable packets only while p ≤ this.
        mark_ecnth: f64 = 0.1
            => ("mark_ecnth", Kind::Prob { lo_open: false }, "", "highest probability at which ECN-capable packets are marked"),
        /// RFC 8033 §5.1 de-randomization (accumulated probability).
        derandomize: bool = true
            => ("derandomize", Kind::Bool, "", "RFC 8033 §5.1 accumulated-probability de-randomization (on in Linux)"),
    }
}
