"""What moved between two runs of a study: `ccsim study NAME --compare-to
OLD`. Reads the `claims.json` each run writes (verdict, reason status and
the numbers every claim's rule looked at) and lists, claim by claim, the
verdicts that changed and the numbers that moved, so a model change shows
its effect on the studies in one command."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class CompareError(ValueError):
    """No earlier run of the study where `--compare-to` points, or not one
    `ccsim study` wrote; the message names the path and what was expected."""


@dataclass
class Moved:
    """One claim's differences between the old and the new run."""

    claim: str
    old: str | None  # verdict in the old run (None: the claim was not there)
    new: str | None
    numbers: list[tuple[str, Any, Any]] = field(default_factory=list)  # (name, old, new) that differ
    why: tuple[str, str] | None = None  # the reason status, when it changed

    @property
    def verdict_changed(self) -> bool:
        return self.old != self.new


def claims_file(where: Path, study: str, mode: str) -> Path:
    """The `claims.json` of `study` in `mode` under `where`: a study's mode
    folder itself, a study's folder (`<mode>/` below it) or a results folder
    of every study (`<study>/<mode>/` below it)."""
    for p in (where / "claims.json", where / mode / "claims.json", where / study / mode / "claims.json"):
        if p.is_file():
            return p
    raise CompareError(
        f"--compare-to {where}: no claims.json of study {study} ({mode} mode) there; expected {where}/claims.json, "
        f"{where}/{mode}/claims.json or {where}/{study}/{mode}/claims.json (what `ccsim study` wrote)"
    )


def load(path: Path) -> list[dict[str, Any]]:
    try:
        rows = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise CompareError(f"{path}: not a study's claims.json ({e})") from None
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "claim" in r for r in rows):
        raise CompareError(f"{path}: not a study's claims.json (expected a list of claims)")
    return rows


def _same(a: Any, b: Any, rel: float) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        fa, fb = float(a), float(b)
        if math.isnan(fa) or math.isnan(fb):
            return math.isnan(fa) and math.isnan(fb)
        return fa == fb or abs(fa - fb) <= rel * max(abs(fa), abs(fb))
    return bool(a == b)


def compare(old: list[dict[str, Any]], new: list[dict[str, Any]], rel: float = 1e-9) -> list[Moved]:
    """Every claim whose verdict, reason status or measured numbers differ
    (numbers within a relative `rel` of each other count as equal), in the
    new run's order, then claims only the old run had."""
    o = {r["claim"]: r for r in old}
    n = {r["claim"]: r for r in new}
    out = []
    for cid in list(n) + [c for c in o if c not in n]:
        a, b = o.get(cid), n.get(cid)
        m = Moved(cid, a["verdict"] if a else None, b["verdict"] if b else None)
        if a and b:
            ma, mb = a.get("measured") or {}, b.get("measured") or {}
            for k in list(mb) + [k for k in ma if k not in mb]:
                if not _same(ma.get(k), mb.get(k), rel):
                    m.numbers.append((k, ma.get(k), mb.get(k)))
            wa, wb = a.get("why", ""), b.get("why", "")
            if wa != wb:
                m.why = (wa or "—", wb or "—")
        if m.verdict_changed or m.numbers or m.why:
            out.append(m)
    return out


def _num(x: Any) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)


def _change(a: Any, b: Any) -> str:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and a:
        return f" ({(float(b) - float(a)) / abs(float(a)):+.1%})"
    return ""


def render(moved: list[Moved], old_path: Path, new_path: Path, claims: int) -> str:
    """Text for the terminal: the verdicts that changed first, then the
    claims whose numbers alone moved."""
    lines = [f"compared with {old_path} (new: {new_path}):"]
    if not moved:
        lines.append(f"  nothing moved: the {claims} claims have the same verdicts and numbers")
        return "\n".join(lines)
    changed = [m for m in moved if m.verdict_changed]
    lines.append(
        f"  {len(changed)} of {claims} verdicts changed; numbers moved in {sum(bool(m.numbers) for m in moved)}"
    )
    for m in changed + [m for m in moved if not m.verdict_changed]:
        head = f"  {m.claim:8s} "
        head += f"{m.old or 'absent'} → {m.new or 'absent'}" if m.verdict_changed else f"{m.new} (unchanged)"
        if m.why:
            head += f"; reason {m.why[0]} → {m.why[1]}"
        lines.append(head)
        for k, a, b in m.numbers:
            lines.append(f"      {k}: {_num(a)} → {_num(b)}{_change(a, b)}")
    return "\n".join(lines)
