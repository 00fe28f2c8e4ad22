"""RED family end to end (the formulas are checked in queue::red::tests, Rust)."""

import math
from collections.abc import Callable
from typing import Any

import ccsim
import numpy as np
import polars as pl
import pytest
from ccsim.errors import ScenarioError
from ccsim.studies.base import num
from helpers import single_link


def _run(queue: str | dict[str, Any], ecn: bool = True, **kw: Any) -> ccsim.Result:
    sc = single_link(
        duration="30s",
        rate="10Mbps",
        delay="20ms",
        buffer="200pkt",
        queue=queue,
        sample_interval="1s",
        tcp=dict(ecn=ecn),
        flows=[{"count": 4}],
        **kw,
    )
    return sc.run()


def test_red_with_ecn_marks_ecn_capable_flows_and_traces_the_average() -> None:
    r = _run({"kind": "gentle_red", "min_th": 5, "max_th": 15, "ecn": True})
    link = r.links.row(0, named=True)
    # early decisions on ECT data are marks; only non-ECT packets
    # (retransmissions, RFC 3168 §6.1.5) and forced drops above 2·max_th
    # are dropped, so marks outnumber drops (the kernel's count of both in
    # this set-up: tests/test_ecn_kernel.py)
    assert 0 < link["drops"] < link["marks"]
    assert r.flows["ecn_reductions"].sum() > 0
    ls = r.link_series.filter(pl.col("link") == 0)
    assert all(math.isfinite(x) for x in ls["avg_queue"])
    assert num(ls["avg_queue"].mean()) < 30
    # the reverse (ACK) direction is RED too, the access-free single link has no droptail
    assert all(math.isfinite(x) for x in r.link_series["avg_queue"])


def test_red_without_ecn_drops_instead_of_marking() -> None:
    link = _run({"kind": "red", "min_th": 5, "max_th": 15}, ecn=False).links.row(0, named=True)
    assert link["marks"] == 0 and link["drops"] > 0


def test_adaptive_red_keeps_max_p_within_its_bounds() -> None:
    r = _run("adaptive_red")
    mp = r.link_series.filter(pl.col("link") == 0)["max_p"]
    assert num(mp.min()) >= 0.008 * 0.9 and num(mp.max()) <= 0.5 + 0.01


def test_droptail_links_have_no_average() -> None:
    r = _run("droptail")
    assert r.link_series["avg_queue"].is_nan().all()


@pytest.mark.parametrize(
    "queue,field",
    [
        ({"kind": "red", "min_th": 10, "max_th": 5}, "topology.queue.max_th"),
        ({"kind": "red", "max_p": 2}, "topology.queue.max_p"),
        ({"kind": "gentle_red", "gentle": False}, "topology.queue.gentle"),
        ({"kind": "sfq"}, "topology.queue.kind"),
        ({"kind": "red", "minth": 5}, "minth"),
    ],
)
def test_bad_red_options_name_the_field(queue: dict[str, Any], field: str) -> None:
    with pytest.raises(ScenarioError) as e:
        _run(queue)
    assert field in str(e.value)


def _codel_run(queue: str | dict[str, Any], ecn: bool = False) -> tuple[ccsim.Result, np.ndarray]:
    import numpy as np

    sc = single_link(
        duration="60s",
        rate="10Mbps",
        delay="10ms",
        buffer="1000pkt",
        queue=queue,
        sample_interval="100ms",
        tcp=dict(cc="cubic", sack="rfc6675", ecn=ecn),
        flows=[{"count": 4}],
    )
    r = sc.run()
    ls = r.link_series.filter((pl.col("link") == 0) & (pl.col("time_s") > 10))
    qdelay = np.median(ls["queue_bytes"].to_numpy()) * 8 / 10e6
    return r, qdelay


def test_codel_keeps_the_standing_queue_near_target_where_droptail_bloats() -> None:
    # RFC 8289's goal: a standing queue of about `target` (5 ms) whatever the
    # buffer. Four CUBIC flows with a 1000-packet buffer: DropTail's queue
    # sits near the buffer (≈ 1.2 s at 10 Mb/s), CoDel's within a few targets.
    r_dt, q_dt = _codel_run("droptail")
    r_cd, q_cd = _codel_run("codel")
    assert q_dt > 0.5
    assert q_cd < 4 * 0.005
    assert r_cd.links["utilization"][0] > 0.95
    assert r_cd.links.row(0, named=True)["queue"] == "codel"


