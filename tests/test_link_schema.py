"""A link direction's shaper and reordering, the distributions a scenario
draws from, and the topology kinds' options: Python resolves them from the
core's schemas (config/link_schema.rs, rng.rs DISTS) and the topology
table, errors name the field as the user wrote it, and docs/scenario.md
lists exactly the options that exist."""

import json
import re
from typing import Any

import pytest
from ccsim import Scenario, ScenarioError, _core
from ccsim.scenario.netmodels import DIST_DOC, DIST_KINDS, DIST_SCHEMA, REORDER_SCHEMA, SHAPER_KINDS, SHAPER_SCHEMA
from ccsim.scenario.topologies import BUILDERS, EXPLICIT_LINK_KEYS, FLOW_TOPO_KEYS, TOPOLOGY_KEYS, TOPOLOGY_KINDS
from conftest import ROOT

BASE = {
    "sim": {"duration": "1s"},
    "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "10ms"},
    "flows": [{"count": 1}],
}


def resolve(**topo: Any) -> dict[str, Any]:
    topology: dict[str, Any] = {**BASE["topology"], **topo}  # type: ignore[dict-item]
    return dict(json.loads(Scenario.from_dict({**BASE, "topology": topology}).to_core_json()))


def refused(**topo: Any) -> str:
    with pytest.raises(ScenarioError) as e:
        resolve(**topo)
    return str(e.value)


def test_shaper_defaults_are_mininets_tclink_and_bounds_name_the_users_option() -> None:
    """Mininet's TCLink (mininet/link.py, TCIntf.bwCmds) runs `tc ... htb
    rate R burst 15k`, which iproute2's get_size reads as 15 × 1024 bytes,
    with tc's own cburst of ceil/HZ + mtu = 1600 bytes (HZ = 10^9 with
    high-resolution timers); `use_tbf` gives `tbf ... burst 15000`. Both
    count the 14-byte Ethernet header on a veth."""
    assert SHAPER_KINDS == ["htb", "tbf"]
    htb = resolve(shaper="htb")["links"][0]["shaper"]
    assert htb == {"rule": "htb", "burst_bytes": 15 * 1024, "overhead_bytes": 14, "cburst_bytes": 1600}
    tbf = resolve(shaper="tbf")["links"][0]["shaper"]
    assert tbf == {"rule": "tbf", "burst_bytes": 15000, "overhead_bytes": 14}
    for kind, spec in SHAPER_SCHEMA.items():
        for o in spec["options"]:
            bad = 10**6 if o["name"] == "overhead" else "0B"
            msg = refused(shaper={"kind": kind, o["name"]: bad})
            assert msg.startswith(f"topology.shaper.{o['name']}: got "), msg
    assert "unknown key" in refused(shaper={"kind": "tbf", "cburst": "2KB"})
    # the core, handed a shaper Python would refuse, names the option as a scenario writes it
    core = resolve(shaper="htb")
    core["links"][0]["shaper"]["cburst_bytes"] = 0
    with pytest.raises(_core.ScenarioError, match=r"shaper\.cburst: got 0"):
        _core.run(json.dumps(core))


@pytest.mark.parametrize(
    "reorder, field, words",
    [
        ({}, "topology.reorder: got {}", "reorders nothing"),
        ({"probability": 0.1}, "topology.reorder.delay: missing", "extra delay > 0"),
        ({"jitter": "2ms", "delay": "5ms"}, "topology.reorder.delay: got '5ms'", "only with probability > 0"),
        ({"jitter": "0s"}, "topology.reorder.jitter: got '0s'", "jitter > 0 or probability > 0"),
        ({"probability": 2, "delay": "5ms"}, "topology.reorder.probability: got 2", "a probability in [0, 1]"),
    ],
)
def test_reordering_that_would_be_ignored_or_is_out_of_bounds_is_refused_by_name(
    reorder: dict[str, Any], field: str, words: str
) -> None:
    msg = refused(reorder=reorder)
    assert msg.startswith(field) and words in msg, msg


def test_reordering_resolves_with_the_cores_defaults_and_the_core_applies_the_same_rules() -> None:
    assert [o["name"] for o in REORDER_SCHEMA["options"]] == ["jitter", "probability", "delay"]
    link = resolve(reorder={"jitter": "2ms"})["links"][0]
    assert link["reorder"] == {"jitter_ps": 2 * 10**9, "probability": 0.0, "delay_ps": 0}
    link = resolve(reorder={"probability": 0.25, "delay": "5ms"})["links"][0]
    assert link["reorder"] == {"jitter_ps": 0, "probability": 0.25, "delay_ps": 5 * 10**9}
    core = resolve(reorder={"jitter": "2ms"})
    core["links"][0]["reorder"] = {"jitter_ps": 0, "probability": 0.0, "delay_ps": 5}
    with pytest.raises(_core.ScenarioError, match=r"reorder\.delay: got 5 ps; expected a delay only with probability"):
        _core.run(json.dumps(core))


