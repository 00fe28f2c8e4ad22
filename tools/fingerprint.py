"""Fingerprint of every result table for a fixed set of scenarios: run before
and after a refactoring that must not change what is simulated, and diff.

    .venv/bin/python tools/fingerprint.py > before.txt   # (on the old commit)
    .venv/bin/python tools/fingerprint.py | diff before.txt -

Scenarios: the four examples, a traced lossy run, and two bench cases with
100 ms sampling; each line is the event count and a hash of every column."""
import glob, hashlib, json
import ccsim
from ccsim import _core
from ccsim.bench import SCENARIOS
scs = {f: ccsim.load(f) for f in sorted(glob.glob("examples/*.toml")) if "sweep" not in f}
scs["traced"] = ccsim.load("examples/lossy_link.toml").with_overrides({"sim.trace": ["rtt", "seq"], "sim.duration": "5s"})
for n in ("a_dumbbell_100M_newreno_sack_ts", "a_dumbbell_100M_bbr_sack_ts"):
    scs[n] = SCENARIOS[n]().build().with_overrides({"sim.duration": "10s", "sim.sample_interval": "100ms"})
h_all = hashlib.sha256()
for name, sc in scs.items():
    raw = _core.run(sc.to_core_json())
    h = hashlib.sha256()
    for t in sorted(raw["tables"]):
        for col, dt, data in raw["tables"][t]:
            h.update(f"{t}.{col}:{dt}".encode()); h.update(json.dumps(data).encode() if isinstance(data, list) else bytes(data))
    h.update(str(raw["events"]).encode())
    print(name, raw["events"], h.hexdigest()[:16])
    h_all.update(h.digest())
print("ALL", h_all.hexdigest())
