"""The record of full-size verdicts (ccsim.studies.full_size): what it
takes from a study's --full run, and what it refuses."""

import json

import pytest
from ccsim.studies import full_size


def _run(base, study, claims, versions, finished=1795824000.0):
    """A study's full-size folder as run_study leaves it: claims.json and
    a campaign whose catalogue names the model version of each run."""
    root = base / study / "full"
    (root / "campaigns" / "x").mkdir(parents=True)
    (root / "claims.json").write_text(json.dumps(claims))
    lines = [
        json.dumps({"run_id": str(i), "status": "ok", "model_version": v, "finished_unix": finished + i})
        for i, v in enumerate(versions)
    ]
    (root / "campaigns" / "x" / "catalogue.jsonl").write_text("\n".join(lines) + "\n")


def test_a_full_run_is_recorded_with_its_model_version_and_day(tmp_path):
    claims = [
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


def test_a_run_of_two_model_versions_or_unknown_claims_is_refused(tmp_path):
    _run(tmp_path, "red_ecn", [{"claim": "a", "verdict": "partly"}], [15, 16])
    with pytest.raises(ValueError, match=r"model versions \[15, 16\]"):
        full_size.record(tmp_path, {"red_ecn": {"a"}}, tmp_path / "rec.json")
    _run(tmp_path / "b", "red_ecn", [{"claim": "zz", "verdict": "partly"}], [16])
    with pytest.raises(ValueError, match="'zz'"):
        full_size.record(tmp_path / "b", {"red_ecn": {"a"}}, tmp_path / "rec.json")
    with pytest.raises(FileNotFoundError, match="no full-size run of study westwood"):
        full_size.record(tmp_path, {"westwood": {"W1a"}}, tmp_path / "rec.json")
    assert not (tmp_path / "rec.json").exists()
