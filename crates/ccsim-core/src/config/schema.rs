//! The scenario's option schema, owned by the core: every `[tcp]` option
//! with the name a scenario writes, the field of the resolved configuration
//! it fills, its kind (with bounds or accepted values), its unit and its
//! documentation line. The core validates against this table
//! (`TcpCfg::validate`), Python resolves and documents from it
//! (`ccsim._core.tcp_options()`, python/ccsim/scenario/tcp_options.py), and the
//! docs' table is checked against it, so no bound, list of values or doc
//! line is written twice. Defaults per stack are `TcpCfg::for_stack`.
//!
//! Rules between options (at most 3 SACK blocks with timestamps, the
//! scoreboard options only with RFC 6675, no SACK for Tahoe, max_rto ≥
//! min_rto, a window of at least one segment) are `tcp_rules`, also here,
//! and Python asks the core to apply them (`_core.check_tcp`).

use super::tcp::{SackCfg, Stack, TcpCfg, DEFAULT_CC, MAX_INITIAL_WINDOW, MAX_TSO_SEGS, SCOREBOARD_OPTIONS};
pub(crate) use crate::opts::check_kinds;
pub use crate::opts::{Broken, Kind, Opt};
use serde_json::{json, Value};

/// The shortest RTO bound a scenario may give (min_rto, initial_rto,
/// max_rto): 1 µs, the unit of Linux's `net.ipv4.tcp_rto_min_us` and of the
/// RTT estimator (`tcp_rtt_estimator` works in µs). A retransmission timer
/// of picoseconds fires a million times more often than any packet can
/// leave, so a lost segment would turn a run into an endless storm of
/// timeouts.
pub const RTO_FLOOR_PS: u64 = 1_000_000;
const RTO_FLOOR: Kind = Kind::TimeFloor {
    min_ps: RTO_FLOOR_PS,
    accepted: "a time ≥ 1us (RTO bounds are counted in µs, as Linux's tcp_rto_min_us)",
};

