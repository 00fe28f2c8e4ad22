//! A queue discipline made only for the registry's test: it drops every
//! n-th packet offered to it and tail-drops the rest as DropTail does. The
//! whole kind is this file and one line of the registry (`queues!` in
//! queue/mod.rs, under `#[cfg(test)]`): its options, defaults, schema row,
//! scenario name, buffer and builder are all declared here, and the tests
//! below reach it through the configuration, the schema, the rules and a
//! whole run, as a scenario's `queue = {kind = "every_nth", n = 3}` would.

use super::{Discipline, DropTail, LinkFacts, QueueDisc, QueueKind, QueueState, Verdict};
use crate::opts::{options, Kind, Named, Opt};
use crate::packet::Packet;
use crate::rng::Stream;
use crate::units::SimTime;

options! {
    /// Drop every n-th packet offered; tail drop at the buffer otherwise.
    pub struct EveryNthCfg, rows OPTS {
        limit_pkts: Option<u32> = None,
        n: u64 = 2 => ("n", Kind::Int { lo: 2, hi: u64::MAX }, "packets", "drop every n-th packet offered"),
    }
}

impl QueueKind for EveryNthCfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    const NAMES: &'static [Named] =
        &[Named { name: "every_nth", fixed: &[], doc: "test: drop every n-th packet offered" }];
    fn buffer(&self) -> (Option<u32>, Option<u64>) {
        (self.limit_pkts, None)
    }
    fn build(&self, _: LinkFacts, _: &mut dyn FnMut() -> Stream) -> Discipline {
        let tail = DropTail { limit_pkts: self.limit_pkts, limit_bytes: None };
        Discipline::Enqueue(Box::new(EveryNth { n: self.n, offered: 0, tail }))
    }
}

struct EveryNth {
    n: u64,
    offered: u64,
    tail: DropTail,
}

impl QueueDisc for EveryNth {
    fn name(&self) -> &'static str {
        "every_nth"
    }
    fn admit(&mut self, now: SimTime, q: QueueState, pkt: &Packet) -> Verdict {
        self.offered += 1;
        if self.offered.is_multiple_of(self.n) {
            Verdict::Drop
        } else {
            self.tail.admit(now, q, pkt)
        }
    }
    fn limit_pkts(&self) -> Option<u32> {
        self.tail.limit_pkts
    }
    fn limit_bytes(&self) -> Option<u64> {
        None
    }
}

#[cfg(test)]
mod tests {
    use crate::config::net_schema::{check_queue_json, queue_json};
    use crate::config::{QueueCfg, Stack, TcpCfg};
    use crate::record::Column;
    use serde_json::{json, Value};

    #[test]
    fn one_file_and_one_registry_line_make_a_queue_kind() {
        // the schema Python resolves and documents from lists it, with its option
        let kinds: Value = serde_json::from_str(&queue_json()).unwrap();
        let k = kinds.as_array().unwrap().iter().find(|k| k["name"] == "every_nth").expect("listed");
        assert_eq!(k["options"][0]["name"], "n");
        assert_eq!(k["bytes_limit"], false, "no limit_bytes field: a byte buffer is refused");
        assert_eq!(k["default_buffer"], "1bdp");
        // its bounds and the rules name the option as written
        let broken = |v: Value| check_queue_json(&v.to_string()).unwrap().map(|b| b.option);
        assert_eq!(broken(json!({"kind": "every_nth", "n": 3})), None);
        assert_eq!(broken(json!({"kind": "every_nth", "n": 1})), Some("n"));
        assert!(check_queue_json(&json!({"kind": "every_nth", "m": 3}).to_string()).is_err(), "unknown option");

        // a whole run: the bottleneck drops exactly every tenth packet offered
        let mut sc = crate::presets::dumbbell(1, 10_000_000, 100_000_000, 5, TcpCfg::for_stack(Stack::Linux, "cubic"));
        assert_eq!(sc.links[0].name, "bottleneck.fwd");
        let cfg: QueueCfg = serde_json::from_value(json!({"kind": "every_nth", "limit_pkts": 1000, "n": 10})).unwrap();
        sc.links[0].queue = cfg;
        let out = crate::run(&sc).expect("runs");
        let links = out.table("links").expect("a links table");
        let col = |name: &str| match &links.columns.iter().find(|(n, _)| n == name).expect(name).1 {
            Column::U64(v) => v[0],
            _ => panic!("{name} is not a count"),
        };
        let (offered, drops) = (col("pkts_offered"), col("drops"));
        assert!(offered > 200, "the flow sent through it: {offered}");
        assert_eq!(drops, offered / 10, "{drops} drops of {offered} offered");
    }
}
