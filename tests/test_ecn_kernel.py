"""ECN reductions on the linux stack against the running kernel's TCP.

Linux 6.x answers an ECN-Echo by entering CWR (`tcp_enter_cwr` →
`tcp_init_cwnd_reduction`), brings cwnd down by PRR over the round
(`tcp_cwnd_reduction`; nothing grows it meanwhile), sets cwnd = ssthresh
once snd_una is past high_seq (`tcp_end_cwnd_reduction`) and, when the ACK
that ends CWR still carries ECE, starts the next reduction at once
(`tcp_try_to_open` → `tcp_enter_cwr`). The CWR machinery is the same for
every algorithm; this kernel offers Reno and CUBIC with ECN (no DCTCP), so
they are the reference.

The expected values are the kernel's, measured with `ccsim compare` on
this project's machine (Linux 6.18, 2 vCPUs; the scenarios below as TOML,
`-n 3` and single runs, five kernel runs of the first and three of the
second, their spread quoted). The live test at the end repeats a short
version through the kernel itself where the emulation backend is
available (root and /dev/net/tun: CI has both).
"""

from __future__ import annotations

from typing import Any

import ccsim
import polars as pl
import pytest
from ccsim.emulation import available, emulate
from ccsim.studies.base import num
from helpers import single_link

WHY = available()
needs_emu = pytest.mark.skipif(WHY is not None, reason=f"emulation unavailable: {WHY}")


def _reno_ecn(duration: str = "20s") -> ccsim.Scenario:
    # One Reno flow with ECN, 10 Mb/s, 40 ms RTT (BDP 33 packets), a
    # step-marking queue at 20 packets (RED with min_th = max_th, w_q = 1).
    return single_link(
        duration=duration,
        rate="10Mbps",
        delay="20ms",
        buffer="200pkt",
        queue={"kind": "red", "min_th": 20, "max_th": 20, "w_q": 1, "ecn": True},
        sample_interval="2ms",
        tcp=dict(cc="reno", ecn=True, handshake=True),
    )


def _steady(series: pl.DataFrame) -> pl.DataFrame:
    return series.filter(pl.col("time_s") > 2)


def test_reno_ecn_reduces_in_two_rounds_with_the_kernels_window() -> None:
    # The kernel (5 runs): cwnd rises to 56–57, falls by PRR to ssthresh
    # 28 over one round, and the ACK ending CWR carries ECE, so a second
    # reduction takes it to 14 (13 in some episodes); mean cwnd after 2 s
    # 36.51–36.67 segments, goodput 8.146–8.181 Mb/s, 4.9 % of the samples
    # in CWR. A sender that cuts at once and grows inside the round (this
    # model before MODEL_VERSION 17) stays at ssthresh 28: mean cwnd 43.3,
    # 9.36 Mb/s.
    r = _reno_ecn().run()
    s = _steady(r.flow_series)
    ssthresh = {int(x) for x in s.filter(pl.col("ssthresh") < 1e9)["ssthresh"]}
    assert {14, 28} <= ssthresh <= {13, 14, 28}, ssthresh
    assert s["cwnd"].mean() == pytest.approx(36.6, abs=0.8)
    assert s["cwnd"].min() in (13, 14)
    assert r.flows["goodput_bps"][0] / 1e6 == pytest.approx(8.16, rel=0.03)
    in_cwr = num((s["ca_state"] != 0).mean())
    assert 0.035 <= in_cwr <= 0.065, in_cwr
    # While in CWR the window never grows (tcp_cong_control runs only
    # tcp_cwnd_reduction there).
    cwr = s.with_columns(pl.col("cwnd").diff().alias("d"), pl.col("ca_state").shift(1).alias("prev"))
    assert num(cwr.filter((pl.col("ca_state") == 1) & (pl.col("prev") == 1))["d"].max()) <= 0


def test_slow_starts_exit_reduces_three_times_as_the_kernel_does() -> None:
    # The kernel, in every one of its 5 runs of this scenario: slow start
    # ends at cwnd 110 and CWR follows CWR while the ACKs ending each carry
    # ECE: ssthresh 55, 27, then 13, before the sawtooth's 28 and 14. Under
    # MODEL_VERSION 18 (the receiver's RTT taken from the sender) ccsim
    # reduced twice (55, 27, then 28).
    r = _reno_ecn("3s").run()
    seen: list[int] = []
    for x in r.flow_series.filter(pl.col("ssthresh") < 1e9)["ssthresh"]:
        if not seen or seen[-1] != int(x):
            seen.append(int(x))
    assert seen[:3] == [55, 27, 13], seen


