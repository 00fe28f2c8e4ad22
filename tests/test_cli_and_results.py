"""The README's contract: the example files run as written, the CLI's JSON
shape, error exit status, results on disk, plots and bench output."""

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ccsim
import numpy as np
import polars as pl
import pytest
from conftest import ROOT
from helpers import plotted_figures
from pytest import MonkeyPatch


def cli(*args: Any, cwd: str | Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ccsim", *args], capture_output=True, text=True, cwd=cwd)


def test_examples_run_as_written(tmp_path: Path) -> None:
    for name in (
        "dumbbell",
        "lossy_link",
        "reverse_onoff",
        "web_mix",
        "datacenter_dctcp",
        "l4s_dualpi2",
        "bbr3_vs_cubic",
    ):
        out = tmp_path / name
        r = cli("run", str(ROOT / "examples" / f"{name}.toml"), "--out", str(out), "--json")
        assert r.returncode == 0, r.stderr
        d = json.loads(r.stdout)
        assert set(d) == {"flows", "links", "sim_time_s", "wall_time_s", "events", "out"} and d["out"] == str(out)
        assert set(d["flows"][0]) == {
            "id",
            "src",
            "dst",
            "cc",
            "goodput_bps",
            "throughput_bps",
            "retransmits",
            "timeouts",
            "fct_s",
        }
        assert set(d["links"][0]) == {"name", "drops", "losses", "utilization"}
        assert d["flows"][0]["fct_s"] is None  # bulk flows never finish
        for f in ("flows", "links", "flow_series", "link_series", "events"):
            assert (out / f"{f}.parquet").exists()
        for p in ("cwnd.png", "throughput.png", "seq.png", "queue.png"):
            assert (out / p).stat().st_size > 1000
        m = json.loads((out / "manifest.json").read_text())
        assert m["seed"] in (1, 3, 7) and m["ccsim_version"] == ccsim.__version__ and m["events"] == d["events"]
    d = json.loads(cli("run", str(ROOT / "examples" / "dumbbell.toml"), "--out", str(tmp_path / "x"), "--json").stdout)
    assert len(d["flows"]) == 10


def test_toml_yaml_and_builder_give_the_same_scenario(tmp_path: Path) -> None:
    toml_sc = ccsim.load(ROOT / "examples" / "dumbbell.toml")
    import tomllib

    import yaml

    y = tmp_path / "d.yaml"
    y.write_text(yaml.safe_dump(tomllib.loads((ROOT / "examples" / "dumbbell.toml").read_text())))
    assert ccsim.load(y).core == toml_sc.core
    b = (
        ccsim.Builder(duration="60s", seed=1, sample_interval="100ms")
        .dumbbell(
            bottleneck_rate="100Mbps",
            bottleneck_delay="18ms",
            access_rate="1Gbps",
            access_delay="1ms",
            buffer="1bdp",
            queue="droptail",
        )
        .tcp(cc="newreno", mss=1448, delayed_ack=True, initial_window=10, min_rto="200ms")
        .flows(count=10, app="bulk", start="0s", stagger="10ms")
        .build()
    )
    assert b.core == toml_sc.core


def test_dumbbell_bdp_buffer_resolution() -> None:
    # 100 Mb/s × 40 ms = 500 000 bytes = 333.3 packets of 1448 + 40 + 12
    # bytes (the Linux stack sends timestamps).
    sc = ccsim.load(ROOT / "examples" / "dumbbell.toml")
    bott = [l for l in sc.core["links"] if l["name"] == "r0->r1"][0]
    assert bott["queue"]["limit_pkts"] == round(100e6 * 0.040 / 8 / 1500)
    assert bott["delay_ps"] == 18 * 10**9


def test_error_exits_2_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[sim]\nduration = "1s"\n[topology]\nkind = "ring"\n[[flows]]\n')
    r = cli("run", str(bad), "--out", str(tmp_path / "o"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "topology.kind" in lines[0] and "dumbbell" in lines[0]
    assert not (tmp_path / "o").exists()


def test_failed_run_does_not_touch_earlier_results(tmp_path: Path) -> None:
    out = tmp_path / "o"
    ok = cli("run", str(ROOT / "examples" / "lossy_link.toml"), "--out", str(out), "--no-plots")
    assert ok.returncode == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    bad = tmp_path / "bad.toml"
    bad.write_text((ROOT / "examples" / "lossy_link.toml").read_text().replace('"20Mbps"', '"0Mbps"'))
    r = cli("run", str(bad), "--out", str(out))
    assert r.returncode == 2
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_plot_command(tmp_path: Path) -> None:
    out = tmp_path / "o"
    assert cli("run", str(ROOT / "examples" / "lossy_link.toml"), "--out", str(out), "--no-plots").returncode == 0
    r = cli("plot", str(out))
    assert r.returncode == 0 and (out / "cwnd.png").exists()
    assert cli("plot", str(tmp_path)).returncode == 2
    # SVG and PDF for papers; the SVG keeps its text as text, and every figure names its run
    r = cli("plot", str(out), "--format", "svg,pdf")
    assert r.returncode == 0, r.stderr
    for name in ("cwnd", "throughput", "seq", "queue"):
        assert (out / f"{name}.pdf").read_bytes()[:5] == b"%PDF-"
        svg = (out / f"{name}.svg").read_text()
        assert "lossy_link.toml" in svg and "seed 7" in svg, name  # the example says seed = 7
    r = cli("plot", str(out), "--format", "jpeg")
    assert r.returncode == 2 and "--format" in r.stderr and "svg" in r.stderr


def test_run_no_write_prints_and_writes_nothing(tmp_path: Path) -> None:
    r = cli("run", str(ROOT / "examples" / "lossy_link.toml"), "--json", "--no-write", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["out"] is None and not (tmp_path / "results").exists()
    r = cli("run", str(ROOT / "examples" / "lossy_link.toml"), "--no-write", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "--no-write" in r.stderr


def test_queue_series_keeps_the_peaks_between_samples(tmp_path: Path) -> None:
    """queue_max_pkts is the largest queue within each sample interval: it is
    never below the sampled queue, and its maximum over the run is the link's
    max_queue_pkts (which the summary measures at every admission), even when
    1 s samples miss the peaks of a 40 ms-RTT sawtooth."""
    sc = (
        ccsim.Builder(duration="20s", seed=1, sample_interval="1s")
        .dumbbell(
            bottleneck_rate="20Mbps", bottleneck_delay="18ms", access_rate="1Gbps", access_delay="1ms", buffer="1bdp"
        )
        .tcp(cc="reno")
        .flows(count=2, app="bulk")
        .build()
    )
    res = sc.run()
    lid = res.links.filter(pl.col("name") == "r0->r1")["id"][0]
    s = res.link_series.filter(pl.col("link") == lid)
    assert (s["queue_max_pkts"] >= s["queue_pkts"]).all()
    peak = res.links.filter(pl.col("id") == lid)["max_queue_pkts"][0]
    assert s["queue_max_pkts"].max() == peak > s["queue_pkts"].max()
    # a link that never queues has a zero series
    idle = res.links.filter(pl.col("name") == "r1->r0")["id"][0]
    assert res.link_series.filter(pl.col("link") == idle)["queue_max_pkts"].max() == 0


def test_plots_of_many_flows_use_small_multiples_and_a_heat_map(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    sc = (
        ccsim.Builder(duration="3s", seed=5, sample_interval="100ms")
        .dumbbell(
            bottleneck_rate="50Mbps", bottleneck_delay="10ms", access_rate="1Gbps", access_delay="1ms", buffer="1bdp"
        )
        .tcp(cc="cubic")
        .flows(count=12, app="bulk", stagger="50ms")
        .build()
    )
    sc.run().write(tmp_path)
    figs = plotted_figures(tmp_path)
    cw = figs["cwnd"]
    assert len([a for a in cw.axes if a.get_visible()]) == 12  # one panel per flow
    tp = figs["throughput"]
    assert any(a.images for a in tp.axes)  # the per-flow heat map
    img = next(a.images[0] for a in tp.axes if a.images).get_array()
    assert img is not None and img.shape[0] == 12
    # the aggregate line is the sum of the flows' goodput at each sample
    agg = np.asarray(tp.axes[0].lines[0].get_ydata())
    assert abs(float(np.nansum(img[:, -1])) - agg[-1]) < 1e-6
    assert "seed 5" in tp.get_suptitle()
    plt.close("all")


def test_bench_json_shape() -> None:
    from ccsim.tools.bench import SCENARIOS

    assert {n.split("_")[2] for n in SCENARIOS} == {"100M", "1G", "2.5G", "10G"}
    r = cli("bench", "--json", "--repeat", "1", "--only", "a_dumbbell")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    names = [s["name"] for s in d["scenarios"]]
    assert names == [n for n in SCENARIOS if n.startswith("a_dumbbell")] and len(names) == 7
    assert all(any(f"_{cc}_" in n for n in names) for cc in ("cubic", "bbr", "bbr3", "prague", "copa"))
    by = {s["name"]: s for s in d["scenarios"]}
    for s in d["scenarios"]:
        assert set(s) == {
            "name",
            "delivered_pkts",
            "events",
            "cpu_s",
            "pkts_per_cpu_s",
            "events_per_cpu_s",
            "cost_vs_newreno",
        }
        assert s["delivered_pkts"] > 100_000
        assert s["pkts_per_cpu_s"] == pytest.approx(s["delivered_pkts"] / s["cpu_s"])
        base = by["a_dumbbell_100M_newreno_sack_ts"]
        assert s["cost_vs_newreno"] == pytest.approx(base["pkts_per_cpu_s"] / s["pkts_per_cpu_s"])
    r = cli("bench", "--only", "nothing-like-this")
    assert r.returncode == 2 and "--only" in r.stderr


def test_results_read_back(tmp_path: Path) -> None:
    res = ccsim.load(ROOT / "examples" / "lossy_link.toml").run()
    res.write(tmp_path)
    back = ccsim.read(tmp_path)
    assert back["flows"].equals(res.flows)
    assert back["manifest"]["scenario"]["topology"]["kind"] == "single_link"


def test_list_command() -> None:
    r = cli("list")
    assert r.returncode == 0 and "newreno" in r.stdout and "abc_limit" in r.stdout
    # every queue, loss model, traffic type and topology is listed with its options
    from ccsim.scenario.netmodels import LOSS_DOC, QUEUE_KINDS
    from ccsim.scenario.topologies import TOPOLOGY_DOC
    from ccsim.scenario.traffic import APP_DOC

    for name in [
        *QUEUE_KINDS,
        *LOSS_DOC,
        *APP_DOC,
        *TOPOLOGY_DOC,
        "wireless_loss",
        "to_bad_after_good",
        "think",
        "pareto2",
    ]:
        assert name in r.stdout, name


def test_out_that_cannot_be_a_folder_is_refused_before_running(tmp_path: Path) -> None:
    f = tmp_path / "taken"
    f.write_text("not a folder")
    r = cli("run", str(ROOT / "examples" / "lossy_link.toml"), "--out", str(f))
    assert r.returncode == 2
    line = r.stderr.strip()
    assert "\n" not in line and "--out" in line and "a file of that name exists" in line
    assert f.read_text() == "not a folder"


def test_a_rerun_leaves_nothing_of_the_earlier_run(tmp_path: Path) -> None:
    out = tmp_path / "o"
    sc = ccsim.load(ROOT / "examples" / "lossy_link.toml").with_overrides({"sim.duration": "2s", "sim.trace": ["seq"]})
    first = tmp_path / "first.toml"
    ccsim.dump(sc, first)
    assert cli("run", str(first), "--out", str(out)).returncode == 0
    assert (out / "cwnd.png").exists() and (out / "seq_trace.parquet").exists()
    second = tmp_path / "second.toml"
    ccsim.dump(sc.with_overrides({"sim.trace": []}), second)
    assert cli("run", str(second), "--out", str(out), "--no-plots").returncode == 0
    assert not list(out.glob("*.png")), "plots of the earlier run were left beside the new data"
    assert ccsim.read(out).get("seq_trace", pl.DataFrame()).height == 0, "the earlier run's trace is gone"


def test_a_run_into_a_users_folder_never_replaces_files_it_did_not_write(tmp_path: Path) -> None:
    """Files named like ccsim's (a plot, a table) in a folder without a ccsim
    manifest are the user's: the run refuses in one line, naming them, and
    touches nothing. The user's other files stay beside a run's results."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "cwnd.pdf").write_text("my slides")
    (out / "events.parquet").write_text("my data")
    sc = tmp_path / "s.toml"
    ccsim.dump(ccsim.load(ROOT / "examples" / "lossy_link.toml").with_overrides({"sim.duration": "1s"}), sc)
    r = cli("run", str(sc), "--out", str(out), "--no-plots")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert "cwnd.pdf" in r.stderr and "events.parquet" in r.stderr and "not written by a ccsim run" in r.stderr
    assert (out / "cwnd.pdf").read_text() == "my slides" and (out / "events.parquet").read_text() == "my data"
    assert sorted(x.name for x in out.iterdir()) == ["cwnd.pdf", "events.parquet"]
    # a folder with the user's notes only: the run writes beside them
    (out / "cwnd.pdf").unlink()
    (out / "events.parquet").unlink()
    (out / "notes.txt").write_text("mine")
    assert cli("run", str(sc), "--out", str(out), "--no-plots").returncode == 0
    assert (out / "notes.txt").read_text() == "mine"
    assert not (out / ".manifest.prev.json").exists() and not (out / ".ccsim-staging").exists()


def test_a_write_that_fails_or_stops_midway_leaves_the_earlier_results_whole(
    tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    from ccsim.analysis import results

    out = tmp_path / "o"
    first = ccsim.load(ROOT / "examples" / "lossy_link.toml").with_overrides({"sim.duration": "2s"}).run()
    first.write(out)
    before = {f.name: f.read_bytes() for f in out.iterdir()}
    second = ccsim.load(ROOT / "examples" / "lossy_link.toml").with_overrides({"sim.duration": "3s"}).run()
    # the disk fills after the first table: one line, the earlier run intact
    import pathlib

    real = pathlib.Path.write_bytes
    calls = []

    def tables_written_by(fn: Callable[[pathlib.Path, bytes], int]) -> None:
        # Result.write writes each table's Parquet bytes with Path.write_bytes
        def write_bytes(self: pathlib.Path, data: bytes) -> int:
            return fn(self, data) if self.suffix == ".parquet" else real(self, data)

        monkeypatch.setattr(pathlib.Path, "write_bytes", write_bytes)

    def full_disk(path: pathlib.Path, data: bytes) -> int:
        calls.append(path)
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        return real(path, data)

    tables_written_by(full_disk)
    with pytest.raises(OSError, match="the earlier results there are untouched"):
        second.write(out)
    assert len(calls) == 2
    assert {f.name: f.read_bytes() for f in out.iterdir()} == before
    # Ctrl-C while the tables are written: the same
    calls.clear()

    def interrupted(path: pathlib.Path, data: bytes) -> int:
        raise KeyboardInterrupt

    tables_written_by(interrupted)
    with pytest.raises(KeyboardInterrupt):
        second.write(out)
    assert {f.name: f.read_bytes() for f in out.iterdir()} == before
    assert ccsim.read(out)["manifest"]["scenario"]["sim"]["duration"] == "2s"
    # killed in the middle of the swap (the staged write complete, two of its
    # files moved in): the next read finishes the swap and sees the new run
    monkeypatch.setattr(pathlib.Path, "write_bytes", real)
    real_swap = results._finish_swap
    monkeypatch.setattr(results, "_finish_swap", lambda out: None)
    second.write(out)
    stage = out / results.STAGING
    moved = [f for f in sorted(stage.iterdir()) if f.suffix == ".parquet"][:2]
    (out / "manifest.json").rename(out / ".manifest.prev.json")
    for f in moved:
        f.rename(out / f.name)
    monkeypatch.setattr(results, "_finish_swap", real_swap)
    d = ccsim.read(out)
    assert d["manifest"]["scenario"]["sim"]["duration"] == "3s"
    assert d["flows"].equals(second.flows)
    assert not stage.exists() and not (out / ".manifest.prev.json").exists()


def test_bench_refuses_zero_repeats_in_one_line() -> None:
    r = cli("bench", "--repeat", "0")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "--repeat" in r.stderr


def test_json_summary_keeps_queue_drops_and_wire_losses_apart() -> None:
    r = cli(
        "run",
        str(ROOT / "examples" / "lossy_link.toml"),
        "--set",
        "sim.duration=5s",
        "--json",
        "--out",
        "/tmp/ccsim-json-test",
    )
    d = json.loads(r.stdout)
    fwd = [l for l in d["links"] if l["name"] == "a->b"][0]
    assert fwd["losses"] > 0 and "drops" in fwd  # Bernoulli 1 % on the data direction


def test_ctrl_c_stops_a_run_at_once_with_exit_130_and_writes_nothing(tmp_path: Path) -> None:
    import signal
    import time

    long = tmp_path / "long.toml"
    long.write_text(
        '[sim]\nduration = "3000s"\nsample_interval = "1s"\n[topology]\nkind = "single_link"\n'
        'rate = "1Gbps"\ndelay = "10ms"\n[tcp]\ncc = "cubic"\n[[flows]]\ncount = 4\napp = "bulk"\n'
    )
    out = tmp_path / "o"
    p = subprocess.Popen(
        [sys.executable, "-m", "ccsim", "run", str(long), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(3.0)  # imports done, the core is simulating
    assert p.poll() is None, p.communicate()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=20)  # the run would take minutes: it must stop now
    assert p.returncode == 130, err
    line = err.strip().splitlines()[-1]
    assert "interrupted at simulated time" in line and "nothing was written" in line
    assert "Traceback" not in err
    assert not (out / "manifest.json").exists()


def test_a_folder_whose_write_was_interrupted_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "o"
    res = ccsim.load(ROOT / "examples" / "lossy_link.toml").with_overrides({"sim.duration": "2s"}).run()
    res.write(out)
    assert set(ccsim.read(out)) >= {"flows", "links", "manifest"}
    # a byte flipped on disk, the size unchanged: the manifest's SHA-256 finds it
    good = (out / "links.parquet").read_bytes()
    bad = bytearray(good)
    bad[len(bad) // 2] ^= 0xFF
    (out / "links.parquet").write_bytes(bytes(bad))
    with pytest.raises(ccsim.ScenarioError, match="links.parquet does not match the manifest"):
        ccsim.read(out)
    (out / "links.parquet").write_bytes(good)
    # a later write killed after replacing one table: old manifest, new file
    (out / "flows.parquet").write_bytes((out / "flows.parquet").read_bytes() + b"x")
    with pytest.raises(ccsim.ScenarioError, match="does not match the manifest"):
        ccsim.read(out)
    # killed before the manifest came back
    (out / "manifest.json").unlink()
    with pytest.raises(ccsim.ScenarioError, match="no manifest.json"):
        ccsim.read(out)
    r = cli("plot", str(out))
    assert r.returncode == 2 and "no manifest.json" in r.stderr


def test_a_reader_that_stops_early_is_not_an_error() -> None:
    """`ccsim list all | head -1`: the pipe closes under the CLI; it stops
    quietly (status 141, as a program killed by SIGPIPE) with nothing on
    stderr, instead of 'ccsim: error: [Errno 32] Broken pipe'. The reader is
    gone before the CLI starts, so every write fails, whatever the timing."""
    import os

    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run(
            [sys.executable, "-m", "ccsim", "list", "all"], stdout=w, stderr=subprocess.PIPE, cwd=ROOT, text=True
        )
    finally:
        os.close(w)
    assert p.stderr == ""
    assert p.returncode == 141


def test_a_folder_with_a_manifest_of_the_users_own_is_not_taken_for_results(tmp_path: Path) -> None:
    """A manifest.json ccsim did not write (no format marker, not a run's)
    makes the folder the user's: nothing in it is replaced."""
    out = tmp_path / "mine"
    out.mkdir()
    own = {"name": "my web app", "start_url": "/", "files": {"flows.parquet": 3}}
    (out / "manifest.json").write_text(json.dumps(own))
    (out / "flows.parquet").write_bytes(b"mine")
    (out / "cwnd.png").write_bytes(b"my figure")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    example = str(ROOT / "examples" / "dumbbell.toml")
    r = cli("run", example, "--set", "sim.duration=1s", "--out", str(out))
    assert r.returncode == 2 and "its manifest.json was not written by ccsim" in r.stderr, r.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    # a folder a run wrote is rewritten as before
    ours = tmp_path / "ours"
    for _ in range(2):
        r = cli("run", example, "--set", "sim.duration=1s", "--out", str(ours), "-q")
        assert r.returncode == 0, r.stderr
    assert json.loads((ours / "manifest.json").read_text())["format"] == "ccsim-run/1"
