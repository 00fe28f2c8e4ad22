"""The emulation backend's end-host programs: a sender and a sink, run inside
a host's network namespace (``ip netns exec NS python agent.py ...``).

Standard library only, run as a plain script (it never imports the ccsim
package, so it starts in a few tens of milliseconds). Every time is
``CLOCK_MONOTONIC`` in nanoseconds, which all namespaces share, so the
orchestrator can put the sender's and the sink's events on one time line.

sender: waits for its start time, opens a TCP connection with the requested
congestion control (``TCP_CONGESTION``), optional internal pacing
(``SO_MAX_PACING_RATE``, Linux ``sock_setsockopt``: any value but ~0 sets
``SK_PACING_NEEDED``) and MSS (``TCP_MAXSEG``), sends a file (then half-closes
and waits for the sink to close) or bulk data until the deadline, and samples
``TCP_INFO`` every interval.

sink: accepts one connection, reads until EOF or the deadline, and records
the first and last byte times and the bytes delivered over time.

Each writes one JSON object to the file given with ``--out``.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import signal
import socket
import struct
import sys
import threading
import time
from typing import Any

TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)
TCP_INFO = getattr(socket, "TCP_INFO", 11)
SO_MAX_PACING_RATE = 47

# struct tcp_info, Linux include/uapi/linux/tcp.h (fields up to tcpi_snd_wnd,
# Linux 5.4+): 8 one-byte fields, 24 u32, 4 u64, 6 u32, 4 u64, 2 u32, 2 u64,
# 4 u32 = 232 bytes, every field naturally aligned.
TCP_INFO_FMT = "=8B24I4Q6I4Q2I2Q4I"
TCP_INFO_LEN = struct.calcsize(TCP_INFO_FMT)
TCP_INFO_FIELDS = (
    "state ca_state retransmits probes backoff options wscale app_limited "
    "rto ato snd_mss rcv_mss unacked sacked lost retrans fackets "
    "last_data_sent last_ack_sent last_data_recv last_ack_recv "
    "pmtu rcv_ssthresh rtt rttvar snd_ssthresh snd_cwnd advmss reordering "
    "rcv_rtt rcv_space total_retrans "
    "pacing_rate max_pacing_rate bytes_acked bytes_received "
    "segs_out segs_in notsent_bytes min_rtt data_segs_in data_segs_out "
    "delivery_rate busy_time rwnd_limited sndbuf_limited delivered delivered_ce "
    "bytes_sent bytes_retrans dsack_dups reord_seen rcv_ooopack snd_wnd"
).split()
assert len(TCP_INFO_FIELDS) == len(struct.unpack(TCP_INFO_FMT, bytes(TCP_INFO_LEN)))
KEEP = (
    "ca_state",
    "rto",
    "snd_mss",
    "unacked",
    "sacked",
    "lost",
    "retrans",
    "rtt",
    "rttvar",
    "snd_ssthresh",
    "snd_cwnd",
    "total_retrans",
    "pacing_rate",
    "bytes_acked",
    "data_segs_out",
    "min_rtt",
    "delivery_rate",
    "bytes_sent",
    "bytes_retrans",
    "delivered",
    "delivered_ce",
    "dsack_dups",
    "reord_seen",
    "snd_wnd",
)


def now_ns() -> int:
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def sleep_until(t_ns: int) -> None:
    while True:
        d = t_ns - now_ns()
        if d <= 0:
            return
        time.sleep(min(d, 50_000_000) / 1e9)


def die_with_parent() -> None:
    """Exit when the orchestrator dies (even by SIGKILL): prctl(PR_SET_PDEATHSIG)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)
    except OSError:
        pass
    if os.getppid() == 1:
        sys.exit(3)


def tcp_info(s: socket.socket) -> dict[str, Any]:
    raw = s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, TCP_INFO_LEN)
    raw = raw + bytes(TCP_INFO_LEN - len(raw))
    d = dict(zip(TCP_INFO_FIELDS, struct.unpack(TCP_INFO_FMT, raw)))
    return {k: d[k] for k in KEEP}


# TCP_CC_INFO (include/uapi/linux/tcp.h) answers with the algorithm's own
# state; for bbr, struct tcp_bbr_info (tcp_bbr.c bbr_get_info): bw as two
# u32 halves in bytes/s, min_rtt in us, pacing and cwnd gains in BBR_UNIT
# (256) = 1.
TCP_CC_INFO = 26
BBR_INFO_FMT = "=5I"


def bbr_info(s: socket.socket) -> dict[str, Any]:
    raw = s.getsockopt(socket.IPPROTO_TCP, TCP_CC_INFO, struct.calcsize(BBR_INFO_FMT))
    if len(raw) < struct.calcsize(BBR_INFO_FMT):
        return {}
    lo, hi, _min_rtt, pacing_gain, cwnd_gain = struct.unpack(BBR_INFO_FMT, raw)
    return {"bbr_bw": (hi << 32) | lo, "bbr_pacing_gain": pacing_gain, "bbr_cwnd_gain": cwnd_gain}


def write_json(path: str, obj: dict[str, Any]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f)
    os.replace(tmp, path)


