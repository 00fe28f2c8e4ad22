"""The pacing study's measurements: per-run efficiency, goodputs and class
shares, the high-speed flows' state, and the means the claims and figures
read. `Checks` and `Figures` build on it, so each sees the measures it uses."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ..base import Study, StudyData
from ..kit import window_goodput
from .scenarios import CLASS_ORDER, CLASSES, FWD, HS_RTT_MS


class Measures(Study):
    # ---- measurements
    @staticmethod
    def window(data: StudyData, exp: str) -> tuple[float, float]:
        dur = {
            "calib": "calib_dur",
            "p1": "p1_dur",
            "p2": "p2_dur",
            "p2_extra": "p2_dur",
            "p3": "p3_dur",
            "conv": "conv_dur",
        }[exp]
        d = float(getattr(data.plan, dur))
        return d / 2, d

    def per_run(self, data: StudyData, exp: str) -> pl.DataFrame:
        """One row per run: its axes, the efficiency of r0 → r1 over the
        window, the goodput of each high-speed flow and of each forward class."""

        def build() -> pl.DataFrame:
            c = data.campaign(exp)
            t0, t1 = self.window(data, exp)
            cap = c.query(f"SELECT run_id, id AS link, rate_bps FROM links WHERE name = '{FWD}'")
            ls = c.query(
                "SELECT s.run_id, s.time_s, (s.bytes_tx - s.queue_bytes)::DOUBLE AS wire FROM link_series s "
                f"JOIN links l ON l.run_id = s.run_id AND l.id = s.link WHERE l.name = '{FWD}' "
                f"AND (abs(s.time_s - {t0}) < 1e-9 OR abs(s.time_s - {t1}) < 1e-9)"
            )
            hs = "('web','small','long','web_rev','small_rev','long_rev')"
            cls = f"CASE WHEN f.id < 2 AND f.label NOT IN {hs} THEN 'hs' || f.id::VARCHAR ELSE f.label END"
            gp = window_goodput(c, t0, t1, by=cls)
            span = t1 - t0
            rows = []
            for rid in c.ok_runs["run_id"].unique(maintain_order=True).to_list():
                rate = float(cap.filter(pl.col("run_id") == rid)["rate_bps"][0])
                w = ls.filter(pl.col("run_id") == rid).sort("time_s")["wire"].to_list()
                by_cls = dict(gp.filter(pl.col("run_id") == rid).select("cls", "gp").iter_rows())
                r = {
                    "run_id": rid,
                    "rate": rate,
                    "eff": (w[-1] - w[0]) * 8 / span / rate if len(w) == 2 else math.nan,
                    "hs1_bps": by_cls.get("hs0", 0.0),
                    "hs2_bps": by_cls.get("hs1", 0.0),
                }
                for lab, name in CLASSES.items():
                    r[name] = by_cls.get(lab, 0.0)
                rows.append(r)
            per = pl.DataFrame(rows)
            runs = c.ok_runs.unique("run_id", maintain_order=True)
            keep = [k for k in runs.columns if k in ("seed", "flows[0].label", "flows[1].rtt", "topology.buffer")]
            out = runs.select(["run_id"] + keep).join(per, on="run_id")
            if "flows[0].label" in out.columns:
                out = out.rename({"flows[0].label": "variant"})
            if "flows[1].rtt" in out.columns:
                out = out.with_columns(
                    (pl.col("flows[1].rtt").str.strip_suffix("ms").cast(pl.Float64) / HS_RTT_MS)
                    .round(3)
                    .alias("rtt_ratio")
                )
            if "topology.buffer" in out.columns:
                out = out.with_columns(
                    pl.col("topology.buffer").str.strip_suffix("bdp").cast(pl.Float64).alias("buffer")
                )
            return out.with_columns((pl.col("hs1_bps") + pl.col("hs2_bps")).alias("high-speed"))

        return data.memo(f"per_run:{exp}", build)

    def hs_state(self, data: StudyData, exp: str) -> pl.DataFrame:
        """Per run and high-speed flow (0, 1), from its 1-s samples: the
        ssthresh its first reduction set (the window its first loss came
        at), and over the measurement window its largest cwnd, the share of
        samples in loss recovery after a timeout (ca_state 3), its largest
        RTO and its reductions (samples whose ssthresh differs from the
        previous sample's: two within one second count once); with the
        run's axes as `per_run` names them."""

        def build() -> pl.DataFrame:
            c = data.campaign(exp)
            t0, t1 = self.window(data, exp)
            s = c.query(
                "SELECT run_id, flow, time_s, cwnd, ssthresh, ca_state, rto_s FROM flow_series "
                "WHERE flow < 2 ORDER BY run_id, flow, time_s"
            )
            first = (
                s.filter(pl.col("ssthresh").is_finite())
                .group_by("run_id", "flow")
                .agg(pl.col("ssthresh").first().alias("first_ssthresh"))
            )
            s = s.with_columns(
                (pl.col("ssthresh") != pl.col("ssthresh").shift(1).over("run_id", "flow")).fill_null(False).alias("cut")
            )
            w = s.filter((pl.col("time_s") > t0 + 1e-9) & (pl.col("time_s") <= t1 + 1e-9))
            inw = w.group_by("run_id", "flow").agg(
                pl.col("cwnd").max().alias("cwnd_max"),
                (pl.col("ca_state") == 3).mean().alias("loss_share"),
                pl.col("rto_s").max().alias("rto_max"),
                pl.col("cut").sum().alias("cuts"),
            )
            per = self.per_run(data, exp)
            axes = per.select(
                [k for k in ("run_id", "variant", "rate", "rtt_ratio", "buffer", "seed") if k in per.columns]
            )
            return inw.join(first, on=["run_id", "flow"], how="left").join(axes, on="run_id")

        return data.memo(f"hs_state:{exp}", build)

    def means(self, data: StudyData, exp: str, by: list[str]) -> pl.DataFrame:
        """Seed means per `by`; the ratio is the ratio of the mean goodputs."""

        def build() -> pl.DataFrame:
            per = self.per_run(data, exp)
            cols = ["eff", "hs1_bps", "hs2_bps", "high-speed", *CLASSES.values()]
            m = per.group_by(by).agg([pl.col(c).mean() for c in cols] + [pl.len().alias("seeds")])
            m = m.with_columns(
                pl.when(pl.col("hs2_bps") > 0)
                .then(pl.col("hs1_bps") / pl.col("hs2_bps"))
                .otherwise(float("inf"))
                .alias("ratio"),
                (pl.col("web") + pl.col("small TCP") + pl.col("long-lived TCP")).alias("regular"),
            )
            return m.sort(by)

        return data.memo(f"means:{exp}:{','.join(by)}", build)

    def eff(self, data: StudyData, rate: float, variant: str) -> float:
        m = self.means(data, "p1", ["rate", "variant"])
        r = m.filter((pl.col("rate") == rate) & (pl.col("variant") == variant))
        return float(r["eff"][0]) * 100 if r.height else math.nan

    def ratio(self, data: StudyData, variant: str, rr: float, buf: float) -> float:
        for exp in ("p2", "p2_extra"):
            if exp not in data.campaigns:
                continue
            m = self.means(data, exp, ["variant", "rtt_ratio", "buffer"])
            r = m.filter((pl.col("variant") == variant) & (pl.col("rtt_ratio") == rr) & (pl.col("buffer") == buf))
            if r.height:
                return float(r["ratio"][0])
        return math.nan

    def shares(self, data: StudyData, rate: float, variant: str) -> dict[str, float]:
        """P3 class shares (fractions of capacity) of a variant at a rate."""
        m = self.means(data, "p3", ["rate", "variant"])
        r = m.filter((pl.col("rate") == rate) & (pl.col("variant") == variant))
        if not r.height:
            return dict.fromkeys(CLASS_ORDER + ["regular"], math.nan)
        row = r.row(0, named=True)
        out = {cls: row[cls] / rate for cls in CLASSES.values()}
        out["high-speed"] = row["high-speed"] / rate
        good = sum(out.values())
        out["overhead"] = row["eff"] - good
        out["unused"] = 1 - row["eff"]
        out["regular"] = (row["web"] + row["small TCP"] + row["long-lived TCP"]) / rate
        return out

    def web_only(self, data: StudyData) -> dict[float, float]:
        m = self.per_run(data, "calib")
        return {float(r["rate"]): float(r["web"]) / float(r["rate"]) for r in m.iter_rows(named=True)}

    def conv_series(self, data: StudyData) -> pl.DataFrame:
        """Per convergence run: R(T) = goodput ratio of the two high-speed
        flows over [T/2, T], for T on every sample."""

        def build() -> pl.DataFrame:
            c = data.campaign("conv")
            s = c.query(
                "SELECT s.run_id, s.flow, s.time_s, s.delivered_bytes::DOUBLE AS b FROM flow_series s "
                "WHERE s.flow < 2 ORDER BY s.run_id, s.flow, s.time_s"
            )
            runs = c.ok_runs.unique("run_id", maintain_order=True)
            rows = []
            for r in runs.iter_rows(named=True):
                x = s.filter(pl.col("run_id") == r["run_id"])
                t = x.filter(pl.col("flow") == 0)["time_s"].to_numpy()
                b0 = x.filter(pl.col("flow") == 0)["b"].to_numpy()
                b1 = x.filter(pl.col("flow") == 1)["b"].to_numpy()
                for i in range(len(t)):
                    T = t[i]
                    if T < 10:
                        continue
                    j = int(np.searchsorted(t, T / 2 - 1e-9))
                    d0, d1 = b0[i] - b0[j], b1[i] - b1[j]
                    rows.append(
                        {
                            "variant": r["flows[0].label"],
                            "rtt2": r["flows[1].rtt"],
                            "T": float(T),
                            "ratio": d0 / d1 if d1 > 0 else math.inf,
                        }
                    )
            return pl.DataFrame(rows)

        return data.memo("conv", build)

    def conv_time(self, data: StudyData, variant: str, rtt2: str = f"{HS_RTT_MS}ms", band: float = 2.0) -> float:
        """Equal RTTs: the first T after which R(T) stays within a factor
        `band` of 1 to the end of the run (inf if it never settles)."""
        if "conv" not in data.campaigns:
            return math.nan
        cs = self.conv_series(data).filter((pl.col("variant") == variant) & (pl.col("rtt2") == rtt2)).sort("T")
        if not cs.height:
            return math.nan
        ok = ((cs["ratio"] <= band) & (cs["ratio"] >= 1 / band)).to_list()
        T = cs["T"].to_list()
        last_bad = max((i for i, v in enumerate(ok) if not v), default=-1)
        return T[last_bad + 1] if last_bad + 1 < len(T) else math.inf
