//! Every algorithm's `ack_hooks` declaration (cc/params.rs `AlgoSpec`)
//! against what its runs do: the `ack_hooks_first` TCP option moves the
//! algorithm's `pkts_acked` and `in_ack_event` before the loss or ECN
//! reduction an ACK starts (Linux 6.14+ `tcp_ack`). An algorithm declared
//! without those hooks must run bit for bit the same either way (so a
//! scenario that writes the option for it is rightly refused as having no
//! effect). One declared with them may still run the same: CUBIC's and
//! Vegas's hooks keep RTT samples that no reduction reads, and DCTCP's α
//! moves by less than a segment of the cut at these windows (the ordering
//! itself is checked in tcp/ecn_tests.rs).
use ccsim_core::cc::ALGORITHMS;
use ccsim_core::config::{LossCfg, QueueCfg, Scenario, Stack, TcpCfg};
use ccsim_core::presets::dumbbell;
use ccsim_core::Simulation;

/// Two flows of `cc` over a 20 Mb/s, 40 ms dumbbell for 8 s; the bottleneck
/// is RED that marks ECN-capable packets (5–15 packets) and loses 0.5 % of
/// packets at random, so both reductions happen many times.
fn scenario(cc: &str, hooks_first: bool) -> Scenario {
    let mut tcp = TcpCfg::for_stack(Stack::Linux, cc);
    tcp.ecn = true;
    tcp.ack_hooks_first = hooks_first;
    let mut sc = dumbbell(4, 100_000_000, 1_000_000_000, 20, tcp);
    sc.links[0].queue = serde_json::from_value::<QueueCfg>(serde_json::json!({
        "kind": "red", "limit_pkts": 400, "min_th": 30.0, "max_th": 90.0, "max_p": 0.1, "ecn": true, "gentle": true
    }))
    .expect("a RED queue");
    sc.links[0].loss = LossCfg::Bernoulli(ccsim_core::loss::BernoulliCfg { p: 0.0002 });
    sc
}

/// Per flow: bytes sent, retransmissions, ECN reductions, ACKs received and
/// the sum of RTT samples (any change of a window shows in these).
fn fingerprint(cc: &str, hooks_first: bool) -> Vec<(u64, u64, u64, u64, u128)> {
    let mut sim = Simulation::new(&scenario(cc, hooks_first)).expect("a valid scenario");
    sim.run();
    sim.flows
        .iter()
        .map(|f| {
            let s = &f.c.stats;
            (s.data_bytes_sent, s.retransmits, s.ecn_reductions, s.acks_received, s.rtt_sum_ps)
        })
        .collect()
}

#[test]
fn an_algorithm_declared_without_ack_hooks_runs_the_same_in_either_order() {
    let mut wrong = Vec::new();
    let mut differ = Vec::new();
    for spec in ALGORITHMS {
        let (first, after) = (fingerprint(spec.name, true), fingerprint(spec.name, false));
        let (bytes, retx, cuts) = first.iter().fold((0, 0, 0), |a, f| (a.0 + f.0, a.1 + f.1, a.2 + f.2));
        assert!(
            bytes > 50_000_000 && retx > 0 && cuts > 0,
            "{}: the run must load, lose and mark: {first:?}",
            spec.name
        );
        if first != after {
            differ.push(spec.name);
            if !spec.ack_hooks {
                wrong.push(spec.name);
            }
        }
    }
    assert!(wrong.is_empty(), "declared without ack hooks, yet ack_hooks_first changed their runs: {wrong:?}");
    // The scenario can show a difference where the hooks act on the
    // reduction: Westwood+ sets ssthresh from the bandwidth estimate its
    // hooks keep, so the order moves it.
    assert!(differ.contains(&"westwoodplus"), "the scenario shows no algorithm's hooks acting: {differ:?}");
}
