//! Core-level integration tests: invariants of the engine that hold for any
//! scenario, checked from the outside (counts derived independently).
use ccsim_core::config::{LossCfg, Scenario};
use ccsim_core::presets::{dumbbell, tcp_defaults};
use ccsim_core::{Column, Simulation};

fn u64s(c: Option<&Column>) -> Vec<u64> {
    match c {
        Some(Column::U64(v)) => v.clone(),
        other => panic!("expected a u64 column, got {other:?}"),
    }
}

/// (packets injected, arrived, dropped) summed over flows, and packets held by links.
fn counts(sim: &Simulation) -> (u64, u64, u64, u64) {
    let held = sim.links.iter().map(|l| l.held() as u64).sum();
    let inj = sim.flows.iter().map(|f| f.c.stats.pkts_injected).sum();
    let arr = sim.flows.iter().map(|f| f.c.stats.pkts_arrived).sum();
    let drp = sim.flows.iter().map(|f| f.c.stats.pkts_dropped).sum();
    (inj, arr, drp, held)
}

fn lossy_dumbbell(p: f64) -> Scenario {
    let mut sc = dumbbell(4, 20_000_000, 100_000_000, 10, tcp_defaults("newreno"));
    sc.links[0].loss = LossCfg::Bernoulli(ccsim_core::loss::BernoulliCfg { p });
    sc.sample_interval_ps = Some(100_000_000_000);
    sc
}

#[test]
fn conservation_holds_at_end_of_run() {
    let sc = lossy_dumbbell(0.01);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    let (inj, arr, drp, held) = counts(&sim);
    assert!(inj > 10_000);
    assert_eq!(inj, arr + drp + held);
    // Link-level view: what links refused or lost is what flows saw dropped
    // (lost packets still in flight at the end are counted when they arrive).
    let link_drops: u64 = sim.links.iter().map(|l| l.stats.drops + l.stats.losses).sum();
    let lost_in_flight: u64 = sim.links.iter().map(|l| l.held_iter().filter(|s| s.lost).count() as u64).sum();
    assert_eq!(link_drops, drp);
    assert!(lost_in_flight <= held);
}

#[test]
fn identical_seed_gives_identical_output() {
    let a = ccsim_core::run(&lossy_dumbbell(0.02)).unwrap();
    let b = ccsim_core::run(&lossy_dumbbell(0.02)).unwrap();
    assert_eq!(a.events, b.events);
    for name in ["flows", "flow_series", "link_series"] {
        let (ta, tb) = (a.table(name).unwrap(), b.table(name).unwrap());
        for ((n1, c1), (_, c2)) in ta.columns.iter().zip(tb.columns.iter()) {
            assert_eq!(format!("{c1:?}"), format!("{c2:?}"), "{name}.{n1}");
        }
    }
}

#[test]
fn a_controlled_run_gives_the_same_output_and_stops_when_cancelled() {
    let sc = lossy_dumbbell(0.02);
    let a = ccsim_core::run(&sc).unwrap();
    let ctl = ccsim_core::RunControl::new();
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run_controlled(&ctl).unwrap();
    let b = sim.output();
    assert_eq!(a.events, b.events);
    assert_eq!(ctl.sim_time_ps(), sc.duration_ps);
    for name in ["flows", "flow_series", "link_series", "events"] {
        let (ta, tb) = (a.table(name).unwrap(), b.table(name).unwrap());
        for ((n1, c1), (_, c2)) in ta.columns.iter().zip(tb.columns.iter()) {
            assert_eq!(format!("{c1:?}"), format!("{c2:?}"), "{name}.{n1}");
        }
    }
    // cancelled before it starts: stops after its first chunk, reporting where
    let ctl = ccsim_core::RunControl::new();
    ctl.cancel();
    let mut sim = Simulation::new(&sc).unwrap();
    let Err(ccsim_core::Stopped::Cancelled(e)) = sim.run_controlled(&ctl) else { panic!("not cancelled") };
    assert!(e.sim_time_s > 0.0 && e.sim_time_s < 1e-12 * sc.duration_ps as f64);
    assert_eq!(ctl.sim_time_ps() as f64 * 1e-12, e.sim_time_s);
}

