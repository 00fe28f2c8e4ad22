"""What a researcher's first day with ccsim met, each fixed with a test that
failed before: per-link tables name their links, results follow the sweep's
order, figures label what they show in the user's words."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path
from typing import Any

import ccsim
import polars as pl
import pytest
from ccsim.analysis.results import encode_tables
from ccsim.experiments.aggregate import plot_sweep
from ccsim.studies.base import num
from helpers import TINY, dumbbell_raw
from matplotlib.figure import Figure as MplFigure
from pytest import MonkeyPatch


def test_link_series_names_its_links_as_the_links_table_does() -> None:
    res = ccsim.Scenario(TINY).run()
    ls, links = res.link_series, res.links
    assert ls.columns[:3] == ["time_s", "link", "link_name"]
    names = dict(zip(links["id"].to_list(), links["name"].to_list()))
    assert all(names[i] == n for i, n in ls.select("link", "link_name").unique().iter_rows())
    # the stored table (a sweep's Parquet file) carries it too
    stored = pl.read_parquet(io.BytesIO(encode_tables(res.raw["tables"])["link_series"]))
    assert stored["link_name"].to_list() == ls["link_name"].to_list()


def _labels(fig: MplFigure) -> tuple[str, str, list[str]]:
    ax = fig.axes[0]
    return ax.get_xlabel(), ax.get_ylabel(), [t.get_text() for t in ax.get_xticklabels()]


def test_plot_sweep_keeps_the_sweeps_order_and_takes_labels() -> None:
    # a user's own frame: categorical x in the order given, a column with no table prefix
    frame = pl.DataFrame(
        {
            "buffer": ["2bdp", "2bdp", "0.5bdp", "0.5bdp", "1bdp", "1bdp"],
            "qdelay_ms": [30.0, 31.0, 5.0, 6.0, 14.0, 15.0],
        }
    )
    fig = plot_sweep(frame, "buffer", "qdelay_ms")
    xl, yl, ticks = _labels(fig)
    assert ticks == ["2bdp", "0.5bdp", "1bdp"] and xl == "buffer" and yl == "qdelay_ms"
    assert "(qdelay_ms)" not in fig.axes[0].get_title()
    fig = plot_sweep(frame, "buffer", "qdelay_ms", xlabel="buffer (BDPs)", ylabel="queueing delay, ms")
    xl, yl, _ = _labels(fig)
    assert (xl, yl) == ("buffer (BDPs)", "queueing delay, ms")
    assert "queueing delay, ms against buffer (BDPs)" in fig.axes[0].get_title()
    # a user's column takes no bound: a negative mean and its CI are drawn as they are
    neg = pl.DataFrame({"x": [1, 1, 2, 2], "gain": [-3.0, -2.0, 1.0, 2.0]})
    fig = plot_sweep(neg, "x", "gain")
    assert "clipped" not in fig.axes[0].get_title()


def test_plot_sweep_into_a_subfigures_axes_lays_out_and_saves_the_whole_figure(tmp_path: Path) -> None:
    # a user's own layout: the sweep drawn into one panel of a subfigure; the
    # returned figure is the one that lays out and saves (a SubFigure does neither)
    frame = pl.DataFrame({"x": [1, 1, 2, 2], "y": [1.0, 2.0, 3.0, 4.0]})
    root = MplFigure()
    left = root.subfigures(1, 2, squeeze=False)[0, 0]
    ax = left.subplots()
    fig = plot_sweep(frame, "x", "y", ax=ax, out=tmp_path / "panel.png")
    assert fig is root and (tmp_path / "panel.png").stat().st_size > 0
    assert ax.get_title()


def test_aggregate_and_a_sweep_figure_follow_the_sweep(tmp_path: Path) -> None:
    sw = ccsim.Sweep(TINY, grid={"topology.buffer": ["2bdp", "0.5bdp", "1bdp"]}, seeds=2)
    ccsim.run_sweep(sw, tmp_path / "c", executor="serial")
    c = ccsim.open_campaign(tmp_path / "c")
    pr = c.per_run("flows.goodput_bps", "mean")
    agg = ccsim.aggregate(pr, by=["topology.buffer"], metrics=["flows.goodput_bps"])
    assert agg["topology.buffer"].to_list() == ["2bdp", "0.5bdp", "1bdp"]
    fig = plot_sweep(pr, "topology.buffer", "flows.goodput_bps", reduce="mean")
    assert [t.get_text().split("\n")[0] for t in fig.axes[0].get_xticklabels()] == ["2bdp", "0.5bdp", "1bdp"]


@pytest.mark.parametrize("col", ["ccsim_own", "my_metric"])
def test_a_bare_column_is_labelled_with_its_name(col: str) -> None:
    from ccsim.experiments.aggregate import describe_metric

    assert describe_metric(col)["label"] == col


def _cc_campaign(tmp_path: Path) -> Path:
    start = {"dist": "uniform", "min": "0s", "max": "1s"}
    raw = dumbbell_raw("4s", "20Mbps", "20ms", flows=[{"count": 2, "start": start}], buffer="2bdp")
    sw = ccsim.Sweep(raw, grid={"tcp.cc": ["cubic", "bbr", "vegas"]}, seeds=3)
    ccsim.run_sweep(sw, tmp_path / "c", executor="serial")
    return tmp_path / "c"


def test_throughput_delay_figure_from_python(tmp_path: Path) -> None:
    out = _cc_campaign(tmp_path)
    frame = ccsim.tput_delay_frame(out, "tcp.cc")
    # one row per run: the mean over the run's flows of each flow's goodput and p95 delay
    flows = ccsim.open_campaign(out).table("flows")
    want = flows.group_by("run_id").agg(pl.col("goodput_bps").mean(), pl.col("owd_p95_s").mean())
    got = frame.join(want, on="run_id")
    assert got.height == 9
    assert num((got["flows.goodput_bps"] - got["goodput_bps"]).abs().max()) < 1e-6
    assert num((got["flows.owd_p95_s"] - got["owd_p95_s"]).abs().max()) < 1e-12
    fig = ccsim.plot_tput_delay(out, hue="tcp.cc", out=tmp_path / "td.png")
    ax = fig.axes[0]
    lo, hi = ax.get_xlim()
    assert lo > hi, "the delay axis is inverted"
    assert ax.get_xlabel() == "95th percentile one-way delay, ms"
    assert ax.get_ylabel() == "mean throughput per flow, Mb/s"
    legend = ax.get_legend()
    assert legend is not None
    assert [t.get_text() for t in legend.get_texts()] == ["cubic (n = 3)", "bbr (n = 3)", "vegas (n = 3)"]
    assert (tmp_path / "td.png").stat().st_size > 10_000
    with pytest.raises(ccsim.ScenarioError, match="did you mean 'qdelay_p95_s'"):
        ccsim.tput_delay_frame(out, "tcp.cc", delay="qdelay_p95")


def test_throughput_delay_figure_from_the_cli(tmp_path: Path) -> None:
    import subprocess
    import sys

    out = _cc_campaign(tmp_path)
    r = subprocess.run(
        [sys.executable, "-m", "ccsim", "plot-sweep", str(out), "--kind", "tput-delay", "--delay", "qdelay_p95_s"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert (
        r.stdout.strip().endswith("tput_vs_qdelay_p95_s_by_tcp.cc.png")
        and (out / "tput_vs_qdelay_p95_s_by_tcp.cc.png").exists()
    )
    r = subprocess.run(
        [sys.executable, "-m", "ccsim", "plot-sweep", str(out), "--x", "tcp.cc"], capture_output=True, text=True
    )
    assert r.returncode == 2 and "--y: needed by --kind line" in r.stderr


# ----------------------------------------------------------------- the CLI


def _cli(*args: Any, cwd: str | Path | None = None) -> subprocess.CompletedProcess[str]:
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "ccsim", *args], capture_output=True, text=True, cwd=cwd)


def _file_scenario(tmp_path: Path) -> Path:
    raw = dumbbell_raw("3s", tcp={"handshake": True}, flows=[{"count": 2, "app": "file", "size": "300KB"}])
    p = tmp_path / "sc.toml"
    ccsim.dump(ccsim.Scenario(raw), p)
    return p


def test_run_quiet_prints_nothing_and_still_writes(tmp_path: Path) -> None:
    sc = _file_scenario(tmp_path)
    r = _cli("run", str(sc), "--quiet", "--no-plots", "--out", str(tmp_path / "o"))
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""
    assert (tmp_path / "o" / "flows.parquet").exists()


@pytest.mark.parametrize(
    "args, hint",
    [
        (["run", "SC", "--quiett"], "unrecognized arguments: --quiett (did you mean '--quiet'?)"),
        (["sweep", "SC", "--dryrun"], "(did you mean '--dry-run'?)"),
        (["runn", "SC"], "invalid choice: 'runn'"),
        (["list", "topo"], "(did you mean 'topology'?)"),
        (["run", "SC", "--no-write", "--pcap", "botleneck"], "--pcap: got 'botleneck'"),
    ],
)
def test_mistyped_flags_commands_and_link_names_get_one_suggestion(tmp_path: Path, args: list[Any], hint: str) -> None:
    sc = str(_file_scenario(tmp_path))
    r = _cli(*[sc if a == "SC" else a for a in args])
    assert r.returncode == 2 and hint in r.stderr, r.stderr
    assert r.stderr.count("did you mean") == 1 and " or '" not in r.stderr.split("did you mean")[1]


def _pcap_records(path: Path) -> list[tuple[float, Any]]:
    import dpkt

    with open(path, "rb") as f:
        return [(float(ts), dpkt.ip.IP(buf)) for ts, buf in dpkt.pcap.Reader(f)]


def test_pcap_pair_has_both_directions_and_the_fins(tmp_path: Path) -> None:
    sc = _file_scenario(tmp_path)
    out = tmp_path / "o"
    r = _cli("run", str(sc), "--pcap", "r0-r1", "--no-plots", "--quiet", "--out", str(out))
    assert r.returncode == 0, r.stderr
    fwd, rev, both = (_pcap_records(out / n) for n in ("r0-r1.pcap", "r1-r0.pcap", "r0-r1.both.pcap"))
    # the pair file is the two directions merged in time order
    assert len(both) == len(fwd) + len(rev) > 400
    times = [t for t, _ in both]
    assert times == sorted(times)
    assert sorted(ip.src for _, ip in both) == sorted([ip.src for _, ip in fwd] + [ip.src for _, ip in rev])
    # 300,000 bytes in 1448-byte segments: the 208th (bytes 299,736 on) carries FIN,
    # and each receiver acknowledges 300,000 bytes plus the FIN
    fins = [ip for _, ip in fwd if ip.data.flags & 0x01]
    assert len(fins) == 2 and all(ip.data.seq == 207 * 1448 and ip.len - 52 == 300_000 - 207 * 1448 for ip in fins)
    fin_acks = {ip.data.dport for _, ip in rev if ip.data.ack == 300_001}
    assert fin_acks == {10000, 10001}
    # no FIN on a bulk flow, which never ends
    bulk = ccsim.Scenario(ccsim.load(sc).raw | {"flows": [{"count": 1}]})
    res = bulk.with_overrides({"sim.pcap": ["r0-r1"]}).run()
    res.write(tmp_path / "b")
    assert not [ip for _, ip in _pcap_records(tmp_path / "b" / "r0-r1.pcap") if ip.data.flags & 0x01]


def test_the_notebook_target_brings_a_pinned_kernel_and_pandas() -> None:
    import re
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    lock = (root / "requirements" / "notebook.lock").read_text()
    pins = dict(re.findall(r"^([a-z0-9_.-]+)==([^ \\\n]+)", lock, re.M))
    for pkg in ("ipykernel", "jupyterlab", "pandas", "polars", "numpy"):
        assert pkg in pins, pkg
    # every package pinned with its hashes (pip --require-hashes refuses otherwise)
    blocks = [b for b in re.split(r"\n(?=[a-z0-9_.-]+==)", lock) if "==" in b]
    assert len(blocks) == len(pins) and all("--hash=sha256:" in b for b in blocks)
    # the runtime packages are the ones run.lock pins
    run = dict(re.findall(r"^([a-z0-9_.-]+)==([^ \\\n]+)", (root / "requirements" / "run.lock").read_text(), re.M))
    for pkg in ("numpy", "polars", "matplotlib", "duckdb", "pyarrow"):
        assert pins[pkg] == run[pkg], pkg
    plan = subprocess.run(["make", "-n", "-B", "notebook"], cwd=root, capture_output=True, text=True).stdout
    assert "notebook.lock" in plan and "ipykernel install" in plan and "--name ccsim" in plan


def test_a_legend_names_a_flow_once_when_its_label_is_its_algorithm() -> None:
    from ccsim.analysis.plot import flow_names

    flows = pl.DataFrame({"id": [0, 1, 2], "cc": ["cubic", "bbr3", "cubic"], "label": ["cubic", "group1", "web"]})
    assert flow_names(flows) == {0: "flow 0 · cubic", 1: "flow 1 · bbr3", 2: "flow 2 · cubic · web"}


def test_every_figure_of_a_run_and_a_sweep_labels_both_axes(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    from ccsim.analysis.plot import plot_dir
    from helpers import check_labels_on_save

    missing = check_labels_on_save(monkeypatch)
    res = ccsim.Scenario(TINY).run()
    res.write(tmp_path / "r")
    assert len(plot_dir(tmp_path / "r", ("png",))) == 4
    out = _cc_campaign(tmp_path)
    plot_sweep(
        ccsim.open_campaign(out).per_run("flows.goodput_bps", "jain"),
        "tcp.cc",
        "jain(flows.goodput_bps)",
        out=tmp_path / "s.png",
    )
    ccsim.plot_tput_delay(out, out=tmp_path / "t.png")
    assert missing == [], missing


def test_flags_of_one_figure_kind_are_refused_with_the_other(tmp_path: Path) -> None:
    out = _cc_campaign(tmp_path)
    for args, flag in (
        (["--kind", "tput-delay", "--reduce", "jain"], "--reduce"),
        (["--kind", "tput-delay", "--ylabel", "x"], "--ylabel"),
        (["--x", "tcp.cc", "--y", "flows.goodput_bps", "--delay", "qdelay_p95_s"], "--delay"),
    ):
        r = _cli("plot-sweep", str(out), *args)
        assert r.returncode == 2 and f"{flag}: " in r.stderr, (args, r.stderr)


def test_a_first_rate_is_not_given_beside_a_drawn_one() -> None:
    from ccsim.gym import CongestionControlEnv

    with pytest.raises(ccsim.ScenarioError, match="initial_rate: randomize_link draws the first rate"):
        CongestionControlEnv(randomize_link=True, initial_rate="5Mbps")
