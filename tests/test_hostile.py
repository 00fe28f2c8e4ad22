"""A scenario file from someone else, and a run that will not end: what
ccsim does not do on its own (import code, hang, wait forever), each
checked where it failed before (docs/reliability.md)."""

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import ccsim
import pytest
from pytest import MonkeyPatch

ROOT = Path(__file__).resolve().parent.parent
CCSIM = [sys.executable, "-m", "ccsim"]
ZEN = "Beautiful is better than ugly"

SCENARIO = """
[sim]
duration = "2s"
seed = 1
[topology]
kind = "single_link"
rate = "10Mbps"
delay = "10ms"
[tcp]
cc = "{cc}"
[[flows]]
count = 2
app = "bulk"
"""


def ccsim_cli(*args: Any, cwd: str | Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CCSIM, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300)


def scenario_file(folder: Path, cc: str, name: str = "s.toml") -> Path:
    p = folder / name
    p.write_text(SCENARIO.format(cc=cc))
    return p


# ---------------------------------------------------------------- py: from a file


def test_a_scenario_file_imports_no_code_unless_the_user_allows_it(tmp_path: Path) -> None:
    """`py:this:X` (the standard library's `this` prints the Zen of Python
    when imported) from a file: refused in one line, nothing imported, with
    or without --allow-code (with it, only this.py in the file's folder is
    looked for, never the module path)."""
    f = scenario_file(tmp_path, "py:this:X")
    r = ccsim_cli("run", "--no-write", f)
    assert r.returncode == 2 and ZEN not in r.stdout + r.stderr
    assert "would import and run the Python module 'this'" in r.stderr and "--allow-code" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = ccsim_cli("run", "--no-write", "--allow-code", f)
    assert r.returncode == 2 and ZEN not in r.stdout + r.stderr
    assert "no module file" in r.stderr and str(tmp_path / "this.py") in r.stderr
    # the counterfactual: Python's own import would have run it
    r = subprocess.run([sys.executable, "-c", "import this"], capture_output=True, text=True)
    assert ZEN in r.stdout
    # the Python API says the same without allow_code
    with pytest.raises(ccsim.ScenarioError, match="would import and run"):
        ccsim.Scenario.from_file(f)
    with pytest.raises(ccsim.ScenarioError, match="would import and run"):
        ccsim.run(str(f))


