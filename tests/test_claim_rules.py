"""Rules that no exchange of run parameters can falsify (a threshold on
every point, an equality that reads the same either way round, two
estimates from one run), each run on a table where its claim holds and on
one where it is false: it must fail there (the study kit's counterfactual
habit, studies/counterfactual.py, for the rules a `Swap` cannot reach)."""

from __future__ import annotations

import polars as pl
from ccsim.studies import asymmetric, westwood
from ccsim.studies.westwood.scenarios import PAYLOAD_SHARE


def test_w1a_fails_when_one_variant_falls_below_the_threshold(monkeypatch):
    # W1a: every variant's goodput with reverse traffic OFF ≥ 85 % of the
    # 2 Mb/s link's payload rate
    w = westwood.STUDY
    full = 0.95 * 2e6 * PAYLOAD_SHARE
    variants = ("newreno", "westwoodplus", "vegas", "reno")

    def means(off: dict[str, float]):
        return lambda data, exp="w1": {(v, q): off.get(v, full) for v in variants for q in ("off", "on")}

    monkeypatch.setattr(type(w), "_w1_means", staticmethod(means({})))
    assert w._w1a(None).verdict == "reproduced"
    monkeypatch.setattr(type(w), "_w1_means", staticmethod(means({"vegas": 0.80 * 2e6 * PAYLOAD_SHARE})))
    v = w._w1a(None)
    assert v.verdict != "reproduced" and [c.ok for c in v.checks] == [True, True, False, True]


def test_w6b_fails_when_cwnd_over_rtt_is_the_closer_or_steadier_estimate(monkeypatch):
    # W6b: the Westwood+ estimate is closer to the payload rate and steadier
    # than the filtered cwnd/RTT
    w = westwood.STUDY
    avail = 1e6 * PAYLOAD_SHARE
    t = [10.5 + 0.5 * i for i in range(40)]

    def series(bwe, cwnd_rtt):
        return lambda data: pl.DataFrame({"time_s": t, "bwe_bps": bwe, "cwnd_rtt_bps": cwnd_rtt})

    steady = [avail * (1 + 0.02 * (-1) ** i) for i in range(40)]
    wild = [avail * (1.3 + 0.3 * (-1) ** i) for i in range(40)]
    monkeypatch.setattr(type(w), "w6_single_series", staticmethod(series(steady, wild)))
    assert w._w6b(None).verdict == "reproduced"
    monkeypatch.setattr(type(w), "w6_single_series", staticmethod(series(wild, steady)))
    v = w._w6b(None)
    assert v.verdict == "not reproduced" and not any(c.ok for c in v.checks)


def test_a3_fwd_fails_when_the_forward_loss_rates_differ(monkeypatch):
    # A3-fwd: forward loss rates of NewReno and SACK within 10 % of their mean
    a = asymmetric.STUDY

    def losses(nr, sack):
        rows = {"variant": ["newreno", "sack_plain_sink", "sack"], "fwd": [nr, sack, sack], "rev": [0.01] * 3}
        return lambda data: pl.DataFrame(rows)

    monkeypatch.setattr(type(a), "_loss_means", staticmethod(losses(0.0100, 0.0105)))
    assert a._a3_fwd(None).verdict == "reproduced"
    monkeypatch.setattr(type(a), "_loss_means", staticmethod(losses(0.0100, 0.0130)))
    assert a._a3_fwd(None).verdict == "not reproduced"
