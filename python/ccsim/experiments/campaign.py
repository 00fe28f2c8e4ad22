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
from pathlib import Path

import polars as pl

from ..results import TABLES
from .store import CampaignError, Store, model_tag, params_key

RUN_STAT_COLUMNS = ["wall_s", "cpu_s", "sim_time_s", "events"]


def _param_columns(rows: list[dict]) -> dict[str, list]:
    """Parameter dicts -> columns; a column whose values are not all of one
    scalar type is stored as canonical JSON text."""
    names: list[str] = []
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


class Campaign:
    """A campaign folder opened for reading (it is never modified)."""

    def __init__(self, path: str | Path, *, allow_stale: bool = False):
        self.path = Path(path)
        self.store = Store(self.path, readonly=True)
        stale = [] if allow_stale else self.store.stale_runs()
        if stale:
            raise CampaignError(str(self.path), message=(
                f"{self.path}: {len(stale)} runs were made by another model or ccsim version than this one "
                f"({model_tag()}); rerun the sweep with --rerun-stale, or open with allow_stale=True"))
        latest: dict = {}
        for e in self.store.entries():
            latest[(e.get("run_id"), params_key(e["params"]))] = e
        # a finished run folder is the truth: a failure line older than its success does not count
        rows = [e for e in latest.values()
                if not (e.get("status") == "ok" and not self.store.has_run(e["run_id"]))]
        params = _param_columns([e["params"] for e in rows])
        data = {"run_id": [e.get("run_id") for e in rows], "status": [e.get("status") for e in rows],
                **params,
                "kind": [e.get("kind") for e in rows], "error": [e.get("error") for e in rows]}
        for k in RUN_STAT_COLUMNS:
            data[k] = [e.get(k) for e in rows]
        schema = {"run_id": pl.String, "status": pl.String, "kind": pl.String, "error": pl.String,
                  "wall_s": pl.Float64, "cpu_s": pl.Float64, "sim_time_s": pl.Float64, "events": pl.Int64}
        self.axes = [k for k in params]
        self.runs = pl.DataFrame(data, schema_overrides=schema, strict=False)
        self._con = None

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

    def tables(self) -> list[str]:
        return [t for t in TABLES if self._files(t)]

    def connection(self):
        """A DuckDB connection with the views described in the module docstring."""
        if self._con is None:
            import duckdb

            con = duckdb.connect()
            con.register("_runs_frame", self.runs.to_arrow())
            con.execute("CREATE VIEW runs AS SELECT * FROM _runs_frame")
            keys = ", ".join(f'r."{c}"' for c in ["run_id"] + self.axes)
            for t in TABLES:
                files = self._files(t)
                if not files:
                    continue
                listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
                con.execute(
                    f"CREATE VIEW {t} AS SELECT {keys}, t.* EXCLUDE (filename) "
                    f"FROM read_parquet([{listed}], filename = true, union_by_name = true) t "
                    f"JOIN _runs_frame r ON r.run_id = regexp_extract(t.filename, '/runs/([0-9a-f]+)/[^/]+$', 1) "
                    f"WHERE r.status = 'ok'")
            self._con = con
        return self._con

    def query(self, sql: str) -> pl.DataFrame:
        """Run SQL over the campaign's views; the answer as a polars frame."""
        import duckdb

        try:
            return self.connection().sql(sql).pl()
        except duckdb.Error as e:
            raise CampaignError("SQL", message=f"query failed: {e}") from None

    def table(self, name: str) -> pl.DataFrame:
        """Rows of result table `name` from every finished run, with the run's parameters."""
        if name not in TABLES:
            raise CampaignError("table", name, f"one of {', '.join(TABLES)}")
        if name not in self.tables():
            raise CampaignError("table", name, f"a table this campaign's runs wrote ({', '.join(self.tables()) or 'none yet'})")
        return self.query(f"SELECT * FROM {name}")

    def per_run(self, y: str, reduce: str = "mean") -> pl.DataFrame:
        """One value per point: `y` is 'table.column' (reduced over the
        table's rows with `reduce`: mean, sum, min, max, median or jain)
        or 'runs.column'. Returns the runs' parameters plus one column named
        by :func:`per_run_name` (`y`, or e.g. 'jain(flows.goodput_bps)')."""
        table, _, col = y.partition(".")
        if not col:
            raise CampaignError("y", y, "'table.column', e.g. 'flows.goodput_bps' or 'runs.cpu_s'")
        keys = ["run_id"] + self.axes
        if table == "runs":
            if col not in self.runs.columns:
                raise CampaignError("y", y, f"a column of runs: {', '.join(self.runs.columns)}")
            return self.ok_runs.select(keys + [pl.col(col).alias(y)])
        frame = self.table(table)
        if col not in frame.columns:
            raise CampaignError("y", y, f"a column of {table}: {', '.join(c for c in frame.columns if c not in keys)}")
        v = pl.col(col).cast(pl.Float64)
        aggs = {"mean": v.mean(), "sum": v.sum(), "min": v.min(), "max": v.max(), "median": v.median(),
                "jain": (v.sum() ** 2) / (v.len() * (v ** 2).sum())}
        if reduce not in aggs:
            raise CampaignError("reduce", reduce, f"one of {', '.join(aggs)}")
        per = frame.group_by("run_id", maintain_order=True).agg(aggs[reduce].alias(per_run_name(y, reduce)))
        return self.ok_runs.select(keys).join(per, on="run_id", how="inner", maintain_order="left")


def per_run_name(y: str, reduce: str) -> str:
    """The column name of `y` reduced per run: `y` itself when the reduction
    keeps its unit (mean, sum, min, max, median), else 'reduce(y)'."""
    return y if reduce in ("mean", "sum", "min", "max", "median") else f"{reduce}({y})"


def open_campaign(path: str | Path, *, allow_stale: bool = False) -> Campaign:
    """Open a campaign folder written by ``ccsim sweep`` / ``ccsim.run_sweep``."""
    return Campaign(path, allow_stale=allow_stale)
