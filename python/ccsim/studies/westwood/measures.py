"""The measurements every section of the Westwood study uses: the runs of an
experiment, window goodputs, the ON/OFF quarters and the lossy-link
goodputs. Each section (W1 … W7) builds on it, so each sees the measures it
uses."""

from __future__ import annotations

import math

import polars as pl

from ..base import Study, StudyData
from ..kit import window_goodput
from .scenarios import _bad_ms


class Measures(Study):
    # ------------------------------------------------------------ measurements
    @staticmethod
    def runs(data: StudyData, exp: str) -> pl.DataFrame:
        """One row per finished run: run_id, seed and the sweep's values."""
        r = data.campaign(exp).ok_runs.unique("run_id", maintain_order=True)
        cols = [k for k in r.columns if k.startswith(("topology.", "flows[", "tcp.")) or k == "seed"]
        return r.select(["run_id"] + cols)

    @staticmethod
    def window_gp(data: StudyData, exp: str, t0: float, t1: float, where: str = "TRUE") -> pl.DataFrame:
        """Per run and flow: goodput (bit/s) over [t0, t1] (`kit.window_goodput`)."""
        return data.memo(f"gp:{exp}:{t0}:{t1}:{where}", lambda: window_goodput(data.campaign(exp), t0, t1, where=where))

    @staticmethod
    def _half_quarters(s: pl.DataFrame, dur: float, on: bool) -> pl.DataFrame:
        """Samples in the second half of the OFF (on=False) or ON quarters."""
        q = dur / 4
        qs = (1, 3) if on else (0, 2)
        t = pl.col("time_s")
        return s.filter(pl.any_horizontal([(t > k * q + q / 2) & (t <= (k + 1) * q) for k in qs]))

    def lossy_gp(self, data: StudyData, exp: str, axis: str) -> pl.DataFrame:
        """W4/W5: per variant and BAD duration, mean/min/max over seeds of the goodput of the flows under study."""

        def build() -> pl.DataFrame:
            f = data.campaign(exp).query(
                "SELECT run_id, avg(goodput_bps)::DOUBLE AS gp FROM flows "
                "WHERE label NOT IN ('reverse', 'cross') GROUP BY run_id"
            )
            f = f.join(self.runs(data, exp), on="run_id").rename({"flows[0].label": "variant"})
            f = f.with_columns(
                pl.col(axis).map_elements(_bad_ms, return_dtype=pl.Float64).alias("bad_ms")
                if axis in f.columns
                else pl.lit(math.nan).alias("bad_ms")
            )  # one fixed d
            keys = ["variant", "bad_ms"] + (["tcp.growth_per"] if "tcp.growth_per" in f.columns else [])
            return (
                f.group_by(keys)
                .agg(
                    pl.col("gp").mean().alias("mean"),
                    pl.col("gp").min().alias("min"),
                    pl.col("gp").max().alias("max"),
                    pl.len().alias("n"),
                )
                .sort(keys)
            )

        return data.memo(f"lossy:{exp}", build)
