"""Run results: columns from the core as numpy arrays and polars DataFrames,
written as Parquet with a JSON manifest.

Tables: ``flows`` (per-flow summary), ``links`` (per-link summary),
``flow_series`` and ``link_series`` (sampled every ``sim.sample_interval``),
``events`` (timeouts, fast retransmits, recovery ends, completions),
``transfers`` (every file and repeated object: size, start, end, FCT),
``udp`` (per UDP source), and ``rtt_trace`` / ``seq_trace`` / ``cc_state`` when asked for.
Emulated runs (docs/emulation.md) add ``emulation`` (the run's self-validation,
one row), ``forwarder``, ``hosts`` and, with the seq trace, ``wire``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import platform
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

from .. import _core
from ..errors import ScenarioError

if TYPE_CHECKING:
    import threading

    import polars as pl

T = TypeVar("T")


class Scenario(Protocol):
    """What this module reads of a `ccsim.Scenario` (scenario.py imports this
    module to run, so it is described here rather than imported)."""

    source: str
    raw: dict[str, Any]

    @property
    def seed(self) -> int: ...
    @property
    def core(self) -> dict[str, Any]: ...
    @property
    def duration_s(self) -> float: ...

    def to_core_json(self) -> str: ...


# The simulator's result tables are the core's (output::RESULT_TABLES);
# the emulation backend adds its own (docs/emulation.md).
EMULATION_TABLES = ("emulation", "forwarder", "hosts", "wire")
TABLES = (*_core.RESULT_TABLES, *EMULATION_TABLES)


# The files ccsim.analysis.plot.plot_dir writes; a new run in the same folder removes
# them first (they would show the previous run).
PLOT_FORMATS = ("png", "svg", "pdf")
PLOT_FILES = tuple(f"{name}.{fmt}" for name in ("cwnd", "throughput", "seq", "queue") for fmt in PLOT_FORMATS)


def str_cells(data: tuple[bytes, list[str]]) -> list[str]:
    """A raw string column's rows: the core sends each row's code (uint32)
    and the distinct values, so a million rows share a few str objects."""
    codes, values = data
    cells: list[str] = np.array(values, dtype=object)[np.frombuffer(codes, dtype=np.uint32)].tolist()
    return cells


def str_raw(cells: list[str]) -> tuple[bytes, list[str]]:
    """`str_cells`'s inverse: a raw string column made in Python (the
    emulation backend's tables) in the core's form."""
    values = list(dict.fromkeys(cells))
    code = {v: i for i, v in enumerate(values)}
    return np.array([code[c] for c in cells], dtype=np.uint32).tobytes(), values


def _raw_rows(dtype: str, data: Any) -> int:
    """Rows of one raw column."""
    return len(data[0]) // 4 if dtype == "str" else len(data) // np.dtype(dtype).itemsize


def _columns(raw_cols: list[tuple[str, str, Any]]) -> dict[str, np.ndarray | list[Any]]:
    cols: dict[str, np.ndarray | list[Any]] = {}
    for name, dtype, data in raw_cols:
        if dtype == "str":
            cols[name] = str_cells(data)
        else:
            cols[name] = np.frombuffer(data, dtype=np.dtype(dtype).newbyteorder("="))
    return cols


# Tables whose rows belong to a link by its index (column "link"): each also
# carries the link's name, as written in the `links` table ("r0->r1").
PER_LINK_TABLES = ("link_series",)


def table_columns(name: str, tables: dict[str, Any]) -> dict[str, np.ndarray | list[Any]]:
    """One result table's columns from the core's raw tables; a per-link
    table gains `link_name` after `link`."""
    cols = _columns(tables[name])
    if name in PER_LINK_TABLES and "links" in tables:
        names = np.array(next(str_cells(d) for c, _, d in tables["links"] if c == "name"), dtype=object)
        out: dict[str, np.ndarray | list[Any]] = {}
        for k, v in cols.items():
            out[k] = v
            if k == "link":
                out["link_name"] = names[np.asarray(v, dtype=np.int64)].tolist() if len(v) else []
        return out
    return cols


def _arrow_column(pa: Any, v: np.ndarray | list[Any]) -> Any:
    """One result column as an Arrow array built on its buffers: numbers
    as they are, strings as UTF-8 with offsets. `pyarrow.array` would do
    the same but imports pandas on its first call (about 0.35 CPU-s)."""
    if isinstance(v, list):
        data = [x.encode() for x in v]
        ends = np.cumsum([len(b) for b in data], dtype=np.int64)
        wide = len(ends) > 0 and ends[-1] >= 2**31
        offsets = np.concatenate([np.zeros(1, np.int64), ends]).astype(np.int64 if wide else np.int32)
        kind = pa.large_string() if wide else pa.string()
        return pa.Array.from_buffers(kind, len(data), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))])
    a = np.ascontiguousarray(v)
    return pa.Array.from_buffers(pa.from_numpy_dtype(a.dtype), len(a), [None, pa.py_buffer(a)])


def encode_run(tables: dict[str, Any]) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """A sweep run's tables as Parquet: (the tables with rows, the empty
    ones). A campaign stores the first only; an empty table's bytes are the
    same for every run (its columns and types), so the store keeps one copy
    per campaign as the schema its query views read (`Store.write_run`)."""
    files = encode_tables(tables)
    empty = {name: data for name, data in files.items() if _empty_key(name, tables[name]) is not None}
    return {name: data for name, data in files.items() if name not in empty}, empty


def _empty_key(name: str, raw: list[Any]) -> tuple[Any, ...] | None:
    """The cache key of an empty table (None for a table with rows)."""
    if any(_raw_rows(dtype, data) for _, dtype, data in raw):
        return None
    return (name, tuple((c, d) for c, d, _ in raw))


def encode_tables(tables: dict[str, Any]) -> dict[str, bytes]:
    """The core's raw tables -> {table name: Parquet bytes} for the tables a
    run writes: the one Parquet writer of results (`Result.write`, a sweep's
    workers). pyarrow directly (zstd, as polars writes): for the small
    tables of a typical run it is ~4× faster than building a polars frame
    and writing it, and it imports neither polars nor pandas."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = {}
    for name in TABLES:
        if name in tables:
            raw = tables[name]
            key = _empty_key(name, raw)
            if key is not None and key in _EMPTY:
                files[name] = _EMPTY[key]
                continue
            cols = table_columns(name, tables)
            t = pa.Table.from_arrays([_arrow_column(pa, v) for v in cols.values()], names=list(cols))
            buf = pa.BufferOutputStream()
            if t.num_rows < SMALL_TABLE_ROWS:
                # a small table: compression, dictionaries and min/max
                # statistics save nothing worth their cost (3.3 of a tiny
                # run's 5.5 ms of encoding; docs/performance.md)
                pq.write_table(t, buf, compression="none", use_dictionary=False, write_statistics=False)
            else:
                pq.write_table(t, buf, compression="zstd")
            files[name] = buf.getvalue().to_pybytes()
            if key is not None:
                _EMPTY[key] = files[name]
    return files


