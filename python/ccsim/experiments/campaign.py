"""Reading a campaign: ``ccsim.open_campaign(path)`` and ``ccsim query``.

Tables are read with DuckDB straight from the runs' Parquet files and joined
with each run's parameters (one column per axis, plus ``seed``), so a query
like ``SELECT "tcp.cc", avg(goodput_bps) FROM flows GROUP BY 1`` works on any
campaign. Views: ``runs`` (one row per point: run_id, status, parameters,
timings) and one per result table (``flows``, ``links``, ``flow_series``,
``link_series``, ``events``, ``transfers``, ``udp``, ...) holding the rows of
every finished run.
"""

from __future__ import annotations

import json
import warnings
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import polars as pl

from ..analysis.results import TABLES
from ..errors import suggest
from .store import SCHEMA_DIR, CampaignError, Store, model_tag, params_key

if TYPE_CHECKING:
    import duckdb

RUN_STAT_COLUMNS = ["wall_s", "cpu_s", "sim_time_s", "events"]


def _param_columns(rows: list[dict[str, Any]], first: Sequence[str] = ()) -> dict[str, list[Any]]:
    """Parameter dicts -> columns; a column whose values are not all of one
    scalar type is stored as canonical JSON text."""
    names: list[str] = [k for k in first if any(k in r for r in rows)]
    for r in rows:
        for k in r:
            if k not in names:
                names.append(k)
    cols = {}
    for k in names:
        vals = [r.get(k) for r in rows]
        kinds = {type(v) for v in vals if v is not None}
        if kinds <= {int} or kinds <= {float, int} or kinds <= {str} or kinds <= {bool}:
            cols[k] = vals
        else:
            cols[k] = [None if v is None else json.dumps(v, sort_keys=True) for v in vals]
    return cols


def _sweep_order(sweeps: list[dict[str, Any]]) -> tuple[list[str], dict[str, dict[str, int]]]:
    """The axes of the campaign's sweeps in their order (grid axes as given,
    then zipped ones, then the seed) and each axis's values ranked as the
    sweeps list them, earlier sweeps first."""
    axes: list[str] = []
    ranks: dict[str, dict[str, int]] = {}
    for sw in sweeps:
        named = list(sw.get("grid", {}).items()) + [kv for z in sw.get("zip", []) for kv in z.items()]
        for name, values in [*named, ("seed", sw.get("seeds", []))]:
            if name not in axes:
                axes.append(name)
            r = ranks.setdefault(name, {})
            for v in values:
                r.setdefault(params_key({"": v}), len(r))
    return axes, ranks


def _point_order(params: dict[str, Any]) -> tuple[Any, ...]:
    """A sort key of a run's parameters: by name, numbers by value (10 before
    100), then strings, then anything else by its canonical JSON."""

    def one(v: object) -> tuple[Any, ...]:
        if isinstance(v, bool):
            return (1, str(v))
        if isinstance(v, (int, float)):
            return (0, float(v))
        if isinstance(v, str):
            return (1, v)
        return (2, params_key({"": v}))

    return tuple((k, one(params[k])) for k in sorted(params))


_READ_ONLY = "ccsim-ro://"
REFUSED = "a campaign query cannot change files"


def _refuse(*_a: object, **_k: object) -> NoReturn:
    raise PermissionError(REFUSED)


