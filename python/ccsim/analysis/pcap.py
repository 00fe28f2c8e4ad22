"""pcap files of captured links (`sim.pcap`, `ccsim run --pcap`), for
Wireshark, tcpdump and tcptrace.

Each captured link direction gives one file in the classic pcap format
with nanosecond timestamps (magic 0xa1b23c4d) and link type RAW (101: the
record starts with the IPv4 header). A record is a packet as it arrived at
the link's far end (lost packets are not there), headers only: the snap
length is the header length and the original length is the packet's size on
the wire, so readers report the real sizes. The headers are built from the
simulated packet:

- IPv4: node i has address 10.(i >> 8).(i & 255).1, and a packet goes from
  its flow's sending host to the receiving one (an ACK the other way); the
  ECN field is the packet's codepoint; DF set, TTL 64, the header checksum computed; the
  identification counts the link's records;
- TCP: ports 10000 + flow and 20000 + connection number (a repeated
  transfer's connections are separate streams); initial sequence numbers 0,
  so byte sequence = segment × mss (the last segment of a file may be
  shorter); ACK numbers likewise, in bytes, from the receiver's cumulative
  ACK; flags SYN, SYN-ACK, ACK, ECE and CWR as the simulator set them, and
  FIN on the last data segment of a transfer: the simulator models no
  connection teardown, so the capture shows the close as Linux sends it
  when the application closes after its last write (`tcp_send_fin` puts
  the FIN on the last queued segment), the receiver's ACK of that segment
  acknowledging the FIN too (byte sequence = the transfer's size + 1); the
  window field says 65535 with window scale 14 announced on SYN and SYN-ACK
  (the model has no receive window unless `tcp.rwnd` is set); options as
  sized by the simulator: timestamps (TSval and TSecr in milliseconds, the
  Linux clock) and SACK blocks in bytes; the SYN and SYN-ACK also carry MSS,
  SACK-permitted and window scale, which the simulator does not count in
  their size (their IP length is raised to fit); the TCP checksum is 0
  (there is no payload to sum);
- UDP: ports 30000 + source, length from the size.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

MAGIC_NS = 0xA1B23C4D
LINKTYPE_RAW = 101


def _addr(node: int) -> bytes:
    return bytes([10, (node >> 8) & 255, node & 255, 1])


def _csum(b: bytes) -> int:
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return int(~s & 0xFFFF)


def _ts_option(tsval: int, tsecr: int) -> bytes:
    return b"\x01\x01" + struct.pack("!BBII", 8, 10, tsval & 0xFFFFFFFF, tsecr & 0xFFFFFFFF)


def link_file_name(name: str) -> str:
    """The file a link's capture goes to: its name with '->' as '-' and any
    other character outside [A-Za-z0-9._-] as '_' (when two captured links
    map to one name, `Result.write_pcaps` adds '.link<index>' to each)."""
    s = name.replace("->", "-")
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in s) + ".pcap"


def pair_file_name(a: str, b: str) -> str:
    """The file both directions of the link pair a – b go to together."""
    return link_file_name(f"{a}->{b}")[: -len(".pcap")] + ".both.pcap"


def transfer_sizes(core: dict[str, Any], transfers: dict[str, Any] | None) -> dict[tuple[int, int], int]:
    """Bytes of each finite transfer by (flow, connection number): a file
    flow's one connection, and a repeating flow's transfers (the k-th on
    connection k, as the simulator numbers them)."""
    out: dict[tuple[int, int], int] = {}
    for i, f in enumerate(core["flows"]):
        if f["app"]["kind"] == "file":
            out[(i, 0)] = int(f["app"]["bytes"])
    if transfers is not None and len(transfers.get("flow", [])):
        for fl, k, b in zip(transfers["flow"], transfers["index"], transfers["bytes"]):
            if core["flows"][int(fl)]["app"]["kind"] != "file":
                out[(int(fl), int(k) & 0xFFFF)] = int(b)
    return out


def write_link(
    path: Path,
    cap: dict[str, Any],
    link: int | list[int],
    core: dict[str, Any],
    events: tuple[str, ...],
    sizes: dict[tuple[int, int], int] | None = None,
) -> int:
    """Write the records of `link` (or of several links, in time order)
    whose `event` is one of `events` ("arrival", "drop", "loss") from the
    capture columns `cap` to `path` (atomically); return the number of
    packets. `sizes` (:func:`transfer_sizes`) places the FINs."""
    ev = np.asarray(cap["event"], dtype=object)
    links = [link] if isinstance(link, int) else list(link)
    idx = np.flatnonzero(np.isin(np.asarray(cap["link"]), links) & np.isin(ev, list(events)))
    flows, udp = core["flows"], core.get("udp", [])

    def records() -> Iterator[tuple[int, bytes, int]]:
        for n, i in enumerate(idx.tolist()):
            yield _record(cap, i, n, flows, udp, sizes or {})

    return _write(path, records())


def write_raw(path: Path, cap: dict[str, Any], link: int | list[int]) -> int:
    """The emulation's capture: the headers as they were on the wire
    (`capture_raw`: time_ns, link, size, hdr_hex), of one link or several
    (merged in time order)."""
    links = [link] if isinstance(link, int) else list(link)
    sel = np.flatnonzero(np.isin(np.asarray(cap["link"]), links))
    idx = sel[np.argsort(np.asarray(cap["time_ns"])[sel], kind="stable")]
    return _write(
        path,
        ((int(cap["time_ns"][i]), bytes.fromhex(cap["hdr_hex"][i]), int(cap["size"][i])) for i in idx.tolist()),
    )


def _write(path: Path, records: Iterable[tuple[int, bytes, int]]) -> int:
    """A pcap file of (time in ns, header bytes, original length) records,
    written atomically; the number of records."""
    parts = [struct.pack("<IHHiIII", MAGIC_NS, 2, 4, 0, 0, 65535, LINKTYPE_RAW)]
    n = 0
    for t, rec, orig in records:
        parts.append(struct.pack("<IIII", t // 10**9, t % 10**9, len(rec), max(orig, len(rec))))
        parts.append(rec)
        n += 1
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        f.write(b"".join(parts))
    os.replace(tmp, path)
    return n


def _record(
    cap: dict[str, Any], i: int, n: int, flows: list[Any], udp: list[Any], sizes: dict[tuple[int, int], int]
) -> tuple[int, bytes, int]:
    """One synthesised record: (time in ns, IPv4 and TCP/UDP headers, IP length)."""
    kind = cap["kind"][i]
    size = int(cap["size"][i])
    t = int(cap["time_ns"][i])
    ecn = int(cap["ecn"][i])
    fl = int(cap["flow"][i])
    if kind == "udp":
        l4 = struct.pack("!HHHH", 30000 + fl, 30000 + fl, max(size - 20, 8), 0)
        proto = 17
        src, dst = udp[fl]["src"], udp[fl]["dst"]
    else:
        l4 = _tcp(cap, i, kind, flows[fl]["tcp"], sizes.get((fl, int(cap["conn"][i]))))
        proto = 6
        src, dst = flows[fl]["src"], flows[fl]["dst"]
        if kind in ("ack", "synack"):
            src, dst = dst, src
    src_ip, dst_ip = _addr(src), _addr(dst)
    total = max(size, 20 + len(l4))
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, ecn & 3, total, n & 0xFFFF, 0x4000, 64, proto, 0, src_ip, dst_ip)
    ip = ip[:10] + struct.pack("!H", _csum(ip)) + ip[12:]
    return t, ip + l4, total


def _tcp(cap: dict[str, Any], i: int, kind: str, tcp: dict[str, Any], size: int | None = None) -> bytes:
    mss = int(tcp["mss"])
    flow, conn = int(cap["flow"][i]), int(cap["conn"][i])
    sport, dport = 10000 + flow, 20000 + conn
    if kind in ("ack", "synack"):  # the receiver's direction
        sport, dport = dport, sport
    seq_seg = int(cap["seq"][i])
    ts_ms = int(cap["ts_ps"][i]) // 10**9
    now_ms = int(cap["time_ns"][i]) // 10**6
    flags_bits = int(cap["flags"][i])
    ece, cwr = bool(flags_bits & 1), bool(flags_bits & 2)
    opts = b""
    if kind in ("syn", "synack"):
        opts += struct.pack("!BBH", 2, 4, mss)
        if tcp.get("sack", "off") != "off":
            opts += b"\x04\x02"
        if tcp.get("timestamps"):
            opts += _ts_option(ts_ms, 0) if kind == "syn" else _ts_option(now_ms, ts_ms)
        opts += b"\x01\x03\x03\x0e"  # NOP, window scale 14
    elif tcp.get("timestamps"):
        # data: TSval = its send time; ACK: TSecr = the echoed TSval
        opts += _ts_option(ts_ms, 0) if kind == "data" else _ts_option(now_ms, ts_ms)
    if kind == "ack" and int(cap["nsack"][i]) > 0:
        n = int(cap["nsack"][i])
        blocks = b"".join(
            struct.pack(
                "!II", (int(cap[f"sack{k}_l"][i]) * mss) & 0xFFFFFFFF, (int(cap[f"sack{k}_r"][i]) * mss) & 0xFFFFFFFF
            )
            for k in range(1, n + 1)
        )
        opts += b"\x01\x01" + struct.pack("!BB", 5, 2 + 8 * n) + blocks
    while len(opts) % 4:
        opts += b"\x01"
    hl = 20 + len(opts)
    last = None if size is None else max(-(-size // mss), 1)  # segments of the transfer
    if kind == "data":
        seq, ack, fl = seq_seg * mss, 1, 0x10
        if last is not None and seq_seg == last - 1:
            fl |= 0x01  # FIN on the transfer's last segment
    elif kind == "ack":
        seq, ack, fl = 1, seq_seg * mss, 0x10
        if size is not None and last is not None and seq_seg >= last:
            ack = size + 1  # every byte and the FIN
    elif kind == "syn":
        seq, ack, fl = 0xFFFFFFFF, 0, 0x02  # ISN −1: the first data byte is 0
    else:  # synack
        seq, ack, fl = 0, 0, 0x12
    if ece:
        fl |= 0x40
    if cwr:
        fl |= 0x80
    return (
        struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, (hl // 4) << 4, fl, 65535, 0, 0)
        + opts
    )