# Tables with fewer rows are written plain (`encode_tables`); larger ones
# with zstd, dictionaries and statistics, which make big tables small and
# let queries skip row groups.
SMALL_TABLE_ROWS = 4096

# Encoded empty tables by (table, columns and types): most tables of a small
# run are empty (no transfers, traces or UDP), and encoding one costs as much
# as a full small table (~0.7 ms); the bytes are the same every time.
_EMPTY: dict[tuple[Any, ...], bytes] = {}


class Result:
    """The outcome of one run."""

    def __init__(self, scenario: Scenario, raw: dict[str, Any], wall_time_s: float, cpu_time_s: float) -> None:
        self.scenario = scenario
        self.raw = raw
        self.columns = {name: table_columns(name, raw["tables"]) for name in raw["tables"]}
        self.events_processed = int(raw["events"])
        self.sim_time_s = float(raw["sim_time_s"])
        self.delivered_data_pkts = int(raw["delivered_data_pkts"])
        self.wall_time_s = wall_time_s
        self.cpu_time_s = cpu_time_s
        self._frames: dict[str, pl.DataFrame] = {}

    def table(self, name: str) -> pl.DataFrame:
        # polars is imported with the first frame: `ccsim run --json` and a
        # sweep's worker need none (about 0.2 CPU-s of imports)
        import polars as pl

        if name not in self._frames:
            self._frames[name] = pl.DataFrame(self.columns[name])
        return self._frames[name]

    @property
    def flows(self) -> pl.DataFrame:
        return self.table("flows")

    @property
    def links(self) -> pl.DataFrame:
        return self.table("links")

    @property
    def flow_series(self) -> pl.DataFrame:
        return self.table("flow_series")

    @property
    def link_series(self) -> pl.DataFrame:
        return self.table("link_series")

    @property
    def events(self) -> pl.DataFrame:
        return self.table("events")

    @property
    def transfers(self) -> pl.DataFrame:
        return self.table("transfers")

    @property
    def udp(self) -> pl.DataFrame:
        return self.table("udp")

    def manifest(self) -> dict[str, Any]:
        return {
            "format": RESULTS_FORMAT,
            "ccsim_version": _core.__version__,
            "source": self.scenario.source,
            "seed": self.scenario.seed,
            "scenario": self.scenario.raw,
            "resolved": self.scenario.core,
            "sim_time_s": self.sim_time_s,
            "wall_time_s": self.wall_time_s,
            "cpu_time_s": self.cpu_time_s,
            "events": self.events_processed,
            "delivered_data_pkts": self.delivered_data_pkts,
            "python": platform.python_version(),
            "created_unix": time.time(),
        }

    def summary(self) -> pl.DataFrame:
        """Per flow: label, algorithm, goodput and throughput in Mb/s,
        retransmissions, timeouts and FCT (what a notebook shows)."""
        import polars as pl

        f = self.flows
        cols = [c for c in ("id", "label", "cc") if c in f.columns]
        return f.select(
            cols
            + [
                (pl.col("goodput_bps") / 1e6).alias("goodput_Mbps"),
                (pl.col("throughput_bps") / 1e6).alias("throughput_Mbps"),
                "retransmits",
                "timeouts",
                "fct_s",
            ]
        )

    def _headline(self) -> str:
        f = self.columns["flows"]
        total = float(np.sum(f["goodput_bps"])) / 1e6 if len(f["id"]) else 0.0
        return (
            f"{self.scenario.source}, seed {self.scenario.seed}: {len(f['id'])} flows, total goodput "
            f"{total:.3f} Mb/s; simulated {self.sim_time_s:g} s in {self.wall_time_s:.2f} s wall"
        )

    def __repr__(self) -> str:
        return f"<Result {self._headline()}>\n{self.summary()}"

    def _repr_html_(self) -> str:
        from html import escape

        return f"<b>ccsim Result</b> {escape(self._headline())}" + self.summary()._repr_html_()

    def summary_json(self) -> dict[str, Any]:
        """The `ccsim run --json` object."""
        f = self.columns["flows"]
        flows = []
        for i in range(len(f["id"])):
            fct = float(f["fct_s"][i])
            flows.append(
                {
                    "id": int(f["id"][i]),
                    "src": f["src"][i],
                    "dst": f["dst"][i],
                    "cc": f["cc"][i],
                    "goodput_bps": float(f["goodput_bps"][i]),
                    "throughput_bps": float(f["throughput_bps"][i]),
                    "retransmits": int(f["retransmits"][i]),
                    "timeouts": int(f["timeouts"][i]),
                    "fct_s": None if np.isnan(fct) else fct,
                }
            )
        lk = self.columns["links"]
        links = [
            {
                "name": lk["name"][i],
                "drops": int(lk["drops"][i]),
                "losses": int(lk["losses"][i]),
                "utilization": float(lk["utilization"][i]),
            }
            for i in range(len(lk["name"]))
        ]
        return {
            "flows": flows,
            "links": links,
            "sim_time_s": self.sim_time_s,
            "wall_time_s": self.wall_time_s,
            "events": self.events_processed,
        }

    def write_pcaps(self, out: Path) -> list[Path]:
        """Per captured link (pcap.py): `<link>.pcap`, the packets that
        reached its far end, and `<link>.drops.pcap`, those its queue dropped
        or its loss model lost, where the capture has them."""
        from .pcap import link_file_name, pair_file_name

        core = self.scenario.core
        if not core.get("capture_links") or not self._has_capture():
            return []
        files = []
        # two names that map to one file ('a b->c', 'a_b->c') each keep their own, by link index
        stems = [link_file_name(core["links"][link]["name"]) for link in core["capture_links"]]
        clash = {n for n in stems if stems.count(n) > 1}
        for link, stem in zip(core["capture_links"], stems):
            p = out / (stem[: -len(".pcap")] + f".link{link}.pcap" if stem in clash else stem)
            self._write_link_pcap(p, link)
            files.append(p)
            d = p.with_name(p.name[: -len(".pcap")] + ".drops.pcap")
            if self._write_link_drops(d, link):
                files.append(d)
        # both directions of a captured pair in one file (data and its ACKs)
        captured = set(core["capture_links"])
        ends = {(lk["from"], lk["to"]): i for i, lk in enumerate(core["links"])}
        for link in core["capture_links"]:
            lk = core["links"][link]
            back = ends.get((lk["to"], lk["from"]))
            if back is not None and back in captured and link < back:
                nodes = core["nodes"]
                p = out / pair_file_name(nodes[lk["from"]], nodes[lk["to"]])
                self._write_link_pcap(p, [link, back])
                files.append(p)
        return files

    def _has_capture(self) -> bool:
        return "capture" in self.columns

    def _write_link_pcap(self, path: Path, link: int | list[int]) -> None:
        """The simulator's capture: headers built from the packets' fields."""
        from .pcap import write_link

        write_link(path, self.columns["capture"], link, self.scenario.core, ("arrival",), self._transfer_sizes())

    def _write_link_drops(self, path: Path, link: int) -> bool:
        """The packets the link dropped or lost; False where the capture has
        none to give (the emulation records arrivals only)."""
        from .pcap import write_link

        write_link(path, self.columns["capture"], link, self.scenario.core, ("drop", "loss"), self._transfer_sizes())
        return True

    def _transfer_sizes(self) -> dict[tuple[int, int], int]:
        from .pcap import transfer_sizes

        return transfer_sizes(self.scenario.core, self.columns.get("transfers"))

    def write(self, out_dir: str | Path) -> Path:
        """Write every table as Parquet and a manifest.json into `out_dir`.

        The files are written into a staging folder inside it first
        (`.ccsim-staging`) and swapped in only when all are complete, so an
        interruption or a full disk at any moment leaves the earlier results
        whole: before the swap they are untouched; during it, the staged
        write is complete and the next write or read finishes the swap.
        Only files an earlier ccsim manifest lists (and its plots) are ever
        replaced or removed; a file of the user's named like one of ours, in
        a folder no ccsim run wrote, makes the write refuse, naming it."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        _finish_swap(out)  # an earlier write interrupted while swapping in
        stage = out / STAGING
        if stage.exists():  # an earlier write interrupted before its swap: dropped
            shutil.rmtree(stage)
        stage.mkdir()
        try:
            encoded = encode_tables(self.raw["tables"])
            names = list(encoded)
            for name, data in encoded.items():
                (stage / f"{name}.parquet").write_bytes(data)
            man = self.manifest()
            man["files"] = {f"{name}.parquet": (stage / f"{name}.parquet").stat().st_size for name in names}
            for f in self.write_pcaps(stage):
                man["files"][f.name] = f.stat().st_size
            man["sha256"] = {name: file_sha256(stage / name) for name in man["files"]}
            _refuse_users_files(out, [*man["files"], *PLOT_FILES])
            tmp = stage / ".manifest.json.tmp"
            tmp.write_text(json.dumps(man, indent=2, default=str))
            os.replace(tmp, stage / "manifest.json")  # the staged write is complete
        except BaseException as e:
            shutil.rmtree(stage, ignore_errors=True)
            if isinstance(e, Exception) and not isinstance(e, ScenarioError):
                raise OSError(
                    f"could not write the results into {out} ({e}); the earlier results there are untouched"
                ) from e
            raise
        _finish_swap(out)
        return out


def file_sha256(path: Path) -> str:
    """A file's SHA-256, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


