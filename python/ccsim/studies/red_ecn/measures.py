"""The red_ecn study's measurements: per-run GEff, Drop % and class goodputs,
their sweep means, the queue and flow traces and the class goodput
difference. `Checks` and `Figures` build on it, so each sees the measures it
uses."""

from __future__ import annotations

import math
from collections.abc import Callable

import polars as pl

from ...analysis.metrics import binned_rate, jain
from ..base import Study, StudyData
from .scenarios import (
    LINK,
    RATE,
)


class Measures(Study):
    # ---- measurements
    @staticmethod
    def per_run(data: StudyData, exp: str) -> pl.DataFrame:
        """One row per run: its axes, GEff, Drop %, class goodputs and Jain indices."""

        def build() -> pl.DataFrame:
            c = data.campaign(exp)
            dur = float(c.query("SELECT max(sim_time_s) AS d FROM runs")["d"][0])
            g = c.query(
                "SELECT run_id, label, sum(delivered_bytes)::DOUBLE * 8 AS bits, "
                "list(delivered_bytes::DOUBLE * 8) AS each "
                "FROM flows GROUP BY run_id, label"
            )
            lk = c.query(f"SELECT run_id, drops, pkts_tx, losses FROM links WHERE name = '{LINK}'")
            rows = []
            for rid in c.ok_runs["run_id"].unique(maintain_order=True).to_list():
                gr = g.filter(pl.col("run_id") == rid)
                cls = {r["label"]: r for r in gr.iter_rows(named=True)}
                l = lk.filter(pl.col("run_id") == rid).row(0, named=True)
                ecn = cls.get("newreno_ecn", {"bits": 0.0, "each": []})
                sack = cls.get("sack", {"bits": 0.0, "each": []})
                rows.append(
                    {
                        "run_id": rid,
                        "geff": (ecn["bits"] + sack["bits"]) / dur / RATE,
                        "drop_pct": 100.0 * l["drops"] / (l["pkts_tx"] + l["drops"])
                        if l["pkts_tx"] + l["drops"]
                        else math.nan,
                        "loss_pct": 100.0 * l["losses"] / l["pkts_tx"] if l["pkts_tx"] else math.nan,
                        "ecn_bps": ecn["bits"] / dur,
                        "sack_bps": sack["bits"] / dur,
                        "jain_all": jain(list(ecn["each"]) + list(sack["each"])),
                        "jain_ecn": jain(ecn["each"]),
                        "jain_sack": jain(sack["each"]),
                    }
                )
            per = pl.DataFrame(rows)
            runs = c.ok_runs.unique("run_id", maintain_order=True)
            keep = [k for k in runs.columns if k.startswith(("topology.", "flows[")) or k == "seed"]
            out = runs.select(["run_id"] + keep).join(per, on="run_id")
            return out.with_columns(
                pl.col("topology.buffer").str.strip_suffix("pkt").cast(pl.Int64).alias("ql"),
                (pl.col("flows[0].count") * 2).alias("n"),
                pl.col("topology.queue.kind").alias("queue"),
            )

        return data.memo(f"per_run:{exp}", build)

    def sweep_means(self, data: StudyData) -> pl.DataFrame:
        """GEff and Drop % averaged over seeds per (queue, ql, n)."""
        return data.memo(
            "sweep_means",
            lambda: (
                self.per_run(data, "ql")
                .group_by(["queue", "ql", "n"])
                .agg(pl.col("geff").mean(), pl.col("drop_pct").mean(), pl.len().alias("seeds"))
                .sort(["queue", "n", "ql"])
            ),
        )

    @staticmethod
    def _val(m: pl.DataFrame, queue: str, ql: int, n: int, col: str = "geff") -> float:
        r = m.filter((pl.col("queue") == queue) & (pl.col("ql") == ql) & (pl.col("n") == n))
        return float(r[col][0]) if r.height else math.nan

    @staticmethod
    def series_run(data: StudyData, queue: str, ql: int, n: int) -> str:
        c = data.campaign("series")
        r = c.ok_runs.filter(
            (pl.col("topology.queue.kind") == queue)
            & (pl.col("topology.buffer") == f"{ql}pkt")
            & (pl.col("flows[0].count") == n // 2)
        )
        if r.height == 0:
            raise KeyError(f"no trace run for {queue}, QL {ql}, {n} flows")
        return str(r["run_id"][0])

    def _series_table(
        self, data: StudyData, queue: str, ql: int, n: int, key: str, sql: Callable[[str], str]
    ) -> pl.DataFrame:
        """A memoised query of the series run of (queue, ql, n); `sql` makes
        the query from that run's id."""
        return data.memo(
            f"{key}:{queue}:{ql}:{n}",
            lambda: data.campaign("series").query(sql(self.series_run(data, queue, ql, n))),
        )

    def queue_trace(self, data: StudyData, queue: str, ql: int, n: int) -> pl.DataFrame:
        return self._series_table(
            data,
            queue,
            ql,
            n,
            "queue",
            lambda rid: (
                "SELECT s.time_s, s.queue_pkts, s.avg_queue FROM link_series s JOIN links l "
                f"ON l.run_id = s.run_id AND l.id = s.link WHERE s.run_id = '{rid}' AND l.name = '{LINK}' "
                "ORDER BY s.time_s"
            ),
        )

    def flow_trace(self, data: StudyData, queue: str, ql: int, n: int) -> pl.DataFrame:
        return self._series_table(
            data,
            queue,
            ql,
            n,
            "flows",
            lambda rid: (
                "SELECT s.time_s, s.flow, f.label, s.cwnd, s.delivered_bytes FROM flow_series s JOIN flows f "
                f"ON f.run_id = s.run_id AND f.id = s.flow WHERE s.run_id = '{rid}' ORDER BY s.flow, s.time_s"
            ),
        )

    def class_diff(self, data: StudyData, queue: str) -> pl.DataFrame:
        """NewReno+ECN − SACK aggregate goodput per bin (18 flows, QL 36)."""
        ft = self.flow_trace(data, queue, 36, 18)
        b = binned_rate(ft, "flow", "delivered_bytes", data.plan.bin_s)
        lab = ft.select("flow", "label").unique()
        b = b.join(lab, on="flow").group_by(["t_s", "label"]).agg(pl.col("rate").sum())
        w = b.pivot(on="label", index="t_s", values="rate").sort("t_s")
        return w.with_columns((pl.col("newreno_ecn") - pl.col("sack")).alias("diff_bps"))