#[test]
fn a_run_past_its_memory_limit_stops_cleanly_naming_its_tables() {
    // 2 % random loss for 10 s records thousands of events; a limit below
    // their cost stops the run at a report, with the rows counted so far
    let sc = lossy_dumbbell(0.02);
    let full = ccsim_core::run(&sc).unwrap();
    let events = full.table("events").unwrap().columns[0].1.len() as u64;
    let series = full.table("flow_series").unwrap().columns[0].1.len() as u64;
    assert!(events > 100, "{events}");
    // the same run under a limit it never reaches is unchanged
    let ctl = ccsim_core::RunControl::new();
    ctl.set_memory_limit(u64::MAX);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run_controlled(&ctl).unwrap();
    assert_eq!(sim.output().events, full.events);
    // a limit of a quarter of what the finished run's events and series take
    let limit = ccsim_core::output::memory_bytes(&[("events", events), ("flow_series", series)]) / 4;
    let ctl = ccsim_core::RunControl::new();
    ctl.set_memory_limit(limit);
    let mut sim = Simulation::new(&sc).unwrap();
    let Err(ccsim_core::Stopped::Memory(m)) = sim.run_controlled(&ctl) else { panic!("not stopped for memory") };
    assert!(m.bytes > limit && m.limit == limit);
    assert!(m.sim_time_s < 1e-12 * sc.duration_ps as f64);
    let got = |t: &str| m.rows.iter().find(|r| r.0 == t).unwrap().1;
    assert!(got("events") <= events && got("flow_series") <= series);
    assert_eq!(ccsim_core::output::memory_bytes(&m.rows), m.bytes);
}

/// A lossy run with every per-packet trace and a capture on: it makes every
/// table the core can write.
fn every_table() -> ccsim_core::SimOutput {
    let mut sc = lossy_dumbbell(0.02);
    sc.trace.rtt = true;
    sc.trace.seq = true;
    sc.trace.cc = true;
    sc.capture_links = vec![0];
    ccsim_core::run(&sc).unwrap()
}

#[test]
fn growing_tables_have_these_shapes() {
    // GROWING_TABLES prices a row by its numeric and string columns: each
    // must match the table the core writes
    let out = every_table();
    for &(name, num, strs, _) in ccsim_core::output::GROWING_TABLES {
        if name == "packets_held" {
            continue;
        }
        let t = out.table(name).unwrap_or_else(|| panic!("no table {name}"));
        let s = t.columns.iter().filter(|(_, c)| matches!(c, ccsim_core::Column::Str(_))).count() as u64;
        assert_eq!((t.columns.len() as u64 - s, s), (num, strs), "{name}");
    }
}

#[test]
fn every_result_table_is_named_once() {
    // output::RESULT_TABLES is what Python lists and queries: a run with
    // every trace and a capture on makes exactly those tables and the capture
    let out = every_table();
    let mut made: Vec<&str> = out.tables.iter().map(|t| t.name.as_str()).filter(|n| *n != "capture").collect();
    let mut named = ccsim_core::output::RESULT_TABLES.to_vec();
    made.sort_unstable();
    named.sort_unstable();
    assert_eq!(made, named);
    assert!(out.table("capture").is_some());
}

#[test]
fn unreachable_destination_is_an_error_not_a_panic() {
    let mut sc = dumbbell(1, 10_000_000, 100_000_000, 1, tcp_defaults("newreno"));
    sc.nodes.push("island".into());
    sc.flows[0].dst = (sc.nodes.len() - 1) as u32;
    let e = Simulation::new(&sc).err().expect("must fail");
    assert!(e.0.contains("no forward path"), "{}", e.0);
}

#[test]
fn bad_values_are_reported_with_their_field() {
    let mut sc = dumbbell(1, 10_000_000, 100_000_000, 1, tcp_defaults("cubic-typo"));
    let e = sc.validate().unwrap_err();
    assert!(e.0.starts_with("flows[0].tcp.cc"), "{}", e.0);
    sc.flows[0].tcp = tcp_defaults("newreno").into();
    sc.links[3].rate_bps = 0;
    assert!(sc.validate().unwrap_err().0.contains("rate_bps"));
}