def test_codel_with_ecn_marks_instead_of_dropping() -> None:
    r, q = _codel_run({"kind": "codel", "ecn": True}, ecn=True)
    link = r.links.row(0, named=True)
    assert link["marks"] > 0 and link["drops"] == 0
    assert q < 4 * 0.005


def test_codel_options_are_checked() -> None:
    with pytest.raises(ScenarioError, match=r"^topology\.queue\.target"):
        single_link(duration="1s", queue={"kind": "codel", "target": "0ms"})
    with pytest.raises(ScenarioError, match=r"^topology\.queue\.limit"):
        single_link(duration="1s", queue={"kind": "codel", "limit": 5})
    with pytest.raises(ScenarioError, match=r"^topology\.buffer"):
        single_link(duration="1s", queue="codel", buffer="100KB")


def test_pie_holds_the_mean_queueing_delay_near_its_reference() -> None:
    # RFC 8033's design goal: the average queueing delay is controlled to
    # QDELAY_REF (15 ms) whatever the buffer; DropTail fills 1000 packets.
    import numpy as np

    r_dt, _ = _codel_run("droptail")
    for queue, ecn in (("pie", False), ({"kind": "pie", "ecn": True}, True)):
        sc = single_link(
            duration="60s",
            rate="10Mbps",
            delay="10ms",
            buffer="1000pkt",
            queue=queue,
            sample_interval="100ms",
            tcp=dict(cc="cubic", sack="rfc6675", ecn=ecn),
            flows=[{"count": 4}],
        )
        r = sc.run()
        ls = r.link_series.filter((pl.col("link") == 0) & (pl.col("time_s") > 10))
        mean_delay = ls["queue_bytes"].to_numpy().mean() * 8 / 10e6
        assert 0.5 * 0.015 < mean_delay < 1.5 * 0.015, mean_delay
        assert r.links["utilization"][0] > 0.95
        assert (ls["max_p"] > 0).any()  # the drop probability is traced
        if ecn:
            assert r.links["marks"][0] > r.links["drops"][0]
    ls_dt = r_dt.link_series.filter((pl.col("link") == 0) & (pl.col("time_s") > 10))
    assert np.mean(ls_dt["queue_bytes"].to_numpy()) * 8 / 10e6 > 0.5


def test_pie_options_are_checked() -> None:
    with pytest.raises(ScenarioError, match=r"^topology\.queue\.alpha"):
        single_link(duration="1s", queue={"kind": "pie", "alpha": -1})
    with pytest.raises(ScenarioError, match=r"^topology\.queue\.t_update"):
        single_link(duration="1s", queue={"kind": "pie", "t_update": "0s"})


def test_fq_codel_shares_fairly_across_rtts_and_keeps_delay_low() -> None:
    # RFC 8290: DRR over per-flow queues gives backlogged flows equal byte
    # shares, whatever their RTT; single-queue CoDel favours short RTTs.
    from ccsim import Builder
    from ccsim.analysis import metrics as m

    def run(q: str) -> tuple[float, float, ccsim.Result]:
        sc = (
            Builder("60s", sample_interval="1s")
            .dumbbell(
                bottleneck_rate="10Mbps",
                bottleneck_delay="5ms",
                access_rate="100Mbps",
                access_delay="1ms",
                buffer="500pkt",
                queue=q,
            )
            .tcp(cc="cubic", sack="rfc6675")
            .flows(count=4, rtt={"spread": ["20ms", "200ms"]})
            .build()
        )
        r = sc.run()
        bott = r.links.filter(pl.col("name") == "r0->r1")["id"][0]
        ls = r.link_series.filter((pl.col("link") == bott) & (pl.col("time_s") > 10))
        return m.jain(m.goodput(r.flow_series, 10, 60)["goodput_bps"]), num(ls["queue_bytes"].mean()) * 8 / 10e6, r

    j_fq, d_fq, r = run("fq_codel")
    j_cd, _, _ = run("codel")
    assert j_fq > 0.95 and j_fq > j_cd
    assert d_fq < 4 * 0.005
    assert r.links.filter(pl.col("name") == "r0->r1")["queue"][0] == "fq_codel"