class _PositionalFile:
    """A file open for reading whose position is kept per thread: DuckDB
    reads one handle from several threads, each as a seek then a read, and
    a shared position let another thread's seek fall between the two (a
    row group read from the wrong offset: "ZSTD Decompression failure").
    Each read is a `pread` at the calling thread's own position."""

    def __init__(self, path: str) -> None:
        import os
        import threading

        self.fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        self.size = os.fstat(self.fd).st_size
        self._pos = threading.local()
        self.closed = False

    def _at(self) -> int:
        return getattr(self._pos, "at", 0)

    def seek(self, offset: int, whence: int = 0) -> int:
        base = (0, self._at(), self.size)[whence]
        at = max(0, base + offset)
        self._pos.at = at
        return at

    def tell(self) -> int:
        return self._at()

    def read(self, n: int = -1) -> bytes:
        import os

        at = self._at()
        n = self.size - at if n is None or n < 0 else n
        out = os.pread(self.fd, n, at)
        self._pos.at = at + len(out)
        return out

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def writable(self) -> bool:
        return False

    def write(self, *_a: object) -> int:
        _refuse()

    def flush(self) -> None:
        pass

    def close(self) -> None:
        import os

        if not self.closed:
            self.closed = True
            os.close(self.fd)

    def __enter__(self) -> _PositionalFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def _read_only_files(*roots: Path) -> Any:
    """An fsspec local file system that only opens, lists and describes
    files under `roots` (a campaign's runs/ and schema/), and only for
    reading: the one way a campaign's DuckDB connection reaches the runs'
    tables."""
    import os

    from fsspec.implementations.local import LocalFileSystem

    tops = [os.path.realpath(r) for r in roots]

    def inside(path: object) -> str:
        p = os.path.realpath(str(path))
        if not any(p == top or p.startswith(top + os.sep) for top in tops):
            raise PermissionError(f"a campaign query reads only the campaign's runs, not {str(path)[:200]!r}")
        return p

    class ReadOnlyFiles(LocalFileSystem):  # type: ignore[misc]  # fsspec publishes no types
        protocol = ("ccsim-ro",)

        @classmethod
        def _strip_protocol(cls, path: object) -> str:
            p = str(path)
            return str(super()._strip_protocol(p[len(_READ_ONLY) :] if p.startswith(_READ_ONLY) else p))

        def _open(self, path: object, mode: str = "rb", **kw: Any) -> _PositionalFile:
            if mode != "rb":
                _refuse()
            return _PositionalFile(inside(self._strip_protocol(path)))

        def open(self, path: object, mode: str = "rb", **kw: Any) -> Any:
            if mode != "rb":
                _refuse()
            return super().open(path, mode, **kw)

        def info(self, path: object, **kw: Any) -> Any:
            return super().info(inside(self._strip_protocol(path)), **kw)

        def ls(self, path: object, detail: bool = False, **kw: Any) -> Any:
            return super().ls(inside(self._strip_protocol(path)), detail=detail, **kw)

    for name in (
        "rm", "rm_file", "_rm", "rmdir", "mkdir", "makedirs", "mkdirs", "mv", "move", "touch", "cp_file", "copy",
        "put", "put_file", "pipe", "pipe_file", "write_text", "write_bytes", "link", "symlink",
    ):  # fmt: skip
        setattr(ReadOnlyFiles, name, _refuse)
    return ReadOnlyFiles()