# The folder inside a results folder where a write stages its files.
STAGING = ".ccsim-staging"
# The marker of a run's manifest.json (`Result.manifest`): a folder is ours
# only when its manifest says so.
RESULTS_FORMAT = "ccsim-run/1"


def is_ccsim_manifest(path: Path) -> bool:
    """Whether `path` is a manifest a ccsim run wrote: it carries the format
    marker, or (written before the marker) ccsim's version, the model's and
    the list of its files."""
    try:
        m = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    if not isinstance(m, dict):
        return False
    return m.get("format") == RESULTS_FORMAT or (
        "format" not in m and isinstance(m.get("files"), dict) and "ccsim_version" in m and "resolved" in m
    )


def _refuse_users_files(out: Path, names: list[str]) -> None:
    """A write may replace only what an earlier ccsim run wrote there: in a
    folder without a ccsim manifest (none, or a manifest.json of the user's
    own), a file named like one of ours is the user's, and the write stops
    before touching anything."""
    man = out / "manifest.json"
    if is_ccsim_manifest(man) or is_ccsim_manifest(out / ".manifest.prev.json"):
        return
    clash = sorted(n for n in [*names, "manifest.json"] if (out / n).exists())
    if clash:
        why = "its manifest.json was not written by ccsim" if man.exists() else "the folder has no manifest.json"
        raise ScenarioError(
            str(out),
            message=(
                f"{out}: holds {', '.join(clash[:3])}{' …' if len(clash) > 3 else ''}, not written by a ccsim run "
                f"({why}); a run would replace it: choose another --out, or move the file away"
            ),
        )


