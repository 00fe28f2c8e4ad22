"""Counterfactual data for a claim's rule: the study's own runs with two of
the points a claim compares exchanged, so that what the claim says of one
is measured on the other. A rule that can fail must answer differently
there (tests/test_counterfactuals.py runs every claim both ways).

A claim names its counterfactual with `@claim(..., counterfactual=...)`:
one or more `Swap`s of a run parameter (a sweep axis as the campaign's
`runs` table names it: 'topology.queue.kind', 'flows[0].label', 'rate').
The exchange happens in each campaign's `runs` table, which every query
and table of the campaign joins on, so per-flow, per-link and series data
follow their run's new label."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from .base import StudyData


@dataclass(frozen=True)
class Swap:
    """Runs whose parameter `column` is `a` read as `b`, and the other way
    round, in every experiment that has that parameter (or in the
    experiments named in `only`)."""

    column: str
    a: Any
    b: Any
    only: tuple[str, ...] = ()

    def apply(self, runs: pl.DataFrame) -> pl.DataFrame:
        if self.column not in runs.columns:
            return runs
        c = pl.col(self.column)
        dtype = runs.schema[self.column]
        a, b = pl.lit(self.a, dtype=dtype), pl.lit(self.b, dtype=dtype)
        return runs.with_columns(pl.when(c == a).then(b).when(c == b).then(a).otherwise(c).alias(self.column))

    def found_in(self, runs: pl.DataFrame) -> bool:
        """Both values occur among the runs (else the swap changes nothing)."""
        if self.column not in runs.columns:
            return False
        vals = set(runs[self.column].to_list())
        return self.a in vals and self.b in vals

    def __str__(self) -> str:
        return f"{self.column}: {self.a!r} ↔ {self.b!r}" + (f" in {', '.join(self.only)}" if self.only else "")


@dataclass(frozen=True)
class TableTest:
    """For a rule no exchange of run parameters can falsify (a threshold on
    every point, an equality that reads the same either way round, two
    estimates from one run), or one whose runs leave no exchange able to
    move it (identical runs, values far outside its band either way
    round): the test in tests/test_claim_rules.py that runs
    the rule on a made-up table where the claim is false and requires it to
    fail there. The report names the test; the test suite, not the run,
    shows the failure."""

    test: str

    def __str__(self) -> str:
        return f"{TABLE_TESTS}::{self.test}"


TABLE_TESTS = "tests/test_claim_rules.py"


def swapped(data: StudyData, swaps: Sequence[Swap]) -> StudyData:
    """`data` with every campaign's runs relabelled by `swaps`, and nothing
    cached (the claims' memos are rebuilt from the relabelled runs). Raises
    ValueError when a swap finds its two values in no campaign, which
    would make the counterfactual the data itself."""
    out = {}
    for name, c in data.campaigns.items():
        runs = c.runs
        for s in swaps:
            if not s.only or name in s.only:
                runs = s.apply(runs)
        d = copy.copy(c)
        d.runs = runs
        d._con = None
        out[name] = d
    for s in swaps:
        if not any(s.found_in(c.runs) for n, c in data.campaigns.items() if not s.only or n in s.only):
            raise ValueError(f"counterfactual {s}: no experiment has both values; it would change nothing")
    return StudyData(mode=data.mode, plan=data.plan, campaigns=out)


ANSWERED, SILENT, UNAVAILABLE, NONE = "answered", "did not answer", "unavailable", "none declared"
TABLE = "table test"


def answer(claim: Any, data: StudyData, real: Any) -> dict[str, Any]:
    """The claim's rule on its counterfactual: the verdict there and the
    checks whose outcome differs from `real`'s (the verdict on the runs as
    they are). Status ANSWERED when some check changed, SILENT when none
    did (the rule did not tell the swapped points apart), UNAVAILABLE when
    this mode's runs lack a swapped value or a cell the rule needs, NONE
    when the claim names no counterfactual, TABLE when a test shows its rule
    failing on a made-up table instead (`TableTest`)."""
    swaps = [str(s) for s in claim.counterfactual]
    if not swaps:
        return {"status": NONE}
    tables = [s for s in claim.counterfactual if isinstance(s, TableTest)]
    if tables:
        if len(tables) != len(claim.counterfactual):
            raise ValueError(f"claim {claim.id}: a TableTest cannot be mixed with Swaps")
        return {"status": TABLE, "tests": swaps}
    try:
        v = claim.evaluate(swapped(data, claim.counterfactual))
    except (KeyError, ValueError, IndexError, ZeroDivisionError, pl.exceptions.PolarsError) as e:
        return {"swaps": swaps, "status": UNAVAILABLE, "detail": f"{type(e).__name__}: {e}"}
    changed = [c.what for c, d in zip(real.checks, v.checks) if c.ok != d.ok]
    return {"swaps": swaps, "status": ANSWERED if changed else SILENT, "verdict": v.verdict, "changed": changed}


def text(cf: dict[str, Any] | None) -> str:
    """One line for the report."""
    if not cf or cf["status"] == NONE:
        return "Counterfactual: none declared yet."
    if cf["status"] == TABLE:
        return (
            "Counterfactual: no exchange of run parameters can make this claim false; the test suite runs the "
            f"rule on a table where it is false and requires it to fail there ({', '.join(cf['tests'])})."
        )
    head = f"Counterfactual ({'; '.join(cf['swaps'])}): "
    if cf["status"] == UNAVAILABLE:
        return head + f"not available in this mode ({cf['detail']})."
    if cf["status"] == SILENT:
        return head + f"{cf['verdict']}, no check answered otherwise (the rule did not tell the points apart)."
    return head + f"{cf['verdict']}; answered otherwise: {', '.join(cf['changed'])}."
