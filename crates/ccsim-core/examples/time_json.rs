//! Time the core on core-JSON scenarios (as `tools/fingerprint.py --dump`
//! or `Scenario.to_core_json()` write them), best of `$REPEAT` runs (3):
//! `cargo run --release --example time_json -p ccsim-core -- a.json ...`.
//! Prints delivered packets, events, and the time per delivered packet of
//! the simulation proper (`Simulation::new`, `run` and `output`, not the
//! JSON parsing), in wall time and, on Linux, in CPU time of this thread
//! (`/proc/thread-self/schedstat`, which leaves out time stolen by other
//! virtual machines), for workloads that the reference dumbbell of
//! `examples/quick.rs` does not cover (thousands of web sessions, paced
//! high-speed flows, many flows).
use std::time::Instant;

/// CPU time of this thread so far, seconds (Linux), if readable.
fn thread_cpu_s() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn main() {
    let repeat: usize = std::env::var("REPEAT").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    for path in std::env::args().skip(1) {
        let json = std::fs::read_to_string(&path).expect("readable scenario file");
        let sc = ccsim_core::Scenario::from_json(&json).expect("valid scenario");
        let (mut best, mut best_cpu) = (f64::INFINITY, f64::INFINITY);
        let (mut pkts, mut events) = (0, 0);
        for _ in 0..repeat {
            let (t, c) = (Instant::now(), thread_cpu_s());
            let out = ccsim_core::run(&sc).expect("valid scenario");
            best = best.min(t.elapsed().as_secs_f64());
            if let (Some(c0), Some(c1)) = (c, thread_cpu_s()) {
                best_cpu = best_cpu.min(c1 - c0);
            }
            (pkts, events) = (out.delivered_data_pkts, out.events);
        }
        let per_pkt = |s: f64| s / pkts.max(1) as f64 * 1e9;
        println!(
            "{path}: {pkts} pkts, {events} events, best {best:.3} s, {:.0} ns/pkt, {:.2} M pkts/s, CPU {:.0} ns/pkt",
            per_pkt(best),
            pkts as f64 / best / 1e6,
            per_pkt(best_cpu)
        );
    }
}
