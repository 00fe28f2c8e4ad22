"""Copa (Arun & Balakrishnan, NSDI 2018) through whole scenarios: its
equilibrium queue of about 1/δ packets alone on a link, and its competitive
mode beside CUBIC."""

from __future__ import annotations

import polars as pl
from ccsim import Builder


def _alone(delayed_ack: bool):
    return (
        Builder(duration="30s", seed=1, sample_interval="10ms", trace=["cc"])
        .single_link(rate="20Mbps", delay="20ms", buffer="2bdp")
        .tcp(cc="copa", delayed_ack=delayed_ack)
        .flows(count=1, app="bulk")
        .build()
        .run()
    )


def test_copa_alone_keeps_about_one_over_delta_packets_queued_and_fills_the_link():
    # At equilibrium the rate C equals the target 1/(δ·d_q), so the queue
    # C·d_q is 1/δ = 2 packets (δ = 0.5), about which the window oscillates
    # (§2.3). Band: mean between 0.5/δ and 4/δ. The receiver ACKs every
    # segment, as the authors' (genericCC) receiver does.
    res = _alone(delayed_ack=False)
    link = res.links.filter(pl.col("name") == "a->b").row(0, named=True)
    assert link["utilization"] >= 0.90 and link["drops"] == 0
    q = res.link_series.filter((pl.col("link") == link["id"]) & (pl.col("time_s") > 5))["queue_pkts"]
    assert 1.0 <= q.mean() <= 8.0, q.mean()
    modes = res.table("cc_state").filter(pl.col("time_s") > 5)["mode"]
    assert (modes == "default").mean() >= 0.9, "alone, the queue empties and Copa stays in default mode"


def test_copa_switches_to_competitive_mode_beside_cubic_and_holds_its_share():
    # Beside a loss-based flow the queue never empties, so Copa moves to
    # competitive mode (AIMD on 1/δ) and keeps a share of the link; with δ
    # fixed (preset default_only) a delay-based flow yields to CUBIC (§2.2,
    # §5). Band: Copa's share between 1/4 and 3/4.
    def share(preset):
        t = {"cc": "copa"} | ({"cc_preset": preset} if preset else {})
        res = (
            Builder(duration="60s", seed=1, sample_interval="100ms", trace=["cc"])
            .dumbbell(
                bottleneck_rate="20Mbps", bottleneck_delay="8ms", access_rate="1Gbps", access_delay="1ms", buffer="2bdp"
            )
            .flows(count=1, app="bulk", cc="cubic")
            .flows(count=1, app="bulk", **t)
            .build()
            .run()
        )
        gp = res.flows.sort("id")["goodput_bps"].to_list()
        modes = res.table("cc_state").filter((pl.col("flow") == 1) & (pl.col("time_s") > 10))["mode"]
        return gp[1] / sum(gp), float((modes == "competitive").mean())

    s, competitive = share(None)
    assert competitive >= 0.8, competitive
    assert 0.25 <= s <= 0.75, s
    s_fixed, competitive_fixed = share("default_only")
    assert competitive_fixed == 0.0
    assert s_fixed < s / 2, (s_fixed, s)