def two_state(good: str | dict[str, Any]) -> dict[str, Any]:
    return {"kind": "two_state", "good": good, "bad": "10ms", "loss_bad": 1}


def test_every_distribution_names_its_missing_and_out_of_bound_parameters() -> None:
    """The grammar is the core's (rng.rs DISTS); bounds: a Pareto's mean is
    infinite for shape ≤ 1, a uniform's max is not below its min, a state's
    duration is above 0."""
    assert DIST_KINDS == ["fixed", "exponential", "pareto", "pareto2", "uniform"]
    assert set(DIST_DOC) == set(DIST_SCHEMA)
    for kind, spec in DIST_SCHEMA.items():
        for p in spec["params"]:
            table = {"dist": kind, **{q["name"]: (2.0 if q["number"] else "1s") for q in spec["params"]}}
            del table[p["name"]]
            msg = refused(loss=two_state(table))
            assert msg.startswith(f"topology.loss.good.{p['name']}: missing"), msg
    msg = refused(loss=two_state({"dist": "pareto", "mean": "1s", "shape": 1.0}))
    assert msg.startswith("topology.loss.good.shape: got 1.0") and "infinite" in msg, msg
    msg = refused(loss=two_state({"dist": "uniform", "min": "1s", "max": "10ms"}))
    assert msg.startswith("topology.loss.good.max: got '10ms'") and "≥ min" in msg, msg
    msg = refused(loss=two_state({"dist": "fixed", "value": "0s"}))
    assert msg.startswith("topology.loss.good.value: got '0s'") and "> 0" in msg, msg
    msg = refused(loss=two_state({"dist": "pareto2", "mean": "1s", "shape": True}))
    assert msg.startswith("topology.loss.good.shape: got True"), msg


def test_topology_options_are_the_documented_ones() -> None:
    """Each kind accepts the options its rows in TOPOLOGY_DOC name; the
    builders are exactly the kinds; docs/scenario.md's [topology] section
    names every option of every kind, and each kind's table names only
    options that kind accepts."""
    assert set(BUILDERS) == set(TOPOLOGY_KINDS)
    assert TOPOLOGY_KEYS["satellite"] == TOPOLOGY_KEYS["dumbbell"] < TOPOLOGY_KEYS["wireless"]
    assert FLOW_TOPO_KEYS["satellite"] == {"direction", "rtt", "access"}
    md = (ROOT / "docs" / "scenario.md").read_text()
    section = md[md.index("## `[topology]`") : md.index("## `[tcp]`")]
    named = set(re.findall(r"`([a-z_]+)`", section))
    for kind, keys in TOPOLOGY_KEYS.items():
        missing = keys - {"kind"} - named
        assert not missing, f"docs/scenario.md does not name {kind}'s {sorted(missing)}"
        head = f"**{kind}** —"
        start = section.index(head)
        end = section.find("\n**", start + len(head))
        part = section[start : end if end >= 0 else len(section)]
        for row in re.findall(r"^\| (`.*?) \|", part, flags=re.M):
            for k in re.findall(r"`([a-z_]+)`", row):
                assert k in keys, f"docs/scenario.md's {kind} table names {k}, which {kind} does not accept"
    assert not EXPLICIT_LINK_KEYS - named


def test_queues_whose_linux_limit_counts_packets_refuse_a_byte_buffer() -> None:
    """Linux's sch_codel, sch_fq_codel, sch_dualpi2 and sch_netem take
    `limit` in packets; DropTail (bfifo), RED and PIE (ns-2's byte mode) may
    count bytes. The front end reads which from the core's QueueCfg."""
    from ccsim.scenario.netmodels import QUEUE_KINDS

    refused_kinds = set()
    for kind in QUEUE_KINDS:
        try:
            resolve(queue=kind, buffer="100KB")
        except ScenarioError as e:
            assert str(e).startswith("topology.buffer:") and "counts packets" in str(e), str(e)
            refused_kinds.add(kind)
    assert refused_kinds == {"codel", "fq_codel", "dualpi2", "netem"}


def test_every_loss_model_lists_its_defaults_under_the_name_a_scenario_writes() -> None:
    from ccsim.scenario.netmodels import LOSS_DEFAULTS, LOSS_KINDS

    assert set(LOSS_DEFAULTS) == set(LOSS_KINDS)
    assert LOSS_DEFAULTS["gilbert"] == {"loss_good": 0.0, "loss_bad": 1.0}
