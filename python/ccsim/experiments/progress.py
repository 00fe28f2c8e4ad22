"""Progress bars (rich) for sweeps and long single runs. Shown only on a
terminal: with stdout redirected (CI logs, pipes) nothing is drawn."""

from __future__ import annotations

import sys
import threading
import time
from typing import Any


def enabled(quiet: bool = False) -> bool:
    return not quiet and sys.stdout.isatty()


class SweepProgress:
    """runs done / failed / total, simulated seconds per wall second, ETA."""

    def __init__(self, total: int, show: bool) -> None:
        self.total, self.done, self.failed, self.sim_s = total, 0, 0, 0.0
        self.t0 = time.monotonic()
        self._p = None
        if show:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._p = Progress(
                TextColumn("sweep"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("[red]{task.fields[failed]} failed"),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                transient=False,
            )
            self._task = self._p.add_task("sweep", total=total, failed=0, rate="")
            self._p.start()

    def update(self, ok: bool, sim_time_s: float = 0.0) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        self.sim_s += sim_time_s
        if self._p is not None:
            el = max(time.monotonic() - self.t0, 1e-9)
            self._p.update(self._task, completed=self.done, failed=self.failed, rate=f"{self.sim_s / el:,.0f} sim-s/s")

    def close(self) -> None:
        if self._p is not None:
            self._p.stop()


class RunProgress:
    """A bar for one run, drawn only once the run has lasted `after_s`."""

    def __init__(self, control: Any, duration_s: float, show: bool, after_s: float = 2.0) -> None:
        self.control, self.duration_s, self.show, self.after_s = control, duration_s, show, after_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> RunProgress:
        if self.show:
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def _loop(self) -> None:
        if self._stop.wait(self.after_s):
            return
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        with Progress(
            TextColumn("simulating"),
            BarColumn(),
            TextColumn("{task.completed:.1f}/{task.total:.1f} sim-s"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            transient=True,
        ) as p:
            t = p.add_task("run", total=self.duration_s)
            while not self._stop.wait(0.2):
                p.update(t, completed=self.control.sim_time_s())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
