//! Resident memory at each phase of a run from resolved JSON (parse and
//! validation, set-up, the run, the result tables), as docs/performance.md
//! measures a million flows:
//! `cargo run --release --example json_memory -p ccsim-core -- FILE.json`
//! (the JSON from `Scenario.to_core_json()`).
use ccsim_core::config::Scenario;
use ccsim_core::Simulation;

fn rss_mb() -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = s.lines().find(|l| l.starts_with("VmHWM")).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok());
    let now = s.lines().find(|l| l.starts_with("VmRSS")).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok());
    println!("  rss {:.0} MB, peak {:.0} MB", now.unwrap_or(0.0) / 1e3, hwm.unwrap_or(0.0) / 1e3);
    now.unwrap_or(0.0) / 1e3
}

fn main() {
    let path = std::env::args().nth(1).expect("a resolved scenario (JSON)");
    let js = std::fs::read_to_string(path).expect("readable");
    let t = std::time::Instant::now();
    println!("read");
    rss_mb();
    let sc = Scenario::checked_from_json(&js).expect("valid");
    println!("parsed+validated {:?}", t.elapsed());
    rss_mb();
    drop(js);
    let mut sim = Simulation::from_checked(sc).expect("builds");
    println!("built {:?}", t.elapsed());
    rss_mb();
    sim.run();
    println!("ran {:?}", t.elapsed());
    rss_mb();
    let held: Vec<usize> = sim.links.iter().map(|l| l.held()).collect();
    let out: u64 = sim.flows.iter().map(|f| f.c.snd_max - f.c.snd_una).sum();
    println!("  held per link {held:?}; outstanding segments {out}");
    let out = sim.output();
    println!("output {:?}", t.elapsed());
    rss_mb();
    drop(out);
}
