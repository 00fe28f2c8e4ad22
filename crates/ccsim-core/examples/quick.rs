//! `cargo run --release --example quick -- [flows] [bneck_mbps] [secs] [sack|plain] [cc] [buffer_bdp]`:
//! run the reference dumbbell and print packets per CPU-second; `sack` turns
//! on RFC 6675 SACK and timestamps, `sackpace` adds Linux pacing, `norack` (e.g. `sacknorack`) turns
//! off RACK-TLP, D-SACK, undo and F-RTO; `cc` picks the algorithm (newreno);
//! `buffer_bdp` scales the bottleneck buffer (1).
use std::time::Instant;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a.get(1).map_or(10, |s| s.parse().unwrap());
    let mbps: u64 = a.get(2).map_or(100, |s| s.parse().unwrap());
    let secs: u64 = a.get(3).map_or(60, |s| s.parse().unwrap());
    let cc = a.get(5).map_or("newreno", |s| s.as_str());
    let mut tcp = ccsim_core::presets::tcp_defaults(cc);
    if a.get(4).is_some_and(|s| s.starts_with("sack")) {
        tcp.sack = ccsim_core::config::SackCfg::Rfc6675;
        tcp.timestamps = true;
    }
    if a.get(4).is_some_and(|s| s.ends_with("pace")) {
        tcp.pacing = ccsim_core::config::PacingCfg::Linux;
    }
    if a.get(4).is_some_and(|s| s.contains("norack")) {
        (tcp.dsack, tcp.rack, tcp.tlp, tcp.undo, tcp.frto) = (false, false, false, false, false);
    }
    let mut sc = ccsim_core::presets::dumbbell(n, mbps * 1_000_000, 1_000_000_000, secs, tcp);
    let buf: f64 = a.get(6).map_or(1.0, |s| s.parse().unwrap());
    for l in sc.links.iter_mut().take(2) {
        if let ccsim_core::config::QueueCfg::Droptail(ccsim_core::queue::DropTailCfg { limit_pkts: Some(p), .. }) =
            &mut l.queue
        {
            *p = (*p as f64 * buf).round() as u32;
        }
    }
    let t = Instant::now();
    let out = ccsim_core::run(&sc).unwrap();
    let dt = t.elapsed().as_secs_f64();
    let links = out.table("links").unwrap();
    if let Some(ccsim_core::Column::F64(u)) = links.get("utilization") {
        println!("bottleneck utilization {:.4}", u[0]);
    }
    let flows = out.table("flows").unwrap();
    if let Some(ccsim_core::Column::F64(g)) = flows.get("goodput_bps") {
        println!("goodput Mb/s {:?}", g.iter().map(|x| (x / 1e4).round() / 100.0).collect::<Vec<_>>());
    }
    if let Some(ccsim_core::Column::U64(g)) = flows.get("timeouts") {
        println!("timeouts {:?}", g);
    }
    let sum = |t: &ccsim_core::Table, k: &str| match t.get(k) {
        Some(ccsim_core::Column::U64(v)) => v.iter().sum::<u64>(),
        _ => 0,
    };
    println!("retransmits {} drops {} (flows' packets dropped)", sum(flows, "retransmits"), sum(flows, "pkts_dropped"));
    println!(
        "delivered {} pkts, {} events in {:.3} s: {:.2} Mpkt/s, {:.2} Mev/s",
        out.delivered_data_pkts,
        out.events,
        dt,
        out.delivered_data_pkts as f64 / dt / 1e6,
        out.events as f64 / dt / 1e6
    );
}
