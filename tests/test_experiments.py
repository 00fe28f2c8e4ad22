"""Sweeps, the campaign store, executors, resume after SIGKILL, aggregation.

Expected values come from the definitions in docs/experiments.md (run ids,
expansion order) and from statistics tables (Student-t quantiles), never
from ccsim's own output; the executor and resume tests compare ccsim with
itself run another way, which is the property under test."""

from __future__ import annotations

import hashlib
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, cast

import ccsim
import polars as pl
import pytest
from ccsim import _core
from ccsim.experiments import executors, store
from ccsim.experiments.aggregate import aggregate
from ccsim.experiments.campaign import open_campaign
from ccsim.experiments.runner import SweepFailed, dry_run, run_sweep
from ccsim.experiments.sweep import Sweep, SweepError
from ccsim.scenario.overrides import parse_assignment, set_path
from helpers import TINY, flock_held
from pytest import MonkeyPatch

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def tiny_sweep(seeds: int | list[int] = 2, **kw: Any) -> Sweep:
    grid = kw.pop("grid", {"tcp.cc": ["newreno", "cubic"], "topology.buffer": ["0.5bdp", "2bdp"]})
    return Sweep(TINY, grid=grid, seeds=seeds, **kw)


def run_files(out: Path) -> dict[str, bytes]:
    """{run_id/table.parquet: bytes} of a campaign folder."""
    return {f"{p.parent.name}/{p.name}": p.read_bytes() for p in sorted((out / "runs").glob("*/*.parquet"))}


# ---------------------------------------------------------------- expansion


def test_grid_zip_and_seed_order() -> None:
    sw = Sweep(
        TINY,
        grid={"tcp.cc": ["a", "b"], "topology.buffer": ["1bdp", "2bdp", "3bdp"]},
        zip={"topology.rate": ["1Mbps", "2Mbps"], "sim.duration": ["2s", "1s"]},
        seeds=[5, 9],
    )
    pts = list(sw.points())
    assert len(sw) == len(pts) == 2 * 3 * 2 * 2
    # first grid axis slowest, then the zip group, then the seed
    assert [p.params["seed"] for p in pts[:4]] == [5, 9, 5, 9]
    assert [(p.params["topology.rate"], p.params["sim.duration"]) for p in pts[:4]] == [
        ("1Mbps", "2s"),
        ("1Mbps", "2s"),
        ("2Mbps", "1s"),
        ("2Mbps", "1s"),
    ]
    assert pts[0].params["tcp.cc"] == "a" and pts[12].params["tcp.cc"] == "b"
    assert [p.params["topology.buffer"] for p in pts[:12:4]] == ["1bdp", "2bdp", "3bdp"]
    # the point's scenario mapping carries every value and the seed
    p = pts[7]
    assert p.raw["tcp"]["cc"] == p.params["tcp.cc"] and p.raw["sim"]["seed"] == p.params["seed"]
    assert p.raw["topology"]["rate"] == p.params["topology.rate"]
    assert TINY["tcp"]["cc"] == "newreno"  # the base is not modified


def test_seeds_forms_and_derived_values() -> None:
    assert Sweep(TINY, seeds=3).seeds == [1, 2, 3]
    assert Sweep(TINY).seeds == [1]  # the base's sim.seed
    sw = Sweep(
        TINY,
        grid={
            "topology.rate": ["10Mbps", "40Mbps"],
            "topology.buffer": lambda p: "100pkt" if p["topology.rate"] == "40Mbps" else "25pkt",
        },
    )
    got = [(p.params["topology.rate"], p.raw["topology"]["buffer"]) for p in sw.points()]
    assert got == [("10Mbps", "25pkt"), ("40Mbps", "100pkt")]
    assert sw.axis_names() == ["topology.rate", "topology.buffer", "seed"]
    for bad in (0, -1, True, [], [1, 1], [1.5], "3"):
        with pytest.raises(SweepError, match="seeds"):
            Sweep(TINY, seeds=cast(Any, bad))