def _finish_swap(out: Path) -> None:
    """Swap a complete staged write in (idempotent, so an interrupted swap is
    finished by the next write or read): the earlier run's manifest is set
    aside, the files it lists and its plots are removed, the staged files
    move in, the new manifest last."""
    stage = out / STAGING
    new_man = stage / "manifest.json"
    if not new_man.is_file():
        return
    man_path, prev_path = out / "manifest.json", out / ".manifest.prev.json"
    if man_path.exists():
        if not is_ccsim_manifest(man_path):  # the user's own: never replaced (write refused before)
            shutil.rmtree(stage, ignore_errors=True)
            return
        os.replace(man_path, prev_path)
    new = _listed_files(new_man) or []
    earlier = _listed_files(prev_path)
    if earlier is not None:
        for name in earlier:
            if Path(name).name == name and name != "manifest.json" and name not in new:
                (out / name).unlink(missing_ok=True)
        for name in PLOT_FILES:
            (out / name).unlink(missing_ok=True)
    for name in new:
        if Path(name).name == name and (stage / name).exists():
            os.replace(stage / name, out / name)
    os.replace(new_man, man_path)
    prev_path.unlink(missing_ok=True)
    shutil.rmtree(stage, ignore_errors=True)


def _listed_files(manifest: Path) -> list[str] | None:
    """The files an earlier run's manifest lists, or None when the folder
    holds no ccsim manifest (or an unreadable one: then nothing is taken for
    ours)."""
    try:
        files = json.loads(manifest.read_text()).get("files")
    except (OSError, ValueError, AttributeError):
        return None
    return [str(k) for k in files] if isinstance(files, dict) else None