/// Every `[tcp]` option, in documentation order.
#[rustfmt::skip]
pub const TCP: &[Opt] = {
    use Kind::*;
    &[
    Opt { name: "stack", core: "stack", kind: Choice(&["linux", "ns2", "ns2-2.27"]), unit: "", doc: "whose TCP the defaults imitate: 'linux' (Linux 6.x), 'ns2' (ns-2.35) or 'ns2-2.27' (ns-2.27, 2004); options set explicitly override it (docs/scenario.md)" },
    Opt { name: "cc", core: "cc", kind: Algorithm, unit: "", doc: "congestion control: one of the core's algorithms ('ccsim list cc' prints each with its source, parameters and presets)" },
    Opt { name: "cc_preset", core: "cc_preset", kind: Preset, unit: "", doc: "named parameter set of the algorithm, e.g. 'paper' ('ccsim list cc'); none = defaults" },
    Opt { name: "cc_params", core: "cc_params", kind: Params, unit: "", doc: "table of algorithm parameters over the preset, e.g. {low_window = 31} ('ccsim list cc')" },
    Opt { name: "mss", core: "mss", kind: Int { lo: 1, hi: 65_495 }, unit: "bytes", doc: "maximum segment size, payload bytes" },
    Opt { name: "header_bytes", core: "header_bytes", kind: Int { lo: 0, hi: 1_000 }, unit: "bytes", doc: "TCP/IP header bytes on every packet without options; timestamps add ts_option_bytes, SACK blocks 4 + 8 per block" },
    Opt { name: "initial_window", core: "initial_window", kind: Int { lo: 1, hi: MAX_INITIAL_WINDOW as u64 }, unit: "segments", doc: "initial cwnd, segments (RFC 6928 / Linux: 10)" },
    Opt { name: "initial_ssthresh", core: "initial_ssthresh", kind: IntOrInf { lo: 2, hi: u32::MAX as u64 - 1 }, unit: "segments", doc: "initial ssthresh, segments, or 'inf' (RFC 5681: arbitrarily high)" },
    Opt { name: "rto", core: "rto", kind: Choice(&["linux", "rfc6298", "ns2"]), unit: "", doc: "RTO model: 'linux' (RTO = SRTT + rttvar, rttvar ≥ min_rto), 'rfc6298' (max(min_rto, SRTT + max(G, 4·RTTVAR))), 'ns2' (tick-counted, one timed segment per RTT)" },
    Opt { name: "min_rto", core: "min_rto_ps", kind: RTO_FLOOR, unit: "time", doc: "lower bound on the RTO (rfc6298: on the RTO; linux: on rttvar, so RTO ≥ SRTT + min_rto; ns2: minrto_, before back-off)" },
    Opt { name: "initial_rto", core: "initial_rto_ps", kind: RTO_FLOOR, unit: "time", doc: "RTO before the first RTT sample (RFC 6298: 1s)" },
    Opt { name: "max_rto", core: "max_rto_ps", kind: RTO_FLOOR, unit: "time", doc: "upper bound on the RTO, back-off included (RFC 6298: at least 60s)" },
    Opt { name: "clock_granularity", core: "clock_granularity_ps", kind: Time { min_ps: 0 }, unit: "time", doc: "rfc6298: G in SRTT + max(G, 4·RTTVAR); linux: the jiffy the RTO is rounded up to; ns2: tcpTick_" },
    Opt { name: "max_cwnd", core: "max_cwnd", kind: IntOrNone { lo: 1, hi: u32::MAX as u64 }, unit: "segments", doc: "cap on cwnd in segments (Linux snd_cwnd_clamp); none = no cap" },
    Opt { name: "rwnd", core: "rwnd_bytes", kind: Window, unit: "bytes", doc: "receiver's advertised window: a size ('64KB') or '<n>pkt'; none = unlimited" },
    Opt { name: "rcv_autotune", core: "rcv_autotune", kind: Bool, unit: "", doc: "the receiver's window opens as Linux's: 64 KB in the SYN-ACK (tcp_select_initial_window), raised by 2 MSS per segment with a quick ACK each time (tcp_grow_window) up to a clamp that receive-buffer autotuning sets to twice what the application read in the last RTT (tcp_rcv_space_adjust); within rwnd when set" },
    Opt { name: "delayed_ack", core: "delayed_ack", kind: Bool, unit: "", doc: "ACK every delack_count segments or after delack_timeout (RFC 5681 §4.2)" },
    Opt { name: "delack_timeout", core: "delack_timeout_ps", kind: Time { min_ps: 1 }, unit: "time", doc: "delayed-ACK timer" },
    Opt { name: "delack_count", core: "delack_count", kind: Int { lo: 1, hi: 1_000 }, unit: "segments", doc: "full-sized segments per delayed ACK" },
    Opt { name: "handshake", core: "handshake", kind: Bool, unit: "", doc: "open with SYN / SYN-ACK (one RTT) before data" },
    Opt { name: "dupthresh", core: "dupthresh", kind: Int { lo: 1, hi: 1_000 }, unit: "ACKs", doc: "duplicate ACKs that trigger fast retransmit (RFC 5681: 3)" },
    Opt { name: "fast_retransmit_first", core: "fast_retransmit_first", kind: Bool, unit: "", doc: "a loss of the first data segment may be repaired by fast retransmit; false: only by the RTO (ns-2.27 dupack_action, before bugfix_ss_)" },
    Opt { name: "ack_hooks_first", core: "ack_hooks_first", kind: Bool, unit: "", doc: "the algorithm's pkts_acked and in_ack_event see an ACK before it may start a reduction, so DCTCP's alpha is updated before the cut it computes (Linux 6.14+ tcp_ack); false: after the reduction (the ns-2 stacks)" },
    Opt { name: "sack1_stop_at_end", core: "sack1_stop_at_end", kind: Bool, unit: "", doc: "sack = 'sack1' only: once the application's data has all been sent, recovery retransmits no more holes and only the RTO repairs them (ns-2.27 Sack1TcpAgent::send_much); false: holes are repaired in recovery (ns-2.35)" },
    Opt { name: "dupthresh_frac", core: "dupthresh_frac", kind: Int { lo: 0, hi: 1_000_000 }, unit: "segments", doc: "with sack = 'sack1', the threshold is max(dupthresh, cwnd / dupthresh_frac); with limited_transmit (any recovery), one new segment per duplicate ACK below the threshold (ns-2 send_one) rather than RFC 3042's first two, which differs only where the threshold exceeds 3; 0 = off (ns-2 numdupacksFrac_: 100 in ns-2.27, off in 2.35)" },
    Opt { name: "abc_limit", core: "abc_limit", kind: Int { lo: 0, hi: u32::MAX as u64 }, unit: "segments", doc: "most segments one ACK may add to cwnd in slow start (RFC 3465 L; RFC 5681: 1); 0 = no limit (Linux)" },
    Opt { name: "sack", core: "sack", kind: Choice(&["off", "rfc6675", "sack1"]), unit: "", doc: "SACK recovery: 'off' (recovery by cc name), 'rfc6675' (RFC 6675 scoreboard), 'sack1' (ns-2 Agent/TCP/Sack1)" },
    Opt { name: "receiver_sack", core: "receiver_sack", kind: Bool, unit: "", doc: "the receiver sends SACK blocks when sack is on; false: a sink without SACK (ns-2's plain TCPSink behind a Sack1 sender; a Linux sender would negotiate SACK off instead: set sack = 'off')" },
    Opt { name: "sack_blocks", core: "sack_blocks", kind: Int { lo: 1, hi: 4 }, unit: "blocks", doc: "most SACK blocks per ACK (RFC 2018: 4, or 3 with timestamps; ns-2: 3)" },
    Opt { name: "growth_per", core: "growth_per", kind: Choice(&["segment", "ack"]), unit: "", doc: "what one ACK credits to window growth: 'segment' (the segments it delivered; Linux, RFC 3465) or 'ack' (one, however many it covers; ns-2, so delayed ACKs halve the growth)" },
    Opt { name: "ssthresh_base", core: "ssthresh_base", kind: Choice(&["cwnd", "flight"]), unit: "", doc: "what a loss-based reduction of the Reno family halves: 'cwnd' (Linux tcp_reno_ssthresh, ns-2 slowdown) or 'flight' (RFC 5681 eq. 4: FlightSize)" },
    Opt { name: "rto_ssthresh", core: "rto_ssthresh", kind: Choice(&["linux", "ns2"]), unit: "", doc: "whether an RTO recomputes ssthresh: 'linux' (not inside a recovery or ECN reduction, nor on a backed-off expiry; tcp_enter_loss) or 'ns2' (on every expiry, fast recovery included; TcpAgent::timeout)" },
    Opt { name: "cwnd_limited_gate", core: "cwnd_limited_gate", kind: Bool, unit: "", doc: "grow the window only while the flow uses it (Linux tcp_is_cwnd_limited); false: on every new ACK (ns-2)" },
    Opt { name: "limited_transmit", core: "limited_transmit", kind: Bool, unit: "", doc: "RFC 3042: one new segment on each of the first two duplicate ACKs" },
    Opt { name: "impatient", core: "impatient", kind: Bool, unit: "", doc: "NewReno restarts the RTO timer only on the first partial ACK (RFC 6582 §4 Impatient; ns-2); false: on every partial ACK (Slow-but-Steady; Linux)" },
    Opt { name: "prr", core: "prr", kind: Bool, unit: "", doc: "RFC 6937 proportional rate reduction in recovery (needs sack = 'rfc6675')" },
    Opt { name: "timestamps", core: "timestamps", kind: Bool, unit: "", doc: "RFC 7323 timestamps: an RTT sample from every ACK, ts_option_bytes on every packet" },
    Opt { name: "ts_option_bytes", core: "ts_option_bytes", kind: Int { lo: 10, hi: 12 }, unit: "bytes", doc: "bytes the timestamp option adds to every packet when timestamps are on: 12 (RFC 7323's 10 padded with two NOPs, as Linux sends it) or 10 (ns-2 ts_option_size_)" },
    Opt { name: "ecn", core: "ecn", kind: Bool, unit: "", doc: "ECN negotiated: data is ECN-capable, the sender reduces once per window on ECE (RFC 3168); on by default for algorithms that need it (dctcp, prague)" },
    Opt { name: "ecn_response", core: "ecn_response", kind: Choice(&["linux", "ns2"]), unit: "", doc: "the sender's answer to ECN-Echo: 'linux' (cwnd to the algorithm's ssthresh, at least 1, once per window; tcp_enter_cwr) or 'ns2' (TcpAgent::ecn: cwnd = ⌊cwnd/2⌋, so 0 at a window of 1 until the retransmission timer expires; also inside a timeout's window; no ACK carrying ECE opens the window; a second ECN at cwnd ≤ 1 backs the timer off)" },
    Opt { name: "ecn_codepoint", core: "ecn_codepoint", kind: Choice(&["ect0", "ect1"]), unit: "", doc: "codepoint of ECN-capable data: 'ect0' (classic, RFC 3168) or 'ect1' (L4S, RFC 9331)" },
    Opt { name: "ecn_feedback", core: "ecn_feedback", kind: Choice(&["classic", "dctcp", "accecn"]), unit: "", doc: "receiver's ECN feedback: 'classic' (ECE from a CE until CWR, RFC 3168 §6.1.3), 'dctcp' (ECE follows each segment's CE state, ACK at once when it changes; RFC 8257 §3.2; dctcp's default) or 'accecn' (every ACK carries the count of CE-marked segments, RFC 9768; prague's default)" },
    Opt { name: "pacing", core: "pacing", kind: Choice(&["off", "linux", "window"]), unit: "", doc: "'off', 'linux' (rate = ratio·mss·max(cwnd, in flight)/srtt), 'window' (one segment per srtt/cwnd, ns-2 studies)" },
    Opt { name: "pacing_ss_ratio", core: "pacing_ss_ratio", kind: Ratio { max: 100.0 }, unit: "", doc: "Linux pacing ratio while cwnd < ssthresh/2 (tcp_pacing_ss_ratio 200%)" },
    Opt { name: "pacing_ca_ratio", core: "pacing_ca_ratio", kind: Ratio { max: 100.0 }, unit: "", doc: "Linux pacing ratio otherwise (tcp_pacing_ca_ratio 120%)" },
    Opt { name: "tso", core: "tso", kind: Bool, unit: "", doc: "Linux TSO/GSO autosizing: a Linux-paced flow sends max(min_tso_segs, rate·1 ms/mss) segments per release, ≤ 64 KB (false: one, as ns-3)" },
    Opt { name: "min_tso_segs", core: "min_tso_segs", kind: Int { lo: 1, hi: MAX_TSO_SEGS as u64 }, unit: "segments", doc: "fewest segments per paced release (sysctl tcp_min_tso_segs 2; BBR decides its own: 1 below 1.2 Mb/s, else 2)" },
    Opt { name: "quickack", core: "quickack", kind: Int { lo: 0, hi: u32::MAX as u64 }, unit: "segments", doc: "quick-ACK quota: the receiver ACKs each of the first n data segments at once (Linux: 16, TCP_MAX_QUICKACKS, and at most rwnd/(2·mss); re-armed after an idle gap longer than the RTO with delack_timer = 'linux')" },
    Opt { name: "delack_timer", core: "delack_timer", kind: Choice(&["linux", "fixed"]), unit: "", doc: "'linux' (adaptive ato from 40 ms up to delack_timeout, bounded by max(RTT, 40 ms); short segments ACKed at once; quick-ACK re-armed after idle; tcp_event_data_recv / tcp_send_delayed_ack) or 'fixed' (delack_timeout; ns-2 DelAckSink)" },
    Opt { name: "dsack", core: "dsack", kind: Bool, unit: "", doc: "RFC 2883 D-SACK: the receiver reports a duplicate segment in the first SACK block; the sender uses it for undo and RACK's reordering window (needs sack = 'rfc6675')" },
    Opt { name: "rack", core: "rack", kind: Bool, unit: "", doc: "RFC 8985 RACK: a segment sent before one already delivered is lost once RTT + reordering window (min_rtt/4, grown by D-SACKs) have passed; with DupThresh as Linux tcp_recovery = 1 (needs sack = 'rfc6675')" },
    Opt { name: "tlp", core: "tlp", kind: Bool, unit: "", doc: "RFC 8985 §7 tail loss probe: after 2·SRTT (+ min_rto with one segment out) without an ACK, send new data or the last segment (needs sack = 'rfc6675')" },
    Opt { name: "undo", core: "undo", kind: Bool, unit: "", doc: "undo a window reduction that D-SACKs or timestamps prove spurious (Linux tcp_try_undo_*) through the algorithm's undo_cwnd (needs sack = 'rfc6675')" },
    Opt { name: "frto", core: "frto", kind: Bool, unit: "", doc: "RFC 5682 F-RTO, SACK-enhanced as Linux: an RTO followed by ACKs of never-retransmitted data is spurious and undone (needs sack = 'rfc6675')" },
    Opt { name: "idle_restart", core: "idle_restart", kind: Bool, unit: "", doc: "restart the window after an idle period longer than the RTO when the application writes again (RFC 2861, Linux tcp_slow_start_after_idle)" },
    ]
};