def test_bad_axes_are_named() -> None:
    with pytest.raises(SweepError, match=r"grid: axis 'tcpcc'"):
        Sweep(TINY, grid={"tcpcc": ["x"]})
    with pytest.raises(SweepError, match=r"grid.tcp.cc: got 'cubic'; expected a non-empty list"):
        Sweep(TINY, grid={"tcp.cc": "cubic"})
    with pytest.raises(SweepError, match="same number of values"):
        Sweep(TINY, zip={"tcp.cc": ["a", "b"], "topology.rate": ["1Mbps"]})
    with pytest.raises(SweepError, match="use seeds"):
        Sweep(TINY, grid={"sim.seed": [1, 2]})
    with pytest.raises(SweepError, match="appears twice"):
        Sweep(TINY, grid={"tcp.cc": ["a"]}, zip={"tcp.cc": ["b"]})
    # a bad value names the point, the axis and the field
    sw = Sweep(TINY, grid={"topology.buffer": ["1bdp", "0bdp"]})
    with pytest.raises(SweepError) as e:
        run_sweep(sw, "/nonexistent/never-created")
    msg = str(e.value)
    assert (
        "sweep point 2 of 2" in msg and "axis topology.buffer = '0bdp'" in msg and "topology.buffer: got '0bdp'" in msg
    )
    assert not Path("/nonexistent/never-created").exists()
    # an error in a derived value's function is this point's error too
    sw = Sweep(TINY, grid={"topology.rate": ["1Mbps"], "tcp.mss": lambda p: 1 // 0})
    with pytest.raises(SweepError, match=r"derived axis 'tcp.mss' raised ZeroDivisionError"):
        list(sw.points())
    # the base's own error is not blamed on an axis
    bad = dict(TINY, tcp={"cc": "nope"})
    with pytest.raises(SweepError, match="the base scenario: tcp.cc: got 'nope'"):
        run_sweep(Sweep(bad, grid={"topology.rate": ["1Mbps"]}), "/nonexistent/x")


def test_sweep_file_format(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(ccsim.Scenario(TINY).to_toml())
    f = tmp_path / "s.toml"
    f.write_text(
        'base = "base.toml"\nseeds = [3, 4]\n[set]\n"sim.duration" = "500ms"\n'
        '[grid]\n"tcp.cc" = ["reno", "cubic"]\n[zip]\n"topology.rate" = ["1Mbps", "2Mbps"]\n'
        '"topology.delay" = ["5ms", "6ms"]\n'
    )
    sw = Sweep.from_file(f)
    assert len(sw) == 8 and sw.set == {"sim.duration": "500ms"}
    assert all(p.raw["sim"]["duration"] == "500ms" for p in sw.points())
    assert "sim.duration" not in next(iter(sw.points())).params  # [set] is not an axis
    f.write_text('base = "base.toml"\n[grid]\n"tcp.cc" = ["reno"]\n[flows]\ncount = 1\n')
    with pytest.raises(SweepError, match="flows: unknown key"):
        Sweep.from_file(f)
    f.write_text("seeds = 2\n")
    with pytest.raises(SweepError, match="base: missing"):
        Sweep.from_file(f)


# ---------------------------------------------------------------- overrides and TOML


def test_overrides() -> None:
    raw = {"tcp": {"cc": "reno"}, "flows": [{"count": 1}, {"count": 2}]}
    set_path(raw, "tcp.cc", "cubic")
    set_path(raw, "flows[*].app", "bulk")
    set_path(raw, "flows[1].count", 5)
    set_path(raw, "topology.queue.kind", "red")
    assert raw == {
        "tcp": {"cc": "cubic"},
        "flows": [{"count": 1, "app": "bulk"}, {"count": 5, "app": "bulk"}],
        "topology": {"queue": {"kind": "red"}},
    }
    with pytest.raises(ccsim.ScenarioError, match="flows is a list; index it"):
        set_path(raw, "flows.count", 3)
    with pytest.raises(ccsim.ScenarioError, match="index 7 does not exist"):
        set_path(raw, "flows[7].count", 3)
    with pytest.raises(ccsim.ScenarioError, match="not a table"):
        set_path(raw, "tcp.cc.x", 1)
    assert parse_assignment("tcp.cc=cubic") == ("tcp.cc", "cubic")
    assert parse_assignment("flows[0].count = 4") == ("flows[0].count", 4)
    assert parse_assignment("tcp.sack=true") == ("tcp.sack", True)
    assert parse_assignment("topology.buffer=2bdp") == ("topology.buffer", "2bdp")
    assert parse_assignment('topology.loss={kind = "bernoulli", p = 0.01}') == (
        "topology.loss",
        {"kind": "bernoulli", "p": 0.01},
    )


def test_run_set_flag_matches_editing_the_file(tmp_path: Path) -> None:
    base = ccsim.load(ROOT / "examples" / "dumbbell.toml")
    r = subprocess.run(
        [
            PY,
            "-m",
            "ccsim",
            "run",
            str(ROOT / "examples" / "dumbbell.toml"),
            "--set",
            "tcp.cc=cubic",
            "--set",
            "sim.duration=2s",
            "--set",
            "flows[0].count=3",
            "--json",
            "--no-plots",
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    m = json.loads((tmp_path / "o" / "manifest.json").read_text())
    edited = base.with_overrides({"tcp.cc": "cubic", "sim.duration": "2s", "flows[0].count": 3})
    assert m["resolved"] == edited.core
    assert [f["cc"] for f in json.loads(r.stdout)["flows"]] == ["cubic"] * 3
    r = subprocess.run(
        [
            PY,
            "-m",
            "ccsim",
            "run",
            str(ROOT / "examples" / "dumbbell.toml"),
            "--set",
            "tcp.cc=cubik",
            "--out",
            str(tmp_path / "p"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "tcp.cc: got 'cubik'" in r.stderr and not (tmp_path / "p").exists()


@pytest.mark.parametrize("name", ["dumbbell", "lossy_link", "reverse_onoff", "web_mix"])
def test_examples_round_trip_through_toml(name: str, tmp_path: Path) -> None:
    sc = ccsim.load(ROOT / "examples" / f"{name}.toml")
    path = tmp_path / "back.toml"
    ccsim.dump(sc, path)
    back = ccsim.load(path)
    assert back.core == sc.core and back.to_toml() == sc.to_toml()


def test_builder_round_trip_runs_identically(tmp_path: Path) -> None:
    b = (
        ccsim.Builder(duration="2s", seed=4).dumbbell(
            bottleneck_rate="20Mbps", bottleneck_delay="10ms", access_rate="1Gbps", access_delay=("1ms")
        ),
    )[0]
    b = b.tcp(cc="bic", max_cwnd=None, rwnd=None, sack="rfc6675", pacing_ss_ratio=2.5, cc_params={"beta": 0.75})
    b = b.flows(
        count=3,
        app="file",
        size="300KB",
        start={"dist": "exponential", "mean": "100ms"},
        rtt={"spread": ["30ms", "90ms"]},
    )
    sc = b.build()
    text = ccsim.dump(b)
    assert "max_cwnd" not in text  # None = not given
    back = ccsim.Scenario.from_toml(text)
    assert back.core == sc.core
    a, c = sc.run(), back.run()
    assert a.flows.equals(c.flows) and a.flow_series.equals(c.flow_series)


# ---------------------------------------------------------------- run identity


def test_run_id_definition_and_sensitivity() -> None:
    sc = ccsim.Scenario(TINY)
    text = json.dumps(
        {"scenario": sc.core, "model_version": _core.MODEL_VERSION, "ccsim_version": ccsim.__version__},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    )
    assert store.run_id(sc.core) == hashlib.sha256(text.encode()).hexdigest()[:20]
    # the same in another process (another hash seed, fresh interpreter)
    code = (
        "import ccsim, json, sys; from ccsim.experiments.store import run_id; "
        "print(run_id(ccsim.Scenario(json.loads(sys.argv[1])).core))"
    )
    other = subprocess.run(
        [PY, "-c", code, json.dumps(TINY)], capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "123"}
    ).stdout.strip()
    assert other == store.run_id(sc.core)
    ids = {
        store.run_id(sc.core),
        store.run_id(sc.with_seed(2).core),
        store.run_id(sc.with_overrides({"tcp.cc": "cubic"}).core),
        store.run_id(sc.with_overrides({"topology.buffer": "2bdp"}).core),
    }
    assert len(ids) == 4
    # units and defaults are resolved first: the same scenario written differently has the same id
    same = sc.with_overrides({"topology.rate": "10000kbps", "tcp.mss": 1448})
    assert store.run_id(same.core) == store.run_id(sc.core)


def test_run_id_changes_with_model_version(monkeypatch: MonkeyPatch) -> None:
    core = ccsim.Scenario(TINY).core
    a = store.run_id(core)
    monkeypatch.setattr(
        store, "model_tag", lambda: {"model_version": _core.MODEL_VERSION + 1, "ccsim_version": ccsim.__version__}
    )
    assert store.run_id(core) != a


# ---------------------------------------------------------------- store, resume, executors


def test_sweep_store_and_second_run_computes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "c"
    sw = tiny_sweep()
    rep = run_sweep(sw, out, executor="serial")
    assert rep.computed == 8 and rep.existing == 0 and rep.ok
    files = run_files(out)
    assert len({k.split("/")[0] for k in files}) == 8
    rep2 = run_sweep(sw, out, executor="serial")
    assert rep2.computed == 0 and rep2.existing == 8
    assert run_files(out) == files
    # extending an axis computes only the new points
    sw3 = tiny_sweep(grid={"tcp.cc": ["newreno", "cubic", "reno"], "topology.buffer": ["0.5bdp", "2bdp"]})
    rep3 = run_sweep(sw3, out, executor="serial")
    assert rep3.computed == 4 and rep3.existing == 8
    c = open_campaign(out)
    assert c.ok_runs.height == 12 and set(c.axes) == {"tcp.cc", "topology.buffer", "seed"}
    # each run's manifest holds its point and its resolved scenario
    r = c.ok_runs.row(0, named=True)
    man = json.loads((out / "runs" / r["run_id"] / "manifest.json").read_text())
    assert man["params"]["tcp.cc"] == r["tcp.cc"] and man["model_version"] == _core.MODEL_VERSION
    assert store.run_id(man["resolved"]) == r["run_id"]


def test_a_run_stores_the_tables_it_filled_and_every_view_still_exists(tmp_path: Path) -> None:
    """A run of a sweep stores only its tables with rows; the campaign keeps
    one copy of each empty table (its columns and types) in schema/, so a
    table no run filled still has its view: empty, with its columns."""
    out = tmp_path / "c"
    run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    c = open_campaign(out)
    rid = c.ok_runs["run_id"][0]
    man = json.loads((out / "runs" / rid / "manifest.json").read_text())
    stored = sorted(p.stem for p in (out / "runs" / rid).glob("*.parquet"))
    # bulk TCP flows without traces: no transfers, UDP or per-packet traces
    assert stored == sorted(man["tables"]) and "flows" in stored and "transfers" not in stored
    assert {"transfers", "udp", "rtt_trace"} <= {p.stem for p in (out / "schema").glob("*.parquet")}
    assert set(stored) | {"transfers", "udp", "rtt_trace"} <= set(c.tables())
    assert c.query("SELECT count(*) AS n FROM transfers")["n"][0] == 0
    cols = c.query("SELECT * FROM udp LIMIT 0").columns
    assert {"run_id", "pkts_sent", "label"} <= set(cols)
    # the query's file system reaches schema/ and runs/ only, and only to read
    with pytest.raises(Exception, match="read"):
        c.query(f"COPY (SELECT 1) TO '{out / 'schema' / 'x.parquet'}'")


def test_executors_give_identical_results(tmp_path: Path) -> None:
    sw = tiny_sweep()
    run_sweep(sw, tmp_path / "serial", executor="serial")
    run_sweep(sw, tmp_path / "pool", jobs=2)
    run_sweep(sw, tmp_path / "dask", dask="local", jobs=2)
    ref = run_files(tmp_path / "serial")
    assert len(ref) >= 8 * 5
    assert run_files(tmp_path / "pool") == ref
    assert run_files(tmp_path / "dask") == ref


def test_sigkill_then_resume_equals_uninterrupted(tmp_path: Path) -> None:
    sweep_file = tmp_path / "s.toml"
    (tmp_path / "base.toml").write_text(ccsim.Scenario(dict(TINY, sim={"duration": "3s", "seed": 1})).to_toml())
    sweep_file.write_text(
        'base = "base.toml"\nseeds = 6\n[grid]\n"tcp.cc" = ["newreno", "cubic", "reno"]\n'
        '"topology.buffer" = ["0.5bdp", "1bdp", "2bdp"]\n'
    )
    out = tmp_path / "killed"
    p = subprocess.Popen([PY, "-m", "ccsim", "sweep", str(sweep_file), "--out", str(out), "--serial", "--quiet"])
    cat = out / "catalogue.jsonl"
    t0 = time.monotonic()
    while time.monotonic() - t0 < 60:
        if cat.exists() and cat.read_bytes().count(b"\n") >= 10:
            break
        time.sleep(0.005)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    lines = cat.read_bytes().count(b"\n")
    assert 10 <= lines < 54, "the sweep should have been killed part-way"
    # a half-written run and a torn catalogue line, as a kill mid-write leaves them
    (out / "tmp" / "deadbeef").mkdir(parents=True, exist_ok=True)
    (out / "tmp" / "deadbeef" / "flows.parquet").write_bytes(b"PAR1 half")
    with open(cat, "ab") as f:
        f.write(b'{"run_id": "0123", "params": {"se')
    c = open_campaign(out)  # readers see only finished runs
    assert c.ok_runs.height == len(list((out / "runs").iterdir()))
    r = subprocess.run(
        [PY, "-m", "ccsim", "sweep", str(sweep_file), "--out", str(out), "--json"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["existing"] >= 10 and rep["existing"] + rep["computed"] == 54
    assert not (out / "tmp").exists()
    ref = tmp_path / "whole"
    run_sweep(Sweep.from_file(sweep_file), ref, jobs=2)
    assert run_files(out) == run_files(ref)
    a = open_campaign(out).runs.sort("run_id").select("run_id", "status", "tcp.cc", "topology.buffer", "seed")
    b = open_campaign(ref).runs.sort("run_id").select("run_id", "status", "tcp.cc", "topology.buffer", "seed")
    assert a.equals(b) and a.height == 54
    again = run_sweep(Sweep.from_file(sweep_file), out, jobs=2)
    assert again.computed == 0


def test_lost_catalogue_line_is_repaired(tmp_path: Path) -> None:
    out = tmp_path / "c"
    run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    lines = (out / "catalogue.jsonl").read_text().splitlines()
    (out / "catalogue.jsonl").write_text("\n".join(lines[:2]) + "\n")  # a crash after two renames' lines
    rep = run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    assert rep.computed == 0 and open_campaign(out).ok_runs.height == 4


def test_failures_are_recorded_and_a_timeout_stops_only_its_run(tmp_path: Path) -> None:
    slow = {"topology.rate": ["10Mbps", "10Gbps"], "sim.duration": ["1s", "1000s"]}
    sw = Sweep(TINY, zip=slow, seeds=1)
    t0 = time.monotonic()
    with pytest.raises(SweepFailed) as ei:  # a failed run is never a normal return
        run_sweep(sw, tmp_path / "c", jobs=2, timeout_s=0.5)
    assert time.monotonic() - t0 < 30
    rep = ei.value.report
    msg = str(ei.value)
    assert "1 of 2 runs did not produce results" in msg and "timeout: 1 run" in msg and "10Gbps" in msg
    assert rep.computed == 1 and len(rep.failed) == 1
    f = rep.failed[0]
    assert f["kind"] == "timeout" and "timed out after 0.5 s" in f["error"] and f["params"]["topology.rate"] == "10Gbps"
    c = open_campaign(tmp_path / "c")
    assert c.failures.select("status", "kind").row(0) == ("failed", "timeout")
    assert c.ok_runs["topology.rate"].to_list() == ["10Mbps"]
    # the CLI exits non-zero and lists the failure
    (tmp_path / "base.toml").write_text(ccsim.Scenario(TINY).to_toml())
    (tmp_path / "s.toml").write_text(
        'base = "base.toml"\n[zip]\n"topology.rate" = ["10Mbps", "10Gbps"]\n"sim.duration" = ["1s", "1000s"]\n'
    )
    r = subprocess.run(
        [
            PY,
            "-m",
            "ccsim",
            "sweep",
            str(tmp_path / "s.toml"),
            "--out",
            str(tmp_path / "d"),
            "--timeout",
            "0.5",
            "-j",
            "2",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1 and "1 runs did not produce results" in r.stderr and "timeout" in r.stderr
    # invalid points: refused up front, or recorded with --keep-going
    bad = Sweep(TINY, grid={"topology.buffer": ["1bdp", "0bdp"]})
    rep = run_sweep(bad, tmp_path / "e", executor="serial", keep_going=True)
    assert rep.computed == 1 and len(rep.invalid) == 1 and "axis topology.buffer = '0bdp'" in rep.invalid[0]
    assert open_campaign(tmp_path / "e").failures["status"].to_list() == ["invalid"]


def test_pool_survives_a_dead_worker() -> None:
    sc = ccsim.Scenario(TINY)
    long = sc.with_overrides({"topology.rate": "10Gbps", "sim.duration": "1000s"})
    tasks = [{"run_id": "long", "core_json": long.to_core_json(), "timeout_s": None}] + [
        {"run_id": f"r{i}", "core_json": sc.with_seed(i).to_core_json(), "timeout_s": None} for i in range(4)
    ]
    pool = executors.Pool(2)
    killer = None

    def kill_long_worker() -> None:
        time.sleep(1.0)
        for w in pool.workers:
            if w.task is not None and w.task["run_id"] == "long":
                os.kill(w.proc.pid, signal.SIGKILL)

    try:
        killer = threading.Thread(target=kill_long_worker)
        killer.start()
        outs = {o["run_id"]: o for o in pool.map(iter(tasks))}
    finally:
        pool.close()
        if killer is not None:
            killer.join()
    assert outs["long"]["status"] == "failed" and outs["long"]["kind"] == "crash"
    assert "worker process died" in outs["long"]["error"]
    assert all(outs[f"r{i}"]["status"] == "ok" for i in range(4))


def test_other_model_version_is_never_mixed_in(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    out = tmp_path / "c"
    run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    newer = {"model_version": _core.MODEL_VERSION + 1, "ccsim_version": ccsim.__version__}
    from ccsim.experiments import runner

    for mod in (store, runner):
        monkeypatch.setattr(mod, "model_tag", lambda: newer)
    with pytest.raises(store.CampaignError, match="--rerun-stale"):
        run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    with pytest.raises(store.CampaignError, match="another model"):
        open_campaign(out)
    rep = run_sweep(tiny_sweep(seeds=1), out, executor="serial", rerun_stale=True)
    assert rep.computed == 4 and len(list((out / "stale").iterdir())) == 4
    assert open_campaign(out).ok_runs.height == 4


def test_dry_run_counts_and_estimates(tmp_path: Path) -> None:
    sw = tiny_sweep()
    d = dry_run(sw, tmp_path / "none")
    assert d["runs"] == d["to_run"] == 8 and d["existing"] == 0 and d["invalid"] == []
    assert d["sim_seconds"] == pytest.approx(8.0) and d["cpu_s_estimate"] > 0 and d["calibration_points"] == 3
    run_sweep(
        Sweep(TINY, grid={"tcp.cc": ["newreno"], "topology.buffer": ["0.5bdp"]}, seeds=2),
        tmp_path / "c",
        executor="serial",
    )
    assert dry_run(sw, tmp_path / "c")["existing"] == 2
    assert not (tmp_path / "none").exists()


# ---------------------------------------------------------------- aggregation, query, plots


def test_aggregate_against_hand_computed_t_intervals() -> None:
    df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 3 + ["c"], "x": [1.0, 2.0, 3.0, 4.0, 10.0, 10.0, 13.0, 7.0]})
    a = aggregate(df, "g", "x").sort("g")
    # group a: mean 2.5, s = sqrt(5/3); t(0.975, 3) = 3.182 (Student-t table)
    s = (5 / 3) ** 0.5
    assert a["x_mean"][0] == pytest.approx(2.5) and a["x_std"][0] == pytest.approx(s) and a["x_n"][0] == 4
    assert a["x_ci_hi"][0] == pytest.approx(2.5 + 3.182 * s / 2, abs=1e-3)
    assert a["x_ci_lo"][0] == pytest.approx(2.5 - 3.182 * s / 2, abs=1e-3)
    # group b: mean 11, s = sqrt(3); t(0.975, 2) = 4.303
    assert a["x_ci_hi"][1] == pytest.approx(11 + 4.303 * 3**0.5 / 3**0.5, abs=1e-3)
    # one sample: no interval
    lone = a.row(2, named=True)
    assert lone["x_n"] == 1 and lone["x_mean"] == 7.0
    assert all(lone[k] is None or math.isnan(lone[k]) for k in ("x_std", "x_ci_lo", "x_ci_hi"))
    # 90 % level: t(0.95, 3) = 2.353
    b = aggregate(df.filter(pl.col("g") == "a"), [], "x", level=0.90)
    assert b["x_ci_hi"][0] == pytest.approx(2.5 + 2.353 * s / 2, abs=1e-3)


def test_query_and_plot_sweep(tmp_path: Path) -> None:
    out = tmp_path / "c"
    run_sweep(tiny_sweep(), out, executor="serial")
    r = subprocess.run(
        [
            PY,
            "-m",
            "ccsim",
            "query",
            str(out),
            'SELECT "tcp.cc", count(*) AS n, count(DISTINCT run_id) AS runs FROM flows GROUP BY 1 ORDER BY 1',
            "--csv",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["tcp.cc,n,runs", "cubic,8,4", "newreno,8,4"]
    c = open_campaign(out)
    flows = c.table("flows")
    # the joined parameters are the runs' own: every row's cc column agrees with its tcp.cc axis
    assert (flows["cc"] == flows["tcp.cc"]).all()
    per = c.per_run("flows.goodput_bps", "sum")
    want = flows.group_by("run_id").agg(pl.col("goodput_bps").sum())
    assert per.join(want, on="run_id")["flows.goodput_bps"].to_list() == pytest.approx(
        per.join(want, on="run_id")["goodput_bps"].to_list()
    )
    j = c.per_run("flows.goodput_bps", "jain")["jain(flows.goodput_bps)"]
    assert ((j > 0.5 - 1e-9) & (j <= 1 + 1e-9)).all()  # two flows: J in [1/2, 1]
    r = subprocess.run(
        [
            PY,
            "-m",
            "ccsim",
            "plot-sweep",
            str(out),
            "--x",
            "topology.buffer",
            "--y",
            "flows.goodput_bps",
            "--hue",
            "tcp.cc",
            "--reduce",
            "sum",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    png = Path(r.stdout.strip())
    assert png.exists() and png.stat().st_size > 5000
    r = subprocess.run([PY, "-m", "ccsim", "query", str(out), "SELECT nope FROM flows"], capture_output=True, text=True)
    assert r.returncode == 2 and "query failed" in r.stderr
    r = subprocess.run(
        [PY, "-m", "ccsim", "plot-sweep", str(out), "--x", "tcp.mss", "--y", "flows.goodput_bps"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "not an axis of this campaign" in r.stderr


# ---------------------------------------------------------------- run control


def test_run_control_cancels_and_does_not_change_results() -> None:
    sc = ccsim.Scenario(TINY)
    ctl = _core.RunControl()
    a = _core.run(sc.to_core_json())
    b = _core.run(sc.to_core_json(), ctl)
    assert ctl.sim_time_s() == pytest.approx(1.0)
    for t in ("flows", "flow_series"):
        assert [(n, d, x) for n, d, x in a["tables"][t]] == [(n, d, x) for n, d, x in b["tables"][t]]
    long = sc.with_overrides({"topology.rate": "10Gbps", "sim.duration": "1000s"})
    ctl = _core.RunControl()
    threading.Timer(0.3, ctl.cancel).start()
    t0 = time.monotonic()
    with pytest.raises(_core.RunCancelled, match="cancelled at simulated time"):
        _core.run(long.to_core_json(), ctl)
    assert time.monotonic() - t0 < 5 and 0 < ctl.sim_time_s() < 1000


def test_slurm_example_builds_its_cluster() -> None:
    """The documented Slurm set-up: the cluster object and its job script
    (nothing is submitted; there is no Slurm here)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("slurm_sweep", ROOT / "examples" / "slurm_sweep.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cluster = mod.make_cluster(queue="short", cores=4, memory="8GB", walltime="00:30:00", python="/opt/venv/bin/python")
    try:
        script = cluster.job_script()
    finally:
        cluster.close()
    assert "#SBATCH -p short" in script and "#SBATCH --cpus-per-task=4" in script and "#SBATCH -t 00:30:00" in script
    assert "/opt/venv/bin/python -m distributed.cli.dask_worker" in script and "--nworkers 4" in script
    assert "--nthreads 1" in script and "export OPENBLAS_NUM_THREADS=1" in script


def test_dask_executor_accepts_a_client(tmp_path: Path) -> None:
    from dask.distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cl,
        Client(cl) as client,
    ):
        rep = run_sweep(tiny_sweep(seeds=1), tmp_path / "c", dask=client)
        assert rep.computed == 4 and client.status == "running"  # the caller's client is left open
    ref = tmp_path / "s"
    run_sweep(tiny_sweep(seeds=1), ref, executor="serial")
    assert run_files(tmp_path / "c") == run_files(ref)


def test_a_damaged_run_folder_is_recomputed(tmp_path: Path) -> None:
    out = tmp_path / "c"
    run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    before = run_files(out)
    victim = sorted((out / "runs").iterdir())[0]
    (victim / "flows.parquet").write_bytes(b"")  # what a power cut can leave
    with pytest.warns(UserWarning, match=victim.name):
        c = open_campaign(out)
    assert c.ok_runs.height == 3 and c.query("SELECT count(DISTINCT run_id) AS n FROM flows")["n"][0] == 3
    rep = run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    assert rep.computed == 1 and run_files(out) == before


def test_a_large_point_already_stored_is_resolved_once(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    # points too large to keep from validation keep their run id instead:
    # a resume resolves each stored point once (validation), not twice
    from ccsim.experiments import runner
    from ccsim.experiments.sweep import Point

    monkeypatch.setattr(runner, "KEEP_ELEMENTS", 0)
    monkeypatch.setattr(runner, "LARGE_ELEMENTS", 1)
    calls: list[int] = []
    real = Point.scenario

    def counted(self: Point, *a: Any, **k: Any) -> ccsim.Scenario:
        calls.append(self.index)
        return real(self, *a, **k)

    monkeypatch.setattr(Point, "scenario", counted)
    sw, out = tiny_sweep(seeds=1), tmp_path / "c"
    rep = run_sweep(sw, out, executor="serial")
    assert rep.computed == 4 and sorted(calls) == sorted(2 * list(range(4)))  # validation, then the task
    files = run_files(out)
    calls.clear()
    rep = run_sweep(sw, out, executor="serial")
    assert rep.existing == 4 and rep.computed == 0 and sorted(calls) == list(range(4))
    assert run_files(out) == files
    ref = tmp_path / "s"
    monkeypatch.undo()
    run_sweep(sw, ref, executor="serial")
    assert run_files(ref) == files


def test_checks_read_a_small_summary_and_still_find_a_manifest_cut_short(tmp_path: Path) -> None:
    # the store's checks read summary.json (the manifest without the
    # scenarios, plus the manifest's size and SHA-256), never the manifest
    # itself beyond hashing it
    out = tmp_path / "c"
    run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    before = run_files(out)
    runs = sorted((out / "runs").iterdir())
    for d in runs:
        man = json.loads((d / "manifest.json").read_bytes())
        summ = json.loads((d / "summary.json").read_bytes())
        assert summ.pop("manifest_bytes") == (d / "manifest.json").stat().st_size
        assert summ.pop("manifest_sha256") == hashlib.sha256((d / "manifest.json").read_bytes()).hexdigest()
        assert summ == {k: v for k, v in man.items() if k not in ("scenario", "resolved")}
    # a manifest cut short (a power cut) makes its run damaged: recomputed
    victim = runs[0] / "manifest.json"
    victim.write_bytes(victim.read_bytes()[:100])
    with pytest.warns(UserWarning, match=runs[0].name):
        assert open_campaign(out).ok_runs.height == 3
    assert run_sweep(tiny_sweep(seeds=1), out, executor="serial").computed == 1
    # a run written before summaries existed is read from its manifest
    (runs[1] / "summary.json").unlink()
    rep = run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    assert rep.computed == 0 and rep.existing == 4 and run_files(out) == before


def test_a_table_corrupted_at_the_same_size_is_found_by_its_hash_and_recomputed(tmp_path: Path) -> None:
    # a bad disk flips bytes without changing the size: the manifest's
    # SHA-256 finds it; the campaign opens without that run, warning with
    # its id, and a resume recomputes the same bytes
    out = tmp_path / "c"
    run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    ref = run_files(out)
    victim = sorted((out / "runs").iterdir())[0]
    f = victim / "flows.parquet"
    data = bytearray(f.read_bytes())
    data[len(data) // 2] ^= 0xFF
    f.write_bytes(bytes(data))
    with pytest.warns(UserWarning, match=f"damaged.*{victim.name}"):
        c = open_campaign(out)
    assert c.ok_runs.height == 3 and victim.name not in c.ok_runs["run_id"].to_list()
    assert c.query("SELECT count(DISTINCT run_id) AS n FROM flows")["n"][0] == 3
    rep = run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    assert rep.computed == 1 and rep.existing == 3
    assert run_files(out) == ref


@pytest.mark.skipif(os.geteuid() != 0, reason="a read-only bind mount needs root")
def test_a_campaign_on_read_only_media_answers_queries_and_a_sweep_with_nothing_to_compute(tmp_path: Path) -> None:
    src, ro = tmp_path / "src", tmp_path / "ro"
    ro.mkdir()
    run_sweep(tiny_sweep(seeds=1), src / "c", executor="serial")
    ref = {p.relative_to(src): p.read_bytes() for p in sorted(src.rglob("*")) if p.is_file()}
    subprocess.run(["mount", "--bind", str(src), str(ro)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], check=True)
        c = open_campaign(ro / "c")
        assert c.query("SELECT count(DISTINCT run_id) AS n FROM flows")["n"][0] == 4
        rep = run_sweep(tiny_sweep(seeds=1), ro / "c", executor="serial")
        assert rep.ok and rep.existing == 4 and rep.computed == 0 and "read-only" in rep.warnings[0]
        with pytest.raises(store.CampaignError, match=r"cannot be written .* 4 of its 8 runs are not there"):
            run_sweep(tiny_sweep(seeds=2), ro / "c", executor="serial")
    finally:
        subprocess.run(["umount", str(ro)], check=True)
    assert {p.relative_to(src): p.read_bytes() for p in sorted(src.rglob("*")) if p.is_file()} == ref


def test_an_empty_manifest_is_a_damaged_run_not_a_broken_campaign(tmp_path: Path) -> None:
    # a power cut can leave a run folder with an empty manifest.json: the
    # campaign still opens (without that run), and a resume recomputes it
    out = tmp_path / "c"
    run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    ref = run_files(out)
    victim = sorted((out / "runs").iterdir())[0]
    (victim / "manifest.json").write_text("")
    with pytest.warns(UserWarning, match=victim.name):
        c = open_campaign(out)
    assert c.ok_runs.height == 3 and victim.name not in c.ok_runs["run_id"].to_list()
    assert c.query("SELECT count(DISTINCT run_id) AS n FROM flows")["n"][0] == 3
    rep = run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    assert rep.computed == 1 and rep.existing == 3
    assert run_files(out) == ref  # the recomputed run is the same bytes


def test_a_query_reads_the_campaign_only_and_never_writes(tmp_path: Path) -> None:
    # `ccsim query` / Campaign.query: one reading statement over the
    # campaign's own runs; writes, attachments, settings, extensions and
    # files outside the campaign are refused with the reason, and nothing
    # is created anywhere
    out = tmp_path / "c"
    run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    ref = run_files(out)
    c = open_campaign(out)
    assert c.query("SELECT count(DISTINCT run_id) AS n FROM flows")["n"][0] == 4
    outside = tmp_path / "outside.csv"
    outside.write_text("a\n1\n")
    refused = {
        f"COPY (SELECT 1) TO '{tmp_path / 'x.csv'}'": "got COPY",
        f"COPY (SELECT 7 AS a) TO '{next((out / 'runs').iterdir()) / 'flows.parquet'}' (FORMAT parquet)": "got COPY",
        f"ATTACH '{tmp_path / 'x.db'}'": "got ATTACH",
        "INSTALL httpfs": "got LOAD",
        "SET enable_external_access = true": "got SET",
        "CREATE TABLE t AS SELECT 1": "got CREATE",
        "SELECT 1; SELECT 2": "got 2 statements",
        f"SELECT * FROM read_csv('{outside}')": "Permission Error",
        "SELECT * FROM read_csv('/etc/passwd')": "Permission Error",
        # EXPLAIN ANALYZE runs its statement: the statement-type check lets
        # it through, and the database itself must refuse the write (it
        # used to overwrite the run's table)
        f"EXPLAIN ANALYZE COPY (SELECT 7 AS a) TO '{next((out / 'runs').iterdir()) / 'flows.parquet'}' "
        "(FORMAT parquet)": "LocalFileSystem has been disabled",
        f"EXPLAIN ANALYZE COPY (SELECT 7 AS a) TO 'ccsim-ro://{next((out / 'runs').iterdir()) / 'flows.parquet'}' "
        "(FORMAT parquet)": "a campaign query cannot change files",
        f"EXPLAIN ANALYZE COPY (SELECT 1) TO '{tmp_path / 'x.csv'}'": "LocalFileSystem has been disabled",
    }
    for sql, why in refused.items():
        with pytest.raises(store.CampaignError) as e:
            c.query(sql)
        assert why in str(e.value), (sql, str(e.value))
    assert not (tmp_path / "x.csv").exists() and not (tmp_path / "x.db").exists()
    # through the campaign's own read-only file system, nothing outside its runs is seen
    assert c.query(f"SELECT * FROM read_text('ccsim-ro://{outside}')").height == 0
    assert c.query("SELECT * FROM read_text('ccsim-ro:///etc/passwd')").height == 0
    assert run_files(out) == ref  # the campaign is byte for byte what the sweep wrote
    assert c.query("EXPLAIN SELECT count(*) FROM flows").height >= 1


def test_a_second_writer_is_refused_while_a_sweep_holds_the_folder(tmp_path: Path) -> None:
    """Two sweeps into one folder used to both compute everything and remove
    each other's files; a writer now holds an exclusive lock on the folder
    for its lifetime, and a second one is refused naming the holder. The lock
    dies with its process, and the same process may sweep the folder again."""
    out = tmp_path / "c"
    run_sweep(tiny_sweep(seeds=[1], grid={}), out)
    with flock_held(out / ".lock", "4242"):
        with pytest.raises(store.CampaignError, match=r"another ccsim process \(pid 4242\) is writing"):
            run_sweep(tiny_sweep(seeds=[1, 2], grid={}), out)
    rep = run_sweep(tiny_sweep(seeds=[1, 2], grid={}), out)  # free again
    assert rep.computed == 1 and open_campaign(out).ok_runs.height == 2
    assert run_sweep(tiny_sweep(seeds=[1, 2], grid={}), out).computed == 0  # and again, in the same process


def test_a_non_numeric_metric_and_an_emulation_dry_run_are_one_line(tmp_path: Path) -> None:
    out = tmp_path / "c"
    run_sweep(tiny_sweep(seeds=[1], grid={}), out)
    c = open_campaign(out)
    for y in ("runs.status", "flows.label"):
        with pytest.raises(store.CampaignError, match="expected a numeric column of"):
            c.per_run(y)
    sw = tmp_path / "emu.toml"
    base = tmp_path / "base.toml"
    ccsim.dump(ccsim.Scenario.from_dict(TINY), base)
    sw.write_text('backend = "emulation"\nbase = "base.toml"\n[grid]\n"tcp.cc" = ["cubic", "bbr"]\n')
    r = subprocess.run(
        [PY, "-m", "ccsim", "sweep", str(sw), "--out", str(tmp_path / "e"), "--dry-run"], capture_output=True, text=True
    )
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "estimated wall time" in r.stdout and "one emulated run at a time" in r.stdout


def test_a_campaign_lists_its_runs_in_one_order_whatever_order_they_finished_in(tmp_path: Path) -> None:
    """A parallel sweep catalogues runs as they complete; the campaign reads
    them in the sweep's own order (each axis's values as written, the first
    axis slowest, the seed fastest), so tables, aggregates and figures
    follow the sweep and sums over runs are the same from one computation
    to the next."""
    out = tmp_path / "c"
    run_sweep(tiny_sweep(seeds=[10, 2], grid={"topology.rate": ["20Mbps", "5Mbps", "100Mbps"]}), out, jobs=1)
    first = open_campaign(out).runs
    cat = out / "catalogue.jsonl"
    lines = cat.read_text().splitlines(keepends=True)
    cat.write_text("".join(reversed(lines)))
    again = open_campaign(out).runs
    assert again["run_id"].to_list() == first["run_id"].to_list()
    assert first.height == 6
    # as the sweep lists them: neither sorted as numbers nor as text
    assert first["topology.rate"].to_list() == ["20Mbps"] * 2 + ["5Mbps"] * 2 + ["100Mbps"] * 2
    assert first["seed"].to_list() == [10, 2] * 3
    per_run = open_campaign(out).per_run("flows.goodput_bps", "mean")
    agg = aggregate(per_run, by=["topology.rate"], metrics=["flows.goodput_bps"])
    assert agg["topology.rate"].to_list() == ["20Mbps", "5Mbps", "100Mbps"]
    # a campaign whose sweeps are not recorded falls back to values sorted as numbers
    meta = json.loads((out / "campaign.json").read_text())
    (out / "campaign.json").write_text(json.dumps({**meta, "sweeps": []}))
    bare = open_campaign(out).runs
    assert bare.filter(pl.col("topology.rate") == "20Mbps")["seed"].to_list() == [2, 10]


class _StuckOnSend:
    """A result part whose serialisation never ends: the worker that holds
    it cannot send it (as a frozen or partitioned worker cannot)."""

    def __reduce__(self) -> tuple[type, tuple[()]]:
        time.sleep(3600)
        return (_StuckOnSend, ())


class _ExecuteStuckFor:
    """The worker's `execute`, but the result of run `victim` cannot be sent."""

    def __init__(self, victim: str) -> None:
        self.victim = victim

    def __call__(self, task: dict[str, Any]) -> dict[str, Any]:
        from ccsim.experiments.worker import execute

        out = execute(task)
        if task["run_id"] == self.victim:
            # large, as a real result: the worker serialises it off its
            # event loop, which goes on answering the scheduler
            out["stuck"] = [_StuckOnSend(), bytes(16 << 20)]
        return out


def test_a_dask_result_that_cannot_be_fetched_is_a_failed_run_not_a_hang(
    tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    from dask.distributed import Client, LocalCluster

    sw = tiny_sweep(seeds=1)
    ref = tmp_path / "s"
    run_sweep(sw, ref, executor="serial")
    ids = sorted(open_campaign(ref).ok_runs["run_id"])
    monkeypatch.setattr(executors, "execute", _ExecuteStuckFor(ids[1]))
    monkeypatch.setattr(executors, "FETCH_TIMEOUT_S", 3.0)
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl,
        Client(cl) as client,
        pytest.raises(SweepFailed, match="could not be fetched within 3 s") as ei,
    ):
        run_sweep(sw, tmp_path / "c", dask=client)
    rep = ei.value.report
    assert [f["run_id"] for f in rep.failed] == [ids[1]] and rep.computed == len(ids) - 1
    # the other runs are stored, and the same bytes as a serial sweep's
    got = run_files(tmp_path / "c")
    assert got and {k: v for k, v in run_files(ref).items() if not k.startswith(ids[1])} == got


# ---------------------------------------------------------------- a hostile or unlucky folder


@pytest.mark.parametrize("name", [".lock", "catalogue.jsonl", ".campaign.json.tmp", "tmp"])
def test_a_link_in_a_campaign_folder_is_never_written_through(tmp_path: Path, name: str) -> None:
    out = tmp_path / "c"
    run_sweep(tiny_sweep(seeds=1), out, executor="serial")
    target = tmp_path / "precious"
    if name == "tmp":
        target.mkdir()
    else:
        target.write_text("mine\n")
    p = out / name
    if p.exists():
        p.unlink()
    p.symlink_to(target)
    sw = tiny_sweep(seeds=2)
    with pytest.raises(store.CampaignError, match=r"is a symbolic link; ccsim .* never through a link"):
        run_sweep(sw, out, executor="serial")
    if name == "tmp":
        assert list(target.iterdir()) == []
    else:
        assert target.read_text() == "mine\n"


def test_a_bad_catalogue_line_is_skipped_and_named_and_an_empty_campaign_json_is_one_line(tmp_path: Path) -> None:
    out = tmp_path / "c"
    sw = tiny_sweep(seeds=1)
    run_sweep(sw, out, executor="serial")
    cat = out / "catalogue.jsonl"
    lines = cat.read_text().splitlines(keepends=True)
    cat.write_text(lines[0] + "{not json\n" + '"a string"\n' + "".join(lines[1:]))
    store._WARNED.clear()
    with pytest.warns(UserWarning, match=r"catalogue.jsonl: lines 2, 3 are not a catalogue entry"):
        rep = run_sweep(sw, out, executor="serial")
    assert rep.existing == 4 and rep.computed == 0
    assert open_campaign(out).ok_runs.height == 4
    (out / "campaign.json").write_text("")
    with pytest.raises(store.CampaignError, match=r"campaign.json: damaged .*move campaign.json away"):
        open_campaign(out)
    r = subprocess.run([PY, "-m", "ccsim", "query", str(out), "SELECT 1"], capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "damaged" in r.stderr


def test_a_manifest_damaged_at_the_same_size_is_found_and_recomputed(tmp_path: Path) -> None:
    out = tmp_path / "c"
    sw = tiny_sweep(seeds=1)
    run_sweep(sw, out, executor="serial")
    rid = sorted(p.name for p in (out / "runs").iterdir())[0]
    m = out / "runs" / rid / "manifest.json"
    data = bytearray(m.read_bytes())
    i = data.index(b'"seed"')
    data[i + 1] = ord("S")  # one byte changed, same size
    m.write_bytes(bytes(data))
    rep = run_sweep(sw, out, executor="serial")
    assert rep.computed == 1 and rep.existing == 3
    assert json.loads(m.read_text())["seed"] == 1


def test_point_at_is_the_points_order_without_expanding_it() -> None:
    sw = Sweep(
        TINY,
        grid={"topology.buffer": ["1bdp", "2bdp"], "tcp.min_rto": lambda p: "1s" if p["seed"] == 2 else "200ms"},
        zip={"tcp.cc": ["reno", "cubic", "newreno"], "sim.duration": ["1s", "2s", "3s"]},
        seeds=[5, 2],
    )
    every = list(sw.points())
    assert len(every) == len(sw) == 12
    for pt in every:
        at = sw.point_at(pt.index)
        assert (at.index, at.params, at.raw) == (pt.index, pt.params, pt.raw)
    with pytest.raises(IndexError):
        sw.point_at(12)


def test_a_dry_run_of_a_million_seeds_is_judged_on_a_sample(tmp_path: Path) -> None:
    f = tmp_path / "big.toml"
    base = tmp_path / "base.toml"
    ccsim.dump(ccsim.Scenario(TINY), base)
    f.write_text('base = "base.toml"\nseeds = 1000000\n')
    # a hang guard, not a timing: the dry run used to expand every point (hours)
    r = subprocess.run(
        [PY, "-m", "ccsim", "sweep", str(f), "--dry-run", "--json"], capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["runs"] == 1_000_000 and d["sampled"] and d["validated"] == 2000
    assert d["to_run"] == 1_000_000 and d["invalid_estimate"] == 0
    assert d["sim_seconds"] == pytest.approx(1_000_000 * 1.0)
    r = subprocess.run([PY, "-m", "ccsim", "sweep", str(f), "--dry-run"], capture_output=True, text=True, timeout=600)
    assert "judged on an even sample of 2000 runs" in r.stdout
