"""The initial_window study's measurements: per-run flow completion times,
goodput series and convergence times, for the simulated and the kernel's
runs. `Checks` and `Figures` build on it, so each sees the measures it
uses."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl

from ..base import Study, StudyData
from .scenarios import (
    _settle,
    _settle_robust,
)

if TYPE_CHECKING:
    from ...experiments.campaign import Campaign


class Measures(Study):
    # ---- measurements
    @staticmethod
    def _params(c: Campaign) -> pl.DataFrame:
        r = c.ok_runs.unique("run_id", maintain_order=True)
        return r.select(
            "run_id",
            "seed",
            pl.col("flows[0].label").alias("cc"),
            pl.col("tcp.initial_window").cast(pl.Int64).alias("iw"),
            (pl.col("topology.delay").str.strip_suffix("ms").cast(pl.Float64) * 2).alias("rtt_ms"),
            pl.col("topology.rate").str.strip_suffix("Mbps").cast(pl.Int64).alias("rate"),
        )

    def fct(self, data: StudyData, exp: str) -> pl.DataFrame | None:
        """Per (cc, iw, rtt_ms, rate): mean FCT (s) from the first data byte
        and from the SYN, mean retransmissions, runs, and (kernel) runs within
        the emulation envelope."""
        if exp not in data.campaigns:
            return None

        def build() -> pl.DataFrame:
            c = data.campaign(exp)
            f = c.query("SELECT run_id, fct_s, fct_data_s, retransmits FROM flows").join(self._params(c), on="run_id")
            if "emulation" in c.tables():
                ok = c.query("SELECT run_id, within_envelope FROM emulation")
                f = f.join(ok, on="run_id", how="left")
            else:
                f = f.with_columns(pl.lit(1).alias("within_envelope"))
            return (
                f.group_by(["cc", "iw", "rtt_ms", "rate"])
                .agg(
                    pl.col("fct_data_s").mean(),
                    pl.col("fct_s").mean(),
                    pl.col("retransmits").cast(pl.Float64).mean(),
                    pl.len().alias("runs"),
                    pl.col("within_envelope").sum().alias("in_envelope"),
                )
                .sort(["cc", "iw", "rtt_ms", "rate"])
            )

        return data.memo(f"fct:{exp}", build)

    def goodput_series(self, data: StudyData, exp: str) -> pl.DataFrame | None:
        """Per run: 1-s bins of goodput (bit/s) from the delivered bytes."""
        if exp not in data.campaigns:
            return None

        def build() -> pl.DataFrame:
            c = data.campaign(exp)
            s = c.query("SELECT run_id, time_s, delivered_bytes FROM flow_series ORDER BY run_id, time_s")
            s = s.with_columns(pl.col("time_s").ceil().cast(pl.Int64).alias("bin"))
            last = s.group_by(["run_id", "bin"]).agg(pl.col("delivered_bytes").max()).sort(["run_id", "bin"])
            last = last.with_columns(
                (pl.col("delivered_bytes") - pl.col("delivered_bytes").shift(1).over("run_id").fill_null(0)).alias(
                    "bytes"
                )
            )
            return last.with_columns((pl.col("bytes") * 8.0).alias("bps")).join(self._params(c), on="run_id")

        return data.memo(f"series:{exp}", build)

    def convergence(self, data: StudyData, exp: str) -> pl.DataFrame | None:
        """Per (cc, iw, rtt_ms, rate): T_conv (in the band but for excursions
        of ≤ DIP_S s), T_1s (every later 1-s bin in it), steady goodput
        (second half)."""
        s = self.goodput_series(data, exp)
        if s is None:
            return None

        def build() -> pl.DataFrame:
            rows = []
            for (rid,), g in s.group_by(["run_id"]):
                g = g.sort("bin")
                t = g["bin"].to_numpy().astype(float)
                r = g["bps"].to_numpy().astype(float)
                dur = t.max() if len(t) else 0.0
                steady = r[t > dur / 2].mean() if (t > dur / 2).any() else math.nan
                rows.append(
                    {
                        "run_id": rid,
                        **{k: g[k][0] for k in ("cc", "iw", "rtt_ms", "rate")},
                        "steady_bps": steady,
                        "t_conv": _settle_robust(t, r, steady),
                        "t_1s": _settle(t, r, steady),
                    }
                )
            d = pl.DataFrame(rows).sort("run_id")  # a fixed order for the means over seeds
            return (
                d.group_by(["cc", "iw", "rtt_ms", "rate"], maintain_order=True)
                .agg(pl.col("t_conv").mean(), pl.col("t_1s").mean(), pl.col("steady_bps").mean())
                .sort(["cc", "iw", "rtt_ms", "rate"])
            )

        return data.memo(f"conv:{exp}", build)

    # evaluation on one backend: (checks, measured) from a table