/// The TCP option table as JSON (`_core.tcp_options()`).
pub fn tcp_json() -> String {
    let rows: Vec<Value> = TCP
        .iter()
        .map(|o| {
            let mut row = o.to_json();
            row["needs_scoreboard"] = json!(SCOREBOARD_OPTIONS.contains(&o.name));
            // the two options whose default is not a stack's value: what a
            // flow that names neither runs
            match o.name {
                "stack" => row["default"] = serde_json::to_value(Stack::default()).expect("a stack serializes"),
                "cc" => row["default"] = json!(DEFAULT_CC),
                _ => {}
            }
            row
        })
        .collect();
    Value::Array(rows).to_string()
}

/// The rules between options.
pub fn tcp_rules(t: &TcpCfg) -> Result<(), Broken> {
    check_kinds(TCP, &serde_json::to_value(t).expect("TcpCfg serializes"))?;
    if let Some(r) = t.rwnd_bytes {
        if r < t.mss as u64 {
            return Err(Broken {
                option: "rwnd",
                got: format!("{r} bytes"),
                expected: format!("a window of at least one segment ({} bytes)", t.mss),
            });
        }
    }
    if t.timestamps && t.sack_blocks > 3 {
        return Err(Broken {
            option: "sack_blocks",
            got: t.sack_blocks.to_string(),
            expected: "at most 3 SACK blocks with timestamps (40 option bytes)".into(),
        });
    }
    let on = [t.prr, t.dsack, t.rack, t.tlp, t.undo, t.frto];
    for (k, on) in SCOREBOARD_OPTIONS.iter().zip(on) {
        if on && t.sack != SackCfg::Rfc6675 {
            return Err(Broken {
                option: k,
                got: "true".into(),
                expected: format!("{k} = true only with sack = 'rfc6675' (it works on the SACK scoreboard)"),
            });
        }
    }
    if t.sack != SackCfg::Off && t.recovery_flavour() == crate::cc::params::RecoveryFlavour::Tahoe {
        return Err(Broken {
            option: "sack",
            got: format!("{:?}", serde_json::to_value(t.sack).expect("serializes").as_str().unwrap_or("?")),
            expected: format!("sack = 'off' with {} (Tahoe recovery has no fast recovery)", t.cc),
        });
    }
    if let Some(need) = crate::cc::spec(&t.cc).and_then(|s| s.ecn) {
        if !t.ecn {
            return Err(Broken {
                option: "ecn",
                got: "false".into(),
                expected: format!("ecn = true with cc = '{}' ({})", t.cc, need.without),
            });
        }
    }
    if uses_ecn_low(t) {
        // BBRv3 (bbr_can_use_ecn) reads CE marks only on a flow that
        // negotiated ECN, and counts them per delivered segment, which needs
        // the receiver's precise per-CE-change ACKs (or AccECN's count), not
        // RFC 3168's ECE-until-CWR.
        if !t.ecn {
            return Err(Broken {
                option: "ecn",
                got: "false".into(),
                expected: format!("ecn = true with cc = '{}' and cc_params.ecn_low = true", t.cc),
            });
        }
        if t.ecn_feedback == super::EcnFeedback::Classic {
            return Err(Broken {
                option: "ecn_feedback",
                got: "'classic'".into(),
                expected: "'dctcp' or 'accecn' with cc_params.ecn_low = true (RFC 3168's ECE-until-CWR marks \
                           every segment of a window as CE)"
                    .into(),
            });
        }
    }
    if t.max_rto_ps < t.min_rto_ps {
        return Err(Broken {
            option: "max_rto",
            got: format!("{} ps", t.max_rto_ps),
            expected: "a time ≥ min_rto".into(),
        });
    }
    Ok(())
}

