"""A claim's counterfactual: its rule run again on the study's own runs with
two compared points exchanged (studies/counterfactual.py). A rule that can
fail answers otherwise there; one that cannot is reported as silent."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ccsim
import pytest
from ccsim import studies
from ccsim.studies.base import Check, Claim, Experiment, StudyData, Verdict, verdict_from
from ccsim.studies.compare import CompareError, compare, render
from ccsim.studies.counterfactual import (
    ANSWERED,
    NONE,
    SILENT,
    TABLE,
    UNAVAILABLE,
    Swap,
    TableTest,
    answer,
    swapped,
)
from ccsim.studies.counterfactual import (
    text as cf_text,
)
from ccsim.studies.kit import Plan
from helpers import BareStudy, single_link
from pytest import CaptureFixture


def _no_verdict(data: StudyData) -> Verdict:
    """A claim's rule that these checks never run."""
    raise AssertionError("the rule was run")


class _Rates(BareStudy):
    """One bulk flow over a 5 Mb/s and a 20 Mb/s link (an axis): the claim
    "the faster link carries more" holds; exchanged, it must not."""

    name = "rates"
    title = "Two link rates"

    def plan(self, mode: str) -> Plan:
        from ccsim.studies.kit import Plan

        return Plan(describe="one seed", seeds=[1])

    def experiments(self, plan: Plan) -> list[Experiment]:
        sc = single_link(duration="1s", rate="10Mbps", delay="10ms")
        sweep = ccsim.Sweep(sc, grid={"topology.rate": ["5Mbps", "20Mbps"]}, seeds=plan.seeds)
        return [Experiment("e", "two rates", sweep)]

    def goodput(self, data: StudyData, rate: str) -> float:
        c = data.campaign("e")
        return float(c.query(f"SELECT avg(goodput_bps) AS g FROM flows WHERE \"topology.rate\" = '{rate}'")["g"][0])

    def claims(self) -> list[Claim]:
        def faster_as(cid: str) -> Callable[[StudyData], Verdict]:
            def faster(data: StudyData) -> Verdict:
                a, b = self.goodput(data, "20Mbps"), self.goodput(data, "5Mbps")
                return verdict_from(cid, [Check("20 Mb/s carries more", a > b, compared=(a, b))], {"a": a, "b": b})

            return faster

        def any_positive(data: StudyData) -> Verdict:
            g = [self.goodput(data, r) for r in ("5Mbps", "20Mbps")]
            return verdict_from("pos", [Check("both positive", all(x > 0 for x in g))], {})

        swap = (Swap("topology.rate", "5Mbps", "20Mbps"),)
        return [
            Claim("fast", "the faster link carries more", "20 Mb/s > 5 Mb/s", faster_as("fast"), counterfactual=swap),
            Claim("pos", "both carry something", "both > 0", any_positive, counterfactual=swap),
            Claim(
                "miss",
                "a value the runs lack",
                "-",
                faster_as("miss"),
                counterfactual=(Swap("topology.rate", "5Mbps", "1Gbps"),),
            ),
            Claim("bare", "no counterfactual", "-", faster_as("bare")),
        ]


def test_a_rule_that_can_fail_answers_its_counterfactual_and_one_that_cannot_is_silent(tmp_path: Path) -> None:
    o = studies.run_study(_Rates(), "smoke", tmp_path)
    by = {v.claim: v for v in o.verdicts}
    assert by["fast"].verdict == "reproduced"
    cf = by["fast"].counterfactual
    assert cf is not None and by["pos"].counterfactual is not None and by["miss"].counterfactual is not None
    assert cf["status"] == ANSWERED and cf["verdict"] == "not reproduced" and cf["changed"] == ["20 Mb/s carries more"]
    # "both positive" holds whichever link is called which: it cannot answer.
    assert by["pos"].counterfactual["status"] == SILENT
    assert by["miss"].counterfactual["status"] == UNAVAILABLE and "1Gbps" in by["miss"].counterfactual["detail"]
    assert by["bare"].counterfactual == {"status": NONE}
    saved = {c["claim"]: c for c in json.loads((o.out / "claims.json").read_text())}
    assert saved["fast"]["counterfactual"]["status"] == ANSWERED
    md = o.report_md.read_text()
    assert "Counterfactual (topology.rate: '5Mbps' ↔ '20Mbps'): not reproduced; answered otherwise" in md
    assert "none declared yet" in md