def run_scenario(sc: Scenario, control: _core.RunControl | None = None) -> Result:
    """Run `sc`; with a `_core.RunControl`, the run reports progress to it and
    can be cancelled through it (raising `_core.RunCancelled`)."""
    from .. import memory

    payload = sc.to_core_json()
    w0, c0 = time.perf_counter(), time.process_time()
    try:
        raw = _core.run(payload, control if control is not None else memory.new_control())
    except _core.ScenarioError as e:
        if isinstance(e, ScenarioError):
            raise
        # The core re-validates the resolved scenario (and checks routes);
        # present its message as the same exception type the parser raises.
        raise ScenarioError("scenario", message=str(e)) from None
    except MemoryError as e:
        hook = [n for n in getattr(e, "__notes__", ()) if n.startswith("ccsim: raised in")]
        if hook:  # a Python algorithm's own allocation, not the recorded tables
            raise ScenarioError(
                "tcp.cc",
                message=f"tcp.cc: the Python algorithm ran out of memory ({hook[0][len('ccsim: ') :]}): its own "
                "allocations, not the tables ccsim records; the run was stopped and nothing was kept",
            ) from None
        total = memory.total_bytes(memory.estimate_rows(sc.core))
        raise ScenarioError(
            "sim.sample_interval",
            message=(
                "sim.sample_interval / sim.trace: the run's recorded tables "
                f"(estimated {memory.gb(total)}) did not fit in "
                f"this machine's memory; record less (a longer interval, 'off', fewer traces) or lower "
                f"${memory.ENV} so that such runs are refused before they start"
            ),
        ) from None
    w1, c1 = time.perf_counter(), time.process_time()
    return Result(sc, raw, w1 - w0, c1 - c0)


