"""Bad input gets a clear error naming the field, the value and what is
accepted - never a panic, a hang or a silently wrong run."""

import json
import math
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any, NoReturn

import ccsim
import pytest
from ccsim import Builder, Scenario, ScenarioError, _core
from conftest import ROOT
from pytest import CaptureFixture, MonkeyPatch

GOOD = textwrap.dedent("""
    [sim]
    duration = "10s"
    [topology]
    kind = "single_link"
    rate = "10Mbps"
    delay = "10ms"
    [[flows]]
    app = "bulk"
""")


def err(text: str) -> str:
    with pytest.raises(ScenarioError) as e:
        Scenario.from_toml(textwrap.dedent(text))
    return str(e.value)


def test_good_baseline_is_accepted() -> None:
    Scenario.from_toml(GOOD)


def test_malformed_toml() -> None:
    m = err("[sim\nduration = 1")
    assert "malformed TOML" in m


def test_malformed_yaml() -> None:
    with pytest.raises(ScenarioError, match="malformed YAML"):
        Scenario.from_yaml("sim: [unclosed")


def test_unknown_algorithm_lists_accepted_names() -> None:
    m = err(GOOD + '\n[tcp]\ncc = "bbr9"\n')
    assert "tcp.cc" in m and "'bbr9'" in m and "newreno" in m


def test_unknown_top_level_and_nested_keys() -> None:
    assert "colour" in err(GOOD + "\ncolour = 1\n")
    m = err(GOOD.replace('kind = "single_link"', 'kind = "single_link"\nspeed = "1Gbps"'))
    assert "topology.speed" in m and "accepted keys" in m
    m = err(GOOD + "\n[tcp]\nmsss = 1000\n")
    assert "tcp.msss" in m
    m = err(GOOD.replace('app = "bulk"', 'app = "bulk"\nstagger_ms = 3'))
    assert "flows[0].stagger_ms" in m


def test_unknown_option_value() -> None:
    m = err(GOOD.replace('delay = "10ms"', 'delay = "10ms"\nqueue = "fq"'))
    assert "topology.queue" in m and "droptail" in m


@pytest.mark.parametrize("rate", ['"-10Mbps"', '"0Mbps"', '"10"', "10", '"10 furlongs"'])
def test_bad_rates(rate: str) -> None:
    m = err(GOOD.replace('rate = "10Mbps"', f"rate = {rate}"))
    assert "topology.rate" in m and "Mbps" in m


def test_negative_time() -> None:
    m = err(GOOD.replace('delay = "10ms"', 'delay = "-1ms"'))
    assert "topology.delay" in m


def test_zero_duration() -> None:
    assert "sim.duration" in err(GOOD.replace('"10s"', '"0s"'))


def test_zero_mss() -> None:
    m = err(GOOD + "\n[tcp]\nmss = 0\n")
    assert "tcp.mss" in m and "≥ 1" in m


@pytest.mark.parametrize("buf", ['"0pkt"', '"100B"', '"0.0001bdp"', '"lots"'])
def test_buffer_smaller_than_a_packet(buf: str) -> None:
    m = err(GOOD.replace('delay = "10ms"', f'delay = "10ms"\nbuffer = {buf}'))
    assert "topology.buffer" in m
    if buf == '"100B"':  # the core's rule, in the scenario's field
        # the linux stack's packet: MSS 1448 + 20 IP + 20 TCP + 12 timestamp option (RFC 7323 §3)
        assert m.startswith("topology.buffer: 100 bytes is smaller than one packet (1500 bytes"), m


def test_probability_out_of_range() -> None:
    m = err(GOOD.replace('delay = "10ms"', 'delay = "10ms"\nloss = { kind = "bernoulli", p = 1.5 }'))
    assert "topology.loss.p" in m and "probability" in m


def test_flow_between_unconnected_nodes() -> None:
    b = (
        Builder(duration="1s")
        .explicit(
            nodes=["a", "b", "c"], links=[{"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms", "buffer": "10pkt"}]
        )
        .flows(src="a", dst="c")
    )
    with pytest.raises(ScenarioError, match=r"flows\[0\].*no forward path.*\Wa\W.*\Wc\W"):
        b.build().run()


