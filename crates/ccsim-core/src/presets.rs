//! Reference scenarios built directly in Rust, for the criterion benchmark
//! and the core's integration tests. Users build scenarios in Python
//! (`ccsim.scenario`); this mirrors its `dumbbell` builder for the one shape
//! the benchmarks need.

use crate::config::{AppCfg, FlowCfg, LinkCfg, LossCfg, QueueCfg, Scenario, TcpCfg, TraceCfg};
use crate::units::{PS_PER_MS, PS_PER_S};

pub fn tcp_defaults(cc: &str) -> TcpCfg {
    TcpCfg::for_stack(crate::config::Stack::default(), cc)
}

/// Bytes of a full-sized data packet of a resolved TCP configuration given
/// as JSON (`TcpCfg::packet_bytes`), for Python's buffer checks.
pub fn packet_bytes_json(tcp_json: &str) -> Result<u64, String> {
    let t: TcpCfg = serde_json::from_str(tcp_json).map_err(|e| e.to_string())?;
    Ok(t.packet_bytes())
}

/// Every TCP option as `stack` sets it for algorithm `cc`, as JSON
/// (exported to Python).
pub fn tcp_defaults_json(stack: &str, cc: &str) -> Result<String, String> {
    let s: crate::config::Stack =
        serde_json::from_value(serde_json::Value::String(stack.to_string())).map_err(|_| {
            // the accepted names as the option schema lists them (one list: `config::schema::TCP`)
            let names = crate::config::schema::TCP
                .iter()
                .find(|o| o.name == "stack")
                .and_then(|o| match o.kind {
                    crate::config::schema::Kind::Choice(c) => Some(c.join(", ")),
                    _ => None,
                })
                .unwrap_or_default();
            format!("unknown stack {stack:?}; accepted: {names}")
        })?;
    Ok(serde_json::to_string(&TcpCfg::for_stack(s, cc)).expect("TcpCfg serializes"))
}

/// Default option values of every queue discipline and loss model, as JSON
/// `{"queue": {kind: {option: value}}, "loss": {kind: {option: value}}}`:
/// what the core fills in when a scenario leaves an option out (serde
/// defaults in config/net.rs, the one place they are written). Exported to
/// Python for its documentation and `ccsim list`.
pub fn net_defaults_json() -> String {
    fn fill<T: serde::de::DeserializeOwned + serde::Serialize>(minimal: serde_json::Value) -> serde_json::Value {
        let cfg: T = serde_json::from_value(minimal.clone()).expect("minimal configuration deserializes");
        let mut full = serde_json::to_value(cfg).expect("configuration serializes");
        let (Some(full_map), Some(given)) = (full.as_object_mut(), minimal.as_object()) else {
            unreachable!("tagged enums are objects")
        };
        full_map.retain(|k, _| !given.contains_key(k));
        full
    }
    use crate::config::net_schema::{losses, queues};
    use serde_json::json;
    let mut queue = serde_json::Map::new();
    for q in &queues() {
        queue.insert(q.core.into(), fill::<QueueCfg>(json!({"kind": q.core, "limit_pkts": 1})));
    }
    // by the name a scenario writes; a value of each required option's type
    let mut loss = serde_json::Map::new();
    for l in &losses() {
        let mut minimal = json!({"kind": l.core});
        for o in l.opts.iter().filter(|o| l.required.contains(&o.name)) {
            minimal[o.core] = o.kind.typed_value();
        }
        loss.insert(l.name.into(), fill::<LossCfg>(minimal));
    }
    json!({
        "queue": queue,
        "loss": loss,
        "min_t_update_ps": crate::config::MIN_T_UPDATE_PS,
        "default_queue": crate::config::net_schema::DEFAULT_QUEUE,
    })
    .to_string()
}

