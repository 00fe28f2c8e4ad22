"""Congestion control written in Python (ccsim.Algorithm), run by the core.

The oracles are the core's own algorithms, which follow Linux: a Python
port of Linux Reno written with the kernel's helpers must give byte-identical
result tables to the built-in `reno`, and a port of Linux CUBIC (without
HyStart, in the kernel's integer arithmetic) to the built-in `cubic` with
standard slow start."""

import _thread
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import ccsim
import pytest
from ccsim import cc
from ccsim.cc import Tcp
from helpers import dumbbell
from pytest import MonkeyPatch

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
TABLES = ("flows", "links", "flow_series", "link_series", "events", "transfers")


@pytest.fixture(autouse=True)
def _examples_importable(monkeypatch: MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))


def same_tables(a: ccsim.Result, b: ccsim.Result) -> None:
    """Every result table equal, the `cc` column (the algorithm's name) aside."""
    for name in TABLES:
        x, y = a.table(name), b.table(name)
        if "cc" in x.columns:
            assert (x["cc"] != y["cc"]).all() or x.height == 0
            x, y = x.drop("cc"), y.drop("cc")
        assert x.equals(y), name


@pytest.mark.parametrize("loss", [None, {"kind": "bernoulli", "p": 0.01}])
def test_reno_port_is_byte_identical_to_builtin(loss: dict[str, Any] | None) -> None:
    builtin = dumbbell(duration="20s", tcp={"cc": "reno"})
    port = dumbbell(duration="20s", tcp={"cc": "py:pyreno:PyReno"})
    if loss:
        builtin = builtin.with_overrides({"topology.loss": loss})
        port = port.with_overrides({"topology.loss": loss})
    a, b = builtin.run(), port.run()
    assert set(b.flows["cc"]) == {"pyreno"}
    assert a.flows["retransmits"].sum() > 0, "the scenario must exercise loss recovery"
    same_tables(a, b)


@pytest.mark.parametrize("loss", [None, {"kind": "bernoulli", "p": 0.01}, {"kind": "bernoulli", "p": 0.08}])
def test_cubic_port_agrees_with_builtin_to_the_last_packet(loss: dict[str, Any] | None) -> None:
    builtin = dumbbell(duration="20s", tcp={"cc": "cubic", "cc_preset": "no_hystart"})
    port = dumbbell(duration="20s", tcp={"cc": "py:pycubic:PyCubic"})
    if loss:
        builtin = builtin.with_overrides({"topology.loss": loss})
        port = port.with_overrides({"topology.loss": loss})
    a, b = builtin.run(), port.run()
    if loss and loss["p"] > 0.05:
        # the RTO path (set_state(CA_LOSS) resets the curve) is exercised
        assert a.flows["timeouts"].sum() > 0
    same_tables(a, b)


def test_cubic_port_parameters_reach_the_constructor() -> None:
    a = dumbbell(n=2, duration="10s", tcp={"cc": "cubic", "cc_preset": "no_hystart", "cc_params": {"beta": 0.5}}).run()
    b = dumbbell(n=2, duration="10s", tcp={"cc": "py:pycubic:PyCubic", "cc_params": {"beta": 0.5}}).run()
    same_tables(a, b)


