"""The record of full-size verdicts (ccsim.studies.full_size): what it
takes from a study's --full run, and what it refuses."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ccsim
import pytest
from ccsim import studies
from ccsim.studies import full_size
from ccsim.studies.base import Check, Claim, Experiment, Figure, StudyData, Verdict, verdict_from
from ccsim.studies.kit import Plan
from ccsim.studies.runner import StudyError
from helpers import BareStudy, single_link


def _run(
    base: Path,
    study: str,
    claims: list[dict[str, Any]],
    versions: list[int],
    finished: float = 1795824000.0,
    mode: str = "full",
) -> None:
    """A study's full-size folder as run_study leaves it: claims.json and
    a campaign whose catalogue names the model version of each run."""
    root = base / study / mode
    (root / "campaigns" / "x").mkdir(parents=True)
    (root / "claims.json").write_text(json.dumps(claims))
    lines = [
        json.dumps({"run_id": str(i), "status": "ok", "model_version": v, "finished_unix": finished + i})
        for i, v in enumerate(versions)
    ]
    (root / "campaigns" / "x" / "catalogue.jsonl").write_text("\n".join(lines) + "\n")


def test_a_full_run_is_recorded_with_its_model_version_and_day(tmp_path: Path) -> None:
    claims: list[dict[str, Any]] = [
        {"claim": "a", "verdict": "partly", "stability": {"all_held": 3, "seeds": [1, 2, 3, 4, 5]}},
        {"claim": "c", "verdict": "reproduced", "stability": None},
    ]
    _run(tmp_path, "red_ecn", claims, [16, 16])
    rec = tmp_path / "rec.json"
    rec.write_text(
        json.dumps(
            [
                {
                    "study": "westwood",
                    "claim": "W1a",
                    "verdict": "reproduced",
                    "seeds": "1 seed",
                    "model_version": 15,
                    "date": "2026-11-01",
                }
            ]
        )
    )
    full_size.record(tmp_path, {"red_ecn": {"a", "b", "c"}}, rec)
    got = full_size.load(rec)
    # 1795824000 s after the epoch is 2026-11-28 UTC
    assert full_size.text(got[("red_ecn", "a")]) == "partly (3/5 seeds; model 16, 2026-11-28)"
    assert full_size.text(got[("red_ecn", "c")]) == "reproduced (1 seed; model 16, 2026-11-28)"
    # another study's entries stay as they were; a claim with none was not run
    assert got[("westwood", "W1a")]["model_version"] == 15
    assert full_size.text(got.get(("red_ecn", "b"))) == full_size.NOT_RUN


def test_a_run_of_two_model_versions_or_unknown_claims_is_refused(tmp_path: Path) -> None:
    _run(tmp_path, "red_ecn", [{"claim": "a", "verdict": "partly"}], [15, 16])
    with pytest.raises(ValueError, match=r"model versions \[15, 16\]"):
        full_size.record(tmp_path, {"red_ecn": {"a"}}, tmp_path / "rec.json")
    _run(tmp_path / "b", "red_ecn", [{"claim": "zz", "verdict": "partly"}], [16])
    with pytest.raises(ValueError, match="'zz'"):
        full_size.record(tmp_path / "b", {"red_ecn": {"a"}}, tmp_path / "rec.json")
    with pytest.raises(FileNotFoundError, match="no full run of study westwood"):
        full_size.record(tmp_path, {"westwood": {"W1a"}}, tmp_path / "rec.json")
    assert not (tmp_path / "rec.json").exists()


def test_a_points_run_replaces_only_the_claims_it_judged(tmp_path: Path) -> None:
    def entry(claim: str, verdict: str) -> dict[str, Any]:
        return {"study": "pacing", "claim": claim, "verdict": verdict, "seeds": "1 seed", "model_version": 15}

    rec = tmp_path / "rec.json"
    rec.write_text(json.dumps([entry("P1", "reproduced") | {"date": "x"}, entry("P3a", "partly") | {"date": "x"}]))
    _run(tmp_path, "pacing", [{"claim": "P1", "verdict": "not reproduced", "stability": None}], [18], mode="points")
    full_size.record(tmp_path, {"pacing": {"P1", "P3a"}}, rec, mode="points")
    got = full_size.load(rec)
    assert full_size.text(got[("pacing", "P1")]) == "not reproduced (1 seed, its points only; model 18, 2026-11-28)"
    # a claim the points run did not judge keeps its entry
    assert got[("pacing", "P3a")]["model_version"] == 15


class _TwoParts(BareStudy):
    """Two experiments, a claim on each; its points plan runs one of them."""

    name = "twoparts"
    title = "Two parts"

    def plan(self, mode: str) -> Plan:
        if mode == "points":
            return Plan(describe="part b only", seeds=[1], claims=("b",), experiments=("b",))
        return Plan(describe="both", seeds=[1])

    def experiments(self, plan: Plan) -> list[Experiment]:
        sc = single_link(duration="1s", rate="10Mbps", delay="10ms")
        return [
            Experiment(n, n, ccsim.Sweep(sc, grid={"topology.rate": [r]}, seeds=plan.seeds))
            for n, r in (("a", "5Mbps"), ("b", "20Mbps"))
        ]

    def claims(self) -> list[Claim]:
        def carries(name: str) -> Callable[[StudyData], Verdict]:
            def rule(data: StudyData) -> Verdict:
                g = data.campaign(name).query("SELECT avg(goodput_bps) AS g FROM flows")["g"][0]
                return verdict_from(name, [Check("carries something", g > 0)], {"g": g})

            return rule

        return [Claim(n, "it carries", "> 0", carries(n)) for n in ("a", "b")]

    def figures(self, data: StudyData, out: Path) -> list[Figure]:
        raise AssertionError("a points run draws no figures: its experiments are a subset")


def test_a_points_run_judges_its_claims_on_its_experiments_only(tmp_path: Path) -> None:
    o = studies.run_study(_TwoParts(), "points", tmp_path)
    assert [v.claim for v in o.verdicts] == ["b"]
    assert sorted(p.name for p in (tmp_path / "points" / "campaigns").iterdir() if p.is_dir()) == ["b"]
    assert [c["claim"] for c in json.loads((o.out / "claims.json").read_text())] == ["b"]
    assert "None: a points run holds only the experiments some claims read" in o.report_md.read_text()


def test_points_is_refused_where_a_study_has_no_such_plan_or_names_what_it_lacks(tmp_path: Path) -> None:
    with pytest.raises(StudyError, match="study red_ecn has no points plan.*studies with one: pacing"):
        studies.run_study("red_ecn", "points", tmp_path)

    class Wrong(_TwoParts):
        def plan(self, mode: str) -> Plan:
            return Plan(describe="-", seeds=[1], claims=("b", "zz"), experiments=("b",))

    with pytest.raises(StudyError, match=r"twoparts.plan\('points'\).claims: got 'zz'; expected some of a, b"):
        studies.run_study(Wrong(), "points", tmp_path)
