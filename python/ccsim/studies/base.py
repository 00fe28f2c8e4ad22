"""The study machinery: a study is its set-up (experiments built with the
experiments API), its figures and its claims.

- An :class:`Experiment` is a named :class:`~ccsim.Sweep`; it runs into its
  own campaign folder, so re-running a study computes only what is missing
  (nothing at all after a crash in the report code).
- A :class:`Choice` is a parameter the paper leaves out: its value and why.
- A :class:`Claim` is the paper's statement, the rule that turns measured
  numbers into a verdict (written in words for the report, in code in
  ``evaluate``), and ``evaluate(data) -> Verdict``.
- :func:`verdict_from` is the common rule: every check holds → reproduced;
  some → partly; none → not reproduced.

Modes: ``smoke`` (toy size, seconds; used by the tests), ``quick`` (every
claim in minutes on two cores), ``full`` (the paper's durations and sweeps).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np

from .kit import Plan

if TYPE_CHECKING:
    from ..experiments.campaign import Campaign

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

# "points": the paper's size for only the claims a shorter mode leaves short
# and only the experiments they read (a study without such a plan refuses it)
MODES = ("smoke", "quick", "points", "full")
# The ns-2 the papers of 2004 ran: the ns-2.27 release (2004-01-18), whose
# defaults the core's "ns2-2.27" stack holds (minrto_ 1 s, rtxcur_init_ 6 s,
# numdupacksFrac_ 100, windowInit_ 2, singledup_ 1, syn_ true; docs/scenario.md).
NS2_OF_2004 = "ns2-2.27"
VERDICTS = ("reproduced", "partly", "not reproduced")
# Why a claim fell short: shown by a measurement the study makes (a targeted
# run whose numbers the report prints beside the reason), or not yet shown.
MEASURED, NOT_SHOWN = "measured", "not yet shown"
# A check counts for a claim's verdict only if it holds on at least this
# share of the seeds the study ran (a clear majority), as well as on the
# results pooled over them.
CLEAR_MAJORITY = 2 / 3


@dataclass(frozen=True)
class Choice:
    """A parameter the paper does not give: its value and the reason.
    `after_results` marks a choice made after seeing results (the report says so)."""

    name: str
    value: str
    why: str
    after_results: bool = False


def ns2_2004_choice(name: str, value: str, before: str, lead: str = "") -> Choice:
    """The choice of ns-2.27's defaults for a paper of 2004 (`NS2_OF_2004`),
    said the same way in every ns-2 study's report; `before` is what earlier
    versions of the report ran, `lead` what the paper itself says."""
    why = (
        f"{lead}ns-2.27 (January 2004) was the release of the paper's year; its defaults, read from that "
        "release's tcl/lib/ns-default.tcl (docs/scenario.md, Stacks), differ from ns-2.35's in minrto_ 1 s "
        "(0.2 s only from 2004-10-14), rtxcur_init_ 6 s, maxrto_ 100000 s and Sack1's numdupacksFrac_ 100; "
        f"windowInit_ 2, singledup_ 1 and syn_ true were already the defaults. Earlier versions of this report "
        f"ran {before}; changed after those results were seen"
    )
    return Choice(name, value, why, after_results=True)


@dataclass(frozen=True)
class PaperValue:
    """A number the paper itself gives for a claim: a value or a (low, high)
    range, in `unit`, and where the paper gives it (`source`: a table cell,
    the text, a point read off a figure). Figures draw it beside ours
    (`draw_paper`), the report prints it beside the statement."""

    what: str
    value: float | tuple[float, float]
    unit: str
    source: str

    @property
    def single(self) -> float:
        """The value, for a number the paper gives as one value (not a range)."""
        if isinstance(self.value, tuple):
            raise ValueError(f"{self.what}: the paper gives a range, not one value")
        return float(self.value)

    @property
    def bounds(self) -> tuple[float, float]:
        """(low, high), for a number the paper gives as a range."""
        if not isinstance(self.value, tuple):
            raise ValueError(f"{self.what}: the paper gives one value, not a range")
        return float(self.value[0]), float(self.value[1])

    def number(self) -> str:
        v = self.value
        num = f"{fmt(float(v[0]))}–{fmt(float(v[1]))}" if isinstance(v, tuple) else fmt(float(v))
        return f"{num}{' ' + self.unit if self.unit else ''}"

    def text(self) -> str:
        return f"{self.what}: {self.number()} ({self.source})"


@dataclass(frozen=True)
class Check:
    """One condition of a claim's rule: what it tests, whether it held, and the numbers.

    `compared` holds what the check compares, one entry per compared point
    (a value, or the tuple of a point's per-run values). When every entry
    is identical the compared points did not differ in what the check reads,
    so it cannot decide: `verdict_from` reports it as an error and counts it
    as failing, never as a pass (a tie, or runs a setting left unchanged)."""

    what: str
    ok: bool
    detail: str = ""
    compared: tuple[Any, ...] | None = None

    @property
    def identical(self) -> bool:
        c = self.compared
        return c is not None and len(c) > 1 and all(x == c[0] for x in c[1:])


IDENTICAL = "error: its inputs are identical at every compared point, so it cannot decide"


def margin_check(
    what: str, low: Sequence[float], high: Sequence[float], detail: str = "", *, one_seed: bool = False
) -> Check:
    """`high` is above `low` by more than their seeds' spread: the difference
    of the means exceeds the sum of their standard errors (the ±1 s.e.
    intervals do not overlap). With one value on either side the spread is
    unknown and the check fails, saying so, unless `one_seed` says this is
    one seed of several judged alone for seed stability (`StudyData.seed`),
    where only the order can be judged."""
    lo, hi = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    if one_seed:
        return Check(
            what, float(hi.mean()) > float(lo.mean()), f"{detail}; one seed alone: the order only".lstrip("; ")
        )
    if len(lo) < 2 or len(hi) < 2:
        return Check(what, False, f"{detail}; one seed, so no spread to judge a margin by".lstrip("; "))
    se = float(lo.std(ddof=1) / np.sqrt(len(lo)) + hi.std(ddof=1) / np.sqrt(len(hi)))
    d = float(hi.mean() - lo.mean())
    return Check(
        what,
        d > se,
        f"{detail}; difference {d:.4g} vs the seeds' s.e. sum {se:.4g}".lstrip("; "),
        compared=(tuple(lo.tolist()), tuple(hi.tolist())),
    )


@dataclass
class Verdict:
    claim: str
    verdict: str  # one of VERDICTS
    measured: dict[str, Any]  # the numbers the rule looked at
    reason: str  # printed beside the verdict
    checks: list[Check] = field(default_factory=list)  # the rule's checks on the pooled results
    # Seed stability (`with_stability`): the seeds, and per check on how many
    # of them it held; None when the study ran one seed.
    stability: dict[str, Any] | None = None
    # Why it fell short: MEASURED (`show`), NOT_SHOWN, or "" when reproduced.
    why: str = ""
    # The rule on the claim's counterfactual (`counterfactual.answer`).
    counterfactual: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r}: expected one of {', '.join(VERDICTS)}")
        if not self.why and self.verdict != VERDICTS[0]:
            self.why = NOT_SHOWN

    def show(self, measurement: str) -> Verdict:
        """Give the shortfall a reason shown by a measurement of the study's
        own (a targeted run; `measurement` says what it found, with its
        numbers). A reproduced verdict needs none and keeps its text only."""
        cut = self.reason.find(f". Reason: {NOT_SHOWN}")
        head = self.reason[:cut] if cut >= 0 else self.reason.rstrip(". ")
        self.reason = head + f". Reason (measured): {measurement}"
        if self.verdict != VERDICTS[0]:
            self.why = MEASURED
        return self

    @property
    def accounted(self) -> bool:
        """Reproduced, or its shortfall has a measured reason."""
        return self.verdict == VERDICTS[0] or self.why == MEASURED

    def seeds_text(self) -> str:
        """The claim's stability figure: on how many seeds every check held."""
        if not self.stability:
            return "1 seed"
        return f"{self.stability['all_held']}/{len(self.stability['seeds'])}"


def _verdict_of(ok: Sequence[bool]) -> str:
    n = sum(ok)
    return VERDICTS[0] if n == len(ok) else VERDICTS[1] if n else VERDICTS[2]


@dataclass
class StudyOutcome:
    """What running one study gave: its verdicts, run counts, time and reports."""

    name: str
    title: str
    cite: str
    mode: str
    out: Path
    verdicts: list[Verdict]
    runs: int
    computed: int
    failed: int
    wall_s: float
    cpu_s: float  # CPU of this call: this process and its finished worker processes
    report_html: Path
    report_md: Path

    def counts(self) -> dict[str, int]:
        return {v: sum(x.verdict == v for x in self.verdicts) for v in VERDICTS}

    def accounted(self) -> int:
        """Claims reproduced or whose shortfall has a measured reason."""
        return sum(x.accounted for x in self.verdicts)


def with_stability(pooled: Verdict, per_seed: dict[int, Verdict | None]) -> Verdict:
    """The verdict with its seed stability: each check of the pooled
    verdict also evaluated on every seed alone (None: the rule could not be
    evaluated on that seed's results, counted as not holding). A check
    counts as holding only if it holds pooled and on at least
    `CLEAR_MAJORITY` of the seeds, so a verdict that flips with the seed is
    not reproduced."""
    n = len(per_seed)
    held = []
    for c in pooled.checks:
        k = sum(1 for v in per_seed.values() if v is not None and any(x.what == c.what and x.ok for x in v.checks))
        held.append(k)
    all_held = sum(1 for v in per_seed.values() if v is not None and v.checks and all(x.ok for x in v.checks))
    ok = [c.ok and k >= CLEAR_MAJORITY * n for c, k in zip(pooled.checks, held)]
    verdict = _verdict_of(ok) if pooled.checks else pooled.verdict
    parts = [f"{'✓' if c.ok else '✗'} {c.what} {k}/{n}" for c, k in zip(pooled.checks, held)]
    reason = (
        pooled.reason.rstrip(". ")
        + f". Seeds ({', '.join(map(str, per_seed))}), each check on each seed alone: "
        + "; ".join(parts)
    )
    missing = [str(sd) for sd, v in per_seed.items() if v is None]
    if missing:
        reason += f". The rule could not be evaluated on seed {', '.join(missing)} alone (cells it needs are missing)"
    weak = [c.what for c, k in zip(pooled.checks, held) if c.ok and k < CLEAR_MAJORITY * n]
    if weak:
        reason += (
            f". Held pooled but on fewer than {CLEAR_MAJORITY:.0%} of the seeds, so counted as failing: "
            + "; ".join(weak)
        )
    stability = {
        "seeds": list(per_seed),
        "checks": {c.what: k for c, k in zip(pooled.checks, held)},
        "all_held": all_held,
    }
    why = "" if verdict == VERDICTS[0] else (pooled.why or NOT_SHOWN)
    return Verdict(pooled.claim, verdict, pooled.measured, reason, pooled.checks, stability, why)


def verdict_from(claim: str, checks: Sequence[Check], measured: dict[str, Any], why_not: str = "") -> Verdict:
    """All checks hold → reproduced; at least one → partly; none → not
    reproduced. The reason lists every check with its outcome. When a check
    fails the shortfall's reason is "not yet shown" unless the claim shows
    one by a measurement (`Verdict.show`); `why_not`, a cause the authors of
    the study suspect, is printed as an untested hypothesis, never as the
    reason."""
    if not checks:
        raise ValueError(f"claim {claim}: a rule needs at least one check")
    checks = [
        replace(c, ok=False, detail=f"{IDENTICAL}: {c.detail}" if c.detail else IDENTICAL) if c.identical else c
        for c in checks
    ]
    n_ok = sum(c.ok for c in checks)
    v = _verdict_of([c.ok for c in checks])
    parts = [f"{'✓' if c.ok else '✗'} {c.what}" + (f" ({c.detail})" if c.detail else "") for c in checks]
    reason = "; ".join(parts)
    if n_ok < len(checks):
        reason += f". Reason: {NOT_SHOWN}" + (f" (untested hypothesis: {why_not})" if why_not else "")
    return Verdict(claim, v, measured, reason, list(checks))


@dataclass
class Claim:
    id: str
    statement: str  # the paper's statement, in English
    rule: str  # the verdict rule in words (fixed before results)
    evaluate: Callable[[StudyData], Verdict]
    # A rule changed after results were seen: what changed and why (the
    # report prints it beside the rule); empty for a rule fixed beforehand.
    changed_after_results: str = ""
    # The counterfactual.Swap's that exchange two compared points (none: the
    # claim names no counterfactual yet).
    counterfactual: tuple[Any, ...] = ()
    # The numbers the paper gives for it (PaperValue), drawn on its figures.
    paper: tuple[Any, ...] = ()

    def paper_text(self) -> str:
        return "; ".join(p.text() for p in self.paper)

    def rule_text(self) -> str:
        if not self.changed_after_results:
            return self.rule
        return f"{self.rule} [Rule changed after results were seen: {self.changed_after_results}]"


@dataclass(frozen=True)
class _ClaimSpec:
    id: str
    statement: str
    rule: str
    changed_after_results: str
    counterfactual: tuple[Any, ...]
    paper: tuple[Any, ...]


def _many(x: Any) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (list, tuple)) else (x,) if x is not None else ()


