//! Memory per flow and per packet in flight (docs/performance.md):
//! `cargo run --release --example memory -p ccsim-core -- [flows] [seconds]`.
//! Builds an N-flow dumbbell (10 Gb/s, 40 ms RTT, flows 10 ms apart) and
//! reads the resident set (/proc/self/statm) before and after set-up, then
//! after `seconds` of simulated time (default 1), dividing the growth by
//! the segments then outstanding (an upper bound on the memory a packet in
//! flight costs: the rings and queues only grow).
use ccsim_core::presets::{dumbbell, tcp_defaults};
use ccsim_core::Simulation;

fn rss_bytes() -> u64 {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = s.split_whitespace().nth(1).and_then(|x| x.parse().ok()).unwrap_or(0);
    pages * 4096
}

fn main() {
    let n: usize = std::env::args().nth(1).map_or(10_000, |s| s.parse().expect("a flow count"));
    println!("size_of: TcpFlow {} B, Link {} B, link ring slot {} B, sender record per outstanding segment {} B, Packet {} B",
        std::mem::size_of::<ccsim_core::tcp::TcpFlow>(), std::mem::size_of::<ccsim_core::link::Link>(),
        std::mem::size_of::<ccsim_core::link::Slot>(), ccsim_core::tcp::TX_RECORD_BYTES,
        std::mem::size_of::<ccsim_core::packet::Packet>());
    let sc = dumbbell(n, 10_000_000_000, 10_000_000_000, 1, tcp_defaults("newreno"));
    let r0 = rss_bytes();
    let mut sim = Simulation::new(&sc).expect("valid scenario");
    let r1 = rss_bytes();
    println!(
        "{n} flows: set-up {:.0} B per flow (resident, with its two access links and routes)",
        (r1 - r0) as f64 / n as f64
    );
    let secs: f64 = std::env::args().nth(2).map_or(1.0, |s| s.parse().expect("seconds"));
    sim.run_to((secs * 1e12) as u64);
    let r2 = rss_bytes();
    let held: usize = sim.links.iter().map(|l| l.held()).sum();
    let out: u64 = sim.flows.iter().map(|f| f.c.snd_max - f.c.snd_una).sum();
    println!(
        "after {secs} s: {held} packets in links, {out} segments outstanding; +{:.0} B per outstanding segment",
        (r2 - r1) as f64 / out.max(1) as f64
    );
}