def sender(a: argparse.Namespace) -> None:
    out: dict[str, Any] = {"role": "sender", "error": None, "samples": []}
    deadline = a.epoch + a.until
    print("ready", flush=True)
    sleep_until(a.epoch + a.start)
    out["start_late_ns"] = now_ns() - (a.epoch + a.start)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, a.cc.encode())
        if a.mss:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, a.mss)
        if a.pacing:
            # an unsigned 32-bit value (~34 Gb/s, above any link here); an int
            # argument would be read as a signed C int and overflow
            s.setsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE, struct.pack("=I", 0xFFFFFFFE))
        out["cc"] = s.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).rstrip(b"\0").decode()
        is_bbr = out["cc"] == "bbr"
        stop = threading.Event()
        samples = out["samples"]

        def sample_loop() -> None:
            t = a.epoch + a.start
            while not stop.is_set():
                t += a.sample
                sleep_until(min(t, deadline))
                if stop.is_set() or now_ns() > deadline:
                    break
                try:
                    info = tcp_info(s)
                    if is_bbr:
                        info.update(bbr_info(s))
                    samples.append([now_ns() - a.epoch, info])
                except OSError:
                    break

        out["syn_ns"] = now_ns() - a.epoch
        s.settimeout(max(0.001, (deadline - now_ns()) / 1e9))
        s.connect((a.dst, a.port))
        out["established_ns"] = now_ns() - a.epoch
        th = threading.Thread(target=sample_loop, daemon=True)
        if a.sample > 0:
            th.start()
        if a.bytes > 0:
            s.sendall(bytes(a.bytes))
            out["written_ns"] = now_ns() - a.epoch
            s.shutdown(socket.SHUT_WR)
            s.settimeout(max(0.001, (deadline - now_ns()) / 1e9))
            while s.recv(4096):
                pass
            out["closed_ns"] = now_ns() - a.epoch
        else:
            chunk = bytes(1 << 20)
            while True:
                left = (deadline - now_ns()) / 1e9
                if left <= 0:
                    break
                s.settimeout(left)
                try:
                    s.send(chunk)
                except (TimeoutError, BlockingIOError):
                    break
        out["final"] = tcp_info(s)
        out["final_ns"] = now_ns() - a.epoch
        stop.set()
    except (TimeoutError, OSError) as e:
        out["error"] = f"{type(e).__name__}: {e}"
        try:
            out["final"] = tcp_info(s)
            out["final_ns"] = now_ns() - a.epoch
        except OSError:
            pass
    finally:
        write_json(a.out, out)
        with contextlib.suppress(OSError):
            s.close()


def sink(a: argparse.Namespace) -> None:
    out: dict[str, Any] = {"role": "sink", "error": None, "bytes": 0, "series": []}
    deadline = a.epoch + a.until
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", a.port))
    ls.listen(1)
    print("ready", flush=True)
    try:
        ls.settimeout(max(0.001, (deadline - now_ns()) / 1e9 + 1.0))
        c, _ = ls.accept()
        out["accept_ns"] = now_ns() - a.epoch
        buf = bytearray(1 << 18)
        n_total = 0
        next_sample = a.epoch + a.sample if a.sample > 0 else None
        while True:
            left = (deadline - now_ns()) / 1e9
            if left <= 0:
                break
            c.settimeout(left)
            try:
                n = c.recv_into(buf)
            except TimeoutError:
                break
            t = now_ns()
            if n == 0:
                out["eof_ns"] = t - a.epoch
                break
            if n_total == 0:
                out["first_ns"] = t - a.epoch
            n_total += n
            out["last_ns"] = t - a.epoch
            while next_sample is not None and t >= next_sample:
                out["series"].append([next_sample - a.epoch, n_total - n])
                next_sample += a.sample
        out["bytes"] = n_total
        c.close()
    except OSError as e:
        out["error"] = f"{type(e).__name__}: {e}"
    finally:
        write_json(a.out, out)
        ls.close()


def main() -> None:
    die_with_parent()
    p = argparse.ArgumentParser()
    p.add_argument("role", choices=["send", "sink"])
    p.add_argument("--dst", default="")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--cc", default="cubic")
    p.add_argument("--mss", type=int, default=0)
    p.add_argument("--pacing", type=int, default=0)
    p.add_argument("--bytes", type=int, default=0, help="file size; 0 = bulk until the deadline")
    p.add_argument("--epoch", type=int, required=True, help="CLOCK_MONOTONIC ns of time 0")
    p.add_argument("--start", type=int, default=0, help="ns after the epoch")
    p.add_argument("--until", type=int, required=True, help="deadline, ns after the epoch")
    p.add_argument("--sample", type=int, default=0, help="sampling period, ns (0: none)")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    (sender if a.role == "send" else sink)(a)
    # Linger until the orchestrator closes our stdin (after it has stopped
    # the forwarder), so that interpreter shutdown does not compete for the
    # CPU with the forwarder while other flows still run.
    with contextlib.suppress(OSError, ValueError):
        sys.stdin.read()


if __name__ == "__main__":
    main()