def test_gentle_red_with_ecn_marks_as_often_as_under_the_kernel() -> None:
    # Four CUBIC flows with ECN through gentle RED (min_th 5, max_th 15),
    # 10 Mb/s, 40 ms, 30 s. The kernel, seeds 1–3 on 2026-11-28 with every
    # run within the emulation envelope: 348, 318, 319 marks and 210, 167,
    # 153 drops (each drop one retransmission). The simulator's marks and
    # drops must lie within 5 % and 10 % of the kernel's ranges (309–320
    # marks and 142–183 drops over seeds 1–3 under MODEL_VERSION 19, 311–314
    # and 142–184 under 18; 363–371 marks before MODEL_VERSION 17).
    r = single_link(
        duration="30s",
        rate="10Mbps",
        delay="20ms",
        buffer="200pkt",
        queue={"kind": "gentle_red", "min_th": 5, "max_th": 15, "ecn": True},
        sample_interval="1s",
        tcp=dict(ecn=True, handshake=True),
        flows=[{"count": 4}],
    ).run()
    link = r.links.row(0, named=True)
    assert 318 * 0.95 <= link["marks"] <= 348 * 1.05, link
    assert 153 * 0.9 <= link["drops"] <= 210 * 1.1, link


def _steady_cycles(series: pl.DataFrame) -> dict[str, Any]:
    # The sawtooth after slow start: a cycle runs from one CWR episode's
    # start (ca_state leaving 0) to the next, counted from the second
    # episode (the first is slow start's exit). Mean cwnd over whole cycles
    # does not depend on where the run's end cuts the last one.
    t = series["time_s"].to_list()
    st = series["ca_state"].to_list()
    starts = [t[i] for i in range(1, len(st)) if st[i] != 0 and st[i - 1] == 0][1:]
    assert len(starts) >= 4, starts
    whole = series.filter((pl.col("time_s") >= starts[0]) & (pl.col("time_s") < starts[-1]))
    return {
        "cycles": len(starts) - 1,
        "period_s": (starts[-1] - starts[0]) / (len(starts) - 1),
        "mean_cwnd": whole["cwnd"].mean(),
        "min_ssthresh": int(num(whole.filter(pl.col("ssthresh") < 1e9)["ssthresh"].min())),
        "cwr_codes": set(whole["ca_state"].unique().to_list()),
    }


@needs_emu
def test_the_kernel_and_the_model_reduce_alike_live() -> None:
    # 12 s of the Reno scenario through both. On this project's machine the
    # kernel's steady cycles last 2.222-2.226 s with mean cwnd 36.46-36.56
    # (two runs) and the model's 2.224 s and 36.59: each CWR episode ends in
    # a second reduction (ssthresh 14 or 13) in both, and both write CWR as
    # ca_state 1. Period and mean must agree within 5 %. Slow start's exit
    # differs and is left out: the kernel makes three reductions there
    # (110 -> 55 -> 27 -> 13) and the model two (110 -> 55 -> 27), so the
    # model's first cycle ends 0.65 s earlier (docs/model.md, ECN row: the
    # kernel's CWR segment is CE-marked there, the model's is not). A
    # window fixed in time (as this test had
    # before) mixes that phase shift into the mean. A run outside the
    # emulation envelope (this VM stalled) is tried again, up to three
    # times, and none inside it is no reference: the test skips, saying so.
    sc = _reno_ecn("12s")
    sim = _steady_cycles(sc.run().flow_series)
    for _ in range(3):
        emu = emulate(sc)
        if emu.emulation["within_envelope"]:
            break
    else:
        pytest.skip(f"three kernel runs outside the emulation envelope: {emu.emulation}")
    k = _steady_cycles(emu.flow_series)
    why = (sim, k, emu.emulation["kernel"])
    assert sim["min_ssthresh"] <= 14 and k["min_ssthresh"] <= 14, why
    assert sim["cwr_codes"] == k["cwr_codes"] == {0, 1}, why
    assert sim["period_s"] == pytest.approx(k["period_s"], rel=0.05), why
    assert sim["mean_cwnd"] == pytest.approx(k["mean_cwnd"], rel=0.05), why