# How long a stopped run's thread is waited for: the core stops within
# milliseconds and a Python hook at its next bytecode; only a hook blocked
# inside C code (a sleep, a read) outlasts this.
STOP_WAIT_S = 5.0


# The end events of runs stopped but still running (`runs_left`).
_LEFT: list[threading.Event] = []


def stop_run(done: threading.Event, ctl: _core.RunControl) -> None:
    """Cancel the run whose end sets the event `done` and wait (at most
    STOP_WAIT_S) for it, cancelling again every 0.1 s: each cancel
    interrupts a Python hook running then, even one that swallowed the
    previous interruption. A run still going after that is blocked in C
    code: `runs_left` says so, and the CLI then ends its process at once
    (`cli.main`). (An event, not `Thread.is_alive`: in Python 3.11 a join
    that Ctrl-C interrupts can leave a running thread reported as ended.)"""
    import time

    end = time.monotonic() + STOP_WAIT_S
    while not done.is_set() and time.monotonic() < end:
        ctl.cancel()
        done.wait(0.1)
    if not done.is_set():
        _leave(done)


def _leave(done: threading.Event) -> None:
    """Note a run whose thread no interruption ended. At the interpreter's
    exit such a thread would be stopped by unwinding through the core,
    which aborts the process (exit 134): the process ends at once instead
    (`os._exit`), with 1 if an uncaught exception was reported and 0
    otherwise (a `sys.exit(n)` code is not known there and reads as 0)."""
    import atexit

    if not _LEFT:

        def end() -> None:
            if runs_left():
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(1 if getattr(sys, "last_value", None) is not None else 0)

        atexit.register(end)
    _LEFT.append(done)


def runs_left() -> bool:
    """Whether a stopped run's thread is still running (`stop_run`)."""
    return any(not d.is_set() for d in _LEFT)


# What a timeout says of a run whose thread could not be stopped.
LEFT_RUNNING = (
    "; the run did not stop within 5 s of its cancel and its thread is left running: a Python algorithm's "
    "hook that ignores every interruption or is blocked inside C code, or a single step of the core too long "
    "to interrupt (a window of a million segments sent at once); a sweep with --jobs kills such a run's worker"
)