def test_unknown_node_name() -> None:
    b = (
        Builder(duration="1s")
        .explicit(nodes=["a", "b"], links=[{"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms", "buffer": "10pkt"}])
        .flows(src="a", dst="z")
    )
    with pytest.raises(ScenarioError, match=r"flows\[0\].dst.*'z'"):
        b.build()


def test_flow_starting_after_the_end() -> None:
    m = err(GOOD.replace('app = "bulk"', 'app = "bulk"\nstart = "20s"'))
    assert "flows[0].start" in m


def test_file_flow_needs_size() -> None:
    assert "flows[0].size" in err(GOOD.replace('app = "bulk"', 'app = "file"'))


def test_rtt_shorter_than_bottleneck() -> None:
    m = err("""
        [sim]
        duration = "1s"
        [topology]
        kind = "dumbbell"
        bottleneck_rate = "10Mbps"
        bottleneck_delay = "20ms"
        access_rate = "100Mbps"
        access_delay = "1ms"
        [[flows]]
        rtt = "10ms"
    """)
    assert "flows[0].rtt" in m


def test_bdp_buffer_in_explicit_topology_needs_bdp_rtt() -> None:
    b = (
        Builder(duration="1s")
        .explicit(nodes=["a", "b"], links=[{"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms"}])
        .flows(src="a", dst="b")
    )
    with pytest.raises(ScenarioError, match="topology.bdp_rtt"):
        b.build()


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read"):
        ccsim.load(tmp_path / "nope.toml")


def test_core_rejects_bad_resolved_scenarios_without_panicking() -> None:
    # The core re-validates what it is given (the JSON boundary is public).
    good = Scenario.from_toml(GOOD).core
    bad = json.loads(json.dumps(good))
    bad["flows"][0]["tcp"]["mss"] = 0
    with pytest.raises(_core.ScenarioError, match=r"flows\[0\].tcp.mss"):
        _core.run(json.dumps(bad))
    bad = json.loads(json.dumps(good))
    bad["links"][0]["rate_bps"] = 0
    with pytest.raises(_core.ScenarioError, match="rate_bps"):
        _core.run(json.dumps(bad))
    bad = json.loads(json.dumps(good))
    bad["links"][0]["bogus"] = 1
    with pytest.raises(_core.ScenarioError, match="bogus"):
        _core.run(json.dumps(bad))
    bad = json.loads(json.dumps(good))
    bad["flows"][0]["tcp"]["max_rto_ps"] = 2**64 - 1
    with pytest.raises(_core.ScenarioError, match=r"flows\[0\].tcp.max_rto"):
        _core.run(json.dumps(bad))
    with pytest.raises(_core.ScenarioError):
        _core.run("{not json")


def test_rust_panic_becomes_python_exception() -> None:
    with pytest.raises(ccsim.InternalError, match="deliberate test panic"):
        _core._panic_for_test()
    # and the interpreter is still fine afterwards
    assert Scenario.from_toml(GOOD).run().flows.height == 1


def test_time_series_too_large_is_refused_not_a_crash() -> None:
    m = err(GOOD.replace('duration = "10s"', 'duration = "10s"\nsample_interval = "1ns"'))
    assert "sim.sample_interval" in m and "rows" in m


@pytest.mark.parametrize(
    "tcp,field,words",
    [
        ('sack = "yes"', "tcp.sack", "'rfc6675'"),
        ('prr = true\nsack = "off"', "tcp.prr", "sack = 'rfc6675'"),
        ('cc = "tahoe"\nsack = "rfc6675"', "tcp.sack", "tahoe"),
        ("timestamps = true\nsack_blocks = 4", "tcp.sack_blocks", "at most 3"),
        ('pacing = "fq"', "tcp.pacing", "'window'"),
        ("pacing_ss_ratio = 0", "tcp.pacing_ss_ratio", "(0, 100]"),
        ("quickack = -1", "tcp.quickack", ""),
        ("min_tso_segs = 0", "tcp.min_tso_segs", "1"),
        ('tso = "auto"', "tcp.tso", "true"),
        ('ecn_codepoint = "ect2"', "tcp.ecn_codepoint", "'ect0', 'ect1'"),
        ('ecn_feedback = "accurate"', "tcp.ecn_feedback", "'accecn'"),
        ('cc = "prague"\necn = false', "tcp.ecn", "prague"),
        ('cc = "copa"\ncc_params = { delta = 0 }', "tcp.cc_params.delta", "[0.001, 10]"),
    ],
)
def test_bad_tcp_mechanics_options(tcp: str, field: str, words: str) -> None:
    m = err(GOOD.replace("[[flows]]", f"[tcp]\n{tcp}\n[[flows]]"))
    assert field in m and words in m, m


