"""One point of P1, P2 or P3 of the pacing study at full duration (200 s,
seed 1, 2.5 Gb/s, HSTCP), with the web sessions' access links private
(0 RTT classes) or shared (16): the efficiency of r0->r1 over [100, 200] s,
the two high-speed flows' goodputs and each forward class's goodput, as
one JSON line (docs/studies.md, "Shared access links").

    .venv/bin/python tools/pacing_access_points.py p2 16 [200]
"""

import json
import sys
import time

import polars as pl
from ccsim.scenario import Scenario
from ccsim.studies.pacing import scenarios as S

point, n = sys.argv[1], int(sys.argv[2])
dur = float(sys.argv[3]) if len(sys.argv) > 3 else 200.0
S.WEB_RTT_CLASSES = n
v = "hstcp"
if point == "p1":
    raw = S.scenario(2.5e9, dur, variant=v)
elif point == "p2":
    raw = S.scenario(2.5e9, dur, variant=v, rtt2_ms=6 * S.HS_RTT_MS, buffer=1.0)
else:
    raw = S.scenario(2.5e9, dur, variant=v, long_lived=2, both_ways=False)
sc = Scenario(raw)
t = time.process_time()
r = sc.run()
cpu = time.process_time() - t
t0, t1 = dur / 2, dur
ls = r.link_series.join(r.links.select(pl.col("id").alias("link"), "name"), on="link").filter(pl.col("name") == S.FWD)
w = (
    ls.filter((pl.col("time_s") - t0).abs() < 1e-9).select(pl.col("bytes_tx") - pl.col("queue_bytes"))[0, 0],
    ls.filter((pl.col("time_s") - t1).abs() < 1e-9).select(pl.col("bytes_tx") - pl.col("queue_bytes"))[0, 0],
)
eff = (w[1] - w[0]) * 8 / (t1 - t0) / 2.5e9
fs = r.flow_series
d1 = fs.filter(pl.col("time_s") <= t1 + 1e-9).group_by("flow").agg(pl.col("delivered_bytes").max().alias("d1"))
d0 = fs.filter(pl.col("time_s") <= t0 + 1e-9).group_by("flow").agg(pl.col("delivered_bytes").max().alias("d0"))
gp = d1.join(d0, on="flow", how="left").with_columns(pl.col("d0").fill_null(0))
gp = gp.join(r.flows.select(pl.col("id").alias("flow"), "label"), on="flow")
gp = gp.with_columns(((pl.col("d1") - pl.col("d0")) * 8 / (t1 - t0)).alias("gp"))
out = {
    "point": point,
    "classes": n,
    "dur": dur,
    "cpu_s": round(cpu, 1),
    "eff": round(eff, 5),
    "links": len(sc.core["links"]),
}
for lab in ("web", "small", "long"):
    out[lab + "_Mbps"] = round(float(gp.filter(pl.col("label") == lab)["gp"].to_numpy().sum()) / 1e6, 2)
out["hs1_Mbps"] = round(float(gp.filter(pl.col("flow") == 0)["gp"].to_numpy().sum()) / 1e6, 2)
out["hs2_Mbps"] = round(float(gp.filter(pl.col("flow") == 1)["gp"].to_numpy().sum()) / 1e6, 2)
out["ratio"] = round(out["hs1_Mbps"] / out["hs2_Mbps"], 3) if out["hs2_Mbps"] else None
print(json.dumps(out), flush=True)
