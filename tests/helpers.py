import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from ccsim import Builder, Scenario
from ccsim.analysis.figures import Figure
from ccsim.studies.base import Choice, Study, StudyData
from ccsim.studies.base import Figure as StudyFigure
from ccsim.studies.kit import Plan
from matplotlib.figure import Figure as MplFigure
from pytest import MonkeyPatch


def dumbbell_raw(
    duration: str = "1s",
    rate: str = "10Mbps",
    delay: str = "10ms",
    flows: list[dict[str, Any]] | None = None,
    tcp: dict[str, Any] | None = None,
    **topo: Any,
) -> dict[str, Any]:
    """A small dumbbell as a scenario mapping (1 Gb/s, 1 ms access links):
    the base the CLI and sweep tests edit."""
    raw: dict[str, Any] = {
        "sim": {"duration": duration, "seed": 1},
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": rate,
            "bottleneck_delay": delay,
            "access_rate": "1Gbps",
            "access_delay": "1ms",
            **topo,
        },
        "flows": flows or [{"count": 1}],
    }
    if tcp is not None:
        raw["tcp"] = tcp
    return raw


def single_link(
    duration: str = "60s",
    seed: int = 1,
    rate: str = "20Mbps",
    delay: str = "30ms",
    buffer: str = "1bdp",
    loss: Any = None,
    sample_interval: str = "100ms",
    tcp: dict[str, Any] | None = None,
    flows: list[dict[str, Any]] | None = None,
    trace: list[str] | None = None,
    **topo: Any,
) -> Scenario:
    b = Builder(duration=duration, seed=seed, sample_interval=sample_interval, trace=trace)
    t = dict(rate=rate, delay=delay, buffer=buffer, **topo)
    if loss is not None:
        t["loss"] = loss
    b.single_link(**t)
    b.tcp(**(tcp or {}))
    for f in flows or [dict(app="bulk")]:
        b.flows(**f)
    return b.build()


def dumbbell(
    n: int = 10,
    duration: str = "60s",
    seed: int = 1,
    rate: str = "100Mbps",
    buffer: str = "1bdp",
    tcp: dict[str, Any] | None = None,
    sample_interval: str = "100ms",
    **flow: Any,
) -> Scenario:
    return (
        Builder(duration=duration, seed=seed, sample_interval=sample_interval)
        .dumbbell(bottleneck_rate=rate, bottleneck_delay="18ms", access_rate="1Gbps", access_delay="1ms", buffer=buffer)
        .tcp(**(tcp or {}))
        .flows(count=n, app="bulk", stagger="10ms", **flow)
        .build()
    )


# A one-second sweep base: one 10 Mb/s link, two NewReno flows; drawn start
# times, so the seed changes the run.
TINY: dict[str, Any] = {
    "sim": {"duration": "1s", "seed": 1, "sample_interval": "100ms"},
    "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "10ms", "buffer": "1bdp"},
    "tcp": {"cc": "newreno"},
    "flows": [{"count": 2, "app": "bulk", "start": {"dist": "uniform", "min": "0s", "max": "200ms"}}],
}


@contextlib.contextmanager
def flock_held(path: str | Path, content: str = "") -> Iterator[None]:
    """Another process holding an exclusive flock on `path` (created if
    missing, `content` written into it) until the block ends."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, time\n"
            f"fd = os.open({str(path)!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            f"os.ftruncate(fd, 0); os.write(fd, {content.encode()!r})\n"
            "print('locked', flush=True)\n"
            "time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield
    finally:
        holder.kill()
        holder.wait()


def plotted_figures(out_dir: str | Path) -> dict[str, Figure]:
    """ccsim.analysis.plot.plot_dir on a run's folder, returning its matplotlib
    figures by file stem (they are also written), so a test can read what
    a figure draws."""
    from ccsim.analysis import plot

    figs: dict[str, Figure] = {}
    real_save = plot._save

    def keep(fig: Figure, stem: Path, formats: tuple[str, ...]) -> list[Path]:
        figs.setdefault(stem.name, fig)
        return real_save(fig, stem, formats)

    plot._save = keep  # a test's stand-in, restored below
    try:
        plot.plot_dir(out_dir)
    finally:
        plot._save = real_save
    return figs


def unlabelled_axes(fig: MplFigure) -> list[str]:
    """Axes that draw data without a label on x or y (a shared axis may carry
    its label on a sibling: the bottom row, the first column)."""
    out = []
    for ax in fig.axes:
        if not ax.get_visible() or not ax.has_data():
            continue
        name = ax.get_title() or fig.get_suptitle() or "?"
        for which, sib, get in (
            ("x", ax.get_shared_x_axes().get_siblings(ax), "get_xlabel"),
            ("y", ax.get_shared_y_axes().get_siblings(ax), "get_ylabel"),
        ):
            if not any(getattr(a, get)().strip() for a in sib):
                out.append(f"{name[:60]!r}: no {which} label")
    return out


def check_labels_on_save(monkeypatch: MonkeyPatch) -> list[str]:
    """From now on, every matplotlib figure saved records here the axes
    `unlabelled_axes` finds (file name first); returns the list it fills."""
    missing: list[str] = []
    save = MplFigure.savefig

    def checked(self: MplFigure, fname: Any, *a: Any, **kw: Any) -> None:
        missing.extend(f"{Path(str(fname)).name}: {m}" for m in unlabelled_axes(self))
        return save(self, fname, *a, **kw)

    monkeypatch.setattr(MplFigure, "savefig", checked)
    return missing


class BareStudy(Study):
    """A study for tests: what a report prints about the paper, and no
    set-up rows, choices or figures; a test adds its plan, experiments and
    claims."""

    reference = "nobody, a test, 2026"
    simulator = "ccsim"
    summary_intro = "A test."

    def setup_rows(self, plan: Plan) -> list[tuple[str, str]]:
        return []

    def choices(self) -> list[Choice]:
        return []

    def figures(self, data: StudyData, out: Path) -> list[StudyFigure]:
        return []


def stand_in(**attrs: Any) -> StudyData:
    """A claim's `data` in a test that replaces the measures the claim reads:
    an object with only the attributes given (none: the claim reads nothing
    of it directly)."""
    return cast(StudyData, SimpleNamespace(**attrs))