@pytest.mark.parametrize(
    "queue,field,words",
    [
        ('{ kind = "dualpi2", coupling = 0.5 }', "topology.queue.coupling", "[1, 255]"),
        ('{ kind = "dualpi2", c_protection = 101 }', "topology.queue.c_protection", "100"),
        ('{ kind = "dualpi2", ecn_mask = "all" }', "topology.queue.ecn_mask", "'any_ect'"),
        ('{ kind = "dualpi2", t_update = "0s" }', "topology.queue.t_update", "time"),
        ('{ kind = "dualpi2", t_update = "1ps" }', "topology.queue.t_update", "1us"),
        ('{ kind = "pie", t_update = "100ns" }', "topology.queue.t_update", "1us"),
        ('{ kind = "dualpi2", alpha = -1 }', "topology.queue.alpha", "Hz"),
        ('{ kind = "dualpi2", target = 15 }', "topology.queue.target", "unit"),
        ('{ kind = "dualpi2", sticky = true }', "topology.queue", "sticky"),
    ],
)
def test_bad_dualpi2_options(queue: str, field: str, words: str) -> None:
    m = err(GOOD.replace('delay = "10ms"', f'delay = "10ms"\nqueue = {queue}'))
    assert field in m and words in m, m


def test_dualpi2_limit_counts_packets() -> None:
    m = err(GOOD.replace('delay = "10ms"', 'delay = "10ms"\nqueue = "dualpi2"\nbuffer = "100KB"'))
    assert "topology.buffer" in m and "packets" in m, m


def test_bad_trace_and_marker() -> None:
    m = err(GOOD.replace('duration = "10s"', 'duration = "10s"\ntrace = ["pcap"]'))
    assert "sim.trace" in m and '"rtt"' in m
    m = err(GOOD.replace('delay = "10ms"', 'delay = "10ms"\nloss = { kind = "ce_every", n = 0 }'))
    assert "topology.loss.n" in m


def test_core_rejects_bad_mechanics_options_directly() -> None:
    # The core re-validates what Python hands it (a scenario built by hand).
    sc = Scenario.from_toml(GOOD)
    core = json.loads(json.dumps(sc.core))  # a copy, tables inline
    core["flows"][0]["tcp"]["prr"] = True
    core["flows"][0]["tcp"]["sack"] = "off"
    with pytest.raises(_core.ScenarioError, match=r"flows\[0\].tcp.prr"):
        _core.run(json.dumps(core))
    core["flows"][0]["tcp"]["prr"] = False
    core["flows"][0]["tcp"]["sack"] = "maybe"
    with pytest.raises(_core.ScenarioError, match="sack"):
        _core.run(json.dumps(core))


# ---------------------------------------------------------------- hostile files


def _cli(*args: Any, env: Any = None) -> subprocess.CompletedProcess[str]:
    import os
    import subprocess
    import sys

    e = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "ccsim", *args], capture_output=True, text=True, env=e)


def _one_line_exit2(r: subprocess.CompletedProcess[str], *words: Any) -> None:
    assert r.returncode == 2, r.stderr
    line = r.stderr.strip()
    assert "\n" not in line and "Traceback" not in line, line
    assert len(line) < 600, len(line)
    for w in words:
        assert w in line, line


def test_non_utf8_file_is_one_line(tmp_path: Path) -> None:
    f = tmp_path / "latin1.toml"
    f.write_bytes('[sim]\nduration = "1s"  # durée\n'.encode("latin-1"))
    _one_line_exit2(_cli("run", str(f)), "not UTF-8")


def test_a_symlink_to_a_device_is_refused_before_reading(tmp_path: Path) -> None:
    f = tmp_path / "zero.toml"
    f.symlink_to("/dev/zero")
    _one_line_exit2(_cli("run", str(f)), "not a regular file")