/// The benchmark dumbbell of docs/performance.md: `n` bulk flows 10 ms apart,
/// access links `access_bps` / 1 ms, bottleneck `bneck_bps` / 18 ms
/// (40 ms base RTT), DropTail of one BDP in packets.
pub fn dumbbell(n: usize, bneck_bps: u64, access_bps: u64, duration_s: u64, tcp: TcpCfg) -> Scenario {
    let mut nodes = vec!["r0".to_string(), "r1".to_string()];
    let mut links = Vec::new();
    let pkt = (tcp.mss + tcp.header_bytes) as u64;
    let tcp = std::sync::Arc::new(tcp);
    let rtt_ps = 40 * PS_PER_MS;
    // round(rate · RTT / 8 / packet), as the Python builder sizes "1bdp"
    let bdp_pkts = ((bneck_bps as f64 * rtt_ps as f64 / 8.0 / PS_PER_S as f64) / pkt as f64).round() as u32;
    let access_bdp = ((access_bps as f64 * rtt_ps as f64 / 8.0 / PS_PER_S as f64) / pkt as f64).round() as u32;
    let mut link = |name: String, a: u32, b: u32, rate: u64, delay: u64, lim: u32| {
        for (x, y, suffix) in [(a, b, "fwd"), (b, a, "rev")] {
            links.push(LinkCfg {
                name: format!("{name}.{suffix}"),
                from: x,
                to: y,
                rate_bps: rate,
                delay_ps: delay,
                queue: QueueCfg::Droptail(crate::queue::DropTailCfg { limit_pkts: Some(lim), limit_bytes: None }),
                loss: LossCfg::default(),
                reorder: Default::default(),
                varying: None,
                shaper: None,
            });
        }
    };
    link("bottleneck".into(), 0, 1, bneck_bps, 18 * PS_PER_MS, bdp_pkts);
    let mut flows = Vec::new();
    for i in 0..n {
        nodes.push(format!("s{i}"));
        let s = (nodes.len() - 1) as u32;
        nodes.push(format!("d{i}"));
        let d = (nodes.len() - 1) as u32;
        link(format!("access_s{i}"), s, 0, access_bps, PS_PER_MS, access_bdp);
        link(format!("access_d{i}"), 1, d, access_bps, PS_PER_MS, access_bdp);
        flows.push(FlowCfg {
            src: s,
            dst: d,
            start_ps: i as u64 * 10 * PS_PER_MS,
            app: AppCfg::Bulk,
            tcp: tcp.clone(),
            label: String::new(),
        });
    }
    Scenario {
        duration_ps: duration_s * PS_PER_S,
        seed: 1,
        sample_interval_ps: None,
        sample_links: None,
        nodes,
        links,
        flows,
        udp: Vec::new(),
        trace: TraceCfg::default(),
        capture_links: Vec::new(),
        tcp_tables: Vec::new(),
    }
}

/// RED's parameters on a link as the queue runs them, ns-2's automatic
/// values filled in (`RedParams::from_cfg`), as JSON; an error for a link
/// whose queue is not RED.
pub fn red_params_json(link_json: &str) -> Result<String, String> {
    let l: crate::config::LinkCfg = serde_json::from_str(link_json).map_err(|e| format!("link: {e}"))?;
    let crate::config::QueueCfg::Red(cfg) = &l.queue else {
        return Err("link: its queue is not RED".into());
    };
    let p = crate::queue::red::RedParams::from_cfg(cfg, l.queue_facts());
    Ok(serde_json::json!({"min_th": p.min_th, "max_th": p.max_th, "max_p": p.max_p, "w_q": p.w_q}).to_string())
}

#[cfg(test)]
mod stack_tests {
    #[test]
    fn an_unknown_stack_lists_every_stack() {
        let e = super::tcp_defaults_json("nope", "newreno").unwrap_err();
        assert!(e.ends_with("accepted: linux, ns2, ns2-2.27"), "{e}");
        for s in ["linux", "ns2", "ns2-2.27"] {
            assert!(super::tcp_defaults_json(s, "newreno").is_ok(), "{s}");
        }
    }
}
