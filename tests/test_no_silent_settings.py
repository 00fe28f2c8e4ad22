"""No setting the user wrote may silently have no effect.

Three rules, each driven through the CLI and the Python API, each with a
counterfactual where the setting does act and the rule must stay silent:

1. a `--set`, a sweep's `set` or a sweep axis that a more specific setting
   replaces for every flow (`tcp.cc` beside a flow group's own `cc`) is
   refused, naming both and the fix;
2. two sweep points whose axis values differ but whose resolved scenarios
   are identical are an error before anything runs, naming the axis;
3. after a sweep, an axis whose values gave byte-identical measured results
   at every other point is warned about, naming the axis.

The precedence itself is the scenario format's (docs/scenario.md: a flow
group's own TCP key wins over [tcp]; a group's rtt sets the access delays),
not ccsim's output."""

from __future__ import annotations

import copy
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import ccsim
import pytest
from ccsim.experiments.runner import InertAxisWarning, dry_run, run_sweep
from ccsim.experiments.sweep import Sweep, SweepError
from helpers import dumbbell_raw
from pytest import MonkeyPatch

PY = sys.executable

BASE = dumbbell_raw(
    tcp={"cc": "cubic"}, flows=[{"count": 2, "cc": "cubic", "start": {"dist": "uniform", "min": "0s", "max": "100ms"}}]
)


def base(**flows0: Any) -> dict[str, Any]:
    d = copy.deepcopy(BASE)
    d["flows"][0].update(flows0)
    return d


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "ccsim", *args], capture_output=True, text=True, cwd=cwd)


# ------------------------------------------------------------ rule 1: refused


def test_set_overridden_by_every_flow_group_is_refused_naming_both() -> None:
    sc = ccsim.Scenario(base())
    with pytest.raises(ccsim.ScenarioError) as e:
        sc.with_overrides({"tcp.cc": "bbr"})
    msg = str(e.value)
    assert "tcp.cc" in msg and "flows[0].cc" in msg and "set flows[0].cc instead" in msg and "\n" not in msg
    # counterfactual: a second group that does not set cc takes tcp.cc, so it acts
    raw = base()
    raw["flows"].append({"count": 1})
    res = ccsim.Scenario(raw).with_overrides({"tcp.cc": "bbr", "sim.duration": "200ms"}).run()
    assert res.flows["cc"].to_list() == ["cubic", "cubic", "bbr"]


def test_every_group_overriding_is_named_and_udp_groups_take_no_tcp_option() -> None:
    raw = base()
    raw["flows"].append({"count": 1, "cc": "reno"})
    raw["flows"].append({"count": 1, "app": "cbr", "rate": "1Mbps"})
    with pytest.raises(ccsim.ScenarioError, match=r"flows\[0\]\.cc and flows\[1\]\.cc; set flows\[\*\]\.cc instead"):
        ccsim.Scenario(raw).with_overrides({"tcp.cc": "bbr"})


def test_a_tcp_option_that_still_acts_elsewhere_is_kept() -> None:
    # every group sets its own mss, but [tcp]'s mss sizes the buffers
    # written in packets and BDPs (the resolver's packet size): it acts, so
    # the rule, confirmed by resolving without it, lets it through
    sc = ccsim.Scenario(base(mss=1000))
    a = sc.with_overrides({"tcp.mss": 500})
    b = sc.with_overrides({"tcp.mss": 1448})
    assert a.core["links"] != b.core["links"]


def test_access_delay_replaced_by_every_groups_rtt_is_refused() -> None:
    sc = ccsim.Scenario(base(rtt="50ms"))
    with pytest.raises(
        ccsim.ScenarioError, match=r"topology\.access_delay .*overridden for every flow by flows\[0\]\.rtt"
    ):
        sc.with_overrides({"topology.access_delay": "5ms"})
    ccsim.Scenario(base()).with_overrides({"topology.access_delay": "5ms"})  # no rtt: it acts


