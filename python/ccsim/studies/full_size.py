"""The record of full-size verdicts: what each claim's rule gave when its
experiments ran at the paper's size (`--full`), with the model version and
date of that run.

A full-size run takes from minutes (red_ecn, westwood) to CPU-days (pacing),
so `make run` cannot make it; its verdicts are recorded here, in
`full_size.json` beside this module, and shown beside the quick ones in every
report and in docs/verdicts.md. A claim with no entry was not run at full
size. Record a study's run after `ccsim study NAME --full --out DIR/NAME`:

    python -m ccsim.studies.verdicts --record-full DIR NAME [NAME ...]

which replaces that study's entries by the claims.json of `DIR/NAME/full/`.
A study whose full mode takes CPU-days has a "points" plan instead: the
paper's size for the claims a shorter mode leaves short, only the
experiments they read (`ccsim study NAME --points`);

    python -m ccsim.studies.verdicts --record-points DIR NAME [NAME ...]

replaces the entries of those claims only, marked as such.
An entry names the model version of its runs and the day the last ended
(read from the campaigns' catalogues): after a model change it
stays, saying which model it describes, until the study is run again."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from .base import VERDICTS

RECORD = Path(__file__).with_name("full_size.json")
NOT_RUN = "not run"


def load(path: Path = RECORD) -> dict[tuple[str, str], dict[str, Any]]:
    """The entries by (study, claim)."""
    if not path.is_file():
        return {}
    return {(e["study"], e["claim"]): e for e in json.loads(path.read_text())}


def text(entry: dict[str, Any] | None) -> str:
    """One entry as a table cell: 'partly (3/5 seeds; model 16, 2026-11-28)',
    with ', its points only' after the seeds for a points run."""
    if entry is None:
        return NOT_RUN
    seeds = entry["seeds"] if entry["seeds"] == "1 seed" else f"{entry['seeds']} seeds"
    if entry.get("mode") == "points":
        seeds += ", its points only"
    return f"{entry['verdict']} ({seeds}; model {entry['model_version']}, {entry['date']})"


def provenance(folder: Path) -> tuple[int, str]:
    """The model version of every run in a study's campaigns under `folder`
    (one, or the run is refused as mixed) and the date its last run ended."""
    versions, last = set(), 0.0
    for cat in sorted(folder.glob("campaigns/*/catalogue.jsonl")):
        for line in cat.read_text().splitlines():
            e = json.loads(line)
            if e.get("status") == "ok":
                versions.add(e["model_version"])
                last = max(last, float(e["finished_unix"]))
    if len(versions) != 1:
        raise ValueError(f"{folder}: runs of model versions {sorted(versions)}; expected runs of one model version")
    date = datetime.datetime.fromtimestamp(last, datetime.UTC).date().isoformat()
    return versions.pop(), date


def entries_of(base: Path, study: str, known: set[str], mode: str = "full") -> list[dict[str, Any]]:
    """The entries of one study's full-size run in `base/<study>/<mode>/`
    (mode "full" or "points"); `known` are the study's claim ids."""
    path = base / study / mode / "claims.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no {mode} run of study {study}; run `ccsim study {study} --{mode}`")
    model_version, date = provenance(path.parent)
    out = []
    for c in json.loads(path.read_text()):
        if c["claim"] not in known or c["verdict"] not in VERDICTS:
            raise ValueError(
                f"{path}: claim {c['claim']!r} with verdict {c['verdict']!r} is not one of study {study}'s"
            )
        st = c.get("stability")
        out.append(
            {
                "study": study,
                "claim": c["claim"],
                "verdict": c["verdict"],
                "seeds": f"{st['all_held']}/{len(st['seeds'])}" if st else "1 seed",
                "model_version": model_version,
                "date": date,
            }
            | ({"mode": mode} if mode != "full" else {})
        )
    return out


def record(base: Path, studies: dict[str, set[str]], path: Path = RECORD, mode: str = "full") -> list[dict[str, Any]]:
    """Replace the entries of `studies` (name → its claim ids) by their
    full-size runs under `base`: a full run replaces all of a study's
    entries, a points run those of the claims it judged."""
    new = [e for s, known in studies.items() for e in entries_of(base, s, known, mode)]
    judged = {(e["study"], e["claim"]) for e in new}
    kept = [
        e
        for e in load(path).values()
        if (e["study"], e["claim"]) not in judged and (mode == "points" or e["study"] not in studies)
    ]
    rows = sorted(kept + new, key=lambda e: (e["study"], e["claim"]))
    path.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    return new
