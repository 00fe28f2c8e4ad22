"""`emulate`: one scenario through the running kernel's TCP, and the checks
of what the emulation backend supports (the package's docstring says how).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import _core
from ..errors import EmulationError, ScenarioError
from ..scenario.topologies import link_capacity_bps, routes
from .netns import (
    PORT0,
    TMP_PREFIX,
    EmulationUnavailable,
    Testbed,
    check_available,
    cleanup_stale,
    kernel_packet_bytes,
    sh,
)

AGENT = Path(__file__).with_name("agent.py")
# The emulation backend's version: bump it in any change that alters what an
# emulated run measures (agents, forwarder, settings); it is part of an
# emulated run's identity, so campaigns never reuse runs of an older backend.
EMU_VERSION = 2

# The simulator's algorithm names and the kernel module that runs each.
# Linux "reno" is NewReno with SACK (RFC 6582 / RFC 6675 recovery is the
# stack's, not the module's), so both names map to it.
KERNEL_CC = {
    "newreno": "reno",
    "reno": "reno",
    "cubic": "cubic",
    "bbr": "bbr",
    "highspeed": "highspeed",
    "scalable": "scalable",
    "bic": "bic",
    "vegas": "vegas",
    "westwood": "westwood",
    # tcp_dctcp.c: ECN with DCTCP feedback comes with the module
    # (TCP_CONG_NEEDS_ECN), as the simulator's dctcp defaults say.
    "dctcp": "dctcp",
}

# TCP options of the linux stack the kernel can be told, and how (checked
# against the stack's defaults; any other difference is refused by name).
SETTABLE = {
    "cc": "TCP_CONGESTION",
    "mss": "the TUN devices' MTU",
    "initial_window": "the route's initcwnd",
    "min_rto_ps": "the route's rto_min",
    "sack": "net.ipv4.tcp_sack",
    "receiver_sack": "net.ipv4.tcp_sack on the receiver",
    "timestamps": "net.ipv4.tcp_timestamps",
    "ecn": "net.ipv4.tcp_ecn",
    "pacing": "SO_MAX_PACING_RATE",
    "pacing_ss_ratio": "net.ipv4.tcp_pacing_ss_ratio",
    "pacing_ca_ratio": "net.ipv4.tcp_pacing_ca_ratio",
    "dsack": "net.ipv4.tcp_dsack",
    "frto": "net.ipv4.tcp_frto",
    "idle_restart": "net.ipv4.tcp_slow_start_after_idle",
    # the kernel always opens a connection with a handshake; the result has
    # fct_s from the SYN and fct_data_s from the first data byte either way
    "handshake": "(always on in the kernel)",
}
# Timer and clock fields whose values are the kernel's anyway.
IGNORED = {"clock_granularity_ps", "label"}

# Self-validation thresholds: a run outside them is flagged (docs/emulation.md).
MAX_LATENESS_P99_S = 0.5e-3
MAX_RTT_ERROR_S = 0.5e-3


def available() -> str | None:
    """None when emulation can run here, else the reason it cannot."""
    try:
        check_available()
    except EmulationUnavailable as e:
        return str(e)
    return None


def kernel_ccs() -> list[str]:
    try:
        return Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split()
    except OSError:
        return []


def _default_tcp(cc: str) -> dict[str, Any]:
    d: dict[str, Any] = json.loads(_core.tcp_defaults("linux", cc))
    return d


def _flow_fields(core: dict[str, Any], raw: dict[str, Any] | None) -> list[Callable[[str], str]]:
    """How the user names each resolved TCP flow's option `name`: as its
    flow group wrote it ('flows[g].name'), else as the scenario's [tcp]
    table did ('tcp.name'), else at its flow group (TCP flows are the
    groups' flows in order, UDP sources apart); by resolved index without
    the scenario mapping."""
    n = len(core.get("flows", []))
    groups = raw.get("flows") if isinstance(raw, dict) else None
    top_tcp = raw.get("tcp") if isinstance(raw, dict) else None
    top: dict[str, Any] = top_tcp if isinstance(top_tcp, dict) else {}

    def by_index(i: int) -> Callable[[str], str]:
        return lambda name: f"flows[{i}].{name}" if name else f"flows[{i}]"

    if not isinstance(groups, list):
        return [by_index(i) for i in range(n)]
    from ..scenario.traffic import APP_SCHEMA

    def by_group(gi: int, g: dict[str, Any]) -> Callable[[str], str]:
        def named(name: str) -> str:
            if not name:
                return f"flows[{gi}]"
            return f"tcp.{name}" if name not in g and name in top else f"flows[{gi}].{name}"

        return named

    out: list[Callable[[str], str]] = []
    for gi, g in enumerate(groups):
        if APP_SCHEMA.get(g.get("app", "bulk"), {}).get("core") == "udp":
            continue
        out += [by_group(gi, g)] * int(g.get("count", 1))
    return out if len(out) == n else [by_index(i) for i in range(n)]


def check_supported(core: dict[str, Any], raw: dict[str, Any] | None = None) -> list[str]:
    """Every feature of the resolved scenario the backend cannot run, each
    as 'field = value: why; accepted: ...', fields as the scenario writes
    them when its mapping `raw` is given (a flow group's option,
    `flows[0].max_rto = '30s'`, or the [tcp] table's, `tcp.max_rto`), each
    said once however many flows share it. Empty when it can run."""
    from ..scenario.tcp_options import BY_CORE, as_written

    bad = []
    where = _flow_fields(core, raw)
    if core.get("udp"):
        bad.append("udp: UDP sources are not emulated; accepted: TCP flows only")
    tr = core.get("trace") or {}
    for k in ("rtt", "cc"):
        if tr.get(k):
            bad.append(
                f"trace.{k} = true: not available from the kernel; accepted: the 'seq' trace (read off the wire "
                "by the forwarder) and flow_series (TCP_INFO samples)"
            )
    if not core.get("flows"):
        bad.append("flows: an emulated run needs at least one TCP flow")
    avail = kernel_ccs()
    for i, f in enumerate(core.get("flows", [])):
        at = where[i]
        kind = f["app"]["kind"]
        if kind not in ("bulk", "file"):
            bad.append(f"{at('app')} = {kind!r}: not emulated; accepted: 'bulk', 'file'")
        if f["src"] == f["dst"]:
            bad.append(f"{at('')}: source and destination are the same node")
        t = f["tcp"]
        if t["stack"] != "linux":
            bad.append(f"{at('stack')} = {t['stack']!r}: the kernel is Linux; accepted: 'linux'")
            continue
        cc = t["cc"]
        kcc = KERNEL_CC.get(cc)
        if kcc is None or kcc not in avail:
            bad.append(
                f"{at('cc')} = {cc!r}: this kernel offers {' '.join(avail) or 'nothing'} "
                f"(net.ipv4.tcp_available_congestion_control); accepted: "
                f"{', '.join(sorted(k for k, v in KERNEL_CC.items() if v in avail))}"
            )
            continue
        d = _default_tcp(cc)
        for k, v in t.items():
            if k in SETTABLE or k in IGNORED or d.get(k) == v:
                continue
            o = BY_CORE.get(k)
            name, shown, default = (
                (o["name"], as_written(o, v), as_written(o, d.get(k))) if o is not None else (k, v, d.get(k))
            )
            bad.append(
                f"{at(name)} = {shown!r}: the kernel's TCP has no per-run switch for it; "
                f"accepted: the linux stack's default {default!r}"
            )
        if t["sack"] not in ("off", "rfc6675"):
            bad.append(f"{at('sack')} = {t['sack']!r}: accepted: 'rfc6675' (the kernel's SACK) or 'off'")
        if t["pacing"] not in ("off", "linux"):
            bad.append(f"{at('pacing')} = {t['pacing']!r}: accepted: 'linux' (the kernel's internal pacing) or 'off'")
        top = TUN_MAX_MTU - (kernel_packet_bytes(t) - t["mss"])
        if t["mss"] > top:
            bad.append(
                f"{at('mss')} = {t['mss']}: its packets ({kernel_packet_bytes(t)} bytes) exceed a TUN device's "
                f"largest MTU ({TUN_MAX_MTU}); accepted: mss ≤ {top}"
            )
        rto_ms = t["min_rto_ps"] / 1e9
        if rto_ms != 200 and (rto_ms < 1 or rto_ms != int(rto_ms)):
            bad.append(
                f"{at('min_rto')} = '{rto_ms:g}ms': the kernel takes a route's rto_min in whole "
                "milliseconds; accepted: a whole number of ms ≥ 1ms"
            )
        if t["header_bytes"] != 40:
            bad.append(f"{at('header_bytes')} = {t['header_bytes']}: IPv4 + TCP headers are 40 bytes; accepted: 40")
    # per-host settings are namespace-wide sysctls: the flows of one host must agree
    per_host: dict[tuple[int, str], tuple[Any, ...]] = {}
    for i, f in enumerate(core.get("flows", [])):
        t = f["tcp"]
        for node, key, val in (
            (
                f["src"],
                "sender",
                (
                    t["sack"] != "off",
                    t["timestamps"],
                    t["ecn"],
                    t["mss"],
                    t["pacing_ss_ratio"],
                    t["pacing_ca_ratio"],
                    t["dsack"],
                    t["frto"],
                    t["idle_restart"],
                ),
            ),
            (f["dst"], "receiver", (t["receiver_sack"], t["mss"])),
        ):
            prev = per_host.setdefault((node, key), val)
            if prev != val:
                bad.append(
                    f"{where[i]('')}: its {key} node {core['nodes'][node]!r} already carries a flow with other "
                    "sack/timestamps/ecn/mss/pacing-ratio settings; these are per-namespace sysctls, so the "
                    "flows of one host must agree"
                )
    return list(dict.fromkeys(bad))  # a group's flows share its settings: each said once


# A TUN device's largest MTU (IP_MAX_MTU in the kernel's tun driver).
TUN_MAX_MTU = 65535


def _pin_plan(pin: bool) -> tuple[int, set[int]] | None:
    """With `pin`: (the forwarder's CPU, the endpoints' CPUs): the last CPU
    this process may use for the forwarder alone, the others for the
    endpoint programs and this process's other threads."""
    if not pin:
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise EmulationError(f"pin: the forwarder needs a CPU of its own; this process may use only CPU {cpus}")
    return cpus[-1], set(cpus[:-1])


def emulate(
    sc: Any, *, stop_when_done: bool = True, spin_us: float = 200.0, twin: Any = None, pin: bool = False
) -> Any:
    """Run scenario `sc` through the kernel's TCP; returns an `EmuResult`.
    Raises `EmulationUnavailable` without root or TUN, `ScenarioError` for
    features the backend does not run (all of them, named). `twin`: the
    simulator's result of the same scenario and seed with a handshake
    (`compare` passes its own); the min-RTT self-check runs it here when it
    needs it and none is given. `pin`: the forwarder runs alone on one CPU
    and the endpoints' programs on the others (`emulation.pinned` says
    which), to keep the endpoints' work off the forwarder's CPU."""
    from .result import EmuResult, build_tables

    check_available()
    core = sc.core
    bad = check_supported(core, sc.raw)
    if bad:
        raise ScenarioError("emulation", message="; ".join(bad))
    cleanup_stale()
    flows = core["flows"]
    duration_ns = int(core["duration_ps"] // 1000)
    sample_ns = int((core.get("sample_interval_ps") or 0) // 1000)
    w0, c0 = time.perf_counter(), time.process_time()
    plan = _pin_plan(pin)
    main_cpus = os.sched_getaffinity(0)
    with Testbed() as tb:
        nodes: list[int] = []
        for f in flows:
            for n in (f["src"], f["dst"]):
                if n not in nodes:
                    nodes.append(n)
        host = {n: tb.add_host(n, core["nodes"][n]) for n in nodes}
        # per-host sysctls and MTU
        mtu: dict[int, int] = {}
        for f in flows:
            t = f["tcp"]
            mtu[f["src"]] = max(mtu.get(f["src"], 0), kernel_packet_bytes(t))
            mtu[f["dst"]] = max(mtu.get(f["dst"], 0), kernel_packet_bytes(t))
        # socket buffers: 4 × an upper bound of any path's BDP (fastest link ×
        # twice the sum of all delays), at least Linux 6.18's tcp_rmem[2] of
        # 32 MB, which the simulator's receive window assumes (tcp/rcvwnd.rs)
        rtt_bound = 2 * sum(l["delay_ps"] for l in core["links"]) * 1e-12
        buf_max = int(max(32 << 20, 4 * max(link_capacity_bps(lk) for lk in core["links"]) / 8 * rtt_bound))
        common = {
            "net.ipv6.conf.all.disable_ipv6": "1",
            "net.ipv6.conf.default.disable_ipv6": "1",
            "net.ipv4.tcp_no_metrics_save": "1",
            "net.ipv4.tcp_rmem": f"4096 131072 {buf_max}",
            "net.ipv4.tcp_wmem": f"4096 16384 {buf_max}",
        }
        settings = {n: dict(common) for n in nodes}
        for f in flows:
            t = f["tcp"]
            s = settings[f["src"]]
            s.update(
                {
                    "net.ipv4.tcp_sack": str(int(t["sack"] != "off")),
                    "net.ipv4.tcp_timestamps": str(int(t["timestamps"])),
                    "net.ipv4.tcp_ecn": "1" if t["ecn"] else "0",
                    "net.ipv4.tcp_pacing_ss_ratio": str(round(t["pacing_ss_ratio"] * 100)),
                    "net.ipv4.tcp_pacing_ca_ratio": str(round(t["pacing_ca_ratio"] * 100)),
                    "net.ipv4.tcp_dsack": str(int(t["dsack"])),
                    "net.ipv4.tcp_frto": "2" if t["frto"] else "0",
                    "net.ipv4.tcp_slow_start_after_idle": str(int(t["idle_restart"])),
                }
            )
            r = settings[f["dst"]]
            if not t["receiver_sack"]:
                r["net.ipv4.tcp_sack"] = "0"
        for n in nodes:
            tb.sysctl(host[n], settings[n])
            sh("ip", "-n", host[n].ns, "link", "set", "dev", host[n].dev, "mtu", str(mtu[n]))
        for f in flows:
            t = f["tcp"]
            a, b = host[f["src"]], host[f["dst"]]
            min_rto = t["min_rto_ps"] * 1e-9
            tb.route(a, b, initcwnd=t["initial_window"], rto_min_ms=None if min_rto == 200 else min_rto)
            tb.route(b, a)
        cfg = {
            "scenario": core,
            "hosts": [{"node": h.node, "addr": _ip_int(h.addr)} for h in tb.hosts],
            "epoch_ns": 0,
            "end_ns": duration_ns,
            "spin_ns": int(spin_us * 1000),
            "trace_packets": bool((core.get("trace") or {}).get("seq")),
        }
        # the agents' result files: a private directory (mkdtemp, mode 0700), removed on every path
        tmp = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{tb.run}-"))
        tb.on_close.append(lambda: shutil.rmtree(tmp, ignore_errors=True))
        n_agents = 2 * len(flows)
        epoch = time.clock_gettime_ns(time.CLOCK_MONOTONIC) + int((0.4 + 0.06 * n_agents) * 1e9)
        cfg["epoch_ns"] = epoch
        procs: list[subprocess.Popen[str]] = []
        ctl = _core.RunControl()
        box: dict[str, Any] = {}

        def run_forwarder() -> None:
            try:
                if plan is not None:
                    os.sched_setaffinity(0, {plan[0]})  # this thread only
                box["raw"] = _core.forward(json.dumps(cfg), [h.fd for h in tb.hosts], ctl)
            except BaseException as e:  # reported below
                box["error"] = e

        fwd = threading.Thread(target=run_forwarder, name="ccsim-forwarder", daemon=True)

        def on_endpoint_cpus() -> None:  # in each endpoint program, before it starts
            if plan is not None:
                os.sched_setaffinity(0, plan[1])

        try:
            if plan is not None:
                os.sched_setaffinity(0, plan[1])  # this thread; restored below
            for i, f in enumerate(flows):
                b = host[f["dst"]]
                procs.append(
                    subprocess.Popen(
                        [
                            "ip",
                            "netns",
                            "exec",
                            b.ns,
                            sys.executable,
                            str(AGENT),
                            "sink",
                            "--port",
                            str(PORT0 + i),
                            "--epoch",
                            str(epoch),
                            "--until",
                            str(duration_ns),
                            "--sample",
                            str(sample_ns),
                            "--out",
                            str(tmp / f"sink{i}.json"),
                        ],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        text=True,
                        preexec_fn=on_endpoint_cpus if plan is not None else None,
                    )
                )
            for p in procs:
                _await_ready(p)
            for i, f in enumerate(flows):
                a, b, t = host[f["src"]], host[f["dst"]], f["tcp"]
                size = f["app"].get("bytes", 0) if f["app"]["kind"] == "file" else 0
                procs.append(
                    subprocess.Popen(
                        [
                            "ip",
                            "netns",
                            "exec",
                            a.ns,
                            sys.executable,
                            str(AGENT),
                            "send",
                            "--dst",
                            b.addr,
                            "--port",
                            str(PORT0 + i),
                            "--cc",
                            KERNEL_CC[t["cc"]],
                            "--pacing",
                            str(int(t["pacing"] == "linux")),
                            "--bytes",
                            str(size),
                            "--epoch",
                            str(epoch),
                            "--start",
                            str(f["start_ps"] // 1000),
                            "--until",
                            str(duration_ns),
                            "--sample",
                            str(sample_ns),
                            "--out",
                            str(tmp / f"send{i}.json"),
                        ],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        text=True,
                        preexec_fn=on_endpoint_cpus if plan is not None else None,
                    )
                )
            for p in procs[len(flows) :]:
                _await_ready(p)
            late_setup = time.clock_gettime_ns(time.CLOCK_MONOTONIC) - epoch
            cpu0 = _cpu_now()
            fwd.start()
            all_files = all(f["app"]["kind"] == "file" for f in flows)
            deadline = epoch + duration_ns
            done_files = [tmp / f"send{i}.json" for i in range(len(flows))]
            while fwd.is_alive():
                fwd.join(0.01)
                if stop_when_done and all_files and all(p.exists() for p in done_files):
                    ctl.cancel()
            fwd.join()
            for p in procs:
                if p.stdin:
                    p.stdin.close()
            for p in procs:
                try:
                    p.wait(timeout=max(1.0, (deadline - time.clock_gettime_ns(time.CLOCK_MONOTONIC)) / 1e9 + 3.0))
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            other_cpu = _other_cpu(cpu0, [p.pid for p in procs])
            other_cpu["pinned"] = (
                f"forwarder on CPU {plan[0]}, endpoints on CPU {', '.join(map(str, sorted(plan[1])))}"
                if plan is not None
                else "no"
            )
        except BaseException:
            ctl.cancel()
            for p in procs:
                if p.poll() is None:
                    p.kill()
            raise
        finally:
            os.sched_setaffinity(0, main_cpus)
        if "error" in box:
            raise EmulationError(f"forwarder failed: {box['error']}")
        agents = {}
        for i in range(len(flows)):
            for role in ("sink", "send"):
                path = tmp / f"{role}{i}.json"
                if not path.exists():
                    p = procs[i if role == "sink" else len(flows) + i]
                    err = (p.stderr.read() if p.stderr else "").strip()
                    raise EmulationError(
                        f"flow {i}: the {role} program wrote no result (exit {p.returncode}): {err[-500:]}"
                    )
                agents[(role, i)] = json.loads(path.read_text())
        failed = [
            f"flow {i} {'sender' if role == 'send' else 'sink'}: {a['error']}"
            for (role, i), a in sorted(agents.items())
            if a.get("error")
        ]
        if failed:
            # an agent that failed (could not connect, was reset, timed out
            # before the end) leaves no measurement worth keeping
            raise EmulationError("; ".join(failed))
        hosts = []
        for h in tb.hosts:
            hosts.append(
                {
                    "node": core["nodes"][h.node],
                    "namespace": h.ns,
                    "device": h.dev,
                    "addr": h.addr,
                    **tb.device_stats(h),
                    "netstat": tb.netstat(h),
                }
            )
    w1, c1 = time.perf_counter(), time.process_time()

    def twin_min_rtts() -> list[float]:
        from ..analysis.results import run_scenario

        r = twin if twin is not None else run_scenario(sim_twin(sc))
        return [float(x) for x in r.flows["rtt_min_s"]]

    raw, emu = build_tables(
        core,
        box["raw"],
        agents,
        hosts,
        late_setup_ns=late_setup,
        routes=_flow_routes(core),
        twin_min_rtts=twin_min_rtts,
        other_cpu=other_cpu,
    )
    return EmuResult(sc, raw, w1 - w0, c1 - c0, emu)


def sim_twin(sc: Any) -> Any:
    """The simulated twin of an emulated scenario: the same with
    ``tcp.handshake = true`` (the kernel always opens with a handshake)."""
    from ..scenario import Scenario
    from ..scenario.overrides import apply

    sets = {"tcp.handshake": True} | {
        f"flows[{gi}].handshake": True for gi, g in enumerate(sc.raw["flows"]) if "handshake" in g
    }
    raw = apply(sc.raw, sets)
    return sc if raw == sc.raw else Scenario(raw, source=sc.source)


def _steal_s() -> float:
    """Time the hypervisor gave other guests on this machine's virtual CPUs
    so far, s (/proc/stat's first line, the eighth field, `steal`)."""
    with open("/proc/stat") as f:
        return int(f.readline().split()[8]) / os.sysconf("SC_CLK_TCK")


def _cpu_by_process(exclude: int) -> dict[int, float]:
    """CPU time of every process but `exclude` (this one, whose children are
    the agents), s: utime + stime + cutime + cstime of /proc/PID/stat, so a
    child that ended and was waited for stays counted in its parent. Kernel
    threads are included (softirq work for the run's packets lands there)."""
    out = {}
    hz = os.sysconf("SC_CLK_TCK")
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == exclude:
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                v = f.read().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        out[int(d)] = sum(int(x) for x in v[11:15]) / hz
    return out


def _cpu_now() -> tuple[float, float, dict[int, float]]:
    return time.perf_counter(), _steal_s(), _cpu_by_process(os.getpid())


def _other_cpu(cpu0: tuple[float, float, dict[int, float]], agents: list[int]) -> dict[str, Any]:
    """CPU time others took while the run's clock ran, since `cpu0` (taken
    when the forwarder started; the agents have all been waited for):
    `other_cpu_s`, the CPU every other process used meanwhile (each
    process's utime + stime + its waited children's, from /proc; the agents
    are this process's children and left out), and `steal_s`, time the
    hypervisor gave to other guests. The load average misses bursts shorter
    than its 5 s sampling; these do not. Per process and not the machine's
    busy time less ours: /proc/stat counts in scheduler ticks, which miss
    the forwarder's short timer-driven bursts (measured: it reported less
    busy time than this process alone used)."""
    w0, steal0, by0 = cpu0
    wall = time.perf_counter() - w0
    by1 = _cpu_by_process(os.getpid())
    mine = set(agents)
    other = sum(c - by0.get(pid, 0.0) for pid, c in by1.items() if pid not in mine)
    steal = _steal_s() - steal0
    cap = wall * (os.cpu_count() or 1)
    return {
        "other_cpu_s": other,
        "other_cpu_share": other / cap if cap > 0 else math.nan,
        "steal_s": steal,
        "steal_share": steal / cap if cap > 0 else math.nan,
    }


def _flow_routes(core: dict[str, Any]) -> dict[int, tuple[list[int], list[int]]]:
    """Each flow's forward and reverse link paths, from the core's router."""
    pairs = [p for f in core["flows"] for p in ((f["src"], f["dst"]), (f["dst"], f["src"]))]
    r = routes(core, pairs)
    return {i: (r[2 * i] or [], r[2 * i + 1] or []) for i in range(len(core["flows"]))}


def _await_ready(p: subprocess.Popen[str], timeout: float = 10.0) -> None:
    """Wait for an agent's 'ready' line, at most `timeout` seconds."""
    import select

    if p.stdout is None or not select.select([p.stdout], [], [], timeout)[0]:
        p.kill()
        raise EmulationError(f"an agent did not start within {timeout:g} s")
    line = p.stdout.readline()
    if line.strip() != "ready":
        p.kill()
        err = p.stderr.read() if p.stderr else ""
        raise EmulationError(f"an agent did not start: {line.strip()} {err.strip()[-500:]}")


def _ip_int(a: str) -> int:
    x = 0
    for part in a.split("."):
        x = x * 256 + int(part)
    return x


__all__ = [
    "emulate",
    "available",
    "check_supported",
    "EmulationError",
    "EmulationUnavailable",
    "cleanup_stale",
    "kernel_ccs",
]