def test_cli_set_is_refused_in_one_line(tmp_path: Path) -> None:
    p = tmp_path / "sc.toml"
    ccsim.dump(ccsim.Scenario(base()), p)
    r = cli("run", str(p), "--set", "tcp.cc=bbr", "--out", str(tmp_path / "o"))
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "tcp.cc" in lines[0] and "set flows[0].cc instead" in lines[0], r.stderr
    assert not (tmp_path / "o").exists()


def test_sweep_set_and_axis_overridden_everywhere_are_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(SweepError, match=r"set: tcp\.cc .*flows\[0\]\.cc"):
        Sweep(base(), set={"tcp.cc": "bbr"})
    sw = Sweep(base(), grid={"tcp.cc": ["cubic", "bbr", "bbr3"]})
    with pytest.raises(SweepError, match=r"axis 'tcp\.cc'.*set flows\[0\]\.cc instead"):
        run_sweep(sw, tmp_path / "c", executor="serial")
    assert not (tmp_path / "c").exists()
    with pytest.raises(SweepError, match=r"axis 'tcp\.cc'"):
        dry_run(sw)
    # a single-valued axis cannot collide with another point: rule 1 alone
    with pytest.raises(SweepError, match=r"axis 'tcp\.cc'"):
        run_sweep(Sweep(base(), grid={"tcp.cc": ["bbr"]}), tmp_path / "d", executor="serial")
    # counterfactual: the axis on the group itself acts
    rep = run_sweep(Sweep(base(), grid={"flows[0].cc": ["cubic", "bbr"]}), tmp_path / "e", executor="serial")
    assert rep.computed == 2


def test_cli_sweep_over_tcp_cc_beside_a_group_cc_tells_the_fix(tmp_path: Path) -> None:
    ccsim.dump(ccsim.Scenario(base()), tmp_path / "sc.toml")
    (tmp_path / "sw.toml").write_text('base = "sc.toml"\n[grid]\n"tcp.cc" = ["cubic", "bbr", "bbr3"]\n')
    for extra in ([], ["--dry-run"]):
        r = cli("sweep", str(tmp_path / "sw.toml"), "--out", str(tmp_path / "o"), *extra)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1, r.stderr
        assert "tcp.cc" in lines[0] and "set flows[0].cc instead" in lines[0]
    assert not (tmp_path / "o" / "runs").exists()


# ------------------------------------------------------- rule 2: collisions


def test_axis_values_that_resolve_to_one_scenario_are_an_error_naming_the_axis(tmp_path: Path) -> None:
    # 200 ms written two ways: no known precedence, caught by comparing the
    # resolved scenarios
    sw = Sweep(base(), grid={"tcp.min_rto": ["200ms", "0.2s"], "topology.buffer": ["1bdp", "2bdp"]})
    with pytest.raises(SweepError) as e:
        run_sweep(sw, tmp_path / "c", executor="serial")
    msg = str(e.value)
    assert "differ only in tcp.min_rto = '200ms' and '0.2s'" in msg and "identical scenario" in msg
    assert not (tmp_path / "c").exists()
    with pytest.raises(SweepError, match="differ only in tcp.min_rto"):
        dry_run(sw)
    # keep_going does not turn it into invalid points
    with pytest.raises(SweepError, match="differ only in tcp.min_rto"):
        run_sweep(sw, tmp_path / "c", executor="serial", keep_going=True)
    # counterfactual: values that differ make different scenarios (whether
    # the runs differ is rule 3's matter: no timeout happens here)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InertAxisWarning)
        rep = run_sweep(Sweep(base(), grid={"tcp.min_rto": ["200ms", "1s"]}), tmp_path / "d", executor="serial")
    assert rep.computed == 2


def test_a_value_listed_twice_shares_one_run_and_is_not_a_collision(tmp_path: Path) -> None:
    rep = run_sweep(Sweep(base(), grid={"topology.buffer": ["1bdp", "1bdp"]}), tmp_path / "c", executor="serial")
    assert rep.computed == 1 and rep.total == 2