def claim(
    id: str,
    statement: str,
    rule: str,
    *,
    changed_after_results: str = "",
    counterfactual: Any = (),
    paper: Any = None,
) -> Callable[[F], F]:
    """Mark a study method `f(self, data) -> Verdict` as the evaluation of a
    claim, so the paper's statement, the rule (fixed before results, or
    marked as changed after them) and the code that applies it sit together:

        @claim("A1", "SACK leads briefly, then ...", "Mean over the rates: ...")
        def _a1(self, data): ...

    `counterfactual`: the `counterfactual.Swap`s (one or a list) that
    exchange two points the claim compares, so that its rule, run on the
    study's runs so relabelled, must answer otherwise (the report shows
    what it answered there).

    `paper`: the `PaperValue`s (one or a list) the paper gives for the
    claim; the report prints them and the study's figures draw them
    (`draw_paper`).

    `Study.claims` collects the marked methods."""
    swaps = _many(counterfactual)

    def mark(fn: F) -> F:
        fn._claim = _ClaimSpec(id, statement, rule, changed_after_results, swaps, _many(paper))  # type: ignore[attr-defined]
        return fn

    return mark


@dataclass
class Experiment:
    name: str
    title: str
    sweep: Any  # ccsim.Sweep


@dataclass
class Figure:
    file: str  # PNG file name inside the figures folder
    caption: str
    # the claims whose paper values the figure draws (draw_paper)
    paper: tuple[str, ...] = ()