class Campaign:
    """A campaign folder opened for reading (it is never modified)."""

    def __init__(self, path: str | Path, *, allow_stale: bool = False) -> None:
        self.path = Path(path)
        self.store = Store(self.path, readonly=True)
        stale = [] if allow_stale else self.store.stale_runs()
        if stale:
            raise CampaignError(
                str(self.path),
                message=(
                    f"{self.path}: {len(stale)} runs were made by another model or ccsim version than this one "
                    f"({model_tag()}); rerun the sweep with --rerun-stale, or open with allow_stale=True"
                ),
            )
        latest: dict[tuple[Any, str], dict[str, Any]] = {}
        for e in self.store.entries():
            latest[(e.get("run_id"), params_key(e["params"]))] = e
        # a finished run folder is the truth: a failure line older than its success does not count
        damaged = sorted({e["run_id"] for e in latest.values() if e.get("status") == "ok"} - self._intact(latest))
        if damaged:
            warnings.warn(
                f"{self.path}: {len(damaged)} finished runs are damaged (a file missing or not matching its "
                f"manifest's size or SHA-256) and left out: {', '.join(damaged[:5])}"
                f"{' …' if len(damaged) > 5 else ''}; run the sweep again to recompute them",
                stacklevel=2,
            )
        # In one order whatever order the runs finished in (a parallel sweep
        # catalogues them as they complete): the sweeps' own order (each
        # axis's values as the sweep lists them, the first axis slowest,
        # the seed fastest), then by point and run, so that tables,
        # aggregates and figures follow the sweep as written, and sums and
        # means over runs are the same from one computation to the next.
        axes, ranks = _sweep_order(self.store.meta.get("sweeps", []))

        def order(e: dict[str, Any]) -> tuple[Any, ...]:
            p = e["params"]
            head = tuple(ranks[a].get(params_key({"": p[a]}), len(ranks[a])) if a in p else -1 for a in axes)
            return (head, _point_order(p), e.get("run_id") or "")

        rows = sorted(
            (e for e in latest.values() if not (e.get("status") == "ok" and e["run_id"] in damaged)), key=order
        )
        params = _param_columns([e["params"] for e in rows], first=axes)
        data = {
            "run_id": [e.get("run_id") for e in rows],
            "status": [e.get("status") for e in rows],
            **params,
            "kind": [e.get("kind") for e in rows],
            "error": [e.get("error") for e in rows],
        }
        for k in RUN_STAT_COLUMNS:
            data[k] = [e.get(k) for e in rows]
        schema = {
            "run_id": pl.String,
            "status": pl.String,
            "kind": pl.String,
            "error": pl.String,
            "wall_s": pl.Float64,
            "cpu_s": pl.Float64,
            "sim_time_s": pl.Float64,
            "events": pl.Int64,
        }
        self.axes = list(params)
        self.runs = pl.DataFrame(data, schema_overrides=schema, strict=False)
        self._con: duckdb.DuckDBPyConnection | None = None  # opened on first query

    def _intact(self, latest: dict[tuple[Any, str], dict[str, Any]]) -> set[str]:
        return {e["run_id"] for e in latest.values() if e.get("status") == "ok" and self.store.has_run(e["run_id"])}

    def restricted(self, seed: int) -> Campaign:
        """The same campaign seen through the runs of one seed only (queries,
        tables and `runs` alike)."""
        import copy

        c = copy.copy(self)
        c.runs = self.runs.filter(pl.col("seed") == seed)
        c._con = None
        return c

    @property
    def ok_runs(self) -> pl.DataFrame:
        return self.runs.filter(pl.col("status") == "ok")

    @property
    def failures(self) -> pl.DataFrame:
        return self.runs.filter(pl.col("status") != "ok")

    def _files(self, table: str) -> list[str]:
        """The Parquet files of `table` from the finished runs (never a
        folder that is being written, damaged or not catalogued)."""
        rids = dict.fromkeys(self.ok_runs["run_id"].to_list())
        root = self.path.resolve() / "runs"
        return [str(root / r / f"{table}.parquet") for r in rids if (root / r / f"{table}.parquet").exists()]

    def _schema(self, table: str) -> list[str]:
        """The campaign's copy of `table` without rows (schema/), when some
        run had it empty: a run stores only the tables it filled."""
        f = self.path.resolve() / SCHEMA_DIR / f"{table}.parquet"
        return [str(f)] if f.exists() and self.ok_runs.height else []

    def tables(self) -> list[str]:
        return [t for t in TABLES if self._files(t) or self._schema(t)]

    def connection(self) -> duckdb.DuckDBPyConnection:
        """A DuckDB connection with the views described in the module docstring."""
        if self._con is None:
            import duckdb

            con = duckdb.connect()
            # the runs' files are read through a file system that cannot
            # write, and DuckDB's own local one is switched off below
            con.register_filesystem(_read_only_files(self.path / "runs", self.path / SCHEMA_DIR))
            con.register("_runs_frame", self.runs.to_arrow())
            con.execute("CREATE VIEW runs AS SELECT * FROM _runs_frame")
            keys = ", ".join(f'r."{c}"' for c in ["run_id"] + self.axes)
            for t in TABLES:
                files = self._files(t) + self._schema(t)
                if not files:
                    continue
                listed = ", ".join("'" + _READ_ONLY + f.replace("'", "''") + "'" for f in files)
                con.execute(
                    f"CREATE VIEW {t} AS SELECT {keys}, t.* EXCLUDE (filename) "
                    f"FROM read_parquet([{listed}], filename = true, union_by_name = true) t "
                    f"JOIN _runs_frame r ON r.run_id = regexp_extract(t.filename, '/runs/([0-9a-f]+)/[^/]+$', 1) "
                    f"WHERE r.status = 'ok'"
                )
            # Confined and read-only from here on, by what the database can do
            # rather than by statement text: DuckDB's local file system is
            # disabled, so the only files it can reach are the runs' tables
            # through `_read_only_files`, which opens for reading only and
            # refuses every change (a COPY ... TO, even inside EXPLAIN
            # ANALYZE, fails); nothing is installed or loaded, and the
            # configuration is locked.
            con.execute("SET disabled_filesystems = 'LocalFileSystem'")
            con.execute("SET autoinstall_known_extensions = false")
            con.execute("SET autoload_known_extensions = false")
            con.execute("SET lock_configuration = true")
            self._con = con
            # closed before the interpreter's exit (a connection holding a
            # Python file system still open then makes nanobind report leaks)
            weakref.finalize(self, con.close)
        return self._con

    def query(self, sql: str) -> pl.DataFrame:
        """Run SQL over the campaign's views; the answer as a polars frame."""
        import duckdb

        con = self.connection()
        try:
            kinds = [s.type for s in con.extract_statements(sql)]
        except duckdb.Error as e:
            raise CampaignError("SQL", message=f"query failed: {e}{self._sql_hint(sql)}") from None
        reading = (duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN)
        bad = [k.name for k in kinds if k not in reading]
        if bad or len(kinds) != 1:
            got = ", ".join(bad) if bad else f"{len(kinds)} statements"
            raise CampaignError(
                "SQL",
                message=f"query: got {got}; expected one reading statement (SELECT, WITH … SELECT, "
                "DESCRIBE, SUMMARIZE, EXPLAIN): a campaign's results are never changed by a query",
            )
        try:
            out: pl.DataFrame = con.sql(sql).pl()
            return out
        except duckdb.Error as e:
            why = str(e)
            for short in (REFUSED, "a campaign query reads only"):
                if short in why:  # said by our file system, under a Python traceback
                    why = why[why.index(short) :].splitlines()[0]
            raise CampaignError("SQL", message=f"query failed: {why}{self._sql_hint(sql)}") from None

    def _sql_hint(self, sql: str) -> str:
        """The way out of the commonest mistake: an axis name with dots
        (tcp.cc) written bare, which SQL reads as table.column."""
        import re

        bare = [a for a in self.axes if "." in a and re.search(r'(?<!["\w.])' + re.escape(a) + r'(?!["\w])', sql)]
        if not bare:
            return ""
        return (
            "\nhint: axis columns with dots must be quoted in SQL: "
            + ", ".join(f'"{a}"' for a in bare)
            + f' (e.g. SELECT "{bare[0]}", avg(goodput_bps) FROM flows '
            f"GROUP BY 1); the views are {', '.join(['runs'] + self.tables())}"
        )

    def _stale_note(self) -> str:
        n = len(self.store.stale_runs())
        return f", {n} made by another model version (opened with allow_stale=True)" if n else ""

    def __repr__(self) -> str:
        n_ok, n_bad = self.ok_runs.height, self.failures.height
        return (
            f"<Campaign {self.path}: {n_ok} runs done, {n_bad} failed or invalid{self._stale_note()}; axes: "
            f"{', '.join(self.axes) or 'none'}; tables: {', '.join(self.tables()) or 'none'}>"
        )

    def _repr_html_(self) -> str:
        from html import escape

        head = (
            f"<b>Campaign</b> <code>{escape(str(self.path))}</code>: {self.ok_runs.height} runs done, "
            f"{self.failures.height} failed or invalid{escape(self._stale_note())}; tables: "
            f"{escape(', '.join(self.tables()) or 'none')}"
        )
        cols = [c for c in ["run_id", "status", *self.axes, "kind", "error", "wall_s"] if c in self.runs.columns]
        return head + self.runs.select(cols).head(20)._repr_html_()

    def table(self, name: str) -> pl.DataFrame:
        """Rows of result table `name` from every finished run, with the run's parameters."""
        if name not in TABLES:
            raise CampaignError("table", name, f"one of {', '.join(TABLES)}{suggest(name, TABLES)}")
        if name not in self.tables():
            if self.ok_runs.height == 0:
                why = "no run of this campaign has finished"
                if self.failures.height:
                    e = self.failures.row(0, named=True)
                    why += f" ({self.failures.height} failed or invalid; first: {e['kind']}: {e['error']})"
                raise CampaignError("table", name, message=f"table {name!r}: {why}")
            raise CampaignError("table", name, f"a table this campaign's runs wrote ({', '.join(self.tables())})")
        return self.query(f"SELECT * FROM {name}")

    def per_run(self, y: str, reduce: str = "mean", by: list[str] | str | None = None) -> pl.DataFrame:
        """One value per point: `y` is 'table.column' (reduced over the
        table's rows with `reduce`: mean, sum, min, max, median or jain)
        or 'runs.column'. Returns the runs' parameters plus one column named
        by :func:`per_run_name` (`y`, or e.g. 'jain(flows.goodput_bps)').
        `by` names columns of the table (e.g. the flows' 'cc' or 'label') to
        reduce within: one row per run and value of those columns."""
        table, _, col = y.partition(".")
        if not col:
            raise CampaignError("y", y, "'table.column', e.g. 'flows.goodput_bps' or 'runs.cpu_s'")
        by = [by] if isinstance(by, str) else list(by or [])
        keys = ["run_id"] + self.axes
        if table == "runs":
            if col not in self.runs.columns:
                raise CampaignError(
                    "y", y, f"a column of runs: {', '.join(self.runs.columns)}{suggest(col, self.runs.columns)}"
                )
            if by:
                raise CampaignError(
                    "by",
                    by,
                    message=f"by: {by!r}: a 'runs.' metric has one value per run; "
                    "'by' groups the rows of a result table (flows, links, ...)",
                )
            numeric = [c for c, t in self.runs.schema.items() if t.is_numeric() and c not in keys]
            if not self.runs.schema[col].is_numeric():
                raise CampaignError("y", y, f"a numeric column of runs: {', '.join(numeric)}")
            return self.ok_runs.select(keys + [pl.col(col).alias(y)])
        frame = self.table(table)
        own = [c for c in frame.columns if c not in keys]
        if col not in frame.columns:
            raise CampaignError("y", y, f"a column of {table}: {', '.join(own)}{suggest(col, own)}")
        for b in by:
            if b not in own:
                raise CampaignError("by", b, f"a column of {table} to group by: {', '.join(own)}{suggest(b, own)}")
        if not (frame.schema[col].is_numeric() or frame.schema[col] == pl.Boolean):
            nums = [c for c in own if frame.schema[c].is_numeric()]
            raise CampaignError("y", y, f"a numeric column of {table}: {', '.join(nums)}")
        v = pl.col(col).cast(pl.Float64)
        aggs = {
            "mean": v.mean(),
            "sum": v.sum(),
            "min": v.min(),
            "max": v.max(),
            "median": v.median(),
            "jain": (v.sum() ** 2) / (v.len() * (v**2).sum()),
        }
        if reduce not in aggs:
            raise CampaignError("reduce", reduce, f"one of {', '.join(aggs)}")
        per = frame.group_by(["run_id", *by], maintain_order=True).agg(aggs[reduce].alias(per_run_name(y, reduce)))
        return self.ok_runs.select(keys).join(per, on="run_id", how="inner", maintain_order="left")

    def axis_companion(self, axis: str) -> dict[str, Any]:
        """Numbers that go with a string axis' values, for tick labels: for a
        buffer axis ('0.25bdp', '1bdp', '500KB'), the bottleneck's (slowest
        link's) buffer in packets as the runs resolved it: {'1bdp': '333 pkt'}
        (a range when other axes change it). {} for other axes."""
        if axis not in self.axes or not axis.endswith("buffer") or "links" not in self.tables():
            return {}
        q = self.query(f'''
            WITH slow AS (SELECT run_id, min(rate_bps) AS r FROM links GROUP BY run_id)
            SELECT l."{axis}" AS v, min(l.limit_pkts) AS lo, max(l.limit_pkts) AS hi
            FROM links l JOIN slow ON l.run_id = slow.run_id AND l.rate_bps = slow.r
            GROUP BY 1''')
        return {
            r["v"]: (f"{r['lo']:,} pkt" if r["lo"] == r["hi"] else f"{r['lo']:,}–{r['hi']:,} pkt")
            for r in q.iter_rows(named=True)
            if r["lo"] is not None and r["lo"] > 0
        }


def per_run_name(y: str, reduce: str) -> str:
    """The column name of `y` reduced per run: `y` itself when the reduction
    keeps its unit (mean, sum, min, max, median), else 'reduce(y)'."""
    return y if reduce in ("mean", "sum", "min", "max", "median") else f"{reduce}({y})"


def open_campaign(path: str | Path, *, allow_stale: bool = False) -> Campaign:
    """Open a campaign folder written by ``ccsim sweep`` / ``ccsim.run_sweep``."""
    return Campaign(path, allow_stale=allow_stale)
