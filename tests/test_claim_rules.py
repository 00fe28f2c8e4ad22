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


def test_iw1c_fails_when_the_rate_sets_the_flow_completion_time(monkeypatch):
    # IW1-c: the median over (algorithm, IW, RTT) cells of the FCT's spread
    # across rates is ≤ 20 %; a rate swap cannot move a spread across rates
    from ccsim.studies import initial_window

    s = initial_window.STUDY
    cells = [
        (cc, iw, rtt, rate) for cc in ("cubic", "bbr") for iw in (1, 10) for rtt in (30, 100) for rate in (10, 100)
    ]

    def table(fct):
        rows = {k: [c[i] for c in cells] for i, k in enumerate(("cc", "iw", "rtt_ms", "rate"))}
        return lambda self, data, exp: pl.DataFrame(rows | {"fct_data_s": [fct(*c) for c in cells]})

    # about two round trips whatever the rate, and a little serialisation
    monkeypatch.setattr(type(s), "fct", table(lambda cc, iw, rtt, rate: 2 * rtt / 1e3 + 0.1 / rate))
    assert s._iw1c(None).verdict == "reproduced"
    # the transfer's serialisation at the rate dominates: 10 Mb/s takes twice as long
    monkeypatch.setattr(type(s), "fct", table(lambda cc, iw, rtt, rate: 2 * rtt / 1e3 + 10 / rate))
    assert s._iw1c(None).verdict == "not reproduced"


def test_red_ecn_h_fails_when_sack_is_ahead_in_most_bins(monkeypatch):
    # h: the NewReno+ECN − SACK difference of class goodput positive in more
    # than half of the 1-s bins, over the RED variants together; the classes
    # are per-flow labels, not run parameters a swap could exchange
    from ccsim.studies import red_ecn

    s = red_ecn.STUDY

    def diffs(ahead: int):
        return lambda self, data, queue: pl.DataFrame(
            {"t_s": list(range(10)), "diff_bps": [1e4] * ahead + [-1e4] * (10 - ahead)}
        )

    monkeypatch.setattr(type(s), "class_diff", diffs(7))
    assert s._claim_h(None).verdict == "reproduced"
    monkeypatch.setattr(type(s), "class_diff", diffs(3))
    assert s._claim_h(None).verdict == "not reproduced"


def test_red_ecn_b_fails_when_the_red_variants_are_not_alike(monkeypatch):
    # b: at the smallest QL, every RED variant's GEff above DropTail's and
    # the RED variants within 0.02 of each other. At QL 4 the four
    # disciplines measure alike, so exchanging two of them changes nothing;
    # the rule is shown here on tables where the claim holds and where the
    # RED variants are 0.05 apart.
    from types import SimpleNamespace

    from ccsim.studies import red_ecn

    s = red_ecn.STUDY
    data = SimpleNamespace(plan=SimpleNamespace(qls=[4, 12, 36, 72]))

    def means(geff: dict[str, float]):
        rows = [{"queue": d, "ql": 4, "n": 2, "geff": g, "drop_pct": 1.0} for d, g in geff.items()]
        return lambda self, data: pl.DataFrame(rows)

    trace = pl.DataFrame({"time_s": [0.0, 1.0], "queue_pkts": [2, 3], "avg_queue": [0.5, 1.5]})
    monkeypatch.setattr(type(s), "queue_trace", lambda self, data, queue, ql, n: trace)
    monkeypatch.setattr(
        type(s), "sweep_means", means({"droptail": 0.80, "red": 0.85, "gentle_red": 0.86, "adaptive_red": 0.855})
    )
    assert s._claim_b(data).verdict == "reproduced"
    monkeypatch.setattr(
        type(s), "sweep_means", means({"droptail": 0.80, "red": 0.82, "gentle_red": 0.87, "adaptive_red": 0.85})
    )
    v = s._claim_b(data)
    assert v.verdict != "reproduced" and [c.ok for c in v.checks] == [True, False]


def test_each_claim_names_a_table_test_here_and_each_test_here_is_named():
    # A claim whose counterfactual is a TableTest is reported as shown to
    # fail by a test of this module: that test must exist, and each test
    # here must be the one some claim names (else the report would say
    # "none declared" for a rule that is in fact shown able to fail).
    import sys

    from ccsim import studies
    from ccsim.studies.counterfactual import TABLE_TESTS, TableTest

    assert TABLE_TESTS == "tests/" + __name__.rsplit(".", 1)[-1] + ".py"
    named = [
        t.test
        for n in studies.names()
        for c in studies.get(n).claims()
        for t in c.counterfactual
        if isinstance(t, TableTest)
    ]
    here = {n for n in dir(sys.modules[__name__]) if n.startswith("test_") and "_fails_" in n}
    assert len(named) == len(set(named)) and set(named) == here, (sorted(named), sorted(here))