@dataclass
class StudyData:
    """What claims and figures read: one opened campaign per experiment.
    `accessed` collects the experiments read since it was last cleared
    (through `campaign`, or through a `memo` built from them), so that a
    claim's seed stability is judged on the experiments it reads."""

    mode: str
    plan: Any  # the mode's plan: the study's own kit.Plan subclass (typed where the study reads it)
    campaigns: dict[str, Campaign]
    cache: dict[str, Any] = field(default_factory=dict)
    accessed: set[str] = field(default_factory=set)
    # The seed this data is cut to (`for_seed`, seed stability), else None.
    seed: int | None = None

    def campaign(self, name: str) -> Campaign:
        if name not in self.campaigns:
            raise KeyError(f"no experiment {name!r}; experiments: {', '.join(self.campaigns)}")
        self.accessed.add(name)
        return self.campaigns[name]

    def memo(self, key: str, fn: Callable[[], T]) -> T:
        if key not in self.cache:
            outer, self.accessed = self.accessed, set()
            try:
                value = fn()
            finally:
                used, self.accessed = self.accessed, outer | self.accessed
            self.cache[key] = (value, used)
        value, used = self.cache[key]
        self.accessed |= used
        return cast(T, value)

    def _seeds_of(self, name: str) -> set[int]:
        c = self.campaigns[name]
        return set(c.ok_runs["seed"].to_list()) if "seed" in c.ok_runs.columns else set()

    def seeds(self, names: Iterable[str] | None = None) -> list[int]:
        """The seeds every experiment among `names` (default: all) that ran
        more than one seed has in common; empty if none ran more than one."""
        sets = [s for n in (self.campaigns if names is None else names) if len(s := self._seeds_of(n)) > 1]
        return sorted(set.intersection(*sets)) if sets else []

    def for_seed(self, seed: int) -> StudyData:
        """The same data with every experiment that ran `seed` among others
        cut to that seed's runs; the rest are kept whole."""
        cut = {}
        for name, c in self.campaigns.items():
            seeds = self._seeds_of(name)
            cut[name] = c.restricted(seed) if len(seeds) > 1 and seed in seeds else c
        return StudyData(mode=self.mode, plan=self.plan, campaigns=cut, seed=seed)