/// The flow's algorithm takes an `ecn_low` parameter (BBRv3: the route marks
/// at a shallow threshold) and it is on.
fn uses_ecn_low(t: &TcpCfg) -> bool {
    let Some(spec) = crate::cc::spec(&t.cc) else { return false };
    if !spec.params.iter().any(|p| p.name == "ecn_low") {
        return false;
    }
    crate::cc::params::resolve(spec, t.cc_preset.as_deref(), &t.cc_params).is_ok_and(|p| p.flag("ecn_low"))
}

/// Apply `tcp_rules` to a resolved `[tcp]` configuration given as JSON
/// (`_core.check_tcp`): `Ok(None)` when it passes, `Ok(Some(broken))` when a
/// rule fails, `Err` when the JSON is not a TCP configuration.
pub fn check_tcp_json(json: &str) -> Result<Option<Broken>, String> {
    let mut de = serde_json::Deserializer::from_str(json);
    let t = super::tcp::deserialize_with_stack(&mut de).map_err(|e| e.to_string())?;
    Ok(tcp_rules(&t).err())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Stack;

    #[test]
    fn every_option_names_a_field_of_the_resolved_configuration() {
        let v = serde_json::to_value(TcpCfg::for_stack(Stack::Linux, "newreno")).unwrap();
        let fields: std::collections::BTreeSet<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let named: std::collections::BTreeSet<&str> = TCP.iter().map(|o| o.core).collect();
        assert_eq!(fields, named, "the table and TcpCfg list the same fields");
        assert_eq!(named.len(), TCP.len(), "no field twice");
    }

    #[test]
    fn each_choice_is_a_value_the_configuration_accepts() {
        for o in TCP {
            if let Kind::Choice(cs) = o.kind {
                for c in cs {
                    let mut v = serde_json::to_value(TcpCfg::for_stack(Stack::Linux, "newreno")).unwrap();
                    v[o.core] = Value::String(c.to_string());
                    // the scoreboard options follow sack; keep them legal
                    let r = check_tcp_json(&v.to_string());
                    assert!(r.is_ok(), "{}: {c} does not deserialize: {r:?}", o.name);
                }
            }
        }
    }

    #[test]
    fn bounds_and_rules_name_the_option_as_written() {
        let base = serde_json::to_value(TcpCfg::for_stack(Stack::Linux, "newreno")).unwrap();
        let broken = |k: &str, x: Value| {
            let mut v = base.clone();
            v[k] = x;
            check_tcp_json(&v.to_string()).unwrap().map(|b| b.option)
        };
        assert_eq!(broken("mss", json!(0)), Some("mss"));
        assert_eq!(broken("mss", json!(65_495)), None);
        assert_eq!(broken("initial_window", json!(MAX_INITIAL_WINDOW + 1)), Some("initial_window"));
        assert_eq!(broken("min_rto_ps", json!(0)), Some("min_rto"));
        // below 1 µs an RTO bound is refused (a timer storm), at 1 µs it is taken
        assert_eq!(broken("min_rto_ps", json!(RTO_FLOOR_PS - 1)), Some("min_rto"));
        assert_eq!(broken("min_rto_ps", json!(RTO_FLOOR_PS)), None);
        assert_eq!(broken("initial_rto_ps", json!(1)), Some("initial_rto"));
        assert_eq!(broken("clock_granularity_ps", json!(0)), None);
        assert_eq!(broken("pacing_ss_ratio", json!(0.0)), Some("pacing_ss_ratio"));
        assert_eq!(broken("sack_blocks", json!(4)), Some("sack_blocks"), "4 blocks with timestamps");
        assert_eq!(broken("rwnd_bytes", json!(100)), Some("rwnd"));
        assert_eq!(broken("max_rto_ps", json!(1)), Some("max_rto"));
        // prr = true written out, with sack off: refused under prr's name
        assert_eq!(broken("sack", json!("off")), Some("prr"));
    }
}