def test_an_allowed_file_algorithm_is_found_beside_the_file_and_runs_on_worker_processes(tmp_path: Path) -> None:
    """With leave, MODULE.py beside the scenario (whatever the current
    directory) or at a path the reference gives; a sweep's worker
    processes, which do not have that folder on their path, load it from
    the same file. Results equal the built-in reno's (the port is exact)."""
    algos = tmp_path / "algos"
    algos.mkdir()
    shutil.copy(ROOT / "examples" / "pyreno.py", tmp_path / "myreno.py")
    shutil.copy(ROOT / "examples" / "pyreno.py", algos / "otherreno.py")
    beside = scenario_file(tmp_path, "py:myreno:PyReno")
    by_path = scenario_file(tmp_path, "py:algos/otherreno.py:PyReno", "p.toml")
    ref = ccsim.Scenario.from_file(scenario_file(tmp_path, "reno", "ref.toml")).run()
    for f in (beside, by_path):
        res = ccsim.Scenario.from_file(f, allow_code=True).run()
        assert res.flows["goodput_bps"].to_list() == ref.flows["goodput_bps"].to_list()
    sweep = tmp_path / "sw.toml"
    sweep.write_text('base = "s.toml"\nseeds = 2\n')
    r = ccsim_cli("sweep", "--out", tmp_path / "camp", "-q", sweep, cwd=ROOT)
    assert r.returncode == 2 and "--allow-code" in r.stderr, r.stderr
    r = ccsim_cli("sweep", "--out", tmp_path / "camp", "-q", "-j", "2", "--allow-code", sweep, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert ccsim.open_campaign(tmp_path / "camp").ok_runs.height == 2


def test_a_module_of_the_same_name_from_another_file_is_refused(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        shutil.copy(ROOT / "examples" / "pyreno.py", d / "samename_reno.py")
    ccsim.Scenario.from_file(scenario_file(a, "py:samename_reno:PyReno"), allow_code=True)
    with pytest.raises(ccsim.ScenarioError, match="already loaded from"):
        ccsim.Scenario.from_file(scenario_file(b, "py:samename_reno:PyReno"), allow_code=True)


# ---------------------------------------------------------------- hooks that never return

HOOKS = '''
import time
import ccsim


class Spin(ccsim.Algorithm):
    """cong_avoid never returns once 0.3 s have been simulated."""

    name = "spin"

    def ssthresh(self, tp):
        return 2

    def cong_avoid(self, tp, acked):
        while tp.now_s > 0.3:
            pass


class Swallow(Spin):
    """Spins, and swallows each interruption it gets (every hook call)."""

    name = "swallow"

    def cong_avoid(self, tp, acked):
        while tp.now_s > 0.3:
            try:
                while True:
                    pass
            except BaseException:
                pass


class Sleep(Spin):
    """Blocks inside C code (time.sleep), where no exception reaches it."""

    name = "sleeper"

    def cong_avoid(self, tp, acked):
        if tp.now_s > 0.3:
            time.sleep(10_000)
'''


@pytest.fixture
def hooks(tmp_path: Path) -> Path:
    (tmp_path / "hooks.py").write_text(HOOKS)
    return tmp_path


def no_process_left(pgid: int) -> bool:
    """Whether no process of the process group `pgid` is still running."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return False
    return True


def interrupt(args: list[str | Path], cwd: str | Path | None, after_s: float = 3.0) -> tuple[int, str, bool]:
    """Start `ccsim ARGS` in a session of its own, send its process group
    SIGINT after `after_s` (as a terminal's Ctrl-C does) and wait for it."""
    import os
    import signal
    import time

    p = subprocess.Popen([*CCSIM, *map(str, args)], cwd=cwd, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(after_s)
    os.killpg(p.pid, signal.SIGINT)
    try:
        err = p.communicate(timeout=120)[1]
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        pytest.fail(f"ccsim {' '.join(map(str, args))} did not end after Ctrl-C")
    time.sleep(0.2)
    return p.returncode, err, no_process_left(p.pid)


@pytest.mark.parametrize("cls", ["Spin", "Swallow"])
def test_a_timeout_stops_a_hook_that_never_returns(hooks: Path, cls: str) -> None:
    """`Scenario.run(timeout=)`, a serial sweep's --timeout and a dry run's
    calibration (each waited forever before). In a child process, so that
    a regression fails here instead of hanging the suite."""
    f = scenario_file(hooks, f"py:hooks:{cls}")
    code = f"""
import ccsim
sc = ccsim.Scenario.from_file({str(f)!r}, allow_code=True)
try:
    sc.run(timeout=1)
except TimeoutError as e:
    print("timeout:", e)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "timeout: " in r.stdout and "stopped after 1 s" in r.stdout, r.stderr
    (hooks / "sw.toml").write_text(f'base = "{f.name}"\nseeds = 2\n')
    r = subprocess.run(
        [*CCSIM, "sweep", "sw.toml", "--allow-code", "--serial", "--timeout", "1", "-q", "--out", "c"],
        cwd=hooks,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1 and r.stderr.count("timeout: timed out after 1 s") == 2, r.stderr
    r = subprocess.run(
        [*CCSIM, "sweep", "sw.toml", "--allow-code", "--dry-run", "--out", "d"],
        cwd=hooks,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0 and "2 runs" in r.stdout, r.stderr


def test_ctrl_c_ends_a_run_whose_hook_never_returns_with_exit_130(hooks: Path) -> None:
    """Before: 'interrupted … nothing was written', then SIGABRT (exit 134)
    as the interpreter stopped the still-spinning thread."""
    rc, err, gone = interrupt(["run", scenario_file(hooks, "py:hooks:Spin"), "--allow-code", "--no-write"], hooks)
    assert rc == 130 and "interrupted at simulated time" in err and gone, (rc, err)
    assert "did not return" not in err
    # a hook that swallows every interruption, or is blocked in C code,
    # cannot be stopped in its thread: the process still ends with 130
    # (said in one line), never with an abort
    for cls in ("Swallow", "Sleep"):
        rc, err, gone = interrupt(["run", scenario_file(hooks, f"py:hooks:{cls}"), "--allow-code", "--no-write"], hooks)
        assert rc == 130 and "hook did not return (it ignores interruptions" in err and gone, (cls, rc, err)


def test_ctrl_c_during_a_pool_sweep_leaves_no_worker_running(tmp_path: Path) -> None:
    """Busy workers are killed at once on Ctrl-C (the pool used to ask each
    to exit and wait 2 s for it first: 2.3 s with -j 2, 16.3 s with -j 8)."""
    long = SCENARIO.format(cc="cubic").replace('duration = "2s"', 'duration = "3600s"').replace("10Mbps", "1Gbps")
    (tmp_path / "long.toml").write_text(long)
    (tmp_path / "sw.toml").write_text('base = "long.toml"\nseeds = 4\n')
    rc, err, gone = interrupt(["sweep", "sw.toml", "-j", "2", "-q", "--out", "c"], tmp_path, after_s=5)
    assert rc == 130 and "interrupted; finished runs are kept" in err and gone, (rc, err)


# ---------------------------------------------------------------- the memory a process really has


def test_the_memory_guard_takes_the_address_space_limit_into_account(tmp_path: Path) -> None:
    """Under `ulimit -v` the default limit (half the physical memory) let a
    run start whose tables could not fit, and the core aborted (exit 134,
    a Rust backtrace). Now it is refused before it starts, naming the
    limit. The counterfactual: the same run with the old limit forced."""
    import resource

    f = tmp_path / "m.toml"
    f.write_text(
        '[sim]\nduration = "120s"\nsample_interval = "1ms"\n'
        '[topology]\nkind = "dumbbell"\nbottleneck_rate = "10Mbps"\nbottleneck_delay = "10ms"\n'
        'access_rate = "1Gbps"\naccess_delay = "1ms"\n'
        '[[flows]]\ncount = 20\napp = "bulk"\n'
    )

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2_500 << 20, resource.RLIM_INFINITY))

    env = {k: v for k, v in __import__("os").environ.items() if k != "CCSIM_MAX_MEMORY"}
    r = subprocess.run(
        [*CCSIM, "run", f, "--no-write", "-q"], capture_output=True, text=True, preexec_fn=cap, env=env, timeout=300
    )
    assert r.returncode == 2, r.stderr[-500:]
    assert r.stderr.startswith("ccsim: error: sim.sample_interval:") and "(ulimit -v) leaves" in r.stderr
    r = subprocess.run(
        [*CCSIM, "run", f, "--no-write", "-q"],
        capture_output=True,
        text=True,
        preexec_fn=cap,
        env={**env, "CCSIM_MAX_MEMORY": "12GB"},
        timeout=300,
    )
    assert r.returncode != 0 and r.returncode != 2, "the old limit should have let the run start and fail"


def test_the_memory_guard_takes_a_cgroup_cap_into_account(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    """A container's or a batch scheduler's cap: cgroup v2 `memory.max`
    and v1 `memory.limit_in_bytes`, less what the group uses, from a tree
    laid out as the kernel shows it."""
    from ccsim import memory

    monkeypatch.delenv("CCSIM_MAX_MEMORY", raising=False)
    proc = tmp_path / "cgroup"
    monkeypatch.setattr(memory, "PROC_CGROUP", str(proc))
    monkeypatch.setattr(memory, "CGROUP_FS", str(tmp_path / "fs"))
    v2 = tmp_path / "fs" / "job" / "42"
    v2.mkdir(parents=True)
    (v2 / "memory.max").write_text(f"{3 << 30}\n")
    (v2 / "memory.current").write_text(f"{1 << 30}\n")
    proc.write_text("0::/job/42\n")
    assert memory.limit() == (
        1 << 30,
        "half of the memory the process's cgroup leaves (a container's or scheduler's cap); $CCSIM_MAX_MEMORY sets it",
    )
    (v2 / "memory.max").write_text("max\n")
    assert memory.limit()[1].startswith("half of the physical memory")
    v1 = tmp_path / "fs" / "memory" / "docker" / "abc"
    v1.mkdir(parents=True)
    (v1 / "memory.limit_in_bytes").write_text(f"{2 << 30}\n")
    (v1 / "memory.usage_in_bytes").write_text(f"{1 << 29}\n")
    proc.write_text("4:memory:/docker/abc\n1:cpu:/\n")
    assert memory.limit()[0] == (3 << 29) // 2
    (v1 / "memory.limit_in_bytes").write_text("9223372036854771712\n")  # v1's "no limit"
    assert memory.limit()[1].startswith("half of the physical memory")


# ---------------------------------------------------------------- estimates and names


def test_a_pcap_is_estimated_by_what_it_writes(tmp_path: Path) -> None:
    """`--pcap` of a 100 Mb/s bottleneck for 60 s was refused as 19.2 GB
    (its capacity counted in 40-byte packets) where 30 s of it records
    250,000 packets. Now each direction is charged its data packets and the
    ACKs its flows' receivers can send; the estimate stays above what a run
    records (data direction, ACK direction, both) and within 4× of it."""
    from ccsim import memory

    f = tmp_path / "d.toml"
    f.write_text(
        '[sim]\nduration = "60s"\n[topology]\nkind = "dumbbell"\nbottleneck_rate = "100Mbps"\n'
        'bottleneck_delay = "20ms"\naccess_rate = "1Gbps"\naccess_delay = "1ms"\n[[flows]]\ncount = 4\n'
    )
    env = {**__import__("os").environ, "CCSIM_MAX_MEMORY": "2GB"}
    r = subprocess.run(
        [*CCSIM, "run", f, "--pcap", "bottleneck", "--out", tmp_path / "o", "-q", "--no-plots"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr  # refused as needing 19.2 GB before
    sc = ccsim.Scenario.from_file(f, {"sim.pcap": ["bottleneck"]})
    assert memory.total_bytes({"capture": memory.estimate_rows(sc.core)["capture"]}) < 1 << 30  # was 19.2 GB
    for links in (["r0->r1"], ["r1->r0"], ["r0<->r1"]):
        sc = ccsim.Scenario.from_file(f, {"sim.pcap": links, "sim.duration": "10s"})
        got, est = sc.run().table("capture").height, memory.estimate_rows(sc.core)["capture"]
        assert got <= est <= 4 * got, (links, got, est)


def test_a_trace_slower_than_one_bit_per_second_is_refused_naming_the_users_field(tmp_path: Path) -> None:
    """Two opportunities 10^9 ms apart: refused as `links[0] (a->b).rate_bps`
    before, the core's internal name; now by the trace's own check."""
    (tmp_path / "gap.trace").write_text("0\n1\n1000000000\n")
    f = tmp_path / "g.toml"
    f.write_text(
        '[sim]\nduration = "2s"\n[topology]\nkind = "single_link"\ntrace = "gap.trace"\ndelay = "10ms"\n'
        'buffer = "100pkt"\n[[flows]]\ncount = 1\n'
    )
    r = ccsim_cli("run", f, "--no-write")
    assert r.returncode == 2 and r.stderr.startswith("ccsim: error: topology.trace: "), r.stderr
    assert "mean rate below 1 b/s" in r.stderr and "rate_bps" not in r.stderr


def test_memory_a_hook_allocates_is_blamed_on_the_hook_not_on_the_recorded_tables(tmp_path: Path) -> None:
    """A MemoryError raised inside a Python algorithm used to be reported as
    the recorded tables not fitting, naming sim.sample_interval."""
    (tmp_path / "greedy.py").write_text(
        "import ccsim\n\n\nclass Greedy(ccsim.Algorithm):\n    name = 'greedy'\n\n"
        "    def ssthresh(self, tp):\n        return 2\n\n"
        "    def cong_avoid(self, tp, acked):\n        raise MemoryError('pretend the hook asked for 1 TB')\n"
    )
    r = ccsim_cli("run", scenario_file(tmp_path, "py:greedy:Greedy"), "--allow-code", "--no-write", "-q")
    assert r.returncode == 2 and r.stderr.startswith("ccsim: error: tcp.cc: the Python algorithm ran out of memory")
    assert "greedy.cong_avoid() of flow 0" in r.stderr and "sim.sample_interval" not in r.stderr, r.stderr


def test_a_set_that_makes_a_run_huge_is_estimated_before_it_runs(tmp_path: Path) -> None:
    f = scenario_file(tmp_path, "cubic")
    env = {**__import__("os").environ, "CCSIM_MAX_MEMORY": "50MB"}
    args = [
        *CCSIM,
        "run",
        str(f),
        "--no-write",
        "-q",
        "--set",
        "sim.duration=600s",
        "--set",
        "sim.sample_interval=100us",
    ]
    r = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2 and r.stderr.startswith(
        "ccsim: error: sim.sample_interval: the recorded tables would need"
    )


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"history": True}, "history"),
        ({"history": 10**9}, "history"),  # a billion-interval observation space
        ({"history": 2.5}, "history"),
        ({"initial_window": "10"}, "initial_window"),  # a TypeError traceback before
        ({"min_window": 1.5}, "min_window"),
        ({"max_window": 10**12}, "max_window"),
        ({"features": "cwnd"}, "features"),  # read letter by letter before
        ({"features": []}, "features"),
        ({"reward": 3}, "reward"),  # failed at the first step before
        ({"alpha": True}, "alpha"),
        ({"action_bound": True}, "action_bound"),
    ],
)
def test_the_gym_constructor_refuses_bad_arguments_naming_them(kw: dict[str, Any], field: str) -> None:
    from ccsim.gym import CongestionControlEnv

    with pytest.raises(ccsim.ScenarioError) as e:
        CongestionControlEnv(**kw)
    assert str(e.value).startswith(f"{field}: "), str(e.value)


def test_a_python_algorithms_window_is_bounded_so_one_ack_cannot_send_billions(tmp_path: Path) -> None:
    """Found by the fuzz harness: `tp.cwnd = tp.cwnd_clamp` (then 2^32 − 1)
    on the ns-2 stack sent and recorded segments in one event until one
    allocation of 2.5 GB failed and the process aborted. A Python
    algorithm's clamp is now the largest configurable window, and a larger
    `tp.cwnd` is refused on the line that writes it."""
    import json
    import resource

    raw = {
        "sim": {"duration": "1s", "seed": 174},
        "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "10ms", "buffer": "0.5bdp"},
        "tcp": {"cc": "py:ccsim.tools.fuzz_algos:FuzzHugeWindow", "stack": "ns2", "sack": "rfc6675"},
        "flows": [{"count": 2}],
    }
    code = f"""
import ccsim, json
res = ccsim.Scenario(json.loads({json.dumps(json.dumps(raw))})).run()
print(int(res.table("flows")["retransmits"].sum()))
"""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, resource.RLIM_INFINITY))

    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, preexec_fn=cap, timeout=300)
    assert r.returncode == 0, r.stderr[-800:]
    (tmp_path / "big.py").write_text(
        "import ccsim\n\n\nclass Big(ccsim.Algorithm):\n    name = 'big'\n\n"
        "    def ssthresh(self, tp):\n        return 2\n\n"
        "    def cong_avoid(self, tp, acked):\n        assert tp.cwnd_clamp == 1_000_000\n"
        "        tp.cwnd = 1_000_001\n"
    )
    r = ccsim_cli("run", scenario_file(tmp_path, "py:big:Big"), "--allow-code", "--no-write", "-q")
    assert r.returncode == 2 and "tp.cwnd = 1000001: expected a whole number of segments in [1, 1000000]" in r.stderr


def test_an_interrupt_in_a_notebook_leaves_no_thread_spinning(hooks: Path) -> None:
    """Jupyter's "interrupt kernel" is a KeyboardInterrupt in the main
    thread; the run's thread used to keep spinning in the hook after it.
    In a child process so that a regression fails instead of hanging."""
    f = scenario_file(hooks, "py:hooks:Spin")
    code = f"""
import _thread, threading, time
import ccsim
from ccsim.analysis import results
sc = ccsim.Scenario.from_file({str(f)!r}, allow_code=True)
threading.Timer(2.0, _thread.interrupt_main).start()
try:
    sc.run()
except KeyboardInterrupt:
    print("interrupted")
time.sleep(0.5)
print("left", results.runs_left(), [t.name for t in threading.enumerate() if t.name == "ccsim-run"])
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "interrupted" in r.stdout and "left False []" in r.stdout, (r.stdout, r.stderr)


def test_a_missing_bottleneck_delay_is_called_missing() -> None:
    """It read "got None; expected a time string", unlike every other
    required topology key."""
    raw: dict[str, Any] = {
        "sim": {"duration": "1s"},
        "topology": {"kind": "dumbbell", "bottleneck_rate": "10Mbps", "access_rate": "1Gbps", "access_delay": "1ms"},
        "flows": [{"count": 1}],
    }
    with pytest.raises(ccsim.ScenarioError, match=r"^topology\.bottleneck_delay: missing; expected e\.g\. '20ms'$"):
        ccsim.Scenario.from_dict(raw)
    raw["topology"]["kind"] = "satellite"  # its default delay stands in
    assert ccsim.Scenario.from_dict(raw).core["links"]


def test_allow_code_is_never_silently_ignored(tmp_path: Path) -> None:
    """`allow_code=False` beside a scenario built in Python is honoured, and
    beside a Scenario (which carries its own leave) it is refused."""
    from ccsim.experiments.sweep import Sweep, SweepError

    raw = {
        "sim": {"duration": "1s"},
        "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "10ms"},
        "tcp": {"cc": "py:ccsim.tools.fuzz_algos:FuzzReno"},
        "flows": [{"count": 1}],
    }
    with pytest.raises(ccsim.ScenarioError, match="would import and run"):
        ccsim.run(raw, allow_code=False)
    with pytest.raises(ccsim.ScenarioError, match="would import and run"):
        next(Sweep(raw, seeds=1, allow_code=False).points()).scenario(code=Sweep(raw, allow_code=False).code)
    sc = ccsim.Scenario(raw)  # the user's own code: imported as Python would
    for call in (lambda: ccsim.run(sc, allow_code=True), lambda: Sweep(sc, allow_code=False)):
        with pytest.raises((ccsim.ScenarioError, SweepError), match="^allow_code: .* carries its own"):
            call()
