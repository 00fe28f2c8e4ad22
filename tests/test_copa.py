"""Copa (Arun & Balakrishnan, NSDI 2018) through whole scenarios: its
equilibrium queue of about 1/δ packets alone on a link, and its competitive
mode beside CUBIC."""

from __future__ import annotations

from pathlib import Path

import ccsim
import polars as pl
from ccsim import Builder
from ccsim.studies.base import num


def _alone(delayed_ack: bool) -> ccsim.Result:
    return (
        Builder(duration="30s", seed=1, sample_interval="10ms", trace=["cc"])
        .single_link(rate="20Mbps", delay="20ms", buffer="2bdp")
        .tcp(cc="copa", delayed_ack=delayed_ack)
        .flows(count=1, app="bulk")
        .build()
        .run()
    )


def test_copa_alone_keeps_about_one_over_delta_packets_queued_and_fills_the_link() -> None:
    # At equilibrium the rate C equals the target 1/(δ·d_q), so the queue
    # C·d_q is 1/δ = 2 packets (δ = 0.5), about which the window oscillates
    # (§2.3). Band: mean between 0.5/δ and 4/δ. The receiver ACKs every
    # segment, as the authors' (genericCC) receiver does.
    res = _alone(delayed_ack=False)
    link = res.links.filter(pl.col("name") == "a->b").row(0, named=True)
    assert link["utilization"] >= 0.90 and link["drops"] == 0
    q = res.link_series.filter((pl.col("link") == link["id"]) & (pl.col("time_s") > 5))["queue_pkts"]
    assert 1.0 <= num(q.mean()) <= 8.0, q.mean()
    modes = res.table("cc_state").filter(pl.col("time_s") > 5)["mode"]
    assert num((modes == "default").mean()) >= 0.9, "alone, the queue empties and Copa stays in default mode"


def test_copa_switches_to_competitive_mode_beside_cubic_and_holds_its_share() -> None:
    # Beside a loss-based flow the queue never empties, so Copa moves to
    # competitive mode (AIMD on 1/δ) and keeps a share of the link; with δ
    # fixed (preset default_only) a delay-based flow yields to CUBIC (§2.2,
    # §5). Band: Copa's share between 1/4 and 3/4.
    def share(preset: str | None) -> tuple[float, float]:
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
        return gp[1] / sum(gp), num((modes == "competitive").mean())

    s, competitive = share(None)
    assert competitive >= 0.8, competitive
    assert 0.25 <= s <= 0.75, s
    s_fixed, competitive_fixed = share("default_only")
    assert competitive_fixed == 0.0
    assert s_fixed < s / 2, (s_fixed, s)


def test_the_cc_buffer_sweep_example_shows_what_its_header_says(tmp_path: Path) -> None:
    """examples/sweep_cc_buffers.toml's comment describes its results; the
    run keeps it true: CUBIC's RTT grows with the buffer, Copa's stays within
    10 % of the 40 ms base RTT, BBR v1 retransmits more than CUBIC in the
    shallow buffers and queues more than a BDP in the deep one, BBRv3
    retransmits a fifth of v1's or less in the shallow buffers and still
    queues more than a BDP in the deep one."""
    import subprocess
    import sys
    from pathlib import Path

    import ccsim

    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "c"
    r = subprocess.run(
        [sys.executable, "-m", "ccsim", "sweep", str(root / "examples" / "sweep_cc_buffers.toml"), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    q = ccsim.open_campaign(out).query(
        'SELECT "tcp.cc" AS cc, "topology.buffer" AS buf, avg(rtt_mean_s) AS rtt, sum(retransmits) AS retx '
        "FROM flows GROUP BY ALL"
    )
    v = {(row["cc"], row["buf"]): row for row in q.iter_rows(named=True)}
    cubic = [v[("cubic", b)]["rtt"] for b in ("0.5bdp", "1bdp", "4bdp")]
    assert cubic == sorted(cubic) and cubic[2] > 0.12
    assert all(v[("copa", b)]["rtt"] < 0.044 for b in ("0.5bdp", "1bdp", "4bdp"))
    assert all(v[("bbr", b)]["retx"] > 10 * v[("cubic", b)]["retx"] for b in ("0.5bdp", "1bdp"))
    assert v[("bbr", "4bdp")]["rtt"] > 0.080  # more than a BDP (40 ms) queued
    assert all(5 * v[("bbr3", b)]["retx"] < v[("bbr", b)]["retx"] for b in ("0.5bdp", "1bdp"))
    assert v[("bbr3", "4bdp")]["rtt"] > 0.080