def test_a_set_path_thousands_of_levels_deep_is_one_line() -> None:
    deep = "a." * 3000 + "b=1"
    _one_line_exit2(_cli("run", str(ROOT / "examples" / "lossy_link.toml"), "--set", deep), "3001 parts", "at most 16")


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    # opened without blocking and checked on the descriptor: a FIFO with no
    # writer (or one swapped in after a stat) cannot hang the run
    f = tmp_path / "pipe.toml"
    os.mkfifo(f)
    _one_line_exit2(_cli("run", str(f)), "not a regular file")


def test_a_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "big.toml"
    f.write_text("# " + "x" * 5000 + "\n")
    _one_line_exit2(_cli("run", str(f), env={"CCSIM_MAX_FILE_BYTES": "1000"}), "larger than the limit")


def test_yaml_duplicate_keys_and_aliases_are_refused(tmp_path: Path) -> None:
    dup = tmp_path / "dup.yaml"
    dup.write_text("sim:\n  duration: 1s\nsim:\n  duration: 2s\n")
    _one_line_exit2(_cli("run", str(dup)), "duplicate key 'sim'")
    bomb = tmp_path / "bomb.yaml"
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 12):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    bomb.write_text("\n".join(lines) + "\n")
    _one_line_exit2(_cli("run", str(bomb)), "aliases are not accepted")


def test_deeply_nested_yaml_is_one_line(tmp_path: Path) -> None:
    f = tmp_path / "deep.yaml"
    f.write_text("sim: " + "[" * 3000 + "]" * 3000 + "\n")
    _one_line_exit2(_cli("run", str(f)), "deep.yaml")


@pytest.mark.parametrize(
    "where,key,value,field",
    [
        ("topology", "rate", "1e30bps", "topology.rate"),
        ("topology", "buffer", "1000000000000pkt", "topology.buffer"),
        ("topology", "buffer", "1e9bdp", "topology.buffer"),
        ("flows", "size", "1e20B", "flows[0].size"),
        ("tcp", "initial_window", 10**9, "tcp.initial_window"),  # the field as the user wrote it
    ],
)
def test_absurd_magnitudes_are_refused_by_field(where: str, key: str, value: str | int, field: str) -> None:
    d: dict[str, Any] = {
        "sim": {"duration": "1s"},
        "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "5ms"},
        "tcp": {},
        "flows": [{"app": "file", "size": "10KB"}],
    }
    (d[where][0] if where == "flows" else d[where])[key] = value
    with pytest.raises(ScenarioError) as e:
        Scenario(d).run()
    assert str(e.value).startswith(field), str(e.value)


# ---- memory a run's recorded tables need (ccsim.memory)


def test_trace_memory_limit_is_configurable_and_names_the_trace(monkeypatch: MonkeyPatch) -> None:
    monkeypatch.setenv("CCSIM_MAX_MEMORY", "1MB")
    # 10 Mb/s for 10 s is at most ~8,300 full segments; the seq trace (2 rows
    # each, 160 B a row) is ~2.7 MB, above a 1 MB limit.
    m = err(GOOD.replace('duration = "10s"', 'duration = "10s"\ntrace = ["seq"]\nsample_interval = "off"'))
    assert m.startswith("sim.trace:") and "seq_trace" in m and "CCSIM_MAX_MEMORY" in m
    monkeypatch.setenv("CCSIM_MAX_MEMORY", "100MB")
    Scenario.from_toml(GOOD.replace('duration = "10s"', 'duration = "10s"\ntrace = ["seq"]'))
    monkeypatch.setenv("CCSIM_MAX_MEMORY", "lots")
    with pytest.raises(ScenarioError, match="CCSIM_MAX_MEMORY"):
        Scenario.from_toml(GOOD)


def test_memory_estimate_bounds_the_rows_a_run_records() -> None:
    """The estimate's per-packet bound comes from link capacity alone (the
    slowest link of each path, shared by the flows that cross it), so a real
    run - here 3 flows through a 10 Mb/s bottleneck with drops - records at
    most that many trace rows, and exactly the predicted series rows."""
    from ccsim import memory

    sc = (
        Builder(duration="3s", seed=3, sample_interval="10ms", trace=["rtt", "seq", "cc"])
        .dumbbell(
            bottleneck_rate="10Mbps",
            bottleneck_delay="10ms",
            access_rate="100Mbps",
            access_delay="1ms",
            buffer="0.5bdp",
        )
        .tcp(cc="cubic", delayed_ack=False)
        .flows(count=3, app="bulk")
        .build()
    )
    est = memory.estimate_rows(sc.core)
    res = sc.run()
    # capacity bound: 10 Mb/s × 3 s / (1488 B × 8) segments, no matter how many flows
    assert est["rtt_trace"] == int(10e6 * 3 / (8 * 1488)) + 1
    assert res.table("rtt_trace").height <= est["rtt_trace"]
    assert res.table("seq_trace").height <= est["seq_trace"]
    samples = 300 + 1  # 0, 10 ms, ..., 3 s
    assert est["flow_series"] == res.flow_series.height == samples * 3
    assert est["link_series"] == res.link_series.height
    # the bound is not absurdly loose: the bottleneck was busy
    assert res.table("rtt_trace").height > 0.5 * est["rtt_trace"]