def interruptible(fn: Callable[[], T], ctl: _core.RunControl, timeout: float | None = None) -> T:
    """Run `fn` (a core run that releases the GIL, reporting to the
    `_core.RunControl` `ctl`) in a worker thread, so that Ctrl-C (SIGINT in a
    terminal, "interrupt kernel" in Jupyter) reaches the calling thread at
    once: on KeyboardInterrupt the run is stopped (`stop_run`) and
    KeyboardInterrupt is raised again. `timeout` (wall seconds) cancels
    the run (`memory.Deadline`), which then raises `_core.RunCancelled`, as
    does a run cancelled by someone else. A run that still has not ended
    STOP_WAIT_S after its timeout (a hook no interruption stops) is left to
    its thread, and RunCancelled says so (LEFT_RUNNING)."""
    import threading
    import time

    from .. import memory

    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["res"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box["err"] = e
        finally:
            done.set()

    give_up = None if timeout is None else time.monotonic() + timeout + STOP_WAIT_S
    timer = None if timeout is None else memory.Deadline(ctl, timeout)
    threading.Thread(target=work, name="ccsim-run", daemon=True).start()
    try:
        while not done.wait(0.05):
            if give_up is not None and time.monotonic() > give_up:
                _leave(done)
                raise _core.RunCancelled(f"run cancelled at simulated time {ctl.sim_time_s():.6f} s{LEFT_RUNNING}")
    except KeyboardInterrupt:
        stop_run(done, ctl)
        if not done.is_set():
            raise KeyboardInterrupt(
                "the run is stopped, but a Python algorithm's hook ignores interruptions or is blocked inside C "
                "code (a sleep, a read), and its thread runs on"
            ) from None
        raise
    finally:
        if timer is not None:
            timer.cancel()
    if "err" in box:
        raise box["err"]
    res: T = box["res"]
    return res


def run_interruptibly(sc: Scenario, *, progress: bool = False, timeout: float | None = None) -> Result:
    """:func:`run_scenario` that Ctrl-C stops within a second (raising
    KeyboardInterrupt, nothing kept), with an optional progress bar and a
    wall-time limit in seconds (raising TimeoutError)."""
    from ..experiments.progress import RunProgress

    if timeout is not None and not (
        isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and 0 < timeout < math.inf
    ):
        raise ScenarioError("timeout", timeout, "a wall time in seconds > 0, or None")
    from .. import memory

    ctl = memory.new_control()
    try:
        with RunProgress(ctl, sc.duration_s, show=bool(progress), after_s=0.0 if progress else 2.0):
            return interruptible(lambda: run_scenario(sc, control=ctl), ctl, timeout)
    except _core.RunCancelled as e:
        raise TimeoutError(
            f"{sc.source}: stopped after {timeout:g} s of wall time at simulated time "
            f"{ctl.sim_time_s():.3f} s of {sc.duration_s:g} s (timeout={timeout!r})"
            + (LEFT_RUNNING if LEFT_RUNNING in str(e) else "")
        ) from None


def read(out_dir: str | Path) -> dict[str, Any]:
    """Read the tables a run wrote (name -> DataFrame) plus 'manifest' (a dict)."""
    out = Path(out_dir)
    mpath = out / "manifest.json"
    # a write interrupted while swapping in; on read-only media, read what is there
    with contextlib.suppress(OSError):
        _finish_swap(out)
    if not mpath.is_file():
        raise ScenarioError(
            str(out),
            message=(
                f"{out}: no manifest.json: not a results folder, or its write was interrupted; run the scenario again"
            ),
        )
    try:
        man = json.loads(mpath.read_text())
    except (ValueError, OSError) as e:
        raise ScenarioError(str(out), message=f"{out}: manifest.json is unreadable ({e})") from None
    files = man.get("files")
    hashes = man.get("sha256") or {}
    if files is not None:  # folders written before the list was kept are read as they are
        for fname, size in files.items():
            f = out / fname
            if not f.is_file() or f.stat().st_size != size or (fname in hashes and file_sha256(f) != hashes[fname]):
                raise ScenarioError(
                    str(out),
                    message=(
                        f"{out}: {fname} does not match the manifest (a write was interrupted, or the file was "
                        "changed); run the scenario again"
                    ),
                )
        names = [n for n in TABLES if f"{n}.parquet" in files]
    else:
        names = [n for n in TABLES if (out / f"{n}.parquet").exists()]
    import polars as pl

    d: dict[str, Any] = {name: pl.read_parquet(out / f"{name}.parquet") for name in names}
    d["manifest"] = man
    return d
