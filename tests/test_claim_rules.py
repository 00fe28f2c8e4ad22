"""Rules that no exchange of run parameters can falsify (a threshold on
every point, an equality that reads the same either way round, two
estimates from one run), or whose runs leave no exchange able to move them
(identical runs, values far outside the band either way round), each run on a table where its claim holds and on
one where it is false: it must fail there (the study kit's counterfactual
habit, studies/counterfactual.py, for the rules a `Swap` cannot reach)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
from ccsim.studies import asymmetric, westwood
from ccsim.studies.base import StudyData
from ccsim.studies.westwood.scenarios import PAYLOAD_SHARE
from helpers import stand_in
from pytest import MonkeyPatch


def test_w1a_fails_when_one_variant_falls_below_the_threshold(monkeypatch: MonkeyPatch) -> None:
    # W1a: every variant's goodput with reverse traffic OFF ≥ 85 % of the
    # 2 Mb/s link's payload rate
    w = westwood.STUDY
    full = 0.95 * 2e6 * PAYLOAD_SHARE
    variants = ("newreno", "westwoodplus", "vegas", "reno")

    def means(off: dict[str, float]) -> Callable[..., Any]:
        return lambda data, exp="w1": {(v, q): off.get(v, full) for v in variants for q in ("off", "on")}

    monkeypatch.setattr(type(w), "_w1_means", staticmethod(means({})))
    assert w._w1a(stand_in()).verdict == "reproduced"
    monkeypatch.setattr(type(w), "_w1_means", staticmethod(means({"vegas": 0.80 * 2e6 * PAYLOAD_SHARE})))
    v = w._w1a(stand_in())
    assert v.verdict != "reproduced" and [c.ok for c in v.checks] == [True, True, False, True]


def test_w6b_fails_when_cwnd_over_rtt_is_the_closer_or_steadier_estimate(monkeypatch: MonkeyPatch) -> None:
    # W6b: the Westwood+ estimate is closer to the payload rate and steadier
    # than the filtered cwnd/RTT
    w = westwood.STUDY
    avail = 1e6 * PAYLOAD_SHARE
    t = [10.5 + 0.5 * i for i in range(40)]

    def series(bwe: list[float], cwnd_rtt: list[float]) -> Callable[..., Any]:
        return lambda data: pl.DataFrame({"time_s": t, "bwe_bps": bwe, "cwnd_rtt_bps": cwnd_rtt})

    steady = [avail * (1 + 0.02 * (-1) ** i) for i in range(40)]
    wild = [avail * (1.3 + 0.3 * (-1) ** i) for i in range(40)]
    monkeypatch.setattr(type(w), "w6_single_series", staticmethod(series(steady, wild)))
    assert w._w6b(stand_in()).verdict == "reproduced"
    monkeypatch.setattr(type(w), "w6_single_series", staticmethod(series(wild, steady)))
    v = w._w6b(stand_in())
    assert v.verdict == "not reproduced" and not any(c.ok for c in v.checks)


def test_a3_fwd_fails_when_the_forward_loss_rates_differ(monkeypatch: MonkeyPatch) -> None:
    # A3-fwd: forward loss rates of NewReno and SACK within 10 % of their mean
    a = asymmetric.STUDY

    def losses(nr: float, sack: float) -> Callable[..., Any]:
        rows = {"variant": ["newreno", "sack_plain_sink", "sack"], "fwd": [nr, sack, sack], "rev": [0.01] * 3}
        return lambda data: pl.DataFrame(rows)

    monkeypatch.setattr(type(a), "_loss_means", staticmethod(losses(0.0100, 0.0105)))
    assert a._a3_fwd(stand_in()).verdict == "reproduced"
    monkeypatch.setattr(type(a), "_loss_means", staticmethod(losses(0.0100, 0.0130)))
    assert a._a3_fwd(stand_in()).verdict == "not reproduced"


def test_a1_fails_when_sack_does_not_lead_or_stays_apart(monkeypatch: MonkeyPatch) -> None:
    # A1: mean over the link rates, SACK's goodput over the first 1 s ≥ 5 %
    # above NewReno's, and within 5 % of it from 2 s on. SACK and NewReno
    # give identical runs on one error-free link, so no exchange of them
    # can make the claim false.
    from types import SimpleNamespace

    a = asymmetric.STUDY
    data = stand_in(plan=SimpleNamespace(dur=10.0))

    def series(first: float, after: float) -> Callable[..., Any]:
        # goodput per 0.5-s bin of one run per variant: NewReno 1 Mb/s
        # throughout, SACK (either receiver) `first` times that up to 1 s
        # and `after` times it from then on
        rows = []
        for v in ("newreno", "sack_plain_sink", "sack"):
            for k in range(1, 21):
                t = 0.5 * k
                f = 1.0 if v == "newreno" else (first if t <= 1.0 else after)
                rows.append({"variant": v, "topology.rate": 10, "seed": 1, "t_s": t, "rate": 1e6 * f})
        return lambda self, data, exp, what: pl.DataFrame(rows)

    monkeypatch.setattr(type(a), "series", series(1.10, 1.01))
    assert a._a1(data).verdict == "reproduced"
    # NewReno ahead in the first second
    monkeypatch.setattr(type(a), "series", series(0.95, 1.01))
    v = a._a1(data)
    assert v.verdict != "reproduced" and [c.ok for c in v.checks] == [False, True]
    # SACK ahead throughout, by 10 %
    monkeypatch.setattr(type(a), "series", series(1.10, 1.10))
    v = a._a1(data)
    assert v.verdict != "reproduced" and [c.ok for c in v.checks] == [True, False]
    # identical series: both checks are errors, not passes
    monkeypatch.setattr(type(a), "series", series(1.0, 1.0))
    v = a._a1(data)
    assert v.verdict == "not reproduced" and all("identical" in c.detail for c in v.checks)


def test_iw1c_fails_when_the_rate_sets_the_flow_completion_time(monkeypatch: MonkeyPatch) -> None:
    # IW1-c: the median over (algorithm, IW, RTT) cells of the FCT's spread
    # across rates is ≤ 20 %; a rate swap cannot move a spread across rates
    from ccsim.studies import initial_window

    s = initial_window.STUDY
    cells = [
        (cc, iw, rtt, rate) for cc in ("cubic", "bbr") for iw in (1, 10) for rtt in (30, 100) for rate in (10, 100)
    ]

    def table(fct: Callable[..., float]) -> Callable[..., Any]:
        rows = {k: [c[i] for c in cells] for i, k in enumerate(("cc", "iw", "rtt_ms", "rate"))}
        return lambda self, data, exp: pl.DataFrame(rows | {"fct_data_s": [fct(*c) for c in cells]})

    # about two round trips whatever the rate, and a little serialisation
    monkeypatch.setattr(type(s), "fct", table(lambda cc, iw, rtt, rate: 2 * rtt / 1e3 + 0.1 / rate))
    assert s._iw1c(stand_in()).verdict == "reproduced"
    # the transfer's serialisation at the rate dominates: 10 Mb/s takes twice as long
    monkeypatch.setattr(type(s), "fct", table(lambda cc, iw, rtt, rate: 2 * rtt / 1e3 + 10 / rate))
    assert s._iw1c(stand_in()).verdict == "not reproduced"


def test_p1_fails_when_a_variant_is_inefficient_or_pacing_costs_efficiency(monkeypatch: MonkeyPatch) -> None:
    # P1: every variant ≥ 90 % at every rate; each paced variant at most 1
    # point below its unpaced twin; ≥ 80 % of Table 2's cells within 3 points
    from types import SimpleNamespace

    from ccsim.studies import pacing
    from ccsim.studies.pacing.scenarios import TABLE2

    s = pacing.STUDY
    data = stand_in(plan=SimpleNamespace(rates=list(TABLE2)), campaigns={})

    def eff(change: dict[tuple[float, str], float]) -> Callable[..., Any]:
        return lambda self, data, rate, v: change.get((rate, v), TABLE2[rate][v])

    # the paper's own Table 2
    monkeypatch.setattr(type(s), "eff", eff({}))
    assert s._claim_p1(data).verdict == "reproduced"
    # paced HSTCP 5 points below HSTCP at 2.5 Gb/s, still above 90 %
    monkeypatch.setattr(type(s), "eff", eff({(2.5e9, "hstcp_paced"): 94.98}))
    v = s._claim_p1(data)
    assert v.verdict != "reproduced" and [c.ok for c in v.checks] == [True, False, True]
    # every variant 8 points below the paper at 2.5 Gb/s (91-92 %) and paced
    # BI-TCP at 89 % at 20 Mb/s: one below 90 %, 7 points lost to pacing, 6
    # of 20 cells off by more than 3
    far = {(2.5e9, v): TABLE2[2.5e9][v] - 8 for v in TABLE2[2.5e9]} | {(20e6, "bic_paced"): 89.0}
    monkeypatch.setattr(type(s), "eff", eff(far))
    v = s._claim_p1(data)
    assert v.verdict == "not reproduced" and [c.ok for c in v.checks] == [False, False, False]


def test_p2d_fails_when_pacing_does_not_halve_the_ratio(monkeypatch: MonkeyPatch) -> None:
    # P2d: at RTT ratio 6 and every buffer, paced / unpaced throughput ratio
    # in [0.25, 0.75] for HSTCP and for BI-TCP
    from types import SimpleNamespace

    from ccsim.studies import pacing

    s = pacing.STUDY
    data = stand_in(plan=SimpleNamespace(p2_cells=[(1, 1.0), (6, 1.0), (6, 0.5), (6, 0.25)]), campaigns={})
    unpaced = {"hstcp": 140.0, "bic": 40.0}

    def ratios(paced_over_unpaced: float) -> Callable[..., float]:
        def ratio(self: Any, data: StudyData, v: str, rr: float, buf: float) -> float:
            base = v.removesuffix("_paced")
            return unpaced[base] * (paced_over_unpaced if v.endswith("_paced") else 1.0)

        return ratio

    monkeypatch.setattr(type(s), "ratio", ratios(0.5))
    assert s._claim_p2d(data).verdict == "reproduced"
    # pacing leaves the ratio as it is
    monkeypatch.setattr(type(s), "ratio", ratios(1.0))
    assert s._claim_p2d(data).verdict == "not reproduced"
    # pacing raises it threefold (as the quick runs show, and more)
    monkeypatch.setattr(type(s), "ratio", ratios(3.0))
    assert s._claim_p2d(data).verdict == "not reproduced"


def test_red_ecn_h_fails_when_sack_is_ahead_in_most_bins(monkeypatch: MonkeyPatch) -> None:
    # h: the NewReno+ECN − SACK difference of class goodput positive in more
    # than half of the 1-s bins, over the RED variants together; the classes
    # are per-flow labels, not run parameters a swap could exchange
    from ccsim.studies import red_ecn

    s = red_ecn.STUDY

    def diffs(ahead: int) -> Callable[..., Any]:
        return lambda self, data, queue: pl.DataFrame(
            {"t_s": list(range(10)), "diff_bps": [1e4] * ahead + [-1e4] * (10 - ahead)}
        )

    monkeypatch.setattr(type(s), "class_diff", diffs(7))
    assert s._claim_h(stand_in()).verdict == "reproduced"
    monkeypatch.setattr(type(s), "class_diff", diffs(3))
    assert s._claim_h(stand_in()).verdict == "not reproduced"


def test_red_ecn_b_fails_when_the_red_variants_are_not_alike(monkeypatch: MonkeyPatch) -> None:
    # b: at the smallest QL, every RED variant's GEff above DropTail's and
    # the RED variants within 0.02 of each other. At QL 4 the four
    # disciplines measure alike, so exchanging two of them changes nothing;
    # the rule is shown here on tables where the claim holds and where the
    # RED variants are 0.05 apart.
    from types import SimpleNamespace

    from ccsim.studies import red_ecn

    s = red_ecn.STUDY
    data = stand_in(plan=SimpleNamespace(qls=[4, 12, 36, 72]))

    def means(geff: dict[str, float]) -> Callable[..., Any]:
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
    # four identical values (RED never acting): both checks are errors, not passes
    monkeypatch.setattr(
        type(s), "sweep_means", means({"droptail": 0.80, "red": 0.80, "gentle_red": 0.80, "adaptive_red": 0.80})
    )
    v = s._claim_b(data)
    assert v.verdict == "not reproduced" and all("identical" in c.detail for c in v.checks)


def test_each_claim_names_a_table_test_here_and_each_test_here_is_named() -> None:
    # A claim whose counterfactual is a TableTest is reported as shown to
    # fail by a test of this module: that test must exist, and each test
    # here must be the one some claim names (else the report would say
    # "none declared" for a rule that is in fact shown able to fail).
    import sys

    from ccsim import studies
    from ccsim.studies.counterfactual import TABLE_TESTS, TableTest

    assert "tests/" + __name__.rsplit(".", 1)[-1] + ".py" == TABLE_TESTS
    named = [
        t.test
        for n in studies.names()
        for c in studies.get(n).claims()
        for t in c.counterfactual
        if isinstance(t, TableTest)
    ]
    here = {n for n in dir(sys.modules[__name__]) if n.startswith("test_") and "_fails_" in n}
    assert len(named) == len(set(named)) and set(named) == here, (sorted(named), sorted(here))