def test_out_of_memory_in_a_run_is_one_line_not_a_traceback(
    monkeypatch: MonkeyPatch, tmp_path: Path, capsys: CaptureFixture[str]
) -> None:
    from ccsim.analysis import results
    from ccsim.tools import cli

    def boom(sc: Any, control: Any = None) -> NoReturn:
        raise MemoryError

    monkeypatch.setattr(results, "run_scenario", boom)
    f = tmp_path / "s.toml"
    f.write_text(GOOD)
    assert cli.main(["run", str(f), "--out", str(tmp_path / "o")]) == 2
    err_lines = capsys.readouterr().err.strip().splitlines()
    assert len(err_lines) == 1 and "out of memory" in err_lines[0] and "CCSIM_MAX_MEMORY" in err_lines[0]
    assert not (tmp_path / "o" / "manifest.json").exists()


@pytest.mark.parametrize(
    "change, message",
    [
        # the Python bound is the core's (exported), so the error names the user's field, not flows[0].tcp...
        ({"tcp": {"initial_window": 10**9}}, "tcp.initial_window: got 1000000000; expected an integer ≤ 1000000"),
        # a reversed CBR window is refused in the user's field and unit, not udp[0].stop_ps in picoseconds
        (
            {"flows": [{"app": "cbr", "rate": "1Mbps", "start": "3s", "stop": "1s"}]},
            "flows[0].stop: got '1s'; expected a time after the source's start (3s)",
        ),
        # a RED that never marks would ignore mark_p: refused, not ignored
        (
            {
                "topology": {
                    "kind": "single_link",
                    "rate": "10Mbps",
                    "delay": "10ms",
                    "queue": {"kind": "red", "mark_p": 0.5},
                }
            },
            "topology.queue.mark_p: got 0.5; expected left out unless ecn = true",
        ),
    ],
)
def test_errors_name_the_users_field_in_the_users_unit(change: dict[str, Any], message: str) -> None:
    raw = {
        "sim": {"duration": "5s"},
        "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "10ms"},
        "flows": [{"app": "bulk"}],
    } | change
    with pytest.raises(ScenarioError) as ei:
        Scenario(raw)
    assert message in str(ei.value)
    assert "_ps" not in str(ei.value) and "flows[0].tcp." not in str(ei.value)