def test_python_checks_every_queue_option_by_the_cores_schema() -> None:
    """Walk the core's queue schema (config/net_schema.rs): for each kind
    and option, a value just outside what its kind accepts is refused by the
    Python resolver under the option's own field, and the core refuses the
    same resolved value under the same name (one copy of every bound)."""
    import json

    from ccsim import _core
    from ccsim.scenario import netmodels

    bad: dict[str, Callable[[dict[str, Any]], Any]] = {
        "int": lambda k: k["hi"] + 1,
        "number": lambda k: k["lo"] if k["lo_open"] else k["lo"] - 1,
        "prob": lambda k: 1.5,
        "prob_or_auto": lambda k: 0.0,
        "time": lambda k: "-1s" if k["min_ps"] == 0 else f"{k['min_ps'] - 1}ps",
        "choice": lambda k: "no-such-value",
        "bool": lambda k: "yes",
    }
    walked = 0
    for kind, spec in netmodels.QUEUE_SCHEMA.items():
        for o in spec["options"]:
            k = o["kind"]
            v = bad[k["type"]](k)
            with pytest.raises(ScenarioError) as e:
                netmodels._queue("topology.queue", {"kind": kind, o["name"]: v})
            assert e.value.field == f"topology.queue.{o['name']}", (kind, o["name"], str(e.value))
            # the core, given the resolved value, names the same option
            core = {"time": k.get("min_ps", 0) - 1, "choice": None, "bool": None}.get(k["type"], v)
            if core is not None and core >= 0 and not (k["type"] == "int" and core > 2**32 - 1):
                resolved = {"kind": spec["core"], **spec["fixed"], o["core"]: core}
                refused = _core.check_queue(json.dumps(resolved))
                assert refused is not None and refused[0] == o["name"], (kind, o["name"])
            walked += 1
    assert walked >= 60
    # a field the kind sets is refused under the user's option, or the kind
    with pytest.raises(ScenarioError) as e:
        netmodels._queue("q", {"kind": "gentle_red", "gentle": False})
    assert e.value.field == "q.gentle" and "gentle_red" in str(e.value)
    with pytest.raises(ScenarioError) as e:
        netmodels._queue("q", {"kind": "adaptive_red", "min_th": 5, "max_th": 5})
    assert e.value.field == "q.kind" and "step marking" in str(e.value)


def test_python_checks_every_loss_option_by_the_cores_schema() -> None:
    """The same walk over the loss models (loss/, exported as `_core.loss_options()`):
    each option's out-of-kind value is refused under its own field, a
    missing required option is named, and the rules the core applies (a
    Gilbert chain that never moves, states under 1 µs) reach the user."""
    from ccsim.scenario import netmodels

    bad: dict[str, Callable[[dict[str, Any]], Any]] = {
        "int": lambda k: 0,
        "prob": lambda k: 1.5,
        "time_dist": lambda k: "100ns",
        "packets": lambda k: [3, 2],
        "choice": lambda k: "no-such-value",
    }
    good = {"p": 0.1, "r": 0.5, "ber": 1e-6, "good": "1s", "bad": "10ms", "loss_bad": 1.0, "drop": [1], "mark": [1]}
    good["n"] = 2
    walked = 0
    for kind, spec in netmodels.LOSS_SCHEMA.items():
        base = {"kind": kind, **{k: good[k] for k in spec["required"]}}
        assert netmodels._loss("loss", base)["kind"] == spec["core"]
        for o in spec["options"]:
            with pytest.raises(ScenarioError) as e:
                netmodels._loss("loss", {**base, o["name"]: bad[o["kind"]["type"]](o["kind"])})
            assert e.value.field == f"loss.{o['name']}", (kind, o["name"], str(e.value))
            walked += 1
        for k in spec["required"]:
            with pytest.raises(ScenarioError) as e:
                netmodels._loss("loss", {x: y for x, y in base.items() if x != k})
            assert e.value.field == f"loss.{k}" and "missing" in str(e.value)
    assert walked >= 15
    with pytest.raises(ScenarioError) as e:
        netmodels._loss("loss", {"kind": "gilbert", "p": 0, "r": 0})
    assert e.value.field == "loss.r" and "never moves" in str(e.value)
    with pytest.raises(ScenarioError) as e:
        netmodels._loss("loss", {"kind": "two_state", "good": "1s", "bad": "100ns", "loss_bad": 1.0})
    assert e.value.field == "loss.bad" and "1 µs" in str(e.value)
