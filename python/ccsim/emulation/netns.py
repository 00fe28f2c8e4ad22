"""Network namespaces and TUN devices that ccsim creates for an emulated run,
and their removal.

Safety rules (this is root work on a shared machine):
- every namespace is named ``ccsim-<run>-<k>`` and every TUN device
  ``ccs<run><k>``, where ``<run>`` is the run's 6-hex-digit id; nothing else
  is ever created, changed or removed;
- a run reserves its id by creating ``/run/ccsim-emu/<run>.pid`` with
  ``O_EXCL`` and holds an exclusive ``flock`` on it for its whole life; a
  later start (and ``ccsim emulate --cleanup``) removes the namespaces of a
  run only if that file exists and its lock can be taken — the owner is gone
  (a crash or SIGKILL), whatever PID namespace it ran in. Namespaces with our
  names but no registry entry have an unknown owner and are left alone;
- the TUN devices are not persistent: they vanish with the file descriptors
  that the run's process holds, so they cannot outlive it; the addresses live
  only inside the namespaces, so no traffic reaches the host's interfaces.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import secrets
import shutil
import signal
import struct
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import EmulationError
from ..scenario.tcp_options import wire_bytes

# The kernel's IPv4 + TCP headers without options: its packets' size does
# not follow a scenario's header_bytes.
KERNEL_HEADER_BYTES = 40


def kernel_packet_bytes(t: dict[str, Any]) -> int:
    """Bytes of the kernel's full-sized packet for a flow's TCP options."""
    return wire_bytes(t, KERNEL_HEADER_BYTES)


REGISTRY = Path("/run/ccsim-emu")
NS_RE = re.compile(r"^ccsim-([0-9a-f]{6})-(\d+)$")
DEV_RE = re.compile(r"^ccs([0-9a-f]{6})(\d+)$")
# A run's private directory for its agents' result files, under the system's
# temporary directory: TMP_PREFIX + run id + "-" + mkdtemp's random suffix.
TMP_PREFIX = "ccsim-emu-"
TMP_RE = re.compile(r"^ccsim-emu-([0-9a-f]{6})-[A-Za-z0-9_]+$")

# Flow i's sink listens on this port + i (inside its host's namespace).
PORT0 = 5001

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


class EmulationUnavailable(RuntimeError):
    """Root, /dev/net/tun or iproute2 is missing: emulation cannot run here."""


def check_available() -> None:
    if os.geteuid() != 0:
        raise EmulationUnavailable("emulation needs root (network namespaces and TUN devices); run as root")
    if not os.path.exists("/dev/net/tun"):
        raise EmulationUnavailable("emulation needs /dev/net/tun (the tun module); it is missing")
    if shutil.which("ip") is None:
        raise EmulationUnavailable("emulation needs the 'ip' command (Debian package iproute2)")


def sh(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(list(args), capture_output=True, text=True)
    if check and p.returncode != 0:
        raise EmulationError(f"{' '.join(args)}: {p.stderr.strip() or p.stdout.strip()}")
    return p


def _owner_gone(run: str) -> bool:
    """True when run `run` is registered and its owner no longer holds the
    registry file's lock (the kernel drops a flock when its holder ends,
    however it ends); False for a live run and for one this host's registry
    does not know (its owner is unknown: never touched)."""
    try:
        fd = os.open(REGISTRY / f"{run}.pid", os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # releases the probe's lock too
    return True


def list_namespaces() -> list[str]:
    p = sh("ip", "netns", "list", check=False)
    names = [line.split()[0] for line in p.stdout.splitlines() if line.strip()]
    return [n for n in names if NS_RE.match(n)]


def _kill_ns_pids(ns: str) -> None:
    p = sh("ip", "netns", "pids", ns, check=False)
    for tok in p.stdout.split():
        with contextlib.suppress(ValueError, ProcessLookupError):
            os.kill(int(tok), signal.SIGKILL)


def delete_namespace(ns: str) -> None:
    if not NS_RE.match(ns):
        raise ValueError(f"refusing to delete {ns!r}: not a ccsim namespace")
    _kill_ns_pids(ns)
    sh("ip", "netns", "delete", ns, check=False)


def cleanup_stale(only_run: str | None = None) -> list[str]:
    """Remove the namespaces (and any leftover devices and agents' result
    directories) of ccsim runs whose process is gone; with `only_run`, that run's whatever its state. Returns
    what was removed."""
    removed = []
    for ns in list_namespaces():
        m = NS_RE.match(ns)
        assert m is not None  # list_namespaces() returns ccsim's names only
        run = m.group(1)
        if only_run is not None:
            if run != only_run:
                continue
        elif not _owner_gone(run):
            continue
        delete_namespace(ns)
        removed.append(ns)
    # TUN devices left in the root namespace (not moved yet when a run died)
    p = sh("ip", "-o", "link", "show", check=False)
    for line in p.stdout.splitlines():
        parts = line.split(":")
        if len(parts) < 2:
            continue
        dev = parts[1].strip().split("@")[0]
        m = DEV_RE.match(dev)
        if not m:
            continue
        run = m.group(1)
        if only_run is not None and run != only_run:
            continue
        if only_run is None and not _owner_gone(run):
            continue
        sh("ip", "link", "delete", dev, check=False)
        removed.append(dev)
    # the agents' result directories (run.py: tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{run}-"))
    for d in Path(tempfile.gettempdir()).glob(TMP_PREFIX + "*"):
        m = TMP_RE.match(d.name)
        if m is None or not d.is_dir() or (only_run is not None and m.group(1) != only_run):
            continue
        if only_run is not None or _owner_gone(m.group(1)):
            shutil.rmtree(d, ignore_errors=True)
            removed.append(str(d))
    if REGISTRY.is_dir():
        for f in REGISTRY.glob("*.pid"):
            run = f.stem
            if only_run is not None and run != only_run:
                continue
            if only_run is not None or _owner_gone(run):
                if not any((m := NS_RE.match(n)) is not None and m.group(1) == run for n in list_namespaces()):
                    f.unlink(missing_ok=True)
    return removed


@dataclass
class Host:
    node: int
    name: str  # scenario node name
    ns: str
    dev: str
    addr: str
    fd: int = -1


@dataclass
class Testbed:
    """The namespaces and TUN devices of one emulated run."""

    run: str = field(default_factory=lambda: secrets.token_hex(3))
    hosts: list[Host] = field(default_factory=list)
    # run when the testbed closes, on every path (the agents' files)
    on_close: list[Any] = field(default_factory=list)
    _lock_fd: int = -1
    # the SIGTERM/SIGHUP handlers before ours (restored on close)
    _signals: dict[signal.Signals, Any] = field(default_factory=dict)

    def __enter__(self) -> Testbed:
        REGISTRY.mkdir(parents=True, exist_ok=True)
        for _ in range(16):  # a drawn id that another run holds is drawn again
            try:
                fd = os.open(REGISTRY / f"{self.run}.pid", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
                break
            except FileExistsError:
                self.run = secrets.token_hex(3)
        else:
            raise EmulationError(f"could not reserve an emulation run id in {REGISTRY}")
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd
        self._exit_on_signals()
        return self

    def _exit_on_signals(self) -> None:
        """SIGTERM and SIGHUP (`kill`, `timeout`, a batch scheduler, a
        closed terminal) would end the process without unwinding, leaving
        the namespaces and devices until the next run; as SystemExit they
        unwind through `close` like Ctrl-C. Only the main thread can set
        handlers; elsewhere the next run's `cleanup_stale` still removes
        them (the lock dies with the process)."""
        import threading

        if threading.current_thread() is not threading.main_thread():
            return

        def stop(signum: int, _frame: object) -> None:
            raise SystemExit(128 + signum)

        for sig in (signal.SIGTERM, signal.SIGHUP):
            self._signals[sig] = signal.signal(sig, stop)

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_host(self, node: int, name: str) -> Host:
        k = len(self.hosts)
        if k >= 250 * 250:
            raise ValueError("too many hosts for the emulation address plan")
        h = Host(
            node=node,
            name=name,
            ns=f"ccsim-{self.run}-{k}",
            dev=f"ccs{self.run}{k}",
            addr=f"10.213.{k // 250}.{k % 250 + 1}",
        )
        fd = os.open("/dev/net/tun", os.O_RDWR | os.O_CLOEXEC)
        ifr = struct.pack("16sH22x", h.dev.encode(), IFF_TUN | IFF_NO_PI)
        try:
            fcntl.ioctl(fd, TUNSETIFF, ifr)
        except OSError:
            os.close(fd)
            raise
        h.fd = fd
        self.hosts.append(h)
        sh("ip", "netns", "add", h.ns)
        sh("ip", "link", "set", "dev", h.dev, "netns", h.ns)
        sh("ip", "-n", h.ns, "link", "set", "lo", "up")
        sh("ip", "-n", h.ns, "link", "set", "dev", h.dev, "mtu", "1500", "txqueuelen", "10000", "up")
        sh("ip", "-n", h.ns, "addr", "add", f"{h.addr}/32", "dev", h.dev)
        return h

    def route(
        self,
        h: Host,
        peer: Host,
        *,
        initcwnd: int | None = None,
        initrwnd: int | None = None,
        rto_min_ms: float | None = None,
    ) -> None:
        args = ["ip", "-n", h.ns, "route", "replace", f"{peer.addr}/32", "dev", h.dev]
        if initcwnd:
            args += ["initcwnd", str(initcwnd)]
        if initrwnd:
            args += ["initrwnd", str(initrwnd)]
        if rto_min_ms is not None:
            args += ["rto_min", f"{rto_min_ms:g}ms"]
        sh(*args)

    def sysctl(self, h: Host, settings: dict[str, str]) -> None:
        sh("ip", "netns", "exec", h.ns, "sysctl", "-q", "-w", *[f"{k}={v}" for k, v in settings.items()])

    def device_stats(self, h: Host) -> dict[str, Any]:
        """The TUN device's kernel counters, from inside its namespace."""
        import json

        p = sh("ip", "-n", h.ns, "-s", "-j", "link", "show", "dev", h.dev, check=False)
        try:
            s = json.loads(p.stdout)[0]["stats64"]
            return {
                "tx_dropped": s["tx"]["dropped"],
                "rx_dropped": s["rx"]["dropped"],
                "tx_packets": s["tx"]["packets"],
                "rx_packets": s["rx"]["packets"],
            }
        except (ValueError, KeyError, IndexError):
            return {}

    def netstat(self, h: Host) -> dict[str, int]:
        """TCP MIB counters of the host's namespace (/proc/net/snmp and netstat)."""
        out: dict[str, int] = {}
        for f in ("/proc/net/snmp", "/proc/net/netstat"):
            p = sh("ip", "netns", "exec", h.ns, "cat", f, check=False)
            lines = p.stdout.splitlines()
            for head, vals in zip(lines[::2], lines[1::2]):
                hk, hv = head.split(), vals.split()
                if not hk or hk[0] != hv[0]:
                    continue
                prefix = hk[0].rstrip(":")
                if prefix not in ("Tcp", "TcpExt"):
                    continue
                for k, v in zip(hk[1:], hv[1:]):
                    with contextlib.suppress(ValueError):
                        out[prefix + k] = int(v)
        return out

    def close(self) -> None:
        for h in self.hosts:
            if h.fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(h.fd)
                h.fd = -1
        for fn in self.on_close:
            fn()
        self.on_close.clear()
        cleanup_stale(only_run=self.run)
        (REGISTRY / f"{self.run}.pid").unlink(missing_ok=True)
        for sig, old in self._signals.items():
            signal.signal(sig, old)
        self._signals.clear()
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1
