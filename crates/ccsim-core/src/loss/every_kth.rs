//! A loss model made only for the registry's test: it loses every k-th
//! packet sent. The whole model is this file and one line of the registry
//! (`losses!` in loss/mod.rs, under `#[cfg(test)]`): its option (one a
//! scenario must give), row, name, builder and process are declared here,
//! and the test below reaches it through the configuration, the schema, the
//! rules and a whole run, as `loss = {kind = "every_kth", k = 4}` would.

use super::{LossKind, LossProcess};
use crate::opts::{options, Kind, Named, Opt};
use crate::packet::Packet;
use crate::rng::Stream;
use crate::units::SimTime;

options! {
    /// Lose every k-th packet sent.
    pub struct EveryKthCfg, rows OPTS, required {
        k: u64 => ("k", Kind::Int { lo: 1, hi: u64::MAX }, "packets", "lose every k-th packet sent"),
    }
}

impl LossKind for EveryKthCfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    const REQUIRED: &'static [&'static str] = Self::REQUIRED;
    const NAME: Named = Named { name: "every_kth", fixed: &[], doc: "test: lose every k-th packet" };
    type Model = EveryKth;
    fn build(&self, _: &mut dyn FnMut() -> Stream) -> EveryKth {
        EveryKth { k: self.k, sent: 0 }
    }
}

pub struct EveryKth {
    k: u64,
    sent: u64,
}

impl LossProcess for EveryKth {
    fn apply(&mut self, _: SimTime, _: &mut Packet) -> bool {
        self.sent += 1;
        self.sent.is_multiple_of(self.k)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::net_schema::{check_loss_json, loss_json};
    use crate::config::{LossCfg, Stack, TcpCfg};
    use crate::record::Column;
    use serde_json::{json, Value};

    #[test]
    fn one_file_and_one_registry_line_make_a_loss_model() {
        let models: Value = serde_json::from_str(&loss_json()).unwrap();
        let m = models.as_array().unwrap().iter().find(|m| m["name"] == "every_kth").expect("listed");
        assert_eq!(m["options"][0]["name"], "k");
        assert_eq!(m["required"], json!(["k"]), "a field without a default must be given");
        let check = |v: Value| check_loss_json(&v.to_string()).map(|b| b.map(|b| b.option));
        assert_eq!(check(json!({"kind": "every_kth", "k": 4})), Ok(None));
        assert_eq!(check(json!({"kind": "every_kth", "k": 0})), Ok(Some("k")));
        let missing = check(json!({"kind": "every_kth"})).unwrap_err();
        assert!(missing.contains("missing field `k`"), "{missing}");
        let unknown = check(json!({"kind": "every_kth", "k": 4, "j": 1})).unwrap_err();
        assert!(unknown.contains("unknown field `j`"), "{unknown}");

        // a whole run: the bottleneck loses exactly every tenth packet it
        // sends. A lost packet is counted when it would have arrived, so the
        // flow is a 300-segment file that is complete long before the end.
        let mut sc = crate::presets::dumbbell(1, 10_000_000, 100_000_000, 30, TcpCfg::for_stack(Stack::Linux, "cubic"));
        assert_eq!(sc.links[0].name, "bottleneck.fwd");
        sc.flows[0].app = crate::config::AppCfg::File { bytes: 300 * 1448 };
        sc.links[0].loss = serde_json::from_value::<LossCfg>(json!({"kind": "every_kth", "k": 10})).unwrap();
        let out = crate::run(&sc).expect("runs");
        let links = out.table("links").expect("a links table");
        let col = |name: &str| match &links.columns.iter().find(|(n, _)| n == name).expect(name).1 {
            Column::U64(v) => v[0],
            _ => panic!("{name} is not a count"),
        };
        // the model sees every packet the queue admits, as it starts on the wire
        let (sent, lost) = (col("pkts_offered") - col("drops"), col("losses"));
        assert!(sent > 300, "the file went through it: {sent}");
        assert_eq!(lost, sent / 10, "{lost} lost of {sent} sent");
    }
}