class Study(ABC):
    """Base class of a study module's study. Subclasses set the class
    attributes and implement every abstract method."""

    name: str = ""
    title: str = ""
    reference: str = ""  # the paper: authors, title, venue, year
    cite: str = ""  # short: "Authors year"
    simulator: str = ""  # what the paper ran (ns-2, Mininet, ...)
    summary_intro: str = ""

    @abstractmethod
    def plan(self, mode: str) -> Plan:
        """The knobs of a mode: durations, sweep values, seeds, and a
        'describe' string saying what the mode shortens (a `kit.Plan`
        subclass; still a mapping in the studies not moved onto it)."""
        ...

    @abstractmethod
    def setup_rows(self, plan: Any) -> list[tuple[str, str]]: ...  # plan: the study's Plan subclass

    @abstractmethod
    def choices(self) -> list[Choice]: ...

    @abstractmethod
    def experiments(self, plan: Any) -> list[Experiment]: ...

    @abstractmethod
    def figures(self, data: StudyData, out: Path) -> list[Figure]: ...

    def claims(self) -> list[Claim]:
        """The study's claims: every method marked with `@claim`, in the
        order the study's classes are searched (its own, then the mixins of
        a study split by section, each in definition order)."""
        out, seen = [], set()
        for cls in type(self).__mro__:
            for name, fn in vars(cls).items():
                spec = getattr(fn, "_claim", None)
                if spec is None or name in seen:
                    continue
                seen.add(name)
                out.append(
                    Claim(
                        spec.id,
                        spec.statement,
                        spec.rule,
                        getattr(self, name),
                        spec.changed_after_results,
                        spec.counterfactual,
                        spec.paper,
                    )
                )
        ids = [c.id for c in out]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{type(self).__name__}: claim ids repeat: {ids}")
        return out

    def claim_of(self, id: str) -> Claim:
        """The claim with this id (figures read its paper values)."""
        for c in self.claims():
            if c.id == id:
                return c
        raise KeyError(f"{self.name}: no claim {id!r}")

    def summary(self, verdicts: list[Verdict]) -> str:
        counts = {v: sum(x.verdict == v for x in verdicts) for v in VERDICTS}
        return (
            f"{self.summary_intro} Of {len(verdicts)} claims, {counts['reproduced']} reproduced, "
            f"{counts['partly']} partly and {counts['not reproduced']} not reproduced."
        )


