//! Criterion benchmark of the reference dumbbell (docs/performance.md).
//! `cargo bench -p ccsim-core --bench dumbbell`. Shortened to 10 s of
//! simulated time per iteration so criterion can take enough samples; the
//! full reference figures come from `ccsim bench`.
use ccsim_core::presets::{dumbbell, tcp_defaults};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("dumbbell");
    g.sample_size(10);
    let with_sack = |cc: &str| {
        let mut t = tcp_defaults(cc);
        t.sack = ccsim_core::config::SackCfg::Rfc6675;
        t.timestamps = true;
        t
    };
    let sack_ts = with_sack("newreno");
    for (name, rate, tcp) in [
        ("100M_10flows_10s", 100_000_000u64, tcp_defaults("newreno")),
        ("1G_10flows_10s", 1_000_000_000, tcp_defaults("newreno")),
        ("100M_10flows_10s_sack_ts", 100_000_000, sack_ts.clone()),
        ("1G_10flows_10s_sack_ts", 1_000_000_000, sack_ts),
        ("100M_10flows_10s_cubic_sack_ts", 100_000_000, with_sack("cubic")),
        ("100M_10flows_10s_bbr_sack_ts", 100_000_000, with_sack("bbr")),
    ] {
        let sc = dumbbell(10, rate, 1_000_000_000, 10, tcp);
        let pkts = ccsim_core::run(&sc).unwrap().delivered_data_pkts;
        g.throughput(Throughput::Elements(pkts));
        g.bench_function(name, |b| b.iter(|| ccsim_core::run(&sc).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