def test_the_exchange_relabels_every_table_of_a_run(tmp_path: Path) -> None:
    st = _Rates()
    studies.run_study(st, "smoke", tmp_path)
    from ccsim.experiments.campaign import open_campaign
    from ccsim.studies.base import StudyData

    data = StudyData("smoke", st.plan("smoke"), {"e": open_campaign(tmp_path / "smoke" / "campaigns" / "e")})
    cf = swapped(data, [Swap("topology.rate", "5Mbps", "20Mbps")])
    # the real data: goodput below each link's rate; exchanged: the 5 Mb/s label carries ~20 Mb/s
    assert st.goodput(data, "5Mbps") < 5e6 < st.goodput(cf, "5Mbps")
    assert sorted(cf.campaigns["e"].ok_runs["topology.rate"].to_list()) == ["20Mbps", "5Mbps"]
    with pytest.raises(ValueError, match="no experiment has both values"):
        swapped(data, [Swap("topology.rate", "5Mbps", "7Mbps")])
    # answer() on a claim without a counterfactual says so
    assert answer(Claim("x", "-", "-", _no_verdict), data, None) == {"status": NONE}
    # a table test is named, not run, and cannot be mixed with swaps
    t = TableTest("test_w1a_fails_when_one_variant_falls_below_the_threshold")
    cf_t = answer(Claim("y", "-", "-", _no_verdict, counterfactual=(t,)), data, None)
    assert cf_t == {"status": TABLE, "tests": ["tests/test_claim_rules.py::" + t.test]}
    assert "requires it to fail there (tests/test_claim_rules.py::test_w1a" in cf_text(cf_t)
    with pytest.raises(ValueError, match="cannot be mixed"):
        answer(Claim("z", "-", "-", _no_verdict, counterfactual=(t, Swap("rate", 1, 2))), data, None)


def _claims(verdict: str, number: float, why: str = "not yet shown") -> list[dict[str, Any]]:
    return [
        {"claim": "a", "verdict": verdict, "why": why, "measured": {"gp": number, "same": 1.0}},
        {"claim": "b", "verdict": "reproduced", "why": "", "measured": {"x": 2.0}},
    ]


def test_compare_lists_the_verdicts_and_numbers_that_moved(tmp_path: Path) -> None:
    old, new = _claims("partly", 1.0), _claims("reproduced", 1.5, why="")
    moved = compare(old, new)
    assert [m.claim for m in moved] == ["a"]
    (m,) = moved
    assert (m.old, m.new) == ("partly", "reproduced") and m.numbers == [("gp", 1.0, 1.5)]
    assert m.why == ("not yet shown", "—")
    text = render(moved, tmp_path / "old", tmp_path / "new", 2)
    assert (
        "1 of 2 verdicts changed" in text and "a        partly → reproduced" in text and "gp: 1 → 1.5 (+50.0%)" in text
    )
    # identical runs: nothing moved (numbers equal to 1e-9 relative count as equal)
    same = _claims("partly", 1.0 + 1e-12)
    assert compare(old, same) == [] and "nothing moved" in render([], tmp_path, tmp_path, 2)


def test_compare_to_in_the_cli(tmp_path: Path, capsys: CaptureFixture[str]) -> None:
    """`ccsim study NAME --compare-to OLD` after a run: what moved against an
    earlier copy of its claims.json, and a clear error for a folder with none."""
    from ccsim.tools.cli import main

    out = tmp_path / "new"
    assert main(["study", "asymmetric", "--smoke", "--out", str(out), "--quiet"]) == 0
    old = tmp_path / "old" / "asymmetric" / "smoke"
    old.mkdir(parents=True)
    rows = json.loads((out / "smoke" / "claims.json").read_text())
    rows[0]["verdict"] = "not reproduced" if rows[0]["verdict"] != "not reproduced" else "reproduced"
    (old / "claims.json").write_text(json.dumps(rows))
    capsys.readouterr()
    assert (
        main(["study", "asymmetric", "--smoke", "--out", str(out), "--quiet", "--compare-to", str(tmp_path / "old")])
        == 0
    )
    text = capsys.readouterr().out
    assert "1 of 6 verdicts changed" in text and f"{rows[0]['claim']} " in text
    assert main(["study", "asymmetric", "--smoke", "--out", str(out), "--compare-to", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert "--compare-to" in err and "no claims.json of study asymmetric (smoke mode)" in err
    from ccsim.studies.compare import claims_file

    with pytest.raises(CompareError, match="no claims.json of study asymmetric"):
        claims_file(tmp_path / "none", "asymmetric", "smoke")