#[test]
fn every_sent_data_packet_is_offered_to_its_access_link() {
    // Every data packet a sender emits is offered to its first link; the sum
    // over the senders' access links equals the senders' own count (ACKs
    // travel the other way, on the ".rev" directions).
    let sc = dumbbell(3, 50_000_000, 1_000_000_000, 5, tcp_defaults("reno"));
    let out = ccsim_core::run(&sc).unwrap();
    let flows = out.table("flows").unwrap();
    let links = out.table("links").unwrap();
    let sent: u64 = u64s(flows.get("data_pkts_sent")).iter().sum();
    let names = match links.get("name") {
        Some(Column::Str(v)) => v.to_vec(),
        _ => unreachable!(),
    };
    let offered = u64s(links.get("pkts_offered"));
    let access_up: u64 = names
        .iter()
        .zip(offered.iter())
        .filter(|(n, _)| n.starts_with("access_s") && n.ends_with(".fwd"))
        .map(|(_, &o)| o)
        .sum();
    assert!(sent > 1000);
    assert_eq!(sent, access_up);
}

/// Every loss-recovery mode with every sender option, on a lossy dumbbell
/// with a small buffer: packets are conserved, scoreboards stay consistent
/// (no counter underflow: overflow checks are on in debug test builds) and
/// a second run with the same seed is identical.
#[test]
fn mechanics_combinations_conserve_packets_and_repeat() {
    use ccsim_core::config::{PacingCfg, QueueCfg, SackCfg};
    let mut combos = Vec::new();
    for sack in [SackCfg::Off, SackCfg::Rfc6675, SackCfg::Sack1] {
        for (prr, lt, ts, ecn, pacing) in [
            (false, false, false, false, PacingCfg::Off),
            (true, true, true, true, PacingCfg::Linux),
            (false, true, false, true, PacingCfg::Window),
        ] {
            // RACK, TLP, D-SACK, undo and F-RTO (all on or all off) need the
            // RFC 6675 scoreboard.
            for linux in [false, true] {
                if linux && sack != SackCfg::Rfc6675 {
                    continue;
                }
                combos.push((sack, prr && sack == SackCfg::Rfc6675, lt, ts, ecn, pacing, linux));
            }
        }
    }
    for (sack, prr, lt, ts, ecn, pacing, linux) in combos {
        let mut t = tcp_defaults("newreno");
        (t.sack, t.prr, t.limited_transmit, t.timestamps, t.ecn, t.pacing) = (sack, prr, lt, ts, ecn, pacing);
        (t.dsack, t.rack, t.tlp, t.undo, t.frto) = (linux, linux, linux, linux, linux);
        let mut sc = dumbbell(4, 20_000_000, 100_000_000, 5, t);
        sc.links[0].loss = LossCfg::Bernoulli(ccsim_core::loss::BernoulliCfg { p: 0.02 });
        sc.links[1].loss = LossCfg::Bernoulli(ccsim_core::loss::BernoulliCfg { p: 0.01 }); // ACK losses too
        sc.links[0].queue =
            QueueCfg::Droptail(ccsim_core::queue::DropTailCfg { limit_pkts: Some(8), limit_bytes: None });
        let mut sim = Simulation::new(&sc).unwrap();
        sim.run();
        let (inj, arr, drp, held) = counts(&sim);
        assert_eq!(inj, arr + drp + held, "{sack:?} prr {prr} lt {lt} ts {ts} ecn {ecn} {pacing:?} rack-tlp {linux}");
        for f in &sim.flows {
            assert!(f.c.delivered_bytes() > 100_000, "{sack:?}: flow {} starved", f.c.id);
            assert!(f.c.pipe() as u64 <= f.c.snd_max - f.c.snd_una);
        }
        let a = sim.output();
        let b = ccsim_core::run(&sc).unwrap();
        assert_eq!(format!("{:?}", a.table("flows")), format!("{:?}", b.table("flows")));
    }
}

#[test]
fn a_checked_scenario_is_validated_once_and_builds_the_same_simulation() {
    // Scenario::checked refuses what validate refuses, naming the field
    let mut bad = dumbbell(1, 10_000_000, 100_000_000, 1, tcp_defaults("newreno"));
    bad.links[3].rate_bps = 0;
    assert!(bad.clone().checked().err().expect("refused").0.contains("rate_bps"));
    // and a checked scenario runs as Simulation::new runs it
    let sc = lossy_dumbbell(0.02);
    let mut a = Simulation::from_checked(sc.clone().checked().unwrap()).unwrap();
    a.run();
    assert_eq!(a.output().events, ccsim_core::run(&sc).unwrap().events);
}