def test_worker_counts_seeds_and_size_limits_that_cannot_be_meant_are_refused(tmp_path: Path) -> None:
    """-j -1 used to compute nothing and exit 0, -j 500 started 500
    interpreters, a malformed $CCSIM_MAX_FILE_BYTES and a negative fuzz seed
    ended in tracebacks: each is now one line naming what was written."""
    import subprocess
    import sys

    sweep = str(ROOT / "examples" / "sweep_buffers.toml")
    out = str(tmp_path / "c")
    for j in ("-1", "0"):
        _one_line_exit2(_cli("sweep", sweep, "-j", j, "--out", out), "--jobs", f"got {j}", "≥ 1")
    _one_line_exit2(_cli("sweep", sweep, "-j", "100000", "--out", out), "--jobs", "per core", "--dask")
    assert not (tmp_path / "c" / "runs").exists() or not any((tmp_path / "c" / "runs").iterdir())
    scen = str(ROOT / "examples" / "lossy_link.toml")
    _one_line_exit2(
        _cli("run", scen, "--no-write", env={"CCSIM_MAX_FILE_BYTES": "abc"}), "CCSIM_MAX_FILE_BYTES", "'abc'"
    )
    _one_line_exit2(_cli("run", scen, "--no-write", env={"CCSIM_MAX_FILE_BYTES": "100B"}), "larger than the limit")
    r = subprocess.run([sys.executable, "-m", "ccsim.tools.fuzz", "1", "--seed", "-1"], capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "--seed" in r.stderr, r.stderr


def test_a_timeout_that_cannot_be_meant_and_a_dask_address_that_is_none_are_one_line(tmp_path: Path) -> None:
    """--timeout -1 and nan were accepted (and ignored by a dry run);
    --dask bogus ended in a ValueError traceback from distributed."""
    sweep = str(ROOT / "examples" / "sweep_buffers.toml")
    for t in ("-1", "nan", "0"):
        _one_line_exit2(_cli("sweep", sweep, "--dry-run", "--timeout", t), "--timeout", f"got '{t}'", "> 0")
    from ccsim.experiments.executors import Dask

    with pytest.raises(ScenarioError, match=r"--dask: cannot reach the Dask scheduler at 'bogus'"):
        Dask("bogus", 1)


@pytest.mark.parametrize("name", ["a->b", "x,y", " "])
def test_node_names_that_would_make_link_names_ambiguous_are_refused(name: str) -> None:
    """Links are named "a->b" in every table and in sim.sample_links and
    sim.pcap (comma-separated): a node called "a->b" made two links share a
    name, and sample_links silently picked the idle one."""
    raw = {
        "sim": {"duration": "1s"},
        "topology": {
            "kind": "explicit",
            "nodes": ["a", name, "b"],
            "links": [{"from": "a", "to": name, "rate": "10Mbps", "delay": "1ms"}],
        },
        "flows": [{"src": "a", "dst": name}],
    }
    with pytest.raises(
        ScenarioError, match=r"topology\.nodes: got .*expected a non-empty node name without '->' or ','"
    ):
        Scenario(raw)


def test_parallel_links_between_two_nodes_get_distinct_names() -> None:
    """Two links between the same nodes were both named "a->b": the second
    pair's rows were unaddressable and tables keyed by name merged them.
    The k-th link of a name is now "a->b#k", and sim.sample_links and
    sim.pcap accept it."""
    link = {"a": "a", "b": "b", "rate": "10Mbps", "delay": "5ms", "buffer": "20pkts"}
    raw = {
        "sim": {"duration": "200ms", "sample_links": ["a->b#2"], "pcap": ["a->b#2"]},
        "topology": {"kind": "explicit", "nodes": ["a", "b"], "links": [link, dict(link, rate="20Mbps")]},
        "flows": [{"src": "a", "dst": "b"}],
    }
    core = Scenario(raw).core
    names = [lk["name"] for lk in core["links"]]
    assert names == ["a->b", "b->a", "a->b#2", "b->a#2"]
    assert core["sample_links"] == [2]
    assert core["capture_links"] == [2]


RPC = {
    # the probe's RPC-like mix: 64 flows of 1 KB transfers with no think time
    # at 10 Gb/s make ~1.2 M transfers (and as many 'completed' events) per
    # simulated second
    "sim": {"duration": "12s"},
    "topology": {
        "kind": "dumbbell",
        "bottleneck_rate": "10Gbps",
        "bottleneck_delay": "10us",
        "access_rate": "10Gbps",
        "access_delay": "1us",
    },
    "flows": [{"count": 64, "app": "repeat", "size": "1KB", "think": "0s"}],
}


def test_transfers_and_their_events_are_in_the_memory_estimate(monkeypatch: MonkeyPatch) -> None:
    """The RPC mix ended in a Rust allocation abort even with
    CCSIM_MAX_MEMORY=200MB: `transfers` and `events` were not estimated.
    The bound: every 1 KB transfer needs one packet of the shared 10 Gb/s
    bottleneck, so at most 10 Gb/s × 12 s / (8 × (1000 + header)) of them."""
    from ccsim import memory

    sc = Scenario.from_dict(dict(RPC, sim={"duration": "200ms"}))
    est = memory.estimate_rows(sc.core)
    wire = 1000 + sc.core["flows"][0]["tcp"]["header_bytes"]
    assert est["transfers"] == int(10e9 * 0.2 / (8 * wire)) + 1
    res = sc.run()
    done = res.transfers.filter(res.transfers["end_s"].is_not_nan()).height
    assert done <= est["transfers"] and done > 0.8 * est["transfers"]  # the link was busy: the bound is tight
    monkeypatch.setenv("CCSIM_MAX_MEMORY", "200MB")
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(RPC)
    assert e.value.field == "flows" and "transfers" in str(e.value) and "0.2 GB" in str(e.value)


def test_transfers_with_exponential_think_times_are_bounded_by_a_poisson_tail() -> None:
    """A think time that may be 0 (exponential) allowed one transfer per
    one-way delay, 40 times the pacing study's count at 2.5 Gb/s, and refused
    its full runs. After the first, each transfer needs a think time, so they
    are at most the events of a Poisson process over the run."""
    from ccsim import memory
    from scipy import stats

    for mu in (0.5, 10, 100, 1000):
        k = memory.poisson_ceiling(mu)
        assert stats.poisson.sf(k - 1, mu) <= memory.THINK_TAIL  # P(N >= k), exact
        assert k < mu + 10 * mu**0.5 + 40, "not absurdly loose"
    mix = dict(
        RPC,
        sim={"duration": "5s"},
        flows=[{"count": 20, "app": "repeat", "size": "2KB", "think": {"dist": "exponential", "mean": "50ms"}}],
    )
    sc = Scenario.from_dict(mix)
    est = memory.estimate_rows(sc.core)["transfers"]
    assert est == 20 * (1 + memory.poisson_ceiling(5 / 0.05))
    rows = sc.run().transfers.height
    # about 100 think times of 50 ms in 5 s per flow (the transfers take a
    # few 22 µs RTTs), against a ceiling of 195: the bound is about twice
    # the mean, not 40 times
    assert 0.4 * est < rows <= est


def test_a_run_whose_tables_outgrow_the_limit_is_stopped_with_one_line(tmp_path: Path) -> None:
    """What no estimate can bound (a timer storm of RTOs of 1 µs records a
    timeout event each microsecond) is watched while the run goes: the core
    stops it past CCSIM_MAX_MEMORY with one line naming the table; a sweep
    records the run as failed, never as done."""
    storm = (
        '[sim]\nduration = "5s"\n[topology]\nkind = "single_link"\nrate = "10Mbps"\ndelay = "10ms"\n'
        '[tcp]\nmin_rto = "1us"\nmax_rto = "1us"\ninitial_rto = "1us"\n[[flows]]\ncount = 4\n'
    )
    f = tmp_path / "storm.toml"
    f.write_text(storm)
    env = {"CCSIM_MAX_MEMORY": "50MB"}
    r = _cli("run", str(f), "--out", str(tmp_path / "o"), env=env)
    _one_line_exit2(r, "events", "where the run was stopped", "tcp.max_rto", "CCSIM_MAX_MEMORY")
    assert not (tmp_path / "o" / "manifest.json").exists()
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('base = "storm.toml"\nseeds = [1]\n[grid]\n"tcp.cc" = ["newreno"]\n')
    r = _cli("sweep", str(sweep), "--out", str(tmp_path / "c"), env=env)
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    q = _cli(
        "query", str(tmp_path / "c"), "SELECT status, error LIKE '%where the run was stopped%' AS stopped FROM runs"
    )
    assert "failed" in q.stdout and "true" in q.stdout, q.stdout


@pytest.mark.parametrize(
    "flow, field, words",
    [
        ({"app": "onoff", "on": "1ps", "off": "1s"}, "flows[0].on", "at least 1 µs"),
        ({"app": "onoff", "on": "1s", "off": {"dist": "uniform", "min": "1ps", "max": "1us"}}, "flows[0].off", "1 µs"),
        ({"app": "cbr", "rate": "1Mbps", "on": "1s", "off": "100ns"}, "flows[0].off", "1 µs"),
        ({"app": "cbr", "rate": "100Tbps", "packet_size": "40B"}, "flows[0].rate", "at most 320 Gb/s"),
    ],
)
def test_timers_that_would_make_an_event_storm_are_refused(flow: dict[str, Any], field: str, words: str) -> None:
    """ON/OFF periods of a picosecond (one event per state) and a CBR source
    faster than a packet per nanosecond hung a run; RTO bounds below 1 µs
    (below what Linux's tcp_rto_min_us can express) are refused by the core's
    schema (tcp.min_rto, see test_house)."""
    raw = {"sim": {"duration": "1s"}, "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "10ms"}}
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(dict(raw, flows=[flow]))
    assert e.value.field == field and words in str(e.value), str(e.value)
    with pytest.raises(ScenarioError, match=r"tcp\.max_rto: got '999ns'; expected a time ≥ 1us"):
        Scenario.from_dict(dict(raw, flows=[{}], tcp={"max_rto": "999ns"}))


def test_flows_name_shared_tcp_tables_by_index_with_the_same_result() -> None:
    """`to_core_json` writes each flow group's TCP table once (`tcp_tables`)
    and the flows name it by index; the core reads both forms to the same
    run, and an index that names no table is one line naming it."""
    sc = Scenario.from_dict(
        {
            "sim": {"duration": "2s"},
            "topology": {
                "kind": "dumbbell",
                "bottleneck_rate": "10Mbps",
                "bottleneck_delay": "10ms",
                "access_rate": "100Mbps",
                "access_delay": "1ms",
            },
            "flows": [{"count": 3, "cc": "cubic"}, {"count": 2, "cc": "bbr", "app": "repeat", "size": "20KB"}],
        }
    )
    shared = json.loads(sc.to_core_json())
    assert len(shared["tcp_tables"]) == 2 and [f["tcp"] for f in shared["flows"]] == [0, 0, 0, 1, 1]
    inline = json.dumps(sc.core)
    a, b = _core.run(sc.to_core_json()), _core.run(inline)
    assert a["events"] == b["events"]
    for name in ("flows", "transfers", "events"):
        assert [(c, d) for c, _, d in a["tables"][name]] == [(c, d) for c, _, d in b["tables"][name]], name
    shared["flows"][4]["tcp"] = 7
    with pytest.raises(_core.ScenarioError, match=r"tcp: 7 is not the index of a table in tcp_tables"):
        _core.run(json.dumps(shared))
    # The core checks an application once for a run of equal ones: a bad
    # one is still found, and named at the first flow that has it.
    for bad_flows, named in (([4], 4), ([3, 4], 3)):
        core = json.loads(sc.to_core_json())
        for i in bad_flows:
            core["flows"][i]["app"]["size"] = {"kind": "fixed", "value": 0}
        with pytest.raises(_core.ScenarioError, match=rf"^flows\[{named}\]\.size: got .*expected a size above 0"):
            _core.run(json.dumps(core))


def test_every_sim_option_is_checked_by_the_cores_schema() -> None:
    """[sim] is resolved from the core's table (config/sim_schema.rs): each
    option with a value outside its kind is refused under its own name; the
    required one is named when missing; the core itself, handed a resolved
    scenario with a zero duration or sampling period, names the option as
    a scenario writes it."""
    from ccsim.scenario.resolve import SIM_OPTS, SIM_SCHEMA

    bad = {"time": "0s", "int": -1, "time_or_off": "never", "choice_list": ["rtt", "rtt"], "links": 5}
    for name, o in SIM_OPTS.items():
        extra = f"{name} = {json.dumps(bad[o['kind']['type']])}"
        text = GOOD.replace('duration = "10s"', extra if name == "duration" else f'duration = "10s"\n{extra}')
        assert err(text).startswith(f"sim.{name}: got"), (name, err(text))
    assert SIM_SCHEMA["required"] == ["duration"]
    assert "sim.duration: missing" in err(GOOD.replace('duration = "10s"', "seed = 3"))
    core = json.loads(Scenario.from_toml(GOOD).to_core_json())
    for field, name in (("duration_ps", "duration"), ("sample_interval_ps", "sample_interval")):
        with pytest.raises(_core.ScenarioError, match=f"sim.{name}: got 0 ps"):
            _core.run(json.dumps({**core, field: 0}))


@pytest.mark.parametrize(
    "queue, field",
    [
        ({"kind": "pie", "alpha": math.inf}, "topology.queue.alpha"),
        ({"kind": "dualpi2", "beta": -math.inf}, "topology.queue.beta"),
        ({"kind": "red", "max_p": math.nan}, "topology.queue.max_p"),
    ],
)
def test_a_non_finite_queue_option_is_refused_at_the_first_check(queue: dict[str, Any], field: str) -> None:
    raw = {
        "sim": {"duration": "1s"},
        "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "10ms", "queue": queue},
        "flows": [{"count": 1}],
    }
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.Scenario(raw)
    assert str(e.value).startswith(f"{field}: got ") and "\n" not in str(e.value)
