import contextlib
import subprocess
import sys

from ccsim import Builder
from ccsim.studies.base import Study


def dumbbell_raw(duration="1s", rate="10Mbps", delay="10ms", flows=None, tcp=None, **topo) -> dict:
    """A small dumbbell as a scenario mapping (1 Gb/s, 1 ms access links):
    the base the CLI and sweep tests edit."""
    raw = {
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
    duration="60s",
    seed=1,
    rate="20Mbps",
    delay="30ms",
    buffer="1bdp",
    loss=None,
    sample_interval="100ms",
    tcp=None,
    flows=None,
    trace=None,
    **topo,
):
    b = Builder(duration=duration, seed=seed, sample_interval=sample_interval, trace=trace)
    t = dict(rate=rate, delay=delay, buffer=buffer, **topo)
    if loss is not None:
        t["loss"] = loss
    b.single_link(**t)
    b.tcp(**(tcp or {}))
    for f in flows or [dict(app="bulk")]:
        b.flows(**f)
    return b.build()


def dumbbell(n=10, duration="60s", seed=1, rate="100Mbps", buffer="1bdp", tcp=None, sample_interval="100ms", **flow):
    return (
        Builder(duration=duration, seed=seed, sample_interval=sample_interval)
        .dumbbell(bottleneck_rate=rate, bottleneck_delay="18ms", access_rate="1Gbps", access_delay="1ms", buffer=buffer)
        .tcp(**(tcp or {}))
        .flows(count=n, app="bulk", stagger="10ms", **flow)
        .build()
    )


# A one-second sweep base: one 10 Mb/s link, two NewReno flows; drawn start
# times, so the seed changes the run.
TINY = {
    "sim": {"duration": "1s", "seed": 1, "sample_interval": "100ms"},
    "topology": {"kind": "single_link", "rate": "10Mbps", "delay": "10ms", "buffer": "1bdp"},
    "tcp": {"cc": "newreno"},
    "flows": [{"count": 2, "app": "bulk", "start": {"dist": "uniform", "min": "0s", "max": "200ms"}}],
}


@contextlib.contextmanager
def flock_held(path, content: str = ""):
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
        assert holder.stdout.readline().strip() == "locked"
        yield
    finally:
        holder.kill()
        holder.wait()


def plotted_figures(out_dir) -> dict:
    """ccsim.analysis.plot.plot_dir on a run's folder, returning its matplotlib
    figures by file stem (they are also written), so a test can read what
    a figure draws."""
    from ccsim.analysis import plot

    figs: dict = {}
    real_save = plot._save
    plot._save = lambda fig, stem, formats: figs.setdefault(stem.name, fig) and real_save(fig, stem, formats)
    try:
        plot.plot_dir(out_dir)
    finally:
        plot._save = real_save
    return figs


def unlabelled_axes(fig) -> list[str]:
    """Axes that draw data without a label on x or y (a shared axis may carry
    its label on a sibling: the bottom row, the first column)."""
    out = []
    for ax in fig.axes:
        if not ax.get_visible() or not ax.has_data():
            continue
        name = ax.get_title() or (fig._suptitle.get_text() if fig._suptitle else "") or "?"
        for which, sib, get in (
            ("x", ax.get_shared_x_axes().get_siblings(ax), "get_xlabel"),
            ("y", ax.get_shared_y_axes().get_siblings(ax), "get_ylabel"),
        ):
            if not any(getattr(a, get)().strip() for a in sib):
                out.append(f"{name[:60]!r}: no {which} label")
    return out


def check_labels_on_save(monkeypatch) -> list[str]:
    """From now on, every matplotlib figure saved records here the axes
    `unlabelled_axes` finds (file name first); returns the list it fills."""
    from pathlib import Path

    from matplotlib.figure import Figure

    missing: list[str] = []
    save = Figure.savefig

    def checked(self, fname, *a, **kw):
        missing.extend(f"{Path(str(fname)).name}: {m}" for m in unlabelled_axes(self))
        return save(self, fname, *a, **kw)

    monkeypatch.setattr(Figure, "savefig", checked)
    return missing


class BareStudy(Study):
    """A study for tests: what a report prints about the paper, and no
    set-up rows, choices or figures; a test adds its plan, experiments and
    claims."""

    reference = "nobody, a test, 2026"
    simulator = "ccsim"
    summary_intro = "A test."

    def setup_rows(self, plan):
        return []

    def choices(self):
        return []

    def figures(self, data, out):
        return []