# ---- helpers shared by the studies


def num(x: object) -> float:
    """A polars aggregate (a Series' mean, max, median or quantile) as a
    float; None, what an empty series gives, as NaN. Anything else is a
    mistake in the caller and raises."""
    if x is None:
        return math.nan
    if isinstance(x, (int, float, np.integer, np.floating)):
        return float(x)
    raise TypeError(f"expected a number from a polars aggregate, got {x!r}")


def fmt(x: float, nd: int = 4) -> str:
    """A number for a report cell: `nd` significant digits, NaN as 'n/a'."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if isinstance(x, float):
        return f"{x:.{nd}g}"
    return str(x)


PAPER_STYLE = {"color": "black", "lw": 1.3, "ls": (0, (1, 1.5)), "zorder": 5}


def draw_paper(
    ax: Any, claim: Claim, *, scale: float = 1.0, at: float | None = None, only: str | None = None, axis: str = "y"
) -> None:
    """Draw the paper's values of `claim` on `ax` in black dots: a value as
    a horizontal line (vertical with axis="x"), a range as a band between
    two, labelled 'paper: …' in the legend. `scale` converts the paper's
    unit to the axis's; `at` draws a value as a star at that x instead of a
    line; `only` draws the values whose `what` contains it. The figure
    remembers which claims it drew (save_figure puts them in its Figure
    entry)."""
    vals = [p for p in claim.paper if only is None or only in p.what]
    if not vals:
        raise ValueError(f"claim {claim.id}: no paper value{' ' + repr(only) if only else ''} to draw")
    for p in vals:
        # several values on one panel need their names to be told apart
        label = f"paper: {p.what} {p.number()}" if len(vals) > 1 else f"paper: {p.number()} ({p.source})"
        span, line = (ax.axvspan, ax.axvline) if axis == "x" else (ax.axhspan, ax.axhline)
        if isinstance(p.value, tuple):
            lo, hi = (float(x) * scale for x in p.value)
            span(lo, hi, color="black", alpha=0.07, zorder=0)
            line(lo, **PAPER_STYLE, label=label)
            line(hi, **PAPER_STYLE)
        elif at is not None:
            y = float(p.value) * scale
            ax.plot([at], [y], marker="*", ms=11, color="black", ls="none", zorder=6, label=label)
            ax.annotate(p.number(), (at, y), xytext=(7, 0), textcoords="offset points", fontsize=7, va="center")
        else:
            line(float(p.value) * scale, **PAPER_STYLE, label=label)
        # the paper's value stays in view however far ours lie from it
        ends = [float(x) * scale for x in (p.value if isinstance(p.value, tuple) else (p.value,))]
        if at is None and axis == "x":
            ax.update_datalim([(e, ax.get_ylim()[0]) for e in ends], updatey=False)
        elif at is None:
            ax.update_datalim([(ax.get_xlim()[0], e) for e in ends], updatex=False)
        ax.autoscale_view()
    mark_paper(ax.figure, claim)


def mark_paper(fig: Any, claim: Claim) -> None:
    """Note that `fig` shows the paper's values of `claim` (draw_paper does
    this; a figure that draws them its own way, as a table, calls it)."""
    if not claim.paper:
        raise ValueError(f"claim {claim.id}: it gives no paper value to show")
    fig._ccsim_paper = (*getattr(fig, "_ccsim_paper", ()), claim.id)


def save_figure(fig: Any, out: Path, name: str, caption: str) -> Figure:
    """Lay out `fig`, write it as out/name (PNG, 100 dpi) and return its
    Figure entry."""
    fig.tight_layout()
    fig.savefig(out / name, dpi=100)
    return Figure(name, caption, tuple(dict.fromkeys(getattr(fig, "_ccsim_paper", ()))))
