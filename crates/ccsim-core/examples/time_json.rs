//! Time the core on core-JSON scenarios (as `tools/fingerprint.py --dump`
//! or `Scenario.to_core_json()` write them), best of `$REPEAT` runs (3):
//! `cargo run --release --example time_json -p ccsim-core -- a.json ...`.
//! Prints delivered packets, events and wall time per delivered packet of
//! the whole run (set-up and output included), for workloads that the
//! reference dumbbell of `examples/quick.rs` does not cover (thousands of
//! web sessions, paced high-speed flows).
use std::time::Instant;

fn main() {
    let repeat: usize = std::env::var("REPEAT").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    for path in std::env::args().skip(1) {
        let json = std::fs::read_to_string(&path).expect("readable scenario file");
        let mut best = f64::INFINITY;
        let (mut pkts, mut events) = (0, 0);
        for _ in 0..repeat {
            let t = Instant::now();
            let out = ccsim_core::run_json(&json).expect("valid scenario");
            best = best.min(t.elapsed().as_secs_f64());
            (pkts, events) = (out.delivered_data_pkts, out.events);
        }
        println!(
            "{path}: {pkts} pkts, {events} events, best {best:.3} s, {:.0} ns/pkt, {:.2} M pkts/s",
            best / pkts.max(1) as f64 * 1e9,
            pkts as f64 / best / 1e6
        );
    }
}
