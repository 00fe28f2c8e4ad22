"""What a researcher's first day with ccsim met, each fixed with a test that
failed before: per-link tables name their links, results follow the sweep's
order, figures label what they show in the user's words."""

from __future__ import annotations

import io

import ccsim
import polars as pl
import pytest
from ccsim.experiments.aggregate import plot_sweep
from ccsim.experiments.worker import encode_tables
from helpers import TINY


def test_link_series_names_its_links_as_the_links_table_does():
    res = ccsim.Scenario(TINY).run()
    ls, links = res.link_series, res.links
    assert ls.columns[:3] == ["time_s", "link", "link_name"]
    names = dict(zip(links["id"].to_list(), links["name"].to_list()))
    assert all(names[i] == n for i, n in ls.select("link", "link_name").unique().iter_rows())
    # the stored table (a sweep's Parquet file) carries it too
    stored = pl.read_parquet(io.BytesIO(encode_tables(res.raw["tables"])["link_series"]))
    assert stored["link_name"].to_list() == ls["link_name"].to_list()


def _labels(fig) -> tuple[str, str, list[str]]:
    ax = fig.axes[0]
    return ax.get_xlabel(), ax.get_ylabel(), [t.get_text() for t in ax.get_xticklabels()]


def test_plot_sweep_keeps_the_sweeps_order_and_takes_labels():
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


def test_aggregate_and_a_sweep_figure_follow_the_sweep(tmp_path):
    sw = ccsim.Sweep(TINY, grid={"topology.buffer": ["2bdp", "0.5bdp", "1bdp"]}, seeds=2)
    ccsim.run_sweep(sw, tmp_path / "c", executor="serial")
    c = ccsim.open_campaign(tmp_path / "c")
    pr = c.per_run("flows.goodput_bps", "mean")
    agg = ccsim.aggregate(pr, by=["topology.buffer"], metrics=["flows.goodput_bps"])
    assert agg["topology.buffer"].to_list() == ["2bdp", "0.5bdp", "1bdp"]
    fig = plot_sweep(pr, "topology.buffer", "flows.goodput_bps", reduce="mean")
    assert [t.get_text().split("\n")[0] for t in fig.axes[0].get_xticklabels()] == ["2bdp", "0.5bdp", "1bdp"]


@pytest.mark.parametrize("col", ["ccsim_own", "my_metric"])
def test_a_bare_column_is_labelled_with_its_name(col):
    from ccsim.experiments.aggregate import describe_metric

    assert describe_metric(col)["label"] == col