# ------------------------------------------------------ rule 3: inert axes


def test_an_axis_whose_values_give_identical_results_is_warned_about(tmp_path: Path) -> None:
    # access links at 1 Gb/s feeding a 10 Mb/s bottleneck never hold more
    # than a few packets: their buffer size cannot act
    sw = Sweep(base(), grid={"topology.access_buffer": ["1000pkt", "2000pkt"]}, seeds=2)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        rep = run_sweep(sw, tmp_path / "c", executor="serial")
    inert = [w for w in got if issubclass(w.category, InertAxisWarning)]
    assert len(inert) == 1 and "axis topology.access_buffer" in str(inert[0].message)
    assert "2 combinations" in str(inert[0].message)
    assert any("topology.access_buffer" in w for w in rep.warnings)
    # counterfactual: the bottleneck's buffer acts
    sw = Sweep(base(), grid={"topology.buffer": ["3pkt", "2bdp"]}, seeds=2)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        rep = run_sweep(sw, tmp_path / "d", executor="serial")
    assert not [w for w in got if issubclass(w.category, InertAxisWarning)] and not rep.warnings


def test_cli_sweep_prints_the_inert_axis_once(tmp_path: Path) -> None:
    ccsim.dump(ccsim.Scenario(base()), tmp_path / "sc.toml")
    (tmp_path / "sw.toml").write_text(
        'base = "sc.toml"\nseeds = 2\n[grid]\n"topology.access_buffer" = ["1000pkt", "2000pkt"]\n'
    )
    r = cli("sweep", str(tmp_path / "sw.toml"), "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("axis topology.access_buffer") == 1, r.stderr


# ------------------------------------------------------------ options that act only with another's value


@pytest.mark.parametrize(
    "written, needs",
    [
        ({"ecn_response": "ns2"}, {"ecn": True}),
        ({"stack": "ns2", "ts_option_bytes": 12}, {"timestamps": True}),
        ({"sack1_stop_at_end": True}, {"sack": "sack1"}),
        ({"ecn_codepoint": "ect1"}, {"ecn": True}),
        ({"ecn_feedback": "accecn"}, {"ecn": True}),
    ],
)
def test_an_option_written_where_it_cannot_act_is_refused(written: dict[str, Any], needs: dict[str, Any]) -> None:
    """ecn_response, ecn_codepoint and ecn_feedback without ECN,
    ts_option_bytes without timestamps and sack1_stop_at_end without Sack1
    would do nothing: refused naming both settings; with the other option
    set they act and are accepted."""
    raw = base()
    raw["tcp"] = dict(written)
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.Scenario(raw)
    (k,) = [k for k in written if k != "stack"]
    (n,) = needs
    assert f"tcp.{k}" in str(e.value) and f"{n} = " in str(e.value) and "has no effect" in str(e.value)
    raw["tcp"].update(needs)
    ccsim.Scenario(raw)
    # written in a flow group, judged against that group's own value
    raw = base(**{k: written[k]})
    raw["tcp"] = {x: v for x, v in written.items() if x == "stack"}
    with pytest.raises(ccsim.ScenarioError, match=rf"flows\[0\]\.{k}"):
        ccsim.Scenario(raw)
    # a stack's own values are not the user's and are never refused
    ccsim.Scenario(base(stack="ns2"))


def test_ack_hooks_first_is_refused_for_an_algorithm_without_the_hooks_it_places(
    tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    """ack_hooks_first moves pkts_acked and in_ack_event: BBR and NewReno
    have neither (the core's table, checked against runs in
    crates/ccsim-core/tests/ack_hooks.rs), so it would do nothing there;
    CUBIC and DCTCP have them and accept it, and so does a Python algorithm
    that defines one."""
    for cc in ("bbr", "newreno"):
        raw = base(cc=cc, ack_hooks_first=False)
        with pytest.raises(
            ccsim.ScenarioError,
            match=rf"flows\[0\]\.ack_hooks_first = false has no effect with flows\[0\]\.cc = '{cc}'",
        ):
            ccsim.Scenario(raw)
        raw = base(cc=cc)
        raw["tcp"] = {"ack_hooks_first": False}
        with pytest.raises(ccsim.ScenarioError, match=r"tcp\.ack_hooks_first = false has no effect"):
            ccsim.Scenario(raw)
    for cc in ("cubic", "dctcp"):
        ccsim.Scenario(base(cc=cc, ack_hooks_first=False))
    # a [tcp] setting that acts on one group (CUBIC) is not refused for
    # another that names its own algorithm (BBR)
    raw = base(cc="bbr")
    raw["tcp"] = {"cc": "cubic", "ack_hooks_first": False}
    raw["flows"].append({"count": 1, "cc": "cubic"})
    ccsim.Scenario(raw)
    (tmp_path / "hooked.py").write_text(
        "import ccsim\n"
        "class Half(ccsim.Algorithm):\n"
        "    name = 'half'\n"
        "    def ssthresh(self, tp):\n"
        "        return max(tp.cwnd // 2, 2)\n"
        "    def cong_avoid(self, tp, acked):\n"
        "        tp.cwnd += acked\n"
        "class Seen(Half):\n"
        "    name = 'seen'\n"
        "    def pkts_acked(self, tp, sample):\n"
        "        pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    ccsim.Scenario(base(cc="py:hooked:Seen", ack_hooks_first=False))
    with pytest.raises(ccsim.ScenarioError, match=r"has no effect with flows\[0\]\.cc = 'py:hooked:Half'"):
        ccsim.Scenario(base(cc="py:hooked:Half", ack_hooks_first=False))


def test_dupthresh_frac_is_refused_where_neither_of_its_two_effects_can_happen() -> None:
    """dupthresh_frac raises Sack1's threshold, and under limited transmit
    allows one new segment per duplicate ACK below the threshold (ns-2's
    send_one), which differs from RFC 3042's first two only where the
    threshold exceeds 3. Written where neither can happen it is refused,
    naming the three settings; each accepted combination is shown to act:
    its run differs from the same run with the option off."""
    lossy: dict[str, Any] = {"duration": "20s", "rate": "20Mbps", "loss": {"kind": "bernoulli", "p": 0.01}}

    def raw(**tcp: Any) -> dict[str, Any]:
        r = dumbbell_raw(
            tcp={"cc": "newreno", **tcp}, flows=[{"count": 2}], **{k: v for k, v in lossy.items() if k != "duration"}
        )
        r["sim"]["duration"] = lossy["duration"]
        return r

    for refused in ({}, {"sack": "rfc6675"}, {"limited_transmit": True, "dupthresh": 3}):
        with pytest.raises(ccsim.ScenarioError) as e:
            ccsim.Scenario(raw(dupthresh_frac=4, **refused))
        msg = str(e.value)
        assert msg.startswith("tcp.dupthresh_frac = 4 has no effect with sack = ") and "dupthresh = " in msg, msg
    # written in a group, judged against the group's own settings
    r = raw()
    r["flows"][0]["dupthresh_frac"] = 4
    with pytest.raises(ccsim.ScenarioError, match=r"flows\[0\]\.dupthresh_frac = 4 has no effect"):
        ccsim.Scenario(r)
    # a stack's own value (ns2-2.27's 100) is not the user's
    ccsim.Scenario(raw(stack="ns2-2.27", sack="off"))
    for acts in ({"sack": "sack1"}, {"limited_transmit": True, "dupthresh": 6}):
        on = ccsim.Scenario(raw(dupthresh_frac=4, **acts)).run().flows
        off = ccsim.Scenario(raw(dupthresh_frac=0, **acts)).run().flows
        assert not on.equals(off), acts