class HalfReno(ccsim.Algorithm):
    """Reno that backs off to 3/4 instead of 1/2 (an invented variant)."""

    name = "halfreno"

    def ssthresh(self, tp: Tcp) -> int:
        return max(tp.cwnd * 3 // 4, 2)

    def cong_avoid(self, tp: Tcp, acked: int) -> None:
        cc.reno_cong_avoid(tp, acked)


def test_registered_class_runs_by_name_and_backs_off_by_its_own_rule() -> None:
    ccsim.register_algorithm(HalfReno)
    sc = dumbbell(n=1, duration="20s", tcp={"cc": "halfreno"}, sample_interval="10ms")
    r = sc.run()
    assert r.flows["cc"].to_list() == ["halfreno"]
    # every reduction goes to 3/4 of the window (the cwnd series: the sample
    # after a fast retransmit holds ssthresh = floor(3/4 · cwnd) or more)
    ev = r.events.filter(r.events["kind"] == "fast_retransmit")
    assert ev.height > 0
    s = r.flow_series
    drops = [(w0, w1) for w0, w1 in zip(s["cwnd"][:-1], s["cwnd"][1:]) if w1 < w0]
    assert drops and all(w1 >= w0 * 3 // 4 - 1 for w0, w1 in drops)


def test_builtin_names_are_refused_for_python_classes() -> None:
    class Cubic(ccsim.Algorithm):
        name = "cubic"

        def ssthresh(self, tp: Tcp) -> int:
            return 2

        def cong_avoid(self, tp: Tcp, acked: int) -> None:
            pass

    with pytest.raises(TypeError, match="built-in"):
        ccsim.register_algorithm(Cubic)


def _run_module(tmp_path: Path, monkeypatch: MonkeyPatch, source: str, **tcp: Any) -> ccsim.Result:
    (tmp_path / "useralgo.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("useralgo", None)
    return dumbbell(n=2, duration="5s", tcp={"cc": "py:useralgo:Algo", **tcp}).run()


HEAD = "import ccsim\nfrom ccsim import cc\nclass Algo(ccsim.Algorithm):\n    name = 'algo'\n"


def test_an_exception_in_a_hook_is_the_users_own_with_flow_and_time(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    src = HEAD + (
        "    def ssthresh(self, tp):\n        return max(tp.cwnd // 2, 2)\n"
        "    def cong_avoid(self, tp, acked):\n"
        "        if tp.now_s > 1.5:\n            raise ZeroDivisionError('my bug')\n"
        "        cc.reno_cong_avoid(tp, acked)\n"
    )
    with pytest.raises(ZeroDivisionError, match="my bug") as ei:
        _run_module(tmp_path, monkeypatch, src)
    notes = " ".join(getattr(ei.value, "__notes__", []))
    assert "algo.cong_avoid()" in notes and "flow " in notes and "simulated time 1.5" in notes
    # the user's own frame is in the traceback
    assert any(f.name == "cong_avoid" and str(f.path).endswith("useralgo.py") for f in ei.traceback)


@pytest.mark.parametrize(
    "body, exc, match",
    [
        ("    def ssthresh(self, tp):\n        return 'two'\n", TypeError, r"algo\.ssthresh\(\) returned two"),
        ("    def ssthresh(self, tp):\n        return 0\n", ValueError, r"algo\.ssthresh\(\) returned 0"),
        ("    def ssthresh(self, tp):\n        tp.cwnd = 3\n        return 2\n", AttributeError, "read-only"),
    ],
)
def test_bad_ssthresh_is_a_clear_error(
    tmp_path: Path, monkeypatch: MonkeyPatch, body: str, exc: type[Any], match: str
) -> None:
    src = HEAD + body + "    def cong_avoid(self, tp, acked):\n        cc.reno_cong_avoid(tp, acked)\n"
    with pytest.raises(exc, match=match):
        _run_module(tmp_path, monkeypatch, src)


@pytest.mark.parametrize(
    "stmt, exc, match",
    [
        ("tp.cwnd = 0", ValueError, r"tp\.cwnd = 0: expected a whole number of segments in \[1,"),
        ("tp.cwnd = 2.5", TypeError, r"tp\.cwnd = 2\.5 \(float\)"),
        ("tp.pacing_rate = -1.0", ValueError, r"tp\.pacing_rate = -1"),
    ],
)
def test_bad_window_written_by_a_hook_is_refused_on_the_users_line(
    tmp_path: Path, monkeypatch: MonkeyPatch, stmt: str, exc: type[Any], match: str
) -> None:
    src = (
        HEAD + f"    def ssthresh(self, tp):\n        return 2\n    def cong_avoid(self, tp, acked):\n        {stmt}\n"
    )
    with pytest.raises(exc, match=match) as ei:
        _run_module(tmp_path, monkeypatch, src)
    assert ei.traceback[-1].name == "cong_avoid"


def test_scenario_errors_name_the_field(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ccsim.ScenarioError, match=r"tcp\.cc: cannot load 'py:nosuchmodule:X'"):
        dumbbell(n=1, duration="1s", tcp={"cc": "py:nosuchmodule:X"})
    with pytest.raises(ccsim.ScenarioError, match=r"tcp\.cc: got 'py:pyreno'; expected 'py:MODULE:CLASS'"):
        dumbbell(n=1, duration="1s", tcp={"cc": "py:pyreno"})
    with pytest.raises(ccsim.ScenarioError, match=r"tcp\.cc_params: .*does not fit PyReno"):
        dumbbell(n=1, duration="1s", tcp={"cc": "py:pyreno:PyReno", "cc_params": {"beta": 0.5}})
    with pytest.raises(ccsim.ScenarioError, match=r"tcp\.cc_preset: got 'linux'; expected none"):
        dumbbell(n=1, duration="1s", tcp={"cc": "py:pycubic:PyCubic", "cc_preset": "linux"})
    (tmp_path / "notalgo.py").write_text("class X:\n    pass\n")
    with pytest.raises(ccsim.ScenarioError, match="not a subclass of ccsim.Algorithm"):
        dumbbell(n=1, duration="1s", tcp={"cc": "py:notalgo:X"})
    with pytest.raises(ccsim.ScenarioError, match="py:MODULE:CLASS"):
        dumbbell(n=1, duration="1s", tcp={"cc": "pyrenoo"})


def test_a_class_without_required_hooks_is_refused() -> None:
    class NoAvoid(ccsim.Algorithm):
        def ssthresh(self, tp: Tcp) -> int:
            return 2

    with pytest.raises(TypeError, match="cong_avoid.*or cong_control"):
        ccsim.register_algorithm(NoAvoid)


def test_ctrl_c_stops_a_run_inside_python_hooks() -> None:
    import signal

    # Python's own SIGINT handler (an earlier test's import of
    # dask_jobqueue.runner replaces it with one that exits)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    sc = dumbbell(n=10, duration="600s", tcp={"cc": "py:pyreno:PyReno"}, sample_interval="off")
    t = threading.Timer(1.0, _thread.interrupt_main)
    t.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sc.run()
    finally:
        t.cancel()
        signal.signal(signal.SIGINT, old)


def test_cli_sweep_pool_and_dask_give_identical_results(tmp_path: Path) -> None:
    """From a TOML file through the CLI, a sweep on the process pool and on
    Dask (worker processes import the module): the same numbers."""
    (tmp_path / "pyreno.py").write_text((EXAMPLES / "pyreno.py").read_text())
    sc = dumbbell(n=3, duration="5s", tcp={"cc": "py:pyreno:PyReno"})
    (tmp_path / "base.toml").write_text(sc.to_toml())
    (tmp_path / "sweep.toml").write_text(
        'base = "base.toml"\nseeds = 1\n[grid]\n"topology.buffer" = ["0.5bdp", "1bdp"]\n'
    )
    env = {"PATH": str(Path(sys.executable).parent)}
    ccsim_bin = str(Path(sys.executable).parent / "ccsim")
    one = subprocess.run(
        [ccsim_bin, "run", "base.toml", "--no-write", "--json", "--allow-code"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert one.returncode == 0, one.stderr
    single = json.loads(one.stdout)
    out = {}
    for how, args in (("pool", ["-j", "2"]), ("dask", ["--dask", "local"])):
        p = subprocess.run(
            [ccsim_bin, "sweep", "sweep.toml", "--out", how, "--allow-code", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
        )
        assert p.returncode == 0, p.stderr
        q = subprocess.run(
            [
                ccsim_bin,
                "query",
                how,
                'SELECT "topology.buffer" AS b, id, goodput_bps, retransmits FROM flows ORDER BY 1, 2',
                "--json",
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
        )
        assert q.returncode == 0, q.stderr
        out[how] = json.loads(q.stdout)
    assert out["pool"] == out["dask"]
    # the sweep's 1 BDP run is the CLI's single run, flow by flow
    sweep_1bdp = [(r["goodput_bps"], r["retransmits"]) for r in out["pool"] if r["b"] == "1bdp"]
    assert sweep_1bdp == [(f["goodput_bps"], f["retransmits"]) for f in single["flows"]]


def _readme_blocks(marker: str) -> str:
    import re

    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    found = [b for b in blocks if marker in b]
    assert len(found) == 1, marker
    return str(found[0])


@pytest.mark.parametrize("marker, expect", [("register_algorithm", "halfreno"), ("ccsim.gym", "final rate")])
def test_readme_snippets_run_as_scripts_and_in_a_notebook(tmp_path: Path, marker: str, expect: str) -> None:
    import nbformat
    from nbclient import NotebookClient

    code = _readme_blocks(marker)
    (tmp_path / "examples").symlink_to(EXAMPLES)
    (tmp_path / "snippet.py").write_text(code)
    p = subprocess.run([sys.executable, "snippet.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert expect in p.stdout
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(code))
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    out = "".join(o.get("text", "") for o in nb.cells[0].outputs)
    assert expect in out


# ---------------------------------------------------------------- defects a first day found


def test_subpackage_cc_is_reachable_after_a_plain_import() -> None:
    code = "import ccsim; print(ccsim.cc.slow_start.__name__, ccsim.cc.CA_ACK_ECE)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.split()[0] == "slow_start", r.stderr


def test_a_class_defined_inside_a_function_is_refused_at_registration() -> None:
    def make() -> type[ccsim.Algorithm]:
        class Inner(ccsim.Algorithm):
            name = "inner"

            def ssthresh(self, tp: Tcp) -> int:
                return 2

            def cong_avoid(self, tp: Tcp, acked: int) -> None:
                cc.reno_cong_avoid(tp, acked)

        return Inner

    with pytest.raises(TypeError, match=r"defined inside a function.*top level"):
        ccsim.register_algorithm(make())


@pytest.mark.parametrize(
    "typo, meant", [("pkt_acked", "pkts_acked"), ("congavoid", "cong_avoid"), ("setstate", "set_state")]
)
def test_a_misspelt_hook_is_refused_with_the_hook_it_resembles(typo: str, meant: str) -> None:
    ns: dict[str, Any] = {}
    exec(
        "import ccsim\nfrom ccsim import cc\n"
        "class Typo(ccsim.Algorithm):\n    name = 'typo'\n"
        "    def ssthresh(self, tp):\n        return 2\n"
        "    def cong_avoid(self, tp, acked):\n        cc.reno_cong_avoid(tp, acked)\n"
        f"    def {typo}(self, tp, x=None):\n        pass\n",
        ns,
    )
    with pytest.raises(TypeError, match=rf"Typo\.{typo} looks like a hook.*did you mean {meant}\?"):
        ccsim.register_algorithm(ns["Typo"])


class Helpers(ccsim.Algorithm):
    name = "helpers"

    def ssthresh(self, tp: Tcp) -> int:
        return 2

    def cong_avoid(self, tp: Tcp, acked: int) -> None:
        self.cong_avoid_ai(tp, acked)

    def cong_avoid_ai(self, tp: Tcp, acked: int) -> None:  # a helper named after Linux's
        cc.reno_cong_avoid(tp, acked)

    def get_state(self) -> None:
        return None


def test_helper_methods_far_from_every_hook_are_accepted() -> None:
    assert ccsim.register_algorithm(Helpers) is Helpers


def test_a_kept_tp_refuses_writes_after_its_hook_and_from_another_flows_hook(
    tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    # flow 0 keeps its tp; flow 1's hook writes through it: refused, naming the stale view
    src = HEAD + (
        "    kept = {}\n"
        "    def ssthresh(self, tp):\n        return 2\n"
        "    def cong_avoid(self, tp, acked):\n"
        "        Algo.kept.setdefault(tp.flow, tp)\n"
        "        if tp.flow == 1 and 0 in Algo.kept:\n            Algo.kept[0].cwnd = 5\n"
        "        cc.reno_cong_avoid(tp, acked)\n"
    )
    with pytest.raises(AttributeError, match=r"belongs to flow 0's hook cong_avoid\(\), which has returned"):
        _run_module(tmp_path, monkeypatch, src)
    # after the run, a kept tp refuses too
    src = HEAD + (
        "    kept = []\n"
        "    def ssthresh(self, tp):\n        return 2\n"
        "    def cong_avoid(self, tp, acked):\n        Algo.kept.append(tp)\n        cc.reno_cong_avoid(tp, acked)\n"
    )
    _run_module(tmp_path, monkeypatch, src)
    import useralgo  # type: ignore[import-not-found]  # the module the test just wrote

    with pytest.raises(AttributeError, match="valid only during the hook call"):
        useralgo.Algo.kept[0].cwnd = 7
    with pytest.raises(AttributeError, match="valid only during the hook call"):
        useralgo.Algo.kept[0].pacing_rate = 1e6


@pytest.mark.parametrize("rate", [5e-5, 8e-5, 0.999])
def test_a_pacing_rate_below_one_byte_per_second_is_refused(
    tmp_path: Path, monkeypatch: MonkeyPatch, rate: float
) -> None:
    src = HEAD + (
        "    def ssthresh(self, tp):\n        return 2\n"
        f"    def cong_avoid(self, tp, acked):\n        tp.pacing_rate = {rate!r}\n"
    )
    with pytest.raises(ValueError, match=r"tp\.pacing_rate = .*expected bytes per second, a finite number ≥ 1"):
        _run_module(tmp_path, monkeypatch, src)


def test_tiny_and_huge_pacing_rates_do_what_they_say(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    # 1,500 B/s paces a 1,500-byte packet per second: over 5 s with the
    # first packets sent at once (the rate applies after the first ACK)
    # a flow delivers at most (IW + 5) packets' payload; 1e15 B/s leaves
    # every gap at 0 ps, so the flows fill the 100 Mb/s bottleneck
    tmpl = HEAD + (
        "    def ssthresh(self, tp):\n        return max(tp.cwnd // 2, 2)\n"
        "    def cong_avoid(self, tp, acked):\n        tp.pacing_rate = {rate}\n        cc.reno_cong_avoid(tp, acked)\n"
    )
    slow = _run_module(tmp_path, monkeypatch, tmpl.format(rate="1500.0"))
    for f in slow.flows.iter_rows(named=True):
        assert f["delivered_bytes"] <= (10 + 5 + 1) * 1448, f
        assert f["delivered_bytes"] >= 10 * 1448
    fast = _run_module(tmp_path, monkeypatch, tmpl.format(rate="1e15"))
    assert fast.flows["goodput_bps"].sum() > 0.9 * 100e6


def test_dask_workers_without_the_algorithms_module_receive_it(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    """The module lives where only the client can import it (not on the
    workers' path, not in their working directory): the executor uploads
    its file, and the run equals the in-process one."""
    import importlib

    from dask.distributed import Client, LocalCluster

    algos = tmp_path / "algos"
    algos.mkdir()
    (algos / "shipped_reno.py").write_text((EXAMPLES / "pyreno.py").read_text())
    monkeypatch.syspath_prepend(str(algos))
    importlib.import_module("shipped_reno")
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(algos)])
    sc = dumbbell(n=2, duration="2s", tcp={"cc": "py:shipped_reno:PyReno"})
    here = sc.run()
    sw = ccsim.Sweep(sc, seeds=[1])
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cl, Client(cl) as c:
        probe = c.submit(lambda: __import__("importlib").util.find_spec("shipped_reno") is None, pure=False)
        assert probe.result(), "the worker must not see the module by itself"
        rep = ccsim.run_sweep(sw, tmp_path / "c", dask=c)
    assert rep.computed == 1
    got = ccsim.open_campaign(tmp_path / "c").table("flows")
    assert got["goodput_bps"].to_list() == here.flows["goodput_bps"].to_list()


# ------------------------------------------------- what algorithms see beside the hooks


def test_rto_rttvar_rwnd_and_backlog_as_their_definitions_say(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    """RFC 6298 §2.3: RTO = max(min_rto, SRTT + max(G, K·RTTVAR)), K = 4, G
    the clock granularity; tp.rttvar_s is K·RTTVAR. A 1,000-segment file:
    the backlog is what the sender has not sent yet. rwnd as configured."""
    src = HEAD + (
        "    seen = []\n"
        "    def ssthresh(self, tp):\n        return max(tp.cwnd // 2, 2)\n"
        "    def cong_avoid(self, tp, acked):\n"
        "        Algo.seen.append((tp.srtt_s, tp.rttvar_s, tp.rto_s, tp.rwnd, tp.app_backlog, tp.snd_nxt))\n"
        "        cc.reno_cong_avoid(tp, acked)\n"
    )
    (tmp_path / "useralgo.py").write_text(src)
    monkeypatch.syspath_prepend(str(tmp_path))
    import sys as _sys

    _sys.modules.pop("useralgo", None)
    tcp = {"cc": "py:useralgo:Algo", "rto": "rfc6298", "min_rto": "10ms", "clock_granularity": "1ms", "rwnd": "40pkt"}
    sc = (
        ccsim.Builder(duration="10s", seed=1)
        .dumbbell(bottleneck_rate="20Mbps", bottleneck_delay="18ms", access_rate="1Gbps", access_delay="1ms")
        .tcp(**tcp)
        .flows(count=1, app="file", size=f"{1000 * 1448}B")
        .build()
    )
    sc.run()
    import useralgo

    seen = useralgo.Algo.seen
    assert len(seen) > 50
    for srtt, var, rto, rwnd, backlog, nxt in seen:
        assert rwnd == 40
        assert backlog == 1000 - nxt
        if srtt is not None:
            assert rto == pytest.approx(max(0.01, srtt + max(0.001, var)), abs=1e-9)
    assert any(r[2] > 0.01 + 1e-6 for r in seen), "the sum, not the floor, decides somewhere"
    # a bulk source has no backlog to count; with neither rwnd nor the
    # receiver's autotuning there is no window (None); with autotuning the
    # window the receiver offers only grows here (no reads fall behind)
    useralgo.Algo.seen.clear()
    dumbbell(n=1, duration="2s", tcp={"cc": "py:useralgo:Algo", "rcv_autotune": False}).run()
    assert {(r[3], r[4]) for r in useralgo.Algo.seen} == {(None, None)}
    useralgo.Algo.seen.clear()
    dumbbell(n=1, duration="2s", tcp={"cc": "py:useralgo:Algo"}).run()
    offered = [r[3] for r in useralgo.Algo.seen]
    assert offered[0] >= 44 and offered == sorted(offered) and offered[-1] > offered[0]


def test_a_timer_hook_runs_every_interval_and_its_window_applies(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    """A window set only by the timer (CCP style): on_timer every 50 ms from
    the start; a 20-segment window every call is what the flow keeps."""
    src = HEAD + (
        "    timer_interval = 0.05\n"
        "    calls = []\n"
        "    def ssthresh(self, tp):\n        return max(tp.cwnd // 2, 2)\n"
        "    def cong_avoid(self, tp, acked):\n        pass\n"
        "    def on_timer(self, tp):\n        Algo.calls.append((tp.flow, tp.now_s))\n        tp.cwnd = 20\n"
    )
    res = _run_module(tmp_path, monkeypatch, src)
    import useralgo

    calls = useralgo.Algo.calls
    for f in (0, 1):
        ts = [t for fl, t in calls if fl == f]
        start = res.flows["start_s"][f]
        assert ts[0] == pytest.approx(start + 0.05, abs=1e-12)
        assert all(b - a == pytest.approx(0.05, abs=1e-12) for a, b in zip(ts, ts[1:]))
        assert len(ts) == int((5.0 - start) / 0.05 + 1e-9)
    s = res.flow_series.filter(res.flow_series["time_s"] > 0.2)
    assert set(s["cwnd"].to_list()) == {20}


@pytest.mark.parametrize(
    "attrs, match",
    [
        ("    timer_interval = 0.1\n", "timer_interval but no on_timer"),
        ("    def on_timer(self, tp):\n        pass\n", "on_timer but no timer_interval"),
        ("    timer_interval = 0.0\n    def on_timer(self, tp):\n        pass\n", r"timer_interval = 0\.0"),
    ],
)
def test_a_timer_needs_an_interval_and_a_hook(attrs: str, match: str) -> None:
    ns: dict[str, Any] = {}
    exec(
        "import ccsim\nfrom ccsim import cc\nclass T(ccsim.Algorithm):\n    name = 't'\n"
        "    def ssthresh(self, tp):\n        return 2\n    def cong_avoid(self, tp, acked):\n        pass\n" + attrs,
        ns,
    )
    with pytest.raises(TypeError, match=match):
        ccsim.register_algorithm(ns["T"])
